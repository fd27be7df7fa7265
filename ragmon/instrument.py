"""Record a RAG request in ragmon's span convention, for apps without an instrumentation library.

    from ragmon import instrument

    with instrument.rag_span(question, pipeline="support") as rag:
        docs = search(question)
        rag.retrieved(docs)              # Context objects, {"id", "text", "score"} mappings, strings,
                                         # LangChain Documents or LlamaIndex nodes
        answer = generate(question, docs)
        rag.answered(answer, citations=["kb-12"])

`rag_span` opens a span (default name `rag`) carrying `ragmon.question` and `ragmon.pipeline`, and, once
answered, `ragmon.answer` and `ragmon.citations`. Each `retrieved()` records a child span `retrieval` with
`ragmon.contexts` (a JSON list in rank order) and each `answered()` a child span `generation` with
`ragmon.answer`. A child covers the time from the end of the previous step (or the start of the request)
to the call, so a sequential pipeline gets honest step durations without a `with` block per step.
`answered()` takes the whole answer, and a later call replaces it (a retry's answer is what the user
got): a streamed answer is recorded once read, inside the block, as a step recorded after the block
ended is refused (a `RuntimeError`). The block is a plain `with`, in a coroutine too: the span is
current in the task that opened it.
`relevant_ids` and `ground_truth` are for synthetic or labelled traffic, e.g. a replay against a staging
service. An exception inside the block, a cancellation (`asyncio.CancelledError`, `KeyboardInterrupt`,
the `GeneratorExit` of a stream the client stopped reading) too, is recorded on the request span, which is
marked as an error: if no answer was recorded by then, the sidecar counts the trace an error (a failed
request), not as scored.

A context mapping's `id`, `text` and `score` are written (the id may come from its `metadata`, as loaders
put it); a key meant as a missing id or text under another name (`doc_id`, `content`) is refused with the
words the sidecar refuses it with in a hand-set `ragmon.contexts`, and other keys are the app's own.
An id is a string or a whole number, as the sidecar reads one; a blank one is no id, as it reads it too.
One string, mapping or document passed where a list belongs is refused: iterated, it gives its
characters, keys or fields.
A NaN or infinite score is recorded as none, and a lone surrogate in any text as U+FFFD (the exporter
drops an attribute it cannot encode). A value the tracer provider's attribute length limit cuts raises a
RuntimeWarning naming it: the sidecar refuses cut documents and scores a cut answer on what was kept.

A LangChain `Document` or a LlamaIndex `NodeWithScore` or node is read as the sidecar reads the same
document from the OpenInference instrumentors' spans, so that a request scores alike whichever records it:
the text is `page_content`, or `get_content()` (without the metadata); the id is `Document.id` or the
node id, unless blank or a UUID its store assigned, which yield to the metadata's id (`id`, `source`,
`doc_id`), the blank one then to the content hash; the score is a node's `get_score()` (0.0 when unset, as
OpenInference records it) and a LangChain document has none. Neither framework is imported: they are
recognised by those attributes.

Only the OpenTelemetry API is used: the spans go wherever the app's tracer provider exports them (the
ragmon sidecar over OTLP), and without an SDK configured the calls cost next to nothing.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import warnings
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, Protocol

from opentelemetry import trace

from ragmon import __version__
from ragmon.ids import content_id, store_assigned
from ragmon.jsontext import replace_lone_surrogates
from ragmon.model import Context, check_text, numpy_bool, whole
from ragmon.semconv import ragmon as convention
from ragmon.semconv.common import metadata_id


class LangChainDocument(Protocol):
    """What is read of a LangChain `Document` (and its `id`, which older langchain-core lacks)."""

    @property
    def page_content(self) -> str: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...


class LlamaIndexNode(Protocol):
    """What is read of a LlamaIndex `NodeWithScore`, `TextNode` or `Document` (with `get_score()` when it
    has one)."""

    @property
    def node_id(self) -> str: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...

    def get_content(self) -> str: ...


ContextLike = Context | Mapping[str, Any] | str | LangChainDocument | LlamaIndexNode

_APP_FRAME = 3
"""`warnings.warn`'s stacklevel for the app's line calling `retrieved()` or `answered()`: the warning
is shown once per line of the app, not once per request."""


class _Document(NamedTuple):
    """A document checked but not yet named: its content hash is only worth computing for a span that
    records, as a sampled-out request should cost next to nothing."""

    id: str | None
    text: str
    score: float | None

    def as_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"id": self.id or content_id(self.text), "text": self.text}
        if self.score is not None:
            item["score"] = self.score
        return item


class RagSpan:
    """The open request span of `rag_span`; records retrieval and generation steps as children."""

    def __init__(self, tracer: trace.Tracer, span: trace.Span) -> None:
        self._tracer = tracer
        self._span = span
        self._step_start = time.time_ns()
        self._open = True

    @property
    def span(self) -> trace.Span:
        """The underlying OpenTelemetry span, for attributes of the app's own."""
        return self._span

    def retrieved(self, contexts: Iterable[ContextLike]) -> None:
        """Record what retrieval returned, best first; an empty iterable records an empty retrieval."""
        self._check_open("retrieved")
        documents = [_as_document(index, context)
                     for index, context in enumerate(_several("contexts", contexts))]
        attributes = {}
        if self._span.is_recording():  # a request the sampler dropped: its steps are dropped too
            contexts_json = json.dumps([document.as_json() for document in documents],
                                       ensure_ascii=False, allow_nan=False)
            attributes[convention.CONTEXTS] = replace_lone_surrogates(contexts_json)
        self._step("retrieval", attributes)

    def answered(self, answer: str, *, citations: Iterable[str | int] | None = None) -> None:
        """Record the generated answer and, if the app knows them, the ids it cites."""
        self._check_open("answered")
        check_text("answered", "answer", answer)
        attributes: dict[str, Any] = {convention.ANSWER: replace_lone_surrogates(answer)}
        if citations is not None:
            attributes[convention.CITATIONS] = _ids("citations", citations)
        self._step("generation", {convention.ANSWER: attributes[convention.ANSWER]})
        self._span.set_attributes(attributes)
        _warn_if_cut(self._span, attributes)

    def _check_open(self, call: str) -> None:
        """Refuse a step recorded once the block has ended, as a streamed answer's often is: the request
        span was exported without it (citations set on it are dropped), and the sidecar decides the
        trace a `--quiet` after it, counting a later span as late, the request as one that never
        answered."""
        if not self._open:
            raise RuntimeError(f"{call}() was called after its rag_span block ended: record the request's "
                               f"steps inside the block (for a streamed answer, the whole answer once the "
                               f"stream is read)")

    def _step(self, name: str, attributes: Mapping[str, Any]) -> None:
        """A child span from the end of the previous step to now, started with what the step found, as a
        sampler and a processor's on_start see only what a span starts with."""
        now = time.time_ns()
        step = self._tracer.start_span(name, context=trace.set_span_in_context(self._span),
                                       start_time=self._step_start, attributes=attributes)
        _warn_if_cut(step, attributes, stacklevel=_APP_FRAME + 1)
        step.end(end_time=now)
        self._step_start = now


@contextmanager
def rag_span(question: str, *, pipeline: str | None = None, relevant_ids: Iterable[str | int] | None = None,
             ground_truth: str | None = None, name: str = "rag",
             tracer_provider: trace.TracerProvider | None = None) -> Iterator[RagSpan]:
    """A span for one RAG request; `tracer_provider` defaults to the global one."""
    # The sidecar reads `ragmon.*` strictly and drops a whole trace over one mistyped value; refusing it
    # here names the culprit in the app, where it can be fixed.
    check_text("rag_span", "question", question)
    check_text("rag_span", "pipeline", pipeline, optional=True)
    check_text("rag_span", "ground_truth", ground_truth, optional=True)
    check_text("rag_span", "name", name)  # the SDK's exporter drops the whole batch over a span name of 123
    tracer = _tracer(trace.get_tracer_provider() if tracer_provider is None else tracer_provider)
    attributes: dict[str, Any] = {convention.QUESTION: replace_lone_surrogates(question)}
    if pipeline is not None:
        attributes[convention.PIPELINE] = replace_lone_surrogates(pipeline)
    if relevant_ids is not None:
        attributes[convention.RELEVANT_IDS] = _ids("relevant_ids", relevant_ids)
    if ground_truth is not None:
        attributes[convention.GROUND_TRUTH] = replace_lone_surrogates(ground_truth)
    # Started with its attributes: an app's sampler routing on ragmon.pipeline sees them only so. The
    # warning's frames: this generator, then contextlib's __enter__.
    with tracer.start_as_current_span(name, attributes=attributes, record_exception=False,
                                      set_status_on_exception=False) as span:
        _warn_if_cut(span, attributes, stacklevel=_APP_FRAME + 1)
        rag = RagSpan(tracer, span)
        try:
            yield rag
        except BaseException as stopped:
            _record_failure(span, stopped)
            raise
        finally:
            rag._open = False


_TRACERS: weakref.WeakKeyDictionary[trace.TracerProvider, trace.Tracer] = weakref.WeakKeyDictionary()


def _tracer(provider: trace.TracerProvider) -> trace.Tracer:
    """The provider's tracer, got once: the SDK's `get_tracer` changes the warning filters, which makes
    Python forget which warnings it has shown, so a value cut by the attribute length limit was warned of
    on every request rather than once per line of the app. Two threads getting it at once each get one
    (both alike)."""
    tracer = _TRACERS.get(provider)
    if tracer is None:
        tracer = _TRACERS[provider] = trace.get_tracer(__name__, __version__, tracer_provider=provider)
    return tracer


def _record_failure(span: trace.Span, stopped: BaseException) -> None:
    """Mark the request failed, as OpenTelemetry does for an `Exception` only: a request cancelled
    (`asyncio.CancelledError`), interrupted (`KeyboardInterrupt`) or whose streamed answer the client
    stopped reading (`GeneratorExit`) had ended as if it succeeded, and the documents it got to were
    scored as a search endpoint's result."""
    span.record_exception(stopped)
    span.set_status(trace.Status(trace.StatusCode.ERROR, f"{type(stopped).__name__}: {stopped}"))


def _warn_if_cut(span: trace.Span, attributes: Mapping[str, Any], stacklevel: int = _APP_FRAME) -> None:
    """Warn of any of `attributes` the tracer provider's attribute length limit cut on `span`: the
    sidecar refuses a trace whose `ragmon.contexts` was cut, as cut JSON, and scores a cut answer or
    question on what was kept, which no one would otherwise learn from the app."""
    kept = getattr(span, "attributes", None)  # an SDK span's, as its limits left them
    if not isinstance(kept, Mapping):
        return
    for key, value in attributes.items():
        if (cut := _cut_to(value, kept.get(key))) is not None:
            warnings.warn(_cut_warning(key, cut), RuntimeWarning, stacklevel=stacklevel)


def _cut_to(value: object, kept: object) -> int | None:
    """The length `kept` was cut to if it is `value` cut short: a string, or a string of a list of ids (a
    citation cut to the limit names no document)."""
    if isinstance(value, str):
        return len(kept) if isinstance(kept, str) and len(kept) < len(value) else None
    if isinstance(value, list) and isinstance(kept, Sequence) and len(kept) == len(value):
        return next((cut for whole_id, part in zip(value, kept, strict=True)
                     if (cut := _cut_to(whole_id, part)) is not None), None)
    return None


def _cut_warning(key: str, limit: int) -> str:
    """The warning for `key` cut to `limit` characters; without the value's own length, so that Python
    shows it once per line of the app and limit rather than once per request."""
    effect = "the sidecar scores only the part kept"
    if key == convention.CONTEXTS:
        effect = "the sidecar cannot read the cut JSON and counts the trace an error"
    elif key in (convention.CITATIONS, convention.RELEVANT_IDS):
        effect = "an id cut short names no document"
    return (f"{key} was cut to {limit:,} characters by the tracer provider's attribute length limit "
            f"(OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT or SpanLimits): "
            f"{effect}; raise the limit above the longest value recorded")


def _several(label: str, items: Iterable[Any]) -> Iterable[Any]:
    """`items`, unless one item stands where a list belongs. Iterated, a string gives its characters, a
    mapping its keys (a document's "id" and "text" as two documents; qrels' `{id: grade}` every id, those
    graded 0 as relevant too) and a LangChain or LlamaIndex document, a pydantic model, its fields: each
    recorded silently wrong, so they are refused, as is what cannot be iterated at all, in words naming
    the argument."""
    single = isinstance(items, str | bytes | Mapping) or hasattr(items, "page_content") \
        or hasattr(items, "node_id")
    if single or not isinstance(items, Iterable):
        keys = ": iterated, it gives its keys alone" if isinstance(items, Mapping) else ""
        raise TypeError(f"{label} must be an iterable of items, not a single {type(items).__name__}{keys}")
    return items


def _ids(label: str, items: Iterable[Any]) -> list[str]:
    """Ids as the sidecar reads them, strings or whole numbers: `str()` of anything else had recorded
    a missing id as "None", pandas' NaN as "nan" and a float key as "7.0", which name no document."""
    return [replace_lone_surrogates(_id(f"{label}[{index}]", item))
            for index, item in enumerate(_several(label, items))]


def _id(where: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if whole(value):  # numpy's int64 too, a pandas column's
        return str(int(value))
    raise TypeError(f"{where} must be a string or a whole number, got {value!r:.40}")


def _as_document(index: int, item: ContextLike) -> _Document:
    """A document whose JSON the sidecar will accept (a Context checks its own fields when built)."""
    if isinstance(item, Context):
        return _Document(_named(item.id), item.text, _score(item.score, item.id))
    if isinstance(item, str):
        return _Document(None, item, None)
    if not isinstance(item, Mapping):
        return _framework_document(index, item)
    given, text, score = item.get("id"), item.get("text"), item.get("score")
    if not isinstance(text, str):
        if text is None:  # a `text` of the wrong type is the mistake, whatever other keys say
            _refuse_misnamed(index, item, "text")
        raise TypeError(f"contexts[{index}].text must be a string, got {type(text).__name__} {text!r:.40}")
    doc_id = None if given is None else _named(_id(f"contexts[{index}].id", given))
    metadata = item.get("metadata")
    if doc_id is None and isinstance(metadata, Mapping):
        doc_id = metadata_id(metadata)  # as the sidecar would name it: labels name documents so
    if doc_id is None and given is None:  # a blank id is the app's, as the sidecar reads it: no key is
        _refuse_misnamed(index, item, "id")  # then meant for it
    return _Document(doc_id, text, None if score is None else _score(score, doc_id or f"contexts[{index}]"))


def _framework_document(index: int, item: object) -> _Document:
    """A LangChain document or a LlamaIndex node, read as the OpenInference instrumentors record it and
    the sidecar reads that: recorded as anything else, the same retrieval would be named and scored
    differently by the app than by its framework's instrumentation."""
    where = f"contexts[{index}]"
    get_content, get_score = getattr(item, "get_content", None), getattr(item, "get_score", None)
    if hasattr(item, "page_content"):  # LangChain writes a document's content, metadata and `id`
        text, given, score = item.page_content, getattr(item, "id", None), None
        field = "page_content"
    elif hasattr(item, "node_id") and callable(get_content):  # a bare node has no get_score()
        text, given, score = get_content(), item.node_id, get_score() if callable(get_score) else None
        field = "get_content()"
    else:
        raise TypeError(f"a context is a Context, a mapping, a string, a LangChain Document or a LlamaIndex "
                        f"node, got {type(item).__name__}")
    if not isinstance(text, str):
        raise TypeError(f"{where}.{field} must be a string, got {type(text).__name__}")
    doc_id = _framework_id(where, given, getattr(item, "metadata", None))
    return _Document(doc_id, text, _score(score, doc_id or where))


def _framework_id(where: str, given: object, metadata: object) -> str | None:
    """The sidecar's name for a framework's document: its id, unless blank or a UUID its vector store
    assigned (new at each build of the index, so no label or citation names it), which yield to the
    metadata's id; a blank one then to the content hash (None here), a UUID to itself."""
    doc_id = None if given is None else _named(_id(f"{where}.id", given))
    if doc_id is not None and not store_assigned(doc_id):
        return doc_id
    if metadata is not None and not isinstance(metadata, Mapping):
        raise TypeError(f"{where}.metadata must be a mapping, got {type(metadata).__name__}")
    return (metadata_id(metadata) if metadata else None) or doc_id


def _named(doc_id: str) -> str | None:
    """An id that names a document, or None for one that is empty or spaces: the sidecar reads those
    as no id (then the metadata's, else the content hash), so the app must too, or a blank `id` beside
    a metadata `source` would be written alone and the document named by its hash."""
    return doc_id if doc_id.strip() else None


def _refuse_misnamed(index: int, item: Mapping[Any, Any], field: str) -> None:
    """A key meant as the missing `field` (`doc_id`, `content`) is refused as the sidecar refuses it in a
    `ragmon.contexts` set by hand: only `id`, `text`, `score` and `metadata` are written, so a `doc_id`
    would be dropped silently and the document named by its content hash, which no citation matches."""
    why = convention.misnamed_key(item, field)
    if why is not None:
        raise TypeError(f"contexts[{index}]: {why}")


def _score(score: Any, doc_id: str) -> float | None:
    """A vector store's score as a float (numpy scalars and numeric strings included), or an error that
    names the document: a bare "could not convert string to float" says neither what nor where. A NaN or
    infinite score says nothing of rank and has no JSON spelling (`NaN` breaks strict JSON readers of the
    trace), so it is recorded as no score, as the sidecar's capture writes it."""
    if score is None:
        return None
    if not isinstance(score, bool) and not numpy_bool(score):  # numpy's True is no score either
        with contextlib.suppress(TypeError, ValueError, OverflowError):  # 10**400: beyond any double
            number = float(score)
            return number if math.isfinite(number) else None
    raise TypeError(f"context {doc_id!r}: score must be a number or None, got {score!r:.40}")
