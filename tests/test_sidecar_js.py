"""A Node.js app's traces sent to a real `ragmon serve` as OpenTelemetry JS's three exporters sent them
(tests/js_apps.py: OTLP/HTTP protobuf, gzipped or not, OTLP/HTTP JSON, and gRPC with gzip; their headers
and User-Agent too): each request taken whole, each trace scored once under its service's name, captured
with the documents, answer and citations the app used, and nothing logged as wrong."""

from __future__ import annotations

import asyncio
import json
import signal
from dataclasses import dataclass
from typing import Any

import aiohttp
import grpc
import pytest
from js_apps import ANSWERS, CORPUS, GROUNDEDNESS, QUESTION, Capture, Request, captures
from polling import wait_metrics
from serve_cli import serve_cli

from ragmon.scrape import Samples, total

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


async def send_http(port: int, request: Request) -> tuple[int, bytes]:
    headers = {name: value for name, value in request.headers.items() if name != "path"}
    url = f"http://127.0.0.1:{port}{request.headers['path']}"
    async with (aiohttp.ClientSession(auto_decompress=False, skip_auto_headers=["User-Agent"]) as session,
                session.post(url, data=request.body, headers=headers) as response):
        return response.status, await response.read()


async def send_grpc(port: int, request: Request) -> bytes:
    """The message with the JS exporter's User-Agent (gRPC adds its own after it), compressed as it was."""
    gzipped = request.headers.get("grpc-encoding") == "gzip"
    options = [("grpc.primary_user_agent", request.headers["user-agent"])]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        export = channel.unary_unary(EXPORT)
        answer: bytes = await export(request.body, timeout=10,
                                     compression=grpc.Compression.Gzip if gzipped else None)
        return answer


async def send(ready: dict[str, Any], js: Capture) -> list[tuple[int | str, bytes]]:
    if js.transport == "grpc":
        return [("OK", await send_grpc(ready["grpc_port"], request)) for request in js.requests]
    return [await send_http(ready["http_port"], request) for request in js.requests]


@dataclass(frozen=True)
class Run:
    answers: dict[str, list[tuple[int | str, bytes]]]
    samples: Samples
    captured: dict[str, dict[str, Any]]
    """The capture's record of each app's trace, by its service."""
    logs: list[dict[str, Any]]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    capture = tmp_path_factory.mktemp("js") / "captured.jsonl"
    apps = captures()
    flags = ["--grpc-listen", "127.0.0.1:0", "--capture", str(capture), "--capture-below", "all",
             "--quiet", "50ms", "--decision-wait", "3s"]
    with serve_cli(flags) as serve:
        answers = {js.name: asyncio.run(send(serve.ready, js)) for js in apps}
        samples = asyncio.run(wait_metrics(
            serve.ready["metrics_port"],
            lambda s: total(s, "ragmon_traces_total") == len(apps)))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs
    records = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    return Run(answers, samples, {record["pipeline"]: record for record in records}, logs)


def taken_whole(js: Capture, request: Request) -> tuple[int | str, bytes]:
    """No partial success: an empty ExportTraceServiceResponse, "{}" in JSON."""
    return ("OK" if js.transport == "grpc" else 200,
            b"{}" if request.headers.get("content-type") == "application/json" else b"")


def test_every_request_is_taken_whole(run: Run) -> None:
    assert run.answers == {js.name: [taken_whole(js, r) for r in js.requests] for js in captures()}


@pytest.mark.parametrize("js", captures(), ids=lambda js: js.name)
def test_each_trace_is_scored_once_as_the_app_answered(run: Run, js: Capture) -> None:
    assert total(run.samples, "ragmon_traces_total", pipeline=js.service) == 1
    assert total(run.samples, "ragmon_traces_total", pipeline=js.service, outcome="scored") == 1
    record = run.captured.get(js.service)
    assert record is not None, "not captured: no lexical score"
    assert (record["question"], record.get("answer")) == (QUESTION, ANSWERS[js.name])
    assert [context["id"] for context in record["contexts"]] == list(CORPUS)
    assert record["citations"] == ["kb-refunds"]
    groundedness = frozenset({("pipeline", js.service), ("judge", "lexical"), ("metric", "groundedness")})
    assert run.samples[("ragmon_example_score_count", groundedness)] == 1
    # One observation: the sum is the example's groundedness.
    assert run.samples[("ragmon_example_score_sum", groundedness)] == GROUNDEDNESS[ANSWERS[js.name]]


def test_nothing_is_logged_as_wrong(run: Run) -> None:
    assert [entry for entry in run.logs if entry["level"] in ("warning", "error")] == []
    assert total(run.samples, "ragmon_spans_rejected_total") == 0
