"""Throughput of the offline gate: 10,000 realistic examples through load, scoring and every report.

Target: at least 2,000 examples/s on one core. Runs the replay command in process (the code path of the
CLI, reports included), then the real CLI in a subprocess, then each stage alone; prints rates, CPU time
and peak RSS. Run: `.venv/bin/python benchmarks/replay.py [--examples N]`.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ragmon import cli
from ragmon.datasets import load
from ragmon.evaluation import evaluate
from ragmon.gate import decide, parse_gates
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import EvalConfig
from ragmon.report import json as json_report
from ragmon.report import junit, markdown, text

TARGET = 2_000
GATES = ("groundedness=0.7", "hallucination_rate=0.3", "recall=0.5")

VOCABULARY = (
    "order orders return returns refund refunds shipping delivery warehouse carrier package parcel customer",
    "customers account payment card cards credit store stores online item items product products size colour",
    "receipt label box packaging policy policies warranty repair replacement exchange exchanges discount",
    "price",
    "prices sale clearance member members points reward rewards gift support team email phone request claim",
    "claims days weeks hours business weekend holiday standard express international domestic customs duties",
    "fee fees charge charges free total balance invoice address tracking number status cancel change update",
    "damaged defective missing wrong late early original unused opened sealed approved rejected pending",
    "eligible available limited extended manufacturer inspection processing transfer bank method methods",
)
WORDS = " ".join(VOCABULARY).split()
FUNCTION_WORDS = ("the a of to and in for with on within after", "before is are can be will must may")
FILLER = " ".join(FUNCTION_WORDS).split()


def sentence(rng: random.Random, length: int) -> str:
    words = [rng.choice(WORDS if rng.random() < 0.6 else FILLER) for _ in range(length)]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), str(rng.randint(1, 90)))
    return " ".join(words).capitalize() + "."


def example(rng: random.Random, index: int) -> dict[str, object]:
    contexts = []
    for rank in range(5):
        body = []
        while sum(len(s.split()) for s in body) < 200:
            body.append(sentence(rng, rng.randint(12, 22)))
        score = round(1 - rank / 10, 2)
        contexts.append({"id": f"doc-{index}-{rank}", "text": " ".join(body), "score": score})
    sources = [rng.choice(contexts)["text"].split(". ") for _ in range(3)]
    answer = [rng.choice(parts).rstrip(".") + "." for parts in sources]  # grounded sentences
    answer.append(sentence(rng, 14))  # one made up
    return {
        "id": f"ex-{index}",
        "question": sentence(rng, 10).rstrip(".") + "?",
        "contexts": contexts,
        "answer": " ".join(answer),
        "relevant_ids": [f"doc-{index}-{rng.randrange(7)}"],
        "citations": [contexts[0]["id"]],
        "ground_truth": sentence(rng, 12),
        "category": rng.choice(["returns", "shipping", "warranty"]),
        "labels": {"source": "benchmark"},
    }


def write_dataset(path: Path, count: int) -> None:
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(count):
            handle.write(json.dumps(example(rng, index)) + "\n")


def timed(action: Callable[[], object]) -> tuple[object, float, float]:
    """(result, wall seconds, CPU seconds): CPU time is the fairer figure on a machine shared with others."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def stages(dataset: Path, count: int) -> None:
    """Where the time goes, stage by stage, for whoever has to make it faster."""
    examples, wall, cpu = timed(lambda: list(load([dataset])))
    print(f"  load      {wall:6.2f} s wall {cpu:6.2f} s CPU  {count / cpu:9,.0f} examples/CPU-s")
    report, wall, cpu = timed(lambda: evaluate(examples, LexicalJudge(), EvalConfig()))
    print(f"  evaluate  {wall:6.2f} s wall {cpu:6.2f} s CPU  {count / cpu:9,.0f} examples/CPU-s")
    gates = decide(report, parse_gates(GATES))
    renderers = (json_report.render, markdown.render, junit.render, text.render)
    _, wall, cpu = timed(lambda: [render(report, gates) for render in renderers])
    print(f"  reports   {wall:6.2f} s wall {cpu:6.2f} s CPU")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    count = parser.parse_args().examples
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "golden.jsonl"
        write_dataset(dataset, count)
        size = dataset.stat().st_size
        print(f"dataset: {count} examples, {size / 1e6:.1f} MB ({size // count} bytes/example)")
        argv = ["replay", str(dataset), "--quiet", *(f"--gate={g}" for g in GATES),
                "--json", str(Path(tmp) / "report.json"), "--markdown", str(Path(tmp) / "report.md"),
                "--junit", str(Path(tmp) / "report.xml")]

        code, wall, cpu = timed(lambda: cli.main(argv))
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"in-process `ragmon {' '.join(argv[:2])} ...` (exit {code}): {wall:.2f} s wall = "
              f"{count / wall:,.0f} examples/s; {cpu:.2f} s CPU = {count / cpu:,.0f} examples/CPU-s "
              f"(target >= {TARGET:,}); peak RSS {peak_mb:,.0f} MB")

        done, wall, _ = timed(lambda: subprocess.run([sys.executable, "-m", "ragmon.cli", *argv],
                                                     capture_output=True, text=True, check=False))
        assert isinstance(done, subprocess.CompletedProcess)
        print(f"CLI subprocess (exit {done.returncode}): {wall:.2f} s wall = {count / wall:,.0f} examples/s")
        if done.returncode not in (0, 1):
            print(done.stderr, file=sys.stderr)
            return 1
        print("stages, in process:")
        stages(dataset, count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
