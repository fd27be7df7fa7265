"""JUnit XML, because every CI system renders it: one test case per gate, a failure per breached gate.

A failure's text is what a CI page shows for a failed test, so it names the examples that pulled the
gated metric over its threshold, worst first, with each unsupported sentence and the judge's reason when
the metric is one of claims, the cited ids at fault when it is one of citations (ragmon.report.citations)
(for a gate breached on its interval's bound with none over it, the few nearest it, and why:
`text.nearest`); for a drop gate (`--max-drop`, class `ragmon.baseline`), the shared
examples that got worse than in the baseline, with their newly unsupported sentences; before them, how
many examples have no value for the metric and why, since a mean over fewer can hide answers that said
nothing (ragmon.report.coverage); its message, how many examples the judge failed on (`--judge-errors
skip`), as every gate was decided without them. Bounded (`worst` examples, a few sentences each, clipped)
so a 10,000-example run stays a small file. The suite's system-out carries the terminal summary: every
figure, not only the gated ones. A passing gate's test case holds nothing the schema would take that
count in: it is in the system-out's gate lines and the `skipped_examples` property.

Valid against the Apache Ant JUnit schema that many readers assume (windyroad's JUnit.xsd): the suite
carries `timestamp` (UTC, no zone, as the schema wants), `hostname` and `time`, each test case a `time`
(0: every gate is decided at once, after scoring), and the suite ends with system-out and system-err. A
run that could not complete (exit 2) is one test case in error (`RunIncomplete`) and no gate cases: gates
decided on figures that say nothing true, or never decided, must not show green. A run with no gate is
that test case passing: Jenkins' JUnit step and dorny/test-reporter fail a build on a report of no test
cases, and the run passed (exit 0).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ragmon import __version__
from ragmon.baseline import CLAIM_METRICS, Comparison
from ragmon.gate import GateResult, fmt_exact, fmt_pair
from ragmon.model import Report
from ragmon.report import coverage, text
from ragmon.report.citations import CITATION_METRICS
from ragmon.report.markdown import DEFAULT_WORST

SENTENCES_SHOWN = 5
"""Unsupported sentences quoted per example in a failure."""
WIDTH = 300
"""Characters of a sentence, a reason or an id on one line of a failure."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """When and where the run happened and how long it took, which the schema requires; given by the
    caller so that rendering stays a function of its arguments."""

    started: datetime
    seconds: float = 0.0
    hostname: str = "localhost"
    """'localhost' when unknown, as the schema says."""


def render(report: Report, gates: Sequence[GateResult], *, worst: int = DEFAULT_WORST,
           run: RunInfo | None = None, incomplete: str | None = None,
           comparison: Comparison | None = None, run_warnings: Sequence[str] = ()) -> str:
    """`run` defaults to now, 0 seconds; `incomplete` is the error that stopped the run after scoring;
    `comparison` is against the `--baseline` run, which the drop gates among `gates` were decided on;
    `run_warnings` the run's, of no example, which the system-out's summary says as the terminal does."""
    summary = text.render(report, gates, incomplete=incomplete, comparison=comparison,
                          run_warnings=run_warnings)
    if incomplete is not None:
        suite = _suite(run, tests=1, failures=0, errors=1)
        _properties(suite, report, comparison)
        _error_case(suite, incomplete)
        return _finish(suite, summary)
    suite = _suite(run, tests=len(gates) or 1, failures=sum(not g.passed for g in gates), errors=0)
    _properties(suite, report, comparison)
    if not gates:
        _run_case(suite)
    warnings = {gap.metric: [text.warning(gap)] for gap in coverage.gaps(report, gates)}
    skipped = coverage.skipped_note(report)
    for g in gates:
        classname = "ragmon.gate" if g.max_drop is None else "ragmon.baseline"
        case = ET.SubElement(suite, "testcase", classname=classname, name=g.label, time="0")
        if not g.passed:
            reason = coverage.with_skipped(g.reason, skipped)
            failure = ET.SubElement(case, "failure", message=f"{g.metric} {reason}", type="GateBreached")
            examples = (_worst_lines(report, g, worst) if comparison is None or g.max_drop is None
                        else _worsened_lines(comparison, g, worst))
            failure.text = "\n".join([f"gate {g.label} breached: {reason}", *warnings.get(g.metric, ()),
                                      *examples])
    return _finish(suite, summary)


def render_error(message: str, *, run: RunInfo | None = None, status: int | None = 2) -> str:
    """A run that stopped before it had figures (bad input, an unreachable target, a judge error, or a
    signal: `status` is the exit status it stopped with), or, `status` None, one that has not ended (the
    report written before its work, which its own replaces)."""
    suite = _suite(run, tests=1, failures=0, errors=1)
    _properties(suite, None, None)
    _error_case(suite, message, status)
    return _finish(suite, "")


def _suite(run: RunInfo | None, *, tests: int, failures: int, errors: int) -> ET.Element:
    run = run or RunInfo(datetime.now(UTC))
    timestamp = run.started.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    # No `skipped`: Ant's schema has no such attribute (its count of 0 made every report invalid), no gate
    # is ever skipped (skipped examples are the `skipped_examples` property), and Jenkins and GitLab read a
    # test's status from its test case.
    return ET.Element("testsuite", name="ragmon", tests=str(tests), failures=str(failures),
                      errors=str(errors), time=f"{max(run.seconds, 0.0):.3f}",
                      timestamp=timestamp, hostname=run.hostname or "localhost")


def _properties(suite: ET.Element, report: Report | None, comparison: Comparison | None) -> None:
    """The run's settings and counts; only the version when it stopped before it had any."""
    properties = ET.SubElement(suite, "properties")
    listed: list[tuple[str, object]] = [("ragmon_version", __version__)]
    if report is not None:
        listed += [("judge", report.judge.get("name", "?")), ("k", report.k),
                   ("examples", len(report.results)), ("skipped_examples", len(report.skipped))]
    if comparison is not None:
        listed += [("baseline", comparison.path), ("baseline_shared_examples", comparison.shared),
                   ("baseline_new_examples", comparison.new),
                   ("baseline_gone_examples", len(comparison.gone))]
        # Beside the English caveat, for a tool: a property is shown even where system-out is hidden.
        if comparison.scoring_rules is not None:
            listed.append(("baseline_scoring_rules", comparison.scoring_rules))
    for name, value in listed:
        ET.SubElement(properties, "property", name=name, value=text.show_id(str(value), WIDTH))


def _run_case(suite: ET.Element) -> ET.Element:
    """The run's own test case: one name whether it errs or passes, so a CI's history of it is one test."""
    return ET.SubElement(suite, "testcase", classname="ragmon.run", name="replay completes", time="0")


def _error_case(suite: ET.Element, message: str, status: int | None = 2) -> None:
    shown = text.show(message, text.ERROR_WIDTH)
    error = ET.SubElement(_run_case(suite), "error", message=shown, type="RunIncomplete")
    error.text = f"{text.not_completed(status)}, so no gate was decided: {shown}"


def _finish(suite: ET.Element, summary: str) -> str:
    ET.SubElement(suite, "system-out").text = summary
    ET.SubElement(suite, "system-err")
    ET.indent(suite)
    # A JUnit reporter may print a failure's text to the CI log, and a step may print the file: neither may
    # run a workflow command a sentence or an id spells (text.inert), here as in system-out.
    return text.inert('<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode")
                      + "\n")


def _worst_lines(report: Report, gate: GateResult, worst: int) -> list[str]:
    """The examples on the wrong side of the gate's threshold, worst first, or when none is, the few nearest
    it; none when no example measured the metric (the gate's reason says so already)."""
    measured = text.measured(report.results, gate.metric)
    if not measured:
        return []
    failing = text.wrong_side(measured, gate)
    side = "above" if gate.op == "<=" else "below"
    shown = failing[:worst]
    listed = f", the worst {len(shown)} listed:" if len(shown) < len(failing) else ", worst first:"
    if not failing:  # breached on its interval's bound: the nearest the threshold, and why (text.nearest)
        near = text.nearest(report, gate, measured, worst)
        shown, listed = near.examples, f"{near.said}:"
    lines = [f"{len(failing)} of {len(measured)} examples have {gate.metric} {side} "
             f"{fmt_exact(gate.threshold)}{listed}"]
    for value, result in shown:  # 0.416667 "below 0.41667" is not shown as 0.4167 (fmt_pair)
        lines += ["", f"{text.show_id(result.example.id, WIDTH)}: {gate.metric} "
                      f"{fmt_pair(value, gate.threshold)[0]}"]
        if gate.metric in CLAIM_METRICS:
            lines += text.unsupported_lines(result, limit=SENTENCES_SHOWN, width=WIDTH, indent="  ")
        if gate.metric in CITATION_METRICS:
            lines += text.citation_lines(result, width=WIDTH, indent="  ", metrics=(gate.metric,))
    return lines


def _worsened_lines(comparison: Comparison, gate: GateResult, worst: int) -> list[str]:
    """The shared examples worse on the gated metric than in the baseline, the biggest change first, with
    their newly unsupported sentences for a claim metric; none when the gate's metric was undefined (its
    reason says why)."""
    if gate.value is None:
        return []
    worsened = comparison.worsened(gate.metric)
    shown = worsened[:worst]
    listed = f", the worst {len(shown)} listed:" if len(shown) < len(worsened) else ", worst first:"
    lines = [f"{len(worsened)} of {comparison.shared} examples in both runs got worse on {gate.metric} "
             f"than in the baseline" + (listed if worsened else "")]
    for change in shown:
        lines += ["", f"{text.show_id(change.result.example.id, WIDTH)}: {text.moved(change, gate.metric)}"]
        if gate.metric in CLAIM_METRICS:
            lines += text.sentence_lines(change.newly_unsupported, limit=SENTENCES_SHOWN, width=WIDTH,
                                         indent="  ", what=text.NEWLY)
    return lines
