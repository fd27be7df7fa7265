"""Structured answers (ragmon.semconv.structured): a model asked for JSON answers with an object, and what
is judged is its answer text, not the object's syntax, keys and metadata; what it cites is read from its
citation keys. Each trace is recorded with the real SDK as an app writes it with the OTel GenAI
conventions: a retrieval span with the documents, a chat span whose output message is the model's reply."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from opentelemetry.trace import SpanKind

from ragmon import evaluate
from ragmon.model import Context, Example, ExampleResult
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "How long is the warranty?"
WARRANTY = "The warranty lasts 2 years. Returns are accepted within 30 days of delivery."
SHIPPING = "Standard shipping takes 5 business days."
CONTEXTS = (Context("d1", WARRANTY, 0.9), Context("d2", SHIPPING, 0.4))
GROUNDED = "The warranty lasts 2 years. Returns are accepted within 30 days."


def traced(recorder: Recorder, reply: str, numbered: tuple[Context, ...] = CONTEXTS) -> Example:
    """A request retrieving CONTEXTS and asking a model that replied `reply`, its prompt numbering the
    documents as LlamaIndex's CitationQueryEngine does, in the order `numbered` gives (a re-ranker's, say),
    extracted."""
    tracer = recorder.tracer
    sources = "\n\n".join(f"Source {n}:\n{context.text}" for n, context in enumerate(numbered, 1))
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "retrieval")
            span.set_attribute("gen_ai.retrieval.query.text", QUESTION)
            span.set_attribute("gen_ai.retrieval.documents", json.dumps([
                {"id": context.id, "score": context.score, "content": context.text} for context in CONTEXTS]))
        with tracer.start_as_current_span("chat gpt-4o-mini", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.input.messages", json.dumps([{"role": "user", "parts": [
                {"type": "text", "content": f"{sources}\n\nQuestion: {QUESTION}"}]}]))
            span.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [
                {"type": "text", "content": reply}], "finish_reason": "stop"}]))
    example = extract(recorder.trace())
    assert example is not None
    assert example.contexts == CONTEXTS
    return example


def scored(example: Example) -> ExampleResult:
    return evaluate([example]).results[0]


def unsupported(result: ExampleResult) -> list[str]:
    return [verdict.claim.text for verdict in result.verdicts if not verdict.supported]


# --- what is judged -----------------------------------------------------------------------------------


def test_the_answer_field_is_judged_not_the_json_around_it(recorder: Recorder) -> None:
    # Judged as text, the second claim was 'Returns are accepted within 30 days.", "sources": ["d1"]}':
    # unsupported, a hallucination alarm on a grounded answer (groundedness 0.5).
    example = traced(recorder, json.dumps({"answer": GROUNDED, "sources": ["d1"]}))

    result = scored(example)

    assert example.answer == GROUNDED
    assert unsupported(result) == []
    assert result.metrics["groundedness"] == 1.0


def test_a_made_up_field_is_flagged_and_a_supported_one_is_not(recorder: Recorder) -> None:
    # No answer key: every string of the object is judged, each a paragraph of its own.
    example = traced(recorder, json.dumps({"warranty": "The warranty lasts 2 years.",
                                           "shipping": "Shipping is free worldwide."}))

    result = scored(example)

    assert example.answer == "The warranty lasts 2 years.\n\nShipping is free worldwide."
    assert unsupported(result) == ["Shipping is free worldwide."]
    assert result.metrics["groundedness"] == 0.5


def test_a_confidence_and_the_ids_of_sources_are_no_claims(recorder: Recorder) -> None:
    # Indented, each field was a line and a claim: '"confidence": 0.8', '"sources": [' and '"d1"' were
    # unsupported, groundedness 0.4 for an answer every sentence of which is in d1.
    reply = json.dumps({"answer": GROUNDED, "sources": ["d1"], "confidence": 0.8}, indent=2)

    result = scored(traced(recorder, reply))

    assert unsupported(result) == []
    assert result.metrics["groundedness"] == 1.0


def test_without_an_answer_key_numbers_and_document_ids_are_not_judged(recorder: Recorder) -> None:
    reply = json.dumps({"summary": "The warranty lasts 2 years.", "document": "d1", "confidence": 0.8,
                        "grounded": True, "caveats": None})

    example = traced(recorder, reply)

    assert example.answer == "The warranty lasts 2 years."
    assert scored(example).metrics["groundedness"] == 1.0


def test_without_an_answer_key_labels_beside_the_text_are_no_claims(recorder: Recorder) -> None:
    # A schema's enum and tag fields: each was a claim of its own, "high" and "fact-check" unsupported,
    # groundedness 0.6 for an answer whose one sentence is d1's.
    reply = json.dumps({"summary": "The warranty lasts 2 years.", "confidence": "high", "language": "en",
                        "topic": "warranty", "answer_type": "fact-check", "title": "Warranty"})

    example = traced(recorder, reply)

    assert example.answer == "The warranty lasts 2 years.\n\nWarranty"
    assert scored(example).metrics["groundedness"] == 1.0


def test_an_object_of_labels_alone_is_judged_on_them(recorder: Recorder) -> None:
    # With nothing else to judge, the labels are the answer: dropping them would judge the JSON as written.
    example = traced(recorder, json.dumps({"verdict": "covered", "duration": "two_years"}))

    assert example.answer == "covered\n\ntwo_years"


@pytest.mark.parametrize(("reply", "judged"), [
    ('```json\n{"answer": "The warranty lasts 2 years."}\n```', "The warranty lasts 2 years."),
    ('  {"Final_Answer": "The warranty lasts 2 years.", "reasoning": "d1 says so."}\n',
     "The warranty lasts 2 years."),
    ('{"result": {"reply": "The warranty lasts 2 years.", "sources": [1]}, "status": "ok"}',
     "The warranty lasts 2 years."),
    ('{"message": {"role": "assistant", "content": "The warranty lasts 2 years."}}',
     "The warranty lasts 2 years."),
    ('{"points": ["The warranty lasts 2 years.", {"detail": "Returns are accepted within 30 days."}], '
     '"sources": ["The warranty page"]}',
     "The warranty lasts 2 years.\n\nReturns are accepted within 30 days."),
], ids=["fenced", "key cased otherwise", "nested one level", "a message", "nested lists, citations aside"])
def test_structured_answers_of_other_shapes(recorder: Recorder, reply: str, judged: str) -> None:
    assert traced(recorder, reply).answer == judged


# --- what is cited ------------------------------------------------------------------------------------


def test_sources_named_by_id_and_by_number_feed_citation_accuracy(recorder: Recorder) -> None:
    # "2" is the prompt's second source, d2, which supports nothing of the answer: half the citations are
    # right.
    example = traced(recorder, json.dumps({"answer": "The warranty lasts 2 years.", "sources": ["d1", 2]}))

    result = scored(example)

    assert example.citations == ("d1", "d2")
    assert result.metrics["citation_accuracy"] == 0.5
    assert result.metrics["citation_coverage"] == 1.0


def test_a_cited_number_names_the_source_the_prompt_numbered_so(recorder: Recorder) -> None:
    # The prompt numbers the documents in another order than they were retrieved: "[2]" is d1 there, where
    # the second document retrieved is d2.
    example = traced(recorder, json.dumps({"answer": "The warranty lasts 2 years.", "citations": ["[2]"]}),
                     numbered=(CONTEXTS[1], CONTEXTS[0]))

    assert example.citations == ("d1",)
    assert scored(example).metrics["citation_accuracy"] == 1.0


def test_cited_objects_name_their_document_and_their_quotes_are_not_judged(recorder: Recorder) -> None:
    reply = json.dumps({"answer": "The warranty lasts 2 years.",
                        "references": [{"id": "d1", "quote": "Shipping is free worldwide."}]})

    example = traced(recorder, reply)

    assert (example.answer, example.citations) == ("The warranty lasts 2 years.", ("d1",))
    assert unsupported(scored(example)) == []


def test_marks_in_the_answer_text_come_before_its_sources(recorder: Recorder) -> None:
    example = traced(recorder, json.dumps({"answer": "The warranty lasts 2 years [1].", "sources": ["d2"]}))

    assert example.citations == ("d1",)


def test_an_empty_source_list_cites_nothing_and_unknown_sources_are_unknown(recorder: Recorder) -> None:
    # An empty list says the answer credits no document: citation_coverage 0 for an answer resting on d1.
    # A source naming no retrieved document (a URL, a title) tells nothing of which one it meant.
    cites_nothing = traced(recorder, json.dumps({"answer": "The warranty lasts 2 years.", "sources": []}))
    recorder.exporter.clear()
    cites_a_url = traced(recorder, json.dumps({"answer": "The warranty lasts 2 years.",
                                               "sources": ["https://example.com/warranty"]}))

    assert cites_nothing.citations == ()
    assert scored(cites_nothing).metrics["citation_coverage"] == 0.0
    assert cites_a_url.citations is None


# --- what stays as it was ------------------------------------------------------------------------------


@pytest.mark.parametrize("reply", [
    "The warranty lasts 2 years [1].",
    "{Note} The warranty lasts 2 years [1].",
    'The API returns {"warranty_years": 2} for this product [1].',
    '{"answer": "The warranty lasts 2 years [1]."',
    '["The warranty lasts 2 years [1].", "Returns are accepted within 30 days."]',
    '"The warranty lasts 2 years [1]."',
    '{"warranty_years": 2, "source": 1}',
], ids=["prose", "prose opening with a brace", "prose holding JSON", "JSON cut short", "a JSON array",
        "a JSON string", "an object holding no text"])
def test_other_answers_are_judged_as_written(recorder: Recorder, reply: str) -> None:
    example = traced(recorder, reply)

    assert example.answer == reply
    assert example.citations == (("d1",) if "[1]" in reply else None)
