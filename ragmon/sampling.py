"""Deterministic, nested sampling from the trace id.

ragmon only receives the traces the app's head sampler kept, and head samplers choose by bits of the
trace id: OTel Python's and Go's TraceIdRatioBased(p) keep the ids whose lower 64 bits / 2**64 < p,
Java's keeps both ends of those bits, consistent probability samplers (OTEP 235, the Collector's
probabilisticsampler) keep the high end of the lower 56. A key read from those bits sees only the slice
upstream kept: behind a 10% ratio sampler, a key of lower 64 bits / 2**64 put every trace received under
rate 0.5, and ten times the expected share under 0.01. So the key hashes the whole id, and a rate r
scores a share r of the traces ragmon receives, whatever sampled them upstream:

    key = (BLAKE2b-64 of the 16 trace id bytes, as a big-endian integer) >> 11, times 2**-53

BLAKE2b-64 being BLAKE2b with its digest length set to 8 bytes (not a cut BLAKE2b-512), no key, no salt;
in a shell, `printf %s "$TRACE_ID" | xxd -r -p | b2sum -l 64` prints it. A trace is in a rate when its
key is below it, so every replica and every restart agrees, and a smaller rate selects a subset of a
larger one.
"""

from __future__ import annotations

import hashlib


def sampling_key(trace_id: str) -> float:
    """Key in [0, 1) from a 32-hex-digit trace id.

    The 64-bit digest is cut to the 53 bits a float holds exactly before scaling: dividing all 64 by 2**64
    rounds the top digests to 1.0, which no rate, not even 1.0, would sample.
    """
    digest = hashlib.blake2b(bytes.fromhex(trace_id), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 11) * 2.0**-53
