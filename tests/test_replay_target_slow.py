"""`ragmon replay --target` against a build whose model takes its time: the spans exported after the
answer (the build's root, its generation) must join their trace however early a part of it arrived, so
that a slow answer is scored, not left out or failed."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp import web
from opentelemetry import propagate
from opentelemetry.trace import SpanKind, Tracer
from ports import free_port
from test_replay_target import Handler, live_target, sdk_tracer, serving

from ragmon.model import Example
from ragmon.target import collect

DOCUMENT = "The shop opens at 9 on weekdays."
ANSWER = "The shop opens at 9 on weekdays."


def retrieves_then_thinks(tracer: Tracer, seconds: float) -> Handler:
    """A build whose retrieval span ends, and is exported, at once, and whose model then takes `seconds`:
    an agent or a large model, answering well within --target-timeout."""
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER) as root:
            root.set_attribute("ragmon.question", question)
            with tracer.start_as_current_span("retrieve", attributes={
                    "ragmon.contexts": json.dumps([{"id": "hours", "text": DOCUMENT}])}):
                pass
            await asyncio.sleep(seconds)
            with tracer.start_as_current_span("generate", attributes={"ragmon.answer": ANSWER}):
                pass
        return web.json_response({"answer": ANSWER})
    return ask


async def test_an_answer_slower_than_trace_wait_is_scored_with_its_whole_trace() -> None:
    # --trace-wait 2s, the model answering in 4 s (--target-timeout 10s). The retrieval span arrived at
    # once, and 2 s later the trace was decided without its root and answer, while the question was still
    # being asked; the run stopped waiting at the answer and exited 2 with "its parent never arrived, nor
    # the answer: the trace was decided without them (the request was still running ...".
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(retrieves_then_thinks(tracer, 4.0)) as url:
            target = live_target(url, receiver, trace_wait=2.0, timeout=10.0, quiet=1.0)
            (example,) = await asyncio.to_thread(collect, [Example(id="a", question="When do you open?")],
                                                 target, log=None)
    assert example.answer == ANSWER
    assert example.contexts is not None and [c.text for c in example.contexts] == [DOCUMENT]


def retriever_service(tracer: Tracer) -> Handler:
    """A retriever of its own, continuing the trace it is called in: its SERVER span is a local root (its
    parent is remote), exported at once with the documents."""
    async def search(request: web.Request) -> web.Response:
        contexts = json.dumps([{"id": "hours", "text": DOCUMENT}])
        with tracer.start_as_current_span("POST /search", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER, attributes={"ragmon.contexts": contexts}):
            return web.json_response({"documents": [DOCUMENT]})
    return search


def calls_its_retriever_then_thinks(tracer: Tracer, seconds: float) -> Handler:
    """The RAG service in front of `retriever_service`, at /search on its own host: it passes the trace
    on, and its model then takes `seconds`."""
    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                          kind=SpanKind.SERVER) as root:
            root.set_attribute("ragmon.question", question)
            headers: dict[str, str] = {}
            propagate.inject(headers)
            async with aiohttp.ClientSession() as session, \
                    session.post(str(request.url.with_path("/search")), headers=headers) as found:
                await found.read()
            await asyncio.sleep(seconds)
            with tracer.start_as_current_span("generate", attributes={"ragmon.answer": ANSWER}):
                pass
        return web.json_response({"answer": ANSWER})
    return ask


async def test_an_answer_slower_than_trace_quiet_after_its_retrievers_spans_is_scored() -> None:
    # The retriever's spans, a root of their own, arrived at once, and --trace-quiet (1 s) later the trace
    # was complete while the model still worked (3 s). Its answer, exported after it was given, came once
    # the run had stopped waiting: the last question's answer was unknown, left out of groundedness with a
    # warning, and a gate its hallucination breached passed.
    receiver = free_port()
    with sdk_tracer(receiver) as rag, sdk_tracer(receiver) as retriever:
        async with serving(calls_its_retriever_then_thinks(rag, 3.0),
                           web.post("/search", retriever_service(retriever))) as url:
            target = live_target(url, receiver, quiet=1.0, timeout=10.0)
            (example,) = await asyncio.to_thread(collect, [Example(id="a", question="When do you open?")],
                                                 target, log=None)
    assert example.answer == ANSWER
    assert example.contexts is not None and [c.text for c in example.contexts] == [DOCUMENT]
