"""Why a metric has no value for an example: the reasons every report names for a gated metric whose n is
below the number of scored examples, as the README's metric table has them ("undefined when")."""

from __future__ import annotations

from dataclasses import replace

import pytest
from report_cases import silent_run

from ragmon.datasets import NOT_RAG
from ragmon.evaluation import evaluate
from ragmon.gate import GateResult
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, Context, EvalConfig, Example
from ragmon.report.coverage import SKIPPED, gaps, skipped_note, why_undefined

RETURNS = (Context("doc-1", "Returns are accepted within 30 days."),)


@pytest.mark.parametrize(("metric", "example", "why"), [
    ("groundedness", Example("e", "Q?", RETURNS, None), "with the answer unknown"),
    ("groundedness", Example("e", "Q?", None, "Returns are accepted."), "with the contexts unknown"),
    ("groundedness", Example("e", "Q?", RETURNS, ""),
     "whose answer makes no claim (empty, declining or filler)"),
    ("hallucination_rate", Example("e", "Q?", RETURNS, "I don't know."),
     "whose answer makes no claim (empty, declining or filler)"),
    ("recall", Example("e", "Q?", RETURNS, "A.", frozenset()), "with the relevant ids unknown or empty"),
    ("recall", Example("e", "Q?", None, "A.", frozenset({"doc-1"})), "with the contexts unknown"),
    ("citation_accuracy", Example("e", "Q?", RETURNS, "A.", citations=()),
     "with the citations unknown or empty"),
    ("citation_accuracy", Example("e", "Q?", RETURNS, "doc-1 doesn't mention it.", citations=("doc-1",)),
     "whose answer makes no claim (empty, declining or filler)"),
    ("citation_coverage", Example("e", "Q?", RETURNS, "Mars is red.", citations=("doc-1",)),
     "whose answer uses no context"),
    ("context_utilisation", Example("e", "Q?", (), "A."), "with the contexts unknown or empty"),
    # An answer unknown was said to make no claim, and filler alone ("Sure!", which does not abstain) to be
    # empty or abstaining.
    ("context_utilisation", Example("e", "Q?", RETURNS, None), "with the answer unknown"),
    ("context_utilisation", Example("e", "Q?", RETURNS, "Sure!"),
     "whose answer makes no claim (empty, declining or filler)"),
    # An answer or contexts unknown were said to use no context.
    ("citation_coverage", Example("e", "Q?", RETURNS, None, citations=("doc-1",)), "with the answer unknown"),
    ("citation_coverage", Example("e", "Q?", None, "Returns are accepted.", citations=("doc-1",)),
     "with the contexts unknown"),
    ("citation_coverage", Example("e", "Q?", RETURNS, "I don't know.", citations=("doc-1",)),
     "whose answer makes no claim (empty, declining or filler)"),
    ("answer_relevance", Example("e", "Why?", RETURNS, "Because."),
     "whose question has no content term or number"),
    ("answer_correctness", Example("e", "Q?", RETURNS, "A."), "with the ground truth unknown"),
    ("abstention", Example("e", "Q?", RETURNS, "A.", frozenset({"doc-1"})), "whose question is answerable"),
])
def test_the_reason_is_the_first_undefined_when_of_the_metric_table(metric: str, example: Example,
                                                                    why: str) -> None:
    result = evaluate([example], LexicalJudge(), EvalConfig(k=5)).results[0]
    assert result.metrics[metric] is None
    assert why_undefined(metric, result) == why


class NamesNoContext:
    """A judge of one's own that says yes or no per claim and tracks no ids (an NLI model, say)."""

    name = "nli"

    def settings(self) -> dict[str, object]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return tuple(ClaimVerdict(claim, True) for claim in claims)


@pytest.mark.parametrize("metric", ["citation_accuracy", "citation_coverage", "context_utilisation"])
def test_a_supported_claim_naming_no_context_is_the_reason_its_use_is_unknown(metric: str) -> None:
    example = Example("e", "Q?", RETURNS, "Returns are accepted within 30 days.", citations=("doc-1",))
    result = evaluate([example], NamesNoContext(), EvalConfig(k=5)).results[0]
    assert result.metrics[metric] is None
    assert why_undefined(metric, result) == "whose judge named no context for a supported claim"


def test_only_gated_metrics_with_fewer_values_than_examples_have_a_gap() -> None:
    # silent_run gates groundedness and hallucination_rate, each with 20 values of 30; answer_relevance
    # has all 30 and the retrieval metrics none, but neither is gated.
    report, gates = silent_run()
    found = gaps(report, gates)
    assert [(gap.metric, gap.missing, gap.examples) for gap in found] == [
        ("groundedness", 10, 30), ("hallucination_rate", 10, 30)]
    assert found[0].reasons == (
        ("whose answer makes no claim (empty, declining or filler)", tuple(f"s{i}" for i in range(21, 29))),
        ("with the contexts unknown", ("s29", "s30")))
    assert gaps(report, ()) == []


def test_examples_the_judge_failed_on_have_no_value_for_any_gated_metric() -> None:
    # Of e1 (scored), e2 (the judge failed) and a recorded trace that is not RAG (no example at all): the
    # gated recall, which needs no judge, has 1 value of the 2 examples given, e2 named as skipped.
    example = Example("e1", "Q?", RETURNS, "Returns are accepted within 30 days.", frozenset({"doc-1"}))
    report = evaluate([example], LexicalJudge(), EvalConfig(k=5))
    report = replace(report, skipped=(("trace-9", NOT_RAG), ("e2", "judge timed out")))
    (gap,) = gaps(report, (GateResult("recall", ">=", 0.5, 1.0, True, "1 >= 0.5"),))
    assert (gap.metric, gap.missing, gap.examples, gap.reasons) == ("recall", 1, 2, ((SKIPPED, ("e2",)),))
    assert skipped_note(report) == "1 of 2 examples skipped: the judge failed on it"
    assert skipped_note(replace(report, skipped=(("trace-9", NOT_RAG),))) == ""
