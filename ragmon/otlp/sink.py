"""What the OTLP receivers hand decoded spans to; the service implements it (queue, Assembler, counters)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTracePartialSuccess

from ragmon.otlp.decode import DecodedBatch
from ragmon.traces import Span

BUSY = "ragmon is busy: its score queue or trace buffer is full; retry later"
"""What a sender refused by `offer` is told: the buffer, not only scoring, may be what is full."""


def over_max_body(what: str, max_body: int, flag: str | None = "--max-body") -> str:
    """What a sender of a request over `--max-body` is told, over either transport: the limit, the flag
    that sets it and the two ways out, as the sender's exporter log is all its operator may see. `flag`
    None: a receiver whose limit no flag sets (`ragmon replay --target`'s), where the one way out is
    smaller batches."""
    named = f" ({flag})" if flag else ""
    raise_it = f" or raise {flag}" if flag else ""
    return (f"{what} is over ragmon's {max_body}-byte limit{named}: send smaller batches (the SDK's "
            f"OTEL_BSP_MAX_EXPORT_BATCH_SIZE, the Collector's send_batch_max_size){raise_it}")


_DROPPED = {
    "late": "sent after the trace was decided: ragmon's --quiet and --decision-wait set how long a trace "
            "waits for its spans",
    "too_many_spans": "the trace has ragmon's --max-spans-per-trace spans already",
    "too_many_bytes": "over what one trace may hold, ragmon's --max-buffer",
}
"""Why a sink drops spans it has taken, by the reason it counts them under, as the sender is told."""


class SpanSink(Protocol):
    def offer(self, spans: Sequence[Span], transport: str) -> bool | Mapping[str, int]:
        """Take spans received over `transport` ("http" or "grpc"); False when full, so the receiver
        answers back-pressure (HTTP 503 + Retry-After, gRPC UNAVAILABLE) and the client retries the whole
        request later. Once taken, some spans may still be lost (a span after its trace was decided, one
        over a trace's bounds): then the counts of those, by reason (never empty), which the sender is
        told in the partial success that OTLP requires for them; True when every span was kept. A resent
        span the sink holds already loses nothing and is not among them.
        Called on the event loop; must not block."""
        ...

    def reject(self, count: int, reason: str) -> None:
        """Count spans refused by the receiver. Reasons: "invalid" (bad ids, the rest of the batch was
        taken), "decode_error" (also an unsupported Content-Type or Content-Encoding), "too_large",
        "unauthorized", "backpressure". When a request is refused before its spans could be counted
        (decode_error, too_large, unauthorized, and backpressure when the bodies being received fill
        their budget, ragmon.otlp.limits), count is 1: the request carried at least one span, and a zero
        would hide the refusal from a rate() alert."""
        ...

    def misdirected(self, transport: str, signal: str) -> None:
        """Count a request for what ragmon does not receive: another signal, or no OTLP path at all
        (ragmon.otlp.misdirected), answered HTTP 404 or gRPC UNIMPLEMENTED."""
        ...


def partial_success(batch: DecodedBatch, taken: bool | Mapping[str, int]) -> ExportTracePartialSuccess | None:
    """What a request whose spans `offer` took (`taken`, its answer) is told of the spans it lost, over
    either transport: the decoder's invalid ones and those the sink dropped, counted in `rejected_spans`,
    each reason with its count in `error_message`; None when it lost none. OTLP requires it of a server
    that accepts a request in part, and a sender's operator has no other word of where those spans went."""
    dropped = {} if isinstance(taken, bool) else taken
    rejected = batch.rejected + sum(dropped.values())
    if not rejected:
        return None
    reasons = [batch.rejection_message()] if batch.rejected else []
    for reason, count in dropped.items():
        why = _DROPPED.get(reason)
        reasons.append(f"{count} {'span' if count == 1 else 'spans'} dropped as {reason}"
                       + (f" ({why})" if why else ""))
    return ExportTracePartialSuccess(rejected_spans=rejected, error_message="; ".join(reasons))
