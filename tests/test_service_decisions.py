"""When the sidecar decides a trace, over every order in which the parts of a multi-service trace may arrive:
properties checked on generated traffic, the whole sidecar running (its decide loop, its routing and a
lane's consumer) on virtual time, so that minutes of `--quiet` and `--decision-wait` timers take
milliseconds.

Generated: traces over one to four services in a call chain (a caller's CLIENT span, the callee's SERVER
span with a remote parent), the question and answer on a CHAIN span and the documents on a RETRIEVER, each
in any of the services, or no RAG data at all; each service's part sent in one or two batches (children
first, as spans end), at any time within the decision wait, sometimes sent again (an exporter retrying a
request whose answer it lost). Every span of trace k carries `ragmon.pipeline` "tk", so its outcome is
counted under a label of its own.

Unit tests of each arrival order found by hand are in test_service.py; this found, in minutes, the three-
service orders that lost the answer (a trace could be held back for its other parts only once)."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from virtual_time import run

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Example
from ragmon.otlp.sink import Refused
from ragmon.scoring import Scored
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar
from ragmon.traces import Span

SERVICES = ("gateway", "rag-api", "retriever-svc", "reranker")
QUIET, WAIT = 2.0, 30.0
KIND = "openinference.span.kind"
QUESTION = "How long does the warranty last?"
DOCUMENT = "The warranty lasts 2 years from the date of purchase."
ANSWER = "The warranty lasts 2 years."

SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class RecordingLane:
    """The lexical judge in this process, keeping what it was given: no worker process, whose real time
    the virtual clock would race past."""

    judge = "lexical"
    rate = 1.0
    concurrency = 1

    def __init__(self) -> None:
        self.judge_ = LexicalJudge()
        self.examples: dict[str, list[Example]] = defaultdict(list)

    async def start(self) -> None:
        pass

    async def score(self, example: Example) -> Scored:
        self.examples[str(example.pipeline)].append(example)
        return Scored(evaluate_example(example, self.judge_, 5), 0.0)

    async def close(self) -> None:
        pass


@dataclass(frozen=True)
class Planned:
    pipeline: str
    services: int
    rag: bool


@dataclass
class Run:
    outcomes: dict[str, list[tuple[float, str]]] = field(default_factory=lambda: defaultdict(list))
    examples: dict[str, list[Example]] = field(default_factory=dict)
    first_taken: dict[str, float] = field(default_factory=dict)
    """When the sidecar first took a batch holding spans of the trace."""
    max_in_flight: int = 0
    max_buffered: int = 0


def chain(k: int, services: int, answer_in: int | None, documents_in: int | None,
          remote_root: bool) -> list[list[Span]]:
    """The spans of trace k as each service exports them (children before parents, as they end): services
    0 calls 1 calls 2 ..."""
    trace_id = f"{k:032x}"
    ids = iter(range(1, 100))

    def span(parent: str | None, name: str, kind: int, resource: dict[str, str], remote: bool = False,
             attributes: dict[str, str] | None = None) -> Span:
        return Span(trace_id, f"{k:08x}{next(ids):08x}", parent, name, kind=kind, resource=resource,
                    parent_is_remote=remote, attributes={"ragmon.pipeline": f"t{k}", **(attributes or {})})

    parts = []
    parent = "ee" * 8 if remote_root else None
    for i in range(services):
        resource = {"service.name": SERVICES[i]}
        server = span(parent, "SERVER", 2, resource, parent is not None)
        inner, spans = server.span_id, []
        if answer_in == i:
            qa = span(inner, "qa", 1, resource, attributes={KIND: "CHAIN", "input.value": QUESTION,
                                                            "output.value": ANSWER})
            inner = qa.span_id
        if documents_in == i:
            spans.append(span(inner, "retrieve", 1, resource, attributes={
                KIND: "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.id": "warranty",
                "retrieval.documents.0.document.content": DOCUMENT}))
        if i + 1 < services:
            call = span(inner, "call", 3, resource)
            spans.append(call)
            parent = call.span_id
        if answer_in == i:
            spans.append(qa)
        parts.append([*spans, server])
    return parts


Arrivals = list[tuple[float, list[Span]]]
Case = tuple[list[Planned], Arrivals]


@st.composite
def traffic(draw: st.DrawFn, max_services: int = 4, max_traces: int = 3, start: float = 0.0,
            rag: bool | None = None, resend: bool = True) -> Case:
    """Traces whose every part comes within the decision wait of its first (less the quiet period, so
    that the last part is in before the deadline), as a user's services export them."""
    within = WAIT - QUIET - 0.5
    planned, arrivals = [], []
    for k in range(1, draw(st.integers(1, max_traces)) + 1):
        services = draw(st.integers(1, max_services))
        is_rag = draw(st.booleans()) if rag is None else rag
        answer_in = draw(st.integers(0, services - 1)) if is_rag else None
        documents_in = draw(st.integers(0, services - 1)) if is_rag else None
        parts = chain(k, services, answer_in, documents_in, draw(st.booleans()))
        begin = start + draw(st.sampled_from([0.0, 1.0]) | st.floats(0, 5).map(lambda x: round(x, 2)))
        for spans in parts:
            cut = draw(st.integers(1, len(spans)))
            at = begin + draw(st.sampled_from([0.0, 0.5, 2.0, 5.0]) | st.floats(0, within).map(
                lambda x: round(x, 2)))
            for batch in (spans[:cut], spans[cut:]):
                if not batch:
                    continue
                arrivals.append((at, batch))
                if resend and draw(st.integers(0, 9)) == 0:
                    arrivals.append((at + draw(st.sampled_from([0.0, 1.0, QUIET, WAIT, 2 * WAIT])), batch))
                at = min(begin + within, at + draw(st.sampled_from([0.0, 0.5, 1.9, 2.1, 5.0])))
        planned.append(Planned(f"t{k}", services, is_rag))
    return planned, arrivals


def warm_up(services: Sequence[str]) -> Arrivals:
    """One span from each service at time 0: the sidecar has heard them before the traffic starts."""
    return [(0.0, [Span(f"{0xff00 + i:032x}", f"{0xff00 + i:016x}", None, "probe", kind=2,
                        resource={"service.name": name}, attributes={"ragmon.pipeline": "warm-up"})])
            for i, name in enumerate(services)]


async def serve(arrivals: Arrivals, **limits: Any) -> Run:
    """Each batch offered at its time, as the receivers do, by a sender of its own: a refused batch (503 +
    Retry-After: 1) is sent again a second later, as the SDK's exporters do, up to 20 times. Then time
    passes until every trace is decided, and the sidecar stops."""
    loop = asyncio.get_running_loop()
    config = ServeConfig(http_listen=None, grpc_listen=None, metrics_listen=None, quiet=QUIET,
                         decision_wait=WAIT, max_pipelines=100, **limits)
    lane = RecordingLane()
    sidecar = Sidecar(config, lanes=[lane], clock=loop.time)
    result = Run(examples=lane.examples)
    count = sidecar.exporter.trace_outcome

    def trace_outcome(pipeline: str, outcome: str) -> None:
        result.outcomes[pipeline].append((loop.time(), outcome))
        count(pipeline, outcome)

    async def send(at: float, batch: list[Span]) -> None:
        await asyncio.sleep(at)
        for _ in range(20):
            offered = sidecar.offer(batch, "http")
            if not (isinstance(offered, Refused) and offered.reason == "backpressure"):
                for span in batch:
                    result.first_taken.setdefault(span.attributes["ragmon.pipeline"], loop.time())
                result.max_in_flight = max(result.max_in_flight, sidecar.assembler.in_flight)
                result.max_buffered = max(result.max_buffered, sidecar.assembler.buffered_bytes)
                return
            await asyncio.sleep(1.0)

    setattr(sidecar.exporter, "trace_outcome", trace_outcome)  # noqa: B010 (a method, for mypy)
    await sidecar.start()
    await asyncio.gather(*(send(at, batch) for at, batch in sorted(arrivals, key=lambda a: a[0])))
    await asyncio.sleep(3 * WAIT)
    await sidecar.stop()
    return result


def describe(planned: list[Planned], arrivals: Arrivals, result: Run) -> str:
    lines = [repr(p) for p in planned]
    for at, batch in sorted(arrivals, key=lambda a: a[0]):
        lines.append(f"t={at:g}: {batch[0].attributes['ragmon.pipeline']} "
                     f"{[(s.resource['service.name'], s.name) for s in batch]}")
    lines.append(f"outcomes: {dict(result.outcomes)}")
    return "\n".join(lines)


def assert_each_decided_once_within_the_wait(planned: list[Planned], result: Run) -> None:
    for trace in planned:
        outcomes = result.outcomes.get(trace.pipeline, [])
        if trace.pipeline not in result.first_taken:  # every batch refused: the sender was told so
            assert not outcomes
            continue
        assert len(outcomes) == 1, f"{trace.pipeline}: {outcomes}"
        decided_at = outcomes[0][0]
        # A microsecond for the float sums of the clock (and its timers, put 2 ns past asyncio's resolution).
        assert decided_at <= result.first_taken[trace.pipeline] + WAIT + 1e-6, (trace.pipeline, decided_at)


def assert_every_answer_scored_whole(planned: list[Planned], result: Run) -> None:
    for trace in planned:
        assert [outcome for _, outcome in result.outcomes[trace.pipeline]] == ["scored"], trace
        (example,) = result.examples[trace.pipeline]
        assert example.answer == ANSWER, trace
        assert example.contexts is not None and [c.text for c in example.contexts] == [DOCUMENT], trace


@SETTINGS
@given(traffic())
def test_every_trace_has_one_outcome_within_the_decision_wait(case: Case) -> None:
    planned, arrivals = case
    result = run(serve(arrivals))
    note(describe(planned, arrivals, result))
    assert_each_decided_once_within_the_wait(planned, result)
    assert sum(len(o) for o in result.outcomes.values()) == len(planned)


@SETTINGS
@given(st.sampled_from([0.0, WAIT + 1]).flatmap(lambda start: traffic(max_services=2, rag=True, start=start)))
def test_two_services_answers_are_scored_whole_from_the_first_trace(case: Case) -> None:
    """The first traces, before the sidecar has heard from both services: at its start, or after it sat
    idle past its first decision wait (a pool deployed before its apps)."""
    planned, arrivals = case
    result = run(serve(arrivals))
    note(describe(planned, arrivals, result))
    assert_every_answer_scored_whole(planned, result)


@SETTINGS
@given(traffic(max_services=4, rag=True, start=WAIT + 1))
def test_up_to_four_services_answers_are_scored_whole(case: Case) -> None:
    """Past the first decision wait, the gateway and the RAG service heard from (the retriever and
    re-ranker services may not have sent anything yet)."""
    planned, arrivals = case
    result = run(serve(warm_up(SERVICES[:2]) + arrivals))
    note(describe(planned, arrivals, result))
    assert_every_answer_scored_whole(planned, result)


@SETTINGS
@given(traffic(max_services=1, rag=True, start=WAIT + 1))
def test_a_sidecar_of_one_service_scores_each_answer(case: Case) -> None:
    planned, arrivals = case
    result = run(serve(warm_up(SERVICES[:1]) + arrivals))
    note(describe(planned, arrivals, result))
    assert_every_answer_scored_whole(planned, result)


@SETTINGS
@given(traffic(max_traces=6), st.integers(2, 5), st.sampled_from([6_000, 12_000, 40_000]))
def test_the_buffer_limits_hold_and_each_trace_taken_has_one_outcome(
        case: Case, max_traces: int, max_buffer: int) -> None:
    """At least two traces buffered: the sidecar remembers the last 4 x --max-traces traces decided, and
    a part of one it has forgotten is a new trace (with one, a part refused for 15 s while five other
    traces went through came back as a second trace)."""
    planned, arrivals = case
    result = run(serve(arrivals, max_traces=max_traces, max_buffer=max_buffer))
    note(describe(planned, arrivals, result))
    assert result.max_in_flight <= max_traces
    assert result.max_buffered <= max_buffer
    assert_each_decided_once_within_the_wait(planned, result)
    counted = Counter(outcome for outcomes in result.outcomes.values() for _, outcome in outcomes)
    assert counted.total() == len(result.first_taken), counted


class SlowLane(RecordingLane):
    """Ten seconds of virtual time an example, one at a time."""

    async def score(self, example: Example) -> Scored:
        await asyncio.sleep(10.0)
        return await super().score(example)


def test_score_lag_counts_the_wait_of_traces_decided_behind_a_full_queue() -> None:
    """ragmon_score_lag_seconds runs from a trace's decision to its score. Four RAG traces whose roots
    come at t=0 are decided together at t=2 (`--quiet` 2 s), and scored one at a time, 10 s each, through
    a queue of one: scored at 12, 22, 32 and 42 s, lags 10, 20, 30 and 40 s, 100 s in all. The fourth waited
    decided from 2 to 12 s while the decider waited to queue the third; its lag was measured from 12 s (30
    s, not 40: 90 in all), and the wait of traces decided behind a full queue showed on no panel."""
    async def scenario() -> tuple[float | None, float | None]:
        loop = asyncio.get_running_loop()
        config = ServeConfig(http_listen=None, grpc_listen=None, metrics_listen=None, quiet=QUIET,
                             decision_wait=WAIT, queue_size=1)
        sidecar = Sidecar(config, lanes=[SlowLane()], clock=loop.time)
        await sidecar.start()
        for k in range(1, 5):
            (part,) = chain(k, 1, answer_in=0, documents_in=0, remote_root=False)
            assert sidecar.offer(part, "http") is True
        await asyncio.sleep(60.0)
        registry = sidecar.exporter.registry
        lag = (registry.get_sample_value("ragmon_score_lag_seconds_count"),
               registry.get_sample_value("ragmon_score_lag_seconds_sum"))
        await sidecar.stop()
        return lag

    count, seconds = run(scenario())
    assert count == 4
    assert seconds is not None and abs(seconds - 100.0) < 1e-3, seconds
