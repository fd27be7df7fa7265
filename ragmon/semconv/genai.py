"""OpenTelemetry GenAI semantic conventions (also what OpenLLMetry writes on its LLM spans).

Two generations are read: the current `gen_ai.input.messages` / `gen_ai.output.messages` (v1.37+, parts
format) and the older indexed `gen_ai.prompt.<i>.*` / `gen_ai.completion.<i>.*`. Structured values may
arrive as JSON strings (what the Python SDK helpers and OpenLLMetry write) or as OTLP arrays and maps;
both read alike. Retrieval spans (v1.40+) are `gen_ai.operation.name = retrieval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.model import Context
from ragmon.semconv.common import (
    ExtractionError,
    Role,
    indexed,
    list_value,
    make_context,
    maybe_json,
    message_text,
    parts_text,
    text_value,
)
from ragmon.traces import Span

OPERATION = "gen_ai.operation.name"
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"
RETRIEVAL_QUERY = "gen_ai.retrieval.query.text"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
PROMPT = "gen_ai.prompt."
COMPLETION = "gen_ai.completion."

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_CHAIN_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow"})
_LLM_MARKERS = (INPUT_MESSAGES, OUTPUT_MESSAGES, f"{PROMPT}0.content", f"{COMPLETION}0.content")


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
    if operation is None and any(marker in attributes for marker in _LLM_MARKERS):
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


def retriever_query(span: Span) -> str | None:
    return text_value(span.attributes.get(RETRIEVAL_QUERY))


def llm_output(span: Span) -> str | None:
    """The first output message (one per choice) with text; else the lowest-indexed completion."""
    value = span.attributes.get(OUTPUT_MESSAGES)
    if value is not None:
        for message in list_value(span, OUTPUT_MESSAGES, value):
            if (text := message_text(message)) is not None:
                return text
    for _, fields in sorted(indexed(span.attributes, COMPLETION).items()):
        if (text := _indexed_content(fields)) is not None:
            return text
    return None


def llm_user_message(span: Span) -> str | None:
    value = span.attributes.get(INPUT_MESSAGES)
    if value is not None:
        users = [m for m in list_value(span, INPUT_MESSAGES, value)
                 if isinstance(m, Mapping) and m.get("role") == "user"]
        return message_text(users[-1]) if users else None
    prompts = [fields for _, fields in sorted(indexed(span.attributes, PROMPT).items())
               if fields.get("role") == "user"]
    return _indexed_content(prompts[-1]) if prompts else None


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
