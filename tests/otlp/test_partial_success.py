"""What a sender is told of the spans of a request the receivers took but did not keep whole (OTLP's partial
success), and that each span of a request refused and retried is counted once. The sink stands in for the
sidecar, which reports the spans its assembler dropped (tests/test_service_partial_success.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import aiohttp
import grpc
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.trace import ReadableSpan

from ragmon.otlp.decode import DecodedBatch
from ragmon.otlp.sink import Dropped, partial_success
from ragmon.traces import DECIDED_BY

PROTOBUF = {"Content-Type": "application/x-protobuf"}
TOO_MANY = "the trace has ragmon's --max-spans-per-trace spans already"


async def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as session, session.post(url, data=body, headers=headers) as resp:
        return resp.status, await resp.read()


async def export(target: str, request: ExportTraceServiceRequest) -> ExportTraceServiceResponse:
    async with grpc.aio.insecure_channel(target) as channel:
        return await TraceServiceStub(channel).Export(request, timeout=10)


def with_a_bad_span(sdk_spans: Sequence[ReadableSpan]) -> tuple[ExportTraceServiceRequest, str]:
    """The SDK's three spans, the first without a span id; and what the decoder says of it."""
    request = encode_spans(sdk_spans)
    bad = request.resource_spans[0].scope_spans[0].spans[0]
    bad.span_id = b""
    return request, f"resourceSpans[0].scopeSpans[0].spans[0] {bad.name!r}: spanId is empty"


async def test_spans_dropped_after_decoding_are_a_partial_success_in_protobuf(http_receiver, sink, sdk_spans):
    # 3 spans, 1 of them invalid: 2 taken, of which the sink lost 1 as too_many_spans and 1 as late.
    # Rejected: 1 + 1 + 1 = 3, each reason with its count.
    url = await http_receiver()
    sink.dropped, sink.late_by = {"too_many_spans": 1, "late": 1}, {"quiet": 1}
    request, bad = with_a_bad_span(sdk_spans)
    status, body = await post(url, request.SerializeToString(), PROTOBUF)

    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert status == 200 and partial.rejected_spans == 3
    # The one rule that decided the late span's trace, and its setting: not --decision-wait as well.
    assert partial.error_message == f"{bad}; 1 span dropped as too_many_spans ({TOO_MANY}); " \
                                    "1 span dropped as late (sent after the trace was decided by quiet: " \
                                    "ragmon's --quiet sets how long a trace waits for more spans once its " \
                                    "root has ended)"
    assert sink.rejects == [(1, "invalid")]  # the sink counts what it dropped itself


async def test_spans_dropped_after_decoding_are_a_partial_success_in_json(http_receiver, sink, sdk_spans,
                                                                          otlp_json):
    url = await http_receiver()
    sink.dropped = {"too_many_spans": 2}
    status, body = await post(url, otlp_json(encode_spans(sdk_spans)), {"Content-Type": "application/json"})
    assert status == 200
    assert json.loads(body) == {"partialSuccess": {  # int64 is a string in OTLP/JSON
        "rejectedSpans": "2", "errorMessage": f"2 spans dropped as too_many_spans ({TOO_MANY})"}}


async def test_spans_dropped_after_decoding_are_a_partial_success_over_grpc(grpc_receiver, sink, sdk_spans):
    target = await grpc_receiver()
    sink.dropped, sink.late_by = {"late": 2}, {"decision_wait": 1, "max_traces": 1}
    request, bad = with_a_bad_span(sdk_spans)
    response = await export(target, request)
    assert response.partial_success.rejected_spans == 3
    # Two rules decided the two traces: each named with its count and its setting.
    assert response.partial_success.error_message == (
        f"{bad}; 2 spans dropped as late (sent after their traces were decided: 1 by decision_wait "
        "(--decision-wait), 1 by max_traces (--max-traces))")


async def test_invalid_spans_of_a_request_refused_and_retried_are_counted_once_over_http(http_receiver, sink,
                                                                                        sdk_spans):
    # Refused twice (back-pressure: 2 valid spans each time), taken the third time: the invalid span is
    # counted then, once, as the exporter sent it once more each time.
    url = await http_receiver()
    sink.refusals = 2
    request, _ = with_a_bad_span(sdk_spans)
    statuses = [(await post(url, request.SerializeToString(), PROTOBUF))[0] for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert sink.rejects == [(2, "backpressure"), (2, "backpressure"), (1, "invalid")]


async def test_invalid_spans_of_a_request_refused_and_retried_are_counted_once_over_grpc(grpc_receiver, sink,
                                                                                        sdk_spans):
    target = await grpc_receiver()
    sink.refusals = 2
    request, _ = with_a_bad_span(sdk_spans)
    codes = []
    for _ in range(3):
        try:
            await export(target, request)
            codes.append(grpc.StatusCode.OK)
        except grpc.aio.AioRpcError as error:
            codes.append(error.code())
    assert codes == [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.OK]
    assert sink.rejects == [(2, "backpressure"), (2, "backpressure"), (1, "invalid")]


@pytest.mark.parametrize("rule", DECIDED_BY)
def test_late_spans_of_every_rule_that_decides_a_trace_are_told_its_setting(rule: str) -> None:
    """A rule added to the assembler without its wording here would fail the receiver's answer."""
    told = partial_success(DecodedBatch((), 0, ()), Dropped({"late": 1}, {rule: 1}))
    assert told is not None and told.rejected_spans == 1
    assert f"decided by {rule}: " in told.error_message
