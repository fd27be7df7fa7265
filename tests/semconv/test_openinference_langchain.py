"""A real LCEL RAG chain (langchain-core, offline) under the real OpenInference LangChain instrumentor."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from openinference.instrumentation import TraceConfig
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.trace import SpanKind

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

CORPUS = {
    "kb-refunds": "Refunds are accepted within 30 days of delivery.",
    "kb-shipping": "Standard shipping takes 5 business days.",
    "kb-support": "Support is available by chat around the clock.",
    "kb-warranty": "The warranty covers manufacturing defects for two years.",
}
QUESTION = "How long do I have to ask for a refund?"
ANSWER = "You can ask for a refund within 30 days of delivery [1]."


@pytest.fixture
def instrumented(recorder: Recorder) -> Iterator[Recorder]:
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider)
    yield recorder
    instrumentor.uninstrument()


class RagChain:
    """retriever -> prompt -> chat model -> parser, remembering the documents the prompt was given."""

    def __init__(self) -> None:
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
        store.add_documents([Document(page_content=text, metadata={"id": doc_id})
                             for doc_id, text in CORPUS.items()])
        self.used: list[Document] = []
        prompt = ChatPromptTemplate.from_messages(
            [("system", "Answer from the numbered context only.\n{context}"), ("human", "{question}")])
        self.chain = (
            {"context": store.as_retriever(search_kwargs={"k": 3}) | RunnableLambda(self._format),
             "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[ANSWER]) | StrOutputParser()
        )

    def _format(self, docs: list[Document]) -> str:
        self.used.extend(docs)
        return "\n".join(f"[{n}] {doc.page_content}" for n, doc in enumerate(docs, 1))

    def used_contexts(self) -> tuple[Context, ...]:
        # LangChain's instrumentor writes no document id or score: ids come from the metadata we set.
        return tuple(Context(doc.metadata["id"], doc.page_content, None) for doc in self.used)


def test_lcel_chain_extracts_question_documents_answer_and_citation(instrumented: Recorder) -> None:
    rag = RagChain()
    answer = rag.chain.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert answer == ANSWER
    assert example.question == QUESTION
    assert len(rag.used) == 3
    assert example.contexts == rag.used_contexts()
    assert example.answer == ANSWER
    # The answer cites "[1]": the first document the prompt numbered.
    assert example.citations == (rag.used[0].metadata["id"],)
    assert example.pipeline == instrumented.service
    assert example.id == instrumented.trace().trace_id


def test_chain_under_an_http_server_span_of_another_instrumentation(instrumented: Recorder) -> None:
    # The LangChain root becomes a child of the current span (the instrumentor's default), which is
    # not an OpenInference span: the chain is still the top chain.
    rag = RagChain()
    tracer = instrumented.provider.get_tracer("web")
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER,
                                      attributes={"http.request.method": "POST"}):
        rag.chain.invoke(QUESTION)

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == ANSWER
    assert example.contexts == rag.used_contexts()


def test_chain_called_with_a_mapping_reads_the_question_key(instrumented: Recorder) -> None:
    # The retriever sees a rewritten query; the user's question is the top chain's "question" key.
    rag = RagChain()
    chain = RunnableLambda(lambda inputs: "refund deadline") | rag.chain
    chain.invoke({"question": QUESTION, "user": "u-7"})

    example = extract(instrumented.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == ANSWER


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
