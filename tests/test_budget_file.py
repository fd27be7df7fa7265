"""--llm-budget-file: the day's Claude spend survives a restart, and the file is never silently misread."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
from pathlib import Path

import pytest

from ragmon import budget_file
from ragmon.budget import DailyBudget, Prices
from ragmon.budget_file import BudgetFile, DaySpend
from ragmon.errors import InputError

PRICES = Prices(input_per_mtok=1.0, output_per_mtok=5.0)
# A call bounded by 2,000 input and 1,000 output tokens reserves 2,000 x $1/M + 1,000 x $5/M = $0.007.
CALL = (2_000, 1_000)


def budget_on(path: Path, day: int, usd_per_day: float = 0.01) -> DailyBudget:
    """As `ragmon serve` starts it: read, accepted, then written."""
    budget = DailyBudget(usd_per_day, PRICES, lambda: day, record=BudgetFile(path))
    budget.start_record()
    return budget


def test_a_restart_resumes_the_days_spend_counting_calls_left_in_flight_as_spent(tmp_path: Path) -> None:
    path = tmp_path / "spend.json"
    first = budget_on(path, day=100)
    settled = first.reserve(*CALL)
    first.settle(settled, 1_000, 200)  # billed $0.001 + $0.001 = $0.002
    first.reserve(*CALL)  # $0.007 in flight when the process dies: the API may have billed it
    first.close()

    restarted = budget_on(path, day=100)
    assert restarted.spent == pytest.approx(0.009)  # 0.002 + 0.007
    # The 0.007 never billed as far as ragmon knows, apart: a day spent in a crash loop says so.
    assert restarted.resumed == DaySpend(100, pytest.approx(0.009), pytest.approx(0.007))
    assert restarted.carried == pytest.approx(0.007)
    assert not restarted.fits(*CALL)  # 0.009 + 0.007 > 0.01: a fresh process would have let it through
    assert restarted.fits(200, 100)  # 0.009 + 0.0007 = 0.0097
    # Day 100 since 1970-01-01 is 1970-04-11 (31 + 28 + 31 = 90 days to April 1st).
    held = json.loads(path.read_text(encoding="utf-8"))
    assert held == {"what": "ragmon Claude judge spend", "day": "1970-04-11", "usd": pytest.approx(0.009),
                    "unbilled_usd": pytest.approx(0.007)}
    restarted.reserve(200, 100)  # and dies again with $0.0007 in flight: carried over on top
    restarted.close()
    again = budget_on(path, day=100)
    assert again.resumed == DaySpend(100, pytest.approx(0.0097), pytest.approx(0.0077))


def test_a_new_utc_day_starts_afresh_but_a_clock_stepped_back_keeps_the_later_day(tmp_path: Path) -> None:
    path = tmp_path / "spend.json"
    spender = budget_on(path, day=100)
    spender.settle(spender.reserve(*CALL), *CALL)  # $0.007 spent on day 100
    spender.close()

    next_day = budget_on(path, day=101)
    assert next_day.spent == 0.0 and next_day.resumed is None and next_day.fits(*CALL)
    next_day.settle(next_day.reserve(*CALL), *CALL)  # $0.007 on day 101
    next_day.close()

    stepped_back = budget_on(path, day=100)  # NTP moved the clock back over midnight
    assert stepped_back.spent == pytest.approx(0.007) and not stepped_back.fits(*CALL)
    assert stepped_back.resumed == DaySpend(101, pytest.approx(0.007))


def test_a_file_dated_after_tomorrow_is_refused_not_obeyed_until_that_date(tmp_path: Path) -> None:
    """Written under a wrong clock, it would have blocked every call until its date, months away."""
    path = tmp_path / "spend.json"
    path.write_text(json.dumps({"what": "ragmon Claude judge spend", "day": "1970-04-14", "usd": 6.0}),
                    encoding="utf-8")
    with pytest.raises(InputError) as caught:
        budget_on(path, day=100)
    assert str(caught.value) == (f"--llm-budget-file {path} holds the spend of 1970-04-14, later than "
                                 "tomorrow (today is 1970-04-11 UTC): a clock was wrong when it was written; "
                                 "move it away to start today's budget afresh")
    BudgetFile(path).close()  # no lock left behind
    with pytest.raises(InputError, match="holds the spend of 1970-04-14, later than tomorrow"):
        budget_on(path, day=101)  # the day after tomorrow is as wrong a clock as months away
    assert budget_on(path, day=102).spent == 6.0  # the day before it: a clock stepped back, obeyed


def test_a_link_to_the_file_is_followed_not_replaced(tmp_path: Path) -> None:
    """The image's path linked to a volume: the volume's file must get the figures."""
    volume = tmp_path / "volume"
    volume.mkdir()
    link = tmp_path / "spend.json"
    link.symlink_to(volume / "spend.json")
    budget = budget_on(link, day=100)
    budget.settle(budget.reserve(*CALL), *CALL)
    budget.close()
    assert link.is_symlink()
    assert json.loads((volume / "spend.json").read_text(encoding="utf-8"))["usd"] == pytest.approx(0.007)


def test_links_planted_beside_the_file_are_neither_followed_nor_put_in_its_place(tmp_path: Path) -> None:
    """A link at FILE.tmp had its target overwritten with the spend, then moved to FILE's place, every later
    write overwriting the target again; one at FILE.lock is refused."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    path = tmp_path / "spend.json"
    (tmp_path / "spend.json.tmp").symlink_to(victim)
    budget = budget_on(path, day=100)
    budget.settle(budget.reserve(*CALL), *CALL)
    budget.close()
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not path.is_symlink()
    assert json.loads(path.read_text(encoding="utf-8"))["usd"] == pytest.approx(0.007)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spend.json", "spend.json.lock", "spend.json.tmp",
                                                          "victim"]
    locked = tmp_path / "other.json"
    (tmp_path / "other.json.lock").symlink_to(victim)
    with pytest.raises(InputError) as caught:
        BudgetFile(locked)
    assert str(caught.value) == (f"--llm-budget-file {locked}: cannot open its lock file: Too many levels of "
                                 "symbolic links (a symbolic link stands where ragmon's lock file goes: "
                                 "remove it)")
    assert victim.read_text(encoding="utf-8") == "precious\n"


def test_two_links_to_one_file_take_one_lock(tmp_path: Path) -> None:
    """Each link's own lock beside it would have let two sidecars write the one file."""
    target = tmp_path / "volume" / "spend.json"
    links = [tmp_path / name / "spend.json" for name in ("a", "b")]
    for link in links:
        link.parent.mkdir()
        link.symlink_to(target)
    held = BudgetFile(links[0])
    with pytest.raises(InputError, match="is in use by another process"):
        BudgetFile(links[1])
    held.close()


def test_two_processes_cannot_share_one_file(tmp_path: Path) -> None:
    """flock conflicts between two opens of the lock file, in one process as in two."""
    path = tmp_path / "spend.json"
    held = BudgetFile(path)
    with pytest.raises(InputError) as caught:
        BudgetFile(path)
    assert str(caught.value).startswith(f"--llm-budget-file {path} is in use by another process")
    held.close()
    BudgetFile(path).close()  # free once the holder is gone


@pytest.mark.parametrize(("code", "said"), [(errno.ENOLCK, "No locks available"),
                                           (errno.EOPNOTSUPP, "Operation not supported")])
def test_a_file_where_locks_do_not_work_is_told_so_not_as_in_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, said: str) -> None:
    """NFS without its lock daemon, a FUSE mount: every flock failure had been told as a second sidecar
    holding the file, which did not exist."""
    def unsupported(fd: int, operation: int) -> None:
        raise OSError(code, os.strerror(code))

    path = tmp_path / "spend.json"
    monkeypatch.setattr(budget_file.fcntl, "flock", unsupported)
    with pytest.raises(InputError) as caught:
        BudgetFile(path)
    assert str(caught.value) == (f"--llm-budget-file {path}: cannot be locked there ({said}): ragmon locks "
                                 "it so that two sidecars do not each spend the day's budget; give a file on "
                                 "a local disk or volume")


def test_a_file_without_its_day_says_so(tmp_path: Path) -> None:
    # The KeyError's "('day')" had been all the message said.
    path = tmp_path / "spend.json"
    path.write_text('{"what": "ragmon Claude judge spend", "usd": 1}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        budget_on(path, day=100)
    assert str(caught.value).startswith(f"--llm-budget-file {path} is not readable as ragmon wrote it "
                                        '(it gives no "day"): move it away')


def test_the_spend_is_on_the_disk_before_it_takes_the_files_name(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Renamed before its bytes were synced, a host's crash could leave the file empty (XFS), and every
    start after it refused: the new file is synced, then renamed."""
    path = tmp_path / "spend.json"
    done: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        done.append(f"fsync {json.loads(os.pread(fd, 4096, 0))['usd']}")
        real_fsync(fd)

    def replace(source: str, target: Path) -> None:
        done.append(f"replace {Path(target).name}")
        real_replace(source, target)

    monkeypatch.setattr(budget_file.os, "fsync", fsync)
    monkeypatch.setattr(budget_file.os, "replace", replace)
    budget = budget_on(path, day=100)
    assert done == ["fsync 0.0", "replace spend.json"]
    budget.close()


@pytest.mark.parametrize("text", ["", "{not json", '{"day": "1970-04-11", "usd": 0.5}', '[1, 2]',
                                  '{"what": "ragmon Claude judge spend", "day": "April", "usd": 0.5}',
                                  '{"what": "ragmon Claude judge spend", "day": "1970-04-11", "usd": -1}',
                                  '{"what": "ragmon Claude judge spend", "day": "1970-04-11", "usd": "0.5"}',
                                  "[" * 4000])
def test_a_file_ragmon_did_not_write_is_refused_and_left_as_it_is(tmp_path: Path, text: str) -> None:
    """Read as no spend, it would hand out a whole new day; overwritten, someone's file would be gone."""
    path = tmp_path / "spend.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        budget_on(path, day=100)
    assert str(caught.value).startswith(f"--llm-budget-file {path} is not readable as ragmon wrote it (")
    assert str(caught.value).endswith("move it away to start today's budget afresh, knowingly, or give "
                                      "another file")
    assert path.read_text(encoding="utf-8") == text
    BudgetFile(path).close()  # the refused start left no lock behind


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_a_path_that_is_no_regular_file_is_refused_before_anything_is_made_beside_it(
        tmp_path: Path, kind: str) -> None:
    # A FIFO hung the start with no line; /dev/full was read until the host ran out of memory.
    path = tmp_path / "spend"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/full")
    with pytest.raises(InputError) as caught:
        BudgetFile(path)
    assert str(caught.value).startswith(f"--llm-budget-file {path} is not a regular file (")
    assert not path.with_name(path.name + ".lock").exists()


def test_a_file_far_larger_than_ragmon_writes_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "spend.json"
    path.write_bytes(b" " * 5000)
    with pytest.raises(InputError, match=r"is over 4096 bytes, no budget file ragmon wrote"):
        budget_on(path, day=100)


def test_a_file_of_exactly_the_bytes_read_is_read(tmp_path: Path) -> None:
    """4096 bytes is within what is read ("over 4096 bytes" is refused): a figure padded to it still holds."""
    path = tmp_path / "spend.json"
    record = json.dumps({"what": "ragmon Claude judge spend", "day": "1970-04-11", "usd": 0.005})
    path.write_text(record.ljust(4096), encoding="utf-8")
    assert budget_on(path, day=100).spent == 0.005


def test_a_file_that_is_not_utf8_is_refused_with_why(tmp_path: Path) -> None:
    """Not a traceback at start: the file is named, and what could not be read in it."""
    path = tmp_path / "spend.json"
    path.write_bytes(b"\xff{}")
    with pytest.raises(InputError) as caught:
        budget_on(path, day=100)
    assert str(caught.value) == (f"--llm-budget-file {path} cannot be read ('utf-8' codec can't decode byte "
                                 "0xff in position 0: invalid start byte): move it away to start today's "
                                 "budget afresh, knowingly, or give another file")
    assert path.read_bytes() == b"\xff{}"


def test_a_file_in_directories_not_made_yet_is_made_with_them(tmp_path: Path) -> None:
    """`--llm-budget-file /state/ragmon/claude/spend.json` on a fresh volume: every missing directory."""
    path = tmp_path / "ragmon" / "claude" / "spend.json"
    budget = budget_on(path, day=100)
    budget.settle(budget.reserve(*CALL), *CALL)
    budget.close()
    assert json.loads(path.read_text(encoding="utf-8"))["usd"] == pytest.approx(0.007)


def read_only(monkeypatch: pytest.MonkeyPatch, error: int = errno.EROFS) -> None:
    """The temporary file beside FILE cannot be created, as on a read-only volume (or a full disk): the one
    stand-in, as root writes wherever a mode forbids it and no loopback test can fill a disk."""
    def refused(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(budget_file.tempfile, "mkstemp", refused)


def test_a_file_that_cannot_be_written_stops_the_start_and_later_is_warned_of_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "spend.json"
    with monkeypatch.context() as patched:
        read_only(patched)
        # Not kept (`as`): its traceback would hold the refused file, and its lock, past this block.
        with pytest.raises(InputError, match=rf"^--llm-budget-file {re.escape(str(path))} cannot be written: "
                                             "Read-only file system$"):
            budget_on(path, day=100)

    budget = budget_on(path, day=100)
    with monkeypatch.context() as patched, caplog.at_level(logging.WARNING, logger="ragmon.budget_file"):
        read_only(patched)
        first = budget.reserve(*CALL)
        budget.settle(first, *CALL)
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith(f"cannot write --llm-budget-file {path} (Read-only file system)")
    assert budget.spent == pytest.approx(0.007) and not budget.fits(*CALL)  # the cap holds in memory
    budget.settle(budget.reserve(200, 100), 200, 100)  # written again: $0.0077
    budget.close()
    assert json.loads(path.read_text(encoding="utf-8"))["usd"] == pytest.approx(0.0077)


def test_a_write_that_fails_midway_leaves_no_temporary_file_behind(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Each failed write (up to two a call) would leave one more FILE.*.tmp beside FILE: a volume already
    failing filled up with them."""
    path = tmp_path / "spend.json"
    budget = budget_on(path, day=100)
    path.unlink()
    path.mkdir()  # the temporary file is made, then cannot be put in FILE's place
    with caplog.at_level(logging.WARNING, logger="ragmon.budget_file"):
        budget.settle(budget.reserve(*CALL), *CALL)
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith(f"cannot write --llm-budget-file {path} (Is a directory)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spend.json", "spend.json.lock"]
    budget.close()


def test_a_full_disk_at_start_is_warned_of_and_the_day_read_still_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A passing state, as it would be mid-run: exit 2 would have stopped the whole sidecar (and its lexical
    judge) in a crash loop while the day's figure had been read. The one stand-in: no loopback test can fill
    a disk, so the write raises as the kernel would."""
    path = tmp_path / "spend.json"
    path.write_text(json.dumps({"what": "ragmon Claude judge spend", "day": "1970-04-11", "usd": 0.005}),
                    encoding="utf-8")

    read_only(monkeypatch, errno.ENOSPC)
    with caplog.at_level(logging.WARNING, logger="ragmon.budget_file"):
        budget = budget_on(path, day=100)
    assert budget.spent == 0.005 and not budget.fits(*CALL)  # 0.005 + 0.007 > 0.01
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith(f"cannot write --llm-budget-file {path} (No space left on device)")
    budget.close()


def test_a_call_cancelled_as_the_process_stops_is_written_as_unbilled(tmp_path: Path) -> None:
    """SIGTERM with a call hanging: the drain cancelled it and it was written as $0.007 spent (all 3
    attempts, though 1 was sent), the file's `unbilled_usd` and the next start's line not saying so."""
    path = tmp_path / "spend.json"
    first = budget_on(path, day=100)
    hung = first.reserve(3_000, 600)  # 3 attempts of 1,000 in + 200 out: $0.006
    # In flight: all of it committed, and unbilled.
    assert json.loads(path.read_text(encoding="utf-8"))["unbilled_usd"] == pytest.approx(0.006)
    first.settle(hung, 1_000, 200, unbilled=0.002)  # cancelled after 1 attempt: $0.002, never billed
    first.close()
    record = json.loads(path.read_text(encoding="utf-8"))
    assert (record["usd"], record["unbilled_usd"]) == (pytest.approx(0.002), pytest.approx(0.002))
    restarted = budget_on(path, day=100)
    assert restarted.resumed == DaySpend(100, pytest.approx(0.002), pytest.approx(0.002))
    assert restarted.carried == pytest.approx(0.002)
    restarted.close()


def test_a_bill_no_float_holds_leaves_a_file_the_next_start_reads(tmp_path: Path) -> None:
    """A figure of inf would be written `Infinity`, which the next start refuses (not a number of
    dollars): the sidecar would not start again before the file was moved away."""
    path = tmp_path / "spend.json"
    budget = DailyBudget(1e308, Prices(input_per_mtok=1e308, output_per_mtok=1e308), lambda: 100,
                         record=BudgetFile(path))
    budget.start_record()
    # 10**6 tokens at $1e308 a million: no float holds the bill; it takes what is left of the day, all of it.
    assert budget.charge(10**6, 10**6) == 1e308
    assert budget.charge(10**6, 0) == 0.0  # nothing left
    budget.close()
    restarted = DailyBudget(1e308, PRICES, lambda: 100, record=BudgetFile(path))
    assert restarted.spent == 1e308
    restarted.close()
    restarted.close()


def test_links_in_a_loop_or_a_file_where_its_folder_goes_are_refused_by_name(tmp_path: Path) -> None:
    """A loop of links had stopped `ragmon serve` with a traceback (Path.resolve's RuntimeError), and a file
    where the budget file's folder goes was told as "cannot open its lock file: File exists"."""
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    told = {}
    for path in (tmp_path / "loop1", tmp_path / "loop1" / "spend.json", tmp_path / "afile" / "spend.json"):
        with pytest.raises(InputError) as caught:
            BudgetFile(path)
        told[path.relative_to(tmp_path).as_posix()] = str(caught.value)
    loop = "cannot be used: its symbolic links form a loop"
    assert told == {"loop1": f"--llm-budget-file {tmp_path / 'loop1'}: {loop}",
                    "loop1/spend.json": f"--llm-budget-file {tmp_path / 'loop1' / 'spend.json'}: {loop}",
                    "afile/spend.json": f"--llm-budget-file {tmp_path / 'afile' / 'spend.json'}: cannot be "
                                        f"written: {tmp_path / 'afile'} is a file, not a directory"}
