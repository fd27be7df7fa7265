"""`ragmon replay --target` against what answers a CI job in the build's place, or answers it oddly: a
gateway's or login page's HTML with a 200, a redirect to a path of the same host, a 401 or 403 of a
gateway, a 429 whose Retry-After is a date, an answer that streams past --target-timeout, a build on
IPv6 loopback, a body in a Content-Encoding it is not in, bytes that are not HTTP. Each failure names the
example and what to change, and the run exits 2."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gzip
import json
import os
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiohttp import web
from ports import free_port
from test_replay_target import (
    GOOD_CONTEXTS,
    NOT_ARRIVED,
    Handler,
    live_target,
    sdk_tracer,
    serving,
    traced_rag,
)

from ragmon.cli import main
from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.target import collect, read_headers

ONE = [Example(id="a", question="q")]

SIGN_IN = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head></html>"
"""What a login page in front of the build answers every POST with: 200, HTML."""


def page(body: bytes, content_type: str) -> Handler:
    async def ask(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type=content_type)
    return ask


@pytest.mark.parametrize("content_type", ["text/html", "application/octet-stream"],
                         ids=["labelled", "mislabelled"])
async def test_a_web_page_answered_with_200_in_the_builds_place_is_named_not_the_exporter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        content_type: str) -> None:
    # An SSO proxy, or a gateway's error page, answers 200 with HTML: the build never saw the question,
    # so no trace came, and the run blamed the build's exporter and its traceparent propagation.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    async with serving(page(SIGN_IN, content_type)) as url:
        argv = ["replay", str(data), "--target", url, "--receiver-listen", "127.0.0.1:0", "--trace-wait",
                "200ms", "--gate", "groundedness=0.5"]
        status = await asyncio.to_thread(main, argv)
    assert status == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "ragmon replay: error: 1 of 1 answers cannot be scored from their traces: no span of its trace "
        "arrived within --trace-wait 0.2s, and the answer was a web page, not an API's (HTTP 200 "
        "(<!DOCTYPE html> <html><head><title>Sign in</title></head></html>)): does --target name the build's "
        f"API, or did a gateway, a login page or a web app answer in its place?: a ({data}:1)")


async def test_a_json_answer_without_a_trace_is_still_asked_about_the_exporter() -> None:
    # Only a web page changes the reason: `{"answer": ...}` from the build points at its export as before.
    async with serving(page(b'{"answer": "<html> is a tag"}', "application/json")) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(url, free_port(), trace_wait=0.2), log=None)
    assert str(raised.value).endswith(
        f"no span of its trace arrived within --trace-wait 0.2s {NOT_ARRIVED}: a")


@pytest.mark.parametrize(("location", "named"), [
    ("/ask/", "{base}/ask/"),                 # a framework adding the trailing slash (FastAPI: 307)
    ("v2", "{base}/v2"),                      # relative to the --target's path
    ("//127.0.0.1:{other}/ask", "http://127.0.0.1:{other}/ask"),  # another host, scheme-relative
])
async def test_a_relative_redirect_names_the_whole_url_to_give_as_target(location: str, named: str) -> None:
    # "give that URL as --target" quoted "/ask/", which --target refuses: it takes a whole URL.
    followed: list[str] = []

    async def elsewhere(request: web.Request) -> web.Response:
        followed.append(request.path)
        return web.json_response({"answer": "followed"})

    other = free_port()

    async def ask(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(location.format(other=other))

    async with serving(ask, web.post("/ask/", elsewhere), web.post("/v2", elsewhere)) as url:
        base = url.removesuffix("/ask")
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(url, free_port()), log=None)
    assert followed == []
    assert str(raised.value) == (
        f"1 of 1 questions got no answer from {url}: HTTP 307 redirect to "
        f"{named.format(base=base, other=other)} (not followed, as it could take the question and any "
        f"--target-header-file headers to another host: give that URL as --target): a")


async def test_a_relative_redirect_shows_the_url_without_the_targets_key() -> None:
    async def ask(request: web.Request) -> web.Response:
        raise web.HTTPPermanentRedirect("/ask/")

    async with serving(ask) as url:
        keyed = url.replace("http://", "http://bob:hunter2@") + "?code=SECRETKEY"
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(keyed, free_port()), log=None)
    message = str(raised.value)
    assert f"HTTP 308 redirect to {url.replace('http://', 'http://bob:***@')}/ (not followed" in message
    assert "hunter2" not in message and "SECRETKEY" not in message


@pytest.mark.parametrize(("status", "header_file", "hint"), [
    (401, None, "(the build, or a gateway before it, wants credentials: give them in --target-header-file, "
                "one 'Name: value' a line, 'Authorization: Bearer <token>' say)"),
    (403, b"Authorization: Bearer s3cret\nX-Tenant: acme\n",
     "(the build, or a gateway before it, refused the credentials sent: check the headers of "
     "--target-header-file, Authorization, X-Tenant)"),
    (407, None, "(the build, or a gateway before it, wants credentials: give them in --target-header-file, "
                "one 'Name: value' a line, 'Authorization: Bearer <token>' say)"),
])
async def test_a_gateway_refusing_credentials_points_at_the_header_file(
        tmp_path: Path, status: int, header_file: bytes | None, hint: str) -> None:
    # A 401 from the staging gateway said "HTTP 401 (Unauthorized)" and nothing of how ragmon sends a token.
    # Asked once: the same credentials get the same refusal. The header file's values are never shown.
    requests = 0

    async def ask(request: web.Request) -> web.Response:
        nonlocal requests
        requests += 1
        return web.Response(status=status, text="denied")

    headers = ()
    if header_file is not None:
        (tmp_path / "headers").write_bytes(header_file)
        headers = read_headers(tmp_path / "headers")
    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(url, free_port(), headers=headers), log=None)
    assert requests == 1
    assert str(raised.value) == f"1 of 1 questions got no answer from {url}: HTTP {status} (denied) {hint}: a"
    assert "s3cret" not in str(raised.value)


async def test_a_429_whose_retry_after_is_a_date_is_asked_again_no_sooner() -> None:
    # A rate limiter answering `Retry-After: <HTTP-date>` 2 s ahead (whole seconds, so 1 to 2 s from the
    # answer): the date was read as no advice and the question asked again 0.5 s later, refused again.
    asked: list[float] = []
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            asked.append(time.monotonic())
            if len(asked) == 1:
                later = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=2), usegmt=True)
                return web.Response(status=429, text="slow down", headers={"Retry-After": later})
            return await answer(request)

        async with serving(ask) as url:
            (example,) = await asyncio.to_thread(collect, ONE, live_target(url, receiver, retries=1),
                                                 log=None)
    assert example.answer == "Yes."
    assert len(asked) == 2 and 1.0 <= asked[1] - asked[0] < 4.0


async def test_an_answer_still_streaming_at_target_timeout_says_so_and_names_the_flag() -> None:
    # The build answered 200 and streamed its answer past the timeout: "no answer within 0.3s" said it had
    # not answered, and not which setting to raise.
    release = asyncio.Event()

    async def ask(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        await response.write(b"data: The shop\n\n")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(release.wait(), 5)
        return response

    async with serving(ask) as url:
        try:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, ONE, live_target(url, free_port(), timeout=0.3, retries=1),
                                        log=None)
        finally:
            release.set()
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}: the HTTP 200 answer did not "
                                 f"end within --target-timeout 0.3s (asked 2 times): a")


async def test_a_build_on_ipv6_loopback_that_is_down_is_named_with_its_address_in_brackets() -> None:
    # "cannot connect to ::1:8080": the port read as part of the address.
    port = free_port()
    with pytest.raises(RagmonError) as raised:
        await asyncio.to_thread(collect, ONE, live_target(f"http://[::1]:{port}/ask", free_port(), retries=0),
                                log=None)
    assert str(raised.value) == (f"1 of 1 questions got no answer from http://[::1]:{port}/ask: cannot "
                                 f"connect to [::1]:{port} (Connection refused): a")


@pytest.mark.parametrize(("encoding", "why"), [
    # A gateway labelling a plain body gzip: zlib finds no gzip header where the JSON begins.
    ("gzip", "the body is not the gzip its Content-Encoding says (Error -3 while decompressing data: "
             "incorrect header check)"),
    # Brotli is not installed with ragmon: aiohttp lost even the status of such an answer.
    ("br", "Content-Encoding 'br', which ragmon does not decode (it asks for gzip, deflate)"),
])
async def test_a_2xx_answer_whose_body_cannot_be_decoded_is_scored_from_its_trace_with_one_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], encoding: str,
        why: str) -> None:
    # The build answered and traced both questions; the body's encoding was the gateway's mistake. Each was
    # asked 3 times as a failed request and the run exited 2, though the answers are read from the traces.
    data = tmp_path / "q.jsonl"
    data.write_text('{"id": "first", "question": "q1"}\n{"id": "second", "question": "q2"}\n',
                    encoding="utf-8")
    for name in [k for k in os.environ if k.startswith(("RAGMON_", "OTEL_", "GITHUB_"))]:
        monkeypatch.delenv(name)
    asked: list[str] = []
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        paris = "Paris is in France."
        answer = traced_rag(tracer, json.dumps([{"id": "d1", "text": paris}]), said=paris)

        async def ask(request: web.Request) -> web.StreamResponse:
            asked.append((await request.json())["question"])
            response = await answer(request)
            response.headers["Content-Encoding"] = encoding
            return response

        async with serving(ask) as url:
            argv = ["replay", str(data), "--target", url, "--receiver-listen", f"127.0.0.1:{receiver}",
                    "--trace-wait", "2s", "--gate", "groundedness=1.0", "--json", str(tmp_path / "r.json")]
            status = await asyncio.to_thread(main, argv)
    assert status == 0
    assert sorted(asked) == ["q1", "q2"]
    warnings = [line for line in capsys.readouterr().err.splitlines() if "could not be decoded" in line]
    assert warnings == [f"ragmon replay: warning: the body of the 2xx answer to first (and of 1 other "
                        f"question) could not be decoded: {why}; the answer is read from its trace, so it "
                        f"is scored all the same (does a gateway before the build set its Content-Encoding?)"]
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [(r["id"], r["metrics"]["groundedness"]) for r in written["results"]] == [("first", 1.0),
                                                                                    ("second", 1.0)]


@pytest.mark.parametrize(("encoding", "body", "quoted"), [
    ("gzip", gzip.compress(b"upstream busy"), "(upstream busy)"),
    ("deflate", zlib.compress(b"upstream busy"), "(upstream busy)"),
    ("deflate", zlib.compress(b"upstream busy")[2:-4], "(upstream busy)"),  # without zlib's header
    ("br", b"\x1b\x0c\x00\xf8", "(body not shown: Content-Encoding 'br', which ragmon does not decode "
                                 "(it asks for gzip, deflate))"),
], ids=["gzip", "deflate", "raw-deflate", "br"])  # gzip's bytes hold the time: xdist's workers must agree
async def test_a_refusal_in_a_content_encoding_is_quoted_decoded_or_said_to_be_unreadable(
        encoding: str, body: bytes, quoted: str) -> None:
    async def ask(request: web.Request) -> web.Response:
        return web.Response(status=501, body=body, headers={"Content-Encoding": encoding})

    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(url, free_port()), log=None)
    assert str(raised.value) == f"1 of 1 questions got no answer from {url}: HTTP 501 {quoted}: a"


PORT_HINT = "; is --target the build's HTTP port, not its gRPC or TLS one?"


@pytest.mark.parametrize(("answer", "why"), [
    # A gRPC port (HTTP/2 only) opens with a SETTINGS frame; a TLS port asked over http:// with an alert.
    (b"\x00\x00\x00\x04\x00\x00\x00\x00\x00",
     rf"Bad status line: Expected HTTP/, RTSP/ or ICE/: b'\x00\x00\x00\x04\x00\x00\x00\x00\x00'{PORT_HINT}"),
    (b"\x15\x03\x01\x00\x02\x02\x0a",
     rf"Bad status line: Expected HTTP/, RTSP/ or ICE/: b'\x15\x03\x01\x00\x02\x02\n'{PORT_HINT}"),
    # A broken proxy's head: the port is HTTP's, so no hint about it.
    (b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n{}",
     "Invalid character in Content-Length: b'Content-Length: many'"),
], ids=["grpc", "tls", "content-length"])
async def test_an_answer_that_is_not_http_is_named_so_not_as_an_http_400(answer: bytes, why: str) -> None:
    # aiohttp's parser names such an answer "400, message=...": the error read "request failed (400,
    # message="Bad status line:\n Expected HTTP/...", as though the build had answered HTTP 400, its line
    # breaks shown as \n, and said nothing of the likeliest cause, a --target at the wrong port.
    async def answer_with(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer_with, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/ask"
    try:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, ONE, live_target(url, free_port(), retries=0), log=None)
    finally:
        server.close()
        await server.wait_closed()
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}: the answer is not HTTP ragmon "
                                 f"can read ({why}): a")


async def test_a_rate_limit_without_retry_after_holds_every_question_back_until_it_passes() -> None:
    # A gateway taking 2 questions in any 0.8 s and refusing the rest with a bare 429, as AWS API Gateway's
    # throttling or nginx's limit_req do. A 429 held back only its own question: the others went out at
    # once and were refused too, and each retry came 0.5 s after the last, so q4 and q5 used up their 3
    # tries within the first second and the run exited 2, at any --target-concurrency. Now a 429 holds
    # back every question for its pause, which doubles with each retry (0.5 s, then 1 s): every question
    # is answered by its third try.
    refused: list[str] = []
    taken: list[float] = []
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            now = time.monotonic()
            if sum(now - at < 0.8 for at in taken) >= 2:
                refused.append((await request.json())["question"])
                return web.Response(status=429, text="Too Many Requests")
            taken.append(now)
            return await answer(request)

        golden = [Example(id=f"q{i}", question=f"q{i}") for i in range(6)]
        async with serving(ask) as url:
            examples = await asyncio.to_thread(collect, golden, live_target(url, receiver, concurrency=2),
                                               log=None)
    assert [(example.id, example.answer) for example in examples] == [(f"q{i}", "Yes.") for i in range(6)]
    assert len(taken) == 6 and refused  # the limit was met, and waited out


async def test_a_build_whose_quota_runs_out_mid_run_is_not_asked_every_question_left() -> None:
    # The build answers its first two questions, then refuses every request with a bare 429 (a daily quota
    # used up). As a 429 holds every question back, each question left would be refused tries times, one
    # held-back pause after another (200 questions: 2 minutes), to exit 2 as the first of them does. As for
    # a build that stopped answering, once as many questions in a row as are asked at once are refused
    # every try, no other question is asked.
    asked: list[str] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        asked.append(question)
        if question in ("q0", "q1"):
            return web.json_response({"answer": "Yes."})
        return web.Response(status=429, text="quota exceeded")

    golden = [Example(id=f"q{i}", question=f"q{i}") for i in range(40)]
    async with serving(ask) as url:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, golden, live_target(url, free_port(), concurrency=2, retries=1),
                                    log=None)
    refused = sorted({question for question in asked if question not in ("q0", "q1")},
                     key=lambda question: int(question[1:]))
    assert 2 <= len(refused) <= 8, refused  # q2 to q5: two refused, two held back meanwhile (or a pair more)
    assert sorted(asked) == sorted(["q0", "q1", *refused, *refused])  # each asked twice: --target-retries 1
    assert str(raised.value) == (
        f"{len(refused)} of 40 questions got no answer from {url} and {38 - len(refused)} were not asked, as "
        f"the build stopped answering (the last 2 questions asked got no answer: every try timed out, was "
        f"dropped or was refused as too many): HTTP 429 (quota exceeded) (the build, or a gateway before it, "
        f"limits how often it is asked: raise --target-retries, the pause after each 429 twice the last, or "
        f"lower --target-concurrency) (asked 2 times): {', '.join(refused)}")
