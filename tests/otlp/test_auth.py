"""The bearer token (ragmon.otlp.auth) on a real sidecar, sent as raw bytes: what a scanner or a broken
client may put in a header is not always UTF-8."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from ragmon.scrape import scrape, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar


async def raw_request(port: int, request: bytes) -> bytes:
    """The whole answer to `request`, sent byte for byte (an HTTP client would refuse or re-encode it)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), timeout=5)
    writer.close()
    await writer.wait_closed()
    return answer


async def test_a_token_that_is_not_utf8_is_a_wrong_token_on_both_ports(
        caplog: pytest.LogCaptureFixture) -> None:
    # aiohttp reads the byte 0xFF as the lone surrogate U+DCFF, which had failed the token's comparison
    # with a UnicodeEncodeError: a 500, a traceback per request, and no `unauthorized` count.
    caplog.set_level(logging.INFO)
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=("127.0.0.1", 0),
                                  metrics_listen=("127.0.0.1", 0), token="s3cret"))
    ports = await sidecar.start()
    request = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Authorization: Bearer s3cret\xff\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    try:
        otlp = [await raw_request(ports.http, request) for _ in range(2)]
        metrics_port = await raw_request(ports.metrics, request)
        after = await asyncio.to_thread(scrape, f"http://127.0.0.1:{ports.metrics}/metrics")
    finally:
        await sidecar.stop()
    for answer in otlp:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 401 ")
        assert b'\r\nWWW-Authenticate: Bearer realm="ragmon"' in head
        assert json.loads(body) == {
            "code": 16, "message": "missing or wrong bearer token (Authorization: Bearer <token>)"}
    # The metrics port tells only the token's holders where traces go: anyone else gets aiohttp's 404.
    assert metrics_port.startswith(b"HTTP/1.1 404 ") and b"404: Not Found" in metrics_port
    assert total(after, "ragmon_spans_rejected_total", reason="unauthorized") == 2
    assert total(after, "ragmon_misdirected_requests_total") == 0
    refused = [r for r in caplog.records if r.name == "ragmon.otlp"]
    assert [(r.levelno, r.reason, r.status) for r in refused] == [(logging.WARNING, "unauthorized", "401")]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
