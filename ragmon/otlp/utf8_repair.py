"""A protobuf request whose strings are not all UTF-8, made one whose strings are.

Why: proto3 strings must be UTF-8, and Python's protobuf refuses a whole message over one string that is
not ("String field had bad UTF-8"): a batch of 512 spans from a Go or Java service that put one raw byte
string in an attribute lost all 512, answered 400, which a Collector does not retry. The Collector's own
decoder does not check, and passes such strings on; ragmon reads them as OTLP/JSON's lone surrogates are
read, each bad sequence as U+FFFD, and keeps every span.

Walked by the message's descriptor, as the wire says nothing of which length-delimited field is a string:
only string fields are rewritten, messages are walked into, and every other field is copied as it came.
Run only on a request the parser refused, so its cost is no concern of the ordinary path.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

_REWRITTEN = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_MESSAGE)
"""The length-delimited fields read: strings, rewritten, and messages, walked into."""


class NotRepairable(ValueError):
    """The body is no well-formed protobuf message: the parser's own error is the one to give."""


def repaired(body: bytes, descriptor: Descriptor) -> tuple[bytes, int]:
    """`body` with every string field's invalid UTF-8 replaced by U+FFFD, and how many strings were."""
    out = bytearray()
    count = _walk(memoryview(body), descriptor, out)
    return bytes(out), count


def _walk(buf: memoryview, descriptor: Descriptor, out: bytearray) -> int:
    count = 0
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        key_end = pos
        wire_type = key & 7
        if wire_type == 0:
            _, pos = _varint(buf, pos)
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        elif wire_type == 2:
            length, payload_start = _varint(buf, pos)
            pos = payload_start + length
            if pos > len(buf):
                raise NotRepairable("a length past the end")
            field = descriptor.fields_by_number.get(key >> 3)
            if field is not None and field.type in _REWRITTEN:
                payload = buf[payload_start:pos]
                if field.type == FieldDescriptor.TYPE_STRING:
                    inner = _utf8(bytes(payload))
                    if inner is not None:
                        count += 1
                else:
                    nested = bytearray()
                    count += _walk(payload, field.message_type, nested)
                    inner = bytes(nested)
                if inner is not None:  # a string left as it came is copied below, as any other field
                    out += buf[start:key_end]
                    out += _encode_varint(len(inner)) + inner
                    continue
        else:  # groups (3, 4) are in no OTLP message; 6 and 7 are no wire type
            raise NotRepairable(f"wire type {wire_type}")
        if pos > len(buf):
            raise NotRepairable("a field past the end")
        out += buf[start:pos]
    return count


def _utf8(data: bytes) -> bytes | None:
    """`data` with its invalid UTF-8 replaced, or None when it was valid."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace").encode("utf-8")
    return None


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise NotRepairable("a varint past the end")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
