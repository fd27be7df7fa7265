"""OpenInference (Arize): the LangChain, LlamaIndex and other `openinference-instrumentation-*` packages.

Lists are flattened into indexed attributes (`retrieval.documents.0.document.content`); the index is the
rank. The LangChain instrumentor writes neither document id nor score, so ids come from the document
metadata. Inputs and outputs are free text or JSON (`input.value`), so both are read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragmon.model import Context
from ragmon.semconv.common import (
    ANSWER_KEYS,
    QUESTION_KEYS,
    REDACTED,
    STATUS_ERROR,
    Role,
    indexed,
    make_context,
    maybe_json,
    parts_text,
    pick_text,
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
RERANKER_QUERY = "reranker.query"
INPUT_MESSAGES = "llm.input_messages."
OUTPUT_MESSAGES = "llm.output_messages."
CHOICES = "llm.choices."
_CONTENTS = "message.contents."
_OUTPUTS = (OUTPUT_MESSAGES, CHOICES)
_MODEL_RECORDS = ("llm.", OUTPUT_VALUE)
CONTENT_SWITCH = (
    "OpenInference drops or redacts outputs with OPENINFERENCE_HIDE_OUTPUTS, "
    "OPENINFERENCE_HIDE_OUTPUT_MESSAGES, OPENINFERENCE_HIDE_OUTPUT_TEXT or OPENINFERENCE_HIDE_CHOICES "
    "(environment variables, or the TraceConfig fields of the same names): leave them unset or false")

_ROLES = {"CHAIN": Role.CHAIN, "AGENT": Role.CHAIN, "RETRIEVER": Role.RETRIEVER,
          "RERANKER": Role.RERANKER, "LLM": Role.LLM, "TOOL": Role.TOOL}
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


def reranker_documents(span: Span) -> tuple[Context, ...] | None:
    """What the reranker passed on, i.e. what the model saw; empty when it passed nothing on."""
    return _documents(span, RERANKER_OUTPUT_DOCUMENTS) if role(span) is Role.RERANKER else None


def retriever_documents(span: Span) -> tuple[Context, ...] | None:
    return _documents(span, RETRIEVAL_DOCUMENTS) if role(span) is Role.RETRIEVER else None


def _documents(span: Span, prefix: str) -> tuple[Context, ...]:
    """The instrumentors omit empty content (`if page_content := ...`), so a missing content is ""."""
    items = indexed(span.attributes, prefix)
    return tuple(
        make_context(span, f"{prefix}{index}.document", fields.get("document.id"),
                     fields.get("document.content", ""), fields.get("document.score"),
                     fields.get("document.metadata"))
        for index, fields in sorted(items.items())
    )


def retriever_query(span: Span) -> str | None:
    kind = role(span)
    if kind is Role.RETRIEVER:
        return _picked(span, INPUT_VALUE, QUESTION_KEYS)
    if kind is Role.RERANKER:
        return text_value(span.attributes.get(RERANKER_QUERY))
    return None


def chain_input(span: Span) -> str | None:
    return _picked(span, INPUT_VALUE, QUESTION_KEYS)


def chain_output(span: Span) -> str | None:
    """The chain's output, unless it is an object's repr: no answer, so the model's output stands in."""
    value = span.attributes.get(OUTPUT_VALUE)
    if isinstance(value, str) and _REPR.match(value):
        return None
    return _picked(span, OUTPUT_VALUE, ANSWER_KEYS)


def llm_output(span: Span) -> str | None:
    """The first output message with text; else a completions-API choice; else `output.value`, the only
    place LlamaIndex's completion LLMs (e.g. `MockLLM.complete`) record their answer, and where LangChain's
    chat models keep theirs (an LLMResult) when OPENINFERENCE_HIDE_OUTPUT_MESSAGES drops the messages."""
    attributes = span.attributes
    for _, text in _messages(attributes, OUTPUT_MESSAGES):
        if text is not None:
            return text
    for _, fields in sorted(indexed(attributes, CHOICES).items()):
        if (text := text_value(fields.get("completion.text"))) is not None:
            return text
    value = attributes.get(OUTPUT_VALUE)
    if not isinstance(value, str):
        return None
    decoded = maybe_json(value)
    return pick_text(decoded, ANSWER_KEYS) or _generation_text(decoded)


def _generation_text(result: Any) -> str | None:
    """The first generation's text of a LangChain LLMResult: `{"generations": [[{"text": ...}]]}`."""
    generations = result.get("generations") if isinstance(result, Mapping) else None
    first = generations[0] if isinstance(generations, list) and generations else None
    generation = first[0] if isinstance(first, list) and first else None
    return text_value(generation.get("text")) if isinstance(generation, Mapping) else None


def follows(span: Span) -> bool:
    return KIND in span.attributes


def output_recorded(span: Span) -> bool:
    """Whether the span records the model's output, text or not; a redacted value is no record."""
    for key, value in span.attributes.items():
        if (key == OUTPUT_VALUE or key.startswith(_OUTPUTS)) and value != REDACTED:
            return True
    return False


def llm_user_message(span: Span) -> str | None:
    users = [text for who, text in _messages(span.attributes, INPUT_MESSAGES) if who == "user" and text]
    return users[-1] if users else None


def _picked(span: Span, attribute: str, keys: tuple[str, ...]) -> str | None:
    value = span.attributes.get(attribute)
    return pick_text(maybe_json(value), keys) if isinstance(value, str) else None


def _messages(attributes: Mapping[str, Any], prefix: str) -> list[tuple[Any, str | None]]:
    """(role, text) per message in index order; multi-part messages keep their text parts."""
    messages = []
    for _, fields in sorted(indexed(attributes, prefix).items()):
        text = text_value(fields.get("message.content"))
        if text is None:
            parts = indexed(fields, _CONTENTS)
            text = parts_text(
                {"type": part.get("message_content.type", "text"), "text": part.get("message_content.text")}
                for _, part in sorted(parts.items())
            )
        messages.append((fields.get("message.role"), text))
    return messages
