"""OTLP requests for something ragmon does not receive, and what to tell their sender.

Two mistakes send them, and both used to end in a bare 404 (gRPC: UNIMPLEMENTED) that nothing counted:
- another signal: an app that points one shared `OTEL_EXPORTER_OTLP_ENDPOINT` at ragmon exports its
  metrics and logs there too (`/v1/metrics`, `/v1/logs`). ragmon loses nothing of its own, but the app
  loses them, and its exporter's log line is all that says so;
- a path that is no OTLP path: a signal-specific endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is used
  as given, so one set without `/v1/traces` posts every span to `/`; the shared one gets `/v1/traces`
  appended, so one set to the full URL posts to `/v1/traces/v1/traces`; and an endpoint with the metrics
  port posts to that port. That sender's traces are all lost, and none of them is counted as received or
  refused, as they are not read.

So each is counted, by signal, in `ragmon_misdirected_requests_total`, apart from the span refusals (the
first is no fault of ragmon's traffic and must not page), logged like a refusal, and answered with a
message that says where traces go.

A third mistake never gets as far as a path: a gRPC exporter given the OTLP/HTTP port (the SDKs' shared
`OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318` with the gRPC exporter) or the metrics port opens
with HTTP/2's connection preface, which aiohttp cannot read. Its signal is in frames nothing reads, so it
is counted as `other`: its spans are all lost, as at a wrong path, and the `signal="other"` alert and
dashboards already cover that loss (a label value of its own would be left out of both). The log line
tells it apart (`grpc_client_advice`).
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
                + (f" ({endpoint_fix(where)})" if traces_at.endswith(TRACES_PATH) else ""))
    env = _ENV.get(signal)
    where_else = (f": point OTEL_EXPORTER_OTLP_{env}_ENDPOINT elsewhere, or set OTEL_{env}_EXPORTER=none"
                  if env else ": send them elsewhere")
    if signal == "metrics":
        where_else += " (Traceloop's SDK, which reads neither: TRACELOOP_METRICS_ENABLED=false)"
    return f"ragmon receives traces only (at {traces_at}), not {signal}{where_else}"


def endpoint_fix(path: str) -> str:
    """What to change in the exporter's settings that posted traces to `path`, an OTLP/HTTP path that is no
    signal's. The two variables differ: the SDK appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT, so one
    set to the full URL posts to a path that ends in it twice; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used
    as given, so one set to the bare host posts to `/`."""
    added = path.removesuffix(TRACES_PATH)
    if added and added != path:
        return (f"the SDK appends {TRACES_PATH} to OTEL_EXPORTER_OTLP_ENDPOINT: set it to the base URL, "
                f"without {added}, or give the full URL in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    return (f"an endpoint set in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, so it must end in "
            f"{TRACES_PATH}")


def metrics_port_advice(http: int | None, grpc: int | None) -> str:
    """What a trace exporter pointed at the sidecar's metrics port is told: where its OTLP ports are (the
    ports the `--http-listen` and `--grpc-listen` receivers took, None when off)."""
    ports = []
    if http is not None:
        ports.append(f"port {http} over OTLP/HTTP (POST {TRACES_PATH})")
    if grpc is not None:
        ports.append(f"port {grpc} over OTLP/gRPC")
    return ("this is ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no traces: send "
            f"them to {' or '.join(ports) or 'a ragmon whose OTLP receivers are on'}")


OTLP_HTTP_PORT = "ragmon's OTLP/HTTP port, which speaks HTTP/1.1, not gRPC's HTTP/2"
"""Where a gRPC client that reached the sidecar's `--http-listen` port connected (`grpc_client_advice`)."""
METRICS_PORT = "ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no traces"
"""Where a gRPC client that reached the sidecar's `--metrics-listen` port connected."""
REPLAY_RECEIVER = "ragmon replay's receiver, which takes OTLP/HTTP only, not gRPC's HTTP/2"
"""Where a gRPC client that reached `ragmon replay --target`'s embedded receiver connected."""
_HTTP_EXPORTER = "use the HTTP exporter (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)"


def grpc_client_advice(where: str, http: int | None, grpc: int | None, *,
                       grpc_flag: str | None = "--grpc-listen") -> str:
    """What the log says of a gRPC client (known by HTTP/2's preface) at one of ragmon's aiohttp ports:
    what happened and the two ways out, with the ports the receivers actually took, since a port given as
    0 is not the one to export to. `where` names the port it reached and why that fails; `http` and `grpc`
    are the OTLP ports bound (None: off); `grpc_flag` is the flag that turns the gRPC receiver on, None
    where there is none (a replay's receiver, whose port the sender has already: no port is named).
    At most 300 characters, the longest a log line's `detail` is kept whole (ragmon.logs.MAX_FIELD)."""
    fixes = [] if grpc is None else [f"point gRPC exporters at port {grpc} (OTLP/gRPC)"]
    if http is not None or grpc_flag is None:
        fixes.append(_HTTP_EXPORTER if http is None else f"{_HTTP_EXPORTER} at port {http}")
    off = ""
    if grpc is None and grpc_flag is not None:
        off = f", and ragmon's OTLP/gRPC receiver is off ({grpc_flag} off)"
        fixes.append(f"turn gRPC on with {grpc_flag}")
    return f"a gRPC client connected to {where}{off}: {', or '.join(fixes)}"
