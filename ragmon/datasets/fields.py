"""Typed readers of a record's fields, and the check that refuses a near miss of a known field name.

Every format reads its fields through these, so a bad value gets the same message in any of them. An error
is a `FieldError` holding the JSON path to the value; the reader, which knows the file and line, turns it
into an InputError.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ragmon.ids import content_id, store_assigned
from ragmon.model import Context
from ragmon.names import CONTEXT_SYNONYMS, Meant, Renamed, meant_as

FieldPath = tuple[str | int, ...]
_LANGCHAIN_TEXT = ("pageContent", "page_content")  # LangChain.js's Document, and Python LangChain's
_CONTEXT_FIELDS = frozenset({"id", "text", "score", "metadata", *_LANGCHAIN_TEXT})
_ONE_TEXT = frozenset({"question", "answer", "ground_truth", "text", *_LANGCHAIN_TEXT})
"""Fields read as one string, which another tool may give as a list of them (ragas 0.1's `ground_truths`)."""
_DOC_ID_KEYS = ("id", "source", "doc_id")
_METADATA_IDS = "'metadata.id', 'metadata.source' or 'metadata.doc_id'"
_ID_LENGTH = 200
_MEANT_SHOWN = 3


class FieldError(Exception):
    """A bad value inside one record; the caller knows the file and line and turns it into an InputError."""

    def __init__(self, message: str, path: FieldPath) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def check_names(obj: Mapping[str, Any], known: frozenset[str], base: FieldPath = (),
                synonyms: Mapping[str, Meant] | None = None,
                required: tuple[tuple[str, ...], ...] = (), renamed: Renamed | None = None) -> None:
    """Refuse a field that is a near miss of a known one the object lacks, or another tool's name for it
    (ragmon.names): either would leave that field unread and its metric undefined (or zero, for a
    context's id) without a word. Any other field is the user's.

    Every such field is named in one error, with each `required` field the object lacks and no refused
    field stands for: a record exported from another tool (ragas's `user_input`, `retrieved_contexts`,
    `response`, `reference`, and no `id`) is fixed in one pass, not in one run per field. A lone refused
    field is reported as ever, at its own path; several, at the object's. Each `required` entry names the
    field first and then any other that brings it: a LangSmith `inputs` refused as `input` brings the
    question, so the record is not also told it lacks `question`.

    A field read as one string refused with a list of strings (ragas 0.1's `ground_truths`) is told to
    give one of them, in the same message: renamed as it was, the list would be refused next. A field
    meant as another format's is told as the record's own format gives it (`renamed`, ragmon.names)."""
    refused: list[tuple[str, str, str]] = []
    for key, value in obj.items():
        found = None if key in known else meant_as(key, known, obj, synonyms, value, renamed)
        if found is not None:
            strings = _strings(value) if found[0] in _ONE_TEXT else None
            refused.append((key, found[0], found[1] + (f" ({strings})" if strings else "")))
    if not refused:
        return
    meant = {name for _, name, _ in refused}
    missing = [f"missing required field {names[0]!r}" for names in required
               if names[0] not in obj and meant.isdisjoint(names)]
    if len(refused) == 1 and not missing:
        ((key, _, why),) = refused
        raise FieldError(why, (*base, key))
    raise FieldError("; ".join([*(why for _, _, why in refused), *missing]), base)


def _strings(value: Any) -> str | None:
    """A list of strings given where one string is read, and what to give instead; None for any other
    value."""
    if not isinstance(value, list) or not value or not all(isinstance(item, str) for item in value):
        return None
    if len(value) == 1:
        return "a list of 1 string: give that string, not the list"
    return f"a list of {len(value)} strings, where ragmon reads one: give the one to use, not the list"


def listed(names: Iterable[str]) -> str:
    return ", ".join(repr(name) for name in names)


def optional_contexts(value: Any, path: FieldPath,
                      named_by: str | None = None) -> tuple[Context, ...] | None:
    """`named_by` is the record's field that names its contexts by id (`relevant_ids`, `citations`) when
    it lists any: a context without an id is then an error, since the content hash it would be named by
    matches no labelled id, and every figure over those ids would read 0 for a retriever that found the
    document (see `id_labels`)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise FieldError(f"expected a list of contexts, got {json_type(value)}", path)
    return tuple(_context(item, (*path, index), named_by) for index, item in enumerate(value))


def id_labels(**fields: Collection[str] | None) -> str | None:
    """The first of a record's `fields` that names contexts by id and lists any: an empty `relevant_ids`
    (an unanswerable question) leaves the retrieval metrics undefined whatever the contexts' ids."""
    return next((name for name, ids in fields.items() if ids), None)


def _context(item: Any, path: FieldPath, named_by: str | None) -> Context:
    """`{id, text, score}` (its id else in its `metadata`, as the sidecar reads `ragmon.contexts`), a
    plain string, or a LangChain document `{pageContent, metadata}` (`page_content` in Python's)."""
    if isinstance(item, str):
        if named_by is not None:
            raise FieldError(f"a plain-string context has {_unmatched(named_by)}: give each context as "
                             f"{{\"id\": ..., \"text\": ...}}", path)
        return Context(content_id(item), item)
    if not isinstance(item, dict):
        raise FieldError(f"expected a context object or string, got {json_type(item)}", path)
    # A LangChain document's text is its pageContent and its id in its metadata: its other keys are its own.
    langchain = [key for key in _LANGCHAIN_TEXT if key in item]
    check_names(item, _CONTEXT_FIELDS, path, None if langchain else CONTEXT_SYNONYMS)
    texts = [key for key in ("text", *_LANGCHAIN_TEXT) if key in item]
    if len(texts) > 1:  # one read, the other dropped unseen: a true answer was scored against the wrong text
        raise FieldError(f"gives its text twice, as {listed(texts)}: keep one", (*path, texts[1]))
    if langchain:
        text = required_str(item, langchain[0], path)
        if not isinstance(item.get("metadata") or {}, dict):
            raise FieldError(f"expected an object, got {json_type(item['metadata'])}", (*path, "metadata"))
    else:
        text = required_str(item, "text", path)
    doc_id = _context_id(item, path, bool(langchain))
    if doc_id is None and named_by is not None:
        raise _no_id(item, path, bool(langchain), named_by)
    return Context(content_id(text) if doc_id is None else doc_id, text, _score(item.get("score"), path))


def _score(score: Any, path: FieldPath) -> float | None:
    """A retriever's score, which no metric reads. A NaN or infinite one (Python's `json.dumps` writes
    `NaN` for a vector store's NaN, and `1e400` reads as infinite) says nothing of rank: it is read as no
    score, as `ragmon.instrument` records it and `ragmon serve --capture` writes it, so a golden set and
    the capture of the same retrieval give equal examples. Kept as NaN, two loads of one file gave
    examples that compared unequal (NaN equals nothing, itself included)."""
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise FieldError(f"expected a number, got {json_type(score)}", (*path, "score"))
    return None if isinstance(score, float) and not math.isfinite(score) else score


def _context_id(item: dict[str, Any], path: FieldPath, langchain: bool) -> str | None:
    """Its `id`, else its metadata's `id`, `source` or `doc_id` (as LangChain and LlamaIndex loaders
    record one). A LangChain document's `id` (its Document.id) when its app gave it one; a UUID its vector
    store assigned (`store_assigned`) yields to the metadata, as a traced one does. Read metadata first
    whatever the id, `{"id": "d1", "page_content": ..., "metadata": {"source": "guide.pdf"}}` was named
    guide.pdf, and its relevant id d1 counted as not retrieved. None when it has none."""
    metadata = item.get("metadata")
    places = [(item, "id", path), *((metadata, key, (*path, "metadata")) for key in _DOC_ID_KEYS
                                    if isinstance(metadata, dict))]
    own = item.get("id")
    if langchain and isinstance(own, str) and not own.strip():
        places = places[1:]  # LangChain's Document.id unset is "", or None: no id, as in a trace
    elif langchain and store_assigned(own):
        places = places[1:] + places[:1]
    for obj, key, base in places:
        if obj.get(key) is not None:
            return required_id(obj, key, base)
    return None


def _no_id(item: dict[str, Any], path: FieldPath, langchain: bool, named_by: str) -> FieldError:
    """Names what ragmon reads as an id, and the keys of the context that look like one it may have been
    meant as (`source`, `url`, `metadata.uuid`)."""
    metadata = item.get("metadata")
    found = [*((key, value) for key, value in item.items() if key not in _CONTEXT_FIELDS),
             *((f"metadata.{key}", value) for key, value in (metadata.items() if isinstance(metadata, dict)
                                                            else ()))]
    meant = [key for key, value in found if _id_shaped(value)][:_MEANT_SHOWN]
    hint = f"; did you mean {' or '.join(repr(key) for key in meant)}?" if meant else ""
    return FieldError(f"the context has {_unmatched(named_by)}: ragmon reads 'id', else "
                      f"{_METADATA_IDS}{hint}", (*path, "metadata") if langchain else (*path, "id"))


def _unmatched(named_by: str) -> str:
    return (f"no id, which the record's {named_by!r} are matched against (a content hash in its place would "
            f"make every figure over them 0)")


def _id_shaped(value: Any) -> bool:
    """A value that could be a document's id: a whole number, or a short string on one line."""
    if isinstance(value, str):
        return 0 < len(value) <= _ID_LENGTH and "\n" not in value
    return isinstance(value, int) and not isinstance(value, bool)


def required_str(obj: Mapping[str, Any], key: str, base: FieldPath = ()) -> str:
    value = obj.get(key)
    if value is None:
        raise _missing(obj, key, base)
    if not isinstance(value, str):
        raise FieldError(f"expected a string, got {_strings(value) or json_type(value)}", (*base, key))
    return value


def optional_str(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise FieldError(f"expected a string or null, got {_strings(value) or json_type(value)}", (key,))


def optional_reference(obj: Mapping[str, Any], key: str) -> str | None:
    """A ground truth: the reference answer a person wrote. Blank, it is a field left unfilled (a
    spreadsheet's empty cell), not a reference: scored, every answer got answer_correctness 0, where the
    sidecar reads a blank `ragmon.ground_truth` as unknown. Refused as a blank id is, so that no figure
    moves without a word; null, or no field, is the unknown one."""
    value = optional_str(obj, key)
    if value is not None:
        _refuse_blank(value, "ground truth", (key,),
                      ": write the reference answer, or null (or no field) where none is known")
    return value


def required_id(obj: Mapping[str, Any], key: str, base: FieldPath = ()) -> str:
    value = obj.get(key)
    if value is None:
        raise _missing(obj, key, base)
    return _as_id(value, (*base, key))


def _missing(obj: Mapping[str, Any], key: str, base: FieldPath) -> FieldError:
    """A `null` is there to be seen in the line: "missing" would send the user looking for a key they
    wrote."""
    message = f"required field {key!r} is null" if key in obj else f"missing required field {key!r}"
    return FieldError(message, (*base, key))


def _as_id(value: Any, path: FieldPath) -> str:
    """Ids are strings; whole numbers are accepted and read as their decimal text."""
    if isinstance(value, str):
        # An id of spaces names nothing a person can read back from a report.
        _refuse_blank(value, "id", path)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        # pandas writes an integer column with a missing cell as floats: 17.0, and NaN for the missing one.
        raise FieldError(f"expected an id (string or whole number), got the number {json.dumps(value)}: an "
                         "id is read as written (a pandas column of ids holding a missing cell is written as "
                         "floats: write it with .astype('Int64'), or as strings)", path)
    raise FieldError(f"expected an id (string or whole number), got {json_type(value)}", path)


def _refuse_blank(value: str, noun: str, path: FieldPath, hint: str = "") -> None:
    if not value.strip():
        article = "an" if noun[0] in "aeiou" else "a"
        raise FieldError((f"expected a non-empty {noun}" if not value else
                          f"expected {article} {noun}, got only spaces {value!r}") + hint, path)


def optional_id_tuple(obj: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise FieldError(f"expected a list of ids, got {json_type(value)}", (key,))
    return tuple(_listed_id(item, (key, index)) for index, item in enumerate(value))


def _listed_id(item: Any, path: FieldPath) -> str:
    """A bare id, or a document object naming its id the way retrievers do (`id`, `source`, `doc_id`)."""
    if isinstance(item, dict):
        key = next((k for k in _DOC_ID_KEYS if item.get(k) is not None), None)
        if key is None:
            raise FieldError(f"document object has none of {list(_DOC_ID_KEYS)}", path)
        return _as_id(item[key], (*path, key))
    return _as_id(item, path)


def optional_id_set(obj: Mapping[str, Any], key: str) -> frozenset[str] | None:
    ids = optional_id_tuple(obj, key)
    return None if ids is None else frozenset(ids)


def extra(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in obj.items() if key not in known}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def dotted(path: FieldPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out
