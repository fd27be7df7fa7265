"""What one sender may make the receivers hold, and for how long, whatever each request's own limits.

`--max-body` and `--max-values` bound one request; nothing bounded how many were read at once, nor how
long a sender may take to send one: 35 idle connections, each sending 16 KB of gzip that inflates to
16 MiB and never ending it, held 600 MiB. So the bodies being read, or waiting for the decoding thread,
or being decoded, over HTTP and gRPC alike, share one `BodyBudget` of `HELD_BODIES` x `--max-body` bytes,
counted as they grow (after decompression); a request that finds no room is answered back-pressure (HTTP
503 + Retry-After, gRPC UNAVAILABLE + RetryInfo), which OTLP exporters retry (all but OpenTelemetry JS's
gRPC exporter, ragmon.otlp.refusals), and counted as
`backpressure`, 1 per request. A sender gets `BODY_SECONDS` to send its body once its headers are in,
and a connection waiting for a request (its headers, or the next one) is closed after `IDLE_SECONDS`.

Connections are bounded in number too, per port (`HTTP_CONNECTIONS`, `GRPC_CONNECTIONS`,
`METRICS_CONNECTIONS`): an idle one holds ~5.5 KiB (HTTP) or ~16.5 KiB (gRPC), and the idle timeout frees
them only after a minute, so a sender opening 500 a second held 30,000 of them, ~500 MiB over gRPC, within
the open-file limit of a container (often 1,048,576). Past a port's bound a new connection is closed as
it arrives; the ones open go on.

None is a flag: they follow `--max-body`, and an exporter that needs more sends smaller batches.
"""

from __future__ import annotations

from types import TracebackType

HELD_BODIES = 3
"""Bodies of `--max-body` held at once: the one decoding, one waiting for it, one being read. With the
defaults, 48 MiB, on top of the decode's own ~100 MiB of values (`--max-values`); a sender's usual batch
(the SDK's 512 spans, ~100 KB to 1 MiB) takes a sliver of it."""

BODY_SECONDS = 30.0
"""Time to receive one body, from its headers to its last byte: three times an exporter's default export
timeout (10 s), past which the exporter has given up on it anyway; 16 MiB in it is 0.5 MiB/s."""

IDLE_SECONDS = 60.0
"""How long a connection may wait for a request's headers, or stay open between requests: longer than an
exporter's interval between batches (5 s) and Prometheus's usual scrape interval, so that they keep their
connections, and short enough that idle connections do not pile up to the open-file limit."""


HTTP_CONNECTIONS = 1024
"""OTLP/HTTP connections open at once (~5.6 MiB idle): an SDK exporter keeps one, a Collector a few."""

GRPC_CONNECTIONS = 256
"""OTLP/gRPC connections open at once (~4 MiB idle): an exporter multiplexes its calls over one."""

METRICS_CONNECTIONS = 256
"""Connections to the metrics port: Prometheus keeps one per replica, each probe opens one and closes it.
Its own bound, so that a flood of OTLP connections never takes the room of a scrape or a liveness probe."""


class BodyBudget:
    """Bytes of request bodies held at once, across both receivers (on the event loop: no lock)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def claim(self) -> BodyClaim:
        """What one request holds, given back when its `with` block ends, however it ends."""
        return BodyClaim(self)

    def busy_message(self) -> str:
        """What a sender refused for want of room is told."""
        return (f"ragmon is busy: the request bodies it is receiving and decoding fill its {self.limit}-byte "
                "budget; retry later")


class BodyClaim:
    """One request's share of a `BodyBudget`."""

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.held = 0

    def grow(self, size: int) -> bool:
        """Hold `size` more bytes; False, holding nothing more, when the budget has no room for them."""
        if self._budget.held + size > self._budget.limit:
            return False
        self._budget.held += size
        self.held += size
        return True

    def __enter__(self) -> BodyClaim:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._budget.held -= self.held
        self.held = 0
