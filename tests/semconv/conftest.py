"""Real spans for the extraction tests: the OpenTelemetry SDK records them, the SDK's own OTLP encoder
serialises them, and ragmon's protobuf decoder reads them back, exactly the bytes the sidecar receives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from instrumented_apps import instrumenting
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmon.otlp.decode import decode_protobuf
from ragmon.traces import Span, Trace


class Recorder:
    """A tracer provider exporting to memory, and the traces its spans make once through OTLP."""

    service = "semconv-tests"
    """The resource's service.name: the pipeline label when no span sets ragmon.pipeline."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": self.service}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("tests.semconv")

    def traces(self) -> list[Trace]:
        """Every finished span, through protobuf and back, grouped by trace id in first-seen order."""
        body = encode_spans(self.exporter.get_finished_spans()).SerializeToString()
        batch = decode_protobuf(body)
        assert batch.rejected == 0, batch.errors
        grouped: dict[str, list[Span]] = {}
        for span in batch.spans:
            grouped.setdefault(span.trace_id, []).append(span)
        return [Trace(trace_id, tuple(spans)) for trace_id, spans in grouped.items()]

    def trace(self) -> Trace:
        traces = self.traces()
        assert len(traces) == 1, f"expected one trace, got {len(traces)}"
        return traces[0]


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.provider.shutdown()


def instrumented(recorder: Recorder, instrumentor: LangChainInstrumentor | LlamaIndexInstrumentor
                 ) -> Iterator[Recorder]:
    """`recorder` with an OpenInference instrumentor on it while the test runs."""
    with instrumenting(recorder.provider, instrumentor):
        yield recorder


@pytest.fixture
def langchain(recorder: Recorder) -> Iterator[Recorder]:
    yield from instrumented(recorder, LangChainInstrumentor())


@pytest.fixture
def llamaindex(recorder: Recorder) -> Iterator[Recorder]:
    yield from instrumented(recorder, LlamaIndexInstrumentor())
