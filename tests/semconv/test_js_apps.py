"""Traces of a Node.js RAG app as OpenTelemetry JS's exporters sent them (tests/js_apps.py): LangChain.js
under OpenInference's JS instrumentor read as the same chain in Python under the Python instrumentor, and
OTel GenAI spans written by hand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from js_apps import CONTEXTS, CORPUS, GROUNDED, MADE_UP, QUESTION, capture
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.semconv.extract import extract

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


def test_genai_spans_written_in_js_are_read() -> None:
    example = extract(capture("genai-json").trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, MADE_UP)
    assert example.citations == ("kb-refunds",)
