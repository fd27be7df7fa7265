"""Deterministic, nested sampling from the trace id.

ragmon only receives the traces the app's head sampler kept, and head samplers choose by bits of the
trace id: OTel Python's and Go's TraceIdRatioBased(p) keep the ids whose lower 64 bits / 2**64 < p,
Java's keeps both ends of those bits, consistent probability samplers (OTEP 235: the Collector's
probabilisticsampler in its proportional and equalizing modes, the SDK samplers built on it) keep the high
end of the lower 56 (or of the `rv` value in tracestate). A key read from those bits sees only the slice
upstream kept: behind a 10% ratio sampler, a key of lower 64 bits / 2**64 put every trace received under
rate 0.5, and ten times the expected share under 0.01. So the key hashes the whole id, and a rate r
scores a share r of the traces ragmon receives, whatever sampled them upstream:

    key = (BLAKE2b-64 of the 16 trace id bytes, as a big-endian integer) >> 11, times 2**-53

BLAKE2b-64 being BLAKE2b with its digest length set to 8 bytes (not a cut BLAKE2b-512), no key, no salt;
in a shell, `printf %s "$TRACE_ID" | xxd -r -p | b2sum -l 64` prints it. A trace is in a rate when its
key is below it, so every replica and every restart agrees, and a smaller rate selects a subset of a
larger one. Ids only partly random are spread alike: X-Ray's time prefix, sequential ids, 64-bit Jaeger
and Zipkin ids padded with zeros, W3C ids whose random flag promises only the lower 56 bits.

No upstream sampler uses this key (the Collector's probabilisticsampler, in its default hash_seed mode,
hashes the id with FNV and a seed), so ragmon's choice is independent of theirs, by design: behind a head
sampler at p, --sample-rate r scores an app's trace with probability p * r, not min(p, r), and of the
traces a tracing backend sampled at r ragmon scores a share r, not all of them.
"""

from __future__ import annotations

import hashlib

TRACE_ID_HEX_DIGITS = 32


def sampling_key(trace_id: str) -> float:
    """Key in [0, 1) from a 32-hex-digit trace id.

    The 64-bit digest is cut to the 53 bits a float holds exactly before scaling: dividing all 64 by 2**64
    rounds the top digests to 1.0, which no rate, not even 1.0, would sample.
    """
    digest = hashlib.blake2b(_trace_id_bytes(trace_id), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 11) * 2.0**-53


def _trace_id_bytes(trace_id: str) -> bytes:
    """The 16 bytes OTLP carries for the id, or a ValueError naming it.

    Any other length hashes to another key without a word: the 16 digits Jaeger shows for a 64-bit id are
    8 bytes, while the Collector pads them with zeros before ragmon sees them; `bytes.fromhex` would also
    skip spaces. The all-zero id is the W3C's invalid id, which ragmon's receivers refuse.
    """
    try:
        data = bytes.fromhex(trace_id)
    except ValueError:
        data = b""
    if len(trace_id) != TRACE_ID_HEX_DIGITS or len(data) != TRACE_ID_HEX_DIGITS // 2:
        raise ValueError(f"trace id {trace_id!r} is not {TRACE_ID_HEX_DIGITS} hex digits (a 64-bit id of 16 "
                         "digits is left-padded with 16 zeros, as OTLP carries it)")
    if not any(data):
        raise ValueError(f"trace id {trace_id!r} is all zeros, which W3C Trace Context makes invalid")
    return data
