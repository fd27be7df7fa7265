"""What senders may make a running sidecar hold (ragmon.otlp.limits): request bodies, over HTTP and gRPC
together, within one budget in bytes; connections that send nothing; and, past the open-file limit, one
log line in ragmon's format rather than asyncio's tracebacks."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from polling import wait_metrics

from ragmon.otlp import http as otlp_http
from ragmon.otlp.grpc import RETRY_INFO_KEY
from ragmon.scrape import total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

KiB = 1024
MAX_BODY = 64 * KiB
HELD = 60 * KiB
"""What each held request inflates to: three fill the budget (3 x 64 KiB) but for 12 KiB."""
BUSY = ("ragmon is busy: the request bodies it is receiving and decoding fill its 196608-byte budget; "
        "retry later")
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
HEAD = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
        b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")


@pytest.fixture
async def sidecar() -> AsyncIterator[tuple[Sidecar, Ports]]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                         metrics_listen=("127.0.0.1", 0), max_body=MAX_BODY, quiet=0.05, drain_seconds=2.0)
    service = Sidecar(config)
    ports = await service.start()
    yield service, ports
    await service.stop()


def unfinished_gzip_chunk(inflated: int) -> bytes:
    """One HTTP chunk of a gzip stream that inflates to `inflated` bytes and is never ended: what a
    sender holding the receiver's memory sends (16 KB for 16 MiB)."""
    stream = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = stream.compress(b"\0" * inflated) + stream.flush(zlib.Z_SYNC_FLUSH)
    return b"%x\r\n" % len(data) + data + b"\r\n"


async def until(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition was not reached in time"
        await asyncio.sleep(0.02)


def grpc_export(target: str, message: bytes, compression: grpc.Compression | None = None) -> grpc.RpcError:
    with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError) as refused:
        channel.unary_unary(EXPORT)(message, timeout=10, compression=compression)
    return refused.value


def sdk_export(port: int) -> SpanExportResult:
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": "support-api"}))
    results: list[SpanExportResult] = []

    class Export(SimpleSpanProcessor):
        def on_end(self, span: Any) -> None:
            results.append(exporter.export([span]))

    provider.add_span_processor(Export(exporter))
    with provider.get_tracer("t").start_as_current_span("ask"):
        pass
    provider.shutdown()
    return results[0]


async def test_bodies_held_at_once_are_bounded_in_bytes_over_both_transports(sidecar) -> None:
    service, ports = sidecar
    assert service.bodies.limit == 3 * MAX_BODY
    held = []
    for _ in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", ports.http)
        writer.write(HEAD + unfinished_gzip_chunk(HELD))
        held.append((reader, writer))
    await until(lambda: service.bodies.held == 3 * HELD)

    # A fourth body finds 12 KiB of room, not the 60 KiB it inflates to: refused as back-pressure.
    reader, writer = await asyncio.open_connection("127.0.0.1", ports.http)
    writer.write(HEAD + unfinished_gzip_chunk(HELD))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    writer.close()
    assert head.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 1\r\n" in head
    # gRPC shares the budget: a message of 20 KiB, within --max-body, does not fit the 12 KiB left. (It is
    # refused before it is decoded, so its bytes need not be protobuf.)
    assert ports.grpc is not None
    error = await asyncio.to_thread(grpc_export, f"127.0.0.1:{ports.grpc}", b"\0" * (20 * KiB))
    assert (error.code(), error.details()) == (grpc.StatusCode.UNAVAILABLE, BUSY)  # type: ignore[attr-defined]
    retry = dict(error.trailing_metadata())[RETRY_INFO_KEY]  # type: ignore[attr-defined]
    assert RetryInfo.FromString(retry).retry_delay.seconds == 1
    # Nor does it gzipped, a few dozen bytes on the wire: gRPC leaves inflating to ragmon, which counts
    # what a message becomes, not what it was on the wire.
    error = await asyncio.to_thread(grpc_export, f"127.0.0.1:{ports.grpc}", b"\0" * (20 * KiB),
                                    grpc.Compression.Gzip)
    assert (error.code(), error.details()) == (grpc.StatusCode.UNAVAILABLE, BUSY)  # type: ignore[attr-defined]
    assert service.bodies.held == 3 * HELD

    assert ports.metrics is not None
    await wait_metrics(ports.metrics,
                       lambda s: total(s, "ragmon_spans_rejected_total", reason="backpressure") == 3)
    for _, held_writer in held:
        held_writer.close()
    await until(lambda: service.bodies.held == 0)
    assert await asyncio.to_thread(sdk_export, ports.http) == SpanExportResult.SUCCESS


@pytest.mark.parametrize("port", ["http", "metrics"])
async def test_a_connection_that_sends_no_whole_request_is_closed(monkeypatch, port) -> None:
    monkeypatch.setattr(otlp_http, "IDLE_SECONDS", 0.3)
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0))
    service = Sidecar(config)
    ports = await service.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", getattr(ports, port))
        writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nX-Slow: ")   # headers that never end
        assert await asyncio.wait_for(reader.read(), 10) == b""   # closed by the sidecar
        writer.close()
    finally:
        await service.stop()


def test_running_out_of_open_files_is_one_line_in_ragmon_s_format() -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", "127.0.0.1:0", "--grpc-listen", "off",
         "--metrics-listen", "127.0.0.1:0", "--log-format", "json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environ, start_new_session=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
    connections = []
    try:
        assert process.stderr is not None
        ready: dict[str, Any] = {}
        while ready.get("message") != "ragmon serve ready":
            ready = json.loads(process.stderr.readline())
        for _ in range(80):   # past 64 open files: the kernel queues them, and asyncio cannot accept them
            connections.append(socket.create_connection(("127.0.0.1", ready["http_port"])))
        lines: list[str] = []
        stderr = process.stderr
        reading = threading.Thread(target=lambda: lines.extend(iter(stderr.readline, "")), daemon=True)
        reading.start()
        deadline = time.monotonic() + 20
        while not any("out of system resource" in line for line in lines):
            assert time.monotonic() < deadline, f"no line about the open-file limit: {lines[-5:]}"
            time.sleep(0.05)
        time.sleep(2)   # asyncio retries every second and used to log each failure: room for repeats
    finally:
        for connection in connections:
            connection.close()
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    reading.join(10)
    records = [json.loads(line) for line in lines if line.strip()]   # every line is ragmon's JSON
    [accept] = [r for r in records if r["message"].startswith("socket.accept() out of system resource")]
    assert (accept["logger"], accept["level"], accept["error"]) == (
        "asyncio", "error", "[Errno 24] Too many open files")
    assert "exception" not in accept and "laddr=('127.0.0.1'" in accept["detail"]
