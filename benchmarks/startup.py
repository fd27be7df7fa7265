"""What a `ragmon` command costs before and around its work: CPU seconds of whole processes, each new.

Every CI step that gates a build, every sidecar start and its forkserver, and each of the test suite's
hundreds of CLI subprocesses pays for importing ragmon before the first argument is read. Three commands, each
run `--runs` times in a fresh process: the imports `ragmon serve` makes (and exits), `ragmon replay` of the
shipped golden set (17 examples: start-up and the patterns the judge first uses dominate), and `ragmon replay
--help`. Prints the least and the median of user + system CPU (the least is the figure least moved by other
work on the machine).

Run: `.venv/bin/python benchmarks/startup.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "import for serve": ["-c", "import ragmon.cli, ragmon.service"],
    "replay golden.jsonl": ["-m", "ragmon.cli", "replay", str(ROOT / "examples" / "golden.jsonl")],
    "replay --help": ["-m", "ragmon.cli", "replay", "--help"],
}


def cpu_seconds(args: list[str]) -> float:
    """User + system CPU of one run of `python args`, from the kernel's count for that child."""
    process = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"startup.py: {' '.join(args)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    for name, args in COMMANDS.items():
        seconds = [cpu_seconds(args) for _ in range(runs)]
        print(f"{name:22} least {min(seconds):.3f} s CPU, median {statistics.median(seconds):.3f} s "
              f"({runs} runs)")


if __name__ == "__main__":
    main()
