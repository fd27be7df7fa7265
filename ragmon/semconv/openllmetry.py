"""Traceloop / OpenLLMetry: workflow and task spans, retriever spans, vector-DB result events.

Its LLM spans use GenAI attribute names and are read by genai.py. What is specific to OpenLLMetry is
read here: `traceloop.span.kind`, the JSON-encoded `traceloop.entity.input` / `traceloop.entity.output`,
LangChain retriever spans (`gen_ai.operation.name = vector_db_retrieve`, documents in the entity output),
and vector-DB spans that record each hit as a `db.query.result` event (chromadb, pinecone, marqo, a
milvus query) or a `db.search.result` event (a milvus search).
Entity JSON may be cut short (by the `@workflow` decorator when long, by the app's SDK attribute length
limit), so an undecodable input or output is no question or answer; undecodable documents are an error,
since the retrieval would otherwise be lost silently. So is a retriever span that ended well without
documents (the LangChain instrumentor records none with content tracing off or in its log-event mode)
unless a span beneath it recorded them: vector-DB instrumentors write their result events whatever the
content setting, so LangChain over Chroma still reports its hits on the `chroma.query` child.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.model import Context
from ragmon.semconv.common import (
    ANSWER_KEYS,
    METADATA_TEXT_KEYS,
    QUESTION_KEYS,
    STATUS_ERROR,
    ExtractionError,
    Role,
    make_context,
    pick_text,
    strict_json,
    structured,
    text_value,
)
from ragmon.traces import Span

SPAN_KIND = "traceloop.span.kind"
ENTITY_INPUT = "traceloop.entity.input"
ENTITY_OUTPUT = "traceloop.entity.output"
OPERATION = "gen_ai.operation.name"
RETRIEVE_OPERATION = "vector_db_retrieve"
REQUEST_TYPE = "llm.request.type"
RESULT_EVENT = "db.query.result"
_RESULT = RESULT_EVENT + "."
SEARCH_EVENT = "db.search.result"
"""Milvus's hits of a search: `db.search.result.id`, `.distance` and `.entity`, the record's fields as a
Python dict's repr; its `query` records each record whole as a `db.query.result` event, as Marqo does."""
_SEARCH = SEARCH_EVENT + "."
_RESULTS = frozenset((RESULT_EVENT, SEARCH_EVENT))
VECTOR_QUERY = "db.vector.query.top_k"
"""What Traceloop's vector database instrumentors set on a search (qdrant's, pinecone's, lancedb's...);
some also record the hits as `db.query.result` events, qdrant's records none."""

_CHAIN_KINDS = frozenset({"workflow", "agent"})
_PREFIX = "traceloop."
CONTENT_SWITCH = ("OpenLLMetry records content only with TRACELOOP_TRACE_CONTENT=true (the default) and "
                  "on span attributes (the instrumentor's use_attributes=True, the default; False sends "
                  "content to log events)")


class UnrecordedDocuments(ExtractionError):
    """A retriever span that ended well without its documents. Only the combiner, which sees the other
    spans, can tell whether a span beneath it recorded them, so it decides whether this is an error."""


def role(span: Span) -> Role | None:
    attributes = span.attributes
    kind = attributes.get(SPAN_KIND)
    if isinstance(kind, str) and kind in _CHAIN_KINDS:  # OTLP allows an array here: no kind, no crash
        return Role.CHAIN
    if kind == "tool":
        return Role.TOOL
    if (attributes.get(OPERATION) == RETRIEVE_OPERATION or VECTOR_QUERY in attributes
            or any(e.name in _RESULTS for e in span.events)):
        return Role.RETRIEVER
    if REQUEST_TYPE in attributes:
        return Role.LLM
    return None


def workflow(span: Span) -> bool:
    """A workflow span: one top-level run (a chain's `invoke`, a `@workflow` function)."""
    return span.attributes.get(SPAN_KIND) == "workflow"


def follows(span: Span) -> bool:
    """OpenLLMetry marks its spans with `traceloop.*` attributes (workflow name, entity path, association
    properties) and its older LLM spans with `llm.request.type`."""
    attributes = span.attributes
    return REQUEST_TYPE in attributes or any(key.startswith(_PREFIX) for key in attributes)


def output_recorded(span: Span) -> bool:
    """An LLM call wrapped in a task span records its output there (see `llm_output`)."""
    return ENTITY_OUTPUT in span.attributes


def documents(span: Span) -> tuple[Context, ...] | None:
    hits = [event for event in span.events if event.name == RESULT_EVENT]
    if hits:
        return tuple(_hit(span, index, event.attributes) for index, event in enumerate(hits))
    found = [event for event in span.events if event.name == SEARCH_EVENT]
    if found:
        return tuple(make_context(span, f"{SEARCH_EVENT}[{index}]", event.attributes.get(_SEARCH + "id"),
                                  None, None, event.attributes.get(_SEARCH + "entity"))
                     for index, event in enumerate(found))
    if span.attributes.get(OPERATION) == RETRIEVE_OPERATION:
        return _retriever_output(span)
    if VECTOR_QUERY in span.attributes and span.status_code != STATUS_ERROR:
        raise UnrecordedDocuments(
            span, RESULT_EVENT,
            f"a vector search ({VECTOR_QUERY} set) without {RESULT_EVENT} events: its instrumentation "
            "records no documents (Traceloop's qdrant instrumentor records none), so the answer cannot be "
            "checked against them; record them as ragmon.contexts (ragmon.instrument)")
    return None


def _hit(span: Span, index: int, attributes: Mapping[str, Any]) -> Context:
    """Chroma records the text in `.document`; Pinecone has none and keeps it in `.metadata`, which it
    writes as a Python repr rather than JSON. Marqo's and Milvus's `query` record the hit whole, its own
    fields as the event's (`_record`). Errors name the hit as `db.query.result[n]`, the n-th such event of
    the span."""
    where = f"{RESULT_EVENT}[{index}]"
    if not any(key.startswith(_RESULT) for key in attributes):
        return _record(span, where, attributes)
    return make_context(span, where, attributes.get(_RESULT + "id"), attributes.get(_RESULT + "document"),
                        attributes.get(_RESULT + "score"), attributes.get(_RESULT + "metadata"))


def _record(span: Span, where: str, record: Mapping[str, Any]) -> Context:
    """A hit recorded as its database record: Marqo's (`_id`, `_score`, the index's own fields) and a
    Milvus query's (its output fields). Read as Chroma's, every one had "no text" and failed the trace.
    Its text is its text field where it has one (`text`, `content`), else its string fields but the id
    and Marqo's own (`_highlights`), one a line: what the app's prompt shows of a hit ("Title",
    "Description"). Without Marqo's `_id`, the record's own id names it, as metadata's does."""
    return make_context(span, where, record.get("_id"), _fields_text(record), record.get("_score"), record)


def _fields_text(record: Mapping[str, Any]) -> str | None:
    if any(isinstance(record.get(key), str) for key in METADATA_TEXT_KEYS):
        return None  # make_context reads it from the record, as from any metadata
    fields = [value for key, value in record.items()
              if isinstance(value, str) and value.strip() and not key.startswith("_") and key != "id"]
    return "\n".join(fields) if fields else None


def _retriever_output(span: Span) -> tuple[Context, ...] | None:
    """LangChain retriever spans: `{"documents": [{"page_content", "metadata"}...], "count": n}`, written
    even when nothing was found. A retrieval that raised has no output and no documents to know of."""
    value = span.attributes.get(ENTITY_OUTPUT)
    if value is None:
        if span.status_code == STATUS_ERROR:
            return None
        raise UnrecordedDocuments(
            span, ENTITY_OUTPUT,
            f"attribute {ENTITY_OUTPUT!r} is missing and no span beneath it recorded documents, so "
            f"the retrieved documents are unknown: {CONTENT_SWITCH}")
    output = structured(span, ENTITY_OUTPUT, value)
    items = output.get("documents") if isinstance(output, Mapping) else None
    if not isinstance(items, list):
        raise ExtractionError(span, ENTITY_OUTPUT, f"attribute {ENTITY_OUTPUT!r} has no documents list")
    contexts = []
    for index, item in enumerate(items):
        where = f"{ENTITY_OUTPUT} documents[{index}]"
        if not isinstance(item, Mapping):
            raise ExtractionError(span, ENTITY_OUTPUT, f"{where} is not an object")
        contexts.append(make_context(span, where, item.get("id"), item.get("page_content"),
                                     item.get("score"), item.get("metadata")))
    return tuple(contexts)


def retriever_query(span: Span) -> str | None:
    if span.attributes.get(OPERATION) != RETRIEVE_OPERATION:
        return None
    return pick_text(strict_json(span.attributes.get(ENTITY_INPUT)), QUESTION_KEYS)


def chain_input(span: Span) -> str | None:
    """LangChain chains record `{"inputs": ...}`; the `@workflow` decorator `{"args": [...], "kwargs":
    {...}}`, where the question is the first text argument that reads as a sentence (`answer("acme-eu",
    question)` passes a tenant first), else a keyword argument named like one, else the first text
    argument. The first rather than the longest: a context string passed after the question is longer.
    extract.py prefers the argument the model was asked, when one is (`workflow_arguments`).

    The decorator's JSON encoder writes an object it cannot encode as its class name, so a decorated
    method's `self` arrives as a text argument ("RagApp") ahead of the question: a text argument that
    reads as a class name is taken only when nothing else is there."""
    data = strict_json(span.attributes.get(ENTITY_INPUT))
    if not isinstance(data, Mapping):
        return pick_text(data, QUESTION_KEYS)
    if "inputs" in data:
        return pick_text(data["inputs"], QUESTION_KEYS)
    texts = _text_arguments(data.get("args"))
    named = [text for text in texts if not _class_name(text)]
    return (next(filter(_sentence, named), None)
            or pick_text(data.get("kwargs"), QUESTION_KEYS)
            or next(iter(named), None)
            or next(iter(texts), None))


def workflow_arguments(span: Span) -> list[str]:
    """The text arguments, positional and keyword, of a `@workflow` call: one of them is the question."""
    data = strict_json(span.attributes.get(ENTITY_INPUT)) if role(span) is Role.CHAIN else None
    if not isinstance(data, Mapping) or "inputs" in data:
        return []
    kwargs = data.get("kwargs")
    return _text_arguments(data.get("args")) + _text_arguments(
        list(kwargs.values()) if isinstance(kwargs, Mapping) else None)


def _text_arguments(args: Any) -> list[str]:
    return [text for text in map(text_value, args) if text] if isinstance(args, list) else []


def _sentence(text: str) -> bool:
    """Words, or a question: not an id, a tenant or a flag."""
    return len(text.split()) > 1 or text.rstrip().endswith("?")


def _class_name(text: str) -> bool:
    return text.isidentifier() and text[0].isupper()


def chain_output(span: Span) -> str | None:
    """LangChain chains record `{"outputs": ..., "kwargs": ...}`; decorators the bare return value."""
    data = strict_json(span.attributes.get(ENTITY_OUTPUT))
    if isinstance(data, Mapping) and "outputs" in data:
        data = data["outputs"]
    return pick_text(data, ANSWER_KEYS)


llm_output = chain_output
"""An LLM call wrapped in a task span records its result in the same entity output."""
