"""`ragmon demo`: the store-policy assistant, traced with the OpenTelemetry SDK as a real app would be.

Each question becomes one trace in OpenInference shape, exported by the SDK's own OTLP/HTTP exporter:
a CHAIN root (input.value = question, output.value = answer), a RETRIEVER child
(retrieval.documents.N.document.{id,content,score}) and an LLM child
(llm.output_messages.0.message.{role,content}), so ragmon scores it through its real extraction path.
`--golden` also writes the same questions and answers as ragmon JSONL for the offline gate.
`--all` runs the whole tour (see ragmon.demo.tour).
`--serve HOST:PORT` runs the app as an HTTP service instead, the candidate build `ragmon replay --target`
questions: `POST /ask {"question": ...}` answers `{"answer": ...}`, and each request's trace continues the
caller's `traceparent` under a SERVER span, as an instrumented web framework would do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import Iterator, Sequence
from itertools import cycle, islice
from pathlib import Path
from types import FrameType

import requests
from aiohttp import web
from opentelemetry import propagate
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import SpanKind, Tracer

from ragmon.cli import Stopped, Terminated, print_out, stop_reason, stop_status
from ragmon.demo.rag import PHASES, Answer, Question, Retriever, TemplateLLM, build, load_corpus
from ragmon.errors import InputError, RagmonError
from ragmon.options import TYPED, listen_address, positive_int
from ragmon.otlp.misdirected import TRACES_PATH
from ragmon.stop_signals import heeded, stop_on_signals

SERVICE_NAME = "policy-assistant"
DEFAULT_ENDPOINT = "http://127.0.0.1:4318"
KIND = "openinference.span.kind"
SERVER_ATTRIBUTES = {"http.request.method": "POST", "url.path": "/ask"}
SERVE_BATCH_DELAY_MS = 100
"""A served app's span batches leave every 100 ms (the SDK default is 5 s), so a replay waits little."""
FLUSH_EVERY = 256
"""Questions between two flushes of the span queue. The app makes spans far faster than one exporter
thread sends them, and the SDK's queue (2,048 spans) drops the overflow with a log line: `--requests 5000`
printed "sent 5000 traces" when some never left. 256 questions are 768 spans."""
EXPORT_TIMEOUT_SECONDS = 5
"""The OTLP/HTTP exporter's budget for one batch, its retries included. It retries a refused connection
after 1, 2, 4... s (each ±20%) while the next wait fits in the budget: at its default of 10 s a batch to an
endpoint where nothing listens took 7 s to fail, and a run flushing every 256 questions took minutes to say
so. At 5 s a batch fails after 3 tries, about 3 s; a sidecar on loopback answers in milliseconds, and its
back-pressure (503, Retry-After: 1) is still asked again about four times. The price: the demo rides out
about 3 s of a sidecar not listening yet (a restart) and about 4 s of back-pressure, where 10 s rode out
about 7 and 5; the demo's own loops (deploy/) start the next phase after a lost one."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true",
                        help="the full tour: start `ragmon serve`, run every phase, read /metrics back, "
                             "then gate the golden sets with `ragmon replay`")
    parser.add_argument("--phase", "--build", choices=PHASES, default="healthy",
                        help="which build of the app answers (default %(default)s)")
    parser.add_argument("--serve", type=listen_address, metavar="HOST:PORT",
                        help="serve the app over HTTP until stopped: POST /ask {\"question\": ...}, each "
                             "request traced under the caller's traceparent")
    parser.add_argument("--requests", type=positive_int, default=32,
                        help="questions to ask, cycling through the 32 built-in ones (default %(default)s)")
    parser.add_argument("--endpoint", default=DEFAULT_ENDPOINT,
                        help="OTLP/HTTP base URL of ragmon serve, as in OTEL_EXPORTER_OTLP_ENDPOINT: "
                             f"{TRACES_PATH} is appended (default %(default)s)")
    parser.add_argument("--service-name", default=SERVICE_NAME,
                        help="resource service.name, ragmon's pipeline label (default %(default)s)")
    parser.add_argument("--golden", type=Path, metavar="PATH",
                        help="also write the questions, contexts and answers here as ragmon JSONL")


_UNREAD = {
    "--all": (("--phase", "--serve", "--requests", "--endpoint", "--service-name", "--golden"),
              "the tour runs every phase, 32 questions each, against a sidecar of its own on free ports"),
    "--serve": (("--requests", "--golden"), "the served app answers the questions it is asked, as many as "
                                            "come, and writes no golden set"),
}
"""The flags each mode does not read, and why."""


def _check_flags(args: argparse.Namespace) -> None:
    """A flag typed for a mode that does not read it: `--serve ... --golden g.jsonl` served the app and
    wrote no golden set without a word, and `--all --endpoint URL` sent nothing to that sidecar. Only when
    typed, as replay's live-replay flags: a RAGMON_* variable is a default for every mode."""
    mode = "--all" if args.all else "--serve" if args.serve is not None else None
    if mode is None:
        return
    flags, why = _UNREAD[mode]
    typed = [flag for flag in flags if flag in getattr(args, TYPED, frozenset())]
    if typed:
        verb, them = ("is", "it") if len(typed) == 1 else ("are", "them")
        raise InputError(f"{', '.join(typed)} {verb} not read with {mode}: {why}; leave {them} out, or run "
                         f"without {mode}")


def run(args: argparse.Namespace) -> int:
    _check_flags(args)
    if args.all:
        from ragmon.demo.tour import run_tour

        return run_tour()
    if args.serve is not None:
        return asyncio.run(serve(args.serve, args.phase, endpoint=args.endpoint,
                                 service_name=args.service_name))
    with _held_stop_signals() as received:
        answers = run_phase(args.phase, requests=args.requests, endpoint=args.endpoint,
                            service_name=args.service_name, golden=args.golden, stop=received)
    if received:
        raise _stopped(received[0], len(answers), args)
    print_out(f"{args.phase}: sent {len(answers)} traces to {args.endpoint}"
              f"{_golden_said(args, len(answers))}\n", "the summary")
    return 0


def run_phase(phase: str, *, requests: int, endpoint: str = DEFAULT_ENDPOINT,
              service_name: str = SERVICE_NAME, golden: Path | None = None,
              stop: Sequence[int] = ()) -> list[Answer]:
    """Ask `requests` questions of one build, export every trace, and wait until the exporter is done.
    Once `stop` holds a signal, no further question is asked. Once a batch could not be exported neither
    is: the run has failed, and every question more only waited on the exporter's retries against an
    endpoint that is down. The golden set is written only when every question was asked (`_golden_said`):
    part of the run would gate on what was not asked."""
    _, questions = load_corpus()
    retriever, llm = build(phase)
    exporter = _CheckedExporter(endpoint)
    provider = _provider(BatchSpanProcessor(exporter), service_name, phase)
    tracer = provider.get_tracer("ragmon.demo")
    answers: list[Answer] = []
    try:
        for question in islice(cycle(questions), requests):
            if stop or exporter.failed:
                break
            answers.append(answer(tracer, retriever, llm, question, phase))
            if len(answers) % FLUSH_EVERY == 0:
                provider.force_flush()
    finally:
        provider.shutdown()
    if exporter.failed:
        raise RagmonError(exporter.failure())
    if golden is not None and len(answers) == requests:
        write_golden(golden, answers)
    return answers


@contextlib.contextmanager
def _held_stop_signals() -> Iterator[list[int]]:
    """SIGTERM, SIGINT and SIGHUP noted, not raised, while the app asks its questions: raised mid-question,
    they ended a trace half made (an ERROR span, which the sidecar counted as a failed request). The app
    stops before its next question and flushes what it traced. Once one came they stay ignored until the
    process exits, so that a repeat (`timeout` signals the process, then its group) cannot cut the flush
    short. A signal ignored when this began (`nohup`) stays ignored."""
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    try:
        previous = {sig: signal.signal(sig, hold) for sig in heeded()}
    except ValueError:  # not the main thread, which alone may set handlers: its caller keeps its own
        yield received
        return
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if received else handler)


def _stopped(signum: int, asked: int, args: argparse.Namespace) -> Stopped:
    """What a stopped run did, in the exit status and line that `ragmon replay` gives a signal."""
    exc = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
    return Stopped(f"{stop_reason(exc)} after {asked} of {args.requests} questions: their {asked} traces "
                   f"were sent to {args.endpoint}{_golden_said(args, asked)}", stop_status(exc))


def _golden_said(args: argparse.Namespace, asked: int) -> str:
    """Whether `--golden` was written, told from what `run_phase` writes it on: every question asked. A
    signal that came after the last question (while the exporter finished, or the file was written) cut
    nothing short, yet a message worded from the signal alone said "not written" of a file that was."""
    if args.golden is None:
        return ""
    if asked == args.requests:
        return f"; golden set written to {args.golden}"
    return f"; --golden {args.golden} not written"


async def serve(address: tuple[str, int], phase: str, *, endpoint: str = DEFAULT_ENDPOINT,
                service_name: str = SERVICE_NAME) -> int:
    """Answer `POST /ask` until SIGTERM, SIGINT or SIGHUP (`stop_on_signals`), then flush the spans still
    queued. Spans it could not export end it with an error (exit 2), as in a batch run: printed to stdout
    with exit 0, they looked like a clean stop to whatever started the app."""
    retriever, llm = build(phase)
    exporter = _CheckedExporter(endpoint)
    provider = _provider(BatchSpanProcessor(exporter, schedule_delay_millis=SERVE_BATCH_DELAY_MS),
                         service_name, phase)
    tracer = provider.get_tracer("ragmon.demo")

    async def ask(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        question = body.get("question") if isinstance(body, dict) else None
        if not isinstance(question, str) or not question.strip():
            return web.json_response({"error": 'expected a JSON body {"question": "..."}'}, status=400)
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER, attributes=SERVER_ATTRIBUTES) as span:
            # A live question has no id and no known relevant documents: the golden file holds those.
            reply = answer(tracer, retriever, llm, Question("", question, ()), phase)
            span.set_attribute("http.response.status_code", 200)
        return web.json_response({"answer": reply.text})

    app = web.Application()
    app.router.add_post("/ask", ask)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    stop = asyncio.Event()
    with stop_on_signals(stop):
        try:
            host, port = address
            try:
                await web.TCPSite(runner, host, port).start()
            except OSError as exc:
                raise RagmonError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
            bound = runner.addresses[0][1]
            print_out(f"{phase} build answering POST http://{host}:{bound}/ask; traces to {endpoint}\n",
                      "the address")
            await stop.wait()
        finally:
            await runner.cleanup()
            provider.shutdown()
    if exporter.failed:
        raise RagmonError(exporter.failure())
    return 0


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


def answered_offline(phase: str) -> list[Answer]:
    """Each built-in question once, answered by one build without tracing: the builds are deterministic,
    so a golden set needs no sidecar to send traces to (examples/demo-golden.jsonl is the healthy one)."""
    _, questions = load_corpus()
    retriever, llm = build(phase)
    answers = []
    for question in questions:
        retrieved = retriever.search(question.question)
        answers.append(Answer(question, retrieved, llm.answer(question.question, retrieved)))
    return answers


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


def _provider(processor: BatchSpanProcessor, service_name: str, phase: str) -> TracerProvider:
    resource = Resource.create({"service.name": service_name, "service.version": phase})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(processor)
    # The SDK logs an export failure and carries on, as an app should; the demo reports it instead.
    logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter").setLevel(logging.CRITICAL)
    return provider


class _CheckedExporter(SpanExporter):
    """The real OTLP/HTTP exporter to `endpoint` (a base URL), counting spans it failed to deliver and
    keeping the last HTTP status that refused them, which the SDK only logs (and the demo silences)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.url = endpoint.rstrip("/") + TRACES_PATH
        session = requests.Session()
        session.hooks["response"].append(self._note_status)
        self._inner = OTLPSpanExporter(endpoint=self.url, timeout=EXPORT_TIMEOUT_SECONDS, session=session)
        self.failed = 0
        self.refused_with: int | None = None

    def _note_status(self, response: requests.Response, *args: object, **kwargs: object) -> None:
        if not response.ok:
            self.refused_with = response.status_code

    def failure(self) -> str:
        """What went wrong, for the user: a status means something answered at the endpoint, and a 404
        there most often means a full traces URL given where a base URL is wanted (as the SDK's
        OTEL_EXPORTER_OTLP_ENDPOINT, to which it appends the path)."""
        lost = f"{self.failed} spans could not be exported to {self.url}"
        if self.refused_with is None:
            return f"{lost}: is `ragmon serve` listening there?"
        if self.refused_with != 404:
            return f"{lost}: HTTP {self.refused_with}"
        given = self.endpoint.rstrip("/")
        base = given.removesuffix(TRACES_PATH)
        instead = f"; give --endpoint {base}" if base != given else ""
        return (f"{lost}: HTTP 404 (--endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: {TRACES_PATH} "
                f"is appended to it{instead})")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self._inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self.failed += len(spans)
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._inner.force_flush(timeout_millis)
