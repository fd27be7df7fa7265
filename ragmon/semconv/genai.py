"""OpenTelemetry GenAI semantic conventions (also what OpenLLMetry writes on its LLM spans).

Two generations are read: the current `gen_ai.input.messages` / `gen_ai.output.messages` (v1.37+, parts
format) and the older indexed `gen_ai.prompt.<i>.*` / `gen_ai.completion.<i>.*`. Structured values may
arrive as JSON strings (what the Python SDK helpers and OpenLLMetry write) or as OTLP arrays and maps;
both read alike. Retrieval spans (v1.40+) are `gen_ai.operation.name = retrieval`. Older and other
senders put the messages in span events instead, also read: the v1.37 details event, v1.28 message
events carried as span events (Azure AI Inference), and the v1.26 `gen_ai.content.prompt/completion`
events (also OpenLIT, which sets `gen_ai.prompt` / `gen_ai.completion` on the span too).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ragmon.model import Context
from ragmon.semconv.common import (
    STATUS_ERROR,
    ExtractionError,
    Role,
    indexed,
    joined,
    list_value,
    make_context,
    maybe_json,
    message_piece,
    message_text,
    parts_text,
    strict_json,
    strings,
    text_value,
)
from ragmon.traces import Span

OPERATION = "gen_ai.operation.name"
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"
RETRIEVAL_QUERY = "gen_ai.retrieval.query.text"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
PROMPT = "gen_ai.prompt."
COMPLETION = "gen_ai.completion."
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
"""v1.37+: the messages as attributes of an event rather than of the span."""
USER_EVENT = "gen_ai.user.message"
CHOICE_EVENT = "gen_ai.choice"
EVENT_CONTENT = "gen_ai.event.content"
"""v1.28 message events sent as span events, the body JSON-encoded in this attribute (the Azure AI
Inference SDKs): `{"role", "content"}` for a message, `{"index", "message": {...}}` for a choice."""
LEGACY_PROMPT = "gen_ai.prompt"
LEGACY_COMPLETION = "gen_ai.completion"
LEGACY_PROMPT_EVENT = "gen_ai.content.prompt"
LEGACY_COMPLETION_EVENT = "gen_ai.content.completion"
"""v1.26/1.27 (and OpenLIT): span events carrying `gen_ai.prompt` / `gen_ai.completion`, JSON lists of
OpenAI-style messages or plain text; OpenLIT also sets the same two as span attributes."""

ANTHROPIC_SDK_SCOPE = "com.anthropic.sdk."
"""The instrumentation scope of the spans the anthropic SDK makes itself (`com.anthropic.sdk.python`) once
a tracer provider is set: GenAI attributes, content only in its own content mode."""
ANTHROPIC_CONTENT_SWITCH = ("the anthropic SDK's own spans record content only with "
                            "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content (or the client's "
                            "open_telemetry option {'traces': {'content_mode': 'content'}})")


def anthropic_sdk(span: Span) -> bool:
    return span.scope_name.startswith(ANTHROPIC_SDK_SCOPE)


CONTENT_SWITCH = (
    "OpenTelemetry GenAI instrumentations capture no content by default: start the app with "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only and "
    "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental (span_and_event also puts the content on the "
    "spans; event_only sends it only as log records to /v1/logs, which ragmon does not receive, and so does "
    "the legacy true on the old conventions, while on the latest true records none)")
"""How content gets onto the spans, where a traces-only receiver sees it. Checked against
opentelemetry-instrumentation-openai-v2 2.4b0 (tests/semconv/test_genai_openai_instrumented.py): from
opentelemetry-util-genai 1.0 it is always on the latest conventions, where `true` is no mode (a warning,
no content anywhere); on util-genai 0.4b0 without the opt-in it keeps v1.30, whose `true` sends
`gen_ai.user.message` / `gen_ai.choice` log events and whose other modes capture nothing."""

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_CHAIN_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow"})
_LLM_MARKERS = (INPUT_MESSAGES, OUTPUT_MESSAGES, f"{PROMPT}0.content", f"{COMPLETION}0.content",
                LEGACY_PROMPT, LEGACY_COMPLETION)
_LLM_EVENTS = frozenset({DETAILS_EVENT, USER_EVENT, CHOICE_EVENT, LEGACY_PROMPT_EVENT,
                         LEGACY_COMPLETION_EVENT})
_OUTPUT_EVENTS = frozenset({CHOICE_EVENT, LEGACY_COMPLETION_EVENT})
_TOOL_RESPONSES = frozenset({"tool_call_response", "tool_result"})
"""Part types that return a tool's result to the model: the GenAI conventions' and Anthropic's block."""
_KEYED_ROLES = ("user", "system")
_INPUT_EVENTS = frozenset({USER_EVENT, "gen_ai.system.message", "gen_ai.assistant.message",
                           "gen_ai.tool.message"})
"""v1.28 message events, whose `gen_ai.event.content` is the JSON-encoded message."""


def role(span: Span) -> Role | None:
    attributes = span.attributes
    operation = attributes.get(OPERATION)
    if operation is not None and not isinstance(operation, str):  # OTLP allows an array: no operation
        return None
    if operation == "retrieval":
        return Role.RETRIEVER
    if operation in _LLM_OPERATIONS:
        return Role.LLM
    if operation in _CHAIN_OPERATIONS:
        return Role.CHAIN
    if operation == "execute_tool":
        return Role.TOOL
    if operation is None and (any(marker in attributes for marker in _LLM_MARKERS)
                              or any(event.name in _LLM_EVENTS for event in span.events)):
        return Role.LLM
    return None


def documents(span: Span) -> tuple[Context, ...] | None:
    """`gen_ai.retrieval.documents`: objects with `id` and `score`; the text, which the schema leaves
    open, is read from `content` (what OpenInference's GenAI mode writes) or `text`."""
    value = span.attributes.get(RETRIEVAL_DOCUMENTS)
    if value is None:
        return None
    contexts = []
    for index, item in enumerate(list_value(span, RETRIEVAL_DOCUMENTS, value)):
        where = f"{RETRIEVAL_DOCUMENTS}[{index}]"
        if not isinstance(item, Mapping):
            raise ExtractionError(span, RETRIEVAL_DOCUMENTS, f"{where} is not an object")
        contexts.append(make_context(span, where, item.get("id"),
                                     item.get("content", item.get("text")), item.get("score"),
                                     item.get("metadata")))
    return tuple(contexts)


def require_documents(span: Span) -> None:
    """A retrieval span that ended well without `gen_ai.retrieval.documents` is an error: the attribute
    is opt-in, so its absence says the app records no content, not that nothing was found (that is an
    empty list). Asked only when no span of the trace gave documents. A retrieval that raised has none to
    know of."""
    attributes = span.attributes
    if (attributes.get(OPERATION) == "retrieval" and RETRIEVAL_DOCUMENTS not in attributes
            and span.status_code != STATUS_ERROR):
        raise ExtractionError(
            span, RETRIEVAL_DOCUMENTS,
            f"attribute {RETRIEVAL_DOCUMENTS!r} is missing and no span recorded documents, so the retrieved "
            f"documents are unknown: the attribute is opt-in. {CONTENT_SWITCH}. Each document needs its "
            "text too (a content or text field), which some instrumentations leave out; or record the "
            "documents as ragmon.contexts (ragmon.instrument)")


def retriever_query(span: Span) -> str | None:
    return text_value(span.attributes.get(RETRIEVAL_QUERY))


def llm_output(span: Span) -> str | None:
    """The first output message (one per choice) with text, in the newest form the span has: parts
    messages (on the span or its details event), indexed completions, choice events, legacy content.
    Events of one choice are joined in their order: the conventions put a whole message in each, but
    some producers send one per streamed chunk, and the first alone was "The warranty", the rest of the
    answer (a made-up sentence too) never scored."""
    value = _attribute_or_event(span, OUTPUT_MESSAGES, DETAILS_EVENT)
    if value is not None:
        for message in list_value(span, OUTPUT_MESSAGES, value):
            if (text := message_text(message)) is not None:
                return text
    for _, fields in sorted(indexed(span.attributes, COMPLETION).items()):
        if (text := _indexed_content(fields)) is not None:
            return text
    if (text := _first_choice(_choice_pieces(span))) is not None:
        return text
    legacy = span.attributes.get(LEGACY_COMPLETION)
    if legacy is not None:  # OpenLIT sets it beside its event: the span's own value wins, as elsewhere
        return _first_choice(_completion_pieces(legacy))
    return _first_choice(piece for event in span.events if event.name == LEGACY_COMPLETION_EVENT
                         for piece in _completion_pieces(event.attributes.get(LEGACY_COMPLETION)))


def output_recorded(span: Span) -> bool:
    """Whether the span records the model's output in any of the forms `llm_output` reads, text or not
    (a call that only asked for a tool has output without text)."""
    attributes = span.attributes
    return (_attribute_or_event(span, OUTPUT_MESSAGES, DETAILS_EVENT) is not None
            or LEGACY_COMPLETION in attributes or any(key.startswith(COMPLETION) for key in attributes)
            or any(event.name in _OUTPUT_EVENTS for event in span.events))


def requested_tools(span: Span) -> bool:
    """Whether the model's output asked for a tool, in a form `llm_output` reads: a `tool_call` part of an
    output message, an indexed completion's `tool_calls`, a choice event's. Such a call is an agent's
    step, whose text, if any, only announces the call ("Let me check your order."); a
    `server_tool_call` the provider ran within the call is none."""
    value = _attribute_or_event(span, OUTPUT_MESSAGES, DETAILS_EVENT)
    messages = maybe_json(value) if isinstance(value, str) else value
    if isinstance(messages, Sequence) and not isinstance(messages, str) and any(map(_calls_tool, messages)):
        return True
    if any(key.startswith(COMPLETION) and ".tool_calls." in key for key in span.attributes):
        return True
    return any(isinstance(choice, Mapping) and isinstance(message := choice.get("message"), Mapping)
               and bool(message.get("tool_calls")) for choice in _event_bodies(span, CHOICE_EVENT))


def _calls_tool(message: Any) -> bool:
    parts = message.get("parts") if isinstance(message, Mapping) else None
    return (isinstance(parts, Sequence) and not isinstance(parts, str)
            and any(isinstance(part, Mapping) and part.get("type") == "tool_call" for part in parts))


def llm_input_text(span: Span) -> str:
    """All the text the model was given, in every form `llm_user_message` reads and of every role: the
    documents are often in the system message, not the user's."""
    texts: list[str] = []
    for attribute, event_name in ((INPUT_MESSAGES, DETAILS_EVENT), (SYSTEM_INSTRUCTIONS, DETAILS_EVENT),
                                  (LEGACY_PROMPT, LEGACY_PROMPT_EVENT)):
        texts.extend(_texts(_attribute_or_event(span, attribute, event_name)))
    texts.extend(text for fields in _indexed_prompts(span) if (text := _indexed_content(fields)) is not None)
    for event in span.events:
        if event.name in _INPUT_EVENTS:
            texts.extend(_texts(event.attributes.get(EVENT_CONTENT)))
    return "\n".join(texts)


def _texts(value: Any) -> list[str]:
    """The strings of a value written as JSON text or as structured OTLP."""
    return strings(maybe_json(value) if isinstance(value, str) else value)


def llm_user_message(span: Span) -> str | None:
    value = _attribute_or_event(span, INPUT_MESSAGES, DETAILS_EVENT)
    if value is not None:
        users = _user_turns(list_value(span, INPUT_MESSAGES, value))
        return message_text(users[-1]) if users else None
    prompts = _user_turns(_indexed_prompts(span))
    if prompts:
        return _indexed_content(prompts[-1])
    users = [body for body in _event_bodies(span, USER_EVENT) if not _tool_responses(body)]
    if users:
        return message_text(users[-1])
    return _legacy_prompt(_attribute_or_event(span, LEGACY_PROMPT, LEGACY_PROMPT_EVENT))


def _indexed_prompts(span: Span) -> list[Mapping[str, Any]]:
    """`gen_ai.prompt.<i>.*` as messages, in index order. A completion API's prompt is written with its
    role as the key (`gen_ai.prompt.0.user` = the prompt: OpenLLMetry's openai, anthropic and bedrock
    completion instrumentors); unread, such a call recorded no input, and its question went unfound."""
    messages: list[Mapping[str, Any]] = []
    for _, fields in sorted(indexed(span.attributes, PROMPT).items()):
        keyed = next((role for role in _KEYED_ROLES if role in fields), None)
        if "content" not in fields and keyed is not None:
            fields = {"role": keyed, "content": fields[keyed]}
        messages.append(fields)
    return messages


def _user_turns(messages: Iterable[Any]) -> list[Mapping[str, Any]]:
    """The user's messages, in order, but not those made only of tool responses."""
    return [message for message in messages if isinstance(message, Mapping) and message.get("role") == "user"
            and not _tool_responses(message)]


def _tool_responses(message: Any) -> bool:
    """Whether a message is made only of tool responses: Anthropic's API returns a tool's result to the
    model as a user turn of `tool_result` blocks (Traceloop's instrumentor 0.62 writes them as
    `tool_call_response` parts, 0.47 as the blocks' JSON in the indexed `.content`).
    In a tool-use flow that turn is the last user message, and taken as the question it gave none (the
    question came out ""): it has no text, or a retrieval tool's documents, which are no question. Parts
    first, as `message_piece` reads them."""
    if not isinstance(message, Mapping):
        return False
    parts = message.get("parts")
    if not isinstance(parts, list):  # JSON text and structured OTLP alike decode a list to one
        parts = message.get("content")
        parts = maybe_json(parts) if isinstance(parts, str) else parts
    return (isinstance(parts, list) and bool(parts)
            and all(isinstance(part, Mapping) and isinstance(kind := part.get("type"), str)
                    and kind in _TOOL_RESPONSES for part in parts))


def _attribute_or_event(span: Span, attribute: str, event_name: str) -> Any:
    value = span.attributes.get(attribute)
    if value is None:
        value = next((event.attributes[attribute] for event in span.events
                      if event.name == event_name and attribute in event.attributes), None)
    return value


def _event_bodies(span: Span, event_name: str) -> Iterator[Any]:
    """The decoded `gen_ai.event.content` of each such event; one that does not decode is no message."""
    for event in span.events:
        if event.name == event_name:
            content = event.attributes.get(EVENT_CONTENT)
            yield strict_json(content) if isinstance(content, str) else content


def _legacy_prompt(value: Any) -> str | None:
    """`gen_ai.prompt`: a JSON list of messages, the last user message's text. A plain-text prompt
    (OpenLIT joins the conversation) holds more than the question, so it is none."""
    if not isinstance(value, str):
        return None
    decoded = maybe_json(value)
    users = _user_turns(decoded) if isinstance(decoded, list) else []
    return message_text(users[-1]) if users else None


def _completion_pieces(value: Any) -> Iterator[tuple[int, str]]:
    """(choice index, text) of a `gen_ai.completion` value: a JSON list of messages, one per choice, or
    plain text, one choice."""
    if not isinstance(value, str):
        return
    decoded = maybe_json(value)
    messages = [m for m in decoded if isinstance(m, Mapping)] if isinstance(decoded, list) else []
    if not messages:
        yield 0, value
    for index, message in enumerate(messages):
        if (piece := message_piece(message)) is not None:
            yield index, piece


def _choice_pieces(span: Span) -> Iterator[tuple[int, str]]:
    """(choice index, text) of each choice event with a message. The conventions require the index; one
    missing or not an integer is read as 0, the one choice nearly every call asks for."""
    for choice in _event_bodies(span, CHOICE_EVENT):
        if isinstance(choice, Mapping) and (piece := message_piece(choice.get("message"))) is not None:
            index = choice.get("index")
            yield (index if isinstance(index, int) and not isinstance(index, bool) else 0), piece


def _first_choice(pieces: Iterable[tuple[int, str]]) -> str | None:
    """The text of the first choice (in the order choices first appear) that has usable text, its pieces
    joined in their order."""
    choices: dict[int, list[str]] = {}
    for index, piece in pieces:
        choices.setdefault(index, []).append(piece)
    return next((text for texts in choices.values() if (text := text_value(joined(texts))) is not None), None)


def _indexed_content(fields: Mapping[str, Any]) -> str | None:
    """OpenLLMetry writes list content (several blocks) as a JSON string in `.content`."""
    content = fields.get("content")
    if not isinstance(content, str):
        return None
    decoded = maybe_json(content)
    if isinstance(decoded, list) and decoded and all(isinstance(part, Mapping) for part in decoded):
        return parts_text(decoded)
    return text_value(content)


chain_input = llm_user_message
"""An agent or workflow span (`invoke_agent`) carries the conversation in the same attributes."""
chain_output = llm_output
