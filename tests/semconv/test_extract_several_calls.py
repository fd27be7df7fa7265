"""Real RAG pipelines that call a model more than once, under the real OpenInference instrumentors: a
model that re-ranks or grades the retrieved documents before another answers from the ones it kept. The
documents judged are the ones the answering call was given, not every one some call was shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from instrumented_apps import LANGCHAIN_CORPUS, QUESTION, RagChain, ScriptedLLM
from langchain_core.documents import Document as LangChainDocument
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.postprocessor import LLMRerank

from ragmon import Example, LexicalJudge
from ragmon.evaluation import evaluate_example
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

PRODUCTS = ("kettle", "toaster", "blender", "lamp", "heater", "fan", "mixer", "grill", "juicer", "scale",
            "radio", "clock", "iron", "camera", "speaker", "router", "printer", "monitor", "keyboard",
            "mouse")
PRICES = {product: 10 + 7 * n for n, product in enumerate(PRODUCTS)}
"""20 documents, each the only one stating its product's price, the product its id: no claim is
supported by two."""


def _groundedness(example: Example) -> float | None:
    return evaluate_example(example, LexicalJudge(), 5).metrics["groundedness"]


def _price_index() -> VectorStoreIndex:
    documents = [Document(text=f"The {product} costs {price} euros.", metadata={"id": product})
                 for product, price in PRICES.items()]
    return VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))


def test_a_model_reranking_twenty_documents_to_two_leaves_the_two_as_contexts(llamaindex: Recorder) -> None:
    # LlamaIndex's LLMRerank asks the model to choose among the retrieved nodes, ten a call, and records
    # no RERANKER span: its two calls were given ten documents each, the answering call only the two
    # chosen (the third of the first ten, the second of the next). The answer's second sentence is made
    # up from a document the answering call never saw.
    index = _price_index()
    ranked = [node.node.metadata["id"] for node in index.as_retriever(similarity_top_k=20).retrieve(QUESTION)]
    chosen, dropped = [ranked[2], ranked[11]], ranked[0]
    answer = f"The {chosen[0]} is {PRICES[chosen[0]]} euros. The {dropped} sells for {PRICES[dropped]} euros."
    model = ScriptedLLM(replies=["Doc: 3, Relevance: 9", "Doc: 2, Relevance: 7", answer])
    engine = index.as_query_engine(llm=model, similarity_top_k=20,
                                   node_postprocessors=[LLMRerank(llm=model, top_n=2)])
    llamaindex.exporter.clear()
    response = engine.query(QUESTION)

    example = extract(llamaindex.trace())

    assert example is not None
    assert len(ranked) == 20
    assert sorted(node.node.metadata["id"] for node in response.source_nodes) == sorted(chosen)
    assert example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(chosen)
    assert example.answer == answer
    assert _groundedness(example) == 0.5  # the made-up price is unsupported: 1 of 2 claims


def test_documents_a_grader_call_rejected_are_no_support(langchain: Recorder) -> None:
    # Corrective RAG: a model grades each retrieved document ("yes" or "no"), and the answering model is
    # given the ones graded relevant. Each grading call was given its document, but the rejected ones
    # never reached the answer. The grader keeps the second of the three documents retrieved.
    rag = RagChain()
    order = [doc.metadata["id"] for doc in rag.retriever.invoke(QUESTION)]
    relevant = order[1]
    grader = (ChatPromptTemplate.from_messages([("human", "Document: {document}\nRelevant to: {question}?")])
              | FakeListChatModel(responses=["no", "yes", "no"])
              | StrOutputParser())
    answering = (ChatPromptTemplate.from_messages([("system", "Context:\n{context}"),
                                                   ("human", "{question}")])
                 | FakeListChatModel(responses=["You have 30 days from delivery to ask for a refund."])
                 | StrOutputParser())

    def corrective(question: str) -> str:
        documents = rag.retriever.invoke(question)
        kept: list[LangChainDocument] = [doc for doc in documents if grader.invoke(
            {"document": doc.page_content, "question": question}) == "yes"]
        context = "\n".join(doc.page_content for doc in kept)
        return answering.invoke({"context": context, "question": question})

    langchain.exporter.clear()
    RunnableLambda(corrective).with_config(run_name="corrective_rag").invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert len(order) == 3
    assert example.contexts is not None
    assert [(context.id, context.text) for context in example.contexts] == [
        (relevant, LANGCHAIN_CORPUS[relevant])]
    assert example.question == QUESTION
    assert example.answer == "You have 30 days from delivery to ask for a refund."
