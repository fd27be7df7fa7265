"""`ragmon calibrate --judge claude` as the accuracy target will be measured with a key: through the real
`anthropic` SDK against the fake Messages API on loopback, on a labelled file written here whose answers
hold CRLF line ends and an emoji, with the verdict for each claim chosen below, so that every figure,
cost and count is worked out by hand. And `--judge lexical` gives the figures benchmarks/judge_accuracy.py
gives on the same file."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Hang, Reply, claims_of, quoted
from test_calibrate import claude_env, write_dataset

from ragmon.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ("Tallowmere Bike Share has 40 docks. An annual membership costs 90 pounds. Bikes are free on "
            "Sundays.")


def labelled(id_: str, answer: str, *unsupported: str) -> dict[str, Any]:
    """Each sentence named unsupported is labelled by its offsets in characters and its text, as SALAD's
    spans are; the response is hallucinated when one is."""
    spans = [{"start": answer.index(s), "end": answer.index(s) + len(s), "text": s} for s in unsupported]
    return {"id": id_, "question": "What does Tallowmere Bike Share offer?",
            "contexts": [{"id": "bikes", "text": DOCUMENT}], "answer": answer,
            "labels": {"hallucinated": bool(spans), "spans": spans}}


RECORDS = [
    labelled("crlf", "The scheme has 40 docks.\r\nMembership costs 120 pounds.\r\nBikes are free on Sundays.",
             "Membership costs 120 pounds."),
    labelled("emoji", "🚲 Bikes are free on Sundays. Helmets are lent for free.",
             "Helmets are lent for free."),
    labelled("clean", "An annual membership costs 90 pounds."),
    labelled("made-up", "Night rides cost double.", "Night rides cost double."),
]
CLAUDE_SAYS = {
    # claim: supported?                   labelled      counted
    "The scheme has 40 docks.": True,       # supported    TN
    "Membership costs 120 pounds.": False,  # unsupported  TP
    "Bikes are free on Sundays.": True,     # supported    TN
    "🚲 Bikes are free on Sundays.": False,  # supported    FP
    "Helmets are lent for free.": True,     # unsupported  FN
    "An annual membership costs 90 pounds.": True,  # supported  TN
    "Night rides cost double.": False,      # unsupported  TP
}
"""Sentence level: TP 2, FP 1, FN 1, TN 3 of 7 claims: precision 2/3, recall 2/3, F1 2*2/(2*2+1+1) = 2/3,
accuracy 5/7. Response level (hallucinated when any claim is unsupported): crlf TP, emoji TP (its FP
claim), clean TN, made-up TP: TP 3, TN 1, precision = recall = F1 = accuracy = 1."""


def claude(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The verdicts of CLAUDE_SAYS, claim by claim; a claim sent otherwise than split above is a KeyError,
    a 500 the run fails on."""
    return [{"claim": quoted(body, claim), "supported": CLAUDE_SAYS[claim],
             "supporting_ids": ["bikes"] if CLAUDE_SAYS[claim] else [], "reason": "as scripted"}
            for claim in claims_of(body)]


def figures(tp: int, fp: int, fn: int, tn: int) -> dict[str, Any]:
    def ratio(num: int, den: int) -> Any:
        return pytest.approx(num / den) if den else None

    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": ratio(tp, tp + fp),
            "recall": ratio(tp, tp + fn), "f1": ratio(2 * tp, 2 * tp + fp + fn),
            "accuracy": ratio(tp + tn, tp + fp + fn + tn)}


def test_claude_calibration_gives_the_figures_and_cost_worked_out_by_hand_then_from_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    out = tmp_path / "calibration.json"
    argv = ["calibrate", str(data), "--judge", "claude", "--cache-dir", str(tmp_path / "cache"),
            "--json", str(out)]
    with FakeAnthropic() as api:
        claude_env(monkeypatch, api)
        api.default = Reply(decide=claude, usage=(1_000, 100))
        assert main(argv) == 0
        # One call per example, holding its claims as split: CRLF is no part of a claim, the emoji is.
        assert api.calls == 4
        assert sorted(c for body in api.requests for c in claims_of(body)) == sorted(CLAUDE_SAYS)
        report = json.loads(out.read_text())
        (judged,) = report["judges"]
        assert (report["complete"], report["examples"], report["claims"], report["labelled_unsupported"],
                report["hallucinated"]) == (True, 4, 7, 3, 3)
        assert judged["sentence"] == figures(tp=2, fp=1, fn=1, tn=3)
        assert judged["response"] == figures(tp=3, fp=0, fn=0, tn=1)
        # Each call billed 1,000 in + 100 out: $0.001 + $0.0005 at claude-haiku-4-5's $1/$5 per million.
        assert (judged["input_tokens_per_example"], judged["output_tokens_per_example"]) == (1_000, 100)
        assert judged["cost_usd_per_example"] == pytest.approx(0.0015)
        table = capsys.readouterr().out
        thirds = r"\s+0\.667" * 3
        assert re.search(rf"claude\s+sentence\s+7{thirds}\s+0\.714\s+2\s+1\s+1\s+3\n", table)
        assert re.search(r"claude\s+4\s+0\s+0\s+[\d.]+ ms\s+1,000 / 100\s+\$0\.001500\n", table)

        # Again with the same --cache-dir: no call, the same figures, and no cost per example to misread.
        assert main(argv) == 0
        assert api.calls == 4
    (again,) = json.loads(out.read_text())["judges"]
    assert (again["sentence"], again["response"]) == (judged["sentence"], judged["response"])
    assert (again["examples_from_cache"], again["cost_usd_per_example"]) == (4, None)


def test_an_example_claude_failed_on_is_left_out_and_named_never_counted_supported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """crlf's call fails three times (the attempt and both retries). Counted as supported, its labelled
    claim would be one more FN (fn 2); left out, the figures are over emoji, clean and made-up: sentence
    FP 1 (emoji's first), FN 1 (emoji's second), TN 1 (clean), TP 1 (made-up): 1/2 each; response TP 2
    (emoji, made-up), TN 1. Without --judge-errors=skip the run stops, and the report says so."""
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    out = tmp_path / "calibration.json"
    argv = ["calibrate", str(data), "--judge", "claude", "--llm-concurrency", "1", "--json", str(out)]
    fast_500 = Fail(500, "api_error", {"retry-after-ms": "1"})
    with FakeAnthropic() as api:
        claude_env(monkeypatch, api)
        api.default = Reply(decide=claude, usage=(1_000, 100))
        api.enqueue(fast_500, fast_500, fast_500)
        assert main([*argv, "--judge-errors", "skip"]) == 0
        (judged,) = json.loads(out.read_text())["judges"]
        assert (judged["examples"], [s["id"] for s in judged["skipped"]]) == (3, ["crlf"])
        assert judged["sentence"] == figures(tp=1, fp=1, fn=1, tn=1)
        assert judged["response"] == figures(tp=2, fp=0, fn=0, tn=1)
        assert "skipped crlf (claude): example 'crlf': Claude judge: API error 500" in capsys.readouterr().out

        api.enqueue(fast_500, fast_500, fast_500)
        assert main(argv) == 2
    report = json.loads(out.read_text())
    assert (report["complete"], report["judges"]) == (False, [])
    assert report["error"].startswith("example 'crlf': Claude judge: API error 500")
    assert report["error"] in capsys.readouterr().err


def test_a_run_interrupted_while_claude_judges_says_so_and_the_next_pays_only_for_the_rest(
        tmp_path: Path) -> None:
    """Ctrl-C while the second example's call hangs (one call at a time): exit 130, the report says the
    run is incomplete, and the verdicts the first call paid for are in --cache-dir, so the run again
    makes one call, for the example it had not judged."""
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    out = tmp_path / "calibration.json"
    argv = [sys.executable, "-m", "ragmon", "calibrate", str(data), "--judge", "claude",
            "--llm-concurrency", "1", "--cache-dir", str(tmp_path / "cache"), "--json", str(out)]
    with FakeAnthropic() as api:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")},
               "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": api.url}
        api.default = Reply(decide=claude, usage=(1_000, 100))
        api.enqueue(Reply(decide=claude, usage=(1_000, 100)), Hang(60))
        # Python turns SIGINT into KeyboardInterrupt only if it was not ignored at start.
        run = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while api.calls < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.02)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=30)
        assert (run.returncode, err) == (
            130, "ragmon calibrate: interrupted: the JSON report says the run is incomplete\n")
        assert json.loads(out.read_text())["error"] == "interrupted"

        again = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert (again.returncode, again.stderr, api.calls) == (0, "", 3)
    (judged,) = json.loads(out.read_text())["judges"]
    assert (judged["examples"], judged["examples_from_cache"]) == (2, 1)


def test_calibrate_and_the_accuracy_benchmark_give_the_same_lexical_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's figures come from benchmarks/judge_accuracy.py, a CI's from `ragmon calibrate`: on one
    file, at the default threshold, they must count the same claims the same way."""
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    bench = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "judge_accuracy.py"), str(data)],
                           env=env, capture_output=True, text=True, timeout=120, check=True)
    (line,) = [line for line in bench.stdout.splitlines() if line.startswith("lexical (")]
    counted = [tuple(map(int, found)) for found in
               re.findall(r"\[tp +(\d+) fp +(\d+) fn +(\d+) tn +(\d+)\]", line)]
    out = tmp_path / "calibration.json"
    assert main(["calibrate", str(data), "--judge", "lexical", "--json", str(out)]) == 0
    (judged,) = json.loads(out.read_text())["judges"]
    assert counted == [tuple(judged[level][n] for n in ("tp", "fp", "fn", "tn"))
                       for level in ("sentence", "response")]
    assert sum(counted[0]) == 7 and sum(counted[1]) == 4
    capsys.readouterr()
