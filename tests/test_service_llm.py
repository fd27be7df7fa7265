"""The sidecar with its Claude lane, end to end: OTel SDK traces in, both judges' figures out of /metrics.

Claude is the Messages API stand-in driven by the real `anthropic` SDK; everything else is the real
service (lexical worker processes included). Servers bind 127.0.0.1 on port 0 and are stopped here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import prometheus_client
import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Hang, Reply, claims_of, documents_of
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics
from sdk_export import export
from trace_ids import FixedIds, trace_ids_with_keys

from ragmon.budget import DailyBudget, Prices, TokenBucket
from ragmon.judges.claude import ClaudeJudge
from ragmon.llm_lane import ClaudeLane
from ragmon.scoring import LexicalLane
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

DOC = "The warranty lasts 2 years from the date of purchase (plan {plan})."
# Claim 1 is in DOC (both judges: supported); claim 2 is not (both: unsupported). Groundedness 1/2.
# Each trace names its own plan, so no two traces share a Claude cache entry.
ANSWER = "The warranty lasts 2 years. It also covers damage on the moon."
KIND = "openinference.span.kind"


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        yield api


def warranty_only(body: dict[str, Any]) -> list[dict[str, Any]]:
    (doc_id,) = documents_of(body)
    return [{"claim": c, "supported": "warranty" in c, "supporting_ids": [doc_id] if "warranty" in c else [],
             "reason": "r"} for c in claims_of(body)]


def rag_spans(service: str, count: int, ids: list[int] | None = None) -> list[ReadableSpan]:
    """`count` RAG traces as the OTel SDK records them (OpenInference attributes)."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}),
                              id_generator=FixedIds(ids) if ids is not None else None)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    for plan in range(count):
        chain = {KIND: "CHAIN", "input.value": "How long is the warranty?", "output.value": ANSWER}
        retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": "warranty",
                     "retrieval.documents.0.document.content": DOC.format(plan=plan)}
        with tracer.start_as_current_span("qa", attributes=chain), \
                tracer.start_as_current_span("retrieve", attributes=retriever):
            pass
    provider.shutdown()
    return list(memory.get_finished_spans())


SAMPLE_RATE = 0.75
SAMPLED = (0.0, SAMPLE_RATE)
"""Keys the lexical judge scores, and Claude too at its default rate here (1.0)."""


@pytest.fixture
def llm_rate() -> float:
    return 1.0


@pytest.fixture
def budget_usd() -> float:
    return 1.0


@pytest.fixture
async def sidecar(fake_api: FakeAnthropic, llm_rate: float, budget_usd: float) -> AsyncIterator[Sidecar]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, decision_wait=5.0, drain_seconds=1.0, sample_rate=SAMPLE_RATE)
    claude = ClaudeJudge(base_url=fake_api.url, api_key="test-key", max_retries=0, timeout=5)
    lane = ClaudeLane(claude, rate=llm_rate, concurrency=2, k=5, bucket=TokenBucket(1_000),
                      budget=DailyBudget(budget_usd, Prices(1.0, 5.0)))
    service = Sidecar(config, lanes=[LexicalLane(rate=SAMPLE_RATE, k=5, workers=1), lane])
    yield service
    await service.stop()


def claude_requests(samples: Samples, outcome: str) -> float:
    return total(samples, "ragmon_judge_requests_total", judge="claude", outcome=outcome)


async def test_both_judges_figures_flow_from_the_same_traces(sidecar: Sidecar,
                                                             fake_api: FakeAnthropic) -> None:
    fake_api.default = Reply(decide=warranty_only, usage=(1_000, 100))
    ports = await sidecar.start()
    await export(ports.http, rag_spans("shop", 3, trace_ids_with_keys([SAMPLED] * 3)))
    # A page is built off the event loop (`_MetricsPages`), from the loop's readings as its build began and
    # the counters as it reaches them: the last call's reservation may show beside its counted outcome, so
    # the wait is for the settled figure too, as a scraper's next scrape would see it.
    samples = await wait_metrics(ports.metrics, lambda s: claude_requests(s, "ok") == 3
                                 and total(s, "ragmon_examples_scored_total", judge="lexical") == 3
                                 and total(s, "ragmon_judge_committed_usd", judge="claude") < 0.005)
    for judge in ("lexical", "claude"):
        assert total(samples, "ragmon_examples_scored_total", pipeline="shop", judge=judge) == 3
        assert total(samples, "ragmon_claims_total", judge=judge, verdict="supported") == 3
        assert total(samples, "ragmon_claims_total", judge=judge, verdict="unsupported") == 3
        assert total(samples, "ragmon_groundedness_ratio", pipeline="shop", judge=judge) == 0.5
    # 3 calls, each billed 1,000 in + 100 out at $1/$5 per million: 3 x $0.0015.
    assert fake_api.calls == 3
    assert total(samples, "ragmon_judge_cost_usd_total", judge="claude") == pytest.approx(0.0045)
    assert total(samples, "ragmon_judge_duration_seconds_count", judge="claude") == 3
    assert total(samples, "ragmon_traces_total", outcome="scored") == 3
    # The day's cap and what it has committed (the three bills, nothing reserved now), for "left today".
    assert total(samples, "ragmon_judge_budget_usd", judge="claude") == 1.0
    assert total(samples, "ragmon_judge_committed_usd", judge="claude") == pytest.approx(0.0045)
    # Each judge's queue and its --queue-size (1,000 by default), apart.
    assert {judge: total(samples, "ragmon_score_queue_size", judge=judge)
            for judge in ("lexical", "claude")} == {"lexical": 1_000, "claude": 1_000}
    assert {judge: total(samples, "ragmon_score_queue_depth", judge=judge)
            for judge in ("lexical", "claude")} == {"lexical": 0, "claude": 0}


async def test_an_answer_judged_from_the_cache_is_no_call(sidecar: Sidecar, fake_api: FakeAnthropic) -> None:
    """The same answer to the same question from the same document, in two traces: Claude is called once,
    and the second is judged from its cache, `cached`, with no call's time. Counted `ok` as it was, a
    cache hit passed for a call that succeeded, and a service whose answers repeat had its share of failing
    calls (RagmonJudgeErrors) diluted by calls never made."""
    fake_api.default = Reply(decide=warranty_only, usage=(1_000, 100))
    ports = await sidecar.start()
    first, second = trace_ids_with_keys([SAMPLED] * 2)
    await export(ports.http, rag_spans("shop", 1, [first]))  # plan 0
    await wait_metrics(ports.metrics, lambda s: claude_requests(s, "ok") == 1)
    await export(ports.http, rag_spans("shop", 1, [second]))  # plan 0 again: the same request
    samples = await wait_metrics(ports.metrics, lambda s: claude_requests(s, "cached") == 1)
    assert fake_api.calls == 1 and claude_requests(samples, "ok") == 1
    assert total(samples, "ragmon_judge_duration_seconds_count", judge="claude") == 1
    assert total(samples, "ragmon_examples_scored_total", judge="claude") == 2
    assert total(samples, "ragmon_groundedness_ratio", pipeline="shop", judge="claude") == 0.5
    assert total(samples, "ragmon_judge_cost_usd_total", judge="claude") == pytest.approx(0.0015)


@pytest.mark.parametrize("budget_usd", [0.01])
async def test_a_thousand_traces_never_push_the_exported_cost_over_the_daily_cap(
        sidecar: Sidecar, fake_api: FakeAnthropic) -> None:
    fake_api.default = Reply(decide=warranty_only, usage=(1_000, 100))  # $0.0015 a call, as above
    ports = await sidecar.start()
    await export(ports.http, rag_spans("shop", 1_000, trace_ids_with_keys([SAMPLED] * 1_000)))
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_judge_requests_total",
                                                               judge="claude") == 1_000
                                 and total(s, "ragmon_traces_total") == 1_000, timeout=60)
    ok, refused = claude_requests(samples, "ok"), claude_requests(samples, "over_budget")
    assert ok + refused + claude_requests(samples, "throttled") == 1_000
    assert refused > 0 and ok == fake_api.calls
    cost = total(samples, "ragmon_judge_cost_usd_total", judge="claude")
    assert cost <= 0.01 and cost == pytest.approx(0.0015 * ok)
    assert total(samples, "ragmon_traces_total", outcome="scored") == 1_000  # lexical unaffected


@pytest.mark.parametrize("fault", [Fail(500, "api_error"), Hang(60)], ids=["errors", "hangs"])
async def test_lexical_figures_keep_flowing_while_claude_fails(sidecar: Sidecar, fake_api: FakeAnthropic,
                                                               fault: Fail | Hang) -> None:
    fake_api.default = fault
    ports = await sidecar.start()
    await export(ports.http, rag_spans("shop", 4, trace_ids_with_keys([SAMPLED] * 4)))
    failed = 4 if isinstance(fault, Fail) else 0  # a hanging Claude never answers within this test
    # The trace counters are read at the page's first instant, the examples' as it is written: one page
    # may count an example scored whose trace it has yet to count, so both are waited for.
    samples = await wait_metrics(ports.metrics, lambda s: claude_requests(s, "error") == failed
                                 and total(s, "ragmon_examples_scored_total", judge="lexical") == 4
                                 and total(s, "ragmon_traces_total", pipeline="shop", outcome="scored") == 4)
    assert total(samples, "ragmon_groundedness_ratio", judge="lexical") == 0.5
    # Fail-closed: no Claude verdict, no Claude figure, no cost.
    assert total(samples, "ragmon_examples_scored_total", judge="claude") == 0
    assert total(samples, "ragmon_claims_total", judge="claude") == 0
    assert not any(name == "ragmon_groundedness_ratio" and ("judge", "claude") in labels
                   for name, labels in samples)
    assert total(samples, "ragmon_judge_cost_usd_total", judge="claude") == 0


async def test_a_drain_cut_short_says_how_many_examples_claude_left_unjudged(
        sidecar: Sidecar, fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    # A Claude that never answers, 2 calls at a time: of 5 traces sampled for both judges, the lexical
    # judge scores all 5, Claude holds 2 calls open and 3 examples wait in its queue. At the 1 s drain
    # deadline all 5 are cut short; the traces' outcome is the lexical judge's (scored), so only the log
    # can say that Claude judged none of them. The 2 calls cut off midway are `error`s, each costing the
    # worst case of its one attempt, as the budget charged it: they had no outcome and cost nothing here.
    fake_api.default = Hang()
    ports = await sidecar.start()
    await export(ports.http, rag_spans("shop", 5, trace_ids_with_keys([SAMPLED] * 5)))
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_examples_scored_total", judge="lexical") == 5
                       and fake_api.calls == 2)
    await sidecar.stop()
    drained = [r for r in caplog.records if r.getMessage().startswith("drain deadline passed")]
    assert [(r.getMessage(), r.judge, r.count) for r in drained] == [  # type: ignore[attr-defined]
        ("drain deadline passed; examples sampled for this judge left unjudged", "claude", 5)]
    samples = parse(prometheus_client.generate_latest(sidecar.exporter.registry).decode())
    assert claude_requests(samples, "error") == 2
    (lane,) = [runner.lane for runner in sidecar._runners if isinstance(runner.lane, ClaudeLane)]
    # Each attempt's worst case is at least its output bound: 2,048 tokens at $5 per million.
    cost = total(samples, "ragmon_judge_cost_usd_total", judge="claude")
    assert cost == pytest.approx(lane.budget.spent) and cost > 2 * 2_048 * 5e-6


@pytest.mark.parametrize("llm_rate", [0.25])
async def test_claude_judges_a_nested_subset_of_the_lexical_sample(sidecar: Sidecar,
                                                                   fake_api: FakeAnthropic) -> None:
    ports = await sidecar.start()
    # Keys against --sample-rate 0.75 and --llm-sample-rate 0.25: below 0.25 to both judges, from 0.25 to
    # 0.75 to the lexical judge only, from 0.75 to neither.
    both, lexical_only, neither = (0.0, 0.25), (0.25, SAMPLE_RATE), (SAMPLE_RATE, 1.0)
    ids = trace_ids_with_keys([both, lexical_only, neither, both, lexical_only, neither])
    await export(ports.http, rag_spans("shop", 6, ids))
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 6
                                 and claude_requests(s, "ok") == 2)
    assert total(samples, "ragmon_traces_total", outcome="scored") == 4
    assert total(samples, "ragmon_traces_total", outcome="not_sampled") == 2
    assert total(samples, "ragmon_examples_scored_total", judge="lexical") == 4
    assert total(samples, "ragmon_examples_scored_total", judge="claude") == 2
    judged = [text for body in fake_api.requests for text in documents_of(body).values()]
    assert sorted(re.findall(r"plan (\d)", " ".join(judged))) == ["0", "3"]  # the two traces keyed below 0.25


def test_cli_serve_with_claude_flags(fake_api: FakeAnthropic, serve_process: Any) -> None:
    fake_api.default = Reply(decide=warranty_only, usage=(1_000, 100))
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake_api.url,
           "RAGMON_LLM_SAMPLE_RATE": "1.0"}  # flags read from the environment too
    args = ["--quiet", "50ms", "--llm-max-per-minute", "2",
            "--llm-price-input", "2", "--llm-price-output", "10"]
    with serve_process(args, env) as serve:
        samples = asyncio.run(_send_three(serve.ready["http_port"], serve.ready["metrics_port"]))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs
    # --llm-max-per-minute 2: two calls, the third throttled. Each billed 1,000 in + 100 out at the
    # prices given ($2 / $10 per million): $0.002 + $0.001 = $0.003 a call.
    assert (claude_requests(samples, "ok"), claude_requests(samples, "throttled")) == (2, 1)
    assert total(samples, "ragmon_judge_cost_usd_total", judge="claude") == pytest.approx(0.006)
    assert total(samples, "ragmon_examples_scored_total", judge="lexical") == 3
    assert fake_api.calls == 2


def test_claude_flags_typed_with_claude_off_stop_serve_before_it_listens_on_a_json_error_line() -> None:
    # Before: it started, logging "claude off (--llm-sample-rate 0)" and nothing about the model typed. The
    # metrics port is held, so a sidecar that got as far as listening fails there at once rather than run.
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = subprocess.run(
            [sys.executable, "-m", "ragmon.cli", "serve", "--grpc-listen", "off", "--http-listen",
             "127.0.0.1:0", "--metrics-listen", f"127.0.0.1:{busy.getsockname()[1]}", "--log-format", "json",
             "--llm-model", "claude-x"], capture_output=True, text=True, env=environ, timeout=60)
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [(line["level"], line["message"]) for line in lines] == [(
        "error", "--llm-model is given with the Claude judge off at --llm-sample-rate 0, the default: only "
                 "the Claude judge reads it, and it judges no trace; give it a share of traces "
                 "(--llm-sample-rate 0.02, say), or leave it out")]


async def _send_three(http: int, metrics: int) -> Samples:
    await export(http, rag_spans("shop", 3))
    return await wait_metrics(metrics, lambda s: claude_requests(s, "ok") + claude_requests(s, "throttled")
                              == 3 and total(s, "ragmon_examples_scored_total", judge="lexical") == 3)


async def test_a_full_claude_queue_is_logged_once_a_minute_as_well_as_counted(
        fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    # A Claude that never answers, 2 calls at a time, a queue of 1: of 6 sampled traces, 2 are in calls,
    # 1 waits in the queue and 3 find it full. Those 3 are counted throttled, and said so once in the log
    # (they had been counted only: the README says every outcome but ok is logged).
    caplog.set_level(logging.INFO, logger="ragmon.service")
    fake_api.default = Hang()
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, decision_wait=5.0, drain_seconds=1.0, sample_rate=1.0, queue_size=1)
    claude = ClaudeJudge(base_url=fake_api.url, api_key="test-key", max_retries=0, timeout=5)
    lane = ClaudeLane(claude, rate=1.0, concurrency=2, k=5, bucket=TokenBucket(1_000),
                      budget=DailyBudget(1.0, Prices(1.0, 5.0)))
    service = Sidecar(config, lanes=[LexicalLane(rate=1.0, k=5, workers=1), lane])
    ports = await service.start()
    try:
        await export(ports.http, rag_spans("shop", 6, trace_ids_with_keys([(0.0, 1.0)] * 6)))
        await wait_metrics(ports.metrics, lambda s: claude_requests(s, "throttled") == 3)
    finally:
        await service.stop()
    lines = [r.getMessage() for r in caplog.records if "throttled" in r.getMessage()]
    assert lines == ["claude judge throttled: its queue (--queue-size 1) is full, so a sampled example is "
                     "left unjudged"]
