"""ragmon.capture: what a captured line holds, which examples are taken, the bounded file, and I/O errors.

The file is read back with ragmon.datasets, the loader `ragmon replay` uses, so "golden candidate" means
exactly what replay will see. Counts are read from the exporter's registry through prometheus_client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import prometheus_client
import pytest

from ragmon import datasets
from ragmon.capture import ALL, CaptureWriter, encode, record, threshold
from ragmon.cli import build_parser
from ragmon.errors import InputError
from ragmon.exporter import Exporter
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult
from ragmon.scrape import parse, total
from ragmon.serve_config import ServeConfig

CAPTURED_AT = datetime(2025, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SETTINGS = {"threshold": 0.7}


def result(example: Example, groundedness: float | None, unsupported: tuple[str, ...] = ()) -> ExampleResult:
    verdicts = tuple(ClaimVerdict(Claim(text, 0, len(text)), False) for text in unsupported)
    return ExampleResult(example, "lexical", {"groundedness": groundedness}, verdicts)


def plain(example_id: str, groundedness: float | None) -> ExampleResult:
    return result(Example(example_id, "q?", (Context("d", "x"),), "a."), groundedness)


def writer(path: Path, exporter: Exporter, *, below: float = ALL, max_bytes: int = 1 << 20,
           max_pending: int = 1000) -> CaptureWriter:
    return CaptureWriter(path, below=below, max_bytes=max_bytes, count=exporter.captured,
                         judge_settings=SETTINGS, clock=lambda: CAPTURED_AT, max_pending=max_pending)


def captured(exporter: Exporter, outcome: str) -> float:
    samples = parse(prometheus_client.generate_latest(exporter.registry).decode())
    return total(samples, "ragmon_captured_total", outcome=outcome)


def ids(path: Path) -> list[str]:
    return [example.id for example in datasets.load([path])]


async def test_a_captured_line_loads_back_into_the_same_example_with_review_metadata(tmp_path: Path) -> None:
    path = tmp_path / "worst.jsonl"
    example = Example(
        id=TRACE_ID, question="Wie lange gilt die Garantie?\n(zweite Zeile)",
        contexts=(Context("kb-1", "Die Garantie gilt 2 Jahre.", 0.8125), Context("kb-2", "Versand: 5 Tage.")),
        answer="Die Garantie gilt 2 Jahre. Sie deckt Schäden auf dem Mond.", relevant_ids=frozenset({"kb-1"}),
        citations=("kb-1", "kb-9"), ground_truth="2 Jahre", category="warranty", pipeline="shop")
    unknowns = Example(id="5" * 32, question="q?")          # every optional field unknown (None)
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter)
    await capture.start()
    capture.offer(result(example, 0.5, ("Sie deckt Schäden auf dem Mond.",)), TRACE_ID, "shop")
    capture.offer(result(unknowns, None), unknowns.id, "shop")
    await capture.close()

    loaded = list(datasets.load([path]))
    assert loaded == [example, unknowns]     # Example equality covers every field but `extra`
    assert dict(loaded[0].extra) == {
        "metadata": {"trace_id": TRACE_ID, "judge": "lexical", "judge_settings": {"threshold": 0.7},
                     "groundedness": 0.5,
                     "unsupported": ["Sie deckt Schäden auf dem Mond."],
                     "captured_at": "2025-01-02T03:04:05.678Z"},
        "needs_review": True}
    assert loaded[1].extra["metadata"]["groundedness"] is None
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2                                  # the newline in the question stays escaped
    assert set(json.loads(lines[1])) == {"id", "question", "metadata", "needs_review"}
    assert captured(exporter, "written") == 2


async def test_a_new_capture_file_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    """It holds users' questions and retrieved documents: a umask of 022 must not make it world-readable.
    A file that already exists keeps the mode its owner gave it."""
    fresh, kept = tmp_path / "fresh.jsonl", tmp_path / "kept.jsonl"
    kept.touch(mode=0o640)
    kept.chmod(0o640)
    previous = os.umask(0o022)
    try:
        for path in (fresh, kept):
            capture = writer(path, Exporter(window=60, capture=True))
            await capture.start()
            capture.offer(plain("t1", 0.0), "t1", "shop")
            await capture.close()
    finally:
        os.umask(previous)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert ids(fresh) == ids(kept) == ["t1"]


async def test_a_lone_surrogate_or_a_nan_score_still_gives_a_strict_json_line(tmp_path: Path) -> None:
    """`ragmon.contexts` is JSON text inside an attribute: `json.loads` turns its "\\ud800" escape into a
    lone surrogate (no UTF-8 form) and its `NaN` into a float that JSON has no spelling for. Both reach
    the example; capturing it must neither raise (the caller is the service's scoring task) nor write a
    line that strict JSON readers refuse."""
    path = tmp_path / "worst.jsonl"
    contexts = (Context("kb-1", "x\udfffy", math.nan), Context("kb-2", "z", math.inf))
    example = Example(TRACE_ID, "q\ud800?", contexts, "a.")
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter)
    await capture.start()
    capture.offer(result(example, 0.0, ("a\ud800.",)), TRACE_ID, "shop")
    await capture.close()

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    line = path.read_bytes().decode("utf-8")                # strict UTF-8: no surrogate got through
    doc = json.loads(line, parse_constant=no_constants)
    # Each lone surrogate becomes one U+FFFD; a score that is no number is unknown (null).
    assert doc["question"] == "q\ufffd?" and doc["metadata"]["unsupported"] == ["a\ufffd."]
    assert doc["contexts"] == [{"id": "kb-1", "text": "x\ufffdy", "score": None},
                               {"id": "kb-2", "text": "z", "score": None}]
    assert ids(path) == [TRACE_ID] and captured(exporter, "written") == 1


async def test_only_examples_below_the_threshold_are_captured(tmp_path: Path) -> None:
    scores = {"g025": 0.25, "g050": 0.5, "g075": 0.75, "g100": 1.0, "none": None}
    # groundedness < G, by hand; undefined groundedness is below nothing, only `all` takes it.
    expected = {0.5: ["g025"], 1.0: ["g025", "g050", "g075"], ALL: list(scores), 0.0: []}
    for below, wanted in expected.items():
        path = tmp_path / f"below-{below}.jsonl"
        capture = writer(path, Exporter(window=60, capture=True), below=below)
        await capture.start()
        for example_id, groundedness in scores.items():
            capture.offer(plain(example_id, groundedness), example_id, "shop")
        await capture.close()
        assert (ids(path) if path.stat().st_size else []) == wanted, below


async def test_the_file_rotates_to_one_older_generation_at_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "worst.jsonl"
    size = len(encode(record(plain("t1", 0.0), "t1", CAPTURED_AT, SETTINGS)))  # every tN line is as long
    bound = 2 * size + size // 2                                      # two lines fit, a third does not
    exporter = Exporter(window=60, capture=True)
    first = writer(path, exporter, max_bytes=bound)
    await first.start()
    first.offer(plain("t1", 0.0), "t1", "shop")
    await first.close()
    # A restart appends, and what the earlier run wrote counts towards the bound.
    second = writer(path, exporter, max_bytes=bound)
    await second.start()
    for n in range(2, 6):
        second.offer(plain(f"t{n}", 0.0), f"t{n}", "shop")
    await second.close()

    # t1 t2 | t3 arrives: rotate (t1 t2 -> .1) | t3 t4 | t5 arrives: rotate (t3 t4 replace t1 t2).
    assert ids(path) == ["t5"]
    assert ids(tmp_path / "worst.jsonl.1") == ["t3", "t4"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["worst.jsonl", "worst.jsonl.1"]
    assert (tmp_path / "worst.jsonl.1").stat().st_size == 2 * size <= bound
    assert captured(exporter, "written") == 5


async def test_a_file_taken_away_for_review_is_started_afresh(tmp_path: Path) -> None:
    """A reviewer moves (or deletes) FILE while the sidecar runs: later lines must go to a new FILE, not
    on into the moved file or, after `rm`, an unlinked inode where they are counted written and lost."""
    path = tmp_path / "worst.jsonl"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter)
    await capture.start()
    capture.offer(plain("t1", 0.0), "t1", "shop")
    for _ in range(200):                                   # poll (deadline 2 s) until the flusher wrote t1
        if path.stat().st_size:
            break
        await asyncio.sleep(0.01)
    path.rename(tmp_path / "review.jsonl")
    capture.offer(plain("t2", 0.0), "t2", "shop")
    await capture.close()
    assert ids(tmp_path / "review.jsonl") == ["t1"] and ids(path) == ["t2"]
    assert captured(exporter, "written") == 2


async def test_a_line_longer_than_the_bound_and_a_backlog_are_dropped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "worst.jsonl"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter, max_bytes=1000, max_pending=2)
    await capture.start()
    huge = result(Example("big", "q?", (Context("d", "x" * 1001),), "a."), 0.0)
    capture.offer(huge, "big", "shop")                       # its context alone is over the 1000 bytes
    # offer() never yields to the loop, so the flusher cannot run between these: 2 queue, 2 overflow.
    for n in range(4):
        capture.offer(plain(f"t{n}", 0.0), f"t{n}", "shop")
    await capture.close()
    assert ids(path) == ["t0", "t1"]
    assert {o: captured(exporter, o) for o in ("written", "too_large", "backlog", "error")} == {
        "written": 2, "too_large": 1, "backlog": 2, "error": 0}


async def test_a_backlog_is_logged_once_per_batch_with_the_number_dropped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An on-call user who finds no line for a trace id learns why from the log, not only a counter."""
    exporter = Exporter(window=60, capture=True)
    capture = writer(tmp_path / "worst.jsonl", exporter, max_pending=2)
    await capture.start()
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        # As above, the flusher cannot run between these offers: 2 are queued, the other 3 dropped.
        for n in range(5):
            capture.offer(plain(f"t{n}", 0.0), f"t{n}", "shop")
        await capture.close()
    assert [(r.getMessage(), r.__dict__.get("count")) for r in caplog.records] == [
        ("capture file fell behind; examples lost", 3)]
    assert captured(exporter, "backlog") == 3


async def test_a_full_disk_is_counted_as_error_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    exporter = Exporter(window=60, capture=True)
    capture = writer(Path("/dev/full"), exporter)            # every write fails with ENOSPC
    await capture.start()
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        capture.offer(plain("t1", 0.0), "t1", "shop")
        capture.offer(plain("t2", 0.0), "t2", "shop")
        await capture.close()
    assert captured(exporter, "error") == 2 and captured(exporter, "written") == 0
    assert [r.getMessage() for r in caplog.records] == ["cannot write the capture file; examples lost"]


# The file size limit makes the kernel write part of a line, then refuse the rest (EFBIG), as a full
# disk does. Python ignores SIGXFSZ, so the write just fails. Then the limit is lifted and one more
# line is written. The limit is set inside a subprocess, so it cannot affect the test run.
PARTIAL_WRITE = """
import resource, sys
from pathlib import Path
from ragmon.capture import RotatingFile
path, limit, lines = Path(sys.argv[1]), int(sys.argv[2]), [a.encode() for a in sys.argv[3:]]
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
file = RotatingFile(path, 1 << 20)
done, error = file.write(lines[:3])
print(done, error.errno if error else None)
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
print(*file.write(lines[3:]))
"""


def test_a_partly_written_line_is_cut_off_so_the_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "worst.jsonl"
    lines = [encode(record(plain(f"t{n}", 0.0), f"t{n}", CAPTURED_AT, SETTINGS)).decode()
             for n in range(1, 5)]
    limit = 2 * len(lines[0]) + 10                 # t1 and t2 fit, 10 bytes of t3 get in
    run = subprocess.run([sys.executable, "-c", PARTIAL_WRITE, str(path), str(limit), *lines],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["2 27", "1 None"]        # 27 = EFBIG on Linux
    assert ids(path) == ["t1", "t2", "t4"]


async def test_an_unwritable_capture_path_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "worst.jsonl"
    with pytest.raises(InputError, match=rf"^{missing}: cannot write the capture file: No such file"):
        await writer(missing, Exporter(window=60)).start()


def test_flags_and_environment() -> None:
    args = build_parser("serve", {"RAGMON_CAPTURE_BELOW": "all"}).parse_args(
        ["serve", "--capture", "/data/worst.jsonl", "--capture-max-bytes", "1MiB"])
    config = ServeConfig.from_args(args)
    assert (config.capture, config.capture_below, config.capture_max_bytes) == (
        Path("/data/worst.jsonl"), ALL, 1 << 20)
    defaults = ServeConfig.from_args(build_parser("serve", {}).parse_args(["serve"]))
    assert (defaults.capture, defaults.capture_below, defaults.capture_max_bytes) == (None, 0.5, 64 << 20)
    assert threshold(" ALL ") == ALL and threshold("0.25") == 0.25
    for bad in ("1.5", "-0.1", "most"):
        with pytest.raises(argparse.ArgumentTypeError):
            threshold(bad)


def test_capture_series_exist_at_zero_only_when_capture_is_on() -> None:
    def outcomes(exporter: Exporter) -> dict[str, float]:
        samples = parse(prometheus_client.generate_latest(exporter.registry).decode())
        return {dict(ls)["outcome"]: value for (name, ls), value in samples.items()
                if name == "ragmon_captured_total"}

    on, off = Exporter(window=60, capture=True), Exporter(window=60)
    on.pipeline_label("shop")
    off.pipeline_label("shop")
    assert outcomes(on) == {"written": 0, "too_large": 0, "backlog": 0, "error": 0}
    assert outcomes(off) == {}
