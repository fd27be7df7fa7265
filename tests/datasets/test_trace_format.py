"""Format 3, trace records: question and answer as text or objects, contexts from retrieval steps, every
step of a known kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dataset_cases import error_of, sha_id, write_jsonl

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
    assert first.id == f"{path}:1"  # no id in the trace: file and line
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
    assert first.id == f"{path}[0]" and first.answer == "From the model." and first.contexts == ()
    assert second.id == f"{path}[1]" and second.answer is None


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
