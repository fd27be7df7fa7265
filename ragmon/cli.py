"""`ragmon serve | replay | calibrate | demo`.

Each subcommand lives in its own module exposing `add_arguments(parser)` and `run(args) -> int`; this
module only dispatches, maps every `--flag` to a `RAGMON_FLAG` environment default (`variable`), and
turns `RagmonError` into a one-line message with exit code 2 instead of a traceback (any other exception
is a bug: its traceback, and exit code 2 too). A SIGTERM, SIGHUP or Ctrl-C, from the moment `main` starts,
ends the run with 143, 129 or 130 and a line on stderr saying so (`terminated_on_signal`, `_signals_held`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import importlib
import logging
import os
import re
import signal
import sys
import textwrap
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from ragmon import __version__
from ragmon.errors import MissingExtra, RagmonError, inert, printable
from ragmon.files import standard_stream
from ragmon.logs import logs_as_json
from ragmon.options import FROM_ENVIRONMENT, NEGATIVE_VALUE, REPLACED_VARIABLES, TYPED
from ragmon.stop_signals import SHUTDOWN_SIGNALS, heeded

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
EXIT_TERMINATED = 128 + signal.SIGTERM
"""SIGTERM (a cancelled CI job, `timeout`, Kubernetes), unless the subcommand stops on it another way (serve
drains and exits 0)."""
EXIT_HUNG_UP = 128 + signal.SIGHUP
"""SIGHUP: the terminal a run was started from closed (an ssh session dropped). Its default, ending the
process at once, left the previous run's reports in place as this one's."""
DESCRIPTION = ("Is a RAG service's answer grounded in what it retrieved? Score it continuously beside the "
               "service (serve) and gate a deploy on a golden set (replay).")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
OWN_VARIABLES: dict[str, dict[str, str]] = {
    "replay": {"--quiet": "RAGMON_REPLAY_QUIET"},
    "calibrate": {"--judge": "RAGMON_CALIBRATE_JUDGE", "--json": "RAGMON_CALIBRATE_JSON",
                  "--quiet": "RAGMON_CALIBRATE_QUIET"},
}
"""Flags that read a variable of their command's own, as RAGMON_<FLAG> is another command's flag of the
same name, meaning something else: one variable set for one command must never change, or break, what
another does. serve's --quiet is a duration (a sidecar's manifest sets RAGMON_QUIET=2s), replay's a switch;
replay's --judge is the one judge a gate is decided by, calibrate's the judges to measure (a list: a
RAGMON_JUDGE=claude set for a CI gate would have calibrate bill Claude alone); replay's --json is the
gate's report (the next run's --baseline), calibrate's its figures, which would overwrite it. The
plain name stays with the command its users set it for: serve's in deploy manifests, replay's in CI."""


NOT_BLANK = frozenset({"--token-file"})
"""Flags whose blank variable is refused, not read as unset: a chart's `RAGMON_TOKEN_FILE: ""` (a secret
that did not mount, a value not filled in) would otherwise serve without authentication, as
`RAGMON_TOKEN=` would, which ragmon.serve_config refuses too."""


def variable(command: str | None, option: str) -> str:
    """The environment variable `command`'s `option` (`--max-traces`) reads: RAGMON_MAX_TRACES, unless
    OWN_VARIABLES names another."""
    own = OWN_VARIABLES.get(command or "", {}).get(option)
    return own or "RAGMON_" + option[2:].upper().replace("-", "_")


def _apply_env_defaults(parser: _Parser, environ: Mapping[str, str], command: str | None) -> None:
    """Let `RAGMON_MAX_TRACES=5000` stand for `--max-traces 5000`; the command line still wins.

    Values are converted here, so a bad one is reported under the variable's name, not the flag's; it is
    reported when the command line is parsed (`_Parser.parse_known_args`), so that `--help` still prints,
    and not at all when the command line gives the flag.

    A blank variable is an unset one, as the OpenTelemetry SDK reads its own: a chart's `value: ""` or a
    CI variable left empty means "the default", and `RAGMON_SAMPLE_RATE=` must not stop the sidecar, nor
    `RAGMON_JSON=` write a report to a file named `.`; except for NOT_BLANK's."""
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or action.dest == "help":
            continue
        name = variable(command, longs[0])
        value = environ.get(name)
        if value is None:
            continue
        if not value.strip():
            if longs[0] in NOT_BLANK:
                parser.refused[action] = f"{name} is set but empty: unset it, or name the file"
            continue
        try:
            _set_default(action, name, value)
        except _BadVariable as exc:
            parser.refused[action] = str(exc)
            continue
        parser.from_environment[action] = longs[0], name


OTHER_VARIABLES = {"serve": frozenset({"RAGMON_TOKEN"})}
"""RAGMON_* variables a command reads other than as a flag's default."""
_SERVICE_LINKS = re.compile(
    r"RAGMON_(?:SERVICE_HOST|SERVICE_PORT(?:_\w+)?|PORT(?:_\d+_(?:TCP|UDP|SCTP)\w*)?)")
"""What Kubernetes sets in every pod for a Service named `ragmon` (RAGMON_PORT=tcp://...,
RAGMON_SERVICE_HOST): no user's typo."""


_CLAIMED = frozenset(variable(None, option) for own in OWN_VARIABLES.values() for option in own)
"""The plain RAGMON_<FLAG> names OWN_VARIABLES keep for one command (serve's RAGMON_QUIET, replay's
RAGMON_JUDGE): another command's, never a slip for this one's RAGMON_REPLAY_QUIET."""


def misspelt_variables(parser: argparse.ArgumentParser, environ: Mapping[str, str],
                       command: str) -> list[str]:
    """A warning for each RAGMON_* variable that is no variable of `command`'s but nearly one that is not
    set: `RAGMON_SAMPLERATE=0.5` was ignored without a word, the sidecar scoring all traffic. Only near
    misses: the same environment holds other commands' variables (a CI job's RAGMON_GATE beside a
    sidecar's settings, the image's RAGMON_HTTP_LISTEN for every command run from it), which this command
    cannot tell from typos without importing every other command (the demo's needs an extra)."""
    actions = {variable(command, longs[0]): action for action in parser._actions
               if (longs := [s for s in action.option_strings if s.startswith("--")])}
    known = OTHER_VARIABLES.get(command, frozenset()) | set(actions)
    # Compared without the prefix they all share, which made RAGMON_KEY "nearly" RAGMON_K.
    suffixes = {name.removeprefix("RAGMON_"): name for name in known}
    readers = {suffix: actions.get(name) for suffix, name in suffixes.items()}
    warnings = []
    for name in sorted(environ):
        if (not name.startswith("RAGMON_") or name in known or name in _CLAIMED
                or _SERVICE_LINKS.fullmatch(name)):
            continue
        meant = _meant(name.removeprefix("RAGMON_"), environ[name], readers)
        if meant is not None and suffixes[meant] not in environ:
            warnings.append(f"{name} is set, and read by no flag: did you mean {suffixes[meant]}? (ignored)")
    return warnings


_PATH_WORD = re.compile(r"_(?:FILE|PATH)$")


def _meant(suffix: str, value: str, readers: Mapping[str, argparse.Action | None]) -> str | None:
    """The suffix of the known variable `suffix` nearly is: a flag taking a path named as what it holds
    (CAPTURE_FILE for CAPTURE), a near spelling; else, as difflib's ratio misses a short name, the one
    variable it is the first words of (QUEUE for QUEUE_SIZE, MAX_SPANS for MAX_SPANS_PER_TRACE) or holds
    the words of in another order (SIZE_QUEUE), when that variable's flag (its `readers`) takes `value`.
    Whole words only, so KEY is nothing like K. Words alone guessed too much: RAGMON_LLM begins 9
    variables, RAGMON_LOG two, and RAGMON_HTTP=1 or RAGMON_METRICS=true, somebody else's switch, is no
    address for RAGMON_HTTP_LISTEN."""
    if (bare := _PATH_WORD.sub("", suffix)) in readers:
        return bare
    if close := difflib.get_close_matches(suffix, readers, n=1, cutoff=0.75):
        return close[0]
    words = suffix.split("_")
    guesses = [known for known in readers
               if known.split("_")[:len(words)] == words or sorted(known.split("_")) == sorted(words)]
    if len(guesses) != 1 or (reader := readers[guesses[0]]) is None:
        return None
    return guesses[0] if _takes(reader, value) else None


def _takes(action: argparse.Action, value: str) -> bool:
    """Whether `action`'s flag takes `value`, as its variable's."""
    try:
        _converted(action, "", value)
    except _BadVariable:
        return False
    return True


class _BadVariable(Exception):
    """A RAGMON_* value its flag refused, told when the command line is parsed."""


def _set_default(action: argparse.Action, name: str, value: str) -> None:
    converted = _converted(action, name, value)
    if isinstance(action, argparse._AppendAction):
        action.__class__ = _AppendOverEnvironment
        action.default = VariableList(converted, value)
    else:
        action.default = converted[0]


def _converted(action: argparse.Action, name: str, value: str) -> list[Any]:
    """Variable `name`'s `value` as `action`'s flag reads it, a repeatable flag's as a list of values, one
    value else; a _BadVariable naming `name` if the flag refuses it."""
    if isinstance(action, argparse._StoreTrueAction):
        return [_switch(name, value)]
    items = [v for v in value.split(",") if v] if isinstance(action, argparse._AppendAction) else [value]
    if action.choices is not None:
        # A choice is a word: "lexical, claude" and "skip " read as the typed "lexical" and "claude" and
        # "skip", as every other kind of value's reader strips its own; they had been refused.
        items = [v.strip() for v in items if v.strip()]
    try:
        converted = [action.type(v) if callable(action.type) else v for v in items]
    except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
        raise _BadVariable(f"{name}={value!r}: {exc}") from None
    if action.choices is not None and (wrong := [v for v in converted if v not in action.choices]):
        item = "" if wrong[0] == value else f", not {wrong[0]!r}"  # which item, of a list
        raise _BadVariable(f"{name}={value!r}: choose from {', '.join(map(str, action.choices))}{item}")
    return converted


class VariableList(list[Any]):
    """A repeatable flag's values split from its variable's comma-separated list, with the value as set: its
    empty parts are dropped (`a,,b` is two values), so the parts joined again are not what the user wrote,
    and an error quoting the whole value (ragmon.gate) would quote a value nobody set."""

    def __init__(self, values: Iterable[Any], value: str) -> None:
        super().__init__(values)
        self.value = value


def _switch(name: str, value: str) -> bool:
    """An on/off flag's variable. Anything but the usual spellings is refused rather than read as off: a
    typo ("ture") would otherwise switch the flag off without a word."""
    word = value.strip().lower()
    if word not in _TRUE | _FALSE:
        raise _BadVariable(f"{name}={value!r}: not on or off (use 1, true, yes, on or 0, false, no, off)")
    return word in _TRUE


def _epilog(command: str, parser: argparse.ArgumentParser) -> str:
    """How every flag of `command` is set from the environment, named in its --help, the one place a user
    looks for what a flag reads."""
    own = OWN_VARIABLES.get(command, {})
    options = [s for a in parser._actions if a.dest != "help" for s in a.option_strings
               if s.startswith("--") and s not in own]
    example = max(options, key=lambda s: "-" in s[2:])  # the first with a dash inside, to show it changed
    text = (f"Every flag can also be set as an environment variable RAGMON_<FLAG>, upper case, dashes as "
            f"underscores ({example} is {variable(command, example)}); the command line wins, and a "
            f"repeatable flag's variable takes a comma-separated list.")
    if own:
        named = ", ".join(f"{option} reads {name}" for option, name in own.items())
        text += (f" Except where RAGMON_<FLAG> is another command's flag of the same name, meaning something "
                 f"else: {named}.")
    return text


class _LinesFormatter(argparse.HelpFormatter):
    """Help whose description and epilog keep their lines: a block of several lines (a command's exit
    statuses, the names a flag takes) is a list, each line filled to the terminal on its own with its
    continuation indented, where argparse's default would run them into one paragraph and
    RawDescriptionHelpFormatter keep each unbroken; a block of one line is a paragraph, filled as
    argparse does."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = text.split("\n\n")
        return "\n\n".join(self._fill_block(block.splitlines(), width, indent) for block in blocks)

    @staticmethod
    def _fill_block(lines: list[str], width: int, indent: str) -> str:
        hang = indent + "  " if len(lines) > 1 else indent
        return "\n".join(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=hang)
                         for line in lines)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP raised as an exception (`terminated_on_signal`), so that a subcommand cleans up
    before it exits (ragmon replay replaces its reports); a KeyboardInterrupt, so that asyncio and every
    handler treat it as Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__()
        self.signum = signum


class Stopped(Exception):
    """A signal a subcommand answered before it exits (ragmon replay replaced its reports): `main` prints
    the message, what the subcommand did, and exits with `status` (130 or 143)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def stop_reason(exc: KeyboardInterrupt) -> str:
    """How a report and the CI log name the signal that stopped a run."""
    if not isinstance(exc, Terminated):
        return "interrupted"
    return "hung up (SIGHUP)" if exc.signum == signal.SIGHUP else "terminated (SIGTERM)"


def stopped_by(exc: BaseException) -> str:
    """What an error report says stopped the run (`ragmon replay`'s, `ragmon calibrate`'s): the CLI's own
    one-line message where there is one."""
    if isinstance(exc, RagmonError):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return stop_reason(exc)
    return f"internal error (a bug in ragmon): {type(exc).__name__}: {exc}"


def unfinished(command: str, started: datetime) -> str:
    """What a report written before the run's work says, until the run replaces it with its own."""
    return (f"{command} started at {started.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC and has not finished: "
            "if it is no longer running, it was killed before it could write this report (SIGKILL: the "
            "out-of-memory killer, a CI job's time limit)")


def stop_status(exc: KeyboardInterrupt) -> int:
    return 128 + exc.signum if isinstance(exc, Terminated) else EXIT_INTERRUPTED


@contextlib.contextmanager
def terminated_on_signal() -> Iterator[Callable[[], None]]:
    """SIGTERM and SIGHUP stop the run as Ctrl-C does, raised as Terminated: by default each ends the
    process on the spot, leaving the previous run's reports to be published as this one's.

    Inside an event loop (a live replay, the Claude judge) it is handed to asyncio.run's own SIGINT
    handler, which cancels the main task so that every `async with` unwinds; raised at whatever bytecode
    was running, it would leave tasks with exceptions never retrieved, tracebacks on stderr. What comes out
    is then a KeyboardInterrupt, and it leaves here as Terminated.

    Once a signal has stopped the run, SIGTERM, SIGHUP and SIGINT are ignored until the process exits: the
    signal often comes twice (`timeout` signals the process and then its group), and a repeat must not kill
    the process while it replaces its reports. A signal ignored when this began (`trap '' TERM`, `nohup`)
    stays ignored, as Python leaves an ignored SIGINT; and on the way out a handler is put back only if it
    is still this one, so a subcommand's own (serve's, left ignoring them) stays.

    What it yields raises Terminated if a signal came and its exception was lost, and the block's end does
    the same. Python runs the handler between any two bytecodes, a finalizer's too (a generator or a
    connection collected mid-run), and an exception raised there is printed as "Exception ignored" and
    dropped: `ragmon demo --all`, SIGTERMed in CI, went on to the end and exited 0. A subcommand that
    waits or works in a loop calls it there, to stop promptly rather than at the end (the tour at each
    poll, ragmon replay after each example)."""
    received: int | None = None

    def checkpoint() -> None:
        # In an event loop the signal went to asyncio's handler, which cancels the main task: that is not
        # lost, and Terminated raised inside a task would leave it with an exception never retrieved.
        if received is not None and not _in_event_loop():
            raise Terminated(received)

    def terminate(signum: int, frame: FrameType | None) -> None:
        nonlocal received
        received = signum
        on_sigint = signal.getsignal(signal.SIGINT)
        if _in_event_loop() and callable(on_sigint) and on_sigint is not signal.default_int_handler:
            on_sigint(signal.SIGINT, frame)
            return
        raise Terminated(signum)

    with _replaced(dict.fromkeys(SHUTDOWN_SIGNALS - {signal.SIGINT}, terminate)) as installed:
        try:
            yield checkpoint
            checkpoint()
        except KeyboardInterrupt as exc:
            if installed:
                _ignore_stop_signals()
            if received is not None and not isinstance(exc, Terminated):
                raise Terminated(received) from None
            raise


@contextlib.contextmanager
def _replaced(handlers: Mapping[signal.Signals, Callable[[int, FrameType | None], None]]) -> Iterator[bool]:
    """`handlers` installed for the block over the signals `heeded` (one ignored when ragmon started stays
    ignored, for `stop_on_signals` too, which comes later); each put back on the way out if it is still
    there. Yields whether they were: only the main thread may set handlers (a program of its own calling a
    subcommand from another thread keeps its own)."""
    try:
        previous = {sig: signal.signal(sig, handlers[sig]) for sig in heeded(handlers)}
    except ValueError:
        yield False
        return
    try:
        yield True
    finally:
        for sig, handler in previous.items():
            if signal.getsignal(sig) is handlers[sig]:
                signal.signal(sig, handler)


def result_final() -> None:
    """The run's result is final (its reports written): SIGTERM, SIGHUP and SIGINT are ignored from here
    until the process exits, which then exits with the run's status. A signal just after the terminal
    showed PASS had replaced the reports with INCOMPLETE (exit 143), or once `main` had put the default
    handlers back, ended the process with 143, no word on stderr, and the reports saying PASS. One that
    came before runs its handler here (`signal.signal` runs pending ones first). Only the main thread may
    set handlers: from another, as `terminated_on_signal` installs none there, nothing changes."""
    with contextlib.suppress(ValueError):
        _ignore_stop_signals()


def _ignore_stop_signals() -> None:
    for sig in SHUTDOWN_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT while a subcommand is imported and its command line read: held, and raised
    (as Terminated or KeyboardInterrupt) once that is done, even when it failed. Raised at once, the signal
    would land in an import (SIGTERM ended the process at once, Ctrl-C gave a traceback)
    before the subcommand could answer it: a replay could not yet name the reports it must replace. The
    wait is that of the imports, well under a second."""
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    with _replaced(dict.fromkeys(SHUTDOWN_SIGNALS, hold)):
        yield
    if received:
        raise KeyboardInterrupt if received[0] == signal.SIGINT else Terminated(received[0])


SplitCheck = Callable[[str, str, str], str | None]
SPLIT_CHECK = "split_check"
"""The attribute of an action (set with setattr) whose value a user may type split in two, as
`--gate groundedness 0.85`: a SplitCheck of the flag's long option, its value and the argument after it,
giving the message to refuse them with, or None. Checked on a command's whole command line before argparse
reads it: argparse took the second half for a positional argument or an unrecognized one, and its error
named neither the flag nor the fix."""


class UsageError(Exception):
    """A command line argparse refused: raised rather than exiting there, so the subcommand can be told."""

    def __init__(self, parser: argparse.ArgumentParser, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message
        self.usage = usage
        """False for a bad RAGMON_* value: the command line was fine, and its usage would bury the line
        that names the variable."""


class _Parser(argparse.ArgumentParser):
    """A parser whose defaults may come from the environment (`_apply_env_defaults`), which knows, once it
    has parsed a command line, which values did: an error about such a value names the variable the user
    set, not a flag never typed (ragmon.options.Flag); and which flags were typed (TYPED)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # `--trace-wait -1s` gives the flag its value, for its type to refuse as negative.
        self._negative_number_matcher = NEGATIVE_VALUE
        self.from_environment: dict[argparse.Action, tuple[str, str]] = {}
        """The flags whose default a RAGMON_* variable gave: each one's long option, and the variable."""
        self.refused: dict[argparse.Action, str] = {}
        self._given: set[argparse.Action] = set()
        self.variable_warnings: tuple[str, ...] = ()
        """`misspelt_variables` of the chosen command, told once its command line is read: by the command,
        in its own log format, when it sets `_logs_variable_warnings` (serve's JSON lines)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)

    # typeshed's overloads type a caller's own Namespace subclass, which no caller here passes.
    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._given = set()
        parsed, unknown = super().parse_known_args(args, namespace)
        for action, message in self.refused.items():
            if action not in self._given:
                raise UsageError(self, message, usage=False)
        from_environment = dict(given for action, given in self.from_environment.items()
                                if action not in self._given)
        # A subcommand's parser sets its own first: the top-level one's (none) must not replace it.
        setattr(parsed, FROM_ENVIRONMENT, {**getattr(parsed, FROM_ENVIRONMENT, {}), **from_environment})
        setattr(parsed, TYPED, getattr(parsed, TYPED, frozenset()) | self._typed())
        setattr(parsed, REPLACED_VARIABLES, (*getattr(parsed, REPLACED_VARIABLES, ()), *self._replaced()))
        return parsed, unknown

    def _replaced(self) -> list[str]:
        """A warning for each repeatable flag's variable the command line replaced as a whole: a CI job's
        `RAGMON_GATE=groundedness=0.85` with a developer's `--gate recall=0.5` gates on recall alone, as the
        command line wins for every flag, where a list reads as though the two would add up (a walkthrough
        lost its gate so, without a word)."""
        return [f"{name}={action.default.value!r} is replaced by {flag} on the command line, not added to: "
                f"its values are not used (give them all with {flag}, or none)"
                for action, (flag, name) in self.from_environment.items()
                if action in self._given and isinstance(action.default, VariableList)]

    def _typed(self) -> frozenset[str]:
        """Each by its long option, as FROM_ENVIRONMENT names them: an abbreviation (`--lexical 0.5`) is
        the same choice as the flag written out."""
        longs = ([s for s in action.option_strings if s.startswith("--")] for action in self._given)
        return frozenset(options[0] for options in longs if options)

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        """Called for each flag the command line gives, and no other."""
        self._given.add(action)
        return super()._get_values(action, arg_strings)


class _CommandParser(_Parser):
    """A subcommand's parser. Everything after the command's name is the command's, so an argument it does
    not know is its error, told with its usage: argparse leaves unknown ones to the top-level parser, whose
    usage line (`ragmon [-h] [--version] COMMAND ...`) names none of the command's flags."""

    # typeshed's overloads type a caller's own Namespace subclass, which no caller here passes.
    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._refuse_split(list(sys.argv[1:] if args is None else args))
        parsed, unknown = super().parse_known_args(args, namespace)
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}{self._meant(unknown)}")
        return parsed, []

    def _refuse_split(self, args: list[str]) -> None:
        """A flag's value typed as two arguments, where the flag's action has a SPLIT_CHECK: refused before
        argparse reads them, in one line, as a bad value is (no usage)."""
        words = args[:args.index("--")] if "--" in args else args
        for index, word in enumerate(words):
            option, equals, value = word.partition("=")
            action = self._action_of(option)
            check: SplitCheck | None = getattr(action, SPLIT_CHECK, None)
            pair = [value, *words[index + 1:index + 2]] if equals else words[index + 1:index + 3]
            message = check(action.option_strings[0], *pair) if action and check and len(pair) == 2 else None
            if message is not None:
                raise UsageError(self, message, usage=False)

    def _action_of(self, word: str) -> argparse.Action | None:
        """The action of a long option as typed: written out, or abbreviated as argparse takes one."""
        if not word.startswith("--") or word == "--":
            return None
        if word in self._option_string_actions or not self.allow_abbrev:
            return self._option_string_actions.get(word)
        begun = {action for option, action in self._option_string_actions.items() if option.startswith(word)}
        return begun.pop() if len(begun) == 1 else None

    def _meant(self, unknown: list[str]) -> str:
        """The flag each unknown one is nearly, to end the error with: `--sample_rate`, `--samplerate` or
        `--gates` was refused naming none, and the user had the whole usage to search for the spelling."""
        options = [s for action in self._actions for s in action.option_strings if s.startswith("--")]
        guesses = []
        for word in unknown:
            written = word.partition("=")[0]
            if not written.startswith("--"):
                continue
            close = difflib.get_close_matches(written.lower().replace("_", "-"), options, n=1, cutoff=0.75)
            if close:
                guesses.append(f"{close[0]} for {written}")
        return f" (did you mean {', '.join(guesses)}?)" if guesses else ""


def parse_known(command: str, add_arguments: Callable[[argparse.ArgumentParser], None], argv: Sequence[str],
                environ: Mapping[str, str]) -> argparse.Namespace | None:
    """The flags `add_arguments` defines for `command`, read from a command line that was refused as a
    whole, with their RAGMON_* defaults; None when they do not parse either. Only flags written out in
    full are read: an abbreviation the whole command line found ambiguous (`--ju` for --judge,
    --judge-errors or --junit) must not be taken for one of these."""
    parser = _Parser(add_help=False, allow_abbrev=False)
    add_arguments(parser)
    try:
        _apply_env_defaults(parser, environ, command)
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


def build_parser(command: str | None, environ: dict[str, str] | None = None) -> _Parser:
    """Only the chosen subcommand's module is imported, so `replay` never pays for gRPC start-up."""
    environ = dict(os.environ) if environ is None else environ
    parser = _Parser(prog="ragmon", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"ragmon {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=_CommandParser)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text,
                                    formatter_class=_LinesFormatter)
        if name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)  # may give an epilog of the command's own, told before the variables
            sub.epilog = "\n\n".join(filter(None, (sub.epilog, _epilog(name, sub))))
            _apply_env_defaults(sub, environ, name)
            parser.variable_warnings = tuple(misspelt_variables(sub, environ, name))
            sub.set_defaults(_run=module.run, _variable_warnings=parser.variable_warnings)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Given no `argv`, the program (the console script, `python -m ragmon`): a stop signal ignored once a
    run's result is final (`result_final`) or once a run stopped stays ignored until the process exits,
    which then exits with the run's status. Given `argv`, a caller's own call (a test, a script running
    several commands), whose process goes on: its handlers are put back when main returns."""
    if argv is None:
        return _command(sys.argv[1:])
    with _handlers_kept():
        return _command(list(argv))


@contextlib.contextmanager
def _handlers_kept() -> Iterator[None]:
    kept = {sig: signal.getsignal(sig) for sig in SHUTDOWN_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            if handler is not None:
                with contextlib.suppress(ValueError):  # only the main thread may set handlers
                    signal.signal(sig, handler)


def _command(argv: list[str]) -> int:
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    try:
        with terminated_on_signal():
            return _main(command, argv)
    except Stopped as exc:
        note(f"{_prog(command)}: {printable(str(exc))}")
        return exc.status
    except KeyboardInterrupt as exc:  # Terminated too: before the subcommand began, or one it did not answer
        return _stopped(command, argv, exc)
    except Exception:
        # A bug, not bad input, wherever it happened (building the parser too): its traceback is what a
        # report needs, and its exit status must say "could not complete" (2), since Python's own 1 would
        # tell CI that a gate was breached. Through `note`, as a stderr that fails (a full disk) must not
        # raise here and leave Python to exit 1 after all.
        note(traceback.format_exc().rstrip("\n"))
        note(f"{_prog(command)}: internal error (a bug in ragmon: please report it with the traceback above)")
        return EXIT_ERROR


def _main(command: str | None, argv: list[str]) -> int:
    refused: UsageError | None = None
    with _signals_held():
        try:
            parser = build_parser(command)
        except ImportError as exc:
            # A broken install (a dependency missing from a CI image) is a run that could not complete, not
            # Python's exit status 1, which CI would read as a breached gate.
            extra = EXTRAS.get(command or "")
            problem = (MissingExtra(f"the {command} command", extra, exc) if extra is not None else
                       f"cannot load the {command} command: {exc} (a dependency of ragmon is missing: "
                       "reinstall it with its dependencies)")
            note(f"ragmon {command}: error: {printable(str(problem))}")
            return EXIT_ERROR
        try:
            args = parser.parse_args(argv)
        except UsageError as exc:
            _warn_of_variables(command, parser.variable_warnings)
            _tell_refused(exc)
            refused = exc
    if refused is not None:
        # Once the signals are no longer held: the error reports may wait for a FIFO's reader (`--json
        # fifo`), a wait that Ctrl-C or SIGTERM, held, had not ended.
        return _refused(command, argv, refused)
    if not getattr(args, "_logs_variable_warnings", False):
        _warn_of_variables(command, (*parser.variable_warnings, *getattr(args, REPLACED_VARIABLES, ())))
    try:
        return int(args._run(args))
    except Stopped:
        raise
    except RagmonError as exc:
        _report_error(args.command, str(exc))
        return EXIT_ERROR


def _report_error(command: str, message: str) -> None:
    """Why the command could not go on: a JSON log line where its log is JSON (`ragmon serve --log-format
    json`), at level error, as a log pipeline alerts on; otherwise the usual `ragmon <command>: error:`."""
    if logs_as_json():
        logging.getLogger(f"ragmon.{command}").error(message)
    else:
        note(f"ragmon {command}: error: {printable(message)}")


def _warn_of_variables(command: str | None, warnings: Sequence[str]) -> None:
    for warning in warnings:
        note(f"{_prog(command)}: warning: {warning}")


def _prog(command: str | None) -> str:
    return f"ragmon {command}" if command in SUBCOMMANDS else "ragmon"


def note(line: str) -> None:
    """A line on stderr, none when the process started with it closed (print() would send it to stdout,
    into the summary that CI logs grep) or when it is a terminal since closed (an ssh session dropped: its
    OSError would end the run with exit status 1, a breached gate to a script waiting on it)."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            print(inert(line), file=sys.stderr, flush=True)


def print_out(text: str, what: str) -> None:
    """`text` (`what` it is, for the error) on stdout. Text that cannot be printed is a run that did not
    complete: without this, the traceback (`| head` closing the pipe, a full disk) would call it a bug in
    ragmon, with an exit status that tells CI a gate was breached. It quotes answers and ids, which may
    hold characters the terminal's encoding lacks (a CI runner in an ASCII locale, a Windows console):
    those are shown as escapes, not an error.

    Standard output closed when the process started (`>&-`, sys.stdout is None) is output discarded on
    purpose, as with `>/dev/null`, and as a closed stderr is: nothing is printed. A stdout that is there but
    fails to take the text is an error."""
    if sys.stdout is None:
        return
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        sys.stdout.write(inert(text).encode(encoding, "backslashreplace").decode(encoding))
        sys.stdout.flush()
    except OSError as exc:
        raise RagmonError(f"cannot write {what} to standard output: {exc.strerror or exc}") from None


def print_beside(text: str, what: str, reports: Iterable[Path | None]) -> None:
    """`print_out`, or on stderr when one of the `reports` went to stdout (`--json /dev/stdout | jq`, as
    the error for `--json -` advises): its reader parses one report, which text following it made
    unreadable."""
    if any(path is not None and standard_stream(path) == 1 for path in reports):
        note(text.removesuffix("\n"))
    else:
        print_out(text, what)


def _stopped(command: str | None, argv: Sequence[str], exc: KeyboardInterrupt) -> int:
    """A signal the subcommand did not answer (it came before the subcommand began, or the subcommand has
    nothing to clean up): 130 or 143, and a line in the CI log saying so, where a cancelled job would
    otherwise show nothing. A subcommand module with a `stopped(argv, reason, status)` hook is given its
    part of the command line, as `usage_error` is (ragmon replay replaces the reports it names), and says
    what it did."""
    reason, status = stop_reason(exc), stop_status(exc)
    if (hooked := _hook(command, argv, "stopped")) is not None:
        hook, own = hooked
        reason = hook(own, reason, status)
    note(f"{_prog(command)}: {printable(reason)}")
    return status


def _tell_refused(error: UsageError) -> None:
    """argparse's usage line and message. argparse's own printing already passes over a stderr that fails
    or is closed, and `note` does too."""
    if error.usage:
        error.parser.print_usage(sys.stderr)
    note(f"{error.parser.prog}: error: {printable(error.message)}")


def _refused(command: str | None, argv: Sequence[str], error: UsageError) -> int:
    """Exit 2, once a subcommand module with a `usage_error(argv, message)` hook is given its part of the
    command line (ragmon replay replaces the reports it names)."""
    if (hooked := _hook(command, argv, "usage_error")) is not None:
        hook, own = hooked
        hook(own, error.message)
    return EXIT_ERROR


def _hook(command: str | None, argv: Sequence[str], name: str) -> tuple[Callable[..., Any], list[str]] | None:
    """The subcommand module's hook `name`, if it is imported and has one, and its part of the command
    line (what follows the subcommand's name)."""
    module = sys.modules.get(SUBCOMMANDS[command][0]) if command in SUBCOMMANDS else None
    hook = getattr(module, name, None)
    if hook is None or command is None:
        return None
    return hook, list(argv[argv.index(command) + 1:])


if __name__ == "__main__":
    # `python -m ragmon.cli` runs this file as __main__, a second copy beside the ragmon.cli that
    # subcommands import: its Terminated would not be theirs. Run the one they share.
    from ragmon.cli import main as shared_main

    sys.exit(shared_main())
