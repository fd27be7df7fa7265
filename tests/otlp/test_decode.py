"""OTLP protobuf and OTLP/JSON decoding into ragmon Spans."""

from __future__ import annotations

import json
import math

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from ragmon.otlp.decode import (
    MAX_ERRORS,
    MAX_VALUES,
    DecodeError,
    TooManyValues,
    decode_json,
    decode_protobuf,
)
from ragmon.traces import Span, SpanEvent

TRACE = "5b8efff798038103d269b633813fc60c"
ROOT = "eee19b7ec3c1b174"
CHILD = "eee19b7ec3c1b173"
IN_HEX = "(OTLP/JSON writes ids in hex, not base64)"


def test_protobuf_from_the_sdk_encoder_keeps_ids_attributes_events_resource(sdk_spans, ids_of):
    batch = decode_protobuf(encode_spans(sdk_spans).SerializeToString())

    assert batch.rejected == 0 and batch.errors == ()
    by_name = {span.name: span for span in batch.spans}
    assert sorted(by_name) == ["POST /ask", "llm", "retrieve"]
    for sdk_span in sdk_spans:
        span = by_name[sdk_span.name]
        assert {"trace_id": span.trace_id, "span_id": span.span_id,
                "parent_span_id": span.parent_span_id} == ids_of(sdk_span)
        assert span.start_time_unix_nano == sdk_span.start_time
        assert span.end_time_unix_nano == sdk_span.end_time
        assert span.resource["service.name"] == "rag-demo"
        assert span.resource["deployment.environment"] == "test"
        assert span.scope_name == "ragmon.tests"
    assert by_name["POST /ask"].parent_span_id is None
    assert by_name["POST /ask"].kind == 2  # SERVER
    assert by_name["llm"].kind == 3 and by_name["llm"].status_code == 2  # CLIENT, ERROR
    retrieve = by_name["retrieve"]
    assert retrieve.kind == 1  # INTERNAL
    assert retrieve.attributes["retrieval.documents.1.document.content"] == "The Seine flows through Paris."
    assert retrieve.attributes["retrieval.documents.0.document.score"] == 0.91
    assert retrieve.attributes["tags"] == ["a", "b"]
    assert retrieve.attributes["top_k"] == 2 and retrieve.attributes["reranked"] is False
    sdk_event = next(s for s in sdk_spans if s.name == "retrieve").events[0]
    assert retrieve.events == (
        SpanEvent("db.query.result", sdk_event.timestamp, {"id": "doc-1", "score": 0.91}),)


def test_json_and_protobuf_give_identical_batches(sdk_spans, otlp_json):
    request = encode_spans(sdk_spans)
    from_protobuf = decode_protobuf(request.SerializeToString())
    assert decode_json(otlp_json(request)) == from_protobuf
    assert decode_json(otlp_json(request, upper_ids=True)) == from_protobuf  # hex ids are case-insensitive


def test_the_remote_parent_flag_is_read_from_both_encodings():
    # Flags 0x100 say "the sender knows", 0x200 "the parent is remote"; no 0x100 means unknown.
    body = _json_body(_json_span(spanId=ROOT, parentSpanId=CHILD, flags=0x300),
                      _json_span(spanId=CHILD, parentSpanId=ROOT, flags="256"),
                      _json_span(spanId="eee19b7ec3c1b172"))
    assert [s.parent_is_remote for s in decode_json(body).spans] == [True, False, None]
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[
        PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="r",
               parent_span_id=bytes.fromhex(CHILD), flags=0x301)])])])
    assert decode_protobuf(request.SerializeToString()).spans[0].parent_is_remote is True


def _kv(key: str, value: AnyValue) -> KeyValue:
    return KeyValue(key=key, value=value)


def test_every_anyvalue_type_decodes_alike_from_both_encodings(otlp_json):
    # Built by hand so every AnyValue branch appears, nested; 2**62 checks int64 survives JSON as a string.
    values = AnyValue(kvlist_value=KeyValueList(values=[
        _kv("bytes", AnyValue(bytes_value=b"\x00\xffrag")),
        _kv("list", AnyValue(array_value=ArrayValue(values=[
            AnyValue(int_value=2**62), AnyValue(double_value=-0.5), AnyValue(bool_value=True),
            AnyValue(string_value="x"), AnyValue()]))),
    ]))
    span = PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="s", kind=5,
                  attributes=[_kv("nested", values)])
    request = ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[span])])])

    from_protobuf = decode_protobuf(request.SerializeToString())
    assert from_protobuf.spans[0].attributes == {
        "nested": {"bytes": b"\x00\xffrag", "list": [2**62, -0.5, True, "x", None]}}
    assert decode_json(otlp_json(request)) == from_protobuf


def test_an_empty_attribute_key_reads_alike_from_both_encodings(otlp_json):
    # proto3 JSON leaves out a field at its default, so protobuf's own encoder writes a KeyValue whose key
    # is "" with no "key" at all; both doors must read it as the key "" (which no convention reads).
    span = PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="s",
                  attributes=[_kv("", AnyValue(string_value="x")), _kv("k", AnyValue(int_value=1))])
    request = ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[span])])])
    body = otlp_json(request)
    assert json.loads(body)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][0] == {
        "value": {"stringValue": "x"}}
    from_protobuf = decode_protobuf(request.SerializeToString())
    assert from_protobuf.spans[0].attributes == {"": "x", "k": 1}
    assert decode_json(body) == from_protobuf


def _json_span(**fields: object) -> dict[str, object]:
    return {"traceId": TRACE, "spanId": ROOT, "name": "root", **fields}


def _json_body(*spans: dict[str, object], **top: object) -> bytes:
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "svc"}}]},
        "scopeSpans": [{"scope": {"name": "lib", "version": "1"}, "spans": list(spans)}]}], **top}).encode()


def test_a_lone_surrogate_escape_becomes_the_replacement_character_and_a_pair_stays():
    # "\ud800" alone is valid JSON but no character (UTF-8 cannot encode it); "\ud83d\ude00" is one
    # character, U+1F600.
    body = _json_body(_json_span(attributes=[
        {"key": "ragmon.pipeline", "value": {"stringValue": "faq\ud800"}},
        {"key": "output.value", "value": {"stringValue": "ok \ud83d\ude00"}}]))
    assert b"\\ud800" in body  # json.dumps escaped it, as a sender's encoder would
    (span,) = decode_json(body).spans
    assert span.attributes == {"ragmon.pipeline": "faq\ufffd", "output.value": "ok \U0001f600"}
    assert all(value.encode("utf-8") for value in span.attributes.values())
    # The same surrogate as raw UTF-8-style bytes (ED A0 80), which json.loads also lets through.
    raw = body.replace(b"\\ud800", b"\xed\xa0\x80")
    assert decode_json(raw).spans == (span,)


def test_json_quirks_int64_as_number_or_string_enum_names_base64_variants_unknown_fields():
    body = _json_body(
        _json_span(kind="SPAN_KIND_SERVER", startTimeUnixNano=1700000000000000001,
                   endTimeUnixNano="1700000000000000002", status={"code": 2, "message": "boom"},
                   droppedAttributesCount=0, someFutureField={"x": 1},
                   attributes=[
                       {"key": "n", "value": {"intValue": 7}},
                       {"key": "s", "value": {"intValue": "-7"}},
                       {"key": "d", "value": {"doubleValue": "Infinity"}},
                       {"key": "i", "value": {"doubleValue": 3}},
                       {"key": "b64", "value": {"bytesValue": "AP8="}},
                       {"key": "b64url", "value": {"bytesValue": "AP8"}},  # '_'/'-' alphabet, no padding
                       {"key": "empty", "value": {}},
                       {"key": "future", "value": {"futureValue": 1, "stringValue": "kept"}},
                   ],
                   events=[{"timeUnixNano": "5", "name": "e", "attributes": [
                       {"key": "k", "value": {"boolValue": False}}]}]),
        unknownTopLevel=True)

    batch = decode_json(body)

    assert batch.spans == (Span(
        trace_id=TRACE, span_id=ROOT, parent_span_id=None, name="root",
        start_time_unix_nano=1700000000000000001, end_time_unix_nano=1700000000000000002, kind=2,
        attributes={"n": 7, "s": -7, "d": math.inf, "i": 3.0, "b64": b"\x00\xff", "b64url": b"\x00\xff",
                    "empty": None, "future": "kept"},
        events=(SpanEvent("e", 5, {"k": False}),), resource={"service.name": "svc"}, status_code=2,
        scope_name="lib"),)


@pytest.mark.parametrize(("trace_id", "span_id", "parent", "problem"), [
    ("", ROOT, "", "traceId is empty"),
    (TRACE[:30], ROOT, "", "traceId is not 32 hex digits"),
    ("0" * 32, ROOT, "", "traceId is all zeros"),
    (TRACE, "", "", "spanId is empty"),
    (TRACE, "0" * 16, "", "spanId is all zeros"),
    (TRACE, ROOT, "abcd", "parentSpanId is not 16 hex digits"),
])
def test_a_span_with_unusable_ids_is_rejected_alone_in_both_encodings(trace_id, span_id, parent, problem):
    good = _json_span(spanId=CHILD, parentSpanId=ROOT, name="good")
    bad = _json_span(traceId=trace_id, spanId=span_id, parentSpanId=parent, name="bad")
    json_batch = decode_json(_json_body(good, bad))

    pb_bad = PbSpan(trace_id=bytes.fromhex(trace_id), span_id=bytes.fromhex(span_id),
                    parent_span_id=bytes.fromhex(parent), name="bad")
    pb_good = PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(CHILD),
                     parent_span_id=bytes.fromhex(ROOT), name="good")
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource={"attributes": [_kv("service.name", AnyValue(string_value="svc"))]},
        scope_spans=[ScopeSpans(scope={"name": "lib"}, spans=[pb_good, pb_bad])])])
    pb_batch = decode_protobuf(request.SerializeToString())

    assert json_batch == pb_batch
    assert [span.name for span in json_batch.spans] == ["good"]
    assert json_batch.rejected == 1
    assert json_batch.errors == (f"resourceSpans[0].scopeSpans[0].spans[1] 'bad': {problem}",)


def test_json_ids_that_are_not_hex_are_rejected_and_an_all_zero_parent_means_root():
    batch = decode_json(_json_body(
        _json_span(traceId="zz" * 16, name="nothex"),
        _json_span(parentSpanId="0" * 16, name="zero-parent")))
    assert batch.errors == ("resourceSpans[0].scopeSpans[0].spans[0] 'nothex': traceId is not 32 hex digits",)
    assert [(s.name, s.parent_span_id) for s in batch.spans] == [("zero-parent", None)]


@pytest.mark.parametrize(("field", "value", "problem"), [
    # TRACE's 16 bytes and ROOT's 8 in base64, as proto3's JSON mapping writes bytes: said so.
    ("traceId", "W47/95gDgQPSabYzgT/GDA==", f"traceId is not 32 hex digits {IN_HEX}"),
    ("spanId", "7uGbfsPBsXQ=", f"spanId is not 16 hex digits {IN_HEX}"),
    ("parentSpanId", "7uGbfsPBsXQ=", f"parentSpanId is not 16 hex digits {IN_HEX}"),
    # Base64, but of 8 bytes where a trace id has 16: not taken for an id written so.
    ("traceId", "7uGbfsPBsXQ=", "traceId is not 32 hex digits"),
])
def test_json_ids_in_base64_are_rejected_saying_otlp_json_writes_them_in_hex(field, value, problem):
    batch = decode_json(_json_body(_json_span(**{"spanId": CHILD, "parentSpanId": ROOT, field: value,
                                                 "name": "b64"})))
    assert batch.errors == (f"resourceSpans[0].scopeSpans[0].spans[0] 'b64': {problem}",)


def test_rejections_beyond_the_message_cap_are_still_counted():
    spans = [_json_span(spanId="", name=f"s{n}") for n in range(MAX_ERRORS + 5)]
    batch = decode_json(_json_body(*spans))
    assert batch.rejected == MAX_ERRORS + 5 and len(batch.errors) == MAX_ERRORS
    assert batch.rejection_message().endswith("; and 5 more")


@pytest.mark.parametrize(("body", "message"), [
    (b"{nope", "not valid JSON"),
    (b"[]", "body: not a JSON object"),
    (b'{"resourceSpans": {}}', "resourceSpans: not a list"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}',
     "resourceSpans[0].scopeSpans[0].spans[0]: not a JSON object"),
    (_json_body(_json_span(traceId=12)), "resourceSpans[0].scopeSpans[0].spans[0].traceId: not a hex string"),
    (_json_body(_json_span(name=["x"])), "resourceSpans[0].scopeSpans[0].spans[0].name: not a string"),
    (_json_body(_json_span(startTimeUnixNano="soon")),
     "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: not an integer: 'soon'"),
    (_json_body(_json_span(attributes={"k": "v"})),
     "resourceSpans[0].scopeSpans[0].spans[0].attributes: not a list"),
    (_json_body(_json_span(attributes=[
        {"key": "k", "value": {"arrayValue": {"values": [{"intValue": 1.5}]}}}])),
     "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.arrayValue.values[0].intValue: "
     "not an integer: 1.5"),
    (_json_body(_json_span(events=[{"name": "e", "attributes": [{"key": 7, "value": {}}]}])),
     "resourceSpans[0].scopeSpans[0].spans[0].events[0].attributes[0]: not a {key, value} object"),
    (_json_body(_json_span(attributes=[{"key": "k", "value": {"bytesValue": "***"}}])),
     "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.bytesValue: not valid base64"),
    (b'{"resourceSpans": [{"resource": {"attributes": [{"key": "a", "value": {"boolValue": "yes"}}]}}]}',
     "resourceSpans[0].resource.attributes[0].value.boolValue: not true or false"),
    # Keys that would be ignored as unknown, silently losing every span under them: the pre-0.19
    # instrumentationLibrarySpans, under either name.
    (b'{"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": []}]}]}',
     "resourceSpans[0].instrumentationLibrarySpans: replaced by scopeSpans in OTLP 0.19 (2022): "
     "upgrade the exporter"),
    (b'{"resource_spans": [{"instrumentation_library_spans": [{"spans": []}]}]}',
     "resourceSpans[0].instrumentation_library_spans: replaced by scopeSpans in OTLP 0.19 (2022): "
     "upgrade the exporter"),
    (b'{"resource_spans": {"scope_spans": []}}', "resource_spans: not a list"),
])
def test_json_that_cannot_be_read_raises_naming_the_field(body, message):
    with pytest.raises(DecodeError) as error:
        decode_json(body)
    assert message in str(error.value)


def test_bytes_that_are_not_protobuf_raise():
    # 0x0a is field 1 (resource_spans), length-delimited, claiming 100 bytes that are not there.
    with pytest.raises(DecodeError, match="not a valid protobuf ExportTraceServiceRequest"):
        decode_protobuf(b"\x0a\x64\x01\x02")


def _nested_array_attribute(depth: int) -> bytes:
    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="deep")
    value = span.attributes.add(key="k").value
    for _ in range(depth):
        value = value.array_value.values.add()
    value.string_value = "x"
    return request.SerializeToString()


def test_values_nested_past_the_protobuf_decoders_depth_are_refused_saying_so():
    # Request, resource spans, scope spans, span, key-value: 5 messages; then 2 a level (AnyValue, ArrayValue)
    # and the innermost AnyValue: 5 + 2 x 47 + 1 = 100, the decoder's limit, and 48 levels are 102.
    (span,) = decode_protobuf(_nested_array_attribute(47)).spans
    assert span.name == "deep"
    with pytest.raises(DecodeError) as error:
        decode_protobuf(_nested_array_attribute(48))
    assert str(error.value) == (
        "not a valid protobuf ExportTraceServiceRequest (values nested too deep: protobuf decoding stops at "
        "100 nested messages, which an attribute value of arrays within arrays reaches at 48 levels, of "
        "key-value lists sooner; flatten it)")


def _nested_json_attribute(arrays: int, kvlists: int) -> bytes:
    """A span whose attribute holds `arrays` arrays of one item, then `kvlists` key-value lists of one."""
    value = ('{"kvlistValue":{"values":[{"key":"k","value":' * kvlists + '{"stringValue":"x"}'
             + "}]}}" * kvlists)
    value = '{"arrayValue":{"values":[' * arrays + value + "]}}" * arrays
    span = (f'{{"traceId":"{TRACE}","spanId":"{ROOT}","name":"deep",'
            f'"attributes":[{{"key":"k","value":{value}}}]}}')
    return ('{"resourceSpans":[{"scopeSpans":[{"spans":[' + span + "]}]}]}").encode()


@pytest.mark.parametrize(("arrays", "kvlists"), [(128, 0), (0, 128), (64, 64)])
def test_json_values_nested_past_128_levels_are_refused_naming_the_attribute(arrays: int, kvlists: int):
    # The JSON door takes far deeper nesting than the protobuf one's 48 levels, up to 128 on every Python:
    # it had been bounded by the recursion limit alone, which Python 3.12 no longer spends in json's
    # parser, so 3.12 took ~500 levels, which the buffer's accounting then could not size.
    (span,) = decode_json(_nested_json_attribute(arrays, kvlists)).spans
    assert span.name == "deep"
    with pytest.raises(DecodeError) as error:
        decode_json(_nested_json_attribute(arrays + 1, kvlists))
    assert str(error.value) == ("resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value: arrays and "
                                "key-value lists nested more than 128 levels deep: flatten it")


def test_empty_bodies_are_empty_requests():
    assert decode_protobuf(b"") == decode_json(b"") == decode_json(b"{}")
    assert decode_json(b"{}").spans == () and decode_json(b"{}").rejected == 0


# --- how many values a request may hold ---------------------------------------------------------------


def spans_of_five_attributes(count: int) -> bytes:
    spans = [PbSpan(trace_id=bytes.fromhex(TRACE), span_id=(n + 1).to_bytes(8, "big"), name=f"s{n}",
                    attributes=[KeyValue(key=f"k{a}", value=AnyValue(string_value="v")) for a in range(5)])
             for n in range(count)]
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        scope_spans=[ScopeSpans(spans=spans)])]).SerializeToString()


def test_a_request_holding_more_values_than_the_limit_is_refused_before_it_is_decoded():
    body = spans_of_five_attributes(100)
    # In quarters (ragmon.otlp.values): request, resource spans and scope spans 4 each; a span 4, its
    # trace id and span id 4 each (bytes), its name 1, 5 attributes of 10 (key-value 4, key 1, value 4,
    # text 1): 63. 12 + 6,300 = 6,312 quarters: 1,578 values.
    assert len(decode_protobuf(body, 1578).spans) == 100
    with pytest.raises(TooManyValues) as error:
        decode_protobuf(body, 1577)
    assert str(error.value) == ("the request holds more than 1577 values (spans, their ids, events, links, "
                                "attributes, their values; 4 other fields count as one; --max-values): send "
                                "smaller batches")


def test_a_flood_of_empty_events_in_one_span_is_refused_before_it_is_parsed():
    span = PbSpan(trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(ROOT), name="flood")
    flood = span.SerializeToString() + b"\x5a\x00" * 100_000   # events (field 11), each empty
    body = ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        scope_spans=[ScopeSpans(spans=[PbSpan.FromString(flood)])])]).SerializeToString()
    with pytest.raises(TooManyValues, match="more than 1000 values"):
        decode_protobuf(body, 1000)
    # request, resource spans, scope spans, span: 16 quarters; its ids 8, its name 1; events 400,000
    assert len(decode_protobuf(body, 100_007).spans[0].events) == 100_000
    with pytest.raises(TooManyValues):
        decode_protobuf(body, 100_006)


def test_json_counts_each_object_array_and_value_after_a_comma():
    events = ",".join(["{}"] * 1000)
    body = (f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"{TRACE}","spanId":"{ROOT}",'
            f'"events":[{events}]}}]}}]}}]}}').encode()
    # objects: request, resource spans, scope spans, span and 1,000 events; arrays: 4; commas: 2 between
    # the span's fields and 999 between events; 2 for the span's ids
    assert len(decode_json(body, 2011).spans[0].events) == 1000
    with pytest.raises(TooManyValues) as error:
        decode_json(body, 2010)
    assert str(error.value) == ("the request holds more than 2010 values (JSON objects, arrays, values after "
                                "a comma, 2 for a span's ids; --max-values): send smaller batches")


def test_a_json_span_counts_its_ids_however_its_keys_are_written():
    spans = ",".join(f'{{"traceId":"{TRACE}","span\\u0049d":"{n + 1:016x}"}}' for n in range(10))
    body = f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{spans}]}}]}}]}}'.encode()
    # objects: request, resource spans, scope spans, 10 spans; arrays: 3; commas: 1 in each span and 9
    # between them; 2 for each span's ids: 13 + 3 + 19 + 20 = 55
    assert len(decode_json(body, 55).spans) == 10
    with pytest.raises(TooManyValues):
        decode_json(body, 54)


def test_a_json_span_counts_its_ids_under_their_proto_field_names():
    spans = ",".join(f'{{"trace_id":"{TRACE}","span_id":"{n + 1:016x}"}}' for n in range(10))
    body = f'{{"resource_spans":[{{"scope_spans":[{{"spans":[{spans}]}}]}}]}}'.encode()
    # as above: 13 objects, 3 arrays, 19 commas, 2 for each of the 10 spans' ids: 55
    assert len(decode_json(body, 55).spans) == 10
    with pytest.raises(TooManyValues):
        decode_json(body, 54)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_json_in_another_encoding_than_utf8_is_refused_naming_it(encoding):
    # json.loads reads them, but the value count, which finds strings by their quotes, could not
    body = _json_body(_json_span()).decode().encode(encoding)
    with pytest.raises(DecodeError) as error:
        decode_json(body)
    assert str(error.value) == f"OTLP/JSON is UTF-8; this body is {encoding.upper()}"


@pytest.mark.parametrize("body", [b"\n\x00\n\x02\x08\x01", b"\n\x00"])
def test_protobuf_whose_second_byte_is_zero_is_not_taken_for_utf16(body):
    # An empty ResourceSpans first (tag 0a, length 0): json.detect_encoding sees a zero second byte and
    # said UTF-16-LE, though in UTF-16-LE 0a 00 is a newline and 0a 02 no character a JSON text starts with.
    with pytest.raises(DecodeError) as error:
        decode_json(body)
    assert str(error.value) == "not valid JSON: byte 1 is zero, which no UTF-8 JSON text holds"


@pytest.mark.parametrize(("text", "encoding", "named"), [
    ('\r\n\t [{"a": 1}]', "utf-16-le", "UTF-16-LE"), ("\n 1", "utf-32-be", "UTF-32-BE"),
    ("{}", "utf-16", "UTF-16"), ("{}", "utf-32", "UTF-32")])
def test_json_in_utf16_or_utf32_is_named_after_whitespace_or_by_its_byte_order_mark(text, encoding, named):
    with pytest.raises(DecodeError) as error:
        decode_json(text.encode(encoding))
    assert str(error.value) == f"OTLP/JSON is UTF-8; this body is {named}"


def test_a_field_number_protobuf_does_not_allow_is_refused():
    # field 2^29 (one past the largest), a varint; then empty resource spans. Not read at the default
    # limit; read at 12 (1 + 26 bytes x 2 / 4 could be over it) and within it (4 + 1 + 10 x 4 quarters):
    # upb refuses it either way.
    body = bytes([0x80, 0x80, 0x80, 0x80, 0x20, 0x01]) + b"\x0a\x00" * 10
    for max_values in (MAX_VALUES, 12):
        with pytest.raises(DecodeError, match="not a valid protobuf ExportTraceServiceRequest"):
            decode_protobuf(body, max_values)
