"""Format 1, a ragmon record: the fields of an `Example` under their own names.

The format golden sets are kept in and `ragmon serve --capture` writes. A parser of its own, as each format
has, so the reader can take one per file from its first record.
"""

from __future__ import annotations

from typing import Any

from ragmon.datasets.fields import (
    FieldError,
    check_names,
    extra,
    id_labels,
    optional_contexts,
    optional_id_set,
    optional_id_tuple,
    optional_reference,
    optional_str,
    required_id,
    required_str,
)
from ragmon.datasets.formats import (
    CHECKED_FIELDS,
    CONTEXT_IDS,
    RAGMON_FIELDS,
    check_format,
    check_mark,
    own_names,
)
from ragmon.model import Context, Example
from ragmon.names import RECORD_SYNONYMS

_READ = RAGMON_FIELDS | {CONTEXT_IDS}


def ragmon_example(obj: dict[str, Any], default_id: str) -> Example:
    check_names(obj, CHECKED_FIELDS, synonyms=RECORD_SYNONYMS, required=(("id",), ("question", "input")),
                renamed=own_names(obj))
    check_format(obj, trace=False)
    check_mark(obj)
    example_id, question = required_id(obj, "id"), required_str(obj, "question")
    relevant_ids, citations = optional_id_set(obj, "relevant_ids"), optional_id_tuple(obj, "citations")
    return Example(
        id=example_id,
        question=question,
        contexts=_contexts(obj, id_labels(relevant_ids=relevant_ids, citations=citations)),
        answer=optional_str(obj, "answer"),
        relevant_ids=relevant_ids,
        citations=citations,
        ground_truth=optional_reference(obj, "ground_truth"),
        category=optional_str(obj, "category"),
        pipeline=optional_str(obj, "pipeline"),
        extra=extra(obj, _READ),
    )


def _contexts(obj: dict[str, Any], named_by: str | None) -> tuple[Context, ...] | None:
    """The contexts, each plain-string one named by its place in `retrieved_context_ids` when the record
    gives them apart, as a ragas sample does: read as content hashes, no relevant id would match them and
    every retrieval figure would be undefined or 0."""
    ids = optional_id_tuple(obj, CONTEXT_IDS)
    if ids is None:
        return optional_contexts(obj.get("contexts"), ("contexts",), named_by)
    texts = obj.get("contexts")
    if texts is None:
        raise FieldError("names contexts the record does not give: give their texts as 'contexts', in the "
                         "same order", (CONTEXT_IDS,))
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise FieldError("names the contexts by their place, which needs 'contexts' as a list of strings: "
                         "give a context object its own 'id' instead", (CONTEXT_IDS,))
    if len(ids) != len(texts):
        raise FieldError(f"has {len(ids)} ids for {len(texts)} contexts: give one id per context, in the "
                         f"contexts' order", (CONTEXT_IDS,))
    return tuple(Context(doc_id, text) for doc_id, text in zip(ids, texts, strict=True))
