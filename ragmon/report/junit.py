"""JUnit XML, because every CI system renders it: one test case per gate, a failure per breached gate."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ragmon.gate import GateResult
from ragmon.model import Report


def render(report: Report, gates: Sequence[GateResult]) -> str:
    failures = sum(not g.passed for g in gates)
    suite = ET.Element("testsuite", name="ragmon", tests=str(len(gates)), failures=str(failures),
                       errors="0", skipped="0")
    properties = ET.SubElement(suite, "properties")
    for name, value in (("judge", report.judge.get("name", "?")), ("k", report.k),
                        ("examples", len(report.results)), ("skipped_examples", len(report.skipped))):
        ET.SubElement(properties, "property", name=name, value=str(value))
    for g in gates:
        name = f"{g.metric} {g.op} {g.threshold:g}"
        case = ET.SubElement(suite, "testcase", classname="ragmon.gate", name=name)
        if not g.passed:
            failure = ET.SubElement(case, "failure", message=f"{g.metric} {g.reason}", type="GateBreached")
            failure.text = f"gate {name} breached: {g.reason}"
        else:
            ET.SubElement(case, "system-out").text = g.reason
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
