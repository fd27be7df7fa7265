"""Requests for what ragmon does not receive: which signal a path or method is for, and the sidecar's
counter of them, by transport and signal, from its first scrape."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import grpc
import pytest

from ragmon.otlp.misdirected import grpc_signal, http_signal
from ragmon.scrape import scrape, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

METRICS_EXPORT = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"


@pytest.mark.parametrize(("path", "signal"), [
    ("/v1/metrics", "metrics"),
    ("/v1/logs", "logs"),
    ("/v1/logs/", "logs"),
    ("/otlp/v1/metrics", "metrics"),  # a proxy's prefix
    ("/v1development/profiles", "profiles"),
    ("/", "other"),  # OTEL_EXPORTER_OTLP_TRACES_ENDPOINT without its path
    ("/v1/trace", "other"),
    ("/metrics", "other"),  # Prometheus pointed at the OTLP port: not OTLP metrics
    ("/v2/logs", "other"),
])
def test_an_http_path_is_read_for_its_signal(path: str, signal: str) -> None:
    assert http_signal(path) == signal


@pytest.mark.parametrize(("method", "signal"), [
    (METRICS_EXPORT, "metrics"),
    ("/opentelemetry.proto.collector.logs.v1.LogsService/Export", "logs"),
    ("/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export", "profiles"),
    ("/opentelemetry.proto.collector.trace.v2.TraceService/Export", "other"),
    ("/grpc.health.v1.Health/Check", "other"),
])
def test_a_grpc_method_is_read_for_its_signal(method: str, signal: str) -> None:
    assert grpc_signal(method) == signal


async def test_the_sidecar_counts_them_by_transport_and_signal() -> None:
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                                  metrics_listen=("127.0.0.1", 0)))
    ports = await sidecar.start()
    metrics_url = f"http://127.0.0.1:{ports.metrics}/metrics"
    try:
        before = await asyncio.to_thread(scrape, metrics_url)
        for path in ("/v1/logs", "/", "/"):
            request = urllib.request.Request(f"http://127.0.0.1:{ports.http}{path}", data=b"", method="POST",
                                             headers={"Content-Type": "application/x-protobuf"})
            with pytest.raises(urllib.error.HTTPError) as refused:
                await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
            assert refused.value.code == 404
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
            export_metrics = channel.unary_unary(METRICS_EXPORT)
            with pytest.raises(grpc.aio.AioRpcError):
                await export_metrics(b"")
        after = await asyncio.to_thread(scrape, metrics_url)
    finally:
        await sidecar.stop()
    name = "ragmon_misdirected_requests_total"
    # A zero series for each of 2 transports x 4 signals before any request, so rate() is defined.
    assert {labels for n, labels in before if n == name} == {
        frozenset({("transport", t), ("signal", s)})
        for t in ("http", "grpc") for s in ("metrics", "logs", "profiles", "other")}
    assert total(before, name) == 0
    assert total(after, name, transport="http", signal="logs") == 1
    assert total(after, name, transport="http", signal="other") == 2
    assert total(after, name, transport="grpc", signal="metrics") == 1
    assert total(after, name) == 4
    # Not spans: neither received nor refused.
    assert total(after, "ragmon_spans_received_total") == total(after, "ragmon_spans_rejected_total") == 0


async def test_traces_posted_to_the_metrics_port_are_told_the_otlp_ports_and_counted() -> None:
    # Port 0 everywhere: the answer names the ports the receivers took, not the 0 they were given.
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                                  metrics_listen=("127.0.0.1", 0)))
    ports = await sidecar.start()
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{ports.metrics}/v1/traces", method="POST",
                                         data=b'{"resourceSpans": []}',
                                         headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
        after = await asyncio.to_thread(scrape, f"http://127.0.0.1:{ports.metrics}/metrics")
    finally:
        await sidecar.stop()
    assert refused.value.code == 404
    assert json.loads(refused.value.read()) == {"code": 12, "message": (
        "this is ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no traces: send "
        f"them to port {ports.http} over OTLP/HTTP (POST /v1/traces) or port {ports.grpc} over OTLP/gRPC")}
    # Every span such an exporter sends is lost, as at a wrong path: the same series, and its alert.
    assert total(after, "ragmon_misdirected_requests_total", transport="http", signal="other") == 1
