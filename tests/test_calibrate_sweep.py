"""`ragmon calibrate --sweep`: the lexical judge across thresholds, on a file whose every claim's share of
terms the one document holds is counted by hand below, so that each figure is worked out from the rule
"supported when the document holds at least the threshold's share of the claim's terms"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_calibrate_end_to_end import figures

from ragmon.cli import main
from ragmon.progress import Progress

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = "The library opens early. Members borrow books for free. The cafe sells coffee and cake."
# The document's terms (stemmed, function words dropped): librari open earli member borrow book free cafe
# sell coffe cake.


def record(id_: str, answer: str, *unsupported: str) -> dict[str, Any]:
    """Each sentence named is labelled unsupported by its offsets; the response hallucinated when one is."""
    spans = [{"start": answer.index(s), "end": answer.index(s) + len(s)} for s in unsupported]
    return {"id": id_, "question": "What does the library offer?",
            "contexts": [{"id": "doc", "text": DOCUMENT}], "answer": answer,
            "labels": {"hallucinated": bool(spans), "spans": spans}}


BORROW_FILMS = record("b", "Members borrow films and games.", "Members borrow films and games.")
CAFE_TEA = record("d", "The cafe sells tea and sandwiches.")
RECORDS = [
    # claim                                        terms held        share  labelled
    record("a", "Members borrow books and magazines."),  # member borrow book / +magazin  3/4 0.75 supported
    BORROW_FILMS,  # member borrow / +film +game                                   2/4 0.50 unsupported
    record("c", "The cafe sells coffee. Visitors rent bicycles and scooters.",
           "Visitors rent bicycles and scooters."),  # cafe sell coffe 3/3 1.00 supported; 0/4 0 unsupported
    CAFE_TEA,  # cafe sell / +tea +sandwich                                        2/4 0.50 supported
    record("e", "The library opens early."),  # librari open earli                3/3 1.00 supported
    record("f", "Members borrow books and journals online.",  # member borrow book / +journal +onlin
           "Members borrow books and journals online."),  #                            3/5 0.60 unsupported
    record("g", "Staff repair laptops.", "Staff repair laptops."),  # staff repair laptop 0/3 0 unsupported
]
"""A claim is flagged when its share is below the threshold. Labelled unsupported: b 0.50, c2 0, f 0.60,
g 0; supported: a 0.75, c1 1, d 0.50, e 1. Hallucinated responses: b, c, f, g (4 of 7).

At 0.40: flagged c2, g. Sentence TP 2 (c2 g), FP 0, FN 2 (b f), TN 4: P 2/2 = 1, R 2/4, F1 4/(4+0+2) = 2/3.
Response: flagged c, g: TP 2, FP 0, FN 2 (b f), TN 3 (a d e): P 1, R 1/2, F1 2/3.
At 0.70: flagged c2, g, b, d, f. Sentence TP 4, FP 1 (d), FN 0, TN 3: P 4/5, R 1, F1 8/(8+1) = 8/9.
Response: flagged b c d f g: TP 4, FP 1 (d), FN 0, TN 2 (a e): P 4/5, R 1, F1 8/9.
Across 0.30-0.80 the verdicts change only past 0.50, 0.60 and 0.75 (a claim of share s is supported up to
s inclusive), so the figures run in four stretches; sentence F1 2/3, then 6/8 (TP 3 FP 1 FN 1: b and d
flagged too), then 8/9, then 8/10 (a flagged too: FP 2). The best, 8/9, holds from 0.61 to 0.75: the lowest
of equals is 0.61, the default 0.56 not being among them."""


@pytest.fixture(autouse=True)
def no_calibrate_variables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A RAGMON_* variable set where the tests run would change the run's threshold, judges or report."""
    for name in ("RAGMON_LEXICAL_THRESHOLD", "RAGMON_SWEEP", "RAGMON_CALIBRATE_JUDGE",
                 "RAGMON_CALIBRATE_JSON", "RAGMON_CALIBRATE_QUIET"):
        monkeypatch.delenv(name, raising=False)
    yield


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def swept(tmp_path: Path, records: list[dict[str, Any]], capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[dict[str, Any], str]:
    """The JSON report and the printed table of a sweep over `records`."""
    report = tmp_path / "calibration.json"
    assert main(["calibrate", str(write(tmp_path / "labelled.jsonl", records)), "--sweep",
                 "--json", str(report), *args]) == 0
    return json.loads(report.read_text()), capsys.readouterr().out


def row_at(report: dict[str, Any], threshold: float) -> dict[str, Any]:
    (row,) = [row for row in report["sweep"] if row["threshold"] == threshold]
    return row


def test_the_sweep_gives_the_figures_worked_out_by_hand_and_the_threshold_to_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, out = swept(tmp_path, RECORDS, capsys)
    assert [row["threshold"] for row in report["sweep"]] == [round(0.30 + 0.01 * i, 2) for i in range(51)]
    assert row_at(report, 0.40) == {"threshold": 0.40, "sentence": figures(2, 0, 2, 4),
                                    "response": figures(2, 0, 2, 3)}
    assert row_at(report, 0.70) == {"threshold": 0.70, "sentence": figures(4, 1, 0, 3),
                                    "response": figures(4, 1, 0, 2)}
    assert report["best"] == 0.61
    table = out[out.index("lexical threshold sweep"):]
    assert table.splitlines()[:6] == [
        "lexical threshold sweep (8 labelled sentences, 4 unsupported; 7 responses, 4 hallucinated):",
        "threshold  sentence P  R      F1     tp  fp  fn  tn  response P  R      F1     tp  fp  fn  tn",
        "0.30-0.50  1.000       0.500  0.667  2   0   2   4   1.000       0.500  0.667  2   0   2   3",
        "0.51-0.60  0.750       0.750  0.750  3   1   1   3   0.750       0.750  0.750  3   1   1   2   "
        "default",
        "0.61-0.75  0.800       1.000  0.889  4   1   0   3   0.800       1.000  0.889  4   1   0   2   "
        "best sentence F1",
        "0.76-0.80  0.667       1.000  0.800  4   2   0   2   0.667       1.000  0.800  4   2   0   1",
    ]
    assert "best sentence F1 0.889 at 0.61 (" in table
    assert "pass --lexical-threshold 0.61 to ragmon replay and ragmon serve" in table
    assert "it was chosen on 8 labelled sentences: a threshold tuned on few labels fits them" in table


def test_where_nothing_is_flagged_precision_is_undefined_and_equal_f1s_go_to_the_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two claims of share 0.50: b labelled unsupported, d supported. Up to 0.50 neither is flagged: TP 0,
    # FP 0, FN 1, TN 1: precision 0/0 undefined, recall 0/1, F1 0/(0+0+1) = 0. From 0.51 both are: TP 1,
    # FP 1: P 1/2, R 1, F1 2/3 at every threshold from 0.51, so of equals the default 0.56 is the best.
    report, out = swept(tmp_path, [BORROW_FILMS, CAFE_TEA], capsys)
    nothing = {"tp": 0, "fp": 0, "fn": 1, "tn": 1, "precision": None, "recall": 0.0, "f1": 0.0,
               "accuracy": 0.5}
    assert row_at(report, 0.30) == {"threshold": 0.30, "sentence": nothing, "response": nothing}
    assert report["best"] == 0.56
    rows = out[out.index("lexical threshold sweep"):].splitlines()
    assert rows[2] == ("0.30-0.50  -           0.000  0.000  0   0   1   1   "
                       "-           0.000  0.000  0   0   1   1")
    assert rows[3].startswith("0.51-0.80  0.500       1.000  0.667  1   1   0   0")
    assert rows[3].endswith("default, best sentence F1")
    assert "-: undefined (no precision where nothing is flagged" in out
    assert "best sentence F1 0.667 at 0.56, the default (" in out


def test_no_threshold_is_recommended_when_none_flags_a_labelled_claim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # d alone, labelled supported: flagged from 0.51 (FP 1, F1 0/(0+1+0) = 0), before that nothing at all
    # (F1 0/0 undefined): no F1 to choose a threshold by.
    report, out = swept(tmp_path, [CAFE_TEA], capsys)
    assert report["best"] is None
    assert "no threshold flags a sentence labelled unsupported, so none is recommended" in out
    assert "--lexical-threshold" not in out[out.index("lexical threshold sweep"):]


def test_the_sweeps_default_row_is_a_plain_runs_figures(tmp_path: Path) -> None:
    plain, swept_report = tmp_path / "plain.json", tmp_path / "swept.json"
    data = str(ROOT / "examples" / "labelled.jsonl")
    assert main(["calibrate", data, "--quiet", "--json", str(plain)]) == 0
    assert main(["calibrate", data, "--quiet", "--sweep", "--json", str(swept_report)]) == 0
    (judge,) = json.loads(plain.read_text())["judges"]
    row = row_at(json.loads(swept_report.read_text()), 0.56)
    assert (row["sentence"], row["response"]) == (judge["sentence"], judge["response"])
    # The README's figures for the example file: sentence precision and recall 5/7.
    assert row["sentence"]["precision"] == row["sentence"]["recall"] == pytest.approx(5 / 7)


def test_without_sweep_the_report_holds_no_sweep(tmp_path: Path) -> None:
    report = tmp_path / "calibration.json"
    data = write(tmp_path / "l.jsonl", RECORDS)
    assert main(["calibrate", str(data), "--quiet", "--json", str(report)]) == 0
    written = json.loads(report.read_text())
    assert (written["sweep"], written["best"]) == (None, None)


@pytest.mark.parametrize(("args", "variables", "error"), [
    (["--judge", "claude"], {},
     "--sweep measures the lexical judge across thresholds, and this run's judge is claude: add --judge "
     "lexical, or leave --sweep out"),
    (["--judge", "claude"], {"RAGMON_SWEEP": "1"},
     "RAGMON_SWEEP (--sweep) measures the lexical judge across thresholds, and this run's judge is claude: "
     "add --judge lexical, or leave RAGMON_SWEEP out"),
    (["--lexical-threshold", "0.56"], {},
     "--sweep and --lexical-threshold are given together: the sweep measures every threshold from 0.30 to "
     "0.80 and says which to pass; leave --lexical-threshold out"),
    # Set by a variable, the sweep is named by it: the flag had been, which nobody typed.
    (["--lexical-threshold", "0.56"], {"RAGMON_SWEEP": "1"},
     "RAGMON_SWEEP (--sweep) and --lexical-threshold are given together: the sweep measures every threshold "
     "from 0.30 to 0.80 and says which to pass; leave --lexical-threshold out"),
    # A judge a variable chose is named with it, beside a typed flag of another judge.
    (["--lexical-threshold", "0.56"], {"RAGMON_CALIBRATE_JUDGE": "claude", "ANTHROPIC_API_KEY": "k"},
     "--lexical-threshold is given without --judge lexical: only the lexical judge reads it, and this run's "
     "judge is claude (RAGMON_CALIBRATE_JUDGE); add --judge lexical to calibrate the lexical judge, or "
     "leave it out"),
], ids=["no-lexical-judge", "no-lexical-judge-by-variable", "typed-threshold", "typed-threshold-by-variable",
        "judge-by-variable"])
def test_a_sweep_that_cannot_be_what_was_meant_is_refused_naming_the_flag(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        args: list[str], variables: dict[str, str], error: str) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    sweep = [] if "RAGMON_SWEEP" in variables or "RAGMON_CALIBRATE_JUDGE" in variables else ["--sweep"]
    report = tmp_path / "calibration.json"
    assert main(["calibrate", str(write(tmp_path / "l.jsonl", RECORDS)), *sweep, *args,
                 "--json", str(report)]) == 2
    assert capsys.readouterr().err == f"ragmon calibrate: error: {error}\n"
    assert json.loads(report.read_text())["error"] == error


def test_a_threshold_a_variable_sets_is_this_runs_and_the_sweep_still_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # RAGMON_LEXICAL_THRESHOLD=0.70 is a default for every run: the judge's own row is at 0.70 (the sweep's
    # figures at 0.70 above), and the sweep is measured all the same.
    monkeypatch.setenv("RAGMON_LEXICAL_THRESHOLD", "0.70")
    report, _ = swept(tmp_path, RECORDS, capsys)
    (judge,) = report["judges"]
    assert (judge["settings"], judge["sentence"]) == ({"threshold": 0.70}, figures(4, 1, 0, 3))
    assert report["best"] == 0.61 and len(report["sweep"]) == 51


def test_a_sweep_tells_a_ci_log_how_far_it_has_got(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # Before: silent until the table, though the sweep judges every example at each of 51 thresholds (3,000
    # examples: 100 s here), where a CI job's no-output timeout ends a silent step. A line every 30 s in a
    # log (here after every judgement): 7 examples at 51 thresholds are 357 judgements.
    monkeypatch.setattr(Progress, "LOG_INTERVAL", 0.0)
    assert main(["calibrate", str(write(tmp_path / "labelled.jsonl", RECORDS)), "--sweep"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[:8] == [*(f"lexical: judged {done} of 7 examples" for done in range(1, 8)),
                         "sweep: 1 of 357 judgements"]
    assert (len(lines), lines[-1]) == (7 + 357, "sweep: 357 of 357 judgements")
