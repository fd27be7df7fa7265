"""DESIGN §5 precedence, on hand-built spans where timing and nesting are set exactly: but the app's own
ragmon.* values come first (see ragmon.semconv.extract), where the design put them last."""

from __future__ import annotations

import hashlib
import itertools
import json
import warnings
from collections.abc import Mapping
from typing import Any

import pytest

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Span, SpanEvent, Trace

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
_span_ids = itertools.count(1)


def span(name: str, attributes: Mapping[str, Any] | None = None, *, parent: Span | None = None,
         start: int = 0, end: int | None = None, service: str = "shop-api",
         events: tuple[SpanEvent, ...] = ()) -> Span:
    return Span(TRACE_ID, f"{next(_span_ids):016x}", parent.span_id if parent else None, name,
                start_time_unix_nano=start, end_time_unix_nano=start + 10 if end is None else end,
                attributes=dict(attributes or {}), events=events, resource={"service.name": service})


def trace(*spans: Span) -> Trace:
    return Trace(TRACE_ID, spans)


def oi(kind: str, **attributes: Any) -> dict[str, Any]:
    return {"openinference.span.kind": kind, **attributes}


def oi_docs(prefix: str, *docs: tuple[str, str]) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for n, (doc_id, text) in enumerate(docs):
        attributes[f"{prefix}.{n}.document.id"] = doc_id
        attributes[f"{prefix}.{n}.document.content"] = text
    return attributes


def ids(example: Any) -> list[str]:
    return [context.id for context in example.contexts]


# --- documents ------------------------------------------------------------------------------------


def _one_span_per_document_source() -> list[Span]:
    """Highest precedence first; each source reports a different document."""
    root = span("POST /ask")
    return [
        span("hand-made", {"ragmon.contexts": json.dumps([{"id": "ours", "text": "o"}])},
             parent=root, start=1),
        span("rerank", {**oi("RERANKER"), **oi_docs("reranker.input_documents", ("retrieved", "t")),
                        **oi_docs("reranker.output_documents", ("reranked", "r"))}, parent=root, start=5),
        span("retrieve", {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("retrieved", "t"))},
             parent=root, start=4),
        span("retrieval kb", {"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents":
                              json.dumps([{"id": "genai", "score": 1, "content": "g"}])},
             parent=root, start=3),
        span("chroma.query", parent=root, start=2, events=(SpanEvent(
            "db.query.result", 0, {"db.query.result.id": "chroma", "db.query.result.document": "c"}),)),
        root,
    ]


@pytest.mark.parametrize(("dropped", "expected"), [
    (0, "ours"), (1, "reranked"), (2, "retrieved"), (3, "genai"), (4, "chroma"),
])
def test_document_sources_in_precedence_order(dropped: int, expected: str) -> None:
    # Drop the `dropped` highest-precedence sources: the next one down must win.
    example = extract(trace(*_one_span_per_document_source()[dropped:]))

    assert example is not None
    assert ids(example) == [expected]


def test_several_retrievers_concatenate_in_start_order_each_document_once() -> None:
    root = span("rag", oi("CHAIN", **{"input.value": "q"}))
    second = span("keyword", {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("b", "B"), ("c", "C"))},
                  parent=root, start=20)
    first = span("vector", {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("a", "A"), ("b", "B"))},
                 parent=root, start=10)

    example = extract(trace(second, root, first))  # arrival order is not start order

    assert example is not None
    assert example.contexts == (Context("a", "A"), Context("b", "B"), Context("c", "C"))


def test_chunks_sharing_an_id_are_distinct_documents() -> None:
    # Two chunks of faq.md (ids from metadata "source", as LangChain loaders set it) are both what the
    # model saw; only the chunk a second retriever returns again is a duplicate.
    def chunk(index: int, text: str) -> dict[str, Any]:
        prefix = f"retrieval.documents.{index}.document"
        return {f"{prefix}.content": text, f"{prefix}.metadata": json.dumps({"source": "faq.md"})}

    vector = span("vector", {**oi("RETRIEVER"), **chunk(0, "Part one."), **chunk(1, "Part two.")}, start=1)
    keyword = span("keyword", {**oi("RETRIEVER"), **chunk(0, "Part two.")}, start=2)

    example = extract(trace(vector, keyword))

    assert example is not None
    assert example.contexts == (Context("faq.md", "Part one."), Context("faq.md", "Part two."))


def test_a_retriever_inside_a_retriever_is_not_counted_twice() -> None:
    # LlamaIndex nests `.retrieve` around `._retrieve`; a fusion retriever wraps sub-retrievers whose
    # hits it re-ranks: the outer span holds what the pipeline used.
    outer = span("QueryFusionRetriever.retrieve",
                 {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("fused-1", "F1"), ("fused-2", "F2"))})
    inner = span("VectorIndexRetriever.retrieve",
                 {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("raw-9", "R9"))},
                 parent=outer, start=1)
    innermost = span("VectorIndexRetriever._retrieve", oi("RETRIEVER"), parent=inner, start=2)

    example = extract(trace(outer, inner, innermost))

    assert example is not None
    assert ids(example) == ["fused-1", "fused-2"]


KB = (("kb-a1", "The kettle holds 1.7 litres."), ("kb-a2", "Refunds are accepted within 30 days."),
      ("kb-a3", "The body is steel."))
FAQ = (("faq-7", "Return labels are free for club members."),)


def _retriever(name: str, docs: tuple[tuple[str, str], ...], *, parent: Span, start: int) -> Span:
    return span(name, {**oi("RETRIEVER"), **oi_docs("retrieval.documents", *docs)}, parent=parent,
                start=start)


def _reranker(given: tuple[tuple[str, str], ...], kept: tuple[tuple[str, str], ...], *, parent: Span,
              start: int) -> Span:
    return span("rerank", {**oi("RERANKER"), **oi_docs("reranker.input_documents", *given),
                           **oi_docs("reranker.output_documents", *kept)}, parent=parent, start=start)


def _model_given(docs: tuple[tuple[str, str], ...], *, parent: Span, start: int) -> Span:
    prompt = "Answer from the context:\n" + "\n".join(text for _, text in docs)
    return span("chat", oi("LLM", **{"llm.input_messages.0.message.role": "system",
                                     "llm.input_messages.0.message.content": prompt,
                                     "llm.input_messages.1.message.role": "user",
                                     "llm.input_messages.1.message.content": "q",
                                     "llm.output_messages.0.message.role": "assistant",
                                     "llm.output_messages.0.message.content": "a"}),
                parent=parent, start=start)


@pytest.mark.parametrize("faq", [
    FAQ,
    # `_shown` still applies: of the FAQ's two documents the prompt holds one, the other is dropped.
    (*FAQ, ("faq-8", "Gift cards never expire.")),
])
def test_a_reranker_stands_only_for_the_retriever_it_reranked(faq: tuple[tuple[str, str], ...]) -> None:
    # The knowledge base's three documents reranked down to kb-a2; the FAQ retriever's document, reranked
    # by nothing, goes to the model as well. Its output alone had been the contexts: faq-7 was lost.
    root = span("rag", oi("CHAIN", **{"input.value": "q"}))
    example = extract(trace(root, _retriever("kb", KB, parent=root, start=1),
                            _reranker(KB, KB[1:2], parent=root, start=2),
                            _retriever("faq", faq, parent=root, start=3),
                            _model_given(KB[1:2] + FAQ, parent=root, start=4)))

    assert example is not None
    assert ids(example) == ["kb-a2", "faq-7"]


@pytest.mark.parametrize(("given", "kept", "expected"), [
    (KB[:2], KB[1:2], ["kb-a2", "faq-7"]),  # a similarity cutoff passed on two of three: still reranked
    (KB, (), ["faq-7"]),  # it passed nothing on
    ((), KB[1:2], ["kb-a2"]),  # its input unrecorded (OPENINFERENCE_HIDE_INPUTS): it stands for them all
])
def test_a_retriever_any_of_whose_documents_went_into_a_reranker_is_replaced(
        given: tuple[tuple[str, str], ...], kept: tuple[tuple[str, str], ...], expected: list[str]) -> None:
    root = span("rag", oi("CHAIN", **{"input.value": "q"}))
    example = extract(trace(root, _retriever("kb", KB, parent=root, start=1),
                            _reranker(given, kept, parent=root, start=2),
                            _retriever("faq", FAQ, parent=root, start=3)))

    assert example is not None
    assert ids(example) == expected


def test_a_reranker_of_a_rerankers_output_stands_for_it() -> None:
    # A cross-encoder keeps two of three, an LLM reranker one of those two: the last is what was used.
    root = span("rag", oi("CHAIN", **{"input.value": "q"}))
    example = extract(trace(root, _retriever("kb", KB, parent=root, start=1),
                            _reranker(KB, KB[:2], parent=root, start=2),
                            _reranker(KB[:2], KB[1:2], parent=root, start=3)))

    assert example is not None
    assert ids(example) == ["kb-a2"]


def test_retriever_without_documents_means_empty_not_unknown() -> None:
    example = extract(trace(span("retrieve", oi("RETRIEVER", **{"input.value": "q"}))))

    assert example is not None
    assert example.contexts == ()


def test_missing_ids_come_from_metadata_then_content_hash() -> None:
    attributes = {
        **oi("RETRIEVER"),
        "retrieval.documents.0.document.content": "Alpha",
        "retrieval.documents.0.document.metadata": json.dumps({"source": "faq.md", "page": 2}),
        "retrieval.documents.1.document.content": "Beta",
        "retrieval.documents.1.document.metadata": json.dumps({"id": 7, "source": "faq.md"}),
        "retrieval.documents.2.document.content": "Gamma",
        "retrieval.documents.2.document.score": 0.25,
        "retrieval.documents.10.document.content": "Delta",
        "retrieval.documents.10.document.id": 12,
    }

    example = extract(trace(span("retrieve", attributes)))

    assert example is not None
    # id > source > doc_id in metadata; integers become strings; no metadata: "doc-" + 8 hex of sha256.
    gamma = "doc-" + hashlib.sha256(b"Gamma").hexdigest()[:8]
    # Index 10 sorts after 2 (numeric, not lexical, order).
    assert example.contexts == (Context("faq.md", "Alpha"), Context("7", "Beta"),
                                Context(gamma, "Gamma", 0.25), Context("12", "Delta"))


@pytest.mark.parametrize("metadata", ["{'source': unterminated", "{'source': 1if 1 else 2}"])
def test_undecodable_metadata_needed_for_an_id_is_an_error(metadata: str) -> None:
    # "1if" made Python's parser write "<unknown>:1: SyntaxWarning: invalid decimal literal" to stderr, a
    # line of its own in a JSON log: the error is all that is said.
    attributes = {**oi("RETRIEVER"), "retrieval.documents.0.document.content": "Alpha",
                  "retrieval.documents.0.document.metadata": metadata}
    retriever = span("retrieve", attributes)

    with pytest.raises(ExtractionError) as caught, warnings.catch_warnings(record=True) as written:
        warnings.simplefilter("always")
        extract(trace(retriever))

    assert written == []

    assert f"span 'retrieve' (span id {retriever.span_id})" in str(caught.value)
    assert "retrieval.documents.0.document.metadata is not an object" in str(caught.value)


def test_a_python_repr_of_metadata_holding_a_windows_path_names_the_document_without_a_warning() -> None:
    # Pinecone's metadata is a dict's repr; "\k" in it is no escape Python knows, which its parser warns of
    # (a DeprecationWarning on 3.11, a SyntaxWarning on 3.12 written to stderr: a line of its own in a JSON
    # log) while it reads the backslash as written.
    attributes = {**oi("RETRIEVER"), "retrieval.documents.0.document.content": "Alpha",
                  "retrieval.documents.0.document.metadata": "{'source': 'C:\\kb\\guide.md'}"}

    with warnings.catch_warnings(record=True) as written:
        warnings.simplefilter("always")
        example = extract(trace(span("retrieve", attributes)))

    assert example is not None and example.contexts == (Context("C:\\kb\\guide.md", "Alpha"),)
    assert written == []


# --- question -------------------------------------------------------------------------------------


def _one_span_per_question_source() -> list[Span]:
    http = span("GET /ask")
    chain_input = json.dumps({"inputs": {"question": "top"}})
    chain = span("RunnableSequence",
                 oi("CHAIN", **{"input.value": chain_input, "input.mime_type": "application/json"}),
                 parent=http, start=1, end=100)
    return [
        # With an answer of its own: left alone, a question with nothing to score is an error.
        span("marked", {"ragmon.question": "ours", "ragmon.answer": "our answer"}, parent=http, start=4),
        chain,
        span("retrieve", oi("RETRIEVER", **{"input.value": "retriever query"}), parent=chain, start=2),
        span("chat", oi("LLM", **{"llm.input_messages.0.message.role": "user",
                                  "llm.input_messages.0.message.content": "first user turn",
                                  "llm.input_messages.1.message.role": "assistant",
                                  "llm.input_messages.1.message.content": "reply",
                                  "llm.input_messages.2.message.role": "user",
                                  "llm.input_messages.2.message.content": "last user turn",
                                  "llm.output_messages.0.message.content": "the answer"}),
             parent=chain, start=3),
        http,
    ]


@pytest.mark.parametrize(("dropped", "expected"), [
    (0, "ours"), (1, "top"), (2, "retriever query"), (3, "last user turn"),
])
def test_question_sources_in_precedence_order(dropped: int, expected: str) -> None:
    # The chain sits under an HTTP span that is not OpenInference: it is still the top chain. Its JSON
    # input holds the question one level down ({"inputs": {"question": ...}}).
    example = extract(trace(*_one_span_per_question_source()[dropped:]))

    assert example is not None
    assert example.question == expected


def test_the_top_chain_is_the_outermost_one() -> None:
    outer = span("Agent", oi("AGENT", **{"input.value": "outer question", "output.value": "outer answer"}),
                 end=100)
    inner = span("RetrievalQA",
                 oi("CHAIN", **{"input.value": "inner question", "output.value": "inner answer"}),
                 parent=outer, start=1)
    retriever = span("retrieve", oi("RETRIEVER"), parent=inner, start=2)

    example = extract(trace(inner, retriever, outer))

    assert example is not None
    assert (example.question, example.answer) == ("outer question", "outer answer")


def test_redacted_input_is_no_question() -> None:
    chain = span("chain", oi("CHAIN", **{"input.value": "__REDACTED__"}), end=50)
    retriever = span("retrieve", oi("RETRIEVER", **{"input.value": "visible query"}), parent=chain, start=1)

    example = extract(trace(chain, retriever))

    assert example is not None
    assert example.question == "visible query"


def test_json_input_without_a_question_key_falls_through() -> None:
    chain = span("chain", oi("CHAIN", **{"input.value": json.dumps({"messages": ["hi"]})}), end=50)
    retriever = span("retrieve", oi("RETRIEVER", **{"input.value": "retriever query"}), parent=chain, start=1)

    example = extract(trace(chain, retriever))

    assert example is not None
    assert example.question == "retriever query"


# --- answer ---------------------------------------------------------------------------------------


def _one_span_per_answer_source() -> list[Span]:
    http = span("POST /ask", end=1000)
    chain = span("RetrieverQueryEngine.query", oi("CHAIN", **{"output.value": json.dumps({"result": "top"})}),
                 parent=http, start=1, end=900)
    return [
        span("marked", {"ragmon.answer": "ours"}, parent=http, start=3),
        chain,
        span("chat", oi("LLM", **{"llm.output_messages.0.message.role": "assistant",
                                  "llm.output_messages.0.message.content": "assistant: from the model"}),
             parent=chain, start=2),
        http,
    ]


@pytest.mark.parametrize(("dropped", "expected"), [(0, "ours"), (1, "top"), (2, "from the model")])
def test_answer_sources_in_precedence_order(dropped: int, expected: str) -> None:
    # "assistant: " (LlamaIndex's str(ChatResponse)) is stripped.
    example = extract(trace(*_one_span_per_answer_source()[dropped:]))

    assert example is not None
    assert example.answer == expected


def test_nested_llm_spans_are_one_call_and_the_last_call_answers() -> None:
    # Two calls, LlamaIndex style (predict around chat): a condensing call, then the answering one.
    condense = span("OpenAI.predict", oi("LLM", **{"output.value": "standalone question"}), start=10, end=20)
    condense_chat = span("OpenAI.chat", oi("LLM", **{"output.value": "assistant: standalone question"}),
                         parent=condense, start=11, end=19)
    predict = span("OpenAI.predict", oi("LLM", **{"output.value": "Final answer."}), start=30, end=40)
    chat = span("OpenAI.chat", oi("LLM", **{
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Context: ...",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "standalone question",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.contents.0.message_content.type": "text",
        "llm.output_messages.0.message.contents.0.message_content.text": "Final ",
        "llm.output_messages.0.message.contents.1.message_content.type": "image",
        "llm.output_messages.0.message.contents.2.message_content.type": "text",
        "llm.output_messages.0.message.contents.2.message_content.text": "answer.",
        "output.value": "assistant: Final answer."}), parent=predict, start=31, end=39)

    example = extract(trace(chat, condense_chat, predict, condense))

    assert example is not None
    # The text parts of the inner chat span of the last call, joined; its user message is the question.
    assert example.answer == "Final answer."
    assert example.question == "standalone question"


def test_a_hidden_last_call_does_not_borrow_an_earlier_calls_output() -> None:
    # The answering call's outputs are hidden (OPENINFERENCE_HIDE_OUTPUTS); the earlier condensing
    # call's output is not the answer, so there is no answer: an error naming the switch, on the
    # answering call's innermost span.
    condense = span("OpenAI.predict", oi("LLM", **{"output.value": "standalone question"}), start=10, end=20)
    hidden = oi("LLM", **{"output.value": "__REDACTED__"})
    predict = span("OpenAI.predict", hidden, start=30, end=40)
    chat = span("OpenAI.chat", hidden, parent=predict, start=31, end=39)

    with pytest.raises(ExtractionError) as caught:
        extract(trace(condense, predict, chat))

    assert caught.value.span_id == chat.span_id
    assert "OPENINFERENCE_HIDE_OUTPUTS" in str(caught.value)


def test_last_llm_call_is_the_one_that_ended_last() -> None:
    long_call = span("slow", oi("LLM", **{"output.value": "slow one"}), start=10, end=50)
    short_call = span("fast", oi("LLM", **{"output.value": "fast one"}), start=20, end=30)

    example = extract(trace(long_call, short_call))

    assert example is not None
    assert example.answer == "slow one"


def test_completion_llm_answers_through_its_choices() -> None:
    llm = span("complete", oi("LLM", **{"llm.choices.0.completion.text": "From the choice."}))

    example = extract(trace(llm))

    assert example is not None
    assert example.answer == "From the choice."
    assert example.contexts is None


# --- citations ------------------------------------------------------------------------------------


def _cited(answer: str, **attributes: Any) -> tuple[str, ...] | None:
    retriever = span("retrieve", {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("kb-1", "one"),
                                                               ("kb-2", "two"), ("kb-3", "three"))})
    llm = span("chat", oi("LLM", **{"output.value": answer}, **attributes), start=5)
    example = extract(trace(retriever, llm))
    assert example is not None
    return example.citations


@pytest.mark.parametrize(("answer", "expected"), [
    ("Two says so [2].", ("kb-2",)),  # [n] is a 1-based position among the contexts
    ("See [kb-3] and [1].", ("kb-3", "kb-1")),  # a retrieved id, then a position, in order of appearance
    ("Both [1, 3]; again [3].", ("kb-1", "kb-3")),  # lists inside one marker, each id once
    ("Out of range [4], unknown [kb-9], zero [0].", None),  # none of these names a retrieved context
    ("No markers at all.", None),
])
def test_citation_markers_in_the_answer(answer: str, expected: tuple[str, ...] | None) -> None:
    assert _cited(answer) == expected


def test_explicit_citations_win_over_markers() -> None:
    assert _cited("Two [2].", **{"ragmon.citations": ["kb-3"]}) == ("kb-3",)


def test_markers_need_contexts() -> None:
    example = extract(trace(span("chat", oi("LLM", **{"output.value": "As said [1]."}))))

    assert example is not None
    assert example.citations is None


# --- not RAG, pipeline ----------------------------------------------------------------------------


@pytest.mark.parametrize("spans", [
    (),
    (span("GET /health", {"http.request.method": "GET", "http.route": "/health"}),),
    (span("format", oi("CHAIN", **{"input.value": "x", "output.value": "y"})),),
    (span("embed", oi("EMBEDDING")),),
])
def test_traces_without_retrieval_or_generation_are_not_rag(spans: tuple[Span, ...]) -> None:
    assert extract(trace(*spans)) is None


def test_pipeline_from_attribute_else_from_the_top_chain_service() -> None:
    gateway = span("POST /ask", service="gateway", end=100)
    chain = span("chain", oi("CHAIN", **{"input.value": "q"}), parent=gateway, start=1, service="rag-svc")
    llm = span("chat", oi("LLM", **{"output.value": "a"}), parent=chain, start=2, service="rag-svc")

    unlabelled = extract(trace(gateway, chain, llm))
    label = span("x", {"ragmon.pipeline": "faq"}, parent=chain, start=3)
    labelled = extract(trace(gateway, chain, llm, label))

    assert unlabelled is not None and labelled is not None
    assert unlabelled.pipeline == "rag-svc"
    assert labelled.pipeline == "faq"


def test_without_a_chain_the_pipeline_is_the_service_of_the_rag_span_nearest_the_root() -> None:
    # A RAG service with no chain span retrieves through a retriever service, then calls the model: the
    # retrieval starts first, and had named the retriever service as the pipeline.
    gateway = span("POST /ask", service="gateway", end=100)
    server = span("POST /answer", parent=gateway, start=1, end=90, service="rag-api")
    call = span("POST /search", parent=server, start=2, end=20, service="rag-api")
    search = span("POST /search", parent=call, start=3, end=19, service="retriever-svc")
    retrieve = span("retrieve", {**oi("RETRIEVER"), **oi_docs("retrieval.documents", ("kb-1", "Text."))},
                    parent=search, start=4, end=18, service="retriever-svc")
    chat = span("chat", oi("LLM", **{"output.value": "Text."}), parent=server, start=30, end=80,
                service="rag-api")

    example = extract(trace(gateway, server, call, search, retrieve, chat))

    assert example is not None
    assert example.pipeline == "rag-api"


def test_a_request_span_recording_the_question_and_answer_names_the_pipeline() -> None:
    # ragmon's own attributes on the app's request span, the documents on the retriever service's span it
    # calls, whose clock runs ahead: the request span has no role, and the retriever service, the first
    # span to start, had named the pipeline.
    ask = span("ask", {"ragmon.question": "q?", "ragmon.answer": "Text."}, start=10, end=100,
               service="answer-svc")
    call = span("POST /search", parent=ask, start=12, end=20, service="answer-svc")
    search = span("search", {"ragmon.contexts": json.dumps([{"id": "kb-1", "text": "Text."}])}, parent=call,
                  start=3, end=19, service="retriever-svc")

    example = extract(trace(ask, call, search))

    assert example is not None
    assert example.pipeline == "answer-svc"


@pytest.mark.parametrize("attributes", [
    {"gen_ai.operation.name": ["chat"], "gen_ai.output.messages": "[]"},
    {"traceloop.span.kind": ["workflow"], "traceloop.entity.input": json.dumps({"args": ["q"]})},
    {"openinference.span.kind": ["LLM"], "output.value": "x"},
])
def test_a_kind_of_the_wrong_type_is_no_kind(attributes: dict[str, Any]) -> None:
    # OTLP lets any attribute be an array; a kind that is not a string names no role (and no crash).
    assert extract(trace(span("odd", attributes))) is None


def test_a_parent_cycle_does_not_hang() -> None:
    a = Span(TRACE_ID, "a" * 16, "b" * 16, "a", attributes=oi("LLM", **{"output.value": "x"}))
    b = Span(TRACE_ID, "b" * 16, "a" * 16, "b", attributes=oi("LLM", **{"output.value": "y"}))

    example = extract(trace(a, b))

    assert example is not None
    assert example.answer in {"x", "y"}


def test_a_failed_call_in_a_service_whose_clock_runs_ahead_does_not_hide_the_fallbacks_answer() -> None:
    # The RAG service asks a primary model service, which fails, then a fallback service, which answers;
    # the primary's clock runs 20 s ahead, so its failed call seems to end last. The trace was an error
    # ("the model call failed") although the app answered.
    doc = "Databases are backed up every 6 hours."
    prompt = f"Answer from the context.\nContext: {doc}\nQuestion: How often are databases backed up?"
    retriever = span("retrieve", oi("RETRIEVER", **{"input.value": "How often are databases backed up?"},
                                    **oi_docs("retrieval.documents", ("backups", doc))), start=0, end=10)
    ahead = 20_000_000_000
    primary = Span(TRACE_ID, "1" * 16, None, "primary", start_time_unix_nano=20 + ahead,
                   end_time_unix_nano=30 + ahead, attributes=oi("LLM", **{"input.value": prompt}),
                   resource={"service.name": "llm-a"}, status_code=2)
    answer = "They are backed up every 6 hours."
    fallback = span("fallback", oi("LLM", **{"input.value": prompt, "output.value": answer}), start=40,
                    end=50, service="llm-b")
    example = extract(trace(retriever, primary, fallback))
    assert example is not None and example.answer == answer
    # Without the skew, in the order the calls were made: the same answer.
    in_order = Span(TRACE_ID, "1" * 16, None, "primary", start_time_unix_nano=20, end_time_unix_nano=30,
                    attributes=primary.attributes, resource=primary.resource, status_code=2)
    example = extract(trace(retriever, in_order, fallback))
    assert example is not None and example.answer == answer
