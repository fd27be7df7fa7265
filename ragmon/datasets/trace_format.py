"""Format 3, a trace record as tracing tools export one: question and answer as text or as the objects
a tracer logged, contexts from the retrieval steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ragmon.datasets.fields import (
    FieldError,
    FieldPath,
    check_names,
    dotted,
    extra,
    id_labels,
    json_type,
    listed,
    optional_contexts,
    optional_id_set,
    optional_id_tuple,
    optional_reference,
    optional_str,
    required_id,
    required_str,
)
from ragmon.datasets.formats import CHECKED_FIELDS, TRACE_FIELDS, check_format, check_mark, own_names
from ragmon.model import Context, Example
from ragmon.names import (
    LOGGED_ANSWER,
    LOGGED_CONTEXTS,
    LOGGED_QUESTION,
    LOGGED_SYNONYMS,
    TRACE_SYNONYMS,
    near_miss,
)

_STEP_FIELDS = frozenset({"kind", "output"})
_QUESTION_FIELDS = ("input", "question")
_ID_FIELDS = ("id", "traceId", "trace_id")
"""Read in this order; the first given is the example's id, and the others are carried along in
`Example.extra` (a LangSmith run's own `id` beside its `trace_id`), as they had not been."""
_RETRIEVAL = "retrieval"
_LLM = "llm"
_STEP_KINDS = (_RETRIEVAL, _LLM, "embedding", "tool")
"""Retrieval and llm steps are read; embedding and tool steps carry no documents the model was given and
no answer, and live extraction ignores such spans too. Any other kind (a reranker, a misspelling) would be
ignored without a word, so it is refused."""


class _Logged(NamedTuple):
    """What a trace read from its `input` or `output`: a string, or an object a tracer logged."""

    text: str | None
    contexts: FieldPath | None
    """Where the object holds the contexts, if it does."""
    unread: dict[str, Any]
    """The object's other keys (a chain's `chat_history`), carried along in `Example.extra` under its name."""


def trace_example(obj: dict[str, Any], default_id: str) -> Example:
    check_names(obj, CHECKED_FIELDS, synonyms=TRACE_SYNONYMS, renamed=own_names(obj))
    check_format(obj, trace=True)
    check_mark(obj)
    steps = _steps(obj.get("steps"))
    asked_in = _one(obj, _QUESTION_FIELDS, (), "question") or "input"
    asked, said = _logged(obj, asked_in, LOGGED_QUESTION), _logged(obj, "output", LOGGED_ANSWER)
    if asked.text is None:
        raise FieldError(f"missing question: expected 'input' or 'question', a string or an object with one "
                         f"of {listed(LOGGED_QUESTION)}", (asked_in,))
    answer = said.text
    if answer is None and ("output" not in obj or said.contexts is not None):  # null: no answer was given
        answer = _last_llm_output(steps)
    given_ids = [key for key in _ID_FIELDS if obj.get(key) is not None]
    example_id = required_id(obj, given_ids[0]) if given_ids else default_id
    relevant_ids, citations = optional_id_set(obj, "expectedDocs"), optional_id_tuple(obj, "citations")
    unread = {key: logged.unread for key, logged in ((asked_in, asked), ("output", said)) if logged.unread}
    return Example(
        id=example_id,
        question=asked.text,
        contexts=_contexts(obj, steps, [asked.contexts, said.contexts],
                           id_labels(expectedDocs=relevant_ids, citations=citations)),
        answer=answer,
        relevant_ids=relevant_ids,
        citations=citations,
        ground_truth=optional_reference(obj, "ground_truth"),
        category=optional_str(obj, "category"),
        pipeline=optional_str(obj, "pipeline"),
        extra={**extra(obj, TRACE_FIELDS), **{key: obj[key] for key in given_ids[1:]}, **unread},
    )


def _logged(obj: Mapping[str, Any], key: str, text_names: tuple[str, ...]) -> _Logged:
    """A string, or the object a tracer logged (LangChain's `{"query"}` in, `{"result", "source_documents"}`
    out): its text and contexts read under the names chains give them, and any name for them that would be
    left unread refused. Reading only the text dropped the contexts beside it without a word, and the
    groundedness gate then failed as undefined while answer_relevance passed."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return _Logged(value, None, {})
    if not isinstance(value, dict):
        raise FieldError(f"expected a string or an object with one of {listed(text_names)}, "
                         f"got {json_type(value)}", (key,))
    check_names(value, frozenset((*text_names, *LOGGED_CONTEXTS)), (key,), LOGGED_SYNONYMS)
    text_at = _one(value, text_names, (key,), "text")
    contexts_at = _one(value, LOGGED_CONTEXTS, (key,), "contexts")
    if text_at is None and contexts_at is None:
        raise FieldError(f"expected a string or an object with one of {listed(text_names)}, or the contexts "
                         f"under one of {listed(LOGGED_CONTEXTS)}", (key,))
    return _Logged(None if text_at is None else required_str(value, text_at, (key,)),
                   None if contexts_at is None else (key, contexts_at),
                   {name: item for name, item in value.items() if name not in (text_at, contexts_at)})


def _one(value: Mapping[str, Any], names: tuple[str, ...], base: FieldPath, what: str) -> str | None:
    """The one of `names` the object gives a value: two would leave one unread (a record's `question`
    beside its `input` had been dropped without a word, the example asked and scored as the `input`)."""
    given = [name for name in names if value.get(name) is not None]
    if len(given) > 1:
        raise FieldError(f"gives its {what} twice, as {listed(given)}: keep one", (*base, given[1]))
    return given[0] if given else None


def _contexts(obj: Mapping[str, Any], steps: list[dict[str, Any]], logged: list[FieldPath | None],
              named_by: str | None) -> tuple[Context, ...] | None:
    """The contexts, from the retrieval steps or from the object a tracer logged, never from both: which
    of two lists the model was given is not for ragmon to guess."""
    places = [path for path in logged if path is not None]
    retrieved = _retrieved(steps, named_by)
    if len(places) + (retrieved is not None) > 1:
        where = [*(repr(dotted(path)) for path in places), *(["the retrieval steps"] if retrieved is not None
                                                                 else [])]
        raise FieldError(f"gives the contexts twice, in {' and in '.join(where)}: give them in one place",
                         places[-1])
    if not places:
        return retrieved
    value: Any = obj
    for step in places[0]:
        value = value[step]
    return optional_contexts(value, places[0], named_by)


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
    """The text of the last llm step that recorded an output."""
    for index in reversed(range(len(steps))):
        if steps[index]["kind"] == _LLM and steps[index].get("output") is not None:
            return _llm_text(steps[index]["output"], ("steps", index, "output"))
    return None


def _llm_text(output: Any, path: FieldPath) -> str:
    """A string, or the message object a model client returns (`{"role", "content"}`), its text read under
    the names a logged `output` gives it. Only a string had been read: an object was passed over for an
    earlier step's output, or for none, the answer then unknown and every answer metric undefined."""
    if isinstance(output, str):
        return output
    expected = f"expected a string or an object with one of {listed(LOGGED_ANSWER)}"
    if not isinstance(output, dict):
        raise FieldError(f"{expected}, got {json_type(output)}", path)
    text_at = _one(output, LOGGED_ANSWER, path, "text")
    if text_at is None:
        raise FieldError(expected, path)
    return required_str(output, text_at, path)


def _retrieved(steps: list[dict[str, Any]], named_by: str | None) -> tuple[Context, ...] | None:
    """Contexts of every retrieval step in order, as live extraction reads a trace's retriever spans: a
    step's list as it stands, a document it lists twice at both ranks (as a ragmon record's contexts
    are), and a document (id and text) an earlier step gave left out. Collapsed within a step, [d1, d1,
    d2] had put d2 in a top 2 the sidecar and a ragmon record both leave it out of. Chunks of one file
    share its `source` as their id and are each something the model saw. None when no step says what it
    retrieved."""
    contexts: list[Context] = []
    earlier: set[tuple[str, str]] = set()
    known = False
    for index, step in enumerate(steps):
        if step["kind"] != _RETRIEVAL:
            continue
        found = optional_contexts(step.get("output"), ("steps", index, "output"), named_by)
        if found is None:  # the step recorded no output: unknown, not "retrieved nothing"
            continue
        known = True
        contexts += (context for context in found if (context.id, context.text) not in earlier)
        earlier.update((context.id, context.text) for context in found)
    return tuple(contexts) if known else None
