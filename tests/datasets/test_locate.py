"""An error inside a whole JSON document names the line where the bad value starts."""

from __future__ import annotations

import json
from pathlib import Path

from dataset_cases import EVAL_SET, error_of

# --- format 2: eval-set JSON ---------------------------------------------------------------------


def test_eval_set_error_points_at_the_example_line(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(EVAL_SET))
    doc["examples"][2]["question"] = 42
    text = json.dumps(doc, indent=2)
    path = tmp_path / "eval.json"
    path.write_text(text, encoding="utf-8")
    # The offending value is the only `"question": 42` in the file; its line found by plain search.
    expected_line = text[:text.index('"question": 42')].count("\n") + 1
    err = error_of([path])
    assert (err.line, err.field) == (expected_line, "examples[2].question")


# --- format 3: trace JSON / JSONL ----------------------------------------------------------------


def test_trace_error_in_json_array_names_line_and_path(tmp_path: Path) -> None:
    traces = [{"input": "Q?", "steps": []},
              {"input": "Q2?", "steps": [{"kind": "retrieval", "output": [{"pageContent": 5}]}]}]
    text = json.dumps(traces, indent=2)
    path = tmp_path / "export.json"
    path.write_text(text, encoding="utf-8")
    expected_line = text[:text.index('"pageContent": 5')].count("\n") + 1
    err = error_of([path])
    assert (err.line, err.field) == (expected_line, "[1].steps[0].output[0].pageContent")


# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


def test_near_miss_in_an_eval_set_example_names_its_line(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(EVAL_SET))
    doc["examples"][1]["expected_chunk_id"] = doc["examples"][1].pop("expected_chunk_ids")
    text = json.dumps(doc, indent=2)
    path = tmp_path / "eval.json"
    path.write_text(text, encoding="utf-8")
    expected_line = text[:text.index('"expected_chunk_id"')].count("\n") + 1  # the only such key
    err = error_of([path])
    assert (err.line, err.field) == (expected_line, "examples[1].expected_chunk_id")
    assert "unknown field 'expected_chunk_id': did you mean 'expected_chunk_ids'?" in str(err)
