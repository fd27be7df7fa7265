"""Does `ragmon serve` stay within the memory it says at start it may hold, under the worst traffic its
settings allow, and how long does a trace take from send to being counted?

The start-up line `memory: at most N MiB with these settings` (`ragmon.memory_budget`) is what
docs/deploy.md sets a pod's limit from, so a process tree that outgrows it under load is OOM-killed at the
worst moment. Each phase starts a fresh sidecar (OTLP/HTTP only, free loopback ports) and samples every
50 ms the VmRSS of the sidecar and of every process below it (forkserver, resource tracker, lexical
workers), summed; "sum of peaks" adds each live process's VmHWM at the end, an upper bound of the
sampled peak (a worker replaced meanwhile takes its own with it). Phases:
- steady: `--rate` traces/s for `--seconds`, one trace a request, each trace a root chain span and a
  retriever span of 5 distinct documents of ~1,000 words. Latency is send to counted in
  `ragmon_traces_total` (any outcome), /metrics polled every 50 ms and matched by rank (the k-th trace
  counted is taken for the k-th sent: the sidecar decides and scores in arrival order); it includes
  `--quiet`, which a trace waits after its root ended. `ragmon_score_lag_seconds` (decision to score) is
  shown beside it;
- flood: `--connections` senders posting as fast as they are answered, each body filled with traces of
  `--flood-documents` distinct ~1,000-word documents up to `--max-body`, a 503 honoured after its
  Retry-After as an exporter does, under small settings (`--max-buffer`, `--max-body`, `--workers`) so
  the limits bind within seconds;
- gzip flood: the same bodies gzip-compressed, and every `--bomb-every`th request a gzip bomb of
  `--bomb-mib` zeros (a few hundred KiB sent), which must be refused 413 without inflating past the limit.
After each flood: every answer is 200, 503 with Retry-After, or 413 for a bomb; the traces taken
(answered 200) are the sum of the outcomes of the sidecar's `stopped` line after SIGTERM, and at the end
of the flood the sum of what /metrics shows (outcomes, in flight, waiting for room, queued or being scored;
a page read while traffic flows may count a trace that got its outcome meanwhile twice); no worker pool
restarted, exit code 0.
Exit code 1 when a check fails.

Run: `.venv/bin/python benchmarks/serve_load.py [--rate 50] [--seconds 30] [--flood-seconds 15]
[--max-buffer 64MiB] [--max-body 8MiB] [--workers 1] [--only steady,flood,gzip]` (~75 s with the defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import random
import re
import statistics
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
import ingest
import soak
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from ragmon.options import byte_size
from ragmon.scrape import Samples, scrape, total

MiB = 1 << 20
TICK = 0.05
"""Seconds between samples of RSS and of /metrics: the latency's resolution."""
DOCUMENT_SENTENCES = 70
"""~1,000 words: `ingest.sentence`s of 12 to 16 words."""
SENTENCE_POOL = 4_000
"""Sentences a document draws 70 from: every document is distinct, so no cache of the judge's flatters it."""
RESOURCE = Resource(attributes=[ingest.attr("service.name", "serve-load")])
SCOPE = InstrumentationScope(name="serve-load")
GZIP_HEADERS = {**ingest.PROTOBUF_HEADERS, "Content-Encoding": "gzip"}
AT_MOST = re.compile(r"memory: at most (\d+) MiB")


# --- traffic ---------------------------------------------------------------------------------------

class Traces:
    """Distinct RAG traces (root chain span, retriever span with documents) from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.sentences = [ingest.sentence(self.rng, self.rng.randint(12, 16)) for _ in range(SENTENCE_POOL)]

    def spans(self, documents: int) -> list[Span]:
        rng = self.rng
        trace_id, root_id = rng.randbytes(16), rng.randbytes(8)
        texts = [" ".join(rng.choices(self.sentences, k=DOCUMENT_SENTENCES)) for _ in range(documents)]
        question = "what does the policy say about returns?"
        # The first document's opening sentence (supported) and two of the pool (most in no document).
        answer = " ".join([*rng.choices(self.sentences, k=2), texts[0][:200].rsplit(".", 1)[0] + "."])
        now = time.time_ns()
        retriever = [ingest.attr(ingest.KIND, "RETRIEVER"), ingest.attr("input.value", question)]
        for i, text in enumerate(texts):
            prefix = f"retrieval.documents.{i}.document."
            retriever += [ingest.attr(prefix + "id", f"doc-{rng.getrandbits(40):010x}"),
                          ingest.attr(prefix + "content", text)]
        root = [ingest.attr(ingest.KIND, "CHAIN"), ingest.attr("input.value", question),
                ingest.attr("output.value", answer)]
        return [Span(trace_id=trace_id, span_id=rng.randbytes(8), parent_span_id=root_id, name="retrieve",
                     start_time_unix_nano=now, end_time_unix_nano=now + 1_000, attributes=retriever),
                Span(trace_id=trace_id, span_id=root_id, name="rag", start_time_unix_nano=now,
                     end_time_unix_nano=now + 2_000, attributes=root)]


def request(spans: list[Span]) -> bytes:
    scope = ScopeSpans(scope=SCOPE, spans=spans)
    return ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(resource=RESOURCE, scope_spans=[scope])]).SerializeToString()


def filled_body(traces: Traces, documents: int, max_body: int) -> tuple[bytes, int]:
    """As many traces as fit under `max_body` (less 1% for the framing); returns the body and its traces."""
    spans: list[Span] = []
    size = count = 0
    while True:
        trace = traces.spans(documents)
        grown = size + sum(span.ByteSize() + 8 for span in trace)
        if count and grown > max_body * 0.99:
            return request(spans), count
        spans += trace
        size, count = grown, count + 1


def gzip_bomb(inflated: int) -> bytes:
    """`inflated` zero bytes, gzip-compressed a MiB at a time so the client never holds them."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)   # 31: gzip framing
    zeros = bytes(MiB)
    return b"".join(packer.compress(zeros) for _ in range(inflated // MiB)) + packer.flush()


# --- the sidecar and what it is measured by --------------------------------------------------------

@dataclass(eq=False)
class Sampler(threading.Thread):
    """RSS of the sidecar's process tree and its count of traces with an outcome, every TICK."""

    sidecar: soak.Sidecar
    rss: list[float] = field(default_factory=list)
    counted: list[tuple[float, float]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        super().__init__(daemon=True)

    def run(self) -> None:
        while not self.stopping.wait(TICK):
            self.rss.append(self.sidecar.tree_rss_mib())
            counted = total(scrape(self.sidecar.metrics_url), "ragmon_traces_total")
            self.counted.append((time.monotonic(), counted))

    def stop(self) -> None:
        self.stopping.set()
        self.join()


def by_label(samples: Samples, name: str, label: str) -> dict[str, float]:
    return {dict(labels)[label]: value for (metric, labels), value in samples.items()
            if metric == name and value}


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(TICK)
    return True


# --- steady ---------------------------------------------------------------------------------------

def rank_latencies(sent: list[float], counted: list[tuple[float, float]]) -> list[float]:
    """Seconds from each send to the first sample counting that many traces (the k-th counted is taken
    for the k-th sent); a trace never counted is left out."""
    latencies, sample = [], 0
    for rank, at in enumerate(sent, 1):
        while sample < len(counted) and counted[sample][1] < rank:
            sample += 1
        if sample == len(counted):
            break
        latencies.append(counted[sample][0] - at)
    return latencies


async def send_steady(url: str, bodies: list[bytes], rate: float) -> tuple[list[float], Counter[int]]:
    """Open loop: body i posted at i / rate whatever the answers to the others; returns the send times."""
    sent: list[float] = []
    statuses: Counter[int] = Counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as session:
        async def post(body: bytes) -> None:
            try:
                await ingest.post_until_taken(session, url, body)
                statuses[200] += 1
            except ingest.Refused as refused:
                statuses[refused.status] += 1

        started, posts = time.monotonic(), []
        for i, body in enumerate(bodies):
            await asyncio.sleep(started + i / rate - time.monotonic())
            sent.append(time.monotonic())
            posts.append(asyncio.create_task(post(body)))
        await asyncio.gather(*posts)
    return sent, statuses


def steady(args: argparse.Namespace) -> bool:
    traces = Traces(args.seed)
    bodies = [request(traces.spans(5)) for _ in range(int(args.rate * args.seconds))]
    sidecar = soak.Sidecar(["--workers", str(args.workers), "--quiet", args.quiet], "load")
    try:
        sidecar.wait_ready()
        promised, idle = sidecar.promised_mib(), sidecar.tree_rss_mib()
        sampler = Sampler(sidecar)
        sampler.start()
        sent, statuses = asyncio.run(send_steady(sidecar.url, bodies, args.rate))
        all_counted = wait_until(lambda: bool(sampler.counted) and sampler.counted[-1][1] >= len(sent), 60)
        sampler.stop()
        metrics = scrape(sidecar.metrics_url)
        peaks = sidecar.tree_peaks_mib()
    finally:
        code, _ = sidecar.stop()
    latencies = sorted(rank_latencies(sent, sampler.counted))
    print(f"\nsteady: {args.rate:g} traces/s for {args.seconds:g}s, 5 documents of ~1,000 words "
          f"({statistics.mean(map(len, bodies)) / 1024:.0f} KiB a trace), --workers {args.workers}, "
          f"--quiet {args.quiet}; answers {dict(statuses)}")
    print(f"  RSS (sidecar + forkserver + workers): idle {idle:.0f} MiB, under load median "
          f"{statistics.median(sampler.rss):.0f}, max {max(sampler.rss):.0f}, sum of peaks {peaks:.0f}; "
          f"start-up figure {promised} MiB")
    print(f"  send -> counted in ragmon_traces_total ({len(latencies)} of {len(sent)} traces): "
          f"p50 {quantile(latencies, 0.5):.2f}s, p99 {quantile(latencies, 0.99):.2f}s, "
          f"max {latencies[-1]:.2f}s; ragmon_score_lag_seconds (decision -> score) "
          f"p50 {ingest.quantile(metrics, 'ragmon_score_lag_seconds', 0.5):.3f}s, "
          f"p99 {ingest.quantile(metrics, 'ragmon_score_lag_seconds', 0.99):.3f}s; "
          f"outcomes {by_label(metrics, 'ragmon_traces_total', 'outcome')}")
    return checked([("every trace counted within 60 s", all_counted),
                    ("every answer 200", set(statuses) == {200}),
                    (f"peak RSS {max(peaks, max(sampler.rss)):.0f} MiB within {promised} MiB",
                     max(peaks, max(sampler.rss)) <= promised),
                    (f"exit code {code}", code == 0)])


def quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- floods ---------------------------------------------------------------------------------------

@dataclass
class Flood:
    """What the senders saw: answers by status, what 503s asked for, the traces taken (answered 200)."""

    statuses: Counter[str] = field(default_factory=Counter)
    retry_after: Counter[str] = field(default_factory=Counter)
    taken: int = 0
    bodies: int = 0
    wire: int = 0
    inflated: int = 0


async def post_once(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str],
                    flood: Flood, kind: str) -> tuple[int, float]:
    """One attempt; returns its status and the seconds a 503 asks to wait (1 if it says nothing usable)."""
    async with session.post(url, data=body, headers=headers) as response:
        await response.read()
        flood.statuses[f"{kind} {response.status}"] += 1
        if response.status != 503:
            return response.status, 0.0
        after = response.headers.get("Retry-After", "missing")
        flood.retry_after[after] += 1
        return 503, float(after) if after.replace(".", "", 1).isdigit() else 1.0


async def sender(session: aiohttp.ClientSession, url: str, args: argparse.Namespace, traces: Traces,
                 bomb: bytes | None, flood: Flood, deadline: float) -> None:
    """Post filled bodies (a bomb every --bomb-every) until the deadline, each resent after a 503's wait;
    one still refused at the deadline is left, as an exporter's timeout leaves it."""
    while time.monotonic() < deadline:
        flood.bodies += 1
        if bomb is not None and flood.bodies % args.bomb_every == 0:
            body, count, kind = bomb, 0, "bomb"
        else:
            body, count = filled_body(traces, args.flood_documents, args.max_body)
            flood.inflated += len(body)
            kind = "body"
            if bomb is not None:
                body = gzip.compress(body, compresslevel=1)
        flood.wire += len(body)
        headers = ingest.PROTOBUF_HEADERS if bomb is None else GZIP_HEADERS
        status, wait = await post_once(session, url, body, headers, flood, kind)
        while status == 503 and time.monotonic() + wait < deadline:
            await asyncio.sleep(wait)
            status, wait = await post_once(session, url, body, headers, flood, kind)
        if status == 503:
            flood.statuses[f"{kind} left after 503"] += 1
        elif status == 200:
            flood.taken += count


async def send_flood(url: str, args: argparse.Namespace, bomb: bytes | None) -> Flood:
    flood, traces = Flood(), Traces(args.seed)
    deadline = time.monotonic() + args.flood_seconds
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        await asyncio.gather(*(sender(session, url, args, traces, bomb, flood, deadline)
                               for _ in range(args.connections)))
    return flood


def flood(args: argparse.Namespace, *, gzipped: bool) -> bool:
    bomb = gzip_bomb(args.bomb_mib * MiB) if gzipped else None
    sidecar = soak.Sidecar(["--workers", str(args.workers), "--max-buffer", str(args.max_buffer),
                            "--max-body", str(args.max_body), "--quiet", args.quiet], "load")
    try:
        sidecar.wait_ready()
        promised, idle = sidecar.promised_mib(), sidecar.tree_rss_mib()
        sampler = Sampler(sidecar)
        sampler.start()
        started = time.monotonic()
        sent = asyncio.run(send_flood(sidecar.url, args, bomb))
        seconds = time.monotonic() - started
        metrics = scrape(sidecar.metrics_url)
        peaks = sidecar.tree_peaks_mib()
        sampler.stop()
    finally:
        code, drain = sidecar.stop()
    outcomes, problems = sidecar.drained_outcomes()
    peak = max(max(sampler.rss), peaks)
    live = by_label(metrics, "ragmon_traces_total", "outcome")
    in_flight = total(metrics, "ragmon_traces_in_flight")
    queued = total(metrics, "ragmon_score_queue_depth") + total(metrics, "ragmon_score_in_progress")
    waiting = total(metrics, "ragmon_traces_waiting")
    refused = total(metrics, "ragmon_traces_refused_pending")  # every span refused, before its decision wait
    unseen = sent.taken - sum(live.values()) - in_flight - waiting - refused - queued
    unexpected = {status for status in sent.statuses if status not in EXPECTED[gzipped]}
    name = "gzip flood" if gzipped else "flood"
    bombs = (f", one request in {args.bomb_every} a bomb of {args.bomb_mib} MiB "
             f"({len(bomb) / 1024:.0f} KiB sent)" if bomb else "")
    print(f"\n{name}: {args.connections} senders for {args.flood_seconds:g}s, traces of "
          f"{args.flood_documents} documents of ~1,000 words filling --max-body {args.max_body / MiB:g} MiB"
          f"{bombs}; --max-buffer {args.max_buffer / MiB:g} MiB, --workers {args.workers}")
    print(f"  sent {sent.bodies} bodies, {sent.wire / MiB:.0f} MiB on the wire "
          f"({sent.inflated / MiB:.0f} MiB inflated) in {seconds:.1f}s; answers {dict(sent.statuses)}; "
          f"Retry-After {dict(sent.retry_after)}")
    print(f"  RSS (sidecar + forkserver + workers): idle {idle:.0f} MiB, peak sampled "
          f"{max(sampler.rss):.0f}, sum of peaks {peaks:.0f}; start-up figure {promised} MiB "
          f"({peak / promised:.0%} of it)")
    print(f"  traces taken {sent.taken}; at the end of the flood: outcomes {live}, in flight "
          f"{in_flight:.0f}, waiting for room {waiting:.0f}, refused pending {refused:.0f}, queued or "
          f"being scored {queued:.0f}, in no gauge {unseen:.0f}; after SIGTERM (drain {drain:.1f}s, exit "
          f"{code}): outcomes {dict(outcomes)}; worker pools restarted "
          f"{total(metrics, 'ragmon_worker_pool_restarts_total'):.0f}, recycled "
          f"{total(metrics, 'ragmon_worker_pool_recycles_total'):.0f}; spans rejected "
          f"{by_label(metrics, 'ragmon_spans_rejected_total', 'reason')}; warnings {dict(problems)}")
    return checked([
        (f"peak RSS {peak:.0f} MiB within the start-up figure {promised} MiB", peak <= promised),
        (f"every answer 200, 503 or a bomb's 413 (unexpected: {sorted(unexpected)})", not unexpected),
        ("every 503 with a Retry-After", "missing" not in sent.retry_after),
        ("traces taken = the outcomes of the `stopped` line", sent.taken == sum(outcomes.values())),
        ("no worker pool restarted", total(metrics, "ragmon_worker_pool_restarts_total") == 0),
        (f"exit code {code}", code == 0)])


BODY_ANSWERS = {"body 200", "body 503", "body left after 503"}
EXPECTED = {False: BODY_ANSWERS, True: BODY_ANSWERS | {"bomb 413", "bomb 503", "bomb left after 503"}}


def checked(checks: list[tuple[str, bool]]) -> bool:
    for what, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    return all(ok for _, ok in checks)


PHASES: dict[str, Callable[[argparse.Namespace], bool]] = {
    "steady": steady,
    "flood": lambda args: flood(args, gzipped=False),
    "gzip": lambda args: flood(args, gzipped=True),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=50.0, help="steady: traces/s")
    parser.add_argument("--seconds", type=float, default=30.0, help="steady: how long")
    parser.add_argument("--quiet", default="2s", help="the sidecar's --quiet (its default 2s)")
    parser.add_argument("--workers", type=int, default=1, help="the sidecar's --workers")
    parser.add_argument("--flood-seconds", type=float, default=15.0, help="each flood: how long")
    parser.add_argument("--max-buffer", type=byte_size, default=64 * MiB, help="floods: its --max-buffer")
    parser.add_argument("--max-body", type=byte_size, default=8 * MiB, help="floods: its --max-body")
    parser.add_argument("--flood-documents", type=int, default=32, help="floods: documents a trace")
    parser.add_argument("--connections", type=int, default=4, help="floods: concurrent senders")
    parser.add_argument("--bomb-every", type=int, default=4, help="gzip flood: one request in N a bomb")
    parser.add_argument("--bomb-mib", type=int, default=256, help="gzip flood: what a bomb inflates to")
    parser.add_argument("--only", type=lambda text: text.split(","), default=list(PHASES),
                        help=f"comma-separated phases: {', '.join(PHASES)}")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    unknown = set(args.only) - PHASES.keys()
    if unknown:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    results = [PHASES[name](args) for name in args.only]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
