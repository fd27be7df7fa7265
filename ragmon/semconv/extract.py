"""One trace in, one Example out (or None for a trace that is not RAG), whichever convention wrote it.

The precedence is DESIGN §5. Conventions are asked about spans, never the other way round: this module
picks the spans that matter (the top chain, the retrievers, the last LLM call) and the convention
readers only decode them, so a trace costs one sort, one role lookup per span and a scan of the few spans
that carry documents, the question or the answer.

Choices the design leaves open, made here:
- "Top" chain: a CHAIN/AGENT/workflow span with no such ancestor (its parent may be an HTTP span of
  another instrumentation). With several, the question comes from the first to start and the answer
  from the last to end (e.g. a condense-question chain followed by the answering chain).
- Documents of one tier from several spans are concatenated in start order, each document (id and
  text) once: chunks sharing an id (LangChain loaders give every chunk of a file its `source`) are
  distinct contexts the model saw, a chunk two retrievers both return is one. A span whose
  ancestor in the same tier already reported documents is skipped (LlamaIndex nests
  `VectorIndexRetriever.retrieve` around `_retrieve`, fusion retrievers wrap their sub-retrievers: the
  outer span holds what the pipeline used). A tier that has spans but no documents means retrieval
  returned nothing (`contexts=()`). A span whose reader finds its documents unrecorded is an error
  unless a span beneath it in the same tier reported documents, which then stand for its own (an
  OpenLLMetry LangChain retriever without content tracing over a vector store's result events).
- LLM spans nested in an LLM span are one call (LlamaIndex `predict` around `chat`/`complete`, LangChain
  around a provider SDK span): the last call is the outermost LLM span that ended last, read from its
  innermost span outwards.
- ragmon.* values found on several spans are taken from the span nearest the root.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Sequence
from typing import TypeVar

from ragmon.model import Context, Example
from ragmon.semconv import genai, openinference, openllmetry, ragmon
from ragmon.semconv.common import ExtractionError, Role, strip_assistant
from ragmon.traces import Span, Trace

__all__ = ["ExtractionError", "extract"]

T = TypeVar("T")
Reader = Callable[[Span], T | None]

_ROLE_READERS = (openinference.role, openllmetry.role, genai.role)
_DOCUMENT_TIERS: tuple[tuple[frozenset[Role] | None, Reader[tuple[Context, ...]]], ...] = (
    (frozenset({Role.RERANKER}), openinference.reranker_documents),
    (frozenset({Role.RETRIEVER}), openinference.retriever_documents),
    (None, genai.documents),
    (None, openllmetry.documents),
    (None, ragmon.documents),
)
"""(the roles of the spans worth asking, or None for every span; reader), highest precedence first."""
_QUERY_READERS = (openinference.retriever_query, genai.retriever_query, openllmetry.retriever_query)
_CHAIN_INPUTS = (openinference.chain_input, openllmetry.chain_input, genai.chain_input)
_CHAIN_OUTPUTS = (openinference.chain_output, openllmetry.chain_output, genai.chain_output)
_LLM_OUTPUTS = (openinference.llm_output, genai.llm_output, openllmetry.llm_output)
_LLM_USER_MESSAGES = (openinference.llm_user_message, genai.llm_user_message)
_CHAINS = frozenset({Role.CHAIN})
_LLMS = frozenset({Role.LLM})
_RETRIEVAL_ROLES = frozenset({Role.RETRIEVER, Role.RERANKER})
_RAG_ROLES = _RETRIEVAL_ROLES | _LLMS
_SERVICE_NAME = "service.name"

_MARKER = re.compile(r"\[([^\[\]\n]{1,200})\]")
_MARKER_SEPARATOR = re.compile(r"\s*[,;]\s*")


def extract(trace: Trace) -> Example | None:
    """The Example a trace describes; None when it has neither retrieval nor generation (not_rag).

    Raises ExtractionError when an attribute that decides the example is malformed."""
    if not trace.spans:
        return None
    view = _View(trace)
    contexts = _contexts(view)
    ragmon_question = view.nearest_root(ragmon.question)
    ragmon_answer = view.nearest_root(ragmon.answer)
    if (contexts is None and ragmon_question is None and ragmon_answer is None
            and not _RAG_ROLES.intersection(view.roles.values())):
        return None
    tops = view.top_chains()
    llm_call = view.last_llm_call()
    answer = _answer(tops, llm_call, ragmon_answer)
    return Example(
        id=trace.trace_id,
        question=_question(view, tops, llm_call, ragmon_question) or "",
        contexts=contexts,
        answer=answer,
        relevant_ids=view.nearest_root(ragmon.relevant_ids),
        citations=_citations(view, answer, contexts),
        ground_truth=view.nearest_root(ragmon.ground_truth),
        pipeline=view.nearest_root(ragmon.pipeline) or _service_name(view, tops),
    )


class _View:
    """The trace as a tree: spans in start order, with each span's role, parent and depth."""

    __slots__ = ("_by_id", "_depths", "_marked", "roles", "spans")

    def __init__(self, trace: Trace) -> None:
        self.spans = sorted(trace.spans, key=lambda s: (s.start_time_unix_nano, s.span_id))
        self._by_id = {span.span_id: span for span in self.spans}
        self.roles = {span.span_id: _role(span) for span in self.spans}
        self._depths: dict[str, int] = {}
        self._marked = [span for span in self.spans if not ragmon.ATTRIBUTES.isdisjoint(span.attributes)]

    def ancestors(self, span: Span) -> Iterator[Span]:
        """Parents within the trace, nearest first; stops at a missing parent or a (malformed) cycle."""
        seen = {span.span_id}
        parent = self._by_id.get(span.parent_span_id or "")
        while parent is not None and parent.span_id not in seen:
            yield parent
            seen.add(parent.span_id)
            parent = self._by_id.get(parent.parent_span_id or "")

    def depth(self, span: Span) -> int:
        depth = self._depths.get(span.span_id)
        if depth is None:
            depth = self._depths[span.span_id] = sum(1 for _ in self.ancestors(span))
        return depth

    def with_role(self, roles: frozenset[Role]) -> list[Span]:
        return [span for span in self.spans if self.roles[span.span_id] in roles]

    def has_ancestor_in(self, span: Span, ids: Container[str]) -> bool:
        return any(parent.span_id in ids for parent in self.ancestors(span))

    def top_chains(self) -> list[Span]:
        chains = {span.span_id: span for span in self.with_role(_CHAINS)}
        return [span for span in chains.values() if not self.has_ancestor_in(span, chains)]

    def last_llm_call(self) -> list[Span]:
        """The spans of the last LLM call, innermost first (see the module docstring)."""
        llms = {span.span_id: span for span in self.with_role(_LLMS)}
        calls: dict[str, list[Span]] = {}
        for span in llms.values():
            outermost = span
            for parent in self.ancestors(span):
                if parent.span_id in llms:
                    outermost = parent
            calls.setdefault(outermost.span_id, []).append(span)
        if not calls:
            return []
        last = max(calls, key=lambda i: (llms[i].end_time_unix_nano, llms[i].start_time_unix_nano))
        return sorted(calls[last], key=lambda s: (-self.depth(s), -s.end_time_unix_nano))

    def nearest_root(self, read: Reader[T]) -> T | None:
        """A ragmon.* value from the span nearest the root that has it (ties: the first to start)."""
        best: tuple[int, int] | None = None
        found: T | None = None
        for order, span in enumerate(self._marked):
            value = read(span)
            if value is not None and (best is None or (self.depth(span), order) < best):
                best, found = (self.depth(span), order), value
        return found


def _role(span: Span) -> Role | None:
    for read in _ROLE_READERS:
        if (role := read(span)) is not None:
            return role
    return None


def _first(spans: Sequence[Span], readers: Sequence[Reader[T]]) -> T | None:
    for span in spans:
        for read in readers:
            if (value := read(span)) is not None:
                return value
    return None


def _contexts(view: _View) -> tuple[Context, ...] | None:
    for roles, read in _DOCUMENT_TIERS:
        candidates = view.spans if roles is None else view.with_role(roles)
        found: list[tuple[Span, tuple[Context, ...]]] = []
        unrecorded: list[openllmetry.UnrecordedDocuments] = []
        for span in candidates:
            try:
                docs = read(span)
            except openllmetry.UnrecordedDocuments as error:
                unrecorded.append(error)
                continue
            if docs is not None:
                found.append((span, docs))
        if unrecorded:
            covered = {parent.span_id for span, _ in found for parent in view.ancestors(span)}
            for unknown in unrecorded:
                if unknown.span_id not in covered:
                    raise unknown
        if found:
            holders = {span.span_id for span, docs in found if docs}
            merged: dict[tuple[str, str], Context] = {}
            for span, docs in found:
                if docs and not view.has_ancestor_in(span, holders):
                    for context in docs:
                        merged.setdefault((context.id, context.text), context)
            return tuple(merged.values())
    return None


def _question(view: _View, tops: list[Span], llm_call: list[Span], fallback: str | None) -> str | None:
    return (_first(tops[:1], _CHAIN_INPUTS)
            or _first(view.with_role(_RETRIEVAL_ROLES), _QUERY_READERS)
            or _first(llm_call, _LLM_USER_MESSAGES)
            or fallback)


def _answer(tops: list[Span], llm_call: list[Span], fallback: str | None) -> str | None:
    last_top = [max(tops, key=lambda s: s.end_time_unix_nano)] if tops else []
    answer = _first(last_top, _CHAIN_OUTPUTS) or _first(llm_call, _LLM_OUTPUTS) or fallback
    return None if answer is None else strip_assistant(answer)


def _citations(view: _View, answer: str | None,
               contexts: tuple[Context, ...] | None) -> tuple[str, ...] | None:
    """Explicit `ragmon.citations`, else markers in the answer: `[doc-id]` naming a retrieved id, `[n]` a
    1-based position among the contexts (in range only); None when neither is present."""
    explicit = view.nearest_root(ragmon.citations)
    if explicit is not None or not answer or not contexts:
        return explicit
    ids = {context.id for context in contexts}
    cited: dict[str, None] = {}
    for match in _MARKER.finditer(answer):
        for token in _MARKER_SEPARATOR.split(match.group(1).strip()):
            if token in ids:
                cited[token] = None
            elif token.isascii() and token.isdigit() and 1 <= int(token) <= len(contexts):
                cited[contexts[int(token) - 1].id] = None
    return tuple(cited) or None


def _service_name(view: _View, tops: list[Span]) -> str | None:
    """The service that ran the pipeline: the top chain's, else the first RAG span's, else any."""
    anchors = tops[:1] + view.with_role(_RAG_ROLES)[:1] + view.spans
    for span in anchors:
        name = span.resource.get(_SERVICE_NAME)
        if isinstance(name, str) and name:
            return name
    return None
