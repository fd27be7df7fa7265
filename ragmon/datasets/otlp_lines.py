"""Format 4, OTLP/JSON lines: recorded spans read into examples the way the sidecar reads live traffic.

The one format with no record per example: a trace may be spread over many lines, and is whole only once
the file has been read.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any

from ragmon.datasets.decoding import blank_line, json_error, json_line
from ragmon.datasets.fields import json_type
from ragmon.datasets.locate import LineOf, fixed
from ragmon.errors import InputError
from ragmon.model import Example
from ragmon.otlp.decode import DecodeError, decode_json
from ragmon.semconv.extract import ExtractionError, extract_noted
from ragmon.traces import Assembler, Span

OTLP_MARKERS = ("resourceSpans", "resource_spans")
"""An ExportTraceServiceRequest's one field, under either name proto3's JSON mapping has parsers accept:
the lowerCamelCase one the Collector writes and the proto field name `MessageToJson(...,
preserving_proto_field_name=True)` writes, both of which the OTLP/JSON decoder reads. Recognised by the
first alone, a file of the second was read as ragmon records, its first line refused as one with no id."""
NOT_RAG = "not_rag"
"""The reason recorded in `skipped` for a recorded trace with no retrieval and no generation."""
Skipped = list[tuple[str, str]]
"""(trace id, reason): NOT_RAG for a trace that is no example; any other reason is a trace scored with
requests of it left unscored (`ragmon.semconv.extract.extract_noted`), which the caller should say."""


def is_otlp(obj: Any) -> bool:
    return isinstance(obj, dict) and any(marker in obj for marker in OTLP_MARKERS)


def load_otlp(lines: Iterable[tuple[int, bytes]], source: str,
              skipped: Skipped) -> Iterator[tuple[Example, LineOf]]:
    """Format 4: every span into one Assembler, every trace decided at the end of the file (no clock:
    the file is all there is), then extraction. Unlike the sidecar's, this Assembler has no bounds: they
    protect a long-running service from an endless stream, and evicting or truncating a trace here would
    score it on part of its spans."""
    assembler = Assembler(max_traces=sys.maxsize, max_spans_per_trace=sys.maxsize)
    span_lines: dict[tuple[str, str], int] = {}
    for number, raw in lines:
        if blank_line(raw):
            continue
        for span in _otlp_spans(raw, source, number):
            if assembler.add(span) == "accepted":  # else a duplicate (an exporter's retry): dropped as live
                span_lines[span.trace_id, span.span_id] = number
    if not span_lines:
        raise InputError("contains no spans", source=source)
    for decided in assembler.drain():
        trace = decided.trace
        try:
            example, set_aside = extract_noted(trace)
        except ExtractionError as exc:
            error = InputError(str(exc), source=source, line=span_lines[trace.trace_id, exc.span_id])
            error.field = exc.field  # as ExtractionError does: the message already names the attribute
            raise error from None
        if example is None:
            skipped.append((trace.trace_id, NOT_RAG))
            continue
        if set_aside is not None:
            skipped.append((trace.trace_id, set_aside))
        yield example, fixed(span_lines[trace.trace_id, trace.spans[0].span_id])


def _otlp_spans(raw: bytes, source: str, number: int) -> tuple[Span, ...]:
    """The spans of one line. A span with unusable ids stops the load, where the sidecar would take the
    rest of the batch and count it: a gate must not pass on a trace read without one of its spans (a
    lost retriever span changes the contexts and so every score), and a report has no counter for it."""
    try:
        obj = json_line(raw)
    except ValueError as exc:
        raise json_error(exc, source, number) from None
    if not is_otlp(obj):
        raise InputError(f"expected an OTLP/JSON ExportTraceServiceRequest (an object with "
                         f"{' or '.join(map(repr, OTLP_MARKERS))}) like the lines before it, got "
                         f"{json_type(obj)}", source=source, line=number)
    try:
        batch = decode_json(raw)
    except DecodeError as exc:
        raise InputError(str(exc), source=source, line=number) from None
    if batch.rejected:
        raise InputError(f"{batch.rejected} span(s) with unusable ids: {batch.rejection_message()}",
                         source=source, line=number)
    return batch.spans
