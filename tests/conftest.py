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
