"""OTLP/JSON as real senders write it, read as proto3's JSON mapping and the OTLP spec say: `null` for a
field's default, no key given twice, lowerCamelCase keys only; and what a rejection quotes of a request,
kept short whatever the request held."""

from __future__ import annotations

import json
import math

import aiohttp
import grpc
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from ragmon.otlp.decode import DecodeError, decode_json, decode_protobuf
from ragmon.traces import Span, SpanEvent

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


async def test_a_key_given_twice_is_a_400_counted_as_a_decode_error(http_receiver, sink):
    url = await http_receiver()
    data = b'{"resourceSpans":[],"resourceSpans":[]}'
    async with aiohttp.ClientSession() as session, session.post(
            url, data=data, headers={"Content-Type": "application/json"}) as response:
        assert response.status == 400
        reply = await response.json()
    assert reply["message"] == "body: the key 'resourceSpans' is given twice in one object"
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


# --- lowerCamelCase keys only ----------------------------------------------------------------------------


@pytest.mark.parametrize(("span", "message"), [
    ({"trace_id": TRACE, "span_id": ROOT, "name": "x"},
     f"{SPANS}[0].trace_id: OTLP/JSON keys are lowerCamelCase: traceId"),
    # ids right, the parent and the times would have been lost: a child read as a root, its times as 0
    ({"traceId": TRACE, "spanId": ROOT, "parent_span_id": CHILD},
     f"{SPANS}[0].parent_span_id: OTLP/JSON keys are lowerCamelCase: parentSpanId"),
    ({"traceId": TRACE, "spanId": ROOT, "start_time_unix_nano": "5"},
     f"{SPANS}[0].start_time_unix_nano: OTLP/JSON keys are lowerCamelCase: startTimeUnixNano"),
    ({"traceId": TRACE, "spanId": ROOT, "events": [{"name": "e", "time_unix_nano": "5"}]},
     f"{SPANS}[0].events[0].time_unix_nano: OTLP/JSON keys are lowerCamelCase: timeUnixNano"),
    ({"traceId": TRACE, "spanId": ROOT, "attributes": [{"key": "k", "value": {"string_value": "v"}}]},
     f"{SPANS}[0].attributes[0].value.string_value: OTLP/JSON keys are lowerCamelCase: stringValue"),
])
def test_a_snake_case_key_of_a_field_ragmon_reads_is_refused_with_the_lower_camel_case_one(span, message):
    assert refused(body(span)) == message


def test_snake_case_beside_lower_camel_case_or_of_a_field_ragmon_does_not_read_is_ignored():
    data = body({"traceId": TRACE, "trace_id": "0" * 32, "spanId": ROOT, "name": "x",
                 "dropped_attributes_count": 3, "trace_state": "a=b"})
    assert [(span.trace_id, span.name) for span in decode_json(data).spans] == [(TRACE, "x")]


# --- numbers as JSON writes them -------------------------------------------------------------------------


@pytest.mark.parametrize(("written", "read"), [
    ("1700000000000000001", 1700000000000000001), (1700000000000000001, 1700000000000000001),
    ("18446744073709551615", 2**64 - 1),  # the largest uint64, as a string
    ("1e3", 1000), ("1.0", 1), ("12.50e1", 125), (5.0, 5),  # whole, however written
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
