"""Edge cases of the requests ragmon does not receive (ragmon.otlp.misdirected, the aiohttp
middleware in ragmon.otlp.http, the gRPC catch-all in ragmon.otlp.grpc), on real servers on loopback.

Uses the recording sink and `refusal_records` of tests/otlp/conftest.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import grpc
import prometheus_client
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from ragmon.logs import MAX_FIELD
from ragmon.otlp.grpc import receive_cap
from ragmon.scrape import parse
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

MiB = 2**20
PROTOBUF = {"Content-Type": "application/x-protobuf"}
ARROW = "/opentelemetry.proto.experimental.arrow.v1.ArrowTracesService/ArrowTraces"


@pytest.fixture
def grpc_target(grpc_receiver: Callable[..., Awaitable[str]]) -> Callable[..., Awaitable[str]]:
    return grpc_receiver


@pytest.fixture
def http_base(http_receiver: Callable[..., Awaitable[str]]) -> Callable[..., Awaitable[str]]:
    """The receiver's base URL, for requests at other paths."""
    async def start(**settings: object) -> str:
        return (await http_receiver(**settings)).removesuffix("/v1/traces")
    return start


# --- gRPC: the catch-all must answer at once, without reading, whatever the call's shape --------------

async def test_a_stream_that_has_sent_nothing_yet_is_told_unimplemented_at_once(grpc_target, sink):
    # A bidirectional stream (an OTel-Arrow exporter's; server reflection's too, as grpcurl opens it,
    # tests/otlp/test_grpc_health.py) whose client waits before its first message. gRPC's own answer for
    # an unknown method, before the catch-all, was UNIMPLEMENTED at once. A unary catch-all waits for a
    # request message that does not come, so the call hangs, uncounted, until the client's deadline (2 s
    # here): DEADLINE_EXCEEDED.
    target = await grpc_target()
    never = asyncio.Event()

    async def nothing_yet() -> AsyncIterator[bytes]:
        await never.wait()
        yield b""

    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.stream_stream(ARROW)(nothing_yet(), timeout=2)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            _ = [message async for message in call]
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert sink.misdirections == [("grpc", "other")]


async def test_a_large_export_to_another_service_is_unimplemented_not_resource_exhausted(grpc_target, sink):
    # A metrics exporter sharing ragmon's gRPC endpoint, with a batch of 3 MiB: over gRPC's receive cap for
    # max_body 1 MiB (2 MiB, receive_cap) but no concern of ragmon's, as it is not for traces. gRPC alone
    # answered UNIMPLEMENTED (final for the SDK). A unary catch-all makes gRPC read the message first, so
    # the sender gets RESOURCE_EXHAUSTED "larger than max" (which the Python exporter retries, 4 times),
    # told nothing of the signal, and nothing is counted.
    target = await grpc_target(max_body=MiB)
    assert receive_cap(MiB) == 2 * MiB
    method = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
    options = [("grpc.max_send_message_length", 4 * MiB)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await channel.unary_unary(method)(b"\0" * (3 * MiB), timeout=10)
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert sink.misdirections == [("grpc", "metrics")]


@pytest.mark.parametrize("shape", ["unary_stream", "stream_unary", "stream_stream"])
async def test_streaming_calls_to_unknown_methods_are_counted_and_unimplemented(grpc_target, sink, shape):
    # Holds now and must after the fix: every call shape gets the advice, and the trace service still works.
    target = await grpc_target()

    async def none() -> AsyncIterator[bytes]:
        # No message: the server answers at once, and a message the client was still sending would fail
        # on the closed call with INTERNAL "Failed execute_batch" (the client's race, not the answer).
        for message in ():
            yield message

    async with grpc.aio.insecure_channel(target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            if shape == "unary_stream":
                _ = [m async for m in channel.unary_stream("/x.Y/Z")(b"q", timeout=5)]
            elif shape == "stream_unary":
                await channel.stream_unary("/x.Y/Z")(none(), timeout=5)
            else:
                _ = [m async for m in channel.stream_stream("/x.Y/Z")(none(), timeout=5)]
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert error.value.details().startswith("nothing is received at /x.Y/Z: ragmon receives OTLP traces at ")
    assert sink.misdirections == [("grpc", "other")]


# --- HTTP -----------------------------------------------------------------------------------------

async def test_a_large_body_at_the_wrong_path_leaves_the_connection_usable(http_base, sink, sdk_spans):
    # The SDK's exporter keeps one connection (a requests session). A body of 4 MiB, four times max_body,
    # at "/" is not read into memory (404 at once) but drained by aiohttp, so the next request on the same
    # connection (a pool of one) is served: 200 for the spans.
    base = await http_base(max_body=MiB)
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.post(f"{base}/", data=b"\0" * (4 * MiB), headers=PROTOBUF) as response:
            assert response.status == 404
            await response.read()
        body = encode_spans(sdk_spans).SerializeToString()
        async with session.post(f"{base}/v1/traces", data=body, headers=PROTOBUF) as response:
            assert response.status == 200
    assert sink.misdirections == [("http", "other")] and len(sink.spans) == 3


async def test_a_long_or_encoded_path_gives_one_short_log_line_and_a_bounded_answer(http_base, sink,
                                                                                   refusal_records):
    # A path of 8,000 characters (aiohttp's request line limit is 8,190 bytes) with a newline encoded
    # (%0A): the log's detail is one line of at most MAX_FIELD characters; the answer quotes the path once
    # and so is under 8,000 + 300 bytes.
    base = await http_base()
    path = "/a%0Ab" + "x" * 7_994
    json_type = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession() as session, \
            session.post(f"{base}{path}", data=b"{}", headers=json_type) as response:
        body = await response.read()
    assert response.status == 404 and len(body) < 8_300
    assert json.loads(body)["message"].startswith("nothing is received at /a\nb" + "x" * 10)
    [record] = refusal_records()
    assert (record.levelno, record.signal) == (logging.WARNING, "other")
    assert "\n" not in record.detail and len(record.detail) <= MAX_FIELD


async def test_the_counter_keeps_its_eight_series_whatever_the_paths_and_methods():
    # 2 transports x 4 signals = 8 series before and after 30 distinct wrong paths and 30 methods: no path
    # or method name reaches a label.
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                                  metrics_listen=None))
    ports = await sidecar.start()
    try:
        async with aiohttp.ClientSession() as session:
            for n in range(30):
                async with session.post(f"http://127.0.0.1:{ports.http}/p{n}/v1/x{n}", data=b"",
                                        headers=PROTOBUF) as response:
                    assert response.status == 404
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
            for n in range(30):
                with pytest.raises(grpc.aio.AioRpcError):
                    await channel.unary_unary(f"/s{n}.S/M{n}")(b"", timeout=5)
    finally:
        await sidecar.stop()
    samples = parse(prometheus_client.generate_latest(sidecar.exporter.registry).decode())
    series = {labels: value for (name, labels), value in samples.items()
              if name == "ragmon_misdirected_requests_total"}
    assert len(series) == 8
    assert series[frozenset({("transport", "http"), ("signal", "other")})] == 30
    assert series[frozenset({("transport", "grpc"), ("signal", "other")})] == 30


# --- with a bearer token: the advice, the count and its alert are for senders that hold it -------------

async def test_with_a_token_a_post_without_it_at_the_wrong_path_is_unauthorized_not_misdirected(
        http_base, sink, refusal_records):
    # --token-file set: the listener is likely reachable beyond loopback, where scanners POST to "/". Each
    # such POST counted signal="other", logged a warning and, one every 15 minutes, fires
    # RagmonRequestsMisdirected ("every span it sends is lost"), and told the scanner where traces go.
    # Refused as at /v1/traces instead: 401 with WWW-Authenticate, counted `unauthorized`. The same
    # POST with the token is the misdirected exporter it was meant for: 404 with the advice.
    base = await http_base(token="s3cret")
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{base}/", data=b"", headers=PROTOBUF) as response:
            without = (response.status, response.headers.get("WWW-Authenticate"))
        async with session.post(f"{base}/", data=b"",
                                headers={**PROTOBUF, "Authorization": "Bearer s3cret"}) as response:
            with_token = response.status
    assert without == (401, 'Bearer realm="ragmon"') and with_token == 404
    assert sink.rejects == [(1, "unauthorized")]
    assert sink.misdirections == [("http", "other")]
    assert [r.reason for r in refusal_records() if hasattr(r, "reason")] == ["unauthorized"]


async def test_with_a_token_a_call_without_it_to_another_method_is_unauthenticated(grpc_target, sink):
    target = await grpc_target(token="s3cret")
    async with grpc.aio.insecure_channel(target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as without:
            await channel.unary_unary("/x.Y/Z")(b"", timeout=5)
        with pytest.raises(grpc.aio.AioRpcError) as with_token:
            token = (("authorization", "Bearer s3cret"),)
            await channel.unary_unary("/x.Y/Z")(b"", timeout=5, metadata=token)
    assert without.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert with_token.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert sink.rejects == [(1, "unauthorized")] and sink.misdirections == [("grpc", "other")]
