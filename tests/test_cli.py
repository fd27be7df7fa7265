"""The `ragmon` command itself: dispatch, RAGMON_* environment defaults, errors without tracebacks."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from dropped_signals import drop_a_sigterm

from ragmon import __version__, replay
from ragmon.cli import (
    SUBCOMMANDS,
    Terminated,
    UsageError,
    _apply_env_defaults,
    _Parser,
    build_parser,
    main,
    terminated_on_signal,
    variable,
)
from ragmon.model import METRIC_NAMES
from ragmon.options import FROM_ENVIRONMENT, TYPED, flag_of

ROOT = Path(__file__).resolve().parent.parent


def _parser() -> _Parser:
    parser = _Parser()
    parser.add_argument("--max-traces", type=int, default=20_000)
    parser.add_argument("--gate", action="append", default=[])
    parser.add_argument("--quiet", action="store_true")
    return parser


def test_every_flag_reads_its_environment_variable_and_the_command_line_wins() -> None:
    parser = _parser()
    _apply_env_defaults(parser, {"RAGMON_MAX_TRACES": "5000", "RAGMON_GATE": "groundedness=0.8,recall=0.5",
                                 "RAGMON_QUIET": "true"}, None)
    args = parser.parse_args([])
    # argparse applies `type` to string defaults, so the environment's "5000" arrives as an int.
    assert (args.max_traces, args.gate, args.quiet) == (5000, ["groundedness=0.8", "recall=0.5"], True)
    assert parser.parse_args(["--max-traces", "7"]).max_traces == 7
    # A repeatable flag on the command line replaces the environment's values, it does not add to them.
    assert parser.parse_args(["--gate", "mrr=0.5", "--gate", "ndcg=0.4"]).gate == ["mrr=0.5", "ndcg=0.4"]
    assert parser.parse_args([]).gate == ["groundedness=0.8", "recall=0.5"]  # and they are not used up


def _one_example(tmp_path: Path) -> Path:
    data = tmp_path / "g.jsonl"
    data.write_text('{"id": "a", "question": "q", "answer": "Paris.", "contexts": ["Paris."]}\n')
    return data


def _without_ragmon_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's environment holds no RAGMON_* variable but those it sets (a developer's shell may)."""
    for name in [k for k in os.environ if k.startswith("RAGMON_")]:
        monkeypatch.delenv(name)


def test_a_repeatable_flags_variable_the_command_line_replaces_is_warned_about(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    # A CI job's RAGMON_GATE and a developer's --gate: the run gated on recall alone, and the groundedness
    # gate the job set was dropped without a word (a README walkthrough's finding).
    data = _one_example(tmp_path)
    _without_ragmon_variables(monkeypatch)
    monkeypatch.setenv("RAGMON_GATE", "groundedness=0.8,mrr=0.5")
    assert main(["replay", str(data), "--quiet", "--gate", "groundedness=0.5"]) == 0
    assert [line for line in capsys.readouterr().err.splitlines() if "RAGMON_GATE" in line] == [
        "ragmon replay: warning: RAGMON_GATE='groundedness=0.8,mrr=0.5' is replaced by --gate on the command "
        "line, not added to: its values are not used (give them all with --gate, or none)"]
    # The variable alone is used, and says nothing.
    assert main(["replay", str(data), "--quiet"]) == 1  # mrr is undefined here: the gate fails
    assert "RAGMON_GATE" not in capsys.readouterr().err


def test_unset_variables_leave_the_defaults() -> None:
    parser = _parser()
    _apply_env_defaults(parser, {"OTHER": "1", "RAGMON_QUIET": "no"}, None)
    args = parser.parse_args([])
    assert (args.max_traces, args.gate, args.quiet) == (20_000, [], False)


def test_a_switch_variable_that_is_neither_on_nor_off_is_refused_naming_it() -> None:
    # A typo must not switch the flag off without a word.
    for value in ("2s", "ture"):
        parser = _parser()
        _apply_env_defaults(parser, {"RAGMON_QUIET": value}, None)
        with pytest.raises(UsageError) as refused:
            parser.parse_args([])
        assert refused.value.message == (f"RAGMON_QUIET={value!r}: not on or off (use 1, true, yes, on or 0, "
                                         f"false, no, off)")
    for value, on in (("ON", True), (" 1 ", True), ("off", False), ("0", False), ("", False)):
        parser = _parser()
        _apply_env_defaults(parser, {"RAGMON_QUIET": value}, None)
        assert parser.parse_args([]).quiet is on


def test_top_level_help_is_plain_text_naming_every_subcommand(ragmon_cmd: list[str]) -> None:
    result = subprocess.run([*ragmon_cmd, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    assert "`" not in result.stdout  # Markdown from a docstring read literally on a terminal
    assert all(name in result.stdout for name in ("serve", "replay", "calibrate", "demo"))


@pytest.mark.parametrize(("missing", "dataset", "error"), [
    # A module of ragmon's own lost (a broken install): the replay command cannot be loaded.
    ("ragmon.baseline", "golden.jsonl", "cannot load the replay command: "),
    # protobuf (package "google") not installed: replay loads (it needs protobuf for recorded traces
    # alone), and recorded traces cannot be decoded.
    ("google", "traces.otlp.jsonl", "cannot read recorded traces: "),
], ids=["ragmon-module", "protobuf"])
def test_a_missing_dependency_exits_2_not_1(tmp_path: Path, missing: str, dataset: str, error: str) -> None:
    # As in a CI image missing a dependency. Python's own exit status would be 1, "a gate was breached"; the
    # run did not complete.
    (tmp_path / dataset).write_text('{"resourceSpans": []}\n', encoding="utf-8")
    code = (f"import sys; sys.modules[{missing!r}] = None; from ragmon.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    result = subprocess.run([sys.executable, "-c", code, "replay", str(tmp_path / dataset)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"ragmon replay: error: {error}")
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


@pytest.mark.parametrize(("command", "typed", "told"), [
    ("serve", ["--sample_rate", "0.5"], "--sample_rate 0.5 (did you mean --sample-rate for --sample_rate?)"),
    ("serve", ["--samplerate=0.5"], "--samplerate=0.5 (did you mean --sample-rate for --samplerate?)"),
    ("serve", ["--http-listn", ":0", "--wrkers", "2"],
     "--http-listn :0 --wrkers 2 (did you mean --http-listen for --http-listn, --workers for --wrkers?)"),
    ("replay", ["g.jsonl", "--gates", "recall=0.5"], "--gates recall=0.5 (did you mean --gate for --gates?)"),
    ("replay", ["g.jsonl", "--bogus"], "--bogus"),  # nothing near it: nothing guessed
])
def test_an_unknown_flag_near_a_real_one_names_the_real_one(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str, typed: list[str],
        told: str) -> None:
    # The refusal named only what was typed: the user searched a 30-line usage for the spelling.
    for name in [name for name in os.environ if name.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    assert main([command, *typed]) == 2
    assert capsys.readouterr().err.endswith(f"\nragmon {command}: error: unrecognized arguments: {told}\n")


@pytest.mark.parametrize(("typed", "told"), [
    (["g.jsonl", "--gate", "groundedness", "0.85"], "--gate groundedness 0.85: write it as one argument, "
                                                    "--gate groundedness=0.85"),
    # Before the dataset: the number had been read as a dataset and the gate told of a shell redirection.
    (["--gate", "groundedness", "0.85", "g.jsonl"], "--gate groundedness 0.85: write it as one argument, "
                                                    "--gate groundedness=0.85"),
    (["g.jsonl", "--gate=groundedness", "0.85"], "--gate groundedness 0.85: write it as one argument, "
                                                 "--gate groundedness=0.85"),
    (["g.jsonl", "--ga", "recall", "0.5"], "--gate recall 0.5: write it as one argument, --gate recall=0.5"),
    (["g.jsonl", "--max-drop", "hallucination_rate", "5%"],
     "--max-drop hallucination_rate 5%: write it as one argument, --max-drop hallucination_rate=0.05"),
    # A name ragmon does not have is told in the same line, so one fix does it.
    (["g.jsonl", "--gate", "ground", "0.8"],
     "--gate ground 0.8: write it as one argument, --gate ground=0.8; unknown metric 'ground' (did you mean "
     "'groundedness'?); valid names: " + ", ".join(METRIC_NAMES)),
])
def test_a_gate_typed_as_two_arguments_is_told_to_join_them(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, typed: list[str],
        told: str) -> None:
    # It was argparse's usage and "unrecognized arguments: 0.85", naming no --gate; one line now, as every
    # refused gate is.
    for name in [name for name in os.environ if name.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    assert main(["replay", *typed]) == 2
    assert capsys.readouterr().err == f"ragmon replay: error: {told}\n"


@pytest.mark.parametrize(("typed", "told"), [
    # Already NAME=VALUE: the number after it is a stray argument, as before.
    (["g.jsonl", "--gate", "groundedness=0.8", "0.85"], "unrecognized arguments: 0.85"),
    # No number after the name: the unquoted `groundedness>=0.85` the shell cut short, as before.
    (["--gate", "groundedness", "g.jsonl"], "--gate expects NAME=VALUE, got 'groundedness' (if you typed "
                                            "groundedness>=VALUE unquoted"),
    # After `--`, every argument is a dataset.
    (["--", "--gate", "groundedness", "0.85"], "cannot read dataset"),
])
def test_a_gate_not_split_in_two_is_refused_as_before(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        typed: list[str], told: str) -> None:
    for name in [name for name in os.environ if name.startswith("RAGMON_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    assert main(["replay", *typed]) == 2
    err = capsys.readouterr().err
    assert told in err and "write it as one argument" not in err


def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(ragmon_cmd: list[str]) -> None:
    result = subprocess.run([*ragmon_cmd, "serve"], capture_output=True, text=True, timeout=60,
                            check=False, env={"RAGMON_MAX_TRACES": "many", "PATH": ""})
    # One line: the command line was fine, so its 40-line usage would only bury the variable's name.
    assert (result.returncode, result.stderr) == (
        2, "ragmon serve: error: RAGMON_MAX_TRACES='many': not a whole number: 'many'\n")


def test_a_blank_variable_is_an_unset_one() -> None:
    # A chart's `value: ""` or an empty CI variable means the default, as for the OpenTelemetry SDK's own
    # variables: not a refused number, nor a report written to the file `.`.
    parser = _Parser()
    parser.add_argument("--sample-rate", type=float, default=1.0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--log-format", choices=("json", "text"), default="text")
    blank = {"RAGMON_SAMPLE_RATE": "", "RAGMON_JSON": "", "RAGMON_LOG_FORMAT": "  "}
    _apply_env_defaults(parser, blank, None)
    args = parser.parse_args([])
    assert (args.sample_rate, args.json, args.log_format) == (1.0, None, "text")
    assert getattr(args, FROM_ENVIRONMENT) == {}


def test_a_blank_token_file_variable_is_refused_not_read_as_no_authentication() -> None:
    parser = build_parser("serve", {"RAGMON_TOKEN_FILE": " "})
    with pytest.raises(UsageError) as refused:
        parser.parse_args(["serve"])
    assert refused.value.message == "RAGMON_TOKEN_FILE is set but empty: unset it, or name the file"
    assert refused.value.usage is False


def test_an_environment_value_outside_the_choices_is_refused() -> None:
    parser = _Parser()
    parser.add_argument("--log-format", choices=("json", "text"), default="text")
    _apply_env_defaults(parser, {"RAGMON_LOG_FORMAT": "xml"}, None)
    with pytest.raises(UsageError) as refused:
        parser.parse_args([])
    assert refused.value.message == "RAGMON_LOG_FORMAT='xml': choose from json, text"


def test_an_environment_choice_is_read_as_a_word_and_a_wrong_item_is_named() -> None:
    # "skip " and "lexical, claude" (a space after the comma, as for --gate and --pipelines) had been
    # refused with the value quoted whole, the item at fault unsaid.
    parser = _Parser()
    parser.add_argument("--judge-errors", choices=("fail", "skip"), default="fail")
    parser.add_argument("--judge", choices=("lexical", "claude"), action="append")
    _apply_env_defaults(parser, {"RAGMON_JUDGE_ERRORS": "skip ", "RAGMON_JUDGE": "lexical, claude"}, None)
    parsed = parser.parse_args([])
    assert (parsed.judge_errors, parsed.judge) == ("skip", ["lexical", "claude"])
    _apply_env_defaults(parser, {"RAGMON_JUDGE": "lexical, klaude"}, None)
    with pytest.raises(UsageError) as refused:
        parser.parse_args([])
    assert refused.value.message == ("RAGMON_JUDGE='lexical, klaude': choose from lexical, claude, not "
                                     "'klaude'")


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


def test_a_bug_in_reading_the_command_line_is_exit_2_too(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    # A NameError while the parser was built (a flag's type misnamed) left through Python's own exit 1.
    def broken(parser: argparse.ArgumentParser) -> None:
        raise NameError("name 'report_path' is not defined")

    monkeypatch.setattr(replay, "_add_report_arguments", broken)
    assert main(["replay", str(tmp_path / "golden.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "NameError: name 'report_path' is not defined" in err
    assert err.rstrip().endswith("ragmon replay: internal error (a bug in ragmon: please report it with the "
                                 "traceback above)")


def test_a_near_miss_of_a_variable_is_warned_about_and_other_commands_variables_are_not(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    # RAGMON_SAMPLERATE=0.5 was ignored without a word: the sidecar scored all traffic. The same
    # environment holds other commands' variables (serve's RAGMON_SAMPLE_RATE beside a CI's gate).
    data = _one_example(tmp_path)
    _without_ragmon_variables(monkeypatch)
    monkeypatch.setenv("RAGMON_GATES", "groundedness=0.9")
    monkeypatch.setenv("RAGMON_SAMPLE_RATE", "0.5")
    monkeypatch.setenv("RAGMON_JSNO", str(tmp_path / "r.json"))
    # What Kubernetes sets for a Service named ragmon, and names that only share the prefix with one.
    monkeypatch.setenv("RAGMON_PORT", "tcp://10.0.0.1:9464")
    monkeypatch.setenv("RAGMON_PORT_9464_TCP_ADDR", "10.0.0.1")
    monkeypatch.setenv("RAGMON_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("RAGMON_KEY", "x")
    assert main(["replay", str(data), "--quiet"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "read by no flag" in line]
    told = "ragmon replay: warning: {} is set, and read by no flag: did you mean {}? (ignored)"
    assert warnings == [told.format("RAGMON_GATES", "RAGMON_GATE"), told.format("RAGMON_JSNO", "RAGMON_JSON")]


@pytest.mark.parametrize(("name", "also", "meant"), [
    # difflib's ratio misses a short name: RAGMON_QUEUE=5 and RAGMON_MAX_SPANS=5000 were taken unsaid.
    ("RAGMON_QUEUE", {}, "RAGMON_QUEUE_SIZE"),
    ("RAGMON_MAX_SPANS", {}, "RAGMON_MAX_SPANS_PER_TRACE"),
    ("RAGMON_SIZE_QUEUE", {}, "RAGMON_QUEUE_SIZE"),
])
def test_a_variable_named_by_the_first_words_of_one_or_in_another_order_is_warned_about(
        name: str, also: dict[str, str], meant: str) -> None:
    assert build_parser("serve", {name: "5", **also}).variable_warnings == (
        f"{name} is set, and read by no flag: did you mean {meant}? (ignored)",)


def test_a_variable_whose_meant_one_is_set_or_that_shares_no_whole_word_is_not_warned_about() -> None:
    # RAGMON_QUEUE beside RAGMON_QUEUE_SIZE may be anyone's; RAGMON_KEY holds no word of RAGMON_K's.
    assert build_parser("serve", {"RAGMON_QUEUE": "5", "RAGMON_QUEUE_SIZE": "5"}).variable_warnings == ()
    assert build_parser("serve", {"RAGMON_KEY": "x"}).variable_warnings == ()


@pytest.mark.parametrize(("name", "value"), [
    # Words alone guessed too much: RAGMON_LLM=x was told "did you mean" 9 variables, RAGMON_MAX 6.
    ("RAGMON_LLM", "x"), ("RAGMON_LLM", "5"), ("RAGMON_MAX", "5"),
    ("RAGMON_LOG", "debug"),         # the first word of RAGMON_LOG_FORMAT and RAGMON_LOG_LEVEL both
    ("RAGMON_METRICS", "true"),      # somebody else's switch: no address for RAGMON_METRICS_LISTEN
    ("RAGMON_HTTP", "1"), ("RAGMON_GRPC", "x"), ("RAGMON_QUEUE", "big"),
])
def test_a_variable_that_begins_several_or_whose_value_its_one_refuses_is_not_warned_about(
        name: str, value: str) -> None:
    assert build_parser("serve", {name: value}).variable_warnings == ()


def test_a_short_variable_with_a_value_its_one_takes_is_warned_about() -> None:
    # An address is what RAGMON_HTTP_LISTEN takes: RAGMON_HTTP=0.0.0.0:4318 is a slip, not a switch.
    assert build_parser("serve", {"RAGMON_HTTP": "0.0.0.0:4318"}).variable_warnings == (
        "RAGMON_HTTP is set, and read by no flag: did you mean RAGMON_HTTP_LISTEN? (ignored)",)


def _variables(command: str) -> set[str]:
    parser = build_parser(command, {})
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    longs = ([s for s in action.option_strings if s.startswith("--")] for action in sub._actions)
    return {variable(command, options[0]) for options in longs if options and options[0] != "--help"}


def test_no_command_takes_another_commands_variables_for_slips() -> None:
    # One environment holds every command's variables (the image sets serve's for every command run from
    # it; a CI job sets replay's beside a sidecar's): none may be warned about as a slip for another's,
    # as serve's RAGMON_MAX_BODY would be for replay's RAGMON_RECEIVER_MAX_BODY if shared words counted.
    variables = {command: _variables(command) for command in SUBCOMMANDS}
    warned = {command: build_parser(command, dict.fromkeys(set().union(*variables.values()) - own, "1"))
              .variable_warnings for command, own in variables.items()}
    assert warned == dict.fromkeys(SUBCOMMANDS, ())


def test_a_near_miss_of_a_variable_is_warned_about_when_the_command_line_is_refused_too(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The typo may be why the command line is wrong: the warning comes before the usage error.
    _without_ragmon_variables(monkeypatch)
    monkeypatch.setenv("RAGMON_JSON_FILE", "r.json")
    assert main(["replay", "--no-such-flag"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("ragmon replay: warning: RAGMON_JSON_FILE is set, and read by no flag: did you mean "
                      "RAGMON_JSON? (ignored)")
    assert err[-1].startswith("ragmon replay: error: ")


# --- one variable, one meaning ---------------------------------------------------------------------------


def _options(command: str) -> list[argparse.Action]:
    parser = build_parser(command, {})
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return [a for a in sub._actions if any(s.startswith("--") for s in a.option_strings) and a.dest != "help"]


def test_no_variable_is_read_by_two_commands_flags_of_another_kind() -> None:
    # Read from the parsers, so a flag added later is checked too: two flags that share a variable must
    # take the same values in the same way (serve's --quiet took a duration, replay's was a switch).
    kinds: dict[str, set[tuple[object, ...]]] = {}
    for command in SUBCOMMANDS:
        for action in _options(command):
            name = variable(command, next(s for s in action.option_strings if s.startswith("--")))
            kinds.setdefault(name, set()).add((type(action), action.type, action.choices, action.nargs))
    assert {name: kind for name, kind in kinds.items() if len(kind) > 1} == {}


def test_a_flag_meaning_something_else_elsewhere_reads_a_variable_of_its_commands_own() -> None:
    assert [variable(command, "--quiet") for command in ("serve", "replay", "calibrate")] == [
        "RAGMON_QUIET", "RAGMON_REPLAY_QUIET", "RAGMON_CALIBRATE_QUIET"]
    # Same kind of value, another meaning: replay's --json report is the next run's baseline, which
    # calibrate's figures would overwrite; replay's --judge decides a gate, calibrate's are measured.
    assert (variable("replay", "--json"), variable("calibrate", "--json")) == ("RAGMON_JSON",
                                                                              "RAGMON_CALIBRATE_JSON")
    assert (variable("replay", "--judge"), variable("calibrate", "--judge")) == ("RAGMON_JUDGE",
                                                                                "RAGMON_CALIBRATE_JUDGE")
    assert variable("replay", "--max-drop") == "RAGMON_MAX_DROP"


def _run(ragmon_cmd: list[str], *args: str, env: dict[str, str], cwd: os.PathLike[str] | str,
         ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "GITHUB_"))}
    return subprocess.run([*ragmon_cmd, *args], capture_output=True, text=True, timeout=60, check=False,
                          cwd=cwd, env={**clean, **env})


GOLDEN = os.path.join(os.path.dirname(__file__), "..", "examples", "golden.jsonl")


def test_a_serve_pods_quiet_period_does_not_break_replay(ragmon_cmd: list[str], tmp_path) -> None:
    # docs/deploy.md has operators set RAGMON_QUIET=2s for serve: replay and its --help exited 2 on it.
    done = _run(ragmon_cmd, "replay", GOLDEN, "--gate", "groundedness=0.85", env={"RAGMON_QUIET": "2s"},
                cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout.splitlines()[-1]) == (0, "", "PASS")
    helped = _run(ragmon_cmd, "replay", "--help", env={"RAGMON_QUIET": "2s"}, cwd=tmp_path)
    assert (helped.returncode, helped.stderr) == (0, "")
    quiet = _run(ragmon_cmd, "replay", GOLDEN, "--gate", "groundedness=0.85",
                 env={"RAGMON_QUIET": "1", "RAGMON_REPLAY_QUIET": "1"}, cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_serve_reads_its_quiet_period_and_calibrate_its_own_judges() -> None:
    serve = build_parser("serve", {"RAGMON_QUIET": "1", "RAGMON_REPLAY_QUIET": "5s"}).parse_args(["serve"])
    assert serve.quiet == 1.0
    environ = {"RAGMON_JUDGE": "claude", "RAGMON_JSON": "replay.json", "RAGMON_CALIBRATE_JUDGE": "lexical"}
    calibrate = build_parser("calibrate", environ).parse_args(["calibrate", "labelled.jsonl"])
    assert (calibrate.judge, calibrate.json) == (["lexical"], None)


def test_help_prints_whatever_a_variable_holds(ragmon_cmd: list[str], tmp_path) -> None:
    done = _run(ragmon_cmd, "replay", "--help", env={"RAGMON_WORKERS": "abc", "RAGMON_K": "abc"},
                cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: ragmon replay [-h] ")
    refused = _run(ragmon_cmd, "replay", "x.jsonl", env={"RAGMON_K": "abc"}, cwd=tmp_path)
    assert (refused.returncode, refused.stderr.splitlines()[-1]) == (
        2, "ragmon replay: error: RAGMON_K='abc': not a whole number: 'abc'")


def test_serve_help_prints_with_a_bad_variable(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser("serve", {"RAGMON_WORKERS": "abc"})
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["serve", "--help"])
    shown = capsys.readouterr()
    assert (exit_.value.code, shown.err) == (0, "")
    assert shown.out.startswith("usage: ragmon serve [-h] ")


def test_a_bad_variable_gives_way_to_its_flag_on_the_command_line() -> None:
    args = build_parser("serve", {"RAGMON_WORKERS": "abc"}).parse_args(["serve", "--workers", "2"])
    assert args.workers == 2


def test_the_parsed_command_line_says_which_values_came_from_the_environment() -> None:
    environ = {"RAGMON_GATE": "recall=0.5", "RAGMON_K": "3", "RAGMON_WORST": "4"}
    args = build_parser("replay", environ).parse_args(["replay", "g.jsonl", "--k", "3"])
    assert (str(flag_of(args, "--gate")), str(flag_of(args, "--k")), str(flag_of(args, "--json"))) == (
        "RAGMON_GATE (--gate)", "--k", "--json")
    assert flag_of(args, "--gate").given("'recall=0.5'") == "RAGMON_GATE 'recall=0.5' (--gate)"


def test_the_parsed_command_line_says_which_flags_were_typed_at_whatever_value() -> None:
    # By their long option: --k typed at its default (5) and --lexical abbreviated are typed; --worst,
    # from RAGMON_WORST, and --gate, left out, are not. replay tells a setting chosen by this.
    args = build_parser("replay", {"RAGMON_WORST": "4"}).parse_args(
        ["replay", "g.jsonl", "--k", "5", "--lexical=0.56", "--quiet"])
    assert (args.k, args.worst, getattr(args, TYPED)) == (5, 4, {"--k", "--lexical-threshold", "--quiet"})


@pytest.mark.parametrize(("command", "example", "exceptions"), [
    ("serve", "--http-listen is RAGMON_HTTP_LISTEN", ""),
    ("replay", "--max-drop is RAGMON_MAX_DROP",
     " Except where RAGMON_<FLAG> is another command's flag of the same name, meaning something else: "
     "--quiet reads RAGMON_REPLAY_QUIET."),
    ("calibrate", "--judge-errors is RAGMON_JUDGE_ERRORS",
     " Except where RAGMON_<FLAG> is another command's flag of the same name, meaning something else: "
     "--judge reads RAGMON_CALIBRATE_JUDGE, --json reads RAGMON_CALIBRATE_JSON, --quiet reads "
     "RAGMON_CALIBRATE_QUIET."),
])
def test_each_commands_help_says_how_its_flags_are_set_from_the_environment(command: str, example: str,
                                                                            exceptions: str) -> None:
    parser = build_parser(command, {})
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    # Last: replay's epilog begins with its exit statuses and names (tests/test_replay.py).
    assert sub.epilog.split("\n\n")[-1] == (
        f"Every flag can also be set as an environment variable RAGMON_<FLAG>, upper case, dashes as "
        f"underscores ({example}); the command line wins, and a repeatable flag's variable takes a "
        f"comma-separated list.{exceptions}")
    assert " ".join(sub.format_help().split()).endswith(" ".join(sub.epilog.split()))


def test_a_help_lists_lines_as_lines_and_fills_a_paragraph(monkeypatch: pytest.MonkeyPatch) -> None:
    # A block of lines is a list: each line filled on its own, its continuation indented. argparse's
    # default ran replay's exit statuses and metric names into one paragraph.
    monkeypatch.setenv("COLUMNS", "32")
    parser = build_parser("replay", {})
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["replay"]
    sub.epilog = "exit: 0 held, 1 breached\nmetrics: recall, mrr, ndcg, groundedness\n\none paragraph " \
                 "of words filled as argparse fills it"
    assert sub.format_help().endswith("\n\nexit: 0 held, 1 breached\n"
                                      "metrics: recall, mrr, ndcg,\n"
                                      "  groundedness\n\n"
                                      "one paragraph of words filled\n"
                                      "as argparse fills it\n")


# --- found by a CI engineer: a signal while the subcommand loads -------------------------------------

_SIGNAL_WHILE_LOADING = """
import importlib, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as Python starts where SIGINT is not ignored
from ragmon import cli
load = importlib.import_module
def loading(name, package=None):
    if name == "ragmon.replay":  # ~0.5 s of a replay's start, before it has read its command line
        os.kill(os.getpid(), signal.Signals[sys.argv[1]])
    return load(name, package)
importlib.import_module = loading
sys.exit(cli.main(sys.argv[2:]))
"""
_PREVIOUS_PASS = {"r.json": '{"report_format": 1, "passed": true}\n', "r.md": "## ragmon replay: PASS\n",
                  "r.xml": '<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="ragmon" tests="1"/>\n'}


def _signalled_while_loading(tmp_path: Path, sig: str, *args: str) -> subprocess.CompletedProcess[str]:
    for name, text in _PREVIOUS_PASS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "GITHUB_"))}
    return subprocess.run(
        [sys.executable, "-c", _SIGNAL_WHILE_LOADING, sig, "replay", str(ROOT / "examples" / "golden.jsonl"),
         "--gate", "groundedness=0.5", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        # Started without a preexec_fn: one makes subprocess fork, and gRPC's fork handlers (a server test
        # before this one left gRPC loaded) had its poller log "epoll_wait error" into the child's stderr.
        timeout=60)


@pytest.mark.parametrize(("sig", "status", "why"), [("SIGTERM", 143, "terminated (SIGTERM)"),
                                                    ("SIGHUP", 129, "hung up (SIGHUP)"),
                                                    ("SIGINT", 130, "interrupted")])
def test_a_signal_while_the_subcommand_loads_replaces_the_reports_it_names(
        tmp_path: Path, sig: str, status: int, why: str) -> None:
    # Before: SIGTERM ended the process on the spot (-15) and Ctrl-C gave a KeyboardInterrupt traceback,
    # both leaving the previous run's PASS reports for a publishing step to show as this run's.
    done = _signalled_while_loading(tmp_path, sig, "--json", "r.json", "--markdown", "r.md",
                                    "--junit", "r.xml")
    assert (done.returncode, done.stderr) == (status, f"ragmon replay: {why}: the reports say INCOMPLETE\n")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["complete"], report["passed"], report["error"]) == (False, False, why)
    assert (tmp_path / "r.md").read_text(encoding="utf-8") == (
        f"## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status {status}), so no gate was "
        f"decided:\n\n> {why}\n")
    assert f'message="{why}"' in (tmp_path / "r.xml").read_text(encoding="utf-8")


def test_a_signal_before_a_command_line_that_names_no_report_is_still_its_exit_status(tmp_path: Path) -> None:
    # `--json` without its path: no report is named for sure, none is written, and the exit status is
    # still the signal's (143), never 1 ("gate breached" to CI) and never a traceback.
    done = _signalled_while_loading(tmp_path, "SIGTERM", "--json")
    assert done.returncode == 143
    assert done.stderr.endswith("ragmon replay: error: argument --json: expected one argument\n"
                                "ragmon replay: terminated (SIGTERM)\n")
    assert "Traceback" not in done.stderr
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == _PREVIOUS_PASS["r.json"]  # not named: kept


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--trace-wait", "-1s", "argument --trace-wait: a duration cannot be negative: '-1s'"),
    ("--target-timeout", "-2.5s", "argument --target-timeout: a duration cannot be negative: '-2.5s'"),
    ("--k", "-1", "argument --k: must be at least 1: -1"),  # a negative number: argparse always took it
])
def test_a_negative_value_reaches_its_flag_to_be_refused_as_negative(
        capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str) -> None:
    # Before: argparse read `-1s` as an option, and said "argument --trace-wait: expected one argument".
    assert main(["replay", str(ROOT / "examples" / "golden.jsonl"), flag, value]) == 2
    assert capsys.readouterr().err.endswith(f"ragmon replay: error: {message}\n")


def test_a_sigterm_whose_exception_a_finalizer_dropped_still_stops_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    dropped: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_value))
    went_on = False
    with pytest.raises(Terminated) as stopped, terminated_on_signal():
        drop_a_sigterm()
        went_on = True
    assert went_on and len(dropped) == 1 and isinstance(dropped[0], Terminated)  # lost where it was raised
    assert stopped.value.signum == signal.SIGTERM  # but the block ends as a SIGTERM, not as a finished run
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN  # and a repeat is ignored, as after any stop


def test_a_wait_ends_at_its_next_checkpoint_after_a_dropped_sigterm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    checks: list[int] = []
    with pytest.raises(Terminated), terminated_on_signal() as checkpoint:
        checkpoint()  # no signal yet: it lets the work go on
        drop_a_sigterm()
        for check in range(1, 4):
            checks.append(check)
            checkpoint()
    assert checks == [1]



def test_the_command_line_imports_no_judge_before_its_signal_handlers() -> None:
    # The package used to import the lexical judge and its text modules (1.4 s on a slow machine) before
    # `main` could install its handlers: a SIGTERM then killed the process outright (-15), leaving the
    # previous run's passing reports, and Ctrl-C printed a traceback. They load with the subcommand now,
    # which its handlers cover (replay and calibrate then replace their reports).
    done = subprocess.run([sys.executable, "-c", "import sys, ragmon.cli; print(*sys.modules)"],
                          capture_output=True, text=True, timeout=60, check=True)
    loaded = done.stdout.split()
    assert "ragmon.cli" in loaded
    heavy = ("ragmon.text", "ragmon.judges", "ragmon.evaluation")
    assert not [name for name in loaded if name.startswith(heavy)]


def test_the_package_still_exports_its_api_and_evaluate_is_the_function() -> None:
    done = subprocess.run([sys.executable, "-c", (
        "import ragmon.evaluation, ragmon\n"  # the module first: it must not take the function's place
        "from ragmon import Context, EvalConfig, Example, LexicalJudge, ClaudeJudge, evaluate, aevaluate\n"
        "print(ragmon.evaluate is ragmon.evaluation.evaluate, callable(ragmon.evaluate))")],
        capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "True True\n"



_GOLDEN_FIRST_LINE = (ROOT / "examples" / "golden.jsonl").read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize(("lines", "args", "error"), [
    pytest.param([_GOLDEN_FIRST_LINE, "}"], ["--gate", "groundedness=0.5"],
                 "golden.jsonl:2: invalid JSON at column 1: Expecting value", id="bad-input"),
    pytest.param([_GOLDEN_FIRST_LINE], ["--gate", "groundedness=0.5", "--gate", "nope=1"],
                 "--gate 'nope=1': unknown metric 'nope'", id="bad-gate"),
    pytest.param([_GOLDEN_FIRST_LINE], ["--gate", "groundedness=0.5", "--k", "0"],  # refused by argparse
                 "argument --k: must be at least 1: 0", id="bad-flag-value"),
])
def test_an_error_stderr_cannot_take_is_still_exit_2_and_the_reports_say_so(
        ragmon_cmd: list[str], tmp_path: Path, lines: list[str], args: list[str], error: str) -> None:
    # A full disk under the CI log: printing the error raised, and the exit status was Python's 1 ("a gate
    # was breached") while the JUnit report said errors="1"; a refused flag's reports were not replaced.
    (tmp_path / "golden.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_") and k != "GITHUB_STEP_SUMMARY"}
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        done = subprocess.run([*ragmon_cmd, "replay", "golden.jsonl", *args, "--json", "r.json", "--junit",
                               "r.xml"], cwd=tmp_path, env=env, stderr=full, stdout=subprocess.PIPE,
                              text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["complete"], report["passed"]) == (False, False)
    assert report["error"].startswith(error)
    assert 'errors="1"' in (tmp_path / "r.xml").read_text(encoding="utf-8")


def test_a_bug_is_exit_2_when_stderr_cannot_take_its_traceback(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(replay, "run", broken)
    # Every write fails with ENOSPC; unbuffered, so that nothing is left to fail again on closing.
    with io.TextIOWrapper(io.FileIO("/dev/full", "w"), write_through=True) as full:
        monkeypatch.setattr(sys, "stderr", full)
        assert main(["replay", str(tmp_path / "golden.jsonl")]) == 2
