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
