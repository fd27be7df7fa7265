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
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import prometheus_client
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from polling import wait_metrics

from ragmon import capture as capture_module
from ragmon import datasets
from ragmon.capture import ALL, CaptureWriter, encode, record, threshold
from ragmon.cli import build_parser, main
from ragmon.datasets import reader
from ragmon.errors import InputError
from ragmon.exporter import Exporter
from ragmon.logs import JsonFormatter, TextFormatter
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult
from ragmon.rules import SCORING_RULES
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar

CAPTURED_AT = datetime(2025, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SETTINGS = {"threshold": 0.7}
GONE = ("capture rotation replaced the previous rotated file, and the examples it held are gone: collect it "
        "more often, or raise --capture-max-bytes")
"""The warning of a rotation that replaced a FILE.1 holding captured examples; and of one holding none."""
NONE_OF_OURS = ("capture rotation replaced the previous rotated file, which held no captured examples: what "
                "else it held is gone; keep files of your own elsewhere")


@pytest.fixture(autouse=True)
def files_of_the_owner_alone() -> Iterator[None]:
    """Files the tests write beside the capture file are the sidecar's user's own (umask 077), as a capture
    file ragmon made is: one others may read is warned of, and the tests that want it set its mode."""
    previous = os.umask(0o077)
    yield
    os.umask(previous)


def result(example: Example, groundedness: float | None, unsupported: tuple[str, ...] = ()) -> ExampleResult:
    verdicts = tuple(ClaimVerdict(Claim(text, 0, len(text)), False) for text in unsupported)
    return ExampleResult(example, "lexical", {"groundedness": groundedness}, verdicts)


def plain(example_id: str, groundedness: float | None) -> ExampleResult:
    return result(Example(example_id, "q?", (Context("d", "x"),), "a."), groundedness)


def writer(path: Path, exporter: Exporter, *, below: float = ALL, max_bytes: int = 1 << 20,
           max_pending: int = 1000, k: int | None = None) -> CaptureWriter:
    return CaptureWriter(path, below=below, max_bytes=max_bytes, count=exporter.captured,
                         lost=exporter.capture_lost, judge_settings=SETTINGS, k=k, clock=lambda: CAPTURED_AT,
                         max_pending=max_pending)


def captured(exporter: Exporter, outcome: str) -> float:
    samples = parse(prometheus_client.generate_latest(exporter.registry).decode())
    return total(samples, "ragmon_captured_total", outcome=outcome)


def lost_count(exporter: Exporter) -> float:
    samples = parse(prometheus_client.generate_latest(exporter.registry).decode())
    return total(samples, "ragmon_capture_lost_total")


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
    capture = writer(path, exporter, k=3)
    await capture.start()
    capture.offer(result(example, 0.5, ("Sie deckt Schäden auf dem Mond.",)), TRACE_ID, "shop")
    capture.offer(result(unknowns, None), unknowns.id, "shop")
    await capture.close()

    loaded = list(datasets.load([path]))
    assert loaded == [example, unknowns]     # Example equality covers every field but `extra`
    assert dict(loaded[0].extra) == {
        # The sidecar's --k and threshold: replayed at others, the figures differ (replay says so).
        "metadata": {"trace_id": TRACE_ID, "pipeline_label": "shop", "k": 3, "judge": "lexical",
                     "judge_settings": {"threshold": 0.7}, "scoring_rules": SCORING_RULES,
                     "groundedness": 0.5,
                     "unsupported": ["Sie deckt Schäden auf dem Mond."],
                     "captured_at": "2025-01-02T03:04:05.678Z"},
        "needs_review": True}
    assert loaded[1].extra["metadata"]["groundedness"] is None
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2                                  # the newline in the question stays escaped
    assert set(json.loads(lines[1])) == {"id", "question", "metadata", "needs_review"}
    assert captured(exporter, "written") == 2


async def test_a_new_capture_file_is_readable_by_its_owner_alone(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """It holds users' questions and retrieved documents: a umask of 022 must not make it world-readable.
    A file that already exists keeps the mode its owner gave it, and one others may read is warned of:
    it had been appended to without a word."""
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
    assert [r.getMessage() for r in caplog.records if r.name == "ragmon.capture"] == [
        f"the capture file {kept} can be read or written by users other than its owner (mode 0640): the "
        "answers captured are production text; chmod 600 it"]


async def test_a_link_planted_where_the_lock_file_goes_is_refused_not_followed(tmp_path: Path) -> None:
    """A link at FILE.lock had its target truncated and overwritten with the holder's pid and host."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    path = tmp_path / "worst.jsonl"
    (tmp_path / "worst.jsonl.lock").symlink_to(victim)
    with pytest.raises(InputError) as error:
        await writer(path, Exporter(window=60, capture=True)).start()
    assert str(error.value).endswith("Too many levels of symbolic links (a symbolic link stands where "
                                     "ragmon's lock file goes: remove it)")
    assert victim.read_text(encoding="utf-8") == "precious\n"


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


async def test_the_start_line_gives_the_threshold_as_the_flag_takes_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`--capture-below all` was logged `below=inf`, and in a JSON line `"below": Infinity`, which no
    strict JSON parser (jq, a log pipeline's) reads."""
    caplog.set_level(logging.INFO, logger="ragmon.capture")
    for below in (ALL, 1.0):
        capture = writer(tmp_path / f"below-{below}.jsonl", Exporter(window=60, capture=True), below=below)
        await capture.start()
        await capture.close()
    started = [r for r in caplog.records if r.getMessage() == "capturing examples"]
    assert [TextFormatter().format(r).split(" below=")[1].split()[0] for r in started] == ["all", "1.0"]

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    assert [json.loads(JsonFormatter().format(r), parse_constant=refuse)["below"] for r in started] == [
        "all", 1.0]


async def test_the_file_rotates_to_one_older_generation_at_the_bound(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ragmon.capture")
    path = tmp_path / "worst.jsonl"
    size = len(encode(record(plain("t1", 0.0), "t1", CAPTURED_AT, SETTINGS, "shop")))  # each tN's as long
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
    # And the lock that keeps a second sidecar off the file.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["worst.jsonl", "worst.jsonl.1", "worst.jsonl.lock"]
    assert (tmp_path / "worst.jsonl.1").stat().st_size == 2 * size <= bound
    assert captured(exporter, "written") == 5
    # The second rotation's loss of t1 (read at start) and t2, counted as written, is counted and said.
    assert lost_count(exporter) == 2
    lost = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [(r.getMessage(), r.path, r.bytes) for r in lost] == [  # type: ignore[attr-defined]
        (GONE, str(tmp_path / "worst.jsonl.1"), 2 * size)]


async def test_examples_a_rotation_replaces_unread_are_counted_lost(tmp_path: Path) -> None:
    """Lines counted `written` and then gone with the FILE.1 a rotation replaced: an operator alerts on
    the counter, not on a log line. Across a restart too: a FILE.1 the run found at start."""
    path = tmp_path / "worst.jsonl"
    bound = 3 * line_size() + line_size() // 2                            # three lines fit, a fourth does not
    first = Exporter(window=60, capture=True)
    await run_writer(path, first, ["t1", "t2", "t3", "t4"], bound)
    # t1 t2 t3 | t4 rotates with no FILE.1 yet: FILE.1 [t1 t2 t3], FILE [t4], nothing lost.
    assert lost_count(first) == 0
    second = Exporter(window=60, capture=True)
    await run_writer(path, second, ["t5", "t6", "t7", "t8", "t9", "t10"], bound)
    # FILE [t4 t5 t6] | t7 rotates: FILE.1 [t4 t5 t6] replaces [t1 t2 t3], 3 lost | FILE [t7 t8 t9] | t10
    # rotates: FILE.1 [t7 t8 t9] replaces [t4 t5 t6] (t4 read at start), 3 more lost. 6 in all.
    assert ids(tmp_path / "worst.jsonl.1") == ["t7", "t8", "t9"] and ids(path) == ["t10"]
    assert (captured(second, "written"), lost_count(second)) == (6, 6)


async def rotated_once(tmp_path: Path) -> tuple[Exporter, CaptureWriter]:
    """A capture FILE of two lines, t1 t2 t3 written: t3 rotated, FILE.1 holds [t1 t2], FILE [t3]."""
    exporter = Exporter(window=60, capture=True)
    capture = writer(tmp_path / "worst.jsonl", exporter, max_bytes=2 * line_size() + line_size() // 2)
    await capture.start()
    for trace_id in ("t1", "t2", "t3"):
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 3)
    return exporter, capture


@pytest.mark.parametrize("collect", ["removed", "emptied"])
async def test_a_rotated_file_collected_before_the_next_rotation_is_no_loss(tmp_path: Path,
                                                                         collect: str) -> None:
    """A reviewer who took FILE.1 (moved or deleted it, or copied it and emptied it in place) has its
    lines: replacing what is left of it loses nothing. The next FILE.1, left there, is lost again."""
    rotated = tmp_path / "worst.jsonl.1"
    exporter, capture = await rotated_once(tmp_path)
    if collect == "removed":
        rotated.unlink()
    else:
        os.truncate(rotated, 0)
    for trace_id in ("t4", "t5"):                                 # FILE [t3 t4] | t5 rotates: nothing lost
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 5)
    assert lost_count(exporter) == 0 and ids(rotated) == ["t3", "t4"]
    for trace_id in ("t6", "t7"):                                 # FILE [t5 t6] | t7 replaces [t3 t4]
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await capture.close()
    assert ids(rotated) == ["t5", "t6"] and lost_count(exporter) == 2


def save(path: Path, data: bytes, *, in_place: bool) -> None:
    """A reviewer's tool saving a capture file: over the file itself, or into a new file renamed over it,
    as editors and `sed -i` do."""
    if in_place:
        path.write_bytes(data)
    else:
        (path.parent / "saved.tmp").write_bytes(data)
        (path.parent / "saved.tmp").replace(path)


def cut_first_line(path: Path, *, in_place: bool) -> None:
    """A reviewer takes the first example into a golden set and deletes its line (`sed -i 1d`)."""
    save(path, path.read_bytes().split(b"\n", 1)[1], in_place=in_place)


@pytest.mark.parametrize(("edit", "lost", "said"), [("cut in place", 1, GONE), ("cut, renamed over", 1, GONE),
                                                    ("another file", 0, NONE_OF_OURS)])
async def test_lines_taken_out_of_a_rotated_file_first_are_not_counted_lost(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, edit: str, lost: int, said: str) -> None:
    """A reviewer took t1's line out of FILE.1, or moved FILE.1 away and left a file of their own there:
    the rotation that replaces it loses only the captured lines still in it. Counted from the ids
    remembered for FILE.1, each collected line was a false alarm on a counter operators alert on. The
    warning says examples are gone only when some were: of the reviewer's notes it had said so too."""
    caplog.set_level(logging.WARNING, logger="ragmon.capture")
    rotated = tmp_path / "worst.jsonl.1"
    exporter, capture = await rotated_once(tmp_path)
    if edit == "another file":
        rotated.rename(tmp_path / "collected.jsonl")
        rotated.write_text("reviewer notes\n")
    else:
        cut_first_line(rotated, in_place=edit == "cut in place")  # FILE.1 [t2]
    for trace_id in ("t4", "t5"):            # FILE [t3 t4] | t5 rotates, replacing [t2] or the notes
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await capture.close()
    assert ids(rotated) == ["t3", "t4"] and lost_count(exporter) == lost
    assert [(r.getMessage(), r.count) for r in caplog.records] == [(said, lost)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("in_place", [True, False], ids=["in-place", "renamed-over"])
async def test_traces_left_in_a_file_edited_while_capturing_are_still_held(tmp_path: Path,
                                                                          in_place: bool) -> None:
    """A reviewer cut t1's line out of FILE while the sidecar ran. Finding another FILE (or a shorter
    one), the writer forgot the ids of the lines left in it: t2 sent again was written a second time,
    and `ragmon replay` refused the files ("duplicate example id"); and t2, replaced with that FILE once
    it was FILE.1, was not counted lost."""
    path, rotated = tmp_path / "worst.jsonl", tmp_path / "worst.jsonl.1"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter, max_bytes=2 * line_size() + line_size() // 2)   # two lines fit
    await capture.start()
    for trace_id in ("t1", "t2"):
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 2)                               # FILE [t1 t2]
    cut_first_line(path, in_place=in_place)                       # FILE [t2]
    capture.offer(plain("t3", 0.0), "t3", "shop")                 # the next write finds it: FILE [t2 t3]
    await wait_written(exporter, 3)
    for trace_id in ("t2", "t1"):   # t2 is in FILE: a duplicate; t1's line is gone: written, and rotates
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")     # FILE.1 [t2 t3], FILE [t1]
    await wait_written(exporter, 4)
    for trace_id in ("t4", "t5"):                 # FILE [t1 t4] | t5 rotates, replacing [t2 t3]: 2 lost
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await capture.close()
    assert [example.id for example in datasets.load([rotated, path])] == ["t1", "t4", "t5"]
    assert (captured(exporter, "written"), captured(exporter, "duplicate"), lost_count(exporter)) == (6, 1, 2)


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
    assert {o: captured(exporter, o) for o in ("written", "duplicate", "too_large", "backlog", "error")} == {
        "written": 2, "duplicate": 0, "too_large": 1, "backlog": 2, "error": 0}


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


async def test_a_full_disk_is_logged_once_a_minute_not_once_a_batch(caplog: pytest.LogCaptureFixture) -> None:
    # 20 examples, each its own batch (the flusher runs between offers): 20 lines had said the same. The 19
    # lost after the first line are said at the close, as no scrape counts them once the sidecar stops:
    # before, they were in no line at all.
    exporter = Exporter(window=60, capture=True)
    capture = writer(Path("/dev/full"), exporter)
    await capture.start()
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        for n in range(20):
            capture.offer(plain(f"t{n}", 0.0), f"t{n}", "shop")
            await asyncio.sleep(0.01)
        await capture.close()
    assert captured(exporter, "error") == 20
    assert [(r.getMessage(), r.__dict__.get("count")) for r in caplog.records] == [
        ("cannot write the capture file; examples lost", 1),
        ("cannot write the capture file; examples lost", 19)]


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
print(len(done), error.errno if error else None)
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
done, error = file.write(lines[3:])
print(len(done), error)
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
    with pytest.raises(InputError) as error:
        await writer(missing, Exporter(window=60)).start()
    assert str(error.value) == (f"{missing}: cannot write the capture file (--capture): the directory "
                                f"{missing.parent} "
                                "does not exist (ragmon makes none: mount the volume meant for the capture "
                                "there, or make it)")
    assert not missing.parent.exists()


def test_serve_into_a_capture_directory_that_does_not_exist_names_it(tmp_path: Path) -> None:
    # Before: "cannot write the capture file: No such file or directory", as if the file had to exist.
    run = subprocess.run([sys.executable, "-m", "ragmon.cli", "serve", "--capture", "cap/capture.jsonl",
                          "--metrics-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                          "--grpc-listen", "off"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == (
        "ragmon serve: error: cap/capture.jsonl: cannot write the capture file (--capture): the directory "
        "cap does not exist (ragmon makes none: mount the volume meant for the capture there, or make it)")
    assert not (tmp_path / "cap").exists()


def test_a_capture_path_set_by_a_variable_that_cannot_serve_names_the_variable(tmp_path: Path) -> None:
    # Before: "/tmp/...: cannot read the capture file: Is a directory", naming no setting, where a manifest
    # set RAGMON_CAPTURE and the user had never typed --capture.
    (tmp_path / "cap.jsonl").mkdir()
    run = subprocess.run([sys.executable, "-m", "ragmon.cli", "serve", "--metrics-listen", "127.0.0.1:0",
                          "--http-listen", "127.0.0.1:0", "--grpc-listen", "off"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
                         env={**os.environ, "RAGMON_CAPTURE": "cap.jsonl"})
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == (
        "ragmon serve: error: cap.jsonl: cannot read the capture file (RAGMON_CAPTURE, --capture): Is a "
        "directory")


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

    def lost_series(exporter: Exporter) -> dict[str, float]:
        samples = parse(prometheus_client.generate_latest(exporter.registry).decode())
        return {name: value for (name, _), value in samples.items() if name.startswith("ragmon_capture_lost")}

    on, off = Exporter(window=60, capture=True), Exporter(window=60)
    on.pipeline_label("shop")
    off.pipeline_label("shop")
    assert outcomes(on) == {"written": 0, "duplicate": 0, "too_large": 0, "backlog": 0, "error": 0}
    assert outcomes(off) == {}
    # Before any pipeline: a loss alert's increase() counts the first loss only from a zero sample.
    assert lost_series(Exporter(window=60, capture=True)) == {"ragmon_capture_lost_total": 0}
    assert lost_series(off) == {}


# --- a trace is captured once, across restarts -------------------------------------------------------

def line_size() -> int:
    """Every plain tN line is as long (ids of one length)."""
    return len(encode(record(plain("t1", 0.0), "t1", CAPTURED_AT, SETTINGS)))


async def run_writer(path: Path, exporter: Exporter, offers: list[str], max_bytes: int = 1 << 20) -> None:
    """One run of the sidecar's writer: start (reading what the files hold), offer, close."""
    capture = writer(path, exporter, max_bytes=max_bytes)
    await capture.start()
    for trace_id in offers:
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await capture.close()


async def test_a_restart_writes_no_trace_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A restarted sidecar is sent again what it captured before (the exporter resends an unacknowledged
    batch): FILE.1 and FILE must still hold each id once, so `ragmon replay` takes them."""
    path, rotated = tmp_path / "worst.jsonl", tmp_path / "worst.jsonl.1"
    bound = 2 * line_size() + line_size() // 2                         # two lines fit, a third does not
    await run_writer(path, Exporter(window=60, capture=True), ["t1", "t2", "t3"], bound)
    # t1 t2 | t3 arrives: rotate -> FILE.1 [t1 t2], FILE [t3].
    second = Exporter(window=60, capture=True)
    await run_writer(path, second, ["t1", "t3", "t4", "t4"], bound)
    # t1 is in FILE.1 and t3 in FILE: duplicates; t4 is new (FILE [t3 t4]), and offered again in the same
    # run it is a duplicate too. Written 1, duplicate 3.
    assert ids(rotated) == ["t1", "t2"] and ids(path) == ["t3", "t4"]
    assert (captured(second, "written"), captured(second, "duplicate")) == (1, 3)
    capsys.readouterr()
    # Exit 2 on a duplicate id; with no gate, --quiet still says the run passes whatever the figures.
    assert main(["replay", str(rotated), str(path), "--quiet"]) == 0
    assert capsys.readouterr().err == ("ragmon replay: warning: no --gate given: the run passes whatever the "
                                       "figures\n")


async def test_ids_are_forgotten_when_their_lines_leave_the_files(tmp_path: Path) -> None:
    """Memory follows the disk bound: an id is remembered while its line is in FILE or FILE.1. A trace
    whose line has gone (FILE.1 replaced, FILE taken away for review) is written again, without a twin."""
    path = tmp_path / "worst.jsonl"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter, max_bytes=2 * line_size() + line_size() // 2)
    await capture.start()
    for trace_id in ("t1", "t2", "t3", "t4", "t5"):
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 5)
    # t1 t2 | t3 t4 | t5: FILE.1 [t3 t4] replaced [t1 t2], FILE [t5]. t1's line is gone: written again;
    # t3's is in FILE.1: a duplicate.
    for trace_id in ("t1", "t3"):
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 6)
    path.rename(tmp_path / "review.jsonl")                              # FILE [t5 t1] taken away
    # The writer learns that FILE was taken away when it next writes (one stat per batch): t6 first.
    capture.offer(plain("t6", 0.0), "t6", "shop")
    await wait_written(exporter, 7)
    for trace_id in ("t5", "t4"):                                       # t5 went with FILE; t4 in FILE.1
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await capture.close()
    assert ids(tmp_path / "review.jsonl") == ["t5", "t1"] and ids(path) == ["t6", "t5"]
    assert ids(tmp_path / "worst.jsonl.1") == ["t3", "t4"]
    assert (captured(exporter, "written"), captured(exporter, "duplicate")) == (8, 2)


async def test_a_file_cut_to_nothing_in_place_is_started_afresh(tmp_path: Path) -> None:
    """logrotate's `copytruncate` (or `cp FILE review; : > FILE`) empties FILE in place, same inode: its
    lines are gone, as when FILE is moved away. Counted from the size FILE had, the next line rotated the
    near empty FILE over FILE.1 and its examples, and a trace resent was dropped as a duplicate."""
    path, rotated = tmp_path / "worst.jsonl", tmp_path / "worst.jsonl.1"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter, max_bytes=3 * line_size() + line_size() // 2)   # 3 lines fit
    await capture.start()
    for n in range(1, 7):
        capture.offer(plain(f"t{n}", 0.0), f"t{n}", "shop")
    await wait_written(exporter, 6)           # t1 t2 t3 | t4 rotates: FILE.1 [t1 t2 t3], FILE [t4 t5 t6]
    os.truncate(path, 0)
    # As for a file moved away, the writer learns of the cut when it next writes: t7 first.
    capture.offer(plain("t7", 0.0), "t7", "shop")
    await wait_written(exporter, 7)
    capture.offer(plain("t6", 0.0), "t6", "shop")      # t6's line went with the cut: written anew
    await capture.close()
    assert ids(rotated) == ["t1", "t2", "t3"] and ids(path) == ["t7", "t6"]
    assert (captured(exporter, "written"), captured(exporter, "duplicate")) == (8, 0)


# A failed write after FILE was emptied, or edited longer, in place: the file limit lets 10 bytes of t3 in,
# then EFBIG.
CUT_IN_PLACE = """
import os, resource, sys
from pathlib import Path
from ragmon.capture import RotatingFile
path, edit, lines = Path(sys.argv[1]), sys.argv[2], [a.encode() for a in sys.argv[3:]]
file = RotatingFile(path, 1 << 20)
print(len(file.write(lines[:2])[0]))
if edit == "emptied":
    os.truncate(path, 0)
else:  # a reviewer's editor writes a longer answer over the file itself
    path.write_bytes(path.read_bytes().replace(b'"answer": "a."', b'"answer": "a reviewed answer."'))
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 10, hard))
done, error = file.write(lines[2:3])
print(len(done), error.errno if error else None)
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
done, error = file.write(lines[3:])
print(len(done), error)
"""


@pytest.mark.parametrize("edit", ["emptied", "edited longer"])
def test_a_write_failing_after_the_file_was_changed_in_place_cuts_off_its_own_line_alone(
        tmp_path: Path, edit: str) -> None:
    """The cut after a failed write went back to the size FILE had before someone else changed it. Emptied
    (copytruncate): past the file limit, so the torn line stayed and glued itself to the next (without a
    limit, the "cut" padded FILE with NUL bytes up to that size); no line of the file loaded. Edited
    longer by a reviewer: the cut took the end of the reviewed lines, t2's cut in the middle."""
    path = tmp_path / "worst.jsonl"
    lines = [encode(record(plain(f"t{n}", 0.0), f"t{n}", CAPTURED_AT, SETTINGS)).decode()
             for n in range(1, 5)]
    run = subprocess.run([sys.executable, "-c", CUT_IN_PLACE, str(path), edit, *lines],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["2", "0 27", "1 None"]             # 27 = EFBIG on Linux
    kept = "" if edit == "emptied" else "".join(lines[:2]).replace('"answer": "a."',
                                                                   '"answer": "a reviewed answer."')
    assert path.read_text() == kept + lines[3]


# A writer on a named pipe read by a thread, its bound a line and a half: each line would rotate a file.
INTO_A_PIPE = """
import asyncio, os, sys, threading
from datetime import UTC, datetime
from pathlib import Path
from ragmon.capture import ALL, CaptureWriter
from ragmon.model import Context, Example, ExampleResult
pipe, size = Path(sys.argv[1]), int(sys.argv[2])
read = []
reader = threading.Thread(target=lambda: read.append(pipe.read_bytes()))
reader.start()
outcomes = []

async def run():
    capture = CaptureWriter(pipe, below=ALL, max_bytes=size + size // 2,
                            count=lambda pipeline, outcome: outcomes.append(outcome),
                            lost=lambda count: outcomes.append(f"lost {count}"), judge_settings={},
                            clock=lambda: datetime(2025, 1, 2, tzinfo=UTC))
    await capture.start()
    for n in range(1, 4):
        example = Example(f"t{n}", "q?", (Context("d", "x"),), "a.")
        capture.offer(ExampleResult(example, "lexical", {"groundedness": 0.0}, ()), f"t{n}", "shop")
        await asyncio.sleep(0.05)
    await capture.close()

asyncio.run(run())
reader.join()
print(outcomes, read[0].count(b"\\n"), sorted(os.listdir(pipe.parent)))
"""


def test_a_named_pipe_is_written_as_a_stream_never_read_nor_rotated(tmp_path: Path) -> None:
    """Reading the ids FILE held opened the pipe to read, which waits for a writer: the sidecar itself,
    so it never started. Past the bound, the pipe was renamed to FILE.1 and the lines went into a regular
    file made in its place, which the pipe's reader never saw."""
    pipe = tmp_path / "worst.jsonl"
    os.mkfifo(pipe)
    run = subprocess.run([sys.executable, "-c", INTO_A_PIPE, str(pipe), str(line_size())],
                         capture_output=True, text=True, timeout=30, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "['written', 'written', 'written'] 3 ['worst.jsonl']\n"
    assert stat.S_ISFIFO(pipe.stat().st_mode)


async def wait_written(exporter: Exporter, count: int) -> None:
    for _ in range(500):                                        # poll with a deadline of 5 s
        if captured(exporter, "written") >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} lines were not written within 5 s")


@pytest.mark.parametrize("kept", [40, 3])                 # bytes of t3's line that reached the disk
async def test_a_line_of_ours_cut_short_is_cut_off_at_start(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                           kept: int) -> None:
    """The process was killed in the middle of a line (an OOM kill between two write calls): the torn
    line would glue itself to the next one written, and neither would load. 3 bytes (`{"i`) are cut
    inside the beginning every line of ours has."""
    path = tmp_path / "worst.jsonl"
    lines = [encode(record(plain(t, 0.0), t, CAPTURED_AT, SETTINGS)) for t in ("t1", "t2", "t3")]
    path.write_bytes(lines[0] + lines[1] + lines[2][:kept])
    exporter = Exporter(window=60, capture=True)
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        await run_writer(path, exporter, ["t2", "t3"])
    # t2's line is whole: a duplicate. t3's was cut off, so t3 is written anew.
    assert ids(path) == ["t1", "t2", "t3"]
    assert (captured(exporter, "written"), captured(exporter, "duplicate")) == (1, 1)
    assert [(r.getMessage(), r.__dict__["line"], r.__dict__["bytes"]) for r in caplog.records] == [
        ("capture file ended in a line cut short (a run stopped mid-write); the line is cut off", 3, kept)]


async def test_lines_that_are_not_ours_are_kept_named_and_do_not_stop_the_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """FILE was edited by a reviewer, or is some other file: the sidecar starts all the same, keeps every
    byte, remembers each id it can read, and says which lines hold none."""
    path = tmp_path / "worst.jsonl"
    # r3's id is read as replay reads ids (a whole number is its decimal text), though replay would refuse
    # the line for its contexts.
    bad_field = json.dumps({"id": 3, "question": "q?", "contexts": 5})
    unterminated = json.dumps({"id": "r5", "question": "q?", "answer": "a."})   # an editor's last line
    before = "\n".join([json.dumps({"id": "r1", "question": "q?"}), "not JSON at all", bad_field,
                        json.dumps({"question": "no id"}), "x" * 5000, unterminated]).encode()
    path.write_bytes(before)
    exporter = Exporter(window=60, capture=True)
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        # Line 5 (5,000 bytes) is over --capture-max-bytes, and read all the same: replay would read it.
        await run_writer(path, exporter, ["r1", "3", "r5", "t1"], max_bytes=4000)
    # r1, 3 and r5 are held: 3 duplicates; t1 written.
    assert (captured(exporter, "written"), captured(exporter, "duplicate")) == (1, 3)
    # Kept byte for byte, the last line given its newline; FILE (over 5,000 bytes) was past the bound,
    # so t1's line rotated it to FILE.1 and began a new FILE.
    assert (tmp_path / "worst.jsonl.1").read_bytes() == before + b"\n"
    assert ids(path) == ["t1"]
    # Lines 2 (no JSON), 4 (no id) and 5 (no JSON either) hold no id.
    assert [(r.__dict__["path"], r.__dict__["count"], r.__dict__["first_line"]) for r in caplog.records] == [
        (str(path), 3, 2)]
    assert caplog.records[0].getMessage() == ("capture file holds lines that are no record with an id "
                                              "(`ragmon replay` refuses them); they are kept as they are")


async def test_a_last_line_without_its_newline_gets_one_before_ours(tmp_path: Path) -> None:
    """A reviewer's editor saved FILE without a final newline: the first line written must not be glued
    to the reviewer's last record."""
    path = tmp_path / "worst.jsonl"
    path.write_text(json.dumps({"id": "r1", "question": "q?", "answer": "a."}))
    exporter = Exporter(window=60, capture=True)
    await run_writer(path, exporter, ["r1", "t1"])
    assert ids(path) == ["r1", "t1"] and captured(exporter, "duplicate") == 1


def save_reviewed(path: Path, *, in_place: bool) -> None:
    """A reviewer's editor saving FILE: its first record's answer fixed and taken into the golden set, and
    no newline after the last line (VS Code keeps none when the last line is deleted)."""
    first, *rest = path.read_text().splitlines()
    reviewed = json.loads(first) | {"answer": "Returns are accepted within 30 days.", "needs_review": False}
    save(path, "\n".join([json.dumps(reviewed), *rest]).encode(), in_place=in_place)


@pytest.mark.parametrize("in_place", [True, False], ids=["in-place", "renamed-over"])
async def test_a_reviewed_file_saved_while_capturing_gets_the_next_line_on_a_line_of_its_own(
        tmp_path: Path, in_place: bool) -> None:
    """Saved without a final newline while the sidecar ran, the next example was glued to the reviewer's
    last line: counted written, it and that line were one line replay refuses ("Extra data")."""
    path = tmp_path / "worst.jsonl"
    exporter = Exporter(window=60, capture=True)
    capture = writer(path, exporter)
    await capture.start()
    for trace_id in ("t1", "t2"):
        capture.offer(plain(trace_id, 0.0), trace_id, "shop")
    await wait_written(exporter, 2)
    save_reviewed(path, in_place=in_place)
    capture.offer(plain("t3", 0.0), "t3", "shop")
    await capture.close()
    loaded = list(datasets.load([path]))
    assert [(e.id, e.answer, e.extra["needs_review"]) for e in loaded] == [
        ("t1", "Returns are accepted within 30 days.", False), ("t2", "a.", True), ("t3", "a.", True)]


async def test_a_rotated_file_is_read_as_found(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """FILE.1 is only read, never mended: its torn last line (an older ragmon's) is named as a line
    without an id."""
    path, rotated = tmp_path / "worst.jsonl", tmp_path / "worst.jsonl.1"
    lines = [encode(record(plain(t, 0.0), t, CAPTURED_AT, SETTINGS)) for t in ("t1", "t2")]
    rotated.write_bytes(lines[0] + lines[1][:30])
    exporter = Exporter(window=60, capture=True)
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        await run_writer(path, exporter, ["t1", "t2"])
    assert rotated.read_bytes() == lines[0] + lines[1][:30]
    assert ids(path) == ["t2"] and captured(exporter, "duplicate") == 1
    assert [(r.__dict__["path"], r.__dict__["count"], r.__dict__["first_line"]) for r in caplog.records] == [
        (str(rotated), 1, 2)]


async def test_a_capture_file_that_cannot_be_read_is_a_clear_error(tmp_path: Path) -> None:
    rotated = tmp_path / "worst.jsonl.1"
    rotated.mkdir()
    told = rf"^{rotated}: cannot read the capture file \(--capture\): Is a directory"
    with pytest.raises(InputError, match=told):
        await writer(tmp_path / "worst.jsonl", Exporter(window=60)).start()


# --- the same, through the sidecar -----------------------------------------------------------------------

def rag_span(**attributes: list[str]) -> ReadableSpan:
    """A RAG trace of one span in ragmon's own convention, as the SDK produces it. The answer's one claim
    shares no content word with the document, so groundedness is 0 (< the default --capture-below).
    `attributes` are set on it too, each name's "_" a "." (`ragmon_citations` is `ragmon.citations`)."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    contexts = json.dumps([{"id": "kb-1", "text": "Returns are accepted within 30 days."}])
    with provider.get_tracer("test").start_as_current_span("rag", attributes={
            "ragmon.question": "How long is the warranty?", "ragmon.contexts": contexts,
            "ragmon.answer": "Moon cheese glows purple.",
            **{name.replace("_", ".", 1): value for name, value in attributes.items()}}):
        pass
    provider.shutdown()
    (span,) = memory.get_finished_spans()
    return span


def health_spans(count: int) -> list[ReadableSpan]:
    """Traces that are not RAG: decided all the same, each pushing older decisions out of the assembler."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    for _ in range(count):
        with provider.get_tracer("test").start_as_current_span("GET /health"):
            pass
    provider.shutdown()
    return list(memory.get_finished_spans())


def sidecar(capture: Path, max_traces: int = 20_000) -> Sidecar:
    return Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                               metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0,
                               max_traces=max_traces, workers=1, capture=capture))


async def send(ports: Ports, spans: list[ReadableSpan]) -> None:
    """The SDK's own OTLP/HTTP exporter, off the event loop the sidecar runs on."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
    try:
        assert (await asyncio.to_thread(exporter.export, spans)).name == "SUCCESS"
    finally:
        exporter.shutdown()


def decided(count: int) -> Callable[[Samples], bool]:
    return lambda s: total(s, "ragmon_traces_total") == count



async def test_a_batch_resent_to_a_restarted_sidecar_is_not_captured_twice(tmp_path: Path) -> None:
    path = tmp_path / "worst.jsonl"
    spans = [rag_span()]
    first = sidecar(path)
    ports = await first.start()
    try:
        await send(ports, spans)
        assert ports.metrics is not None
        await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_captured_total", outcome="written") == 1)
    finally:
        await first.stop()
    second = sidecar(path)                                   # the restart: a new process, the same file
    ports = await second.start()
    try:
        await send(ports, spans)                             # the exporter never got its acknowledgement
        assert ports.metrics is not None
        # Both counters awaited: the capture is counted before the trace's outcome, and a scrape between
        # the two (a loaded CI machine) saw the capture and no scored trace yet.
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_captured_total") == 1
                                     and total(s, "ragmon_traces_total") == 1)
    finally:
        await second.stop()
    assert total(samples, "ragmon_traces_total", outcome="scored") == 1   # scored again, not written
    assert total(samples, "ragmon_captured_total", pipeline="shop", outcome="duplicate") == 1
    assert samples[("ragmon_capture_lost_total", frozenset())] == 0      # there, at 0, to alert on
    assert ids(path) == [format(spans[0].context.trace_id, "032x")]


async def test_spans_resent_after_the_decision_was_forgotten_are_not_captured_twice(tmp_path: Path) -> None:
    """Within one run: the assembler remembers the last 4 x --max-traces decisions, so late spans are
    refused as `late`; after that many other traces the same spans make a new trace, decided and scored
    again (a Collector retrying a batch for minutes at a high trace rate)."""
    path = tmp_path / "worst.jsonl"
    spans = [rag_span()]
    service = sidecar(path, max_traces=1)                    # remembers 4 decisions
    ports = await service.start()
    assert ports.metrics is not None
    try:
        await send(ports, spans)
        await wait_metrics(ports.metrics, decided(1))
        for n, span in enumerate(health_spans(4), start=2):  # one at a time: a 1-trace buffer is full at 1
            await send(ports, [span])
            await wait_metrics(ports.metrics, decided(n))
        await send(ports, spans)
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_captured_total") == 2)
    finally:
        await service.stop()
    # The trace was decided and scored twice (5 decisions past the first are 6 in all).
    assert total(samples, "ragmon_traces_total") == 6
    assert total(samples, "ragmon_traces_total", outcome="scored") == 2
    assert {o: total(samples, "ragmon_captured_total", outcome=o) for o in ("written", "duplicate")} == {
        "written": 1, "duplicate": 1}
    assert ids(path) == [format(spans[0].context.trace_id, "032x")]


# --- no line replay refuses; one writer per file; ids of lines of any length replay reads ---------------

async def test_blank_cited_or_relevant_ids_are_left_out_so_the_file_still_loads(tmp_path: Path) -> None:
    """An app may record "" or spaces among `ragmon.citations` and `ragmon.relevant_ids`; replay refuses
    such an id, and one line it refuses stops it reading any example of the file."""
    path = tmp_path / "worst.jsonl"
    span = rag_span(ragmon_citations=["", "kb-1", " "], ragmon_relevant_ids=[" ", "kb-1"])
    service = sidecar(path)
    ports = await service.start()
    try:
        await send(ports, [span])
        assert ports.metrics is not None
        await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_captured_total", outcome="written") == 1)
    finally:
        await service.stop()
    (example,) = datasets.load([path])
    assert example.id == format(span.context.trace_id, "032x")
    assert example.citations == ("kb-1",) and example.relevant_ids == frozenset({"kb-1"})


@pytest.mark.parametrize(("cap", "written"), [(343, 1), (342, 0)])
async def test_a_line_longer_than_replay_reads_is_not_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, cap: int,
        written: int) -> None:
    """`--capture-max-bytes 1GiB`: a 45 MiB document of "\\x01" was written as a 283 MB line (JSON spells
    each as the 6 bytes \\u0001), and `ragmon replay` refused the whole file at that line (256 MiB at most).
    Here replay's cap is lowered to `cap`: t1's line is 344 bytes, 343 without its newline, so it is read
    at a cap of 343 and not at 342. c1 and c2 hold a document of 100 "\\x01", 100 bytes of text but
    344 - 1 + 600 = 943 bytes of line: over the cap, though far under --capture-max-bytes (1 MiB)."""
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", cap)
    path = tmp_path / "worst.jsonl"
    exporter = Exporter(window=60, capture=True)
    control = [result(Example(c, "q?", (Context("d", "\x01" * 100),), "a."), 0.0) for c in ("c1", "c2")]
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        capture = writer(path, exporter, max_bytes=1 << 20)
        await capture.start()
        capture.offer(control[0], "c1", "shop")
        capture.offer(control[1], "c2", "shop")
        capture.offer(plain("t1", 0.0), "t1", "shop")
        await capture.close()
    if written:
        assert ids(path) == ["t1"]                           # the file loads as replay reads it
    else:
        assert path.read_bytes() == b""
    assert {o: captured(exporter, o) for o in ("written", "too_large")} == {
        "written": written, "too_large": 3 - written}
    # Once a minute, as the other losses: c2 (and t1 at 342) are counted in the next line.
    assert [(r.getMessage(), r.__dict__["trace_id"], r.__dict__["bytes"]) for r in caplog.records] == [
        ("example whose line would be longer than `ragmon replay` reads not captured", "c1", 943)]


async def test_a_second_writer_on_the_same_file_is_refused_naming_the_holder(tmp_path: Path) -> None:
    """Two sidecars on one FILE (a shared volume, an exporter's retry landing on the other replica) each
    wrote the trace once: FILE held it twice, and `ragmon replay` refused the file."""
    path = tmp_path / "worst.jsonl"
    first = writer(path, Exporter(window=60, capture=True))
    await first.start()
    second = writer(path, Exporter(window=60, capture=True))        # its own open file description
    with pytest.raises(InputError) as error:
        await second.start()
    assert str(error.value) == (
        f"{path}: the capture file (--capture) is in use by another process (pid {os.getpid()} on host "
        f"{socket.gethostname()}): two sidecars capturing to one file would both write a trace sent to "
        "each, and `ragmon replay` refuses a file holding an id twice; give each sidecar its own file")
    assert stat.S_IMODE((tmp_path / "worst.jsonl.lock").stat().st_mode) == 0o600
    await first.close()                                              # the lock goes with the writer
    third = writer(path, Exporter(window=60, capture=True))
    await third.start()
    await third.close()


async def test_a_second_serve_on_the_same_capture_file_exits_2(tmp_path: Path) -> None:
    """Two processes: this one holds FILE, `ragmon serve --capture FILE` is the second."""
    path = tmp_path / "worst.jsonl"
    holder = writer(path, Exporter(window=60, capture=True))
    await holder.start()
    try:
        run = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "ragmon.cli", "serve", "--capture", str(path),
                             "--metrics-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                             "--grpc-listen", "off"],
            capture_output=True, text=True, timeout=60, check=False)
    finally:
        await holder.close()
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1].startswith(
        f"ragmon serve: error: {path}: the capture file (--capture) is in use by another process (pid "
        f"{os.getpid()} on host {socket.gethostname()}): ")


async def test_ids_of_lines_longer_than_a_lowered_bound_are_still_held(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Captured under 64 KiB, restarted with --capture-max-bytes 1500: big's line (318 + 2 for the id's
    letter, twice, + 1,999 for its document = 2,319 bytes) was named a line replay refuses, though replay
    reads it, and big was no longer held."""
    path = tmp_path / "worst.jsonl"
    big = result(Example("big", "q?", (Context("d", "x" * 2000),), "a."), 0.0)
    lines = [encode(record(plain("t1", 0.0), "t1", CAPTURED_AT, SETTINGS)),
             encode(record(big, "big", CAPTURED_AT, SETTINGS))]
    assert [len(line) for line in lines] == [318, 2319]
    path.write_bytes(b"".join(lines))
    exporter = Exporter(window=60, capture=True)
    with caplog.at_level(logging.INFO, logger="ragmon.capture"):
        capture = writer(path, exporter, max_bytes=1500)
        await capture.start()
        capture.offer(big, "big", "shop")
        capture.offer(plain("t1", 0.0), "t1", "shop")
        await capture.close()
    assert {o: captured(exporter, o) for o in ("written", "duplicate", "too_large")} == {
        "written": 0, "duplicate": 2, "too_large": 0}
    assert [(r.levelname, r.getMessage(), r.__dict__.get("ids_held")) for r in caplog.records] == [
        ("INFO", "capturing examples", 2)]
    assert path.read_bytes() == b"".join(lines)


async def test_a_long_line_is_read_for_its_id_without_being_held_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Lines over a head of 100 bytes (1 MiB in production), replay's cap lowered to 1,000 bytes. Only
    the reordered line (343 bytes and its newline) and the torn last line are parsed whole: the id of a
    line of ours is read from its beginning."""
    monkeypatch.setattr(capture_module, "_HEAD", 100)
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    parsed: list[int] = []
    real_json_line = capture_module.json_line

    def spy(raw: bytes) -> object:
        parsed.append(len(raw))
        return real_json_line(raw)

    monkeypatch.setattr(capture_module, "json_line", spy)

    def ours(trace_id: str, text: str = "x") -> bytes:
        example = result(Example(trace_id, "q?", (Context("d", text),), "a."), 0.0)
        return encode(record(example, trace_id, CAPTURED_AT, SETTINGS, "shop"))

    reordered = (json.dumps(json.loads(ours("s1")), sort_keys=True) + "\n").encode()
    at_cap, over_cap = ours("t4", "x" * 658), ours("t3", "x" * 659)   # 343 - 1 + 658 = 1,000 bytes + "\n"
    assert (len(reordered), len(at_cap), len(over_cap)) == (344, 1001, 1002)
    before = b"".join([ours("t1"),                           # 1: ours, its id read from the head
                       reordered,                            # 2: "id" not first: parsed whole
                       ours("t2")[:-3] + b"\n",              # 3: ends "tr": no JSON object
                       over_cap,                             # 4: 1,001 bytes before its newline: refused
                       at_cap])                              # 5: exactly replay's cap
    torn = ours("t5")[:215]                                  # 6: cut short just after '0.7}'
    assert torn.endswith(b'{"threshold": 0.7}')
    path = tmp_path / "worst.jsonl"
    path.write_bytes(before + torn)
    exporter = Exporter(window=60, capture=True)
    with caplog.at_level(logging.WARNING, logger="ragmon.capture"):
        await run_writer(path, exporter, ["t1", "s1", "t2", "t3", "t4", "t5"])
    # Held: t1, s1, t4 (3 duplicates); t2's and t3's lines are refused, t5's cut off: written anew.
    assert (captured(exporter, "written"), captured(exporter, "duplicate")) == (3, 3)
    assert path.read_bytes() == before + ours("t2") + ours("t3") + ours("t5")
    assert [(r.getMessage(), r.__dict__.get("count"), r.__dict__.get("first_line"), r.__dict__.get("line"))
            for r in caplog.records] == [
        ("capture file ended in a line cut short (a run stopped mid-write); the line is cut off",
         None, None, 6),
        ("capture file holds lines that are no record with an id (`ragmon replay` refuses them); they are "
         "kept as they are", 2, 3, None)]
    # Whole: line 2 (344) and the torn line 6 (215, ending in "}"); t1's and t4's heads (101 bytes) are
    # not parsed as JSON; the lines written are short ones (344 bytes), parsed by no one here.
    assert sorted(n for n in parsed if n > 100) == [215, 344]
