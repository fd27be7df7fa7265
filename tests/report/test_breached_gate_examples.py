"""Every breached gate names the examples behind it, in every report that lists examples: a drop gate on a
metric the unsupported sentences do not decide (answer_relevance) in the terminal summary and the
Markdown, as in JUnit; a `--confidence` gate breached with no example beyond its threshold, by its few
nearest examples and why. And the judge's name, which a library user's judge chooses, is shown as ids are."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

from report_cases import bound_run, relevance_run

from ragmon.evaluation import evaluate
from ragmon.gate import decide, parse_gates
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, EvalConfig, Example
from ragmon.report import junit, markdown, text

# relevance_run's figures, worked out there: 0.76 -> 0.57, a drop of 0.19 > 0.02; r2 fell by 0.5, r5 by
# 0.25, r4 by 0.2, r1 by 0.1, and r3 rose.
RELEVANCE_GATE = ("gate answer_relevance drop <= 0.02 vs baseline: BREACHED (dropped 0.19 > 0.02 against the "
                  "baseline: 0.76 -> 0.57 on 5 examples measured in both runs)")


def test_the_summary_names_the_examples_worse_on_a_drop_gated_relevance_the_worst_3() -> None:
    report, gates, comparison = relevance_run()
    lines = text.render(report, gates, comparison=comparison).splitlines()
    assert RELEVANCE_GATE in lines
    start = lines.index("baseline main.json: 5 examples in both runs, 0 new, 0 gone")
    assert lines[start + 1:start + 5] == [
        "answer_relevance regressions (3 of 4 examples worse on it than in the baseline):",
        "  r2: answer_relevance 1 -> 0.5",
        "  r5: answer_relevance 0.5 -> 0.25",
        "  r4: answer_relevance 0.8 -> 0.6",
    ]
    assert not any(line.startswith("regressed examples") for line in lines)  # every answer is grounded


def test_the_markdown_names_the_examples_worse_on_a_drop_gated_relevance_worst_of_them() -> None:
    report, gates, comparison = relevance_run()
    out = markdown.render(report, gates, comparison=comparison)
    assert ("No shared example's groundedness fell.\n\n"
            "4 of 4 examples whose answer_relevance got worse, the biggest change first:\n\n"
            "#### `r2`: answer_relevance 1 -> 0.5\n\nQuestion: Question r2?\n\n"
            "#### `r5`: answer_relevance 0.5 -> 0.25\n\nQuestion: Question r5?\n\n"
            "#### `r4`: answer_relevance 0.8 -> 0.6\n\nQuestion: Question r4?\n\n"
            "#### `r1`: answer_relevance 0.9 -> 0.8\n\nQuestion: Question r1?\n") in out
    fewer = markdown.render(report, gates, comparison=comparison, worst=2)
    assert ("2 of 4 examples whose answer_relevance got worse, the biggest change first:\n\n"
            "#### `r2`: answer_relevance 1 -> 0.5\n\nQuestion: Question r2?\n\n"
            "#### `r5`: answer_relevance 0.5 -> 0.25\n\nQuestion: Question r5?\n\n"
            "And 2 more answer_relevance regressions.\n") in fewer


def test_a_junit_failure_on_an_intervals_lower_bound_names_the_lowest_examples_and_why() -> None:
    # Groundedness 0.9, 0.7, 1 and 0.8: none below 0.6, mean 0.85, but the 95% interval's lower bound 0.5.
    report, gates = bound_run("groundedness", (0.9, 0.7, 1.0, 0.8), (0.5, 1.0), "groundedness=0.6")
    why = ("0 of 4 examples have groundedness below 0.6: the gate read the lower bound of the mean's "
           "interval, which is wide with few examples or a high confidence.")
    failure = ET.fromstring(junit.render(report, gates)).findtext("testcase/failure")
    assert failure == "\n".join([
        "gate groundedness >= 0.6 breached: lower 95% bound 0.5 < 0.6", f"{why} The 3 lowest:",
        "", "e1: groundedness 0.7", "", "e3: groundedness 0.8", "", "e0: groundedness 0.9"])
    one = ET.fromstring(junit.render(report, gates, worst=1)).findtext("testcase/failure") or ""
    assert one.splitlines()[1:] == [f"{why} The lowest:", "", "e1: groundedness 0.7"]


def test_the_markdown_names_the_highest_examples_below_a_breached_upper_bound_and_why() -> None:
    # hallucination_rate 0.1, 0.3 and 0: none above 0.4, but the 95% interval's upper bound 0.5 is.
    report, gates = bound_run("hallucination_rate", (0.1, 0.3, 0.0), (0.0, 0.5), "hallucination_rate=0.4")
    out = markdown.render(report, gates)
    assert "| hallucination_rate <= 0.4 | 0.5 | **FAIL** | upper 95% bound 0.5 > 0.4 |" in out
    assert ("\n**Note**: no example has hallucination_rate above 0.4: the gate read the upper bound of the "
            "mean's interval, which is wide with few examples or a high confidence. The 3 highest: "
            "`e1` (0.3), `e0` (0.1), `e2` (0).\n") in out


class _OwnJudge(LexicalJudge):
    """A library user's judge, whose name holds an ANSI escape and half an emoji (a lone surrogate)."""

    name = "mine\x1b[2J\ud83d"


def test_a_judges_name_is_shown_escaped_in_the_summary_and_the_junit_system_out() -> None:
    example = Example("a", "Q?", (Context("d1", "Returns are accepted."),), "Returns are accepted.")
    report = evaluate([example], _OwnJudge(), EvalConfig(k=5))
    header = "ragmon replay: 1 example, judge mine\\x1b[2J\\ud83d, k=5"
    assert text.render(report, ()).splitlines()[0] == header
    written = junit.render(report, ()).encode("utf-8")  # raw, the lone surrogate could not be written
    assert (ET.fromstring(written).findtext("system-out") or "").splitlines()[0] == header


def test_an_example_behind_a_breached_retrieval_gate_is_headed_by_its_figure_on_the_gated_metric() -> None:
    # Relevant c, retrieved b then c: mrr 1/2; relevant c, retrieved a and b: mrr 0. Each had been headed
    # "groundedness undefined" alone (no answer), its mrr nowhere in the Markdown.
    examples = [Example("r1", "Where?", (Context("b", "B."), Context("c", "C.")), None, frozenset({"c"})),
                Example("r2", "Where?", (Context("a", "A."), Context("b", "B.")), None, frozenset({"c"}))]
    report = evaluate(examples, LexicalJudge(), EvalConfig(k=5))
    [gate] = decide(report, parse_gates(("mrr=0.6",)))
    out = markdown.render(report, [gate])
    assert out.index("#### `r2`: mrr 0.00, groundedness undefined") < out.index(
        "#### `r1`: mrr 0.50, groundedness undefined")


def test_an_example_exactly_at_the_threshold_is_named_as_nearest_when_a_bound_gate_has_none_beyond() -> None:
    # groundedness 0.6, 0.7, 1 and 0.8, lower bound 0.5: e0 is at 0.6, not below it. hallucination_rate
    # 0.4, 0.3 and 0, upper bound 0.5: e0 is at 0.4, not above it. Counted as beyond, e0 had made the Note
    # go, and with it why a gate whose examples all meet it was breached.
    report, gates = bound_run("groundedness", (0.6, 0.7, 1.0, 0.8), (0.5, 1.0), "groundedness=0.6")
    assert ("\n**Note**: no example has groundedness below 0.6: the gate read the lower bound of the mean's "
            "interval, which is wide with few examples or a high confidence. The 3 lowest: `e0` (0.6), "
            "`e1` (0.7), `e3` (0.8).\n") in markdown.render(report, gates)
    report, gates = bound_run("hallucination_rate", (0.4, 0.3, 0.0), (0.0, 0.5), "hallucination_rate=0.4")
    assert ("\n**Note**: no example has hallucination_rate above 0.4: the gate read the upper bound of the "
            "mean's interval, which is wide with few examples or a high confidence. The 3 highest: "
            "`e0` (0.4), `e1` (0.3), `e2` (0).\n") in markdown.render(report, gates)


def test_the_nearest_examples_are_named_without_a_why_when_the_report_has_no_mean_to_tell_it() -> None:
    # bound_run's groundedness 0.9, 0.7, 1 and 0.8 and its gate's lower bound 0.5 < 0.6, but the report's
    # aggregates dropped (a library user's hand-built report): with no mean, nothing says the gate read a
    # bound, so the Note names the 3 lowest without claiming why, where it had guessed the interval.
    report, gates = bound_run("groundedness", (0.9, 0.7, 1.0, 0.8), (0.5, 1.0), "groundedness=0.6")
    out = markdown.render(replace(report, aggregates={}), gates)
    assert ("\n**Note**: no example has groundedness below 0.6. The 3 lowest: `e1` (0.7), `e3` (0.8), "
            "`e0` (0.9).\n") in out
