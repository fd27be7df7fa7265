"""The per-minute token bucket and the daily USD budget."""

from __future__ import annotations

import pytest
from manual_clock import ManualClock

from ragmon.budget import DailyBudget, Prices, Reservation, TokenBucket, utc_day


def test_token_bucket_allows_a_minutes_worth_then_refills_at_the_rate() -> None:
    clock = ManualClock(1_000.0)
    bucket = TokenBucket(10, clock)
    assert [bucket.try_acquire() for _ in range(11)] == [True] * 10 + [False]
    clock.now += 5.9  # 10/min refills one token every 6 s
    assert not bucket.try_acquire()
    clock.now += 0.1
    assert bucket.try_acquire() and not bucket.try_acquire()
    clock.now += 3_600  # an idle hour refills to capacity, not beyond
    assert sum(bucket.try_acquire() for _ in range(20)) == 10


def test_token_bucket_below_one_a_minute_and_zero() -> None:
    clock = ManualClock(1_000.0)
    slow = TokenBucket(0.5, clock)  # one call every two minutes
    assert slow.try_acquire() and not slow.try_acquire()
    clock.now += 119
    assert not slow.try_acquire()
    clock.now += 1
    assert slow.try_acquire()
    assert not TokenBucket(0, clock, capacity=0).try_acquire()
    # `--llm-max-per-minute 0` means no calls at all, not one call and then none.
    assert not TokenBucket(0, clock).try_acquire()
    with pytest.raises(ValueError):
        TokenBucket(-1, clock)


def test_token_bucket_takes_an_examples_calls_together_and_lends_past_its_capacity() -> None:
    clock = ManualClock(1_000.0)
    bucket = TokenBucket(3, clock)  # capacity 3, a token every 20 s
    assert bucket.try_acquire(2) and not bucket.try_acquire(2)  # 1 left, short of 2, and none taken
    assert bucket.try_acquire(1) and not bucket.try_acquire(1)  # 0 left
    clock.now += 60  # full again: 3
    assert bucket.try_acquire(5)  # more than it ever holds, taken once it is full: -2
    clock.now += 40  # -2 + 2 = 0
    assert not bucket.try_acquire(1)
    clock.now += 20  # 1
    assert bucket.try_acquire(1)
    assert not TokenBucket(0, clock).try_acquire(3)  # rate 0: no call, however many are asked for


PRICES = Prices(input_per_mtok=1.0, output_per_mtok=5.0)


def reserve_if_fits(budget: DailyBudget, input_tokens: int, output_tokens: int) -> Reservation | None:
    """As the Claude lane asks: first whether the call fits, then the reservation."""
    if not budget.fits(input_tokens, output_tokens):
        return None
    return budget.reserve(input_tokens, output_tokens)


def test_prices() -> None:
    # 2,000 in at $1/M = $0.002; 1,000 out at $5/M = $0.005.
    assert PRICES.cost(2_000, 1_000) == pytest.approx(0.007)


def test_budget_reserves_worst_case_and_settles_actual() -> None:
    day = [100]
    budget = DailyBudget(0.01, PRICES, lambda: day[0])
    first = reserve_if_fits(budget, 2_000, 1_000)  # worst case $0.007
    assert first is not None and first.usd == pytest.approx(0.007)
    assert reserve_if_fits(budget, 2_000, 1_000) is None  # 0.007 + 0.007 > 0.01
    # Billed 1,000 in + 200 out = $0.001 + $0.001 = $0.002.
    assert budget.settle(first, 1_000, 200) == pytest.approx(0.002)
    assert budget.spent == pytest.approx(0.002) and budget.reserved == 0.0
    second = reserve_if_fits(budget, 2_000, 1_000)  # 0.002 + 0.007 = 0.009 <= 0.01
    assert second is not None
    assert reserve_if_fits(budget, 2_000, 1_000) is None  # 0.009 + 0.007 > 0.01
    assert reserve_if_fits(budget, 200, 100) is not None  # 0.009 + 0.0007 = 0.0097 <= 0.01
    with pytest.raises(ValueError):
        budget.settle(first, 0, 0)

    day[0] = 101  # UTC midnight: spending resets; open reservations carry over
    assert budget.spent == 0.0 and budget.reserved == pytest.approx(0.0077)
    assert reserve_if_fits(budget, 200, 100) is not None  # 0.0077 + 0.0007 = 0.0084
    assert reserve_if_fits(budget, 200, 100) is not None  # 0.0091
    assert reserve_if_fits(budget, 200, 100) is not None  # 0.0098
    assert reserve_if_fits(budget, 200, 100) is None  # 0.0105 > 0.01
    budget.settle(second, 2_000, 1_000)
    assert budget.spent == pytest.approx(0.007)


def test_a_clock_stepped_back_over_midnight_does_not_reset_spending() -> None:
    """An NTP step back across midnight must not open a second allowance for a day already spent."""
    day = [100]
    budget = DailyBudget(0.01, PRICES, lambda: day[0])
    spent = reserve_if_fits(budget, 2_000, 1_000)  # $0.007
    assert spent is not None
    budget.settle(spent, 2_000, 1_000)
    day[0] = 99  # the wall clock went back a few seconds, to yesterday
    assert budget.spent == pytest.approx(0.007) and reserve_if_fits(budget, 2_000, 1_000) is None
    day[0] = 100  # and forward again: still the same day
    assert budget.spent == pytest.approx(0.007) and reserve_if_fits(budget, 2_000, 1_000) is None
    day[0] = 101  # the next midnight does reset it
    assert budget.spent == 0.0 and reserve_if_fits(budget, 2_000, 1_000) is not None


def test_zero_budget_refuses_everything() -> None:
    assert reserve_if_fits(DailyBudget(0.0, PRICES), 1, 1) is None
    with pytest.raises(ValueError):
        DailyBudget(-1.0, PRICES)


def test_utc_day_turns_at_midnight() -> None:
    midnight = 20_000 * 86_400.0
    assert utc_day(lambda: midnight - 0.001) == 19_999
    assert utc_day(lambda: midnight) == 20_000


def test_a_count_no_float_holds_is_never_a_crash_nor_free() -> None:
    """A reply's usage of 10**309 input tokens raised OverflowError in `Prices.cost` (int to float): the
    reservation was already released, so the call was charged $0."""
    assert PRICES.cost(10**309, 10) == float("inf")
    # At a price of 0 a count costs nothing, however large: 10 out at $5/M = $0.00005.
    assert Prices(input_per_mtok=0.0, output_per_mtok=5.0).cost(10**309, 10) == pytest.approx(0.00005)
    budget = DailyBudget(0.01, PRICES, lambda: 100)
    reservation = reserve_if_fits(budget, 2_000, 1_000)  # worst case $0.002 + $0.005 = $0.007
    assert reservation is not None
    # Unreadable: counted at the reservation, the worst case of every attempt, never $0.
    assert budget.settle(reservation, 10**309, 10) == pytest.approx(0.007)
    assert budget.spent == pytest.approx(0.007) and budget.reserved == 0.0
    # With no reservation to bound it: what is left of the cap, $0.01 - $0.007 = $0.003; the day is closed.
    assert budget.charge(10, 10**309) == pytest.approx(0.003)
    assert budget.spent == pytest.approx(0.01) and reserve_if_fits(budget, 1, 0) is None
    assert budget.charge(10**309, 10**309) == 0.0 and budget.spent == pytest.approx(0.01)


def test_a_cancelled_calls_worst_case_is_spent_and_said_apart() -> None:
    """`unbilled`: of a settlement, what is a worst case nobody billed (a call cancelled as the process
    stops), counted in `carried` as a call in flight when a process died is, never past the cost."""
    budget = DailyBudget(0.05, PRICES, lambda: 100)
    reservation = reserve_if_fits(budget, 3_000, 600)  # 3 attempts of 1,000 in + 200 out: $0.003 + $0.003
    assert reservation is not None
    # One attempt sent, no reply: its worst case, $0.001 + $0.001 = $0.002, all of it unbilled.
    assert budget.settle(reservation, 1_000, 200, unbilled=0.002) == pytest.approx(0.002)
    assert budget.spent == pytest.approx(0.002) and budget.carried == pytest.approx(0.002)
    billed = reserve_if_fits(budget, 3_000, 600)
    assert billed is not None
    assert budget.settle(billed, 1_000, 0) == pytest.approx(0.001)  # a bill: spent, not carried
    assert budget.spent == pytest.approx(0.003) and budget.carried == pytest.approx(0.002)
    third = reserve_if_fits(budget, 3_000, 600)
    assert third is not None
    budget.settle(third, 1_000, 0, unbilled=1.0)  # never more than the cost: $0.001
    assert budget.spent == pytest.approx(0.004) and budget.carried == pytest.approx(0.003)


def test_the_first_question_after_utc_midnight_is_answered_for_the_new_day() -> None:
    """Asked before anything else read the new day, `fits` weighed yesterday's spend: the first example
    after midnight was refused as over budget on a day nothing had been spent."""
    day = [100]
    budget = DailyBudget(0.01, PRICES, lambda: day[0])
    spent = reserve_if_fits(budget, 2_000, 1_000)
    assert spent is not None
    budget.settle(spent, 2_000, 1_000)  # $0.007 on day 100: another $0.007 no longer fits
    day[0] = 101
    assert budget.fits(2_000, 1_000)  # day 101: $0 + $0.007 <= $0.01


def test_a_reservation_open_at_utc_midnight_settles_into_the_new_day() -> None:
    """Its bill is the new day's: added to the day that had ended, it would vanish as the day turned."""
    day = [100]
    budget = DailyBudget(0.01, PRICES, lambda: day[0])
    in_flight = reserve_if_fits(budget, 2_000, 1_000)
    assert in_flight is not None
    day[0] = 101
    # Billed 1,000 in + 200 out: $0.001 + $0.001 = $0.002, on day 101.
    assert budget.settle(in_flight, 1_000, 200) == pytest.approx(0.002)
    assert budget.spent == pytest.approx(0.002) and budget.reserved == 0.0


def test_a_reservation_past_the_cap_is_refused() -> None:
    """`reserve` without asking `fits` first must still never hold more than the day's cap."""
    budget = DailyBudget(0.01, PRICES, lambda: 100)
    budget.reserve(2_000, 1_000)  # $0.007
    with pytest.raises(ValueError, match="reservation past the cap"):
        budget.reserve(2_000, 1_000)  # $0.014 > $0.01
    assert budget.reserved == pytest.approx(0.007)


def test_a_bill_without_a_reservation_is_spent_not_said_unbilled() -> None:
    """A bill Claude sent is no worst case: `carried` (the log line's "calls in flight when an earlier
    process stopped") must not grow with it."""
    budget = DailyBudget(0.01, PRICES, lambda: 100)
    assert budget.charge(1_000, 200) == pytest.approx(0.002)  # $0.001 + $0.001
    assert budget.spent == pytest.approx(0.002) and budget.carried == 0.0


def test_a_bill_no_float_holds_after_midnight_closes_the_new_day() -> None:
    """Taken as what was left of the day that had ended ($0.01 - $0.007), it left the new day open for
    more calls."""
    day = [100]
    budget = DailyBudget(0.01, PRICES, lambda: day[0])
    budget.charge(2_000, 1_000)  # $0.007 on day 100
    day[0] = 101
    assert budget.charge(10, 10**309) == pytest.approx(0.01)  # all of day 101's cap
    assert reserve_if_fits(budget, 1, 0) is None
