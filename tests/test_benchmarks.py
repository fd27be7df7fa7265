"""The benchmark scripts a reader runs from the README, as a reader runs them: bad input is one line."""

from __future__ import annotations

import json
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


def test_rule_by_rule_switches_each_rule_off_and_ends_at_the_judge_as_it_is() -> None:
    # The README's `judge_accuracy.py examples/labelled.jsonl --rules`: the units rule's stand-in took one
    # argument where ragmon.text.terms now passes two, and the script died with a TypeError at that row.
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "judge_accuracy.py"),
                          str(ROOT / "examples" / "labelled.jsonl"), "--rules"],
                         capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert (run.returncode, run.stderr) == (0, "")
    lines = run.stdout.splitlines()
    judge = next(line for line in lines if line.startswith("lexical (0.56)"))
    rules = lines[lines.index("rule by rule:") + 1:]
    assert [line.split(" sentence P ")[0].rstrip() for line in rules] == [
        "previous judge (0.60)", "threshold 0.56", "+ US, UK: one word for all their names",
        "+ British spelling as American", "+ negative prefixes: own terms, opposite vetoes",
        "+ a number's unit is one its context gives it"]
    # Every rule on again is the judge itself: the same figures, past the row's label.
    assert rules[-1].split(" sentence P ")[1] == judge.split(" sentence P ")[1]


def _calls(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "calls.py"), *args],
                          capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)


def test_the_offline_gate_and_the_sidecar_cost_no_more_calls_than_recorded() -> None:
    # The CI guard on speed: the gate fell from 2,086 to 974 examples/s with every test passing. At that
    # commit (e4c552e) the replay workload made 1,231 Python and 2,640 builtin calls an example; now 730
    # and 1,072. A change that costs more on purpose records its figures (`calls.py --record`).
    run = _calls("--check")
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    assert [line.split()[0] for line in run.stdout.splitlines()[1:5]] == ["replay", "pages", "sidecar",
                                                                          "otlp_json"]


def test_a_workload_over_its_recorded_calls_fails_the_check_and_is_named(tmp_path: Path) -> None:
    # Recorded here, on the Python running the test, then lowered: calls.json is recorded on 3.11, and
    # 3.12 makes fewer calls on the same workloads (replay: 688 an example, not 730), so 3.11's figure
    # lowered by a sixth was only 13% under 3.12's.
    lowered = tmp_path / "calls.json"
    assert _calls("--record", "--recorded", str(lowered)).returncode == 0
    recorded = json.loads(lowered.read_text(encoding="utf-8"))
    replay = recorded["replay"]["python_calls"]
    recorded["replay"]["python_calls"] = int(replay / 1.2)  # the figure measured is 20% over this
    lowered.write_text(json.dumps(recorded), encoding="utf-8")
    run = _calls("--check", "--recorded", str(lowered))
    assert run.returncode == 1
    over = [line for line in run.stdout.splitlines() if line.startswith("over:")]
    assert over == [f"over: replay python_calls: {replay:,} per unit, recorded {int(replay / 1.2):,} "
                    "(+20%, allowed +10%)"]


@pytest.mark.parametrize("script", sorted(path.name for path in (ROOT / "benchmarks").glob("*.py")))
def test_every_benchmark_answers_help_with_its_usage(script: str) -> None:
    # calls.py died in argparse on its help's "10%" (a traceback), and interval_coverage.py took no flags:
    # its --help ran the 6-minute study.
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"],
                         capture_output=True, text=True, timeout=60, check=False, cwd=ROOT)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.startswith(f"usage: {script} ")
