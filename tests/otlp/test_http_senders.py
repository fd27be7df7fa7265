"""OTLP/HTTP as senders other than the Python SDK write it: a Collector's `otlphttp` exporter with its
compression options, and a hand-made request whose Content-Type does not match its body."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Awaitable, Callable

import aiohttp
import pytest
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}
SPAN_NAMES = ["retrieve", "llm", "POST /ask"]
"""The spans of the conftest's RAG trace, in the order the SDK ends them."""

Serve = Callable[..., Awaitable[str]]


async def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as session, session.post(url, data=body, headers=headers) as resp:
        return resp.status, dict(resp.headers), await resp.read()


@pytest.mark.parametrize("headers", [PROTOBUF, JSON])
async def test_a_collectors_zlib_compression_is_taken_as_deflate(http_receiver: Serve, sink, sdk_spans,
                                                                 otlp_json, headers):
    # The Collector's `compression: zlib` sends the zlib format deflate names, as `Content-Encoding: zlib`
    # (confighttp's compressRoundTripper), and its own receiver takes it; it was a 415 the Collector does
    # not retry, every batch lost.
    url = await http_receiver()
    request = encode_spans(sdk_spans)
    body = request.SerializeToString() if headers is PROTOBUF else otlp_json(request)
    status, _, reply = await post(url, zlib.compress(body), {**headers, "Content-Encoding": "zlib"})
    assert status == 200
    assert reply == (b"" if headers is PROTOBUF else b"{}")
    assert [span.name for span in sink.spans] == SPAN_NAMES
    assert sink.rejects == []


@pytest.mark.parametrize("encoding", ["zstd", "snappy", "lz4", "br"])
async def test_an_unsupported_content_encoding_is_a_415_naming_the_codings_taken(http_receiver: Serve, sink,
                                                                                encoding):
    # RFC 9110 12.5.3: a 415 for a content coding carries Accept-Encoding, which tells it from a 415 for
    # the media type. zstd, snappy and lz4 are the Collector's other `compression` options.
    url = await http_receiver()
    status, headers, body = await post(url, b"\x28\xb5\x2f\xfd", {**PROTOBUF, "Content-Encoding": encoding})
    assert status == 415
    assert headers["Accept-Encoding"] == "gzip, deflate"
    assert Status.FromString(body).message == (f"Content-Encoding {encoding!r} is not supported: use gzip, "
                                               "deflate or identity")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_415_for_the_content_type_names_no_codings(http_receiver: Serve, sink):
    url = await http_receiver()
    status, headers, _ = await post(url, b"x", {"Content-Type": "text/plain", "Content-Encoding": "gzip"})
    assert status == 415
    assert "Accept-Encoding" not in headers
    assert sink.rejects == [(1, "decode_error")]


async def test_curls_expect_100_continue_gets_the_codings_taken_before_sending_the_body(http_receiver: Serve,
                                                                                       sink):
    url = await http_receiver()
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Encoding: zstd\r\n"
                 b"Content-Type: application/x-protobuf\r\nContent-Length: 2000000\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    writer.close()
    assert head.startswith(b"HTTP/1.1 415 ")
    assert b"\r\nAccept-Encoding: gzip, deflate\r\n" in head
    assert sink.rejects == [(1, "decode_error")]


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("before", [b"", b"\n", b"  \r\n\t"])
async def test_json_sent_as_protobuf_is_a_400_saying_to_send_it_as_json(http_receiver: Serve, sink, sdk_spans,
                                                                        otlp_json, indent, before):
    # `curl -H 'Content-Type: application/x-protobuf' --data-binary @trace.json`: the parser's own words
    # ("Wire format was corrupt", "wire type 6 at byte 188") did not say what was wrong.
    url = await http_receiver()
    doc = json.loads(otlp_json(encode_spans(sdk_spans)))
    status, headers, body = await post(url, before + json.dumps(doc, indent=indent).encode(), PROTOBUF)
    assert (status, headers["Content-Type"]) == (400, "application/x-protobuf")
    assert Status.FromString(body).message == ("body looks like JSON (it starts with '{'), not protobuf: "
                                               "send OTLP/JSON with Content-Type: application/json")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


_LOOKS_LIKE_PROTOBUF = ("body is not JSON and looks like protobuf (it decodes as an "
                        "ExportTraceServiceRequest): send it with Content-Type: application/x-protobuf")


@pytest.mark.parametrize("empty_first", [False, True])
async def test_protobuf_sent_as_json_is_a_400_saying_to_send_it_as_protobuf(http_receiver: Serve, sink,
                                                                            sdk_spans, empty_first):
    # A hand-rolled sender posting the SDK's bytes under the JSON Content-Type was told "'utf-8' codec can't
    # decode byte 0x89"; one whose first ResourceSpans is empty (0a 00: tag, length 0) that it sent UTF-16.
    request = ExportTraceServiceRequest()
    if empty_first:
        request.resource_spans.add()
    request.MergeFrom(encode_spans(sdk_spans))
    body = request.SerializeToString()
    assert body[0] == 0x0A and (body[1] == 0) == empty_first  # resource_spans' tag, then its length
    url = await http_receiver()
    status, headers, reply = await post(url, body, JSON)
    assert (status, headers["Content-Type"]) == (400, "application/json")
    assert json.loads(reply) == {"code": 3, "message": _LOOKS_LIKE_PROTOBUF}
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_body_that_is_neither_json_nor_protobuf_keeps_the_parsers_words(http_receiver: Serve, sink):
    url = await http_receiver()
    status, _, body = await post(url, b"\x7f\x00\x00", PROTOBUF)
    assert status == 400
    message = Status.FromString(body).message
    assert message.startswith("not a valid protobuf ExportTraceServiceRequest (")
    assert "JSON" not in message
    assert sink.rejects == [(1, "decode_error")]


async def test_protobuf_cut_short_that_starts_and_ends_like_json_keeps_the_parsers_words(http_receiver: Serve,
                                                                                        sink):
    # A request whose ResourceSpans is 123 bytes starts 0a 7b (`\n{`: its tag and length); cut after a span
    # name that is JSON text, it also ends with `}`. It was told to resend as JSON. Sizes: trace_id 2+16,
    # span_id 2+8, name 2+71, start and end 9 each: a span of 119 bytes, ScopeSpans 2+119 = 121,
    # ResourceSpans 2+121 = 123; the request is 125 bytes, and 107 without start and end.
    name = '{"question": "' + "q" * 55 + '"}'
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name=name, start_time_unix_nano=1, end_time_unix_nano=2)
    body = request.SerializeToString()[:107]
    assert (body[:2], body[-1:]) == (b"\n{", b"}")
    url = await http_receiver()
    status, _, reply = await post(url, body, PROTOBUF)
    assert status == 400
    message = Status.FromString(reply).message
    assert message.startswith("not a valid protobuf ExportTraceServiceRequest (")
    assert "JSON" not in message
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


async def test_a_request_without_a_content_type_is_told_it_sent_none(http_receiver: Serve, sink, sdk_spans):
    # `requests.post(url, data=body)` sends bytes with no Content-Type; the 415 named
    # 'application/octet-stream', a type the sender never wrote.
    url = await http_receiver()
    body = encode_spans(sdk_spans).SerializeToString()
    async with aiohttp.ClientSession(skip_auto_headers={"Content-Type"}) as session, \
            session.post(url, data=body) as resp:
        status, reply = resp.status, await resp.json()
    assert (status, reply["message"]) == (415, "no Content-Type header: send application/x-protobuf or "
                                               "application/json")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


@pytest.mark.parametrize(("header", "media"), [("json", "json"), ("Text/Plain; charset=utf-8", "Text/Plain"),
                                              ("application/json, application/x-protobuf",
                                               "application/json, application/x-protobuf")])
async def test_an_unsupported_content_type_is_quoted_as_sent(http_receiver: Serve, sink, header, media):
    # aiohttp reads one it cannot parse as application/octet-stream, which the 415 named: a type the
    # sender never wrote, which its configuration holds nowhere.
    url = await http_receiver()
    async with aiohttp.ClientSession() as session, \
            session.post(url, data=b"{}", headers={"Content-Type": header}) as resp:
        status, reply = resp.status, await resp.json()
    assert (status, reply["message"]) == (415, f"Content-Type {media!r} is not supported: send "
                                               "application/x-protobuf or application/json")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]


@pytest.mark.parametrize("header", ["", "; charset=utf-8"])
async def test_a_content_type_naming_no_media_type_is_quoted_as_sent(http_receiver: Serve, sink, header):
    # aiohttp reads it as application/octet-stream, which the 415 named, a type the sender never wrote.
    url = await http_receiver()
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: {header}\r\nContent-Length: 2\r\n"
                 "Connection: close\r\n\r\n{}".encode())
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, reply = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 415 ")
    assert json.loads(reply)["message"] == (f"Content-Type {header!r} names no media type: send "
                                            "application/x-protobuf or application/json")
    assert sink.offers == [] and sink.rejects == [(1, "decode_error")]
