"""The sidecar's Prometheus contract (DESIGN §7), on a registry of its own.

Counters are the source of truth: they sum across pods and windows chosen at query time. The window
gauges only serve single-pod views, and a window without examples has no series at all, because an
undefined ratio is not zero. Labels carry bounded identifiers only (pipeline, judge, verdict, metric,
outcome, reason); a trace id travels as an exemplar, never as a label.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar, cast

import prometheus_client
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from ragmon import __version__
from ragmon.baseline import rounded
from ragmon.logs import MAX_FIELD, clip
from ragmon.model import METRIC_NAMES, ExampleResult
from ragmon.otlp.misdirected import SIGNALS
from ragmon.report.text import readable
from ragmon.rules import SCORING_RULES

TRANSPORTS = ("http", "grpc")
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")
VERDICTS = ("supported", "unsupported")
JUDGE_OUTCOMES = ("ok", "cached", "error", "timeout", "rate_limited", "throttled", "over_budget")
"""`cached`: judged with no call (every verdict from the judge's cache, or none needed: no claims, no
documents); apart from `ok`, which is a call that succeeded, so that answers repeated and cached cannot
dilute the share of calls failing (RagmonJudgeErrors), nor zero-second "calls" the duration's."""
REJECT_REASONS = ("invalid", "decode_error", "too_large", "unauthorized", "backpressure", "duplicate", "late",
                  "too_many_spans", "too_many_bytes")
"""The receivers' refusals (ragmon.otlp.sink) and the assembler's drops; each gets a zero series at start."""
CAPTURE_OUTCOMES = ("written", "duplicate", "too_large", "backlog", "error")
"""What became of an example selected by `--capture` (ragmon.capture)."""

LIVE_METRICS = ("groundedness", "hallucination_rate", "citation_accuracy", "citation_coverage",
                "context_utilisation", "answer_relevance")
"""The per-example metrics live traffic can have: those that need no labels (ragmon.relevant_ids,
ragmon.ground_truth), only an answer, its documents and claims, and the citations the answer makes. Their
score histograms are pre-created with a pipeline's other series: rate() and increase() never count a
series' first sample, so without them each pipeline's first score after a start would be in no rule,
panel or alert. The labelled ones (hit_rate, recall, answer_correctness, abstention...) are left to
appear with their first score: live traffic never has them, and 15 zero series each would be dead."""
SCORE_BUCKETS = (*(round(i / 10, 1) for i in range(10)), 0.99, 1.0)
"""0..1 by 0.1, plus 0.99: most healthy examples score exactly 1.0, and without a bound just below it
histogram_quantile interpolates them across (0.9, 1.0] (all-1.0 read p50 0.95); now they read 0.995."""
JUDGE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                 5.0, 10.0, 30.0)
"""From a lexical judge's tenths of a millisecond to an LLM judge's seconds."""
LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
OTHER_PIPELINE = "other"
UNKNOWN_PIPELINE = "unknown"
RESERVED_PIPELINES = (OTHER_PIPELINE, UNKNOWN_PIPELINE)
"""Label values with a meaning of their own (everything unlabelled, no name at all): not listable."""
MAX_PIPELINES = 20
MAX_LABEL_BYTES = 128
"""Bytes of UTF-8 in a pipeline label, the unit of Prometheus' `label_value_length_limit` (Go's len()):
one value past that limit fails the whole scrape, and every ragmon series with it. The limit is off by
default and set per site, so the bound sits well below any setting that still lets a readable name
through (Grafana Cloud's is 2048). The label also repeats on every series of its pipeline, about 200 a
judge: a 100 KB name would add 20 MB to each scrape. Fixed, not a flag: every replica must give a name
the same label."""
HASH_HEX = 12
"""Hex digits of SHA-256 in a shortened label: 48 bits tell apart the long names that start alike."""
_SHORTENED = re.compile(rf"~[0-9a-f]{{{HASH_HEX}}}\Z")
"""How every shortened label ends. A name that ends so is shortened too, though it fits: kept as it is, a
name spelled like another name's shortened label would share its series."""
WINDOW_SLOTS = 60

log = logging.getLogger("ragmon.exporter")

T = TypeVar("T")


def pipeline_label_of(name: str) -> str:
    """A pipeline name as a label value: the name itself when it has at most `MAX_LABEL_BYTES` bytes of
    UTF-8, no control or invisible character (`_blanked`), does not end as a shortened label does ("~"
    and `HASH_HEX` lowercase hex digits) and is not reserved (`RESERVED_PIPELINES`); else its start, "~"
    and the first `HASH_HEX` hex digits of the SHA-256 of its UTF-8 bytes, the same in every replica and
    process (unlike `hash()`).

    The start is the name with each control or invisible character as a space, cut to the 115 bytes left
    at a character boundary, spaces trimmed at both ends: enough to recognise a name, or the prompt sent
    as one by mistake. Whatever the name's size, only the hash reads all of it.

    So distinct names never share a label: a name kept as it is never ends as a shortened label does, and
    two shortened names share one only when their starts and 48 bits of their hashes agree. That is why a
    name that fits is shortened all the same when it ends so: `"x" * 115 + "~" + <12 hex digits>`, spelled
    like the label of `"x" * 200`, is exported as `"x" * 115`, "~" and 12 hex digits of its own SHA-256.
    And why a service named `other` or `unknown` is: kept, it would be counted with every pipeline past the
    cap, or with the traces that name none."""
    if fits_as_label(name) and not _SHORTENED.search(name) and name not in RESERVED_PIPELINES:
        return name
    room = MAX_LABEL_BYTES - 1 - HASH_HEX
    start = _blanked(name[:room]).encode()[:room].decode("utf-8", "ignore").strip(" ")
    return f"{start}~{hashlib.sha256(_utf8(name)).hexdigest()[:HASH_HEX]}"


def fits_as_label(value: str) -> bool:
    """Whether `value` can be a label value as it stands (`MAX_LABEL_BYTES` bytes at most, nothing
    `_blanked`): what an allow-list may hold. Not whether a name is its own label (`pipeline_label_of`): a
    listed value that ends in "~" and 12 hex digits is the shortened label it looks like, listed for the
    long name it is made from."""
    return (len(value) <= MAX_LABEL_BYTES and len(_utf8(value)) <= MAX_LABEL_BYTES
            and _blanked(value) == value)


def _blanked(text: str) -> str:
    """`text` with each character the reports escape (ragmon.report.text) as a space: a control character
    (a raw carriage return or terminal escape would reach every scraper and terminal); a lone surrogate
    (no UTF-8 encoding: in a label it fails every scrape); and the invisible ones and look-alikes (format
    and private-use characters, separators but the space), which Grafana shows as nothing or as something
    else, so a name holding one would look like another name and be a series apart (a zero-width space, a
    no-break space, a line separator) or reorder its legend (a bidi control). A joiner between two letters
    or emoji that are not ASCII is kept, as the reports keep it: it spells them.

    A code point this Python's Unicode does not assign yet is kept too, though the reports escape it: a
    later version may make it a printable emoji, and a name's label must not change with the Python a
    replica runs on."""
    if text.isprintable():
        return text
    return "".join(char if shown == char or unicodedata.category(char) == "Cn" else " "
                   for char, shown in zip(text, readable(text), strict=True))


def _utf8(name: str) -> bytes:
    """`surrogatepass`: a lone surrogate (see `_blanked`) gets a label like any name, not an error."""
    return name.encode("utf-8", "surrogatepass")


def _log_shortened(name: str, label: str, origin: Mapping[str, str]) -> None:
    """One line per shortened label, when it is made: a label is never dropped and at most `max_pipelines`
    are made, so the lines are bounded without a `LineLimit`. The app's owner needs the name's start, its
    size and where it came from to fix it; the label is what dashboards show meanwhile."""
    fields = {"pipeline": label, "name_bytes": len(_utf8(name)),
              "name_start": clip(_blanked(name[:MAX_FIELD])), **origin}
    log.warning("pipeline name exported under a shortened label (over %d bytes, control or invisible "
                "characters, ending in '~' and %d hex digits, or a reserved label: %s)", MAX_LABEL_BYTES,
                HASH_HEX, " or ".join(RESERVED_PIPELINES), extra=fields)


def _log_overflow(name: str, cap: int, origin: Mapping[str, str]) -> None:
    """Said once, when the first pipeline finds every label taken: from then on each new pipeline is
    counted under `other` (and in `ragmon_pipeline_overflow_total`), where no dashboard can tell it from
    the others; a line per name would be as unbounded as the names."""
    fields = {"max_pipelines": cap, "name_start": clip(_blanked(name[:MAX_FIELD])), **origin}
    log.warning("--max-pipelines %d reached: this pipeline and every new one after it are counted under "
                "pipeline=%r (ragmon_pipeline_overflow_total counts their traces); list the pipelines to "
                "keep apart with --pipelines, or raise --max-pipelines", cap, OTHER_PIPELINE, extra=fields)


def _check_listable(names: Sequence[str]) -> None:
    """Refuses an allow-list that cannot do what it says: a reserved or empty name, or a name that cannot
    be a label (it would match nothing; its label, listed instead, matches it). What is listed are labels:
    one ending in "~" and 12 hex digits is the shortened label it looks like, which the long name it was
    made from is exported under (a name sent spelled like it gets a label of its own, and is not this)."""
    refused = [name for name in names if not name or name in RESERVED_PIPELINES]
    if refused:
        raise ValueError(f"pipeline names that cannot be listed: {refused}")
    relabelled = {clip(name): pipeline_label_of(name) for name in names if not fits_as_label(name)}
    if relabelled:
        raise ValueError(f"pipeline names that are no label as they stand; list their labels: {relabelled}")


_UNITS = 2**60
"""Groundedness is summed in whole units of 2^-60, exactly: a float running sum made three answers at 0.7
a window mean of 0.6999999999999998, which an alert or panel threshold at 0.7 takes as below it, while
`replay --gate groundedness=0.7` held on the same answers. A float in [2^-7, 1] is a whole number of units;
a smaller one is rounded to one, off by half a unit (2^-61) at most."""


class _Ring:
    """Groundedness sums (in `_UNITS`) and counts of one (pipeline, judge) in time buckets: O(1) per
    observation.

    Bucket `index` covers [index * width, (index + 1) * width); a slot is reused (and reset) when the
    clock reaches a bucket `slots` later, so memory stays fixed whatever the traffic.
    """

    __slots__ = ("counts", "stamps", "sums")

    def __init__(self, slots: int) -> None:
        self.stamps = [-1] * slots
        self.sums = [0] * slots
        self.counts = [0] * slots

    def add(self, index: int, value: float) -> None:
        slot = index % len(self.stamps)
        if self.stamps[slot] != index:
            self.stamps[slot] = index
            self.sums[slot] = 0
            self.counts[slot] = 0
        self.sums[slot] += round(value * _UNITS)
        self.counts[slot] += 1

    def total(self, index: int) -> tuple[int, int]:
        oldest = index - len(self.stamps) + 1
        total, count = 0, 0
        for stamp, value, n in zip(self.stamps, self.sums, self.counts, strict=True):
            if oldest <= stamp <= index:
                total += value
                count += n
        return total, count


class WindowCollector:
    """Window means of groundedness per (pipeline, judge), computed at scrape time.

    The window is the current bucket plus the `slots - 1` before it, so it spans between
    (slots - 1) / slots and all of `window` seconds: a 5 m window forgets in 5 s steps.
    """

    def __init__(self, window: float, clock: Callable[[], float] = time.monotonic,
                 slots: int = WINDOW_SLOTS) -> None:
        if window <= 0:
            raise ValueError("window must be positive")
        self._width = window / slots
        self._slots = slots
        self._clock = clock
        self._rings: dict[tuple[str, str], _Ring] = {}
        self._lock = threading.Lock()

    def _index(self) -> int:
        return int(self._clock() // self._width)

    def observe(self, pipeline: str, judge: str, groundedness: float) -> None:
        with self._lock:
            ring = self._rings.get((pipeline, judge))
            if ring is None:
                ring = self._rings[(pipeline, judge)] = _Ring(self._slots)
            ring.add(self._index(), groundedness)

    def describe(self) -> Iterable[Metric]:
        return self._families()

    def collect(self) -> Iterable[Metric]:
        grounded, hallucinated, examples = self._families()
        index = self._index()
        with self._lock:
            totals = [(key, ring.total(index)) for key, ring in self._rings.items()]
        for (pipeline, judge), (total, count) in totals:
            if count == 0:
                continue
            labels = [pipeline, judge]
            # Each correctly rounded from the exact sum, then to the 12 decimals a gate compares at:
            # 1 - 0.7 is 0.30000000000000004, over an alert's `> 0.3`.
            grounded.add_metric(labels, rounded(total / count / _UNITS))
            hallucinated.add_metric(labels, rounded((count * _UNITS - total) / count / _UNITS))
            examples.add_metric(labels, count)
        return [grounded, hallucinated, examples]

    @staticmethod
    def _families() -> list[GaugeMetricFamily]:
        labels = ["pipeline", "judge"]
        return [
            GaugeMetricFamily("ragmon_groundedness_ratio",
                              "Mean groundedness of the examples scored in the window", labels=labels),
            GaugeMetricFamily("ragmon_hallucination_ratio",
                              "1 - mean groundedness of the examples scored in the window", labels=labels),
            GaugeMetricFamily("ragmon_window_examples",
                              "Examples with a defined groundedness in the window", labels=labels),
        ]


class LoopReadings:
    """What a /metrics page shows of the event loop's state, read at one instant on the loop. A page is built
    on a thread of its own (ragmon.service), and the figures that add up to the traces taken
    (`ragmon_traces_total` + `ragmon_traces_in_flight` + `ragmon_traces_waiting` +
    `ragmon_traces_refused_pending` + the first judge's queue depth and examples in progress) were read at
    two instants: the gauges on the loop, the counters later on that thread, so a trace counted under an
    outcome in between was in both (under load, 22 of 48 pages showed 1 to 11 traces more than were
    taken). Some gauges also walk dicts the loop changes (a lexical pool's workers over their share, a
    budget's open reservations) or change state themselves (a budget rolls over at midnight UTC): read on
    the page's thread they would race the loop.

    So the page's thread reads the values `take` read on the loop as its build began; any other reader
    (the registry read on the loop itself) reads them live. Each reading must cost the loop next to
    nothing: a page with 100 pipelines takes a quarter of a second or more to build."""

    def __init__(self) -> None:
        self._reads: list[Callable[[], object]] = []
        self._taken = threading.local()

    def wrap(self, read: Callable[[], T]) -> Callable[[], T]:
        """`read`, as the page reads it (for `Gauge.set_function`, or a collector's own)."""
        index = len(self._reads)
        self._reads.append(read)

        def reading() -> T:
            taken: list[object] | None = getattr(self._taken, "values", None)
            return read() if taken is None else cast(T, taken[index])

        return reading

    def take(self) -> list[object]:
        """On the loop."""
        return [read() for read in self._reads]

    @contextmanager
    def frozen(self, taken: list[object]) -> Iterator[None]:
        """The calling thread reads `taken` meanwhile."""
        self._taken.values = taken
        try:
            yield
        finally:
            del self._taken.values


class _Tally:
    """A counter family that only the event loop changes, read through `LoopReadings`: a page reads it at
    the instant it reads the gauges and the other tallies it adds up with. A prometheus_client Counter is
    read only by collecting it, a lock and a sample per series; a copy of this dict is what the loop can
    afford on every page (500 series: a few microseconds)."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str],
                 readings: LoopReadings) -> None:
        self._name = name
        self._documentation = documentation
        self._labelnames = list(labelnames)
        self._counts: dict[tuple[str, ...], float] = {}
        self._read = readings.wrap(self._counts.copy)

    def zero(self, *labels: str) -> None:
        """A series from the start: rate() and increase() never count a series' first sample."""
        self._counts.setdefault(labels, 0)

    def inc(self, *labels: str, by: float = 1) -> None:
        self._counts[labels] = self._counts.get(labels, 0) + by

    def describe(self) -> Iterable[Metric]:
        return [self._family()]

    def collect(self) -> Iterable[Metric]:
        family = self._family()
        for labels, count in self._read().items():
            family.add_metric(list(labels), count)
        return [family]

    def _family(self) -> CounterMetricFamily:
        return CounterMetricFamily(self._name, self._documentation, labels=self._labelnames)


class _CountRead:
    """A counter whose count lives where it is made, read at scrape time."""

    def __init__(self, name: str, documentation: str, read: Callable[[], int]) -> None:
        self._name = name
        self._documentation = documentation
        self._read = read

    def describe(self) -> Iterable[Metric]:
        return [CounterMetricFamily(self._name, self._documentation)]

    def collect(self) -> Iterable[Metric]:
        return [CounterMetricFamily(self._name, self._documentation, value=self._read())]


def _misdirected_series(transports: Sequence[str]) -> list[tuple[str, str]]:
    """The `ragmon_misdirected_requests_total` series that can count: every signal of each receiver that
    listens, and `transport="http", signal="other"` whatever, as the metrics port, an HTTP port that serves
    the page they are scraped from, counts there the exports sent to it (ragmon.otlp.http)."""
    series = [(transport, signal) for transport in transports for signal in SIGNALS]
    return series if ("http", "other") in series else [*series, ("http", "other")]


class Exporter:
    """Every metric of the sidecar; methods are named after the events the service reports."""

    def __init__(self, *, window: float = 300.0, max_pipelines: int = MAX_PIPELINES,
                 pipelines: Sequence[str] | None = None, judges: Sequence[str] = ("lexical",),
                 capture: bool = False, transports: Sequence[str] = TRANSPORTS,
                 clock: Callable[[], float] = time.monotonic, version: str = __version__) -> None:
        """`pipelines`, when given, is the allow-list: exactly those names get a label of their own, in
        every replica and across restarts, and `max_pipelines` does not apply.

        `transports`: the OTLP receivers that listen. Only theirs get zero series: one of a receiver
        turned off (`--grpc-listen off`) showed a dashboard a receiver that does not exist."""
        listed = () if pipelines is None else tuple(dict.fromkeys(pipelines))
        _check_listable(listed)
        # Process-wide switch of prometheus_client: `_created` series would double every counter's
        # series count for a value Prometheus does not need (it detects resets itself).
        prometheus_client.disable_created_metrics()
        self.registry = CollectorRegistry()
        # process_* (memory, start time, open files) and python_info, as the default registry has them: an
        # OOM restart loop or memory near the container's limit shows on no ragmon_* series. The sidecar's
        # process only: its lexical workers are processes of their own.
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self._judges = tuple(judges)
        self._capture_outcomes = CAPTURE_OUTCOMES if capture else ()
        # An allow-list is a full set of labels from the start, with no slot left for a newcomer.
        self._max_pipelines = max_pipelines if pipelines is None else 0
        self._capped = pipelines is None
        """Whether a name past the cap is overflow, to count and say; with an allow-list it is by design."""
        self._overflow_said = False
        self._pipelines: set[str] = set()
        """Names counted against `max_pipelines`."""
        preset = () if pipelines is None else (*listed, OTHER_PIPELINE)
        self._labels: set[str] = set(preset)
        """Label values whose zero series exist: those names, and `other` once the cap is reached (the
        listed names and `other` from the start with an allow-list)."""
        self._lock = threading.Lock()
        self.readings = LoopReadings()
        r = self.registry
        # Tallies, as the receivers count spans on the loop: read later, a page showed spans received or
        # rejected as late whose traces it had yet to count (`_traces`).
        self._received = _Tally("ragmon_spans_received", "Spans accepted from the OTLP receivers",
                                ["transport"], self.readings)
        r.register(self._received)
        self._rejected = _Tally("ragmon_spans_rejected", "Spans dropped or refused, by reason", ["reason"],
                                self.readings)
        r.register(self._rejected)
        self._misdirected = Counter("ragmon_misdirected_requests",
                                    "OTLP requests for another signal or path, which ragmon does not receive",
                                    ["transport", "signal"], registry=r)
        self._traces = _Tally("ragmon_traces", "Decided traces, each counted once under one outcome",
                              ["pipeline", "outcome"], self.readings)
        r.register(self._traces)
        # Tallies too: read later, on the page's thread, a page counted examples scored whose traces it had
        # yet to count `scored` (the loop counts both at once, `example_scored` then `trace_outcome`).
        self._claims = _Tally("ragmon_claims", "Judged claims by verdict", ["pipeline", "judge", "verdict"],
                              self.readings)
        r.register(self._claims)
        self._examples = _Tally("ragmon_examples_scored", "Examples scored", ["pipeline", "judge"],
                                self.readings)
        r.register(self._examples)
        self._scores = Histogram("ragmon_example_score", "Per-example metric values",
                                 ["pipeline", "judge", "metric"], buckets=SCORE_BUCKETS, registry=r)
        # A tally as well: the loop counts a call's outcome and its example scored in one step, and a page
        # reading the calls later had shown Claude's 2 calls `ok` beside 0 of its examples scored.
        self._judge_requests = _Tally("ragmon_judge_requests", "Judge calls by outcome", ["judge", "outcome"],
                                      self.readings)
        r.register(self._judge_requests)
        self._judge_duration = Histogram("ragmon_judge_duration_seconds", "Time a judge took on one example",
                                         ["judge"], buckets=JUDGE_BUCKETS, registry=r)
        # With the calls it was spent on (`judge_request` counts both): read later, a page showed the cost
        # of a call it had yet to count.
        self._judge_cost = _Tally("ragmon_judge_cost_usd", "Money spent on judge calls", ["judge"],
                                  self.readings)
        r.register(self._judge_cost)
        self._overflow = Counter("ragmon_pipeline_overflow", "Traces of a pipeline that found every "
                                 "--max-pipelines label taken, counted under pipeline=\"other\"", registry=r)
        self._captured = Counter("ragmon_captured", "Examples selected for --capture, by what became of them",
                                 ["pipeline", "outcome"], registry=r)
        # Apart from `ragmon_captured`, where each example has one outcome: these were counted `written`.
        # Its zero series only with --capture, as the outcomes': unregistered, it is never exposed.
        self._capture_lost = Counter("ragmon_capture_lost", "Captured examples a rotation of the --capture "
                                     "file replaced in FILE.1 before anyone collected them",
                                     registry=r if capture else None)
        self.in_flight = Gauge("ragmon_traces_in_flight", "Traces buffered in the assembler", registry=r)
        # Out of the assembler, with no outcome and in no queue: while overloaded, no other gauge had them.
        self.waiting = Gauge("ragmon_traces_waiting", "Decided traces waiting for room in the first judge's "
                             "queue (or in --max-buffer to score them), or to be handed on", registry=r)
        # Apart from `waiting`, which is read as back-pressure (add --workers): these wait out a clock, and a
        # service recording large request bodies holds thousands of them for a whole decision wait.
        self.refused_pending = Gauge("ragmon_traces_refused_pending", "Traces seen only in refused spans, "
                                     "awaiting their decision wait; each becomes one error", registry=r)
        self.queue_depth = Gauge("ragmon_score_queue_depth", "Examples waiting for a judge", ["judge"],
                                 registry=r)
        self.in_progress = Gauge("ragmon_score_in_progress", "Examples a judge is scoring now (in a worker, "
                                 "or a call)", ["judge"], registry=r)
        self.buffer_bytes = Gauge("ragmon_buffer_bytes", "What traces, examples and lexical workers hold "
                                  "against --max-buffer", registry=r)
        # The limits those three run against, as process_max_fds stands beside process_open_fds: a panel or
        # rule can draw the share used without copying the flags into queries.
        self.max_traces = Gauge("ragmon_max_traces", "--max-traces: traces the buffer holds at most",
                                registry=r)
        self.queue_size = Gauge("ragmon_score_queue_size", "--queue-size: examples a judge's queue holds",
                                ["judge"], registry=r)
        self.max_buffer_bytes = Gauge("ragmon_max_buffer_bytes", "--max-buffer: bytes traces and examples "
                                      "hold at most", registry=r)
        self.budget = Gauge("ragmon_judge_budget_usd", "Daily cap on a judge's spend "
                            "(--llm-budget-usd-per-day)", ["judge"], registry=r)
        self.committed = Gauge("ragmon_judge_committed_usd", "Spent and reserved today (UTC) against the "
                               "daily cap, resumed from --llm-budget-file after a restart", ["judge"],
                               registry=r)
        self._lag = Histogram("ragmon_score_lag_seconds", "Time from a trace's decision to its score",
                              buckets=LAG_BUCKETS, registry=r)
        # scoring_rules (ragmon.rules): a sidecar rolled out with other rules moves every figure of the same
        # traffic, which the version, unchanged through many such builds, never told a dashboard.
        build = Gauge("ragmon_build_info", "Always 1; the version and the scoring rules as labels",
                      ["version", "scoring_rules"], registry=r)
        build.labels(version, str(SCORING_RULES)).set(1)
        self.window = WindowCollector(window, clock)
        r.register(self.window)
        for transport in transports:
            self._received.zero(transport)
        for transport, signal in _misdirected_series(transports):
            self._misdirected.labels(transport, signal)
        for reason in REJECT_REASONS:
            self._rejected.zero(reason)
        for judge in self._judges:
            for outcome in JUDGE_OUTCOMES:
                self._judge_requests.zero(judge, outcome)
            self._judge_duration.labels(judge)
            self._judge_cost.zero(judge)
            self.queue_depth.labels(judge)
            self.in_progress.labels(judge)
        for name in preset:
            self._precreate(name)

    def count_pool_replacements(self, restarts: Callable[[], int], recycles: Callable[[], int]) -> None:
        """`ragmon_worker_pool_restarts_total` and `ragmon_worker_pool_recycles_total`, read from the
        lexical lane, which keeps the counts."""
        self.registry.register(_CountRead("ragmon_worker_pool_restarts", "Lexical worker pools replaced "
                                          "because a worker died (an OOM kill, a crash)", restarts))
        self.registry.register(_CountRead("ragmon_worker_pool_recycles", "Lexical worker pools replaced "
                                          "because a worker kept more memory than its share after an "
                                          "example", recycles))

    def pipeline_label(self, name: str | None, *, claim: bool = True,
                       origin: Callable[[], Mapping[str, str]] | None = None) -> str:
        """The label for a pipeline name (`pipeline_label_of`): a listed label (see `pipelines`), else the
        labels of the first `max_pipelines` names seen; anything else is `other`.

        `claim=False` (a trace that yields no example) uses a name's label only when it has one, else
        `other`: the slots belong to RAG pipelines, and in the scale-out pool every service's traces
        arrive, most of them not RAG, which would otherwise take the slots first.

        A claim the cap refuses (not a name left out of an allow-list, which is what `other` is for) is
        counted in `ragmon_pipeline_overflow_total`, and the first one is logged.

        `origin`: log fields saying where the name came from, asked for only when a line is written."""
        label = pipeline_label_of(name) if name else UNKNOWN_PIPELINE
        with self._lock:
            if label in self._labels:
                return label
            refused = claim and len(self._pipelines) >= self._max_pipelines
            if claim and not refused:
                self._pipelines.add(label)
            else:
                label = OTHER_PIPELINE
            overflow = refused and self._capped
            said = self._overflow_said
            self._overflow_said |= overflow
            fresh = label not in self._labels
            self._labels.add(label)
        if overflow:
            self._overflow.inc()
        fields: Callable[[], Mapping[str, str]] = origin or dict
        if overflow and not said:
            _log_overflow(name or "", self._max_pipelines, fields())
        elif name and label not in (name, OTHER_PIPELINE):
            _log_shortened(name, label, fields())
        if fresh:
            self._precreate(label)
        return label

    def _precreate(self, pipeline: str) -> None:
        """Zero series for a new pipeline, so a ratio of rates is defined from its first scrape."""
        for outcome in OUTCOMES:
            self._traces.zero(pipeline, outcome)
        for judge in self._judges:
            self._examples.zero(pipeline, judge)
            for verdict in VERDICTS:
                self._claims.zero(pipeline, judge, verdict)
            for metric in LIVE_METRICS:
                self._scores.labels(pipeline, judge, metric)
        for outcome in self._capture_outcomes:
            self._captured.labels(pipeline, outcome)

    def spans_received(self, transport: str, count: int) -> None:
        """On the event loop only, as `trace_outcome`."""
        self._received.inc(transport, by=count)

    def spans_rejected(self, reason: str, count: int) -> None:
        """On the event loop only, as `trace_outcome`."""
        self._rejected.inc(reason, by=count)

    def requests_misdirected(self, transport: str, signal: str) -> None:
        self._misdirected.labels(transport, signal).inc()

    def trace_outcome(self, pipeline: str, outcome: str) -> None:
        """On the event loop only: the ledger is read there with the gauges it adds up with (`_Tally`)."""
        self._traces.inc(pipeline, outcome)

    def example_scored(self, pipeline: str, judge: str, result: ExampleResult, trace_id: str) -> None:
        """Claims, example count, score histograms (trace id exemplar) and the window of one result. On the
        event loop only, as `trace_outcome`: the claims and examples are tallies read with the ledger."""
        supported = sum(1 for v in result.verdicts if v.supported)
        self._claims.inc(pipeline, judge, "supported", by=supported)
        self._claims.inc(pipeline, judge, "unsupported", by=len(result.verdicts) - supported)
        self._examples.inc(pipeline, judge)
        exemplar = {"trace_id": trace_id}
        for metric in METRIC_NAMES:
            value = result.metrics.get(metric)
            if value is not None:
                self._scores.labels(pipeline, judge, metric).observe(value, exemplar=exemplar)
        groundedness = result.metrics.get("groundedness")
        if groundedness is not None:
            self.window.observe(pipeline, judge, groundedness)

    def judge_request(self, judge: str, outcome: str, duration: float | None = None,
                      cost_usd: float = 0.0) -> None:
        self._judge_requests.inc(judge, outcome)
        if duration is not None:
            self._judge_duration.labels(judge).observe(duration)
        if cost_usd:
            self._judge_cost.inc(judge, by=cost_usd)

    def captured(self, pipeline: str, outcome: str) -> None:
        self._captured.labels(pipeline, outcome).inc()

    def capture_lost(self, count: int) -> None:
        self._capture_lost.inc(count)

    def score_lag(self, seconds: float) -> None:
        self._lag.observe(seconds)
