"""`ragmon replay --target`: the golden questions go live to the demo app served over HTTP (a subprocess,
its spans exported by the OTel SDK's own OTLP/HTTP exporter), the traces come back to ragmon's embedded
receiver, and the gate decides on what the build actually answered.

The golden file sent live holds questions and relevant ids only, so every answer scored must have come
from a trace. The demo's builds are deterministic: the same questions answered offline by the same build
(written by the demo's own `write_golden`) must score exactly as the live run does.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from ports import free_port

from ragmon.demo.app import write_golden
from ragmon.demo.rag import Answer, build, load_corpus
from ragmon.target import TraceSink, new_trace_id, traceparent
from ragmon.traces import Span

GATE = "groundedness=0.85"


def run(cmd: list[str], *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_"))}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([*cmd, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=90)


@contextmanager
def demo_server(cmd: list[str], build_name: str, otlp_port: int, cwd: Path) -> Iterator[str]:
    """`ragmon demo --serve` on a free port, exporting to `otlp_port`; yields its /ask URL."""
    port = free_port()
    process = subprocess.Popen([*cmd, "demo", "--serve", f"127.0.0.1:{port}", "--build", build_name,
                                "--endpoint", f"http://127.0.0.1:{otlp_port}"],
                               cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not listening(port):
            assert process.poll() is None, f"demo server exited: {process.communicate()[0]}"
            assert time.monotonic() < deadline, "demo server did not start listening within 30 s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/ask"
    finally:
        process.terminate()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:  # still retrying exports to a receiver that is gone
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def questions_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("golden") / "questions.jsonl"
    _, questions = load_corpus()
    rows = [{"id": q.id, "question": q.question, "relevant_ids": list(q.relevant_ids)} for q in questions]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def answered_offline(build_name: str, path: Path) -> Path:
    """The golden set with the build's answers, as `ragmon demo --golden` writes it."""
    _, questions = load_corpus()
    retriever, llm = build(build_name)
    answers = []
    for question in questions:
        retrieved = retriever.search(question.question)
        answers.append(Answer(question, retrieved, llm.answer(question.question, retrieved)))
    write_golden(path, answers)
    return path


def report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("build_name", "expected"), [("healthy", 0), ("hallucinating", 1)])
def test_live_replay_gates_the_build_and_scores_as_offline(ragmon_cmd: list[str], tmp_path: Path,
                                                           questions_only: Path, build_name: str,
                                                           expected: int) -> None:
    otlp_port = free_port()
    with demo_server(ragmon_cmd, build_name, otlp_port, tmp_path) as url:
        live = run(ragmon_cmd, "replay", questions_only, "--target", url, "--receiver-listen",
                   f"127.0.0.1:{otlp_port}", "--gate", GATE, "--json", tmp_path / "live.json", cwd=tmp_path)
    assert live.returncode == expected, live.stderr
    assert f"receiving the target's spans on http://127.0.0.1:{otlp_port}" in live.stderr

    golden = answered_offline(build_name, tmp_path / "answered.jsonl")
    offline = run(ragmon_cmd, "replay", golden, "--gate", GATE, "--json", tmp_path / "offline.json",
                  cwd=tmp_path)
    assert offline.returncode == expected, offline.stderr

    live_report, offline_report = report(tmp_path / "live.json"), report(tmp_path / "offline.json")
    assert live_report["examples"] == 32
    assert live_report["results"] == offline_report["results"]
    assert live_report["aggregates"] == offline_report["aggregates"]
    q01 = live_report["results"][0]
    assert q01["id"] == "q01"
    # Worked out in tests/demo/test_demo_app.py: healthy q01 quotes two sentences of the returns policy
    # (2 of 2 supported); hallucinating drifts the number of the first and adds an invented one (1 of 3).
    assert q01["metrics"]["groundedness"] == pytest.approx(1.0 if build_name == "healthy" else 1 / 3)
    # relevant_ids come from the golden file (the trace has none): q01's is "returns", retrieved first.
    assert q01["metrics"]["mrr"] == 1.0


def test_unreachable_target_exits_2_naming_the_examples(ragmon_cmd: list[str], tmp_path: Path,
                                                         questions_only: Path) -> None:
    dead = free_port()  # nothing listens there
    done = run(ragmon_cmd, "replay", questions_only, "--target", f"http://127.0.0.1:{dead}/ask",
               "--receiver-listen", "127.0.0.1:0", "--gate", GATE, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    error = done.stderr.splitlines()[-1]
    assert error.startswith(f"ragmon replay: error: 32 of 32 questions got no answer from "
                            f"http://127.0.0.1:{dead}/ask: cannot connect to 127.0.0.1:{dead} (")
    assert ": q01, q02, q03, q04, q05, q06, q07, q08, q09, q10 and 22 more" in error


def test_refused_requests_and_missing_traces_exit_2(ragmon_cmd: list[str], tmp_path: Path,
                                                    questions_only: Path) -> None:
    receiver, elsewhere = free_port(), free_port()
    with demo_server(ragmon_cmd, "healthy", elsewhere, tmp_path) as url:  # exports where ragmon is not
        wrong_field = run(ragmon_cmd, "replay", questions_only, "--target", url, "--target-field", "query",
                          "--receiver-listen", f"127.0.0.1:{receiver}", cwd=tmp_path)
        started = time.monotonic()
        no_traces = run(ragmon_cmd, "replay", questions_only, "--target", url, "--receiver-listen",
                        f"127.0.0.1:{receiver}", "--trace-wait", "1s", cwd=tmp_path)
        waited = time.monotonic() - started
    assert wrong_field.returncode == 2 and "Traceback" not in wrong_field.stderr
    # The demo answers 400 to a body without "question".
    assert re.search(r"32 of 32 questions got no answer from \S+: HTTP 400 \(.*question.*\): q01, q02",
                     wrong_field.stderr)
    assert no_traces.returncode == 2 and "Traceback" not in no_traces.stderr
    assert ("32 of 32 answers cannot be scored from their traces" in no_traces.stderr
            and "no span of its trace arrived within --trace-wait 1s: q01, q02" in no_traces.stderr)
    assert waited < 30  # gave up after --trace-wait, not the 30 s default


@pytest.mark.parametrize("url", ["http://[::1/ask", "http://127.0.0.1:99999/ask"])
def test_malformed_target_url_exits_2(ragmon_cmd: list[str], tmp_path: Path, url: str) -> None:
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert done.stderr.endswith(f"--target must be an http:// or https:// URL with a valid host and port, "
                                f"got {url!r}\n")


def test_traceparent_is_one_the_otel_sdk_continues() -> None:
    trace_id = new_trace_id()
    header = traceparent(trace_id)
    # W3C: version 00, 32 + 16 lowercase hex digits, flags 01 (sampled) so the app's sampler keeps it.
    assert re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-01", header) and header[3:35] == trace_id
    context = trace.get_current_span(TraceContextTextMapPropagator().extract({"traceparent": header}))
    span_context = context.get_span_context()
    assert format(span_context.trace_id, "032x") == trace_id
    assert span_context.is_remote and span_context.trace_flags.sampled
    assert len({new_trace_id() for _ in range(100)}) == 100


async def test_a_late_span_joins_its_decided_trace_and_other_traffic_is_ignored() -> None:
    ours, other = new_trace_id(), new_trace_id()
    root = Span(ours, "a" * 16, None, "POST /ask", kind=2)
    child = Span(ours, "b" * 16, root.span_id, "llm")
    sink = TraceSink(frozenset({ours}), quiet=0.01, decision_wait=5.0)
    sink.offer([root, Span(other, "c" * 16, None, "GET /healthz")], "http")
    await sink.wait(time.monotonic() + 5)
    assert list(sink.decided) == [ours] and sink.decided[ours].spans == (root,)
    # The sidecar would count and drop these; the replay reads the trace only once waiting is over.
    sink.offer([child], "http")
    sink.offer([child], "http")  # a retried export: kept once
    assert sink.decided[ours].spans == (root, child)
