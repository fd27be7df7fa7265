"""OTLP/HTTP trace receiver: `POST /v1/traces`, protobuf or JSON, identity/gzip/deflate (also as zlib).

Status codes follow the OTLP spec so that exporters do the right thing without configuration: 400/401/
413/415 are final (the client drops the batch), 503 + Retry-After asks it to retry, 200 may carry a
partial success naming the spans we refused. Error bodies are a google.rpc.Status in the request's
encoding (JSON when the request was not protobuf, so a curl user can read it).

Run the app with `app_runner(app, UnreadableRequests(...), auto_decompress=False)`: we inflate the body
ourselves, in steps that never produce more than the room left under `max_body`, so a gzip bomb costs at
most `max_body` of memory, and a truncated or corrupt stream is a 400 rather than a silently shortened
body. (With aiohttp's default auto_decompress the receiver still works and still stops at `max_body`, but
aiohttp does not notice a truncated gzip stream and keeps inflating the rest of a rejected body while it
drains it.)
The compressed size is bounded too: Content-Length up front, then the bytes actually read. And so are
the bodies of all requests at once, and the time each may take (ragmon.otlp.limits).

`app_runner` also takes the lines aiohttp logs for the server: a request it cannot parse as HTTP/1.1 (a
gRPC exporter's HTTP/2 at this port, `Content-Length: abc`) it answers 400 itself, out of any handler's
sight, and logged it with an 11-line traceback per connection on its own logger, which ragmon's logging
does not format: neither JSON nor rate-limited, nor counted. `UnreadableRequests` counts and logs it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from aiohttp import http_parser, web
from aiohttp.http_exceptions import HttpProcessingError, InvalidURLError
from aiohttp.typedefs import Handler
from aiohttp.web_urldispatcher import _default_expect_handler
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)

from ragmon.otlp.auth import bearer_ok
from ragmon.otlp.decode import (
    MAX_VALUES,
    DecodedBatch,
    DecodeError,
    TooManyValues,
    decode_json,
    decode_off_loop,
    decode_protobuf,
)
from ragmon.otlp.inflate import GZIP_MAGIC, Inflater, TooLarge, take
from ragmon.otlp.limits import BODY_SECONDS, HELD_BODIES, IDLE_SECONDS, BodyBudget, BodyClaim
from ragmon.otlp.misdirected import TRACES_PATH, advice, http_signal
from ragmon.otlp.refusals import RefusalLog, Sender
from ragmon.otlp.refusals import log as refusals_logger
from ragmon.otlp.sink import REQUEST_ERRORS, Refused, SpanSink, count_refused, offered, refusal_for
from ragmon.otlp.values import json_values

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
_ENCODINGS = frozenset({"", "identity", "gzip", "deflate"})
_ALIASES = {"x-gzip": "gzip", "zlib": "deflate"}
"""Encodings by another name: RFC 9110 (8.4.1.3) asks a recipient to take x-gzip as gzip; the Collector's
`compression: zlib` sends deflate's zlib format as `zlib`, which its own receiver takes as deflate."""
_ACCEPT_ENCODING = {"Accept-Encoding": "gzip, deflate"}
"""What a 415 for its Content-Encoding carries (RFC 9110 12.5.3), and one for its Content-Type does not:
the header is how a client tells the two apart."""
_JSON_OBJECT = re.compile(rb"[ \t\r\n]*\{")
"""How an OTLP/JSON body starts, and a protobuf one may: `\\n{` is resource_spans' tag and a length of 123
bytes. Only a body that also parses as a JSON object is told it is JSON (`_json_object`)."""
_LOOKS_LIKE_JSON = (f"body looks like JSON (it starts with '{{'), not protobuf: send OTLP/JSON with "
                    f"Content-Type: {JSON}")
_LOOKS_LIKE_PROTOBUF = ("body is not JSON and looks like protobuf (it decodes as an "
                        f"ExportTraceServiceRequest): send it with Content-Type: {PROTOBUF}")
# google.rpc.Code for each HTTP status we answer with.
_RPC_CODE = {400: 3, 401: 16, 404: 12, 408: 4, 413: 8, 415: 3, 503: 14}
_STATUS = {"decode_error": 400, "invalid": 400, "too_large": 413, "backpressure": 503, "unauthorized": 401}
"""The status a request refused for each reason gets; an unsupported Content-Type or -Encoding gets 415."""
_HEADERS = {401: {"WWW-Authenticate": 'Bearer realm="ragmon"'}, 503: {"Retry-After": "1"}}
"""What every answer with the status carries: the scheme to authenticate with, when to retry."""
_LLHTTP_PREFACE = "Pause on PRI/Upgrade"
"""How aiohttp's C parser (llhttp, HPE_PAUSED_H2_UPGRADE) words its refusal of HTTP/2's preface."""
PURE_PYTHON_PARSER = http_parser.HttpRequestParser is http_parser.HttpRequestParserPy
"""Whether aiohttp runs without its C extensions (AIOHTTP_NO_EXTENSIONS, or none built for the platform)."""

_log = logging.getLogger(__name__)


def add_otlp_routes(app: web.Application, sink: SpanSink, *, max_body: int, token: str | None,
                    max_values: int = MAX_VALUES, logger: logging.Logger | None = refusals_logger,
                    on_wrong_path: Callable[[str], None] | None = None,
                    max_body_flag: str | None = "--max-body", bodies: BodyBudget | None = None) -> None:
    """Serve `POST /v1/traces` on `app`; `max_body` bounds the body on the wire and after decompression,
    `max_values` what it may decode to (ragmon.otlp.values).
    A POST anywhere else is an export ragmon does not receive: counted, logged and answered 404 with
    where traces go (ragmon.otlp.misdirected); other methods get aiohttp's own 404 or 405.
    `logger` is where refusals are logged (RefusalLog); None counts (the sink is told) and answers them
    only. `on_wrong_path` is told the path of each POST at no signal's path: the sink's count cannot say
    which, and a replay's error names it. `max_body_flag` is the flag a sender over `max_body` is told to
    raise; None where none sets it. `bodies` is the budget shared with the gRPC receiver (ragmon.otlp.limits);
    None gives this port one of its own.

    Serve `app` with `app_runner(app, UnreadableRequests(..., otlp=True), auto_decompress=False)` (see the
    module docstring).
    """
    receiver = _TraceReceiver(sink, RefusalLog(logger),
                              BodyBudget(HELD_BODIES * max_body) if bodies is None else bodies,
                              token=token, max_body=max_body, max_values=max_values,
                              max_body_flag=max_body_flag, on_wrong_path=on_wrong_path)
    app.router.add_post(TRACES_PATH, receiver.receive, expect_handler=receiver.expect)
    app.middlewares.append(receiver.not_here)


class _TraceReceiver:
    """`add_otlp_routes`'s handler of `POST /v1/traces` (`receive`) and middleware for POSTs elsewhere."""

    def __init__(self, sink: SpanSink, refusals: RefusalLog, bodies: BodyBudget, *, token: str | None,
                 max_body: int, max_values: int, max_body_flag: str | None,
                 on_wrong_path: Callable[[str], None] | None) -> None:
        self._sink = sink
        self._refusals = refusals
        self._bodies = bodies
        self._expected = None if token is None else token.encode()
        self._max_body = max_body
        self._max_values = max_values
        self._max_body_flag = max_body_flag
        self._on_wrong_path = on_wrong_path

    async def expect(self, request: web.Request) -> web.Response | None:
        """`Expect: 100-continue` (curl's, for a body over 1 MiB) is answered with the final status when the
        head alone refuses the request (401, 415, a Content-Length over `max_body`'s 413): aiohttp's own
        answer was 100 whatever the head, and the client sent the body it was about to be refused. The
        connection is closed after it, as the body that may follow is no request."""
        if (refused := self._refused_by_head(request, _encoding(request))) is not None:
            refused.force_close()
            return refused
        await _default_expect_handler(request)
        return None

    async def receive(self, request: web.Request) -> web.Response:
        encoding = _encoding(request)
        if (refused := self._refused_by_head(request, encoding)) is not None:
            return refused
        with self._bodies.claim() as claim:
            try:
                batch = await self._decoded(request, encoding, claim)
            except ConnectionResetError:
                # The sender hung up mid-body (its own export timeout, a pod stopping): nothing of it was
                # received, nothing is refused, and no answer can reach it. An exporter that timed out
                # sends the batch again. aiohttp would log a traceback at ERROR for every such connection.
                _log.debug("OTLP/HTTP sender %s hung up before its body ended", request.remote)
                return web.Response(status=400)
            except TimeoutError:
                # Not counted, as nothing of it was received: the exporter retries a 408. The connection is
                # not kept: the rest of the body may never come (aiohttp reads and drops what does for its
                # lingering time, 10 s, then closes).
                message = f"the body took longer than {BODY_SECONDS:g} s to arrive"
                self._refusals.cut_off("408", **_sender(request), detail=message)
                response = _failure(408, message, request.content_type != PROTOBUF)
                response.force_close()
                return response
            except (*REQUEST_ERRORS, web.RequestPayloadError) as exc:
                return self._refuse(request, refusal_for(exc, "body", encoding, self._max_body, self._bodies,
                                                         self._max_body_flag))
        outcome = offered(batch, self._sink, "http")
        if isinstance(outcome, Refused):
            return self._refuse(request, outcome)
        if outcome.invalid is not None:
            count_refused(self._sink, self._refusals, outcome.invalid, "200", _sender(request), in_part=True)
        return _success(outcome.partial, request.content_type != PROTOBUF)

    async def _decoded(self, request: web.Request, encoding: str, claim: BodyClaim) -> DecodedBatch:
        """The request's spans; raises what `refusal_for` words, and ConnectionResetError or TimeoutError
        for a body that did not arrive."""
        body = await _read_body(request, self._max_body, encoding, claim)
        if encoding in ("", "identity") and body.startswith(GZIP_MAGIC):
            raise DecodeError("body looks gzip-compressed (it starts with bytes 1f 8b): send it with "
                              "Content-Encoding: gzip")
        decode = _protobuf if request.content_type == PROTOBUF else _json
        return await decode_off_loop(decode, body, self._max_values)

    def _refused_by_head(self, request: web.Request, encoding: str) -> web.Response | None:
        """The answer (counted, logged) to a request its head refuses; None for one whose body is read."""
        if (refused := self._unauthorized(request)) is not None:
            return refused
        if request.content_type not in (PROTOBUF, JSON):
            return self._refuse(request, Refused("decode_error", _unsupported_type(request)), 415)
        if encoding not in _ENCODINGS:
            return self._refuse(request, Refused("decode_error", f"Content-Encoding {encoding!r} is not "
                                                 "supported: use gzip, deflate or identity"), 415,
                                _ACCEPT_ENCODING)
        if request.content_length is not None and request.content_length > self._max_body:
            too_large = TooLarge(f"body of {request.content_length} bytes")
            return self._refuse(request, refusal_for(too_large, "body", encoding, self._max_body,
                                                     self._bodies, self._max_body_flag))
        return None

    def _unauthorized(self, request: web.Request) -> web.Response | None:
        """The 401 for a request without the token, when one is set; None for one that may go on."""
        if self._expected is None or bearer_ok(request.headers.get("Authorization", ""), self._expected):
            return None
        return self._refuse(request, Refused("unauthorized",
                                             "missing or wrong bearer token (Authorization: Bearer <token>)"))

    def _refuse(self, request: web.Request, refused: Refused, status: int | None = None,
                headers: dict[str, str] | None = None) -> web.Response:
        """Count, log and answer a refusal, with `status` or, when None, its reason's, and `headers` besides
        the ones every answer with that status carries."""
        status = _STATUS[refused.reason] if status is None else status
        count_refused(self._sink, self._refusals, refused, str(status), _sender(request))
        return _failure(status, refused.message, request.content_type != PROTOBUF, headers)

    @web.middleware
    async def not_here(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except web.HTTPNotFound:
            if request.method != "POST":
                raise
        # With a token set, where traces go and the count (and its alert) are for senders that have it;
        # anyone else's POST (a scanner's) is refused as it would be at /v1/traces.
        if (refused := self._unauthorized(request)) is not None:
            return refused
        signal = http_signal(request.path)
        if signal == "other" and self._on_wrong_path is not None:
            self._on_wrong_path(request.path)
        message = advice(signal, request.path, f"POST {TRACES_PATH}")
        return _misdirected(request, self._sink, self._refusals, signal, message)


def _protobuf(body: bytes, max_values: int) -> DecodedBatch:
    """`decode_protobuf`, but a body it refuses that is JSON is told so: the parser's words ("Wire format was
    corrupt") would not say what is wrong with `curl --data-binary @trace.json` and the protobuf
    Content-Type."""
    return _told_apart(decode_protobuf, _json_object, _LOOKS_LIKE_JSON, body, max_values)


def _json(body: bytes, max_values: int) -> DecodedBatch:
    """`decode_json`, but a body it refuses that is protobuf is told so: the JSON parser's words ("'utf-8'
    codec can't decode byte 0x89") would not say that the exporter sends protobuf under the JSON
    Content-Type."""
    return _told_apart(decode_json, _protobuf_request, _LOOKS_LIKE_PROTOBUF, body, max_values)


def _told_apart(decode: Callable[[bytes, int], DecodedBatch], is_other: Callable[[bytes, int], bool],
                other: str, body: bytes, max_values: int) -> DecodedBatch:
    """`decode(body)`, but a body it refuses that `is_other` reads (the other encoding's request) is refused
    with `other`. Run where the decoding is (`decode_off_loop`), as reading it the other way may cost as
    much."""
    try:
        return decode(body, max_values)
    except DecodeError:
        if not is_other(body, max_values):
            raise
    raise DecodeError(other)


def _protobuf_request(body: bytes, max_values: int) -> bool:
    """Whether `body` decodes as a protobuf request, within `max_values` as the protobuf door reads it."""
    try:
        decode_protobuf(body, max_values)
    except (DecodeError, TooManyValues):
        return False
    return True


def _json_object(body: bytes, max_values: int) -> bool:
    """Whether `body` is a JSON object's text. Parsed only when it starts like one and holds no more values
    than the JSON door would parse (ragmon.otlp.values), so a refused body costs no more memory than an
    accepted one."""
    if _JSON_OBJECT.match(body) is None or json_values(body, max_values) > max_values:
        return False
    try:
        return type(json.loads(body)) is dict
    except (ValueError, RecursionError):
        return False


def _encoding(request: web.Request) -> str:
    encoding = request.headers.get("Content-Encoding", "").strip().lower()
    return _ALIASES.get(encoding, encoding)


def _unsupported_type(request: web.Request) -> str:
    """What a sender of a Content-Type we do not read is told, its media type quoted as sent. aiohttp reads a
    missing one, one naming no media type (empty, `; charset=utf-8`) and one it cannot parse (`json`,
    `application/json, application/x-protobuf`) as application/octet-stream, which the sender never wrote
    (`requests.post(url, data=body)` writes none)."""
    header = request.headers.get("Content-Type")
    media = "" if header is None else header.partition(";")[0].strip()
    if header is None:
        sent = "no Content-Type header"
    elif not media:
        sent = f"Content-Type {header!r} names no media type"
    else:
        sent = f"Content-Type {media!r} is not supported"
    return f"{sent}: send {PROTOBUF} or {JSON}"


def add_metrics_port_answer(app: web.Application, sink: SpanSink, *, token: str | None,
                            message: Callable[[], str]) -> None:
    """Answer `POST /v1/traces` on a port that serves no OTLP (the sidecar's metrics port) as a misdirected
    export: a trace exporter pointed there loses every span, and aiohttp's bare 404 would not say where
    they go. Counted as a request at no signal's path (the alert on `signal="other"` is for exactly this
    loss), logged, and answered 404 with `message()`: the metrics port is bound first, so the OTLP ports
    it names (given port 0, whichever the receivers took) are only known once it serves. With a token set,
    only a request carrying it is told and counted, as on the OTLP port; anyone else gets the bare 404."""
    expected = None if token is None else token.encode()
    refusals = RefusalLog()

    async def elsewhere(request: web.Request) -> web.Response:
        if expected is not None and not bearer_ok(request.headers.get("Authorization", ""), expected):
            raise web.HTTPNotFound()
        return _misdirected(request, sink, refusals, "other", message())

    app.router.add_post(TRACES_PATH, elsewhere)


def is_grpc_client(error: HttpProcessingError) -> bool:
    """Whether aiohttp refused HTTP/2's connection preface (`PRI * HTTP/2.0`), which a gRPC client opens
    every connection with. The C parser names it. The pure-Python one (AIOHTTP_NO_EXTENSIONS) objects only
    to its request target, `*`, which HTTP/1.1 allows with OPTIONS alone: from it, a `GET *` is taken for a
    gRPC client too. The C parser refuses `GET *` the same way, so the request target is asked only when
    the pure-Python parser is the one serving."""
    return error.message.startswith(_LLHTTP_PREFACE) or (
        PURE_PYTHON_PARSER and isinstance(error, InvalidURLError) and error.message == "*")


class UnreadableRequests:
    """What one aiohttp port does with a request aiohttp cannot read as HTTP/1.1, which it has answered 400
    itself. A gRPC client's preface is an export at the wrong port: counted in
    `ragmon_misdirected_requests_total{transport="http", signal="other"}` (ragmon.otlp.misdirected says why
    `other`) and logged with `grpc_advice()`, called when a line is written, as the ports it names are bound
    after this port serves. Anything else is, on the OTLP port (`otlp`), a malformed OTLP request, counted
    and logged as `decode_error` like a body that does not decode; elsewhere only logged. Lines go through
    `refusals`, once a minute per kind and sender."""

    def __init__(self, sink: SpanSink, grpc_advice: Callable[[], str], *, otlp: bool,
                 refusals: RefusalLog | None = None) -> None:
        self._sink = sink
        self._grpc_advice = grpc_advice
        self._otlp = otlp
        self._refusals = RefusalLog() if refusals is None else refusals

    def __call__(self, peer: str, error: HttpProcessingError) -> None:
        if is_grpc_client(error):
            self._sink.misdirected("http", "other")
            self._refusals.grpc_client(peer=peer, detail=self._grpc_advice())
            return
        detail = f"not a valid HTTP/1.1 request: {_reason(error)}"
        if not self._otlp:
            self._refusals.unreadable(peer=peer, detail=detail)
            return
        count_refused(self._sink, self._refusals, Refused("decode_error", detail), "400",
                      Sender(transport="http", peer=peer, user_agent=None))


def _reason(error: HttpProcessingError) -> str:
    """aiohttp's reason, without the last line of the C parser's (a `^` under the byte it stopped at), which
    points at nothing once the log joins the lines into one."""
    return error.message.rstrip().removesuffix("^").rstrip()


class _ServerLog(logging.Logger):
    """The `logger` of aiohttp's RequestHandler, which writes every line aiohttp logs for one server. A
    request it could not parse (logged with its HttpProcessingError, at ERROR, or DEBUG for some) goes to
    `unreadable` instead; any other line (a handler's bug) on to ragmon's own logger, formatted like every
    other line. Made apart from `logging`'s registry: each server has its own, and nothing else changes."""

    def __init__(self, unreadable: Callable[[str, HttpProcessingError], None]) -> None:
        super().__init__("aiohttp.server")
        self._unreadable = unreadable

    def isEnabledFor(self, level: int) -> bool:
        """Always: what is counted must not depend on a level (aiohttp logs some at DEBUG) or on
        `logging.disable`; `handle` asks ragmon's logger before writing anything."""
        return True

    def handle(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            self._unreadable(_record_peer(record), error)
        elif _log.isEnabledFor(record.levelno):
            _log.handle(record)


def _record_peer(record: logging.LogRecord) -> str:
    """The peer of aiohttp's `Error handling request from %s` line: its one argument, `request.remote`."""
    args = record.args
    return str(args[0]) if isinstance(args, tuple) and args and args[0] else "unknown"


def app_runner(app: web.Application, unreadable: UnreadableRequests, **kwargs: Any) -> web.AppRunner:
    """`web.AppRunner(app, **kwargs)` whose unparseable requests go to `unreadable`, through aiohttp's own
    per-server hook (the `logger` AppRunner hands its RequestHandlers): no logging filter or patch of
    aiohttp that would change anything else in the process.

    Its connections close after `IDLE_SECONDS` waiting for a request. aiohttp's keep-alive timer is
    also its only bound on a request's headers: it runs from the connection's start, and from the end of
    each response, until a whole request head is in (aiohttp's default, an hour, let idle connections
    pile up to the open-file limit)."""
    return web.AppRunner(app, logger=_ServerLog(unreadable), keepalive_timeout=IDLE_SECONDS, **kwargs)


def _misdirected(request: web.Request, sink: SpanSink, refusals: RefusalLog, signal: str,
                 message: str) -> web.Response:
    """An export sent where ragmon receives none, on either port: counted, logged, and answered 404 with
    where it should go."""
    sink.misdirected("http", signal)
    refusals.misdirected(signal, "404", **_sender(request), detail=message)
    return _failure(404, message, request.content_type != PROTOBUF)


def _sender(request: web.Request) -> Sender:
    return Sender(transport="http", peer=request.remote or "unknown",
                  user_agent=request.headers.get("User-Agent"))


async def _read_body(request: web.Request, max_body: int, encoding: str, claim: BodyClaim) -> bytes:
    """The body, inflated, held in `claim` as it grows: TooLarge past `max_body`, NoRoom when the budget
    has none, TimeoutError past `BODY_SECONDS`. (A Content-Length over `max_body` was refused first.)"""
    if not request.body_exists:
        return b""
    stream = request.content
    # total_compressed_bytes is set when aiohttp itself inflates (auto_decompress left on).
    inflated_by_aiohttp = stream.total_compressed_bytes is not None
    inflater = Inflater(encoding) if encoding in ("gzip", "deflate") and not inflated_by_aiohttp else None
    body = bytearray()
    async with asyncio.timeout(BODY_SECONDS):
        while chunk := await stream.readany():
            if stream.total_raw_bytes > max_body:
                raise TooLarge("body")
            piece = chunk if inflater is None else inflater.feed(chunk, max_body - len(body))
            take(body, piece, max_body, claim, "body, once decompressed,")
    if inflater is not None and stream.total_raw_bytes:
        inflater.finish()
    return bytes(body)


def _success(partial: ExportTracePartialSuccess | None, as_json: bool) -> web.Response:
    if as_json:
        doc = {} if partial is None else {"partialSuccess": {
            "rejectedSpans": str(partial.rejected_spans), "errorMessage": partial.error_message}}
        return web.Response(body=json.dumps(doc).encode(), content_type=JSON)
    response = ExportTraceServiceResponse(partial_success=partial)
    return web.Response(body=response.SerializeToString(), content_type=PROTOBUF)


def _failure(status: int, message: str, as_json: bool, headers: dict[str, str] | None = None) -> web.Response:
    code = _RPC_CODE[status]
    if as_json:
        body, content_type = json.dumps({"code": code, "message": message}).encode(), JSON
    else:
        body, content_type = Status(code=code, message=message).SerializeToString(), PROTOBUF
    return web.Response(status=status, body=body, content_type=content_type,
                        headers={**_HEADERS.get(status, {}), **(headers or {})})
