"""OpenInference (Arize): the LangChain, LlamaIndex and other `openinference-instrumentation-*` packages.

Lists are flattened into indexed attributes (`retrieval.documents.0.document.content`); the index is the
rank. The LangChain instrumentor writes neither `document.id` nor a score; a LangChain `Document.id` is
only in the retriever's `output.value` (`{"documents": [{"id": ..., "page_content": ...}]}`, `pageContent`
from LangChain.js's), read from there when that list holds the same documents, else the id comes from the
document metadata. A document
with neither content nor metadata gets no attributes at all: its index is missing, yet it is a document
at that rank, named by that list too. Inputs and outputs are free text or JSON (`input.value`), so both
are read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragmon.ids import store_assigned
from ragmon.model import Context
from ragmon.semconv.common import (
    ANSWER_KEYS,
    QUESTION_KEYS,
    REDACTED,
    STATUS_ERROR,
    Role,
    indexed,
    joined,
    last_user_text,
    make_context,
    maybe_json,
    message_text,
    metadata_id,
    metadata_mapping,
    parts_text,
    pick_text,
    strict_json,
    strings,
    text_value,
)
from ragmon.traces import Span

KIND = "openinference.span.kind"
INPUT_VALUE = "input.value"
OUTPUT_VALUE = "output.value"
JSON_MIME_TYPE = "application/json"
JSON_ATTRIBUTES: tuple[tuple[str, str | None], ...] = (
    (INPUT_VALUE, "input.mime_type"), (OUTPUT_VALUE, "output.mime_type"),
    ("llm.prompt_template.variables", None), ("llm.invocation_parameters", None), ("metadata", None))
"""Attributes the convention writes as JSON text: (name, the attribute whose JSON_MIME_TYPE says so, or
None when it always is)."""
RETRIEVAL_DOCUMENTS = "retrieval.documents."
RERANKER_OUTPUT_DOCUMENTS = "reranker.output_documents."
RERANKER_INPUT_DOCUMENTS = "reranker.input_documents."
RERANKER_QUERY = "reranker.query"
INPUT_MESSAGES = "llm.input_messages."
OUTPUT_MESSAGES = "llm.output_messages."
CHOICES = "llm.choices."
_CONTENTS = "message.contents."
_TOOL_CALLS = ".message.tool_calls."
_OUTPUTS = (OUTPUT_MESSAGES, CHOICES)
_MODEL_RECORDS = ("llm.", OUTPUT_VALUE)
CONTENT_SWITCH = (
    "OpenInference drops or redacts outputs with OPENINFERENCE_HIDE_OUTPUTS, "
    "OPENINFERENCE_HIDE_OUTPUT_MESSAGES, OPENINFERENCE_HIDE_OUTPUT_TEXT or OPENINFERENCE_HIDE_CHOICES "
    "(environment variables, or the TraceConfig fields of the same names): leave them unset or false")
INPUT_SWITCH = (
    "OpenInference drops or redacts inputs with OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_INPUT_MESSAGES "
    "or OPENINFERENCE_HIDE_INPUT_TEXT (environment variables, or the TraceConfig fields of the same names): "
    "leave them unset or false")
_INPUTS = (INPUT_VALUE, RERANKER_QUERY, INPUT_MESSAGES)

_ROLES = {"CHAIN": Role.CHAIN, "AGENT": Role.CHAIN, "RETRIEVER": Role.RETRIEVER,
          "RERANKER": Role.RERANKER, "LLM": Role.LLM, "TOOL": Role.TOOL}
_DOCUMENT_ID = "document.id"
_REPR = re.compile(r"[A-Z]\w*\([a-z_]\w*=")
"""The start of a Python object's repr (`StopEvent(result=...`): what the LlamaIndex instrumentor records
for an output it cannot serialise, such as an agent workflow's result."""


def role(span: Span) -> Role | None:
    """An LLM span that records neither a model's attribute (`llm.*`) nor an output, and did not fail, is
    no model call: LlamaIndex's `StreamingAgentChatResponse.write_response_to_history`, typed LLM because
    a stream's end events fire in it, only writes the streamed answer to the chat memory (often in a trace
    of its own, its thread racing the request's span). A call that raised may have recorded nothing but
    its input: it is still the model call, whose failure explains the missing answer."""
    attributes = span.attributes
    kind = attributes.get(KIND)
    found = _ROLES.get(kind.upper()) if isinstance(kind, str) else None
    if (found is Role.LLM and span.status_code != STATUS_ERROR
            and not any(key.startswith(_MODEL_RECORDS) for key in attributes)):
        return None
    return found


def documents(span: Span) -> tuple[Context, ...] | None:
    """A retriever's documents, or what a reranker passed on (empty when it passed nothing on): one tier,
    as a reranker stands only for the retrievers whose documents it took (`reranker_inputs`)."""
    kind = role(span)
    if kind is Role.RERANKER:
        return _documents(span, RERANKER_OUTPUT_DOCUMENTS)
    return _documents(span, RETRIEVAL_DOCUMENTS) if kind is Role.RETRIEVER else None


def reranker_inputs(span: Span) -> frozenset[tuple[str, str]] | None:
    """The (id, text) of each document a reranker was given, named as `documents` names them, so that a
    retriever's are found among them; None when none are recorded (OPENINFERENCE_HIDE_INPUTS drops
    them), as which retrievers it took from is then unknown."""
    given = _documents(span, RERANKER_INPUT_DOCUMENTS) if role(span) is Role.RERANKER else ()
    return frozenset((context.id, context.text) for context in given) or None


def _documents(span: Span, prefix: str) -> tuple[Context, ...]:
    """The instrumentors omit empty content (`if page_content := ...`), so a missing content is "". An
    empty document took a top-k slot all the same: LangChain's writes nothing at all for one without
    metadata either, so its index is missing, and where `output.value` lists it, it is read at its rank;
    left out, it had moved every later document up a rank and cost them all their ids. Without that
    list, the indices recorded order the documents."""
    items = indexed(span.attributes, prefix)
    listed = _listed_ids(span, items) if _unnamed(items) else None
    contexts = []
    for index in range(len(listed)) if listed is not None else sorted(items):
        fields = items.get(index, {})
        where = f"{prefix}{index}.document"
        doc_id = fields.get(_DOCUMENT_ID, listed[index] if listed is not None else None)
        # An id its store assigned (a UUID: a LangChain vector store's, LlamaIndex's node ids, new at each
        # index build) yields to the metadata's name for the document.
        if store_assigned(doc_id):
            doc_id = metadata_id(metadata_mapping(span, where, fields.get("document.metadata"))) or doc_id
        contexts.append(make_context(span, where, doc_id, fields.get("document.content", ""),
                                     fields.get("document.score"), fields.get("document.metadata")))
    return tuple(contexts)


def _unnamed(items: Mapping[int, Mapping[str, Any]]) -> bool:
    """Whether some rank may lack its `document.id`, recorded without one or not recorded at all (none
    recorded: maybe only empty documents), so that `output.value` is worth decoding for the ids
    (LlamaIndex writes every node's, and a long list of them is decoded for nothing)."""
    return (not items or len(items) != max(items) + 1
            or any(_DOCUMENT_ID not in fields for fields in items.values()))


def _listed_ids(span: Span, items: Mapping[int, Mapping[str, Any]]) -> list[Any] | None:
    """The `Document.id` of each document as the span's `output.value` lists them (LangChain writes them
    nowhere else), by rank, None when that list is not the span's documents. It is when each rank holds
    the document recorded there (the same text), or, where none is recorded, one the instrumentor writes
    nothing for (no content, no metadata); ranks past the last recorded are such documents too. Output
    that does not decode (cut short, free text) or lists other documents gives no ids, and the metadata
    names the documents as before."""
    output = strict_json(span.attributes.get(OUTPUT_VALUE))
    listed = output.get("documents") if isinstance(output, Mapping) else None
    if (not isinstance(listed, list) or max(items, default=-1) >= len(listed)
            or not all(_recorded_as(document, items.get(index)) for index, document in enumerate(listed))):
        return None
    return [document.get("id") for document in listed]


def _recorded_as(document: Any, fields: Mapping[str, Any] | None) -> bool:
    """Whether a listed document is what its rank's attributes (`fields`, None when there are none) record."""
    if not isinstance(document, Mapping):
        return False
    if fields is None:
        return _listed_text(document) == "" and not document.get("metadata")
    return _listed_text(document) == fields.get("document.content", "")


def _listed_text(document: Mapping[str, Any]) -> Any:
    """A listed document's text: Python LangChain serialises it as `page_content`, LangChain.js (whose
    OpenInference instrumentor writes the same attributes) as `pageContent`. Read under the one name,
    a LangChain.js retriever's every `Document.id` had been lost, its documents named by their metadata
    or content hash."""
    return document.get("page_content", document.get("pageContent"))


def retriever_query(span: Span) -> str | None:
    kind = role(span)
    if kind is Role.RETRIEVER:
        return _picked(span, INPUT_VALUE, QUESTION_KEYS)
    if kind is Role.RERANKER:
        return text_value(span.attributes.get(RERANKER_QUERY))
    return None


def chain_input(span: Span) -> str | None:
    """The question under one of QUESTION_KEYS, else the last user turn of a chat input given as
    messages (a chat chain's `{"messages": [...]}`, a LangGraph state): whatever later steps search for,
    that turn is what the user asked."""
    value = span.attributes.get(INPUT_VALUE)
    if not isinstance(value, str):
        return None
    decoded = maybe_json(value)
    return pick_text(decoded, QUESTION_KEYS) or last_user_text(decoded)


def chain_output(span: Span) -> str | None:
    """The chain's output, unless it is an object's repr: no answer, so the model's output stands in."""
    value = span.attributes.get(OUTPUT_VALUE)
    if isinstance(value, str) and _REPR.match(value):
        return None
    return _picked(span, OUTPUT_VALUE, ANSWER_KEYS)


def llm_output(span: Span) -> str | None:
    """The first output message with text; else a completions-API choice; else `output.value`, the only
    place LlamaIndex's completion LLMs (e.g. `MockLLM.complete`) record their answer, and where the answer
    stays when OPENINFERENCE_HIDE_OUTPUT_MESSAGES or _HIDE_OUTPUT_TEXT hides the messages' text: LangChain's
    chat models keep an LLMResult there, the openai and anthropic instrumentors the provider's response."""
    attributes = span.attributes
    for _, text in _messages(attributes, OUTPUT_MESSAGES):
        if text is not None:
            return text
    for _, fields in sorted(indexed(attributes, CHOICES).items()):
        if (text := text_value(fields.get("completion.text"))) is not None:
            return text
    return _output_value(span)[1]


def _output_value(span: Span) -> tuple[bool, str | None]:
    """(whether `output.value` records the model's output, its text): a reply `_reply` reads, with text
    or without, or text under ANSWER_KEYS or as itself."""
    value = span.attributes.get(OUTPUT_VALUE)
    if not isinstance(value, str):
        return False, None
    decoded = maybe_json(value)
    replied, text = _reply(decoded)
    if not replied:
        text = pick_text(decoded, ANSWER_KEYS)
    return replied or text is not None, text


def _reply(value: Any) -> tuple[bool, str | None]:
    """(whether `value` is a model's reply in a shape read, its text: none when it only called a tool).
    The shapes: LangChain's LLMResult, and the provider's response that the openai and anthropic
    instrumentors record: a chat completion (the first choice with text; streamed, the chunks put
    together in the same shape) or a completion, a Responses API response (the `output_text` parts of
    its `message` items), an Anthropic message (its `text` blocks)."""
    if not isinstance(value, Mapping):
        return False, None
    choices = value.get("choices")
    if isinstance(choices, list):
        return True, next((text for choice in choices if isinstance(choice, Mapping)
                           and (text := message_text(choice.get("message")) or text_value(choice.get("text")))
                           is not None), None)
    if isinstance(value.get("generations"), list):
        return True, _generation_text(value)
    output = value.get("output")
    if value.get("object") == "response" and isinstance(output, list):
        return True, _output_text(output)
    if value.get("type") == "message" and isinstance(value.get("content"), list):
        return True, message_text(value)
    return False, None


def _output_text(output: list[Any]) -> str | None:
    """A Responses API response's text, as its SDK's `output_text` gives it: every `output_text` part of
    its `message` items, joined (reasoning and tool-call items carry none)."""
    parts = [part for item in output if isinstance(item, Mapping) and item.get("type") == "message"
             and isinstance(item.get("content"), list) for part in item["content"]]
    return text_value(joined(text for part in parts if isinstance(part, Mapping)
                             and part.get("type") == "output_text"
                             and isinstance(text := part.get("text"), str)))


def _generation_text(result: Mapping[str, Any]) -> str | None:
    """The first generation's text of a LangChain LLMResult: `{"generations": [[{"text": ...}]]}`."""
    generations = result.get("generations")
    first = generations[0] if isinstance(generations, list) and generations else None
    generation = first[0] if isinstance(first, list) and first else None
    return text_value(generation.get("text")) if isinstance(generation, Mapping) else None


def requested_tools(span: Span) -> bool:
    """Whether the model's output asked for a tool (`llm.output_messages.<i>.message.tool_calls.*`): an
    agent's step, whose text, if any, only announces the call ("Let me check your order.")."""
    return any(key.startswith(OUTPUT_MESSAGES) and _TOOL_CALLS in key for key in span.attributes)


def follows(span: Span) -> bool:
    return KIND in span.attributes


def inputs_hidden(span: Span) -> bool:
    """Whether an input of the span holds OpenInference's placeholder for a hidden one."""
    return any(value == REDACTED for key, value in span.attributes.items() if key.startswith(_INPUTS))


def output_recorded(span: Span) -> bool:
    """Whether the span records the model's output, text or not (a reply that only called a tool has
    none); a redacted value is no record. Nor is an `output.value` that holds neither text nor a reply
    `llm_output` reads: with the output messages hidden, such a value had counted as an answer without
    text, and the trace as scored with no answer and no word of why."""
    if any(key.startswith(_OUTPUTS) and value != REDACTED for key, value in span.attributes.items()):
        return True
    return _output_value(span)[0]


def llm_input_text(span: Span) -> str:
    """All the text the model was given, every role's messages and the raw input (a completion prompt,
    or LangChain's JSON of the messages, decoded so that its escapes read as the text they stand for)."""
    texts = [text for _, text in _messages(span.attributes, INPUT_MESSAGES) if text]
    value = span.attributes.get(INPUT_VALUE)
    if isinstance(value, str):
        texts.extend(strings(maybe_json(value)))
    return "\n".join(texts)


def llm_user_message(span: Span) -> str | None:
    users = [text for who, text in _messages(span.attributes, INPUT_MESSAGES) if who == "user" and text]
    return users[-1] if users else None


def _picked(span: Span, attribute: str, keys: tuple[str, ...]) -> str | None:
    value = span.attributes.get(attribute)
    return pick_text(maybe_json(value), keys) if isinstance(value, str) else None


def _messages(attributes: Mapping[str, Any], prefix: str) -> list[tuple[Any, str | None]]:
    """(role, text) per message in index order; multi-part messages keep their text parts, but not one
    redacted (OPENINFERENCE_HIDE_OUTPUT_TEXT, _HIDE_INPUT_TEXT): joined, the placeholders of an answer
    in two text blocks had made "__REDACTED____REDACTED__", scored as the answer."""
    messages = []
    for _, fields in sorted(indexed(attributes, prefix).items()):
        text = text_value(fields.get("message.content"))
        if text is None:
            parts = indexed(fields, _CONTENTS)
            text = parts_text(
                {"type": part.get("message_content.type", "text"), "text": part.get("message_content.text")}
                for _, part in sorted(parts.items()) if part.get("message_content.text") != REDACTED
            )
        messages.append((fields.get("message.role"), text))
    return messages
