"""OTLP/JSON as the spec writes it, from a protobuf request: what a JSON exporter would send."""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict, MessageToJson
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


def proto_named_doc(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """The request as protobuf's own JSON writer gives it, keys under their proto field names
    (`resource_spans`, `start_time_unix_nano`), with the span ids turned to the hex OTLP/JSON requires
    (protobuf writes bytes in base64) and nothing else changed."""
    doc = json.loads(MessageToJson(request, preserving_proto_field_name=True, indent=None))
    for resource_spans in doc["resource_spans"]:
        for scope_spans in resource_spans["scope_spans"]:
            for span in scope_spans["spans"]:
                for key in ("trace_id", "span_id", "parent_span_id"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return doc
