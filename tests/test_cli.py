"""The `ragmon` command itself: dispatch, RAGMON_* environment defaults, errors without tracebacks."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from ragmon import __version__, replay
from ragmon.cli import _apply_env_defaults, main


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-traces", type=int, default=20_000)
    parser.add_argument("--gate", action="append", default=[])
    parser.add_argument("--quiet", action="store_true")
    return parser


def test_every_flag_reads_its_environment_variable_and_the_command_line_wins() -> None:
    parser = _parser()
    _apply_env_defaults(parser, {"RAGMON_MAX_TRACES": "5000", "RAGMON_GATE": "groundedness=0.8,recall=0.5",
                                 "RAGMON_QUIET": "true"})
    args = parser.parse_args([])
    # argparse applies `type` to string defaults, so the environment's "5000" arrives as an int.
    assert (args.max_traces, args.gate, args.quiet) == (5000, ["groundedness=0.8", "recall=0.5"], True)
    assert parser.parse_args(["--max-traces", "7"]).max_traces == 7
    # A repeatable flag on the command line replaces the environment's values, it does not add to them.
    assert parser.parse_args(["--gate", "mrr=0.5", "--gate", "ndcg=0.4"]).gate == ["mrr=0.5", "ndcg=0.4"]
    assert parser.parse_args([]).gate == ["groundedness=0.8", "recall=0.5"]  # and they are not used up


def test_unset_variables_leave_the_defaults() -> None:
    parser = _parser()
    _apply_env_defaults(parser, {"OTHER": "1", "RAGMON_QUIET": "no"})
    args = parser.parse_args([])
    assert (args.max_traces, args.gate, args.quiet) == (20_000, [], False)


def test_a_switch_variable_that_is_neither_on_nor_off_is_refused_naming_it(capsys) -> None:
    # "2s" is what `serve --quiet` takes: set for serve, it must not silently switch replay's --quiet off.
    for value in ("2s", "ture"):
        with pytest.raises(SystemExit) as exit_:
            _apply_env_defaults(_parser(), {"RAGMON_QUIET": value})
        assert exit_.value.code == 2
        assert f"RAGMON_QUIET={value!r}" in capsys.readouterr().err
    for value, on in (("ON", True), (" 1 ", True), ("off", False), ("0", False), ("", False)):
        parser = _parser()
        _apply_env_defaults(parser, {"RAGMON_QUIET": value})
        assert parser.parse_args([]).quiet is on


def test_top_level_help_is_plain_text_naming_every_subcommand(ragmon_cmd: list[str]) -> None:
    result = subprocess.run([*ragmon_cmd, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    assert "`" not in result.stdout  # Markdown from a docstring read literally on a terminal
    assert all(name in result.stdout for name in ("serve", "replay", "calibrate", "demo"))


def test_a_missing_dependency_exits_2_not_1(tmp_path) -> None:
    # As in a CI image where protobuf (package "google") was not installed: the replay command cannot be
    # loaded. Python's own exit status would be 1, "a gate was breached"; the run did not even start.
    code = ("import sys; sys.modules['google'] = None; from ragmon.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    result = subprocess.run([sys.executable, "-c", code, "replay", str(tmp_path / "golden.jsonl")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("ragmon replay: error: cannot load the replay command: ")
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("missing", "args", "message"), [
    ("grpc", ["serve", "--help"], "the serve command needs the 'serve' extra: pip install 'ragmon[serve]'"),
    # The Claude lane is built before any listener binds; port 0 all the same, should that change.
    ("anthropic", ["serve", "--llm-sample-rate", "0.5", "--http-listen", "127.0.0.1:0",
                   "--grpc-listen", "off", "--metrics-listen", "127.0.0.1:0"],
     "the Claude judge needs the 'claude' extra: pip install 'ragmon[claude]'"),
], ids=["serve", "serve-llm-sample-rate"])
def test_a_missing_extra_is_named_in_one_line(missing: str, args: list[str], message: str) -> None:
    # As after `pip install ragmon` without the extra (tests/deploy/test_core_install.py installs it so):
    # the module cannot be imported.
    code = (f"import sys; sys.modules[{missing!r}] = None; from ragmon.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60,
                            check=False, env=env)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith(f"ragmon serve: error: {message} (import of {missing} halted")
    assert len(result.stderr.splitlines()) == 1


def test_python_dash_m_ragmon_runs_the_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "ragmon", "--version"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert (result.returncode, result.stdout.strip()) == (0, f"ragmon {__version__}")


def test_version(ragmon_cmd: list[str]) -> None:
    result = subprocess.run([*ragmon_cmd, "--version"], capture_output=True, text=True, timeout=60,
                            check=False)
    assert (result.returncode, result.stdout.strip()) == (0, f"ragmon {__version__}")


def test_a_user_error_is_one_line_and_exit_2(ragmon_cmd: list[str], tmp_path) -> None:
    missing = tmp_path / "nope.jsonl"
    result = subprocess.run([*ragmon_cmd, "replay", str(missing)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert str(missing) in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_error_naming_a_file_with_a_newline_or_an_escape_stays_one_line(ragmon_cmd: list[str],
                                                                           tmp_path) -> None:
    # A file name may hold any byte but "/" and NUL; the message shows a newline and ESC as Python writes
    # them ("\\n", "\\x1b"), so the error is one line and the terminal is not restyled.
    missing = tmp_path / "golden\n\x1b[31mred.jsonl"
    result = subprocess.run([*ragmon_cmd, "replay", str(missing)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "\x1b" not in result.stderr
    assert "golden\\n\\x1b[31mred.jsonl" in result.stderr


@pytest.mark.parametrize("command", ["replay", "serve", "calibrate", "demo"])
def test_an_unknown_flag_is_refused_with_its_commands_usage(ragmon_cmd: list[str], tmp_path,
                                                            command: str) -> None:
    # The usage line must be the command's, whose flags the user is looking for: the top-level one
    # (`usage: ragmon [-h] [--version] COMMAND ...`) names none of them.
    dataset = ["g.jsonl"] if command in ("replay", "calibrate") else []
    result = subprocess.run([*ragmon_cmd, command, *dataset, "--bogus"], capture_output=True, text=True,
                            timeout=60, check=False, cwd=tmp_path,
                            env={k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"usage: ragmon {command} [-h] ")
    assert result.stderr.endswith(f"\nragmon {command}: error: unrecognized arguments: --bogus\n")


def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(ragmon_cmd: list[str]) -> None:
    result = subprocess.run([*ragmon_cmd, "serve"], capture_output=True, text=True, timeout=60,
                            check=False, env={"RAGMON_MAX_TRACES": "many", "PATH": ""})
    assert result.returncode == 2
    assert "RAGMON_MAX_TRACES='many'" in result.stderr and "Traceback" not in result.stderr


def test_an_environment_value_outside_the_choices_is_refused() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-format", choices=("json", "text"), default="text")
    with pytest.raises(SystemExit) as exit_info:
        _apply_env_defaults(parser, {"RAGMON_LOG_FORMAT": "xml"})
    assert exit_info.value.code == 2


def test_a_bug_is_exit_2_with_its_traceback_never_the_gate_breached_1(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      tmp_path) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(replay, "run", broken)
    assert main(["replay", str(tmp_path / "golden.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: a bug" in err
    assert err.rstrip().endswith("ragmon replay: internal error (a bug in ragmon: please report it with the "
                                 "traceback above)")
