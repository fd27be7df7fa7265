"""`ragmon serve` and requests aiohttp cannot parse as HTTP/1.1 at its OTLP/HTTP and metrics ports: the
OTel SDK's gRPC exporter pointed at either (`OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318` with the
gRPC exporter) and a raw `Content-Length: abc`. Each is counted, logged once a minute as one JSON object
that says what to change, never as aiohttp's traceback, and the ports go on serving.

Servers bind 127.0.0.1 on port 0 (in-process, or the CLI subprocess of tests/conftest.py) and are stopped
by the test that started them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import urllib.request
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

BAD_LENGTH = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"
BAD_REQUEST = "not a valid HTTP/1.1 request: Invalid character in Content-Length: b'Content-Length: abc'"
HTTP_EXPORTER = "use the HTTP exporter (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)"
MISDIRECTED = "ragmon_misdirected_requests_total"


def one_span() -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "app"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("test").start_as_current_span("GET /"):
        pass
    provider.shutdown()
    return list(memory.get_finished_spans())


def grpc_export(port: int) -> SpanExportResult:
    """One export by the SDK's gRPC exporter, which retries it on a new connection within its 2 s."""
    exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{port}", insecure=True, timeout=2)
    try:
        return exporter.export(one_span())
    finally:
        exporter.shutdown()


def http_export(port: int) -> SpanExportResult:
    exporter = HttpSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=10)
    try:
        return exporter.export(one_span())
    finally:
        exporter.shutdown()


def send_raw(port: int, data: bytes) -> bytes:
    """Write `data` on a new connection and read the answer to its end (aiohttp closes after a 400)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
        return answer


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        assert response.status == 200
        return parse(response.read().decode())


def test_grpc_exporters_at_the_http_and_metrics_ports_are_counted_and_told_where_to_go_in_json_once(
        serve_process: Any) -> None:
    with serve_process(["--grpc-listen", "127.0.0.1:0"]) as serve:
        http, grpc, metrics = (serve.ready[f"{name}_port"] for name in ("http", "grpc", "metrics"))
        for port in (http, metrics):
            for _ in range(2):  # a few exports, each retried: several connections, one line
                assert grpc_export(port) is SpanExportResult.FAILURE
            assert send_raw(port, BAD_LENGTH).startswith(b"HTTP/1.0 400 Bad Request\r\n")
        # After all that, both ports still serve.
        assert http_export(http) is SpanExportResult.SUCCESS
        samples = scrape(metrics)
        serve.process.send_signal(signal.SIGTERM)
        _, stderr = serve.process.communicate(timeout=30)
    assert serve.process.returncode == 0

    assert "Traceback" not in stderr
    lines = [json.loads(line) for line in stderr.splitlines()]  # every line one JSON object
    told = [line for line in lines if line.get("protocol") == "HTTP/2"]
    assert [line["detail"] for line in told] == [
        "a gRPC client connected to ragmon's OTLP/HTTP port, which speaks HTTP/1.1, not gRPC's HTTP/2: point "
        f"gRPC exporters at port {grpc} (OTLP/gRPC), or {HTTP_EXPORTER} at port {http}",
        "a gRPC client connected to ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives "
        f"no traces: point gRPC exporters at port {grpc} (OTLP/gRPC), or {HTTP_EXPORTER} at port {http}"]
    for line in told:
        assert line["message"] == "OTLP request for something ragmon does not receive"
        assert (line["level"], line["signal"], line["status"], line["transport"], line["peer"]) == (
            "warning", "other", "400", "http", "127.0.0.1")
    # Each connection counted, at no signal's path: what RagmonRequestsMisdirected alerts on.
    assert total(samples, MISDIRECTED, transport="http", signal="other") >= 4 > len(told)
    assert total(samples, MISDIRECTED) == total(samples, MISDIRECTED, transport="http", signal="other")

    refused = [line for line in lines if line.get("detail") == BAD_REQUEST]
    assert [(line["message"], line.get("reason"), line["peer"]) for line in refused] == [
        ("OTLP request refused", "decode_error", "127.0.0.1"), ("HTTP request refused", None, "127.0.0.1")]
    # On the OTLP port, like a body that does not decode; the span exported afterwards was taken.
    assert total(samples, "ragmon_spans_rejected_total", reason="decode_error") == 1
    assert total(samples, "ragmon_spans_received_total", transport="http") == 1


async def test_with_grpc_off_a_grpc_exporter_is_told_so_and_both_ports_go_on_serving(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ragmon.otlp")
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05))
    ports = await sidecar.start()
    try:
        assert ports.http is not None and ports.metrics is not None
        assert await asyncio.to_thread(grpc_export, ports.http) is SpanExportResult.FAILURE
        answer = await asyncio.to_thread(send_raw, ports.http, BAD_LENGTH)
        assert answer.startswith(b"HTTP/1.0 400 Bad Request\r\n")
        assert await asyncio.to_thread(http_export, ports.http) is SpanExportResult.SUCCESS
        samples = await asyncio.to_thread(scrape, ports.metrics)
    finally:
        await sidecar.stop()
    told: list[Any] = [r for r in caplog.records if getattr(r, "protocol", None) == "HTTP/2"]
    assert [r.detail for r in told] == [
        "a gRPC client connected to ragmon's OTLP/HTTP port, which speaks HTTP/1.1, not gRPC's HTTP/2, and "
        f"ragmon's OTLP/gRPC receiver is off (--grpc-listen off): {HTTP_EXPORTER} at port {ports.http}, or "
        "turn gRPC on with --grpc-listen"]
    assert [r for r in caplog.records if r.exc_info or r.name.startswith("aiohttp")] == []
    assert total(samples, MISDIRECTED, transport="http", signal="other") >= 1
    assert total(samples, "ragmon_spans_rejected_total", reason="decode_error") == 1
    assert total(samples, "ragmon_spans_received_total", transport="http") == 1


async def test_a_sender_that_hangs_up_mid_body_costs_no_error_line_and_no_count(
        caplog: pytest.LogCaptureFixture) -> None:
    # An exporter that gave up on its own timeout, or an app pod stopping: nothing was received, nothing
    # refused, and no answer can reach the sender. aiohttp logged a traceback at ERROR per connection.
    caplog.set_level(logging.INFO)
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05))
    ports = await sidecar.start()
    try:
        assert ports.http is not None and ports.metrics is not None
        head = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                b"Content-Length: 100\r\n\r\nab")
        with socket.create_connection(("127.0.0.1", ports.http), timeout=10) as sock:
            sock.sendall(head)
            await asyncio.sleep(0.2)  # the handler is reading the body when the sender goes
        await asyncio.sleep(0.3)
        assert await asyncio.to_thread(http_export, ports.http) is SpanExportResult.SUCCESS
        samples = await asyncio.to_thread(scrape, ports.metrics)
    finally:
        await sidecar.stop()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert total(samples, "ragmon_spans_rejected_total") == 0
    assert total(samples, "ragmon_spans_received_total", transport="http") == 1
