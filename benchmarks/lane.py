"""The lexical lane's throughput through its worker process: what the sidecar's scoring stage does.

`benchmarks/scoring.py` times the judge in process; here examples go through `LexicalLane` as the sidecar
sends them: pickled to a worker, scored, the result sent back and read (`ragmon.scoring.read_result`),
two in flight per worker. Two workloads: typical (5 passages of 200 words, a 4-sentence answer) and
large (40 passages of 600 words), whose result had carried its example back through the pool's pipe.
Prints examples/s (wall clock) and the main process's CPU time per example: the share of the event loop's
core the lane takes.

Run: `.venv/bin/python benchmarks/lane.py [--typical N] [--large N] [--workers W]`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable

from ragmon.model import Context, Example
from ragmon.scoring import LexicalLane


def typical(i: int) -> Example:
    passages = tuple(Context(f"d{i}-{j}", " ".join(f"w{(i * 7 + j * 13 + k) % 5000}" for k in range(200)))
                     for j in range(5))
    answer = " ".join(f"Sentence {n} says w{(i + n) % 5000} w{(i * 3 + n) % 5000}." for n in range(4))
    return Example(f"e{i}", "What is w1?", passages, answer)


def large(i: int) -> Example:
    passages = tuple(Context(f"kb-{j}", " ".join(f"term{(j * 37 + k) % 2000}" for k in range(600)))
                     for j in range(40))
    return Example(f"big{i}", "How are they linked?", passages,
                   "term0 term37 term74 term111 are linked. Zebra quantum marmalade flies.")


async def measure(make: Callable[[int], Example], count: int, workers: int) -> tuple[float, float]:
    """Examples/s and main-process CPU seconds per example."""
    lane = LexicalLane(rate=1.0, k=5, workers=workers)
    await lane.start()
    examples = [make(i) for i in range(count)]
    slots = asyncio.Semaphore(lane.concurrency)

    async def one(example: Example) -> None:
        async with slots:
            await lane.score(example)

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(example) for example in examples))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await lane.close()
    return count / wall, cpu / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typical", type=int, default=3000)
    parser.add_argument("--large", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    for name, make, count in (("typical", typical, args.typical), ("large", large, args.large)):
        rate, cpu = asyncio.run(measure(make, count, args.workers))
        print(f"{name:8s} {count:6,d} examples: {rate:7,.0f} examples/s, main process {cpu * 1e6:6,.0f} us "
              "CPU an example", flush=True)


if __name__ == "__main__":  # the lane's workers start from a forkserver, which imports this module
    main()
