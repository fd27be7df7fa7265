"""Trace ids whose sampling key lands where a test needs it, and an SDK id generator that hands them out.

The key is a hash of the id, so an id with a wanted key is found, not built: a counter is walked through
`sampling_key` until the key falls in the wanted interval, about 1 / (high - low) tries an id. The same
ids come out on every run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

from ragmon.sampling import sampling_key


def trace_ids_with_keys(intervals: Sequence[tuple[float, float]]) -> list[int]:
    """One trace id per [low, high) interval, its sampling key inside it; distinct within one call."""
    counter = itertools.count(1)
    return [next(n for n in counter if low <= sampling_key(f"{n:032x}") < high) for low, high in intervals]


class FixedIds(RandomIdGenerator):
    """The OTel SDK's generator with the trace ids a test chose, one per trace (span ids stay random)."""

    def __init__(self, trace_ids: Iterable[int]) -> None:
        self._ids = iter(trace_ids)

    def generate_trace_id(self) -> int:
        return next(self._ids)
