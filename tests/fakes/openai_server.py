"""A local stand-in for the OpenAI Chat Completions API, driven by the real `openai` SDK via `base_url`.

Like the fake Anthropic server beside it, it is a `ThreadedServer`. Every request body is recorded.
Each call is answered with the next of the queued replies (or `default` once they are used up): an
assistant text as one `chat.completion`, or, when the request asks for `stream`, as
`chat.completion.chunk` server-sent events, a few words each, ending with `data: [DONE]` as the API
does; or a `Fail`, an API error with that HTTP status.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from fakes.threaded import ThreadedServer

Body = dict[str, Any]

_WORDS = re.compile(r"\S+\s*")
_CREATED = 1_700_000_000
"""A fixed `created` time: nothing in the tests reads it, and a fixed one keeps replies reproducible."""


def stream_pieces(text: str, words: int = 3) -> list[str]:
    """How a streamed reply is cut: `words` words (with their trailing space) a chunk."""
    tokens = _WORDS.findall(text)
    return ["".join(tokens[i:i + words]) for i in range(0, len(tokens), words)]


@dataclass(frozen=True, slots=True)
class Fail:
    """An error reply as the API sends one (500 is `server_error`, which the SDK raises as
    `InternalServerError`)."""

    status: int = 500
    error_type: str = "server_error"


Reply = str | Fail


class FakeOpenAI(ThreadedServer):
    """`with FakeOpenAI() as api:` serves `POST /v1/chat/completions` until the block ends."""

    def __init__(self, default: str = "I don't know.") -> None:
        super().__init__("fake-openai")
        self.default = default
        self.requests: list[Body] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        """What `openai.OpenAI(base_url=...)` takes: the API root, `/v1` included."""
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, *replies: Reply) -> None:
        """Queue the replies to the next calls, in order: assistant texts or failures."""
        with self._lock:
            self._replies.extend(replies)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._completions)

    def _next_reply(self, body: Body) -> Reply:
        with self._lock:
            self.requests.append(body)
            return self._replies.popleft() if self._replies else self.default

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        text = self._next_reply(body)
        if isinstance(text, Fail):
            error = {"message": f"fake {text.status}", "type": text.error_type, "param": None, "code": None}
            return web.json_response({"error": error}, status=text.status)
        completion_id = f"chatcmpl-fake{next(self._ids)}"
        model = body.get("model", "unknown")
        prompt_tokens = len(json.dumps(body["messages"])) // 4
        completion_tokens = len(_WORDS.findall(text))
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        if body.get("stream"):
            return await self._stream(request, completion_id, model, text, usage, body)
        return web.json_response({
            "id": completion_id,
            "object": "chat.completion",
            "created": _CREATED,
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": usage,
        })

    async def _stream(self, request: web.Request, completion_id: str, model: str, text: str,
                      usage: dict[str, int], body: Body) -> web.StreamResponse:
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await stream.prepare(request)

        async def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            chunk = {"id": completion_id, "object": "chat.completion.chunk", "created": _CREATED,
                     "model": model, "choices": choices, **extra}
            await stream.write(f"data: {json.dumps(chunk)}\n\n".encode())

        await send([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        for piece in stream_pieces(text):
            await send([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        await send([{"index": 0, "delta": {}, "finish_reason": "stop"}])
        if (body.get("stream_options") or {}).get("include_usage"):
            await send([], usage=usage)
        await stream.write(b"data: [DONE]\n\n")
        await stream.write_eof()
        return stream
