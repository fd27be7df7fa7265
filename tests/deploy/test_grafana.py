"""grafana/: the dashboard and the provisioning files hold together without a Grafana server (none is
packaged for this platform): fixed uids that match, parseable PromQL, a namespace filter on every query,
alert rules equivalent to the Prometheus ones, and an exemplar link whose label is the one the exporter
writes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.openmetrics.exposition import generate_latest
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from yaml_files import safe_dump, safe_load

from ragmon.exporter import Exporter
from ragmon.model import Claim, ClaimVerdict, Example, ExampleResult

ROOT = Path(__file__).resolve().parents[2]
GRAFANA = ROOT / "grafana"
DASHBOARD = GRAFANA / "dashboards" / "ragmon.json"
VARIABLES = {"$__rate_interval": "5m", "$namespace": ".*", "$pipeline": ".*", "$metric": "groundedness",
             "$judge": "lexical"}
NO_DATA_STATES = {"OK", "NoData", "Alerting", "KeepLast"}
EXEC_ERR_STATES = {"OK", "Error", "Alerting", "KeepLast"}


def load_yaml(relative: str) -> Any:
    return safe_load((GRAFANA / relative).read_text(encoding="utf-8"))


def dashboard() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def panels() -> list[dict[str, Any]]:
    return [p for p in dashboard()["panels"] if p["type"] != "row"]


def datasources() -> dict[str, dict[str, Any]]:
    return {d["uid"]: d for d in load_yaml("provisioning/datasources/ragmon.yaml")["datasources"]}


def prometheus_uid() -> str:
    (uid,) = [uid for uid, d in datasources().items() if d["type"] == "prometheus"]
    return uid


def alert_rules() -> list[dict[str, Any]]:
    return [r for g in load_yaml("provisioning/alerting/ragmon-alerts.yaml")["groups"] for r in g["rules"]]


def prometheus_annotations() -> list[dict[str, Any]]:
    """The dashboard's annotations that query Prometheus (not Grafana's built-in one)."""
    return [a for a in dashboard()["annotations"]["list"] if not a.get("builtIn")]


def dashboard_exprs() -> list[str]:
    return [t["expr"] for p in panels() for t in p["targets"]] + [a["expr"] for a in prometheus_annotations()]


def alert_exprs() -> list[str]:
    return [q["model"]["expr"] for r in alert_rules() for q in r["data"] if "expr" in q["model"]]


def substitute(expr: str, variables: dict[str, str] = VARIABLES) -> str:
    for variable in sorted(variables, key=len, reverse=True):
        expr = expr.replace(variable, variables[variable])
    return expr


def test_dashboard_has_a_fixed_identity_and_no_import_placeholders() -> None:
    board = dashboard()
    assert board["uid"] == "ragmon-overview" and 8 <= len(board["uid"]) <= 40
    assert "id" not in board and "__inputs" not in board
    assert "${DS_" not in DASHBOARD.read_text(encoding="utf-8")
    assert isinstance(board["schemaVersion"], int)


def test_every_query_uses_the_provisioned_prometheus_datasource() -> None:
    uid = prometheus_uid()
    for panel in panels():
        assert panel["datasource"] == {"type": "prometheus", "uid": uid}, panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == uid, panel["title"]
    for variable in dashboard()["templating"]["list"]:
        assert variable["datasource"]["uid"] == uid, variable["name"]
    for annotation in prometheus_annotations():
        assert annotation["datasource"] == {"type": "prometheus", "uid": uid}, annotation["name"]


def test_panels_are_laid_out_and_targets_identified() -> None:
    all_panels = dashboard()["panels"]
    assert len({p["id"] for p in all_panels}) == len(all_panels)
    for panel in all_panels:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, panel["title"]
    for panel in panels():
        refs = [t["refId"] for t in panel["targets"]]
        assert refs and all(refs) and len(set(refs)) == len(refs), panel["title"]
        assert all(t["expr"].strip() for t in panel["targets"]), panel["title"]


LABEL_VALUES = re.compile(r"label_values\((\w+)(?:\{[^}]*\})?, (\w+)\)")


def listed_by(name: str) -> tuple[str, str]:
    """The metric a dashboard variable lists the values of, and the label it lists."""
    variable = {v["name"]: v for v in dashboard()["templating"]["list"]}[name]
    assert variable["query"]["query"] == variable["definition"], name
    match = LABEL_VALUES.fullmatch(variable["definition"])
    assert match, variable["definition"]
    return match[1], match[2]


def exported(exporter: Exporter, metric: str, label: str) -> dict[str, float]:
    """What the exporter's page holds under each value of `label` in the samples named `metric`."""
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(generate_latest(exporter.registry).decode()):
        for sample in family.samples:
            if sample.name == metric and label in sample.labels:
                value = sample.labels[label]
                totals[value] = totals.get(value, 0.0) + sample.value
    return totals


def test_pipeline_variable_lists_the_pipelines_of_every_decided_trace_in_the_chosen_namespaces() -> None:
    """The pipelines offered are those whose traces were counted, whatever became of them: one whose
    every trace fails extraction and one whose answers all abstain judge no claim, so the claims counter
    held nothing but the zero series made for their labels. The trace ledger counts each decided trace."""
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    pipeline = variables["pipeline"]
    assert pipeline["type"] == "query" and pipeline["multi"] and pipeline["includeAll"]
    assert 'namespace=~"$namespace"' in pipeline["definition"]
    assert sum('pipeline=~"$pipeline"' in e for e in dashboard_exprs()) >= 10
    live = Exporter()
    failing, abstaining, judged = (live.pipeline_label(name) for name in ("failing", "abstaining", "judged"))
    live.trace_outcome(failing, "error")
    claim = ClaimVerdict(Claim("Refunds take 5 days.", 0, 20), supported=True)
    for label, verdicts in ((abstaining, ()), (judged, (claim,))):
        live.trace_outcome(label, "scored")
        live.example_scored(label, "lexical", ExampleResult(Example(label, "q?"), "lexical", {}, verdicts),
                            "4bf92f3577b34da6a3ce929d0e0e4736")
    counted = {name for name, total in exported(live, *listed_by("pipeline")).items() if total > 0}
    assert counted == {"failing", "abstaining", "judged"}


def test_judge_variable_offers_the_judges_before_the_first_trace() -> None:
    """A judge is offered from start-up: before any trace the claims counter has no series at all (they
    are made per pipeline), which left the selector empty and every quality panel reading no judge."""
    live = Exporter(judges=("lexical", "claude"))
    assert set(exported(live, *listed_by("judge"))) == {"lexical", "claude"}


def offered(tmp_path: Path, name: str, variables: dict[str, str], series: dict[str, str],
            expected: set[str]) -> None:
    """Checks that the dashboard variable `name` lists `expected` over `series` with the variables before
    it set to `variables`: Grafana's label_values(selector, label) lists the values of `label` in the
    series `selector` matches, as `group by (label)` of it does."""
    selector = re.fullmatch(r"label_values\((.+), \w+\)", variable_definition(name))[1]
    label = listed_by(name)[1]
    values = f"group by ({label}) ({substitute(selector, variables)})"
    promtool_expects(tmp_path, values, series, {f'{{{label}="{value}"}}': 1 for value in expected})
    promtool_expects(tmp_path, f"count({values})", series, {"{}": len(expected)})


def variable_definition(name: str) -> str:
    return {v["name"]: v for v in dashboard()["templating"]["list"]}[name]["definition"]


def test_judge_and_metric_variables_offer_what_the_chosen_namespace_runs(tmp_path: Path) -> None:
    """staging runs the Claude judge beside the lexical one, prod the lexical judge alone: with prod
    chosen, the judge selector had offered claude too, whose panels were empty there. The metric
    selector lists the metrics scored by the chosen judge in the chosen namespaces and pipelines. By
    hand, prod's lexical judge scores groundedness for support; staging's judges score answer_relevance
    too, and prod's billing pipeline (not chosen) context_relevance: with prod and support chosen, judge
    lexical alone, metric groundedness alone."""
    def calls(namespace: str, judge: str) -> dict[str, str]:
        return {f'ragmon_judge_requests_total{{job="ragmon",namespace="{namespace}",judge="{judge}",'
                f'outcome="ok"}}': "0+1x30"}

    def scored(namespace: str, pipeline: str, judge: str, metric: str) -> dict[str, str]:
        return {f'ragmon_example_score_count{{job="ragmon",namespace="{namespace}",pipeline="{pipeline}",'
                f'judge="{judge}",metric="{metric}"}}': "0+1x30"}

    series = {**calls("prod", "lexical"), **calls("staging", "lexical"), **calls("staging", "claude"),
              **scored("prod", "support", "lexical", "groundedness"),
              **scored("prod", "billing", "lexical", "context_relevance"),
              **scored("staging", "support", "lexical", "answer_relevance"),
              **scored("staging", "support", "claude", "answer_relevance")}
    prod = {**VARIABLES, "$namespace": "prod", "$pipeline": "support", "$judge": "lexical"}
    offered(tmp_path, "judge", prod, series, {"lexical"})
    offered(tmp_path, "metric", prod, series, {"groundedness"})
    offered(tmp_path, "judge", VARIABLES, series, {"lexical", "claude"})
    names = [v["name"] for v in dashboard()["templating"]["list"]]
    assert names.index("namespace") < names.index("judge") < names.index("metric")
    assert names.index("pipeline") < names.index("metric")


SELECTOR = re.compile(r"((?:\w+:)?ragmon_\w+(?::\w+)?|\bup\b)(\{[^}]*\})?")
"""A metric (or recorded series) in a query, and its label matchers if any."""


def test_namespace_variable_filters_every_query() -> None:
    """Environments in namespaces of their own share pipeline names, and the recording rules keep them
    apart. The namespace variable lists them (none outside Kubernetes: its All, `.*`, then matches the
    absent label too) and filters every series the dashboard reads, the pipelines offered included."""
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    namespace = variables["namespace"]
    assert namespace["type"] == "query" and namespace["multi"] and namespace["includeAll"]
    assert namespace["allValue"] == ".*" and namespace["current"]["value"] == ["$__all"]
    # Every ragmon target has `up`, before its first trace, with no spans reaching it (RagmonNoSpans) or
    # failing its scrapes (RagmonDown): a namespace of those had no claims series and could not be chosen.
    query = 'label_values(up{job="ragmon"}, namespace)'
    assert namespace["query"]["query"] == namespace["definition"] == query
    assert list(variables).index("namespace") < list(variables).index("pipeline")
    unfiltered = [(expr, metric) for expr in dashboard_exprs() for metric, matchers in SELECTOR.findall(expr)
                  if 'namespace=~"$namespace"' not in matchers]
    assert unfiltered == []


def test_series_per_pipeline_are_told_apart_by_namespace() -> None:
    """A panel whose series keep `namespace` (a recorded series as it is, or summed `by` it) shows one
    series per namespace and pipeline: a legend of the pipeline alone would show two the same."""
    same = []
    for panel in panels():
        for target in panel["targets"]:
            expr, legend = target["expr"], target["legendFormat"]
            kept = re.match(r"\w+:\w+:\w+\{", expr) or re.search(r"by \([^)]*\bnamespace\b", expr)
            if kept and "{{pipeline}}" in legend and "{{namespace}}" not in legend:
                same.append(f'{panel["title"]} {target["refId"]}')
    assert same == []


def test_dashboard_covers_the_contract() -> None:
    text = " ".join(dashboard_exprs())
    for needed in ("ragmon_example_score:mean10m", "ragmon_claims_unsupported_per_claims",
                   "ragmon_example_score_bucket", "ragmon_claims_total", "ragmon_judge_requests_total",
                   "ragmon_judge_cost_usd_total", "ragmon_judge_duration_seconds_bucket",
                   "ragmon_spans_received_total", "ragmon_spans_rejected_total", "ragmon_traces_total",
                   "ragmon_score_lag_seconds_bucket", "ragmon_traces_in_flight", "ragmon_score_queue_depth",
                   "ragmon_pipeline_overflow_total"):
        assert needed in text, needed


def shipped_rules() -> list[dict[str, Any]]:
    shipped = safe_load((ROOT / "deploy" / "prometheus" / "rules.yml").read_text(encoding="utf-8"))
    return [r for group in shipped["groups"] for r in group["rules"]]


def test_the_headline_groundedness_is_the_figure_the_critical_alert_and_the_gate_use() -> None:
    # On call sees one groundedness: the mean over answers, as RagmonGroundednessLow and `replay --gate`
    # compute it, not the share of supported claims (1 - hallucination), where long answers weigh more.
    alert = next(r["expr"] for r in shipped_rules() if r.get("alert") == "RagmonGroundednessLow")
    figure = 'pipeline_judge_metric:ragmon_example_score:mean10m{metric="groundedness"}'
    assert alert.startswith(figure + " < 0.6")
    groundedness = [p for p in panels() if p["title"].startswith("Groundedness")]
    assert len(groundedness) == 3
    for panel in groundedness:
        expr = panel["targets"][0]["expr"]
        assert expr.startswith('pipeline_judge_metric:ragmon_example_score:mean10m{metric="groundedness",')


@pytest.mark.parametrize("title", ["RagmonHallucinationRateHigh", "RagmonGroundednessLow"])
def test_quality_alerts_link_to_the_panel_of_their_figure(title: str) -> None:
    """A Grafana alert's panel link is where on call lands from the notification: a quality alert's must
    draw the figure its Prometheus twin compares with the threshold, by pipeline. RagmonGroundednessLow
    linked to "Mean example score by metric", every metric of every judge in one graph, six lines per
    pipeline of which one was the alerted groundedness."""
    (rule,) = [r for r in alert_rules() if r["title"] == title]
    (panel,) = [p for p in panels() if p["id"] == rule["panelId"]]
    figure = re.split(r" [<>] ", prometheus_alerts()[title]["expr"])[0]
    selector = figure[:-1] + "," if figure.endswith("}") else figure + "{"
    assert [t["expr"] for t in panel["targets"] if t["expr"].startswith(selector)], panel["title"]


def test_every_expression_parses(tmp_path: Path) -> None:
    """promtool parses each dashboard and alert query, wrapped as a recording rule (variables filled in)."""
    exprs = [substitute(e) for e in dashboard_exprs() + alert_exprs()]
    assert not [e for e in exprs if "$" in e]
    rules = {"groups": [{"name": "parse", "rules": [{"record": f"check:query:n{i}", "expr": e}
                                                    for i, e in enumerate(exprs)]}]}
    path = tmp_path / "queries.yml"
    path.write_text(safe_dump(rules), encoding="utf-8")
    result = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_score_exemplars_link_to_the_tracing_datasource() -> None:
    """The panel asks for exemplars, and the datasource maps the exemplar label the exporter writes."""
    score_targets = [t for p in panels() for t in p["targets"] if "ragmon_example_score_bucket" in t["expr"]]
    assert any(t.get("exemplar") for t in score_targets)
    live = Exporter()
    result = ExampleResult(Example("e1", "q?"), "lexical", {"groundedness": 0.5}, ())
    live.example_scored(live.pipeline_label("bot"), "lexical", result, "4bf92f3577b34da6a3ce929d0e0e4736")
    exposition = generate_latest(live.registry).decode()
    written = set(re.findall(r' # \{(\w+)="4bf92f3577b34da6a3ce929d0e0e4736"\}', exposition))
    (destination,) = datasources()[prometheus_uid()]["jsonData"]["exemplarTraceIdDestinations"]
    assert written == {destination["name"]}
    assert datasources()[destination["datasourceUid"]]["type"] in {"jaeger", "tempo", "zipkin"}


def test_alert_rules_are_well_formed() -> None:
    uids = [r["uid"] for r in alert_rules()]
    assert len(set(uids)) == len(uids) and all(len(u) <= 40 for u in uids)
    panel_ids = {p["id"] for p in panels()}
    for rule in alert_rules():
        refs = [q["refId"] for q in rule["data"]]
        assert rule["condition"] in refs, rule["title"]
        for position, query in enumerate(rule["data"]):
            assert query["model"]["refId"] == query["refId"]
            assert query["datasourceUid"] in {prometheus_uid(), "__expr__"}, rule["title"]
            if query["datasourceUid"] == "__expr__":
                assert query["model"]["expression"] in refs[:position], rule["title"]
        assert rule["noDataState"] in NO_DATA_STATES and rule["execErrState"] in EXEC_ERR_STATES
        assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["title"]
        if "dashboardUid" in rule:
            assert rule["dashboardUid"] == dashboard()["uid"] and rule["panelId"] in panel_ids


def test_no_data_alerts_only_where_no_data_is_the_finding() -> None:
    states = {r["title"]: r["noDataState"] for r in alert_rules()}
    assert {t for t, s in states.items() if s == "Alerting"} == {"RagmonAbsent"}
    assert {r["execErrState"] for r in alert_rules()} == {"Error"}


PROMETHEUS_ONLY = {
    "RagmonQualityUnmeasured": ("it reads Prometheus's ALERTS series, which Grafana-managed rules do "
                                "not write; Grafana's quality rules keep their last state through no data "
                                "instead"),
}
"""Prometheus alerts with no Grafana rule, and why (docs/deploy.md, "Grafana", says so to users)."""


def prometheus_alerts() -> dict[str, dict[str, Any]]:
    rules = safe_load((ROOT / "deploy" / "prometheus" / "rules.yml").read_text(encoding="utf-8"))
    return {r["alert"]: r for g in rules["groups"] for r in g["rules"] if "alert" in r}


def test_alert_rules_match_the_prometheus_rules() -> None:
    """Same alerts, severities, `for` durations and runbooks as deploy/prometheus/rules.yml, but for the
    named PROMETHEUS_ONLY ones, which must still be Prometheus alerts (an exemption outliving its alert
    would excuse a new alert of that name)."""
    prometheus = {name: (r["labels"]["severity"], r["for"], r["annotations"]["runbook_url"])
                  for name, r in prometheus_alerts().items()}
    grafana = {r["title"]: (r["labels"]["severity"], r["for"], r["annotations"]["runbook_url"])
               for r in alert_rules()}
    assert set(PROMETHEUS_ONLY) <= set(prometheus), PROMETHEUS_ONLY
    assert grafana == {name: rule for name, rule in prometheus.items() if name not in PROMETHEUS_ONLY}


def test_quality_rules_keep_firing_while_nothing_is_scored() -> None:
    """What stands in for RagmonQualityUnmeasured: the Grafana rules of the alerts it watches (the names
    its ALERTS matcher reads in rules.yml) keep their last state when their query returns nothing, so a
    firing one does not resolve when scoring stops. No other rule does: elsewhere no data is no finding."""
    (watched,) = re.findall(r'alertname=~"([^"]+)"', prometheus_alerts()["RagmonQualityUnmeasured"]["expr"])
    states = {r["title"]: r["noDataState"] for r in alert_rules()}
    assert {title for title, state in states.items() if state == "KeepLast"} == set(watched.split("|"))


def test_quality_queries_return_nothing_once_scoring_stops(tmp_path: Path) -> None:
    """Why KeepLast is what holds a quality alert, and where it does not. Per minute until 60m, one pod:
    chat scores 2 examples with groundedness 1 in all (mean 0.5) and 10 claims, 3 unsupported (0.3);
    then nothing more. fine scores 2 examples of 1.8 in all (0.9) and 10 claims, 1 unsupported (0.1),
    until 60m or throughout. At 30m both read their ratios. At 75m, with fine still scored, the query
    returns fine alone (chat is a missing series, which Grafana resolves); with fine stopped too it
    returns nothing: no data for the rule as a whole, where KeepLast applies."""
    def judged(metric: str, pipeline: str, extra: str = "") -> str:
        return f'{metric}{{job="ragmon",instance="a:9464",pipeline="{pipeline}",judge="lexical"{extra}}}'

    def scored(pipeline: str, examples: str, score_sum: str, supported: str,
               unsupported: str) -> dict[str, str]:
        metric = ',metric="groundedness"'
        return {judged("ragmon_example_score_count", pipeline, metric): examples,
                judged("ragmon_example_score_sum", pipeline, metric): score_sum,
                judged("ragmon_claims_total", pipeline, ',verdict="supported"'): supported,
                judged("ragmon_claims_total", pipeline, ',verdict="unsupported"'): unsupported}

    chat = scored("chat", "0+2x60 120x30", "0+1x60 60x30", "0+7x60 420x30", "0+3x60 180x30")
    fine_stopped = scored("fine", "0+2x60 120x30", "0+1.8x60 108x30", "0+9x60 540x30", "0+1x60 60x30")
    fine = scored("fine", "0+2x90", "0+1.8x90", "0+9x90", "0+1x90")
    pipeline = '{{pipeline="{}",judge="lexical"}}'.format
    for title, chat_ratio, fine_ratio in (("RagmonGroundednessLow", 0.5, 0.9),
                                          ("RagmonHallucinationRateHigh", 0.3, 0.1)):
        query = grafana_query(title)
        promtool_expects(tmp_path, query, {**chat, **fine},
                         {pipeline("chat"): chat_ratio, pipeline("fine"): fine_ratio}, "30m")
        promtool_expects(tmp_path, query, {**chat, **fine}, {pipeline("fine"): fine_ratio}, "75m")
        promtool_expects(tmp_path, f"count({query})", {**chat, **fine}, {"{}": 1}, "75m")
        promtool_expects(tmp_path, f"count({query}) or vector(0)", {**chat, **fine_stopped}, {"{}": 0}, "75m")


TARGET_LABELS = ("job", "namespace", "instance")


def scraped(series: dict[str, str], values: str) -> dict[str, str]:
    """`series` and the `up` (`values`) of each ragmon target they come from: the alert queries kept per
    process hold only for targets Prometheus still has."""
    ups = {}
    for name in series:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', name))
        if labels.get("job") == "ragmon":
            target = ",".join(f'{key}="{labels[key]}"' for key in TARGET_LABELS if key in labels)
            ups[f"up{{{target}}}"] = values
    return {**series, **ups}


def process_starts(target: str, values: str, job: str = "ragmon") -> dict[str, str]:
    """process_start_time_seconds of one scrape target: a new value is a new process."""
    return {f'process_start_time_seconds{{job="{job}",{target}}}': values}


NODE_EXPORTER_RESTARTS = process_starts('namespace="prod",instance="10.0.2.9:9100"',
                                        "0x3 stale 300x3 stale 600x20", job="node")
"""A node exporter in prod restarting twice: every client library exports process_start_time_seconds."""


def test_restart_query_counts_each_pods_new_processes(tmp_path: Path) -> None:
    """The Grafana RagmonRestarting query at 30m, scraped every minute; Grafana alerts above 2. By hand:
    prod's pod a crash-loops, up 4 minutes and down 1 (lives from 0, 5, 10, 15 and 20m): 4, alerting;
    pod b restarted in place once, at 10m: 1; staging's rolling deploy replaces pod 10.0.1.5 with
    10.0.1.6 at 10m: 0 for the new pod, nothing for the old one, no longer a target; docker compose's
    ragmon, a deploy at 10m and its rollback at 20m: 2, not alerting. A node exporter restarting in prod
    is not ragmon's."""
    staging_b = 'namespace="staging",instance="10.0.1.6:9464"'
    compose = 'instance="ragmon:9464"'
    series = {**scraped({
        **process_starts(PROD_A, "0x3 stale 300x3 stale 600x3 stale 900x3 stale 1200x15"),
        **process_starts(PROD_B, "0x9 stale 600x20"),
        **process_starts(compose, "0x9 stale 600x9 stale 1200x10"),
        **NODE_EXPORTER_RESTARTS,
    }, "1x30"), **scraped(process_starts(STAGING, "0x9 stale"), "1x9 stale"),
        **scraped(process_starts(staging_b, "_x10 600x20"), "_x10 1x20")}
    query = grafana_query("RagmonRestarting")
    ragmon = '{{job="ragmon",{}}}'.format
    promtool_expects(tmp_path, query, series, {
        ragmon(PROD_A): 4, ragmon(PROD_B): 1, ragmon(staging_b): 0, ragmon(compose): 2,
    }, "30m")
    promtool_expects(tmp_path, f"count({query})", series, {"{}": 4}, "30m")
    (rule,) = [r for r in alert_rules() if r["title"] == "RagmonRestarting"]
    (threshold,) = [q["model"] for q in rule["data"] if q["model"].get("type") == "threshold"]
    assert threshold["conditions"] == [{"evaluator": {"type": "gt", "params": [2]}}]


def test_queries_per_process_forget_a_pod_gone(tmp_path: Path) -> None:
    """rules_test.yml's pods deleted at 30m (stale markers at 30m), scraped every minute, through the
    Grafana queries. By hand, at 29m: pod 10.0.2.1 refused 29 calls over its spent budget in the hour
    (alerting above 0), pod 10.0.2.2 started 3 new processes (above 2), pod 10.0.2.3 received no span (0,
    alerting below 1/3600 a second) and pod 10.0.2.4 100 a minute, 2900 over the hour's 3600 seconds
    (3100 at 31m). At 31m, the first three gone: nothing for them, where their windows' samples read 29, 3
    and 0 and kept them alerting."""
    pod = 'job="ragmon",namespace="prod",instance="10.0.2.{}:9464"'.format
    gone = scraped({
        f'ragmon_judge_requests_total{{{pod(1)},judge="claude",outcome="over_budget"}}': "0+1x29 stale",
        f'ragmon_judge_committed_usd{{{pod(1)},judge="claude"}}': "5x29 stale",
        f'ragmon_judge_budget_usd{{{pod(1)},judge="claude"}}': "5x29 stale",
        f"process_start_time_seconds{{{pod(2)}}}": "0x4 300x4 600x4 900x14 stale",
        f'ragmon_spans_received_total{{{pod(3)},transport="http"}}': "0x29 stale",
        f'ragmon_spans_rejected_total{{{pod(3)},reason="invalid"}}': "0x29 stale",
    }, "1x29 stale")
    stays = scraped({f'ragmon_spans_received_total{{{pod(4)},transport="http"}}': "0+100x40",
                     f'ragmon_spans_rejected_total{{{pod(4)},reason="invalid"}}': "0x40"}, "1x40")
    series = {**gone, **stays}
    query = " or ".join(grafana_query(title)
                        for title in ("RagmonLLMBudgetExhausted", "RagmonRestarting", "RagmonNoSpans"))
    promtool_expects_at(tmp_path, query, series, {
        "29m": {f'{{{pod(1)},judge="claude"}}': 29, f"{{{pod(2)}}}": 3, f"{{{pod(3)}}}": 0,
                f"{{{pod(4)}}}": 2900 / 3600},
        "31m": {f"{{{pod(4)}}}": 3100 / 3600},
    })
    promtool_expects_at(tmp_path, f"count({query})", series, {"29m": {"{}": 4}, "31m": {"{}": 1}})


def test_overflow_query_counts_each_processes_traces_past_the_cap(tmp_path: Path) -> None:
    """The Grafana RagmonPipelineOverflow query, scraped every minute; Grafana alerts above 0 held for 15
    minutes. By hand: pod a counts 2 traces a minute under `other`: 15 x 2 = 30 in 15 minutes. Pod b, one
    stray trace at 2m: 1 up to 16m (above 0 for 14 minutes, so it never fires), 0 at 40m. Pod c runs with
    --pipelines (flat at 0), pod d overflowed before the window (flat at 7): 0 throughout."""
    pod = 'job="ragmon",instance="{}:9464"'.format
    series = scraped({f"ragmon_pipeline_overflow_total{{{pod(name)}}}": values
                      for name, values in (("a", "0+2x60"), ("b", "0 0 1x58"), ("c", "0x60"), ("d", "7x60"))},
                     "1x60")
    promtool_expects_at(tmp_path, grafana_query("RagmonPipelineOverflow"), series, {
        "16m": {f"{{{pod('a')}}}": 30, f"{{{pod('b')}}}": 1, f"{{{pod('c')}}}": 0, f"{{{pod('d')}}}": 0},
        "40m": {f"{{{pod('a')}}}": 30, f"{{{pod('b')}}}": 0, f"{{{pod('c')}}}": 0, f"{{{pod('d')}}}": 0},
    })
    (rule,) = [r for r in alert_rules() if r["title"] == "RagmonPipelineOverflow"]
    (threshold,) = [q["model"] for q in rule["data"] if q["model"].get("type") == "threshold"]
    assert threshold["conditions"] == [{"evaluator": {"type": "gt", "params": [0]}}]
    assert rule["for"] == "15m"


def grafana_query(title: str) -> str:
    (rule,) = [r for r in alert_rules() if r["title"] == title]
    (expr,) = [q["model"]["expr"] for q in rule["data"] if "expr" in q["model"]]
    return expr


HALLUCINATION_HOUR = "RagmonHallucinationRateHighOverHour"
GROUNDEDNESS_HOUR = "RagmonGroundednessLowOverHour"
hour_figure = '{{rule="{}",pipeline="{}",judge="{}"}}'.format


def hour_queries() -> str:
    """Both hour rules' queries as one, their results told apart by a label `rule`: one promtool run
    checks both."""
    return " or ".join(f'label_replace({grafana_query(title)}, "rule", "{title}", "", "")'
                       for title in (HALLUCINATION_HOUR, GROUNDEDNESS_HOUR))


def promtool_expects(tmp_path: Path, expr: str, series: dict[str, str], expected: dict[str, float],
                     eval_time: str = "20m", interval: str = "1m") -> None:
    """`promtool_expects_at` at one eval time."""
    promtool_expects_at(tmp_path, expr, series, {eval_time: expected}, interval)


def labelled(labels: str, value: float) -> str:
    """`value` as a one-sample vector with `labels` (`{a="x",b="y"}`), to match a query's result with."""
    vector = f"vector({value!r})"
    for name, text in re.findall(r'(\w+)="([^"]*)"', labels):
        vector = f'label_replace({vector}, "{name}", "{text}", "", "")'
    return vector


def promtool_expects_at(tmp_path: Path, expr: str, series: dict[str, str],
                        expected: dict[str, dict[str, float]], interval: str = "1m") -> None:
    """Evaluates `expr` at each eval time of `expected` over `series` (sampled each `interval`) in one
    promtool run, and checks each labelled result is within 1e-9 of its expected value. Only at those
    times, and with the shipped rules (evaluated each `interval`) only where `expr` reads what they record,
    as dashboard queries do: recording an hour rule's query every minute, or evaluating rules.yml, over
    three hours took seconds. On a mismatch the message also holds what the query gave."""
    reads_records = any(r["record"] in expr for r in shipped_rules() if "record" in r)
    if reads_records:
        shutil.copy(ROOT / "deploy" / "prometheus" / "rules.yml", tmp_path / "shipped.yml")
    def run(checks: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
        tests = {"rule_files": ["shipped.yml"] if reads_records else [], "evaluation_interval": interval,
                 "tests": [{
                     "interval": interval,
                     "input_series": [{"series": name, "values": values} for name, values in series.items()],
                     "promql_expr_test": checks,
                 }]}
        (tmp_path / "test.yml").write_text(safe_dump(tests), encoding="utf-8")
        return subprocess.run(["promtool", "test", "rules", "test.yml"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)

    def within(values: dict[str, float]) -> str:
        return f"abs(({expr}) - ({' or '.join(labelled(*item) for item in values.items())})) < bool 1e-9"

    result = run([{"expr": within(values), "eval_time": eval_time,
                   "exp_samples": [{"labels": labels, "value": 1} for labels in values]}
                  for eval_time, values in expected.items()])
    if result.returncode != 0:
        got = run([{"expr": expr, "eval_time": eval_time, "exp_samples": []} for eval_time in expected])
        raise AssertionError(f"{result.stdout}{result.stderr}\nexpected {expected}; the query gave:\n"
                             f"{got.stdout}{got.stderr}")


def test_rejected_share_counts_the_assembler_drops_once(tmp_path: Path) -> None:
    """The Grafana RagmonSpansRejected query. A late span was accepted by a receiver before the assembler
    dropped it, so it is already in ragmon_spans_received_total; only `invalid` refusals add to it.

    By hand, per minute: 9900 spans accepted, 99 of them then dropped late, 100 refused as invalid.
    Reaching the instance = 9900 + 100 = 10000: late 99 / 10000 = 0.0099, invalid 100 / 10000 = 0.01.
    (Counting the late spans twice would give 99 / 10099 and 100 / 10099.) The 7 unauthorized requests
    a minute count requests, not spans: no share of their own, and not in the denominator.
    """
    labels = 'job="ragmon",instance="a:9464"'
    promtool_expects(tmp_path, grafana_query("RagmonSpansRejected"), scraped({
        f'ragmon_spans_received_total{{{labels},transport="http"}}': "0+9900x30",
        f'ragmon_spans_rejected_total{{{labels},reason="late"}}': "0+99x30",
        f'ragmon_spans_rejected_total{{{labels},reason="invalid"}}': "0+100x30",
        f'ragmon_spans_rejected_total{{{labels},reason="unauthorized"}}': "0+7x30",
    }, "1x30"), {f'{{{labels},reason="late"}}': 0.0099, f'{{{labels},reason="invalid"}}': 0.01})


def test_trace_outcome_queries_tell_probes_from_unscored_rag_traces(tmp_path: Path) -> None:
    """The Grafana RagmonNoTracesScored and RagmonNoRagTraces queries give 1 (alerting) or 0 per
    instance. Per minute, by hand: a decides 2 `error` traces and scores none -> 1 and 0; b only sees
    3 health-probe traces (`not_rag`) -> 0 and 1; c scores 5 and has 5 `not_sampled` and 3 `not_rag`
    -> 0 and 0; d has 1 `evicted` and no `scored` series at all -> 1 and 0."""
    def traces(instance: str, outcome: str) -> str:
        return f'ragmon_traces_total{{job="ragmon",instance="{instance}",pipeline="p",outcome="{outcome}"}}'

    series = scraped({
        traces("a", "error"): "0+2x90", traces("a", "scored"): "0x90",
        traces("b", "not_rag"): "0+3x90", traces("b", "scored"): "0x90",
        traces("c", "scored"): "0+5x90", traces("c", "not_sampled"): "0+5x90",
        traces("c", "not_rag"): "0+3x90",
        traces("d", "evicted"): "0+1x90",
    }, "1x90")
    instance = '{{job="ragmon",instance="{}"}}'.format
    promtool_expects(tmp_path, grafana_query("RagmonNoTracesScored"), series,
                     {instance("a"): 1, instance("b"): 0, instance("c"): 0, instance("d"): 1}, "80m")
    promtool_expects(tmp_path, grafana_query("RagmonNoRagTraces"), series,
                     {instance("a"): 0, instance("b"): 1, instance("c"): 0, instance("d"): 0}, "80m")


def test_pipeline_failing_query_reads_each_pipelines_error_share(tmp_path: Path) -> None:
    """The Grafana RagmonPipelineFailing query: the share of `error` among a pipeline's traces other than
    `not_rag`, summed across pods. Per minute, by hand: checkout 8 error and 20 not_rag -> 8 / 8 = 1
    (8 / 28 with the probes); search 3 error, 7 scored -> 0.3; support 10 scored -> 0; billing 6 error
    on pod a and 2 scored on pod b -> 6 / 8 = 0.75 (pod a alone: 1). Grafana's threshold (> 0.5) then
    alerts on checkout and billing."""
    def traces(instance: str, pipeline: str, outcome: str) -> str:
        return (f'ragmon_traces_total{{job="ragmon",instance="{instance}",pipeline="{pipeline}",'
                f'outcome="{outcome}"}}')

    series = {
        traces("a", "checkout", "error"): "0+8x40", traces("a", "checkout", "not_rag"): "0+20x40",
        traces("a", "search", "error"): "0+3x40", traces("a", "search", "scored"): "0+7x40",
        traces("a", "support", "scored"): "0+10x40", traces("a", "support", "error"): "0x40",
        traces("a", "billing", "error"): "0+6x40", traces("b", "billing", "scored"): "0+2x40",
    }
    promtool_expects(tmp_path, grafana_query("RagmonPipelineFailing"), series, {
        '{pipeline="checkout"}': 1, '{pipeline="search"}': 0.3, '{pipeline="support"}': 0,
        '{pipeline="billing"}': 0.75}, "30m")


STAGING = 'namespace="staging",instance="10.0.1.5:9464"'
PROD_A = 'namespace="prod",instance="10.0.2.5:9464"'
PROD_B = 'namespace="prod",instance="10.0.2.6:9464"'
"""Targets as the Prometheus Operator labels them: two environments, one pod in staging, two in prod."""


def environment_claims(target: str, verdict: str, pipeline: str = "checkout-rag") -> str:
    """A series of the lexical judge's claims of `pipeline` scraped from `target`."""
    return (f'ragmon_claims_total{{job="ragmon",{target},pipeline="{pipeline}",judge="lexical",'
            f'verdict="{verdict}"}}')


CHECKOUT_CLAIMS = {
    environment_claims(STAGING, "supported"): "0+7x30", environment_claims(STAGING, "unsupported"): "0+3x30",
    environment_claims(PROD_A, "supported"): "0+34x30", environment_claims(PROD_A, "unsupported"): "0+6x30",
    environment_claims(PROD_B, "supported"): "0+47x30", environment_claims(PROD_B, "unsupported"): "0+3x30",
}
"""Per minute: staging's checkout-rag 3 unsupported claims of 10, prod's 6 of 40 and 3 of 50."""
CHECKOUT_ANSWERS = {
    f'ragmon_example_score_count{{job="ragmon",{target},pipeline="checkout-rag",judge="lexical",'
    f'metric="groundedness"}}': values
    for target, values in ((STAGING, "0+4x30"), (PROD_A, "0+8x30"), (PROD_B, "0+10x30"))
}
"""Per minute, the answers with claims behind CHECKOUT_CLAIMS: staging 4, prod 8 and 10 (rules_test.yml)."""


def test_no_alert_query_sums_across_namespaces() -> None:
    """As in rules.yml: environments share pipeline names, so every aggregation and match keeps
    `namespace`, the per-pod ones too (so that their alerts can name it)."""
    for expr in alert_exprs():
        for labels in re.findall(r"\b(?:by|on) \(([^)]*)\)", expr):
            assert "namespace" in labels.replace(" ", "").split(","), (labels, expr)


def test_alerts_name_the_namespace() -> None:
    """As in rules.yml: every alert but RagmonAbsent names its namespace in its summary and description,
    inside `{{ with $labels.namespace }}` where the label may be missing (docker compose)."""
    for rule in alert_rules():
        if rule["title"] == "RagmonAbsent":
            continue
        (expr,) = [q["model"]["expr"] for q in rule["data"] if "expr" in q["model"]]
        for key in ("summary", "description"):
            text = rule["annotations"][key]
            assert "$labels.namespace" in text, (rule["title"], key)
            if 'namespace!=""' not in expr:
                bare = re.sub(r"\{\{ with \$labels\.namespace \}\}.*?\{\{ end \}\}", "", text, flags=re.S)
                assert "$labels.namespace" not in bare, (rule["title"], key)


def per_process(expr: str) -> bool:
    """Whether an alert query keeps one series per ragmon process: `instance` in one of its `by` lists."""
    return any("instance" in labels.replace(" ", "").split(",")
               for labels in re.findall(r"\bby \(([^)]*)\)", expr))


@pytest.mark.parametrize("source", ["rules.yml", "ragmon-alerts.yaml"])
def test_alerts_per_process_name_the_process(source: str) -> None:
    """An alert kept per process fires once for each process at fault, and on call acts on that process
    (its logs, its budget, its restarts): its summary and description say which. RagmonLLMBudgetExhausted
    named only the judge and the namespace, so three replicas with their budgets spent raised three
    alerts that read the same, and the runbook's query was the only way to find them."""
    if source == "rules.yml":
        rules = {name: (r["expr"], r["annotations"]) for name, r in prometheus_alerts().items()}
    else:
        rules = {r["title"]: (grafana_query(r["title"]), r["annotations"]) for r in alert_rules()}
    unnamed = {name for name, (expr, annotations) in rules.items() if per_process(expr)
               and not all("$labels.instance" in annotations[key] for key in ("summary", "description"))}
    assert {name for name, (expr, _) in rules.items() if per_process(expr)} >= {"RagmonLLMBudgetExhausted"}
    assert unnamed == set()


def test_namespace_absent_query_gives_0_for_a_namespace_gone(tmp_path: Path) -> None:
    """The Grafana RagmonNamespaceAbsent query at 40m; Grafana alerts below 1. By hand: staging scraped
    throughout -> 1; prod's two pods gone at 30m (stale markers at 31m), scraped within the day -> 0;
    canary's pod discovered but failing its scrapes (`up` 0) -> 1, RagmonDown's. With every namespace
    gone at 30m, each reads 0. A target without a namespace (docker compose) reads 1 while scraped, and
    once gone the query returns nothing (count 0), which is no data, OK: RagmonAbsent's alone."""
    def up(target: str, values: str) -> dict[str, str]:
        return {f'up{{job="ragmon",{target}}}': values}

    canary = 'namespace="canary",instance="10.0.3.5:9464"'
    compose = 'instance="ragmon:9464"'
    query = grafana_query("RagmonNamespaceAbsent")
    namespace = '{{namespace="{}"}}'.format
    promtool_expects(tmp_path, query, {
        **up(STAGING, "1x60"), **up(PROD_A, "1x30 stale"), **up(PROD_B, "1x30 stale"), **up(canary, "0x60"),
        'up{job="node",namespace="prod",instance="10.0.2.9:9100"}': "1x60",
    }, {namespace("staging"): 1, namespace("prod"): 0, namespace("canary"): 1}, "40m")
    promtool_expects(tmp_path, query, {**up(STAGING, "1x30 stale"), **up(PROD_A, "1x30 stale")},
                     {namespace("staging"): 0, namespace("prod"): 0}, "40m")
    promtool_expects(tmp_path, query, up(compose, "1x60"), {"{}": 1}, "40m")
    promtool_expects(tmp_path, f"count({query}) or vector(0)", up(compose, "1x30 stale"), {"{}": 0}, "40m")


def test_alert_queries_keep_environments_apart(tmp_path: Path) -> None:
    """The Grafana queries of the alerts summed across pods, over staging and prod both running pipeline
    checkout-rag; per minute, by hand (the numbers of rules_test.yml's group for this case):
    claims (lexical): staging 3 unsupported of 10 -> 0.3; prod 6 of 40 and 3 of 50 -> 9/90 = 0.1, in
    4, 8 and 10 answers (the 10 per 10 minutes the query needs, and more).
    traces: staging 8 error, 2 scored -> 0.8; prod 2 error and 38 scored, 50 scored -> 2/90.
    claude calls: staging 8 ok, 1 error, 1 rate_limited -> 0.2; prod 44 ok and 1 error, 45 ok -> 1/90.
    Pooled, staging's would hide under the thresholds: 12/100, 10/100 and 3/100."""
    def traces(target: str, outcome: str) -> str:
        return f'ragmon_traces_total{{job="ragmon",{target},pipeline="checkout-rag",outcome="{outcome}"}}'

    def calls(target: str, outcome: str) -> str:
        return f'ragmon_judge_requests_total{{job="ragmon",{target},judge="claude",outcome="{outcome}"}}'

    series = {
        **CHECKOUT_CLAIMS, **CHECKOUT_ANSWERS,
        traces(STAGING, "error"): "0+8x30", traces(STAGING, "scored"): "0+2x30",
        traces(PROD_A, "error"): "0+2x30", traces(PROD_A, "scored"): "0+38x30",
        traces(PROD_B, "scored"): "0+50x30",
        calls(STAGING, "ok"): "0+8x30", calls(STAGING, "error"): "0+1x30",
        calls(STAGING, "rate_limited"): "0+1x30",
        calls(PROD_A, "ok"): "0+44x30", calls(PROD_A, "error"): "0+1x30", calls(PROD_B, "ok"): "0+45x30",
    }
    pipeline = '{{namespace="{}",pipeline="checkout-rag"}}'.format
    judged = '{{namespace="{}",pipeline="checkout-rag",judge="lexical"}}'.format
    judge = '{{namespace="{}",judge="claude"}}'.format
    promtool_expects(tmp_path, grafana_query("RagmonHallucinationRateHigh"), series,
                     {judged("staging"): 0.3, judged("prod"): 0.1})
    promtool_expects(tmp_path, grafana_query("RagmonPipelineFailing"), series,
                     {pipeline("staging"): 0.8, pipeline("prod"): 2 / 90})
    promtool_expects(tmp_path, grafana_query("RagmonJudgeErrors"), series,
                     {judge("staging"): 0.2, judge("prod"): 1 / 90})


def test_hallucination_query_needs_ten_answers(tmp_path: Path) -> None:
    """The Grafana RagmonHallucinationRateHigh query, as rules_test.yml's groups for the answer guard. By
    hand, at 14m: night scored two answers of 40 claims, none supported, at 5m and 13m; its window holds
    80 claims (the 30 and more) in 2 answers, under 10: no value, where the share of claims alone read 1
    and paged a quiet pipeline. chat scores 4 answers a minute with 10 claims, 3 unsupported: 40 answers
    and 100 claims in the window -> 0.3."""
    def judged(metric: str, pipeline: str, extra: str) -> str:
        return f'{metric}{{job="ragmon",instance="a:9464",pipeline="{pipeline}",judge="lexical",{extra}}}'

    series = {
        judged("ragmon_claims_total", "night", 'verdict="supported"'): "0x30",
        judged("ragmon_claims_total", "night", 'verdict="unsupported"'): "0x4 40x7 80x18",
        judged("ragmon_example_score_count", "night", 'metric="groundedness"'): "0x4 1x7 2x18",
        judged("ragmon_claims_total", "chat", 'verdict="supported"'): "0+7x30",
        judged("ragmon_claims_total", "chat", 'verdict="unsupported"'): "0+3x30",
        judged("ragmon_example_score_count", "chat", 'metric="groundedness"'): "0+4x30",
    }
    query = grafana_query("RagmonHallucinationRateHigh")
    promtool_expects(tmp_path, query, series, {'{pipeline="chat",judge="lexical"}': 0.3}, "14m")
    promtool_expects(tmp_path, f"count({query})", series, {"{}": 1}, "14m")


def test_hour_queries_judge_the_pipelines_too_quiet_for_the_10_minute_ones(tmp_path: Path) -> None:
    """The Grafana hour rules' queries, as rules_test.yml's groups for the hour alerts. Per minute, by
    hand, at 90m (the hour from 30m): hr-bot scores an answer every 2 minutes, 4 claims a minute, all
    unsupported, groundedness 0: 240 of 240 claims in 30 answers (the floors of 30 and 10), and never 10
    answers in 10 minutes -> 1 and 0. chat scores 4 answers a minute, 10 claims, 3 unsupported, mean
    groundedness 0.5: its 10-minute rules fired within the hour and judge it -> 0 and 1 (0.3 and 0.5
    would raise both rules for one incident). night scored 2 answers of 40
    claims at 5m and 13m, none in the hour -> nothing. wake scores as hr-bot, but 0.5 groundedness a
    minute in all (mean 0.5), until 50m, then as chat, its 10-minute guard held from 52m: at 60m, 230
    unsupported of 300 claims -> 23/30, and a mean of 32.5 / 65 = 0.5, its 10-minute rules not fired yet.
    The hallucination one fires at 67m, the 16th whole minute its condition holds (its `for: 15m` passed):
    at 66m the hour from 6m holds 248 - 24 unsupported of 336 claims -> 2/3, at 67m 0. The groundedness
    one fires at 82m, the 31st: at 81m the hour from 21m has a mean of (74.5 - 5.25) / (149 - 10.5) = 0.5,
    at 82m 1. At 90m and 115m, within the hour after they fired, 0 and 1 (at 90m the hour's 80 + 120
    unsupported of 480 claims, 5/12, and its mean 0.5 would raise both rules for one incident). Scraped
    every 30 s, a pipeline 30 s old that scored 20 answers of 2 claims, all unsupported, groundedness 0,
    has had no 10-minute rule fire for it: 1 and 0, not nothing (a rule judging all pipelines that new
    would be left with no data)."""
    def judged(pipeline: str, metric: str, extra: str) -> str:
        return f'{metric}{{job="ragmon",instance="a:9464",pipeline="{pipeline}",judge="lexical",{extra}}}'

    def scored(pipeline: str, supported: str, unsupported: str, count: str, total: str) -> dict[str, str]:
        return {judged(pipeline, "ragmon_claims_total", 'verdict="supported"'): supported,
                judged(pipeline, "ragmon_claims_total", 'verdict="unsupported"'): unsupported,
                judged(pipeline, "ragmon_example_score_count", 'metric="groundedness"'): count,
                judged(pipeline, "ragmon_example_score_sum", 'metric="groundedness"'): total}

    series = {
        **scored("hr-bot", "0x120", "0+4x120", "0+0.5x120", "0x120"),
        **scored("chat", "0+7x120", "0+3x120", "0+4x120", "0+2x120"),
        **scored("night", "0x120", "0x4 40x7 80x109", "0x4 1x7 2x109", "0x120"),
        **scored("wake", "0x50 7+7x69", "0+4x50 203+3x69", "0+0.5x50 29+4x69", "0+0.25x50 14.5+2x69"),
    }
    def hallucination(pipeline: str) -> str:
        return hour_figure(HALLUCINATION_HOUR, pipeline, "lexical")

    def groundedness(pipeline: str) -> str:
        return hour_figure(GROUNDEDNESS_HOUR, pipeline, "lexical")

    both = hour_queries()
    promtool_expects_at(tmp_path, both, series, {
        "60m": {hallucination("wake"): 23 / 30, groundedness("wake"): 0.5},
        "66m": {hallucination("wake"): 2 / 3},
        "67m": {hallucination("wake"): 0},
        "81m": {groundedness("wake"): 0.5},
        "82m": {groundedness("wake"): 1},
        "90m": {hallucination("hr-bot"): 1, hallucination("chat"): 0, hallucination("wake"): 0,
                groundedness("hr-bot"): 0, groundedness("chat"): 1, groundedness("wake"): 1},
        "115m": {hallucination("wake"): 0, groundedness("wake"): 1},
    })
    promtool_expects(tmp_path, f"count by (rule) ({both})", series,
                     {f'{{rule="{title}"}}': 3 for title in (HALLUCINATION_HOUR, GROUNDEDNESS_HOUR)}, "90m")
    new = scored("new", "0 0", "0 40", "0 20", "0 0")
    promtool_expects(tmp_path, both, new, {hallucination("new"): 1, groundedness("new"): 0}, "30s", "30s")


def test_hour_queries_stand_back_after_any_judges_10_minute_rule_fired(tmp_path: Path) -> None:
    """The Grafana hour rules' queries on rules_test.yml's busy pipeline that Claude judges on a 2% sample.
    Per minute, by hand: chat's lexical judge scores 10 answers of 5 claims, Claude 0.2 answers of 5
    claims (2 answers per 10 minutes, never its own 10-minute guard; 12 answers and 60 claims an hour, the
    hour floors). Every claim supported, groundedness 1, but from 120m to 160m: every claim unsupported,
    groundedness 0. Lexical over 10 minutes: over 20% unsupported from 123m to 167m, its rule firing from
    138m; the mean under 60% from 125m to 165m, firing from 155m. Claude over the hour at 180m (from
    120m): 40 of 60 claims unsupported, a mean of 1 - 40 / 60: past both thresholds 20 minutes after the
    fix, for an incident the lexical rules paged for, so both read their healthy side, 0 and 1. solo has
    the same Claude figures and a lexical judge that saw nothing (every claim supported): Claude's are
    judged, 2/3 and 1/3. (Both queries in one promtool run, told apart by a label `rule`.)"""
    def judged(pipeline: str, judge: str, metric: str, extra: str) -> str:
        return f'{metric}{{job="ragmon",instance="a:9464",pipeline="{pipeline}",judge="{judge}",{extra}}}'

    def scored(pipeline: str, judge: str, supported: str, unsupported: str, total: str,
               count: str) -> dict[str, str]:
        return {judged(pipeline, judge, "ragmon_claims_total", 'verdict="supported"'): supported,
                judged(pipeline, judge, "ragmon_claims_total", 'verdict="unsupported"'): unsupported,
                judged(pipeline, judge, "ragmon_example_score_sum", 'metric="groundedness"'): total,
                judged(pipeline, judge, "ragmon_example_score_count", 'metric="groundedness"'): count}

    claude = ("0+1x120 120x39 121+1x79", "0x120 1+1x39 40x79", "0+0.2x120 24x39 24.2+0.2x79", "0+0.2x240")
    series = {
        **scored("chat", "lexical", "0+50x120 6000x39 6050+50x79", "0x120 50+50x39 2000x79",
                 "0+10x120 1200x39 1210+10x79", "0+10x240"),
        **scored("solo", "lexical", "0+50x240", "0x240", "0+10x240", "0+10x240"),
        **scored("chat", "claude", *claude), **scored("solo", "claude", *claude),
    }
    promtool_expects(tmp_path, hour_queries(), series, {
        hour_figure(HALLUCINATION_HOUR, "chat", "claude"): 0,
        hour_figure(HALLUCINATION_HOUR, "solo", "claude"): 2 / 3,
        hour_figure(GROUNDEDNESS_HOUR, "chat", "claude"): 1,
        hour_figure(GROUNDEDNESS_HOUR, "solo", "claude"): 1 / 3,
    }, "180m")


MINUTES = 157


def per_minute(normal: float, bad: float, minutes: range,
               at: Mapping[int, float] | None = None) -> list[float]:
    """A figure for each minute from 0m: `bad` in `minutes` (or as `at` gives it), `normal` otherwise."""
    return [(at or {}).get(m, bad if m in minutes else normal) for m in range(MINUTES)]


def counter(increments: list[float], first: int = 0) -> str:
    """promtool values of a counter going up by increments[m] at minute m, scraped from minute `first`."""
    values, total = [], 0.0
    for minute, increment in enumerate(increments):
        total += increment if minute >= first else 0
        values.append(f"{total:.10g}" if minute >= first else "_")
    return " ".join(values)


def test_hour_queries_stand_back_only_once_a_10_minute_rule_has_fired(tmp_path: Path) -> None:
    """The Grafana hour rules' queries stand back for the hour after a 10-minute rule fired, as
    rules.yml's twins do by ALERTS, and not when it held a minute short or with a minute's gap. Per
    minute, by hand: each pipeline's lexical judge scores 10 answers of 50 claims, all supported and of
    groundedness 1 unless said; Claude 0.2 answers of 5 claims, all unsupported, of groundedness 0, so
    its hour figures read 1 and 0 when judged, 0 and 1 when standing back. A `for` of 15 (30) minutes
    fires at the 16th (31st) whole minute in a row that the condition holds.
    - almost: 40 claims unsupported a minute from 61m to 70m: more than 20% of 10 minutes' claims (3 such
      minutes) from 63m to 77m, 15 minutes; groundedness 0.1 from 61m to 89m: a mean under 0.6 (5 such
      minutes) from 65m to 94m, 30 minutes. Neither rule fires: Claude is judged throughout.
    - fired: the same to 71m and 90m: held to 78m and 95m, so the rules fire at 78m and 95m, and Claude's
      figures stand back from then for the hour, to 138m and 155m both included (Prometheus 2's ranges
      hold both ends).
    - gap: 11 unsupported a minute from 51m to 84m, none at 70m and 22 at 71m: 22% of 10 minutes' claims
      from 60m to 84m but 19.8% at 70m alone, so 10 and 14 minutes in a row; groundedness 0.59 from 51m
      to 100m, 1 at 70m and 0.18 at 71m: a mean of 0.59, 0.631 at 70m alone, so 10 and 30 minutes in a
      row. Neither rule fires: Claude is judged throughout.
    - new: first scraped at 100m, its lexical judge finding every claim unsupported and groundedness 0
      (hour figures 1 and 0): its conditions hold from 101m, its second scrape, and the rules fire at
      116m and 131m."""
    def judged(pipeline: str, judge: str, metric: str, extra: str) -> str:
        return f'{metric}{{job="ragmon",instance="a:9464",pipeline="{pipeline}",judge="{judge}",{extra}}}'

    def scored(pipeline: str, judge: str, unsupported: list[float], claims: float, answers: float,
               groundedness: list[float], first: int = 0) -> dict[str, str]:
        return {
            judged(pipeline, judge, "ragmon_claims_total", 'verdict="supported"'):
                counter([claims - u for u in unsupported], first),
            judged(pipeline, judge, "ragmon_claims_total", 'verdict="unsupported"'):
                counter(unsupported, first),
            judged(pipeline, judge, "ragmon_example_score_count", 'metric="groundedness"'):
                counter([answers] * MINUTES, first),
            judged(pipeline, judge, "ragmon_example_score_sum", 'metric="groundedness"'):
                counter(groundedness, first),
        }

    def with_claude(pipeline: str, unsupported: list[float], groundedness: list[float]) -> dict[str, str]:
        return {**scored(pipeline, "lexical", unsupported, 50, 10, groundedness),
                **scored(pipeline, "claude", [1] * MINUTES, 1, 0.2, [0] * MINUTES)}

    series = {
        **with_claude("almost", per_minute(0, 40, range(61, 71)), per_minute(10, 1, range(61, 90))),
        **with_claude("fired", per_minute(0, 40, range(61, 72)), per_minute(10, 1, range(61, 91))),
        **with_claude("gap", per_minute(0, 11, range(51, 85), {70: 0, 71: 22}),
                      per_minute(10, 5.9, range(51, 101), {70: 10, 71: 1.8})),
        **scored("new", "lexical", [50] * MINUTES, 50, 10, [0] * MINUTES, first=100),
    }
    stands_back = {  # the minutes each query stands back for, by hand (from the rules' firing above)
        ("almost", "claude"): (range(0), range(0)),
        ("fired", "claude"): (range(78, 139), range(95, 156)),
        ("gap", "claude"): (range(0), range(0)),
        ("new", "lexical"): (range(116, MINUTES), range(131, MINUTES)),
    }
    expected: dict[str, dict[str, float]] = {}
    for minute in (75, 77, 78, 84, 90, 94, 95, 100, 115, 116, 130, 131, 138, 139, 155, 156):
        figures = expected.setdefault(f"{minute}m", {})
        for (pipeline, judge), (hallucination, groundedness) in stands_back.items():
            if pipeline != "new" or minute >= 115:
                figures[hour_figure(HALLUCINATION_HOUR, pipeline, judge)] = int(minute not in hallucination)
                figures[hour_figure(GROUNDEDNESS_HOUR, pipeline, judge)] = int(minute in groundedness)
    promtool_expects_at(tmp_path, hour_queries(), series, expected)


def test_loss_queries_read_0_under_three_lost(tmp_path: Path) -> None:
    """The Grafana queries of the three loss shares, as rules_test.yml's groups for their minimum volume.
    By hand, at 20m (window 10m to 20m): a receives 1 span a minute and dropped 1 `late` at 5m and 1 at
    14m -> 1 lost of 10 (0.1) under the 3 lost needed: 0. b receives 1 a minute and answered 2 with 503
    at 5m and 13m -> 2 of 12: 0. c scores 1 trace a minute and evicted 2 at 5m and 13m -> 2 of 12: 0.
    From 5m, e receives 20 spans a minute and drops 3 late, f receives 20 and answers 3 more with 503, g
    scores 20 traces and evicts 3 more: 30 of 200 -> 0.15, 30 of 230 and 30 of 230."""
    def target(instance: str) -> str:
        return f'job="ragmon",instance="{instance}:9464"'

    def spans(instance: str, counter: str, extra: str) -> str:
        return f"ragmon_spans_{counter}_total{{{target(instance)},{extra}}}"

    def traces(instance: str, outcome: str) -> str:
        return f'ragmon_traces_total{{{target(instance)},pipeline="chat",outcome="{outcome}"}}'

    trickle, pairs, incident = "0x4 1x8 2x17", "0x4 2x7 4x18", "0x4 3+3x26"
    series = scraped({
        spans("a", "received", 'transport="http"'): "0+1x30",
        spans("a", "rejected", 'reason="late"'): trickle, spans("a", "rejected", 'reason="invalid"'): "0x30",
        spans("b", "received", 'transport="http"'): "0+1x30",
        spans("b", "rejected", 'reason="backpressure"'): pairs,
        traces("c", "scored"): "0+1x30", traces("c", "evicted"): pairs,
        spans("e", "received", 'transport="http"'): "0+20x30",
        spans("e", "rejected", 'reason="late"'): incident, spans("e", "rejected", 'reason="invalid"'): "0x30",
        spans("f", "received", 'transport="http"'): "0+20x30",
        spans("f", "rejected", 'reason="backpressure"'): incident,
        traces("g", "scored"): "0+20x30", traces("g", "evicted"): incident,
    }, "1x30")
    instance = "{{{}}}".format
    promtool_expects(tmp_path, grafana_query("RagmonSpansRejected"), series, {
        instance(f'{target("a")},reason="late"'): 0, instance(f'{target("e")},reason="late"'): 0.15,
        instance(f'{target("a")},reason="invalid"'): 0, instance(f'{target("e")},reason="invalid"'): 0,
    })
    promtool_expects(tmp_path, grafana_query("RagmonBackpressure"), series,
                     {instance(target("b")): 0, instance(target("f")): 30 / 230})
    promtool_expects(tmp_path, grafana_query("RagmonTracesEvicted"), series,
                     {instance(target("c")): 0, instance(target("g")): 30 / 230})


def test_judge_errors_query_needs_three_failed_calls_in_30_minutes(tmp_path: Path) -> None:
    """The Grafana RagmonJudgeErrors query at a small --llm-sample-rate: the claude judge is called once
    every 5 minutes (at 5m, 10m, ...), as in rules_test.yml's group for this case. By hand, at 25m
    (10m window: calls from 16m to 25m; 30m window: all of them): transient failed 2 calls, at 10m and 16m
    (1 of 3 in the 10m window), and reads 0 however high its ratio; recurring fails one call in 6 minutes
    from 10m, 3 so far (16m and 22m in the window, with 2 ok: 2/4 = 0.5); broken has failed every call, 5
    so far -> 1. Grafana's threshold (> 0.1) then alerts on recurring and broken only."""
    def calls(namespace: str, outcome: str) -> str:
        return (f'ragmon_judge_requests_total{{job="ragmon",namespace="{namespace}",instance="10.0.1.5:9464",'
                f'judge="claude",outcome="{outcome}"}}')

    every_5_minutes = "0x4 1x4 2x4 3x4 4x4 5x4 6x4 7x4 8x4 9x4 10x4 11x4 12"
    series = {
        calls("transient", "ok"): every_5_minutes, calls("transient", "timeout"): "0x9 1x5 2x44",
        calls("recurring", "ok"): every_5_minutes,
        calls("recurring", "timeout"): "0x9 1x5 2x5 3x5 4x5 5x5 6x5 7x5 8x5 9x2",
        calls("broken", "ok"): "0x60", calls("broken", "error"): every_5_minutes,
    }
    query = grafana_query("RagmonJudgeErrors")
    judge = '{{namespace="{}",judge="claude"}}'.format
    promtool_expects(tmp_path, query, series,
                     {judge("transient"): 0, judge("recurring"): 0.5, judge("broken"): 1}, "25m")
    promtool_expects(tmp_path, f"count({query})", series, {"{}": 3}, "25m")


def test_panels_show_the_chosen_namespaces(tmp_path: Path) -> None:
    """The hallucination stat panel, with the shipped recording rules. Per minute, by hand: staging's
    checkout-rag 3 unsupported claims of 10 (0.3), prod's 6 of 40 and 3 of 50 on two pods (9/90 = 0.1),
    which pooled would read 12/100; support, scraped without a namespace as docker compose does, 1 of 4
    (0.25). All namespaces (`.*`, which also matches the absent label): each apart. prod alone: prod's
    figure and nothing else."""
    compose = 'instance="ragmon:9464"'
    series = {**CHECKOUT_CLAIMS, environment_claims(compose, "supported", "support"): "0+3x30",
              environment_claims(compose, "unsupported", "support"): "0+1x30"}
    expr = dashboard_target("Hallucination (10m, $judge)")["expr"]
    checkout = '{{namespace="{}",pipeline="checkout-rag",judge="lexical"}}'.format
    promtool_expects(tmp_path, substitute(expr), series, {
        checkout("staging"): 0.3, checkout("prod"): 0.1, '{pipeline="support",judge="lexical"}': 0.25})
    prod = substitute(expr, {**VARIABLES, "$namespace": "prod"})
    promtool_expects(tmp_path, prod, series, {checkout("prod"): 0.1})
    promtool_expects(tmp_path, f"count({prod})", series, {"{}": 1})


AGGREGATION = re.compile(r"\b(?:sum|count|max|min|avg)\b(?: by \(([^)]*)\))? \(")


def test_panels_over_time_keep_namespaces_apart() -> None:
    """Every line a panel over time draws is one namespace's (or one pod's, which is in one namespace),
    and its legend says which namespace where the line keeps no pod: "Traces by outcome", "Claims:
    supported vs unsupported", the judge and span panels had summed staging and prod into one line."""
    pooled, unnamed = [], []
    for panel in panels():
        if panel["type"] != "timeseries":
            continue
        for target in panel["targets"]:
            kept = [set(re.split(r",\s*", by or "")) for by in AGGREGATION.findall(target["expr"])]
            if any(not labels & {"namespace", "instance"} for labels in kept):
                pooled.append(f'{panel["title"]} {target["refId"]}')
            elif kept and "instance" not in kept[0] and "{{namespace}}" not in target["legendFormat"]:
                unnamed.append(f'{panel["title"]} {target["refId"]}')
    assert pooled == [] and unnamed == []


def test_claims_panel_draws_each_namespaces_claims(tmp_path: Path) -> None:
    """"Claims: supported vs unsupported" with every namespace chosen. By hand, a second each (per minute
    / 60): staging 7 supported and 3 unsupported claims, prod 34 + 47 = 81 supported and 6 + 3 = 9
    unsupported; pooled they had read 88 and 12."""
    expr = substitute(dashboard_target("Claims: supported vs unsupported ($judge)")["expr"])
    claims = '{{namespace="{}",verdict="{}"}}'.format
    promtool_expects(tmp_path, expr, CHECKOUT_CLAIMS, {
        claims("staging", "supported"): 7 / 60, claims("staging", "unsupported"): 3 / 60,
        claims("prod", "supported"): 81 / 60, claims("prod", "unsupported"): 9 / 60})
    promtool_expects(tmp_path, f"count({expr})", CHECKOUT_CLAIMS, {"{}": 4})


def test_in_flight_panel_draws_the_limits_it_is_read_against(tmp_path: Path) -> None:
    """"In flight and queue depth" draws, beside each pod's traces in flight and each judge's queue, the
    limits the RagmonBackpressure runbook compares them with, named after their flags as "Buffer held"
    draws --max-buffer: ragmon_max_traces per pod, ragmon_score_queue_size per pod and judge. By hand,
    in namespace prod: pod a runs --max-traces 20000 and --queue-size 1000 for both judges, pod b 5000
    and a lexical queue of 200; staging's pod, outside the chosen namespace, is not drawn."""
    (targets,) = [p["targets"] for p in panels() if p["title"] == "In flight and queue depth"]
    panel = {t["refId"]: t for t in targets}
    by = {ref: re.search(r"by \(([^)]*)\)", t["expr"])[1] for ref, t in panel.items()}
    assert by == {"A": "instance", "B": "instance, judge", "C": "instance", "D": "instance, judge",
                  "E": "instance", "F": "instance, judge", "G": "instance"}
    assert "ragmon_max_traces" in panel["C"]["expr"] and "ragmon_score_queue_size" in panel["D"]["expr"]
    # Decided traces waiting for room behind a full queue: in no other gauge (README's accounting identity).
    assert "ragmon_traces_waiting" in panel["E"]["expr"]
    assert panel["E"]["legendFormat"] == "waiting {{instance}}"
    # Beside it, not in it: traces of only refused spans wait out a clock, not for scoring.
    assert "ragmon_traces_refused_pending" in panel["G"]["expr"]
    assert panel["G"]["legendFormat"] == "refused pending {{instance}}"
    assert panel["C"]["legendFormat"] == "--max-traces {{instance}}"
    assert panel["D"]["legendFormat"] == "--queue-size {{judge}} {{instance}}"
    pod_a, pod_b = 'namespace="prod",instance="10.0.2.5:9464"', 'namespace="prod",instance="10.0.2.6:9464"'
    series = {
        f'ragmon_max_traces{{job="ragmon",{pod_a}}}': "20000x30",
        f'ragmon_max_traces{{job="ragmon",{pod_b}}}': "5000x30",
        f'ragmon_max_traces{{job="ragmon",{STAGING}}}': "20000x30",
        f'ragmon_score_queue_size{{job="ragmon",{pod_a},judge="lexical"}}': "1000x30",
        f'ragmon_score_queue_size{{job="ragmon",{pod_a},judge="claude"}}': "1000x30",
        f'ragmon_score_queue_size{{job="ragmon",{pod_b},judge="lexical"}}': "200x30",
        f'ragmon_score_queue_size{{job="ragmon",{STAGING},judge="lexical"}}': "1000x30",
    }
    prod = {**VARIABLES, "$namespace": "prod"}
    instance = '{{instance="{}"}}'.format
    queue = '{{instance="{}",judge="{}"}}'.format
    limits = {"C": {instance("10.0.2.5:9464"): 20000, instance("10.0.2.6:9464"): 5000},
              "D": {queue("10.0.2.5:9464", "lexical"): 1000, queue("10.0.2.5:9464", "claude"): 1000,
                    queue("10.0.2.6:9464", "lexical"): 200}}
    for ref, expected in limits.items():
        expr = substitute(panel[ref]["expr"], prod)
        promtool_expects(tmp_path, expr, series, expected)
        promtool_expects(tmp_path, f"count({expr})", series, {"{}": len(expected)})


def test_in_flight_panel_draws_every_trace_without_an_outcome(tmp_path: Path) -> None:
    """README's accounting: traces taken = ragmon_traces_total + in flight + waiting + refused pending +
    the lexical judge's queue and in progress. On call reads the last five off "In flight and queue depth"
    to find where the traces taken and not yet counted are. By hand, one pod with the lexical judge alone:
    7 traces in flight, 3 waiting, 4 seen only in refused spans, 5 queued and 2 being scored in its
    workers -> the panel's series other than the limits (legends starting "--") add up to 21; 17 without
    the refused ones."""
    (targets,) = [p["targets"] for p in panels() if p["title"] == "In flight and queue depth"]
    drawn = [t["expr"] for t in targets if not t["legendFormat"].startswith("--")]
    pod = 'job="ragmon",namespace="prod",instance="10.0.2.5:9464"'
    series = {f"ragmon_traces_in_flight{{{pod}}}": "7x20", f"ragmon_traces_waiting{{{pod}}}": "3x20",
              f"ragmon_traces_refused_pending{{{pod}}}": "4x20",
              f'ragmon_score_queue_depth{{{pod},judge="lexical"}}': "5x20",
              f'ragmon_score_in_progress{{{pod},judge="lexical"}}': "2x20"}
    total = " or ".join(f'label_replace({substitute(expr)}, "ref", "{i}", "", "")'
                        for i, expr in enumerate(drawn))
    promtool_expects(tmp_path, f"sum({total})", series, {"{}": 21})


def test_scoring_stalled_query_gives_the_queue_where_the_lexical_judge_finishes_nothing(
        tmp_path: Path) -> None:
    """The Grafana RagmonScoringStalled query at 45m, per instance, by hand: a scored 1 example a minute
    until 20m, then nothing (its Claude judge goes on), its queue growing 1 a minute from 21m -> 25, the
    examples queued. b: 5 queued, 30 calls a minute -> 0. c: idle -> 0. d: every call fails, 3 queued:
    calls end, so it is not stuck -> 0. e: no RAG traffic and 4 examples held in Claude's queue (a hung API)
    -> 0: its lexical queue is empty. Examples in a stopped worker count as held: a's 2 and f's, at low
    traffic, 2 held in its worker and none queued -> 2 (an alert on the queue alone never fired)."""
    def calls(instance: str, judge: str, outcome: str) -> str:
        return (f'ragmon_judge_requests_total{{job="ragmon",instance="{instance}",judge="{judge}",'
                f'outcome="{outcome}"}}')

    def queue(instance: str, judge: str = "lexical") -> str:
        return f'ragmon_score_queue_depth{{job="ragmon",instance="{instance}",judge="{judge}"}}'

    def held(instance: str, judge: str = "lexical") -> str:
        return f'ragmon_score_in_progress{{job="ragmon",instance="{instance}",judge="{judge}"}}'

    series = scraped({
        queue("a"): "0x20 1+1x60", held("a"): "0x20 2x60", calls("a", "lexical", "ok"): "0+1x20 20x60",
        calls("a", "claude", "ok"): "0+1x80",
        queue("b"): "5x80", held("b"): "2x80", calls("b", "lexical", "ok"): "0+30x80",
        queue("c"): "0x80", held("c"): "0x80", calls("c", "lexical", "ok"): "0x80",
        queue("d"): "3x80", held("d"): "1x80", calls("d", "lexical", "ok"): "0x80",
        calls("d", "lexical", "error"): "0+5x80",
        queue("e"): "0x80", held("e"): "0x80", queue("e", "claude"): "4x80", held("e", "claude"): "2x80",
        calls("e", "lexical", "ok"): "0x80",
        queue("f"): "0x80", held("f"): "0x20 2x60", calls("f", "lexical", "ok"): "0+1x20 20x60",
    }, "1x80")
    instance = '{{job="ragmon",instance="{}"}}'.format
    promtool_expects(tmp_path, grafana_query("RagmonScoringStalled"), series,
                     {instance("a"): 25 + 2, instance("b"): 0, instance("c"): 0, instance("d"): 0,
                      instance("e"): 0, instance("f"): 2}, "45m")


def seconds(interval: str) -> int:
    match = re.fullmatch(r"(\d+)([smh])", interval)
    assert match, interval
    return int(match[1]) * {"s": 1, "m": 60, "h": 3600}[match[2]]


def test_rate_interval_covers_four_scrapes_of_every_shipped_scrape_config() -> None:
    """Grafana's $__rate_interval is at least 4 x the datasource's timeInterval, which must therefore be
    the longest scrape interval the datasource may face, or rate() windows hold two samples or fewer.
    Shipped, by hand: prometheus.yml scrapes every 15 s, both PodMonitors every 30 s: the longest is 30 s."""
    config = safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))
    intervals = [seconds(config["global"]["scrape_interval"])]
    intervals += [seconds(j["scrape_interval"]) for j in config["scrape_configs"] if "scrape_interval" in j]
    for path in sorted((ROOT / "deploy").rglob("podmonitor.yaml")):
        podmonitor = safe_load(path.read_text(encoding="utf-8"))
        intervals += [seconds(e["interval"]) for e in podmonitor["spec"]["podMetricsEndpoints"]]
    assert sorted(intervals) == [15, 30, 30]
    time_interval = datasources()[prometheus_uid()]["jsonData"]["timeInterval"]
    assert seconds(time_interval) >= max(intervals)


def dashboard_target(title: str, ref_id: str = "A") -> dict[str, Any]:
    (target,) = [t for p in panels() if p["title"] == title for t in p["targets"] if t["refId"] == ref_id]
    return target


JUDGED = re.compile(r"ragmon_claims|ragmon_example_score|ragmon_examples_scored")


def test_quality_panels_never_blend_two_judges() -> None:
    """With the Claude judge on, the traces it judges are judged by lexical too: a figure summed over both
    counts those answers twice and moves when an operator changes --llm-sample-rate, not when the app
    changes. Every panel over claims or scores shows one judge (`judge="$judge"`) or keeps `judge` apart,
    in its result and in its legend."""
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    judge = variables["judge"]
    assert listed_by("judge") == ("ragmon_judge_requests_total", "judge")
    assert not judge["multi"] and not judge.get("includeAll") and judge["current"]["value"] == "lexical"
    blended = []
    for panel in panels():
        for target in panel["targets"]:
            expr = target["expr"]
            if not JUDGED.search(expr) or 'judge="$judge"' in expr:
                continue
            apart = "pipeline_judge" in expr or re.search(r"by \([^)]*\bjudge\b", expr)
            if not (apart and "{{judge}}" in target["legendFormat"]):
                blended.append(f'{panel["title"]} {target["refId"]}')
    assert blended == []


def test_headline_ratios_are_those_of_the_chosen_judge(tmp_path: Path) -> None:
    """The stat panels, evaluated with the shipped recording rules over two judges of one pipeline. Per
    minute, by hand: lexical 6 supported + 2 unsupported claims (hallucination 2/8 = 0.25) in 2 answers
    whose groundedness adds up to 1.6 (mean 0.8, where the claims' share would read 0.75); claude 4 + 4
    claims (0.5) in answers adding up to 1.0 of 2 (0.5). A blend of both judges would read 6/16 = 0.375
    and 2.6/4 = 0.65."""
    def claims(judge: str, verdict: str) -> str:
        return (f'ragmon_claims_total{{job="ragmon",instance="a:9464",pipeline="support",judge="{judge}",'
                f'verdict="{verdict}"}}')

    def score(judge: str, part: str) -> str:
        return (f'ragmon_example_score_{part}{{job="ragmon",instance="a:9464",pipeline="support",'
                f'judge="{judge}",metric="groundedness"}}')

    series = {claims("lexical", "supported"): "0+6x30", claims("lexical", "unsupported"): "0+2x30",
              claims("claude", "supported"): "0+4x30", claims("claude", "unsupported"): "0+4x30",
              score("lexical", "sum"): "0+1.6x30", score("lexical", "count"): "0+2x30",
              score("claude", "sum"): "0+1x30", score("claude", "count"): "0+2x30"}
    expected = {"lexical": (0.25, 0.8), "claude": (0.5, 0.5)}
    for judge, (hallucination, groundedness) in expected.items():
        for title, value in (("Hallucination (10m, $judge)", hallucination),
                             ("Groundedness (10m, $judge)", groundedness)):
            expr = substitute(dashboard_target(title)["expr"], {**VARIABLES, "$judge": judge})
            promtool_expects(tmp_path, f"sum by (pipeline) ({expr})", series, {'{pipeline="support"}': value})


def score_heatmap() -> dict[str, Any]:
    (panel,) = [p for p in panels() if p["type"] == "heatmap"]
    return panel


def range_variables(panel: dict[str, Any], step: int) -> dict[str, str]:
    """The variables Grafana fills into `panel`'s range query when its step (a heatmap's cell width) is
    `step` seconds. The min interval is the panel's `interval`, else the datasource's timeInterval (the
    scrape interval); Grafana never takes $__interval, and so the step, below it; and $__rate_interval is
    max($__interval + min interval, 4 x min interval)."""
    minimum = seconds(panel.get("interval") or datasources()[prometheus_uid()]["jsonData"]["timeInterval"])
    assert step >= minimum
    rate_interval = max(step + minimum, 4 * minimum)
    return {**VARIABLES, "$__interval": f"{step}s", "$__rate_interval": f"{rate_interval}s"}


def examples_per_cell_unit(unit: str, step: int) -> int:
    """Examples that one unit of a heatmap cell `step` seconds wide stands for: a count (short) counts
    examples in the cell, a rate counts them a second."""
    if unit.endswith("/s") or unit in {"cps", "reqps"}:
        return step
    assert unit in {"short", "none"}, unit
    return 1


def scores(instance: str, pipeline: str, judge: str, metric: str, le: str) -> str:
    return (f'ragmon_example_score_bucket{{job="ragmon",instance="{instance}",pipeline="{pipeline}",'
            f'judge="{judge}",metric="{metric}",le="{le}"}}')


def heatmap_query(step: int) -> tuple[str, int]:
    """The score heatmap's query as Grafana fills it at `step` seconds, and the examples a unit of its
    cells stands for."""
    panel = score_heatmap()
    expr = substitute(panel["targets"][0]["expr"], range_variables(panel, step))
    return expr, examples_per_cell_unit(panel["options"]["cellValues"]["unit"], step)


Buckets = tuple[str, str, str]
"""Values of the le 0.5, 1.0 and +Inf series, in promtool's notation."""


def heatmap_series(support: Buckets, billing: Buckets, others: str) -> dict[str, str]:
    """Score buckets (le 0.5, 1.0, +Inf) of pod a's support answers and pod b's billing answers by the
    lexical judge, and `others` for a series of another judge and one of another metric, not to be shown."""
    series = {scores(pod, pipeline, "lexical", "groundedness", le): values
              for pod, pipeline, buckets in (("a", "support", support), ("b", "billing", billing))
              for le, values in zip(("0.5", "1.0", "+Inf"), buckets, strict=True)}
    series[scores("a", "support", "claude", "groundedness", "0.5")] = others
    series[scores("a", "support", "lexical", "answer_relevance", "0.5")] = others
    return series


def test_score_heatmap_takes_the_buckets_as_prometheus_gives_them() -> None:
    """Grafana's heatmap panel (9.0 and later) is fed the cumulative `le` series as they are: the target's
    format `heatmap` sorts them by `le` (read from the legend) and de-accumulates them into one frame of
    heatmap rows, which the panel draws without calculating buckets of its own. No panel over time counts
    with increase() over $__rate_interval, whose windows overlap (it is about 4 steps long)."""
    panel = score_heatmap()
    (target,) = panel["targets"]
    assert target["format"] == "heatmap" and target["legendFormat"] == "{{le}}" and target["range"]
    assert re.match(r"sum by \(le\) \(", target["expr"])
    assert panel["options"]["calculate"] is False and "calculation" not in panel["options"]
    assert panel["options"]["rowsFrame"]["layout"] in {"auto", "le"}
    assert [e for e in dashboard_exprs() if re.search(r"increase\([^\[]*\[\$__rate_interval\]", e)] == []


@pytest.mark.parametrize("step", [30, 60])
def test_score_heatmap_cells_read_what_their_unit_says(tmp_path: Path, step: int) -> None:
    """The score heatmap's query as Grafana sends it at a step of 30 s (a 6-hour range: the default) and
    60 s, over scrapes every 30 s (the datasource's timeInterval), at a steady load. Per scrape, by hand:
    pod a scores 3 support answers, 1 of them at or below 0.5; pod b 2 billing answers, both at or below
    0.5 (so le 0.5: 3, le 1.0 and +Inf: 5 a scrape, summed over the pipelines). Another judge and another
    metric, 50 a scrape each, are not shown. A cell `step` wide then holds 3 x step/30 and 5 x step/30
    examples: 3 and 5 at 30 s, 0.1 and 1/6 examples/s. increase() over $__rate_interval (120 s at both
    steps) read 12 and 20 as the count of a 30-s cell, 4 times the examples in it."""
    expr, per_unit = heatmap_query(step)
    series = heatmap_series(("0+1x60", "0+3x60", "0+3x60"), ("0+2x60", "0+2x60", "0+2x60"), "0+50x60")
    cells = step // 30
    promtool_expects(tmp_path, f"({expr}) * {per_unit}", series, {
        '{le="0.5"}': 3 * cells, '{le="1.0"}': 5 * cells, '{le="+Inf"}': 5 * cells}, "20m", "30s")


def test_score_heatmap_counts_a_burst_once(tmp_path: Path) -> None:
    """All the examples of a burst, scored between two scrapes (12:00 and 12:30 into the test), add up
    to the burst over the cells of a 10-minute stretch at a 30-s step, once read in the cells' unit (the
    sum of the cells' values over the Grafana range query's points, which a subquery at the same step
    reproduces). By hand: pod a scores 7 support answers (2 at or below 0.5), pod b 3 billing answers
    (1): le 0.5: 3, le 1.0 and +Inf: 10. increase() over $__rate_interval showed the burst in 4 cells and
    added up to 12 and 40."""
    step = 30
    expr, per_unit = heatmap_query(step)
    series = heatmap_series(("100x24 102x20", "300x24 307x20", "300x24 307x20"),
                            ("40x24 41x20", "90x24 93x20", "90x24 93x20"), "10x24 60x20")
    promtool_expects(tmp_path, f"sum_over_time(({expr})[10m:{step}s]) * {per_unit}", series,
                     {'{le="0.5"}': 3, '{le="1.0"}': 10, '{le="+Inf"}': 10}, "20m", "30s")


def stat_colour(panel: dict[str, Any], ref_id: str, value: float) -> str:
    """The colour Grafana gives `value` of the stat panel's query `ref_id`: a fixed colour as it is, else
    the colour of the highest threshold step at or below the value (the first step's `null` is -inf),
    with the thresholds of a byFrameRefID override of that query in place of the defaults."""
    defaults = panel["fieldConfig"]["defaults"]
    if defaults.get("color", {}).get("mode") == "fixed":
        return "fixed " + defaults["color"]["fixedColor"]
    thresholds = defaults["thresholds"]
    for override in panel["fieldConfig"].get("overrides", []):
        if override["matcher"] == {"id": "byFrameRefID", "options": ref_id}:
            thresholds = next((p["value"] for p in override["properties"] if p["id"] == "thresholds"),
                              thresholds)
    assert thresholds["mode"] == "absolute"
    colour = thresholds["steps"][0]["color"]
    for step in thresholds["steps"][1:]:
        if value >= step["value"]:
            colour = step["color"]
    return colour


def stat_panel(title: str) -> dict[str, Any]:
    (panel,) = [p for p in panels() if p["type"] == "stat" and p["title"] == title]
    return panel


def test_stat_panels_are_not_green_where_an_alert_fires() -> None:
    """A stat coloured by thresholds that has one step shows that colour whatever its value: the targets
    stat read green with every ragmon target down (RagmonDown firing), "Traces scored" green at 0 while
    RagmonNoTracesScored fires. A stat that measures no health has a fixed, neutral colour; the targets
    stat reads red at no target up and at any target down; the quality stats turn red where their alerts
    fire (groundedness < 0.6, hallucination > 0.2)."""
    for panel in panels():
        if panel["type"] != "stat":
            continue
        defaults = panel["fieldConfig"]["defaults"]
        if defaults.get("color", {}).get("mode") == "fixed":
            assert defaults["color"]["fixedColor"] not in {"green", "red"}, panel["title"]
        else:
            assert len(defaults["thresholds"]["steps"]) >= 2, panel["title"]
    targets = stat_panel("ragmon targets up / down")
    queries = {t["refId"]: t["legendFormat"] for t in targets["targets"]}
    assert queries == {"A": "up", "B": "down"}
    assert [stat_colour(targets, "A", n) for n in (0, 1, 3)] == ["red", "green", "green"]
    assert [stat_colour(targets, "B", n) for n in (0, 1, 3)] == ["green", "red", "red"]
    groundedness = stat_panel("Groundedness (10m, $judge)")
    assert stat_colour(groundedness, "A", 0.599) == "red" and stat_colour(groundedness, "A", 0.6) != "red"
    hallucination = stat_panel("Hallucination (10m, $judge)")
    assert stat_colour(hallucination, "A", 0.201) == "red" and stat_colour(hallucination, "A", 0.1) != "red"
    for title in ("Traces scored", "Judge spend (24h)"):
        assert stat_colour(stat_panel(title), "A", 0).startswith("fixed "), title


def test_targets_stat_counts_the_targets_up_and_down(tmp_path: Path) -> None:
    """The targets stat with namespace prod chosen. By hand: prod's pods a and c answer (up 1), pod b
    fails its scrapes (up 0) -> up 2, down 1; staging's pod, down too, is outside the chosen namespace;
    a node exporter in prod is not ragmon's. With every prod target answering: down 0, a real zero."""
    prod = {**VARIABLES, "$namespace": "prod"}
    def up(pod: str, values: str, namespace: str = "prod", job: str = "ragmon") -> dict[str, str]:
        return {f'up{{job="{job}",namespace="{namespace}",instance="{pod}:9464"}}': values}

    series = {**up("a", "1x30"), **up("b", "0x30"), **up("c", "1x30"), **up("s", "0x30", "staging"),
              **up("n", "0x30", job="node")}
    for ref, expected in (("A", 2), ("B", 1)):
        expr = substitute(dashboard_target("ragmon targets up / down", ref)["expr"], prod)
        promtool_expects(tmp_path, expr, series, {"{}": expected})
    healthy = {**series, **up("b", "1x30")}
    expr = substitute(dashboard_target("ragmon targets up / down", "B")["expr"], prod)
    promtool_expects(tmp_path, expr, healthy, {"{}": 0})


def stat_shows(title: str, ref_id: str = "A") -> str:
    """A query whose value at an eval time is what the stat panel `title` shows then: an instant query's
    result, or for a range query over the dashboard's time range the last of its points (the panels'
    reducer, lastNotNull), one each 30 s (the datasource's timeInterval)."""
    (calcs,) = {tuple(stat_panel(title)["options"]["reduceOptions"]["calcs"])}
    assert calcs == ("lastNotNull",), title
    target = dashboard_target(title, ref_id)
    expr = substitute(target["expr"])
    if target.get("instant") and not target.get("range"):
        return expr
    hours = re.fullmatch(r"now-(\d+)h", dashboard()["time"]["from"])[1]
    return f"last_over_time(({expr})[{hours}h:30s])"


def test_stat_panels_show_the_figure_now() -> None:
    """A stat reduces its query to one figure: a range query's last point is the last figure seen, however
    long ago, where an instant query gives nothing once nothing reports it."""
    ranged = [p["title"] for p in panels() if p["type"] == "stat" for t in p["targets"]
              if t.get("range") or not t.get("instant")]
    assert ranged == []


def test_traces_scored_stat_shows_nothing_once_no_target_reports(tmp_path: Path) -> None:
    """"Traces scored", scraped each minute. By hand: prod's pod scores 6 traces a minute (0.1 a second)
    until it is gone at 10m; the stat read 0.1 traces/s at 8m and, a range query reduced to its last
    point, still 0.1 at 60m, 50 minutes after the last trace was scored anywhere: now No data. A pod that
    stays up and scores nothing more reads a real 0."""
    labels = 'job="ragmon",namespace="prod",instance="a:9464",pipeline="support",outcome="scored"'
    gone = {f"ragmon_traces_total{{{labels}}}": "0+6x10 stale"}
    shown = stat_shows("Traces scored")
    promtool_expects(tmp_path, shown, gone, {"{}": 0.1}, "8m")
    promtool_expects(tmp_path, f"count({shown}) or vector(0)", gone, {"{}": 0}, "60m")
    idle = {f"ragmon_traces_total{{{labels}}}": "0+6x10 60x50"}
    promtool_expects(tmp_path, shown, idle, {"{}": 0}, "60m")


QUANTILE_PANELS = {
    # Panel: (bucket series prefix, extra labels, le -> increase a minute, quantile -> value by hand).
    # Scores, 3 examples a minute, 1 at or below 0.5, all at or below 1.0. p50: rank 1.5 falls in
    # (0.5, 1.0], 0.5 + 0.5 x (1.5 - 1) / (3 - 1) = 0.625; p10: rank 0.3 in (0, 0.5], 0.5 x 0.3 = 0.15.
    "Score quantiles: $metric, $judge (exemplars link to traces)": (
        "ragmon_example_score", 'pipeline="support",judge="lexical",metric="groundedness",',
        {"0.5": 1, "1.0": 3, "+Inf": 3}, {"A": 0.625, "B": 0.15}),
    # Judge calls, 4 a minute, 2 within 10 ms, all within 100 ms. p50: rank 2 in (0, 0.01], 0.01 x 2/2
    # = 0.01; p99: rank 3.96 in (0.01, 0.1], 0.01 + 0.09 x (3.96 - 2) / (4 - 2) = 0.0982.
    "Judge latency": (
        "ragmon_judge_duration_seconds", 'judge="lexical",',
        {"0.01": 2, "0.1": 4, "+Inf": 4}, {"A": 0.01, "B": 0.0982}),
    # Score lag, 2 a minute, 1 within 1 s, both within 5 s. p50: rank 1 in (0, 1], 1 x 1/1 = 1; p99:
    # rank 1.98 in (1, 5], 1 + 4 x (1.98 - 1) / (2 - 1) = 4.92.
    "Score lag": (
        "ragmon_score_lag_seconds", "", {"1": 1, "5": 2, "+Inf": 2}, {"A": 1, "B": 4.92}),
}


def quantile_histogram(prefix: str, labels: str, per_minute: dict[str, int]) -> dict[str, str]:
    """The bucket and count series of histogram `prefix` with `labels` (`a="x",b="y"`), growing by
    `per_minute` (le -> observations at or below it) each minute."""
    series = {f'{prefix}_bucket{{{labels},le="{le}"}}': f"0+{n}x30" for le, n in per_minute.items()}
    series[f"{prefix}_count{{{labels}}}"] = f'0+{per_minute["+Inf"]}x30'
    return series


@pytest.mark.parametrize("title", sorted(QUANTILE_PANELS))
def test_quantile_panels_are_undefined_without_observations(tmp_path: Path, title: str) -> None:
    """histogram_quantile of a histogram with no observation in the window is NaN, which Grafana (9.3
    and later keep NaN from Prometheus) shows as "NaN" in the legend and tooltip: an idle pipeline, or a
    Claude judge pre-created at 0 and called by no sampled trace, drew a NaN line. The quantile panels
    draw nothing there, as the recorded ratios record nothing, and the hand-computed quantiles where
    there were observations. For the judge panel, the claude judge's histogram stays at 0 beside the
    lexical judge's: only lexical's line."""
    prefix, labels, buckets, quantiles = QUANTILE_PANELS[title]
    target = f'job="ragmon",instance="a:9464",{labels}'.rstrip(",")
    idle = {le: 0 for le in buckets}
    for ref in ("A", "B"):
        expr = substitute(dashboard_target(title, ref)["expr"])
        promtool_expects(tmp_path, f"count({expr}) or vector(0)", quantile_histogram(prefix, target, idle),
                         {"{}": 0})
        series = quantile_histogram(prefix, target, buckets)
        kept = '{judge="lexical"}' if re.search(r"by \(le\b[^)]*\bjudge\b", expr) else "{}"
        if title == "Judge latency":
            claude = target.replace('judge="lexical"', 'judge="claude"')
            series.update(quantile_histogram(prefix, claude, idle))
        promtool_expects(tmp_path, expr, series, {kept: quantiles[ref]})
        promtool_expects(tmp_path, f"count({expr})", series, {"{}": 1})


@pytest.mark.parametrize("title", sorted(QUANTILE_PANELS))
def test_quantile_panels_keep_namespaces_apart(tmp_path: Path, title: str) -> None:
    """With the namespace variable at All, a quantile of staging's and prod's observations pooled is
    neither environment's figure: a slow staging moved prod's p99. Each quantile panel draws one line a
    namespace, as the recorded ratios and the rules keep them (`by (namespace, ...)`), and names it. By
    hand: prod's pod observes what QUANTILE_PANELS says (its quantiles are those worked out there);
    staging's pod puts all its observations (as many) in the lowest bucket, whose upper bound b gives
    quantile q at b x q (rank q x n of n, interpolated from 0)."""
    prefix, labels, buckets, quantiles = QUANTILE_PANELS[title]
    lowest = next(iter(buckets))
    staging = {le: buckets["+Inf"] for le in buckets}
    target = f'job="ragmon",{labels}namespace='
    series = {**quantile_histogram(prefix, f'{target}"prod",instance="a:9464"', buckets),
              **quantile_histogram(prefix, f'{target}"staging",instance="s:9464"', staging)}
    judge = 'judge="lexical",' if title == "Judge latency" else ""
    for ref, quantile in quantiles.items():
        target = dashboard_target(title, ref)
        q = float(re.match(r"histogram_quantile\(([\d.]+),", target["expr"])[1])
        promtool_expects(tmp_path, substitute(target["expr"]), series, {
            f'{{{judge}namespace="prod"}}': quantile, f'{{{judge}namespace="staging"}}': float(lowest) * q})
        assert "{{namespace}}" in target["legendFormat"], (title, ref)


def test_score_heatmap_draws_one_namespace_a_panel() -> None:
    """A heatmap has one bucket row per `le`: it cannot draw two environments side by side, and summed
    over the namespaces chosen it showed staging's scores and prod's as one distribution. Grafana repeats
    it for each namespace chosen (each copy reads one, `$namespace` being that namespace), stacked in its
    column so that the panels beside it keep their place."""
    panel = score_heatmap()
    assert panel["repeat"] == "namespace" and panel["repeatDirection"] == "v"
    assert "$namespace" in panel["title"]


def test_buffer_panel_draws_each_pods_own_limit(tmp_path: Path) -> None:
    """"Buffer held" draws each pod's --max-buffer beside what it holds, as the in-flight panel draws
    each pod's --max-traces: a single max() line showed the largest limit only, so a pod with a smaller
    --max-buffer could sit at its own 90% (answering 503) far below the line. By hand, in namespace
    prod: pod a runs --max-buffer 256 MiB (268435456 bytes), pod b 64 MiB (67108864); staging's pod,
    outside the chosen namespace, is not drawn."""
    pod_a, pod_b = 'namespace="prod",instance="10.0.2.5:9464"', 'namespace="prod",instance="10.0.2.6:9464"'
    series = {
        f'ragmon_max_buffer_bytes{{job="ragmon",{pod_a}}}': "268435456x30",
        f'ragmon_max_buffer_bytes{{job="ragmon",{pod_b}}}': "67108864x30",
        f'ragmon_max_buffer_bytes{{job="ragmon",{STAGING}}}': "1073741824x30",
    }
    target = dashboard_target("Buffer held", "B")
    expr = substitute(target["expr"], {**VARIABLES, "$namespace": "prod"})
    promtool_expects(tmp_path, expr, series, {'{instance="10.0.2.5:9464"}': 268435456,
                                              '{instance="10.0.2.6:9464"}': 67108864})
    promtool_expects(tmp_path, f"count({expr})", series, {"{}": 2})
    assert target["legendFormat"] == "--max-buffer {{instance}}"


def test_restarts_panel_counts_each_pods_new_processes(tmp_path: Path) -> None:
    """"Restarts per pod (1h)" with namespace prod chosen, at 20m, scraped every minute. By hand: pod a
    crash-loops, up 4 minutes and down 1 (lives from 0, 5, 10, 15 and 20m): 4 restarts; pod b restarted
    in place once, at 10m: 1. staging's pod, outside the chosen namespace, and a node exporter in prod
    (every client library exports process_start_time_seconds) are not drawn."""
    series = {
        **process_starts(PROD_A, "0x3 stale 300x3 stale 600x3 stale 900x3 stale 1200x10"),
        **process_starts(PROD_B, "0x9 stale 660x20"),
        **process_starts(STAGING, "0x3 stale 300x3 stale 600x20"),
        **NODE_EXPORTER_RESTARTS,
    }
    expr = substitute(dashboard_target("Restarts per pod (1h)")["expr"], {**VARIABLES, "$namespace": "prod"})
    promtool_expects(tmp_path, expr, series,
                     {'{instance="10.0.2.5:9464"}': 4, '{instance="10.0.2.6:9464"}': 1})
    promtool_expects(tmp_path, f"count({expr})", series, {"{}": 2})


def build_info(target: str, rules: int, values: str) -> dict[str, str]:
    return {f'ragmon_build_info{{job="ragmon",{target},version="0.1.0",scoring_rules="{rules}"}}': values}


def test_scoring_rules_annotation_marks_the_minutes_that_mix_two_rules(tmp_path: Path) -> None:
    """A rolling upgrade from rules 14 to 15 in prod, scraped every minute: pod b (15) starts at 15m,
    pod a (14) is gone from 20m (its last scrape at 19m). The 10-minute figures sum both pods' answers
    until a's leave their window, 10 minutes after its last scrape: the annotation (Grafana marks the
    points above 0) reads 2 rules at 16m and 25m, nothing before b (14m) nor once a's samples left the
    window (31m). Docker compose's ragmon (no namespace) upgraded in place at 10m: its single instance
    reports 14 up to 9m, 15 from 10m, so 2 from 10m to 19m (14m, 16m), none at 25m. Staging replaced its
    pod at 10m on the same rules: never marked, as its figures did not move."""
    staging_b = 'namespace="staging",instance="10.0.1.6:9464"'
    compose = 'instance="ragmon:9464"'
    series = {**build_info(PROD_A, 14, "1x19 stale"), **build_info(PROD_B, 15, "_x15 1x30"),
              **build_info(STAGING, 14, "1x9 stale"), **build_info(staging_b, 14, "_x10 1x30"),
              **build_info(compose, 14, "1x9 stale"), **build_info(compose, 15, "_x10 1x30")}
    (annotation,) = prometheus_annotations()
    expr = substitute(annotation["expr"])
    prod, no_namespace = '{namespace="prod",job="ragmon"}', '{job="ragmon"}'
    promtool_expects_at(tmp_path, expr, series, {
        "14m": {no_namespace: 2}, "16m": {prod: 2, no_namespace: 2}, "25m": {prod: 2}})
    marked = {"9m": 0, "14m": 1, "16m": 2, "25m": 1, "31m": 0}
    promtool_expects_at(tmp_path, f"count({expr}) or vector(0)", series,
                        {time: {"{}": count} for time, count in marked.items()})
    titled = set(re.findall(r"\{\{(\w+)\}\}", annotation["titleFormat"]))
    assert titled <= set(annotation["tagKeys"].split(","))
