"""A RAG request made with the real `openai` SDK under OpenTelemetry's own OpenAI instrumentation
(opentelemetry-instrumentation-openai-v2), against a local fake of the Chat Completions API: what the
README and docs/deploy.md tell its users to set, checked against what the instrumentation really writes.

The app records its retrieval itself as an OTel GenAI retrieval span (`gen_ai.operation.name`
retrieval, `gen_ai.retrieval.query.text`, `gen_ai.retrieval.documents` as JSON with each document's
`content`), beside the chat call whose prompt holds the documents, both under the request's span.

What the instrumentation writes (2.4b0 on opentelemetry-util-genai 1.1b0): one CLIENT span `chat <model>`
per call (scope `opentelemetry.util.genai.handler`) with `gen_ai.operation.name` chat,
`gen_ai.provider.name` openai, `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.response.id`,
`gen_ai.response.finish_reasons` (not when streamed) and `gen_ai.usage.input_tokens/output_tokens`.
Content is captured only by OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, read at instrument():
`span_only` and `span_and_event` add `gen_ai.input.messages` and `gen_ai.output.messages` to the span
(JSON strings in the parts format), `event_only` puts them on a `gen_ai.client.inference.operation.details`
log record only, and the legacy `true` is no mode of these conventions (a warning; no content anywhere).
From util-genai 1.0 the instrumentation is always on the latest conventions, so
OTEL_SEMCONV_STABILITY_OPT_IN changes nothing; util-genai 0.4b0 stays on v1.30 without it, where
`span_only` records no content. The README's pair of settings works on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest
from fakes.openai_server import Fail, FakeOpenAI
from openai import AsyncOpenAI, InternalServerError, OpenAI
from openai.types.chat import ChatCompletionMessageParam
from opentelemetry.instrumentation._semconv import _OpenTelemetrySemanticConventionStability
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.trace import SpanKind, Tracer

from ragmon import evaluate
from ragmon.model import Context, Example
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN"
LATEST = "gen_ai_latest_experimental"
EMIT_EVENT = "OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT"
MODEL = "gpt-4o-mini"
CHAT_SPAN = "chat gpt-4o-mini"

QUESTION = "How many days do I have to return a jacket?"
DOCUMENTS = [
    {"id": "policy-returns", "score": 0.82,
     "content": "Clothing can be returned within 45 days of purchase with the receipt."},
    {"id": "policy-sale", "score": 0.61,
     "content": "Items bought on sale can be exchanged but not refunded."},
]
SYSTEM = "Answer from the context only and cite the document ids in brackets."
ANSWER = "You have 45 days from purchase to return a jacket, with the receipt [policy-returns]."

# What the model was asked, written out by hand: the app numbers nothing, it labels each document with
# its id.
PROMPT = ("Context:\n"
          "[policy-returns] Clothing can be returned within 45 days of purchase with the receipt.\n"
          "[policy-sale] Items bought on sale can be exchanged but not refunded.\n"
          "\n"
          "Question: How many days do I have to return a jacket?")
CONTEXTS = (
    Context("policy-returns", "Clothing can be returned within 45 days of purchase with the receipt.", 0.82),
    Context("policy-sale", "Items bought on sale can be exchanged but not refunded.", 0.61),
)


class Logs:
    """A logger provider keeping its records in memory: where the instrumentation's log events go."""

    def __init__(self) -> None:
        self.exporter = InMemoryLogRecordExporter()
        self.provider = LoggerProvider()
        self.provider.add_log_record_processor(SimpleLogRecordProcessor(self.exporter))

    def events(self) -> dict[str, dict[str, Any]]:
        """Each record's event name -> its attributes."""
        return {str(log.log_record.event_name): dict(log.log_record.attributes or {})
                for log in self.exporter.get_finished_logs()}


@pytest.fixture
def logs() -> Iterator[Logs]:
    logs = Logs()
    yield logs
    logs.provider.shutdown()


@pytest.fixture
def api() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as api:
        api.reply(ANSWER)
        yield api


@pytest.fixture
def client(api: FakeOpenAI) -> Iterator[OpenAI]:
    client = OpenAI(base_url=api.base_url, api_key="sk-test", max_retries=0)
    yield client
    client.close()


@contextmanager
def openai_v2(recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, *,
              capture: str | None, opt_in: str | None = LATEST) -> Iterator[None]:
    """The instrumentor on `recorder` for one block, started as an app started with these environment
    variables (None: unset). Both are read at instrument(), the opt-in once per process by
    opentelemetry-instrumentation: its cache is emptied here so this block reads the test's value, and
    monkeypatch puts the variables and the cache back afterwards."""
    for name, value in ((CAPTURE, capture), (OPT_IN, opt_in), (EMIT_EVENT, None)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    stability = _OpenTelemetrySemanticConventionStability
    monkeypatch.setattr(stability, "_initialized", False)
    monkeypatch.setattr(stability, "_OTEL_SEMCONV_STABILITY_SIGNAL_MAPPING", {})
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider, logger_provider=logs.provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()


def retrieve(tracer: Tracer, question: str) -> list[dict[str, Any]]:
    """The app's own retrieval span, as the OTel GenAI retrieval convention writes it."""
    with tracer.start_as_current_span("retrieval store-policies", kind=SpanKind.CLIENT) as span:
        span.set_attributes({
            "gen_ai.operation.name": "retrieval",
            "gen_ai.data_source.id": "store-policies",
            "gen_ai.retrieval.query.text": question,
            "gen_ai.retrieval.documents": json.dumps(DOCUMENTS),
        })
        return DOCUMENTS


def prompt(question: str, documents: list[dict[str, Any]]) -> list[ChatCompletionMessageParam]:
    context = "\n".join(f"[{doc['id']}] {doc['content']}" for doc in documents)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {question}"}]


def ask(client: OpenAI, tracer: Tracer, question: str, *, stream: bool = False) -> str:
    """The app's request: retrieve, then ask the model with the documents in the prompt."""
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        messages = prompt(question, retrieve(tracer, question))
        if not stream:
            completion = client.chat.completions.create(model=MODEL, messages=messages)
            return completion.choices[0].message.content or ""
        chunks = client.chat.completions.create(model=MODEL, messages=messages, stream=True,
                                                stream_options={"include_usage": True})
        return "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)


def extracted(recorder: Recorder) -> Example:
    example = extract(recorder.trace())
    assert example is not None
    return example


def failure(recorder: Recorder) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())
    return caught.value


# --- content on the spans, as the README says --------------------------------------------------------


def test_span_only_gives_question_documents_and_answer(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, api: FakeOpenAI,
        client: OpenAI) -> None:
    with openai_v2(recorder, logs, monkeypatch, capture="span_only"):
        answer = ask(client, recorder.tracer, QUESTION)

    example = extracted(recorder)

    assert answer == ANSWER
    assert api.requests[0]["messages"][1] == {"role": "user", "content": PROMPT}
    assert example.question == QUESTION
    assert example.contexts == CONTEXTS
    assert example.answer == ANSWER
    assert example.citations == ("policy-returns",)   # "[policy-returns]" in the answer names a retrieved id
    assert example.pipeline == recorder.service
    assert logs.events() == {}                       # nothing went to logs


def test_streamed_answer_is_read_whole(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, client: OpenAI) -> None:
    # The fake streams three words a chunk: the instrumentation joins them into one output message.
    with openai_v2(recorder, logs, monkeypatch, capture="span_only"):
        answer = ask(client, recorder.tracer, QUESTION, stream=True)

    example = extracted(recorder)

    assert answer == ANSWER
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, ANSWER)


async def test_async_client(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, api: FakeOpenAI) -> None:
    client = AsyncOpenAI(base_url=api.base_url, api_key="sk-test", max_retries=0)
    try:
        with openai_v2(recorder, logs, monkeypatch, capture="span_only"), \
                recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
            messages = prompt(QUESTION, retrieve(recorder.tracer, QUESTION))
            completion = await client.chat.completions.create(model=MODEL, messages=messages)
    finally:
        await client.close()

    example = extracted(recorder)

    assert completion.choices[0].message.content == ANSWER
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, ANSWER)


def test_span_and_event_is_read_from_the_span(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, client: OpenAI) -> None:
    # span_and_event puts the content on the span as well as on a log record: ragmon reads the span.
    with openai_v2(recorder, logs, monkeypatch, capture="span_and_event"):
        ask(client, recorder.tracer, QUESTION)

    example = extracted(recorder)

    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, ANSWER)
    assert list(logs.events()) == ["gen_ai.client.inference.operation.details"]


def test_a_json_object_reply_is_judged_on_its_answer_and_cites_its_sources(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch) -> None:
    # An app asking for `response_format={"type": "json_object"}`: the output message's content is the
    # model's JSON, judged as text before, its keys and confidence among the claims, its sources unread.
    grounded = "You have 45 days from purchase to return a jacket, with the receipt."
    reply = {"answer": grounded, "sources": ["policy-returns"], "confidence": 0.9}
    with FakeOpenAI() as api, OpenAI(base_url=api.base_url, api_key="sk-test", max_retries=0) as client, \
            openai_v2(recorder, logs, monkeypatch, capture="span_only"), \
            recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        api.reply(json.dumps(reply))
        messages = prompt(QUESTION, retrieve(recorder.tracer, QUESTION))
        completion = client.chat.completions.create(model=MODEL, messages=messages,
                                                    response_format={"type": "json_object"})

    example = extracted(recorder)

    assert json.loads(completion.choices[0].message.content or "") == reply
    assert api.requests[0]["response_format"] == {"type": "json_object"}
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, grounded)
    assert example.citations == ("policy-returns",)
    result = evaluate([example]).results[0]
    assert (result.metrics["groundedness"], result.metrics["citation_accuracy"]) == (1.0, 1.0)


# --- content not on the spans: an error naming the switch --------------------------------------------


def assert_names_the_switch(error: ExtractionError) -> None:
    assert error.span_name == CHAT_SPAN
    assert error.field == "gen_ai.output.messages"
    assert "records no output" in str(error)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only" in str(error)
    assert "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental" in str(error)


@pytest.mark.parametrize("opt_in", [None, LATEST])
def test_no_content_by_default_is_an_error_naming_the_switch(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, client: OpenAI,
        opt_in: str | None) -> None:
    # Content capture left unset, with or without the opt-in: the chat span has no messages, and an
    # example with no answer would be counted as scored while no score appears.
    with openai_v2(recorder, logs, monkeypatch, capture=None, opt_in=opt_in):
        answer = ask(client, recorder.tracer, QUESTION)

    assert answer == ANSWER                          # the app itself works
    assert_names_the_switch(failure(recorder))
    assert logs.events() == {}


def test_event_only_sends_the_content_to_logs_and_is_an_error_naming_the_switch(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, client: OpenAI) -> None:
    with openai_v2(recorder, logs, monkeypatch, capture="event_only"):
        ask(client, recorder.tracer, QUESTION)

    # The answer was captured, as a log record, which a traces-only receiver never gets.
    details = logs.events()["gen_ai.client.inference.operation.details"]
    assert details["gen_ai.output.messages"][0]["parts"][0]["content"] == ANSWER
    error = failure(recorder)
    assert_names_the_switch(error)
    assert "/v1/logs, which ragmon does not receive" in str(error)


@pytest.mark.parametrize("opt_in", [None, LATEST])
def test_legacy_true_is_an_error_naming_the_switch(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, client: OpenAI,
        opt_in: str | None) -> None:
    # `true` selected log events on the v1.30 conventions; on the latest it is no mode at all and the
    # instrumentation records no content, on spans or in logs.
    with openai_v2(recorder, logs, monkeypatch, capture="true", opt_in=opt_in):
        ask(client, recorder.tracer, QUESTION)

    assert_names_the_switch(failure(recorder))
    assert logs.events() == {}


def test_failed_model_call_is_an_error_not_a_content_switch(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, api: FakeOpenAI,
        client: OpenAI) -> None:
    # Content captured, but the API answered 500: the call has no answer, and the error says it failed
    # rather than blaming the content switch.
    api.reply(Fail(500))
    with openai_v2(recorder, logs, monkeypatch, capture="span_only"):
        ask(client, recorder.tracer, QUESTION)       # the fixture's ANSWER
        recorder.exporter.clear()
        with pytest.raises(InternalServerError):
            ask(client, recorder.tracer, QUESTION)

    error = failure(recorder)

    assert error.span_name == CHAT_SPAN
    assert error.field == "status"
    assert "the model call failed" in str(error)
    assert "InternalServerError" in str(error)
    assert CAPTURE not in str(error)


def test_instrumentation_ends_with_its_block(
        recorder: Recorder, logs: Logs, monkeypatch: pytest.MonkeyPatch, api: FakeOpenAI,
        client: OpenAI) -> None:
    # After uninstrument() a call records no chat span: only the app's own retrieval and request spans.
    api.reply(ANSWER)
    with openai_v2(recorder, logs, monkeypatch, capture="span_only"):
        ask(client, recorder.tracer, QUESTION)
    recorder.exporter.clear()

    ask(client, recorder.tracer, QUESTION)

    assert sorted(span.name for span in recorder.trace().spans) == ["POST /ask", "retrieval store-policies"]
    example = extracted(recorder)
    assert (example.contexts, example.answer) == (CONTEXTS, None)
