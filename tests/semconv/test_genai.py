"""OpenTelemetry GenAI shapes, recorded with the real SDK under the attribute names of the reference
(semantic-conventions v1.37+ messages, v1.40+ retrieval, and the older indexed prompt/completion)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.trace import Span, SpanKind

from ragmon import EvalConfig, LexicalJudge, evaluate
from ragmon.model import Context, Example
from ragmon.otlp.decode import decode_protobuf
from ragmon.semconv.extract import UNASKED, ExtractionError, extract, unasked_note
from ragmon.traces import Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "When does the museum open on Sundays?"
ANSWER = "The museum opens at 10 am on Sundays."
DOCUMENTS = [
    {"id": "hours-1", "score": 0.91, "content": "On Sundays the museum opens at 10 am."},
    {"id": "hours-2", "score": 0.52, "content": "The café closes at 5 pm."},
]


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "parts": [{"type": "text", "content": text}]}


def test_retrieval_and_chat_spans_with_json_string_values(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval museum-kb", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "retrieval")
            span.set_attribute("gen_ai.data_source.id", "museum-kb")
            span.set_attribute("gen_ai.retrieval.query.text", QUESTION)
            span.set_attribute("gen_ai.retrieval.documents", json.dumps(DOCUMENTS))
        with tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.provider.name", "anthropic")
            span.set_attribute("gen_ai.input.messages", json.dumps([
                {"role": "system", "parts": [{"type": "text", "content": "Answer from the context."}]},
                _user(f"Context: {' '.join(d['content'] for d in DOCUMENTS)}\nQuestion: {QUESTION}"),
            ]))
            span.set_attribute("gen_ai.output.messages", json.dumps([
                {"role": "assistant", "parts": [{"type": "reasoning", "content": "Check the hours."},
                                                {"type": "text", "content": ANSWER}],
                 "finish_reason": "stop"}]))

    example = extract(recorder.trace())

    assert example is not None
    # No chain span: the question is the retrieval query text, the answer the text part (not reasoning).
    assert example.question == QUESTION
    assert example.contexts == tuple(Context(d["id"], d["content"], d["score"]) for d in DOCUMENTS)
    assert example.answer == ANSWER
    assert example.citations is None


def test_structured_values_read_like_json_strings() -> None:
    # The Python SDK cannot set maps as attribute values; other SDKs (and the spec's preferred form)
    # send arrayValue/kvlistValue, so this request is built with the OTLP protobuf classes directly.
    def value(obj: object) -> AnyValue:
        if isinstance(obj, dict):
            return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=value(v))
                                                              for k, v in obj.items()]))
        if isinstance(obj, list):
            return AnyValue(array_value=ArrayValue(values=[value(v) for v in obj]))
        if isinstance(obj, float):
            return AnyValue(double_value=obj)
        return AnyValue(string_value=str(obj))

    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    trace_id = bytes.fromhex("5b8efff798038103d269b633813fc60c")
    for n, attributes in enumerate([
        {"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": DOCUMENTS},
        {"gen_ai.operation.name": "chat", "gen_ai.input.messages": [_user(QUESTION)],
         "gen_ai.output.messages": [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]},
    ], start=1):
        span = spans.add(trace_id=trace_id, span_id=bytes([n] * 8), name=f"span {n}",
                         start_time_unix_nano=n * 1000, end_time_unix_nano=n * 1000 + 500)
        span.attributes.extend(KeyValue(key=k, value=value(v)) for k, v in attributes.items())
    batch = decode_protobuf(request.SerializeToString())

    example = extract(Trace(trace_id.hex(), batch.spans))

    assert example is not None
    assert example.contexts == tuple(Context(d["id"], d["content"], d["score"]) for d in DOCUMENTS)
    # No retrieval query text: the question falls back to the last user message.
    assert example.question == QUESTION
    assert example.answer == ANSWER


def test_indexed_prompt_and_completion_of_older_instrumentations(recorder: Recorder) -> None:
    # OpenLLMetry 0.17-0.54 style: no operation name, indexed gen_ai.prompt.N / gen_ai.completion.N,
    # and list content written as a JSON string.
    with recorder.tracer.start_as_current_span("openai.chat", kind=SpanKind.CLIENT) as span:
        span.set_attribute("gen_ai.system", "openai")
        span.set_attribute("gen_ai.prompt.0.role", "system")
        span.set_attribute("gen_ai.prompt.0.content", "Be brief.")
        span.set_attribute("gen_ai.prompt.1.role", "user")
        span.set_attribute("gen_ai.prompt.1.content", "What is the capital of France?")
        span.set_attribute("gen_ai.prompt.2.role", "assistant")
        span.set_attribute("gen_ai.prompt.2.content", "Paris.")
        span.set_attribute("gen_ai.prompt.3.role", "user")
        span.set_attribute("gen_ai.prompt.3.content",
                           json.dumps([{"type": "text", "text": "And of Italy?"}]))
        span.set_attribute("gen_ai.completion.0.role", "assistant")
        span.set_attribute("gen_ai.completion.0.content", "Rome.")

    example = extract(recorder.trace())

    assert example is not None
    # The last user message, decoded from its JSON parts; no retrieval at all: contexts unknown.
    assert example.question == "And of Italy?"
    assert example.answer == "Rome."
    assert example.contexts is None


def test_empty_retrieval_is_known_to_be_empty(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("retrieval kb") as span:
        span.set_attribute("gen_ai.operation.name", "retrieval")
        span.set_attribute("gen_ai.retrieval.query.text", QUESTION)
        span.set_attribute("gen_ai.retrieval.documents", "[]")

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == ()
    assert example.answer is None


@pytest.mark.parametrize(("documents", "problem"), [
    ('[{"id": "a", "score": 1', "is not valid JSON"),
    ('{"id": "a"}', "is not a list"),
    ('["a"]', "gen_ai.retrieval.documents[0] is not an object"),
    # The schema requires only id and score; without text there is nothing to check the answer against.
    ('[{"id": "a", "score": 0.5}]', "gen_ai.retrieval.documents[0] has no text"),
])
def test_malformed_retrieval_documents_name_span_and_attribute(recorder: Recorder, documents: str,
                                                               problem: str) -> None:
    with recorder.tracer.start_as_current_span("retrieval kb") as span:
        span.set_attribute("gen_ai.operation.name", "retrieval")
        span.set_attribute("gen_ai.retrieval.documents", documents)
    trace = recorder.trace()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)

    message = str(caught.value)
    assert problem in message
    assert "'retrieval kb'" in message
    assert trace.spans[0].span_id in message
    assert "gen_ai.retrieval.documents" in message


# --- answers recorded in pieces: message parts, one event per streamed chunk ---------------------------

PURCHASE = "The warranty lasts 2 years from the date of purchase."
RETURNS = "Returns cost $3.50 within 30 days."
MADE_UP = "It also covers accidental damage."


def _scored(recorder: Recorder, record_answer: Callable[[Span], None]) -> tuple[Example, float | None]:
    """A retrieval of two documents, one sentence each, and a chat span `record_answer` writes the answer
    on: the extracted example and its lexical groundedness."""
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
            span.set_attributes({"gen_ai.operation.name": "retrieval",
                                 "gen_ai.retrieval.query.text": "How long is the warranty?",
                                 "gen_ai.retrieval.documents": json.dumps(
                                     [{"id": "warranty", "score": 0.9, "content": PURCHASE},
                                      {"id": "returns", "score": 0.8, "content": RETURNS}])})
        with tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            record_answer(span)
    example = extract(recorder.trace())
    assert example is not None
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    return example, result.metrics["groundedness"]


@pytest.mark.parametrize(("parts", "answer", "groundedness"), [
    # Each sentence is one document's: 2 of 2 supported. Glued ("purchase.Returns") they were one claim
    # that needed both documents, so none supported it: 0.0.
    ([PURCHASE, RETURNS], f"{PURCHASE} {RETURNS}", 1.0),
    # A word, or a number, split across chunks stays whole: no space inside "warranty", nor in "$3.50",
    # which split ("$3. 50") would be two claims, of 3 and 50, that no document states: 0.0.
    (["The warr", "anty lasts 2 years from the date of purchase."], PURCHASE, 1.0),
    (["Returns cost $3.", "50 within 30 days."], RETURNS, 1.0),
])
def test_the_text_parts_of_a_message_keep_sentences_apart_and_words_whole(
        recorder: Recorder, parts: list[str], answer: str, groundedness: float) -> None:
    message = {"role": "assistant", "parts": [{"type": "text", "content": part} for part in parts],
               "finish_reason": "stop"}
    example, scored = _scored(recorder, lambda span: span.set_attribute("gen_ai.output.messages",
                                                                       json.dumps([message])))
    assert example.answer == answer
    assert scored == groundedness


def _choice_events(span: Span) -> None:
    # Azure-style v1.28 choice events, one per chunk; a second choice's chunk between them is not mixed in.
    chunks = ((0, "The warranty"), (1, "Warranties are void."), (0, " lasts 2 years from the date "),
              (0, "of purchase."), (0, MADE_UP))
    for index, chunk in chunks:
        span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
            {"index": index, "message": {"role": "assistant", "content": chunk}})})


def _legacy_text_events(span: Span) -> None:
    # v1.26 gen_ai.content.completion events, one per chunk, as plain text; a blank chunk is a space.
    for chunk in ("The warranty", " ", "lasts 2 years from the date of purchase.", MADE_UP):
        span.add_event("gen_ai.content.completion", {"gen_ai.completion": chunk})


def _legacy_message_events(span: Span) -> None:
    # The same events holding JSON lists of messages, one per choice.
    for chunk in ("The warranty lasts 2 years", " from the date of purchase.", MADE_UP):
        span.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
            [{"role": "assistant", "content": chunk}])})


@pytest.mark.parametrize("record", [_choice_events, _legacy_text_events, _legacy_message_events])
def test_a_completion_streamed_as_one_event_per_chunk_is_read_whole(recorder: Recorder,
                                                                    record: Callable[[Span], None]) -> None:
    # Read from the first event alone, the answer was "The warranty" (supported: 1.0) and the made-up
    # sentence went unscored. Whole, it is two claims: the first all in the warranty document, the second
    # (cover, accident, damag) in none: 1 of 2, 0.5.
    example, groundedness = _scored(recorder, record)
    assert example.answer == f"{PURCHASE} {MADE_UP}"
    assert groundedness == 0.5


_CONTEXT = "\n".join(d["content"] for d in DOCUMENTS)


@pytest.mark.parametrize(("prompt", "question"), [
    (f"Context:\n{_CONTEXT}\n\nQuestion: {QUESTION}\nAnswer:", QUESTION),
    (f"<context>\n{_CONTEXT}\n</context>\n\n<question>\n{QUESTION}\n</question>", QUESTION),
    (f"## Context\n{_CONTEXT}\n\n## Question\n{QUESTION}", QUESTION),
    (f"Context:\n{_CONTEXT}\n\nQuestion:\n{QUESTION}\n\nAnswer:", QUESTION),
    (f"Context:\n{_CONTEXT}\n\nUser question: {QUESTION}", QUESTION),
    (f"Context:\n{_CONTEXT}\n\nQuestion：{QUESTION}", QUESTION),
    (f"Context:\n{_CONTEXT}\n\n**Question:** {QUESTION}", QUESTION),
    (f"Kontext:\n{_CONTEXT}\n\nFrage: Wann öffnet das Museum sonntags?", "Wann öffnet das Museum sonntags?"),
    (f"Contexte :\n{_CONTEXT}\n\nQuestion : Quand le musée ouvre-t-il ?", "Quand le musée ouvre-t-il ?"),
    (f"Contexto:\n{_CONTEXT}\n\nPregunta: ¿Cuándo abre el museo?", "¿Cuándo abre el museo?"),
    (f"Contesto:\n{_CONTEXT}\n\nDomanda: Quando apre il museo?", "Quando apre il museo?"),
    (f"Contexto:\n{_CONTEXT}\n\nPergunta: Quando abre o museu?", "Quando abre o museu?"),
    # The example's question first, the user's last: the last one asked is the user's.
    (f"<question>Is the café open?</question>\n{_CONTEXT}\nQuestion: {QUESTION}", QUESTION),
    # Prose that mentions a question labels none: no question rather than a wrong one.
    (f"Answer the question below.\n{_CONTEXT}\n{QUESTION}", ""),
    (f"{_CONTEXT}\nQuestion the premise if the context disagrees: {QUESTION}", ""),
])
def test_the_question_of_a_stuffed_prompt_in_common_templates(recorder: Recorder, prompt: str,
                                                              question: str) -> None:
    # No retrieval query recorded (gen_ai.retrieval.query.text is opt-in) and no chain: the question is
    # read from the prompt stuffed with the documents. Only `Question:` lines had been read, so these
    # templates had given "".
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
            span.set_attributes({"gen_ai.operation.name": "retrieval",
                                 "gen_ai.retrieval.documents": json.dumps(DOCUMENTS)})
        with tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT) as span:
            span.set_attributes({
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
                "gen_ai.input.messages": json.dumps([_user(prompt)]),
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])})

    trace = recorder.trace()

    example = extract(trace)

    assert example is not None and example.answer == ANSWER
    assert example.question == question
    if not question:  # the sidecar says why, where it had scored "" with no word
        assert unasked_note(trace) == UNASKED


@pytest.mark.parametrize(("message", "question"), [
    # A prompt stuffed with documents, and no retrieval span to know them by (the provider SDK's spans
    # alone): its Question: line, where the whole prompt had been the question.
    ("Answer from these documents only.\nDOC: The museum opens at 10 am on Sundays.\n\nQuestion: " + QUESTION,
     QUESTION),
    (QUESTION, QUESTION),  # a plain message is the question
    ("Question: is it open?", "Question: is it open?"),  # one line: what the user typed
])
def test_a_stuffed_prompt_without_a_retrieval_gives_its_question_line(recorder: Recorder, message: str,
                                                                     question: str) -> None:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": message}]}]),
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])}
    with recorder.tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT, attributes=chat):
        pass

    example = extract(recorder.trace())

    assert example is not None and (example.question, example.contexts) == (question, None)


def test_a_model_call_recording_no_input_has_its_switch_named_for_the_missing_question(
        recorder: Recorder) -> None:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])}
    with recorder.tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT, attributes=chat):
        pass
    trace = recorder.trace()

    example = extract(trace)

    assert example is not None and (example.question, example.answer) == ("", ANSWER)
    assert "'chat gpt-4o' records no input" in unasked_note(trace)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in unasked_note(trace)


ANNOUNCEMENT = "Let me check the holiday opening hours too."
PROMPT = f"Context: {' '.join(d['content'] for d in DOCUMENTS)}\nQuestion: {QUESTION}"


def _indexed_call(span: Span, history: list[tuple[str, str]], content: str, *, calls_tool: bool) -> None:
    """A model call in the indexed attributes of older instrumentations (OpenLLMetry before 0.55)."""
    for index, (role, text) in enumerate(history):
        span.set_attribute(f"gen_ai.prompt.{index}.role", role)
        span.set_attribute(f"gen_ai.prompt.{index}.content", text)
    span.set_attribute("gen_ai.completion.0.role", "assistant")
    span.set_attribute("gen_ai.completion.0.content", content)
    if calls_tool:
        span.set_attribute("gen_ai.completion.0.tool_calls.0.name", "holiday_hours")


def _event_call(span: Span, history: list[tuple[str, str]], content: str, *, calls_tool: bool) -> None:
    """A model call in v1.28 message and choice events carried on the span (the Azure AI Inference SDKs)."""
    span.set_attribute("gen_ai.operation.name", "chat")
    for role, text in history:
        span.add_event(f"gen_ai.{role}.message",
                       {"gen_ai.event.content": json.dumps({"role": role, "content": text})})
    message: dict[str, object] = {"role": "assistant", "content": content}
    if calls_tool:
        message["tool_calls"] = [{"id": "call-1", "type": "function", "function": {"name": "holiday_hours"}}]
    span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
        {"index": 0, "finish_reason": "tool_calls" if calls_tool else "stop", "message": message})})


@pytest.mark.parametrize("record", [_indexed_call, _event_call])
def test_a_tool_calls_announcement_is_no_answer_in_older_forms(
        recorder: Recorder, record: Callable[..., None]) -> None:
    # The model announces a tool call, then answers with the announcement in its history: read as a
    # grader quoting an earlier answer, the answering call was passed over for the announcement.
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval museum-kb") as span:
            span.set_attribute("gen_ai.operation.name", "retrieval")
            span.set_attribute("gen_ai.retrieval.documents", json.dumps(DOCUMENTS))
        with tracer.start_as_current_span("chat step") as span:
            record(span, [("user", PROMPT)], ANNOUNCEMENT, calls_tool=True)
        with tracer.start_as_current_span("chat answer") as span:
            record(span, [("user", PROMPT), ("assistant", ANNOUNCEMENT), ("tool", "No holidays this month.")],
                   ANSWER, calls_tool=False)

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == ANSWER


@pytest.mark.parametrize("other", [
    ("chat title", "Write a title for this chat: " + QUESTION, "Museum Sunday opening hours"),
    ("chat relevance-check", PROMPT, "yes"),
    ("chat follow-ups", PROMPT, "Is the cafe open on Sundays? Can I buy tickets online?"),
], ids=["title after", "check before", "follow-ups after"])
def test_an_answer_that_also_asked_for_a_tool_no_later_call_was_given_is_the_answer(
        recorder: Recorder, other: tuple[str, str, str]) -> None:
    # The answering call asks for a client-side tool beside its answer (show the sources), and no later call
    # is given its text: no agent's step. Taken for one, the answer was passed over for a title, a check's
    # "yes" or follow-up questions.
    name, prompt, output = other
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval museum-kb") as span:
            span.set_attribute("gen_ai.operation.name", "retrieval")
            span.set_attribute("gen_ai.retrieval.documents", json.dumps(DOCUMENTS))
        calls = [("chat answer", PROMPT, [{"type": "text", "content": ANSWER},
                                          {"type": "tool_call", "id": "c1", "name": "show_sources",
                                           "arguments": {"ids": ["hours-1"]}}]),
                 (name, prompt, [{"type": "text", "content": output}])]
        for call_name, call_prompt, parts in (calls if name != "chat relevance-check" else calls[::-1]):
            with tracer.start_as_current_span(call_name) as span:
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("gen_ai.input.messages", json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": call_prompt}]}]))
                span.set_attribute("gen_ai.output.messages",
                                   json.dumps([{"role": "assistant", "parts": parts}]))

    example = extract(recorder.trace())

    assert example is not None and example.answer == ANSWER


@pytest.mark.parametrize("opening", ["", "Sources:\n"], ids=["first-line", "after-a-line"])
def test_a_cited_position_is_the_source_a_json_message_numbered_so(recorder: Recorder, opening: str) -> None:
    # The prompt numbers the documents "[n] text" in a re-ranker's order, the café first, inside a
    # JSON-encoded message, where each line follows an escaped "\n" (or the string's opening quote): the
    # answer's "[2]" had been read as the second retrieved document, the café, not the prompt's [2].
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval museum-kb", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "retrieval")
            span.set_attribute("gen_ai.retrieval.documents", json.dumps(DOCUMENTS))
        with tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            sources = f"[1] {DOCUMENTS[1]['content']}\n[2] {DOCUMENTS[0]['content']}"
            span.set_attribute("gen_ai.input.messages", json.dumps([
                _user(f"{opening}{sources}\n\nQuestion: {QUESTION}")]))
            span.set_attribute("gen_ai.output.messages", json.dumps([
                {"role": "assistant", "parts": [{"type": "text", "content": f"{ANSWER} [2]"}]}]))

    example = extract(recorder.trace())

    assert example is not None and example.citations == ("hours-1",)
