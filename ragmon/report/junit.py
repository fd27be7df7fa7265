"""JUnit XML, because every CI system renders it: one test case per gate, a failure per breached gate.

A failure's text is what a CI page shows for a failed test, so it names the examples that pulled the
gated metric over its threshold, worst first, with each unsupported sentence and the judge's reason when
the metric is one of claims. Bounded (`worst` examples, a few sentences each, clipped) so a 10,000-example
run stays a small file. The suite's system-out carries the terminal summary: every figure, not only the
gated ones.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ragmon.gate import GateResult
from ragmon.model import Report
from ragmon.report import text
from ragmon.report.markdown import DEFAULT_WORST

CLAIM_METRICS = frozenset({"groundedness", "hallucination_rate"})
"""Metrics decided by the unsupported sentences themselves; the others are listed by value alone."""
SENTENCES_SHOWN = 5
"""Unsupported sentences quoted per example in a failure."""
WIDTH = 300
"""Characters of a sentence, a reason or an id on one line of a failure."""


def render(report: Report, gates: Sequence[GateResult], *, worst: int = DEFAULT_WORST) -> str:
    failures = sum(not g.passed for g in gates)
    suite = ET.Element("testsuite", name="ragmon", tests=str(len(gates)), failures=str(failures),
                       errors="0", skipped="0")
    properties = ET.SubElement(suite, "properties")
    for name, value in (("judge", report.judge.get("name", "?")), ("k", report.k),
                        ("examples", len(report.results)), ("skipped_examples", len(report.skipped))):
        ET.SubElement(properties, "property", name=name, value=text.clip(str(value), WIDTH))
    for g in gates:
        name = f"{g.metric} {g.op} {g.threshold:g}"
        case = ET.SubElement(suite, "testcase", classname="ragmon.gate", name=name)
        if not g.passed:
            failure = ET.SubElement(case, "failure", message=f"{g.metric} {g.reason}", type="GateBreached")
            failure.text = "\n".join([f"gate {name} breached: {g.reason}", *_worst_lines(report, g, worst)])
        else:
            ET.SubElement(case, "system-out").text = g.reason
    ET.SubElement(suite, "system-out").text = text.render(report, gates)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def _worst_lines(report: Report, gate: GateResult, worst: int) -> list[str]:
    """The examples on the wrong side of the gate's threshold, worst first; none when no example measured
    the metric (the gate's reason says so already)."""
    measured = [(value, r) for r in report.results
                if (value := r.metrics.get(gate.metric)) is not None and math.isfinite(value)]
    if not measured:
        return []
    higher_is_worse = gate.op == "<="
    failing = sorted(((value, r) for value, r in measured
                      if (value > gate.threshold if higher_is_worse else value < gate.threshold)),
                     key=lambda item: -item[0] if higher_is_worse else item[0])
    side = "above" if higher_is_worse else "below"
    shown = failing[:worst]
    listed = f", the worst {len(shown)} listed:" if len(shown) < len(failing) else ", worst first:"
    lines = [f"{len(failing)} of {len(measured)} examples have {gate.metric} {side} {gate.threshold:g}"
             + (listed if failing else "")]
    for value, result in shown:
        lines += ["", f"{text.clip(result.example.id, WIDTH)}: {gate.metric} {value:.4g}"]
        if gate.metric in CLAIM_METRICS:
            lines += text.unsupported_lines(result, limit=SENTENCES_SHOWN, width=WIDTH, indent="  ")
    return lines
