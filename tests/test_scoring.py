"""The lexical lane: scoring in worker processes gives exactly the in-process result, and survives a
worker that dies."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from ragmon import scoring
from ragmon.evaluate import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.scoring import LexicalLane

# Claim 1 ("warranty", "lasts", "years", the number 2) is all in the context: supported. Claim 2
# ("covers", "moon") is not: unsupported. Groundedness 1/2 by hand.
EXAMPLE = Example("e1", "How long does the warranty last?",
                  (Context("w", "The warranty lasts 2 years from the date of purchase."),),
                  "The warranty lasts 2 years. It also covers the moon.")


async def test_worker_result_equals_the_in_process_result() -> None:
    lane = LexicalLane(rate=1.0, k=5, workers=2)
    await lane.start()
    try:
        scored = await lane.score(EXAMPLE)
    finally:
        await lane.close()
    assert scored.result == evaluate_example(EXAMPLE, LexicalJudge(), 5)
    assert scored.result.metrics["groundedness"] == 0.5
    assert scored.duration > 0 and scored.cost_usd == 0
    assert lane.worker_pids and os.getpid() not in lane.worker_pids


async def test_a_dead_worker_fails_one_example_and_the_lane_recovers() -> None:
    lane = LexicalLane(rate=1.0, k=5, workers=1)
    await lane.start()
    try:
        os.kill(lane.worker_pids[0], signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            await lane.score(EXAMPLE)
        assert (await lane.score(EXAMPLE)).result.metrics["groundedness"] == 0.5
    finally:
        await lane.close()


async def test_workers_judge_at_the_lane_threshold() -> None:
    # "The warranty covers water damage." has 4 terms (warranti, cover, water, damag); the context holds
    # 2 of them: 0.5 of its terms. Below the default 0.56 it is unsupported; at threshold 0.5 it is
    # supported, so groundedness goes from 1/2 to 2/2.
    example = Example("e2", "What does the warranty cover?",
                      (Context("w", "The warranty lasts 2 years and covers accidental drops."),),
                      "The warranty lasts 2 years. The warranty covers water damage.")
    groundedness = {}
    for threshold in (0.56, 0.5):
        lane = LexicalLane(rate=1.0, k=5, workers=1, threshold=threshold)
        await lane.start()
        try:
            groundedness[threshold] = (await lane.score(example)).result.metrics["groundedness"]
        finally:
            await lane.close()
    assert groundedness == {0.56: 0.5, 0.5: 1.0}


async def test_close_returns_once_every_worker_is_gone() -> None:
    # Workers still exiting when `close` returns race the interpreter's exit hook for process pools
    # (CPython 3.11 then writes to a pipe being closed: "Exception ignored in: <module 'threading'> ...
    # OSError: [Errno 9]"). So by the time `close` returns, no worker may be left, reaped included:
    # signal 0 to its pid finds no process.
    lane = LexicalLane(rate=1.0, k=5, workers=2)
    await lane.start()
    await lane.score(EXAMPLE)
    await lane.close()
    for pid in lane.worker_pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_close_kills_a_stuck_worker_after_its_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stopped worker holds an example for ever; close (which the sidecar calls once --drain-seconds are
    # over) waited with it, so a SIGTERMed sidecar never exited. Now it gives up after CLOSE_GRACE and
    # kills the workers: close returns, and no worker is left.
    monkeypatch.setattr(scoring, "CLOSE_GRACE", 0.5)
    lane = LexicalLane(rate=1.0, k=5, workers=1)
    await lane.start()
    [pid] = lane.worker_pids
    os.kill(pid, signal.SIGSTOP)
    held = asyncio.ensure_future(lane.score(EXAMPLE))
    await asyncio.sleep(0.2)
    started = time.monotonic()
    await asyncio.wait_for(lane.close(), 10)
    assert 0.5 <= time.monotonic() - started < 5
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(BrokenProcessPool):
        await held
