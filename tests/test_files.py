"""Reports replaced whole: what a path holds while a report is written over it, and after."""

from __future__ import annotations

import builtins
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragmon.files
from ragmon.files import LEFT_GRACE, holds_one_report, write_report, written_whole


def _cut_short() -> Iterator[str]:
    """A report's pieces, the run killed (here: an exception) after the first of them reached the file."""
    yield '{"report_format": 1, "passed": '
    raise KeyboardInterrupt


def test_a_write_cut_short_leaves_the_file_it_was_replacing_whole(tmp_path: Path) -> None:
    # Written in place, the file was truncated at once: a run killed mid-write left `{"report_format": 1,
    # "passed": ` (or nothing), which a publishing step failed to parse.
    report = tmp_path / "r.json"
    report.write_text('{"complete": false}\n', encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        written_whole(report, _cut_short())
    assert report.read_text(encoding="utf-8") == '{"complete": false}\n'
    assert os.listdir(tmp_path) == ["r.json"]  # the half-written file is gone with the write


def test_the_file_replaced_keeps_its_mode_and_a_link_keeps_pointing_at_it(tmp_path: Path) -> None:
    report = tmp_path / "reports" / "r.json"
    report.parent.mkdir()
    report.write_text("old\n", encoding="utf-8")
    report.chmod(0o640)
    link = tmp_path / "latest.json"
    link.symlink_to(report)
    assert written_whole(link, ["new", "\n"])
    assert link.is_symlink() and report.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert sorted(os.listdir(report.parent)) == ["r.json"]


def test_a_new_file_gets_the_mode_open_gives_it(tmp_path: Path) -> None:
    before = os.umask(0o027)
    try:
        assert written_whole(tmp_path / "r.md", ["## ragmon replay\n"])
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "r.md").stat().st_mode) == 0o640  # 0o666 less the umask


def test_a_pipe_or_a_device_is_left_to_be_written_in_place(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    assert not written_whole(tmp_path / "fifo", ["x"])
    assert not written_whole(Path(os.devnull), ["x"])
    assert stat.S_ISFIFO((tmp_path / "fifo").stat().st_mode)
    paths = (tmp_path / "fifo", Path(os.devnull), tmp_path / "none-yet.json", tmp_path)
    assert [holds_one_report(path) for path in paths] == [False, False, True, False]


def test_a_file_no_new_file_may_be_made_beside_is_left_to_be_written_in_place(tmp_path: Path) -> None:
    # A name of 250 bytes leaves no room for the hidden file's (".<name>.<8 hex>.tmp" is 264 of the 255 a
    # name may have): the report is written in place, as before, not refused. So is one in a directory the
    # user may not make files in (not shown here: root makes files anywhere).
    report = tmp_path / ("r" * 245 + ".json")
    report.write_text("old\n", encoding="utf-8")
    assert not written_whole(report, ["new\n"])
    assert report.read_text(encoding="utf-8") == "old\n" and os.listdir(tmp_path) == [report.name]


def _left(directory: Path, name: str, age: float) -> Path:
    left = directory / name
    left.write_text('{"report_format": 1, "pas', encoding="utf-8")
    os.utime(left, (time.time() - age, time.time() - age))
    return left


def test_what_killed_writes_left_is_removed_by_the_next_write_unless_live(tmp_path: Path) -> None:
    # A run killed while writing its 60 MB JSON report left 60 MB hidden beside it, for good: one more file
    # each time. A write in progress holds a lock on its file: here, as if another run were writing r.json.
    (tmp_path / "r.json").write_text("old\n", encoding="utf-8")
    dead = _left(tmp_path, ".r.json.0123abcd.tmp", 60)
    live = _left(tmp_path, ".r.json.89abcdef.tmp", 60)
    # Its writer may not have locked it yet.
    just_made = _left(tmp_path, ".r.json.00ff00ff.tmp", LEFT_GRACE / 2)
    kept = [_left(tmp_path, name, 60) for name in (".r.json.notes.tmp", ".r.json.0123abcd.tmp.bak",
                                                     ".q.json.0123abcd.tmp", ".r.json.0123ABCD.tmp")]
    holder = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        write_report(tmp_path / "r.json", ["new\n"])
    finally:
        os.close(holder)
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == "new\n"
    assert not dead.exists()
    left = sorted(["r.json", live.name, just_made.name, *(p.name for p in kept)])
    assert sorted(os.listdir(tmp_path)) == left


def test_a_file_of_two_names_is_written_in_place_so_both_hold_the_new_report(tmp_path: Path) -> None:
    # Renamed over one name, the hard link's other name kept the old report.
    report = tmp_path / "r.md"
    report.write_text("old\n", encoding="utf-8")
    os.link(report, tmp_path / "latest.md")
    assert not written_whole(report, ["new\n"])
    write_report(report, ["new\n"])
    assert [p.read_text(encoding="utf-8") for p in (report, tmp_path / "latest.md")] == ["new\n", "new\n"]
    assert sorted(os.listdir(tmp_path)) == ["latest.md", "r.md"]


def test_a_write_in_progress_is_not_taken_for_a_dead_ones(tmp_path: Path) -> None:
    # Another run writes the same report while this one's write, a minute old, is half done.
    report = tmp_path / "r.json"

    def slow() -> Iterator[str]:
        yield "first "
        (writing,) = tmp_path.glob(".r.json.*.tmp")
        os.utime(writing, (time.time() - 60, time.time() - 60))
        write_report(report, ["second\n"])
        yield "whole\n"

    write_report(report, slow())
    assert report.read_text(encoding="utf-8") == "first whole\n" and os.listdir(tmp_path) == ["r.json"]


def test_a_filesystem_without_locks_gets_its_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # NFS without its lock daemon answers flock with ENOLCK: the report had been lost ("cannot write report:
    # No locks available") for a lock nobody else could want on a file just made.
    def no_locks(descriptor: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    (tmp_path / "r.json").write_text("old\n", encoding="utf-8")
    write_report(tmp_path / "r.json", ["new\n"])
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == "new\n" and os.listdir(tmp_path) == ["r.json"]


def test_an_error_told_at_close_leaves_the_old_report(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # NFS tells a write-back error (EDQUOT, EIO) at close: renamed before it, a cut file had replaced the
    # report while the run said it could not write it.
    def failing_at_close(*args: Any, **kwargs: Any) -> Any:
        handle = builtins.open(*args, **kwargs)  # noqa: SIM115 (closed by Closing)

        class Closing:
            def __enter__(self) -> Any:
                return handle

            def __exit__(self, *raised: object) -> None:
                handle.close()
                raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))

        return Closing()

    monkeypatch.setattr(ragmon.files, "open", failing_at_close, raising=False)
    (tmp_path / "r.json").write_text("old\n", encoding="utf-8")
    with pytest.raises(OSError, match="quota"):
        written_whole(tmp_path / "r.json", ["new\n"])
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == "old\n" and os.listdir(tmp_path) == ["r.json"]
