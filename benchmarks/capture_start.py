"""How long `ragmon serve --capture` takes to start on full capture files, and what the ids it keeps cost.

At start the capture writer reads the trace ids FILE and FILE.1 hold, so a trace sent again after a
restart is not captured twice. Both files are filled to the bound (16 MiB, as docs/deploy.md ships),
once with realistic lines (a question, 5 documents of ~200 words, a 60-word answer: ~9 KB) and once
with the smallest lines a scored example gives (~300 bytes: the most ids per byte); prints the time
`CaptureWriter.start()` takes (median of 5) and the memory of the ids it keeps (tracemalloc).
Run: `.venv/bin/python benchmarks/capture_start.py [--max-bytes 16MiB]`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ragmon.capture import CaptureWriter, encode, record
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult
from ragmon.options import byte_size

WORDS = ("order", "return", "refund", "shipping", "delivery", "warehouse", "carrier", "package", "customer",
         "account", "payment", "card", "receipt", "label", "policy", "warranty", "repair", "exchange")


def fill(path: Path, max_bytes: int, make: Callable[[str, random.Random], Example],
         rng: random.Random) -> int:
    """Write lines until the next would pass `max_bytes`, as rotation leaves FILE.1; returns the count."""
    size = count = 0
    with path.open("wb") as handle:
        while True:
            trace_id = f"{rng.getrandbits(128):032x}"
            example = make(trace_id, rng)
            result = ExampleResult(example, "lexical", {"groundedness": 0.25},
                                   (ClaimVerdict(Claim("a.", 0, 2), False),))
            line = encode(record(result, trace_id, datetime.now(UTC), {"threshold": 0.56}))
            if size + len(line) > max_bytes:
                return count
            handle.write(line)
            size += len(line)
            count += 1


def realistic(trace_id: str, rng: random.Random) -> Example:
    def text(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n)) + "."
    return Example(trace_id, text(12), tuple(Context(f"kb-{i}", text(200), 0.5) for i in range(5)), text(60))


def smallest(trace_id: str, rng: random.Random) -> Example:
    return Example(trace_id, "q?", (Context("d", "x"),), "a.")


async def start(path: Path, max_bytes: int, *, measure_memory: bool) -> tuple[float, int]:
    """Seconds `start()` took, and bytes still allocated after it (the ids kept) when measured."""
    writer = CaptureWriter(path, below=0.5, max_bytes=max_bytes, count=lambda pipeline, outcome: None,
                           lost=lambda count: None, judge_settings={"threshold": 0.56})
    if measure_memory:
        tracemalloc.start()
    started = time.perf_counter()
    await writer.start()
    seconds = time.perf_counter() - started
    kept = tracemalloc.get_traced_memory()[0] if measure_memory else 0
    tracemalloc.stop()
    await writer.close()
    return seconds, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--max-bytes", type=byte_size, default=byte_size("16MiB"))
    args = parser.parse_args()
    rng = random.Random(7)
    for name, make in (("realistic", realistic), ("smallest", smallest)):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "worst.jsonl"
            lines = fill(path.with_name("worst.jsonl.1"), args.max_bytes, make, rng)
            lines += fill(path, args.max_bytes, make, rng)
            # Time without tracemalloc, which slows every allocation several-fold.
            times = [asyncio.run(start(path, args.max_bytes, measure_memory=False))[0] for _ in range(5)]
            _, kept = asyncio.run(start(path, args.max_bytes, measure_memory=True))
            print(f"{name:9}  2 files x {args.max_bytes / 2**20:g} MiB, {lines:,} lines: start "
                  f"{statistics.median(times) * 1000:.0f} ms (median of 5); ids kept {kept / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
