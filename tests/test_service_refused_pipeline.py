"""The pipeline label of a trace whose every span was refused as too large for --max-buffer, end to end: the
real sidecar in-process on port 0, fed by the OTel SDK's OTLP/HTTP exporter, read back from its /metrics
page and its log. Such a trace holds no span to read a label from, but its refused spans were decoded, so
the first one's `ragmon.pipeline`, else its service, labels it as a trace that yields no example is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics
from sdk_export import export

from ragmon.exporter import MAX_LABEL_BYTES
from ragmon.scrape import Samples, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar
from ragmon.traces import MAX_NAME_BYTES

MiB = 2**20


def config(**overrides: object) -> ServeConfig:
    """--max-buffer and --max-body at their least, as in tests/test_service_late_and_refused.py."""
    settings: dict[str, object] = {"http_listen": ("127.0.0.1", 0), "grpc_listen": None,
                                   "metrics_listen": ("127.0.0.1", 0), "quiet": 0.05, "decision_wait": 1.0,
                                   "drain_seconds": 5.0, "max_body": MiB, "max_buffer": MiB}
    settings.update(overrides)
    return ServeConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture) -> Callable[[], list[logging.LogRecord]]:
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    return lambda: [r for r in caplog.records if r.getMessage().startswith("trace lost every span it sent")]


def retrieval_too_large(service: str, attributes: Mapping[str, str] | None = None) -> ReadableSpan:
    """A retriever's span alone, sent by `service`: its document is 300,000 characters with one emoji,
    300 KB on the wire, 1.2 MB once decoded (4 bytes a character), more than a 1 MiB buffer holds for one
    trace, so it is refused and its trace holds no span."""
    text = "\N{GRINNING FACE}" + "x" * 299_999
    contexts = json.dumps([{"id": "kb-12", "text": text}], ensure_ascii=False)
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("app").start_as_current_span(
            "retrieval", attributes={"ragmon.contexts": contexts, **(attributes or {})}):
        pass
    provider.shutdown()
    [span] = memory.get_finished_spans()
    return span


def decided(traces: int) -> Callable[[Samples], bool]:
    return lambda samples: total(samples, "ragmon_traces_total") == traces


def errors(samples: Samples) -> dict[str, float]:
    return {pipeline: total(samples, "ragmon_traces_total", pipeline=pipeline, outcome="error")
            for pipeline in ("support-rag", "checkout", "other")}


def by_trace(records: list[logging.LogRecord]) -> dict[str, tuple[object, ...]]:
    """Each line's (pipeline, named, source), by its trace id."""
    return {vars(r)["trace_id"]: tuple(vars(r).get(field) for field in ("pipeline", "named", "source"))
            for r in records}


async def refused_run(sent: list[ReadableSpan], **settings: object) -> Samples:
    """`sent`, one export each, to a sidecar with `settings`, once every trace of them is decided."""
    service = Sidecar(config(**settings))
    ports = await service.start()
    try:
        for span in sent:
            await export(ports.http, [span])
        return await wait_metrics(ports.metrics, decided(len(sent)), timeout=10)
    finally:
        await service.stop()


async def test_a_refused_trace_is_counted_under_its_services_label(
        lines: Callable[[], list[logging.LogRecord]]) -> None:
    # --pipelines support-rag: that service's label exists from start-up. Three traces of one refused span
    # each, decided at their decision wait (1 s) as `error`. By hand:
    # - support-rag's (service.name support-rag): under its own label (before: `other`, where the
    #   RagmonPipelineFailing alert for support-rag never saw it);
    # - search-api's: a service with no label of its own takes none from a refused span (a span's size says
    #   nothing of RAG), so `other`, as before;
    # - one declaring ragmon.pipeline "checkout", not listed: `other`, as a scored trace of it would be.
    # So support-rag 1, other 2. Each logged once, naming its label and the name its span was kept by
    # (before: checkout's line said pipeline=other service=None, naming neither).
    sent = [retrieval_too_large("support-rag"), retrieval_too_large("search-api"),
            retrieval_too_large("search-api", {"ragmon.pipeline": "checkout"})]
    samples = await refused_run(sent, pipelines=("support-rag",))

    assert errors(samples) == {"support-rag": 1, "checkout": 0, "other": 2}
    ids = [f"{span.context.trace_id:032x}" for span in sent]  # type: ignore[union-attr]
    assert by_trace(lines()) == {ids[0]: ("support-rag", "support-rag", "service.name"),
                                 ids[1]: ("other", "search-api", "service.name"),
                                 ids[2]: ("other", "checkout", "ragmon.pipeline")}
    # `service`, as every other failure line has it, when the name kept is the service's.
    assert {vars(r)["trace_id"]: vars(r)["service"] for r in lines()} == {
        ids[0]: "support-rag", ids[1]: "search-api", ids[2]: None}


async def test_a_refused_trace_declaring_its_pipeline_claims_its_label(
        lines: Callable[[], list[logging.LogRecord]]) -> None:
    # No --pipelines: the first --max-pipelines names get labels. A refused span declaring ragmon.pipeline
    # "checkout" names a RAG pipeline by declaration, so its trace claims the label `checkout` as a trace
    # cut short by an attribute limit would: 1 error under checkout, none under other (before: other 1).
    # The service's name alone claims nothing: search-api's second trace, without the attribute, is `other`.
    sent = [retrieval_too_large("search-api", {"ragmon.pipeline": "checkout"}),
            retrieval_too_large("search-api")]
    samples = await refused_run(sent)

    assert errors(samples) == {"support-rag": 0, "checkout": 1, "other": 1}
    ids = [f"{span.context.trace_id:032x}" for span in sent]  # type: ignore[union-attr]
    assert by_trace(lines()) == {ids[0]: ("checkout", "checkout", "ragmon.pipeline"),
                                 ids[1]: ("other", "search-api", "service.name")}


async def test_refused_traces_of_two_apps_under_other_each_get_a_line_naming_their_pipeline(
        lines: Callable[[], list[logging.LogRecord]]) -> None:
    # --pipelines support-rag: checkout-api declares ragmon.pipeline "checkout" and billing-api "billing",
    # neither listed, so both traces are errors under `other`, within one minute. Before, the line named
    # neither (pipeline=other service=None) and both shared one rate-limit key, so billing's was left out:
    # one line. Now one line each, naming the pipeline its app declared.
    sent = [retrieval_too_large("checkout-api", {"ragmon.pipeline": "checkout"}),
            retrieval_too_large("billing-api", {"ragmon.pipeline": "billing"})]
    samples = await refused_run(sent, pipelines=("support-rag",))

    assert errors(samples) == {"support-rag": 0, "checkout": 0, "other": 2}
    ids = [f"{span.context.trace_id:032x}" for span in sent]  # type: ignore[union-attr]
    assert by_trace(lines()) == {ids[0]: ("other", "checkout", "ragmon.pipeline"),
                                 ids[1]: ("other", "billing", "ragmon.pipeline")}


def test_a_kept_name_is_as_long_as_a_label_may_be() -> None:
    # ragmon.traces cannot import the exporter (prometheus_client is the serve extra's): the two limits
    # are written twice, and a name kept whole must be one a label holds as it is.
    assert MAX_NAME_BYTES == MAX_LABEL_BYTES == 128
