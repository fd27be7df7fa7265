"""Fixtures shared across the suite. Servers bind 127.0.0.1 on free ports and are stopped by their test."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def ragmon_cmd() -> list[str]:
    """The real CLI as a user runs it, in a subprocess."""
    return [sys.executable, "-m", "ragmon.cli"]
