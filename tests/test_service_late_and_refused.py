"""The sidecar's trace ledger for spans it drops, end to end: the real sidecar in-process on port 0, fed by
the OTel SDK's OTLP/HTTP exporter, read back from its /metrics page and its log.

- A trace whose every span is too large for --max-buffer is still a trace: one `error`, logged.
- An exporter's resend of a refused span is a `duplicate`, not a second loss.
- An app that reuses one trace id for every request is named in the log, not only counted as `late`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable

import pytest
from manual_clock import ManualClock
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from polling import wait_metrics
from sdk_export import export

from ragmon.failures import FailureLog
from ragmon.scrape import Samples, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

MiB = 2**20
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")
REASONS = ("too_many_bytes", "duplicate", "late")
REUSED = 0x4BF92F3577B34DA6A3CE929D0E0E4736


def config(**overrides: object) -> ServeConfig:
    settings: dict[str, object] = {"http_listen": ("127.0.0.1", 0), "grpc_listen": None,
                                   "metrics_listen": ("127.0.0.1", 0), "quiet": 0.05, "decision_wait": 2.0,
                                   "drain_seconds": 5.0}
    settings.update(overrides)
    return ServeConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture) -> Callable[[str], list[logging.LogRecord]]:
    """The sidecar's log lines whose message starts with the text given."""
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    return lambda start: [r for r in caplog.records if r.getMessage().startswith(start)]


def finished(provider: TracerProvider, run: Callable[[TracerProvider], None]) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    run(provider)
    provider.shutdown()
    return list(memory.get_finished_spans())


def ledger(samples: Samples) -> tuple[dict[str, float], dict[str, float]]:
    return ({r: total(samples, "ragmon_spans_rejected_total", reason=r) for r in REASONS},
            {o: total(samples, "ragmon_traces_total", outcome=o) for o in OUTCOMES})


# --- a trace of only refused spans, and their resend ----------------------------------------------------

@pytest.fixture
async def small_buffer() -> AsyncIterator[Ports]:
    # --max-buffer at its least, --max-body: what a sidecar given little memory runs with.
    service = Sidecar(config(max_body=MiB, max_buffer=MiB))
    yield await service.start()
    await service.stop()


def retrieval_too_large() -> ReadableSpan:
    """A retriever's span alone, its document 300,000 characters with one emoji: 300 KB on the wire as
    UTF-8, 4 bytes a character once decoded (1.2 MB), more than a 1 MiB buffer holds for one trace."""
    text = "\N{GRINNING FACE}" + "x" * 299_999
    contexts = json.dumps([{"id": "kb-12", "text": text}], ensure_ascii=False)

    def run(provider: TracerProvider) -> None:
        with provider.get_tracer("app").start_as_current_span("retrieval",
                                                              attributes={"ragmon.contexts": contexts}):
            pass

    [span] = finished(TracerProvider(resource=Resource.create({"service.name": "support-rag"})), run)
    return span


async def test_a_trace_whose_every_span_was_refused_is_one_error_and_its_resends_are_duplicates(
        small_buffer: Ports, lines: Callable[[str], list[logging.LogRecord]]) -> None:
    # The app exports the retrieval span (its trace's only one) and, its exporter retrying after a timeout
    # whose first attempt landed, the same span twice more: once before the trace's decision wait (2 s)
    # has passed, once after. By hand:
    # - spans: 1 too_many_bytes, then 2 duplicates (before: 3 too_many_bytes, 3 losses for 1);
    # - traces: 1 `error` at the decision wait (before: none, the trace was counted nowhere), logged
    #   with its trace id and its 1 span refused; until then 1 refused pending, so the README's sum of
    #   where each trace taken is (outcomes + refused pending) is 1 on every page (it was 0 for those 2 s),
    #   and none waiting: nothing holds it back but its decision wait, and on call reads waiting as
    #   scoring falling behind (before: the trace was counted waiting);
    # - once it is an `error`, none refused pending.
    span = retrieval_too_large()
    await export(small_buffer.http, [span])
    first = await wait_metrics(small_buffer.metrics, lambda s: True)
    assert total(first, "ragmon_traces_total") + total(first, "ragmon_traces_refused_pending") == 1
    assert total(first, "ragmon_traces_waiting") == 0
    await export(small_buffer.http, [span])
    samples = await wait_metrics(small_buffer.metrics, lambda s: total(s, "ragmon_traces_total") == 1,
                                 timeout=10)
    await export(small_buffer.http, [span])
    after = await wait_metrics(small_buffer.metrics,
                               lambda s: total(s, "ragmon_spans_rejected_total", reason="duplicate") == 2)

    assert ledger(samples)[1] == {"scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1}
    assert total(samples, "ragmon_traces_refused_pending") == 0
    assert ledger(after) == ({"too_many_bytes": 1, "duplicate": 2, "late": 0},
                             {"scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1})
    [line] = lines("trace lost every span it sent")
    assert line.trace_id == f"{span.context.trace_id:032x}"  # type: ignore[attr-defined]
    assert line.detail.startswith("its 1 span was refused (too_many_bytes)")  # type: ignore[attr-defined]


# --- an app that reuses one trace id -------------------------------------------------------------------

class OneTraceId(RandomIdGenerator):
    """An app whose trace context is never reset: every request gets the same trace id."""

    def generate_trace_id(self) -> int:
        return REUSED


def request_spans(provider: TracerProvider) -> list[ReadableSpan]:
    """One request of the app: a root and one child, as the SDK ends them."""
    def run(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("app")
        with tracer.start_as_current_span("POST /ask"), tracer.start_as_current_span("lookup"):
            pass

    return finished(provider, run)


def app() -> TracerProvider:
    return TracerProvider(resource=Resource.create({"service.name": "shop"}), id_generator=OneTraceId())


async def test_an_app_reusing_one_trace_id_is_named_in_the_log_once_a_minute(
        lines: Callable[[str], list[logging.LogRecord]]) -> None:
    # Request 1 (2 spans) is one trace, decided 50 ms after its root. Requests 2 and 3 carry the same
    # trace id: their 4 spans are late. Before, only ragmon_spans_rejected_total{reason="late"} rose. Now
    # the first late span writes one line naming the trace id and the service, the other 3 are left out
    # (one line a minute); a minute later (the log's clock), request 4's first late span writes the next,
    # counting the 3 left out. Still one trace: nothing else is counted.
    clock = ManualClock(1000.0)
    service = Sidecar(config(), failures=FailureLog(logging.getLogger("ragmon.service"), clock=clock))
    ports = await service.start()
    try:
        await export(ports.http, request_spans(app()))
        await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 1)
        for _ in range(2):
            await export(ports.http, request_spans(app()))
        first = list(lines("span came after its trace was decided"))
        clock.now += 60.0
        await export(ports.http, request_spans(app()))
        samples = await wait_metrics(ports.metrics,
                                     lambda s: total(s, "ragmon_spans_rejected_total", reason="late") == 6)
    finally:
        await service.stop()

    assert total(samples, "ragmon_traces_total") == 1
    [line] = first
    assert (line.trace_id, line.service) == (f"{REUSED:032x}", "shop")  # type: ignore[attr-defined]
    assert "the app reuses one trace id for many requests" in line.detail  # type: ignore[attr-defined]
    # Request 1's root ended and nothing came for 50 ms: --quiet decided it, and the line names it alone.
    assert line.decided_by == "quiet"  # type: ignore[attr-defined]
    assert "it was decided --quiet 0.05s after its last span" in line.detail  # type: ignore[attr-defined]
    assert "--decision-wait" not in line.detail  # type: ignore[attr-defined]
    messages = [r.getMessage() for r in lines("span came after its trace was decided")]
    assert messages == ["span came after its trace was decided",
                        "span came after its trace was decided ... and 3 more like it since the last line"]


async def test_a_late_root_of_a_trace_held_to_its_decision_wait_names_decision_wait_alone(
        lines: Callable[[str], list[logging.LogRecord]]) -> None:
    # The app's exporter sends the request's child alone, then its root once the trace's decision wait
    # (0.5 s) has passed: the child's parent never came, so --quiet never applied, and --decision-wait
    # decided the trace (1 trace). The root is late, and its line says to raise --decision-wait only.
    service = Sidecar(config(decision_wait=0.5))
    ports = await service.start()
    try:
        child, root = request_spans(app())  # as the SDK ends them
        assert (child.name, root.name) == ("lookup", "POST /ask")
        await export(ports.http, [child])
        await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 1)
        await export(ports.http, [root])
        samples = await wait_metrics(ports.metrics,
                                     lambda s: total(s, "ragmon_spans_rejected_total", reason="late") == 1)
    finally:
        await service.stop()

    assert total(samples, "ragmon_traces_total") == 1
    [line] = lines("span came after its trace was decided")
    assert line.decided_by == "decision_wait"  # type: ignore[attr-defined]
    assert "it was decided --decision-wait 0.5s after its first span" in line.detail  # type: ignore[attr-defined]
    assert line.detail.endswith("take longer than --decision-wait: raise it")  # type: ignore[attr-defined]
    assert "--quiet" not in line.detail  # type: ignore[attr-defined]
