"""grafana/dashboards/ragmon.json held to the dashboard and panel types Grafana publishes (@grafana/schema),
by the TypeScript compiler, for each release in grafana_schema/ (`make test` installs them from npm): 11.3.0,
which deploy/compose runs, and 13.2.3, the newest when this was written.

No Grafana server is packaged for this platform, and Grafana says nothing of a key it does not know: it drops
it and draws the panel with the default, so a misspelled `unit` on the heatmap's y axis would show a
groundedness of 85% as 0.85, silently. The compiler names every unknown key and every value outside a field's
type, panel by panel.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from yaml_files import safe_load

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "grafana" / "dashboards" / "ragmon.json"
COMPOSE = ROOT / "deploy" / "compose" / "docker-compose.yml"
CHECK = Path(__file__).parent / "grafana_schema"
RELEASES = sorted(path.name for path in CHECK.iterdir() if (path / "package.json").is_file())
KINDS = {"row": (False, False), "stat": (True, False), "timeseries": (True, True), "heatmap": (True, True)}
"""Panel types board.ts knows, and whether it holds their options and field config's `custom` to the panel's
own types."""
ERROR = re.compile(r"^(?P<file>[\w.]+)\((?P<line>\d+),\d+\): error (?P<text>TS\d+: .*)$")


def checked_source(board: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The dashboard as TypeScript constants of board.ts's types, one per line, and what each line holds."""
    lines = ["import type { Board, Custom, Options, Panels } from './board';"]
    what = ["import"]

    def constant(name: str, type_: str, value: object, holds: str) -> None:
        lines.append(f"export const {name}: {type_} = {json.dumps(value)};")
        what.append(holds)

    constant("board", "Board", board, "the dashboard")
    for number, panel in enumerate(board["panels"]):
        kind, title = panel["type"], panel.get("title")
        has_options, has_custom = KINDS[kind]
        constant(f"panel{number}", f"Panels['{kind}']", panel, f"panel {title!r}")
        if has_options:
            options = panel.get("options", {})
            constant(f"options{number}", f"Options['{kind}']", options, f"options of {title!r}")
        if has_custom:
            custom = panel.get("fieldConfig", {}).get("defaults", {}).get("custom", {})
            constant(f"custom{number}", f"Custom['{kind}']", custom, f"field config of {title!r}")
    return "\n".join(lines) + "\n", what


def compile_errors(release: str, boards: Mapping[str, Mapping[str, Any]], work: Path) -> dict[str, list[str]]:
    """Each board's compiler errors against a Grafana release's types, named by what the line holds; one
    compiler run for them all."""
    modules = CHECK / release / "node_modules"
    (work / "node_modules").symlink_to(modules)
    (work / "board.ts").write_text((CHECK / "board.ts").read_text(encoding="utf-8"), encoding="utf-8")
    holds = {}
    for name, board in boards.items():
        source, holds[name] = checked_source(board)
        (work / f"{name}.ts").write_text(source, encoding="utf-8")
    result = subprocess.run(
        [str(modules / ".bin" / "tsc"), "--noEmit", "--strict", "--skipLibCheck", "--module", "esnext",
         "--moduleResolution", "bundler", "--target", "es2022", *(f"{name}.ts" for name in boards)],
        cwd=work, capture_output=True, text=True, timeout=120, check=False)
    errors: dict[str, list[str]] = {name: [] for name in boards}
    for line in result.stdout.splitlines():
        match = ERROR.match(line)
        assert match, f"tsc said what the test cannot place:\n{result.stdout}{result.stderr}"
        name = match["file"].removesuffix(".ts")
        errors[name].append(f"{holds[name][int(match['line']) - 1]}: {match['text']}")
    assert result.returncode == (1 if any(errors.values()) else 0), result.stdout + result.stderr
    return errors


def misspelled(board: Mapping[str, Any]) -> dict[str, Any]:
    """The dashboard with five mistakes of the kind Grafana would drop without a word."""
    broken = copy.deepcopy(dict(board))
    panels = {panel.get("title"): panel for panel in broken["panels"]}
    heatmap = next(panel for panel in broken["panels"] if panel["type"] == "heatmap")
    heatmap["options"]["yAxis"]["units"] = heatmap["options"]["yAxis"].pop("unit")
    panels["Groundedness by pipeline ($judge)"]["fieldConfig"]["defaults"]["custom"]["drawStyle"] = "lines"
    panels["Traces scored"]["options"]["colorMode"] = "backgroud"
    panels["Judge latency"]["gridPos"]["width"] = 12
    broken["templating"]["list"][1]["refresh"] = "onLoad"
    return broken


@pytest.fixture(scope="module", params=RELEASES)
def errors(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    work = tmp_path_factory.mktemp("grafana")
    return compile_errors(request.param, {"shipped": board, "broken": misspelled(board)}, work)


def test_the_dashboard_is_checked_against_the_grafana_compose_runs() -> None:
    compose = safe_load(COMPOSE.read_text(encoding="utf-8"))
    image = compose["services"]["grafana"]["image"]
    assert image.rpartition(":")[2] in RELEASES, image


def test_every_panel_is_of_a_type_the_check_holds_to_its_own_options() -> None:
    kinds = {panel["type"] for panel in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]}
    assert kinds <= set(KINDS), f"add the types of {sorted(kinds - set(KINDS))} to board.ts and KINDS"


def test_the_dashboard_uses_only_keys_and_values_grafana_defines(errors: dict[str, list[str]]) -> None:
    assert errors["shipped"] == []


def test_the_check_names_each_dropped_key_and_wrong_value_where_it_is(errors: dict[str, list[str]]) -> None:
    found = errors["broken"]
    assert len(found) == 5, "\n".join(found)
    expected = [
        ("options of 'Score distribution: $metric ($judge, $namespace)'", "'\"units\"' does not exist"),
        ("field config of 'Groundedness by pipeline ($judge)'", "'\"lines\"' is not assignable"),
        ("options of 'Traces scored'", "'\"backgroud\"' is not assignable"),
        ("panel 'Judge latency'", "'\"width\"' does not exist"),
        ("the dashboard", "not assignable to type 'VariableRefresh"),
    ]
    for holds, says in expected:
        assert any(error.startswith(holds + ":") and says in error for error in found), (holds, says, found)
