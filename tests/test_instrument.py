"""ragmon.instrument as an app uses it: the OTel SDK exports its spans over real OTLP/HTTP to a loopback
receiver, and the bytes received are decoded and extracted exactly as the sidecar would."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from ragmon import LexicalJudge, evaluate, instrument
from ragmon.model import Context, Example
from ragmon.otlp.decode import decode_protobuf
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Span, Trace

QUESTION = "Do you ship to Norway?"
ANSWER = "Yes, we ship to Norway within 6 business days."
SHIPPING = "We ship to all EEA countries, including Norway, within 6 business days."
CUSTOMS = "Orders outside the EU may pay import VAT."


class _Receiver(ThreadingHTTPServer):
    """Accepts OTLP/HTTP protobuf posts and keeps their bodies."""

    def __init__(self, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.bodies: list[bytes] = []


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:
        self.server.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test asserts on what arrives, not on the access log."""


class App:
    """An app's tracer provider exporting every span as it ends to the loopback receiver."""

    def __init__(self, port: int) -> None:
        self.receiver = _Receiver(port)
        self._thread = threading.Thread(target=self.receiver.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)
        self._thread.start()
        self.provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
        self.provider.add_span_processor(SimpleSpanProcessor(
            OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=5)))

    def received(self) -> list[Span]:
        return [span for body in self.receiver.bodies for span in decode_protobuf(body).spans]

    def example(self) -> Example | None:
        spans = self.received()
        assert len({span.trace_id for span in spans}) == 1
        return extract(Trace(spans[0].trace_id, tuple(spans)))

    def close(self) -> None:
        self.provider.shutdown()
        self.receiver.shutdown()
        self.receiver.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def app(port: int) -> Iterator[App]:
    app = App(port)
    yield app
    app.close()


def test_request_with_retrieval_and_answer(app: App) -> None:
    with instrument.rag_span(QUESTION, pipeline="shipping-faq", tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING, 0.8), {"id": "kb-vat", "text": CUSTOMS}])
        rag.answered(ANSWER, citations=["kb-ship"])

    example = app.example()

    assert example is not None
    assert example.question == QUESTION
    assert example.contexts == (Context("kb-ship", SHIPPING, 0.8), Context("kb-vat", CUSTOMS))
    assert example.answer == ANSWER
    assert example.citations == ("kb-ship",)
    assert example.pipeline == "shipping-faq"


def test_spans_form_a_request_with_timed_steps(app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        time.sleep(0.02)  # "retrieval" work: the retrieval span must cover it
        rag.retrieved([SHIPPING])
        rag.answered(ANSWER)

    spans = {span.name: span for span in app.received()}

    assert set(spans) == {"rag", "retrieval", "generation"}
    request, retrieval, generation = spans["rag"], spans["retrieval"], spans["generation"]
    assert retrieval.parent_span_id == request.span_id
    assert generation.parent_span_id == request.span_id
    assert retrieval.end_time_unix_nano - retrieval.start_time_unix_nano >= 20_000_000
    assert generation.start_time_unix_nano == retrieval.end_time_unix_nano
    assert request.start_time_unix_nano <= retrieval.start_time_unix_nano
    assert generation.end_time_unix_nano <= request.end_time_unix_nano
    assert request.attributes["ragmon.answer"] == generation.attributes["ragmon.answer"] == ANSWER


def test_labelled_traffic_and_a_plain_string_context(app: App) -> None:
    with instrument.rag_span(QUESTION, relevant_ids=["kb-ship"], ground_truth="Yes.",
                             tracer_provider=app.provider) as rag:
        rag.retrieved([SHIPPING])
        rag.answered(ANSWER)

    example = app.example()

    assert example is not None
    # A string context gets the content-hash id: "doc-" + the first 8 hex digits of its sha256.
    hashed = "doc-" + hashlib.sha256(SHIPPING.encode()).hexdigest()[:8]
    assert example.contexts == (Context(hashed, SHIPPING),)
    assert example.relevant_ids == frozenset({"kb-ship"})
    assert example.ground_truth == "Yes."
    assert example.citations is None
    assert example.pipeline == "shop"


def test_a_mapping_without_an_id_is_named_by_its_metadata_as_loaders_do(app: App) -> None:
    # {"text", "metadata": {"source"}}, a LangChain document as a dict: named "faq.md" (metadata id, else
    # source, else doc_id), as extraction names it, so relevant_ids=["faq.md"] finds it retrieved.
    with instrument.rag_span(QUESTION, relevant_ids=["faq.md"], tracer_provider=app.provider) as rag:
        rag.retrieved([{"text": SHIPPING, "metadata": {"source": "faq.md"}},
                       {"text": ANSWER, "metadata": {"doc_id": 7, "source": "guide.md"}}])
        rag.answered(ANSWER)

    example = app.example()

    assert example is not None
    assert example.contexts == (Context("faq.md", SHIPPING), Context("guide.md", ANSWER))


def test_nothing_retrieved_is_recorded_as_empty(app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([])
        rag.answered("I don't know.")

    example = app.example()

    assert example is not None
    assert example.contexts == ()


def test_an_empty_answer_is_an_answer_scored_as_the_same_golden_record_is(app: App) -> None:
    # A build that answers "" must not drop out of the answer metrics live while a golden record with
    # `"answer": ""` is scored: its question's terms (ship, Norway) are none of them in the answer, so
    # answer_relevance is 0/2 = 0 in both; it makes no claim, so groundedness is undefined in both.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING)])
        rag.answered("")

    live = app.example()
    offline = Example(id="q", question=QUESTION, contexts=(Context("kb-ship", SHIPPING),), answer="")

    assert live is not None and live.answer == ""
    metrics = [evaluate([replace(example, id="q")], LexicalJudge()).results[0].metrics
               for example in (live, offline)]
    assert metrics[0] == metrics[1]
    assert metrics[0]["answer_relevance"] == 0.0
    assert metrics[0]["groundedness"] is None


def test_an_exception_marks_the_request_span_as_an_error(app: App) -> None:
    # The request failed after retrieval: no answer, and its documents are no search endpoint's result.
    # The sidecar counts it an error naming the request span, not "scored" with nothing measured.
    with pytest.raises(RuntimeError), instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([SHIPPING])
        raise RuntimeError("model timed out")

    spans = {span.name: span for span in app.received()}

    assert spans["rag"].status_code == 2  # OTLP STATUS_CODE_ERROR
    assert any(event.name == "exception" for event in spans["rag"].events)
    with pytest.raises(ExtractionError) as caught:
        app.example()
    assert (caught.value.span_name, caught.value.field) == ("rag", "status")
    assert str(caught.value).endswith(
        "the request failed: no answer to score (status ERROR, exception.type 'RuntimeError')")


@pytest.mark.parametrize("bad", [[42], [{"id": "x"}], [{"text": 3}]])
def test_malformed_contexts_are_refused_in_the_app(bad: list[object], app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, pytest.raises(TypeError):
        rag.retrieved(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("score", ["high", [0.8], True])
def test_a_score_that_is_no_number_is_refused_naming_the_document(score: object, app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match="context 'kb-ship': score must be a number or None"):
        rag.retrieved([{"id": "kb-ship", "text": SHIPPING, "score": score}])


def test_a_numeric_score_of_another_type_is_read_as_a_float(app: App) -> None:
    # Vector stores hand back numpy scalars or strings: "0.25" and Decimal-like values are numbers too.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([{"id": "kb-ship", "text": SHIPPING, "score": "0.25"}])
        rag.answered(ANSWER)
    example = app.example()
    assert example is not None and example.contexts is not None
    assert example.contexts[0].score == 0.25


@pytest.mark.parametrize("record", [
    lambda rag: rag.retrieved(SHIPPING),                    # would record one document per character
    lambda rag: rag.answered(ANSWER, citations="kb-ship"),  # would cite "k", "b", "-", ...
], ids=["contexts", "citations"])
def test_a_lone_string_where_a_list_belongs_is_refused(record: Callable[[instrument.RagSpan], None],
                                                        app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match="not a single str"):
        record(rag)


@pytest.mark.parametrize("labels", [{"relevant_ids": "kb-ship"}, {"pipeline": 3}, {"ground_truth": 3}],
                         ids=["relevant_ids", "pipeline", "ground_truth"])
def test_mistyped_labels_are_refused_when_the_request_starts(labels: dict[str, Any], app: App) -> None:
    # Each would otherwise reach the sidecar as a value its strict ragmon.* reader rejects (losing the
    # whole trace) or, for a string of ids, be read as one id per character.
    with pytest.raises(TypeError, match=next(iter(labels))), \
            instrument.rag_span(QUESTION, tracer_provider=app.provider, **labels):
        pass
    assert app.received() == []


def test_a_context_object_without_text_is_refused_in_the_app(app: App) -> None:
    # Its JSON {"text": null} would make the sidecar reject the trace; Context refuses it when built.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, pytest.raises(TypeError):
        rag.retrieved([Context("kb-ship", None)])  # type: ignore[arg-type]


def test_unicode_and_long_texts_round_trip_unchanged(app: App) -> None:
    text = "Ça coûte 5 € — 配送は無料です 😀 " * 20_000  # ~680 k characters, beyond the BMP too
    with instrument.rag_span("Où est ma commande ? 🚚", tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-é", text, 0.5)])

    example = app.example()

    assert example is not None
    assert example.question == "Où est ma commande ? 🚚"
    assert example.contexts == (Context("kb-é", text, 0.5),)
    assert example.answer is None  # never answered: unknown, not empty


async def test_concurrent_requests_in_asyncio_each_get_their_own_trace(app: App) -> None:
    async def ask(question: str) -> None:
        with instrument.rag_span(question, tracer_provider=app.provider) as rag:
            await asyncio.sleep(0.01)  # the other requests run here, each in its own task context
            rag.retrieved([f"{question} context"])
            await asyncio.sleep(0.01)
            rag.answered(f"{question} answer")

    await asyncio.gather(*(ask(f"q{i}") for i in range(3)))

    by_trace: dict[str, list[Span]] = {}
    for span in app.received():
        by_trace.setdefault(span.trace_id, []).append(span)
    examples = [extract(Trace(trace_id, tuple(spans))) for trace_id, spans in by_trace.items()]
    assert sorted((e.question, e.contexts[0].text, e.answer) for e in examples if e and e.contexts) == [
        (f"q{i}", f"q{i} context", f"q{i} answer") for i in range(3)]


def test_without_a_tracer_provider_the_calls_are_harmless() -> None:
    # A fresh interpreter: no SDK configured, so the global provider is the API's no-op proxy.
    script = ("from ragmon import instrument\n"
              "with instrument.rag_span('q?', pipeline='p') as rag:\n"
              "    rag.retrieved(['doc']); rag.answered('a.', citations=['x'])\n"
              "print(rag.span.is_recording())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "False\n", "")


# --- keys named otherwise than ragmon reads them ---------------------------------------------------------


MISNAMED = [
    ({"doc_id": "kb-ship", "text": SHIPPING}, "unknown field 'doc_id': ragmon reads this as 'id', rename it"),
    ({"document_id": "kb-ship", "text": SHIPPING},
     "unknown field 'document_id': ragmon reads this as 'id', rename it"),
    ({"ID": "kb-ship", "text": SHIPPING}, "unknown field 'ID': did you mean 'id'?"),
    ({"id": "kb-ship", "content": SHIPPING},
     "unknown field 'content': ragmon reads this as 'text', rename it"),
    ({"id": "kb-ship", "Text": SHIPPING}, "unknown field 'Text': did you mean 'text'?"),
    # A LangChain Document as a dict (`doc.model_dump()`), its id in the metadata.
    ({"page_content": SHIPPING, "metadata": {"id": "kb-ship"}},  # type: ignore[dict-item]
     "unknown field 'page_content': ragmon reads this as 'text', rename it"),
]


@pytest.mark.parametrize(("context", "why"), MISNAMED, ids=[why.split("'")[1] for _, why in MISNAMED])
def test_a_key_meant_as_id_or_text_is_refused_in_the_app_naming_the_key_ragmon_reads(
        context: dict[str, str], why: str, app: App) -> None:
    # The doc_id used to be dropped silently, the document recorded under its content hash: citations of
    # kb-ship then pointed at a document never retrieved. The second document is the one refused.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError) as caught:
        rag.retrieved([CUSTOMS, context])

    assert str(caught.value) == f"contexts[1]: {why}"
    assert "retrieval" not in {span.name for span in app.received()}  # nothing recorded under a hash


def test_a_text_of_the_wrong_type_is_the_mistake_named_whatever_other_keys_there_are(app: App) -> None:
    # A `content` beside it is no misnamed text: the text is there, and it is a number.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError) as caught:
        rag.retrieved([{"id": "kb-ship", "text": 5, "content": SHIPPING}])

    assert str(caught.value).startswith("a context needs a string text, got {'id': 'kb-ship', 'text': 5")


@pytest.mark.parametrize(("context", "why"), MISNAMED, ids=[why.split("'")[1] for _, why in MISNAMED])
def test_the_app_and_the_sidecar_refuse_a_misnamed_key_in_the_same_words(
        context: dict[str, str], why: str, app: App) -> None:
    # The same object set by hand as ragmon.contexts is refused by extraction with the same reason.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.span.set_attribute("ragmon.contexts", json.dumps([context]))
        rag.answered(ANSWER)

    with pytest.raises(ExtractionError) as caught:
        app.example()

    assert caught.value.field == "ragmon.contexts"
    assert str(caught.value).endswith(f"ragmon.contexts[0]: {why}")


@pytest.mark.parametrize(("context", "doc_id"), [
    # Every key ragmon reads.
    ({"id": "kb-ship", "text": SHIPPING, "score": 0.5, "metadata": {"source": "faq.md"}}, "kb-ship"),
    # An id given: doc_id, chunk_id and the like beside it are the app's own keys, and not written.
    ({"id": "kb-ship", "text": SHIPPING, "doc_id": "legacy-7", "chunk_id": 3, "title": "Shipping"},
     "kb-ship"),
    # The id in the metadata, as loaders put it (id, else source, else doc_id): a doc_id beside it is
    # the app's own, as extraction reads it.
    ({"text": SHIPPING, "metadata": {"source": "faq.md"}, "doc_id": "legacy-7"}, "faq.md"),
    ({"text": SHIPPING, "metadata": {"doc_id": "kb-ship"}}, "kb-ship"),
    # No id anywhere and no key meant as one: the content hash, as for a plain string.
    ({"text": SHIPPING, "title": "Shipping", "url": "https://shop.example/faq"},
     "doc-" + hashlib.sha256(SHIPPING.encode()).hexdigest()[:8]),
], ids=["every key read", "own keys beside an id", "metadata source", "metadata doc_id", "own keys only"])
def test_keys_ragmon_reads_and_the_app_s_own_still_record(context: dict[str, Any], doc_id: str,
                                                          app: App) -> None:
    with instrument.rag_span(QUESTION, relevant_ids=[doc_id], tracer_provider=app.provider) as rag:
        rag.retrieved([context])
        rag.answered(ANSWER, citations=[doc_id])

    example = app.example()

    assert example is not None
    assert example.contexts == (Context(doc_id, SHIPPING, context.get("score")),)
    assert example.citations == (doc_id,)
    retrieval = next(span for span in app.received() if span.name == "retrieval")
    assert set(json.loads(retrieval.attributes["ragmon.contexts"])[0]) <= {"id", "text", "score"}


# --- requests that failed or recorded nothing ------------------------------------------------------------


def test_a_request_refused_before_it_recorded_anything_is_an_error(app: App) -> None:
    # retrieved() refused its argument: the request span carries only the question, and the TypeError
    # that ended it. It was "scored" with neither documents nor an answer.
    with pytest.raises(TypeError), instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([{"doc_id": "kb-ship", "text": SHIPPING}])

    with pytest.raises(ExtractionError) as caught:
        app.example()

    assert (caught.value.span_name, caught.value.field) == ("rag", "status")
    assert str(caught.value).endswith(
        "the request failed: no answer to score (status ERROR, exception.type 'TypeError')")


def test_a_request_that_recorded_only_its_question_has_nothing_to_score(app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider):
        pass  # e.g. a cached reply the app did not record

    with pytest.raises(ExtractionError) as caught:
        app.example()

    assert (caught.value.span_name, caught.value.field) == ("rag", "documents and answer")
    assert str(caught.value).endswith(
        "the request recorded neither documents nor an answer: nothing to score")


def test_a_search_endpoint_that_ended_well_is_scored_on_its_documents(app: App) -> None:
    with instrument.rag_span(QUESTION, relevant_ids=["kb-ship"], tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING, 0.8)])

    example = app.example()

    assert example is not None
    assert (example.contexts, example.answer) == ((Context("kb-ship", SHIPPING, 0.8),), None)


def test_an_answer_recorded_before_the_request_failed_is_scored(app: App) -> None:
    # The request failed after answering (writing the chat history, say): the answer the pipeline gave
    # is there to score, as it would be had the failure come after the response was sent.
    with pytest.raises(RuntimeError), instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING)])
        rag.answered(ANSWER)
        raise RuntimeError("history store unreachable")

    example = app.example()

    assert example is not None
    assert (example.contexts, example.answer) == ((Context("kb-ship", SHIPPING),), ANSWER)
