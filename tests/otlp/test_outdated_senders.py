"""An exporter built on OTLP 0.15 to 0.18 (2022) may put its spans in ResourceSpans' field 1000,
`instrumentation_library_spans`, which OTLP 0.19 removed: read as an unknown field, its batch was answered
success with not one span read or counted."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import aiohttp
import grpc
import pytest
from google.protobuf.internal.encoder import _VarintBytes
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ScopeSpans

from ragmon.otlp.decode import decode_protobuf

Serve = Callable[..., Awaitable[str]]
REFUSAL = ("resourceSpans[0].instrumentation_library_spans: replaced by scope_spans in OTLP 0.19 (2022): "
           "upgrade the exporter")
JSON_REFUSAL = ("resourceSpans[0].instrumentationLibrarySpans: replaced by scopeSpans in OTLP 0.19 (2022): "
                "upgrade the exporter")


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field, as an exporter's generated code writes it."""
    return _VarintBytes(number << 3 | 2) + _VarintBytes(len(payload)) + payload


def outdated(request: ExportTraceServiceRequest, *, also_scope_spans: bool = False) -> bytes:
    """`request` with its spans under field 1000, InstrumentationLibrarySpans, which has ScopeSpans' wire
    form; `also_scope_spans` writes them under scope_spans (field 2) as well, as the proto of the time let
    a sender do."""
    resource_spans = request.resource_spans[0]
    scope_spans = resource_spans.scope_spans[0].SerializeToString()
    written = field(1, resource_spans.resource.SerializeToString()) + field(1000, scope_spans)
    return field(1, written + (field(2, scope_spans) if also_scope_spans else b""))


async def test_spans_under_the_field_otlp_removed_are_a_400_over_http(http_receiver: Serve, sink, sdk_spans):
    url = await http_receiver()
    async with aiohttp.ClientSession() as session, session.post(
            url, data=outdated(encode_spans(sdk_spans)),
            headers={"Content-Type": "application/x-protobuf"}) as resp:
        status, body = resp.status, await resp.read()
    assert (status, Status.FromString(body).message) == (400, REFUSAL)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_123_byte_resource_spans_is_told_the_refusal_not_that_it_is_json(http_receiver: Serve, sink):
    # Its request starts 0a 7b, resource_spans' tag and length 123, as `\n{`: it was told to resend as JSON.
    # Sizes: trace_id 2+16, span_id 2+8, name 2+70, start and end 9 each: a span of 118 bytes, ScopeSpans
    # 2+118 = 120, ResourceSpans 3 (field 1000's 2-byte tag, 1-byte length) + 120 = 123.
    scope_spans = ScopeSpans()
    scope_spans.spans.add(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="n" * 70, start_time_unix_nano=1,
                          end_time_unix_nano=2)
    body = field(1, field(1000, scope_spans.SerializeToString()))
    assert body[:2] == b"\n{"
    url = await http_receiver()
    async with aiohttp.ClientSession() as session, session.post(
            url, data=body, headers={"Content-Type": "application/x-protobuf"}) as resp:
        status, reply = resp.status, await resp.read()
    assert (status, Status.FromString(reply).message) == (400, REFUSAL)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


@pytest.mark.parametrize("empty", [[], None])
async def test_json_spans_under_the_removed_key_beside_empty_scope_spans_are_a_400(
        http_receiver: Serve, sink, sdk_spans, otlp_json, empty):
    # A JSON writer that writes every field, empty or not, beside the spans it put under the old key:
    # answered 200 with not one span read, where protobuf (no empty field on its wire) was refused.
    doc = json.loads(otlp_json(encode_spans(sdk_spans)))
    resource_spans = doc["resourceSpans"][0]
    resource_spans["instrumentationLibrarySpans"] = resource_spans.pop("scopeSpans")
    resource_spans["scopeSpans"] = empty
    url = await http_receiver()
    async with aiohttp.ClientSession() as session, session.post(url, json=doc) as resp:
        status, reply = resp.status, await resp.json()
    assert (status, reply.get("message")) == (400, JSON_REFUSAL)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_spans_under_the_field_otlp_removed_are_invalid_argument_over_grpc(grpc_receiver: Serve, sink,
                                                                                sdk_spans):
    target = await grpc_receiver()
    async with grpc.aio.insecure_channel(target) as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await export(outdated(encode_spans(sdk_spans)))
    assert (error.value.code(), error.value.details()) == (grpc.StatusCode.INVALID_ARGUMENT, REFUSAL)
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


def test_the_removed_field_beside_scope_spans_is_ignored(sdk_spans):
    # OTLP 0.15-0.18: a receiver reads scope_spans when both are set; the three spans are read once.
    batch = decode_protobuf(outdated(encode_spans(sdk_spans), also_scope_spans=True))
    assert [span.name for span in batch.spans] == ["retrieve", "llm", "POST /ask"]
    assert batch.rejected == 0
