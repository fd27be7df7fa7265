"""The log line for a refused OTLP request, so an operator can tell which sender is misconfigured and how.

`ragmon_spans_rejected_total{reason}` says that requests are refused, not by whom: with several senders
(a tee, a pool) the log has to name the peer, its user agent and the message the client got. A sender
that is wrong is usually wrong on every request, at its export rate, so each (reason, peer) gets at most
one line per `WINDOW_SECONDS` (ragmon.logs), and that line counts the refusals left out since the previous
one.
Back-pressure is logged at INFO: the client retries it, and a busy ragmon is not a sender's fault. But
OpenTelemetry JS's gRPC exporter retries nothing: to it, back-pressure drops the batch, which its app logs
nowhere by default, so that refusal is a warning saying so.

Only what the receiver told the client is logged, never the body or the Authorization header.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypedDict
from urllib.parse import unquote

from ragmon.logs import MAX_KEYS, WINDOW_SECONDS, LineLimit, clip, more_like_it

log = logging.getLogger("ragmon.otlp")


JS_EXPORTER = "OTel-OTLP-Exporter-JavaScript/"
"""How OpenTelemetry JS's exporters' User-Agent starts (over gRPC, grpc-js adds its own after it)."""
JS_GRPC_DROPS = ("OpenTelemetry JS's gRPC exporter retries no failure (checked: 0.223.1), so it dropped "
                 "these spans; export over OTLP/HTTP (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf, to "
                 "ragmon's OTLP/HTTP port, 4318 unless --http-listen says otherwise), which retries a 503")


class Sender(TypedDict):
    """Who a line names, as each receiver reads it from its request."""

    transport: str
    peer: str
    user_agent: str | None


class RefusalLog:
    """Rate-limited logging of refused and misdirected requests: a `LineLimit` keyed by what went wrong and
    the peer."""

    def __init__(self, logger: logging.Logger | None = log, *, window: float = WINDOW_SECONDS,
                 max_keys: int = MAX_KEYS, clock: Callable[[], float] = time.monotonic) -> None:
        """`logger` None writes no line: a run told to print nothing (`ragmon replay --quiet`), whose
        process has no logging set up, would otherwise get each warning on stderr from Python's
        last-resort handler."""
        self._logger = logger
        self._limit = LineLimit(window=window, max_keys=max_keys, clock=clock)

    def refused(self, reason: str, status: str, *, transport: str, peer: str, user_agent: str | None,
                detail: str, in_part: bool = False) -> None:
        """Log a refusal unless (reason, peer) had a line within the window. `reason` is the counter's
        label, `status` the HTTP status or gRPC code name, `detail` the message the client got. `in_part`:
        the request was taken but for the spans `detail` names (a partial success, which the SDK's
        exporters do not read, so this line is all that names the sender)."""
        fields = {"reason": reason, "status": status, "transport": transport, "peer": peer}
        retried = reason == "backpressure" and not _retries_nothing(transport, user_agent)
        if reason == "backpressure" and not retried:
            fields["lost"] = JS_GRPC_DROPS
        self._write((reason, peer), logging.INFO if retried else logging.WARNING,
                    "OTLP request refused in part" if in_part else "OTLP request refused", fields,
                    user_agent, detail)

    def misdirected(self, signal: str, status: str, *, transport: str, peer: str, user_agent: str | None,
                    detail: str) -> None:
        """Log a request for what ragmon does not receive (ragmon.otlp.misdirected), once per (signal,
        peer) per window: a warning when it is no OTLP signal's (a trace exporter's wrong path, whose
        spans are all lost), else info (the app's own exporter reports its loss)."""
        self._write(("misdirected", signal, peer), logging.WARNING if signal == "other" else logging.INFO,
                    "OTLP request for something ragmon does not receive",
                    {"signal": signal, "status": status, "transport": transport, "peer": peer},
                    user_agent, detail)

    def grpc_client(self, *, peer: str, detail: str) -> None:
        """Log a gRPC client at an aiohttp port (its HTTP/2 preface, ragmon.otlp.misdirected), once per peer
        per window, apart from that peer's wrong paths: another mistake, with another fix. A warning, as
        every span it sends is lost. aiohttp answers it 400 before reading any header: no user agent."""
        self._write(("misdirected", "HTTP/2", peer), logging.WARNING,
                    "OTLP request for something ragmon does not receive",
                    {"signal": "other", "protocol": "HTTP/2", "status": "400", "transport": "http",
                     "peer": peer}, None, detail)

    def cut_off(self, status: str, *, transport: str, peer: str, user_agent: str | None, detail: str) -> None:
        """Log a request whose body did not arrive in time (ragmon.otlp.limits), once per peer per window.
        No counter: nothing of it was received, and the sender retries it. Info: a sender stalled by its
        own network, or one that means to hold a connection, is told apart by how often it recurs."""
        self._write(("cut_off", peer), logging.INFO, "OTLP request cut off",
                    {"status": status, "transport": transport, "peer": peer}, user_agent, detail)

    def unreadable(self, *, peer: str, detail: str) -> None:
        """Log a request aiohttp cannot read as HTTP/1.1 at a port that receives no OTLP (the metrics
        port), once per peer per window: no counter applies, as no OTLP request was refused, and the line
        must still name the sender (on the OTLP port it is a refusal: `refused`). Info, not a warning: the
        metrics port listens beyond the pod for Prometheus, where scanners and TLS probes come and go,
        and nothing of ragmon's is lost."""
        self._write(("unreadable", peer), logging.INFO, "HTTP request refused",
                    {"status": "400", "transport": "http", "peer": peer}, None, detail)

    def _write(self, key: tuple[str, ...], level: int, message: str, fields: dict[str, str],
               user_agent: str | None, detail: str) -> None:
        """One line unless `key` had one within the window; the sender's own words clipped."""
        if self._logger is None:
            return
        suppressed = self._limit.admit(key)
        if suppressed is None:
            return
        self._logger.log(level, more_like_it(message, suppressed), extra={
            **fields, "user_agent": None if user_agent is None else clip(user_agent),
            "suppressed": suppressed, "detail": clip(detail)})


def _retries_nothing(transport: str, user_agent: str | None) -> bool:
    """Whether the sender drops a batch refused for back-pressure: OpenTelemetry JS's gRPC exporter, whose
    transport resolves every error as final (its OTLP/HTTP exporters retry 503, honouring Retry-After)."""
    return transport == "grpc" and user_agent is not None and user_agent.startswith(JS_EXPORTER)


def grpc_peer_host(peer: str) -> str:
    """The address in a gRPC peer string ("ipv4:10.0.0.7:53412", "ipv6:%5B::1%5D:53412"), without the
    port: a sender that reconnects gets a new port, and it is the same sender (HTTP's `request.remote` has
    no port either). Other forms ("unix:/run/x.sock") are kept whole."""
    kind, _, address = unquote(peer).partition(":")
    if kind == "ipv4":
        return address.rpartition(":")[0]
    if kind == "ipv6":
        return address.rpartition(":")[0].removeprefix("[").removesuffix("]")
    return peer
