"""The Assembler: grouping spans into traces and deciding when each is ready, on a fake clock."""

from __future__ import annotations

import tracemalloc

import pytest
from manual_clock import ManualClock

from ragmon.traces import DECIDED_SPAN_IDS, Assembler, Decided, Span

SERVER, INTERNAL, CLIENT = 2, 1, 3


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def span(trace: str, span_id: str, parent: str | None = None, kind: int = INTERNAL,
         remote: bool | None = None) -> Span:
    """Ids repeat one hex digit: trace "a" is "aaa…a", span "1" is "111…1"."""
    return Span(trace_id=trace * 32, span_id=span_id * 16,
                parent_span_id=None if parent is None else parent * 16, name=f"{trace}/{span_id}", kind=kind,
                parent_is_remote=remote)


def names(decided: list[Decided]) -> list[tuple[list[str], str]]:
    return [([s.name for s in d.trace.spans], d.reason) for d in decided]


def add_at(assembler: Assembler, clock: ManualClock, at: float, *spans: Span) -> list[str]:
    clock.now = at
    return [assembler.add(s) for s in spans]


def test_children_first_then_root_decides_quiet_after_the_last_span(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"), span("a", "3", "2"))  # grandchild's parent came first
    add_at(assembler, clock, 0.5, span("a", "1"))

    assert assembler.pop_decided(2.49) == []  # 0.5 + 2.0 quiet is 2.5
    decided = assembler.pop_decided(2.5)
    assert names(decided) == [(["a/2", "a/3", "a/1"], "complete")]  # arrival order kept
    assert decided[0].trace.trace_id == "a" * 32
    assert assembler.in_flight == 0


def test_a_span_after_the_root_moves_the_quiet_deadline(clock):
    assembler = Assembler(quiet=2.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1"))
    add_at(assembler, clock, 1.5, span("a", "2", "1"))
    assert assembler.pop_decided(2.0) == []  # the root's own deadline has moved to 1.5 + 2.0
    assert assembler.next_deadline() == 3.5
    assert names(assembler.pop_decided(3.5)) == [(["a/1", "a/2"], "complete")]


def test_internal_spans_waiting_for_their_parent_are_not_decided_by_quiet(clock):
    # The app's exporter sends the retriever span now and the rest in a later batch: no root yet.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"))
    assert assembler.pop_decided(5.0) == []
    add_at(assembler, clock, 6.0, span("a", "1"))
    assert assembler.pop_decided(7.9) == []
    assert names(assembler.pop_decided(8.0)) == [(["a/2", "a/1"], "complete")]


def test_a_server_span_with_a_remote_parent_is_a_local_root(clock):
    # traceparent from a caller: the top span's parent "r" is never sent to us.
    assembler = Assembler(quiet=2.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"), span("a", "1", "r", kind=SERVER))
    assert names(assembler.pop_decided(2.0)) == [(["a/2", "a/1"], "complete")]


def test_an_internal_top_span_with_a_remote_parent_waits_for_decision_wait(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 1.0, span("a", "1", "r"))
    assert assembler.pop_decided(30.9) == []
    assert names(assembler.pop_decided(31.0)) == [(["a/1"], "timeout")]


def test_a_span_flagged_as_having_a_remote_parent_is_a_local_root_whatever_its_kind(clock):
    # The SDK marks spans whose parent came in a traceparent; an INTERNAL one then ends the trace on quiet.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"))
    add_at(assembler, clock, 1.0, span("a", "1", "r", remote=True))
    assert names(assembler.pop_decided(3.0)) == [(["a/2", "a/1"], "complete")]  # 1.0 + 2.0 quiet


def test_a_server_span_flagged_as_having_a_local_parent_is_not_a_root(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1", kind=SERVER, remote=False))
    assert assembler.pop_decided(29.9) == []
    assert names(assembler.pop_decided(30.0)) == [(["a/2"], "timeout")]


def test_whether_a_server_span_is_a_root_is_judged_at_decision_time(clock):
    # The SERVER span's parent turns up later, and that parent's own parent is missing (INTERNAL): no root.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1", kind=SERVER))
    add_at(assembler, clock, 1.0, span("a", "1", "0"))
    assert assembler.pop_decided(29.9) == []
    assert names(assembler.pop_decided(30.0)) == [(["a/2", "a/1"], "timeout")]


def test_a_trace_that_keeps_growing_is_decided_at_decision_wait(clock):
    assembler = Assembler(quiet=2.0, decision_wait=10.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1"))
    for second in range(1, 10):
        add_at(assembler, clock, float(second), span("a", f"{second + 1}", "1"))
        assert assembler.pop_decided() == []
    decided = assembler.pop_decided(10.0)
    assert [d.reason for d in decided] == ["timeout"] and len(decided[0].trace.spans) == 10


def test_duplicates_are_dropped(clock):
    assembler = Assembler(clock=clock)
    assert add_at(assembler, clock, 0.0, span("a", "1"), span("a", "1"), span("a", "2", "1")) == [
        "accepted", "duplicate", "accepted"]
    assert names(assembler.drain()) == [(["a/1", "a/2"], "drain")]


def test_the_oldest_trace_is_evicted_at_the_bound(clock):
    assembler = Assembler(max_traces=2, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1"))
    add_at(assembler, clock, 0.1, span("b", "1"))
    add_at(assembler, clock, 0.2, span("a", "2", "1"))  # a is still the oldest: first seen first
    add_at(assembler, clock, 0.3, span("c", "1"))

    assert assembler.in_flight == 2
    assert assembler.next_deadline() == 0.3  # an eviction is waiting to be collected
    assert names(assembler.pop_decided(0.3)) == [(["a/1", "a/2"], "evicted")]
    assert add_at(assembler, clock, 0.4, span("a", "3", "1")) == ["late"]
    assert names(assembler.pop_decided(2.3)) == [(["b/1"], "complete"), (["c/1"], "complete")]


def test_spans_over_the_per_trace_bound_are_refused(clock):
    assembler = Assembler(max_spans_per_trace=2, clock=clock)
    assert add_at(assembler, clock, 0.0, span("a", "1"), span("a", "2", "1"), span("a", "3", "1"),
                  span("a", "2", "1"), span("a", "4", "1")) == ["accepted", "accepted", "too_many_spans",
                                                               "duplicate", "too_many_spans"]
    # The trace says what it lost (3 and 4; the resent 2 is no loss), for extraction to refuse it.
    [decided] = assembler.drain()
    assert decided.trace.spans_lost == 2


def test_after_decision_a_resent_span_is_a_duplicate_and_a_span_the_trace_never_had_is_late(clock):
    # a was decided with span 1 only: 1 again is an exporter's resend (nothing lost), 2 was never in it.
    assembler = Assembler(quiet=1.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1"))
    assert len(assembler.pop_decided(1.0)) == 1
    assert add_at(assembler, clock, 1.5, span("a", "2", "1"), span("a", "1")) == ["late", "duplicate"]
    assert assembler.in_flight == 0 and assembler.pop_decided(100.0) == []


def test_after_eviction_a_resent_span_is_a_duplicate_and_a_span_the_trace_never_had_is_late(clock):
    # One trace buffered at most: b's first span evicts a, which goes on with spans 1 and 2.
    assembler = Assembler(max_traces=1, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"), span("a", "1"), span("b", "1"))
    assert names(assembler.pop_decided(0.0)) == [(["a/2", "a/1"], "evicted")]
    assert add_at(assembler, clock, 0.1, span("a", "1"), span("a", "2", "1"), span("a", "3", "1")) == [
        "duplicate", "duplicate", "late"]
    assert assembler.in_flight == 1  # b alone: no span reopened a


def test_a_decided_trace_remembers_only_its_first_span_ids(clock):
    # Spans 1 to N+1 arrive in order (ids "000…1" to "000…41" in hex for N = 64): the first N are
    # remembered, so a resend of span 1 or N is a duplicate, of span N+1 late (the conservative side).
    assembler = Assembler(quiet=1.0, clock=clock)
    ids = [f"{n:016x}" for n in range(1, DECIDED_SPAN_IDS + 2)]
    spans = [Span("a" * 32, ids[0], None, "s")] + [Span("a" * 32, i, ids[0], "s") for i in ids[1:]]
    assert add_at(assembler, clock, 0.0, *spans) == ["accepted"] * (DECIDED_SPAN_IDS + 1)
    assert len(assembler.pop_decided(1.0)[0].trace.spans) == DECIDED_SPAN_IDS + 1
    resent = [Span("a" * 32, ids[n - 1], ids[0], "s") for n in (1, DECIDED_SPAN_IDS, DECIDED_SPAN_IDS + 1)]
    assert add_at(assembler, clock, 1.5, *resent) == ["duplicate", "duplicate", "late"]


def test_a_span_id_straddling_two_remembered_ids_is_not_one_of_them(clock):
    # Each id is remembered by its lower 32 bits: these two as the 8 bytes 01 02 … 08. The 4 bytes from
    # offset 2 (03 04 05 06) are found there by a plain search but are no span the trace had: late. From
    # offset 4 (05 … 08) they are span 2.
    assembler = Assembler(quiet=1.0, clock=clock)
    first, second = "ffffffff01020304", "ffffffff05060708"
    add_at(assembler, clock, 0.0, Span("a" * 32, first, None, "s"), Span("a" * 32, second, first, "s"))
    assert len(assembler.pop_decided(1.0)) == 1
    assert add_at(assembler, clock, 1.5, Span("a" * 32, "ffffffff03040506", first, "s"),
                  Span("a" * 32, second, first, "s")) == ["late", "duplicate"]


def test_decided_trace_memory_is_bounded_to_four_times_max_traces(clock):
    assembler = Assembler(quiet=1.0, max_traces=1, clock=clock)
    for n, trace in enumerate("abcde"):  # five decided traces; the memory keeps the last 4 * 1
        add_at(assembler, clock, float(n * 10), span(trace, "1"))
        assert len(assembler.pop_decided(n * 10 + 1.0)) == 1
    # b is remembered with its span 1; a is forgotten, so its span 1 again opens a new trace, as before.
    assert add_at(assembler, clock, 60.0, span("b", "2", "1"), span("b", "1"), span("a", "1")) == [
        "late", "duplicate", "accepted"]


def test_drain_decides_everything_buffered_including_pending_evictions(clock):
    assembler = Assembler(max_traces=2, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1"), span("b", "2", "1"), span("c", "1"))
    assert names(assembler.drain()) == [(["a/1"], "evicted"), (["b/2"], "drain"), (["c/1"], "drain")]
    assert assembler.in_flight == 0 and assembler.next_deadline() is None
    assert add_at(assembler, clock, 1.0, span("b", "1"), span("b", "2", "1")) == ["late", "duplicate"]


def test_next_deadline_tracks_the_earliest_decision(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    assert assembler.next_deadline() is None
    add_at(assembler, clock, 0.0, span("a", "2", "1"))
    assert assembler.next_deadline() == 30.0  # no root: only the decision_wait deadline
    add_at(assembler, clock, 1.0, span("b", "1"))
    assert assembler.next_deadline() == 3.0  # b's root: 1.0 + quiet
    add_at(assembler, clock, 2.0, span("b", "2", "1"))
    # Possibly early (b's deadline moved to 4.0 lazily), never late; popping then finds the true one.
    assert assembler.next_deadline() in (3.0, 4.0)
    assert assembler.pop_decided(3.0) == []
    assert assembler.next_deadline() == 4.0
    assert names(assembler.pop_decided(4.0)) == [(["b/1", "b/2"], "complete")]
    assert assembler.next_deadline() == 30.0


def test_pop_decided_returns_due_traces_in_deadline_order(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "1"))  # no root: due at 30
    add_at(assembler, clock, 1.0, span("b", "1"))  # due at 3
    add_at(assembler, clock, 0.5, span("c", "1"))  # due at 2.5
    assert names(assembler.pop_decided(31.0)) == [
        (["c/1"], "complete"), (["b/1"], "complete"), (["a/2"], "timeout")]


@pytest.mark.parametrize("evict", [False, True], ids=["decided", "evicted"])
def test_a_trace_once_decided_or_evicted_holds_no_memory(clock, evict):
    # Children first, then the root: the child arms the decision_wait deadline (1000 s away) and the root
    # an earlier quiet one, so every trace leaves a superseded deadline behind for 1000 s. 5,000 traces,
    # each with a distinct 1,000-character attribute, pass through with at most two buffered at a time
    # (max_traces=1 evicts the older): kept alive, they would hold over 5,000 x 1,000 bytes = 5 MB, and
    # their 5,000 stale heap entries alone (a tuple and a _Pending, ~400 bytes each) about 2 MB;
    # released, what stays is one buffered trace, at most 4 decided ids (4 x max_traces) and a heap of
    # at most 2 x 1 + 64 entries, far under 1 MB.
    assembler = Assembler(quiet=0.001, decision_wait=1000.0, max_traces=1, clock=clock)
    tracemalloc.start()
    try:
        for n in range(5_000):
            trace = f"{n + 1:032x}"
            clock.now = n * 0.01
            child = Span(trace, "2" * 16, "1" * 16, "child", attributes={"doc": f"{n:06d}" + "w" * 994})
            assert assembler.add(child) == "accepted"
            assert assembler.add(Span(trace, "1" * 16, None, "root")) == "accepted"
            if not evict:
                assert len(assembler.pop_decided(clock.now + 0.001)) == 1
            elif n:
                assert [d.reason for d in assembler.pop_decided(clock.now)] == ["evicted"]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert assembler.in_flight == (1 if evict else 0)
    assert held < 1_000_000


def test_a_deferred_trace_waits_for_a_new_root_or_decision_wait(clock):
    # The retriever's part closes on its remote-parent root at 2.0; taken back, its old root no longer
    # decides it: the caller's part joins it (accepted, not late), and the caller's root decides it
    # quiet after the last span.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "3", "2"), span("a", "2", "c", kind=SERVER, remote=True))
    [part] = assembler.pop_decided(2.0)
    assert (part.reason, part.first_seen) == ("complete", 0.0)
    clock.now = 2.0
    assert assembler.defer(part)
    assert assembler.pop_decided(10.0) == [] and assembler.next_deadline() == 30.0
    caller = (span("a", "c", "1"), span("a", "1", "g", kind=SERVER, remote=True))
    assert add_at(assembler, clock, 10.0, *caller) == ["accepted", "accepted"]
    decided = assembler.pop_decided(12.0)
    assert names(decided) == [(["a/3", "a/2", "a/c", "a/1"], "complete")]
    # The caller's root continues a third service's call (a gateway's): taken back again, as often as
    # parts come, but only until decision_wait after the first span, 30.0, when it is decided whole or not.
    clock.now = 12.0
    assert assembler.defer(decided[0]) and assembler.next_deadline() == 30.0
    [last] = assembler.pop_decided(30.0)
    assert (last.reason, len(last.trace.spans)) == ("timeout", 4)
    clock.now = 30.0
    assert not assembler.defer(last)


def test_a_late_span_sent_again_is_a_duplicate_not_a_second_loss(clock):
    # An exporter resends a batch it got no answer for in time: a span already refused as late, sent
    # again, was counted late twice, one loss for two in the loss ratio.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "1", None))
    assert names(assembler.pop_decided(2.0)) == [(["a/1"], "complete")]
    assert add_at(assembler, clock, 3.0, span("a", "2", "1"), span("a", "3", "1")) == ["late", "late"]
    assert add_at(assembler, clock, 4.0, span("a", "2", "1"), span("a", "4", "1")) == ["duplicate", "late"]


def test_a_deferred_callers_part_waits_for_a_root_under_the_call_it_made(clock):
    # The caller's part came first: root 1 and its call c to another service, closed at 2.0. Taken back
    # waiting for c's callee, a span of the caller's under 1 (not a root) decides nothing; the callee's
    # root 2, under c, decides the trace quiet after it: at 12.0, not at decision_wait (30.0).
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "c", "1", kind=CLIENT), span("a", "1", None, kind=SERVER))
    [part] = assembler.pop_decided(2.0)
    clock.now = 2.0
    assert assembler.defer(part, frozenset({"c" * 16}))
    add_at(assembler, clock, 5.0, span("a", "9", "1"))
    assert assembler.pop_decided(9.0) == []
    callee = (span("a", "3", "2"), span("a", "2", "c", kind=SERVER, remote=True))
    assert add_at(assembler, clock, 10.0, *callee) == ["accepted", "accepted"]
    assert assembler.pop_decided(11.9) == []
    assert names(assembler.pop_decided(12.0)) == [(["a/c", "a/1", "a/9", "a/3", "a/2"], "complete")]


def test_a_deferred_trace_no_one_completes_is_decided_at_decision_wait(clock):
    assembler = Assembler(quiet=2.0, decision_wait=30.0, max_bytes=1 << 20, clock=clock)
    add_at(assembler, clock, 1.0, span("a", "2", "c", kind=SERVER, remote=True))
    held = assembler.buffered_bytes
    [part] = assembler.pop_decided(3.0)
    assert assembler.buffered_bytes == 0
    clock.now = 3.0
    assert assembler.defer(part) and assembler.buffered_bytes == held
    assert assembler.pop_decided(30.9) == []
    [timed_out] = assembler.pop_decided(31.0)
    assert names([timed_out]) == [(["a/2"], "timeout")] and assembler.buffered_bytes == 0
    # A span now is late, as for any decided trace.
    assert add_at(assembler, clock, 32.0, span("a", "9", "2")) == ["late"]


def test_a_trace_past_its_decision_wait_is_not_taken_back(clock):
    assembler = Assembler(quiet=2.0, decision_wait=3.0, clock=clock)
    add_at(assembler, clock, 0.0, span("a", "2", "c", kind=SERVER, remote=True))
    [part] = assembler.pop_decided(2.0)
    clock.now = 3.0
    assert not assembler.defer(part)
    assert assembler.in_flight == 0
