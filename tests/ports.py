"""Free loopback ports for servers started by tests (importable from any test folder)."""

from __future__ import annotations

import itertools
import os
import socket
from collections.abc import Iterator

LOWEST = 10_000
"""Below this, ports belong to services a machine may run; tests keep out of them."""

SLICES = 8
"""Workers whose ports never meet: xdist's gw0..gw6 each take one slice, a run without xdist the last."""


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as ranges:
            return int(ranges.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _candidates() -> Iterator[int]:
    """This worker's slice of the ports below the ephemeral range, round and round, from a point that differs
    from run to run so a port a previous run left in TIME_WAIT is not the first one tried."""
    width = max((_ephemeral_low() - LOWEST) // SLICES, 1)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) % (SLICES - 1) if worker.startswith("gw") and worker[2:].isdigit() else SLICES - 1
    start = LOWEST + index * width
    offset = os.getpid() % width
    return (start + (offset + step) % width for step in itertools.count())


_ports = _candidates()


def free_port() -> int:
    """A port free now that nothing else in the test run will take before the caller binds it.

    A port the kernel hands out for port 0 lies in its ephemeral range, which every connection opened
    meanwhile, by this worker or the other, draws from: it was taken between choosing and binding now and
    then. Ports below that range, one slice per worker, each handed out once, are taken by no one else."""
    if _ephemeral_low() - LOWEST < SLICES * 64:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])
    while True:
        port = next(_ports)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
