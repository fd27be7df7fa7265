"""The sampling key on the trace ids real tracers make, not only on uniformly random ones, and on ids
that are not trace ids at all."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable

import pytest

from ragmon.sampling import sampling_key

B2SUM_64 = {
    # `printf %s ID | xxd -r -p | b2sum -l 64` (coreutils, another BLAKE2b than Python's), run by hand:
    # the key is a function of the id alone, whatever the replica, Python, hash seed or byte order.
    "4bf92f3577b34da6a3ce929d0e0e4736": 0x6C01A2E6E0601783,  # W3C Trace Context's example
    "4BF92F3577B34DA6A3CE929D0E0E4736": 0x6C01A2E6E0601783,  # the same bytes, written in capitals
    "5759e988bd862e3fe1be46a994272793": 0x131C0BEF78E15F45,  # X-Ray's example 1-5759e988-bd862e3f...
    "0000000000000000a1b2c3d4e5f60718": 0x57EA91BF35082920,  # a 64-bit Jaeger id, as OTLP carries it
    "00000000000000000000000000000001": 0xBE28C32B13FEBF82,  # the first id a counter hands out
}


@pytest.mark.parametrize("trace_id", B2SUM_64)
def test_key_is_the_one_b2sum_gives_for_ids_of_every_shape(trace_id: str) -> None:
    assert sampling_key(trace_id) == (B2SUM_64[trace_id] >> 11) / 2**53


EPOCH_SECOND = 0x69322080
"""2025-12-05 00:00:00 UTC, the 8 leading hex digits of an X-Ray id made then."""


def xray_one_second(i: int, rng: random.Random) -> int:
    """AWS X-Ray's generator (OTel's AwsXRayIdGenerator): 32 bits of epoch seconds, 96 random."""
    return EPOCH_SECOND << 96 | rng.getrandbits(96)


def time_prefix_then_counter(i: int, rng: random.Random) -> int:
    """An old home-made generator: the second, then a counter; nothing random at all."""
    return (EPOCH_SECOND + i // 1000) << 96 | i


def sequential(i: int, rng: random.Random) -> int:
    return i + 1


def jaeger_64_bit(i: int, rng: random.Random) -> int:
    """A 64-bit Jaeger or Zipkin id, padded with zeros to 128 bits by the Collector's receivers."""
    return rng.getrandbits(64)


def w3c_random_flag(i: int, rng: random.Random) -> int:
    """W3C Trace Context level 2's random flag promises only the lower 56 bits random; here the upper 72
    are one constant (a host and process prefix)."""
    return 0x0123456789ABCDEF42 << 56 | rng.getrandbits(56)


ID_SHAPES: dict[str, Callable[[int, random.Random], int]] = {
    "xray-one-second": xray_one_second,
    "time-prefix-then-counter": time_prefix_then_counter,
    "sequential": sequential,
    "jaeger-64-bit": jaeger_64_bit,
    "w3c-random-flag": w3c_random_flag,
}


@pytest.mark.parametrize("make_id", ID_SHAPES.values(), ids=ID_SHAPES.keys())
def test_ids_that_are_not_random_are_sampled_at_the_rate_asked(
        make_id: Callable[[int, random.Random], int]) -> None:
    """20,000 ids of one shape. Binomial(20,000, rate) within 5 standard deviations, sqrt(n * rate *
    (1 - rate)): none at 0 and at 1e-9 (0.00002 ± 0.02), 200 ± 70 at 0.01, 2,000 ± 212 at 0.1,
    6,667 ± 333 at 1/3, all 20,000 at 1. A key read from the upper 64 bits put every X-Ray, Jaeger and
    random-flag id on one side of each rate; one read from the lower 64 (or 56) sampled every sequential id
    at any rate above 0, 1e-9 included, and the lower 64 no random-flag id at 0.01, 8 of them constant."""
    rng = random.Random(2026)
    ids = [f"{make_id(i, rng):032x}" for i in range(20_000)]
    assert len(set(ids)) == len(ids)
    n = len(ids)
    chosen: dict[float, set[str]] = {}
    for rate in (0.0, 1e-9, 0.01, 0.1, 1 / 3, 1.0):
        chosen[rate] = {t for t in ids if sampling_key(t) < rate}
        assert abs(len(chosen[rate]) - n * rate) <= 5 * math.sqrt(n * rate * (1 - rate)), rate
    assert chosen[0.01] <= chosen[0.1] <= chosen[1 / 3]  # Claude's traces among the lexical judge's


@pytest.mark.parametrize(("trace_id", "problem"), [
    ("a1b2c3d4e5f60718", "is not 32 hex digits"),  # a 64-bit id as Jaeger's UI shows it
    ("4bf92f35-77b3-4da6-a3ce-929d0e0e4736", "is not 32 hex digits"),  # written as a UUID
    ("4bf92f35 77b34da6 a3ce929d0e0e47", "is not 32 hex digits"),  # 32 characters, 15 bytes
    ("4bf92f3577b34da6a3ce929d0e0e4736ff", "is not 32 hex digits"),
    ("", "is not 32 hex digits"),
    ("0" * 32, "is all zeros"),
])
def test_an_id_that_is_not_a_trace_id_is_refused_naming_it(trace_id: str, problem: str) -> None:
    """Hashed as given, all but the UUID got a key of their own without a word (the UUID a bare
    "non-hexadecimal number found in fromhex() arg at position 8"): the Jaeger id 0.9996, so sampled at no
    rate below that, where ragmon serve keyed its trace 0.3434 (0x57ea91bf35082920 / 2**64: the padded
    form above)."""
    with pytest.raises(ValueError, match=re.escape(f"trace id {trace_id!r} {problem}")):
        sampling_key(trace_id)
