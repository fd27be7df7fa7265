"""ragmon's own convention, for apps without an instrumentation library (see ragmon.instrument).

    ragmon.question      string
    ragmon.answer        string
    ragmon.contexts      JSON list, in rank order, of {"id", "text", "score"} objects or plain strings
                         (an item without an id gets metadata id|source|doc_id, else the content hash)
    ragmon.citations     string or integer list, or a JSON list of ids: ids the answer cites
    ragmon.relevant_ids  string or integer list, or a JSON list of ids: ids known to be relevant
    ragmon.ground_truth  string
    ragmon.pipeline      string: the pipeline label (else the resource's service.name)

This convention is ours, so it is read strictly: a malformed value is an ExtractionError, never a guess.
An id in a list is a string or a whole number (read as its decimal text), as a golden record's is. An id
that is empty or spaces names no document: it is left out (`blank_ids` counts it, for extraction to say
so), and a list left with none is no list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragmon.ids import content_id
from ragmon.model import Context
from ragmon.names import CONTEXT_SYNONYMS, misnamed, near_miss
from ragmon.semconv.common import ExtractionError, list_value, make_context, text_value
from ragmon.traces import Span

QUESTION = "ragmon.question"
ANSWER = "ragmon.answer"
CONTEXTS = "ragmon.contexts"
CITATIONS = "ragmon.citations"
RELEVANT_IDS = "ragmon.relevant_ids"
GROUND_TRUTH = "ragmon.ground_truth"
PIPELINE = "ragmon.pipeline"
ATTRIBUTES = frozenset({QUESTION, ANSWER, CONTEXTS, CITATIONS, RELEVANT_IDS, GROUND_TRUTH, PIPELINE})
PREFIX = "ragmon."
_FIELDS = tuple(sorted(attribute.removeprefix(PREFIX) for attribute in ATTRIBUTES))
_CONTEXT_KEYS = frozenset({"id", "text", "score", "metadata"})


def documents(span: Span) -> tuple[Context, ...] | None:
    value = span.attributes.get(CONTEXTS)
    if value is None:
        return None
    return tuple(_context(span, index, item) for index, item in enumerate(list_value(span, CONTEXTS, value)))


def _context(span: Span, index: int, item: Any) -> Context:
    where = f"{CONTEXTS}[{index}]"
    if isinstance(item, str):
        return Context(content_id(item), item)
    if not isinstance(item, Mapping):
        raise ExtractionError(span, CONTEXTS, f"{where} is neither an object nor a string")
    text = item.get("text")
    if not isinstance(text, str):
        why = misnamed_key(item, "text") if text is None else None
        raise ExtractionError(span, CONTEXTS, f"{where}: {why}" if why else f"{where} has no string 'text'")
    doc_id = item.get("id")
    if doc_id is not None and (isinstance(doc_id, bool) or not isinstance(doc_id, str | int)):
        raise ExtractionError(span, CONTEXTS, f"{where}.id is neither a string nor an integer")
    score = item.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise ExtractionError(span, CONTEXTS, f"{where}.score is not a number")
    context = make_context(span, where, doc_id, text, score, item.get("metadata"))
    # Keys of its own first: rehashing every unnamed document's text, per span, is for the rare context
    # that has any.
    if (doc_id is None and not _CONTEXT_KEYS.issuperset(item) and context.id == content_id(context.text)
            and (why := misnamed_key(item, "id")) is not None):
        raise ExtractionError(span, CONTEXTS, f"{where}: {why}")
    return context


def misnamed_key(item: Mapping[Any, Any], field: str) -> str | None:
    """Why a key of a context object that lacks `field` ("id" or "text") is refused as a name meant for
    it (`doc_id`, `ID`, `content`), or None when every key outside the convention's is the app's own.
    Asked only once the field came out missing: a `doc_id` left unread makes the id a content hash, which
    no cited or relevant id matches. Shared with `ragmon.instrument`, which refuses the same keys in the
    app, so both word it alike."""
    for key in item:
        if (isinstance(key, str) and key not in _CONTEXT_KEYS
                and (why := misnamed(key, (field,), (), CONTEXT_SYNONYMS)) is not None):
            return why
    return None


def unknown_attributes(spans: Iterable[Span]) -> list[tuple[Span, str]]:
    """The spans' `ragmon.*` attributes that are none of the convention's: a name typed by hand
    (`ragmon.anwser`), read as no attribute at all, whose trace had been counted `scored` or `not_rag`
    without a word. The namespace is ragmon's, so any other name in it is a mistake. It runs on every
    trace: a span's keys are searched at once, joined (on 1,000 plain spans of 10 attributes, 0.3 ms where
    testing each key took 0.8 ms: a tenth of extracting them), and only a span holding the prefix is
    looked at key by key."""
    return [(span, key) for span in spans if PREFIX in "\n".join(span.attributes)
            for key in span.attributes if key.startswith(PREFIX) and key not in ATTRIBUTES]


def meant(attribute: str) -> str | None:
    """The convention's attribute an unknown `ragmon.*` one is a misspelling of (`names.near_miss`, as a
    golden file's fields are told), or None. Asked only of an unknown name about to be logged."""
    field = near_miss(attribute.removeprefix(PREFIX), _FIELDS)
    return None if field is None else PREFIX + field


def question(span: Span) -> str | None:
    return _text(span, QUESTION)


def answer(span: Span) -> str | None:
    """An empty answer recorded as such (`rag.answered("")`) is an answer: a golden record's `"answer": ""`
    is, and the same answer gets the same figures live and offline (answer_relevance 0, abstention 1),
    where read as no answer it left every answer metric undefined."""
    value = span.attributes.get(ANSWER)
    if isinstance(value, str) and not value.strip():
        return value
    return _text(span, ANSWER)


def ground_truth(span: Span) -> str | None:
    return _text(span, GROUND_TRUTH)


def pipeline(span: Span) -> str | None:
    return _text(span, PIPELINE)


def citations(span: Span) -> tuple[str, ...] | None:
    ids = _named_ids(span, CITATIONS)
    return None if ids is None else tuple(dict.fromkeys(ids))


def relevant_ids(span: Span) -> frozenset[str] | None:
    ids = _named_ids(span, RELEVANT_IDS)
    return None if ids is None else frozenset(ids)


def blank_ids(span: Span, attribute: str) -> int:
    """How many ids of `attribute` (CITATIONS or RELEVANT_IDS) on the span are empty or spaces: an
    instrumentation's artefact (`doc.metadata.get("id", "")`), not a document. Kept, a blank citation had
    counted as a citation of a document never retrieved, and a blank relevant id as a relevant document
    never found; left out unsaid, the figures would move without a word."""
    ids = _ids(span, attribute)
    return 0 if ids is None else sum(not doc.strip() for doc in ids)


def _named_ids(span: Span, attribute: str) -> list[str] | None:
    """The ids that name a document. A list of blank ids alone names none and is read as no list: as an
    explicit empty `ragmon.relevant_ids` marks the question unanswerable, `[""]` must not."""
    ids = _ids(span, attribute)
    if ids is None:
        return None
    named = [doc for doc in ids if doc.strip()]
    return named if named or not ids else None


def _text(span: Span, attribute: str) -> str | None:
    value = span.attributes.get(attribute)
    if value is not None and not isinstance(value, str):
        raise ExtractionError(span, attribute, f"attribute {attribute!r} is not a string")
    return text_value(value)


def _ids(span: Span, attribute: str) -> list[str] | None:
    value = span.attributes.get(attribute)
    if value is None:
        return None
    items = list_value(span, attribute, value)
    return [_id(span, attribute, index, item) for index, item in enumerate(items)]


def _id(span: Span, attribute: str, index: int, item: Any) -> str:
    """A string, or a whole number read as its decimal text: a golden record's ids are read so, and an
    app with numeric keys sends `[12, 13]` (an OTLP int array, or JSON)."""
    if isinstance(item, str):
        return item
    if isinstance(item, int) and not isinstance(item, bool):
        return str(item)
    raise ExtractionError(span, attribute, f"{attribute}[{index}] is neither a string nor a whole number")
