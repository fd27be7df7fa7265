"""What the OTLP receivers hand decoded spans to; the service implements it (queue, Assembler, counters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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


class SpanSink(Protocol):
    def offer(self, spans: Sequence[Span], transport: str) -> bool:
        """Take spans received over `transport` ("http" or "grpc"); False when full, so the receiver
        answers back-pressure (HTTP 503 + Retry-After, gRPC UNAVAILABLE) and the client retries later.
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
