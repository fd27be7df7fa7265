"""`ragmon replay` gated on citations: a breached citation gate exited 1 naming no citation. The terminal
named no example, the JUnit failure only `q01: citation_accuracy 0`, the Markdown headed the examples
"groundedness 1.00" and the JSON held no citation at all. Each report now names the cited ids that
supported nothing, apart from those never retrieved (beside what was), and the contexts used but not
cited; and citations written as positions (`[1, 2]`), read as ids no context has, are warned of once."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ragmon.cli import main

SHIPPING = "Standard shipping takes 3 to 7 business days."
CONTEXTS = [{"id": "kb-shipping", "text": SHIPPING},
            {"id": "kb-returns", "text": "Items can be returned within 30 days of delivery."}]


def line(example_id: str, citations: list[Any], contexts: list[dict[str, str]] = CONTEXTS) -> str:
    """An answer that is kb-shipping's sentence word for word: the lexical judge supports its one claim
    with kb-shipping alone, so kb-shipping is the one context used."""
    return json.dumps({"id": example_id, "question": "How long does shipping take?", "contexts": contexts,
                       "answer": SHIPPING, "citations": citations}) + "\n"


def reports(tmp_path: Path, golden: Path, *gates: str) -> tuple[int, dict[str, Any], str, ET.Element]:
    paths = [tmp_path / name for name in ("r.json", "r.md", "r.xml")]
    status = main(["replay", str(golden), *(arg for gate in gates for arg in ("--gate", gate)),
                   "--json", str(paths[0]), "--markdown", str(paths[1]), "--junit", str(paths[2])])
    return (status, json.loads(paths[0].read_text(encoding="utf-8")), paths[1].read_text(encoding="utf-8"),
            ET.parse(paths[2]).getroot())


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    """q01 cites a retrieved document it did not use: accuracy 0/1, coverage 0/1 (kb-shipping uncited).
    q02 cites one document too many: accuracy 1/2, coverage 1/1. q03 cites "kb-shiping", never retrieved:
    accuracy 0/1, coverage 0/1. Means: accuracy 0.5/3 = 0.1667, coverage 1/3."""
    path = tmp_path / "golden.jsonl"
    path.write_text(line("q01", ["kb-returns"]) + line("q02", ["kb-shipping", "kb-returns"])
                    + line("q03", ["kb-shiping"]), encoding="utf-8")
    return path


UNSUPPORTING = "cited kb-returns, which supported none of the answer's claims"
TYPO = "cited kb-shiping, which was not retrieved: retrieved kb-shipping, kb-returns"
UNCITED = "did not cite kb-shipping, which supported a claim"


def test_the_terminal_names_the_citations_behind_a_breached_citation_gate(
        tmp_path: Path, golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _, _ = reports(tmp_path, golden, "citation_accuracy=0.95", "citation_coverage=0.5")
    assert status == 1
    out = capsys.readouterr().out
    assert ("citation_accuracy below 0.95 (3 of 3 examples, worst first):\n"
            f"  q01: citation_accuracy 0\n    {UNSUPPORTING}\n"
            f"  q03: citation_accuracy 0\n    {TYPO}\n"
            f"  q02: citation_accuracy 0.5\n    {UNSUPPORTING}\n") in out
    # Coverage is over the contexts used, not sentences: the one used and left uncited is named.
    assert ("citation_coverage below 0.5 (2 of 2 examples, worst first):\n"
            f"  q01: citation_coverage 0\n    {UNCITED}\n"
            f"  q03: citation_coverage 0\n    {UNCITED}\n") in out


def test_the_junit_failure_names_the_citations_of_its_gate_alone(tmp_path: Path, golden: Path) -> None:
    _, _, _, suite = reports(tmp_path, golden, "citation_accuracy=0.95", "citation_coverage=0.5")
    accuracy, coverage = (case.findtext("failure", "") for case in suite.iter("testcase"))
    assert accuracy.splitlines()[2:] == [
        "", "q01: citation_accuracy 0", f"  {UNSUPPORTING}",
        "", "q03: citation_accuracy 0", f"  {TYPO}",
        "", "q02: citation_accuracy 0.5", f"  {UNSUPPORTING}"]
    assert coverage.splitlines()[2:] == [
        "", "q01: citation_coverage 0", f"  {UNCITED}", "", "q03: citation_coverage 0", f"  {UNCITED}"]


def test_the_markdown_heads_each_example_with_its_citation_figure_and_names_the_ids(
        tmp_path: Path, golden: Path) -> None:
    _, _, markdown, _ = reports(tmp_path, golden, "citation_accuracy=0.95")
    question = "Question: How long does shipping take?"
    assert (f"#### `q03`: citation_accuracy 0.00, groundedness 1.00\n\n{question}\n\n"
            "Cited `kb-shiping`, which was not retrieved: retrieved `kb-shipping`, `kb-returns`.\n\n"
            "Did not cite `kb-shipping`, which supported a claim.\n") in markdown
    assert (f"#### `q02`: citation_accuracy 0.50, groundedness 1.00\n\n{question}\n\n"
            "Cited `kb-returns`, which supported none of the answer's claims.\n\n"
            "Retrieved but unused") in markdown


def test_the_json_results_hold_the_citations_and_which_broke(tmp_path: Path, golden: Path) -> None:
    _, report, _, _ = reports(tmp_path, golden, "citation_accuracy=0.95")
    shown = {r["id"]: (r["citations"], r["cited_unsupporting"], r["cited_not_retrieved"], r["used_not_cited"])
             for r in report["results"]}
    assert shown == {"q01": (["kb-returns"], ["kb-returns"], [], ["kb-shipping"]),
                     "q02": (["kb-shipping", "kb-returns"], ["kb-returns"], [], []),
                     "q03": (["kb-shiping"], [], ["kb-shiping"], ["kb-shipping"])}


def test_citations_written_as_positions_are_warned_of_once_naming_their_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    numbered = [{"id": "7", "text": SHIPPING}]  # ids that are numbers: [7] is no position there
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("q01", ["kb-shipping"]) + line("q02", [1, 2]) + line("q03", ["7"], numbered)
                      + line("q04", [2]), encoding="utf-8")
    status, report, markdown, suite = reports(tmp_path, golden, "citation_accuracy=0.9")
    why = (f"citations of 2 examples of {golden} look like positions, not ids (lines 2, 4): a citation names "
           "a context by its id, and no context's id is a number, so each counts as a document never "
           'retrieved; cite the ids, e.g. ["kb-shipping", "kb-returns"] for [1, 2] of example q02')
    said = capsys.readouterr()
    assert said.err == f"ragmon replay: warning: {why}\n"
    assert report["run_warnings"] == [why]
    assert f"warning: {why}\n" in said.out and f"warning: {why}\n" in suite.findtext("system-out", "")
    assert "|\n\n**Warning**: citations of 2 examples of " in markdown
    # Scored as written: "1" and "2" are ids no context has (accuracy 0/2), [2] likewise (0/1).
    accuracy = {r["id"]: r["metrics"]["citation_accuracy"] for r in report["results"]}
    assert (accuracy, status) == ({"q01": 1.0, "q02": 0.0, "q03": 1.0, "q04": 0.0}, 1)


def test_citations_counted_from_0_are_turned_into_the_ids_counted_from_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # [0, 1]: the first and second documents, counted from 0. Read from 1, the warning suggested
    # ["0", "kb-shipping"], the 0 out of range and the 1 the wrong document.
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("q01", [0, 1]), encoding="utf-8")
    main(["replay", str(golden)])
    assert 'e.g. ["kb-shipping", "kb-returns"] for [0, 1] of example q01' in capsys.readouterr().err


def test_a_position_past_the_contexts_is_not_suggested_as_an_id(tmp_path: Path) -> None:
    # ["c1", "2"] had been suggested for [1, 2] with one context retrieved: no context has the id "2".
    golden = tmp_path / "golden.jsonl"
    policy = "Items can be returned within 30 days."
    record = {"id": "a", "question": "How long?", "answer": policy,
              "contexts": [{"id": "c1", "text": policy}], "citations": [1, 2]}
    golden.write_text(json.dumps(record) + "\n", encoding="utf-8")
    _, report, _, _ = reports(tmp_path, golden)
    assert report["run_warnings"][0].endswith(
        'cite the ids, e.g. ["c1"] for [1, 2] of example a; 2 is past the 1 context retrieved')


def test_the_ids_suggested_for_positions_are_the_contexts_ids_as_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Clipped as prose, ["kb returns", "kb returns", "kb-x", "kb\\x1b[1mbold"] had been suggested: two
    # ids alike, the spaces around " kb-x " gone, the escape character written as 4 characters no id has.
    # Now JSON of each id as written, read back by a JSON parser, with what a terminal or the Markdown
    # would escape or squeeze (the escape character, the second of two spaces) in JSON's own escapes.
    golden = tmp_path / "golden.jsonl"
    ids = ["kb  returns", "kb\treturns", " kb-x ", "kb\x1b[1mbold"]
    contexts = [{"id": doc_id, "text": "Other."} for doc_id in ids]
    golden.write_text(line("q1", [1, 2, 3, 4], contexts), encoding="utf-8")
    _, report, markdown, suite = reports(tmp_path, golden)
    suggested = '["kb \\u0020returns", "kb\\treturns", " kb-x ", "kb\\u001b[1mbold"]'
    why = report["run_warnings"][0]
    assert why.endswith(f"cite the ids, e.g. {suggested} for [1, 2, 3, 4] of example q1")
    assert json.loads(suggested) == ids
    assert capsys.readouterr().err.startswith(f"ragmon replay: warning: {why}\n")
    assert f"warning: {why}\n" in suite.findtext("system-out", "")
    # The Markdown writes `]` as `\]`, which renders as `]`.
    assert '["kb \\u0020returns", "kb\\treturns", " kb-x ", "kb\\u001b[1mbold"\\] for' in markdown


def test_long_citations_are_quoted_clipped_in_the_warning(tmp_path: Path) -> None:
    # Ten citations of 100,000 digits each, all out of range: quoted whole twice, in the suggested ids
    # and in the list they stand for, they made a JUnit file of 2 MB. Each is quoted as its first 59
    # digits and an ellipsis, 60 characters; past the contexts, none is suggested as an id to cite.
    golden = tmp_path / "golden.jsonl"
    golden.write_text(line("q01", ["7" * 100_000] * 10), encoding="utf-8")
    _, report, _, _ = reports(tmp_path, golden)
    shown = "7" * 59 + "…"
    assert report["run_warnings"][0].endswith(
        f"cite the ids: the citations [{', '.join([shown] * 10)}] of example q01 are past the 2 contexts "
        "retrieved")
    assert len(report["run_warnings"][0]) < 2_000
    assert (tmp_path / "r.xml").stat().st_size < 20_000
