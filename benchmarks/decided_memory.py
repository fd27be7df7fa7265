"""Memory the sidecar's assembler keeps for the traces it has decided, per trace and in all.

The assembler remembers the last 4 x --max-traces decisions (80,000 with the defaults), so that a span
arriving after its trace was decided is counted rather than opening a second trace; with each it keeps
the lower 32 bits of the trace's first 64 span ids, to tell an exporter's resend (`duplicate`) from a span
the trace went on without (`late`). This traces (tracemalloc) what 80,000 decided traces hold once the
buffered spans are gone, by spans per trace.

Run: `.venv/bin/python benchmarks/decided_memory.py [--spans 3,10,64,200]` (~1 min a size).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc

from ragmon.traces import Assembler, Span

MAX_TRACES = 20_000
"""The sidecar's default --max-traces."""
DECIDED = 4 * MAX_TRACES


def held_per_trace(spans_per_trace: int) -> float:
    span_ids = [f"{n + 1:016x}" for n in range(spans_per_trace)]
    assembler = Assembler(max_traces=MAX_TRACES, clock=lambda: 0.0)
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    for t in range(DECIDED):
        trace_id = f"{t + 1:032x}"  # a fresh str per trace, as the decoder makes
        parent = None
        for span_id in span_ids:
            assembler.add(Span(trace_id, span_id, parent, "s"))
            parent = span_ids[0]
        assembler.drain()
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (held - base) / DECIDED


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=lambda text: [int(n) for n in text.split(",")], default=[3, 10, 64],
                        help="spans per trace, comma-separated (default 3,10,64)")
    args = parser.parse_args()
    for spans in args.spans:
        per_trace = held_per_trace(spans)
        print(f"{spans:4d} spans a trace: {per_trace:5.0f} bytes a decided trace, "
              f"{per_trace * DECIDED / 2**20:5.1f} MiB for {DECIDED:,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
