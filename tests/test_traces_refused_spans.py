"""The Assembler's ledger of refused spans, on a fake clock: a trace whose every span was refused is still
decided once, with the name its first span carried for its label, and a refused span sent again is a
duplicate, not a second loss.

Sizes as in tests/test_traces_memory.py: a span with one string of N ASCII characters holds N bytes and
under 4 KiB more, so with a 1.5 MiB budget a span of 1 MiB fits a trace on its own and one of 2 MiB never.
"""

from __future__ import annotations

import tracemalloc

import pytest
from manual_clock import ManualClock

from ragmon.memory_budget import TRACE_IDS
from ragmon.traces import DECIDED_SPAN_IDS, Assembler, Decided, Span

MiB = 2**20


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def doc_span(trace: str, span_id: str, chars: int) -> Span:
    """A rootless span (only decision_wait decides its trace) with one string of `chars` characters; ids
    repeat one hex digit, as in tests/test_traces.py."""
    return Span(trace * 32, span_id * 16, "f" * 16, f"{trace}/{span_id}",
                attributes={"document": "x" * chars})


def ledger(decided: list[Decided]) -> list[tuple[str, list[str], int, str, float]]:
    """(trace, span names, spans lost, reason, when decided) of each."""
    return [(d.trace.trace_id[0], [s.name for s in d.trace.spans], d.trace.spans_lost, d.reason, d.decided_at)
            for d in decided]


def test_a_trace_whose_every_span_was_refused_is_decided_at_its_decision_wait(clock):
    # b sends two spans of 2 MiB, at 0 s and 1 s: both refused, nothing of b buffered. Its decision wait
    # (5 s) runs from its first span: at 5 s it is decided, with no spans and 2 lost, as "refused", for
    # the sidecar to count (before, it was decided never: no outcome). Once decided, a span it never
    # had is late, and its refused span sent again a duplicate.
    assembler = Assembler(decision_wait=5.0, max_bytes=3 * MiB // 2, clock=clock)
    assert assembler.add(doc_span("b", "1", 2 * MiB)) == "too_many_bytes"
    clock.now = 1.0
    assert assembler.add(doc_span("b", "2", 2 * MiB)) == "too_many_bytes"
    assert (assembler.in_flight, assembler.buffered_bytes) == (0, 0)

    assert assembler.next_deadline() == 5.0
    assert assembler.pop_decided(4.9) == []
    assert ledger(assembler.pop_decided(5.0)) == [("b", [], 2, "refused", 5.0)]
    assert assembler.next_deadline() is None
    clock.now = 6.0
    assert [assembler.add(s) for s in (doc_span("b", "3", 10), doc_span("b", "1", 2 * MiB))] == [
        "late", "duplicate"]
    assert assembler.drain() == []


def test_a_trace_opened_after_its_first_span_was_refused_is_decided_once_on_the_same_clock(clock):
    # a's 2 MiB span is refused at 0 s; a small span of it is taken at 3 s and opens the trace, which
    # carries the loss. Its decision wait still runs from 0 s: decided at 5 s, once, not at 5 s as
    # "refused" and again at 8 s.
    assembler = Assembler(decision_wait=5.0, max_bytes=3 * MiB // 2, clock=clock)
    assert assembler.add(doc_span("a", "1", 2 * MiB)) == "too_many_bytes"
    clock.now = 3.0
    assert assembler.add(doc_span("a", "2", 10)) == "accepted"

    assert ledger(assembler.pop_decided(5.0)) == [("a", ["a/2"], 1, "timeout", 5.0)]
    assert assembler.pop_decided(100.0) == []


def test_traces_of_only_refused_spans_are_held_at_most_max_traces_and_decided_when_pushed_out(clock):
    # max_traces 2: b, c and d each send one refused span, 1 s apart. d makes three such traces held:
    # the oldest, b, is decided at once (2 s), not forgotten; c and d at their decision wait (10 s, 11 s).
    assembler = Assembler(decision_wait=9.0, max_traces=2, max_bytes=3 * MiB // 2, clock=clock)
    for at, trace in enumerate("bcd"):
        clock.now = float(at)
        assert assembler.add(doc_span(trace, "1", 2 * MiB)) == "too_many_bytes"

    assert ledger(assembler.pop_decided(2.0)) == [("b", [], 1, "refused", 2.0)]
    assert ledger(assembler.pop_decided(11.0)) == [("c", [], 1, "refused", 10.0),
                                                   ("d", [], 1, "refused", 11.0)]


def test_a_refused_span_sent_again_is_a_duplicate_not_a_second_loss(clock):
    # An exporter resends a batch it got no answer for in time, though it landed. Each refused span, sent
    # again, was refused again: one more loss for its trace ("2 spans of this trace were refused" for 1)
    # while buffered, or before, and `late` once decided. Now a duplicate each time:
    # - b's 2 MiB span, before b is buffered, then b's root opens it: 1 lost;
    # - a over --max-spans-per-trace (2): its 3rd span refused, resent while buffered and after: 1 lost.
    assembler = Assembler(quiet=1.0, decision_wait=30.0, max_spans_per_trace=2, max_bytes=3 * MiB // 2,
                          clock=clock)
    big = doc_span("b", "2", 2 * MiB)
    assert [assembler.add(s) for s in (big, big)] == ["too_many_bytes", "duplicate"]
    assert assembler.add(Span("b" * 32, "f" * 16, None, "b/root")) == "accepted"
    spans = [Span("a" * 32, "1" * 16, None, "a/root"), doc_span("a", "2", 10), doc_span("a", "3", 10)]
    assert [assembler.add(s) for s in (*spans, spans[2])] == ["accepted", "accepted", "too_many_spans",
                                                              "duplicate"]

    assert ledger(assembler.pop_decided(1.0)) == [("b", ["b/root"], 1, "complete", 1.0),
                                                  ("a", ["a/root", "a/2"], 1, "complete", 1.0)]
    clock.now = 2.0
    assert [assembler.add(s) for s in (big, spans[2])] == ["duplicate", "duplicate"]


def test_a_whole_batch_resent_after_a_trace_refused_many_spans_reads_as_duplicates_for_its_first_kept(clock):
    # a: a root and 199 children in one batch, --max-spans-per-trace 100: 100 kept, 100 refused. Decided,
    # the batch is resent (the exporter had no answer in time): 32 of its refused and 32 of its kept spans
    # are remembered, the root among them, and read as duplicates; the rest as late. The refused alone had
    # filled the 64 remembered ids, and the root and every kept span read as late, a loss, with advice to
    # raise --quiet.
    assert DECIDED_SPAN_IDS == 64
    assembler = Assembler(quiet=1.0, decision_wait=30.0, max_spans_per_trace=100, clock=clock)
    spans = [Span("a" * 32, f"{1:016x}", None, "a/root"),
             *(Span("a" * 32, f"{n:016x}", f"{1:016x}", f"a/{n}") for n in range(2, 201))]
    assert [assembler.add(s) for s in spans] == ["accepted"] * 100 + ["too_many_spans"] * 100
    [decided] = assembler.pop_decided(1.0)
    assert (len(decided.trace.spans), decided.trace.spans_lost) == (100, 100)
    clock.now = 2.0
    again = [assembler.add(s) for s in spans]
    assert again[:32] == ["duplicate"] * 32 and again[32:100] == ["late"] * 68
    assert again[100:132] == ["duplicate"] * 32 and again[132:] == ["late"] * 68


def test_a_trace_taken_back_still_knows_the_spans_it_refused(clock):
    # a refuses its 3rd span (--max-spans-per-trace 2), is decided at its root, and taken back to wait for
    # another service's part (`defer`): the refused span sent again is still a duplicate, and the trace,
    # decided at its decision wait, lost 1.
    assembler = Assembler(quiet=1.0, decision_wait=30.0, max_spans_per_trace=2, clock=clock)
    spans = [Span("a" * 32, "1" * 16, None, "a/root"), doc_span("a", "2", 10), doc_span("a", "3", 10)]
    assert [assembler.add(s) for s in spans] == ["accepted", "accepted", "too_many_spans"]
    [decided] = assembler.pop_decided(1.0)
    clock.now = 1.0
    assert assembler.defer(decided)

    assert assembler.add(spans[2]) == "duplicate"
    assert ledger(assembler.pop_decided(30.0)) == [("a", ["a/root", "a/2"], 1, "timeout", 30.0)]


def test_a_trace_of_only_refused_spans_keeps_what_its_first_span_was_named_by(clock):
    # Each trace's spans are refused (2 MiB); what labels it is its first refused span's ragmon.pipeline,
    # else its service.name, whole or not at all:
    # - a: service support-rag, its second span (service other-svc) changes nothing;
    # - b: ragmon.pipeline checkout, before its service;
    # - c: a ragmon.pipeline that is no string (7) is passed over for its service;
    # - d: a name of 32 emoji, 128 bytes of UTF-8, the most a label holds, is kept;
    # - e: 33 emoji (132 bytes) cannot be kept whole: nothing;
    # - f: no name at all;
    # - g: a lone surrogate (a JSON sender's "\udcff" escape) comes back as sent.
    emoji = "\N{GRINNING FACE}"
    sent = [("a", {}, "support-rag"), ("a", {}, "other-svc"), ("b", {"ragmon.pipeline": "checkout"}, "svc"),
            ("c", {"ragmon.pipeline": 7}, "svc"), ("d", {}, emoji * 32), ("e", {}, emoji * 33),
            ("f", {}, None), ("g", {}, "svc-\udcff")]
    assembler = Assembler(decision_wait=5.0, max_bytes=3 * MiB // 2, clock=clock)
    for n, (trace, attributes, service) in enumerate(sent):
        span = Span(trace * 32, f"{n + 1:016x}", "f" * 16, "retrieval",
                    attributes={"document": "x" * 2 * MiB, **attributes},
                    resource={} if service is None else {"service.name": service})
        assert assembler.add(span) == "too_many_bytes"

    assert [(d.trace.trace_id[0], d.trace.named_by) for d in assembler.pop_decided(5.0)] == [
        ("a", ("service.name", "support-rag")), ("b", ("ragmon.pipeline", "checkout")),
        ("c", ("service.name", "svc")), ("d", ("service.name", emoji * 32)), ("e", None), ("f", None),
        ("g", ("service.name", "svc-\udcff"))]


def held_per_waiting_trace(clock: ManualClock, service: str, traces: int = 500) -> float:
    """tracemalloc's bytes per trace waiting with no span taken (`Assembler._unopened`) after 64 refused spans
    each, sent by `service` with its last 5 characters a count (one name object per trace, as each request
    decodes its own). Each trace must have kept its name whole: one dropped would cost nothing."""
    assembler = Assembler(decision_wait=1e9, max_traces=traces, max_bytes=3 * MiB // 2, clock=clock)
    document = {"document": "x" * 2 * MiB}
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for t in range(traces):
            resource = {"service.name": service[:-5] + f"{t:05d}"}
            for s in range(DECIDED_SPAN_IDS):
                span = Span(f"{t + 1:032x}", f"{s + 1:016x}", "f" * 16, "r", attributes=document,
                            resource=resource)
                assert assembler.add(span) == "too_many_bytes"
        del resource, span
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    kept = [d.trace.named_by for d in assembler.drain()]
    assert kept == [("service.name", service[:-5] + f"{t:05d}") for t in range(traces)]
    return (held - base) / traces


def test_a_waiting_trace_holds_its_name_at_its_utf8_size_within_the_memory_budget(clock):
    # A name of 128 UTF-8 bytes, the most kept, is one emoji and 124 ASCII characters as much as 128 ASCII
    # ones; as a str, CPython stores every character at the widest one's 4 bytes (576 bytes against 177),
    # so a waiting trace held ~400 bytes more for its emoji. Kept as UTF-8, the two cost the same. And the
    # worst trace (64 refused span ids and such a name) fits what the memory budget counts for it per
    # --max-traces: TRACE_IDS (2,816) less 4 decided ids of ~440 and a buffered trace's 256 refused ids:
    # 2,816 - 1,760 - 256 = 800 bytes (before: ~1,080; now ~670).
    ascii_name = held_per_waiting_trace(clock, "s" * 128)
    emoji_name = held_per_waiting_trace(clock, "\N{GRINNING FACE}" + "s" * 124)
    assert abs(emoji_name - ascii_name) < 8
    assert max(ascii_name, emoji_name) <= TRACE_IDS - 4 * 440 - 256 == 800
