"""OTLP/gRPC trace receiver: `opentelemetry.proto.collector.trace.v1.TraceService/Export`.

Status codes follow the OTLP spec: INVALID_ARGUMENT and UNAUTHENTICATED are final; UNAVAILABLE with
RetryInfo (1 s) is back-pressure. RetryInfo goes where each client reads it: in the status details
(`grpc-status-details-bin`, a google.rpc.Status, as the spec's example puts it and the Collector's and
Go's exporters read it), and in the `google.rpc.retryinfo-bin` trailer, the Python exporter's.

A message over `max_body` (after decompression, as over HTTP) gets RESOURCE_EXHAUSTED naming the limit,
is counted as `too_large` and logged, like HTTP's 413. It carries no RetryInfo, which makes it final for
a client that follows the spec (the Collector). The Python exporter (1.45) retries RESOURCE_EXHAUSTED
regardless, backing off 1 s, 2 s, 4 s (+-20%) until its timeout: 4 attempts in its default 10 s, each
refused and counted, then it drops the batch.

gRPC's own decompression is off: a compressed message reaches `export` as sent, and is inflated there
(ragmon.otlp.inflate), within `max_body` and the `BodyBudget` shared with the HTTP receiver, as it grows.
gRPC inflated 25 calls of 30 MiB of gzip, 30 KB each on the wire, to 713 MiB before ragmon could refuse
them; now they peak at 92 MiB. The messages waiting for the decoding thread, or decoded, hold their room
in the budget too; a call that finds none gets UNAVAILABLE with RetryInfo, counted as `backpressure`.

gRPC hands over a message only once it holds all of it, so its own `grpc.max_receive_message_length`
stays as the memory bound on what it holds, at `receive_cap`: twice `max_body`, on the message as sent.
What is over the cap gRPC refuses itself, RESOURCE_EXHAUSTED "Received message larger than max (N vs. cap)":
`export` runs, but gRPC cancels the call under its read (CancelledError, or the end of the stream and then
the cancellation), as it does when a sender cancels or disconnects halfway through its message. gRPC tells
the handler neither the status nor the size, so it stays uncounted and unlogged rather than counted as
`too_large` on a guess (measured with grpcio 1.85: 40 of 40 oversized messages and 40 of 40 senders
dropping mid-message ended alike). Twice is the trade-off: a request may hold twice the memory HTTP
lets it, and what is counted is the quiet case, a sender whose batches pass the limit only now and then
and so loses a share of its spans unnoticed. A sender whose every batch is far over loses everything and
gets the error on each export, which its own logs show (and RagmonNoSpans, if it is the only sender).
What gRPC holds before the handler reads, the budget cannot see: only `MAX_CALLS` bounds it, and a
sender must send those bytes.

The method is registered without a request deserializer: gRPC would answer bytes that are not protobuf
with UNKNOWN and a Python exception name, uncounted. We parse them ourselves, as the HTTP receiver does,
so they get INVALID_ARGUMENT with the parser's message and count as `decode_error`.

gRPC's standard health check, `grpc.health.v1.Health/Check` (a Kubernetes grpc probe's, a mesh's, a gRPC
load balancer's), answers SERVING for the server ("") and the trace service, without the token, as the
metrics port's /readyz is open too. It answers only while the sidecar is ready: the server starts last
and is stopped first thing in a drain, from which on gRPC refuses every new call, so a probe fails as
/readyz turns 503. Any other method of gRPC's own services (`Health/Watch`, server reflection, as `grpcurl
list` calls) gets UNIMPLEMENTED, neither counted nor logged as a misdirected export: no span is lost.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Mapping

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.duration_pb2 import Duration
from google.protobuf.wrappers_pb2 import Int32Value, StringValue
from google.rpc.error_details_pb2 import RetryInfo
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import DESCRIPTOR, ExportTraceServiceResponse

from ragmon.errors import RagmonError
from ragmon.listen import cannot_listen, refused_bind
from ragmon.options import Flag, shown_address
from ragmon.otlp.auth import bearer_ok
from ragmon.otlp.decode import MAX_VALUES, DecodedBatch, DecodeError, decode_off_loop, decode_protobuf
from ragmon.otlp.inflate import Inflater, NoRoom, TooLarge, sniff, take
from ragmon.otlp.limits import (
    BODY_SECONDS,
    GRPC_CONNECTIONS,
    HELD_BODIES,
    IDLE_SECONDS,
    BodyBudget,
    BodyClaim,
)
from ragmon.otlp.misdirected import advice, grpc_signal
from ragmon.otlp.refusals import RefusalLog, Sender, grpc_peer_host
from ragmon.otlp.sink import REQUEST_ERRORS, Refused, SpanSink, Taken, count_refused, offered, refusal_for

RETRY_INFO_KEY = "google.rpc.retryinfo-bin"
STATUS_DETAILS_KEY = "grpc-status-details-bin"
_RETRY_1S = RetryInfo(retry_delay=Duration(seconds=1))
_SERVICE = DESCRIPTOR.services_by_name["TraceService"].full_name
_GRPC_MAX_LENGTH = 2**31 - 1  # gRPC channel arguments are C ints
_INFLATE_STEP = 1 << 20
_HEALTH = "grpc.health.v1.Health"
_GRPC_OWN = "/grpc."
"""How the methods of gRPC's own services (health, reflection, channelz) begin."""
_SERVING = Int32Value(value=1)
"""grpc.health.v1.HealthCheckResponse{status: SERVING}. Neither health message is in a package ragmon
depends on (grpcio-health-checking), and each has the wire form of a wrapper: the request a string and
the response an enum in field 1, as StringValue's string and Int32Value's varint are."""
_CODES = {"decode_error": grpc.StatusCode.INVALID_ARGUMENT, "invalid": grpc.StatusCode.INVALID_ARGUMENT,
          "too_large": grpc.StatusCode.RESOURCE_EXHAUSTED, "backpressure": grpc.StatusCode.UNAVAILABLE,
          "unauthorized": grpc.StatusCode.UNAUTHENTICATED}
"""The status a call refused for each reason gets; UNAVAILABLE comes with RetryInfo."""


MAX_CALLS = 64
"""Export calls open at once; one more is refused back-pressure (UNAVAILABLE with RetryInfo, counted),
which every exporter retries. Far above what senders open (an SDK exporter one call at a time, a
Collector 10 by default): it bounds a flood of calls, each a task and gRPC's buffers for its message,
not their memory, which is up to `receive_cap` each, as sent."""

GRPC_CALLS = 4 * MAX_CALLS
"""gRPC's own bound on calls open at once (`maximum_concurrent_rpcs`), past which it answers
RESOURCE_EXHAUSTED "Concurrent RPC limit exceeded!" itself: uncounted, and final to the Collector and the
Go SDK (no RetryInfo). It was `MAX_CALLS`, where a burst of 65 calls lost one batch unseen; now a call
that finds `MAX_CALLS` open is refused as `backpressure` by ragmon, and gRPC's bound is left for floods."""


READ_SLOTS = 2
"""gRPC messages received at once. gRPC holds a message whole (up to `receive_cap`) before the handler
sees it, out of the `BodyBudget`'s sight; 64 calls of 30 MiB would hold 1.9 GiB. A call waiting for a
slot holds only its stream's flow-control window, as gRPC's BDP probing, which grows the windows to
megabytes, is off: 32 such calls held 2 MiB. So reads hold at most 2 x `receive_cap` (64 MiB with the
defaults). On loopback a read takes milliseconds, so a Collector's 10 calls at once pass in turn."""

SLOT_SECONDS = 5.0
"""How long a call waits for a read slot before it is refused back-pressure: within an exporter's own
10 s timeout, so that it hears the RetryInfo rather than a deadline of its own."""

HOLD_SECONDS = 2.0
"""How long a call may hold a read slot with its message not yet arrived while other calls wait for one;
past it, it is refused back-pressure (UNAVAILABLE with RetryInfo, so its sender retries) and the slot goes
to the next call. Two senders that stalled halfway through a message (a CPU-throttled app, a pause) had
held both slots for `BODY_SECONDS`, every other call waiting `SLOT_SECONDS` and being refused again, and a
real SDK exporter lost a quarter of its batches to its own 10 s deadline. Checked at this interval, so a
waiting call gets a slot within twice it, inside `SLOT_SECONDS`. With no call waiting, a slow message
still has `BODY_SECONDS`."""


def receive_cap(max_body: int) -> int:
    """gRPC's own limit: messages between `max_body` and this reach `export` to be counted (see above)."""
    return min(2 * max_body, _GRPC_MAX_LENGTH)


class _TraceService:
    def __init__(self, sink: SpanSink, token: str | None, max_body: int, max_values: int,
                 bodies: BodyBudget) -> None:
        self._sink = sink
        self._bodies = bodies
        self._max_body = max_body
        self._max_values = max_values
        self._token = None if token is None else token.encode()
        self._refusals = RefusalLog()
        self._reads = asyncio.Semaphore(READ_SLOTS)
        self._waiting = 0
        """Calls waiting for a read slot: while there are any, a slot's holder gets `HOLD_SECONDS`."""
        self._calls = 0

    async def export(self, _requests: AsyncIterator[bytes],
                     context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:
        metadata = dict(context.invocation_metadata() or ())
        await self._check_token(context, metadata)
        if self._calls >= MAX_CALLS:
            await self._refuse(context, metadata, Refused(
                "backpressure", f"ragmon is busy: it has as many gRPC export calls open as it takes at once "
                                f"({MAX_CALLS}); retry later"))
        self._calls += 1
        try:
            return await self._export(context, metadata)
        finally:
            self._calls -= 1

    async def _export(self, context: grpc.aio.ServicerContext,
                      metadata: Mapping[str, str | bytes]) -> ExportTraceServiceResponse:
        message = await self._receive(context, metadata)
        with self._bodies.claim() as claim:
            # Claimed at the message's size once gRPC has it: claiming `max_body` before the read would let
            # only 3 calls be open at once, and a Collector sends 10 (its sending queue's consumers).
            batch = await self._decoded(message, claim)
        # Refused only now, with no buffer left alive in this frame: an abort awaited with the message or
        # its inflated body in scope kept them, through the exception's traceback, until gRPC had done with
        # the call, out of the budget's sight (8 calls of 30 MiB refused at once held 385 MiB).
        del message
        outcome = batch if isinstance(batch, Refused) else offered(batch, self._sink, "grpc")
        if isinstance(outcome, Refused):
            await self._refuse(context, metadata, outcome)
        assert isinstance(outcome, Taken)  # the abort raised otherwise
        if outcome.invalid is not None:
            count_refused(self._sink, self._refusals, outcome.invalid, grpc.StatusCode.OK.name,
                          _sender(context, metadata), in_part=True)
        return ExportTraceServiceResponse(partial_success=outcome.partial)

    async def _receive(self, context: grpc.aio.ServicerContext, metadata: Mapping[str, str | bytes]) -> bytes:
        """The request message, read in one of `READ_SLOTS` (a call that finds none within `SLOT_SECONDS`
        is refused back-pressure, UNAVAILABLE with RetryInfo, counted; one holding a slot past
        `HOLD_SECONDS` while others wait is refused the same way) and within `BODY_SECONDS`: past them the
        RPC is cut off (DEADLINE_EXCEEDED, which exporters retry; not counted, as nothing of it was
        received), so that a stalled sender does not keep its call, and gRPC's buffers for it, open. A
        message over `receive_cap` ends the call under the read: the handler is cancelled, or reads the end
        of the stream first; gRPC has answered already, and there is nothing to decode."""
        self._waiting += 1
        try:
            async with asyncio.timeout(SLOT_SECONDS):
                await self._reads.acquire()
        except TimeoutError:
            await self._refuse(context, metadata, Refused(
                "backpressure", f"ragmon is busy: it is receiving as many gRPC messages as it takes at once "
                                f"({READ_SLOTS}); retry later"))
        finally:
            self._waiting -= 1
        try:
            message = await self._read_in_slot(context)
        finally:
            self._reads.release()
        if message is _YIELDED:
            await self._refuse(context, metadata, Refused(
                "backpressure", "ragmon is busy: this call's message had not arrived within "
                                f"{HOLD_SECONDS:g} s while other calls waited to be received; retry later"))
        if message is _LATE:
            detail = f"the message took longer than {BODY_SECONDS:g} s to arrive"
            self._refusals.cut_off(grpc.StatusCode.DEADLINE_EXCEEDED.name, **_sender(context, metadata),
                                   detail=detail)
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, detail)
        if message is _MORE:
            await self._refuse(context, metadata, Refused(
                "decode_error", "more than one request message in one Export call: Export is unary, one "
                                "ExportTraceServiceRequest a call"))
        if not isinstance(message, bytes):
            # Not counted: a sender that dropped out, and gRPC refusing a message over its own cap, end the
            # read so too, and nothing of either was received.
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no request message")
        assert isinstance(message, bytes)  # the aborts raised otherwise
        return message

    async def _read_in_slot(self, context: grpc.aio.ServicerContext) -> object:
        """The message (`_one_message`), or `_YIELDED` (given up for a waiting call) or `_LATE` (past
        `BODY_SECONDS`): the slot is let go before the refusal is sent, so the call waiting gets it at
        once."""
        reading = asyncio.ensure_future(_one_message(context))
        deadline = asyncio.get_running_loop().time() + BODY_SECONDS
        try:
            while True:
                left = deadline - asyncio.get_running_loop().time()
                done, _ = await asyncio.wait((reading,), timeout=min(HOLD_SECONDS, max(left, 0.0)))
                if done:
                    return reading.result()
                if left <= HOLD_SECONDS:
                    return _LATE
                if self._waiting:
                    return _YIELDED
        finally:
            reading.cancel()

    async def _decoded(self, message: bytes, claim: BodyClaim) -> DecodedBatch | Refused:
        """The message decoded (inflated first when compressed, held in `claim` as it grows), or why it is
        refused: returned, not raised, so that no frame holding the bytes outlives the call (`export`)."""
        encoding = sniff(message)
        try:
            try:
                body = await self._inflate(message, encoding, claim)
            except zlib.error as inflating:
                if encoding != "deflate":
                    raise
                return await self._as_sent(message, claim, inflating)
            return await decode_off_loop(decode_protobuf, body, self._max_values)
        except REQUEST_ERRORS as exc:
            return refusal_for(exc, "message", encoding, self._max_body, self._bodies)

    async def _as_sent(self, message: bytes, claim: BodyClaim, inflating: zlib.error) -> DecodedBatch:
        """A message that sniffs as deflate but does not inflate, read as sent: a protobuf message may
        start with a zlib header (`sniff`), but not with a whole zlib stream, which a 32-bit checksum ends.
        One that is no protobuf either is a compressed message cut or corrupted, and the deflate error
        (`inflating`) is the one to tell. What the failed inflating took stays held in `claim`, a few bytes
        unless the sender built it so."""
        body = await self._inflate(message, "", claim)
        try:
            return await decode_off_loop(decode_protobuf, body, self._max_values)
        except DecodeError:
            raise inflating from None

    async def _inflate(self, message: bytes, encoding: str, claim: BodyClaim) -> bytes:
        """The message as the decoder takes it (TooLarge, NoRoom, zlib.error), inflated in steps of
        `_INFLATE_STEP` compressed bytes, letting other requests run between them."""
        if not encoding:
            if len(message) > self._max_body:
                raise TooLarge(f"message of {len(message)} bytes")
            if not claim.grow(len(message)):
                raise NoRoom
            return message
        inflater = Inflater(encoding)
        body = bytearray()
        for start in range(0, len(message), _INFLATE_STEP):
            piece = inflater.feed(message[start:start + _INFLATE_STEP], self._max_body - len(body))
            take(body, piece, self._max_body, claim, "message, once decompressed,")
            await asyncio.sleep(0)
        inflater.finish()
        return bytes(body)

    async def _check_token(self, context: grpc.aio.ServicerContext,
                           metadata: Mapping[str, str | bytes]) -> None:
        """UNAUTHENTICATED (counted, logged; the abort raises) when a token is set and not sent."""
        if self._token is not None and not bearer_ok(str(metadata.get("authorization", "")), self._token):
            await self._refuse(context, metadata, Refused(
                "unauthorized", "missing or wrong bearer token (metadata authorization: Bearer <token>)"))

    async def _refuse(self, context: grpc.aio.ServicerContext, metadata: Mapping[str, str | bytes],
                      refused: Refused) -> None:
        """Count, log and end the RPC: `context.abort` raises, so the caller does not go on."""
        code = _CODES[refused.reason]
        count_refused(self._sink, self._refusals, refused, code.name, _sender(context, metadata))
        await context.abort(code, refused.message, trailing_metadata=(
            _retry_later(code, refused.message) if code is grpc.StatusCode.UNAVAILABLE else ()))

    async def misdirected(self, method: str, context: grpc.aio.ServicerContext) -> None:
        """Any method but ours (registered after it, so only what it leaves): count, log, UNIMPLEMENTED
        with where traces go, as gRPC's own answer would be, but for the message."""
        metadata = dict(context.invocation_metadata() or ())
        await self._check_token(context, metadata)  # as over HTTP: advice and count for the token's holders
        signal = grpc_signal(method)
        message = advice(signal, method, f"/{_SERVICE}/Export")
        self._sink.misdirected("grpc", signal)
        self._refusals.misdirected(signal, grpc.StatusCode.UNIMPLEMENTED.name, **_sender(context, metadata),
                                   detail=message)
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, message)


_YIELDED, _LATE, _MORE = object(), object(), object()


async def _one_message(context: grpc.aio.ServicerContext) -> object:
    """The call's message and then the end of its stream, or `_MORE` when another message follows: Export
    is registered stream-unary so that a call is checked before gRPC reads its message, and a client
    streaming two messages on it was answered OK for the first alone, the second's spans counted nowhere.
    A unary client ends the stream with its message, so the second read returns at once; a stream left
    open after its message is taken as that message within `END_SECONDS`, not held to `BODY_SECONDS` with
    its read slot."""
    message = await context.read()
    if message is grpc.aio.EOF:
        return message
    try:
        async with asyncio.timeout(END_SECONDS):
            more = await context.read()
    except TimeoutError:
        return message
    return message if more is grpc.aio.EOF else _MORE


END_SECONDS = 1.0
"""How long the end of a call's stream is waited for after its message (`_one_message`)."""


def _retry_later(code: grpc.StatusCode, message: str) -> tuple[tuple[str, bytes], ...]:
    """RetryInfo of 1 s in both places clients read it (see the module docstring). The status in the
    details must be the call's own, code and message: grpc-go takes a mismatch for an INTERNAL error."""
    details = AnyMessage()
    details.Pack(_RETRY_1S)
    status = Status(code=code.value[0], message=message, details=[details])
    return ((RETRY_INFO_KEY, _RETRY_1S.SerializeToString()), (STATUS_DETAILS_KEY, status.SerializeToString()))


def _sender(context: grpc.aio.ServicerContext, metadata: Mapping[str, str | bytes]) -> Sender:
    user_agent = metadata.get("user-agent")
    return Sender(transport="grpc", peer=grpc_peer_host(context.peer()),
                  user_agent=None if user_agent is None else str(user_agent))


async def _health_check(request: StringValue, context: grpc.aio.ServicerContext) -> Int32Value:
    """SERVING for the server as a whole ("") and the trace service; NOT_FOUND for any other service, as
    the health checking protocol asks."""
    if request.value not in ("", _SERVICE):
        await context.abort(grpc.StatusCode.NOT_FOUND,
                            f"unknown service {request.value!r}: ragmon serves {_SERVICE} only")
    return _SERVING


class _Elsewhere(grpc.GenericRpcHandler):
    """Takes every method the handlers before it did not: one of gRPC's own services' is answered
    UNIMPLEMENTED, any other goes to `_TraceService.misdirected`.

    As a stream-stream handler that never reads, which serves a call of any shape: it answers at once,
    as gRPC's own UNIMPLEMENTED did. A unary one would first wait for the whole request message: a stream
    that has sent none yet would hang until its deadline, and a message over `receive_cap` would get
    RESOURCE_EXHAUSTED (which the Python exporter retries), both uncounted."""

    def __init__(self, service: _TraceService) -> None:
        self._service = service

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = str(handler_call_details.method)

        async def answer(_requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> None:
            if method.startswith(_GRPC_OWN):  # infrastructure asking (see the module docstring), no export
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"ragmon does not serve {method}; of "
                                    f"gRPC's own services it serves /{_HEALTH}/Check only")
            await self._service.misdirected(method, context)

        return grpc.stream_stream_rpc_method_handler(answer)


GRPC_LISTEN = Flag("--grpc-listen")


async def start_grpc_server(address: tuple[str, int], sink: SpanSink, *, max_body: int,
                            token: str | None, max_values: int = MAX_VALUES, bodies: BodyBudget | None = None,
                            flag: Flag = GRPC_LISTEN) -> tuple[grpc.aio.Server, int]:
    """Start serving; returns the server (stop it with `await server.stop(grace)`) and the bound port.
    `bodies` is the budget shared with the HTTP receiver (ragmon.otlp.limits); None gives this port one
    of its own. `flag`: what set the address, for an error to name (the variable the image sets)."""
    host, port = address
    target = shown_address(host, port)
    idle_ms = int(IDLE_SECONDS * 1000)
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", receive_cap(max_body)),
        # We inflate compressed messages ourselves, under the budget (ragmon.otlp.inflate).
        ("grpc.per_message_decompression", 0),
        # gRPC binds with SO_REUSEPORT unless told not to: a second sidecar on the port would start
        # quietly and take a share of the app's connections, where the HTTP and metrics ports refuse it.
        ("grpc.so_reuseport", 0),
        # As over HTTP: a connection with no call open, or one that never ends its HTTP/2 handshake, is
        # closed (gRPC's defaults: never, and 120 s). A client reconnects as it needs to.
        ("grpc.max_connection_idle_ms", idle_ms),
        ("grpc.server_handshake_timeout_ms", idle_ms),
        # A stream's window stays small until its call reads (READ_SLOTS).
        ("grpc.http2.bdp_probe", 0),
        # Past it gRPC closes a new connection as it arrives, unlogged (ragmon.otlp.limits).
        ("grpc.max_allowed_incoming_connections", GRPC_CONNECTIONS),
    ], maximum_concurrent_rpcs=GRPC_CALLS)
    service = _TraceService(sink, token, max_body, max_values,
                            BodyBudget(HELD_BODIES * max_body) if bodies is None else bodies)
    # Stream-unary, which serves a unary call alike, so that `export` runs before the message is read: the
    # token and the budget are checked first, and the read gets a deadline. No request_deserializer:
    # `export` gets the bytes.
    export = grpc.stream_unary_rpc_method_handler(
        service.export, response_serializer=ExportTraceServiceResponse.SerializeToString)
    check = grpc.unary_unary_rpc_method_handler(_health_check, request_deserializer=StringValue.FromString,
                                                response_serializer=Int32Value.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(_SERVICE, {"Export": export}),
                                     grpc.method_handlers_generic_handler(_HEALTH, {"Check": check}),
                                     _Elsewhere(service)))
    refused = refused_bind(host, port)
    if refused is not None:
        raise cannot_listen("OTLP/gRPC", host, port, flag, refused, otlp=True)
    try:
        bound = server.add_insecure_port(target)
    except RuntimeError:
        bound = 0
    if not bound:
        # gRPC says no more than "Failed to bind" (or returns 0): a port another process holds is the usual
        # cause (a second sidecar), and the app's exporter names the port, so it must move with it.
        raise RagmonError(f"cannot listen for OTLP/gRPC on {target} ({flag.named}): another process may "
                          f"hold that port (a second ragmon serve?): give {flag.setting} another port, and "
                          "send the app's traces there")
    await server.start()
    return server, bound
