"""The Vercel AI SDK's own telemetry (npm `ai`, `experimental_telemetry: {isEnabled: true}`): the model calls
of TypeScript apps that use neither OpenInference nor an OTel GenAI instrumentation.

Each provider call is an `ai.generateText.doGenerate` or `ai.streamText.doStream` span (its
`ai.operationId`), under the `ai.generateText` / `ai.streamText` span of the whole call, which runs one
provider call a step (a tool's result is sent back at the next). The provider call records what it sent in
`ai.prompt.messages` (JSON: `{"role", "content"}` messages, content a string or parts such as
`{"type": "text", "text": ...}`) and its reply in `ai.response.text`, or the tools it asked for in
`ai.response.toolCalls`. It writes `gen_ai.system` and `gen_ai.request.model` but no
`gen_ai.operation.name` and none of the GenAI conventions' content, so unread, a RAG answer it made was no
model call: its trace was scored as a search endpoint, on its documents, the answer never judged.
The AI SDK traces no retrieval: the app records its documents (`ragmon.contexts`, or a GenAI retrieval span).

`generateObject` and `streamObject` make `ai.generateObject.doGenerate` and `ai.streamObject.doStream`
provider calls, the reply in `ai.response.object` (the model's JSON text; streamed, the object parsed and
written again): unread, an answer asked for as an object was never judged either. It is read as the
reply's text, which extract.py reads as a structured answer (ragmon.semconv.structured).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.semconv.common import Role, list_value, maybe_json, message_text, strict_json, strings, text_value
from ragmon.traces import Span

OPERATION_ID = "ai.operationId"
PROMPT_MESSAGES = "ai.prompt.messages"
RESPONSE = "ai.response."
"""How the names of the attributes holding a call's output start (`ai.response.text`, `.toolCalls`...)."""
RESPONSE_TEXT = "ai.response.text"
RESPONSE_OBJECT = "ai.response.object"
RESPONSE_TOOL_CALLS = "ai.response.toolCalls"
CONTENT_SWITCH = ("the AI SDK records a call's messages and reply unless its experimental_telemetry sets "
                  "recordInputs: false or recordOutputs: false")

_TEXT_CALLS = frozenset({"ai.generateText.doGenerate", "ai.streamText.doStream"})
_OBJECT_CALLS = frozenset({"ai.generateObject.doGenerate", "ai.streamObject.doStream"})
_PROVIDER_CALLS = _TEXT_CALLS | _OBJECT_CALLS


def follows(span: Span) -> bool:
    """Whether the span is an AI SDK provider call: the spans around it (the whole call, a tool's) hold no
    model input or output of their own, but the last step's text again."""
    return _operation(span) in _PROVIDER_CALLS


def object_call(span: Span) -> bool:
    """Whether the span is a provider call of `generateObject` or `streamObject`."""
    return _operation(span) in _OBJECT_CALLS


def _operation(span: Span) -> str | None:
    """The span's `ai.operationId`, if a string: OTLP allows an array or a map on any key, and looked up in
    a set as it came, an array of an unrelated instrumentation's raised TypeError on every span of its
    trace, which was then lost as an error of ragmon's."""
    operation = span.attributes.get(OPERATION_ID)
    return operation if isinstance(operation, str) else None


def role(span: Span) -> Role | None:
    return Role.LLM if follows(span) else None


def llm_output(span: Span) -> str | None:
    if not follows(span):
        return None
    return text_value(span.attributes.get(RESPONSE_OBJECT if object_call(span) else RESPONSE_TEXT))


def output_recorded(span: Span) -> bool:
    """A step that only asked for a tool records `ai.response.toolCalls` and an empty text."""
    return follows(span) and not span.attributes.keys().isdisjoint(_OUTPUTS)


_OUTPUTS = frozenset({RESPONSE_TEXT, RESPONSE_OBJECT, RESPONSE_TOOL_CALLS})


def requested_tools(span: Span) -> bool:
    return follows(span) and bool(strict_json(span.attributes.get(RESPONSE_TOOL_CALLS)))


def llm_user_message(span: Span) -> str | None:
    """The text of the last user message the provider was sent, not one made only of tool results (the
    AI SDK sends those as `tool` messages, but files and images may come without text)."""
    value = span.attributes.get(PROMPT_MESSAGES) if follows(span) else None
    if value is None:
        return None
    users = [message for message in list_value(span, PROMPT_MESSAGES, value)
             if isinstance(message, Mapping) and message.get("role") == "user"]
    return message_text(users[-1]) if users else None


def llm_input_text(span: Span) -> str:
    """All the text of the messages sent, every role's: a RAG app puts its documents in the system
    message."""
    value: Any = span.attributes.get(PROMPT_MESSAGES) if follows(span) else None
    if value is None:
        return ""
    return "\n".join(strings(maybe_json(value) if isinstance(value, str) else value))
