"""Traceloop / OpenLLMetry shapes, recorded with the real SDK under the attribute and event names of the
reference (LangChain callback handler >= 0.53, @workflow decorator, chromadb and pinecone wrappers)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import pytest
from opentelemetry.trace import SpanKind

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract

if TYPE_CHECKING:
    from semconv.conftest import Recorder

QUESTION = "Which plan includes phone support?"
ANSWER = "The Business plan includes phone support."
DOCS = [("plans-3", "Business plan: phone and chat support."), ("plans-1", "Starter plan: email support.")]


def test_langchain_workflow_retriever_and_llm_spans(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("RunnableSequence.workflow") as workflow:
        workflow.set_attributes({
            "traceloop.span.kind": "workflow",
            "gen_ai.operation.name": "invoke_agent",
            "traceloop.entity.input": json.dumps({"inputs": {"question": QUESTION}, "tags": [],
                                                  "metadata": {}, "kwargs": {"name": "RunnableSequence"}}),
        })
        with tracer.start_as_current_span("vector_db_retrieve VectorStoreRetriever",
                                          kind=SpanKind.CLIENT) as retriever:
            retriever.set_attributes({
                "traceloop.span.kind": "task",
                "gen_ai.operation.name": "vector_db_retrieve",
                "traceloop.entity.input": json.dumps({"query": "phone support plan", "tags": [],
                                                      "metadata": {}, "kwargs": {}}),
                "traceloop.entity.output": json.dumps({
                    "documents": [{"page_content": text, "metadata": {"id": doc_id}}
                                  for doc_id, text in DOCS],
                    "count": len(DOCS)}),
            })
        with tracer.start_as_current_span("ChatOpenAI.chat", kind=SpanKind.CLIENT) as llm:
            llm.set_attributes({
                "llm.request.type": "chat",
                "gen_ai.system": "openai",
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": f"{DOCS[0][1]}\n{DOCS[1][1]}\n\nQuestion: {QUESTION}",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.content": "LLM draft, not the chain's final output.",
            })
        workflow.set_attribute("traceloop.entity.output",
                               json.dumps({"outputs": {"answer": ANSWER}, "kwargs": {}}))

    example = extract(recorder.trace())

    assert example is not None
    # The workflow span is the top chain: its "question" input and "answer" output win over the
    # retriever query and the LLM completion.
    assert example.question == QUESTION
    assert example.answer == ANSWER
    assert example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)


def test_retriever_query_when_the_workflow_input_is_unreadable(recorder: Recorder) -> None:
    # OpenLLMetry truncates long entity JSON; a cut-off input is no question, the retriever query is.
    tracer = recorder.tracer
    with tracer.start_as_current_span("qa.workflow") as workflow:
        workflow.set_attributes({"traceloop.span.kind": "workflow",
                                 "traceloop.entity.input": '{"inputs": {"question": "Which pl'})
        with tracer.start_as_current_span("vector_db_retrieve retriever") as retriever:
            retriever.set_attributes({
                "gen_ai.operation.name": "vector_db_retrieve",
                "traceloop.entity.input": json.dumps({"query": QUESTION}),
                "traceloop.entity.output": json.dumps({"documents": [], "count": 0}),
            })

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.contexts == ()


def test_workflow_decorator_and_chroma_result_events(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("answer_question.workflow") as workflow:
        workflow.set_attributes({"traceloop.span.kind": "workflow",
                                 "traceloop.entity.name": "answer_question",
                                 "traceloop.entity.input": json.dumps({"args": [QUESTION], "kwargs": {}})})
        with tracer.start_as_current_span("chroma.query", kind=SpanKind.CLIENT) as query:
            query.set_attributes({"db.system": "chroma", "db.operation": "query"})
            for (doc_id, text), distance in zip(DOCS, (0.12, 0.48), strict=True):
                query.add_event("db.query.result", {
                    "db.query.result.id": doc_id,
                    "db.query.result.distance": distance,
                    "db.query.result.metadata": json.dumps({"source": "plans.md"}),
                    "db.query.result.document": text,
                })
        workflow.set_attribute("traceloop.entity.output", json.dumps(ANSWER))

    example = extract(recorder.trace())

    assert example is not None
    assert example.question == QUESTION
    assert example.answer == ANSWER
    # A distance is not a score (lower is better), so no score is invented from it.
    assert example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)


def test_pinecone_hits_keep_their_text_in_python_repr_metadata(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("pinecone.query", kind=SpanKind.CLIENT) as query:
        query.set_attribute("db.system", "Pinecone")
        query.add_event("db.query.result", {
            "db.query.result.id": "vec-9",
            "db.query.result.score": 0.87,
            "db.query.result.metadata": str({"text": DOCS[0][1], "source": "plans.md"}),
        })
        query.add_event("db.query.result", {
            "db.query.result.score": 0.55,
            "db.query.result.metadata": str({"text": DOCS[1][1]}),
        })

    example = extract(recorder.trace())

    assert example is not None
    # The second hit has no id and no id-like metadata: "doc-" + 8 hex of the sha256 of its text.
    hashed = "doc-" + hashlib.sha256(DOCS[1][1].encode()).hexdigest()[:8]
    assert example.contexts == (Context("vec-9", DOCS[0][1], 0.87), Context(hashed, DOCS[1][1], 0.55))


def test_retriever_output_without_documents_is_an_error(recorder: Recorder) -> None:
    with recorder.tracer.start_as_current_span("vector_db_retrieve retriever") as retriever:
        retriever.set_attributes({"gen_ai.operation.name": "vector_db_retrieve",
                                  "traceloop.entity.output": json.dumps({"count": 2})})
    trace = recorder.trace()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)

    assert "'vector_db_retrieve retriever'" in str(caught.value)
    assert "has no documents list" in str(caught.value)

    assert caught.value.attribute == "traceloop.entity.output"
    assert caught.value.span_id == trace.spans[0].span_id



def test_a_qdrant_search_its_instrumentor_records_no_hits_of_is_an_error(recorder: Recorder) -> None:
    # Traceloop's qdrant instrumentor (0.62.4) writes these attributes on `query_points` and no result
    # events. Before, the search was no retrieval at all: under a @workflow the made-up answer was scored
    # as a plain chat, "scored" with no groundedness and no word of why.
    tracer = recorder.tracer
    with tracer.start_as_current_span("answer_question.workflow") as workflow:
        workflow.set_attributes({"traceloop.span.kind": "workflow",
                                 "traceloop.entity.input": json.dumps({"args": [QUESTION], "kwargs": {}})})
        with tracer.start_as_current_span("qdrant.query_points", kind=SpanKind.CLIENT) as query:
            query.set_attributes({"db.system": "Qdrant", "qdrant.search.collection_name": "kb",
                                  "db.vector.query.top_k": 3})
        workflow.set_attribute("traceloop.entity.output", json.dumps(ANSWER))

    with pytest.raises(ExtractionError) as caught:
        extract(recorder.trace())

    assert caught.value.span_name == "qdrant.query_points"
    assert caught.value.attribute == "db.query.result"
    assert "records no documents" in str(caught.value) and "ragmon.contexts" in str(caught.value)


def test_a_qdrant_search_beneath_a_retriever_that_recorded_its_hits_is_covered(recorder: Recorder) -> None:
    # Traceloop's LangChain instrumentor records what the retriever returned; its qdrant instrumentor, on
    # the search beneath, records nothing: the documents are known.
    tracer = recorder.tracer
    output = {"documents": [{"page_content": text, "metadata": {"id": doc_id}} for doc_id, text in DOCS]}
    retriever = {"traceloop.span.kind": "task", "gen_ai.operation.name": "vector_db_retrieve",
                 "traceloop.entity.input": json.dumps({"inputs": QUESTION}),
                 "traceloop.entity.output": json.dumps(output)}
    with tracer.start_as_current_span("vector_db_retrieve QdrantRetriever", attributes=retriever), \
            tracer.start_as_current_span("qdrant.query_points", kind=SpanKind.CLIENT,
                                         attributes={"db.system": "Qdrant", "db.vector.query.top_k": 2}):
        pass

    example = extract(recorder.trace())

    assert example is not None and example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)


def test_a_qdrant_search_beside_the_apps_own_contexts_is_scored_on_them(recorder: Recorder) -> None:
    # The way out the error names: the app records what it retrieved as ragmon.contexts.
    tracer = recorder.tracer
    answer = {"ragmon.question": QUESTION, "ragmon.answer": ANSWER,
              "ragmon.contexts": json.dumps([{"id": doc_id, "text": text} for doc_id, text in DOCS])}
    search = {"db.system": "Qdrant", "db.vector.query.top_k": 2}
    with tracer.start_as_current_span("answer", attributes=answer), \
            tracer.start_as_current_span("qdrant.query_points", kind=SpanKind.CLIENT, attributes=search):
        pass

    example = extract(recorder.trace())

    assert example is not None and example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)


UNRECORDED_RETRIEVER = {"traceloop.span.kind": "task", "gen_ai.operation.name": "vector_db_retrieve"}
"""A LangChain retriever span as the instrumentor leaves it with content tracing off: no
`traceloop.entity.input` / `traceloop.entity.output`."""


def _chroma_query(recorder: Recorder, hits: list[tuple[str, str]]) -> None:
    with recorder.tracer.start_as_current_span("chroma.query", kind=SpanKind.CLIENT) as query:
        query.set_attributes({"db.system": "chroma", "db.operation": "query"})
        for rank, (doc_id, text) in enumerate(hits):
            query.add_event("db.query.result", {"db.query.result.id": doc_id,
                                                "db.query.result.distance": 0.1 * rank,
                                                "db.query.result.document": text})


RECORDED_RETRIEVER = {**UNRECORDED_RETRIEVER, "traceloop.entity.output": json.dumps({
    "documents": [{"page_content": text, "metadata": {}} for _, text in DOCS], "count": len(DOCS)})}
"""The same span with content tracing on: its documents' texts, and no id (OpenLLMetry records none)."""


@pytest.mark.parametrize("retriever", [UNRECORDED_RETRIEVER, RECORDED_RETRIEVER], ids=["off", "on"])
def test_a_langchain_retriever_over_chroma_gives_chromas_hits_by_their_ids(recorder: Recorder,
                                                                          retriever: dict[str, str]) -> None:
    # Content tracing off: the LangChain retriever span has no output, but Chroma's instrumentor records
    # each hit as a db.query.result event on its child span whatever the setting. On, its output has the
    # texts and no id: the documents had been named by their content hashes, and a retrieval that found
    # the relevant plans-3 first scored hit_rate 0.
    tracer = recorder.tracer
    with tracer.start_as_current_span("RetrievalQA.workflow", attributes={"traceloop.span.kind": "workflow"}):
        with tracer.start_as_current_span("vector_db_retrieve VectorStoreRetriever", kind=SpanKind.CLIENT,
                                          attributes=retriever):
            _chroma_query(recorder, DOCS)
        with tracer.start_as_current_span("ChatOpenAI.chat", kind=SpanKind.CLIENT) as llm:
            llm.set_attributes({"llm.request.type": "chat", "gen_ai.completion.0.content": ANSWER})

    example = extract(recorder.trace())

    assert example is not None
    # The two hits in event order, by Chroma's ids.
    assert example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)
    assert example.answer == ANSWER


def test_unrecorded_retriever_with_nothing_beneath_is_an_error_beside_one_that_has(
        recorder: Recorder) -> None:
    # An ensemble of a Chroma retriever and a keyword retriever, content tracing off: Chroma's hits are
    # known, the keyword retriever's are not, so scoring the Chroma hits alone would lose documents.
    tracer = recorder.tracer
    with tracer.start_as_current_span("RetrievalQA.workflow", attributes={"traceloop.span.kind": "workflow"}):
        with tracer.start_as_current_span("vector_db_retrieve VectorStoreRetriever",
                                          attributes=UNRECORDED_RETRIEVER):
            _chroma_query(recorder, DOCS)
        tracer.start_span("vector_db_retrieve BM25Retriever", attributes=UNRECORDED_RETRIEVER).end()
    trace = recorder.trace()

    with pytest.raises(ExtractionError) as caught:
        extract(trace)

    assert caught.value.span_name == "vector_db_retrieve BM25Retriever"
    assert caught.value.span_id == next(s.span_id for s in trace.spans if s.name == caught.value.span_name)
    assert "TRACELOOP_TRACE_CONTENT" in str(caught.value)


def test_a_completion_apis_prompt_keyed_by_its_role_gives_the_question(recorder: Recorder) -> None:
    # OpenLLMetry's openai instrumentor on `completions.create(prompt=...)` (a vLLM or instruct model)
    # writes the prompt as `gen_ai.prompt.0.user`, role as the key (completion_wrappers.py
    # `_set_prompts`; anthropic's and bedrock's completion wrappers alike), and the reply as
    # `gen_ai.completion.0.content`. The question is only in the prompt's `Question:` line.
    prompt = f"Context:\n{DOCS[0][1]}\n{DOCS[1][1]}\n\nQuestion: {QUESTION}\nAnswer:"
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        with tracer.start_as_current_span("chroma.query", kind=SpanKind.CLIENT) as query:
            query.set_attributes({"db.system": "chroma", "db.operation": "query"})
            for doc_id, text in DOCS:
                query.add_event("db.query.result", {"db.query.result.id": doc_id,
                                                    "db.query.result.document": text})
        with tracer.start_as_current_span("openai.completion", kind=SpanKind.CLIENT) as llm:
            llm.set_attributes({
                "llm.request.type": "completion",
                "gen_ai.system": "openai",
                "gen_ai.prompt.0.user": prompt,
                "gen_ai.completion.0.finish_reason": "stop",
                "gen_ai.completion.0.content": ANSWER,
            })

    example = extract(recorder.trace())

    assert example is not None
    # Unread, the call had recorded no input: no question, and a note blaming TRACELOOP_TRACE_CONTENT.
    assert example.question == "Which plan includes phone support?"
    assert example.answer == "The Business plan includes phone support."
    assert example.contexts == (Context("plans-3", "Business plan: phone and chat support."),
                                Context("plans-1", "Starter plan: email support."))


def test_a_milvus_search_records_its_hits_as_search_result_events(recorder: Recorder) -> None:
    # OpenLLMetry's Milvus instrumentor writes each hit of a search as a `db.search.result` event, its
    # fields as the repr of a Python dict: read as no retrieval, the made-up answer went unchecked and the
    # sidecar said the app recorded no documents.
    with recorder.tracer.start_as_current_span("milvus.search", kind=SpanKind.CLIENT) as search:
        search.set_attributes({"db.system": "milvus", "db.operation": "search"})
        for rank, (doc_id, text) in enumerate(DOCS):
            search.add_event("db.search.result", {
                "db.search.result.query_id": 0, "db.search.result.id": doc_id,
                "db.search.result.distance": str(0.1 * rank),
                "db.search.result.entity": str({"text": text, "source": "plans.md"})})

    example = extract(recorder.trace())

    assert example is not None
    # In event order; a distance is no score.
    assert example.contexts == tuple(Context(doc_id, text) for doc_id, text in DOCS)


def test_hits_recorded_as_their_database_records_are_read_as_documents(recorder: Recorder) -> None:
    # Marqo's instrumentor adds each hit as the event's attributes (`_id`, `_score`, the index's fields),
    # as a Milvus query does its records (`id`, its output fields): every one had "no text", the trace an
    # error. A record's text field is its text; without one, its string fields, one a line.
    tracer = recorder.tracer
    with tracer.start_as_current_span("hybrid.workflow", attributes={"traceloop.span.kind": "workflow"}):
        with tracer.start_as_current_span("marqo.search", kind=SpanKind.CLIENT) as search:
            search.set_attributes({"db.system": "marqo", "db.operation": "search"})
            search.add_event("db.query.result", {"_id": "plans-3", "_score": 0.91, "Title": "Business plan",
                                                 "Description": DOCS[0][1], "_highlights": "[]"})
        with tracer.start_as_current_span("milvus.query", kind=SpanKind.CLIENT) as query:
            query.set_attributes({"db.system": "milvus", "db.operation": "query"})
            query.add_event("db.query.result", {"id": 7, "text": DOCS[1][1], "source": "plans.md"})

    example = extract(recorder.trace())

    assert example is not None
    assert example.contexts == (Context("plans-3", f"Business plan\n{DOCS[0][1]}", 0.91),
                                Context("7", DOCS[1][1]))

