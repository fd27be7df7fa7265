"""/metrics while its page is being built: the sidecar in-process on 127.0.0.1 port 0, fed by the OTel
SDK's own OTLP exporters, scraped over real HTTP. A page is made as slow as a test wants by a collector on
the exporter's registry that waits for the test to let it go, not by sleeping."""

from __future__ import annotations

import asyncio
import gzip
import threading
from collections.abc import AsyncIterator, Iterable

import aiohttp
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

from ragmon.scrape import parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

HELD_AT_MOST = 5.0
"""Seconds a held page build waits for the test at most: what ends it when the build holds up the event
loop the test runs on, so that the test fails instead of hanging."""
BURST = 20
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                     "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
"""What Prometheus 2.42 asks a target for (scrape/scrape.go, scrapeAcceptHeader)."""


class HeldPages:
    """A collector on the sidecar's registry, collected last: each page build reaches it and waits there
    until the test lets it go (`release`), or `HELD_AT_MOST`."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.builds = 0
        self.finished = 0

    def describe(self) -> Iterable[Metric]:
        return [GaugeMetricFamily("test_page_builds", "Page builds that reached this collector")]

    def collect(self) -> Iterable[Metric]:
        self.builds += 1
        self.entered.set()
        self.release.wait(HELD_AT_MOST)
        self.finished += 1
        return [GaugeMetricFamily("test_page_builds", "Page builds that reached this collector",
                                  value=self.builds)]


@pytest.fixture
async def held() -> AsyncIterator[tuple[Sidecar, Ports, HeldPages]]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                         metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0, drain_seconds=2.0)
    sidecar = Sidecar(config)
    ports = await sidecar.start()
    pages = HeldPages()
    sidecar.exporter.registry.register(pages)
    try:
        yield sidecar, ports, pages
    finally:
        pages.release.set()
        await sidecar.stop()


def one_span() -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("test").start_as_current_span("GET /health"):
        pass
    provider.shutdown()
    return list(memory.get_finished_spans())


async def export(exporter: SpanExporter) -> SpanExportResult:
    """The SDK's exporters block: run one on a thread, as the app's BatchSpanProcessor does."""
    try:
        return await asyncio.to_thread(exporter.export, one_span())
    finally:
        exporter.shutdown()


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text()


def page_threads() -> set[threading.Thread]:
    """Threads building /metrics pages: earlier tests' sidecars may leave theirs ending."""
    return {thread for thread in threading.enumerate() if thread.name.startswith("ragmon-metrics")}


async def send_scrape(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A scrape whose request is in the sidecar's socket once this returns."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: ragmon\r\nConnection: close\r\n\r\n")
    await writer.drain()
    return reader, writer


async def answer(sent: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> tuple[str, str]:
    """The status line and the body."""
    reader, writer = sent
    head, _, body = (await reader.read()).decode().partition("\r\n\r\n")
    writer.close()
    await writer.wait_closed()
    return head.splitlines()[0], body


async def test_otlp_exports_are_answered_while_a_scrape_s_page_is_being_built(held) -> None:
    _, ports, pages = held
    scrape = asyncio.create_task(get(ports.metrics, "/metrics"))
    assert await asyncio.to_thread(pages.entered.wait, 10)

    http = HttpSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
    grpc = GrpcSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=10)
    assert await export(http) is SpanExportResult.SUCCESS
    assert await export(grpc) is SpanExportResult.SUCCESS
    assert pages.finished == 0, "the exports were answered only once the page was built"

    pages.release.set()
    status, text = await asyncio.wait_for(scrape, 10)
    assert status == 200
    # The page read the counters before it reached the held collector, which was before the exports.
    assert total(parse(text), "ragmon_spans_received_total") == 0
    status, text = await get(ports.metrics, "/metrics")
    assert [total(parse(text), "ragmon_spans_received_total", transport=transport)
            for transport in ("http", "grpc")] == [1, 1]


async def test_a_burst_of_scrapes_waits_for_one_build_that_reads_counts_from_after_they_came(held) -> None:
    _, ports, pages = held
    before = page_threads()
    first = asyncio.create_task(get(ports.metrics, "/metrics"))
    assert await asyncio.to_thread(pages.entered.wait, 10)
    http = HttpSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
    assert await export(http) is SpanExportResult.SUCCESS

    burst = await asyncio.gather(*(send_scrape(ports.metrics) for _ in range(BURST)))
    # Answered after the burst's requests were in the sidecar's sockets, so after each reached /metrics.
    assert await get(ports.metrics, "/healthz") == (200, "ok\n")
    assert (pages.builds, len(page_threads() - before)) == (1, 1)

    pages.release.set()
    status, text = await asyncio.wait_for(first, 10)
    assert (status, total(parse(text), "ragmon_spans_received_total")) == (200, 0)
    answers = await asyncio.wait_for(asyncio.gather(*(answer(sent) for sent in burst)), 10)
    # The first scrape's build and one more, shared by the burst, which came after the export.
    assert pages.builds == 2
    for status_line, body in answers:
        assert status_line == "HTTP/1.1 200 OK"
        assert total(parse(body), "ragmon_spans_received_total", transport="http") == 1
        assert total(parse(body), "test_page_builds") == 2


async def test_a_page_built_off_the_loop_is_negotiated_filtered_and_compressed_as_before(held) -> None:
    _, ports, pages = held
    pages.release.set()
    url = f"http://127.0.0.1:{ports.metrics}/metrics"
    wanted = [("name[]", "ragmon_max_traces"), ("name[]", "ragmon_build_info")]
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        async with session.get(url, params=wanted, headers={"Accept": PROMETHEUS_ACCEPT,
                                                            "Accept-Encoding": "gzip"}) as response:
            headers, body = response.headers, await response.read()
        async with session.head(url) as response:
            head = (response.status, response.headers["Content-Type"], await response.read())
    assert headers["Content-Type"] == ("application/openmetrics-text; version=1.0.0; charset=utf-8; "
                                       "escaping=underscores")
    assert headers["Content-Encoding"] == "gzip"
    families = {family.name: [sample.value for sample in family.samples]
                for family in parse_openmetrics(gzip.decompress(body).decode())}
    assert families == {"ragmon_max_traces": [20_000], "ragmon_build_info": [1]}
    assert head == (200, "text/plain; version=0.0.4; charset=utf-8", b"")
