"""Extraction defects found by an adversarial review, each on the shape a real app sends: the real
OpenInference instrumentors over langchain-core / llama-index-core offline fakes, or the real SDK
recording the attribute and event shapes other instrumentations write (cited per test)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest
from instrumented_apps import (
    LANGCHAIN_ANSWER,
    LANGCHAIN_CORPUS,
    QUESTION,
    RagChain,
    ScriptedLLM,
    llama_index,
    node_contexts,
    query_engine,
)
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import QueryEngineTool
from opentelemetry.trace import SpanKind, set_span_in_context

from ragmon import instrument
from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

MODEL_ANSWER = "You have 30 days from delivery to ask for a refund."


@pytest.fixture
def limit(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> int:
    """The app's OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, set before the recorder's provider reads it: the SDK
    then keeps the first `limit` characters of every string attribute, silently."""
    value: int = request.param
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", str(value))
    return value


@pytest.fixture
def cut_langchain(limit: int, request: pytest.FixtureRequest) -> Recorder:
    """`langchain`, made after `limit` is set."""
    instrumented: Recorder = request.getfixturevalue("langchain")
    return instrumented


@pytest.fixture
def cut_llamaindex(limit: int, request: pytest.FixtureRequest) -> Recorder:
    """`llamaindex`, made after `limit` is set."""
    instrumented: Recorder = request.getfixturevalue("llamaindex")
    return instrumented


# --- the answer when the top chain only prepared the prompt -----------------------------------------


def test_the_model_answers_when_the_chain_only_retrieved_and_formatted(langchain: Recorder) -> None:
    # The app runs `retriever | format` as an LCEL chain, then calls the chat model itself. The only
    # chain's output is the formatted documents; scored as the answer, every claim would be supported.
    rag = RagChain()
    model = FakeListChatModel(responses=[MODEL_ANSWER])
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        prompt_context = (rag.retriever | RunnableLambda(rag._format)).invoke(QUESTION)
        reply = model.invoke([("system", prompt_context), ("human", QUESTION)])
    assert reply.content == MODEL_ANSWER

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == MODEL_ANSWER
    assert example.question == QUESTION
    assert example.contexts == rag.used_contexts()
    assert len(rag.used) == 3


def test_a_chain_that_only_formatted_the_documents_is_no_answer_while_its_model_call_runs(
        langchain: Recorder) -> None:
    # The request's model call outlasted --decision-wait: the trace is decided with `retriever | format`
    # ended and the request and model spans still open. The chain's output (the documents) had been
    # scored as the answer, 1.0, and the made-up answer that came later was only counted late.
    rag = RagChain()
    request = langchain.tracer.start_span("POST /ask", kind=SpanKind.SERVER)
    with langchain.tracer.start_as_current_span("ask", context=set_span_in_context(request)):
        (rag.retriever | RunnableLambda(rag._format)).invoke(QUESTION)
        trace = langchain.trace()  # decided now: the model is still being called
    request.end()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)
    assert caught.value.field == "parent_span_id"
    # The flag of each command that decides traces: this message reaches `ragmon replay --target` too,
    # where naming serve's --decision-wait alone sent the user to a flag replay does not have.
    assert "still running when it was decided, at serve's --decision-wait or replay's --trace-wait" in str(
        caught.value)


def test_a_condensed_question_is_no_answer_while_the_answering_call_runs(langchain: Recorder) -> None:
    # History-aware RAG: a model call condenses the question, `retriever | format` runs, and the trace is
    # decided while the answering call still runs. The condense call's rewrite had become the answer.
    rag = RagChain()
    condense = FakeListChatModel(responses=["What is the refund window for a delivered order?"])
    request = langchain.tracer.start_span("POST /ask", kind=SpanKind.SERVER)
    with langchain.tracer.start_as_current_span("ask", context=set_span_in_context(request)):
        standalone = condense.invoke(f"Chat so far: ... Follow-up: {QUESTION}").content
        (rag.retriever | RunnableLambda(rag._format)).invoke(standalone)
        trace = langchain.trace()
    request.end()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)
    assert caught.value.field == "parent_span_id"


def test_a_chain_answering_by_quoting_its_one_document_whole_still_answers(langchain: Recorder) -> None:
    # k=1 and a model called outside any instrumentation, whose answer quotes the FAQ entry whole: one
    # document laid out cannot be told from an answer quoting it, and the answer is kept.
    rag = RagChain()
    rag.retriever.search_kwargs = {"k": 1}
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        answer = (rag.retriever | RunnableLambda(lambda docs: f"{docs[0].page_content} Anything else?")
                  ).invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None and example.answer == answer
    assert example.contexts is not None and len(example.contexts) == 1


def test_a_search_endpoint_chain_is_scored_on_its_documents_without_an_answer(langchain: Recorder) -> None:
    # `retriever | format` served as a search endpoint: its output is the documents, no answer to score.
    rag = RagChain()
    with langchain.tracer.start_as_current_span("GET /search", kind=SpanKind.SERVER):
        (rag.retriever | RunnableLambda(rag._format)).invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer is None
    assert example.contexts == rag.used_contexts()


def test_a_chain_quoting_one_of_its_documents_still_answers(langchain: Recorder) -> None:
    # The app called a model no instrumentation sees, inside the chain: its answer quotes the first of
    # the three documents whole, which does not make it the documents.
    rag = RagChain()
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        chain = rag.retriever | RunnableLambda(lambda docs: f"In short: {docs[0].page_content}")
        answer = chain.invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer


def test_of_two_whole_chains_one_after_another_the_last_is_the_example(langchain: Recorder) -> None:
    # A retry, or a second question in the same request: each chain retrieved and answered. The first
    # chain's question had met the second's answer, with both chains' documents as support.
    first, second = RagChain(answer="Refunds take two weeks."), RagChain(answer=MODEL_ANSWER)
    other_question = "How long is the warranty?"  # its documents: kb-refunds in place of kb-warranty
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        first.chain.invoke(other_question)
        second.chain.invoke(QUESTION)
    assert {doc.metadata["id"] for doc in first.used} != {doc.metadata["id"] for doc in second.used}

    example = extract(langchain.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, MODEL_ANSWER)
    assert example.contexts == second.used_contexts()


def test_an_apps_function_asking_its_chain_twice_is_read_as_the_last_ask(langchain: Recorder) -> None:
    # The two runs sit inside the app's own chain (a RunnableLambda that retries), not side by side at the
    # top: the first question had met the second answer, with both runs' documents as its support.
    first, second = RagChain(answer="Refunds take two weeks."), RagChain(answer=MODEL_ANSWER)

    def ask_twice(question: str) -> str:
        first.chain.invoke("How long is the warranty?")
        return second.chain.invoke(question)

    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        RunnableLambda(ask_twice).invoke(QUESTION)

    example = extract(langchain.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, MODEL_ANSWER)
    assert example.contexts == second.used_contexts() != first.used_contexts()


def test_a_later_model_call_outside_a_generating_chain_is_not_the_answer(langchain: Recorder) -> None:
    # The chain called the model and answered; the app then asks the model for a chat title. The
    # chain's output stays the answer: only a chain that called no model defers to a later call.
    rag = RagChain()
    titler = FakeListChatModel(responses=["Refund window"])
    with langchain.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        answer = rag.chain.invoke(QUESTION)
        titler.invoke(f"Title for: {QUESTION}")

    example = extract(langchain.trace())

    assert example is not None
    assert example.answer == answer


# --- documents cut by the SDK's attribute length limit ----------------------------------------------


@pytest.mark.parametrize("limit", [45], indirect=True)
def test_langchain_documents_cut_by_the_length_limit_are_an_error(limit: int,
                                                                  cut_langchain: Recorder) -> None:
    # The corpus texts are 48, 40, 46 and 56 characters; the retriever's JSON output.value holds all
    # three it returns, so it is cut to 45 too and shows the limit. The first returned document longer
    # than 45 is the one named.
    assert sorted(len(text) for text in LANGCHAIN_CORPUS.values()) == [40, 46, 48, 56]
    rag = RagChain()
    rag.chain.invoke(QUESTION)
    cut = next(n for n, doc in enumerate(rag.used) if len(doc.page_content) > limit)

    with pytest.raises(ExtractionError) as caught:
        extract(cut_langchain.trace())

    message = str(caught.value)
    assert re.search(rf"span 'VectorStoreRetriever' \(span id [0-9a-f]{{16}}\): document {cut} "
                     rf"\(id '{rag.used[cut].metadata['id']}'\) is {limit} characters long", message)
    assert "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT" in message


@pytest.mark.parametrize("limit", [400], indirect=True)
def test_llamaindex_document_cut_by_the_length_limit_is_an_error(limit: int,
                                                                 cut_llamaindex: Recorder) -> None:
    # LlamaIndex's retriever output.value lists nodes by id only (about 100 characters each), so it is
    # not cut at 400; the prompt template variables hold every text and are: that shows the limit. The
    # policy text is 49 x 12 = 588 characters, cut to 400; the other document is whole.
    policy = "Refunds are accepted within 30 days of delivery. " * 12
    assert len(policy) == 588
    index = VectorStoreIndex.from_documents([Document(text=policy, id_="policy"),
                                             Document(text="Shipping is free.", id_="shipping")],
                                            embed_model=MockEmbedding(embed_dim=8))
    cut_llamaindex.exporter.clear()
    query_engine(index, top_k=2, answer_tokens=3).query(QUESTION)

    with pytest.raises(ExtractionError, match=r"\(id '[0-9a-f-]{36}'\) is 400 characters long"):
        extract(cut_llamaindex.trace())


@pytest.mark.parametrize("limit", [100], indirect=True)
def test_an_answer_cut_by_the_length_limit_is_an_error(limit: int, cut_langchain: Recorder) -> None:
    # The documents (at most 56 characters) are whole under 100; the answer (56 + 1 + 62 = 119) is cut at
    # 100 with the chain's JSON values, losing the end of its made-up second sentence. Scored, the cut
    # answer's tail went unseen: groundedness rose with the cut.
    answer = (LANGCHAIN_ANSWER + " "
              + "Store credit is also offered for every return made after that.")
    assert len(answer) == 119
    RagChain(answer).chain.invoke(QUESTION)

    with pytest.raises(ExtractionError, match=r"the answer is 100 characters long, the length this "
                                              r"service's JSON attributes were cut to"):
        extract(cut_langchain.trace())


@pytest.mark.parametrize("limit", [100], indirect=True)
def test_an_answer_the_app_records_cut_by_the_length_limit_is_an_error(limit: int,
                                                                        cut_langchain: Recorder) -> None:
    # The app's own ragmon.answer wins over the chain's output, and the limit cuts it as it cuts the
    # chain's JSON values: 119 characters to 100, the made-up tail lost. The app is told so as well.
    answer = LANGCHAIN_ANSWER + " " + "Store credit is also offered for every return made after that."
    with instrument.rag_span(QUESTION, tracer_provider=cut_langchain.provider) as rag, \
            pytest.warns(RuntimeWarning, match="ragmon.answer was cut to 100 characters"):
        rag.answered(RagChain(answer).chain.invoke(QUESTION))

    with pytest.raises(ExtractionError, match=r"span 'rag' \(span id [0-9a-f]{16}\): .*the answer is 100 "
                                              r"characters long, the length this service's JSON attributes"):
        extract(cut_langchain.trace())


@pytest.mark.parametrize("limit", [130], indirect=True)
def test_an_answer_shorter_than_the_limit_is_whole(limit: int, cut_langchain: Recorder) -> None:
    # The prompt's JSON values (over 130 characters) are cut at 130, so the limit shows; the answer (119)
    # is under it and is scored as it is.
    answer = LANGCHAIN_ANSWER + " " + "Store credit is also offered for every return made after that."
    RagChain(answer).chain.invoke(QUESTION)

    example = extract(cut_langchain.trace())

    assert example is not None and example.answer == answer


@pytest.mark.parametrize("limit", [100], indirect=True)
def test_documents_shorter_than_the_limit_are_whole(limit: int, cut_llamaindex: Recorder) -> None:
    # The prompt variables (all three texts, over 100 characters) are cut at 100, so the limit shows;
    # the documents (at most 48 characters) are under it and read as they are.
    index = llama_index()
    cut_llamaindex.exporter.clear()
    response = query_engine(index, top_k=3).query(QUESTION)
    trace = cut_llamaindex.trace()
    assert limit in {len(span.attributes.get("llm.prompt_template.variables", "")) for span in trace.spans}

    example = extract(trace)

    assert example is not None
    texts = sorted(context.text for context in example.contexts or ())
    assert texts == sorted(node.node.get_content() for node in response.source_nodes)
    assert all(len(text) < limit for text in texts)


# --- GenAI message events and the deprecated prompt / completion ------------------------------------


def test_azure_style_message_events_on_the_span(recorder: Recorder) -> None:
    # azure-ai-inference tracing: a `chat` span with v1.28 message events as span events, the body
    # JSON-encoded in gen_ai.event.content (an assistant turn of the history precedes the question).
    with recorder.tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as span:
        span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.system": "az.ai.inference"})
        span.add_event("gen_ai.system.message", {"gen_ai.event.content": json.dumps(
            {"role": "system", "content": "Answer from: Refunds are accepted within 30 days."})})
        span.add_event("gen_ai.user.message", {"gen_ai.event.content": json.dumps(
            {"role": "user", "content": "Hello"})})
        span.add_event("gen_ai.user.message", {"gen_ai.event.content": json.dumps(
            {"role": "user", "content": QUESTION})})
        span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
            {"finish_reason": "stop", "index": 0, "message": {"content": MODEL_ANSWER}})})

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER


def test_semconv_1_26_content_events_without_an_operation_name(recorder: Recorder) -> None:
    # v1.26: no gen_ai.operation.name yet; prompt and completion are span events whose attribute is a
    # JSON list of OpenAI-style messages. Without the events the span would not even count as an LLM.
    with recorder.tracer.start_as_current_span("chat gpt-4", kind=SpanKind.CLIENT) as span:
        span.set_attributes({"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4"})
        span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}])})
        span.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
            [{"role": "assistant", "content": MODEL_ANSWER}])})

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER


def test_openlit_plain_text_completion(recorder: Recorder) -> None:
    # OpenLIT: the completion as plain text, in a gen_ai.content.completion event and as the span
    # attribute gen_ai.completion; its prompt joins the whole conversation as "role: text" lines, so
    # it is not taken for the question, which comes from the retrieval query instead.
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("retrieval kb", kind=SpanKind.CLIENT) as span:
            span.set_attributes({"gen_ai.operation.name": "retrieval",
                                 "gen_ai.retrieval.query.text": QUESTION,
                                 "gen_ai.retrieval.documents": json.dumps(
                                     [{"id": "kb-refunds", "score": 0.9,
                                       "content": LANGCHAIN_CORPUS["kb-refunds"]}])})
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as span:
            span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.completion": MODEL_ANSWER})
            span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": f"user: {QUESTION}"})
            span.add_event("gen_ai.content.completion", {"gen_ai.completion": MODEL_ANSWER})

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER
    assert example.contexts == (Context("kb-refunds", LANGCHAIN_CORPUS["kb-refunds"], 0.9),)


def test_inference_details_event_carries_the_messages(recorder: Recorder) -> None:
    # v1.37+: gen_ai.input.messages / gen_ai.output.messages may sit on the
    # gen_ai.client.inference.operation.details event instead of the span.
    with recorder.tracer.start_as_current_span("chat claude", kind=SpanKind.CLIENT) as span:
        span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic"})
        span.add_event("gen_ai.client.inference.operation.details", {
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]),
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": MODEL_ANSWER}],
                  "finish_reason": "stop"}])})

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER


# --- traceloop @workflow on a method -----------------------------------------------------------------


@pytest.mark.parametrize("entity_input", [
    {"args": ["RagApp", QUESTION], "kwargs": {}},
    {"args": ["RagApp"], "kwargs": {"question": QUESTION}},
])
def test_workflow_method_self_is_not_the_question(recorder: Recorder,
                                                  entity_input: dict[str, object]) -> None:
    # traceloop-sdk's decorator writes json.dumps({"args": args, "kwargs": kwargs}, cls=JSONEncoder),
    # and its JSONEncoder writes an object it cannot encode as o.__class__.__name__: a decorated
    # method's `self` is the text "RagApp" ahead of the question.
    with recorder.tracer.start_as_current_span("answer.workflow") as span:
        span.set_attributes({"traceloop.span.kind": "workflow", "traceloop.entity.name": "answer",
                             "traceloop.entity.input": json.dumps(entity_input),
                             "traceloop.entity.output": json.dumps(MODEL_ANSWER)})
        _openllmetry_llm_call(recorder)

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER


def test_a_lone_word_argument_is_still_the_question(recorder: Recorder) -> None:
    # Only an argument that reads as a class name and has an alternative is passed over.
    with recorder.tracer.start_as_current_span("search.workflow") as span:
        span.set_attributes({"traceloop.span.kind": "workflow",
                             "traceloop.entity.input": json.dumps({"args": ["Refunds"], "kwargs": {}})})
        _openllmetry_llm_call(recorder)

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == "Refunds"


def _openllmetry_llm_call(recorder: Recorder) -> None:
    """The workflow's model call, as OpenLLMetry < 0.55 records it, so that the trace is RAG."""
    with recorder.tracer.start_as_current_span("openai.chat", kind=SpanKind.CLIENT) as span:
        span.set_attributes({"llm.request.type": "chat", "gen_ai.completion.0.role": "assistant",
                             "gen_ai.completion.0.content": MODEL_ANSWER})


# --- LlamaIndex agents: a retriever inside a tool call, the workflow's result as a repr --------------


def _policy_tool(index: VectorStoreIndex) -> QueryEngineTool:
    return QueryEngineTool.from_defaults(query_engine(index, top_k=1, answer_tokens=4), name="kb",
                                         description="Shop policies.")


async def test_function_agent_question_answer_and_tool_documents(llamaindex: Recorder) -> None:
    # The model first calls the kb tool with its own search string, then answers from the tool's result.
    # The workflow span's output is `StopEvent(result=AgentOutput(...))`, a repr; its input the
    # workflow's state, with no question in it.
    def reply(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        if any(message.role == MessageRole.TOOL for message in messages):
            return ChatMessage(role=MessageRole.ASSISTANT, content=MODEL_ANSWER)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[
            ToolCallBlock(tool_call_id="call-1", tool_name="kb", tool_kwargs={"input": "refund window"})])

    index = llama_index()
    agent = FunctionAgent(tools=[_policy_tool(index)],
                          llm=MockFunctionCallingLLM(response_generator=reply, is_chat_model=True))
    llamaindex.exporter.clear()
    result = await agent.run(user_msg=QUESTION)
    assert str(result) == MODEL_ANSWER
    tool_response = result.tool_calls[0].tool_output.raw_output

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == MODEL_ANSWER
    assert example.contexts == node_contexts(tool_response.source_nodes)


async def test_react_agent_answer_without_its_reasoning(llamaindex: Recorder) -> None:
    # ReAct sends tool results back as user turns ("Observation: ..."), so the last user message is
    # not the question; the final model output is "Thought: ...\nAnswer: <answer>".
    model = ScriptedLLM(replies=[
        'Thought: I need the policy.\nAction: kb\nAction Input: {"input": "refund window"}',
        "Thought: I can answer without using any more tools.\nAnswer: Refunds take 30 days."])
    agent = ReActAgent(tools=[_policy_tool(llama_index())], llm=model)
    llamaindex.exporter.clear()
    result = await agent.run(user_msg=QUESTION)
    assert str(result) == "Refunds take 30 days."

    example = extract(llamaindex.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == "Refunds take 30 days."
