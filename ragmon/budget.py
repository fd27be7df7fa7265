"""The limits on what an LLM judge may spend: `TokenBucket` caps calls per minute; `DailyBudget` caps
dollars per UTC day by reserving a call's worst-case cost before it is made and settling the real cost
after, so concurrent calls can never jointly overshoot the cap, and keeps the day's spend in a
`--llm-budget-file` (ragmon.budget_file) across restarts. Both take their clock as an argument, so tests
drive time by hand.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from ragmon.budget_file import BudgetFile, DaySpend, day_name
from ragmon.errors import InputError

_SECONDS_PER_DAY = 86_400


class TokenBucket:
    """At most `rate_per_minute` tokens taken a minute in the long run, in bursts of up to `capacity` (or
    of one acquisition larger than that, `try_acquire`).

    Capacity defaults to one minute's allowance (at least 1, so a rate below one a minute still lets a
    call through now and then; none at rate 0, which must mean no call at all, not one). The bucket
    starts full.
    """

    def __init__(self, rate_per_minute: float, clock: Callable[[], float] = time.monotonic,
                 capacity: float | None = None) -> None:
        if rate_per_minute < 0:
            raise ValueError("rate_per_minute must not be negative")
        self.per_second = rate_per_minute / 60.0
        if capacity is None:
            capacity = max(1.0, rate_per_minute) if rate_per_minute > 0 else 0.0
        self.capacity = capacity
        self._clock = clock
        self._tokens = self.capacity
        self._last = clock()

    def try_acquire(self, tokens: int = 1) -> bool:
        """Take `tokens` (the calls of one example, taken together or not at all), or refuse. More than the
        bucket holds are taken once it is full, leaving it in debt that refills at the rate: an example of
        more calls than a minute's allowance would otherwise never be judged, and the long-run rate holds."""
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.per_second)
        self._last = now
        if self._tokens >= max(1.0, min(tokens, self.capacity)):
            self._tokens -= tokens
            return True
        return False


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for these tokens; `math.inf` for a count no float holds (a reply's usage of 10**309 tokens
        raised OverflowError, which lost the call's charge): past any cap, never a crash. A count at a
        price of 0 costs nothing, however large."""
        return (_priced(input_tokens, self.input_per_mtok)
                + _priced(output_tokens, self.output_per_mtok)) / 1e6


def _priced(tokens: int, per_mtok: float) -> float:
    if not per_mtok:
        return 0.0
    try:
        return tokens * per_mtok
    except OverflowError:  # the int has no float
        return math.inf


@dataclass(frozen=True, slots=True)
class Reservation:
    """Budget held for one call until it is settled: the call's token bound and its worst-case price."""

    input_tokens: int
    output_tokens: int
    usd: float


def utc_day(clock: Callable[[], float] = time.time) -> int:
    """Days since the epoch; Unix time has no leap seconds, so each day starts at UTC midnight."""
    return int(clock() // _SECONDS_PER_DAY)


class DailyBudget:
    """A hard cap on USD per UTC day: `spent + reserved` never exceeds `usd_per_day`.

    A call first reserves its worst case (its token bound priced at `prices`), or is refused; afterwards
    `settle` swaps the reservation for the cost of the tokens actually billed. The cap holds as long as
    token bounds are true bounds (the Claude judge's are: bytes of the request and `max_tokens`); if a
    provider ever billed more than the bound, the overshoot is recorded as spent, never hidden, and no
    further call is let through that day. Spending resets at UTC midnight; reservations still open then
    carry over into the new day, where they settle. Only a later day resets it: a wall clock stepped back
    over midnight (NTP) must not hand out a second allowance for a day already spent.

    With a `record` (`ragmon.budget_file`), the day resumes from what it holds, reservations left open by
    the process that wrote it counted as spent (and as `carried`, to say so), and every change is written
    there once `start_record` has. A day more than one ahead of the clock's is refused: a clock stepped
    back over midnight moves a day, and a file dated further (a node booted once with a wrong clock)
    would block every call until that date.
    """

    def __init__(self, usd_per_day: float, prices: Prices, day: Callable[[], int] = utc_day, *,
                 record: BudgetFile | None = None) -> None:
        if usd_per_day < 0 or math.isnan(usd_per_day):
            raise ValueError("usd_per_day must be a non-negative number")
        self.usd_per_day = usd_per_day
        self.prices = prices
        self._day_of = day
        self._day = day()
        self._spent = 0.0
        self._open: dict[int, Reservation] = {}
        self.record = record
        self.resumed: DaySpend | None = None
        """What `record` held for today (or a later day, the clock having stepped back), if anything."""
        self._carried = 0.0
        if record is not None:
            try:
                held = record.read()
            except BaseException:
                record.close()  # the budget owns it (`close`), and there will be no budget to close
                raise
            if held is not None and held.day > self._day + 1:
                record.close()
                raise InputError(f"{record.named} holds the spend of "
                                 f"{day_name(held.day)}, later than tomorrow (today is {day_name(self._day)} "
                                 "UTC): a clock was wrong when it was written; move it away to start today's "
                                 "budget afresh")
            if held is not None and held.day >= self._day:
                self.resumed = held
                self._day, self._spent, self._carried = held.day, held.usd, held.unbilled

    def start_record(self) -> None:
        """Write what was read, once the budget is accepted: a file that cannot be written stops the start
        here, not at the first call; a budget refused at start leaves the file as it was."""
        if self.record is not None:
            self.record.write(DaySpend(self._day, self._spent, self._carried), at_start=True)

    @property
    def spent(self) -> float:
        self._roll()
        return self._spent

    @property
    def reserved(self) -> float:
        return math.fsum(r.usd for r in self._open.values())

    @property
    def carried(self) -> float:
        """Of `spent`, the worst cases of calls a stopped process left in flight: resumed from `record`, and
        those of this process's calls cancelled midway as it stops (`settle`'s `unbilled`)."""
        self._roll()
        return self._carried

    def fits(self, input_tokens: int, output_tokens: int) -> bool:
        """Whether the worst case of a call with these token bounds can be reserved now."""
        self._roll()
        return self._spent + self.reserved + self.prices.cost(input_tokens, output_tokens) <= self.usd_per_day

    def reserve(self, input_tokens: int, output_tokens: int) -> Reservation:
        """Hold that worst case, which must fit: asking first (`fits`) lets a caller refuse a call for other
        reasons (the per-minute bucket) without a reservation, which a `record` would be written."""
        if not self.fits(input_tokens, output_tokens):
            raise ValueError("reservation past the cap: ask fits() first")
        reservation = Reservation(input_tokens, output_tokens, self.prices.cost(input_tokens, output_tokens))
        self._open[id(reservation)] = reservation
        self._write()
        return reservation

    def settle(self, reservation: Reservation, input_tokens: int, output_tokens: int, *,
               unbilled: float = 0.0) -> float:
        """Release the reservation and record what the call billed; returns that cost in USD.

        `unbilled`: USD of it that is a worst case nobody billed as far as ragmon knows (the attempts of a
        call cancelled midway, the process stopping), said apart in `carried` as the calls a stopped process
        left in flight are. A bill no float holds (`Prices.cost` is inf) is no bill anyone can read: it
        counts at the reservation, the worst case of every attempt of the call."""
        if self._open.pop(id(reservation), None) is None:
            raise ValueError("reservation already settled or not from this budget")
        cost = self.prices.cost(input_tokens, output_tokens)
        return self._record(cost if math.isfinite(cost) else reservation.usd, unbilled)

    def charge(self, input_tokens: int, output_tokens: int) -> float:
        """Record a bill that came without a reservation (it still counts against the day). One no float
        holds, with no reservation to bound it, takes what is left of the day's cap: no further call is
        made that day, and the figures stay numbers (an inf written to the file would be refused at the
        next start, not being a number of dollars)."""
        self._roll()
        cost = self.prices.cost(input_tokens, output_tokens)
        if not math.isfinite(cost):
            cost = max(0.0, self.usd_per_day - self._spent)
        return self._record(cost, 0.0)

    def _record(self, cost: float, unbilled: float) -> float:
        self._roll()
        self._spent += cost
        self._carried = min(self._carried + (min(unbilled, cost) if unbilled > 0 else 0.0), self._spent)
        self._write()
        return cost

    def _write(self) -> None:
        if self.record is not None:
            reserved = self.reserved
            self.record.write(DaySpend(self._day, self._spent + reserved, self._carried + reserved))

    def close(self) -> None:
        if self.record is not None:
            self.record.close()

    def _roll(self) -> None:
        today = self._day_of()
        if today > self._day:
            self._day = today
            self._spent = self._carried = 0.0
