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
LONGEST_FILES = ("tests/test_rules.py", "tests/judges/test_lexical_history.py", "tests/test_replay_target.py",
                 "tests/deploy/test_promtool.py", "tests/deploy/test_entrypoint.py",
                 "tests/test_capture_streams.py", "tests/demo/test_demo_app.py",
                 "tests/deploy/test_core_install.py")
"""The files that take longest (20-140 s each on one worker), slowest first."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, then the rest by their number of tests, most first: `make test` runs
    `pytest -n 3 --dist loadfile --no-loadscope-reorder`, each file whole on one worker, handed out in this
    order. xdist's own order (by number of tests alone) handed out the long files of few tests last, and
    one worker ran each alone while the other cores idled: the last tenth of the suite took a third of its
    time."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item.nodeid.split("::")[0]] = counts.get(item.nodeid.split("::")[0], 0) + 1
    first = {path: rank for rank, path in enumerate(LONGEST_FILES)}
    order = {path: (first.get(path, len(first)), -count, position)
             for position, (path, count) in enumerate(counts.items())}
    items.sort(key=lambda item: order[item.nodeid.split("::")[0]])


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
