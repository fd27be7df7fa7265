"""deploy/prometheus: promtool accepts the rules and the example config, and the rule unit tests pass.

The unit tests themselves (rules_test.yml) hold the hand-computed values: the two-pod ratio of 0.15
(not the 0.20 an average of pod ratios gives), staging's 30% kept apart from prod's 10% (not the 12% of
both summed), and each alert firing and staying silent.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from yaml_files import safe_dump, safe_load

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
DOCS = ROOT / "docs" / "deploy.md"
ENVIRONMENTS = "environments sharing a pipeline name are kept apart"
"""The rules_test.yml group of two namespaces running one pipeline name."""
NAMESPACE_GONE = "a namespace that loses its ragmon targets while another keeps its own"
NO_NAMESPACE_GONE = "without namespaces a lost target is RagmonAbsent's alone"
"""The rules_test.yml groups of RagmonNamespaceAbsent, with namespaces and without."""


GO_GC_PERCENT = "400"
"""Go's GOGC for promtool: its unit tests allocate series storage group after group, and collecting at
4x the live heap instead of 2x took 10-20% less CPU over rules_test.yml (measured alternately: 20-26 s
against 27-30 s) for ~115 MB of memory instead of ~66; this file's promtool runs are most of its time."""


def promtool(*args: str, cwd: Path = PROMETHEUS) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["promtool", *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GOGC": GO_GC_PERCENT})


def load(name: str) -> Any:
    return safe_load((PROMETHEUS / name).read_text(encoding="utf-8"))


def alert_rules() -> list[dict[str, Any]]:
    return [r for g in load("rules.yml")["groups"] for r in g["rules"] if "alert" in r]


def test_rules_pass_promtool_check() -> None:
    result = promtool("check", "rules", "rules.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


@functools.cache
def shipped_unit_tests() -> subprocess.CompletedProcess[str]:
    """promtool over the shipped rules_test.yml and rules.yml, run once for the module (~25 s of CPU): every
    group passing here passes alone too, since promtool evaluates each group on its own series and
    storage, under the file's settings that `run_group` keeps."""
    return promtool("test", "rules", "rules_test.yml")


def test_rule_unit_tests_pass() -> None:
    result = shipped_unit_tests()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_example_config_is_valid_and_loads_the_rules() -> None:
    result = promtool("check", "config", "prometheus.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 rule files found" in result.stdout


@pytest.mark.parametrize(("old", "new"), [
    # The pod-average value instead of the summed ratio.
    ("ratio_rate10m - 0.15) < bool", "ratio_rate10m - 0.2) < bool"),
    # Claim the hallucination alert silent where it fires.
    ("      - eval_time: 20m\n        alertname: RagmonHallucinationRateHigh\n        exp_alerts:\n",
     "      - eval_time: 20m\n        alertname: RagmonHallucinationRateHigh\n        exp_alerts: []\n"
     "      - eval_time: 21m\n        alertname: RagmonHallucinationRateHigh\n        exp_alerts:\n"),
    # The eviction share over the other outcomes only (2 / 98 = 2.041%), not over every trace decided.
    ("summary: 'a:9464 evicts 2% of its traces unscored'",
     "summary: 'a:9464 evicts 2.041% of its traces unscored'"),
    # Claim a burst of evictions still pending once it has left the 10m window.
    ('instance="c:9464"}\n        eval_time: 11m\n', 'instance="c:9464"}\n        eval_time: 12m\n'),
], ids=["pod-average-ratio", "alert-said-silent", "eviction-share-without-evictions",
        "eviction-burst-lingers"])
def test_a_wrong_expectation_makes_promtool_fail(tmp_path: Path, old: str, new: str) -> None:
    """Guards against a test file that cannot fail: the same files with one expectation changed. Only the
    test group the change falls in is run (the whole file takes promtool ~8 s, its overnight group half of
    that); the others passing unchanged is test_rule_unit_tests_pass's."""
    shutil.copy(PROMETHEUS / "rules.yml", tmp_path / "rules.yml")
    text = (PROMETHEUS / "rules_test.yml").read_text(encoding="utf-8")
    assert old in text
    original, changed = safe_load(text), safe_load(text.replace(old, new, 1))
    which = [i for i, group in enumerate(changed["tests"]) if group != original["tests"][i]]
    assert len(which) == 1, f"the change should fall in one test group, not {len(which)}"
    for name, tests in (("unchanged", original), ("changed", changed)):
        group = {**tests, "tests": [tests["tests"][which[0]]]}
        (tmp_path / f"{name}.yml").write_text(safe_dump(group), encoding="utf-8")
    assert promtool("test", "rules", "unchanged.yml", cwd=tmp_path).returncode == 0
    result = promtool("test", "rules", "changed.yml", cwd=tmp_path)
    assert result.returncode != 0
    assert "FAILED" in result.stdout + result.stderr


@pytest.mark.parametrize(("old", "new"), [
    # The hallucination ratio pooled across namespaces (numerator and denominator alike): 12%.
    ('sum by (namespace, pipeline, judge) (rate(ragmon_claims_total{verdict="unsupported"}[10m]))\n'
     "            /\n"
     "          (sum by (namespace, pipeline, judge) (rate(ragmon_claims_total[10m])) > 0)",
     'sum by (pipeline, judge) (rate(ragmon_claims_total{verdict="unsupported"}[10m]))\n'
     "            /\n"
     "          (sum by (pipeline, judge) (rate(ragmon_claims_total[10m])) > 0)"),
    # RagmonPipelineFailing's shares and guard pooled: 10%.
    ("(namespace, pipeline)", "(pipeline)"),
    # RagmonJudgeErrors pooled: 3%.
    ("sum by (namespace, judge)", "sum by (judge)"),
], ids=["hallucination-ratio", "pipeline-failing", "judge-errors"])
def test_a_rule_summing_across_namespaces_fails_the_unit_tests(tmp_path: Path, old: str, new: str) -> None:
    """staging and prod both run pipeline checkout-rag; summed together, staging's bad figures are
    diluted below their thresholds by prod's traffic (rules_test.yml works the shares out). Its test
    group passes with the shipped rules and fails once one rule drops `namespace` from its `by`."""
    assert_rule_change_fails(tmp_path, old, new, ENVIRONMENTS, everywhere=True)


def run_group(tmp_path: Path, rules: str, name: str) -> subprocess.CompletedProcess[str]:
    """promtool over the rules_test.yml group `name` alone, against `rules` as rules.yml."""
    tests = load("rules_test.yml")
    (group,) = [g for g in tests["tests"] if g["name"] == name]
    alone = safe_dump({**tests, "tests": [group]})
    assert safe_load(alone)["tests"] == [group], "the group should be written as it was read"
    (tmp_path / "group.yml").write_text(alone, encoding="utf-8")
    (tmp_path / "rules.yml").write_text(rules, encoding="utf-8")
    return promtool("test", "rules", "group.yml", cwd=tmp_path)


def assert_rule_change_fails(tmp_path: Path, old: str, new: str, group: str, *,
                             everywhere: bool = False) -> None:
    """The rules_test.yml group `group` passes against the shipped rules.yml and fails once `old`, written
    there once (or, `everywhere`, at least once, each place changed), becomes `new`: a test group that
    cannot fail guards nothing. That it passes unchanged comes from the whole file's run: a group failing
    there would make every change look caught."""
    rules = (PROMETHEUS / "rules.yml").read_text(encoding="utf-8")
    assert rules.count(old) >= 1 if everywhere else rules.count(old) == 1
    assert shipped_unit_tests().returncode == 0
    result = run_group(tmp_path, rules.replace(old, new), group)
    assert result.returncode != 0
    assert "FAILED" in result.stdout + result.stderr


@pytest.mark.parametrize(("old", "new", "group"), [
    # RagmonAbsent's pooled view alone, as shipped before: prod's loss raised nothing while staging was
    # scraped.
    ('group by (namespace) (present_over_time(up{job="ragmon",namespace!=""}[1d]))\n'
     "            unless on (namespace)\n"
     '          group by (namespace) (up{job="ragmon"})',
     'absent(up{job="ragmon"})', NAMESPACE_GONE),
    # Targets without a namespace counted: their loss fires a second alert, with no namespace to name.
    ('up{job="ragmon",namespace!=""}', 'up{job="ragmon"}', NO_NAMESPACE_GONE),
    # Only targets answering their scrapes counted: canary's failing pod reads as a namespace gone.
    ('unless on (namespace)\n          group by (namespace) (up{job="ragmon"})\n',
     'unless on (namespace)\n          group by (namespace) (up{job="ragmon"} == 1)\n', NAMESPACE_GONE),
    # A window shorter than `for` plus the staleness: prod is forgotten before the alert can fire.
    ('namespace!=""}[1d]', 'namespace!=""}[10m]', NAMESPACE_GONE),
], ids=["pooled-absent", "no-namespace-counted", "down-read-as-gone", "window-too-short"])
def test_a_namespace_absent_rule_that_misreads_fails_the_unit_tests(
        tmp_path: Path, old: str, new: str, group: str) -> None:
    """RagmonNamespaceAbsent's test groups pass with the shipped rule and fail with each way it could
    miss a namespace gone or raise a loss that is another alert's."""
    assert_rule_change_fails(tmp_path, old, new, group)


def test_a_judge_error_share_over_calls_never_made_fails_the_unit_tests(tmp_path: Path) -> None:
    """RagmonJudgeErrors is a share of calls: staging's Claude fails 2 of its 10 calls a minute and answers
    90 more examples from its cache. Over every judgement but those refused, the share is 2% and the alert
    stays silent; over the calls (`ok` and the failures, not `cached`), 20%, and it fires."""
    calls, judged = 'outcome=~"ok|error|timeout|rate_limited"', 'outcome!~"throttled|over_budget"'
    assert_rule_change_fails(tmp_path, calls, judged, ENVIRONMENTS)


JUDGE_ERRORS_LOW_TRAFFIC = ("judge errors at low traffic", "judge errors at low traffic, scraped out of step")
"""The rules_test.yml groups of RagmonJudgeErrors at a call every 5 minutes, scraped in and out of step."""
JUDGE_ERRORS_GUARD = (
    "\n            and on (namespace, judge)\n"
    "          sum by (namespace, judge) (increase(ragmon_judge_requests_total"
    '{outcome=~"error|timeout|rate_limited"}[30m])) >= 3\n')


@pytest.mark.parametrize("new", [
    # No guard, as shipped before: two transient failures 6 minutes apart page.
    "\n",
    # 2 failed calls enough: the transient judge is pending.
    JUDGE_ERRORS_GUARD.replace(">= 3", ">= 2"),
    # 4 needed: the recurring and the broken judge fire 5 to 6 minutes later.
    JUDGE_ERRORS_GUARD.replace(">= 3", ">= 4"),
    # Counted over the ratio's 10 minutes: failures 5 or 6 minutes apart never make 3 there, and the
    # recurring and the broken judge never fire.
    JUDGE_ERRORS_GUARD.replace("[30m]", "[10m]"),
], ids=["no-guard", "two-failures", "four-failures", "window-10m"])
@pytest.mark.parametrize("group", JUDGE_ERRORS_LOW_TRAFFIC)
def test_a_judge_errors_guard_that_misreads_fails_the_unit_tests(
        tmp_path: Path, new: str, group: str) -> None:
    """RagmonJudgeErrors' low-traffic groups pass with the shipped minimum of 3 failed calls in 30
    minutes, and fail, each of them, without it or with another count or window."""
    assert_rule_change_fails(tmp_path, JUDGE_ERRORS_GUARD, new, group)


def test_a_namespace_gone_is_remembered_for_a_day(tmp_path: Path) -> None:
    """The shipped RagmonNamespaceAbsent alone (the day of 1-minute evaluations takes promtool ~7 s
    with every rule, 1 s with this one). Scraped every 5 minutes: prod's last sample at 30m, its stale
    marker at 35m, so pending from 35m and firing from 50m; staging scraped throughout. The window is a
    day: the alert still fires at 24h29m and has resolved at 24h31m, on its own, with prod still gone
    (at 24h30m the 30m sample is on the window's edge: in range for 2.x, whose ranges include both
    ends, out of it for 3.x)."""
    (rule,) = [r for r in alert_rules() if r["alert"] == "RagmonNamespaceAbsent"]
    (tmp_path / "rules.yml").write_text(safe_dump({"groups": [{"name": "one", "rules": [rule]}]}),
                                        encoding="utf-8")
    alert = ('{{__name__="ALERTS",alertname="RagmonNamespaceAbsent",alertstate="{}",namespace="prod",'
             'severity="warning"}}')
    pending, firing = alert.format("pending"), alert.format("firing")
    tests = {"rule_files": ["rules.yml"], "evaluation_interval": "1m", "tests": [{
        "interval": "5m",
        "input_series": [
            {"series": 'up{job="ragmon",namespace="prod",instance="10.0.2.5:9464"}', "values": "1x6 stale"},
            {"series": 'up{job="ragmon",namespace="staging",instance="10.0.1.5:9464"}', "values": "1x300"},
        ],
        "promql_expr_test": [
            {"expr": "ALERTS", "eval_time": "49m", "exp_samples": [{"labels": pending, "value": 1}]},
            {"expr": "ALERTS", "eval_time": "50m", "exp_samples": [{"labels": firing, "value": 1}]},
            {"expr": "ALERTS", "eval_time": "24h29m", "exp_samples": [{"labels": firing, "value": 1}]},
            {"expr": "ALERTS", "eval_time": "24h31m", "exp_samples": []},
        ],
    }]}
    (tmp_path / "day.yml").write_text(safe_dump(tests), encoding="utf-8")
    result = promtool("test", "rules", "day.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_is_tested_firing_and_silent() -> None:
    cases: dict[str, set[bool]] = {}
    for group in load("rules_test.yml")["tests"]:
        for case in group.get("alert_rule_test", []):
            cases.setdefault(case["alertname"], set()).add(bool(case["exp_alerts"]))
    names = [rule["alert"] for rule in alert_rules()]
    assert {name: cases.get(name, set()) for name in names} == {name: {True, False} for name in names}


def test_alerts_carry_severity_for_and_annotations() -> None:
    headings = {re.sub(r"[^a-z0-9-]", "", line.lstrip("#").strip().lower().replace(" ", "-"))
                for line in DOCS.read_text(encoding="utf-8").splitlines() if line.startswith("#")}
    for rule in alert_rules():
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}, rule["alert"]
        assert re.fullmatch(r"\d+[mh]", rule["for"]), rule["alert"]
        assert {"summary", "description", "runbook_url"} <= set(rule["annotations"]), rule["alert"]
        anchor = rule["annotations"]["runbook_url"].rpartition("#")[2]
        assert anchor == rule["alert"].lower() and anchor in headings, rule["alert"]


def test_ratios_aggregate_both_sides_by_the_same_labels() -> None:
    """The ops.md pitfall: a `sum without (...)` keeps `verdict` on the numerator only, and the division
    matches nothing. Every ratio here divides two `sum by (<same labels>)`."""
    for group in load("rules.yml")["groups"]:
        for rule in group["rules"]:
            expr = rule["expr"]
            assert "without" not in expr, rule.get("record") or rule.get("alert")
            if rule.get("record", "").endswith(("ratio_rate10m", "mean10m", "ratio_rate1h", "mean1h")):
                groupings = re.findall(r"sum by \(([^)]*)\)", expr)
                assert len(groupings) >= 2 and len(set(groupings)) == 1, rule["record"]


def test_no_rule_sums_across_judges() -> None:
    """Claude judges a sample of the traces the lexical judge scores: a figure summed over `judge` counts
    those answers twice and blends two judges' verdicts. Every aggregation of a judged metric keeps it."""
    judged = re.compile(r"ragmon_(?:claims_total|example_score_\w+|examples_scored_total)\b")
    for group in load("rules.yml")["groups"]:
        for rule in group["rules"]:
            name = rule.get("record") or rule["alert"]
            if rule.get("record") and judged.search(rule["expr"]):
                groupings = re.findall(r"sum by \(([^)]*)\)", rule["expr"])
                assert groupings and all("judge" in g.replace(" ", "").split(",") for g in groupings), name
                assert name.startswith("pipeline_judge"), name


def test_no_rule_sums_across_namespaces() -> None:
    """Environments (namespaces) share pipeline names, so a figure summed across them lets one page for
    another. Every aggregation and match keeps `namespace`; the per-pod ones too, where `instance` alone
    is unique, so that their alerts can say which environment the pod is in."""
    for group in load("rules.yml")["groups"]:
        for rule in group["rules"]:
            name = rule.get("record") or rule["alert"]
            for labels in re.findall(r"\b(?:by|on) \(([^)]*)\)", rule["expr"]):
                assert "namespace" in labels.replace(" ", "").split(","), (name, labels)


def test_alerts_name_the_namespace() -> None:
    """Every alert but RagmonAbsent (no target anywhere: no namespace to name) keeps `namespace` and
    names it in its summary and description, the per-pod ones included: a pod IP does not say whether it
    is staging's or prod's. Where the label may be missing (docker compose), only inside
    `{{ with $labels.namespace }}`, so that the text then reads as it did without one."""
    for rule in alert_rules():
        if rule["alert"] == "RagmonAbsent":
            continue
        for key in ("summary", "description"):
            text = rule["annotations"][key]
            assert "$labels.namespace" in text, (rule["alert"], key)
            if 'namespace!=""' not in rule["expr"]:
                bare = re.sub(r"\{\{ with \$labels\.namespace \}\}.*?\{\{ end \}\}", "", text, flags=re.S)
                assert "$labels.namespace" not in bare, (rule["alert"], key)


PER_PROCESS = re.compile(r"\bby \((?:[^)]*, )?instance\b")
"""An alert kept per ragmon process: `instance` in one of its `by` lists."""
STILL_A_TARGET = r'\s+and on \(namespace, job, instance\)\s+up\{job="ragmon"\}'
"""How each of them ends."""
PODS_GONE = "a pod that is gone raises nothing about itself"


def test_alerts_per_process_hold_only_for_targets_prometheus_still_has() -> None:
    """A deleted pod's samples stay in an alert's window, up to an hour, after its series went stale: each
    alert kept per process must also find the process's `up`, or it holds (or fires) about a process that
    no longer exists. RagmonDown reads `up` itself."""
    per_process = {r["alert"]: r["expr"] for r in alert_rules() if PER_PROCESS.search(r["expr"])}
    assert {"RagmonLLMBudgetExhausted", "RagmonRestarting", "RagmonNoSpans"} <= set(per_process)
    ending = re.compile(STILL_A_TARGET + r"\s*\Z")
    assert [name for name, expr in per_process.items() if not ending.search(expr)] == []


@pytest.mark.parametrize("alert", ["RagmonLLMBudgetExhausted", "RagmonRestarting", "RagmonNoSpans"])
def test_an_alert_about_a_pod_gone_fails_the_unit_tests(tmp_path: Path, alert: str) -> None:
    """The group of pods deleted at 30m passes with the shipped rules and fails when one of its three alerts
    reads its window alone: budget and restarts stay firing, the spans alert fires at 31m."""
    rules = (PROMETHEUS / "rules.yml").read_text(encoding="utf-8")
    start = rules.index(f"- alert: {alert}\n")
    rule = rules[start:rules.index("        for:", start)]
    assert_rule_change_fails(tmp_path, rule, re.sub(STILL_A_TARGET, "", rule), PODS_GONE)


def test_a_stall_alert_read_at_the_instant_fails_the_unit_tests(tmp_path: Path) -> None:
    """The group of a stalled ragmon with one failed scrape at 7m passes with the gauges read over 2
    minutes, and fails with them read at the instant, as shipped before: silent at 12m, the failed scrape
    having restarted the 10 minutes."""
    assert_rule_change_fails(
        tmp_path,
        '            max_over_time(ragmon_score_queue_depth{judge="lexical"}[2m])\n'
        "              +\n"
        '            max_over_time(ragmon_score_in_progress{judge="lexical"}[2m])\n',
        '            ragmon_score_queue_depth{judge="lexical"} + ragmon_score_in_progress{judge="lexical"}\n',
        "a stuck scorer is not forgotten at one failed scrape")


RESTARTS = "a crash loop that RagmonDown misses"
UNMEASURED = "a quality alert that resolves because scoring stopped"
UNDER_GUARD = "a quality alert that resolves because too few answers are scored"
"""The rules_test.yml groups of RagmonRestarting and RagmonQualityUnmeasured (scoring stopped, and
scoring on under a quality alert's volume guard)."""
QUALITY_ALERTS = ("RagmonGroundednessLow", "RagmonHallucinationRateHigh")
HOUR = "OverHour"
HOUR_ALERTS = tuple(name + HOUR for name in QUALITY_ALERTS)
"""The 10-minute quality alerts, and their hour twins for quiet pipelines."""
SELF_HOLD = ("              or\n"
             "            max by (namespace, pipeline, judge, quality_alert) "
             '(ALERTS{alertname="RagmonQualityUnmeasured",alertstate="firing"})\n')
UNMEASURED_GUARDS = (
    'unless on (namespace, pipeline, judge, quality_alert)\n'
    '          (\n'
    '            label_replace(\n'
    '              pipeline_judge_metric:ragmon_example_score_count:rate10m{metric="groundedness"}'
    ' >= 10 / 600,\n'
    '              "quality_alert", "RagmonGroundednessLow", "", ""\n'
    '            )\n'
    '              or\n'
    '            label_replace(\n'
    '              pipeline_judge:ragmon_claims:rate10m >= 30 / 600\n'
    '                and on (namespace, pipeline, judge)\n'
    '              pipeline_judge_metric:ragmon_example_score_count:rate10m{metric="groundedness"}'
    ' >= 10 / 600,\n'
    '              "quality_alert", "RagmonHallucinationRateHigh", "", ""\n'
    '            )\n'
    '              or\n'
    '            label_replace(\n'
    '              pipeline_judge_metric:ragmon_example_score_count:rate1h{metric="groundedness"}'
    ' >= 10 / 3600,\n'
    '              "quality_alert", "RagmonGroundednessLowOverHour", "", ""\n'
    '            )\n'
    '              or\n'
    '            label_replace(\n'
    '              pipeline_judge:ragmon_claims:rate1h >= 30 / 3600\n'
    '                and on (namespace, pipeline, judge)\n'
    '              pipeline_judge_metric:ragmon_example_score_count:rate1h{metric="groundedness"}'
    ' >= 10 / 3600,\n'
    '              "quality_alert", "RagmonHallucinationRateHighOverHour", "", ""\n'
    '            )\n'
    '          )\n'
)
"""RagmonQualityUnmeasured's `unless` and the quality alerts' guards after it, as rules.yml has them."""
ANY_ANSWER_SCORED = (UNMEASURED_GUARDS,
                     "unless on (namespace, pipeline, judge)\n"
                     "          sum by (namespace, pipeline, judge) "
                     "(rate(ragmon_examples_scored_total[10m])) > 0\n")
"""The rule's end as shipped before: the quality alert's pipeline scored no answer in 10 minutes."""


@pytest.mark.parametrize(("old", "new"), [
    # 2 restarts enough: a deploy and its rollback in place (docker compose) page.
    ("[1h])) > 2", "[1h])) > 1"),
    # Counted over 15 minutes: an OOM every 20 minutes never makes 3, and the 5-minute loop's lives
    # fall out of the window once it runs steadily.
    ("process_start_time_seconds{job=\"ragmon\"}[1h]", "process_start_time_seconds{job=\"ragmon\"}[15m]"),
    # Flaps of `up` read as restarts: each failed scrape counts twice, 16 "restarts" where 8 happened.
    ("changes(process_start_time_seconds{job=\"ragmon\"}", "changes(up{job=\"ragmon\"}"),
], ids=["two-restarts", "window-15m", "up-flaps"])
def test_a_restart_alert_that_misreads_fails_the_unit_tests(tmp_path: Path, old: str, new: str) -> None:
    """RagmonRestarting's group passes with the shipped rule (3 restarts of one process in an hour) and
    fails with a lower count, a shorter window, or the flaps of `up` counted instead of new processes."""
    assert_rule_change_fails(tmp_path, old, new, RESTARTS)


@pytest.mark.parametrize(("old", "new"), [
    # Not holding itself: silent again an hour after the quality alert resolved, while nothing is scored.
    (SELF_HOLD, ""),
    # Holding itself over the hour: it fires again for a pipeline whose scoring came back and stopped
    # again, with no quality alert since.
    (SELF_HOLD, SELF_HOLD.replace('"firing"})', '"firing"}[1h]))')
                         .replace("(ALERTS", "(max_over_time(ALERTS")),
    # The groundedness alert alone: a hallucination alert that resolves for want of claims says nothing.
    ('alertname=~"RagmonGroundednessLow|RagmonHallucinationRateHigh|RagmonGroundednessLowOverHour|'
     'RagmonHallucinationRateHighOverHour",alertstate', 'alertname="RagmonGroundednessLow",alertstate'),
    # Released by an answer scored, as shipped before: back's answers without claims end it while the
    # hallucination alert still cannot judge.
    ANY_ANSWER_SCORED,
], ids=["no-self-hold", "self-hold-over-the-hour", "groundedness-only", "any-answer-scored"])
def test_a_quality_unmeasured_rule_that_misreads_fails_the_unit_tests(
        tmp_path: Path, old: str, new: str) -> None:
    """RagmonQualityUnmeasured's group passes with the shipped rule and fails with each way it could let
    a quality alert resolve unremarked, or remark on a pipeline that recovered."""
    assert_rule_change_fails(tmp_path, old, new, UNMEASURED)


@pytest.mark.parametrize(("old", "new"), [
    # Silent while any answer is scored, as shipped before: the reviewer's groundedness alert, resolved
    # at a fifth of its volume, raised nothing.
    ANY_ANSWER_SCORED,
    # The groundedness guard read as the hallucination alert's: terse's hallucination alert, unable to
    # judge for want of claims, is held by its answers, and the groundedness alert is never let go,
    # unmeasured at 65m already.
    ('"quality_alert", "RagmonGroundednessLow", "", ""',
     '"quality_alert", "RagmonHallucinationRateHigh", "", ""'),
], ids=["any-answer-scored", "guard-of-the-other-alert"])
def test_an_unmeasured_rule_blind_to_low_volume_fails_the_unit_tests(
        tmp_path: Path, old: str, new: str) -> None:
    """The low-volume group passes with each quality alert followed under its own guard, and fails when
    the rule waits for no answer at all or reads an alert by the other's guard."""
    assert_rule_change_fails(tmp_path, old, new, UNDER_GUARD)


NIGHT = "two long bad answers on a quiet pipeline page no one"
BAD_DEPLOY = "a bad deploy on a quiet pipeline pages when it did"
"""The rules_test.yml groups of the hallucination alert's answer guard: a trickle, and a real incident."""
ANSWER_GUARD = ("\n            and on (namespace, pipeline, judge)\n"
                "          pipeline_judge_metric:ragmon_example_score_count:rate10m"
                '{metric="groundedness"} >= 10 / 600\n        for: 15m')


def test_a_hallucination_alert_without_an_answer_guard_fails_the_unit_tests(tmp_path: Path) -> None:
    """RagmonHallucinationRateHigh's night group passes with the shipped guard of 10 answers with claims
    in 10 minutes, and fails with the claim guard alone, as shipped before: two answers of 40 claims,
    8 minutes apart, page a quiet pipeline. (Its bad-deploy group passes either way: the guard holds
    throughout a real incident, so it fires when it did.)"""
    assert_rule_change_fails(tmp_path, ANSWER_GUARD, "\n        for: 15m", NIGHT)
    rules = (PROMETHEUS / "rules.yml").read_text(encoding="utf-8")
    assert run_group(tmp_path, rules.replace(ANSWER_GUARD, "\n        for: 15m"), BAD_DEPLOY).returncode == 0


TRICKLE = "a trickle of losses on a nearly idle instance pages no one"
REAL_LOSS = "a real loss on a quiet instance pages when it did"
"""The rules_test.yml groups of the loss alerts' minimum volume: a trickle, and a real incident."""
LOSS_GUARDS = {
    "RagmonSpansRejected": (
        "\n            and on (namespace, job, instance, reason)\n"
        "          sum by (namespace, job, instance, reason) (increase(ragmon_spans_rejected_total"
        '{reason=~"invalid|late|too_many_spans|too_many_bytes"}[10m])) >= 3\n'),
    "RagmonBackpressure": (
        "\n            and on (namespace, job, instance)\n"
        "          sum by (namespace, job, instance) (increase(ragmon_spans_rejected_total"
        '{reason="backpressure"}[10m])) >= 3\n'),
    "RagmonTracesEvicted": (
        "\n            and on (namespace, job, instance)\n"
        "          sum by (namespace, job, instance) (increase(ragmon_traces_total"
        '{outcome="evicted"}[10m])) >= 3\n'),
}
"""Each loss alert's minimum volume, as rules.yml has it after the share's threshold."""


@pytest.mark.parametrize(("change", "group"), [
    # No guard, as shipped before: 2 late spans 9 minutes apart at 1 span a minute page (10%).
    (lambda guard: "\n", TRICKLE),
    # 2 lost enough: two losses of 2 at once, 8 minutes apart, page.
    (lambda guard: guard.replace(">= 3", ">= 2"), TRICKLE),
    # 4 needed: a loss of 3 a minute fires a minute later.
    (lambda guard: guard.replace(">= 3", ">= 4"), REAL_LOSS),
], ids=["no-guard", "two-lost", "four-lost"])
@pytest.mark.parametrize("alert", sorted(LOSS_GUARDS))
def test_a_loss_guard_that_misreads_fails_the_unit_tests(
        tmp_path: Path, alert: str, change: Callable[[str], str], group: str) -> None:
    """Each loss alert's groups pass with the shipped minimum of 3 lost in the share's 10 minutes, and
    fail without it, with 2 (a trickle pages) or with 4 (a real loss pages later than it did)."""
    guard = LOSS_GUARDS[alert]
    assert_rule_change_fails(tmp_path, guard, change(guard), group)


def volume_guard(expr: str) -> str:
    """A quality alert's minimum-volume guard: what follows its `and on (...)`, whitespace collapsed."""
    return " ".join(expr.partition("and on (")[2].partition(")")[2].split())


def test_unmeasured_follows_each_quality_alert_under_that_alerts_own_guard() -> None:
    """RagmonQualityUnmeasured fires when the alert it follows could no longer judge: exactly when that
    alert's guard fails, so each guard there must be the alert's own, word for word, under its name."""
    rules = {r["alert"]: " ".join(r["expr"].split()) for r in alert_rules()}
    unmeasured = rules["RagmonQualityUnmeasured"]
    for name in QUALITY_ALERTS + HOUR_ALERTS:
        guard = volume_guard(rules[name])
        assert guard, name
        assert f'label_replace( {guard}, "quality_alert", "{name}", "", "" )' in unmeasured


@pytest.mark.parametrize("name", QUALITY_ALERTS)
def test_an_hour_alert_is_its_twin_over_the_hour(name: str) -> None:
    """An hour alert judges the figure of its 10-minute twin over an hour, with the same floors (10
    answers, and 30 claims, now in an hour), and stands back for the hour after that twin, by name and
    of any judge, fired: read from another alert, a busy pipeline with one quality alert firing would
    page twice."""
    rules = {r["alert"]: " ".join(r["expr"].split()) for r in alert_rules()}
    twin, hour = rules[name], rules[name + HOUR]
    figure = twin.partition(" and on (")[0]
    assert hour.startswith(figure.replace("10m", "1h", 1) + " unless on (namespace, pipeline) "
                           f'max_over_time(ALERTS{{alertname="{name}",alertstate="firing"}}[1h]) and on (')
    assert volume_guard(hour) == volume_guard(twin).replace("10m", "1h").replace("/ 600", "/ 3600")


QUIET = "a quiet pipeline failing for hours pages over the hour"
BUSY = "a busy pipeline's incident pages by its 10-minute alerts alone"
SAMPLED = "a busy pipeline judged by Claude on a sample pages by its 10-minute alerts alone"
"""The rules_test.yml groups of the hour alerts: a quiet pipeline's incident, a busy one's, and a busy
one's that Claude judges on a 2% sample."""
HOUR_FLOORS = {
    "RagmonHallucinationRateHighOverHour": (
        "\n            and on (namespace, pipeline, judge)\n"
        "          pipeline_judge_metric:ragmon_example_score_count:rate1h"
        '{metric="groundedness"} >= 10 / 3600\n        for: 30m'),
    "RagmonGroundednessLowOverHour": (
        "\n            and on (namespace, pipeline, judge, metric)\n"
        "          pipeline_judge_metric:ragmon_example_score_count:rate1h"
        '{metric="groundedness"} >= 10 / 3600\n        for: 30m'),
}
"""Each hour alert's floor of 10 answers in its hour, as rules.yml has it."""


@pytest.mark.parametrize(("change", "group"), [
    # Read as 10 answers in 10 minutes, the twin's guard: the reviewer's hr-bot, 5 answers per 10
    # minutes, every claim unsupported for hours, pages no one, as before the hour alerts.
    (lambda floor: floor.replace("10 / 3600", "10 / 600"), QUIET),
    # 5 answers enough: hr-bot pages 10 minutes earlier than its floor of 10 answers lets it.
    (lambda floor: floor.replace("10 / 3600", "5 / 3600"), QUIET),
    # 20 needed: hr-bot pages 20 minutes later.
    (lambda floor: floor.replace("10 / 3600", "20 / 3600"), QUIET),
    # No floor of answers: two long bad answers page at night after all.
    (lambda floor: "\n        for: 30m", NIGHT),
], ids=["ten-minute-floor", "five-answers", "twenty-answers", "no-answer-floor"])
@pytest.mark.parametrize("alert", sorted(HOUR_FLOORS))
def test_an_hour_floor_that_misreads_fails_the_unit_tests(
        tmp_path: Path, alert: str, change: Callable[[str], str], group: str) -> None:
    """Each hour alert's groups pass with the shipped floor of 10 answers in the hour, and fail with the
    floor of its 10-minute twin, with 5 or 20 answers, or with none."""
    floor = HOUR_FLOORS[alert]
    assert_rule_change_fails(tmp_path, floor, change(floor), group)


@pytest.mark.parametrize("name", QUALITY_ALERTS)
def test_an_hour_alert_that_does_not_stand_back_fails_the_unit_tests(tmp_path: Path, name: str) -> None:
    """The busy group passes with each hour alert silent for the hour after its twin fired, and fails
    once it is not: the busy pipeline's incident pages twice, at 35m."""
    assert_rule_change_fails(tmp_path, stand_back(name), "", BUSY)


def stand_back(name: str) -> str:
    """The `unless` of the hour twin of `name`, as rules.yml has it."""
    return ("\n            unless on (namespace, pipeline)\n"
            f'          max_over_time(ALERTS{{alertname="{name}",alertstate="firing"}}[1h])')


@pytest.mark.parametrize("name", QUALITY_ALERTS)
def test_an_hour_alert_standing_back_for_its_own_judge_only_fails_the_unit_tests(
        tmp_path: Path, name: str) -> None:
    """The sampled group passes with each hour alert silent for the hour after its twin fired for any
    judge of the pipeline, and fails once only its own judge's twin counts: Claude, judging 2 answers
    in 10 minutes, never has its own, and pages for the lexical judge's incident after the fix."""
    own_judge = stand_back(name).replace("pipeline)", "pipeline, judge)")
    assert_rule_change_fails(tmp_path, stand_back(name), own_judge, SAMPLED)


def test_an_hour_alert_standing_back_only_while_its_twin_fires_fails_the_unit_tests(tmp_path: Path) -> None:
    """Silent only while RagmonHallucinationRateHigh fires, its hour twin pages at 158m for the busy
    pipeline's incident fixed at 120m: the hour's share of unsupported claims lags the fix."""
    firing = 'ALERTS{alertname="RagmonHallucinationRateHigh",alertstate="firing"}'
    assert_rule_change_fails(tmp_path, f"max_over_time({firing}[1h])", firing, BUSY)


def start_times(before: str = "", scrapes: int = 1) -> list[float]:
    """process_start_time_seconds of each of `scrapes` scrapes, 0.2 s apart, of an Exporter in a new
    Python process that first runs `before`."""
    script = ("import time\n"
              "from prometheus_client import generate_latest\n"
              "from ragmon.exporter import Exporter\n"
              f"{before}\n"
              "live = Exporter()\n"
              f"for _ in range({scrapes}):\n"
              "    print(generate_latest(live.registry).decode())\n"
              "    time.sleep(0.2)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            check=True)
    return [float(v) for v in re.findall(r"^process_start_time_seconds (\S+)$", result.stdout, flags=re.M)]


def test_each_process_exports_a_start_time_of_its_own() -> None:
    """RagmonRestarting counts the values of process_start_time_seconds: ragmon's registry must carry it,
    the same at every scrape of one process, and another value in a process started later, as a restart
    is. A process that sleeps 1.5 s and then scrapes twice reads one value twice; a process started once
    it has ended reads a value at least 1.5 s later (less the clock's tick, 10 ms)."""
    first = start_times("time.sleep(1.5)", scrapes=2)
    assert len(first) == 2 and first[0] == first[1]
    (later,) = start_times()
    assert later - first[0] >= 1.5 - 0.01
