"""The names the ragmon and trace formats give their fields, and which of the two a record is in.

Both formats are read from the same kind of file and told apart record by record, so each parser checks
its records against both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.datasets.fields import FieldError, json_type, listed
from ragmon.names import OwnName, Renamed

RAGMON_FIELDS = frozenset({"id", "question", "contexts", "answer", "relevant_ids", "citations",
                           "ground_truth", "category", "pipeline"})
CONTEXT_IDS = "retrieved_context_ids"
"""The ids of a ragmon record's plain-string contexts in order, under ragas's name: read, not one of the
fields `ragmon replay --help` names (RAGMON_FIELDS), since it only names contexts given apart from them."""
TRACE_FIELDS = frozenset({"id", "traceId", "trace_id", "input", "question", "output", "expectedDocs",
                          "steps", "citations", "ground_truth", "category", "pipeline"})
RECORD_FIELDS = RAGMON_FIELDS | TRACE_FIELDS
"""What a ragmon or trace record is checked against for typos: the two are told apart record by record, so
a ragmon name misspelt in a trace record (or the reverse) is as much a typo."""
NEEDS_REVIEW = "needs_review"
"""A captured record's mark that no one has reviewed it yet (ragmon.capture): carried in `Example.extra`,
and warned of by `ragmon replay` while true."""
CHECKED_FIELDS = RECORD_FIELDS | {NEEDS_REVIEW}
"""What a record's field names are checked against for typos: RECORD_FIELDS, and the carried field ragmon
reads. Misspelt (`need_review`, `needsReview`), that one left a line nobody reviewed scored without
replay's warning. Not among RECORD_FIELDS, which tell the formats apart and a record from an index."""
_RAGMON_CONTENT = ("contexts", CONTEXT_IDS, "answer", "relevant_ids")
_TRACE_CONTENT = ("steps", "output", "expectedDocs")
_TRACE_MARKERS = (*_TRACE_CONTENT, "input")
_ANSWERED = ("contexts", "answer", "steps", "output")


_RAGMON_NAMES: Renamed = {"traceId": OwnName("id"), "trace_id": OwnName("id"), "input": OwnName("question"),
                          "output": OwnName("answer"), "expectedDocs": OwnName("relevant_ids"),
                          "steps": OwnName("contexts")}
_TRACE_NAMES: Renamed = {
    "answer": OwnName("output"), "relevant_ids": OwnName("expectedDocs"),
    "contexts": OwnName("steps", "a trace record's contexts are the 'output' of a step of kind 'retrieval' "
                                 "in its 'steps'")}


def own_names(obj: Mapping[str, Any]) -> Renamed:
    """How the format `obj` is in gives the fields the other format names (`expected_ids` is told
    `relevant_ids` in a ragmon record, `expectedDocs` in a trace record), so that a hint leads to a record
    in one format; nothing is renamed for one holding neither format's content, or both."""
    if _given(obj, _RAGMON_CONTENT):
        return {} if _given(obj, _TRACE_CONTENT) else _RAGMON_NAMES
    return _TRACE_NAMES if is_trace(obj) else {}


def is_trace(obj: Mapping[str, Any]) -> bool:
    if _given(obj, _RAGMON_CONTENT):
        return False
    return any(marker in obj for marker in _TRACE_MARKERS)


def answered(obj: Mapping[str, Any]) -> list[str]:
    """The fields in which `obj`, in either format, records what a build retrieved or answered."""
    return _given(obj, _ANSWERED)


def _given(obj: Mapping[str, Any], fields: tuple[str, ...]) -> list[str]:
    """The content fields `obj` gives a value. An empty `steps` list says nothing; an empty `contexts` or
    `expectedDocs` does (nothing was retrieved, nothing is relevant)."""
    return [key for key in fields if obj.get(key) is not None and not (key == "steps" and obj[key] == [])]


def check_mark(obj: Mapping[str, Any]) -> None:
    """The review mark must be true or false (or null): replay warns of a line only while it is true, and a
    spreadsheet's "true" or a 1 had left the line scored as reviewed without a word."""
    mark = obj.get(NEEDS_REVIEW)
    if mark is not None and not isinstance(mark, bool):
        raise FieldError(f"expected true or false, got {json_type(mark)}"
                         + (": write it without quotes" if isinstance(mark, str) else ""), (NEEDS_REVIEW,))


def check_format(obj: Mapping[str, Any], trace: bool) -> None:
    """A record read in one format must not hold the other's content: the reader would drop it."""
    ragmon, traced = _given(obj, _RAGMON_CONTENT), _given(obj, _TRACE_CONTENT)
    if ragmon and traced:
        raise FieldError(f"mixes the ragmon format's {listed(ragmon)} with the trace format's "
                         f"{listed(traced)}: give each example in one format", ())
    other = ragmon if trace else traced
    if other:
        names = ("ragmon", "trace") if trace else ("trace", "ragmon")
        raise FieldError(f"has the {names[0]} format's {listed(other)} in a file whose first example is in "
                         f"the {names[1]} format: give every example of a file in one format", (other[0],))


def is_evalset(obj: Mapping[str, Any]) -> bool:
    return "corpus" in obj or isinstance(obj.get("examples"), list)
