"""Traces of a Node.js RAG app as OpenTelemetry JS's exporters sent them (tests/js_apps.py): LangChain.js
under OpenInference's JS instrumentor read as the same chain in Python under the Python instrumentor, the
Vercel AI SDK's telemetry, and OTel GenAI spans written by hand."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from js_apps import CONTEXTS, CORPUS, GROUNDED, MADE_UP, QUESTION, STRUCTURED, capture
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from opentelemetry.trace import SpanKind

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.semconv.extract import UNASKED, ExtractionError, extract, request_count, unasked_note
from ragmon.traces import Span, Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder


class CorpusRetriever(BaseRetriever):
    """app.mjs's retriever: every document of the corpus, in its order."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self.documents


def python_chain(langchain: Recorder, answer: str, documents: list[Document]) -> Example:
    """app.mjs's chain in Python, run under the Python instrumentor, and its trace read."""
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the numbered context only.\n{context}"), ("human", "{question}")])
    numbered = RunnableLambda(
        lambda docs: "\n".join(f"[{n}] {doc.page_content}" for n, doc in enumerate(docs, 1)))
    chain = ({"context": CorpusRetriever(documents=documents) | numbered, "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
    assert chain.invoke(QUESTION) == answer
    example = extract(langchain.trace())
    assert example is not None
    return example


def read_alike(js: Example, python: Example) -> None:
    """The same example, and the same figures from the lexical judge, but for the trace id and pipeline."""
    assert (js.question, js.contexts, js.answer, js.citations) == (
        python.question, python.contexts, python.answer, python.citations)
    judge = LexicalJudge()
    assert evaluate_example(js, judge, 5).metrics == evaluate_example(python, judge, 5).metrics


@pytest.mark.parametrize(("name", "answer"), [
    ("langchain-proto-gzip", GROUNDED), ("langchain-json", MADE_UP), ("langchain-grpc-gzip", GROUNDED)])
def test_a_langchain_js_chain_reads_as_the_same_python_chain(langchain: Recorder, name: str,
                                                             answer: str) -> None:
    js = capture(name)

    example = extract(js.trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, answer)
    assert example.citations == ("kb-refunds",)  # "[1]"
    assert example.pipeline == js.service
    documents = [Document(id=doc_id, page_content=text, metadata={"id": doc_id})
                 for doc_id, text in CORPUS.items()]
    read_alike(example, python_chain(langchain, answer, documents))


def test_a_langchain_js_document_is_named_by_its_id(langchain: Recorder) -> None:
    # Documents with a Document.id and no metadata, as a JS vector store returns them: LangChain.js lists
    # them in the retriever's output.value as {"pageContent", "metadata", "id"}, Python's as
    # {"page_content", ...}. Read as Python's only, each was named by its content hash ("doc-4498c5cf"),
    # in the capture, the exemplars and the citations, where the Python app's had their ids.
    example = extract(capture("langchain-document-id").trace())

    assert example is not None
    assert [context.id for context in example.contexts] == ["kb-refunds", "kb-shipping", "kb-support"]
    assert example.citations == ("kb-refunds",)
    documents = [Document(id=doc_id, page_content=text) for doc_id, text in CORPUS.items()]
    read_alike(example, python_chain(langchain, GROUNDED, documents))


SCORED = tuple(Context(doc_id, text, 1 - n / 2) for n, (doc_id, text) in enumerate(CORPUS.items()))
"""The documents of the GenAI retrieval span the app writes by hand, with its scores (1, 0.5 and 0, which
JSON.stringify writes `1` and `0`: whole numbers)."""


def test_the_ai_sdks_model_call_answers() -> None:
    # generateText under experimental_telemetry: an ai.generateText span holding one
    # ai.generateText.doGenerate, which records the messages in ai.prompt.messages and the reply in
    # ai.response.text. Unread, the trace had documents and no model call: scored as a search endpoint, its
    # made-up answer never judged.
    example = extract(capture("aisdk-proto").trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, MADE_UP)
    assert example.citations == ("kb-refunds",)
    metrics = evaluate_example(example, LexicalJudge(), 5).metrics
    assert metrics["groundedness"] == 0.0  # neither sentence is in a document


def test_genai_spans_written_in_js_are_read() -> None:
    example = extract(capture("genai-json").trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, MADE_UP)
    assert example.citations == ("kb-refunds",)


AI_PROMPT = json.dumps([
    {"role": "system", "content": f"Answer from the numbered context only.\n[1] {CORPUS['kb-refunds']}"},
    {"role": "user", "content": [{"type": "text", "text": QUESTION}]}])
"""The messages a provider call is sent, as the AI SDK records them."""


def ai_sdk_step(recorder: Recorder, prompt: str | None = AI_PROMPT, *,
                operation: str = "ai.generateText.doGenerate", **attributes: str) -> None:
    """A provider call's span (`operation`) as the AI SDK writes it: `prompt` (None: recordInputs false) and
    `attributes`."""
    recorded = {} if prompt is None else {"ai.prompt.messages": prompt}
    with recorder.tracer.start_as_current_span(operation, attributes={
            "ai.operationId": operation, "gen_ai.system": "openai.chat", **recorded, **attributes}):
        pass


def test_the_ai_sdks_last_step_answers_not_the_one_asking_for_a_tool(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER), \
            tracer.start_as_current_span("ai.generateText", attributes={"ai.operationId": "ai.generateText",
                                                                         "ai.response.text": GROUNDED}):
        ai_sdk_step(recorder, **{"ai.response.text": "Let me look that up.", "ai.response.toolCalls":
                                 '[{"toolCallId":"c1","toolName":"lookup","input":"{}"}]'})
        ai_sdk_step(recorder, **{"ai.response.text": GROUNDED})

    example = extract(recorder.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, GROUNDED)


@pytest.mark.parametrize("name", ["aisdk-object", "aisdk-stream-object"])
def test_the_ai_sdks_object_call_answers(name: str) -> None:
    # generateObject's provider call, ai.generateObject.doGenerate, records the model's JSON in
    # ai.response.object (streamObject's, ai.streamObject.doStream, the object it parsed): unread, the trace
    # had documents and no model call, scored as a search endpoint, its made-up sentence never judged.
    example = extract(capture(name).trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, STRUCTURED)
    assert example.citations == ("kb-refunds",)  # "sources": [1], the prompt's "[1]"
    result = evaluate_example(example, LexicalJudge(), 5)
    assert [verdict.claim.text for verdict in result.verdicts if not verdict.supported] == [
        "Refunds are paid in gold coins."]
    assert result.metrics["groundedness"] == 0.5
    assert result.metrics["citation_accuracy"] == 1.0


def test_an_ai_sdk_object_call_recording_no_output_names_its_attribute(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        ai_sdk_step(recorder, operation="ai.streamObject.doStream")

    with pytest.raises(ExtractionError) as raised:
        extract(recorder.trace())

    assert raised.value.field == "ai.response.object"
    assert "recordOutputs: false" in str(raised.value)


def test_an_ai_sdk_object_cut_short_is_an_error_not_text_to_judge(recorder: Recorder) -> None:
    # An attribute length limit cut the object's JSON: judged as the text left, its lost sources and any
    # made-up sentence past the cut would go unseen.
    cut = json.dumps({"answer": GROUNDED, "sources": [1]})[:48]
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        ai_sdk_step(recorder, operation="ai.generateObject.doGenerate", **{"ai.response.object": cut})

    with pytest.raises(ExtractionError) as raised:
        extract(recorder.trace())

    assert raised.value.field == "answer"
    assert "the answer is 48 characters long, the length this service's JSON attributes were cut to" in str(
        raised.value)


def test_an_ai_sdk_call_recording_no_output_names_its_switch(recorder: Recorder) -> None:
    # experimental_telemetry: {recordOutputs: false}
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        ai_sdk_step(recorder)

    with pytest.raises(ExtractionError) as raised:
        extract(recorder.trace())

    assert raised.value.field == "ai.response.text"
    assert "recordOutputs: false" in str(raised.value)


@pytest.mark.parametrize(("prompt", "note"), [
    (None, "the model call 'ai.generateText.doGenerate' records no input, so no question is known: the AI"),
    (json.dumps([{"role": "system", "content": "Answer briefly."}]), UNASKED)])
def test_an_ai_sdk_call_without_a_question_says_why(recorder: Recorder, prompt: str | None,
                                                   note: str) -> None:
    # recordInputs: false names its switch; a prompt recorded without a user turn is no missing record.
    ai_sdk_step(recorder, prompt, **{"ai.response.text": GROUNDED})
    trace = recorder.trace()

    example = extract(trace)

    assert example is not None and (example.question, example.answer) == ("", GROUNDED)
    assert unasked_note(trace).startswith(note)


MILLISECOND = 1_000_000


def root_of(trace: Trace) -> Span:
    root, = (span for span in trace.spans if span.parent_span_id is None)
    return root


def moved_after(first: Trace, second: Trace, gap: int, parent: str) -> list[Span]:
    """The second captured run's spans in the first's trace, its root under `parent`, moved to start `gap`
    ns after the whole millisecond in which the first run ended, as OpenTelemetry JS stamps a start
    (`Date.now()`, then the end as that start plus the measured duration); its span ids made its own."""
    shift = (root_of(first).end_time_unix_nano // MILLISECOND * MILLISECOND + gap
             - root_of(second).start_time_unix_nano)
    own = {span.span_id: f"{int(span.span_id, 16) ^ 1:016x}" for span in second.spans}
    return [replace(span, trace_id=first.trace_id, span_id=own[span.span_id],
                    parent_span_id=own.get(span.parent_span_id or "", parent),
                    start_time_unix_nano=span.start_time_unix_nano + shift,
                    end_time_unix_nano=span.end_time_unix_nano + shift) for span in second.spans]


def server_span(run: Span, span_id: str, parent: str | None) -> Span:
    """A request's server span around the run whose root is `run`, from its start to its end."""
    return replace(run, span_id=span_id, parent_span_id=parent, name="POST /ask", kind=2, attributes={})


def run_after(first: Trace, second: Trace, gap: int) -> Trace:
    """The two captured runs of the chain as one request's, under a server span, the second `moved_after`."""
    server = "00000000000000aa"
    moved = moved_after(first, second, gap, server)
    kept = [replace(span, parent_span_id=span.parent_span_id or server) for span in first.spans]
    request = replace(server_span(root_of(first), server, None),
                      end_time_unix_nano=max(span.end_time_unix_nano for span in moved))
    return Trace(first.trace_id, (request, *kept, *moved))


def test_a_langchain_js_chain_run_again_within_the_millisecond_the_first_run_ended_is_a_retry() -> None:
    # The app ran its chain twice, the second run begun after the first ended, in the same millisecond:
    # its start, a whole millisecond, is before the first run's end. Read as two runs side by side, an
    # error (1 run in 20 of a real LangChain.js app); a Python app's was scored.
    first, second = capture("langchain-proto-gzip").trace(), capture("langchain-json").trace()
    assert all(span.start_time_unix_nano % MILLISECOND == 0 for span in (*first.spans, *second.spans))

    example = extract(run_after(first, second, 0))

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, MADE_UP)


def test_a_langchain_js_chain_begun_a_millisecond_before_the_first_ended_is_beside_it() -> None:
    first, second = capture("langchain-proto-gzip").trace(), capture("langchain-json").trace()

    with pytest.raises(ExtractionError, match="2 chains of this trace each retrieved and answered, side by"):
        extract(run_after(first, second, -MILLISECOND))


def kept_context(first: Trace, second: Trace, gap: int) -> Trace:
    """The two captured runs of the chain as two requests of a build keeping the first request's context
    for the next (live replay's `inside-first-span` build): each run under a server span of its own, the
    second, `moved_after`, a child of the first's, which had ended."""
    servers = ("00000000000000aa", "00000000000000bb")
    moved = moved_after(first, second, gap, servers[1])
    kept = [replace(span, parent_span_id=span.parent_span_id or servers[0]) for span in first.spans]
    requests = (server_span(root_of(first), servers[0], None),
                server_span(moved[second.spans.index(root_of(second))], servers[1], servers[0]))
    return Trace(first.trace_id, (*requests, *kept, *moved))


@pytest.mark.parametrize(("gap", "requests"), [(0, 2), (-MILLISECOND, 1)])
def test_a_request_begun_within_the_millisecond_an_ended_one_ended_is_a_request_of_its_own(
        gap: int, requests: int) -> None:
    # A build keeping the first request's context: the second request's spans nest under the first's
    # server span, which had ended before it began, in the same millisecond: its start, a whole
    # millisecond, is before that end. Counted as one request, live replay did not name the kept context.
    # Begun a whole millisecond before that end, it may be the first request's own work: one.
    first, second = capture("langchain-proto-gzip").trace(), capture("langchain-json").trace()

    assert request_count(kept_context(first, second, gap)) == requests


def chat(recorder: Recorder, numbered: list[str], output: str, start: int, end: int) -> None:
    """An OTel GenAI chat span written by hand in JS, given `numbered` documents, from `start` to `end`."""
    system = "Answer from the numbered context only.\n" + "\n".join(
        f"[{n}] {CORPUS[doc_id]}" for n, doc_id in enumerate(numbered, 1))
    def message(role: str, text: str) -> str:
        return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])

    span = recorder.tracer.start_span("chat fake-model", kind=SpanKind.CLIENT, start_time=start, attributes={
        "gen_ai.operation.name": "chat",
        "gen_ai.system_instructions": json.dumps([{"type": "text", "content": system}]),
        "gen_ai.input.messages": message("user", QUESTION),
        "gen_ai.output.messages": message("assistant", output)})
    span.end(end_time=end)


def test_a_call_given_a_rankings_choice_within_the_millisecond_it_ended_answers_from_it(
        recorder: Recorder) -> None:
    # A model ranks the documents, then another is given the first: asked once the ranking ended, in the
    # same millisecond, its start (a whole millisecond, as OpenTelemetry JS stamps it) is before that end.
    t = 1_800_000_000_000 * MILLISECOND
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER, start_time=t):
        documents = json.dumps([{"id": doc_id, "content": text} for doc_id, text in CORPUS.items()])
        retrieval = recorder.tracer.start_span("retrieval kb", kind=SpanKind.CLIENT, start_time=t,
                                               attributes={"gen_ai.operation.name": "retrieval",
                                                           "gen_ai.retrieval.documents": documents})
        retrieval.end(end_time=t + 400_000)
        chat(recorder, list(CORPUS), "Ranking: 1, 3, 2", t + MILLISECOND, t + 2 * MILLISECOND + 600_000)
        chat(recorder, ["kb-refunds"], GROUNDED, t + 2 * MILLISECOND, t + 3 * MILLISECOND)

    example = extract(recorder.trace())

    assert example is not None
    assert (example.answer, example.contexts) == (GROUNDED, CONTEXTS[:1])
