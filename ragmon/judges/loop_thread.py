"""A private event loop in a thread of its own, for a judge's blocking methods to run its async ones on.

Why: an httpx call made by a blocking client can be bounded per read only (a reply trickled a few bytes at
a time, its headers too, never times out: encode/httpx#1450), while a task can be cancelled at any point.
Run here, `ClaudeJudge.judge` has the one deadline its async twin has, from any thread, inside a running
event loop (a notebook) or not; and threads sharing a judge share its connection pool and its calls in
flight, as the tasks of one event loop do.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopClosed(RuntimeError):
    """The loop was closed while a call ran on it: the call was cancelled, and its caller is told so."""


class LoopThread:
    """Started on first use and again in a process forked after it (the thread does not survive a fork);
    `close` runs a last coroutine on the loop (closing the clients bound to it), then ends the thread."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def run(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """The result of the coroutine `make` returns, run on the loop; the caller blocks until it ends.
        Interrupted (Ctrl-C in the caller's thread), the coroutine is cancelled, not left running."""
        future = asyncio.run_coroutine_threadsafe(make(), self._running_loop())
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise LoopClosed("closed while this call was in flight: the call was cancelled") from None
        except BaseException:
            future.cancel()
            raise

    def close(self, last: Callable[[], Awaitable[None]]) -> None:
        """Cancels the calls in flight (their callers get LoopClosed: left pending, they waited forever),
        runs `last` on the loop, if it was ever started in this process, then stops the loop and its
        thread. A later `run` starts them again. Called on the loop's own thread (a finalizer run by a
        collection there), it only stops the loop: the thread cannot wait for itself."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None or self._pid != os.getpid():
            return
        if threading.current_thread() is thread:
            loop.call_soon(loop.stop)
            return

        async def finish() -> None:
            current = asyncio.current_task()
            calls = [task for task in asyncio.all_tasks() if task is not current]
            for task in calls:
                task.cancel()
            await asyncio.gather(*calls, return_exceptions=True)
            await last()

        try:
            asyncio.run_coroutine_threadsafe(finish(), loop).result()
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread, self._pid = loop, thread, os.getpid()
            return self._loop
