"""A span the trace buffer cannot hold, sent before the rest of its trace, end to end: the real sidecar
in-process on port 0, fed by the OTel SDK's OTLP/HTTP exporter in two exports, as an app's batch
processor sends a retriever's span (it ends first) a flush before the request span that holds the answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics
from sdk_export import export

from ragmon.scrape import total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

MiB = 2**20
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")


@pytest.fixture
async def ports() -> AsyncIterator[Ports]:
    # --max-buffer at its least, --max-body: what a sidecar given little memory runs with.
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, decision_wait=5.0, drain_seconds=5.0, max_body=MiB, max_buffer=MiB)
    service = Sidecar(config)
    yield await service.start()
    await service.stop()


def request_with_a_large_document() -> tuple[ReadableSpan, ReadableSpan]:
    """(retrieval, request) as the SDK ends them. The document is 300,000 characters, one of them an
    emoji: 300 KB on the wire as UTF-8, but 4 bytes a character once decoded, 1.2 MB, over 1 MiB."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("app")
    text = "\N{GRINNING FACE}" + "x" * 299_999
    contexts = json.dumps([{"id": "kb-12", "text": text}], ensure_ascii=False)
    request = {"ragmon.question": "How long does the warranty last?", "ragmon.answer": "It lasts 2 years."}
    with tracer.start_as_current_span("ask", attributes=request), \
            tracer.start_as_current_span("retrieval", attributes={"ragmon.contexts": contexts}):
        pass
    provider.shutdown()
    retrieval, ask = memory.get_finished_spans()
    return retrieval, ask


async def test_a_trace_whose_documents_were_refused_before_its_answer_came_is_not_scored(
        ports: Ports) -> None:
    # The retrieval span, exported first, is refused as too_many_bytes; the request span, exported next,
    # holds the question and answer. Scored, the answer would read as a plain chat's (no documents): one
    # `scored` outcome. The trace lost its documents to --max-buffer, so it is one `error`.
    retrieval, ask = request_with_a_large_document()
    await export(ports.http, [retrieval])
    await export(ports.http, [ask])

    samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == 1)
    assert total(samples, "ragmon_spans_rejected_total", reason="too_many_bytes") == 1
    assert {o: total(samples, "ragmon_traces_total", outcome=o) for o in OUTCOMES} == {
        "scored": 0, "not_sampled": 0, "not_rag": 0, "evicted": 0, "error": 1}
