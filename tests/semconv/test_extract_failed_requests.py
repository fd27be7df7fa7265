"""Requests that failed, or recorded nothing to score: an ExtractionError naming the span, where they used to
be counted "scored" with nothing measured (a failed retrieval read as one that found nothing, or neither
documents nor an answer). Each is checked beside the twin that must still give an example: a search
endpoint that ended well, an answer recorded before the request failed.

OpenInference and OpenLLMetry run their real LangChain (and LlamaIndex) instrumentors over offline fakes;
OTel GenAI and ragmon's own attributes are written with the SDK under their conventions' names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pytest
from instrumented_apps import LANGCHAIN_ANSWER, QUESTION, RagChain, instrumenting, langchain_contexts
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import BaseRetriever as LlamaIndexRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context
from test_openllmetry_instrumented import traceloop

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

FAILED = "the request failed: no answer to score (status ERROR, "
NOTHING = "the request recorded neither documents nor an answer: nothing to score"
HOURS = "On Sundays the museum opens at 10 am."
DOCUMENT = {"id": "hours-1", "score": 0.9, "content": HOURS}
GENAI_DOCUMENTS = {"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": QUESTION,
                   "gen_ai.retrieval.documents": json.dumps([DOCUMENT])}


def failure(recorder: Recorder) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())
    return caught.value


# --- LangChain under OpenInference and OpenLLMetry ------------------------------------------------------


INSTRUMENTATIONS: dict[str, Callable[[Recorder], Any]] = {
    "openinference": lambda recorder: instrumenting(recorder.provider, LangChainInstrumentor()),
    "openllmetry": lambda recorder: traceloop(recorder.provider),
}
ROOT_CHAIN = {"openinference": "RunnableSequence", "openllmetry": "RunnableSequence.workflow"}
RETRIEVER = {"openinference": "Unreachable", "openllmetry": "vector_db_retrieve Unreachable"}
FAILURE_TYPE = {"openinference": "exception.type", "openllmetry": "error.type"}
"""OpenInference records the exception event only; OpenLLMetry also sets `error.type`, read first."""


@pytest.fixture(params=sorted(INSTRUMENTATIONS))
def instrumentation(request: pytest.FixtureRequest, recorder: Recorder) -> Iterator[str]:
    with INSTRUMENTATIONS[request.param](recorder):
        yield request.param


class Unreachable(BaseRetriever):
    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        raise ConnectionError("vector store unreachable")


def rag_chain(retriever: Runnable[str, list[Document]], rag: RagChain) -> Runnable[str, str]:
    """RagChain's pipeline on another retriever: retriever -> prompt -> chat model -> parser."""
    prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{question}")])
    return ({"context": retriever | RunnableLambda(rag._format), "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[LANGCHAIN_ANSWER]) | StrOutputParser())


def test_a_chain_whose_retriever_raised_is_a_failed_request(recorder: Recorder, instrumentation: str) -> None:
    # No model call, no answer, and OpenInference's failed retriever has no documents: it was read as a
    # retrieval that found nothing, "scored" as a search endpoint (OpenLLMetry's, as neither).
    with pytest.raises(ConnectionError):
        rag_chain(Unreachable(), RagChain()).invoke(QUESTION)

    error = failure(recorder)

    assert (error.span_name, error.field) == (ROOT_CHAIN[instrumentation], "status")
    assert str(error).endswith(f"{FAILED}{FAILURE_TYPE[instrumentation]} 'ConnectionError')")


def test_a_retriever_alone_is_a_search_endpoint_unless_it_raised(recorder: Recorder,
                                                                 instrumentation: str) -> None:
    retriever = RagChain().retriever
    found = retriever.invoke(QUESTION)
    with pytest.raises(ConnectionError):
        Unreachable().invoke(QUESTION)
    [served, failed] = recorder.traces()

    example = extract(served)
    with pytest.raises(ExtractionError) as caught:
        extract(failed)

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, langchain_contexts(found), None)
    assert (caught.value.span_name, caught.value.field) == (RETRIEVER[instrumentation], "status")
    assert str(caught.value).endswith(f"{FAILED}{FAILURE_TYPE[instrumentation]} 'ConnectionError')")


def test_an_answer_given_before_the_chain_failed_is_scored(recorder: Recorder, instrumentation: str) -> None:
    # The model answered; a step after it raised and failed the chain. The answer is the model's, there
    # to score (as a failed retry inside a call that went on to answer is no failure either).
    def unparsable(answer: str) -> str:
        raise ValueError("no JSON in the answer")

    rag = RagChain()
    with pytest.raises(ValueError, match="no JSON"):
        (rag.chain | RunnableLambda(unparsable)).invoke(QUESTION)

    example = extract(recorder.trace())

    assert example is not None
    assert (example.contexts, example.answer) == (rag.used_contexts(), LANGCHAIN_ANSWER)


def test_a_failed_trace_without_retrieval_or_generation_is_still_not_rag(recorder: Recorder,
                                                                         instrumentation: str) -> None:
    # A chain that only formats text is no RAG request, whether it ended well or not.
    def broken(text: str) -> str:
        raise ValueError("cannot format")

    with pytest.raises(ValueError):
        (RunnableLambda(str.strip) | RunnableLambda(broken)).invoke(f" {QUESTION} ")

    assert extract(recorder.trace()) is None


# --- LlamaIndex under OpenInference ---------------------------------------------------------------------


class UnreachableIndex(LlamaIndexRetriever):
    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        raise ConnectionError("vector store unreachable")


def test_a_llamaindex_query_whose_retriever_raised_is_a_failed_request(llamaindex: Recorder) -> None:
    engine = RetrieverQueryEngine.from_args(UnreachableIndex(), llm=MockLLM(max_tokens=5))
    with pytest.raises(ConnectionError):
        engine.query(QUESTION)

    error = failure(llamaindex)

    # The outer of the engine's two CHAIN spans (query around _query), both failed: the top chain.
    assert (error.span_name, error.field) == ("RetrieverQueryEngine.query", "status")
    assert str(error).endswith(f"{FAILED}exception.type 'ConnectionError')")


# --- OTel GenAI -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("agent", "named"), [(False, "POST /ask"), (True, "invoke_agent museum-guide")],
                         ids=["server span", "agent span"])
def test_a_genai_request_that_failed_before_the_model_call_is_an_error(
        recorder: Recorder, agent: bool, named: str) -> None:
    # The retrieval ended well, then the app raised before calling the model: no chat span at all. The
    # same request ending well is a search endpoint, scored on its documents.
    tracer = recorder.tracer

    def request(fail: bool) -> None:
        with ExitStack() as spans:
            spans.enter_context(tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER))
            if agent:
                spans.enter_context(tracer.start_as_current_span(
                    "invoke_agent museum-guide", attributes={"gen_ai.operation.name": "invoke_agent"}))
            with tracer.start_as_current_span("retrieval museum-kb", kind=SpanKind.CLIENT,
                                              attributes=GENAI_DOCUMENTS):
                pass
            if fail:
                raise TimeoutError("the prompt builder timed out")

    with pytest.raises(TimeoutError):
        request(fail=True)
    request(fail=False)
    [failed, served] = recorder.traces()

    with pytest.raises(ExtractionError) as caught:
        extract(failed)
    example = extract(served)

    # The innermost failed span standing for the request: the agent's, inside the server span.
    assert (caught.value.span_name, caught.value.field) == (named, "status")
    assert str(caught.value).endswith(f"{FAILED}exception.type 'TimeoutError')")
    assert example is not None
    assert (example.question, example.contexts, example.answer) == (
        QUESTION, (Context("hours-1", HOURS, 0.9),), None)


def test_a_failed_span_beside_the_rag_request_fails_nothing(recorder: Recorder) -> None:
    # The page's own span never arrived, so the trace has three roots: the search, which ended well, and
    # two spans of other work in the same page view that failed (its logging call, an embedding attempt
    # with nothing under it). Only a span holding the RAG work speaks for the request.
    tracer = recorder.tracer
    page = set_span_in_context(NonRecordingSpan(SpanContext(
        trace_id=0x5B8EFFF798038103D269B633813FC60C, span_id=0xEEE19B7EC3C1B174, is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED))))
    with (tracer.start_as_current_span("GET /search", context=page, kind=SpanKind.SERVER),
          tracer.start_as_current_span("retrieval museum-kb", kind=SpanKind.CLIENT,
                                       attributes=GENAI_DOCUMENTS)):
        pass
    other_work = (("POST /log", {}), ("embeddings attempt 1", {"gen_ai.operation.name": "embeddings"}))
    for name, attributes in other_work:
        with pytest.raises(RuntimeError), tracer.start_as_current_span(name, context=page,
                                                                       attributes=attributes):
            raise RuntimeError("not this request's work")

    [trace] = recorder.traces()
    example = extract(trace)

    assert len(trace.spans) == 4
    assert example is not None
    assert (example.contexts, example.answer) == ((Context("hours-1", HOURS, 0.9),), None)


def test_a_failed_model_call_still_names_the_call_not_the_request(recorder: Recorder) -> None:
    # The model call failed and so did the request around it: the call is the more precise culprit.
    tracer = recorder.tracer
    with pytest.raises(TimeoutError), tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval museum-kb", attributes=GENAI_DOCUMENTS):
            pass
        with tracer.start_as_current_span("chat gpt-4o", attributes={"gen_ai.operation.name": "chat"}):
            raise TimeoutError("the model timed out")

    error = failure(recorder)

    assert (error.span_name, error.field) == ("chat gpt-4o", "status")
    assert str(error).endswith(
        "the model call failed: no answer to score (status ERROR, exception.type 'TimeoutError')")


# --- ragmon's own attributes, set by hand ---------------------------------------------------------------


CONTEXTS = {"ragmon.contexts": json.dumps([{"id": "kb-1", "text": "Open on Sundays."}])}


@pytest.mark.parametrize(("attributes", "fails", "expected"), [
    # A question and nothing else: nothing to score, failed or not.
    ({}, False, NOTHING),
    ({}, True, f"{FAILED}exception.type 'RuntimeError')"),
    # Documents and no answer: a search endpoint, unless the request failed.
    (CONTEXTS, False, None),
    (CONTEXTS, True, f"{FAILED}exception.type 'RuntimeError')"),
    # An answer recorded before the request failed is scored.
    ({"ragmon.answer": "a"}, True, None),
], ids=["question only", "question only, failed", "search endpoint", "search endpoint, failed",
        "answered, then failed"])
def test_ragmon_attributes_of_a_request_that_failed_or_recorded_nothing(
        recorder: Recorder, attributes: dict[str, Any], fails: bool, expected: str | None) -> None:
    def request() -> None:
        with recorder.tracer.start_as_current_span("ask", attributes={"ragmon.question": QUESTION,
                                                                      **attributes}):
            if fails:
                raise RuntimeError("the app failed")

    if fails:
        with pytest.raises(RuntimeError):
            request()
    else:
        request()

    if expected is None:
        assert extract(recorder.trace()) is not None
    else:
        error = failure(recorder)
        assert (error.span_name, error.field) == ("ask", "status" if fails else "documents and answer")
        assert str(error).endswith(expected)


@pytest.mark.parametrize("cited", [["kb-1"], []], ids=["cited kb-1", "cited none"])
def test_citations_without_an_answer_are_an_error_naming_the_missing_answer(
        recorder: Recorder, cited: list[str]) -> None:
    # The app recorded what its answer cited but not the answer (ragmon.answer forgotten): it was scored as
    # a search endpoint's documents, counted "scored" with no groundedness and nothing said.
    with recorder.tracer.start_as_current_span("ask", attributes={"ragmon.question": QUESTION, **CONTEXTS}), \
            recorder.tracer.start_as_current_span("cite", attributes={"ragmon.citations": cited}):
        pass
    error = failure(recorder)
    assert (error.span_name, error.field) == ("cite", "ragmon.answer")
    assert str(error).endswith("ragmon.citations is what an answer cited, but the trace records no "
                               "answer (ragmon.answer) and no model call: not scored, as its documents "
                               "alone would count it a search endpoint's result")
