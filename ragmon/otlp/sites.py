"""aiohttp TCP sites with a bound on the connections open at once (ragmon.otlp.limits).

aiohttp bounds none: each accepted connection gets a RequestHandler, ~5.5 KiB while idle, until its idle
timeout, so a sender opening connections faster than they time out grows the process without bound, up
to the open-file limit. At `limit`, a new connection takes the place of the oldest open one that is in no
request (an exporter's between its batches, or one that never sent a request): connections that send
nothing had filled the bound for their 60 s each, and, renewed once a minute, ~256 of them kept the metrics
port's probes and scrapes out, a token protecting nothing. Only when every open one is in a request is the
new one closed as it arrives (the client sees the connection closed, as from a server restarting, and an
exporter retries). One warning a minute says which happened.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web

from ragmon.logs import LineLimit, more_like_it

log = logging.getLogger(__name__)


class _Closed(asyncio.Protocol):
    """A connection past the bound: closed at once, with a reset, so its socket is not left lingering."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.abort()


class CappedSite(web.TCPSite):
    """`web.TCPSite` whose runner's connections number at most `limit`; `what` names the port in the log."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, *, limit: int, what: str) -> None:
        super().__init__(runner, host, port)
        self._limit = limit
        self._what = what
        self._lines = LineLimit()

    async def start(self) -> None:
        # TCPSite.start, with the runner's protocol factory behind the bound (no TLS: ragmon serves none).
        await web.BaseSite.start(self)
        self._server = await asyncio.get_running_loop().create_server(
            self._protocol, self._host, self._port, backlog=self._backlog)
        self._bound_port = self._server.sockets[0].getsockname()[1]

    def _protocol(self) -> asyncio.BaseProtocol:
        server = self._runner.server
        assert server is not None
        open_now = server.connections
        if len(open_now) < self._limit:
            return server()
        # In accept order; a handler aiohttp does not say is idle counts as in a request, and one closed for
        # an earlier arrival (gone from `connections` once its loss is handled) is passed over, or a burst
        # of arrivals in one turn of the loop would all take the one place.
        idle = next((handler for handler in open_now if not getattr(handler, "_request_in_progress", True)
                     and not getattr(handler, "_force_close", True)), None)
        if idle is not None:
            idle.force_close()
            self._warn("the oldest one in no request is closed for a new one")
            return server()
        self._warn("every one is in a request: a new one is closed as it arrives")
        return _Closed()

    def _warn(self, what: str) -> None:
        if (suppressed := self._lines.admit(what)) is not None:
            log.warning(more_like_it(f"{self._what}: {self._limit} connections open, the most it keeps: "
                                     f"{what}", suppressed),
                        extra={"port": self._bound_port, "limit": self._limit})
