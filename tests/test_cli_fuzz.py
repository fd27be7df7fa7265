"""Property: any string given to any flag of `replay`, `serve` or `calibrate`, on the command line or
through its RAGMON_* variable, either parses or is refused argparse's way (exit 2, one line naming the
flag or the variable); and a value that parses does not break the command as it starts: replay and
calibrate run to exit 0, 1 or 2 with no traceback, serve's settings build the sidecar (short of binding).

The flags are read from the parsers, so a flag added later is fuzzed too. Values are drawn shaped like
each kind (durations of 400 digits, ports past 65535, hosts with an empty label, non-ASCII digits, `off`,
`all`) and as any text. Paths are kept inside the example's own directory.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ragmon.capture import ALL
from ragmon.cli import UsageError, build_parser, main, variable
from ragmon.errors import InputError
from ragmon.options import given_file, given_path
from ragmon.replay import _target
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar, lexical_lane

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
COMMANDS = ("replay", "serve", "calibrate")


def flags(command: str) -> list[argparse.Action]:
    """Every option of the subcommand that takes a value, as its parser defines them."""
    parser = build_parser(command, {})
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return [a for a in sub._actions if a.option_strings and a.nargs != 0]


FLAGS = [(command, action.option_strings[-1], action) for command in COMMANDS for action in flags(command)]


def is_path(action: argparse.Action) -> bool:
    return action.type in (Path, given_path, given_file)


NO_NUL = st.one_of(st.characters(codec=None, exclude_characters="\x00", exclude_categories=["Cs"]),
                   st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF))
"""What a command line or an environment value can hold: any character but NUL, and the lone surrogates
Python reads undecodable bytes as."""
DIGITS = st.integers(1, 420).map(lambda n: "1" + "0" * n)
NUMBERS = st.one_of(st.integers().map(str), st.floats().map(repr), DIGITS, st.sampled_from(
    ["1e400", "-0", "0x10", "1_000", "\u0663", "\u00b2", " 7 ", "nan", "inf"]))
UNITS = st.sampled_from(["", "ms", "s", "m", "h", "d", "b", "KiB", "MiB", "GiB", "kb", " s"])
HOSTS = st.one_of(st.sampled_from(["", "127.0.0.1", "::1", "[::1]", "[::1", "a..b", ".", "a" * 64, "\udcff",
                                   "0.0.0.0", "localhost", "x y", "[", "off"]), st.text(NO_NUL, max_size=8))
PORTS = st.one_of(st.sampled_from(["0", "65535", "65536", "-1", "\u00b2", "\u0664\u0663", "", "99999999999"]),
                  st.integers(0, 70000).map(str))
VALUES = st.one_of(
    st.text(NO_NUL, max_size=30),
    st.builds(lambda n, u: n + u, NUMBERS, UNITS),
    st.builds(lambda h, p: f"{h}:{p}", HOSTS, PORTS),
    st.sampled_from(["", " ", "off", "OFF", "all", " all ", "lexical", "claude", "fail", "json",
                     "groundedness=0.8", "recall=nan", "a=b=c", "=", ",", "a,,b", "other", "unknown",
                     "http://127.0.0.1:9/ask", "http://[::1", "http://127.0.0.1:0/", "ftp://x/", "http://:80/"]),
)
PATHS = st.one_of(st.sampled_from(["", ".", "dir", "dir/", "golden.jsonl", "new/deep/r.json", "r.json"]),
                  st.text(st.characters(codec="ascii", exclude_characters="/.", exclude_categories=["Cc"]),
                          min_size=1, max_size=12))
"""Relative and free of `..`: the example's directory, a directory, the input itself, a new file. No
control character: errors name a file as it is spelt (a newline in a file name would split the line)."""

GOLDEN = {"id": "g1", "question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is in Paris.",
          "contexts": [{"id": "d1", "text": "The Eiffel Tower is in Paris."}], "relevant_ids": ["d1"]}
LABELLED = {**GOLDEN, "labels": {"hallucinated": False, "spans": []}}


@pytest.fixture
def quiet_env() -> Iterator[None]:
    """No RAGMON_*, no Anthropic key (the Claude judge must fail to start, never call out), no CI summary."""
    kept = {k: v for k, v in os.environ.items()
            if not k.startswith(("RAGMON_", "ANTHROPIC_", "GITHUB_", "OTEL_"))}
    with mock.patch.dict(os.environ, kept, clear=True):
        yield


def one_line_error(err: str, command: str) -> str:
    """The error line of a run that stopped with exit 2 (after argparse's usage line, when it refused)."""
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.splitlines()
    if lines and lines[0].startswith("usage: "):  # argparse's, wrapped with an indent
        lines = lines[1:]
        while lines and lines[0].startswith(" "):
            lines = lines[1:]
    assert len(lines) == 1 and lines[0].startswith(f"ragmon {command}: error: "), err
    return lines[0]


def parse(command: str, flag: str, value: str, how: str) -> argparse.Namespace | UsageError:
    environ = {variable(command, flag): value} if how == "env" else {}
    argv = [command] + ([] if command == "serve" else ["golden.jsonl"])
    argv += [f"{flag}={value}"] if how == "argv" else []
    try:
        return build_parser(command, environ).parse_args(argv)
    except UsageError as exc:
        return exc


def check_settings(args: argparse.Namespace) -> None:
    """What every consumer needs of a parsed value: a finite number, a host the resolver can take."""
    for name, value in vars(args).items():
        if isinstance(value, float):
            assert math.isfinite(value) or (name == "capture_below" and value == ALL), (name, value)
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], int):
            host, port = value
            host.encode("idna")
            assert 0 <= port <= 65535


@given(flag=st.sampled_from(FLAGS), data=st.data(), how=st.sampled_from(["argv", "env"]))
@settings(FUZZ, max_examples=1000)
def test_any_value_of_any_flag_parses_or_is_refused_naming_it(flag: tuple[str, str, argparse.Action],
                                                              data: st.DataObject, how: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    command, option, action = flag
    value = data.draw(PATHS if is_path(action) else VALUES, label="value")
    parsed = parse(command, option, value, how)
    if isinstance(parsed, UsageError):
        event(f"refused ({how})")
        assert "\n" not in parsed.message
        assert (option if how == "argv" else variable(command, option)) in parsed.message, parsed.message
        return
    event(f"accepted ({how})")
    check_settings(parsed)
    if command == "replay" and parsed.target is not None:
        try:
            _target(parsed)
        except InputError as exc:
            event("--target refused")
            assert "\n" not in str(exc)
    if command == "serve":
        try:
            config = ServeConfig.from_args(parsed)
        except InputError as exc:
            assert "\n" not in str(exc)
            return
        Sidecar(config, [lexical_lane(config)])  # every setting the sidecar takes, short of binding


RUNNABLE = [f for f in FLAGS if f[0] != "serve" and f[1] != "--target"]


@given(flag=st.sampled_from(RUNNABLE), data=st.data(), how=st.sampled_from(["argv", "env"]))
@settings(FUZZ, max_examples=150)
def test_a_value_that_parses_runs_to_an_exit_status_without_a_traceback(
        flag: tuple[str, str, argparse.Action], data: st.DataObject, how: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], quiet_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """replay and calibrate for real, in process, on one example (--target left out: it would ask
    whatever host the value names; its URL is checked by tests/test_replay_target.py)."""
    command, option, action = flag
    value = data.draw(PATHS if is_path(action) else VALUES, label="value")
    directory = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    (directory / "dir").mkdir(parents=True)
    (directory / "golden.jsonl").write_text(json.dumps(LABELLED) + "\n", encoding="utf-8")
    monkeypatch.chdir(directory)
    argv = [command, "golden.jsonl"] + (["--judge=lexical"] if command == "calibrate" and option != "--judge"
                                        else [])
    with mock.patch.dict(os.environ, {variable(command, option): value} if how == "env" else {}):
        status = main(argv + ([f"{option}={value}"] if how == "argv" else []))
    err = capsys.readouterr().err
    assert status in (0, 1, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    if status == 2:
        why = one_line_error(err, command).split(": ")[2]
        event(f"exit 2: {why.split()[0] if why.startswith(('argument', 'RAGMON')) else why[:30]}")
    else:
        event(f"exit {status}")


# --- regressions: values each type accepted, that broke the command as it started ----------------------

TOO_LONG = "1" + "0" * 400
"""A duration float() turns into inf."""


@pytest.mark.parametrize(("command", "flag", "value", "why"), [
    ("replay", "--target-timeout", TOO_LONG, "too long a duration"),  # was: OverflowError in aiohttp
    ("replay", "--target-timeout", "0s", "must be longer than 0"),  # was: aiohttp's "no timeout at all"
    ("serve", "--window", "0", "must be longer than 0"),  # was: ValueError from the window collector
    ("serve", "--quiet", TOO_LONG, "too long a duration"),
    ("serve", "--http-listen", "a..b:4318", "not a host name"),  # was: UnicodeError from the resolver
    ("replay", "--receiver-listen", "." + ":0", "not a host name"),
    ("serve", "--metrics-listen", "x" * 64 + ":9464", "not a host name"),
    ("serve", "--grpc-listen", "localhost:\u00b2", "not a listen address"),  # was: int()'s own words
    ("serve", "--capture", ".", "not a file"),  # was: ValueError from FILE.1's name as the sidecar starts
])
@pytest.mark.parametrize("how", ["argv", "env"])
def test_a_value_that_would_break_start_up_is_refused_naming_the_flag(command: str, flag: str, value: str,
                                                                      why: str, how: str) -> None:
    refused = parse(command, flag, value, how)
    assert isinstance(refused, UsageError)
    named = f"argument {flag}: " if how == "argv" else f"{variable(command, flag)}={value!r}: "
    assert refused.message.startswith(named) and why in refused.message, refused.message


def test_an_empty_capture_variable_is_no_capture_as_an_empty_baseline_is_no_baseline() -> None:
    # A chart's RAGMON_CAPTURE left blank was the current directory, and the sidecar died building it.
    parsed = parse("serve", "--capture", "", "env")
    assert isinstance(parsed, argparse.Namespace) and parsed.capture is None
    config = ServeConfig.from_args(parsed)
    Sidecar(config, [lexical_lane(config)])


def test_a_huge_target_timeout_exits_2_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   quiet_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Accepted, it reached aiohttp as inf and came out as an OverflowError traceback at the first question.
    monkeypatch.chdir(tmp_path)
    Path("golden.jsonl").write_text(json.dumps({"id": "a", "question": "q"}) + "\n", encoding="utf-8")
    status = main(["replay", "golden.jsonl", "--target", "http://127.0.0.1:9/ask", "--receiver-listen",
                   "127.0.0.1:0", "--trace-wait", "0s", "--target-retries", "0",
                   "--target-timeout", TOO_LONG])
    err = capsys.readouterr().err
    assert status == 2
    assert one_line_error(err, "replay") == (
        f"ragmon replay: error: argument --target-timeout: too long a duration: '{TOO_LONG}'")


def test_serve_with_a_host_the_resolver_refuses_exits_2_on_one_line(tmp_path: Path) -> None:
    # The real sidecar, killed by this test if it ever started: it used to bind the metrics listener,
    # then die on the HTTP one with a UnicodeError traceback.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "OTEL_"))}
    env["RAGMON_HTTP_LISTEN"] = "a..b:0"
    process = subprocess.Popen([sys.executable, "-m", "ragmon.cli", "serve", "--grpc-listen", "off",
                                "--metrics-listen", "127.0.0.1:0"], cwd=tmp_path, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2
    assert one_line_error(err, "serve") == (
        "ragmon serve: error: RAGMON_HTTP_LISTEN='a..b:0': not a host name: 'a..b' in 'a..b:0'")
