"""OTLP/HTTP receiver on a real aiohttp server, fed by the SDK's own exporter and by hand-made requests."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading
import time
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import grpc
import pytest
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from opentelemetry.sdk.trace.export import SpanExportResult

import ragmon.otlp.grpc as otlp_grpc
import ragmon.otlp.http as otlp_http
from ragmon.otlp.decode import INLINE_DECODE_LIMIT, decode_protobuf

REMEDY = "(the SDK's OTEL_BSP_MAX_EXPORT_BATCH_SIZE, the Collector's send_batch_max_size) or raise --max-body"
PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}

Serve = Callable[..., Awaitable[str]]


@pytest.fixture
def serve(http_receiver: Serve) -> Serve:
    return http_receiver


async def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as session, session.post(url, data=body, headers=headers) as resp:
        return resp.status, dict(resp.headers), await resp.read()


def status_of(body: bytes) -> Status:
    return Status.FromString(body)


@pytest.mark.parametrize("compression", [Compression.NoCompression, Compression.Gzip, Compression.Deflate])
async def test_the_sdk_exporter_delivers_a_trace(serve, sink, emit_rag_trace, compression):
    url = await serve()
    await asyncio.to_thread(emit_rag_trace, OTLPSpanExporter(endpoint=url, compression=compression))

    # SimpleSpanProcessor sends each span as it ends: three requests, children first.
    assert [transport for _, transport in sink.offers] == ["http"] * 3
    spans = {span.name: span for span in sink.spans}
    assert list(spans) == ["retrieve", "llm", "POST /ask"]
    root = spans["POST /ask"]
    assert root.parent_span_id is None and root.kind == 2
    assert spans["retrieve"].parent_span_id == spans["llm"].parent_span_id == root.span_id
    assert {span.trace_id for span in sink.spans} == {root.trace_id}
    document = spans["retrieve"].attributes["retrieval.documents.0.document.content"]
    assert document == "Paris is the capital of France."
    assert root.resource["service.name"] == "rag-demo"
    assert sink.rejects == []


async def test_json_requests_get_json_responses(serve, sink, sdk_spans, otlp_json):
    url = await serve()
    request = encode_spans(sdk_spans)
    status, headers, body = await post(url, otlp_json(request),
                                       {"Content-Type": "application/json; charset=utf-8"})
    assert (status, headers["Content-Type"], json.loads(body)) == (200, "application/json", {})
    assert tuple(sink.spans) == decode_protobuf(request.SerializeToString()).spans


async def test_partial_success_in_protobuf_names_the_rejected_span(serve, sink, sdk_spans):
    url = await serve()
    request = encode_spans(sdk_spans)
    bad = request.resource_spans[0].scope_spans[0].spans[0]
    bad.span_id = b""
    status, headers, body = await post(url, request.SerializeToString(), PROTOBUF)

    assert (status, headers["Content-Type"]) == (200, "application/x-protobuf")
    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert partial.rejected_spans == 1
    assert partial.error_message == f"resourceSpans[0].scopeSpans[0].spans[0] {bad.name!r}: spanId is empty"
    assert len(sink.spans) == 2 and sink.rejects == [(1, "invalid")]


async def test_partial_success_in_json(serve, sink, sdk_spans, otlp_json):
    url = await serve()
    doc = json.loads(otlp_json(encode_spans(sdk_spans)))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[1]["traceId"] = "0" * 32
    spans[2]["traceId"] = "abc"
    status, _, body = await post(url, json.dumps(doc).encode(), JSON)

    partial = json.loads(body)["partialSuccess"]
    assert status == 200 and partial["rejectedSpans"] == "2"  # int64 is a string in OTLP/JSON
    assert partial["errorMessage"] == (
        f"resourceSpans[0].scopeSpans[0].spans[1] {spans[1]['name']!r}: traceId is all zeros; "
        f"resourceSpans[0].scopeSpans[0].spans[2] {spans[2]['name']!r}: traceId is not 32 hex digits")
    assert len(sink.spans) == 1 and sink.rejects == [(2, "invalid")]


async def test_a_request_whose_every_span_is_invalid_is_a_400(serve, sink, sdk_spans):
    url = await serve()
    request = encode_spans(sdk_spans)
    for span in request.resource_spans[0].scope_spans[0].spans:
        span.trace_id = b"\0" * 16
    status, _, body = await post(url, request.SerializeToString(), PROTOBUF)
    assert status == 400 and status_of(body).code == 3
    assert status_of(body).message.startswith("every span was rejected: ")
    assert sink.offers == [] and sink.rejects == [(3, "invalid")]


@pytest.mark.parametrize(("headers", "message"), [
    ({"Content-Type": "text/plain"}, "Content-Type 'text/plain' is not supported"),
    ({**PROTOBUF, "Content-Encoding": "br"}, "Content-Encoding 'br' is not supported"),
])
async def test_unsupported_media_is_a_415(serve, sink, headers, message):
    url = await serve()
    status, _, body = await post(url, b"x", headers)
    assert status == 415
    if headers["Content-Type"] == "text/plain":  # not protobuf: the Status comes as JSON, readable by curl
        assert json.loads(body)["message"].startswith(message)
    else:
        assert status_of(body).message.startswith(message)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


@pytest.mark.parametrize("headers", [PROTOBUF, JSON, {**JSON, "Content-Encoding": "identity"}])
async def test_a_gzip_body_sent_without_its_content_encoding_is_a_400_saying_so(serve, sink, sdk_spans,
                                                                                headers):
    url = await serve()
    body = gzip.compress(encode_spans(sdk_spans).SerializeToString())
    status, _, reply = await post(url, body, headers)
    assert status == 400
    message = status_of(reply).message if headers is PROTOBUF else json.loads(reply)["message"]
    assert message == ("body looks gzip-compressed (it starts with bytes 1f 8b): send it with "
                       "Content-Encoding: gzip")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_an_oversized_body_is_a_413(serve, sink):
    url = await serve(max_body=1000)
    status, _, body = await post(url, b"\0" * 1001, PROTOBUF)
    assert status == 413 and status_of(body).code == 8
    # The flag that sets the limit and the remedies, as the sender's exporter log is all its operator sees.
    assert status_of(body).message == ("body of 1001 bytes is over ragmon's 1000-byte limit (--max-body): "
                                       f"send smaller batches {REMEDY}")
    assert sink.rejects == [(1, "too_large")]


async def expecting_continue(url: str, head: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """A request head with `Expect: 100-continue` (as curl sends for a body over 1 MiB), and the first
    answer to it: 100 Continue, or the final status in its place."""
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n{head}\r\n".encode())
    await writer.drain()
    return reader, writer, await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)


@pytest.mark.parametrize(("head", "status", "reason"), [
    ("Content-Type: application/x-protobuf\r\nContent-Length: 1001\r\n", 413, "too_large"),
    ("Content-Type: text/plain\r\nContent-Length: 10\r\n", 415, "decode_error"),
], ids=["over max-body", "wrong type"])
async def test_a_head_that_refuses_the_request_is_answered_before_the_body_is_sent(serve, sink, head, status,
                                                                                  reason):
    # aiohttp answered 100 Continue whatever the head, so curl sent 20 MiB to be told 413.
    url = await serve(max_body=1000)
    _, writer, answer = await expecting_continue(url, head)
    writer.close()
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()) and b"Connection: close" in answer
    assert sink.rejects == [(1, reason)]


async def test_a_head_that_may_go_on_gets_100_continue_and_its_body_is_taken(serve, sink, sdk_spans):
    url = await serve(max_body=10_000)
    body = encode_spans(sdk_spans).SerializeToString()
    reader, writer, answer = await expecting_continue(
        url, f"Content-Type: application/x-protobuf\r\nContent-Length: {len(body)}\r\n")
    assert answer == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(body)
    final = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    writer.close()
    assert final.startswith(b"HTTP/1.1 200 ")
    assert len(sink.spans) == len(sdk_spans) and sink.rejects == []


async def test_a_receiver_whose_limit_no_flag_sets_names_none(serve, sink):
    # `ragmon replay --target`'s receiver has a fixed limit: "raise --max-body" would name a flag it lacks.
    url = await serve(max_body=1000, max_body_flag=None)
    status, _, body = await post(url, b"\0" * 1001, PROTOBUF)
    assert status == 413
    assert status_of(body).message == ("body of 1001 bytes is over ragmon's 1000-byte limit: send smaller "
                                       "batches (the SDK's OTEL_BSP_MAX_EXPORT_BATCH_SIZE, the Collector's "
                                       "send_batch_max_size)")


def empty_events(count: int) -> dict[str, bytes]:
    """One span of `count` empty events: 2 bytes each on the wire, a few hundred once decoded."""
    span = PbSpan(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="flood").SerializeToString()
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(
        spans=[PbSpan.FromString(span + b"\x5a\x00" * count)])])])
    events = ",".join(["{}"] * count)
    as_json = (f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"{"01" * 16}",'
               f'"spanId":"{"02" * 8}","events":[{events}]}}]}}]}}]}}')
    return {"application/x-protobuf": request.SerializeToString(), "application/json": as_json.encode()}


@pytest.mark.parametrize("content_type", ["application/x-protobuf", "application/json"])
async def test_a_body_holding_more_values_than_the_limit_is_a_413(serve, sink, content_type):
    url = await serve(max_values=1000)
    status, _, body = await post(url, empty_events(5000)[content_type], {"Content-Type": content_type})
    assert status == 413
    message = json.loads(body)["message"] if content_type == "application/json" else status_of(body).message
    assert message.startswith("the request holds more than 1000 values (")
    assert message.endswith("; --max-values): send smaller batches")
    assert sink.offers == [] and sink.rejects == [(1, "too_large")]


async def test_an_oversized_chunked_body_without_content_length_is_a_413(serve, sink):
    url = await serve(max_body=5000)

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b"\0" * 1000

    async with aiohttp.ClientSession() as session, session.post(url, data=chunks(), headers=PROTOBUF) as resp:
        assert resp.status == 413
        assert status_of(await resp.read()).message == ("body is over ragmon's 5000-byte limit "
                                                         f"(--max-body): send smaller batches {REMEDY}")


def gzip_bomb(inflated: int) -> bytes:
    """`inflated` zero bytes gzipped, built a MiB at a time so the test itself stays small."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1 << 20)
    return b"".join([*(compressor.compress(block) for _ in range(inflated >> 20)), compressor.flush()])


@pytest.mark.parametrize("auto_decompress", [False, True])
async def test_a_gzip_bomb_is_a_413_without_inflating_it(serve, sink, auto_decompress):
    url = await serve(max_body=256 * 1024, auto_decompress=auto_decompress)
    bomb = gzip_bomb(64 << 20)
    assert len(bomb) < 256 * 1024  # small on the wire: only the inflated size can catch it
    tracemalloc.start()
    try:
        status, _, body = await post(url, bomb, {**PROTOBUF, "Content-Encoding": "gzip"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == 413
    assert status_of(body).message == ("body, once decompressed, is over ragmon's 262144-byte limit "
                                       f"(--max-body): send smaller batches {REMEDY}")
    assert peak < 8 << 20  # inflating it all would take 64 MiB
    assert sink.rejects == [(1, "too_large")]


@pytest.mark.parametrize(("body", "message"), [
    (b"\x1f\x8bnot gzip at all", "body is not valid gzip data: "),
    (gzip.compress(b"\x0a\x00" * 500, mtime=0)[:-12],
     "body is not valid gzip data: the compressed stream ends early"),
], ids=["not-gzip", "truncated"])
async def test_a_corrupt_gzip_stream_is_a_400(serve, sink, body, message):
    url = await serve()
    status, _, response = await post(url, body, {**PROTOBUF, "Content-Encoding": "gzip"})
    assert status == 400 and status_of(response).message.startswith(message)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_batch_holding_a_string_that_is_not_utf8_is_taken_whole(serve, sink):
    # A Go service's raw bytes in one span's name: the parser refused all 3 spans, 400, which a
    # Collector does not retry. Read as the Collector reads them: each bad sequence is U+FFFD.
    message = ExportTraceServiceRequest()
    scope = message.resource_spans.add().scope_spans.add()
    for i, name in enumerate(["a", "NAME", "c"]):
        scope.spans.add(name=name, trace_id=bytes([1] * 16), span_id=bytes([i + 1] * 8))
    url = await serve()
    status, _, _ = await post(url, message.SerializeToString().replace(b"NAME", b"N\xffME"), PROTOBUF)
    assert status == 200 and sink.rejects == []
    ((spans, _),) = sink.offers
    assert [span.name for span in spans] == ["a", "N\ufffdME", "c"]


async def test_undecodable_bodies_are_a_400_in_the_request_encoding(serve, sink):
    url = await serve()
    status, headers, body = await post(url, b"\x0a\x64\x01", PROTOBUF)
    assert (status, headers["Content-Type"]) == (400, "application/x-protobuf")
    assert status_of(body).code == 3
    assert status_of(body).message.startswith("not a valid protobuf ExportTraceServiceRequest")

    status, headers, body = await post(url, b'{"resourceSpans": {}}', JSON)
    assert (status, headers["Content-Type"]) == (400, "application/json")
    assert json.loads(body) == {"code": 3, "message": "resourceSpans: not a list"}
    assert sink.rejects == [(1, "decode_error"), (1, "decode_error")]


async def test_empty_requests_succeed(serve, sink):
    url = await serve()
    status, _, body = await post(url, b"", PROTOBUF)
    assert status == 200 and ExportTraceServiceResponse.FromString(body) == ExportTraceServiceResponse()
    status, _, body = await post(url, b"{}", JSON)
    assert status == 200 and json.loads(body) == {}
    assert sink.offers == [] and sink.rejects == []


async def test_a_full_queue_is_a_503_with_retry_after(serve, sink, sdk_spans):
    url = await serve()
    sink.refusals = -1
    status, headers, body = await post(url, encode_spans(sdk_spans).SerializeToString(), PROTOBUF)
    assert (status, headers["Retry-After"], status_of(body).code) == (503, "1", 14)
    assert sink.rejects == [(3, "backpressure")]


async def test_the_sdk_exporter_retries_a_503(serve, sink, sdk_spans):
    url = await serve()
    sink.refusals = 1
    result = await asyncio.to_thread(OTLPSpanExporter(endpoint=url).export, sdk_spans)
    assert result is SpanExportResult.SUCCESS
    assert len(sink.offers) == 2 and sink.rejects == [(3, "backpressure")]


async def test_the_sdk_exporter_waits_as_retry_after_says(serve, sink, sdk_spans):
    # Within a 2.5 s timeout, waiting the 1 s Retry-After fits three attempts (t = 0, 1, 2). Its own backoff
    # (1 s then 2 s, each +-20 %) would fit only two: the third wait would pass the deadline.
    url = await serve()
    sink.refusals = -1
    result = await asyncio.to_thread(OTLPSpanExporter(endpoint=url, timeout=2.5).export, sdk_spans)
    assert result is SpanExportResult.FAILURE
    assert len(sink.offers) == 3


async def test_a_token_is_required_when_configured(serve, sink, sdk_spans):
    url = await serve(token="s3cret")
    denied = await asyncio.to_thread(OTLPSpanExporter(endpoint=url).export, sdk_spans)
    assert denied is SpanExportResult.FAILURE  # 401 is final: no retry
    assert sink.offers == [] and sink.rejects == [(1, "unauthorized")]

    status, headers, body = await post(url, b"", {**PROTOBUF, "Authorization": "Bearer s3cre"})
    assert (status, headers["WWW-Authenticate"], status_of(body).code) == (401, 'Bearer realm="ragmon"', 16)

    exporter = OTLPSpanExporter(endpoint=url, headers={"Authorization": "Bearer s3cret"})
    assert await asyncio.to_thread(exporter.export, sdk_spans) is SpanExportResult.SUCCESS
    status, _, _ = await post(url, b"", {**PROTOBUF, "Authorization": "bearer s3cret"})  # scheme: any case
    assert status == 200 and len(sink.spans) == 3


async def test_large_bodies_are_decoded_off_the_event_loop(serve, sink, monkeypatch):
    threads: list[int] = []
    decode_json = otlp_http.decode_json

    def recording_decode(body: bytes, max_values: int):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return decode_json(body, max_values)

    monkeypatch.setattr(otlp_http, "decode_json", recording_decode)
    url = await serve()

    def body(text_size: int) -> bytes:
        return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "big",
            "attributes": [{"key": "doc", "value": {"stringValue": "w" * text_size}}]}]}]}]}).encode()

    small, large = body(1000), body(INLINE_DECODE_LIMIT)
    assert len(large) > INLINE_DECODE_LIMIT
    for payload in (small, large):
        status, _, _ = await post(url, payload, JSON)
        assert status == 200
    loop_thread = threading.get_ident()
    assert threads[0] == loop_thread and threads[1] != loop_thread
    assert len(sink.spans) == 2


async def test_large_bodies_are_decoded_one_at_a_time(serve, grpc_receiver, sink, monkeypatch):
    # Each may take ~100 MiB decoding (--max-values): three large requests at once, two over HTTP and one
    # over gRPC, are decoded one after the other, and all taken.
    running, most = 0, 0
    decode_json, decode_protobuf = otlp_http.decode_json, otlp_grpc.decode_protobuf

    def recording(decode):  # type: ignore[no-untyped-def]
        def recorded(body: bytes, max_values: int):  # type: ignore[no-untyped-def]
            nonlocal running, most
            running += 1
            most = max(most, running)
            time.sleep(0.2)
            running -= 1
            return decode(body, max_values)
        return recorded

    monkeypatch.setattr(otlp_http, "decode_json", recording(decode_json))
    monkeypatch.setattr(otlp_grpc, "decode_protobuf", recording(decode_protobuf))
    url, target = await serve(), await grpc_receiver()
    document = {"key": "doc", "value": {"stringValue": "w" * INLINE_DECODE_LIMIT}}
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "big",
        "attributes": [document]}]}]}]}).encode()
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=bytes.fromhex("5b8efff798038103d269b633813fc60c"), span_id=bytes.fromhex("eee19b7ec3c1b173"),
        name="big", attributes=[KeyValue(key="doc", value=AnyValue(string_value="w" * INLINE_DECODE_LIMIT))])

    async def grpc_call() -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            await TraceServiceStub(channel).Export(request)

    answers = await asyncio.gather(post(url, body, JSON), post(url, body, JSON), grpc_call())
    assert [status for status, _, _ in answers[:2]] == [200, 200]
    assert most == 1 and len(sink.spans) == 3


async def test_refused_requests_are_logged_once_per_reason_and_peer(serve, sink, refusal_records):
    url = await serve(token="s3cret")
    agent = {"User-Agent": "billing-collector/0.99"}
    corrupt = b"\x1f\x8bnot gzip at all"
    good_token = {**PROTOBUF, **agent, "Authorization": "Bearer s3cret"}
    status, _, corrupt_reply = await post(url, corrupt, {**good_token, "Content-Encoding": "gzip"})
    assert status == 400
    for _ in range(3):  # a sender with the wrong token: one line, not three
        status, _, token_reply = await post(url, b"", {**PROTOBUF, **agent, "Authorization": "Bearer s3cre"})
        assert status == 401
    assert sink.rejects == [(1, "decode_error")] + [(1, "unauthorized")] * 3

    decode, token = refusal_records()
    assert {r.levelno for r in (decode, token)} == {logging.WARNING}
    for record, reason, code, reply in ((decode, "decode_error", "400", corrupt_reply),
                                        (token, "unauthorized", "401", token_reply)):
        assert (record.reason, record.status, record.transport) == (reason, code, "http")
        assert (record.peer, record.user_agent) == ("127.0.0.1", "billing-collector/0.99")
        assert record.suppressed == 0
        assert record.detail == status_of(reply).message  # what the client was told
    assert token.detail == "missing or wrong bearer token (Authorization: Bearer <token>)"
    logged = json.dumps([vars(r) for r in (decode, token)], default=str)
    assert "s3cre" not in logged and "not gzip" not in logged  # neither the token nor the body


async def test_the_sdk_exporter_is_named_when_refused(serve, sink, sdk_spans, refusal_records):
    url = await serve(max_body=100)  # the three spans encode to well over 100 bytes
    result = await asyncio.to_thread(OTLPSpanExporter(endpoint=url).export, sdk_spans)
    assert result is SpanExportResult.FAILURE
    [record] = refusal_records()
    assert (record.reason, record.status, record.peer) == ("too_large", "413", "127.0.0.1")
    assert record.user_agent.startswith("OTel-OTLP-Exporter-Python/")
    assert record.detail.startswith("body of ")
    assert record.detail.endswith(" bytes is over ragmon's 100-byte limit (--max-body): send smaller "
                                  f"batches {REMEDY}")


async def test_a_503_is_logged_at_info(serve, sink, sdk_spans, refusal_records):
    url = await serve()
    sink.refusals = -1
    status, _, _ = await post(url, encode_spans(sdk_spans).SerializeToString(), PROTOBUF)
    assert status == 503
    [record] = refusal_records()
    assert (record.levelno, record.reason, record.status) == (logging.INFO, "backpressure", "503")
    assert record.detail == "ragmon is busy: its score queue or trace buffer is full; retry later"


async def test_a_partly_invalid_request_is_logged_with_what_the_client_was_told(serve, sink, sdk_spans,
                                                                               refusal_records):
    # The 200 names the bad span in its partial success, which the SDK's exporters do not read: without a
    # line, the sender behind ragmon_spans_rejected_total{reason="invalid"} is named nowhere.
    url = await serve()
    request = encode_spans(sdk_spans)
    request.resource_spans[0].scope_spans[0].spans[1].trace_id = b"\0" * 16
    for _ in range(2):  # the same sender again: counted, left out of the log (one line a minute)
        status, _, body = await post(url, request.SerializeToString(),
                                     {**PROTOBUF, "User-Agent": "billing-collector/0.99"})
        assert status == 200
    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert sink.rejects == [(1, "invalid")] * 2 and len(sink.spans) == 4
    [record] = refusal_records()
    assert record.getMessage() == "OTLP request refused in part"
    assert (record.levelno, record.reason, record.status, record.transport) == (
        logging.WARNING, "invalid", "200", "http")
    assert (record.peer, record.user_agent, record.suppressed) == ("127.0.0.1", "billing-collector/0.99", 0)
    assert record.detail == partial.error_message  # what the client was told


async def test_an_app_sharing_its_endpoint_is_told_ragmon_takes_traces_only(serve, sink, refusal_records,
                                                                            emit_a_metric_and_a_log):
    # OTEL_EXPORTER_OTLP_ENDPOINT=http://ragmon:4318 sends metrics to /v1/metrics and logs to /v1/logs.
    base = (await serve()).removesuffix("/v1/traces")
    await asyncio.to_thread(emit_a_metric_and_a_log, OTLPMetricExporter(endpoint=f"{base}/v1/metrics"),
                            OTLPLogExporter(endpoint=f"{base}/v1/logs"))
    # 404 is final for the SDK: one request each, counted apart from span refusals.
    assert sink.misdirections == [("http", "metrics"), ("http", "logs")]
    assert sink.offers == [] and sink.rejects == []
    metrics, logs = refusal_records()
    assert metrics.getMessage() == logs.getMessage() == "OTLP request for something ragmon does not receive"
    assert metrics.levelno == logs.levelno == logging.INFO  # the app's exporter logs its own loss
    assert (metrics.signal, metrics.status, metrics.transport, metrics.peer) == ("metrics", "404", "http",
                                                                                 "127.0.0.1")
    assert metrics.user_agent.startswith("OTel-OTLP-Exporter-Python/")
    assert metrics.detail == (
        "ragmon receives traces only (at POST /v1/traces), not metrics: point "
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT elsewhere, or set OTEL_METRICS_EXPORTER=none (Traceloop's "
        "SDK, which reads neither: TRACELOOP_METRICS_ENABLED=false)")
    assert logs.detail == ("ragmon receives traces only (at POST /v1/traces), not logs: point "
                           "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT elsewhere, or set OTEL_LOGS_EXPORTER=none")


async def test_a_trace_exporter_at_the_wrong_path_is_told_the_right_one(serve, sink, sdk_spans,
                                                                        refusal_records):
    # OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://ragmon:4318 is used as given: the SDK posts to "/".
    base = (await serve()).removesuffix("/v1/traces")
    result = await asyncio.to_thread(OTLPSpanExporter(endpoint=base).export, sdk_spans)
    assert result is SpanExportResult.FAILURE
    status, _, body = await post(f"{base}/v1/trace", b"{}", JSON)
    told = ("ragmon receives OTLP traces at POST /v1/traces (an endpoint set in "
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, so it must end in /v1/traces)")
    assert (status, json.loads(body)) == (404, {"code": 12,
                                                "message": f"nothing is received at /v1/trace: {told}"})
    status, _, body = await post(f"{base}/otlp/v1/logs", b"", PROTOBUF)  # under a proxy's prefix: still logs
    assert (status, status_of(body).code) == (404, 12)
    assert sink.misdirections == [("http", "other"), ("http", "other"), ("http", "logs")]
    assert sink.offers == [] and sink.rejects == []
    wrong_path, logs = refusal_records()  # the second "other" from the same peer is left out of the log
    assert (wrong_path.levelno, wrong_path.signal, wrong_path.suppressed) == (logging.WARNING, "other", 0)
    assert wrong_path.detail == f"nothing is received at /: {told}"
    assert logs.signal == "logs"


async def test_a_trace_exporter_given_the_full_url_as_its_base_is_told_to_drop_the_path(
        serve, sink, sdk_spans, refusal_records):
    # OTEL_EXPORTER_OTLP_ENDPOINT=http://ragmon:4318/v1/traces: the SDK appends /v1/traces to it.
    url = await serve()
    result = await asyncio.to_thread(OTLPSpanExporter(endpoint=f"{url}/v1/traces").export, sdk_spans)
    assert result is SpanExportResult.FAILURE
    [record] = refusal_records()
    assert record.detail == (
        "nothing is received at /v1/traces/v1/traces: ragmon receives OTLP traces at POST /v1/traces (the "
        "SDK appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT: set it to the base URL, without /v1/traces, "
        "or give the full URL in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)")
    assert sink.misdirections == [("http", "other")]


async def test_requests_that_are_not_exports_get_aiohttp_answers_uncounted(serve, sink, refusal_records):
    url = await serve()
    async with aiohttp.ClientSession() as session:
        async with session.get(url.removesuffix("v1/traces")) as resp:
            assert resp.status == 404
        async with session.get(url) as resp:
            assert resp.status == 405
    assert sink.misdirections == [] and refusal_records() == []


@pytest.mark.parametrize("encoding", ["x-gzip", "X-GZIP"])
async def test_x_gzip_is_taken_as_gzip(serve, sink, sdk_spans, encoding):
    # RFC 9110 8.4.1.3: a recipient SHOULD consider "x-gzip" to be equivalent to "gzip".
    url = await serve()
    request = encode_spans(sdk_spans)
    status, _, body = await post(url, gzip.compress(request.SerializeToString()),
                                 {**PROTOBUF, "Content-Encoding": encoding})
    assert (status, body) == (200, b"")
    assert tuple(sink.spans) == decode_protobuf(request.SerializeToString()).spans
    assert sink.rejects == []
