"""`ragmon demo --all`, what `make demo` runs, as a user runs it: a subprocess on loopback."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from dropped_signals import drop_a_sigterm
from ports import free_port

from ragmon import cli
from ragmon.demo import tour


def _ignore_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_demo_tour_runs_every_phase_and_gates_the_golden_sets() -> None:
    # The user's own ragmon settings must not leak into the tour's sidecar: with RAGMON_TOKEN inherited
    # it would demand a bearer token the demo app never sends, and every export would fail with 401.
    # Started as `trap '' TERM; ragmon demo --all` too: the sidecar inherits the ignore and `ragmon serve`
    # keeps a signal ignored at start ignored, so unless the tour undoes it for its sidecar, the SIGTERM it
    # stops the sidecar with does nothing: it waited 60 s, then a traceback. (One run checks both: a tour
    # takes ~12 s.)
    env = {**os.environ, "RAGMON_TOKEN": "a-token-the-demo-app-does-not-know"}
    result = subprocess.run([sys.executable, "-m", "ragmon.cli", "demo", "--all"], capture_output=True,
                            text=True, timeout=120, check=False, env=env, preexec_fn=_ignore_sigterm)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    rows = {m["phase"]: (int(m["traces"]), float(m["grounded"]), float(m["halluc"]))
            for m in re.finditer(r"^(?P<phase>healthy|degraded|hallucinating)\s+(?P<traces>\d+)\s+\d+\s+"
                                 r"(?P<grounded>[\d.]+)\s+(?P<halluc>[\d.]+)", out, re.MULTILINE)}
    assert set(rows) == {"healthy", "degraded", "hallucinating"}
    assert all(traces == 32 for traces, _, _ in rows.values())
    # Every healthy answer quotes its policy verbatim (see test_rag.py): all claims supported.
    assert rows["healthy"][1:] == (1.0, 0.0)
    assert rows["hallucinating"][1] < rows["degraded"][1] < rows["healthy"][1]
    # The degraded build refuses some questions: its gauge counts fewer answers, and the legend says why.
    degraded_gauge_n = re.search(r"^degraded\s.*\((\d+)\)$", out, re.MULTILINE)
    assert degraded_gauge_n is not None and int(degraded_gauge_n[1]) < 32
    assert "window gauge: the mean of each answer's groundedness, over the n answers that made a claim" in out
    assert "SIGTERM -> the sidecar drained and exited with 0" in out
    assert "-- hallucinating build: exit 1 (gate breached)" in out
    assert "-- healthy build: exit 0 (gates held)" in out
    # The closing hint names a file the user can re-run it on, not a `<golden.jsonl>` placeholder: the
    # shipped healthy set, which holds the gate as the tour's healthy build did.
    hint = re.search(r"^offline gate on .*: (ragmon replay (\S+) .*)\)$", out, re.MULTILINE)
    assert hint is not None and hint[2] == "examples/demo-golden.jsonl", out
    rerun = subprocess.run([sys.executable, "-m", "ragmon.cli", *hint[1].split()[1:]], capture_output=True,
                           text=True, timeout=120, check=False, cwd=Path(__file__).resolve().parents[2])
    assert rerun.returncode == 0 and rerun.stdout.rstrip().endswith("PASS"), rerun.stdout + rerun.stderr


def test_a_sidecar_that_cannot_start_fails_the_tour_with_its_reason(
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        # The sidecar's OTLP listener is sent to a port something else already listens on (its metrics
        # listener to a free one: both on the taken port are refused before any bind, as the same port).
        ports = iter([taken.getsockname()[1], free_port()])
        monkeypatch.setattr(tour, "_free_port", lambda: next(ports))
        code = cli.main(["demo", "--all"])

    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and "internal error" not in err
    assert "ragmon demo: error: `ragmon serve` exited with 2 before it was ready" in err
    assert "address already in use" in err  # the sidecar's own log, shown to say why


def _children(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def test_sigterm_to_the_tour_stops_its_sidecar() -> None:
    tour_process = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--all"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    sidecars: list[int] = []
    try:
        assert tour_process.stdout is not None
        for line in tour_process.stdout:
            if line.startswith("ready after"):
                break
        sidecars = _children(tour_process.pid)
        assert len(sidecars) == 1 and _alive(sidecars[0])
        tour_process.send_signal(signal.SIGTERM)  # as `timeout`, a CI cancel or a process manager sends
        tour_process.communicate(timeout=30)
        deadline = time.monotonic() + 10
        while _alive(sidecars[0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(sidecars[0]), "the tour left its sidecar running"
        assert tour_process.returncode == 128 + signal.SIGTERM  # the shell's convention for "killed by"
    finally:
        for pid in [tour_process.pid, *sidecars]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        tour_process.wait()


def test_a_sigterm_python_dropped_still_stops_the_tour_and_its_sidecar(
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # What CI saw once: the tour's SIGTERM came while Python ran a finalizer, which dropped its exception;
    # the tour went on to the end and exited 0 (test_sigterm_to_the_tour_stops_its_sidecar failed).
    sidecars: list[int] = []

    def phases_losing_the_signal(http_port: int, metrics_url: str, work: Path,
                                 checkpoint: Callable[[], None]) -> dict[str, float]:
        sidecars.extend(pid for pid in _children(os.getpid())
                        if b"serve" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"))
        drop_a_sigterm()
        tour.wait_for("the window to empty", lambda: False, 60, checkpoint)
        raise AssertionError("the wait went on after the SIGTERM")

    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    monkeypatch.setattr(tour, "_run_phases", phases_losing_the_signal)
    code = cli.main(["demo", "--all"])

    assert code == 128 + signal.SIGTERM
    assert len(sidecars) == 1 and not _alive(sidecars[0])
    assert capsys.readouterr().err.endswith("ragmon demo: terminated (SIGTERM)\n")


def test_a_reader_that_stops_reading_ends_the_tour_with_one_line_and_its_sidecar_stopped() -> None:
    # `ragmon demo --all | head -1`: head exits after the first line, and the tour's next line meets a closed
    # pipe.
    tour_process = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--all"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert tour_process.stdout is not None and tour_process.stderr is not None
        first = tour_process.stdout.readline()
        tour_process.stdout.close()
        err = tour_process.stderr.read()
        tour_process.wait(timeout=60)
    finally:
        if tour_process.poll() is None:
            tour_process.kill()
            tour_process.wait()
    assert err == "ragmon demo: error: cannot write the demo's progress to standard output: Broken pipe\n"
    assert tour_process.returncode == 2
    # The sidecar it started has let go of its ports: a second run may listen there (as servers do, over
    # the TIME_WAIT of the connections the tour made).
    ports = re.search(r"OTLP/HTTP 127\.0\.0\.1:(\d+), metrics 127\.0\.0\.1:(\d+)", first)
    assert ports is not None, first
    for port in map(int, ports.groups()):
        with socket.socket() as again:
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))
            again.listen()
