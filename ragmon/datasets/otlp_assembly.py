"""The reading of OTLP/JSON lines (ragmon.datasets.otlp_lines): their spans decoded as the sidecar decodes
them, assembled across files, and extracted into examples."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

from ragmon.datasets.decoding import blank_line, json_error, json_line
from ragmon.datasets.fields import json_type
from ragmon.datasets.locate import LineOf, fixed
from ragmon.datasets.otlp_lines import NOT_RAG, OTLP_MARKERS, Skipped, is_otlp
from ragmon.errors import InputError
from ragmon.model import Example
from ragmon.otlp.decode import DecodeError, decode_json
from ragmon.semconv.extract import ExtractionError, extract_noted
from ragmon.traces import Assembler, Span


class Assembly:
    """The OTLP/JSON lines of a run, from every file that holds them, in one Assembler: a Collector's file
    exporter rotates its output over several files, and one trace may lie in two of them. Assembled file by
    file, such a trace was scored on part of its spans and skipped as not RAG on the rest, or refused as
    "decided without" its parent, blaming a --decision-wait no replay of files has, or refused as a
    duplicate id. Unlike the sidecar's, this Assembler has no bounds: they protect a long-running service
    from an endless stream, and evicting or truncating a trace here would score it on part of its spans."""

    def __init__(self) -> None:
        self._assembler = Assembler(max_traces=sys.maxsize, max_spans_per_trace=sys.maxsize)
        self._span_at: dict[tuple[str, str], tuple[str, int]] = {}

    def read(self, lines: Iterable[tuple[int, bytes]], source: str) -> None:
        """Every span of one file's lines into the assembly; a trace is decided only once every file has
        been read (`examples`)."""
        spans = 0
        for number, raw in lines:
            if blank_line(raw):
                continue
            for span in _otlp_spans(raw, source, number):
                spans += 1
                if self._assembler.add(span) == "accepted":  # else a duplicate (a retry): dropped as live
                    self._span_at[span.trace_id, span.span_id] = (source, number)
        if not spans:
            raise InputError("contains no spans", source=source)

    def examples(self, skipped: Skipped) -> Iterator[tuple[Example, str, LineOf]]:
        """Every trace decided (no clock: the files are all there is), then extracted, each example with
        the file and line of its first span."""
        for decided in self._assembler.drain():
            trace = decided.trace
            try:
                example, set_aside = extract_noted(trace, recorded=True)
            except ExtractionError as exc:
                source, line = self._span_at[trace.trace_id, exc.span_id]
                error = InputError(str(exc), source=source, line=line)
                error.field = exc.field  # as ExtractionError does: the message already names the attribute
                raise error from None
            if example is None:
                skipped.append((trace.trace_id, NOT_RAG))
                continue
            if set_aside is not None:
                skipped.append((trace.trace_id, set_aside))
            source, line = self._span_at[trace.trace_id, trace.spans[0].span_id]
            yield example, source, fixed(line)


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
