"""The citations a report names as lowering an example's citation metrics (ragmon.report.citations): only
those the figures counted, and bounded per list."""

from __future__ import annotations

from ragmon.evaluation import evaluate
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, Context, EvalConfig, Example, ExampleResult
from ragmon.report import citations, text

SHIPPING = "Standard shipping takes 3 to 7 business days."
CONTEXTS = (Context("kb-shipping", SHIPPING), Context("kb-returns", "Items can be returned within 30 days."))


def scored(example_citations: tuple[str, ...] | None) -> ExampleResult:
    """The answer is kb-shipping's sentence: the lexical judge supports it with kb-shipping alone."""
    example = Example("q", "How long does shipping take?", CONTEXTS, SHIPPING, citations=example_citations)
    return evaluate([example], LexicalJudge(), EvalConfig(k=2, bootstrap_samples=0)).results[0]


def test_no_citation_listed_is_coverage_alone_naming_the_context_used() -> None:
    result = scored(())
    # Accuracy is undefined with nothing cited; coverage is 0 of the 1 context used.
    assert (result.metrics["citation_accuracy"], result.metrics["citation_coverage"]) == (None, 0.0)
    assert citations.of(result).lines(", ".join) == ["did not cite kb-shipping, which supported a claim"]


def test_citations_a_judge_could_not_place_are_named_under_no_fault() -> None:
    """A supported verdict naming no context leaves which contexts were used unknown, and every citation
    metric undefined: naming kb-returns as cited for nothing would be a guess."""
    example = Example("q", "How long does shipping take?", CONTEXTS, SHIPPING, citations=("kb-returns", "x"))
    verdict = ClaimVerdict(Claim(SHIPPING, 0, len(SHIPPING)), True, ())
    result = ExampleResult(example, "nli", {"citation_accuracy": None, "citation_coverage": None}, (verdict,))
    assert citations.of(result).lines(", ".join) == []


def test_a_correct_citation_names_nothing() -> None:
    assert citations.of(scored(("kb-shipping",))).lines(", ".join) == []


def test_the_terminal_names_five_ids_a_list_and_counts_the_rest() -> None:
    result = scored(tuple(f"kb-{n}" for n in range(1, 8)))
    assert text.citation_lines(result, width=40, indent="", metrics=("citation_accuracy",)) == [
        "cited kb-1, kb-2, kb-3, kb-4, kb-5 and 2 more, which were not retrieved: retrieved kb-shipping, "
        "kb-returns"]
