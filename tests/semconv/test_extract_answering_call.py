"""Which of several model calls given the retrieved documents answered, in an app with no chain span (the
handler calls the retriever and the model itself): not a later call given the same documents and the
question, but not the answer, that suggests follow-up questions; not a relevance check whose output is a
label; and, where nothing tells two such calls apart, an error naming both rather than a guess. Hand-built
spans where timing matters, and the real LangChain instrumentation for the follow-ups shape."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.vectorstores import InMemoryVectorStore
from opentelemetry.trace import SpanKind

from ragmon.semconv.common import ExtractionError
from ragmon.semconv.extract import extract
from ragmon.traces import Span, Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder

TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2"
_span_ids = itertools.count(1)

DOCS = (("kb-refunds", "Refunds are accepted within 30 days of delivery."),
        ("kb-shipping", "Standard shipping takes 5 business days."))
CONTEXT = "\n".join(text for _, text in DOCS)
QUESTION = "How long do I have to ask for a refund?"
ANSWER = "You can ask for a refund within 30 days of delivery."
FOLLOW_UPS = "Can I get a refund on Mars? Do refunds include the moon tax? Is shipping free on Jupiter?"


def span(name: str, attributes: Mapping[str, Any] | None = None, *, parent: Span | None = None,
         start: int, end: int) -> Span:
    return Span(TRACE_ID, f"{next(_span_ids):016x}", parent.span_id if parent else None, name,
                start_time_unix_nano=start, end_time_unix_nano=end, attributes=dict(attributes or {}),
                resource={"service.name": "shop-api"})


def request(attributes: Mapping[str, Any] | None = None) -> Span:
    """The HTTP server span of an app that calls its retriever and model itself: no chain span."""
    return span("POST /ask", attributes, start=0, end=1000)


def retrieval(parent: Span) -> Span:
    attributes: dict[str, Any] = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION}
    for n, (doc_id, text) in enumerate(DOCS):
        attributes[f"retrieval.documents.{n}.document.id"] = doc_id
        attributes[f"retrieval.documents.{n}.document.content"] = text
    return span("VectorStoreRetriever", attributes, parent=parent, start=10, end=20)


def model_call(name: str, instruction: str, output: str, *, parent: Span, start: int, end: int) -> Span:
    """A chat call given an instruction with the retrieved documents as its system message, and the
    user's question (not another call's output)."""
    return span(name, {"openinference.span.kind": "LLM",
                       "llm.input_messages.0.message.role": "system",
                       "llm.input_messages.0.message.content": f"{instruction}\n{CONTEXT}",
                       "llm.input_messages.1.message.role": "user",
                       "llm.input_messages.1.message.content": QUESTION,
                       "llm.output_messages.0.message.role": "assistant",
                       "llm.output_messages.0.message.content": output}, parent=parent, start=start, end=end)


def answering(parent: Span, *, start: int = 30, end: int = 40, output: str = ANSWER) -> Span:
    return model_call("answer", "Answer from the context only.", output, parent=parent, start=start, end=end)


def trace(*spans: Span) -> Trace:
    return Trace(TRACE_ID, spans)


# --- follow-up questions given the same documents and the question --------------------------------


@pytest.mark.parametrize("follow_ups", [
    FOLLOW_UPS,
    "Here are questions you could ask next:\n1. Can I get a refund on Mars?\n2. Is shipping free on Jupiter?",
    '["Can I get a refund on Mars?", "Is shipping free on Jupiter?"]',
])
@pytest.mark.parametrize(("start", "end"), [(50, 60), (30, 90)], ids=["after the answer", "side by side"])
def test_follow_up_questions_given_the_same_documents_are_not_the_answer(
        follow_ups: str, start: int, end: int) -> None:
    # The app asks for follow-up questions after the answer, or at once in a thread pool (ending after
    # it): given the documents and the question, not the answer, they had been scored as the answer.
    root = request()
    example = extract(trace(root, retrieval(root), answering(root),
                            model_call("follow-ups", "Suggest three follow-up questions.", follow_ups,
                                       parent=root, start=start, end=end)))

    assert example is not None
    assert example.answer == ANSWER
    assert example.question == QUESTION


def test_follow_up_questions_before_the_answer_leave_the_answer_too() -> None:
    # Must not change: the follow-ups call ended first, the answering call last.
    root = request()
    example = extract(trace(root, retrieval(root),
                            model_call("follow-ups", "Suggest follow-up questions.", FOLLOW_UPS, parent=root,
                                       start=30, end=35),
                            answering(root, start=30, end=40)))

    assert example is not None
    assert example.answer == ANSWER


def test_an_answer_ending_with_a_question_still_states_something() -> None:
    root = request()
    answer = f"{ANSWER} Is there anything else I can help with?"
    example = extract(trace(root, retrieval(root), answering(root, output=answer),
                            model_call("follow-ups", "Suggest follow-up questions.", FOLLOW_UPS, parent=root,
                                       start=50, end=60)))

    assert example is not None
    assert example.answer == answer


# --- a check whose output is a label ------------------------------------------------------------------


@pytest.mark.parametrize(("label", "start", "end"), [
    ("yes", 22, 28),  # before the answer, which it gates: the last to end answered already
    ("Relevant", 30, 45),  # side by side, ending after the answer
    ("not relevant", 50, 60),  # a classification after the answer
])
def test_a_check_call_whose_output_is_a_label_is_not_the_answer(label: str, start: int, end: int) -> None:
    root = request()
    example = extract(trace(root, retrieval(root),
                            model_call("check", "Is the context relevant to the question? yes or no.", label,
                                       parent=root, start=start, end=end),
                            answering(root)))

    assert example is not None
    assert example.answer == ANSWER


# --- two calls nothing tells apart ------------------------------------------------------------------


SUMMARY = "The user asked about refunds; the policy allows 30 days."


@pytest.mark.parametrize(("start", "end"), [(50, 60), (30, 90), (22, 28)],
                         ids=["after the answer", "side by side", "before the answer"])
def test_two_calls_given_the_same_documents_with_different_statements_are_an_error(start: int,
                                                                                   end: int) -> None:
    # A summary for the app's log, given the documents and the question but not the answer: which call
    # the user got is unknown, and a guess scored a summary (or a retry's rejected first try).
    root = request()
    answer = answering(root)
    summary = model_call("summary", "Summarise this exchange for the log.", SUMMARY, parent=root,
                         start=start, end=end)

    with pytest.raises(ExtractionError) as raised:
        extract(trace(root, retrieval(root), answer, summary))

    message = str(raised.value)
    assert raised.value.field == "answer"
    assert f"'answer' (span id {answer.span_id})" in message
    assert f"'summary' (span id {summary.span_id})" in message
    assert "ragmon.answer" in message
    assert raised.value.span_id in {answer.span_id, summary.span_id}


@pytest.mark.parametrize(("first", "second"), [
    ("Which order do you mean?", FOLLOW_UPS),  # a clarifying question, and follow-up suggestions
    ("no", "Yes."),  # a relevance check's label, and a one-word answer
    ("yes", "Do you mean a refund for the order or for its shipping?"),  # a check, a clarifying question
    ("30 days.", FOLLOW_UPS),  # a short answer, and follow-up suggestions
])
def test_two_calls_neither_stating_anything_are_an_error(first: str, second: str) -> None:
    # Labels and questions only: nothing tells the answer from a check or from suggestions.
    root = request()
    with pytest.raises(ExtractionError, match=r"ragmon\.answer"):
        extract(trace(root, retrieval(root),
                      model_call("first", "Answer or check.", first, parent=root, start=22, end=28),
                      model_call("second", "Answer or suggest.", second, parent=root, start=30, end=40)))


def test_the_apps_ragmon_answer_settles_two_calls_nothing_tells_apart() -> None:
    # What the error tells the user to do: the app's own answer is scored, no error.
    root = request({"ragmon.answer": ANSWER})
    example = extract(trace(root, retrieval(root), answering(root),
                            model_call("summary", "Summarise for the log.", SUMMARY, parent=root,
                                       start=50, end=60)))

    assert example is not None
    assert example.answer == ANSWER


def test_two_calls_that_wrote_the_same_answer_are_no_error() -> None:
    # A retry that wrote the same text: the answer is known whichever call gave it.
    root = request()
    example = extract(trace(root, retrieval(root), answering(root),
                            answering(root, start=50, end=60)))

    assert example is not None
    assert example.answer == ANSWER


def test_a_chain_whose_output_is_the_answer_needs_no_call_chosen() -> None:
    # Must not change: the top chain's output answers, whichever of its calls wrote it.
    chain = span("RunnableSequence", {"openinference.span.kind": "CHAIN", "input.value": QUESTION,
                                      "output.value": ANSWER}, start=0, end=1000)
    example = extract(trace(chain, retrieval(chain), answering(chain),
                            model_call("summary", "Summarise for the log.", SUMMARY, parent=chain,
                                       start=50, end=60)))

    assert example is not None
    assert example.answer == ANSWER


def test_two_chains_each_holding_one_of_two_such_calls_are_an_error() -> None:
    # Which top chain answers follows from which call answered: when that is unknown, so is the answer.
    root = request()
    chains = [span(name, {"openinference.span.kind": "CHAIN", "input.value": QUESTION,
                          "output.value": output}, parent=root, start=start, end=start + 20)
              for name, output, start in (("answer-chain", ANSWER, 25), ("summary-chain", SUMMARY, 50))]
    answer = answering(chains[0], start=30, end=40)
    summary = model_call("summary", "Summarise for the log.", SUMMARY, parent=chains[1], start=55, end=60)

    with pytest.raises(ExtractionError) as raised:
        extract(trace(root, retrieval(root), *chains, answer, summary))

    assert f"'answer' (span id {answer.span_id})" in str(raised.value)
    assert f"'summary' (span id {summary.span_id})" in str(raised.value)


def _user_call(name: str, content: str, output: str, *, parent: Span, start: int, end: int) -> Span:
    return span(name, {"openinference.span.kind": "LLM",
                       "llm.input_messages.0.message.role": "user",
                       "llm.input_messages.0.message.content": content,
                       "llm.output_messages.0.message.role": "assistant",
                       "llm.output_messages.0.message.content": output}, parent=parent, start=start, end=end)


def test_a_later_call_given_new_documents_still_refines_the_answer() -> None:
    # Must not change: a refine step given a document the first call was not given answers.
    root = request()
    first = _user_call("draft", f"{DOCS[0][1]}\n{QUESTION}", "Within 30 days of delivery.", parent=root,
                       start=30, end=40)
    refined = "Within 30 days of delivery; shipping takes 5 business days."
    example = extract(trace(root, retrieval(root), first,
                            model_call("refine", "Refine the draft.", refined, parent=root,
                                       start=50, end=60)))

    assert example is not None
    assert example.answer == refined


def test_follow_ups_given_a_refined_answer_that_repeats_its_draft_are_not_the_answer() -> None:
    # Must not change: a call given no document but the outputs of calls given documents answers only
    # when they bring documents the answer's round was not given (a tree_summarize root). The follow-ups
    # call is given the refined answer alone, which repeats the draft word for word: the draft's document
    # came to the refined answer through the draft, and the follow-up questions answer nothing.
    root = request()
    draft = "Refunds take 30 days from delivery."
    refined = f"{draft} Shipping takes 5 business days."
    example = extract(trace(
        root, retrieval(root),
        _user_call("draft", f"{DOCS[0][1]}\n{QUESTION}", draft, parent=root, start=30, end=40),
        _user_call("refine", f"{DOCS[1][1]}\nRefine the draft: {draft}", refined, parent=root,
                   start=50, end=60),
        _user_call("follow-ups", f"Suggest follow-up questions to: {refined}", FOLLOW_UPS, parent=root,
                   start=70, end=80)))

    assert example is not None
    assert example.answer == refined
    assert [context.id for context in example.contexts or ()] == ["kb-refunds", "kb-shipping"]


# --- the real LangChain instrumentation ------------------------------------------------------------


def _store() -> InMemoryVectorStore:
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=text, metadata={"id": doc_id}) for doc_id, text in DOCS])
    return store


def _messages(instruction: str, docs: list[Document]) -> list[BaseMessage]:
    return [SystemMessage(instruction + "\n" + "\n".join(doc.page_content for doc in docs)),
            HumanMessage(QUESTION)]


class Gated(FakeListChatModel):
    """A fake chat model that, inside its call (its span open), sets `started` and waits for `wait_for`."""

    started: Any = None
    wait_for: Any = None

    def _call(self, *args: Any, **kwargs: Any) -> str:
        if self.started is not None:
            self.started.set()
        if self.wait_for is not None:
            assert self.wait_for.wait(timeout=10)
        return super()._call(*args, **kwargs)


@pytest.mark.parametrize("side_by_side", [False, True], ids=["after the answer", "side by side"])
def test_a_handlers_follow_up_call_is_not_the_answer_under_langchain(langchain: Recorder,
                                                                     side_by_side: bool) -> None:
    # The handler retrieves, asks the model for the answer and for follow-up questions given the same
    # documents and the question; side by side, both calls start before either ends and the follow-ups
    # end last.
    follow_ups_started, answered = threading.Event(), threading.Event()
    answer_model = Gated(responses=[ANSWER], wait_for=follow_ups_started if side_by_side else None)
    follow_up_model = Gated(responses=[FOLLOW_UPS], started=follow_ups_started,
                            wait_for=answered if side_by_side else None)

    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        docs = _store().as_retriever(search_kwargs={"k": 2}).invoke(QUESTION)
        answer_messages = _messages("Answer from the context only.", docs)
        follow_up_messages = _messages("Suggest three follow-up questions the user could ask next.", docs)
        if side_by_side:
            with ThreadPoolExecutor(1) as pool:
                later = pool.submit(copy_context().run, follow_up_model.invoke, follow_up_messages)
                got = answer_model.invoke(answer_messages).content
                answered.set()
                suggested = later.result().content
        else:
            got = answer_model.invoke(answer_messages).content
            suggested = follow_up_model.invoke(follow_up_messages).content
    assert (got, suggested) == (ANSWER, FOLLOW_UPS)
    trace = langchain.trace()
    calls = {span.attributes["llm.output_messages.0.message.content"]: span for span in trace.spans
             if "llm.output_messages.0.message.content" in span.attributes}
    answer_call, follow_up_call = calls[ANSWER], calls[FOLLOW_UPS]
    assert follow_up_call.end_time_unix_nano > answer_call.end_time_unix_nano
    assert (follow_up_call.start_time_unix_nano < answer_call.end_time_unix_nano) is side_by_side

    example = extract(trace)

    assert example is not None
    assert example.answer == ANSWER
    assert example.question == QUESTION
    assert example.contexts is not None
    assert sorted(context.text for context in example.contexts) == sorted(text for _, text in DOCS)


def test_a_follow_up_chain_given_the_documents_is_not_the_answer_under_langchain(langchain: Recorder) -> None:
    # The handler retrieves, then runs two chains on the documents and the question: the answering one,
    # and one suggesting follow-ups. The chain holding the answering call answers; the follow-ups chain's
    # call had been taken for the answering call, and that chain's output for the answer.
    def chain(instruction: str, output: str) -> Any:
        prompt = ChatPromptTemplate.from_messages([("system", instruction + "\n{context}"),
                                                   ("human", "{question}")])
        return prompt | FakeListChatModel(responses=[output]) | StrOutputParser()

    with langchain.tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER):
        docs = _store().as_retriever(search_kwargs={"k": 2}).invoke(QUESTION)
        given = {"context": "\n".join(doc.page_content for doc in docs), "question": QUESTION}
        got = chain("Answer from the context only.", ANSWER).invoke(given)
        suggested = chain("Suggest follow-up questions.", FOLLOW_UPS).invoke(given)
    assert (got, suggested) == (ANSWER, FOLLOW_UPS)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == ANSWER
    assert example.question == QUESTION
