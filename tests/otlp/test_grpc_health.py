"""gRPC's own services at the OTLP/gRPC port: the standard health check (a Kubernetes grpc probe's, a mesh's,
a gRPC load balancer's) is served, and the rest (reflection, as `grpcurl list` calls) are no misdirected
export: neither counted nor logged as one, so they feed no RagmonRequestsMisdirected alert."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

CHECK = "/grpc.health.v1.Health/Check"
SERVING = b"\x08\x01"
"""grpc.health.v1.HealthCheckResponse{status: SERVING}: field 1 as a varint (tag 1 << 3 | 0), value 1."""


def health_request(service: str) -> bytes:
    """grpc.health.v1.HealthCheckRequest{service}: field 1, length-delimited (tag 1 << 3 | 2)."""
    name = service.encode()
    return bytes([0x0A, len(name)]) + name if name else b""


async def call(target: str, method: str, request: bytes) -> bytes:
    async with grpc.aio.insecure_channel(target) as channel:
        unary = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        response: bytes = await unary(request, timeout=10)
        return response


@pytest.mark.parametrize("service", ["", "opentelemetry.proto.collector.trace.v1.TraceService"])
async def test_the_health_check_answers_serving_without_the_token(grpc_receiver, sink, refusal_records,
                                                                   service):
    # A probe carries no token; the answer says nothing a sender could use.
    target = await grpc_receiver(token="s3cret")
    assert await call(target, CHECK, health_request(service)) == SERVING
    assert (sink.rejects, sink.misdirections, refusal_records()) == ([], [], [])


async def test_the_health_of_a_service_ragmon_does_not_serve_is_not_found(grpc_receiver, sink):
    target = await grpc_receiver()
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, CHECK, health_request("shop.Checkout"))
    assert error.value.code() is grpc.StatusCode.NOT_FOUND
    assert "shop.Checkout" in error.value.details()
    assert sink.misdirections == []


@pytest.mark.parametrize("method", ["/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                    "/grpc.health.v1.Health/Watch"])
async def test_grpcs_other_services_are_unimplemented_and_not_a_misdirected_export(grpc_receiver, sink,
                                                                                  refusal_records, method):
    # As grpcurl opens reflection: a stream whose first message is still to come, answered at once.
    target = await grpc_receiver()
    never = asyncio.Event()

    async def nothing_yet() -> AsyncIterator[bytes]:
        await never.wait()
        yield b""

    async with grpc.aio.insecure_channel(target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            _ = [message async for message in channel.stream_stream(method)(nothing_yet(), timeout=2)]
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert error.value.details() == (f"ragmon does not serve {method}; of gRPC's own services it serves "
                                     f"{CHECK} only")
    assert (sink.misdirections, refusal_records()) == ([], [])


async def test_the_sidecars_health_check_serves_until_it_drains() -> None:
    # From the drain on gRPC takes no new call (the server stops first): no SERVING, as /readyz turns 503.
    sidecar = Sidecar(ServeConfig(http_listen=None, grpc_listen=("127.0.0.1", 0), metrics_listen=None,
                                  drain_seconds=5.0))
    ports = await sidecar.start()
    target = f"127.0.0.1:{ports.grpc}"
    try:
        assert await call(target, CHECK, b"") == SERVING
    finally:
        await sidecar.stop()
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call(target, CHECK, b"")
    assert error.value.code() is grpc.StatusCode.UNAVAILABLE
