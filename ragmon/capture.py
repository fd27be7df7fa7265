"""The worst production examples, kept as golden candidates (`ragmon serve --capture FILE`).

Examples the lexical judge found poorly grounded are appended to FILE as ragmon JSONL (dataset format 1),
so a reviewer can correct them and `ragmon replay` reads the file as it stands. Each line carries the
trace id as `id`, what the pipeline used (question, contexts in rank order, answer, citations, pipeline)
and `metadata` {trace_id, judge, judge_settings, groundedness, unsupported claim texts, captured_at}
with `needs_review: true`; replay carries those two fields along untouched. The judge's settings are
there because replaying with another `--lexical-threshold` gives other figures, and nothing else in the
file says which one the sidecar used.

Privacy: this writes production text (user questions, retrieved documents, answers) to the sidecar's
disk. It is off unless `--capture` names a file; put that file where your data policy allows such text.

Selection: groundedness below `--capture-below` (default 0.5). An example whose groundedness is
undefined (no claims, or documents unknown) is below nothing; `--capture-below all` takes every scored
example, undefined ones included, e.g. to seed a golden set.

Bounded disk: when a line would take FILE past `--capture-max-bytes`, FILE is renamed to FILE.1
(replacing the previous one) and a new FILE begins, so capture never holds more than twice the bound.
Taking FILE away for review (moving or deleting it) is safe: the next batch starts a new FILE.

The event loop never waits for the disk: lines are serialised on the loop (microseconds) and appended
by one flusher task through `asyncio.to_thread`, one batch at a time, so a single thread at a time
touches the file. When the disk falls `MAX_PENDING` lines behind, new lines are dropped instead of held
without bound. Every selected example ends under one `ragmon_captured_total{pipeline, outcome}`:
`written`, `too_large` (a line longer than the bound), `backlog` or `error` (an I/O error; the file is
cut back to its last complete line, so it always loads). Every loss is also logged, so whoever looks
for a trace id in FILE and finds none can learn why: a backlog once per batch the flusher writes after
it, with the number dropped, rather than once per example while the disk is behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ragmon.errors import InputError
from ragmon.jsontext import replace_lone_surrogates
from ragmon.model import ExampleResult
from ragmon.options import fraction

log = logging.getLogger("ragmon.capture")

ALL = math.inf
"""`--capture-below all`: every scored example, whatever its groundedness."""
MAX_PENDING = 1_000
"""Lines waiting for the disk; as many examples as the default score queue holds."""


def threshold(text: str) -> float:
    """`--capture-below`: a groundedness in [0, 1], or `all`."""
    return ALL if text.strip().lower() == "all" else fraction(text)


def selected(groundedness: float | None, below: float) -> bool:
    return below == ALL or (groundedness is not None and groundedness < below)


def record(result: ExampleResult, trace_id: str, captured_at: datetime,
           judge_settings: Mapping[str, Any]) -> dict[str, Any]:
    """One ragmon JSONL record; optional fields that are unknown (None) are left out, as the format
    reads an absent field as unknown."""
    example = result.example
    doc: dict[str, Any] = {"id": trace_id, "question": example.question}
    if example.contexts is not None:
        doc["contexts"] = [{"id": c.id, "text": c.text, "score": _json_number(c.score)}
                           for c in example.contexts]
    optional = {"answer": example.answer, "citations": example.citations,
                "relevant_ids": None if example.relevant_ids is None else sorted(example.relevant_ids),
                "ground_truth": example.ground_truth, "category": example.category,
                "pipeline": example.pipeline}
    doc.update((key, value) for key, value in optional.items() if value is not None)
    doc["metadata"] = {
        "trace_id": trace_id,
        "judge": result.judge,
        "judge_settings": dict(judge_settings),
        "groundedness": result.metrics.get("groundedness"),
        "unsupported": [v.claim.text for v in result.verdicts if not v.supported],
        "captured_at": captured_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    doc["needs_review"] = True
    return doc


def _json_number(value: float | None) -> float | None:
    """A retriever's NaN or infinite score (`json.loads` accepts them in a `ragmon.contexts` attribute)
    has no JSON spelling; it says nothing about rank either, so it is written as unknown."""
    return value if value is None or math.isfinite(value) else None


def encode(doc: dict[str, Any]) -> bytes:
    """One line; JSON escapes every newline inside strings, so a record never spans lines.

    A lone surrogate (a "\\ud800" escape inside a JSON-valued attribute) has no UTF-8 form: it becomes
    U+FFFD, the replacement the OTLP decoder also makes, so the line is still written and still loads."""
    line = json.dumps(doc, ensure_ascii=False) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return replace_lone_surrogates(line).encode("utf-8")


class RotatingFile:
    """FILE plus one older generation FILE.1. Not thread-safe: the writer calls it from one thread at
    a time."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.rotated = path.with_name(path.name + ".1")
        self.max_bytes = max_bytes
        self._handle: IO[bytes] | None = None
        self._size = 0

    def open(self) -> None:
        """Append to what an earlier run left; its size counts towards the bound. A new file is readable
        by its owner alone (0600): it holds production text, whatever the process's umask allows."""
        self._handle = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")
        self._size = self._handle.tell()

    def write(self, lines: Sequence[bytes]) -> tuple[int, OSError | None]:
        """Append `lines` in order, rotating before one that would pass the bound. Returns how many are
        in the file, and the I/O error that stopped the rest (the next call reopens the file)."""
        done = 0
        try:
            if self._handle is None:
                self.open()
            self._follow_path()
            for line in lines:
                if self._size and self._size + len(line) > self.max_bytes:
                    self._rotate()
                assert self._handle is not None
                self._handle.write(line)
                self._handle.flush()
                self._size += len(line)
                done += 1
        except OSError as exc:
            self._abandon()
            return done, exc
        return done, None

    def _follow_path(self) -> None:
        """Reopen when FILE is no longer the file held open: a reviewer moved or deleted it, and lines
        appended to the moved file, or to a deleted one where no one can read them, would be counted as
        written all the same (as logging's WatchedFileHandler, one stat per batch)."""
        assert self._handle is not None
        held = os.fstat(self._handle.fileno())
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            named = None
        if named is None or (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino):
            self._handle.close()
            self._handle = None
            self.open()

    def _rotate(self) -> None:
        assert self._handle is not None
        self._handle.close()
        self._handle = None
        os.replace(self.path, self.rotated)
        log.info("capture file rotated", extra={"path": str(self.path), "bytes": self._size})
        self.open()

    def _abandon(self) -> None:
        """After a failed write: drop the handle and cut off a partly written line."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()
        with contextlib.suppress(OSError):
            os.truncate(self.path, self._size)

    def close(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            handle.close()


def _utc_now() -> datetime:
    return datetime.now(UTC)


class CaptureWriter:
    """Selects, serialises and queues examples on the event loop; one flusher task writes them.

    `count(pipeline, outcome)` is told what became of every selected example."""

    def __init__(self, path: Path, *, below: float, max_bytes: int, count: Callable[[str, str], None],
                 judge_settings: Mapping[str, Any], clock: Callable[[], datetime] = _utc_now,
                 max_pending: int = MAX_PENDING) -> None:
        self.below = below
        self.judge_settings = judge_settings
        self.file = RotatingFile(path, max_bytes)
        self._count = count
        self._clock = clock
        self._max_pending = max_pending
        self._pending: list[tuple[str, bytes]] = []
        self._backlogged = 0
        """Examples dropped for the backlog since the last batch was written."""
        self._wake = asyncio.Event()
        self._closing = False
        self._flusher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open the file now, so a path that cannot be written stops `ragmon serve` at start-up."""
        try:
            await asyncio.to_thread(self.file.open)
        except OSError as exc:
            raise InputError(f"cannot write the capture file: {exc.strerror or exc}",
                             source=str(self.file.path)) from None
        self._flusher = asyncio.create_task(self._flush_loop(), name="ragmon-capture")
        log.info("capturing examples", extra={"path": str(self.file.path), "below": self.below,
                                              "max_bytes": self.file.max_bytes})

    def offer(self, result: ExampleResult, trace_id: str, pipeline: str) -> None:
        """Queue the example if it is selected. Never waits: a full queue drops the line (`backlog`)."""
        if self._flusher is None or not selected(result.metrics.get("groundedness"), self.below):
            return
        line = encode(record(result, trace_id, self._clock(), self.judge_settings))
        if len(line) > self.file.max_bytes:
            log.warning("example larger than --capture-max-bytes not captured",
                        extra={"trace_id": trace_id, "bytes": len(line)})
            self._count(pipeline, "too_large")
        elif len(self._pending) >= self._max_pending:
            self._backlogged += 1
            self._count(pipeline, "backlog")
        else:
            self._pending.append((pipeline, line))
            self._wake.set()

    async def _flush_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                done, error = await asyncio.to_thread(self.file.write, [line for _, line in batch])
                for index, (pipeline, _) in enumerate(batch):
                    self._count(pipeline, "written" if index < done else "error")
                if error is not None:
                    log.warning("cannot write the capture file; examples lost",
                                extra={"path": str(self.file.path), "error": str(error),
                                       "count": len(batch) - done})
                if self._backlogged:
                    log.warning("capture file fell behind; examples lost",
                                extra={"path": str(self.file.path), "count": self._backlogged,
                                       "max_pending": self._max_pending})
                    self._backlogged = 0
            if self._closing:
                return

    async def close(self) -> None:
        """Write what is queued, then close the file."""
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            self._closing = True
            self._wake.set()
            await flusher
        await asyncio.to_thread(self.file.close)

