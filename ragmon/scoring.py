"""Judge lanes: how the sidecar gets a sampled example scored without blocking its event loop.

A lane is one judge with its own sampling rate and its own way of running (a process pool for the
CPU-bound lexical judge, coroutines for a network judge). The service gives each lane a bounded queue
and `concurrency` consumers, and exports what a lane reports under `judge=<lane.judge>`. The first lane
decides a trace's outcome (scored or error); further lanes score a nested subset of the same traces,
so judges can be compared on identical examples, and report through the judge metrics only.

This module stays light on purpose: the lexical worker processes import it and nothing else of the
service (no aiohttp, no gRPC).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import glob
import logging
import multiprocessing
import os
import pickle
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import forkserver, popen_forkserver, resource_tracker
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import IO, Protocol

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import DEFAULT_THRESHOLD, LexicalJudge
from ragmon.model import Example, ExampleResult
from ragmon.stop_signals import SHUTDOWN_SIGNALS
from ragmon.text.terms import is_cjk

log = logging.getLogger("ragmon.scoring")


@dataclass(frozen=True, slots=True)
class Scored:
    result: ExampleResult
    duration: float
    """Seconds the judge spent on this example (not the time it waited in a queue)."""
    cost_usd: float = 0.0
    outcome: str = "ok"
    """Its `ragmon_judge_requests_total` outcome: `ok`, or `cached` when the judge made no call for it."""


class LaneRefusal(Exception):
    """The lane ended an example without a result; `outcome` is a judge outcome label ("over_budget",
    "timeout", ...). A failed call may still have taken time and cost money: both are exported."""

    def __init__(self, outcome: str, message: str = "", *, cost_usd: float = 0.0,
                 duration: float | None = None) -> None:
        super().__init__(message or outcome)
        self.outcome = outcome
        self.cost_usd = cost_usd
        self.duration = duration


class Lane(Protocol):
    judge: str
    """Value of the `judge` label: bounded and known at start."""
    rate: float
    """Score an example when its sampling key is below this."""
    concurrency: int
    """Examples the lane works on at once; the service runs this many consumers."""

    async def start(self) -> None: ...

    async def score(self, example: Example) -> Scored:
        """Raise LaneRefusal for a deliberate refusal; any other exception counts as a judge error."""
        ...

    async def close(self) -> None: ...


def working_bytes(example: Example) -> int:
    """About the most a lexical worker holds while it scores `example`, its copy of the example included,
    over what it holds idle with its caches full (`ragmon.memory_budget.WORKER`). The sidecar counts it
    against --max-buffer while the example is queued or scored (ragmon.service), as the example itself:
    a worker scoring a 14 MiB document of wide characters peaked at 204 MiB, where its share of the memory
    bound was 80.

    Each text's own size times what reading it takes, from tracemalloc's peak over unpickling and scoring
    an example whose words' stems are cached (the stem cache is bounded, and full in a worker at work),
    with a margin (tests/test_scoring.py holds the figures to the peaks): a document or an answer 3.5-7
    times its size (a table of its terms, a lower-cased copy, its numbers, its claims); in Chinese or
    Japanese, read in pairs of characters, up to ~80 a document (every pair new: a term of its own,
    some 160 bytes a character) and ~25 an answer."""
    size = sys.getsizeof
    total = sum(size(text) * (_CJK_CONTEXT if is_cjk(text) else _TEXT) for text in _documents(example))
    for text in (example.question, example.answer):
        if text:
            total += size(text) * (_CJK_ANSWER if is_cjk(text) else _TEXT)
    return total


_TEXT, _CJK_CONTEXT, _CJK_ANSWER = 8, 96, 32


def sent_copies(example: Example) -> int:
    """What sending `example` to a worker adds to it in this process, where the sidecar holds it until
    its outcome is counted (and further lanes after that). Pickle asks CPython for each text's UTF-8 form,
    and a str that is not pure ASCII keeps that form for its lifetime (`PyUnicode_AsUTF8AndSize`): once
    sent, a document of Chinese text holds 5 bytes a character here, not 2, and one of accented Latin
    text up to 3, not 1. ASCII text is its own UTF-8 and grows by nothing."""
    texts = (*_documents(example), example.question or "", example.answer or "")
    return sum(len(text.encode("utf-8", "surrogatepass")) + 1 for text in texts if not text.isascii())


WORKER_SHARE = 80 * 2**20
"""What one lexical worker may keep between examples: the process with its caches full (27 MiB idle),
`ragmon.memory_budget`'s figure. A worker found over it after an example is replaced (`LexicalLane`)."""

_judge: LexicalJudge | None = None
_spill: str = ""
"""The lane's directory for results too large to send whole (`score_lexical`), set by `warm`."""
_share: int = WORKER_SHARE
_PAGE = os.sysconf("SC_PAGE_SIZE")

INLINE_BYTES = 3_072
"""Bytes of a pickled result a worker sends back through the pool's pipe; a larger one goes through a file
in the lane's spill directory, and only its path is sent. With the executor's envelope a message stays
under the pipe's atomic write size (PIPE_BUF, 4,096 bytes on Linux): a worker killed (the OOM killer)
halfway through writing a larger one, its result carrying the example and 40 documents back (170 KB),
left the pool's manager thread reading the rest for ever, the parent holding the pipe's write end too.
No death was seen, scoring stopped, and SIGTERM hung until the pod was killed."""


def warm(threshold: float, spill: str = "", share: int = WORKER_SHARE) -> None:
    """Every worker's initializer: the judge is built once, before traffic arrives, and kept.

    The worker also ignores SIGINT, SIGTERM and SIGHUP. A signal to the process group reaches the workers
    as well as the main process; a worker that died of it (with a KeyboardInterrupt traceback, for
    Ctrl-C) would break the pool and fail the very examples the main process is draining. The main
    process alone decides when workers end: it shuts the pool down after the drain, and if it is killed
    outright, `_exit_with_parent` ends them."""
    for sig in SHUTDOWN_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    _exit_with_parent()
    global _judge, _spill, _share
    _judge = LexicalJudge(threshold)
    _spill = spill
    _share = share


class _StatusReadOnce(popen_forkserver.Popen):
    """A worker's exit status, which the forkserver sends once (4 bytes on a pipe), read once and kept. Read
    by two threads at once (the pool's manager thread, and any thread starting a process, which polls every
    child), both found it ready and the second read an empty pipe, which CPython takes for a dead forkserver:
    status 255, kept over the first read's. An OOM kill was logged as "exited with code 255"."""

    _reading = threading.Lock()

    def poll(self, flag: int = os.WNOHANG) -> int | None:
        if self.returncode is None and flag != os.WNOHANG:
            wait([self.sentinel])  # not under the lock: a wait for a live worker holds up no other read
        with self._reading:
            return super().poll(os.WNOHANG)


class _Worker(multiprocessing.context.ForkServerProcess):
    """A lexical worker as its pool ends it. A pool that breaks (a worker OOM-killed) ends the workers still
    alive with `terminate`, SIGTERM, which they ignore (`warm`): the pool's manager thread then waited for
    them for ever. On Python 3.11 the lane's scoring stalled `DEATH_REPORT_WAIT` after each death, the live
    workers stayed, holding their memory, and the sidecar hung at exit joining that thread until killed; on
    3.12 and later scoring stopped for good. Ended by SIGKILL instead, and marked so that its
    status is not taken for a death (`_report_death`)."""

    ended_by_pool = False

    @staticmethod
    def _Popen(process_obj: BaseProcess) -> _StatusReadOnce:
        return _StatusReadOnce(process_obj)

    def terminate(self) -> None:
        # exitcode reads the status where the forkserver wrote it and keeps it, where the manager thread, the
        # only caller, reads it next: a worker dead already is left to be reported as such.
        if self.exitcode is None:
            self.ended_by_pool = True
            self.kill()


class _WorkerContext(multiprocessing.context.ForkServerContext):
    Process = _Worker


_WORKERS = _WorkerContext()


def _exit_with_parent() -> None:
    """A worker waits for tasks on a pipe it holds both ends of, so it never notices that the main
    process is gone, and it ignores the signals that would otherwise end it with its process group: a
    SIGKILLed sidecar would leave its workers, and through them the forkserver, running forever. The
    parent's sentinel, the read end of a pipe whose write end only the parent holds, turns readable when
    the parent exits, however it exits."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_when_ready, args=(parent.sentinel,), name="ragmon-parent-watch",
                         daemon=True).start()


def _exit_when_ready(sentinel: int) -> None:
    wait([sentinel])
    os._exit(1)


def _start_forkserver() -> None:
    """Start multiprocessing's forkserver, if it is not running, with SIGINT, SIGTERM and SIGHUP blocked, as
    CPython starts its resource tracker. The forkserver and every worker it forks inherit the mask, so a
    signal to the process group reaches neither, from the first instruction (a worker also ignores both
    once `warm` runs). The forkserver matters too: a worker's exit status reaches the pool through it,
    so when it dies the pool takes every worker for dead and breaks. A signal sent to the main process
    meanwhile waits, blocked, and is handled once the mask is restored: none is lost.

    The resource tracker is started first, under the same mask: it ignores SIGINT and SIGTERM itself, but
    SIGHUP, left to its default, killed it (tracebacks on stderr at exit); starting itself, it unblocks
    SIGINT and SIGTERM in this thread, so they are blocked again before the forkserver starts."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, SHUTDOWN_SIGNALS)
    try:
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, SHUTDOWN_SIGNALS)
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def score_lexical(example: Example, k: int) -> tuple[bytes | str, float, int, int]:
    """Runs in a worker process, with the judge that process keeps for its lifetime. Sends back the
    result without its example, which the main process has: pickled, or the path of the file it is in
    when that is over `INLINE_BYTES` (`read_result`); the time it took; the worker's pid; and what it
    keeps if that is over its share (`kept_over`), else 0."""
    if _judge is None:
        raise RuntimeError("score_lexical runs in a LexicalLane worker, after warm()")
    start = time.perf_counter()
    result = evaluate_example(example, _judge, k)
    duration = time.perf_counter() - start
    data = pickle.dumps(tuple(getattr(result, name) for name in _RESULT_FIELDS), pickle.HIGHEST_PROTOCOL)
    del result
    return _spilled(data), duration, os.getpid(), kept_over(_share, example)


def kept_over(share: int, example: Example) -> int:
    """What this process keeps resident beyond the example it is done with (freed once the pool lets go of
    it), if that is over `share`; else 0. A worker that scored a large example keeps memory its caches no
    longer hold: a 4 MiB Chinese document left one at 195 MiB, a 14 MiB document with an emoji at 226
    MiB, with every cache emptied still 185 (the allocator's arenas, pinned by what survives in them).
    Only a new process gives it back, so the lane replaces the worker. The peak (`getrusage`, one system
    call) clears nearly every example: only a worker that has been over its share since it started reads
    its resident size, from /proc (Linux; elsewhere it is not read)."""
    if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 <= share:
        return 0
    try:
        with open("/proc/self/statm", "rb") as statm:
            resident = int(statm.read().split()[1]) * _PAGE
    except OSError:
        return 0
    texts = (*_documents(example), example.question or "", example.answer or "")
    kept = resident - sum(map(sys.getsizeof, texts))
    return kept if kept > share else 0


def _documents(example: Example) -> Iterable[str]:
    """Each distinct text of the example's contexts, once (a document retrieved twice is one str)."""
    return dict.fromkeys(context.text for context in example.contexts or ())


def _spilled(data: bytes) -> bytes | str:
    """`data`, or the path of a file holding it when it is over `INLINE_BYTES`."""
    if len(data) <= INLINE_BYTES:
        return data
    path = ""
    try:
        handle, path = tempfile.mkstemp(dir=_spill, prefix=f"{os.getpid()}-")
        with os.fdopen(handle, "wb") as spilled:
            spilled.write(data)
    except OSError:  # a full or missing $TMPDIR: through the pipe, as all results once went
        if path:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return data
    return path


_RESULT_FIELDS = tuple(name for name in ExampleResult.__dataclass_fields__ if name != "example")


def read_result(example: Example, payload: bytes | str) -> ExampleResult:
    """The result `score_lexical` sent back for `example`; a spilled file is removed once read."""
    if isinstance(payload, str):
        with open(payload, "rb") as spilled:
            data = spilled.read()
        os.unlink(payload)
    else:
        data = payload
    return ExampleResult(example, *pickle.loads(data))


CLOSE_GRACE = 2.0
"""Seconds `LexicalLane.close` gives busy workers once the drain is over: a lexical example takes
milliseconds (the worst texts found, ~3 s)."""


EXAMPLE_TIMEOUT = 60.0
"""Seconds an example may take from the moment the lane hands it to its pool (where it may wait behind one
other a worker) until its result is back. A lexical example takes milliseconds (the worst texts found, ~3 s);
one past this is a text the judge never finishes (a loop on a pathological input), and its worker would hold
it for ever: the trace never counted, its bytes held against --max-buffer, and with more than one worker,
/healthz still 200 while the others made progress. Past it the pool's workers are killed (`LexicalLane`)."""


RECYCLE_INTERVAL = 10.0
"""Seconds at least between two replacements of the pool for a worker over its share: traffic that
leaves every worker over it (a share too low for it) costs a new pool, its caches' warm-up and a pause
that often, not at every example. A replacement due sooner waits for its time."""


class LexicalLane:
    """The lexical judge in a pool of `workers` processes (forkserver: forking a process that runs gRPC
    threads is unsafe). A worker that dies breaks the pool; the lane then starts a fresh one, and scores
    the examples the broken one held on it (`score`). An example still unscored after `EXAMPLE_TIMEOUT`
    has its pool's workers killed, to the same end, and is given up as a `timeout`. A worker that keeps
    more than `share` bytes after an example has its pool replaced too, gracefully (`_recycle`)."""

    judge = "lexical"

    def __init__(self, *, rate: float, k: int, workers: int, threshold: float = DEFAULT_THRESHOLD,
                 share: int = WORKER_SHARE) -> None:
        self.rate = rate
        self.threshold = threshold
        self.workers = workers
        self.share = share
        self.concurrency = 2 * workers
        """Two examples in flight per worker: one computing, one in the pipe, so no worker idles while
        a result travels back."""
        self._k = k
        self._pool: ProcessPoolExecutor | None = None
        self.worker_pids: tuple[int, ...] = ()
        """Workers that answered a warm-up in `start()` (usually all), for logs and for tests."""
        self.restarts = 0
        """Pools replaced because a worker died: `ragmon_worker_pool_restarts_total`."""
        self.recycles = 0
        """Pools replaced because a worker kept more than its share: `ragmon_worker_pool_recycles_total`."""
        self._recycled_at = -RECYCLE_INTERVAL
        self._recycle_due: asyncio.TimerHandle | None = None
        self._retiring: dict[asyncio.Future[None], ProcessPoolExecutor] = {}
        """Pools replaced for memory, finishing what they hold, until their shutdown ends; and pools broken,
        until their manager thread has ended their live workers (`_settled`)."""
        self._over: dict[ProcessPoolExecutor, dict[int, int]] = {}
        """Per pool, per worker pid: bytes it keeps over its share, until the pool's workers end."""
        self._retrying = asyncio.Lock()
        self._broken: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()
        """Pools whose break has been dealt with, by the first example to learn of it."""
        self._hung: weakref.WeakKeyDictionary[ProcessPoolExecutor, Hung] = weakref.WeakKeyDictionary()
        """Pools whose workers the lane killed, with the example past `EXAMPLE_TIMEOUT` it killed them for."""
        self._workers: weakref.WeakKeyDictionary[ProcessPoolExecutor, dict[int, BaseProcess]] = (
            weakref.WeakKeyDictionary())
        """Each pool's workers by pid, as the pool holds them until its shutdown ends: a retiring pool's
        shutdown may end before its broken worker's death is reported, and the dead worker be named still."""
        self._spill: str | None = None
        """Where workers put results too large for the pipe (`INLINE_BYTES`): the lane's own directory,
        removed on close with anything a worker that died after writing left in it."""
        self._spill_lock: IO[bytes] | None = None
        """Held while the lane lives: a spill directory whose lock no one holds is a dead process's."""

    def _new_pool(self) -> ProcessPoolExecutor:
        multiprocessing.get_context("forkserver").set_forkserver_preload(["ragmon.scoring"])
        _start_forkserver()
        if self._spill is None:
            self._spill, self._spill_lock = _spill_dir()
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=_WORKERS, initializer=warm,
                                   initargs=(self.threshold, self._spill, self.share))
        # concurrent.futures names its workers nowhere public before Python 3.14 (and there to kill them).
        self._workers[pool] = getattr(pool, "_processes", {})
        return pool

    async def start(self) -> None:
        self._pool = self._new_pool()
        loop = asyncio.get_running_loop()
        pool = self._pool
        # A forkserver pool starts a worker per call only while none is idle: four warm-up calls could meet
        # three workers (one finished its call before the fourth was sent), the fourth then started by the
        # first burst of traffic, paying its start-up there. Start them all now, as a "fork" pool does. Here
        # only, where calls follow at once: the pool's manager thread, which tells workers to end, starts
        # with the first call, and workers of a replacement pool closed before any call would be left
        # waiting for one, the process's exit joining them for ever; and a broken pool's replacement must
        # not start a worker before the dead one's status is read (`_broke`).
        getattr(pool, "_launch_processes", lambda: None)()
        pids = await asyncio.gather(*(loop.run_in_executor(pool, os.getpid) for _ in range(self.workers)))
        # Every worker the pool started, not only those that answered: one idle worker answered all four
        # calls, and a worker's later death line named a pid the start-up line never had.
        self.worker_pids = tuple(sorted(set(pids) | set(self._workers[pool])))
        log.info("lexical workers started", extra={"workers": self.workers, "pids": self.worker_pids,
                                                   "threshold": self.threshold})

    async def score(self, example: Example) -> Scored:
        """An example held by a pool whose worker died (the OOM killer, a crash) is scored again on the
        new pool, once. Retries run one at a time: an example that kills every worker it meets (one that
        blows the memory limit) then dies on its second attempt and is given up as an `error`, after two
        deaths rather than a pool killed for ever, while the examples that died beside it the first time,
        each retried apart from it, cannot die with it again."""
        try:
            return await self._attempt(example)
        except BrokenProcessPool:
            if self._pool is None:  # closed meanwhile: no pool to retry on
                raise
        async with self._retrying:
            try:
                return await self._attempt(example)
            except BrokenProcessPool:
                if self._pool is None:
                    raise
        message = (f"lexical judge: example {example.id!r} given up: its pool broke while holding it, and "
                   "again on its retry (an example that kills its worker is not retried for ever)")
        log.error(message, extra={"trace_id": example.id, "judge": self.judge})
        raise LaneRefusal("error", message)

    async def _attempt(self, example: Example) -> Scored:
        if self._retiring:
            await asyncio.wait(self._retiring)
        pool = self._pool
        if pool is None:
            raise RuntimeError("lane not started")
        try:
            payload, duration, pid, kept = await self._run(pool, example)
        except BrokenProcessPool as broken:
            await self._broke(pool, broken)
            hung = self._hung.get(pool)
            if hung is not None and hung.example is example:
                raise LaneRefusal("timeout", hung.message, duration=hung.seconds) from None
            raise
        if kept:
            self._over.setdefault(pool, {})[pid] = kept - self.share
            if self._pool is pool and self._recycle_due is None:
                self._schedule_recycle(pool, kept, example)
        return Scored(read_result(example, payload), duration)

    async def _run(self, pool: ProcessPoolExecutor, example: Example) -> tuple[bytes | str, float, int, int]:
        """`score_lexical` on `pool`; past `EXAMPLE_TIMEOUT` the first example found late kills the pool's
        workers, which breaks it: examples are handed over in order, so the first late is the oldest the
        pool holds, the one a worker is stuck on. Any other late meanwhile is one queued behind it."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(pool, score_lexical, example, self._k)
        try:
            await asyncio.wait((future,), timeout=EXAMPLE_TIMEOUT)
        except asyncio.CancelledError:
            future.cancel()
            raise
        if not future.done() and pool not in self._hung:
            self._hung[pool] = _kill_hung(self._workers.get(pool, {}), example)
        return await future

    async def _broke(self, pool: ProcessPoolExecutor, broken: BrokenProcessPool) -> None:
        """Dealt with once, by the first example to learn of it (every other example the pool held learns
        too): the current pool is replaced, and the death reported, of a retiring pool's worker too (one
        over its share of memory is the likeliest to be OOM-killed while it finishes its last examples)."""
        if pool in self._broken:
            return
        self._broken.add(pool)
        if self._pool is pool:
            self._pool = self._new_pool()
            self.restarts += 1
            self._over.pop(pool, None)
            # Examples wait for the broken pool's manager thread to end its live workers before the new pool
            # starts one: a pool an OOM kill broke is short of memory, which new workers beside the old ones
            # would take more of. (Starting a worker polls every child process; a status read twice at once
            # is read once all the same: `_StatusReadOnce`.)
            settled = asyncio.ensure_future(asyncio.to_thread(_settled, pool))
            self._retiring[settled] = pool
            settled.add_done_callback(self._retired)
        hung = self._hung.get(pool)
        await asyncio.to_thread(_report_death, pool, dict(self._workers.get(pool, {})), broken,
                                () if hung is None else hung.pids)

    def _schedule_recycle(self, pool: ProcessPoolExecutor, kept: int, example: Example) -> None:
        """`_recycle` now, or once `RECYCLE_INTERVAL` has passed since the last."""
        loop = asyncio.get_running_loop()
        now = loop.time()  # read once: asked again, the wait logged had come out as -0.0
        due = max(now, self._recycled_at + RECYCLE_INTERVAL)
        # In tenths of a MiB: rounded to whole MiB, a worker 0.3 MiB over its share of 80 logged 80 and 80.
        told = {"kept_mib": round(kept / 2**20, 1), "share_mib": round(self.share / 2**20, 1),
                "trace_id": example.id, "in_seconds": round(due - now, 1)}
        log.info("a lexical worker kept more than its share of memory after an example; its pool is "
                 "replaced", extra=told)
        if due > now:
            self._recycle_due = loop.call_at(due, self._recycle, pool)
        else:
            self._recycle(pool)

    def _recycle(self, pool: ProcessPoolExecutor) -> None:
        """New examples go to a new pool once the old one has finished the few it holds (two a worker)
        and its workers have ended, giving their memory back. Examples wait for it, rather than run on
        both pools at once: two workers each scoring a large document took 356 MiB where one took 208."""
        self._recycle_due = None
        if self._pool is not pool:  # died meanwhile, or closed
            return
        self._recycled_at = asyncio.get_running_loop().time()
        self._pool = self._new_pool()
        self.recycles += 1
        retiring = asyncio.ensure_future(asyncio.to_thread(pool.shutdown, wait=True))
        self._retiring[retiring] = pool
        retiring.add_done_callback(self._retired)

    def _retired(self, retiring: asyncio.Future[None]) -> None:
        self._over.pop(self._retiring.pop(retiring), None)

    @property
    def over_share(self) -> int:
        """Bytes workers keep over their share until their pool is replaced and they end: the sidecar
        counts them against --max-buffer meanwhile, so that the bound holds over those seconds too."""
        return sum(sum(workers.values()) for workers in self._over.values())

    async def close(self) -> None:
        """Waits, off the event loop, until the pool's manager thread has ended. Left running, it races
        the interpreter's exit hook for ProcessPoolExecutor (CPython 3.11 writes to the wakeup pipe that
        thread is closing: "Exception ignored in: <module 'threading'> ... OSError: [Errno 9]"). The wait
        costs nothing: the exit hook joins that thread anyway.

        Up to `CLOSE_GRACE` seconds: the sidecar closes its lanes once `--drain-seconds` are over, and a
        worker still busy then is stuck (a stopped process, a pathological text), which the wait would
        follow for ever: a SIGTERMed sidecar ran until Kubernetes killed it. Past the grace the workers
        are killed, which ends the wait."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        if self._recycle_due is not None:
            self._recycle_due.cancel()
            self._recycle_due = None
        shutdown = asyncio.ensure_future(asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True))
        pools = {shutdown: pool, **self._retiring}
        _, busy = await asyncio.wait(pools, timeout=CLOSE_GRACE)
        if busy:
            workers = {pid: worker for ending in busy
                       for pid, worker in self._workers.get(pools[ending], {}).items()}
            log.warning("lexical workers still busy after the drain; killing them",
                        extra={"grace_seconds": CLOSE_GRACE, "pids": sorted(workers)})
            for worker in workers.values():
                worker.kill()
        await asyncio.gather(*pools)
        if self._spill is not None:
            shutil.rmtree(self._spill, ignore_errors=True)
            self._spill = None
        if self._spill_lock is not None:
            self._spill_lock.close()
            self._spill_lock = None


SPILL_PREFIX = "ragmon-results-"
SPILL_GRACE = 60.0
"""Seconds a spill directory without its lock file is left alone: a lane may be between making it and
locking it."""


def _spill_dir() -> tuple[str, IO[bytes]]:
    """A new spill directory under $TMPDIR, locked, after removing those no live lane holds: a sidecar
    SIGKILLed (an OOM kill, a liveness restart) left its directory and the results in it, and the next
    container of the pod, on the same emptyDir, would never remove them."""
    for stale in glob.glob(os.path.join(glob.escape(tempfile.gettempdir()), SPILL_PREFIX + "*")):
        try:
            with open(os.path.join(stale, ".lock"), "rb") as other:
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except FileNotFoundError:
            if not _older_than(stale, SPILL_GRACE):
                continue
        except OSError:  # a live lane holds it
            continue
        shutil.rmtree(stale, ignore_errors=True)
    path = tempfile.mkdtemp(prefix=SPILL_PREFIX)
    lock = open(os.path.join(path, ".lock"), "wb")  # noqa: SIM115 (held for the lane's life)
    fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    return path, lock


def _older_than(path: str, seconds: float) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime > seconds
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class Hung:
    """An example past `EXAMPLE_TIMEOUT`, and the workers killed for it."""

    example: Example
    pids: tuple[int, ...]
    seconds: float
    message: str


def _kill_hung(processes: dict[int, BaseProcess], example: Example) -> Hung:
    """Kills every worker of a pool, as which one is stuck on `example` is known nowhere: the others' examples
    are retried on the new pool, as after any death. Logged here, once, naming the example."""
    for worker in processes.values():
        worker.kill()
    pids = tuple(sorted(processes))
    message = (f"lexical judge: example {example.id!r} given up as a timeout: not scored within "
               f"{EXAMPLE_TIMEOUT:g} s (a text the judge cannot finish, or a stopped or CPU-starved worker); "
               f"the workers of its pool, {', '.join(map(str, pids))}, were killed, and the other examples "
               "they held are retried once on a new pool")
    log.error(message, extra={"trace_id": example.id, "judge": LexicalLane.judge, "pids": pids,
                              "timeout_seconds": EXAMPLE_TIMEOUT})
    return Hung(example, pids, EXAMPLE_TIMEOUT, message)


DEATH_REPORT_WAIT = 5.0
"""Seconds a broken pool's manager thread gets to end before its dead worker is named. It reads every
worker's exit status as soon as the pool breaks, then waits for the live ones to finish what the pool
had queued: milliseconds (the worst texts found, ~3 s). Past the wait (a live worker stuck) the dead one's
status has been read all the same."""


def _report_death(pool: ProcessPoolExecutor, processes: dict[int, BaseProcess], broken: BrokenProcessPool,
                  killed: tuple[int, ...]) -> None:
    """One line per dead worker, naming its pid and how it ended, which tells an OOM kill (SIGKILL) from a
    crash; no traceback, which shows only concurrent.futures' internals. A pool broken with no worker
    dead (a result that cannot be unpickled) is a bug in ragmon, logged with its traceback. The workers the
    lane `killed` for an example past its time have had their line (`_kill_hung`): theirs is no OOM kill.

    The statuses are read once the pool's manager thread has ended the live workers: one that died of
    itself by then (two OOM-killed moments apart) is named, one the pool killed (`ended_by_pool`) is not.
    Runs in a thread of its own, which writes the line even if the example's consumer is cancelled
    meanwhile (the drain is over)."""
    _settled(pool)
    dead = {pid: code for pid, process in processes.items()
            if (code := process.exitcode) not in (None, 0) and not getattr(process, "ended_by_pool", False)}
    if not dead:
        log.error("the lexical worker pool broke with no worker dead; starting a new pool", exc_info=broken)
    for pid, code in sorted(dead.items()):
        if pid in killed:
            continue
        log.error(f"lexical worker {pid} {_how_it_ended(code)}; the examples its pool held are retried "
                  "once on a new pool", extra={"pid": pid, "exitcode": code})


def _settled(pool: ProcessPoolExecutor) -> None:
    """Once a broken pool's manager thread has read its workers' exit statuses (it ends then), or
    `DEATH_REPORT_WAIT` has passed."""
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if isinstance(manager, threading.Thread):
        manager.join(DEATH_REPORT_WAIT)


def _how_it_ended(exitcode: int) -> str:
    """As the kernel's log names it: a signal by name (multiprocessing gives it as a negative exit code)."""
    if exitcode >= 0:
        return f"exited with code {exitcode}"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    if -exitcode == signal.SIGKILL:
        return (f"was killed by {name}, which is usually the kernel's OOM killer: check the container's "
                "memory limit")
    return f"was killed by {name}"
