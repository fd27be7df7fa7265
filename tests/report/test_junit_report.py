"""JUnit XML: parses, one test case per gate, a failure element exactly for the breached ones."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragmon.gate import GateResult
from ragmon.model import Report
from ragmon.report.junit import render


def test_one_testcase_per_gate_with_failures(report: Report, gates: tuple[GateResult, ...]) -> None:
    suite = ET.fromstring(render(report, gates).encode("utf-8"))
    assert suite.tag == "testsuite" and suite.get("name") == "ragmon"
    assert (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = suite.findall("testcase")
    names = [c.get("name") for c in cases]
    assert names == ["groundedness >= 0.85", "recall >= 0", "citation_accuracy >= 0.5"]
    failed = {c.get("name"): c.find("failure") for c in cases}
    assert failed["recall >= 0"] is None
    assert failed["groundedness >= 0.85"].get("message") == "groundedness 0.5833 < 0.85"
    assert failed["citation_accuracy >= 0.5"].get("message") == "citation_accuracy undefined: 0 observations"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["judge"] == "lexical" and properties["examples"] == "4"


def test_no_gates_is_an_empty_valid_suite(report: Report) -> None:
    suite = ET.fromstring(render(report, ()))
    assert suite.findall("testcase") == [] and suite.get("failures") == "0"
