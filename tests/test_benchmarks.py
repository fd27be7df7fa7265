"""The benchmark scripts a reader runs from the README, as a reader runs them: bad input is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("script", ["judge_accuracy.py", "judge_ceiling.py"])
def test_a_dataset_that_cannot_be_read_is_one_error_line_and_exit_2(tmp_path: Path, script: str) -> None:
    # Before: a traceback ending in ragmon.errors.InputError, exit 1.
    missing = tmp_path / "nonexistent.jsonl"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), str(missing)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == f"error: {missing}: cannot read dataset: No such file or directory\n"
