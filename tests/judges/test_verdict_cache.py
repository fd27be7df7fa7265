"""The verdict cache on its own: what a CI job sharing a cache directory relies on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragmon.judges.verdict_cache import VerdictCache

ENTRY = {"supported": True, "supporting_ids": ["d1"], "reason": "stated in d1", "claim": "Paris is French."}
VERDICT = {"supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}


def test_memory_cache_is_bounded() -> None:
    cache = VerdictCache(max_entries=2)
    for key in ("a", "b", "a", "c"):  # "a" is used again, so "b" is the least recently used
        cache.put(key, {"supported": True, "supporting_ids": ["d1"], "reason": None, "claim": key})
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None


def test_a_verdict_written_by_one_cache_is_read_by_another(tmp_path: Path) -> None:
    VerdictCache(tmp_path).put("ab12", ENTRY)
    # Memory keeps the verdict alone; the file also names the claim, for whoever reads the directory, and
    # the cache format it was written in, which a later ragmon reads it by.
    assert VerdictCache(tmp_path).get("ab12") == VERDICT
    assert json.loads((tmp_path / "ab" / "ab12.json").read_text(encoding="utf-8")) == {**ENTRY,
                                                                                        "cache_format": 2}


def test_an_unreadable_or_mistyped_entry_is_a_miss(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    shard = tmp_path / "cd"
    shard.mkdir()
    (shard / "cd01.json").write_text('{"supported": tru', encoding="utf-8")  # cut short
    # In today's cache format, so that the mistyped field alone makes each a miss.
    (shard / "cd02.json").write_text(json.dumps({**ENTRY, "supported": "yes", "cache_format": 2}),
                                     encoding="utf-8")
    (shard / "cd03.json").write_text(json.dumps({**ENTRY, "supporting_ids": "d1", "cache_format": 2}),
                                     encoding="utf-8")
    assert [cache.get(key) for key in ("cd01", "cd02", "cd03")] == [None, None, None]


def test_a_verdict_kept_for_the_run_only_removes_the_file_at_its_key(tmp_path: Path) -> None:
    # An older run's file under the key, then a verdict not to be kept on disk: the file left there was
    # read, found outdated and asked for again on every later run. Gone, a later cache misses it plainly;
    # this cache still serves the verdict for the run.
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "ab12.json").write_text(json.dumps(ENTRY), encoding="utf-8")
    cache = VerdictCache(tmp_path)
    assert cache.get("ab12") is None  # read, outdated: asked for again
    unkept = {**ENTRY, "supported": False, "supporting_ids": []}
    cache.put("ab12", unkept, on_disk=False)
    assert (list(tmp_path.glob("*/*.json")), VerdictCache(tmp_path).get("ab12")) == ([], None)
    assert cache.get("ab12") == {"supported": False, "supporting_ids": [], "reason": "stated in d1"}


def test_a_verdict_kept_for_the_run_only_leaves_another_process_s_entry(tmp_path: Path) -> None:
    # Two CI jobs sharing the directory both miss the key and both ask. B's proper verdict is written
    # first; A's, kept for its run only, must not remove it, or the next run pays for the key again.
    job_a, job_b = VerdictCache(tmp_path), VerdictCache(tmp_path)
    assert (job_a.get("ab12"), job_b.get("ab12")) == (None, None)
    job_b.put("ab12", ENTRY)
    job_a.put("ab12", {**ENTRY, "supported": False, "supporting_ids": []}, on_disk=False)
    assert VerdictCache(tmp_path).get("ab12") == VERDICT


def test_an_entry_another_process_writes_while_the_outdated_one_is_read_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As above, but B's entry lands in the moment between A reading the file at the key (still the older
    # format's) and removing it: read, then removed, B's fresh entry was removed in its stead.
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "ab12.json").write_text(json.dumps(ENTRY), encoding="utf-8")
    job_a, job_b = VerdictCache(tmp_path), VerdictCache(tmp_path)
    assert (job_a.get("ab12"), job_b.get("ab12")) == (None, None)
    reading = Path.read_text

    def read_then_b_lands(path: Path, *args: Any, **kwargs: Any) -> str:
        text = reading(path, *args, **kwargs)
        monkeypatch.undo()  # B lands once, right after A's read
        job_b.put("ab12", {**ENTRY, "reason": "said in d1"})
        return text

    monkeypatch.setattr(Path, "read_text", read_then_b_lands)
    job_a.put("ab12", {**ENTRY, "supported": False, "supporting_ids": []}, on_disk=False)
    assert VerdictCache(tmp_path).get("ab12") == {**VERDICT, "reason": "said in d1"}


def test_an_outdated_entry_another_process_replaced_is_kept(tmp_path: Path) -> None:
    # A reads the older format's file; B, asked the same, writes today's entry over it before A's verdict
    # (kept for the run only) arrives: the file A read is gone, and B's must stay.
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "ab12.json").write_text(json.dumps(ENTRY), encoding="utf-8")
    job_a, job_b = VerdictCache(tmp_path), VerdictCache(tmp_path)
    assert (job_a.get("ab12"), job_b.get("ab12")) == (None, None)
    job_b.put("ab12", {**ENTRY, "reason": "said in d1"})
    job_a.put("ab12", {**ENTRY, "supported": False, "supporting_ids": []}, on_disk=False)
    assert VerdictCache(tmp_path).get("ab12") == {**VERDICT, "reason": "said in d1"}
