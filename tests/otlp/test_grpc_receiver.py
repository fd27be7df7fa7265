"""OTLP/gRPC receiver on a real grpc.aio server, fed by the SDK's own exporter and by a grpc.aio client
(and, for what an operator sees of a refusal, inside the real sidecar)."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from google.rpc.status_pb2 import Status
from js_apps import capture
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmon.otlp.decode import decode_protobuf
from ragmon.otlp.grpc import RETRY_INFO_KEY, STATUS_DETAILS_KEY
from ragmon.scrape import scrape, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

Serve = Callable[..., Awaitable[str]]
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@pytest.fixture
def serve(grpc_receiver: Serve) -> Serve:
    return grpc_receiver


async def call(target: str, request: ExportTraceServiceRequest, *, token: str | None = None,
               compression: grpc.Compression | None = None) -> ExportTraceServiceResponse:
    metadata = None if token is None else (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(target) as channel:
        return await TraceServiceStub(channel).Export(request, metadata=metadata, compression=compression)


@pytest.mark.parametrize("compression", [grpc.Compression.NoCompression, grpc.Compression.Gzip,
                                         grpc.Compression.Deflate])
async def test_the_sdk_exporter_delivers_a_trace(serve, sink, emit_rag_trace, compression):
    target = await serve()
    exporter = OTLPSpanExporter(endpoint=target, insecure=True, compression=compression)
    await asyncio.to_thread(emit_rag_trace, exporter)

    assert [transport for _, transport in sink.offers] == ["grpc"] * 3
    spans = {span.name: span for span in sink.spans}
    root = spans["POST /ask"]
    assert root.parent_span_id is None and root.resource["service.name"] == "rag-demo"
    assert spans["retrieve"].parent_span_id == spans["llm"].parent_span_id == root.span_id
    assert spans["retrieve"].events[0].name == "db.query.result"


async def test_grpc_and_http_decoding_agree(serve, sink, sdk_spans):
    target = await serve()
    request = encode_spans(sdk_spans)
    assert await call(target, request) == ExportTraceServiceResponse()
    assert tuple(sink.spans) == decode_protobuf(request.SerializeToString()).spans


async def test_partial_success_names_the_rejected_span(serve, sink, sdk_spans):
    target = await serve()
    request = encode_spans(sdk_spans)
    bad = request.resource_spans[0].scope_spans[0].spans[2]
    bad.trace_id = b"\x01" * 15
    response = await call(target, request)
    assert response.partial_success.rejected_spans == 1
    assert response.partial_success.error_message == (
        f"resourceSpans[0].scopeSpans[0].spans[2] {bad.name!r}: traceId is not 32 hex digits")
    assert len(sink.spans) == 2 and sink.rejects == [(1, "invalid")]


async def test_a_request_whose_every_span_is_invalid_is_invalid_argument(serve, sink, sdk_spans):
    target = await serve()
    request = encode_spans(sdk_spans)
    for span in request.resource_spans[0].scope_spans[0].spans:
        span.span_id = b""
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, request)
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details().startswith("every span was rejected: ")
    assert sink.offers == [] and sink.rejects == [(3, "invalid")]


async def test_bytes_that_are_not_protobuf_are_invalid_argument_and_counted(serve, sink):
    # The bytes HTTP gets a 400 for (test_http_receiver): field 1, length 100, then a single byte.
    target = await serve()
    async with grpc.aio.insecure_channel(target) as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                     request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await export(b"\x0a\x64\x01")
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details().startswith("not a valid protobuf ExportTraceServiceRequest")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_call_streaming_two_messages_is_invalid_argument_and_counted(serve, sink, sdk_spans):
    # Answered OK for the first of two messages, the second's spans had been counted nowhere.
    target = await serve()
    request = encode_spans(sdk_spans).SerializeToString()

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(2):
            yield request

    async with grpc.aio.insecure_channel(target) as channel:
        export = channel.stream_unary(EXPORT, request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await export(stream(), timeout=10)
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details() == ("more than one request message in one Export call: Export is unary, one "
                                     "ExportTraceServiceRequest a call")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_message_whose_stream_is_left_open_is_taken(serve, sink, sdk_spans):
    # The end of the stream is waited for a second after the message, not held to the 30 s for a body.
    target = await serve()
    request = encode_spans(sdk_spans).SerializeToString()
    opened = asyncio.Event()

    async def stream() -> AsyncIterator[bytes]:
        yield request
        await opened.wait()

    async with grpc.aio.insecure_channel(target) as channel:
        export = channel.stream_unary(EXPORT, request_serializer=None, response_deserializer=None)
        started = asyncio.get_running_loop().time()
        await export(stream(), timeout=10)
        assert asyncio.get_running_loop().time() - started < 5
    opened.set()
    assert len(sink.spans) == len(sdk_spans) and sink.rejects == []


async def test_a_full_queue_is_unavailable_with_retry_info(serve, sink, sdk_spans):
    target = await serve()
    sink.refusals = -1
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, encode_spans(sdk_spans))
    assert error.value.code() is grpc.StatusCode.UNAVAILABLE
    trailers = dict(error.value.trailing_metadata())
    retry_info = RetryInfo.FromString(trailers[RETRY_INFO_KEY])  # the Python exporter reads it here
    assert (retry_info.retry_delay.seconds, retry_info.retry_delay.nanos) == (1, 0)
    # The Collector and Go read the status details (the spec's own example): the call's status, 14
    # UNAVAILABLE and its message, with RetryInfo packed in. Without them they backed off on their own.
    status = Status.FromString(trailers[STATUS_DETAILS_KEY])
    assert (status.code, status.message) == (14, error.value.details())
    [detail] = status.details
    packed = RetryInfo()
    assert detail.Unpack(packed) and packed == retry_info
    assert sink.rejects == [(3, "backpressure")]


async def test_the_sdk_exporter_retries_unavailable(serve, sink, sdk_spans):
    target = await serve()
    sink.refusals = 1
    exporter = OTLPSpanExporter(endpoint=target, insecure=True)
    assert await asyncio.to_thread(exporter.export, sdk_spans) is SpanExportResult.SUCCESS
    assert len(sink.offers) == 2


async def test_the_sdk_exporter_waits_as_retry_info_says(serve, sink, sdk_spans):
    # Within a 2.5 s timeout, the 1 s RetryInfo delay fits three attempts (t = 0, 1, 2); the exporter's own
    # backoff (1 s then 2 s, each +-20 %) would fit only two.
    target = await serve()
    sink.refusals = -1
    exporter = OTLPSpanExporter(endpoint=target, insecure=True, timeout=2.5)
    assert await asyncio.to_thread(exporter.export, sdk_spans) is SpanExportResult.FAILURE
    assert len(sink.offers) == 3


async def test_a_token_is_required_when_configured(serve, sink, sdk_spans):
    target = await serve(token="s3cret")
    denied = await asyncio.to_thread(OTLPSpanExporter(endpoint=target, insecure=True).export, sdk_spans)
    assert denied is SpanExportResult.FAILURE  # UNAUTHENTICATED is final: no retry
    assert sink.offers == [] and sink.rejects == [(1, "unauthorized")]

    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, encode_spans(sdk_spans), token="wrong")
    assert error.value.code() is grpc.StatusCode.UNAUTHENTICATED

    exporter = OTLPSpanExporter(endpoint=target, insecure=True, headers={"authorization": "Bearer s3cret"})
    assert await asyncio.to_thread(exporter.export, sdk_spans) is SpanExportResult.SUCCESS
    assert len(sink.spans) == 3


def with_document(request: ExportTraceServiceRequest, letters: int) -> ExportTraceServiceRequest:
    """`request` with an attribute of `letters` repeated letters on its first span: a body that gzips to a
    few hundred bytes whatever its size, to show that a limit holds once inflated."""
    request.resource_spans[0].scope_spans[0].spans[0].attributes.append(
        KeyValue(key="doc", value=AnyValue(string_value="w" * letters)))
    return request


@pytest.mark.parametrize(("compression", "what"), [
    (grpc.Compression.NoCompression, "message of {size} bytes"),
    (grpc.Compression.Gzip, "message, once decompressed,"),
    (grpc.Compression.Deflate, "message, once decompressed,"),
])
async def test_an_oversized_message_is_resource_exhausted_and_counted(serve, sink, sdk_spans, compression,
                                                                      what):
    # The limit is on the message the receiver gets, i.e. once inflated: ByteSize() bytes, however few of
    # them were on the wire. One byte over it is refused and counted; the limit itself passes.
    request = with_document(encode_spans(sdk_spans), 40_000)
    size = request.ByteSize()
    target = await serve(max_body=size - 1)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, request, compression=compression)
    assert error.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.value.details() == (
        f"{what.format(size=size)} is over ragmon's {size - 1}-byte limit (--max-body): "
        "send smaller batches (the SDK's OTEL_BSP_MAX_EXPORT_BATCH_SIZE, the Collector's "
        "send_batch_max_size) or raise --max-body")
    # No RetryInfo: final for a client that follows the spec.
    assert RETRY_INFO_KEY not in dict(error.value.trailing_metadata())
    assert sink.offers == [] and sink.rejects == [(1, "too_large")]

    at_the_limit = await serve(max_body=size)
    assert await call(at_the_limit, request, compression=compression) == ExportTraceServiceResponse()
    assert len(sink.spans) == 3 and sink.rejects == [(1, "too_large")]


async def test_a_message_holding_more_values_than_the_limit_is_resource_exhausted_and_counted(serve, sink):
    # One span of 5,000 empty events, 10 KB on the wire. In quarters (ragmon.otlp.values): request,
    # resource spans, scope spans and span 4 each, the span's trace id and span id 4 each, its name 1,
    # each event 4: 20,025, so 5,006.25 values.
    span = PbSpan(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="flood", events=[PbSpan.Event()] * 5000)
    scope_spans = ScopeSpans(spans=[span])
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[scope_spans])])
    target = await serve(max_values=5006)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, request)
    assert error.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.value.details() == ("the request holds more than 5006 values (spans, their ids, events, "
                                     "links, attributes, their values; 4 other fields count as one; "
                                     "--max-values): send smaller batches")
    assert RETRY_INFO_KEY not in dict(error.value.trailing_metadata())
    assert sink.offers == [] and sink.rejects == [(1, "too_large")]

    enough = await serve(max_values=5007)
    assert await call(enough, request) == ExportTraceServiceResponse()
    assert len(sink.spans[0].events) == 5000


async def test_over_twice_the_limit_grpc_refuses_the_message_itself(serve, sink, sdk_spans):
    # gRPC's own cap is 2 x max_body. A message of exactly 2 x max_body bytes still reaches the receiver
    # (refused and counted); with max_body one byte lower the cap is 2 bytes under the message, and gRPC
    # answers itself, cancelling the receiver's read: the module docstring's uncounted remainder. An even size
    # is needed for the first case: one more letter changes it by 1.
    request = with_document(encode_spans(sdk_spans), 40_000)
    if request.ByteSize() % 2:
        request = with_document(encode_spans(sdk_spans), 40_001)
    size = request.ByteSize()
    with pytest.raises(grpc.aio.AioRpcError) as counted:
        await call(await serve(max_body=size // 2), request)
    assert counted.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert counted.value.details().startswith(f"message of {size} bytes ")
    assert sink.rejects == [(1, "too_large")]

    with pytest.raises(grpc.aio.AioRpcError) as uncounted:
        await call(await serve(max_body=size // 2 - 1), request)
    assert uncounted.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "message larger than max" in uncounted.value.details()  # gRPC's words, not ours
    assert sink.offers == [] and sink.rejects == [(1, "too_large")]


@pytest.mark.parametrize("compression", [grpc.Compression.Gzip, grpc.Compression.Deflate])
async def test_a_compressed_message_far_over_the_limit_is_refused_by_ragmon_and_counted(
        serve, sink, sdk_spans, compression):
    # 4 MB of letters, a few KB on the wire, against a limit of 100 KB: gRPC's cap (200 KB) is on the wire
    # size, so the message reaches ragmon, which stops inflating it past the limit, and counts it. (gRPC
    # used to inflate it whole first, then refuse it itself, uncounted.)
    request = with_document(encode_spans(sdk_spans), 4_000_000)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(await serve(max_body=100_000), request, compression=compression)
    assert error.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.value.details().startswith("message, once decompressed, is over ragmon's 100000-byte limit")
    assert sink.offers == [] and sink.rejects == [(1, "too_large")]


async def test_a_corrupt_gzip_message_is_invalid_argument_and_counted(serve, sink, sdk_spans):
    # Gzip cut short, sent uncompressed so that gRPC passes it through as it is: ragmon reads the gzip
    # magic, inflates, and finds the stream ends early.
    whole = gzip.compress(encode_spans(sdk_spans).SerializeToString())
    async with grpc.aio.insecure_channel(await serve()) as channel:
        export = channel.unary_unary(EXPORT)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await export(whole[:len(whole) // 2])
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details() == "message is not valid gzip data: the compressed stream ends early"
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


def spans_with_document(letters: int) -> tuple[ReadableSpan, ...]:
    """SDK spans of one request whose retriever span carries `letters` repeated letters."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("ragmon.tests").start_as_current_span("retrieve",
                                                                 attributes={"doc": "w" * letters}):
        pass
    provider.shutdown()
    return memory.get_finished_spans()


async def test_the_sdk_exporter_gives_up_on_an_oversized_batch_and_the_sidecar_counts_it(refusal_records):
    # The real sidecar and its /metrics page. The exporter sends encode_spans(spans), one byte over the
    # limit. It retries RESOURCE_EXHAUSTED: within a 2 s timeout it tries at t = 0, then after its first
    # backoff (1 s +-20%: 0.8-1.2 s), and not again (the next backoff, 2 s +-20% >= 1.6 s, is longer than
    # the <= 1.2 s left). So 2 requests refused and counted (1 per request, as over HTTP), 0 spans
    # received, and 1 log line: the second refusal, same reason and peer, falls in the log's window.
    spans = spans_with_document(40_000)
    size = encode_spans(spans).ByteSize()
    sidecar = Sidecar(ServeConfig(http_listen=None, grpc_listen=("127.0.0.1", 0),
                                  metrics_listen=("127.0.0.1", 0), max_body=size - 1))
    ports = await sidecar.start()
    try:
        exporter = OTLPSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=2.0)
        assert await asyncio.to_thread(exporter.export, spans) is SpanExportResult.FAILURE
        await asyncio.to_thread(exporter.shutdown)
        samples = await asyncio.to_thread(scrape, f"http://127.0.0.1:{ports.metrics}/metrics")
    finally:
        await sidecar.stop()
    assert total(samples, "ragmon_spans_rejected_total", reason="too_large") == 2
    assert total(samples, "ragmon_spans_rejected_total") == 2
    assert total(samples, "ragmon_spans_received_total", transport="grpc") == 0
    [record] = refusal_records()
    assert (record.levelno, record.reason, record.status, record.transport, record.peer) == (
        logging.WARNING, "too_large", "RESOURCE_EXHAUSTED", "grpc", "127.0.0.1")
    assert record.user_agent.startswith("OTel-OTLP-Exporter-Python/")
    assert record.detail.startswith(f"message of {size} bytes ")


async def test_refused_requests_are_logged_once_per_reason_and_peer(serve, sink, sdk_spans, refusal_records):
    target = await serve(token="s3cret")
    options = (("grpc.primary_user_agent", "billing-collector/0.99"),)
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                                     request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as corrupt:  # the right token, bytes that are not protobuf
            await export(b"\x0a\x64\x01", metadata=(("authorization", "Bearer s3cret"),))
        for _ in range(3):  # a sender with the wrong token: one line, not three
            with pytest.raises(grpc.aio.AioRpcError) as denied:
                await export(encode_spans(sdk_spans).SerializeToString(),
                             metadata=(("authorization", "Bearer s3cre"),))
    assert sink.rejects == [(1, "decode_error")] + [(1, "unauthorized")] * 3

    decode, token = refusal_records()
    assert {r.levelno for r in (decode, token)} == {logging.WARNING}
    for record, reason, code, error in ((decode, "decode_error", "INVALID_ARGUMENT", corrupt.value),
                                        (token, "unauthorized", "UNAUTHENTICATED", denied.value)):
        assert (record.reason, record.status, record.transport) == (reason, code, "grpc")
        assert (record.peer, record.suppressed) == ("127.0.0.1", 0)  # without the client's port
        assert record.user_agent.startswith("billing-collector/0.99 grpc-python")
        assert record.detail == error.details()  # what the client was told
    assert decode.detail.startswith("not a valid protobuf ExportTraceServiceRequest")
    assert "s3cre" not in json.dumps([vars(r) for r in (decode, token)], default=str)


async def test_unavailable_is_logged_at_info(serve, sink, sdk_spans, refusal_records):
    target = await serve()
    sink.refusals = -1
    with pytest.raises(grpc.aio.AioRpcError):
        await call(target, encode_spans(sdk_spans))
    [record] = refusal_records()
    assert (record.levelno, record.reason, record.status) == (logging.INFO, "backpressure", "UNAVAILABLE")
    assert record.detail == "ragmon is busy: its score queue or trace buffer is full; retry later"
    assert not hasattr(record, "lost")  # the Python exporter retries it


async def test_unavailable_to_opentelemetry_js_is_a_warning_that_its_spans_are_lost(serve, sink,
                                                                                    refusal_records):
    # OpenTelemetry JS's gRPC exporter (0.223.1) resolves every error as final: UNAVAILABLE drops its
    # batch, which its app logs nowhere unless it set a diag logger, while ragmon's INFO line said
    # "retry later". Its captured message, with its User-Agent (grpc-python adds its own after it).
    [request] = capture("langchain-grpc-gzip").requests
    target = await serve()
    sink.refusals = -1
    options = [("grpc.primary_user_agent", request.headers["user-agent"])]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await channel.unary_unary(EXPORT)(request.body)
    assert error.value.code() is grpc.StatusCode.UNAVAILABLE
    [record] = refusal_records()
    assert (record.levelno, record.reason, record.status) == (logging.WARNING, "backpressure", "UNAVAILABLE")
    assert record.user_agent.startswith("OTel-OTLP-Exporter-JavaScript/0.223.1 grpc-node-js/1.14.7")
    assert record.lost.startswith("OpenTelemetry JS's gRPC exporter retries no failure")
    assert "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf" in record.lost


async def test_a_partly_invalid_request_is_logged_with_what_the_client_was_told(serve, sink, sdk_spans,
                                                                               refusal_records):
    # As over HTTP (test_http_receiver): the partial success is the client's only word of it otherwise.
    target = await serve()
    request = encode_spans(sdk_spans)
    request.resource_spans[0].scope_spans[0].spans[1].span_id = b"\x01" * 7
    responses = [await call(target, request) for _ in range(2)]
    assert sink.rejects == [(1, "invalid")] * 2 and len(sink.spans) == 4
    [record] = refusal_records()
    assert record.getMessage() == "OTLP request refused in part"
    assert (record.levelno, record.reason, record.status, record.transport) == (
        logging.WARNING, "invalid", "OK", "grpc")
    assert (record.peer, record.suppressed) == ("127.0.0.1", 0)
    assert record.detail == responses[0].partial_success.error_message


async def test_an_app_sharing_its_endpoint_is_told_ragmon_takes_traces_only(serve, sink, refusal_records,
                                                                            emit_a_metric_and_a_log):
    # OTEL_EXPORTER_OTLP_PROTOCOL=grpc with one shared endpoint: metrics and logs reach ragmon's port too.
    target = await serve()
    await asyncio.to_thread(emit_a_metric_and_a_log, OTLPMetricExporter(endpoint=target, insecure=True),
                            OTLPLogExporter(endpoint=target, insecure=True))
    # UNIMPLEMENTED is final for the SDK: one call each.
    assert sink.misdirections == [("grpc", "metrics"), ("grpc", "logs")]
    assert sink.offers == [] and sink.rejects == []
    metrics, logs = refusal_records()
    assert (metrics.levelno, metrics.signal, metrics.status, metrics.peer) == (
        logging.INFO, "metrics", "UNIMPLEMENTED", "127.0.0.1")
    assert metrics.detail == ("ragmon receives traces only (at /opentelemetry.proto.collector.trace.v1."
                              "TraceService/Export), not metrics: point OTEL_EXPORTER_OTLP_METRICS_ENDPOINT "
                              "elsewhere, or set OTEL_METRICS_EXPORTER=none (Traceloop's SDK, which reads "
                              "neither: TRACELOOP_METRICS_ENABLED=false)")
    assert logs.signal == "logs"


async def test_a_method_that_is_no_otlp_export_is_unimplemented_saying_where_traces_go(serve, sink, sdk_spans,
                                                                                       refusal_records):
    target = await serve()
    async with grpc.aio.insecure_channel(target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await channel.unary_unary("/jaeger.api_v2.CollectorService/PostSpans")(b"")
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert error.value.details() == (
        "nothing is received at /jaeger.api_v2.CollectorService/PostSpans: ragmon receives OTLP traces at "
        "/opentelemetry.proto.collector.trace.v1.TraceService/Export")
    [record] = refusal_records()
    assert (record.levelno, record.signal, record.transport) == (logging.WARNING, "other", "grpc")
    # The catch-all comes after the trace service: traces still arrive.
    assert await call(target, encode_spans(sdk_spans)) == ExportTraceServiceResponse()
    assert sink.misdirections == [("grpc", "other")] and len(sink.spans) == 3


@pytest.mark.parametrize("first_field", [
    b"\x78\x01",  # field 15, a varint of 1: the header zlib writes at level 1
    b"\x18\x19",  # field 3, a varint of 25: 0x1819 = 6169 = 31 x 199
    b"\x08\x1d",  # field 1 as a varint (the wrong wire type, skipped as unknown): 0x081d = 2077 = 31 x 67
])
async def test_an_uncompressed_message_that_starts_like_a_zlib_header_is_read_as_sent(serve, sink, sdk_spans,
                                                                                      first_field):
    # A field the request does not have, written first and skipped by any protobuf reader, whose two bytes
    # pass zlib's header check. Sent uncompressed, it had been inflated and refused: INVALID_ARGUMENT
    # "message is not valid deflate data", the spans lost.
    request = encode_spans(sdk_spans).SerializeToString()
    async with grpc.aio.insecure_channel(await serve()) as channel:
        reply = await channel.unary_unary(EXPORT)(first_field + request)
    assert ExportTraceServiceResponse.FromString(reply) == ExportTraceServiceResponse()
    assert sorted(span.name for span in sink.spans) == ["POST /ask", "llm", "retrieve"]
    assert tuple(sink.spans) == decode_protobuf(request).spans and sink.rejects == []


@pytest.mark.parametrize("cut", ["checksum", "tail"])
async def test_a_deflate_message_cut_or_corrupted_is_told_as_deflate(serve, sink, sdk_spans, cut):
    # A real zlib stream with its checksum broken, or cut short: it sniffs as deflate, does not inflate,
    # and is no protobuf read as sent either. It had been told "not a valid protobuf ExportTraceServiceRequest
    # (... Wire format was corrupt)", pointing the sender at the wrong layer.
    packed = zlib.compress(encode_spans(sdk_spans).SerializeToString())
    message = packed[:-4] + bytes(b ^ 0xFF for b in packed[-4:]) if cut == "checksum" else packed[:40]
    async with grpc.aio.insecure_channel(await serve()) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await channel.unary_unary(EXPORT)(message)
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details().startswith("message is not valid deflate data: ")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]
