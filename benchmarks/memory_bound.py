"""Memory of `ragmon serve` under typical traffic, and under a sender that stays within every documented
limit (each request under --max-body, spans per trace under --max-spans-per-trace, traces under
--max-traces) but makes each buffered byte count: is the documented figure a bound?

One fresh sidecar subprocess per scenario, default settings, on free loopback ports (the soak
benchmark's `Sidecar`); RSS is read from /proc/<pid>/status (VmRSS now, VmHWM the peak), for the
sidecar and for its forkserver and lexical worker processes. Scenarios:
- typical: the ingest benchmark's OpenInference RAG traces at `--rate` traces/s;
- rootless: the same traces without their root span (it lives in another service, or is lost), so each
  waits the whole --decision-wait in the buffer, up to the 90% back-pressure mark of --max-traces;
- big values: one trace, no root, each span one 4 MiB string attribute (a document), 3 spans a request;
- wide chars: the same with one emoji per value, so Python holds each character in 4 bytes;
- empty events: one request, one span holding 2-byte empty events up to --max-body (a flood: refused,
  413, once counted past --max-values, before it is parsed);
- empty links: the same with links, which ragmon parses but does not keep;
- json events: the empty events as OTLP/JSON (`{},` each);
- many events: 10 requests of 5,000 spans of 128 empty events each (the SDK's default most), 1.4 MiB:
  every span small, their sum over --max-values;
- empty spans: one request of minimal spans, 1,000 to a trace, up to --max-body;
- big documents: `--documents` RAG traces (root, retriever, answer), each with one distinct document of
  ~2 MiB, scored: the lexical judge's passage cache keeps up to 4,096 passages, whatever their size;
- wide documents: the same over OTLP/JSON, each document ~4 MiB of ASCII but one emoji escaped as JSON
  writes it ("\\ud83d\\ude00"): one byte a character on the wire, four once decoded;
- long answers: `--answers` RAG traces, each with a distinct answer of ~100 KB (1,000 sentences), scored:
  the claim and profile caches keep 1,024 and 4,096 texts;
- chinese documents: `--chinese` RAG traces, each with a distinct document of 500,000 random Chinese
  ideographs (every pair of characters new: the worst case for the stem cache), scored.
Workers are sampled ten times a second (the sum of their RSS, whatever pool they belong to): "+workers"
is the largest sum seen, "now" the sum once the scenario is done, "recycled" the pools replaced because
a worker kept more than its share of memory after an example (`ragmon.scoring.kept_over`).
The adversarial sends stop once the sidecar's RSS passes `--stop-mib` (the machine is shared).

Run: `.venv/bin/python benchmarks/memory_bound.py [--rate 400] [--seconds 10] [--stop-mib 1536]
[--only NAME,...]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import aiohttp
import ingest
import soak
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from ragmon import memory_budget, scoring
from ragmon.scrape import scrape, total
from ragmon.serve_config import ServeConfig

MiB = 2**20
MAX_BODY = 16 * MiB
MAX_TRACES = 20_000
MAX_SPANS = 1_000
DECISION_WAIT = 30.0
DOCUMENTED_MIB = 83 + 81
"""README's "sidecar memory: 55-83 MiB + 81 MiB for the forkserver and worker processes"."""
JSON_HEADERS = {"Content-Type": "application/json"}
RESOURCE = Resource(attributes=[ingest.attr("service.name", "memory-bound")])
SCOPE = InstrumentationScope(name="memory-bound")
EMPTY_EVENT = b"\x5a\x00"
"""Span.events (field 11), length 0: the smallest event the wire can carry."""


def request(spans: list[Span]) -> bytes:
    scope = ScopeSpans(scope=SCOPE, spans=spans)
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(resource=RESOURCE,
                                                                   scope_spans=[scope])]).SerializeToString()


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def wrap_span(span: bytes) -> bytes:
    """A serialized Span as a whole ExportTraceServiceRequest: resource_spans(1) > scope_spans(2) >
    spans(2), built by hand so a span of millions of repeated fields costs the client nothing."""
    scope = b"\x12" + varint(len(span)) + span
    resource_spans = b"\x12" + varint(len(scope)) + scope
    return b"\x0a" + varint(len(resource_spans)) + resource_spans


def child(rng: random.Random, trace_id: bytes, **fields: object) -> Span:
    """A span whose parent never arrives: its trace has no local root and waits the whole decision-wait."""
    now = time.time_ns()
    return Span(trace_id=trace_id, span_id=rng.randbytes(8), parent_span_id=rng.randbytes(8), name="s",
                kind=Span.SPAN_KIND_INTERNAL, start_time_unix_nano=now, end_time_unix_nano=now, **fields)


# --- scenarios: each yields request bodies ---------------------------------------------------------

def typical(args: argparse.Namespace) -> Iterator[bytes]:
    yield from ingest.encode(int(args.rate * args.seconds), args.traces_per_request, args.seed)


def rootless(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    traces = MAX_TRACES * 9 // 10
    for first in range(0, traces, args.traces_per_request):
        spans = []
        for _ in range(min(args.traces_per_request, traces - first)):
            spans += ingest.trace_spans(rng, time.time_ns())[:-1]   # the root is the last span
        yield request(spans)


def big_values(value: str) -> Callable[[argparse.Namespace], Iterator[bytes]]:
    def scenario(args: argparse.Namespace) -> Iterator[bytes]:
        rng = random.Random(args.seed)
        trace_id = rng.randbytes(16)
        for _ in range(MAX_SPANS // 3):
            spans = [child(rng, trace_id, attributes=[ingest.attr("document", value)]) for _ in range(3)]
            yield request(spans)
    return scenario


def empty_events(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    span = child(rng, rng.randbytes(16)).SerializeToString()
    room = MAX_BODY - len(wrap_span(span + EMPTY_EVENT)) - 16     # 16: the longer length prefixes
    yield wrap_span(span + EMPTY_EVENT * (room // len(EMPTY_EVENT)))


EMPTY_LINK = b"\x6a\x00"
"""Span.links (field 13), length 0."""


def empty_links(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    span = child(rng, rng.randbytes(16)).SerializeToString()
    room = MAX_BODY - len(wrap_span(span + EMPTY_LINK)) - 16
    yield wrap_span(span + EMPTY_LINK * (room // len(EMPTY_LINK)))


def json_events(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    head = (f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"{rng.randbytes(16).hex()}",'
            f'"spanId":"{rng.randbytes(8).hex()}","parentSpanId":"{rng.randbytes(8).hex()}","events":[{{}}').encode()
    tail = b"]}]}]}]}"
    yield head + b",{}" * ((MAX_BODY - len(head) - len(tail)) // 3) + tail


def many_events(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    spans = (child(rng, rng.randbytes(16)).SerializeToString() + EMPTY_EVENT * 128 for _ in range(5_000))
    scope = b"".join(b"\x12" + varint(len(span)) + span for span in spans)   # ScopeSpans.spans (2)
    resource_spans = b"\x12" + varint(len(scope)) + scope                     # ResourceSpans.scope_spans (2)
    body = b"\x0a" + varint(len(resource_spans)) + resource_spans             # resource_spans (1)
    for _ in range(10):
        yield body


def empty_spans(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    one = child(rng, rng.randbytes(16))
    per_span = len(request([one, one])) - len(request([one]))
    spans, trace_id = [], rng.randbytes(16)
    for n in range((MAX_BODY - 1024) // per_span):
        if n % MAX_SPANS == 0:
            trace_id = rng.randbytes(16)
        spans.append(child(rng, trace_id))
    yield request(spans)


def rag_trace(rng: random.Random, n: int, document: str, answer: str) -> bytes:
    """One scored RAG trace (root chain and retriever) in one request."""
    trace_id, root = rng.randbytes(16), rng.randbytes(8)
    retriever = child(rng, trace_id, attributes=[
        ingest.attr(ingest.KIND, "RETRIEVER"), ingest.attr("input.value", "what is the policy?"),
        ingest.attr("retrieval.documents.0.document.id", f"doc-{n}"),
        ingest.attr("retrieval.documents.0.document.content", document)])
    retriever.parent_span_id = root
    top = child(rng, trace_id, attributes=[ingest.attr(ingest.KIND, "CHAIN"),
                                           ingest.attr("input.value", "what is the policy?"),
                                           ingest.attr("output.value", answer)])
    top.span_id, top.parent_span_id = root, b""
    return request([retriever, top])


def big_documents(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    text = " ".join(" ".join(ingest.document(rng)) for _ in range(1_600))   # ~2.2 MiB of sentences
    answer = ingest.sentence(rng, 12)
    for n in range(args.documents):
        yield rag_trace(rng, n, f"{n} {text}", answer)


def json_rag_trace(rng: random.Random, document: str, answer: str) -> bytes:
    """`rag_trace` as OTLP/JSON, written as Python's `json` writes it: every non-ASCII character escaped."""
    trace_id, root = rng.randbytes(16).hex(), rng.randbytes(8).hex()

    def span(span_id: str, parent: str, attributes: dict[str, str]) -> dict[str, object]:
        return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": "rag",
                "startTimeUnixNano": str(time.time_ns()), "endTimeUnixNano": str(time.time_ns()),
                "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}

    spans = [span(rng.randbytes(8).hex(), root, {
                 ingest.KIND: "RETRIEVER", "input.value": "what is the policy?",
                 "retrieval.documents.0.document.id": f"doc-{trace_id}",
                 "retrieval.documents.0.document.content": document}),
             span(root, "", {ingest.KIND: "CHAIN", "input.value": "what is the policy?",
                             "output.value": answer})]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def wide_documents(args: argparse.Namespace) -> Iterator[bytes]:
    """Scored RAG traces over OTLP/JSON, each with a distinct ~4 MiB document of ASCII but one emoji: 1 byte
    a character on the wire, 4 in Python once decoded."""
    rng = random.Random(args.seed)
    text = " ".join(" ".join(ingest.document(rng)) for _ in range(2_900)) + " \N{GRINNING FACE}"
    answer = ingest.sentence(rng, 12)
    for n in range(args.documents):
        yield json_rag_trace(rng, f"{n} {text}", answer)


def long_answers(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    sentences = [ingest.sentence(rng, 14) for _ in range(5_000)]
    document = " ".join(ingest.document(rng))
    for n in range(args.answers):
        yield rag_trace(rng, n, document, " ".join(rng.choices(sentences, k=1_000)))   # ~100 KB


def chinese_documents(args: argparse.Namespace) -> Iterator[bytes]:
    rng = random.Random(args.seed)
    answer = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(40)) + "。"
    for n in range(args.chinese):
        document = "".join(chr(rng.randint(0x4E00, 0x9FFF)) + ("。" if rng.random() < 0.05 else "")
                           for _ in range(500_000))
        yield rag_trace(rng, n, document, answer)


ASCII_VALUE = "x" * (4 * MiB)
WIDE_VALUE = "x" * (4 * MiB - 4) + "\N{GRINNING FACE}"
SCENARIOS: dict[str, tuple[Callable[[argparse.Namespace], Iterator[bytes]], bool]] = {
    # name: (bodies, adversarial: stop at --stop-mib)
    "typical": (typical, False),
    "rootless": (rootless, False),
    "big values": (big_values(ASCII_VALUE), True),
    "wide chars": (big_values(WIDE_VALUE), True),
    "empty events": (empty_events, True),
    "empty links": (empty_links, True),
    "json events": (json_events, True),
    "many events": (many_events, True),
    "empty spans": (empty_spans, True),
    "big documents": (big_documents, False),
    "wide documents": (wide_documents, False),
    "long answers": (long_answers, False),
    "chinese documents": (chinese_documents, False),
}


# --- measuring -------------------------------------------------------------------------------------

@dataclass(slots=True)
class Result:
    name: str
    requests: int
    wire_mib: float
    refused: int
    too_large: int
    seconds: float
    held_mib: float
    peak_mib: float
    workers_peak_mib: float
    workers_now_mib: float
    recycles: float
    in_flight: float
    stopped: bool


async def send(url: str, bodies: Iterator[bytes], interval: float, pid: int, stop_mib: float | None
               ) -> tuple[int, int, int, bool]:
    """Post each body in turn (one connection, a 503 retried after Retry-After, like an exporter; a body
    starting with "{" as OTLP/JSON), no faster than one per `interval`; stop early when the sidecar's RSS
    passes `stop_mib`. Returns the requests sent, their bytes, the 503s, the 413s, and whether it stopped."""
    sent = wire = refused = too_large = 0
    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        for body in bodies:
            await asyncio.sleep(started + sent * interval - time.perf_counter())
            headers = JSON_HEADERS if body.startswith(b"{") else ingest.PROTOBUF_HEADERS
            try:
                refused += await ingest.post_until_taken(session, url, body, headers)
            except ingest.Refused as exc:
                if exc.status != 413:
                    raise
                too_large += 1
            sent, wire = sent + 1, wire + len(body)
            if stop_mib is not None and soak.rss_mib(pid) > stop_mib:
                return sent, wire, refused, too_large, True
    return sent, wire, refused, too_large, False


class WorkerSampler(threading.Thread):
    """The sum of the RSS of every process below the sidecar, ten times a second: a worker replaced
    meanwhile takes its peak (VmHWM) with it."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stopping = pid, 0.0, threading.Event()

    def now(self) -> float:
        return sum(map(soak.rss_mib, ingest.descendants(self.pid)))

    def run(self) -> None:
        while not self.stopping.wait(0.1):
            self.peak = max(self.peak, self.now())


def run(name: str, args: argparse.Namespace) -> Result:
    bodies, adversarial = SCENARIOS[name]
    sidecar = soak.Sidecar(["--workers", "1", "--max-traces", str(MAX_TRACES), "--queue-size", "1000"],
                           "memory")
    sampler = WorkerSampler(sidecar.pid)
    try:
        sidecar.wait_ready()
        sampler.start()
        interval = args.traces_per_request / args.rate if name == "typical" else 0.0
        started = time.perf_counter()
        sent, wire, refused, too_large, stopped = asyncio.run(send(
            f"http://127.0.0.1:{sidecar.http}/v1/traces", bodies(args), interval, sidecar.pid,
            args.stop_mib if adversarial else None))
        seconds = time.perf_counter() - started
        held = soak.rss_mib(sidecar.pid)
        in_flight = total(scrape(sidecar.metrics_url), "ragmon_traces_in_flight")
        settled = time.monotonic() + args.settle   # let the decision loop and the workers catch up
        scored = {"big documents": args.documents, "wide documents": args.documents,
                  "long answers": args.answers, "chinese documents": args.chinese}.get(name)
        while scored is not None and time.monotonic() < settled + 120:
            if total(scrape(sidecar.metrics_url), "ragmon_traces_total") >= scored:
                break
            time.sleep(0.2)
        time.sleep(max(0.0, settled - time.monotonic()))
        if scored is not None:  # a replacement due within RECYCLE_INTERVAL of the last comes in its time
            time.sleep(scoring.RECYCLE_INTERVAL)
        sampler.stopping.set()
        sampler.join()
        workers_now = sampler.now()
        recycles = total(scrape(sidecar.metrics_url), "ragmon_worker_pool_recycles_total")
        peak = ingest.peak_rss_mib(sidecar.pid)
    finally:
        sampler.stopping.set()
        sidecar.stop()
        os.unlink(sidecar.log.name)
    return Result(name, sent, wire / MiB, refused, too_large, seconds, held, peak,
                  max(sampler.peak, workers_now), workers_now, recycles, in_flight, stopped)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=400.0, help="typical traffic, traces/s")
    parser.add_argument("--seconds", type=float, default=10.0, help="typical traffic, how long")
    parser.add_argument("--traces-per-request", type=int, default=10)
    parser.add_argument("--stop-mib", type=float, default=1536.0,
                        help="stop an adversarial sender once the sidecar's RSS passes this")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds before reading the peaks")
    parser.add_argument("--only", type=lambda text: text.split(","), default=list(SCENARIOS),
                        help=f"comma-separated scenarios: {', '.join(SCENARIOS)}")
    parser.add_argument("--documents", type=int, default=150, help="big documents: how many traces")
    parser.add_argument("--answers", type=int, default=2_000, help="long answers: how many traces")
    parser.add_argument("--chinese", type=int, default=10, help="chinese documents: how many traces")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # Stopped by SIGTERM (`timeout`, a CI job's cancel), the scenario's `finally` stops its sidecar: it had
    # been left running, its parent gone.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    unknown = set(args.only) - SCENARIOS.keys()
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")

    bound = memory_budget.total(memory_budget.worst_case(ServeConfig()))
    print(f"documented: sidecar up to {DOCUMENTED_MIB} MiB (README, 83 + 81 for the workers); every bound "
          f"reached at once (ragmon.memory_budget): {memory_budget.mib(bound)}.\n"
          f"Defaults: --max-body {MAX_BODY // MiB} MiB, --max-traces {MAX_TRACES}, "
          f"--max-spans-per-trace {MAX_SPANS}, --decision-wait {DECISION_WAIT:g}s")
    print(f"{'scenario':14s} {'requests':>8s} {'wire MiB':>9s} {'503s':>5s} {'413s':>5s} {'secs':>6s} "
          f"{'in flight':>9s} "
          f"{'RSS held':>9s} {'RSS peak':>9s} {'+workers':>9s} {'now':>5s} {'recycled':>8s}  x wire")
    results = []
    for name in args.only:
        r = run(name, args)
        results.append(r)
        note = f"  (stopped at --stop-mib {args.stop_mib:g})" if r.stopped else ""
        print(f"{r.name:14s} {r.requests:8d} {r.wire_mib:9.1f} {r.refused:5d} {r.too_large:5d} "
              f"{r.seconds:6.1f} "
              f"{r.in_flight:9.0f} {r.held_mib:9.0f} {r.peak_mib:9.0f} {r.workers_peak_mib:9.0f} "
              f"{r.workers_now_mib:5.0f} {r.recycles:8.0f}  "
              f"{r.peak_mib / max(r.wire_mib, 1e-9):6.1f}{note}", flush=True)

    big = next((r for r in results if r.name == "big values"), None)
    if big is not None:
        rate = big.wire_mib / big.seconds
        print(f"\nbig values: {rate:.0f} MiB/s accepted on loopback, so one sender fills "
              f"{rate * DECISION_WAIT / 1024:.1f} GiB before the first rootless trace is decided "
              f"(--decision-wait {DECISION_WAIT:g}s); the count limits alone allow {MAX_TRACES} traces x "
              f"{MAX_SPANS} spans x ~{MAX_BODY // MiB} MiB = "
              f"{MAX_TRACES * MAX_SPANS * MAX_BODY / 2**40:.0f} TiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
