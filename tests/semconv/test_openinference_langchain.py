"""A real LCEL RAG chain (langchain-core, offline) under the real OpenInference LangChain instrumentor."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from agent_apps import support_agent
from counted_mapping import counted_mapping
from instrumented_apps import LANGCHAIN_ANSWER, QUESTION, RagChain, langchain_contexts
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.output_parsers import BaseOutputParser, JsonOutputParser, PydanticOutputParser
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore
from openinference.instrumentation import TraceConfig
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.trace import SpanKind
from pydantic import BaseModel

from ragmon import evaluate
from ragmon.model import Context
from ragmon.semconv import common
from ragmon.semconv.extract import ExtractionError, extract, unasked_note

if TYPE_CHECKING:
    from semconv.conftest import Recorder


def test_lcel_chain_extracts_question_documents_answer_and_citation(langchain: Recorder) -> None:
    rag = RagChain()
    answer = rag.chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert answer == LANGCHAIN_ANSWER
    assert example.question == QUESTION
    assert len(rag.used) == 3
    assert example.contexts == rag.used_contexts()
    assert example.answer == LANGCHAIN_ANSWER
    # The answer cites "[1]": the first document the prompt numbered.
    assert example.citations == (rag.used[0].metadata["id"],)
    assert example.pipeline == langchain.service
    assert example.id == langchain.trace().trace_id


class CitedReply(BaseModel):
    """The schema of an app asking its model for a reply and its sources, as numbers of the prompt's."""

    reply: str
    sources: list[int | str]
    confidence: float


STRUCTURED = "Support is available by chat around the clock. Refunds are paid in gold coins."
"""A structured answer's text: the first sentence is a document's, the second made up."""


@pytest.mark.parametrize(("key", "parser"), [("answer", JsonOutputParser()),
                                             ("reply", PydanticOutputParser(pydantic_object=CitedReply))],
                         ids=["JsonOutputParser", "PydanticOutputParser"])
def test_a_chain_ending_in_a_json_parser_is_judged_on_its_answer_and_cites_its_sources(
        langchain: Recorder, key: str, parser: BaseOutputParser[object]) -> None:
    # The model replies JSON, the parser makes it an object, the chain outputs that object. Under "answer"
    # the chain's output gave the text already, but its sources were lost (no citations); under "reply" the
    # chain's output gave none, and the model's JSON was judged as text, '"confidence": 0.8}' a claim.
    rag = RagChain(json.dumps({key: STRUCTURED, "sources": [1, "kb-support"], "confidence": 0.8}), parser)
    rag.chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert [context.id for context in example.contexts or ()] == ["kb-warranty", "kb-support", "kb-shipping"]
    assert example.contexts == rag.used_contexts()
    assert example.answer == STRUCTURED
    assert example.citations == ("kb-warranty", "kb-support")  # 1: the prompt's "[1]", the first retrieved
    result = evaluate([example]).results[0]
    assert [verdict.claim.text for verdict in result.verdicts if not verdict.supported] == [
        "Refunds are paid in gold coins."]
    assert result.metrics["citation_accuracy"] == 0.5  # kb-support supports a claim, kb-warranty none


def test_chain_under_an_http_server_span_of_another_instrumentation(langchain: Recorder) -> None:
    # The LangChain root becomes a child of the current span (the instrumentor's default), which is
    # not an OpenInference span: the chain is still the top chain.
    rag = RagChain()
    tracer = langchain.provider.get_tracer("web")
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER,
                                      attributes={"http.request.method": "POST"}):
        rag.chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == LANGCHAIN_ANSWER
    assert example.contexts == rag.used_contexts()


def test_chain_called_with_a_mapping_reads_the_question_key(langchain: Recorder) -> None:
    # The retriever sees a rewritten query; the user's question is the top chain's "question" key.
    rag = RagChain()
    chain = RunnableLambda(lambda inputs: "refund deadline") | rag.chain
    chain.invoke({"question": QUESTION, "user": "u-7"})

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == LANGCHAIN_ANSWER


def test_chunks_of_one_file_are_all_kept(langchain: Recorder) -> None:
    # LangChain loaders tag every chunk of a file with the same metadata "source", which becomes each
    # chunk's id: two chunks the model saw are two contexts, not one context and one lost.
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents([
        Document(page_content="Refunds are accepted within 30 days.", metadata={"source": "policy.md"}),
        Document(page_content="Refunds need the original receipt.", metadata={"source": "policy.md"}),
        Document(page_content="Standard shipping takes 5 business days.", metadata={"source": "shipping.md"}),
    ])
    returned = store.as_retriever(search_kwargs={"k": 3}).invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert [doc.metadata["source"] for doc in returned].count("policy.md") == 2
    # In rank order, each with its source as id; LangChain's instrumentor writes no score.
    assert example.contexts == tuple(Context(doc.metadata["source"], doc.page_content, None)
                                     for doc in returned)


def test_hidden_documents_are_an_error_not_empty_texts(recorder: Recorder) -> None:
    # OPENINFERENCE_HIDE_OUTPUTS replaces document content with "__REDACTED__": scoring that text would
    # call every claim unsupported, so the trace is refused with the reason.
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider, config=TraceConfig(hide_outputs=True))
    try:
        RagChain().chain.invoke(QUESTION)
    finally:
        instrumentor.uninstrument()

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert "span 'VectorStoreRetriever'" in str(caught.value)
    assert caught.value.field == "retrieval.documents.0.document.content"
    assert "hides retrieved documents" in str(caught.value)


def test_hidden_inputs_leave_no_question_and_the_note_names_the_switch(recorder: Recorder) -> None:
    # OPENINFERENCE_HIDE_INPUTS redacts every input: the documents and the answer are there, so the
    # trace is scored (groundedness needs no question), but "" had been scored with no word of why.
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider, config=TraceConfig(hide_inputs=True))
    try:
        rag = RagChain()
        rag.chain.invoke(QUESTION)
    finally:
        instrumentor.uninstrument()
    trace = recorder.trace()

    example = extract(trace)

    assert example is not None
    assert (example.question, example.contexts, example.answer) == ("", rag.used_contexts(), LANGCHAIN_ANSWER)
    assert "OPENINFERENCE_HIDE_INPUTS" in unasked_note(trace)


AGENT_ANSWERS = ["You can ask for a refund within 30 days of delivery, so until 30 May.", "Until 30 May."]
"""An agent's answers: one that states, one as short as a label."""


@pytest.mark.parametrize("answer", AGENT_ANSWERS)
def test_an_agents_answer_is_its_last_turn_not_a_tool_calls_announcement(langchain: Recorder,
                                                                            answer: str) -> None:
    # search -> "Let me check when your order was delivered." + get_order -> the answer. The answering
    # turn has the announcement in its history, so it read as a grader quoting an earlier answer, and
    # the announcement was scored as the agent's answer.
    agent, found = support_agent(RagChain(), answer)
    agent.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == answer
    assert len(found) == 3
    assert example.contexts == langchain_contexts(found)


def test_the_text_of_a_json_input_is_read_without_checking_its_values_against_mapping(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # LangChain records a model's input as the JSON of its messages; every string in it is what the model
    # was given. Each dict, list, number and null of it had been checked against Mapping, an abstract class
    # (~5% of extracting a real LangChain trace); JSON's own types are told by their type. The strings
    # read, in order, are the same.
    stand_in = counted_mapping()
    monkeypatch.setattr(common, "Mapping", stand_in)
    decoded = {"messages": [[{"lc": 1, "type": "constructor", "kwargs": {"content": "Context: refunds.",
                                                                         "type": "system"}},
                             {"lc": 1, "kwargs": {"content": "How long?", "example": False, "id": None}}]]}
    assert common.strings(decoded) == ["constructor", "Context: refunds.", "system", "How long?"]
    assert stand_in.checked == []
