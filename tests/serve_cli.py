"""A `ragmon serve` subprocess of the real CLI for a test: a module of its own, not conftest, since a test
module importing `conftest` gets whichever conftest.py was imported first under xdist (tests/semconv's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


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
def serve_cli(args: list[str], env: dict[str, str] | None = None) -> Iterator[ServeProcess]:
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
