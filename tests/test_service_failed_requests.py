"""Requests that failed in the app, end to end: an app recording with `ragmon.instrument` exports over
OTLP/HTTP (the SDK's own exporter) to a running sidecar, which must count a failed request, and one that
recorded nothing to score, under `ragmon_traces_total{outcome="error"}` with a log line naming the span,
and not as `scored` with nothing measured. The search endpoint that ended well beside them is scored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from polling import wait_metrics

from ragmon import instrument
from ragmon.model import Context
from ragmon.scrape import total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

QUESTION = "How long does the warranty last?"
DOC = Context("kb-warranty", "The warranty lasts 2 years from the date of purchase.", 0.9)
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")
EXTRACT_LINE = "trace cannot be extracted"


@pytest.fixture
async def ports() -> AsyncIterator[Ports]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, decision_wait=5.0, drain_seconds=5.0)
    service = Sidecar(config)
    ports = await service.start()
    yield ports
    await service.stop()


def serve(ports: Ports) -> dict[str, str]:
    """Three requests of the app, each its own trace: one that failed after retrieval, one that recorded
    only its question, and a search endpoint that ended well. Returns the trace id of each."""
    provider = TracerProvider(resource=Resource.create({"service.name": "support-api"}))
    provider.add_span_processor(SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)))
    trace_ids: dict[str, str] = {}
    try:
        with pytest.raises(RuntimeError), instrument.rag_span(
                QUESTION, pipeline="support", tracer_provider=provider) as rag:
            trace_ids["failed"] = format(rag.span.get_span_context().trace_id, "032x")
            rag.retrieved([DOC])
            raise RuntimeError("the model timed out")
        with instrument.rag_span(QUESTION, pipeline="support", tracer_provider=provider) as rag:
            trace_ids["nothing"] = format(rag.span.get_span_context().trace_id, "032x")
        with instrument.rag_span(QUESTION, pipeline="support", relevant_ids=["kb-warranty"],
                                 tracer_provider=provider) as rag:
            trace_ids["search"] = format(rag.span.get_span_context().trace_id, "032x")
            rag.retrieved([DOC])
    finally:
        provider.shutdown()
    return trace_ids


async def test_failed_requests_count_as_errors_not_as_scored(ports: Ports,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    trace_ids = await asyncio.to_thread(serve, ports)

    assert ports.metrics is not None
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 3)

    assert {o: total(samples, "ragmon_traces_total", pipeline="support", outcome=o) for o in OUTCOMES} == {
        "scored": 1, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 2}
    assert total(samples, "ragmon_examples_scored_total", pipeline="support") == 1   # the search only
    lines = {record.trace_id: record.error for record in caplog.records  # type: ignore[attr-defined]
             if record.name == "ragmon.service" and record.getMessage().startswith(EXTRACT_LINE)}
    assert set(lines) == {trace_ids["failed"], trace_ids["nothing"]}
    failed, nothing = lines[trace_ids["failed"]], lines[trace_ids["nothing"]]
    assert "span 'rag'" in failed and "span 'rag'" in nothing
    assert failed.endswith(
        "the request failed: no answer to score (status ERROR, exception.type 'RuntimeError')")
    assert nothing.endswith("the request recorded neither documents nor an answer: nothing to score")
