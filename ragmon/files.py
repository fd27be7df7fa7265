"""Which file a path names, so that two names of one file compare equal: a report must never be written
over the run's own input (`ragmon replay golden.jsonl --json golden.jsonl`), by `replay` or `calibrate`."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import secrets
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from ragmon.errors import InputError
from ragmon.options import is_stdin


def file_at(path: Path) -> tuple[int, int] | str | None:
    """Which file `path` names, so that two paths of one file compare equal: its device and inode when it
    is a file; when there is none yet, its resolved path, every symlink followed, a dangling one too
    (`link/r.json` with link -> out is `out/r.json`, a link to a file not yet written is that file), which
    is where the report would be written. None for a pipe or a device (`/dev/null`): no file to keep."""
    try:
        status = path.stat()
    except (OSError, ValueError):
        try:
            return str(path.resolve(strict=False))
        except (OSError, RuntimeError, ValueError):  # a symlink loop: Python < 3.13 raises RuntimeError
            return os.path.abspath(path)
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def input_file(name: str | Path) -> tuple[int, int] | None:
    """`existing_file` of an input. For `-`, the file standard input was redirected from (`ragmon replay - <
    golden.jsonl`), which a report written there would overwrite all the same; not a file `-` in the
    working directory, which the run does not read."""
    if not is_stdin(name):
        return existing_file(Path(name))
    try:
        status = os.fstat(0)
    except OSError:  # closed when the process started: nothing to overwrite
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def existing_file(path: Path) -> tuple[int, int] | None:
    """A file that exists, by device and inode (`file_at`); None for anything else."""
    where = file_at(path)
    return where if isinstance(where, tuple) else None


def standard_stream(path: Path) -> int | None:
    """Which of standard output (1) and standard error (2) `path` is the open file of, else None:
    `--json /dev/stdout` with stdout a pipe or a file (`> out.json`, `>> ci.log`). Opened again by name,
    that file was truncated (the CI log `>>` had been appending to lost every earlier line) and written
    from its start, under the summary written to it through the descriptor. A terminal or `/dev/null` is
    none: a device has nothing to truncate, and nothing written there is read back as a report."""
    try:
        named = path.stat()
    except (OSError, ValueError):
        return None
    if stat.S_ISCHR(named.st_mode):
        return None
    for descriptor in (1, 2):
        try:
            held = os.fstat(descriptor)
        except OSError:  # closed when the process started
            continue
        if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
            return descriptor
    return None


def written_to_stream(path: Path, content: Iterable[str]) -> bool:
    """Whether `path` is standard output's or error's file (`standard_stream`), and if so the report written
    there through its descriptor, after what was printed there and where the stream stands (the end of a
    log appended to), never truncating it."""
    descriptor = standard_stream(path)
    if descriptor is None:
        return False
    for printed in (sys.stdout, sys.stderr):
        if printed is not None:
            printed.flush()
    with open(os.dup(descriptor), "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.writelines(content)
    return True


def holds_one_report(path: Path) -> bool:
    """Whether `path` keeps only the last report written to it: a regular file (through links) or none yet,
    other than the one standard output or error goes to. A pipe's reader, a terminal, and `> out.json` get
    every report written there, one after another."""
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return regular and standard_stream(path) is None


def written_whole(path: Path, content: Iterable[str]) -> bool:
    """Whether `path` names a regular file, or none yet, and if so `content` written to a new file beside it
    then renamed over it. Written in place, a report was cut short by a kill during the write (SIGKILL: the
    out-of-memory killer, a CI job's time limit; a JSON report of 60 MB takes seconds): half a report, which
    a publishing step failed to parse, or read as this run's whole. Renamed, the path holds the file before or
    the whole report, at any moment. A link keeps pointing where it did (the file it names is replaced), and
    a file replaced keeps its permission bits and, where that may be given, its owner; one made anew gets
    those `open` gives. Anything else (a pipe, a device), or a directory where no file may be made, is for
    the caller to write in place: False, as is a file of more than one name (a hard link): renamed over
    one, the others would keep the old report. A kill during the write leaves the new file, hidden
    (`.report.json.<random>.tmp`), beside the old one, until the next write there (`_remove_left`)."""
    target = Path(os.path.realpath(path))
    try:
        status: os.stat_result | None = target.stat()
    except FileNotFoundError:
        status = None
    except (OSError, ValueError):
        return False
    if status is not None and (not stat.S_ISREG(status.st_mode) or status.st_nlink > 1):
        return False
    _remove_left(target)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    except OSError:
        return False
    try:
        with open(descriptor, "w", encoding="utf-8", errors="backslashreplace") as handle:
            # No one else has this new file: the lock fails only where there is none (NFS without its lock
            # daemon, ENOLCK), and the report is written all the same.
            with contextlib.suppress(OSError):
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if status is not None:
                os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
                with contextlib.suppress(OSError):  # another user's file, replaced by root; not by them
                    os.fchown(descriptor, status.st_uid, status.st_gid)
            handle.writelines(content)
        os.replace(temporary, target)  # once closed: an error a filesystem tells at close leaves the old file
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return True


LEFT_GRACE = 10.0
"""Seconds a hidden file no writer locks is left alone: its writer may be between making it and locking it,
or between closing it and renaming it."""


def _remove_left(target: Path) -> None:
    """Removes the hidden files beside `target` that killed writes left (`written_whole`): a run killed while
    writing a 60 MB JSON report left 60 MB hidden beside it for good, one more each time. A live write holds
    a lock on its file (`flock`, released when its process ends, however it ends) from its first byte until
    it is closed, then renames it at once; a file no one locks, and not written for `LEFT_GRACE`, is a dead
    one's. Tested with a shared lock, which a read-only descriptor may take on NFS too (flock there is a
    byte-range lock, and an exclusive one needs the file open for writing)."""
    for left in glob.glob(glob.escape(f"{target.parent}/.{target.name}.") + "[0-9a-f]" * 8 + ".tmp"):
        with contextlib.suppress(OSError):
            descriptor = os.open(left, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                status = os.fstat(descriptor)
                if stat.S_ISREG(status.st_mode) and time.time() - status.st_mtime > LEFT_GRACE:
                    fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)  # OSError: a live write's
                    os.unlink(left)
            finally:
                os.close(descriptor)


def write_report(path: Path, content: Iterable[str], *, wait: bool = True) -> None:
    """A report written at `path` in place of what is there: through standard output's or error's descriptor
    when `path` is their file (`written_to_stream`), else whole (`written_whole`), else, a pipe or a device,
    in place. Its directories are made, as a CI job names one it has not (`--junit reports/r.xml`). Without
    `wait`, a pipe with no reader (`mkfifo`) is an error (ENXIO), not a wait for one (`not_waiting`). A JSON
    "\\ud800" escape reads as a lone surrogate, which UTF-8 cannot encode: written back as that same escape,
    the text is kept as the input gave it instead of stopping the run here."""
    if written_to_stream(path, content):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if written_whole(path, content):
        return
    with open(path, "w", encoding="utf-8", errors="backslashreplace",
              opener=None if wait else not_waiting) as handle:
        handle.writelines(content)


def check_not_directory(path: Path, given: str) -> None:
    """Before anything is read: a report path that is a directory (`--json reports/`) is refused at once,
    not after every example was scored (and every Claude verdict paid for) when the write failed. `given`
    names the flag with its value, as the user set it."""
    try:
        directory = path.is_dir()
    except OSError as exc:  # a name too long, a directory it may not look in: no report can go there
        raise InputError(f"{given}: cannot write report: {exc.strerror}") from None
    if directory:
        raise InputError(f"{given} is a directory: name a file to write the report to")


def unwritable(path: Path) -> str | None:
    """Why a report at `path` could not be written, as far as can be told before writing it: something
    other than a directory where a folder goes, or no permission to write the file or make it in its
    nearest directory. Told at the end, after every question was asked and scored (every Claude verdict
    paid for), the run had been for nothing."""
    try:
        if (why := not_a_directory(path)) is not None:
            return why
        if path.exists():
            return _denied(path, os.W_OK)
        directory = next((parent for parent in path.parents if parent.exists()), Path("."))
    except OSError as exc:  # a name too long, a directory it may not look in
        return exc.strerror or str(exc)
    return None if (why := _denied(directory, os.W_OK | os.X_OK)) is None else f"{why} (in {directory})"


def _denied(path: Path, mode: int) -> str | None:
    """Why access(2) refuses `mode` on `path`, which its answer does not say: a read-only mount had been
    told as "Permission denied", sending the user to chmod what no chmod makes writable (as root too)."""
    if os.access(path, mode):
        return None
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return os.strerror(errno.EROFS if read_only else errno.EACCES)


def not_a_directory(path: Path) -> str | None:
    """Why no directory can be made for `path`: a file where its folder should be (mkdir says "File
    exists", which reads as if the report itself were in the way), or a link to nothing."""
    for parent in reversed(path.parents):
        if os.path.lexists(parent) and not parent.is_dir():
            return f"{parent} is {'a file' if parent.exists() else 'a link to nothing'}, not a directory"
    return None


class Unwritten(InputError):
    """A report could not be written at its path. Its error report waits for no pipe's reader there: a
    FIFO whose reader left early (`head -c 100 fifo`, EPIPE) had its error report wait in open() for
    another reader, which never came, and the run hung, its error untold, until a signal."""


def not_waiting(path: str, flags: int) -> int:
    """An `open` opener that waits for no pipe's reader: a FIFO nobody reads is ENXIO at once (an error
    report written after a stop signal, which nothing may hold up)."""
    return os.open(path, flags | os.O_NONBLOCK)
