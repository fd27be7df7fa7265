"""OTLP/JSON as the spec writes it, from a protobuf request: what a JSON exporter would send."""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def otlp_json_doc(request: ExportTraceServiceRequest, *, upper_ids: bool = False) -> dict[str, Any]:
    """proto3 JSON with integer enums and hex (not base64, as MessageToDict writes bytes) ids."""
    doc = MessageToDict(request, use_integers_for_enums=True)
    for resource_spans in doc.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        hex_id = base64.b64decode(span[key]).hex()
                        span[key] = hex_id.upper() if upper_ids else hex_id
    return doc
