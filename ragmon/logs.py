"""How ragmon writes log lines, in one place so that every part that logs does it the same way.

`ragmon serve` writes one line per record, as JSON or as text, with the `extra=` fields of the call.
A problem that comes with the traffic (a sender, or an app, misconfigured the same way on every request
or trace) recurs at the traffic's rate: hundreds of identical lines a second bury everything else and
fill the disk. Such lines go through a `LineLimit`: at most one per problem per `WINDOW_SECONDS`, and
that line counts the ones left out since the previous one.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import UTC, datetime

from ragmon.errors import inert, json_escape, printable
from ragmon.jsontext import loads

_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line, with whatever `extra=` fields the call site attached.

    The time is RFC 3339 in UTC with milliseconds (`2026-12-01T13:42:39.123Z`), what Loki, Elasticsearch
    and Cloud Logging parse as it is: a local time without its offset is an hour or more off wherever
    the pod's time zone is not UTC, and whole seconds cannot order the lines of one burst."""

    def format(self, record: logging.LogRecord) -> str:
        doc = {"time": rfc3339(record.created), "level": record.levelname.lower(),
               "logger": record.name, "message": record.getMessage()}
        doc.update({k: v for k, v in vars(record).items() if k not in _RECORD_FIELDS})
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        line = json.dumps(doc, default=str)
        # A header's byte that is not UTF-8 (a user agent's) reaches a field as a lone surrogate, written
        # "\udcff": no character, for which strict parsers (serde, jq 1.6) refuse the whole line. It becomes
        # U+FFFD, as in the JSON report; only a line holding a surrogate escape (an emoji's pair too) is
        # read back for it, and the line stays ASCII. A sender's `##[error]` is escaped as the reports escape
        # it (`inert`): a sidecar run in a CI job (an end-to-end test, the demo) logs to the CI log.
        return inert(json.dumps(loads(line)) if "\\ud" in line else line, json_escape)


def rfc3339(created: float) -> str:
    moment = datetime.fromtimestamp(created, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """One line for people, on a terminal (`kubectl logs`): every character that is not printable is shown
    as its escape, as a sender's field (a service name, a path, a gRPC method) may hold an ANSI escape
    that recolours the terminal or sets its title, or a bidi override that reorders the line. A field's
    value holding white space, `=` or `"` is quoted as logfmt quotes it: a service name `shop level=error`
    had read as a second field, forged by the sender, to people and to the logfmt parsers of Loki and
    Vector."""

    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(f"{k}={_logfmt(v)}" for k, v in vars(record).items() if k not in _RECORD_FIELDS)
        line = f"{self.formatTime(record)} {record.levelname.lower():7} {record.name}: {record.getMessage()}"
        line = printable(f"{line} {extras}" if extras else line)
        return inert(f"{line}\n{self.formatException(record.exc_info)}" if record.exc_info else line)


def _logfmt(value: object) -> str:
    text = str(value)
    if text and not any(char.isspace() or char in '="' for char in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def configure_logging(fmt: str, level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger("ragmon")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
    loop_log = logging.getLogger("asyncio")
    loop_log.handlers[:] = [handler]
    loop_log.filters[:] = [AsyncioLines()]
    loop_log.propagate = False


def logs_as_json() -> bool:
    """Whether the running command writes its log as JSON lines (`configure_logging`): then a line of its
    own, the reason it stopped included, must be one object too, or the pipeline reading it cannot."""
    handlers = logging.getLogger("ragmon").handlers
    return any(isinstance(handler.formatter, JsonFormatter) for handler in handlers)


WINDOW_SECONDS = 60.0
MAX_KEYS = 1000  # distinct problems remembered; past that the least recently logged is forgotten


class LineLimit:
    """Which lines to write; state: per key (what makes two lines the same problem), the last line's time
    and the number of lines left out since; with `max_lines`, the lines written in the current window."""

    def __init__(self, *, window: float = WINDOW_SECONDS, max_keys: int = MAX_KEYS,
                 clock: Callable[[], float] = time.monotonic, max_lines: int | None = None) -> None:
        self._window = window
        self._max_keys = max_keys
        self._clock = clock
        self._keys: OrderedDict[Hashable, tuple[float, int]] = OrderedDict()
        self._max_lines = max_lines
        self._window_start = -math.inf
        self._written = 0
        self.full = False
        """Whether the last line was left out for `max_lines` rather than for its key."""

    def admit(self, key: Hashable) -> int | None:
        """None when `key` had a line within the window, or `max_lines` lines were written within the
        window: this one is left out (and counted against its key, as if it had had a line). Otherwise
        write it: the number to return is how many were left out since the key's previous line."""
        now = self._clock()
        last = self._keys.get(key)
        self.full = False
        if last is not None and now - last[0] < self._window:
            self._keys[key] = (last[0], last[1] + 1)
            return None
        suppressed = 0 if last is None else last[1]
        if self._max_lines is not None:
            if now - self._window_start >= self._window:
                self._window_start, self._written = now, 0
            if self._written >= self._max_lines:
                self.full = True
                self._remember(key, (now, suppressed + 1))
                return None
            self._written += 1
        self._remember(key, (now, 0))
        return suppressed

    def _remember(self, key: Hashable, state: tuple[float, int]) -> None:
        self._keys[key] = state
        self._keys.move_to_end(key)
        if len(self._keys) > self._max_keys:
            self._keys.popitem(last=False)


def more_like_it(message: str, suppressed: int) -> str:
    """The message of a line `LineLimit` admitted, saying how many like it were left out before it."""
    return f"{message} ... and {suppressed} more like it since the last line" if suppressed else message


MAX_FIELD = 300
"""Characters of a sender-supplied field in a log line, and in what tells its lines apart: a user agent,
a span name or a message quoting a body stays one short line, and a thousand remembered keys stay small."""


MAX_MESSAGE = 2000
"""Characters of an error message in a log line: ragmon's own messages, with their hints, are well under
it; one quoting a sender's field of any length is not."""


def clip(text: str, limit: int = MAX_FIELD) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


class AsyncioLines(logging.Filter):
    """asyncio's own lines, rate-limited like ragmon's, for the `asyncio` logger. Its event loop logs what
    it cannot hand to ragmon's code: at the open-file limit, "socket.accept() out of system resource" and
    a traceback for every attempt to accept, 90,000 of them in 30 s, in no format of ragmon's. Each line
    goes through a `LineLimit` keyed by its first line; the rest of it (which socket) becomes `detail`,
    and an OSError's traceback, which shows asyncio's internals only, its `error`: one line."""

    def __init__(self, limit: LineLimit | None = None) -> None:
        super().__init__()
        self._limit = LineLimit() if limit is None else limit

    def filter(self, record: logging.LogRecord) -> bool:
        message, _, rest = record.getMessage().partition("\n")
        suppressed = self._limit.admit(message)
        if suppressed is None:
            return False
        record.msg, record.args = more_like_it(message, suppressed), None
        record.suppressed = suppressed
        if rest:
            record.detail = clip(rest)
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, OSError):
            record.exc_info, record.exc_text = None, None
            record.error = str(error)
        return True
