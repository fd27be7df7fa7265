"""`ragmon replay` end to end: the real CLI in a subprocess for exit codes and files, in-process for repeats.

Figures for examples/golden.jsonl, worked out by hand from the file: 17 examples, 15 with claim-bearing
answers (loy-001 and una-001 abstain). 14 of those are fully supported; ref-001 has 3 claims and its last
("Most banks show the credit within 24 hours of that.") states a number no context holds, so 2 of 3.
Mean groundedness = (14 + 2/3) / 15 = 0.9778, hallucination_rate = 1 - that = 0.0222.
"""

from __future__ import annotations

import asyncio
import gc
import gzip
import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Reply
from manual_clock import ManualClock
from pipe_writes import (
    beside_a_reader_that_leaves,
    marked_writes,
    signalled_as_it_prints,
    signalled_while_writing,
)

import ragmon
from ragmon import replay as replay_module
from ragmon.cli import Terminated, main, terminated_on_signal
from ragmon.datasets import load
from ragmon.datasets.formats import RAGMON_FIELDS
from ragmon.evaluation import evaluate, example_claims
from ragmon.judges.base import JudgeError
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, EvalConfig, Example
from ragmon.progress import Progress
from ragmon.replay import score_runs
from ragmon.rules import PER_EXAMPLE_RULES, SCORING_RULES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "examples" / "golden.jsonl"
WEAK_SENTENCE = "Most banks show the credit within 24 hours of that."


def replay(cmd: list[str], *args: str | Path, cwd: Path, env: Mapping[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    """Run with an environment free of CI and RAGMON_ settings that would change the outcome."""
    return subprocess.run([*cmd, "replay", *map(str, args)], cwd=cwd, env={**clean_env(), **(env or {})},
                          capture_output=True, text=True, timeout=60)


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_") and k != "GITHUB_STEP_SUMMARY"}


def test_golden_set_passes_realistic_gates(ragmon_cmd: list[str], tmp_path: Path) -> None:
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.85", "--gate", "hallucination_rate=0.10",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "PASS"
    assert "gate groundedness >= 0.85: ok (0.9778 >= 0.85)" in done.stdout


def test_golden_set_breaches_strict_gates_and_writes_reports(ragmon_cmd: list[str], tmp_path: Path) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    out = tmp_path / "out"
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.99", "--gate", "hallucination_rate=0.0",
                  "--json", out / "report.json", "--markdown", out / "report.md",
                  "--junit", out / "report.xml", cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == \
        "FAIL: groundedness 0.9778 < 0.99, hallucination_rate 0.02222 > 0"

    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["passed"] is False and doc["examples"] == 17
    assert doc["aggregates"]["groundedness"]["n"] == 15
    assert doc["aggregates"]["groundedness"]["mean"] == pytest.approx((14 + 2 / 3) / 15)
    unsupported = [(r["id"], c["text"]) for r in doc["results"] for c in r["claims"] if not c["supported"]]
    assert unsupported == [("ref-001", WEAK_SENTENCE)]

    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert f"> {WEAK_SENTENCE}" in markdown
    # loy-001's retrieval missed it
    assert "Relevant but not in the top 5 retrieved: `pol-loyalty`" in markdown

    suite = ET.parse(out / "report.xml").getroot()
    cases = suite.findall("testcase")
    assert len(cases) == 2 and all(case.find("failure") is not None for case in cases)

    assert summary.read_text(encoding="utf-8") == "# earlier step\n" + markdown


def test_confidence_gates_on_the_lower_bound(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # The mean 0.9778 (14 answers at 1, ref-001 at 2/3) clears 0.96. The binomial bound is the lower: the
    # values vary less than 0/1 ones of their mean only with 0 and 1 added, so they count as 15 trials, of
    # which 14 2/3 succeed, and the bound lies between those of 14 and of 15 successes: p^15 + 15 p^14
    # (1 - p) = 0.025 at p = 0.6805, p^15 = 0.025 at p = 0.7820. Either is below 0.96.
    on_mean = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.96", cwd=tmp_path)
    on_bound = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.96", "--confidence", "0.95", cwd=tmp_path)
    assert on_mean.returncode == 0, on_mean.stderr
    assert on_bound.returncode == 1, on_bound.stderr
    bound = re.search(r"FAIL: groundedness lower 95% bound (\S+) < 0\.96", on_bound.stdout)
    assert bound is not None and 0.6805 < float(bound[1]) < 0.7820


def test_the_reports_show_the_interval_the_gate_decided_on(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # `--confidence 0.8` gated on an 80% bound while the table, the Markdown and the JSON showed 95%
    # intervals: the bound a gate passed on appeared in no report.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--confidence", "0.8", "--json", "r.json",
                  "--markdown", "r.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["confidence"] == 0.8
    lower = doc["aggregates"]["groundedness"]["ci"][0]
    assert f"lower 80% bound {lower:.4f} >= 0.5" in done.stdout
    assert "80% interval" in done.stdout and "95% interval" not in done.stdout
    assert "| metric | mean | n | 80% interval |" in (tmp_path / "r.md").read_text()


def test_the_same_examples_in_another_order_give_the_same_intervals_and_verdicts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `ragmon replay a.jsonl b.jsonl` and `ragmon replay b.jsonl a.jsonl` (a shell glob sorted by another
    # locale) resampled other examples: another interval, and a gate on its bound held one way round and
    # failed the other; the paired interval of a drop gate changed with the order too.
    for name in [k for k in os.environ if k.startswith("RAGMON_")] + ["GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name, raising=False)
    assert main(["replay", str(GOLDEN), "--json", str(tmp_path / "base.json"), "--quiet"]) == 0
    # Every other answer gains one to three sentences no context supports: the changes vary in size.
    worse = [{**r, "answer": r["answer"] + f" {INVENTED}" * (1 + i % 3)} if i % 2 == 0 else r
             for i, r in enumerate(golden_rows())]
    first, second = write_rows(tmp_path / "a.jsonl", worse[:9]), write_rows(tmp_path / "b.jsonl", worse[9:])
    reversed_first = write_rows(tmp_path / "a-reversed.jsonl", worse[:9][::-1])
    runs = []
    for files in ((first, second), (second, reversed_first)):
        report = tmp_path / "r.json"
        status = main(["replay", *map(str, files), "--confidence", "0.95", "--gate", "groundedness=0.4",
                       "--baseline", str(tmp_path / "base.json"), "--max-drop", "groundedness=0.05",
                       "--json", str(report), "--quiet"])
        doc = json.loads(report.read_text(encoding="utf-8"))
        runs.append((status, doc["aggregates"], [(g["value"], g["passed"]) for g in doc["gates"]]))
    assert runs[0] == runs[1]
    low, high = runs[0][1]["groundedness"]["ci"]
    assert low < high  # the examples vary: an interval another order could have moved
    # Mean 0.685 over 16 answers, the lower bound 0.446; the drop is well over 0.05.
    assert [passed for _, passed in runs[0][2]] == [True, False]


def test_a_terminal_without_the_answers_characters_gets_escapes_not_an_error(ragmon_cmd: list[str],
                                                                            tmp_path: Path) -> None:
    # The summary quotes the unsupported sentence; an ASCII-only stdout (a CI runner's C locale) cannot
    # encode "ä", so it is shown as Python writes it, "\xe4", and the gate still decides the exit code.
    path = tmp_path / "de.jsonl"
    path.write_text(json.dumps({"id": "e1", "question": "Wie lange gilt die Garantie?",
                                "contexts": [{"id": "d1", "text": "Die Garantie gilt 2 Jahre."}],
                                "answer": "Die Garantie gilt 2 Jahre. Sie deckt Wasserschäden ab."}) + "\n",
                    encoding="utf-8")
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.9", cwd=tmp_path,
                  env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 1, done.stderr  # 1 of 2 claims supported: 0.5 < 0.9
    assert '"Sie deckt Wassersch\\xe4den ab."' in done.stdout
    assert "Traceback" not in done.stderr


def test_unknown_metric_exits_2_listing_valid_names(ragmon_cmd: list[str], tmp_path: Path) -> None:
    done = replay(ragmon_cmd, GOLDEN, "--gate", "faithfulness=0.9", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert "unknown metric 'faithfulness'" in done.stderr
    assert "groundedness" in done.stderr and "hallucination_rate" in done.stderr and "ndcg" in done.stderr


def test_a_gate_written_with_a_comparison_exits_2_saying_how_to_write_it(ragmon_cmd: list[str],
                                                                         tmp_path: Path) -> None:
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness>=0.85", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: --gate 'groundedness>=0.85': write NAME=VALUE, without a "
                           "comparison (groundedness=0.85): groundedness is always a minimum\n")


def test_malformed_line_of_a_thousand_line_file_exits_2(ragmon_cmd: list[str], tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    lines = [json.dumps({"id": f"q{i}", "question": "Can I return it?", "answer": "Yes.",
                         "contexts": [{"id": "d", "text": "Returns are accepted."}]}) for i in range(1, 1001)]
    lines[411] = lines[411][:-1]  # line 412 loses its closing brace
    lines[700] = lines[700].replace('"question"', '"question": 5, "x"', 1)  # line 701: question is a number
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.5", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert f"{path}:412: invalid JSON" in done.stderr
    assert done.stdout == ""

    lines[411] += "}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.5", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{path}:701: expected a string, got a number (field 'question')" in done.stderr


@pytest.mark.parametrize(("content", "args", "words"), [
    (None, (), "cannot read dataset"),
    ('{"resourceSpans": []}\n', (), "contains no spans"),
    ('{"id": "a", "question": "q"}\n', ("--gate", "groundedness"), "expects NAME=VALUE"),
])
def test_bad_input_exits_2_with_one_line(ragmon_cmd: list[str], tmp_path: Path, content: str | None,
                                         args: tuple[str, ...], words: str) -> None:
    path = tmp_path / "data.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = replay(ragmon_cmd, path, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert words in done.stderr


def test_a_gate_from_the_environment_is_named_by_its_variable(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # It said "--gate 'groundness=0.8': ...", a flag the user never typed.
    done = replay(ragmon_cmd, GOLDEN, cwd=tmp_path, env={"RAGMON_GATE": "groundness=0.8"})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ragmon replay: error: RAGMON_GATE 'groundness=0.8' (--gate): unknown "
                                  "metric 'groundness' (did you mean 'groundedness'?); valid names: ")


def test_a_gate_whose_comparison_a_shell_took_says_to_quote_it(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # What `ragmon replay golden.jsonl --gate groundedness>=0.85`, unquoted, passes: the shell wrote the
    # output to a file "=0.85".
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2, "ragmon replay: error: --gate expects NAME=VALUE, got 'groundedness' (if you typed "
           "groundedness>=VALUE unquoted, the shell passed groundedness alone and sent the output to a file "
           "named '=VALUE'): write groundedness=VALUE, as groundedness is always a minimum; quote any "
           "argument holding > or <\n")


@pytest.mark.parametrize(("value", "why"), [
    ("95", "must be between 0 and 1: 95 (write 0.95 for 95%)"),
    ("95%", "not a number: '95%' (write 0.95 for 95%)"),
])
def test_a_confidence_written_as_a_percentage_says_what_to_write(ragmon_cmd: list[str], tmp_path: Path,
                                                                  value: str, why: str) -> None:
    done = replay(ragmon_cmd, GOLDEN, "--confidence", value, cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2, f"ragmon replay: error: argument --confidence: {why}")


def test_min_pass_rate_without_repeat_is_refused(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # It was ignored: one run decides each gate, and the run passed.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.85", "--min-pass-rate", "0.5", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "ragmon replay: error: --min-pass-rate 0.5 needs --repeat N (N of 2 or more): with one run, a "
               "gate holds or it does not\n")


def test_min_pass_rate_from_the_environment_is_a_default_for_the_runs_that_repeat(ragmon_cmd: list[str],
                                                                                  tmp_path: Path) -> None:
    # Set for every job of a CI, it must not break the jobs that score once.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.85", cwd=tmp_path,
                  env={"RAGMON_MIN_PASS_RATE": "0.5"})
    assert (done.returncode, done.stderr, done.stdout.splitlines()[-1]) == (0, "", "PASS")
    helped = replay(ragmon_cmd, "--help", cwd=tmp_path)
    assert "(default 1: in every run)" in " ".join(helped.stdout.split())


def test_a_dataset_named_twice_is_refused_before_it_is_read(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # It was "base.jsonl:1: duplicate example id 'ret-001' (first at base.jsonl:1)": the data blamed.
    (tmp_path / "base.jsonl").write_bytes(GOLDEN.read_bytes())
    (tmp_path / "link.jsonl").symlink_to("base.jsonl")
    done = replay(ragmon_cmd, "base.jsonl", "base.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "ragmon replay: error: base.jsonl is named twice among the datasets: give each dataset once\n")
    done = replay(ragmon_cmd, "base.jsonl", "link.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2, "ragmon replay: error: base.jsonl and link.jsonl are the same file, named twice among the "
           "datasets: give each dataset once\n")


def test_gate_on_a_metric_nobody_measured_fails(ragmon_cmd: list[str], tmp_path: Path) -> None:
    path = tmp_path / "retrieved.jsonl"  # what was retrieved, but no answer: no groundedness to measure
    path.write_text(json.dumps({"id": "a", "question": "Return window?",
                                "contexts": [{"id": "d1", "text": "30 days."}]}) + "\n", encoding="utf-8")
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.1", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "FAIL: groundedness undefined: 0 observations"


def test_a_mean_exactly_at_the_threshold_holds_the_gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Groundedness 0 (e1, e2: one invented sentence each) and 3/5 (e3: its context's three sentences and
    # two invented ones): the mean is 0.6 / 3 = 0.2, which the table prints as 0.200. Summed in floats it
    # is 0.19999999999999998, and the gate breached with exit 1 and "0.19999999999999998 <
    # 0.20000000000000001", where a minimum holds at equality.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    facts = ["The warranty lasts two years.", "Returns are accepted within thirty days.",
             "Shipping is free above fifty euros."]
    invented = ["Purple elephants sing opera loudly.", "Giraffes repair broken bicycles quickly."]
    contexts = [{"id": "d1", "text": " ".join(facts)}]
    answers = {"e1": invented[0], "e2": invented[1], "e3": " ".join(facts + invented)}
    data = tmp_path / "golden.jsonl"
    data.write_text("".join(json.dumps({"id": key, "question": "What about the warranty?",
                                        "contexts": contexts, "answer": answer}) + "\n"
                            for key, answer in answers.items()), encoding="utf-8")
    assert main(["replay", str(data), "--gate", "groundedness=0.2", "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "gate groundedness >= 0.2: ok (0.2 >= 0.2)" in out and out[-1] == "PASS"
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (doc["passed"], doc["gates"][0]["value"], doc["gates"][0]["reason"]) == (True, 0.2, "0.2 >= 0.2")


# --- repeats and judge errors, in process ----------------------------------------------------------


class CountingJudge:
    """Passes every call through to a real judge and counts them; `deterministic` as told."""

    def __init__(self, inner: LexicalJudge, name: str, deterministic: bool | None) -> None:
        self.inner = inner
        self.name = name
        if deterministic is not None:
            self.deterministic = deterministic
        self.calls = 0

    def settings(self) -> Mapping[str, Any]:
        return self.inner.settings()

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.calls += 1
        return self.inner.judge(example, claims)


@pytest.mark.parametrize(("name", "deterministic", "runs"), [
    ("lexical", True, 1),  # as LexicalJudge declares
    ("lexical", None, 3),  # a judge is what it declares, not what it is named
    ("sampled-llm", True, 1),
    ("sampled-llm", False, 3),
    ("sampled-llm", None, 3),  # unknown judges are assumed to vary
])
def test_repeat_runs_only_non_deterministic_judges(name: str, deterministic: bool | None, runs: int) -> None:
    examples = list(load([GOLDEN]))
    once = CountingJudge(LexicalJudge(), name, deterministic)
    evaluate(examples, once)
    judge = CountingJudge(LexicalJudge(), name, deterministic)
    reports = score_runs(examples, judge, EvalConfig(), repeat=3)
    assert len(reports) == runs
    assert judge.calls == runs * once.calls and once.calls > 0


def test_the_lexical_judge_is_scored_once_whatever_the_repeat() -> None:
    assert len(score_runs(list(load([GOLDEN])), LexicalJudge(), EvalConfig(), repeat=3)) == 1


class FailingJudge(LexicalJudge):
    name = "failing"

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        if example.id == "ref-001":
            raise JudgeError("model reply was not valid JSON")
        return super().judge(example, claims)


def test_judge_errors_fail_or_skip() -> None:
    examples = list(load([GOLDEN]))
    with pytest.raises(JudgeError):
        score_runs(examples, FailingJudge(), EvalConfig(), repeat=1)
    (report,) = score_runs(examples, FailingJudge(), EvalConfig(), repeat=1, skip_judge_errors=True)
    assert report.skipped == (("ref-001", "model reply was not valid JSON"),)
    assert len(report.results) == 16


class BrokenJudge(LexicalJudge):
    name = "broken"

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        raise JudgeError("the model is unreachable")


@pytest.mark.parametrize("gates", [[], ["--gate", "groundedness=0.5"], ["--gate", "abstention=0.5"]])
def test_a_run_whose_judge_failed_on_every_example_could_not_complete(
        gates: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Skipped examples are not failed ones: with no claim judged, "PASS" (no gate, or abstention, measured
    # on una-001 alone: 1 >= 0.5) or "breached" (groundedness: undefined) would both be false. Every report
    # says the run is incomplete, and why each example was skipped; stdout's last line is no PASS.
    monkeypatch.setattr(replay_module, "build_judge", lambda args: BrokenJudge())
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = tmp_path / "out"
    assert main(["replay", str(GOLDEN), "--judge-errors", "skip", "--json", str(out / "r.json"),
                 "--markdown", str(out / "r.md"), "--junit", str(out / "r.xml"), *gates]) == 2
    # Of the golden set's 17 examples, 2 need no judge: loy-001 and una-001 abstain, so make no claim.
    why = ("the broken judge failed on all 15 examples it had to judge, so no claim was judged (the reports "
           "list why)")
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"ragmon replay: error: {why}"]  # and no "no --gate" warning
    assert captured.out.splitlines()[-1] == f"INCOMPLETE: {why}"
    doc = json.loads((out / "r.json").read_text())
    assert (doc["passed"], doc["complete"], doc["error"]) == (False, False, why)
    assert len(doc["skipped"]) == 15 and {s["reason"] for s in doc["skipped"]} == {"the model is unreachable"}
    suite = ET.parse(out / "r.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
    assert [error.get("type") for error in suite.iterfind("testcase/error")] == ["RunIncomplete"]
    assert len(suite.findall("testcase")) == 1  # no gate's test case, green or red
    page = (out / "r.md").read_text()
    assert page.startswith("## ragmon replay: INCOMPLETE\n") and f"> {why}\n" in page
    assert "### Skipped (15)" in page and "PASS" not in page
    assert summary.read_text() == page


def test_an_unreachable_claude_judge_never_reports_a_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # The audit's run: --judge claude --judge-errors=skip --gate abstention=0.5, Claude refusing every call
    # (401, which the SDK does not retry). una-001's abstention (1 >= 0.5) held; the run is still exit 2.
    with FakeAnthropic() as api:
        api.default = Fail(401, "authentication_error")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        code = main(["replay", str(GOLDEN), "--judge", "claude", "--judge-errors=skip", "--gate",
                     "abstention=0.5", "--json", str(tmp_path / "je.json"),
                     "--junit", str(tmp_path / "je.xml")])
    assert code == 2
    assert json.loads((tmp_path / "je.json").read_text())["passed"] is False
    assert ET.parse(tmp_path / "je.xml").getroot().get("errors") == "1"
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("INCOMPLETE: the claude judge failed on all 15")


SKIPPED_14 = "14 of 17 examples skipped: the judge failed on them"
TOO_MANY_SKIPPED = ("the claude judge failed on 14 of 17 examples, more than --max-skipped 0.05 allows (at "
                    "most 0), so no gate was decided on the 3 left (the reports list why each was skipped)")
CLAUDE_ONE_AT_A_TIME = ("--judge", "claude", "--judge-errors", "skip", "--llm-concurrency", "1")


def claude_failing_all_but_the_first(api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's run: Claude answers the first example it is asked about (ret-001, with one call at a
    time) and refuses the other 14 with a 400, which the SDK does not retry. loy-001 and una-001 need no
    judge: 3 of the 17 examples are scored, ret-001's one claim-bearing answer alone with groundedness 1."""
    api.default = Fail(400, "invalid_request_error")
    api.enqueue(Reply())
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)


def test_a_judge_that_failed_on_more_examples_than_max_skipped_allows_decides_no_gate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # 14 of 17 skipped is past the default 0.05 (at most 0 of 17): the figures of the 3 left, groundedness
    # 1 on n=1, decide nothing, so no report may read PASS; exit 2, as when the judge fails on every one.
    out = tmp_path / "out"
    with FakeAnthropic() as api:
        claude_failing_all_but_the_first(api, monkeypatch)
        code = main(["replay", str(GOLDEN), *CLAUDE_ONE_AT_A_TIME, "--gate", "groundedness=0.85", "--gate",
                     "hallucination_rate=0.1", "--json", str(out / "r.json"), "--markdown", str(out / "r.md"),
                     "--junit", str(out / "r.xml")])
        assert api.calls == 15
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"ragmon replay: error: {TOO_MANY_SKIPPED}"]
    lines = captured.out.splitlines()
    assert lines[-1] == f"INCOMPLETE: {TOO_MANY_SKIPPED}"
    assert f"gate groundedness >= 0.85: not decided (1 >= 0.85; {SKIPPED_14})" in lines
    assert f"gate hallucination_rate <= 0.1: not decided (0 <= 0.1; {SKIPPED_14})" in lines
    doc = json.loads((out / "r.json").read_text())
    assert (doc["passed"], doc["complete"], doc["error"]) == (False, False, TOO_MANY_SKIPPED)
    assert doc["examples"] == 3 and len(doc["skipped"]) == 14
    # Each gate not decided is null, as every other report reads it: groundedness's had been `true`.
    assert [(g["metric"], g["passed"]) for g in doc["gates"]] == [("groundedness", None),
                                                                  ("hallucination_rate", None)]
    suite = ET.parse(out / "r.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
    (error,) = suite.iterfind("testcase/error")
    assert (error.get("type"), error.get("message")) == ("RunIncomplete", TOO_MANY_SKIPPED)
    page = (out / "r.md").read_text()
    assert page.startswith("## ragmon replay: INCOMPLETE\n") and f"> {TOO_MANY_SKIPPED}\n" in page
    assert "3 examples, judge `claude`, k=5, 14 skipped." in page
    assert f"| groundedness >= 0.85 | 1 | not decided | 1 >= 0.85; {SKIPPED_14} |" in page


def test_max_skipped_1_decides_the_gates_on_what_is_left_and_every_gate_says_how_many_were_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The run before --max-skipped, asked for: a PASS on ret-001 alone, but no gate line reads `ok` bare.
    with FakeAnthropic() as api:
        claude_failing_all_but_the_first(api, monkeypatch)
        code = main(["replay", str(GOLDEN), *CLAUDE_ONE_AT_A_TIME, "--max-skipped", "1", "--gate",
                     "groundedness=0.85", "--gate", "hit_rate=0.5", "--junit", str(tmp_path / "r.xml")])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "PASS"
    assert f"gate groundedness >= 0.85: ok (1 >= 0.85; {SKIPPED_14})" in lines
    # hit_rate needs no judge, yet its n is 2 (ret-001 hit, loy-001 missed pol-loyalty; una-001 has no
    # relevant ids), not 16: a skipped example keeps no metric, and the warning says so for retrieval too.
    assert f"gate hit_rate >= 0.5: ok (0.5 >= 0.5; {SKIPPED_14})" in lines
    (warning,) = [line for line in lines if line.startswith("warning: hit_rate")]
    assert warning.startswith(
        "warning: hit_rate has no value for 15 of 17 examples, left out of its figures (not counted as 0): "
        "14 skipped after a judge error (a skipped example keeps no metric, retrieval ones included): "
        "ret-002, ret-003, ref-001, ref-002, shp-001 and 9 more; 1 with the relevant ids unknown or empty: "
        "una-001")
    assert re.search(r"^hit_rate +0\.500 +2 ", "\n".join(lines), re.M)
    suite = ET.parse(tmp_path / "r.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")


def test_a_skip_within_max_skipped_is_named_on_every_gate_and_in_junit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # ref-001 (the weak answer) skipped: 1 of 17, within --max-skipped 0.1 (at most 1 of 17). The other 14
    # claim-bearing answers are fully supported: groundedness 1. answer_relevance >= 0.99 breaches, and its
    # JUnit failure says the gate was decided without ref-001.
    monkeypatch.setattr(replay_module, "build_judge", lambda args: FailingJudge())
    code = main(["replay", str(GOLDEN), "--judge-errors", "skip", "--max-skipped", "0.1", "--gate",
                 "groundedness=0.85", "--gate", "answer_relevance=0.99", "--junit", str(tmp_path / "r.xml")])
    assert code == 1
    lines = capsys.readouterr().out.splitlines()
    one = "1 of 17 examples skipped: the judge failed on it"
    assert f"gate groundedness >= 0.85: ok (1 >= 0.85; {one})" in lines
    assert lines[-1].startswith("FAIL: answer_relevance ")
    assert ("warning: groundedness has no value for 3 of 17 examples, left out of its figures (not counted "
            "as 0): 2 whose answer makes no claim (empty, declining or filler): loy-001, una-001; 1 skipped "
            "after a judge error (a skipped example keeps no metric, retrieval ones included): "
            "ref-001") in lines
    cases = {case.get("name"): case for case in ET.parse(tmp_path / "r.xml").getroot().iter("testcase")}
    assert cases["groundedness >= 0.85"].find("failure") is None
    failure = cases["answer_relevance >= 0.99"].find("failure")
    assert failure is not None and (failure.get("message") or "").endswith(f"; {one}")


def test_the_default_max_skipped_allows_no_skip_in_a_set_under_20(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # 1 of 17 is 5.9% of the evidence, past 0.05; RAGMON_MAX_SKIPPED sets it as the flag does.
    monkeypatch.setattr(replay_module, "build_judge", lambda args: FailingJudge())
    assert main(["replay", str(GOLDEN), "--judge-errors", "skip", "--gate", "groundedness=0.85"]) == 2
    why = ("the failing judge failed on 1 of 17 examples, more than --max-skipped 0.05 allows (at most 0), "
           "so no gate was decided on the 16 left (the reports list why each was skipped)")
    assert capsys.readouterr().out.splitlines()[-1] == f"INCOMPLETE: {why}"
    monkeypatch.setenv("RAGMON_MAX_SKIPPED", "0.06")  # 1.02 of 17: 1
    assert main(["replay", str(GOLDEN), "--judge-errors", "skip", "--gate", "groundedness=0.85"]) == 0
    monkeypatch.setenv("RAGMON_MAX_SKIPPED", "0.05")
    assert main(["replay", str(GOLDEN), "--judge-errors", "skip", "--gate", "groundedness=0.85"]) == 2
    assert "more than RAGMON_MAX_SKIPPED 0.05 (--max-skipped) allows" in capsys.readouterr().out


def test_max_skipped_typed_without_judge_errors_skip_exits_2(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Without skip the first judge error stops the run: a share typed for skips would be ignored unsaid.
    assert main(["replay", str(GOLDEN), "--max-skipped", "0.1", "--gate", "groundedness=0.85"]) == 2
    assert capsys.readouterr().err == (
        "ragmon replay: error: --max-skipped 0.1 needs --judge-errors skip: without it, the first judge "
        "error stops the run (exit 2) and no example is skipped\n")
    monkeypatch.setenv("RAGMON_MAX_SKIPPED", "0.1")  # a CI-wide default, for the jobs that skip
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.85", "--quiet"]) == 0


def _without_ragmon_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A RAGMON_* variable set where the tests run would be a default these tests do not expect."""
    for name in [k for k in os.environ if k.startswith("RAGMON_") or k == "GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name)


def test_claude_judge_flags_typed_without_the_claude_judge_are_refused_naming_each(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Before: exit 0 on the lexical judge's figures, and a user who typed --llm-model and forgot
    # --judge claude believed Claude had judged the run. --llm-timeout 60s is its default, typed.
    _without_ragmon_variables(monkeypatch)
    report = tmp_path / "r.json"
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.85", "--json", str(report),
                 "--cache-dir", str(tmp_path), "--llm-model", "claude-x", "--llm-timeout", "60s",
                 "--llm-concurrency", "9"]) == 2
    assert capsys.readouterr().err == (
        "ragmon replay: error: --cache-dir, --llm-model, --llm-timeout, --llm-concurrency are given without "
        "--judge claude: only the claude judge reads them, and this run's judge is lexical; give --judge "
        "claude for the claude judge to score the run, or leave them out\n")
    assert json.loads(report.read_text())["complete"] is False  # nothing scored, the report says so
    # Set in the environment they are defaults for every run, read by those Claude judges.
    monkeypatch.setenv("RAGMON_LLM_MODEL", "claude-x")
    monkeypatch.setenv("RAGMON_CACHE_DIR", str(tmp_path))
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.85", "--quiet"]) == 0


def test_the_lexical_threshold_typed_for_the_claude_judge_is_refused(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: the threshold was dropped without a word (here, the missing API key was all the user heard).
    _without_ragmon_variables(monkeypatch)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["replay", str(GOLDEN), "--judge", "claude", "--lexical-threshold", "0.3"]) == 2
    assert capsys.readouterr().err == (
        "ragmon replay: error: --lexical-threshold is given without --judge lexical: only the lexical judge "
        "reads it, and this run's judge is claude; give --judge lexical for the lexical judge to score the "
        "run, or leave it out\n")


def test_every_live_setting_typed_without_target_is_named(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: the first alone was named; removed, the next run was refused for the second.
    _without_ragmon_variables(monkeypatch)
    assert main(["replay", str(GOLDEN), "--trace-wait", "1s", "--target-timeout", "5s"]) == 2
    assert capsys.readouterr().err == (
        "ragmon replay: error: --target-timeout, --trace-wait are given without --target: they set how a "
        "build is asked the questions, and with no --target none is asked (the answers and contexts the "
        "dataset records are scored); leave them out for a run on the recorded answers, or set "
        "RAGMON_TARGET_TIMEOUT, RAGMON_TRACE_WAIT, defaults read only with --target\n")


def test_questions_without_answers_or_contexts_need_a_target(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # An eval-set file: a corpus and questions, nothing a candidate answered or retrieved. Every metric
    # would be undefined, and a gate on them "breached" (exit 1) though nothing was measured.
    evalset = tmp_path / "evalset.json"
    evalset.write_text(json.dumps({
        "corpus": [{"id": "c1", "source": "faq.md", "text": "Returns within 30 days."}],
        "examples": [{"id": "e1", "question": "Can I return it?", "ground_truth_answer": "Yes.",
                      "expected_chunk_ids": ["c1"]}]}))
    result = replay(ragmon_cmd, evalset, "--gate", "groundedness=0.5", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"ragmon replay: error: nothing to score in {evalset}: no example records an answer or retrieved "
        f"contexts (an eval-set file holds questions and labels only: replay it against a build with "
        f"--target URL)")


def test_documents_under_a_common_name_stop_the_run_instead_of_leaving_the_gated_mean(ragmon_cmd: list[str],
                                                                                     tmp_path: Path) -> None:
    # ref-001, the one weak answer (groundedness 2/3), with its contexts named `documents`: carried along
    # unread, it had no groundedness, and the gate passed on the other 14 (mean 1.0) where the same set
    # named as ragmon reads it breaches (0.9778).
    rows = golden_rows()
    assert rows[3]["id"] == "ref-001"
    rows[3]["documents"] = rows[3].pop("contexts")
    path = write_rows(tmp_path / "golden.jsonl", rows)
    assert replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.99", cwd=tmp_path).returncode == 1
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.99", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"ragmon replay: error: {path}:4: unknown field 'documents': ragmon reads this as "
                           f"'contexts' (it holds a list of 5 documents with text), rename it (field "
                           f"'documents')\n")


def test_records_wrapped_as_an_eval_set_say_their_answers_were_not_read(ragmon_cmd: list[str],
                                                                        tmp_path: Path) -> None:
    # Before: "nothing to score ... no example records an answer or retrieved contexts", of examples that
    # all did.
    path = tmp_path / "golden.json"
    path.write_text(json.dumps({"examples": golden_rows()}), encoding="utf-8")
    done = replay(ragmon_cmd, path, "--gate", "groundedness=0.85", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"ragmon replay: error: {path}:1: this example's 'contexts', 'answer' would not "
                           f"be read: the file is an eval set (a JSON object with \"examples\"), which holds "
                           f"questions and labels only; give records of what a build retrieved and answered "
                           f"as JSONL (one per line) or as a JSON array of them "
                           f"(field 'examples[0].contexts')\n")


# --- progress ------------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_for_long_runs() -> None:
    terminal = Terminal()
    short = Progress(terminal)
    short(5, 10)
    short.close()
    assert terminal.getvalue() == ""  # 10 examples, well under 2 s: no bar

    long = Progress(terminal)
    long(250, 1000)
    long(1000, 1000)
    long.close()
    shown = terminal.getvalue()
    assert "scoring 1000/1000 (100%)" in shown and shown.endswith("\n")

    piped = io.StringIO()
    quick = Progress(piped)
    quick(1000, 1000)
    quick.close()
    assert piped.getvalue() == ""  # a pipe gets no bar, and a run this quick no line either


def test_a_ci_log_gets_a_plain_line_every_30_seconds() -> None:
    # Not a terminal: no bar to redraw, but a line at 30 s, then 30 s after the last line, so a CI job's
    # no-output timeout never fires on a long run. Called after each example, as evaluate() does.
    clock, log = ManualClock(), io.StringIO()
    progress = Progress(log, clock=clock)
    for done, at in ((1, 0.5), (6_000, 14.0), (11_999, 29.9)):
        clock.now = at
        progress(done, 50_000)
    assert log.getvalue() == ""  # under 30 s: nothing yet
    for done, at in ((12_000, 30.0), (20_000, 45.0), (24_000, 59.9), (24_001, 60.1), (50_000, 70.0)):
        clock.now = at
        progress(done, 50_000)
    progress.close()
    # Lines at 30.0 and at 60.1 (30.1 after the last), none at 45, 59.9 (29.9 after it) or 70.
    assert log.getvalue() == "scored 12,000 of 50,000 examples\nscored 24,001 of 50,000 examples\n"

    quiet_log = io.StringIO()
    quiet = Progress(quiet_log, enabled=False, clock=clock)  # --quiet
    clock.now = 1_000.0
    quiet(50_000, 50_000)
    assert quiet_log.getvalue() == ""


def test_a_progress_line_stderr_cannot_take_does_not_stop_the_run() -> None:
    # A full disk under the CI log: the line at 30 s raised ENOSPC, which stopped scoring with exit 2.
    clock = ManualClock()
    # Unbuffered, as nothing written is then left to fail again on closing.
    with io.TextIOWrapper(io.FileIO("/dev/full", "w"), write_through=True) as full:
        progress = Progress(full, clock=clock)
        for done, at in ((12_000, 30.0), (24_001, 60.1), (50_000, 70.0)):
            clock.now = at
            progress(done, 50_000)
        progress.close()  # nothing raised: the run goes on to decide its gates


def test_lexical_threshold_sets_the_operating_point(tmp_path: Path) -> None:
    from ragmon.cli import main

    # The second claim has 4 terms (warranti, cover, water, damag) and the context holds 2: a share of 0.5.
    # At the default 0.56 it is unsupported (groundedness 1/2); at 0.5 it is supported (2/2).
    row = {"id": "w1", "question": "What does the warranty cover?",
           "contexts": [{"id": "w", "text": "The warranty lasts 2 years and covers accidental drops."}],
           "answer": "The warranty lasts 2 years. The warranty covers water damage."}
    data = tmp_path / "w.jsonl"
    data.write_text(json.dumps(row) + "\n")
    for option, groundedness in (((), 0.5), (("--lexical-threshold", "0.5"), 1.0)):
        out = tmp_path / "report.json"
        assert main(["replay", str(data), "--json", str(out), "--quiet", *option]) == 0
        report = json.loads(out.read_text())
        assert report["aggregates"]["groundedness"]["mean"] == groundedness
        assert report["judge"]["threshold"] == (0.5 if option else LexicalJudge().threshold)


# --- found in review: failures after scoring must still exit 2, never 1 with a traceback ----------


def test_lone_surrogate_escape_is_u_fffd_in_json_and_the_escape_elsewhere(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # "\ud800" is a valid JSON escape for half a UTF-16 pair, a code point no UTF-8 file can hold. The
    # answer's second sentence shares no term with the context, so it is the unsupported claim quoted.
    row = ('{"id": "s1", "question": "How long is the warranty?", '
           '"contexts": [{"id": "d1", "text": "The warranty lasts 2 years."}], '
           '"answer": "The warranty lasts 2 years. Moon \\ud800 cheese."}\n')
    data = tmp_path / "s.jsonl"
    data.write_text(row, encoding="utf-8")
    out = tmp_path / "out"
    done = replay(ragmon_cmd, data, "--json", out / "r.json", "--markdown", out / "r.md",
                  "--junit", out / "r.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert [c["text"] for c in doc["results"][0]["claims"]] == ["The warranty lasts 2 years.",
                                                                "Moon \ufffd cheese."]
    assert "> Moon \\ud800 cheese." in (out / "r.md").read_text(encoding="utf-8")
    ET.parse(out / "r.xml")


def test_summary_that_cannot_be_printed_exits_2(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # The gate holds (the golden set's 0.9778 >= 0.5): exit 1 would tell CI it breached.
    # The JSON report, written before the summary failed, is replaced by one that says so.
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        done = subprocess.run([*ragmon_cmd, "replay", str(GOLDEN), "--gate", "groundedness=0.5",
                               "--json", "r.json"], cwd=tmp_path, env=clean_env(), stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert "cannot write the summary to standard output" in done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert (doc["passed"], doc["complete"]) == (False, False)
    assert doc["error"] == "cannot write the summary to standard output: No space left on device"


def test_recording_with_no_rag_trace_exits_2(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # One OTLP/JSON line holding one span with no RAG attribute: a health check, not an example. With
    # nothing left to score, no gate can be decided and "PASS (no gates given)" would be a false pass.
    span = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331",
            "name": "GET /healthz", "kind": 2, "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
    line = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    data = tmp_path / "otlp.jsonl"
    data.write_text(json.dumps(line) + "\n", encoding="utf-8")
    for args in ((), ("--gate", "groundedness=0.5")):
        done = replay(ragmon_cmd, data, *args, cwd=tmp_path)
        assert done.returncode == 2, done.stdout
        assert "Traceback" not in done.stderr and done.stdout == ""
        assert done.stderr.splitlines() == [
            f"ragmon replay: error: no examples to score in {data}: 1 recorded trace(s) are not RAG"]



TRACE_ID = "0af7651916cd43dd8448eb211c80319c"


def otlp_span(span_id: str, name: str, parent: str | None, start: int, end: int,
              attributes: dict[str, str], trace_id: str = TRACE_ID) -> dict[str, Any]:
    """One span as OTLP/JSON writes it."""
    values = [{"key": key, "value": {"stringValue": value}} for key, value in attributes.items()]
    span: dict[str, Any] = {"traceId": trace_id, "spanId": span_id, "name": name,
                            "kind": 1, "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                            "attributes": values}
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def eval_loop(trace_id: str = TRACE_ID) -> dict[str, Any]:
    """An eval loop recorded under one span, as one OTLP/JSON line: two requests one after another, each a
    chain that retrieved and answered, asked "Who pays for returns?", then "How long is the warranty?"."""
    kind = "openinference.span.kind"
    spans = [otlp_span("a000000000000001", "eval loop", None, 1, 100, {}, trace_id)]
    for n, (question, start) in enumerate((("Who pays for returns?", 10), ("How long is the warranty?", 50))):
        chain, retrieve, llm = (f"b00000000000000{n}", f"c00000000000000{n}", f"d00000000000000{n}")
        spans += [
            otlp_span(chain, "qa", "a000000000000001", start, start + 30,
                      {kind: "CHAIN", "input.value": question, "output.value": "It lasts 2 years."},
                      trace_id),
            otlp_span(retrieve, "retrieve", chain, start + 1, start + 2,
                      {kind: "RETRIEVER", "retrieval.documents.0.document.id": "w",
                       "retrieval.documents.0.document.content": "The warranty lasts 2 years."}, trace_id),
            otlp_span(llm, "llm", chain, start + 3, start + 20,
                      {kind: "LLM", "output.value": "It lasts 2 years."}, trace_id)]
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}


def test_a_recorded_trace_of_several_requests_is_scored_by_its_last_and_says_so(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # The last request is scored, as serve scores it; the first had gone unscored without a word.
    data = tmp_path / "otlp.jsonl"
    data.write_text(json.dumps(eval_loop()) + "\n", encoding="utf-8")
    done = replay(ragmon_cmd, data, "--gate", "groundedness=0.5", "--json", "r.json", "--markdown", "r.md",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    why = ("only the last of 2 answers is scored: 2 chains of this trace each retrieved and answered, one "
           "after another, asked different questions ('Who pays for returns?', 'How long is the warranty?'); "
           "ragmon scores one answer a trace. Give each request its own trace (a span per request, not one "
           "around a loop or a queue's worker); if they are one request asking again in other words, this is "
           "what it should do")
    trace_id = "0af7651916cd43dd8448eb211c80319c"
    assert done.stderr.splitlines() == [f"ragmon replay: warning: trace {trace_id}: {why}"]
    report = json.loads((tmp_path / "r.json").read_text())
    assert [result["question"] for result in report["results"]] == ["How long is the warranty?"]
    assert report["skipped"] == []
    # The reports say it too: a CI job's log is gone long before its report artifacts are.
    assert report["warnings"] == [{"id": trace_id, "warning": why}]
    markdown = (tmp_path / "r.md").read_text()
    assert f"### Warnings (1)\n\n- `{trace_id}`: only the last of 2 answers is scored: 2 chains" in markdown
    assert "Skipped" not in markdown
    # The terminal shows a warning's first 85 characters and an ellipsis: what it costs comes first.
    assert (f"warnings (1 of 1, on examples scored):\n  {trace_id}: only the last of 2 answers is "
            "scored: 2 chains of this trace each retrieved and answe…\n") in done.stdout


class FailsOnTrace1(LexicalJudge):
    name = "fails-on-1"

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        if example.id.endswith("1"):
            raise JudgeError("the model is unreachable")
        return super().judge(example, claims)


def test_a_recorded_trace_the_judge_skipped_is_no_warning_of_an_example_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Two eval loops recorded; the judge fails on the one of trace ...01, left out under --judge-errors skip.
    # Its warning had stayed in the section "on examples scored", beside its name in the skipped list.
    first, second = "0" * 31 + "1", "0" * 31 + "2"
    data = tmp_path / "otlp.jsonl"
    data.write_text("".join(json.dumps(eval_loop(t)) + "\n" for t in (first, second)), encoding="utf-8")
    monkeypatch.setattr(replay_module, "build_judge", lambda args: FailsOnTrace1())
    assert main(["replay", str(data), "--judge-errors", "skip", "--max-skipped", "0.5", "--gate",
                 "groundedness=0.5", "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert [s["id"] for s in report["skipped"]] == [first]
    assert [w["id"] for w in report["warnings"]] == [second]
    assert "warnings (1 of 1, on examples scored):\n  " + second in capsys.readouterr().out


# --- a capture's recorded settings ----------------------------------------------------------------------

WARRANTY = "The warranty lasts 2 years from the date of purchase."
ON_THE_BORDER = "The warranty lasts for robots and aliens."
"""2 of its 4 content terms (warranty, lasts) in WARRANTY: supported at a threshold of 0.5, not at 0.56."""
K_WHY = "retrieval figures (hit_rate, precision, recall, mrr, ndcg) are not the sidecar's"


def sidecar(k: int, threshold: float) -> dict[str, Any]:
    """The settings `ragmon serve --capture` records in each line's metadata."""
    return {"k": k, "judge": "lexical", "judge_settings": {"threshold": threshold},
            "scoring_rules": SCORING_RULES}


def unruled(count: int) -> str:
    """The warning for `count` examples a sidecar captured before it recorded its scoring rules."""
    examples, their = ("1 example was", "its") if count == 1 else (f"{count} examples were", "their")
    return (f"{examples} captured by an older ragmon sidecar that did not record its scoring rules: {their} "
            f"claims, verdicts and figures are this run's (scoring rules {SCORING_RULES}), which may not be "
            f"the sidecar's (set needs_review to false on the lines you keep as a golden set, to silence "
            f"this)")


def unreviewed(tmp_path: Path, count: int, lines: str) -> str:
    """The warning of the `count` examples of capture.jsonl (`replayed_report`'s) at `lines` still marked
    `"needs_review": true`, as `ragmon serve --capture` writes every line: warned of with its settings."""
    examples, need = ("1 example", "needs") if count == 1 else (f"{count} examples", "need")
    return (f'{examples} of {tmp_path / "capture.jsonl"} still {need} review ("needs_review": true: '
            f"{lines}): set it to false once reviewed, or delete the line")


def warned(*warnings: str) -> str:
    """Stderr of a replay warning of each of `warnings`, in order."""
    return "".join(f"ragmon replay: warning: {warning}\n" for warning in warnings)


def captured(trace_id: str, metadata: dict[str, Any] | None, answer: str = "The warranty lasts 2 years.",
             ) -> str:
    """A line as `ragmon serve --capture` writes it, or without its metadata as a hand-written golden
    example is. The relevant kb-1 is retrieved second: at k=1 it is missed, at k=5 found at rank 2."""
    record: dict[str, Any] = {
        "id": trace_id, "question": "How long does the warranty last?",
        "contexts": [{"id": "kb-2", "text": "Returns are accepted within 30 days.", "score": 0.9},
                     {"id": "kb-1", "text": WARRANTY, "score": 0.8}],
        "answer": answer, "relevant_ids": ["kb-1"]}
    if metadata is not None:
        record |= {"metadata": {"trace_id": trace_id, "pipeline_label": "shop", **metadata,
                                "groundedness": 1.0, "unsupported": [],
                                "captured_at": "2026-12-04T20:00:00.000Z"},
                   "needs_review": True}
    return json.dumps(record) + "\n"


def replayed_report(tmp_path: Path, lines: list[str], *flags: str, status: int = 0) -> dict[str, Any]:
    data, report = tmp_path / "capture.jsonl", tmp_path / "r.json"
    data.write_text("".join(lines), encoding="utf-8")
    assert main(["replay", str(data), "--json", str(report), *flags]) == status
    return json.loads(report.read_text(encoding="utf-8"))


def means(report: dict[str, Any], *names: str) -> dict[str, float | None]:
    return {name: report["aggregates"][name]["mean"] for name in names}


def test_a_capture_made_at_another_k_says_so_and_which_k_gives_the_sidecars_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Replayed at the default --k 5, a capture the sidecar made at --k 1 had given hit_rate 1.0 where the
    # dashboard showed 0.0, without a word.
    lines = [captured("t1", sidecar(1, 0.56)), captured("t2", sidecar(1, 0.56))]
    report = replayed_report(tmp_path, lines, "--gate", "hit_rate=0.9", "--markdown", str(tmp_path / "r.md"),
                             "--junit", str(tmp_path / "r.xml"))
    why = (f"2 examples were captured by a sidecar at --k 1, this run is at --k 5: their {K_WHY} (pass --k 1 "
           "to score as it did)")
    review = unreviewed(tmp_path, 2, "lines 1, 2")
    said = capsys.readouterr()
    assert said.err == warned(review, why)     # once, not once an example
    # Of the run, not of its first example: it had been filed as t1's ("t1: 2 examples were ..."). Every
    # report says it apart from the examples' own warnings (there are none here).
    assert (report["run_warnings"], report["warnings"]) == ([review, why], [])
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert f"|\n\n**Warning**: {review}.\n\n**Warning**: {why}.\n" in markdown
    summary = f"gate hit_rate >= 0.9: ok (1 >= 0.9)\nwarning: {review}\nwarning: {why}\nPASS\n"
    assert said.out.endswith(summary)
    assert ET.parse(tmp_path / "r.xml").findtext("system-out", "").endswith(summary)
    # The figures are this run's, at k=5: kb-1 at rank 2 of 5 slots. The same lines without their
    # metadata (a hand-written golden set) give the same report, with no warning, and the same exit.
    assert means(report, "hit_rate", "precision", "recall", "mrr") == {
        "hit_rate": 1.0, "precision": 0.2, "recall": 1.0, "mrr": 0.5}
    hand_written = replayed_report(tmp_path, [captured("t1", None), captured("t2", None)],
                                   "--gate", "hit_rate=0.9")
    assert capsys.readouterr().err == ""
    assert hand_written == {**report, "run_warnings": []}
    # The flag named gives the sidecar's figures (kb-1 outside the top 1), and says nothing more.
    at_one = replayed_report(tmp_path, lines, "--gate", "hit_rate=0.9", "--k", "1", status=1)
    assert capsys.readouterr().err == warned(review)
    assert at_one["run_warnings"] == [review]
    assert means(at_one, "hit_rate", "precision", "recall", "mrr") == {
        "hit_rate": 0.0, "precision": 0.0, "recall": 0.0, "mrr": 0.0}


def test_a_capture_judged_at_another_lexical_threshold_says_so_and_names_the_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Replay never read metadata.judge_settings: a sidecar's --lexical-threshold 0.5 replayed at 0.56.
    lines = [captured("t1", sidecar(5, 0.5), ON_THE_BORDER)]
    report = replayed_report(tmp_path, lines)
    why = ("1 example was captured by a sidecar at --lexical-threshold 0.5, this run is at "
           "--lexical-threshold 0.56: its claim verdicts and the figures made of them (groundedness, "
           "hallucination_rate, ...) are not the sidecar's (pass --lexical-threshold 0.5 to score as it did)")
    review = unreviewed(tmp_path, 1, "line 1")
    no_gate = "no --gate given: the run passes whatever the figures"
    assert capsys.readouterr().err == warned(review, why, no_gate)
    assert report["run_warnings"] == [review, why]
    assert means(report, "groundedness") == {"groundedness": 0.0}      # 2 of 4 terms: short of 0.56
    # --quiet keeps it off the terminal, as the other warnings; the reports still say it.
    quiet = replayed_report(tmp_path, lines, "--quiet", "--gate", "groundedness=0")
    assert quiet["run_warnings"] == [review, why]
    assert capsys.readouterr().err == ""
    # A threshold set by its variable is named by it; the sidecar's threshold says nothing more.
    monkeypatch.setenv("RAGMON_LEXICAL_THRESHOLD", "0.6")
    [_, warning] = replayed_report(tmp_path, lines, "--gate", "groundedness=0")["run_warnings"]
    assert "this run is at RAGMON_LEXICAL_THRESHOLD 0.6 (--lexical-threshold):" in warning
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0", "--lexical-threshold", "0.5")
    assert (report["run_warnings"], means(report, "groundedness")) == ([review], {"groundedness": 1.0})


def test_a_capture_scored_with_other_scoring_rules_says_no_flag_gives_the_sidecars_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A sidecar of another build (its claims, verdicts or metrics computed otherwise, ragmon.rules) had
    # captured these: replayed after an upgrade, the figures differ from the dashboard's with every flag
    # equal. Counted by the rules each line records; this run's rules, or none recorded, say nothing.
    older, newer = SCORING_RULES + 1, SCORING_RULES + 2
    lines = [captured("t1", {**sidecar(5, 0.56), "scoring_rules": older}),
             captured("t2", {**sidecar(5, 0.56), "scoring_rules": older}),
             captured("t3", {**sidecar(5, 0.56), "scoring_rules": SCORING_RULES}),
             captured("t4", sidecar(5, 0.56)),
             captured("t5", {"scoring_rules": older}),                # no capture's metadata: a tool's own
             # Reviewed into a golden set: its figures are the run's to gate on, not a sidecar's.
             edited(captured("t6", {**sidecar(5, 0.56), "scoring_rules": older}), needs_review=False)]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0.5")
    why = (f"2 examples were captured by a sidecar whose scoring rules were {older}, this run's are "
           f"{SCORING_RULES}: their claims, verdicts and figures may not be the sidecar's (replay with the "
           "ragmon the sidecar ran to score as it did; set needs_review to false on the lines you keep as a "
           "golden set, to silence this)")
    review = unreviewed(tmp_path, 5, "lines 1, 2, 3, 4, 5")     # t6, reviewed, is not
    assert capsys.readouterr().err == warned(review, why)
    assert report["run_warnings"] == [review, why]
    lines.append(captured("t7", {**sidecar(5, 0.56), "scoring_rules": newer}))
    [_, mixed] = replayed_report(tmp_path, lines, "--gate", "groundedness=0.5")["run_warnings"]
    assert mixed.startswith(f"3 examples were captured by a sidecar whose scoring rules were {older} (2 "
                            f"examples) or {newer} (1 example), this run's are {SCORING_RULES}: their ")


def test_a_capture_from_a_sidecar_whose_rules_moved_only_intervals_is_not_warned_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Rules 2 and 3 changed only aggregates' intervals, which a sidecar does not compute: a line captured by
    # a sidecar at rules 1 or 2 held the claims, verdicts and groundedness a rules-3 run gave it. (Rules 4
    # and 5 cut claims otherwise, so this build's PER_EXAMPLE_RULES is put back at 1 for the case.)
    monkeypatch.setattr("ragmon.rules.PER_EXAMPLE_RULES", 1)
    lines = [captured("t1", {**sidecar(5, 0.56), "scoring_rules": 1}),
             captured("t2", {**sidecar(5, 0.56), "scoring_rules": 2}),
             captured("t3", {**sidecar(5, 0.56), "scoring_rules": 1})]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0.5")
    review = unreviewed(tmp_path, 3, "lines 1, 2, 3")
    assert (capsys.readouterr().err, report["run_warnings"]) == (warned(review), [review])
    assert means(report, "groundedness") == {"groundedness": 1.0}


def test_a_capture_made_at_several_k_names_each_and_how_many_examples_this_run_scores_otherwise(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two captures joined, or a sidecar restarted with another --k: no single flag gives all its figures.
    lines = [captured("t1", sidecar(5, 0.56)), captured("t2", sidecar(3, 0.56)),
             captured("t3", sidecar(1, 0.56)), captured("t4", sidecar(1, 0.56))]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0.5")
    why = ("the examples were captured at mixed --k: --k 1 (2 examples), --k 3 (1 example), --k 5 "
           "(1 example); this run is at --k 5, so the retrieval figures (hit_rate, precision, recall, mrr, "
           "ndcg) of 3 examples are not the sidecar's (replay each --k apart, passing it, to score as the "
           "sidecar did)")
    review = unreviewed(tmp_path, 4, "lines 1, 2, 3, 4")
    assert capsys.readouterr().err == warned(review, why)
    assert report["run_warnings"] == [review, why]


def test_only_the_records_a_capture_made_at_other_settings_are_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [captured("t1", None),                                     # hand-written
             captured("t2", sidecar(5, 0.56)),                         # this run's settings
             captured("t3", {"k": 3}),                                 # a tool's own metadata, no capture's
             captured("t4", {"judge": "lexical", "judge_settings": {}}),   # captured before k was recorded
             captured("t5", {**sidecar(5, 0.56), "k": "three"}),       # a reviewer's edit: no --k value
             captured("t6", {**sidecar(5, 0.7), "judge": "claude"}),   # no lexical threshold
             captured("t7", sidecar(1, 0.56))]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0.5")
    # k recorded by t2 and t6 (5, this run's) and t7 (1); every threshold read is this run's 0.56. t4's
    # sidecar recorded none: its figures at 5 may not be the sidecar's either, which is said apart.
    why = ("the examples were captured at mixed --k: --k 1 (1 example), --k 5 (2 examples); this run is at "
           "--k 5, so the retrieval figures (hit_rate, precision, recall, mrr, ndcg) of 1 example are not "
           "the sidecar's (replay each --k apart, passing it, to score as the sidecar did)")
    unknown = ("1 example was captured by an older ragmon sidecar that did not record its --k: its "
               "retrieval figures (hit_rate, precision, recall, mrr, ndcg) are this run's at --k 5, which "
               "may not be the sidecar's (pass the sidecar's --k to score as it did, and to silence this "
               "warning)")
    # t4's sidecar recorded no scoring rules either (t3's metadata is no capture's). Each line with
    # metadata is marked for review, t1 alone is not: the warning names the first 5 lines of 6.
    review = unreviewed(tmp_path, 6, "lines 2, 3, 4, 5, 6 and 1 more")
    assert (report["run_warnings"], capsys.readouterr().err) == (
        [review, why, unknown, unruled(1)], warned(review, why, unknown, unruled(1)))
    assert report["examples"] == 7


def edited(line: str, **fields: Any) -> str:
    """`line` with `fields` set, or left out where None."""
    record = json.loads(line)
    for name, value in fields.items():
        if value is None:
            del record[name]
        else:
            record[name] = value
    return json.dumps(record) + "\n"


def test_examples_whose_retrieval_figures_are_the_same_at_any_k_are_not_counted_for_k(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A sidecar at --k 1 captured them; replayed at the default 5. Without relevant ids (as production
    # traces mostly are) the five retrieval figures are undefined at any k, and with nothing retrieved
    # they are 0 at any k: both had been counted, warning of retrieval figures that were the sidecar's.
    lines = [edited(captured("t1", sidecar(1, 0.56)), relevant_ids=None),
             edited(captured("t2", sidecar(1, 0.56)), contexts=[])]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0")
    review = unreviewed(tmp_path, 2, "lines 1, 2")
    assert (capsys.readouterr().err, report["run_warnings"]) == (warned(review), [review])
    assert means(report, "hit_rate", "precision") == {"hit_rate": 0.0, "precision": 0.0}   # t2's alone
    # One whose relevant kb-1 was retrieved (rank 2) is counted, alone: found at k 5, missed at k 1.
    report = replayed_report(tmp_path, [*lines, captured("t3", sidecar(1, 0.56))], "--gate", "groundedness=0")
    why = (f"1 example was captured by a sidecar at --k 1, this run is at --k 5: its {K_WHY} (pass --k 1 to "
           "score as it did)")
    review = unreviewed(tmp_path, 3, "lines 1, 2, 3")
    assert (capsys.readouterr().err, report["run_warnings"]) == (warned(review, why), [review, why])


def test_examples_no_judge_decides_are_not_counted_for_the_threshold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A sidecar at --lexical-threshold 0.5 captured them; replayed at the default 0.56. An abstention has
    # no claim, a retrieval with no answer neither, and the claims of an answer with nothing retrieved
    # are unsupported without a judge: no threshold moves their figures, yet each had been counted.
    lines = [captured("u1", sidecar(5, 0.5), "I don't know."),
             edited(captured("u2", sidecar(5, 0.5)), answer=None),
             edited(captured("u3", sidecar(5, 0.5)), contexts=[])]
    report = replayed_report(tmp_path, lines, "--gate", "hit_rate=0")
    review = unreviewed(tmp_path, 3, "lines 1, 2, 3")
    assert (capsys.readouterr().err, report["run_warnings"]) == (warned(review), [review])
    # u3's claim alone has a verdict: unsupported, as nothing was retrieved.
    assert report["aggregates"]["groundedness"] | {"ci": None} == {"mean": 0.0, "n": 1, "ci": None}
    # ON_THE_BORDER's claim, judged against WARRANTY, is counted, alone.
    report = replayed_report(tmp_path, [*lines, captured("u4", sidecar(5, 0.5), ON_THE_BORDER)],
                             "--gate", "hit_rate=0")
    why = ("1 example was captured by a sidecar at --lexical-threshold 0.5, this run is at "
           "--lexical-threshold 0.56: its claim verdicts and the figures made of them (groundedness, "
           "hallucination_rate, ...) are not the sidecar's (pass --lexical-threshold 0.5 to score as it did)")
    review = unreviewed(tmp_path, 4, "lines 1, 2, 3, 4")
    assert (capsys.readouterr().err, report["run_warnings"]) == (warned(review, why), [review, why])


def claims_split(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the examples whose claims replay splits in the main process, in order, from now on."""
    split: list[str] = []

    def counted(example: Example) -> tuple[Claim, ...]:
        split.append(example.id)
        return example_claims(example)

    monkeypatch.setattr(replay_module, "example_claims", counted)
    return split


def test_a_capture_replayed_at_its_own_settings_splits_no_claims_to_check_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Whether a threshold changes an example's figures takes splitting its claims, in the main process
    # before scoring starts: done for every record before any value was compared, 20,000 records replayed
    # at their own settings spent 1.4 s on it, for no warning.
    split = claims_split(monkeypatch)
    lines = [captured("t1", sidecar(5, 0.56)), captured("t2", sidecar(5, 0.56), "I don't know.")]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0")
    first = unreviewed(tmp_path, 2, "lines 1, 2")
    assert (split, report["run_warnings"]) == ([], [first])
    # At another threshold, an abstention alone: it is checked, and counts for nothing; the records at
    # this run's 0.56 are not checked.
    lines.append(captured("u1", sidecar(5, 0.5), "I don't know."))
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0")
    second = unreviewed(tmp_path, 3, "lines 1, 2, 3")
    assert (split, report["run_warnings"]) == (["u1"], [second])
    # A judged claim at 0.5 warns, and the records at 0.56 are checked for the counts: t1's claim is
    # judged, t2, an abstention, is the same at any threshold and not counted.
    split.clear()
    lines.append(captured("u2", sidecar(5, 0.5), ON_THE_BORDER))
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0")
    why = ("the examples were captured at mixed --lexical-threshold: --lexical-threshold 0.5 (1 example), "
           "--lexical-threshold 0.56 (1 example); this run is at --lexical-threshold 0.56, so the claim "
           "verdicts and the figures made of them (groundedness, hallucination_rate, ...) of 1 example are "
           "not the sidecar's (replay each --lexical-threshold apart, passing it, to score as the sidecar "
           "did)")
    review = unreviewed(tmp_path, 4, "lines 1, 2, 3, 4")
    assert (split, report["run_warnings"]) == (["u1", "u2", "t1", "t2"], [review, why])
    assert capsys.readouterr().err == warned(first, second, review, why)


def test_an_older_capture_without_its_threshold_splits_no_claims_to_be_warned_of(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A lexical capture from before judge_settings (ragmon before 1 December 2026) is warned of whole:
    # counting exactly which of its records a judge decides split every record's claims before scoring
    # (20,000 records replayed 25% slower). Counted by their answer and contexts instead, none is split.
    split = claims_split(monkeypatch)
    older = {"k": 5, "judge": "lexical"}
    lines = [captured("o1", older), captured("o2", older, "I don't know."),
             edited(captured("o3", older), contexts=[])]
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0")
    # o1 and o2 (an abstention, counted as it has both) have an answer and contexts; o3 has no context.
    why = ("2 examples with an answer and contexts were captured by an older ragmon sidecar that did not "
           "record its --lexical-threshold: their claim verdicts and the figures made of them "
           "(groundedness, hallucination_rate, ...) are this run's at --lexical-threshold 0.56, which may "
           "not be the sidecar's (pass the sidecar's --lexical-threshold to score as it did, and to silence "
           "this warning)")
    # Nor did it record its scoring rules, which no flag gives.
    review = unreviewed(tmp_path, 3, "lines 1, 2, 3")
    assert (split, report["run_warnings"]) == ([], [review, why, unruled(3)])
    assert capsys.readouterr().err == warned(review, why, unruled(3))
    # The sidecar's threshold, given as the warning asks, silences its own warning.
    report = replayed_report(tmp_path, lines, "--gate", "groundedness=0", "--lexical-threshold", "0.5")
    assert (report["run_warnings"], capsys.readouterr().err) == (
        [review, unruled(3)], warned(review, unruled(3)))


def test_closed_stderr_does_not_turn_a_pass_into_a_breach(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # Started with file descriptor 2 closed (as some schedulers do), Python sets sys.stderr to None.
    # The gate holds (0.9778 >= 0.5), so the exit status must be 0, not a traceback's 1.
    done = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *ragmon_cmd, "replay", str(GOLDEN),
                           "--gate", "groundedness=0.5"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "PASS"
    # Notes meant for stderr (no gate given; a deterministic judge scored once, not twice) go nowhere:
    # print(file=None) would have put them on stdout, into the summary.
    done = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *ragmon_cmd, "replay", str(GOLDEN),
                           "--repeat", "2"], cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert "warning" not in done.stdout and "deterministic" not in done.stdout
    assert done.stdout.splitlines()[-1] == "PASS (no gates given)"


@pytest.mark.parametrize(("gate", "status"), [("groundedness=0.5", 0), ("groundedness=0.99", 1)])
def test_closed_stdout_prints_nothing_and_the_gates_decide(ragmon_cmd: list[str], tmp_path: Path, gate: str,
                                                           status: int) -> None:
    # Started with file descriptor 1 closed (`>&-`), Python sets sys.stdout to None: output discarded on
    # purpose, as with >/dev/null. The golden set's 0.9778 holds 0.5 (exit 0) and breaches 0.99 (exit 1).
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *ragmon_cmd, "replay", str(GOLDEN),
                           "--gate", gate, "--json", "r.json"], cwd=tmp_path, env=clean_env(),
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (status, "", "")
    assert json.loads((tmp_path / "r.json").read_text())["passed"] is (status == 0)


# --- every report agrees with the exit status -----------------------------------------------------


def test_an_error_replaces_the_previous_runs_reports(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # A green run, then one whose dataset is missing (exit 2): an `if: always()` step publishing the same
    # paths must not show the first run's pass as the second's.
    summary = tmp_path / "summary.md"
    out = tmp_path / "out"
    reports = ("--json", out / "r.json", "--markdown", out / "r.md", "--junit", out / "r.xml")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", *reports, cwd=tmp_path, env=env
                  ).returncode == 0
    green = summary.read_text()
    missing = tmp_path / "missing.jsonl"
    done = replay(ragmon_cmd, missing, "--gate", "groundedness=0.5", *reports, cwd=tmp_path, env=env)
    why = f"{missing}: cannot read dataset: No such file or directory"
    assert done.returncode == 2 and done.stderr.splitlines() == [f"ragmon replay: error: {why}"]
    assert json.loads((out / "r.json").read_text()) == {
        "report_format": 1, "ragmon_version": ragmon.__version__, "scoring_rules": SCORING_RULES, "judge": {},
        "k": None, "confidence": None,
        "examples": 0,
        "aggregates": {},
        "gates": [], "passed": False, "complete": False, "error": why, "baseline": None, "results": [],
        "skipped": [], "failed": [], "warnings": [], "run_warnings": []}
    suite = ET.parse(out / "r.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
    error = suite.find("testcase/error")
    assert error is not None and (error.get("type"), error.get("message")) == ("RunIncomplete", why)
    quoted = why.replace("http://", "http:&#8203;//")  # a bare URL in Markdown: no link (report tests)
    error_page = ("## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no gate "
                  f"was decided:\n\n> {quoted}\n")
    assert (out / "r.md").read_text() == error_page
    assert summary.read_text() == green + error_page  # appended, as GitHub keeps each step's summary


def test_a_report_that_cannot_be_written_turns_the_others_into_error_reports(ragmon_cmd: list[str],
                                                                           tmp_path: Path) -> None:
    # --json is written first and fine; --junit cannot be (a full disk, which no check before writing
    # can tell): exit 2, and the JSON report, already written green, must say the run did not complete.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--json", "r.json",
                  "--junit", "/dev/full", cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert (doc["passed"], doc["complete"]) == (False, False)
    assert doc["error"] == "/dev/full: cannot write report: No space left on device"
    assert done.stderr == f"ragmon replay: error: {doc['error']}\n"


def test_a_report_under_a_file_names_the_file_in_the_way(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # mkdir said "File exists", as if the report were in the way and not the file where its folder goes.
    (tmp_path / "reports").write_text("")
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--junit", "reports/ci/r.xml", "--quiet",
                  cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("ragmon replay: error: reports/ci/r.xml: cannot write report: reports is a file, "
                           "not a directory\n")


def test_a_report_path_that_is_a_directory_is_refused_before_anything_is_scored(ragmon_cmd: list[str],
                                                                                tmp_path: Path) -> None:
    # Before: every example was scored (a Claude run paid for), the table printed, and only then the
    # write failed, as "reports: cannot write report: Is a directory".
    (tmp_path / "reports").mkdir()
    done = replay(ragmon_cmd, GOLDEN, "--markdown", "reports", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: --markdown reports is a directory: name a file to write "
                           "the report to\n")
    assert list((tmp_path / "reports").iterdir()) == []


@pytest.mark.parametrize(("path", "end", "suggested"), [
    # `--junit reports/` in a fresh checkout, where `reports` does not exist yet: pathlib drops the slash,
    # and the run passed (exit 0) having written the JUnit XML to a file named `reports`, where the CI's
    # `reports/*.xml` finds nothing. With `reports` already there it was refused as a directory.
    ("reports/", "/", "reports/report.xml"),
    # `--junit reports/.` is `reports` to pathlib too: it had written a file of that name and passed.
    ("reports/.", ".", "reports/./report.xml"),
], ids=["slash", "dot-part"])
def test_a_report_path_naming_a_directory_by_its_end_is_refused(ragmon_cmd: list[str], tmp_path: Path,
                                                                 path: str, end: str, suggested: str) -> None:
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--junit", path, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"ragmon replay: error: argument --junit: '{path}' ends in '{end}', so it names a directory: name "
        f"the file to write the report to ({suggested}, say)")
    assert list(tmp_path.iterdir()) == []


def test_a_report_path_ending_in_a_slash_still_replaces_the_other_reports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Refused as a bad value for its flag, the command line's other reports are the previous run's: a
    # publishing step would show its pass, unless they are replaced, as for any refused command line.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.5", "--json", "r.json", "--quiet"]) == 0
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.5", "--json", "r.json",
                 "--markdown", "out/"]) == 2
    why = ("argument --markdown: 'out/' ends in '/', so it names a directory: name the file to write the "
           "report to (out/report.md, say)")
    assert capsys.readouterr().err.endswith(f"error: {why}\n")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert (doc["passed"], doc["complete"], doc["error"]) == (False, False, why)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.json"]


def test_an_empty_report_path_is_refused_not_read_as_the_working_directory(ragmon_cmd: list[str],
                                                                            tmp_path: Path) -> None:
    # `--json "$REPORT"` with the variable unset: pathlib reads "" as ".", and the error named ".".
    done = replay(ragmon_cmd, GOLDEN, "--json", "", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    last = done.stderr.splitlines()[-1]
    assert last == "ragmon replay: error: argument --json: empty: name the file to write"


def test_an_empty_dataset_name_is_refused_not_read_as_the_working_directory(ragmon_cmd: list[str],
                                                                           tmp_path: Path) -> None:
    # `ragmon replay "$GOLDEN"` with the variable unset: pathlib reads "" as ".", and the error was
    # "ragmon replay: error: cannot read dataset: Is a directory", naming no file at all.
    done = replay(ragmon_cmd, GOLDEN, "", "--gate", "groundedness=0.5", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == ("ragmon replay: error: argument DATASET: empty: name a dataset "
                                            "file, or - for standard input")


def test_a_report_that_cannot_be_made_is_refused_before_anything_is_scored(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # Found at the end, after every question was asked and scored (a live run of 8 questions, for nothing).
    (tmp_path / "afile").write_text("")
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--junit", "afile/r.xml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: afile/r.xml: cannot write report: afile is a file, not a "
                           "directory\n")


def test_a_report_name_too_long_for_the_file_system_is_one_error_line(ragmon_cmd: list[str],
                                                                       tmp_path: Path) -> None:
    # The check before the run raised the OSError itself: a traceback and "internal error".
    name = "r" * 300 + ".json"
    done = replay(ragmon_cmd, GOLDEN, "--json", name, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"ragmon replay: error: --json {name}: cannot write report: File name too long\n"


def test_the_json_report_is_written_without_copies_of_its_whole_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 answers of 100 KB, an emoji in each sentence: 325 MB at the peak without --json, 884 MB with it
    # (a 62 MB file), the whole text built as one string (4 bytes a character, for the emoji) and copied
    # four times. Here 20 answers of 20 KB: the report may add to the peak no more than 3 times its size.
    _without_ragmon_variables(monkeypatch)
    sentence = "Refunds are paid within forty business days of the request \U0001f600. "
    golden = write_rows(tmp_path / "golden.jsonl", [
        {"id": f"q{i}", "question": "When?", "contexts": ["Refunds take 30 days."], "answer": sentence * 280}
        for i in range(20)])
    peaks = {}
    for name, args in (("without", []), ("with", ["--json", str(tmp_path / "r.json")])):
        tracemalloc.start()
        try:
            assert main(["replay", str(golden), "--quiet", *args]) == 0
            peaks[name] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    size = (tmp_path / "r.json").stat().st_size
    assert size > 1_000_000
    assert peaks["with"] - peaks["without"] < 3 * size


def test_an_error_report_that_cannot_be_written_does_not_hide_the_error(ragmon_cmd: list[str],
                                                                       tmp_path: Path) -> None:
    # Bad input, and --json cannot be written (a full disk: no check before writing can tell): the user is
    # told of the bad input, the one thing to fix first, and the --markdown error report is still written.
    data = tmp_path / "bad.jsonl"
    data.write_text("{\n", encoding="utf-8")
    done = replay(ragmon_cmd, data, "--json", "/dev/full", "--markdown", "r.md", cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert f"{data}:1: invalid JSON" in done.stderr
    assert (tmp_path / "r.md").read_text().startswith("## ragmon replay: INCOMPLETE\n")


def test_a_bug_leaves_an_error_report_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> LexicalJudge:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(replay_module, "build_judge", broken)
    assert main(["replay", str(GOLDEN), "--json", str(tmp_path / "r.json"), "--quiet"]) == 2
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["passed"] is False
    assert doc["error"] == "internal error (a bug in ragmon): ZeroDivisionError: a bug"


@pytest.mark.parametrize(("args", "env"), [((), {}), ((), {"RAGMON_GATE": ""}), (("--quiet",), {}),
                                           (("--quiet",), {"RAGMON_GATE": ""}),
                                           (("--gate", "groundedness=0.5"), {})])
def test_a_run_without_gates_passes_with_a_warning(ragmon_cmd: list[str], tmp_path: Path,
                                                   args: tuple[str, ...], env: dict[str, str]) -> None:
    # Exit 0 as documented, but a CI variable left empty must not turn the gate off without a word: not
    # even with --quiet, which silences the run's output, not a warning about how it was set up.
    done = replay(ragmon_cmd, GOLDEN, *args, cwd=tmp_path, env=env)
    assert done.returncode == 0
    warned = "--gate" not in args
    assert done.stderr == ("ragmon replay: warning: no --gate given: the run passes whatever the figures\n"
                           if warned else "")
    assert done.stdout.splitlines()[-1:] == ([] if "--quiet" in args else
                                             ["PASS (no gates given)"] if warned else ["PASS"])


def test_the_step_summary_starts_its_heading_on_a_line_of_its_own(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # An earlier step's `printf "..." >> $GITHUB_STEP_SUMMARY` leaves its line without a newline: appended
    # as it was, "## ragmon replay: FAIL" became the end of that line, and GitHub showed no heading.
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    summary.write_text("earlier step", encoding="utf-8")
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.99", "--markdown", str(tmp_path / "r.md"),
                 "--quiet"]) == 1
    page = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert page.startswith("## ragmon replay: FAIL")
    assert summary.read_text(encoding="utf-8") == "earlier step\n\n" + page
    # A refused command line's error report too; one after a line that ended is appended as it is.
    summary.write_text("earlier step\n", encoding="utf-8")
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.99", "--k", "0"]) == 2
    assert summary.read_text(encoding="utf-8") == (
        "earlier step\n## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no "
        "gate was decided:\n\n> argument --k: must be at least 1: 0\n")
    summary.write_text("earlier step", encoding="utf-8")
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.99", "--k", "0"]) == 2
    assert summary.read_text(encoding="utf-8").startswith("earlier step\n\n## ragmon replay: INCOMPLETE\n")


def test_a_step_summary_in_a_directory_that_does_not_exist_is_a_wrong_variable(ragmon_cmd: list[str],
                                                                             tmp_path: Path) -> None:
    # GitHub Actions always names a file that exists; the directory was made (mkdir -p, anywhere, as root
    # in a container) and the run passed. A report flag's directory is still made: it is the job's own.
    summary = tmp_path / "missing" / "dir" / "summary.md"
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--json", "reports/new/r.json", "--quiet",
                  cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    why = (f"{summary}: cannot write the step summary ($GITHUB_STEP_SUMMARY): its directory {summary.parent} "
           f"does not exist (GitHub Actions names a file that exists: the variable is set wrong)")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ragmon replay: error: {why}\n")
    assert not (tmp_path / "missing").exists()
    assert json.loads((tmp_path / "reports" / "new" / "r.json").read_text())["error"] == why


@pytest.mark.parametrize(("summary", "why"), [
    ("missing/summary.md", "its directory missing does not exist (GitHub Actions names a file that exists: "
                           "the variable is set wrong)"),
    ("adir", "Is a directory"),
    ("afile/summary.md", "afile is a file, not a directory"),
], ids=["directory-missing", "a-directory", "under-a-file"])
def test_a_step_summary_that_cannot_be_written_is_refused_before_anything_is_scored(
        ragmon_cmd: list[str], tmp_path: Path, summary: str, why: str) -> None:
    # Found only when it was written, after every example was read and scored (11-20 s on 100,000
    # examples, every Claude verdict paid for), then exit 2; a report path that cannot be written was
    # refused at once. Refused before the dataset is read, a line of it that is no JSON is not reached.
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    (tmp_path / "golden.jsonl").write_text(GOLDEN.read_text(encoding="utf-8") + "{\n", encoding="utf-8")
    done = replay(ragmon_cmd, "golden.jsonl", "--gate", "groundedness=0.5", "--json", "r.json", cwd=tmp_path,
                  env={"GITHUB_STEP_SUMMARY": summary})
    error = f"{summary}: cannot write the step summary ($GITHUB_STEP_SUMMARY): {why}"
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ragmon replay: error: {error}\n")
    assert json.loads((tmp_path / "r.json").read_text())["error"] == error


def test_a_report_on_a_read_only_mount_is_refused_as_read_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # `mount -o ro`: `--json ro/r.json` was refused as "Permission denied (in ro)", even as root, where the
    # step summary on the same mount said "Read-only file system". A mount needs root: the directory is
    # shown here as one is, access(2) refusing to write and statvfs flagging it read-only.
    _without_ragmon_variables(monkeypatch)
    monkeypatch.chdir(tmp_path)
    mount = tmp_path / "ro"
    mount.mkdir()
    access, statvfs = os.access, os.statvfs

    def on_mount(path: Any) -> bool:
        return Path(path).resolve() == mount

    def read_only_access(path: Any, mode: int, **kwargs: Any) -> bool:
        return not mode & os.W_OK if on_mount(path) else access(path, mode, **kwargs)

    def read_only_statvfs(path: Any) -> Any:
        found = statvfs(path)
        return type("Mounted", (), {"f_flag": found.f_flag | os.ST_RDONLY})() if on_mount(path) else found

    monkeypatch.setattr(os, "access", read_only_access)
    monkeypatch.setattr(os, "statvfs", read_only_statvfs)
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.5", "--json", "ro/r.json", "--quiet"]) == 2
    assert capsys.readouterr().err == ("ragmon replay: error: ro/r.json: cannot write report: Read-only file "
                                       "system (in ro)\n")


@pytest.mark.parametrize("named", ["dataset", "stdin", "baseline"])
def test_a_step_summary_naming_an_input_is_refused_and_the_input_left_whole(ragmon_cmd: list[str],
                                                                          tmp_path: Path, named: str) -> None:
    # Before: the Markdown report was appended to the golden set (17 lines -> 62, the next run failing on
    # line 18) or to the --baseline, and the run passed.
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    baseline = tmp_path / "base.json"
    assert replay(ragmon_cmd, golden, "--json", baseline, "--quiet", cwd=tmp_path).returncode == 0
    kept = {path: path.read_bytes() for path in (golden, baseline)}
    summary, what, args = {
        "dataset": (golden, "a dataset", [golden]),
        "stdin": (golden, "a dataset", ["-"]),
        "baseline": (baseline, "the --baseline file", [golden, "--baseline", baseline, "--max-drop",
                                                        "groundedness=0.1"]),
    }[named]
    with golden.open("rb") as stdin:
        done = subprocess.run([*ragmon_cmd, "replay", *map(str, args), "--gate", "groundedness=0.5", "--json",
                               "r.json"], cwd=tmp_path, stdin=stdin, capture_output=True, text=True,
                              env={**clean_env(), "GITHUB_STEP_SUMMARY": str(summary)}, timeout=60)
    why = (f"$GITHUB_STEP_SUMMARY ({summary}) is {what} of this run: the Markdown report would be appended "
           f"to it (the variable is set wrong)")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ragmon replay: error: {why}\n")
    assert {path: path.read_bytes() for path in kept} == kept
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["error"] == why


def test_replay_help_names_the_exit_statuses_the_gate_names_and_the_record_fields(ragmon_cmd: list[str],
                                                                                tmp_path: Path) -> None:
    # A CI job is written against these; the metric names were told only by a typo's error.
    done = replay(ragmon_cmd, "--help", cwd=tmp_path, env={"COLUMNS": "300"})
    assert done.returncode == 0
    assert done.stdout.split("\n\n")[-2].splitlines() == [
        "exit: 0 gates held, 1 breached, 2 could not complete; 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP",
        "--gate/--max-drop metrics (hallucination_rate a maximum, the rest minima): hit_rate, precision, "
        "recall, mrr, ndcg, groundedness, hallucination_rate, citation_accuracy, citation_coverage, "
        "context_utilisation, answer_relevance, answer_correctness, abstention",
        "ragmon JSONL record: id, question, contexts [{id, text, score}], answer, relevant_ids, citations, "
        "ground_truth, category, pipeline"]


def test_the_record_fields_replay_help_names_are_the_ones_read() -> None:
    named = replay_module.EPILOG.splitlines()[-1].partition(": ")[2]
    assert set(re.findall(r"\w+", named.replace("[{id, text, score}]", ""))) == RAGMON_FIELDS


def test_the_step_summary_stays_under_githubs_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 250 examples, each answering 5 sentences of ~990 characters the context does not hold: quoted in
    # full with their reasons, --worst 250 asks for ~250 x 5 x 1.1 KB = ~1.4 MB of Markdown. The file is
    # cut to a PR comment's 65,536 characters, whole examples, and says how many were left out; the step
    # summary gets the same.
    words = " ".join(f"zebra{j}" for j in range(140))  # 140 x 7 characters, less the last space: 979
    answer = " ".join(f"Sentence {n} {words}." for n in range(5))
    data = tmp_path / "long.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": "Q?", "answer": answer,
                                        "contexts": [{"id": "d", "text": "Returns are accepted."}]}) + "\n"
                            for i in range(250)), encoding="utf-8")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    page = tmp_path / "r.md"
    assert main(["replay", str(data), "--worst", "250", "--markdown", str(page), "--quiet"]) == 0
    whole = page.read_text(encoding="utf-8")
    assert len(whole) <= 65_536 and summary.read_text(encoding="utf-8") == whole
    # Each example takes ~5 x (990 + reason) characters: 7 of the 250 fit, 243 are counted out.
    assert whole.endswith("243 weakest examples left out here. The JSON report (`--json`) lists every "
                          "example.*\n")



@pytest.mark.parametrize(("argv", "env", "why"), [
    (["--target-concurrency", "0"], {}, "argument --target-concurrency: must be at least 1: 0"),
    (["--targt", "http://candidate/ask"], {},
     "unrecognized arguments: --targt http://candidate/ask (did you mean --target for --targt?)"),
    ([], {"RAGMON_K": "0"}, "RAGMON_K='0': must be at least 1: 0"),
], ids=["bad-value", "unknown-flag", "bad-environment-value"])
def test_a_refused_command_line_replaces_the_previous_runs_reports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], env: dict[str, str], why: str) -> None:
    # A green run, then the same CI step with a flag argparse refuses (exit 2 before any run): its reports
    # must not stay behind to be published as this run's. The report flags parsed (here in both the
    # --flag PATH and --flag=PATH forms, and from RAGMON_JUNIT), so the error reports go there.
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("RAGMON_JUNIT", str(tmp_path / "r.xml"))
    reports = ["--json", str(tmp_path / "r.json"), f"--markdown={tmp_path / 'r.md'}"]
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.5", *reports, "--quiet"]) == 0
    green = summary.read_text()
    assert json.loads((tmp_path / "r.json").read_text())["passed"] is True
    capsys.readouterr()

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["replay", str(GOLDEN), "--gate", "groundedness=0.5", *reports, *argv]) == 2
    err = capsys.readouterr().err
    # argparse's own, as before; a bad variable without the usage, which says nothing of it
    assert err.startswith("usage: ragmon") is not bool(env) and err.endswith(f"error: {why}\n")
    assert json.loads((tmp_path / "r.json").read_text()) == {
        "report_format": 1, "ragmon_version": ragmon.__version__, "scoring_rules": SCORING_RULES, "judge": {},
        "k": None, "confidence": None,
        "examples": 0,
        "aggregates": {},
        "gates": [], "passed": False, "complete": False, "error": why, "baseline": None, "results": [],
        "skipped": [], "failed": [], "warnings": [], "run_warnings": []}
    quoted = why.replace("http://", "http:&#8203;//")  # a bare URL in Markdown: no link (report tests)
    error_page = ("## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no gate "
                  f"was decided:\n\n> {quoted}\n")
    assert (tmp_path / "r.md").read_text() == error_page
    assert summary.read_text() == green + error_page
    error = ET.parse(tmp_path / "r.xml").getroot().find("testcase/error")
    assert error is not None and (error.get("type"), error.get("message")) == ("RunIncomplete", why)


def test_a_refused_command_line_writes_no_report_where_its_report_flags_are_in_doubt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # `--ju claude` is ambiguous (--judge, --judge-errors or --junit): argparse refuses it, and no JUnit
    # report may appear in a file named "claude". `--json` with no path names no file at all.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["replay", str(GOLDEN), "--ju", "claude"]) == 2
    assert main(["replay", str(GOLDEN), "--json"]) == 2
    assert "ambiguous option: --ju could match" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_refused_command_line_never_overwrites_a_file_that_is_no_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `ragmon replay --json golden.jsonl` (meaning "the input is JSON") is refused (no DATASET), and the
    # flag swallowed the golden set: it must stay as it was. An empty file and a ragmon report are
    # replaced as any report is.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    assert main(["replay", "--json", str(golden)]) == 2
    assert golden.read_bytes() == GOLDEN.read_bytes()
    notes, empty, old_report = tmp_path / "notes.md", tmp_path / "empty.xml", tmp_path / "old.md"
    notes.write_text("# release notes\n", encoding="utf-8")
    empty.write_bytes(b"")
    old_report.write_text("## ragmon replay: PASS\n", encoding="utf-8")
    assert main(["replay", "--markdown", str(notes), "--junit", str(empty), "--k", "0", str(GOLDEN)]) == 2
    assert notes.read_text(encoding="utf-8") == "# release notes\n"
    assert ET.parse(empty).getroot().get("errors") == "1"
    assert main(["replay", "--markdown", str(old_report), "--k", "0", str(GOLDEN)]) == 2
    assert old_report.read_text(encoding="utf-8").startswith("## ragmon replay: INCOMPLETE")


def test_a_refused_command_line_with_a_report_on_a_pipe_exits_instead_of_waiting(ragmon_cmd: list[str],
                                                                                tmp_path: Path) -> None:
    # `--json /dev/stdout | jq ...` and a mistyped flag: to see whether /dev/stdout held an earlier
    # report, the refused command line read it, and reading a pipe whose writer is the process itself
    # waited forever (a CI job hung until its timeout). A pipe holds no earlier report: the error report
    # goes there, as any run's report would.
    done = subprocess.run([*ragmon_cmd, "replay", str(GOLDEN), "--json", "/dev/stdout", "--bogus"],
                          cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.endswith("error: unrecognized arguments: --bogus\n")
    assert json.loads(done.stdout) == {
        "report_format": 1, "ragmon_version": ragmon.__version__, "scoring_rules": SCORING_RULES, "judge": {},
        "k": None, "confidence": None,
        "examples": 0,
        "aggregates": {},
        "gates": [], "passed": False, "complete": False, "error": "unrecognized arguments: --bogus",
        "baseline": None, "results": [], "skipped": [], "failed": [], "warnings": [], "run_warnings": []}


def test_a_refused_command_line_with_two_reports_on_one_pipe_writes_the_first_ones_alone(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # `--json /dev/stdout --junit /dev/stdout --bogus | jq`: the pipe got the JSON error report and then
    # the JUnit one, a stream no reader parses, where a run refused for the same pipe gives the JSON alone.
    done = replay(ragmon_cmd, GOLDEN, "--json", "/dev/stdout", "--junit", "/dev/stdout", "--bogus",
                  cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith("error: unrecognized arguments: --bogus\n")
    doc = json.loads(done.stdout)
    assert (doc["complete"], doc["error"], doc["examples"]) == (False, "unrecognized arguments: --bogus", 0)


def test_a_failed_run_never_overwrites_the_golden_set_its_json_flag_swallowed(ragmon_cmd: list[str],
                                                                              tmp_path: Path) -> None:
    # `--json golden.jsonl` meant "the input is JSON": the flag took the golden set as the report's path,
    # and the run read last run's report as its dataset and stopped (exit 2). Its error report took the
    # golden set's place. A file that is no ragmon report is left as it is; an earlier report is replaced.
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    old = tmp_path / "report.json"
    assert replay(ragmon_cmd, GOLDEN, "--json", old, "--quiet", cwd=tmp_path).returncode == 0
    done = replay(ragmon_cmd, "--gate", "groundedness=0.5", "--json", golden, "--junit", "r.xml", old,
                  cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (f"ragmon replay: error: {old}:1: the line's object is a ragmon replay JSON "
                           "report, not a dataset: give it as --baseline to compare a run with it; its "
                           "results hold no contexts or answers to score\n")
    assert golden.read_bytes() == GOLDEN.read_bytes()
    assert ET.parse(tmp_path / "r.xml").getroot().get("errors") == "1"


def test_a_report_is_never_written_over_an_input_or_another_report(ragmon_cmd: list[str],
                                                                   tmp_path: Path) -> None:
    # Each is refused before anything is scored, exit 2, the file named; the golden set stays as it was.
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    done = replay(ragmon_cmd, golden, "--gate", "groundedness=0.5", "--markdown", golden, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"ragmon replay: error: --markdown {golden} is a dataset of this run: the report "
                           f"would overwrite it (--markdown names the report to write)\n")
    assert golden.read_bytes() == GOLDEN.read_bytes()
    done = replay(ragmon_cmd, golden, "--json", "out", "--junit", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("ragmon replay: error: --json and --junit both write to out: give each report a "
                           "file of its own\n")


@pytest.mark.parametrize("extra", [(), ("--bogus",)], ids=["refused-path", "refused-command-line"])
def test_a_file_two_flags_name_gets_the_first_flags_error_report_whether_it_existed_or_not(
        ragmon_cmd: list[str], tmp_path: Path, extra: tuple[str, ...]) -> None:
    # `--json s.out --junit s.out`: with no s.out yet, the file was left holding the JUnit error report;
    # run again with it there, the JSON one. The first flag's, as for a pipe, either way.
    for run in ("s.out not yet written", "s.out there"):
        done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--json", "s.out", "--junit", "s.out",
                      *extra, cwd=tmp_path)
        assert done.returncode == 2, run
        doc = json.loads((tmp_path / "s.out").read_text(encoding="utf-8"))
        assert (doc["complete"], doc["error"]) == (False, "unrecognized arguments: --bogus" if extra else
                                                   "--json and --junit both write to s.out: give each "
                                                   "report a file of its own"), run


def test_two_reports_into_one_pipe_are_refused_and_it_gets_one_error_report(ragmon_cmd: list[str],
                                                                             tmp_path: Path) -> None:
    # `--json /dev/stdout --junit /dev/fd/1 | jq`: the pipe got the JSON report and then the JUnit XML, a
    # stream no reader parses, and the run exited 0. Refused before scoring, as for one file: the reader
    # gets the JSON error report alone (capture_output makes standard output a pipe).
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--quiet", "--json", "/dev/stdout",
                  "--junit", "/dev/fd/1", cwd=tmp_path)
    refusal = "--json /dev/stdout and --junit /dev/fd/1 are the same file: give each report a file of its own"
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: {refusal}\n")
    doc = json.loads(done.stdout)
    assert (doc["complete"], doc["error"], doc["examples"]) == (False, refusal, 0)
    # A device is no pipe: what is written to /dev/null is read by no one, and every report may go there.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--quiet", "--json", "/dev/null",
                  "--junit", "/dev/null", "--markdown", "/dev/null", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_two_reports_into_stdout_redirected_to_a_file_leave_one_error_report(ragmon_cmd: list[str],
                                                                            tmp_path: Path) -> None:
    # `--json /dev/stdout --junit /dev/stdout > out.txt`: refused as for a pipe, exit 2; the file had held
    # the JSON error report and the JUnit one after it (each written through the descriptor), which
    # neither json.load nor an XML parser reads. It holds the JSON error report alone.
    out = tmp_path / "out.txt"
    with out.open("w", encoding="utf-8") as stdout:
        done = subprocess.run([*ragmon_cmd, "replay", str(GOLDEN), "--gate", "groundedness=0.5", "--json",
                               "/dev/stdout", "--junit", "/dev/stdout"], cwd=tmp_path, env=clean_env(),
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60)
    refusal = "--json and --junit both write to /dev/stdout: give each report a file of its own"
    assert (done.returncode, done.stderr) == (2, f"ragmon replay: error: {refusal}\n")
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert (doc["complete"], doc["error"], doc["examples"]) == (False, refusal, 0)


def test_a_report_to_stdout_is_all_the_pipe_gets_and_the_summary_goes_to_stderr(ragmon_cmd: list[str],
                                                                               tmp_path: Path) -> None:
    # `--json /dev/stdout | jq`, as the error for `--json -` advises: the summary followed the JSON on the
    # same pipe, and jq failed on it. The golden set's 0.9778 holds groundedness=0.5.
    done = replay(ragmon_cmd, GOLDEN, "--gate", "groundedness=0.5", "--json", "/dev/stdout", cwd=tmp_path)
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert (doc["passed"], doc["examples"], doc["gates"][0]["value"]) == (True, 17, 0.977777777778)
    assert "gate groundedness >= 0.5: ok (0.9778 >= 0.5)" in done.stderr
    assert done.stderr.splitlines()[-1] == "PASS"


@pytest.mark.parametrize(("stream", "redirect"), [("/dev/stdout", ">>"), ("/dev/stderr", "2>>")])
def test_a_report_to_a_stream_appended_to_a_log_keeps_the_log(ragmon_cmd: list[str], tmp_path: Path,
                                                               stream: str, redirect: str) -> None:
    # `--junit /dev/stdout >> ci.log`: opened again by name, the log was truncated, its earlier lines lost.
    log = tmp_path / "ci.log"
    log.write_text("earlier step's line\n", encoding="utf-8")
    done = subprocess.run(["sh", "-c", f'exec "$@" {redirect} ci.log', "sh", *ragmon_cmd, "replay",
                           str(GOLDEN), "--gate", "groundedness=0.5", "--junit", stream], cwd=tmp_path,
                          env=clean_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    earlier, _, report = log.read_text(encoding="utf-8").partition("\n")
    assert earlier == "earlier step's line"
    suite = ET.fromstring(report)
    case = suite.find("testcase")
    assert case is not None and case.get("name") == "groundedness >= 0.5"
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")


def test_a_report_path_from_the_environment_is_named_by_its_variable(ragmon_cmd: list[str],
                                                                    tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    done = replay(ragmon_cmd, golden, "--json", "out", cwd=tmp_path, env={"RAGMON_JUNIT": "out"})
    assert (done.returncode, done.stderr) == (2, "ragmon replay: error: --json and RAGMON_JUNIT (--junit) "
                                                 "both write to out: give each report a file of its own\n")
    done = replay(ragmon_cmd, golden, cwd=tmp_path, env={"RAGMON_MARKDOWN": str(golden)})
    assert (done.returncode, done.stderr) == (
        2, f"ragmon replay: error: RAGMON_MARKDOWN {golden} (--markdown) is a dataset of this run: the "
           f"report would overwrite it (--markdown names the report to write)\n")
    assert golden.read_bytes() == GOLDEN.read_bytes()


def test_the_json_report_may_replace_the_baseline_it_was_compared_with(ragmon_cmd: list[str],
                                                                       tmp_path: Path) -> None:
    # A baseline that moves with each run: read before scoring, then replaced by this run's report.
    base = tmp_path / "main.json"
    assert replay(ragmon_cmd, GOLDEN, "--json", base, "--quiet", cwd=tmp_path).returncode == 0
    first = base.read_text(encoding="utf-8")
    done = replay(ragmon_cmd, GOLDEN, "--baseline", base, "--max-drop", "groundedness=0.02", "--json", base,
                  "--quiet", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    doc = json.loads(base.read_text(encoding="utf-8"))
    assert base.read_text(encoding="utf-8") != first and doc["baseline"]["shared"] == 17


# --- report paths refused: what a refused run leaves behind ------------------------------------------


def _refusal_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """golden.jsonl, headers.txt and main.json (a green run's JSON report, the baseline), in the cwd."""
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    Path("golden.jsonl").write_bytes(GOLDEN.read_bytes())
    Path("headers.txt").write_text("Authorization: Bearer not-a-real-token\n", encoding="utf-8")
    assert main(["replay", "golden.jsonl", "--json", "main.json", "--quiet"]) == 0
    return {name: Path(name).read_bytes() for name in ("golden.jsonl", "headers.txt", "main.json")}


@pytest.mark.parametrize("flag", ["json", "markdown", "junit"])
@pytest.mark.parametrize(("named", "extra", "why"), [
    ("golden.jsonl", [], "is a dataset of this run: the report would overwrite it"),
    ("headers.txt", ["--target", "http://127.0.0.1:9/ask", "--target-header-file", "headers.txt"],
     "is the --target-header-file file of this run: the report would overwrite it"),
    ("main.json", [], "is the --baseline file of this run: the report would overwrite it"),
    ("shared.out", [], "both write to shared.out"),
], ids=["dataset", "header-file", "baseline", "another-report"])
def test_a_refused_report_path_leaves_every_input_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        flag: str, named: str, extra: list[str], why: str) -> None:
    # `--markdown main.json` with `--baseline main.json` was refused (exit 2), then its Markdown error
    # report replaced the baseline: the next run had none to compare with. Every report flag, on every
    # input, and on another report's path: refused, and each input left byte for byte as it was.
    inputs = _refusal_setup(tmp_path, monkeypatch)
    capsys.readouterr()
    other = ["--junit" if flag == "json" else "--json", "shared.out"] if named == "shared.out" else []
    argv = ["replay", "golden.jsonl", "--gate", "groundedness=0.5", "--baseline", "main.json",
            "--max-drop", "groundedness=0.02", *extra, *other, f"--{flag}", named]
    if (flag, named) == ("json", "main.json"):  # a baseline that moves with each run: not refused
        assert main(argv) == 0
        doc = json.loads(Path("main.json").read_text(encoding="utf-8"))
        assert (doc["passed"], doc["baseline"]["path"], doc["baseline"]["shared"]) == (True, "main.json", 17)
        del inputs["main.json"]
    else:
        assert main(argv) == 2
        err = capsys.readouterr().err
        if named == "shared.out":
            first, second = sorted([flag, other[0][2:]], key=["json", "markdown", "junit"].index)
            assert err == (f"ragmon replay: error: --{first} and --{second} both write to shared.out: give "
                           f"each report a file of its own\n")
        else:
            assert err == (f"ragmon replay: error: --{flag} {named} {why} (--{flag} names the report to "
                           f"write)\n")
    assert {name: Path(name).read_bytes() for name in inputs} == inputs


ERROR_PAGE = ("## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no gate was "
              "decided:\n\n")


@pytest.mark.parametrize("flag", ["json", "markdown", "junit"])
def test_a_report_flag_naming_the_step_summary_is_refused_and_the_summary_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        flag: str) -> None:
    # With $GITHUB_STEP_SUMMARY set, the Markdown is appended there already: `--markdown
    # "$GITHUB_STEP_SUMMARY"` exited 0, truncating what earlier commands of the step had written and writing
    # the report twice, and `--json "$GITHUB_STEP_SUMMARY"` left JSON in the job summary. Refused (exit 2),
    # named here as a relative path of the same file; the error is appended as any Markdown is.
    _refusal_setup(tmp_path, monkeypatch)
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    capsys.readouterr()
    assert main(["replay", "golden.jsonl", "--gate", "groundedness=0.5", f"--{flag}", "summary.md"]) == 2
    why = (f"--{flag} summary.md is $GITHUB_STEP_SUMMARY, where the Markdown report already goes (appended "
           f"to the job summary): give --{flag} a file of its own, or drop it")
    assert capsys.readouterr().err == f"ragmon replay: error: {why}\n"
    assert summary.read_text(encoding="utf-8") == f"# earlier step\n{ERROR_PAGE}> \\{why}\n"


def test_a_refused_command_line_appends_to_the_step_summary_its_markdown_flag_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A mistyped flag, and `--markdown "$GITHUB_STEP_SUMMARY"` where an earlier replay of the step has
    # written its summary: that summary looked like a report to replace, and was truncated.
    _refusal_setup(tmp_path, monkeypatch)
    summary = tmp_path / "summary.md"
    summary.write_text("## ragmon replay: PASS\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["replay", "golden.jsonl", "--markdown", str(summary), "--bogus"]) == 2
    assert capsys.readouterr().err.endswith("error: unrecognized arguments: --bogus\n")
    assert summary.read_text(encoding="utf-8") == (f"## ragmon replay: PASS\n{ERROR_PAGE}> unrecognized "
                                                   f"arguments: --bogus\n")


@pytest.mark.parametrize(("links", "json_path", "junit_path"), [
    ({"link": "out"}, "out/r.json", "link/r.json"),     # a symlinked directory, neither file written yet
    ({"dangling": "r.json"}, "dangling", "r.json"),     # a symlink to a file not written yet
], ids=["linked-directory", "dangling-symlink"])
def test_two_report_paths_of_one_file_not_yet_written_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        links: dict[str, str], json_path: str, junit_path: str) -> None:
    # Compared as absolute paths, these were two files: exit 0, and only the JUnit report survived.
    _refusal_setup(tmp_path, monkeypatch)
    (tmp_path / "out").mkdir()
    for link, target in links.items():
        (tmp_path / link).symlink_to(target)
    capsys.readouterr()
    assert main(["replay", "golden.jsonl", "--gate", "groundedness=0.5", "--json", json_path,
                 "--junit", junit_path, "--quiet"]) == 2
    assert capsys.readouterr().err == (f"ragmon replay: error: --json {json_path} and --junit {junit_path} "
                                       f"are the same file: give each report a file of its own\n")


_HUNG_UP_WHILE_SCORING = """
import pathlib, sys, time
from ragmon import cli, replay
def scoring(*args, **kwargs):
    pathlib.Path("scoring").touch()
    time.sleep(60)
replay.score_runs = scoring
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_run_whose_terminal_closed_replaces_its_reports_and_exits_with_the_hangup(tmp_path: Path) -> None:
    # An ssh session dropped mid-run: the terminal is gone (writing to it fails) and SIGHUP comes. Before,
    # SIGHUP's default ended the process (-1), leaving the previous run's reports as this run's.
    for name in ("r.json", "r.md"):
        (tmp_path / name).write_text("", encoding="utf-8")
    terminal, side = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-c", _HUNG_UP_WHILE_SCORING, "replay", str(GOLDEN), "--gate", "groundedness=0.5",
         "--json", "r.json", "--markdown", "r.md"],
        cwd=tmp_path, env=clean_env(), stdin=subprocess.DEVNULL, stdout=side, stderr=side)
    os.close(side)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "scoring").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.close(terminal)
        child.send_signal(signal.SIGHUP)
        assert child.wait(timeout=60) == 129
    finally:
        child.kill()
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["error"] == "hung up (SIGHUP)"
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("## ragmon replay: INCOMPLETE\n")


def test_sigterm_inside_an_event_loop_cancels_the_work_and_leaves_no_task_behind(
        caplog: pytest.LogCaptureFixture) -> None:
    # A live replay or the Claude judge runs in asyncio.run. Raised at whatever bytecode runs, SIGTERM
    # left a task holding it ("Task exception was never retrieved", a traceback on stderr); handled as
    # Ctrl-C is, the main task is cancelled, its cleanup awaits, and Terminated comes out.
    cleaned = []

    async def ask(signalled: bool) -> None:  # one question of several asked at once
        try:
            if signalled:
                os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):
                await asyncio.sleep(0)
        finally:
            await asyncio.sleep(0)  # an `async with` closing a connection: it must get to run
            cleaned.append(signalled)

    async def work() -> None:
        await asyncio.gather(ask(False), ask(False), ask(True))  # the last to start: all have started

    asyncio_errors = caplog.at_level(logging.ERROR, logger="asyncio")
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    # As in a fresh process: asyncio.run takes Ctrl-C only over Python's default handler, whatever an
    # earlier test in this worker left.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with asyncio_errors, pytest.raises(Terminated), terminated_on_signal():
            asyncio.run(work())
        # Stopped: a repeat (`timeout` signals the process, then its group) must not kill it now.
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    gc.collect()  # a task holding an exception nobody retrieved says so when it is collected
    assert sorted(cleaned) == [False, False, True] and caplog.records == []


def test_sigterm_is_its_own_again_after_a_block_no_signal_stopped() -> None:
    with terminated_on_signal():
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_progress_names_the_work_it_counts_and_a_slow_rate_is_not_shown_as_zero() -> None:
    # Asking a live build: ~1 question every 2 s. Terminal: 3 done at 6 s is 0.5 questions/s, which
    # whole numbers would show as "0", as if the build had stalled. CI log: the line at 30 s.
    clock, terminal = ManualClock(), Terminal()
    asking = Progress(terminal, clock=clock, words=("asking", "asked", "questions"))
    clock.now = 6.0
    asking(3, 32)
    asking.close()
    assert terminal.getvalue() == "\rasking 3/32 (9%), 0.5 questions/s \n"
    log = io.StringIO()
    logged = Progress(log, clock=clock, words=("asking", "asked", "questions"))
    clock.now = 36.0
    logged(15, 32)
    assert log.getvalue() == "asked 15 of 32 questions\n"


# --- gating against a baseline run (--baseline, --max-drop) ---------------------------------------

INVENTED = "Purple elephants sing opera."
DROPS = ("--max-drop", "groundedness=0.02", "--max-drop", "hallucination_rate=0.03")


def golden_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def baseline_report(ragmon_cmd: list[str], tmp_path: Path, *args: str | Path) -> Path:
    """The golden set's JSON report, as main's CI run would leave it."""
    path = tmp_path / "main.json"
    done = replay(ragmon_cmd, GOLDEN, "--json", path, "--quiet", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return path


def test_a_baseline_asking_other_questions_under_the_same_ids_is_warned_of(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # A golden set renumbered: ids compared with questions they never asked read "unchanged" silently.
    main_json = baseline_report(ragmon_cmd, tmp_path)
    doc = json.loads(main_json.read_text(encoding="utf-8"))
    first, second = doc["results"][0], doc["results"][1]
    first["question"], second["question"] = second["question"], first["question"]
    main_json.write_text(json.dumps(doc), encoding="utf-8")
    done = replay(ragmon_cmd, GOLDEN, "--baseline", main_json, *DROPS, cwd=tmp_path)
    assert done.returncode == 0
    caveat = (f"the baseline {main_json} asked another question under 2 of the 17 ids both runs have "
              f"({first['id']!r}, say): examples are compared by id, so these compare different questions "
              "(was the golden set renumbered?)")
    assert done.stderr == f"ragmon replay: warning: {caveat}\n"
    # With --quiet nothing was said at all, and no report said it: now each does.
    quiet = replay(ragmon_cmd, GOLDEN, "--baseline", main_json, *DROPS, "--quiet", "--json", "r.json",
                   "--markdown", "r.md", cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert json.loads((tmp_path / "r.json").read_text())["baseline"]["caveats"] == [caveat]
    assert "**Warning**: the baseline " in (tmp_path / "r.md").read_text()


def test_an_unchanged_run_passes_against_its_baseline_and_its_report_is_the_next_baseline(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    main_json = baseline_report(ragmon_cmd, tmp_path)
    done = replay(ragmon_cmd, GOLDEN, "--baseline", main_json, *DROPS, "--json", "next.json", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")  # drop gates are gates: no "no --gate" warning
    lines = done.stdout.splitlines()
    # Groundedness (14 + 2/3) / 15 = 0.9778 in both runs, on the 15 examples with claims.
    assert "gate groundedness drop <= 0.02 vs baseline: ok (unchanged against the baseline: 0.9778 -> " \
           "0.9778 on 15 examples measured in both runs)" in lines
    assert f"baseline {main_json}: 17 examples in both runs, 0 new, 0 gone" in lines
    assert "regressed" not in done.stdout and lines[-1] == "PASS"
    # The report of a run gated on a baseline is itself a baseline. Another ragmon version with the same
    # scoring rules gives the same figures: nothing to say. Other rules, or none recorded (a report from
    # before ragmon recorded them), are a caveat: a drop may be ragmon's, not the candidate's.
    doc = json.loads((tmp_path / "next.json").read_text(encoding="utf-8"))
    assert doc["passed"] is True and doc["baseline"]["regressed"] == []
    doc["ragmon_version"] = "0.0.1"
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    done = replay(ragmon_cmd, GOLDEN, "--baseline", "old.json", *DROPS, cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout.splitlines()[-1]) == (0, "", "PASS")
    unrecorded = "a ragmon that did not record its scoring rules (before 4 December 2026)"
    older = PER_EXAMPLE_RULES - 1  # the rules before claims were last cut otherwise: every main.json then
    for recorded, scored_with in ((SCORING_RULES + 1, f"ragmon's scoring rules {SCORING_RULES + 1}"),
                                  (older, f"ragmon's scoring rules {older}"), (None, unrecorded)):
        doc["scoring_rules"] = recorded
        if recorded is None:  # the key absent, as a report before it has none
            del doc["scoring_rules"]
        (tmp_path / "other.json").write_text(json.dumps(doc), encoding="utf-8")
        done = replay(ragmon_cmd, GOLDEN, "--baseline", "other.json", *DROPS, "--json", "r.json",
                      cwd=tmp_path)
        caveat = (f"the baseline other.json was scored with {scored_with}, this run with rules "
                  f"{SCORING_RULES}: claims, the lexical judge's verdicts or a metric may be computed "
                  f"otherwise, so some drops and gains may be ragmon's, not this run's (a baseline scored by "
                  f"this ragmon compares like with like: refresh the baseline with this build on main first, "
                  f"as an upgrade of ragmon in a PR of its own changes no answer and its moves are ragmon's)")
        assert (done.returncode, done.stderr) == (0, f"ragmon replay: warning: {caveat}\n")
        assert json.loads((tmp_path / "r.json").read_text())["baseline"]["caveats"] == [caveat]
        # In the summary beside the gates, and so in the JUnit system-out, which --quiet leaves: a CI's
        # test tab had said nothing of it.
        assert f"\nwarning: {caveat}\n" in done.stdout
        quiet = replay(ragmon_cmd, GOLDEN, "--baseline", "other.json", *DROPS, "--quiet", "--junit", "r.xml",
                       cwd=tmp_path)
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
        assert f"\nwarning: {caveat}\n" in ET.parse(tmp_path / "r.xml").findtext("system-out", "")


def test_a_baseline_from_rules_that_score_examples_alike_gets_no_caveat(ragmon_cmd: list[str],
                                                                         tmp_path: Path) -> None:
    # Rules from PER_EXAMPLE_RULES on score each example alike (rules 2 and 3 changed only an aggregate's
    # interval): such a baseline has this run's per-example figures and means, and a drop gate reads the
    # paired changes of those, so every drop and gain is the candidate's. Rules before it warn (below).
    doc = json.loads(baseline_report(ragmon_cmd, tmp_path).read_text(encoding="utf-8"))
    for alike in range(PER_EXAMPLE_RULES, SCORING_RULES + 1):
        doc["scoring_rules"] = alike
        (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
        done = replay(ragmon_cmd, GOLDEN, "--baseline", "old.json", *DROPS, "--json", "r.json", cwd=tmp_path)
        assert (done.returncode, done.stderr, done.stdout.splitlines()[-1]) == (0, "", "PASS")
        assert json.loads((tmp_path / "r.json").read_text())["baseline"]["caveats"] == []
        assert "scoring rules" not in done.stdout


def test_a_drop_gate_breach_names_the_regressed_sentence_in_every_report(ragmon_cmd: list[str],
                                                                         tmp_path: Path) -> None:
    main_json = baseline_report(ragmon_cmd, tmp_path)
    rows = golden_rows()
    for row in rows:
        if row["id"] == "ret-001":  # 2 supported claims; an invented third makes it 2/3
            row["answer"] += f" {INVENTED}"
    candidate = write_rows(tmp_path / "candidate.jsonl", rows)
    summary = tmp_path / "summary.md"
    out = tmp_path / "out"
    reports = ("--json", out / "r.json", "--markdown", out / "r.md", "--junit", out / "r.xml")
    done = replay(ragmon_cmd, candidate, "--baseline", main_json, *DROPS, "--gate", "groundedness=0.9",
                  *reports, cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    # By hand: baseline (14 + 2/3) / 15 = 44/45 = 0.9778; now (13 + 2/3 + 2/3) / 15 = 43/45 = 0.9556, a drop
    # of 1/45 = 0.02222 > 0.02; hallucination rises by as much, <= 0.03; 0.9556 >= 0.9 holds. Exit 1.
    assert done.returncode == 1, done.stderr
    why = "dropped 0.02222 > 0.02 against the baseline: 0.9778 -> 0.9556 on 15 examples measured in both runs"
    lines = done.stdout.splitlines()
    assert lines[-1] == f"FAIL: groundedness {why}"
    assert "gate groundedness >= 0.9: ok (0.9556 >= 0.9)" in lines
    assert ("gate hallucination_rate rise <= 0.03 vs baseline: ok (rose 0.02222 <= 0.03 against the "
            "baseline: 0.02222 -> 0.04444 on 15 examples measured in both runs)") in lines
    start = lines.index("regressed examples (1 of 1 whose groundedness fell against the baseline):")
    # ref-001's weak sentence was unsupported in the baseline too: not a regression.
    assert lines[start + 1:start + 3] == ["  ret-001: groundedness 1 -> 0.6667", f'    "{INVENTED}"']

    doc = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert (doc["passed"], doc["complete"]) == (False, True)
    assert [(g["metric"], g["max_drop"], g["passed"]) for g in doc["gates"]] == [
        ("groundedness", None, True), ("groundedness", 0.02, False), ("hallucination_rate", 0.03, True)]
    assert [(r["id"], [c["text"] for c in r["newly_unsupported"]]) for r in doc["baseline"]["regressed"]] == [
        ("ret-001", [INVENTED])]
    assert doc["baseline"]["metrics"]["groundedness"]["delta"] == pytest.approx(-1 / 45)

    page = (out / "r.md").read_text(encoding="utf-8")
    assert page.startswith(f"## ragmon replay: FAIL: groundedness {why}\n")
    regressions = page[page.index("### Regressions against the baseline"):page.index("### Weakest")]
    assert "#### `ret-001`: groundedness 1 -> 0.6667" in regressions and f"> {INVENTED}\n" in regressions
    assert WEAK_SENTENCE not in regressions
    assert summary.read_text(encoding="utf-8") == page

    suite = ET.parse(out / "r.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "0")
    failure = suite.find("testcase[@name='groundedness drop <= 0.02 vs baseline']/failure")
    assert failure is not None and failure.text is not None
    assert "ret-001: groundedness 1 -> 0.6667" in failure.text and f'"{INVENTED}"' in failure.text

    # The same from the environment, as a CI job would set it; --confidence bounds the paired change:
    # one example of 15 down by 1/3 gives a lower 95% bound of -3/45 = -0.0667 or -4/45 = -0.0889 (worked
    # out in tests/test_gate.py), beyond a 0.05 allowance the mean's 0.0222 is within.
    env = {"RAGMON_BASELINE": str(main_json), "RAGMON_MAX_DROP": "groundedness=0.02,hallucination_rate=0.03"}
    from_env = replay(ragmon_cmd, candidate, cwd=tmp_path, env=env)
    assert from_env.returncode == 1 and from_env.stdout.splitlines()[-1] == f"FAIL: groundedness {why}"
    bounded = replay(ragmon_cmd, candidate, "--baseline", main_json, "--max-drop", "groundedness=0.05",
                     "--confidence", "0.95", cwd=tmp_path)
    assert bounded.returncode == 1
    assert re.match(r"FAIL: groundedness dropped 0\.0(6667|8889) > 0\.05 against the baseline at the lower "
                    r"95% bound of the change: means 0\.9778 -> 0\.9556", bounded.stdout.splitlines()[-1])


def test_a_growing_golden_set_is_compared_on_the_shared_examples(ragmon_cmd: list[str],
                                                                 tmp_path: Path) -> None:
    # The baseline lacked ret-002 and had old-001 (since removed); this run adds ret-002 and new-001, whose
    # one claim is unsupported. Shared: the other 16, 14 of them with claims, at (13 + 2/3) / 14 in both
    # runs: unchanged. Over each whole run the means are (14 + 2/3 + 0) / 16 = 0.9167 now against
    # (13 + 2/3 + 1) / 15 = 0.9778 then, a drop of 0.061 that adding a hard question is not.
    rows = golden_rows()
    old = {"id": "old-001", "question": "Do you ship abroad?", "answer": "We ship to 40 countries.",
           "contexts": [{"id": "pol-intl", "text": "We ship to 40 countries."}]}
    new = {"id": "new-001", "question": "Do you price match?", "answer": "We match any competitor's price.",
           "contexts": [{"id": "pol-returns", "text": "Returns are accepted."}]}
    before = write_rows(tmp_path / "before.jsonl", [row for row in rows if row["id"] != "ret-002"] + [old])
    assert replay(ragmon_cmd, before, "--json", "main.json", "--quiet", cwd=tmp_path).returncode == 0
    now = write_rows(tmp_path / "now.jsonl", [*rows, new])
    done = replay(ragmon_cmd, now, "--baseline", "main.json", *DROPS, "--json", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "baseline main.json: 16 examples in both runs, 2 new, 1 gone (old-001)" in done.stdout.splitlines()
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert doc["aggregates"]["groundedness"]["mean"] == pytest.approx((14 + 2 / 3) / 16)
    baseline = doc["baseline"]
    assert (baseline["shared"], baseline["new"], baseline["gone"]) == (16, 2, 1)
    assert baseline["gone_ids"] == ["old-001"]
    shared = pytest.approx((13 + 2 / 3) / 14)
    assert baseline["metrics"]["groundedness"] == {"baseline": shared, "candidate": shared, "delta": 0.0,
                                                   "n": 14, "n_baseline_only": 0, "n_candidate_only": 0,
                                                   "n_baseline_abstained": 0}


def test_an_incomparable_baseline_exits_2_before_scoring(ragmon_cmd: list[str], tmp_path: Path) -> None:
    main_json = baseline_report(ragmon_cmd, tmp_path, "--lexical-threshold", "0.5", "--k", "3")
    done = replay(ragmon_cmd, GOLDEN, "--baseline", main_json, *DROPS, "--json", "r.json", cwd=tmp_path)
    why = (f"{main_json}: the baseline is not comparable with this run: judge threshold 0.5 in the baseline, "
           f"{LexicalJudge().threshold} in this run; k 3 in the baseline, 5 in this run (score both with the "
           f"same judge, judge settings and --k)")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ragmon replay: error: {why}\n")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (doc["complete"], doc["passed"], doc["error"]) == (False, False, why)


@pytest.mark.parametrize("baseline", ["incomplete", "dataset"])
def test_a_baseline_that_is_no_finished_report_exits_2_naming_it(ragmon_cmd: list[str], tmp_path: Path,
                                                                 baseline: str) -> None:
    if baseline == "incomplete":  # main's run stopped on a missing dataset: its report says so
        missing = tmp_path / "missing.jsonl"
        assert replay(ragmon_cmd, missing, "--json", "main.json", cwd=tmp_path).returncode == 2
        path = tmp_path / "main.json"
        why = (f"{path}: the baseline run did not complete ({missing}: cannot read dataset: No such file or "
               f"directory), so it has no figures to compare with")
    else:  # the golden set given by mistake
        path = GOLDEN
        why = (f"{GOLDEN}:2: the baseline is not valid JSON (Extra data, column 1) (a value a line: JSON "
               f"Lines, a golden set?): give a report written by `ragmon replay --json`")
    done = replay(ragmon_cmd, GOLDEN, "--baseline", path, *DROPS, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"ragmon replay: error: {why}\n")


@pytest.mark.parametrize(("args", "env", "why"), [
    (("--max-drop", "groundedness=0.02"), {}, "--max-drop needs --baseline REPORT"),
    ((), {"RAGMON_MAX_DROP": "groundedness=0.02"}, "RAGMON_MAX_DROP (--max-drop) needs --baseline REPORT"),
    (("--max-drop", "groundedness=0.02"), {"RAGMON_BASELINE": ""}, "--max-drop needs --baseline REPORT"),
    (("--baseline", "main.json"), {}, "--baseline main.json needs --max-drop NAME=DELTA (repeatable)"),
    ((), {"RAGMON_BASELINE": "main.json"},
     "RAGMON_BASELINE main.json (--baseline) needs --max-drop NAME=DELTA (repeatable)"),
    (("--baseline", "main.json", "--max-drop", "groundedness"), {}, "--max-drop expects NAME=VALUE"),
])
def test_max_drop_and_baseline_need_each_other(ragmon_cmd: list[str], tmp_path: Path, args: tuple[str, ...],
                                               env: dict[str, str], why: str) -> None:
    baseline_report(ragmon_cmd, tmp_path)
    done = replay(ragmon_cmd, GOLDEN, *args, cwd=tmp_path, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"ragmon replay: error: {why}") and len(done.stderr.splitlines()) == 1


# --- `-`: the golden set (or the baseline) on standard input ------------------------------------------


def replay_piped(cmd: list[str], data: bytes, *args: str | Path,
                 cwd: Path) -> subprocess.CompletedProcess[str]:
    """`... | ragmon replay ARGS`: `data` comes through a pipe, as from `zcat golden.jsonl.gz`."""
    done = subprocess.run([*cmd, "replay", *map(str, args)], cwd=cwd, env=clean_env(), input=data,
                          capture_output=True, timeout=60)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_dash_reads_the_golden_set_from_standard_input(ragmon_cmd: list[str], tmp_path: Path,
                                                         compress: bool) -> None:
    # `zcat golden.jsonl.gz | ragmon replay -`, or the .gz itself piped in: the figures of the file.
    data = GOLDEN.read_bytes()
    done = replay_piped(ragmon_cmd, gzip.compress(data) if compress else data, "-", "--gate",
                        "groundedness=0.85", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert "gate groundedness >= 0.85: ok (0.9778 >= 0.85)" in done.stdout
    assert done.stdout.splitlines()[-1] == "PASS"


def test_standard_input_from_a_file_is_read_from_where_the_shell_left_it(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # `{ read -r first; ragmon replay -; } < golden.jsonl`: the shell took the first line, so ragmon sees
    # the other 16 examples; going back to the file's start read all 17.
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    with golden.open("rb", buffering=0) as stdin:
        while stdin.read(1) != b"\n":
            pass
        done = subprocess.run([*ragmon_cmd, "replay", "-", "--json", "out.json", "--quiet"], cwd=tmp_path,
                              env=clean_env(), stdin=stdin, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    first = json.loads(GOLDEN.read_text(encoding="utf-8").splitlines()[0])["id"]
    assert len(report["results"]) == 16 and first not in [r["id"] for r in report["results"]]


def test_an_error_on_standard_input_names_it_stdin_and_the_line(ragmon_cmd: list[str],
                                                                tmp_path: Path) -> None:
    # Line 3 lost its closing brace; "-" is no file name to look for.
    data = b'{"id": "a", "question": "q"}\n\n{"id": "b", "question": "q"\n'
    done = replay_piped(ragmon_cmd, data, "-", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: <stdin>:3: invalid JSON: the line ends before the value is "
                           "complete\n")


def test_a_gzipped_baseline_is_read_as_its_contents(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # main's report kept as a compressed CI artifact, from a file or piped in, as golden sets are read:
    # it was "not valid UTF-8 JSON".
    packed = tmp_path / "main.json.gz"
    packed.write_bytes(gzip.compress(baseline_report(ragmon_cmd, tmp_path).read_bytes()))
    named = replay(ragmon_cmd, GOLDEN, "--baseline", packed, *DROPS, cwd=tmp_path)
    piped = replay_piped(ragmon_cmd, packed.read_bytes(), GOLDEN, "--baseline", "-", *DROPS, cwd=tmp_path)
    for done in (named, piped):
        assert (done.returncode, done.stderr) == (0, "")
        lines = done.stdout.splitlines()
        assert any(line.endswith("17 examples in both runs, 0 new, 0 gone") for line in lines)
    packed.write_bytes(packed.read_bytes()[:30])  # cut short
    cut = replay(ragmon_cmd, GOLDEN, "--baseline", packed, *DROPS, cwd=tmp_path)
    assert cut.returncode == 2
    assert cut.stderr.startswith(f"ragmon replay: error: {packed}: the baseline is not valid gzip data (")


def test_a_dash_reads_the_baseline_from_standard_input(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # `curl .../main.json | ragmon replay golden.jsonl --baseline - ...`: the reports name it <stdin>.
    main_json = baseline_report(ragmon_cmd, tmp_path).read_bytes()
    done = replay_piped(ragmon_cmd, main_json, GOLDEN, "--baseline", "-", *DROPS, "--json", "next.json",
                        cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert "baseline <stdin>: 17 examples in both runs, 0 new, 0 gone" in done.stdout.splitlines()
    assert json.loads((tmp_path / "next.json").read_text(encoding="utf-8"))["baseline"]["path"] == "<stdin>"


@pytest.mark.parametrize("args", [("-", "-"), ("-", "--baseline", "-", *DROPS)], ids=["datasets", "baseline"])
def test_standard_input_named_twice_is_refused(ragmon_cmd: list[str], tmp_path: Path,
                                               args: tuple[str, ...]) -> None:
    # Read once, it would be empty the second time: "<stdin>: contains no examples" blames the data.
    done = replay_piped(ragmon_cmd, GOLDEN.read_bytes(), *args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: standard input (-) is named 2 times among the datasets and "
                           "--baseline: it can be read only once\n")


def test_a_report_over_the_file_standard_input_comes_from_is_refused(ragmon_cmd: list[str],
                                                                     tmp_path: Path) -> None:
    # `ragmon replay - --json golden.jsonl < golden.jsonl` would read the golden set, then write over it.
    golden = tmp_path / "golden.jsonl"
    golden.write_bytes(GOLDEN.read_bytes())
    with golden.open("rb") as stdin:
        done = subprocess.run([*ragmon_cmd, "replay", "-", "--json", "golden.jsonl"], cwd=tmp_path,
                              env=clean_env(), stdin=stdin, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("ragmon replay: error: --json golden.jsonl is a dataset of this run: the report "
                           "would overwrite it (--json names the report to write)\n")
    assert golden.read_bytes() == GOLDEN.read_bytes()


_SIGTERM_DROPPED_WHILE_SCORING = """
import atexit, os, signal, sys
from ragmon import cli
from ragmon.judges.lexical import LexicalJudge
class SigtermWhenCollected:  # tests/dropped_signals.py's: the handler's exception is dropped
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
judged = []
judge = LexicalJudge.judge
def judging(self, example, claims):
    if not judged:
        SigtermWhenCollected()
    judged.append(example.id)
    return judge(self, example, claims)
LexicalJudge.judge = judging
sys.unraisablehook = lambda unraisable: None
atexit.register(lambda: print(f"judged {len(judged)}", file=sys.stderr))
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_sigterm_python_dropped_stops_the_replay_at_the_next_example(tmp_path: Path) -> None:
    # Raised inside a finalizer, the signal's exception is dropped and the scoring went on: the run ended
    # as a SIGTERM only after its last example. The progress callback now checks after every example.
    golden_examples = len(GOLDEN.read_text(encoding="utf-8").splitlines())
    assert golden_examples >= 3
    done = subprocess.run([sys.executable, "-c", _SIGTERM_DROPPED_WHILE_SCORING, "replay", str(GOLDEN),
                           "--json", "r.json"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        143, "ragmon replay: terminated (SIGTERM): the reports say INCOMPLETE\njudged 1\n")
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["error"] == "terminated (SIGTERM)"


_SIGNALLED_WHILE_SCORING = """
import os, signal, sys, time
from ragmon import cli, replay
sig = signal.Signals[sys.argv[1]]
def scoring(*args, **kwargs):
    os.kill(os.getpid(), sig)
    time.sleep(60)
write = replay._write
def writing(*args, **kwargs):
    os.kill(os.getpid(), sig)  # again: `timeout` signals the process, then its process group
    write(*args, **kwargs)
replay.score_runs, replay._write = scoring, writing
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize(("sig", "status", "why"), [("SIGTERM", 143, "terminated (SIGTERM)"),
                                                    ("SIGHUP", 129, "hung up (SIGHUP)"),
                                                    ("SIGINT", 130, "interrupted")])
def test_a_signal_mid_run_is_told_in_the_log_and_its_repeat_does_not_stop_the_reports(
        tmp_path: Path, sig: str, status: int, why: str) -> None:
    # Before: a cancelled run left nothing in the CI log (exit 143, stderr empty); and the signal's repeat
    # while the reports were replaced ended the process there (SIGTERM: -15, with the previous run's
    # reports still in place), or interrupted the writing (Ctrl-C: some reports not replaced).
    for name in ("r.json", "r.md", "r.xml"):
        (tmp_path / name).write_text("", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_WHILE_SCORING, sig, "replay", str(GOLDEN), "--gate",
         "groundedness=0.5", "--json", "r.json", "--markdown", "r.md", "--junit", "r.xml"],
        cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stderr) == (status, f"ragmon replay: {why}: the reports say INCOMPLETE\n")
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["error"] == why
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("## ragmon replay: INCOMPLETE\n")
    assert f'message="{why}"' in (tmp_path / "r.xml").read_text(encoding="utf-8")


_SIGNALLED_AS_THE_VERDICT_SHOWS = signalled_as_it_prints("replay")


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_once_the_reports_are_written_leaves_the_runs_exit_status(tmp_path: Path, sig: str) -> None:
    # SIGTERM just as PASS reached the terminal: the reports were replaced with INCOMPLETE and the run
    # exited 143, or, a moment later, the process ended with 143, no word on stderr, reports saying PASS.
    done = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_AS_THE_VERDICT_SHOWS, sig, "replay", str(GOLDEN), "--gate",
         "groundedness=0.5", "--json", "r.json"], cwd=tmp_path, env=clean_env(), capture_output=True,
        text=True, timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stdout.splitlines()[-1:], done.stderr) == (0, ["PASS"], "")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (doc["complete"], doc["passed"]) == (True, True)


@pytest.mark.parametrize(("args", "summary", "sig", "status", "why"), [
    (("--json", "fifo"), False, "SIGINT", 130, "interrupted"),
    ((), True, "SIGTERM", 143, "terminated (SIGTERM)"),
    (("--json", "fifo", "--k", "0"), False, "SIGTERM", 143, "terminated (SIGTERM)"),
], ids=["json", "step-summary", "refused-command-line"])
def test_a_stop_signal_ends_a_run_waiting_on_a_pipe_nobody_reads(
        tmp_path: Path, args: tuple[str, ...], summary: bool, sig: str, status: int, why: str) -> None:
    # `mkfifo fifo; ragmon replay ... --json fifo` (or $GITHUB_STEP_SUMMARY a FIFO) with no reader: Ctrl-C,
    # SIGTERM and `timeout` broke the wait in open(), then the error report was written to the same FIFO
    # with every stop signal ignored, and only SIGKILL ended it. A refused command line held the signal
    # while it waited.
    os.mkfifo(tmp_path / "fifo")
    env = {**clean_env(), **({"GITHUB_STEP_SUMMARY": "fifo"} if summary else {})}
    child = subprocess.Popen(
        [sys.executable, "-c", marked_writes("replay", "_write"), "replay", str(GOLDEN), "--gate",
         "groundedness=0.5", "--quiet", *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Twice, as a user pressing Ctrl-C twice.
    exited, err = signalled_while_writing(child, tmp_path, getattr(signal, sig), times=2)
    assert exited == status
    # Nothing reached the pipe, so the line does not say "the reports say INCOMPLETE".
    assert err.splitlines()[-1] == f"ragmon replay: {why}"


def test_a_pipe_whose_reader_left_early_is_an_error_not_a_wait_for_another_reader(tmp_path: Path) -> None:
    # `mkfifo fifo; head -c 100 fifo & ragmon replay ... --json fifo`: the report's write failed (EPIPE),
    # then its error report was written to the same FIFO, waiting in open() for a reader that never came,
    # and the run hung until a signal; the error was never told. 300 examples: a report past the pipe's
    # 64 KB, so that it cannot all be written before the reader leaves.
    text = "Items can be returned within 30 days of delivery."
    data = tmp_path / "golden.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": "How long to return?", "answer": text,
                                        "contexts": [{"id": "d", "text": text}]}) + "\n"
                            for i in range(300)), encoding="utf-8")
    done = beside_a_reader_that_leaves(["replay", str(data), "--gate", "groundedness=0.5", "--json", "fifo",
                                        "--quiet"], tmp_path, clean_env())
    assert (done.returncode, done.stderr) == (
        2, "ragmon replay: error: fifo: cannot write report: Broken pipe\n")


@pytest.mark.parametrize("examples", [1, 5])
def test_a_few_grounded_answers_do_not_pass_a_gate_at_099_on_their_bound(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], examples: int) -> None:
    # Five answers, each the context's sentence itself: groundedness 1 each. Their interval was (1, 1), and
    # `--confidence 0.95 --gate groundedness=0.99` passed on "lower 95% bound 1 >= 0.99", though a true
    # groundedness of 0.99 gives five of five 95% of the time. Five successes of five trials have the exact
    # lower bound 0.025^(1/5) = 0.4782, one of one 0.025.
    text = "Items can be returned within 30 days of delivery."
    data = tmp_path / "golden.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": "How long to return?", "answer": text,
                                        "contexts": [{"id": "d", "text": text}]}) + "\n"
                            for i in range(examples)), encoding="utf-8")
    status = main(["replay", str(data), "--confidence", "0.95", "--gate", "groundedness=0.99"])
    bound = f"{0.025 ** (1 / examples):.4g}"
    assert f"FAIL: groundedness lower 95% bound {bound} < 0.99" in capsys.readouterr().out
    assert status == 1


def test_ids_that_look_alike_are_warned_of_once_naming_both_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "café" in its composed (NFC) and decomposed (NFD) forms, and "q01" beside "q01 ": two examples each,
    # accepted without a word, which a report can show alike (a tab would be shown escaped, a space not).
    golden = tmp_path / "golden.jsonl"
    ids = ("caf\u00e9", "q01", "cafe\u0301", "q01 ", "q02")
    records = [{"id": example_id, "question": "How long?", "contexts": ["Refunds take 30 days."],
                "answer": "Refunds take 30 days."} for example_id in ids]
    golden.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    report = tmp_path / "r.json"
    assert main(["replay", str(golden), "--gate", "groundedness=0.9", "--json", str(report)]) == 0
    why = (f"example ids 'caf\\xe9' ({golden}:1) and 'cafe\\u0301' ({golden}:3) differ only in Unicode "
           "normalisation or white space around them (and 1 more such id): they are two examples, which a "
           "report can show alike (an accent written two ways looks the same, and so does a space at the "
           "end); write each id one way")
    assert capsys.readouterr().err == f"ragmon replay: warning: {why}\n"
    written = json.loads(report.read_text(encoding="utf-8"))
    # A warning, not an error: every example is scored, as before.
    assert (written["run_warnings"], written["examples"]) == ([why], 5)


def test_long_ids_that_look_alike_are_quoted_by_their_two_ends(tmp_path: Path) -> None:
    # Two ids of 200,000 characters, the second with a space after it: quoted whole, they made a JUnit
    # file of 400 KB. Each is quoted as its first 30 and last 30 characters, where the space shows.
    golden = tmp_path / "golden.jsonl"
    records = [{"id": example_id, "question": "How long?", "contexts": ["Refunds take 30 days."],
                "answer": "Refunds take 30 days."} for example_id in ("a" * 200_000, "a" * 200_000 + " ")]
    golden.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    assert main(["replay", str(golden), "--json", str(report), "--junit", str(junit)]) == 0
    ends = "'" + "a" * 30 + "'...'"
    warning = json.loads(report.read_text(encoding="utf-8"))["run_warnings"][0]
    assert warning.startswith(f"example ids {ends}{'a' * 30}' ({golden}:1) and {ends}{'a' * 29} ' "
                              f"({golden}:2) differ only in Unicode normalisation")
    assert junit.stat().st_size < 20_000
