"""A further lane (Claude) never pushes back on the app: the examples it keeps are bounded by its share of
--max-buffer (ragmon.service.FURTHER_LANES_SHARE), past which it drops them as `throttled`, and the mark
`offer` refuses at (503) leaves it that share, so what it holds never refuses a trace.

End to end: OTel SDK traces over OTLP/HTTP, the real lexical worker, Claude through the real `anthropic`
SDK against the Messages API stand-in (tests/fakes/anthropic_server.py), answering never within a test.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from fakes.anthropic_server import FakeAnthropic, Hang
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics
from test_service_buffer import (
    DrivenLane,
    GatedLexicalLane,
    config,
    doc_span,
    rag_spans,
    samples_of,
    wait_for,
)

from ragmon.budget import DailyBudget, Prices, TokenBucket
from ragmon.judges.claude import ClaudeJudge
from ragmon.llm_lane import ClaudeLane
from ragmon.otlp.sink import Refused
from ragmon.scoring import LexicalLane
from ragmon.scrape import Samples, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

KiB, MiB = 2**10, 2**20
KIND = "openinference.span.kind"
MAX_BUFFER = 4 * MiB
"""Claude's share a quarter: 1 MiB (1,048,576 bytes). The traces' mark: 90% of the other 3 MiB."""
DOC_CHARS = 120_000
"""Each trace holds its document (a str of 120,000 ASCII characters: 120,049 bytes) and, under 4 KiB,
its other spans' attributes, the SDK's resource and its objects: between 120,049 and 124,145 bytes (123,578
measured), which its example is held at. So Claude's share holds 8 of them (at most 993,160 bytes) and
not 9 (at least 1,080,441)."""
HELD = 8
TRACES = 40
"""40 examples of ~120 KB: 4.8 MB, more than the whole buffer. Held by Claude as before, 30 of them
(3,707,340 bytes measured) and the 31st trace took it past the old mark (90% of 4 MiB, 3,774,873 bytes),
and that export, and every later one, got 503s until the exporter gave up."""


def big_rag_spans(count: int) -> list[ReadableSpan]:
    """`count` RAG traces as the OTel SDK records them, each with its own document of DOC_CHARS."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    for plan in range(count):
        document = f"Plan {plan:04d}: the warranty lasts 2 years. ".ljust(DOC_CHARS, "x")
        chain = {KIND: "CHAIN", "input.value": "How long is the warranty?",
                 "output.value": "The warranty lasts 2 years."}
        retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": f"plan-{plan}",
                     "retrieval.documents.0.document.content": document}
        with tracer.start_as_current_span("qa", attributes=chain), \
                tracer.start_as_current_span("retrieve", attributes=retriever):
            pass
    provider.shutdown()
    return list(memory.get_finished_spans())


def lexical_scored(count: int, samples: Samples) -> bool:
    return total(samples, "ragmon_examples_scored_total", judge="lexical") >= count


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        api.default = Hang(120)
        yield api


@pytest.fixture
async def sidecar(fake_api: FakeAnthropic) -> AsyncIterator[Sidecar]:
    settings = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                           quiet=0.05, decision_wait=5.0, drain_seconds=1.0, sample_rate=1.0,
                           max_buffer=MAX_BUFFER, max_body=MiB)
    claude = ClaudeJudge(base_url=fake_api.url, api_key="test-key", max_retries=0, timeout=120)
    lane = ClaudeLane(claude, rate=1.0, concurrency=2, k=5, bucket=TokenBucket(1_000),
                      budget=DailyBudget(1.0, Prices(1.0, 5.0)))
    service = Sidecar(settings, lanes=[LexicalLane(rate=1.0, k=5, workers=1), lane])
    yield service
    await service.stop()


async def test_a_claude_that_never_answers_holds_its_share_and_no_trace_is_refused(
        sidecar: Sidecar, fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    # 40 traces, one export each, each sent once the lexical judge has scored the one before (so that
    # nothing but Claude could fill the buffer: the lexical judge's own back-pressure, what scoring a
    # 120 KB document takes in its worker, is another matter). Claude (2 calls at a time, none answered)
    # keeps 8 examples (2 in calls, 6 queued: its share, see DOC_CHARS) and drops the other 32 as
    # throttled; the lexical judge scores all 40, and every export is taken at once (a 503 would be
    # retried, and after 10 s given up: FAILURE). The buffer never holds more than --max-buffer.
    caplog.set_level(logging.INFO, logger="ragmon.service")
    ports = await sidecar.start()
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
    spans = big_rag_spans(TRACES)
    by_trace: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.context.trace_id, []).append(span)
    peak = 0
    sending = True

    async def watch() -> None:
        nonlocal peak
        while sending:
            peak = max(peak, sidecar._held_bytes())
            await asyncio.sleep(0.002)

    watcher = asyncio.create_task(watch())
    try:
        results = []
        for sent, trace in enumerate(by_trace.values(), 1):
            results.append(await asyncio.to_thread(exporter.export, trace))
            if results[-1] is not SpanExportResult.SUCCESS:
                break
            await wait_for(sidecar, functools.partial(lexical_scored, sent))
        assert results == [SpanExportResult.SUCCESS] * TRACES
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == TRACES
                                     and total(s, "ragmon_judge_requests_total", judge="claude",
                                               outcome="throttled") == TRACES - HELD)
    finally:
        sending = False
        await watcher
        await asyncio.to_thread(exporter.shutdown)
    assert total(samples, "ragmon_spans_rejected_total") == 0
    assert total(samples, "ragmon_traces_total", outcome="scored") == TRACES
    assert total(samples, "ragmon_examples_scored_total", judge="lexical") == TRACES
    assert fake_api.calls == 2
    assert total(samples, "ragmon_score_queue_depth", judge="claude") == HELD - 2
    # What Claude holds is still counted, and within its share: 8 examples of 120,049-124,145 bytes.
    held = total(samples, "ragmon_buffer_bytes")
    assert 8 * 120_049 <= held <= MiB
    assert peak <= MAX_BUFFER
    lines = [r.getMessage() for r in caplog.records if "throttled" in r.getMessage()]
    assert lines == ["claude judge throttled: its examples would hold more than its share of --max-buffer "
                     "(1 MiB of 4 MiB), so a sampled example is left unjudged"]


async def test_the_mark_leaves_further_lanes_their_share_even_while_they_hold_nothing() -> None:
    # 4 MiB buffer. Rootless spans (nothing decides them in the test) of 2.5 MiB, then 300 KiB: 2.8 MiB
    # (2,936,013 bytes and a few kB) held with the second. Under the old mark (90% of 4 MiB: 3,774,873) both
    # are taken, as they still are with no further lane; with one (an idle Claude), the mark is 90% of
    # the 3 MiB its 1 MiB share leaves, 2,831,155, so the second is refused: the traces, held to it, and
    # Claude, held to its share, together stay within --max-buffer.
    taken = {}
    for lanes in ([DrivenLane()], [DrivenLane(), DrivenLane("claude", gated=True)]):
        sidecar = Sidecar(config(max_buffer=MAX_BUFFER, quiet=30.0, decision_wait=60.0), lanes=lanes)
        await sidecar.start()
        try:
            taken[len(lanes)] = [sidecar.offer([doc_span(1, 5 * MiB // 2)], "http"),
                                 sidecar.offer([doc_span(2, 300 * KiB)], "http")]
        finally:
            await sidecar.stop()
    assert taken[1] == [True, True]
    assert taken[2][0] is True
    refused = taken[2][1]
    assert isinstance(refused, Refused) and refused.reason == "backpressure"
    assert re.fullmatch(r"ragmon is busy: its trace buffer holds 26\d{5} bytes and this request would "
                        r"add 30\d{4}, past 2831155 \(90% of the 3 MiB of --max-buffer 4 MiB that traces "
                        r"may hold beside the Claude judge's examples\): traces arrive faster than they "
                        r"are decided and scored; retry later", refused.message)


async def test_a_further_lane_drops_what_would_take_the_whole_buffer_past_max_buffer(
        caplog: pytest.LogCaptureFixture) -> None:
    # The first lane may take the buffer past what the share leaves it (3 MiB of 4): an example alone in
    # the lexical lane goes whatever its worker takes, when that is within --max-buffer. A document of
    # 420,028 ASCII characters (a str of 420,077 bytes) takes 8 x that to score, and the question and answer
    # 8 x 74 and 8 x 66: 3,361,736 bytes, with the trace's ~420 kB 3,781,813 and under 4 KiB more, within
    # 4 MiB (4,194,304). Claude's share (1 MiB) would hold its example, the buffer not: 4,201,890 and more.
    # So Claude drops it, said so, and keeps the next one, a trace of 100 kB, once the lexical judge is done.
    caplog.set_level(logging.INFO, logger="ragmon.service")
    lexical, claude = GatedLexicalLane(), DrivenLane("claude", gated=True)
    lexical.gate.set()
    sidecar = Sidecar(config(max_buffer=MAX_BUFFER, max_body=MiB), lanes=[lexical, claude])
    await sidecar.start()
    try:
        assert sidecar.offer(rag_spans(1, 420_000), "http")
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 1)
        assert sidecar.offer(rag_spans(2, 100_000), "http")
        await wait_for(sidecar, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 2)
        await asyncio.wait_for(claude.started.wait(), 10)
        samples = samples_of(sidecar)
        claude.gate.set()
    finally:
        await sidecar.stop()
    assert total(samples, "ragmon_judge_requests_total", judge="claude", outcome="throttled") == 1
    assert 100_077 <= total(samples, "ragmon_buffer_bytes") <= 100_077 + 4 * KiB
    lines = [r.getMessage() for r in caplog.records if "throttled" in r.getMessage()]
    assert lines == ["claude judge throttled: the buffer (--max-buffer 4 MiB) is full, so a sampled example "
                     "is left unjudged"]
