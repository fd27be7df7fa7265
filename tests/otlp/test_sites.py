"""A bound on the connections a port keeps open (ragmon.otlp.sites, ragmon.otlp.limits)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import grpc
import pytest
from aiohttp import web

from ragmon.otlp import grpc as otlp_grpc
from ragmon.otlp.sites import CappedSite

HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""HTTP/2's connection preface and an empty SETTINGS frame: what a gRPC client opens with."""


async def hello(_request: web.Request) -> web.Response:
    return web.Response(text="hello")


@contextlib.asynccontextmanager
async def capped_site(handler: Callable[[web.Request], Awaitable[web.Response]]
                      ) -> AsyncIterator[CappedSite]:
    """A site answering GET / with `handler`, keeping at most 3 connections, on a free port."""
    app = web.Application()
    app.router.add_get("/", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = CappedSite(runner, "127.0.0.1", 0, limit=3, what="test port")
    await site.start()
    try:
        yield site
    finally:
        await runner.cleanup()


@pytest.fixture
async def capped() -> AsyncIterator[int]:
    async with capped_site(hello) as site:
        yield site.port


async def closed_at_once(port: int, hello: bytes = b"") -> bool:
    """Whether the server closes a new connection before it says anything (after `hello`, if given)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if hello:
            writer.write(hello)
        return await asyncio.wait_for(reader.read(100), 2) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    finally:
        writer.close()


async def test_past_the_bound_a_new_connection_takes_the_place_of_the_oldest_idle_one(capped, caplog):
    # Three connections that send nothing, as an attacker's: the bound full of them had turned every new
    # connection away for 60 s, probes and scrapes with it. Now a new one takes the oldest's place, and
    # a request on it is answered; the oldest idle one is closed.
    caplog.set_level(logging.WARNING, logger="ragmon.otlp.sites")
    idle = [await asyncio.open_connection("127.0.0.1", capped) for _ in range(3)]
    await asyncio.sleep(0.1)
    for _ in range(2):
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{capped}/") as reply:
            assert await reply.text() == "hello"
    oldest_reader, _ = idle[0]
    assert await asyncio.wait_for(oldest_reader.read(100), 2) == b""   # closed for the first new one
    [line] = [r.getMessage() for r in caplog.records]   # one a minute, not one a connection
    assert line == ("test port: 3 connections open, the most it keeps: the oldest one in no request is "
                    "closed for a new one")
    for _, writer in idle:
        writer.close()


async def test_arrivals_in_one_turn_of_the_loop_each_take_the_place_of_another_idle_connection():
    # Two connections accepted before the loop handles the first one's eviction: each closes its own idle
    # one, so the port keeps its bound; both had closed the oldest, which was still listed, and the port
    # went one past its bound for each such arrival.
    async with capped_site(hello) as site:
        idle = [await asyncio.open_connection("127.0.0.1", site.port) for _ in range(3)]
        await asyncio.sleep(0.1)
        server = site._runner.server
        assert server is not None
        first, second = site._protocol(), site._protocol()     # as asyncio asks, one per connection
        closed = [handler for handler in server.connections if handler._force_close]
        assert len(closed) == 2 and first is not second
        for _, writer in idle:
            writer.close()


async def test_past_the_bound_of_connections_all_in_a_request_a_new_one_is_closed_as_it_arrives(caplog):
    # Three requests held open by their handler: none can give way, and a new connection is closed. The
    # new one is made once all three are in the handler: after a fixed 0.3 s, a loaded CI machine had
    # not yet read the third request, whose idle connection then gave way.
    release, all_in = asyncio.Event(), asyncio.Event()
    entered = 0

    async def slow(_request: web.Request) -> web.Response:
        nonlocal entered
        entered += 1
        if entered == 3:
            all_in.set()
        await release.wait()
        return web.Response(text="done")

    caplog.set_level(logging.WARNING, logger="ragmon.otlp.sites")
    async with capped_site(slow) as site, aiohttp.ClientSession() as session:
        port = site.port
        try:
            held = [asyncio.ensure_future(session.get(f"http://127.0.0.1:{port}/")) for _ in range(3)]
            await asyncio.wait_for(all_in.wait(), 10)
            assert await closed_at_once(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            release.set()
            for request in held:
                async with await request as reply:
                    assert await reply.text() == "done"
        finally:
            release.set()
    assert [r.getMessage() for r in caplog.records] == [
        "test port: 3 connections open, the most it keeps: every one is in a request: a new one is closed as "
        "it arrives"]


async def test_the_grpc_receiver_keeps_at_most_its_bound_of_connections(grpc_receiver, monkeypatch):
    monkeypatch.setattr(otlp_grpc, "GRPC_CONNECTIONS", 2)
    target = await grpc_receiver()
    port = int(target.rsplit(":", 1)[1])
    held = []
    for _ in range(2):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(HTTP2_PREFACE)
        held.append(sock)
    await asyncio.sleep(0.2)
    assert await closed_at_once(port, HTTP2_PREFACE)
    for sock in held:
        sock.close()
    await asyncio.sleep(0.2)
    async with grpc.aio.insecure_channel(target) as channel:   # room again: an unknown method's answer
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await channel.unary_unary("/x.Y/Z")(b"", timeout=5)
    assert error.value.code() is grpc.StatusCode.UNIMPLEMENTED
