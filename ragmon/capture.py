"""The worst production examples, kept as golden candidates (`ragmon serve --capture FILE`).

Examples the lexical judge found poorly grounded are appended to FILE as ragmon JSONL (dataset format 1),
so a reviewer can correct them and `ragmon replay` reads the file as it stands. Each line carries the
trace id as `id`, what the pipeline used (question, contexts in rank order, answer, citations, pipeline)
and `metadata` {trace_id, pipeline_label, k, judge, judge_settings, scoring_rules, groundedness,
unsupported claim texts, captured_at} with `needs_review: true`; replay carries those two fields along
untouched. The sidecar's `--k` and its judge's settings are there because replaying with another `--k` or
`--lexical-threshold` gives other figures, and nothing else in the file says which ones the sidecar used:
replay reads them back (`recorded_settings`) and warns when its own differ. The pipeline label is the
one the example's figures were exported under, which is not its pipeline when `--pipelines` leaves the
name out or `--max-pipelines` was reached (`other`), or the name is too long for a label: the line says
which series on the dashboard it counted in.

Privacy: this writes production text (user questions, retrieved documents, answers) to the sidecar's
disk. It is off unless `--capture` names a file; put that file where your data policy allows such text.

Selection: groundedness below `--capture-below` (default 0.5). An example whose groundedness is
undefined (no claims, or documents unknown) is below nothing; `--capture-below all` takes every scored
example, undefined ones included, e.g. to seed a golden set.

Bounded disk: when a line would take FILE past `--capture-max-bytes`, FILE is renamed to FILE.1
(replacing the previous one) and a new FILE begins, so capture never holds more than twice the bound.
The examples a FILE.1 still held when it was replaced were counted `written` and are gone unread: they
are counted again in `ragmon_capture_lost_total`, from the ids the writer remembers for FILE.1. FILE.1 is
read only when it changed since its lines went there (a reviewer cut some out, or put a file of their own
there), and then only the remembered ids it still holds are lost. A FILE.1 collected first (moved,
deleted or emptied) lost nothing: its reader took the lines.
Taking FILE away for review (moving or deleting it, or copying it and cutting it to nothing in place, as
logrotate's `copytruncate` does) is safe: the next batch starts a new FILE. An editor saving FILE
while the sidecar runs keeps what it saved, and the next line starts a line of its own (`_end_last_line`);
lines written after the editor read FILE are lost with its save, so review a moved copy. A stream (`--capture
/dev/stderr`, a named pipe) is written as it is, never read, locked, cut or rotated. Any path to a
descriptor (`/dev/stderr`, `/dev/fd/N`, anything under /proc, or a link to one) is a stream, even when
the descriptor holds a regular file (`2>>serve.log`): that file is the logger's too. One of this process's
own descriptors holding a regular file (`2>serve.log` too) or a socket (systemd's `StandardError=journal`)
is written through a copy of the descriptor (`_own_sink`).

A stream never holds the sidecar up. Its reader is another process that may be late, stuck or gone, and
a blocking open or write waited for it for ever: at start for a named pipe no one had opened yet, at the
stop for a reader that had stopped reading, where only SIGKILL ended the sidecar. A timeout around such a
call would not do: the thread blocked in the kernel keeps the process from exiting all the same. So FILE
is opened and written without blocking (O_NONBLOCK). A named pipe without a reader at start is waited
for, saying so, for `READER_WAIT_SECONDS` (the reader in a pod, a log shipper, may start a moment after
the sidecar), then `ragmon serve` exits 2 naming it. While running, a reader that takes nothing for
`STALL_SECONDS` (judged by what the pipe still holds, not by whether it has room: a slow reader frees
a page at a time) has the lines of the batch counted `error` and logged, as one that went away has
(EPIPE: Python ignores SIGPIPE), and the next batch tries again, so a reader that comes back gets lines
again; the stop waits no longer than that for it either. A line cut short in a pipe is ended with a
newline before the next, or at the stop, so the reader sees one broken line, not two run together, also
when it outlives the sidecar.

A trace is captured once, across restarts too. After a crash or a container restart the app's OTLP
exporter resends a batch that was never acknowledged, though FILE may already hold its trace; FILE (or
FILE and FILE.1) would then hold one id twice, and `ragmon replay` refuses such a file. So the writer
starts by reading the ids FILE and FILE.1 hold, in a thread before the receivers open (both files full
at 16 MiB: 75 ms with lines of 9 KB, 0.5 s with the smallest lines; `benchmarks/capture_start.py`), and
remembers each id it writes for as long as its line is in FILE or FILE.1. Ids are forgotten when FILE.1
is replaced, or when the next write finds FILE taken away; a FILE found saved anew or cut short in place
(an editor, `sed -i`) is read again for the ids it still holds. So memory follows the disk bound (about 170
bytes an id: 0.6 MiB for those 9 KB lines, 15 MiB for the smallest). A trace offered again is not
written and is counted `duplicate`. Within one run this happens to a trace whose spans come again after
the assembler has forgotten deciding it (4 x --max-traces decisions later: a Collector retrying a batch
for minutes at a high trace rate), which is then decided and scored a second time.

One process per FILE: two sidecars writing one FILE (a shared volume, an exporter's retry reaching the
other replica) would each write a trace sent to both, so the writer holds a lock (FILE.lock beside it,
`_lock`) from start to close, and a second `ragmon serve` on the same FILE exits 2 naming the first's
pid and host. The kernel frees the lock when the process ends, however it ends.

Ids are read as `ragmon replay` reads them, from lines of any length it reads (whatever
`--capture-max-bytes` is now: a restart may have lowered it), and what the files hold never stops the
sidecar from starting. A line that is no JSON object with an id (a reviewer's edit gone wrong, or a
FILE that is no capture file at all) is kept, and a warning names the file, how many such lines and the
first. A last line that begins as ours do and does not parse is our own write cut short (the process was
killed mid-line): it is cut off, as after a failed write, and the cut is logged. Any other last line without a
newline is given one, so that the first line written starts a line of its own. Only regular files are
read (`--capture /dev/stderr` is a stream, not a file to search).

The event loop never waits for the disk: lines are serialised on the loop (microseconds) and appended
by one flusher task through `asyncio.to_thread`, one batch at a time, so a single thread at a time
touches the file. When the disk falls `MAX_PENDING` lines behind, new lines are dropped instead of held
without bound. Every selected example ends under one `ragmon_captured_total{pipeline, outcome}`:
`written`, `duplicate` (the trace is in FILE or FILE.1 already, or on its way there; not a loss),
`too_large` (a line longer than the bound, or than the longest `ragmon replay` reads, MAX_LINE_BYTES: a
document of control characters is six times its size in JSON, each written `\\u0001`, and one line
replay refuses stops it reading the whole file), `backlog` or `error` (an I/O error; the file is cut back
to its last complete line, so it always loads). Every loss is also logged, so whoever looks for a trace
id in FILE and finds none can learn why: a backlog once per batch the flusher writes after it, with the
number dropped, rather than once per example while the disk is behind; a line too large or a write error
once a minute, with the number since, and the write errors since the last such line once more at the
close, as no scrape counts them once the sidecar has stopped.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import errno
import fcntl
import json
import logging
import math
import os
import re
import select
import socket
import stat
import struct
import termios
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, NamedTuple, Protocol

from ragmon.datasets import reader
from ragmon.datasets.decoding import json_line
from ragmon.datasets.fields import FieldError, required_id
from ragmon.errors import InputError, printable
from ragmon.jsontext import replace_lone_surrogates
from ragmon.logs import LineLimit, more_like_it
from ragmon.model import Example, ExampleResult
from ragmon.options import Flag, fraction
from ragmon.rules import SCORING_RULES
from ragmon.stop_signals import StoppedStarting

log = logging.getLogger("ragmon.capture")

ALL = math.inf
"""`--capture-below all`: every scored example, whatever its groundedness."""
MAX_PENDING = 1_000
"""Lines waiting for the disk; as many examples as the default score queue holds."""
STALL_SECONDS = 2.0
"""How long a stream's reader may take nothing before the lines waiting for it are given up: the pending
queue holds the examples that come meanwhile, and the stop waits no longer for it."""
READER_WAIT_SECONDS = 10.0
"""How long start-up waits for a process to open a named pipe FILE for reading: ten times the second or
so a log shipper started beside the sidecar takes. A stop signal meanwhile takes effect when it ends,
well inside a pod's 30 s grace period."""
_READER_POLL_SECONDS = 0.1
"""How often start-up tries the named pipe again: a reader's open is not announced to a writer."""
_PROGRESS_POLL_SECONDS = 0.1
"""How often a write waiting for room looks whether the reader took anything. A pipe is said to have
room only when a whole page of it is free, so a reader taking less than a page in `STALL_SECONDS` (a shell
`while read` loop: about 1 KiB/s) reads all the time and is never announced: its progress is looked for."""


def threshold(text: str) -> float:
    """`--capture-below`: a groundedness in [0, 1], or `all`."""
    return ALL if text.strip().lower() == "all" else fraction(text)


def shown(below: float) -> str | float:
    """`--capture-below` as it is given: `all` rather than `inf`, which a JSON log line writes `Infinity`,
    no JSON a log pipeline (jq, Loki) reads."""
    return "all" if below == ALL else below


def selected(groundedness: float | None, below: float) -> bool:
    return below == ALL or (groundedness is not None and groundedness < below)


def record(result: ExampleResult, trace_id: str, captured_at: datetime, judge_settings: Mapping[str, Any],
           pipeline_label: str | None = None, k: int | None = None) -> dict[str, Any]:
    """One ragmon JSONL record; optional fields that are unknown (None) are left out, as the format
    reads an absent field as unknown. Citations and relevant ids that are empty or spaces, which replay
    refuses, never reach here: extraction leaves them out, saying so (`ragmon.semconv.ragmon.blank_ids`).
    `pipeline_label`: the label the sidecar exported the example's figures under; left out when the
    caller exported none. `k`: the cut-off its retrieval figures were computed at, left out when the
    caller computed none."""
    example = result.example
    doc: dict[str, Any] = {"id": trace_id, "question": example.question}
    if example.contexts is not None:
        doc["contexts"] = [{"id": c.id, "text": c.text, "score": _json_number(c.score)}
                           for c in example.contexts]
    relevant = example.relevant_ids
    optional = {"answer": example.answer, "citations": example.citations,
                "relevant_ids": None if relevant is None else sorted(relevant),
                "ground_truth": example.ground_truth, "category": example.category,
                "pipeline": example.pipeline}
    doc.update((key, value) for key, value in optional.items() if value is not None)
    labelled = {} if pipeline_label is None else {"pipeline_label": pipeline_label}
    cut_off = {} if k is None else {"k": k}
    doc["metadata"] = {
        "trace_id": trace_id,
        **labelled,
        **cut_off,
        "judge": result.judge,
        "judge_settings": dict(judge_settings),
        "scoring_rules": SCORING_RULES,
        "groundedness": result.metrics.get("groundedness"),
        "unsupported": [v.claim.text for v in result.verdicts if not v.supported],
        "captured_at": captured_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    doc["needs_review"] = True
    return doc


K = "--k"
THRESHOLD = "--lexical-threshold"


def recorded_settings(example: Example) -> dict[str, float]:
    """The sidecar's settings a captured line records (`record`), by the flag that sets them: `--k`, and
    `--lexical-threshold` when the lexical judge scored it. Nothing of a record no capture wrote (no
    `metadata.judge_settings`: a hand-written golden, or a trace file's own `metadata`), nor a value no
    such flag takes (a reviewer's edit): neither says how a sidecar scored."""
    metadata = example.extra.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(settings := metadata.get("judge_settings"), dict):
        return {}
    found: dict[str, float] = {}
    k, threshold = metadata.get("k"), settings.get("threshold")
    if isinstance(k, int) and not isinstance(k, bool) and k >= 1:  # JSON's `true` is an int to Python
        found[K] = k
    lexical = metadata.get("judge") == "lexical" and not isinstance(threshold, bool)
    if lexical and isinstance(threshold, int | float) and 0 < threshold <= 1:
        found[THRESHOLD] = threshold
    return found


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
    stamp: Stamp | None = None
    """The file as it was read; None: no regular file."""


class Stamp(NamedTuple):
    """A file as it was at some moment. Any write changes its modification time, and an editor's save (or
    `sed -i`) its inode, so a file stamped alike since has kept its lines; renaming it changes neither."""

    device: int
    inode: int
    size: int
    modified_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> Stamp:
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


def _ids_now(path: Path) -> frozenset[str] | None:
    """The ids a capture file holds now (`read_held`); None when it cannot be read."""
    try:
        return read_held(path).ids
    except OSError:
        return None


def read_held(path: Path) -> Held:
    """The ids in a capture file, read as `ragmon replay` reads them; a file that does not exist, or is
    not a regular file, holds none. Lines of any length replay reads are read, whatever
    `--capture-max-bytes` is now (a restart may have lowered it), in pieces of `_HEAD` bytes: a long line
    of ours is never held whole, and no line is held longer than replay would hold it (`_long_line_id`),
    so a file that is not ours (no newline, `/dev/zero` copied) cannot fill memory."""
    try:
        if _is_fifo(path) or _names_a_descriptor(path):
            return Held()  # opened to read, a named pipe waits for its writer: the sidecar, which hung
        handle = path.open("rb")
    except FileNotFoundError:
        return Held()
    ids: set[str] = set()
    refused, first_refused, torn_line, complete, offset = 0, None, None, 0, 0
    with handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            return Held()
        for number, line in enumerate(_lines(handle), start=1):
            offset += line.length
            if line.whole:
                complete = offset
            if line.blank:
                continue  # replay skips blank lines
            if line.id is not None:
                ids.add(line.id)
                continue
            head = line.head
            if not line.whole and (head.startswith(_RECORD_START) or _RECORD_START.startswith(head)):
                torn_line = number
            else:
                refused += 1
                first_refused = first_refused or number
    return Held(frozenset(ids), refused, first_refused, torn_line, complete, offset, Stamp.of(status))


_HEAD = 1 << 20
"""Bytes of a line read at once. A line no longer is parsed whole, as replay parses it; of a longer one
the id is read from its beginning (`_long_line_id`)."""
_PARSED_WHOLE = 32 << 20
"""Bytes of a line, at most, parsed whole for its id when it does not begin with it: parsed, a line of
replay's 256 MiB takes several times that in memory, at the start of a sidecar sized for its traffic
(807 MiB in deploy/kubernetes), so a reviewer's sorted keys on a huge line would crash it at every start.
Its id is then not held (a trace of it sent again is captured again), and the start-up warning counts it
among the lines without one, though replay may read it."""
_ID_FIRST = re.compile(rb'\{\s*"id"\s*:\s*("(?:[^"\\]|\\.)*")\s*,')
"""A line that begins with its id, as ours do (`record`), whatever the spacing: the id's JSON string."""
_JSON_SPACE = b" \t\r\n"


class _Line(NamedTuple):
    head: bytes
    """The line's first `_HEAD` bytes: the whole line when it is no longer."""
    length: int
    whole: bool
    """Whether it ends in a newline."""
    blank: bool
    """Nothing but JSON space, which replay skips."""
    id: str | None
    """The id replay reads from it; None: replay reads none."""


def _lines(handle: IO[bytes]) -> Iterator[_Line]:
    while head := handle.readline(_HEAD + 1):
        if len(head) <= _HEAD or head.endswith(b"\n"):
            whole = head.endswith(b"\n")
            read = len(head) - (1 if whole else 0) <= reader.MAX_LINE_BYTES
            yield _Line(head, len(head), whole, head.isspace(), _line_id(head) if read else None)
            continue
        start, length, last, piece = handle.tell() - len(head), len(head), head.rstrip(_JSON_SPACE)[-1:], head
        while not piece.endswith(b"\n") and (piece := handle.readline(_HEAD + 1)):
            length += len(piece)
            last = piece.rstrip(_JSON_SPACE)[-1:] or last
        whole = piece.endswith(b"\n")
        read = length - (1 if whole else 0) <= reader.MAX_LINE_BYTES   # replay refuses a longer line
        record_id = _long_line_id(handle, head, start, length, whole=whole) if read and last == b"}" else None
        yield _Line(head, length, whole, read and not last, record_id)


def _long_line_id(handle: IO[bytes], head: bytes, start: int, length: int, *, whole: bool) -> str | None:
    """The id replay reads from a line longer than `_HEAD` (and no longer than replay reads) that ends in
    "}" as a JSON object does, `head` its beginning; `handle` is at the line's end, and is left there.

    A whole line that begins with its id (every line `encode` writes) is taken at its beginning's word,
    the rest of it not parsed: a reviewer's edit that broke it inside is not seen, as in a short line's
    other fields (`_line_id`). Any other line that may be an object, up to `_PARSED_WHOLE` bytes, is read
    whole and parsed as replay would: "id" not first (a reviewer's tool wrote the keys sorted), or a last
    line without its newline, which may be ours cut short just after a "}"."""
    if whole and (found := _ID_FIRST.match(head)) is not None and (
            record_id := _line_id(b'{"id": ' + found.group(1) + b"}")) is not None:
        return record_id
    if length > _PARSED_WHOLE or not head.removeprefix(codecs.BOM_UTF8).lstrip(_JSON_SPACE).startswith(b"{"):
        return None
    handle.seek(start)
    return _line_id(handle.read(length))


def _line_id(raw: bytes) -> str | None:
    """The id `ragmon replay` reads from the line: None when the line is no JSON object with an id. The
    rest of the record is not checked (that would double the time start-up takes): a reviewer who breaks
    another field has made a line replay refuses, but its trace was captured all the same."""
    try:
        obj = json_line(raw)
        return required_id(obj, "id") if isinstance(obj, dict) else None
    except (ValueError, FieldError):
        return None


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


_MAX_LINKS = 40
"""Links followed at most, as the kernel follows."""
_OWN_DESCRIPTOR = re.compile(r"/proc/(\d+)(?:/task/\d+)?/fd/(\d+)")


def _link_steps(path: Path) -> Iterator[Path]:
    """`path`, then each path its links lead to, one link at a time, directories resolved.
    `os.path.realpath` would go on through `/proc/self/fd/2` to whatever the descriptor holds (a log
    file, `pipe:[7]`), and say nothing of having passed it."""
    current = Path(os.path.abspath(path))
    for _ in range(_MAX_LINKS):
        current = Path(os.path.realpath(current.parent), current.name)
        yield current
        try:
            current = current.parent / os.readlink(current)
        except OSError:  # no link
            return


def _names_a_descriptor(path: Path) -> bool:
    """Whether FILE is, or links to, a file under /proc: `/dev/stderr`, `/dev/stdout` and `/dev/fd/N` are
    links to `/proc/self/fd/N`. Such a path is a stream whatever the descriptor holds: with stderr appended
    to a log file (`2>>serve.log`, systemd's `StandardError=append:`), fstat says regular, and that file
    is the logger's too: rotated, the link (as root, `/dev/stderr` itself) was renamed; read, its log lines
    were counted as broken capture lines; cut back after a failed write, the logger's lines went too."""
    return any(step.parts[1:2] == ("proc",) for step in _link_steps(path))


def _own_descriptor(path: Path) -> int | None:
    """The descriptor of this process that FILE is, or links to (`/dev/stderr`: 2), if any."""
    for step in _link_steps(path):
        found = _OWN_DESCRIPTOR.fullmatch(str(step))
        if found is not None and int(found[1]) == os.getpid():
            return int(found[2])
    return None


def _own_sink(path: Path) -> _Sink | None:
    """A copy of the descriptor of this process that FILE names, where opening the path again would not
    do; None where it would (a pipe, a terminal: a description of our own, which O_NONBLOCK may mark).

    A socket no path opens (ENXIO): `--capture /dev/stderr` under systemd, whose default
    `StandardError=journal` is one. A regular file opened without O_APPEND (`2>serve.log`, systemd's
    `StandardError=file:` or `truncate:`) is written by the logger at an offset of its own description;
    opened again, ours appended past it, and the logger's next lines overwrote our lines. A copy shares
    that offset, so the two interleave. A regular file never blocks, so the copy needs no O_NONBLOCK.

    One open for reading only (`--capture /dev/stdin < file`) raises EBADF, which every write to its copy
    would: said at start, not lost a batch at a time after a start that looked fine."""
    descriptor = _own_descriptor(path)
    if descriptor is None:
        return None
    try:
        mode = os.fstat(descriptor).st_mode
        access = fcntl.fcntl(descriptor, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:  # closed: opening the path says so
        return None
    if access == os.O_RDONLY:
        redirect = f"{'' if descriptor == 0 else descriptor}< FILE"
        raise OSError(errno.EBADF, f"it is ragmon's descriptor {descriptor}, open for reading only (as "
                      f"`{redirect}` or a pipe's reading end opens it); the capture needs one open for "
                      "writing", str(path))
    if stat.S_ISSOCK(mode):
        return _Socket(descriptor)
    if stat.S_ISREG(mode):
        return os.fdopen(os.dup(descriptor), "wb", buffering=0)  # "ab" would move the shared offset
    return None


def _unread(descriptor: int) -> int | None:
    """Bytes written to a stream that its reader has not taken yet: what a pipe holds (FIONREAD, at
    either end), what a socket or terminal has not sent (TIOCOUTQ, which is SIOCOUTQ); None for a stream
    that tells neither."""
    request = termios.FIONREAD if stat.S_ISFIFO(os.fstat(descriptor).st_mode) else termios.TIOCOUTQ
    try:
        return int(struct.unpack("i", fcntl.ioctl(descriptor, request, bytes(4)))[0])
    except OSError:
        return None


def _widen_pipe(descriptor: int) -> None:
    """Make a full pipe one step larger (the kernel rounds up to a power of two pages). OSError where it
    is no pipe, or past what the process may take (`/proc/sys/fs/pipe-max-size`)."""
    fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, fcntl.fcntl(descriptor, fcntl.F_GETPIPE_SZ) + 1)


class _Sink(Protocol):
    """What FILE is written through: the file opened, a copy of a descriptor of ours (`_own_sink`), or
    `_Socket`. `write` returns None when nothing could be written without waiting."""

    def write(self, data: memoryview | bytes, /) -> int | None: ...

    def fileno(self) -> int: ...

    def close(self) -> None: ...


class _Socket:
    """A socket this process holds as a descriptor (`_own_sink`), written through a copy of it.

    Without blocking, as every stream is written, but not by O_NONBLOCK: that is a flag of the socket
    shared with whoever else writes the descriptor (the logger's stderr), whose writes would then fail
    with EAGAIN when the reader is behind. `MSG_DONTWAIT` makes each send of ours alone not wait. (The
    socket object sets O_NONBLOCK itself only under `socket.setdefaulttimeout`, which ragmon never calls.)"""

    def __init__(self, descriptor: int) -> None:
        self._socket = socket.socket(fileno=os.dup(descriptor))

    def write(self, data: memoryview | bytes, /) -> int | None:
        try:
            return self._socket.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None

    def fileno(self) -> int:
        return self._socket.fileno()

    def close(self) -> None:
        self._socket.close()


class NoReader(OSError):
    """FILE is a named pipe that no process has open for reading."""


class _Stalled(OSError):
    """A stream's reader took nothing for `STALL_SECONDS`, or was still behind at the stop."""


class Replaced(NamedTuple):
    """A FILE.1 a rotation replaced while it held lines."""

    generation: int
    size: int
    kept: frozenset[str] | None
    """The ids it held then, read because it had changed since its generation went there (a reviewer cut
    lines out, or put another file in its place); None: unchanged (or unreadable), so taken to hold every
    line written there."""


class RotatingFile:
    """FILE plus one older generation FILE.1. Not thread-safe: the writer calls it from one thread at
    a time, except `give_up`."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.rotated = path.with_name(path.name + ".1")
        self.max_bytes = max_bytes
        self.generation = 0
        """Which FILE is being written: one more each time a new one begins (a rotation, FILE taken
        away), so a line's generation says whether it is still in FILE or FILE.1."""
        self.rotated_generation = -1
        """The generation now in FILE.1; -1 is whatever FILE.1 held at start."""
        self.replaced: list[Replaced] = []
        """FILE.1s a rotation replaced while they still held lines (not collected: moved, deleted or
        emptied), so lost unread; the writer takes them after each batch to count them."""
        self.found: dict[int, frozenset[str]] = {}
        """The ids of each FILE found in place of the one written (`_follow_path`), by its generation; the
        writer takes them after each batch to remember them."""
        self._rotated_stamp: Stamp | None = None
        """FILE.1 when its generation went there, or when it was read at start."""
        self._handle: _Sink | None = None
        self._size = 0
        self._stalled_since: float | None = None
        """Since when a stream's reader has taken nothing: None while there is room for what is written."""
        self._unread: int | None = None
        """What the stream's reader had not taken when a write last waited for room (`_unread`)."""
        self._give_up_at = math.inf
        """When the stop stops waiting for a stream's reader (`give_up`)."""
        self._torn = False
        """Whether a line was cut short in a stream (its reader still has the part written)."""
        self._regular = True
        """Whether FILE is a regular file of its own. A stream (`/dev/stderr`, a named pipe) has no size
        to bound and is never rotated: renamed, the pipe (or, as root, `/dev/stderr` itself) became
        FILE.1, and the lines went on into a regular file made in its place that its reader never saw."""

    def open(self) -> None:
        """Append to what an earlier run left; its size counts towards the bound. A new file is readable
        by its owner alone (0600): it holds production text, whatever the process's umask allows. Opened
        without blocking, which a regular file ignores: a named pipe without a reader is `NoReader` at
        once, and a write its reader has no room for waits only as long as `_await_room` allows."""
        own = _own_sink(self.path)
        if own is not None:
            self._handle, self._regular, self._size = own, False, 0
            return
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        except OSError as exc:
            if exc.errno == errno.ENXIO and _is_fifo(self.path):
                raise NoReader(errno.ENXIO, "no process has the named pipe open for reading",
                               str(self.path)) from None
            raise
        handle = os.fdopen(descriptor, "ab", buffering=0)
        self._handle = handle
        status = os.fstat(descriptor)
        self._regular = stat.S_ISREG(status.st_mode) and not _names_a_descriptor(self.path)
        if self._regular and status.st_mode & 0o077:
            # An earlier file's mode is kept: appended to without a word, production text had sat in a file
            # any user of the machine could read.
            log.warning(f"the capture file {self.path} can be read or written by users other than its owner "
                        f"(mode {stat.S_IMODE(status.st_mode):04o}): the answers captured are production "
                        "text; chmod 600 it", extra={"path": str(self.path)})
        self._size = handle.tell() if self._regular else 0  # a pipe's tell() is "Illegal seek"

    def write(self, lines: Sequence[bytes]) -> tuple[list[int], OSError | None]:
        """Append `lines` in order, rotating before one that would pass the bound. Returns the generation
        of FILE each line went to, for the lines in the file (the first so many), and the I/O error that
        stopped the rest (the next call reopens the file)."""
        done: list[int] = []
        try:
            if self._handle is None:
                self.open()
            self._follow_path()
            self._end_last_line()
            if self._torn:
                self._put(b"\n")
            for line in lines:
                if self._regular and self._size and self._size + len(line) > self.max_bytes:
                    self._rotate()
                self._put(line)
                self._size += len(line)
                done.append(self.generation)
        except _Stalled as exc:  # kept open: its reader holds the pipe, and what was written stays in it
            return done, exc
        except OSError as exc:
            self._abandon(exc)
            return done, exc
        return done, None

    def give_up(self, within: float) -> None:
        """From the event loop, at the stop: wait no longer than `within` seconds from now for a stream's
        reader, even one that takes a little now and then."""
        self._give_up_at = time.monotonic() + within

    def _put(self, data: bytes) -> None:
        """Write all of `data`: a stream takes what its pipe has room for, and the rest when its reader
        makes room. Part of a line in a stream is `_torn` until the rest follows."""
        view = memoryview(data)
        while view:
            assert self._handle is not None
            written = self._handle.write(view)
            if written is None:  # no room at all: the reader is behind
                self._await_room()
                continue
            view = view[written:]
            self._stalled_since, self._unread = None, None
            self._torn = bool(view)

    def _await_room(self) -> None:
        """Wait for the stream's reader to make room, until `STALL_SECONDS` after it last took anything
        (the whole stall, not each write: a reader stuck for minutes costs each batch nothing), or the
        stop's `give_up`. A reader taking a little at a time (`_PROGRESS_POLL_SECONDS`) is no stall."""
        assert self._handle is not None
        now, unread = time.monotonic(), _unread(self._handle.fileno())
        took = unread is not None and self._unread is not None and unread < self._unread
        if self._stalled_since is None or took:
            self._stalled_since = now
        self._unread = unread
        stalled_until = self._stalled_since + STALL_SECONDS
        if now >= min(stalled_until, self._give_up_at):
            why = ("was still behind when the sidecar stopped" if self._give_up_at < stalled_until
                   else f"took nothing for {STALL_SECONDS:g} s")
            raise _Stalled(errno.EAGAIN, f"the reader of the stream {why}", str(self.path))
        until = min(stalled_until, self._give_up_at, now + _PROGRESS_POLL_SECONDS)
        poller = select.poll()
        poller.register(self._handle.fileno(), select.POLLOUT)
        poller.poll(math.ceil((until - now) * 1000))

    def resume(self, held: Held, rotated: Held) -> None:
        """Open FILE as an earlier run left it (`held`, read just now): a torn last line of ours is cut
        off; any other last line without a newline gets one (`_end_last_line`). `rotated`: FILE.1 as read
        just now."""
        self._rotated_stamp = rotated.stamp
        if held.torn_line is not None:
            os.truncate(self.path, held.complete)
        self.open()
        self._end_last_line()

    def _end_last_line(self) -> None:
        """Give a regular FILE's last line its newline when it has none, so that ours start on a line of
        their own. Looked at before each batch, not only at start: a reviewer's editor saving FILE while
        the sidecar runs (VS Code keeps no final newline once the last line is deleted) left the next
        example glued to the reviewer's last record, one line replay refuses, both counted as kept."""
        if not self._regular or not self._size:
            return
        with self.path.open("rb") as current:
            current.seek(self._size - 1)
            if current.read(1) in (b"\n", b""):
                return
        self._put(b"\n")
        self._size += 1

    def _follow_path(self) -> None:
        """Reopen when FILE is no longer the file held open: a reviewer moved or deleted it, and lines
        appended to the moved file, or to a deleted one where no one can read them, would be counted as
        written all the same (as logging's WatchedFileHandler, one stat per batch).

        FILE cut short in place (logrotate's `copytruncate`, `: > FILE`) is taken away as well: its lines
        are gone, and the bound and a failed write's cut (`_abandon`) count from what is left. Counted
        from the size it had, the next failed write "cut" FILE back by extending it with NUL bytes, a line
        no replay reads, and the next rotation came early and replaced FILE.1 with a nearly empty FILE.
        FILE made longer in place (a reviewer's editor writing a fixed answer over it) keeps its lines, and
        the bound and the cut count from its new size: cut back to the size it had, a failed write took
        the end of the reviewed lines with it.

        A FILE replaced or cut short holds lines of its own: a new generation, whose ids are read (an
        operator's edit, rare; in the flusher's thread, no longer than start-up takes to read FILE).
        Forgotten, a trace still in FILE was written again, a twin `ragmon replay` refuses, and its lines
        were not counted lost when a rotation replaced them in FILE.1."""
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
            self._found_anew()
        elif self._regular and held.st_size != self._size:
            if held.st_size < self._size:
                self._found_anew()
            self._size = held.st_size

    def _found_anew(self) -> None:
        """A new generation, holding the ids FILE holds now (none when it cannot be read: a trace in it
        sent again is then written again, as before it was read)."""
        self.generation += 1
        self.found[self.generation] = _ids_now(self.path) or frozenset()

    def _rotate(self) -> None:
        assert self._handle is not None
        self._handle.close()
        self._handle = None
        replaced = self._rotated_now()
        os.replace(self.path, self.rotated)
        self._rotated_stamp = Stamp.of(os.stat(self.rotated))
        self.rotated_generation = self.generation
        self.generation += 1
        log.info("capture file rotated", extra={"path": str(self.path), "bytes": self._size})
        if replaced is not None:  # counted written, now lost too, and said (CaptureWriter._count_lost)
            self.replaced.append(replaced)
        self.open()

    def _rotated_now(self) -> Replaced | None:
        """FILE.1 as the rotation about to replace it finds it: None when it holds nothing (collected:
        moved, deleted or emptied). Read only when it changed since its generation went there: a reviewer
        who took some lines (`sed -i 1d`) or put a file of their own there has collected those lines."""
        try:
            status = os.stat(self.rotated)
        except FileNotFoundError:
            return None
        if not status.st_size:
            return None
        kept = None if Stamp.of(status) == self._rotated_stamp else _ids_now(self.rotated)
        return Replaced(self.rotated_generation, status.st_size, kept)

    def _abandon(self, error: OSError) -> None:
        """After a failed write: drop the handle and cut off a partly written line. A stream is never cut
        (the logger's lines may follow ours in a log file that stderr appends to): its part line is ended
        before the next, unless it went with the pipe's content when its reader did (EPIPE)."""
        handle, self._handle = self._handle, None
        self._torn = self._torn and not self._regular and not isinstance(error, BrokenPipeError)
        self._stalled_since, self._unread = None, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.close()
        if self._regular:
            with contextlib.suppress(OSError):
                os.truncate(self.path, self._size)

    def close(self) -> None:
        """Close FILE, a line cut short in a stream ended first (`_end_torn_line`)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if self._torn:
            self._end_torn_line(handle)
        handle.close()

    def _end_torn_line(self, handle: _Sink) -> None:
        """At the stop, end the line a stream's reader was left in the middle of, so that a reader which
        outlives the sidecar (a log shipper reading a named pipe across a restart) sees the next sidecar's
        first line as a line of its own, not run on from this one. Without waiting: the stop has waited
        for this reader already. A pipe this reader has left full is made one step larger to take the
        newline (F_SETPIPE_SZ; it never shrinks, so this costs the reader nothing it would notice).
        Where that is refused too, it is said.

        A newline at each start instead would end such a line whatever happened, but a start cannot tell
        whether the last run left one: every start would put a blank line before its first, which a log
        shipper may count as a record and a reader parsing each line as JSON stops at."""
        try:
            if handle.write(b"\n") is None:
                _widen_pipe(handle.fileno())
                self._torn = handle.write(b"\n") is None
            else:
                self._torn = False
        except BrokenPipeError:  # the reader has gone, and the part line with the pipe's content
            self._torn = False
        except OSError:
            pass
        if self._torn:
            log.warning("capture stream left in the middle of a line: its reader took nothing at the stop, "
                        "and the next line written to it will continue that line",
                        extra={"path": str(self.path)})
            self._torn = False


def _say_replaced(rotated: Path, size: int, lost: int) -> None:
    """A rotation replaced FILE.1 while it held lines. Of none of ours (a file of the operator's put there,
    or what a reviewer left after taking our lines out) it is still said, as its bytes are gone and ragmon
    removed them, but not as lost examples: the line had said they were gone while the count said 0."""
    if lost:
        message = ("capture rotation replaced the previous rotated file, and the examples it held are gone: "
                   "collect it more often, or raise --capture-max-bytes")
    else:
        message = ("capture rotation replaced the previous rotated file, which held no captured examples: "
                   "what else it held is gone; keep files of your own elsewhere")
    log.warning(message, extra={"path": str(rotated), "bytes": size, "count": lost})


def _utc_now() -> datetime:
    return datetime.now(UTC)


CAPTURE = Flag("--capture")
"""--capture given on the command line: how a start-up error names FILE when no variable set it."""


class CaptureWriter:
    """Selects, serialises and queues examples on the event loop; one flusher task writes them.

    `count(pipeline, outcome)` is told what became of every selected example; `lost(n)` of the examples
    written, then replaced unread by a rotation."""

    def __init__(self, path: Path, *, below: float, max_bytes: int, count: Callable[[str, str], None],
                 lost: Callable[[int], None], judge_settings: Mapping[str, Any], k: int | None = None,
                 clock: Callable[[], datetime] = _utc_now, max_pending: int = MAX_PENDING,
                 flag: Flag = CAPTURE, reader_wait: float = READER_WAIT_SECONDS) -> None:
        """`judge_settings` and `k` are the sidecar's, which each line records (`record`)."""
        self._reader_wait = reader_wait
        self.below = below
        self._named = f"the capture file ({flag.named})"
        """How a start-up error names FILE: with the setting to change, RAGMON_CAPTURE in a manifest."""
        self.judge_settings = judge_settings
        self.k = k
        self.file = RotatingFile(path, max_bytes)
        self._count = count
        self._lost = lost
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
        self._unsaid_losses = 0
        """Examples lost to write errors since the last line saying so."""
        self._last_error: OSError | None = None
        self._too_large_lines = LineLimit()
        self._lock: int | None = None
        """FILE's lock (`_lock`), held from start to close."""
        self._wake = asyncio.Event()
        self._closing = False
        self._flusher: asyncio.Task[None] | None = None

    async def start(self, stop: asyncio.Event | None = None) -> None:
        """Read the ids the files hold and open FILE now, so a path that cannot be written (or read)
        stops `ragmon serve` at start-up; `stop` set while a named pipe's reader is waited for ends the wait
        (`StoppedStarting`)."""
        older, current = await self._resume_when_read(stop)
        self._held = {self.file.rotated_generation: set(older.ids), self.file.generation: set(current.ids)}
        _log_held(self.file.rotated, older, mended=False)
        _log_held(self.file.path, current, mended=True)
        self._flusher = asyncio.create_task(self._flush_loop(), name="ragmon-capture")
        log.info("capturing examples", extra={"path": str(self.file.path), "below": shown(self.below),
                                              "max_bytes": self.file.max_bytes,
                                              "ids_held": len(older.ids) + len(current.ids)})

    async def _resume_when_read(self, stop: asyncio.Event | None) -> tuple[Held, Held]:
        """`_resume`, waiting `reader_wait` seconds for a process to open a named pipe FILE for reading,
        saying so: a reader started with the sidecar (a log shipper in its pod) may come a moment later,
        and an exit at once had the sidecar restarted in a back-off longer than that. Past the wait, a
        reader that never came is a path or a pod set up wrong: exit 2 naming it."""
        deadline = asyncio.get_running_loop().time() + self._reader_wait
        waiting = False
        while True:
            try:
                return await asyncio.to_thread(self._resume)
            except NoReader:
                if stop is not None and stop.is_set():
                    raise StoppedStarting(f"{self.file.path}: stopped while waiting for a process to read "
                                          f"{self._named}, a named pipe") from None
                if asyncio.get_running_loop().time() >= deadline:
                    raise InputError(f"no process reads {self._named}, a named pipe (waited "
                                     f"{self._reader_wait:g} s for one): start its reader first; ragmon only "
                                     "writes it", source=str(self.file.path)) from None
                if not waiting:
                    waiting = True
                    log.info("waiting for a process to open the capture pipe for reading",
                             extra={"path": str(self.file.path), "wait_seconds": self._reader_wait})
                await asyncio.sleep(_READER_POLL_SECONDS)

    def _resume(self) -> tuple[Held, Held]:
        """In a thread: FILE locked, what FILE.1 and FILE hold, then FILE opened with its last line
        mended."""
        self._lock = _lock(self.file.path, self._named)
        try:
            return self._read_and_open()
        except BaseException:
            self._unlock()
            raise

    def _read_and_open(self) -> tuple[Held, Held]:
        held = []
        for path in (self.file.rotated, self.file.path):
            try:
                held.append(read_held(path))
            except OSError as exc:
                raise InputError(f"cannot read {self._named}: {exc.strerror or exc}",
                                 source=str(path)) from None
        older, current = held
        try:
            self.file.resume(current, older)
        except NoReader:
            raise
        except OSError as exc:
            raise InputError(f"cannot write {self._named}: {_why_unwritable(self.file.path, exc)}",
                             source=str(self.file.path)) from None
        return older, current

    def offer(self, result: ExampleResult, trace_id: str, pipeline: str) -> None:
        """Queue the example if it is selected and its trace not captured yet. Never waits: a full queue
        drops the line (`backlog`). `pipeline` is the label its figures were exported under."""
        if self._flusher is None or not selected(result.metrics.get("groundedness"), self.below):
            return
        if trace_id in self._queued or any(trace_id in ids for ids in self._held.values()):
            self._count(pipeline, "duplicate")
            return
        line = encode(record(result, trace_id, self._clock(), self.judge_settings, pipeline, self.k))
        if len(line) > self.file.max_bytes:
            self._too_large(pipeline, trace_id, len(line), "example larger than --capture-max-bytes not "
                            "captured", self.file.max_bytes)
        elif len(line) - 1 > reader.MAX_LINE_BYTES:  # newline aside, as replay counts
            self._too_large(pipeline, trace_id, len(line), "example whose line would be longer than "
                            "`ragmon replay` reads not captured", reader.MAX_LINE_BYTES)
        elif len(self._pending) >= self._max_pending:
            self._backlogged += 1
            self._count(pipeline, "backlog")
        else:
            self._pending.append((pipeline, trace_id, line))
            self._queued.add(trace_id)
            self._wake.set()

    def _too_large(self, pipeline: str, trace_id: str, size: int, message: str, limit: int) -> None:
        """One line a minute for each bound, naming the first trace id (a flood of large traces would
        otherwise log one line each); the rest are said in the next line and counted all the same."""
        self._count(pipeline, "too_large")
        if (suppressed := self._too_large_lines.admit(message)) is not None:
            log.warning(more_like_it(message, suppressed), extra={"trace_id": trace_id, "bytes": size,
                                                                  "limit": limit})

    async def _flush_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                generations, error = await asyncio.to_thread(self.file.write, [line for *_, line in batch])
                self._settle(batch, generations)
                if error is not None:
                    self._write_failed(error, len(batch) - len(generations))
                if self._backlogged:
                    log.warning("capture file fell behind; examples lost",
                                extra={"path": str(self.file.path), "count": self._backlogged,
                                       "max_pending": self._max_pending})
                    self._backlogged = 0
            if self._closing:
                return

    def _write_failed(self, error: OSError, lost: int) -> None:
        """Say it once a minute for each error, with the number of examples lost since the last line."""
        self._unsaid_losses += lost
        self._last_error = error
        if (suppressed := self._write_errors.admit(str(error))) is not None:
            self._say_losses(suppressed)

    def _say_losses(self, suppressed: int = 0) -> None:
        log.warning(more_like_it("cannot write the capture file; examples lost", suppressed),
                    extra={"path": str(self.file.path), "error": str(self._last_error),
                           "count": self._unsaid_losses})
        self._unsaid_losses = 0

    def _settle(self, batch: Sequence[tuple[str, str, bytes]], generations: Sequence[int]) -> None:
        """Count a written batch and the examples its rotations lost, remember where its ids went (and the
        ids of a FILE found in place of the one written), and forget the ids of lines no longer in FILE or
        FILE.1 (FILE.1 replaced, FILE taken away): they can be written again without a twin."""
        found, self.file.found = self.file.found, {}
        self._held.update((generation, set(ids)) for generation, ids in found.items())
        for index, (pipeline, trace_id, _) in enumerate(batch):
            self._queued.discard(trace_id)
            if index < len(generations):
                self._held.setdefault(generations[index], set()).add(trace_id)
            self._count(pipeline, "written" if index < len(generations) else "error")
        self._count_lost()
        live = (self.file.generation, self.file.rotated_generation)
        for generation in [g for g in self._held if g not in live]:
            del self._held[generation]

    def _count_lost(self) -> None:
        """Count the examples of each FILE.1 a rotation replaced unread: as many as the ids remembered for
        its generation, each id one line (a trace is written once); of a FILE.1 changed since, those it
        still held (`RotatingFile._rotated_now`). Unlabelled: `_held` keeps ids alone (a pipeline beside
        each would add to the memory that follows the disk bound, and of a long line read at start only the
        id is read), and the remedy (collect FILE.1 sooner, or raise --capture-max-bytes) is the file's,
        not a pipeline's."""
        replaced, self.file.replaced = self.file.replaced, []
        lost = 0
        for generation, size, kept in replaced:
            written = self._held.get(generation, set())
            count = len(written if kept is None else written & kept)
            _say_replaced(self.file.rotated, size, count)
            lost += count
        if lost:
            self._lost(lost)

    async def close(self) -> None:
        """Write what is queued, then close the file; a stream's reader is waited for `STALL_SECONDS` at
        most."""
        flusher, self._flusher = self._flusher, None
        if flusher is not None:
            self._closing = True
            self.file.give_up(STALL_SECONDS)
            self._wake.set()
            await flusher
        if self._unsaid_losses:  # at the stop: /metrics has closed, so no scrape will count them either
            self._say_losses()
        await asyncio.to_thread(self.file.close)
        self._unlock()

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            os.close(lock)


def _lock(path: Path, named: str) -> int | None:
    """Take FILE's lock, for the writer's life: FILE.lock beside it (beside the file a link names, so two
    links to one file take one lock), locked (flock) and holding the pid and host of the process that
    holds it. Returns its descriptor, None when FILE is a stream (`/dev/stderr`, whatever it holds, or
    no regular file: nothing is read from it either). The kernel frees the lock when the process ends,
    however it ends; the file stays (removing it would let a third process lock a new file while a
    second holds the old one).

    Two sidecars writing one FILE (a shared volume; an exporter's retry reaching the other replica) would
    each write a trace sent to both, as each knows only the ids it read at start and wrote since, and
    `ragmon replay` refuses a file holding an id twice; rotation, each renaming FILE under the other,
    would lose examples too. So the second is refused, naming the first."""
    if _names_a_descriptor(path):
        return None
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    target = path.resolve()
    lock = target.with_name(target.name + ".lock")
    try:
        # Not through a link planted in its place: the lock's target had been truncated and overwritten.
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and not path.parent.is_dir():
            raise InputError(f"cannot write {named}: {_why_unwritable(path, exc)}",
                             source=str(path)) from None
        link = " (a symbolic link stands where ragmon's lock file goes: remove it)" \
            if exc.errno == errno.ELOOP else ""
        raise InputError(f"cannot write the lock file {lock} of {named}: {exc.strerror or exc}{link}",
                         source=str(path)) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _holder(descriptor)
        os.close(descriptor)
        if isinstance(exc, BlockingIOError):
            raise InputError(f"{named} is in use by another process ({holder}): two sidecars "
                             "capturing to one file would both write a trace sent to each, and `ragmon "
                             "replay` refuses a file holding an id twice; give each sidecar its own file",
                             source=str(path)) from None
        raise InputError(f"cannot lock the lock file {lock} of {named}: {exc.strerror or exc}",
                         source=str(path)) from None
    with contextlib.suppress(OSError):  # a full disk: the lock holds all the same, its holder unnamed
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()
                  + b"\n", 0)
    return descriptor


def _holder(descriptor: int) -> str:
    """Who holds the lock, as it wrote in the lock file: "pid 7 on host web-1" (a pod's name is its host
    name; the pid is in that host's or container's own namespace)."""
    try:
        holder = json.loads(os.pread(descriptor, 1024, 0))
        pid, host = holder["pid"], holder["host"]
        if isinstance(pid, int) and isinstance(host, str):
            return f"pid {pid} on host {printable(host)}"
    except (OSError, ValueError, TypeError, KeyError):
        pass
    return "pid unknown"


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
