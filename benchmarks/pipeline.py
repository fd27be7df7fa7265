"""Per-stage CPU throughput of the sidecar's ingest path, in process: decode, assembly, extraction.

Everything between an OTLP request body and the scoring queue runs on the sidecar's one event loop, so
each stage's CPU cost caps the spans/s it can accept. `benchmarks/ingest.py` measures the path end to end
with HTTP, scoring and the load generator sharing the cores; this script takes it apart, calling the same
public functions in the same way as `ragmon.service.Sidecar` and the OTLP/HTTP receiver do:

1. `decode_protobuf` of each request body, the batch dropped once decoded (the receiver lets go of it
   after `offer`): spans/s and MB/s;
2. `decode_json` of the same requests as OTLP/JSON (trace and span ids in hex, enums as integers, as the
   OTLP spec asks, unlike protobuf's canonical JSON mapping); every request is first checked to decode to
   the same spans both ways, so both figures are for the same work;
3. assembly: each request's spans to `Assembler.add`, then `pop_decided()`, as `Sidecar.offer` and its
   decision loop do. The assembler has the sidecar's defaults (decide `quiet` = 2 s after the last span
   once the root is in) on a virtual clock advancing by one request interval at --arrival-rate, so about
   rate x quiet traces are in flight as in a loaded sidecar, without waiting for the real clock;
4. extraction: `extract` of each assembled trace;
5. the chain decode_protobuf -> assembly -> extraction;
6. extraction of real LangChain and LlamaIndex traces (tests/instrumented_apps.py under the real
   OpenInference instrumentors, through the OTel SDK's OTLP encoder and ragmon's decoder, as the sidecar
   receives them).

Workload: benchmarks/ingest.py's seeded traces (CHAIN root exported last, RETRIEVER with 5 documents of
~200 words, LLM span with the prompt and a 4-sentence answer), several traces per request. CPU time
(`time.process_time`) after a warm-up on other traces; each stage runs --repeat times and the median is
printed with the range.

Run: `.venv/bin/python benchmarks/pipeline.py [--traces N] [--traces-per-request R] [--repeat K]
[--arrival-rate T] [--real-traces M]`.
"""

from __future__ import annotations

import argparse
import base64
import gc
import json
import random
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import ingest  # benchmarks/ingest.py: the script's own directory is sys.path[0]
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ragmon.model import Example
from ragmon.otlp.decode import DecodedBatch, decode_json, decode_protobuf
from ragmon.semconv.extract import extract
from ragmon.serve_config import ServeConfig
from ragmon.traces import Assembler, Decided, Span, Trace

T = TypeVar("T")
TESTS = Path(__file__).resolve().parent.parent / "tests"
WARM_UP_TRACES = 500
_ID_KEYS = ("traceId", "spanId", "parentSpanId")


class Failure(Exception):
    """The work is not what the figures claim to measure; reported instead of a figure."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


# --- inputs ------------------------------------------------------------------------------------------


def otlp_json(body: bytes) -> bytes:
    """The OTLP/JSON body of a protobuf request: protobuf's JSON mapping with lowerCamelCase keys and
    integer enums, then the ids rewritten from base64 to hex as the OTLP spec requires."""
    doc: dict[str, Any] = MessageToDict(ExportTraceServiceRequest.FromString(body),
                                        use_integers_for_enums=True)
    for resource_spans in doc.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for holder in (span, *span.get("links", [])):
                    for key in _ID_KEYS:
                        if key in holder:
                            holder[key] = base64.b64decode(holder[key]).hex()
    return json.dumps(doc, separators=(",", ":")).encode()


def check_same_spans(protobuf_bodies: Sequence[bytes], json_bodies: Sequence[bytes], spans: int) -> None:
    decoded = 0
    for n, (pb, js) in enumerate(zip(protobuf_bodies, json_bodies, strict=True)):
        from_pb, from_json = decode_protobuf(pb), decode_json(js)
        check(from_pb.rejected == 0 and from_json.rejected == 0,
              f"request {n}: spans rejected: {from_pb.errors or from_json.errors}")
        check(from_pb.spans == from_json.spans, f"request {n}: decode_json and decode_protobuf differ")
        decoded += len(from_pb.spans)
    check(decoded == spans, f"{decoded} spans decoded, {spans} encoded")


# --- the stages, as the sidecar runs them ------------------------------------------------------------


class VirtualClock:
    """The assembler's clock: stands still within a request, moves on between requests."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def decide(batches: Iterable[Sequence[Span]], interval: float) -> Iterator[Decided]:
    """Sidecar.offer (every span of a request to Assembler.add) then the decision loop's pop_decided(),
    request after request, `interval` virtual seconds apart; at the end the clock jumps past every
    deadline, as it does once the load stops."""
    config = ServeConfig()
    clock = VirtualClock()
    assembler = Assembler(quiet=config.quiet, decision_wait=config.decision_wait,
                          max_traces=config.max_traces, max_spans_per_trace=config.max_spans_per_trace,
                          max_bytes=config.max_buffer, clock=clock)
    add = assembler.add
    refused: Counter[str] = Counter()
    for spans in batches:
        for span in spans:
            status = add(span)
            if status != "accepted":
                refused[status] += 1
        yield from assembler.pop_decided()
        clock.now += interval
    clock.now += config.decision_wait
    yield from assembler.pop_decided()
    check(not refused, f"spans refused by the assembler: {dict(refused)}")


def check_decided(decided: Sequence[Decided], traces: int, spans_per_trace: int) -> None:
    reasons = Counter(d.reason for d in decided)
    check(reasons == Counter(complete=traces), f"want {traces} complete traces, got {dict(reasons)}")
    check(all(len(d.trace.spans) == spans_per_trace for d in decided),
          f"a trace without its {spans_per_trace} spans")


def check_examples(examples: Sequence[Example | None], contexts: int | None) -> None:
    for example in examples:
        check(example is not None and bool(example.question) and bool(example.answer)
              and example.contexts is not None and len(example.contexts) > 0
              and (contexts is None or len(example.contexts) == contexts),
              f"extraction lost part of the example: {example}")


@dataclass(frozen=True, slots=True)
class Timing:
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def timed(work: Callable[[], T], repeat: int) -> tuple[Timing, T]:
    """CPU seconds of each run, and the last run's result.

    A run's result is freed before the next run starts, so no run pays for freeing the previous one's.
    What exists before a run (every request body and decoded span this script holds, the frameworks the
    real traces need) is frozen out of the cyclic GC, whose full collections would otherwise scan it and
    make the figures depend on the script's heap rather than on the stage: a sidecar holds none of it.
    The garbage a run makes is collected as usual."""
    seconds = []
    kept: list[T] = []
    for _ in range(repeat):
        kept.clear()
        gc.collect()
        gc.freeze()
        start = time.process_time()
        kept.append(work())
        seconds.append(time.process_time() - start)
        gc.unfreeze()
    return Timing(seconds), kept[0]


# --- real traces -------------------------------------------------------------------------------------


def record_real(count: int, seed: int) -> dict[str, list[Trace]]:
    """`count` traces of each instrumented app, encoded by the OTel SDK and decoded by ragmon.

    Imported here: the frameworks take seconds to import and only this step needs them."""
    sys.path.insert(0, str(TESTS))
    from instrumented_apps import QUESTION, RagChain, llama_index, query_engine
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    random.seed(seed)  # the SDK draws trace and span ids from `random`
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench-real"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    index = llama_index()  # built before instrumenting: only the queries are traced
    apps: list[tuple[str, Any, Callable[[str], object]]] = [
        ("LangChain", LangChainInstrumentor(), RagChain().chain.invoke),
        ("LlamaIndex", LlamaIndexInstrumentor(), query_engine(index, top_k=2).query),
    ]
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the instrumentor trips a LangChain deprecation warning per call
        for name, instrumentor, ask in apps:
            instrumentor.instrument(tracer_provider=provider)
            for _ in range(count):
                ask(QUESTION)
            instrumentor.uninstrument()
            body = encode_spans(exporter.get_finished_spans()).SerializeToString()
            exporter.clear()
            batch = decode_protobuf(body)
            check(batch.rejected == 0, f"{name}: spans rejected: {batch.errors}")
            decided = list(decide([batch.spans], 1.0))
            check(len(decided) == count and all(d.reason == "complete" for d in decided),
                  f"{name}: want {count} complete traces, got {Counter(d.reason for d in decided)}")
            out[name] = [d.trace for d in decided]
    provider.shutdown()
    return out


# --- report ------------------------------------------------------------------------------------------


def rate_line(label: str, units: int, unit: str, timing: Timing, megabytes: float | None = None) -> str:
    rates = sorted(units / s for s in timing.seconds)
    line = (f"{label:<44}{units / timing.median:>9,.0f} {unit + '/s':<9}[{rates[0]:,.0f}-{rates[-1]:,.0f}]"
            f"{1e6 * timing.median / units:>8.1f} us/{unit[:-1]}")
    return line if megabytes is None else f"{line}{megabytes / timing.median:>7.1f} MB/s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=5_000)
    parser.add_argument("--traces-per-request", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each stage (default 3)")
    parser.add_argument("--arrival-rate", type=float, default=1_000.0,
                        help="virtual traces/s reaching the assembler; sets the traces in flight "
                             "(default 1000, about what one sidecar scores)")
    parser.add_argument("--real-traces", type=int, default=100,
                        help="traces recorded from each instrumented app (default 100; 0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        return run(args)
    except Failure as failure:
        print(f"benchmark input is wrong: {failure}", file=sys.stderr)
        return 1


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    per_request, traces = args.traces_per_request, args.traces
    spans_per_trace = ingest.SPANS_PER_TRACE
    spans = traces * spans_per_trace
    interval = per_request / args.arrival_rate
    pb_bodies = ingest.encode(traces, per_request, args.seed)
    json_bodies = [otlp_json(body) for body in pb_bodies]
    check_same_spans(pb_bodies, json_bodies, spans)
    warm_pb = ingest.encode(WARM_UP_TRACES, per_request, args.seed + 1)
    warm_json = [otlp_json(body) for body in warm_pb]
    real = record_real(args.real_traces, args.seed) if args.real_traces > 0 else {}
    prepared = time.perf_counter() - started

    def decode_all(bodies: Sequence[bytes]) -> list[tuple[Span, ...]]:
        return [decode_protobuf(body).spans for body in bodies]

    def decode_each(decode: Callable[[bytes], DecodedBatch], bodies: Sequence[bytes]) -> int:
        """Spans decoded; each batch is dropped at once, as the receiver drops it after `offer`."""
        return sum(len(decode(body).spans) for body in bodies)

    def assemble(batches: Sequence[Sequence[Span]]) -> list[Decided]:
        return list(decide(batches, interval))

    def extract_all(trace_list: Sequence[Trace]) -> list[Example | None]:
        return [extract(trace) for trace in trace_list]

    def chain(bodies: Sequence[bytes]) -> list[Example | None]:
        return [extract(d.trace) for d in decide((decode_protobuf(body).spans for body in bodies), interval)]

    decode_each(decode_protobuf, warm_pb)
    decode_each(decode_json, warm_json)
    extract_all([d.trace for d in assemble(decode_all(warm_pb))])
    chain(warm_pb)

    repeat = args.repeat
    pb_time, pb_spans = timed(lambda: decode_each(decode_protobuf, pb_bodies), repeat)
    json_time, json_spans = timed(lambda: decode_each(decode_json, json_bodies), repeat)
    check(pb_spans == json_spans == spans, f"{pb_spans} and {json_spans} spans decoded, {spans} encoded")
    batches = decode_all(pb_bodies)
    assembly_time, decided = timed(lambda: assemble(batches), repeat)
    check_decided(decided, traces, spans_per_trace)
    assembled = [d.trace for d in decided]
    extract_time, examples = timed(lambda: extract_all(assembled), repeat)
    check_examples(examples, contexts=5)
    chain_time, chained = timed(lambda: chain(pb_bodies), repeat)
    check(chained == examples, "the chain's examples differ from the stages'")
    rounds = max(1, traces // args.real_traces) if real else 0  # about as many extractions as above
    real_lines = []
    for name, recorded in real.items():
        check_examples(extract_all(recorded), contexts=None)
        workload = recorded * rounds
        timing, _ = timed(lambda workload=workload: extract_all(workload), repeat)
        span_counts = "/".join(map(str, sorted({len(t.spans) for t in recorded})))
        real_lines.append(rate_line(f"extraction, real {name} ({span_counts} spans)", len(workload), "traces",
                                    timing))

    pb_mb, json_mb = sum(map(len, pb_bodies)) / 1e6, sum(map(len, json_bodies)) / 1e6
    config = ServeConfig()
    print(f"workload: {traces:,} RAG traces of {spans_per_trace} spans (CHAIN root exported last, RETRIEVER "
          f"with 5 documents of ~200 words, LLM)")
    print(f"          {per_request} per request: {len(pb_bodies)} requests, {spans:,} spans, {pb_mb:.1f} MB "
          f"protobuf, {json_mb:.1f} MB OTLP/JSON (same spans, checked)")
    in_flight = min(traces, args.arrival_rate * config.quiet)
    print(f"assembler: quiet {config.quiet:g}s, decision-wait {config.decision_wait:g}s, virtual arrivals "
          f"{args.arrival_rate:,.0f} traces/s (~{in_flight:,.0f} traces in flight)")
    print(f"CPU time per stage, median of {repeat} runs after a warm-up [range of rates]")
    print(rate_line("decode_protobuf", spans, "spans", pb_time, pb_mb))
    print(rate_line("decode_json (OTLP/JSON)", spans, "spans", json_time, json_mb))
    print(rate_line("assembly (Assembler.add, pop_decided)", traces, "traces", assembly_time))
    print(rate_line("extraction", traces, "traces", extract_time))
    print(rate_line("chain decode_protobuf -> assembly -> extract", traces, "traces", chain_time))
    for line in real_lines:
        print(line)
    if real:
        print(f"real traces: {args.real_traces} per app recorded in process (OpenInference instrumentors, "
              f"offline fakes), each extracted {rounds} times per run")
    print(f"total {time.perf_counter() - started:.1f}s wall (inputs {prepared:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
