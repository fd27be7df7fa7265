"""Real pipelines under real instrumentation, exporting to a running sidecar (issue 3's acceptance).

A LangChain chain under openinference-instrumentation-langchain and a LlamaIndex query engine under
openinference-instrumentation-llama-index run on an app-style tracer provider: a BatchSpanProcessor and
the SDK's own OTLP/HTTP exporter pointed at an in-process `Sidecar` (port 0) that captures what it
scores. What the sidecar captured must equal what each pipeline used, read from the pipeline's own
objects, and its online groundedness must equal `evaluate_example` on the captured example.

The SDK exporter is synchronous and the sidecar runs on the test's event loop, so the pipeline and the
flush run in a thread. Instrumentors are removed and providers shut down by the test that made them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import prometheus_client
from instrumented_apps import (
    LANGCHAIN_CORPUS,
    QUESTION,
    RagChain,
    llama_index,
    node_contexts,
    query_engine,
)
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.instrumentor import BaseInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from polling import wait_metrics

from ragmon import datasets, instrument
from ragmon.capture import ALL
from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example, ExampleResult
from ragmon.scoring import Lane, Scored
from ragmon.scrape import Samples, parse, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Ports, Sidecar, lexical_lane

T = TypeVar("T")


@asynccontextmanager
async def running_sidecar(capture: Path, below: float,
                          extra_lanes: Sequence[Lane] = ()) -> AsyncIterator[tuple[Sidecar, Ports]]:
    config = ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None, metrics_listen=("127.0.0.1", 0),
                         quiet=0.05, decision_wait=5.0, drain_seconds=5.0, capture=capture,
                         capture_below=below)
    sidecar = Sidecar(config, [lexical_lane(config), *extra_lanes])
    ports = await sidecar.start()
    try:
        yield sidecar, ports
    finally:
        await sidecar.stop()


class App:
    """An app's tracer provider: batched export with the SDK's OTLP/HTTP exporter to the sidecar."""

    def __init__(self, service: str, ports: Ports) -> None:
        self.provider = TracerProvider(resource=Resource.create({"service.name": service}))
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{ports.http}/v1/traces", timeout=10)
        self.provider.add_span_processor(BatchSpanProcessor(exporter))

    async def run(self, pipeline: Callable[[], T]) -> T:
        """Run the pipeline and flush its spans to the sidecar, off the event loop the sidecar runs on."""
        def run_and_flush() -> T:
            out = pipeline()
            assert self.provider.force_flush(10_000), "spans were not exported"
            return out
        return await asyncio.to_thread(run_and_flush)


@asynccontextmanager
async def instrumented_app(service: str, ports: Ports,
                           instrumentor: BaseInstrumentor | None = None) -> AsyncIterator[App]:
    app = App(service, ports)
    if instrumentor is not None:
        instrumentor.instrument(tracer_provider=app.provider)
    try:
        yield app
    finally:
        if instrumentor is not None:
            instrumentor.uninstrument()
        await asyncio.to_thread(app.provider.shutdown)


def scored_and_captured(count: int) -> Callable[[Samples], bool]:
    return lambda s: (total(s, "ragmon_traces_total", outcome="scored") == count
                      and total(s, "ragmon_captured_total", outcome="written") == count)


def assert_online_equals_offline(example: Example, samples: Samples) -> ExampleResult:
    """The captured groundedness and unsupported claims, and the exported histogram (one observation, so
    its sum is the value), equal scoring the captured example offline."""
    offline = evaluate_example(example, LexicalJudge(), 5)
    groundedness = offline.metrics["groundedness"]
    assert groundedness is not None
    metadata: dict[str, Any] = dict(example.extra["metadata"])
    assert metadata["groundedness"] == groundedness
    assert metadata["judge_settings"] == {"threshold": 0.56}  # the default, as LexicalJudge()
    assert metadata["unsupported"] == [v.claim.text for v in offline.verdicts if not v.supported]
    key = ("ragmon_example_score_sum", frozenset({("pipeline", example.pipeline), ("judge", "lexical"),
                                                  ("metric", "groundedness")}))
    assert samples[key] == groundedness
    return offline


async def test_langchain_chain_is_captured_as_it_ran(tmp_path: Path) -> None:
    capture = tmp_path / "captured.jsonl"
    # Every corpus text as a sentence: the 3 retrieved documents hold theirs verbatim; the 4th sentence's
    # number or content terms occur in no other document. Groundedness 3/4 whichever 3 are retrieved.
    rag = RagChain(answer=" ".join(LANGCHAIN_CORPUS.values()))
    async with running_sidecar(capture, ALL) as (_, ports), \
            instrumented_app("lcel-shop", ports, LangChainInstrumentor()) as app:
        answer = await app.run(lambda: rag.chain.invoke(QUESTION))
        samples = await wait_metrics(ports.metrics, scored_and_captured(1))
        [example] = datasets.load([capture])

    assert answer == " ".join(LANGCHAIN_CORPUS.values())   # what the fake chat model said
    assert example.question == QUESTION
    assert len(rag.used) == 3                              # the retriever's documents, in rank order
    assert example.contexts == rag.used_contexts()
    assert example.answer == answer
    assert example.citations is None                       # no ragmon.citations, no [n] markers
    assert example.pipeline == "lcel-shop"
    assert example.extra["needs_review"] is True
    assert example.extra["metadata"]["trace_id"] == example.id
    assert len(example.id) == 32
    assert assert_online_equals_offline(example, samples).metrics["groundedness"] == 0.75


async def test_llamaindex_query_engine_is_captured_as_it_ran(tmp_path: Path) -> None:
    capture = tmp_path / "captured.jsonl"
    # Indexed before instrumenting, so only the query is traced. MockLLM answers with its prompt: the two
    # retrieved texts (supported) amid the template's lines (not), a mixed groundedness.
    engine = query_engine(llama_index(), top_k=2, answer_tokens=None)
    async with running_sidecar(capture, ALL) as (_, ports), \
            instrumented_app("llama-shop", ports, LlamaIndexInstrumentor()) as app:
        response = await app.run(lambda: engine.query(QUESTION))
        samples = await wait_metrics(ports.metrics, scored_and_captured(1))
        [example] = datasets.load([capture])

    assert example.question == QUESTION
    assert len(response.source_nodes) == 2
    assert example.contexts == node_contexts(response.source_nodes)   # ids, texts and scores, in order
    assert example.answer == str(response)
    assert example.pipeline == "llama-shop"
    assert example.extra["metadata"]["trace_id"] == example.id
    groundedness = assert_online_equals_offline(example, samples).metrics["groundedness"]
    assert groundedness is not None and 0 < groundedness < 1


class SecondOpinion:
    """A second lane scoring the same traces, as the Claude lane does (here the lexical judge in-process,
    under another judge name): capture must take the first lane's result only, once per trace."""

    judge = "second"
    rate = 1.0
    concurrency = 1

    async def start(self) -> None:
        self._judge = LexicalJudge()

    async def score(self, example: Example) -> Scored:
        return Scored(evaluate_example(example, self._judge, 5), 0.0)

    async def close(self) -> None:
        pass


DOC = Context("kb-warranty", "The warranty lasts 2 years from the date of purchase.", 0.9)
# Claims by hand against DOC: "The warranty lasts 2 years." has every content term and the number in DOC
# (supported); "It also covers damage on the moon." and "It covers damage on the moon." have none.
ANSWERS = {
    "grounded": "The warranty lasts 2 years.",                                           # 1/1 = 1.0
    "half": "The warranty lasts 2 years. It also covers damage on the moon.",           # 1/2 = 0.5
    "ungrounded": "It covers damage on the moon.",                                       # 0/1 = 0.0
}


async def test_hand_instrumented_app_default_threshold_captures_below_half_once(tmp_path: Path) -> None:
    capture = tmp_path / "captured.jsonl"
    trace_ids: dict[str, str] = {}
    async with running_sidecar(capture, 0.5, [SecondOpinion()]) as (sidecar, ports):
        async with instrumented_app("support-api", ports) as app:
            def serve_requests() -> None:
                for name, answer in ANSWERS.items():
                    with instrument.rag_span("How long does the warranty last?", pipeline="support",
                                             relevant_ids=["kb-warranty"], ground_truth="2 years",
                                             tracer_provider=app.provider) as rag:
                        rag.retrieved([DOC])
                        rag.answered(answer, citations=["kb-warranty"])
                        trace_ids[name] = format(rag.span.get_span_context().trace_id, "032x")
            await app.run(serve_requests)
        await wait_metrics(ports.metrics, lambda s: (
            total(s, "ragmon_traces_total", outcome="scored") == 3
            and total(s, "ragmon_examples_scored_total", judge="second") == 3))
    # Stopped: the capture file is flushed and closed.

    [example] = datasets.load([capture])                   # 0.0 only: 0.5 is not below 0.5
    assert example == Example(trace_ids["ungrounded"], "How long does the warranty last?", (DOC,),
                              ANSWERS["ungrounded"], frozenset({"kb-warranty"}), ("kb-warranty",),
                              "2 years", None, "support")
    assert example.extra["metadata"]["judge"] == "lexical"
    assert example.extra["metadata"]["groundedness"] == 0.0
    assert example.extra["metadata"]["unsupported"] == ["It covers damage on the moon."]
    samples = parse_registry(sidecar)
    assert total(samples, "ragmon_captured_total", pipeline="support", outcome="written") == 1
    assert total(samples, "ragmon_captured_total") == 1


def parse_registry(sidecar: Sidecar) -> Samples:
    """After stop() the metrics listener is gone; the same registry is read directly."""
    return parse(prometheus_client.generate_latest(sidecar.exporter.registry).decode())
