"""How many values an OTLP request holds, counted on the bytes before they are decoded.

Decoding costs per value, not per byte: an empty span event is 2 bytes of protobuf and ~200 bytes once
decoded (upb's message, then ragmon's `SpanEvent`), so one 16 MiB body of them took 1.7 GiB, past the
pod's memory limit, before any bound ragmon keeps could apply. `--max-body` bounds the bytes; the count
here bounds what they turn into, and costs nothing for a body too small to hold too many.

Protobuf: a value is each message (span, event, link, attribute, attribute value, resource, scope,
status), each bytes field (a span's ids, which become text) and each element of a repeated string: what
upb and the decoder allocate for (a span with its two ids is 3, ~600 bytes decoded). Every other field
the walk reads (a scalar, or a field unknown to the descriptors, which upb keeps as raw bytes) counts a
quarter: it costs no memory, but reading it costs time, and a body of millions of them must not take
seconds. The walk reads tags and lengths only, with the message types taken from OTLP's own descriptors
(a field the proto gains is counted without a change here), and keeps its own stack, so no nesting makes
it recurse.
OTLP/JSON: each object, each array and each value after a comma, outside strings: what `json.loads`
allocates for, including the scalars of a field the decoder ignores; and (ragmon.otlp.decode, once the
text is parsed and before any span is built) 2 more for each span, as a span costs there what its ids do
over protobuf. The same batch counts about twice over JSON as over protobuf, which is fair: its decoding
takes about twice the memory.
"""

from __future__ import annotations

import re

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ragmon.errors import RagmonError

_LENGTH_DELIMITED, _VARINT, _FIXED64, _START_GROUP, _END_GROUP, _FIXED32 = 2, 0, 1, 3, 4, 5


class MalformedProtobuf(RagmonError):
    """The bytes break the protobuf wire format; the message says where."""


class _MessageTypes:
    """Each message type reachable from a root, numbered: its message fields' numbers to their types'
    numbers, and the numbers of its other fields that are values too: repeated scalars (each element)
    and bytes fields (a span's ids)."""

    def __init__(self, root: Descriptor) -> None:
        self.number: dict[str, int] = {}
        self.children: list[dict[int, int]] = []
        self.valued: list[frozenset[int]] = []
        self._add(root)
        self.holds_values = [bool(c or r) for c, r in zip(self.children, self.valued, strict=True)]

    def _add(self, message: Descriptor) -> int:
        if message.full_name not in self.number:
            at = self.number[message.full_name] = len(self.children)
            self.children.append({})
            self.valued.append(frozenset(
                field.number for field in message.fields if field.message_type is None
                and (field.is_repeated or field.type == FieldDescriptor.TYPE_BYTES)))
            self.children[at].update({field.number: self._add(field.message_type)
                                      for field in message.fields if field.message_type is not None})
        return self.number[message.full_name]


_TYPES = _MessageTypes(ExportTraceServiceRequest.DESCRIPTOR)
_VALUE = 4
"""Units of the count: a value is 4, any other field read is 1."""
_PER_BYTE = 2
"""Units a message's bytes can hold at most: every field takes 2 bytes or more, and a value's 4 units
come with its 2 (a group's end tag, 1 byte, is read as 1 unit)."""


def protobuf_exceeds(body: bytes, limit: int) -> bool:
    """Whether the ExportTraceServiceRequest in `body` holds more than `limit` values.

    The walk keeps a bound on what it has not read yet (2 units a byte) and stops as soon as that and the
    count so far are within the limit, so a body of documents is read only down to the fields holding
    them and a body of under 2 x `limit` bytes is not read at all; or as soon as the count is over it, so
    a flood of empty events costs `limit` steps, not millions. Raises `MalformedProtobuf`."""
    budget = _VALUE * limit
    count = _VALUE
    unread = _PER_BYTE * len(body)   # the most the messages still to read can hold
    pending = [(0, len(body), 0)]
    children_of, valued_of, holds_values = _TYPES.children, _TYPES.valued, _TYPES.holds_values
    try:
        while pending and count + unread > budget:
            pos, end, kind = pending.pop()
            unread -= _PER_BYTE * (end - pos)
            children, valued = children_of[kind], valued_of[kind]
            while pos < end:
                if count > budget:
                    return True
                start = pos
                tag = body[pos]
                if tag < 0x80:
                    pos += 1
                else:
                    tag, pos = _short_varint(body, pos)
                    count += _padding(tag, pos - start)
                if tag >> 3 == 0:
                    raise MalformedProtobuf(f"field number 0 at byte {start}")
                if tag & 7 != _LENGTH_DELIMITED:
                    pos, read = _skip(body, pos, tag, budget - count)
                    count += read
                    continue
                length = body[pos]
                if length < 0x80:
                    pos += 1
                else:
                    at = pos
                    length, pos = _short_varint(body, pos)
                    count += _padding(length, pos - at)
                if pos + length > end:
                    raise MalformedProtobuf(f"field {tag >> 3} at byte {start} runs past its message")
                child = children.get(tag >> 3)
                if child is not None or tag >> 3 in valued:
                    count += _VALUE
                    if child is not None and holds_values[child] and length > 1:
                        inside = _plain_key_value(body, pos, pos + length) if child == _KEY_VALUE else 0
                        if inside:
                            count += inside
                        else:
                            unread += _PER_BYTE * length
                            pending.append((pos, pos + length, child))
                else:
                    count += 1
                pos += length
            if pos != end:
                raise MalformedProtobuf(f"a field before byte {end} runs past its message")
    except IndexError:
        raise MalformedProtobuf("the body ends inside a field") from None
    return count > budget


_KEY_VALUE = _TYPES.number["opentelemetry.proto.common.v1.KeyValue"]
_SCALAR_VALUES = {0x0A: 1, 0x10: 1, 0x18: 1, 0x21: 1, 0x3A: _VALUE}
"""AnyValue's scalar fields by their one-byte tags (string, bool, int, double, bytes), and their units:
bytes are a value, as every bytes field is."""


def _plain_key_value(body: bytes, pos: int, end: int) -> int:
    """The units inside a KeyValue at `body[pos:end]` when it is the common shape, a short key and a value
    of one scalar field (key 1, value 4, the scalar 1 or bytes 4), read in one step; else 0, and the walk
    reads it field by field. Most attributes are this shape: without the shortcut the walk takes longer
    than the decode."""
    if body[pos] != 0x0A or body[pos + 1] >= 0x80:
        return 0
    at = pos + 2 + body[pos + 1]
    if at == end:
        return 1
    if at + 2 > end or body[at] != 0x12 or body[at + 1] >= 0x80 or at + 2 + body[at + 1] != end:
        return 0
    at += 2
    if at == end:
        return 1 + _VALUE
    tag = body[at]
    if tag not in _SCALAR_VALUES or at + 1 >= end:
        return 0
    if tag in (0x0A, 0x3A):
        fits = body[at + 1] < 0x80 and at + 2 + body[at + 1] == end
    elif tag == 0x21:
        fits = at + 9 == end
    else:
        found = _VARINT_SKIP.match(body, at + 1, end)
        fits = found is not None and found.end() == end
    return 1 + _VALUE + _SCALAR_VALUES[tag] if fits else 0


_VARINT_SKIP = re.compile(rb"[\x80-\xff]{0,9}[\x00-\x7f]")
"""A varint of at most 10 bytes: its value is not needed, only where it ends, which the regex engine
finds faster than a Python step per byte (16 MiB of 10-byte varints: 2.8 s read byte by byte)."""


def _skip_varint(body: bytes, pos: int) -> int:
    if body[pos] < 0x80:   # most are one byte: no call into the regex engine
        return pos + 1
    found = _VARINT_SKIP.match(body, pos)
    if found is None:
        if pos + 10 <= len(body):
            raise MalformedProtobuf(f"a varint at byte {pos} is longer than 10 bytes")
        raise IndexError(pos)
    return found.end()


def _padding(value: int, size: int) -> int:
    """The bytes of a varint past those its value needs (`90 80 80 80 00` is 2 in 5 bytes), each counted a
    quarter: upb reads such tags, and 12 MiB of them, a quarter a field, took 2 s to walk. A value written
    as short as it can be costs nothing more, however many bytes it needs."""
    return size - max(1, (value.bit_length() + 6) // 7)


def _short_varint(body: bytes, pos: int) -> tuple[int, int]:
    """A tag or a length: 5 bytes at most, as upb reads them (32 bits), so that no field's tag costs ten
    Python steps."""
    value, shift, start = 0, 0, pos
    while True:
        byte = body[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 35:
            raise MalformedProtobuf(f"a tag or length at byte {start} is longer than 5 bytes")


def _skip(body: bytes, pos: int, tag: int, room: int) -> tuple[int, int]:
    """Where the field after `tag` (not length-delimited) ends, and the fields read, itself included. A
    group (obsolete, still legal for a field upb does not know) is read to its end with a stack of its
    own, not recursion, stopping once more than `room` fields are read."""
    wire = tag & 7
    if wire == _VARINT:
        return _skip_varint(body, pos), 1
    if wire == _FIXED64:
        return pos + 8, 1
    if wire == _FIXED32:
        return pos + 4, 1
    if wire != _START_GROUP:
        raise MalformedProtobuf(f"wire type {wire} at byte {pos} does not exist")
    groups, read = [tag >> 3], 1
    while groups and read <= room:
        start = pos
        inner, pos = _short_varint(body, pos)
        read += 1 + _padding(inner, pos - start)
        wire = inner & 7
        if wire == _END_GROUP:
            if inner >> 3 != groups.pop():
                raise MalformedProtobuf(f"a group ends as group {inner >> 3} at byte {start}")
        elif wire == _START_GROUP:
            groups.append(inner >> 3)
        elif wire == _LENGTH_DELIMITED:
            at = pos
            length, pos = _short_varint(body, pos)
            read += _padding(length, pos - at)
            pos += length
        elif wire == _VARINT:
            pos = _skip_varint(body, pos)
        elif wire in (_FIXED64, _FIXED32):
            pos += 8 if wire == _FIXED64 else 4
        else:
            raise MalformedProtobuf(f"wire type {wire} at byte {start} does not exist")
    return pos, read


_JSON_TOKEN = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)|([{\[,])', re.DOTALL)
"""A string (or an unterminated one, to the end), or a counted character outside strings. Possessive: the
engine keeps no backtracking state per escape (150 bytes each, a string of millions of them took 900
MiB), and the pattern matches at every quote, so no quote is scanned twice (quadratic otherwise)."""
_JSON_COUNTED = (b"{", b"[", b",")


def json_values(body: bytes, limit: int, *, exact: bool = False) -> int:
    """How many values, at most, the UTF-8 JSON in `body` holds: objects, arrays, values after a comma;
    a number over `limit` once they pass it. Braces, brackets and commas are counted in C, and taken as
    the count when it is within `limit` (unless `exact`); else strings are told apart, one match at a
    time, stopping once either the tokens pass the limit or the matches pass three times it (JSON within
    the limit has at most two strings a token, a key and its value; past that it is no JSON `json.loads`
    takes). (In UTF-16 an escaped quote's backslash is followed by a NUL, so strings cannot be found this
    way: the decoder takes UTF-8 only, as OTLP/JSON is.)"""
    counted = sum(map(body.count, _JSON_COUNTED))
    if counted <= limit and not exact:
        return counted
    tokens = 0
    for matches, match in enumerate(_JSON_TOKEN.finditer(body), 1):
        tokens += match.lastindex is not None
        if tokens > limit or matches > 3 * limit + 2:
            return limit + 1
    return tokens
