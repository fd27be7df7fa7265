"""`ragmon demo`: the store-policy assistant, traced with the OpenTelemetry SDK as a real app would be.

Each question becomes one trace in OpenInference shape, exported by the SDK's own OTLP/HTTP exporter:
a CHAIN root (input.value = question, output.value = answer), a RETRIEVER child
(retrieval.documents.N.document.{id,content,score}) and an LLM child
(llm.output_messages.0.message.{role,content}), so ragmon scores it through its real extraction path.
`--golden` also writes the same questions and answers as ragmon JSONL for the offline gate.
`--all` runs the whole tour (see ragmon.demo.tour).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from itertools import cycle, islice
from pathlib import Path

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Tracer

from ragmon.demo.rag import PHASES, Answer, Question, Retriever, TemplateLLM, build, load_corpus
from ragmon.errors import RagmonError
from ragmon.options import positive_int

SERVICE_NAME = "policy-assistant"
DEFAULT_ENDPOINT = "http://127.0.0.1:4318"
KIND = "openinference.span.kind"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true",
                        help="the full tour: start `ragmon serve`, run every phase, read /metrics back, "
                             "then gate the golden sets with `ragmon replay`")
    parser.add_argument("--phase", choices=PHASES, default="healthy",
                        help="which build of the app answers (default %(default)s)")
    parser.add_argument("--requests", type=positive_int, default=32,
                        help="questions to ask, cycling through the 32 built-in ones (default %(default)s)")
    parser.add_argument("--endpoint", default=DEFAULT_ENDPOINT,
                        help="OTLP/HTTP base URL of ragmon serve; /v1/traces is appended "
                             "(default %(default)s)")
    parser.add_argument("--service-name", default=SERVICE_NAME,
                        help="resource service.name, ragmon's pipeline label (default %(default)s)")
    parser.add_argument("--golden", type=Path, metavar="PATH",
                        help="also write the questions, contexts and answers here as ragmon JSONL")


def run(args: argparse.Namespace) -> int:
    if args.all:
        from ragmon.demo.tour import run_tour

        return run_tour()
    answers = run_phase(args.phase, requests=args.requests, endpoint=args.endpoint,
                        service_name=args.service_name, golden=args.golden)
    print(f"{args.phase}: sent {len(answers)} traces to {args.endpoint}"
          + (f"; golden set written to {args.golden}" if args.golden else ""))
    return 0


def run_phase(phase: str, *, requests: int, endpoint: str = DEFAULT_ENDPOINT,
              service_name: str = SERVICE_NAME, golden: Path | None = None) -> list[Answer]:
    """Ask `requests` questions of one build, export every trace, and wait until the exporter is done."""
    _, questions = load_corpus()
    retriever, llm = build(phase)
    exporter = _CheckedExporter(OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces", timeout=10))
    provider = TracerProvider(resource=Resource.create({"service.name": service_name,
                                                        "service.version": phase}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("ragmon.demo")
    # The SDK logs an export failure and carries on, as an app should; the demo reports it instead.
    logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter").setLevel(logging.CRITICAL)
    try:
        answers = [answer(tracer, retriever, llm, q, phase) for q in islice(cycle(questions), requests)]
    finally:
        provider.shutdown()
    if exporter.failed:
        raise RagmonError(f"{exporter.failed} spans could not be exported to {endpoint}: is `ragmon serve` "
                          "listening there?")
    if golden is not None:
        write_golden(golden, answers)
    return answers


def answer(tracer: Tracer, retriever: Retriever, llm: TemplateLLM, question: Question, phase: str) -> Answer:
    """One request of the app, traced the way OpenInference instrumentations trace a RAG chain."""
    text = question.question
    with tracer.start_as_current_span("PolicyQA", attributes={KIND: "CHAIN", "input.value": text}) as root:
        with tracer.start_as_current_span("BM25Retriever.retrieve",
                                          attributes={KIND: "RETRIEVER", "input.value": text}) as span:
            retrieved = retriever.search(text)
            for i, hit in enumerate(retrieved):
                prefix = f"retrieval.documents.{i}.document."
                span.set_attributes({prefix + "id": hit.document.id, prefix + "content": hit.document.text,
                                     prefix + "score": hit.score})
        prompt = "\n\n".join(hit.document.text for hit in retrieved) + f"\n\nQuestion: {text}"
        with tracer.start_as_current_span("TemplateLLM.chat", attributes={
                KIND: "LLM", "llm.model_name": f"template-{phase}",
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": prompt}) as span:
            reply = llm.answer(text, retrieved)
            span.set_attributes({"llm.output_messages.0.message.role": "assistant",
                                 "llm.output_messages.0.message.content": reply})
        root.set_attribute("output.value", reply)
    return Answer(question, retrieved, reply)


def write_golden(path: Path, answers: Sequence[Answer]) -> None:
    """ragmon JSONL: what `ragmon replay` gates a build on before it ships. A question asked several
    times is written once: the app is deterministic, so its answers are identical."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for a in {a.question.id: a for a in answers}.values():
            row = {"id": a.question.id, "question": a.question.question,
                   "contexts": [{"id": h.document.id, "text": h.document.text, "score": h.score}
                                for h in a.retrieved],
                   "answer": a.text, "relevant_ids": list(a.question.relevant_ids)}
            out.write(json.dumps(row) + "\n")


class _CheckedExporter(SpanExporter):
    """The real OTLP exporter, counting spans it failed to deliver."""

    def __init__(self, inner: OTLPSpanExporter) -> None:
        self._inner = inner
        self.failed = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self._inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self.failed += len(spans)
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._inner.force_flush(timeout_millis)
