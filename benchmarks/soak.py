"""Soak of `ragmon serve`: is the sidecar stable over time, and is every trace and span accounted for?

Offers a steady open-loop load (traces/s) to a sidecar subprocess with its default assembly settings
(--quiet 2s, --decision-wait 30s, --max-traces, --queue-size), one fresh sidecar per phase:
- a steady phase per `--rates` value: `--warmup` seconds, then `--minutes` measured;
- an overload phase: `--warmup` at the first rate, `--overload-seconds` at `--overload-rate`, then
  `--recovery-seconds` at the first rate again.

The traffic is the ingest benchmark's OpenInference RAG trace (5 documents of ~200 words, built by
`ingest.trace_spans` into a pool of `--templates` traces, each sent with fresh trace and span ids, so
documents recur about as often as in production and the judge's passage cache turns over), mixed with
traces that carry no RAG data (outcome not_rag), traces whose documents are redacted (outcome error),
extra spans with an invalid id (rejected "invalid" by the receiver, the rest of the batch kept), a span
sent `--late-after` seconds after its trace was delivered (usually "late"), and now and then an
undecodable body (400, "decode_error"). Requests go over keep-alive connections; a 503 is honoured
like an OTLP exporter does (wait Retry-After, resend the same body), so nothing is dropped client-side.
Every span, attempt and trace id is counted as it is sent.

Every `--sample-every` seconds: RSS of the sidecar and of its forkserver and workers, and its gauges.
Each phase ends with SIGTERM while traffic is still buffered; the outcomes the sidecar logs when it has
drained are compared with what was sent. Printed per phase: RSS slope (MiB/min, least squares over the
second half of the measured window, with its standard error), p50/p99 score lag and CPU per trace over
the measured window, 503s, and the accounting checks. Exit code 1 when a check fails.

Run: `.venv/bin/python benchmarks/soak.py [--minutes 5] [--rates 200,800] [--overload-rate 3000]`
(`--minutes 1 --warmup 20 --recovery-seconds 30` for a short run; `--overload-rate 0` skips overload).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import ingest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from ragmon.scrape import Samples, scrape, total

UNDECODABLE = b"\x0a\xff\xff\xff\xff\x0f"
"""resource_spans with a length far past the end of the body: no protobuf reader accepts it."""
EXTRACT_WARNING = "trace cannot be extracted"
REFUSAL_LINE = "OTLP request refused"
LATE_LINE = "span came after its trace was decided"
"""What ragmon.service logs for each trace whose documents are redacted, each request refused and each span
dropped as late; any other warning is news."""
KNOWN_PROBLEMS = (EXTRACT_WARNING, REFUSAL_LINE, LATE_LINE)
MEMORY_SAID = re.compile(r"memory: at most ([\d,]+) MiB")
"""The start-up line of the most memory the settings may hold (ragmon.memory_budget)."""
REDACTED = "__REDACTED__"
"""OpenInference's placeholder when the app hides retrieved documents: the trace cannot be scored."""


# --- traffic ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class Sent:
    """What the client sent, counted exactly: the figures the sidecar's counters must match."""

    traces: Counter[str] = field(default_factory=Counter)
    """Distinct trace ids by the outcome they should get (scored, not_rag, error)."""
    spans: int = 0
    """Distinct spans with valid ids (each must end up in ragmon_spans_received_total once)."""
    invalid_spans: int = 0
    """Distinct spans with an invalid id."""
    late_spans: int = 0
    span_attempts: int = 0
    """Spans in every POST, retries included."""
    invalid_taken: int = 0
    """Invalid spans of the POSTs taken: a request answered 503 has its invalid spans counted when it is
    resent and taken, once (the README's receivers), not on every attempt."""
    invalid_refused: int = 0
    """Invalid spans of the POSTs answered 503, counted by none of the sidecar's counters."""
    requests: int = 0
    attempts: int = 0
    refused: int = 0
    undecodable: int = 0


@dataclass(frozen=True, slots=True)
class Request:
    body: bytes
    spans: int
    invalid: int
    late_candidates: tuple[tuple[bytes, bytes], ...]
    """(trace id, root span id) of traces that get a late span once this request is delivered."""


class Traffic:
    """Builds requests of `per_request` traces on demand: a few µs per trace, so the load generator
    takes little of the CPU it shares with the sidecar."""

    def __init__(self, seed: int, templates: int, per_request: int, mix: dict[str, float]) -> None:
        self.rng = random.Random(seed)
        now = time.time_ns()
        self.templates = [ingest.trace_spans(self.rng, now) for _ in range(templates)]
        self.per_request = per_request
        self.mix = mix
        self.sent = Sent()
        self.late: deque[tuple[float, bytes, bytes]] = deque()
        self.start_ns = now

    def request(self, now: float) -> Request:
        rng, mix, sent = self.rng, self.mix, self.sent
        message = ExportTraceServiceRequest()
        resource_spans = message.resource_spans.add()
        resource_spans.resource.attributes.append(ingest.attr("service.name", "soak-rag"))
        scope = resource_spans.scope_spans.add()
        scope.scope.name = "soak"
        spans = scope.spans
        valid = invalid = 0
        late: list[tuple[bytes, bytes]] = []
        for _ in range(self.per_request):
            trace_id, root = rng.randbytes(16), rng.randbytes(8)
            roll = rng.random()
            if roll < mix["not_rag"]:
                self._http_span(spans.add(), trace_id, root)
                sent.traces["not_rag"] += 1
                valid += 1
            else:
                malformed = roll < mix["not_rag"] + mix["malformed"]
                for template in rng.choice(self.templates):
                    span = spans.add()
                    span.CopyFrom(template)
                    span.trace_id = trace_id
                    if template.parent_span_id:
                        span.span_id, span.parent_span_id = rng.randbytes(8), root
                    else:
                        span.span_id = root
                    if malformed and span.name == "retrieve":
                        for attribute in span.attributes:
                            if attribute.key == "retrieval.documents.0.document.content":
                                attribute.value.string_value = REDACTED
                sent.traces["error" if malformed else "scored"] += 1
                valid += ingest.SPANS_PER_TRACE
                if rng.random() < mix["bad_span"]:
                    bad = spans.add()
                    bad.CopyFrom(spans[-1])
                    bad.span_id = rng.randbytes(4)   # 4 bytes: an id of the wrong length
                    invalid += 1
            if rng.random() < mix["late"]:
                late.append((trace_id, root))
        while self.late and self.late[0][0] <= now:
            _, trace_id, root = self.late.popleft()
            self._late_span(spans.add(), trace_id, root)
            valid += 1
            sent.late_spans += 1
        sent.spans += valid
        sent.invalid_spans += invalid
        sent.requests += 1
        return Request(message.SerializeToString(), valid + invalid, invalid, tuple(late))

    def delivered(self, request: Request, now: float, late_after: float) -> None:
        self.late.extend((now + late_after, trace_id, root) for trace_id, root in request.late_candidates)

    def _http_span(self, span: Span, trace_id: bytes, span_id: bytes) -> None:
        """A trace of a service that is not RAG (a health check, a product page)."""
        span.trace_id, span.span_id, span.name = trace_id, span_id, "GET /orders"
        span.kind = Span.SPAN_KIND_SERVER
        span.start_time_unix_nano, span.end_time_unix_nano = self.start_ns, self.start_ns + 3_000_000
        span.attributes.extend([ingest.attr("http.request.method", "GET"), ingest.attr("url.path", "/orders"),
                                ingest.attr("http.response.status_code", 200)])

    def _late_span(self, span: Span, trace_id: bytes, parent: bytes) -> None:
        """User feedback recorded after the answer went out: a child of the root, seconds later."""
        span.trace_id, span.span_id, span.parent_span_id = trace_id, self.rng.randbytes(8), parent
        span.name, span.kind = "feedback", Span.SPAN_KIND_INTERNAL
        span.start_time_unix_nano, span.end_time_unix_nano = self.start_ns, self.start_ns + 1_000
        span.attributes.append(ingest.attr("feedback.score", 1))


# --- load: open loop with retries ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Segment:
    seconds: float
    rate: float
    """traces/s"""


class Load:
    """Request i is due at the time the schedule reaches its traces; `connections` senders take the next
    due request in turn, so while 503s hold senders back the backlog grows on the client, as an app's
    export queue does, and is sent as fast as the sidecar accepts once it stops refusing."""

    def __init__(self, url: str, traffic: Traffic, schedule: list[Segment], connections: int,
                 late_after: float, undecodable_every: int) -> None:
        self.url = url
        self.traffic = traffic
        self.late_after = late_after
        self.undecodable_every = undecodable_every
        self.connections = connections
        per_request = traffic.per_request
        self.due: list[float] = []
        offset = 0.0
        for segment in schedule:
            count = round(segment.seconds * segment.rate / per_request)
            self.due += [offset + (i + 1) * per_request / segment.rate for i in range(count)]
            offset += segment.seconds
        self.duration = offset
        self.next = 0
        self.started = 0.0
        self.last_refusal = -math.inf

    def backlog_seconds(self, now: float) -> float:
        """How far the client is behind its schedule (0 when on time)."""
        if self.next >= len(self.due):
            return 0.0
        return max(0.0, now - self.started - self.due[self.next])

    async def run(self) -> None:
        self.started = time.monotonic()
        connector = aiohttp.TCPConnector(limit=self.connections)
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.gather(*(self._sender(session) for _ in range(self.connections)))
            # The late spans not yet due go out now: most of their traces are still being decided, so
            # the SIGTERM that follows finds work buffered.
            now = math.inf
            if self.traffic.late:
                self.traffic.per_request = 0
                await self._post(session, self.traffic.request(now))

    async def _sender(self, session: aiohttp.ClientSession) -> None:
        while self.next < len(self.due):
            index = self.next
            self.next += 1
            await asyncio.sleep(self.started + self.due[index] - time.monotonic())
            if self.undecodable_every and index % self.undecodable_every == self.undecodable_every - 1:
                await self._undecodable(session)
            await self._post(session, self.traffic.request(time.monotonic()))

    async def _post(self, session: aiohttp.ClientSession, request: Request) -> None:
        sent = self.traffic.sent
        while True:
            sent.attempts += 1
            sent.span_attempts += request.spans
            async with session.post(self.url, data=request.body,
                                    headers={"Content-Type": "application/x-protobuf"}) as response:
                await response.read()
                if response.status == 200:
                    sent.invalid_taken += request.invalid
                    self.traffic.delivered(request, time.monotonic(), self.late_after)
                    return
                if response.status != 503:
                    raise RuntimeError(f"POST {self.url} answered {response.status}")
                sent.refused += 1
                sent.invalid_refused += request.invalid
                self.last_refusal = time.monotonic()
                delay = float(response.headers.get("Retry-After", "1"))
            await asyncio.sleep(delay)

    async def _undecodable(self, session: aiohttp.ClientSession) -> None:
        async with session.post(self.url, data=UNDECODABLE,
                                headers={"Content-Type": "application/x-protobuf"}) as response:
            await response.read()
            if response.status != 400:
                raise RuntimeError(f"an undecodable body was answered {response.status}, not 400")
        self.traffic.sent.undecodable += 1


# --- the sidecar and its samples -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    at: float
    """Seconds since the load started."""
    rss_main: float
    rss_workers: float
    cpu_main: float
    cpu_workers: float
    in_flight: float
    queue: float
    backlog: float
    """Seconds the client is behind its schedule."""
    metrics: Samples


def rss_mib(pid: int) -> float:
    return status_mib(pid, "VmRSS:")


def status_mib(pid: int, field: str) -> float:
    """A process's /proc status field in MiB (VmRSS:, VmHWM:), 0 for one that has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        pass  # a worker that exited between listing and reading
    return 0.0


def cpu_or_zero(pid: int) -> float:
    try:
        return ingest.cpu_seconds(pid)
    except OSError:
        return 0.0


def sample(pid: int, metrics_url: str, at: float, backlog: float) -> Sample:
    children = ingest.descendants(pid)
    metrics = scrape(metrics_url)
    return Sample(at, rss_mib(pid), sum(map(rss_mib, children)), ingest.cpu_seconds(pid),
                  sum(map(cpu_or_zero, children)), total(metrics, "ragmon_traces_in_flight"),
                  total(metrics, "ragmon_score_queue_depth"), backlog, metrics)


class Sidecar:
    """`ragmon serve` on free loopback ports, its JSON log in a temporary file; stopped by `stop()`."""

    def __init__(self, settings: list[str], name: str = "soak") -> None:
        """`settings`: the serve flags under test, besides the ports and the log's."""
        self.http, metrics = ingest.free_port(), ingest.free_port()
        self.metrics_url = f"http://127.0.0.1:{metrics}/metrics"
        self.ready_url = f"http://127.0.0.1:{metrics}/readyz"
        self.log = tempfile.NamedTemporaryFile(prefix=f"ragmon-{name}-", suffix=".log", delete=False)  # noqa: SIM115
        # Own session: a Ctrl-C reaches only this script, which then stops the sidecar itself.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", f"127.0.0.1:{self.http}",
             "--grpc-listen", "off", "--metrics-listen", f"127.0.0.1:{metrics}", *settings,
             "--log-format", "json", "--log-level", "info"],
            stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"ragmon serve exited with {self.process.returncode}; log: {self.log.name}")
            try:
                with urllib.request.urlopen(self.ready_url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"ragmon serve was not ready in {timeout:.0f}s")
            time.sleep(0.05)

    def stop(self, timeout: float = 60.0) -> tuple[int, float]:
        """SIGTERM, wait; returns (exit code, seconds the drain took)."""
        started = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.log.close()
        return code, time.monotonic() - started

    @property
    def url(self) -> str:
        """Where OTLP/HTTP traces go."""
        return f"http://127.0.0.1:{self.http}/v1/traces"

    def promised_mib(self) -> float:
        """The most memory the sidecar said at start its settings may hold (ragmon.memory_budget)."""
        for line in Path(self.log.name).read_text().splitlines():
            with contextlib.suppress(ValueError):
                found = MEMORY_SAID.match(str(json.loads(line).get("message", "")))
                if found:
                    return float(found[1].replace(",", ""))
        raise SystemExit(f"ragmon serve logged no memory figure; log: {self.log.name}")

    def _tree(self) -> list[int]:
        return [self.pid, *ingest.descendants(self.pid)]

    def tree_rss_mib(self) -> float:
        """What the sidecar and every process below it (forkserver, workers) hold now."""
        return sum(map(rss_mib, self._tree()))

    def tree_peaks_mib(self) -> float:
        """The sum of each live process's own peak (VmHWM): a bound on a spike between samples."""
        return sum(status_mib(pid, "VmHWM:") for pid in self._tree())

    def drained_outcomes(self) -> tuple[Counter[str], Counter[str]]:
        """The outcomes the sidecar logs once it has drained, and its warnings and errors by message."""
        outcomes: Counter[str] = Counter()
        problems: Counter[str] = Counter()
        for line in Path(self.log.name).read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                problems[line] += 1
                continue
            if record.get("message") == "stopped":
                outcomes.update(record["outcomes"])
            elif record.get("level") not in ("warning", "error", "critical"):
                continue  # back-pressure refusals are logged at INFO: the client retries them
            elif (message := next((known for known in KNOWN_PROBLEMS
                                   if str(record.get("message")).startswith(known)), None)) is not None:
                # One line a minute per kind of problem, which counts those left out since the last.
                problems[message] += 1 + int(record.get("suppressed", 0))
            else:
                problems[record.get("message", line)] += 1
        return outcomes, problems


def settings_of(args: argparse.Namespace) -> list[str]:
    """The serve flags a soak run sets."""
    return ["--workers", str(args.workers), "--max-traces", str(args.max_traces),
            "--queue-size", str(args.queue_size)]


# --- one phase -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Phase:
    name: str
    schedule: list[Segment]
    measure_from: float
    """Seconds into the load where the measured window starts (after the warm-up)."""
    measure_to: float
    samples: list[Sample] = field(default_factory=list)
    sent: Sent = field(default_factory=Sent)
    final: Samples = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    problems: Counter[str] = field(default_factory=Counter)
    exit_code: int = -1
    drain_seconds: float = 0.0
    last_refusal: float = -math.inf
    client_cpu: float = 0.0
    overload_end: float | None = None


async def sample_every(every: float, sidecar: Sidecar, load: Load, phase: Phase) -> None:
    loop = asyncio.get_running_loop()
    while True:
        await asyncio.sleep(every - (time.monotonic() - load.started) % every)
        now = time.monotonic()
        phase.samples.append(await loop.run_in_executor(
            None, sample, sidecar.pid, sidecar.metrics_url, now - load.started, load.backlog_seconds(now)))


async def drive(args: argparse.Namespace, sidecar: Sidecar, phase: Phase) -> None:
    mix = {"not_rag": args.not_rag, "malformed": args.malformed, "bad_span": args.bad_span, "late": args.late}
    traffic = Traffic(args.seed, args.templates, args.traces_per_request, mix)
    load = Load(f"http://127.0.0.1:{sidecar.http}/v1/traces", traffic, phase.schedule, args.connections,
                args.late_after, args.undecodable_every)
    client_cpu = time.process_time()
    sampler = asyncio.create_task(sample_every(args.sample_every, sidecar, load, phase))
    try:
        await load.run()
    finally:
        sampler.cancel()
    phase.sent = traffic.sent
    phase.last_refusal = load.last_refusal - load.started
    phase.client_cpu = time.process_time() - client_cpu


def run_phase(args: argparse.Namespace, phase: Phase) -> Phase:
    sidecar = Sidecar(settings_of(args))
    try:
        sidecar.wait_ready()
        asyncio.run(drive(args, sidecar, phase))
        phase.final = scrape(sidecar.metrics_url)   # every POST was answered: span counters are final
    finally:
        phase.exit_code, phase.drain_seconds = sidecar.stop()
    phase.outcomes, phase.problems = sidecar.drained_outcomes()
    Path(sidecar.log.name).unlink()
    return phase


# --- figures ---------------------------------------------------------------------------------------


def slope(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares slope of (minutes, MiB) and its standard error."""
    n = len(points)
    if n < 3:
        return math.nan, math.nan
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    residual = sum((y - my - b * (x - mx)) ** 2 for x, y in points)
    return b, math.sqrt(residual / (n - 2) / sxx)


def delta(end: Samples, start: Samples, name: str) -> Samples:
    return {key: value - start.get(key, 0.0) for key, value in end.items() if key[0] == name}


def window(phase: Phase) -> list[Sample]:
    return [s for s in phase.samples if phase.measure_from <= s.at <= phase.measure_to + 0.5]


def phase_rows(phase: Phase) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    measured = window(phase)
    if len(measured) >= 2:
        first, last = measured[0], measured[-1]
        half = [s for s in measured if s.at >= (first.at + last.at) / 2]
        for label, pick in (("sidecar", lambda s: s.rss_main), ("workers", lambda s: s.rss_workers),
                            ("total", lambda s: s.rss_main + s.rss_workers)):
            b, se = slope([(s.at / 60, pick(s)) for s in half])
            values = [pick(s) for s in measured]
            rows.append((f"RSS {label} MiB (measured window)",
                         f"{values[0]:.0f} -> {values[-1]:.0f}, range {min(values):.0f}-{max(values):.0f}; "
                         f"slope over last half {b:+.2f} ± {se:.2f} MiB/min (n={len(half)})"))
        decided = total(last.metrics, "ragmon_traces_total") - total(first.metrics, "ragmon_traces_total")
        minutes = (last.at - first.at) / 60
        lag = delta(last.metrics, first.metrics, "ragmon_score_lag_seconds_bucket")
        lag_name = "ragmon_score_lag_seconds"
        cpu_main, cpu_workers = last.cpu_main - first.cpu_main, last.cpu_workers - first.cpu_workers
        rows += [
            ("traces decided /s (measured)", f"{decided / (minutes * 60):.0f} over {minutes:.1f} min"),
            ("score lag p50 / p99", f"{ingest.quantile(lag, lag_name, 0.5) * 1000:.0f} / "
                                    f"{ingest.quantile(lag, lag_name, 0.99) * 1000:.0f} ms "
                                    "(decided -> scored)"),
            ("CPU per decided trace", f"{cpu_main / decided * 1000:.2f} ms sidecar + "
                                      f"{cpu_workers / decided * 1000:.2f} ms workers "
                                      f"({(cpu_main + cpu_workers) / (minutes * 60):.2f} cores)"),
        ]
    peak = max(phase.samples, key=lambda s: s.rss_main + s.rss_workers, default=None)
    if peak is not None:
        rows.append(("peak RSS sampled (whole phase)",
                     f"{peak.rss_main:.0f} MiB sidecar + {peak.rss_workers:.0f} MiB workers "
                     f"at {peak.at:.0f}s"))
        rows.append(("max traces in flight / queue", f"{max(s.in_flight for s in phase.samples):.0f} / "
                                                     f"{max(s.queue for s in phase.samples):.0f}"))
    sent = phase.sent
    last_refusal = f", last at {phase.last_refusal:.0f}s" if sent.refused else ""
    behind = max((s.backlog for s in phase.samples), default=0.0)
    if phase.overload_end is not None:
        after = [s for s in phase.samples if s.at > phase.overload_end]
        caught_up = next((s.at for i, s in enumerate(after) if all(t.backlog == 0 for t in after[i:])),
                         math.nan)
        rows.append(("recovery after the overload ended", f"at {phase.overload_end:.0f}s; client on schedule "
                                                          f"again from {caught_up:.0f}s"))
    rows += [
        ("503 refusals (attempts)", f"{sent.refused} of {sent.attempts}{last_refusal}; "
                                    f"client behind schedule by up to {behind:.1f}s"),
        ("load generator CPU", f"{phase.client_cpu:.0f} s"),
        ("SIGTERM drain", f"exit {phase.exit_code} after {phase.drain_seconds:.1f}s"),
    ]
    return rows


def checks(phase: Phase, exact_outcomes: bool) -> list[tuple[str, bool, str]]:
    """(what, holds, figures). Outcomes come from the sidecar's own log after the drain; span counters
    from the last scrape, once every POST was answered (the drain adds no spans)."""
    sent, final, outcomes = phase.sent, phase.final, phase.outcomes
    traces = sum(sent.traces.values())
    received = total(final, "ragmon_spans_received_total")

    def rejected(reason: str) -> float:
        return total(final, "ragmon_spans_rejected_total", reason=reason)

    refusals = rejected("invalid") + rejected("backpressure")
    backpressured = sent.span_attempts - sent.spans - sent.invalid_taken - sent.invalid_refused
    result = [
        ("sum of trace outcomes = distinct traces sent", sum(outcomes.values()) == traces,
         f"{sum(outcomes.values())} = {traces}; " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
         + f" (drain added {sum(outcomes.values()) - total(final, 'ragmon_traces_total'):.0f})"),
        ("spans received = valid spans sent", received == sent.spans, f"{received:.0f} = {sent.spans}"),
        ("received + rejected{invalid,backpressure} = spans in all POSTs but the invalid ones of 503'd POSTs",
         received + refusals == sent.span_attempts - sent.invalid_refused,
         f"{received:.0f} + {refusals:.0f} = {sent.span_attempts} - {sent.invalid_refused}"),
        ("rejected{backpressure} = valid spans in 503'd POSTs", rejected("backpressure") == backpressured,
         f"{rejected('backpressure'):.0f} = {backpressured}"),
        ("rejected{invalid} = invalid spans in the POSTs taken", rejected("invalid") == sent.invalid_taken,
         f"{rejected('invalid'):.0f} = {sent.invalid_taken} ({sent.invalid_spans} distinct)"),
        ("rejected{decode_error} = undecodable POSTs", rejected("decode_error") == sent.undecodable,
         f"{rejected('decode_error'):.0f} = {sent.undecodable}"),
        ("rejected{late} <= late spans sent", rejected("late") <= sent.late_spans,
         f"{rejected('late'):.0f} of {sent.late_spans} (the others joined a trace not yet decided)"),
        ("error outcomes, refused requests and late spans logged (rate-limited: those left out after a "
         "kind's last line are not), no other warning or error",
         errors_logged(phase.problems, outcomes["error"], sent.undecodable, sent.invalid_taken,
                       int(rejected("late"))),
         "; ".join(f"{n} x {message[:120]}" for message, n in phase.problems.items()) or "none"),
    ]
    if exact_outcomes:
        expected = {k: v for k, v in sent.traces.items() if v}
        actual = {k: v for k, v in outcomes.items() if v}
        result.append(("each outcome as sent (scored, not_rag, error)", expected == actual,
                       f"sent {dict(sorted(expected.items()))}"))
    return result


def errors_logged(problems: Counter[str], errors: int, undecodable: int, invalid: int, late: int) -> bool:
    """Extraction warnings, refused requests and late spans alone, each within its bounds: the sidecar
    writes one line a minute per kind of problem, counting those left out before it, so a line stands for
    one or more. Every error outcome, undecodable request and late span may be logged, and one of each must
    be; a request with invalid spans is refused (and logged) only when none of its spans is valid, which
    the load does not track."""
    if set(problems) - set(KNOWN_PROBLEMS):
        return False
    extracted, refused, dropped = problems[EXTRACT_WARNING], problems[REFUSAL_LINE], problems[LATE_LINE]
    return ((0 < extracted <= errors if errors else not extracted)
            and refused <= undecodable + invalid and (refused > 0 or not undecodable)
            and (0 < dropped <= late if late else not dropped))


def report(phase: Phase, exact_outcomes: bool) -> bool:
    print(f"\n== {phase.name}")
    rows = phase_rows(phase)
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"  {key:<{width}}  {value}")
    ok = True
    for what, holds, figures in checks(phase, exact_outcomes):
        ok &= holds
        print(f"  {'ok  ' if holds else 'FAIL'} {what}: {figures}")
    return ok


def timeline(phase: Phase) -> None:
    print(f"  {'t/s':>5} {'RSS main':>8} {'workers':>8} {'in flight':>9} {'queue':>6} {'decided':>8} "
          f"{'503 spans':>9} {'behind/s':>8}")
    for s in phase.samples:
        print(f"  {s.at:5.0f} {s.rss_main:8.1f} {s.rss_workers:8.1f} {s.in_flight:9.0f} {s.queue:6.0f} "
              f"{total(s.metrics, 'ragmon_traces_total'):8.0f} "
              f"{total(s.metrics, 'ragmon_spans_rejected_total', reason='backpressure'):9.0f} "
              f"{s.backlog:8.1f}")


def rates(text: str) -> list[float]:
    return [float(r) for r in text.split(",") if r.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="measured minutes per steady rate")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds before measuring")
    parser.add_argument("--rates", type=rates, default=[200.0, 800.0], help="steady rates, traces/s")
    parser.add_argument("--overload-rate", type=float, default=3000.0, help="traces/s; 0 skips the phase")
    parser.add_argument("--overload-seconds", type=float, default=60.0)
    parser.add_argument("--recovery-seconds", type=float, default=60.0)
    parser.add_argument("--sample-every", type=float, default=5.0, help="seconds between RSS samples")
    parser.add_argument("--traces-per-request", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--templates", type=int, default=3000, help="distinct RAG traces to draw from")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-traces", type=int, default=20_000, help="the sidecar's --max-traces")
    parser.add_argument("--queue-size", type=int, default=1_000, help="the sidecar's --queue-size")
    parser.add_argument("--not-rag", type=float, default=0.10, help="share of traces without RAG data")
    parser.add_argument("--malformed", type=float, default=0.03, help="share with redacted documents")
    parser.add_argument("--bad-span", type=float, default=0.02, help="share with an extra invalid-id span")
    parser.add_argument("--late", type=float, default=0.05, help="share that get a late span")
    parser.add_argument("--late-after", type=float, default=5.0, help="seconds after delivery")
    parser.add_argument("--undecodable-every", type=int, default=500, help="one bad body per N requests")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeline", action="store_true", help="print every sample")
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, signal.default_int_handler)   # stop the sidecar on SIGTERM too
    phases = []
    for rate in args.rates:
        measured = args.minutes * 60
        name = f"steady {rate:g} traces/s: {args.warmup:g}s warm-up, {args.minutes:g} min measured"
        schedule = [Segment(args.warmup + measured, rate)]
        phases.append((Phase(name, schedule, args.warmup, args.warmup + measured), True))
    if args.overload_rate > 0:
        base = args.rates[0]
        end = args.warmup + args.overload_seconds
        name = (f"overload {args.overload_rate:g} traces/s for {args.overload_seconds:g}s, after "
                f"{args.warmup:g}s and before {args.recovery_seconds:g}s at {base:g}/s "
                "(measured: last half of the recovery)")
        schedule = [Segment(args.warmup, base), Segment(args.overload_seconds, args.overload_rate),
                    Segment(args.recovery_seconds, base)]
        phases.append((Phase(name, schedule, end + args.recovery_seconds / 2, end + args.recovery_seconds,
                             overload_end=end), False))
    print(f"cpus={os.cpu_count()} workers={args.workers} connections={args.connections} "
          f"traces/request={args.traces_per_request} max-traces={args.max_traces} "
          f"queue-size={args.queue_size} "
          f"mix: not_rag {args.not_rag:g}, redacted {args.malformed:g}, invalid span {args.bad_span:g}, "
          f"late span {args.late:g} (+{args.late_after:g}s), undecodable 1/{args.undecodable_every}")
    ok = True
    for phase, exact in phases:
        run_phase(args, phase)
        ok &= report(phase, exact)
        if args.timeline:
            timeline(phase)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
