"""Properties of the OTLP decoders on any body: spans (every one accepted or counted as rejected) or a
DecodeError, which the receiver answers with 400 and counts; never another exception.

JSON bodies are drawn shaped like an ExportTraceServiceRequest with values of any type at every level
(ids of the wrong length or not hex, odd AnyValue shapes, intValue as text or out of range, times as
text), protobuf bodies as real requests cut, spliced or flipped, or as any bytes. A valid request
decodes alike in both encodings.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from google.protobuf.json_format import ParseDict
from google.protobuf.message import DecodeError as ProtobufDecodeError
from google.protobuf.message import Message
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ragmon.otlp.decode import DecodedBatch, DecodeError, decode_json, decode_protobuf
from ragmon.otlp.http import add_otlp_routes
from ragmon.otlp.utf8_repair import repaired
from ragmon.otlp.values import MalformedProtobuf, protobuf_exceeds

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)
DEEP = "@deep@"
"""A string value replaced, in the JSON text, by lists nested deeper than any parser goes."""
TOO_MANY_DIGITS = "@digits@"
"""A string value replaced by an integer of more digits than Python's int() converts (4300)."""
SPAN_OK = {"traceId": "1" * 32, "spanId": "1" * 16, "name": "s"}
_HEX_ID = re.compile("[0-9a-f]+")

TEXT = st.text(max_size=8) | st.sampled_from(["", "\ud800", "a\udfffb", "RETRIEVER", "\u0130" * 16])
NUMBERS = (st.integers(min_value=-(2**70), max_value=2**70) | st.floats()
           | st.sampled_from([*INT64, *UINT64, 2**64, 10**400])
           | st.sampled_from(["12", "-1", " 7 ", "1_000", "1e3", "0x10", "NaN", "Infinity", str(2**63),
                              str(2**64), "9" * 400, DEEP, TOO_MANY_DIGITS]))


def integers(bounds: tuple[int, int]) -> st.SearchStrategy[Any]:
    """Mostly an integer in range, as a JSON number or as text (proto3 JSON writes 64-bit ones as text)."""
    good = st.integers(*bounds)
    return st.one_of(good, good.map(str), good, good.map(str), NUMBERS)


JUNK = st.none() | st.booleans() | TEXT | NUMBERS | st.just([]) | st.just({})


def sometimes(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A well-typed value, or one time in 25 anything: a request has dozens of fields, and one bad field
    refuses it whole, so with more junk almost no body would get as far as its spans."""
    return st.integers(0, 24).flatmap(lambda n: JUNK if n == 0 else good)


def hex_ids(digits: int) -> st.SearchStrategy[Any]:
    good = st.integers(1, 3).map(lambda n: format(n, f"0{digits}x"))
    return sometimes(good | good.map(str.upper) | st.sampled_from(
        ["", "0" * digits, "g" * digits, "0" * (digits - 1), "\u0661" * digits, "0" * (digits + 2)]))


ANY_VALUE = st.deferred(lambda: sometimes(st.one_of(
    st.fixed_dictionaries({"stringValue": sometimes(TEXT)}),
    st.fixed_dictionaries({"intValue": sometimes(integers(INT64))}),
    st.fixed_dictionaries({"doubleValue": sometimes(NUMBERS)}),
    st.fixed_dictionaries({"boolValue": sometimes(st.booleans())}),
    st.fixed_dictionaries({"bytesValue": sometimes(st.sampled_from(["aGk=", "aGk", "a-_b", "!!", ""]))}),
    st.fixed_dictionaries({"arrayValue": sometimes(st.fixed_dictionaries(
        {}, optional={"values": sometimes(st.lists(ANY_VALUE, max_size=3))}))}),
    st.fixed_dictionaries({"kvlistValue": sometimes(st.fixed_dictionaries(
        {}, optional={"values": sometimes(st.lists(KEY_VALUE, max_size=3))}))}),
    st.just({}), st.just({"unknown": 1, "stringValue": "after"}))))
KEY_VALUE = sometimes(st.fixed_dictionaries({"key": sometimes(TEXT)}, optional={"value": ANY_VALUE}))
ATTRIBUTES = sometimes(st.lists(KEY_VALUE, max_size=3))
EVENT = sometimes(st.fixed_dictionaries({}, optional={
    "name": sometimes(TEXT), "timeUnixNano": sometimes(integers(UINT64)), "attributes": ATTRIBUTES}))
SPAN = sometimes(st.fixed_dictionaries(
    {"traceId": hex_ids(32), "spanId": hex_ids(16)},
    optional={"parentSpanId": hex_ids(16), "name": sometimes(TEXT),
              "kind": sometimes(st.integers(0, 5) | st.sampled_from(["SPAN_KIND_SERVER", "SERVER", 2**40])),
              "startTimeUnixNano": sometimes(integers(UINT64)),
              "endTimeUnixNano": sometimes(integers(UINT64)),
              "flags": sometimes(st.sampled_from([0, 0x100, 0x300, -1, 2**40, "768"])),
              "attributes": ATTRIBUTES, "events": sometimes(st.lists(EVENT, max_size=2)),
              "status": sometimes(st.fixed_dictionaries({}, optional={"code": sometimes(integers((0, 2)))})),
              }))
SCOPE_SPANS = sometimes(st.fixed_dictionaries({"spans": sometimes(st.lists(SPAN, max_size=3))}, optional={
    "scope": sometimes(st.fixed_dictionaries({}, optional={"name": sometimes(TEXT)}))}))
RESOURCE_SPANS = sometimes(st.fixed_dictionaries(
    {"scopeSpans": sometimes(st.lists(SCOPE_SPANS, max_size=2))}, optional={
    "resource": sometimes(st.fixed_dictionaries({}, optional={"attributes": ATTRIBUTES})),
    "scope_spans": st.just([])}))
REQUEST = sometimes(st.fixed_dictionaries({"resourceSpans": sometimes(st.lists(RESOURCE_SPANS, max_size=2))},
                                          optional={"resource_spans": st.just([])}))


def json_body(doc: Any) -> bytes:
    text = json.dumps(doc)  # NaN and Infinity as the literals JSON parsers commonly accept
    text = text.replace(f'"{DEEP}"', "[" * 5000 + "]" * 5000).replace(f'"{TOO_MANY_DIGITS}"', "7" * 5000)
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate as its UTF-8-style bytes


def spans_in(doc: Any) -> int:
    """How many spans a request the decoder read whole holds: each must be accepted or rejected."""
    return sum(len(scope.get("spans") or []) for resource in doc.get("resourceSpans") or []
               for scope in resource.get("scopeSpans") or [])


def assert_sound(batch: DecodedBatch) -> None:
    """What every consumer of a batch relies on: ids as the Assembler keys them, OTLP's value types and
    ranges, text that UTF-8 can write (labels, reports, the judge's cache key)."""
    assert len(batch.errors) == min(batch.rejected, 10)
    for span in batch.spans:
        for span_id, digits in ((span.trace_id, 32), (span.span_id, 16), (span.parent_span_id, 16)):
            assert span_id is None or (len(span_id) == digits and _HEX_ID.fullmatch(span_id)
                                       and int(span_id, 16)), span_id
        times = (span.start_time_unix_nano, span.end_time_unix_nano, *(e.time_unix_nano for e in span.events))
        for time in times:
            assert UINT64[0] <= time <= UINT64[1], time
        span.name.encode("utf-8")
        span.scope_name.encode("utf-8")
        for attributes in (span.attributes, span.resource, *(e.attributes for e in span.events)):
            assert_values(attributes)


def assert_values(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            key.encode("utf-8")
            assert_values(item)
    elif isinstance(value, list):
        for item in value:
            assert_values(item)
    elif isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, int) and not isinstance(value, bool):
        assert INT64[0] <= value <= INT64[1], value
    else:
        assert value is None or isinstance(value, bool | float | bytes), type(value)


def request(**span: Any) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": [{**SPAN_OK, **span}]}]}]}


def decode_or_refuse(decode: Callable[[bytes], Any], body: bytes, held: Callable[[bytes], int]) -> str:
    """`decode` (either decoder) refuses the body with a one-line message, or takes or counts as rejected
    every span of it (`held` counts them in the body as sent)."""
    try:
        batch = decode(body)
    except DecodeError as exc:
        assert str(exc) and "\n" not in str(exc)
        return "refused"
    assert_sound(batch)
    assert len(batch.spans) + batch.rejected == held(body), "a span neither taken nor counted"
    return "spans" if batch.spans else ("all rejected" if batch.rejected else "empty")


def decode_json_or_refuse(body: bytes) -> str:
    return decode_or_refuse(decode_json, body, lambda sent: spans_in(json.loads(sent)))


def check_json(doc: Any) -> str:
    return decode_json_or_refuse(json_body(doc))


@settings(FUZZ, max_examples=700)
@given(doc=REQUEST)
@example(doc=request(attributes=[{"key": "a", "value": {"doubleValue": 10**400}}]))  # OverflowError
@example(doc=request(attributes=[{"key": "a", "value": {"intValue": str(2**63)}}]))
@example(doc=request(startTimeUnixNano=1e300))
@example(doc=request(endTimeUnixNano="-1"))
def test_any_otlp_json_body_decodes_or_is_refused(doc: Any) -> None:
    event(check_json(doc))


# --- protobuf --------------------------------------------------------------------------------------

PB_VALUE = st.deferred(lambda: st.one_of(
    st.fixed_dictionaries({"stringValue": st.text(max_size=6)}),
    st.fixed_dictionaries({"intValue": st.integers(*INT64).map(str)}),
    st.fixed_dictionaries({"doubleValue": st.floats(allow_nan=False, allow_infinity=False)}),
    st.fixed_dictionaries({"boolValue": st.booleans()}),
    st.fixed_dictionaries({"bytesValue": st.sampled_from(["", "aGk=", "/+8="])}),
    st.fixed_dictionaries({"arrayValue": st.fixed_dictionaries({"values": st.lists(PB_VALUE, max_size=2)})}),
    st.fixed_dictionaries({"kvlistValue": st.fixed_dictionaries(
        {"values": st.lists(PB_KEY_VALUE, max_size=2)})}),
    st.just({})))
PB_KEY_VALUE = st.fixed_dictionaries({"key": st.text(min_size=1, max_size=6), "value": PB_VALUE})
"""Keys are never empty: proto3 JSON leaves an empty key out, and the JSON decoder refuses a KeyValue
without one (tests/otlp/test_decode.py), where protobuf takes the key "" (see the report)."""
PB_ID = {32: st.sampled_from(["", "AAAAAAAAAAAAAAAAAAAAAQ==", "EjRWeJASNFZ4kBI0VniQEg==",
                              "AAAAAAAAAAAAAAAAAAAAAA==", "EjQ="]),
         16: st.sampled_from(["", "AAAAAAAAAAE=", "AAAAAAAAAAI=", "AAAAAAAAAAA=", "EjQ="])}
PB_SPAN = st.fixed_dictionaries({"traceId": PB_ID[32], "spanId": PB_ID[16]}, optional={
    "parentSpanId": PB_ID[16], "name": st.text(max_size=6), "kind": st.integers(0, 5),
    "startTimeUnixNano": st.integers(*UINT64).map(str), "flags": st.sampled_from([0, 0x100, 0x300]),
    "attributes": st.lists(PB_KEY_VALUE, max_size=3),
    "events": st.lists(st.fixed_dictionaries({"name": st.text(max_size=4),
                                              "attributes": st.lists(PB_KEY_VALUE, max_size=2)}), max_size=2),
    "status": st.fixed_dictionaries({"code": st.integers(0, 2)})})
PB_REQUEST = st.fixed_dictionaries({"resourceSpans": st.lists(st.fixed_dictionaries({
    "resource": st.fixed_dictionaries({"attributes": st.lists(PB_KEY_VALUE, max_size=2)}),
    "scopeSpans": st.lists(st.fixed_dictionaries({
        "scope": st.fixed_dictionaries({"name": st.text(max_size=4)}),
        "spans": st.lists(PB_SPAN, max_size=3)}), max_size=2)}),
    max_size=2)})
"""Valid requests, in the proto3 JSON form that ParseDict reads (ids base64, 64-bit integers as text)."""


@st.composite
def protobuf_bodies(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.binary(max_size=80))
    body = ParseDict(draw(PB_REQUEST), ExportTraceServiceRequest()).SerializeToString()
    damage = draw(st.sampled_from(["none", "cut", "flip", "splice", "nest"]))
    if damage == "cut" and body:
        return body[:draw(st.integers(0, len(body) - 1))]
    if damage == "flip" and body:
        at = draw(st.integers(0, len(body) - 1))
        return body[:at] + bytes([body[at] ^ draw(st.integers(1, 255))]) + body[at + 1:]
    if damage == "nest":  # an arrayValue inside an arrayValue, thousands deep, as one attribute
        return body + _nested_attribute(draw(st.integers(10, 3000)))
    if damage == "splice":
        at = draw(st.integers(0, len(body)))
        return body[:at] + draw(st.binary(min_size=1, max_size=12)) + body[at:]
    return body


def _nested_attribute(depth: int) -> bytes:
    """resource_spans { resource { attributes { key "a" value { array_value { values { array_value ...."""
    def field(number: int, payload: bytes) -> bytes:
        return bytes([number << 3 | 2]) + _varint(len(payload)) + payload
    value = b""
    for _ in range(depth):
        value = field(5, field(1, value))  # AnyValue.array_value (5) -> ArrayValue.values (1)
    key_value = field(1, b"a") + field(2, value)
    return field(1, field(1, field(1, key_value)))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def protobuf_spans(body: bytes) -> int:
    """Spans in the body as sent; its strings that are not UTF-8 read as the receiver reads them."""
    try:
        request = ExportTraceServiceRequest.FromString(body)
    except ProtobufDecodeError:
        fixed, _ = repaired(body, ExportTraceServiceRequest.DESCRIPTOR)
        request = ExportTraceServiceRequest.FromString(fixed)
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


def decode_protobuf_or_refuse(body: bytes) -> str:
    return decode_or_refuse(decode_protobuf, body, protobuf_spans)


@settings(FUZZ, max_examples=400)
@given(body=protobuf_bodies())
def test_any_protobuf_body_decodes_or_is_refused(body: bytes) -> None:
    event(decode_protobuf_or_refuse(body))


def wire_values(message: Message) -> int:
    """What ragmon.otlp.values counts as values, by another road: the message, each message in it, and
    each element of a repeated string (its count of other fields only adds to this)."""
    count = 1
    for field, value in message.ListFields():
        if field.message_type is None:
            count += len(value) if field.is_repeated else 0
        else:
            count += sum(map(wire_values, value if field.is_repeated else [value]))
    return count


def counted(body: bytes) -> str:
    """The count on the bytes raises nothing but MalformedProtobuf on any body, and never undercounts a
    body protobuf reads: with a limit one below its values, it is over."""
    try:
        request = ExportTraceServiceRequest.FromString(body)
    except (ProtobufDecodeError, RecursionError):
        request = None
    for limit in (1, len(body) // 4, len(body) // 2):
        try:
            protobuf_exceeds(body, limit)
        except MalformedProtobuf:
            assert request is None, "a body upb reads refused as malformed"
    if request is None:
        return "not protobuf"
    values = wire_values(request)
    assert protobuf_exceeds(body, values - 1)
    return "counted"


@settings(FUZZ, max_examples=400)
@given(body=protobuf_bodies())
def test_the_count_on_the_bytes_never_undercounts_and_raises_only_its_own_error(body: bytes) -> None:
    event(counted(body))


def same_spans(doc: dict[str, Any], to_json: Callable[[ExportTraceServiceRequest], bytes]) -> str:
    request = ParseDict(doc, ExportTraceServiceRequest())
    from_protobuf = decode_protobuf(request.SerializeToString())
    from_json = decode_json(to_json(request))
    assert from_json.errors == from_protobuf.errors and from_json.rejected == from_protobuf.rejected
    assert from_json.spans == from_protobuf.spans  # every double drawn is finite: == holds field by field
    return "spans" if from_json.spans else "none"


@settings(FUZZ, max_examples=200)
@given(doc=PB_REQUEST)
def test_a_valid_request_decodes_alike_as_protobuf_and_as_json(doc: dict[str, Any], otlp_json) -> None:
    event(same_spans(doc, otlp_json))


# --- through the receiver ----------------------------------------------------------------------------

HUGE_DOUBLE = [{"key": "a", "value": {"doubleValue": 10**400}}]
HUGE_INT = [{"key": "a", "value": {"intValue": "1" * 20}}]
HTTP_CASES = [
    ("application/json", {}, b"[" * 100_000),
    ("application/json", {}, json_body(request(attributes=HUGE_DOUBLE))),  # was a 500, uncounted
    ("application/json", {}, json_body(request(attributes=HUGE_INT))),
    ("application/json", {}, json_body(request(startTimeUnixNano=TOO_MANY_DIGITS))),
    ("application/json", {}, json_body(request(endTimeUnixNano="1e1000000000000000000"))),  # was a 500
    ("application/x-protobuf", {}, b"\x0a\x05\x12\x03\x0a\x01\xff"),
    ("application/x-protobuf", {}, _nested_attribute(3000)),
    ("application/json", {"Content-Encoding": "gzip"}, gzip.compress(json_body({"resourceSpans": []}))[:12]),
]


async def test_bad_bodies_are_400_and_counted_as_decode_errors(sink) -> None:
    app = web.Application()
    add_otlp_routes(app, sink, max_body=1 << 20, token=None)
    runner = web.AppRunner(app, auto_decompress=False)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        async with aiohttp.ClientSession() as session:
            for content_type, headers, body in HTTP_CASES:
                async with session.post(f"http://{host}:{port}/v1/traces", data=body,
                                        headers={"Content-Type": content_type, **headers}) as response:
                    assert response.status == 400, (body[:80], await response.text())
    finally:
        await runner.cleanup()
    # One refusal per request, each counted once as a decode error, and no span handed on.
    assert sink.rejects == [(1, "decode_error")] * len(HTTP_CASES)
    assert sink.offers == []


@pytest.mark.parametrize(("field", "value", "message"), [
    ("startTimeUnixNano", "-1",
     "spans[0].startTimeUnixNano: out of range: '-1' (want 0 to 18446744073709551615)"),
    ("kind", 2**31, "spans[0].kind: out of range"),
    ("flags", 2**32, "spans[0].flags: out of range"),
    ("attributes", [{"key": "a", "value": {"intValue": str(2**63)}}],
     "spans[0].attributes[0].value.intValue: out of range: '9223372036854775808'"),
    ("attributes", [{"key": "a", "value": {"doubleValue": 10**400}}],
     "spans[0].attributes[0].value.doubleValue: out of range for a double"),
])
def test_numbers_protobuf_could_not_carry_are_refused_naming_the_field(field: str, value: Any,
                                                                       message: str) -> None:
    # The bounds are the protobuf fields' types: fixed64 times, int32 enums, fixed32 flags, int64 intValue.
    with pytest.raises(DecodeError) as error:
        decode_json(json_body(request(**{field: value})))
    assert message in str(error.value)
