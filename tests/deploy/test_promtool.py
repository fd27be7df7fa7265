"""deploy/prometheus: promtool accepts the rules and the example config, and the rule unit tests pass.

The unit tests themselves (rules_test.yml) hold the hand-computed values: the two-pod ratio of 0.15
(not the 0.20 an average of pod ratios gives), staging's 30% kept apart from prod's 10% (not the 12% of
both summed), and each alert firing and staying silent.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
DOCS = ROOT / "docs" / "deploy.md"
ENVIRONMENTS = "environments sharing a pipeline name are kept apart"
"""The rules_test.yml group of two namespaces running one pipeline name."""


def promtool(*args: str, cwd: Path = PROMETHEUS) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["promtool", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def load(name: str) -> Any:
    return yaml.safe_load((PROMETHEUS / name).read_text(encoding="utf-8"))


def alert_rules() -> list[dict[str, Any]]:
    return [r for g in load("rules.yml")["groups"] for r in g["rules"] if "alert" in r]


def test_rules_pass_promtool_check() -> None:
    result = promtool("check", "rules", "rules.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_rule_unit_tests_pass() -> None:
    result = promtool("test", "rules", "rules_test.yml")
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
    original, changed = yaml.safe_load(text), yaml.safe_load(text.replace(old, new, 1))
    which = [i for i, group in enumerate(changed["tests"]) if group != original["tests"][i]]
    assert len(which) == 1, f"the change should fall in one test group, not {len(which)}"
    for name, tests in (("unchanged", original), ("changed", changed)):
        group = {**tests, "tests": [tests["tests"][which[0]]]}
        (tmp_path / f"{name}.yml").write_text(yaml.safe_dump(group), encoding="utf-8")
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
    rules = (PROMETHEUS / "rules.yml").read_text(encoding="utf-8")
    assert old in rules
    tests = load("rules_test.yml")
    (group,) = [g for g in tests["tests"] if g["name"] == ENVIRONMENTS]
    (tmp_path / "group.yml").write_text(yaml.safe_dump({**tests, "tests": [group]}), encoding="utf-8")
    (tmp_path / "rules.yml").write_text(rules, encoding="utf-8")
    assert promtool("test", "rules", "group.yml", cwd=tmp_path).returncode == 0
    (tmp_path / "rules.yml").write_text(rules.replace(old, new), encoding="utf-8")
    result = promtool("test", "rules", "group.yml", cwd=tmp_path)
    assert result.returncode != 0
    assert "FAILED" in result.stdout + result.stderr


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
            if rule.get("record", "").endswith(("ratio_rate10m", "mean10m")):
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
    another. Every aggregation and match keeps `namespace`, or is per pod (`instance`, unique)."""
    for group in load("rules.yml")["groups"]:
        for rule in group["rules"]:
            name = rule.get("record") or rule["alert"]
            for labels in re.findall(r"\b(?:by|on) \(([^)]*)\)", rule["expr"]):
                names = labels.replace(" ", "").split(",")
                assert "namespace" in names or "instance" in names, (name, labels)
