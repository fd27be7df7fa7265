"""How far a long offline run has got (`ragmon replay`'s scoring and asking, `ragmon calibrate`'s judging and
sweep), on standard error: a sign of life for a terminal, and for a CI log, whose no-output timeout would
otherwise end a run that is working."""

from __future__ import annotations

import io
import math
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """How far scoring has got, for long runs only. On a terminal, a bar redrawn in place; anywhere else
    (a CI log), a plain line every LOG_INTERVAL seconds of wall time, so a long run never stays silent
    long enough to trip a CI no-output timeout, and a run that finishes sooner prints nothing.

    It is called after every example, so it also calls `checkpoint` (`terminated_on_signal`'s): a SIGTERM
    whose exception Python dropped in a finalizer then stops the run at the next example, not at its end."""

    MIN_EXAMPLES = 500
    MIN_SECONDS = 2.0
    INTERVAL = 0.1
    LOG_INTERVAL = 30.0

    def __init__(self, stream: TextIO | None, *, enabled: bool = True,
                 clock: Callable[[], float] = time.monotonic,
                 words: tuple[str, str, str] = ("scoring", "scored", "examples"),
                 checkpoint: Callable[[], None] | None = None) -> None:
        """`stream` is None when the process started with it closed (Python's sys.stderr then). `words`
        name the work: what is being done, what is done, and to what."""
        self.stream: TextIO = io.StringIO() if stream is None else stream  # nowhere to write: never written
        self.words = words
        self.enabled = enabled and stream is not None
        self.terminal = self.enabled and self.stream.isatty()
        self.clock = clock
        self.started = clock()
        self.last = -math.inf if self.terminal else self.started
        self.shown = False
        self.checkpoint = checkpoint

    def __call__(self, done: int, total: int) -> None:
        if self.checkpoint is not None:
            self.checkpoint()
        if not self.enabled:
            return
        now = self.clock()
        if not self.terminal:
            if now - self.last >= self.LOG_INTERVAL:
                self.last = now
                self._show(f"{self.words[1]} {done:,} of {total:,} {self.words[2]}\n")
            return
        elapsed = now - self.started
        if (total <= self.MIN_EXAMPLES and elapsed < self.MIN_SECONDS) or (
                done < total and now - self.last < self.INTERVAL):
            return
        self.last = now
        self.shown = True
        rate = done / elapsed if elapsed > 0 else 0.0
        percent = 100 * done / total if total else 100
        doing, _, unit = self.words
        # A build answering live may take seconds a question: "0 questions/s" would say it had stalled.
        self._show(f"\r{doing} {done}/{total} ({percent:.0f}%), {rate:,.{1 if rate < 10 else 0}f} {unit}/s ")

    def close(self) -> None:
        if self.shown:
            self.shown = False
            self._show("\n")

    def _show(self, line: str) -> None:
        """A stream that fails (a full disk under the CI log, a terminal since closed) ends the progress
        shown, not the run: its OSError would stop a run that can still decide its gates, with exit 2."""
        try:
            self.stream.write(line)
            self.stream.flush()
        except OSError:
            self.enabled = self.shown = False
