"""What a log pipeline reads from `--log-format json`, and what a terminal shows of `--log-format text`."""

from __future__ import annotations

import json
import logging

from ragmon.logs import JsonFormatter, TextFormatter


def test_json_time_is_utc_rfc3339_with_milliseconds() -> None:
    # 1,764,596,559.1234 s after the epoch is 2025-12-01 13:42:39.123 UTC (20,423 days, 49,359.1234 s),
    # whatever the process's time zone.
    record = logging.LogRecord("ragmon.service", logging.INFO, __file__, 1, "ready", None, None)
    record.created = 1_764_596_559.1234
    doc = json.loads(JsonFormatter().format(record))
    assert doc["time"] == "2025-12-01T13:42:39.123Z"
    assert (doc["level"], doc["logger"], doc["message"]) == ("info", "ragmon.service", "ready")


def test_a_senders_escape_sequences_reach_the_text_log_as_escapes_not_as_commands() -> None:
    # A service.name of an ANSI colour, an OSC 0 "set the window title" (ESC ] 0 ; ... BEL) and a bidi
    # override (U+202E): written raw, `kubectl logs` would recolour the terminal, retitle it and reverse
    # the rest of the line.
    record = logging.LogRecord("ragmon.service", logging.WARNING, __file__, 1, "trace cannot be extracted",
                               None, None)
    record.service = "evil\x1b[31mRED\x1b]0;title\x07\u202eRTL"
    line = TextFormatter().format(record)
    assert line.endswith(" warning ragmon.service: trace cannot be extracted "
                         "service=evil\\x1b[31mRED\\x1b]0;title\\x07\\u202eRTL")
    assert line.isprintable()


def test_a_byte_that_is_not_utf8_reaches_the_json_log_as_u_fffd() -> None:
    # aiohttp reads a header's bytes FF FE as the lone surrogates U+DCFF U+DCFE: escaped as they are,
    # "\udcff" names no character, and strict JSON parsers (serde, jq 1.6) refuse the whole line.
    record = logging.LogRecord("ragmon.otlp", logging.WARNING, __file__, 1, "OTLP request refused", None,
                               None)
    record.user_agent = "evil\udcff\udcfe"
    record.service = "shop \U0001f6d2"                               # a whole emoji: a surrogate pair escaped
    line = JsonFormatter().format(record)
    assert line.isascii() and "\\ud83d\\uded2" in line
    doc = json.loads(line)
    assert (doc["user_agent"], doc["service"], doc["message"]) == ("evil\ufffd\ufffd", "shop \U0001f6d2",
                                                                   "OTLP request refused")
    json.dumps(doc, ensure_ascii=False).encode("utf-8")               # strict UTF-8: no lone surrogate left


def test_a_senders_ci_log_command_reaches_neither_log_as_a_command() -> None:
    # A sidecar run in a CI job (an end-to-end test, the demo) logs to the CI log, where GitHub Actions runs
    # `##[error]` anywhere in a line and Azure `##vso[`: a service.name may hold either. The text log shows
    # the `[` escaped; the JSON log writes it as JSON's own escape, so a parser reads the name as sent.
    record = logging.LogRecord("ragmon.service", logging.WARNING, __file__, 1, "trace cannot be extracted",
                               None, None)
    record.service = "shop ##[error]x ##vso[task.complete result=Succeeded]"
    text = TextFormatter().format(record)
    assert text.endswith(' service="shop ##\\x5berror]x ##vso\\x5btask.complete result=Succeeded]"')
    line = JsonFormatter().format(record)
    assert '"service": "shop ##\\u005berror]x ##vso\\u005btask.complete result=Succeeded]"' in line
    assert json.loads(line)["service"] == record.service


def test_a_senders_field_cannot_pass_for_fields_of_its_own_in_the_text_log() -> None:
    # A service.name `shop level=error reason="x"` written bare read as three fields to a logfmt parser
    # (Loki's `| logfmt`, Vector's parse_logfmt) and to a person: quoted, it is one value, its quotes and
    # backslashes escaped as logfmt escapes them. A value without white space, `=` or `"` stays bare.
    record = logging.LogRecord("ragmon.service", logging.WARNING, __file__, 1, "trace cannot be extracted",
                               None, None)
    record.service = 'shop level=error reason="x" C:\\app'
    record.reason = "no_answer"
    record.empty = ""
    line = TextFormatter().format(record)
    assert line.endswith(' service="shop level=error reason=\\"x\\" C:\\\\app" reason=no_answer empty=""')
