"""Waiting for a running sidecar to reach a state, by polling its real /metrics page with a deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import aiohttp

from ragmon.scrape import Samples, parse


async def wait_metrics(port: int, ready: Callable[[Samples], bool], timeout: float = 20) -> Samples:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while True:
            async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                samples = parse(await response.text())
            if ready(samples):
                return samples
            assert time.monotonic() < deadline, f"metrics did not reach the expected state within {timeout}s"
            await asyncio.sleep(0.05)
