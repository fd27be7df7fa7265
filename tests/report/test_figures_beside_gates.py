"""A figure shown beside a gate is never rounded onto or across its threshold: in the gate tables, the
metric tables of the terminal and Markdown reports, the Markdown's changes against a baseline, the JUnit
failures and the JSON report, it sits on the side the gate found it on. Gates decided by the real gate
code on hand-built aggregates."""

from __future__ import annotations

import json
import re
import statistics
import xml.etree.ElementTree as ET

from ragmon.baseline import Baseline, BaselineExample, compare
from ragmon.gate import GateResult, decide, decide_drops, parse_drops, parse_gates
from ragmon.model import Aggregate, Example, ExampleResult, Report
from ragmon.report import json as json_report
from ragmon.report import junit, markdown, text


def run(aggregates: dict[str, Aggregate], *gates: str, confidence: float | None = None,
        groundedness: tuple[float, ...] = ()) -> tuple[Report, tuple[GateResult, ...]]:
    """A Report of `aggregates` (one example per value in `groundedness`) and its gates, decided."""
    results = tuple(ExampleResult(Example(f"e{i}", "q"), "lexical", {"groundedness": value}, ())
                    for i, value in enumerate(groundedness))
    report = Report({"name": "lexical"}, 5, results, aggregates)
    return report, decide(report, parse_gates(gates), confidence)


# 5 of 12 sentences supported: groundedness 5/12 = 0.41666..., hallucination_rate 7/12 = 0.58333...; at the
# 12 decimals a gate compares at, 0.416666666667 < 0.41667 and 0.583333333333 > 0.58333: both breached.
# Four significant digits show 0.4167 and 0.5833, which read as a pass; five, 0.41667 and 0.58333, the
# thresholds themselves; six, 0.416667 and 0.583333, on the side the gate found.
TWELFTHS = {"groundedness": Aggregate(5 / 12, 6, (0.0, 0.8)),
            "hallucination_rate": Aggregate(7 / 12, 6, (0.2, 1.0))}
TWELFTHS_GATES = ("groundedness=0.41667", "hallucination_rate=0.58333")


def test_a_breached_gates_value_in_the_markdown_is_not_rounded_onto_its_threshold() -> None:
    out = markdown.render(*run(TWELFTHS, *TWELFTHS_GATES))
    assert "| groundedness >= 0.41667 | 0.416667 | **FAIL** | 0.416667 < 0.41667 |" in out
    assert "| hallucination_rate <= 0.58333 | 0.583333 | **FAIL** | 0.583333 > 0.58333 |" in out


def test_a_gated_mean_is_shown_on_its_side_of_the_threshold_in_both_tables() -> None:
    report, gates = run(TWELFTHS, *TWELFTHS_GATES)
    # 0.417 at three decimals would be above 0.41667, 0.583 below 0.58333. The bounds keep three decimals:
    # 0.000 and 0.800 are on the side of 0.41667 that 0 and 0.8 are, as are 0.200 and 1.000 of 0.58333.
    assert "| groundedness | 0.416667 | 6 | [0.000, 0.800] |" in markdown.render(report, gates)
    assert "| hallucination_rate | 0.583333 | 6 | [0.200, 1.000] |" in markdown.render(report, gates)
    summary = text.render(report, gates)
    assert re.search(r"^groundedness +0\.416667 +6 +\[0\.000, 0\.800\]$", summary, re.M)
    assert re.search(r"^hallucination_rate +0\.583333 +6 +\[0\.200, 1\.000\]$", summary, re.M)


def test_a_mean_is_not_rounded_onto_its_threshold_and_ungated_means_keep_three_decimals() -> None:
    # The auditor's 36 examples: mean 0.849537..., 0.850 at three decimals, beside BREACHED (0.8495 < 0.85).
    # Four significant digits suffice: 0.8495. The same mean ungated keeps its three decimals, 0.850; a
    # mean at its threshold is shown at it (0.150 for hallucination_rate <= 0.15, held), and one just above
    # (0.85041) as 0.8504, not on the threshold.
    mean = 0.849537037037037
    aggregates = {"groundedness": Aggregate(mean, 36, (0.7754629629629635, 0.9074074074074076)),
                  "hallucination_rate": Aggregate(0.15, 36, (0.1, 0.2)),
                  "context_utilisation": Aggregate(mean, 36, None),
                  "recall": Aggregate(0.85041, 36, None)}
    report, gates = run(aggregates, "groundedness=0.85", "hallucination_rate=0.15", "recall=0.85")
    summary = text.render(report, gates)
    assert re.search(r"^groundedness +0\.8495 +36 +\[0\.775, 0\.907\]$", summary, re.M)
    assert re.search(r"^hallucination_rate +0\.150 +36 +\[0\.100, 0\.200\]$", summary, re.M)
    assert re.search(r"^context_utilisation +0\.850 +36$", summary, re.M)
    assert re.search(r"^recall +0\.8504 +36$", summary, re.M)
    assert "gate groundedness >= 0.85: BREACHED (0.8495 < 0.85)" in summary
    out = markdown.render(report, gates)
    assert "| groundedness | 0.8495 | 36 | [0.775, 0.907] |" in out
    assert "| context_utilisation | 0.850 | 36 |  |" in out


def test_the_bound_a_confidence_gate_compares_is_not_rounded_onto_its_threshold() -> None:
    # --confidence 0.95 (the aggregates' own level) gates on the lower bound, 0.84996: three decimals
    # would show it as 0.850, the threshold; 0.85 at four significant digits too; five give 0.84996.
    report, gates = run({"groundedness": Aggregate(0.9, 20, (0.84996, 0.95))}, "groundedness=0.85",
                        confidence=0.95)
    summary = text.render(report, gates)
    assert re.search(r"^groundedness +0\.900 +20 +\[0\.84996, 0\.950\]$", summary, re.M)
    assert "gate groundedness >= 0.85: BREACHED (lower 95% bound 0.84996 < 0.85)" in summary


def test_a_gates_examples_in_junit_are_shown_on_their_side_of_the_threshold() -> None:
    # One example at 5/12 under groundedness >= 0.41667: listed as below it, as 0.416667 (not 0.4167).
    report, gates = run({"groundedness": Aggregate(5 / 12, 1, None)}, "groundedness=0.41667",
                        groundedness=(5 / 12,))
    failure = ET.fromstring(junit.render(report, gates)).find("testcase/failure")
    assert failure is not None and failure.text is not None
    lines = failure.text.splitlines()
    assert lines[1:4] == ["1 of 1 examples have groundedness below 0.41667, worst first:", "",
                          "e0: groundedness 0.416667"]


def test_nearby_thresholds_are_two_junit_tests_named_as_written() -> None:
    # Six significant digits would name both "groundedness >= 0.416667", one test to a CI's history.
    names = []
    for threshold in ("0.4166666667", "0.41666667"):
        report, gates = run(TWELFTHS, f"groundedness={threshold}")
        names += [case.get("name") for case in ET.fromstring(junit.render(report, gates)).iter("testcase")]
        assert f"gate groundedness >= {threshold}: " in text.render(report, gates)
    assert names == ["groundedness >= 0.4166666667", "groundedness >= 0.41666667"]


def test_the_json_mean_is_the_figure_the_gate_compared() -> None:
    # 0, 0 and 0.6 average to 0.19999999999999998 in floats, and groundedness >= 0.2 holds: compared at 12
    # decimals, the mean is 0.2. The JSON says 0.2 in both places, so `mean >= threshold` agrees with
    # `passed` for a script reading it; the interval is written at the same 12 decimals.
    mean = statistics.mean([0.0, 0.0, 0.6])
    assert mean == 0.19999999999999998
    report, gates = run({"groundedness": Aggregate(mean, 3, (0.0, 0.6000000000000001))}, "groundedness=0.2")
    doc = json.loads(json_report.render(report, gates))
    assert doc["aggregates"]["groundedness"] == {"mean": 0.2, "n": 3, "ci": [0.0, 0.6]}
    gate = doc["gates"][0]
    assert (gate["value"], gate["threshold"], gate["passed"]) == (0.2, 0.2, True)


def test_a_drop_gated_change_in_the_regressions_table_is_not_rounded_onto_its_bound() -> None:
    # e1's groundedness 0.8 -> 0.69999 and hallucination_rate 0.2 -> 0.30001: changes of -0.10001 and
    # +0.10001 at 12 decimals, breaching `--max-drop groundedness=0.1` and `hallucination_rate=0.1`. Four
    # significant digits show -0.1 and +0.1, the bounds themselves, beside FAIL; five show the breach.
    # recall's change, -0.10001 too, is gated by nothing: its four digits stay.
    metrics = {"groundedness": 0.69999, "hallucination_rate": 0.30001, "recall": 0.89999}
    report = Report({"name": "lexical"}, 5, (ExampleResult(Example("e1", "q"), "lexical", metrics, ()),), {})
    before = BaselineExample({"groundedness": 0.8, "hallucination_rate": 0.2, "recall": 1.0}, frozenset())
    comparison = compare(Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {"e1": before}), report)
    gates = decide_drops(comparison, parse_drops(["groundedness=0.1", "hallucination_rate=0.1"]), None,
                         report.config)
    assert [g.passed for g in gates] == [False, False]
    out = markdown.render(report, gates, comparison=comparison)
    assert "| groundedness | 0.800 | 0.700 | -0.10001 | 1 |" in out
    assert "| hallucination_rate | 0.200 | 0.300 | +0.10001 | 1 |" in out
    assert "| recall | 1.000 | 0.900 | -0.1 | 1 |" in out
