"""`ragmon serve` refusing to start, or warning as it starts, as a deployment sees it: the real CLI in a
subprocess, set up as the image and the manifests set it up, through RAGMON_* variables, and with the JSON
log a pipeline reads.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


@contextmanager
def busy_port() -> Iterator[int]:
    """A loopback port another process holds, as an app's own exporter on 9464 would."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        yield busy.getsockname()[1]


def serve(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`ragmon serve` with only the RAGMON_* variables given; one that starts is a failed test (killed)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))}
    return subprocess.run([sys.executable, "-m", "ragmon.cli", "serve", *args], capture_output=True,
                          text=True, env={**environ, **env}, timeout=60)


@pytest.mark.parametrize(("variable", "flag", "what", "others", "then"), [
    ("RAGMON_METRICS_LISTEN", "--metrics-listen", "metrics", ["--http-listen", "127.0.0.1:0"], ""),
    ("RAGMON_HTTP_LISTEN", "--http-listen", "OTLP/HTTP", ["--metrics-listen", "127.0.0.1:0"],
     ", and send the app's traces there"),
    ("RAGMON_GRPC_LISTEN", "--grpc-listen", "OTLP/gRPC",
     ["--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
     ", and send the app's traces there"),
])
def test_a_busy_port_set_by_a_variable_names_the_variable(variable: str, flag: str, what: str,
                                                          others: list[str], then: str) -> None:
    # The image and the manifests set the listeners as variables: the user never typed the flag, and
    # "give --metrics-listen another port" sent them looking for a flag in no file of theirs.
    with busy_port() as port:
        done = serve([*(["--grpc-listen", "off"] if variable != "RAGMON_GRPC_LISTEN" else []), *others],
                     {variable: f"127.0.0.1:{port}"})
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"ragmon serve: error: cannot listen for {what} on 127.0.0.1:{port} ({variable}, "
                           f"{flag}): ")
    assert last.endswith(f"address already in use; another process holds that port (a second ragmon serve?): "
                         f"give {variable} another port{then}")


def test_a_busy_grpc_port_leaves_the_json_log_all_json() -> None:
    # gRPC's C core wrote its own "E1206 11:51:36 add_port.cc:83] Failed to add port to server: ..." line to
    # stderr beside the JSON lines: a log pipeline parsing them (jq, Loki) failed on it.
    with busy_port() as port:
        done = serve(["--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                      "--log-format", "json"], {"RAGMON_GRPC_LISTEN": f"127.0.0.1:{port}"})
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert lines[-1]["message"] == (
        f"cannot listen for OTLP/gRPC on 127.0.0.1:{port} (RAGMON_GRPC_LISTEN, --grpc-listen): address "
        "already in use; another process holds that port (a second ragmon serve?): give RAGMON_GRPC_LISTEN "
        "another port, and send the app's traces there")


def test_the_apps_otlp_endpoint_pasted_as_a_listener_is_refused_before_anything_starts() -> None:
    # The manifest's OTEL_EXPORTER_OTLP_ENDPOINT is a URL: given to RAGMON_HTTP_LISTEN, the sidecar started
    # its workers and then failed to resolve the host "http://127.0.0.1" ("Name or service not known").
    done = serve([], {"RAGMON_HTTP_LISTEN": "http://127.0.0.1:4318"})
    assert (done.returncode, done.stderr) == (
        2, "ragmon serve: error: RAGMON_HTTP_LISTEN='http://127.0.0.1:4318': not a listen address: "
           "'http://127.0.0.1:4318' (a URL: give its host:port alone, without 'http://')\n")


@pytest.mark.parametrize(("made", "why"), [
    ("directory", "Is a directory"),
    ("empty", "is empty"),
    ("missing", "No such file or directory"),
])
def test_a_token_file_set_by_a_variable_that_cannot_serve_names_the_variable(tmp_path: Path, made: str,
                                                                            why: str) -> None:
    # A secret mounted as a directory, or not at all: "cannot read the token file" named no setting, and
    # the manifest sets RAGMON_TOKEN_FILE, not --token-file.
    path = tmp_path / "token"
    if made == "directory":
        path.mkdir()
    elif made == "empty":
        path.write_text("\n", encoding="utf-8")
    done = serve(["--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--grpc-listen", "off"],
                 {"RAGMON_TOKEN_FILE": str(path)})
    told = ("the token file (RAGMON_TOKEN_FILE, --token-file) is empty" if made == "empty" else
            f"cannot read the token file (RAGMON_TOKEN_FILE, --token-file): {why}")
    assert (done.returncode, done.stderr) == (2, f"ragmon serve: error: {path}: {told}\n")


def test_a_busy_port_given_as_a_flag_still_names_the_flag() -> None:
    # The command line wins over the variable, and so does its name in the error.
    with busy_port() as port:
        done = serve(["--grpc-listen", "off", "--http-listen", "127.0.0.1:0", "--metrics-listen",
                      f"127.0.0.1:{port}"], {"RAGMON_METRICS_LISTEN": "127.0.0.1:0"})
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert f"on 127.0.0.1:{port} (--metrics-listen): " in last
    assert last.endswith("give --metrics-listen another port")


def test_with_json_logs_the_reason_it_cannot_start_is_a_json_error_line() -> None:
    # A log pipeline parses each line as an object and alerts on level: the one line that said why the
    # sidecar would not start was plain text, the only line of the run no JSON parser read.
    with busy_port() as port:
        done = serve(["--grpc-listen", "off", "--http-listen", "127.0.0.1:0", "--metrics-listen",
                      f"127.0.0.1:{port}"], {"RAGMON_LOG_FORMAT": "json"})
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert lines[-1]["level"] == "error"
    reason = f"cannot listen for metrics on 127.0.0.1:{port} (--metrics-listen): "
    assert lines[-1]["message"].startswith(reason)
    assert [line for line in lines if line["level"] == "error"] == lines[-1:]


LISTENING = ["--grpc-listen", "off", "--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
             "--log-format", "json"]
NOT_CAPTURED = "set without --capture: nothing is captured"
QUIET_IGNORED = "every trace is decided at --decision-wait, and --quiet has no effect"


def warnings_at_start(args: list[str], env: dict[str, str]) -> list[str]:
    """The messages of `ragmon serve`'s warning lines up to "ready", listening on loopback only."""
    lines = run_until_ready([*LISTENING, *args], env)
    return [line["message"] for line in lines if line["level"] == "warning"]


def test_a_ragmon_token_the_token_file_overrides_is_warned_about_without_showing_either(
        tmp_path: Path) -> None:
    # The file wins; a RAGMON_TOKEN left in the chart from before the secret was mounted was dropped without
    # a word, and every sender still given it got 401.
    token_file = tmp_path / "token"
    token_file.write_text("file-token\n", encoding="utf-8")
    args = ["--token-file", str(token_file)]
    assert warnings_at_start(args, {"RAGMON_TOKEN": "env-token"}) == [
        f"RAGMON_TOKEN is set, to another token than the token file {token_file} holds, and ignored: the "
        "file's token is required, so a sender given RAGMON_TOKEN's gets 401 (set the token in one place)"]
    # One token in two places: nothing lost.
    assert warnings_at_start(args, {"RAGMON_TOKEN": "file-token"}) == []


@pytest.mark.parametrize(("args", "env", "warned"), [
    (["--capture-below", "0.5"], {}, [f"--capture-below {NOT_CAPTURED}"]),
    (["--capture-max=64MiB", "--capture-b", "all"], {},
     [f"--capture-below and --capture-max-bytes {NOT_CAPTURED}"]),
    (["--capture-max-bytes", "64MiB"], {"RAGMON_CAPTURE_BELOW": "0.3"},
     [f"--capture-max-bytes {NOT_CAPTURED}"]),
    (["--final-scrape-wait", "30s", "--metrics-listen", "off"], {},
     ["--final-scrape-wait 30s is set with --metrics-listen off: there is no /metrics to wait for"]),
])
def test_a_setting_typed_without_what_it_needs_is_warned_of_at_any_value(
        args: list[str], env: dict[str, str], warned: list[str]) -> None:
    # `--capture-below 0.5`, its default, typed without --capture started without a word, as if it captured:
    # typed, at any value, written out or abbreviated, a flag is the user's choice. A variable beside it is
    # a default, left out of the warning.
    assert warnings_at_start(args, env) == warned


@pytest.mark.parametrize(("args", "env"), [
    ([], {"RAGMON_CAPTURE_BELOW": "0.3", "RAGMON_CAPTURE_MAX_BYTES": "1MiB"}),
    (["--metrics-listen", "off", "--final-scrape-wait", "0s"], {}),
])
def test_a_variable_set_for_every_replica_is_a_default_not_warned_of_where_it_has_no_effect(
        args: list[str], env: dict[str, str]) -> None:
    # RAGMON_CAPTURE_BELOW=0.3 set cluster-wide, for the replicas given --capture, warned on every start of
    # every other one. A final-scrape wait of 0 s, typed, waits for nothing, /metrics or not.
    assert warnings_at_start(args, env) == []


@pytest.mark.parametrize(("args", "env", "warned"), [
    ([], {"RAGMON_QUIET": "7s", "RAGMON_DECISION_WAIT": "5s"},
     "RAGMON_DECISION_WAIT 5s (--decision-wait) is no longer than RAGMON_QUIET 7s (--quiet): "
     f"{QUIET_IGNORED}"),
    (["--metrics-listen", "off"], {"RAGMON_FINAL_SCRAPE_WAIT": "30s"},
     "RAGMON_FINAL_SCRAPE_WAIT 30s (--final-scrape-wait) is set with --metrics-listen off: there is no "
     "/metrics to wait for"),
])
def test_a_clash_of_variables_every_replica_has_is_warned_of(args: list[str], env: dict[str, str],
                                                             warned: str) -> None:
    # The manifests set every setting as a variable, and the runbook tunes RAGMON_QUIET: every replica has
    # both values, so the clash is every replica's (no default makes one), unlike a capture setting only
    # replicas with --capture use.
    assert warnings_at_start(args, env) == [warned]


@pytest.mark.parametrize(("args", "env", "warned"), [
    (["--decision-wait", "1s"], {"RAGMON_QUIET": "5s"},
     f"--decision-wait 1s is no longer than RAGMON_QUIET 5s (--quiet): {QUIET_IGNORED}"),
    (["--quiet", "2s"], {"RAGMON_DECISION_WAIT": "2s"},
     f"RAGMON_DECISION_WAIT 2s (--decision-wait) is no longer than --quiet 2s: {QUIET_IGNORED}"),
])
def test_a_quiet_period_a_typed_flag_leaves_without_effect_names_the_variable_of_the_other(
        args: list[str], env: dict[str, str], warned: str) -> None:
    # Either flag typed makes the clash this replica's: the one it clashes with came from the chart, and the
    # warning named a --quiet 5s, or a --decision-wait 2s, typed nowhere.
    assert warnings_at_start(args, env) == [warned]


def test_a_capture_below_0_from_a_variable_with_capture_on_names_the_variable(tmp_path: Path) -> None:
    # With --capture on here, the variable is the threshold in force: nothing is captured, wherever it came
    # from, and the warning named a --capture-below 0 typed nowhere.
    env = {"RAGMON_CAPTURE": str(tmp_path / "captured.jsonl"), "RAGMON_CAPTURE_BELOW": "0"}
    assert warnings_at_start([], env) == [
        "RAGMON_CAPTURE_BELOW 0 (--capture-below) captures nothing: no groundedness is below 0 (use 'all' "
        "for every example)"]


def run_until_ready(args: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    """The JSON log lines of a `ragmon serve` run up to "ready"; the process is stopped before returning."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))}
    process = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "serve", *args], stderr=subprocess.PIPE,
                               text=True, env={**environ, **env})
    lines: list[dict[str, Any]] = []
    try:
        assert process.stderr is not None
        while not lines or lines[-1]["message"] != "ragmon serve ready":
            line = process.stderr.readline()
            assert line, f"ragmon serve exited before it was ready: {lines}"
            lines.append(json.loads(line))
    finally:
        process.terminate()
        process.communicate(timeout=30)
    return lines
