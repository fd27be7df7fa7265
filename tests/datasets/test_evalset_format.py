"""Format 2, eval sets: questions without answers, unanswerable ones marked, chunk ids checked against the
corpus."""

from __future__ import annotations

import json
from pathlib import Path

from dataset_cases import EVAL_SET, error_of

from ragmon.datasets import load


def test_eval_set_json_loads_questions_and_marks_unanswerable(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(EVAL_SET, indent=2), encoding="utf-8")
    e1, e2, e3, e4 = load([path])
    assert (e1.id, e1.question) == ("e1", "Return window?")
    assert (e1.ground_truth, e1.category) == ("30 days", "returns")
    assert e1.relevant_ids == frozenset({"c1"})
    assert e1.contexts is None and e1.answer is None  # no answers: the set is for --target runs
    assert e1.extra == {"difficulty": "easy"}
    assert e2.relevant_ids == frozenset()  # adversarial: unanswerable whatever the chunk ids say
    assert e3.relevant_ids == frozenset()  # insufficient_context ground truth: unanswerable
    assert e4.relevant_ids is None  # no expected chunks given: unknown


def test_eval_set_chunk_missing_from_corpus_is_an_error(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(EVAL_SET))
    doc["examples"][0]["expected_chunk_ids"] = ["c1", "c9"]
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # a one-line document is still one document
    err = error_of([path])
    assert err.field == "examples[0].expected_chunk_ids[1]" and "'c9' is not in the corpus" in str(err)


# --- found by a CI engineer: records wrapped in {"examples": [...]} lost their answers ----------------


def test_records_with_contexts_and_answers_in_an_eval_set_are_an_error_saying_what_to_give(
        tmp_path: Path) -> None:
    # Before: read as an eval set, questions only, and the run said "no example records an answer or
    # retrieved contexts" of a file whose examples all did.
    path = tmp_path / "golden.json"
    path.write_text('{"examples": [\n'
                    '  {"id": "a", "question": "q", "ground_truth_answer": "30 days"},\n'
                    '  {"id": "b", "question": "q",\n'
                    '   "contexts": ["Returns within 30 days."], "answer": "Thirty days."}\n'
                    ']}\n', encoding="utf-8")
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 4, "examples[1].contexts")
    assert str(err) == (f"{path}:4: this example's 'contexts', 'answer' would not be read: the file is an "
                        f"eval set (a JSON object with \"examples\"), which holds questions and labels only; "
                        f"give records of what a build retrieved and answered as JSONL (one per line) or as "
                        f"a JSON array of them (field 'examples[1].contexts')")


def test_a_trace_records_output_in_an_eval_set_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    path.write_text('{"examples": [{"id": "a", "input": "q", "output": "Thirty days."}]}', encoding="utf-8")
    err = error_of([path])
    assert (err.line, err.field) == (1, "examples[0].output")
    assert str(err).startswith(f"{path}:1: this example's 'output' would not be read: the file is an eval")


# --- found in an audit: a record's label names in an eval set's example were carried along unread -------


def test_a_records_label_names_in_an_eval_set_are_an_error_naming_the_eval_set_field(tmp_path: Path) -> None:
    # Before: loaded without a word, relevant_ids and ground_truth left in extra, so a --target run scored
    # the example with hit_rate and answer_correctness undefined.
    path = tmp_path / "eval.json"
    path.write_text('{"corpus": [{"id": "kb-12", "text": "The warranty lasts 2 years."}],\n'
                    ' "examples": [\n'
                    '  {"id": "e1", "question": "Warranty?", "expected_chunk_ids": ["kb-12"]},\n'
                    '  {"id": "e2", "question": "How long?", "relevant_ids": ["kb-12"],\n'
                    '   "ground_truth": "Two years."}\n'
                    ']}\n', encoding="utf-8")
    err = error_of([path])
    assert (err.line, err.field) == (4, "examples[1]")
    assert str(err) == (f"{path}:4: unknown field 'relevant_ids': ragmon reads this as "
                        f"'expected_chunk_ids', rename it; unknown field 'ground_truth': ragmon reads this "
                        f"as 'ground_truth_answer', rename it (field 'examples[1]')")

    path.write_text('{"examples": [{"id": "e1", "question": "Warranty?", "expectedDocs": ["kb-12"]}]}',
                    encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:1: unknown field 'expectedDocs': ragmon reads this as "
                                     f"'expected_chunk_ids', rename it (field 'examples[0].expectedDocs')")
