"""Errors a user can act on: the CLI prints their message and exits 2, never a traceback."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence


def printable(text: str) -> str:
    """`text` with each character that is not printable shown as its Python escape: a message names what
    the user typed or sent (a file name with a newline, an ANSI escape in a header), and it must reach
    the terminal on one line and as written, not restyle it."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
                   for char in text)


def _hex_escape(char: str) -> str:
    return f"\\x{ord(char):02x}"


def inert(text: str, escape: Callable[[str], str] = _hex_escape) -> str:
    """`text` with nothing a CI runner would act on in its log, where the reports, the summary and ragmon's
    own warnings and errors (quoting file names, ids, variables' values, claims) are printed: GitHub Actions
    runs a line that starts with `::` (after white space) as a workflow command, and its legacy `##[name]`
    anywhere in a line, as Azure Pipelines does `##vso[` and TeamCity `##teamcity[`. An example id
    `::group::x` at the start of the weakest examples' line folded the verdict line away, a sentence's
    `##[error]` made an annotation, a `##[add-mask]` or `##[stop-commands]` hid later lines or silenced the
    job's own commands. The character that makes each one is shown as its escape (`\\x3a`, `\\x5b`), as a
    control character is: the sentence stays recognisable, and nothing else changes. `escape` writes it
    in another syntax (the JSON report's `\\u005b`, which a reader decodes back). Text holding neither `##`
    nor `::`, nearly every log line and note, is returned without the regular expression's pass (it had
    doubled the cost of formatting a sidecar's JSON log line)."""
    if "##" not in text and "::" not in text:
        return text
    return _CI_COMMAND.sub(lambda found: found.group()[:-1] + escape(found.group()[-1]), text)


def json_escape(char: str) -> str:
    """`inert`'s escape inside JSON text: JSON's own (`\\u005b`), which every reader decodes back, so the
    text is as written to a parser and inert to a CI log."""
    return f"\\u{ord(char):04x}"


_CI_COMMAND = re.compile(r"^[^\S\n]*:(?=:)|##(?:vso|teamcity)?\[", re.MULTILINE)
"""A line's first `:` of two, after its white space; the `[` of `##[`, `##vso[`, `##teamcity[`."""


class RagmonError(Exception):
    """Base of every error whose message is meant for the user as it stands."""


class InputError(RagmonError):
    """Bad input, located as precisely as we can: file and line, field, span."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = ":".join(str(p) for p in (source, line) if p is not None)
        prefix = f"{where}: " if where else ""
        # A top-level field its message already names ("missing required field 'question'") is not named
        # twice; a nested one is ("missing required field 'text' (field 'contexts[0].text')").
        suffix = f" (field {field!r})" if field and not message.endswith(repr(field)) else ""
        super().__init__(f"{prefix}{message}{suffix}")


class ExamplesFailed(RagmonError):
    """The run stopped on what went wrong with some examples. Its one-line message names the commonest
    reasons and their first ids, counting the rest, as a terminal and a PR comment can take; `failed` is
    every (example id, reason), for the JSON report: a release engineer re-running or triaging the failed
    questions had no list of them anywhere."""

    def __init__(self, message: str, failed: Sequence[tuple[str, str]]) -> None:
        super().__init__(message)
        self.failed = tuple(failed)


class MissingExtra(RagmonError, ImportError):
    """A feature whose optional dependencies were left out: `pip install ragmon` brings only the offline
    gate's. The message names the extra that brings them, which "No module named 'grpc'" alone does not;
    an ImportError still, for code that probes for optional features the usual way."""

    def __init__(self, feature: str, extra: str, cause: ImportError) -> None:
        self.extra = extra
        super().__init__(f"{feature} needs the '{extra}' extra: pip install 'ragmon[{extra}]' ({cause})")
