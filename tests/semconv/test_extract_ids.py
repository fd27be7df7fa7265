"""Document ids as the sidecar reads them from spans, against the same example as a golden JSONL line.

The two doors into the judge must score one example alike: a figure that moves between `ragmon serve`
and `ragmon replay` of the captured line is a figure no one can trust. Spans are recorded by the real
OpenTelemetry SDK (the `recorder` fixture); golden lines go through `ragmon.datasets` as replay reads them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmon import EvalConfig, LexicalJudge, evaluate
from ragmon.datasets import load
from ragmon.model import Context, Example
from ragmon.semconv.extract import extract_noted

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "How long do refunds take?"
ANSWER = "Refunds are paid within 14 days."
REFUNDS = "Refunds are paid within 14 days of the return."
SHIPPING = "Shipping is free on orders over 50 euros."
CONTEXTS = [{"id": "doc-1", "text": REFUNDS}, {"id": "doc-2", "text": SHIPPING}]


def _record(recorder: Recorder, attributes: dict[str, Any]) -> tuple[Example, str | None]:
    """One request span carrying the question, answer and documents, and `attributes` beside them."""
    with recorder.tracer.start_as_current_span("answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps(CONTEXTS), **attributes})
    example, note = extract_noted(recorder.trace())
    assert example is not None
    return example, note


def _metrics(example: Example, k: int = 5) -> dict[str, float | None]:
    [result] = evaluate([example], LexicalJudge(), EvalConfig(k=k, bootstrap_samples=0)).results
    return dict(result.metrics)


def _golden(tmp_path: Path, record: dict[str, Any]) -> Example:
    path = tmp_path / "golden.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": QUESTION, "answer": ANSWER, **record}) + "\n")
    [example] = load([path])
    return example


def test_blank_cited_ids_are_left_out_and_said(recorder: Recorder) -> None:
    # The app's citation code fell back to "" and " " for two documents without an id. The answer's one
    # claim is supported by doc-1 alone, which it cites: citation accuracy is 1 of 1 cited ids. Read as
    # ids, the blanks were two citations of documents never retrieved: 1 of 3.
    example, note = _record(recorder, {"ragmon.citations": ["doc-1", " ", ""]})

    assert example.citations == ("doc-1",)
    assert _metrics(example)["citation_accuracy"] == 1.0
    span_id = recorder.trace().spans[0].span_id
    assert note is not None
    assert (f"ragmon.citations on span 'answer' (span id {span_id}) holds 2 ids that are empty or spaces"
            in note)
    assert "citing a document never retrieved" in note


def test_only_blank_relevant_ids_leave_relevance_unknown_not_unanswerable(recorder: Recorder) -> None:
    # `[""]` labels nothing. Read as a relevant id, doc-1 and doc-2 held none of it: hit rate 0. Read as an
    # empty list, it would mark the question unanswerable. It is unknown: retrieval figures undefined.
    example, note = _record(recorder, {"ragmon.relevant_ids": [""]})

    assert example.relevant_ids is None
    metrics = _metrics(example)
    assert metrics["hit_rate"] is None
    assert metrics["abstention"] is None
    assert note is not None and "ragmon.relevant_ids on span 'answer'" in note and "holds 1 id " in note


def test_a_blank_relevant_id_beside_a_real_one_does_not_halve_recall(recorder: Recorder) -> None:
    # doc-2 is relevant and retrieved at rank 2: recall 1 of 1. With "" counted, 1 of 2.
    example, _ = _record(recorder, {"ragmon.relevant_ids": json.dumps(["doc-2", "  "])})

    assert example.relevant_ids == frozenset({"doc-2"})
    assert _metrics(example)["recall"] == 1.0


def test_ids_without_blanks_leave_nothing_to_say(recorder: Recorder) -> None:
    example, note = _record(recorder, {"ragmon.citations": ["doc-1"], "ragmon.relevant_ids": ["doc-1"]})

    assert example.citations == ("doc-1",)
    assert note is None


def test_whole_number_ids_are_read_as_a_golden_line_reads_them(recorder: Recorder, tmp_path: Path) -> None:
    # An app keyed by integers: documents 12 and 13, the answer citing 12, 13 labelled relevant. A golden
    # line takes whole numbers as ids (their decimal text); the span had been refused as malformed.
    contexts = [{"id": 12, "text": REFUNDS}, {"id": 13, "text": SHIPPING}]
    example, _ = _record(recorder, {"ragmon.contexts": json.dumps(contexts), "ragmon.citations": [12],
                                    "ragmon.relevant_ids": "[13]"})
    golden = _golden(tmp_path, {"contexts": contexts, "citations": [12], "relevant_ids": [13]})

    assert example.citations == golden.citations == ("12",)
    assert example.relevant_ids == golden.relevant_ids == frozenset({"13"})
    # doc 13 at rank 2 of k=2: MRR 1/2; the cited 12 supports the claim: citation accuracy 1.
    assert _metrics(example, k=2)["mrr"] == _metrics(golden, k=2)["mrr"] == 0.5
    assert _metrics(example)["citation_accuracy"] == 1.0


def test_a_document_one_retriever_returns_twice_keeps_both_ranks(recorder: Recorder, tmp_path: Path) -> None:
    # A vector store holding doc-1 twice returns it at ranks 1 and 2, pushing the relevant doc-2 to rank 3,
    # out of the top 2: hit rate 0, as the golden line with the same list scores it. Collapsed, the live
    # figure was a hit (doc-2 at rank 2).
    contexts = [CONTEXTS[0], CONTEXTS[0], CONTEXTS[1]]
    with recorder.tracer.start_as_current_span("answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.relevant_ids": ["doc-2"]})
        with recorder.tracer.start_as_current_span("retrieve") as retrieve:
            retrieve.set_attribute("openinference.span.kind", "RETRIEVER")
            for rank, document in enumerate(contexts):
                retrieve.set_attribute(f"retrieval.documents.{rank}.document.id", document["id"])
                retrieve.set_attribute(f"retrieval.documents.{rank}.document.content", document["text"])
    example, _ = extract_noted(recorder.trace())
    golden = _golden(tmp_path, {"contexts": contexts, "relevant_ids": ["doc-2"]})

    assert example is not None
    assert example.contexts == golden.contexts == (Context("doc-1", REFUNDS), Context("doc-1", REFUNDS),
                                                   Context("doc-2", SHIPPING))
    assert _metrics(example, k=2)["hit_rate"] == _metrics(golden, k=2)["hit_rate"] == 0.0


def test_a_document_two_retrievers_both_return_is_one_context(recorder: Recorder) -> None:
    # Two searches side by side each find doc-1: the model was given it once.
    with recorder.tracer.start_as_current_span("answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER})
        for documents in ([CONTEXTS[0]], [CONTEXTS[0], CONTEXTS[1]]):
            with recorder.tracer.start_as_current_span("retrieve") as retrieve:
                retrieve.set_attribute("openinference.span.kind", "RETRIEVER")
                for rank, document in enumerate(documents):
                    retrieve.set_attribute(f"retrieval.documents.{rank}.document.id", document["id"])
                    retrieve.set_attribute(f"retrieval.documents.{rank}.document.content", document["text"])
    example, _ = extract_noted(recorder.trace())

    assert example is not None and example.contexts is not None
    assert [context.id for context in example.contexts] == ["doc-1", "doc-2"]


def test_blanks_on_a_span_whose_ids_are_not_read_are_not_said(recorder: Recorder) -> None:
    # Citations are read from the span nearest the root that has them: the request's ["doc-1"]. The
    # generation step's own list, with a blank, was never read, so it moved no figure; saying it had been
    # scored as a citation of a document never retrieved sent the user after nothing.
    with recorder.tracer.start_as_current_span("answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps(CONTEXTS), "ragmon.citations": ["doc-1"]})
        with recorder.tracer.start_as_current_span("generation") as step:
            step.set_attribute("ragmon.citations", ["", "doc-1"])
    example, note = extract_noted(recorder.trace())

    assert example is not None and example.citations == ("doc-1",)
    assert note is None


def test_a_nearer_list_of_blanks_passed_over_is_said_with_the_one_read(recorder: Recorder) -> None:
    # The request's list holds blanks only: it is passed over, and the step's ["doc-1", " "] is read, its
    # blank left out. Both moved the figures: 2 ids, the first span named.
    with recorder.tracer.start_as_current_span("answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps(CONTEXTS), "ragmon.citations": [""]})
        with recorder.tracer.start_as_current_span("generation") as step:
            step.set_attribute("ragmon.citations", ["doc-1", " "])
    example, note = extract_noted(recorder.trace())

    assert example is not None and example.citations == ("doc-1",)
    assert note is not None
    assert "ragmon.citations on span 'answer' (span id " in note
    assert "and 1 more span(s) hold 2 ids that are empty or spaces" in note


def test_citations_the_claims_are_read_without_are_the_answers_citations(recorder: Recorder) -> None:
    # An app told to cite in parentheses: no `[doc-1]` marks, no ragmon.citations. Its one claim is read
    # without "(doc-1, p. 2)" and supported by doc-1, so citation accuracy is 1 of 1 cited ids; the second
    # answer cites doc-2, which supports none of its claims: 0 of 1. Both had been undefined.
    for answer, cited, accuracy in (("Refunds are paid within 14 days (doc-1, p. 2).", ("doc-1",), 1.0),
                                    ("According to DOC-2, refunds are paid within 14 days.", ("doc-2",),
                                     0.0)):
        with recorder.tracer.start_as_current_span("answer") as span:
            span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": answer,
                                 "ragmon.contexts": json.dumps(CONTEXTS)})
        example, _ = extract_noted(recorder.trace())
        recorder.exporter.clear()
        assert example is not None and example.citations == cited
        assert _metrics(example)["citation_accuracy"] == accuracy
