"""Real RAG pipelines that call a model more than once, under the real OpenInference instrumentors: a
model that re-ranks or grades the retrieved documents before another answers from the ones it kept. The
documents judged are the ones the answering call was given, not every one some call was shown, nor one
only its answer quotes; and with no chain span, the call given the ranking's choice is the answering one."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from instrumented_apps import LANGCHAIN_CORPUS, QUESTION, RagChain, ScriptedLLM, langchain_contexts
from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore, VectorStoreRetriever
from llama_index.core import Document, PromptHelper, VectorStoreIndex, get_response_synthesizer
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.postprocessor import LLMRerank
from llama_index.core.schema import TextNode
from opentelemetry.trace import Span, SpanKind

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluation import evaluate_example
from ragmon.semconv import extract as extract_module
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Trace

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


LONG_NODES = {
    "refunds": "Refunds are accepted within 30 days of delivery. "
               + "Items must be unused and in their original packaging. " * 30,
    "shipping": "Standard shipping takes 5 business days. "
                + "Orders placed before noon ship the same day. " * 30,
    "support": "Support is available by chat around the clock. "
               + "Phone support is open on weekdays only. " * 30,
}
"""Three documents too long for one call of a 700-token window: tree_summarize summarises them in two
calls."""


@pytest.mark.parametrize("order", [("refunds", "shipping", "support"), ("support", "shipping", "refunds")])
def test_tree_summarize_over_two_leaf_calls_keeps_every_node_the_leaves_were_given(
        llamaindex: Recorder, order: tuple[str, ...]) -> None:
    # Two leaf calls each summarise some of the nodes, and the root call is given only their two
    # summaries, no node's start. The last leaf had been read as the answering call: the only context was
    # the node it was given ('support', or 'shipping' in the other order), and the answer, copied from
    # the refunds and support nodes, scored 0.5 or 0.0.
    answer = "Refunds are accepted within 30 days of delivery. Support is available by chat around the clock."
    model = ScriptedLLM(replies=["Refunds are accepted within 30 days of delivery.",
                                 "Support is available by chat around the clock.", answer])
    index = VectorStoreIndex([TextNode(id_=node_id, text=LONG_NODES[node_id]) for node_id in order],
                             embed_model=MockEmbedding(embed_dim=8))
    synthesizer = get_response_synthesizer(llm=model, response_mode="tree_summarize",
                                           prompt_helper=PromptHelper(context_window=700, num_output=64))
    llamaindex.exporter.clear()
    response = index.as_query_engine(llm=model, similarity_top_k=3,
                                     response_synthesizer=synthesizer).query(QUESTION)

    example = extract(llamaindex.trace())

    assert example is not None
    assert model.replies == []  # two leaves and the root: three calls
    assert str(response) == answer
    assert sorted(context.id for context in example.contexts or ()) == ["refunds", "shipping", "support"]
    assert example.answer == answer
    assert _groundedness(example) == 1.0


EXTRACT = ("Given the following question and context, extract any part of the context *AS IS* that is "
           "relevant to answer the question. If none of the context is relevant return NO_OUTPUT.\n\n"
           "> Question: {question}\n> Context:\n>>>\n{context}\n>>>\nExtracted relevant parts:")
"""LangChain's LLMChainExtractor prompt."""
EXTRACTS = {"kb-refunds": "within 30 days of delivery", "kb-shipping": "takes 5 business days",
            "kb-support": "available by chat around the clock",
            "kb-warranty": "manufacturing defects for two years"}
"""What the extractor keeps of each document: words from its middle, so no document's start shows in the
answering call's prompt."""


@pytest.mark.parametrize("kept", [(0,), (1,), (0, 2)], ids=["first", "second", "first and third"])
def test_documents_a_hand_written_extractor_dropped_are_no_support(langchain: Recorder,
                                                                    kept: tuple[int, ...]) -> None:
    # A plain function asks the model for an extract of each of the three documents retrieved, one call
    # a document, and keeps those not NO_OUTPUT; the answering call is given the extracts alone. The last
    # extractor call had been read as the answering call, and its document, one it answered NO_OUTPUT
    # for, was the only context: the documents the answer came from were lost (groundedness 0.0 or 0.5).
    rag = RagChain()
    documents = rag.retriever.invoke(QUESTION)
    kept_ids = [documents[position].metadata["id"] for position in kept]

    def compress(question: str) -> str:
        extracts = []
        for document in rag.retriever.invoke(question):
            reply = EXTRACTS[document.metadata["id"]] if document.metadata["id"] in kept_ids else "NO_OUTPUT"
            prompt = EXTRACT.format(question=question, context=document.page_content)
            extract_model = GenericFakeChatModel(messages=iter([AIMessage(reply)]))
            if (extracted := str(extract_model.invoke(prompt).content)) != "NO_OUTPUT":
                extracts.append(extracted)
        return "\n\n".join(extracts)

    answer = " ".join(LANGCHAIN_CORPUS[doc_id] for doc_id in kept_ids)
    chain = ({"context": RunnableLambda(compress), "question": RunnablePassthrough()}
             | ChatPromptTemplate.from_messages([("system", "Answer from the context only.\n{context}"),
                                                 ("human", "{question}")])
             | GenericFakeChatModel(messages=iter([AIMessage(answer)])) | StrOutputParser())
    langchain.exporter.clear()
    chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == 3
    assert example.contexts == langchain_contexts([documents[position] for position in kept])
    assert example.answer == answer
    assert _groundedness(example) == 1.0


# --- no chain span: the handler asks a model to rank the documents, then another to answer -----------

RANK = "Rank the documents by relevance to the question: reply with their numbers, most relevant first."
ANSWER_FROM = "Answer from the context only."
SUPPORT_ANSWER = "You can reach support by chat at any hour of the day."


def _prompt(instruction: str, documents: list[LangChainDocument], start: int = 1) -> list[BaseMessage]:
    numbered = "\n".join(f"{n}. {doc.page_content}" for n, doc in enumerate(documents, start))
    return [SystemMessage(f"{instruction}\n{numbered}"), HumanMessage(QUESTION)]


def _ask(instruction: str, documents: list[LangChainDocument], reply: str, start: int = 1) -> str:
    """A model call given `instruction` over the `documents`, numbered from `start`, and the question,
    replying `reply`. GenericFakeChatModel, as FakeListChatModel records its scripted replies in its
    invocation parameters, so that its input would hold its own output, which no real model's does."""
    model = GenericFakeChatModel(messages=iter([AIMessage(reply)]))
    return str(model.invoke(_prompt(instruction, documents, start)).content)


def _retriever(corpus: dict[str, str], k: int) -> VectorStoreRetriever:
    """A retriever of the `k` documents of `corpus` (id to text) nearest the question, as RagChain's."""
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([LangChainDocument(page_content=text, metadata={"id": doc_id})
                         for doc_id, text in corpus.items()])
    return store.as_retriever(search_kwargs={"k": k})


def _rank_then_answer(recorder: Recorder, ranking: str, keep: int, answer: str = SUPPORT_ANSWER,
                      order: tuple[int, ...] | None = None, *, retriever: VectorStoreRetriever | None = None,
                      start: int = 1) -> list[LangChainDocument]:
    """An app's handler under its HTTP server span, with no chain span: it retrieves three documents (or
    those of `retriever`), asks a model to rank them, numbered from `start` (the reply `ranking`), and
    another to answer from the first `keep` of the order the app reads from it: `order`, the documents'
    numbers most relevant first, else every number of the reply. The retrieved documents, in their
    retrieved order."""
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = (retriever or RagChain().retriever).invoke(QUESTION)
        reply = _ask(RANK, documents, ranking, start)
        numbers = order or tuple(int(number) for number in re.findall(r"\d+", reply))
        _ask(ANSWER_FROM, [documents[number - start] for number in numbers[:keep]], answer)
    return documents


def _model_span_ids(recorder: Recorder) -> list[str]:
    """The ids of the model calls' spans, in the order they started."""
    spans = sorted((span for span in recorder.exporter.get_finished_spans()
                    if (span.attributes or {}).get("openinference.span.kind") == "LLM"),
                   key=lambda span: span.start_time or 0)
    return [format(span.context.span_id, "016x") for span in spans]


RANKINGS = ["2", "2, 3, 1", '{"ranking": [2, 3, 1]}', "Document 2 is the most relevant.", "Documents 2 and 3"]
"""A ranking model's replies putting the second document retrieved first: its number alone (a label),
the numbers in order, as JSON, in a sentence, and naming the two it kept."""

DIFFERENT_SETS = "two model calls given different sets of the retrieved documents (3 and 1 of them)"
"""What the error says of two calls, the earlier given three documents, the later one of them."""


@pytest.mark.parametrize("ranking", RANKINGS)
def test_without_a_chain_the_call_given_the_ranking_calls_choice_answers(
        langchain: Recorder, ranking: str) -> None:
    # The ranking call was given all three documents and wrote a statement ("2, 3, 1") or only "2" (a
    # label); the answering call, asked after it ended, was given only the second document retrieved,
    # and states something. Read as two calls given the same documents, every such trace was
    # refused as an error.
    documents = _rank_then_answer(langchain, ranking, keep=1)

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == 3
    assert example.answer == SUPPORT_ANSWER
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(documents[1:2])


@pytest.mark.parametrize("ranking", RANKINGS)
@pytest.mark.parametrize(("answer", "groundedness"), [
    ("By chat.", 1.0),  # "chat" is in the chosen document: "Support is available by chat around the clock."
    ("30 days.", 0.0),  # neither "30" nor "days" is
    ("Paris.", 0.0),
    ("$49.99", 0.0),
])
def test_a_short_answer_from_the_ranking_calls_choice_answers(
        langchain: Recorder, ranking: str, answer: str, groundedness: float) -> None:
    # An answer of two words or fewer states nothing by word count: left beside a ranking that did
    # ("2, 3, 1", the JSON, the sentence), the ranking's text was scored as the answer against all three
    # documents; beside the label "2", the trace was an error.
    documents = _rank_then_answer(langchain, ranking, keep=1, answer=answer)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer
    assert example.contexts == langchain_contexts(documents[1:2])
    assert _groundedness(example) == groundedness


def test_a_ranking_that_keeps_every_document_leaves_two_calls_nothing_tells_apart(
        langchain: Recorder) -> None:
    # Must not change: the answering call was given the same three documents as the ranking call, only
    # reordered, and neither was given the other's output: which wrote what the user got is unknown.
    _rank_then_answer(langchain, "2, 3, 1", keep=3)
    ranking, answering = _model_span_ids(langchain)

    with pytest.raises(ExtractionError, match="two model calls given the same documents") as raised:
        extract(langchain.trace())

    assert f"(span id {ranking})" in str(raised.value)
    assert f"(span id {answering})" in str(raised.value)


def test_a_call_given_some_of_the_documents_beside_one_given_all_is_no_choice(langchain: Recorder) -> None:
    # The same two calls, the second started before the first ended (an app asking at once for the answer
    # from the top document and for a summary of them all): the first cannot have chosen what the second
    # was given, and which the user got is unknown.
    _rank_then_answer(langchain, "2, 3, 1", keep=1)
    ranking, answering = _model_span_ids(langchain)
    trace = langchain.trace()
    ranking_end = next(span.end_time_unix_nano for span in trace.spans if span.span_id == ranking)
    side_by_side = Trace(trace.trace_id, tuple(
        replace(span, start_time_unix_nano=ranking_end - 1) if span.span_id == answering else span
        for span in trace.spans))

    with pytest.raises(ExtractionError, match=re.escape(DIFFERENT_SETS)) as raised:
        extract(side_by_side)

    assert f"(span id {ranking})" in str(raised.value)
    assert f"(span id {answering})" in str(raised.value)


# --- no chain span: the handler answers, then asks a model about the top document or each one ---------

ANSWER = "You have 30 days from delivery to ask for a refund, and support answers by chat at any hour."
FOLLOW_UP = "Suggest three follow-up questions the user may ask about this document."
FOLLOW_UPS = "How do I start a refund?\nCan I get a refund after 30 days?\nIs shipping refunded?"
RELEVANT = "Is this document relevant to the question? Reply yes or no."


def _answer_then_ask(recorder: Recorder, answer: str, instruction: str, replies: list[str],
                     retriever: VectorStoreRetriever | None = None) -> list[LangChainDocument]:
    """An app's handler under its HTTP server span, with no chain span: it retrieves three documents (or
    those of `retriever`), has a model answer from all of them, then, once the answer is written, asks
    `instruction` of the first document, the second, and so on, one call each, the n-th replying
    `replies[n]`; none is given the answer. The retrieved documents, in their retrieved order."""
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = (retriever or RagChain().retriever).invoke(QUESTION)
        _ask(ANSWER_FROM, documents, answer)
        for document, reply in zip(documents, replies, strict=False):
            _ask(instruction, [document], reply)
    return documents


def test_follow_up_questions_on_the_top_document_after_the_answer_leave_the_answer(
        langchain: Recorder) -> None:
    # The follow-up call was given only the top document, once the answer ended: read as the answer from
    # a ranking's choice, its three questions were scored instead of the answer, against one document.
    documents = _answer_then_ask(langchain, ANSWER, FOLLOW_UP, [FOLLOW_UPS])

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == 3
    assert example.answer == ANSWER
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(documents)


@pytest.mark.parametrize("grades", [
    ["yes", "yes", "yes"], ["yes", "no", "yes"], ["Relevance: 9", "Score: 2"],
], ids=["every document relevant", "one not", "named scores"])
def test_a_yes_no_check_of_each_document_after_the_answer_leaves_the_answer(
        langchain: Recorder, grades: list[str]) -> None:
    # A retrieval-quality log: once the answer is written, a model grades each document, one call each.
    # The first grade had replaced the answer: scored as the answer ("yes"), or an error naming two
    # grades that differ.
    documents = _answer_then_ask(langchain, ANSWER, RELEVANT, grades)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == ANSWER
    assert example.question == QUESTION
    assert example.contexts == langchain_contexts(documents)


DECIMAL_GRADES = ["Score: 0.9", "Relevance: 0.85", "Rating: 4.5", "Score: 8.5/10", "Confidence: 0.92", "0.9",
                  "Relevant (0.8)", "**Confidence:** 92%", "Bewertung: 0,9", '{"relevance_score": 0.8}',
                  "Score: 0.7\n"]
"""A grader's score of one document written with a decimal point or comma, or a percentage: named, bare,
in brackets, in emphasis, in German, as JSON, ending its line."""
GRADES = ["Oui", "Non", "Ja", "Nein", "Sí", "Да", "Partially relevant", "Highly relevant", "Rating: 8",
          "Grade: A", "8/10", "Score: 8/10", "Relevance: 9/10", '{"binary_score": "yes"}',
          '{"is_relevant": true}', '{"relevance_score": 8}', "Correct", "Yep", *DECIMAL_GRADES]
"""A grader's reply about one document in words other than English yes, no and relevance: in French,
German, Spanish and Russian, a degree, a rating, a letter grade, a fraction, JSON (LangGraph's corrective
RAG grades `{"binary_score": "yes"}`), English synonyms of yes, and decimal scores."""


@pytest.mark.parametrize("grade", GRADES)
def test_a_check_of_the_top_document_in_any_words_after_the_answer_leaves_the_answer(
        langchain: Recorder, grade: str) -> None:
    # The answer was written from all three documents, then a model graded the top one. Only a check
    # worded as one of 11 English words left the answer: any other grade was scored as the answer,
    # against the top document alone, as a decimal score still was ("Score: 0.9" read as three words).
    documents = _answer_then_ask(langchain, ANSWER, RELEVANT, [grade])

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == ANSWER
    assert example.contexts == langchain_contexts(documents)


def _ask_beside(recorder: Recorder, check: str, answer: str, check_first: bool) -> list[LangChainDocument]:
    """An app's handler under its HTTP server span, with no chain span: it retrieves three documents and
    asks a model whether they are relevant (the reply `check`) and another to answer from them (the reply
    `answer`), both given all three, the check first or last. The retrieved documents."""
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = RagChain().retriever.invoke(QUESTION)
        replies = [(RELEVANT, check), (ANSWER_FROM, answer)]
        for instruction, reply in replies if check_first else reversed(replies):
            _ask(instruction, documents, reply)
    return documents


NAMED_AMOUNTS = ["Price: 49.99", "Cost: $12.50", "Total: \u20ac30.00", "Answer: 3.5", "Discount: 12.5%",
                 "Price: 0.99", "Fee: 2.5%", "Tax: 0.25", "Dosage: 0.5", "Credit score: 720",
                 "VAT: 20%", "Discount: 15%", "Fee: 3%", "Price: 50", "Total: 30"]
"""Short answers giving an amount under a name that is no grade's, as a decimal (above 1 or not), a
percentage (whole or not), a whole number or after a currency sign, and one under a grade's name past any
scale (a credit score)."""
LOG_LINE = "Log: the user asked about refunds and was told the amount from the refunds policy."
BESIDE_A_CHECK = [
    *(("Yes", answer) for answer in ("2.5 mg.", "\u20ac49.99 each.", "1.5 litres.",
                                     "See example.com/refunds.", "By 12/05/2026.", "Open 24/7.",
                                     *NAMED_AMOUNTS)),
    *((grade, ANSWER) for grade in DECIMAL_GRADES),
]
"""(a check's reply, the answer) given the same documents: short answers with a decimal, a date, a URL or an
amount beside a "Yes", and the answer beside a decimal grade."""


@pytest.mark.parametrize("check_first", [True, False], ids=["check then answer", "answer then check"])
@pytest.mark.parametrize(("check", "answer"), BESIDE_A_CHECK)
def test_the_answer_beside_a_check_given_the_same_documents_answers(
        langchain: Recorder, check: str, answer: str, check_first: bool) -> None:
    # The answer states something, the check does not. Read as one word, "2.5", "12/05/2026" or "24/7"
    # had made a short answer a label of two words too; read as a grade ("Price: 49.99" like "Score: 0.9",
    # "$" and "\u20ac" passed over between the colon and the number), an amount stated nothing either; and
    # "Score: 0.9" had been read as three words, a statement; a whole amount ("VAT: 20%", "Price: 50"), no
    # grade, as a label of two words. Each made the trace an error naming both.
    documents = _ask_beside(langchain, check, answer, check_first)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer
    assert example.contexts == langchain_contexts(documents)


@pytest.mark.parametrize("answer", NAMED_AMOUNTS)
def test_a_short_answer_naming_an_amount_beside_a_log_line_leaves_two_calls_nothing_tells_apart(
        langchain: Recorder, answer: str) -> None:
    # The app answers, then has a model write a log line from the same documents. Read as a grade, the
    # answer gave way to the log line, which was scored as the answer.
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = RagChain().retriever.invoke(QUESTION)
        _ask(ANSWER_FROM, documents, answer)
        _ask("Write a log line.", documents, LOG_LINE)
    answering, logging = _model_span_ids(langchain)

    with pytest.raises(ExtractionError, match="two model calls given the same documents") as raised:
        extract(langchain.trace())

    assert f"(span id {answering})" in str(raised.value)
    assert f"(span id {logging})" in str(raised.value)


@pytest.mark.parametrize("answer", [
    "30 days from delivery, and support answers by chat at any hour.",
    "According to document 2, you have 30 days from delivery to ask for a refund.",
], ids=["opening on a number", "citing a document"])
def test_an_answer_naming_a_number_ranks_nothing_and_a_check_after_it_leaves_it(
        langchain: Recorder, answer: str) -> None:
    # An answer opening on a number or citing a document by its number ranks nothing: the French check
    # of the top document asked after it does not answer in its place.
    documents = _answer_then_ask(langchain, answer, RELEVANT, ["Oui"])

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer
    assert example.contexts == langchain_contexts(documents)


@pytest.mark.parametrize("app", [
    lambda recorder: _rank_then_answer(recorder, "2", keep=1, answer="yes"),
    lambda recorder: _rank_then_answer(recorder, "2", keep=1, answer="No."),
    lambda recorder: _rank_then_answer(recorder, "2", keep=1, answer="Not relevant."),
    lambda recorder: _rank_then_answer(recorder, "Document 2 is the most relevant.", keep=1, answer="yes"),
    lambda recorder: _rank_then_answer(recorder, "2", keep=1, answer="Score: 0.9"),
    lambda recorder: _answer_then_ask(recorder, "Paris.", RELEVANT, ["yes"]),
], ids=["a yes from a ranking's label", "a no from a ranking's label", "not relevant from a ranking's label",
        "a yes from a ranking's sentence", "a decimal score from a ranking's label",
        "a check's label after a short answer"])
def test_a_check_word_after_a_label_given_some_of_its_documents_leaves_two_calls_nothing_tells_apart(
        langchain: Recorder, app: Callable[[Recorder], object]) -> None:
    # Two calls that state nothing, the later, writing a check's word, given the top document once the
    # earlier, given all three, ended: "2" then "yes" (a ranking, then the answer) is recorded as "30
    # days." then "yes" (the answer, then a check) is, and scoring the later had scored a check's "yes"
    # as the answer, as it still scored a named decimal score ("Score: 0.9", where "Score: 8" was a
    # check's). The error had said the two were given the same documents.
    app(langchain)
    earlier, later = _model_span_ids(langchain)

    with pytest.raises(ExtractionError, match=re.escape(DIFFERENT_SETS)) as raised:
        extract(langchain.trace())

    assert f"(span id {earlier})" in str(raised.value)
    assert f"(span id {later})" in str(raised.value)


# --- what the earlier call's numbers name tells a ranking from an answer --------------------------------

WORDED_RANKINGS = [
    ("Doc: 2, Relevance: 9\nDoc: 3, Relevance: 7\nDoc: 1, Relevance: 2", (2, 3, 1)),
    ("Ranking: 2, 3, 1", None),
    ("[Document 2, Document 3, Document 1]", None),
    ("The most relevant document is 2.", None),
    ("**Document 2** is the most relevant.", None),
    ('{"ranking": ["2", "3", "1"]}', None),
]
"""A ranking model's replies putting the second document of three first, in forms no list of three had
read as a ranking: LlamaIndex LLMRerank's lines (the app reads the documents' numbers, not the scores),
a label before the numbers, a list naming documents, the number after its noun, in emphasis, and JSON
writing the numbers as strings."""


SCORED_RANKINGS = [
    ("Document 2 (score 0.91)", (2,)),
    ("Document 2, relevance 9", (2,)),
    ("2 (0.9), 3 (0.5), 1 (0.1)", (2, 3, 1)),
    ("1. Document 2\n2. Document 3\n3. Document 1", (2, 3, 1)),
]
"""The same choice with each document's score beside its number in forms other than "Name: value" (a
score in brackets, a score named with no colon), and as a numbered list of documents: the score's number,
or the list's, had been read as a document's too."""


@pytest.mark.parametrize(("ranking", "order"), WORDED_RANKINGS + SCORED_RANKINGS)
def test_a_short_answer_after_a_ranking_in_other_words_answers(
        langchain: Recorder, ranking: str, order: tuple[int, ...] | None) -> None:
    # Each reply names only the numbers of the three documents the ranking call was given, none twice,
    # the document the answering call was given among them, beside scores or list numbers that name
    # none. The ranking's text had been scored as the answer against all three documents (or the trace
    # was an error beside the two-word answer).
    documents = _rank_then_answer(langchain, ranking, keep=1, answer="30 days.", order=order)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "30 days."
    assert example.contexts == langchain_contexts(documents[1:2])
    assert _groundedness(example) == 0.0  # neither "30" nor "days" is in the support document


NUMBERED_ANSWERS = [
    '{"refund_window_days": 30}',
    '{"price_eur": 49.99, "in_stock": 3}',
    "Document 2: you have 30 days from delivery to ask for a refund.",
    "Source 1 says you have 30 days from delivery to ask for a refund.",
    "30",
    "30 days.",
]
"""Answers naming a number no document among three has (30, 49.99): structured output as JSON, an
answer opening on its citation, a bare number, a short answer."""


CITED_AMOUNTS = ["Per Document 1, refund window: 30 days.", "Price: 49.99 (Document 1)",
                 "See Document 1 (refund window: 30 days)."]
"""Answers citing the first document beside a value under a name that is no score's."""


CITING_ANSWERS = ["Refunds are accepted within thirty days of delivery (Document 1).",
                  "Refunds are accepted within thirty days of delivery [Source 1].",
                  "According to Document 1, refunds are accepted within thirty days of delivery.",
                  "Refunds are accepted within thirty days of delivery.\n\nSources: Document 1",
                  "Refunds are accepted within thirty days of delivery (see context 1).",
                  "R\u00fcckerstattungen sind innerhalb von drei\u00dfig Tagen m\u00f6glich (Dokument 1).",
                  "Refunds are accepted for at most thirty days after delivery (Document 1).",
                  "Refunds are accepted for At  most thirty days after delivery (Document 1).",
                  "The most popular plan is Pro (Document 1).",
                  "Our best-selling item is the Acme kettle (Source 1).",
                  "Die R\u00fcckerstattung erfolgt am n\u00e4chsten Werktag (Dokument 1).",
                  "Refunds take thirty days (Document 1).",
                  "Yes, by chat (Source 1).",
                  "1. Refunds are accepted within thirty days (Document 1)."]
"""Short answers naming their source, the first document, in words and no other number, in the middle,
at the end, in German, beside "at most" (an amount's words, not a ranking's, however cased and spaced),
"most", "best" or "am ...sten" in passing, in six words or fewer, and as a list's item."""


KEPT_BEFORE_A_CHECK = [
    *((answer, [grade]) for answer in NUMBERED_ANSWERS
      for grade in ("Oui", "Partially relevant", "8/10", '{"binary_score": "yes"}', "yes")),
    *((answer, [grade]) for answer in CITED_AMOUNTS for grade in ("Oui", "yes", "Score: 0.9")),
    *((answer, grades) for answer in CITING_ANSWERS
      for grades in (["yes"], ["relevant"], ["Score: 0.9"], ['{"binary_score": "yes"}'],
                     ["yes", "no", "no"])),
]
"""Answers written from all three documents, each followed by a model's grade of the top one (or of each
in turn)."""


@pytest.mark.parametrize(("answer", "grades"), KEPT_BEFORE_A_CHECK)
def test_an_answer_keeps_its_place_before_a_check_of_its_documents(
        langchain: Recorder, answer: str, grades: list[str]) -> None:
    # Each answer had been read as a ranking: naming a number no document among three has (JSON, a bare
    # number, an opening citation, a short answer), its grade was scored in its place against the top
    # document alone (or, for a short answer, the trace was an error); beside a named value ("refund
    # window: 30", "Price: 49.99") that value was read as the document's score; naming only document 1
    # in words, the trace was an error ("two model calls given different sets ...") where it had been
    # scored, and so, after ea5c79e, was one saying "most", "best" or "am ...sten" in passing, or six
    # words or fewer beside its citation.
    documents = _answer_then_ask(langchain, answer, RELEVANT, grades)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer
    assert example.contexts == langchain_contexts(documents)


STEPS = "1. Open your orders.\n2. Choose the item.\n3. Click Refund."
FIVE_DOCUMENTS = LANGCHAIN_CORPUS | {"kb-returns": "Returned items must be unused and in their original box."}
ONE_ITEM = "You can return 1 item within 3 weeks of delivery."
TWO_ITEMS = "You can return 2 items within 3 weeks."


@pytest.mark.parametrize(("answer", "retrieved", "grades"), [
    (STEPS, 3, ["Oui"]), (STEPS, 3, ["yes"]), (STEPS, 3, ['{"binary_score": "yes"}']), (STEPS, 5, ["Oui"]),
    (ONE_ITEM, 3, ["Oui"]), (ONE_ITEM, 3, ["yes"]), (ONE_ITEM, 3, ["8/10"]),
    (ONE_ITEM, 3, ["Partially relevant"]), (TWO_ITEMS, 5, ["Oui"] * 5), (TWO_ITEMS, 5, ["yes"] * 5),
    ("Version 2.0.", 3, ["Oui"] * 3), ("خلال ١ أسبوع من التسليم", 3, ["Oui"]),
], ids=["steps, top graded Oui", "steps, top graded yes", "steps, top graded JSON",
        "steps of five documents, top graded Oui", "1 item in 3 weeks, top graded Oui",
        "1 item in 3 weeks, top graded yes", "1 item in 3 weeks, top graded 8/10",
        "1 item in 3 weeks, top graded partially", "2 items in 3 weeks, each of five graded Oui",
        "2 items in 3 weeks, each of five graded yes", "a version, each graded Oui",
        "Arabic 1 week, top graded Oui"])
def test_an_answer_holding_small_numbers_in_its_prose_keeps_its_place_before_a_check(
        langchain: Recorder, answer: str, retrieved: int, grades: list[str]) -> None:
    # The answer's only numbers are whole numbers no greater than the documents retrieved (numbered steps,
    # "1 item within 3 weeks", "Version 2.0.", an Arabic-Indic 1), written in sentences, not as a
    # ranking writes them. Read as a ranking naming the graded document, the grade after it was scored as
    # the answer against that document alone (a made-up answer's 0.0 became no score for "Oui"), or a
    # "yes" made the trace an error.
    retriever = _retriever(FIVE_DOCUMENTS, retrieved) if retrieved == 5 else None
    documents = _answer_then_ask(langchain, answer, RELEVANT, grades, retriever)

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == retrieved
    assert example.answer == answer
    assert example.contexts == langchain_contexts(documents)


def test_a_ranking_numbering_documents_from_zero_chooses(langchain: Recorder) -> None:
    # The prompt numbered the documents from 0 and the ranking names 0: "1, 0, 2" puts the second
    # document retrieved first, and the answering call was given it. Read from 1, it named a fourth
    # document of three, and the ranking's text was scored as the answer against all three.
    documents = _rank_then_answer(langchain, "1, 0, 2", keep=1, answer="30 days.", start=0)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "30 days."
    assert example.contexts == langchain_contexts(documents[1:2])
    assert _groundedness(example) == 0.0  # neither "30" nor "days" is in the support document


def test_a_ranking_naming_fewer_documents_than_the_answer_was_given_chooses(langchain: Recorder) -> None:
    # The ranking names only the document it puts first, and the app answers from it and the next: the
    # answering call's top document is the one named.
    documents = _rank_then_answer(langchain, "2", keep=2, answer="30 days.", order=(2, 3))

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "30 days."
    assert example.contexts == langchain_contexts(documents[1:3])


THIRTY_DOCUMENTS = {f"kb-{n:02d}": f"Item {n} weighs {n + 100} grams." for n in range(30)}
"""30 documents, none the start of another: a ranking of them names numbers past the 20 extraction
looks for in a prompt."""


@pytest.mark.parametrize(("ranking", "keep"), [("25, 3, 1", 2), ("3, 25", 2)])
def test_a_ranking_of_thirty_documents_naming_one_past_the_twentieth_chooses(
        langchain: Recorder, ranking: str, keep: int) -> None:
    # The app answers from the 3rd and 25th documents retrieved. "25" names a document past the 20
    # looked for: read as no document's number, "25, 3, 1" was an answer and scored against all 30
    # documents, and "3, 25" made the trace an error. Of the first 20, the answering call was given the
    # 3rd only; whether it was given those past the 20th is not looked for, so they stay.
    documents = _rank_then_answer(langchain, ranking, keep=keep, answer="30 days.",
                                  retriever=_retriever(THIRTY_DOCUMENTS, 30))
    ids = [document.metadata["id"] for document in documents]

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == 30
    assert example.answer == "30 days."
    assert example.contexts is not None
    assert [context.id for context in example.contexts] == [ids[2], *ids[20:]]


REINGESTED = {"kb-refunds": LANGCHAIN_CORPUS["kb-refunds"], "kb-refunds-copy": LANGCHAIN_CORPUS["kb-refunds"],
              "kb-support": LANGCHAIN_CORPUS["kb-support"], "kb-warranty": LANGCHAIN_CORPUS["kb-warranty"]}
"""A knowledge base holding one file twice under two ids (ingested again): a search returns both."""


def test_a_ranking_naming_one_of_two_copies_of_a_document_chooses(langchain: Recorder) -> None:
    # The four documents retrieved hold the refunds text twice. The ranking names the first copy and
    # another document, and the app answers from the copy. Both copies show in the answering call's
    # prompt, and a ranking had to name both: the trace was an error.
    retriever = _retriever(REINGESTED, 4)
    retrieved = [document.metadata["id"] for document in retriever.invoke(QUESTION)]
    copy = next(n for n, doc_id in enumerate(retrieved, 1) if doc_id.startswith("kb-refunds"))
    other = next(n for n, doc_id in enumerate(retrieved, 1) if not doc_id.startswith("kb-refunds"))
    langchain.exporter.clear()
    _rank_then_answer(langchain, f"{copy}, {other}", keep=1, answer="30 days.", retriever=retriever)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "30 days."
    assert example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-refunds", "kb-refunds-copy"]
    assert _groundedness(example) == 1.0  # "30" and "days" are both in the refunds text


def test_a_ranking_of_a_prompt_showing_a_document_twice_chooses(langchain: Recorder) -> None:
    # The app's ranking prompt lists the top document twice, as 1 and 2, so "3" names the second document
    # retrieved, which the app answers from. Each document numbered by where its text first shows, "3"
    # had named the third, and the trace was an error.
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = RagChain().retriever.invoke(QUESTION)
        _ask(RANK, [documents[0], *documents], "3")
        _ask(ANSWER_FROM, documents[1:2], "30 days.")

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "30 days."
    assert example.contexts == langchain_contexts(documents[1:2])


UNRANKED_CHOICES = ["Document 2 is the most relevant because it mentions support by chat.",
                    "Dokument 2 ist am relevantesten.", "Documento 2, documento 3, documento 1"]
"""A ranking model's replies putting the second document of three first in other words than a ranking's
form (seven words beside the number, German, Spanish): as well an answer citing the document."""


@pytest.mark.parametrize("ranking", UNRANKED_CHOICES)
def test_documents_named_in_other_words_beside_a_short_answer_from_one_leave_two_calls_nothing_tells_apart(
        langchain: Recorder, ranking: str) -> None:
    # The earlier call, given three documents, named only the second, by its number; the later, asked
    # after it and given only that document, wrote two words. A ranking then the answer from its choice,
    # or an answer citing the document then a check of it: nothing tells. The earlier's text had been
    # scored as the answer, against all three documents, for writing more words.
    _rank_then_answer(langchain, ranking, keep=1, answer="By chat.", order=(2,))
    ranking_call, answering = _model_span_ids(langchain)

    with pytest.raises(ExtractionError, match=re.escape(DIFFERENT_SETS)) as raised:
        extract(langchain.trace())

    assert f"(span id {ranking_call})" in str(raised.value)
    assert f"(span id {answering})" in str(raised.value)


def test_a_ranking_as_json_in_a_code_fence_chooses(langchain: Recorder) -> None:
    # Models wrap JSON in a Markdown fence: read as prose, "[2, 3, 1]" in "```json" lines was no
    # ranking, and its text was scored as the answer against all three documents.
    documents = _rank_then_answer(langchain, "```json\n[2, 3, 1]\n```", keep=1, answer="By chat.")

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "By chat."
    assert example.contexts == langchain_contexts(documents[1:2])
    assert _groundedness(example) == 1.0  # "chat" is in "Support is available by chat around the clock."


def _overlapping_chunks() -> dict[str, str]:
    """The first two chunks LlamaIndex's default SentenceSplitter cuts a long policy into (1,024 tokens,
    200 of them repeated at the next chunk's start), and the support document: ids sort in that order."""
    policy = " ".join(f"Clause {n} of the refund policy covers orders of kind {n} within {n + 20} days of "
                      "delivery." for n in range(400))
    chunks = SentenceSplitter().get_nodes_from_documents([Document(text=policy)])
    return {"chunk-1": chunks[0].text, "chunk-2": chunks[1].text,
            "faq-support": LANGCHAIN_CORPUS["kb-support"]}


@pytest.mark.parametrize("ranking", ["3", "3, 1, 2", "Document 3 is the most relevant."])
def test_a_ranking_of_overlapping_chunks_chooses_by_the_prompts_numbers(
        langchain: Recorder, ranking: str) -> None:
    # The prompt numbers chunk 1, chunk 2 and the support document 1 to 3, and the app answers from the
    # third. Chunk 2's start shows inside chunk 1 (the repeated 200 tokens), far past chunk 1's own start:
    # numbered as a document of its own, it made the support document 4, "3" named chunk 2, and the
    # trace was an error ("3") or the ranking's text was scored as the answer.
    corpus = _overlapping_chunks()
    assert corpus["chunk-1"].find(corpus["chunk-2"][:256]) > 256
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = sorted(_retriever(corpus, 3).invoke(QUESTION), key=lambda doc: doc.metadata["id"])
        _ask(RANK, documents, ranking)
        _ask(ANSWER_FROM, documents[2:], "By chat.")

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == "By chat."
    assert example.contexts == langchain_contexts(documents[2:])
    assert _groundedness(example) == 1.0  # "chat" is in the support document


SHARED_START = ("Acme Help Center > Orders and payments > Policies. This article is part of the Acme "
                "customer policy set; it applies to all orders placed on acme.example from 1 January "
                "2026 and replaces earlier versions. Read it in full before you contact support about an "
                "order. ")
SHARED_START_CORPUS = {
    "kb-refunds": SHARED_START + "Refunds: ask for one within 30 days of delivery, by chat.",
    "kb-shipping": SHARED_START + "Shipping: standard shipping takes 5 business days.",
    "kb-support": LANGCHAIN_CORPUS["kb-support"],
}
"""Two articles under one header longer than the 256 characters a prompt is searched for, and another."""
SHOWN = 300
"""Characters of each document the ranking prompt shows: past the header, short of either article's end."""
EXTRACT_IN_A_PROCESS = """
import json, pickle, sys
from ragmon.semconv.extract import ExtractionError, extract
try:
    example = extract(pickle.load(sys.stdin.buffer))
    print(json.dumps({"answer": example.answer, "contexts": [context.id for context in example.contexts]}))
except ExtractionError as error:
    print(json.dumps({"error": str(error)}))
"""


@pytest.mark.parametrize("chosen", ["kb-refunds", "kb-shipping"])
def test_a_ranking_of_documents_sharing_their_start_chooses_whatever_the_hash_seed(
        langchain: Recorder, chosen: str) -> None:
    # The ranking prompt cuts each document to its first 300 characters, so both articles show only
    # their header and the start of their own text. Which of the two took a number at each place
    # followed the order of a set of their texts, which Python's hash seed sets: the same trace was
    # scored in some processes and an error in others. It is extracted here in processes of six seeds.
    assert len(SHARED_START) > 256
    assert all(len(SHARED_START_CORPUS[article]) > SHOWN for article in ("kb-refunds", "kb-shipping"))
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(SHARED_START_CORPUS, 3).invoke(QUESTION)
        order = [document.metadata["id"] for document in documents]
        cut = [LangChainDocument(page_content=document.page_content[:SHOWN], metadata=document.metadata)
               for document in documents]
        _ask(RANK, cut, str(order.index(chosen) + 1))
        _ask(ANSWER_FROM, [documents[order.index(chosen)]], "30 days.")
    trace = pickle.dumps(langchain.trace())

    extracted = [json.loads(subprocess.run([sys.executable, "-c", EXTRACT_IN_A_PROCESS], input=trace,
                                           capture_output=True, check=True,
                                           env=os.environ | {"PYTHONHASHSEED": str(seed)}).stdout)
                 for seed in range(6)]

    assert [result.get("answer") for result in extracted] == ["30 days."] * 6
    assert [result["contexts"] for result in extracted] == [[chosen]] * 6


def test_an_answer_given_one_of_two_documents_sharing_their_start_is_judged_against_it_alone(
        langchain: Recorder) -> None:
    # The model is given the refunds article only, and answers what only the shipping article states.
    # Both start with the same header, longer than the 256 characters a prompt is searched for, so the
    # prompt shows the shipping article's start too, and it had counted as support: the answer scored
    # 1.0. Against the refunds article none of "standard", "shipping", "takes", "5", "business",
    # "express" is stated: 0.0.
    answer = "Standard shipping takes 5 business days, express shipping 2."
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(SHARED_START_CORPUS, 3).invoke(QUESTION)
        refunds = [document for document in documents if document.metadata["id"] == "kb-refunds"]
        _ask(ANSWER_FROM, refunds, answer)

    example = extract(langchain.trace())

    assert example is not None
    assert len(documents) == 3
    assert example.answer == answer
    assert example.contexts == langchain_contexts(refunds)
    assert _groundedness(example) == 0.0


def test_more_than_twenty_documents_sharing_their_start_all_given_all_count(langchain: Recorder) -> None:
    # 25 articles under one header, all given to the model, which answers from the last. Only the first
    # 20 places of the header were looked at, so the other five were dropped as not shown: 20 contexts,
    # and an answer stated by the 25th scored 0.0 where it is 1.0.
    corpus = {f"item{n:02d}": SHARED_START + f"The item{n:02d} ships in {n + 2} days." for n in range(25)}
    answer = "The item24 ships in 26 days."
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(corpus, 25).invoke(QUESTION)
        _ask(ANSWER_FROM, sorted(documents, key=lambda document: document.metadata["id"]), answer)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(corpus)
    assert _groundedness(example) == 1.0


@pytest.mark.parametrize("given", [["kb-refunds-chunk"], ["kb-refunds-chunk", "kb-refunds-full"]])
def test_a_chunk_given_beside_its_parent_document_counts(langchain: Recorder, given: list[str]) -> None:
    # The retriever returns a chunk and the whole article it was cut from (the chunk is the article's
    # start). Given the chunk alone, the article was kept in its place (it matched the prompt one
    # character further: the line break after the chunk), and the chunk dropped; given both, likewise.
    corpus = {"kb-refunds-chunk": SHARED_START_CORPUS["kb-refunds"],
              "kb-refunds-full": SHARED_START_CORPUS["kb-refunds"] + "\nShipping takes 5 business days."}
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(corpus, 2).invoke(QUESTION)
        shown = [document for document in documents if document.metadata["id"] in given]
        _ask(ANSWER_FROM, shown, "30 days.")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(given)


TWO_LINE_ARTICLES = {
    "kb-refunds": SHARED_START + "Refunds: ask for one within 30 days of delivery.\nSupport answers by chat.",
    "kb-shipping": SHARED_START + "Shipping: standard shipping takes 5 business days.\nExpress takes 2.",
}
"""Two articles of two lines under one header longer than the 256 characters a prompt is searched for."""
RESPACED = {"lines joined": lambda text: text.replace("\n", " "),
            "lines indented": lambda text: text.replace("\n", "\n    "),
            "CRLF": lambda text: text.replace("\n", "\r\n")}


@pytest.mark.parametrize("template", list(RESPACED))
def test_an_article_given_alone_in_other_spacing_does_not_bring_in_another_under_its_header(
        langchain: Recorder, template: str) -> None:
    # The app's template re-spaces each document before the model sees it. Given the refunds article
    # alone, the shipping article under the same header was kept as support (never found whole, so
    # neither was dropped) and an answer only it states scored 1.0; against refunds it is 0.0.
    answer = "Standard shipping takes 5 business days, express shipping 2."
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(TWO_LINE_ARTICLES, 2).invoke(QUESTION)
        refunds = [LangChainDocument(page_content=RESPACED[template](document.page_content),
                                     metadata=document.metadata)
                   for document in documents if document.metadata["id"] == "kb-refunds"]
        _ask(ANSWER_FROM, refunds, answer)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-refunds"]
    assert _groundedness(example) == 0.0


def test_articles_given_in_different_spacing_both_count(langchain: Recorder) -> None:
    # Refunds shown as written and shipping with its lines joined: only refunds was found whole, and
    # shipping, given too, was dropped.
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(TWO_LINE_ARTICLES, 2).invoke(QUESTION)
        shown = [document if document.metadata["id"] == "kb-refunds" else
                 LangChainDocument(page_content=RESPACED["lines joined"](document.page_content),
                                   metadata=document.metadata) for document in documents]
        _ask(ANSWER_FROM, shown, "Standard shipping takes 5 business days.")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-refunds", "kb-shipping"]


LINED_HEADER = SHARED_START.replace(". ", ".\n")
"""The shared header, a sentence a line."""
HEADER_SPACINGS = {"blank lines": "\n\n", "double spaces": "  "}
"""How another article stores the header's line breaks."""


@pytest.mark.parametrize("spacing", list(HEADER_SPACINGS))
@pytest.mark.parametrize("answer,score", [("Standard shipping takes 5 business days.", 0.0),
                                          ("Ask for one within 30 days of delivery, by chat.", 1.0)])
def test_an_article_storing_the_header_in_other_spacing_does_not_count_beside_a_given_one(
        langchain: Recorder, spacing: str, answer: str, score: float) -> None:
    # Both articles start with one header, longer than the 256 characters a prompt is searched for, the
    # shipping article storing its line breaks as blank lines or double spaces. The model is given the
    # refunds article alone. Grouped by their starts as stored, the two were never compared, and the
    # shipping article, whose first words the prompt shows, counted: an answer only it states scored 1.0.
    # Against refunds alone the shipping answer's "5" is stated nowhere: 0.0; every word and number of
    # the refunds answer is in the refunds article: 1.0.
    articles = {"kb-refunds": LINED_HEADER + "Refunds: ask for one within 30 days of delivery, by chat.",
                "kb-shipping": LINED_HEADER.replace("\n", HEADER_SPACINGS[spacing])
                + "Shipping: standard shipping takes 5 business days."}
    assert len(" ".join(LINED_HEADER.split())) > 256
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(articles, 2).invoke(QUESTION)
        _ask(ANSWER_FROM, [document for document in documents if document.metadata["id"] == "kb-refunds"],
             answer)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert len(documents) == 2
    assert _groundedness(example) == score
    assert [context.id for context in example.contexts] == ["kb-refunds"]


@pytest.mark.parametrize("template", ["as written", "lines joined"])
def test_a_long_article_cut_short_beside_a_short_one_counts(langchain: Recorder, template: str) -> None:
    # The template cuts each document to 500 characters: the refunds article fits whole, the shipping
    # article under the same header is cut. Both were given, and the answer is from the shipping text the
    # model saw; the shipping article, not shown whole beside one that was, had been dropped: 0.0, where
    # it is 1.0 against both.
    articles = {"kb-refunds": TWO_LINE_ARTICLES["kb-refunds"],
                "kb-shipping": TWO_LINE_ARTICLES["kb-shipping"] + " Further shipping terms follow." * 40}
    respace = RESPACED["lines joined"] if template == "lines joined" else str
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(articles, 2).invoke(QUESTION)
        shown = [LangChainDocument(page_content=respace(document.page_content)[:500],
                                   metadata=document.metadata) for document in documents]
        _ask(ANSWER_FROM, shown, "Standard shipping takes 5 business days.")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-refunds", "kb-shipping"]
    assert _groundedness(example) == 1.0


def test_two_articles_sharing_more_than_a_header_both_cut_short_count(langchain: Recorder) -> None:
    # Three articles under one header; the EU and US shipping articles also share a long introduction,
    # and the template cuts every document to 500 characters, within that introduction. Each shipping
    # article was held to showing 16 characters past the introduction it shares with the other, which no
    # prompt did, while refunds showed its own text past the header: both shipping articles were dropped
    # though given, and an answer from the introduction scored 0.0 against refunds alone.
    intro = SHARED_START + "Shipping: " + "Parcels leave our warehouse on the next working day. " * 40
    articles = {"kb-refunds": TWO_LINE_ARTICLES["kb-refunds"] + " More refund terms." * 40,
                "ship-eu": intro + "EU: standard shipping takes 5 business days.",
                "ship-us": intro + "US: standard shipping takes 8 business days."}
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(articles, 3).invoke(QUESTION)
        shown = [LangChainDocument(page_content=document.page_content[:500], metadata=document.metadata)
                 for document in documents]
        _ask(ANSWER_FROM, shown, "Parcels leave our warehouse on the next working day.")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(articles)
    assert _groundedness(example) == 1.0


SHIPPING_INTRO = SHARED_START + "Shipping: parcels leave our warehouse on the next working day. "
STANDARD_SHIPPING = "Standard shipping: " + "Parcels are handed to the national postal carrier. " * 35
FOUR_ARTICLES = {
    "kb-refunds": TWO_LINE_ARTICLES["kb-refunds"],
    "ship-express": SHIPPING_INTRO + "Express shipping: delivery costs 20 euros and arrives overnight.",
    "ship-std-eu": SHIPPING_INTRO + STANDARD_SHIPPING + "EU: standard shipping takes 5 business days.",
    "ship-std-us": SHIPPING_INTRO + STANDARD_SHIPPING + "US: standard shipping takes 8 business days.",
}
"""Four articles under one header: express and the two standard ones also share a shipping introduction,
and the two standard ones a long standard-shipping section after it."""


@pytest.mark.parametrize("given,counted", [
    (["kb-refunds", "ship-std-eu"], ["kb-refunds", "ship-std-eu", "ship-std-us"]),
    (["ship-std-eu"], ["ship-std-eu", "ship-std-us"])])
def test_an_article_parting_where_a_given_one_shows_on_does_not_count(
        langchain: Recorder, given: list[str], counted: list[str]) -> None:
    # The template cuts each document to 900 characters: the EU article shows 900 characters, far past
    # where it parts from the express article (the shipping introduction, about 400), within what it
    # shares with the US one (over 2,000). The prompt shows no word of the express article's own text,
    # yet it counted: held against the refunds article alone (which counted), or against nothing when
    # none counted (all stayed), it showed its introduction past the header. The answer only it states
    # scored 1.0; against the rest none of "express", "costs", "20", "euros", "arrives", "overnight" is
    # stated: 0.0. The US article stays: the prompt shows nothing telling it apart from the EU one.
    answer = "Express delivery costs 20 euros and arrives overnight."
    assert len(SHIPPING_INTRO) + 16 < 900 < len(SHIPPING_INTRO + STANDARD_SHIPPING)
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = _retriever(FOUR_ARTICLES, 4).invoke(QUESTION)
        shown = [LangChainDocument(page_content=document.page_content[:900], metadata=document.metadata)
                 for document in documents if document.metadata["id"] in given]
        _ask(ANSWER_FROM, shown, answer)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == counted
    assert _groundedness(example) == 0.0


@pytest.fixture
def many_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans keep every document's attributes (the SDK keeps 128 by default): requested before the
    recorder, whose tracer provider reads the limit when it is made."""
    monkeypatch.setenv("OTEL_ATTRIBUTE_COUNT_LIMIT", "100000")


def _comparisons(recorder: Recorder, monkeypatch: pytest.MonkeyPatch, documents: int) -> int:
    """How many times extraction compares texts (a document with another, or with a prompt) for a trace
    of `documents` articles under one header, the model given the first five."""
    corpus = {f"item{n:03d}": SHARED_START + f"The item{n:03d} ships in {n + 2} days. " + "Terms apply. " * 20
              for n in range(documents)}
    recorder.exporter.clear()
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        retrieved = _retriever(corpus, documents).invoke(QUESTION)
        _ask(ANSWER_FROM, retrieved[:5], "Terms apply.")
    trace = recorder.trace()
    counted = 0
    with monkeypatch.context() as patch:
        for name in ("_common_start", "_matching_length"):
            compare = getattr(extract_module, name)

            def counting(*args: Any, compare: Callable[..., int] = compare) -> int:
                nonlocal counted
                counted += 1
                return compare(*args)

            patch.setattr(extract_module, name, counting)
        example = extract(trace)
    assert example is not None and example.contexts is not None and len(example.contexts) == 5
    return counted


def test_documents_under_one_header_are_compared_in_time_growing_with_their_number(
        many_attributes: None, langchain: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # Extraction runs on the sidecar's event loop. Each document not shown whole was compared with every
    # other, again at each pass: 3,000 articles under one header, the model given five, held the loop for
    # 53 seconds. Compared with its neighbour in sorted order and with the prompt, four times the
    # documents take about four times the comparisons, where every pair took sixteen times.
    few, many = _comparisons(langchain, monkeypatch, 40), _comparisons(langchain, monkeypatch, 160)
    assert many <= 5 * few


# --- an answer quoting a document the model was not given --------------------------------------------


def test_an_answer_quoting_a_dropped_document_does_not_make_it_support(langchain: Recorder) -> None:
    # A plain function keeps the top document of three; the model's answer adds a sentence that only a
    # dropped document states, word for word from its start. The model was never given it: the answer
    # quoting it is no sign it was, and that sentence is unsupported (1 of 2 claims). GenericFakeChatModel,
    # as FakeListChatModel records its scripted replies in its invocation parameters, which no real model
    # does.
    retriever = RagChain().retriever
    documents = retriever.invoke(QUESTION)
    top, dropped = documents[0], documents[2]
    answer = f"{top.page_content} {dropped.page_content}"
    prompt = ChatPromptTemplate.from_messages([("system", f"{ANSWER_FROM}\n{{context}}"),
                                               ("human", "{question}")])
    keep_top = RunnableLambda(lambda docs: docs[0].page_content, name="keep_top")
    model = GenericFakeChatModel(messages=iter([AIMessage(answer)]))
    chain = ({"context": retriever | keep_top, "question": RunnablePassthrough()}
             | prompt | model | StrOutputParser())
    langchain.exporter.clear()
    chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer
    assert example.contexts == langchain_contexts([top])
    assert _groundedness(example) == 0.5


def _parts(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def _record_v1_37(span: Span, prompt: str, answer: str) -> None:
    span.set_attributes({"gen_ai.input.messages": _parts("user", prompt),
                         "gen_ai.output.messages": _parts("assistant", answer)})


def _record_details_event(span: Span, prompt: str, answer: str) -> None:
    span.add_event("gen_ai.client.inference.operation.details", {
        "gen_ai.input.messages": _parts("user", prompt),
        "gen_ai.output.messages": _parts("assistant", answer)})


def _record_indexed(span: Span, prompt: str, answer: str) -> None:
    span.set_attributes({"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": prompt,
                         "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": answer})


def _record_message_events(span: Span, prompt: str, answer: str) -> None:
    span.add_event("gen_ai.user.message", {"gen_ai.event.content": json.dumps(
        {"role": "user", "content": prompt})})
    span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
        {"finish_reason": "stop", "index": 0, "message": {"content": answer}})})


def _record_content_events(span: Span, prompt: str, answer: str) -> None:
    span.set_attribute("gen_ai.completion", answer)  # OpenLIT sets it on the span too
    span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(
        [{"role": "user", "content": prompt}])})
    span.add_event("gen_ai.content.completion", {"gen_ai.completion": answer})


def _record_task(span: Span, prompt: str, answer: str) -> None:
    span.set_attributes({"llm.request.type": "chat", "traceloop.entity.input": json.dumps(prompt),
                         "traceloop.entity.output": json.dumps(answer)})


def _record_completion_choices(span: Span, prompt: str, answer: str) -> None:
    span.set_attributes({"openinference.span.kind": "LLM", "input.value": prompt,
                         "llm.choices.0.completion.text": answer})


@pytest.mark.parametrize("record", [_record_v1_37, _record_details_event, _record_indexed,
                                    _record_message_events, _record_content_events, _record_task,
                                    _record_completion_choices],
                         ids=["v1.37 attributes", "v1.37 details event", "indexed (OpenLLMetry)",
                              "v1.28 message events", "v1.26 content events (OpenLIT)",
                              "OpenLLMetry entity output", "OpenInference completion choices"])
def test_an_answer_quoting_a_dropped_document_in_each_form(
        recorder: Recorder, record: Callable[[Span, str, str], None]) -> None:
    # The same app recording its own spans: a GenAI retrieval of three documents, a chat call given the
    # first only, its output quoting the third word for word; each form keeps the output apart from the
    # input.
    top, dropped = LANGCHAIN_CORPUS["kb-warranty"], LANGCHAIN_CORPUS["kb-shipping"]
    documents = [{"id": doc_id, "content": LANGCHAIN_CORPUS[doc_id]}
                 for doc_id in ("kb-warranty", "kb-support", "kb-shipping")]
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with recorder.tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
            span.set_attributes({"gen_ai.operation.name": "retrieval",
                                 "gen_ai.retrieval.query.text": QUESTION,
                                 "gen_ai.retrieval.documents": json.dumps(documents)})
        with recorder.tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            record(span, f"{ANSWER_FROM}\n{top}\nQuestion: {QUESTION}", f"{top} {dropped}")

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == f"{top} {dropped}"
    assert example.contexts == (Context("kb-warranty", top),)
