"""`ragmon calibrate --json`: a run that could not complete (exit 2), or that a signal stopped, leaves a
report saying so and why at that path, never the previous run's figures, as `ragmon replay` does."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Reply
from pipe_writes import (
    beside_a_reader_that_leaves,
    marked_writes,
    signalled_as_it_prints,
    signalled_while_writing,
)
from test_calibrate import RECORDS, SENTENCE, claude_env, verbatim, write_dataset

import ragmon
from ragmon.cli import main


@pytest.fixture(autouse=True)
def no_ragmon_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A RAGMON_CALIBRATE_JSON set where the tests run would name another report."""
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        yield api


def incomplete(why: str) -> dict[str, Any]:
    """The report of a run that stopped before it had figures: every key of a full one, empty."""
    return {"report": "ragmon calibrate", "ragmon_version": ragmon.__version__, "complete": False,
            "error": why, "examples": 0, "claims": 0, "labelled_unsupported": 0, "hallucinated": 0,
            "label_warnings": [], "judges": [], "common": None, "sweep": None, "best": None}


def previous_run(tmp_path: Path, report: Path) -> Path:
    """A run that completed, whose report a later run at the same path must not leave behind."""
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    assert main(["calibrate", str(data), "--json", str(report)]) == 0
    assert json.loads(report.read_text())["complete"] is True
    return data


def error_of(err: str) -> str:
    """The one-line error the CLI printed."""
    prefix = "ragmon calibrate: error: "
    (line,) = [line for line in err.splitlines() if line.startswith(prefix)]
    return line.removeprefix(prefix)


def test_a_judge_error_replaces_the_previous_runs_report(fake_api: FakeAnthropic, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # A tester's two runs: Claude answering, s.json written (exit 0); then Claude failing (exit 2), which left
    # s.json holding the first run's figures.
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim)
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:1])
    report = tmp_path / "s.json"
    argv = ["calibrate", str(data), "--judge", "claude", "--json", str(report)]
    assert main(argv) == 0
    assert json.loads(report.read_text())["judges"][0]["examples"] == 1
    fake_api.default = Fail(500, "api_error", {"retry-after-ms": "1"})
    assert main(argv) == 2
    why = error_of(capsys.readouterr().err)
    assert why.startswith("example 'A': Claude judge: API error 500")
    assert json.loads(report.read_text()) == incomplete(why)


def test_bad_input_replaces_the_previous_runs_report(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "reports" / "s.json"  # in a directory the run makes
    data = previous_run(tmp_path, report)
    unlabelled = {k: v for k, v in RECORDS[0].items() if k != "labels"}
    write_dataset(data, [unlabelled])
    assert main(["calibrate", str(data), "--json", str(report)]) == 2
    why = error_of(capsys.readouterr().err)
    assert why == (f"{data}:1: example 'A': no labels object (calibration needs human labels on every "
                   "example) (field 'labels')")
    assert json.loads(report.read_text()) == incomplete(why)


def test_a_report_path_that_is_a_directory_is_refused_before_any_judge_runs(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    claude_env(monkeypatch, fake_api)
    assert main(["calibrate", str(data), "--judge", "claude", "--json", str(tmp_path)]) == 2
    assert error_of(capsys.readouterr().err) == (f"--json {tmp_path} is a directory: name a file to write "
                                                 "the report to")
    assert fake_api.requests == []  # no call paid for figures that had nowhere to go


def test_a_report_path_ending_in_a_slash_is_refused_naming_the_flag(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: `--json out/x/`, with no out/x yet, wrote the figures to a FILE named out/x and exited 0,
    # where the CI's out/x/*.json found nothing.
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    path = f"{tmp_path}/out/x/"
    assert main(["calibrate", str(data), "--json", path]) == 2
    assert error_of(capsys.readouterr().err) == (
        f"argument --json: '{path}' ends in '/', so it names a directory: name the file to write the report "
        f"to ({path}calibration.json, say)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labelled.jsonl"]


@pytest.mark.parametrize(("argv", "why"), [
    (["--cache-dir", "{tmp}", "--llm-model", "claude-x", "--llm-price-input", "3"],
     "--cache-dir, --llm-model, --llm-price-input are given without --judge claude: only the claude judge "
     "reads them, and this run's judge is lexical; add --judge claude to calibrate the claude judge, or "
     "leave them out"),
    (["--judge", "lexical", "--llm-concurrency", "4"],  # its default, typed
     "--llm-concurrency is given without --judge claude: only the claude judge reads it, and this run's "
     "judge is lexical; add --judge claude to calibrate the claude judge, or leave it out"),
    (["--judge", "claude", "--lexical-threshold", "0.3"],
     "--lexical-threshold is given without --judge lexical: only the lexical judge reads it, and this run's "
     "judge is claude; add --judge lexical to calibrate the lexical judge, or leave it out"),
], ids=["claude-flags-default-judge", "claude-flag-at-its-default", "threshold-for-claude"])
def test_a_judge_flag_typed_for_a_judge_not_calibrated_is_refused(
        argv: list[str], why: str, fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: exit 0, the flags ignored: figures for the lexical judge alone where Claude's were meant, or
    # Claude's without the threshold the user had typed to compare it with.
    data = previous_run(tmp_path, report := tmp_path / "calibration.json")
    claude_env(monkeypatch, fake_api)
    given = [arg.format(tmp=tmp_path) for arg in argv]
    assert main(["calibrate", str(data), "--json", str(report), *given]) == 2
    assert error_of(capsys.readouterr().err) == why
    assert json.loads(report.read_text()) == incomplete(why)
    assert fake_api.requests == []


def test_judge_flags_from_the_environment_are_defaults_not_errors(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A CI sets RAGMON_LLM_MODEL once for every job: those calibrating the lexical judge alone go on.
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    monkeypatch.setenv("RAGMON_LLM_MODEL", "claude-x")
    monkeypatch.setenv("RAGMON_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["calibrate", str(data), "--quiet"]) == 0


@pytest.mark.parametrize(("in_the_way", "what"), [("file", "a file"), ("dangling link", "a link to nothing")])
def test_a_report_path_through_a_file_is_refused_before_any_judge_runs(
        in_the_way: str, what: str, fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # `--json out/s.json` where out is a file: every example was judged and paid for, then the run ended in
    # "cannot write: File exists", as if s.json were in the way. A link to nothing, likewise.
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    out = tmp_path / "out"
    if in_the_way == "file":
        out.write_text("notes\n")
    else:
        out.symlink_to(tmp_path / "gone")
    report = out / "reports" / "s.json"
    claude_env(monkeypatch, fake_api)
    assert main(["calibrate", str(data), "--judge", "claude", "--json", str(report)]) == 2
    assert error_of(capsys.readouterr().err) == (f"--json {report}: cannot write report: {out} is {what}, "
                                                 "not a directory")
    assert fake_api.requests == []
    assert not (tmp_path / "gone").exists() and (in_the_way != "file" or out.read_text() == "notes\n")


@pytest.mark.parametrize(("argv", "env", "why"), [
    (["--json", "{report}", "--bogus"], {}, "unrecognized arguments: --bogus"),
    (["--json={report}", "--llm-concurrency", "0"], {}, "argument --llm-concurrency: must be at least 1: 0"),
    ([], {"RAGMON_CALIBRATE_JSON": "{report}", "RAGMON_LEXICAL_THRESHOLD": "many"},
     "RAGMON_LEXICAL_THRESHOLD='many': not a number: 'many'"),
], ids=["unknown-flag", "bad-value", "bad-variable"])
def test_a_refused_command_line_replaces_the_previous_runs_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
        env: dict[str, str], why: str) -> None:
    # Refused before any run (exit 2), the report named on the command line or by RAGMON_CALIBRATE_JSON, in
    # the --json PATH and --json=PATH forms, is replaced all the same.
    report = tmp_path / "s.json"
    data = previous_run(tmp_path, report)
    capsys.readouterr()
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(report=report))
    assert main(["calibrate", str(data), *(arg.format(report=report) for arg in argv)]) == 2
    assert capsys.readouterr().err.endswith(f"error: {why}\n")
    assert json.loads(report.read_text()) == incomplete(why)


def test_an_empty_dataset_name_is_refused_naming_the_argument(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # `ragmon calibrate "$LABELLED"` with the variable unset: pathlib reads "" as ".", and the error was
    # "cannot read dataset: Is a directory", naming no file (replay's own was fixed in 302626e).
    report = tmp_path / "s.json"
    data = previous_run(tmp_path, report)
    capsys.readouterr()
    assert main(["calibrate", str(data), "", "--json", str(report)]) == 2
    why = "argument DATASET: empty: name a dataset file, or - for standard input"
    assert capsys.readouterr().err.splitlines()[-1] == f"ragmon calibrate: error: {why}"
    assert json.loads(report.read_text()) == incomplete(why)


UNMARKED = '{\n  "examples": 5,\n  "claims": 9,\n  "labelled_unsupported": 3,\n  "judges": []\n}\n'
"""A report as calibrate wrote it before the field `report` said what it was."""


def test_a_run_that_did_not_complete_never_writes_over_a_file_that_is_no_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `ragmon calibrate --json labelled.jsonl` (meaning "the input is JSON") is refused, no DATASET; with
    # more.jsonl after it, the run stops on more.jsonl. Either way --json swallowed people's labels, which
    # must stay as they were. An empty file and a report in the earlier layout are replaced.
    labelled = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    before = labelled.read_bytes()
    more = write_dataset(tmp_path / "more.jsonl", [{k: v for k, v in RECORDS[0].items() if k != "labels"}])
    assert main(["calibrate", "--json", str(labelled)]) == 2
    assert main(["calibrate", "--json", str(labelled), str(more)]) == 2
    assert labelled.read_bytes() == before
    empty, unmarked = tmp_path / "empty.json", tmp_path / "unmarked.json"
    empty.write_bytes(b"")
    unmarked.write_text(UNMARKED, encoding="utf-8")
    for report in (empty, unmarked):
        assert main(["calibrate", "--json", str(report)]) == 2
        assert json.loads(report.read_text())["complete"] is False
    capsys.readouterr()


def subprocess_env(api_url: str = "http://127.0.0.1:9") -> dict[str, str]:
    """No RAGMON_* variable, and a key for the Claude judge to be built with (no call reaches `api_url`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    return {**env, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": api_url}


_SIGNALLED_WHILE_JUDGING = """
import asyncio, os, signal, sys, time
import ragmon.calibrate
from ragmon import cli
from ragmon.judges.claude import ClaudeJudge
from ragmon.judges.lexical import LexicalJudge
sig = signal.Signals[sys.argv[1]]
def judging(*args, **kwargs):
    os.kill(os.getpid(), sig)
    time.sleep(60)
async def judging_in_a_loop(*args, **kwargs):
    os.kill(os.getpid(), sig)
    await asyncio.sleep(60)
LexicalJudge.judge, ClaudeJudge.ajudge_with_usage = judging, judging_in_a_loop
calibrate = sys.modules["ragmon.calibrate"]
write = calibrate._write_json
def writing(*args, **kwargs):
    os.kill(os.getpid(), sig)  # again: `timeout` signals the process, then its process group
    write(*args, **kwargs)
calibrate._write_json = writing
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize(("sig", "status", "why", "judge"), [
    ("SIGTERM", 143, "terminated (SIGTERM)", "lexical"), ("SIGHUP", 129, "hung up (SIGHUP)", "lexical"),
    ("SIGINT", 130, "interrupted", "lexical"),
    ("SIGTERM", 143, "terminated (SIGTERM)", "claude"),  # in calibrate's event loop
])
def test_a_signal_mid_run_replaces_the_previous_runs_report_and_is_told(
        tmp_path: Path, sig: str, status: int, why: str, judge: str) -> None:
    # Before: the previous run's figures stayed at the path, and the log got nothing but the exit status.
    report = tmp_path / "s.json"
    data = previous_run(tmp_path, report)
    done = subprocess.run([sys.executable, "-c", _SIGNALLED_WHILE_JUDGING, sig, "calibrate", str(data),
                           "--judge", judge, "--json", str(report)],
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60,
                          # Python turns SIGINT into KeyboardInterrupt only if it was not ignored at start.
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stderr) == (
        status, f"ragmon calibrate: {why}: the JSON report says the run is incomplete\n")
    assert json.loads(report.read_text()) == incomplete(why)


def test_a_run_killed_before_its_end_leaves_a_report_saying_it_did_not_finish(tmp_path: Path) -> None:
    # Killed outright (SIGKILL: the out-of-memory killer, a CI job's time limit), which no handler sees,
    # the run left the previous run's figures at the path, to be published as its own. Here it is killed
    # while it waits for its labelled examples on standard input.
    report = tmp_path / "s.json"
    previous_run(tmp_path, report)
    child = subprocess.Popen([sys.executable, "-m", "ragmon", "calibrate", "-", "--json", str(report)],
                             cwd=tmp_path, env=subprocess_env(), stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while json.loads(report.read_text())["complete"]:
            assert time.monotonic() < deadline and child.poll() is None, "the report was never replaced"
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait(timeout=10)
        assert child.stdin is not None
        child.stdin.close()
    doc = json.loads(report.read_text())
    assert re.fullmatch(r"ragmon calibrate started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and has not "
                        r"finished: if it is no longer running, it was killed before it could write this "
                        r"report \(SIGKILL: the out-of-memory killer, a CI job's time limit\)", doc["error"])
    assert doc == incomplete(doc["error"])


_SIGNALLED_WHILE_LOADING = """
import importlib, os, signal, sys
from ragmon import cli
load = importlib.import_module
def loading(name, package=None):
    if name == "ragmon.calibrate":  # before calibrate has read its command line
        os.kill(os.getpid(), signal.SIGTERM)
    return load(name, package)
importlib.import_module = loading
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_signal_before_the_run_began_replaces_the_report_it_names(tmp_path: Path) -> None:
    report = tmp_path / "s.json"
    data = previous_run(tmp_path, report)
    done = subprocess.run([sys.executable, "-c", _SIGNALLED_WHILE_LOADING, "calibrate", str(data), "--json",
                           str(report)], cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr) == (
        143, "ragmon calibrate: terminated (SIGTERM): the JSON report says the run is incomplete\n")
    assert json.loads(report.read_text()) == incomplete("terminated (SIGTERM)")


_SIGNALLED_AS_THE_FIGURES_SHOW = signalled_as_it_prints("calibrate")


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_once_the_report_is_written_leaves_the_runs_figures_and_exit_status(
        tmp_path: Path, sig: str) -> None:
    # Before: SIGTERM as the table was printed replaced the complete report just written with one saying
    # "terminated (SIGTERM)", exit 143, the table never shown; a moment later, the process ended with 143,
    # no word on stderr, the report saying complete. As `ragmon replay` leaves its reports (5fa09fd).
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    done = subprocess.run([sys.executable, "-c", _SIGNALLED_AS_THE_FIGURES_SHOW, sig, "calibrate", str(data),
                           "--json", "s.json"], cwd=tmp_path, env=subprocess_env(), capture_output=True,
                          text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (done.returncode, done.stdout.splitlines()[:1], done.stderr) == (
        0, ["5 labelled examples: 9 claims, 3 labelled unsupported; 3 responses labelled hallucinated"], "")
    doc = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert (doc["complete"], doc["error"], doc["examples"]) == (True, None, 5)
    assert doc["judges"][0]["sentence"] == SENTENCE


def test_a_stop_signal_ends_a_run_waiting_on_a_pipe_nobody_reads(tmp_path: Path) -> None:
    # `mkfifo fifo; ragmon calibrate ... --json fifo` with no reader: SIGTERM (`timeout`) broke the wait in
    # open(), then the error report was written to the same FIFO with every stop signal ignored, and only
    # SIGKILL ended it, as replay's reports had been.
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    os.mkfifo(tmp_path / "fifo")
    child = subprocess.Popen([sys.executable, "-c", marked_writes("calibrate", "_write_json"), "calibrate",
                              str(data), "--json", "fifo", "--quiet"], cwd=tmp_path, env=subprocess_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    status, err = signalled_while_writing(child, tmp_path, signal.SIGTERM)
    assert status == 143
    assert err == "ragmon calibrate: terminated (SIGTERM)\n"  # nothing reached the pipe


def test_a_pipe_whose_reader_left_early_is_an_error_not_a_wait_for_another_reader(tmp_path: Path) -> None:
    # `mkfifo fifo; head -c 100 fifo & ragmon calibrate ... --json fifo`: the report's write failed (EPIPE),
    # then its error report was written to the same FIFO, waiting in open() for a reader that never came,
    # and the run hung until a signal; the error was never told. 600 label warnings: a report past the
    # pipe's 64 KB, so that it cannot all be written before the reader leaves.
    r = {**RECORDS[0], "labels": {**RECORDS[0]["labels"], "hallucinated": False}}
    data = write_dataset(tmp_path / "labelled.jsonl", [{**r, "id": f"A{i}"} for i in range(600)])
    done = beside_a_reader_that_leaves(["calibrate", str(data), "--json", "fifo", "--quiet"], tmp_path,
                                       subprocess_env())
    assert (done.returncode, done.stderr) == (2, "ragmon calibrate: error: fifo: cannot write: Broken pipe\n")


def test_a_report_name_too_long_for_the_file_system_is_one_error_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    name = str(tmp_path / ("r" * 300 + ".json"))
    assert main(["calibrate", str(data), "--json", name]) == 2
    assert error_of(capsys.readouterr().err) == f"--json {name}: cannot write report: File name too long"


def test_the_examples_a_label_warning_names_are_told_apart(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """An id is shown as written, its white space escaped, never squeezed: "a b" and "a\\u2028b" (a LINE
    SEPARATOR), "a\\nb", "a\\tb" and "a\\xa0b" are five examples to find in the file, not one "a b"."""
    paris = "The Eiffel Tower is in Paris. It opened in 1889."  # the space at 29-30 is no sentence
    ids = ["a b", "a\u2028b", "a\nb", "a\tb", "a\xa0b"]
    items = [{"id": example_id, "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
              "labels": {"hallucinated": True, "spans": [{"start": 29, "end": 30}]}} for example_id in ids]
    assert main(["calibrate", str(write_dataset(tmp_path / "labelled.jsonl", items))]) == 0
    out = capsys.readouterr().out
    tail = ("labels.spans[0] (29-30) marks white space alone, so it labels no sentence and counts at "
            "response level only\n")
    assert out.endswith(f"warning: example 'a b': {tail}warning: example 'a\\u2028b': {tail}"
                        f"warning: example 'a\\nb': {tail}warning: example 'a\\tb': {tail}"
                        f"warning: example 'a\\xa0b': {tail}")


class ClosedPipe(io.StringIO):
    """Standard output piped into `head`, which has exited: every write fails."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_figures_that_cannot_be_printed_are_an_error_and_the_report_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # `ragmon calibrate labelled.jsonl | head -1`: the table met a closed pipe and ended in a traceback
    # calling it a bug in ragmon, with the report, written before, saying the run was complete.
    report = tmp_path / "s.json"
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["calibrate", str(data), "--json", str(report)]) == 2
    why = error_of(capsys.readouterr().err)
    assert why == "cannot write the figures to standard output: Broken pipe"
    assert json.loads(report.read_text()) == incomplete(why)


def test_characters_the_terminal_cannot_show_are_printed_as_escapes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # An id with an "é" on a console whose encoding is ASCII had ended the run in a traceback.
    paris = "The Eiffel Tower is in Paris. It opened in 1889."  # the space at 29-30 is no sentence
    item = {"id": "café", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
            "labels": {"hallucinated": True, "spans": [{"start": 29, "end": 30}]}}
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="ascii"))
    assert main(["calibrate", str(write_dataset(tmp_path / "labelled.jsonl", [item]))]) == 0
    out = written.getvalue().decode("ascii")
    assert out.endswith("warning: example 'caf\\xe9': labels.spans[0] (29-30) marks white space alone, so "
                        "it labels no sentence and counts at response level only\n")


SUPPORTED = {"id": "A", "question": "q", "contexts": [{"id": "d1", "text": "Paris is in France."}],
             "answer": "Paris is in France.", "labels": {"hallucinated": False, "spans": []}}
"""One answer, one claim its document states, labelled supported: one true negative, nothing else."""


def test_quiet_leaves_standard_output_to_a_json_report_given_it(ragmon_cmd: list[str],
                                                                tmp_path: Path) -> None:
    # `--json /dev/stdout | jq` had the figures table after the JSON on the same stream: jq refused it.
    data = write_dataset(tmp_path / "one.jsonl", [SUPPORTED])
    done = subprocess.run([*ragmon_cmd, "calibrate", str(data), "--json", "/dev/stdout", "--quiet"],
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    (judge,) = json.loads(done.stdout)["judges"]
    assert judge["sentence"] == {"tp": 0, "fp": 0, "fn": 0, "tn": 1, "precision": None, "recall": None,
                                 "f1": None, "accuracy": 1.0}


def test_without_quiet_the_figures_table_goes_to_stderr_when_the_json_takes_stdout(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # `--json /dev/stdout | jq` without --quiet: the table had followed the JSON on stdout, and jq refused it.
    data = write_dataset(tmp_path / "one.jsonl", [SUPPORTED])
    done = subprocess.run([*ragmon_cmd, "calibrate", str(data), "--json", "/dev/stdout"],
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert json.loads(done.stdout)["examples"] == 1
    assert "lexical" in done.stderr


def test_a_json_report_on_stdout_appended_to_a_log_keeps_the_log(ragmon_cmd: list[str],
                                                                  tmp_path: Path) -> None:
    # `--json /dev/stdout --quiet >> calibration.log`: reopened by name, the log was emptied first.
    data = write_dataset(tmp_path / "one.jsonl", [SUPPORTED])
    log = tmp_path / "calibration.log"
    log.write_text("earlier step's line\n", encoding="utf-8")
    done = subprocess.run(["sh", "-c", 'exec "$@" >> calibration.log', "sh", *ragmon_cmd, "calibrate",
                           str(data), "--json", "/dev/stdout", "--quiet"],
                          cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    earlier, _, report = log.read_text(encoding="utf-8").partition("\n")
    assert earlier == "earlier step's line"
    assert json.loads(report)["claims"] == 1


def test_the_json_report_runs_no_ci_log_command_when_printed(tmp_path: Path) -> None:
    """A step that prints the report (`cat calibration.json`, `--json /dev/stdout`) puts it in the CI log,
    where GitHub Actions runs `##[group]` anywhere in a line: the error naming an example whose id holds
    one is written with JSON's escape of its `[`, which a reader decodes back to the id as labelled."""
    answer = "The Eiffel Tower is in Paris."  # 29 characters: a span to 30 is past its end
    labels = {"hallucinated": True, "spans": [{"start": 0, "end": 30}]}
    items = [{"id": "##[group]e1", "question": "q", "contexts": [{"id": "d1", "text": "It is in Paris."}],
              "answer": answer, "labels": labels}]
    report = tmp_path / "calibration.json"
    data = write_dataset(tmp_path / "labelled.jsonl", items)
    assert main(["calibrate", str(data), "--json", str(report)]) == 2
    text = report.read_text(encoding="utf-8")
    assert "##[" not in text and "example '##\\u005bgroup]e1'" in text
    assert "example '##[group]e1'" in json.loads(text)["error"]
