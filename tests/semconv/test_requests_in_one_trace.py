"""Several requests in one trace, one after another (an eval script's loop, a queue's worker under one span),
with the real OpenInference LangChain instrumentor over langchain-core's offline fakes: the last is scored,
as a retry's last attempt is, and the others are named for the sidecar to say so, which it had not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from ragmon.semconv.extract import extract_noted

if TYPE_CHECKING:
    from semconv.conftest import Recorder

KB = {"kb-warranty": "The warranty lasts 2 years from the date of purchase.",
      "kb-returns": "Items can be returned within 30 days of delivery for a full refund."}


def ask_in_one_span(recorder: Recorder, asked: list[tuple[str, str]]) -> None:
    """Each (question, answer) through retriever -> prompt -> fake chat model, in turn, under one span."""
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=text, id=doc_id) for doc_id, text in KB.items()])
    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])

    def listing(docs: list[Document]) -> str:
        return "\n".join(doc.page_content for doc in docs)

    with recorder.tracer.start_as_current_span("eval loop"):
        for question, answer in asked:
            chain = ({"context": store.as_retriever(search_kwargs={"k": 2}) | listing,
                      "question": RunnablePassthrough()}
                     | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
            chain.invoke(question)


def test_the_requests_before_the_last_are_named_and_the_last_is_scored(langchain: Recorder) -> None:
    ask_in_one_span(langchain, [("How long is the warranty?", "It lasts 2 years."),
                                ("Can I return an item?", "Within 30 days."),
                                ("Is the refund full?", "Yes, a full refund.")])
    example, note = extract_noted(langchain.trace())
    assert example is not None
    assert (example.question, example.answer) == ("Is the refund full?", "Yes, a full refund.")
    assert note is not None and note.startswith(
        "only the last of 3 answers is scored: 3 chains of this trace each retrieved and answered, one after "
        "another, asked different questions ('How long is the warranty?', 'Can I return an item?', 'Is the "
        "refund full?'); ragmon scores one answer a trace.")


def test_a_question_asked_again_is_a_retry_and_says_nothing(langchain: Recorder) -> None:
    ask_in_one_span(langchain, [("How long is the warranty?", "It lasts 3 years."),
                                ("How long is the warranty?", "It lasts 2 years.")])
    example, note = extract_noted(langchain.trace())
    assert example is not None and example.answer == "It lasts 2 years." and note is None
