"""docs/deploy.md as an operator follows it: every alert's `runbook_url` lands on a runbook section of the
page, and every file, flag, RAGMON_* variable, default, metric, alert, panel, port and PromQL expression the
page names is one the repository has and the program takes.

The page is read, not run: a renamed runbook heading leaves every alert's link at the top of the page, a
misspelt flag makes `ragmon serve` exit 2 at start, a misspelt metric or a query that does not parse
returns nothing, and none of that fails anywhere else. Each check returns the problems it finds, named by
the line of their paragraph, so a broken copy of the page (the tests at the end) shows what an operator
would trip on.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import importlib
import json
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from demo_scores import scored
from test_grafana import promtool_expects
from test_metric_names import exported, recording_rules, unknown_names
from yaml_files import safe_dump, safe_load

from ragmon import capture, cli, memory_budget, serve_config
from ragmon.exporter import RESERVED_PIPELINES, Exporter
from ragmon.options import MiB, duration
from ragmon.semconv.ragmon import ATTRIBUTES as SPAN_ATTRIBUTES
from ragmon.serve_config import ServeConfig

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
README = ROOT / "README.md"
COMPOSE = ROOT / "deploy" / "compose" / "docker-compose.yml"
SIDECAR = ROOT / "deploy" / "kubernetes" / "deployment.yaml"
DASHBOARD = ROOT / "grafana" / "dashboards" / "ragmon.json"
PROMETHEUS_RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
RULE_FILES = [PROMETHEUS_RULES, *sorted((ROOT / "grafana" / "provisioning" / "alerting").glob("*.yaml"))]

FENCE = re.compile(r"^\s*```(\w*)\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
CODE_SPAN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\(#([^)\s]+)\)")
COMMAND = re.compile(r"\bragmon\s+(serve|replay|calibrate|demo)\b")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
VARIABLE = re.compile(r"\bRAGMON_[A-Z0-9]+(?:_[A-Z0-9]+)*\b")
ALERT_NAME = re.compile(r"\bRagmon[A-Z][A-Za-z]+\b")
RECORDING_RULE = re.compile(r"\b[a-z_]+:ragmon_[a-z0-9_]+:[a-z0-9_]+\b")
QUOTED = re.compile(r'"([^"]+)"')
LAPTOP_URL = re.compile(r"<http://127\.0\.0\.1:(\d+)[^>]*>")

REPO_PATH = re.compile(r"^(?:deploy|grafana|docs|ragmon|tests|benchmarks)/\S*$"
                       r"|^(?:Dockerfile|pyproject\.toml)$")
FILE_NAME = re.compile(r"^[\w.-]+\.(?:ya?ml|json|py|toml)$")
PYTHON_NAME = re.compile(r"^ragmon(?:\.\w+)+$")
TEST_NAME = re.compile(r"^test_\w+$")
ELSEWHERE = (ROOT / "deploy", ROOT / "grafana")
"""Where a file the page names bare (`rules_test.yml`, in the section of its directory) lives."""

PROMQL_NAME = re.compile(r"\b(?:ragmon_\w+|up|ALERTS|otelcol_\w+|process_\w+)\s*[{(\[]")
QUERY_PARAM = re.compile(r"'query=([^']+)'")

SETTING = r"`(--[a-z0-9-]+|RAGMON_[A-Z0-9_]+)`"
VALUE = r"(\d[\d,.]*(?: ?[A-Za-z]+)?)"
SETTING_DEFAULT = re.compile(SETTING + r",? (?:\([^()`]*?)?default " + VALUE + r"[);,]")
SETTING_VALUE = re.compile(r"(?<!x )" + SETTING + r" \(" + VALUE + r"\)")
"""`--max-traces`, default 20,000 / `RAGMON_WORKERS` (..., default 1) / `--quiet` (2 s); not
3 x `--max-body` (48 MiB), a multiple of it."""

MEMORY_SUM = re.compile(r"So ([\d +]+?) = (\d+) MiB over OTLP/HTTP alone, (\d+) MiB with gRPC, "
                        r"(\d+) MiB with Claude")
MEMORY_LOGGED = re.compile(r"`memory: at most (\d+) MiB with these settings \(\.\.\.\)` with "
                           r"`RAGMON_LLM_SAMPLE_RATE` set; (\d+) MiB as shipped")

FOREIGN_FLAGS = {"--enable-feature": "Prometheus", "--config": "the Collector"}
"""Flags the page gives, as bare code, to a program other than ragmon."""
RELABEL_ACTIONS = {"replace", "keep", "drop", "keepequal", "dropequal", "hashmod", "labelmap", "labeldrop",
                   "labelkeep", "lowercase", "uppercase"}


@dataclass(frozen=True)
class Paragraph:
    """A block of prose between blank lines (a bullet list is one), outside code fences."""

    line: int
    text: str

    def folded(self) -> str:
        return " ".join(self.text.split())

    def commands(self) -> set[str]:
        """The ragmon subcommands it names: a bare flag in it may be theirs."""
        return set(COMMAND.findall(self.folded()))


@dataclass(frozen=True)
class Fence:
    line: int
    lang: str
    body: str


@dataclass(frozen=True)
class Doc:
    path: Path
    lines: tuple[str, ...]

    @classmethod
    def read(cls, path: Path) -> Doc:
        return cls(path, tuple(path.read_text(encoding="utf-8").splitlines()))

    def where(self, line: int | None = None) -> str:
        return self.path.name if line is None else f"{self.path.name}:{line}"

    def _blocks(self) -> Iterator[Paragraph | Fence]:
        """Paragraphs and fences in order; a `#` line inside a fence is a shell comment, not a heading."""
        start, held = 0, list[str]()
        fence: tuple[int, str] | None = None
        for number, line in enumerate(self.lines, 1):
            opened = FENCE.match(line)
            if fence is not None:
                if opened and not opened.group(1):
                    yield Fence(fence[0], fence[1], "\n".join(held))
                    held, fence = [], None
                else:
                    held.append(line)
            elif opened:
                if held:
                    yield Paragraph(start, "\n".join(held))
                held, fence = [], (number, opened.group(1))
            elif line.strip():
                start = start if held else number
                held.append(line)
            elif held:
                yield Paragraph(start, "\n".join(held))
                held = []
        if held and fence is None:
            yield Paragraph(start, "\n".join(held))

    def paragraphs(self) -> list[Paragraph]:
        return [b for b in self._blocks() if isinstance(b, Paragraph)]

    def fences(self) -> list[Fence]:
        return [b for b in self._blocks() if isinstance(b, Fence)]

    def code_spans(self) -> Iterator[tuple[int, str, Paragraph]]:
        """(line, span with its line breaks folded, paragraph) of every `code` in the prose."""
        for paragraph in self.paragraphs():
            for match in CODE_SPAN.finditer(paragraph.text):
                line = paragraph.line + paragraph.text.count("\n", 0, match.start())
                yield line, " ".join(match.group(1).split()), paragraph

    def headings(self) -> list[tuple[int, int, str]]:
        """(line, level, text) of every heading outside code fences."""
        found = []
        for paragraph in self.paragraphs():
            for offset, line in enumerate(paragraph.text.splitlines()):
                match = HEADING.match(line)
                if match:
                    found.append((paragraph.line + offset, len(match.group(1)), match.group(2)))
        return found

    def anchors(self) -> set[str]:
        """The ids GitHub gives the headings: lower case, punctuation dropped, spaces to '-', and '-1',
        '-2'... after a repeated one."""
        seen: dict[str, int] = {}
        for _, _, text in self.headings():
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, -1) + 1
            if seen[slug]:
                seen[f"{slug}-{seen[slug]}"] = 0
        return set(seen)

    def runbooks(self) -> dict[str, int]:
        """Heading -> line of each section under `## Runbooks`."""
        sections, inside = {}, False
        for line, level, text in self.headings():
            if level == 2:
                inside = text == "Runbooks"
            elif inside and level == 3:
                sections[text] = line
        return sections

    def table(self, header: str) -> list[tuple[int, list[str]]]:
        """(line, cells) of the rows of the table whose header row starts with `header`."""
        rows, inside = [], False
        for number, line in enumerate(self.lines, 1):
            if line.startswith(header):
                inside = True
            elif inside and line.startswith("|"):
                cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                if not set("".join(cells)) <= set("-: "):
                    rows.append((number, cells))
            elif inside:
                break
        return rows


def load_yaml(path: Path) -> Any:
    return safe_load(path.read_text(encoding="utf-8"))


def prometheus_alerts() -> dict[str, dict[str, Any]]:
    return {r["alert"]: r for g in load_yaml(PROMETHEUS_RULES)["groups"] for r in g["rules"] if "alert" in r}


def runbook_urls() -> Iterator[tuple[str, str, str]]:
    """(rule file, alert, runbook_url) of every alert rule, Prometheus's and Grafana's."""
    for path in RULE_FILES:
        for group in load_yaml(path)["groups"]:
            for rule in group["rules"]:
                name = rule.get("alert") or rule.get("title")
                if name:
                    yield str(path.relative_to(ROOT)), name, rule["annotations"]["runbook_url"]


@cache
def command_options(command: str) -> tuple[frozenset[str], frozenset[str]]:
    """(flags, RAGMON_* variables) of a ragmon subcommand, from its own parser and the CLI's mapping."""
    parser = argparse.ArgumentParser()
    importlib.import_module(cli.SUBCOMMANDS[command][0]).add_arguments(parser)
    flags = frozenset(parser._option_string_actions)
    names = {cli.variable(command, flag) for flag in flags if flag.startswith("--") and flag != "--help"}
    return flags, frozenset(names | cli.OTHER_VARIABLES.get(command, frozenset()))


def runbook_problems(doc: Doc) -> list[str]:
    """Every alert links to its own section of this page, every alert has one, and no section is left
    over from an alert that no longer exists; the page's own `#` links land too."""
    anchors, sections, alerts = doc.anchors(), doc.runbooks(), set(prometheus_alerts())
    problems = []
    for source, alert, url in runbook_urls():
        page, _, anchor = url.partition("#")
        if not page.endswith("/docs/deploy.md") or anchor not in anchors:
            problems.append(f"{source}: {alert}: runbook_url {url} names no heading of docs/deploy.md")
        elif anchor != alert.lower():
            problems.append(f"{source}: {alert}: runbook_url {url} is another alert's runbook")
    problems += [f"{doc.where()}: {name} has no section under Runbooks"
                 for name in sorted(alerts - set(sections))]
    problems += [f"{doc.where(line)}: runbook section {name} is for no alert of rules.yml"
                 for name, line in sections.items() if name not in alerts]
    problems += [f"{doc.where(p.line)}: link #{anchor} names no heading"
                 for p in doc.paragraphs() for anchor in LINK.findall(p.text) if anchor not in anchors]
    return problems


def _test_exists(name: str) -> bool:
    pattern = re.compile(rf"^def {name}\(", re.M)
    tests = (ROOT / "tests").rglob("test_*.py")
    return any(pattern.search(path.read_text(encoding="utf-8")) for path in tests)


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _python_name_missing(name: str) -> str | None:
    """`ragmon.scoring.working_bytes`: a module of ragmon and a name in it. `ragmon.contexts` is dotted
    the same way but is a span attribute ragmon reads, not Python's; only those are let through, so a
    misspelt module (`ragmon.scorng`) is not taken for one."""
    if name in SPAN_ATTRIBUTES:
        return None
    parts = name.split(".")
    cut = next(cut for cut in range(len(parts), 0, -1) if _imports(".".join(parts[:cut])))
    target: Any = importlib.import_module(".".join(parts[:cut]))
    for at in range(cut, len(parts)):
        if not hasattr(target, parts[at]):
            if at == 1:
                return f"no such module {'.'.join(parts[:2])}, nor a span attribute ragmon reads"
            return f"{'.'.join(parts[:at])} has no {parts[at]}"
        target = getattr(target, parts[at])
    return None


def _reference_missing(token: str) -> str | None:
    """Why a repository path, file name, Python name or test name the page gives does not exist."""
    if REPO_PATH.match(token):
        return None if glob.glob(str(ROOT / token)) else "no such path in the repository"
    if FILE_NAME.match(token):
        found = (ROOT / token).exists() or any(next(base.rglob(token), None) for base in ELSEWHERE)
        return None if found else "no such file in deploy/ or grafana/"
    if TEST_NAME.match(token):
        return None if _test_exists(token) else "no such test"
    return _python_name_missing(token) if PYTHON_NAME.match(token) else None


def path_problems(doc: Doc) -> list[str]:
    """Every file, directory, Python name and test the page names in code exists."""
    problems = []
    for line, span, _ in doc.code_spans():
        for token in span.split():
            why = _reference_missing(token.rstrip(".,:;"))
            if why:
                problems.append(f"{doc.where(line)}: `{token}`: {why}")
    return problems


def _commands_in_fence(fence: Fence) -> Iterator[tuple[str, str]]:
    """(subcommand, its arguments) of each `ragmon <subcommand>` a shell block runs."""
    text = fence.body.replace("\\\n", " ")
    for match in COMMAND.finditer(text):
        yield match.group(1), re.split(r"&&|\|\||[|;\n]", text[match.end():], maxsplit=1)[0]


def _flag_problem(flag: str, commands: set[str]) -> str | None:
    """None when `flag` is one of these subcommands'."""
    if flag in FOREIGN_FLAGS or any(flag in command_options(command)[0] for command in commands):
        return None
    return f"{flag} is no flag of ragmon {' or '.join(sorted(commands))}"


def flag_problems(doc: Doc) -> list[str]:
    """Every `--flag` the page gives ragmon is one the subcommand takes: in `ragmon <subcommand> ...`,
    that subcommand's; bare (`--max-traces`), serve's or that of a subcommand its paragraph names. Code
    that runs another program (`kubectl ... --previous`) is that program's business."""
    problems = []
    for line, span, paragraph in doc.code_spans():
        named = COMMAND.match(span)
        if named:
            commands, flags = {named.group(1)}, FLAG.findall(span)
        elif span.startswith("--"):
            commands, flags = paragraph.commands() | {"serve"}, FLAG.findall(span.split()[0])
        else:
            continue
        problems += [f"{doc.where(line)}: `{span}`: {why}"
                     for flag in flags if (why := _flag_problem(flag, commands))]
    for fence in doc.fences():
        for command, arguments in _commands_in_fence(fence):
            problems += [f"{doc.where(fence.line)}: ragmon {command}: {why}"
                         for flag in FLAG.findall(arguments) if (why := _flag_problem(flag, {command}))]
    return problems


def variable_problems(doc: Doc) -> list[str]:
    """Every RAGMON_* variable the page names is one serve reads, or one of a subcommand named beside it
    (`RAGMON_ENDPOINT` would become `ragmon demo --endpoint`): ragmon ignores a misspelt one."""
    blocks = [(p.line, p.text, p.commands()) for p in doc.paragraphs()]
    blocks += [(f.line, f.body, {c for c, _ in _commands_in_fence(f)}) for f in doc.fences()]
    problems = []
    for line, text, named in blocks:
        commands = named | {"serve"}
        problems += [f"{doc.where(line)}: {name} is read by no ragmon {'/'.join(sorted(commands))}"
                     for name in sorted(set(VARIABLE.findall(text)))
                     if not any(name in command_options(c)[1] for c in commands)]
    return problems


def metric_problems(doc: Doc) -> list[str]:
    """Every ragmon_* metric and recording rule the page names is exported or recorded."""
    types, rules = exported()[0], recording_rules()
    problems = []
    for number, line in enumerate(doc.lines, 1):
        problems += [f"{doc.where(number)}: metric {name} is not exported"
                     for name in sorted(unknown_names(line, types))]
        problems += [f"{doc.where(number)}: recording rule {name} is not in rules.yml"
                     for name in RECORDING_RULE.findall(line) if name not in rules]
    return problems


def promql_expressions(doc: Doc) -> list[tuple[int, str]]:
    """(line, expression) of the PromQL the page shows: code that selects or aggregates a series, and
    the query of an API call."""
    found = [(line, span) for line, span, _ in doc.code_spans() if PROMQL_NAME.search(span)]
    queries = [(fence.line, query) for fence in doc.fences() for query in QUERY_PARAM.findall(fence.body)]
    return found + queries


def promql_problems(doc: Doc) -> list[str]:
    """promtool parses each expression, wrapped as a recording rule named after its line."""
    expressions = promql_expressions(doc)
    rules = [{"record": f"doc:line{line}_{i}:promql", "expr": expr}
             for i, (line, expr) in enumerate(expressions)]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "doc_promql.yml"
        path.write_text(safe_dump({"groups": [{"name": "doc", "rules": rules}]}), encoding="utf-8")
        result = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True,
                                timeout=60)
    output = result.stdout + result.stderr
    problems = [f"{doc.where(int(line))}: {expressions[int(i)][1]}: {why}"
                for line, i, why in re.findall(r'"doc:line(\d+)_(\d+):promql": (.*)', output)]
    return problems or ([f"{doc.where()}: promtool failed: {output}"] if result.returncode else [])


def table_problems(doc: Doc) -> list[str]:
    """The alert table names every alert of rules.yml once, with its severity, and the recording-rule
    table every rule it records."""
    alerts = {name: rule["labels"]["severity"] for name, rule in prometheus_alerts().items()}
    rows = {cells[0]: (line, cells[1]) for line, cells in doc.table("| alert | severity |")}
    problems = [f"{doc.where()}: alert table: no row for {name}" for name in sorted(set(alerts) - set(rows))]
    for name, (line, severity) in rows.items():
        if name not in alerts:
            problems.append(f"{doc.where(line)}: alert table: {name} is no alert of rules.yml")
        elif severity != alerts[name]:
            problems.append(f"{doc.where(line)}: alert table: {name} is {severity}, "
                            f"rules.yml: {alerts[name]}")
    listed = {name for _, cells in doc.table("| rule | meaning |") for name in CODE_SPAN.findall(cells[0])}
    recorded = recording_rules()
    problems += [f"{doc.where()}: rule table: no row for {name}" for name in sorted(recorded - listed)]
    problems += [f"{doc.where()}: rule table: {name} is not recorded" for name in sorted(listed - recorded)]
    return problems


def _scrape_config_problems(config: dict[str, Any]) -> list[str]:
    """The pod-discovery scrape config gives what the rules select (`job="ragmon"`, `namespace`), keeps
    the port the sidecar manifest names, and scrapes within the sidecar's RAGMON_FINAL_SCRAPE_WAIT: a
    stopping sidecar waits that long for a scrape of what its drain decided, and a job left at the global
    interval (Prometheus's default: 1m) missed it. (Debian's promtool is built without Kubernetes
    discovery: `promtool check config` cannot read it here.)"""
    pod = load_yaml(SIDECAR)["spec"]["template"]["spec"]
    ports = {port["name"] for container in pod["initContainers"] for port in container["ports"]}
    (wait,) = [duration(env["value"]) for container in pod["initContainers"] for env in container["env"]
               if env["name"] == "RAGMON_FINAL_SCRAPE_WAIT"]
    problems = []
    for job in config["scrape_configs"]:
        interval = job.get("scrape_interval", "the global one")
        if interval == "the global one" or duration(interval) > wait:
            problems.append(f"scrape_interval is {interval}: the sidecar waits {wait:g} s "
                            "(RAGMON_FINAL_SCRAPE_WAIT) for its final scrape")
        relabels = job.get("relabel_configs", [])
        kept = {r["regex"] for r in relabels if r.get("action") == "keep"}
        targets = {r["target_label"] for r in relabels if r.get("action", "replace") == "replace"}
        if job["job_name"] != "ragmon":
            problems.append(f"job_name {job['job_name']}: the rules select job=\"ragmon\"")
        if kept != ports:
            problems.append(f"keeps ports {sorted(kept)}, the sidecar's metrics port is {sorted(ports)}")
        if "namespace" not in targets:
            problems.append("sets no namespace label: the rules keep environments apart by it")
        if any(r.get("action", "replace") not in RELABEL_ACTIONS for r in relabels):
            problems.append(f"a relabel action is none of Prometheus's {sorted(RELABEL_ACTIONS)}")
    return problems


def yaml_problems(doc: Doc) -> list[str]:
    """Every YAML excerpt parses, and a scrape config scrapes ragmon as the rules expect."""
    problems = []
    for fence in doc.fences():
        if fence.lang != "yaml":
            continue
        try:
            excerpt = safe_load(fence.body)
        except yaml.YAMLError as exc:
            problems.append(f"{doc.where(fence.line)}: YAML does not parse: {exc}")
            continue
        if isinstance(excerpt, dict) and "scrape_configs" in excerpt:
            problems += [f"{doc.where(fence.line)}: scrape config {why}"
                         for why in _scrape_config_problems(excerpt)]
    return problems


def alert_name_problems(doc: Doc) -> list[str]:
    """Every alert the page sends the reader to (`see RagmonTracesEvicted`) is one rules.yml has."""
    alerts = set(prometheus_alerts())
    return [f"{doc.where(number)}: {name} is no alert of rules.yml"
            for number, line in enumerate(doc.lines, 1)
            for name in ALERT_NAME.findall(line) if name not in alerts]


def _on_screen() -> tuple[list[str], set[str], str]:
    """(dashboard panel titles and annotation names, README headings, ragmon's source): where a quoted
    name is looked for."""
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    titles = [panel["title"] for panel in board["panels"]] + [a["name"] for a in board["annotations"]["list"]]
    lines = README.read_text(encoding="utf-8").splitlines()
    headings = {m.group(2) for line in lines if (m := HEADING.match(line))}
    source = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "ragmon").rglob("*.py"))
    return titles, headings, source


def quoted_name_problems(doc: Doc) -> list[str]:
    """Every "quoted" name in the prose is a panel of the dashboard ("Traces by outcome"), a section of
    the README ("Metrics exported") or a text ragmon logs ("trace not read as RAG"): what an operator
    looks for on a screen, and finds."""
    titles, headings, source = _on_screen()
    problems = []
    for paragraph in doc.paragraphs():
        for name in QUOTED.findall(" ".join(CODE_SPAN.sub("", paragraph.text).split())):
            if not (any(title.startswith(name) for title in titles) or name in headings or name in source):
                problems.append(f"{doc.where(paragraph.line)}: \"{name}\" is no dashboard panel, README "
                                "section or log text of ragmon")
    return problems


def laptop_url_problems(doc: Doc) -> list[str]:
    """Every <http://127.0.0.1:PORT> to open on a laptop is a port docker compose publishes there."""
    published = {str(port).rsplit(":", 1)[0] for service in load_yaml(COMPOSE)["services"].values()
                 for port in service.get("ports", [])}
    return [f"{doc.where(number)}: 127.0.0.1:{port} is published by no service of {COMPOSE.name}"
            for number, line in enumerate(doc.lines, 1) for port in LAPTOP_URL.findall(line)
            if f"127.0.0.1:{port}" not in published]


def _serve_action(name: str) -> argparse.Action | None:
    parser = argparse.ArgumentParser()
    serve_config.add_arguments(parser)
    flag = name if name.startswith("--") else "--" + name.removeprefix("RAGMON_").lower().replace("_", "-")
    return parser._option_string_actions.get(flag)


def _serve_default(action: argparse.Action) -> Any:
    """What serve runs with when the flag is not given: ServeConfig's field where it has one (the parser
    leaves --max-pipelines unset, as it cannot be combined with --pipelines), else the parser's."""
    default = getattr(ServeConfig(), action.dest, action.default)
    return action.type(default) if isinstance(default, str) and callable(action.type) else default


def stated_defaults(doc: Doc) -> list[tuple[int, str, str, argparse.Action]]:
    """(line, setting, value, serve's flag) of each default the page gives a serve setting. A flag that
    is also one of another subcommand the paragraph names is that one's."""
    found = []
    for paragraph in doc.paragraphs():
        others = paragraph.commands() - {"serve"}
        prose = paragraph.folded()
        for name, value in [*SETTING_DEFAULT.findall(prose), *SETTING_VALUE.findall(prose)]:
            action = _serve_action(name)
            if action is None or not callable(action.type):
                continue
            if not any(action.option_strings[-1] in command_options(other)[0] for other in others):
                found.append((paragraph.line, name, value, action))
    return found


def default_problems(doc: Doc) -> list[str]:
    """Every default the page gives a serve setting is the one serve runs with."""
    problems = []
    for line, name, value, action in stated_defaults(doc):
        assert callable(action.type)
        if action.type(re.sub(r"(?<=\d)[, ](?=\d|[A-Za-z])", "", value)) != _serve_default(action):
            problems.append(f"{doc.where(line)}: {name} default {value}: serve's is {action.default}")
    return problems


def _mib(parts: tuple[memory_budget.Part, ...]) -> int:
    return -(-memory_budget.total(parts) // MiB)


def memory_problems(doc: Doc) -> list[str]:
    """The worst case the page adds up is the one `ragmon serve` logs at start (ragmon.memory_budget) as
    shipped: over OTLP/HTTP alone, with gRPC, and with the Claude judge."""
    prose = " ".join(paragraph.folded() for paragraph in doc.paragraphs())
    found, logged = MEMORY_SUM.search(prose), MEMORY_LOGGED.search(prose)
    if found is None or logged is None:
        return [f"{doc.where()}: no sum of the memory parts, or no start-up line (memory: at most ... MiB)"]
    http = memory_budget.worst_case(ServeConfig(grpc_listen=None))
    parts = [int(n) for n in found.group(1).split("+")]
    stated = {"parts": parts, "sum of the parts": int(found.group(2)), "over HTTP": int(found.group(2)),
              "with gRPC": int(found.group(3)), "with Claude": int(found.group(4)),
              "logged with Claude": int(logged.group(1)), "logged as shipped": int(logged.group(2))}
    actual = {"parts": [_mib((part,)) for part in http], "sum of the parts": sum(parts),
              "over HTTP": _mib(http),
              "with gRPC": _mib(memory_budget.worst_case(ServeConfig())),
              "with Claude": _mib(memory_budget.worst_case(ServeConfig(), claude=True))}
    actual |= {"logged with Claude": actual["with Claude"], "logged as shipped": actual["with gRPC"]}
    return [f"{doc.where()}: memory {what}: the page says {stated[what]}, it is {actual[what]}"
            for what in stated if stated[what] != actual[what]]


@pytest.fixture
def doc_path() -> Path:
    """The page under test; point it at a copy to see what the checks say of it."""
    return DOC


@pytest.fixture
def doc(doc_path: Path) -> Doc:
    return Doc.read(doc_path)


def test_every_alert_links_to_its_runbook_section(doc: Doc) -> None:
    assert runbook_problems(doc) == []


def test_named_files_and_code_exist(doc: Doc) -> None:
    assert path_problems(doc) == []


def test_flags_are_the_subcommands(doc: Doc) -> None:
    assert flag_problems(doc) == []


def test_variables_are_read_by_ragmon(doc: Doc) -> None:
    assert variable_problems(doc) == []


def test_metrics_are_exported(doc: Doc) -> None:
    assert metric_problems(doc) == []


def test_promql_parses(doc: Doc) -> None:
    assert promql_problems(doc) == []


def test_alert_and_rule_tables_match_rules_yml(doc: Doc) -> None:
    assert table_problems(doc) == []


def test_yaml_excerpts_load(doc: Doc) -> None:
    assert yaml_problems(doc) == []


def test_alerts_named_exist(doc: Doc) -> None:
    assert alert_name_problems(doc) == []


def test_quoted_names_are_on_screen(doc: Doc) -> None:
    assert quoted_name_problems(doc) == []


def test_laptop_urls_are_published(doc: Doc) -> None:
    assert laptop_url_problems(doc) == []


def test_defaults_are_serves(doc: Doc) -> None:
    assert default_problems(doc) == []


def test_memory_sum_is_the_one_serve_logs(doc: Doc) -> None:
    assert memory_problems(doc) == []


def test_reserved_pipeline_names_are_given_their_labels(doc: Doc) -> None:
    """A service named `other` is not counted under `other`, every unlisted pipeline's label, and
    `--pipelines other` is refused without naming the label to list: the page gives it, worked out here
    from the rule the README states (the name, `~`, 12 hex digits of its SHA-256), and ragmon agrees."""
    exporter = Exporter(judges=("lexical",))
    text = " ".join(" ".join(doc.lines).split())
    for name in RESERVED_PIPELINES:
        label = f"{name}~{hashlib.sha256(name.encode()).hexdigest()[:12]}"
        assert exporter.pipeline_label(name) == label
        assert f"a service named `{name}`" in text and f"`{label}`" in text, name


def test_the_page_has_what_the_checks_read(doc: Doc) -> None:
    """The checks above pass on an empty page too: the page holds what they read, counted by hand (22
    alerts in rules.yml, 6 rows of recording rules, 10 PromQL excerpts and the curl query, 3 YAML
    excerpts, 4 URLs to open on a laptop, 17 serve defaults: 6 in "The image", --max-pipelines,
    --max-values, RAGMON_CAPTURE_BELOW twice and 7 in the runbooks)."""
    assert len(doc.runbooks()) == 22
    assert len(doc.table("| alert | severity |")) == 22
    assert len(doc.table("| rule | meaning |")) == 6
    assert len(promql_expressions(doc)) == 11
    assert [fence.lang for fence in doc.fences()].count("yaml") == 3
    assert LAPTOP_URL.findall("\n".join(doc.lines)) == ["3000", "9090", "16686", "9464"]
    assert len(stated_defaults(doc)) == 17


def test_the_absent_runbook_names_the_pods_each_podmonitor_selects(doc: Doc) -> None:
    """RagmonAbsent fires when no target is discovered at all, most often at install, when the sidecar went
    into a Deployment of one's own whose pods lack the labels the shipped PodMonitor selects: its runbook
    names those labels, each shipped PodMonitor's, as `key: value`, and where Prometheus lists what it
    discovers. The checklist had named the PodMonitor's own labels and port, not the pods it selects."""
    start = doc.runbooks()["RagmonAbsent"]
    end = min(line for line in doc.runbooks().values() if line > start)
    section = " ".join(" ".join(doc.lines[start:end - 1]).split())
    for path in sorted((ROOT / "deploy").rglob("podmonitor.yaml")):
        for key, value in load_yaml(path)["spec"]["selector"]["matchLabels"].items():
            assert f"`{key}: {value}`" in section, (path.parent.name, key, value)
    assert "Status > Targets" in section


JQ_BELOW = re.compile(r"select\(\(\.value \| tonumber\) < ([\d.]+)\)")
ALERT_FIGURE = "pipeline_judge:ragmon_claims_unsupported_per_claims:ratio_rate10m"


def test_the_capture_snippet_keeps_every_answer_the_hallucination_alert_counts(doc: Doc) -> None:
    """RagmonHallucinationRateHigh fires at a fifth of the claims unsupported: 40 answers of two supported
    sentences and one made up (groundedness 0.67) fired it, and the page's capture, at the default 0.5,
    kept none of them, nor did step 1's exemplar query print one. Every answer with an unsupported claim
    counts towards the alert, so the snippet keeps every one below 1, and step 1 prints the exemplars
    the capture holds a line for, no more and no fewer."""
    snippet = next(f for f in doc.fences() if f.lang == "yaml" and "RAGMON_CAPTURE" in f.body)
    env = {item["name"]: item["value"] for item in safe_load(snippet.body)}
    assert all(isinstance(value, str) for value in env.values()), env  # Kubernetes takes strings only
    config = ServeConfig.from_args(cli.build_parser("serve", env).parse_args(["serve"]))
    assert config.capture is not None
    for groundedness in (0.0, 0.5, 2 / 3, 0.8, 29 / 30):
        assert capture.selected(groundedness, config.capture_below), groundedness
    jq = [float(x) for fence in doc.fences() for x in JQ_BELOW.findall(fence.body)]
    assert jq == [config.capture_below]


def test_the_hallucination_runbook_gives_the_query_of_the_alerts_figure(tmp_path: Path, doc: Doc) -> None:
    """The runbook names the figure RagmonHallucinationRateHigh reads, a share of claims, among the
    gauge's per-answer mean and a replay's, and its query gives that figure for the alert's namespace
    and pipeline. By hand, per minute, prod/support: pod a 8 supported and 4 unsupported claims, pod b 2
    and 6: (4 + 6) / 20 = 0.5; staging's pipeline of the same name and the Claude judge stay out."""
    start = doc.runbooks()["RagmonHallucinationRateHigh"]
    end = min(line for line in doc.runbooks().values() if line > start)
    queries = [span for line, span, _ in doc.code_spans()
               if start < line < end and "ragmon_claims_total" in span]
    assert len(queries) == 1, queries
    query = queries[0].replace('namespace="N"', 'namespace="prod"')
    query = query.replace('pipeline="P"', 'pipeline="support"')
    series: dict[str, str] = {}
    for namespace, pod, judge, supported, unsupported in [("prod", "a", "lexical", 8, 4),
                                                          ("prod", "b", "lexical", 2, 6),
                                                          ("prod", "a", "claude", 1, 0),
                                                          ("staging", "c", "lexical", 0, 9)]:
        for verdict, rate in (("supported", supported), ("unsupported", unsupported)):
            labels = (f'namespace="{namespace}",pipeline="support",judge="{judge}",instance="{pod}",'
                      f'verdict="{verdict}"')
            series[f"ragmon_claims_total{{{labels}}}"] = f"0+{rate}x30"
    prod = '{namespace="prod",pipeline="support",judge="lexical"}'
    promtool_expects(tmp_path, query, series, {prod: 0.5})
    alerts_figure = f"({query}) - on (namespace, pipeline, judge) {ALERT_FIGURE}"
    promtool_expects(tmp_path, alerts_figure, series, {prod: 0})
    section = " ".join(" ".join(doc.lines[start:end]).split())
    for other in ("ragmon_hallucination_ratio", "mean10m{metric=\"hallucination_rate\"}",
                  "--gate hallucination_rate", "ragmon replay capture.jsonl"):
        assert other in section, other


BROKEN = [
    pytest.param(runbook_problems, "### RagmonNoSpans\n", "### RagmonNoSpan\n",
                 ["deploy/prometheus/rules.yml: RagmonNoSpans: runbook_url https://github.com/ragmon/ragmon/blob/"
                  "main/docs/deploy.md#ragmonnospans names no heading",
                  "grafana/provisioning/alerting/ragmon-alerts.yaml: RagmonNoSpans: runbook_url https://github.com/"
                  "ragmon/ragmon/blob/main/docs/deploy.md#ragmonnospans names no heading",
                  "deploy.md: RagmonNoSpans has no section under Runbooks",
                  "runbook section RagmonNoSpan is for no alert of rules.yml"], id="runbook heading"),
    pytest.param(runbook_problems, "(#ragmonrequestsmisdirected)", "(#ragmon-requests-misdirected)",
                 ["link #ragmon-requests-misdirected names no heading"], id="in-page link"),
    pytest.param(path_problems, "**Tee** (`deploy/otel-collector/tee-config.yaml`)",
                 "**Tee** (`deploy/otel-collector/tee.yaml`)",
                 ["`deploy/otel-collector/tee.yaml`: no such path in the repository"], id="path"),
    pytest.param(path_problems, "(`ragmon.scoring.working_bytes`:", "(`ragmon.scoring.work_bytes`:",
                 ["`ragmon.scoring.work_bytes`: ragmon.scoring has no work_bytes"], id="python name"),
    pytest.param(path_problems, "(`ragmon.scoring.working_bytes`:", "(`ragmon.scorng.working_bytes`:",
                 ["`ragmon.scorng.working_bytes`: no such module ragmon.scorng, nor a span attribute ragmon "
                  "reads"], id="python module"),
    pytest.param(path_problems, "as `ragmon.contexts` and", "as `ragmon.context` and",
                 ["`ragmon.context`: no such module ragmon.context, nor a span attribute ragmon reads"],
                 id="span attribute"),
    pytest.param(path_problems, "`test_a_namespace_gone_is_remembered_for_a_day`",
                 "`test_a_namespace_gone_is_remembered`",
                 ["`test_a_namespace_gone_is_remembered`: no such test"], id="test name"),
    pytest.param(flag_problems, "raise `--workers` (and", "raise `--worker` (and",
                 ["`--worker`: --worker is no flag of ragmon serve"], id="serve flag"),
    pytest.param(flag_problems, "`--receiver-listen`, default", "`--receiver`, default",
                 ["`--receiver`: --receiver is no flag of ragmon replay or serve"], id="replay flag"),
    pytest.param(flag_problems, "--gate groundedness=0.85", "--gates groundedness=0.85",
                 ["ragmon replay: --gates is no flag of ragmon replay"], id="flag in a shell block"),
    pytest.param(flag_problems, "`ragmon replay suspect.jsonl`",
                 "`ragmon replay suspect.jsonl --max-traces 5`",
                 ["--max-traces is no flag of ragmon replay"], id="serve flag given to replay"),
    pytest.param(variable_problems, "`RAGMON_MAX_TRACES` (traces", "`RAGMON_MAX_TRACE` (traces",
                 ["RAGMON_MAX_TRACE is read by no ragmon serve"], id="variable"),
    pytest.param(metric_problems, "`ragmon_buffer_bytes` near `--max-buffer`",
                 "`ragmon_buffered_bytes` near `--max-buffer`",
                 ["metric ragmon_buffered_bytes is not exported"], id="metric"),
    pytest.param(promql_problems, "(increase(ragmon_captured_total[1h]))",
                 "(increase(ragmon_captured_total[1h])",
                 ["sum by (outcome) (increase(ragmon_captured_total[1h]): could not parse expression"],
                 id="promql"),
    pytest.param(table_problems, "| RagmonGroundednessLow | critical |",
                 "| RagmonGroundednessLow | warning |",
                 ["alert table: RagmonGroundednessLow is warning, rules.yml: critical"], id="alert severity"),
    pytest.param(table_problems, "| RagmonDown | warning |", "| RagmonDowm | warning |",
                 ["alert table: no row for RagmonDown", "alert table: RagmonDowm is no alert of rules.yml"],
                 id="alert row"),
    pytest.param(alert_name_problems, "(RagmonScoringStalled's runbook)", "(RagmonScoringStall's runbook)",
                 ["RagmonScoringStall is no alert of rules.yml"], id="alert name"),
    pytest.param(quoted_name_problems, '"Buffer held": `ragmon_buffer_bytes`',
                 '"Buffer used": `ragmon_buffer_bytes`',
                 ['"Buffer used" is no dashboard panel, README section or log text of ragmon'], id="panel"),
    pytest.param(laptop_url_problems, "<http://127.0.0.1:16686>", "<http://127.0.0.1:16687>",
                 ["127.0.0.1:16687 is published by no service of docker-compose.yml"], id="laptop port"),
    pytest.param(default_problems, "`--quiet` (2 s)", "`--quiet` (3 s)",
                 ["--quiet default 3 s: serve's is 2s"], id="duration default"),
    pytest.param(default_problems, "default 256MiB;", "default 128MiB;",
                 ["RAGMON_MAX_BUFFER default 128MiB: serve's is 268435456"], id="size default"),
    pytest.param(memory_problems, "= 679 MiB over", "= 667 MiB over",
                 ["memory sum of the parts: the page says 667, it is 679",
                  "memory over HTTP: the page says 667, it is 679"], id="memory sum"),
    pytest.param(memory_problems, "set; 807 MiB as shipped", "set; 768 MiB as shipped",
                 ["memory logged as shipped: the page says 768, it is 807"], id="memory logged"),
    pytest.param(yaml_problems, "regex: ragmon-metrics", "regex: metrics",
                 ["scrape config keeps ports ['metrics'], the sidecar's metrics port is ['ragmon-metrics']"],
                 id="scrape config port"),
    pytest.param(yaml_problems, "    scrape_interval: 30s\n", "",
                 ["scrape config scrape_interval is the global one: the sidecar waits 30 s"],
                 id="scrape config interval"),
    pytest.param(yaml_problems, "action: keep", "action: keeep",
                 ["a relabel action is none of Prometheus's"], id="scrape config action"),
]


@pytest.mark.parametrize(("check", "old", "new", "expected"), BROKEN)
def test_a_broken_copy_of_the_page_is_caught(tmp_path: Path, check: Callable[[Doc], list[str]], old: str,
                                             new: str, expected: list[str]) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the page no longer holds {old!r} once: update this case"
    broken = tmp_path / "deploy.md"
    broken.write_text(text.replace(old, new), encoding="utf-8")
    problems = check(Doc.read(broken))
    for fragment in expected:
        assert any(fragment in problem for problem in problems), (fragment, problems)


def test_the_demo_figures_beside_the_unmeasured_share_are_the_demos(tmp_path: Path, doc: Doc) -> None:
    """The share of answers without groundedness, and answer_relevance, from the healthy build to the
    degraded one, as `ragmon demo --all` prints them. The page had answer_relevance fall from 0.89 to
    0.47, where the tour prints 0.951 and 0.507."""
    text = " ".join(" ".join(doc.lines).split())
    quoted = re.search(r"went from (\d+) to (\d+)% while `answer_relevance` fell from ([\d.]+) to ([\d.]+)",
                       text)
    assert quoted is not None
    phases = [scored(phase, tmp_path) for phase in ("healthy", "degraded")]
    unmeasured = [f"{100 * (1 - r.aggregates['groundedness'].n / len(r.results)):.0f}" for r in phases]
    relevance = [f"{r.aggregates['answer_relevance'].mean:.2f}" for r in phases]
    assert quoted.groups() == (*unmeasured, *relevance)
