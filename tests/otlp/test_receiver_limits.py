"""What one request may cost the receivers beyond its size: gzip members, and time to send its body
(ragmon.otlp.limits). The budget shared by both receivers, and idle connections, are in
tests/test_service_limits.py, against a whole sidecar."""

from __future__ import annotations

import asyncio
import gzip
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from test_grpc_receiver import EXPORT
from test_http_receiver import PROTOBUF, post, status_of

from ragmon.otlp import grpc as otlp_grpc
from ragmon.otlp import http as otlp_http
from ragmon.otlp.grpc import RETRY_INFO_KEY
from ragmon.otlp.inflate import MAX_GZIP_MEMBERS

EMPTY_MEMBER = gzip.compress(b"", mtime=0)


def members(body: bytes, count: int) -> bytes:
    """`body` gzipped as `count` members, as `cat a.gz b.gz` makes them: the first holds it all."""
    return gzip.compress(body, mtime=0) + EMPTY_MEMBER * (count - 1)


async def test_a_body_of_as_many_gzip_members_as_allowed_is_taken(http_receiver, sink, sdk_spans):
    url = await http_receiver()
    request = encode_spans(sdk_spans).SerializeToString()
    body = members(request, MAX_GZIP_MEMBERS)
    status, _, _ = await post(url, body, {**PROTOBUF, "Content-Encoding": "gzip"})
    assert status == 200
    assert len(sink.spans) == len(sdk_spans) and sink.rejects == []


async def test_a_body_of_more_gzip_members_is_a_400_saying_so(http_receiver, sink, sdk_spans):
    url = await http_receiver()
    body = members(encode_spans(sdk_spans).SerializeToString(), MAX_GZIP_MEMBERS + 1)
    status, _, response = await post(url, body, {**PROTOBUF, "Content-Encoding": "gzip"})
    assert status == 400
    assert status_of(response).message == ("body is not valid gzip data: more than 4 gzip members in one "
                                           "body (an OTLP exporter sends one)")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_body_that_stops_arriving_is_cut_off_with_a_408(http_receiver, sink, refusal_records,
                                                                monkeypatch):
    monkeypatch.setattr(otlp_http, "BODY_SECONDS", 0.2)
    url = await http_receiver()
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                 b"Content-Length: 1000\r\n\r\n" + b"\n" * 10)   # 10 of the 1,000 bytes, then nothing
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    body = await reader.readexactly(length)
    writer.close()
    assert head.startswith(b"HTTP/1.1 408 ") and b"Connection: close" in head
    assert status_of(body).message == "the body took longer than 0.2 s to arrive"
    assert sink.rejects == []   # nothing of it was received: not a refusal of spans
    [record] = refusal_records()
    assert (record.getMessage(), record.status, record.detail) == (  # type: ignore[attr-defined]
        "OTLP request cut off", "408", "the body took longer than 0.2 s to arrive")


async def test_a_grpc_message_that_stops_arriving_is_cut_off(grpc_receiver, sink, sdk_spans, refusal_records,
                                                           monkeypatch):
    monkeypatch.setattr(otlp_grpc, "BODY_SECONDS", 0.2)
    target = await grpc_receiver()
    request = encode_spans(sdk_spans)

    def call_that_stalls() -> grpc.RpcError:
        # A client that opens the call and sends its message only after 5 s: the deadline is the server's.
        def late() -> Iterator[bytes]:
            time.sleep(5)
            yield request.SerializeToString()

        with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError) as refused:
            channel.stream_unary(EXPORT)(late(), timeout=20)
        return refused.value

    error = await asyncio.to_thread(call_that_stalls)
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED  # type: ignore[attr-defined]
    assert error.details() == "the message took longer than 0.2 s to arrive"  # type: ignore[attr-defined]
    assert sink.offers == [] and sink.rejects == []
    [record] = refusal_records()
    assert (record.getMessage(), record.status) == (  # type: ignore[attr-defined]
        "OTLP request cut off", "DEADLINE_EXCEEDED")


async def refused_while_calls_hold(target: str, request: bytes, holders: int) -> grpc.aio.AioRpcError:
    """The error of a call made while `holders` calls are open with their messages not yet sent; then the
    holders send theirs, and the same call is made again, to go through."""
    release = threading.Event()
    opened = threading.Semaphore(0)

    def call_that_waits() -> None:
        def late() -> Iterator[bytes]:
            opened.release()
            release.wait(10)
            yield request

        with grpc.insecure_channel(target) as channel:
            channel.stream_unary(EXPORT)(late(), timeout=20)

    held = [asyncio.ensure_future(asyncio.to_thread(call_that_waits)) for _ in range(holders)]
    for _ in held:
        await asyncio.to_thread(opened.acquire, True, 10)
    await asyncio.sleep(0.3)  # the calls' headers reach the server
    async with grpc.aio.insecure_channel(target) as channel:
        export = channel.unary_unary(EXPORT)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await export(request, timeout=10)
        release.set()
        await asyncio.gather(*held)
        await export(request, timeout=10)
    return refused.value


async def test_a_grpc_call_finding_no_read_slot_is_told_to_retry(grpc_receiver, sink, sdk_spans, monkeypatch):
    # gRPC holds a message whole before the handler sees it, so reads are taken in turn: with one slot,
    # held by a call whose message has not come, the next call waits SLOT_SECONDS, then is refused as
    # back-pressure with RetryInfo. Once the slot is free, the same call goes through.
    monkeypatch.setattr(otlp_grpc, "READ_SLOTS", 1)
    monkeypatch.setattr(otlp_grpc, "SLOT_SECONDS", 0.3)
    target = await grpc_receiver()
    refused = await refused_while_calls_hold(target, encode_spans(sdk_spans).SerializeToString(), 1)
    assert refused.code() is grpc.StatusCode.UNAVAILABLE
    assert refused.details() == ("ragmon is busy: it is receiving as many gRPC messages as it takes at once "
                                 "(1); retry later")
    assert RETRY_INFO_KEY in dict(refused.trailing_metadata())
    assert sink.rejects == [(1, "backpressure")]
    assert len(sink.spans) == 2 * len(sdk_spans)


async def test_a_call_whose_message_stalls_gives_its_read_slot_to_a_waiting_call(grpc_receiver, sink,
                                                                                 sdk_spans, monkeypatch):
    # One slot, held by a call whose message has not come: a call that then comes waits at most two
    # HOLD_SECONDS (0.3 s), not SLOT_SECONDS (5 s here), and goes through; the stalled one is refused as
    # back-pressure with RetryInfo, so its exporter retries it. Counted: 1 request refused.
    monkeypatch.setattr(otlp_grpc, "READ_SLOTS", 1)
    monkeypatch.setattr(otlp_grpc, "HOLD_SECONDS", 0.3)
    target = await grpc_receiver()
    request = encode_spans(sdk_spans).SerializeToString()
    opened, release = threading.Semaphore(0), threading.Event()

    def call_that_stalls() -> grpc.RpcError:
        def late() -> Iterator[bytes]:
            opened.release()
            release.wait(10)
            yield request

        with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError) as refused:
            channel.stream_unary(EXPORT)(late(), timeout=20)
        return refused.value

    stalled = asyncio.ensure_future(asyncio.to_thread(call_that_stalls))
    await asyncio.to_thread(opened.acquire, True, 10)
    await asyncio.sleep(0.3)  # its headers reach the server, and it takes the slot
    started = time.monotonic()
    async with grpc.aio.insecure_channel(target) as channel:
        await channel.unary_unary(EXPORT)(request, timeout=10)
    waited = time.monotonic() - started
    release.set()
    error = await stalled
    assert waited < 5
    assert error.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert error.details() == ("ragmon is busy: this call's message had not arrived within 0.3 s while "  # type: ignore[attr-defined]
                               "other calls waited to be received; retry later")
    assert RETRY_INFO_KEY in dict(error.trailing_metadata())  # type: ignore[attr-defined]
    assert sink.rejects == [(1, "backpressure")]
    assert len(sink.spans) == len(sdk_spans)


async def test_a_slow_message_keeps_its_read_slot_while_no_call_waits(grpc_receiver, sink, sdk_spans,
                                                                      monkeypatch):
    # HOLD_SECONDS 0.1: a message that comes after 1 s, with no other call waiting, is received.
    monkeypatch.setattr(otlp_grpc, "HOLD_SECONDS", 0.1)
    target = await grpc_receiver()
    request = encode_spans(sdk_spans).SerializeToString()

    def slow_call() -> None:
        def late() -> Iterator[bytes]:
            time.sleep(1)
            yield request

        with grpc.insecure_channel(target) as channel:
            channel.stream_unary(EXPORT)(late(), timeout=20)

    await asyncio.to_thread(slow_call)
    assert sink.rejects == [] and len(sink.spans) == len(sdk_spans)


async def test_a_grpc_call_past_the_open_calls_bound_is_told_to_retry_and_counted(grpc_receiver, sink,
                                                                                sdk_spans, monkeypatch):
    # gRPC's own bound answered the 65th call RESOURCE_EXHAUSTED, uncounted and without RetryInfo: the
    # Collector and Go drop such a batch. Here 2 calls hold the bound (their messages have not come).
    monkeypatch.setattr(otlp_grpc, "MAX_CALLS", 2)
    target = await grpc_receiver()
    refused = await refused_while_calls_hold(target, encode_spans(sdk_spans).SerializeToString(), 2)
    assert refused.code() is grpc.StatusCode.UNAVAILABLE
    assert refused.details() == ("ragmon is busy: it has as many gRPC export calls open as it takes at once "
                                 "(2); retry later")
    assert RETRY_INFO_KEY in dict(refused.trailing_metadata())
    assert sink.rejects == [(1, "backpressure")]
    assert len(sink.spans) == 3 * len(sdk_spans)
