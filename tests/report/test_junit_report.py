"""JUnit XML: parses, one test case per gate, a failure element exactly for the breached ones, naming the
worst examples with their unsupported sentences and the judge's reasons, in bounded size."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import xmlschema
from report_cases import (
    GIFT,
    GIFT_REASON,
    INVENTED,
    INVENTED_REASON,
    JOINED,
    SPOOFED_SHOWN,
    invented_run,
    many_long_run,
    many_regressed_run,
    regressed_run,
    silent_run,
    unicode_run,
)

from ragmon.evaluation import evaluate
from ragmon.gate import GateResult, decide, parse_gates
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, Context, EvalConfig, Example, ExampleResult, Report
from ragmon.report.junit import RunInfo, render, render_error
from ragmon.rules import SCORING_RULES

# 12:00:05 at UTC+2 is 10:00:05 UTC, written without a zone as the Ant schema's pattern wants.
RUN = RunInfo(datetime(2024, 5, 1, 12, 0, 5, 250_000, tzinfo=timezone(timedelta(hours=2))), 12.3456, "ci-7")
ANT_SCHEMA = Path(__file__).with_name("JUnit.xsd")
"""windyroad's JUnit.xsd, the Apache Ant schema the README says every JUnit report is valid against."""


def test_one_testcase_per_gate_with_failures(report: Report, gates: tuple[GateResult, ...]) -> None:
    suite = ET.fromstring(render(report, gates).encode("utf-8"))
    assert suite.tag == "testsuite" and suite.get("name") == "ragmon"
    assert (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = suite.findall("testcase")
    names = [c.get("name") for c in cases]
    assert names == ["groundedness >= 0.85", "recall >= 0", "citation_accuracy >= 0.5"]
    failed = {c.get("name"): c.find("failure") for c in cases}
    assert failed["recall >= 0"] is None
    skipped = "1 of 5 examples skipped: the judge failed on it"  # e5
    assert failed["groundedness >= 0.85"].get("message") == f"groundedness 0.5833 < 0.85; {skipped}"
    assert failed["citation_accuracy >= 0.5"].get("message") == \
        f"citation_accuracy undefined: 0 observations; {skipped}"
    # No example measured it: the failure says so, and why, with no count of "0 of 0 examples" below it.
    breached, why = failed["citation_accuracy >= 0.5"].text.splitlines()
    assert breached == f"gate citation_accuracy >= 0.5 breached: undefined: 0 observations; {skipped}"
    assert why.startswith("warning: citation_accuracy has no value for 5 of 5 examples")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["judge"] == "lexical" and properties["examples"] == "4"


def test_a_breached_citation_gate_names_the_citations_that_broke_it() -> None:
    # Both answers are kb-shipping's sentence, which the lexical judge supports with kb-shipping alone:
    # "right" cites it (accuracy 1), "wrong" cites kb-returns, retrieved but supporting nothing, and
    # kb-shiping, never retrieved (accuracy 0 of 2). Mean 0.5 < 0.75.
    shipping = "Standard shipping takes 3 to 7 business days."
    returns = "Items can be returned within 30 days."
    contexts = (Context("kb-shipping", shipping), Context("kb-returns", returns))
    examples = [Example(name, "How long does shipping take?", contexts, shipping, citations=cited)
                for name, cited in (("right", ("kb-shipping",)), ("wrong", ("kb-returns", "kb-shiping")))]
    report = evaluate(examples, LexicalJudge(), EvalConfig(k=2, bootstrap_samples=0))
    gates = decide(report, parse_gates(["citation_accuracy=0.75"]))
    failure = _cases(render(report, gates))["citation_accuracy >= 0.75"].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.text.splitlines() == [
        "gate citation_accuracy >= 0.75 breached: 0.5 < 0.75",
        "1 of 2 examples have citation_accuracy below 0.75, worst first:",
        "",
        "wrong: citation_accuracy 0",
        "  cited kb-returns, which supported none of the answer's claims",
        "  cited kb-shiping, which was not retrieved: retrieved kb-shipping, kb-returns"]


def test_no_gates_is_one_passing_test_not_an_empty_suite(report: Report) -> None:
    # The run passes with no gate (exit 0); a suite of no test cases fails the build in Jenkins' JUnit step
    # ("None of the test reports contained any result") and dorny/test-reporter (fail-on-empty). So the
    # suite holds the test an incomplete run errs in, passing: 1 test, no failure, no error.
    suite = ET.fromstring(render(report, ()))
    cases = suite.findall("testcase")
    assert [(case.get("classname"), case.get("name"), list(case)) for case in cases] == [
        ("ragmon.run", "replay completes", [])]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "0")


def _cases(xml: str) -> dict[str, ET.Element]:
    """Parsed from UTF-8 bytes, as a CI system reads the file: a lone surrogate could not even be encoded,
    and XML 1.0 parsers refuse most control characters."""
    suite = ET.fromstring(xml.encode("utf-8"))
    return {case.get("name", ""): case for case in suite.findall("testcase")}


def test_breached_gate_quotes_the_invented_sentence_and_its_reason() -> None:
    report, gates = invented_run()
    cases = _cases(render(report, gates))
    assert list(cases) == ["groundedness >= 0.9", "recall >= 0.5"]  # one test case per gate
    assert cases["recall >= 0.5"].find("failure") is None
    failure = cases["groundedness >= 0.9"].find("failure")
    assert failure is not None and failure.text is not None
    lines = failure.text.splitlines()
    # Mean groundedness (1 + 1/2) / 2 = 0.75; only "bad" (0.5) is under 0.9, "ok" (1) is not listed.
    assert lines == [
        "gate groundedness >= 0.9 breached: 0.75 < 0.9",
        "1 of 2 examples have groundedness below 0.9, worst first:",
        "",
        "bad: groundedness 0.5",
        f'  "{INVENTED}"',
        f"    reason: {INVENTED_REASON}",
    ]


def test_breached_retrieval_gate_lists_examples_by_value_without_sentences() -> None:
    # recall: ok 1/1, bad 1/2 (doc-9 never retrieved): mean 0.75 < 0.9, and only bad is below 0.9.
    report, gates = invented_run("recall=0.9")
    failure = _cases(render(report, gates))["recall >= 0.9"].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.text.splitlines()[1:] == ["1 of 2 examples have recall below 0.9, worst first:", "",
                                             "bad: recall 0.5"]
    assert INVENTED not in failure.text


def test_suite_system_out_carries_the_summary() -> None:
    report, gates = invented_run()
    suite = ET.fromstring(render(report, gates).encode("utf-8"))
    summary = suite.find("system-out")
    assert summary is not None and summary.text is not None
    assert summary.text.splitlines()[-1] == "FAIL: groundedness 0.75 < 0.9"
    assert f'"{INVENTED}"' in summary.text


def test_control_characters_and_lone_surrogates_are_escaped() -> None:
    # Answers come from JSON, where "\u0001" and "\ud800" are valid escapes. XML 1.0 allows neither
    # character; each is shown as its Python escape (\x01, \ud800, \x1b), written out by hand here.
    sentence = "Refunds\x01 arrive \ud800 now\x1b[31m."
    verdict = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "closest d\x00 has 0/3")
    example = Example("e\x07", "Q?", (Context("d", "Other."),), sentence)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict,))
    gate = GateResult("groundedness", ">=", 0.5, 0.0, False, "0 < 0.5")
    failure = _cases(render(Report({"name": "lexical"}, 5, (result,), {}), (gate,)))["groundedness >= 0.5"]
    text = failure.findtext("failure") or ""
    assert "e\\x07: groundedness 0" in text
    assert '"Refunds\\x01 arrive \\ud800 now\\x1b[31m."' in text
    assert "reason: closest d\\x00 has 0/3" in text


def test_failure_text_is_bounded() -> None:
    report, gates = many_long_run()
    out = render(report, gates)
    cases = _cases(out)
    for name in ("groundedness >= 0.99", "hallucination_rate <= 0"):
        text = cases[name].findtext("failure") or ""
        # The default 10 worst of 1000, each with 5 of its 20 sentences and a count of the other 15.
        assert f"1000 of 1000 examples have {name.split()[0]} " in text and "the worst 10 listed:" in text
        assert [line.split(":")[0] for line in text.splitlines() if line.startswith("x")] == \
            [f"x{i:04}" for i in range(10)]
        assert text.count("and 15 more unsupported sentences") == 10
        quoted = [line for line in text.splitlines() if line.startswith('  "')]
        assert len(quoted) == 50  # cut to 300 characters, "…" included, between quotes
        assert all(line.endswith('…"') and len(line) <= 2 + 1 + 300 + 1 for line in quoted)
    recall = cases["recall >= 0.9"].findtext("failure") or ""
    assert '"' not in recall and len(recall.splitlines()) == 2 + 10 * 2  # header, then blank + id per example
    # By hand: per claim gate 10 examples x (5 sentence lines of 305 + 5 reason lines of 313 + ~60) is
    # ~31 KB; two of them plus the short recall failure and a ~3 KB summary stay under 80,000 characters.
    assert len(out) < 80_000


def test_worst_follows_the_option() -> None:
    report, gates = many_long_run(count=30, sentences=1)
    text = _cases(render(report, gates, worst=3))["groundedness >= 0.99"].findtext("failure") or ""
    assert "30 of 30 examples have groundedness below 0.99, the worst 3 listed:" in text
    assert [line for line in text.splitlines() if line.startswith("x")] == \
        ["x0000: groundedness 0", "x0001: groundedness 0", "x0002: groundedness 0"]


def test_suite_and_cases_carry_what_the_ant_schema_requires(report: Report,
                                                           gates: tuple[GateResult, ...]) -> None:
    # Ant's JUnit schema (windyroad JUnit.xsd): the suite needs name, timestamp (no zone), hostname, tests,
    # failures, errors and time, then properties, the test cases, system-out and system-err in that order;
    # a test case needs name, classname and time, and holds at most a failure (or error, or skipped).
    suite = ET.fromstring(render(report, gates, run=RUN).encode("utf-8"))
    assert {key: suite.get(key) for key in ("timestamp", "hostname", "time", "errors")} == {
        "timestamp": "2024-05-01T10:00:05", "hostname": "ci-7", "time": "12.346", "errors": "0"}
    assert [child.tag for child in suite] == ["properties", "testcase", "testcase", "testcase", "system-out",
                                              "system-err"]
    for case in suite.findall("testcase"):
        assert case.get("time") == "0"  # every gate is decided at once, after scoring
        assert [child.tag for child in case] in ([], ["failure"])
    default = ET.fromstring(render(report, gates))  # without RunInfo: now, 0 seconds, localhost
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", default.get("timestamp", ""))
    assert (default.get("time"), default.get("hostname")) == ("0.000", "localhost")


def test_an_incomplete_run_is_one_error_and_no_gate(report: Report) -> None:
    # recall >= 0 held, but the run stopped after scoring: a green gate test would contradict exit 2.
    held = (GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),)
    why = "the claude judge failed on all 4 examples it had to judge"
    suite = ET.fromstring(render(report, held, run=RUN, incomplete=why).encode("utf-8"))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
    (case,) = suite.findall("testcase")
    error = case.find("error")
    assert error is not None and (error.get("type"), error.get("message")) == ("RunIncomplete", why)
    summary = suite.findtext("system-out") or ""
    assert summary.splitlines()[-1] == f"INCOMPLETE: {why}" and "  e5: judge timed out" in summary


def test_an_error_report_is_one_test_in_error() -> None:
    xml = render_error("golden.jsonl:412: invalid JSON\x1b[31m", run=RUN)
    suite = ET.fromstring(xml.encode("utf-8"))
    assert {key: suite.get(key) for key in ("tests", "failures", "errors", "time", "timestamp")} == {
        "tests": "1", "failures": "0", "errors": "1", "time": "12.346", "timestamp": "2024-05-01T10:00:05"}
    assert [child.tag for child in suite] == ["properties", "testcase", "system-out", "system-err"]
    assert [p.get("name") for p in suite.iter("property")] == ["ragmon_version"]
    error = suite.find("testcase/error")
    assert error is not None and error.get("type") == "RunIncomplete"
    assert error.get("message") == "golden.jsonl:412: invalid JSON\\x1b[31m"  # ESC shown as its escape


def test_a_drop_gate_is_a_test_case_naming_the_regressed_examples() -> None:
    report, gates, comparison = regressed_run()
    suite = ET.fromstring(render(report, gates, comparison=comparison).encode("utf-8"))
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {case.get("name", ""): case for case in suite.findall("testcase")}
    # Named by the allowed drop, not by the threshold it works out to, which moves with the baseline.
    assert list(cases) == ["groundedness drop <= 0.1 vs baseline", "recall drop <= 0 vs baseline"]
    assert {case.get("classname") for case in cases.values()} == {"ragmon.baseline"}
    assert cases["recall drop <= 0 vs baseline"].find("failure") is None
    failure = cases["groundedness drop <= 0.1 vs baseline"].find("failure")
    assert failure is not None and failure.text is not None
    why = "dropped 0.25 > 0.1 against the baseline: 0.75 -> 0.5 on 2 examples measured in both runs"
    assert failure.get("message") == f"groundedness {why}"
    # Of ok and bad, only ok got worse (1 -> 0.5), with GIFT; bad's INVENTED is no news.
    assert failure.text.splitlines() == [
        f"gate groundedness drop <= 0.1 vs baseline breached: {why}",
        "1 of 2 examples in both runs got worse on groundedness than in the baseline, worst first:",
        "",
        "ok: groundedness 1 -> 0.5",
        f'  "{GIFT}"',
        f"    reason: {GIFT_REASON}",
    ]
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert {name: value for name, value in properties.items() if name.startswith("baseline")} == {
        "baseline": "main.json", "baseline_shared_examples": "2", "baseline_new_examples": "1",
        "baseline_gone_examples": "1", "baseline_scoring_rules": str(SCORING_RULES)}


def test_drop_gate_failures_are_bounded_and_list_other_metrics_by_value() -> None:
    # 1,000 examples, each from groundedness 1 to 0 with 20 newly unsupported sentences, recall 1 to 0.
    report, gates, comparison = many_regressed_run()
    cases = _cases(render(report, gates, comparison=comparison))
    grounded = cases["groundedness drop <= 0.1 vs baseline"].findtext("failure") or ""
    assert ("1000 of 1000 examples in both runs got worse on groundedness than in the baseline, the worst "
            "10 listed:") in grounded
    assert [line for line in grounded.splitlines() if line.startswith("x")] == [
        f"x{i:04}: groundedness 1 -> 0" for i in range(10)]
    assert grounded.count("and 15 more newly unsupported sentences") == 10
    assert len([line for line in grounded.splitlines() if line.startswith('  "')]) == 50
    assert "hallucination_rate rise <= 0.1 vs baseline" in cases
    recall = cases["recall drop <= 0.5 vs baseline"].findtext("failure") or ""
    assert recall.splitlines()[2:4] == ["", "x0000: recall 1 -> 0"] and '"' not in recall


def test_a_drop_gate_on_a_metric_the_baseline_lacks_lists_nothing() -> None:
    # The baseline recorded no citation_accuracy: the gate fails, its reason says which run lacked it.
    report, gates, comparison = regressed_run("citation_accuracy=0.1")
    case = _cases(render(report, gates, comparison=comparison))["citation_accuracy drop <= 0.1 vs baseline"]
    # None of the 3 examples cites anything: the warning names them, and no example is listed.
    assert (case.findtext("failure") or "").splitlines() == [
        "gate citation_accuracy drop <= 0.1 vs baseline breached: undefined in both runs: 0 observations",
        "warning: citation_accuracy has no value for 3 of 3 examples, left out of its figures (not counted "
        "as 0): 3 with the citations unknown or empty: ok, bad, new"]


def test_an_incomplete_run_shows_no_drop_gate() -> None:
    # Exit 2: a held drop gate in green beside it would contradict the exit status.
    report, gates, comparison = regressed_run("recall=0")
    assert gates[0].passed
    suite = ET.fromstring(render(report, gates, incomplete="the judge failed", comparison=comparison))
    assert [case.get("classname") for case in suite.findall("testcase")] == ["ragmon.run"]


def test_a_breached_gate_on_a_metric_some_examples_have_no_value_for_says_why() -> None:
    # silent_run, worked out there: hallucination_rate 0.025 > 0.01 from 20 of the 30 examples; the other
    # 10 say nothing (s21-s28) or have no contexts (s29, s30). The failure says so before the examples;
    # the held groundedness gate stays green, its warning in the suite's system-out.
    xml = render(*silent_run())
    cases = _cases(xml)
    why = ("10 of 30 examples, left out of its figures (not counted as 0): 8 whose answer makes no claim "
           "(empty, declining or filler): s21, s22, s23, s24, s25 and 3 more; 2 with the contexts unknown: "
           "s29, s30")
    assert (cases["hallucination_rate <= 0.01"].findtext("failure") or "").splitlines()[:3] == [
        "gate hallucination_rate <= 0.01 breached: 0.025 > 0.01",
        f"warning: hallucination_rate has no value for {why}",
        "1 of 20 examples have hallucination_rate above 0.01, worst first:"]
    assert cases["groundedness >= 0.85"].find("failure") is None
    out = ET.fromstring(xml).findtext("system-out") or ""
    assert f"warning: groundedness has no value for {why}" in out.splitlines()


def test_joiners_are_shown_as_written_and_bidi_controls_escaped() -> None:
    # The family emoji, a Hindi conjunct and a Persian word as written; a bidi override, a joiner between
    # ASCII digits and a zero-width space as escapes (SPOOFED_SHOWN, by hand): in the failure and the log.
    suite = ET.fromstring(render(*unicode_run()).encode("utf-8"))
    for text in (suite.findtext("testcase/failure") or "", suite.findtext("system-out") or ""):
        assert f'"{JOINED}"' in text and f'"{SPOOFED_SHOWN}"' in text


def _comparison_run() -> str:
    report, drops, comparison = regressed_run()
    return render(report, drops, run=RUN, comparison=comparison)


REPORT_KINDS: dict[str, Callable[[Report, tuple[GateResult, ...]], str]] = {
    "passed": lambda _, __: render(*invented_run("groundedness=0.5", "recall=0.5"), run=RUN),
    "breached": lambda _, __: render(*invented_run(), run=RUN),
    "breached, examples skipped": lambda report, gates: render(report, gates, run=RUN),
    "no gates": lambda report, _: render(report, (), run=RUN),
    "drop gates": lambda _, __: _comparison_run(),
    "control characters": lambda _, __: render(*unicode_run()),
    "incomplete": lambda report, gates: render(report, gates, run=RUN, incomplete="the judge failed on all"),
    "error": lambda _, __: render_error("golden.jsonl:412: invalid JSON\x1b[31m", run=RUN),
    "signal": lambda _, __: render_error("terminated (SIGTERM)", status=143),
}


@pytest.mark.parametrize("kind", REPORT_KINDS)
def test_every_kind_of_report_is_valid_against_the_ant_schema(report: Report, gates: tuple[GateResult, ...],
                                                              kind: str) -> None:
    # The suite carried skipped="0", an attribute Ant's schema does not have: every report ragmon wrote
    # failed the validation the README promised, whatever the run.
    xml = REPORT_KINDS[kind](report, gates)
    assert [error.reason for error in xmlschema.XMLSchema(ANT_SCHEMA).iter_errors(xml)] == []


def test_a_baseline_that_recorded_no_scoring_rules_has_no_rules_property() -> None:
    # A property's value is text: none, rather than an empty one or this build's rules, says it recorded none.
    report, gates, comparison = many_regressed_run(2)
    suite = ET.fromstring(render(report, gates, comparison=comparison).encode("utf-8"))
    names = [p.get("name") for p in suite.iter("property")]
    assert "baseline_shared_examples" in names and "baseline_scoring_rules" not in names
