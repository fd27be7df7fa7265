"""SIGTERM, SIGINT and SIGHUP as a request to stop, for the commands that run until told to (serve, demo's
app).

This module stays light on purpose: the lexical worker processes import `SHUTDOWN_SIGNALS` through
`ragmon.scoring`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Iterator
from types import FrameType

SHUTDOWN_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
"""What a terminal's Ctrl-C, `timeout`, systemd and `kill -- -PGID` send to the whole process group, and
what a closed terminal or `docker kill -s HUP` (a "reload" habit) sends: ragmon has nothing to reload, and
SIGHUP's default, ending the process at once, had lost the traces it held without a count. The sidecar's
main process drains on each; its worker processes must not act on them (`ragmon.scoring.warm`)."""


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """Set `stop` on SIGTERM, SIGINT or SIGHUP inside the block; ignore them from its end until the process
    exits.

    The signal often comes twice: `timeout` signals the process and then its group, a user presses Ctrl-C
    again. Inside the block a repeat sets `stop` again, which changes nothing. After it, a repeat must
    not kill the exiting process (143, or SIGINT re-raised by an uncaught KeyboardInterrupt).

    asyncio's `loop.add_signal_handler` cannot promise that. Removing its handler, which the loop also does
    when it closes, restores the default disposition first, and a signal in that window ends the process.
    So the handlers here are `signal.signal` ones, and the block ends by setting SIG_IGN straight over
    them; nothing later undoes it (the interpreter's shutdown leaves an ignored signal ignored). A signal
    still pending then runs the handler it came to, not the "ignored due to race condition" warning,
    since `signal.signal` runs pending handlers before it swaps.

    A Python handler runs in the main thread, between bytecodes; a signal that the kernel gives to
    another thread (gRPC's, the executor's) would leave the loop asleep in its selector. The wakeup fd,
    written by the C-level handler in whatever thread it runs, wakes it."""
    loop = asyncio.get_running_loop()
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    loop.add_reader(reader.fileno(), _drain, reader)
    previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)

    def request_stop(signum: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(stop.set)

    for sig in SHUTDOWN_SIGNALS:
        signal.signal(sig, request_stop)
    try:
        yield
    finally:
        for sig in SHUTDOWN_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        signal.set_wakeup_fd(previous_fd)
        loop.remove_reader(reader.fileno())
        reader.close()
        writer.close()


def _drain(reader: socket.socket) -> None:
    """The wakeup fd carries signal numbers, which the handlers already have: waking the loop is its job."""
    with contextlib.suppress(BlockingIOError, InterruptedError):
        while reader.recv(4096):
            pass
