"""Format 3, a trace record as tracing tools export one: question and answer as text or as the objects
a tracer logged, contexts from the retrieval steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.datasets.fields import (
    FieldError,
    FieldPath,
    check_names,
    extra,
    id_labels,
    json_type,
    listed,
    optional_contexts,
    optional_id_set,
    optional_id_tuple,
    optional_str,
    required_id,
)
from ragmon.datasets.formats import RECORD_FIELDS, TRACE_FIELDS, check_format
from ragmon.model import Context, Example
from ragmon.names import TRACE_SYNONYMS, near_miss

_STEP_FIELDS = frozenset({"kind", "output"})
_RETRIEVAL = "retrieval"
_LLM = "llm"
_STEP_KINDS = (_RETRIEVAL, _LLM, "embedding", "tool")
"""Retrieval and llm steps are read; embedding and tool steps carry no documents the model was given and
no answer, and live extraction ignores such spans too. Any other kind (a reranker, a misspelling) would be
ignored without a word, so it is refused."""
_QUESTION_KEYS = ("query", "question", "input")
_ANSWER_KEYS = ("answer", "output", "text", "content")


def trace_example(obj: dict[str, Any], default_id: str) -> Example:
    check_names(obj, RECORD_FIELDS, synonyms=TRACE_SYNONYMS)
    check_format(obj, trace=True)
    steps = _steps(obj.get("steps"))
    answer = _text_value(obj, "output", _ANSWER_KEYS)
    if answer is None and "output" not in obj:
        answer = _last_llm_output(steps)
    trace_id = next((key for key in ("id", "traceId", "trace_id") if obj.get(key) is not None), None)
    example_id, question = required_id(obj, trace_id) if trace_id else default_id, _trace_question(obj)
    relevant_ids, citations = optional_id_set(obj, "expectedDocs"), optional_id_tuple(obj, "citations")
    return Example(
        id=example_id,
        question=question,
        contexts=_retrieved(steps, id_labels(expectedDocs=relevant_ids, citations=citations)),
        answer=answer,
        relevant_ids=relevant_ids,
        citations=citations,
        ground_truth=optional_str(obj, "ground_truth"),
        category=optional_str(obj, "category"),
        pipeline=optional_str(obj, "pipeline"),
        extra=extra(obj, TRACE_FIELDS),
    )


def _trace_question(obj: Mapping[str, Any]) -> str:
    for key in ("input", "question"):
        if obj.get(key) is not None:
            question = _text_value(obj, key, _QUESTION_KEYS)
            if question is not None:
                return question
    raise FieldError("missing question: expected 'input' or 'question'", ("input",))


def _text_value(obj: Mapping[str, Any], key: str, inner_keys: tuple[str, ...]) -> str | None:
    """A string, or the first string under one of `inner_keys` when tracers log a dict of inputs/outputs."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        for inner in inner_keys:
            if isinstance(value.get(inner), str):
                return value[inner]
    raise FieldError(f"expected a string or an object with one of {list(inner_keys)}, "
                     f"got {json_type(value)}", (key,))


def _steps(value: Any) -> list[dict[str, Any]]:
    """The steps, each an object of a known kind."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(f"expected a list of steps, got {json_type(value)}", ("steps",))
    for index, step in enumerate(value):
        path: FieldPath = ("steps", index)
        if not isinstance(step, dict):
            raise FieldError(f"expected a step object, got {json_type(step)}", path)
        check_names(step, _STEP_FIELDS, path)
        _check_kind(step, path)
    return value


def _check_kind(step: Mapping[str, Any], path: FieldPath) -> None:
    kinds = f"one of {listed(sorted(_STEP_KINDS))}"
    kind = step.get("kind")
    if kind is None:
        elsewhere = next((key for key, value in step.items()
                          if isinstance(value, str) and near_miss(value, _STEP_KINDS) is not None), None)
        hint = f": did you mean 'kind' instead of {elsewhere!r}?" if elsewhere else ""
        raise FieldError(f"missing step kind ({kinds}){hint}", (*path, "kind"))
    if kind not in _STEP_KINDS:
        meant = near_miss(kind, _STEP_KINDS) if isinstance(kind, str) else None
        hint = f": did you mean {meant!r}?" if meant else ""
        raise FieldError(f"unknown step kind {kind!r} ({kinds}){hint}", (*path, "kind"))


def _last_llm_output(steps: list[dict[str, Any]]) -> str | None:
    for step in reversed(steps):
        if step["kind"] == _LLM and isinstance(step.get("output"), str):
            return step["output"]
    return None


def _retrieved(steps: list[dict[str, Any]], named_by: str | None) -> tuple[Context, ...] | None:
    """Contexts of every retrieval step in order, each document (id and text) once, as live extraction
    reads them: chunks of one file share its `source` as their id and are each something the model saw;
    None when no step says what it retrieved."""
    contexts: dict[tuple[str, str], Context] = {}
    known = False
    for index, step in enumerate(steps):
        if step["kind"] != _RETRIEVAL:
            continue
        found = optional_contexts(step.get("output"), ("steps", index, "output"), named_by)
        if found is None:  # the step recorded no output: unknown, not "retrieved nothing"
            continue
        known = True
        for context in found:
            contexts.setdefault((context.id, context.text), context)
    return tuple(contexts.values()) if known else None
