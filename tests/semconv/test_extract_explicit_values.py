"""The app's own ragmon.* values win over what its instrumentation recorded: real LangChain pipelines under
the real OpenInference instrumentor, wrapped in `ragmon.instrument.rag_span`, where the two disagree."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from ragmon import LexicalJudge, instrument
from ragmon.evaluation import evaluate_example
from ragmon.model import Context
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "How long do I have to return an item?"
PARENTS = {
    "returns-policy": ("Returns are accepted within 30 days of delivery. "
                       "Returned items must be unused and in their original packaging."),
}
# The small chunks the retriever searches, each pointing at the document it was cut from: the fake
# embedding finds either, both cut from the one document.
CHUNKS = [
    Document(page_content="Returns are accepted within 30 days of delivery.",
             metadata={"id": "returns-1", "parent": "returns-policy"}),
    Document(page_content="Returned items must be unused and in their original packaging.",
             metadata={"id": "returns-2", "parent": "returns-policy"}),
]
GROUNDED = ("Returns are accepted within 30 days of delivery. "
            "Returned items must be unused and in their original packaging.")


def _chain(answer: str, contexts: list[Document]) -> object:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the context only.\n{context}"), ("human", "{question}")])
    return ({"context": RunnableLambda(lambda _: "\n".join(doc.page_content for doc in contexts)),
             "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())


def test_parent_documents_the_app_records_are_what_the_answer_is_checked_against(langchain: Recorder) -> None:
    # A parent-document retriever: the search (a real retriever span) finds one small chunk, and the model
    # is given the whole document the chunk was cut from, which the app records with rag.retrieved.
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(CHUNKS)
    retriever = store.as_retriever(search_kwargs={"k": 1})
    with instrument.rag_span(QUESTION, tracer_provider=langchain.provider) as rag:
        chunks = retriever.invoke(QUESTION)
        parents = list(dict.fromkeys(doc.metadata["parent"] for doc in chunks))
        rag.retrieved([{"id": parent, "text": PARENTS[parent]} for parent in parents])
        given = [Document(page_content=PARENTS[parent]) for parent in parents]
        answer = _chain(GROUNDED, given).invoke(QUESTION)  # type: ignore[attr-defined]
        rag.answered(answer)

    example = extract(langchain.trace())

    assert example is not None
    assert len(chunks) == 1  # what the retriever span recorded: one chunk, half of what the model saw
    assert example.contexts == (Context("returns-policy", PARENTS["returns-policy"]),)
    # Both sentences are in the parent document, whichever chunk the search found: 2 of 2 supported.
    assert evaluate_example(example, LexicalJudge(), k=5).metrics["groundedness"] == 1.0


def test_the_answer_the_app_records_is_scored_not_the_one_a_guardrail_replaced(langchain: Recorder) -> None:
    # The model makes up a restocking fee; a guardrail after the chain replaces the answer with a
    # refusal, which is what the user got and what the app records.
    made_up = "Returns are accepted within 30 days of delivery. A restocking fee of 15 dollars applies."
    refusal = "I can't answer that from our policies."
    docs = [Document(page_content=PARENTS["returns-policy"])]
    with instrument.rag_span(QUESTION, tracer_provider=langchain.provider) as rag:
        rag.retrieved([{"id": "returns-policy", "text": PARENTS["returns-policy"]}])
        answer = _chain(made_up, docs).invoke(QUESTION)  # type: ignore[attr-defined]
        assert answer == made_up
        rag.answered(refusal)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == refusal
    assert example.question == QUESTION
    # A refusal makes no claim, so no unsupported one; the answer it replaced has 1 of 2 (the fee).
    scored = evaluate_example(example, LexicalJudge(), k=5)
    assert [verdict for verdict in scored.verdicts if not verdict.supported] == []
    replaced = evaluate_example(dataclasses.replace(example, answer=made_up), LexicalJudge(), k=5)
    assert replaced.metrics["hallucination_rate"] == 0.5


def test_the_question_the_app_records_is_the_users_not_the_chains_input(langchain: Recorder) -> None:
    # The app sends the chain a prompt of its own around the user's question.
    docs = [Document(page_content=PARENTS["returns-policy"])]
    with instrument.rag_span(QUESTION, tracer_provider=langchain.provider) as rag:
        rag.retrieved([{"id": "returns-policy", "text": PARENTS["returns-policy"]}])
        chain_input = f"Customer tier: gold. Locale: en-GB. {QUESTION}"
        rag.answered(_chain(GROUNDED, docs).invoke(chain_input))  # type: ignore[attr-defined]

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == GROUNDED
