"""Telling the ragmon and trace formats apart, record by record: a record in one format is read in it, and
one that gives both formats' content, or the other format's than its file's, is an error."""

from __future__ import annotations

from pathlib import Path

from dataset_cases import error_of, sha_id, write_jsonl

from ragmon.datasets import load
from ragmon.model import Context

# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


def test_trace_ids_are_carried_in_a_ragmon_row(tmp_path: Path) -> None:
    # `trace_id` is a trace-format field, not a typo of anything; in a ragmon row it is carried along.
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "question": "q", "answer": "A.", "trace_id": "t"}])
    (example,) = load([path])
    assert example.extra == {"trace_id": "t"}


def test_ragmon_row_with_a_steps_log_or_raw_input_is_read_as_ragmon(tmp_path: Path) -> None:
    # Before: `steps` or `input` made the row a trace, so its answer and contexts were ignored ("nothing
    # to score"), or its `input` object was read as the question.
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"id": "a", "question": "q", "contexts": ["Doc."], "answer": "A.", "steps": []},
        {"id": "b", "question": "q", "answer": "B.", "input": {"messages": []}, "expectedDocs": None},
    ])
    first, second = load([path])
    assert (first.answer, first.contexts, first.extra) == ("A.", (Context(sha_id("Doc."), "Doc."),),
                                                           {"steps": []})
    assert (second.question, second.answer) == ("q", "B.")
    assert second.extra == {"input": {"messages": []}, "expectedDocs": None}


def test_row_with_both_formats_content_is_an_error_naming_both(tmp_path: Path) -> None:
    # Contexts given twice (as `contexts` and as a retrieval step) and the answer twice: no guess.
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"id": "a", "question": "q", "contexts": ["Doc."], "answer": "A.", "output": "B.",
         "steps": [{"kind": "retrieval", "output": ["Other."]}]}])
    err = error_of([path])
    assert str(err) == (f"{path}:1: mixes the ragmon format's 'contexts', 'answer' with the trace format's "
                        "'steps', 'output': give each example in one format")


def test_row_in_the_other_format_than_its_file_is_an_error(tmp_path: Path) -> None:
    # The format follows the first example; a later trace row read as ragmon lost its answer and contexts,
    # a later ragmon row read as a trace lost its contexts.
    ragmon_file = write_jsonl(tmp_path / "r.jsonl", [
        {"id": "a", "question": "q", "answer": "A."},
        {"id": "b", "question": "q", "output": "B.", "steps": [{"kind": "retrieval", "output": ["D."]}]}])
    err = error_of([ragmon_file])
    assert str(err) == (f"{ragmon_file}:2: has the trace format's 'steps', 'output' in a file whose first "
                        "example is in the ragmon format: give every example of a file in one format "
                        "(field 'steps')")
    trace_file = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "a", "input": "q", "output": "A."},
        {"id": "b", "question": "q", "contexts": ["D."]}])
    err = error_of([trace_file])
    assert str(err) == (f"{trace_file}:2: has the ragmon format's 'contexts' in a file whose first example "
                        "is in the trace format: give every example of a file in one format "
                        "(field 'contexts')")
