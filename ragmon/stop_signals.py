"""SIGTERM, SIGINT and SIGHUP as a request to stop, for the commands that run until told to (serve, demo's
app), unless the process started with one ignored (`heeded`).

This module stays light on purpose: the lexical worker processes import `SHUTDOWN_SIGNALS` through
`ragmon.scoring`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Iterable, Iterator
from types import FrameType

SHUTDOWN_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
"""What a terminal's Ctrl-C, `timeout`, systemd and `kill -- -PGID` send to the whole process group, and
what a closed terminal or `docker kill -s HUP` (a "reload" habit) sends: ragmon has nothing to reload, and
SIGHUP's default, ending the process at once, had lost the traces it held without a count. The sidecar's
main process drains on each; its worker processes must not act on them (`ragmon.scoring.warm`)."""

log = logging.getLogger("ragmon.stop_signals")


class StoppedStarting(Exception):
    """A stop asked for while start-up waited on something outside ragmon (a capture pipe's reader): the
    wait ends at once, and the command exits 0, as for a stop once started. Held until the wait ran out,
    SIGTERM had ended in an exit 2 "start-up error" 10 s later."""


def heeded(signals: Iterable[signal.Signals] = SHUTDOWN_SIGNALS) -> frozenset[signal.Signals]:
    """Those of `signals` that are not ignored: a signal ignored when ragmon started stays ignored, the
    convention of POSIX shells (a signal ignored on entry cannot be trapped) and of Python's own SIGINT.
    `nohup` ignores SIGHUP so that a job outlives the user's logout; a shell script's background job
    (`ragmon serve &`) starts with SIGINT ignored, so that a Ctrl-C meant for the script's foreground job
    does not reach it. A handler put over either had the sidecar drain and exit on them.

    SIGTERM ignored at start stays ignored too, the one rule for every command and every signal: nothing
    ignores it by default, so whoever started ragmon asked for it (`trap '' TERM`, a supervisor meaning
    its children to outlive its own stop), and `ragmon replay` and `calibrate` already left it ignored.
    serve warns of it (`stop_on_signals`), since a pod's grace period then ends in SIGKILL.

    Every handler ragmon installs first (`ragmon.cli`'s, asyncio.run's for SIGINT) goes only over a
    signal not ignored, so an ignored one is still ignored when a later one asks here."""
    return frozenset(sig for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN)


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """Set `stop` on SIGTERM, SIGINT or SIGHUP inside the block, each that is `heeded`; ignore them from its
    end until the process exits. The ones left ignored are logged: the log is where a user looks when
    SIGHUP or Ctrl-C does not stop it, and a SIGTERM that cannot drain it is a warning.

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

    answered = heeded()
    for sig in answered:
        signal.signal(sig, request_stop)
    _log_ignored(SHUTDOWN_SIGNALS - answered)
    try:
        yield
    finally:
        for sig in SHUTDOWN_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        signal.set_wakeup_fd(previous_fd)
        loop.remove_reader(reader.fileno())
        reader.close()
        writer.close()


def _log_ignored(ignored: frozenset[signal.Signals]) -> None:
    if not ignored:
        return
    names = sorted(sig.name for sig in ignored)
    message = f"not stopping on {', '.join(names)}: ignored when ragmon started, so left ignored"
    if signal.SIGTERM in ignored:
        log.warning(f"{message}; SIGTERM will not drain it (a pod's grace period ends in SIGKILL, losing the "
                    "traces it holds): start it without SIGTERM ignored", extra={"ignored_signals": names})
    else:
        log.info(message, extra={"ignored_signals": names})


def _drain(reader: socket.socket) -> None:
    """The wakeup fd carries signal numbers, which the handlers already have: waking the loop is its job."""
    with contextlib.suppress(BlockingIOError, InterruptedError):
        while reader.recv(4096):
            pass
