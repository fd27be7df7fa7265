"""`ragmon replay --target`: the golden questions go live to the demo app served over HTTP (a subprocess,
its spans exported by the OTel SDK's own OTLP/HTTP exporter), the traces come back to ragmon's embedded
receiver, and the gate decides on what the build actually answered.

The golden file sent live holds questions and relevant ids only, so every answer scored must have come
from a trace. The demo's builds are deterministic: the same questions answered offline by the same build
(written by the demo's own `write_golden`) must score exactly as the live run does.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web
from loopback_app import running
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from ports import free_port
from test_replay import eval_loop

from ragmon.cli import main
from ragmon.demo.app import answer, write_golden
from ragmon.demo.app import answered_offline as demo_answers
from ragmon.demo.rag import Question, build, load_corpus
from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.progress import Progress
from ragmon.target import (
    RETRY_PAUSE,
    Target,
    TraceSink,
    _receiver_problems,
    _retry_after,
    collect,
    new_trace_id,
    read_headers,
    shown_url,
    traceparent,
)
from ragmon.traces import Span

GATE = "groundedness=0.85"
SHORT_QUIET = ("--trace-quiet", "2s")
"""For the demo build, whose root span ends after its children and is exported with or after them: the
default 10 s, which the README's try-it runs with (tested as written), would add 10 s to each run."""
def field_hint(status: int, field: str = "question") -> str:
    """What a 400 or 422 from the build is told: the field ragmon sent the question in."""
    return (f'(a {status} refuses the request, here {{"{field}": <question>}}: if the build reads the '
            f'question from another JSON field, name that field with --target-field)')


NOT_ARRIVED = "(is the target exporting OTLP/HTTP to the receiver and propagating traceparent?)"
"""What a question whose trace never came is told, when nothing else arrived either."""
DEMO_GOLDEN = Path(__file__).resolve().parent.parent / "examples" / "demo-golden.jsonl"
"""The README's try-it golden set: the demo's questions, with the ids of the policies that answer them."""


def run(cmd: list[str], *args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        open_files: int | None = None) -> subprocess.CompletedProcess[str]:
    """`env` is added to an environment free of RAGMON_, OTEL_ and CI settings; `open_files` is the
    process's limit of open files (`ulimit -n`), when given."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_"))}, **(env or {})}
    env.pop("GITHUB_STEP_SUMMARY", None)
    limited = None if open_files is None else functools.partial(limit_open_files, open_files)
    return subprocess.run([*cmd, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=90, preexec_fn=limited)


def limit_open_files(count: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


@contextmanager
def demo_server(cmd: list[str], build_name: str, otlp_port: int, cwd: Path, path: str = "") -> Iterator[str]:
    """`ragmon demo --serve` on a free port, exporting to `otlp_port` (and `path`, before the /v1/traces
    the demo appends); yields its /ask URL."""
    port = free_port()
    process = subprocess.Popen([*cmd, "demo", "--serve", f"127.0.0.1:{port}", "--build", build_name,
                                "--endpoint", f"http://127.0.0.1:{otlp_port}{path}"],
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
    write_golden(path, demo_answers(build_name))
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
                   f"127.0.0.1:{otlp_port}", *SHORT_QUIET, "--gate", GATE, "--json", tmp_path / "live.json",
                   cwd=tmp_path)
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


def test_recorded_answers_replayed_live_are_said_to_be_replaced(ragmon_cmd: list[str],
                                                                tmp_path: Path) -> None:
    # A golden set with answers, asked live (a RAGMON_TARGET left set): the build's answers were scored in
    # place of the recorded ones without a word.
    golden = answered_offline("hallucinating", tmp_path / "answered.jsonl")
    otlp_port = free_port()
    with demo_server(ragmon_cmd, "healthy", otlp_port, tmp_path) as url:
        live = run(ragmon_cmd, "replay", golden, "--target", url, "--receiver-listen",
                   f"127.0.0.1:{otlp_port}", *SHORT_QUIET, "--gate", GATE, cwd=tmp_path)
    assert live.returncode == 0, live.stderr  # the healthy build's answers, not the recorded hallucinations
    assert ("ragmon replay: note: --target asks the build every question: the answers and contexts 32 of "
            "the 32 examples record are not scored, the build's are\n") in live.stderr


TRY_IT = {"healthy": (0, "1.000", "ok (1 >= 0.85)", "PASS"),
          "hallucinating": (1, "0.250", "BREACHED (0.25 < 0.85)", "FAIL: groundedness 0.25 < 0.85")}
"""Each demo build's exit status, groundedness, gate line and last line in the README's try-it."""


def test_the_readme_try_it_scores_each_demo_build_against_its_own_golden_set(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # What the README's try-it runs. Its golden set names the demo corpus's documents, so the retrieval
    # figures are the build's: every question's one relevant policy is retrieved first (of k=5, so
    # precision is 1/5), in both builds, which differ in their answers only. Each healthy answer quotes 2
    # sentences, 24 of the 64 without a number; the hallucinating build drifts every number and adds an
    # invented sentence, so 24 of its 96 claims are supported, 1/3 or 0 an answer: (24 / 3) / 32 = 0.25.
    # The two builds are asked side by side: each run waits the default --trace-quiet (10 s), as written.
    def try_it(build_name: str) -> subprocess.CompletedProcess[str]:
        otlp_port, cwd = free_port(), tmp_path / build_name
        cwd.mkdir()
        with demo_server(ragmon_cmd, build_name, otlp_port, cwd) as url:
            return run(ragmon_cmd, "replay", DEMO_GOLDEN, "--target", url, "--receiver-listen",
                       f"127.0.0.1:{otlp_port}", "--gate", GATE, cwd=cwd)

    with ThreadPoolExecutor(len(TRY_IT)) as pool:
        runs = dict(zip(TRY_IT, pool.map(try_it, TRY_IT), strict=True))
    for build_name, (expected, groundedness, gate, last) in TRY_IT.items():
        live = runs[build_name]
        assert live.returncode == expected, (build_name, live.stderr)
        rows = {line.split()[0]: line.split()[1:3] for line in live.stdout.splitlines()[3:16]}
        assert {name: rows[name] for name in ("hit_rate", "precision", "recall", "mrr", "ndcg")} == {
            "hit_rate": ["1.000", "32"], "precision": ["0.200", "32"], "recall": ["1.000", "32"],
            "mrr": ["1.000", "32"], "ndcg": ["1.000", "32"]}, build_name
        assert rows["groundedness"] == [groundedness, "32"], build_name
        lines = live.stdout.splitlines()
        assert f"gate groundedness >= 0.85: {gate}" in lines and lines[-1] == last, (build_name, lines)


def test_live_replay_needs_only_the_target_extra(ragmon_cmd: list[str], tmp_path: Path,
                                                questions_only: Path) -> None:
    # `pip install 'ragmon[target]'` brings no grpc or prometheus_client (the serve extra's): --target said
    # "--target needs the 'target' extra: pip install 'ragmon[target]' (No module named 'grpc')", as the
    # failure log extraction uses imported the sidecar's memory budget, and with it the gRPC receiver.
    without_serve = [sys.executable, "-c", "import sys; sys.modules['grpc'] = None; "
                     "sys.modules['prometheus_client'] = None; from ragmon.cli import main; "
                     "sys.exit(main(sys.argv[1:]))"]
    otlp_port = free_port()
    with demo_server(ragmon_cmd, "healthy", otlp_port, tmp_path) as url:
        live = run(without_serve, "replay", questions_only, "--target", url, "--receiver-listen",
                   f"127.0.0.1:{otlp_port}", *SHORT_QUIET, "--gate", GATE, cwd=tmp_path)
    assert live.returncode == 0, live.stderr
    assert live.stdout.splitlines()[-1] == "PASS"


def test_unreachable_target_exits_2_naming_the_examples(ragmon_cmd: list[str], tmp_path: Path,
                                                         questions_only: Path) -> None:
    dead = free_port()  # nothing listens there
    done = run(ragmon_cmd, "replay", questions_only, "--target", f"http://127.0.0.1:{dead}/ask",
               "--receiver-listen", "127.0.0.1:0", "--gate", GATE, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    error = done.stderr.splitlines()[-1]
    # The default --target-concurrency 4: the first round of 4 questions all failed and none was
    # answered, so the other 28 were not asked.
    assert error.startswith(f"ragmon replay: error: 4 of 32 questions got no answer from "
                            f"http://127.0.0.1:{dead}/ask and 28 were not asked, as none was answered: "
                            f"cannot connect to 127.0.0.1:{dead} (")
    assert error.endswith(f"(asked 3 times): q01, q02, q03, q04 ({questions_only} lines 1, 2, 3, 4)")


def test_refused_requests_and_missing_traces_exit_2(ragmon_cmd: list[str], tmp_path: Path,
                                                    questions_only: Path) -> None:
    receiver, elsewhere = free_port(), free_port()
    with demo_server(ragmon_cmd, "healthy", elsewhere, tmp_path) as url:  # exports where ragmon is not
        wrong_field = run(ragmon_cmd, "replay", questions_only, "--target", url, "--target-field", "query",
                          "--receiver-listen", f"127.0.0.1:{receiver}", "--json", "field.json", cwd=tmp_path)
        started = time.monotonic()
        no_traces = run(ragmon_cmd, "replay", questions_only, "--target", url, "--receiver-listen",
                        f"127.0.0.1:{receiver}", "--trace-wait", "1s", "--json", "traces.json", cwd=tmp_path)
        waited = time.monotonic() - started
    assert wrong_field.returncode == 2 and "Traceback" not in wrong_field.stderr
    # The demo answers 400 to a body without "question"; the field ragmon sent is named.
    assert re.search(r"4 of 32 questions got no answer from \S+ and 28 were not asked, as none was answered: "
                     r"HTTP 400 \(.*question.*\) ", wrong_field.stderr)
    assert wrong_field.stderr.endswith(f"{field_hint(400, 'query')}: q01, q02, q03, q04 ({questions_only} "
                                       f"lines 1, 2, 3, 4)\n")
    assert no_traces.returncode == 2 and "Traceback" not in no_traces.stderr
    assert (f"32 of 32 answers cannot be scored from their traces: no span of its trace arrived within "
            f"--trace-wait 1s {NOT_ARRIVED}: q01, q02, q03, q04, q05, q06, q07, q08, q09, q10 "
            f"({questions_only} lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10) and 22 more") in no_traces.stderr
    assert waited < 30  # gave up after --trace-wait, not the 30 s default
    # The JSON reports list every question that stopped the run, those not asked too, where the error
    # names 10 ids a reason and counts the rest.
    ids = [f"q{i:02d}" for i in range(1, 33)]
    refused = report(tmp_path / "field.json")["failed"]
    assert [entry["id"] for entry in refused] == ids
    assert all(entry["reason"].startswith("HTTP 400 (") for entry in refused[:4])
    assert {entry["reason"] for entry in refused[4:]} == {"not asked, as none was answered"}
    assert report(tmp_path / "traces.json")["failed"] == [
        {"id": example_id, "reason": f"no span of its trace arrived within --trace-wait 1s {NOT_ARRIVED}"}
        for example_id in ids]


def test_a_build_exporting_to_a_doubled_path_is_told_the_path_its_peer_and_what_to_change(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # The demo's --endpoint, as the SDK's OTEL_EXPORTER_OTLP_ENDPOINT, gets /v1/traces appended: set to
    # the full URL, the build posts to /v1/traces/v1/traces.
    golden = tmp_path / "q01.jsonl"
    golden.write_text(DEMO_GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
    otlp_port = free_port()
    with demo_server(ragmon_cmd, "healthy", otlp_port, tmp_path, path="/v1/traces") as url:
        done = run(ragmon_cmd, "replay", golden, "--target", url, "--receiver-listen",
                   f"127.0.0.1:{otlp_port}", "--trace-wait", "2s", cwd=tmp_path)
    assert done.returncode == 2
    fix = ("(the SDK appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT: set it to the base URL, without "
           "/v1/traces, or give the full URL in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)")
    note, _, warning, error = done.stderr.splitlines()
    assert note == ("ragmon replay: note: --target asks the build every question: the answers and contexts 1 "
                    "of the 1 examples record are not scored, the build's are")
    assert re.fullmatch(r"warning: OTLP request for something ragmon does not receive from 127\.0\.0\.1 "
                        r"\(OTel-OTLP-Exporter-Python/[\d.]+\), answered 404: nothing is received at "
                        r"/v1/traces/v1/traces: ragmon receives OTLP traces at POST /v1/traces "
                        + re.escape(fix), warning)
    # One trace, sent in one batch, or two should the 100 ms export timer fall between its spans' ends.
    assert re.search(r"no span of its trace arrived within --trace-wait 2s " + re.escape(NOT_ARRIVED)
                     + re.escape(f": q01 ({golden}:1)") + r"; the receiver got [12] "
                     r"request\(s\) at /v1/traces/v1/traces, not /v1/traces " + re.escape(fix) + "$", error)


@pytest.mark.parametrize(("url", "shown"), [
    ("http://[::1/ask", "http://[::1/ask"), ("http://127.0.0.1:99999/ask", "http://127.0.0.1:99999/ask"),
    # A key in a URL refused as malformed is no more shown than in one that is not.
    ("http://bob:hunter2@[::1/ask?code=SECRETKEY", "http://bob:***@[::1/ask?code=***"),
])
def test_malformed_target_url_exits_2(ragmon_cmd: list[str], tmp_path: Path, url: str, shown: str) -> None:
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", url, "--receiver-listen", "127.0.0.1:0", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert done.stderr.endswith(f"--target must be an http:// or https:// URL with a valid host and port, "
                                f"got {shown!r}\n")


@pytest.mark.parametrize("setting", [["--target-timeout", "5s"], ["--receiver-listen", "127.0.0.1:0"],
                                     ["--target-field", "query"],
                                     # Its default, typed: taken for a flag left out, it was ignored.
                                     ["--target-timeout", "30s"], ["--target-retries", "2"]])
def test_a_live_setting_typed_without_target_is_refused_not_ignored(ragmon_cmd: list[str], tmp_path: Path,
                                                                    setting: list[str]) -> None:
    # A CI job whose --target was lost (its variable left empty) gated on the recorded answers, the
    # settings for asking the build ignored without a word. Set in the environment, they are defaults.
    data = tmp_path / "g.jsonl"
    data.write_text('{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris."]}\n',
                    encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, *setting, cwd=tmp_path)
    assert done.returncode == 2
    variable = "RAGMON_" + setting[0][2:].upper().replace("-", "_")
    assert done.stderr == (f"ragmon replay: error: {setting[0]} is given without --target: it sets how a "
                           "build is asked the questions, and with no --target none is asked (the answers "
                           "and contexts the dataset records are scored); leave it out for a run on the "
                           f"recorded answers, or set {variable}, a default read only with --target\n")
    defaulted = run(ragmon_cmd, "replay", data, "--quiet", cwd=tmp_path, env={variable: setting[1]})
    assert defaulted.returncode == 0


def test_an_empty_target_field_is_refused_before_any_question_is_asked(ragmon_cmd: list[str],
                                                                       tmp_path: Path) -> None:
    # Before: every question went out as {"": "..."}, and the build refused each one.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", "http://127.0.0.1:9/ask", "--target-field", "",
               "--receiver-listen", "127.0.0.1:0", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("ragmon replay: error: --target-field is empty or blank: name the JSON field of "
                           "the request body that carries the question (default question)\n")


def test_a_receiver_port_already_taken_names_another_port_and_the_endpoint_the_build_must_use(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # As a `ragmon serve` on the same machine holds the default 127.0.0.1:4318. Port 0 is no way out: the
    # build's endpoint is fixed before the run, so the message names a port to give both: one free now,
    # not the next whatever it holds (a Collector holds 4317 and 4318 alike).
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    with contextlib.ExitStack() as held:
        port = held_ports(held, 2)
        done = run(ragmon_cmd, "replay", data, "--target", "http://127.0.0.1:9/ask",
                   "--receiver-listen", f"127.0.0.1:{port}", "--gate", GATE, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"ragmon replay: error: cannot listen for OTLP on 127.0.0.1:{port} "
                                  f"(--receiver-listen): ")
    assert done.stderr.endswith(
        f"address already in use (by a ragmon serve or a Collector on this machine?): give the receiver "
        f"another port, --receiver-listen 127.0.0.1:{port + 2} say, and export the build's spans there "
        f"(OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:{port + 2}); port 0 would take a port the build "
        f"does not know\n")


def test_the_port_named_for_a_taken_receiver_is_not_the_port_of_a_build_still_starting(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # A job starting the build and the gate at once: the build's port is free until it listens, and was
    # named for the receiver, so following the advice left the build unable to listen on its own port.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    with contextlib.ExitStack() as held:
        port = held_ports(held, 1)  # the receiver's, taken; port + 1, free, is the build's
        done = run(ragmon_cmd, "replay", data, "--target", f"http://127.0.0.1:{port + 1}/ask",
                   "--target-start-wait", "60s", "--receiver-listen", f"127.0.0.1:{port}", "--gate", GATE,
                   cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"--receiver-listen 127.0.0.1:{port + 2} say" in done.stderr, done.stderr


def held_ports(stack: contextlib.ExitStack, count: int) -> int:
    """The first of `count` consecutive ports on 127.0.0.1, each held listening until `stack` closes, with
    the port after them free when found."""
    while True:
        first = free_port()
        sockets = []
        try:
            for port in range(first, first + count):
                held = socket.socket()
                sockets.append(held)
                held.bind(("127.0.0.1", port))
                held.listen()
            with socket.socket() as after:
                after.bind(("127.0.0.1", first + count))
        except OSError:
            for held in sockets:
                held.close()
            continue
        for held in sockets:
            stack.enter_context(held)
        return first


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


# --- candidates served in the test's own event loop; `collect` runs its own loop in a worker thread ---

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def serving(handler: Handler, *routes: web.RouteDef) -> AsyncIterator[str]:
    """A candidate build answering POST /ask (and `routes`) on a free loopback port; yields the /ask URL."""
    app = web.Application()
    app.router.add_post("/ask", handler)
    app.add_routes(routes)
    async with running(app) as base:
        yield f"{base}/ask"


@contextmanager
def sdk_tracer(receiver_port: int, path: str = "/v1/traces") -> Iterator[Tracer]:
    """The candidate's tracing: the OTel SDK's own OTLP/HTTP exporter, sending to ragmon's receiver."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{receiver_port}{path}", timeout=5)
    provider = TracerProvider(resource=Resource.create({"service.name": "candidate"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=50))
    try:
        yield provider.get_tracer("candidate")
    finally:
        provider.shutdown()


def live_target(url: str, receiver_port: int, **settings: Any) -> Target:
    return Target(url=url, receiver=("127.0.0.1", receiver_port), **{"trace_wait": 5.0, "quiet": 0.1,
                                                                     **settings})


async def test_more_questions_in_flight_than_the_http_pool_default_each_get_their_own_trace() -> None:
    n = 120  # --target-concurrency above aiohttp's default pool of 100 connections
    _, questions = load_corpus()
    golden = [Example(id=f"x{i:03d}", question=questions[i % len(questions)].question) for i in range(n)]
    retriever, llm = build("healthy")
    receiver = free_port()
    in_flight = peak = 0
    all_in = asyncio.Event()

    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            nonlocal in_flight, peak
            question = (await request.json())["question"]
            in_flight += 1
            peak = max(peak, in_flight)
            if in_flight == n:
                all_in.set()
            with contextlib.suppress(TimeoutError):  # held until every question is in flight at once
                await asyncio.wait_for(all_in.wait(), 2)
            in_flight -= 1
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                reply = answer(tracer, retriever, llm, Question("", question, ()), "healthy")
            return web.json_response({"answer": reply.text})

        async with serving(ask) as url:
            examples = await asyncio.to_thread(collect, golden, live_target(url, receiver, concurrency=n),
                                               log=None)
    # --target-concurrency 120 with 120 questions: all 120 are asked before any is answered.
    assert peak == n
    # Each example carries the answer to its own question (the demo build is deterministic): no cross-talk.
    assert [e.id for e in examples] == [g.id for g in golden]
    for example, asked in zip(examples, golden, strict=True):
        assert example.answer == llm.answer(asked.question, retriever.search(asked.question))


async def test_a_transient_failure_is_asked_again_under_a_new_trace_id() -> None:
    # Each question's first request is traced and answered by the hallucinating build, then refused with
    # 503 (Retry-After 0); the second is answered by the healthy build. The example must carry the healthy
    # answer: the retry's trace, not the failed attempt's, which shares nothing with it but the question.
    _, questions = load_corpus()
    golden = [Example(id=f"q{i}", question=questions[i].question) for i in range(3)]
    healthy, hallucinating = build("healthy"), build("hallucinating")
    receiver = free_port()
    asked: dict[str, list[str]] = {}

    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            question = (await request.json())["question"]
            tries = asked.setdefault(question, [])
            tries.append(request.headers["traceparent"][3:35])
            phase, (retriever, llm) = (("hallucinating", hallucinating) if len(tries) == 1
                                       else ("healthy", healthy))
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                reply = answer(tracer, retriever, llm, Question("", question, ()), phase)
            if len(tries) == 1:
                return web.json_response({"error": "busy"}, status=503, headers={"Retry-After": "0"})
            return web.json_response({"answer": reply.text})

        async with serving(ask) as url:
            examples = await asyncio.to_thread(collect, golden, live_target(url, receiver), log=None)
    assert all(len(tries) == 2 and tries[0] != tries[1] for tries in asked.values()) and len(asked) == 3
    retriever, llm = healthy
    for example, question in zip(examples, golden, strict=True):
        assert example.answer == llm.answer(question.question, retriever.search(question.question))
        assert example.answer != hallucinating[1].answer(question.question,
                                                         hallucinating[0].search(question.question))


@pytest.mark.parametrize(("header", "seconds"), [
    ("2", 2.0), ("0", 0.0), ("-5", 0.0),          # seconds as given, never negative
    ("3600", 30.0),                                # at most 30 s
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),      # an HTTP-date already past: at once
    (None, RETRY_PAUSE), ("Wed, 99 Foo 2015 07:28:00 GMT", RETRY_PAUSE), ("nan", RETRY_PAUSE),
])
def test_retry_after_is_read_as_seconds_within_bounds(header: str | None, seconds: float) -> None:
    # A NaN would reach asyncio.sleep and stop the run with a ValueError.
    assert _retry_after(header) == seconds


@pytest.mark.parametrize(("status", "times", "hint"), [
    (500, 3, ""), (400, 1, f" {field_hint(400)}"),
    (520, 3, ""), (524, 3, ""), (529, 3, ""),   # a CDN's: its origin broke, timed out; overloaded
    (501, 1, ""), (505, 1, ""), (507, 1, ""),   # not implemented, HTTP version, storage: the same next time
    (429, 3, " (the build, or a gateway before it, limits how often it is asked: raise --target-retries, the "
             "pause after each 429 twice the last, or lower --target-concurrency)"),
])
async def test_an_answer_that_keeps_failing_is_reported_with_how_often_it_was_asked(status: int, times: int,
                                                                                   hint: str) -> None:
    # 2 retries (the default): a 500 is asked 3 times, then reported; a 400 is the request's fault and is
    # not asked again. So is a 520 (Cloudflare's "the origin's answer was unusable"), where a 501 or 505
    # would say the same every time.
    requests = 0

    async def ask(request: web.Request) -> web.Response:
        nonlocal requests
        requests += 1
        return web.Response(status=status, text="boom", headers={"Retry-After": "0"})

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")], live_target(url, free_port()),
                                    log=None)
    assert requests == times
    suffix = f" (asked {times} times)" if times > 1 else ""
    assert str(raised.value).endswith(
        f"1 of 1 questions got no answer from {url}: HTTP {status} (boom){hint}{suffix}: a")


def server_span_only(tracer: Tracer) -> Handler:
    """A build traced by its web framework alone: one SERVER span, no retrieval, no generation."""
    async def ask(request: web.Request) -> web.Response:
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER):
            return web.json_response({"answer": "yes"})
    return ask


def whole_document_build(tracer: Tracer, document: str) -> Handler:
    """A build whose one span records its question, answer and the whole document it retrieved."""
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER) as span:
            span.set_attributes({"ragmon.question": question, "ragmon.answer": "It opens at 9.",
                                 "ragmon.contexts": json.dumps([{"id": "manual", "text": document}])})
            return web.json_response({"answer": "It opens at 9."})
    return ask


async def test_a_build_sending_more_than_the_receivers_max_body_is_told_which_flag_to_raise() -> None:
    # A fixed 16 MiB took no span holding a 20 MB document: the run failed with "too_large" and no way out.
    document = "It opens at 9. " + "x" * 60_000
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(whole_document_build(tracer, document)) as url:
            with pytest.raises(RagmonError) as raised:
                small = live_target(url, receiver, max_body=32 << 10, trace_wait=2.0)
                await asyncio.to_thread(collect, [Example(id="a", question="q")], small, log=None)
            assert ("the receiver refused 1 span(s): too_large (requests over --receiver-max-body, or "
                    "holding more values than a receiver reads: raise --receiver-max-body, or export smaller "
                    "batches)" in str(raised.value))
            (example,) = await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                                 live_target(url, receiver, max_body=1 << 20), log=None)
    assert example.contexts is not None and example.contexts[0].text == document


def retrieval_ending_late(tracer: Tracer, document: str, delay: float, answer_at: float = 0.0) -> Handler:
    """A build whose request span (question, answer) ends with the response, and whose retrieval span, a
    child of it, ends `delay` seconds later: exported in a later batch, as another service's part or one
    logged after the answer streams back is. It answers no earlier than `answer_at` (monotonic)."""
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        await asyncio.sleep(max(0.0, answer_at - time.monotonic()))
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER) as root:
            root.set_attributes({"ragmon.question": question, "ragmon.answer": "It opens at 9."})
            retrieval = tracer.start_span("retrieve", attributes={
                "ragmon.contexts": json.dumps([{"id": "manual", "text": document}])})
        asyncio.get_running_loop().call_later(delay, retrieval.end)
        return web.json_response({"answer": "It opens at 9."})
    return ask


async def test_a_retrieval_span_in_the_sdks_next_batch_is_scored_with_its_trace() -> None:
    # The SDK's own batch processor at its default delay (5 s after the last export ended): the root span
    # ends just before an export, the retrieval span a second later, so it comes in the next batch, 5 s
    # and more after its root. At the old --trace-quiet of 500 ms, and at 5 s, the trace was complete
    # without it: the answer was scored with its contexts unknown and a failing gate passed.
    receiver = free_port()
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{receiver}/v1/traces", timeout=5)
    provider = TracerProvider(resource=Resource.create({"service.name": "candidate"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))  # the default schedule_delay_millis, 5000
    first_export = time.monotonic() + 5.0
    try:
        handler = retrieval_ending_late(provider.get_tracer("candidate"), "The shop opens at 9.", delay=1.0,
                                        answer_at=first_export - 0.4)
        async with serving(handler) as url:
            target = Target(url=url, receiver=("127.0.0.1", receiver))  # the default --trace-quiet
            (example,) = await asyncio.to_thread(collect, [Example(id="a", question="q")], target, log=None)
    finally:
        provider.shutdown()
    assert example.answer == "It opens at 9."
    assert example.contexts is not None and [c.text for c in example.contexts] == ["The shop opens at 9."]


async def test_a_refused_span_of_an_answered_trace_stops_the_run() -> None:
    # The request span arrives; the retrieval span, in a later request over --receiver-max-body, is
    # refused. The answer was scored with its contexts unknown, a warning the only sign: a gate passed.
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(retrieval_ending_late(tracer, "x" * 60_000, delay=0.3)) as url:
            small = live_target(url, receiver, max_body=32 << 10, quiet=2.0)
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, [Example(id="a", question="q")], small, log=None)
    assert str(raised.value).startswith(
        "the receiver refused spans the build exported as too large, so its answers may be scored on part "
        "of their traces; the receiver refused 1 span(s): too_large (requests over --receiver-max-body")


async def test_a_request_that_is_not_otlp_does_not_stop_a_run_whose_traces_are_whole() -> None:
    # A probe posting junk to the receiver lost nothing of the build's: the run goes on (it had exited 2).
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(whole_document_build(tracer, "It opens at 9.")) as url:
            target = live_target(url, receiver, quiet=1.0)
            probe = asyncio.create_task(asyncio.to_thread(
                collect, [Example(id="a", question="q")], target, log=None))
            async with ClientSession() as session:
                deadline = time.monotonic() + 10
                while True:
                    with contextlib.suppress(OSError):
                        async with session.post(f"http://127.0.0.1:{receiver}/v1/traces", data=b"{junk",
                                                headers={"Content-Type": "application/json"}) as response:
                            assert response.status == 400
                            break
                    assert time.monotonic() < deadline, "the receiver never listened"
                    await asyncio.sleep(0.05)
            (example,) = await probe
    assert example.contexts is not None and [c.text for c in example.contexts] == ["It opens at 9."]


async def test_traces_that_are_not_rag_are_one_reason_naming_every_example() -> None:
    golden = [Example(id=name, question=f"question {name}") for name in ("a", "b", "c")]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(server_span_only(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver), log=None)
    # Three traces with the same problem make one group, not three (a trace id in each reason would).
    assert str(raised.value).endswith(
        "3 of 3 answers cannot be scored from their traces: its trace has no retrieval or generation span "
        "(not RAG): a, b, c")


def rag_in_a_trace_of_its_own(tracer: Tracer) -> Handler:
    """A build whose web framework continues the traceparent, and whose RAG spans start in a context of
    their own: the request's was lost on the way to them (a worker thread, a task queue)."""
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER):
            pass
        with tracer.start_as_current_span("rag", context=Context(), attributes={
                "ragmon.question": question, "ragmon.answer": "Yes.", "ragmon.contexts": GOOD_CONTEXTS}):
            return web.json_response({"answer": "Yes."})
    return ask


async def test_a_build_whose_rag_spans_lost_the_requests_trace_is_told_where_they_went() -> None:
    # Each question's trace held the framework's SERVER span alone, and the RAG spans arrived as traces of
    # their own: the error said the trace was not RAG, and nothing of the RAG traces that had arrived, so
    # a user looked for spans the build did not export, or a convention ragmon does not read.
    golden = [Example(id=name, question=f"question {name}") for name in ("a", "b")]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(rag_in_a_trace_of_its_own(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, trace_wait=2.0), log=None)
    assert str(raised.value) == (
        "2 of 2 answers cannot be scored from their traces: its trace has no retrieval or generation span "
        "(not RAG); but 2 trace(s) under trace ids ragmon did not send hold retrieval or generation spans: "
        "the build likely starts them in a trace of their own, the request's trace context lost on the way "
        "(a thread pool, a task queue: start them in the context of the request's span, passed on with "
        "opentelemetry.context.attach): a, b")


def langfuse_traced(tracer: Tracer) -> Handler:
    """A build traced with the Langfuse SDK (v3 on: OpenTelemetry spans, its own attributes)."""
    async def ask(request: web.Request) -> web.Response:
        with tracer.start_as_current_span("rag", context=propagate.extract(request.headers), attributes={
                "langfuse.observation.type": "span", "langfuse.observation.output": '"yes"'}):
            return web.json_response({"answer": "yes"})
    return ask


async def test_a_build_traced_in_a_convention_ragmon_does_not_read_is_told_so() -> None:
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(langfuse_traced(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, [Example(id="a", question="q")], live_target(url, receiver),
                                        log=None)
    assert str(raised.value).startswith(
        "1 of 1 answers cannot be scored from their traces: its trace has no retrieval or generation span "
        "(not RAG): its spans follow the Langfuse SDK (langfuse.observation.type), which ragmon does not "
        "read: record the question, documents and answer as ragmon.* attributes (ragmon.instrument)")


def traced_rag(tracer: Tracer, contexts: str, *, continued: bool = True, said: str = "Yes.") -> Handler:
    """A build tracing each answer, `said`, in ragmon's convention, with `contexts` as its ragmon.contexts;
    when not `continued`, under a trace of its own rather than the one the traceparent names."""
    async def ask(request: web.Request) -> web.Response:
        parent = propagate.extract(request.headers) if continued else None
        with tracer.start_as_current_span("POST /ask", context=parent, kind=SpanKind.SERVER), \
                tracer.start_as_current_span("rag", attributes={
                    "ragmon.question": (await request.json())["question"], "ragmon.answer": said,
                    "ragmon.contexts": contexts}):
            return web.json_response({"answer": said})
    return ask


GOOD_CONTEXTS = json.dumps([{"id": "d1", "text": "Yes."}])


async def untraced(request: web.Request) -> web.Response:
    """A build that exports nothing (or exports somewhere else)."""
    return web.json_response({"answer": "Yes."})


@pytest.mark.parametrize(("build", "why"), [
    # The app exports to the receiver, but starts a trace of its own for each request.
    (lambda tracer: traced_rag(tracer, GOOD_CONTEXTS, continued=False),
     "no span of its trace arrived within --trace-wait 1s, but 2 trace(s) arrived (from service 'candidate') "
     "under trace ids ragmon did not send: the app is not continuing the incoming traceparent (propagate it: "
     "start each request's span in the context opentelemetry.propagate.extract(request.headers) returns, as "
     "OpenTelemetry's web framework instrumentations do)"),
    # Nothing reaches the receiver: where the spans go, or whether they continue the trace, is unknown.
    (lambda tracer: untraced, f"no span of its trace arrived within --trace-wait 1s {NOT_ARRIVED}"),
    # The spans arrived under the right trace ids: what is wrong is in them, not in the export.
    (lambda tracer: traced_rag(tracer, json.dumps([{"doc_id": "d1", "text": "Yes."}])),
     "span 'rag': ragmon.contexts[0]: unknown field 'doc_id': ragmon reads this as 'id', rename it"),
    (lambda tracer: traced_rag(tracer, GOOD_CONTEXTS[:24]),
     "span 'rag': attribute 'ragmon.contexts' is not valid JSON: it ends before the value is complete (cut "
     "at 24 characters? check OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT / span attribute limits in the app)"),
], ids=["own traces", "no export", "doc_id", "cut"])
async def test_missing_traces_are_told_apart_from_traces_of_ids_never_sent_and_from_bad_spans(
        build: Callable[[Tracer], Handler], why: str) -> None:
    golden = [Example(id=name, question=f"question {name}") for name in ("a", "b")]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(build(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, trace_wait=1.0), log=None)
    assert str(raised.value) == f"2 of 2 answers cannot be scored from their traces: {why}: a, b"


async def test_a_service_name_holding_control_characters_and_backslashes_is_shown_escaped_once() -> None:
    # The app's service name is its own text: an ANSI escape is shown as its escape, and it and a backslash
    # are shown once, as the name reads. They had been escaped twice ('a\\x1b[31m', 'C:\\\\app').
    name = "a\x1b[31m C:\\app"
    receiver = free_port()
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{receiver}/v1/traces", timeout=5)
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=50))
    build = traced_rag(provider.get_tracer("candidate"), GOOD_CONTEXTS, continued=False)
    try:
        async with serving(build) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                        live_target(url, receiver, trace_wait=1.0), log=None)
    finally:
        provider.shutdown()
    assert "but 1 trace(s) arrived (from service 'a\\x1b[31m C:\\app') under trace ids" in str(raised.value)


async def test_a_build_that_mixes_up_two_requests_is_not_scored_on_the_other_questions_answer() -> None:
    # The build answers each question with the other's question, answer and documents (shared state raced
    # between two requests), each in the trace ragmon sent: each answer is grounded in its own documents, so
    # scored against the golden labels the run had passed. A third answers its own question, a fourth its
    # question reworded by the build (no golden question): both are scored.
    golden = [Example(id="a", question="How long do returns take?"),
              Example(id="b", question="How long does shipping take?"),
              Example(id="c", question="Is gift wrap free?"),
              Example(id="d", question="Do you ship abroad?")]
    said = {"How long do returns take?": "How long does shipping take?",
            "How long does shipping take?": "How long do returns take?",
            "Do you ship abroad?": "Which countries do you ship to?"}
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            question = (await request.json())["question"]
            answered = said.get(question, question)
            with tracer.start_as_current_span("rag", context=propagate.extract(request.headers), attributes={
                    "ragmon.question": answered, "ragmon.answer": f"Answer to {answered}",
                    "ragmon.contexts": json.dumps([{"id": "d1", "text": f"Answer to {answered}"}])}):
                return web.json_response({"answer": f"Answer to {answered}"})

        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver), log=None)
    mixed = ("the build mixed up concurrent requests (a request's question, answer or trace context kept "
             "where another request finds it)")
    assert str(raised.value) == (
        f"2 of 4 answers cannot be scored from their traces: its trace answered the question of b, not its "
        f"own: {mixed}: a; its trace answered the question of a, not its own: {mixed}: b")


def chain(tracer: Tracer, question: str, answer: str) -> None:
    """One chain that retrieved and answered, in OpenInference's convention."""
    kind = "openinference.span.kind"
    with tracer.start_as_current_span("qa", attributes={kind: "CHAIN", "input.value": question,
                                                        "output.value": answer}):
        with tracer.start_as_current_span("retrieve", attributes={
                kind: "RETRIEVER", "retrieval.documents.0.document.id": "w",
                "retrieval.documents.0.document.content": "The warranty lasts 2 years."}):
            pass
        with tracer.start_as_current_span("llm", attributes={kind: "LLM", "output.value": answer}):
            pass


@pytest.mark.parametrize("rewrites", [True, False], ids=["build-rewrites", "build-answers-once"])
async def test_a_build_answering_two_questions_in_one_request_is_scored_by_the_last_and_told_so(
        rewrites: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The golden set is a recorded eval loop: one trace of two requests, the last asking "How long is the
    # warranty?". Replayed live, the build's own trace decides what is said. One that first answers a
    # question of its own making (a rewrite to a different question) has its last answer scored, as
    # offline, and is told so, by the golden id (shown escaped: ids are data): live replay had said nothing.
    # One answering once is told nothing: the recorded trace's warning had been carried into the reports,
    # of answers never scored.
    golden_id = "0af7651916cd43dd8448eb211c80319c"
    data = tmp_path / "recorded.jsonl"
    data.write_text(json.dumps(eval_loop(golden_id)) + "\n", encoding="utf-8")
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            question = (await request.json())["question"]
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                if rewrites:
                    chain(tracer, "Which product is this about?", "The kettle.")
                chain(tracer, question, "It lasts 2 years.")
            return web.json_response({"answer": "It lasts 2 years."})

        async with serving(ask) as url:
            argv = ["replay", str(data), "--target", url, "--receiver-listen", f"127.0.0.1:{receiver}",
                    "--trace-wait", "2s", "--json", str(tmp_path / "r.json")]
            status = await asyncio.to_thread(main, argv)
    assert status == 0
    err = capsys.readouterr().err
    written = report(tmp_path / "r.json")
    assert [(r["id"], r["metrics"]["groundedness"]) for r in written["results"]] == [(golden_id, 1.0)]
    if not rewrites:
        assert "chains of this trace" not in err and written["warnings"] == []
        return
    why = ("only the last of 2 answers is scored: 2 chains of this trace each retrieved and answered, one "
           "after another, asked different questions ('Which product is this about?', 'How long is the "
           "warranty?'); ragmon scores one answer a trace. Give each request its own trace (a span per "
           "request, not one around a loop or a queue's worker); if they are one request asking again in "
           "other words, this is what it should do")
    assert f"\nragmon replay: warning: example {golden_id}: {why}\n" in err
    assert written["warnings"] == [{"id": golden_id, "warning": why}]


async def test_a_golden_id_in_a_live_warning_is_shown_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # An id is data: raw, "a\nragmon replay: error: forged" forged a second line on stderr.
    data = tmp_path / "q.jsonl"
    data.write_text(json.dumps({"id": "a\nragmon replay: error: forged", "question": "q?"}) + "\n",
                    encoding="utf-8")
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                chain(tracer, "Which product is this about?", "The kettle.")
                chain(tracer, "q?", "It lasts 2 years.")
            return web.json_response({"answer": "It lasts 2 years."})

        async with serving(ask) as url:
            argv = ["replay", str(data), "--target", url, "--receiver-listen", f"127.0.0.1:{receiver}",
                    "--trace-wait", "2s"]
            assert await asyncio.to_thread(main, argv) == 0
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "chains of this trace" in line]
    assert line.startswith("ragmon replay: warning: example a\\nragmon replay: error: forged: only the last "
                           "of 2 answers ")


async def test_a_log_line_stderr_cannot_take_does_not_stop_a_live_replay() -> None:
    # A full disk under the CI log: the line naming the receiver's endpoint raised ENOSPC, and the run,
    # whose build answered and traced every question, stopped with exit 2.
    receiver = free_port()
    # Every write fails with ENOSPC; unbuffered, so that nothing is left to fail again on closing.
    with io.TextIOWrapper(io.FileIO("/dev/full", "w"), write_through=True) as full, \
            sdk_tracer(receiver) as tracer:
        async with serving(traced_rag(tracer, GOOD_CONTEXTS)) as url:
            (example,) = await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                                 live_target(url, receiver, start_wait=1.0), log=full)
    assert example.answer == "Yes."
    assert example.contexts is not None and [c.text for c in example.contexts] == ["Yes."]


async def test_traces_of_ids_never_sent_beside_the_questions_own_are_other_traffic() -> None:
    # The build continues the traceparent, and also traces its own health checks: a trace of a question
    # that went missing is not blamed on propagation.
    golden = [Example(id=name, question=f"question {name}") for name in ("a", "b")]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        answer_a = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            with tracer.start_as_current_span("GET /healthz"):
                pass
            if (await request.json())["question"] == "question a":
                return await answer_a(request)
            return await untraced(request)

        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, trace_wait=1.0), log=None)
    assert str(raised.value) == ("1 of 2 answers cannot be scored from their traces: no span of its trace "
                                 f"arrived within --trace-wait 1s {NOT_ARRIVED}: b")


async def test_a_422_for_a_body_without_the_builds_own_field_points_at_target_field() -> None:
    # A FastAPI build whose request model has `query`: a body of {"question": ...} is answered 422.
    async def ask(request: web.Request) -> web.Response:
        if "query" not in await request.json():
            return web.json_response({"detail": [{"loc": ["body", "query"], "msg": "Field required"}]},
                                     status=422)
        return web.json_response({"answer": "yes"})

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")], live_target(url, free_port()),
                                    log=None)
    assert str(raised.value) == (
        f'1 of 1 questions got no answer from {url}: HTTP 422 ({{"detail": [{{"loc": ["body", "query"], '
        f'"msg": "Field required"}}]}}) {field_hint(422)}: a')


async def test_spans_exported_to_the_wrong_path_are_named_as_such() -> None:
    golden = [Example(id="a", question="question a")]
    receiver = free_port()
    # The common mistake: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set to the bare host:port, which the SDK
    # uses as given, so it posts to "/".
    with sdk_tracer(receiver, path="") as tracer:
        async with serving(server_span_only(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, trace_wait=1.0), log=None)
    # One question, one trace of one span, exported in one batch: one request at "/".
    assert str(raised.value).endswith(
        f"no span of its trace arrived within --trace-wait 1s {NOT_ARRIVED}: a; the receiver got 1 "
        "request(s) at /, not /v1/traces (an endpoint set in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as "
        "given, so it must end in /v1/traces)")


def test_requests_at_many_wrong_paths_name_the_commonest_and_count_the_rest() -> None:
    sink = TraceSink(set(), quiet=0.1, decision_wait=1.0)
    for n, path in enumerate(["/", "/v1/traces/v1/traces", "/a", "/b", "/c", "/d", "/e"]):
        for _ in range(7 - n):  # "/" 7 times, down to "/e" once
            sink.wrong_path(path)
    as_given = ("an endpoint set in OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, so it must end in "
                "/v1/traces")
    assert _receiver_problems(sink) == (
        f"; the receiver got 7 request(s) at /, not /v1/traces ({as_given})"
        "; the receiver got 6 request(s) at /v1/traces/v1/traces, not /v1/traces (the SDK appends /v1/traces "
        "to OTEL_EXPORTER_OTLP_ENDPOINT: set it to the base URL, without /v1/traces, or give the full URL in "
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)"
        f"; the receiver got 5 request(s) at /a, not /v1/traces ({as_given})"
        f"; the receiver got 4 request(s) at /b, not /v1/traces ({as_given})"
        f"; the receiver got 3 request(s) at /c, not /v1/traces ({as_given})"
        "; and 3 request(s) at other paths")  # /d twice, /e once


async def test_a_trace_that_breaks_its_convention_the_same_way_is_one_reason_too() -> None:
    golden = [Example(id=name, question=f"question {name}") for name in ("a", "b")]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            # OPENINFERENCE_HIDE_OUTPUTS: the retrieved document's text is replaced by a marker.
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER), \
                    tracer.start_as_current_span("retrieve", attributes={
                        "openinference.span.kind": "RETRIEVER", "retrieval.documents.0.document.id": "d1",
                        "retrieval.documents.0.document.content": "__REDACTED__"}):
                return web.json_response({"answer": "yes"})

        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver), log=None)
    message = str(raised.value)
    # Each trace's own ids (trace id, span id) would make two groups of one; the span name stays.
    assert re.search(r"traces: span 'retrieve': [^;]*__REDACTED__[^;]*: a, b$", message), message
    assert "span id" not in message and "trace " not in message.split("traces: ", 1)[1]


async def test_a_target_url_with_https_on_a_plain_http_port_names_the_tls_failure() -> None:
    async def ask(request: web.Request) -> web.Response:
        return web.json_response({"answer": "never reached"})

    async with serving(ask) as url:
        https = url.replace("http://", "https://")
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(https, free_port()), log=None)
    message = str(raised.value)
    # The TLS ClientHello gets an HTTP/1.1 400 back, whose first bytes are no TLS record version; errno 1
    # there is OpenSSL's SSL_ERROR_SSL, not EPERM ("Operation not permitted").
    assert "[SSL: WRONG_VERSION_NUMBER] wrong version number" in message
    assert "Operation not permitted" not in message


async def test_a_trace_whose_root_is_not_recognisable_is_kept_at_the_deadline() -> None:
    # An older SDK does not flag the remote parent, and the entry span is INTERNAL: the Assembler cannot
    # tell it is the local root, so it decides the trace at decision_wait after its first span, which
    # is always after the replay stops waiting (the deadline counts from the last answer, before it).
    ours = new_trace_id()
    entry = Span(ours, "a" * 16, "f" * 16, "handle", kind=1)
    child = Span(ours, "b" * 16, entry.span_id, "retrieve", kind=1)
    sink = TraceSink(frozenset({ours}), quiet=0.01, decision_wait=5.0)
    sink.offer([entry, child], "http")
    await sink.wait(time.monotonic() + 0.2)
    # The sidecar scores such a trace as it stands at decision_wait; the replay does at its deadline.
    assert sink.decided[ours].spans == (entry, child)


def test_a_trace_evicted_while_questions_are_asked_keeps_its_later_spans() -> None:
    # A buffer of one trace: B's first span evicts A while A still has its root to come (a large golden
    # set does this at 20,000). A is kept as decided, and its root, late, joins it.
    a, b = new_trace_id(), new_trace_id()
    sink = TraceSink({a, b}, quiet=10.0, decision_wait=30.0, max_traces=1)
    a_child = Span(a, "2" * 16, "1" * 16, "retrieve", kind=1)
    a_root = Span(a, "1" * 16, None, "POST /ask", kind=2)
    sink.offer([a_child], "http")
    sink.offer([Span(b, "3" * 16, None, "POST /ask", kind=2), a_root], "http")
    assert sink.decided[a].spans == (a_child, a_root)


PEAK_RSS_PROBE = """
import atexit, sys
from ragmon.cli import main

def peak():
    with open("/proc/self/status") as status:
        sys.stderr.write(next(line for line in status if line.startswith("VmHWM:")))

atexit.register(peak)
sys.exit(main(sys.argv[1:]))
"""
"""`ragmon` that writes its own peak RSS ("VmHWM: <KiB> kB") as the last line of stderr when it exits."""


def test_a_huge_answer_body_is_read_without_being_held(tmp_path: Path) -> None:
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    chunk, chunks = b"x" * (1 << 20), 256  # a 256 MiB answer, e.g. a stream that never stops in time

    async def ask(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        for _ in range(chunks):
            await response.write(chunk)
        return response

    def replay(url: str) -> tuple[int, str, int]:
        """Exit status, stderr and peak RSS (KiB) of the replay process itself: its VmHWM, read as it
        exits. Not wait4's ru_maxrss, which also counts the pages of this (large) test process that the
        child had mapped between fork and exec."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_"))}
        result = subprocess.run([sys.executable, "-c", PEAK_RSS_PROBE, "replay", str(data), "--target", url,
                                 "--receiver-listen", "127.0.0.1:0", "--trace-wait", "200ms", "--quiet"],
                                cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, timeout=120, check=False)
        *lines, peak = result.stderr.rstrip("\n").split("\n")
        name, kib, _ = peak.split()
        assert name == "VmHWM:"
        return result.returncode, "\n".join(lines), int(kib)

    async def main() -> tuple[int, str, int]:
        async with serving(ask) as url:
            return await asyncio.to_thread(replay, url)

    code, stderr, peak_kib = asyncio.run(main())
    assert code == 2 and "Traceback" not in stderr
    # The 2xx answer counted as answered: what is missing is its trace (this candidate exports none).
    assert f"no span of its trace arrived within --trace-wait 0.2s {NOT_ARRIVED}: a" in stderr
    # Holding the body would take at least its 256 MiB; a streamed read holds a chunk at a time.
    assert peak_kib < 128 * 1024, f"peak RSS {peak_kib} KiB"


# --- what a CI engineer's candidate does: redirects, a build that is down, progress, signals ---


REDIRECTS = {301: web.HTTPMovedPermanently, 302: web.HTTPFound, 303: web.HTTPSeeOther,
             307: web.HTTPTemporaryRedirect, 308: web.HTTPPermanentRedirect}


@pytest.mark.parametrize("status", sorted(REDIRECTS))
async def test_no_redirect_is_followed_to_any_host_and_the_url_to_give_is_named(status: int) -> None:
    # The build answers with a redirect to another host (here another port). Followed, a 307 or 308 took the
    # question there and a 301 or 302 a GET without it; that host's answer (an internal address a build
    # under test names) was quoted in the CI log. Asked once, not retried: a redirect is the build's
    # setting, not a moment's trouble.
    asked: list[str] = []
    elsewhere: list[str] = []

    async def other(request: web.Request) -> web.Response:
        elsewhere.append(request.method)
        return web.json_response({"secret": "internal"})

    async with serving(other) as other_url:
        async def ask(request: web.Request) -> web.Response:
            asked.append(request.method)
            raise REDIRECTS[status](other_url)

        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                        live_target(url, free_port(), trace_wait=0.2), log=None)
    assert (asked, elsewhere) == (["POST"], [])
    assert str(raised.value).endswith(
        f"1 of 1 questions got no answer from {url}: HTTP {status} redirect to {other_url} (not followed, as "
        f"it could take the question and any --target-header-file headers to another host: give that URL "
        f"as --target): a")


async def test_a_redirect_without_a_location_says_so() -> None:
    # A 304 (or any 3xx) with no Location: there is no URL to give as --target, and "redirect to ?"
    # pointed at one.
    async def ask(request: web.Request) -> web.Response:
        return web.Response(status=304)

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), trace_wait=0.2), log=None)
    assert str(raised.value).endswith(
        f"1 of 1 questions got no answer from {url}: HTTP 304 with no Location header, so no URL to follow "
        f"(is --target the URL the build answers questions at?): a")


async def test_ragmon_out_of_open_files_is_told_as_its_own_limit_and_not_asked_again(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # 100 questions at once, each held for a second, under `ulimit -n 64`: ragmon cannot open a socket for
    # every one. That was "cannot connect to 127.0.0.1:PORT (Too many open files) (asked 3 times)", the
    # build's fault to read, and asked again as a build's failure.
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": f"q{i:03d}", "question": f"question {i}?"}) + "\n"
                              for i in range(100)))
    asked = 0

    async def ask(request: web.Request) -> web.Response:
        nonlocal asked
        asked += 1
        await asyncio.sleep(1)
        return web.json_response({"answer": "a"})

    async with serving(ask) as url:
        done = await asyncio.to_thread(run, ragmon_cmd, "replay", golden, "--target", url,
                                       "--target-concurrency", "100", "--receiver-listen", "127.0.0.1:0",
                                       "--trace-wait", "1s", cwd=tmp_path, open_files=64)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    error = done.stderr.splitlines()[-1]
    port = url.split(":")[2].split("/")[0]
    reason = (f": ragmon could not open a connection to 127.0.0.1:{port} (Too many open files: ragmon's own "
              f"limit of open files (ulimit -n 64), not the build's: raise `ulimit -n` or lower "
              f"--target-concurrency from 100): q")
    assert reason in error, error
    failed = int(error.removeprefix("ragmon replay: error: ").split()[0])
    assert asked == 100 - failed  # each failed question was never sent, nor asked again


async def test_every_question_without_an_answer_is_in_the_json_report_by_id_and_reason(
        ragmon_cmd: list[str], tmp_path: Path) -> None:
    # 25 questions, all asked at once; the build refuses q00-q11 with 400 and q12-q23 with 404, and
    # answers q24 (without a trace). The terminal and the Markdown report name 10 ids a reason and
    # count the rest; the JSON report had the one-line error alone, so no report listed q10, q11, q22, q23.
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": f"q{i:02d}", "question": f"question {i}?"}) + "\n"
                              for i in range(25)))

    async def ask(request: web.Request) -> web.Response:
        number = int((await request.json())["question"].split()[1].rstrip("?"))
        if number == 24:
            return web.json_response({"answer": "a"})
        return web.Response(status=400 if number < 12 else 404, text="no")

    async with serving(ask) as url:
        done = await asyncio.to_thread(run, ragmon_cmd, "replay", golden, "--target", url,
                                       "--target-concurrency", "25", "--receiver-listen", "127.0.0.1:0",
                                       "--trace-wait", "1s", "--json", "r.json", "--markdown", "r.md",
                                       cwd=tmp_path)
    assert done.returncode == 2
    refused, missing = f"HTTP 400 (no) {field_hint(400)}", "HTTP 404 (no)"
    assert f"{refused}: q00, q01, q02, q03, q04, q05, q06, q07, q08, q09 (" in done.stderr
    assert ") and 2 more; " in done.stderr and "q10" not in done.stderr
    assert "q10" not in (tmp_path / "r.md").read_text()
    doc = report(tmp_path / "r.json")
    assert doc["complete"] is False and doc["error"] == done.stderr.splitlines()[-1].removeprefix(
        "ragmon replay: error: ")
    assert doc["failed"] == ([{"id": f"q{i:02d}", "reason": refused} for i in range(12)]
                             + [{"id": f"q{i:02d}", "reason": missing} for i in range(12, 24)])


async def test_a_build_that_answers_nothing_is_not_asked_every_question() -> None:
    # Every request outlives --target-timeout (a build whose model backend hangs). With 2 at once and 1
    # retry, the first round is 2 questions x 2 tries; none answered, so the other 8 are not asked: the
    # run would stop with exit 2 anyway, after timeout x tries x questions / concurrency (hours at scale).
    requests = 0
    release = asyncio.Event()

    async def ask(request: web.Request) -> web.Response:
        nonlocal requests
        requests += 1
        await release.wait()
        return web.json_response({"answer": "too late"})

    golden = [Example(id=f"q{i}", question=f"question {i}") for i in range(10)]
    async with serving(ask) as url:
        try:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, free_port(), concurrency=2,
                                                                     timeout=0.2, retries=1), log=None)
        finally:
            release.set()
    assert requests == 4
    assert str(raised.value).endswith(
        f"2 of 10 questions got no answer from {url} and 8 were not asked, as none was answered: no answer "
        f"within --target-timeout 0.2s (asked 2 times): q0, q1")


async def test_a_build_that_answers_some_is_asked_every_question_and_reports_progress() -> None:
    # q1 is refused (400, not asked again), the rest answered: the build is up, so every question is
    # asked and each one it fails on is named; no trace is needed to get this far. Progress is reported
    # as each question is done, answered or not: (1, 6) ... (6, 6).
    asked: list[str] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        asked.append(question)
        if question == "question 1":
            return web.Response(status=400, text="no")
        return web.json_response({"answer": "yes"})

    golden = [Example(id=f"q{i}", question=f"question {i}") for i in range(6)]
    done: list[tuple[int, int]] = []
    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, golden, live_target(url, free_port(), concurrency=2), log=None,
                                    progress=lambda n, total: done.append((n, total)))
    assert sorted(asked) == [f"question {i}" for i in range(6)]
    assert str(raised.value).endswith(f"1 of 6 questions got no answer from {url}: HTTP 400 (no) "
                                      f"{field_hint(400)}: q1")
    assert done == [(n, 6) for n in range(1, 7)]


@pytest.mark.parametrize(("sig", "status", "why"), [(signal.SIGINT, 130, "interrupted"),
                                                    (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_a_signal_mid_run_replaces_the_reports_and_they_state_its_exit_status(
        tmp_path: Path, sig: signal.Signals, status: int, why: str) -> None:
    # Ctrl-C, or SIGTERM as `timeout`, Kubernetes and a cancelled CI job send it, while the build is still
    # answering. The previous run's green reports must not stay to be published as this run's, and the
    # reports must state the exit status the run ends with: 128 + the signal's number, as shells say.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    reports = {name: tmp_path / f"r.{name}" for name in ("json", "md", "xml")}
    for path in reports.values():
        path.write_text("the previous run's PASS\n", encoding="utf-8")
    asked = threading.Event()
    release = asyncio.Event()

    async def ask(request: web.Request) -> web.Response:
        asked.set()
        await release.wait()  # still answering when the signal comes
        return web.json_response({"answer": "too late"})

    def replay(url: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))}
        process = subprocess.Popen(
            [sys.executable, "-m", "ragmon.cli", "replay", str(data), "--target", url, "--receiver-listen",
             "127.0.0.1:0", "--json", str(reports["json"]), "--markdown", str(reports["md"]), "--junit",
             str(reports["xml"])], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
            # Python turns SIGINT into KeyboardInterrupt only if it was not ignored when it started, as
            # it is for a job a non-interactive shell puts in the background.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            assert asked.wait(30), "the replay never asked its question"
            process.send_signal(sig)
            out, err = process.communicate(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    async def main() -> subprocess.CompletedProcess[str]:
        async with serving(ask) as url:
            try:
                return await asyncio.to_thread(replay, url)
            finally:
                release.set()

    done = asyncio.run(main())
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr
    assert report(reports["json"])["error"] == why and report(reports["json"])["complete"] is False
    assert reports["md"].read_text(encoding="utf-8") == (
        f"## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status {status}), so no gate was "
        f"decided:\n\n> {why}\n")
    error = ET.parse(reports["xml"]).getroot().find("testcase/error")
    assert error is not None and error.get("message") == why
    assert error.text == f"the run could not complete (exit status {status}), so no gate was decided: {why}"


async def test_a_ci_log_hears_how_many_questions_were_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # A build taking seconds per answer keeps the run asking for far longer than it scores: the CI log
    # gets the same periodic line as scoring does (every 30 s, here every call), or a no-output timeout
    # kills the job. This candidate answers without exporting traces, so the run then stops (exit 2).
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "qa"}\n{"id": "b", "question": "qb"}\n', encoding="utf-8")
    monkeypatch.setattr(Progress, "LOG_INTERVAL", 0.0)
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)

    async def ask(request: web.Request) -> web.Response:
        return web.json_response({"answer": "yes"})

    async with serving(ask) as url:
        argv = ["replay", str(data), "--target", url, "--target-concurrency", "1", "--receiver-listen",
                "127.0.0.1:0", "--trace-wait", "0s"]
        status = await asyncio.to_thread(main, argv)
    assert status == 2
    err = capsys.readouterr().err
    assert "\nasked 1 of 2 questions\nasked 2 of 2 questions\n" in err


def test_quiet_prints_nothing_when_the_receiver_refused_a_request_of_the_build(tmp_path: Path) -> None:
    # The build's traces reach /v1/traces and pass the gate, but its log exporter, its endpoint set
    # without /v1/logs, posts to "/": the receiver answers 404 and warns. Without --quiet that warning is
    # shown; with it, a run that passed prints nothing at all, as --quiet promises.
    _, questions = load_corpus()
    data = tmp_path / "q.jsonl"
    data.write_text(json.dumps({"id": "q01", "question": questions[0].question}) + "\n", encoding="utf-8")
    retriever, llm = build("healthy")
    receiver = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))}

    def replay(url: str, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragmon.cli", "replay", str(data), "--target", url,
                               "--receiver-listen", f"127.0.0.1:{receiver}", "--trace-quiet", "100ms",
                               "--gate", GATE, *flags], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=60, check=False)

    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                reply = answer(tracer, retriever, llm, Question("", (await request.json())["question"], ()),
                               "healthy")
            async with ClientSession() as session, session.post(f"http://127.0.0.1:{receiver}/",
                                                                json={"resourceLogs": []}) as logs:
                assert logs.status == 404
            return web.json_response({"answer": reply.text})

        async def both() -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
            async with serving(ask) as url:
                return (await asyncio.to_thread(replay, url), await asyncio.to_thread(replay, url, "--quiet"))

        loud, quiet = asyncio.run(both())
    assert loud.returncode == 0, loud.stderr
    # The warning names the path, the peer and what to change, as the sidecar's structured log lines do.
    assert re.search(r"^warning: OTLP request for something ragmon does not receive from 127\.0\.0\.1 "
                     r"\(Python/[\d.]+ aiohttp/[\d.]+\), answered 404: nothing is received at /: ragmon "
                     r"receives OTLP traces at POST /v1/traces \(an endpoint set in "
                     r"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given, so it must end in /v1/traces\)$",
                     loud.stderr, re.MULTILINE)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


async def test_refusals_that_each_quote_a_request_id_make_a_bounded_message() -> None:
    # The build answers q0 and refuses q1..q7, each 500 body quoting its own request id, so no two
    # problems are alike: 7 groups of one. The 5 commonest are named (all ties: in the golden order, q1 to
    # q5), the other 2 counted; without a bound the message grows by a problem per failed question.
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        if question == "question 0":
            return web.json_response({"answer": "yes"})
        return web.Response(status=500, text=f"request id {question[-1]}")

    golden = [Example(id=f"q{i}", question=f"question {i}") for i in range(8)]
    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, golden, live_target(url, free_port(), concurrency=1, retries=0),
                                    log=None)
    named = "; ".join(f"HTTP 500 (request id {i}): q{i}" for i in range(1, 6))
    assert str(raised.value).endswith(f"7 of 8 questions got no answer from {url}: {named}; and 2 more with "
                                      f"2 other problems")


async def test_the_header_file_reaches_the_build_with_every_question(tmp_path: Path) -> None:
    # A gateway in front of the build refuses any request without both headers of the file; its comment,
    # blank line and CRLF line ends are no headers, and "X-Tenant:acme" needs no space after the colon.
    headers = tmp_path / "headers"
    headers.write_bytes(b"# staging gateway\r\nAuthorization: Bearer s3cret\r\n\r\nX-Tenant:acme\r\n")
    _, questions = load_corpus()
    golden = [Example(id=f"q{i}", question=questions[i].question) for i in range(2)]
    retriever, llm = build("healthy")
    receiver = free_port()
    seen: list[tuple[str | None, str | None]] = []

    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.Response:
            seen.append((request.headers.get("Authorization"), request.headers.get("X-Tenant")))
            if seen[-1] != ("Bearer s3cret", "acme"):
                return web.json_response({"error": "unauthorized"}, status=401)
            question = (await request.json())["question"]
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                reply = answer(tracer, retriever, llm, Question("", question, ()), "healthy")
            return web.json_response({"answer": reply.text})

        async with serving(ask) as url:
            target = live_target(url, receiver, headers=read_headers(headers))
            examples = await asyncio.to_thread(collect, golden, target, log=None)
    assert seen == [("Bearer s3cret", "acme")] * 2
    for example, question in zip(examples, golden, strict=True):
        assert example.answer == llm.answer(question.question, retriever.search(question.question))
    assert "s3cret" not in repr(target)  # a traceback or a log line printing the settings shows no token


@pytest.mark.parametrize(("content", "problem"), [
    (b"Authorization Bearer s3cret\n", "2: --target-header-file: expected 'Name: value', with a header name "
                                        "of letters, digits and -"),
    (b"Auth orization: Bearer s3cret\n", "2: --target-header-file: expected 'Name: value', with a header "
                                          "name of letters, digits and -"),
    (b"X-Key: s3cret\x0c\n", "2: --target-header-file: the value of X-Key holds a control character"),
    (b"traceparent: 00-s3cret\n", "2: --target-header-file: traceparent is set by ragmon: ragmon chooses "
                                   "each question's trace id"),
    (b"x-key: s3cret\nX-Key: s3cret\n", "3: --target-header-file: X-Key is given twice (first on line 2)"),
])
def test_a_bad_header_file_exits_2_naming_its_line_and_never_the_value(
        ragmon_cmd: list[str], tmp_path: Path, content: bytes, problem: str) -> None:
    # Line 1 of each file is a good header: the line named is the bad one. The run stops before asking
    # anything (the target port is closed, which would be another error).
    headers = tmp_path / "headers"
    headers.write_bytes(b"X-Tenant: acme\n" + content)
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", f"http://127.0.0.1:{free_port()}/ask",
               "--target-header-file", headers, "--receiver-listen", "127.0.0.1:0", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(f"{headers}:{problem}\n") and len(done.stderr.splitlines()) == 1
    assert "s3cret" not in done.stderr


def test_a_missing_header_file_exits_2_naming_it(ragmon_cmd: list[str], tmp_path: Path) -> None:
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    done = run(ragmon_cmd, "replay", data, "--target", "http://127.0.0.1:1/ask", "--target-header-file",
               tmp_path / "absent", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(f"{tmp_path / 'absent'}: cannot read the --target-header-file: No such file "
                                "or directory\n")


def test_a_header_file_saved_with_a_byte_order_mark_reads_as_written(tmp_path: Path) -> None:
    # Notepad and PowerShell 5's "utf8" start the file with U+FEFF: line 1 must still be "Name: value".
    headers = tmp_path / "headers"
    headers.write_bytes("\ufeffAuthorization: Bearer s3cret\n".encode())
    assert read_headers(headers) == (("Authorization", "Bearer s3cret"),)


async def test_a_build_still_starting_is_waited_for_up_to_target_start_wait() -> None:
    # A CI job starts the build and runs the gate at once; the build listens 1.5 s later. Asking at once,
    # 3 tries 0.5 s apart all meet a refused connection. With --target-start-wait 10s the question is
    # asked once it is up: answered (no trace exported here, so what fails is the trace, not the connection).
    port, asked = free_port(), []

    async def ask(request: web.Request) -> web.Response:
        asked.append(await request.json())
        return web.json_response({"answer": "a"})

    app = web.Application()
    app.router.add_post("/ask", ask)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()

    async def start_later() -> None:
        await asyncio.sleep(1.5)
        await web.TCPSite(runner, "127.0.0.1", port).start()

    starting = asyncio.create_task(start_later())
    target = live_target(f"http://127.0.0.1:{port}/ask", free_port(), trace_wait=0.2, start_wait=10.0)
    try:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")], target, log=None)
    finally:
        await starting
        await runner.cleanup()
    assert asked == [{"question": "q"}]
    assert str(raised.value).endswith(f"no span of its trace arrived within --trace-wait 0.2s {NOT_ARRIVED}: "
                                      f"a")


# --- secrets in the --target URL -------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:SuperSecret123@127.0.0.1:8080/ask?api_key=SECRETKEY",
     "http://user:***@127.0.0.1:8080/ask?api_key=***"),
    ("https://ghp_TOKEN@build.example/ask", "https://***@build.example/ask"),  # the user name is the key
    ("https://bob:@build.example/ask", "https://***@build.example/ask"),  # sk_live_...: with no password
    ("https://bob:p@ss@build.example/ask", "https://bob:***@build.example/ask"),  # an @ left unescaped
    ("https://fn.azurewebsites.net/api/ask?code=abc==&clientId=default",
     "https://fn.azurewebsites.net/api/ask?code=***&clientId=***"),
    ("http://build/ask?SECRETKEY", "http://build/ask?***"),
    ("http://build/ask#access_token=SECRET", "http://build/ask#***"),
    ("bob:hunter2@build:8080/ask", "bob:***@build:8080/ask"),  # no scheme (refused, but named)
    ("http://127.0.0.1:8080/ask", "http://127.0.0.1:8080/ask"),  # nothing to hide: as given
])
def test_a_url_is_shown_without_its_password_and_query_values(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_credentials_in_the_target_url_reach_neither_the_log_nor_any_report(ragmon_cmd: list[str],
                                                                            tmp_path: Path) -> None:
    # The build is down (nothing listens): the error names the URL, which CI prints and every report
    # quotes. Its password and the key in its query stay out of all of them.
    dead = free_port()
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    secret = f"http://bob:hunter2@127.0.0.1:{dead}/ask?code=SECRETKEY"
    done = run(ragmon_cmd, "replay", data, "--target", secret,
               "--receiver-listen", "127.0.0.1:0", "--target-retries", "0", "--gate", "groundedness=0.5",
               "--json", "r.json", "--markdown", "r.md", "--junit", "r.xml", cwd=tmp_path)
    why = (f"1 of 1 questions got no answer from http://bob:***@127.0.0.1:{dead}/ask?code=***: cannot "
           f"connect to 127.0.0.1:{dead} (Connection refused): a ({data}:1)")
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, f"ragmon replay: error: {why}")
    assert report(tmp_path / "r.json")["error"] == why
    for name in ("r.md", "r.xml"):  # the same line, escaped as Markdown and XML
        written = (tmp_path / name).read_text(encoding="utf-8")
        assert f"127.0.0.1:{dead}/ask?code=" in written
        assert "hunter2" not in written and "SECRETKEY" not in written


async def test_a_url_quoted_in_an_http_client_error_is_shown_without_its_key() -> None:
    # A build whose status line is no HTTP: aiohttp's error quotes the URL it asked, query and all.
    async def garbled(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)
        writer.write(b"HTTP/1.1 abc\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garbled, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/ask"
    try:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(f"{url}?api_key=SECRETKEY", free_port(), retries=0), log=None)
    finally:
        server.close()
        await server.wait_closed()
    # aiohttp's own message quoted the URL, key and all ("400, message=..., url='...'"); the one now
    # shown quotes only what the build sent.
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}?api_key=***: the answer is not "
                                 f"HTTP ragmon can read (Bad status line: Invalid status code: "
                                 f"b'HTTP/1.1 abc'; is --target the build's HTTP port, not its gRPC or TLS "
                                 f"one?): a")


# --- a build still starting (--target-start-wait) ---------------------------------------------------------


def warming(seconds: float, how: str, asked: list[float]) -> Handler:
    """A build that fails `how` for its first `seconds`, then answers (exporting no trace). "503": the app
    says it is warming (Retry-After 0.25); "dropped": a published Docker port, which accepts the connection
    and drops it while the app is not up."""
    up_at = time.monotonic() + seconds

    async def ask(request: web.Request) -> web.StreamResponse:
        asked.append(time.monotonic())
        await request.read()
        if time.monotonic() >= up_at:
            return web.json_response({"answer": "a"})
        if how == "503":
            return web.Response(status=503, text="warming up", headers={"Retry-After": "0.25"})
        assert request.transport is not None
        request.transport.close()
        raise asyncio.CancelledError  # the connection is gone: aiohttp must not answer on it

    return ask


@pytest.mark.parametrize("how", ["503", "dropped"])
async def test_a_build_that_fails_while_it_starts_is_asked_again_until_target_start_wait(how: str) -> None:
    # No retries at all: before the build has answered once, the failures of a build still starting are
    # not retries. It is up after 1.5 s, well within --target-start-wait 10s, and answers: what fails is
    # the trace it never exported, not the question.
    asked: list[float] = []
    app = web.Application()
    app.router.add_post("/ask", warming(1.5, how, asked))
    async with running(app, handler_cancellation=True) as base:
        started = time.monotonic()
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(f"{base}/ask", free_port(), retries=0, trace_wait=0.2,
                                                start_wait=10.0), log=None)
    assert str(raised.value).endswith(f"no span of its trace arrived within --trace-wait 0.2s {NOT_ARRIVED}: "
                                      f"a")
    # Asked about every RETRY_PAUSE (0.5 s; Retry-After 0.25 is raised to it) until it answered at 1.5 s:
    # 4 times, fewer on a machine so busy that a request takes longer than the pause.
    assert 2 <= len(asked) <= 5 and asked[-1] - started >= 1.5


async def test_a_build_that_does_not_become_ready_in_time_is_told_so() -> None:
    asked: list[float] = []
    async with serving(warming(3600, "503", asked)) as url:
        started = time.monotonic()
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), start_wait=1.0), log=None)
        waited = time.monotonic() - started
    assert str(raised.value).endswith(
        f"1 of 1 questions got no answer from {url}: the build did not become ready within "
        f"--target-start-wait 1s (last: HTTP 503 (warming up)): a")
    # At 0, 0.5 and 1 s (the deadline; at 0 and past it on a machine so busy that a request takes longer
    # than the 0.5 s pause): not the 2 retries after it, nor longer.
    assert len(asked) in (2, 3) and 1.0 <= waited < 3.0


async def test_once_the_build_has_answered_its_failures_are_retried_as_usual() -> None:
    # q0 is answered; q1 gets 503 every time. With --target-start-wait 30s, q1 is still asked 3 times
    # (2 retries), not for 30 s: the build is up, and a 503 now is the build's answer.
    asked: list[str] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        asked.append(question)
        if question == "q1":
            return web.Response(status=503, text="busy", headers={"Retry-After": "0"})
        return web.json_response({"answer": "a"})

    async with serving(ask) as url:
        started = time.monotonic()
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q0"), Example(id="b", question="q1")],
                                    live_target(url, free_port(), concurrency=1, start_wait=30.0), log=None)
        waited = time.monotonic() - started
    assert asked == ["q0", "q1", "q1", "q1"] and waited < 10
    assert str(raised.value).endswith(f"1 of 2 questions got no answer from {url}: HTTP 503 (busy) (asked 3 "
                                      f"times): b")
