"""Property: whatever a candidate build answers to `ragmon replay --target`, and whatever traces it
exports (or not), the run ends with examples or a RagmonError on one printable line naming the example
ids concerned, within the timeouts it was given; never another exception, never a hang, never an answer
other than the one its trace holds. A few full runs through `main` check that the exit status (0, 1 or
2) and the reports agree, with no traceback.

Answers are written as raw bytes by an in-process aiohttp server: any status line, headers that lie
(Content-Length too short or too long, gzip that is not gzip, chunking that breaks), bodies of any kind,
delivered whole, cut off or too slowly. The traces are OTLP/JSON posted to the run's receiver, carrying
the answer as a value of any JSON type, or not RAG at all, or under another trace id.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import io
import json
import math
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

import aiohttp
import pytest
from aiohttp import web
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from loopback_app import running
from ports import free_port

from ragmon import target as target_module
from ragmon.cli import main
from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.target import MAX_RETRY_AFTER, RETRY_PAUSE, Target, _refusal, _retry_after, collect

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

# --- the answer's pieces, parsed without a server: many examples ----------------------------------------

ODD_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
"""Any code point, lone surrogates and control characters included."""


@given(st.one_of(st.none(), ODD_TEXT, st.floats().map(str), st.integers().map(str),
                 st.sampled_from(["1e400", "-1e400", "nan", "-0", "1_0", "\u0663", " 2 ", "inf",
                                  "Wed, 21 Oct 2015 07:28:00 GMT"])))
@settings(FUZZ, max_examples=400)
def test_retry_after_is_a_bounded_pause_whatever_the_header(header: str | None) -> None:
    pause = _retry_after(header)
    event("advice followed" if header is not None and pause != RETRY_PAUSE else "default pause")
    assert math.isfinite(pause) and 0.0 <= pause <= MAX_RETRY_AFTER


@given(st.integers(100, 999), st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
@settings(FUZZ, max_examples=400)
def test_a_refusal_is_named_on_one_printable_line_whatever_its_body(status: int, body: bytes) -> None:
    message = _refusal(status, body, whole=True)
    event("body quoted" if "(" in message else "no body")
    assert message.startswith(f"HTTP {status}")
    assert message.isprintable(), message  # no newline, no ANSI escape, no NUL reaches the terminal


# --- the candidate, written as raw bytes ----------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    status_line: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    delivery: str  # whole | cut | slow | silent
    trace: str  # none | rag | odd-answer | not-rag | other-id | garbage
    answer_value: Any

    @property
    def status(self) -> int | None:
        parts = self.status_line.split(b" ")
        return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and len(parts[1]) == 3 else None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
BODIES = st.one_of(
    st.just(b""),
    st.binary(max_size=200),
    JSON_VALUES.map(lambda v: json.dumps({"answer": v}).encode()),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b'{"answer": "\\ud800"}', b'{"answer": NaN}', b"\xff\xfe\xfd not utf-8",
                     b'{"answer": "\x1b[2Jcleared"}', b"<html>\r\n<h1>Bad Gateway</h1>\x00</html>",
                     b"x" * 300_000]),
)
STATUS = st.one_of(st.sampled_from([200, 201, 204, 299, 301, 302, 303, 304, 307, 308, 400, 404, 408, 429,
                                    500, 502, 503, 504]), st.integers(100, 999))


FAULTS = ("status line", "encoding", "framing", "content type", "odd header", "delivery")
"""What can be wrong with an answer; a drawn answer has none (a third of them), one or two."""


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    faults = draw(st.sets(st.sampled_from(FAULTS), min_size=(n := draw(st.sampled_from([0, 1, 2]))),
                          max_size=n))
    status = draw(st.one_of(st.just(200), STATUS))
    reason = draw(st.sampled_from([b"OK", b"", b"Weird \xff reason", b"x" * 100]))
    status_line = b"HTTP/1.1 %d %s" % (status, reason)
    if "status line" in faults:
        status_line = draw(st.sampled_from([b"HTTP/1.0 %d %s" % (status, reason), b"HTTP/1.1 %d" % status,
                                            b"NOT HTTP", b"HTTP/1.1 abc OK", b"HTTP/1.1 20 OK"]))
    body = draw(BODIES)
    headers: list[tuple[bytes, bytes]] = [(b"Content-Type", b"application/json")]
    if "encoding" in faults:
        encoding = draw(st.sampled_from([b"gzip", b"deflate", b"br", b"zstd", b"bogus", b"identity"]))
        if encoding == b"gzip" and draw(st.booleans()):
            body = gzip.compress(body)  # a true one, or a body that only says it is gzip
        headers.append((b"Content-Encoding", encoding))
    if "content type" in faults:
        headers[0] = (b"Content-Type", draw(st.sampled_from([
            b"application/json; charset=utf-16", b"text/html; charset=bogus", b"text/plain; charset=latin-1",
            b"", b"\xff/\xfe"])))
    framing = draw(st.sampled_from(["short", "long", "garbage", "chunked", "bad-chunked", "none"])
                   if "framing" in faults else st.sampled_from(["length", "chunked"]))
    length = {"length": len(body), "short": len(body) // 2, "long": len(body) + 10}.get(framing)
    if length is not None:
        headers.append((b"Content-Length", str(length).encode()))
    elif framing == "garbage":
        headers.append((b"Content-Length", draw(st.sampled_from([b"-1", b"abc", b"1e3", b"9" * 30]))))
    elif framing in ("chunked", "bad-chunked"):
        headers.append((b"Transfer-Encoding", b"chunked"))
        chunk = b"%x\r\n%s\r\n" % (len(body), body) if body else b""  # a chunk of 0 is the last
        body = chunk + b"0\r\n\r\n" if framing == "chunked" else b"zz\r\n" + body[:10]
    if draw(st.booleans()):
        pause = draw(st.sampled_from([b"0", b"1e400", b"nan", b"-3", b"soon", b"9"]))
        headers.append((b"Retry-After", pause))
    if 300 <= status < 400 and draw(st.booleans()):
        headers.append((b"Location", draw(st.sampled_from([b"/ask", b"/elsewhere", b"http://[", b"ftp://x/",
                                                           b"", b"\xff", b"/ask?" + b"a" * 5000]))))
    if "odd header" in faults:
        name = draw(st.sampled_from([b"X-Odd", b"X-\xff", b"Set-Cookie", b"Bad Name"]))
        headers.append((name, draw(st.binary(max_size=30)).replace(b"\r", b"").replace(b"\n", b"")))
    delivery = draw(st.sampled_from(["cut", "slow", "silent"])) if "delivery" in faults else "whole"
    trace = draw(st.sampled_from(["none", "rag", "rag", "rag", "odd-answer", "odd-answer", "not-rag",
                                  "other-id", "garbage"]))
    value = draw(st.one_of(JSON_VALUES, st.just("The moon is made of green cheese.")))
    return Answer(status_line, tuple(headers), body, delivery, trace, value)


TIMEOUT = 0.3
"""--target-timeout of the fuzzed runs: a `slow` answer takes longer."""


def span_json(trace_id: str, attributes: dict[str, Any]) -> bytes:
    """One ended SERVER root span of OTLP/JSON; attribute values as OTLP's AnyValue, strings as given."""
    def any_value(value: Any) -> dict[str, Any]:
        if isinstance(value, bool):
            return {"boolValue": value}
        if isinstance(value, int):
            return {"intValue": str(value)}
        if isinstance(value, float):
            return {"doubleValue": value if math.isfinite(value) else str(value)}
        if isinstance(value, str):
            return {"stringValue": value}
        if isinstance(value, list):
            return {"arrayValue": {"values": [any_value(v) for v in value]}}
        if isinstance(value, dict):
            return {"kvlistValue": {"values": [{"key": k, "value": any_value(v)} for k, v in value.items()]}}
        return {}
    span = {"traceId": trace_id, "spanId": "b7ad6b7169203331", "name": "POST /ask", "kind": 2,
            "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": [{"key": k, "value": any_value(v)} for k, v in attributes.items()]}
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]},
                      allow_nan=True).encode()


RAG = {"ragmon.question": "q", "ragmon.contexts": json.dumps([{"id": "d1", "text": "Paris is in France."}])}


async def export(answer: Answer, trace_id: str, receiver: int) -> None:
    if answer.trace == "none":
        return
    if answer.trace == "garbage":
        payload = b'{"resourceSpans": [{"scopeSpans": "no"}]}'
    elif answer.trace == "not-rag":
        payload = span_json(trace_id, {"http.route": "/ask"})
    elif answer.trace == "other-id":
        payload = span_json("0af7651916cd43dd8448eb211c80319c", {**RAG, "ragmon.answer": "Paris."})
    else:
        value = "Paris is in France." if answer.trace == "rag" else answer.answer_value
        payload = span_json(trace_id, {**RAG, "ragmon.answer": value})
    async with aiohttp.ClientSession() as session:
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            await session.post(f"http://127.0.0.1:{receiver}/v1/traces", data=payload,
                               headers={"Content-Type": "application/json"}, timeout=aiohttp.ClientTimeout(2))


@asynccontextmanager
async def candidate(answer: Answer, receiver: int) -> AsyncIterator[str]:
    """Answers every POST with `answer`'s bytes, after exporting its trace."""

    async def ask(request: web.Request) -> web.StreamResponse:
        await request.read()
        trace_id = request.headers.get("traceparent", "00-" + "0" * 32).split("-")[1]
        await export(answer, trace_id, receiver)
        transport = request.transport
        assert transport is not None
        raw = answer.status_line + b"\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in answer.headers)
        raw += b"Connection: close\r\n\r\n"
        if answer.delivery == "silent":
            await asyncio.sleep(TIMEOUT * 2)
        elif answer.delivery == "cut":
            transport.write(raw + answer.body[:len(answer.body) // 2])
        elif answer.delivery == "slow":
            transport.write(raw + answer.body[:1])
            await asyncio.sleep(TIMEOUT * 2)
            transport.write(answer.body[1:])
        else:
            transport.write(raw + answer.body)
        transport.close()
        raise asyncio.CancelledError  # the answer is written: aiohttp must not add one of its own

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", ask)
    async with running(app, handler_cancellation=True) as base:
        yield f"{base}/ask"


def bound(target: Target, questions: int) -> float:
    """The longest a run may take: every try of every round of questions times out (the candidate's
    handler outlives the timeout by another one) and pauses, then the traces are waited for; 2 s of slack."""
    rounds = math.ceil(questions / target.concurrency) * (target.retries + 1)
    return rounds * (target.timeout + TIMEOUT * 2 + MAX_PAUSE) + target.trace_wait + 2.0


MAX_PAUSE = 0.05


# A body that only says it is gzip: aiohttp's error spans two lines.
@example(Answer(b"HTTP/1.1 200 OK", ((b"Content-Encoding", b"gzip"), (b"Content-Length", b"2")), b"\0\0",
                "whole", "none", None), 1, 0, 1)
# A refusal whose body would clear the terminal and hide what follows.
@example(Answer(b"HTTP/1.1 400 Bad Request", ((b"Content-Length", b"13"),), b"\x1b[2Jgone\x00\r\nx",
                "whole", "none", None), 1, 0, 1)
@given(answers(), st.integers(1, 3), st.integers(0, 1), st.integers(1, 2))
@settings(FUZZ, max_examples=40)
def test_any_answer_ends_the_run_with_examples_or_one_clear_line(answer: Answer, questions: int,
                                                                 retries: int, concurrency: int) -> None:
    golden = [Example(id=f"q{i}", question=f"question {i}") for i in range(questions)]
    receiver = free_port()

    async def run() -> tuple[list[Example] | RagmonError, float]:
        async with candidate(answer, receiver) as url:
            target = Target(url=url, receiver=("127.0.0.1", receiver), timeout=TIMEOUT, retries=retries,
                            concurrency=concurrency, trace_wait=0.3, quiet=0.05)
            started = time.monotonic()
            try:
                outcome: list[Example] | RagmonError = await asyncio.to_thread(collect, golden, target,
                                                                               log=None)
            except RagmonError as exc:
                outcome = exc
            elapsed = time.monotonic() - started
            assert elapsed < bound(target, questions), f"{elapsed:.1f}s"
            return outcome, elapsed

    with mock.patch.object(target_module, "MAX_RETRY_AFTER", MAX_PAUSE), \
            mock.patch.object(target_module, "RETRY_PAUSE", MAX_PAUSE):
        outcome, _ = asyncio.run(run())
    if isinstance(outcome, RagmonError):
        message = str(outcome)
        event(f"exit 2: {re.sub(r'[0-9]+', 'N', message.split(': ', 1)[1])[:50]}")
        assert message.isprintable(), message
        assert all(example.id in message for example in golden[:1]), message
        return
    event("answered")
    assert [e.id for e in outcome] == [g.id for g in golden]
    assert answer.status is not None and 200 <= answer.status < 300
    # The answer its trace holds, never a stand-in for a value of another type (read strictly: exit 2). An
    # attribute without a value (OTLP's empty AnyValue) is no answer: the example is scored on retrieval.
    traced = answer.answer_value if answer.trace == "odd-answer" else "Paris is in France."
    assert traced is None or isinstance(traced, str)
    assert all(e.answer == traced for e in outcome)


# --- a few whole runs: exit status, stderr and reports agree --------------------------------------------

ANSWERED = Answer(b"HTTP/1.1 200 OK", ((b"Content-Length", b"2"),), b"{}", "whole", "rag", None)
"""A build that answers and traces the answer its context supports: the gate holds (exit 0)."""
UNSUPPORTED = Answer(b"HTTP/1.1 200 OK", ((b"Content-Length", b"2"),), b"{}", "whole", "odd-answer",
                     "The moon is made of green cheese.")
"""One that traces an answer no context supports: groundedness 0 breaches groundedness=0.5 (exit 1)."""


@example(answer=ANSWERED)
@example(answer=UNSUPPORTED)
@given(answer=answers())
@settings(FUZZ, max_examples=10)
def test_a_whole_run_exits_0_1_or_2_with_reports_that_say_the_same(answer: Answer, tmp_path_factory:
                                                                   pytest.TempPathFactory) -> None:
    directory = tmp_path_factory.mktemp("run")
    golden = directory / "golden.jsonl"
    golden.write_text(json.dumps({"id": "q0", "question": "Where is Paris?", "relevant_ids": ["d1"]}) + "\n",
                      encoding="utf-8")
    reports = {flag: directory / f"report.{flag[2:]}" for flag in ("--json", "--markdown", "--junit")}
    receiver = free_port()

    async def run() -> tuple[int, str]:
        async with candidate(answer, receiver) as url:
            argv = ["replay", str(golden), "--target", url, "--receiver-listen", f"127.0.0.1:{receiver}",
                    "--target-timeout", f"{TIMEOUT}s", "--target-retries", "0", "--trace-wait", "300ms",
                    "--trace-quiet", "50ms", "--gate", "groundedness=0.5", "--quiet",
                    *(part for flag, path in reports.items() for part in (flag, str(path)))]
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                status = await asyncio.to_thread(main, argv)
            return status, err.getvalue()

    with mock.patch.dict(os.environ, {k: v for k, v in os.environ.items()
                                      if not k.startswith(("RAGMON_", "GITHUB_", "OTEL_"))}, clear=True):
        status, err = asyncio.run(run())
    event(f"exit {status}")
    assert status in (0, 1, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    doc = json.loads(reports["--json"].read_text(encoding="utf-8"))
    ET.parse(reports["--junit"])  # well-formed whatever the build's bytes were
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("ragmon replay: error: "), err
        assert doc["complete"] is False and doc["error"] in err
    else:
        assert doc["complete"] is True and doc["passed"] is (status == 0)
