"""Fixtures shared across the suite. Servers bind 127.0.0.1 on free ports and are stopped by their test."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from ports import free_port
from serve_cli import ServeProcess, serve_cli

ROOT = Path(__file__).resolve().parent.parent


LONGEST_FILES = {
    "tests/deploy/test_promtool.py": 128,
    "tests/test_replay_target.py": 124,
    "tests/test_replay.py": 109,
    "tests/test_rules.py": 72,
    "tests/deploy/test_entrypoint.py": 57,
    "tests/demo/test_demo_app.py": 52,
    "tests/test_capture_streams.py": 48,
    "tests/judges/test_claude.py": 47,
    "tests/test_service.py": 44,
    "tests/deploy/test_core_install.py": 41,
    "tests/judges/test_lexical_history.py": 40,
    "tests/test_llm_lane.py": 40,
    "tests/deploy/test_grafana.py": 38,
    "tests/test_serve_startup_errors.py": 37,
    "tests/test_service_signals.py": 34,
    "tests/otlp/test_decode_fuzz.py": 25,
    "tests/demo/test_tour.py": 23,
    "tests/deploy/test_prometheus_e2e.py": 23,
    "tests/datasets/test_datasets_fuzz.py": 22,
    "tests/semconv/test_extract_several_calls.py": 21,
    "tests/test_service_llm.py": 21,
    "tests/semconv/test_extract_fuzz.py": 20,
    "tests/test_calibrate_reports.py": 19,
    "tests/test_benchmarks.py": 17,
    "tests/judges/test_claude_deadline.py": 16,
    "tests/test_replay_target_hangs.py": 15,
}
"""Seconds each of the suite's longest files kept a worker busy (`make test`'s three workers, the whole suite
once, 2026-12-07), longest first. xdist's --dist loadfile hands a free worker the next file in the order the
items come, and by default first reorders the files by their count of tests: test_entrypoint.py (one test,
~57 s installing the image's packages from the index) and test_prometheus_e2e.py (one, ~23 s) went last.
`make test` turns that reordering off (--no-loadscope-reorder) and the files below go first, the longest
first; the rest keep the order they are collected in. Replayed with that run's times per file, three workers
handed files as they come free end at 523, 533 and 564 s in xdist's order, at 535, 536 and 549 s in this."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    longest = sorted(LONGEST_FILES, key=LONGEST_FILES.__getitem__, reverse=True)
    rank = {path: i for i, path in enumerate(longest)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(autouse=True)
def own_signal_handlers() -> Iterator[None]:
    """Each test finds SIGINT, SIGTERM and SIGHUP as the one before it found them: a run stopped in this
    process (ragmon replay, serve) leaves them ignored, as it should until its process exits, and asyncio.run
    installs its Ctrl-C handler only over the default one, so a later test's run would take SIGTERM
    otherwise (found when the order of files changed)."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in saved.items():
        if handler is not None:
            signal.signal(sig, handler)


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def ragmon_cmd() -> list[str]:
    """The real CLI as a user runs it, in a subprocess."""
    return [sys.executable, "-m", "ragmon.cli"]


@pytest.fixture
def serve_process() -> Callable[..., AbstractContextManager[ServeProcess]]:
    """`with serve_process(["--quiet", "50ms"], env) as serve:` runs `ragmon serve` for the block."""
    return serve_cli
