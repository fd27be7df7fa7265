"""The run's warnings `evaluate` finds in the examples as a whole, in the Report it returns (and so in
`to_dict()`, the document `ragmon replay --json` writes), as replay gives them; and the error for citations
given as integers."""

from __future__ import annotations

import pytest

from ragmon import Context, Example, evaluate

CONTEXTS = [Context("kb-shipping", "Orders ship in 2 days."), Context("kb-returns", "Returns take 30 days.")]


def test_citations_written_as_positions_are_a_run_warning_of_the_report() -> None:
    examples = [Example("q1", "How fast?", CONTEXTS, "Orders ship in 2 days.", citations=["1", "2"]),
                Example("q2", "Returns?", CONTEXTS, "Returns take 30 days.", citations=["kb-returns"]),
                Example("q3", "Both?", CONTEXTS, "Returns take 30 days.", citations=["2"])]

    report = evaluate(examples)

    # "1" and "2" are no context's ids: as positions counted from 1 they meant the two contexts, in order.
    assert report.to_dict()["run_warnings"] == [
        "citations of 2 examples look like positions, not ids (examples[0], examples[2]): a citation names a "
        "context by its id, and no context's id is a number, so each counts as a document never retrieved; "
        'cite the ids, e.g. ["kb-shipping", "kb-returns"] for [1, 2] of example q1']
    assert report.run_warnings == tuple(report.to_dict()["run_warnings"])


def test_ids_that_only_look_alike_are_a_run_warning_naming_their_places() -> None:
    examples = [Example("caf\u00e9", "?"), Example("q2", "?"), Example("cafe\u0301", "?")]

    warnings = evaluate(examples).to_dict()["run_warnings"]

    assert len(warnings) == 1
    assert warnings[0].startswith("example ids 'caf\\xe9' (examples[0]) and 'cafe\\u0301' (examples[2]) "
                                  "differ only in Unicode normalisation")


def test_a_run_of_ids_cited_as_ids_has_no_run_warning() -> None:
    examples = [Example("q1", "?", CONTEXTS, "Orders ship in 2 days.", citations=["kb-shipping"])]

    assert evaluate(examples).to_dict()["run_warnings"] == []


def test_integer_citations_are_refused_naming_the_ids_they_would_be() -> None:
    with pytest.raises(TypeError) as caught:
        Example("q1", "?", CONTEXTS, "Orders ship in 2 days.", citations=[2, 1])

    assert str(caught.value) == (
        "Example 'q1': citations[0] must be a str, got int: citations are context ids, as strings, and no "
        'context\'s id is a number: as positions counted from 1 these are ["kb-returns", "kb-shipping"], the '
        "ids to pass")


@pytest.mark.parametrize(("citations", "told"), [
    # "3" had been listed among "the ids to pass", which no context has.
    ([2, 3], 'these are ["kb-returns"], the ids to pass; 3 is past the 2 contexts retrieved'),
    ([3, 4, 3], "these are past the 2 contexts retrieved"),
])
def test_integer_citations_past_the_contexts_are_named_apart_from_the_ids_to_pass(
        citations: list[int], told: str) -> None:
    with pytest.raises(TypeError) as caught:
        Example("q1", "?", CONTEXTS, "Orders ship in 2 days.", citations=citations)

    assert str(caught.value) == (
        "Example 'q1': citations[0] must be a str, got int: citations are context ids, as strings, and no "
        f"context's id is a number: as positions counted from 1 {told}")


def test_integer_citations_of_numbered_contexts_are_told_to_be_strings() -> None:
    numbered = [Context("7", "Orders ship in 2 days.")]

    with pytest.raises(TypeError, match=r'citations are context ids, as strings: pass \["7"\]$'):
        Example("q1", "?", numbered, "Orders ship in 2 days.", citations=[7])


def test_an_unanswerable_marker_written_otherwise_is_a_run_warning_naming_the_first() -> None:
    refusal = "I can't tell from the documents."
    examples = [Example("q1", "Gift wrap?", answer=refusal, category="Unanswerable"),
                Example("q2", "Gift wrap?", answer=refusal, category="unanswerable"),
                Example("q3", "Gift wrap?", answer="No.", ground_truth="Insufficient context"),
                Example("q4", "Gift wrap?", answer="No.", ground_truth="Insufficient context is all we had.")]

    report = evaluate(examples)

    # q2 is written as ragmon reads it; q4's ground truth is an answer, not a marker.
    assert report.run_warnings == (
        '2 examples mark a question unanswerable in words ragmon does not read as the marker (examples[0], '
        'examples[2]; "Unanswerable" of example q1): write category "unanswerable" or "adversarial", or '
        'ground truth "insufficient_context", as written here; read as they are, the question counts as '
        "answerable (abstention has no value for it) and such a ground truth is scored as an answer",)
    abstention = {r.example.id: r.metrics.get("abstention") for r in report.results}
    # The same refusal: abstention 1 where the marker is read, none where it is not.
    assert abstention["q1"] is None and abstention["q2"] == 1.0


def test_ids_naming_a_context_only_with_space_or_case_aside_are_a_run_warning_naming_the_first() -> None:
    # A spreadsheet cell's trailing space, a label in another case: compared as written, each is a document
    # never retrieved (citation_accuracy and hit_rate 0), which had been said nowhere. q3 cites and labels
    # as written, q4 names a document that is simply not among its contexts: neither is warned of.
    contexts = [Context("kb-returns", "Returns take 30 days."),
                Context("kb-shipping", "Shipping takes 5 days.")]
    examples = [Example("q1", "Returns?", contexts, "Returns take 30 days.", citations=["kb-returns "]),
                Example("q2", "Shipping?", contexts, "Shipping takes 5 days.", relevant_ids=["KB-Shipping"]),
                Example("q3", "Returns?", contexts, "Returns take 30 days.", citations=["kb-returns"],
                        relevant_ids=["kb-returns"]),
                Example("q4", "Returns?", contexts, "Returns take 30 days.", relevant_ids=["kb-gifts"])]

    report = evaluate(examples)

    assert report.run_warnings == (
        "ids cited or labelled relevant in 2 examples match a retrieved context's id only with white "
        "space, case or Unicode form aside (examples[0], examples[1]; 'kb-returns ' for 'kb-returns' in "
        "example q1): ids are compared as written, so each counts as a document never retrieved; write them "
        "as the contexts' ids",)
    assert {r.example.id: r.metrics.get("hit_rate") for r in report.results}["q2"] == 0.0


def test_answers_that_are_json_objects_are_a_run_warning_naming_the_first() -> None:
    contexts = [Context("kb-returns", "Returns take 30 days.")]
    fenced = '```json\n{"reply": "Returns take 30 days.", "sources": [1]}\n```'
    examples = [Example("q1", "Returns?", contexts, "Returns take 30 days."),
                Example("q2", "Returns?", contexts, '{"answer": "Returns take 30 days."}'),
                Example("q3", "Returns?", contexts, fenced)]

    report = evaluate(examples)

    assert report.run_warnings == (
        "the answers of 2 examples are JSON objects (examples[1], examples[2]; example q2): judged as "
        "written, keys, syntax and fields such as a confidence or the sources are cut into claims, the "
        "unsupported ones counted as hallucinations; record the answer's text as \"answer\" and what it "
        "cites as \"citations\" (the sidecar and live replay read such an answer so: the text under its "
        "\"answer\" key, its \"sources\" as citations)",)
