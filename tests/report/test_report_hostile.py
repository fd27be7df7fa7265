"""Every report against answers and ids that spell CI log commands, through the real CLI.

`ragmon replay` prints its summary into a CI log (the README's `| tee`), and any report may be printed there
too (`--json /dev/stdout`, a step that prints the file). A GitHub Actions runner acts on a line that starts
with `::` after its white space (`::group::` folds every later line, the verdict too, away) and on the
legacy `##[name]` anywhere in a line; Azure Pipelines on `##vso[` and TeamCity on `##teamcity[` anywhere.
Expected lines are written by hand: the one character that makes a command is shown as its escape, `\\x3a`
for the `:`, `\\x5b` for the `[` (in JSON `\\u005b`, which a reader decodes back), and nothing else changes.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
import xmlschema

CLOSEST = "::error::" + "x" * 45
"""A document id long enough that the terminal's reason wraps before it: it starts the reason's second
line, where "no single context supports it; closest " (39 characters) and it (54) pass the 86 of one."""
RECORDS = (
    {"id": "::group::ok", "question": "How long ##teamcity[buildStatus status='SUCCESS'] do refunds take?",
     "contexts": [{"id": CLOSEST, "text": "Apples are red."}],
     "answer": "Refunds take 3 days ##[error]the gate passed."},
    {"id": "##[error]e2", "question": "Is shipping free?",
     "contexts": [{"id": "d2", "text": "Apples are red."}],
     "answer": "Shipping is free ##vso[task.complete result=Succeeded;]ok."},
)
"""Two answers with nothing in common with their contexts: groundedness 0 each, below the 0.9 gate."""
ANT_SCHEMA = Path(__file__).with_name("JUnit.xsd")


@dataclass(frozen=True)
class Run:
    """What a CI step gets from one replay: the summary it prints, and each report file's text."""

    stdout: str
    markdown: str
    junit: str
    json: str


@pytest.fixture
def run(tmp_path: Path, ragmon_cmd: list[str]) -> Run:
    """One replay of RECORDS writing every report, as a CI step runs it."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    paths = {kind: tmp_path / f"report.{kind}" for kind in ("md", "xml", "json")}
    done = subprocess.run([*ragmon_cmd, "replay", str(golden), "--gate", "groundedness=0.9",
                           "--markdown", str(paths["md"]), "--junit", str(paths["xml"]),
                           "--json", str(paths["json"])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr  # the gate is breached
    read = {kind: path.read_text(encoding="utf-8") for kind, path in paths.items()}
    return Run(done.stdout, read["md"], read["xml"], read["json"])


def commands(log: str) -> list[str]:
    """The lines of `log` a CI runner would act on, by the rules in the module's docstring."""
    return [line for line in log.splitlines() if line.lstrip().startswith("::")
            or any(prefix in line for prefix in ("##[", "##vso[", "##teamcity["))]


def test_the_terminal_summary_issues_no_command_and_ends_with_the_verdict(run: Run) -> None:
    lines = run.stdout.splitlines()
    assert commands(run.stdout) == []
    assert "  \\x3a:group::ok: groundedness 0.00" in lines
    assert '    "Refunds take 3 days ##\\x5berror]the gate passed."' in lines
    assert "  ##\\x5berror]e2: groundedness 0.00" in lines
    assert '    "Shipping is free ##vso\\x5btask.complete result=Succeeded;]ok."' in lines
    # The reason's second line, indented as the first's text is (14 columns), starts with the id.
    second = "              \\x3a:error::" + "x" * 45 + " has 0/"
    assert len([line for line in lines if line.startswith(second)]) == 1
    assert lines[-1] == "FAIL: groundedness 0 < 0.9"


def test_the_markdown_issues_no_command_when_printed(run: Run) -> None:
    # Only what a runner would act on changes: `::` inside a heading's code span starts no line.
    lines = run.markdown.splitlines()
    assert commands(run.markdown) == []
    assert "#### `::group::ok`: groundedness 0.00" in lines
    assert "#### `##\\x5berror]e2`: groundedness 0.00" in lines
    assert "> Refunds take 3 days ##\\x5berror\\]the gate passed." in lines
    assert "Question: How long ##teamcity\\x5bbuildStatus status='SUCCESS'\\] do refunds take?" in lines


def test_the_junit_report_issues_no_command_and_stays_valid(run: Run) -> None:
    assert commands(run.junit) == []
    suite = ET.fromstring(run.junit.encode("utf-8"))
    cases = suite.findall("testcase")
    assert (suite.get("tests"), len(cases), suite.get("failures")) == ("1", 1, "1")
    failure = cases[0].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.text.splitlines()[2:5] == [
        "", "\\x3a:group::ok: groundedness 0", '  "Refunds take 3 days ##\\x5berror]the gate passed."']
    assert "##\\x5berror]e2: groundedness 0" in failure.text.splitlines()
    assert [error.reason for error in xmlschema.XMLSchema(ANT_SCHEMA).iter_errors(run.junit)] == []


def test_the_json_report_issues_no_command_and_holds_the_text_as_written(run: Run) -> None:
    assert commands(run.json) == []
    assert '"##\\u005berror]e2"' in run.json
    doc = json.loads(run.json)
    assert [result["id"] for result in doc["results"]] == ["::group::ok", "##[error]e2"]
    assert [result["claims"][0]["text"] for result in doc["results"]] == [
        "Refunds take 3 days ##[error]the gate passed.",
        "Shipping is free ##vso[task.complete result=Succeeded;]ok."]
    assert doc["results"][0]["question"] == RECORDS[0]["question"]
