"""aiohttp TCP sites with a bound on the connections open at once (ragmon.otlp.limits).

aiohttp bounds none: each accepted connection gets a RequestHandler, ~5.5 KiB while idle, until its idle
timeout, so a sender opening connections faster than they time out grows the process without bound, up
to the open-file limit. Past `limit`, a connection is closed as it arrives (the client sees the
connection closed, as from a server restarting, and an exporter retries); the open ones go on, and one
warning a minute says how many were turned away.
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
        if len(server.connections) < self._limit:
            return server()
        if (suppressed := self._lines.admit("full")) is not None:
            log.warning(more_like_it(f"{self._what}: {self._limit} connections open, the most it keeps: a "
                                     "new one is closed as it arrives", suppressed),
                        extra={"port": self._bound_port, "limit": self._limit})
        return _Closed()
