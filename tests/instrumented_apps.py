"""The real RAG pipelines that instrumentation tests run: an LCEL chain on langchain-core's offline fakes
and a LlamaIndex query engine on its mocks. The extraction tests (tests/semconv) and the end-to-end
sidecar test share them, so both check the same pipelines. Nothing here reaches a network or an API key."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import BaseOutputParser, StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import Document as LlamaIndexDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.bridge.pydantic import Field
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata, MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore
from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined]  # not in its __all__
    BaseInstrumentor,
)
from opentelemetry.sdk.trace import TracerProvider

from ragmon.model import Context

QUESTION = "How long do I have to ask for a refund?"

LANGCHAIN_CORPUS = {
    "kb-refunds": "Refunds are accepted within 30 days of delivery.",
    "kb-shipping": "Standard shipping takes 5 business days.",
    "kb-support": "Support is available by chat around the clock.",
    "kb-warranty": "The warranty covers manufacturing defects for two years.",
}
LANGCHAIN_ANSWER = "You can ask for a refund within 30 days of delivery [1]."

LLAMAINDEX_CORPUS = {
    "refunds": "Refunds are accepted within 30 days of delivery.",
    "shipping": "Standard shipping takes 5 business days.",
    "support": "Support is available by chat around the clock.",
}



@contextmanager
def instrumenting(provider: TracerProvider, instrumentor: BaseInstrumentor) -> Iterator[None]:
    """`instrumentor` on `provider` while the block runs, and off after it even when it raised: an
    instrumentor left on would trace every later test's LangChain or LlamaIndex calls."""
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()

class RagChain:
    """retriever -> prompt -> chat model -> parser, remembering the documents the prompt was given. The
    retriever is kept for tests that run it on its own or in a chain of their own. `parser`: the chain's
    last step (a JsonOutputParser for a model replying JSON)."""

    def __init__(self, answer: str = LANGCHAIN_ANSWER, parser: BaseOutputParser[Any] | None = None) -> None:
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
        store.add_documents([LangChainDocument(page_content=text, metadata={"id": doc_id})
                             for doc_id, text in LANGCHAIN_CORPUS.items()])
        self.retriever = store.as_retriever(search_kwargs={"k": 3})
        self.used: list[LangChainDocument] = []
        prompt = ChatPromptTemplate.from_messages(
            [("system", "Answer from the numbered context only.\n{context}"), ("human", "{question}")])
        self.chain = (
            {"context": self.retriever | RunnableLambda(self._format),
             "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[answer]) | (parser or StrOutputParser())
        )

    def _format(self, docs: list[LangChainDocument]) -> str:
        self.used.extend(docs)
        return "\n".join(f"[{n}] {doc.page_content}" for n, doc in enumerate(docs, 1))

    def used_contexts(self) -> tuple[Context, ...]:
        return langchain_contexts(self.used)


def langchain_contexts(docs: list[LangChainDocument]) -> tuple[Context, ...]:
    """What extraction must give for these documents: LangChain's instrumentors write no document id or
    score, so the id is the metadata "id" the corpus was loaded with."""
    return tuple(Context(doc.metadata["id"], doc.page_content, None) for doc in docs)


def llama_index() -> VectorStoreIndex:
    """Build it before instrumenting, or clear the indexing spans: queries are what the tests trace."""
    documents = [LlamaIndexDocument(text=text, id_=doc_id) for doc_id, text in LLAMAINDEX_CORPUS.items()]
    return VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))


def query_engine(index: VectorStoreIndex, *, top_k: int, answer_tokens: int | None = 12,
                 node_postprocessors: Sequence[BaseNodePostprocessor] = ()) -> BaseQueryEngine:
    """An explicit MockLLM, so nothing falls back to OpenAI. It answers "text" `answer_tokens` times, or
    with None its whole prompt: the retrieved texts amid the template's instructions."""
    return index.as_query_engine(llm=MockLLM(max_tokens=answer_tokens), similarity_top_k=top_k,
                                 node_postprocessors=list(node_postprocessors))


def node_contexts(nodes: Sequence[NodeWithScore]) -> tuple[Context, ...]:
    """The contexts the nodes are, with the node ids LlamaIndex writes as document.id."""
    return tuple(Context(n.node_id, n.node.get_content(), n.score) for n in nodes)


class ScriptedLLM(CustomLLM):
    """A LlamaIndex text-completion model replying from a script, a reply a call in order, as
    langchain-core's fake models do: MockLLM only echoes its prompt, and a pipeline of several model calls
    (a re-ranker's or an agent's, then the answer's) needs each to say its own thing. Streamed, a reply
    comes word by word, so the answer is assembled from chunks."""

    replies: list[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=False)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.replies.pop(0))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        words = self.replies.pop(0).split(" ")

        def chunks() -> CompletionResponseGen:  # a generator: the callback wraps only generators
            for count in range(1, len(words) + 1):
                yield CompletionResponse(text=" ".join(words[:count]),
                                         delta=words[count - 1] if count == 1 else f" {words[count - 1]}")
        return chunks()
