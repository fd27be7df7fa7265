"""`ragmon serve`: the sidecar. OTLP in, Prometheus out, scoring off the event loop.

Flow: receivers (ragmon.otlp) -> `Sidecar.offer` -> Assembler -> decision task -> extraction ->
sampling -> lane queues -> lane consumers (the lexical judge in worker processes) -> exporter, and
the first lane's results to ragmon.capture when `--capture` is on.

Accounting: every decided trace ends under exactly one `ragmon_traces_total` outcome. `evicted`,
`not_rag` and the `error` of a trace whose every span was refused are known at decision, `not_sampled`
after sampling, `scored` or `error` when the first lane is done with it. A trace still unresolved when a
drain runs out of time is counted as `error` (and logged with the count), so the outcomes always sum to
the traces decided.

Back-pressure: the bound sits on the first lane's queue (`--queue-size` examples waiting for a
worker). When it is full the decision task waits to enqueue, decided traces wait behind it
(`ragmon_traces_waiting`), undecided ones stay in the assembler (itself bounded by `--max-traces`), and
`offer` refuses new spans, so the receivers answer 503 with Retry-After (gRPC UNAVAILABLE) and the app's
exporter retries. Counts do not bound memory (one span
may carry megabytes), so `--max-buffer` bounds the decoded size of every trace from its first span until
its outcome is counted: in the assembler (evicted ones too, until the decision task collects them), in
the backlog, queued and being scored, and while further lanes hold its example. `offer` refuses a
request that would take the buffer past 90% of it or of `--max-traces`, counted with what the request
adds, so the assembler evicts past them only what no refusal held back. Further lanes never push back on
the app: they hold at most `FURTHER_LANES_SHARE` of `--max-buffer` in examples, which the 90% mark leaves
them (it is 90% of the rest, and counts what traces hold, not what they do), and when their queue is full,
or an example would take them past their share or the buffer past `--max-buffer`, they drop it and count
`ragmon_judge_requests_total{outcome="throttled"}`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import logging
import os
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
from aiohttp import hdrs, web
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from ragmon import __version__, llm_lane, memory_budget
from ragmon.capture import CaptureWriter
from ragmon.exporter import Exporter, LoopReadings
from ragmon.failures import FailureLog
from ragmon.listen import cannot_listen
from ragmon.logs import LineLimit, configure_logging, more_like_it
from ragmon.model import Example
from ragmon.options import REPLACED_VARIABLES, host_left_empty, mib, on_loopback, written_address
from ragmon.otlp.grpc import start_grpc_server
from ragmon.otlp.http import UnreadableRequests, add_metrics_port_answer, add_otlp_routes, app_runner
from ragmon.otlp.limits import HELD_BODIES, HTTP_CONNECTIONS, METRICS_CONNECTIONS, BodyBudget
from ragmon.otlp.misdirected import METRICS_PORT, OTLP_HTTP_PORT, grpc_client_advice, metrics_port_advice
from ragmon.otlp.sink import Dropped, Refused
from ragmon.otlp.sites import CappedSite
from ragmon.sampling import sampling_key
from ragmon.scoring import Lane, LaneRefusal, LexicalLane, sent_copies, working_bytes
from ragmon.semconv.extract import (
    LIMITS,
    NOTHING,
    ExtractionError,
    extract_noted,
    pipeline_service,
    records_its_callee,
    unasked_note,
)
from ragmon.semconv.unread import unread_note
from ragmon.serve_config import ServeConfig
from ragmon.serve_config import add_arguments as add_arguments  # ragmon.cli's entry point, with `run`
from ragmon.stop_signals import StoppedStarting, stop_on_signals
from ragmon.traces import PIPELINE_KEY, SERVICE_KEY, Assembler, BatchCost, Decided, Span, Trace, footprint

log = logging.getLogger("ragmon.service")

RECEIVER_GRACE = 1.0
"""Seconds a draining listener waits for requests already in progress. Once draining, the receivers
only refuse, so there is nothing worth waiting for; aiohttp's own default (60 s) would let one stalled
upload hold the stop past the pod's grace period. They close while the drain runs (`Sidecar._drain`)."""

STALL_SECONDS = 120.0
"""Seconds the first lane may hold examples (queued, waiting for room in its queue, or being scored)
without finishing one, ok or failed, before /healthz answers 503, so that the liveness probe restarts a
stuck scorer (a stopped or wedged worker). Nothing else would: queued traces have no outcome yet, and at
low traffic the queue takes hours to fill and push back. A lexical example takes milliseconds and the
worst texts found about 3 s, so a busy scorer finishes one every few seconds; 120 s is 40 times that, and
an idle one holds nothing. With the shipped probe (3 failures 10 s apart) a stuck scorer is restarted
about 2.5 minutes after its last example."""

FURTHER_LANES_SHARE = 0.25
"""The share of --max-buffer that lanes after the first (Claude) may hold in examples, all of them together:
examples queued for a call or in one, kept after the first lane has given its trace's bytes back. What would
take a lane past it is dropped as `throttled`, as when its queue is full. Counted against the mark `offer`
refuses at, they made the app's exporter get 503s: a Claude API answering after 30 s filled the buffer with
its queue while the lexical lane was idle, and 38 of 120 traces of 100 KB documents were lost (608 503s in 9
minutes at the defaults, with 260 KB documents). So the mark is 90% of what the share leaves (67.5% of
--max-buffer, not 90%), and what lexical workers take waits for room in that rest (`_room`), whatever the
lanes hold: the traces keep three quarters, and the total stays within --max-buffer. A quarter of the default
256 MiB holds a minute of calls at the default --llm-max-per-minute (60) of examples up to 1 MiB each, 250 of
260 KB, or more than --queue-size's 1,000 typical ones of 22 KB (`benchmarks/ingest.py`); a slow API still
backs up no further than that."""


@dataclass(frozen=True, slots=True)
class Ports:
    """Bound ports (useful with port 0); None for a listener that is off."""

    http: int | None
    grpc: int | None
    metrics: int | None


@dataclass(frozen=True, eq=False, slots=True)
class _Job:
    """One example on its way through a lane; identity-hashed, so it can sit in the unresolved set."""

    trace_id: str
    example: Example
    pipeline: str
    decided_at: float
    footprint: int
    """Its share of --max-buffer: its trace's footprint, or its example's when larger, and what a lexical
    worker takes to score it (`working`); given back when its outcome is counted."""
    working: int
    """What scoring it takes in a lexical worker (`ragmon.scoring.working_bytes`); 0 when the first lane is
    no lexical one. Further lanes hold only the example: they count `footprint - working`."""


class _LaneRunner:
    def __init__(self, lane: Lane, queue_size: int, primary: bool) -> None:
        self.lane = lane
        self.primary = primary
        self.queue: asyncio.Queue[_Job | None] = asyncio.Queue(maxsize=queue_size)
        self.consumers: list[asyncio.Task[None]] = []
        self.unjudged = 0
        """A second lane's examples queued or being judged. The trace's outcome is the first lane's, so
        only this says how many a drain cut short left without this judge's verdict."""
        self.busy = 0
        """Examples taken from the queue and not finished: in a worker or a call, counted by no queue, so a
        stall holding only those (up to 2 per lexical worker) showed an empty queue."""
        self.stops = 0
        """Stop markers in the queue, one a consumer put by the drain behind the last example: no example,
        so `depth` leaves them out."""
        self.unjudged_bytes = 0
        """Their traces' footprint: the examples (documents and all) stay held after the first lane has
        given its bytes back. Counted apart, so a trace both lanes hold counts twice: errs high, as
        footprint does."""
        self.max_bytes = 0
        """What `unjudged_bytes` may reach: the lane's part of `FURTHER_LANES_SHARE` (0 for the first)."""

    def depth(self) -> int:
        """Examples waiting in the queue: `ragmon_score_queue_depth`, which counted the drain's stop
        markers as examples, one a consumer, while the last examples were scored."""
        return self.queue.qsize() - self.stops


_PageKey = tuple[str, tuple[str, ...]]
"""What a page depends on: the Accept header (OpenMetrics or text) and the `name[]` filter."""


class _MetricsPages:
    """/metrics pages built on a thread of their own. At the label cap (21 pipelines, 2 judges, --capture)
    a page takes about 60 ms in the text format and 90 ms in OpenMetrics: built on the event loop, as
    prometheus_client's aiohttp handler does, it held both OTLP receivers up that long, for each scrape of
    each scraper. Builds take turns, so a burst of scrapes holds one thread, and the scrapes that arrive
    while a build runs share the next one, which starts once they have all arrived: each reads counts from
    after it came (a scrape in the drain reads the final ones), and a burst costs two builds, not one each.

    prometheus_client's collectors lock each metric; the exporter's own lock guards only which pipelines
    have labels, nothing a page reads; what reads the loop's state, and the tallies that add up with it (the
    trace ledger, spans, examples scored, claims, judge calls and their cost), goes through `LoopReadings`,
    read on the loop at one instant as a build begins."""

    def __init__(self, registry: CollectorRegistry, readings: LoopReadings) -> None:
        self._registry = registry
        self._readings = readings
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmon-metrics")
        self._turn = asyncio.Lock()
        self._next: dict[_PageKey, asyncio.Future[tuple[str, bytes]]] = {}
        """The build each kind of page waits for that has not started yet."""

    async def handle(self, request: web.Request) -> web.Response:
        """What prometheus_client's aiohttp handler answers (its content negotiation, `name[]` filter and
        aiohttp's compression, which zlibs a body over 4 KiB off the loop), the page built off the loop."""
        accept = ",".join(request.headers.getall(hdrs.ACCEPT, []))
        content_type, body = await self._page((accept, tuple(request.query.getall("name[]", []))))
        response = web.Response(body=body, headers={hdrs.CONTENT_TYPE: content_type})
        response.enable_compression()
        return response

    async def _page(self, key: _PageKey) -> tuple[str, bytes]:
        """Shielded: a scraper that hangs up leaves the build to the others waiting for it."""
        shared = self._next.get(key)
        if shared is None:
            shared = self._next[key] = asyncio.ensure_future(self._build(key))
        return await asyncio.shield(shared)

    async def _build(self, key: _PageKey) -> tuple[str, bytes]:
        async with self._turn:
            del self._next[key]  # a scrape from now on arrives after this build's counts are read
            taken = self._readings.take()
            return await asyncio.get_running_loop().run_in_executor(self._thread, self._bake, key, taken)

    def _bake(self, key: _PageKey, taken: list[object]) -> tuple[str, bytes]:
        accept, names = key
        encoder, content_type = choose_encoder(accept)
        registry = self._registry.restricted_registry(names) if names else self._registry
        with self._readings.frozen(taken):
            return content_type, encoder(registry)

    async def close(self, _app: web.Application) -> None:
        """Without waiting: a build still running ends with its scrape's connection."""
        self._thread.shutdown(wait=False)


STOPPING = "ragmon is stopping: it takes no more spans; retry later, as its successor will take them"


class Sidecar:
    """The running service. `await start()` binds the listeners and returns their ports; `await stop()`
    drains within `drain_seconds`. Tests run it in-process on port 0 (and may give it a `FailureLog` on
    a clock of their own); `ragmon serve` runs one per pod.

    A script that embeds it must keep its entry point under `if __name__ == "__main__":`: the lexical
    workers start through forkserver, which imports the main module in each worker."""

    def __init__(self, config: ServeConfig, lanes: Sequence[Lane] | None = None,
                 failures: FailureLog | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._clock = clock
        """What the trace buffer's deadlines and the learning window are read on. The decide loop sleeps on
        the event loop's timeouts, so it must be that loop's clock (time.monotonic, for asyncio's own
        loops): a test whose loop moves time by itself hands its `loop.time`."""
        self._lanes = list(lanes) if lanes is not None else [lexical_lane(config)]
        self.exporter = Exporter(window=config.window, max_pipelines=config.max_pipelines,
                                 pipelines=config.pipelines, judges=[lane.judge for lane in self._lanes],
                                 capture=config.capture is not None, transports=config.transports)
        self.assembler = Assembler(quiet=config.quiet, decision_wait=config.decision_wait,
                                   max_traces=config.max_traces,
                                   max_spans_per_trace=config.max_spans_per_trace,
                                   max_bytes=config.max_buffer, clock=clock)
        self.bodies = BodyBudget(HELD_BODIES * config.max_body)
        """The request bodies both OTLP receivers hold at once (ragmon.otlp.limits)."""
        self._runners = [_LaneRunner(lane, config.queue_size, i == 0) for i, lane in enumerate(self._lanes)]
        self._primary = self._runners[0]
        self._lexical = [lane for lane in self._lanes if isinstance(lane, LexicalLane)]
        further = [runner for runner in self._runners if not runner.primary and runner.lane.rate > 0]
        reserved = int(config.max_buffer * FURTHER_LANES_SHARE) if further else 0
        for runner in further:
            runner.max_bytes = reserved // len(further)
        self._high_water = max(1, config.max_traces * 9 // 10)
        self._traces_max = config.max_buffer - reserved
        """--max-buffer less what further lanes may hold (`FURTHER_LANES_SHARE`): what `_traces_bytes` is
        kept to, by `offer` and `_room`, so that the examples further lanes hold never refuse a trace."""
        self._bytes_high_water = self._traces_max * 9 // 10
        """The 90% marks of --max-traces and of `_traces_max`: a request that would take the buffer past
        either is refused (503), see `offer`."""
        buffer = mib(config.max_buffer)
        self._bytes_limit = (f"--max-buffer {buffer}" if not reserved else f"the {mib(self._traces_max)} of "
                             f"--max-buffer {buffer} that traces may hold beside the Claude judge's examples")
        self._queue_full = (f"ragmon is busy: its score queue is full (--queue-size {config.queue_size}): "
                            "scoring falls behind the traffic (raise --workers, or lower the sample rate); "
                            "retry later")
        """What a 503 says, in the sender's log and in ragmon's: "its score queue or trace buffer is full" had
        left the operator to read the gauges for which limit to raise, and by how much."""
        self._decided_bytes = 0
        """Footprint of the traces out of the assembler whose outcome is not counted yet."""
        self._capture = None if config.capture is None else CaptureWriter(
            config.capture, below=config.capture_below, max_bytes=config.capture_max_bytes,
            count=self.exporter.captured, lost=self.exporter.capture_lost,
            judge_settings={"threshold": config.lexical_threshold}, k=config.k, flag=config.flag("--capture"))
        reading = self.exporter.readings.wrap
        self.exporter.in_flight.set_function(reading(lambda: self.assembler.in_flight))
        self.exporter.waiting.set_function(reading(self._waiting))
        self.exporter.refused_pending.set_function(reading(lambda: self.assembler.refused_only))
        self.exporter.buffer_bytes.set_function(reading(self._held_bytes))
        self.exporter.max_traces.set(config.max_traces)
        self.exporter.max_buffer_bytes.set(config.max_buffer)
        for runner in self._runners:
            self._export_lane(runner)
        self._wake = asyncio.Event()
        self._backlog: deque[Decided] = deque()
        self._services: set[str] = set()
        """`service.name`s heard from, up to two: whether more than one service sends here (`_awaited`).
        Learnt as spans arrive (`offer`), late ones too: learnt from decided traces only, a callee whose
        spans were all refused as late was never heard, and its caller's traces went on losing them."""
        self._learning_until: float | None = None
        """Until then, `decision_wait` after the first spans, with one service heard from, others may still
        be on their way: a replica's first traces come in while the other services' exporters wait for
        their first timer. From the first spans, not the start: a pool deployed before its apps, or idle
        past its first `decision_wait`, learnt nothing in it."""
        self._unresolved: set[_Job] = set()
        self._enqueuing: _Job | None = None
        """The job the decision task holds while it waits for room for it in the first lane (`_enqueue`)."""
        self._room_made = asyncio.Event()
        """Set when the first lane finishes an example: what `_room` waits for."""
        self._primary_finished_at = 0.0
        """When the first lane last finished an example (monotonic): what /healthz measures a stall from."""
        self._outcomes: Counter[str] = Counter()
        self._failures = FailureLog(log) if failures is None else failures
        self._full_queues = LineLimit()
        """One line a minute per judge and limit that drops its examples (its calls slower than its sample of
        traffic): a full queue, its share of --max-buffer, --max-buffer."""
        self._accepting = False
        self._ready = False
        self._draining = False
        self._final_counts = False
        """Set once the drain has decided every trace: a scrape from then on reads the final counts."""
        self._scraped_final = asyncio.Event()
        self._decider: asyncio.Task[None] | None = None
        self._runners_web: list[web.AppRunner] = []
        self._otlp_web: web.AppRunner | None = None
        self._otlp_ports: tuple[int | None, int | None] = (None, None)
        """The OTLP/HTTP and gRPC ports bound, for what the metrics port tells a misdirected exporter."""
        self._grpc: grpc.aio.Server | None = None

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self, stop: asyncio.Event | None = None) -> Ports:
        """Bind, start the lanes and return the ports; `stop` set while start-up waits on what is outside
        ragmon (a capture pipe's reader) raises `StoppedStarting`."""
        cfg = self.config
        try:
            metrics_port = await self._serve_web(self._metrics_app(), cfg.metrics_listen, "metrics",
                                                 self._unreadable(METRICS_PORT, otlp=False))
            if self._capture is not None:
                await self._capture.start(stop)
            for runner in self._runners:
                await runner.lane.start()
            self._decider = asyncio.create_task(self._decide_loop(), name="ragmon-decide")
            for runner in self._runners:
                name = f"ragmon-{runner.lane.judge}"
                runner.consumers = [asyncio.create_task(self._consume(runner), name=name)
                                    for _ in range(runner.lane.concurrency)]
            self._accepting = True
            http_port = None
            if cfg.http_listen is not None:
                app = web.Application()
                add_otlp_routes(app, self, max_body=cfg.max_body, max_values=cfg.max_values, token=cfg.token,
                                bodies=self.bodies)
                http_port = await self._serve_web(app, cfg.http_listen, "OTLP/HTTP",
                                                  self._unreadable(OTLP_HTTP_PORT, otlp=True), otlp=True)
            grpc_port = None
            if cfg.grpc_listen is not None:
                self._grpc, grpc_port = await start_grpc_server(cfg.grpc_listen, self, max_body=cfg.max_body,
                                                                max_values=cfg.max_values, token=cfg.token,
                                                                bodies=self.bodies,
                                                                flag=cfg.flag("--grpc-listen"))
        except BaseException:
            await self._cancel_tasks()
            await self._shutdown_now()
            raise
        self._ready = True
        self._otlp_ports = (http_port, grpc_port)
        ports = Ports(http_port, grpc_port, metrics_port)
        log.info("ragmon serve ready", extra={"version": __version__, "http_port": ports.http,
                                              "grpc_port": ports.grpc, "metrics_port": ports.metrics})
        return ports

    async def stop(self) -> None:
        """Stop accepting (readyz turns 503), decide and score what is buffered within drain_seconds,
        count what is left as `error`, and close everything."""
        if self._draining:
            return
        self._draining = True
        self._ready = False
        self._accepting = False
        log.info("draining", extra={"traces_in_flight": self.assembler.in_flight,
                                    "drain_seconds": self.config.drain_seconds})
        self._wake.set()
        await asyncio.gather(self._close_receivers(), self._drain())
        left = self._resolve_leftovers()
        if left:
            log.warning("drain deadline passed; unscored traces counted as error", extra={"count": left})
        for runner in self._runners:
            if runner.unjudged:
                log.warning("drain deadline passed; examples sampled for this judge left unjudged",
                            extra={"judge": runner.lane.judge, "count": runner.unjudged})
        self._empty_first_lane()
        await self._await_final_scrape()
        await self._shutdown_now()
        log.info("stopped", extra={"outcomes": dict(self._outcomes)})

    async def _await_final_scrape(self) -> None:
        """Prometheus pulls: what the drain decided after the last scrape (a whole drain of outcomes, and
        the `error`s it left) reached the log only, and the counters went with the process. With
        --final-scrape-wait, /metrics stays up until a page with the outcomes is scraped once more
        (`_scrape`), or that long has passed.

        The line that starts the wait gives the final outcomes: the grace period may end in the wait (an
        app slow to stop, docs/deploy.md), and its SIGKILL left them in neither the scrape nor the log,
        the "stopped" line being never written."""
        self._final_counts = True
        wait = self.config.final_scrape_wait
        if wait <= 0 or self.config.metrics_listen is None:
            return
        log.info("waiting for a final scrape of /metrics",
                 extra={"final_scrape_wait": wait, "outcomes": dict(self._outcomes)})
        try:
            await asyncio.wait_for(self._scraped_final.wait(), wait)
        except TimeoutError:
            log.warning("no scrape of /metrics within --final-scrape-wait: the last outcomes are in the log "
                        "only", extra={"final_scrape_wait": wait})

    async def _drain(self) -> None:
        """Let the decision task and the lanes finish what is buffered, for --drain-seconds from the stop.
        Not from the receivers' close: waiting for it (`RECEIVER_GRACE` for each listener) had put off
        the drain, and so the stop, by up to 2 s past what the pod's grace period was sized for, while the
        receivers took nothing: `offer` refuses from the stop on."""
        tasks = self._tasks()
        if tasks:
            await asyncio.wait(tasks, timeout=self.config.drain_seconds)
        await self._cancel_tasks()

    def _tasks(self) -> list[asyncio.Task[None]]:
        decider = [] if self._decider is None else [self._decider]
        return decider + [c for r in self._runners for c in r.consumers]

    async def _cancel_tasks(self) -> None:
        tasks = self._tasks()
        for task in tasks:
            task.cancel()
        for result in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(result, Exception):
                log.error("internal task failed", exc_info=result)

    async def _shutdown_now(self) -> None:
        await self._close_receivers()
        for runner in reversed(self._runners_web):
            await runner.cleanup()
        self._runners_web.clear()
        for lane_runner in self._runners:
            await lane_runner.lane.close()
        if self._capture is not None:
            await self._capture.close()

    async def _close_receivers(self) -> None:
        if self._grpc is not None:
            server, self._grpc = self._grpc, None
            await server.stop(RECEIVER_GRACE)
        if self._otlp_web is not None:
            runner, self._otlp_web = self._otlp_web, None
            self._runners_web.remove(runner)
            await runner.cleanup()

    def _unreadable(self, where: str, *, otlp: bool) -> UnreadableRequests:
        """What the port `where` does with a request aiohttp cannot parse: a gRPC client there is told the
        OTLP ports bound, known only once it serves (like the metrics port's answer)."""
        return UnreadableRequests(self, lambda: grpc_client_advice(where, *self._otlp_ports), otlp=otlp)

    async def _serve_web(self, app: web.Application, address: tuple[str, int] | None, what: str,
                         unreadable: UnreadableRequests, otlp: bool = False) -> int | None:
        if address is None:
            return None
        # The OTLP receiver inflates bodies itself, bounded by --max-body (see ragmon.otlp.http).
        runner = app_runner(app, unreadable, access_log=None, auto_decompress=not otlp,
                            shutdown_timeout=RECEIVER_GRACE)
        await runner.setup()
        self._runners_web.append(runner)
        if otlp:
            self._otlp_web = runner
        host, port = address
        try:
            limit = HTTP_CONNECTIONS if otlp else METRICS_CONNECTIONS
            await CappedSite(runner, host, port, limit=limit, what=what).start()
        except OSError as exc:
            flag = self.config.flag("--http-listen" if otlp else "--metrics-listen")
            raise cannot_listen(what, host, port, flag, exc, otlp=otlp) from None
        return int(runner.addresses[0][1])

    def _metrics_app(self) -> web.Application:
        cfg = self.config
        app = web.Application()
        pages = _MetricsPages(self.exporter.registry, self.exporter.readings)
        app.on_cleanup.append(pages.close)
        app.router.add_get("/metrics", self._scrape(pages.handle))
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        add_metrics_port_answer(app, self, token=cfg.token,
                                message=lambda: metrics_port_advice(*self._otlp_ports))
        return app

    def _scrape(self, handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
                ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """/metrics, noting a scrape that read the final outcomes (`_await_final_scrape`): a GET (a HEAD
        reads nothing) of a page that carries them. A page filtered to other series (`name[]`, a probe
        reading ragmon_build_info) ended the wait with the outcomes unread, and without the warning."""
        async def scrape(request: web.Request) -> web.StreamResponse:
            final = self._final_counts
            response = await handler(request)
            if final and response.status == 200 and request.method == "GET" and _carries_outcomes(request):
                self._scraped_final.set()
            return response

        return scrape

    async def _healthz(self, request: web.Request) -> web.Response:
        """503 once the first lane has held examples for `STALL_SECONDS` without finishing one: the
        liveness probe then restarts the process, whose drain counts what it held as `error`. Logged each
        time, as the kubelet's event gives the status and not this body."""
        held, stalled = self._primary_stall()
        if stalled <= STALL_SECONDS:
            return web.Response(text="ok\n")
        judge = self._primary.lane.judge
        reason = (f"{judge} scoring stalled: {held} examples held, none finished for {stalled:.0f} s "
                  f"(limit {STALL_SECONDS:g} s)")
        log.error(reason, extra={"judge": judge, "examples": held, "stalled_seconds": round(stalled)})
        return web.Response(status=503, text=reason + "\n")

    def _primary_stall(self) -> tuple[int, float]:
        """The examples the first lane holds, and the seconds since it last made progress: since it last
        finished one, or since the oldest of them was decided when that came later (an idle lane that gets
        an example has not been stalled all the while). 0 seconds when it holds none."""
        if not self._unresolved:
            return 0, 0.0
        oldest = min(job.decided_at for job in self._unresolved)
        return len(self._unresolved), self._clock() - max(self._primary_finished_at, oldest)

    async def _readyz(self, request: web.Request) -> web.Response:
        if self._ready:
            return web.Response(text="ready\n")
        return web.Response(status=503, text="draining\n" if self._draining else "starting\n")

    @property
    def ready(self) -> bool:
        return self._ready

    # --- SpanSink -----------------------------------------------------------------------------------

    def offer(self, spans: Sequence[Span], transport: str) -> bool | Dropped | Refused:
        """Refused (the receivers answer 503 + Retry-After) while draining, while the score queue is full,
        and when taking the request would fill the trace buffer past 90%, in traces or in --max-buffer. A
        trace waits `--quiet` in the buffer before it reaches the queue, so a free queue slot says nothing
        of the buffer: under overload, taking all the clients had backed up would fill it within the quiet
        period and evict traces already answered 200, which no exporter resends (38% of them in
        `benchmarks/soak.py`'s overload phase). The buffer is counted with the request in it (the traces
        it opens, the bytes of all its spans, those of traces already buffered too: `Assembler.measure`),
        as one request may hold a Collector's batch of 8,192 traces: counted without it, such a batch came
        at 16,384 buffered of 20,000, was answered 200 and evicted 4,576 traces. One over the 90% mark on
        its own is taken once the buffer holds nothing (`_fits`); one over the limit itself, which no
        buffer holds without evicting traces of its own, is refused for good (too_large: 413, gRPC
        RESOURCE_EXHAUSTED) rather than retried forever. Once taken, the spans the assembler lost (late,
        too_many_spans, too_many_bytes) by reason, and the late ones by what decided their trace, for the
        sender's partial success (SpanSink.offer); True when it lost none."""
        if not self._accepting:
            # A request read before the receivers closed: busy was no reason, and the queue empty.
            return Refused("backpressure", STOPPING, len(spans))
        if self._primary.queue.full():
            return Refused("backpressure", self._queue_full, len(spans))
        cost = self.assembler.measure(spans)
        if (never := _never_fits(cost, self.config)) is not None:
            return Refused("too_large", never, len(spans))
        if not _fits(held := self.assembler.in_flight, cost.traces, self._high_water):
            full = _buffer_full(held, cost.traces, self._high_water, "traces",
                                f"--max-traces {self.config.max_traces}")
            return Refused("backpressure", full, len(spans))
        if not _fits(held := self._traces_bytes(), cost.bytes, self._bytes_high_water):
            full = _buffer_full(held, cost.bytes, self._bytes_high_water, "bytes", self._bytes_limit)
            return Refused("backpressure", full, len(spans))
        self.exporter.spans_received(transport, len(spans))
        if len(self._services) < 2:
            if self._learning_until is None:
                self._learning_until = self._clock() + self.config.decision_wait
            _learn_services(self._services, spans)
        refused: Counter[str] = Counter()
        late_by: Counter[str] = Counter()
        add = self.assembler.add
        for span, size in zip(spans, cost.span_bytes, strict=True):
            status = add(span, size)
            if status != "accepted":
                refused[status] += 1
                if status == "late":
                    decided_by = self.assembler.decided_by(span.trace_id)
                    late_by[decided_by] += 1
                    self._failures.late(span, decided_by, self.config)
        for reason, count in refused.items():
            self.exporter.spans_rejected(reason, count)
        self._wake.set()
        refused.pop("duplicate", None)  # a resend of a span the trace has or had: nothing is lost
        return Dropped(refused, late_by) if refused else True

    def _export_lane(self, runner: _LaneRunner) -> None:
        """A lane's queue, and what only some lanes have: the lexical pool's replacements, Claude's budget."""
        lane, exporter = runner.lane, self.exporter
        reading = exporter.readings.wrap
        exporter.queue_depth.labels(lane.judge).set_function(reading(runner.depth))
        exporter.in_progress.labels(lane.judge).set_function(reading(lambda: runner.busy))
        exporter.queue_size.labels(lane.judge).set(runner.queue.maxsize)
        if isinstance(lane, LexicalLane):
            exporter.count_pool_replacements(lambda: lane.restarts, lambda: lane.recycles)
        elif isinstance(lane, llm_lane.ClaudeLane):
            # A call the drain's deadline cancels returns no outcome to `_score`: the lane says it here.
            lane.on_cancelled = lambda cut: exporter.judge_request(lane.judge, cut.outcome, cut.duration,
                                                                   cut.cost_usd)
            budget = lane.budget
            exporter.budget.labels(lane.judge).set(budget.usd_per_day)
            committed = reading(lambda: budget.spent + budget.reserved)
            exporter.committed.labels(lane.judge).set_function(committed)

    def _held_bytes(self) -> int:
        """What --max-buffer bounds (ragmon_buffer_bytes): `_traces_bytes` and the examples further lanes
        still hold."""
        return self._traces_bytes() + sum(runner.unjudged_bytes for runner in self._runners)

    def _traces_bytes(self) -> int:
        """What `offer`'s mark is measured on: the traces in the assembler (evicted ones until collected),
        decided ones until their outcome is counted, and what lexical workers keep over their share until
        they are replaced. Not what further lanes hold: the mark leaves them their share, and a lane at it
        drops examples rather than have the app's spans refused."""
        return (self.assembler.held_bytes + self._decided_bytes
                + sum(lane.over_share for lane in self._lexical))

    def reject(self, count: int, reason: str) -> None:
        self.exporter.spans_rejected(reason, count)

    def misdirected(self, transport: str, signal: str) -> None:
        self.exporter.requests_misdirected(transport, signal)

    # --- decisions ----------------------------------------------------------------------------------

    async def _decide_loop(self) -> None:
        """Sleep until the assembler's next deadline or a new span, then route what is decided. On drain,
        route everything still buffered, then tell each lane's consumers to finish."""
        while not self._draining:
            deadline = self.assembler.next_deadline()
            delay = None if deadline is None else deadline - self._clock()
            if delay is None or delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
            self._wake.clear()
            self._take(self.assembler.pop_decided())
            await self._route_backlog()
        self._take(self.assembler.drain())
        await self._route_backlog()
        for runner in self._runners:
            for _ in runner.consumers:
                await runner.queue.put(None)
                runner.stops += 1  # no consumer runs between the put and this line

    def _take(self, decided: list[Decided]) -> None:
        self._decided_bytes += sum(d.footprint for d in decided)
        self._backlog.extend(decided)

    async def _route_backlog(self) -> None:
        while self._backlog:
            await self._route(self._backlog.popleft())

    def _held_for_more(self, decided: Decided, example: Example | None) -> bool:
        """Whether the trace just decided is taken back to wait for other services' parts (`_awaited`):
        `example` None for one that recorded neither documents nor an answer (a caller recording only the
        question had been an error at once, its callee's documents and answer refused as late when they
        came); a trace failing otherwise, a malformed attribute say, is not waited for."""
        callers = len(self._services) > 1 or (self._learning_until is not None
                                              and self._clock() < self._learning_until)
        awaited = _awaited(decided, example, callers=callers)
        if awaited is not None and not self._draining and self.assembler.defer(decided, awaited):
            self._decided_bytes -= decided.footprint
            return True
        return False

    async def _route(self, decided: Decided) -> None:
        trace = decided.trace
        if decided.reason == "evicted":
            self._outcome(self._trace_pipeline(trace), "evicted", decided.footprint)
            return
        if decided.reason == "refused":  # nothing of it to extract
            pipeline = self._trace_pipeline(trace)
            self._failures.refused(trace, pipeline)
            self._outcome(pipeline, "error", decided.footprint)
            return
        try:
            example, set_aside = extract_noted(trace)
        except Exception as exc:
            rag = isinstance(exc, ExtractionError)
            nothing = isinstance(exc, ExtractionError) and exc.attribute == NOTHING
            if nothing and self._held_for_more(decided, None):
                return  # "neither documents nor an answer": they may be in a callee's part on its way
            pipeline = self._trace_pipeline(trace, rag=rag)
            self._failures.misnamed(trace)
            if rag:
                self._failures.rag(trace)
            self._failures.unextractable(trace, pipeline, exc)
            self._outcome(pipeline, "error", decided.footprint)
            return
        if self._held_for_more(decided, example):
            return
        misnamed = self._failures.misnamed(trace)  # once the trace is whole: not again if deferred
        if example is None:
            pipeline = self._trace_pipeline(trace)
            if (why := unread_note(trace) or (TRUNCATED if trace.spans_lost else None)) is not None:
                self._failures.unread(trace, pipeline, why)
            elif not misnamed:
                self._failures.unmarked(trace, pipeline)
            self._outcome(pipeline, "not_rag", decided.footprint)
            return
        self._failures.rag(trace)
        origin = functools.partial(_name_origin, trace, example.pipeline)
        pipeline = self.exporter.pipeline_label(example.pipeline, origin=origin)
        if example.contexts is None and example.answer is not None:
            self._failures.undocumented(trace, pipeline)
        elif not example.question and example.answer is not None:
            self._failures.unasked(trace, pipeline, unasked_note(trace))
        if set_aside is not None:
            self._failures.set_aside(trace, pipeline, set_aside)
        key = sampling_key(trace.trace_id)
        # The example, not the trace, is what the lanes hold, and it may be larger: a JSON string attribute
        # of ASCII with one escaped emoji ("\\ud83d\\ude00") decodes to a text of 4 bytes a character.
        held = max(decided.footprint, footprint(example))
        sampled = key < self._primary.lane.rate
        working = working_bytes(example) if sampled and isinstance(self._primary.lane, LexicalLane) else 0
        if working:
            held += sent_copies(example)
        if working and held + working > self.config.max_buffer:
            self._failures.too_large(trace.trace_id, pipeline, held + working, self.config.max_buffer)
            self._outcome(pipeline, "error", decided.footprint)
            return
        self._decided_bytes += held - decided.footprint
        job = _Job(trace.trace_id, example, pipeline, decided.decided_at, held + working, working)
        for runner in self._runners:
            if key >= runner.lane.rate:
                if runner.primary:
                    self._outcome(pipeline, "not_sampled", job.footprint)
            elif runner.primary:
                self._unresolved.add(job)
                await self._enqueue(runner.queue, job)
            elif (full := self._full(runner, job.footprint - job.working)) is not None:
                judge = runner.lane.judge
                self.exporter.judge_request(judge, "throttled")
                if (suppressed := self._full_queues.admit((judge, full[0]))) is not None:
                    log.info(more_like_it(f"{judge} judge throttled: {full[1]}, so a sampled example is left "
                                          "unjudged", suppressed), extra={"judge": judge, "limit": full[0]})
            else:
                runner.queue.put_nowait(job)
                runner.unjudged += 1
                runner.unjudged_bytes += job.footprint - job.working

    def _full(self, runner: _LaneRunner, held: int) -> tuple[str, str] | None:
        """Why a further lane drops an example that holds `held` bytes (the limit's flag, and what to log),
        never pushing back on the app; None when it takes it. Its queue is full, or the example would take
        what the lane holds past its share of --max-buffer (`FURTHER_LANES_SHARE`), or the buffer past
        --max-buffer itself (the first lane's examples may take it there while a worker scores them)."""
        if runner.queue.full():
            return "--queue-size", f"its queue (--queue-size {runner.queue.maxsize}) is full"
        buffer = mib(self.config.max_buffer)
        if runner.unjudged_bytes + held > runner.max_bytes:
            return "share of --max-buffer", (f"its examples would hold more than its share of --max-buffer "
                             f"({mib(runner.max_bytes)} of {buffer})")
        if self._held_bytes() + held > self.config.max_buffer:
            return "--max-buffer", f"the buffer (--max-buffer {buffer}) is full"
        return None

    async def _enqueue(self, queue: asyncio.Queue[_Job | None], job: _Job) -> None:
        """Into the first lane's queue once there is room: in --max-buffer to score it (`_room`), then in the
        queue itself. Held meanwhile in `_enqueuing`, for `ragmon_traces_waiting`: a trace waiting here is
        out of the assembler, with no outcome and in no queue, and no gauge showed it while overloaded."""
        self._enqueuing = job
        try:
            if job.working:
                await self._room(job)
            await queue.put(job)
        finally:
            self._enqueuing = None

    def _waiting(self) -> int:
        """`ragmon_traces_waiting`: decided traces with no outcome yet that no other gauge shows. Those the
        decision task has yet to route (its backlog, and the one it holds in `_enqueue`) and those the
        assembler decided early and has yet to hand on, which it does not while the decision task waits:
        back-pressure, what --workers relieves. Traces whose every span so far was refused wait out their
        decision wait instead (`ragmon_traces_refused_pending`). So traces taken = outcomes + in flight +
        waiting + refused pending + the first judge's queue depth and in progress."""
        return len(self._backlog) + (self._enqueuing is not None) + self.assembler.decided_early

    async def _room(self, job: _Job) -> None:
        """Counts what scoring `job` takes in a lexical worker (`working_bytes`) against --max-buffer,
        first waiting, while that would take the buffer past it and other examples are queued or being
        scored, for them to finish and give theirs back: queued, examples are scored two per worker at
        once, and a worker's memory grows with the text it reads. With nothing else in the lane, it goes
        (what the buffer holds besides is traces, which only deciding them gives back). Meanwhile the
        decision task waits, as for a full queue, so the buffer fills and `offer` answers 503. Measured
        without what further lanes hold, against what their share leaves (`_traces_max`), so that a slow
        Claude never holds the first lane back either."""
        try:
            while self._traces_bytes() + job.working > self._traces_max and len(self._unresolved) > 1:
                self._room_made.clear()
                await self._room_made.wait()
        finally:  # cancelled by the drain's deadline too: its outcome, then counted, gives it all back
            self._decided_bytes += job.working

    def _trace_pipeline(self, trace: Trace, *, rag: bool = False) -> str:
        """Pipeline label of a trace that yields no example: its `ragmon.pipeline`, which names a RAG
        pipeline by declaration and so may take a label of its own (a pipeline whose every trace is cut
        short by an attribute limit must not hide in `other`); else its `service.name`, only when that
        name has a label already (see `Exporter.pipeline_label`) or the trace is known to be RAG (`rag`:
        extraction refused it, which it does only to RAG work, so that a new service whose every trace
        is an error gets the label its alert is for); else `other`.

        Read leniently: this trace may be here precisely because those attributes are malformed. The
        service of a RAG trace is the one extraction names pipelines after (`pipeline_service`), not the
        first span's: in a pool, a called retriever service's spans often come first.

        A trace whose every span was refused holds none to read, so its first refused span's name stands
        in (`Trace.named_by`), by the same rules: a service's errors must reach its own label, where its
        alerts look. Its service is not known to be RAG, though: the span was refused for its size before
        anything read it, and in a pool a service that is not RAG (a request body recorded whole) would
        take a label for good from the RAG pipelines that come after it."""
        for source, key in (("attributes", PIPELINE_KEY), ("resource", SERVICE_KEY)):
            found: Iterable[object] = (getattr(span, source).get(key) for span in trace.spans)
            if source == "resource" and rag:
                found = itertools.chain([pipeline_service(trace)], found)
            if trace.named_by is not None and trace.named_by[0] == key:  # no spans: all were refused
                found = [trace.named_by[1]]
            name = next((name for name in found if isinstance(name, str) and name), None)
            if name is not None:
                return self.exporter.pipeline_label(name, claim=rag or key == PIPELINE_KEY,
                                                    origin=functools.partial(_name_origin, trace, name))
        return self.exporter.pipeline_label(None, claim=False)

    def _outcome(self, pipeline: str, outcome: str, footprint: int) -> None:
        self._decided_bytes -= footprint
        self._outcomes[outcome] += 1
        self.exporter.trace_outcome(pipeline, outcome)

    def _resolve_leftovers(self) -> int:
        """After the drain deadline: what is still buffered, decided or queued becomes `error` (an
        eviction stays `evicted`), each trace exactly once. Returns how many became `error`, the figure the
        warning gives: an eviction waiting in the backlog is no trace the drain left unscored."""
        self._take(self.assembler.drain())
        left = len(self._unresolved)
        for decided in self._backlog:
            outcome = "evicted" if decided.reason == "evicted" else "error"
            left += outcome == "error"
            self._outcome(self._trace_pipeline(decided.trace), outcome, decided.footprint)
        for job in self._unresolved:
            self._outcome(job.pipeline, "error", job.footprint)
        self._backlog.clear()
        self._unresolved.clear()
        return left

    def _empty_first_lane(self) -> None:
        """After the drain deadline, once the first lane's examples are counted `error`
        (`_resolve_leftovers`): what its queue still holds is abandoned, and the final page must not show it
        again. Left there, 1,896 traces a drain cut short were counted `error` and in the queue depth at
        once, and the ledger (traces taken = outcomes + ... + the first judge's queue depth) read them
        twice. A further lane's examples are counted nowhere else (its judge decides no outcome), so its
        queue depth stays: the final page's one count of the examples that judge never judged."""
        runner = self._primary
        while not runner.queue.empty():
            runner.queue.get_nowait()
        runner.stops = 0

    # --- scoring ------------------------------------------------------------------------------------

    async def _consume(self, runner: _LaneRunner) -> None:
        while (job := await runner.queue.get()) is not None:
            runner.busy += 1
            try:
                outcome = await self._score(runner.lane, job)
            except Exception as exc:
                # A bug past the judge (exporting, capturing): this trace is an error and the lane goes
                # on. A consumer that died here would leave every later trace unscored and uncounted.
                self._failures.recording_failed(job.trace_id, runner.lane.judge, exc)
                outcome = "error"
            finally:
                runner.busy -= 1
            self._finish(runner, job, outcome)
        runner.stops -= 1  # this consumer's

    async def _score(self, lane: Lane, job: _Job) -> str:
        judge = lane.judge
        try:
            scored = await lane.score(job.example)
        except LaneRefusal as refusal:
            self.exporter.judge_request(judge, refusal.outcome, refusal.duration, refusal.cost_usd)
            return "error"
        except Exception as exc:
            self._failures.scoring_failed(job.trace_id, judge, exc)
            self.exporter.judge_request(judge, "error")
            return "error"
        took = scored.duration if scored.outcome == "ok" else None  # `cached`: no call, so no call's time
        self.exporter.judge_request(judge, scored.outcome, took, scored.cost_usd)
        self.exporter.example_scored(job.pipeline, judge, scored.result, job.trace_id)
        if self._capture is not None and lane is self._primary.lane:
            # The first lane only: a second judge's record would repeat the trace id, which replay refuses.
            self._capture.offer(scored.result, job.trace_id, job.pipeline)
        return "scored"

    def _finish(self, runner: _LaneRunner, job: _Job, outcome: str) -> None:
        if not runner.primary:
            runner.unjudged -= 1
            runner.unjudged_bytes -= job.footprint - job.working
            return
        self._primary_finished_at = self._clock()
        if job in self._unresolved:
            self._unresolved.discard(job)
            self._outcome(job.pipeline, outcome, job.footprint)
            self._room_made.set()
            if outcome == "scored":
                self.exporter.score_lag(self._clock() - job.decided_at)


OUTCOMES_SERIES = "ragmon_traces_total"


def _carries_outcomes(request: web.Request) -> bool:
    """Whether a /metrics request's page holds `OUTCOMES_SERIES`: an unfiltered one, or one whose
    `name[]` filter (prometheus_client's, by series name) names it."""
    names = request.query.getall("name[]", [])
    return not names or OUTCOMES_SERIES in names


def _fits(held: int, added: int, high_water: int) -> bool:
    """Whether a request that adds `added` to the `held` of the trace buffer (traces or bytes) is taken:
    when the buffer stays within its high-water mark. One over the mark on its own (and within the limit:
    `_never_fits`) is taken when the buffer holds nothing, as it never fits better: held to the mark, it
    would be refused forever."""
    return held + added <= max(high_water, added)


def _buffer_full(held: int, added: int, mark: int, unit: str, limit: str) -> str:
    """Why a request is refused for now: the `added` it brings to the `held` of the trace buffer (traces or
    bytes) pass `mark`, 90% of `limit` (a flag with its value)."""
    return (f"ragmon is busy: its trace buffer holds {held} {unit} and this request would add {added}, past "
            f"{mark} (90% of {limit}): traces arrive faster than they are decided and scored; retry later")


def _never_fits(cost: BatchCost, config: ServeConfig) -> str | None:
    """Why a request is refused for good, as no buffer holds it without evicting traces of its own (their
    sender told they were taken), and a 503 would have it retried forever; None when it may fit."""
    if cost.traces > config.max_traces:
        what, flag, limit = f"open {cost.traces} traces", "--max-traces", str(config.max_traces)
    elif cost.bytes > config.max_buffer:
        what, flag = f"hold {cost.bytes} bytes once decoded", "--max-buffer"
        limit = f"{config.max_buffer} bytes"
    else:
        return None
    return (f"the request's spans would {what}, more than ragmon's trace buffer holds even when empty "
            f"({flag} {limit}): send smaller batches (the SDK's OTEL_BSP_MAX_EXPORT_BATCH_SIZE, the "
            f"Collector's send_batch_max_size) or raise {flag}")


TRUNCATED = ("it lost spans to the sidecar's limits for one trace, and the spans kept show no RAG work: its "
             "root, with the question and answer, ends last and may be among those lost (" + LIMITS + ")")
"""Why a `not_rag` trace that lost spans may be RAG after all (a RAG one is an `error`: extraction)."""


def _awaited(decided: Decided, example: Example | None, *, callers: bool) -> frozenset[str] | None:
    """Whether a trace just decided may be only one service's part of it, the rest on its way from other
    services (`Assembler.defer`), and what it waits for; None when it is whole.

    Two shapes of a multi-service trace sent to one ragmon (the Collector gateway of the scale-out shape
    routes every service's spans of a trace to one replica), each service's exporter sending its part on
    its own timer (5 s by default, so either part may come first):
    - no span without a parent: a callee's part came before its caller's; it waits for the caller's root
      (an empty set). When it holds no whole RAG answer (question, documents and answer: a retriever
      service called first ends first), the answer may be in the caller's part; when it does, the caller's
      spans would only be refused as `late`, a loss alarm (RagmonSpansRejected) for nothing lost, so it
      waits too once more than one service sends here, or may (`callers`: in the first `--decision-wait`
      after start too, before every service's exporter has sent its first batch);
    - the caller's part came first: a call to another service (a CLIENT span with no child here, not to a
      database nor a model's, a vector store's or a reranker's API, or a PRODUCER span: a question put on
      a queue, answered by a worker's CONSUMER) is awaited, so that its callee's part, documents say,
      joins it, when the trace holds no whole RAG answer and more than one service sends here: a sidecar
      hears from its own app alone, and nearly every request of an app calls something, so holding each
      for `--decision-wait` would buy nothing there.
    A trace decided on a timeout is never held. In the sidecar shape, the traces held are those of requests
    with no RAG answer that came with a traceparent."""
    if decided.reason != "complete":
        return None
    whole = example is not None and example.answer is not None and example.contexts is not None
    if whole and not callers:  # the usual case, decided before any span is looked at
        return None
    spans = decided.trace.spans
    if all(span.parent_span_id is not None for span in spans):
        return frozenset()
    if whole or not callers:
        return None
    parents = {span.parent_span_id for span in spans}
    calls = frozenset(span.span_id for span in spans if span.kind in _CALLS and span.span_id not in parents
                      and not any(key in span.attributes for key in _DATABASE_KEYS)
                      and not records_its_callee(span))
    return calls or None


def _learn_services(services: set[str], spans: Sequence[Span]) -> None:
    """The spans of one resource (one service's batch) come in a run sharing its mapping: one look each."""
    resource = None
    for span in spans:
        if span.resource is not resource:
            resource = span.resource
            services.add(str(resource.get("service.name")))


_CALLS = (3, 4)
"""CLIENT and PRODUCER: a message put on a queue is a call too, answered by its CONSUMER in the same trace."""
_DATABASE_KEYS = ("db.system", "db.system.name")
"""A database call's span has no child in another service (semantic conventions, before and after 1.26)."""


def _name_origin(trace: Trace, name: str | None) -> dict[str, str]:
    """Where a pipeline name came from, for the lines the exporter logs when it shortens one or the
    `--max-pipelines` cap first refuses one: the trace, and
    the attribute, as extraction and `_trace_pipeline` choose it (a span's ragmon.pipeline, else the
    resource's service.name)."""
    declared = (trace.named_by == (PIPELINE_KEY, name)
                or any(span.attributes.get(PIPELINE_KEY) == name for span in trace.spans))
    return {"trace_id": trace.trace_id, "source": PIPELINE_KEY if declared else SERVICE_KEY}


# --- CLI ---------------------------------------------------------------------------------------------

def lexical_lane(config: ServeConfig) -> LexicalLane:
    return LexicalLane(rate=config.sample_rate, k=config.k, workers=config.workers,
                       threshold=config.lexical_threshold)


def build_lanes(args: argparse.Namespace, config: ServeConfig) -> list[Lane]:
    """The lexical lane first (it decides trace outcomes), then Claude when --llm-sample-rate > 0."""
    lanes: list[Lane] = [lexical_lane(config)]
    claude = llm_lane.lane_from_args(args, sample_rate=config.sample_rate, k=config.k)
    if claude is not None:
        lanes.append(claude)
    return lanes


def log_judges(args: argparse.Namespace, environ: Mapping[str, str]) -> None:
    """Say which judges run, and warn when ANTHROPIC_API_KEY is set with Claude off: a key alone turns
    nothing on (the LLM judge costs money, so it is off until given a share of traces), and without this
    line a user who set only the key would see no sign that Claude judges nothing."""
    lexical = f"lexical on {percent(args.sample_rate)} of RAG traces"
    if args.llm_sample_rate > 0:
        claude = (f"claude ({args.llm_model}) on {percent(args.llm_sample_rate)} of RAG traces, at most "
                  f"{args.llm_max_per_minute:g} calls a minute and {args.llm_budget_usd_per_day:g} USD a day")
    else:
        claude = "claude off (--llm-sample-rate 0)"
    log.info(f"judges: {lexical}; {claude}")
    if args.llm_sample_rate <= 0 and environ.get("ANTHROPIC_API_KEY"):
        log.warning("ANTHROPIC_API_KEY is set but the Claude judge is off: to turn it on, give it a share of "
                    "traces with --llm-sample-rate or RAGMON_LLM_SAMPLE_RATE (e.g. 0.01 for 1%)")


def warn_of_unused_settings(config: ServeConfig) -> None:
    """Settings silently of no effect. The capture settings without --capture only once the user chose them
    (`ServeConfig.chose`): a RAGMON_* variable is a default set for every replica, of no effect on those
    that chose otherwise (no --capture), where a warning on every start would be noise. The others however
    they were set, as no default makes them: a trace is decided at --decision-wait whatever its spans, so
    one no longer than --quiet leaves quiet no trace to decide, on every replica that has both (the
    manifests set both as variables); --capture-below 0 with --capture captures nothing; a final-scrape wait
    (0 s, no wait, by default) has no /metrics to wait for with --metrics-listen off."""
    quiet, decision_wait = config.flag("--quiet"), config.flag("--decision-wait")
    if config.decision_wait <= config.quiet:
        log.warning(f"{decision_wait.given(f'{config.decision_wait:g}s')} is no longer than "
                    f"{quiet.given(f'{config.quiet:g}s')}: every trace is decided at --decision-wait, and "
                    "--quiet has no effect")
    chosen = [option for option in ("--capture-below", "--capture-max-bytes") if config.chose(option)]
    if config.capture is None and chosen:
        log.warning(f"{' and '.join(chosen)} set without --capture: nothing is captured")
    elif config.capture is not None and config.capture_below <= 0:
        below = config.flag("--capture-below").given("0")
        log.warning(f"{below} captures nothing: no groundedness is below 0 (use 'all' for every example)")
    if config.final_scrape_wait > 0 and config.metrics_listen is None:
        wait = config.flag("--final-scrape-wait").given(f"{config.final_scrape_wait:g}s")
        off = config.flag("--metrics-listen").given("off")
        log.warning(f"{wait} is set with {off}: there is no /metrics to wait for")


_OTLP_LISTENERS = ("--http-listen", "--grpc-listen")
_EVERY_INTERFACE = {"0.0.0.0": "every IPv4 interface", "::": "every interface"}


def warn_of_open_receivers(config: ServeConfig) -> None:
    """A line when an OTLP receiver listens beyond loopback without a token: whoever reaches the port may
    send spans, pick which of its traces are scored (the sampling key is public) and fill the buffer. An
    address written on purpose is often meant (the Collector's pool behind a NetworkPolicy, as
    deploy/otel-collector/ragmon.yaml has, which a warning at every start would teach to ignore), so that
    is told at info; an empty host (`--http-listen :4318`), every interface with no address written,
    is warned about."""
    if config.token is not None:
        return
    opened = [(option, address) for option in _OTLP_LISTENERS
              if (address := getattr(config, option[2:].replace("-", "_"))) is not None
              and not on_loopback(address[0])]
    unwritten = [(option, address) for option, address in opened if host_left_empty(address)]
    written = [listener for listener in opened if listener not in unwritten]
    if unwritten:
        line, ports = _open_receivers(config, unwritten)
        log.warning(f"{line}; an empty host is 0.0.0.0. Write the host meant: 127.0.0.1 for this machine "
                    f"alone, or 0.0.0.0 with --token-file (or RAGMON_TOKEN) set or other senders kept off "
                    f"{ports} (a NetworkPolicy)")
    if written:
        line, ports = _open_receivers(config, written)
        log.info(f"{line}; set --token-file (or RAGMON_TOKEN) unless other senders are kept off {ports} (a "
                 f"NetworkPolicy)")


def _open_receivers(config: ServeConfig, opened: Sequence[tuple[str, tuple[str, int]]]) -> tuple[str, str]:
    """What `warn_of_open_receivers` says of them, each address as written, and "the port(s)"."""
    given = " and ".join(config.flag(option).given(written_address(address)) for option, address in opened)
    where = list(dict.fromkeys(_EVERY_INTERFACE.get(host, host) for _, (host, _) in opened))
    one = len(opened) == 1
    ports = "the port" if one else "the ports"
    return (f"{given} listen{'s' if one else ''} for OTLP on {' and '.join(where)} without a token: any host "
            f"that reaches {ports} can send spans"), ports


def percent(rate: float) -> str:
    return f"{rate * 100:g}%"


def run(args: argparse.Namespace) -> int:
    configure_logging(args.log_format, args.log_level)
    for warning in (*args._variable_warnings, *getattr(args, REPLACED_VARIABLES, ())):
        log.warning(warning)
    config = ServeConfig.from_args(args)
    lanes = build_lanes(args, config)
    log_judges(args, os.environ)
    warn_of_unused_settings(config)
    warn_of_open_receivers(config)
    log_memory(config, any(lane.judge == "claude" for lane in lanes), memory_budget.container_limit())
    return asyncio.run(serve(config, lanes))


def log_memory(config: ServeConfig, claude: bool, limit: int | None) -> None:
    """Say what ragmon may hold at most, and warn when the container's limit is under it."""
    parts = memory_budget.worst_case(config, claude=claude)
    log.info(f"memory: at most {mib(memory_budget.total(parts))} with these settings "
             f"({memory_budget.described(parts)}); container limit: "
             f"{'none found' if limit is None else mib(limit)}")
    warning = memory_budget.advice(parts, limit)
    if warning is not None:
        log.warning(warning)


async def serve(config: ServeConfig, lanes: Sequence[Lane] | None = None) -> int:
    """Run until SIGTERM, SIGINT or SIGHUP (not one ignored at start), then drain; exit code 0 after a clean
    drain. A repeated signal, during the drain or after it, changes nothing (`stop_on_signals`)."""
    stop = asyncio.Event()
    with stop_on_signals(stop):
        sidecar = Sidecar(config, lanes)
        try:
            await sidecar.start(stop)
        except StoppedStarting as stopped:
            log.info(str(stopped))
            return 0
        await stop.wait()
        await sidecar.stop()
    return 0
