"""ragmon.instrument as an app uses it: the OTel SDK exports its spans over real OTLP/HTTP to a loopback
receiver, and the bytes received are decoded and extracted exactly as the sidecar would."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import sys
import threading
import time
import tracemalloc
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from instrumented_apps import instrumenting
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import Document as LlamaIndexDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever as LlamaIndexRetriever
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler

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

    def examples(self) -> list[Example | None]:
        """One per trace, in the order their first spans arrived."""
        traces: dict[str, list[Span]] = {}
        for span in self.received():
            traces.setdefault(span.trace_id, []).append(span)
        return [extract(Trace(trace_id, tuple(spans))) for trace_id, spans in traces.items()]

    def close(self) -> None:
        self.provider.shutdown()
        self.receiver.shutdown()
        self.receiver.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def app(port: int) -> Iterator[App]:
    yield from _serving(port)


def _serving(port: int) -> Iterator[App]:
    app = App(port)
    yield app
    app.close()


CUT_AT = 80


@pytest.fixture
def cut_app(port: int, monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    """An app run with OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=80: its SDK keeps the first 80 characters of
    every string attribute."""
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", str(CUT_AT))
    yield from _serving(port)


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

    # It had been "a context needs a string text, got {...}", naming no position among the documents.
    assert str(caught.value) == "contexts[0].text must be a string, got int 5"


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


# --- what the exporter, the sampler and the SDK's limits do to the values -------------------------------


def test_text_with_lone_surrogates_arrives_with_each_as_a_replacement_character(app: App) -> None:
    # A lone surrogate (text decoded with errors="surrogateescape", a "\\ud800" escape in JSON) has no
    # UTF-8: the exporter logged a traceback and sent the span without the attribute, so the documents
    # and the answer went missing. Each arrives as U+FFFD, as the sidecar reads one from OTLP/JSON.
    with instrument.rag_span("Versand nach Norwegen\udcc3?", pipeline="faq\ud800",
                             relevant_ids=["kb-\udc80"], tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-\udc80", "Wir liefern\udcc3 nach Norwegen."), "Zoll\ud83d."])
        rag.answered("Ja\udfff.", citations=["kb-\udc80"])

    example = app.example()

    assert example is not None
    assert (example.question, example.pipeline) == ("Versand nach Norwegen\ufffd?", "faq\ufffd")
    # The string's id: "doc-" + the first 8 hex digits of the sha256 of "Zoll\ufffd." (EF BF BD in UTF-8).
    hashed = "doc-" + hashlib.sha256(b"Zoll\xef\xbf\xbd.").hexdigest()[:8]
    assert example.contexts == (Context("kb-\ufffd", "Wir liefern\ufffd nach Norwegen."),
                                Context(hashed, "Zoll\ufffd."))
    assert example.answer == "Ja\ufffd."
    assert example.citations == ("kb-\ufffd",)
    assert example.relevant_ids == frozenset({"kb-\ufffd"})


def test_a_blank_id_yields_to_the_metadata_s_name_as_the_sidecar_reads_it(app: App) -> None:
    # `{"id": doc.metadata.get("id", ""), ...}`: the sidecar reads a blank id as none, so a ragmon.contexts
    # set by hand names the first "faq.md" (its metadata source), the second by its content hash. The
    # helper wrote the blank id without the metadata: the first was named by its hash, and the
    # relevant id "faq.md" was never found retrieved.
    with instrument.rag_span(QUESTION, relevant_ids=["faq.md"], tracer_provider=app.provider) as rag:
        rag.retrieved([{"id": "", "text": SHIPPING, "metadata": {"source": "faq.md"}},
                       {"id": "  ", "text": CUSTOMS, "doc_id": "legacy-7"}])
        rag.answered(ANSWER, citations=["faq.md"])

    example = app.example()

    assert example is not None
    assert example.contexts == (Context("faq.md", SHIPPING),
                                Context("doc-" + hashlib.sha256(CUSTOMS.encode()).hexdigest()[:8], CUSTOMS))


def test_whole_number_ids_are_recorded_as_their_decimal_text(app: App) -> None:
    with instrument.rag_span(QUESTION, relevant_ids=[12], tracer_provider=app.provider) as rag:
        rag.retrieved([{"id": 12, "text": SHIPPING}])
        rag.answered(ANSWER, citations=[12])

    example = app.example()

    assert example is not None
    assert (example.contexts, example.citations, example.relevant_ids) == (
        (Context("12", SHIPPING),), ("12",), frozenset({"12"}))


@pytest.mark.parametrize(("record", "why"), [
    (lambda rag: rag.answered(ANSWER, citations=["kb-ship", None]),
     "citations[1] must be a string or a whole number, got None"),
    (lambda rag: rag.answered(ANSWER, citations=[float("nan")]),
     "citations[0] must be a string or a whole number, got nan"),
    (lambda rag: rag.retrieved([{"id": 7.0, "text": SHIPPING}]),
     "contexts[0].id must be a string or a whole number, got 7.0"),
    (lambda rag: rag.retrieved([CUSTOMS, {"id": True, "text": SHIPPING}]),
     "contexts[1].id must be a string or a whole number, got True"),
], ids=["None citation", "NaN citation", "float id", "bool id"])
def test_an_id_neither_a_string_nor_a_whole_number_is_refused_naming_where(
        record: Callable[[instrument.RagSpan], None], why: str, app: App) -> None:
    # Each was recorded as its str(): a citation of "None", "nan", a document "7.0" or "True", which
    # no relevant id or citation names. The sidecar refuses such an id set by hand.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError) as caught:
        record(rag)

    assert str(caught.value) == why


def test_relevant_ids_other_than_strings_or_whole_numbers_are_refused_when_the_request_starts(
        app: App) -> None:
    with pytest.raises(TypeError) as caught, \
            instrument.rag_span(QUESTION, relevant_ids=["kb-ship", None], tracer_provider=app.provider):
        pass

    assert str(caught.value) == "relevant_ids[1] must be a string or a whole number, got None"
    assert app.received() == []


@pytest.mark.parametrize("score", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"])
def test_a_score_with_no_json_spelling_is_recorded_as_no_score(score: float, app: App) -> None:
    # A vector store's NaN was written as the bare word NaN, which no strict JSON reader of the trace
    # (a collector's processor, a backend's UI) parses; it says nothing of rank, so it is no score.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([{"id": "kb-ship", "text": SHIPPING, "score": score},
                       Context("kb-vat", CUSTOMS, score)])
        rag.answered(ANSWER)

    example = app.example()
    retrieval = next(span for span in app.received() if span.name == "retrieval")

    assert example is not None
    assert example.contexts == (Context("kb-ship", SHIPPING), Context("kb-vat", CUSTOMS))
    assert json.loads(retrieval.attributes["ragmon.contexts"], parse_constant=_no_constant) == [
        {"id": "kb-ship", "text": SHIPPING}, {"id": "kb-vat", "text": CUSTOMS}]


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _in_memory(sampler: Sampler) -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _peak_bytes_to_record(provider: TracerProvider, documents: list[str]) -> int:
    """The most memory recording `documents` held at once: what the JSON of them, written or not, takes."""
    with instrument.rag_span(QUESTION, tracer_provider=provider) as rag:
        tracemalloc.start()
        try:
            rag.retrieved(documents)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def test_a_request_the_app_s_sampler_dropped_costs_next_to_nothing() -> None:
    # 40 documents of 250,000 characters: recording them writes 10 MB of JSON (40 x 250,002 characters and
    # the keys), held at once. A request the sampler dropped records nothing, and had written it all the
    # same: it may hold no more than a small fraction of one document.
    documents = [f"{i} " + "lorem ipsum " * 20_833 for i in range(40)]
    recording, recorded = _in_memory(ALWAYS_ON)
    dropped, exported = _in_memory(ALWAYS_OFF)

    kept_bytes = _peak_bytes_to_record(recording, documents)
    dropped_bytes = _peak_bytes_to_record(dropped, documents)

    assert len(json.loads(recorded.get_finished_spans()[0].attributes["ragmon.contexts"])) == 40
    assert exported.get_finished_spans() == ()
    assert kept_bytes > 10_000_000
    assert dropped_bytes < 50_000, dropped_bytes


def test_a_request_the_app_s_sampler_dropped_still_refuses_a_mistyped_argument() -> None:
    # Refused only in the sampled requests, a mistake would fail one request in ten, at random.
    dropped, _ = _in_memory(ALWAYS_OFF)
    with instrument.rag_span(QUESTION, tracer_provider=dropped) as rag, pytest.raises(TypeError) as caught:
        rag.retrieved([{"doc_id": "kb-ship", "text": SHIPPING}])

    assert str(caught.value) == "contexts[0]: unknown field 'doc_id': ragmon reads this as 'id', rename it"


def _cut_warning(attribute: str, effect: str) -> str:
    return (f"{attribute} was cut to 80 characters by the tracer provider's attribute length limit "
            "(OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT or SpanLimits): "
            f"{effect}; raise the limit above the longest value recorded")


def test_documents_cut_by_the_attribute_length_limit_are_warned_of_in_the_app(cut_app: App) -> None:
    # '[{"id": "kb-ship", "text": "' is 28 characters, SHIPPING 71: the JSON is over 80, the SDK cuts it,
    # and the sidecar refuses the trace. Only the sidecar's log said so; the app is where it is fixed.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with instrument.rag_span(QUESTION, tracer_provider=cut_app.provider) as rag:
            rag.retrieved([Context("kb-ship", SHIPPING)])
            rag.answered(ANSWER)

    assert [(str(w.message), w.category, w.filename) for w in caught] == [(
        _cut_warning("ragmon.contexts", "the sidecar cannot read the cut JSON and counts the trace an error"),
        RuntimeWarning, __file__)]
    with pytest.raises(ExtractionError, match="cut at 80 characters"):
        cut_app.example()


def test_a_question_or_answer_cut_by_the_attribute_length_limit_is_warned_of_in_the_app(
        cut_app: App) -> None:
    # 81 characters each: the sidecar would score the first 80, none the wiser.
    question, answer = "Q" * 80 + "?", "A" * 80 + "."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with instrument.rag_span(question, tracer_provider=cut_app.provider) as rag:
            rag.answered(answer)

    kept = _cut_warning("{}", "the sidecar scores only the part kept")
    # The answer is written twice, on the generation span and the request span.
    assert [(str(w.message), w.filename) for w in caught] == [
        (kept.format("ragmon.question"), __file__), (kept.format("ragmon.answer"), __file__),
        (kept.format("ragmon.answer"), __file__)]
    example = cut_app.example()
    assert example is not None and (example.question, example.answer) == ("Q" * 80, "A" * 80)


def test_a_cut_value_is_warned_of_once_per_line_of_the_app_not_once_per_request(cut_app: App) -> None:
    # Python's default filter shows a warning once per place; the SDK's get_tracer, called per request,
    # changed the filters and so made it forget: four requests warned four times.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(4):
            with instrument.rag_span(QUESTION, tracer_provider=cut_app.provider) as rag:
                rag.retrieved([Context("kb-ship", SHIPPING)])
                rag.answered(ANSWER)

    assert [str(w.message) for w in caught] == [
        _cut_warning("ragmon.contexts", "the sidecar cannot read the cut JSON and counts the trace an error")]


def test_values_within_the_attribute_length_limit_warn_of_nothing(cut_app: App) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with instrument.rag_span(QUESTION, tracer_provider=cut_app.provider) as rag:
            rag.retrieved([Context("kb-vat", "VAT.")])
            rag.answered(ANSWER)

    example = cut_app.example()
    assert example is not None and example.contexts == (Context("kb-vat", "VAT."),)


def _traced_and_recorded(app: App, retrieved: list[Any]) -> tuple[Example, Example]:
    """The retrieval as its framework's OpenInference instrumentation recorded it (the first trace), and
    `retrieved` recorded by ragmon.instrument (the second), both extracted as the sidecar would."""
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved(retrieved)
    traced, recorded = app.examples()
    assert traced is not None and recorded is not None
    return traced, recorded


def _hashed(text: str) -> str:
    return "doc-" + hashlib.sha256(text.encode()).hexdigest()[:8]


def test_langchain_documents_are_named_as_the_sidecar_names_them_from_openinference(app: App) -> None:
    # The store gives each document added without an id a random UUID, which yields to the metadata's
    # id or source; an id the app gave stays; with no metadata the UUID is all there is.
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents([Document(page_content=SHIPPING, metadata={"id": "kb-ship", "source": "faq.md"}),
                         Document(page_content=CUSTOMS, metadata={"source": "vat.md"}),
                         Document(page_content="Returns within 30 days.", id="kb-returns"),
                         Document(page_content="Chat support all day.")])
    with instrumenting(app.provider, LangChainInstrumentor()):
        docs = store.as_retriever(search_kwargs={"k": 4}).invoke(QUESTION)

    traced, recorded = _traced_and_recorded(app, docs)

    unnamed = next(doc.id for doc in docs if doc.page_content == "Chat support all day.")
    assert unnamed is not None and str(uuid.UUID(unnamed)) == unnamed  # the store's
    names = {SHIPPING: "kb-ship", CUSTOMS: "vat.md", "Returns within 30 days.": "kb-returns",
             "Chat support all day.": unnamed}
    assert len(docs) == 4
    assert recorded.contexts == tuple(Context(names[doc.page_content], doc.page_content) for doc in docs)
    assert recorded.contexts == traced.contexts


class _Fixed(BaseRetriever):
    """A retriever handing back the documents it was built with, ids as the app set them."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, **_: Any) -> list[Document]:
        return self.documents


def test_a_langchain_document_with_a_blank_or_no_id_is_named_by_its_metadata_or_its_content(app: App) -> None:
    documents = [Document(page_content=SHIPPING, id="", metadata={"source": "faq.md", "id": 7}),
                 Document(page_content=CUSTOMS),
                 Document(page_content="", id="kb-empty", metadata={"source": "empty.md"})]
    with instrumenting(app.provider, LangChainInstrumentor()):
        docs = _Fixed(documents=documents).invoke(QUESTION)

    traced, recorded = _traced_and_recorded(app, docs)

    # The metadata's whole-number id comes before its source; no id and no metadata: the content hash.
    assert recorded.contexts == (Context("7", SHIPPING), Context(_hashed(CUSTOMS), CUSTOMS),
                                 Context("kb-empty", ""))
    assert recorded.contexts == traced.contexts


def test_llamaindex_nodes_are_read_as_the_sidecar_reads_them_from_openinference(app: App) -> None:
    # Every node gets a random UUID, which yields to the metadata's id or source; the text is the node's
    # without its metadata; MockEmbedding embeds every text alike, so each score is a cosine of 1.
    documents = [LlamaIndexDocument(text=SHIPPING, metadata={"id": "kb-ship"}),
                 LlamaIndexDocument(text=CUSTOMS, metadata={"source": "vat.md", "lang": "en"}),
                 LlamaIndexDocument(text="Chat support all day.")]
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    with instrumenting(app.provider, LlamaIndexInstrumentor()):
        nodes = index.as_retriever(similarity_top_k=3).retrieve(QUESTION)

    traced, recorded = _traced_and_recorded(app, nodes)

    unnamed = next(node.node_id for node in nodes if node.text == "Chat support all day.")
    names = {SHIPPING: "kb-ship", CUSTOMS: "vat.md", "Chat support all day.": unnamed}
    assert len(nodes) == 3
    assert recorded.contexts is not None
    assert [(c.id, c.text) for c in recorded.contexts] == [(names[node.text], node.text) for node in nodes]
    assert [c.score for c in recorded.contexts] == pytest.approx([1.0, 1.0, 1.0])
    assert recorded.contexts == traced.contexts


class _FixedNodes(LlamaIndexRetriever):
    """A LlamaIndex retriever handing back the nodes it was built with."""

    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.nodes


def test_a_llamaindex_node_s_own_id_stays_and_an_unset_score_is_read_as_openinference_records_it(
        app: App) -> None:
    nodes = [NodeWithScore(node=TextNode(id_="kb-ship", text=SHIPPING, metadata={"id": "other"}), score=0.5),
             NodeWithScore(node=TextNode(id_="kb-vat", text=CUSTOMS))]
    with instrumenting(app.provider, LlamaIndexInstrumentor()):
        retrieved = _FixedNodes(nodes).retrieve(QUESTION)

    traced, recorded = _traced_and_recorded(app, retrieved)

    # OpenInference records NodeWithScore.get_score(), 0.0 for a node retrieved without a score.
    assert recorded.contexts == (Context("kb-ship", SHIPPING, 0.5), Context("kb-vat", CUSTOMS, 0.0))
    assert recorded.contexts == traced.contexts


def test_a_bare_llamaindex_node_is_read_without_its_metadata_and_without_a_score(app: App) -> None:
    node = TextNode(id_="kb-ship", text=SHIPPING, metadata={"source": "faq.md"})
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([node])

    example = app.example()

    assert example is not None and example.contexts == (Context("kb-ship", SHIPPING),)


def test_an_object_of_no_kind_read_is_refused_naming_the_kinds_that_are(app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match="a context is a Context, a mapping, a string, a LangChain "
                                           "Document or a LlamaIndex node, got tuple"):
        rag.retrieved([(Document(page_content=SHIPPING), 0.8)])  # type: ignore[list-item]


@pytest.mark.parametrize(("document", "why"), [
    (Document.model_construct(page_content=3, metadata={}),
     "contexts[0].page_content must be a string, got int"),
    (Document.model_construct(page_content=SHIPPING, metadata=["faq.md"]),
     "contexts[0].metadata must be a mapping, got list"),
], ids=["page_content", "metadata"])
def test_a_framework_document_built_without_validation_is_refused_naming_the_field(
        document: Document, why: str, app: App) -> None:
    # `model_construct` skips pydantic's checks, as a loader's shortcut may: what ragmon would read of
    # such a document is named, where the OpenInference instrumentor silently drops the whole retrieval.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match=re.escape(why)):
        rag.retrieved([document])


class _KeepsPipeline(Sampler):
    """An app's sampler keeping the requests of one pipeline, and its steps with them: it sees what a span
    starts with, as every sampler and a processor's on_start do."""

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None,
                      attributes: Any = None, links: Any = None, trace_state: Any = None) -> Any:
        parent = trace.get_current_span(parent_context).get_span_context()
        keep = parent.trace_flags.sampled if parent.is_valid else (attributes or {}).get(
            "ragmon.pipeline") == "support"
        decide = ALWAYS_ON if keep else ALWAYS_OFF
        return decide.should_sample(parent_context, trace_id, name, kind, attributes)

    def get_description(self) -> str:
        return "keeps pipeline 'support'"


def test_a_sampler_routing_on_the_pipeline_sees_it_when_the_request_starts() -> None:
    # Set after the span had started, ragmon.pipeline reached no sampler: this app's every request was
    # dropped, the "support" ones too. Kept: the request and its two steps, each with what it found.
    provider, exported = _in_memory(_KeepsPipeline())
    for pipeline in ("support", "sales"):
        with instrument.rag_span(QUESTION, pipeline=pipeline, tracer_provider=provider) as rag:
            rag.retrieved([Context("kb-ship", SHIPPING)])
            rag.answered(ANSWER)
    spans = {span.name: span.attributes for span in exported.get_finished_spans()}
    assert sorted(spans) == ["generation", "rag", "retrieval"]
    assert spans["rag"]["ragmon.pipeline"] == "support"
    assert json.loads(spans["retrieval"]["ragmon.contexts"]) == [{"id": "kb-ship", "text": SHIPPING}]
    assert spans["generation"]["ragmon.answer"] == ANSWER


def test_a_citation_or_relevant_id_cut_by_the_attribute_length_limit_is_warned_of_in_the_app(
        cut_app: App) -> None:
    # 90-character ids cut to 80 name no document: the citation counted as one of a document never
    # retrieved, and the app heard nothing (only strings were compared, not lists of them).
    cited, relevant = "kb-" + "c" * 87, "kb-" + "r" * 87
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with instrument.rag_span(QUESTION, relevant_ids=["kb-vat", relevant],
                                 tracer_provider=cut_app.provider) as rag:
            rag.answered(ANSWER, citations=[cited])

    kept = _cut_warning("{}", "an id cut short names no document")
    assert [(str(w.message), w.filename) for w in caught] == [
        (kept.format("ragmon.relevant_ids"), __file__), (kept.format("ragmon.citations"), __file__)]
