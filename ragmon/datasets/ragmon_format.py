"""Format 1, a ragmon record: the fields of an `Example` under their own names.

The format golden sets are kept in and `ragmon serve --capture` writes. A parser of its own, as each format
has, so the reader can take one per file from its first record.
"""

from __future__ import annotations

from typing import Any

from ragmon.datasets.fields import (
    check_names,
    extra,
    id_labels,
    optional_contexts,
    optional_id_set,
    optional_id_tuple,
    optional_str,
    required_id,
    required_str,
)
from ragmon.datasets.formats import RAGMON_FIELDS, RECORD_FIELDS, check_format
from ragmon.model import Example
from ragmon.names import RECORD_SYNONYMS


def ragmon_example(obj: dict[str, Any], default_id: str) -> Example:
    check_names(obj, RECORD_FIELDS, synonyms=RECORD_SYNONYMS, required=("id", "question"))
    check_format(obj, trace=False)
    example_id, question = required_id(obj, "id"), required_str(obj, "question")
    relevant_ids, citations = optional_id_set(obj, "relevant_ids"), optional_id_tuple(obj, "citations")
    return Example(
        id=example_id,
        question=question,
        contexts=optional_contexts(obj.get("contexts"), ("contexts",),
                                   id_labels(relevant_ids=relevant_ids, citations=citations)),
        answer=optional_str(obj, "answer"),
        relevant_ids=relevant_ids,
        citations=citations,
        ground_truth=optional_str(obj, "ground_truth"),
        category=optional_str(obj, "category"),
        pipeline=optional_str(obj, "pipeline"),
        extra=extra(obj, RAGMON_FIELDS),
    )
