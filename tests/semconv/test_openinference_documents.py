"""Empty retrieved documents under the real OpenInference instrumentors: each is a document at its rank.

LangChain's instrumentor writes no attribute at all for a document with neither content nor metadata,
so its index is missing from `retrieval.documents.N.*`; the retriever's `output.value` still lists it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from instrumented_apps import QUESTION
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from llama_index.core.base.base_retriever import BaseRetriever as LlamaIndexRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from ragmon import instrument
from ragmon.model import Context
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

REFUNDS = "Refunds are accepted within 30 days of delivery."
SHIPPING = "Standard shipping takes 5 business days."
EMPTY_HASH = "doc-e3b0c442"
"""The content id of "": `doc-` and the first 8 hex digits of SHA-256 of no bytes (e3b0c442 98fc...)."""


class Fixed(BaseRetriever):
    """A LangChain retriever handing back the documents it was built with, in that order."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, **_: Any) -> list[Document]:
        return self.documents


class FixedNodes(LlamaIndexRetriever):
    """A LlamaIndex retriever handing back the nodes it was built with, in that order."""

    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.nodes


@pytest.mark.parametrize(("documents", "expected"), [
    # The reviewer's case: an empty first document, then one with a source. Dropped, the empty one had
    # taken the second document's id with it: ids are matched to output.value's list by rank.
    ([Document("", id="kb-e"), Document(REFUNDS, id="kb-x", metadata={"source": "r.md"})],
     (Context("kb-e", ""), Context("kb-x", REFUNDS))),
    # Empty in the middle and last: the last takes a rank no attribute index shows.
    ([Document(REFUNDS, id="kb-r"), Document("", id="kb-m"), Document(SHIPPING, id="kb-s"),
      Document("", id="kb-z")],
     (Context("kb-r", REFUNDS), Context("kb-m", ""), Context("kb-s", SHIPPING), Context("kb-z", ""))),
    # Only empty documents: the retriever returned two, not none; one without an id is named by its hash.
    ([Document("", id="kb-e"), Document("")], (Context("kb-e", ""), Context(EMPTY_HASH, ""))),
], ids=["first", "middle-and-last", "only-empty"])
def test_an_empty_langchain_document_keeps_its_rank_and_every_id(
        langchain: Recorder, documents: list[Document], expected: tuple[Context, ...]) -> None:
    returned = Fixed(documents=documents).invoke(QUESTION)

    example = extract(langchain.trace())

    assert returned == documents
    assert example is not None
    assert example.contexts == expected


def test_the_instrumentor_and_ragmon_instrument_record_the_same_retrieval(langchain: Recorder) -> None:
    # One app, two ways of recording the same retrieval: the sidecar must read both alike, or the ranks
    # and ids of a dashboard change with the way the app happens to be instrumented.
    returned = Fixed(documents=[Document("", id="kb-e"),
                                Document(REFUNDS, id="kb-x", metadata={"source": "r.md"})]).invoke(QUESTION)
    with instrument.rag_span(QUESTION, tracer_provider=langchain.provider) as rag:
        rag.retrieved(returned)

    traced, recorded = (extract(trace) for trace in langchain.traces())

    assert traced is not None and recorded is not None
    assert recorded.contexts == (Context("kb-e", ""), Context("kb-x", REFUNDS))
    assert traced.contexts == recorded.contexts


def _retriever_span(recorder: Recorder, output: str, documents: dict[int, dict[str, str]]) -> None:
    """A retriever span as LangChain's instrumentor writes one, with only the given indices recorded."""
    attributes = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION,
                  "output.value": output, "output.mime_type": "application/json"}
    for index, fields in documents.items():
        attributes.update({f"retrieval.documents.{index}.document.{key}": value
                           for key, value in fields.items()})
    with recorder.tracer.start_as_current_span("VectorStoreRetriever") as span:
        span.set_attributes(attributes)


RECORDED_AT_1 = {1: {"content": REFUNDS, "metadata": json.dumps({"source": "r.md"})}}


def test_a_list_with_another_document_at_a_missing_index_lends_no_ids(recorder: Recorder) -> None:
    # Rank 0 of this list has content, which the instrumentor would have recorded: the list is not the
    # span's documents, so "kb-o" names nothing here and the recorded document keeps its source.
    output = json.dumps({"documents": [{"id": "kb-o", "page_content": "Other."},
                                       {"id": "kb-x", "page_content": REFUNDS}]})
    _retriever_span(recorder, output, RECORDED_AT_1)

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == (Context("r.md", REFUNDS),)


def test_a_missing_index_takes_its_id_from_the_list_by_rank(recorder: Recorder) -> None:
    output = json.dumps({"documents": [
        {"id": "kb-e", "metadata": {}, "page_content": ""},
        {"id": "kb-x", "metadata": {"source": "r.md"}, "page_content": REFUNDS}]})
    _retriever_span(recorder, output, RECORDED_AT_1)

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == (Context("kb-e", ""), Context("kb-x", REFUNDS))


def test_an_empty_llamaindex_node_keeps_its_rank_id_and_score(llamaindex: Recorder) -> None:
    # The LlamaIndex instrumentor writes every node's document.id, content or not: no index goes missing.
    nodes = [NodeWithScore(node=TextNode(id_="n-e", text=""), score=0.9),
             NodeWithScore(node=TextNode(id_="n-x", text=REFUNDS, metadata={"source": "r.md"}), score=0.5)]
    retrieved = FixedNodes(nodes).retrieve(QUESTION)

    example = extract(llamaindex.trace())

    assert len(retrieved) == 2
    assert example is not None
    assert example.contexts == (Context("n-e", "", 0.9), Context("n-x", REFUNDS, 0.5))
