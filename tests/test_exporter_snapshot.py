"""/metrics as one snapshot while traffic flows: the sidecar in-process on 127.0.0.1 port 0, fed by the OTel
SDK's own OTLP/HTTP exporter, scraped over real HTTP back to back while its lexical judge scores.

The README's ledger: every trace taken is in one place, `ragmon_traces_total` + `ragmon_traces_in_flight` +
`ragmon_traces_waiting` + `ragmon_traces_refused_pending` + the first judge's `ragmon_score_queue_depth`
and `ragmon_score_in_progress`. A page whose gauges and counters were read at two instants counted a trace
scored in between twice, and a Grafana panel of "taken = outcomes + waiting" jumped above the traces
sent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmon import instrument
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

TRACES = 60
"""RAG requests, sent in one export: the judge scores them through a dozen scrapes or more (before the
fix, 6 runs in 6 had a page over 60, by 1 to 4)."""
SCORED_WITHIN = 20.0


@pytest.fixture
async def sidecar() -> AsyncIterator[Ports]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.01, decision_wait=5.0, drain_seconds=5.0)
    service = Sidecar(config)
    ports = await service.start()
    yield ports
    await service.stop()


def rag_requests(count: int) -> list[ReadableSpan]:
    """The spans of `count` RAG requests, each a question, a document and an answer the document states."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    for number in range(count):
        with instrument.rag_span(f"How long is warranty {number}?", tracer_provider=provider) as rag:
            rag.retrieved(["The warranty lasts 2 years from the date of purchase."])
            rag.answered("The warranty lasts 2 years.")
    provider.shutdown()
    return list(memory.get_finished_spans())


def placed(samples: Samples) -> float:
    """Where a page puts the traces taken: the README's sum."""
    return (total(samples, "ragmon_traces_total") + total(samples, "ragmon_traces_in_flight")
            + total(samples, "ragmon_traces_waiting") + total(samples, "ragmon_traces_refused_pending")
            + total(samples, "ragmon_score_queue_depth", judge="lexical")
            + total(samples, "ragmon_score_in_progress", judge="lexical"))


async def pages_until_scored(port: int) -> list[Samples]:
    """Every page read back to back until all the traces are scored."""
    deadline = time.monotonic() + SCORED_WITHIN
    pages: list[Samples] = []
    async with aiohttp.ClientSession() as session:
        while not pages or total(pages[-1], "ragmon_traces_total", outcome="scored") < TRACES:
            assert time.monotonic() < deadline, f"not all {TRACES} traces scored within {SCORED_WITHIN}s"
            async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                pages.append(parse(await response.text()))
    return pages


async def test_every_page_scraped_while_traces_are_scored_places_each_trace_once(sidecar: Ports) -> None:
    # 60 traces, all taken before the first scrape (the export is answered once `offer` took their
    # spans, so every page counts all of them received): the ledger sums to 60 exactly on every page,
    # wherever each trace is at that instant, and the last page has all 60 scored (sample rate 1, each
    # answer stated by its document).
    spans = rag_requests(TRACES)
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{sidecar.http}/v1/traces", timeout=10)
    try:
        assert await asyncio.to_thread(exporter.export, spans) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()

    pages = await pages_until_scored(sidecar.metrics)
    assert [total(page, "ragmon_spans_received_total") for page in pages] == [len(spans)] * len(pages)
    assert [placed(page) for page in pages] == [TRACES] * len(pages)
    assert total(pages[-1], "ragmon_traces_total") == TRACES
