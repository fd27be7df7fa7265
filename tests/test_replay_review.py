"""`ragmon replay` on golden lines nobody has reviewed: `ragmon serve --capture` marks every line it writes
`"needs_review": true`, and a reviewer sets it to false (or deletes the line). Replayed still marked, they
were scored without a word, so a CI gate ran on production text nobody read, a rejected line included."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ragmon.cli import main

WARRANTY = "The warranty lasts 2 years."


def line(example_id: str, **fields: Any) -> str:
    """A golden example whose answer is its one context word for word: groundedness 1."""
    record = {"id": example_id, "question": "How long is the warranty?",
              "contexts": [{"id": "kb-1", "text": WARRANTY}], "answer": WARRANTY, **fields}
    return json.dumps(record) + "\n"


def test_lines_still_marked_for_review_are_warned_of_once_by_their_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("g1") + line("g2", needs_review=True) + line("g3", needs_review=None)
                      + line("g4", needs_review=True) + line("g5", needs_review=True)
                      + line("g6", needs_review=False) + line("g7"), encoding="utf-8")
    reports = [tmp_path / name for name in ("r.json", "r.md", "r.xml")]
    assert main(["replay", str(golden), "--gate", "groundedness=0.9", "--json", str(reports[0]),
                 "--markdown", str(reports[1]), "--junit", str(reports[2])]) == 0
    # Lines 2, 4 and 5 say true; line 3's null and line 6's false (reviewed) do not.
    why = (f'3 examples of {golden} still need review ("needs_review": true: lines 2, 4, 5): set it to false '
           "once reviewed, or delete the line")
    said = capsys.readouterr()
    assert said.err == f"ragmon replay: warning: {why}\n"
    report = json.loads(reports[0].read_text(encoding="utf-8"))
    assert (report["run_warnings"], report["warnings"]) == ([why], [])
    assert f"|\n\n**Warning**: {why}.\n" in reports[1].read_text(encoding="utf-8")
    summary = f"gate groundedness >= 0.9: ok (1 >= 0.9)\nwarning: {why}\nPASS\n"
    assert said.out.endswith(summary)
    assert ET.parse(reports[2]).findtext("system-out", "").endswith(summary)
    # A warning, not a verdict: all 7 are scored, and the run passes as it did.
    assert (report["examples"], report["passed"]) == (7, True)
    # --quiet keeps it off the terminal; the reports still say it.
    quiet = ["replay", str(golden), "--gate", "groundedness=0.9", "--quiet", "--json", str(reports[0])]
    assert main(quiet) == 0
    assert capsys.readouterr().err == ""
    assert json.loads(reports[0].read_text(encoding="utf-8"))["run_warnings"] == [why]


def test_one_line_still_marked_is_named_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("g1") + line("g2", needs_review=True), encoding="utf-8")
    assert main(["replay", str(golden), "--gate", "groundedness=0.9"]) == 0
    assert capsys.readouterr().err == (
        f'ragmon replay: warning: 1 example of {golden} still needs review ("needs_review": true: line 2): '
        "set it to false once reviewed, or delete the line\n")


def test_marked_lines_of_several_files_are_counted_whole_and_the_first_five_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.json"
    first.write_text("".join(line(f"a{n}", needs_review=True) for n in range(1, 5)), encoding="utf-8")
    # A whole-JSON file, in the trace format: its records' lines are found in its text.
    second.write_text('[\n  {"id": "b1", "input": "How long?", "output": "Two years."},\n'
                      '  {"id": "b2", "input": "How long?", "output": "Two years.", "needs_review": true},\n'
                      '  {"id": "b3", "input": "How long?", "output": "Two years.", "needs_review": true},\n'
                      '  {"id": "b4", "input": "How long?", "output": "Two years.", "needs_review": true}\n'
                      "]\n", encoding="utf-8")
    assert main(["replay", str(first), str(second), "--gate", "groundedness=0"]) == 0
    assert capsys.readouterr().err == (
        f'ragmon replay: warning: 7 examples of {first} and {second} still need review ("needs_review": '
        f"true: {first} lines 1, 2, 3, 4; {second} line 3 and 2 more): set it to false once reviewed, or "
        "delete the line\n")


def test_a_misspelt_mark_stops_the_run_naming_the_field_meant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Carried along as the user's own field, it hid the line from the warning above.
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("g1") + line("g2", needsReview=True), encoding="utf-8")
    assert main(["replay", str(golden), "--gate", "groundedness=0.9"]) == 2
    assert capsys.readouterr().err == (f"ragmon replay: error: {golden}:2: unknown field 'needsReview': did "
                                       "you mean 'needs_review'? (field 'needsReview')\n")


@pytest.mark.parametrize(("mark", "told"), [
    # A spreadsheet's round trip writes "true"; a 1 is true to many: either left the line scored as
    # reviewed, with no warning and no error.
    ('"true"', "got a string: write it without quotes"),
    ("1", "got a number"),
])
def test_a_mark_that_is_not_true_or_false_stops_the_run_naming_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], mark: str, told: str) -> None:
    golden = tmp_path / "golden.jsonl"
    marked = line("g2").replace("}\n", f', "needs_review": {mark}}}\n')
    golden.write_text(line("g1") + marked, encoding="utf-8")
    assert main(["replay", str(golden), "--gate", "groundedness=0.9"]) == 2
    assert capsys.readouterr().err == (f"ragmon replay: error: {golden}:2: expected true or false, {told} "
                                       "(field 'needs_review')\n")


def test_a_mark_set_to_false_or_null_is_a_reviewed_line(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("g1", needs_review=False) + line("g2", needs_review=None), encoding="utf-8")
    assert main(["replay", str(golden), "--gate", "groundedness=0.9"]) == 0
    assert "review" not in capsys.readouterr().err
