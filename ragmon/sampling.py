"""Deterministic, nested sampling from the trace id.

The key is the trace id's lower 64 bits divided by 2**64, as OpenTelemetry's TraceIdRatioBased sampler
reads it, so every replica (and the app's own head sampler) agrees on which traces fall inside a rate,
and a smaller rate always selects a subset of a larger one.
"""

from __future__ import annotations

_TWO_64 = float(1 << 64)


def sampling_key(trace_id: str) -> float:
    """Key in [0, 1) from a 32-hex-digit trace id."""
    return int(trace_id[-16:], 16) / _TWO_64


def sampled(trace_id: str, rate: float) -> bool:
    return sampling_key(trace_id) < rate
