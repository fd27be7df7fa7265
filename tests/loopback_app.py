"""An aiohttp application served on a free loopback port for the length of a test (importable from any
test folder)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web


@asynccontextmanager
async def running(app: web.Application, **options: Any) -> AsyncIterator[str]:
    """Yields the base URL, `http://127.0.0.1:PORT`; `options` go to the AppRunner."""
    runner = web.AppRunner(app, access_log=None, **options)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()
