"""End to end on loopback: two `ragmon serve` processes fed by the demo app (real OTel SDK exporter),
scraped by a real Prometheus loading deploy/prometheus/rules.yml. Every PromQL expression of the
dashboard, the recording rules and the Grafana alert rules runs against it and returns data, and the
hallucination ratio summed across both instances is the one worked out from the demo's known verdicts.
Each panel's series carry the labels its legend names, a panel drawn in percentunit reads 0..1, and each
template variable's label_values() offers the value it defaults to.
The targets are scraped as docker compose scrapes them, with no `namespace` label: the rules then record
series without one, and the dashboard's namespace filter at All (the variable's allValue) must match them.

Verdicts, by hand (tests/demo/test_rag.py works the answers out from corpus.json): the healthy build
answers q01 and q02 by quoting two sentences of the returns policy verbatim, 2 supported claims each.
The hallucinating build drifts the number of one of them (unsupported), keeps the other (supported) and
adds an invented sentence with a number no policy has (unsupported): 1 supported, 2 unsupported each.

Instance A gets the healthy build, instance B the hallucinating one, in two rounds. B reports the scoring
rules before A's (the same sidecar, its `ragmon.rules.SCORING_RULES` lowered by one), as in a rolling
upgrade: the dashboard's scoring-rules panel counts one instance on each, and its annotation marks them.
Round 1 asks q01 once each, so that every series exists in Prometheus before the measured round: rate()
only sees increases between samples, and a series whose first sample already holds the whole count looks
flat.
Round 2 runs the demo with q01 and q02 twice on A and four times on B: enough volume (32 claims, 12
examples in 10 minutes) for the alert queries' minimum-volume guards (30 claims, 10 examples).
  round 1: A 2 supported; B 1 supported + 2 unsupported
  round 2: A 8 supported (4 examples); B 8 supported + 16 unsupported (8 examples)
  all rounds: unsupported (2 + 16) / claims (2 + 3 + 8 + 24) = 18/37
  round 2 (what rate() sees): 16 / (8 + 24) = 0.5; the average of the two instances' ratios would be
  (0/8 + 16/24) / 2 = 1/3
  round 2 mean groundedness per example: (4 * 1 + 8 * 1/3) / 12 = 5/9 (the average of the instances'
  means would be (1 + 1/3) / 2 = 2/3)
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from itertools import zip_longest
from pathlib import Path
from typing import Any

import pytest
from yaml_files import safe_dump, safe_load

from ragmon.rules import SCORING_RULES

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
PIPELINE = "e2e-bot"
WHERE = f'pipeline="{PIPELINE}"'
RATE_INTERVAL = "1m"
"""What Grafana's $__rate_interval becomes here: data is seconds old, 1m covers all of it."""

pytestmark = pytest.mark.timeout(180)

NEW_RULES = [sys.executable, "-m", "ragmon.cli", "serve"]
OLD_RULES = [sys.executable, "-c", "import sys, ragmon.rules; ragmon.rules.SCORING_RULES -= 1; "
             "from ragmon.cli import main; sys.exit(main())", "serve"]
"""The sidecar as it ships, and as a build before the last change of scoring rules would export it: the
exporter reads SCORING_RULES when it is first imported, after the change."""

Query = Callable[[str], list[dict[str, Any]]]


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def wait_for(what: str, check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def stack(tmp_path: Path, loopback_ports: Callable[[int], list[int]]) -> Iterator[dict[str, Any]]:
    """Two ragmon instances and a Prometheus scraping them every second."""
    ports = loopback_ports(7)
    instances = []
    processes: list[subprocess.Popen[str]] = []
    try:
        builds = (NEW_RULES, OLD_RULES)
        for (http, grpc, metrics), command in zip((ports[0:3], ports[3:6]), builds, strict=True):
            env = {**os.environ, "RAGMON_HTTP_LISTEN": f"127.0.0.1:{http}",
                   "RAGMON_GRPC_LISTEN": f"127.0.0.1:{grpc}", "RAGMON_METRICS_LISTEN": f"127.0.0.1:{metrics}",
                   "RAGMON_QUIET": "100ms", "RAGMON_DECISION_WAIT": "5s"}
            processes.append(subprocess.Popen(command, env=env, text=True, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
            instances.append({"http": f"http://127.0.0.1:{http}", "metrics": f"127.0.0.1:{metrics}"})

        config = safe_load((RULES.parent / "prometheus.yml").read_text(encoding="utf-8"))
        config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
        config["rule_files"] = [str(RULES)]
        (job,) = config["scrape_configs"]
        assert job["job_name"] == "ragmon"
        job["static_configs"] = [{"targets": [i["metrics"] for i in instances]}]
        (tmp_path / "prometheus.yml").write_text(safe_dump(config), encoding="utf-8")
        prometheus = f"http://127.0.0.1:{ports[6]}"
        processes.append(subprocess.Popen(
            ["prometheus", f"--config.file={tmp_path / 'prometheus.yml'}",
             f"--storage.tsdb.path={tmp_path / 'tsdb'}", f"--web.listen-address=127.0.0.1:{ports[6]}",
             "--enable-feature=exemplar-storage", "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True))

        for instance in instances:
            wait_for("ragmon /readyz", lambda i=instance: answers(f"http://{i['metrics']}/readyz"))
        wait_for("Prometheus /-/ready", lambda: answers(prometheus + "/-/ready"))
        yield {"instances": instances, "prometheus": prometheus}
    finally:
        for process in processes:
            stop(process)


def demo(endpoint: str, phase: str, requests: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--phase", phase, "--requests",
                             str(requests), "--endpoint", endpoint, "--service-name", PIPELINE],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run_round(stack: dict[str, Any], requests: int, a_runs: int, b_runs: int) -> None:
    """Successive demo runs: the healthy build on A, alongside the hallucinating build on B."""
    a, b = stack["instances"]
    runs = [(a["http"], "healthy")] * a_runs, [(b["http"], "hallucinating")] * b_runs
    for pair in zip_longest(*runs):
        for run in [demo(*args, requests) for args in pair if args is not None]:
            output, _ = run.communicate(timeout=60)
            assert run.returncode == 0, output


def querier(prometheus: str) -> Query:
    def query(expr: str) -> list[dict[str, Any]]:
        body = get_json(f"{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        assert body["status"] == "success", (expr, body)
        return list(body["data"]["result"])
    return query


def scalar(query: Query, expr: str) -> float | None:
    result = query(expr)
    return float(result[0]["value"][1]) if result else None


def substitute(expr: str, namespaces: str) -> str:
    return (expr.replace("$__rate_interval", RATE_INTERVAL).replace("$namespace", namespaces)
            .replace("$pipeline", PIPELINE).replace("$metric", "groundedness").replace("$judge", "lexical"))


def board() -> dict[str, Any]:
    return dict(json.loads((ROOT / "grafana" / "dashboards" / "ragmon.json").read_text(encoding="utf-8")))


def every_namespace() -> str:
    """The namespace variable's All, which must match targets without the label, as here."""
    (value,) = [v["allValue"] for v in board()["templating"]["list"] if v["name"] == "namespace"]
    return str(value)


def panel_targets() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(p, t) for p in board()["panels"] for t in p.get("targets", [])]


def unit(panel: dict[str, Any], target: dict[str, Any]) -> str | None:
    """The unit Grafana draws a target's series in: its own override, else the panel's."""
    config = panel.get("fieldConfig", {})
    for override in config.get("overrides", []):
        if override["matcher"] == {"id": "byFrameRefID", "options": target["refId"]}:
            for prop in override["properties"]:
                if prop["id"] == "unit":
                    return str(prop["value"])
    return config.get("defaults", {}).get("unit")


def expressions() -> dict[str, list[str]]:
    alerts = safe_load((ROOT / "grafana" / "provisioning" / "alerting" / "ragmon-alerts.yaml").read_text(
        encoding="utf-8"))
    rules = safe_load(RULES.read_text(encoding="utf-8"))
    records = [r for g in rules["groups"] for r in g["rules"] if "record" in r]
    return {
        "dashboard": [substitute(e, every_namespace()) for e in [t["expr"] for _, t in panel_targets()]
                      + [a["expr"] for a in board()["annotations"]["list"] if "expr" in a]],
        "grafana alerts": [q["model"]["expr"] for g in alerts["groups"] for r in g["rules"] for q in r["data"]
                           if "expr" in q["model"]],
        "recording rule expressions": [r["expr"] for r in records],
        "recorded series": [r["record"] for r in records],
    }


def test_dashboard_rules_and_alerts_return_data_and_ratios_sum_across_instances(
        stack: dict[str, Any]) -> None:
    query = querier(stack["prometheus"])
    claims = f"sum(ragmon_claims_total{{{WHERE}}})"
    series = f'count(ragmon_example_score_count{{{WHERE},metric="groundedness"}})'

    run_round(stack, requests=1, a_runs=1, b_runs=1)
    # 2 + 3 claims of round 1 scraped from both instances, histogram series included.
    wait_for("round 1 in Prometheus", lambda: scalar(query, claims) == 5 and scalar(query, series) == 2)
    run_round(stack, requests=2, a_runs=2, b_runs=4)
    wait_for("round 2 in Prometheus", lambda: scalar(query, claims) == 37)
    # rate() extrapolates each instance's series by its own first and last sample times (up to a second
    # apart), so the summed rates carry an error of about 1 s / the span sampled: let a dozen seconds of
    # samples accumulate after round 2 (measured error then: under 0.01 on both figures below).
    settled = time.monotonic() + 12
    wait_for("samples after round 2", lambda: time.monotonic() > settled)

    # Raw counters summed across instances, then divided: exactly 18/37.
    exact = (f'sum by (pipeline) (ragmon_claims_total{{{WHERE},verdict="unsupported"}})'
             f' / sum by (pipeline) (ragmon_claims_total{{{WHERE}}})')
    assert scalar(query, exact) == 18 / 37
    # The recording rule, over round 2: 0.5, not the 1/3 an average of the instances' ratios gives.
    recorded = scalar(query, f'pipeline_judge:ragmon_claims_unsupported_per_claims:ratio_rate10m{{{WHERE},'
                             f'judge="lexical"}}')
    assert recorded is not None and abs(recorded - 0.5) < 0.025
    mean = scalar(query, f'pipeline_judge_metric:ragmon_example_score:mean10m{{{WHERE},judge="lexical",'
                         f'metric="groundedness"}}')
    assert mean is not None and abs(mean - 5 / 9) < 0.025

    empty = {}
    for source, exprs in expressions().items():
        for expr in exprs:
            values = [float(r["value"][1]) for r in query(expr)]
            if not any(math.isfinite(v) for v in values):
                empty[expr] = source
    assert empty == {}
    assert_panels_draw_what_they_say(query)
    assert_rules_panel_counts_each_instance(query)
    assert_variables_offer_their_defaults(stack["prometheus"])

    rules = get_json(stack["prometheus"] + "/api/v1/rules")["data"]["groups"]
    unhealthy = [r["name"] for g in rules for r in g["rules"] if r["health"] != "ok"]
    shipped = safe_load(RULES.read_text(encoding="utf-8"))["groups"]
    assert sum(len(g["rules"]) for g in rules) == sum(len(g["rules"]) for g in shipped) > 0
    assert unhealthy == []

    # Exemplars made it through OpenMetrics negotiation and storage: the dashboard's trace links.
    now = time.time()
    exemplars = get_json(stack["prometheus"] + "/api/v1/query_exemplars?" + urllib.parse.urlencode(
        {"query": "ragmon_example_score_bucket", "start": now - 300, "end": now}))["data"]
    trace_ids = {e["labels"]["trace_id"] for s in exemplars for e in s["exemplars"]}
    assert trace_ids and all(len(t) == 32 and int(t, 16) for t in trace_ids)


def assert_rules_panel_counts_each_instance(query: Query) -> None:
    """A on the shipped rules, B on the ones before: one instance each, told apart by the legend."""
    (panel,) = [p for p in board()["panels"] if p["title"] == "Instances by scoring rules"]
    series = query(substitute(panel["targets"][0]["expr"], every_namespace()))
    assert {s["metric"]["scoring_rules"]: float(s["value"][1]) for s in series} == {
        str(SCORING_RULES): 1, str(SCORING_RULES - 1): 1}


LEGEND_LABEL = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def assert_panels_draw_what_they_say(query: Query) -> None:
    """Data is not enough: a series without a label its legend names draws as a blank or merged line,
    and a ratio drawn as percentunit outside 0..1 reads 100 times off. `namespace` is left out of the
    legends checked: these targets have none, as under docker compose."""
    unlabelled, out_of_range = {}, {}
    for panel, target in panel_targets():
        name = f'{panel["title"]} {target["refId"]}'
        series = query(substitute(target["expr"], every_namespace()))
        wanted = set(LEGEND_LABEL.findall(target.get("legendFormat", ""))) - {"namespace"}
        missing = {label for s in series for label in wanted - set(s["metric"])}
        if missing:
            unlabelled[name] = missing
        values = [float(s["value"][1]) for s in series]
        if unit(panel, target) == "percentunit" and not all(0 <= v <= 1 for v in values):
            out_of_range[name] = values
    assert unlabelled == {}
    assert out_of_range == {}


def assert_variables_offer_their_defaults(prometheus: str) -> None:
    """Each variable's label_values() as Grafana asks Prometheus for it (the label's values among the
    series matched), with All for a multi-value one and the variables before it as the panels read them:
    the pipeline is offered, no namespace (none here), and a single-value variable offers its default, or
    every panel reading it is empty on first load."""
    offered = {}
    for variable in board()["templating"]["list"]:
        match = re.fullmatch(r"label_values\((.+), (\w+)\)", variable["query"]["query"])
        assert match, variable["name"]
        selector = substitute(match[1], every_namespace())
        url = f"{prometheus}/api/v1/label/{match[2]}/values?" + urllib.parse.urlencode({"match[]": selector})
        offered[variable["name"]] = set(get_json(url)["data"])
    assert offered["namespace"] == set() and offered["pipeline"] == {PIPELINE}
    defaults = {v["name"]: v["current"]["value"] for v in board()["templating"]["list"] if not v["multi"]}
    assert defaults == {"judge": "lexical", "metric": "groundedness"}
    assert all(value in offered[name] for name, value in defaults.items()), offered
