"""Ingest throughput of `ragmon serve`: realistic RAG traces over OTLP/HTTP to a sidecar subprocess.

Each trace is OpenInference-shaped (CHAIN root, RETRIEVER with 5 documents of ~200 words, LLM span with
the prompt and a 4-sentence answer), every document unique so no cache flatters the judge. Traces are
pre-encoded as protobuf ExportTraceServiceRequests (several traces per request, as a BatchSpanProcessor
sends them) and posted over a few keep-alive connections; a 503 is honoured like an OTLP exporter
honours it (wait Retry-After, resend). Prints accepted spans/s, scored traces/s, p99 score lag (from the
ragmon_score_lag_seconds histogram, interpolated within its bucket) and the peak RSS of the sidecar and
of its worker processes. Bounded by --traces and --timeout.

Run: `.venv/bin/python benchmarks/ingest.py [--traces N] [--workers W] [--connections C] [--rate R]
[--sample-rate 0]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
from pathlib import Path

import aiohttp
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from ragmon.scrape import Samples, scrape, total

WORDS = tuple(" ".join((
    "order return refund shipping delivery warehouse carrier package parcel customer account payment card",
    "credit store online item product size colour receipt label box packaging policy warranty repair",
    "replacement exchange discount price sale clearance member points reward gift support team email phone",
    "request claim days weeks hours business weekend holiday standard express international domestic",
    "customs duties fee charge free total balance invoice address tracking number status cancel change",
    "update manager approval inspection damage missing defect battery laptop camera phone tablet charger",
    "cable screen protection plan extended coverage accidental theft loss subscription renewal trial",
    "monthly annual plan upgrade downgrade region country voucher coupon code promotion bundle",
)).split(" "))
SPANS_PER_TRACE = 3
KIND = "openinference.span.kind"


def sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(WORDS) for _ in range(words))
    number = f" within {rng.randint(2, 90)} days" if rng.random() < 0.4 else ""
    return body[0].upper() + body[1:] + number + "."


def document(rng: random.Random) -> list[str]:
    """~200 words in 12 to 14 sentences."""
    return [sentence(rng, rng.randint(12, 16)) for _ in range(13)]


def attr(key: str, value: str | float | int) -> KeyValue:
    if isinstance(value, str):
        return KeyValue(key=key, value=AnyValue(string_value=value))
    if isinstance(value, float):
        return KeyValue(key=key, value=AnyValue(double_value=value))
    return KeyValue(key=key, value=AnyValue(int_value=value))


def trace_spans(rng: random.Random, now_ns: int) -> list[Span]:
    trace_id = rng.randbytes(16)
    root_id, retriever_id, llm_id = (rng.randbytes(8) for _ in range(3))
    docs = [document(rng) for _ in range(5)]
    question = sentence(rng, 9).rstrip(".") + "?"
    # Two sentences quoted from the documents (supported), two made up (mostly unsupported).
    answer = " ".join([rng.choice(docs[0]), rng.choice(docs[1]), sentence(rng, 12), sentence(rng, 10)])
    doc_attrs = []
    for i, doc in enumerate(docs):
        prefix = f"retrieval.documents.{i}.document."
        doc_attrs += [attr(prefix + "id", f"doc-{rng.getrandbits(40):010x}"),
                      attr(prefix + "content", " ".join(doc)), attr(prefix + "score", round(1 - i / 10, 3))]
    prompt = "\n\n".join(" ".join(doc) for doc in docs) + f"\n\nQuestion: {question}"

    def span(span_id: bytes, parent: bytes, name: str, start: int, attributes: list[KeyValue]) -> Span:
        return Span(trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=name,
                    kind=Span.SPAN_KIND_INTERNAL, start_time_unix_nano=now_ns + start,
                    end_time_unix_nano=now_ns + start + 1_000_000, attributes=attributes)

    return [
        span(retriever_id, root_id, "retrieve", 1_000,
             [attr(KIND, "RETRIEVER"), attr("input.value", question), *doc_attrs]),
        span(llm_id, root_id, "llm", 2_000_000, [
            attr(KIND, "LLM"), attr("llm.input_messages.0.message.role", "user"),
            attr("llm.input_messages.0.message.content", prompt),
            attr("llm.output_messages.0.message.role", "assistant"),
            attr("llm.output_messages.0.message.content", answer)]),
        span(root_id, b"", "rag", 0, [attr(KIND, "CHAIN"), attr("input.value", question),
                                      attr("output.value", answer)]),
    ]


def encode(traces: int, per_request: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    now = time.time_ns()
    resource = Resource(attributes=[attr("service.name", "bench-rag")])
    payloads = []
    for first in range(0, traces, per_request):
        spans = [s for _ in range(min(per_request, traces - first)) for s in trace_spans(rng, now)]
        scope = ScopeSpans(scope=InstrumentationScope(name="bench"), spans=spans)
        resource_spans = ResourceSpans(resource=resource, scope_spans=[scope])
        request = ExportTraceServiceRequest(resource_spans=[resource_spans])
        payloads.append(request.SerializeToString())
    return payloads


async def post_all(url: str, payloads: list[bytes], connections: int, interval: float) -> tuple[float, int]:
    """Post every payload, request i not before i * interval; returns (seconds until the last one was
    accepted, 503 responses seen)."""
    pending = list(reversed(list(enumerate(payloads))))
    refused = 0
    started = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def sender() -> None:
            nonlocal refused
            while pending:
                index, body = pending.pop()
                await asyncio.sleep(started + index * interval - time.perf_counter())
                refused += await post_until_taken(session, url, body)

        await asyncio.gather(*(sender() for _ in range(connections)))
    return time.perf_counter() - started, refused


PROTOBUF_HEADERS = {"Content-Type": "application/x-protobuf"}


class Refused(RuntimeError):
    """A request answered neither 200 nor 503: the exporter drops it."""

    def __init__(self, url: str, status: int, size: int) -> None:
        super().__init__(f"POST {url} answered {status} to a request of {size} bytes")
        self.status = status


async def post_until_taken(session: aiohttp.ClientSession, url: str, body: bytes,
                           headers: dict[str, str] = PROTOBUF_HEADERS) -> int:
    """Post `body` until it is taken, a 503 retried after its Retry-After, as an OTLP exporter does;
    returns the 503s seen, raises `Refused` for any other answer."""
    refused = 0
    while True:
        async with session.post(url, data=body, headers=headers) as response:
            await response.read()
            if response.status == 200:
                return refused
            if response.status != 503:
                raise Refused(url, response.status, len(body))
            refused += 1
            delay = float(response.headers.get("Retry-After", "1"))
        await asyncio.sleep(delay)


def quantile(samples: Samples, name: str, q: float) -> float:
    """histogram_quantile(): linear interpolation inside the bucket that holds the q-th observation."""
    buckets = sorted((float(dict(ls)["le"]), v) for (n, ls), v in samples.items() if n == name + "_bucket")
    count = buckets[-1][1]
    rank = q * count
    lower, below = 0.0, 0.0
    for upper, cumulative in buckets:
        if cumulative >= rank:
            if upper == float("inf"):
                return lower
            return lower + (upper - lower) * (rank - below) / max(cumulative - below, 1)
        lower, below = upper, cumulative
    return lower


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (the forkserver and its worker processes)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    family, frontier = set(), {pid}
    while frontier:
        family |= frontier
        frontier = {child for child, parent in parents.items() if parent in frontier} - family
    return family - {pid}


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(metrics_url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise SystemExit(f"ragmon serve exited with {process.returncode}")
        try:
            scrape(metrics_url)
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise SystemExit("ragmon serve did not start") from None
            time.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=4_000)
    parser.add_argument("--traces-per-request", type=int, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=180.0, help="give up after this many seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="offered load in traces/s (default 0: as fast as the sidecar accepts)")
    parser.add_argument("--sample-rate", type=float, default=1.0,
                        help="the sidecar's --sample-rate; 0 measures ingest and extraction alone")
    args = parser.parse_args()

    started = time.perf_counter()
    payloads = encode(args.traces, args.traces_per_request, args.seed)
    megabytes = sum(map(len, payloads)) / 2**20
    print(f"encoded {args.traces} traces ({args.traces * SPANS_PER_TRACE} spans) in {len(payloads)} "
          f"requests, {megabytes:.1f} MiB, in {time.perf_counter() - started:.1f}s")

    http, metrics = free_port(), free_port()
    metrics_url = f"http://127.0.0.1:{metrics}/metrics"
    sidecar = subprocess.Popen(
        [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", f"127.0.0.1:{http}",
         "--grpc-listen", "off", "--metrics-listen", f"127.0.0.1:{metrics}", "--quiet", "100ms",
         "--decision-wait", "10s", "--workers", str(args.workers), "--sample-rate", str(args.sample_rate),
         "--log-level", "warning"])
    try:
        wait_ready(metrics_url, sidecar, 60)
        time.sleep(0.5)   # readiness includes the worker pool; scrape success alone does not
        interval = args.traces_per_request / args.rate if args.rate > 0 else 0.0
        t0 = time.perf_counter()
        sending = post_all(f"http://127.0.0.1:{http}/v1/traces", payloads, args.connections, interval)
        sent_seconds, refused = asyncio.run(asyncio.wait_for(sending, args.timeout))
        deadline = t0 + args.timeout
        while True:
            samples = scrape(metrics_url)
            scored = total(samples, "ragmon_traces_total", outcome="scored")
            decided = total(samples, "ragmon_traces_total")
            if decided >= args.traces:
                break
            if time.perf_counter() > deadline:
                print(f"timeout: {decided:.0f} of {args.traces} traces decided")
                break
            time.sleep(0.02)
        scored_seconds = time.perf_counter() - t0
        children = descendants(sidecar.pid)
        main_rss, workers_rss = peak_rss_mib(sidecar.pid), sum(map(peak_rss_mib, children))
        main_cpu, workers_cpu = cpu_seconds(sidecar.pid), sum(map(cpu_seconds, children))
    finally:
        sidecar.send_signal(signal.SIGTERM)
        code = sidecar.wait(timeout=60)

    spans = args.traces * SPANS_PER_TRACE
    offered = f"{args.rate:g} traces/s" if args.rate > 0 else "unlimited"
    print(f"workers={args.workers} connections={args.connections} traces/request={args.traces_per_request} "
          f"offered={offered} cpus={os.cpu_count()}")
    print(f"accepted spans/s   {spans / sent_seconds:10.0f}   ({spans} spans in {sent_seconds:.2f}s, "
          f"{refused} x 503 back-pressure)")
    print(f"scored traces/s    {scored / scored_seconds:10.0f}   ({scored:.0f} scored of {decided:.0f} "
          f"decided in {scored_seconds:.2f}s)")
    lag = quantile(samples, "ragmon_score_lag_seconds", 0.99)
    print(f"p99 score lag      {lag:10.3f} s  (decided -> scored, histogram_quantile over the run)")
    print(f"peak RSS           {main_rss:10.0f} MiB sidecar + {workers_rss:.0f} MiB forkserver and workers")
    print(f"CPU time           {main_cpu:10.1f} s sidecar + {workers_cpu:.1f} s workers (including start-up)")
    print(f"sidecar exit code  {code:10d}   (SIGTERM, drained)")
    complete = decided == args.traces and (args.sample_rate < 1 or scored == args.traces)
    return 0 if code == 0 and complete else 1


if __name__ == "__main__":
    sys.exit(main())
