"""Traces whose content was never recorded: an ExtractionError naming the span and the switch that turns
recording on, instead of an example with nothing to measure (which the sidecar would count as scored
while no score ever appears). Each misconfigured trace is checked next to its properly recorded twin,
which must still give an example.

OTel GenAI spans are written with the SDK under the reference's attribute names; OpenLLMetry and
OpenInference run their real LangChain instrumentors with their real switches.
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import pytest
from instrumented_apps import QUESTION, instrumenting, llama_index
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatResult
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable
from llama_index.core.llms import MockLLM
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.trace import SpanKind, Status, StatusCode
from test_openllmetry_instrumented import traceloop

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder

ANSWER = "The museum opens at 10 am on Sundays."
DOCUMENT = {"id": "hours-1", "score": 0.9, "content": "On Sundays the museum opens at 10 am."}
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only"
OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"
USER = {"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text",
                                                                         "content": QUESTION}]}])}
OUTPUT = {"gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": "stop",
                                                  "parts": [{"type": "text", "content": ANSWER}]}])}
DOCUMENTS = {"gen_ai.retrieval.query.text": QUESTION, "gen_ai.retrieval.documents": json.dumps([DOCUMENT])}
FAILED = {"error.type": "RateLimitError"}


def genai_request(recorder: Recorder, retrieval: dict[str, Any] | None, chat: dict[str, Any] | None,
                  *, root: dict[str, Any] | None = None, failed: str | None = None) -> None:
    """An app's request as OTel GenAI instrumentations record it: a server span around a retrieval span
    and a chat span, each with the given attributes on top of the ones they always carry (the content
    attributes are opt-in). `failed` names the span that ended with status ERROR."""
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER, attributes=root or {}):
        for name, attributes in (("retrieval museum-kb", retrieval), ("chat gpt-4o", chat)):
            if attributes is None:
                continue
            operation = "retrieval" if name.startswith("retrieval") else "chat"
            with tracer.start_as_current_span(name, kind=SpanKind.CLIENT) as span:
                span.set_attributes({"gen_ai.operation.name": operation, "gen_ai.provider.name": "openai",
                                     "gen_ai.data_source.id": "museum-kb", **attributes})
                if name == failed:
                    span.set_status(Status(StatusCode.ERROR))


def failure(trace: Trace) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(trace)
    return caught.value


# --- OTel GenAI ----------------------------------------------------------------------------------------


RAG = (DOCUMENTS, {**USER, **OUTPUT})
CONTEXTS = (Context("hours-1", DOCUMENT["content"], 0.9),)


@pytest.mark.parametrize(("unrecorded", "span", "attribute", "twin", "contexts", "answer"), [
    # Content off, the default: neither the documents nor the messages. The documents are read first.
    (({}, {}), "retrieval museum-kb", "gen_ai.retrieval.documents", RAG, CONTEXTS, ANSWER),
    # Messages captured, the opt-in documents not. The twin's retrieval found nothing: an empty list.
    (({}, {**USER, **OUTPUT}), "retrieval museum-kb", "gen_ai.retrieval.documents",
     ({"gen_ai.retrieval.documents": "[]"}, {**USER, **OUTPUT}), (), ANSWER),
    # Documents captured, the messages not (an event mode sent them to /v1/logs).
    ((DOCUMENTS, {}), "chat gpt-4o", "gen_ai.output.messages", RAG, CONTEXTS, ANSWER),
    # A search endpoint (no model call): its twin has documents and no answer (retrieval metrics).
    (({}, None), "retrieval museum-kb", "gen_ai.retrieval.documents", (DOCUMENTS, None), CONTEXTS, None),
    # A plain chat (no retrieval): its twin has an answer and no documents (answer relevance).
    ((None, {}), "chat gpt-4o", "gen_ai.output.messages", (None, {**USER, **OUTPUT}), None, ANSWER),
], ids=["content off", "no documents", "no messages", "search endpoint", "plain chat"])
def test_genai_content_not_on_the_spans_is_an_error_naming_both_switches(
        recorder: Recorder, unrecorded: tuple[dict[str, Any] | None, dict[str, Any] | None], span: str,
        attribute: str, twin: tuple[dict[str, Any] | None, dict[str, Any] | None],
        contexts: tuple[Context, ...] | None, answer: str | None) -> None:
    genai_request(recorder, *unrecorded)
    genai_request(recorder, *twin)
    [off, on] = recorder.traces()

    error = failure(off)
    example = extract(on)

    assert (error.span_name, error.field) == (span, attribute)
    message = str(error)
    assert CAPTURE in message and OPT_IN in message
    assert "/v1/logs, which ragmon does not receive" in message
    assert ("opt-in" in message) is (attribute == "gen_ai.retrieval.documents")
    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, contexts, answer)


def test_the_app_s_own_attributes_stand_in_for_unrecorded_content(recorder: Recorder) -> None:
    # Content off, but the app records the documents and the answer itself (ragmon.instrument).
    own = {"ragmon.contexts": json.dumps([{"id": "hours-1", "text": DOCUMENT["content"]}]),
           "ragmon.answer": ANSWER}
    genai_request(recorder, {}, {}, root=own)
    genai_request(recorder, {}, {}, root={"ragmon.answer": ANSWER})
    [own_both, own_answer] = recorder.traces()

    example = extract(own_both)

    assert example is not None
    assert (example.contexts, example.answer) == ((Context("hours-1", DOCUMENT["content"]),), ANSWER)
    assert failure(own_answer).field == "gen_ai.retrieval.documents"


def test_a_failed_model_call_has_no_answer_to_score(recorder: Recorder) -> None:
    genai_request(recorder, DOCUMENTS, {**USER, **FAILED}, failed="chat gpt-4o")

    error = failure(recorder.trace())

    assert (error.span_name, error.field) == ("chat gpt-4o", "status")
    assert str(error).endswith(
        "the model call failed: no answer to score (status ERROR, error.type 'RateLimitError')")


def test_a_failed_retrieval_has_no_documents_to_know_of(recorder: Recorder) -> None:
    # The retrieval raised (status ERROR): no documents, and nothing about content capture to fix; the
    # same span ending well without them is the content error.
    genai_request(recorder, {}, {**USER, **OUTPUT}, failed="retrieval museum-kb")
    genai_request(recorder, {}, {**USER, **OUTPUT})
    [failed, unrecorded] = recorder.traces()

    example = extract(failed)

    assert example is not None
    assert (example.contexts, example.answer) == (None, ANSWER)
    assert failure(unrecorded).field == "gen_ai.retrieval.documents"


def test_a_call_whose_output_has_no_text_is_no_content_error(recorder: Recorder) -> None:
    # The model asked for a tool: its output is recorded, it just holds no text. The same call with
    # nothing recorded is the content error.
    tool_call = {"gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": "tool_call",
                                                       "parts": [{"type": "tool_call", "name": "search"}]}])}
    genai_request(recorder, DOCUMENTS, {**USER, **tool_call})
    genai_request(recorder, DOCUMENTS, USER)
    [asked_for_a_tool, unrecorded] = recorder.traces()

    example = extract(asked_for_a_tool)

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, None)
    assert failure(unrecorded).field == "gen_ai.output.messages"


# --- OpenLLMetry (real LangChain instrumentor) ----------------------------------------------------------


def plain_chat() -> Runnable[dict[str, str], str]:
    """A model call without retrieval, so the answer is the only content at stake."""
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    return prompt | FakeListChatModel(responses=[ANSWER]) | StrOutputParser()


def test_openllmetry_with_content_off_names_traceloop_trace_content(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # The instrumentor reads TRACELOOP_TRACE_CONTENT at each call, so the second run records content.
    with traceloop(recorder.provider):
        monkeypatch.setenv("TRACELOOP_TRACE_CONTENT", "false")
        plain_chat().invoke({"question": QUESTION})
        monkeypatch.delenv("TRACELOOP_TRACE_CONTENT")
        plain_chat().invoke({"question": QUESTION})

    [off, on] = recorder.traces()
    error = failure(off)
    assert (error.span_name, error.field) == ("FakeListChatModel.chat", "gen_ai.output.messages")
    assert "TRACELOOP_TRACE_CONTENT=true" in str(error)
    assert "OTEL_INSTRUMENTATION_GENAI" not in str(error)  # the GenAI switches do not apply
    example = extract(on)
    assert example is not None
    assert (example.question, example.answer) == (QUESTION, ANSWER)


# --- OpenInference (real LangChain instrumentor) --------------------------------------------------------


def openinference(recorder: Recorder, monkeypatch: pytest.MonkeyPatch,
                  **env: str) -> AbstractContextManager[None]:
    """The instrumentor on `recorder` with the given environment, which it reads when instrumenting."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return instrumenting(recorder.provider, LangChainInstrumentor())


def test_openinference_hidden_outputs_name_the_hide_switches(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # OPENINFERENCE_HIDE_OUTPUTS drops the output messages and redacts output.value on every span, the
    # chain's included: no answer anywhere.
    with openinference(recorder, monkeypatch, OPENINFERENCE_HIDE_OUTPUTS="true"):
        plain_chat().invoke({"question": QUESTION})

    error = failure(recorder.trace())

    assert (error.span_name, error.field) == ("FakeListChatModel", "llm.output_messages")
    assert "OPENINFERENCE_HIDE_OUTPUTS" in str(error)


def test_openinference_hidden_output_messages_leave_the_answer_in_the_output_value(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # OPENINFERENCE_HIDE_OUTPUT_MESSAGES drops only llm.output_messages: a model called on its own (no
    # chain around it) still records its LLMResult, whose first generation is the answer.
    with openinference(recorder, monkeypatch, OPENINFERENCE_HIDE_OUTPUT_MESSAGES="true"):
        FakeListChatModel(responses=[ANSWER]).invoke(QUESTION)

    example = extract(recorder.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, ANSWER)


class Overloaded(BaseChatModel):
    """A provider that refuses every call, as an overloaded API does."""

    @property
    def _llm_type(self) -> str:
        return "overloaded"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        raise RuntimeError("the model is overloaded")


def test_openinference_failed_model_call_has_no_answer_but_a_fallback_does(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    with openinference(recorder, monkeypatch):
        with pytest.raises(RuntimeError):
            (prompt | Overloaded() | StrOutputParser()).invoke({"question": QUESTION})
        # The same call with a fallback model: the app answered after all.
        fallback = Overloaded().with_fallbacks([FakeListChatModel(responses=[ANSWER])])
        (prompt | fallback | StrOutputParser()).invoke({"question": QUESTION})

    [failed, recovered] = recorder.traces()
    error = failure(failed)
    assert (error.span_name, error.field) == ("Overloaded", "status")
    assert "the model call failed: no answer to score" in str(error)
    example = extract(recovered)
    assert example is not None
    assert example.answer == ANSWER


def test_a_call_recorded_by_two_conventions_names_the_switch_of_each(recorder: Recorder) -> None:
    # OpenInference's span around a GenAI provider span (two instrumentations of one call), the first
    # with outputs hidden, the second capturing none: recording on either would give the answer.
    tracer = recorder.tracer
    with tracer.start_as_current_span("ChatOpenAI", attributes={"openinference.span.kind": "LLM",
                                                                "output.value": "__REDACTED__"}), \
            tracer.start_as_current_span("chat gpt-4o", attributes={"gen_ai.operation.name": "chat"}):
        pass

    error = failure(recorder.trace())

    assert (error.span_name, error.field) == ("chat gpt-4o", "gen_ai.output.messages")
    assert CAPTURE in str(error) and "OPENINFERENCE_HIDE_OUTPUTS" in str(error)


WRITER = "StreamingAgentChatResponse.write_response_to_history"


@pytest.mark.parametrize("mode", ["simple", "context"])
def test_llamaindex_streaming_chat_is_no_content_error(llamaindex: Recorder, mode: str) -> None:
    # stream_chat writes the streamed answer to the chat memory in a thread of its own, in a span typed
    # LLM (the stream's end events fire in it) that records no model, no messages and no output: it says
    # nothing about content capture. It lands in the request's trace or, racing the request's span, in a
    # trace of its own (not_rag then). The model's own spans record the answer: MockLLM streams "text".
    index = llama_index()
    llamaindex.exporter.clear()
    engine = index.as_chat_engine(chat_mode=mode, llm=MockLLM(max_tokens=12), similarity_top_k=2)
    for _ in engine.stream_chat(QUESTION).response_gen:
        pass
    deadline = time.monotonic() + 10
    while WRITER not in {span.name for span in llamaindex.exporter.get_finished_spans()}:
        assert time.monotonic() < deadline, f"no {WRITER} span within 10 s"
        time.sleep(0.01)

    examples = [example for example in map(extract, llamaindex.traces()) if example is not None]

    [example] = examples
    assert example.question == QUESTION
    assert example.answer is not None and set(example.answer.split()) == {"text"}
    # The context engine retrieves 2 of the 3 documents; the simple engine retrieves nothing.
    assert len(example.contexts or ()) == (2 if mode == "context" else 0)


def test_a_failed_model_call_that_recorded_only_its_input_is_still_the_call(recorder: Recorder) -> None:
    # A minimal OpenInference LLM span: its kind and input, no llm.* attribute, and it raised. It is the
    # model call that left the answer missing, not a stray span to pass over (the trace was "scored"
    # with its documents and no answer, nothing measured).
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieve", attributes={
                "openinference.span.kind": "RETRIEVER", "input.value": QUESTION,
                "retrieval.documents.0.document.id": "hours-1",
                "retrieval.documents.0.document.content": DOCUMENT["content"]}):
            pass
        with tracer.start_as_current_span("generate", attributes={
                "openinference.span.kind": "LLM", "input.value": QUESTION}) as llm:
            llm.set_status(Status(StatusCode.ERROR, "overloaded"))

    error = failure(recorder.trace())

    assert (error.span_name, error.field) == ("generate", "status")
    assert str(error).endswith("the model call failed: no answer to score (status ERROR)")


def test_a_retried_call_that_asked_for_a_tool_is_no_failure(recorder: Recorder) -> None:
    # An LLM span around its attempts (a client's retries, each a span of its own): the first attempt
    # failed, the second asked for a tool, and the call records that output. No text, no failure; with
    # documents the trace is scored on them (as a search endpoint), without it has nothing to score.
    tool_call = json.dumps([{"role": "assistant", "finish_reason": "tool_call",
                             "parts": [{"type": "tool_call", "name": "search"}]}])
    tracer = recorder.tracer
    for retrieval in (DOCUMENTS, None):
        with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
            if retrieval is not None:
                with tracer.start_as_current_span("retrieval museum-kb", attributes={
                        "gen_ai.operation.name": "retrieval", **retrieval}):
                    pass
            with tracer.start_as_current_span("chat gpt-4o", attributes={
                    "gen_ai.operation.name": "chat", **USER, "gen_ai.output.messages": tool_call}):
                for attempt, status in enumerate((StatusCode.ERROR, StatusCode.OK)):
                    with tracer.start_as_current_span(f"attempt {attempt}", attributes={
                            "gen_ai.operation.name": "chat", **USER}) as span:
                        span.set_status(Status(status))
    [searched, only_asked] = recorder.traces()

    example = extract(searched)
    error = failure(only_asked)

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, None)
    assert (error.span_name, error.field) == ("POST /ask", "documents and answer")
    assert str(error).endswith("the request recorded neither documents nor an answer: nothing to score")


def test_the_anthropic_sdks_own_spans_without_content_name_its_switch(recorder: Recorder) -> None:
    # What the anthropic SDK's own span holds by default (recorded from anthropic 2.15 against a fake API):
    # GenAI attributes, no messages. The error had named the OTel GenAI switches, which it does not read.
    sdk = recorder.provider.get_tracer("com.anthropic.sdk.python")
    with recorder.tracer.start_as_current_span("ask", attributes={"ragmon.question": QUESTION}), \
            sdk.start_as_current_span("anthropic.messages.create", kind=SpanKind.CLIENT, attributes={
                "gen_ai.provider.name": "anthropic", "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "claude-grounded", "anthropic.message.stop_reason": "end_turn"}):
        pass

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content" in str(caught.value)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" not in str(caught.value)
