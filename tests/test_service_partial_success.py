"""What the real sidecar tells a sender of the spans it takes and then loses (OTLP's partial success: late,
too_many_spans, too_many_bytes; a resent duplicate loses nothing and is not among them), and that a request
refused for back-pressure and retried has its invalid spans counted once, when it is taken.

The service in-process on port 0, fed by the OTel SDK's exporter and by raw requests, which read the
partial success the SDK's exporters do not."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiohttp
import grpc
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_json import otlp_json_doc
from polling import wait_metrics

from ragmon.otlp.sink import Dropped
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar
from ragmon.traces import Span

MiB = 2**20
PROTOBUF = "application/x-protobuf"
TOO_MANY = ("1 span dropped as too_many_spans (the trace has ragmon's --max-spans-per-trace spans "
            "already)")
LATE = ("1 span dropped as late (sent after the trace was decided by quiet: ragmon's --quiet sets how long "
        "a trace waits for more spans once its root has ended)")


def settings(**overrides: Any) -> ServeConfig:
    return ServeConfig(**{"http_listen": ("127.0.0.1", 0), "grpc_listen": ("127.0.0.1", 0),
                          "metrics_listen": ("127.0.0.1", 0), "quiet": 0.05, "decision_wait": 5.0,
                          "drain_seconds": 5.0, **overrides})


@pytest.fixture
async def sidecar() -> AsyncIterator[Ports]:
    service = Sidecar(settings(max_spans_per_trace=3))
    ports = await service.start()
    yield ports
    await service.stop()


def four_spans() -> list[ReadableSpan]:
    """One request of a new trace as the SDK ends its spans: three children, then their root."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("qa"):
        for name in ("retrieve", "rerank", "format"):
            with tracer.start_as_current_span(name):
                pass
    provider.shutdown()
    return list(memory.get_finished_spans())


async def post(ports: Ports, body: bytes, content_type: str) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as session, \
            session.post(f"http://127.0.0.1:{ports.http}/v1/traces", data=body,
                         headers={"Content-Type": content_type}) as response:
        return response.status, await response.read()


async def scrape(ports: Ports) -> Samples:
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{ports.metrics}/metrics") as response:
        return parse(await response.text())


async def sdk_export(ports: Ports, spans: Sequence[ReadableSpan]) -> SpanExportResult:
    exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=10)
    try:
        return await asyncio.to_thread(exporter.export, spans)
    finally:
        await asyncio.to_thread(exporter.shutdown)


async def test_spans_over_a_traces_bound_are_named_to_the_sender_over_each_door(sidecar: Ports) -> None:
    # max_spans_per_trace 3; each request is a new trace of 4 spans, its root last: 3 kept, the root
    # dropped as too_many_spans. Told as 1 rejected span in protobuf, in JSON (int64 as a string) and over
    # gRPC; the SDK's exporter takes that as delivered (a retry would send the 3 kept spans again).
    status, body = await post(sidecar, encode_spans(four_spans()).SerializeToString(), PROTOBUF)
    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert (status, partial.rejected_spans, partial.error_message) == (200, 1, TOO_MANY)

    status, body = await post(sidecar, json.dumps(otlp_json_doc(encode_spans(four_spans()))).encode(),
                              "application/json")
    assert (status, json.loads(body)) == (200, {"partialSuccess": {"rejectedSpans": "1",
                                                                   "errorMessage": TOO_MANY}})

    async with grpc.aio.insecure_channel(f"127.0.0.1:{sidecar.grpc}") as channel:
        response = await TraceServiceStub(channel).Export(encode_spans(four_spans()), timeout=10)
    assert (response.partial_success.rejected_spans, response.partial_success.error_message) == (1, TOO_MANY)

    assert await sdk_export(sidecar, four_spans()) is SpanExportResult.SUCCESS
    samples = await scrape(sidecar)
    assert total(samples, "ragmon_spans_rejected_total", reason="too_many_spans") == 4
    assert total(samples, "ragmon_spans_received_total") == 16


async def test_a_late_span_is_named_to_the_sender_and_a_resent_one_is_not(sidecar: Ports) -> None:
    # [retrieve, rerank, qa] is a whole trace, decided 50 ms after its root. Then [qa, format]: qa was in
    # it (a duplicate: the exporter resent it, nothing is lost), format never was (late): 1 rejected.
    spans = {span.name: span for span in four_spans()}
    first = encode_spans([spans["retrieve"], spans["rerank"], spans["qa"]]).SerializeToString()
    assert await post(sidecar, first, PROTOBUF) == (200, b"")
    await wait_metrics(sidecar.metrics, lambda s: total(s, "ragmon_traces_total") == 1)

    status, body = await post(sidecar, encode_spans([spans["qa"], spans["format"]]).SerializeToString(),
                              PROTOBUF)
    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert (status, partial.rejected_spans, partial.error_message) == (200, 1, LATE)
    samples = await scrape(sidecar)
    assert total(samples, "ragmon_spans_rejected_total", reason="duplicate") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 1


async def test_offer_returns_the_spans_it_dropped_by_reason() -> None:
    # --max-buffer 1 MiB: a span holding a 2 MiB string cannot fit in its trace (too_many_bytes); a small
    # span of another trace can. The first offer is taken (no 503) but loses its one span.
    sidecar = Sidecar(settings(http_listen=None, grpc_listen=None, metrics_listen=None, max_buffer=MiB))
    await sidecar.start()
    try:
        huge = Span("a" * 32, "1" * 16, "f" * 16, "doc", attributes={"document": "x" * (2 * MiB)})
        small = Span("b" * 32, "1" * 16, "f" * 16, "doc", attributes={"document": "x"})
        assert sidecar.offer([huge], "http") == Dropped({"too_many_bytes": 1})
        assert sidecar.offer([small], "http") is True
    finally:
        await sidecar.stop()


async def test_invalid_spans_of_a_batch_refused_for_back_pressure_are_counted_once() -> None:
    # --max-traces 10: 9 rootless traces fill the buffer to its 90% (503 from then on), until
    # --decision-wait (2 s) decides them. A batch of 1 valid and 1 invalid span (all-zero trace id) is
    # refused 503 3 times, then taken with a partial success. Its invalid span is counted once, when
    # taken; each 503 counts the 1 valid span it refused as backpressure.
    service = Sidecar(settings(max_traces=10, decision_wait=2.0))
    ports = await service.start()

    def span(trace_id: str) -> dict[str, str]:
        return {"traceId": trace_id, "spanId": os.urandom(8).hex(), "parentSpanId": "ab" * 8, "name": "x"}

    def request(spans: list[dict[str, str]]) -> bytes:
        return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()

    try:
        fill = request([span(os.urandom(16).hex()) for _ in range(9)])
        assert await post(ports, fill, "application/json") == (200, b"{}")
        batch = request([span(os.urandom(16).hex()), span("00" * 16)])
        statuses = [(await post(ports, batch, "application/json"))[0] for _ in range(3)]
        assert statuses == [503, 503, 503]
        deadline = time.monotonic() + 20
        while (answer := await post(ports, batch, "application/json"))[0] == 503:
            assert time.monotonic() < deadline, "the buffer never made room"
            statuses.append(503)
            await asyncio.sleep(0.1)
        assert answer[0] == 200
        assert json.loads(answer[1])["partialSuccess"]["rejectedSpans"] == "1"
        samples = await scrape(ports)
        assert total(samples, "ragmon_spans_rejected_total", reason="invalid") == 1
        assert total(samples, "ragmon_spans_rejected_total", reason="backpressure") == len(statuses)
    finally:
        await service.stop()
