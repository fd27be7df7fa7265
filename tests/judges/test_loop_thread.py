"""The event loop and thread `ClaudeJudge.judge` runs its calls on: a caller blocks as on any blocking
call, gets the coroutine's result or its exception, and a Ctrl-C while it waits stops the call too."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Iterator

import pytest

from ragmon.judges.loop_thread import LoopClosed, LoopThread


async def nothing() -> None:
    pass


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    runner = LoopThread("test-loop")
    yield runner
    runner.close(nothing)


def test_a_coroutine_runs_on_the_loops_own_thread_and_gives_back_its_result(loop_thread: LoopThread) -> None:
    async def where() -> str:
        return threading.current_thread().name

    assert loop_thread.run(where) == "test-loop"


def test_the_coroutines_exception_reaches_the_caller_as_it_was(loop_thread: LoopThread) -> None:
    async def fail() -> None:
        raise KeyError("d1")

    with pytest.raises(KeyError, match="d1"):
        loop_thread.run(fail)


def test_close_runs_the_last_coroutine_on_the_loop_then_ends_the_thread_and_a_later_run_starts_anew(
        loop_thread: LoopThread) -> None:
    ran_on: list[str] = []

    async def last() -> None:
        ran_on.append(threading.current_thread().name)

    async def thread() -> threading.Thread:
        return threading.current_thread()

    first = loop_thread.run(thread)
    loop_thread.close(last)
    assert ran_on == ["test-loop"] and not first.is_alive()
    second = loop_thread.run(thread)
    assert second is not first and second.is_alive()


def test_nothing_is_started_by_closing_a_loop_never_used() -> None:
    runs: list[None] = []

    async def last() -> None:
        runs.append(None)

    LoopThread("unused").close(last)
    assert runs == []


def test_an_interrupt_while_waiting_cancels_the_coroutine(loop_thread: LoopThread) -> None:
    cancelled = threading.Event()

    async def call() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            loop_thread.run(call)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert cancelled.wait(5)


def test_a_call_in_flight_when_the_loop_closes_is_cancelled_and_its_caller_told(
        loop_thread: LoopThread) -> None:
    # Left pending by the loop's stop, the caller's thread waited forever.
    started = threading.Event()
    outcome: list[BaseException] = []

    async def call() -> None:
        started.set()
        await asyncio.sleep(30)

    def caller() -> None:
        try:
            loop_thread.run(call)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=caller)
    thread.start()
    assert started.wait(5)
    loop_thread.close(nothing)
    thread.join(5)
    assert not thread.is_alive() and len(outcome) == 1 and isinstance(outcome[0], LoopClosed)
