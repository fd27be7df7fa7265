"""Inflating bodies within their limits, shared by both receivers (ragmon.otlp.inflate)."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

from ragmon.otlp.inflate import MAX_GZIP_MEMBERS, Inflater, NoRoom, TooLarge, sniff, take
from ragmon.otlp.limits import BodyBudget

EMPTY_MEMBER = gzip.compress(b"", mtime=0)


@pytest.fixture
def streams_started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many zlib streams the receiver starts: one per gzip member it inflates."""
    started: list[int] = []
    real = zlib.decompressobj

    def counting(wbits: int) -> Any:
        started.append(wbits)
        return real(wbits)

    monkeypatch.setattr(zlib, "decompressobj", counting)
    yield started


def test_the_work_on_a_body_of_empty_members_stops_at_the_cap(streams_started):
    # 100,000 members in one chunk: each once started a stream and copied the rest of the chunk, 2 GB
    # of copying for these 2 MB. Now the members past the cap are never reached.
    inflater = Inflater("gzip")
    with pytest.raises(zlib.error, match="more than 4 gzip members"):
        inflater.feed(EMPTY_MEMBER * 100_000, 1 << 20)
    assert len(streams_started) == MAX_GZIP_MEMBERS


def test_inflating_stops_just_past_the_room_left():
    # 10 MB of zeros is ~10 KB of gzip: asked for at most 1,000 bytes, the inflater gives 1,001 (enough to
    # tell the body is over), not 10 MB.
    inflater = Inflater("gzip")
    assert len(inflater.feed(gzip.compress(b"\0" * 10_000_000), 1000)) == 1001


def test_take_holds_each_piece_in_the_budget_and_refuses_what_is_over():
    budget = BodyBudget(100)
    body = bytearray()
    with budget.claim() as claim:
        take(body, b"a" * 60, 80, claim, "body")
        assert (bytes(body), budget.held) == (b"a" * 60, 60)
        with pytest.raises(TooLarge, match=r"^body$"):
            take(body, b"b" * 21, 80, claim, "body")   # 81 > 80: over the limit, nothing taken
        other = budget.claim()
        other.grow(30)
        with pytest.raises(NoRoom):
            take(body, b"b" * 20, 80, claim, "body")   # 60 + 30 + 20 > 100: no room in the budget
        assert (len(body), budget.held) == (60, 90)
    assert budget.held == 30


def otlp_request() -> bytes:
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans()]).SerializeToString()


def test_a_message_tells_how_it_was_compressed():
    request = otlp_request()
    assert request[0] == 0x0A   # field 1, length-delimited: how every OTLP request starts
    assert sniff(request) == ""
    assert sniff(b"") == ""
    assert sniff(gzip.compress(request)) == "gzip"
    assert sniff(zlib.compress(request)) == "deflate"     # 78 9c, as gRPC's deflate sends it
    assert sniff(zlib.compress(request, 1)) == "deflate"  # 78 01
    assert sniff(zlib.compress(request, 9)) == "deflate"  # 78 da
    # 0x78 with a second byte that fails zlib's header check is no deflate stream.
    assert sniff(b"\x78\x00") == ""
