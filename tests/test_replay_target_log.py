"""`ragmon replay --target` writes its own lines to stderr, the CI log: the warnings it prints quote the
golden set's example ids and the build's answers, and its embedded receiver's lines the build's peer, user
agent and request path. None may run a CI log command (GitHub's `::` at a line's start or `##[` anywhere,
Azure's `##vso[`), as none of the reports may (ragmon.errors.inert)."""

from __future__ import annotations

import io
import logging

from ragmon import target


def test_a_line_quoting_an_example_id_runs_no_command() -> None:
    log = io.StringIO()
    target._tell(log, "ragmon replay: warning: the answer to '##[group]q1' could not be decoded\n::error::x")
    assert log.getvalue() == ("ragmon replay: warning: the answer to '##\\x5bgroup]q1' could not be decoded\n"
                              "\\x3a:error::x\n")


def test_a_receiver_line_quoting_the_builds_user_agent_runs_no_command() -> None:
    record = logging.LogRecord("ragmon.otlp", logging.WARNING, __file__, 1, "OTLP request refused", None,
                               None)
    record.peer, record.user_agent, record.status, record.detail = "127.0.0.1", "sdk ##vso[x]", 415, "/v1/x"
    line = target._ReceiverFormatter().format(record)
    assert line == ("warning: OTLP request refused from 127.0.0.1 (sdk ##vso\\x5bx]), answered 415: /v1/x")


def test_a_receiver_line_shows_the_escapes_a_request_path_or_user_agent_holds_escaped() -> None:
    # A build's request to /v1/traces/a<ESC>]52;c;cHduZWQ=<BEL>b reached the terminal raw: a clipboard write
    # on a terminal that honours OSC 52; a CSI sequence cleared the screen. The sidecar's text log escaped
    # them already.
    record = logging.LogRecord("ragmon.otlp", logging.WARNING, __file__, 1, "OTLP request refused", None,
                               None)
    record.peer, record.status = "127.0.0.1", 404
    record.user_agent = "sdk\x1b[2J"
    record.detail = "nothing is received at /v1/traces/a\x1b]52;c;cHduZWQ=\x07b"
    line = target._ReceiverFormatter().format(record)
    assert "\x1b" not in line and "\x07" not in line
    assert line == ("warning: OTLP request refused from 127.0.0.1 (sdk\\x1b[2J), answered 404: nothing is "
                    "received at /v1/traces/a\\x1b]52;c;cHduZWQ=\\x07b")
