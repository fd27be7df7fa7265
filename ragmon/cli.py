"""`ragmon serve | replay | calibrate | demo`.

Each subcommand lives in its own module exposing `add_arguments(parser)` and `run(args) -> int`; this
module only dispatches, maps every `--flag` to a `RAGMON_FLAG` environment default, and turns
`RagmonError` into a one-line message with exit code 2 instead of a traceback (any other exception is
a bug: its traceback, and exit code 2 too).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from ragmon import __version__
from ragmon.errors import MissingExtra, RagmonError, printable

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("ragmon.service", "run the OTLP sidecar: score live traces, export Prometheus metrics"),
    "replay": ("ragmon.replay", "score a golden dataset and gate a deploy on the result"),
    "calibrate": ("ragmon.calibrate", "measure judges against human sentence labels"),
    "demo": ("ragmon.demo.app", "run the demo RAG app, exporting its traces over OTLP"),
}
EXTRAS: dict[str, str] = {"serve": "serve", "demo": "demo"}
"""The extra (pyproject's optional-dependencies) a subcommand needs beyond `pip install ragmon`, which
brings what replay and calibrate need and no more: the offline gate runs on every commit."""

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C: 128 + SIGINT, as a shell reports a command the signal ended."""
EXIT_TERMINATED = 143
"""SIGTERM (a cancelled CI job, `timeout`, Kubernetes), for a subcommand that stops on it with Terminated."""
DESCRIPTION = ("Is a RAG service's answer grounded in what it retrieved? Score it continuously beside the "
               "service (serve) and gate a deploy on a golden set (replay).")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _apply_env_defaults(parser: argparse.ArgumentParser, environ: dict[str, str]) -> None:
    """Let `RAGMON_MAX_TRACES=5000` stand for `--max-traces 5000`; the command line still wins.

    Values are converted here, so a bad one is reported under the variable's name, not the flag's."""
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or action.dest == "help":
            continue
        variable = "RAGMON_" + longs[0][2:].upper().replace("-", "_")
        value = environ.get(variable)
        if value is None:
            continue
        if isinstance(action, argparse._StoreTrueAction):
            action.default = _switch(parser, variable, value)
            continue
        items = [v for v in value.split(",") if v] if isinstance(action, argparse._AppendAction) else [value]
        try:
            converted = [action.type(v) if callable(action.type) else v for v in items]
        except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
            parser.error(f"{variable}={value!r}: {exc}")
        if action.choices is not None and any(v not in action.choices for v in converted):
            parser.error(f"{variable}={value!r}: choose from {', '.join(map(str, action.choices))}")
        if isinstance(action, argparse._AppendAction):
            action.__class__ = _AppendOverEnvironment
            action.default = converted
        else:
            action.default = converted[0]


def _switch(parser: argparse.ArgumentParser, variable: str, value: str) -> bool:
    """An on/off flag's variable. Anything but the usual spellings is refused rather than read as off: a
    typo ("ture") or a value meant for another subcommand's flag of the same name (`serve --quiet` takes a
    duration) would otherwise switch the flag off without a word."""
    word = value.strip().lower()
    if word not in _TRUE | _FALSE:
        parser.error(f"{variable}={value!r}: not on or off (use 1, true, yes, on or 0, false, no, off)")
    return word in _TRUE


class Terminated(KeyboardInterrupt):
    """SIGTERM raised as an exception, by a subcommand that must clean up before it exits (ragmon replay
    replaces its reports); a KeyboardInterrupt, so that asyncio and every handler treat it as Ctrl-C."""


class UsageError(Exception):
    """A command line argparse refused: raised rather than exiting there, so the subcommand can be told."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


class _CommandParser(_Parser):
    """A subcommand's parser. Everything after the command's name is the command's, so an argument it does
    not know is its error, told with its usage: argparse leaves unknown ones to the top-level parser, whose
    usage line (`ragmon [-h] [--version] COMMAND ...`) names none of the command's flags."""

    # typeshed's overloads type a caller's own Namespace subclass, which no caller here passes.
    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, unknown = super().parse_known_args(args, namespace)
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return parsed, []


def parse_known(add_arguments: Callable[[argparse.ArgumentParser], None], argv: Sequence[str],
                environ: Mapping[str, str]) -> argparse.Namespace | None:
    """The flags `add_arguments` defines, read from a command line that was refused as a whole, with their
    RAGMON_* defaults; None when they do not parse either. Only flags written out in full are read: an
    abbreviation the whole command line found ambiguous (`--ju` for --judge, --judge-errors or --junit)
    must not be taken for one of these."""
    parser = _Parser(add_help=False, allow_abbrev=False)
    add_arguments(parser)
    try:
        _apply_env_defaults(parser, dict(environ))
        return parser.parse_known_args(list(argv))[0]
    except UsageError:
        return None


class _AppendOverEnvironment(argparse._AppendAction):
    """A repeatable flag whose environment values give way to the command line's, as every other flag's
    do: `RAGMON_GATE=groundedness=0.8` with `--gate recall=0.5` gates on recall alone, not on both."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is self.default:
            setattr(namespace, self.dest, [])
        super().__call__(parser, namespace, values, option_string)


def build_parser(command: str | None, environ: dict[str, str] | None = None) -> argparse.ArgumentParser:
    """Only the chosen subcommand's module is imported, so `replay` never pays for gRPC start-up."""
    environ = dict(os.environ) if environ is None else environ
    parser = _Parser(prog="ragmon", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"ragmon {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=_CommandParser)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            _apply_env_defaults(sub, environ)
            sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    try:
        parser = build_parser(command)
    except ImportError as exc:
        # A broken install (a dependency missing from a CI image) is a run that could not complete, not
        # Python's exit status 1, which CI would read as a breached gate.
        extra = EXTRAS.get(command or "")
        problem = (MissingExtra(f"the {command} command", extra, exc) if extra is not None else
                   f"cannot load the {command} command: {exc} (a dependency of ragmon is missing: reinstall "
                   "it with its dependencies)")
        print(f"ragmon {command}: error: {printable(str(problem))}", file=sys.stderr)
        return EXIT_ERROR
    except UsageError as exc:  # a RAGMON_* variable the subcommand's flag refused
        return _refused(command, argv, exc)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        return _refused(command, argv, exc)
    try:
        return int(args._run(args))
    except RagmonError as exc:
        print(f"ragmon {args.command}: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except Terminated:
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception:
        # A bug, not bad input: its traceback is what a report needs, and its exit status must say "could
        # not complete" (2), since Python's own 1 would tell CI that a gate was breached.
        traceback.print_exc()
        print(f"ragmon {args.command}: internal error (a bug in ragmon: please report it with the "
              f"traceback above)", file=sys.stderr)
        return EXIT_ERROR


def _refused(command: str | None, argv: Sequence[str], error: UsageError) -> int:
    """argparse's usage line and message, exit 2; first, a subcommand module with a `usage_error(argv,
    message)` hook is given its part of the command line (ragmon replay replaces the reports it names)."""
    error.parser.print_usage(sys.stderr)
    print(f"{error.parser.prog}: error: {printable(error.message)}", file=sys.stderr)
    module = sys.modules.get(SUBCOMMANDS[command][0]) if command in SUBCOMMANDS else None
    hook = getattr(module, "usage_error", None)
    if hook is not None and command is not None:
        hook(argv[argv.index(command) + 1:], error.message)
    return EXIT_ERROR


if __name__ == "__main__":
    # `python -m ragmon.cli` runs this file as __main__, a second copy beside the ragmon.cli that
    # subcommands import: its Terminated would not be theirs. Run the one they share.
    from ragmon.cli import main as shared_main

    sys.exit(shared_main())
