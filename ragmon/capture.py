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

A trace is captured once, across restarts too. After a crash or a container restart the app's OTLP
exporter resends a batch that was never acknowledged, though FILE may already hold its trace; FILE (or
FILE and FILE.1) would then hold one id twice, and `ragmon replay` refuses such a file. So the writer
starts by reading the ids FILE and FILE.1 hold, in a thread before the receivers open (both files full
at 16 MiB: 75 ms with lines of 9 KB, 0.5 s with the smallest lines; `benchmarks/capture_start.py`), and
remembers each id it writes for as long as its line is in FILE or FILE.1. Ids are forgotten when FILE.1
is replaced, or when the next write finds FILE taken away, so memory follows the disk bound (about 170
bytes an id: 0.6 MiB for those 9 KB lines, 15 MiB for the smallest). A trace offered again is not
written and is counted `duplicate`. Within one run this happens to a trace whose spans come again after
the assembler has forgotten deciding it (4 x --max-traces decisions later: a Collector retrying a batch
for minutes at a high trace rate), which is then decided and scored a second time.

Ids are read as `ragmon replay` reads them, and what the files hold never stops the sidecar from
starting. A line that is no JSON object with an id (a reviewer's edit gone wrong, or a FILE that is no
capture file at all) is kept, and a warning names the file, how many such lines and the first. A last
line that begins as ours do and does not parse is our own write cut short (the process was killed
mid-line): it is cut off, as after a failed write, and the cut is logged. Any other last line without a
newline is given one, so that the first line written starts a line of its own. Only regular files are
read (`--capture /dev/stderr` is a stream, not a file to search).

The event loop never waits for the disk: lines are serialised on the loop (microseconds) and appended
by one flusher task through `asyncio.to_thread`, one batch at a time, so a single thread at a time
touches the file. When the disk falls `MAX_PENDING` lines behind, new lines are dropped instead of held
without bound. Every selected example ends under one `ragmon_captured_total{pipeline, outcome}`:
`written`, `duplicate` (the trace is in FILE or FILE.1 already, or on its way there; not a loss),
`too_large` (a line longer than the bound), `backlog` or `error` (an I/O error; the file is cut back to
its last complete line, so it always loads). Every loss is also logged, so whoever looks for a trace id
in FILE and finds none can learn why: a backlog once per batch the flusher writes after it, with the
number dropped, rather than once per example while the disk is behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ragmon.datasets.decoding import json_line
from ragmon.datasets.fields import FieldError, required_id
from ragmon.errors import InputError
from ragmon.jsontext import replace_lone_surrogates
from ragmon.logs import LineLimit, more_like_it
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


_RECORD_START = b'{"id": '
"""How every line `encode` writes begins: `record` puts the id first."""


def encode(doc: dict[str, Any]) -> bytes:
    """One line; JSON escapes every newline inside strings, so a record never spans lines.

    A lone surrogate (a "\\ud800" escape inside a JSON-valued attribute) has no UTF-8 form: it becomes
    U+FFFD, the replacement the OTLP decoder also makes, so the line is still written and still loads."""
    line = json.dumps(doc, ensure_ascii=False) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return replace_lone_surrogates(line).encode("utf-8")


@dataclass(frozen=True, slots=True)
class Held:
    """What a capture file held when the writer started."""

    ids: frozenset[str] = frozenset()
    refused: int = 0
    """Lines without a record id (`ragmon replay` refuses them), a torn last line aside."""
    first_refused: int | None = None
    torn_line: int | None = None
    """The last line's number when it is a line of ours cut short: no newline, begins as ours do (or is
    cut short inside that beginning), does not parse."""
    complete: int = 0
    """Bytes up to the newline of the last whole line."""
    size: int = 0


def read_held(path: Path, max_line: int) -> Held:
    """The ids in a capture file, read as `ragmon replay` reads them; a file that does not exist, or is
    not a regular file, holds none. A line of ours is at most `max_line` bytes: a longer one is passed
    over in pieces, so a file that is not ours cannot fill memory."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return Held()
    ids: set[str] = set()
    refused, first_refused, torn_line, complete, offset = 0, None, None, 0, 0
    with handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return Held()
        for number, (raw, length, whole) in enumerate(_lines(handle, max_line), start=1):
            offset += length
            if whole:
                complete = offset
            if raw is not None and raw.isspace():
                continue  # replay skips blank lines
            record_id = _line_id(raw)
            if record_id is not None:
                ids.add(record_id)
                continue
            if not whole and raw is not None and (raw.startswith(_RECORD_START)
                                                  or _RECORD_START.startswith(raw)):
                torn_line = number
            else:
                refused += 1
                first_refused = first_refused or number
    return Held(frozenset(ids), refused, first_refused, torn_line, complete, offset)


def _lines(handle: IO[bytes], max_line: int) -> Iterator[tuple[bytes | None, int, bool]]:
    """Each line, its length in bytes and whether it ends in a newline; the line is None when it is over
    `max_line` bytes, read in pieces."""
    while raw := handle.readline(max_line + 1):
        length = len(raw)
        if length <= max_line:
            yield raw, length, raw.endswith(b"\n")
            continue
        while not raw.endswith(b"\n") and (piece := handle.readline(max_line + 1)):
            raw = piece
            length += len(piece)
        yield None, length, raw.endswith(b"\n")


def _line_id(raw: bytes | None) -> str | None:
    """The id `ragmon replay` reads from the line: None when the line is no JSON object with an id. The
    rest of the record is not checked (that would double the time start-up takes): a reviewer who breaks
    another field has made a line replay refuses, but its trace was captured all the same."""
    if raw is None:
        return None
    try:
        obj = json_line(raw)
        return required_id(obj, "id") if isinstance(obj, dict) else None
    except (ValueError, FieldError):
        return None


class RotatingFile:
    """FILE plus one older generation FILE.1. Not thread-safe: the writer calls it from one thread at
    a time."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.rotated = path.with_name(path.name + ".1")
        self.max_bytes = max_bytes
        self.generation = 0
        """Which FILE is being written: one more each time a new one begins (a rotation, FILE taken
        away), so a line's generation says whether it is still in FILE or FILE.1."""
        self.rotated_generation = -1
        """The generation now in FILE.1; -1 is whatever FILE.1 held at start."""
        self._handle: IO[bytes] | None = None
        self._size = 0

    def open(self) -> None:
        """Append to what an earlier run left; its size counts towards the bound. A new file is readable
        by its owner alone (0600): it holds production text, whatever the process's umask allows."""
        self._handle = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")
        self._size = self._handle.tell()

    def write(self, lines: Sequence[bytes]) -> tuple[list[int], OSError | None]:
        """Append `lines` in order, rotating before one that would pass the bound. Returns the generation
        of FILE each line went to, for the lines in the file (the first so many), and the I/O error that
        stopped the rest (the next call reopens the file)."""
        done: list[int] = []
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
                done.append(self.generation)
        except OSError as exc:
            self._abandon()
            return done, exc
        return done, None

    def resume(self, held: Held) -> None:
        """Open FILE as an earlier run left it (`held`, read just now): a torn last line of ours is cut
        off; any other last line without a newline gets one, so that ours start on a line of their own."""
        if held.torn_line is not None:
            os.truncate(self.path, held.complete)
        self.open()
        if held.torn_line is None and held.size > held.complete:
            assert self._handle is not None
            self._handle.write(b"\n")
            self._handle.flush()
            self._size += 1

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
            self.generation += 1
            self.open()

    def _rotate(self) -> None:
        assert self._handle is not None
        self._handle.close()
        self._handle = None
        try:
            replaced = os.stat(self.rotated).st_size
        except FileNotFoundError:
            replaced = None
        os.replace(self.path, self.rotated)
        self.rotated_generation = self.generation
        self.generation += 1
        log.info("capture file rotated", extra={"path": str(self.path), "bytes": self._size})
        if replaced:  # counted as written: the one word that they are gone is this
            log.warning("capture rotation replaced the previous rotated file, and the examples it held are "
                        "gone: collect it more often, or raise --capture-max-bytes",
                        extra={"path": str(self.rotated), "bytes": replaced})
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
        self._pending: list[tuple[str, str, bytes]] = []
        """(pipeline, trace id, line) waiting for the flusher."""
        self._queued: set[str] = set()
        """Trace ids pending or being written."""
        self._held: dict[int, set[str]] = {}
        """Trace ids in FILE and FILE.1, by the generation of FILE their line went to (RotatingFile)."""
        self._backlogged = 0
        """Examples dropped for the backlog since the last batch was written."""
        self._write_errors = LineLimit()
        """A write failure recurs with each batch (a full disk): one line a minute per error, as the
        budget file and the verdict cache warn once, the losses counted in `ragmon_captured_total`."""
        self._wake = asyncio.Event()
        self._closing = False
        self._flusher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Read the ids the files hold and open FILE now, so a path that cannot be written (or read)
        stops `ragmon serve` at start-up."""
        older, current = await asyncio.to_thread(self._resume)
        self._held = {self.file.rotated_generation: set(older.ids), self.file.generation: set(current.ids)}
        _log_held(self.file.rotated, older, mended=False)
        _log_held(self.file.path, current, mended=True)
        self._flusher = asyncio.create_task(self._flush_loop(), name="ragmon-capture")
        log.info("capturing examples", extra={"path": str(self.file.path), "below": self.below,
                                              "max_bytes": self.file.max_bytes,
                                              "ids_held": len(older.ids) + len(current.ids)})

    def _resume(self) -> tuple[Held, Held]:
        """In a thread: what FILE.1 and FILE hold, then FILE opened with its last line mended."""
        held = []
        for path in (self.file.rotated, self.file.path):
            try:
                held.append(read_held(path, self.file.max_bytes))
            except OSError as exc:
                raise InputError(f"cannot read the capture file: {exc.strerror or exc}",
                                 source=str(path)) from None
        older, current = held
        try:
            self.file.resume(current)
        except OSError as exc:
            raise InputError(f"cannot write the capture file: {_why_unwritable(self.file.path, exc)}",
                             source=str(self.file.path)) from None
        return older, current

    def offer(self, result: ExampleResult, trace_id: str, pipeline: str) -> None:
        """Queue the example if it is selected and its trace not captured yet. Never waits: a full queue
        drops the line (`backlog`)."""
        if self._flusher is None or not selected(result.metrics.get("groundedness"), self.below):
            return
        if trace_id in self._queued or any(trace_id in ids for ids in self._held.values()):
            self._count(pipeline, "duplicate")
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
            self._pending.append((pipeline, trace_id, line))
            self._queued.add(trace_id)
            self._wake.set()

    async def _flush_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                generations, error = await asyncio.to_thread(self.file.write, [line for *_, line in batch])
                self._settle(batch, generations)
                if error is not None and (suppressed := self._write_errors.admit(str(error))) is not None:
                    log.warning(more_like_it("cannot write the capture file; examples lost", suppressed),
                                extra={"path": str(self.file.path), "error": str(error),
                                       "count": len(batch) - len(generations)})
                if self._backlogged:
                    log.warning("capture file fell behind; examples lost",
                                extra={"path": str(self.file.path), "count": self._backlogged,
                                       "max_pending": self._max_pending})
                    self._backlogged = 0
            if self._closing:
                return

    def _settle(self, batch: Sequence[tuple[str, str, bytes]], generations: Sequence[int]) -> None:
        """Count a written batch, remember where its ids went, and forget the ids of lines no longer in
        FILE or FILE.1 (FILE.1 replaced, FILE taken away): they can be written again without a twin."""
        for index, (pipeline, trace_id, _) in enumerate(batch):
            self._queued.discard(trace_id)
            if index < len(generations):
                self._held.setdefault(generations[index], set()).add(trace_id)
            self._count(pipeline, "written" if index < len(generations) else "error")
        live = (self.file.generation, self.file.rotated_generation)
        for generation in [g for g in self._held if g not in live]:
            del self._held[generation]

    async def close(self) -> None:
        """Write what is queued, then close the file."""
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            self._closing = True
            self._wake.set()
            await flusher
        await asyncio.to_thread(self.file.close)


def _why_unwritable(path: Path, exc: OSError) -> str:
    """Why FILE cannot be opened, naming its directory when that is what is missing ("No such file or
    directory" reads as if FILE had to exist). The directory is not made, as `ragmon replay` makes a
    report's: a sidecar's capture directory is a volume mounted for production text, and one missing is
    a mount or a path set wrong. Made, the text would land in the container's own layer, outside the
    storage its data policy allows and lost at the next restart, or, on a read-only root filesystem,
    fail as "Read-only file system", which says less."""
    if isinstance(exc, FileNotFoundError) and not path.parent.is_dir():
        return (f"the directory {path.parent} does not exist (ragmon makes none: mount the volume meant "
                f"for the capture there, or make it)")
    return exc.strerror or str(exc)


def _log_held(path: Path, held: Held, *, mended: bool) -> None:
    """Say what start-up found amiss in a file; `mended` for FILE, whose torn last line was cut off."""
    refused, first = held.refused, held.first_refused
    if held.torn_line is not None and mended:
        log.warning("capture file ended in a line cut short (a run stopped mid-write); the line is cut off",
                    extra={"path": str(path), "line": held.torn_line, "bytes": held.size - held.complete})
    elif held.torn_line is not None:
        refused, first = refused + 1, first or held.torn_line
    if refused:
        log.warning("capture file holds lines that are no record with an id (`ragmon replay` refuses them); "
                    "they are kept as they are",
                    extra={"path": str(path), "count": refused, "first_line": first})
