"""A local stand-in for the Anthropic Messages API, driven by the real `anthropic` SDK via `base_url`.

It runs its own event loop on a thread, so both the SDK's sync and async clients can call it from
any test. Every request body is recorded, and each reply is taken from a script of actions (or from
`default` once the script is used up), so a test can make the API answer, invent a supporting id,
send malformed tool input or a body that is no Message at all, fail with 429/529/500, hang, trickle a reply
or drop the connection, and then inspect exactly what was sent. Like the API, a reply whose tool input
outgrows the request's `max_tokens` is cut off there; like a model following the tool's schema, a claim
copied back is cut at the schema's `maxLength` for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from fakes.threaded import ThreadedServer

Body = dict[str, Any]
Decide = Callable[[Body], list[dict[str, Any]]]

_CLAIM = re.compile(r'<claim index="\d+">(.*?)</claim>', re.S)
_DOCUMENT = re.compile(r'<document id="([^"]*)"[^>]*>\n(.*?)\n</document>', re.S)


def prompt_text(body: Body) -> str:
    """The user turn's text, as the model would read it."""
    parts: list[str] = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(block["text"] for block in content if block.get("type") == "text")
    return "\n".join(parts)


def system_text(body: Body) -> str:
    system = body.get("system", "")
    return system if isinstance(system, str) else "\n".join(block["text"] for block in system)


def claims_of(body: Body) -> list[str]:
    return _CLAIM.findall(prompt_text(body))


def documents_of(body: Body) -> dict[str, str]:
    """Document id -> text exactly as fenced in the prompt."""
    return dict(_DOCUMENT.findall(prompt_text(body)))


def quoted(body: Body, claim: str) -> str:
    """A claim as a model following the tool's schema copies it back: cut at the schema's `maxLength`."""
    schema = body["tools"][0]["input_schema"]["properties"]["verdicts"]["items"]["properties"]["claim"]
    return claim[: schema.get("maxLength", len(claim))]


def support_all(body: Body) -> list[dict[str, Any]]:
    """Every claim supported by the first document: a well-formed answer for tests that need any."""
    first = next(iter(documents_of(body)), None)
    return [{"claim": quoted(body, claim), "supported": first is not None,
             "supporting_ids": [first] if first else [], "reason": "stated in the first document"}
            for claim in claims_of(body)]


@dataclass(frozen=True, slots=True)
class Reply:
    """A well-formed tool_use reply whose verdicts `decide` computes from the request."""

    decide: Decide | None = None
    usage: tuple[int, int] | None = None
    delay: float = 0.0
    """Seconds to take before answering, so concurrent callers overlap."""


@dataclass(frozen=True, slots=True)
class ToolInput:
    """A tool_use reply carrying exactly this input, however wrong it is."""

    input: Any
    usage: tuple[int, int] = (100, 10)


@dataclass(frozen=True, slots=True)
class Content:
    """A reply with these content blocks (e.g. text only, no tool call)."""

    blocks: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    usage: tuple[int, int] = (100, 10)


@dataclass(frozen=True, slots=True)
class Raw:
    """A reply with exactly this body, which need not be JSON, let alone a Message (a gateway's page)."""

    body: str
    status: int = 200


@dataclass(frozen=True, slots=True)
class Fail:
    status: int
    error_type: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Hang:
    """Hold the request this long without answering (released early when the server stops)."""

    seconds: float = 60.0


@dataclass(frozen=True, slots=True)
class Drop:
    """Read the whole request, then close the connection without a reply (a proxy or load balancer cutting
    a long call): the API received the request and may have run and billed it."""


@dataclass(frozen=True, slots=True)
class Trickle:
    """The reply `Reply()` would give, sent `chunk` bytes at a time `interval` seconds apart (its headers at
    once, or trickled too with `headers`): a slow proxy, or a server keeping a call open with a few bytes
    every while, each well within a read timeout. Stops early, the reply unfinished, when the client hangs
    up or the server stops."""

    interval: float
    chunk: int = 16
    headers: bool = False


Action = Reply | ToolInput | Content | Raw | Fail | Hang | Drop | Trickle


class FakeAnthropic(ThreadedServer):
    """`with FakeAnthropic() as api:` serves on 127.0.0.1 at a free port until the block ends."""

    def __init__(self, tool_name: str = "record_verdicts") -> None:
        super().__init__("fake-anthropic")
        self.tool_name = tool_name
        self.default: Action = Reply()
        self.decide: Decide = support_all
        self.requests: list[Body] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._script: deque[Action] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def enqueue(self, *actions: Action) -> None:
        with self._lock:
            self._script.extend(actions)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)

    def _next_action(self, body: Body) -> Action:
        with self._lock:
            self.requests.append(body)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            return self._script.popleft() if self._script else self.default

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        action = self._next_action(body)
        try:
            if isinstance(action, Drop):
                assert request.transport is not None
                request.transport.close()
                return web.Response(status=502)  # written to a closed connection: never arrives
            if isinstance(action, Trickle):
                return await self._trickle(action, body, request)
            return await self._respond(action, body)
        finally:
            with self._lock:
                self._in_flight -= 1

    async def _trickle(self, action: Trickle, body: Body, request: web.Request) -> web.StreamResponse:
        whole = await self._respond(Reply(), body)
        assert isinstance(whole, web.Response) and isinstance(whole.body, bytes)
        assert self._stopping is not None
        data = whole.body
        if action.headers:  # written raw, the status line first: aiohttp sends a response's head whole
            head = (f"HTTP/1.1 {whole.status} OK\r\nContent-Type: {whole.content_type}\r\n"
                    f"Content-Length: {len(data)}\r\nX-Padding: {'.' * 400}\r\nConnection: close\r\n\r\n"
                    ).encode()  # ~500 bytes: the head alone takes ~30 intervals
            transport = request.transport
            assert transport is not None

            async def raw(piece: bytes) -> None:
                if transport.is_closing():
                    raise ConnectionResetError
                transport.write(piece)

            await self._trickled(head + data, action, raw)
            transport.close()
            return web.Response(status=502)  # written to a closed connection: never arrives
        stream = web.StreamResponse(status=whole.status)
        stream.content_type = whole.content_type
        stream.content_length = len(data)
        await stream.prepare(request)
        await self._trickled(data, action, stream.write)
        return stream

    async def _trickled(self, data: bytes, action: Trickle,
                        write: Callable[[bytes], Awaitable[None]]) -> None:
        assert self._stopping is not None
        for start in range(0, len(data), action.chunk):
            try:
                await write(data[start:start + action.chunk])
            except ConnectionResetError:  # the client gave up
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), action.interval)
            if self._stopping.is_set():
                break

    async def _respond(self, action: Action, body: Body) -> web.StreamResponse:
        if isinstance(action, Hang):
            assert self._stopping is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), action.seconds)
            return web.Response(status=503)
        if isinstance(action, Fail):
            detail = {"type": action.error_type, "message": f"fake {action.status}"}
            error = {"type": "error", "error": detail}
            return web.json_response(error, status=action.status, headers=action.headers)
        if isinstance(action, Raw):
            return web.Response(text=action.body, status=action.status, content_type="application/json")
        if isinstance(action, Content):
            return self._message(body, action.blocks, action.stop_reason, action.usage)
        if isinstance(action, ToolInput):
            tool_input, usage = action.input, action.usage
        else:
            await asyncio.sleep(action.delay)
            tool_input = {"verdicts": (action.decide or self.decide)(body)}
            usage = action.usage or (len(json.dumps(body)) // 4, len(json.dumps(tool_input)) // 4)
            if len(json.dumps(tool_input)) // 4 > body["max_tokens"]:
                return self._cut_off(body, tool_input, usage[0])
        block = {"type": "tool_use", "id": f"toolu_fake{next(self._ids)}", "name": self.tool_name,
                 "input": tool_input}
        return self._message(body, [block], "tool_use", usage)

    def _cut_off(self, body: Body, tool_input: dict[str, Any], input_tokens: int) -> web.Response:
        """As the API does when the tool input (4 characters a token) outgrows `max_tokens`: the reply
        stops there, with stop_reason max_tokens and the verdicts that fitted, all of it billed."""
        fitted: dict[str, list[Any]] = {"verdicts": []}
        for verdict in tool_input["verdicts"]:
            if len(json.dumps({"verdicts": [*fitted["verdicts"], verdict]})) // 4 > body["max_tokens"]:
                break
            fitted["verdicts"].append(verdict)
        block = {"type": "tool_use", "id": f"toolu_fake{next(self._ids)}", "name": self.tool_name,
                 "input": fitted}
        return self._message(body, [block], "max_tokens", (input_tokens, body["max_tokens"]))

    def _message(self, body: Body, blocks: list[dict[str, Any]], stop_reason: str,
                 usage: tuple[int, int]) -> web.Response:
        return web.json_response({
            "id": f"msg_fake{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "unknown"),
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        })
