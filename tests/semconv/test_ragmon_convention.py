"""ragmon's own span convention (ragmon.question, .answer, .contexts, ...), set with the real SDK."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import pytest

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "Can I return opened headphones?"
ANSWER = "Opened headphones can be returned within 14 days."
RETURNS = "Opened audio products can be returned within 14 days."
HYGIENE = "In-ear headphones are exchanged only if defective."
NOTICE = "Returns need the original receipt."


def test_every_field_of_the_convention(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("handle") as root:
        root.set_attributes({"ragmon.question": QUESTION, "ragmon.pipeline": "returns-bot",
                             "ragmon.relevant_ids": json.dumps(["kb-returns"]),
                             "ragmon.ground_truth": "Yes, within 14 days."})
        with tracer.start_as_current_span("search") as search:
            search.set_attribute("ragmon.contexts", json.dumps([
                {"id": "kb-returns", "text": RETURNS, "score": 0.9},
                {"text": HYGIENE, "metadata": {"doc_id": "kb-hygiene"}},
                NOTICE,
            ]))
        with tracer.start_as_current_span("generate") as generate:
            generate.set_attribute("ragmon.answer", ANSWER)
        root.set_attribute("ragmon.citations", ["kb-returns", "kb-hygiene", "kb-returns"])

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == ANSWER
    # A plain string gets "doc-" + the first 8 hex digits of the sha256 of its UTF-8 text.
    notice_id = "doc-" + hashlib.sha256(NOTICE.encode("utf-8")).hexdigest()[:8]
    assert example.contexts == (Context("kb-returns", RETURNS, 0.9), Context("kb-hygiene", HYGIENE),
                                Context(notice_id, NOTICE))
    assert example.citations == ("kb-returns", "kb-hygiene")
    assert example.relevant_ids == frozenset({"kb-returns"})
    assert example.ground_truth == "Yes, within 14 days."
    assert example.pipeline == "returns-bot"


def test_citations_as_json_and_service_name_as_pipeline(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps([{"id": "r1", "text": RETURNS}]),
                             "ragmon.citations": '["r1"]'})

    example = extract(recorder.trace())

    assert example is not None
    assert example.citations == ("r1",)
    assert example.relevant_ids is None
    assert example.pipeline == recorder.service


def test_explicit_empty_contexts_mean_retrieval_found_nothing(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.contexts": "[]",
                             "ragmon.answer": "I don't know."})

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == ()


def test_a_lone_surrogate_in_a_json_attribute_becomes_the_replacement_character(recorder: Recorder) -> None:
    # json.dumps writes a lone U+D800 as the escape "\ud800", valid JSON that reads back as no character:
    # the context's text must come out encodable, with U+FFFD in its place.
    with recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps([{"id": "r1", "text": "14 days \ud800"}])})

    example = extract(recorder.trace())

    assert example is not None and example.contexts is not None
    assert example.contexts[0].text == "14 days \ufffd"
    assert example.contexts[0].text.encode("utf-8")


def test_an_apps_own_keys_beside_a_contexts_id_are_its_own(recorder: Recorder) -> None:
    # The id is given (r1) or in the metadata (returns.md): chunk_id and similarity are the app's own keys,
    # and the trace is scored as it always was.
    contexts = [{"id": "r1", "text": "Returns within 14 days.", "similarity": 0.9},
                {"text": "Opened items too.", "metadata": {"source": "returns.md"}, "chunk_id": 7}]
    with recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
                             "ragmon.contexts": json.dumps(contexts)})

    example = extract(recorder.trace())

    assert example is not None and example.contexts is not None
    assert [c.id for c in example.contexts] == ["r1", "returns.md"]


@pytest.mark.parametrize(("attribute", "value", "problem"), [
    ("ragmon.contexts", "first doc, second doc", "attribute 'ragmon.contexts' is not valid JSON"),
    ("ragmon.contexts", '{"id": "a", "text": "b"}', "attribute 'ragmon.contexts' is not a list"),
    ("ragmon.contexts", "[3]", "ragmon.contexts[0] is neither an object nor a string"),
    ("ragmon.contexts", '["ok", {"id": "b"}]', "ragmon.contexts[1] has no string 'text'"),
    ("ragmon.contexts", '[{"text": "t", "score": "high"}]', "ragmon.contexts[0].score is not a number"),
    ("ragmon.contexts", '[{"text": "t", "id": ["x"]}]', "ragmon.contexts[0].id is neither a string"),
    # Dropped before, the context read under its content hash, and ragmon.citations ["kb-1"] matched nothing.
    ("ragmon.contexts", '[{"doc_id": "kb-1", "text": "t"}]',
     "ragmon.contexts[0]: unknown field 'doc_id': ragmon reads this as 'id', rename it"),
    ("ragmon.contexts", '[{"ID": "kb-1", "text": "t"}]',
     "ragmon.contexts[0]: unknown field 'ID': did you mean 'id'?"),
    ("ragmon.citations", '"kb-1"', "attribute 'ragmon.citations' is not a list"),
    ("ragmon.relevant_ids", "[true]", "ragmon.relevant_ids[0] is neither a string nor a whole number"),
    ("ragmon.citations", '["kb-1", 2.5]', "ragmon.citations[1] is neither a string nor a whole number"),
    ("ragmon.answer", 42, "attribute 'ragmon.answer' is not a string"),
])
def test_malformed_values_name_span_and_attribute(recorder: Recorder, attribute: str, value: object,
                                                  problem: str) -> None:
    with recorder.tracer.start_as_current_span("retrieve and answer") as span:
        span.set_attributes({"ragmon.question": QUESTION, attribute: value})
    trace = recorder.trace()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)

    message = str(caught.value)
    assert problem in message
    assert "span 'retrieve and answer'" in message
    assert f"span id {trace.spans[0].span_id}" in message
    assert caught.value.field == attribute


CUT = "it ends before the value is complete"


@pytest.fixture
def cut_recorder(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Recorder:
    """The recorder's SDK configured as an app with OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=60 configures its
    own: the SDK keeps the first 60 characters of every string attribute."""
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "60")
    cut: Recorder = request.getfixturevalue("recorder")
    return cut


def test_contexts_cut_by_the_sdk_length_limit_are_named_as_cut(cut_recorder: Recorder) -> None:
    # '[{"id": "kb-returns", "text": "' is 31 characters, RETURNS 53 and '"}]' 3: 87 in all, so the SDK's
    # 60 characters end inside the text. The question (31 characters) stays whole.
    contexts = json.dumps([{"id": "kb-returns", "text": RETURNS}])
    with cut_recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.contexts": contexts})

    with pytest.raises(ExtractionError) as caught:
        extract(cut_recorder.trace())

    message = str(caught.value)
    assert (f"attribute 'ragmon.contexts' is not valid JSON: {CUT} (cut at 60 characters? check "
            "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT / span attribute limits in the app)") in message
    assert "\n" not in message


@pytest.mark.parametrize(("value", "cut"), [
    ('[{"id": "a", "text": "Opened au', True),       # inside a string: json reports the string's start
    ('[{"id": "a", "score": 1', True),               # after a whole number: reported at the end
    ('[{"id": "a", "score": 0.', True),              # inside a number
    ('[{"text": "t", "ok": tr', True),               # inside a literal
    ('[{"text": "caf\\u00', True),                   # inside a \uXXXX escape
    ("[", True),
    ("first doc, second doc", False),                # free text, not JSON
    ('["a",, "b"]', False),                          # a wrong character, with more text after it
    ('[{"id": "a"} {"id": "b"}]', False),
    ('["a", nope]', False),
])
def test_only_json_cut_short_is_named_as_cut(recorder: Recorder, value: str, cut: bool) -> None:
    with recorder.tracer.start_as_current_span("rag") as span:
        span.set_attributes({"ragmon.question": QUESTION, "ragmon.contexts": value})

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    message = str(caught.value)
    assert "attribute 'ragmon.contexts' is not valid JSON" in message
    assert (f"{CUT} (cut at {len(value)} characters?" in message) is cut


def _answer_span(recorder: Recorder, answer: str, start: int, end: int) -> None:
    """A root span of its own trace's id (the request span of an app that records its answer on each
    attempt), at the times given."""
    span = recorder.tracer.start_span("rag", start_time=start)
    span.set_attributes({"ragmon.question": QUESTION, "ragmon.answer": answer,
                         "ragmon.contexts": json.dumps([{"id": "kb-returns", "text": RETURNS}])})
    span.end(end_time=end)


def _one_trace(recorder: Recorder) -> Trace:
    """Every span recorded, as one trace (the SDK gave each root a trace id of its own)."""
    spans = tuple(span for trace in recorder.traces() for span in trace.spans)
    return Trace(spans[0].trace_id, spans)


@pytest.mark.parametrize(("first", "second", "expected"), [
    ((1_000, 2_000), (3_000, 4_000), "retry"),  # one after the other: the retry replaced the first answer
    ((3_000, 4_000), (1_000, 2_000), "first"),  # the first attempt to end is sent second
    ((1_000, 9_000), (3_000, 4_000), "first"),  # the one ending last, whichever started first
    ((1_000, 4_000), (3_000, 4_000), "retry"),  # ended together (a coarse clock): the last to start
])
def test_of_two_answers_as_near_the_root_the_last_to_end_is_the_users(
        recorder: Recorder, first: tuple[int, int], second: tuple[int, int], expected: str) -> None:
    # Start order, and the random span id when starts tie, had chosen: the same build scored 0.333,
    # 0.667 or 0.833 over three runs.
    _answer_span(recorder, "first", *first)
    _answer_span(recorder, "retry", *second)

    example = extract(_one_trace(recorder))

    assert example is not None
    assert example.answer == expected


def test_two_different_answers_at_the_same_times_are_an_error_naming_both(recorder: Recorder) -> None:
    _answer_span(recorder, ANSWER, 1_000, 2_000)
    _answer_span(recorder, "Opened headphones can never be returned.", 1_000, 2_000)
    trace = _one_trace(recorder)

    with pytest.raises(ExtractionError, match="two spans record different answers") as raised:
        extract(trace)

    assert raised.value.attribute == "ragmon.answer"
    assert all(span.span_id in str(raised.value) for span in trace.spans)


def test_the_same_answer_twice_at_the_same_times_is_that_answer(recorder: Recorder) -> None:
    _answer_span(recorder, ANSWER, 1_000, 2_000)
    _answer_span(recorder, ANSWER, 1_000, 2_000)

    example = extract(_one_trace(recorder))

    assert example is not None
    assert example.answer == ANSWER
