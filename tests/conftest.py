"""Fixtures shared across the suite. Servers bind 127.0.0.1 on free ports and are stopped by their test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from ports import free_port

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


class ServeProcess:
    """A `ragmon serve` subprocess started on port 0, with the ports it bound read from its ready log line."""

    def __init__(self, process: subprocess.Popen[str], ready: dict[str, Any]) -> None:
        self.process = process
        self.ready = ready

    def stop(self, sig: int) -> tuple[int, list[dict[str, Any]]]:
        """Send `sig`, wait for the exit; returns the exit code and the JSON log lines."""
        self.process.send_signal(sig)
        _, err = self.process.communicate(timeout=30)
        logs = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
        return self.process.returncode, logs


@contextmanager
def _serve_process(args: list[str], env: dict[str, str] | None = None) -> Iterator[ServeProcess]:
    """Run the real CLI; the process is killed on the way out whatever the test did."""
    command = [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", "127.0.0.1:0",
               "--grpc-listen", "off", "--metrics-listen", "127.0.0.1:0", "--log-format", "json", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    try:
        assert process.stderr is not None
        ready = None
        while ready is None and (line := process.stderr.readline()):
            entry = json.loads(line) if line.startswith("{") else {}
            ready = entry if entry.get("message") == "ragmon serve ready" else None
        assert ready is not None, "ragmon serve exited before it was ready"
        yield ServeProcess(process, ready)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.fixture
def serve_process() -> Callable[..., AbstractContextManager[ServeProcess]]:
    """`with serve_process(["--quiet", "50ms"], env) as serve:` runs `ragmon serve` for the block."""
    return _serve_process
