"""Fixtures for the OTLP receiver tests: real SDK spans, an OTLP/JSON encoding of them, a recording sink."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import grpc
import pytest
from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import LogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode
from otlp_json import otlp_json_doc

from ragmon.otlp.decode import MAX_VALUES
from ragmon.otlp.grpc import start_grpc_server
from ragmon.otlp.http import add_otlp_routes
from ragmon.otlp.sink import Dropped
from ragmon.traces import Span

RESOURCE = Resource.create({"service.name": "rag-demo", "deployment.environment": "test"})
DOCS = ("Paris is the capital of France.", "The Seine flows through Paris.")


def record_rag_trace(exporter: SpanExporter) -> None:
    """One RAG request as an instrumented app emits it: a SERVER root, a retriever, an LLM call."""
    provider = TracerProvider(resource=RESOURCE)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("ragmon.tests", "1.0")
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER,
                                      attributes={"http.response.status_code": 200}):
        with tracer.start_as_current_span("retrieve", attributes={
                "openinference.span.kind": "RETRIEVER", "input.value": "capital of France?",
                "retrieval.documents.0.document.content": DOCS[0],
                "retrieval.documents.0.document.score": 0.91,
                "retrieval.documents.1.document.content": DOCS[1],
                "retrieval.documents.1.document.score": 0.42,
                "tags": ["a", "b"], "top_k": 2, "reranked": False}) as retrieve:
            retrieve.add_event("db.query.result", {"id": "doc-1", "score": 0.91})
        with tracer.start_as_current_span("llm", kind=SpanKind.CLIENT) as llm:
            llm.set_attribute("llm.output_messages.0.message.content", "Paris.")
            llm.set_status(Status(StatusCode.ERROR, "slow"))
    provider.shutdown()


def record_a_metric_and_a_log(metrics: MetricExporter, logs: LogRecordExporter) -> None:
    """What an app that points one shared OTEL_EXPORTER_OTLP_ENDPOINT at ragmon sends besides its spans:
    one export of its metrics, one of its logs."""
    meters = MeterProvider(resource=RESOURCE, metric_readers=[
        PeriodicExportingMetricReader(metrics, export_interval_millis=60_000)])
    meters.get_meter("ragmon.tests").create_counter("requests").add(1)
    meters.shutdown()  # the reader's last collection: one export
    loggers = LoggerProvider(resource=RESOURCE)
    loggers.add_log_record_processor(SimpleLogRecordProcessor(logs))
    loggers.get_logger("ragmon.tests").emit(body="answered", severity_text="INFO")
    loggers.shutdown()


@pytest.fixture
def emit_a_metric_and_a_log() -> Callable[[MetricExporter, LogRecordExporter], None]:
    return record_a_metric_and_a_log


@pytest.fixture
def sdk_spans() -> Sequence[ReadableSpan]:
    """The finished SDK spans of one RAG trace (children first, as the SDK ends them)."""
    memory = InMemorySpanExporter()
    record_rag_trace(memory)
    return memory.get_finished_spans()


def to_otlp_json(request: ExportTraceServiceRequest, *, upper_ids: bool = False) -> bytes:
    return json.dumps(otlp_json_doc(request, upper_ids=upper_ids)).encode()


@pytest.fixture
def otlp_json() -> Callable[..., bytes]:
    return to_otlp_json


class RecordingSink:
    """Stands in for the service's queue: records what the receiver hands over, refuses on demand."""

    def __init__(self) -> None:
        self.offers: list[tuple[tuple[Span, ...], str]] = []
        self.rejects: list[tuple[int, str]] = []
        self.misdirections: list[tuple[str, str]] = []
        self.refusals = 0  # refuse this many offers, then accept (-1: refuse every offer)
        self.dropped: dict[str, int] = {}  # what each offer taken says it lost, by reason (as the sidecar)
        self.late_by: dict[str, int] = {}  # and its late spans, by what decided their trace

    def offer(self, spans: Sequence[Span], transport: str) -> bool | Dropped:
        self.offers.append((tuple(spans), transport))
        if self.refusals:
            self.refusals -= 1
            return False
        return Dropped(self.dropped, self.late_by) if self.dropped else True

    def reject(self, count: int, reason: str) -> None:
        self.rejects.append((count, reason))

    def misdirected(self, transport: str, signal: str) -> None:
        self.misdirections.append((transport, signal))

    @property
    def spans(self) -> list[Span]:
        return [span for spans, _ in self.offers for span in spans]


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink()


def sdk_ids(span: ReadableSpan) -> dict[str, Any]:
    """The ids the SDK gave a span, in the lowercase hex form ragmon keeps."""
    context = span.get_span_context()
    assert context is not None
    return {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x"),
            "parent_span_id": None if span.parent is None else format(span.parent.span_id, "016x")}


@pytest.fixture
def ids_of() -> Callable[[ReadableSpan], dict[str, Any]]:
    return sdk_ids


@pytest.fixture
def emit_rag_trace() -> Callable[[SpanExporter], None]:
    return record_rag_trace


@pytest.fixture
def refusal_records(caplog: pytest.LogCaptureFixture) -> Callable[[], list[logging.LogRecord]]:
    """The records the receivers logged about refused requests (INFO and up, so back-pressure shows)."""
    caplog.set_level(logging.INFO, logger="ragmon.otlp")
    return lambda: [record for record in caplog.records if record.name == "ragmon.otlp"]


Start = Callable[..., Awaitable[str]]


@pytest.fixture
async def http_receiver(sink: RecordingSink) -> AsyncIterator[Start]:
    """Start the OTLP/HTTP receiver on 127.0.0.1 (free port) feeding `sink`; returns the /v1/traces URL."""
    runners: list[web.AppRunner] = []

    async def start(*, max_body: int = 1 << 20, token: str | None = None, auto_decompress: bool = False,
                    max_values: int = MAX_VALUES, max_body_flag: str | None = "--max-body") -> str:
        app = web.Application()
        add_otlp_routes(app, sink, max_body=max_body, token=token, max_values=max_values,
                        max_body_flag=max_body_flag)
        runner = web.AppRunner(app, auto_decompress=auto_decompress)
        await runner.setup()
        runners.append(runner)
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        return f"http://{host}:{port}/v1/traces"

    yield start
    for runner in runners:
        await runner.cleanup()


@pytest.fixture
async def grpc_receiver(sink: RecordingSink) -> AsyncIterator[Start]:
    """Start the OTLP/gRPC receiver on 127.0.0.1, port 0, feeding `sink`; returns `host:port`."""
    servers: list[grpc.aio.Server] = []

    async def start(*, max_body: int = 1 << 20, token: str | None = None,
                    max_values: int = MAX_VALUES) -> str:
        server, port = await start_grpc_server(("127.0.0.1", 0), sink, max_body=max_body, token=token,
                                               max_values=max_values)
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        await server.stop(None)
