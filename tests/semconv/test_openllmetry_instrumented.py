"""Real LangChain pipelines (langchain-core, offline) under Traceloop's OpenLLMetry LangChain instrumentor.

What the instrumentor writes (0.62.x): the root chain `RunnableSequence.workflow` (`traceloop.span.kind`
workflow, `gen_ai.operation.name` invoke_agent) with `traceloop.entity.input` `{"inputs": ...}` and
`traceloop.entity.output` `{"outputs": ...}`; `execute_task <name>` task spans; the retriever
`vector_db_retrieve <name>` with the query in the entity input and `{"documents": [{"page_content",
"metadata"}], "count"}` in the entity output; the chat model `<Class>.chat` with `gen_ai.input.messages`,
`gen_ai.system_instructions` and `gen_ai.output.messages`.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import pytest
from agent_apps import support_agent
from instrumented_apps import LANGCHAIN_ANSWER, LANGCHAIN_CORPUS, QUESTION, RagChain, langchain_contexts
from langchain_core.callbacks import BaseCallbackManager, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage
from langchain_core.output_parsers import JsonOutputParser, StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from opentelemetry.instrumentation.langchain import LangchainInstrumentor
from opentelemetry.instrumentation.utils import unwrap
from opentelemetry.sdk.trace import SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

RETRIEVER_SPAN = "vector_db_retrieve VectorStoreRetriever"


@contextmanager
def traceloop(provider: TracerProvider, **options: Any) -> Iterator[None]:
    """The instrumentor on `provider` for one block. Its uninstrument() leaves LangChain hooked: it unwraps
    `BaseCallbackManager.__init__` by a dotted path that `unwrap` cannot resolve (a silent no-op), so a
    later instrument() stacks a second hook behind the first and every later chain in the process reports
    to the first provider. The hook is removed here as well."""
    instrumentor = LangchainInstrumentor(**options)
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()
        unwrap(BaseCallbackManager, "__init__")


@pytest.fixture
def instrumented(recorder: Recorder) -> Iterator[Recorder]:
    with traceloop(recorder.provider):
        yield recorder


def test_lcel_chain_question_documents_answer_and_citation(instrumented: Recorder) -> None:
    rag = RagChain()
    answer = rag.chain.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert answer == LANGCHAIN_ANSWER
    assert example.question == QUESTION
    # The three documents the prompt was numbered with, in rank order; each id from metadata names
    # its own corpus text.
    assert len(rag.used) == 3
    assert example.contexts == langchain_contexts(rag.used)
    assert all(LANGCHAIN_CORPUS[context.id] == context.text for context in example.contexts or ())
    assert example.answer == LANGCHAIN_ANSWER
    # "[1]" in the answer is the first numbered document.
    assert example.citations == (rag.used[0].metadata["id"],)
    assert example.pipeline == instrumented.service


def test_a_chain_ending_in_a_json_parser_cites_the_sources_of_its_output(instrumented: Recorder) -> None:
    # The workflow's entity output is {"outputs": {"answer": ..., "sources": [...]}}: its answer was read,
    # its sources were not (no citations).
    answer = "Support is available by chat around the clock."
    rag = RagChain(json.dumps({"answer": answer, "sources": ["kb-support"], "confidence": 0.8}),
                   JsonOutputParser())
    rag.chain.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert example.contexts == langchain_contexts(rag.used)
    assert [context.id for context in example.contexts or ()] == ["kb-warranty", "kb-support", "kb-shipping"]
    assert (example.answer, example.citations) == (answer, ("kb-support",))


def test_a_batch_of_questions_nested_in_one_trace_is_an_error_naming_them(instrumented: Recorder) -> None:
    # OpenLLMetry runs each question of chain.batch as a workflow inside the previous one's: one trace,
    # one top chain. Its first answer was scored alone, the other answers (made up or not) never.
    rag = RagChain()
    # In a context of its own: the instrumentation leaves its last workflow current when the batch ends,
    # and every later span in this thread would be that workflow's child.
    questions = [QUESTION, "How long is the warranty?", "Is shipping free?"]
    contextvars.copy_context().run(rag.chain.batch, questions)
    [trace] = instrumented.traces()
    workflows = [span for span in trace.spans if span.attributes.get("traceloop.span.kind") == "workflow"]
    assert len(workflows) == 3 and sum(span.parent_span_id is None for span in workflows) == 1

    with pytest.raises(ExtractionError, match=r"3 OpenLLMetry workflows of this trace, each inside the "
                                              r"one before, each retrieved and answered: 'RunnableSequence"):
        extract(trace)


def test_two_chains_invoked_in_turn_in_one_request_are_read_as_a_retry(instrumented: Recorder) -> None:
    # Two workflows side by side under the request's span, one after the other: no batch, and the last
    # is the example (the batch check had taken them for nested ones and refused the trace).
    rag = RagChain()
    with instrumented.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        rag.chain.invoke("How long is the warranty?")
        rag.chain.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, LANGCHAIN_ANSWER)
    assert example.contexts == langchain_contexts(rag.used[3:])


def test_one_chain_invoked_alone_is_one_workflow_and_scored(instrumented: Recorder) -> None:
    # The same chain invoked once per question: a trace each, each scored.
    rag = RagChain()
    for question in (QUESTION, "How long is the warranty?"):
        rag.chain.invoke(question)
    examples = [extract(trace) for trace in instrumented.traces()]
    assert [example.question for example in examples if example] == [QUESTION, "How long is the warranty?"]


def test_streamed_chain(instrumented: Recorder) -> None:
    # The workflow's output is the whole streamed answer, not its last chunk.
    rag = RagChain()
    chunks = list(rag.chain.stream(QUESTION))

    example = extract(instrumented.trace())

    assert example is not None
    assert len(chunks) > 1
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(rag.used)
    assert example.answer == LANGCHAIN_ANSWER


async def test_async_chain(instrumented: Recorder) -> None:
    rag = RagChain()
    await rag.chain.ainvoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(rag.used)
    assert example.answer == LANGCHAIN_ANSWER


def test_retrieval_chain_with_mapping_input_and_output(instrumented: Recorder) -> None:
    # The shape of LangChain's create_retrieval_chain: {"input"} in, {"input", "context", "answer"} out,
    # the documents serialised into the workflow output among the answer's siblings.
    answer = "Refunds are accepted for 30 days after delivery."
    retriever = RagChain().retriever
    prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{input}")])

    def joined(inputs: dict[str, Any]) -> str:
        return "\n".join(doc.page_content for doc in inputs["context"])

    chain = (RunnablePassthrough.assign(context=itemgetter("input") | retriever)
             .assign(answer=RunnablePassthrough.assign(context=RunnableLambda(joined)) | prompt
                     | FakeListChatModel(responses=[answer]) | StrOutputParser()))
    result = chain.invoke({"input": QUESTION})

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == answer
    assert example.contexts == langchain_contexts(result["context"])


def test_retriever_alone_gives_question_and_documents(instrumented: Recorder) -> None:
    retriever = RagChain().retriever
    docs = retriever.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    # No chain: the question is the retriever's query, and nothing was generated.
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(docs)
    assert example.answer is None


def test_retrieval_that_found_nothing_is_known_empty(instrumented: Recorder) -> None:
    empty = InMemoryVectorStore(DeterministicFakeEmbedding(size=8)).as_retriever()
    assert empty.invoke(QUESTION) == []

    example = extract(instrumented.trace())

    assert example is not None
    assert example.contexts == ()


class Unreachable(BaseRetriever):
    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        raise ConnectionError("vector store unreachable")


def test_retrieval_that_raised_fails_the_request_not_content_tracing(instrumented: Recorder) -> None:
    # The failed retriever span has no output and an ERROR status: no documents to know of, and nothing
    # about content tracing to fix. The workflow failed with it and left no answer: the request failed,
    # an error naming the workflow (it was "scored" with neither documents nor an answer).
    chain = Unreachable() | RunnableLambda(lambda docs: len(docs))
    with pytest.raises(ConnectionError):
        chain.invoke(QUESTION)

    with pytest.raises(ExtractionError) as caught:
        extract(instrumented.trace())

    assert (caught.value.span_name, caught.value.field) == ("RunnableSequence.workflow", "status")
    assert str(caught.value).endswith(
        "the request failed: no answer to score (status ERROR, error.type 'ConnectionError')")


@pytest.mark.parametrize(("content_env", "options"), [
    ("false", {}),                             # content tracing off
    (None, {"use_attributes": False}),         # content sent as log events, not span attributes
])
def test_unrecorded_documents_are_an_error_naming_the_setting(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch,
        content_env: str | None, options: dict[str, Any]) -> None:
    # Either way the retriever span ends without documents: scoring the trace would lose them silently.
    if content_env is not None:
        monkeypatch.setenv("TRACELOOP_TRACE_CONTENT", content_env)
    with traceloop(recorder.provider, **options):
        RagChain().chain.invoke(QUESTION)

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert caught.value.span_name == RETRIEVER_SPAN
    assert caught.value.field == "traceloop.entity.output"
    assert "TRACELOOP_TRACE_CONTENT" in str(caught.value)
    assert "use_attributes" in str(caught.value)


def test_the_app_s_own_contexts_stand_in_for_documents_it_did_not_record(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # Content tracing off, but the app records what it retrieved and answered itself (ragmon.instrument's
    # ragmon.contexts and ragmon.answer, on its request span): those are read, not an error.
    monkeypatch.setenv("TRACELOOP_TRACE_CONTENT", "false")
    own = {"ragmon.contexts": json.dumps([{"id": "own-1", "text": "Refunds take 30 days."}]),
           "ragmon.answer": "Refunds take 30 days."}
    with traceloop(recorder.provider), recorder.tracer.start_as_current_span("POST /ask", attributes=own):
        RagChain().chain.invoke(QUESTION)

    example = extract(recorder.trace())

    assert example is not None
    assert (example.contexts, example.answer) == (
        (Context("own-1", "Refunds take 30 days."),), "Refunds take 30 days.")


def test_documents_cut_by_the_sdk_attribute_limit_are_an_error(recorder: Recorder) -> None:
    # The app's attribute length limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT) cuts the documents JSON at
    # 200 characters; the three documents' JSON is longer than that.
    limited = TracerProvider(span_limits=SpanLimits(max_attribute_length=200))
    limited.add_span_processor(SimpleSpanProcessor(recorder.exporter))
    try:
        with traceloop(limited):
            RagChain().chain.invoke(QUESTION)
    finally:
        limited.shutdown()

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert caught.value.span_name == RETRIEVER_SPAN
    assert caught.value.field == "traceloop.entity.output"
    assert "cut at 200 characters" in str(caught.value)


def test_instrumentation_ends_with_its_block(recorder: Recorder) -> None:
    # Two instrumented runs on two providers, one run after both: each provider gets exactly its own
    # trace. Without the extra unwrap the second run would report to the first provider.
    second = type(recorder)()
    try:
        with traceloop(recorder.provider):
            RagChain().chain.invoke(QUESTION)
        with traceloop(second.provider):
            RagChain().chain.invoke(QUESTION)
        RagChain().chain.invoke(QUESTION)

        assert len(recorder.traces()) == 1
        assert len(second.traces()) == 1
    finally:
        second.provider.shutdown()


@pytest.mark.parametrize("answer", ["You can ask for a refund within 30 days of delivery, so until 30 May.",
                                    "Until 30 May."])
def test_an_agents_answer_is_its_last_turn_not_a_tool_calls_announcement(instrumented: Recorder,
                                                                            answer: str) -> None:
    # The same agent as under OpenInference: here its tool-calling turns are `tool_call` parts of
    # gen_ai.output.messages beside the announcement's `text` part.
    agent, found = support_agent(RagChain(), answer)
    agent.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == answer
    assert example.contexts == langchain_contexts(found)


@pytest.mark.parametrize("attachment", [
    {"type": "file", "base64": "JVBERi0xLjQKJcfs", "mime_type": "application/pdf"},
    {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}},
])
def test_a_question_sent_with_a_file_is_the_text_not_the_files_base64(instrumented: Recorder,
                                                                      attachment: dict[str, Any]) -> None:
    # A chat chain whose first model call rewrites the conversation into a search query, so the
    # question is the answering call's user message. The instrumentor writes a block it does not know
    # as a text part holding the block's JSON (span_utils._content_to_parts): the question had been
    # 'How long do I have to ask for a refund?{"type": "file", ..., "data": "JVBERi0xLjQKJcfs"}'.
    rag = RagChain()
    conversation = MessagesPlaceholder("messages")
    condense = (ChatPromptTemplate.from_messages([("system", "Rewrite as a search query."), conversation])
                | FakeListChatModel(responses=["refund window"]) | StrOutputParser())
    system = ("system", "Answer from the numbered context only.\n{context}")
    answer = (ChatPromptTemplate.from_messages([system, conversation])
              | FakeListChatModel(responses=[LANGCHAIN_ANSWER]) | StrOutputParser())
    chain = {"context": condense | rag.retriever | RunnableLambda(rag._format),
             "messages": itemgetter("messages")} | answer
    chain.invoke({"messages": [HumanMessage(content=[{"type": "text", "text": QUESTION}, attachment])]})

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == "How long do I have to ask for a refund?"
    assert example.answer == LANGCHAIN_ANSWER
    assert example.contexts == langchain_contexts(rag.used)
