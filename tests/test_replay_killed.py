"""`ragmon replay` killed outright (SIGKILL: the out-of-memory killer, a CI job's time limit), which no
handler sees: what its report files say afterwards, for a publishing step that runs whatever the job's
status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_replay import GOLDEN, clean_env

UNFINISHED = re.compile(r"ragmon replay started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and has not finished: "
                        r"if it is no longer running, it was killed before it could write this report "
                        r"\(SIGKILL: the out-of-memory killer, a CI job's time limit\)")

_STALLED_IN_THE_JSON_REPORT = """
import pathlib, sys, time
from ragmon import cli
from ragmon.report import json as json_report
pieces = json_report.pieces
def stalled(*args, **kwargs):
    for n, piece in enumerate(pieces(*args, **kwargs)):
        if n == 5:
            pathlib.Path("writing").touch()
            time.sleep(60)
        yield piece
json_report.pieces = stalled
sys.exit(cli.main())
"""


def test_a_run_killed_writing_its_reports_leaves_each_whole_saying_it_did_not_finish(tmp_path: Path) -> None:
    # Before: the previous run's passing reports stayed while the run worked, so a run killed before its
    # end left them to be published as its own; and the JSON report, written in place, was cut wherever
    # the kill came (here: empty, or its first pieces), which a publishing step failed to parse.
    reports = ["--json", "r.json", "--markdown", "r.md", "--junit", "r.xml"]
    env = {**clean_env(), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    (tmp_path / "summary.md").write_text("", encoding="utf-8")
    passed = subprocess.run([sys.executable, "-m", "ragmon", "replay", str(GOLDEN), "--gate",
                             "groundedness=0.9", "--quiet", *reports], cwd=tmp_path, env=env, timeout=60)
    assert passed.returncode == 0
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## ragmon replay: PASS\n")

    child = subprocess.Popen([sys.executable, "-c", _STALLED_IN_THE_JSON_REPORT, "replay", str(GOLDEN),
                              "--gate", "groundedness=0.9", "--quiet", *reports], cwd=tmp_path, env=env)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "writing").exists():
            assert time.monotonic() < deadline and child.poll() is None, "the JSON report was never written"
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait(timeout=10)

    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (doc["complete"], doc["passed"], doc["results"]) == (False, False, [])
    assert UNFINISHED.fullmatch(doc["error"])
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert markdown == ("## ragmon replay: INCOMPLETE\n\nThe run has not completed, so no gate was "
                        f"decided:\n\n> {doc['error']}\n")
    suite = ET.parse(tmp_path / "r.xml").getroot()
    (error,) = suite.iter("error")
    assert (suite.get("errors"), suite.get("failures"), error.get("message")) == ("1", "0", doc["error"])
    # The step summary, appended to, gets a run's section when it ends, not one while it works.
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == summary
    # What the killed write had begun stays beside the report, hidden, never in its place, until the next
    # run writes there and finds no live writer holding it (`files.LEFT_GRACE` after it was last written).
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert re.fullmatch(r"\.r\.json\.[0-9a-f]{8}\.tmp", left.name)
    os.utime(left, (time.time() - 60, time.time() - 60))
    again = subprocess.run([sys.executable, "-m", "ragmon", "replay", str(GOLDEN), "--gate",
                            "groundedness=0.9", "--quiet", *reports], cwd=tmp_path, env=env, timeout=60)
    assert again.returncode == 0 and json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["passed"]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("stdout", ["pipe", "file"])
def test_a_report_on_standard_output_is_the_runs_alone(tmp_path: Path, stdout: str) -> None:
    # The report that says the run has not finished goes to files of their own only. A reader of standard
    # output would have got it, then the run's report after it, two JSON documents in one stream; and
    # `--json /dev/stdout > out.json`, renamed over, would have left out.json saying the run had not
    # finished, the run's report written through the descriptor to the file it had replaced.
    out = tmp_path / "out.json"
    with out.open("w", encoding="utf-8") as file:
        done = subprocess.run([sys.executable, "-m", "ragmon", "replay", str(GOLDEN), "--gate",
                               "groundedness=0.9", "--quiet", "--json", "/dev/stdout"], cwd=tmp_path,
                              env=clean_env(), stdout=subprocess.PIPE if stdout == "pipe" else file,
                              text=True, timeout=60)
    assert done.returncode == 0
    doc = json.loads(done.stdout if stdout == "pipe" else out.read_text(encoding="utf-8"))
    assert (doc["complete"], doc["passed"], doc["examples"]) == (True, True, 17)
