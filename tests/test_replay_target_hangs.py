"""`ragmon replay --target`: a connection that hangs holds the run no longer than its settings say."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web
from ports import free_port
from test_replay_target import GOOD_CONTEXTS, live_target, sdk_tracer, serving, traced_rag

from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.target import collect


async def test_an_export_stalled_mid_body_does_not_hold_the_end_of_the_run() -> None:
    # The build answers and exports its trace, and a second exporter of its (a hung worker's) sends the
    # receiver a request head and the start of a body, then nothing. The run had done waiting 5 s in, and
    # still ended only when the receiver gave up on that body, 30 s in.
    receiver = free_port()
    stalled: list[asyncio.StreamWriter] = []
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            _, writer = await asyncio.open_connection("127.0.0.1", receiver)
            writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: ragmon\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"resourceSpans\": [")
            await writer.drain()
            stalled.append(writer)
            return await answer(request)

        async with serving(ask) as url:
            started = time.monotonic()
            try:
                examples = await asyncio.to_thread(
                    collect, [Example(id="a", question="Open?")], live_target(url, receiver, trace_wait=5.0),
                    log=None)
            finally:
                for writer in stalled:
                    writer.close()
            took = time.monotonic() - started
    assert [(example.id, example.answer) for example in examples] == [("a", "Yes.")]
    # The question's trace is complete --trace-quiet (0.1 s) after it arrives, and the export in flight
    # then gets 1 s to finish: about 1.2 s, bounded here with room for a slow machine, and under the 5 s
    # of --trace-wait, as the wait itself ends once every trace is in.
    assert took < 5.0, took


CREDENTIALS_HINT = ("(the build, or a gateway before it, wants credentials: give them in "
                    "--target-header-file, one 'Name: value' a line, 'Authorization: Bearer <token>' say)")


@pytest.mark.parametrize(("status", "body", "why"), [
    # Not a timeout, asked again: a refusal that no retry changes, and which header file fixes. What came
    # of the body is quoted as the start of a longer one, since the rest never came.
    (b"401 Unauthorized", b"invalid token",
     f"HTTP 401 (invalid token... (cut: more than 13 bytes in all)) {CREDENTIALS_HINT}"),
    # A 503 is asked again as a 503, and named as one.
    (b"503 Service Unavailable", b"overloaded",
     "HTTP 503 (overloaded... (cut: more than 10 bytes in all)) (asked 2 times)"),
])
async def test_a_refusal_whose_body_stalls_is_named_by_its_status(status: bytes, body: bytes,
                                                                   why: str) -> None:
    # A gateway sends the status line, its headers and the start of a long page, then nothing more.
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
                     + body)
        await writer.drain()
        await reader.read()  # until ragmon closes the connection
        # Closed on this side too: Python 3.12.1's Server.wait_closed waits for every connection's transport
        # (gh-79033), which stays half-open after ragmon's close until this writer closes it.
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/ask"
    try:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), timeout=1.0, retries=1), log=None)
    finally:
        server.close()
        await server.wait_closed()
    assert str(raised.value) == f"1 of 1 questions got no answer from {url}: {why}: a"


@pytest.mark.parametrize("seen_after", [0.0, 0.8])
async def test_a_kept_alive_connection_the_build_closes_as_it_is_reused_costs_no_question(
        seen_after: float) -> None:
    # A server closes a connection idle past its keep-alive timeout (gunicorn's 2 s, Node's 5 s) at the
    # moment the next request goes out on it: the request is lost unread, before any answer. Here the
    # first connection's second request meets that. Under --target-retries 0, that question failed with
    # "request failed (Server disconnected)", though the build never failed one. A loaded runner sees
    # that close late (a full garbage collection alone takes ~0.4 s): seen 0.8 s after the request went
    # out, it was taken for a crash, and CI failed the question.
    receiver = free_port()
    connections: list[asyncio.BaseTransport] = []  # held, not by id(): a new one could take a closed one's
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            connection = request.transport
            assert connection is not None
            if connections[:1] == [connection]:
                await asyncio.sleep(seen_after)
                connection.close()  # unread, unanswered
                return web.Response()
            connections.append(connection)
            return await answer(request)

        golden = [Example(id=name, question="Open?") for name in ("a", "b", "c")]
        async with serving(ask) as url:
            examples = await asyncio.to_thread(
                collect, golden, live_target(url, receiver, concurrency=1, retries=0), log=None)
    assert [(example.id, example.answer) for example in examples] == [("a", "Yes."), ("b", "Yes."),
                                                                      ("c", "Yes.")]


async def test_a_build_that_dies_seconds_into_a_question_is_not_asked_it_again() -> None:
    # The second question goes out on the kept-alive connection of the first, is received whole, worked on
    # for 2 s (the build's model called, and paid), and the worker dies without answering. Taken for a
    # connection the build had closed idle, the question was sent again at once, on a fresh connection,
    # where it was answered: paid twice, and the crash gone from the run, under --target-retries 0.
    receiver = free_port()
    asked: list[str] = []
    connections: list[asyncio.BaseTransport] = []
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            connection = request.transport
            assert connection is not None
            asked.append((await request.json())["question"])
            if connection in connections:  # not the first question on this connection
                await asyncio.sleep(2.0)
                connection.close()
                return web.Response()
            connections.append(connection)
            return await answer(request)

        golden = [Example(id="a", question="First?"), Example(id="b", question="Second?")]
        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, concurrency=1, retries=0),
                                        log=None)
    assert asked == ["First?", "Second?"]
    assert str(raised.value) == (f"1 of 2 questions got no answer from {url}: request failed (Server "
                                 f"disconnected): b")


async def test_a_question_whose_connection_is_closed_at_once_every_time_counts_its_resend_as_asked() -> None:
    # b's connection is closed unanswered the moment it arrives, every time: sent again at once (taken for
    # a kept-alive connection closed idle), then retried twice (--target-retries 2). The build's access log
    # shows four requests; the error had said "asked 3 times".
    receiver = free_port()
    asked: list[str] = []
    with sdk_tracer(receiver) as tracer:
        answer = traced_rag(tracer, GOOD_CONTEXTS)

        async def ask(request: web.Request) -> web.StreamResponse:
            question = (await request.json())["question"]
            asked.append(question)
            if question == "Second?":
                assert request.transport is not None
                request.transport.close()
                return web.Response()
            return await answer(request)

        golden = [Example(id="a", question="First?"), Example(id="b", question="Second?")]
        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, concurrency=1, retries=2),
                                        log=None)
    assert asked.count("Second?") == 4
    assert str(raised.value) == (f"1 of 2 questions got no answer from {url}: request failed (Server "
                                 "disconnected) (asked 4 times, once again at once as the build closed its "
                                 "kept-alive connection): b")


@pytest.mark.parametrize(("framing", "cut"), [
    (b"Content-Length: 1000\r\n", "Not enough data to satisfy content length header (received 15 of 1000 "
                                  "bytes)."),
    (b"Transfer-Encoding: chunked\r\n", "Not enough data to satisfy transfer length header."),
])
async def test_an_answer_whose_connection_closes_mid_body_is_named_as_cut_not_as_a_400(framing: bytes,
                                                                                     cut: str) -> None:
    # The build answers 200, writes the body's start and closes the connection: aiohttp's parser names
    # that "<ContentLengthError: 400, ...>", and the error read as an HTTP 400 the build never sent.
    async def cut_short(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        start = b'{"answer": "par'
        body = start if b"Length" in framing else b"%x\r\n%s" % (100, start)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + framing + b"\r\n" + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(cut_short, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/ask"
    try:
        with pytest.raises(RagmonError) as raised:
            await asyncio.to_thread(collect, [Example(id="a", question="q")],
                                    live_target(url, free_port(), retries=0), log=None)
    finally:
        server.close()
        await server.wait_closed()
    assert str(raised.value) == (f"1 of 1 questions got no answer from {url}: the HTTP 200 answer ended "
                                 f"before its body did ({cut}): a")


async def test_a_build_that_hangs_mid_run_is_not_asked_every_question_left() -> None:
    # The build answers its first two questions, then takes every request and never answers (a deadlock, a
    # pool of connections used up). Every question left was asked and timed out, tries times: at the
    # defaults (30 s, 2 retries, 4 at once) ~23 s a question, hours for a golden set of a thousand, until
    # the CI job's own limit killed the run and its report named none of them. Now q2 and q3, asked at
    # 0 s, time out at 1.5 s; q4 and q5 are asked then; q2 and q3 are asked again at 3 s, before any
    # question not yet asked, and time out at 4.5 s: two questions in a row (as many as are asked at once)
    # without an answer begun, so no other question is asked. q4 and q5, asked again at 4.5 s, fail too.
    asked: list[str] = []
    hung = asyncio.Event()  # set at the end, so that the server's shutdown does not wait for the handlers

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        asked.append(question)
        if question not in ("q0", "q1"):
            await hung.wait()
        return web.json_response({"answer": "Yes."})

    golden = [Example(id=f"q{i}", question=f"q{i}") for i in range(20)]
    async with serving(ask) as url:
        try:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, free_port(), concurrency=2,
                                                                     timeout=1.5, retries=1), log=None)
        finally:
            hung.set()
    assert sorted(asked) == ["q0", "q1", "q2", "q2", "q3", "q3", "q4", "q4", "q5", "q5"]
    assert str(raised.value) == (f"4 of 20 questions got no answer from {url} and 14 were not asked, as the "
                                 f"build stopped answering (the last 2 questions asked got no answer: every "
                                 f"try timed out, was dropped or was refused as too many): no answer within "
                                 f"--target-timeout 1.5s (asked 2 times): q2, q3, q4, q5")
