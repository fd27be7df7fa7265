"""Spans as ragmon holds them after decoding, and the trace they assemble into.

Attribute values keep their OTLP types: str, bool, int, float, bytes, list (arrayValue) and dict
(kvlistValue). Ids are lowercase hex, the form OTLP/JSON and W3C traceparent use.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SpanEvent:
    name: str
    time_unix_nano: int
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    kind: int = 0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[SpanEvent, ...] = ()
    resource: Mapping[str, Any] = field(default_factory=dict)
    status_code: int = 0
    scope_name: str = ""
    parent_is_remote: bool | None = None
    """From the OTLP span flags (bits 0x100/0x200): True when the parent lives in another process.
    None when the sender does not say (older SDKs, other languages)."""


@dataclass(frozen=True, slots=True)
class Trace:
    """All spans received for one trace id, in arrival order."""

    trace_id: str
    spans: tuple[Span, ...]
    spans_lost: int = 0
    """Spans the trace refused while buffered (over --max-spans-per-trace, or more than --max-buffer holds
    for one trace): what it holds may lack its answer, its documents or its root. A trace with no spans
    and some lost is one whose every span was refused (`Decided.reason` "refused")."""
    named_by: tuple[str, str] | None = None
    """Of a trace whose every span was refused: (`PIPELINE_KEY`, name) or (`SERVICE_KEY`, name), what its
    first refused span was named by (`refused_name`), for its pipeline label; it holds no span to read
    one from, yet the service that sent it is known. None for any other trace, or when neither was."""


@dataclass(frozen=True, slots=True)
class BatchCost:
    """What adding a batch of spans would add to the assembler's buffer as it stands (`Assembler.measure`):
    the traces it would open and the bytes it would hold, before any eviction to make room for them.
    `span_bytes` is each span's `span_footprint`, None where it was not needed (a span of a decided trace),
    for `Assembler.add` to take rather than size the span again."""

    traces: int
    bytes: int
    span_bytes: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Decided:
    """A trace handed on for extraction, and why now: complete, timeout, evicted or drain, or refused (no
    span of it was ever taken: nothing to extract, yet a trace that must be counted); `footprint` is what
    it held of the assembler's byte budget, for a caller that keeps counting it downstream. `first_seen`
    (the assembler's clock) and `refused` are for `Assembler.defer`."""

    trace: Trace
    reason: str
    footprint: int = 0
    first_seen: float = 0.0
    decided_at: float = 0.0
    """When it was decided (the assembler's clock): its deadline, however late `pop_decided` ran (a caller
    busy queueing the traces decided before it), else the eviction or the drain. What the score lag is
    measured from: stamped as each trace was routed, the traces waiting behind a full score queue showed
    none of that wait."""
    refused: bytes = b""
    """The ids of the spans it refused (packed, see `DECIDED_SPAN_IDS`): taken back, it still knows their
    resend for a duplicate, not a second loss."""


def footprint(value: Any) -> int:
    """Bytes a decoded value holds in this process, as the assembler's byte budget counts them.

    Python's sizes, not the wire's: the wire undercounts by up to 64 times (an empty span event is 2
    bytes of protobuf and over 100 here; a string with one emoji takes 4 bytes a character). Shared
    objects (small ints, None, one resource for many traces) are counted at each use: this errs high."""
    size = _sizeof(value)
    kind = type(value)
    if kind in _SCALARS:
        return size
    fields = _RECORDS.get(kind)
    if fields is None:
        if isinstance(value, list | tuple | frozenset):
            return size + _contents(value)
        if kind is dict or isinstance(value, Mapping):
            return size + sum(map(_str_sizeof, value)) + _contents(value.values())
        if isinstance(value, SpanEvent):
            return size + _sizeof(value.name) + _sizeof(value.time_unix_nano) + footprint(value.attributes)
        fields = _RECORDS[kind] = tuple(getattr(kind, "__dataclass_fields__", ()))
    # an Example and its Contexts, which may hold more than the trace they came from
    return size + _contents(getattr(value, name) for name in fields)


_sizeof = sys.getsizeof
_str_sizeof = str.__sizeof__
"""Equal to sys.getsizeof for a str (not tracked by the GC), and three times faster: keys are strs."""
_SCALARS = frozenset({str, bytes, int, float, bool, type(None)})
_RECORDS: dict[type, tuple[str, ...]] = {}
"""The fields `footprint` counts of each type that is none of the containers it knows (none for a type
that is no dataclass), found once a type rather than by checking the value against each container, one of
them an abstract class, Mapping."""


def _contents(values: Iterable[Any]) -> int:
    """Attribute values and a record's fields are mostly strings, sized by the fast path, or other
    scalars, sized without a call of `footprint` each."""
    size = 0
    for value in values:
        kind = type(value)
        size += (_str_sizeof(value) if kind is str else _sizeof(value) if kind in _SCALARS
                 else footprint(value))
    return size


def span_footprint(span: Span) -> int:
    """`footprint` of a span without its resource: spans of one request share one resource dict
    (ragmon.otlp.decode), which the assembler counts once per trace and request instead. The span's
    place in its trace's list and id set is counted as _SLOT_BYTES."""
    strs = _str_sizeof(span.trace_id) + _str_sizeof(span.span_id) + _str_sizeof(span.name)
    return (_sizeof(span) + _SLOT_BYTES + strs + _sizeof(span.parent_span_id) + _sizeof(span.scope_name)
            + _sizeof(span.start_time_unix_nano) + _sizeof(span.end_time_unix_nano)
            + footprint(span.attributes) + footprint(span.events))


_SLOT_BYTES = 48
"""A list slot (8 bytes) and a set entry (16, at most 60% full: ~27) per buffered span, rounded up."""
_TRACE_BYTES = 400
"""A buffered trace's own objects: its _Pending, lists, id set, heap entry and place in the table (measured
with tracemalloc: ~360 bytes)."""


# A span of these kinds whose parent we never see is the process's entry point (the parent lives in the
# caller: traceparent from a client, a message producer), so it can end a trace like a parentless root.
_ENTRY_KINDS = frozenset({2, 5})  # SERVER, CONSUMER
_HEAP_SLACK = 64
"""Stale heap entries tolerated beyond one per buffered trace before the heap is rebuilt."""
DECIDED_SPAN_IDS = 64
"""Span ids remembered per decided trace, to tell an exporter's resend ("duplicate") from a span the trace
never had ("late"). A RAG request is 9 spans under OpenInference's LangChain instrumentation and 14 under
LlamaIndex's (tests/instrumented_apps.py), a few more with the web framework's and HTTP client's: 64 holds
such a trace whole several times over. Each id is remembered by its lower 32 bits, packed as raw bytes
after one for what decided the trace (`DECIDED_BY`): 4 bytes a span, 257 a trace at most: a decided trace
is remembered in ~196 bytes with 3 spans, ~224 with 10 and ~440 with 64 or more (tracemalloc,
benchmarks/decided_memory.py; ~150 for its id alone), so the 4 x 20,000 remembered by default
hold 15-17 MiB of such traces and 34 MiB at most. A span the trace never had reads as a resend only when
its lower 32 bits equal one of at most 64 others' (1 in 67 million), which would hide one lost span."""
_SPAN_ID_BYTES = 4
_SPAN_ID_HEX = 2 * _SPAN_ID_BYTES
_MAX_PACKED = DECIDED_SPAN_IDS * _SPAN_ID_BYTES


DECIDED_BY = ("quiet", "decision_wait", "max_traces", "max_buffer", "drain")
"""What decided a trace, as `Assembler.decided_by` tells it: --quiet after its root ended, --decision-wait
after its first span, eviction from a buffer full of --max-traces traces or of --max-buffer bytes, or the
drain at shutdown. A late span's log line names the one rule and the setting to raise: told both rules, a
user whose trace --quiet had decided raised --decision-wait, which changed nothing. Remembered as its index,
one byte before a decided trace's span ids (`_remember`)."""
_QUIET, _DECISION_WAIT, _MAX_TRACES, _MAX_BUFFER, _DRAIN = (bytes([n]) for n in range(len(DECIDED_BY)))


def _packed(span_id: str) -> bytes:
    return bytes.fromhex(span_id[-_SPAN_ID_HEX:])


def _packed_with(packed: bytes, span_id: bytes) -> bytes:
    """`packed` and `span_id`, up to DECIDED_SPAN_IDS ids: past them a resend reads as a loss again."""
    return packed + span_id if len(packed) < _MAX_PACKED else packed


def _refused_again(refused: bytes, span_id: str) -> bool:
    """Whether `span_id` is one of the `refused` (packed): its trace refused it before, this is a resend."""
    return bool(refused) and _packed_holds(refused, _packed(span_id))


def _packed_holds(packed: bytes, span_id: bytes) -> bool:
    """Whether `span_id` is one of the ids packed end to end in `packed`: a match counts only at an id's
    boundary (the tail of one id and the head of the next are no id)."""
    at = packed.find(span_id)
    while at > 0 and at % _SPAN_ID_BYTES:
        at = packed.find(span_id, at + 1)
    return at >= 0


PIPELINE_KEY = "ragmon.pipeline"
SERVICE_KEY = "service.name"
MAX_NAME_BYTES = 128
"""UTF-8 bytes of a name `refused_name` keeps: the most a label holds (ragmon.exporter.MAX_LABEL_BYTES).
A longer name's label is its start and a hash of all of it, which no part of it remakes, so a name is
kept whole or not at all: a longer one (a prompt sent as ragmon.pipeline by mistake) leaves its trace
`other`."""


def refused_name(span: Span) -> tuple[str, bytes] | None:
    """(`PIPELINE_KEY`, its value) or else (`SERVICE_KEY`, its resource's), as UTF-8: what labels a refused
    span's trace should none of its spans be taken (`Trace.named_by`). None when it has neither, or the one
    it has is over `MAX_NAME_BYTES`. Read leniently, as the sidecar's label is: a value that is no name is
    passed over. Bytes, as up to max_traces of them wait: CPython stores a str at its widest character, so
    one emoji made a name of 128 UTF-8 bytes a str of 576, against 161 as bytes."""
    for key, values in ((PIPELINE_KEY, span.attributes), (SERVICE_KEY, span.resource)):
        name = values.get(key)
        if isinstance(name, str) and name:
            kept = _encoded_if_it_fits(name)
            return None if kept is None else (key, kept)
    return None


def _encoded_if_it_fits(name: str) -> bytes | None:
    """`name` as UTF-8 when at most `MAX_NAME_BYTES`, without encoding a long one to count them. A lone
    surrogate (a JSON sender's escape) counts and comes back as the label's bytes count it
    (ragmon.exporter), not as an error."""
    if len(name) > MAX_NAME_BYTES:
        return None
    encoded = name.encode("utf-8", "surrogatepass")
    return encoded if len(encoded) <= MAX_NAME_BYTES else None


def may_be_local_root(span: Span) -> bool:
    """Exact when the sender sets the remote-parent flag (the Python SDK does); else guess by kind."""
    if span.parent_span_id is None or span.parent_is_remote:
        return True
    return span.parent_is_remote is None and span.kind in _ENTRY_KINDS


class _Pending:
    __slots__ = ("armed_at", "armed_seq", "awaited", "first_seen", "footprint", "last_seen", "lost",
                 "refused", "resource", "roots", "span_ids", "spans", "trace_id")

    def __init__(self, trace_id: str, now: float) -> None:
        self.trace_id = trace_id
        self.first_seen = now
        self.last_seen = now
        self.spans: list[Span] = []
        self.span_ids: set[str] = set()
        self.roots: list[Span] = []
        self.armed_seq = -1
        self.armed_at = 0.0
        self.footprint = 0
        self.resource: Mapping[str, Any] | None = None
        """The last span's resource, counted once for the spans after it that share it (one request's)."""
        self.awaited: frozenset[str] = frozenset()
        """Calls to other services a deferred trace waits for: a root under one of them completes it."""
        self.lost = 0
        """Spans refused as too_many_spans or too_many_bytes (`Trace.spans_lost`)."""
        self.refused = b""
        """Their ids (packed, the first DECIDED_SPAN_IDS): an exporter resending a batch it got no answer
        for in time sends them again, a duplicate, not a second loss. At most 256 bytes a trace, not counted
        in `footprint` (5 MiB over max_traces of 20,000)."""

    def has_local_root(self) -> bool:
        """Judged now, not on arrival: a SERVER span's parent may turn up after it."""
        return any(s.parent_span_id is None or s.parent_span_id not in self.span_ids
                   or s.parent_span_id in self.awaited for s in self.roots)

    def holds(self, span_id: str) -> bool:
        return span_id in self.span_ids

    @property
    def count(self) -> int:
        return len(self.spans)


class _Unopened:
    """A trace none of whose spans was taken yet, only refused (too_many_bytes): `_Pending.lost` and
    `_Pending.refused` until a span of it is taken, when it was first seen, as its decision wait runs from
    then either way, and what its first refused span was named by (`refused_name`), in two slots rather
    than its tuple, which would add 56 bytes to each of up to max_traces."""

    __slots__ = ("first_seen", "lost", "name", "refused", "source")

    def __init__(self, now: float, named_by: tuple[str, bytes] | None) -> None:
        self.first_seen = now
        self.lost = 0
        self.refused = b""
        self.source: str | None = None
        self.name = b""
        if named_by is not None:
            self.source, self.name = named_by

    def named_by(self) -> tuple[str, str] | None:
        """`Trace.named_by`, decoded as `refused_name` encoded it."""
        return None if self.source is None else (self.source, self.name.decode("utf-8", "surrogatepass"))


class _Shadow:
    """A trace as `Assembler.measure` sees it partway through a batch: the buffered trace (`base`, None
    for one the batch would open) and what the batch's spans before would add to it, as `add` would."""

    __slots__ = ("base", "count", "footprint", "open", "refused", "resource", "span_ids")

    def __init__(self, base: _Pending | None, refused: bytes) -> None:
        self.base = base
        self.open = base is not None
        """Whether the trace would be buffered by now: a new trace is opened by its first span taken."""
        self.refused = refused
        """`_Pending.refused`, of a trace not buffered too, and those the batch's spans before would add."""
        self.span_ids: set[str] = set()
        self.count = 0 if base is None else base.count
        self.footprint = 0 if base is None else base.footprint
        self.resource = None if base is None else base.resource

    def holds(self, span_id: str) -> bool:
        return span_id in self.span_ids or (self.base is not None and self.base.holds(span_id))

    def take(self, span: Span, size: int) -> None:
        self.open = True
        self.span_ids.add(span.span_id)
        self.count += 1
        self.footprint += size
        self.resource = span.resource


class Assembler:
    """Groups spans into traces and says when each trace is ready, like the Collector's tail sampler.

    Exporters send spans as they end, children first and often split over batches seconds apart, so a
    trace is only decided `quiet` seconds after its latest span once a local root has arrived, or at
    `decision_wait` after its first span at the latest. A local root is a span without a parent, or one
    whose parent the sender flags as remote (OTLP span flags), or, when the sender says nothing, a
    SERVER/CONSUMER span whose parent is not in the trace. An unflagged INTERNAL span whose parent is
    missing is not one: its parent is usually still in the app's export queue, and treating it as a root
    would decide the trace before the answer arrives; such a trace is decided at `decision_wait`.

    Deadlines live in a heap with one live entry per trace; when a span pushes the deadline later the
    entry is re-armed as it comes due, so each span costs O(1) plus an O(log n) push only when the
    deadline moves earlier. A superseded entry (a root moved the deadline from decision_wait to quiet,
    or the trace was decided or evicted) would otherwise sit in the heap until its old deadline, up to
    decision_wait later: a finished trace gives up its spans at once, and the heap is rebuilt from its
    live entries whenever the stale ones outnumber them, so memory follows max_traces, not the span
    rate times decision_wait. Not thread-safe: one event loop owns it.

    Counts bound the number of traces and spans, not their size: a span may carry a document of
    megabytes, or millions of 2-byte empty events (~130 bytes each once decoded), so max_traces x
    max_spans_per_trace x a request's worth is no memory bound at all. With `max_bytes`, the buffered
    spans' `footprint` is a bound too, like the count: past it the oldest traces are evicted (never the
    one the span belongs to), and a span its trace cannot hold within max_bytes on its own is refused as
    "too_many_bytes", its trace keeping the spans it has (like "too_many_spans") and counting the loss, also
    when the span came before any other of its trace. A trace none of whose spans is taken by
    `decision_wait` after its first is decided all the same, as "refused": every trace id seen is decided
    once.
    """

    def __init__(self, *, quiet: float = 2.0, decision_wait: float = 30.0, max_traces: int = 20_000,
                 max_spans_per_trace: int = 1_000, max_bytes: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._quiet = quiet
        self._wait = decision_wait
        self._max_traces = max_traces
        self._max_spans = max_spans_per_trace
        self._max_bytes = max_bytes
        self._bytes = 0
        self._evicted_bytes = 0
        self._clock = clock
        self._traces: OrderedDict[str, _Pending] = OrderedDict()
        self._heap: list[tuple[float, int, _Pending]] = []
        self._seq = itertools.count()
        self._early: list[Decided] = []
        """Decided before their deadline (evicted, or refused ones `_unopened` had no room left for), until
        the next pop_decided or drain hands them on."""
        self._sized_resource: Mapping[str, Any] | None = None
        self._resource_bytes = 0
        """The last resource `_charge` sized, and its footprint: the spans of one request share one resource
        mapping (ragmon.otlp.decode), sized for each trace they open, once by `measure` and again by `add`
        (a batch of 8,192 traces: 36 ms each). Held, so that its id is never another's."""
        self._decided: OrderedDict[str, bytes] = OrderedDict()
        """The last 4 x max_traces decided trace ids, each with what decided it (`DECIDED_BY`, one byte) and
        its first span ids packed (see _finish)."""
        self._decided_max = 4 * max_traces
        self._unopened: OrderedDict[str, _Unopened] = OrderedDict()
        """Traces not buffered whose spans were refused (too_many_bytes), in the order first seen, which is
        their deadlines' order: for the span that opens the trace to carry the loss as `Trace.spans_lost`
        (the span too large for the buffer is usually a retriever's, whose documents make it large and
        whose exporter sends it before the rest, as it ends first; forgotten, that trace was opened by its
        root and scored without its documents), or else to decide the trace at its decision wait, as
        "refused": counted nowhere, a trace of only such spans went unseen but for its spans' count. At
        most max_traces (tracemalloc: ~300 bytes each with its id and a service name of 11 characters,
        ~670 with 64 refused span ids and a name of `MAX_NAME_BYTES`, emoji or not, as its UTF-8 is kept:
        13 MiB at most with the defaults); past that the oldest is decided at once."""

    @property
    def in_flight(self) -> int:
        return len(self._traces)

    @property
    def decided_early(self) -> int:
        """Traces decided before their deadline (`_early`) that the next pop_decided or drain hands on: out of
        `in_flight` already, and a caller busy elsewhere may not collect them for a while."""
        return len(self._early)

    @property
    def refused_only(self) -> int:
        """Traces seen only in refused spans (`_unopened`), decided "refused" once their decision wait has
        passed: in no other count until then, and each one is a trace taken."""
        return len(self._unopened)

    @property
    def buffered_bytes(self) -> int:
        """The footprint of the buffered spans; counted only with max_bytes (0 without)."""
        return self._bytes

    @property
    def held_bytes(self) -> int:
        """`buffered_bytes` and the footprint of the traces evicted since the last pop_decided or drain:
        out of the budget, but held until handed on, which a caller busy elsewhere may not do for a while."""
        return self._bytes + self._evicted_bytes

    def decided_by(self, trace_id: str) -> str:
        """Which of `DECIDED_BY` decided a trace `add` has just called "late" (one still remembered)."""
        return DECIDED_BY[self._decided[trace_id][0]]

    def add(self, span: Span, span_bytes: int | None = None) -> str:
        """"accepted", "duplicate", "late", "too_many_spans" or "too_many_bytes". `span_bytes`: the span's
        `span_footprint`, when the caller has it from `measure`.

        "duplicate" is a span its trace already has or had, pending, decided or evicted: an exporter
        resends a whole batch whenever one that landed got no answer in time (a timeout, a reset
        connection), often after its traces were decided; nothing is lost. "late" is a span a decided
        trace went on without, and "too_many_spans" or "too_many_bytes" one its trace refused, each counted
        once: its resend is a "duplicate" too. Of a trace only the first `DECIDED_SPAN_IDS` ids of the spans
        it refused are remembered, and once decided its first `DECIDED_SPAN_IDS` span ids in all (refused
        ones first, then those it holds, then late ones): a resent span after those reads as a loss again,
        erring towards reporting one."""
        now = self._clock()
        pending = self._traces.get(span.trace_id)
        if pending is None:
            remembered = self._decided.get(span.trace_id)
            if remembered is not None:
                decided_by, span_ids, packed = remembered[:1], remembered[1:], _packed(span.span_id)
                if _packed_holds(span_ids, packed):
                    return "duplicate"
                # Its id too: its resend is a duplicate.
                self._decided[span.trace_id] = decided_by + _packed_with(span_ids, packed)
                return "late"
        if _refused_again(self._refused_of(span.trace_id, pending), span.span_id):
            return "duplicate"
        size = self._charge(span, pending, span_bytes)
        if isinstance(size, str):
            if size != "duplicate":
                self._count_loss(span, pending, now)
            return size
        if pending is None:
            pending = self._open(span.trace_id, now)
        if self._max_bytes is not None:
            self._make_room(self._bytes + size - self._max_bytes, pending)
            pending.resource = span.resource
            pending.footprint += size
            self._bytes += size
        pending.spans.append(span)
        pending.span_ids.add(span.span_id)
        pending.last_seen = now
        if may_be_local_root(span):
            pending.roots.append(span)
        due = self._due(pending, bool(pending.roots))
        if pending.armed_seq < 0 or due < pending.armed_at:
            self._arm(pending, due)
        return "accepted"

    def measure(self, spans: Sequence[Span]) -> BatchCost:
        """What `add`ing `spans`, in this order, would add to the buffer now: the traces they would open and
        the bytes they would hold (0 without max_bytes), before any eviction to make room. Spans `add`
        would refuse (duplicate, late, too_many_spans, too_many_bytes) add nothing. Changes nothing: for a
        caller that decides whether to take a request whole (back-pressure) before anything of it is
        buffered, so that taking it evicts nothing."""
        shadows: dict[str, _Shadow] = {}
        span_bytes: list[int | None] = []
        traces = added = 0
        for span in spans:
            shadow = shadows.get(span.trace_id)
            if shadow is None:
                pending = self._traces.get(span.trace_id)
                if pending is None and span.trace_id in self._decided:  # late, or a resend: adds nothing
                    span_bytes.append(None)
                    continue
                shadow = shadows[span.trace_id] = _Shadow(pending, self._refused_of(span.trace_id, pending))
            own = None if self._max_bytes is None else span_footprint(span)
            span_bytes.append(own)
            if _refused_again(shadow.refused, span.span_id):
                continue
            size = self._charge(span, shadow if shadow.open else None, own)
            if isinstance(size, str):
                if size != "duplicate":
                    shadow.refused = _packed_with(shadow.refused, _packed(span.span_id))
                continue
            traces += not shadow.open
            added += size
            shadow.take(span, size)
        return BatchCost(traces, added, tuple(span_bytes))

    def _charge(self, span: Span, trace: _Pending | _Shadow | None, span_bytes: int | None) -> int | str:
        """The bytes `span` adds to its trace (`trace`, None for a trace it would open; 0 without
        max_bytes), or why the trace refuses it: "duplicate", "too_many_spans" or "too_many_bytes". One
        rule for `add` and `measure`, so that what a batch was measured to add is what adding it adds."""
        if trace is not None:
            if trace.holds(span.span_id):
                return "duplicate"
            if trace.count >= self._max_spans:
                return "too_many_spans"
        if self._max_bytes is None:
            return 0
        size = span_footprint(span) if span_bytes is None else span_bytes
        if trace is None:
            size += _TRACE_BYTES + self._resource_footprint(span.resource)
        elif span.resource is not trace.resource:
            size += self._resource_footprint(span.resource)
        if size + (0 if trace is None else trace.footprint) > self._max_bytes:
            return "too_many_bytes"
        return size

    def _resource_footprint(self, resource: Mapping[str, Any]) -> int:
        if resource is not self._sized_resource:
            self._sized_resource, self._resource_bytes = resource, footprint(resource)
        return self._resource_bytes

    def pop_decided(self, now: float | None = None) -> list[Decided]:
        """Traces whose deadline has passed, plus those evicted since the last call."""
        now = self._clock() if now is None else now
        out, self._early, self._evicted_bytes = self._early, [], 0
        out.extend(self._refused_due(now))
        heap = self._heap
        while heap and heap[0][0] <= now:
            _, seq, pending = heapq.heappop(heap)
            if seq != pending.armed_seq:
                continue  # superseded by an earlier deadline, or its trace was evicted
            complete = pending.has_local_root()
            due = self._due(pending, complete)
            if due > now:
                self._arm(pending, due)
                continue
            del self._traces[pending.trace_id]
            rooted_in_time = pending.last_seen + self._quiet <= pending.first_seen + self._wait
            if complete and rooted_in_time:
                out.append(self._finish(pending, "complete", due, _QUIET))
            else:
                out.append(self._finish(pending, "timeout", due, _DECISION_WAIT))
        return out

    def defer(self, decided: Decided, awaited: frozenset[str] = frozenset()) -> bool:
        """Take back a trace just decided, to wait for more of it until `decision_wait` after its first
        span; only a root that arrives from now on decides it sooner (`quiet` after its last span): the
        caller's, or a callee's under one of the `awaited` spans (calls the trace made to other services).

        For a trace whose local root's parent is in another process that may send its spans here too
        (the Collector gateway of the scale-out shape routes every service's spans of a trace to one
        ragmon): the service called first, a retriever say, ends first, so its exporter often sends its
        part seconds before the caller's, answer included, and its root closed the trace on its own. The
        caller judges when (`Sidecar`: when the part holds no whole RAG answer). A trace of three services
        or more may be taken back once per part that comes (a gateway's, then the RAG service's, waiting
        for its retriever's): each time only until `decision_wait` after its first span, so it is held no
        longer than a trace with no root. False, taking nothing back, once that has passed."""
        now = self._clock()
        trace_id = decided.trace.trace_id
        if now >= decided.first_seen + self._wait or trace_id in self._traces:
            return False
        self._decided.pop(trace_id, None)
        pending = self._open(trace_id, decided.first_seen)
        pending.awaited = awaited
        pending.last_seen = now
        pending.spans = list(decided.trace.spans)
        pending.span_ids = {span.span_id for span in pending.spans}
        pending.lost += decided.trace.spans_lost
        pending.refused = decided.refused
        if self._max_bytes is not None:
            self._make_room(self._bytes + decided.footprint - self._max_bytes, pending)
            pending.footprint = decided.footprint
            self._bytes += decided.footprint
        self._arm(pending, decided.first_seen + self._wait)
        return True

    def drain(self) -> list[Decided]:
        """Everything still buffered, for shutdown."""
        out, self._early, self._evicted_bytes = self._early, [], 0
        now = self._clock()
        out.extend(self._finish(pending, "drain", now, _DRAIN) for pending in self._traces.values())
        for trace_id, unopened in self._unopened.items():
            out.append(self._finish_unopened(trace_id, unopened, now, _DRAIN))
        self._unopened.clear()
        self._traces.clear()
        self._heap.clear()
        return out

    def next_deadline(self) -> float | None:
        """When pop_decided may next have work (possibly early, never late); None when idle."""
        if self._early:
            return self._clock()
        heap = self._heap
        while heap and heap[0][1] != heap[0][2].armed_seq:
            heapq.heappop(heap)
        dues = [heap[0][0]] if heap else []
        if self._unopened:
            dues.append(next(iter(self._unopened.values())).first_seen + self._wait)
        return min(dues, default=None)

    def _open(self, trace_id: str, first_seen: float) -> _Pending:
        """Buffer a trace, evicting the oldest at max_traces; it takes the losses it had before it opened,
        and their first sighting: its decision wait has run since."""
        if len(self._traces) >= self._max_traces:
            self._evict(self._traces.popitem(last=False)[1], _MAX_TRACES)
        unopened = self._unopened.pop(trace_id, None)
        if unopened is not None:
            first_seen = unopened.first_seen
        pending = self._traces[trace_id] = _Pending(trace_id, first_seen)
        if unopened is not None:
            pending.lost, pending.refused = unopened.lost, unopened.refused
        return pending

    def _refused_of(self, trace_id: str, pending: _Pending | None) -> bytes:
        """The ids of the spans a trace refused (packed), buffered (`pending`) or not yet."""
        if pending is not None:
            return pending.refused
        unopened = self._unopened.get(trace_id)
        return b"" if unopened is None else unopened.refused

    def _count_loss(self, span: Span, pending: _Pending | None, now: float) -> None:
        """A refused span is a loss to its trace, buffered or not yet (`_unopened`)."""
        lost: _Pending | _Unopened | None = pending
        if lost is None:
            lost = self._unopened.get(span.trace_id)
        if lost is None:
            lost = self._unopened[span.trace_id] = _Unopened(now, refused_name(span))
            if len(self._unopened) > self._max_traces:
                trace_id, oldest = self._unopened.popitem(last=False)
                self._early.append(self._finish_unopened(trace_id, oldest, now, _MAX_TRACES))
        lost.lost += 1
        lost.refused = _packed_with(lost.refused, _packed(span.span_id))

    def _refused_due(self, now: float) -> list[Decided]:
        """The traces of only refused spans whose decision wait has passed (`_unopened` is in due order)."""
        out = []
        unopened = self._unopened
        while unopened:
            trace_id, oldest = next(iter(unopened.items()))
            due = oldest.first_seen + self._wait
            if due > now:
                break
            del unopened[trace_id]
            out.append(self._finish_unopened(trace_id, oldest, due, _DECISION_WAIT))
        return out

    def _finish_unopened(self, trace_id: str, unopened: _Unopened, at: float, decided_by: bytes) -> Decided:
        self._remember(trace_id, decided_by, unopened.refused)
        trace = Trace(trace_id, (), unopened.lost, unopened.named_by())
        return Decided(trace, "refused", 0, unopened.first_seen, at, unopened.refused)

    def _due(self, pending: _Pending, rooted: bool) -> float:
        timeout = pending.first_seen + self._wait
        return min(timeout, pending.last_seen + self._quiet) if rooted else timeout

    def _arm(self, pending: _Pending, due: float) -> None:
        pending.armed_seq = seq = next(self._seq)
        pending.armed_at = due
        heap = self._heap
        heapq.heappush(heap, (due, seq, pending))
        if len(heap) > 2 * len(self._traces) + _HEAP_SLACK:
            # In place: pop_decided holds a reference to this list while it re-arms.
            heap[:] = [entry for entry in heap if entry[1] == entry[2].armed_seq]
            heapq.heapify(heap)

    def _make_room(self, excess: int, keep: _Pending) -> None:
        """Evict the oldest traces but `keep` until `excess` bytes are freed. `add` has checked that
        `keep` fits on its own, so the others always free enough."""
        if excess <= 0:
            return
        victims = []
        for pending in self._traces.values():
            if pending is not keep:
                victims.append(pending)
                excess -= pending.footprint
                if excess <= 0:
                    break
        for pending in victims:
            del self._traces[pending.trace_id]
            self._evict(pending, _MAX_BUFFER)

    def _evict(self, pending: _Pending, limit: bytes) -> None:
        decided = self._finish(pending, "evicted", self._clock(), limit)
        self._early.append(decided)
        self._evicted_bytes += decided.footprint

    def _finish(self, pending: _Pending, reason: str, at: float, decided_by: bytes) -> Decided:
        trace = Trace(pending.trace_id, tuple(pending.spans), pending.lost)
        decided = Decided(trace, reason, pending.footprint, pending.first_seen, at, pending.refused)
        self._bytes -= pending.footprint
        pending.footprint, pending.resource = 0, None
        pending.armed_seq = -1  # its heap entry, if any, is now stale
        # Arrival order, not the id set's: a trace over the bound remembers its first spans, as `add` says.
        # Of a trace that refused spans too (over --max-spans-per-trace), half the ids are its first refused
        # and half its first kept, where it has more of both: the refused alone had filled them, and the
        # resend of a whole batch read its kept spans, the root first, as late.
        first = bytes.fromhex("".join([s.span_id[-_SPAN_ID_HEX:] for s in pending.spans[:DECIDED_SPAN_IDS]]))
        refused = pending.refused[:max(_MAX_PACKED // 2, _MAX_PACKED - len(first))]
        self._remember(pending.trace_id, decided_by, (refused + first)[:_MAX_PACKED])
        pending.spans, pending.span_ids, pending.roots = [], set(), []  # a stale entry may still point here
        return decided

    def _remember(self, trace_id: str, decided_by: bytes, span_ids: bytes) -> None:
        """A decided trace, for `add` to tell its spans' resends from late spans, and what decided it (one
        of `DECIDED_BY`, a byte before them) for the late ones' log line."""
        self._decided[trace_id] = decided_by + span_ids
        if len(self._decided) > self._decided_max:
            self._decided.popitem(last=False)
