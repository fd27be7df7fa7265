"""`ragmon replay`: score a golden dataset offline and gate a deploy on the result.

Exit 0 when every gate held, 1 when one breached, 2 when the run could not complete (bad input, a judge
that failed, an unreachable --target). The whole dataset is read and checked before any scoring, so a bad
line 10,000 stops the run before a paid judge has been called 9,999 times. With --target the answers come
from a running build instead of the file (see ragmon.target), all of them before scoring starts. With
--baseline, --max-drop gates compare with an earlier run's JSON report (ragmon.baseline), read and checked
to be comparable before scoring too.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import functools
import gc
import itertools
import math
import os
import socket
import stat
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ragmon import baseline as baselines
from ragmon import capture, datasets
from ragmon.cli import (
    EXIT_ERROR,
    EXIT_HUNG_UP,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    SPLIT_CHECK,
    Stopped,
    note,
    parse_known,
    print_beside,
    result_final,
    stop_status,
    stopped_by,
    terminated_on_signal,
    unfinished,
    variable,
)
from ragmon.datasets.formats import NEEDS_REVIEW
from ragmon.datasets.locate import LineOf
from ragmon.errors import ExamplesFailed, InputError, MissingExtra, RagmonError, printable
from ragmon.evaluation import aevaluate, evaluate, example_claims, verdicts_without_judge
from ragmon.example_warnings import (
    LookAlikes,
    answers_in_json,
    cites_by_position,
    json_answer_warning,
    loose_warning,
    loosely_named,
    positional_warning,
    unanswerable_otherwise,
    unanswerable_warning,
)
from ragmon.files import (
    Unwritten,
    check_not_directory,
    existing_file,
    file_at,
    holds_one_report,
    input_file,
    not_a_directory,
    not_waiting,
    unwritable,
    write_report,
)
from ragmon.gate import (
    EXIT_BREACHED,
    EXIT_OK,
    DropGate,
    GateResult,
    combine,
    decide,
    decide_drops,
    exit_code,
    parse_drops,
    parse_gates,
    split_gate,
)
from ragmon.judges.base import AsyncJudge, Judge
from ragmon.judges.claude import add_cli_arguments as add_claude_arguments
from ragmon.judges.claude import judge_from_args as claude_judge_from_args
from ragmon.judges.lexical import LexicalJudge
from ragmon.judges.lexical import add_cli_arguments as add_lexical_arguments
from ragmon.metrics.retrieval import RETRIEVAL_METRICS
from ragmon.model import LOWER_IS_BETTER, METRIC_NAMES, EvalConfig, Example, Report
from ragmon.options import (
    TYPED,
    Flag,
    byte_size,
    check_judge_flags,
    check_stdin_read_once,
    dataset_name,
    duration,
    flag_of,
    fraction,
    given_input,
    given_path,
    input_name,
    listen_address,
    long_options,
    non_negative_int,
    positive_duration,
    positive_int,
    report_file,
    typed_among,
)
from ragmon.progress import Progress
from ragmon.report import coverage, junit, markdown, text
from ragmon.report import json as json_report
from ragmon.rules import SCORING_RULES, scores_examples_alike

if TYPE_CHECKING:
    from ragmon.target import Lines, Target

JUDGES = ("lexical", "claude")
DEFAULT_MAX_SKIPPED = 0.05
"""The share of the examples the judge may fail on (`--judge-errors skip`) before the run decides nothing.
A mean over the others is within that share of the mean over all, whatever the skipped examples held (for
a metric in [0, 1] defined on each example), which is about the margin a gate is set with; and the SDK
already retries what a healthy API fails now and then, so losing more than 1 in 20 examples is an outage or
a request the judge cannot take (a 400), which must not go unnoticed behind a PASS. It leaves no room for
a skip in a set under 20 examples, where one is more than 5% of the evidence."""


EPILOG = "\n".join((
    f"exit: {EXIT_OK} gates held, {EXIT_BREACHED} breached, {EXIT_ERROR} could not complete; "
    f"{EXIT_INTERRUPTED} Ctrl-C, {EXIT_TERMINATED} SIGTERM, {EXIT_HUNG_UP} SIGHUP",
    f"--gate/--max-drop metrics ({', '.join(sorted(LOWER_IS_BETTER))} a maximum, the rest minima): "
    f"{', '.join(METRIC_NAMES)}",
    "ragmon JSONL record: id, question, contexts [{id, text, score}], answer, relevant_ids, citations, "
    "ground_truth, category, pipeline"))
"""What a CI job is written against, in --help: the exit statuses it branches on and the names it may
use, which otherwise only a typo's error lists. Built from the code's own constants, so it cannot drift."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("datasets", nargs="+", type=dataset_name, metavar="DATASET",
                        help="ragmon JSONL, eval-set JSON, trace JSON/JSONL or OTLP/JSON lines, gzipped or "
                             "not; format detected per file; - reads standard input")
    parser.add_argument("--k", type=positive_int, default=5, help="cut-off for retrieval metrics (default 5)")
    gate = parser.add_argument("--gate", action="append", default=[], metavar="NAME=VALUE",
                               help="minimum for a metric (a maximum for hallucination_rate); repeatable")
    parser.add_argument("--confidence", type=_confidence, default=None, metavar="LEVEL",
                        help="gate on the pessimistic bound of the interval at this level (e.g. 0.95)")
    parser.add_argument("--baseline", type=given_input, default=None, metavar="REPORT",
                        help="a JSON report of an earlier run (main's --json, say) to gate against with "
                             "--max-drop, on the examples both runs scored; - reads standard input")
    max_drop = parser.add_argument("--max-drop", action="append", default=[], metavar="NAME=DELTA",
                                   help="fail when a metric falls below --baseline's by more than DELTA "
                                        "(rises above it, for hallucination_rate); repeatable")
    for action in (gate, max_drop):
        setattr(action, SPLIT_CHECK, split_gate)
    parser.add_argument("--judge", choices=JUDGES, default="lexical", help="claim judge (default lexical)")
    add_lexical_arguments(parser)
    _add_report_arguments(parser)
    parser.add_argument("--worst", type=positive_int, default=markdown.DEFAULT_WORST, metavar="N",
                        help="weakest examples listed in the Markdown report and per breached gate in "
                             "the JUnit report (default 10)")
    parser.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                        help="score N times with a non-deterministic judge (default 1)")
    parser.add_argument("--min-pass-rate", type=fraction, default=None, metavar="R",
                        help="with --repeat: a gate holds when it held in at least this share of runs "
                             "(default 1: in every run)")
    parser.add_argument("--judge-errors", choices=("fail", "skip"), default="fail",
                        help="on a judge error: stop with exit 2 (default), or skip the example, reported")
    parser.add_argument("--max-skipped", type=fraction, default=None, metavar="SHARE",
                        help=f"with --judge-errors skip: the largest share of the examples the judge may "
                             f"fail on; past it no gate is decided and the run exits {EXIT_ERROR}, as "
                             f"incomplete (default {DEFAULT_MAX_SKIPPED:g}; 1: any number short of all)")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing on success or breach but the warning of a run without a gate")
    # --- Claude judge options (ragmon.judges.claude) ---
    _add_claude_settings(parser.add_argument_group("Claude judge (--judge claude; needs ANTHROPIC_API_KEY)"))
    # --- live replay (ragmon.target) ---
    live = parser.add_argument_group("live replay (--target): ask a running build the golden questions, "
                                     "score the traces it exports")
    live.add_argument("--target", metavar="URL",
                      help="POST each question to this URL with a traceparent header; answers and contexts "
                           "are read from the traces the build exports to --receiver-listen")
    _add_live_settings(live)


def _add_claude_settings(claude: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """The flags only the Claude judge reads, apart: `_check_judge_flags` reads their names."""
    claude.add_argument("--cache-dir", type=given_path, metavar="DIR",
                        help="keep Claude verdicts here, so re-runs (e.g. in CI) do not re-bill")
    add_claude_arguments(claude, prices=False)


def _add_live_settings(live: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """The flags that set how --target is asked, apart: `_check_live_settings` reads their names."""
    live.add_argument("--target-header-file", type=given_path, metavar="PATH",
                      help="HTTP headers sent with every question, one 'Name: value' per line (an "
                           "Authorization token, say): a file, so no secret shows in the process list")
    live.add_argument("--target-start-wait", type=duration, default="0s", metavar="DURATION",
                      help="how long the build may take to answer its first question: until then a refused "
                           "or dropped connection, 429, 502, 503 or 504 is asked again (default 0s: a build "
                           "that is not up fails the run after the usual retries, ~1 s)")
    live.add_argument("--target-field", default="question", metavar="NAME",
                      help="JSON field of the request body that carries the question (default %(default)s)")
    live.add_argument("--target-concurrency", type=positive_int, default=4, metavar="N",
                      help="requests in flight at once (default %(default)s)")
    live.add_argument("--target-timeout", type=positive_duration, default="30s", metavar="DURATION",
                      help="time allowed for each answer (default 30s)")
    live.add_argument("--target-retries", type=non_negative_int, default=2, metavar="N",
                      help="times a question is asked again after a 408, 429, 500, 502, 503 or 504 answer "
                           "(or a CDN's 520-524 or 529), a timeout or a lost connection, each time under a "
                           "new trace id (default %(default)s)")
    live.add_argument("--receiver-listen", type=listen_address, default="127.0.0.1:4318",
                      metavar="HOST:PORT",
                      help="OTLP/HTTP receiver for the build's spans (default %(default)s, where OTLP/HTTP "
                           "exporters send by default; port 0 picks a free port and prints it)")
    live.add_argument("--receiver-max-body", type=byte_size, default="16MiB", metavar="SIZE",
                      help="largest OTLP request the receiver takes (default 16MiB, as ragmon serve's "
                           "--max-body): raise it for a build whose spans hold documents of megabytes")
    live.add_argument("--trace-wait", type=duration, default="30s", metavar="DURATION",
                      help="after the last answer, how long the traces may take to arrive (default 30s)")
    live.add_argument("--trace-quiet", type=duration, default="10s", metavar="DURATION",
                      help="a trace is complete this long after its last span once its root has arrived "
                           "(default 10s, twice the OpenTelemetry SDKs' batch delay: a span ended after its "
                           "root's batch left, or by another service, comes up to 5 s after the next)")


def _add_report_arguments(parser: argparse.ArgumentParser, *, lenient: bool = False) -> None:
    """`lenient` for the error reports of a refused command line (`_replace_named_reports`): a path naming
    a directory is no report to replace, and the others are replaced all the same."""
    parser.add_argument("--json", type=report_file("report.json", lenient=lenient), metavar="PATH",
                        help="write the JSON report here")
    parser.add_argument("--markdown", type=report_file("report.md", lenient=lenient), metavar="PATH",
                        help="write the Markdown report here")
    parser.add_argument("--junit", type=report_file("report.xml", lenient=lenient), metavar="PATH",
                        help="write JUnit XML (one test per gate) here")


class RunIncomplete(RagmonError):
    """The run stopped after scoring, and its reports already say so and why: they are not replaced."""


def run(args: argparse.Namespace) -> int:
    """Every report asked for agrees with the exit status: a run that stops with exit 2 replaces each one
    with an error report (the previous run's green report left at the same path would be read by an
    `if: always()` publishing step as this run's), and so does one a signal stops, which then leaves as
    Stopped: the CI log of a cancelled job is told, where it got nothing but exit status 143."""
    started = datetime.now(UTC), time.monotonic()
    try:
        with terminated_on_signal() as checkpoint:
            return _replay(args, started, checkpoint)
    except RunIncomplete:
        raise
    except (Exception, KeyboardInterrupt) as exc:
        reason = stopped_by(exc)
        written = _write_error_reports(_replaceable_reports(args), reason, _run_info(started),
                                       status=_exit_status(exc), wait=not isinstance(exc, Unwritten),
                                       failed=exc.failed if isinstance(exc, ExamplesFailed) else ())
        if isinstance(exc, KeyboardInterrupt):
            raise Stopped(_stopped_line(reason, written), stop_status(exc)) from None
        result_final()
        raise


def _check_live_settings(args: argparse.Namespace) -> None:
    """Before anything is read: a live-replay setting typed without --target would be ignored without a
    word, and a CI job whose --target was lost (a variable left empty) would gate on the recorded answers,
    or on none. Only when typed, as for --max-skipped: a RAGMON_TARGET_TIMEOUT set for every job of a CI
    is a default."""
    typed = typed_among(args, long_options(_add_live_settings))
    if args.target is None and typed:
        variables = ", ".join(variable("replay", option) for option in typed.options)
        raise InputError(f"{typed} {typed.either('is', 'are')} given without --target: "
                         f"{typed.either('it sets', 'they set')} how a build is asked the questions, and "
                         "with no --target none is asked (the answers and contexts the dataset records are "
                         f"scored); leave {typed.either('it', 'them')} out for a run on the recorded "
                         f"answers, or set {variables}, {typed.either('a default', 'defaults')} read only "
                         "with --target")


def _check_judge_flags(args: argparse.Namespace) -> None:
    """A flag of the judge not chosen, typed, is refused (`check_judge_flags`). --judge takes one judge,
    so the way to use another is to give it in place of this run's."""
    check_judge_flags(args, (args.judge,), {"claude": long_options(_add_claude_settings),
                                            "lexical": long_options(add_lexical_arguments)},
                      lambda judge: f"give --judge {judge} for the {judge} judge to score the run")


def _replaceable_reports(args: argparse.Namespace) -> argparse.Namespace:
    """`args` without the report paths an error report must not replace: the run's inputs (the --baseline
    too, but for `--json`), a file of JSON data that is no ragmon report, and `$GITHUB_STEP_SUMMARY`.
    `ragmon replay --json golden.jsonl old-report.json` (--json read as "the input is JSON") stops on
    old-report.json, no dataset: its error report must not take the place of the golden set that --json
    swallowed. `--markdown main.json --baseline main.json` is refused, and its Markdown error report must
    not take the place of the baseline either: the next run would have none. Anything else is replaced,
    as a report the previous run left must be. `--json` may name the --baseline (a baseline that moves
    with each run): a run that stopped replaces it with its error, or a publishing step would show the
    baseline's pass as this run's. The step summary gets the error appended, as it gets any Markdown. A
    pipe or a file two flags name gets the first one's error report alone, which its reader can parse."""
    summary = _step_summary()
    kept = argparse.Namespace(**vars(args))
    named: set[tuple[int, int] | str] = set()
    for flag in _REPORT_MARKERS:
        path = getattr(kept, flag, None)
        if path is None:
            continue
        inputs = _input_files(args, baseline=flag != "json")
        if (_named_before(path, named) or existing_file(path) in inputs or _holds_data(path)
                or _same_file(path, summary)):
            setattr(kept, flag, None)
    return kept


def _step_summary() -> Path | None:
    """`$GITHUB_STEP_SUMMARY`, where GitHub Actions shows Markdown appended to it; None outside Actions."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    return Path(path) if path else None


def _summary_read(args: argparse.Namespace, summary: Path | None) -> str | None:
    """What `summary` (`$GITHUB_STEP_SUMMARY`) is to the run when it names one of its inputs (a dataset, the
    --baseline), or None: appended to, a golden set gained the Markdown report as lines of invalid JSON."""
    where = None if summary is None else existing_file(summary)
    return None if where is None else _input_files(args, baseline=True).get(where)


def _same_file(path: Path, other: Path | None) -> bool:
    where = file_at(path)
    return other is not None and where is not None and where == file_at(other)


def _holds_data(path: Path) -> bool:
    """Whether `path` is a file of JSON (or gzip) data other than a JSON report of ragmon's: a dataset."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        with path.open("rb") as handle:
            head = handle.read(512)
    except (OSError, ValueError):
        return False
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return head.startswith(b"\x1f\x8b") or (start[:1] in (b"{", b"[")
                                           and not start.startswith(_REPORT_MARKERS["json"]))


def _input_files(args: argparse.Namespace, *, baseline: bool) -> dict[tuple[int, int], str]:
    """The files the run reads (datasets, --target-header-file, and --baseline if asked), by device and
    inode, each with what it is to the run."""
    flags = ("baseline", "target_header_file") if baseline else ("target_header_file",)
    named = [*((name, "a dataset") for name in getattr(args, "datasets", ()) or ()),
             *((path, f"the {flag_of(args, '--' + flag.replace('_', '-'))} file") for flag in flags
               if (path := getattr(args, flag, None)) is not None)]
    return {key: what for path, what in named if (key := input_file(path)) is not None}


def _check_report_paths(args: argparse.Namespace) -> None:
    """Before anything is read: each report is written to a file of its own that is none of the inputs,
    which the report would overwrite (`ragmon replay golden.jsonl --json golden.jsonl`), nor another
    report (`--json out --junit out` keeps only the JUnit one), nor `$GITHUB_STEP_SUMMARY`, where the
    Markdown already goes (appended). `--json` may name the --baseline, read before anything is written:
    a baseline that moves with each run. Paths are compared as files: two names of one file, through a
    symlink or not, and whether it exists yet or not, are the same report path."""
    summary = _step_summary()
    if (read := _summary_read(args, summary)) is not None:
        raise InputError(f"$GITHUB_STEP_SUMMARY ({summary}) is {read} of this run: the Markdown report would "
                         f"be appended to it (the variable is set wrong)")
    if summary is not None and (why := _summary_unwritable(summary)) is not None:
        raise _summary_error(summary, why)
    named: dict[tuple[int, int] | str, tuple[Flag, Path]] = {}
    for flag in _REPORT_MARKERS:
        path = getattr(args, flag)
        if path is None:
            continue
        inputs = _input_files(args, baseline=flag != "json")
        where = file_at(path)
        report = flag_of(args, f"--{flag}")
        check_not_directory(path, report.given(str(path)))
        if isinstance(where, tuple) and where in inputs:
            raise InputError(f"{report.given(str(path))} is {inputs[where]} of this run: the report would "
                             f"overwrite it (--{flag} names the report to write)")
        where = where or _pipe_at(path)
        if where is None:
            continue  # a device (/dev/null, a terminal): no file to keep, nothing read back as one report
        if (why := unwritable(path)) is not None:  # found before the build is asked or a call paid for
            raise InputError(f"cannot write report: {why}", source=str(path))
        if _same_file(path, summary):
            raise InputError(f"{report.given(str(path))} is $GITHUB_STEP_SUMMARY, where the Markdown report "
                             f"already goes (appended to the job summary): give --{flag} a file of its own, "
                             f"or drop it")
        if where in named:
            first, written = named[where]
            both = (f"{first} and {report} both write to {path}" if written == path else
                    f"{first.given(str(written))} and {report.given(str(path))} are the same file")
            raise InputError(f"{both}: give each report a file of its own")
        named[where] = report, path


def _summary_unwritable(path: Path) -> str | None:
    """Why the step summary cannot be appended to, as far as can be told before anything is read, as for
    a report path: found when writing it, after every example was scored (every Claude verdict paid for),
    the run had been for nothing. Its directory is not made (`_write`), so one missing is told too."""
    if (why := unwritable(path)) is not None:
        return why
    if not path.parent.is_dir():
        return _directory_missing(path)
    return os.strerror(errno.EISDIR) if path.is_dir() else None


def _directory_missing(summary: Path) -> str:
    return (f"its directory {summary.parent} does not exist (GitHub Actions names a file that exists: the "
            f"variable is set wrong)")


def _summary_error(summary: Path, why: str) -> InputError:
    return InputError(f"cannot write the step summary ($GITHUB_STEP_SUMMARY): {why}", source=str(summary))


def _pipe_at(path: Path) -> tuple[int, int] | None:
    """Which pipe `path` names, by device and inode, else None: two reports written into one pipe
    (`--json /dev/stdout --junit /dev/stdout | jq`) reach its reader as one stream of JSON then XML,
    which no reader parses, as two reports written to one file keep only the last."""
    try:
        status = path.stat()
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISFIFO(status.st_mode) else None


def _named_before(path: Path, named: set[tuple[int, int] | str]) -> bool:
    """Whether `path` is a pipe or a file in `named`, those an earlier report flag named, which it joins:
    an error report is written into one once, by the first flag naming it, as its reader parses one
    report. A file too: `--json /dev/stdout --junit /dev/stdout > out.txt` appends through the descriptor,
    and the file had held the JSON error report and the JUnit one after it, which no reader parses. A file
    not written yet as well (`file_at`): `--json s.out --junit s.out` had kept the JUnit one when s.out did
    not exist, the JSON one when it did."""
    where = _pipe_at(path) or file_at(path)
    if where is None:
        return False
    if where in named:
        return True
    named.add(where)
    return False


def usage_error(argv: Sequence[str], message: str) -> None:
    """The command line was refused (exit 2), yet the reports it names are replaced all the same, as for
    any run that could not complete: a CI step publishing them would show the previous run's."""
    _replace_named_reports(argv, message, EXIT_ERROR)


def stopped(argv: Sequence[str], reason: str, status: int) -> str:
    """A signal came before the run began (while the command line was read): the reports it names are
    replaced as a refused command line's are, saying so, and the line the CI log gets says they were."""
    return _stopped_line(reason, _replace_named_reports(argv, reason, status))


def _replace_named_reports(argv: Sequence[str], message: str, status: int) -> int:
    """The reports a command line names, that did not run, replaced by error reports; how many files were
    written. Only the report flags are read, on their own (and RAGMON_JSON, ...); when they do not parse
    either (`--json` with no path), no file is named for sure, and none is written. A flag naming
    `$GITHUB_STEP_SUMMARY` writes nothing there: the error is appended to it, as a run's Markdown is, and
    the step's earlier summaries stay. A pipe or a file two flags name gets the first one's error report
    alone, as a run's."""
    paths = parse_known("replay", functools.partial(_add_report_arguments, lenient=True), argv, os.environ)
    if paths is None:
        return 0
    named: set[tuple[int, int] | str] = set()
    for flag, markers in _REPORT_MARKERS.items():
        path = getattr(paths, flag)
        if (path is None or _named_before(path, named) or not _replaceable(path, markers)
                or _same_file(path, _step_summary())):
            setattr(paths, flag, None)
    return _write_error_reports(paths, message, _run_info((datetime.now(UTC), time.monotonic())),
                                status=status)


_REPORT_MARKERS = {"json": (b'{"report_format"', b'{"ragmon_version"'), "markdown": (b"## ragmon replay",),
                   "junit": (b'<testsuite name="ragmon"',)}
"""How each report ragmon writes begins (JUnit: after the XML declaration; JSON before report_format came
first: with ragmon_version)."""


def _replaceable(path: Path | None, markers: tuple[bytes, ...]) -> bool:
    """Whether a refused command line may replace `path`: when it is no file yet, or is empty, or is a
    report ragmon wrote. The command line was refused, so what a flag swallowed may be no report path at
    all: `ragmon replay --json golden.jsonl` (for "the input is JSON") must not overwrite the golden set."""
    if path is None:
        return False
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            # A pipe or a device (`--json /dev/stdout | jq`): no earlier file to lose, and reading it
            # would wait for input that never comes (a pipe's other end is this process's own stdout).
            return True
        with path.open("rb") as handle:
            head = handle.read(512)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return not head or any(marker in head for marker in markers)


def _exit_status(exc: BaseException) -> int:
    """What the CLI exits with for `exc`, which the error reports state."""
    return stop_status(exc) if isinstance(exc, KeyboardInterrupt) else EXIT_ERROR


def _stopped_line(reason: str, written: int) -> str:
    """What the CI log is told of a run a signal stopped: otherwise nothing, exit 143 alone."""
    return f"{reason}: the reports say INCOMPLETE" if written else reason


def _replay(args: argparse.Namespace, started: tuple[datetime, float], checkpoint: Callable[[], None]) -> int:
    check_stdin_read_once((*args.datasets, args.baseline), "the datasets and --baseline")
    datasets.check_each_named_once(args.datasets)
    _check_report_paths(args)
    _check_live_settings(args)
    _check_judge_flags(args)
    _check_min_pass_rate(args)
    _check_max_skipped(args)
    gates = parse_gates(args.gate, flag_of(args, "--gate"))
    drops = parse_drops(args.max_drop, flag_of(args, "--max-drop"))
    baseline = _baseline(args, drops)
    target = _target(args)
    judge = build_judge(args)
    if baseline is not None:  # before scoring: a paid judge is not called for figures compared with nothing
        baselines.check_comparable(baseline, json_report.json_value({"name": judge.name, **judge.settings()}),
                                   args.k)
    _write_unfinished_reports(args, started)
    told: datasets.Skipped = []
    examples, lines, unreviewed = _loaded(args.datasets, told, live=target is not None)
    not_rag = [entry for entry in told if entry[1] == datasets.NOT_RAG]
    if not examples:  # a file with no record at all has raised already: only traces that are not RAG
        raise InputError(f"no examples to score in {', '.join(map(input_name, args.datasets))}: "
                         f"{len(not_rag)} recorded trace(s) are not RAG")
    if not_rag and not args.quiet:
        note(f"skipped {len(not_rag)} recorded trace(s) that are not RAG (no retrieval, no generation): "
              f"{_listed(not_rag)}")
    # Examples scored with requests of their trace left unscored: the recorded traces' when they are scored;
    # with --target, the build's traces' (the recorded answers are replaced, their requests asked anew).
    set_aside = [entry for entry in told if entry[1] != datasets.NOT_RAG]
    if target is None and not args.quiet:
        _warn_set_aside(set_aside, "trace")
    # With --target the build answers anew: there is no sidecar's figure to score as it did.
    settings = () if target is not None else (*_other_settings(examples, args), *_other_rules(examples))
    run_warnings = (*unreviewed, *settings)
    if not args.quiet:
        for said in run_warnings:
            note(f"ragmon replay: warning: {said}")
    caveats = () if baseline is None else tuple(baselines.caveats(baseline, examples))
    if not args.quiet:
        for caveat in caveats:
            note(f"ragmon replay: warning: {caveat}")
    if target is not None:
        from ragmon.target import collect

        recorded = sum(e.answer is not None or e.contexts is not None for e in examples)
        if recorded and not args.quiet:  # a RAGMON_TARGET left set would otherwise replace them unseen
            note(f"ragmon replay: note: --target asks the build every question: the answers and contexts "
                 f"{recorded} of the {len(examples)} examples record are not scored, the build's are")

        asking = Progress(sys.stderr, enabled=not args.quiet, words=("asking", "asked", "questions"),
                          checkpoint=checkpoint)
        set_aside = []
        try:
            examples = collect(examples, target, log=None if args.quiet else sys.stderr, progress=asking,
                               set_aside=set_aside, lines=lines)
        finally:
            asking.close()
        if not args.quiet:
            _warn_set_aside(set_aside, "example")
    elif all(e.answer is None and e.contexts is None for e in examples):
        raise InputError(f"nothing to score in {', '.join(map(input_name, args.datasets))}: no example "
                         f"records an answer or retrieved contexts (an eval-set file holds questions and "
                         f"labels only: replay it against a build with --target URL)")
    progress = Progress(sys.stderr, enabled=not args.quiet, checkpoint=checkpoint)
    # The dataset, then the results, live until the end: frozen, the collector stops rescanning them on
    # every full collection while scoring and rendering allocate (JSON report ~3x faster at 10,000).
    gc.freeze()
    try:
        # The run's warnings of the examples are the ones located at their lines, in the report's place.
        reports = [replace(report, skipped=(*not_rag, *report.skipped),
                           warnings=_scored(set_aside, report), run_warnings=run_warnings)
                   for report in score_runs(examples, judge, _config(args), args.repeat, progress,
                                            skip_judge_errors=args.judge_errors == "skip",
                                            concurrency=args.llm_concurrency)]
        gc.freeze()
        comparisons = [None if baseline is None else _compared(baseline, r, drops, caveats) for r in reports]
        results = combine([decide(r, gates, args.confidence)
                           + (() if c is None else decide_drops(c, drops, args.confidence, r.config))
                           for r, c in zip(reports, comparisons, strict=True)],
                          1.0 if args.min_pass_rate is None else args.min_pass_rate)
        report, comparison = reports[0], comparisons[0]
        incomplete = _judge_failed(judge, reports, examples, _max_skipped(args))
        _write_reports(report, results, args, _run_info(started), incomplete, comparison, run_warnings)
    finally:
        progress.close()
        gc.unfreeze()
    result_final()  # before the verdict is printed, so that a signal once it shows cannot contradict it
    if comparison is not None and not args.quiet:  # after the progress bar's line is ended
        for caveat in comparison.caveats[len(caveats):]:
            note(f"ragmon replay: warning: {caveat}")
    if not results and incomplete is None:
        # Even with --quiet: it is about the configuration, not the run's progress, and a CI variable left
        # empty (RAGMON_GATE=) would otherwise turn the gate off without a word.
        note("ragmon replay: warning: no --gate given: the run passes whatever the figures")
    if not args.quiet:
        if args.repeat > len(reports):
            note(f"judge {judge.name} is deterministic: scored once, not {args.repeat} times")
        runs = f"scored {len(reports)} times; figures below are from run 1\n" if len(reports) > 1 else ""
        summary = text.render(report, results, incomplete=incomplete, comparison=comparison,
                              run_warnings=run_warnings)
        print_beside(runs + summary, "the summary", (args.json, args.markdown, args.junit))
    if incomplete is not None:
        raise RunIncomplete(incomplete)
    return exit_code(results)


def _compared(baseline: baselines.Baseline, report: Report, drops: Sequence[DropGate],
              caveats: Sequence[str]) -> baselines.Comparison:
    """The comparison with `caveats`, those told before scoring, ahead of those the scores tell (which
    the caller prints after scoring): every report repeats them all."""
    comparison = baselines.compare(baseline, report, {drop.metric for drop in drops})
    return replace(comparison, caveats=(*caveats, *comparison.caveats))


def _baseline(args: argparse.Namespace, drops: Sequence[DropGate]) -> baselines.Baseline | None:
    """The --baseline report, read and checked before anything is scored; each flag is useless alone."""
    if drops and args.baseline is None:
        raise InputError(f"{flag_of(args, '--max-drop')} needs --baseline REPORT: the --json report of the "
                         "run to compare with (main's, say)")
    if args.baseline is None:
        return None
    if not drops:
        given = flag_of(args, "--baseline").given(str(args.baseline))
        raise InputError(f"{given} needs --max-drop NAME=DELTA (repeatable): without one, nothing is "
                         "compared")
    return baselines.load(args.baseline)


def _check_min_pass_rate(args: argparse.Namespace) -> None:
    """--min-pass-rate decides among the runs of --repeat: with one, it would be ignored without a word.
    Only when typed: a RAGMON_MIN_PASS_RATE set for every job of a CI (some repeating, some not) is a
    default, and must not break the jobs that score once."""
    typed = args.min_pass_rate is not None and flag_of(args, "--min-pass-rate").variable is None
    if typed and args.repeat == 1:
        raise InputError(f"--min-pass-rate {args.min_pass_rate:g} needs --repeat N (N of 2 or more): with "
                         f"one run, a gate holds or it does not")


def _check_max_skipped(args: argparse.Namespace) -> None:
    """--max-skipped bounds the examples --judge-errors skip leaves out: without it, the first judge error
    stops the run, and a share typed for it would be ignored without a word. Only when typed, as for
    --min-pass-rate: a RAGMON_MAX_SKIPPED set for every job of a CI is a default."""
    flag = flag_of(args, "--max-skipped")
    if args.max_skipped is not None and flag.variable is None and args.judge_errors != "skip":
        raise InputError(f"{flag.given(f'{args.max_skipped:g}')} needs --judge-errors skip: without it, the "
                         f"first judge error stops the run (exit {EXIT_ERROR}) and no example is skipped")


def _max_skipped(args: argparse.Namespace) -> tuple[float, Flag]:
    """The share in force, and the flag or variable it came from: the error names what to change."""
    share = DEFAULT_MAX_SKIPPED if args.max_skipped is None else args.max_skipped
    return share, flag_of(args, "--max-skipped")


def _judge_failed(judge: Judge, reports: Sequence[Report], examples: Sequence[Example],
                  max_skipped: tuple[float, Flag]) -> str | None:
    """Why the run cannot be trusted when the judge failed on every example it had to judge, or on more
    of them than --max-skipped allows: the figures left rest on the examples the judge did not fail on,
    which need not be like the others (a judge refusing long answers leaves out the hardest), so a PASS,
    or a breach, would say nothing true about the build. Exit 2, as for a judge error without `skip`: the
    measurement failed, not the build, and an incomplete report cannot become the next run's --baseline.
    Decided before any report is written, so none of them says PASS. Of the worst of --repeat's runs."""
    failed = max(len(coverage.judge_skipped(r)) for r in reports)
    if failed and failed == sum(verdicts_without_judge(e, example_claims(e)) is None for e in examples):
        return (f"the {judge.name} judge failed on all {failed} examples it had to judge, so no claim was "
                f"judged (the reports list why)")
    share, flag = max_skipped
    allowed = math.floor(share * len(examples) + 1e-9)  # 0.29 * 100 is 28.999999999999996
    if failed > allowed:
        return (f"the {judge.name} judge failed on {failed:,} of {len(examples):,} examples, more than "
                f"{flag.given(f'{share:g}')} allows (at most {allowed:,}), so no gate was decided on the "
                f"{len(examples) - failed:,} left (the reports list why each was skipped)")
    return None


def _write_reports(report: Report, results: Sequence[GateResult], args: argparse.Namespace,
                   run_info: junit.RunInfo, incomplete: str | None,
                   comparison: baselines.Comparison | None, run_warnings: Sequence[str]) -> None:
    """Every requested file, and the CI step summary when GitHub Actions provides one."""
    page = functools.cache(lambda: markdown.render(report, results, worst=args.worst, incomplete=incomplete,
                                                   comparison=comparison, run_warnings=run_warnings))
    _write_all(args, as_json=lambda: json_report.pieces(report, results, incomplete=incomplete,
                                                        comparison=comparison, run_warnings=run_warnings),
               as_markdown=page,
               as_junit=lambda: junit.render(report, results, worst=args.worst, run=run_info,
                                             incomplete=incomplete, comparison=comparison,
                                             run_warnings=run_warnings))


def _write_error_reports(args: argparse.Namespace, message: str, run_info: junit.RunInfo, *,
                         status: int | None = EXIT_ERROR, wait: bool = True,
                         failed: Sequence[tuple[str, str]] = ()) -> int:
    """Best effort: when the error is that a report cannot be written, or a second one comes up here,
    the error the user must see is the first. How many files were written. A signal's (`status` 130, 143,
    129) wait for no pipe's reader: its stop signals are ignored by now, and a FIFO nobody reads had held
    the run in open() for good, stopped by nothing short of SIGKILL. So do those of a report that could
    not be written (`wait` false: `Unwritten`). The JSON one lists every example in `failed`, by id
    and reason; the others, as `message`, name the first few. `status` None: the run has not ended
    (`_write_unfinished_reports`), and the step summary, appended to, gets nothing."""
    return _write_all(args, as_json=lambda: json_report.render_error(message, failed),
                      as_markdown=lambda: markdown.render_error(message, status=status),
                      as_junit=lambda: junit.render_error(message, run=run_info, status=status),
                      best_effort=True, wait=wait and status == EXIT_ERROR, step_summary=status is not None)


def _write_unfinished_reports(args: argparse.Namespace, started: tuple[datetime, float]) -> None:
    """Before anything is read or scored, each report file an error report may replace says the run has
    not finished. A run killed outright (SIGKILL: the out-of-memory killer, a CI job's time limit), which
    no handler sees, had left the previous run's reports in place, and an `if: always()` publishing step
    showed their pass as this run's. Regular files only: a pipe's reader, or standard output, would get
    this report and the run's after it."""
    files = _replaceable_reports(args)
    for flag in _REPORT_MARKERS:
        path = getattr(files, flag)
        if path is not None and not holds_one_report(path):
            setattr(files, flag, None)
    _write_error_reports(files, unfinished("ragmon replay", started[0]), _run_info(started), status=None)


def _write_all(args: argparse.Namespace, *, as_json: Callable[[], Text], as_markdown: Callable[[], str],
               as_junit: Callable[[], str], best_effort: bool = False, wait: bool = True,
               step_summary: bool = True) -> int:
    """The step summary is appended: the Markdown report, which fits a PR comment, fits it too. How many
    files were written."""
    outputs: list[tuple[Path | None, Callable[[], Text], bool]] = [
        (args.json, as_json, False), (args.markdown, as_markdown, False), (args.junit, as_junit, False)]
    summary_path = _step_summary() if step_summary else None
    if summary_path is not None and _summary_read(args, summary_path) is None:
        outputs.append((summary_path, as_markdown, True))
    written = 0
    for path, render, summary in outputs:
        if path is None:
            continue
        try:
            _write(path, render(), summary=summary, wait=wait)
        except Exception:
            if not best_effort:
                raise
        else:
            written += 1
    return written


def _run_info(started: tuple[datetime, float]) -> junit.RunInfo:
    return junit.RunInfo(started[0], time.monotonic() - started[1], socket.gethostname())


def build_judge(args: argparse.Namespace) -> Judge:
    """The one place a judge is chosen from the command line; new judges plug in here."""
    if args.judge == "claude":
        return claude_judge_from_args(args, cache_dir=args.cache_dir)
    return LexicalJudge(args.lexical_threshold)


def is_deterministic(judge: Judge) -> bool:
    """What the judge declares (`deterministic`); one that says nothing is assumed to vary."""
    return bool(getattr(judge, "deterministic", False))


def score_runs(examples: Sequence[Example], judge: Judge, config: EvalConfig, repeat: int,
               progress: Callable[[int, int], None] | None = None, *,
               skip_judge_errors: bool = False, concurrency: int = 1) -> list[Report]:
    """Repeats only help when the judge can disagree with itself; a deterministic one is scored once.
    A network judge is given `concurrency` examples at once."""
    runs = 1 if is_deterministic(judge) else repeat
    if concurrency > 1 and isinstance(judge, AsyncJudge):
        return [asyncio.run(_score_concurrently(examples, judge, config, progress, concurrency,
                                                skip_judge_errors)) for _ in range(runs)]
    return [evaluate(examples, judge, config, progress, skip_judge_errors=skip_judge_errors)
            for _ in range(runs)]


async def _score_concurrently(examples: Sequence[Example], judge: AsyncJudge, config: EvalConfig,
                              progress: Callable[[int, int], None] | None, concurrency: int,
                              skip_judge_errors: bool) -> Report:
    try:
        return await aevaluate(examples, judge, config, progress, concurrency=concurrency,
                               skip_judge_errors=skip_judge_errors)
    finally:
        aclose = getattr(judge, "aclose", None)
        if aclose is not None:  # the async client's connections belong to this event loop, ending here
            await aclose()


def _loaded(paths: Sequence[str], told: datasets.Skipped, *, live: bool,
            ) -> tuple[list[Example], Lines, tuple[str, ...]]:
    """The examples; for a live run (`live`) each one's file and line, by id: its errors about
    examples name them, as every other error about a golden record does. Left empty otherwise: a line of a
    whole-JSON file is found from its text, which would be kept to the end of the run for nothing. Then
    the run's warnings about them: the examples nobody has reviewed yet, those marking a question
    unanswerable in words ragmon does not read, and, but for a live run, whose recorded citations and
    contexts are not scored, those citing by position and those naming a context's id only with white
    space or case aside, and those answering with a JSON object (`_Flagged`)."""
    examples: list[Example] = []
    lines: dict[str, tuple[str, LineOf]] = {}
    unreviewed = _Flagged(lambda example: example.extra.get(NEEDS_REVIEW) is True)
    positional = _Flagged(cites_by_position)
    otherwise = _Flagged(lambda example: unanswerable_otherwise(example) is not None)
    loosely = _Flagged(lambda example: loosely_named(example) is not None)
    in_json = _Flagged(answers_in_json)
    alike = LookAlikes()
    for example, source, line_of in datasets.located(paths, skipped=told):
        examples.append(example)
        unreviewed.add(example, source, line_of)
        positional.add(example, source, line_of)
        otherwise.add(example, source, line_of)
        loosely.add(example, source, line_of)
        in_json.add(example, source, line_of)
        alike.add(example.id, functools.partial(_at, source, line_of))
        if live:
            lines[example.id] = (source, line_of)
    return examples, lines, (*_unreviewed_warning(unreviewed), *alike.warning(),
                             *(() if live else _file_warning(positional, positional_warning)),
                             *_file_warning(otherwise, unanswerable_warning),
                             *(() if live else _file_warning(loosely, loose_warning)),
                             *(() if live else _file_warning(in_json, json_answer_warning)))


class _Flagged:
    """The examples a run warning is about, counted per file, with the lines of the first few located as
    their file is read (a whole-JSON file's text is not kept for them), and the first one."""

    def __init__(self, applies: Callable[[Example], bool]) -> None:
        self.applies = applies
        self.counts: Counter[str] = Counter()
        self.shown: list[tuple[str, int]] = []
        self.first: Example | None = None

    def add(self, example: Example, source: str, line_of: LineOf) -> None:
        if not self.applies(example):
            return
        self.counts[source] += 1
        if self.first is None:
            self.first = example
        if len(self.shown) < _LINES_SHOWN:
            self.shown.append((source, line_of()))

    def files(self) -> str:
        return _joined(list(self.counts))

    def places(self) -> str:
        """Their lines, each file's named when there are several, and how many more: `lines 2, 4, 5`."""
        several = len(self.counts) > 1
        places = "; ".join(f"{source + ' ' if several else ''}{_lines([line for _, line in shown])}"
                           for source, shown in itertools.groupby(self.shown, key=lambda seen: seen[0]))
        count = self.counts.total()
        return places + (f" and {count - len(self.shown):,} more" if count > len(self.shown) else "")


def _unreviewed_warning(flagged: _Flagged) -> tuple[str, ...]:
    """The examples still marked `"needs_review": true` (`ragmon serve --capture` marks every line it
    writes): a gate run on them gates on production text nobody reviewed, or on a line a reviewer rejected
    without deleting it, and had scored them without a word. The run's warning, of no example: the reports
    list it with the capture's other run warnings."""
    count = flagged.counts.total()
    if not count:
        return ()
    return (f"{_examples(count, verb=False)} of {flagged.files()} still need{'s' * (count == 1)} review "
            f'("{NEEDS_REVIEW}": true: {flagged.places()}): set it to false once reviewed, or delete the '
            "line",)


def _at(source: str, line_of: LineOf) -> str:
    return f"{source}:{line_of()}"


def _file_warning(flagged: _Flagged, warning: Callable[[Example, str, str], str]) -> tuple[str, ...]:
    """A warning of `ragmon.example_warnings` of the examples `flagged`, naming their files and lines."""
    if flagged.first is None:
        return ()
    which = f"{_examples(flagged.counts.total(), verb=False)} of {flagged.files()}"
    return (warning(flagged.first, which, flagged.places()),)


_LINES_SHOWN = 5
"""Lines of unreviewed examples a warning names: enough to open the file at, not a flood of them."""


def _lines(numbers: Sequence[int]) -> str:
    return f"line{'s' * (len(numbers) > 1)} {', '.join(map(str, numbers))}"


def _joined(names: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _target(args: argparse.Namespace) -> Target | None:
    if args.target is None:
        return None
    try:  # aiohttp: ~150 ms of start-up, and an install, that only --target needs
        from ragmon.target import Target
    except ImportError as exc:
        raise MissingExtra("--target", "target", exc) from exc
    return Target.from_args(args)


def _warn_set_aside(set_aside: Sequence[tuple[str, str]], what: str) -> None:
    """Examples scored with requests of their trace left unscored, said as serve logs it: the first in
    whole, then how many more, by `what` their ids are (a recorded trace's id, a golden example's)."""
    if not set_aside:
        return
    (first, why), others = set_aside[0], [printable(example_id) for example_id, _ in set_aside[1:]]
    more = (f" (so are {len(others)} more: {', '.join(others[:5])}{' ...' * (len(others) > 5)})"
            if others else "")
    note(f"ragmon replay: warning: {what} {printable(first)}: {why}{more}")


_SCORED_WITH = {capture.K: f"retrieval figures ({', '.join(RETRIEVAL_METRICS)})",
                capture.THRESHOLD: "claim verdicts and the figures made of them (groundedness, "
                                   "hallucination_rate, ...)"}
"""What a sidecar setting that a capture records (`capture.recorded_settings`) changes, by its flag."""


def _ranked(example: Example) -> bool:
    """Whether its retrieval figures change with k: without relevant ids they are undefined at any k, and
    with nothing retrieved 0 at any k. Production captures mostly record no relevant ids: counting them
    warned of retrieval figures no example had."""
    return bool(example.relevant_ids) and bool(example.contexts)


def _judged(example: Example) -> bool:
    """Whether a judge decides its claims, the only verdicts a threshold moves: an abstention (no claim)
    and an answer with no contexts to support it get theirs without one."""
    return verdicts_without_judge(example, example_claims(example)) is None


_DEPENDS = {capture.K: _ranked, capture.THRESHOLD: _judged}
"""Whether an example's figures depend on the setting, by its flag: one whose figures are the same at
any value is not counted, whatever value it records."""


def _answered(example: Example) -> bool:
    """Whether it has an answer and contexts, all a judge needs to decide claims: `_judged` without the
    split, which an older capture, warned of whole, paid for on every record (20,000 lines replayed in
    5.9 s, not 4.7). An abstention is counted too, hence the count's "with an answer and contexts"."""
    return bool(example.answer) and bool(example.contexts)


_MAY_DEPEND = {capture.K: (_ranked, ""), capture.THRESHOLD: (_answered, " with an answer and contexts")}
"""`_DEPENDS` for the records that leave the setting unsaid, by what is cheap to tell, and what the
warning's count says of the examples it counts."""


def _may_depend(flag: str, example: Example) -> bool:
    depends, _ = _MAY_DEPEND[flag]
    return depends(example)


def _other_settings(examples: Sequence[Example], args: argparse.Namespace) -> tuple[str, ...]:
    """A warning for each setting this run scores with other than the sidecar that captured the examples,
    for the terminal and the reports alike: replayed at the default --k 5, a capture made at `--k 1` gave
    other retrieval figures than the dashboard's without a word. The figures stay this run's, as asked;
    the warning names the flag that gives the sidecar's. Of the run, not of an example: the reports list
    it apart from the examples' warnings (their `run_warnings`). The threshold matters only to a lexical
    judge, and a record no capture wrote records none. A record an older sidecar captured without a
    setting (`_unrecorded`) is warned of too: its figures may or may not be the sidecar's."""
    ours: dict[str, float] = {capture.K: args.k}
    if args.judge == "lexical":
        ours[capture.THRESHOLD] = args.lexical_threshold
    recorded: dict[str, list[tuple[float, Example]]] = {flag: [] for flag in ours}
    unsaid: Counter[str] = Counter()
    for example in examples:
        for flag, value in capture.recorded_settings(example).items():
            if flag in recorded:
                recorded[flag].append((value, example))
        unsaid.update(flag for flag in _unrecorded(example) if flag in ours and _may_depend(flag, example))
    differing = (_differing(flag_of(args, flag), ours[flag], values) for flag, values in recorded.items())
    unknown = (_unknown(flag_of(args, flag), ours[flag], unsaid[flag]) for flag in ours
               if unsaid[flag] and not _explicit(args, flag_of(args, flag)))
    return tuple(warning for warning in (*differing, *unknown) if warning is not None)


def _other_rules(examples: Sequence[Example]) -> tuple[str, ...]:
    """A warning when captured examples were scored by a sidecar whose scoring rules (ragmon.rules) scored
    examples otherwise than this run's, or by one that recorded none (before 4 December 2026): after an
    upgrade of either, a replay of the capture differed from the dashboard with no flag to blame. No flag
    restores them either: the ragmon the sidecar ran does."""
    recorded = [_recorded_rules(example) for example in examples]
    # A capture holds per-example figures alone: rules that moved only intervals scored it as this run does.
    counts = Counter(rules for rules in recorded
                     if rules not in (_UNCAPTURED, None) and not scores_examples_alike(rules))
    unsaid = recorded.count(None)
    warnings = []
    if counts:
        count = counts.total()
        each = " or ".join(f"{rules} ({_examples(n, verb=False)})" if len(counts) > 1 else str(rules)
                           for rules, n in sorted(counts.items()))
        warnings.append(f"{_examples(count)} captured by a sidecar whose scoring rules were {each}, this "
                        f"run's are {SCORING_RULES}: {_its(count)} claims, verdicts and figures may not be "
                        f"the sidecar's (replay with the ragmon the sidecar ran to score as it did; {_KEPT})")
    if unsaid:
        warnings.append(f"{_examples(unsaid)} captured by an older ragmon sidecar that did not record its "
                        f"scoring rules: {_its(unsaid)} claims, verdicts and figures are this run's (scoring "
                        f"rules {SCORING_RULES}), which may not be the sidecar's ({_KEPT})")
    return tuple(warnings)


_KEPT = "set needs_review to false on the lines you keep as a golden set, to silence this"
"""How a user keeps captured lines for their own figures, which a scoring-rules warning does not concern."""

_UNCAPTURED = 0
"""`_recorded_rules` of a record no capture wrote: no value of SCORING_RULES, which starts at 1."""


def _recorded_rules(example: Example) -> int | None:
    """`metadata.scoring_rules` of a captured record awaiting review; None where its capture wrote none (an
    older sidecar, or a reviewer's edit that is no value); `_UNCAPTURED` for a record no capture wrote, or
    one a reviewer took into a golden set (`needs_review` no longer true): its figures are this run's to
    gate on, not a sidecar's to compare with, and no flag would silence a warning on every run."""
    metadata = example.extra.get("metadata")
    if not isinstance(metadata, dict) or not metadata.keys() >= _CAPTURED or \
            example.extra.get(NEEDS_REVIEW) is not True:
        return _UNCAPTURED
    rules = metadata.get("scoring_rules")
    return rules if isinstance(rules, int) and not isinstance(rules, bool) and rules >= 1 else None


_CAPTURED = frozenset({"trace_id", "judge", "captured_at"})
"""The `metadata` every sidecar's capture has written (`capture.record`), since the first: a record that
has it was captured, whatever it leaves unsaid."""


def _unrecorded(example: Example) -> tuple[str, ...]:
    """The sidecar settings a captured record leaves unsaid, because the ragmon that captured it recorded
    none: `--k` before 4 December 2026 (`metadata.k`), `--lexical-threshold` before 1 December
    (`metadata.judge_settings`). Replayed, such a capture, kept or appended to across an upgrade, gave
    this run's figures at its defaults as if they were the sidecar's, without a word."""
    metadata = example.extra.get("metadata")
    if not isinstance(metadata, dict) or not metadata.keys() >= _CAPTURED:
        return ()
    unsaid = [] if "k" in metadata else [capture.K]
    if metadata["judge"] == "lexical" and "judge_settings" not in metadata:
        unsaid.append(capture.THRESHOLD)
    return tuple(unsaid)


def _explicit(args: argparse.Namespace, flag: Flag) -> bool:
    """Whether the user chose the setting (its RAGMON_* variable, or its flag typed at any value): then it
    is the one to score with, and a warning they cannot silence by giving it, every run, would be noise.
    Typed at its default too: the sidecar's defaults are replay's, so `--k 5` is how a user says the
    sidecar ran at 5."""
    return flag.variable is not None or flag.option in getattr(args, TYPED, frozenset())


def _unknown(flag: Flag, ours: float, count: int) -> str:
    """The warning for examples whose figures may depend on a setting their capture did not record."""
    counted, (_, which) = _examples(count, verb=False), _MAY_DEPEND[flag.option]
    return (f"{counted}{which} {_was(count)} captured by an older ragmon sidecar that did not record its "
            f"{flag.option}: {_its(count)} {_SCORED_WITH[flag.option]} are this run's at "
            f"{flag.given(str(ours))}, which may not be the sidecar's (pass the sidecar's {flag.option} to "
            "score as it did, and to silence this warning)")


def _changed(option: str, ours: float, recorded: Sequence[tuple[float, Example]]) -> Counter[float]:
    """How many examples whose figures `option` changes (`_DEPENDS`) record each value; empty when none of
    them records another value than ours. For the threshold the check splits each example's claims (1.4 s for
    20,000 records), so it runs on the records of another value alone, and on those of ours only when
    there is a warning to count them in: a capture replayed at its own settings, the usual run, pays
    nothing for it. Ours counts only the examples it changes, as the other values do: one whose figures
    are the same at any value needs no replay apart, and counted it would turn the "pass --k 1" of a
    capture whose changed examples all record 1 into "mixed --k"."""
    depends = _DEPENDS[option]
    counts = Counter(value for value, example in recorded if value != ours and depends(example))
    if counts and (same := sum(depends(example) for value, example in recorded if value == ours)):
        counts[ours] = same
    return counts


def _differing(flag: Flag, ours: float, recorded: Sequence[tuple[float, Example]]) -> str | None:
    """The warning for one setting, None when every example it changes was scored at ours: the value
    the examples record and the flag to pass, or, recorded at several values, each with its count."""
    counts = _changed(flag.option, ours, recorded)
    if not counts:
        return None
    run, changed = flag.given(str(ours)), _SCORED_WITH[flag.option]
    if len(counts) == 1:
        ((value, count),) = counts.items()
        return (f"{_examples(count)} captured by a sidecar at {flag.option} {value}, this run is at "
                f"{run}: {_its(count)} {changed} are not the sidecar's (pass {flag.option} {value} to score "
                "as it did)")
    other = counts.total() - counts[ours]
    each = ", ".join(f"{flag.option} {value} ({_examples(count, verb=False)})"
                     for value, count in sorted(counts.items()))
    return (f"the examples were captured at mixed {flag.option}: {each}; this run is at {run}, so the "
            f"{changed} of {_examples(other, verb=False)} are not the sidecar's (replay each "
            f"{flag.option} apart, passing it, to score as the sidecar did)")


def _examples(count: int, *, verb: bool = True) -> str:
    """"1 example was", "3 examples were"; without the verb, "1 example"."""
    named = f"{count:,} example{'' if count == 1 else 's'}"
    return f"{named} {_was(count)}" if verb else named


def _was(count: int) -> str:
    return "was" if count == 1 else "were"


def _its(count: int) -> str:
    """The pronoun of `count` examples: "1 example was ...: their figures" read as a slip."""
    return "its" if count == 1 else "their"


def _scored(set_aside: Sequence[tuple[str, str]], report: Report) -> tuple[tuple[str, str], ...]:
    """The warnings of the examples `report` scored: one the judge failed on (`--judge-errors skip`) is
    in its skipped list, and each run of a --repeat may skip others."""
    scored = {result.example.id for result in report.results}
    return tuple(entry for entry in set_aside if entry[0] in scored)


def _listed(skipped: Sequence[tuple[str, str]], shown: int = 5) -> str:
    more = f" and {len(skipped) - shown} more (all listed in the reports)" if len(skipped) > shown else ""
    return ", ".join(example_id for example_id, _ in skipped[:shown]) + more


def _config(args: argparse.Namespace) -> EvalConfig:
    """Intervals at the --confidence the gates decide on: the table showed 95% ones beside a gate passing
    on an 80% bound that no report showed."""
    if args.confidence is None:
        return EvalConfig(k=args.k)
    return EvalConfig(k=args.k, confidence=args.confidence)


def _confidence(text: str) -> float:
    value = fraction(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1: {text}")
    return value


Text = str | Iterator[str]
"""A report's text, or its pieces in order (the JSON report's, written as they come: `json_report.pieces`)."""


def _write(path: Path, content: Text, *, summary: bool = False, wait: bool = True) -> None:
    """A report's directories are made, as a CI job names one it has not (`--junit reports/r.xml`). The
    step `summary`'s, appended to, are not: GitHub Actions names a file that exists, so a directory
    missing is a variable set wrong, not one to make (as root, wherever it points). Without `wait`, a pipe
    with no reader (`mkfifo`) is an error (ENXIO), not a wait for one, nor is a full pipe."""
    text = [content] if isinstance(content, str) else content
    try:
        if not summary:
            write_report(path, text, wait=wait)
            return
        # A lone surrogate as its escape, as `write_report` writes one. Not in the JSON report, which holds
        # U+FFFD instead (jq and serde_json refuse the escape).
        with open(path, "a", encoding="utf-8", errors="backslashreplace",
                  opener=None if wait else not_waiting) as handle:
            handle.write("\n\n" if _unended(path) else "")
            handle.writelines(text)
    except OSError as exc:
        why = not_a_directory(path) or exc.strerror or str(exc)
        if not summary:
            raise Unwritten(f"cannot write report: {why}", source=str(path)) from None
        raise _summary_error(path, _directory_missing(path) if isinstance(exc, FileNotFoundError) else why
                             ) from None


def _unended(path: Path) -> bool:
    """Whether the step summary `path` ends in a line without its newline, as an earlier step's `printf`
    leaves it: the report's heading appended there would be that line's text, not a heading. A summary
    that cannot be read (no permission) is taken as ended, and appended to as it is."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        with path.open("rb") as handle:
            if handle.seek(0, os.SEEK_END) == 0:
                return False
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) != b"\n"
    except OSError:
        return False
