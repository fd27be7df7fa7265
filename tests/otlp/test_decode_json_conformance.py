"""OTLP/JSON as real senders write it, read as proto3's JSON mapping and the OTLP spec say: `null` for a
field's default, no key given twice, a field under its lowerCamelCase name or its proto field name; and what
a rejection quotes of a request, kept short whatever the request held."""

from __future__ import annotations

import json
import math

import aiohttp
import grpc
import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from otlp_json import proto_named_doc

from ragmon.otlp.decode import DecodedBatch, DecodeError, decode_json, decode_protobuf
from ragmon.semconv.extract import extract
from ragmon.traces import Span, SpanEvent, Trace

TRACE = "5b8efff798038103d269b633813fc60c"
ROOT = "eee19b7ec3c1b174"
CHILD = "eee19b7ec3c1b173"
SPANS = "resourceSpans[0].scopeSpans[0].spans"


def body(*spans: dict[str, object], scope: object = None) -> bytes:
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "node-rag"}}]},
        "scopeSpans": [{"scope": scope if scope is not None else {"name": "app"},
                        "spans": list(spans)}]}]}).encode()


def refused(data: bytes) -> str:
    with pytest.raises(DecodeError) as error:
        decode_json(data)
    return str(error.value)


# --- null is the field's default -----------------------------------------------------------------------


def test_the_js_exporters_nan_attribute_keeps_the_batch_and_reads_as_an_unset_value():
    # OpenTelemetry JS writes a NaN double as {"doubleValue": null} (JSON.stringify(NaN) is null): the whole
    # request had been refused with 400, both spans lost.
    data = body(
        {"traceId": TRACE, "spanId": CHILD, "parentSpanId": ROOT, "name": "retrieve", "kind": 1,
         "attributes": [{"key": "retrieval.top_score", "value": {"doubleValue": None}},
                        {"key": "top_k", "value": {"intValue": 5}}]},
        {"traceId": TRACE, "spanId": ROOT, "name": "ask", "kind": 1})

    batch = decode_json(data)

    assert batch.rejected == 0
    assert [span.name for span in batch.spans] == ["retrieve", "ask"]
    assert batch.spans[0].attributes == {"retrieval.top_score": None, "top_k": 5}


@pytest.mark.parametrize(("any_value", "value"), [
    ('{"doubleValue": null}', None), ('{"stringValue": null}', None), ('{"intValue": null}', None),
    ('{"kvlistValue": null}', None), ('{"stringValue": null, "intValue": "3"}', 3)])
def test_a_null_anyvalue_field_reads_as_protobufs_own_json_parser_reads_it(any_value, value):
    # json_format.Parse leaves a null oneof field unset (the next field, when there is one, is the value);
    # the protobuf door reads that AnyValue so; the JSON door must agree.
    parsed = json_format.Parse(any_value, AnyValue())
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[
        PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="s",
               attributes=[KeyValue(key="a", value=parsed)])])])])
    from_protobuf = decode_protobuf(request.SerializeToString()).spans[0].attributes
    data = body({"traceId": TRACE, "spanId": ROOT, "name": "s",
                 "attributes": [{"key": "a", "value": json.loads(any_value)}]})
    assert from_protobuf == {"a": value}
    assert decode_json(data).spans[0].attributes == {"a": value}


def test_every_null_field_of_a_span_is_its_default():
    data = body({"traceId": TRACE, "spanId": ROOT, "parentSpanId": None, "name": None, "kind": None,
                 "startTimeUnixNano": None, "endTimeUnixNano": None, "flags": None, "traceState": None,
                 "status": {"code": None},
                 "attributes": [{"key": None, "value": {"stringValue": None}}],
                 "events": [{"name": None, "timeUnixNano": None, "attributes": None}]},
                scope={"name": None})

    assert decode_json(data).spans == (Span(
        trace_id=TRACE, span_id=ROOT, parent_span_id=None, name="", start_time_unix_nano=0,
        end_time_unix_nano=0, kind=0, attributes={"": None}, events=(SpanEvent("", 0, {}),),
        resource={"service.name": "node-rag"}, status_code=0, scope_name="", parent_is_remote=None),)


@pytest.mark.parametrize(("field", "problem"), [("traceId", "traceId is empty"),
                                               ("spanId", "spanId is empty")])
def test_a_null_id_is_an_empty_one_and_rejects_its_span_alone(field, problem):
    good = {"traceId": TRACE, "spanId": CHILD, "name": "good"}
    batch = decode_json(body(good, {"traceId": TRACE, "spanId": ROOT, "name": "bad", field: None}))
    assert [span.name for span in batch.spans] == ["good"]
    assert batch.errors == (f"{SPANS}[1] 'bad': {problem}",)


# --- what a message quotes ------------------------------------------------------------------------------


def bad_spans_with_long_names() -> tuple[bytes, bytes]:
    """10 spans with an all-zero trace id and a 1 MiB name each, then one good span: JSON, protobuf."""
    name = "N" * (1 << 20)
    data = body(*[{"traceId": "0" * 32, "spanId": f"{n + 1:016x}", "name": name} for n in range(10)],
                {"traceId": TRACE, "spanId": ROOT, "name": "ok"})
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[
        *[PbSpan(trace_id=bytes(16), span_id=(n + 1).to_bytes(8, "big"), name=name) for n in range(10)],
        PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="ok")])])])
    return data, request.SerializeToString()


def test_a_rejected_spans_long_name_is_quoted_cut_short():
    data, protobuf = bad_spans_with_long_names()
    for batch in (decode_json(data), decode_protobuf(protobuf)):
        assert [span.name for span in batch.spans] == ["ok"] and batch.rejected == 10
        # The name's first 100 characters, "…" after the quote
        assert batch.errors == tuple(f"{SPANS}[{n}] '{'N' * 100}'…: traceId is all zeros" for n in range(10))
        assert len(batch.rejection_message()) < 2_000  # was 10.5 MB


def test_a_long_value_of_the_wrong_type_is_quoted_cut_short():
    message = refused(body({"traceId": TRACE, "spanId": ROOT, "startTimeUnixNano": "x" * (1 << 20)}))
    assert message == f"{SPANS}[0].startTimeUnixNano: not an integer: '{'x' * 100}'…"
    message = refused(body({"traceId": TRACE, "spanId": ROOT, "attributes": [
        {"key": "k", "value": {"doubleValue": ["1"] * 100_000}}]}))
    assert message == f"{SPANS}[0].attributes[0].value.doubleValue: not a number: ['1', '1', '1', '1', ...]"


async def test_a_grpc_client_reads_the_partial_success_of_spans_with_long_names(grpc_receiver, sink):
    # The reply had been 10.5 MB: the client refused it (RESOURCE_EXHAUSTED, over its 4 MiB), though the
    # good span was taken, so the exporter sent the batch again.
    target = await grpc_receiver(max_body=32 << 20)
    request = ExportTraceServiceRequest.FromString(bad_spans_with_long_names()[1])
    async with grpc.aio.insecure_channel(target) as channel:
        response = await TraceServiceStub(channel).Export(request)
    assert response.partial_success.rejected_spans == 10
    assert f"{SPANS}[0] '{'N' * 100}'…: traceId is all zeros" in response.partial_success.error_message
    assert [span.name for span in sink.spans] == ["ok"]


# --- a key given twice ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "message"), [
    # json.loads kept the last: the first array's span was lost with 200 and counted nowhere.
    (b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"' + TRACE.encode() + b'","spanId":"'
     + ROOT.encode() + b'","name":"a"}]}]}],"resourceSpans":[]}',
     "body: the key 'resourceSpans' is given twice in one object"),
    # a scope's spans given twice: the first span lost
    (body({"traceId": TRACE, "spanId": ROOT, "name": "a"}).replace(b'"spans": [', b'"spans": [], "spans": ['),
     "resourceSpans[0].scopeSpans[0]: the key 'spans' is given twice in one object"),
    # the same, the key written with an escape, which the quick count does not see
    (body({"traceId": TRACE, "spanId": ROOT, "name": "a"}).replace(b'"spans": [',
                                                                  b'"spans": [], "sp\\u0061ns": ['),
     "resourceSpans[0].scopeSpans[0]: the key 'spans' is given twice in one object"),
    # a value spelling a span key's name makes the count uncertain: the parse decides, and finds it
    (b'{"resourceSpans":[{"scopeSpans":[],"scopeSpans":[]}],"x":"scopeSpans"}',
     "resourceSpans[0]: the key 'scopeSpans' is given twice in one object"),
])
def test_a_key_holding_spans_given_twice_refuses_the_body_naming_it_and_where(data, message):
    assert refused(data) == message


def test_another_key_given_twice_keeps_its_last_value_as_json_readers_do():
    # A span's name, an attribute's value: nothing is lost but the first value, and no exporter writes it.
    data = body({"traceId": TRACE, "spanId": ROOT, "name": "a",
                 "attributes": [{"key": "k", "value": {"intValue": 1}}]})
    data = data.replace(b'"name": "a"', b'"name": "a", "name": "b"').replace(
        b'{"intValue": 1}', b'{"intValue": 1, "intValue": 2}')
    [span] = decode_json(data).spans
    assert (span.name, span.attributes) == ("b", {"k": 2})
    # a value spelling "spans" sends it through the parse, which keeps the last as well
    [span] = decode_json(data.replace(b'"name": "a", "name": "b"', b'"name": "spans", "name": "b"')).spans
    assert span.name == "b"


# An object holding "spans" twice as the first value of a key given twice ("a"), which keeps its last: the
# object is in no value the document keeps. The escaped "s" of the span's name sends the body through the
# strict parse, which found the repeated key but no object holding it to name: an IndexError, a 500
# answered to the exporter and its spans neither taken nor counted.
LOST_REPEAT = (b'{"a": {"spans": [], "spans": []}, "a": 1, "resourceSpans": [{"scopeSpans": [{"spans": [{'
               b'"traceId": "' + TRACE.encode() + b'", "spanId": "' + ROOT.encode()
               + b'", "name": "\\u0073"}]}]}]}')


def test_a_key_given_twice_inside_a_value_the_document_drops_loses_nothing():
    [span] = decode_json(LOST_REPEAT).spans
    assert (span.trace_id, span.span_id, span.name) == (TRACE, ROOT, "s")


async def test_a_key_given_twice_inside_a_value_the_document_drops_is_a_200(http_receiver, sink):
    url = await http_receiver()
    async with aiohttp.ClientSession() as session, session.post(
            url, data=LOST_REPEAT, headers={"Content-Type": "application/json"}) as response:
        assert response.status == 200
    assert [span.name for span in sink.spans] == ["s"] and sink.rejects == []


class _Watched(bytes):
    """A body recording the searches of its whole text made with bytes' own methods (`count`, `in`)."""

    def __init__(self, data: bytes) -> None:
        self.searches: list[str] = []

    def count(self, *args, **kwargs) -> int:  # type: ignore[override]
        self.searches.append("count")
        return super().count(*args, **kwargs)

    def __contains__(self, item) -> bool:  # type: ignore[override]
        self.searches.append("in")
        return super().__contains__(item)


def test_the_keys_holding_spans_are_counted_in_one_pass_over_the_text():
    # Each key holding spans had been counted with a pass of its own over the text (resourceSpans,
    # scopeSpans, spans: three), and the text searched for a backslash-u by `in` (comparing at every
    # 'u'): together ~12% of decoding benchmarks/pipeline.py's OTLP/JSON. Now one regex pass finds the keys
    # and another the escape; bytes' own searches are only the value count's three ({, [ and ,).
    data = _Watched(body({"traceId": TRACE, "spanId": ROOT, "name": "a"},
                         {"traceId": TRACE, "spanId": CHILD, "parentSpanId": ROOT, "name": "b"}))
    assert [span.name for span in decode_json(data).spans] == ["a", "b"]
    assert data.searches == ["count"] * 3


async def test_a_key_given_twice_is_a_400_counted_as_a_decode_error(http_receiver, sink):
    url = await http_receiver()
    data = b'{"resourceSpans":[],"resourceSpans":[]}'
    async with aiohttp.ClientSession() as session, session.post(
            url, data=data, headers={"Content-Type": "application/json"}) as response:
        assert response.status == 400
        reply = await response.json()
    assert reply["message"] == "body: the key 'resourceSpans' is given twice in one object"
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


# --- either name of a field: lowerCamelCase or the proto field name -------------------------------------


def snake_body(*spans: dict[str, object]) -> bytes:
    """`body`, with the request's keys as MessageToJson(preserving_proto_field_name=True) writes them."""
    return json.dumps({"resource_spans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"string_value": "node-rag"}}]},
        "scope_spans": [{"scope": {"name": "app"}, "spans": list(spans)}]}]}).encode()


def test_a_span_written_with_proto_field_names_is_read_whole():
    # Each of these keys had refused the whole body with 400.
    data = snake_body({
        "trace_id": TRACE, "span_id": CHILD, "parent_span_id": ROOT, "name": "retrieve", "kind": 3,
        "start_time_unix_nano": "1700000000000000001", "end_time_unix_nano": 1700000000000000002,
        "flags": 768, "status": {"code": 2},
        "attributes": [{"key": "s", "value": {"string_value": "v"}},
                       {"key": "b", "value": {"bool_value": True}},
                       {"key": "i", "value": {"int_value": "-7"}},
                       {"key": "d", "value": {"double_value": 0.5}},
                       {"key": "by", "value": {"bytes_value": "AQI="}},
                       {"key": "a", "value": {"array_value": {"values": [{"int_value": 1}]}}},
                       {"key": "kv", "value": {"kvlist_value": {"values": [
                           {"key": "x", "value": {"string_value": "y"}}]}}}],
        "events": [{"name": "db.query.result", "time_unix_nano": "5",
                    "attributes": [{"key": "id", "value": {"string_value": "doc-1"}}]}]})

    assert decode_json(data) == DecodedBatch(spans=(Span(
        trace_id=TRACE, span_id=CHILD, parent_span_id=ROOT, name="retrieve",
        start_time_unix_nano=1700000000000000001, end_time_unix_nano=1700000000000000002, kind=3,
        attributes={"s": "v", "b": True, "i": -7, "d": 0.5, "by": b"\x01\x02", "a": [1], "kv": {"x": "y"}},
        events=(SpanEvent("db.query.result", 5, {"id": "doc-1"}),), resource={"service.name": "node-rag"},
        status_code=2, scope_name="app", parent_is_remote=True),), rejected=0, errors=())


@pytest.mark.parametrize(("span", "message"), [
    ({"traceId": TRACE, "trace_id": "0" * 32, "spanId": ROOT},
     f"{SPANS}[0].trace_id: given beside traceId, the same field: give one of the two"),
    ({"traceId": TRACE, "spanId": ROOT, "parentSpanId": CHILD, "parent_span_id": CHILD},
     f"{SPANS}[0].parent_span_id: given beside parentSpanId, the same field: give one of the two"),
    ({"traceId": TRACE, "spanId": ROOT, "end_time_unix_nano": "5", "endTimeUnixNano": "6"},
     f"{SPANS}[0].end_time_unix_nano: given beside endTimeUnixNano, the same field: give one of the two"),
    ({"traceId": TRACE, "spanId": ROOT, "events": [{"timeUnixNano": "5", "time_unix_nano": "5"}]},
     f"{SPANS}[0].events[0].time_unix_nano: given beside timeUnixNano, the same field: give one of the two"),
])
def test_one_field_under_both_names_refuses_the_body_naming_both(span, message):
    # One of the two values would be lost without a word (protobuf's Python parser keeps the last).
    assert refused(body(span)) == message


@pytest.mark.parametrize(("data", "message"), [
    (b'{"resourceSpans": [], "resource_spans": [{"scopeSpans": []}]}',
     "resource_spans: given beside resourceSpans, the same field: give one of the two"),
    (b'{"resource_spans": [{"scope_spans": [], "scopeSpans": [{"spans": []}]}]}',
     "resourceSpans[0].scope_spans: given beside scopeSpans, the same field: give one of the two"),
    # the same proto field name twice, as the same lowerCamelCase one twice: the first list's spans lost
    (b'{"resource_spans": [{"scopeSpans": []}], "resource_spans": []}',
     "body: the key 'resource_spans' is given twice in one object"),
    (b'{"resource_spans": [{"scope_spans": [{"spans": []}], "scope_spans": []}]}',
     "resource_spans[0]: the key 'scope_spans' is given twice in one object"),
])
def test_a_list_of_spans_given_twice_under_either_name_refuses_the_body(data, message):
    assert refused(data) == message


def test_an_attribute_value_under_both_names_reads_its_first_as_any_two_of_its_fields():
    # An AnyValue holds one value: the first field given that is not null is it, whatever its name.
    data = body({"traceId": TRACE, "spanId": ROOT, "attributes": [
        {"key": "a", "value": {"string_value": "first", "stringValue": "second"}},
        {"key": "b", "value": {"int_value": None, "intValue": "4"}}]})
    assert decode_json(data).spans[0].attributes == {"a": "first", "b": 4}


async def test_protobufs_json_with_proto_field_names_reads_over_http_as_otlp_json_does(
        http_receiver, sink, sdk_spans, otlp_json):
    # A Python sender's MessageToJson(preserving_proto_field_name=True): proto field names, enum names
    # ("SPAN_KIND_SERVER"), 64-bit integers as strings. It had been refused whole: 400 naming resource_spans.
    request = encode_spans(sdk_spans)
    snake = json.dumps(proto_named_doc(request)).encode()
    assert all(written in snake for written in (b'"resource_spans"', b'"start_time_unix_nano"', b"SERVER"))
    url = await http_receiver()
    async with aiohttp.ClientSession() as session:
        for data in (snake, otlp_json(request)):
            async with session.post(url, data=data, headers={"Content-Type": "application/json"}) as response:
                assert (response.status, await response.json()) == (200, {})

    (from_snake, _), (from_camel, _) = sink.offers
    assert from_snake == from_camel and sink.rejects == []
    example = extract(Trace(from_snake[0].trace_id, from_snake))
    assert example is not None and example == extract(Trace(from_camel[0].trace_id, from_camel))
    assert example.question == "capital of France?"
    assert [context.text for context in example.contexts or ()] == [
        "Paris is the capital of France.", "The Seine flows through Paris."]


def test_ids_in_base64_under_proto_field_names_are_rejected_saying_otlp_json_writes_hex(sdk_spans):
    # MessageToJson as it comes: ids in base64 (proto3's bytes), which OTLP/JSON does not take.
    data = json_format.MessageToJson(encode_spans(sdk_spans), preserving_proto_field_name=True).encode()
    batch = decode_json(data)
    assert (batch.spans, batch.rejected) == ((), 3)
    assert batch.errors[0] == (f"{SPANS}[0] 'retrieve': traceId is not 32 hex digits "
                               "(OTLP/JSON writes ids in hex, not base64)")


def test_a_proto_field_name_of_a_field_ragmon_does_not_read_is_ignored():
    data = body({"traceId": TRACE, "spanId": ROOT, "name": "x", "dropped_attributes_count": 3,
                 "trace_state": "a=b"})
    assert [(span.trace_id, span.name) for span in decode_json(data).spans] == [(TRACE, "x")]


# --- numbers as JSON writes them -------------------------------------------------------------------------


@pytest.mark.parametrize(("written", "read"), [
    ("1700000000000000001", 1700000000000000001), (1700000000000000001, 1700000000000000001),
    ("18446744073709551615", 2**64 - 1),  # the largest uint64, as a string
    ("1e3", 1000), ("1.0", 1), ("12.50e1", 125), (5.0, 5),  # whole, however written
    ("0e1000000000000000000", 0),  # an exponent past decimal's range (about 10**18): was a 500
])
def test_a_time_is_a_json_number_or_a_string_holding_one(written, read):
    data = body({"traceId": TRACE, "spanId": ROOT, "startTimeUnixNano": written})
    assert decode_json(data).spans[0].start_time_unix_nano == read


@pytest.mark.parametrize(("written", "problem"), [
    # What Python's int() reads and the Collector's parser (Go's protojson) refuses: had been taken
    ("1_000", "not an integer: '1_000'"), (" 7 ", "not an integer: ' 7 '"), ("+7", "not an integer: '+7'"),
    ("07", "not an integer: '07'"), ("\u0663", "not an integer: '\u0663'"),  # an Arabic-Indic three
    ("1.5", "not an integer: '1.5'"), ("1e-3", "not an integer: '1e-3'"),
    ("18446744073709551616", "out of range: '18446744073709551616' (want 0 to 18446744073709551615)"),
    # a billion-digit integer is not made to be told it is too large
    ("1e999999999", "out of range: '1e999999999' (want 0 to 18446744073709551615)"),
    # an exponent past decimal's range (about 10**18): an InvalidOperation, answered 500, the spans uncounted
    ("1e1000000000000000000", "out of range: '1e1000000000000000000' (want 0 to 18446744073709551615)"),
    ("-2E+1000000000000000000", "out of range: '-2E+1000000000000000000' (want 0 to 18446744073709551615)"),
    ("1e-2000000000000000000", "not an integer: '1e-2000000000000000000'"),
])
def test_a_time_written_as_no_json_number_refuses_the_body_naming_it(written, problem):
    data = body({"traceId": TRACE, "spanId": ROOT, "startTimeUnixNano": written})
    assert refused(data) == f"{SPANS}[0].startTimeUnixNano: {problem}"


@pytest.mark.parametrize(("kind", "written", "read"), [
    ("intValue", "-9223372036854775808", -(2**63)), ("intValue", "-2e2", -200),
    ("doubleValue", "NaN", math.nan), ("doubleValue", "-Infinity", -math.inf),
    ("doubleValue", "2.5e-1", 0.25), ("doubleValue", -0.5, -0.5),
])
def test_an_attributes_number_reads_as_proto3_json_writes_it(kind, written, read):
    data = body({"traceId": TRACE, "spanId": ROOT, "attributes": [{"key": "k", "value": {kind: written}}]})
    value = decode_json(data).spans[0].attributes["k"]
    assert math.isnan(value) if math.isnan(read) else value == read


@pytest.mark.parametrize(("kind", "written"), [
    ("intValue", "1_000"), ("intValue", "9223372036854775808"),
    ("doubleValue", "nan"), ("doubleValue", "inf"), ("doubleValue", "infinity"), ("doubleValue", " 1.5 "),
    ("doubleValue", "1_0.5"), ("doubleValue", ".5"), ("doubleValue", "5."), ("doubleValue", "\u0663"),
])
def test_an_attributes_number_python_reads_and_proto3_json_does_not_refuses_the_body(kind, written):
    data = body({"traceId": TRACE, "spanId": ROOT, "attributes": [{"key": "k", "value": {kind: written}}]})
    assert refused(data).startswith(f"{SPANS}[0].attributes[0].value.{kind}: ")
    assert repr(written) in refused(data)


# --- enums: an integer or a name of the field's own enum ------------------------------------------------


KINDS = ("SPAN_KIND_UNSPECIFIED, SPAN_KIND_INTERNAL, SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_PRODUCER, "
         "SPAN_KIND_CONSUMER")
STATUS_CODES = "STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR"


@pytest.mark.parametrize(("span", "kind", "status_code"), [
    ({"kind": "SPAN_KIND_CLIENT", "status": {"code": "STATUS_CODE_ERROR"}}, 3, 2),
    ({"kind": "SPAN_KIND_CONSUMER", "status": {"code": "STATUS_CODE_OK"}}, 5, 1),
    ({"kind": 4, "status": {"code": "2"}}, 4, 2),
])
def test_an_enum_reads_as_an_integer_or_a_name_of_its_own(span, kind, status_code):
    [read] = decode_json(body({"traceId": TRACE, "spanId": ROOT, **span})).spans
    assert (read.kind, read.status_code) == (kind, status_code)


@pytest.mark.parametrize(("span", "problem"), [
    # Each had been read as the other enum's value: a SERVER span, and a failed one.
    ({"kind": "STATUS_CODE_ERROR"}, f"kind: not an integer nor one of {KINDS}: 'STATUS_CODE_ERROR'"),
    ({"status": {"code": "SPAN_KIND_SERVER"}},
     f"status.code: not an integer nor one of {STATUS_CODES}: 'SPAN_KIND_SERVER'"),
    # Had been told it was "not an integer", to a sender that wrote a name.
    ({"kind": "SERVER"}, f"kind: not an integer nor one of {KINDS}: 'SERVER'"),
])
async def test_a_name_of_no_value_of_the_enum_is_a_400_listing_its_names(http_receiver, sink, span, problem):
    url = await http_receiver()
    data = body({"traceId": TRACE, "spanId": ROOT, "name": "ask", **span})
    async with aiohttp.ClientSession() as session, session.post(
            url, data=data, headers={"Content-Type": "application/json"}) as response:
        assert response.status == 400
        reply = await response.json()
    assert reply["message"] == f"{SPANS}[0].{problem}"
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]
