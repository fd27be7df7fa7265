"""Python calls per unit of work on the offline gate's and the sidecar's workloads: a cost figure that does
not move with the machine's load, checked in CI against the figures recorded in `calls.json`.

Why: the offline gate fell from 2,086 to 974 examples/s, and the sidecar scored a third fewer traces a
second, over sessions in which every test passed, because the only cost check (`scoring_instructions.py`,
under valgrind, run by hand) measured a workload the new rules never ran on. Seconds cannot be checked on a
shared CI runner; the number of Python function calls (`sys.setprofile`'s "call" events, Python code
entered) and builtin calls ("c_call") can: it repeats to within a few per cent from run to run (set order
moves with the hash seed) and grows with the work a change adds per example, a rule reading every sentence
of every page most of all. It does not see a slower regular expression or a costlier builtin: the
instruction count does, `scoring_instructions.py`.

Workloads, each after a warm-up on other input so that import-time and first-use costs are left out:
- `replay`: `benchmarks/replay.py`'s examples (5 new documents of ~200 words, an answer of 4 sentences,
  relevant ids, citations, ground truth) loaded from a golden JSONL file and evaluated, per example;
- `pages`: the English corpora's answers and pages (`scoring.py`'s "English pages": tables, fees, units),
  judged, per example;
- `sidecar`: `benchmarks/ingest.py`'s traces as OTLP/protobuf requests decoded, assembled, extracted and
  judged as `ragmon serve` does, per trace;
- `otlp_json`: the same requests as OTLP/JSON, decoded, per trace.

`--check` fails (exit 1) when a workload makes more than `TOLERANCE` more calls per unit than recorded, and
says so when it makes far fewer (record the gain: `--record`). A change that costs more on purpose records
its figures with `--record` and says why in its commit.
Run: `.venv/bin/python benchmarks/calls.py [--check | --record]`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

import ingest  # benchmarks/: the script's own directory is sys.path[0]
import pipeline
import replay
import scoring

from ragmon.datasets import load
from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.otlp.decode import decode_json, decode_protobuf
from ragmon.semconv.extract import extract
from ragmon.text.deferred import compile_all

RECORDED = Path(__file__).with_name("calls.json")
TOLERANCE = 0.10
"""Growth per unit over the recorded figure that fails `--check`: well above the run-to-run spread."""
GAIN = 0.15
"""A drop this large is a gain worth recording, or the guard lets the next change spend it unseen."""
COUNT = 200
WARM_UP = 50
K = 5


def counted(work: Callable[[], object]) -> tuple[int, int]:
    """(Python calls, builtin calls) made while `work` runs."""
    calls = [0, 0]

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            calls[0] += 1
        elif event == "c_call":
            calls[1] += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls[0], calls[1]


def replay_work(scratch: Path) -> tuple[Callable[[], object], Callable[[], object]]:
    def run(name: str, count: int, start: int) -> Callable[[], object]:
        path = scratch / f"{name}.jsonl"
        rng = random.Random(start)
        path.write_text("".join(json.dumps(replay.example(rng, start + i)) + "\n" for i in range(count)),
                        encoding="utf-8")
        judge = LexicalJudge()
        return lambda: [evaluate_example(example, judge, K) for example in load([path])]
    return run("warm", WARM_UP, 10_000), run("timed", COUNT, 0)


def pages_work() -> tuple[Callable[[], object], Callable[[], object]]:
    found = scoring.pages(scoring.ENGLISH_PAGES)
    judge = LexicalJudge()
    return (lambda: [evaluate_example(e, judge, K) for e in found[:WARM_UP]],
            lambda: [evaluate_example(e, judge, K) for e in found[WARM_UP:WARM_UP + COUNT]])


def sidecar_work() -> tuple[Callable[[], object], Callable[[], object]]:
    judge = LexicalJudge()

    def run(bodies: Sequence[bytes]) -> Callable[[], object]:
        def chain() -> object:
            batches = (decode_protobuf(body).spans for body in bodies)
            examples = [extract(d.trace) for d in pipeline.decide(batches, 0.01)]
            return [evaluate_example(e, judge, K) for e in examples if e is not None]
        return chain
    return run(ingest.encode(WARM_UP, 10, seed=1)), run(ingest.encode(COUNT, 10, seed=0))


def otlp_json_work() -> tuple[Callable[[], object], Callable[[], object]]:
    warm = [pipeline.otlp_json(body) for body in ingest.encode(WARM_UP, 10, seed=1)]
    timed = [pipeline.otlp_json(body) for body in ingest.encode(COUNT, 10, seed=0)]
    return lambda: [decode_json(body) for body in warm], lambda: [decode_json(body) for body in timed]


def measure() -> dict[str, dict[str, int]]:
    compile_all()  # patterns compiled at first use (ragmon.text.deferred) are a first-use cost too
    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        workloads = {"replay": replay_work(Path(scratch)), "pages": pages_work(), "sidecar": sidecar_work(),
                     "otlp_json": otlp_json_work()}
        for name, (warm, timed) in workloads.items():
            warm()
            python, builtin = counted(timed)
            figures[name] = {"python_calls": round(python / COUNT), "builtin_calls": round(builtin / COUNT)}
    return figures


def compare(recorded: dict[str, dict[str, int]], measured: dict[str, dict[str, int]]) -> list[str]:
    """Lines naming each figure over its recorded value by more than TOLERANCE, as "over: ..."."""
    lines = []
    for workload, figures in measured.items():
        for kind, value in figures.items():
            was = recorded.get(workload, {}).get(kind)
            if was is None:
                lines.append(f"over: {workload} {kind}: {value:,} per unit, none recorded (--record)")
            elif value > was * (1 + TOLERANCE):
                lines.append(f"over: {workload} {kind}: {value:,} per unit, recorded {was:,} "
                             f"(+{value / was - 1:.0%}, allowed +{TOLERANCE:.0%})")
            elif value < was * (1 - GAIN):
                lines.append(f"gain: {workload} {kind}: {value:,} per unit, recorded {was:,} "
                             f"({value / was - 1:.0%}): record it (--record) so it is kept")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    grew = f"exit 1 if a figure grew over {TOLERANCE:.0%}%"  # "%%": argparse formats a help string with %
    mode.add_argument("--check", action="store_true", help=grew)
    mode.add_argument("--record", action="store_true", help="write the figures to --recorded")
    parser.add_argument("--recorded", type=Path, default=RECORDED,
                        help=f"the figures' file (default {RECORDED.name} beside this script)")
    args = parser.parse_args()
    measured = measure()
    print(f"calls per unit ({COUNT} units a workload, after {WARM_UP} to warm up):")
    for workload, figures in measured.items():
        python, builtin = figures["python_calls"], figures["builtin_calls"]
        print(f"  {workload:<10} python {python:>8,}  builtin {builtin:>8,}")
    if args.record:
        args.recorded.write_text(json.dumps(measured, indent=2) + "\n", encoding="utf-8")
        print(f"recorded in {args.recorded}")
        return 0
    if args.check:
        lines = compare(json.loads(args.recorded.read_text(encoding="utf-8")), measured)
        for line in lines:
            print(line)
        return 1 if any(line.startswith("over:") for line in lines) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
