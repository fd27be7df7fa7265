"""What decided a trace, remembered for the spans that come after it (`Assembler.decided_by`): the late
span's log line names that one rule and the setting to raise, on a fake clock.

Ids repeat one hex digit, as in test_traces.py: trace "a" is "aaa…a", span "1" is "111…1".
"""

from __future__ import annotations

import pytest
from manual_clock import ManualClock

from ragmon.traces import Assembler, Span

MiB = 2**20
INTERNAL = 1


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def span(trace: str, span_id: str, parent: str | None = None, document: str = "") -> Span:
    """An INTERNAL span: with a parent, one that never arrives leaves the trace without a local root."""
    return Span(trace_id=trace * 32, span_id=span_id * 16,
                parent_span_id=None if parent is None else parent * 16, name=f"{trace}/{span_id}",
                kind=INTERNAL, attributes={"document": document} if document else {})


def late_at(assembler: Assembler, clock: ManualClock, at: float, late: Span) -> str:
    """`late`'s trace's rule, once `add` has called the span late."""
    clock.now = at
    assert assembler.add(late) == "late"
    return assembler.decided_by(late.trace_id)


def test_a_trace_its_root_closed_was_decided_by_quiet(clock):
    # Root at 0, child at 0.5: decided at 0.5 + 2 (quiet), long before 0 + 30 (decision wait). The
    # child's sibling comes at 3.0.
    assembler = Assembler(quiet=2.0, decision_wait=30.0, clock=clock)
    assembler.add(span("a", "1"))
    clock.now = 0.5
    assembler.add(span("a", "2", "1"))
    assert [d.reason for d in assembler.pop_decided(2.5)] == ["complete"]
    assert late_at(assembler, clock, 3.0, span("a", "3", "1")) == "quiet"


def test_a_trace_without_a_root_was_decided_by_decision_wait(clock):
    # Span 2's parent (1) never came by 10 (decision wait): no local root, so --quiet never applied.
    # Then the root comes, at 11.
    assembler = Assembler(quiet=2.0, decision_wait=10.0, clock=clock)
    assembler.add(span("a", "2", "1"))
    assert [d.reason for d in assembler.pop_decided(10.0)] == ["timeout"]
    assert late_at(assembler, clock, 11.0, span("a", "1")) == "decision_wait"


def test_a_rooted_trace_still_growing_at_the_decision_wait_was_decided_by_it(clock):
    # Root at 0, a child each second to 9: quiet after the last would be 11, past 0 + 10 (decision
    # wait), which decides it though it has its root. A user raising --quiet would change nothing.
    assembler = Assembler(quiet=2.0, decision_wait=10.0, clock=clock)
    assembler.add(span("a", "1"))
    for second in range(1, 10):
        clock.now = float(second)
        assembler.add(span("a", f"{second + 1}", "1"))
    assert [d.reason for d in assembler.pop_decided(10.0)] == ["timeout"]
    assert late_at(assembler, clock, 10.5, span("a", "b", "1")) == "decision_wait"


def test_a_trace_evicted_for_a_new_one_at_max_traces_says_so(clock):
    # One trace buffered at most: b's first span evicts a, whose child then comes.
    assembler = Assembler(max_traces=1, clock=clock)
    assembler.add(span("a", "1"))
    assembler.add(span("b", "1"))
    assert [d.reason for d in assembler.pop_decided(0.0)] == ["evicted"]
    assert late_at(assembler, clock, 0.1, span("a", "2", "1")) == "max_traces"


def test_a_trace_evicted_to_make_room_in_max_buffer_says_so(clock):
    # 2.5 MiB holds two spans of a 1 MiB document, not three (each holds 1 MiB and under 4 KiB more):
    # c's evicts a, the oldest, though 20,000 traces (max_traces) would fit.
    assembler = Assembler(max_bytes=5 * MiB // 2, clock=clock)
    for trace in "abc":
        assert assembler.add(span(trace, "1", document="x" * MiB)) == "accepted"
    assert [(d.trace.trace_id[0], d.reason) for d in assembler.pop_decided(0.0)] == [("a", "evicted")]
    assert late_at(assembler, clock, 0.1, span("a", "2", "1")) == "max_buffer"


def test_a_trace_the_drain_decided_says_so(clock):
    assembler = Assembler(clock=clock)
    assembler.add(span("a", "1"))
    assert [d.reason for d in assembler.drain()] == ["drain"]
    assert late_at(assembler, clock, 0.1, span("a", "2", "1")) == "drain"


def test_a_trace_of_only_refused_spans_was_decided_by_decision_wait_or_evicted_at_max_traces(clock):
    # 1 MiB holds no span of a 2 MiB document: a's and b's are refused, a trace each that nothing of was
    # taken. With max_traces 1, b's pushes a (seen first) out at once; b waits its decision wait (10).
    assembler = Assembler(decision_wait=10.0, max_traces=1, max_bytes=MiB, clock=clock)
    assert assembler.add(span("a", "1", document="x" * 2 * MiB)) == "too_many_bytes"
    assert assembler.add(span("b", "1", document="x" * 2 * MiB)) == "too_many_bytes"
    assert [(d.trace.trace_id[0], d.reason) for d in assembler.pop_decided(10.0)] == [
        ("a", "refused"), ("b", "refused")]
    assert late_at(assembler, clock, 11.0, span("a", "2")) == "max_traces"
    assert late_at(assembler, clock, 11.0, span("b", "2")) == "decision_wait"


def test_the_rule_outlives_late_spans_and_resends_are_still_duplicates(clock):
    # Each late span's id is remembered with the trace's (its resend is a duplicate): the rule stays.
    assembler = Assembler(quiet=1.0, clock=clock)
    assembler.add(span("a", "1"))
    assert len(assembler.pop_decided(1.0)) == 1
    assert late_at(assembler, clock, 2.0, span("a", "2", "1")) == "quiet"
    assert [assembler.add(span("a", "1")), assembler.add(span("a", "2", "1"))] == ["duplicate", "duplicate"]
    assert late_at(assembler, clock, 3.0, span("a", "3", "1")) == "quiet"
