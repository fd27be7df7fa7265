"""Lexical scoring cost in instructions per example, with every passage new: a figure that does not move
with the machine's load, to tell whether a change made the judge faster, where `scoring.py`'s examples/s
moves by several per cent from one run to the next on a shared machine.

Runs the workload of `scoring.py` ("all new") twice under valgrind's callgrind, which counts instructions:
both runs build the same examples and score the same warm-up set, then score `--few` and `--many` of the
timed ones. The difference of the two totals over the difference of the counts is the cost of scoring one
example, with start-up, imports, the building of examples and the warm-up cancelled out, and with a fixed hash
seed the totals repeat to the instruction on one machine and Python build. Each run takes
about a minute (callgrind runs Python some 50 times slower).
Run: `.venv/bin/python benchmarks/scoring_instructions.py [--few N] [--many N]` (needs valgrind).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scoring import Writer, examples

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.text.deferred import compile_all

WARM_UP = 500
COLLECTED = re.compile(rb"Collected : (\d+)")


def score(count: int, built: int) -> None:
    """What each counted run does: `built` timed examples are made whatever `count` is. Every pattern is
    compiled first, as at import before `ragmon.text.deferred`: a pattern that only the larger run reaches
    would count its compiling as scoring."""
    compile_all()
    writer, judge = Writer(seed=11), LexicalJudge()
    warm_up = examples(writer, WARM_UP, None)
    timed = examples(writer, built, None)
    for example in warm_up + timed[:count]:
        evaluate_example(example, judge, 5)


def instructions(count: int, built: int) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={Path(scratch) / 'out'}", sys.executable,
             __file__, "--score", str(count), "--built", str(built)], capture_output=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"})  # the same dict layouts in every run
    found = COLLECTED.search(done.stderr)
    if found is None:
        output = done.stderr.decode(errors="replace")
        raise SystemExit(f"no instruction count in callgrind's output:\n{output}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--few", type=int, default=100, help="examples scored in the first run (default 100)")
    parser.add_argument("--many", type=int, default=600, help="examples scored in the second (default 600)")
    parser.add_argument("--score", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--built", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.score is not None:
        score(args.score, args.built)
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if not 0 <= args.few < args.many:
        raise SystemExit("--few must be at least 0 and below --many")
    few, many = instructions(args.few, args.many), instructions(args.many, args.many)
    per_example = (many - few) / (args.many - args.few)
    print(f"lexical judge, all passages new (the workload of scoring.py): {per_example:,.0f} instructions "
          f"per example ({args.many - args.few} examples: {many:,} - {few:,} instructions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
