"""Deploy gates: `--gate NAME=VALUE` thresholds decided on a Report, and the exit codes CI acts on.

A gate is a minimum, except for the metrics in LOWER_IS_BETTER, which are maxima. A gated metric that no
example could measure fails: "undefined" must never pass a deploy by accident.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ragmon.errors import InputError
from ragmon.metrics.aggregate import aggregate
from ragmon.model import LOWER_IS_BETTER, METRIC_NAMES, Aggregate, Report

EXIT_OK = 0
EXIT_BREACHED = 1
EXIT_ERROR = 2

Op = Literal[">=", "<="]


@dataclass(frozen=True, slots=True)
class Gate:
    metric: str
    threshold: float

    @property
    def op(self) -> Op:
        return "<=" if self.metric in LOWER_IS_BETTER else ">="


@dataclass(frozen=True, slots=True)
class GateResult:
    """`value` is what was compared (mean or interval bound), None when the metric was never observed."""

    metric: str
    op: Op
    threshold: float
    value: float | None
    passed: bool
    reason: str


def parse_gate(text: str) -> Gate:
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise InputError(f"--gate expects NAME=VALUE, got {text!r}")
    if name not in METRIC_NAMES:
        raise InputError(f"--gate {text!r}: unknown metric {name!r}; valid names: {', '.join(METRIC_NAMES)}")
    try:
        threshold = float(raw) + 0.0  # "-0" is 0.0, not a -0.0 that every report would print as "-0"
    except ValueError:
        raise InputError(f"--gate {text!r}: threshold {raw.strip()!r} is not a number") from None
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"--gate {text!r}: threshold must be between 0 and 1")
    return Gate(name, threshold)


def parse_gates(texts: Sequence[str]) -> tuple[Gate, ...]:
    gates = tuple(parse_gate(text) for text in texts)
    names = [gate.metric for gate in gates]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"--gate {name} is given {names.count(name)} times; give each metric once")
    return gates


def decide(report: Report, gates: Sequence[Gate], confidence: float | None = None) -> tuple[GateResult, ...]:
    """Compare on the mean or, given `confidence`, on the interval bound least favourable to a pass."""
    return tuple(_decide_one(report, gate, confidence) for gate in gates)


def _decide_one(report: Report, gate: Gate, confidence: float | None) -> GateResult:
    aggregate = report.aggregates.get(gate.metric) or Aggregate(None, 0)
    if aggregate.mean is None or aggregate.n == 0:
        return GateResult(gate.metric, gate.op, gate.threshold, None, False, "undefined: 0 observations")
    label = ""
    value = aggregate.mean
    if confidence is not None:
        interval = (aggregate.ci if confidence == report.config.confidence
                    else _interval(report, gate.metric, confidence))
        percent = f"{confidence * 100:g}%"
        if interval is None:
            reason = f"no {percent} interval from {aggregate.n} observations"
            return GateResult(gate.metric, gate.op, gate.threshold, None, False, reason)
        value = interval[0] if gate.op == ">=" else interval[1]
        label = f"{'lower' if gate.op == '>=' else 'upper'} {percent} bound "
    passed = value >= gate.threshold if gate.op == ">=" else value <= gate.threshold
    shown = gate.op if passed else {">=": "<", "<=": ">"}[gate.op]
    shown_value, shown_threshold = fmt_pair(value, gate.threshold)
    reason = f"{label}{shown_value} {shown} {shown_threshold}"
    return GateResult(gate.metric, gate.op, gate.threshold, value, passed, reason)


def _interval(report: Report, metric: str, confidence: float) -> tuple[float, float] | None:
    """The Report's own resampling (same seed, same rounds), read at another level."""
    config = report.config
    column = [result.metrics.get(metric) for result in report.results]
    return aggregate(column, samples=config.bootstrap_samples, confidence=confidence, seed=config.seed).ci


def combine(runs: Sequence[Sequence[GateResult]], min_pass_rate: float) -> tuple[GateResult, ...]:
    """For a judge that can disagree with itself: a gate holds when it held in at least that share of runs."""
    if len(runs) == 1:
        return tuple(runs[0])
    needed = math.ceil(min_pass_rate * len(runs) - 1e-9)
    combined = []
    for per_run in zip(*runs, strict=True):
        first = per_run[0]
        held = sum(result.passed for result in per_run)
        values = [result.value for result in per_run if result.value is not None]
        value = sum(values) / len(values) if values else None
        reason = (f"held in {held} of {len(runs)} runs (needs {needed}): "
                  + "; ".join(result.reason for result in per_run))
        combined.append(GateResult(first.metric, first.op, first.threshold, value, held >= needed, reason))
    return tuple(combined)


def exit_code(results: Sequence[GateResult]) -> int:
    return EXIT_OK if all(result.passed for result in results) else EXIT_BREACHED


def fmt_pair(value: float, threshold: float) -> tuple[str, str]:
    """Four significant digits, more when needed so that a breach never prints as `0.85 < 0.85`."""
    for digits in range(4, 17):
        shown = f"{value:.{digits}g}", f"{threshold:.{digits}g}"
        if shown[0] != shown[1] or value == threshold:
            return shown
    return f"{value:.17g}", f"{threshold:.17g}"
