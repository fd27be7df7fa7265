"""Record a RAG request in ragmon's span convention, for apps without an instrumentation library.

    from ragmon import instrument

    with instrument.rag_span(question, pipeline="support") as rag:
        docs = search(question)
        rag.retrieved(docs)              # Context objects, {"id", "text", "score"} mappings, or strings
        answer = generate(question, docs)
        rag.answered(answer, citations=["kb-12"])

`rag_span` opens a span (default name `rag`) carrying `ragmon.question` and `ragmon.pipeline`, and, once
answered, `ragmon.answer` and `ragmon.citations`. Each `retrieved()` records a child span `retrieval` with
`ragmon.contexts` (a JSON list in rank order) and each `answered()` a child span `generation` with
`ragmon.answer`. A child covers the time from the end of the previous step (or the start of the request)
to the call, so a sequential pipeline gets honest step durations without a `with` block per step.
`relevant_ids` and `ground_truth` are for synthetic or labelled traffic, e.g. a replay against a staging
service. An exception inside the block is recorded on the request span, which is marked as an error: if
no answer was recorded by then, the sidecar counts the trace an error (a failed request), not as scored.

A context mapping's `id`, `text` and `score` are written (the id may come from its `metadata`, as loaders
put it); a key meant as a missing id or text under another name (`doc_id`, `content`) is refused with the
words the sidecar refuses it with in a hand-set `ragmon.contexts`, and other keys are the app's own.

Only the OpenTelemetry API is used: the spans go wherever the app's tracer provider exports them (the
ragmon sidecar over OTLP), and without an SDK configured the calls cost next to nothing.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace

from ragmon import __version__
from ragmon.ids import content_id
from ragmon.model import Context, check_text
from ragmon.semconv import ragmon as convention
from ragmon.semconv.common import metadata_id

ContextLike = Context | Mapping[str, Any] | str


class RagSpan:
    """The open request span of `rag_span`; records retrieval and generation steps as children."""

    def __init__(self, tracer: trace.Tracer, span: trace.Span) -> None:
        self._tracer = tracer
        self._span = span
        self._step_start = time.time_ns()

    @property
    def span(self) -> trace.Span:
        """The underlying OpenTelemetry span, for attributes of the app's own."""
        return self._span

    def retrieved(self, contexts: Iterable[ContextLike]) -> None:
        """Record what retrieval returned, best first; an empty iterable records an empty retrieval."""
        items = [_as_json(_as_context(index, context))
                 for index, context in enumerate(_not_text("contexts", contexts))]
        self._step("retrieval", {convention.CONTEXTS: json.dumps(items, ensure_ascii=False)})

    def answered(self, answer: str, *, citations: Iterable[str] | None = None) -> None:
        """Record the generated answer and, if the app knows them, the ids it cites."""
        check_text("answered", "answer", answer)
        self._step("generation", {convention.ANSWER: answer})
        self._span.set_attribute(convention.ANSWER, answer)
        if citations is not None:
            self._span.set_attribute(convention.CITATIONS,
                                     [str(cited) for cited in _not_text("citations", citations)])

    def _step(self, name: str, attributes: dict[str, Any]) -> None:
        now = time.time_ns()
        step = self._tracer.start_span(name, context=trace.set_span_in_context(self._span),
                                       start_time=self._step_start, attributes=attributes)
        step.end(end_time=now)
        self._step_start = now


@contextmanager
def rag_span(question: str, *, pipeline: str | None = None, relevant_ids: Iterable[str] | None = None,
             ground_truth: str | None = None, name: str = "rag",
             tracer_provider: trace.TracerProvider | None = None) -> Iterator[RagSpan]:
    """A span for one RAG request; `tracer_provider` defaults to the global one."""
    # The sidecar reads `ragmon.*` strictly and drops a whole trace over one mistyped value; refusing it
    # here names the culprit in the app, where it can be fixed.
    check_text("rag_span", "question", question)
    check_text("rag_span", "pipeline", pipeline, optional=True)
    check_text("rag_span", "ground_truth", ground_truth, optional=True)
    tracer = trace.get_tracer(__name__, __version__, tracer_provider=tracer_provider)
    attributes: dict[str, Any] = {convention.QUESTION: question}
    if pipeline is not None:
        attributes[convention.PIPELINE] = pipeline
    if relevant_ids is not None:
        attributes[convention.RELEVANT_IDS] = [str(i) for i in _not_text("relevant_ids", relevant_ids)]
    if ground_truth is not None:
        attributes[convention.GROUND_TRUTH] = ground_truth
    with tracer.start_as_current_span(name, attributes=attributes) as span:
        yield RagSpan(tracer, span)


def _not_text(label: str, items: Iterable[Any]) -> Iterable[Any]:
    """A lone string is an iterable too, of its characters: recording those as ids or documents would
    be silently wrong, so it is refused."""
    if isinstance(items, str | bytes):
        raise TypeError(f"{label} must be an iterable of items, not a single {type(items).__name__}")
    return items


def _as_context(index: int, item: ContextLike) -> Context:
    """A Context whose JSON the sidecar will accept (a Context checks its own fields when built)."""
    if isinstance(item, Context):
        return item
    if isinstance(item, str):
        return Context(content_id(item), item)
    if not isinstance(item, Mapping):
        raise TypeError(f"a context is a Context, a mapping or a string, got {type(item).__name__}")
    doc_id, text, score = item.get("id"), item.get("text"), item.get("score")
    metadata = item.get("metadata")
    if doc_id is None and isinstance(metadata, Mapping):
        doc_id = metadata_id(metadata)  # as the sidecar would name it: labels name documents so
    if not isinstance(text, str):
        if text is None:  # a `text` of the wrong type is the mistake, whatever other keys say
            _refuse_misnamed(index, item, "text")
        raise TypeError(f"a context needs a string text, got {item!r:.80}")
    if doc_id is None:
        _refuse_misnamed(index, item, "id")
    doc_id = content_id(text) if doc_id is None else str(doc_id)
    return Context(doc_id, text, None if score is None else _score(score, doc_id))


def _refuse_misnamed(index: int, item: Mapping[Any, Any], field: str) -> None:
    """A key meant as the missing `field` (`doc_id`, `content`) is refused as the sidecar refuses it in a
    `ragmon.contexts` set by hand: only `id`, `text`, `score` and `metadata` are written, so a `doc_id`
    would be dropped silently and the document named by its content hash, which no citation matches."""
    why = convention.misnamed_key(item, field)
    if why is not None:
        raise TypeError(f"contexts[{index}]: {why}")


def _score(score: Any, doc_id: str) -> float:
    """A vector store's score as a float (numpy scalars and numeric strings included), or an error that
    names the document: a bare "could not convert string to float" says neither what nor where."""
    if not isinstance(score, bool):
        with contextlib.suppress(TypeError, ValueError):
            return float(score)
    raise TypeError(f"context {doc_id!r}: score must be a number or None, got {score!r:.40}")


def _as_json(context: Context) -> dict[str, Any]:
    item: dict[str, Any] = {"id": context.id, "text": context.text}
    if context.score is not None:
        item["score"] = context.score
    return item
