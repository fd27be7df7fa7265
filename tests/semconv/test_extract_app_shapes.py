"""Extraction misreads an integration walk-through found, each on the shape its app sent: the real
OpenInference LangChain instrumentor over langchain-core's offline fakes, the real openai-v2 instrumentor
against the fake OpenAI server, or the SDK writing the attributes traceloop-sdk writes (no package of
its here). Beside each fix, the shapes that read right before it and must keep doing so."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from fakes.openai_server import FakeOpenAI
from instrumented_apps import ScriptedLLM
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import Document as LlamaDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.query_engine import CitationQueryEngine
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from opentelemetry import context as otel_context
from opentelemetry import trace as trace_api
from opentelemetry.instrumentation._semconv import _OpenTelemetrySemanticConventionStability
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.trace import SpanKind
from pydantic import BaseModel

from ragmon.model import Context
from ragmon.semconv.common import ExtractionError
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

KB = {
    "kb-warranty": "The warranty lasts 2 years from the date of purchase and covers manufacturing defects.",
    "kb-returns": "Items can be returned within 30 days of delivery for a full refund.",
    "kb-shipping": "Standard shipping takes 5 business days; express shipping takes 2 business days.",
}
WARRANTY_QUESTION = "How long does the warranty last?"
WARRANTY_ANSWER = "The warranty lasts 2 years from the date of purchase [kb-warranty]."


def _store(documents: list[Document]) -> InMemoryVectorStore:
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(documents)
    return store


def _lcel(store: InMemoryVectorStore, answer: str) -> None:
    """retriever -> prompt -> fake chat model -> parser, the prompt listing each document by its id."""
    def listing(docs: list[Document]) -> str:
        return "\n".join(f"[{doc.id}] {doc.page_content}" for doc in docs)

    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    chain = ({"context": store.as_retriever(search_kwargs={"k": 3}) | listing,
              "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
    chain.invoke(WARRANTY_QUESTION)


# --- 1. LangChain Document.id, written only in the retriever's output.value ---------------------------


def test_langchain_document_ids_name_the_contexts_and_match_the_citations(langchain: Recorder) -> None:
    # The app loads its documents with ids and cites them as [kb-warranty]; OpenInference LangChain
    # 0.1.x writes the ids only in the retriever's output.value, metadata "source" in the documents.
    _lcel(_store([Document(page_content=text, id=doc_id, metadata={"source": f"policies/{doc_id}.md"})
                  for doc_id, text in KB.items()]), WARRANTY_ANSWER)

    example = extract(langchain.trace())

    assert example is not None
    assert example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-returns", "kb-shipping", "kb-warranty"]
    assert {context.id: context.text for context in example.contexts} == KB
    assert example.citations == ("kb-warranty",)


def test_a_store_assigned_uuid_without_metadata_still_names_the_document(langchain: Recorder) -> None:
    # Added without ids, the vector store gives each document a random UUID: with no metadata to name
    # it, that UUID is the document's id (what the app's own code sees as doc.id), not a content hash.
    store = _store([Document(page_content=text) for text in KB.values()])
    _lcel(store, WARRANTY_ANSWER)
    stored = {doc.page_content: doc.id for doc in store.get_by_ids(list(store.store))}

    example = extract(langchain.trace())

    assert example is not None
    assert example.contexts is not None
    assert {context.text: context.id for context in example.contexts} == stored
    assert all(len(context.id) == 36 for context in example.contexts)


def test_a_store_assigned_uuid_gives_way_to_the_metadata_source(langchain: Recorder) -> None:
    # Must not change: documents loaded with a metadata source and no id are named by the source, which
    # the app's labels use, not by the random UUID the store gave them.
    _lcel(_store([Document(page_content=text, metadata={"source": f"{doc_id}.md"})
                  for doc_id, text in KB.items()]), WARRANTY_ANSWER)

    example = extract(langchain.trace())

    assert example is not None
    assert example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-returns.md", "kb-shipping.md",
                                                                  "kb-warranty.md"]


@pytest.mark.parametrize("output", [
    # other documents than the span lists (a different count)
    json.dumps({"documents": [{"id": "kb-x", "page_content": KB["kb-warranty"]}]}),
    # the same count, other texts at the ranks
    json.dumps({"documents": [{"id": "kb-x", "page_content": KB["kb-returns"]},
                              {"id": "kb-y", "page_content": KB["kb-warranty"]}]}),
    # cut short by the attribute length limit, and free text
    json.dumps({"documents": [{"id": "kb-x", "page_content": KB["kb-warranty"]}]})[:40],
    "2 documents",
])
def test_output_that_does_not_list_the_same_documents_gives_no_ids(recorder: Recorder, output: str) -> None:
    # Must not change: ids are taken from output.value only when it lists the span's documents.
    with recorder.tracer.start_as_current_span("VectorStoreRetriever") as span:
        span.set_attributes({
            "openinference.span.kind": "RETRIEVER", "input.value": WARRANTY_QUESTION,
            "output.value": output, "output.mime_type": "application/json",
            "retrieval.documents.0.document.content": KB["kb-warranty"],
            "retrieval.documents.0.document.metadata": json.dumps({"source": "warranty.md"}),
            "retrieval.documents.1.document.content": KB["kb-returns"],
            "retrieval.documents.1.document.metadata": json.dumps({"source": "returns.md"})})

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == (Context("warranty.md", KB["kb-warranty"], None),
                                Context("returns.md", KB["kb-returns"], None))


# --- 2. the answer is the answering model call's, not the last one's ----------------------------------

SHIPPING_QUESTION = "How long does express shipping take?"
SHIPPING_ANSWER = "Express shipping takes 2 business days."
CONTEXT = f"{KB['kb-shipping']}\n{KB['kb-returns']}"


class Shelf(BaseRetriever):
    """A retriever returning the shipping and returns documents whatever it is asked, with their ids in
    the metadata, as the walk-through's keyword retriever did."""

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=KB[doc_id], metadata={"id": doc_id})
                for doc_id in ("kb-shipping", "kb-returns")]


def test_a_self_rag_state_keeps_its_answer_under_generation(langchain: Recorder) -> None:
    # LangGraph's self-RAG tutorials return {"question", "documents", "generation"} after a grader call
    # answering "yes": the generation is the answer, not the grader's verdict.
    generate = (ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
                | FakeListChatModel(responses=[SHIPPING_ANSWER]) | StrOutputParser())
    grade = (ChatPromptTemplate.from_messages([("system", "Facts:\n{context}\nGrounded? yes or no."),
                                               ("human", "Generation: {generation}")])
             | FakeListChatModel(responses=["yes"]) | StrOutputParser())

    def listing(state: dict[str, Any]) -> dict[str, Any]:
        return {**state, "context": "\n".join(doc.page_content for doc in state["documents"])}

    graph = (RunnablePassthrough.assign(documents=(lambda state: state["question"]) | Shelf())
             | RunnableLambda(listing)
             | RunnablePassthrough.assign(generation=generate)
             | RunnablePassthrough.assign(grounded=grade)
             | RunnableLambda(lambda state: {key: state[key]
                                            for key in ("question", "generation", "grounded")}))
    graph.invoke({"question": SHIPPING_QUESTION})

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == SHIPPING_QUESTION
    assert example.answer == SHIPPING_ANSWER


def test_a_state_with_an_answer_and_a_draft_generation_answers_with_the_answer(recorder: Recorder) -> None:
    # Must not change: "answer" (and output, result, response) comes before "generation".
    with recorder.tracer.start_as_current_span("graph") as span:
        span.set_attributes({"openinference.span.kind": "CHAIN", "input.value": SHIPPING_QUESTION,
                             "output.value": json.dumps({"generation": "draft", "answer": SHIPPING_ANSWER}),
                             "output.mime_type": "application/json"})
        with recorder.tracer.start_as_current_span("ChatModel") as call:
            call.set_attributes({"openinference.span.kind": "LLM",
                                 "llm.output_messages.0.message.role": "assistant",
                                 "llm.output_messages.0.message.content": "draft"})

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == SHIPPING_ANSWER


@pytest.fixture
def openai_client(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[OpenAI, FakeOpenAI]]:
    """The real openai SDK under opentelemetry-instrumentation-openai-v2 recording content on the spans
    (span_only, latest conventions, as the README says), against the fake Chat Completions server."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    stability = _OpenTelemetrySemanticConventionStability  # read once per process: read this test's
    monkeypatch.setattr(stability, "_initialized", False)
    monkeypatch.setattr(stability, "_OTEL_SEMCONV_STABILITY_SIGNAL_MAPPING", {})
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=recorder.provider)
    try:
        with FakeOpenAI() as api:
            client = OpenAI(base_url=api.base_url, api_key="sk-test", max_retries=0)
            yield client, api
            client.close()
    finally:
        instrumentor.uninstrument()


def _retrieval(recorder: Recorder, query: str | None) -> None:
    """The app's own GenAI retrieval span; the query text is opt-in, so some apps leave it out."""
    with recorder.tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
        span.set_attributes({"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": json.dumps(
            [{"id": doc_id, "content": KB[doc_id]} for doc_id in ("kb-shipping", "kb-returns")])})
        if query is not None:
            span.set_attribute("gen_ai.retrieval.query.text", query)


def _say(client: OpenAI, messages: list[ChatCompletionMessageParam]) -> str:
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages).choices[0].message.content
    assert reply is not None
    return reply


ANSWERING: list[ChatCompletionMessageParam] = [
    {"role": "system", "content": f"Answer from the context:\n{CONTEXT}"},
    {"role": "user", "content": SHIPPING_QUESTION}]


def test_follow_up_suggestions_after_the_answer_are_not_the_answer(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI]) -> None:
    # A chat UI asks the model for follow-up questions after the answer, in the same conversation (so
    # with the documents too): the suggestions scored as the answer look made up.
    client, api = openai_client
    api.reply(SHIPPING_ANSWER, "Can I upgrade to express shipping? What does express shipping cost?")
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, SHIPPING_QUESTION)
        answer = _say(client, ANSWERING)
        _say(client, [*ANSWERING, {"role": "assistant", "content": answer},
                      {"role": "user", "content": "Suggest two follow-up questions the user might ask."}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == SHIPPING_ANSWER
    assert example.question == SHIPPING_QUESTION


def test_a_grader_and_a_title_call_after_the_answer_are_not_the_answer(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI]) -> None:
    # Without a chain: a grader given the documents and the answer, then a chat title given neither.
    client, api = openai_client
    api.reply(SHIPPING_ANSWER, "yes", "Express shipping")
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, SHIPPING_QUESTION)
        answer = _say(client, ANSWERING)
        _say(client, [{"role": "system", "content": f"Facts:\n{CONTEXT}\nIs the answer grounded? yes or no."},
                      {"role": "user", "content": f"Answer: {answer}"}])
        _say(client, [{"role": "user", "content": f"A title for: {SHIPPING_QUESTION}"}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == SHIPPING_ANSWER


def test_a_later_call_given_more_documents_refines_the_answer(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI]) -> None:
    # Must not change: a refine step is given the draft and documents the first call was not; its
    # output is the answer.
    client, api = openai_client
    refined = "Express shipping takes 2 business days, and returns are accepted for 30 days."
    api.reply("Express shipping takes 2 business days.", refined)
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, SHIPPING_QUESTION)
        draft = _say(client, [{"role": "system", "content": KB["kb-shipping"]},
                              {"role": "user", "content": SHIPPING_QUESTION}])
        _say(client, [{"role": "system", "content": f"Refine the draft with: {KB['kb-returns']}"},
                      {"role": "user", "content": f"Question: {SHIPPING_QUESTION}\nDraft: {draft}"}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == refined


def test_with_no_documents_in_any_prompt_the_last_call_answers(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI]) -> None:
    # Must not change: nothing tells the calls apart, so the last to end answers.
    client, api = openai_client
    api.reply("Sure.", SHIPPING_ANSWER)
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, SHIPPING_QUESTION)
        _say(client, [{"role": "user", "content": "Hello"}])
        _say(client, [{"role": "user", "content": SHIPPING_QUESTION}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer == SHIPPING_ANSWER


# --- 3. the question is the user's, not the rewritten search query -----------------------------------

CASUAL_QUESTION = "hi! quick one: my order hasn't come, how long does express shipping usually take??"


def test_a_rewrite_call_before_retrieval_leaves_the_users_question(langchain: Recorder) -> None:
    # No chain: a web handler calls a rewriting model, the retriever with its query, then the model.
    model = FakeListChatModel(responses=["express shipping duration", SHIPPING_ANSWER])
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        query = model.invoke([SystemMessage("Rewrite as a search query."), HumanMessage(CASUAL_QUESTION)])
        documents = Shelf().invoke(str(query.content))
        context = "\n".join(doc.page_content for doc in documents)
        model.invoke([SystemMessage(f"Answer from the context:\n{context}"), HumanMessage(CASUAL_QUESTION)])

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == CASUAL_QUESTION
    assert example.answer == SHIPPING_ANSWER


def test_a_rewrite_call_before_an_openai_apps_retrieval(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI]) -> None:
    client, api = openai_client
    api.reply("express shipping duration", SHIPPING_ANSWER)
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        query = _say(client, [{"role": "system", "content": "Rewrite as a search query."},
                              {"role": "user", "content": CASUAL_QUESTION}])
        _retrieval(recorder, query)
        _say(client, [ANSWERING[0], {"role": "user", "content": CASUAL_QUESTION}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == CASUAL_QUESTION


def test_without_a_call_before_retrieval_the_query_is_the_question(langchain: Recorder) -> None:
    # Must not change: the retriever searched for the question itself, and the model's user message is
    # the app's wording around it.
    model = FakeListChatModel(responses=[SHIPPING_ANSWER])
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        documents = Shelf().invoke(SHIPPING_QUESTION)
        context = "\n".join(doc.page_content for doc in documents)
        model.invoke([SystemMessage(f"Context:\n{context}"),
                      HumanMessage(f"{SHIPPING_QUESTION} Answer in one sentence.")])

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == SHIPPING_QUESTION


HISTORY = [SystemMessage("You are Acme's support bot."), HumanMessage("What is your returns policy?"),
           AIMessage("Items can be returned within 30 days of delivery.")]
FOLLOW_UP = "And how long does express shipping take?"


def _chat_chain(condense: bool) -> Runnable[dict[str, Any], str]:
    """A chat chain taking the conversation as messages, retrieving on the last user turn or on a
    standalone question a condensing model wrote."""
    def last_turn(state: dict[str, Any]) -> str:
        return str(state["messages"][-1].content)

    standalone = (ChatPromptTemplate.from_messages([("system", "Rephrase as a standalone question."),
                                                    MessagesPlaceholder("messages")])
                  | FakeListChatModel(responses=[SHIPPING_QUESTION]) | StrOutputParser())
    search = (lambda state: state["standalone"]) if condense else last_turn
    steps = RunnablePassthrough.assign(standalone=standalone) if condense else RunnablePassthrough()
    return (steps
            | RunnablePassthrough.assign(context=search | Shelf() | (lambda docs: "\n".join(
                doc.page_content for doc in docs)))
            | ChatPromptTemplate.from_messages([("system", "Context:\n{context}"),
                                                MessagesPlaceholder("messages")])
            | FakeListChatModel(responses=[SHIPPING_ANSWER]) | StrOutputParser())


def test_a_chat_chain_given_messages_asks_the_last_user_turn(langchain: Recorder) -> None:
    # The chain's input is {"messages": [...]}, no question key; a condensing model wrote the standalone
    # question the retriever searched for. The user asked the last human turn.
    _chat_chain(condense=True).invoke({"messages": [*HISTORY, HumanMessage(FOLLOW_UP)]})

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == FOLLOW_UP
    assert example.answer == SHIPPING_ANSWER


@pytest.mark.parametrize("inputs", [
    {"messages": [*HISTORY, HumanMessage(FOLLOW_UP)]},
    # Must not change: a question key in the same input is the question.
    {"messages": [*HISTORY, HumanMessage("thanks!"), AIMessage("You're welcome."), HumanMessage(FOLLOW_UP)],
     "question": FOLLOW_UP},
])
def test_a_chat_chain_without_a_condense_step_asks_the_last_user_turn(langchain: Recorder,
                                                                      inputs: dict[str, Any]) -> None:
    # Must not change: the retriever searched for that turn, and it stays the question.
    _chat_chain(condense=False).invoke(inputs)

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == FOLLOW_UP


# --- 4. traceloop @workflow arguments ----------------------------------------------------------------


def _workflow(recorder: Recorder, entity_input: dict[str, Any], user_message: str) -> None:
    """What traceloop-sdk's @workflow, its Chroma and its OpenAI instrumentors write (indexed prompts and
    completions, as OpenLLMetry < 0.55 does)."""
    with recorder.tracer.start_as_current_span("answer.workflow") as workflow:
        workflow.set_attributes({"traceloop.span.kind": "workflow", "traceloop.entity.name": "answer",
                                 "traceloop.entity.input": json.dumps(entity_input)})
        with recorder.tracer.start_as_current_span("chroma.query", kind=SpanKind.CLIENT) as query:
            query.set_attribute("db.system", "chroma")
            query.add_event("db.query.result", {"db.query.result.id": "kb-warranty",
                                                "db.query.result.document": KB["kb-warranty"]})
        with recorder.tracer.start_as_current_span("openai.chat", kind=SpanKind.CLIENT) as call:
            call.set_attributes({
                "llm.request.type": "chat",
                "gen_ai.prompt.0.role": "system",
                "gen_ai.prompt.0.content": f"Answer from:\n{KB['kb-warranty']}",
                "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": user_message,
                "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": WARRANTY_ANSWER})
        workflow.set_attribute("traceloop.entity.output", json.dumps(WARRANTY_ANSWER))


@pytest.mark.parametrize("entity_input", [
    {"args": ["acme-eu", WARRANTY_QUESTION], "kwargs": {}},     # answer(tenant_id, question)
    {"args": ["acme eu region", WARRANTY_QUESTION], "kwargs": {}},  # a tenant of several words
    {"args": ["acme-eu"], "kwargs": {"question": WARRANTY_QUESTION}},
])
def test_a_workflows_other_text_arguments_are_not_the_question(recorder: Recorder,
                                                               entity_input: dict[str, Any]) -> None:
    _workflow(recorder, entity_input, WARRANTY_QUESTION)

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == WARRANTY_QUESTION


def test_a_workflows_question_before_its_context_argument(recorder: Recorder) -> None:
    # Must not change: generate(question, context) passes a longer sentence after the question, and the
    # model was given a stuffed prompt without a question line to match against.
    _workflow(recorder, {"args": [WARRANTY_QUESTION, KB["kb-warranty"]], "kwargs": {}},
              f"{KB['kb-warranty']}\n\n{WARRANTY_QUESTION}")

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == WARRANTY_QUESTION


# --- 5. a prompt stuffed with the documents is not the question --------------------------------------


STUFFED = f"Use the context to answer.\nContext:\n{CONTEXT}\n\nQuestion: {SHIPPING_QUESTION}\nAnswer:"


@pytest.mark.parametrize(("prompt", "question"), [
    (STUFFED, SHIPPING_QUESTION),
    # LlamaIndex's text_qa template asks with "Query:"
    (f"Context information is below.\n{CONTEXT}\nAnswer the query.\nQuery: {SHIPPING_QUESTION}\nAnswer: ",
     SHIPPING_QUESTION),
    # no question line: unknown, rather than the documents scored as the question
    (f"{CONTEXT}\n\n{SHIPPING_QUESTION}", ""),
])
def test_a_stuffed_prompt_without_a_retrieval_query(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI], prompt: str, question: str) -> None:
    client, api = openai_client
    api.reply(SHIPPING_ANSWER)
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, None)
        _say(client, [{"role": "user", "content": prompt}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == question
    assert example.answer == SHIPPING_ANSWER


@pytest.mark.parametrize("prompt", [
    f"Question: {SHIPPING_QUESTION}",                       # a question line but no documents
    f"{SHIPPING_QUESTION} (I read: {KB['kb-shipping'][:30]})",  # part of a document is not the document
])
def test_a_user_message_without_the_documents_is_the_question(
        recorder: Recorder, openai_client: tuple[OpenAI, FakeOpenAI], prompt: str) -> None:
    # Must not change: only a message holding a retrieved document's whole text is a stuffed prompt.
    client, api = openai_client
    api.reply(SHIPPING_ANSWER)
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _retrieval(recorder, None)
        _say(client, [{"role": "system", "content": CONTEXT}, {"role": "user", "content": prompt}])

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == prompt


# --- 6. LlamaIndex's CitationQueryEngine numbers chunks of the documents, not the documents -----------


BATTERY = ("The battery is rated for 800 charge cycles before capacity falls below 80 percent. Charging "
           "takes about two hours with the supplied adapter. The battery cells are made in Korea and are "
           "replaceable by an authorised service centre. Storing the battery fully charged in heat shortens "
           "its life.")
BATTERY_WARRANTY = "The warranty lasts 2 years from the date of purchase and covers battery faults."


def _cite(recorder: Recorder, answer: str, chunk_size: int) -> dict[str, str]:
    """A CitationQueryEngine over the two documents answering `answer`; the retrieved texts' node ids."""
    documents = [LlamaDocument(text=BATTERY, id_="kb-battery"),
                 LlamaDocument(text=BATTERY_WARRANTY, id_="kb-warranty")]
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    recorder.exporter.clear()
    engine = CitationQueryEngine.from_args(index, llm=ScriptedLLM(replies=[answer]), similarity_top_k=2,
                                           citation_chunk_size=chunk_size, citation_chunk_overlap=0)
    engine.query("How long does charging take and what does the warranty cover?")
    return {doc.get_content(): doc.node_id for doc in index.docstore.docs.values()}


def test_a_numbered_source_is_the_document_its_chunk_was_cut_from(llamaindex: Recorder) -> None:
    # With 40-token chunks the battery text is two sources and the warranty one: three sources from two
    # documents, "[1]" and "[3]" cite the one and the other (whichever was retrieved first), where as
    # positions among the documents "[3]" would cite nothing.
    node_ids = _cite(llamaindex, "The warranty covers battery faults [1]. Cells are replaceable [3].", 40)

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.citations is not None
    assert sorted(example.citations) == sorted(node_ids.values())


def test_whole_documents_as_sources_are_numbered_as_retrieved(llamaindex: Recorder) -> None:
    # Must not change: chunks as large as the documents are the documents, in the order retrieved.
    node_ids = _cite(llamaindex, "The warranty covers battery faults [1][2].", 512)

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.contexts is not None
    assert example.citations == tuple(context.id for context in example.contexts)
    assert set(example.citations) == set(node_ids.values())


# --- 7. Chains, re-rankers and cut-off streams a streaming/agent walkthrough found --------------------


def _rag(answer: str, documents: Runnable[Any, Any]) -> Runnable[Any, str]:
    """question -> documents -> prompt (their texts) -> fake chat model -> parser, one top chain."""
    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    listing = RunnableLambda(lambda docs: "\n".join(doc.page_content for doc in docs))
    return ({"context": documents | listing, "question": RunnablePassthrough()}
            | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())


def _kb(k: int = 3) -> Runnable[Any, list[Document]]:
    return _store([Document(page_content=text, id=doc_id) for doc_id, text in KB.items()]).as_retriever(
        search_kwargs={"k": k})


@pytest.mark.parametrize("after", ["Does the warranty cover water damage? Can I extend it to 5 years?",
                                   "Warranty length"])
def test_a_chain_after_the_answering_chain_is_not_the_answer(langchain: Recorder, after: str) -> None:
    # A chat app answers, then asks a chain of its own for follow-up questions or a title: the last top
    # chain's output had been scored as the answer (groundedness 0.0 for a grounded answer).
    with langchain.tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER):
        answer = _rag(WARRANTY_ANSWER, _kb()).invoke(WARRANTY_QUESTION)
        (ChatPromptTemplate.from_messages([("human", "Suggest what to ask next after: {answer}")])
         | FakeListChatModel(responses=[after]) | StrOutputParser()).invoke({"answer": answer})

    example = extract(langchain.trace())

    assert example is not None
    assert example.question == WARRANTY_QUESTION
    assert example.answer == WARRANTY_ANSWER


def test_documents_no_model_call_was_given_are_no_support(langchain: Recorder) -> None:
    # A re-ranker that is a plain function keeps the top document of three: the other two were never in a
    # prompt, so a sentence only they state is unsupported, not grounded.
    kept = RunnableLambda(lambda docs: [doc for doc in docs if doc.id == "kb-warranty"], name="rerank")
    _rag(WARRANTY_ANSWER, _kb() | kept).invoke(WARRANTY_QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.contexts == (Context("kb-warranty", KB["kb-warranty"]),)


@pytest.mark.parametrize("shown", [lambda docs: docs,
                                   lambda docs: json.dumps([doc.page_content for doc in docs])],
                         ids=["list as it is", "json"])
def test_documents_a_prompt_shows_with_their_line_breaks_escaped_are_given(
        langchain: Recorder, shown: Any) -> None:
    # A chain handing the retrieved documents to its prompt as they are ({"context": retriever}) shows their
    # list's repr, a line break written "\\n", as JSON does: the refund document counted as not given, and
    # the answer copied from its second line scored 0.
    texts = {"kb-refunds": "Refunds are accepted for 30 days.\nThe 30 days start at délivery.",
             "kb-shipping": "Shipping takes 5 business days."}
    documents = _store([Document(page_content=text, id=doc_id) for doc_id, text in texts.items()])
    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    chain = ({"context": documents.as_retriever(search_kwargs={"k": 2}) | RunnableLambda(shown),
              "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=["The 30 days start at délivery."]) | StrOutputParser())
    chain.invoke("When do the 30 days start?")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == ["kb-refunds", "kb-shipping"]


def test_a_position_cited_is_the_document_the_prompt_numbered_so_after_a_reordering(
        langchain: Recorder) -> None:
    # A re-ranker that is a plain function puts the returns document first and numbers the documents "[n]
    # text" in its order: the answer's "[1]" had been read as the first retrieved, another document.
    def reranked(docs: list[Document]) -> str:
        ordered = sorted(docs, key=lambda doc: doc.id != "kb-returns")
        return "\n".join(f"[{n}] {doc.page_content}" for n, doc in enumerate(ordered, 1))

    answer = "Items can be returned within 30 days of delivery for a full refund [1]."
    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    chain = ({"context": _kb() | RunnableLambda(reranked), "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
    chain.invoke("Can I return an item?")

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert example.contexts[0].id != "kb-returns"  # retrieval order: the reordering recorded no span
    assert example.citations == ("kb-returns",)


def _source_ids(order: list[str]) -> Runnable[Any, str]:
    """LangChain's citation tutorial's `format_docs_with_id`: each document under "Source ID: i", numbered
    from 0, its title and its text on the lines after; the documents in the order `order` gives their ids
    (a re-ranker's, say)."""
    def formatted(docs: list[Document]) -> str:
        ordered = sorted(docs, key=lambda doc: order.index(doc.id or ""))
        return "\n\n" + "\n\n".join(
            f"Source ID: {i}\nArticle Title: {(doc.id or '').title()}\nArticle Snippet: {doc.page_content}"
            for i, doc in enumerate(ordered))
    return RunnableLambda(formatted)


@pytest.mark.parametrize("order", [["kb-warranty", "kb-returns", "kb-shipping"],
                                   ["kb-shipping", "kb-returns", "kb-warranty"]],
                         ids=["as-retrieved", "re-ranked"])
def test_a_source_id_cited_is_the_document_the_prompt_gave_it_numbered_from_0(
        langchain: Recorder, order: list[str]) -> None:
    # LangChain's citation tutorial: the prompt numbers the documents "Source ID: 0", ... and the model
    # answers {"answer": ..., "citations": [0]}, the integer IDs of its sources. 0 had cited nothing and n
    # the n-th document retrieved (1-based), so citation_accuracy judged the wrong one.
    reply = json.dumps({"answer": WARRANTY_ANSWER.removesuffix(" [kb-warranty]."),
                        "citations": [order.index("kb-warranty")]})
    prompt = ChatPromptTemplate.from_messages([("system", "Answer from these sources:{context}"),
                                               ("human", "{question}")])
    chain = ({"context": _kb() | _source_ids(order), "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=[reply]) | StrOutputParser())
    chain.invoke(WARRANTY_QUESTION)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(KB)
    assert example.answer == "The warranty lasts 2 years from the date of purchase"
    assert example.citations == ("kb-warranty",)


def test_a_source_id_whose_text_is_not_shown_is_the_document_at_its_position_from_0(
        langchain: Recorder) -> None:
    # The tutorial's layout with titles only, in retrieval order: no source's text names its document, so
    # "Source ID: 1" is the second retrieved, counted from 0 as the prompt counts (it had been the first).
    titles = RunnableLambda(lambda docs: "\n\n".join(
        f"Source ID: {i}\nArticle Title: {doc.id}" for i, doc in enumerate(docs)))
    prompt = ChatPromptTemplate.from_messages([("system", "Sources:\n{context}"), ("human", "{question}")])
    chain = ({"context": _kb() | titles, "question": RunnablePassthrough()} | prompt
             | FakeListChatModel(responses=['{"answer": "Returns take 30 days.", "citations": [1]}'])
             | StrOutputParser())
    chain.invoke(WARRANTY_QUESTION)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-warranty", "kb-returns", "kb-shipping"]
    assert example.citations == ("kb-returns",)


class CitedAnswer(BaseModel):
    """The tutorial's schema: the answer, and the integer IDs of the sources that justify it."""

    answer: str
    citations: list[int]


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's scripted chat model, taking tools as a provider's model does (`with_structured_output`
    binds the schema as one); its replies are the tool calls scripted."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable[Any, Any]:
        return self


def test_a_structured_output_through_tool_calling_cites_its_source_ids(langchain: Recorder) -> None:
    # The tutorial's chain proper: `llm.with_structured_output(CitedAnswer)`, the model's reply a tool
    # call with no text, parsed into the object the chain outputs. Its citations, [1], are "Source ID: 1",
    # the returns document: it had been read as the first retrieved, the warranty.
    call = {"name": "CitedAnswer", "id": "call_1",
            "args": {"answer": "Items can be returned within 30 days of delivery.", "citations": [1]}}
    model = ToolCallingFake(messages=iter([AIMessage(content="", tool_calls=[call])]))
    prompt = ChatPromptTemplate.from_messages([("system", "Answer from these sources:{context}"),
                                               ("human", "{question}")])
    chain = ({"context": _kb() | _source_ids(list(KB)), "question": RunnablePassthrough()}
             | prompt | model.with_structured_output(CitedAnswer))
    chain.invoke(WARRANTY_QUESTION)

    example = extract(langchain.trace())

    assert example is not None and example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-warranty", "kb-returns", "kb-shipping"]
    assert example.answer == "Items can be returned within 30 days of delivery."
    assert example.citations == ("kb-returns",)


def test_documents_shown_to_any_model_call_all_count(langchain: Recorder) -> None:
    # Must not change: two calls each given some of the documents (a draft, then a refinement given the
    # rest) keep all three; one call given all three keeps all three.
    first = RunnableLambda(lambda docs: [doc for doc in docs if doc.id == "kb-warranty"])
    rest = RunnableLambda(lambda docs: [doc for doc in docs if doc.id != "kb-warranty"])
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        draft = _rag("A draft.", _kb() | first).invoke(WARRANTY_QUESTION)
        _rag(WARRANTY_ANSWER, _kb() | rest).invoke(f"{WARRANTY_QUESTION} Draft: {draft}")

    example = extract(langchain.trace())

    assert example is not None
    assert example.contexts is not None
    assert sorted(context.id for context in example.contexts) == sorted(KB)


def test_questions_answered_side_by_side_in_one_trace_are_an_error_naming_the_chains(
        langchain: Recorder) -> None:
    # One request answers two questions at once in a thread pool: read as one example, the first question
    # met the second's answer and both chains' documents, and the second answer was never scored.
    # Both chains meet inside, after retrieving: each is open until the other has started, however the
    # threads are scheduled (met before `invoke`, a loaded machine had run one chain to its end before the
    # other began, which reads as a chain run again and answers with the last).
    started = threading.Barrier(2)

    def meet(docs: list[Document]) -> list[Document]:
        started.wait(timeout=10)
        return docs

    met = RunnableLambda(meet)
    chains = [_rag(WARRANTY_ANSWER, _kb(1) | met), _rag("Returns are free for 90 days.", _kb(1) | met)]

    def answer(index: int, parent: otel_context.Context) -> str:
        token = otel_context.attach(parent)
        try:
            return chains[index].invoke(WARRANTY_QUESTION)
        finally:
            otel_context.detach(token)

    with (langchain.tracer.start_as_current_span("POST /ask-many", kind=SpanKind.SERVER) as request,
          ThreadPoolExecutor(2) as pool):
        list(pool.map(answer, range(2), [otel_context.get_current()] * 2))
    trace = langchain.trace()
    request_id = f"{request.get_span_context().span_id:016x}"
    chain_ids = [span.span_id for span in trace.spans if span.parent_span_id == request_id]

    with pytest.raises(ExtractionError) as raised:
        extract(trace)

    assert raised.value.field == "span"
    assert "2 chains of this trace each retrieved and answered, side by side" in str(raised.value)
    assert len(chain_ids) == 2
    assert all(f"'RunnableSequence' ({span_id})" in str(raised.value) for span_id in chain_ids)


def test_a_chain_run_again_after_the_first_answers_with_the_last(langchain: Recorder) -> None:
    # Must not change: a retry after the first answer was rejected runs a second chain after the first;
    # the second answers.
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        _rag("The warranty lasts 7 years.", _kb(1)).invoke(WARRANTY_QUESTION)
        _rag(WARRANTY_ANSWER, _kb(1)).invoke(WARRANTY_QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == WARRANTY_ANSWER


def test_documents_whose_request_was_cut_off_are_an_error_not_a_search(recorder: Recorder) -> None:
    # A client stops reading a streamed answer: the query and model spans never end, and only the
    # retriever's, whose parent never comes, reach ragmon. Scored, it counted as a search endpoint.
    query = recorder.tracer.start_span("query")
    inside = trace_api.set_span_in_context(query)
    with recorder.tracer.start_as_current_span("retrieve", context=inside) as span:
        span.set_attributes({"openinference.span.kind": "RETRIEVER", "input.value": WARRANTY_QUESTION,
                             "retrieval.documents.0.document.id": "kb-warranty",
                             "retrieval.documents.0.document.content": KB["kb-warranty"]})

    with pytest.raises(ExtractionError) as raised:
        extract(recorder.trace())

    assert raised.value.field == "parent_span_id"
    assert f"parent_span_id {query.get_span_context().span_id:016x}) never arrived" in str(raised.value)


def test_a_search_endpoints_documents_are_still_scored(recorder: Recorder) -> None:
    # Must not change: a retriever that is the trace's root (a search endpoint) is scored on its documents.
    with recorder.tracer.start_as_current_span("retrieve") as span:
        span.set_attributes({"openinference.span.kind": "RETRIEVER", "input.value": WARRANTY_QUESTION,
                             "retrieval.documents.0.document.id": "kb-warranty",
                             "retrieval.documents.0.document.content": KB["kb-warranty"]})

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer is None
    assert example.contexts == (Context("kb-warranty", KB["kb-warranty"]),)


def test_a_document_id_of_spaces_is_no_id_and_the_metadatas_names_the_document(recorder: Recorder) -> None:
    # An empty id was read as none, one of spaces as the id: reports named the document by nothing visible.
    with recorder.tracer.start_as_current_span("retrieve") as span:
        span.set_attributes({"openinference.span.kind": "RETRIEVER", "input.value": WARRANTY_QUESTION,
                             "retrieval.documents.0.document.id": "  ",
                             "retrieval.documents.0.document.metadata": '{"source": "kb-warranty"}',
                             "retrieval.documents.0.document.content": KB["kb-warranty"]})

    example = extract(recorder.trace())

    assert example is not None and example.contexts == (Context("kb-warranty", KB["kb-warranty"]),)
