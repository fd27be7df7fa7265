"""`ragmon replay --target` against a build that starts every request's span in the context of its first
request (a context variable set once and never reset, a thread's span left open): every request's spans
arrive under the first question's trace id, and the other questions' traces never come. The error names
the trace that held them all, which asking whether the build exports and propagates had hidden."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiohttp import web
from opentelemetry import context, propagate, trace
from opentelemetry.trace import SpanKind, Tracer
from ports import free_port
from test_replay_target import NOT_ARRIVED, Handler, chain, live_target, sdk_tracer, serving, untraced

from ragmon.errors import RagmonError
from ragmon.model import Example
from ragmon.target import collect

ASKED = [Example(id=name, question=f"question {name}") for name in ("a", "b", "c")]


def keeping_first_context(tracer: Tracer) -> Handler:
    """A build that extracts the first request's traceparent once and starts every request's span in it."""
    kept: list[context.Context] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        kept[:] = kept or [propagate.extract(request.headers)]
        with tracer.start_as_current_span("POST /ask", context=kept[0], kind=SpanKind.SERVER):
            chain(tracer, question, "It lasts 2 years.")
        return web.json_response({"answer": "It lasts 2 years."})
    return ask


def leaving_first_span_open(tracer: Tracer) -> Handler:
    """A build whose first request's span is never ended (so never exported), and whose later requests
    start their spans under it instead of in their own traceparent's context."""
    open_spans: list[trace.Span] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        if not open_spans:
            open_spans.append(tracer.start_span("POST /ask", context=propagate.extract(request.headers),
                                                kind=SpanKind.SERVER))
            with trace.use_span(open_spans[0], end_on_exit=False):
                chain(tracer, question, "It lasts 2 years.")
        else:
            with tracer.start_as_current_span("POST /ask", context=trace.set_span_in_context(open_spans[0]),
                                              kind=SpanKind.SERVER):
                chain(tracer, question, "It lasts 2 years.")
        return web.json_response({"answer": "It lasts 2 years."})
    return ask


def keeping_first_requests_span(tracer: Tracer) -> Handler:
    """A build that keeps the context current inside its first request's server span (a worker task
    created there), and starts every later request's span in it: they nest under a span already ended and
    exported."""
    kept: list[context.Context] = []

    async def ask(request: web.Request) -> web.Response:
        question = (await request.json())["question"]
        with tracer.start_as_current_span("POST /ask", context=kept[0] if kept else propagate.extract(
                request.headers), kind=SpanKind.SERVER):
            kept[:] = kept or [context.get_current()]
            chain(tracer, question, "It lasts 2 years.")
        return web.json_response({"answer": "It lasts 2 years."})
    return ask


@pytest.mark.parametrize("build",
                         [keeping_first_context, leaving_first_span_open, keeping_first_requests_span],
                         ids=["context-kept", "span-left-open", "inside-first-span"])
async def test_questions_whose_requests_went_into_the_first_ones_trace_are_told_so(
        build: Callable[[Tracer], Handler]) -> None:
    # Asked one at a time, a first: a's trace holds the requests of a, b and c, three; b's and c's never come.
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async with serving(build(tracer)) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, ASKED, live_target(url, receiver, trace_wait=1.0,
                                                                    concurrency=1), log=None)
    assert str(raised.value) == (
        "2 of 3 answers cannot be scored from their traces: no span of its trace arrived within "
        "--trace-wait 1s, but the trace of a held 3 requests, not one: the build keeps one request's trace "
        "context for the next ones (start each request's span in the context "
        "opentelemetry.propagate.extract(request.headers) returns, never in one an earlier request set or "
        "left open): b, c")


async def test_one_request_answering_twice_is_not_taken_for_several_requests() -> None:
    # a's request rewrites its question and answers it, two chains under its one server span; b's build
    # exports nothing. Nothing says a kept context: b is asked about export and propagation, as before.
    golden = ASKED[:2]
    receiver = free_port()
    with sdk_tracer(receiver) as tracer:
        async def ask(request: web.Request) -> web.StreamResponse:
            question = (await request.json())["question"]
            if question != "question a":
                return await untraced(request)
            with tracer.start_as_current_span("POST /ask", context=propagate.extract(request.headers),
                                              kind=SpanKind.SERVER):
                chain(tracer, "Which product is this about?", "The kettle.")
                chain(tracer, question, "It lasts 2 years.")
            return web.json_response({"answer": "It lasts 2 years."})

        async with serving(ask) as url:
            with pytest.raises(RagmonError) as raised:
                await asyncio.to_thread(collect, golden, live_target(url, receiver, trace_wait=1.0), log=None)
    assert str(raised.value) == ("1 of 2 answers cannot be scored from their traces: no span of its trace "
                                 f"arrived within --trace-wait 1s {NOT_ARRIVED}: b")
