"""The Assembler's byte budget: what buffered spans hold in memory is bounded, not only their count.

Sizes are reasoned from CPython's object layout (PEP 393 strings: 1 byte a character when all are ASCII,
4 when one is outside the Basic Multilingual Plane, plus a header under 100 bytes). A span whose only
large part is a string of N characters therefore holds between N and N + 4 KiB: the Span object, its
ids and name, its place in the trace and the trace's own objects are each well under 1 KiB.
"""

from __future__ import annotations

import tracemalloc
from collections import Counter

import pytest
from manual_clock import ManualClock

from ragmon.traces import Assembler, Decided, Span, SpanEvent

KiB, MiB = 2**10, 2**20
SLACK = 4 * KiB
"""Everything a span with one big string holds besides that string (see the module docstring)."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def doc_span(trace: str, span_id: str, chars: int, value: str | None = None) -> Span:
    """A span whose parent never arrives (so only decision_wait decides its trace), carrying one string
    attribute of `chars` ASCII characters unless given `value`; the ids repeat one hex digit, as in
    test_traces.py."""
    value = "x" * chars if value is None else value
    return Span(trace_id=trace * 32, span_id=span_id * 16, parent_span_id="f" * 16, name=f"{trace}/{span_id}",
                attributes={"document": value})


def names(decided: list[Decided]) -> list[tuple[list[str], str]]:
    return [([s.name for s in d.trace.spans], d.reason) for d in decided]


def test_over_the_budget_the_oldest_trace_is_evicted(clock):
    # 2.5 MiB holds two spans of 1 MiB (2 MiB + 2 x 4 KiB at most), not three: the third evicts the
    # oldest trace only, as the two left then hold 2 MiB + at most 8 KiB again.
    assembler = Assembler(max_bytes=5 * MiB // 2, clock=clock)
    assert assembler.add(doc_span("a", "1", MiB)) == "accepted"
    assert assembler.add(doc_span("b", "1", MiB)) == "accepted"
    assert assembler.pop_decided() == []
    assert assembler.add(doc_span("c", "1", MiB)) == "accepted"

    assert names(assembler.pop_decided()) == [(["a/1"], "evicted")]
    assert assembler.in_flight == 2
    assert 2 * MiB <= assembler.buffered_bytes <= 2 * (MiB + SLACK)


def test_room_is_never_made_by_evicting_the_spans_own_trace(clock):
    # a is the oldest, but the span is a's: b goes, and a keeps both its spans (2 MiB + 8 KiB fits).
    assembler = Assembler(max_bytes=5 * MiB // 2, clock=clock)
    assembler.add(doc_span("a", "1", MiB))
    assembler.add(doc_span("b", "1", MiB))
    assert assembler.add(doc_span("a", "2", MiB)) == "accepted"

    assert names(assembler.pop_decided()) == [(["b/1"], "evicted")]
    assert names(assembler.drain()) == [(["a/1", "a/2"], "drain")]


def test_a_span_its_trace_cannot_hold_within_the_budget_is_refused(clock):
    # 1.5 MiB: a's first span (1 MiB) fits, its second would make 2 MiB; a new trace of 2 MiB never
    # fits. Both are refused without evicting anything, and a keeps the span it has. b, of which nothing
    # was taken, holds no bytes and no place in the buffer, but it is a trace all the same: the drain
    # hands it on too, with no spans and its 1 lost, for the sidecar to count it (an `error`).
    assembler = Assembler(max_bytes=3 * MiB // 2, clock=clock)
    assert assembler.add(doc_span("a", "1", MiB)) == "accepted"
    held = assembler.buffered_bytes
    assert assembler.add(doc_span("a", "2", MiB)) == "too_many_bytes"
    assert assembler.add(doc_span("b", "1", 2 * MiB)) == "too_many_bytes"

    assert assembler.buffered_bytes == held and assembler.in_flight == 1
    assert assembler.pop_decided() == []
    drained = assembler.drain()
    assert names(drained) == [(["a/1"], "drain"), ([], "refused")]
    assert [(d.trace.trace_id[0], d.trace.spans_lost) for d in drained] == [("a", 1), ("b", 1)]


def test_a_string_is_counted_at_its_width_in_memory_not_its_length(clock):
    # 1 Mi characters: ASCII holds ~1 MiB; with one emoji (U+1F600, outside the BMP) every character
    # takes 4 bytes, ~4 MiB (1 MiB + 3 bytes on the wire as UTF-8), which a 3 MiB budget cannot hold.
    assembler = Assembler(max_bytes=3 * MiB, clock=clock)
    assert assembler.add(doc_span("a", "1", MiB)) == "accepted"
    assert assembler.add(doc_span("b", "1", MiB, "\N{GRINNING FACE}" + "x" * (MiB - 1))) == "too_many_bytes"


def test_span_events_are_counted_at_what_they_hold_not_their_wire_size(clock):
    # 100,000 empty events are 200 kB of protobuf (2 bytes each) but each is an object of its own here:
    # at least a tuple slot (8 bytes) and a 16-byte header with three fields (24), so over 4.8 MB, which
    # a 1 MB budget (five times the wire size) cannot hold. The same span without events fits (another
    # span id: under the refused span's own id it would be that span sent again, a duplicate).
    assembler = Assembler(max_bytes=1_000_000, clock=clock)
    events = tuple(SpanEvent("", 0, {}) for _ in range(100_000))
    with_events = Span("a" * 32, "1" * 16, None, "with events", events=events)
    assert assembler.add(with_events) == "too_many_bytes"
    assert assembler.add(Span("a" * 32, "2" * 16, None, "without")) == "accepted"


def test_every_trace_is_decided_once_and_the_budget_always_holds(clock):
    # Spans of 99,999 characters: 9 fit in 1 MB (9 x (99,999 + 4 KiB) = 937 kB), 10 do not.
    # First 10 traces of 3 spans, each left to time out (decision_wait 5 s), then 40 more all at once:
    # the first span of each evicts the trace 3 back (9 spans held + 1), so 37 are evicted and the last
    # 3 (9 spans) are left for the drain. Each trace comes out once, and the budget holds after every span.
    assembler = Assembler(decision_wait=5.0, max_bytes=1_000_000, clock=clock)
    decided: list[Decided] = []
    for t in range(50):
        clock.now = 10.0 * min(t, 10)
        for s in range(3):
            span = Span(f"{t + 1:032x}", f"{s + 1:016x}", "f" * 16, f"{t}/{s}",
                        attributes={"document": f"{t:09d}" * 11_111})
            assert assembler.add(span) == "accepted"
            assert assembler.buffered_bytes <= 1_000_000
        decided += assembler.pop_decided(clock.now + 5.0 if t < 10 else clock.now)
    decided += assembler.drain()

    assert sorted(d.trace.trace_id for d in decided) == [f"{t + 1:032x}" for t in range(50)]
    assert all(len(d.trace.spans) == 3 for d in decided)
    assert Counter(d.reason for d in decided) == {"timeout": 10, "evicted": 37, "drain": 3}
    assert assembler.buffered_bytes == 0


def test_memory_held_follows_the_budget_not_the_count_limits(clock):
    # Within every count limit (one trace of 50 spans, 100 traces, far under max_traces=20,000 and
    # max_spans_per_trace=1,000), 100 x 50 x 20 kB = 100 MB pass through; what the assembler still holds
    # once the evicted traces are collected is the 4 MB budget, plus the bookkeeping of up to 100 decided
    # ids and a few heap entries, well under 1 MB more. Without the budget it would be all 100 MB.
    assembler = Assembler(max_bytes=4_000_000, clock=clock)
    tracemalloc.start()
    try:
        for t in range(100):
            for s in range(50):
                attributes = {"document": f"{t:04d}{s:04d}" * 2_500}
                assert assembler.add(Span(f"{t + 1:032x}", f"{s + 1:016x}", "f" * 16, "s",
                                          attributes=attributes)) == "accepted"
            assembler.pop_decided()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 5_000_000


def test_a_trace_whose_first_span_was_too_large_says_it_lost_it(clock):
    # The retriever's span (1 MiB of documents) ends first, so its exporter sends it before the rest; a
    # 1.5 MiB budget holds it, but not the 2 MiB one of trace a, which is refused before a is buffered.
    # a's root, arriving later, opens it: a lost 1 span, whatever came first. b, whose first span fits
    # (another trace), lost none. Decided 2 s (quiet) after the root at 1.0.
    assembler = Assembler(quiet=2.0, max_bytes=3 * MiB // 2, clock=clock)
    assert assembler.add(doc_span("a", "2", 2 * MiB)) == "too_many_bytes"
    assert assembler.add(doc_span("b", "2", MiB)) == "accepted"
    clock.now = 1.0
    assert assembler.add(Span("a" * 32, "f" * 16, None, "a/root")) == "accepted"
    assert assembler.add(Span("b" * 32, "f" * 16, None, "b/root")) == "accepted"

    decided = assembler.pop_decided(3.0)
    assert [(d.trace.trace_id[0], len(d.trace.spans), d.trace.spans_lost) for d in decided] == [
        ("a", 1, 1), ("b", 2, 0)]
