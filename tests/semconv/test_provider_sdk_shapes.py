"""What the provider-SDK instrumentors write, replayed through the SDK and OTLP (the `recorder` fixture).

The attribute values are those the real instrumentors wrote in a walkthrough against a fake provider on
loopback (openai 3.57.0, anthropic 2.15.0 SDKs; none of these instrumentors is installed here), read back
from the SDK's span exporter: OpenInference's openinference-instrumentation-openai 0.1.66 and -anthropic 3.1.0
(openinference-instrumentation 0.1.72), Traceloop's opentelemetry-instrumentation-anthropic 0.62.4 and
0.47.5 (the last writing indexed `gen_ai.prompt.<i>.*`), -openai 0.62.4 and -chromadb 0.62.4. Shapes
written by hand say so.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from opentelemetry.trace import SpanKind

from ragmon.semconv.common import REDACTED, ExtractionError
from ragmon.semconv.extract import extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "How long does the warranty last?"
DOCS = {
    "kb-1": "The warranty lasts 2 years from the date of purchase. Keep the receipt as proof.",
    "kb-2": "Refunds are issued within 14 days of the returned item arriving at the warehouse.",
    "kb-3": "Shipping to Canada takes 5 to 8 business days with the standard carrier.",
}
LISTED = "\n".join(f"DOC: {text}" for text in DOCS.values())
"""The documents as the app put them in the prompt, or returned them from its search tool."""
MADE_UP = "The warranty also covers accidental water damage for 7 years at no extra cost."
GROUNDED = "The warranty lasts 2 years from the date of purchase."
JSON = "application/json"

# --- 1. Output messages hidden: the answer is in output.value, the provider's response -------------------

RETRIEVER = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION} | {
    f"retrieval.documents.{rank}.document.{field}": value for rank, (doc_id, text) in enumerate(DOCS.items())
    for field, value in (("id", doc_id), ("content", text))}
OPENAI_INPUT = {
    "openinference.span.kind": "LLM", "llm.system": "openai", "llm.model_name": "gpt-halluc",
    "llm.input_messages.0.message.role": "system",
    "llm.input_messages.0.message.content": f"Answer from these documents only.\n{LISTED}",
    "llm.input_messages.1.message.role": "user", "llm.input_messages.1.message.content": QUESTION,
    "output.mime_type": JSON,
}
CHAT_COMPLETION = (
    '{"id":"chatcmpl-4c138dcb","choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":'
    '{"content":"The warranty also covers accidental water damage for 7 years at no extra cost.",'
    '"role":"assistant"}}],"created":1796187941,"model":"gpt-halluc","object":"chat.completion","usage":'
    '{"completion_tokens":5,"prompt_tokens":10,"total_tokens":15}}')
STREAMED_CHAT_COMPLETION = (
    '{"choices": [{"message": {"content": "The warranty also covers accidental water damage for 7 years at '
    'no extra cost.", "role": "assistant"}, "index": 0, "finish_reason": "stop"}], '
    '"id": "chatcmpl-9c372bd0", "created": 1796187951, "model": "gpt-halluc", '
    '"object": "chat.completion.chunk", "usage": {"completion_tokens": 5, "prompt_tokens": 10, '
    '"total_tokens": 15}}')
"""What the instrumentor makes of a streamed chat completion's chunks."""
TOOL_CALL_ONLY = (
    '{"id":"chatcmpl-25d50082","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":'
    '{"content":null,"role":"assistant","tool_calls":[{"id":"call_1","function":{"arguments":"{\\"query\\": '
    '\\"How long does the warranty last?\\"}","name":"search"},"type":"function"}]}}],"created":1796187956,'
    '"model":"gpt-mixed","object":"chat.completion","usage":{"completion_tokens":5,"prompt_tokens":10,'
    '"total_tokens":15}}')
RESPONSE = (
    '{"id":"resp_f7573c49","created_at":1796187965.0,"error":null,"incomplete_details":null,"instructions":'
    '"Answer from these documents only.\\nDOC: The warranty lasts 2 years from the date of purchase. Keep '
    'the receipt as proof.\\nDOC: Refunds are issued within 14 days of the returned item arriving at the '
    'warehouse.\\nDOC: Shipping to Canada takes 5 to 8 business days with the standard carrier.",'
    '"metadata":'
    '{},"model":"gpt-halluc","object":"response","output":[{"id":"msg_f7573c49","content":[{"annotations":[],'
    '"text":"The warranty also covers accidental water damage for 7 years at no extra cost.","type":'
    '"output_text"}],"role":"assistant","status":"completed","type":"message"}],"parallel_tool_calls":true,'
    '"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"status":"completed","text":{"format":'
    '{"type":"text"}},"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":'
    '5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}')
"""A Responses API response (`client.responses.create`, streamed or not: the same shape)."""
COMPLETION = (
    '{"id":"cmpl-53518a2b","choices":[{"finish_reason":"stop","index":0,"logprobs":null,"text":"The warranty '
    'also covers accidental water damage for 7 years at no extra cost."}],"created":1796188265,"model":'
    '"gpt-halluc","object":"text_completion","usage":{"completion_tokens":5,"prompt_tokens":10,'
    '"total_tokens":15}}')
"""The legacy completions API (`client.completions.create`); OPENINFERENCE_HIDE_CHOICES hides its choices."""
ANTHROPIC_MESSAGE = (
    '{"id":"msg_0b87ca12","container":null,"content":[{"citations":null,"text":"According to the '
    'documents: ","type":"text"},{"citations":null,"text":"The warranty also covers accidental water damage '
    'for 7 years at no extra cost.","type":"text"}],"diagnostics":null,"model":"claude-halluc",'
    '"role":"assistant",'
    '"stop_details":null,"stop_reason":"end_turn","stop_sequence":null,"type":"message","usage":'
    '{"cache_creation":null,"cache_creation_input_tokens":null,"cache_read_input_tokens":null,'
    '"inference_geo":null,"input_tokens":10,"output_tokens":5,"output_tokens_details":null,'
    '"server_tool_use":null,"service_tier":null,"speed":null}}')
"""An Anthropic message in two text blocks (the app passed its documents as `document` blocks, with
citations on; `messages.stream` records the same shape)."""
BLOCKS_JOINED = "According to the documents: " + MADE_UP
ANTHROPIC_INPUT = {
    "openinference.span.kind": "LLM", "llm.system": "anthropic", "llm.provider": "anthropic",
    "llm.model_name": "claude-halluc", "llm.input_messages.0.message.role": "user", "output.mime_type": JSON,
} | {
    key: value for rank, (doc_id, text) in enumerate(DOCS.items()) for key, value in (
        (f"llm.input_messages.0.message.contents.{rank}.message_content.type", "document"),
        (f"llm.input_messages.0.message.contents.{rank}.message_content.text", json.dumps(
            {"type": "document",
             "source": {"type": "text", "media_type": "text/plain", "data": f"DOC: {text}"},
             "title": doc_id, "citations": {"enabled": True}})))
} | {"llm.input_messages.0.message.contents.3.message_content.type": "text",
     "llm.input_messages.0.message.contents.3.message_content.text": QUESTION}
ANTHROPIC_SDK_SPAN = {
    "gen_ai.provider.name": "anthropic", "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "claude-halluc", "gen_ai.response.model": "claude-halluc",
    "http.route": "/v1/messages", "anthropic.message.stop_reason": "end_turn",
}
"""The anthropic SDK's own span of the call, beneath OpenInference's: no content."""
HIDDEN_TEXT_BLOCKS = {"llm.output_messages.0.message.role": "assistant"} | {
    f"llm.output_messages.0.message.contents.{part}.message_content.{field}": value
    for part in (0, 1) for field, value in (("type", "text"), ("text", REDACTED))}


def openinference_request(recorder: Recorder, llm_name: str, llm: dict[str, Any], *,
                          sdk_span: bool = False) -> None:
    """The walkthrough's app: a plain span around a hand-made RETRIEVER span and the instrumented call."""
    tracer = recorder.tracer
    with tracer.start_as_current_span("handle"):
        with tracer.start_as_current_span("retrieve", attributes=RETRIEVER):
            pass
        with tracer.start_as_current_span(llm_name, attributes=llm):
            if sdk_span:
                with tracer.start_as_current_span("anthropic.messages.create", kind=SpanKind.CLIENT,
                                                  attributes=ANTHROPIC_SDK_SPAN):
                    pass


@pytest.mark.parametrize(("llm_name", "llm", "answer"), [
    pytest.param("ChatCompletion", OPENAI_INPUT | {"output.value": CHAT_COMPLETION}, MADE_UP,
                 id="openai-chat-hide-output-messages"),
    pytest.param("ChatCompletion", OPENAI_INPUT | {
        "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": REDACTED,
        "output.value": STREAMED_CHAT_COMPLETION}, MADE_UP, id="openai-chat-streamed-hide-output-text"),
    pytest.param("Response", OPENAI_INPUT | {"output.value": RESPONSE}, MADE_UP,
                 id="openai-responses-hide-output-messages"),
    pytest.param("Response", OPENAI_INPUT | {
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.contents.0.message_content.type": "text",
        "llm.output_messages.0.message.contents.0.message_content.text": REDACTED,
        "output.value": RESPONSE}, MADE_UP, id="openai-responses-hide-output-text"),
    pytest.param("Completion", {
        "openinference.span.kind": "LLM", "llm.system": "openai", "llm.model_name": "gpt-halluc",
        "llm.prompts.0.prompt.text": f"Answer from these documents only.\n{LISTED}\nQuestion: {QUESTION}",
        "llm.choices.0.completion.text": REDACTED, "output.value": COMPLETION, "output.mime_type": JSON},
        MADE_UP, id="openai-completions-hide-choices"),
    pytest.param("messages.create", ANTHROPIC_INPUT | {"output.value": ANTHROPIC_MESSAGE}, BLOCKS_JOINED,
                 id="anthropic-hide-output-messages"),
    pytest.param("messages.create",
                 ANTHROPIC_INPUT | HIDDEN_TEXT_BLOCKS | {"output.value": ANTHROPIC_MESSAGE}, BLOCKS_JOINED,
                 id="anthropic-hide-output-text"),
])
def test_hidden_output_messages_leave_the_answer_in_the_providers_response(
        recorder: Recorder, llm_name: str, llm: dict[str, Any], answer: str) -> None:
    # With the output messages or their text hidden, the instrumentors still record the provider's
    # response as output.value. Unread, the trace had counted as scored with no answer, the made-up
    # sentence never judged; an answer in two text blocks hidden had been "__REDACTED____REDACTED__".
    openinference_request(recorder, llm_name, llm, sdk_span=llm_name == "messages.create")

    example = extract(recorder.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, answer)
    assert example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-1", "kb-2", "kb-3"]


def test_a_reply_that_only_called_a_tool_stays_output_without_text(recorder: Recorder) -> None:
    # Must not change: a chat completion that only asked for a tool has no text to score, which is no
    # error: the documents are still scored, as when the output messages are recorded.
    openinference_request(recorder, "ChatCompletion", OPENAI_INPUT | {"output.value": TOOL_CALL_ONLY})

    example = extract(recorder.trace())

    assert example is not None
    assert example.answer is None
    assert example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-1", "kb-2", "kb-3"]



def test_a_reply_that_only_called_a_tool_stays_scored_with_the_apps_citations(recorder: Recorder) -> None:
    # The app records what it cited (ragmon.citations) on the request; the model call only asked for a tool.
    # A review found this scored shape turned into an error whose message said no model call had output.
    tracer = recorder.tracer
    with tracer.start_as_current_span("handle", attributes={"ragmon.citations": ["kb-1"]}):
        with tracer.start_as_current_span("retrieve", attributes=RETRIEVER):
            pass
        with tracer.start_as_current_span("ChatCompletion",
                                          attributes=OPENAI_INPUT | {"output.value": TOOL_CALL_ONLY}):
            pass

    example = extract(recorder.trace())

    assert example is not None
    assert (example.answer, example.citations) == (None, ("kb-1",))
    assert [context.id for context in example.contexts or ()] == ["kb-1", "kb-2", "kb-3"]

def test_a_response_in_a_shape_not_read_is_no_output_recorded(recorder: Recorder) -> None:
    # By hand: an Amazon Bedrock Converse response, a shape ragmon does not read, with the output
    # messages hidden. It had counted as output without text: scored, answer None, and no word of why.
    converse = json.dumps({"output": {"message": {"role": "assistant", "content": [{"text": MADE_UP}]}},
                           "stopReason": "end_turn"})
    openinference_request(recorder, "bedrock.converse", OPENAI_INPUT | {"output.value": converse})

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert (caught.value.span_name, caught.value.field) == ("bedrock.converse", "llm.output_messages")
    assert "OPENINFERENCE_HIDE_OUTPUT_MESSAGES" in str(caught.value)


# --- 2. A tool's response sent back as a user turn is not the question ---------------------------------

SYSTEM = "Use the search tool, answer from its results only."
SEARCH = {"query": QUESTION}
CHROMA_RESULTS = [("db.query.result", {"db.query.result.id": doc_id, "db.query.result.document": text,
                                       "db.query.result.metadata": json.dumps({"source": f"{doc_id}.md"})})
                  for doc_id, text in DOCS.items()]
"""Traceloop's chromadb instrumentor: one event per hit on the `chroma.query` span (distances left out)."""


def parts_messages(tool_response_role: str) -> list[dict[str, Any]]:
    """`gen_ai.input.messages` of the call after the tool ran, as Traceloop 0.62.4 writes them: its
    anthropic instrumentor turns the `tool_result` block into a `tool_call_response` part of the user
    turn that carried it; its openai instrumentor writes the same part in a turn of the `tool` role (here
    on the same messages)."""
    return [
        {"role": "user", "parts": [{"type": "text", "content": QUESTION}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "Let me search."},
                                        {"type": "tool_call", "id": "toolu_1", "name": "search",
                                         "arguments": SEARCH}]},
        {"role": tool_response_role, "parts": [{"type": "tool_call_response", "id": "toolu_1",
                                                "response": LISTED}]},
    ]


TOOL_RESULT_BLOCKS = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": LISTED}]
"""The user turn Anthropic's API takes a tool's result in."""
PARTS_ANSWER = {"gen_ai.output.messages": json.dumps(
    [{"role": "assistant", "parts": [{"type": "text", "content": GROUNDED}], "finish_reason": "stop"}])}
INDEXED_ASKED = {"llm.request.type": "completion",
                 "gen_ai.prompt.0.content": SYSTEM, "gen_ai.prompt.0.role": "system",
                 "gen_ai.prompt.1.content": QUESTION, "gen_ai.prompt.1.role": "user"}
Call = tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]
"""A model call's span attributes and span events."""


def user_event(content: Any) -> tuple[str, dict[str, Any]]:
    return "gen_ai.user.message", {"gen_ai.event.content": json.dumps({"content": content})}


TOOL_FLOWS: dict[str, tuple[Call, Call]] = {
    "traceloop-anthropic-0.62.4": (
        ({"gen_ai.input.messages": json.dumps(parts_messages("user")[:1])}, []),
        ({"gen_ai.input.messages": json.dumps(parts_messages("user"))} | PARTS_ANSWER, [])),
    "traceloop-anthropic-0.47.5-indexed": (
        (INDEXED_ASKED, []),
        (INDEXED_ASKED | {
            "gen_ai.prompt.2.content": "Let me search.", "gen_ai.prompt.2.role": "assistant",
            "gen_ai.prompt.2.tool_calls.0.id": "toolu_1", "gen_ai.prompt.2.tool_calls.0.name": "search",
            "gen_ai.prompt.2.tool_calls.0.arguments": json.dumps(SEARCH),
            "gen_ai.prompt.3.content": json.dumps(TOOL_RESULT_BLOCKS), "gen_ai.prompt.3.role": "user",
            "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": GROUNDED}, [])),
    "traceloop-openai-0.62.4-tool-role": (
        ({"gen_ai.input.messages": json.dumps(parts_messages("tool")[:1])}, []),
        ({"gen_ai.input.messages": json.dumps(parts_messages("tool"))} | PARTS_ANSWER, [])),
    "v1.28-user-message-events-by-hand": (
        ({}, [user_event(QUESTION)]),
        ({}, [user_event(QUESTION), user_event(TOOL_RESULT_BLOCKS), ("gen_ai.choice", {
            "gen_ai.event.content": json.dumps({"index": 0, "message": {"content": GROUNDED}})})])),
    "v1.26-prompt-json-by-hand": (
        ({"gen_ai.prompt": json.dumps([{"role": "user", "content": QUESTION}])}, []),
        ({"gen_ai.prompt": json.dumps([{"role": "user", "content": QUESTION},
                                       {"role": "assistant", "content": "Let me search."},
                                       {"role": "user", "content": TOOL_RESULT_BLOCKS}]),
          "gen_ai.completion": GROUNDED}, [])),
}
"""The model call that asked for the search tool and the one after it ran, in each form a GenAI reader
takes. The v1.28 events carry the bodies Traceloop's anthropic instrumentor logs (its log-event mode),
as Azure AI Inference sends such events on the span."""


def model_call(recorder: Recorder, call: Call) -> None:
    attributes, events = call
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-grounded"}
    with recorder.tracer.start_as_current_span("anthropic.chat", kind=SpanKind.CLIENT,
                                               attributes=chat | attributes) as span:
        for name, event_attributes in events:
            span.add_event(name, event_attributes)


@pytest.mark.parametrize("flow", list(TOOL_FLOWS))
def test_a_tool_response_sent_back_as_a_user_turn_is_not_the_question(recorder: Recorder, flow: str) -> None:
    # Anthropic's tool-use flow, the retrieval a tool: the model asks for `search`, the app queries
    # Chroma and sends the result back in a user turn of `tool_result` blocks, the model answers. Taken
    # as the last user message, that turn had given the question "" (answer_relevance undefined). The
    # OpenAI-style `tool` role read right before and must keep doing so.
    asked, answering = TOOL_FLOWS[flow]
    tracer = recorder.tracer
    with tracer.start_as_current_span("handle"):
        model_call(recorder, asked)
        with tracer.start_as_current_span("chroma.query", attributes={"db.system": "chroma",
                                                                      "db.operation": "query"}) as query:
            for name, attributes in CHROMA_RESULTS:
                query.add_event(name, attributes)
        model_call(recorder, answering)

    example = extract(recorder.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, GROUNDED)
    assert example.contexts is not None
    assert [context.id for context in example.contexts] == ["kb-1", "kb-2", "kb-3"]
