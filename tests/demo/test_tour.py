"""`ragmon demo --all`, what `make demo` runs, as a user runs it: a subprocess on loopback."""

from __future__ import annotations

import re
import subprocess
import sys


def test_demo_tour_runs_every_phase_and_gates_the_golden_sets() -> None:
    result = subprocess.run([sys.executable, "-m", "ragmon.cli", "demo", "--all"], capture_output=True,
                            text=True, timeout=120, check=False)
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
    assert "SIGTERM -> the sidecar drained and exited with 0" in out
    assert "-- hallucinating build: exit 1 (gate breached)" in out
    assert "-- healthy build: exit 0 (gates held)" in out
