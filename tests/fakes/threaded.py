"""What the fake APIs share: an aiohttp app on 127.0.0.1, at a port the OS picks (so it never collides
with another test's server), served from its own event loop on a thread, so that an SDK's sync and
async clients can both call it from any test."""

from __future__ import annotations

import asyncio
import threading
from typing import Self

from aiohttp import web


class ThreadedServer:
    """`with Server() as api:` serves until the block ends; a subclass adds its routes."""

    def __init__(self, name: str) -> None:
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._runner: web.AppRunner | None = None
        self._stopping: asyncio.Event | None = None
        """Set when the block ends, before connections are closed: what a hanging reply waits on."""

    def add_routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _start(self) -> None:
        self._stopping = asyncio.Event()
        app = web.Application()
        self.add_routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def _stop(self) -> None:
        assert self._stopping is not None and self._runner is not None
        self._stopping.set()
        await self._runner.cleanup()
