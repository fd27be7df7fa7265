"""How often each candidate 95% interval of a [0, 1] metric's mean misses the true mean, on each side.

`ragmon replay --confidence 0.95 --gate groundedness=0.99` reads one bound of a two-sided interval, so each
one-sided bound must miss at most 2.5% of the time, at every number of examples and for every shape a
metric's per-example values really have: 0/1 verdicts (Bernoulli), shares k/m of an answer's claims, a mass
at 1.0 with a tail (groundedness of mostly grounded answers), values clustered mid-range (answer_relevance),
values at one level with a rare value far off (`two_point`: mrr or recall 0.5 with 3% of questions missed,
ndcg 1 / log2(3) with 5% missed, 0.9 with 1% at 0, groundedness 1.0 with 1% of answers half grounded).
The percentile bootstrap ragmon used gave a column of equal values the interval (x, x): five grounded answers
passed a gate at 0.99, which a true groundedness of 0.99 gives 95% of the time.

Candidates (z = 1.96, rounds as ragmon runs them: 1,000, fewer over 1,000 examples):

- boot: the percentile bootstrap of the mean (ragmon's until SCORING_RULES 2);
- wilson: the Wilson score interval with the largest variance a [0, 1] value of mean mu can have, mu(1 - mu);
- hull: the wider of boot and wilson on each side;
- ends1, ends2: the percentile bootstrap of the n values and 1 (2) pseudo-observations at each end of the
  range, 0 and 1, resampling n + 2 (n + 4) values;
- bernstein: Maurer and Pontil's empirical Bernstein bound (2.5% a side), valid for any n, and wide;
- binomial: Clopper and Pearson's exact bound of a proportion at the mean over n_eff = n max(1, mean
  (1 - mean) / v) trials, v the upper bound s^2 + z sqrt((m4 - s^4) / n) of the variance s^2 of the values
  with a pseudo-observation at 0 and at 1 (m4 their fourth central moment; ragmon.metrics.aggregate
  .binomial_interval, here by scipy's beta quantiles);
- rules2, rules2_w3, rules2_w5: the wider of boot and the binomial bound with v = s^2 itself, s^2 taken
  with 1 (SCORING_RULES 2's interval), 3 or 5 pseudo-observations at each end;
- chosen: the wider of boot and binomial on each side, ragmon's interval since SCORING_RULES 3.

Every candidate is equivariant under x -> 1 - x (the closed forms exactly, which the script checks; the
bootstraps in distribution: the resampled means of 1 - x are distributed as 1 minus those of x, and the
quantile positions alpha and 1 - alpha mirror each other; ragmon makes that exact by drawing both columns
worst first), so a lower-is-better metric's column (the mirror, hallucination_rate of groundedness) misses on
each side as its mirror does on the other, and the mirrored rows are printed so. A miss is a bound strictly
past the true mean.

Monte Carlo: 4,000 datasets for n <= 10, 2,000 to 300, 1,000 at 1,000 (a miss rate of 2.5% is read to
+-0.25, 0.35, 0.49 points, one standard error, printed beside each row as se). Fixed seeds. Run:
`.venv/bin/python benchmarks/interval_coverage.py` (about 6 minutes of CPU; the bootstraps of 1,000
continuous values take most of it).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from scipy.stats import beta

Z = 1.959963984540054
ALPHA = 0.025
SIZES = (1, 2, 3, 5, 10, 20, 50, 100, 300, 1000)
Sampler = Callable[[np.random.Generator, tuple[int, int]], np.ndarray]
Bounds = tuple[np.ndarray, np.ndarray]


def datasets_for(n: int) -> int:
    return 4000 if n <= 10 else 2000 if n <= 300 else 1000


def rounds_for(n: int) -> int:
    """ragmon's `bootstrap_rounds(1000, n)`: 1,000 rounds, capped at 1,000,000 draws."""
    return min(1000, max(200, 1_000_000 // n))


def bernoulli(p: float) -> Sampler:
    return lambda rng, size: (rng.random(size) < p).astype(float)


def claim_shares(q: float) -> Sampler:
    """k of m claims supported, m uniform in 1..8, each supported with probability q: mean q."""
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        m = rng.integers(1, 9, size)
        return rng.binomial(m, q) / m
    return draw


def mostly_one(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    return np.where(rng.random(size) < 0.7, 1.0, rng.random(size))


def mid_range(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    return rng.beta(20.0, 20.0, size)


def two_point(value: float, share: float, other: float = 0.0) -> Sampler:
    """`value` with probability `share`, else `other`: the rank metrics of a retriever that puts the relevant
    document at one rank and rarely misses it (mrr and recall 0.5 at rank 2, ndcg 1 / log2(3)), or
    groundedness of two-claim answers rarely half grounded. A rare miss may be absent from a sample, which
    then looks constant; it is what the binomial bound's pseudo-observations stand for."""
    return lambda rng, size: np.where(rng.random(size) < share, value, other)


DISTRIBUTIONS: tuple[tuple[str, Sampler, float], ...] = (
    ("Bernoulli(0.5)", bernoulli(0.5), 0.5),
    ("Bernoulli(0.9)", bernoulli(0.9), 0.9),
    ("Bernoulli(0.97)", bernoulli(0.97), 0.97),
    ("Bernoulli(0.99)", bernoulli(0.99), 0.99),
    ("k/m claims, q=0.9", claim_shares(0.9), 0.9),
    ("k/m claims, q=0.97", claim_shares(0.97), 0.97),
    ("70% 1.0, 30% U(0,1)", mostly_one, 0.85),
    ("Beta(20,20)", mid_range, 0.5),
    ("mrr: 0.5, 3% 0", two_point(0.5, 0.97), 0.5 * 0.97),
    ("ndcg: 0.631, 5% 0", two_point(1 / np.log2(3), 0.95), 0.95 / np.log2(3)),
    ("0.9, 1% 0", two_point(0.9, 0.99), 0.9 * 0.99),
    ("1.0, 1% 0.5", two_point(1.0, 0.99, 0.5), 0.99 + 0.01 * 0.5),
)


def resampled_means(x: np.ndarray, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """The bootstrap's `rounds` resampled means of one dataset: by counts of its distinct values when it has
    few (0/1 verdicts, claim shares), which is the same distribution and far cheaper, else by indices."""
    values, counts = np.unique(x, return_counts=True)
    if len(values) <= 64:
        drawn = rng.multinomial(len(x), counts / len(x), size=rounds)
        return drawn @ values / len(x)
    return x[rng.integers(0, len(x), (rounds, len(x)))].mean(axis=1)


def percentile(means: np.ndarray) -> tuple[float, float]:
    low, high = np.quantile(means, [ALPHA, 1 - ALPHA])  # "linear", the type-7 rule ragmon reads them by
    return float(low), float(high)


def bootstrap(ends: int) -> Callable[[np.ndarray, np.random.Generator], Bounds]:
    """The percentile bootstrap of each dataset with `ends` pseudo-observations at 0 and at 1."""
    def bounds(data: np.ndarray, rng: np.random.Generator) -> Bounds:
        pad = np.concatenate([np.zeros(ends), np.ones(ends)])
        found = [percentile(resampled_means(np.concatenate([x, pad]), rounds_for(len(x) + 2 * ends), rng))
                 for x in data]
        return np.array([f[0] for f in found]), np.array([f[1] for f in found])
    return bounds


def wilson(data: np.ndarray, _: np.random.Generator) -> Bounds:
    n = data.shape[1]
    mean = data.mean(axis=1)
    centre = (mean + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * np.sqrt(mean * (1 - mean) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def bernstein(data: np.ndarray, _: np.random.Generator) -> Bounds:
    n = data.shape[1]
    if n == 1:
        return np.zeros(len(data)), np.ones(len(data))
    mean = data.mean(axis=1)
    log = np.log(2 / ALPHA)
    half = np.sqrt(2 * data.var(axis=1, ddof=1) * log / n) + 7 * log / (3 * (n - 1))
    return np.clip(mean - half, 0, 1), np.clip(mean + half, 0, 1)


def lowest_proportion(mean: np.ndarray, trials: np.ndarray) -> np.ndarray:
    successes = mean * trials
    found = beta.ppf(ALPHA, np.maximum(successes, 1e-300), trials - successes + 1)
    return np.where(successes <= 0, 0.0, found)


def binomial(ends: int, z: float = 0.0) -> Callable[[np.ndarray, np.random.Generator], Bounds]:
    """Clopper and Pearson's bound over n_eff trials, s^2 with `ends` pseudo-observations at 0 and at 1 and,
    for `z` > 0, raised to its upper bound s^2 + z sqrt((m4 - s^4) / n), m4 the fourth central moment."""
    def bounds(data: np.ndarray, _: np.random.Generator) -> Bounds:
        n = data.shape[1]
        padded = np.concatenate([data, np.tile([0.0] * ends + [1.0] * ends, (len(data), 1))], axis=1)
        mean = data.mean(axis=1)
        deviations = padded - padded.mean(axis=1, keepdims=True)
        spread = (deviations**2).mean(axis=1)
        spread = spread + z * np.sqrt(np.maximum(0.0, (deviations**4).mean(axis=1) - spread**2) / n)
        trials = n * np.maximum(1.0, mean * (1 - mean) / spread)
        return lowest_proportion(mean, trials), 1 - lowest_proportion(1 - mean, trials)
    return bounds


def remembered(method: Callable[[np.ndarray, np.random.Generator], Bounds],
               ) -> Callable[[np.ndarray, np.random.Generator], Bounds]:
    """`method`, giving the bounds it found for the last datasets again when asked of the same ones: every
    hull below takes the one bootstrap of them (most of the run's time) rather than drawing its own."""
    last: list[tuple[np.ndarray, Bounds]] = []

    def bounds(data: np.ndarray, rng: np.random.Generator) -> Bounds:
        if not last or last[0][0] is not data:
            last[:] = [(data, method(data, rng))]
        return last[0][1]
    return bounds


def hull_of(first: Callable[[np.ndarray, np.random.Generator], Bounds],
            second: Callable[[np.ndarray, np.random.Generator], Bounds],
            ) -> Callable[[np.ndarray, np.random.Generator], Bounds]:
    def bounds(data: np.ndarray, rng: np.random.Generator) -> Bounds:
        (low, high), (other_low, other_high) = first(data, rng), second(data, rng)
        return np.minimum(low, other_low), np.maximum(high, other_high)
    return bounds


BOOT = remembered(bootstrap(0))
METHODS: dict[str, Callable[[np.ndarray, np.random.Generator], Bounds]] = {
    "boot": BOOT, "wilson": wilson, "hull": hull_of(BOOT, wilson), "ends1": bootstrap(1),
    "ends2": bootstrap(2), "bernstein": bernstein, "binomial": binomial(1, Z),
    "rules2": hull_of(BOOT, binomial(1)), "rules2_w3": hull_of(BOOT, binomial(3)),
    "rules2_w5": hull_of(BOOT, binomial(5)), "chosen": hull_of(BOOT, binomial(1, Z)),
}


def check_mirror() -> None:
    """Each closed form's bounds of 1 - x are 1 minus its bounds of x, the other way round."""
    rng = np.random.default_rng(7)
    data = mostly_one(rng, (3, 20))
    for name, method in (("wilson", wilson), ("bernstein", bernstein), ("binomial", binomial(1, Z)),
                         ("rules2_w3", binomial(3))):
        low, high = method(data, np.random.default_rng(1))
        mirror_low, mirror_high = method(1 - data, np.random.default_rng(1))
        assert np.allclose(mirror_low, 1 - high) and np.allclose(mirror_high, 1 - low), name


def study() -> dict[tuple[str, int, str], tuple[float, float, float]]:
    """(distribution, n, method) -> (lower miss rate, upper miss rate, mean width)."""
    found = {}
    for d, (label, sampler, mu) in enumerate(DISTRIBUTIONS):
        for n in SIZES:
            data = sampler(np.random.default_rng([d, n]), (datasets_for(n), n))
            for m, (name, method) in enumerate(METHODS.items()):
                low, high = method(data, np.random.default_rng([d, n, m]))
                found[label, n, name] = (float(np.mean(low > mu + 1e-12)), float(np.mean(high < mu - 1e-12)),
                                         float(np.mean(high - low)))
    return found


def standard_error(n: int) -> float:
    """One standard error, in points, of a miss rate of 2.5% read from the datasets drawn at `n`."""
    return 100 * float(np.sqrt(ALPHA * (1 - ALPHA) / datasets_for(n)))


def show(found: dict[tuple[str, int, str], tuple[float, float, float]]) -> None:
    header = "".join(f"{name:>22}" for name in METHODS)
    print("miss% below the lower bound / above the upper bound, mean width (target: each miss <= 2.5; se: "
          "one standard error of a 2.5% miss rate in that row's cells)")
    for label, _, _ in DISTRIBUTIONS:
        for mirrored in (False, True):
            title = f"1 - {label} (lower is better)" if mirrored else label
            print(f"\n{title}\n{'n':>5}{'se':>6}{header}")
            for n in SIZES:
                cells = []
                for name in METHODS:
                    low, high, width = found[label, n, name]
                    low, high = (high, low) if mirrored else (low, high)
                    cells.append(f"{100 * low:5.1f} /{100 * high:5.1f} {width:6.3f}")
                print(f"{n:>5}{standard_error(n):6.2f}" + "".join(f"{cell:>22}" for cell in cells))
    print("\nworst miss over every distribution and n (lower / upper) with that cell's standard error; cells "
          "missing more than 2.5% by over 2 standard errors; mean width at n >= 100")
    for name in METHODS:
        cells = {(label, n): v for (label, n, method), v in found.items() if method == name}
        worst = [max(cells, key=lambda cell, side=side: cells[cell][side]) for side in (0, 1)]
        over = sum(100 * cells[label, n][side] > 2.5 + 2 * standard_error(n)
                   for label, n in cells for side in (0, 1))
        wide = [v[2] for (_, n), v in cells.items() if n >= 100]
        sides = (f"{100 * cells[cell][side]:5.1f} (se {standard_error(cell[1]):.2f}, {cell[0]}, n={cell[1]})"
                 for side, cell in enumerate(worst))
        print(f"{name:>10}  {' / '.join(sides)}   {over:3} over   {sum(wide) / len(wide):.4f}")


def main() -> None:
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args()
    start = time.process_time()
    check_mirror()
    show(study())
    print(f"\n{time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
