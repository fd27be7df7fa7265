"""Counting an OTLP request's values on its bytes, before anything is decoded."""

from __future__ import annotations

import pytest
from google.protobuf.internal.encoder import _VarintBytes
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    EntityRef,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from ragmon.otlp.values import MalformedProtobuf, json_values, protobuf_exceeds

IDS = {"trace_id": b"\x01" * 16, "span_id": b"\x02" * 8}


def attribute(key: str, value: AnyValue) -> KeyValue:
    return KeyValue(key=key, value=value)


def text(value: str) -> AnyValue:
    return AnyValue(string_value=value)


def request_of(*spans: Span, resource: Resource | None = None) -> bytes:
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource=resource, scope_spans=[ScopeSpans(scope=InstrumentationScope(name="s"), spans=spans)],
    )]).SerializeToString()


def holds(body: bytes) -> float:
    """The count, read off the smallest limit the body is within: values, in quarters."""
    assert not protobuf_exceeds(body, 10_000)
    low, high = 0, 10_000
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if protobuf_exceeds(body, middle) else (low, middle)
    return low


def test_messages_ids_and_repeated_strings_are_values_other_fields_quarters() -> None:
    resource = Resource(attributes=[attribute("service.name", text("rag"))],
                        entity_refs=[EntityRef(id_keys=["service.name", "host.id"])])
    items = AnyValue(array_value=ArrayValue(values=[text("x"), text("y")]))
    span = Span(**IDS, name="llm",
                attributes=[attribute("a", text("1")), attribute("n", AnyValue(int_value=7)),
                            attribute("b", AnyValue(bytes_value=b"xy")), attribute("list", items)],
                events=[Span.Event(name="e", attributes=[attribute("c", AnyValue(bool_value=True))])],
                links=[Span.Link(**IDS)], status=Status(code=Status.STATUS_CODE_ERROR))
    # In quarters: a value 4 (a message, a bytes field, an element of a repeated string), any other field 1.
    #   request 4, resource spans 4, resource 4, its attribute (key-value 4, key 1, value 4, text 1) 10,
    #   entity ref 4 + its 2 keys 8, scope spans 4, scope 4 + name 1, span 4
    #   span: trace id 4, span id 4, name 1; attributes "a" 10, "n" 10, "b" 13 (its bytes are a value),
    #   "list" (key-value 4, key 1, value 4, array 4, 2 items of 4 + 1 each) 23; event 4 (name 1,
    #   attribute 10); link 4 (2 ids 8);
    #   status 4 (its code is not read: a status holds no value)
    quarters = (4 + 4 + 4 + 10 + 4 + 8 + 4 + 4 + 1 + 4
                + 9 + 10 + 10 + 13 + 23 + 4 + 1 + 10 + 4 + 8 + 4)
    assert quarters == 143
    body = request_of(span, resource=resource)
    assert holds(body) == 36   # 143 / 4 = 35.75: within 36 values, over 35


def test_a_document_counts_once_however_long() -> None:
    body = request_of(Span(**IDS, attributes=[attribute("doc", text("w" * 1_000_000))]))
    # request 4, resource spans 4, scope spans 4, scope 4 + name 1, span 4 + ids 8, key-value 4, key 1,
    # value 4, text 1: 39 quarters, within 10 values
    assert holds(body) == 10


def test_each_byte_of_a_tag_written_longer_than_it_needs_is_a_quarter() -> None:
    # 1,000 fields unknown to OTLP, each a varint of 1 behind a tag of 5 bytes (field 2, 1 byte written
    # as 5, which upb still reads): 1 + 4 quarters each, and the request's 4: 5,004 quarters, 1,251 values.
    body = b"\x90\x80\x80\x80\x00\x01" * 1_000
    assert not protobuf_exceeds(body, 1_251)
    assert protobuf_exceeds(body, 1_250)


def test_a_body_too_short_to_hold_more_is_not_read() -> None:
    # 2 quarters a byte at most (every field takes 2 bytes or more), plus the request's 4: 100 bytes of
    # anything are within 51 values, unread (upb refuses them), and read once the limit is lower.
    assert not protobuf_exceeds(b"\xff" * 100, 51)
    with pytest.raises(MalformedProtobuf):
        protobuf_exceeds(b"\xff" * 100, 50)


FLOODS = {
    "empty events": Span(**IDS).SerializeToString() + b"\x5a\x00" * 500_000,          # events (11)
    "empty links": Span(**IDS).SerializeToString() + b"\x6a\x00" * 500_000,           # links (13)
    "unknown varints": Span(**IDS).SerializeToString() + b"\xf8\x01\x00" * 500_000,   # field 31
    "a group of varints": (Span(**IDS).SerializeToString() + b"\xfb\x01"              # field 31, group
                           + b"\x08\x00" * 500_000 + b"\xfc\x01"),
    "nested groups": Span(**IDS).SerializeToString() + b"\xfb\x01" * 200_000 + b"\xfc\x01" * 200_000,
}


@pytest.mark.parametrize("span", FLOODS.values(), ids=FLOODS.keys())
def test_a_flood_is_over_the_limit_whatever_it_is_made_of(span: bytes) -> None:
    # By hand: the SDK's classes refuse groups nested past 100 (upb's limit), which the count must not
    # recurse into either. Request, resource spans (1), scope spans (2), spans (2).
    for number in (2, 2, 1):
        span = bytes([number << 3 | 2]) + _VarintBytes(len(span)) + span
    assert protobuf_exceeds(span, 10_000)


@pytest.mark.parametrize(("body", "problem"), [
    (b"\x0a\x05\x12", "field 1 at byte 0 runs past its message"),
    (b"\x00\x00", "field number 0 at byte 0"),
    (b"\x0b\x08\x00\x14", "a group ends as group 2 at byte 3"),
    (b"\x0e", "wire type 6 at byte 1 does not exist"),
    (b"\x08" + b"\xff" * 10 + b"\x01", "a varint at byte 1 is longer than 10 bytes"),
    (b"\x08\x01" + b"\xff" * 10 + b"\x01", "a tag or length at byte 2 is longer than 5 bytes"),
    (b"\x0a\xff\xff\xff\xff\xff\x01", "a tag or length at byte 1 is longer than 5 bytes"),
    (b"\x09\x00\x00", "a field before byte 3 runs past its message"),
    (b"\x0a", "the body ends inside a field"),
])
def test_bytes_that_are_not_protobuf_name_the_byte(body: bytes, problem: str) -> None:
    with pytest.raises(MalformedProtobuf) as error:
        protobuf_exceeds(body, max(1, len(body) // 2))   # a limit the body could pass: it is read
    assert str(error.value) == problem


@pytest.mark.parametrize(("body", "values"), [
    (b'{"a":[{},{},{}]}', 7),                      # 4 objects, 1 array, 2 commas
    (b'{"a":"{{{,,,[[","b":1}', 2),                # braces, brackets and commas in a string are text
    (b'{"a":"\\"{,","b":[1,2]}', 4),               # an escaped quote does not end the string
    (b'{"a":"unterminated {{{,,,', 1),             # nor does the end of the body start a new one
    (b'{"x":[[[[[[]]]]]]}', 7),                    # arrays of nothing count too
])
def test_json_values_are_objects_arrays_and_values_after_a_comma_outside_strings(body: bytes,
                                                                                 values: int) -> None:
    assert json_values(body, 1_000, exact=True) == values
    assert json_values(body, values - 1) > values - 1
