"""Format 3, trace records: question and answer as text or objects, contexts from retrieval steps, every
step of a known kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dataset_cases import error_of, sha_id, write_jsonl
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_json import otlp_json_doc

from ragmon.cli import main
from ragmon.datasets import load
from ragmon.model import Context

# --- format 3: trace JSON / JSONL ----------------------------------------------------------------


def test_trace_jsonl_reads_retrieval_steps_in_order_each_document_once(tmp_path: Path) -> None:
    trace = {
        "input": "Can I return shoes?",
        "output": "Yes, within 30 days.",
        "tags": ["prod"],
        "steps": [
            {"kind": "retrieval", "output": [
                {"id": "returns", "text": "Returns within 30 days.", "score": 0.8},
                "Shoes must be unworn.",
                {"pageContent": "Refunds in 5 days.", "metadata": {"source": "refunds.md"}},
            ]},
            {"kind": "retrieval", "output": [
                {"id": "returns", "text": "Returns within 30 days.", "score": 0.5},
                {"pageContent": "Keep the box.", "metadata": {}},
                {"pageContent": "Refunds go to the card.", "metadata": {"source": "refunds.md"}},
            ]},
            {"kind": "llm", "output": "something else"},
        ],
    }
    path = write_jsonl(tmp_path / "traces.jsonl", [trace, {"id": "t-2", "question": {"query": "Q two?"},
                                                           "output": {"answer": "A two."},
                                                           "expectedDocs": ["returns", "shoes"]}])
    first, second = load([path])
    assert first.id == "traces.jsonl:1"  # no id in the trace: file name and line
    assert first.question == "Can I return shoes?" and first.answer == "Yes, within 30 days."
    assert first.relevant_ids is None  # unlabelled: contexts without an id are named by their content hash
    assert first.contexts == (
        Context("returns", "Returns within 30 days.", 0.8),
        Context(sha_id("Shoes must be unworn."), "Shoes must be unworn."),
        Context("refunds.md", "Refunds in 5 days."),
        Context(sha_id("Keep the box."), "Keep the box."),
        Context("refunds.md", "Refunds go to the card."),  # another chunk of the same file: kept
    )  # the second step's "returns" is the same document again (same id and text): the first one stays
    assert first.extra == {"tags": ["prod"]}
    assert (second.id, second.question, second.answer) == ("t-2", "Q two?", "A two.")
    assert second.contexts is None  # no retrieval step: unknown
    assert second.relevant_ids == frozenset({"returns", "shoes"})


def test_trace_json_array_and_llm_output_fallback(tmp_path: Path) -> None:
    traces = [
        {"question": "Q?", "steps": [{"kind": "retrieval", "output": []},
                                     {"kind": "llm", "output": "From the model."}]},
        {"input": "Q2?", "output": None, "steps": []},
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(traces, indent=2), encoding="utf-8")
    first, second = load([path])
    assert first.id == "export.json[0]" and first.answer == "From the model." and first.contexts == ()
    assert second.id == "export.json[1]" and second.answer is None


def test_trace_without_a_question_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"output": "An answer.", "steps": []}])
    err = error_of([path])
    assert (err.line, err.field) == (1, "input") and "missing question" in str(err)


# --- found in review: text that no report could be written in, layouts misread --------------------


def test_retrieval_step_that_recorded_no_output_leaves_contexts_unknown(tmp_path: Path) -> None:
    # Unknown is not empty: a step without "output" does not say retrieval found nothing, and reading it
    # as () would score the answer's claims as a real groundedness 0.
    path = write_jsonl(tmp_path / "t.jsonl", [
        {"input": "Q?", "output": "A.", "steps": [{"kind": "retrieval"}]},
        {"input": "Q2?", "output": "A.", "steps": [{"kind": "retrieval", "output": None},
                                                   {"kind": "retrieval", "output": ["Doc."]}]},
    ])
    first, second = load([path])
    assert first.contexts is None
    assert second.contexts == (Context(sha_id("Doc."), "Doc."),)


# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


KINDS = "one of 'embedding', 'llm', 'retrieval', 'tool'"


@pytest.mark.parametrize(("step", "message"), [
    ({"type": "retrieval", "output": ["Doc."]},
     f"missing step kind ({KINDS}): did you mean 'kind' instead of 'type'?"),
    ({"output": ["Doc."]}, f"missing step kind ({KINDS})"),
    ({"kind": "retreival", "output": ["Doc."]}, f"unknown step kind 'retreival' ({KINDS}): did you mean "
                                                "'retrieval'?"),
    ({"kind": "Retrieval", "output": ["Doc."]}, f"unknown step kind 'Retrieval' ({KINDS}): did you mean "
                                                "'retrieval'?"),
    ({"kind": "reranker", "output": ["Doc."]}, f"unknown step kind 'reranker' ({KINDS})"),
])
def test_step_without_a_known_kind_is_an_error(tmp_path: Path, step: dict, message: str) -> None:
    # Before: the step was skipped, contexts stayed unknown and nothing landed in `skipped`.
    path = write_jsonl(tmp_path / "t.jsonl", [
        {"input": "q", "output": "A.", "steps": [{"kind": "llm", "output": "A."}]},
        {"input": "q", "output": "A.", "steps": [{"kind": "llm", "output": "A."}, step]}])
    err = error_of([path])
    assert str(err) == f"{path}:2: {message} (field 'steps[1].kind')"


def test_non_rag_steps_of_a_known_kind_are_accepted(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [
        {"input": "q", "steps": [{"kind": "embedding", "output": [0.1, 0.2]},
                                 {"kind": "tool", "name": "calculator", "output": "4"},
                                 {"kind": "retrieval", "output": ["Doc."]},
                                 {"kind": "llm", "output": "A."}]}])
    (example,) = load([path])
    assert example.contexts == (Context(sha_id("Doc."), "Doc."),) and example.answer == "A."


# --- a document one retrieval step lists twice: both ranks, as live extraction and ragmon records ---

KIND = "openinference.span.kind"
QUESTION = "When do refunds reach the card?"
ANSWER = "Refunds reach the card in 5 days."
DOCS = {"d1": "Returns are accepted within 30 days.", "d2": ANSWER, "d3": "Exchanges are free."}
STEPS = (("d1", "d1", "d2"), ("d2", "d3"))
"""A fused result list giving d1 twice, then a second retriever giving d2 again (left out: the first step
gave it) and d3."""


def recorded_trace() -> tuple[str, dict[str, Any]]:
    """The same request as real SDK spans, one retriever span per step, and its trace id. No model span:
    the chain records the answer, and extraction keeps every document (a model span's prompt would have
    it keep only those the prompt shows)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests.datasets")
    with tracer.start_as_current_span("rag", attributes={
            KIND: "CHAIN", "input.value": QUESTION, "output.value": ANSWER,
            "ragmon.relevant_ids": ["d2"]}) as root:
        for step in STEPS:
            documents: dict[str, Any] = {KIND: "RETRIEVER", "input.value": QUESTION}
            for i, doc in enumerate(step):
                documents |= {f"retrieval.documents.{i}.document.id": doc,
                              f"retrieval.documents.{i}.document.content": DOCS[doc]}
            with tracer.start_as_current_span("retrieve", attributes=documents):
                pass
    provider.shutdown()
    return format(root.get_span_context().trace_id, "032x"), otlp_json_doc(
        encode_spans(exporter.get_finished_spans()))


@pytest.mark.parametrize(("k", "expected"), [
    # Ranks d1, d1, d2, d3. Top 2 is d1 twice: no hit. Collapsed (d1, d2, d3), d2 had been a hit at rank 2.
    (2, {"hit_rate": 0.0, "precision": 0.0, "recall": 0.0, "mrr": 0.0, "ndcg": 0.0}),
    # Top 3 holds d2 at rank 3: precision 1/3, mrr 1/3, ndcg (1 / log2(3 + 1)) / 1 = 1/2.
    (3, {"hit_rate": 1.0, "precision": 1 / 3, "recall": 1.0, "mrr": 1 / 3, "ndcg": 0.5}),
])
def test_a_document_one_step_lists_twice_takes_both_ranks_as_live_and_in_a_ragmon_record(
        tmp_path: Path, k: int, expected: dict[str, float]) -> None:
    trace_id, otlp_line = recorded_trace()
    steps = [{"kind": "retrieval", "output": [{"id": doc, "text": DOCS[doc]} for doc in step]}
             for step in STEPS]
    ranked = ["d1", "d1", "d2", "d3"]
    files = {
        "trace": write_jsonl(tmp_path / "trace.jsonl", [
            {"id": trace_id, "input": QUESTION, "output": ANSWER, "expectedDocs": ["d2"], "steps": steps}]),
        "ragmon": write_jsonl(tmp_path / "ragmon.jsonl", [
            {"id": trace_id, "question": QUESTION, "answer": ANSWER, "relevant_ids": ["d2"],
             "contexts": [{"id": doc, "text": DOCS[doc]} for doc in ranked]}]),
        "otlp": write_jsonl(tmp_path / "traces.otlp.jsonl", [otlp_line]),
    }
    results = {}
    for name, path in files.items():
        report = tmp_path / f"{name}.json"
        assert main(["replay", str(path), "--k", str(k), "--json", str(report), "--quiet"]) == 0
        (results[name],) = json.loads(report.read_text(encoding="utf-8"))["results"]

    assert {metric: results["trace"]["metrics"][metric] for metric in expected} == pytest.approx(expected)
    assert results["trace"] == results["ragmon"] == results["otlp"]
    (example,) = load([files["trace"]])
    assert example.contexts == tuple(Context(doc, DOCS[doc]) for doc in ranked)


# --- found in an audit: a trace record's question, model output and extra ids dropped without a word ---


def test_a_question_beside_the_input_is_an_error(tmp_path: Path) -> None:
    # Before: the example was asked and scored as "hi", the question dropped without a word.
    path = write_jsonl(tmp_path / "t.jsonl", [{"id": "t1", "input": "hi", "output": "Two years.",
                                               "question": "How long is the warranty?"}])
    assert str(error_of([path])) == (f"{path}:1: gives its question twice, as 'input', 'question': keep one "
                                     f"(field 'question')")


TEXT_NAMES = ("'answer', 'output', 'text', 'content', 'result', 'response', 'actual_output', "
              "'generated_answer'")


def test_an_llm_steps_message_object_is_the_answer(tmp_path: Path) -> None:
    # Before: an llm step's output was read only as a string, so this answer was unknown (or the earlier
    # step's "Rewritten query." taken for it) and every answer metric undefined.
    path = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "t1", "input": "Warranty?", "steps": [
            {"kind": "llm", "output": "Rewritten query."},
            {"kind": "llm", "output": {"role": "assistant", "content": "The warranty lasts 2 years."}}]}])
    (example,) = load([path])
    assert example.answer == "The warranty lasts 2 years."

    path = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "t1", "input": "Warranty?", "steps": [{"kind": "llm", "output": {"role": "assistant"}}]}])
    assert str(error_of([path])) == (f"{path}:1: expected a string or an object with one of {TEXT_NAMES} "
                                     f"(field 'steps[0].output')")
    path = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "t2", "input": "Warranty?", "steps": [{"kind": "llm", "output": ["Two", "years."]}]}])
    assert str(error_of([path])) == (f"{path}:1: expected a string or an object with one of {TEXT_NAMES}, "
                                     f"got a list (field 'steps[0].output')")


def test_ids_besides_the_one_read_are_carried_along(tmp_path: Path) -> None:
    # Before: the trace_id beside an id was dropped, in neither the id nor extra.
    path = write_jsonl(tmp_path / "t.jsonl", [{"id": "run-1", "traceId": "abc", "trace_id": "def",
                                               "input": "Warranty?", "output": "Two years."}])
    (example,) = load([path])
    assert example.id == "run-1" and example.extra == {"traceId": "abc", "trace_id": "def"}


def test_a_trace_without_an_id_is_named_by_its_file_name_however_the_path_is_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: named by the path as typed, "t/golden.jsonl:1" in the baseline and "./t/golden.jsonl:1" in
    # the run, so a --baseline comparison found 0 examples in both runs and its --max-drop gate failed.
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "golden.jsonl", [{"input": "Warranty?", "output": "Two years."}])
    (tmp_path / "one.json").write_text('{"input": "Returns?",\n "output": "30 days."}', encoding="utf-8")
    typed = ["golden.jsonl", "./golden.jsonl", str(tmp_path / "golden.jsonl")]
    assert [example.id for path in typed for example in load([path])] == ["golden.jsonl:1"] * 3
    assert [example.id for example in load(["./one.json"])] == ["one.json"]
