"""ragmon.instrument as real apps misuse it: requests cut off by a cancellation, one document where a list
belongs, a streamed answer recorded after the block. The SDK's spans are encoded to OTLP protobuf as its
exporter sends them and extracted as the sidecar would."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, TextNode
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragmon import instrument
from ragmon.model import Context, Example
from ragmon.otlp.decode import decode_protobuf
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Trace

QUESTION = "Do you ship to Norway?"
SHIPPING = "We ship to all EEA countries, including Norway, within 6 business days."


class App:
    """An app's tracer provider whose spans are kept in memory as they end."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def span_names(self) -> list[str]:
        return sorted(span.name for span in self.exporter.get_finished_spans())

    def example(self) -> Example | None:
        spans = decode_protobuf(encode_spans(self.exporter.get_finished_spans()).SerializeToString()).spans
        return extract(Trace(spans[0].trace_id, tuple(spans)))


@pytest.fixture
def app() -> Iterator[App]:
    app = App()
    yield app
    app.provider.shutdown()


def _cancelled_task(app: App) -> None:
    """A request handler cancelled while it awaits its model (the client went away, a timeout fired)."""
    async def handle() -> None:
        with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
            rag.retrieved([Context("kb-ship", SHIPPING)])
            await asyncio.Event().wait()

    async def cancel() -> None:
        task = asyncio.create_task(handle())
        await asyncio.sleep(0)  # the handler runs to its wait
        task.cancel()
        await task

    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(cancel())


def _interrupted(app: App) -> None:
    with contextlib.suppress(KeyboardInterrupt), \
            instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING)])
        raise KeyboardInterrupt


def _stream_left_unread(app: App) -> None:
    """A streaming endpoint whose client stopped reading after the first chunk: the server closes it."""
    def stream() -> Iterator[str]:
        with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
            rag.retrieved([Context("kb-ship", SHIPPING)])
            yield "Yes, "
            yield "we ship to Norway."
            rag.answered("Yes, we ship to Norway.")

    chunks = stream()
    next(chunks)
    chunks.close()


@pytest.mark.parametrize(("cut_off", "stopped_by"), [
    (_cancelled_task, "asyncio.exceptions.CancelledError"),
    (_interrupted, "KeyboardInterrupt"),
    (_stream_left_unread, "GeneratorExit"),
], ids=["cancelled", "interrupted", "stream-closed"])
def test_a_request_cut_off_after_retrieval_is_an_error_not_a_search_endpoint_scored(
        cut_off: Callable[[App], None], stopped_by: str, app: App) -> None:
    # OpenTelemetry marks a span failed for an Exception only: these ended as if the request succeeded,
    # and the sidecar scored its documents as a search endpoint's result (ragmon_traces_total
    # {outcome="scored"}, the request captured as a golden candidate without an answer).
    cut_off(app)

    with pytest.raises(ExtractionError) as caught:
        app.example()

    assert (caught.value.span_name, caught.value.field) == ("rag", "status")
    assert str(caught.value).endswith(
        f"the request failed: no answer to score (status ERROR, exception.type '{stopped_by}')")


def test_an_answer_recorded_before_the_stream_was_closed_is_scored(app: App) -> None:
    # The cut-off request is marked failed, but what the user got was recorded: it is scored.
    def stream() -> Iterator[str]:
        with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
            rag.retrieved([Context("kb-ship", SHIPPING)])
            rag.answered("Yes, we ship to Norway.")
            yield "Yes, we ship to Norway."
            yield "Anything else?"

    chunks = stream()
    next(chunks)
    chunks.close()

    example = app.example()
    assert example is not None
    assert (example.answer, example.contexts) == ("Yes, we ship to Norway.", (Context("kb-ship", SHIPPING),))


ONE_WHERE_MANY_BELONG: list[tuple[Callable[[instrument.RagSpan], None], str]] = [
    # Iterated, a document mapping gave its keys: two documents whose texts were "id" and "text".
    (lambda rag: rag.retrieved({"id": "kb-ship", "text": SHIPPING}),
     "contexts must be an iterable of items, not a single dict: iterated, it gives its keys alone"),
    # A pydantic model iterates its fields: "a context is ..., got tuple" named neither the argument nor
    # the mistake.
    (lambda rag: rag.retrieved(Document(page_content=SHIPPING, id="kb-ship")),
     "contexts must be an iterable of items, not a single Document"),
    (lambda rag: rag.retrieved(NodeWithScore(node=TextNode(text=SHIPPING, id_="kb-ship"), score=0.8)),
     "contexts must be an iterable of items, not a single NodeWithScore"),
    # Python's "'Context' object is not iterable" named no argument.
    (lambda rag: rag.retrieved(Context("kb-ship", SHIPPING)),  # type: ignore[arg-type]
     "contexts must be an iterable of items, not a single Context"),
    (lambda rag: rag.answered("Yes.", citations={"kb-ship": 0.9}),  # type: ignore[arg-type]
     "citations must be an iterable of items, not a single dict: iterated, it gives its keys alone"),
]


@pytest.mark.parametrize(("record", "why"), ONE_WHERE_MANY_BELONG,
                         ids=["dict", "langchain", "llamaindex", "context", "citations"])
def test_one_item_where_a_list_belongs_is_refused_naming_the_argument(
        record: Callable[[instrument.RagSpan], None], why: str, app: App) -> None:
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match=f"^{re.escape(why)}$"):
        record(rag)


def test_qrels_given_as_relevant_ids_are_refused_before_the_request_starts(app: App) -> None:
    # BEIR and TREC qrels map each id to a grade; read as keys, "kb-vat", graded 0 (judged not relevant),
    # counted as relevant, and the retrieval metrics of every such request were wrong.
    qrels: dict[str, Any] = {"kb-ship": 1, "kb-vat": 0}
    why = "relevant_ids must be an iterable of items, not a single dict: iterated, it gives its keys alone"
    with pytest.raises(TypeError, match=f"^{re.escape(why)}$"), \
            instrument.rag_span(QUESTION, relevant_ids=qrels, tracer_provider=app.provider):
        pass
    assert app.span_names() == []


@pytest.mark.parametrize(("late", "call"), [
    (lambda rag: rag.answered("Yes, we ship to Norway.", citations=["kb-ship"]), "answered"),
    (lambda rag: rag.retrieved([Context("kb-vat", "Import VAT may be due.")]), "retrieved"),
], ids=["answered", "retrieved"])
def test_a_step_recorded_after_the_block_ended_is_refused(late: Callable[[instrument.RagSpan], None],
                                                          call: str, app: App) -> None:
    # A streaming endpoint returns its stream from inside the block and records the answer once the
    # stream is read, after the request span ended: its citations were dropped (set on an ended span),
    # and the generation span, arriving after the sidecar's --quiet, was counted late and the request
    # scored as one that never answered.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag:
        rag.retrieved([Context("kb-ship", SHIPPING)])

    with pytest.raises(RuntimeError, match=re.escape(
            f"{call}() was called after its rag_span block ended: record the request's steps inside the "
            "block (for a streamed answer, the whole answer once the stream is read)")):
        late(rag)
    assert app.span_names() == ["rag", "retrieval"]


def test_numpy_whole_numbers_name_documents_as_python_ints_do(app: App) -> None:
    # What a pandas row gives: np.int64(3) in a document's metadata had been dropped for the content hash
    # (its citation then counted as one of a document never retrieved), and as an id, a citation or a
    # relevant id refused as "not a string or a whole number".
    with instrument.rag_span(QUESTION, relevant_ids=np.array([3, 7]), tracer_provider=app.provider) as rag:
        rag.retrieved([{"text": SHIPPING, "metadata": {"id": np.int64(3)}},
                       {"id": np.int32(7), "text": "Import VAT may be due."}])
        rag.answered("We ship to Norway within 6 business days.", citations=[np.int64(3)])

    example = app.example()
    assert example is not None
    assert [c.id for c in example.contexts or ()] == ["3", "7"]
    assert (example.citations, example.relevant_ids) == (("3",), frozenset({"3", "7"}))


def test_a_span_name_that_is_not_a_string_is_refused_in_the_app(app: App) -> None:
    # The SDK's exporter failed to encode the batch ("bad argument type for built-in operation", in its
    # log) and dropped every request in it, the well-named ones too.
    with pytest.raises(TypeError, match=r"^rag_span\.name must be a string, got int$"), \
            instrument.rag_span(QUESTION, name=123, tracer_provider=app.provider):  # type: ignore[arg-type]
        pass
    assert app.span_names() == []


@pytest.mark.parametrize("score", [10**400, np.bool_(True)], ids=["beyond-a-double", "numpy-bool"])
def test_a_score_no_float_holds_or_a_numpy_bool_is_refused_naming_the_document(score: object,
                                                                                  app: App) -> None:
    # 10**400 raised a bare OverflowError naming nothing; numpy's True was recorded as a score of 1.0
    # where Python's True is refused.
    with instrument.rag_span(QUESTION, tracer_provider=app.provider) as rag, \
            pytest.raises(TypeError, match=r"^context 'kb-ship': score must be a number or None, got "):
        rag.retrieved([{"id": "kb-ship", "text": SHIPPING, "score": score}])
