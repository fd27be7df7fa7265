"""Counting an OTLP request's values on its bytes, before anything is decoded."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, EntityRef, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from ragmon.otlp.values import MalformedProtobuf, fields, json_exceeds, protobuf_values

SPAN_IDS = {"trace_id": b"\x01" * 16, "span_id": b"\x02" * 8}


def attribute(key: str, text: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=text))


def request_of(*spans: Span, resource: Resource | None = None) -> bytes:
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource=resource, scope_spans=[ScopeSpans(scope=InstrumentationScope(name="s"), spans=spans)],
    )]).SerializeToString()


def test_each_message_and_each_repeated_string_is_a_value() -> None:
    resource = Resource(attributes=[attribute("service.name", "rag")],
                        entity_refs=[EntityRef(type="service", id_keys=["service.name", "host.id"])])
    span = Span(**SPAN_IDS, name="llm", attributes=[attribute("a", "1"), attribute("b", "2")],
                events=[Span.Event(name="e", attributes=[attribute("c", "3")])],
                links=[Span.Link(**SPAN_IDS)], status=Status(code=Status.STATUS_CODE_ERROR))
    body = request_of(span, resource=resource)
    # request 1, resource spans 1, resource 1 + its attribute 2 (key-value, value), entity ref 1 + 2 keys,
    # scope spans 1, scope 1, span 1 + 2 attributes x 2, event 1 + attribute 2, link 1, status 1
    by_hand = 1 + 1 + 1 + 2 + 3 + 1 + 1 + 1 + 4 + 3 + 1 + 1
    assert by_hand == 20
    assert protobuf_values(body, 20) == 20
    assert protobuf_values(body, 19) > 19


def test_a_document_counts_once_however_long() -> None:
    body = request_of(Span(**SPAN_IDS, attributes=[attribute("doc", "w" * 1_000_000)]))
    # request, resource spans, scope spans, scope, span, key-value, value
    assert protobuf_values(body, 7) <= 7
    assert protobuf_values(body, 6) > 6


def test_a_flood_of_empty_events_is_refused_as_soon_as_the_count_passes_the_limit() -> None:
    span = Span(**SPAN_IDS).SerializeToString() + b"\x5a\x00" * 1_000_000  # events (11), each empty
    body = request_of(Span.FromString(span))
    assert protobuf_values(body, 1_000) == 1_001


def test_a_body_that_cannot_hold_more_than_the_limit_is_not_read() -> None:
    # 1 + n // 2 values at most: the bytes are never looked at, so even garbage passes here (upb refuses it)
    assert protobuf_values(b"\xff" * 100, 51) <= 51
    with pytest.raises(MalformedProtobuf):
        protobuf_values(b"\xff" * 100, 50)


@pytest.mark.parametrize(("body", "problem"), [
    (b"\x0a\x05\x12", "field 1 at byte 0 runs past its message"),
    (b"\x00\x00", "field number 0 at byte 0"),
    (b"\x0b\x14", "group 1 ends as group 2 at byte 2"),
    (b"\x0e", "wire type 6 at byte 1 does not exist"),
    (b"\x08" + b"\xff" * 10 + b"\x01", "a varint at byte 10 is longer than 10 bytes"),
    (b"\x09\x00\x00", "a field before byte 3 runs past its message"),
    (b"\x0a", "the body ends inside a field"),
])
def test_bytes_that_are_not_protobuf_name_the_byte(body: bytes, problem: str) -> None:
    with pytest.raises(MalformedProtobuf) as error:
        list(fields(body, 0, len(body)))
    assert str(error.value) == problem


def test_fields_of_every_wire_type_are_stepped_over_groups_whole() -> None:
    # varint 1, fixed64 2, group 3 holding a varint and a string, fixed32 4, string 5
    body = (b"\x08\x96\x01" + b"\x11" + b"\x00" * 8 + b"\x1b\x08\x01\x12\x01x\x1c" + b"\x25" + b"\x00" * 4
            + b"\x2a\x02hi")
    assert list(fields(body, 0, len(body))) == [
        (1, 0, -1, 3), (2, 3, -1, 12), (3, 12, -1, 19), (4, 19, -1, 24), (5, 24, 26, 28)]


@pytest.mark.parametrize(("body", "values"), [
    (b'{"a":[{},{},{}]}', 6),                      # 4 objects, 2 commas
    (b'{"a":"{{{,,,","b":1}', 2),                  # braces and commas in a string are text
    (b'{"a":"\\"{,","b":[1,2]}', 3),               # an escaped quote does not end the string
    (b'{"a":"unterminated {{{,,,', 1),             # nor does the end of the body start a new one
])
def test_json_values_are_objects_and_values_after_a_comma_outside_strings(body: bytes, values: int) -> None:
    assert not json_exceeds(body, values)
    assert json_exceeds(body, values - 1)
