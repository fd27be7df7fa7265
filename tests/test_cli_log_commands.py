"""ragmon's own warnings and errors, and calibrate's figures, against data that spells CI log commands.

GitHub Actions and Azure Pipelines log a step's stderr as they do its stdout, and act on what they read
there: a line that starts with `::` after its white space (`::error::` makes an annotation, `::add-mask::`
hides text), `##[` anywhere in a line (GitHub's legacy form), `##vso[` (Azure) and `##teamcity[`. ragmon's
messages quote what the user gave: file names, example ids, a variable's value, a claim. Expected lines are
written by hand: the character that makes each command is shown as its escape, `\\x3a` for the `:`, `\\x5b`
for the `[` (as in the reports), and nothing else changes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_replay import clean_env

MISSING = ("No such file or directory (a pattern? ragmon reads it as a file name: leave it unquoted, for the "
           "shell to expand it)")
"""ragmon's own words after a dataset path that holds a `[`, as a glob pattern would."""


def ragmon(ragmon_cmd: list[str], *args: str, cwd: Path,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One run of the real CLI as a CI step runs it, with no RAGMON_* variable but `env`'s."""
    return subprocess.run([*ragmon_cmd, *args], cwd=cwd, env={**clean_env(), **(env or {})},
                          capture_output=True, text=True, timeout=60)


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def test_an_error_naming_a_dataset_file_issues_no_command(ragmon_cmd: list[str], tmp_path: Path) -> None:
    done = ragmon(ragmon_cmd, "replay", "x\n::error::PASS ##[group]y.jsonl", "--gate", "groundedness=0.9",
                  cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"ragmon replay: error: x\\n::error::PASS ##\\x5bgroup]y.jsonl: cannot read dataset: {MISSING}"]


def test_an_error_quoting_an_example_id_issues_no_command(ragmon_cmd: list[str], tmp_path: Path) -> None:
    record = {"id": "##[add-mask]dup", "question": "Which colour are apples?",
              "contexts": [{"id": "d1", "text": "Apples are red."}], "answer": "Apples are red."}
    write_jsonl(tmp_path / "golden.jsonl", [record, record])
    done = ragmon(ragmon_cmd, "replay", "golden.jsonl", "--gate", "groundedness=0.5", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "ragmon replay: error: golden.jsonl:2: duplicate example id '##\\x5badd-mask]dup' "
        "(first at golden.jsonl:1) (field 'id')"]


def test_an_error_quoting_a_variables_value_issues_no_command(ragmon_cmd: list[str], tmp_path: Path) -> None:
    value = "##vso[task.complete result=Succeeded]"
    done = ragmon(ragmon_cmd, "replay", "golden.jsonl", cwd=tmp_path, env={"RAGMON_K": value})
    assert (done.returncode, done.stdout) == (2, "")
    shown = "'##vso\\x5btask.complete result=Succeeded]'"
    assert done.stderr.splitlines() == [
        f"ragmon replay: error: RAGMON_K={shown}: not a whole number: {shown}"]


def test_a_refused_command_line_issues_no_command(ragmon_cmd: list[str], tmp_path: Path) -> None:
    done = ragmon(ragmon_cmd, "##teamcity[buildStatus status=SUCCESS]", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "usage: ragmon [-h] [--version] COMMAND ...",
        "ragmon: error: argument COMMAND: invalid choice: '##teamcity\\x5bbuildStatus status=SUCCESS]' "
        "(choose from 'serve', 'replay', 'calibrate', 'demo')"]


def test_a_serve_start_up_error_issues_no_command(ragmon_cmd: list[str], tmp_path: Path) -> None:
    done = ragmon(ragmon_cmd, "serve", "--token-file", "token ##[error]x", "--http-listen", "127.0.0.1:0",
                  "--grpc-listen", "off", "--metrics-listen", "127.0.0.1:0", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "ragmon serve: error: token ##\\x5berror]x: cannot read the token file (--token-file): "
        "No such file or directory"]


def test_a_warning_whose_baseline_name_holds_a_line_break_starts_no_command(ragmon_cmd: list[str],
                                                                          tmp_path: Path) -> None:
    # b's answer shares nothing with its context: groundedness 0.5 over a and b, below the first run's 0.9
    # (its report, the baseline, breached) and above the second's 0.4. The caveat names the baseline's file,
    # whose line break starts a line of the log with "::error::".
    records = [
        {"id": "a", "question": "How long do refunds take?",
         "contexts": [{"id": "d1", "text": "Refunds take 3 days."}], "answer": "Refunds take 3 days."},
        {"id": "b", "question": "Is shipping free?",
         "contexts": [{"id": "d2", "text": "Apples are red."}], "answer": "Shipping is free."}]
    write_jsonl(tmp_path / "golden.jsonl", records)
    baseline = "base\n::error::PASS.json"
    first = ragmon(ragmon_cmd, "replay", "golden.jsonl", "--gate", "groundedness=0.9", "--json", baseline,
                   cwd=tmp_path)
    assert first.returncode == 1, first.stderr
    done = ragmon(ragmon_cmd, "replay", "golden.jsonl", "--gate", "groundedness=0.4", "--baseline", baseline,
                  "--max-drop", "groundedness=0.5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "PASS.json is of a run that breached its gate on groundedness" in done.stderr
    assert [line for line in done.stderr.splitlines() if line.lstrip().startswith("::")] == []


def test_calibrates_label_warning_quoting_a_claim_issues_no_command(ragmon_cmd: list[str],
                                                                    tmp_path: Path) -> None:
    # The span labels the last sentence by its full stop alone, which calibrate warns of, quoting the claim.
    answer = "Mount Everest is 8849 metres tall. Its summit ##[error]was first reached in 1953."
    record = {"id": "##vso[task.complete result=Succeeded]R", "question": "How tall is Everest?",
              "contexts": [{"id": "d1", "text": answer}], "answer": answer,
              "labels": {"hallucinated": True, "spans": [{"start": len(answer) - 1, "end": len(answer)}]}}
    write_jsonl(tmp_path / "labelled.jsonl", [record])
    done = ragmon(ragmon_cmd, "calibrate", "labelled.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "warning: example '##vso\\x5btask.complete result=Succeeded]R': labels.spans[0] marks the claim "
        "\"Its summit ##\\x5berror]was first reached in 1953.\" by \".\" alone, and it counts as labelled "
        "unsupported")
