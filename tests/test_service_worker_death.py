"""`ragmon serve` when a lexical worker dies holding traces, as the kernel's OOM killer ends one: the traces
are scored all the same, on the pool started in its place, and the log says which worker died and how,
in one line without a traceback. And when a worker keeps more memory than its share: replaced, counted.

The real service in-process on port 0, its real worker stopped (so that it holds traces when it dies) and
then SIGKILLed, read back from its /metrics page."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from polling import wait_metrics
from worker_faults import HANG, score_or_hang

from ragmon import scoring
from ragmon.scoring import LexicalLane
from ragmon.scrape import total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar, lexical_lane

TRACES = 6


def rag_trace(question: str = "How long is the warranty?") -> dict[str, object]:
    """One RAG span in OTLP/JSON, as the `ragmon.*` attributes give it: the answer is all in the document."""
    attributes = {"ragmon.question": question,
                  "ragmon.contexts": json.dumps([{"id": "w", "text": "The warranty lasts 2 years."}]),
                  "ragmon.answer": "The warranty lasts 2 years."}
    span = {"traceId": secrets.token_hex(16), "spanId": secrets.token_hex(8), "name": "ask",
            "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]}


async def send(ports: Ports, count: int, question: str = "How long is the warranty?") -> None:
    async with aiohttp.ClientSession() as session:
        for _ in range(count):
            async with session.post(f"http://127.0.0.1:{ports.http}/v1/traces",
                                    json=rag_trace(question)) as response:
                assert response.status == 200


async def started(workers: int) -> tuple[Sidecar, LexicalLane, Ports]:
    """A sidecar on port 0 with the lexical lane alone, that lane, and the ports it bound."""
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, workers=workers)
    lane = lexical_lane(config)
    sidecar = Sidecar(config, [lane])
    return sidecar, lane, await sidecar.start()


async def test_traces_held_by_an_oom_killed_worker_are_scored_and_its_death_is_one_line(
        caplog: pytest.LogCaptureFixture) -> None:
    # One worker, so two traces in the pool (one sent to the worker, one queued behind it) and four in the
    # lane's queue when it is killed. All six are scored, each judged once, ok; the two it held had been
    # `error`, with judge_requests{outcome="error"}, and a BrokenProcessPool traceback in the log.
    caplog.set_level(logging.INFO, logger="ragmon")
    sidecar, lane, ports = await started(1)
    try:
        [pid] = lane.worker_pids
        os.kill(pid, signal.SIGSTOP)
        await send(ports, TRACES)
        before = await wait_metrics(ports.metrics,
                                    lambda s: total(s, "ragmon_score_queue_depth") == TRACES - 2)
        os.kill(pid, signal.SIGKILL)
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == TRACES)
    finally:
        await sidecar.stop()
    # For an alert on OOM kills: the log line says which worker and why, the counter how often.
    assert [total(s, "ragmon_worker_pool_restarts_total") for s in (before, samples)] == [0, 1]
    # The stopped worker held two (one computing, one in its pipe), which no queue counts.
    assert total(before, "ragmon_score_in_progress", judge="lexical") == 2
    assert {outcome: total(samples, "ragmon_traces_total", outcome=outcome)
            for outcome in ("scored", "error")} == {"scored": TRACES, "error": 0}
    assert {outcome: total(samples, "ragmon_judge_requests_total", judge="lexical", outcome=outcome)
            for outcome in ("ok", "error")} == {"ok": TRACES, "error": 0}
    [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert (line.name, line.getMessage(), line.exc_info) == (
        "ragmon.scoring", f"lexical worker {pid} was killed by SIGKILL, which is usually the kernel's OOM "
        "killer: check the container's memory limit; the examples its pool held are retried once on a new "
        "pool", None)


def gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether process `pid` has ended (reaped, or a zombie) within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


async def test_one_of_two_workers_oom_killed_ends_its_pool_at_once_and_only_it_is_named(
        caplog: pytest.LogCaptureFixture) -> None:
    # Two workers, one SIGKILLed, then traces sent. The broken pool's other worker ignores the
    # SIGTERM its pool ends it with (a signal to the process group must not end workers mid-drain): it had
    # stayed alive until the sidecar exited, holding its memory, the pool's manager thread waiting for it
    # for ever (scoring stalled 5 s after each death on Python 3.11, for good on 3.12; and the sidecar hung
    # at exit). Now it is killed with its pool, and is no death to report.
    caplog.set_level(logging.INFO, logger="ragmon")
    sidecar, lane, ports = await started(2)
    try:
        killed, other = lane.worker_pids
        os.kill(killed, signal.SIGKILL)
        await send(ports, TRACES)
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == TRACES)
        other_ended = await asyncio.to_thread(gone, other)
    finally:
        await sidecar.stop()
    assert other_ended, f"worker {other} of the broken pool still runs"
    assert total(samples, "ragmon_traces_total", outcome="scored") == TRACES
    assert total(samples, "ragmon_worker_pool_restarts_total") == 1
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        f"lexical worker {killed} was killed by SIGKILL, which is usually the kernel's OOM killer: check "
        "the container's memory limit; the examples its pool held are retried once on a new pool"]


def test_a_sidecar_whose_worker_was_oom_killed_exits_on_sigterm(serve_process: Any) -> None:
    # The broken pool's manager thread waited for the live worker for ever, and the interpreter's exit
    # waits for that thread: SIGTERM drained, said "stopped", and the process never ended (Kubernetes
    # SIGKILLs it after the grace period).
    with serve_process(["--workers", "2", "--quiet", "0.05s"]) as serve:
        workers = grandchildren(serve.process.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGKILL)
        asyncio.run(_send_and_wait(serve.ready["http_port"], serve.ready["metrics_port"]))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0
    assert [entry["outcomes"] for entry in logs if entry["message"] == "stopped"] == [{"scored": TRACES}]


async def _send_and_wait(http: int, metrics: int) -> None:
    await send(Ports(http=http, grpc=None, metrics=metrics), TRACES)
    await wait_metrics(metrics, lambda s: total(s, "ragmon_traces_total", outcome="scored") == TRACES)


def grandchildren(pid: int) -> list[int]:
    """The children of `pid`'s children: a sidecar's lexical workers, which its forkserver starts."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            child, rest = stat.read_text().split(" (", 1)
            parents[int(child)] = int(rest.rsplit(")", 1)[1].split()[1])
    return sorted(child for child, parent in parents.items() if parents.get(parent) == pid)


async def test_a_worker_over_its_share_of_memory_is_counted_in_the_buffer_until_it_is_replaced(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # A share of 1 MiB puts the worker (27 MiB idle) over it after each example. After the first its pool
    # is replaced at once; the next replacement is due RECYCLE_INTERVAL (here 1 s) later, and meanwhile
    # what the new worker keeps over its share is held against --max-buffer (ragmon_buffer_bytes, with
    # no trace held), then given back. Every trace is scored, none lost with an old pool.
    monkeypatch.setattr(scoring, "RECYCLE_INTERVAL", 1.0)
    caplog.set_level(logging.INFO, logger="ragmon.scoring")
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, workers=1)
    lane = LexicalLane(rate=1.0, k=config.k, workers=1, share=2**20)
    sidecar = Sidecar(config, [lane])
    ports = await sidecar.start()
    try:
        first = await wait_metrics(ports.metrics, lambda s: any(
            name == "ragmon_worker_pool_recycles_total" for name, _ in s))
        await send(ports, TRACES)
        scored = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == TRACES)
        replaced = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_buffer_bytes") == 0)
    finally:
        await sidecar.stop()
    assert [total(s, "ragmon_worker_pool_recycles_total") for s in (first, scored, replaced)] == [0, 1, 2]
    assert 10 * 2**20 < total(scored, "ragmon_buffer_bytes") < 200 * 2**20
    assert total(replaced, "ragmon_worker_pool_restarts_total") == 0
    assert total(replaced, "ragmon_traces_total", outcome="scored") == TRACES
    # Each replacement's log line shows the worker over its share, and a wait of 0 s or more (the first
    # is at once): they had read "kept_mib=80 share_mib=80 ... in_seconds=-0.0".
    told = [r for r in caplog.records if r.getMessage().startswith("a lexical worker kept more than")]
    assert len(told) >= 2
    for record in told:
        assert record.__dict__["kept_mib"] > record.__dict__["share_mib"] == 1.0
        assert math.copysign(1.0, record.__dict__["in_seconds"]) == 1.0
    assert told[0].__dict__["in_seconds"] == 0.0


async def test_a_trace_its_worker_never_finishes_is_a_timeout_and_the_others_are_scored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Two workers, one stuck for ever on a trace (a text the judge never finishes; here a loop): the other
    # kept scoring, so /healthz stayed 200 and no liveness probe restarted anything, while the stuck trace
    # was never counted and its worker was lost to the pod. Past EXAMPLE_TIMEOUT (here 1 s) that trace is an
    # `error`, its judge request a `timeout`, the pool is replaced (a restart), and every other trace is
    # scored, those the killed workers held included.
    monkeypatch.setattr(scoring, "score_lexical", score_or_hang)  # what the lane sends its workers to run
    monkeypatch.setattr(scoring, "EXAMPLE_TIMEOUT", 1.0)
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, workers=2)
    sidecar = Sidecar(config, [lexical_lane(config)])
    ports = await sidecar.start()
    try:
        await send(ports, 1, question=HANG)
        await send(ports, TRACES)
        samples = await wait_metrics(ports.metrics, lambda s: total(s, "ragmon_traces_total") == TRACES + 1)
    finally:
        await sidecar.stop()
    assert {outcome: total(samples, "ragmon_traces_total", outcome=outcome)
            for outcome in ("scored", "error")} == {"scored": TRACES, "error": 1}
    assert {outcome: total(samples, "ragmon_judge_requests_total", judge="lexical", outcome=outcome)
            for outcome in ("ok", "timeout", "error")} == {"ok": TRACES, "timeout": 1, "error": 0}
    assert total(samples, "ragmon_worker_pool_restarts_total") == 1
