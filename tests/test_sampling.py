"""The sampling key and nested rates."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable

import pytest
from opentelemetry.sdk.trace.sampling import Sampler, TraceIdRatioBased

from ragmon.sampling import sampling_key

W3C_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
"""The example trace id of the W3C Trace Context spec."""


def random_trace_ids(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.getrandbits(128):032x}" for _ in range(n)]


def test_key_is_the_top_53_bits_of_blake2b_64_of_the_trace_id_bytes() -> None:
    # The formula as a user would write it (hexdigest and integer division, where the code uses
    # from_bytes and a shift): exact, both sides being an integer below 2**53 over 2**53.
    for trace_id in (W3C_TRACE_ID, "0af7651916cd43dd8448eb211c80319c", "f" * 32):
        digest = int(hashlib.blake2b(bytes.fromhex(trace_id), digest_size=8).hexdigest(), 16)
        assert sampling_key(trace_id) == (digest // 2**11) / 2**53
    # The shell recipe of the docs, run once by hand:
    # printf %s 4bf92f3577b34da6a3ce929d0e0e4736 | xxd -r -p | b2sum -l 64  ->  6c01a2e6e0601783
    assert sampling_key(W3C_TRACE_ID) == (0x6C01A2E6E0601783 >> 11) / 2**53
    # The whole id counts: ids with the same lower 64 bits (one key under a lower-64-bit key) differ.
    assert sampling_key("1" + "0" * 31) != sampling_key("2" + "0" * 31)


def test_rate_selects_its_share_of_random_trace_ids() -> None:
    # 10,000 draws at p=0.1: standard error sqrt(0.1*0.9/10000) = 0.003, so ±0.01 is over 3 sigma.
    ids = random_trace_ids(10_000)
    share = sum(sampling_key(t) < 0.1 for t in ids) / len(ids)
    assert 0.09 <= share <= 0.11


def test_keys_are_in_0_1_and_a_smaller_rate_selects_a_subset_of_a_larger_one() -> None:
    ids = [*random_trace_ids(5_000, seed=11), "0" * 31 + "1", "f" * 32]
    llm = {t for t in ids if sampling_key(t) < 0.05}
    lexical = {t for t in ids if sampling_key(t) < 0.3}
    assert llm and llm < lexical
    assert all(0.0 <= sampling_key(t) < 1.0 for t in ids)  # so rate 1.0 samples every id


def sdk_decision(sampler: Sampler) -> Callable[[int], bool]:
    return lambda trace_id: sampler.should_sample(None, trace_id, "GET /answer").decision.is_sampled()


def java_trace_id_ratio(p: float) -> Callable[[int], bool]:
    """The Java SDK's TraceIdRatioBased (it cannot run here, so written out from its source): keep when
    |lower 64 bits read as a signed long| < (long)(p * Long.MAX_VALUE), i.e. both ends of those bits."""
    bound = int(p * (2**63 - 1))

    def keeps(trace_id: int) -> bool:
        low = trace_id & (2**64 - 1)
        return abs(low - 2**64 if low >= 2**63 else low) < bound
    return keeps


def consistent_probability(p: float) -> Callable[[int], bool]:
    """OTEP 235 consistent probability sampling (the Collector's probabilisticsampler in its proportional
    and equalizing modes, OTel's newer samplers; written out, as the Python SDK has it only in a private
    module): R = the lower 56 bits, kept when R >= (1 - p) * 2**56, the high end."""
    threshold = round((1 - p) * 2**56)
    return lambda trace_id: trace_id & (2**56 - 1) >= threshold


HEAD_SAMPLERS = {
    # OTel Python's (and Go's), the SDK's own: lower 64 bits < p * 2**64.
    "otel-ratio": sdk_decision(TraceIdRatioBased(0.1)),
    "otep-235": consistent_probability(0.1),
    "java-ratio": java_trace_id_ratio(0.1),
}


@pytest.mark.parametrize("keeps", HEAD_SAMPLERS.values(), ids=HEAD_SAMPLERS.keys())
def test_a_rate_is_a_share_of_the_traces_received_whatever_the_app_head_sampled(
        keeps: Callable[[int], bool]) -> None:
    """An app head-samples 10% of random ids (the SDK's RandomIdGenerator is `random.getrandbits(128)`;
    seeded here, so the test gives the same figures every run); ragmon receives what it kept."""
    rng = random.Random(2026)
    received = [f"{t:032x}" for t in (rng.getrandbits(128) for _ in range(200_000)) if keeps(t)]
    n = len(received)
    # Binomial(200,000, 0.1): 20,000 ± 5 * sqrt(200,000 * 0.1 * 0.9) = ± 671.
    assert abs(n - 20_000) <= 671
    chosen: dict[float, set[str]] = {}
    for rate in (0.5, 0.01, 0.002):  # --sample-rate 0.5, and Claude's share at --llm-sample-rate 0.01, 0.002
        chosen[rate] = {t for t in received if sampling_key(t) < rate}
        # Binomial(n, rate) within 5 standard deviations, sqrt(n * rate * (1 - rate)); at n = 20,000:
        # 10,000 ± 354, 200 ± 70, 40 ± 32. A key of lower 64 bits / 2**64 gave all n at 0.5 behind OTel's
        # ratio sampler, none at 0.002 behind OTEP 235, 10% and 2% at 0.01 and 0.002 behind Java's.
        assert abs(len(chosen[rate]) - n * rate) <= 5 * math.sqrt(n * rate * (1 - rate)), rate
    assert chosen[0.002] <= chosen[0.01] <= chosen[0.5]  # Claude's sample within the lexical one
