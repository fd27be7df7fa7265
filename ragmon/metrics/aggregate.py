"""Undefined-aware means with intervals: a percentile bootstrap, widened to an exact binomial bound.

A metric's aggregate is the unweighted mean over the examples where it is defined; `None` values are
left out, never counted as zero. The interval resamples *examples* (with replacement, n of them) and
recomputes each metric's defined-only mean, so a resample that happens to draw fewer defined examples
is honestly wider. Rounds whose resample holds no defined value for a metric are skipped for it.

Each column is resampled in the order of its values from worst to best (ascending, but descending for a
metric in LOWER_IS_BETTER; its undefined ones last), so a metric's interval depends only on the seed, n,
its direction and the values of its own column, whatever the order of the examples: a gate on its bound
must not flip with the order the files were named in. Worst first, not ascending for all: a draw then
takes the same example's value of groundedness and of hallucination_rate (1 - groundedness), so their
intervals mirror each other. Both ascending, the same five answers had groundedness [0.267, 0.933] and
hallucination_rate [0.067, 0.800], and `--gate groundedness=0.25` held where `hallucination_rate=0.75`,
the same bar, was breached.

Cost, without numpy: one round draws n indices once and shares them across every metric. The columns'
values at each position are packed into one integer, an 80-bit lane per metric holding its value quantised
to 48 bits of the column's range (plus a lane counting defined values per pattern of undefined ones), so a
round is one `itemgetter` gather and one C-level `sum` for all metrics at once: about 0.1 us per example for
the draw and 0.06 us for the sum, against 0.02 us *per metric* with float sums. Quantisation moves a
resampled mean by at most 2^-49 of the range, well inside the 12 decimals a gate compares at (at 2^-33, a
bound exactly at its threshold, 37/120, came out 7e-11 under it and failed the gate); 80 bits hold the sum
of 2^32 of them. The number of rounds is capped so that rounds x n stays within `MAX_DRAWS`, never below
`MIN_ROUNDS`: up to 1,000 examples get all 1,000 rounds, 2,000 get 500, and 10,000 examples x 13 metrics
take 200 rounds (~0.4 s on one slow core) instead of 1,000 (~2 s). With that many examples the interval is
narrow and its Monte Carlo error far below its width. Each aggregate says how many rounds its interval was
read from (`Aggregate.rounds`), since `EvalConfig.bootstrap_samples` says only how many were asked for.

A metric's interval (every metric is in [0, 1]; `unit`) is the wider, on each side, of that bootstrap and a
binomial bound, because the bootstrap alone claims certainty from a few examples: a column of equal values
resamples only to itself, and five grounded answers had the interval (1, 1) and passed `--gate
groundedness=0.99`, which a true groundedness of 0.99 gives 95% of the time. Near 0 or 1 it is too
narrow on the side facing the middle for a few hundred examples too (benchmarks/interval_coverage.py: a
lower bound above the true 0.99 in 37% of 100-example sets, where a 95% interval allows 2.5%). The binomial
bound is Clopper and Pearson's exact interval of a proportion, at the mean, over `n_eff` trials: a mean of n
values in [0, 1] varies at most as a proportion of n 0/1 trials does (mu(1 - mu) is the largest variance a
value of mean mu can have), and values of variance v as one of n mu(1 - mu) / v trials; n_eff is that,
never under n. v is not the values' variance s^2 but its upper confidence bound, s^2 + z sqrt((m4 - s^4) /
n) (m4 the fourth central moment, z the level's normal quantile, 1.96 at 95%), both taken over the values
and one pseudo-observation at each end of the range, 0 and 1, so a few equal values never claim no
variance. Why the bound: values at one level with a rare value far off (mrr 0.5 but for the 3% of questions
whose document was never retrieved, at 0) often lack it in a sample, which then has both too high a mean
and too small a variance, and the interval was narrowest where it was wrong: with s^2 itself (scoring
rules 2) its lower bound was above the true mean in 7.5% of 50-example sets, 3.5-5.3% of 100 to 1,000.
Three or five pseudo-observations a side instead mended up to 300 examples, not 1,000 (3.9%, 3.5%), where
the sample's variance still shrinks with its mean, and widened as much. For 0/1 values n_eff = n: the exact
bound. Over every distribution the benchmark draws (0/1 verdicts at 0.5 to 0.99, shares of an answer's claims,
a mass at 1.0 with a tail, values clustered mid-range, values at one level with rare zeros; 1 to 1,000
examples) each side misses at most 2.5% within Monte Carlo error (worst 3.1%, 1.2 standard errors over), and
at 100 or more examples the interval is on average 32% narrower than the Wilson interval at the largest
variance (which misses up to 13.6% a side at small n), 33% wider than the bootstrap alone and 11% wider than
scoring rules 2's. The bound is computed from the values in steps of 2^-40, exactly (`binomial_interval`), so
a lower-is-better metric's bounds are 1 minus those of its mirror's. One example has a real interval: a 1.0
gets (0.025, 1), what a single success tells of a proportion.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter
from statistics import NormalDist

from ragmon.model import LOWER_IS_BETTER, MIN_BOOTSTRAP_SAMPLES, Aggregate

MAX_DRAWS = 1_000_000
"""Upper bound on rounds x examples per report."""
MIN_ROUNDS = MIN_BOOTSTRAP_SAMPLES
"""Fewest bootstrap rounds used however large the dataset: the fewest an `EvalConfig` may ask for."""
ENDS = 1
"""Pseudo-observations at 0 and at 1 the binomial bound's variance is taken with (the module's note)."""
_GRID = 1 << 40
"""The binomial bound reads values in steps of 2^-40: a value and its mirror's 1 - v, a float's last bit
apart, fall in the same step (k / m and (m - k) / m for every m up to 8,000), and a step moves the mean the
bound is taken at by under 1e-12 / n."""
_LANE = 80
_QUANTUM = 1 << 48
_LANE_MASK = (1 << _LANE) - 1


def bootstrap_rounds(samples: int, n: int) -> int:
    """Rounds actually run for `n` examples when `samples` were asked for."""
    if n <= 1 or samples <= 0:
        return 0
    return min(samples, max(MIN_ROUNDS, MAX_DRAWS // n))


def aggregate(values: Sequence[float | None], *, samples: int = 1000, confidence: float = 0.95,
              seed: int = 0, metric: str = "", unit: bool = False) -> Aggregate:
    """Mean, count and interval of one metric over examples; `metric` names it, and so its direction, for
    the order it is resampled in: a gate's interval read at another level, or of a change, is drawn as
    the Report's own intervals are. `unit=True`: the values are a metric's, in [0, 1], whose interval also
    holds the binomial bound, as a Report's do (`aggregate_columns`); else the column is bootstrapped
    alone, as a change of one (in [-1, 1]) is, so that an unchanged run's interval stays (0, 0)."""
    return aggregate_columns({metric: values}, samples=samples, confidence=confidence, seed=seed,
                             unit=unit)[metric]


def aggregate_columns(columns: Mapping[str, Sequence[float | None]], *, samples: int = 1000,
                      confidence: float = 0.95, seed: int = 0, unit: bool = True) -> dict[str, Aggregate]:
    """Aggregates of several metrics measured on the same examples (every column has one value per
    example, `None` where undefined), sharing one set of bootstrap resamples, each carrying its column's
    name and the rounds its interval was read from: `samples` asked for, fewer for a large dataset
    (`bootstrap_rounds`). NaN counts as undefined too: it is how numpy and pandas columns spell a missing
    value, and it is not an observation. With `unit` (every metric ragmon computes), each interval holds the
    binomial bound too, and a value outside [0, 1] is an error naming the metric."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    lengths = {len(col) for col in columns.values()}
    if len(lengths) > 1:
        raise ValueError("every metric column must have one value per example")
    n = lengths.pop() if lengths else 0

    out: dict[str, Aggregate] = {}
    varying: list[tuple[str, Sequence[float | None], float, float]] = []
    for name, raw in columns.items():
        col = [None if v is None or math.isnan(v) else v for v in raw]
        defined = [v for v in col if v is not None]
        if not defined:
            out[name] = Aggregate(None, 0, None, name)
            continue
        low, high = min(defined), max(defined)
        if math.isinf(low) or math.isinf(high):
            raise ValueError(f"metric {name!r}: a value is not finite")
        if unit and not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"metric {name!r}: the value {low if low < 0.0 else high!r} is outside [0, 1]")
        # statistics.mean sums exactly and rounds once; fsum(...) / n rounds twice, so three examples at
        # 0.7 would average 0.6999999999999998 and breach a gate at 0.7.
        mean = float(statistics.mean(defined))
        # `samples=0` asked for no interval at all: one column must not get an interval where another,
        # equally unsampled, gets None. Else a constant column's bootstrap needs no resampling.
        ci = None if samples <= 0 else binomial_interval(defined, confidence) if unit else (low, low)
        if ci is not None and low == high:
            ci = (min(ci[0], low), max(ci[1], low))
        out[name] = Aggregate(mean, len(defined), ci, name)
        if low != high:
            # Resampled in the order of its values, not of the examples: the same examples in another order
            # (the files named the other way round, a shell glob sorted by another locale) drew other
            # resamples, and the interval, and a gate on its bound, changed with it.
            ordered = sorted(defined, reverse=name in LOWER_IS_BETTER)  # worst first: see the module's note
            varying.append((name, [*ordered, *[None] * (n - len(defined))], low, high - low))

    rounds = bootstrap_rounds(samples, n)
    if not varying or rounds == 0:
        return out
    packed, lanes = _pack(varying, n)
    rng = random.Random(seed)
    population = range(n)
    means: list[list[float]] = [[] for _ in varying]
    for _ in range(rounds):
        total = sum(itemgetter(*rng.choices(population, k=n))(packed))
        for (_, _, low, span), (value_lane, count_lane), found in zip(varying, lanes, means, strict=True):
            count = n if count_lane < 0 else (total >> count_lane) & _LANE_MASK
            if count:
                found.append(low + span * ((total >> value_lane) & _LANE_MASK) / (count * _QUANTUM))
    alpha = (1.0 - confidence) / 2.0
    for (name, *_), found in zip(varying, means, strict=True):
        if found:
            found.sort()
            low, high = _quantile(found, alpha), _quantile(found, 1.0 - alpha)
            binomial = out[name].ci if unit else None
            if binomial is not None:  # the wider on each side
                low, high = min(low, binomial[0]), max(high, binomial[1])
            out[name] = replace(out[name], ci=(low, high), rounds=len(found))
    return out


def binomial_interval(values: Sequence[float], confidence: float) -> tuple[float, float]:
    """Clopper and Pearson's interval of a proportion, the values' mean, over the trials `values` in [0, 1]
    are worth (the module's note): n for 0/1 values, more for values that vary less than 0/1 ones of their
    mean. Computed from the values in whole steps of `_GRID`, exactly, so that a column and its mirror (each
    value 1 minus the other's, as hallucination_rate's are groundedness's, up to a float's last bit) reach the
    bisection with the same proportion and trials, and their bounds mirror to the last bit: from floats they
    had differed at the 12th decimal, where a gate compares, and `--gate groundedness=T` passed where
    `--gate hallucination_rate=1-T` was breached."""
    n = len(values)
    steps = [round(v * _GRID) for v in values]
    padded = n + 2 * ENDS
    total = sum(steps) + ENDS * _GRID
    # Each padded value's deviation from the padded mean, times `padded`, in whole numbers.
    deviations = [padded * step - total for step in steps] + [-total, padded * _GRID - total] * ENDS
    spread = Fraction(sum(d * d for d in deviations), padded**3)  # the variance, in steps squared
    fourth = Fraction(sum(d**4 for d in deviations), padded**5)
    # In decimal, as the level was written: (1 - 0.95) / 2 in binary is 0.025000000000000022, and one
    # grounded answer's bound would print so.
    alpha = float((1 - Decimal(repr(confidence))) / 2)
    # The variance's upper bound: a sample short of a rare value has both a mean and a variance too far
    # from it (the module's note). Its standard error is sqrt((m4 - s^4) / n).
    upper = float(spread) + NormalDist().inv_cdf(1.0 - alpha) * math.sqrt(float(fourth - spread**2) / n)
    mean = Fraction(sum(steps), n * _GRID)
    trials = n * max(1.0, float(mean * (1 - mean)) * _GRID**2 / upper)
    return (_lowest_proportion(float(mean), trials, alpha),
            1.0 - _lowest_proportion(float(1 - mean), trials, alpha))


def _lowest_proportion(mean: float, trials: float, alpha: float) -> float:
    """The p whose `trials` trials reach `mean * trials` successes or more with probability `alpha`: the
    quantile `alpha` of Beta(successes, failures + 1), found by bisection to 2^-52."""
    successes = mean * trials
    if successes <= 0.0:
        return 0.0
    if mean >= 1.0:  # every trial a success: p ** trials = alpha, exactly (bisection ends 1e-16 off)
        return alpha ** (1.0 / trials)
    failures = trials - successes + 1.0
    low, high = 0.0, 1.0
    for _ in range(52):
        middle = (low + high) / 2.0
        if _beta_cdf(middle, successes, failures) < alpha:
            low = middle
        else:
            high = middle
    return low


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (Numerical Recipes
    6.4), read on the side where it converges fast."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b), by Lentz's method."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 100_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def _pack(varying: list[tuple[str, Sequence[float | None], float, float]],
          n: int) -> tuple[list[int], list[tuple[int, int]]]:
    """One integer per example holding every varying metric, and each metric's (value lane shift,
    count lane shift or -1 when defined everywhere). Metrics undefined on the same examples (all five
    retrieval metrics, say) share one count lane."""
    packed = [0] * n
    lanes: list[tuple[int, int]] = []
    count_lanes: dict[tuple[bool, ...], int] = {}
    next_shift = 0
    for _, col, low, span in varying:
        shift, next_shift = next_shift, next_shift + _LANE
        scale = _QUANTUM / span
        packed = [p if v is None else p | (round((v - low) * scale) << shift)
                  for p, v in zip(packed, col, strict=True)]
        count_shift = -1
        mask = tuple(v is None for v in col)
        if any(mask):
            count_shift = count_lanes.get(mask, -1)
            if count_shift < 0:
                count_shift = count_lanes[mask] = next_shift
                next_shift += _LANE
                one = 1 << count_shift
                packed = [p if undefined else p | one for p, undefined in zip(packed, mask, strict=True)]
        lanes.append((shift, count_shift))
    return packed, lanes


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between order statistics (the "type 7" rule of R and numpy)."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
