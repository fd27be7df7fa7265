"""`ragmon serve` end to end: the OTel SDK's own OTLP exporters in, a real GET /metrics out.

Servers bind 127.0.0.1 on port 0 (in-process) or on free ports (the CLI subprocess) and are stopped by
the test that started them. Waiting is polling with a deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import hashlib
import itertools
import json
import logging
import re
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import aiohttp
import prometheus_client
import pytest
from google.rpc import status_pb2
from manual_clock import ManualClock
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from polling import wait_metrics
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from trace_ids import FixedIds, trace_ids_with_keys

from ragmon import instrument
from ragmon.errors import RagmonError
from ragmon.evaluation import evaluate_example
from ragmon.failures import FailureLog
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import METRIC_NAMES, Context, Example
from ragmon.options import listen_address
from ragmon.otlp.decode import decode_protobuf
from ragmon.otlp.sink import Refused
from ragmon.scoring import LexicalLane, Scored
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig, add_arguments
from ragmon.service import (
    Ports,
    Sidecar,
    lexical_lane,
    warn_of_open_receivers,
    warn_of_unused_settings,
)

QUESTION = "How long does the warranty last?"
DOC_ID = "warranty"
DOC = "The warranty lasts 2 years from the date of purchase."
# Claim 1: every content term (warranty, lasts, years) and the number 2 are in DOC: supported.
# Claim 2: none of covers, damage, moon is in DOC: unsupported. Groundedness 1/2.
ANSWER = "The warranty lasts 2 years. It also covers damage on the moon."
KIND = "openinference.span.kind"
RETRIEVER_SPAN = "vector_db_retrieve VectorStoreRetriever"
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")


# --- building traces with the real SDK ----------------------------------------------------------------

def record(service: str, build: Callable[[TracerProvider], None],
           ids: Sequence[int] | None = None) -> list[ReadableSpan]:
    """Spans as the SDK produces them for one service, captured before export."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}),
                              id_generator=FixedIds(ids) if ids is not None else None)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    build(provider)
    provider.shutdown()
    return list(memory.get_finished_spans())


def rag_trace(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("test")
    chain = {KIND: "CHAIN", "input.value": QUESTION, "output.value": ANSWER}
    retriever = {KIND: "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.id": DOC_ID,
                 "retrieval.documents.0.document.content": DOC, "retrieval.documents.0.document.score": 0.9}
    with tracer.start_as_current_span("qa", attributes=chain), \
            tracer.start_as_current_span("retrieve", attributes=retriever):
        pass


def plain_trace(provider: TracerProvider) -> None:
    with provider.get_tracer("test").start_as_current_span("GET /health"):
        pass


def malformed_trace(provider: TracerProvider) -> None:
    # Both attributes are malformed: the trace is an `error`, and the bad pipeline must not break that.
    with provider.get_tracer("test").start_as_current_span(
            "answer", attributes={"ragmon.question": "q?", "ragmon.contexts": "[not json",
                                  "ragmon.pipeline": 42}):
        pass


def content_off_trace(provider: TracerProvider) -> None:
    """What OpenLLMetry's LangChain instrumentor writes with TRACELOOP_TRACE_CONTENT=false (the real one
    is run in tests/semconv/test_openllmetry_instrumented.py): a retriever span with its operation and no
    `traceloop.entity.output`, so its documents are unknown and every such trace is an `error`."""
    tracer = provider.get_tracer("test")
    retriever = {"traceloop.span.kind": "task", "gen_ai.operation.name": "vector_db_retrieve"}
    workflow = {"traceloop.span.kind": "workflow"}
    with tracer.start_as_current_span("RunnableSequence.workflow", attributes=workflow), \
            tracer.start_as_current_span(RETRIEVER_SPAN, attributes=retriever):
        pass


def genai_trace(content: bool) -> Callable[[TracerProvider], None]:
    """A RAG request under OTel GenAI instrumentations: a retrieval span and a chat span, with their
    opt-in content on the spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only) or
    without it (the default)."""
    retrieval = {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "kb"}
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai"}
    if content:
        retrieval |= {"gen_ai.retrieval.query.text": QUESTION, "gen_ai.retrieval.documents": json.dumps(
            [{"id": DOC_ID, "score": 0.9, "content": DOC}])}
        chat |= {"gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}], "finish_reason": "stop"}])}

    def build(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("POST /ask"):
            for name, attributes in (("retrieval kb", retrieval), ("chat gpt-4o", chat)):
                with tracer.start_as_current_span(name, attributes=attributes):
                    pass
    return build


def cut_trace(provider: TracerProvider) -> None:
    """A declared pipeline whose documents arrive cut short (an SDK attribute limit): an `error` too."""
    with provider.get_tracer("test").start_as_current_span(
            "rag", attributes={"ragmon.pipeline": "support", "ragmon.question": "q?",
                               "ragmon.contexts": '[{"id": "d1", "text": "The warranty la'}):
        pass


def hex_id(span: ReadableSpan) -> str:
    return format(span.context.trace_id, "032x")


async def export(exporter: SpanExporter, spans: Sequence[ReadableSpan]) -> SpanExportResult:
    """The SDK exporters are synchronous (they block on HTTP/gRPC): keep them off the event loop."""
    try:
        return await asyncio.to_thread(exporter.export, spans)
    finally:
        await asyncio.to_thread(exporter.shutdown)


def http_exporter(ports: Ports, compression: Compression = Compression.NoCompression) -> HttpSpanExporter:
    return HttpSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", compression=compression,
                            timeout=10)


async def send_traces(ports: Ports, traces: Sequence[Sequence[ReadableSpan]]) -> None:
    """Several traces in one request, as a batching exporter sends them."""
    spans = [span for trace in traces for span in trace]
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS


# --- reading metrics ----------------------------------------------------------------------------------

async def get(port: int, path: str, accept: str | None = None) -> tuple[int, str]:
    headers = {"Accept": accept} if accept else {}
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{port}{path}", headers=headers) as response:
        return response.status, await response.text()


def outcomes(samples: Samples) -> dict[str, float]:
    return {o: total(samples, "ragmon_traces_total", outcome=o) for o in OUTCOMES}


async def wait_errors(ports: Ports, count: int) -> Samples:
    def done(samples: Samples) -> bool:
        return total(samples, "ragmon_traces_total", outcome="error") == count

    return await wait_metrics(ports.metrics, done)


def registry_samples(sidecar: Sidecar) -> Samples:
    """After stop() the listener is gone; the same registry is read directly."""
    return parse(prometheus_client.generate_latest(sidecar.exporter.registry).decode())


def labels(**kv: str) -> frozenset[tuple[str, str]]:
    return frozenset(kv.items())


# --- fixtures -----------------------------------------------------------------------------------------

Start = Callable[..., Awaitable[tuple[Sidecar, Ports]]]


@pytest.fixture
async def start_sidecar() -> AsyncIterator[Start]:
    started: list[Sidecar] = []

    async def start(lanes: Sequence[object] | None = None, failures: FailureLog | None = None,
                    **overrides: object) -> tuple[Sidecar, Ports]:
        settings: dict[str, object] = {
            "http_listen": ("127.0.0.1", 0), "grpc_listen": ("127.0.0.1", 0),
            "metrics_listen": ("127.0.0.1", 0), "quiet": 0.05, "decision_wait": 5.0, "drain_seconds": 5.0}
        settings.update(overrides)
        sidecar = Sidecar(ServeConfig(**settings), lanes=lanes, failures=failures)  # type: ignore[arg-type]
        started.append(sidecar)
        return sidecar, await sidecar.start()

    yield start
    for sidecar in started:
        await sidecar.stop()


class GatedLane:
    """The real lexical lane behind a gate the test opens: a judge that is slow until told otherwise."""

    judge = "lexical"
    rate = 1.0
    concurrency = 1

    def __init__(self) -> None:
        self.inner = LexicalLane(rate=1.0, k=5, workers=1)
        self.gate = asyncio.Event()
        self.started = asyncio.Event()

    async def start(self) -> None:
        await self.inner.start()

    async def score(self, example: Example) -> Scored:
        self.started.set()
        await self.gate.wait()
        return await self.inner.score(example)

    async def close(self) -> None:
        await self.inner.close()


class BrokenLane:
    """A judge that fails on every example, as a misconfigured one does (the fault is the test's)."""

    judge = "lexical"
    rate = 1.0
    concurrency = 1

    async def start(self) -> None:
        pass

    async def score(self, example: Example) -> Scored:
        raise RuntimeError("the judge is misconfigured")

    async def close(self) -> None:
        pass


@pytest.fixture
def failure_lines(caplog: pytest.LogCaptureFixture) -> Callable[[], list[logging.LogRecord]]:
    """The warnings and errors the sidecar logged."""
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    return lambda: [r for r in caplog.records if r.name == "ragmon.service" and r.levelno >= logging.WARNING]


# --- tests --------------------------------------------------------------------------------------------

async def test_sdk_exporters_over_http_gzip_plain_and_grpc_are_scored_exactly_as_offline(
        start_sidecar: Start) -> None:
    _, ports = await start_sidecar()
    assert await get(ports.metrics, "/healthz") == (200, "ok\n")
    assert (await get(ports.metrics, "/readyz"))[0] == 200
    sent = {
        "via-http-gzip": (http_exporter(ports, Compression.Gzip), record("via-http-gzip", rag_trace)),
        "via-http-plain": (http_exporter(ports), record("via-http-plain", rag_trace)),
        "via-grpc": (GrpcSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=10),
                     record("via-grpc", rag_trace)),
    }
    for exporter, spans in sent.values():
        assert await export(exporter, spans) is SpanExportResult.SUCCESS

    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 3)
    assert total(samples, "ragmon_spans_received_total", transport="http") == 4   # 2 traces x 2 spans
    assert total(samples, "ragmon_spans_received_total", transport="grpc") == 2
    example = Example("t", QUESTION, (Context(DOC_ID, DOC, 0.9),), ANSWER)
    offline = evaluate_example(example, LexicalJudge(), 5)
    assert offline.metrics["groundedness"] == 0.5                                 # by hand, see ANSWER
    for pipeline in sent:
        assert samples[("ragmon_traces_total", labels(pipeline=pipeline, outcome="scored"))] == 1
        for verdict in ("supported", "unsupported"):
            assert samples[("ragmon_claims_total", labels(pipeline=pipeline, judge="lexical",
                                                          verdict=verdict))] == 1
        for metric in METRIC_NAMES:
            key = labels(pipeline=pipeline, judge="lexical", metric=metric)
            value = offline.metrics[metric]
            if value is None:   # not observed: no series, or a pre-created one still at 0
                assert samples.get(("ragmon_example_score_count", key), 0) == 0, metric
            else:   # one observation: the histogram's sum is the online value itself
                assert samples[("ragmon_example_score_count", key)] == 1, metric
                assert samples[("ragmon_example_score_sum", key)] == value, metric
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="via-grpc", judge="lexical"))] == 0.5

    status, text = await get(ports.metrics, "/metrics", accept="application/openmetrics-text; version=1.0.0")
    assert status == 200
    exemplars = {s.exemplar.labels["trace_id"] for f in parse_openmetrics(text)
                 if f.name == "ragmon_example_score" for s in f.samples
                 if s.exemplar is not None and s.labels["pipeline"] == "via-grpc"}
    assert exemplars == {hex_id(sent["via-grpc"][1][0])}


async def test_every_decided_trace_has_exactly_one_outcome(start_sidecar: Start) -> None:
    _, ports = await start_sidecar(sample_rate=0.5)
    # 3 RAG traces keyed below --sample-rate 0.5 (scored), 2 above it (not sampled); the malformed trace's
    # key is below it too, so its `error` cannot come from sampling.
    *rag_ids, malformed = trace_ids_with_keys([(0.0, 0.5)] * 3 + [(0.5, 1.0)] * 2 + [(0.0, 0.5)])
    spans = ([span for trace_id in rag_ids for span in record("shop", rag_trace, [trace_id])]
             + record("shop", plain_trace) + record("shop", plain_trace)
             + record("shop", malformed_trace, [malformed]))
    assert len({s.context.trace_id for s in spans}) == 8
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS
    # The same batch again, as a retrying exporter might send it: every span is a duplicate, whether its
    # trace is still buffered or already decided, never a second trace and never a lost (late) span.
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS

    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 8)
    await asyncio.sleep(0.3)    # several quiet periods: nothing further may be decided
    samples = parse((await get(ports.metrics, "/metrics"))[1])
    assert outcomes(samples) == {"scored": 3, "not_sampled": 2, "not_rag": 2, "evicted": 0, "error": 1}
    assert total(samples, "ragmon_spans_received_total") == 2 * len(spans)
    assert total(samples, "ragmon_spans_rejected_total", reason="duplicate") == len(spans)
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert total(samples, "ragmon_examples_scored_total") == 3


async def test_a_failure_after_scoring_is_one_error_and_scoring_goes_on(start_sidecar: Start) -> None:
    # The exporter fails on the first scored example only (a stand-in for any bug past the judge): that
    # trace is an error, and the one lane consumer (1 worker: 2 consumers) must live on for the next 3.
    sidecar, ports = await start_sidecar(workers=1)
    real = sidecar.exporter.example_scored
    calls: list[str] = []

    def fails_once(*args: Any, **kwargs: Any) -> None:
        calls.append("call")
        if len(calls) == 1:
            raise RuntimeError("a bug")
        real(*args, **kwargs)

    sidecar.exporter.example_scored = fails_once  # type: ignore[method-assign]
    for n in range(4):
        assert await export(http_exporter(ports), record("shop", rag_trace)) is SpanExportResult.SUCCESS
        await wait_metrics(ports.metrics, lambda s, done=n + 1: total(s, "ragmon_traces_total") >= done)
    samples = parse((await get(ports.metrics, "/metrics"))[1])
    assert outcomes(samples) == {"scored": 3, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1}


async def test_services_that_send_no_rag_trace_take_no_pipeline_slot(start_sidecar: Start) -> None:
    # One slot. "payments" sends a trace with no RAG data first, then "shop" a RAG trace: shop gets the
    # slot and its own label; payments is counted under other; a later non-RAG trace of shop keeps shop.
    _, ports = await start_sidecar(max_pipelines=1)
    for name, build in (("payments", plain_trace), ("shop", rag_trace), ("shop", plain_trace)):
        assert await export(http_exporter(ports), record(name, build)) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 3)
    assert total(samples, "ragmon_traces_total", pipeline="other", outcome="not_rag") == 1
    assert total(samples, "ragmon_traces_total", pipeline="shop", outcome="scored") == 1
    assert total(samples, "ragmon_traces_total", pipeline="shop", outcome="not_rag") == 1
    assert total(samples, "ragmon_traces_total", pipeline="payments") == 0


async def test_a_declared_rag_pipeline_whose_traces_fail_keeps_its_own_label(start_sidecar: Start) -> None:
    # A pipeline named by `ragmon.pipeline` (support) whose documents arrive cut short: every trace of it
    # is an `error`. It declares itself a RAG pipeline, so the error is counted under its name, not
    # hidden in `other` where no alert on that pipeline would see it.
    _, ports = await start_sidecar(max_pipelines=1)
    assert await export(http_exporter(ports), record("support-app", cut_trace)) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert total(samples, "ragmon_traces_total", pipeline="support", outcome="error") == 1
    assert total(samples, "ragmon_traces_total", pipeline="other") == 0


async def test_a_pipeline_name_too_long_for_a_label_is_shortened_and_logged_with_its_trace_and_attribute(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    # Labels by the rule of README "Metrics exported": the first 115 bytes, "~", 12 hex digits of SHA-256.
    caplog.set_level(logging.WARNING, logger="ragmon.exporter")
    _, ports = await start_sidecar()
    service = "checkout-" + "x" * 200                                   # a service.name of 209 bytes
    prompt = "You are a helpful assistant. " * 10                       # a ragmon.pipeline of 290 bytes

    def declared(provider: TracerProvider) -> None:
        with instrument.rag_span(QUESTION, pipeline=prompt, tracer_provider=provider) as rag:
            rag.retrieved([DOC])
            rag.answered(ANSWER)

    by_service, by_attribute = record(service, rag_trace), record("shop", declared)
    await send_traces(ports, [by_service, by_attribute])
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 2)
    service_label = "checkout-" + "x" * 106 + "~" + hashlib.sha256(service.encode()).hexdigest()[:12]
    # 115 bytes: three times the 29-byte sentence, then the sentence without its final space.
    prompt_label = ("You are a helpful assistant. " * 3 + "You are a helpful assistant."
                    + "~" + hashlib.sha256(prompt.encode()).hexdigest()[:12])
    for label in (service_label, prompt_label):
        assert total(samples, "ragmon_traces_total", pipeline=label, outcome="scored") == 1
    lines = [r for r in caplog.records if r.name == "ragmon.exporter"]
    assert {(r.pipeline, r.source, r.trace_id, r.name_bytes) for r in lines} == {
        (service_label, "service.name", hex_id(by_service[0]), 209),
        (prompt_label, "ragmon.pipeline", hex_id(by_attribute[0]), 290)}


async def test_a_flood_of_identical_extraction_failures_logs_one_line_a_minute_and_counts_every_trace(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    clock = ManualClock(1000.0)
    _, ports = await start_sidecar(failures=FailureLog(logging.getLogger("ragmon.service"), clock=clock))
    flood = [record("shop", content_off_trace) for _ in range(20)]
    await send_traces(ports, flood)
    await wait_errors(ports, 20)
    [line] = failure_lines()
    assert line.getMessage() == "trace cannot be extracted"
    assert line.trace_id in {hex_id(spans[0]) for spans in flood}
    assert RETRIEVER_SPAN in line.error and "TRACELOOP_TRACE_CONTENT" in line.error
    # "shop" never sent a trace that was scored, but its traces are RAG work extraction refused: they
    # take shop's label, where an alert on shop's errors sees them (under `other` they did not).
    assert (line.pipeline, line.service, line.suppressed, line.exc_info) == ("shop", "shop", 0, None)

    # Another problem (another pipeline, span and attribute) gets a line of its own at once.
    cut = [record("support-app", cut_trace) for _ in range(3)]
    await send_traces(ports, cut)
    await wait_errors(ports, 23)
    second = failure_lines()[1]
    assert (second.getMessage(), second.pipeline, second.suppressed) == (line.getMessage(), "support", 0)
    assert "ragmon.contexts" in second.error and second.trace_id in {hex_id(spans[0]) for spans in cut}

    clock.now += 60     # the window is over: the next failure is logged, counting the 19 left out
    late = record("shop", content_off_trace)
    await send_traces(ports, [late])
    samples = await wait_errors(ports, 24)
    assert len(failure_lines()) == 3
    third = failure_lines()[2]
    assert third.getMessage() == "trace cannot be extracted ... and 19 more like it since the last line"
    assert (third.trace_id, third.suppressed) == (hex_id(late[0]), 19)
    assert outcomes(samples) == {"scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 24}


async def test_a_genai_trace_without_content_is_an_error_whose_line_names_the_switches(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # OTel GenAI instrumentations capture no content by default: that trace was "scored" with nothing to
    # score. Its twin with content on the spans is scored: groundedness 1/2 (see ANSWER).
    _, ports = await start_sidecar()
    off, on = record("shop", genai_trace(content=False)), record("shop", genai_trace(content=True))
    await send_traces(ports, [off, on])

    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 2)
    assert outcomes(samples) == {"scored": 1, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1}
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="shop", judge="lexical"))] == 0.5
    [line] = failure_lines()
    assert (line.getMessage(), line.trace_id, line.service) == (
        "trace cannot be extracted", hex_id(off[0]), "shop")
    assert "span 'retrieval kb'" in line.error and "'gen_ai.retrieval.documents' is missing" in line.error
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only" in line.error
    assert "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental" in line.error


async def test_a_judge_failing_on_every_trace_logs_one_traceback_a_minute(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    clock = ManualClock(1000.0)
    _, ports = await start_sidecar(lanes=[BrokenLane()],
                                   failures=FailureLog(logging.getLogger("ragmon.service"), clock=clock))
    sent = [record("shop", rag_trace) for _ in range(10)]
    await send_traces(ports, sent)
    samples = await wait_errors(ports, 10)
    assert total(samples, "ragmon_judge_requests_total", judge="lexical", outcome="error") == 10
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.judge, line.suppressed) == (
        "scoring failed", logging.ERROR, "lexical", 0)
    assert line.trace_id in {hex_id(spans[0]) for spans in sent}
    assert line.exc_info is not None and str(line.exc_info[1]) == "the judge is misconfigured"

    clock.now += 60
    await send_traces(ports, [record("shop", rag_trace)])
    await wait_errors(ports, 11)
    assert len(failure_lines()) == 2
    second = failure_lines()[1]
    assert second.getMessage() == "scoring failed ... and 9 more like it since the last line"
    assert second.suppressed == 9 and second.exc_info is not None


async def test_eviction_then_drain_on_stop_scores_what_is_buffered(start_sidecar: Start) -> None:
    # Nothing decides on its own (quiet 30 s): the third trace evicts the first, stop() drains the rest.
    # The receivers evict nothing (a request of three traces is refused, test_service_admission.py): the
    # third comes as spans no refusal held back, given to the assembler directly, and the eviction is
    # handed on with the drain.
    sidecar, ports = await start_sidecar(max_traces=2, quiet=30.0, decision_wait=60.0)
    spans = record("shop", rag_trace) + record("shop", rag_trace)
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS
    for span in decode_protobuf(encode_spans(record("shop", rag_trace)).SerializeToString()).spans:
        assert sidecar.assembler.add(span) == "accepted"
    scraped = parse((await get(ports.metrics, "/metrics"))[1])
    assert total(scraped, "ragmon_traces_in_flight") == 2
    # The limit beside it, and the other two (--max-buffer's default, 256 MiB; --queue-size's, 1,000).
    assert (total(scraped, "ragmon_max_traces"), total(scraped, "ragmon_max_buffer_bytes"),
            total(scraped, "ragmon_score_queue_size", judge="lexical")) == (2, 256 * 2**20, 1_000)
    await sidecar.stop()
    assert outcomes(registry_samples(sidecar)) == {"scored": 2, "not_sampled": 0, "not_rag": 0,
                                                    "evicted": 1, "error": 0}


async def test_full_score_queue_pushes_back_with_503_then_recovers(start_sidecar: Start) -> None:
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane], queue_size=1)
    first, second, third = (record("shop", rag_trace) for _ in range(3))
    assert await export(http_exporter(ports), first) is SpanExportResult.SUCCESS
    await asyncio.wait_for(lane.started.wait(), 10)          # the worker holds trace 1
    assert await export(http_exporter(ports), second) is SpanExportResult.SUCCESS
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_score_queue_depth") == 1)   # queue full

    body = encode_spans(third).SerializeToString()      # what the SDK exporter would post
    async with aiohttp.ClientSession() as session, \
            session.post(f"http://127.0.0.1:{ports.http}/v1/traces", data=body,
                         headers={"Content-Type": "application/x-protobuf"}) as response:
        assert response.status == 503
        assert response.headers["Retry-After"] == "1"
        assert status_pb2.Status.FromString(await response.read()).message == (
            "ragmon is busy: its score queue is full (--queue-size 1): scoring falls behind the traffic "
            "(raise --workers, or lower the sample rate); retry later")
    samples = parse((await get(ports.metrics, "/metrics"))[1])
    assert total(samples, "ragmon_spans_rejected_total", reason="backpressure") == len(third)
    assert total(samples, "ragmon_spans_received_total") == len(first) + len(second)

    lane.gate.set()
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 2)
    assert await export(http_exporter(ports), third) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 3)
    assert outcomes(samples)["scored"] == 3
    assert sidecar.ready


async def test_a_nearly_full_trace_buffer_pushes_back_instead_of_evicting(start_sidecar: Start) -> None:
    # max_traces 10: refused from 90% (9 buffered traces) on. Nothing decides (quiet 30 s). One request
    # of 9 traces is taken whole; the next, 1 trace, gets 503 and Retry-After, and nothing is evicted.
    _, ports = await start_sidecar(max_traces=10, quiet=30.0, decision_wait=60.0)
    nine = [span for _ in range(9) for span in record("shop", rag_trace)]
    tenth = record("shop", rag_trace)
    assert (await post_spans(ports.http, nine)).status == 200
    # Which limit, and what to raise: "its score queue or trace buffer is full" had left it to the gauges.
    assert await assert_pushed_back(ports, tenth, buffered=9) == (
        "ragmon is busy: its trace buffer holds 9 traces and this request would add 1, past 9 (90% of "
        "--max-traces 10): traces arrive faster than they are decided and scored; retry later")


async def test_readyz_turns_503_while_draining(start_sidecar: Start) -> None:
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane])
    assert await export(http_exporter(ports), record("shop", rag_trace)) is SpanExportResult.SUCCESS
    await asyncio.wait_for(lane.started.wait(), 10)
    stopping = asyncio.create_task(sidecar.stop())
    deadline = time.monotonic() + 5
    while (await get(ports.metrics, "/readyz"))[0] != 503:
        assert time.monotonic() < deadline, "readyz never turned 503"
        await asyncio.sleep(0.01)
    assert (await get(ports.metrics, "/healthz"))[0] == 200     # alive while draining
    lane.gate.set()
    await asyncio.wait_for(stopping, 10)
    assert outcomes(registry_samples(sidecar))["scored"] == 1


async def test_a_request_read_as_the_drain_begins_is_told_ragmon_is_stopping_not_busy(
        start_sidecar: Start) -> None:
    # A request decoded at the moment of SIGTERM was answered "its score queue or trace buffer is full"
    # with the queue empty; it is still a 503 (backpressure), which the exporter retries.
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane])
    assert await export(http_exporter(ports), record("shop", rag_trace)) is SpanExportResult.SUCCESS
    await asyncio.wait_for(lane.started.wait(), 10)
    stopping = asyncio.create_task(sidecar.stop())
    await asyncio.sleep(0)
    spans = decode_protobuf(encode_spans(record("shop", rag_trace)).SerializeToString()).spans
    refused = sidecar.offer(spans, "http")
    assert isinstance(refused, Refused)
    assert (refused.reason, refused.count) == ("backpressure", len(spans))
    assert refused.message == ("ragmon is stopping: it takes no more spans; retry later, as its successor "
                               "will take them")
    lane.gate.set()
    await asyncio.wait_for(stopping, 10)


async def test_a_final_scrape_wait_keeps_metrics_up_until_the_drains_outcomes_are_read(
        start_sidecar: Start) -> None:
    # What the drain decided after the last scrape reached the log only: the process exited with its
    # counters. With --final-scrape-wait, /metrics stays up until read once more, and no longer (30 s here).
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane], final_scrape_wait=30.0)
    assert await export(http_exporter(ports), record("shop", rag_trace)) is SpanExportResult.SUCCESS
    await asyncio.wait_for(lane.started.wait(), 10)
    stopping = asyncio.create_task(sidecar.stop())
    lane.gate.set()                           # the drain scores the one trace it holds
    last = await last_page(ports, stopping)
    assert outcomes(last) == {"scored": 1, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 0}


async def last_page(ports: Ports, stopping: asyncio.Task[None]) -> Samples:
    """The last /metrics page a stopping sidecar serves, read as Prometheus does (every 50 ms) until
    the stop is over."""
    deadline = time.monotonic() + 10
    last: Samples = {}
    while not stopping.done():
        try:
            status, text = await get(ports.metrics, "/metrics")
        except aiohttp.ClientConnectionError:  # closed once the final counts were read, before stop ends
            break
        if status == 200:
            last = parse(text)
        assert time.monotonic() < deadline, "the sidecar waited on past the scrape of its final counts"
        await asyncio.sleep(0.05)
    await stopping
    return last


HELD = ("ragmon_traces_in_flight", "ragmon_traces_waiting", "ragmon_traces_refused_pending",
        "ragmon_score_queue_depth", "ragmon_score_in_progress")
"""The gauges of traces taken with no outcome yet: traces taken = outcomes + these (the README's ledger)."""


async def test_a_drain_cut_short_counts_each_trace_left_once_on_the_final_page(start_sidecar: Start) -> None:
    # A queue of 2 and a judge that never finishes. e's root never comes (in flight); a is held by the
    # judge (in progress), b and c fill the queue, d waits for room. The drain's deadline (0.3 s) passes
    # with the 5 unscored, each counted `error`. The final page also showed b and c in the queue depth:
    # 5 + 2 = 7 of the 5 traces taken. By hand: error 5, every gauge of what is held 0, so outcomes +
    # held = 5 + 0 = 5, and the buffer holds no byte.
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane], drain_seconds=0.3, queue_size=2,
                                         final_scrape_wait=10.0)
    rootless = [span for span in record("shop", rag_trace) if span.parent is not None]
    await send_traces(ports, [rootless, record("shop", rag_trace)])
    await asyncio.wait_for(lane.started.wait(), 10)
    await send_traces(ports, [record("shop", rag_trace) for _ in "bcd"])
    await wait_metrics(ports.metrics, lambda s: [total(s, name) for name in HELD] == [1, 1, 0, 2, 1])
    last = await last_page(ports, asyncio.create_task(sidecar.stop()))
    assert outcomes(last) == {"scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 5}
    assert {name: total(last, name) for name in HELD} == dict.fromkeys(HELD, 0)
    assert total(last, "ragmon_buffer_bytes") == 0


class GatedClaude(GatedLane):
    """A second judge that never finishes: its examples are counted in no trace outcome."""

    judge = "claude"


async def test_a_drain_cut_short_keeps_a_second_judges_abandoned_examples_on_the_final_page(
        start_sidecar: Start) -> None:
    # Lexical (first lane) scores all 4 traces; the second judge holds one and queues 3. The drain's deadline
    # passes with those 3 never judged: counted in no outcome (the traces are the first judge's, scored), so
    # the final page's claude queue depth is their one count. Emptying every queue at the stop showed 0,
    # as if that judge had judged them. By hand: scored 4, error 0; claude's queue 3, lexical's 0 (the
    # one claude held is cancelled by the drain, in progress no more).
    claude = GatedClaude()
    sidecar, ports = await start_sidecar(lanes=[LexicalLane(rate=1.0, k=5, workers=1), claude],
                                         drain_seconds=0.3, final_scrape_wait=10.0)
    await send_traces(ports, [record("shop", rag_trace) for _ in range(4)])
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 4
                       and total(s, "ragmon_score_queue_depth", judge="claude") == 3)
    last = await last_page(ports, asyncio.create_task(sidecar.stop()))
    assert outcomes(last) == {"scored": 4, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 0}
    depth = {judge: total(last, "ragmon_score_queue_depth", judge=judge) for judge in ("lexical", "claude")}
    assert depth == {"lexical": 0, "claude": 3}


async def test_only_a_page_with_the_outcomes_ends_the_final_scrape_wait(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    # A probe reading one series (`name[]=ragmon_build_info`) during the wait ended it: the outcomes went
    # unread, and unwarned of. It gets its page and the wait goes on; Prometheus's full page ends it.
    caplog.set_level(logging.INFO, logger="ragmon.service")
    sidecar, ports = await start_sidecar(final_scrape_wait=30.0)
    stopping = asyncio.create_task(sidecar.stop())
    deadline = time.monotonic() + 10
    while "waiting for a final scrape of /metrics" not in [r.getMessage() for r in caplog.records]:
        assert time.monotonic() < deadline, "the final scrape wait never began"
        await asyncio.sleep(0.02)
    status, text = await get(ports.metrics, "/metrics?name[]=ragmon_build_info")
    assert status == 200 and "ragmon_build_info{" in text and "ragmon_traces_total" not in text
    await asyncio.sleep(0.5)
    assert not stopping.done()
    assert (await get(ports.metrics, "/metrics"))[0] == 200
    await asyncio.wait_for(stopping, 5)


async def test_a_final_scrape_that_never_comes_ends_the_wait_at_its_bound(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ragmon.service")
    sidecar, _ = await start_sidecar(final_scrape_wait=0.3)
    started = time.monotonic()
    await asyncio.wait_for(sidecar.stop(), 10)
    assert time.monotonic() - started >= 0.3
    said = [r.getMessage() for r in caplog.records if r.name == "ragmon.service"]
    assert "waiting for a final scrape of /metrics" in said
    assert ("no scrape of /metrics within --final-scrape-wait: the last outcomes are in the log only"
            in said)


class StallingLane:
    """The lexical judge in process, `delay` seconds an example, behind a gate that starts open: a busy
    scorer that keeps finishing, until the test closes the gate and it stops as a SIGSTOPped worker does."""

    judge = "lexical"
    rate = 1.0
    concurrency = 1

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.gate = asyncio.Event()
        self.gate.set()
        self.waiting = asyncio.Event()
        """Set when an example meets the closed gate."""

    async def start(self) -> None:
        pass

    async def score(self, example: Example) -> Scored:
        await asyncio.sleep(self.delay)
        if not self.gate.is_set():
            self.waiting.set()
            await self.gate.wait()
        return Scored(evaluate_example(example, LexicalJudge(), 5), self.delay)

    async def close(self) -> None:
        pass


async def test_healthz_fails_on_a_stalled_scorer_never_on_a_busy_or_idle_one(
        start_sidecar: Start, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A bound of 0.6 s instead of 120. Idle for 1 s: 200. Busy: 8 examples queued at once, 0.15 s each,
    so the lane holds examples for 1.2 s, twice the bound, finishing one every 0.15 s: 200 throughout.
    Stalled: 2 examples and the gate closed: 200 at first, 503 once the bound has passed with none
    finished, saying so; the gate reopened, both are scored and it is 200 again."""
    monkeypatch.setattr("ragmon.service.STALL_SECONDS", 0.6)
    lane = StallingLane(0.15)
    _, ports = await start_sidecar(lanes=[lane])
    healthy = (200, "ok\n")
    await asyncio.sleep(1.0)
    assert await get(ports.metrics, "/healthz") == healthy

    await send_traces(ports, [record("shop", rag_trace) for _ in range(8)])
    answers = []
    while (total(parse((await get(ports.metrics, "/metrics"))[1]), "ragmon_traces_total", outcome="scored")
           < 8):
        answers.append(await get(ports.metrics, "/healthz"))
        await asyncio.sleep(0.05)
    assert len(answers) >= 10 and set(answers) == {healthy}

    lane.gate.clear()
    caplog.set_level(logging.ERROR, logger="ragmon.service")
    await send_traces(ports, [record("shop", rag_trace), record("shop", rag_trace)])
    await asyncio.wait_for(lane.waiting.wait(), 10)
    assert await get(ports.metrics, "/healthz") == healthy
    deadline = time.monotonic() + 10
    while (answer := await get(ports.metrics, "/healthz"))[0] != 503:
        assert time.monotonic() < deadline, "healthz never turned 503"
        await asyncio.sleep(0.05)
    stalled = r"lexical scoring stalled: 2 examples held, none finished for \d+ s \(limit 0\.6 s\)"
    assert re.fullmatch(stalled + "\n", answer[1]), answer
    logged = [r.getMessage() for r in caplog.records if r.name == "ragmon.service" and r.levelname == "ERROR"]
    assert logged and all(re.fullmatch(stalled, line) for line in logged)

    lane.gate.set()
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 10)
    assert await get(ports.metrics, "/healthz") == healthy


async def test_drain_deadline_counts_what_is_left_as_error(start_sidecar: Start) -> None:
    lane = GatedLane()                                          # never opened: scoring never finishes
    sidecar, ports = await start_sidecar(lanes=[lane], drain_seconds=0.3)
    assert await export(http_exporter(ports), record("a", rag_trace) + record("b", rag_trace)) \
        is SpanExportResult.SUCCESS
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_score_queue_depth") == 1)  # 1 held, 1 queued
    # Decided after 50 ms, then waiting for room in the full queue.
    assert await export(http_exporter(ports), record("c", rag_trace)) is SpanExportResult.SUCCESS
    started = time.monotonic()
    await sidecar.stop()
    assert time.monotonic() - started < 3
    samples = registry_samples(sidecar)
    assert outcomes(samples) == {"scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 3}


async def test_the_drain_warning_counts_the_traces_left_unscored_not_the_evicted(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    # A queue of 1: a is held by the lane, b fills the queue, c (sent with b) waits for room, and with it
    # the decider. Meanwhile the buffer (2 traces) takes d, e and f, evicting d: spans no refusal held
    # back (the receivers refuse them now), given to the assembler directly. At the deadline a, b, c, e
    # and f were left unscored (error: 5) and d stays evicted; the warning says 5 unscored, not 6.
    lane = GatedLane()
    sidecar, ports = await start_sidecar(lanes=[lane], drain_seconds=0.3, max_traces=2, queue_size=1)
    assert await export(http_exporter(ports), record("a", rag_trace)) is SpanExportResult.SUCCESS
    await asyncio.wait_for(lane.started.wait(), 10)
    assert await export(http_exporter(ports), record("b", rag_trace) + record("c", rag_trace)) \
        is SpanExportResult.SUCCESS
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_score_queue_depth") == 1
                       and total(s, "ragmon_traces_in_flight") == 0)
    for name in ("d", "e", "f"):
        for span in decode_protobuf(encode_spans(record(name, rag_trace)).SerializeToString()).spans:
            sidecar.assembler.add(span)
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    await sidecar.stop()
    assert outcomes(registry_samples(sidecar)) == {
        "scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 1, "error": 5}
    [warning] = [r for r in caplog.records if r.getMessage().startswith("drain deadline passed")]
    assert warning.count == 5


async def test_a_stalled_upload_does_not_hold_up_the_drain(start_sidecar: Start) -> None:
    # A client that sent headers and 3 of its 1000 body bytes, then stalls: the receivers only refuse
    # once draining, so waiting for that request serves nothing. aiohttp's default would wait 60 s for
    # it; the bound is the receivers' 1 s grace, which the drain (0.5 s) runs beside, far under 60 s.
    sidecar, ports = await start_sidecar(drain_seconds=0.5)
    _, writer = await asyncio.open_connection("127.0.0.1", ports.http)
    writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
                 b"Content-Length: 1000\r\n\r\nabc")
    await writer.drain()
    assert await get(ports.metrics, "/healthz") == (200, "ok\n")   # loop round trips: the handler has it
    started = time.monotonic()
    try:
        await asyncio.wait_for(sidecar.stop(), 10)
    finally:
        writer.close()
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(("setting", "what", "flag", "then"), [
    ("metrics_listen", "metrics", "--metrics-listen", ""),
    # The app's exporter names the OTLP port, so it must move with it.
    ("http_listen", "OTLP/HTTP", "--http-listen", ", and send the app's traces there"),
])
async def test_a_busy_port_is_a_clear_error_naming_the_flag_to_change(
        start_sidecar: Start, setting: str, what: str, flag: str, then: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(RagmonError) as raised:
            await start_sidecar(**{setting: ("127.0.0.1", port)})
    message = str(raised.value)
    assert message.startswith(f"cannot listen for {what} on 127.0.0.1:{port} ({flag}): ")
    assert message.endswith(f"address already in use; another process holds that port (a second ragmon "
                            f"serve?): give {flag} another port{then}")


async def test_a_busy_grpc_port_names_its_flag_too(start_sidecar: Start) -> None:
    # gRPC gives no reason, only that it bound nothing: the port is tried first, and its reason given.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(RagmonError) as raised:
            await start_sidecar(grpc_listen=("127.0.0.1", port))
    assert str(raised.value) == (f"cannot listen for OTLP/gRPC on 127.0.0.1:{port} (--grpc-listen): address "
                                 "already in use; another process holds that port (a second ragmon serve?): "
                                 "give --grpc-listen another port, and send the app's traces there")


async def test_a_second_sidecar_cannot_share_the_first_ones_grpc_port(start_sidecar: Start) -> None:
    # gRPC sets SO_REUSEPORT unless told not to: a second sidecar on the same port would start, and the
    # kernel would hand it half the app's connections, with nothing logged by either.
    _, ports = await start_sidecar(grpc_listen=("127.0.0.1", 0))
    with pytest.raises(RagmonError) as raised:
        await start_sidecar(grpc_listen=("127.0.0.1", ports.grpc))
    message = str(raised.value)
    assert message.startswith(f"cannot listen for OTLP/gRPC on 127.0.0.1:{ports.grpc} (--grpc-listen)")



async def test_a_receiver_turned_off_exports_no_series(start_sidecar: Start) -> None:
    # `--grpc-listen off` showed a dashboard a gRPC receiver at 0 spans, one that does not exist.
    _, ports = await start_sidecar(grpc_listen=None)
    assert ports.metrics is not None
    samples = await wait_metrics(ports.metrics, lambda s: True)
    transports = {(name, dict(labels)["transport"]) for name, labels in samples
                  if "transport" in dict(labels)}
    assert transports == {("ragmon_spans_received_total", "http"),
                          ("ragmon_misdirected_requests_total", "http")}


# --- the CLI in a subprocess ---------------------------------------------------------------------------

def test_cli_sigterm_drains_buffered_traces_and_exits_0(serve_process: Any) -> None:
    env = {"RAGMON_QUIET": "30s", "RAGMON_DECISION_WAIT": "60s"}   # flags via environment
    with serve_process(["--drain-seconds", "10s"], env) as serve:
        asyncio.run(_send_and_wait_buffered(serve.ready["http_port"], serve.ready["metrics_port"]))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs
    assert [entry["outcomes"] for entry in logs if entry["message"] == "stopped"] == [{"scored": 3}]
    assert any(entry["message"] == "draining" and entry["traces_in_flight"] == 3 for entry in logs)


async def _send_and_wait_buffered(http: int, metrics: int) -> None:
    assert (await get(metrics, "/readyz"))[0] == 200
    spans = record("shop", rag_trace) + record("shop", rag_trace) + record("shop", rag_trace)
    ports = Ports(http=http, grpc=None, metrics=metrics)
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS
    await wait_metrics(metrics, lambda s: total(s, "ragmon_traces_in_flight") == 3)


def test_cli_unreadable_token_file_exits_2_with_a_message(ragmon_cmd: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "no-such-token"
    result = subprocess.run([*ragmon_cmd, "serve", "--token-file", str(missing)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert str(missing) in result.stderr and "Traceback" not in result.stderr
    empty = tmp_path / "empty-token"
    empty.write_text("\n")
    result = subprocess.run([*ragmon_cmd, "serve", "--token-file", str(empty)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 2 and "empty" in result.stderr


def test_lexical_threshold_flag_reaches_the_workers_judge() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = ServeConfig.from_args(parser.parse_args(["--lexical-threshold", "0.5"]))
    assert config.lexical_threshold == 0.5 and lexical_lane(config).threshold == 0.5
    default = ServeConfig.from_args(parser.parse_args([]))
    assert lexical_lane(default).threshold == LexicalJudge().threshold


# `--max-buffer`: the sidecar bounds what traces hold in memory from their first span until their outcome
# is counted, not only how many it buffers.
#
# The real service in-process on port 0, spans recorded by the OTel SDK and posted as its OTLP/HTTP exporter
# posts them. Each trace carries one document of 1.1 MiB of ASCII, so it holds 1.1 MiB and a few kB (its
# spans, ids, the SDK's resource attributes): three hold 3.3 MiB + a few kB, within 90% of a 4 MiB buffer
# (3.6 MiB), and a fourth would take it past that, so the third is taken and the fourth refused.
MiB = 2**20
SENTENCE = "The warranty lasts 2 years from the date of purchase. "
BIG_DOC = (SENTENCE * (11 * MiB // 10 // len(SENTENCE) + 1))[:11 * MiB // 10]


def big_rag_trace(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("test")
    chain = {KIND: "CHAIN", "input.value": "How long is the warranty?", "output.value": "It lasts 2 years."}
    retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": "warranty",
                 "retrieval.documents.0.document.content": BIG_DOC}
    with tracer.start_as_current_span("qa", attributes=chain), \
            tracer.start_as_current_span("retrieve", attributes=retriever):
        pass


class Reply(NamedTuple):
    status: int
    headers: Mapping[str, str]
    body: bytes


async def post_spans(port: int, spans: Sequence[ReadableSpan]) -> Reply:
    async with aiohttp.ClientSession() as session, \
            session.post(f"http://127.0.0.1:{port}/v1/traces", data=encode_spans(spans).SerializeToString(),
                         headers={"Content-Type": "application/x-protobuf"}) as response:
        return Reply(response.status, response.headers, await response.read())


async def assert_pushed_back(ports: Ports, spans: Sequence[ReadableSpan], buffered: int) -> str:
    """`spans` get 503 with Retry-After, counted as back-pressure, while `buffered` traces stay buffered and
    none is evicted; what the 503 says."""
    refused = await post_spans(ports.http, spans)
    assert (refused.status, refused.headers["Retry-After"]) == (503, "1")
    samples = parse((await get(ports.metrics, "/metrics"))[1])
    assert total(samples, "ragmon_traces_in_flight") == buffered
    assert total(samples, "ragmon_spans_rejected_total", reason="backpressure") == len(spans)
    assert total(samples, "ragmon_traces_total", outcome="evicted") == 0
    return status_pb2.Status.FromString(refused.body).message


async def test_a_buffer_full_in_bytes_pushes_back_instead_of_evicting(start_sidecar: Start) -> None:
    # Nothing decides (quiet 30 s): three traces are buffered, far under max_traces, and the fourth gets
    # 503 with Retry-After; nothing is evicted.
    _, ports = await start_sidecar(max_buffer=4 * MiB, quiet=30.0, decision_wait=60.0)
    for _ in range(3):
        assert (await post_spans(ports.http, record("shop", big_rag_trace))).status == 200
    said = await assert_pushed_back(ports, record("shop", big_rag_trace), buffered=3)
    held, added = map(int, re.fullmatch(
        r"ragmon is busy: its trace buffer holds (\d+) bytes and this request would add (\d+), past 3774873 "
        r"\(90% of --max-buffer 4 MiB\): traces arrive faster than they are decided and scored; retry later",
        said).groups())  # 4 MiB is 4,194,304 bytes, 90% of it 3,774,873
    assert held < 3774873 < held + added and held == 3 * added


async def test_a_trace_holds_its_bytes_until_scored_not_only_while_buffered(start_sidecar: Start) -> None:
    # quiet 50 ms: the three traces leave the assembler at once, but the gated judge holds the first and
    # the queue the other two, so they still hold 3.3 MiB and the fourth is refused; once all three are
    # scored, it is taken.
    lane = GatedLane()
    _, ports = await start_sidecar(lanes=[lane], max_buffer=4 * MiB)
    for _ in range(3):
        assert (await post_spans(ports.http, record("shop", big_rag_trace))).status == 200
    await asyncio.wait_for(lane.started.wait(), 10)
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_in_flight") == 0
                       and total(s, "ragmon_score_queue_depth") == 2)
    fourth = record("shop", big_rag_trace)
    assert (await post_spans(ports.http, fourth)).status == 503
    held = total(parse((await get(ports.metrics, "/metrics"))[1]), "ragmon_buffer_bytes")
    assert 3 * len(BIG_DOC) < held < 4 * MiB  # three documents and a few kB each, shown to the operator

    lane.gate.set()
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 3
                       and total(s, "ragmon_buffer_bytes") == 0)
    assert (await post_spans(ports.http, fourth)).status == 200
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 4)


async def test_a_request_over_max_values_is_refused_over_both_transports_and_counted(
        start_sidecar: Start) -> None:
    # `ragmon serve --max-values 1000`; one span of 1,500 events (the SDK keeps 128 unless told otherwise)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    config = ServeConfig.from_args(parser.parse_args(["--max-values", "1000"]))
    _, ports = await start_sidecar(max_values=config.max_values)

    def eventful(provider: TracerProvider) -> None:
        with provider.get_tracer("test").start_as_current_span("GET /flood") as span:
            for n in range(1_500):
                span.add_event(f"e{n}")

    memory = InMemorySpanExporter()
    provider = TracerProvider(span_limits=SpanLimits(max_events=2_000))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    eventful(provider)
    spans = memory.get_finished_spans()
    assert len(spans[0].events) == 1_500
    # Over HTTP a 413 is final: 1 request.
    assert await export(http_exporter(ports), spans) is SpanExportResult.FAILURE
    await wait_metrics(ports.metrics,
                       lambda s: total(s, "ragmon_spans_rejected_total", reason="too_large") == 1)
    # The gRPC exporter retries RESOURCE_EXHAUSTED: within 2 s it tries at 0 and after its first backoff
    # (0.8-1.2 s), unless the first attempt was slow, and never after the second (>= 1.6 s): 1 or 2
    # requests, each counted by the time the exporter gives up.
    grpc_exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{ports.grpc}", insecure=True, timeout=2.0)
    assert await export(grpc_exporter, spans) is SpanExportResult.FAILURE
    samples = await wait_metrics(
        ports.metrics, lambda s: total(s, "ragmon_spans_rejected_total", reason="too_large") >= 2)
    assert total(samples, "ragmon_spans_rejected_total", reason="too_large") in (2, 3)
    assert total(samples, "ragmon_spans_received_total") == 0


async def settled(ports: Ports, traces: int) -> Samples:
    """The scrape once `traces` traces have an outcome and 0.3 s more have passed, in which a span refused
    as late, or a trace too many, would have been counted."""
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= traces)
    await asyncio.sleep(0.3)
    return parse((await get(ports.metrics, "/metrics"))[1])


def services(gateway: bool = False) -> dict[str, list[ReadableSpan]]:
    """One request across services, each with its own SDK, each calling the next over HTTP (a CLIENT span,
    the traceparent, the callee's SERVER span): "rag-api" answers (its chain holds the question and the
    answer) after calling "retriever-svc", which retrieves DOC. With `gateway`, a "gateway" service calls
    rag-api first, so rag-api's root continues a traceparent too. Each service's spans, by its name."""
    propagator = TraceContextTextMapPropagator()
    names = ("gateway", "rag-api", "retriever-svc") if gateway else ("rag-api", "retriever-svc")
    memories = {name: InMemorySpanExporter() for name in names}
    providers = []
    for name, memory in memories.items():
        provider = TracerProvider(resource=Resource.create({"service.name": name}))
        provider.add_span_processor(SimpleSpanProcessor(memory))
        providers.append(provider)
    tracers = {name: provider.get_tracer("test") for name, provider in zip(names, providers, strict=True)}
    chain = {KIND: "CHAIN", "input.value": QUESTION, "output.value": ANSWER}
    documents = {KIND: "RETRIEVER", "input.value": QUESTION, "retrieval.documents.0.document.id": DOC_ID,
                 "retrieval.documents.0.document.content": DOC}

    def called(name: str, headers: dict[str, str], route: str) -> contextlib.AbstractContextManager[object]:
        context = propagator.extract(headers) if headers else None
        return tracers[name].start_as_current_span(route, context=context, kind=SpanKind.SERVER)

    with contextlib.ExitStack() as stack:
        headers: dict[str, str] = {}
        if gateway:
            stack.enter_context(called("gateway", headers, "GET /"))
            stack.enter_context(tracers["gateway"].start_as_current_span("POST /ask", kind=SpanKind.CLIENT))
            propagator.inject(headers)
        api = tracers["rag-api"]
        with called("rag-api", headers, "POST /ask"), api.start_as_current_span("qa", attributes=chain), \
                api.start_as_current_span("GET /search", kind=SpanKind.CLIENT):
            search: dict[str, str] = {}
            propagator.inject(search)
            with called("retriever-svc", search, "GET /search"), \
                    tracers["retriever-svc"].start_as_current_span("retrieve", attributes=documents):
                pass
    for provider in providers:
        provider.shutdown()
    return {name: list(memory.get_finished_spans()) for name, memory in memories.items()}


@pytest.mark.parametrize("api_has_a_caller", [False, True])
async def test_a_service_called_first_does_not_close_the_trace_on_its_own(start_sidecar: Start,
                                                                          api_has_a_caller: bool) -> None:
    # The scale-out shape: every service's spans of a trace reach one ragmon. The retriever service ends
    # first and its exporter sends its part a while (here 0.5 s, ten quiet periods) before rag-api's,
    # which holds the answer. Its root continues rag-api's traceparent, and closed the trace alone: an
    # example with no answer under retriever-svc, and rag-api's 3 spans refused as late. One trace, one
    # example, the answer's 2 claims (1 supported), under rag-api.
    _, ports = await start_sidecar(decision_wait=3.0)
    parts = services(gateway=api_has_a_caller)  # the gateway's part never comes
    api_spans, retriever_spans = parts["rag-api"], parts["retriever-svc"]
    assert await export(http_exporter(ports), retriever_spans) is SpanExportResult.SUCCESS
    await asyncio.sleep(0.5)
    assert await export(http_exporter(ports), api_spans) is SpanExportResult.SUCCESS

    samples = await settled(ports, traces=1)
    assert total(samples, "ragmon_traces_total") == 1
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="scored") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="rag-api", judge="lexical"))] == 0.5


async def test_a_callers_part_sent_first_waits_for_the_service_it_called(start_sidecar: Start) -> None:
    # The other order: each service's exporter sends on its own timer, so rag-api's part (its parentless
    # root, the question and the answer, and its call to retriever-svc with no child here) may come first.
    # It had closed the trace alone: scored with no documents, groundedness 0 (n=2 claims), and the
    # retriever's 2 spans refused as late. The first trace comes while ragmon has heard from one service
    # only (in the first --decision-wait others may still come), the second once it has heard from two.
    # Both scored under rag-api with DOC: 1 of 2 claims each.
    _, ports = await start_sidecar(decision_wait=5.0)
    for _ in range(2):
        for spans in services().values():
            assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS
            await asyncio.sleep(0.5)
    samples = await settled(ports, traces=2)
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="scored") == 2
    assert total(samples, "ragmon_traces_total") == 2
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="rag-api", judge="lexical"))] == 0.5


def asked_here_answered_there() -> dict[str, list[ReadableSpan]]:
    """A request whose service records only the question (`ragmon.question` on its root) and calls another
    service over HTTP, which records the documents and the answer: each service's spans, by its name."""
    propagator = TraceContextTextMapPropagator()
    memories = {name: InMemorySpanExporter() for name in ("answer-svc", "answer-engine")}
    providers = {name: TracerProvider(resource=Resource.create({"service.name": name})) for name in memories}
    for name, provider in providers.items():
        provider.add_span_processor(SimpleSpanProcessor(memories[name]))
    caller, callee = (providers[name].get_tracer("test") for name in memories)
    answered = {"ragmon.contexts": json.dumps([{"id": DOC_ID, "text": DOC}]), "ragmon.answer": ANSWER}
    asked = {"ragmon.question": QUESTION}
    with caller.start_as_current_span("POST /ask", kind=SpanKind.SERVER, attributes=asked), \
            caller.start_as_current_span("POST /answer", kind=SpanKind.CLIENT):
        headers: dict[str, str] = {}
        propagator.inject(headers)
        with callee.start_as_current_span("POST /answer", context=propagator.extract(headers),
                                          kind=SpanKind.SERVER, attributes=answered):
            pass
    for provider in providers.values():
        provider.shutdown()
    return {name: list(memory.get_finished_spans()) for name, memory in memories.items()}


async def test_a_callers_part_holding_only_the_question_waits_for_the_service_it_called(
        start_sidecar: Start) -> None:
    # Its extraction fails ("neither documents nor an answer"): it had been an error at once, before the
    # wait for its callee was asked, and the callee's documents and answer were refused as late.
    _, ports = await start_sidecar(decision_wait=3.0)
    parts = asked_here_answered_there()
    assert await export(http_exporter(ports), parts["answer-svc"]) is SpanExportResult.SUCCESS
    await asyncio.sleep(0.5)
    assert await export(http_exporter(ports), parts["answer-engine"]) is SpanExportResult.SUCCESS
    samples = await settled(ports, traces=1)
    assert total(samples, "ragmon_traces_total") == 1
    assert total(samples, "ragmon_traces_total", pipeline="answer-svc", outcome="scored") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0


async def test_a_trace_failing_on_a_malformed_attribute_waits_for_no_other_part(start_sidecar: Start) -> None:
    # A callee's part (its root continues a traceparent) whose documents are no JSON: no other service's
    # part can mend it, so it is an error a quiet period after its last span, not --decision-wait (3 s)
    # later, as a part holding neither documents nor an answer is.
    _, ports = await start_sidecar(decision_wait=3.0)
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "answer-engine"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    caller = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    with provider.get_tracer("test").start_as_current_span(
            "POST /answer", context=TraceContextTextMapPropagator().extract(caller), kind=SpanKind.SERVER,
            attributes={"ragmon.contexts": "not JSON", "ragmon.answer": ANSWER}):
        pass
    provider.shutdown()
    started = time.monotonic()
    assert await export(http_exporter(ports), memory.get_finished_spans()) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert time.monotonic() - started < 2.5
    assert total(samples, "ragmon_traces_total", outcome="error") == 1


async def test_a_sidecar_hearing_one_service_holds_no_caller_for_its_callees(start_sidecar: Start) -> None:
    # Beside one app, the callee's spans go to its own sidecar: once the first --decision-wait (3 s) after
    # the first spans has shown that one service alone sends here, rag-api's part, with its call to
    # retriever-svc, is decided a quiet period after its last span, not held for --decision-wait. (In that
    # first wait, it is held: other services' exporters may not have sent yet.)
    _, ports = await start_sidecar(decision_wait=3.0)
    first = time.monotonic()
    assert await export(http_exporter(ports), services()["rag-api"]) is SpanExportResult.SUCCESS
    await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert time.monotonic() - first >= 3.0
    started = time.monotonic()
    assert await export(http_exporter(ports), services()["rag-api"]) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 2)
    assert time.monotonic() - started < 2.0
    assert total(samples, "ragmon_traces_total", outcome="not_rag") == 2   # no documents: no RAG answer


@pytest.mark.parametrize(("route", "call", "attributes"), [
    ("POST /chat", "chat", {KIND: "LLM", "llm.input_messages.0.message.role": "user",
                            "llm.input_messages.0.message.content": QUESTION,
                            "llm.output_messages.0.message.role": "assistant",
                            "llm.output_messages.0.message.content": ANSWER}),
    ("GET /search", "retrieval kb", {
        "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": QUESTION,
        "gen_ai.retrieval.documents": json.dumps([{"id": DOC_ID, "content": DOC}])}),
], ids=["model", "retrieval"])
async def test_a_call_to_a_model_or_a_store_is_no_call_to_a_service_whose_part_is_awaited(
        start_sidecar: Start, route: str, call: str, attributes: dict[str, str]) -> None:
    # A request whose only call is a CLIENT span to an API that sends no part of its own: a plain chat's
    # model call (OpenLLMetry's, GenAI's), or a search endpoint's retrieval as the GenAI conventions write
    # it (the documents, no answer). In the first --decision-wait (other services may yet send) each was
    # held for all of it, 3 s here; each is decided a quiet period after its last span, and scored.
    _, ports = await start_sidecar(decision_wait=3.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "api"}))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span(route, kind=SpanKind.SERVER), \
            tracer.start_as_current_span(call, kind=SpanKind.CLIENT, attributes=attributes):
        pass
    provider.shutdown()
    started = time.monotonic()
    assert await export(http_exporter(ports), list(memory.get_finished_spans())) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert time.monotonic() - started < 2.0
    assert total(samples, "ragmon_traces_total", pipeline="api", outcome="scored") == 1


async def test_a_refused_trace_of_two_services_is_counted_under_the_pipelines_service(
        start_sidecar: Start) -> None:
    # The pool: rag-api's model call failed, so the trace is an error; retriever-svc, which rag-api
    # called, ended first and its spans come first. The error was counted under a label claimed for
    # retriever-svc (the first span's service), apart from rag-api's scored traces.
    _, ports = await start_sidecar()
    providers = {name: TracerProvider(resource=Resource.create({"service.name": name}))
                 for name in ("rag-api", "retriever-svc")}
    memory = InMemorySpanExporter()
    for provider in providers.values():
        provider.add_span_processor(SimpleSpanProcessor(memory))
    api, retriever = (providers[name].get_tracer("test") for name in ("rag-api", "retriever-svc"))
    propagator = TraceContextTextMapPropagator()
    with api.start_as_current_span("POST /ask", kind=SpanKind.SERVER), \
            api.start_as_current_span("qa", attributes={KIND: "CHAIN", "input.value": QUESTION}):
        with api.start_as_current_span("GET /search", kind=SpanKind.CLIENT):
            headers: dict[str, str] = {}
            propagator.inject(headers)
            with retriever.start_as_current_span("GET /search", context=propagator.extract(headers),
                                                 kind=SpanKind.SERVER), \
                    retriever.start_as_current_span("retrieve", attributes={
                        KIND: "RETRIEVER", "input.value": QUESTION,
                        "retrieval.documents.0.document.id": DOC_ID,
                        "retrieval.documents.0.document.content": DOC}):
                pass
        with api.start_as_current_span("llm", attributes={KIND: "LLM"}) as llm:
            llm.set_status(Status(StatusCode.ERROR))
    for provider in providers.values():
        provider.shutdown()
    spans = list(memory.get_finished_spans())
    assert spans[0].resource.attributes["service.name"] == "retriever-svc"
    assert await export(http_exporter(ports), spans) is SpanExportResult.SUCCESS
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="error") == 1
    assert total(samples, "ragmon_traces_total", pipeline="retriever-svc") == 0


async def send_in_turn(ports: Ports, batches: Sequence[list[ReadableSpan]], gap: float) -> None:
    """Each batch as an exporter sends it (a service's part, say), `gap` seconds apart."""
    for batch in batches:
        assert await export(http_exporter(ports), batch) is SpanExportResult.SUCCESS
        await asyncio.sleep(gap)


async def test_a_pool_idle_since_its_start_still_waits_for_the_second_service(start_sidecar: Start) -> None:
    # A pool deployed before its apps, or idle past its first --decision-wait: its first traces come from
    # two services at once, rag-api's part first (question, answer, a call to retriever-svc). The wait for
    # other services had counted from the start and was over: the part closed alone as not_rag, and the
    # retriever's 2 spans were refused as late, and were never heard, so the next traces lost theirs too.
    _, ports = await start_sidecar(decision_wait=2.0)
    await asyncio.sleep(2.2)
    for _ in range(2):
        parts = services()
        await send_in_turn(ports, [parts["rag-api"], parts["retriever-svc"]], gap=0.3)
    samples = await settled(ports, traces=2)
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="scored") == 2
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0


async def test_three_services_give_one_whole_answer_whichever_part_comes_first(start_sidecar: Start) -> None:
    # gateway -> rag-api (question, answer) -> retriever-svc (documents), each exporting on its own timer,
    # so their parts reach the pool in any of 6 orders, 0.3 s (six quiet periods) apart. A trace could be
    # taken back once only: 4 orders lost the answer (not_rag, or scored under retriever-svc with no
    # answer, rag-api's spans refused as late) and a fifth refused the gateway's spans as late. Each trace:
    # one answer, 2 claims, 1 supported (DOC), under rag-api; 7 spans, none late.
    _, ports = await start_sidecar(decision_wait=3.0)
    orders = list(itertools.permutations(("gateway", "rag-api", "retriever-svc")))
    traces = [services(gateway=True) for _ in orders]
    steps = [[span for parts, order in zip(traces, orders, strict=True) for span in parts[order[step]]]
             for step in range(3)]
    await send_in_turn(ports, steps, gap=0.3)
    samples = await settled(ports, traces=6)
    assert total(samples, "ragmon_traces_total") == 6
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="scored") == 6
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert total(samples, "ragmon_spans_received_total") == 6 * 7
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="rag-api", judge="lexical"))] == 0.5


async def test_a_callees_whole_answer_waits_for_its_callers_spans_once_two_services_send(
        start_sidecar: Start) -> None:
    # rag-api, the callee of a gateway, holds the whole RAG answer; its part comes first, and had been
    # scored at once, the gateway's 2 spans then refused as late: RagmonSpansRejected for nothing lost.
    # Once retriever-svc and rag-api are heard from, the part waits for the gateway's root. One trace,
    # scored under rag-api, no late span, 3 + 2 + 2 spans received.
    _, ports = await start_sidecar(decision_wait=5.0)
    parts = services(gateway=True)
    await send_in_turn(ports, [parts["rag-api"] + parts["retriever-svc"], parts["gateway"]], gap=0.5)
    samples = await settled(ports, traces=1)
    assert total(samples, "ragmon_traces_total") == 1
    assert total(samples, "ragmon_traces_total", pipeline="rag-api", outcome="scored") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert total(samples, "ragmon_spans_received_total") == 7


def queued_request() -> dict[str, list[ReadableSpan]]:
    """One request answered through a queue: "api" takes it and puts the question on a queue (a PRODUCER
    span, the traceparent in the message), "worker" takes it off (a CONSUMER span) and answers it from
    DOC. Each service's spans, by its name."""
    propagator = TraceContextTextMapPropagator()
    memories = {name: InMemorySpanExporter() for name in ("api", "worker")}
    providers = {name: TracerProvider(resource=Resource.create({"service.name": name}))
                 for name in memories}
    for name, provider in providers.items():
        provider.add_span_processor(SimpleSpanProcessor(memories[name]))
    api, worker = (providers[name].get_tracer("test") for name in ("api", "worker"))
    message: dict[str, str] = {}
    with api.start_as_current_span("POST /ask", kind=SpanKind.SERVER), \
            api.start_as_current_span("questions publish", kind=SpanKind.PRODUCER):
        propagator.inject(message)
    chain = {KIND: "CHAIN", "input.value": QUESTION, "output.value": ANSWER}
    documents = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": DOC_ID,
                 "retrieval.documents.0.document.content": DOC}
    with worker.start_as_current_span("questions process", context=propagator.extract(message),
                                      kind=SpanKind.CONSUMER), \
            worker.start_as_current_span("qa", attributes=chain), \
            worker.start_as_current_span("retrieve", attributes=documents):
        pass
    for provider in providers.values():
        provider.shutdown()
    return {name: list(memory.get_finished_spans()) for name, memory in memories.items()}


async def test_a_question_put_on_a_queue_waits_for_the_worker_that_answers_it(start_sidecar: Start) -> None:
    # The api's part (its root, the PRODUCER span of the message) ends first and is sent first: it closed
    # the trace alone, not_rag under `other`, and the worker's answer, 3 spans, was refused as late. It
    # now waits for the CONSUMER under its message: one answer, 2 claims, 1 supported, under worker.
    _, ports = await start_sidecar(decision_wait=3.0)
    parts = queued_request()
    await send_in_turn(ports, [parts["api"], parts["worker"]], gap=0.5)
    samples = await settled(ports, traces=1)
    assert total(samples, "ragmon_traces_total", pipeline="worker", outcome="scored") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="late") == 0
    assert samples[("ragmon_groundedness_ratio", labels(pipeline="worker", judge="lexical"))] == 0.5


async def test_a_trace_with_no_rag_answer_and_a_remote_root_waits_decision_wait(start_sidecar: Start) -> None:
    # The other side of the rule: the retriever's part alone, whose caller never sends its spans here (a
    # sidecar beside the retriever service), waits --decision-wait for them, then is scored as it is.
    _, ports = await start_sidecar(decision_wait=1.5)
    retriever_spans = services()["retriever-svc"]
    started = time.monotonic()
    assert await export(http_exporter(ports), retriever_spans) is SpanExportResult.SUCCESS
    await asyncio.sleep(0.5)
    samples = parse((await get(ports.metrics, "/metrics"))[1])
    assert total(samples, "ragmon_traces_total") == 0     # ten quiet periods: not decided yet
    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") >= 1)
    assert time.monotonic() - started >= 1.5
    assert total(samples, "ragmon_traces_total", pipeline="retriever-svc") == 1


def chat_only_trace(provider: TracerProvider) -> None:
    """The model call of an app that has no span around its search and its call (an OpenAI SDK app with
    Traceloop's instrumentors): the search is a trace of its own, and this one has no documents."""
    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.output.messages":
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])}
    with provider.get_tracer("test").start_as_current_span("openai.chat", attributes=chat):
        pass


async def test_an_answer_scored_without_documents_is_logged_once_a_window_per_pipeline(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: counted "scored" with groundedness never measured, and nothing said so (a walkthrough's
    # made-up answers went unseen). Three such traces: one line, the trace still scored.
    _, ports = await start_sidecar()
    await send_traces(ports, [record("shop", chat_only_trace) for _ in range(3)])
    samples = await wait_metrics(ports.metrics,
                                 lambda found: total(found, "ragmon_traces_total", outcome="scored") == 3)
    assert total(samples, "ragmon_example_score_count", metric="groundedness") == 0
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.service) == (
        "answer scored without documents", logging.WARNING, "shop")
    assert "put one span around both" in line.detail and "ragmon.contexts" in line.detail


def unlabelled_question_trace(provider: TracerProvider) -> None:
    """OTel GenAI spans with no retrieval query (it is opt-in) and a prompt stuffed with the document, its
    question in no labelled form: the answer is scored against the document, the question is unknown."""
    tracer = provider.get_tracer("test")
    document = "The warranty lasts 2 years from the date of purchase."
    prompt = f"Answer the question below from this text.\n{document}\nHow long is the warranty?"
    def message(role: str, text: str) -> str:
        return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])

    chat = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
            "gen_ai.input.messages": message("user", prompt),
            "gen_ai.output.messages": message("assistant", "It lasts 2 years.")}
    with tracer.start_as_current_span("POST /ask"):
        with tracer.start_as_current_span("retrieval kb", attributes={
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.documents": json.dumps([{"id": "w", "content": document}])}):
            pass
        with tracer.start_as_current_span("chat claude", attributes=chat):
            pass


async def test_an_answer_scored_without_a_question_is_logged_once_a_window_with_why(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: scored with answer_relevance never measured, and nothing said so. Three such traces: all
    # scored (groundedness 1.0 each), one line saying what was looked for.
    _, ports = await start_sidecar()
    await send_traces(ports, [record("shop", unlabelled_question_trace) for _ in range(3)])
    samples = await wait_metrics(ports.metrics,
                                 lambda found: total(found, "ragmon_traces_total", outcome="scored") == 3)
    assert total(samples, "ragmon_example_score_count", metric="groundedness") == 3
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.service) == (
        "answer scored without a question", logging.WARNING, "shop")
    assert "no question labelled in it" in line.detail and "ragmon.question" in line.detail


def eval_loop_trace(provider: TracerProvider, questions: tuple[str, ...]) -> None:
    """One span around a loop asking each question in turn, each a chain that retrieves and answers
    (OpenInference attributes): several requests in one trace."""
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("eval loop"):
        for question in questions:
            chain = {KIND: "CHAIN", "input.value": question, "output.value": "It lasts 2 years."}
            retriever = {KIND: "RETRIEVER", "retrieval.documents.0.document.id": DOC_ID,
                         "retrieval.documents.0.document.content": DOC}
            llm = {KIND: "LLM", "output.value": "It lasts 2 years."}
            with tracer.start_as_current_span("qa", attributes=chain):
                with tracer.start_as_current_span("retrieve", attributes=retriever):
                    pass
                with tracer.start_as_current_span("llm", attributes=llm):
                    pass


async def test_requests_of_one_trace_left_unscored_are_logged_with_their_questions(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: one trace holding three requests one after another counted as one `scored`, the last, and
    # nothing said that the first two were never scored. A retry (the same question twice) says nothing.
    _, ports = await start_sidecar()
    loop = ("How long is the warranty?", "Can I return it?", "Who pays for shipping?")
    await send_traces(ports, [record("shop", functools.partial(eval_loop_trace, questions=loop)),
                              record("shop", functools.partial(eval_loop_trace, questions=(QUESTION,) * 2))])
    samples = await wait_metrics(ports.metrics,
                                 lambda found: total(found, "ragmon_traces_total", outcome="scored") == 2)
    assert total(samples, "ragmon_examples_scored_total") == 2
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.service) == (
        "trace scored with parts left out", logging.WARNING, "shop")
    assert line.detail == (
        "only the last of 3 answers is scored: 3 chains of this trace each retrieved and answered, one after "
        "another, asked different questions ('How long is the warranty?', 'Can I return it?', 'Who pays for "
        "shipping?'); ragmon scores one answer a trace. Give each request its own trace (a span per request, "
        "not one around a loop or a queue's worker); if they are one request asking again in other words, "
        "this is what it should do")


def blank_citations_trace(provider: TracerProvider) -> None:
    """The ragmon convention with an app's citation code falling back to "" for a document without an id."""
    contexts = json.dumps([{"id": DOC_ID, "text": DOC}])
    with provider.get_tracer("test").start_as_current_span("answer", attributes={
            "ragmon.question": QUESTION, "ragmon.contexts": contexts, "ragmon.answer": "It lasts 2 years.",
            "ragmon.citations": [DOC_ID, "", " "]}):
        pass


async def test_blank_cited_ids_are_left_out_of_the_score_and_logged(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: "" and " " were two citations of documents never retrieved, citation_accuracy 1/3, unsaid.
    # The one real citation names the one document retrieved: 1 of 1 is accurate.
    _, ports = await start_sidecar()
    await send_traces(ports, [record("shop", blank_citations_trace)])
    samples = await wait_metrics(ports.metrics,
                                 lambda found: total(found, "ragmon_traces_total", outcome="scored") == 1)
    assert total(samples, "ragmon_example_score_sum", metric="citation_accuracy") == 1.0
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.service) == (
        "trace scored with parts left out", logging.WARNING, "shop")
    assert "ragmon.citations on span 'answer'" in line.detail and "holds 2 ids that are empty" in line.detail


def mlflow_trace(provider: TracerProvider) -> None:
    """A RAG request traced with MLflow Tracing, as its OTLP export sends it: span types and JSON inputs
    and outputs in mlflow.* attributes, none of which ragmon reads."""
    tracer = provider.get_tracer("mlflow.tracing")
    chain = {"mlflow.spanType": '"CHAIN"', "mlflow.spanInputs": json.dumps({"question": QUESTION})}
    retriever = {"mlflow.spanType": '"RETRIEVER"', "mlflow.spanOutputs": json.dumps(
        [{"page_content": DOC, "metadata": {"doc_uri": DOC_ID}}])}
    with tracer.start_as_current_span("rag", attributes=chain), \
            tracer.start_as_current_span("retrieve", attributes=retriever):
        pass


async def test_a_trace_of_a_convention_ragmon_does_not_read_is_named_in_a_warning(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: counted not_rag, no score ever, and nothing said why. Two such traces: one line naming the
    # convention and the way out, both traces still counted not_rag.
    _, ports = await start_sidecar()
    await send_traces(ports, [record("shop", mlflow_trace) for _ in range(2)])
    await wait_metrics(ports.metrics,
                       lambda found: total(found, "ragmon_traces_total", outcome="not_rag") == 2)
    [line] = failure_lines()
    assert (line.getMessage(), line.levelno, line.service) == (
        "trace not read as RAG", logging.WARNING, "shop")
    assert line.detail.startswith(
        "its spans follow MLflow Tracing (mlflow.spanType), which ragmon does not read")
    assert "ragmon.instrument" in line.detail


def misspelt_trace(provider: TracerProvider) -> None:
    """The README's curl example sent by the SDK, with `ragmon.answer` typed `ragmon.anwser`, and a name of
    the app's own in ragmon's namespace, near none of the convention's."""
    contexts = json.dumps([{"id": DOC_ID, "text": DOC, "score": 0.9}])
    with provider.get_tracer("test").start_as_current_span("ask", attributes={
            "ragmon.question": QUESTION, "ragmon.contexts": contexts, "ragmon.anwser": ANSWER,
            "ragmon.user_id": "u-7"}):
        pass


def ragmon_trace(provider: TracerProvider) -> None:
    """The README's curl example, spelt right."""
    contexts = json.dumps([{"id": DOC_ID, "text": DOC, "score": 0.9}])
    with provider.get_tracer("test").start_as_current_span("ask", attributes={
            "ragmon.question": QUESTION, "ragmon.contexts": contexts, "ragmon.answer": ANSWER}):
        pass


def exported_only_trace(provider: TracerProvider) -> None:
    """The README's SDK snippet with plain spans of the app's own: the question and answer under names of
    its choosing, no convention ragmon reads."""
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("ask", attributes={"question": QUESTION, "answer": ANSWER}):
        for step in ("retrieve", "llm"):
            with tracer.start_as_current_span(step):
                pass


def info_lines(caplog: pytest.LogCaptureFixture, message: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "ragmon.service" and r.getMessage() == message]


async def counted(ports: Ports, outcome: str, traces: int) -> None:
    await wait_metrics(ports.metrics,
                       lambda found: total(found, "ragmon_traces_total", outcome=outcome) == traces)


async def test_a_misspelt_ragmon_attribute_is_warned_of_with_the_name_meant(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # Before: `ragmon.anwser` was read as no answer, the trace scored on its documents alone, and nothing
    # was logged. Two such traces: one line per unknown attribute (the second trace's are within the
    # minute), the typo told the name it was meant as, the app's own name told the names ragmon reads.
    # The correct trace beside them gets no line.
    _, ports = await start_sidecar()
    typos = [record("shop", misspelt_trace) for _ in range(2)]
    await send_traces(ports, [*typos, record("shop", ragmon_trace)])
    await counted(ports, "scored", 3)
    lines = failure_lines()
    first = hex_id(typos[0][0])
    said = [(r.getMessage(), r.levelno, r.attribute, r.meant, r.span, r.service, r.trace_id) for r in lines]
    assert said == [
        ("span attribute not read", logging.WARNING, "ragmon.anwser", "ragmon.answer", "ask", "shop", first),
        ("span attribute not read", logging.WARNING, "ragmon.user_id", None, "ask", "shop", first)]
    assert lines[0].detail.endswith("so it is ignored: did you mean 'ragmon.answer'?")
    assert lines[1].detail.endswith(
        "so it is ignored: it reads ragmon.answer, ragmon.citations, ragmon.contexts, ragmon.ground_truth, "
        "ragmon.pipeline, ragmon.question, ragmon.relevant_ids")


async def test_spans_with_nothing_rag_on_them_are_told_once_at_info(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    # Before: not_rag climbed and no line said why. Two traces of one service: one info line, no warning.
    caplog.set_level(logging.INFO, logger="ragmon.service")
    _, ports = await start_sidecar()
    traces = [record("support-rag", exported_only_trace) for _ in range(2)]
    await send_traces(ports, traces)
    await counted(ports, "not_rag", 2)
    [line] = info_lines(caplog, "trace carries nothing ragmon reads as RAG")
    assert (line.levelno, line.service, line.trace_id) == (logging.INFO, "support-rag", hex_id(traces[0][0]))
    for named in ("OpenInference", "OTel GenAI", "OpenLLMetry", "ragmon.*", "ragmon.instrument"):
        assert named in line.detail
    assert not [r for r in caplog.records if r.name == "ragmon.service" and r.levelno >= logging.WARNING]


async def test_the_health_check_of_a_service_that_sent_a_rag_trace_is_not_told(
        start_sidecar: Start, caplog: pytest.LogCaptureFixture) -> None:
    # "shop" sent a RAG trace, so its health check is normal: no line. "cron" never did: its line.
    caplog.set_level(logging.INFO, logger="ragmon.service")
    _, ports = await start_sidecar()
    await send_traces(ports, [record("shop", rag_trace)])
    await counted(ports, "scored", 1)
    await send_traces(ports, [record("shop", plain_trace), record("cron", plain_trace)])
    await counted(ports, "not_rag", 2)
    lines = info_lines(caplog, "trace carries nothing ragmon reads as RAG")
    assert [line.service for line in lines] == ["cron"]


async def test_a_trace_whose_rag_root_was_refused_over_the_span_bound_is_not_rag_with_a_warning(
        start_sidecar: Start, failure_lines: Callable[[], list[logging.LogRecord]]) -> None:
    # A request of 4 database calls, then its retrieval and generation steps (spans of ragmon.instrument
    # holding the documents and the answer) and its root with the question, which end (and are sent) in
    # that order: over max_spans_per_trace 3, the 4th call, both steps and the root are refused. What is
    # kept shows no RAG work: not_rag, which said nothing of the loss; now a line says what to raise.
    def long_request(provider: TracerProvider) -> None:
        with instrument.rag_span(QUESTION, tracer_provider=provider) as rag:
            for n in range(4):
                with provider.get_tracer("db").start_as_current_span(f"SELECT {n}"):
                    pass
            rag.retrieved([DOC])
            rag.answered(ANSWER)

    _, ports = await start_sidecar(max_spans_per_trace=3, decision_wait=1.0)
    await send_traces(ports, [record("shop", long_request)])
    samples = await wait_metrics(ports.metrics, lambda found: total(found, "ragmon_traces_total") == 1)
    assert total(samples, "ragmon_traces_total", outcome="not_rag") == 1
    assert total(samples, "ragmon_spans_rejected_total", reason="too_many_spans") == 4
    [line] = failure_lines()
    assert (line.getMessage(), line.service) == ("trace not read as RAG", "shop")
    assert line.detail == (
        "it lost spans to the sidecar's limits for one trace, and the spans kept show no RAG work: its root, "
        "with the question and answer, ends last and may be among those lost (--max-spans-per-trace, or the "
        "trace's share of --max-buffer: ragmon_spans_rejected_total's reason too_many_spans or "
        "too_many_bytes says which; raise it if the app's requests are this large)")


@pytest.mark.parametrize(("quiet", "decision_wait", "warned"), [(5.0, 1.0, True), (2.0, 2.0, True),
                                                                (2.0, 30.0, False)])
def test_a_quiet_period_the_decision_wait_cuts_short_is_warned_about(
        caplog: pytest.LogCaptureFixture, quiet: float, decision_wait: float, warned: bool) -> None:
    # `--decision-wait 1s --quiet 5s` started without a word, every trace decided at 1 s.
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    warn_of_unused_settings(ServeConfig(quiet=quiet, decision_wait=decision_wait))
    said = [r.getMessage() for r in caplog.records if r.name == "ragmon.service"]
    assert said == ([f"--decision-wait {decision_wait:g}s is no longer than --quiet {quiet:g}s: every trace "
                     "is decided at --decision-wait, and --quiet has no effect"] if warned else [])


@pytest.mark.parametrize(("settings", "warning"), [
    ({"capture_below": 0.9, "capture_max_bytes": 1_000_000},
     "--capture-below and --capture-max-bytes set without --capture: nothing is captured"),
    ({"capture": Path("c.jsonl"), "capture_below": 0.0},
     "--capture-below 0 captures nothing: no groundedness is below 0 (use 'all' for every example)"),
    ({"final_scrape_wait": 30.0, "metrics_listen": None},
     "--final-scrape-wait 30s is set with --metrics-listen off: there is no /metrics to wait for"),
])
def test_settings_of_no_effect_are_warned_about(caplog: pytest.LogCaptureFixture, settings: dict[str, Any],
                                                warning: str) -> None:
    # Each started without a word (a capture typed without --capture looked like one that captured).
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    warn_of_unused_settings(ServeConfig(**settings))
    assert [r.getMessage() for r in caplog.records if r.name == "ragmon.service"] == [warning]


REACH = "without a token: any host that reaches the {port} can send spans"
WRITE = ("; an empty host is 0.0.0.0. Write the host meant: 127.0.0.1 for this machine alone, or 0.0.0.0 "
         "with --token-file (or RAGMON_TOKEN) set or other senders kept off the port (a NetworkPolicy)")
TOLD = "; set --token-file (or RAGMON_TOKEN) unless other senders are kept off the {port} (a NetworkPolicy)"


@pytest.mark.parametrize(("settings", "said"), [
    # An empty host is every IPv4 interface: `--http-listen :4318` took spans from anywhere unsaid. A
    # warning, quoting it as written (it was quoted 0.0.0.0:4318, and :0 as 0.0.0.0:0).
    ({"http_listen": listen_address(":4318")},
     [("WARNING", "--http-listen :4318 listens for OTLP on every IPv4 interface " + REACH.format(port="port")
       + WRITE)]),
    ({"http_listen": listen_address(":0")},
     [("WARNING", "--http-listen :0 listens for OTLP on every IPv4 interface " + REACH.format(port="port")
       + WRITE)]),
    # An address written on purpose, as deploy/otel-collector/ragmon.yaml's gRPC 0.0.0.0:4317 behind its
    # NetworkPolicy: told at info, not warned about at every start.
    ({"grpc_listen": listen_address("0.0.0.0:4317")},
     [("INFO", "--grpc-listen 0.0.0.0:4317 listens for OTLP on every IPv4 interface "
       + REACH.format(port="port") + TOLD.format(port="port"))]),
    ({"grpc_listen": ("10.1.2.3", 4317), "variables": {"--grpc-listen": "RAGMON_GRPC_LISTEN"}},
     [("INFO", "RAGMON_GRPC_LISTEN 10.1.2.3:4317 (--grpc-listen) listens for OTLP on 10.1.2.3 "
       + REACH.format(port="port") + TOLD.format(port="port"))]),
    ({"http_listen": ("::", 4318), "grpc_listen": ("ragmon-pool", 4317)},
     [("INFO", "--http-listen [::]:4318 and --grpc-listen ragmon-pool:4317 listen for OTLP on every "
       "interface and ragmon-pool " + REACH.format(port="ports") + TOLD.format(port="ports"))]),
    ({"http_listen": listen_address(":4318"), "grpc_listen": listen_address("0.0.0.0:4317")},
     [("WARNING", "--http-listen :4318 listens for OTLP on every IPv4 interface " + REACH.format(port="port")
       + WRITE),
      ("INFO", "--grpc-listen 0.0.0.0:4317 listens for OTLP on every IPv4 interface "
       + REACH.format(port="port") + TOLD.format(port="port"))]),
])
def test_an_otlp_receiver_beyond_loopback_without_a_token_is_warned_about_only_where_no_host_was_written(
        caplog: pytest.LogCaptureFixture, settings: dict[str, Any], said: list[tuple[str, str]]) -> None:
    caplog.set_level(logging.INFO, logger="ragmon.service")
    warn_of_open_receivers(ServeConfig(**settings))
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "ragmon.service"] == said


@pytest.mark.parametrize("settings", [
    {},                                                             # the defaults: 127.0.0.1, and metrics
    {"http_listen": ("localhost", 4318), "grpc_listen": ("::1", 4317)},
    {"http_listen": None, "grpc_listen": ("127.0.0.2", 4317)},
    {"http_listen": ("0.0.0.0", 4318), "token": "s3cret"},
])
def test_otlp_receivers_on_loopback_or_behind_a_token_are_not_warned_about(
        caplog: pytest.LogCaptureFixture, settings: dict[str, Any]) -> None:
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    warn_of_open_receivers(ServeConfig(**settings))
    assert [r.getMessage() for r in caplog.records if r.name == "ragmon.service"] == []
