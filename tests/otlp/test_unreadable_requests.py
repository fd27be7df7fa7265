"""Requests aiohttp cannot parse as HTTP/1.1 at ragmon's aiohttp ports (ragmon.otlp.http.app_runner): a gRPC
exporter's HTTP/2 preface is counted as misdirected and logged with the way out, anything else as a bad
request, each once a minute per sender, and never with aiohttp's traceback.

Real parts: aiohttp's own two parsers, the OTel SDK's gRPC exporter, raw sockets, `ragmon replay`'s
embedded receiver. Servers bind 127.0.0.1 on free ports and are stopped by the test.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.http_parser import HttpRequestParserC, HttpRequestParserPy
from manual_clock import ManualClock
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace import SpanKind
from ports import free_port

from ragmon.errors import RagmonError
from ragmon.logs import MAX_FIELD
from ragmon.model import Example
from ragmon.otlp import http
from ragmon.otlp.http import UnreadableRequests, add_otlp_routes, app_runner, is_grpc_client
from ragmon.otlp.misdirected import METRICS_PORT, OTLP_HTTP_PORT, grpc_client_advice
from ragmon.otlp.refusals import RefusalLog
from ragmon.target import Target, collect

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
"""HTTP/2's connection preface (RFC 9113 3.4), which a gRPC client sends first on every connection."""
BAD_LENGTH = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"
ADVICE = "what the gRPC client is told"
AIOHTTP_REASON = "Invalid character in Content-Length: b'Content-Length: abc'"

Serve = Callable[[web.Application, UnreadableRequests], Awaitable[int]]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Serve an app as the sidecar does (`app_runner`) on 127.0.0.1, a free port; returns the port."""
    runners: list[web.AppRunner] = []

    async def start(app: web.Application, unreadable: UnreadableRequests) -> int:
        runner = app_runner(app, unreadable, access_log=None, auto_decompress=False)
        await runner.setup()
        runners.append(runner)
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return int(runner.addresses[0][1])

    yield start
    for runner in runners:
        await runner.cleanup()


def otlp_app(sink: Any) -> web.Application:
    """The OTLP/HTTP receiver feeding `sink`, the recording sink of tests/otlp/conftest.py."""
    app = web.Application()
    add_otlp_routes(app, sink, max_body=1 << 20, token=None)
    return app


async def send_raw(port: int, data: bytes) -> bytes:
    """Write `data` on a new connection and read the answer to its end (aiohttp closes after a 400)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
        await writer.wait_closed()


async def grpc_export(port: int, spans: Sequence[ReadableSpan]) -> SpanExportResult:
    """One export by the SDK's gRPC exporter (with its own retries), off the event loop the server runs on."""
    exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{port}", insecure=True, timeout=2)
    try:
        return await asyncio.to_thread(exporter.export, spans)
    finally:
        await asyncio.to_thread(exporter.shutdown)


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """Records that would print a traceback, or that aiohttp wrote on its own logger."""
    return [r for r in caplog.records if r.exc_info or r.name.startswith("aiohttp")]


# --- telling the preface apart ------------------------------------------------------------------------

@pytest.mark.parametrize("parser", [HttpRequestParserC, HttpRequestParserPy], ids=["C", "Python"])
async def test_both_aiohttp_parsers_refusal_of_the_http2_preface_is_told_apart(
        parser: type, monkeypatch: pytest.MonkeyPatch) -> None:
    # aiohttp uses its C parser (llhttp) unless AIOHTTP_NO_EXTENSIONS is set; each words its refusal its
    # own way, and neither says "HTTP/2".
    monkeypatch.setattr(http, "PURE_PYTHON_PARSER", parser is HttpRequestParserPy)

    def refusal(data: bytes) -> HttpProcessingError:
        with pytest.raises(HttpProcessingError) as raised:
            parser(None, asyncio.get_running_loop(), 1 << 16).feed_data(data)
        return raised.value

    assert is_grpc_client(refusal(PREFACE))
    assert not is_grpc_client(refusal(BAD_LENGTH))
    assert not is_grpc_client(refusal(b"\x16\x03\x01\x02\x00\x01\r\n\r\n"))  # TLS at a plain port
    if parser is HttpRequestParserC:  # the Python parser cannot tell these from the preface
        for target_star in (b"GET * HTTP/1.1\r\nHost: x\r\n\r\n", b"POST * HTTP/1.1\r\nHost: x\r\n\r\n"):
            assert not is_grpc_client(refusal(target_star))


@pytest.mark.parametrize(("where", "http", "grpc", "told"), [
    (OTLP_HTTP_PORT, 4318, 4317,
     "a gRPC client connected to ragmon's OTLP/HTTP port, which speaks HTTP/1.1, not gRPC's HTTP/2: point "
     "gRPC exporters at port 4317 (OTLP/gRPC), or use the HTTP exporter "
     "(OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) at port 4318"),
    (OTLP_HTTP_PORT, 4318, None,
     "a gRPC client connected to ragmon's OTLP/HTTP port, which speaks HTTP/1.1, not gRPC's HTTP/2, and "
     "ragmon's OTLP/gRPC receiver is off (--grpc-listen off): use the HTTP exporter "
     "(OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) at port 4318, or turn gRPC on with --grpc-listen"),
    (METRICS_PORT, 4318, 4317,
     "a gRPC client connected to ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no "
     "traces: point gRPC exporters at port 4317 (OTLP/gRPC), or use the HTTP exporter "
     "(OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) at port 4318"),
    (METRICS_PORT, 65535, None,
     "a gRPC client connected to ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no "
     "traces, and ragmon's OTLP/gRPC receiver is off (--grpc-listen off): use the HTTP exporter "
     "(OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf) at port 65535, or turn gRPC on with --grpc-listen"),
    # Only gRPC on: the HTTP exporter would find no receiver.
    (METRICS_PORT, None, 4317,
     "a gRPC client connected to ragmon's metrics port (GET /metrics, /healthz, /readyz), which receives no "
     "traces: point gRPC exporters at port 4317 (OTLP/gRPC)"),
])
def test_a_grpc_client_is_told_the_ports_the_receivers_took_or_that_grpc_is_off(
        where: str, http: int | None, grpc: int | None, told: str) -> None:
    assert grpc_client_advice(where, http, grpc) == told
    assert len(told) <= MAX_FIELD  # the log line keeps it whole


# --- at a served port -----------------------------------------------------------------------------------

async def test_a_grpc_exporter_is_counted_on_each_attempt_and_logged_once_a_minute(
        serve: Serve, sink: Any, sdk_spans: Sequence[ReadableSpan],
        refusal_records: Callable[[], list[logging.LogRecord]], caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock(1000.0)
    refusals = RefusalLog(logging.getLogger("ragmon.otlp"), clock=clock)
    port = await serve(otlp_app(sink), UnreadableRequests(sink, lambda: ADVICE, otlp=True, refusals=refusals))

    for _ in range(2):  # each export retries, on a new connection
        assert await grpc_export(port, sdk_spans) is SpanExportResult.FAILURE
    attempts = len(sink.misdirections)
    assert attempts >= 2
    clock.now += 60
    assert await grpc_export(port, sdk_spans) is SpanExportResult.FAILURE

    # Every connection is counted as an export at no signal's path; no span was offered or refused.
    assert len(sink.misdirections) > attempts and set(sink.misdirections) == {("http", "other")}
    assert sink.offers == [] and sink.rejects == []
    first, second = refusal_records()
    assert first.getMessage() == "OTLP request for something ragmon does not receive"
    assert second.getMessage() == ("OTLP request for something ragmon does not receive ... and "
                                   f"{attempts - 1} more like it since the last line")
    assert (first.suppressed, second.suppressed) == (0, attempts - 1)
    for record in (first, second):
        assert record.levelno == logging.WARNING and record.exc_info is None
        fields = (record.signal, record.protocol, record.status, record.transport, record.peer, record.detail)
        assert fields == ("other", "HTTP/2", "400", "http", "127.0.0.1", ADVICE)
    assert tracebacks(caplog) == []


@pytest.mark.parametrize(("otlp", "message", "level", "rejects"), [
    (True, "OTLP request refused", logging.WARNING, [(1, "decode_error")]),  # as a body not decoding
    # The metrics port: no OTLP request was refused, and scanners reach it: info.
    (False, "HTTP request refused", logging.INFO, []),
])
async def test_a_request_that_is_not_http_is_answered_400_and_logged_once_a_minute_with_aiohttps_reason(
        serve: Serve, sink: Any, refusal_records: Callable[[], list[logging.LogRecord]],
        caplog: pytest.LogCaptureFixture, otlp: bool, message: str, level: int,
        rejects: list[tuple[int, str]]) -> None:
    app = otlp_app(sink) if otlp else web.Application()
    port = await serve(app, UnreadableRequests(sink, lambda: ADVICE, otlp=otlp))
    for _ in range(3):
        assert (await send_raw(port, BAD_LENGTH)).startswith(b"HTTP/1.0 400 Bad Request\r\n")
    [record] = refusal_records()
    assert record.getMessage() == message and record.exc_info is None and record.levelno == level
    fields = (record.status, record.transport, record.peer, record.user_agent)
    assert fields == ("400", "http", "127.0.0.1", None)
    assert record.detail == f"not a valid HTTP/1.1 request: {AIOHTTP_REASON}"
    assert sink.rejects == rejects * 3 and sink.misdirections == []
    assert tracebacks(caplog) == []


@contextmanager
def ragmon_lines() -> Iterator[list[logging.LogRecord]]:
    """What reaches the "ragmon" logger, where `ragmon serve` formats every line (JSON or text)."""
    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = lines.append  # type: ignore[method-assign]
    logger = logging.getLogger("ragmon")
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


async def test_a_handlers_own_error_is_still_logged_with_its_traceback_as_a_ragmon_line(
        serve: Serve, sink: Any) -> None:
    # Not a request aiohttp could not read: a bug must not be hidden, and goes through ragmon's logging (so
    # `--log-format json` makes it one JSON object, its traceback a field), not Python's last resort.
    async def broken(request: web.Request) -> web.Response:
        raise RuntimeError("a bug")

    app = web.Application()
    app.router.add_get("/broken", broken)
    port = await serve(app, UnreadableRequests(sink, lambda: ADVICE, otlp=False))
    with ragmon_lines() as lines:
        answer = await send_raw(port, b"GET /broken HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 500 Internal Server Error\r\n")
    [line] = lines
    assert line.levelno == logging.ERROR and line.exc_info is not None
    assert isinstance(line.exc_info[1], RuntimeError)
    assert sink.misdirections == [] and sink.rejects == []


# --- ragmon replay's embedded receiver ------------------------------------------------------------------

async def test_replays_receiver_tells_a_build_exporting_over_grpc_to_use_the_http_exporter(
        capfd: pytest.CaptureFixture[str]) -> None:
    receiver = free_port()
    provider = TracerProvider(resource=Resource.create({"service.name": "candidate"}))
    exporter = GrpcSpanExporter(endpoint=f"127.0.0.1:{receiver}", insecure=True, timeout=2)
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=50))
    tracer = provider.get_tracer("candidate")

    async def ask(request: web.Request) -> web.Response:
        with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
            return web.json_response({"answer": "Paris."})

    app = web.Application()
    app.router.add_post("/ask", ask)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    target = Target(url=f"http://127.0.0.1:{runner.addresses[0][1]}/ask", receiver=("127.0.0.1", receiver),
                    trace_wait=3.0, quiet=0.1)
    log = io.StringIO()
    try:
        with pytest.raises(RagmonError):  # no trace arrives
            await asyncio.to_thread(collect, [Example(id="a", question="capital?")], target, log=log)
    finally:
        await asyncio.to_thread(provider.shutdown)
        await runner.cleanup()
    lines = log.getvalue().splitlines()[1:]  # after "receiving the target's spans on ..."
    assert lines == [
        "warning: OTLP request for something ragmon does not receive from 127.0.0.1, answered 400: a "
        "gRPC client connected to ragmon replay's receiver, which takes OTLP/HTTP only, not gRPC's HTTP/2: "
        "use the HTTP exporter (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)"]
    assert "Traceback" not in capfd.readouterr().err
