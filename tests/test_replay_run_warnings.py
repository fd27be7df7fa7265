"""The run warnings of `ragmon replay` that `ragmon.example_warnings` words, each naming file and lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragmon.cli import main


def replayed(tmp_path: Path, capsys: pytest.CaptureFixture[str], records: list[dict[str, Any]],
             gate: str) -> tuple[Path, str, list[str]]:
    """The golden file the records make, what a passing replay of it printed to stderr, and its JSON
    report's run warnings."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    written = tmp_path / "report.json"
    assert main(["replay", str(golden), "--gate", gate, "--json", str(written)]) == 0
    return golden, capsys.readouterr().err, json.loads(written.read_text(encoding="utf-8"))["run_warnings"]


def test_an_unanswerable_marker_written_otherwise_is_warned_of_naming_its_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asked = {"question": "Gift wrap?", "answer": "No."}
    records = [{"id": "q1", **asked},
               {"id": "q2", **asked, "ground_truth": "INSUFFICIENT_CONTEXT"},
               {"id": "q3", **asked, "ground_truth": "insufficient_context"}]
    golden, err, warned = replayed(tmp_path, capsys, records, "answer_correctness=0")

    why = (f"1 example of {golden} marks a question unanswerable in words ragmon does not read as the "
           'marker (line 2; "INSUFFICIENT_CONTEXT" of example q2): write category "unanswerable" or '
           '"adversarial", or ground truth "insufficient_context", as written here; read as they are, the '
           "question counts as answerable (abstention has no value for it) and such a ground truth is scored "
           "as an answer")
    assert err == f"ragmon replay: warning: {why}\n"
    assert warned == [why]


def test_a_cited_id_with_a_trailing_space_is_warned_of_naming_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    contexts = [{"id": "kb-returns", "text": "Returns take 30 days."}]
    records = [{"id": "q1", "question": "Returns?", "answer": "Returns take 30 days.", "contexts": contexts,
                "citations": ["kb-returns"]},
               {"id": "q2", "question": "Returns?", "answer": "Returns take 30 days.", "contexts": contexts,
                "citations": ["kb-returns "]}]
    golden, err, warned = replayed(tmp_path, capsys, records, "groundedness=0.5")

    why = (f"ids cited or labelled relevant in 1 example of {golden} match a retrieved context's id only "
           "with white space, case or Unicode form aside (line 2; 'kb-returns ' for 'kb-returns' in example "
           "q2): ids are compared as written, so each counts as a document never retrieved; write them as "
           "the contexts' ids")
    assert f"ragmon replay: warning: {why}\n" in err
    assert warned == [why]


def test_answers_recorded_as_json_objects_are_warned_of_naming_their_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A golden set recorded from an app asking its model for JSON: judged as written, q2's keys and its
    # "confidence" were claims. q1 answers in prose, q3 with a JSON list, q4 with an object holding no text:
    # none is warned of.
    contexts = [{"id": "kb-returns", "text": "Returns take 30 days."}]
    asked = {"question": "Returns?", "contexts": contexts}
    records = [{"id": "q1", **asked, "answer": "Returns take 30 days."},
               {"id": "q2", **asked, "answer": json.dumps({"answer": "Returns take 30 days.",
                                                            "sources": ["kb-returns"], "confidence": 0.8})},
               {"id": "q3", **asked, "answer": '["Returns take 30 days."]'},
               {"id": "q4", **asked, "answer": '{"days": 30}'}]
    golden, err, warned = replayed(tmp_path, capsys, records, "groundedness=0")

    why = (f"the answer of 1 example of {golden} is a JSON object (line 2; example q2): judged as written, "
           "keys, syntax and fields such as a confidence or the sources are cut into claims, the unsupported "
           'ones counted as hallucinations; record the answer\'s text as "answer" and what it cites as '
           '"citations" (the sidecar and live replay read such an answer so: the text under its "answer" '
           'key, its "sources" as citations)')
    assert err == f"ragmon replay: warning: {why}\n"
    assert warned == [why]
