"""Undefined-aware means and the percentile bootstrap interval."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from ragmon.baseline import rounded
from ragmon.metrics.aggregate import MAX_DRAWS, MIN_ROUNDS, aggregate, aggregate_columns, bootstrap_rounds
from ragmon.model import Aggregate


def test_mean_skips_undefined_and_counts_the_rest() -> None:
    agg = aggregate([1.0, None, 0.0, 0.5])
    # (1 + 0 + 0.5) / 3 defined values.
    assert agg.mean == 0.5
    assert agg.n == 3
    assert float(agg) == 0.5


def test_nothing_defined_is_undefined_not_zero() -> None:
    assert aggregate([None, None]) == Aggregate(None, 0, None)
    assert aggregate([]) == Aggregate(None, 0, None)
    with pytest.raises(ValueError, match="undefined"):
        float(aggregate([None]))


def test_a_single_change_has_the_point_interval_of_its_bootstrap() -> None:
    # `aggregate` without `unit`: a change of a metric (the drop gates' paired interval); a metric's own
    # interval holds the binomial bound too (below).
    assert aggregate([0.7]) == Aggregate(0.7, 1, (0.7, 0.7))
    assert aggregate([None, 0.7, None]) == Aggregate(0.7, 1, (0.7, 0.7))


def test_bootstrap_is_deterministic_and_contains_the_mean() -> None:
    values = [0.0, 0.25, 1.0, 0.5, None, 0.75, 1.0, 0.0, 0.5, 1.0]
    first = aggregate(values, samples=500, seed=7)
    again = aggregate(values, samples=500, seed=7)
    assert first == again
    assert first.ci is not None
    low, high = first.ci
    assert 0.0 <= low <= first.mean <= high <= 1.0  # type: ignore[operator]
    assert low < high


def test_two_point_interval_spans_both_values() -> None:
    # Resampling [0, 1] twice gives mean 0 with probability 1/4, 1 with 1/4, 0.5 with 1/2. With 1,000
    # rounds about 250 are 0 and 250 are 1, far more than the 25 a 2.5% tail needs: the 95% interval
    # is exactly (0, 1).
    assert aggregate([0.0, 1.0]).ci == (0.0, 1.0)


def test_interval_width_matches_the_normal_approximation() -> None:
    # 200 ones and 200 zeros: mean 0.5, standard error sqrt(0.25 / 400) = 0.025, so the 95% interval is
    # close to 0.5 +- 1.96 * 0.025 = (0.451, 0.549).
    agg = aggregate([1.0, 0.0] * 200, samples=2000)
    assert agg.ci is not None
    assert agg.ci[0] == pytest.approx(0.5 - 1.96 * math.sqrt(0.25 / 400), abs=0.01)
    assert agg.ci[1] == pytest.approx(0.5 + 1.96 * math.sqrt(0.25 / 400), abs=0.01)


def test_a_constant_change_has_a_point_interval() -> None:
    assert aggregate([0.5] * 10) == Aggregate(0.5, 10, (0.5, 0.5))


def test_no_samples_means_no_interval_even_for_a_constant_metric() -> None:
    # A constant column used to get its point interval anyway, so `samples=0` gave an interval to one
    # metric and None to another.
    assert aggregate([0.5] * 10, samples=0) == Aggregate(0.5, 10, None)
    assert aggregate([0.7], samples=0) == Aggregate(0.7, 1, None)


def test_a_metrics_interval_does_not_depend_on_the_other_columns() -> None:
    # Indices are drawn once per round and shared by every column, so adding columns changes nothing.
    a = [0.1, 0.9, None, 0.4, 0.6]
    together = aggregate_columns({"a": a, "b": [1.0, 0.0, 1.0, None, 0.0]}, samples=300, seed=3)
    assert together["a"] == aggregate(a, samples=300, seed=3, unit=True)


def test_an_interval_does_not_depend_on_the_order_of_the_examples() -> None:
    # The same examples read from files named in another order (a shell glob sorted by another locale)
    # drew other resamples: another interval, and a gate on its bound that held or not with the order.
    values = [0.0, 0.25, None, 1.0, 0.5, 1.0, None, 0.75, 1.0, 0.0, 1.0, 0.5]
    other = [1.0, None, 0.5, 1.0, 0.0, 0.75, 1.0, None, 0.25, 0.0, 0.5, 1.0]
    assert sorted(values, key=str) == sorted(other, key=str)
    for order in (other, values[::-1]):
        assert aggregate(order, samples=500, seed=1) == aggregate(values, samples=500, seed=1)
    # and in several columns at once, each in an order of its own
    flags = [1.0 if v == 1.0 else 0.0 for v in values]
    together = aggregate_columns({"v": values[::-1], "f": flags}, samples=500, seed=1)
    assert together == {"v": aggregate(values, samples=500, seed=1, unit=True),
                        "f": aggregate(flags[::-1], samples=500, seed=1, unit=True)}


def test_columns_must_have_one_value_per_example() -> None:
    with pytest.raises(ValueError, match="one value per example"):
        aggregate_columns({"a": [1.0], "b": [1.0, 0.0]})


@pytest.mark.parametrize("confidence", [0.0, 1.0])
def test_confidence_must_be_a_probability(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        aggregate([1.0, 0.0], confidence=confidence)


def test_rounds_are_capped_for_large_datasets() -> None:
    assert bootstrap_rounds(1000, 100) == 1000  # 100 x 1,000 draws is within budget
    assert MAX_DRAWS == 1_000_000
    assert bootstrap_rounds(1000, 2_000) == 500  # 1,000,000 draws / 2,000 examples
    assert bootstrap_rounds(1000, 3_000) == 333  # whole rounds: 1,000,000 / 3,000 = 333.3
    assert bootstrap_rounds(1000, 10_000) == 200  # 1,000,000 / 10,000 = 100 is below the floor of 200
    assert bootstrap_rounds(1000, 1_000_000) == MIN_ROUNDS  # never fewer than the floor
    assert bootstrap_rounds(50, 100) == 50  # never more than asked
    assert bootstrap_rounds(1000, 1) == 0  # nothing to resample


def test_each_aggregate_says_how_many_rounds_its_interval_was_read_from() -> None:
    # EvalConfig(bootstrap_samples=20000) over 5,000 examples ran 200 rounds (1,000,000 draws / 5,000
    # examples = 200), while the report said only the 20,000 asked for.
    varying = [1.0, 0.0] * 2_500
    assert aggregate(varying, samples=20_000).rounds == 200
    assert aggregate(varying[:100], samples=1_000).rounds == 1_000  # 100 examples: every round asked for
    # 1,000 are asked for unless told otherwise, as EvalConfig asks.
    by_default = aggregate_columns({"recall": varying[:100]})["recall"]
    assert aggregate(varying[:100]).rounds == by_default.rounds == 1_000
    # No resampling needed: none asked for, or a metric of one value everywhere (its interval is it).
    assert aggregate(varying[:100], samples=0).rounds == 0
    assert aggregate([0.5] * 100, samples=1_000).rounds == 0
    # Defined on 2 examples of 10: a resample misses both with probability 0.8^10 = 0.107, so about 107
    # of 1,000 rounds (standard deviation 9.8) have nothing to average and are not counted.
    assert 850 < aggregate([1.0, 0.0] + [None] * 8, samples=1_000).rounds < 940


def test_mean_is_correctly_rounded() -> None:
    # The mean of three equal values is that value. fsum([0.7] * 3) / 3 rounds twice and gives
    # 0.6999999999999998, which a gate `groundedness=0.7` would count as a breach.
    assert aggregate([0.7, 0.7, 0.7]) == Aggregate(0.7, 3, (0.7, 0.7))
    assert aggregate([0.2, None, 0.2, 0.2]) == Aggregate(0.2, 3, (0.2, 0.2))
    # Exact mean of 1/3 and 2/3 (as doubles) is 1/2 up to far below an ulp -> 0.5.
    assert aggregate([1 / 3, 2 / 3]).mean == 0.5


def test_nan_is_undefined_not_an_observation() -> None:
    # NaN is how pandas and numpy spell "no value": left out like None, so (1 + 0) / 2 over n = 2.
    assert aggregate([math.nan, 1.0, None, 0.0]).mean == 0.5
    assert aggregate([math.nan, 1.0, None, 0.0]).n == 2
    assert aggregate([math.nan, math.nan]) == Aggregate(None, 0, None)


def test_an_infinite_value_is_an_error_naming_the_metric() -> None:
    with pytest.raises(ValueError, match=r"groundedness.*not finite"):
        aggregate_columns({"groundedness": [1.0, math.inf]})


def test_intervals_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    # The interval must be reproducible across processes, whatever PYTHONHASHSEED they start with.
    code = ("from ragmon.metrics.aggregate import aggregate_columns as a; print(a({'x': [0.1, None, 0.5, "
            "0.9, 1.0, 0.0], 'y': [1.0, 0.0, None, 1.0, 0.0, 1.0]}, samples=300, seed=5))")

    def run(seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                              text=True, check=True).stdout

    outputs = {run(seed) for seed in ("0", "1", "4242")}
    assert len(outputs) == 1
    assert "ci=(" in outputs.pop()


def exact_interval(values: list[float], rounds: int, confidence: float,
                   seed: int) -> tuple[Fraction, Fraction]:
    """The percentile bootstrap done by hand in exact fractions: the same draws (`random.Random(seed)`, n
    indices a round, into the values in ascending order), the exact mean of each, and the type-7 quantiles
    of those means."""
    rng = random.Random(seed)
    exact = sorted(Fraction(v) for v in values)
    n = len(values)
    means = sorted(sum(exact[i] for i in rng.choices(range(n), k=n)) / n for _ in range(rounds))

    def quantile(q: Fraction) -> Fraction:
        pos = q * (len(means) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(means) - 1)
        return means[lo] + (means[hi] - means[lo]) * (pos - lo)

    alpha = (1 - Fraction(confidence).limit_denominator(1000)) / 2
    return quantile(alpha), quantile(1 - alpha)


def test_interval_bounds_are_exact_to_twelve_decimals() -> None:
    # 38 answers at 1/3, one at 0, one at 1: every resampled mean is a multiple of 1/120 (but for the
    # float 1/3's own error), the lower 95% bound 37/120 = 0.308333333333333... A gate compares at 12
    # decimals, so a bound off by 1e-10 (values quantised to 2^-32 of their range) failed a gate at
    # exactly the bound.
    values = [1 / 3] * 38 + [0.0, 1.0]
    low, high = exact_interval(values, 1000, 0.95, 0)
    assert abs(low - Fraction(37, 120)) < Fraction(1, 10**15)
    result = aggregate(values, samples=1000, confidence=0.95, seed=0)
    assert result.ci is not None
    assert round(result.ci[0], 12) == round(float(low), 12)
    assert round(result.ci[1], 12) == round(float(high), 12)
    assert abs(result.ci[0] - float(low)) < 1e-14


def test_both_bounds_are_the_bootstraps_quantiles_at_the_fewest_rounds_too() -> None:
    # The bootstrap alone (unit=False, as a drop gate's change is read), 200 rounds: the upper bound is the
    # quantile at 1 - alpha of those 200 means, which an error in it can miss at 1,000 rounds of tied means.
    values = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    low, high = exact_interval(values, 200, 0.95, 7)
    result = aggregate(values, samples=200, confidence=0.95, seed=7)
    assert result.ci is not None
    assert round(result.ci[0], 12) == round(float(low), 12)
    assert round(result.ci[1], 12) == round(float(high), 12)


def test_hallucination_rates_interval_mirrors_groundedness_on_the_same_answers() -> None:
    # Five answers grounded 0, 1/3, 2/3, 1 and 1; hallucination_rate is 1 minus each. Groundedness's
    # interval is [4/15, 14/15] (the bootstrap in exact fractions), so hallucination_rate's must be
    # [1 - 14/15, 1 - 4/15] = [1/15, 11/15]: the same draws, the same examples. Both columns resampled in
    # ascending order, the draw that took groundedness's worst took hallucination_rate's best, and its
    # upper bound came out 0.8 (12/15): `hallucination_rate=0.75` breached where `groundedness=0.25`,
    # the same bar, held.
    grounded = [0.0, 1 / 3, 2 / 3, 1.0, 1.0]
    exact = exact_interval(grounded, 1000, 0.95, 0)  # but for the floats 1/3 and 2/3's own error
    assert [bound.limit_denominator(1000) for bound in exact] == [Fraction(4, 15), Fraction(14, 15)]
    both = aggregate_columns({"groundedness": grounded, "hallucination_rate": [1 - v for v in grounded]},
                             samples=1000, seed=0, unit=False)  # the bootstrap's side alone
    assert both["groundedness"].ci is not None and both["hallucination_rate"].ci is not None
    assert [round(bound, 12) for bound in both["groundedness"].ci] == [round(4 / 15, 12), round(14 / 15, 12)]
    assert [round(bound, 12) for bound in both["hallucination_rate"].ci] == [round(1 / 15, 12),
                                                                              round(11 / 15, 12)]
    # and a single column named for the metric is drawn the same way (a gate read at another level)
    alone = aggregate([1 - v for v in grounded], samples=1000, seed=0, metric="hallucination_rate")
    assert alone == both["hallucination_rate"]


def binomial_tail(trials: int, successes: int, p: float) -> float:
    """P(Binomial(trials, p) >= successes), summed term by term."""
    return math.fsum(math.comb(trials, k) * p**k * (1 - p) ** (trials - k)
                     for k in range(successes, trials + 1))


def test_five_equal_values_do_not_claim_certainty() -> None:
    # Five grounded answers had the interval (1, 1), and passed a gate at 0.99. Five successes in five
    # trials: the exact lower 95% bound p solves p^5 = 0.025 (a true 0.478 gives five of five 2.5% of the
    # time), p = 0.025^(1/5) = 0.4782; the upper one is 1. hallucination_rate, 0 five times, mirrors it.
    both = aggregate_columns({"groundedness": [1.0] * 5, "hallucination_rate": [0.0] * 5})
    assert both["groundedness"].ci == pytest.approx((0.025 ** (1 / 5), 1.0), abs=1e-12)
    assert both["hallucination_rate"].ci == pytest.approx((0.0, 1 - 0.025 ** (1 / 5)), abs=1e-12)
    assert both["groundedness"].mean == 1.0  # the mean is the values' own


def test_one_observation_has_the_interval_of_one_trial() -> None:
    # One success: p = 0.025 gives it with probability 0.025, so (0.025, 1); one failure (0, 0.975).
    assert aggregate_columns({"g": [None, 1.0]})["g"].ci == pytest.approx((0.025, 1.0), abs=1e-12)
    assert aggregate_columns({"g": [0.0]})["g"].ci == pytest.approx((0.0, 0.975), abs=1e-12)
    assert aggregate_columns({"g": [0.0]}, samples=0)["g"].ci is None


def test_a_zero_one_column_gets_the_exact_binomial_bounds() -> None:
    # Five of ten: the bootstrap's 95% interval is (0.2, 0.8) (P(resampled sum <= 1) = 0.011, <= 2 is
    # 0.055), narrower than the exact bounds, where P(Binomial(10, low) >= 5) = 0.025 and
    # P(Binomial(10, high) <= 5) = 0.025: the interval is those.
    low, high = aggregate_columns({"g": [0.0, 1.0] * 5})["g"].ci or (math.nan, math.nan)
    assert binomial_tail(10, 5, low) == pytest.approx(0.025, abs=1e-12)
    assert 1 - binomial_tail(10, 6, high) == pytest.approx(0.025, abs=1e-12)
    assert 0.18 < low < 0.2 and 0.8 < high < 0.82


def test_the_exact_binomial_bounds_hold_at_a_low_level_too() -> None:
    # Nine of ten at a 20% level: each side leaves 40% out. The lower bound solves P(Binomial(10, low) >= 9)
    # = 0.4 (low is about 0.81, below the bootstrap's 0.9), the upper one P(Binomial(10, high) <= 9) = 0.4,
    # high^10 = 0.6. Only so far from 2.5% is the bound searched for where the incomplete beta function is
    # read as 1 minus its mirror (at and above (a + 1) / (a + b + 2)), and there it had never been checked.
    low, high = aggregate_columns({"g": [1.0] * 9 + [0.0]}, confidence=0.2)["g"].ci or (math.nan, math.nan)
    assert binomial_tail(10, 9, low) == pytest.approx(0.4, abs=1e-12)
    assert high == pytest.approx(0.6 ** (1 / 10), abs=1e-12)


def test_values_between_zero_and_one_count_as_the_trials_their_variance_is_worth() -> None:
    # 400 values, half 0.4, half 0.6: mean 0.5. With a pseudo-observation at 0 and at 1 their variance is
    # s^2 = (400 * 0.01 + 0.25 + 0.25) / 402 = 4.5 / 402 and their fourth moment m4 = (400 * 0.0001 +
    # 2 * 0.0625) / 402 = 0.165 / 402; the variance's upper bound s^2 + 1.96 sqrt((m4 - s^4) / 400) is
    # 0.011194 + 0.001655 = 0.012849, so they count as 400 * 0.25 / 0.012849 = 7,783 trials, not 400 (which
    # would give about 0.5 -+ 0.049): the bounds are near 0.5 -+ 1.96 sqrt(0.25 / 7,783) = 0.5 -+ 0.0111,
    # where the bootstrap's are 0.5 -+ 1.96 * 0.1 / 20 = 0.5 -+ 0.0098.
    spread, fourth = 4.5 / 402, 0.165 / 402
    upper = spread + 1.96 * math.sqrt((fourth - spread**2) / 400)
    low, high = aggregate_columns({"g": [0.4, 0.6] * 200})["g"].ci or (math.nan, math.nan)
    assert low == pytest.approx(0.5 - 1.96 * math.sqrt(0.25 / (400 * 0.25 / upper)), abs=2e-4)
    assert high == pytest.approx(1 - low, abs=1e-12)


@pytest.mark.parametrize(("n", "value"), [(100, 0.5), (300, 0.5), (50, 1 / math.log2(3)), (100, 0.9)],
                         ids=["mrr-100", "mrr-300", "ndcg-50", "0.9-100"])
def test_equal_values_mid_range_leave_room_for_a_rare_miss(n: int, value: float) -> None:
    # A retriever putting the relevant document second on every one of n questions: mrr 0.5 each (ndcg
    # 1 / log2(3)). One that misses it (0) on a share q of questions gives no miss in n with probability
    # (1 - q)^n, 2.5% at q = 1 - 0.025^(1/n), a true mean of value * 0.025^(1/n) (0.4819 at 100): a 95%
    # interval must reach that low. The variance of n equal values and a pseudo-observation at each end
    # alone had given 0.4862, above true means of 0.485 (3% misses) that give such a set 4.8% of the time.
    found = aggregate_columns({"mrr": [value] * n})["mrr"]
    assert found.mean == value and found.ci is not None
    assert found.ci[0] <= value * 0.025 ** (1 / n) < value


def test_the_bounds_of_a_lower_is_better_metric_mirror_its_mirrors_to_the_decimals_a_gate_reads() -> None:
    # 30 answers' (supported, total) claims: groundedness k/m and hallucination_rate (m - k)/m are 1 minus
    # each other but for a float's last bit, and the binomial bound, computed from floats, amplified that to
    # the 12th decimal: groundedness's lower bound read 0.814302564717 and 1 minus hallucination_rate's
    # upper 0.814302564716, so `--gate groundedness=0.814302564717` passed where `--gate
    # hallucination_rate=0.185697435283`, the same bar, was breached.
    claims = [(5, 7), (6, 6), (5, 6), (8, 8), (4, 4), (3, 5), (4, 5), (2, 2), (7, 8), (1, 1), (6, 7), (3, 3),
              (1, 1), (1, 2), (5, 5), (6, 6), (1, 1), (3, 3), (1, 1), (2, 2), (6, 6), (4, 5), (3, 3), (3, 3),
              (1, 1), (6, 6), (1, 1), (4, 4), (3, 3), (5, 6)]
    both = aggregate_columns({"groundedness": [k / m for k, m in claims],
                              "hallucination_rate": [(m - k) / m for k, m in claims]}, samples=200)
    grounded, hallucinated = both["groundedness"].ci, both["hallucination_rate"].ci
    assert grounded is not None and hallucinated is not None
    assert rounded(grounded[0]) == rounded(1 - hallucinated[1])
    assert rounded(grounded[1]) == rounded(1 - hallucinated[0])


def test_a_metric_outside_zero_and_one_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"metric 'answer_relevance': the value 1.5 is outside \[0, 1\]"):
        aggregate_columns({"answer_relevance": [0.5, 1.5]})
    # Beside a 0, which is in range, the value named is still the one outside it.
    with pytest.raises(ValueError, match=r"metric 'recall': the value 1.5 is outside \[0, 1\]"):
        aggregate_columns({"recall": [0.0, 1.5]})
    # a change of a metric, in [-1, 1], is the bootstrap's alone: an unchanged run's interval is (0, 0)
    assert aggregate([0.0] * 5, metric="hallucination_rate").ci == (0.0, 0.0)
    assert aggregate([-0.5, 0.0], metric="groundedness").ci == (-0.5, 0.0)
