"""A protobuf request with strings that are not UTF-8 is read whole, each bad sequence as U+FFFD, as the
Collector passes such strings on: the parser refused the whole batch over one string."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ragmon.otlp import decode as decode_module
from ragmon.otlp.decode import MAX_VALUES, DecodedBatch, DecodeError, decode_off_loop, decode_protobuf
from ragmon.otlp.utf8_repair import NotRepairable, repaired

TRACE_ID = b"\xff\xfe" + bytes(range(14))  # bytes fields are not strings: never rewritten
"""Not UTF-8 either, as any random id may be."""


def request(names: list[str], value: str) -> bytes:
    """Spans named `names`, each with one string attribute, as an SDK serialises them."""
    message = ExportTraceServiceRequest()
    scope = message.resource_spans.add().scope_spans.add()
    for i, name in enumerate(names):
        span = scope.spans.add(name=name, trace_id=TRACE_ID, span_id=bytes([i + 1] * 8))
        span.attributes.add(key="output.value").value.string_value = value
    return message.SerializeToString()


def test_a_batch_with_bad_strings_keeps_every_span_with_each_bad_sequence_replaced() -> None:
    # "NAME" and "VALUE" are placeholders of the same length as what replaces them: a Go service's raw
    # bytes (0xFF 0xFE 0xFD 0xFC, no UTF-8 at all) in one span's name, and a value cut inside "é" in all.
    body = request(["ok-1", "NAME", "ok-3"], "VALUEcaf\u00e9")
    body = body.replace(b"NAME", b"\xff\xfe\xfd\xfc").replace(b"caf\xc3\xa9", b"caf\xc3!")
    batch = decode_protobuf(body)
    assert [s.name for s in batch.spans] == ["ok-1", "\ufffd" * 4, "ok-3"]
    assert {s.attributes["output.value"] for s in batch.spans} == {"VALUEcaf\ufffd!"}
    assert {s.trace_id for s in batch.spans} == {TRACE_ID.hex()} and batch.rejected == 0


def test_what_is_repaired_is_counted_and_a_valid_body_comes_back_as_it_was() -> None:
    body = request(["ok"], "fine")
    assert repaired(body, ExportTraceServiceRequest.DESCRIPTOR) == (body, 0)
    bad = request(["NAME", "NAME"], "fine").replace(b"NAME", b"\xffAME")
    fixed, count = repaired(bad, ExportTraceServiceRequest.DESCRIPTOR)
    assert count == 2
    spans = ExportTraceServiceRequest.FromString(fixed).resource_spans[0].scope_spans[0].spans
    assert [s.name for s in spans] == ["\ufffdAME", "\ufffdAME"]


def test_a_bad_string_deep_in_nested_values_is_repaired_beside_values_left_as_they_came() -> None:
    # The repair skips what the parser takes (the other spans, the other attributes), and walks into what
    # it refuses: here an array inside a key-value list inside an attribute of the second of three spans.
    message = ExportTraceServiceRequest()
    scope = message.resource_spans.add().scope_spans.add()
    for i in range(3):
        span = scope.spans.add(name=f"span-{i}", trace_id=TRACE_ID, span_id=bytes([i + 1] * 8))
        span.attributes.add(key="doc").value.string_value = "x" * 600
        nested = span.attributes.add(key="meta").value.kvlist_value.values.add(key="tags")
        nested.value.array_value.values.add().string_value = "BAD" if i == 1 else "ok"
        nested.value.array_value.values.add().int_value = 7
    body = message.SerializeToString().replace(b"BAD", b"B\xffD")
    spans = decode_protobuf(body).spans
    assert [s.attributes["meta"] for s in spans] == [{"tags": ["ok", 7]}, {"tags": ["B\ufffdD", 7]},
                                                     {"tags": ["ok", 7]}]
    assert [s.name for s in spans] == ["span-0", "span-1", "span-2"]
    assert {s.attributes["doc"] for s in spans} == {"x" * 600}


def test_a_body_that_is_no_protobuf_keeps_the_parsers_error() -> None:
    # 0x0a is field 1 (resource_spans), length-delimited, claiming 100 bytes that are not there.
    with pytest.raises(NotRepairable):
        repaired(b"\x0a\x64\x01\x02", ExportTraceServiceRequest.DESCRIPTOR)
    with pytest.raises(DecodeError, match=r"^not a valid protobuf ExportTraceServiceRequest"):
        decode_protobuf(b"\x0a\x64\x01\x02")


def test_a_receiver_repairs_off_its_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # The repair walks in Python what the parser refuses (~0.3 s for 256 KiB): on the loop, every other
    # request waited for it. A small body is decoded inline, so one to repair is sent to the decoding thread.
    threads: list[str] = []

    def recorded(body: bytes, descriptor: Any) -> tuple[bytes, int]:
        threads.append(threading.current_thread().name)
        return repaired(body, descriptor)

    monkeypatch.setattr(decode_module, "repaired", recorded)
    body = request(["NAME"], "fine").replace(b"NAME", b"\xffAME")

    async def receive() -> DecodedBatch:
        return await decode_off_loop(decode_protobuf, body, MAX_VALUES)

    batch = asyncio.run(receive())
    assert [s.name for s in batch.spans] == ["\ufffdAME"]
    assert threads and threading.main_thread().name not in threads
