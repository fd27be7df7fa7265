"""A real LlamaIndex query engine (llama-index-core, offline mocks) under the real OpenInference
LlamaIndex instrumentor, with and without a reranking postprocessor."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from instrumented_apps import (
    LLAMAINDEX_CORPUS,
    QUESTION,
    ScriptedLLM,
    llama_index,
    node_contexts,
    query_engine,
)
from llama_index.core import Document, VectorStoreIndex, get_response_synthesizer
from llama_index.core.base.response.schema import Response
from llama_index.core.bridge.pydantic import Field
from llama_index.core.chat_engine import CondensePlusContextChatEngine
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.rerank import ReRankEndEvent, ReRankStartEvent
from llama_index.core.llms import ChatMessage, MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from ragmon import evaluate
from ragmon.model import Context
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

dispatcher = get_dispatcher(__name__)


class KeepLast(BaseNodePostprocessor):
    """A reranker as third-party ones are written: it announces itself with ReRank events (which make
    the span a RERANKER) and passes on only the last node it was given."""

    received: list[NodeWithScore] = Field(default_factory=list)

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        dispatcher.event(ReRankStartEvent(query=query_bundle, nodes=nodes, top_n=1, model_name="keep-last"))
        self.received.extend(nodes)
        kept = nodes[-1:]
        dispatcher.event(ReRankEndEvent(nodes=kept))
        return kept


@pytest.fixture
def index() -> VectorStoreIndex:
    return llama_index()


def test_a_node_read_from_a_file_is_named_by_the_file_and_a_citation_of_it_is_read_out(
        llamaindex: Recorder) -> None:
    # SimpleDirectoryReader records file_name and file_path, and the default prompt shows them to the model,
    # which cites the file: named by its node's UUID, the document was never the one cited, the citation
    # stayed in the claim ("lacks returns_policy") and a sentence copied from the page scored 0.
    documents = [Document(text=text, metadata={"file_name": f"{name}.md", "file_path": f"/data/{name}.md"})
                 for name, text in LLAMAINDEX_CORPUS.items()]
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    llamaindex.exporter.clear()
    nodes = index.as_retriever(similarity_top_k=1).retrieve(QUESTION)
    (cited,) = nodes
    sentence = cited.node.get_content().split(". ")[0].rstrip(".")
    answer = f"{sentence} ({cited.node.metadata['file_name']})."
    llamaindex.exporter.clear()
    index.as_query_engine(llm=ScriptedLLM(replies=[answer]), similarity_top_k=1).query(QUESTION)

    example = extract(llamaindex.trace())

    assert example is not None
    assert [c.id for c in example.contexts or ()] == [cited.node.metadata["file_name"]]
    result = evaluate([example]).results[0]
    assert [v.claim.text for v in result.verdicts] == [sentence + "."]
    assert result.metrics["groundedness"] == 1.0


def test_query_engine_extracts_nodes_question_and_answer(llamaindex: Recorder,
                                                          index: VectorStoreIndex) -> None:
    llamaindex.exporter.clear()
    engine = query_engine(index, top_k=2)
    response = engine.query(QUESTION)
    assert isinstance(response, Response)

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.question == QUESTION
    # What the synthesizer was given, in order, with the node ids LlamaIndex writes as document.id.
    assert len(response.source_nodes) == 2
    assert example.contexts == node_contexts(response.source_nodes)
    assert example.answer == str(response)
    assert example.answer.strip()


def test_a_node_is_named_by_its_metadata_id_not_the_uuid_each_index_build_makes(llamaindex: Recorder) -> None:
    # LlamaIndex gives every node a random UUID, new at each build of the index: ragmon.relevant_ids and
    # "[refunds]" citations name the documents as the app does, by the metadata's id.
    documents = [Document(text=text, metadata={"id": doc_id}) for doc_id, text in LLAMAINDEX_CORPUS.items()]
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    llamaindex.exporter.clear()
    response = query_engine(index, top_k=2).query(QUESTION)

    example = extract(llamaindex.trace())

    assert example is not None and len(response.source_nodes) == 2
    assert example.contexts == tuple(Context(n.node.metadata["id"], n.node.get_content(), n.score)
                                     for n in response.source_nodes)
    assert all(n.node_id not in {c.id for c in example.contexts} for n in response.source_nodes)


def test_reranker_output_wins_over_the_retrieved_nodes(llamaindex: Recorder,
                                                        index: VectorStoreIndex) -> None:
    llamaindex.exporter.clear()
    reranker = KeepLast()
    engine = query_engine(index, top_k=3, node_postprocessors=[reranker])
    response = engine.query(QUESTION)

    example = extract(llamaindex.trace())

    assert example is not None
    # The retriever returned three nodes; the model saw only the last of them.
    assert len(reranker.received) == 3
    assert example.contexts == node_contexts(reranker.received[-1:])
    assert example.contexts == node_contexts(response.source_nodes)
    assert example.answer == str(response)


def test_chat_engine_question_is_the_users_message_not_the_condensed_one(llamaindex: Recorder,
                                                                        index: VectorStoreIndex) -> None:
    # With a history, the engine has the LLM rewrite the message into a standalone question and
    # retrieves with that; the chat span's input is {"message": ..., "chat_history": [...]}. MockLLM
    # answers "text" 4 times, so the rewrite is "text text text text", not the question.
    engine = CondensePlusContextChatEngine.from_defaults(index.as_retriever(similarity_top_k=2),
                                                         llm=MockLLM(max_tokens=4))
    history = [ChatMessage(role="user", content="Hello"), ChatMessage(role="assistant", content="Hi!")]
    llamaindex.exporter.clear()
    response = engine.chat(QUESTION, chat_history=history)

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == str(response) == "text text text text"
    assert example.contexts == node_contexts(response.source_nodes)


def test_a_reranker_replaces_only_the_retriever_it_reranked(llamaindex: Recorder,
                                                            index: VectorStoreIndex) -> None:
    # Two sources given to one synthesizer: the knowledge base's three nodes reranked down to their last,
    # and an FAQ retriever's node that no reranker took. The model saw both lists; read as a tier of its
    # own, the reranker's output had stood for every retriever and the FAQ's node was lost.
    faq_text = "Return shipping labels are free for members of the loyalty club."
    faq = VectorStoreIndex.from_documents([Document(text=faq_text, id_="faq-7")],
                                          embed_model=MockEmbedding(embed_dim=8))
    reranker = KeepLast()
    llamaindex.exporter.clear()
    with llamaindex.tracer.start_as_current_span("POST /ask"):
        kb_nodes = index.as_retriever(similarity_top_k=3).retrieve(QUESTION)
        kept = reranker.postprocess_nodes(kb_nodes, query_str=QUESTION)
        faq_nodes = faq.as_retriever(similarity_top_k=1).retrieve(QUESTION)
        response = get_response_synthesizer(llm=MockLLM(max_tokens=None)).synthesize(
            QUESTION, nodes=kept + faq_nodes)

    example = extract(llamaindex.trace())

    assert example is not None
    assert len(kb_nodes) == 3 and len(kept) == 1 and [n.node.get_content() for n in faq_nodes] == [faq_text]
    assert example.contexts == node_contexts(kept + faq_nodes)  # the reranked node, then the FAQ's
    assert example.answer == str(response)
