"""The stop request of serve and demo's app, driven in this process (the subprocess view of the same
behaviour is in test_service_signals.py)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from ragmon.stop_signals import stop_on_signals


@pytest.fixture(autouse=True)
def own_handlers_restored() -> Iterator[None]:
    """stop_on_signals leaves both signals ignored for the rest of the process: not for pytest's."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


async def seconds_to_stop(send: threading.Thread, stop: asyncio.Event) -> float:
    """How long until `stop` is set after `send` starts, with nothing but a 5 s timer to wake the loop."""
    with stop_on_signals(stop):
        started = time.monotonic()
        send.start()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 5)
        send.join()
    return time.monotonic() - started


def test_a_signal_delivered_to_another_thread_still_wakes_the_loop() -> None:
    # The kernel may give a process-directed signal to any thread that does not block it: gRPC's, the
    # executor's. Here a thread signals itself once the main thread is asleep in its selector.
    def signal_this_thread() -> None:
        time.sleep(0.2)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    stop = asyncio.Event()
    send = threading.Thread(target=signal_this_thread)
    assert asyncio.run(seconds_to_stop(send, stop)) < 2  # 0.2 s; 5 s if only the timer woke the loop
    assert stop.is_set()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_after_the_block_both_signals_are_ignored_and_the_wakeup_fd_given_back(sig: signal.Signals) -> None:
    async def main() -> None:
        with stop_on_signals(asyncio.Event()):
            pass

    asyncio.run(main())
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    assert signal.set_wakeup_fd(-1) == -1
    signal.raise_signal(sig)  # would end pytest with 143, or raise KeyboardInterrupt here
