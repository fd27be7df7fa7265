"""`--max-buffer` end to end (ragmon.traces: footprint, Assembler(max_bytes=...); ragmon.service:
the bytes of decided traces and the 90% refusal in `offer`) and of the Claude lane's `unjudged` count.

Sizes are reasoned from CPython's object layout: a str of N ASCII characters holds N bytes and a header
under 100; everything else a span with one such string holds (the Span, its ids, its place in the trace,
the trace's own objects, a small resource) is well under 4 KiB (tests/test_traces_memory.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

import prometheus_client
import pytest
from counted_mapping import counted_mapping
from manual_clock import ManualClock

from ragmon import traces as traces_module
from ragmon.errors import RagmonError
from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.otlp.decode import DecodeError, decode_json
from ragmon.otlp.sink import Refused
from ragmon.scoring import LaneRefusal, LexicalLane, Scored
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig, add_arguments
from ragmon.service import Sidecar
from ragmon.traces import Assembler, Decided, Span, SpanEvent, footprint, span_footprint

KiB, MiB = 2**10, 2**20
SLACK = 4 * KiB
KIND = "openinference.span.kind"


# --- spans and lanes ---------------------------------------------------------------------------------

def doc_span(trace: int, chars: int) -> Span:
    """A span whose parent never arrives (only decision_wait decides its trace) with one ASCII string."""
    return Span(f"{trace:032x}", "1" * 16, "f" * 16, "doc", attributes={"document": "x" * chars})


def rag_spans(trace: int, doc_chars: int = 0, filler: str = "x") -> list[Span]:
    """A RAG request as OpenInference writes it: a CHAIN root with question and answer, a retriever with
    one document (`doc_chars` more characters of it, `filler`, when asked)."""
    tid, resource = f"{trace:032x}", {"service.name": "shop"}
    chain = {KIND: "CHAIN", "input.value": "How long is the warranty?", "output.value": "It lasts 2 years."}
    document = "The warranty lasts 2 years. " + filler * doc_chars
    retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": "warranty",
                 "retrieval.documents.0.document.content": document}
    return [Span(tid, "2" * 16, "1" * 16, "retrieve", attributes=retriever, resource=resource),
            Span(tid, "1" * 16, None, "qa", attributes=chain, resource=resource)]


class DrivenLane:
    """A judge the test drives: the real lexical judge, after `delay` seconds, failing or refusing on
    the share of examples asked, or held until `gate` opens."""

    def __init__(self, judge: str = "lexical", *, rate: float = 1.0, concurrency: int = 1,
                 rnd: random.Random | None = None, gated: bool = False) -> None:
        self.judge, self.rate, self.concurrency = judge, rate, concurrency
        self.rnd = rnd
        self.started = asyncio.Event()
        self.gate = asyncio.Event()
        if not gated:
            self.gate.set()

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def score(self, example: Example) -> Scored:
        self.started.set()
        if self.rnd is not None:
            await asyncio.sleep(self.rnd.choice([0, 0, 0.001, 0.005]))
            draw = self.rnd.random()
            if draw < 0.1:
                raise RuntimeError("the judge failed")
            if draw < 0.2:
                raise LaneRefusal("timeout")
            if draw < 0.3:
                await asyncio.Event().wait()  # held until the drain deadline cancels it
        await self.gate.wait()
        return Scored(evaluate_example(example, LexicalJudge(), 5), 0.001)


def config(**overrides: object) -> ServeConfig:
    settings: dict[str, object] = {"http_listen": None, "grpc_listen": None, "metrics_listen": None,
                                   "quiet": 0.05, "decision_wait": 5.0, "drain_seconds": 5.0}
    settings.update(overrides)
    return ServeConfig(**settings)  # type: ignore[arg-type]


def samples_of(sidecar: Sidecar) -> Samples:
    return parse(prometheus_client.generate_latest(sidecar.exporter.registry).decode())


async def wait_for(sidecar: Sidecar, ready: Callable[[Samples], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready(samples_of(sidecar)):
        assert time.monotonic() < deadline, "the sidecar did not reach the expected state in time"
        await asyncio.sleep(0.02)


def pushed_back(offered: object) -> bool:
    """Whether `Sidecar.offer` answered back-pressure (a 503), which says which limit it hit."""
    return isinstance(offered, Refused) and offered.reason == "backpressure"


# --- defects: each fails before the fix ---------------------------------------------------------------

async def test_traces_evicted_but_not_yet_handed_on_count_against_the_buffer() -> None:
    # 4 MiB buffer, 503 past 3.6 MiB held. Traces of one 1 MiB span, rootless (nothing decides them in the
    # test). The decision task collects evicted traces only when it next runs pop_decided, so an eviction,
    # and each further one, would park bytes beyond the budget, uncounted, for as long as it is busy
    # elsewhere. `offer` evicts nothing (test_service_admission.py); the assembler still does for spans no
    # refusal held back, given to it here directly:
    #   offer 1, 2: held 1, then 2 MiB (+ < 2 x 4 KiB): taken.
    #   traces 3 and 4, added: 4 MiB and a few kB is over 4 MiB, so trace 1 is evicted. It is still held
    #            (1 MiB) until the decision task collects it: 4 MiB held in all.
    #   offer 5, of a span of 1 KiB: refused (503). Counting only the buffered 3 MiB takes it.
    sidecar = Sidecar(config(max_buffer=4 * MiB, quiet=30.0, decision_wait=60.0), lanes=[DrivenLane()])
    await sidecar.start()
    try:
        taken = [sidecar.offer([doc_span(t, MiB)], "http") for t in (1, 2)]
        assert [sidecar.assembler.add(doc_span(t, MiB)) for t in (3, 4)] == ["accepted"] * 2
        taken.append(sidecar.offer([doc_span(5, KiB)], "http"))
    finally:
        await sidecar.stop()
    assert taken[:2] == [True, True] and pushed_back(taken[2])
    samples = samples_of(sidecar)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 1
    assert total(samples, "ragmon_traces_total") == 4


async def test_examples_a_second_judge_still_holds_count_against_the_buffer_up_to_its_share() -> None:
    # Lexical scores at once, Claude (second lane, the trace's outcome is the lexical one's) is held. Giving
    # the trace's bytes back when the first lane is done left Claude's queue bounded only in count
    # (--queue-size, 1,000 examples of any size); counting them against the mark `offer` refuses at made a
    # slow Claude refuse the app's traces. So they count in the buffer, within Claude's share of it: a
    # quarter of 4 MiB, 1 MiB. Of 5 traces with 300,000-character documents (a str of 300,077 bytes, and
    # under 4 KiB more each), it keeps 3 (at most 912,513 bytes; 4 would be at least 1,200,308) and drops
    # 2 as throttled; all 5 are taken and scored. Once it judges its 3, its share is free again: of 3
    # more, it keeps all 3, and when done the buffer holds nothing.
    claude = DrivenLane("claude", gated=True)
    sidecar = Sidecar(config(max_buffer=4 * MiB), lanes=[DrivenLane(), claude])
    await sidecar.start()
    try:
        assert all(sidecar.offer(rag_spans(t, 300_000), "http") for t in range(1, 6))
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 5)
        held = total(samples_of(sidecar), "ragmon_buffer_bytes")
        throttled = total(samples_of(sidecar), "ragmon_judge_requests_total", judge="claude",
                          outcome="throttled")
        claude.gate.set()
        await wait_for(sidecar, lambda s: total(s, "ragmon_examples_scored_total", judge="claude") == 3)
        assert all(sidecar.offer(rag_spans(t, 300_000), "http") for t in range(6, 9))
        await wait_for(sidecar, lambda s: total(s, "ragmon_examples_scored_total", judge="claude") == 6)
    finally:
        await sidecar.stop()
    assert throttled == 2
    assert 3 * 300_077 <= held <= MiB
    samples = samples_of(sidecar)
    assert total(samples, "ragmon_judge_requests_total", judge="claude", outcome="throttled") == 2
    assert total(samples, "ragmon_traces_total", outcome="scored") == 8
    assert total(samples, "ragmon_buffer_bytes") == 0
    assert sidecar._decided_bytes == 0


async def test_an_example_that_holds_more_than_its_trace_counts_at_its_own_size() -> None:
    # Trace A declares its document as a JSON string attribute (ragmon.contexts) of ASCII: one emoji
    # written as a JSON escape ("\\ud83d\\ude00", 12 characters) and 1 Mi "x". The span holds ~1 MiB; the
    # example's document, decoded, holds the emoji and so 4 bytes a character: ~4 MiB, which the judge
    # holds while the trace is gone. An 8 MiB buffer refuses what would take it past 7.2 MiB held:
    #   A being judged: 4 MiB (+ a few kB) held;
    #   B, one rootless 2.5 MiB span (buffered: nothing decides it in the test): taken, 6.5 MiB held;
    #   C, the same: refused. Counting A at its trace's ~1 MiB takes C too: 9 MiB held in an 8 MiB budget.
    lane = DrivenLane(gated=True)
    sidecar = Sidecar(config(max_buffer=8 * MiB), lanes=[lane])
    text = "\\ud83d\\ude00" + "x" * MiB
    contexts = f'[{{"id": "d1", "text": "{text}"}}]'
    a = Span("a" * 32, "1" * 16, None, "rag",
             attributes={"ragmon.question": "q?", "ragmon.answer": "x", "ragmon.contexts": contexts})
    await sidecar.start()
    try:
        assert sidecar.offer([a], "http")
        await asyncio.wait_for(lane.started.wait(), 10)
        taken = [sidecar.offer([doc_span(t, 5 * MiB // 2)], "http") for t in (2, 3)]
        lane.gate.set()
    finally:
        await sidecar.stop()
    assert taken[0] is True and pushed_back(taken[1])


async def test_decided_traces_waiting_for_room_in_a_full_queue_are_in_a_gauge() -> None:
    # Under overload, traces decided while the score queue is full wait for room out of the assembler,
    # with no outcome and in no queue: a flood ended with up to 252 of them while /metrics showed nothing
    # in flight. Now every trace taken is in one place /metrics shows: an outcome, in flight (buffered
    # undecided), waiting, queued, or being scored by the first judge. By hand, queue size 1, a judge
    # held by its gate, --max-traces 6 (503 past 5), the clock moved by the test:
    #   offer 5 RAG traces at t=0 (5 fit under the mark); at t=1 all 5 are decided at once. Trace 1 goes
    #     to the judge (in progress 1), trace 2 fills the queue (1), trace 3 waits for room in it and
    #     traces 4 and 5 behind it: waiting 3, in flight 0, no outcome yet.
    #   7 rootless traces (nothing decides them before t=5) given to the assembler directly, as spans no
    #     refusal held back: the 7th opens past --max-traces and evicts the 1st, decided but not handed on
    #     while the decision task waits for room: in flight 6, waiting 3 + 1 = 4.
    #   12 taken = 0 outcomes + 6 in flight + 4 waiting + 1 queued + 1 in progress.
    # The gate opened and the sidecar stopped: 5 scored, 1 evicted, the 6 rootless ones drained as not_rag
    # (no RAG data), and nothing left waiting.
    clock = ManualClock()
    lane = DrivenLane(gated=True)
    sidecar = Sidecar(config(queue_size=1, max_traces=6), lanes=[lane], clock=clock)
    await sidecar.start()
    try:
        assert sidecar.offer([span for t in range(1, 6) for span in rag_spans(t)], "http") is True
        clock.now = 1.0
        await wait_for(sidecar, lambda s: total(s, "ragmon_score_queue_depth") == 1
                       and total(s, "ragmon_score_in_progress") == 1)
        assert [sidecar.assembler.add(doc_span(t, 10)) for t in range(6, 13)] == ["accepted"] * 7
        overloaded = samples_of(sidecar)
        lane.gate.set()
    finally:
        await sidecar.stop()
    seen = [total(overloaded, name) for name in ("ragmon_traces_total", "ragmon_traces_in_flight",
                                                 "ragmon_traces_waiting", "ragmon_score_queue_depth",
                                                 "ragmon_score_in_progress")]
    assert seen == [0, 6, 4, 1, 1]
    assert sum(seen) == 12
    final = samples_of(sidecar)
    assert {o: total(final, "ragmon_traces_total", outcome=o) for o in ("scored", "evicted", "not_rag")} == {
        "scored": 5, "evicted": 1, "not_rag": 6}
    assert total(final, "ragmon_traces_waiting") == 0


async def test_the_drains_stop_markers_are_no_examples_in_the_queue_depth() -> None:
    # By hand: one trace, its judge held by the gate: 1 in progress, 0 queued. The stop's drain puts a
    # stop marker in the queue for each of the lane's consumers, behind the last example; the page read
    # them as examples waiting, 1 queued while nothing was.
    clock = ManualClock()
    lane = DrivenLane(gated=True)
    sidecar = Sidecar(config(queue_size=4), lanes=[lane], clock=clock)
    await sidecar.start()
    assert sidecar.offer(rag_spans(1), "http") is True
    clock.now = 1.0
    await wait_for(sidecar, lambda s: total(s, "ragmon_score_in_progress") == 1)
    stopping = asyncio.create_task(sidecar.stop())
    try:
        (runner,) = sidecar._runners
        deadline = time.monotonic() + 10
        while runner.queue.empty():  # until the drain has put its markers in the queue
            assert time.monotonic() < deadline, "the drain put no stop marker"
            await asyncio.sleep(0.01)
        draining = samples_of(sidecar)
    finally:
        lane.gate.set()
        await stopping
    queued, in_progress = (total(draining, name) for name in ("ragmon_score_queue_depth",
                                                              "ragmon_score_in_progress"))
    assert (queued, in_progress) == (0, 1)
    assert total(samples_of(sidecar), "ragmon_traces_total", outcome="scored") == 1


def test_a_max_buffer_that_can_hold_nothing_is_refused_at_start() -> None:
    # --max-buffer 1: 90% of it is 0 bytes, so `offer` refuses every batch (503) for as long as the sidecar
    # runs, with /readyz saying ready, and every exporter retries forever. A mistake to name at start
    # (InputError: the CLI prints it and exits 2), as the other flags' are.
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(RagmonError, match="--max-buffer"):
        ServeConfig.from_args(parser.parse_args(["--max-buffer", "1"]))


# --- properties that hold (regression guards) -----------------------------------------------------------

def expected_footprint(spans: Sequence[Span]) -> int:
    """What a trace holds by the rule in Assembler.add, recomputed from its spans: each span's own size, its
    resource once for each run of spans sharing one resource object, and 400 bytes for the trace."""
    size, last = 400, None
    for span in spans:
        size += span_footprint(span) + (footprint(span.resource) if span.resource is not last else 0)
        last = span.resource
    return size


@pytest.mark.parametrize("seed", range(60))
def test_random_schedules_keep_the_byte_count_exact_and_decide_every_trace_once(seed: int) -> None:
    # Random spans (sizes 0 to 30,000 characters against budgets of 2 kB to 100 kB, shared and fresh
    # resources, events, duplicates), random traces (never more than the 4 x max_traces ids the assembler
    # remembers as decided), pop_decided, drain and clock jumps past quiet and decision_wait. Throughout:
    # - the budget holds, and a refused span changes nothing buffered (too_many_bytes for a new trace
    #   included: it takes no place in the buffer and no bytes);
    # - an accepted span's trace is buffered (room is never made by evicting it);
    # - buffered_bytes is the footprint of the buffered traces: what drain hands on, but for the traces
    #   evicted before it (already given back);
    # - each trace seen is decided once, with the spans accepted for it and the footprint those spans
    #   hold: a trace whose every span was refused too (too_many_bytes before anything of it was taken),
    #   as "refused", with no spans and its losses. Pinned as "changes nothing", such a trace was decided
    #   never, and counted under no ragmon_traces_total outcome: its trace id vanished but for its spans'
    #   count in ragmon_spans_rejected_total.
    rnd = random.Random(seed)
    clock = ManualClock()
    max_bytes, max_traces = rnd.choice([2_000, 5_000, 20_000, 100_000]), rnd.choice([2, 5, 50])
    assembler = Assembler(quiet=rnd.choice([0.5, 2.0]), decision_wait=rnd.choice([3.0, 30.0]),
                          max_traces=max_traces, max_spans_per_trace=rnd.choice([3, 1_000]),
                          max_bytes=max_bytes, clock=clock)
    shared = [{"service.name": "a"}, {"service.name": "b" * 500}]
    accepted: dict[str, list[Span]] = {}
    seen: set[str] = set()  # given a span the assembler took or lost: not a duplicate, nor late
    decided: dict[str, Decided] = {}
    buffered: set[str] = set()

    def hand_on(out: list[Decided]) -> None:
        for d in out:
            tid = d.trace.trace_id
            assert tid not in decided, f"{tid} decided twice"
            decided[tid] = d
            buffered.discard(tid)
            assert list(d.trace.spans) == accepted.get(tid, [])
            assert (d.reason == "refused") == (tid not in accepted)
            assert d.reason != "refused" or d.trace.spans_lost >= 1
            assert d.footprint == (0 if d.reason == "refused" else expected_footprint(d.trace.spans))

    for _ in range(400):
        op = rnd.random()
        if op < 0.75:
            tid = f"{rnd.randrange(min(12, 4 * max_traces)) + 1:032x}"
            fresh = {"service.name": "c" * rnd.randrange(100)}
            resource = rnd.choice(shared) if rnd.random() < 0.7 else fresh
            span = Span(tid, f"{rnd.randrange(40) + 1:016x}", rnd.choice([None, "f" * 16]), "s",
                        kind=rnd.choice([0, 2]),
                        attributes={"d": "x" * rnd.choice([0, 10, 300, 1_500, 4_000, 30_000]),
                                    "n": [1, {"k": "v"}]},
                        events=tuple(SpanEvent("e", 0, {"a": "b"}) for _ in range(rnd.randrange(3))),
                        resource=resource)
            before = (assembler.buffered_bytes, assembler.in_flight)
            status = assembler.add(span)
            if status not in ("duplicate", "late"):
                assert tid not in decided
                seen.add(tid)
            if status == "accepted":
                accepted.setdefault(tid, []).append(span)
                buffered.add(tid)
            else:
                assert (assembler.buffered_bytes, assembler.in_flight) == before
                assert status != "late" or tid in seen
        elif op < 0.88:
            hand_on(assembler.pop_decided())
        elif op < 0.96:
            clock.now += rnd.choice([0.1, 1.0, 2.5, 31.0])
        else:
            held = assembler.buffered_bytes
            out = assembler.drain()
            assert held == sum(d.footprint for d in out if d.reason != "evicted")
            hand_on(out)
        assert 0 <= assembler.buffered_bytes <= max_bytes
    held = assembler.buffered_bytes
    out = assembler.drain()
    assert held == sum(d.footprint for d in out if d.reason != "evicted")
    hand_on(out)
    assert assembler.buffered_bytes == 0 and assembler.in_flight == 0
    assert set(decided) == seen


def nested(depth: int, kind: str) -> bytes:
    """An OTLP/JSON request of one span whose one attribute nests `depth` arrays or kvlists."""
    if kind == "array":
        value = '{"arrayValue":{"values":[' * depth + '{"stringValue":"x"}' + "]}}" * depth
    else:
        value = ('{"kvlistValue":{"values":[{"key":"k","value":' * depth + '{"stringValue":"x"}'
                 + "}]}}" * depth)
    span = {"traceId": "1" * 32, "spanId": "1" * 16, "name": "n", "attributes": "ATTRS"}
    doc = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    return doc.replace('"ATTRS"', '[{"key":"a","value":' + value + "}]").encode()


def deepest_decodable(kind: str) -> int:
    low, high = 1, 2_000
    while low < high:
        mid = (low + high + 1) // 2
        try:
            decode_json(nested(mid, kind))
            low = mid
        except DecodeError:
            high = mid - 1
    return low


@pytest.mark.parametrize("kind", ["array", "kvlist"])
def test_footprint_sizes_the_deepest_nesting_decode_lets_through(kind: str) -> None:
    # decode turns nesting it cannot take into a 400 (DecodeError "nested too deeply"); whatever it lets
    # through, footprint sizes without a RecursionError, even 200 frames deeper than decode ran (offer
    # runs under aiohttp's or grpc's handler). Each level is a list or a dict of one item, at least 56
    # bytes (an empty list; a dict is more), so over depth x 56 in all. decode yields fresh objects of a
    # tree, so no cycle can reach footprint.
    depth = deepest_decodable(kind)
    assert depth > 100  # OTLP allows nesting; decode takes it well past any real attribute
    span = decode_json(nested(depth, kind)).spans[0]

    def at_depth(frames: int) -> int:
        return span_footprint(span) if frames == 0 else at_depth(frames - 1)

    assert at_depth(200) > depth * 56


def test_an_example_is_sized_field_by_field_without_checking_its_records_against_mapping(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The sidecar sizes every example it scores. Each Context, the Example and its extra dict had been
    # checked against Mapping (an abstract class) and each string field sized by a call of its own:
    # sizing a typical example (5 documents) took 21-22 us, now 12-14 us (same minutes). The size is
    # the same: the example, each field and each Context with its own fields.
    stand_in = counted_mapping()
    monkeypatch.setattr(traces_module, "Mapping", stand_in)
    contexts = (Context("d1", "Refunds within 30 days.", 0.5), Context("d2", "Shipping takes 5 days."))
    example = Example("t1", "How long?", contexts, "5 days.", pipeline="shop")
    sizes = sys.getsizeof
    expected = (sizes(example) + sizes("t1") + sizes("How long?") + sizes(contexts)
                + sum(sizes(c) + sizes(c.id) + sizes(c.text) + sizes(c.score) for c in contexts)
                + sizes("5 days.") + 4 * sizes(None) + sizes("shop") + sizes({}))
    footprint(example)
    stand_in.checked.clear()
    assert footprint(example) == expected
    assert stand_in.checked == []


@pytest.mark.parametrize("seed", range(12))
async def test_random_sidecar_schedules_count_every_trace_once_and_give_every_byte_back(seed: int) -> None:
    # Random RAG (some with 5-50 kB documents), non-RAG and unextractable traces against budgets of 20 kB
    # to 100 MB, tiny queues and max_traces (so evictions, 503s and too_many_bytes happen), lanes that
    # fail, refuse or hang on a share of examples, a second lane on half the schedules; a drain of 0.2 s
    # that the hung examples cut short. After stop: every trace that entered the assembler (a span of it
    # taken or lost) has exactly one outcome, and the bytes of decided traces (private: nothing exports
    # them) are all given back.
    rnd = random.Random(seed)
    lanes = [DrivenLane("lexical", rate=rnd.choice([1.0, 0.6]), concurrency=rnd.choice([1, 2]), rnd=rnd)]
    if seed % 2:
        second_rate = rnd.choice([0.3, 0.6])
        lanes.append(DrivenLane("claude", rate=second_rate, concurrency=rnd.choice([1, 2]), rnd=rnd))
    sidecar = Sidecar(config(quiet=0.005, decision_wait=0.05, drain_seconds=0.2,
                             max_traces=rnd.choice([3, 100]), queue_size=rnd.choice([1, 3, 50]),
                             max_buffer=rnd.choice([20_000, 200_000, 10**8])), lanes=lanes)
    entered: set[str] = set()
    add = sidecar.assembler.add

    def recording_add(span: Span, span_bytes: int | None = None) -> str:
        status = add(span, span_bytes)
        if status not in ("duplicate", "late"):
            entered.add(span.trace_id)
        return status

    sidecar.assembler.add = recording_add  # type: ignore[method-assign]
    await sidecar.start()
    try:
        for _ in range(40):
            trace, draw = rnd.getrandbits(128), rnd.random()
            if draw < 0.7:
                spans = rag_spans(trace, rnd.choice([0, 0, 5_000, 50_000]))
            elif draw < 0.85:
                spans = [Span(f"{trace:032x}", "1" * 16, None, "GET /health")]
            else:
                spans = [Span(f"{trace:032x}", "1" * 16, None, "answer",
                              attributes={"ragmon.question": "q?", "ragmon.contexts": "[not json"})]
            for _ in range(3):  # an exporter retries a 503
                if not pushed_back(sidecar.offer(spans, "http")):
                    break
                await asyncio.sleep(0.005)
            assert sidecar._decided_bytes >= 0
            if rnd.random() < 0.3:
                await asyncio.sleep(rnd.choice([0, 0.001, 0.01]))
        await asyncio.sleep(0.05)
    finally:
        await sidecar.stop()
    outcomes = Counter({o: total(samples_of(sidecar), "ragmon_traces_total", outcome=o)
                        for o in ("scored", "not_sampled", "not_rag", "evicted", "error")})
    assert sum(outcomes.values()) == len(entered)
    assert sidecar._decided_bytes == 0


# --- what scoring takes in a lexical worker (ragmon.scoring.working_bytes) ------------------------------

class GatedLexicalLane(LexicalLane):
    """The lexical lane as the sidecar sees it (its type tells the sidecar a worker's memory is at stake),
    scoring in process, each example held until `gate` opens; `entered` lists what reached the lane."""

    def __init__(self, *, rate: float = 1.0) -> None:
        super().__init__(rate=rate, k=5, workers=1)
        self.entered: list[str] = []
        self.gate = asyncio.Event()

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def score(self, example: Example) -> Scored:
        self.entered.append(example.id)
        await self.gate.wait()
        return Scored(evaluate_example(example, LexicalJudge(), 5), 0.001)


@pytest.mark.parametrize(("refused", "scored"), [
    # A lexical worker holds a document about 8 times its size while it scores it (ragmon.scoring), so
    # with --max-buffer 2 MiB (2,097,152 bytes) a document of 300,000 ASCII characters (300,049 bytes
    # as a str: 2,400,392 to score) is refused, where one of 100,000 (800,392, and ~100 kB held) is scored.
    (rag_spans(1, 300_000), rag_spans(2, 100_000)),
    # A document of the 28-character sentence and 200,000 "x": a str of 200,077 bytes, 1,600,616 to
    # score, ~0.21 MB held, 1.81 MB in all: scored. With "é" in place of "x" it is 200,101 bytes and
    # 1,600,808 to score, and once pickled for the worker it also holds its UTF-8 form here (28 + 2 x
    # 200,000 + 1 = 400,029 bytes), 2.21 MB in all: refused.
    (rag_spans(1, 200_000, "é"), rag_spans(2, 200_000)),
], ids=["ascii", "utf-8 copy"])
async def test_a_trace_whose_scoring_would_take_more_than_the_buffer_is_an_error_named_in_the_log(
        refused: list[Span], scored: list[Span], caplog: pytest.LogCaptureFixture) -> None:
    # Refused, it is logged with its trace id and the flag to raise. Not sampled, it is only `not_sampled`.
    lane = GatedLexicalLane()
    lane.gate.set()
    sidecar = Sidecar(config(max_buffer=2 * MiB, max_body=MiB), lanes=[lane])
    await sidecar.start()
    try:
        assert sidecar.offer(refused, "http")
        assert sidecar.offer(scored, "http")
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total") == 2)
    finally:
        await sidecar.stop()
    samples = samples_of(sidecar)
    assert total(samples, "ragmon_traces_total", outcome="error") == 1
    assert total(samples, "ragmon_traces_total", outcome="scored") == 1
    assert lane.entered == [f"{2:032x}"]
    lines = [r for r in caplog.records if r.getMessage().startswith("trace too large to score")]
    assert [r.trace_id for r in lines] == [f"{1:032x}"]  # type: ignore[attr-defined]
    assert "--max-buffer (2 MiB)" in lines[0].detail  # type: ignore[attr-defined]
    assert sidecar._decided_bytes == 0

    unsampled = Sidecar(config(max_buffer=2 * MiB, max_body=MiB), lanes=[GatedLexicalLane(rate=0.0)])
    await unsampled.start()
    try:
        assert unsampled.offer(refused, "http")
        await wait_for(unsampled, lambda s: total(s, "ragmon_traces_total") == 1)
    finally:
        await unsampled.stop()
    assert total(samples_of(unsampled), "ragmon_traces_total", outcome="not_sampled") == 1


async def test_an_example_larger_than_the_buffer_but_not_sampled_is_not_sampled_not_an_error() -> None:
    # ragmon.contexts as JSON of ASCII with one escaped emoji and 600,000 "x": the span holds ~0.6 MB, the
    # decoded example 4 bytes a character, ~2.4 MB, over a 2 MiB buffer (2,097,152 bytes). Not sampled, no
    # worker reads it: its outcome is `not_sampled`, as before what scoring takes was counted.
    text = "\\ud83d\\ude00" + "x" * 600_000
    contexts = f'[{{"id": "d1", "text": "{text}"}}]'
    span = Span("a" * 32, "1" * 16, None, "rag",
                attributes={"ragmon.question": "q?", "ragmon.answer": "x", "ragmon.contexts": contexts})
    sidecar = Sidecar(config(max_buffer=2 * MiB, max_body=MiB), lanes=[GatedLexicalLane(rate=0.0)])
    await sidecar.start()
    try:
        assert sidecar.offer([span], "http")
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total") == 1)
    finally:
        await sidecar.stop()
    assert total(samples_of(sidecar), "ragmon_traces_total", outcome="not_sampled") == 1


async def test_examples_whose_scoring_would_overfill_the_buffer_wait_for_the_lane_to_give_room() -> None:
    # Two traces with documents of 260,000 ASCII characters: each ~2.1 MB to score (8 x 260,049) and
    # ~0.27 MB held, 2.35 MB in all, under a 4 MiB buffer (4,194,304 bytes) alone, over it together. The
    # lane takes two examples at once (one per worker, and one on its way), so without the wait both
    # would be in it; the second waits until the first is done, then is scored. Meanwhile /metrics shows
    # it waiting (it is in no queue and has no outcome).
    lane = GatedLexicalLane()
    sidecar = Sidecar(config(max_buffer=4 * MiB, max_body=MiB), lanes=[lane])
    await sidecar.start()
    try:
        assert sidecar.offer(rag_spans(1, 260_000), "http")
        assert sidecar.offer(rag_spans(2, 260_000), "http")
        await asyncio.sleep(0.5)  # both decided (quiet 0.05 s) and routed, if nothing held one back
        entered = list(lane.entered)
        held = sidecar._held_bytes()
        waiting = total(samples_of(sidecar), "ragmon_traces_waiting")
        lane.gate.set()
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 2)
    finally:
        await sidecar.stop()
    assert len(entered) == 1
    assert waiting == 1
    assert 2_300_000 < held <= 4 * MiB
    assert sidecar._decided_bytes == 0
