"""Spans sent to a receiver the way an app sends them: by the OpenTelemetry SDK's own OTLP/HTTP exporter."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult


async def export(port: int, spans: Sequence[ReadableSpan]) -> None:
    """One export to 127.0.0.1:`port`, off the event loop (the exporter blocks), which must succeed."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=10)
    try:
        assert await asyncio.to_thread(exporter.export, spans) is SpanExportResult.SUCCESS
    finally:
        await asyncio.to_thread(exporter.shutdown)
