"""The Claude judge's spend of the day on disk (`--llm-budget-file`), so that a restart resumes the day's
cap instead of starting it afresh.

A sidecar that crash-loops (OOM-killed, failing its liveness probe) is restarted by the kubelet in the same
pod, where an `emptyDir` outlives it. With the budget held in memory only, each start had the whole day's
cap again: a process that spent $5 and died every few minutes could spend $5 every few minutes.

What the file holds is what the day has committed: spent, plus the worst case of every reservation open,
because a call in flight when the process dies may have been billed; a restart counts those as spent
(fail-closed). It is rewritten on every change (a reservation before its call goes out, a settlement
after), at most twice per Claude call, so at most `--llm-max-per-minute` x 2 small writes a minute; each
is a temporary file renamed over the last, so a process killed mid-write leaves the previous figure. One
process at a time: two sidecars sharing the file would overwrite each other's spend, so the file's lock
(on FILE.lock, held for the process's life and freed by the kernel when it dies) refuses the second.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import json
import logging
import math
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ragmon.errors import InputError, printable
from ragmon.files import not_a_directory
from ragmon.options import Flag

log = logging.getLogger("ragmon.budget_file")

_EPOCH = datetime.date(1970, 1, 1)
_KIND = "ragmon Claude judge spend"
"""The file's `what`: says what it is to whoever opens it, and lets the reader refuse a file that is not
one (a path pointing at the wrong file must not be overwritten)."""


@dataclass(frozen=True, slots=True)
class DaySpend:
    """USD committed on a UTC day (days since the epoch, as `ragmon.budget.utc_day`)."""

    day: int
    usd: float
    unbilled: float = 0.0
    """Of `usd`, worst cases never billed: calls in flight when it was written, and those a stopped process
    left, carried over. Apart, so that a spent day after a crash loop says so, not that Claude billed it."""


def _dollars(record: dict[str, object], key: str, default: float | None = None) -> float:
    value = record.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{key} is {value!r}, not a number of dollars")
    return float(value)


def day_name(day: int) -> str:
    """`2026-12-01` for a day since the epoch: a file a person may read, a log line."""
    return (_EPOCH + datetime.timedelta(days=day)).isoformat()


_MAX_BYTES = 4096
"""Bytes of a budget file read, at most: ragmon writes about a hundred."""


_FLAG = Flag("--llm-budget-file")


def _resolved(path: Path, named: str) -> Path:
    """`path` with every link followed; links in a loop refused by name. They had stopped the start with a
    traceback (Path.resolve's RuntimeError, Python 3.11 and 3.12); Python 3.13 resolves a loop to itself,
    and the start had gone on to make a lock file beside it and fail reading it."""
    looped = InputError(f"{named}: cannot be used: its symbolic links form a loop")
    try:
        resolved = path.resolve()
    except RuntimeError:
        raise looped from None
    try:
        resolved.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise looped from None
    return resolved


class BudgetFile:
    """The open, locked file; `read` once at start, then `write` on every change of the day's spend."""

    def __init__(self, path: Path, setting: Flag = _FLAG) -> None:
        # The variable first, where one gave it (the Dockerfile sets RAGMON_LLM_BUDGET_FILE): a user told
        # of the flag looks for one never typed.
        self.named = setting.given(printable(str(path)))
        # A link's target, not the link: os.replace would put a file where the link was, and the volume
        # it pointed to would never see another figure.
        self.path = _resolved(path, self.named)
        self._failing = False
        self._lock: IO[bytes] | None = None
        # Before anything is created beside it: a FIFO hung the start unlogged, and /dev/full was read
        # until the host ran out of memory (and would have been replaced by a file).
        with contextlib.suppress(OSError):
            if not stat.S_ISREG(self.path.stat().st_mode):
                raise self._refused("is not a regular file (a directory, a device or a pipe)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Beside the target too: two links to one file are one file, and must take one lock.
            # Not through a link planted in its place (O_NOFOLLOW): the lock file is ragmon's own.
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW
            self._lock = os.fdopen(os.open(self.path.with_name(self.path.name + ".lock"), flags, 0o600), "ab")
        except OSError as exc:
            # A file where a folder goes had been told as the mkdir's "File exists".
            blocked = not_a_directory(self.path)
            if blocked is not None:
                raise InputError(f"{self.named}: cannot be written: {blocked}") from None
            link = " (a symbolic link stands where ragmon's lock file goes: remove it)" \
                if exc.errno == errno.ELOOP else ""
            raise InputError(f"{self.named}: cannot open its lock file: "
                             f"{exc.strerror or exc}{link}") from None
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self.close()
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                # NFS without its lock daemon (ENOLCK), a FUSE mount (EOPNOTSUPP): told as "in use", the
                # fix looked for was a second sidecar that did not exist.
                raise InputError(f"{self.named}: cannot be locked there ({exc.strerror or exc}): ragmon "
                                 "locks it so that two sidecars do not each spend the day's budget; give a "
                                 "file on a local disk or volume") from None
            raise InputError(f"{self.named} is in use by another process (a second "
                             "ragmon serve?): two sidecars writing one file would each overwrite the "
                             "other's spend; give each its own file") from None

    def read(self) -> DaySpend | None:
        """None when there is no file yet. A file that is not one of ours is refused rather than
        overwritten or read as no spend: the cap would silently start afresh."""
        try:
            with self.path.open("rb") as handle:
                data = handle.read(_MAX_BYTES + 1)
            if len(data) > _MAX_BYTES:
                raise self._refused(f"is over {_MAX_BYTES} bytes, no budget file ragmon wrote")
            text = data.decode("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise self._refused(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
        try:
            record = json.loads(text)
            if not isinstance(record, dict) or record.get("what") != _KIND:
                raise ValueError(f"it is not a {_KIND} file")
            if "day" not in record:
                raise ValueError('it gives no "day"')
            day = (datetime.date.fromisoformat(record["day"]) - _EPOCH).days
            usd, unbilled = _dollars(record, "usd"), _dollars(record, "unbilled_usd", 0.0)
        except (ValueError, TypeError) as exc:
            raise self._refused(f"is not readable as ragmon wrote it ({printable(str(exc))})") from None
        except RecursionError:  # 4 KB of "[" is deeper than Python's parser goes: a traceback at start
            raise self._refused("is not readable as ragmon wrote it (JSON nested too deep to read)") from None
        return DaySpend(day, usd, min(unbilled, usd))

    def _refused(self, why: str) -> InputError:
        return InputError(f"{self.named} {why}: move it away to start today's budget "
                          "afresh, knowingly, or give another file")

    def write(self, spend: DaySpend, *, at_start: bool = False) -> None:
        """A failure at start (a read-only volume) stops the start. A full disk, then or later, does not:
        the cap still holds in this process, with one warning until a write succeeds again, and a restart
        would resume from the last figure written."""
        text = json.dumps({"what": _KIND, "day": day_name(spend.day), "usd": spend.usd,
                           "unbilled_usd": spend.unbilled}) + "\n"
        temporary: str | None = None
        try:
            # A file of its own, created (O_EXCL) beside FILE: a fixed FILE.tmp was opened through whatever
            # link stood there, and one planted in the directory had its target overwritten, then put in
            # FILE's place, every later write overwriting it again.
            descriptor, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".",
                                                     suffix=".tmp")
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                # On the disk before its name moves: renamed first, a host's crash could leave FILE empty
                # (XFS, or ext4 mounted without auto_da_alloc), and every start after it refused.
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
            temporary = None
        except OSError as exc:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            # A full disk is a state that passes, as it would be mid-run; a volume that cannot be written
            # (read-only, not ours) is a setting to fix before ragmon runs.
            if at_start and exc.errno != errno.ENOSPC:
                raise InputError(f"{self.named} cannot be written: "
                                 f"{exc.strerror or exc}") from None
            if not self._failing:
                log.warning(f"cannot write {self.named} ({exc.strerror or exc}): the "
                            "daily cap still holds in this process, but a restart would resume from the "
                            "last figure written", extra={"path": str(self.path)})
            self._failing = True
            return
        self._failing = False

    def close(self) -> None:
        """Frees the lock; the process's end does too."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None
