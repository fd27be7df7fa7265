"""Format 1, ragmon records: every field to its Example field, unknown ones carried along."""

from __future__ import annotations

import json
from pathlib import Path

from dataset_cases import sha_id

from ragmon.datasets import load
from ragmon.model import Context


def test_ragmon_jsonl_loads_every_field_and_carries_unknown_ones(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text(
        json.dumps({"id": "q1", "question": "How long?", "answer": "Thirty days.",
                    "contexts": [{"id": "d1", "text": "Returns within 30 days.", "score": 0.9},
                                 {"text": "Its id in its metadata.", "metadata": {"source": "faq.md"}}],
                    "relevant_ids": ["d1"], "citations": ["d1"], "ground_truth": "30 days",
                    "category": "returns", "pipeline": "shop-v2",
                    "labels": {"sentences": [1, 0]}, "metadata": {"owner": "cx"}, "needs_review": True})
        + "\n\n   \n"  # blank lines are skipped
        + json.dumps({"id": 7, "question": "Unknown retrieval?"}) + "\n"
        + json.dumps({"id": "q3", "question": "Nothing found?", "contexts": [], "relevant_ids": []}) + "\n"
        + json.dumps({"id": "q4", "question": "Unlabelled?",
                      "contexts": [{"text": "No id here."}, "Nor here."], "relevant_ids": []}) + "\n",
        encoding="utf-8")
    first, second, third, fourth = load([path])

    assert first.id == "q1" and first.question == "How long?" and first.answer == "Thirty days."
    assert first.contexts == (Context("d1", "Returns within 30 days.", 0.9),
                              Context("faq.md", "Its id in its metadata.", None))
    assert first.relevant_ids == frozenset({"d1"})
    assert first.citations == ("d1",)
    assert (first.ground_truth, first.category, first.pipeline) == ("30 days", "returns", "shop-v2")
    assert first.extra == {"labels": {"sentences": [1, 0]}, "metadata": {"owner": "cx"}, "needs_review": True}

    # A whole-number id reads as its text; absent fields stay unknown (None), not empty.
    assert second.id == "7"
    assert (second.contexts, second.answer, second.relevant_ids, second.citations) == (None, None, None, None)
    assert second.extra == {}
    # Explicitly empty is kept apart from unknown.
    assert third.contexts == () and third.relevant_ids == frozenset()
    # A context without an id is named by its content hash where no labelled id is matched against it.
    assert fourth.contexts == (Context(sha_id("No id here."), "No id here."),
                               Context(sha_id("Nor here."), "Nor here."))
