"""What the OTLP receivers hand decoded spans to (the service implements it: queue, Assembler, counters),
and what becomes of a request, decided here once for both receivers: `refusal_for` a request that could
not be read, `offered` for one that was. The promise that every span received is counted under one
outcome lives here, so that neither transport can count it differently; each receiver only answers the
outcome in its own wire's terms.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTracePartialSuccess

from ragmon.otlp.decode import DecodedBatch, DecodeError, TooManyValues
from ragmon.otlp.inflate import NoRoom, TooLarge
from ragmon.otlp.limits import BodyBudget
from ragmon.otlp.refusals import RefusalLog, Sender
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
    "too_many_spans": "the trace has ragmon's --max-spans-per-trace spans already",
    "too_many_bytes": "over what one trace may hold, ragmon's --max-buffer",
}
"""Why a sink drops spans it has taken, by the reason it counts them under, as the sender is told (late
spans: `_LATE`)."""

_LATE = {
    "quiet": ("--quiet", "ragmon's --quiet sets how long a trace waits for more spans once its root has "
              "ended"),
    "decision_wait": ("--decision-wait", "ragmon's --decision-wait sets how long a trace waits for its spans "
                      "at most"),
    "max_traces": ("--max-traces", "it was evicted undecided from a buffer holding ragmon's --max-traces "
                   "traces"),
    "max_buffer": ("--max-buffer", "it was evicted undecided from a buffer holding ragmon's --max-buffer "
                   "bytes"),
    "drain": ("ragmon stopping", "ragmon was stopping: spans sent from then on are for its successor"),
}
"""Each rule that decides a trace (`ragmon.traces.DECIDED_BY`): its setting, and why a span that came after
was late, as the sender is told. Named both --quiet and --decision-wait, a sender whose trace --quiet had
decided raised --decision-wait, which changed nothing."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """Spans a sink took and then lost (`SpanSink.offer`): counts by the reason they are counted under, and
    the late ones' by the rule that decided their trace (`ragmon.traces.DECIDED_BY`), which the sender is
    told as the one setting to raise."""

    reasons: Mapping[str, int]
    late_by: Mapping[str, int] = field(default_factory=dict)


class SpanSink(Protocol):
    def offer(self, spans: Sequence[Span], transport: str) -> bool | Dropped | Refused:
        """Take spans received over `transport` ("http" or "grpc"); False when full, so the receiver
        answers back-pressure (HTTP 503 + Retry-After, gRPC UNAVAILABLE) and the client retries the whole
        request later; a `Refused` when the request can never be taken (too_large: larger than the sink
        holds at all), which the receiver answers as final. Once taken, some spans may still be lost (a
        span after its trace was decided, one over a trace's bounds): then the counts of those, by reason
        (never empty) and the late ones by what decided their trace (`Dropped`), which the sender is told
        in the partial success that OTLP requires for them; True when every span was kept. A resent span
        the sink holds already loses nothing and is not among them. Called on the event loop; must not
        block."""
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


def partial_success(batch: DecodedBatch, taken: bool | Dropped) -> ExportTracePartialSuccess | None:
    """What a request whose spans `offer` took (`taken`, its answer) is told of the spans it lost, over
    either transport: the decoder's invalid ones and those the sink dropped, counted in `rejected_spans`,
    each reason with its count in `error_message`; None when it lost none. OTLP requires it of a server
    that accepts a request in part, and a sender's operator has no other word of where those spans went."""
    dropped = Dropped({}) if isinstance(taken, bool) else taken
    rejected = batch.rejected + sum(dropped.reasons.values())
    if not rejected:
        return None
    reasons = [batch.rejection_message()] if batch.rejected else []
    for reason, count in dropped.reasons.items():
        why = _late(dropped.late_by) if reason == "late" else _DROPPED.get(reason)
        reasons.append(f"{count} {'span' if count == 1 else 'spans'} dropped as {reason}"
                       + (f" ({why})" if why else ""))
    return ExportTracePartialSuccess(rejected_spans=rejected, error_message="; ".join(reasons))


def _late(late_by: Mapping[str, int]) -> str:
    """Why late spans were late: the one rule that decided their traces, and what its setting does; or each
    rule with its count and setting (five at most: the message stays short)."""
    if len(late_by) == 1:
        rule = next(iter(late_by))
        return f"sent after the trace was decided by {rule}: {_LATE[rule][1]}"
    return "sent after their traces were decided: " + ", ".join(
        f"{count} by {rule} ({_LATE[rule][0]})" for rule, count in late_by.items())


REQUEST_ERRORS = (TooLarge, NoRoom, zlib.error, TooManyValues, DecodeError)
"""What receiving and decoding a request raise when it is refused whole (`refusal_for`)."""


@dataclass(frozen=True, slots=True)
class Refused:
    """Spans refused: counted as `count` under `reason` (`SpanSink.reject`'s), the sender told `message`.
    Each receiver answers it with its own wire's status for `reason`."""

    reason: str
    message: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Taken:
    """A request the sink took: `partial` is what the sender is told of the spans it lost (None: none),
    `invalid` the spans the decoder refused, counted and logged though the request is answered success."""

    partial: ExportTracePartialSuccess | None
    invalid: Refused | None


def count_refused(sink: SpanSink, refusals: RefusalLog, refused: Refused, status: str, sender: Sender, *,
                  in_part: bool = False) -> None:
    """Count `refused` and log it with the status (HTTP's, or gRPC's code name) its sender was answered;
    `in_part` as `RefusalLog.refused`'s."""
    sink.reject(refused.count, refused.reason)
    refusals.refused(refused.reason, status, **sender, detail=refused.message, in_part=in_part)


def offered(batch: DecodedBatch, sink: SpanSink, transport: str) -> Refused | Taken:
    """Offer a decoded request's spans to `sink`: refused whole when every span is invalid, or when the
    sink is full (back-pressure, counted by the spans offered: the exporter sends the whole request again,
    and its invalid spans are counted when it is taken) or refuses it for good, counted by all its spans,
    the invalid ones too: no request of them comes again (a 413 had counted them nowhere); else taken."""
    if batch.rejected and not batch.spans:
        return Refused("invalid", f"every span was rejected: {batch.rejection_message()}", batch.rejected)
    taken = sink.offer(batch.spans, transport) if batch.spans else True
    if taken is False:
        return Refused("backpressure", BUSY, len(batch.spans))
    if isinstance(taken, Refused):
        final = taken.reason != "backpressure"  # a draining sidecar's 503 is retried like any other
        return replace(taken, count=taken.count + batch.rejected) if final else taken
    invalid = Refused("invalid", batch.rejection_message(), batch.rejected) if batch.rejected else None
    return Taken(partial_success(batch, taken), invalid)


def refusal_for(error: Exception, what: str, encoding: str, max_body: int, bodies: BodyBudget,
                flag: str | None = "--max-body") -> Refused:
    """Why a request that raised one of `REQUEST_ERRORS` is refused, in the same words over either
    transport. Any other error is a body that did not inflate or arrive whole (zlib.error, aiohttp's
    RequestPayloadError): `what` names the request's bytes ("body", "message"), `encoding` how they were
    sent. `flag` is as `over_max_body`'s."""
    if isinstance(error, TooLarge):
        return Refused("too_large", over_max_body(str(error), max_body, flag))
    if isinstance(error, TooManyValues):
        return Refused("too_large", str(error))
    if isinstance(error, NoRoom):
        return Refused("backpressure", bodies.busy_message())
    if isinstance(error, DecodeError):
        return Refused("decode_error", str(error))
    return Refused("decode_error", f"{what} is not valid {encoding or 'identity'} data: {error}")
