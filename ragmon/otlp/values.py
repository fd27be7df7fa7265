"""How many values an OTLP request holds, counted on the bytes before they are decoded.

Decoding costs per value, not per byte: an empty span event is 2 bytes of protobuf and ~200 bytes once
decoded (upb's message, then ragmon's `SpanEvent`), so one 16 MiB body of them took 1.7 GiB, past the
pod's memory limit, before any bound ragmon keeps could apply. `--max-body` bounds the bytes; the count
here bounds what they turn into, and costs nothing for a body too small to hold too many.

Protobuf: a value is each message (span, event, link, attribute, attribute value, resource, scope,
status) and each element of a repeated string: what upb allocates for. The walk reads tags and lengths
only, with the message types taken from OTLP's own descriptors, so a field the proto gains is counted
without a change here; fields unknown to the descriptors are kept by upb as raw bytes and cost only
those. OTLP/JSON: each object and each value after a comma, outside strings: what `json.loads`
allocates for, including the scalars of a field the decoder ignores. The same batch counts about twice
over JSON as over protobuf, which is fair: its decoding takes about twice the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from google.protobuf.descriptor import Descriptor
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ragmon.errors import RagmonError

_LENGTH_DELIMITED, _VARINT, _FIXED64, _START_GROUP, _END_GROUP, _FIXED32 = 2, 0, 1, 3, 4, 5


class MalformedProtobuf(RagmonError):
    """The bytes break the protobuf wire format; the message says where."""


class _MessageTypes:
    """Each message type reachable from a root, numbered: its message fields' numbers to their types'
    numbers, and the numbers of its repeated scalar fields (each element of one is a value too)."""

    def __init__(self, root: Descriptor) -> None:
        self.number: dict[str, int] = {}
        self.children: list[dict[int, int]] = []
        self.repeated: list[frozenset[int]] = []
        self._add(root)
        self.holds_values = [bool(c or r) for c, r in zip(self.children, self.repeated, strict=True)]

    def _add(self, message: Descriptor) -> int:
        if message.full_name not in self.number:
            at = self.number[message.full_name] = len(self.children)
            self.children.append({})
            self.repeated.append(frozenset(field.number for field in message.fields
                                           if field.message_type is None and field.is_repeated))
            self.children[at].update({field.number: self._add(field.message_type)
                                      for field in message.fields if field.message_type is not None})
        return self.number[message.full_name]


_TYPES = _MessageTypes(ExportTraceServiceRequest.DESCRIPTOR)


def protobuf_values(body: bytes, limit: int, message: Descriptor = ExportTraceServiceRequest.DESCRIPTOR,
                    start: int = 0, end: int | None = None) -> int:
    """How many values, at most, the `message` in `body[start:end]` holds, itself included: a bound
    within `limit` when the message is, else a number over `limit`.

    Every value takes at least 2 bytes (a tag and a length), so a message of n bytes holds at most n // 2
    values: the walk keeps that bound for what it has not read yet and stops as soon as the bound is
    within `limit` (a body of documents is read only down to the fields holding them) or the count is
    over it (a flood of empty events costs `limit` steps, not millions). Raises `MalformedProtobuf`."""
    end = len(body) if end is None else end
    count = 1
    bound = 1 + (end - start) // 2
    pending = [(start, end, _TYPES.number[message.full_name])]
    while pending and bound > limit:
        pos, stop, kind = pending.pop()
        bound -= (stop - pos) // 2
        children, repeated = _TYPES.children[kind], _TYPES.repeated[kind]
        for number, _, first, last in fields(body, pos, stop):
            if first < 0:
                continue
            child = children.get(number)
            if child is not None or number in repeated:
                count += 1
                if count > limit:
                    return count
                bound += 1
                if child is not None and _TYPES.holds_values[child] and last - first > 1:
                    bound += (last - first) // 2
                    pending.append((first, last, child))
    return bound


def fields(body: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(number, where its tag starts, where its payload starts, where it ends) of each field of the
    message in `body[pos:end]`; the payload's start is -1 for a field that is not length-delimited.
    Raises `MalformedProtobuf` where the bytes cannot be read as fields; what they hold is upb's to check."""
    try:
        while pos < end:
            start = pos
            tag, pos = _varint(body, pos)
            if tag >> 3 == 0:
                raise MalformedProtobuf(f"field number 0 at byte {start}")
            if tag & 7 == _LENGTH_DELIMITED:
                length, pos = _varint(body, pos)
                if pos + length > end:
                    raise MalformedProtobuf(f"field {tag >> 3} at byte {start} runs past its message")
                yield tag >> 3, start, pos, pos + length
                pos += length
            else:
                pos = _skip(body, pos, tag)
                yield tag >> 3, start, -1, pos
    except IndexError:
        raise MalformedProtobuf("the body ends inside a field") from None
    if pos != end:
        raise MalformedProtobuf(f"a field before byte {end} runs past its message")


def _varint(body: bytes, pos: int) -> tuple[int, int]:
    byte = body[pos]
    if byte < 0x80:
        return byte, pos + 1
    value, shift = byte & 0x7F, 7
    while True:
        pos += 1
        byte = body[pos]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos + 1
        shift += 7
        if shift >= 70:
            raise MalformedProtobuf(f"a varint at byte {pos} is longer than 10 bytes")


def _skip(body: bytes, pos: int, tag: int) -> int:
    """Where the field after `tag` (not length-delimited) ends; groups, obsolete but still legal for a
    field upb does not know, are skipped whole."""
    wire = tag & 7
    if wire == _VARINT:
        return _varint(body, pos)[1]
    if wire == _FIXED64:
        return pos + 8
    if wire == _FIXED32:
        return pos + 4
    if wire == _START_GROUP:
        while True:
            inner, pos = _varint(body, pos)
            if inner & 7 == _END_GROUP:
                if inner >> 3 != tag >> 3:
                    raise MalformedProtobuf(f"group {tag >> 3} ends as group {inner >> 3} at byte {pos}")
                return pos
            if inner & 7 == _LENGTH_DELIMITED:
                length, pos = _varint(body, pos)
                pos += length
            else:
                pos = _skip(body, pos, inner)
    raise MalformedProtobuf(f"wire type {wire} at byte {pos} does not exist")


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
"""A string, or an unterminated one to the end: the pattern matches from every quote, so no quote is
scanned twice (a pattern that could fail would rescan the rest from each of them: quadratic)."""


def json_exceeds(body: bytes, limit: int) -> bool:
    """Whether the JSON in `body` holds more than `limit` values: objects, and values after a comma.
    Braces and commas inside strings are left out only when counting them in leaves `limit` exceeded:
    taking the strings out costs about as much as decoding, and most bodies hold few of either."""
    if body.count(b"{") + body.count(b",") <= limit:
        return False
    bare = _JSON_STRING.sub(b"", body)
    return bare.count(b"{") + bare.count(b",") > limit
