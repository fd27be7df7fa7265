"""argparse value types shared by the subcommands, so `2s`, `500ms` and `0.1` mean one thing everywhere,
and so does an input named `-`: standard input; and how an error names a flag (`Flag`)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import math
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ragmon.errors import InputError

MiB = 1 << 20


def mib(size: int) -> str:
    """A size as messages show it: in MiB, rounded up so that none shows as less than it is, to whole ones
    from 10, under that to a tenth, under one to a hundredth. Rounded up to whole MiB, `--max-buffer 512KiB`
    was told as "1 MiB" beside its 90% written 471859."""
    if size % MiB == 0 or size >= 10 * MiB:
        return f"{-(-size // MiB)} MiB"
    places = 2 if size < MiB else 1
    return f"{math.ceil(size * 10**places / MiB) / 10**places:.{places}f} MiB"


_SIZE = re.compile(r"^\s*(-?)(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE | re.ASCII)
_SIZE_UNITS = {"b": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30}
_DURATION = re.compile(r"^\s*(-?)(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.ASCII)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
_DECIMAL = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*", re.ASCII)
_WHOLE = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)
NEGATIVE_VALUE = re.compile(r"^-(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[a-zA-Z%]*$")
"""A command-line word that is a negative value (`-1`, `-0.5`, `-1s`, `-1MiB`, `-5%`), not an option:
argparse's own pattern takes `-1s` for an unknown option, and a flag given it was refused with "expected
one argument", where its value is what is wrong (ragmon.cli)."""


class NotANumber(ValueError):
    """A value `decimal` refuses; `hint` ends a message with what to write instead, or is empty."""

    def __init__(self, text: str) -> None:
        self.hint = _other_digits(text) or _decimal_comma(text)
        super().__init__(f"not a number: {text!r}{self.hint}")


def decimal(text: str) -> float:
    """A number written with the digits 0-9 (a sign, a point, an exponent). Python's float() takes more, and
    each is a slip in a flag's value: `0_5` is 5.0 (digits grouped as in Python source), so a gate meant as
    0.5 was refused as out of range; `٠.٥` is 0.5 (another script's digits), taken without a word; `nan`
    and `inf`, which no bound compares with."""
    if _DECIMAL.fullmatch(text) is None:
        raise NotANumber(text)
    return float(text)


def number(text: str) -> float:
    """argparse type for a number of any range, refused by `decimal`'s rule as every number flag is; the
    caller checks the range, naming what the flag's value must be."""
    try:
        return decimal(text)
    except NotANumber as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _other_digits(text: str) -> str:
    return " (write it with the digits 0-9)" if any(c.isdecimal() and not c.isascii() for c in text) else ""


_DECIMAL_COMMA = re.compile(r"\s*[+-]?(?:0,\d+|\d+,(?:\d{1,2}|\d{4,}))\s*", re.ASCII)


def _decimal_comma(text: str) -> str:
    """The point for a comma typed the way much of Europe writes decimals (`groundedness=0,85`). A comma
    before three digits (`1,000`) may group thousands instead, so it gets no hint unless the value is 0,..."""
    if _DECIMAL_COMMA.fullmatch(text) is None:
        return ""
    return f" (a decimal comma: write {text.strip().replace(',', '.')})"


def duration(text: str) -> float:
    """Seconds from `500ms`, `2s`, `5m`, `1h` or a bare number of seconds."""
    match = _DURATION.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r}"
                                         f"{_other_digits(text) or ' (use e.g. 500ms, 2s, 5m)'}")
    if match.group(1):
        raise argparse.ArgumentTypeError(f"a duration cannot be negative: {text.strip()!r}")
    seconds = float(match.group(2)) * _UNIT_SECONDS[match.group(3)]
    if not math.isfinite(seconds):  # 400 digits make inf, which timers and deadlines cannot take
        raise argparse.ArgumentTypeError(f"too long a duration: {text!r}")
    return seconds


def positive_duration(text: str) -> float:
    """A duration above zero: for a timeout, where aiohttp reads 0 as none at all, or a window."""
    seconds = duration(text)
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be longer than 0: {text!r}")
    return seconds


def fraction(text: str) -> float:
    """A rate in [0, 1]; one written as a percentage (`50%`, `95`) is refused with the share to write."""
    try:
        value = decimal(text)
    except NotANumber as exc:
        raise argparse.ArgumentTypeError(f"{exc}{as_share(text)}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {text}{as_share(text)}")
    return value


_WHOLE_PERCENT = re.compile(r"\s*\+?0*(?:[2-9]|[1-9][0-9]|100)\s*")
"""An out-of-range value read as a percentage whose `%` was left out: a whole number from 2 to 100 (`85`,
`2`), the way percentages are written. Any other gets no guess: `1.5` is far likelier a slip (for 0.15, or
for 1) than 1.5%, and "write 0.015" would turn a groundedness minimum into a gate that always holds."""


def as_share(raw: str) -> str:
    """For a share written as a percentage (`85%`, `1.5%`: the `%` written; or a whole number from 2 to
    100), the share to write instead, as a parenthesis to end a message with; nothing for anything else."""
    text = raw.strip()
    if _WHOLE_PERCENT.fullmatch(text):
        text += "%"
    if not text.endswith("%"):
        return ""
    number = text.removesuffix("%").strip()
    try:
        percent = decimal(number)
    except NotANumber:
        return ""
    return f" (write {percent / 100:g} for {number}%)" if 0.0 <= percent <= 100.0 else ""


def positive_int(text: str) -> int:
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def non_negative_int(text: str) -> int:
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text}")
    return value


LARGEST_WHOLE = 2**63 - 1
"""The largest count or size a flag takes: what a signed 64-bit integer holds, far past any real setting.
A larger one (400 digits) passed the parser and failed as an internal error where it became a float (a
gauge of the sidecar's limits, `float()` overflowing)."""


def _whole_number(text: str) -> int:
    """As `decimal`: `1_000` and another script's digits are refused, which int() takes."""
    if _WHOLE.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}{_other_digits(text)}")
    return _at_most_largest(int(text), text)


def _at_most_largest(value: int, text: str) -> int:
    if value > LARGEST_WHOLE:
        raise argparse.ArgumentTypeError(f"too large: {text[:30]}{'...' if len(text) > 30 else ''} (at most "
                                         f"{LARGEST_WHOLE})")
    return value


class ListenAddress(tuple[str, int]):
    """A `listen_address`: (host, port), and the value as `written` (stripped), which a message about it
    quotes: `--http-listen :0` was quoted `0.0.0.0:0`, and an empty host, every interface unsaid, could
    not be told from a `0.0.0.0` written on purpose."""

    written = ""


def host_left_empty(address: tuple[str, int]) -> bool:
    """Whether the user wrote no host (`:4318`), which `listen_address` reads as 0.0.0.0."""
    return isinstance(address, ListenAddress) and address.written.startswith(":")  # IPv6 is in brackets


def written_address(address: tuple[str, int]) -> str:
    """A listen address as the user wrote it, or, made otherwise (a test's ServeConfig), as
    `shown_address` writes it."""
    return address.written if isinstance(address, ListenAddress) and address.written \
        else shown_address(*address)


def listen_address(text: str) -> ListenAddress | None:
    """`host:port` (IPv6 as `[::1]:4317`); `off` disables the listener.

    What the resolver would take and bind elsewhere than meant, or not at all, is refused here, before
    the workers start, naming the setting: a URL (`http://0.0.0.0:4318`, the app's OTLP endpoint pasted
    in) failed at start as "Name or service not known"; a bracket left open (`[::1:4318`) listened on
    ::1; an IPv6 host out of brackets (`::1:4318`) is also the address ::1:4318 without a port. Spaces
    around the value (a manifest's quoted `" 0.0.0.0:4318"`) are dropped: they made a host no resolver
    knows. An empty host (`:4318`) is every IPv4 interface, as `0.0.0.0` is (`ragmon.service` warns of an
    OTLP receiver there without a token, and tells of one on `0.0.0.0`)."""
    address = text.strip()
    if address.lower() == "off":
        return None
    scheme, sep, _ = address.partition("://")
    if sep:
        raise argparse.ArgumentTypeError(f"not a listen address: {text!r} (a URL: give its host:port "
                                         f"alone, without {scheme + sep!r})")
    host, sep, port = address.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"not a listen address: {text!r} (use host:port or off)")
    host = _listen_host(host, text) or "0.0.0.0"
    try:
        host.encode("idna")  # as the resolver will: an empty label (`a..b`) or one of 64+ letters fails there
    except UnicodeError:
        raise argparse.ArgumentTypeError(f"not a host name: {host!r} in {text!r}") from None
    parsed = ListenAddress((host, int(port)))
    parsed.written = address
    return parsed


def _listen_host(host: str, text: str) -> str:
    """`listen_address`'s host: an IPv6 address in brackets and out of them, any other as written."""
    bracketed = host.startswith("[") and host.endswith("]")
    inner = host[1:-1] if bracketed else host
    if "[" in inner or "]" in inner or host.startswith("[") != bracketed or (bracketed and not _ipv6(inner)):
        raise argparse.ArgumentTypeError(f"not a listen address: {text!r} (brackets enclose an IPv6 host: "
                                         "[::1]:4317)")
    if ":" in inner and not bracketed:
        raise argparse.ArgumentTypeError(f"not a listen address: {text!r} (an IPv6 host goes in brackets: "
                                         f"[{inner}]:port)")
    if any(c.isspace() for c in inner):
        raise argparse.ArgumentTypeError(f"not a host name: {inner!r} in {text!r} (it holds a space)")
    return inner


def _ipv6(host: str) -> bool:
    """Whether `host` is an IPv6 address, with a zone (`fe80::1%eth0`) or not: brackets hold nothing else,
    and "[]" or "[:]" had bound every IPv4 interface, or failed once the workers had started."""
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def on_loopback(host: str) -> bool:
    """Whether a `listen_address` host takes connections from this machine alone: a loopback address
    (127.0.0.0/8, ::1) or `localhost`. Any other name counts as beyond it: what it resolves to is the
    bind's to know, and it may be the pod's IP."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.partition("%")[0]).is_loopback
    except ValueError:
        return False


def shown_address(host: str, port: int) -> str:
    """A `listen_address` written back as the flag takes it: an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def byte_size(text: str) -> int:
    """`16MiB`, `512KiB`, `1MB` or a bare number of bytes."""
    match = _SIZE.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}"
                                         f"{_other_digits(text) or ' (use e.g. 16MiB, 512KiB, 1000000)'}")
    unit = (match.group(3) or "b").lower().removesuffix("b") or "b"
    value = int(match.group(2)) * _SIZE_UNITS[unit]
    if match.group(1) or value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte: {text}")
    return _at_most_largest(value, text)


def dataset_name(text: str) -> str:
    """A dataset's name, for replay and calibrate. Empty (`ragmon replay "$GOLDEN"` with the variable unset)
    is refused here, as pathlib reads it as `.`: the error was "cannot read dataset: Is a directory",
    naming no file."""
    if not text:
        raise argparse.ArgumentTypeError("empty: name a dataset file, or - for standard input")
    return text


def given_path(text: str) -> Path:
    """A path typed on the command line. Empty (`--baseline "$BASE"` with the variable unset) is refused:
    pathlib reads it as `.`, and a token file was "Is a directory", a --baseline or --capture silently
    not given. A blank RAGMON_* variable never gets here: it is an unset one (ragmon.cli)."""
    if not text:
        raise argparse.ArgumentTypeError("empty: name the file (a variable left unset in the command line?)")
    return Path(text)


def given_file(text: str) -> Path:
    """`given_path` for a file ragmon writes beside others of its own (--capture's FILE.1, a budget
    file's FILE.lock): a path without a file name (`.`, `/`) is refused, as it has no such siblings."""
    path = given_path(text)
    if not path.name:
        raise argparse.ArgumentTypeError(f"not a file: {text!r}")
    return path


def report_path(text: str) -> Path:
    """A file a report is written to. Empty (`--json "$REPORT"` with the variable unset) is refused here, as
    pathlib reads it as `.`, the working directory: the run scored everything, then failed to write a
    report to `.`, a path the user never gave."""
    if not text:
        raise argparse.ArgumentTypeError("empty: name the file to write")
    if text == STDIN:  # a file named "-" was written, where an input's "-" is standard input
        raise argparse.ArgumentTypeError("'-' is no file to write: to print the report, give /dev/stdout")
    return Path(text)


_SEPARATORS = tuple(sep for sep in (os.sep, os.altsep) if sep)


def report_file(example: str, *, lenient: bool = False) -> Callable[[str], Path | None]:
    """argparse type of a report flag: `report_path`, refusing a path that ends in a separator, which
    names a directory (`--junit reports/`). pathlib drops the separator, so where no `reports` existed
    yet (a fresh CI checkout) the report was written to a file named `reports`, the run passed, and the
    CI's `reports/*.xml` found nothing. `example` is the file name the error suggests in that directory.
    `lenient` reads such a path as no report at all, for the error reports of a refused command line
    (ragmon.replay), which replaces the others all the same."""

    def parse(text: str) -> Path | None:
        end = _directory_end(text)
        if end is None:
            return report_path(text)
        if lenient:
            return None
        raise argparse.ArgumentTypeError(f"{text!r} ends in {end!r}, so it names a directory: name the file "
                                         f"to write the report to ({os.path.join(text, example)}, say)")

    return parse


def _directory_end(text: str) -> str | None:
    """How a path names a directory whether it exists or not, by its end: a separator, or `.` or `..` as
    its last part (`out/.`, which pathlib also reads as `out`), else None."""
    if text.endswith(_SEPARATORS):
        return text[-1]
    last = os.path.basename(text)
    return last if last in (".", "..") else None


STDIN = "-"
"""An input named `-` is standard input, as for most command-line tools: `zcat golden.jsonl.gz | ragmon
replay -`. A file of that name is `./-`."""
STDIN_NAME = "<stdin>"
"""Standard input as messages name it, as Python's own do (a traceback, fileinput): `-` alone reads as a
typo, and `/dev/stdin` as a file the user never named."""


def is_stdin(name: str | os.PathLike[str]) -> bool:
    """Only the string as given: pathlib writes `./-`, a file, as `-` too."""
    return isinstance(name, str) and name == STDIN


def input_name(name: str | os.PathLike[str]) -> str:
    """What a message calls an input: its path, or STDIN_NAME."""
    return STDIN_NAME if is_stdin(name) else str(name)


def given_input(text: str) -> Path | str:
    """`given_path`, with `-` kept as STDIN."""
    return STDIN if text == STDIN else given_path(text)


def stdin_bytes() -> BinaryIO:
    """Standard input's bytes, left open: it is the process's. When the process started with it closed
    (`<&-`), the OSError that opening a missing file would raise, so callers report both alike."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, "standard input is closed")
    return sys.stdin.buffer


def check_stdin_read_once(names: Iterable[str | os.PathLike[str] | None], among: str) -> None:
    """Before anything is read: standard input can be read only once. Named twice (`- -`, or `-` and
    `--baseline -`), the second read would find it empty, and the error would blame the input for that.
    `among` says where it was named."""
    named = sum(is_stdin(name) for name in names if name is not None)
    if named > 1:
        raise InputError(f"standard input (-) is named {named} times among {among}: it can be read only once")


FROM_ENVIRONMENT = "_from_environment"
"""The parsed command line's attribute (ragmon.cli sets it) mapping each flag whose value came from a
RAGMON_* variable, by its long option, to that variable."""
TYPED = "_typed"
"""The parsed command line's attribute (ragmon.cli's parser sets it) holding the long option of each flag
the command line gave, whatever its value: a value equal to the default does not tell a flag typed from
one left out, and `--k 5`, typed to say the sidecar ran at 5, is the user's choice as much as `--k 1`
(ragmon.replay)."""
REPLACED_VARIABLES = "_replaced_variables"
"""The parsed command line's attribute (ragmon.cli's parser sets it) holding a warning for each repeatable
flag's RAGMON_* variable the command line replaced, told as the command tells its other warnings."""


@dataclass(frozen=True, slots=True)
class Flag:
    """A flag as an error about its value names it. A value that came from a RAGMON_* variable is named by
    the variable first: the user set that, and may never have typed the flag (a CI job's or a chart's
    environment)."""

    option: str
    variable: str | None = None

    def __str__(self) -> str:
        return self.option if self.variable is None else f"{self.variable} ({self.option})"

    @property
    def named(self) -> str:
        """In parentheses after what it set: "RAGMON_HTTP_LISTEN, --http-listen", or the flag alone."""
        return self.option if self.variable is None else f"{self.variable}, {self.option}"

    @property
    def setting(self) -> str:
        """What the user set, to change: the variable, else the flag."""
        return self.variable or self.option

    def given(self, value: str) -> str:
        """The flag with its value: `--gate 'x'`, or `RAGMON_GATE 'x' (--gate)`."""
        if self.variable is None:
            return f"{self.option} {value}"
        return f"{self.variable} {value} ({self.option})"


def flag_of(args: argparse.Namespace, option: str) -> Flag:
    """`option` of a parsed command line, with the variable its value came from, if one did."""
    return Flag(option, getattr(args, FROM_ENVIRONMENT, {}).get(option))


def long_options(add_arguments: Callable[[argparse.ArgumentParser], None]) -> tuple[str, ...]:
    """The long option of each flag `add_arguments` defines, as TYPED names them: a check
    for flags typed where the run does not read them covers a flag added there later without a word."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    longs = ([s for s in action.option_strings if s.startswith("--")] for action in parser._actions)
    return tuple(options[0] for options in longs if options)


@dataclass(frozen=True, slots=True)
class Typed:
    """Flags typed on a command line, as one error names them all: "--a is", or "--a, --b are"."""

    options: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.options)

    def __str__(self) -> str:
        return ", ".join(self.options)

    def either(self, one: str, many: str) -> str:
        """`one` for a single flag, `many` for more: "it sets" or "they set"."""
        return one if len(self.options) == 1 else many


def typed_among(args: argparse.Namespace, options: Iterable[str]) -> Typed:
    """Those of `options` the command line gave, at any value (its default too: `--llm-model X` typed at
    the default is as much a choice as any other). A value a RAGMON_* variable gave is none of them: a
    variable is a default for every run of a CI or a chart, read by the runs that need it, and no error
    in the others."""
    typed: frozenset[str] = getattr(args, TYPED, frozenset())
    return Typed(tuple(option for option in options if option in typed))


def check_judge_flags(args: argparse.Namespace, judges: Collection[str], flags: Mapping[str, Iterable[str]],
                      use: Callable[[str], str]) -> None:
    """Before anything is read: a judge's flag typed for a run that does not use that judge is refused.
    Ignored without a word, `--llm-model claude-x` typed with `--judge claude` forgotten had the user
    believe Claude judged the run, on the lexical judge's figures. `judges` are the run's, `flags` each
    judge's own flags, by its name; `use` says how the command takes a judge it is not using."""
    for judge, options in flags.items():
        typed = typed_among(args, options)
        if judge in judges or not typed:
            continue
        chosen = " and ".join(judges)
        if (variable := flag_of(args, "--judge").variable) is not None:
            chosen += f" ({variable})"  # set for every run of a CI job, and never typed here
        raise InputError(f"{typed} {typed.either('is', 'are')} given without --judge {judge}: "
                         f"only the {judge} judge reads {typed.either('it', 'them')}, and this run's "
                         f"judge{'s are' if len(judges) > 1 else ' is'} {chosen}; {use(judge)}, or leave "
                         f"{typed.either('it', 'them')} out")
