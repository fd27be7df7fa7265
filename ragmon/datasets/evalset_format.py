"""Format 2, an eval set: a corpus and the questions asked of it, without answers.

One JSON document, not one record per line: its examples are checked against its corpus.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ragmon.datasets.fields import (
    FieldError,
    FieldPath,
    check_names,
    extra,
    json_type,
    listed,
    optional_id_tuple,
    optional_reference,
    optional_str,
    required_id,
    required_str,
)
from ragmon.datasets.formats import answered
from ragmon.model import Example
from ragmon.names import EVALSET_SYNONYMS

_EVALSET_FIELDS = frozenset({"id", "question", "ground_truth_answer", "expected_chunk_ids", "category"})
_UNANSWERABLE_CATEGORIES = frozenset({"adversarial", "unanswerable"})
_INSUFFICIENT = "insufficient_context"


def evalset_examples(doc: dict[str, Any]) -> Iterator[tuple[FieldPath, Example]]:
    corpus = doc.get("corpus")
    corpus_ids: set[str] | None = None
    if corpus is not None:
        if not isinstance(corpus, list):
            raise FieldError(f"expected a list of documents, got {json_type(corpus)}", ("corpus",))
        corpus_ids = set()
        for index, item in enumerate(corpus):
            if not isinstance(item, dict):
                raise FieldError(f"expected a document object, got {json_type(item)}", ("corpus", index))
            corpus_ids.add(required_id(item, "id", ("corpus", index)))
    examples = doc.get("examples")
    if not isinstance(examples, list):
        raise FieldError(f"expected a list of examples, got {json_type(examples)}", ("examples",))
    if not examples:
        raise FieldError("contains no examples", ("examples",))
    for index, item in enumerate(examples):
        path: FieldPath = ("examples", index)
        if not isinstance(item, dict):
            raise FieldError(f"expected an example object, got {json_type(item)}", path)
        try:
            yield path, _evalset_example(item, corpus_ids)
        except FieldError as exc:
            raise FieldError(exc.message, (*path, *exc.path)) from None


def _evalset_example(item: dict[str, Any], corpus_ids: set[str] | None) -> Example:
    _check_unanswered(item)  # first: a record wrapped in an eval set is told so, not to rename its labels
    check_names(item, _EVALSET_FIELDS, synonyms=EVALSET_SYNONYMS)
    ground_truth = optional_reference(item, "ground_truth_answer")
    category = optional_str(item, "category")
    relevant = optional_id_tuple(item, "expected_chunk_ids")
    if corpus_ids is not None and relevant is not None:
        for index, doc_id in enumerate(relevant):
            if doc_id not in corpus_ids:
                raise FieldError(f"chunk id {doc_id!r} is not in the corpus", ("expected_chunk_ids", index))
    unanswerable = category in _UNANSWERABLE_CATEGORIES or ground_truth == _INSUFFICIENT
    return Example(
        id=required_id(item, "id"),
        question=required_str(item, "question"),
        relevant_ids=frozenset() if unanswerable else (None if relevant is None else frozenset(relevant)),
        ground_truth=ground_truth,
        category=category,
        extra=extra(item, _EVALSET_FIELDS),
    )


def _check_unanswered(item: dict[str, Any]) -> None:
    """Records wrapped in `{"examples": [...]}` are read as an eval set, which has no place for contexts or
    answers: scored, every metric would be undefined, and asked live (`--target`) their `relevant_ids` and
    `ground_truth`, which are no eval-set names, would be dropped too."""
    fields = answered(item)
    if fields:
        raise FieldError(f"this example's {listed(fields)} would not be read: the file is an eval set (a "
                         f"JSON object with \"examples\"), which holds questions and labels only; give "
                         f"records of what a build retrieved and answered as JSONL (one per line) or as a "
                         f"JSON array of them", (fields[0],))
