"""The sidecar's span and trace ledger, end to end: every span that reaches a door is counted once, under
`ragmon_spans_received_total` or a `ragmon_spans_rejected_total` reason, and every trace once under one
`ragmon_traces_total` outcome, whichever door and encoding its spans take and however they are split.

The real service in-process on port 0, fed through both doors (OTLP/HTTP with protobuf and OTLP/JSON,
OTLP/gRPC with the SDK's own exporter), read back from its /metrics page with prometheus_client's parser.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

import aiohttp
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_json import otlp_json_doc
from polling import wait_metrics

from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

KIND = "openinference.span.kind"
QUESTION = "How long does the warranty last?"
DOC = "The warranty lasts 2 years from the date of purchase."
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")
REASONS = ("invalid", "decode_error", "too_large", "unauthorized", "backpressure", "duplicate", "late",
           "too_many_spans")


@pytest.fixture
async def sidecar() -> AsyncIterator[tuple[Sidecar, Ports]]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                         metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0, drain_seconds=5.0,
                         max_spans_per_trace=3)
    service = Sidecar(config)
    ports = await service.start()
    yield service, ports
    await service.stop()


def rag_request_spans() -> dict[str, ReadableSpan]:
    """One RAG request as the SDK ends its spans: a CHAIN root with the question and answer, a retriever
    with one document, and two plain children."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    chain = {KIND: "CHAIN", "input.value": QUESTION, "output.value": "The warranty lasts 2 years."}
    retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": "warranty",
                 "retrieval.documents.0.document.content": DOC}
    with tracer.start_as_current_span("qa", attributes=chain):
        for name, attributes in (("retrieve", retriever), ("rerank", {}), ("format", {})):
            with tracer.start_as_current_span(name, attributes=attributes):
                pass
    provider.shutdown()
    return {span.name: span for span in memory.get_finished_spans()}


async def post(ports: Ports, body: bytes, content_type: str) -> int:
    async with aiohttp.ClientSession() as session, \
            session.post(f"http://127.0.0.1:{ports.http}/v1/traces", data=body,
                         headers={"Content-Type": content_type}) as response:
        return response.status


async def over_grpc(ports: Ports, spans: Sequence[ReadableSpan]) -> None:
    exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=10)
    try:
        assert await asyncio.to_thread(exporter.export, spans) is SpanExportResult.SUCCESS
    finally:
        await asyncio.to_thread(exporter.shutdown)


async def scrape(ports: Ports) -> Samples:
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{ports.metrics}/metrics") as response:
        return parse(await response.text())


async def test_one_trace_split_over_both_doors_resent_late_and_over_its_bound(
        sidecar: tuple[Sidecar, Ports]) -> None:
    # max_spans_per_trace 3. By hand, request by request:
    # 1. HTTP protobuf [retrieve, rerank, a span with an all-zero trace id]: 200 with a partial success;
    #    2 received over http, 1 invalid. The trace holds retrieve and rerank, no root yet (waits).
    # 2. gRPC [qa, retrieve, format]: 3 received over grpc; qa (the root) is the 3rd span kept,
    #    retrieve a duplicate, format over the bound (too_many_spans). A root: decided 50 ms later.
    # 3. once decided, the sender resends qa as OTLP/JSON and format over gRPC: 1 received over each
    #    door; qa was in the trace (a duplicate), and so is format: the trace refused it in request 2,
    #    and a resend of what was refused is no second loss (counted `late` too, the one span lost read
    #    as two in the loss ratio and in "N spans of this trace were refused").
    # Spans received 3 + 4 = 7 = 3 kept + 3 duplicate + 1 too_many_spans; one trace, an error: it lost a
    # span to its bound, which may have held its answer.
    _, ports = sidecar
    spans = rag_request_spans()
    first = encode_spans([spans["retrieve"], spans["rerank"], spans["format"]])
    first.resource_spans[0].scope_spans[0].spans[2].trace_id = bytes(16)
    assert await post(ports, first.SerializeToString(), "application/x-protobuf") == 200
    await over_grpc(ports, [spans["qa"], spans["retrieve"], spans["format"]])
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 1)
    resent = json.dumps(otlp_json_doc(encode_spans([spans["qa"]]))).encode()
    assert await post(ports, resent, "application/json") == 200
    await over_grpc(ports, [spans["format"]])

    samples = await scrape(ports)
    assert {t: total(samples, "ragmon_spans_received_total", transport=t) for t in ("http", "grpc")} == {
        "http": 3, "grpc": 4}
    assert {r: total(samples, "ragmon_spans_rejected_total", reason=r) for r in REASONS} == {
        "invalid": 1, "decode_error": 0, "too_large": 0, "unauthorized": 0, "backpressure": 0,
        "duplicate": 3, "late": 0, "too_many_spans": 1}
    assert {o: total(samples, "ragmon_traces_total", outcome=o) for o in OUTCOMES} == {
        "scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1}
    assert total(samples, "ragmon_traces_in_flight") == 0   # the spans sent again opened no second trace


async def test_a_batch_resent_after_its_trace_was_scored_is_all_duplicates(
        sidecar: tuple[Sidecar, Ports]) -> None:
    # An exporter that got no answer in time sends the same batch again, though it had landed. The batch
    # is one whole trace, [retrieve, rerank, qa] (3 spans: the fixture's max_spans_per_trace, so all are
    # kept), scored 50 ms after its root. The same bytes again after that: 3 received, all 3 duplicates
    # of spans the trace was scored with, none late (nothing was lost), and no second trace.
    _, ports = sidecar
    spans = rag_request_spans()
    batch = encode_spans([spans["retrieve"], spans["rerank"], spans["qa"]]).SerializeToString()
    assert await post(ports, batch, "application/x-protobuf") == 200
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 1)
    assert await post(ports, batch, "application/x-protobuf") == 200

    samples = await scrape(ports)
    assert total(samples, "ragmon_spans_received_total", transport="http") == 6
    assert {r: total(samples, "ragmon_spans_rejected_total", reason=r) for r in REASONS} == {
        "invalid": 0, "decode_error": 0, "too_large": 0, "unauthorized": 0, "backpressure": 0,
        "duplicate": 3, "late": 0, "too_many_spans": 0}
    assert total(samples, "ragmon_traces_in_flight") == 0   # nothing buffered: no second trace opened
    assert {o: total(samples, "ragmon_traces_total", outcome=o) for o in OUTCOMES} == {
        "scored": 1, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 0}
