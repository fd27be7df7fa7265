"""An asyncio event loop on virtual time, for running the whole sidecar through minutes of its timers in
milliseconds: when nothing is ready to run, its clock jumps to the next timer instead of sleeping.

Only for code that waits on the loop's own timers (sleep, wait_for) and on nothing outside the loop: a
thread or a socket would see time race past it. Such code must read time from `loop.time()`."""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, TypeVar, TypeVarTuple, Unpack

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

RESOLUTION = time.get_clock_info("monotonic").resolution
"""asyncio runs a timer up to this early (BaseEventLoop's `_clock_resolution`)."""


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, clock: list[float]) -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer at all: only the outside world can wake the loop
            return super().select(None)
        events = super().select(0)
        if not events:
            self._clock[0] += timeout
        return events


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._virtual = [0.0]
        super().__init__(_JumpingSelector(self._virtual))

    def time(self) -> float:
        return self._virtual[0]

    def call_at(self, when: float, callback: Callable[[Unpack[Ts]], object], *args: *Ts,
                context: Context | None = None) -> asyncio.TimerHandle:
        """A timer due within the resolution runs at once, early, and this clock moves only when nothing is
        ready: a loop waiting for a deadline a rounding error away (deadline - now = 1e-15) would wait
        forever. Such a timer is put just past the resolution, so the clock reaches its deadline."""
        return super().call_at(max(when, self.time() + 2 * RESOLUTION), callback, *args, context=context)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on virtual time."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
