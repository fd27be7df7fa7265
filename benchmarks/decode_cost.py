"""What counting a request's values costs next to decoding it (`--max-values`, ragmon.otlp.values).

A body over 1 MiB could hold more than the default limit, so it is read (tags and lengths) before it is
decoded. Batches, built with the protobuf classes: a Collector's 8,192 spans of 15 short attributes and 2
events; the SDK's 512 spans of 128 attributes (its most); 512 spans each holding a 4 KB document. For
each: the body's size, its values, the reading alone, the decoding alone (a limit so high the body is not
read), and both, the fastest of `--repeat` runs; and both for the same body with one span's name not
UTF-8 (ragmon.otlp.utf8_repair: the parser refuses it, and it is repaired and decoded again).

Run: `.venv/bin/python benchmarks/decode_cost.py [--repeat 5]`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from ragmon.otlp.decode import MAX_VALUES, decode_protobuf
from ragmon.otlp.values import protobuf_exceeds

UNREAD = 2**40
"""A limit no 16 MiB body can pass, so `decode_protobuf` does not read it first."""

NAME, SPOILT_NAME = b"GET /bad", b"GET /\xffad"
"""The middle span's name, and the same bytes with one that is no UTF-8 (a Go service's raw byte)."""


def batch(spans: int, attributes: int, events: int, text: Callable[[random.Random], str]) -> bytes:
    rng = random.Random(spans * 1000 + attributes)

    def attribute(key: str) -> KeyValue:
        return KeyValue(key=key, value=AnyValue(string_value=text(rng)))

    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[
        Span(trace_id=rng.randbytes(16), span_id=rng.randbytes(8), parent_span_id=rng.randbytes(8),
             name=NAME.decode() if i == spans // 2 else "GET /api", kind=Span.SPAN_KIND_SERVER,
             start_time_unix_nano=1, end_time_unix_nano=2,
             attributes=[attribute(f"http.attribute.{a}") for a in range(attributes)],
             events=[Span.Event(name="event", time_unix_nano=1, attributes=[attribute("detail")])
                     for _ in range(events)])
        for i in range(spans)])])]).SerializeToString()


def values(body: bytes) -> int:
    """The smallest limit the body is within: its count (ragmon.otlp.values), by bisection."""
    low, high = 0, MAX_VALUES * 4
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if protobuf_exceeds(body, middle) else (low, middle)
    return low


def fastest(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    batches = {
        "Collector: 8,192 spans x 15 attributes + 2 events": batch(
            8_192, 15, 2, lambda rng: f"{rng.random():.6f}"),
        "SDK: 512 spans x 128 attributes": batch(512, 128, 0, lambda rng: f"{rng.random():.6f}"),
        "512 spans, one 4 KB document each": batch(512, 1, 0, lambda rng: "w" * 4096),
    }
    print(f"{'batch':52s} {'MiB':>5s} {'values':>8s} {'read ms':>8s} {'decode ms':>10s} {'both ms':>8s} "
          f"{'one not UTF-8 ms':>17s}")
    for name, body in batches.items():
        spoilt = body.replace(NAME, SPOILT_NAME)
        assert spoilt.count(SPOILT_NAME) == 1, "the spoilt name is in the body once"
        read = fastest(lambda body=body: protobuf_exceeds(body, MAX_VALUES), args.repeat)
        alone = fastest(lambda body=body: decode_protobuf(body, UNREAD), args.repeat)
        both = fastest(lambda body=body: decode_protobuf(body), args.repeat)
        repaired = fastest(lambda spoilt=spoilt: decode_protobuf(spoilt), args.repeat)
        print(f"{name:52s} {len(body) / 2**20:5.1f} {values(body):8d} {read * 1e3:8.0f} {alone * 1e3:10.0f} "
              f"{both * 1e3:8.0f} {repaired * 1e3:17.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
