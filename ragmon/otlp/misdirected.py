"""OTLP requests for something ragmon does not receive, and what to tell their sender.

Two mistakes send them, and both used to end in a bare 404 (gRPC: UNIMPLEMENTED) that nothing counted:
- another signal: an app that points one shared `OTEL_EXPORTER_OTLP_ENDPOINT` at ragmon exports its
  metrics and logs there too (`/v1/metrics`, `/v1/logs`). ragmon loses nothing of its own, but the app
  loses them, and its exporter's log line is all that says so;
- a path that is no OTLP path: a signal-specific endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is used
  as given, so one set without `/v1/traces` posts every span to `/`. That sender's traces are all lost,
  and none of them is counted as received or refused, as they are not read.

So each is counted, by signal, in `ragmon_misdirected_requests_total`, apart from the span refusals (the
first is no fault of ragmon's traffic and must not page), logged like a refusal, and answered with a
message that says where traces go.
"""

from __future__ import annotations

SIGNALS = ("metrics", "logs", "profiles", "other")
"""`other`: not an OTLP signal's path, most likely traces sent to the wrong path."""
TRACES_PATH = "/v1/traces"
_GRPC_PACKAGE = "/opentelemetry.proto.collector."
_ENV = {"metrics": "METRICS", "logs": "LOGS"}


def http_signal(path: str) -> str:
    """The signal an OTLP/HTTP path is for: its last two segments, so that a path under a prefix (a
    proxy's `/otlp/v1/metrics`) is still told apart from a mistyped one."""
    signal = path.rstrip("/").rpartition("/")[2]
    if signal in ("metrics", "logs") and path.rstrip("/").endswith(f"/v1/{signal}"):
        return signal
    return "profiles" if signal == "profiles" else "other"


def grpc_signal(method: str) -> str:
    """The signal of a gRPC method name, e.g. `/opentelemetry.proto.collector.logs.v1.LogsService/Export`."""
    if not method.startswith(_GRPC_PACKAGE):
        return "other"
    package = method.removeprefix(_GRPC_PACKAGE).partition(".")[0]
    return package if package in SIGNALS else "other"


def advice(signal: str, where: str, traces_at: str) -> str:
    """What the sender is told: `where` is the path or method it used, `traces_at` where traces go."""
    if signal == "other":
        return (f"nothing is received at {where}: ragmon receives OTLP traces at {traces_at}"
                + (" (an endpoint set in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, so it must "
                   f"end in {TRACES_PATH})" if traces_at.endswith(TRACES_PATH) else ""))
    env = _ENV.get(signal)
    where_else = (f": point OTEL_EXPORTER_OTLP_{env}_ENDPOINT elsewhere, or set OTEL_{env}_EXPORTER=none"
                  if env else ": send them elsewhere")
    return f"ragmon receives traces only (at {traces_at}), not {signal}{where_else}"
