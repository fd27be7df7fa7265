"""Terminal summary: a row per metric, undefined shown as such, and one verdict line naming breaches."""

from __future__ import annotations

from ragmon.gate import GateResult
from ragmon.model import Report
from ragmon.report.text import render, verdict


def test_table_rows_and_fail_verdict(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates)
    lines = out.splitlines()
    assert lines[0] == "ragmon replay: 4 examples, judge lexical, k=5, 1 skipped"
    rows = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines[2:7]}
    assert rows["metric"].split()[0] == "value"
    # 0.58333 at three decimals; the interval is the stored (0.25, 1.0).
    assert rows["groundedness"].split() == ["0.583", "3", "[0.250,", "1.000]"]
    assert rows["citation_accuracy"].split() == ["undefined", "(n=0)", "0"]
    assert rows["answer_relevance"].split() == ["undefined", "(n=4)", "4"]  # NaN is never printed as a figure
    assert lines[-1] == "FAIL: groundedness 0.5833 < 0.85, citation_accuracy undefined: 0 observations"


def test_pass_verdicts() -> None:
    held = GateResult("recall", ">=", 0.5, 0.6, True, "0.6 >= 0.5")
    assert verdict((held,)) == "PASS"
    assert verdict(()) == "PASS (no gates given)"
