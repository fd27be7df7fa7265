"""`ragmon serve` stopped as terminals, `timeout` and systemd stop it: a signal to its whole process group.

The real CLI runs in its own session (`start_new_session=True`), as a terminal runs a foreground job, and
`os.killpg` signals every process of the group, the lexical workers and the forkserver included, as
Ctrl-C does. Traces are buffered (a long --quiet) when the signal arrives, so the drain has work for the
workers: a worker that died of the signal fails it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from polling import wait_metrics

from ragmon import instrument
from ragmon.scrape import total
from ragmon.stop_signals import SHUTDOWN_SIGNALS

TRACES = 3
DUMMY_KEY = "sk-ant-dummy-not-a-key"
"""Never a real key: with --llm-sample-rate at 0 nothing is sent anywhere."""


class Serve:
    """A `ragmon serve` process leading its own process group, and the JSON log lines up to "ready"."""

    def __init__(self, process: subprocess.Popen[str], startup: list[dict[str, Any]]) -> None:
        self.process = process
        self.startup = startup
        self.ready = startup[-1]

    def finish(self, timeout: float = 20) -> str:
        """Wait for the exit; returns the rest of stderr."""
        _, err = self.process.communicate(timeout=timeout)
        return err


def heeding_signals() -> None:
    """The sidecar under test answers every stop signal, though pytest may have started with one ignored
    (`pytest &` in a script ignores SIGINT), which serve would then leave ignored, as it should."""
    for sig in SHUTDOWN_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


@contextmanager
def serve_in_own_group(args: list[str], env: dict[str, str]) -> Iterator[Serve]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))}
    command = [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", "127.0.0.1:0", "--grpc-listen",
               "off", "--metrics-listen", "127.0.0.1:0", "--log-format", "json", *args]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**environ, **env}, start_new_session=True, preexec_fn=heeding_signals)
    try:
        assert process.stderr is not None
        startup: list[dict[str, Any]] = []
        while not startup or startup[-1].get("message") != "ragmon serve ready":
            line = process.stderr.readline()
            assert line.startswith("{"), f"ragmon serve exited before it was ready: {startup} {line}"
            startup.append(json.loads(line))
        yield Serve(process, startup)
    finally:
        if process.poll() is None or group_members(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        if process.stderr is not None and not process.stderr.closed:
            process.communicate()


def group_members(pgid: int) -> list[int]:
    """Live processes of a process group (zombies are dead: here nobody may reap an orphan's)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue   # gone meanwhile
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


def wait_group_gone(pgid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while members := group_members(pgid):
        assert time.monotonic() < deadline, f"processes {members} of the sidecar outlived it"
        time.sleep(0.05)


def send_buffered_traces(serve: Serve) -> None:
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{serve.ready['http_port']}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": "signals"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    for _ in range(TRACES):
        with instrument.rag_span("How long is the warranty?", tracer_provider=provider) as rag:
            rag.retrieved(["The warranty lasts 2 years from the date of purchase."])
            rag.answered("The warranty lasts 2 years.")
    provider.shutdown()
    asyncio.run(wait_metrics(serve.ready["metrics_port"],
                             lambda s: total(s, "ragmon_traces_in_flight") == TRACES))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["ctrl-c", "sigterm", "sighup"])
def test_a_signal_to_the_process_group_drains_quietly_and_exits_0(sig: signal.Signals) -> None:
    # Two workers: the ready line comes once both are spawned, though one alone may have answered the
    # warm-up; the other may still be starting when the signal comes.
    with serve_in_own_group(["--workers", "2", "--quiet", "30s", "--decision-wait", "60s"], {}) as serve:
        send_buffered_traces(serve)
        os.killpg(serve.process.pid, sig)
        err = serve.finish()
        wait_group_gone(serve.process.pid)
    assert serve.process.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = err.splitlines()
    # Nothing but ragmon's own log lines (no "Exception ignored ...", no resource_tracker warning), none
    # of them a warning or an error.
    assert all(line.startswith("{") for line in lines), err
    logs = [json.loads(line) for line in lines]
    assert {entry["level"] for entry in logs} == {"info"}, err
    # The workers outlived the signal: the drain scored all 3 buffered traces, none failed.
    assert [entry["outcomes"] for entry in logs if entry["message"] == "stopped"] == [{"scored": TRACES}]


def read_until(serve: Serve, message: str) -> list[dict[str, Any]]:
    """The JSON log lines after "ready", up to the first with `message`."""
    assert serve.process.stderr is not None
    logs: list[dict[str, Any]] = []
    while not logs or logs[-1]["message"] != message:
        line = serve.process.stderr.readline()
        assert line.startswith("{"), f"ragmon serve exited before logging {message!r}: {logs} {line}"
        logs.append(json.loads(line))
    return logs


def test_the_final_counts_are_logged_before_the_final_scrape_wait_which_a_kill_may_cut_short() -> None:
    # The kubelet's SIGKILL at the end of the grace period may come during --final-scrape-wait (an app
    # slow to stop: docs/deploy.md). Until then the drain's outcomes were on the "stopped" line only,
    # never written: the 3 buffered traces, scored by the drain, reached neither Prometheus nor the log.
    args = ["--workers", "1", "--quiet", "30s", "--decision-wait", "60s", "--final-scrape-wait", "60s"]
    with serve_in_own_group(args, {}) as serve:
        send_buffered_traces(serve)
        serve.process.send_signal(signal.SIGTERM)
        logs = read_until(serve, "waiting for a final scrape of /metrics")
        os.killpg(serve.process.pid, signal.SIGKILL)
        serve.finish()
    assert logs[-1].get("outcomes") == {"scored": TRACES}


def test_the_drain_deadline_counts_from_the_signal_not_from_the_receivers_close() -> None:
    # A stopped worker holds the 3 buffered traces past --drain-seconds 2, and an upload stalled after its
    # headers holds the OTLP/HTTP listener's close for its 1 s grace. The drain waited for that close: its
    # deadline came 3 s after the signal, 1 s more than the pod's grace period was sized for.
    args = ["--workers", "1", "--quiet", "30s", "--decision-wait", "60s", "--drain-seconds", "2s"]
    with serve_in_own_group(args, {}) as serve:
        send_buffered_traces(serve)
        (worker,) = next(entry["pids"] for entry in serve.startup
                         if entry["message"] == "lexical workers started")
        with socket.create_connection(("127.0.0.1", serve.ready["http_port"])) as stalled:
            stalled.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: ragmon\r\n"
                            b"Content-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\nabc")
            # A round trip through its event loop, which has read the stalled request's headers by then.
            asyncio.run(wait_metrics(serve.ready["metrics_port"], lambda _: True))
            os.kill(worker, signal.SIGSTOP)
            os.kill(serve.process.pid, signal.SIGTERM)
            logs = read_until(serve, "stopped")
    at = {entry["message"]: datetime.fromisoformat(entry["time"]) for entry in logs}
    (deadline,) = [entry for entry in logs if entry["message"].startswith("drain deadline passed")]
    assert deadline["count"] == TRACES
    assert logs[-1]["outcomes"] == {"error": TRACES}
    drained = (at[deadline["message"]] - at["draining"]).total_seconds()
    assert 2 <= drained < 2.7


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c-again", "sigterm-again"])
def test_the_signal_repeated_after_the_drain_changes_nothing(sig: signal.Signals) -> None:
    # A second Ctrl-C, or `timeout` signalling the process and then its group. Sent every 0.3 ms from the
    # end of the drain ("stopped") until the process is gone, so hundreds land while it exits, some in
    # gRPC's threads. (asyncio's handlers left a window in which 3 runs in 20 died of the signal.)
    with serve_in_own_group(["--workers", "2", "--grpc-listen", "127.0.0.1:0"], {}) as serve:
        assert serve.process.stderr is not None
        os.killpg(serve.process.pid, sig)
        lines: list[str] = []
        while not lines or json.loads(lines[-1])["message"] != "stopped":
            lines.append(serve.process.stderr.readline())
            assert lines[-1].startswith("{"), lines
        while serve.process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(serve.process.pid, sig)
            time.sleep(0.0003)
        err = serve.finish()
    assert serve.process.returncode == 0, err
    assert err == "", err


def test_workers_and_forkserver_do_not_outlive_a_killed_sidecar() -> None:
    # The workers ignore SIGINT and SIGTERM, so a later signal to the group would not end them either:
    # they must notice on their own that the main process is gone.
    with serve_in_own_group(["--workers", "2"], {}) as serve:
        started = next(entry for entry in serve.startup if entry["message"] == "lexical workers started")
        assert set(started["pids"]) <= set(group_members(serve.process.pid))
        serve.process.kill()
        serve.process.wait()
        wait_group_gone(serve.process.pid)


def startup_lines(args: list[str], env: dict[str, str]) -> list[tuple[str, str]]:
    """(level, message) of ragmon.service's log lines up to "ready"."""
    with serve_in_own_group(args, env) as serve:
        os.killpg(serve.process.pid, signal.SIGTERM)
        serve.finish()
    return [(e["level"], e["message"]) for e in serve.startup if e["logger"] == "ragmon.service"]


def startup_messages(args: list[str], env: dict[str, str]) -> list[tuple[str, str]]:
    """`startup_lines` but the memory bound's, which depends on the machine's cgroup limit (its own test)."""
    return [line for line in startup_lines(args, env) if not line[1].startswith(MEMORY)]


MEMORY = "memory: at most "


OFF = "judges: lexical on 100% of RAG traces; claude off (--llm-sample-rate 0)"
"""Defaults (DESIGN §6): --sample-rate 1.0, i.e. 100%; --llm-sample-rate 0, i.e. Claude off."""


def test_startup_names_the_judges_and_claude_is_off_by_default() -> None:
    assert startup_messages([], {}) == [("info", OFF), ("info", "ragmon serve ready")]


def test_an_api_key_with_claude_off_is_warned_about() -> None:
    messages = startup_messages([], {"ANTHROPIC_API_KEY": DUMMY_KEY})
    assert messages[0] == ("info", OFF)
    level, warning = messages[1]
    assert level == "warning"
    assert "ANTHROPIC_API_KEY is set but the Claude judge is off" in warning
    assert "--llm-sample-rate" in warning and "RAGMON_LLM_SAMPLE_RATE" in warning
    assert DUMMY_KEY not in warning
    assert messages[2:] == [("info", "ragmon serve ready")]


def test_a_misspelt_variable_is_warned_about_as_a_json_log_line() -> None:
    # With --log-format json the warning was a line of plain text before the first JSON one: a log
    # pipeline parsing each line as JSON dropped it, or the whole stream. RAGMON_CAPTURE_FILE (a path's
    # flag named for what it holds) got no hint at all.
    messages = startup_messages([], {"RAGMON_SAMPLERATE": "0.5", "RAGMON_CAPTURE_FILE": "/tmp/c.jsonl"})
    told = "{} is set, and read by no flag: did you mean {}? (ignored)"
    assert messages == [("warning", told.format("RAGMON_CAPTURE_FILE", "RAGMON_CAPTURE")),
                        ("warning", told.format("RAGMON_SAMPLERATE", "RAGMON_SAMPLE_RATE")),
                        ("info", OFF), ("info", "ragmon serve ready")]


def test_a_variable_the_command_line_replaces_is_warned_about_as_a_json_log_line() -> None:
    # The chart's RAGMON_PIPELINES and a --pipelines typed in the pod's command: the chart's names were
    # dropped without a word, their traces exported as "other".
    messages = startup_messages(["--pipelines", "search"], {"RAGMON_PIPELINES": "support,billing"})
    assert messages[0] == ("warning", "RAGMON_PIPELINES='support,billing' is replaced by --pipelines on the "
                                      "command line, not added to: its values are not used (give them all "
                                      "with --pipelines, or none)")


def test_claude_on_is_described_with_its_share_and_limits() -> None:
    # --sample-rate 0.5 is 50%, --llm-sample-rate 0.01 is 1%; the model, 30 calls a minute and 2.5 USD a
    # day as given. The base URL is a closed loopback port, though without traffic nothing is called.
    args = ["--sample-rate", "0.5", "--llm-sample-rate", "0.01", "--llm-max-per-minute", "30",
            "--llm-budget-usd-per-day", "2.5", "--llm-model", "claude-sonnet-5"]
    env = {"ANTHROPIC_API_KEY": DUMMY_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    assert startup_messages(args, env) == [
        ("info", "judges: lexical on 50% of RAG traces; claude (claude-sonnet-5) on 1% of RAG traces, "
                 "at most 30 calls a minute and 2.5 USD a day"),
        ("info", "ragmon serve ready"),
    ]


def test_startup_says_the_most_memory_its_settings_may_hold() -> None:
    # OTLP/HTTP on, gRPC off, Claude on: process 90 + buffer 256 + worker 80 + forkserver and tracker 26 +
    # trace ids 53.7 + Claude's SDK 60 + decoding 125 + bodies 48 = 738.7, 739 MiB (docs/deploy.md).
    env = {"ANTHROPIC_API_KEY": DUMMY_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    lines = [message for _, message in startup_lines(["--llm-sample-rate", "0.01"], env)]
    (memory,) = [message for message in lines if message.startswith(MEMORY)]
    assert memory.startswith("memory: at most 739 MiB with these settings (the process 90 MiB, ")
    assert "the Claude judge's SDK 60 MiB" in memory and "gRPC" not in memory
