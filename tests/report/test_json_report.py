"""JSON report: the documented schema, exact claim text with the judge's reason, null (never NaN) for
undefined figures, and valid Unicode throughout (U+FFFD for a lone surrogate)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from report_cases import (
    EXAMPLE_WARNING,
    GIFT,
    GIFT_REASON,
    INVENTED,
    INVENTED_REASON,
    RUN_WARNING,
    invented_run,
    many_regressed_run,
    regressed_run,
)

import ragmon
from ragmon.cli import main
from ragmon.evaluation import evaluate
from ragmon.gate import GateResult
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, EvalConfig, Example, ExampleResult, Report
from ragmon.report.json import render, render_error
from ragmon.rules import SCORING_RULES


def _no_nan(token: str) -> float:
    raise AssertionError(f"non-standard JSON constant {token}")


def test_schema_keys_and_types(report: Report, gates: tuple[GateResult, ...]) -> None:
    # e6's contexts were unknown: its sentence was split and left undecided (no verdicts), so it neither
    # made a claim this run could judge nor declined.
    unknown = ExampleResult(Example("e6", "Question e6?", None, "Refunds arrive within 24 hours."), "lexical",
                            {"groundedness": None, "answer_relevance": float("nan"), "recall": None}, ())
    report = replace(report, results=(*report.results, unknown))
    doc = json.loads(render(report, gates), parse_constant=_no_nan)
    assert set(doc) == {"report_format", "ragmon_version", "scoring_rules", "judge", "k", "confidence",
                        "examples", "aggregates", "gates", "passed", "complete", "error", "baseline",
                        "results", "skipped", "failed", "warnings", "run_warnings"}
    assert doc["report_format"] == 1
    assert doc["judge"] == {"name": "lexical", "threshold": 0.6}
    assert (doc["k"], doc["confidence"], doc["examples"], doc["passed"]) == (5, 0.95, 5, False)
    # A run that completed (its gates breached, exit 1): complete, no error, and the version that wrote it.
    assert (doc["complete"], doc["error"], doc["ragmon_version"]) == (True, None, ragmon.__version__)
    assert doc["scoring_rules"] == SCORING_RULES  # what a --baseline compares (ragmon.rules)
    assert doc["baseline"] is None  # no --baseline

    assert doc["aggregates"]["groundedness"] == {"mean": pytest.approx(0.58333333), "n": 3, "ci": [0.25, 1.0]}
    assert doc["aggregates"]["citation_accuracy"] == {"mean": None, "n": 0, "ci": None}
    assert doc["aggregates"]["answer_relevance"] == {"mean": None, "n": 4, "ci": None}  # NaN became null

    assert [g["metric"] for g in doc["gates"]] == ["groundedness", "recall", "citation_accuracy"]
    for gate in doc["gates"]:
        assert set(gate) == {"metric", "op", "threshold", "value", "passed", "reason", "max_drop", "baseline"}
        assert gate["op"] in (">=", "<=") and isinstance(gate["passed"], bool)
        assert (gate["max_drop"], gate["baseline"]) == (None, None)  # threshold gates, not drop gates
    assert doc["gates"][2]["value"] is None

    assert doc["skipped"] == [{"id": "e5", "reason": "judge timed out"}]
    assert doc["warnings"] == doc["run_warnings"] == []
    assert [r["id"] for r in doc["results"]] == ["e1", "e2", "e3", "e4", "e6"]
    for item, result in zip(doc["results"], report.results, strict=True):
        assert set(item) == {"id", "question", "category", "metrics", "claims", "relevant_not_retrieved",
                             "retrieved_unused", "abstained", "citations", "cited_unsupporting",
                             "cited_not_retrieved", "used_not_cited"}
        assert (item["question"], item["category"]) == (result.example.question, result.example.category)
        assert item["metrics"]["answer_relevance"] is None
        answer = result.example.answer or ""
        for claim in item["claims"]:
            assert set(claim) == {"text", "start", "end", "supported", "supporting_ids", "reason"}
            assert claim["text"] == answer[claim["start"]:claim["end"]]
    e1 = doc["results"][0]
    unsupported = [c["text"] for c in e1["claims"] if not c["supported"]]
    assert unsupported == ["Refunds arrive within 24 hours."]  # the sentence as written in the fixture
    assert e1["claims"][0]["supporting_ids"] == ["d1"]
    assert (e1["relevant_not_retrieved"], e1["retrieved_unused"]) == (["d9"], ["d2"])
    # e3 answered "" (says nothing: no claim, an abstention); the others make claims, e6's undecided.
    assert [r["abstained"] for r in doc["results"]] == [False, False, True, False, False]


def test_abstained_is_recorded_only_where_the_run_could_judge_claims() -> None:
    # What a later --baseline compares as groundedness 1 where the answer makes claims then. With the
    # contexts known: "I don't know." declines, "" says nothing, and with no context retrieved the
    # decline is still one; "Sure!" is filler that makes no claim but declines nothing, an answer not
    # recorded is none, and a sentence is a claim. With the contexts unknown nothing was judged, so the
    # run cannot tell: false, for the decline as for the sentence.
    store = (Context("store", "Returns are accepted within 30 days of purchase."),)
    claim = "Returns are accepted within 60 days."
    cases = [("I don't know.", store, True), ("", store, True), ("I don't know.", (), True),
             ("Sure!", store, False), (None, store, False), (claim, store, False),
             ("I don't know.", None, False), (claim, None, False)]
    examples = [Example(f"q{i}", "How long do I have to return an item?", contexts, answer)
                for i, (answer, contexts, _) in enumerate(cases)]
    doc = json.loads(render(evaluate(examples, LexicalJudge(), EvalConfig(k=5)), ()))
    assert [r["abstained"] for r in doc["results"]] == [expected for _, _, expected in cases]


def test_passed_is_true_without_breaches(report: Report) -> None:
    doc = json.loads(render(report, ()))
    assert doc["passed"] is True and doc["gates"] == []


def test_an_incomplete_run_never_passed_and_keeps_its_figures(report: Report) -> None:
    # The one gate held (recall 0 >= 0), but the run stopped after scoring: passed must be false, the gate
    # not decided (null, as the other reports read "not decided": `true` had told a tool it held), and the
    # figures, the gate's value and reason and the skipped examples stay, as data, beside the error.
    held = (GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),)
    why = "the judge failed on all 4 examples"
    doc = json.loads(render(report, held, incomplete=why))
    assert (doc["passed"], doc["complete"], doc["error"]) == (False, False, why)
    assert (doc["gates"][0]["passed"], doc["gates"][0]["value"], doc["gates"][0]["reason"]) == (None, 0.0,
                                                                                              "0 >= 0")
    assert doc["skipped"] == [{"id": "e5", "reason": "judge timed out"}]
    assert doc["examples"] == 4 and doc["aggregates"]["groundedness"]["n"] == 3


def test_an_error_report_has_every_key_and_no_figures() -> None:
    doc = json.loads(render_error("data.jsonl:3: invalid JSON"), parse_constant=_no_nan)
    assert doc == {"report_format": 1, "ragmon_version": ragmon.__version__, "scoring_rules": SCORING_RULES,
                   "judge": {}, "k": None,
                   "confidence": None, "examples": 0, "aggregates": {}, "gates": [], "passed": False,
                   "complete": False, "error": "data.jsonl:3: invalid JSON", "baseline": None, "results": [],
                   "skipped": [], "failed": [], "warnings": [], "run_warnings": []}


def test_a_warning_of_the_run_is_apart_from_the_examples_warnings(report: Report) -> None:
    # Filed under its first example's id, a warning about the whole run read as that example's.
    doc = json.loads(render(replace(report, warnings=(EXAMPLE_WARNING,)), (), run_warnings=(RUN_WARNING,)))
    assert doc["run_warnings"] == [RUN_WARNING]
    assert doc["warnings"] == [{"id": "e1", "warning": EXAMPLE_WARNING[1]}]


def test_a_baseline_that_recorded_no_scoring_rules_says_null() -> None:
    # Its ragmon predates `scoring_rules` (before 4 December 2026): null, not this build's rules, which
    # would tell a tool reading the report that the two runs compare like with like.
    report, gates, comparison = many_regressed_run(2)
    doc = json.loads(render(report, gates, comparison=comparison))
    assert doc["baseline"]["scoring_rules"] is None
    assert doc["scoring_rules"] == SCORING_RULES


def test_claims_carry_the_judges_reason() -> None:
    report, gates = invented_run()
    doc = json.loads(render(report, gates))
    claims = {r["id"]: [(c["text"], c["supported"], c["reason"]) for c in r["claims"]]
              for r in doc["results"]}
    # The lexical judge gives no reason for a supported claim: null.
    assert claims == {
        "ok": [("Returns are accepted within 30 days of purchase.", True, None)],
        "bad": [("Refunds are paid to the original card.", True, None), (INVENTED, False, INVENTED_REASON)],
    }


def test_the_baseline_object_names_what_regressed() -> None:
    report, gates, comparison = regressed_run()
    doc = json.loads(render(report, gates, comparison=comparison), parse_constant=_no_nan)
    assert doc["passed"] is False  # the groundedness drop gate breached
    baseline = doc["baseline"]
    assert set(baseline) == {"path", "ragmon_version", "scoring_rules", "shared", "new", "gone", "gone_ids",
                             "caveats", "metrics", "regressed", "worsened"}
    assert baseline["caveats"] == []
    assert (baseline["path"], baseline["ragmon_version"]) == ("main.json", ragmon.__version__)
    assert baseline["scoring_rules"] == SCORING_RULES  # written by this build, as its report recorded
    assert (baseline["shared"], baseline["new"], baseline["gone"], baseline["gone_ids"]) == (2, 1, 1, ["old"])
    # By hand (regressed_run): on ok and bad, groundedness 0.75 -> 0.5, recall 0.75 both; no citations.
    assert baseline["metrics"]["groundedness"] == {"baseline": 0.75, "candidate": 0.5, "delta": -0.25, "n": 2,
                                                   "n_baseline_only": 0, "n_candidate_only": 0,
                                                   "n_baseline_abstained": 0}
    assert baseline["metrics"]["recall"] == {"baseline": 0.75, "candidate": 0.75, "delta": 0.0, "n": 2,
                                             "n_baseline_only": 0, "n_candidate_only": 0,
                                             "n_baseline_abstained": 0}
    assert baseline["metrics"]["citation_accuracy"] == {"baseline": None, "candidate": None, "delta": None,
                                                        "n": 0, "n_baseline_only": 0, "n_candidate_only": 0,
                                                        "n_baseline_abstained": 0}
    # GIFT follows "Returns are accepted within 30 days of purchase. " (49 characters) and is 37 long.
    claim = {"text": GIFT, "start": 49, "end": 86, "supported": False, "supporting_ids": [],
             "reason": GIFT_REASON}
    ok = {"id": "ok", "before": 1.0, "after": 0.5, "baseline_abstained": False, "newly_unsupported": [claim]}
    assert baseline["regressed"] == [ok]
    # Each drop-gated metric's worse examples, the groundedness ones as `regressed`; recall moved nowhere.
    assert baseline["worsened"] == {"groundedness": [ok], "recall": []}
    # A drop gate: its value is the change, held against -DELTA; the baseline's mean beside it.
    assert doc["gates"] == [
        {"metric": "groundedness", "op": ">=", "threshold": -0.1, "value": -0.25, "passed": False,
         "reason": "dropped 0.25 > 0.1 against the baseline: 0.75 -> 0.5 on 2 examples measured in both runs",
         "max_drop": 0.1, "baseline": 0.75},
        {"metric": "recall", "op": ">=", "threshold": 0.0, "value": 0.0, "passed": True,
         "reason": "unchanged against the baseline: 0.75 -> 0.75 on 2 examples measured in both runs",
         "max_drop": 0.0, "baseline": 0.75}]


def test_the_examples_behind_every_drop_gated_metric_are_listed_not_only_groundedness(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # answer_correctness, SQuAD token F1 against the ground truth (punctuation and articles dropped). The
    # baseline answers all three exactly: 1 each. Now q0 says "60 days." for "30 days" (1 of 2 tokens
    # shared each way: F1 1/2), q1 is unchanged (1), q2 says "Not free." for "free" (precision 1/2, recall
    # 1: F1 2/3). Mean 1 -> (1/2 + 1 + 2/3) / 3 = 13/18 = 0.7222, a drop of 5/18 = 0.2778 > 0.1. The
    # Markdown named q0 and q2; the JSON had groundedness's regressions alone, none here (no contexts).
    for name in [name for name in os.environ if name.startswith("RAGMON_") or name == "GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name)
    truths = ("30 days", "the original card", "free")

    def golden(name: str, answers: tuple[str, ...]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Question {i}?", "answer": answer,
                                            "ground_truth": truth}) + "\n"
                                for i, (answer, truth) in enumerate(zip(answers, truths, strict=True))),
                        encoding="utf-8")
        return path

    main_json, out = tmp_path / "main.json", tmp_path / "r.json"
    assert main(["replay", str(golden("main.jsonl", ("30 days.", "The original card.", "Free."))), "--quiet",
                 "--json", str(main_json)]) == 0
    code = main(["replay", str(golden("now.jsonl", ("60 days.", "The original card.", "Not free."))),
                 "--quiet", "--baseline", str(main_json), "--max-drop", "answer_correctness=0.1", "--json",
                 str(out)])
    doc = json.loads(out.read_text(encoding="utf-8"))
    (gate,) = doc["gates"]
    assert (gate["passed"], gate["reason"]) == (
        False, "dropped 0.2778 > 0.1 against the baseline: 1 -> 0.7222 on 3 examples measured in both runs")
    assert doc["baseline"]["regressed"] == []
    # Biggest change first: q0 by 1/2, then q2 by 1/3.
    assert doc["baseline"].get("worsened") == {"answer_correctness": [
        {"id": "q0", "before": 1.0, "after": 0.5, "baseline_abstained": False, "newly_unsupported": []},
        {"id": "q2", "before": 1.0, "after": pytest.approx(2 / 3), "baseline_abstained": False,
         "newly_unsupported": []}]}
    assert code == 1


def test_a_lone_surrogate_is_written_as_u_fffd_so_strict_readers_take_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A JavaScript pipeline that cut a string mid-emoji wrote half a UTF-16 pair, "\ud83d" (JSON.stringify
    # escapes it): valid JSON syntax, but jq 1.6 and serde_json refuse a whole report holding one. Here in
    # the id and in the answer's second sentence, which shares no term with d1 and so is the unsupported one.
    for name in [name for name in os.environ if name.startswith("RAGMON_") or name == "GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name)
    data = tmp_path / "golden.jsonl"
    data.write_text('{"id": "cut\\ud83d", "question": "How long is the warranty?", '
                    '"contexts": [{"id": "d1", "text": "The warranty lasts 2 years."}], '
                    '"answer": "The warranty lasts 2 years. Moon \\ud83d cheese."}\n', encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["replay", str(data), "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_bytes().decode("utf-8"))
    json.dumps(doc, ensure_ascii=False).encode("utf-8")  # strict: raises on a lone surrogate, key or value
    # Each escape became one U+FFFD, so the offsets into the answer still hold (27 + 1 space = 28, 28 + 14).
    (result,) = doc["results"]
    assert result["id"] == "cut\ufffd"
    assert [(c["text"], c["start"], c["end"], c["supported"]) for c in result["claims"]] == [
        ("The warranty lasts 2 years.", 0, 27, True), ("Moon \ufffd cheese.", 28, 42, False)]


def test_an_error_naming_a_lone_surrogate_is_written_as_u_fffd() -> None:
    # A file name of bytes that are not UTF-8 reaches Python as surrogates ("\udcff" for byte FF).
    doc = json.loads(render_error("cannot read golden-\udcff.jsonl"))
    assert doc["error"] == "cannot read golden-\ufffd.jsonl"


def test_a_rubout_in_text_otherwise_ascii_is_escaped_too() -> None:
    # DEL is ASCII: a piece holding it and nothing else outside ASCII is escaped as the C1 controls are.
    report = Report({"name": "lexical"}, 5, (), {})
    assert '"run_warnings": ["rub\\u007fout"]' in render(report, (), run_warnings=("rub\x7fout",))


def test_judge_settings_are_recorded_as_json_values() -> None:
    # The Claude judge's settings hold `"temperature": None` (the API's default): recorded as null, as a
    # baseline's are, not as the text "None"; a tuple as a list, a non-finite float as null.
    settings = {"name": "claude", "temperature": None, "max_tokens": 2048, "stop": ("a", "b"),
                "limit": float("inf"), "streamed": False}
    doc = json.loads(render(Report(settings, 5, (), {}), ()))
    assert doc["judge"] == {"name": "claude", "temperature": None, "max_tokens": 2048, "stop": ["a", "b"],
                            "limit": None, "streamed": False}


def test_what_a_terminal_would_act_on_or_hide_is_written_as_json_escapes() -> None:
    # `cat report.json` in a CI log had sent the question's C1 CSI (U+009B), which restyles the log, its DEL
    # and tag character, and the id's bidi override, which reorders the line, all raw. Each is now JSON's
    # own escape, written by hand below, and reads back as the same text.
    question = "Is the fee \x9b31m 7 dollars \x7f \U000e0001 ok?"
    example = Example("j\u202e1", question, (Context("d1", "Other."),), "A.")
    report = Report({"name": "lexical"}, 5, (ExampleResult(example, "lexical", {}, ()),), {})
    written = render(report, (), run_warnings=("line\u2028separator",))
    assert '"id": "j\\u202e1"' in written
    assert '"question": "Is the fee \\u009b31m 7 dollars \\u007f \\udb40\\udc01 ok?"' in written
    assert '"run_warnings": ["line\\u2028separator"]' in written
    doc = json.loads(written)
    assert (doc["results"][0]["id"], doc["results"][0]["question"]) == ("j\u202e1", question)
