"""Conventions ragmon does not read: a trace recorded only in one is not RAG, and says which it follows."""

from __future__ import annotations

import json

import pytest

from ragmon.semconv.extract import extract
from ragmon.semconv.unread import unread_note
from ragmon.traces import Span, Trace

TRACE_ID = "5b8efff798038103d269b633813fc60c"


def trace(*attributes: dict[str, object]) -> Trace:
    """One span per attribute set, each the child of the one before."""
    spans = []
    parent = None
    for n, attrs in enumerate(attributes, 1):
        span_id = f"{n:016x}"
        spans.append(Span(TRACE_ID, span_id, parent, f"span {n}", start_time_unix_nano=n,
                          end_time_unix_nano=100 - n, attributes=dict(attrs),
                          resource={"service.name": "app"}))
        parent = span_id
    return Trace(TRACE_ID, tuple(spans))


@pytest.mark.parametrize(("spans", "named"), [
    # MLflow Tracing's OTLP export: JSON-encoded span type, inputs and outputs.
    (({"mlflow.spanType": '"CHAIN"', "mlflow.spanInputs": json.dumps({"question": "q"})},
      {"mlflow.spanType": '"RETRIEVER"', "mlflow.spanOutputs": json.dumps([{"page_content": "d"}])}),
     "MLflow Tracing (mlflow.spanType)"),
    # The Langfuse SDK v3: a generation under a span.
    (({"langfuse.observation.type": "span", "langfuse.observation.input": '"q"'},
      {"langfuse.observation.type": "generation", "langfuse.observation.output": '"a"'}),
     "the Langfuse SDK (langfuse.observation.type)"),
    # The Vercel AI SDK's generateText before v6 (its HTTP server span above it).
    (({"http.request.method": "POST"},
      {"ai.operationId": "ai.generateText", "ai.prompt": '{"prompt":"q"}', "ai.response.text": "a"}),
     "the Vercel AI SDK's own telemetry (ai.operationId)"),
])
def test_a_trace_in_a_convention_ragmon_does_not_read_names_it(spans: tuple[dict[str, object], ...],
                                                              named: str) -> None:
    recorded = trace(*spans)
    assert extract(recorded) is None  # not RAG to ragmon: no reader of its knows these attributes
    note = unread_note(recorded)
    assert note is not None
    assert note.startswith(f"its spans follow {named}, which ragmon does not read: record the question, "
                           "documents and answer as ragmon.* attributes (ragmon.instrument)")


def test_a_trace_of_no_llm_convention_has_nothing_to_name() -> None:
    # A health check: not RAG, and rightly so.
    assert unread_note(trace({"http.request.method": "GET", "url.path": "/healthz"})) is None
