"""Spans as ragmon holds them after decoding, and the trace they assemble into.

Attribute values keep their OTLP types: str, bool, int, float, bytes, list (arrayValue) and dict
(kvlistValue). Ids are lowercase hex, the form OTLP/JSON and W3C traceparent use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SpanEvent:
    name: str
    time_unix_nano: int
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    kind: int = 0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[SpanEvent, ...] = ()
    resource: Mapping[str, Any] = field(default_factory=dict)
    status_code: int = 0
    scope_name: str = ""


@dataclass(frozen=True, slots=True)
class Trace:
    """All spans received for one trace id, in arrival order."""

    trace_id: str
    spans: tuple[Span, ...]
