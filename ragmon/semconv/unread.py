"""Conventions ragmon does not read, told by the attribute each marks its spans with.

A trace whose RAG work is recorded only in one of these is `not_rag` to ragmon: no retrieval, question
or answer it understands. Counted so and nothing more, an app traced with MLflow or Langfuse saw every
trace `not_rag`, no score ever, and an info alert after seven hours; naming the convention says at once
why and what to do. Only asked of traces that are not RAG, so it costs nothing on the scored path.
"""

from __future__ import annotations

from ragmon.traces import Trace

_MARKS = {
    "mlflow.spanType": "MLflow Tracing",
    "langfuse.observation.type": "the Langfuse SDK",
    "ai.operationId": "the Vercel AI SDK's own telemetry",
}
"""Attribute -> the convention whose spans carry it: MLflow's span type (`mlflow.spanInputs`/`Outputs`
beside it), the Langfuse SDK's observation type (v3 on, OpenTelemetry-based), and the `ai.*` attributes of
the Vercel AI SDK (`experimental_telemetry`) before v6 added OTel GenAI ones."""

ADVICE = ("record the question, documents and answer as ragmon.* attributes (ragmon.instrument), or "
          "instrument the app with OpenInference, OpenLLMetry or the OTel GenAI conventions as well")


def unread_note(trace: Trace) -> str | None:
    """Why a trace that is not RAG may be RAG after all, in words for a log line or an error: the
    convention the first span marked by one ragmon does not read follows, or None."""
    for span in trace.spans:
        marks = span.attributes.keys() & _MARKS.keys()
        if marks:
            attribute = min(marks)
            return f"its spans follow {_MARKS[attribute]} ({attribute}), which ragmon does not read: {ADVICE}"
    return None
