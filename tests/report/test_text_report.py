"""Terminal summary: a row per metric, undefined shown as such, the weakest examples' unsupported sentences
with their reasons (bounded), and one verdict line naming breaches."""

from __future__ import annotations

from dataclasses import replace

from report_cases import INVENTED, INVENTED_REASON, invented_run, many_long_run

from ragmon.gate import GateResult
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report.text import render, verdict


def test_table_rows_and_fail_verdict(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates)
    lines = out.splitlines()
    assert lines[0] == "ragmon replay: 4 examples, judge lexical, k=5, 1 skipped"
    rows = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines[2:7]}
    assert rows["metric"].split()[0] == "value"
    # 0.58333 at three decimals; the interval is the stored (0.25, 1.0).
    assert rows["groundedness"].split() == ["0.583", "3", "[0.250,", "1.000]"]
    assert rows["citation_accuracy"].split() == ["undefined", "0"]  # the count once, in the n column
    assert rows["answer_relevance"].split() == ["undefined", "4"]  # NaN is never printed as a figure
    assert lines[-1] == "FAIL: groundedness 0.5833 < 0.85, citation_accuracy undefined: 0 observations"


def test_skipped_examples_are_named_with_their_reason(report: Report, gates: tuple[GateResult, ...]) -> None:
    # e5 was left out of every figure (its judge timed out): a passing gate must not hide that.
    lines = render(report, gates).splitlines()
    start = lines.index("skipped examples (1 of 1, left out of every figure):")
    assert lines[start + 1] == "  e5: judge timed out"
    many = replace(report, skipped=tuple((f"s{i}", "judge error") for i in range(10)))
    listed = [line for line in render(many, gates).splitlines() if line.startswith("  s")]
    assert listed == ["  s0: judge error", "  s1: judge error", "  s2: judge error"]  # the first 3 of 10


def test_pass_verdicts() -> None:
    held = GateResult("recall", ">=", 0.5, 0.6, True, "0.6 >= 0.5")
    assert verdict((held,)) == "PASS"
    assert verdict(()) == "PASS (no gates given)"


def test_an_incomplete_run_ends_with_why_not_with_pass(report: Report) -> None:
    # The gate held, but the run stopped after scoring (exit 2): the last line, the one CI logs grep, must
    # not read PASS. A control character in the reason (from a path or a judge reply) is escaped.
    held = (GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),)
    lines = render(report, held, incomplete="the judge failed on all 4 examples\x1b[2J").splitlines()
    assert lines[-1] == "INCOMPLETE: the judge failed on all 4 examples\\x1b[2J"
    assert "gate recall >= 0: ok (0 >= 0)" in lines and "  e5: judge timed out" in lines


def test_weakest_examples_quote_the_invented_sentence_and_its_reason() -> None:
    report, gates = invented_run()
    lines = render(report, gates).splitlines()
    start = lines.index("gate recall >= 0.5: ok (0.75 >= 0.5)") + 1
    # Only "bad" has an unsupported sentence; its groundedness is 1/2. The verdict stays the last line.
    assert lines[start:] == [
        "",
        "weakest examples (1 of 1 with unsupported sentences):",
        "  bad: groundedness 0.50",
        f'    "{INVENTED}"',
        f"      reason: {INVENTED_REASON}",
        "",
        "FAIL: groundedness 0.75 < 0.9",
    ]
    only_ok = replace(report, results=report.results[:1])  # "ok": its one sentence is supported
    assert "weakest" not in render(only_ok, gates)


def test_weakest_examples_are_bounded() -> None:
    report, gates = many_long_run()
    out = render(report, gates)
    lines = out.splitlines()
    assert "weakest examples (3 of 1000 with unsupported sentences):" in lines
    shown = [line for line in lines if line.startswith("  x")]
    assert shown == [f"  x{i:04}: groundedness 0.00" for i in range(3)]
    assert lines.count("    and 17 more unsupported sentences") == 3  # 3 of 20 quoted per example
    # The widest line is a reason: 6 spaces, "reason: " (8) and 86 characters, "…" included: 100.
    assert max(map(len, lines)) == 100
    # By hand: ~15 lines of header, table and gates, then 3 x (1 + 3 x 2 + 1) = 24 lines of at most 100.
    assert len(out) < 4_000


def test_terminal_control_sequences_in_answers_are_shown_escaped() -> None:
    # An ANSI escape in an answer would recolour the terminal; a lone surrogate cannot be written to a
    # UTF-8 stdout at all. Expected: each as its Python escape, written out by hand.
    sentence = "Refunds \x1b[31mnow\ud800."
    verdict_ = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "closest\x07 d")
    example = Example("e1", "Q?", (Context("d", "Other."),), sentence)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict_,))
    out = render(Report({"name": "lexical"}, 5, (result,), {}), ())
    assert '    "Refunds \\x1b[31mnow\\ud800."' in out.splitlines()
    assert "      reason: closest\\x07 d" in out.splitlines()
    out.encode("utf-8")
