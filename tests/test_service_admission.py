"""Back-pressure decided on what the trace buffer would hold after a request (ragmon.service `offer`,
ragmon.traces `Assembler.measure`): a request whose new traces or bytes would take the buffer past 90% of
`--max-traces` or `--max-buffer` is refused whole (503 + Retry-After, gRPC UNAVAILABLE with RetryInfo), so a
sender that honours back-pressure never has a trace it was answered 200 for evicted; one that could never
fit is refused for good (413, gRPC RESOURCE_EXHAUSTED).

End to end over raw OTLP/HTTP (protobuf and JSON) and gRPC, in-process on port 0; waiting is polling with a
deadline. Spans are rootless (their parent is outside the request), so only `--decision-wait` decides
their traces: with it long, what a test buffers stays buffered.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import aiohttp
import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from opentelemetry.sdk.resources import Resource as SdkResource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics

from ragmon.otlp.grpc import RETRY_INFO_KEY
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar
from ragmon.traces import Assembler, Span

MiB = 2**20
PROTOBUF, JSON = "application/x-protobuf", "application/json"
OUTSIDE = bytes.fromhex("ab" * 8)
"""The parent of every span here: in no request, so no span is a local root."""

Start = Callable[..., Awaitable[tuple[Sidecar, Ports]]]


@pytest.fixture
async def start_sidecar() -> AsyncIterator[Start]:
    started: list[Sidecar] = []

    async def start(**overrides: object) -> tuple[Sidecar, Ports]:
        settings: dict[str, object] = {
            "http_listen": ("127.0.0.1", 0), "grpc_listen": ("127.0.0.1", 0),
            "metrics_listen": ("127.0.0.1", 0), "quiet": 30.0, "decision_wait": 60.0, "drain_seconds": 5.0}
        settings.update(overrides)
        sidecar = Sidecar(ServeConfig(**settings))  # type: ignore[arg-type]
        started.append(sidecar)
        return sidecar, await sidecar.start()

    yield start
    for sidecar in started:
        await sidecar.stop()


# --- requests -----------------------------------------------------------------------------------------

def traces(first: int, count: int, chars: int = 0, span: int = 1) -> ExportTraceServiceRequest:
    """One batch of `count` spans, each of its own trace (`first`, `first` + 1, ...), as a Collector's batch
    of separate requests' spans: each span `span` of its trace, with a `chars`-character document."""
    spans = [PbSpan(trace_id=(first + n).to_bytes(16, "big"), span_id=span.to_bytes(8, "big"),
                    parent_span_id=OUTSIDE, name="retrieve",
                    attributes=[KeyValue(key="document", value=AnyValue(string_value="x" * chars))])
             for n in range(count)]
    resource = Resource(attributes=[KeyValue(key="service.name", value=AnyValue(string_value="shop"))])
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(resource=resource,
                                                                   scope_spans=[ScopeSpans(spans=spans)])])


def json_request(trace: int, chars: int) -> bytes:
    """OTLP/JSON of one span of trace `trace` holding a `chars`-character document."""
    span = {"traceId": f"{trace:032x}", "spanId": "1" * 16, "parentSpanId": OUTSIDE.hex(), "name": "retrieve",
            "attributes": [{"key": "document", "value": {"stringValue": "x" * chars}}]}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


async def post(ports: Ports, body: ExportTraceServiceRequest | bytes) -> tuple[int, str | None, bytes]:
    """Status, Retry-After and body of one OTLP/HTTP request (protobuf, or JSON given as bytes)."""
    data, content_type = (body, JSON) if isinstance(body, bytes) else (body.SerializeToString(), PROTOBUF)
    async with aiohttp.ClientSession() as session, \
            session.post(f"http://127.0.0.1:{ports.http}/v1/traces", data=data,
                         headers={"Content-Type": content_type}) as response:
        return response.status, response.headers.get("Retry-After"), await response.read()


async def grpc_refusal(ports: Ports, request: ExportTraceServiceRequest) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await TraceServiceStub(channel).Export(request)
    return error.value


async def scrape(ports: Ports) -> Samples:
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{ports.metrics}/metrics") as response:
        return parse(await response.text())


def rejected(samples: Samples, reason: str) -> float:
    return total(samples, "ragmon_spans_rejected_total", reason=reason)


# --- the tester's reports, at small scale: each fails before the fix ------------------------------------

async def test_a_batch_of_new_traces_that_would_pass_90_percent_of_max_traces_is_refused_whole(
        start_sidecar: Start) -> None:
    # Report A at a 1,000th of its scale: --max-traces 20 (503 past 18) and batches of 8 spans of separate
    # traces. Before: the third batch came at 16 < 18 buffered, was answered 200 and took the buffer to 24:
    # 4 traces evicted, 20 in flight. Now 16 + 8 > 18: refused whole, over HTTP and over gRPC.
    _, ports = await start_sidecar(max_traces=20)
    assert [(await post(ports, traces(8 * n, 8)))[:2] for n in (1, 2)] == [(200, None), (200, None)]
    assert (await post(ports, traces(24, 8)))[:2] == (503, "1")
    error = await grpc_refusal(ports, traces(24, 8))
    assert error.code() is grpc.StatusCode.UNAVAILABLE
    retry = RetryInfo.FromString(dict(error.trailing_metadata())[RETRY_INFO_KEY])
    assert retry.retry_delay.seconds == 1
    # A batch that fills the buffer exactly to its 90% is taken; one trace more is not.
    assert (await post(ports, traces(40, 2)))[0] == 200
    assert (await post(ports, traces(42, 1)))[:2] == (503, "1")
    samples = await scrape(ports)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0
    assert total(samples, "ragmon_traces_in_flight") == 18
    assert rejected(samples, "backpressure") == 8 + 8 + 1
    assert total(samples, "ragmon_spans_received_total") == 18


async def test_requests_of_one_large_span_each_stop_short_of_90_percent_of_max_buffer(
        start_sidecar: Start) -> None:
    # Report B as given (`--max-body 1MiB --max-buffer 4MiB`), but for --decision-wait, long enough that
    # no trace leaves the buffer during the test: 12 OTLP/JSON requests, one span of a new trace each, with
    # a 900,000-character document (~0.86 MiB held). 4 fit under 3.6 MiB, the 5th would take the buffer to
    # ~4.3 MiB. Before: all 200 while the buffer sat just under 90%, and every request past the 4th evicted
    # the oldest trace (8 of them). Now every request past the 4th is refused, and nothing is evicted.
    _, ports = await start_sidecar(max_body=MiB, max_buffer=4 * MiB, quiet=3.0)
    statuses = [(await post(ports, json_request(t, 900_000)))[0] for t in range(1, 13)]
    assert statuses == [200] * 4 + [503] * 8
    samples = await scrape(ports)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0
    assert total(samples, "ragmon_traces_in_flight") == 4
    assert 4 * 900_000 < total(samples, "ragmon_buffer_bytes") <= 4 * MiB * 9 // 10
    assert rejected(samples, "backpressure") == 8


async def test_an_sdk_exporter_honouring_back_pressure_loses_no_trace(start_sidecar: Start) -> None:
    # The OTel SDK's OTLP/HTTP exporter, which waits Retry-After (1 s) and sends again, 6 times at most:
    # --max-traces 20, three exports of 8 traces. The third is refused until --decision-wait (1.5 s) has
    # decided the first 16, then taken: every trace is decided on its own time, none evicted.
    _, ports = await start_sidecar(max_traces=20, decision_wait=1.5)
    for _ in range(3):
        memory = InMemorySpanExporter()
        provider = TracerProvider(resource=SdkResource.create({"service.name": "shop"}))
        provider.add_span_processor(SimpleSpanProcessor(memory))
        for _ in range(8):
            with provider.get_tracer("test").start_as_current_span("GET /health"):
                pass
        exporter = HttpSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
        result = await asyncio.to_thread(exporter.export, memory.get_finished_spans())
        exporter.shutdown()
        assert result is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 24)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0
    assert rejected(samples, "backpressure") >= 8


# --- spans of traces already buffered -------------------------------------------------------------------

async def test_spans_of_buffered_traces_are_taken_at_90_percent_of_max_traces(start_sidecar: Start) -> None:
    # --max-traces 10: 9 traces buffered, the buffer at its 90%. A batch of a second span of each opens no
    # trace, so it is taken (before: refused while 9 were buffered, though taking it evicts nothing); a
    # batch opening one more trace is refused.
    _, ports = await start_sidecar(max_traces=10)
    assert (await post(ports, traces(1, 9)))[0] == 200
    assert (await post(ports, traces(1, 9, span=2)))[0] == 200
    assert (await post(ports, traces(10, 1)))[:2] == (503, "1")
    samples = await scrape(ports)
    assert total(samples, "ragmon_traces_in_flight") == 9
    assert total(samples, "ragmon_spans_received_total") == 18
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0


async def test_bytes_added_to_a_buffered_trace_count_toward_90_percent_of_max_buffer(
        start_sidecar: Start) -> None:
    # --max-buffer 4 MiB (503 past 3.6 MiB): traces 1 and 2 hold 1.5 MiB each. A 1 MiB span of trace 1 opens
    # no trace, but would take the buffer to 4 MiB: refused. Before: taken (3 MiB < 3.6 MiB), and trace 2,
    # answered 200, was evicted to make room.
    _, ports = await start_sidecar(max_buffer=4 * MiB)
    for trace in (1, 2):
        assert (await post(ports, traces(trace, 1, 3 * MiB // 2)))[0] == 200
    assert (await post(ports, traces(1, 1, MiB, span=2)))[:2] == (503, "1")
    samples = await scrape(ports)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0
    assert total(samples, "ragmon_traces_in_flight") == 2


# --- a request over the whole headroom on its own -------------------------------------------------------

async def test_a_request_of_more_traces_than_max_traces_is_refused_for_good(start_sidecar: Start) -> None:
    # --max-traces 10, a batch of 12 traces: no buffer, however empty, holds it without evicting two of its
    # own traces (which their sender was told were taken). Before: 200, and 2 evicted. Now 413 naming the
    # flag (gRPC RESOURCE_EXHAUSTED, without RetryInfo), each span counted as too_large.
    _, ports = await start_sidecar(max_traces=10)
    status, retry_after, body = await post(ports, traces(1, 12))
    assert (status, retry_after) == (413, None)
    assert b"12 traces" in body and b"--max-traces" in body
    error = await grpc_refusal(ports, traces(1, 12))
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert RETRY_INFO_KEY not in dict(error.trailing_metadata())
    samples = await scrape(ports)
    assert rejected(samples, "too_large") == 24
    assert total(samples, "ragmon_traces_total") == 0
    assert total(samples, "ragmon_traces_in_flight") == 0
    # With a 13th span whose id is all zeros (invalid): the refusal is final, so all 13 spans are counted,
    # 24 + 13 = 37 (before: 24 + 12, the invalid one counted nowhere, as it is only when a request is taken).
    request = traces(1, 12)
    request.resource_spans[0].scope_spans[0].spans.append(
        PbSpan(trace_id=(99).to_bytes(16, "big"), span_id=bytes(8), name="retrieve"))
    assert (await post(ports, request))[0] == 413
    samples = await scrape(ports)
    assert rejected(samples, "too_large") == 37
    assert rejected(samples, "invalid") == 0


async def test_a_request_holding_more_than_max_buffer_is_refused_for_good(start_sidecar: Start) -> None:
    # --max-buffer 4 MiB, 3 spans of 1.5 MiB of separate traces: each fits a trace, all three no buffer.
    # Before: 200, and the first trace evicted. Now 413 naming --max-buffer.
    _, ports = await start_sidecar(max_buffer=4 * MiB)
    status, _, body = await post(ports, traces(1, 3, 3 * MiB // 2))
    assert status == 413 and b"--max-buffer" in body
    samples = await scrape(ports)
    assert rejected(samples, "too_large") == 3
    assert total(samples, "ragmon_traces_total") == 0


async def test_a_request_over_90_percent_on_its_own_is_taken_once_the_buffer_is_empty(
        start_sidecar: Start) -> None:
    # --max-traces 10: a batch of 10 traces is over the 90% mark on its own, though within the limit. While
    # one trace is buffered it is refused (before: taken, and that trace evicted); once --decision-wait
    # (1 s) has decided that trace, the buffer is empty and the sender's retry is taken: it never waits
    # for room that cannot come.
    _, ports = await start_sidecar(max_traces=10, decision_wait=1.0)
    assert (await post(ports, traces(1, 1)))[0] == 200
    assert (await post(ports, traces(2, 10)))[:2] == (503, "1")
    deadline = time.monotonic() + 20
    while (await post(ports, traces(2, 10)))[0] == 503:
        assert time.monotonic() < deadline, "the request was never taken"
        await asyncio.sleep(0.1)
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 11)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0


# --- Assembler.measure ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_measure_says_what_adding_a_batch_adds(seed: int) -> None:
    # Random batches (new and buffered traces, resends, spans of decided traces, spans too large for their
    # trace, traces at their span limit, shared and fresh resources) against a random buffer. Whenever
    # the batch fits, so that nothing is evicted: adding it adds exactly the traces and bytes measured.
    rnd = random.Random(seed)
    max_bytes = rnd.choice([20_000, 200_000])
    assembler = Assembler(quiet=1.0, decision_wait=2.0, max_traces=1_000, max_spans_per_trace=3,
                          max_bytes=max_bytes)
    shared = {"service.name": "shop"}
    fitted = 0
    for _ in range(30):
        batch: Sequence[Span] = [
            Span(f"{rnd.randrange(1, 15):032x}", f"{rnd.randrange(1, 6):016x}", OUTSIDE.hex(), "s",
                 attributes={"d": "x" * rnd.choice([0, 100, 5_000, 30_000])},
                 resource=shared if rnd.random() < 0.7 else {"service.name": "c" * rnd.randrange(50)})
            for _ in range(rnd.randrange(1, 8))]
        cost = assembler.measure(batch)
        before = (assembler.in_flight, assembler.buffered_bytes)
        for span, size in zip(batch, cost.span_bytes, strict=True):
            assembler.add(span, size)
        if before[0] + cost.traces <= 1_000 and before[1] + cost.bytes <= max_bytes:
            fitted += 1
            assert (assembler.in_flight, assembler.buffered_bytes) == (before[0] + cost.traces,
                                                                       before[1] + cost.bytes)
        if rnd.random() < 0.2:
            assembler.drain()  # its traces are decided: their spans are late or resent from now on
    assert fitted > 5
