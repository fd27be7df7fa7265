"""OTLP/HTTP answer latency of `ragmon serve` while /metrics is scraped, at the label cap.

The sidecar runs in this process (as `ragmon serve` runs it: one event loop for the receivers and
/metrics) with --capture and two judges' series for 21 pipelines (the 20 of --max-pipelines and
`other`), so each page is as large as a sidecar's gets. One thread posts one-span OTLP/HTTP requests back
to back and times each answer; two more scrape /metrics back to back, as a Prometheus HA pair (or a pair
and an agent) does when their scrapes meet. Prints the latency's p50, p99 and maximum with no scrape,
with text scrapes and with OpenMetrics ones (what Prometheus asks for), and a page's size.

Run: `.venv/bin/python benchmarks/scrape_stall.py [--seconds S] [--scrapers N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import itertools
import statistics
import tempfile
import threading
import time
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from ragmon.model import METRIC_NAMES, Context, Example, ExampleResult
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

JUDGES = ("lexical", "claude")
PIPELINES = 21
OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
"""What Prometheus asks a target for (abridged: the first choice decides)."""
PHASES = (("no scrapes", None), ("text scrapes", "text/plain"), ("OpenMetrics scrapes", OPENMETRICS))


def fill(sidecar: Sidecar) -> None:
    """Every series a pipeline gets from each judge, for the label cap: the page a scraper reads there."""
    example = Example(id="x", question="q", contexts=(Context(id="d", text="t"),), answer="a")
    exporter = sidecar.exporter
    for pipeline in range(PIPELINES):
        label = exporter.pipeline_label(f"pipeline-{pipeline}")
        for judge in JUDGES:
            result = ExampleResult(example=example, judge=judge, metrics=dict.fromkeys(METRIC_NAMES, 0.5),
                                   verdicts=())
            exporter.example_scored(label, judge, result, "0" * 32)


def request(trace: int) -> bytes:
    span = Span(trace_id=trace.to_bytes(16, "big"), span_id=(1).to_bytes(8, "big"), name="GET /health",
                start_time_unix_nano=1, end_time_unix_nano=2)
    resource = Resource(attributes=[KeyValue(key="service.name", value=AnyValue(string_value="shop"))])
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource=resource, scope_spans=[ScopeSpans(spans=[span])])]).SerializeToString()


def post_until(port: int, stop: threading.Event, traces: itertools.count[int],
               latencies: list[float]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        body = request(next(traces))
        started = time.perf_counter()
        connection.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        response = connection.getresponse()
        response.read()
        latencies.append(time.perf_counter() - started)
        if response.status != 200:
            raise SystemExit(f"error: the sidecar answered {response.status} to an OTLP request")


def scrape_until(port: int, stop: threading.Event, accept: str, sizes: list[tuple[int, int]]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        connection.request("GET", "/metrics", headers={"Accept": accept})
        page = connection.getresponse().read()
        sizes.append((page.count(b"\n"), len(page)))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


async def phase(ports: tuple[int, int], accept: str | None, seconds: float, scrapers: int,
                traces: itertools.count[int]) -> tuple[list[float], list[tuple[int, int]]]:
    http_port, metrics_port = ports
    stop = threading.Event()
    latencies: list[float] = []
    sizes: list[tuple[int, int]] = []
    threads = [threading.Thread(target=post_until, args=(http_port, stop, traces, latencies))]
    if accept is not None:
        threads += [threading.Thread(target=scrape_until, args=(metrics_port, stop, accept, sizes))
                    for _ in range(scrapers)]
    for thread in threads:
        thread.start()
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.to_thread(lambda: [thread.join() for thread in threads])
    return latencies, sizes


async def main(seconds: float, scrapers: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                             quiet=0.05, capture=Path(directory) / "capture.jsonl", max_traces=1_000_000)
        sidecar = Sidecar(config)
        ports = await sidecar.start()
        assert ports.http is not None and ports.metrics is not None
        try:
            fill(sidecar)
            traces = itertools.count(1)
            for name, accept in PHASES:
                latencies, sizes = await phase((ports.http, ports.metrics), accept, seconds, scrapers, traces)
                cut = statistics.quantiles(latencies, n=100)
                page = f"; {len(sizes)} scrapes of {sizes[-1][0]:,} lines, {sizes[-1][1] // 1024:,} KiB" \
                    if sizes else ""
                print(f"{name:20} OTLP p50 {ms(cut[49])}  p99 {ms(cut[98])}  max {ms(max(latencies))}  "
                      f"({len(latencies):,} requests{page})")
        finally:
            await sidecar.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase (default 5)")
    parser.add_argument("--scrapers", type=int, default=2, help="scrapers at once (default 2)")
    options = parser.parse_args()
    if options.seconds <= 0 or options.scrapers < 1:
        parser.error("--seconds must be positive and --scrapers at least 1")
    asyncio.run(main(options.seconds, options.scrapers))
