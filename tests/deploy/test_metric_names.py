"""Every metric, label and label value that deploy/, grafana/ and docs/deploy.md query is one that
ragmon.exporter really exports, and that exporter keeps the DESIGN §7 contract.

A misspelt metric in a dashboard or an alert does not fail anywhere else: the query returns nothing and
an alert on it stays silent forever.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from yaml_files import safe_load

from ragmon import exporter as exporter_module
from ragmon.exporter import Exporter
from ragmon.model import METRIC_NAMES, Example, ExampleResult

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [*sorted((ROOT / "deploy").rglob("*.y*ml")), *sorted((ROOT / "grafana").rglob("*.json")),
           *sorted((ROOT / "grafana").rglob("*.yaml")), ROOT / "docs" / "deploy.md"]

# DESIGN.md §7, as the exposed series names (a counter `x` is exposed as `x_total`).
DESIGN_7 = frozenset({
    "ragmon_spans_received_total", "ragmon_spans_rejected_total", "ragmon_traces_total",
    "ragmon_claims_total", "ragmon_examples_scored_total", "ragmon_example_score",
    "ragmon_groundedness_ratio", "ragmon_hallucination_ratio", "ragmon_window_examples",
    "ragmon_judge_requests_total",
    "ragmon_judge_duration_seconds", "ragmon_judge_cost_usd_total", "ragmon_traces_in_flight",
    "ragmon_score_queue_depth", "ragmon_score_lag_seconds", "ragmon_build_info",
})
RECORDING_RULE = re.compile(r"\b[a-z_]+:ragmon_[a-z0-9_]+:[a-z0-9_]+\b")
METRIC = re.compile(r"\bragmon_[a-z0-9_]+")
SELECTOR = re.compile(r"\b(ragmon_[a-z0-9_]+)\{([^}]*)\}")
MATCHER = re.compile(r"""(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)\"""")
SCRAPE_LABELS = {"job", "instance", "namespace"}
"""Target labels, not ragmon's: job and instance on every target, namespace from the PodMonitors and the
pod-discovery scrape config of docs/deploy.md."""


def exported() -> tuple[dict[str, str], dict[str, set[str]], dict[str, set[str]]]:
    """(series name -> type, series name -> label names, label -> values seen) from a live Exporter."""
    live = Exporter(judges=("lexical", "claude"), capture=True)
    pipeline = live.pipeline_label("support-bot")
    result = ExampleResult(Example("e1", "q?"), "lexical", {m: 1.0 for m in METRIC_NAMES}, ())
    live.example_scored(pipeline, "lexical", result, "4bf92f3577b34da6a3ce929d0e0e4736")
    live.score_lag(0.1)
    # What a running sidecar sets (ragmon.service): the limits, a lexical and a Claude lane.
    live.count_pool_replacements(lambda: 0, lambda: 0)
    for judge in ("lexical", "claude"):
        live.queue_size.labels(judge).set(1_000)
    live.budget.labels("claude").set(5)
    live.committed.labels("claude").set(0)
    types, labels, values = {}, {}, {}
    for family in live.registry.collect():
        name = family.name + "_total" if family.type == "counter" else family.name
        types[name] = family.type
        labels[name] = {label for sample in family.samples for label in sample.labels} - {"le"}
        for sample in family.samples:
            for label, value in sample.labels.items():
                values.setdefault(label, set()).add(value)
    labels["ragmon_groundedness_ratio"] = labels["ragmon_hallucination_ratio"] = {"pipeline", "judge"}
    labels["ragmon_window_examples"] = {"pipeline", "judge"}
    return types, labels, values


def base_name(token: str, types: dict[str, str]) -> str:
    for suffix in ("_bucket", "_sum", "_count"):
        stem = token.removesuffix(suffix)
        if stem != token and types.get(stem) == "histogram":
            return stem
    return token


def recording_rules() -> set[str]:
    rules = safe_load((ROOT / "deploy" / "prometheus" / "rules.yml").read_text(encoding="utf-8"))
    return {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}


def unknown_names(text: str, types: dict[str, str]) -> set[str]:
    without_rules = RECORDING_RULE.sub(" ", text)
    return {t for t in METRIC.findall(without_rules) if base_name(t, types) not in types}


def test_exporter_keeps_the_design_contract() -> None:
    """Every DESIGN §7 metric is exported (additions, such as ragmon_captured_total, are allowed)."""
    types, _, _ = exported()
    assert set(types) >= DESIGN_7


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_referenced_metrics_exist(path: Path) -> None:
    types, _, _ = exported()
    text = path.read_text(encoding="utf-8")
    assert unknown_names(text, types) == set()
    assert set(RECORDING_RULE.findall(text)) <= recording_rules()


def test_a_misspelt_metric_is_caught() -> None:
    types, _, _ = exported()
    text = 'sum(rate(ragmon_claim_total{verdict="unsupported"}[5m])) / pipeline_judge:ragmon_claims:rate10m'
    assert unknown_names(text, types) == {"ragmon_claim_total"}


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_selector_labels_and_values_exist(path: Path) -> None:
    """`ragmon_claims_total{verdict="unsupported"}`: the label exists on that metric and, for the bounded
    labels the exporter defines, every value (or regex alternative) is one it emits."""
    types, labels, values = exported()
    enumerated = {
        "verdict": set(exporter_module.VERDICTS), "transport": set(exporter_module.TRANSPORTS),
        "metric": set(METRIC_NAMES), "reason": set(exporter_module.REJECT_REASONS),
        "outcome": set(exporter_module.OUTCOMES) | set(exporter_module.JUDGE_OUTCOMES),
    }
    assert enumerated["outcome"] <= values["outcome"] and enumerated["verdict"] <= values["verdict"]
    for metric, matchers in SELECTOR.findall(path.read_text(encoding="utf-8")):
        name = base_name(metric, types)
        for label, _, value in MATCHER.findall(matchers):
            assert label in labels[name] | SCRAPE_LABELS, f"{metric}: no label {label}"
            if label in enumerated and "$" not in value:
                assert set(value.split("|")) <= enumerated[label], f"{metric}{{{label}: {value}}}"
