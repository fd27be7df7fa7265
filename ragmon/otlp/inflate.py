"""Inflating OTLP bodies ourselves, over HTTP and gRPC alike, so that what a compressed body becomes is
bounded as it grows: by `--max-body`, and by the room left in the receivers' shared `BodyBudget`.

gRPC would inflate a message itself, wholly, before any handler sees it: 25 calls of 16 KB of gzip that
each inflate to 30 MiB held 660 MiB before ragmon could refuse one. Its receiver runs with gRPC's own
decompression off and inflates here instead, the encoding told by the message's first bytes: gRPC passes
neither the message's compressed flag nor `grpc-encoding` to the handler. See `sniff`.
"""

from __future__ import annotations

import zlib

from ragmon.otlp.limits import BodyClaim

GZIP_MAGIC = b"\x1f\x8b"
"""How a gzip stream starts, and neither OTLP body can: in protobuf 0x1f is a field of wire type 7, which
does not exist, and in JSON a control character."""

MAX_GZIP_MEMBERS = 4
"""gzip members one body may hold. RFC 1952 allows any number and OTLP exporters send one; each costs a
stream and a copy of what follows it in its chunk, so a body of 800,000 empty members (16 MiB) took 22 s of
CPU on the event loop before this cap."""


class TooLarge(Exception):
    """What was over `--max-body` ("body of N bytes"); the receiver words the rest, with the flag to
    raise."""


class NoRoom(Exception):
    """The `BodyBudget` has no room for the next piece of the body."""


class Inflater:
    """Incremental gzip (up to `MAX_GZIP_MEMBERS` members) or zlib-wrapped deflate."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding == "gzip"
        self._wbits = 16 + zlib.MAX_WBITS if self._gzip else zlib.MAX_WBITS
        self._stream = zlib.decompressobj(self._wbits)
        self._members = 1

    def feed(self, data: bytes, room: int) -> bytes:
        """Inflate `data`, stopping once the output passes `room` bytes (the caller then refuses it)."""
        pieces = []
        while data:
            if self._stream.eof:
                if not self._gzip:
                    raise zlib.error("data after the end of the deflate stream")
                if self._members == MAX_GZIP_MEMBERS:
                    raise zlib.error(f"more than {MAX_GZIP_MEMBERS} gzip members in one body (an OTLP "
                                     "exporter sends one)")
                self._members += 1
                self._stream = zlib.decompressobj(self._wbits)
            piece = self._stream.decompress(data, room + 1)
            pieces.append(piece)
            room -= len(piece)
            if room < 0:
                break
            data = self._stream.unconsumed_tail or self._stream.unused_data
        return b"".join(pieces)

    def finish(self) -> None:
        if not self._stream.eof:
            raise zlib.error("the compressed stream ends early")


def take(body: bytearray, piece: bytes, max_body: int, claim: BodyClaim, what: str) -> None:
    """Append `piece` to `body` within `max_body` (else TooLarge naming `what`) and the budget (else
    NoRoom)."""
    if len(body) + len(piece) > max_body:
        raise TooLarge(what)
    if not claim.grow(len(piece)):
        raise NoRoom
    body += piece


def sniff(message: bytes) -> str:
    """How a gRPC message looks compressed: "gzip", "deflate" (zlib-wrapped, as gRPC sends it) or "".

    gzip is certain: no protobuf message starts with 0x1f (`GZIP_MAGIC`). deflate is a guess: a zlib
    header is a first byte of 0x08 to 0x78 with the low nibble 8 and a two-byte checksum, which is also a
    protobuf message starting with a varint field the request does not read (field 1 of the wrong wire
    type, or a field 3 to 15), skipped as unknown: `78 01` is field 15 holding 1. The gRPC receiver reads
    a message that does not inflate as sent."""
    if message.startswith(GZIP_MAGIC):
        return "gzip"
    if len(message) >= 2 and message[0] & 0x0F == 8 and message[0] >> 4 <= 7 \
            and (message[0] << 8 | message[1]) % 31 == 0:
        return "deflate"
    return ""
