"""The demo app's traces go through the real OTel SDK exporter into a running sidecar and are scored;
the hallucinating build scores lower than the healthy one, by amounts worked out by hand."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from ports import free_port
from serve_cli import ServeProcess

from ragmon.cli import main
from ragmon.demo.app import answered_offline, run_phase, write_golden
from ragmon.demo.rag import Answer
from ragmon.errors import RagmonError
from ragmon.scrape import Samples, scrape, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

RETURNS_S1 = "Most items can be returned within 30 days of delivery for a full refund."
RETURNS_S3 = "Final sale items, opened software and personalised products cannot be returned."


async def scrape_until_decided(port: int, traces: int) -> Samples:
    deadline = time.monotonic() + 15
    while True:
        # urllib blocks: off the event loop, which serves the very page being read.
        samples = await asyncio.to_thread(scrape, f"http://127.0.0.1:{port}/metrics")
        if total(samples, "ragmon_traces_total") >= traces or time.monotonic() > deadline:
            return samples
        await asyncio.sleep(0.05)


async def test_healthy_and_hallucinating_builds_are_scored_as_worked_out_by_hand(tmp_path: Path) -> None:
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0))
    ports = await sidecar.start()
    try:
        for phase in ("healthy", "hallucinating"):
            # --requests 2 asks q01 and q02; both retrieve the returns policy first.
            await asyncio.to_thread(run_phase, phase, requests=2, endpoint=f"http://127.0.0.1:{ports.http}",
                                    service_name=f"demo-{phase}", golden=tmp_path / f"{phase}.jsonl")
        samples = await scrape_until_decided(ports.metrics, 4)
    finally:
        await sidecar.stop()

    def claims(phase: str, verdict: str) -> float:
        return total(samples, "ragmon_claims_total", pipeline=f"demo-{phase}", verdict=verdict)

    def groundedness_sum(phase: str) -> float:
        return total(samples, "ragmon_example_score_sum", pipeline=f"demo-{phase}", metric="groundedness")

    assert total(samples, "ragmon_traces_total", outcome="scored") == 4
    # Healthy: both answers quote S1 and S3 of the returns policy verbatim: 2 + 2 supported claims.
    assert (claims("healthy", "supported"), claims("healthy", "unsupported")) == (4, 0)
    assert groundedness_sum("healthy") == 2.0
    # Hallucinating: S1 says 46 days (no retrieved policy says 46): unsupported; S3 verbatim: supported;
    # the invented sentence carries a number no policy has: unsupported. 1/3 per answer.
    assert (claims("hallucinating", "supported"), claims("hallucinating", "unsupported")) == (2, 4)
    assert abs(groundedness_sum("hallucinating") - 2 / 3) < 1e-12

    golden = [json.loads(line) for line in (tmp_path / "healthy.jsonl").read_text().splitlines()]
    assert [row["id"] for row in golden] == ["q01", "q02"]
    assert golden[0]["answer"] == f"{RETURNS_S1} {RETURNS_S3}"
    assert golden[0]["contexts"][0]["id"] == "returns" and golden[0]["relevant_ids"] == ["returns"]


def test_the_shipped_demo_golden_set_is_what_the_demo_app_answers(tmp_path: Path) -> None:
    # The README's live try-it replays examples/demo-golden.jsonl against `ragmon demo --serve`: its
    # questions and relevant ids must be the corpus's, or every retrieval figure would be 0.
    shipped = Path(__file__).resolve().parents[2] / "examples" / "demo-golden.jsonl"
    generated = tmp_path / "generated.jsonl"
    write_golden(generated, answered_offline("healthy"))
    assert shipped.read_text(encoding="utf-8") == generated.read_text(encoding="utf-8"), (
        "regenerate: python -c \"from pathlib import Path; from ragmon.demo.app import answered_offline, "
        "write_golden; write_golden(Path('examples/demo-golden.jsonl'), answered_offline('healthy'))\"")
    rows = [json.loads(line) for line in shipped.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == [f"q{n:02}" for n in range(1, 33)]
    assert rows[0]["question"] == "How many days do I have to return an item?"
    assert rows[0]["relevant_ids"] == ["returns"] and rows[0]["answer"] == f"{RETURNS_S1} {RETURNS_S3}"


async def test_an_endpoint_given_as_the_full_traces_url_is_told_it_is_a_base_url(
        capsys: pytest.CaptureFixture[str]) -> None:
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0))
    ports = await sidecar.start()
    base = f"http://127.0.0.1:{ports.http}"
    try:
        # The sidecar listens, but at /v1/traces/v1/traces, where the demo posts, it answers 404.
        code = await asyncio.to_thread(main, ["demo", "--requests", "1", "--endpoint", f"{base}/v1/traces"])
    finally:
        await sidecar.stop()
    assert code == 2
    # One question, one trace of 3 spans (chain, retriever, LLM), exported in one batch.
    assert capsys.readouterr().err == (
        f"ragmon demo: error: 3 spans could not be exported to {base}/v1/traces/v1/traces: HTTP 404 "
        f"(--endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces is appended to it; give "
        f"--endpoint {base})\n")


async def _demo_against_a_sidecar(*demo_args: str, stop_after: int | None = None,
                                  ) -> tuple[subprocess.CompletedProcess[str], Samples, str]:
    """`ragmon demo` as a user runs it, a process of its own, exporting to a sidecar on loopback; with
    `stop_after`, SIGTERMed twice (as `timeout` signals the process, then its group) once the sidecar has
    scored that many of its traces. Returns the run, the sidecar's metrics once every trace the run sent was
    decided, and the endpoint."""
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0))
    ports = await sidecar.start()
    endpoint = f"http://127.0.0.1:{ports.http}"
    demo = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--endpoint", endpoint, *demo_args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if stop_after is not None:
            await scrape_until_decided(ports.metrics, stop_after)
            demo.send_signal(signal.SIGTERM)
            demo.send_signal(signal.SIGTERM)
        out, err = await asyncio.to_thread(demo.communicate, timeout=60)
        sent = re.search(r"(\d+) traces", out + err)
        samples = await scrape_until_decided(ports.metrics, int(sent[1]) if sent else 0)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        await sidecar.stop()
    return subprocess.CompletedProcess(demo.args, demo.returncode, out, err), samples, endpoint


async def test_sigterm_stops_the_demo_between_questions_and_flushes_every_trace_it_made(
        tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    run, samples, endpoint = await _demo_against_a_sidecar("--requests", "100000", "--golden", str(golden),
                                                           stop_after=300)

    stopped = re.fullmatch(rf"ragmon demo: terminated \(SIGTERM\) after (\d+) of 100000 questions: their "
                           rf"\1 traces were sent to {re.escape(endpoint)}; "
                           rf"--golden {re.escape(str(golden))} not written\n", run.stderr)
    assert stopped is not None, run.stderr
    asked = int(stopped[1])
    assert 300 <= asked < 100000
    assert run.returncode == 128 + signal.SIGTERM
    # Each question is one whole trace of 3 spans (chain, retriever, LLM): none half made, none left queued.
    assert total(samples, "ragmon_spans_received_total") == 3 * asked
    assert total(samples, "ragmon_traces_total", outcome="scored") == asked
    assert total(samples, "ragmon_traces_total") == asked
    assert not golden.exists()  # a golden set of part of the run would gate on what was not asked


async def test_a_long_run_exports_every_trace_it_says_it_sent() -> None:
    # 3,000 questions are 9,000 spans, made faster than one exporter thread sends them: the SDK queues
    # 2,048 at most. Without the app's flush every FLUSH_EVERY questions, "Queue full, dropping Span." at
    # 3,000 and 5,000 questions (tried), none at 1,500.
    run, samples, endpoint = await _demo_against_a_sidecar("--requests", "3000")

    assert run.returncode == 0, run.stderr
    assert run.stdout == f"healthy: sent 3000 traces to {endpoint}\n"
    assert run.stderr == ""
    assert total(samples, "ragmon_spans_received_total") == 9000
    assert total(samples, "ragmon_traces_total", outcome="scored") == 3000


async def test_a_served_app_that_lost_traces_says_so_on_stderr_and_exits_2() -> None:
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0))
    ports = await sidecar.start()
    base = f"http://127.0.0.1:{ports.http}"
    # The full traces URL given for the base URL: the sidecar answers 404 at /v1/traces/v1/traces.
    app = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--serve", f"127.0.0.1:{free_port()}",
                            "--endpoint", f"{base}/v1/traces"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert app.stdout is not None
        address = await asyncio.to_thread(app.stdout.readline)
        url = re.search(r"POST (http://\S+/ask)", address)
        assert url is not None, address
        question = b'{"question": "How many days do I have to return an item?"}'
        request = urllib.request.Request(url[1], data=question, headers={"Content-Type": "application/json"})
        await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
        app.send_signal(signal.SIGTERM)
        out, err = await asyncio.to_thread(app.communicate, timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        await sidecar.stop()
    assert app.returncode == 2
    assert out == ""
    # One request, one trace of 4 spans: the SERVER span and the chain, retriever and LLM under it.
    assert err == (f"ragmon demo: error: 4 spans could not be exported to {base}/v1/traces/v1/traces: "
                   f"HTTP 404 (--endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces is "
                   f"appended to it; give --endpoint {base})\n")


def test_a_run_against_an_endpoint_where_nothing_listens_stops_asking_and_fails_within_seconds() -> None:
    # Nothing listens on the port, so every batch is refused. 3,000 questions are 9,000 spans: waiting out
    # the exporter's retries at each flush of 256 questions, the run took about 4 minutes to fail. It stops
    # asking once a batch is lost, by the first flush at the latest, and a batch fails in about 3 s.
    endpoint = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    demo = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--requests", "3000", "--endpoint",
                             endpoint], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = demo.communicate(timeout=20)  # the bound: killed past it, the run is not exit 2
    except subprocess.TimeoutExpired:
        demo.kill()
        out, err = demo.communicate()
    assert demo.returncode == 2, f"exit {demo.returncode} after {time.monotonic() - started:.1f} s: {err}"
    assert out == ""
    failed = re.fullmatch(rf"ragmon demo: error: (\d+) spans could not be exported to {re.escape(endpoint)}"
                          r"/v1/traces: is `ragmon serve` listening there\?\n", err)
    assert failed is not None, err
    # Every span made was refused, 3 per question, and none was asked after the first flush (256 questions).
    lost = int(failed[1])
    assert lost % 3 == 0 and 0 < lost <= 768


def test_a_batch_to_an_endpoint_where_nothing_listens_fails_in_seconds_not_the_sdk_default_7() -> None:
    # One question, one batch of 3 spans, sent at the exporter's shutdown. The exporter tries again after
    # about 1 s, then 2 s (each +-20%), while the next wait fits its budget: 2.4 to 3.6 s in all at 5 s;
    # at the SDK's 10 s it waited 4 s more, 5.6 to 8.4 s, for each batch of a run.
    endpoint = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(RagmonError) as failed:
        run_phase("healthy", requests=1, endpoint=endpoint)
    elapsed = time.monotonic() - started
    assert str(failed.value) == (f"3 spans could not be exported to {endpoint}/v1/traces: "
                                 "is `ragmon serve` listening there?")
    assert elapsed < 5


def test_a_signal_that_comes_after_the_golden_set_is_written_does_not_call_it_unwritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        serve_process: Callable[..., AbstractContextManager[ServeProcess]]) -> None:
    golden = tmp_path / "golden.jsonl"

    def written_then_terminated(path: Path, answers: Sequence[Answer]) -> None:
        write_golden(path, answers)
        os.kill(os.getpid(), signal.SIGTERM)  # as `timeout` would, the moment the file is complete

    monkeypatch.setattr("ragmon.demo.app.write_golden", written_then_terminated)
    with serve_process([]) as sidecar:
        endpoint = f"http://127.0.0.1:{sidecar.ready['http_port']}"
        code = main(["demo", "--requests", "4", "--endpoint", endpoint, "--golden", str(golden)])
        received = total(scrape(f"http://127.0.0.1:{sidecar.ready['metrics_port']}/metrics"),
                         "ragmon_spans_received_total")

    assert code == 128 + signal.SIGTERM
    assert capsys.readouterr().err == (
        f"ragmon demo: terminated (SIGTERM) after 4 of 4 questions: their 4 traces were sent to {endpoint}; "
        f"golden set written to {golden}\n")
    rows = [json.loads(line) for line in golden.read_text().splitlines()]
    assert [row["id"] for row in rows] == ["q01", "q02", "q03", "q04"]
    assert received == 4 * 3  # chain, retriever and LLM spans of each question


@pytest.mark.parametrize(("flags", "error"), [
    (["--serve", "127.0.0.1:0", "--golden", "GOLDEN", "--requests", "4"],
     "--requests, --golden are not read with --serve: the served app answers the questions it is asked, as "
     "many as come, and writes no golden set; leave them out, or run without --serve"),
    (["--all", "--endpoint", "http://127.0.0.1:9"],
     "--endpoint is not read with --all: the tour runs every phase, 32 questions each, against a sidecar of "
     "its own on free ports; leave it out, or run without --all"),
])
def test_a_flag_the_chosen_mode_does_not_read_is_refused_before_anything_runs(
        tmp_path: Path, flags: list[str], error: str) -> None:
    # Served, the app answered and wrote no golden set, and the tour sent nothing to the endpoint typed, each
    # without a word. Bounded: before, the served app ran until killed and the tour to its end.
    golden = tmp_path / "golden.jsonl"
    argv = [str(golden) if flag == "GOLDEN" else flag for flag in flags]
    demo = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = demo.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        demo.terminate()  # not killed: the tour stops its sidecar on SIGTERM, and SIGKILL would orphan it
        out, err = demo.communicate(timeout=30)
    assert (demo.returncode, out, err) == (2, "", f"ragmon demo: error: {error}\n")
    assert not golden.exists()


def test_a_variable_setting_a_flag_the_mode_does_not_read_is_a_default_not_an_error() -> None:
    # RAGMON_REQUESTS set for a deploy loop's batch runs must not stop the same environment's served app.
    env = {**os.environ, "RAGMON_REQUESTS": "5"}
    demo = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "demo", "--serve", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert demo.stdout is not None
        assert demo.stdout.readline().startswith("healthy build answering POST http://127.0.0.1:")
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.communicate(timeout=10)
    assert demo.returncode == 0
