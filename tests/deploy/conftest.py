"""Fixtures of the deploy tests: the parsed Dockerfile, the env names `ragmon serve` reads, loopback ports."""

from __future__ import annotations

import argparse
import socket
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import pytest
from dockerfile_model import Dockerfile, parse_dockerfile

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return parse_dockerfile((ROOT / "Dockerfile").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def serve_env_names() -> frozenset[str]:
    """Every RAGMON_* variable `ragmon serve` reads: one per flag (the CLI's mapping) plus RAGMON_TOKEN."""
    from ragmon import serve_config

    parser = argparse.ArgumentParser()
    serve_config.add_arguments(parser)
    names = set()
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if longs and action.dest != "help":
            names.add("RAGMON_" + longs[0][2:].upper().replace("-", "_"))
    return frozenset(names | {"RAGMON_TOKEN"})


@pytest.fixture
def loopback_ports() -> Callable[[int], list[int]]:
    """`loopback_ports(n)`: n distinct free ports on 127.0.0.1 (all held open while choosing)."""

    def choose(count: int) -> list[int]:
        with ExitStack() as stack:
            sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
            for sock in sockets:
                sock.bind(("127.0.0.1", 0))
            return [int(sock.getsockname()[1]) for sock in sockets]

    return choose
