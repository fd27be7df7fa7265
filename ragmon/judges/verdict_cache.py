"""Claude's verdicts kept by key, so CI re-runs and repeated answers are not billed twice.

Apart from the judge because it knows nothing of prompts or the API, only keys and verdict entries, and
its troubles (concurrent writers, unreadable files, a full disk) are the file system's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragmon.errors import InputError

log = logging.getLogger("ragmon.judges.claude")

CACHE_FORMAT = 2
"""Written into every entry on disk, and required of one read: raised when what ragmon caches changes
meaning with no change to the key (PROMPT_VERSION and the key's material cover what is sent, not how the
reply is read). Entries without it come from a ragmon before it, whose readings were corrected with the
keys kept: a "supported" naming no document sent was cached as unsupported for good (one a later run is
to ask again), and a reply's verdicts in swapped order could be cached under the wrong claims. Such an
entry is a miss, asked for once more and replaced (removed, if today's judge keeps no such verdict): one
more bill per verdict, never a wrong one served for ever."""


class VerdictCache:
    """Claim verdicts by key: a bounded in-memory LRU in front of an optional directory of JSON files.

    One small file per key, written to a temporary name and renamed into place, so concurrent processes
    sharing a directory (parallel CI jobs) never read a half-written entry; an unreadable entry is a miss.
    The directory is made and proved writable here (InputError naming it and the reason if not): found out
    at the first write, it would have cost the verdicts of the calls already paid for.

    Safe to share between threads, as a judge is: the LRU's reordering and eviction are done under a lock,
    since a lookup moving a key another thread just evicted raised KeyError.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None, max_entries: int = 10_000) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.max_entries = max_entries
        self._memory: OrderedDict[str, Mapping[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._warned = False
        self._outdated_seen = False
        self._unreadable_seen = False
        self._outdated_keys: set[str] = set()
        if self.directory is not None:
            _writable_directory(self.directory)

    def get(self, key: str) -> Mapping[str, Any] | None:
        with self._lock:
            entry = self._memory.get(key)
            if entry is not None:
                self._memory.move_to_end(key)
                return entry
        entry = self._read(key)
        if entry is not None:
            self._remember(key, entry)
        return entry

    def put(self, key: str, entry: Mapping[str, Any], *, on_disk: bool = True) -> None:
        """Memory keeps only the verdict; the file also keeps what makes it readable (claim, model).
        `on_disk=False` keeps it for this run only: one a later run should ask for again. Such a key's
        file, if this cache read it as one of an older cache format, is removed: left, it was asked for,
        and warned of, on every run after.

        A verdict was paid for by the time it gets here: a file that cannot be written (disk full,
        permissions changed mid-run) leaves it in memory for this run and costs one warning per cache,
        never the verdict or the run."""
        self._remember(key, verdict_part(entry))
        read_outdated = self._unmark_outdated(key)
        if self.directory is None:
            return
        if not on_disk:
            if read_outdated:
                self._forget(key)
            return
        try:
            self._write(self._path(key), entry)
        except OSError as exc:
            if not self._warned:
                self._warned = True
                log.warning(f"cannot write to the Claude verdict cache {self.directory} "
                            f"({exc.strerror or exc}): verdicts not written are kept in memory for this run "
                            "only, and a later run pays for them again (warned once)")

    def _unmark_outdated(self, key: str) -> bool:
        """Whether this cache read the key's file as outdated; dropped once its verdict is given, so the
        record holds only keys still being asked for, not every key of a long run."""
        with self._lock:
            read_outdated = key in self._outdated_keys
            self._outdated_keys.discard(key)
            return read_outdated

    def _forget(self, key: str) -> None:
        """Taken aside before it is read (a rename takes whatever file is there at once): another process
        sharing the directory may have written today's entry at the key since this cache read the old one,
        and removing that costs a call next run. Read, then removed, it could land between the two. Found
        to be today's, it is put back, unless a newer one has landed meanwhile (a link does not replace
        it). Best effort: a file that cannot be removed costs one more call next run, as it did before."""
        path = self._path(key)
        aside = path.with_name(f".forget-{os.getpid()}-{threading.get_ident()}-{path.name}")
        try:
            os.rename(path, aside)
        except OSError:
            return
        try:
            entry = _entry_at(aside)
            if entry is not None and entry.get("cache_format") == CACHE_FORMAT:
                with contextlib.suppress(OSError):
                    os.link(aside, path)
        except _UnreadableEntry:
            pass  # damaged: nothing to put back
        finally:
            with contextlib.suppress(OSError):
                os.unlink(aside)

    @staticmethod
    def _write(path: Path, entry: Mapping[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            # A lone surrogate (a reply's "\ud83d" escape, a document id from a file name that is no UTF-8)
            # has no UTF-8 form: written as the JSON escape it reads back from, not a UnicodeEncodeError
            # raised past the judge after the call was paid for.
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                json.dump({**entry, "cache_format": CACHE_FORMAT}, handle, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _remember(self, key: str, entry: Mapping[str, Any]) -> None:
        with self._lock:
            self._memory[key] = entry
            self._memory.move_to_end(key)
            while len(self._memory) > self.max_entries:
                self._memory.popitem(last=False)

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, key: str) -> Mapping[str, Any] | None:
        entry = self._stored(key)
        if entry is None:
            return None
        if entry.get("cache_format") != CACHE_FORMAT:
            with self._lock:
                self._outdated_keys.add(key)
            self._outdated()
            return None
        return verdict_part(entry)

    def _stored(self, key: str) -> dict[str, Any] | None:
        """The well-formed entry at the key in whatever cache format it was written, or None."""
        if self.directory is None:
            return None
        path = self._path(key)
        try:
            return _entry_at(path)
        except _UnreadableEntry as exc:
            self._unreadable(path, str(exc))
            return None

    def _unreadable(self, path: Path, why: str) -> None:
        """Said once per cache: a damaged file (a disk fault, a hand edit, a copy cut short) is asked for
        again and paid for, and with no word the bill grew while the cache seemed to work."""
        if not self._unreadable_seen:
            self._unreadable_seen = True
            log.warning(f"the Claude verdict cache {self.directory} holds a file that is no verdict entry "
                        f"({path.relative_to(path.parent.parent)}: {why}): its verdict is asked for again "
                        "and paid for once more (warned once)")

    def _outdated(self) -> None:
        """Said once per cache: after an upgrade the first run pays again for verdicts the directory holds,
        and a bill that grew with no word would read as a cache that stopped working."""
        if not self._outdated_seen:
            self._outdated_seen = True
            log.warning(f"the Claude verdict cache {self.directory} holds verdicts another ragmon wrote "
                        f"(not cache format {CACHE_FORMAT}): they are asked for again, paid for once "
                        "more, rather than trusted, and replaced or removed (warned once)")


class _UnreadableEntry(ValueError):
    """A cache file that holds no verdict entry; its message says why."""


def _entry_at(path: Path) -> dict[str, Any] | None:
    """The well-formed entry in the file, in whatever cache format it was written; None when there is no
    file (or no directory where its shard would be), the plain miss. JSON nested deeper than Python's parser
    goes is as unreadable as JSON cut short: its RecursionError had escaped the judge, a traceback where a
    miss was due."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise _UnreadableEntry(f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _UnreadableEntry("not UTF-8") from None
    except ValueError as exc:
        raise _UnreadableEntry(f"not JSON: {exc}") from None
    except RecursionError:
        raise _UnreadableEntry("JSON nested too deep to read") from None
    valid = (isinstance(entry, dict) and isinstance(entry.get("supported"), bool)
             and isinstance(entry.get("supporting_ids"), list)
             and all(isinstance(i, str) for i in entry["supporting_ids"])
             and isinstance(entry.get("reason"), str | None))
    if not valid:
        raise _UnreadableEntry("not a verdict: no boolean 'supported', list of 'supporting_ids' and 'reason'")
    return entry


def _writable_directory(directory: Path) -> None:
    """Make the directory (parents too) and create and remove a file in it, or raise InputError."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".tmp-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        ancestry = (*reversed(directory.parents), directory)
        # os.path's tests, which take an error for "no": Path.exists raised for a name too long
        # (ENAMETOOLONG), a traceback in place of this message.
        blocker = next((p for p in ancestry if os.path.lexists(p) and not os.path.isdir(p)), None)
        reason = f"{blocker} is not a directory" if blocker is not None else exc.strerror or str(exc)
        raise InputError(f"cannot keep Claude verdicts in this directory: {reason}",
                         source=str(directory)) from None


def verdict_part(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    return {k: entry.get(k) for k in ("supported", "supporting_ids", "reason")}
