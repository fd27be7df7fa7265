"""The Claude lane backs off when the API asks it to wait (a 429's or 529's `retry-after`), rather than
sending the next sampled example's call at once into the same refusal."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fakes.anthropic_server import Action, Fail, FakeAnthropic, Hang, Reply
from manual_clock import ManualClock
from test_llm_lane import example, make_lane


@pytest.fixture
def api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


async def test_a_retry_after_past_the_call_holds_the_lanes_next_calls(api: FakeAnthropic) -> None:
    # 120 s is past the call's bound (1 s x 3 attempts), so the SDK does not wait it out: the call ends.
    api.enqueue(Fail(429, "rate_limit_error", {"retry-after": "120"}))
    clock = ManualClock(1_000.0)
    lane = make_lane(api, clock=clock, timeout=1.0)
    first = await lane.judge_example(example(1))
    assert first.outcome == "rate_limited" and api.calls == 1
    clock.now += 119.0
    held = await lane.judge_example(example(2))
    # No request: the API asked for 120 s and 119 have passed.
    assert api.calls == 1
    assert (held.outcome, held.result, held.cost_usd, held.duration) == ("rate_limited", None, 0.0, None)
    assert "ex-2" in held.message and "asked to wait 120s before another request; 1s left" in held.message
    assert lane.budget.reserved == 0.0 and lane.budget.spent == 0.0
    clock.now += 1.0
    api.default = Reply(usage=(1_000, 100))
    resumed = await lane.judge_example(example(3))
    assert resumed.outcome == "ok" and api.calls == 2
    await lane.close()


async def test_an_overloaded_reply_asking_a_wait_holds_the_lane_too(api: FakeAnthropic) -> None:
    api.enqueue(Fail(529, "overloaded_error", {"retry-after-ms": "30000"}))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "rate_limited"
    clock.now += 10.0
    held = await lane.judge_example(example(2))
    assert held.outcome == "rate_limited" and "20s left" in held.message and api.calls == 1
    await lane.close()


async def test_the_hold_spares_examples_that_need_no_call(api: FakeAnthropic) -> None:
    # Example 1 judged and cached first; then a 429 asking 60 s. Its repeat is answered from the cache.
    api.enqueue(Reply(usage=(1_000, 100)), Fail(429, "rate_limit_error", {"retry-after": "60"}))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "ok"
    assert (await lane.judge_example(example(2))).outcome == "rate_limited"
    again = await lane.judge_example(example(1))
    assert again.outcome == "cached" and again.result is not None and api.calls == 2
    await lane.close()


@pytest.mark.parametrize(("asked", "said"), [
    ("90000", "asked to wait more than a day before another request, held 600s at most; 1s left"),
    ("600", "asked to wait 600s before another request; 1s left"),
], ids=["a-day-and-a-bit", "ten-minutes"])
async def test_a_retry_after_holds_the_lane_ten_minutes_at_most(api: FakeAnthropic, asked: str,
                                                                said: str) -> None:
    # A gateway's nonsense (a day and a bit) must not turn the Claude judge off until tomorrow. The cap itself
    # is no cut: ten minutes asked are held whole, and said without a word of a cap.
    api.enqueue(Fail(429, "rate_limit_error", {"retry-after": asked}))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "rate_limited"
    clock.now += 599.0
    held = await lane.judge_example(example(2))
    assert held.outcome == "rate_limited" and api.calls == 1 and said in held.message
    clock.now += 1.0
    api.default = Reply(usage=(1_000, 100))
    assert (await lane.judge_example(example(3))).outcome == "ok" and api.calls == 2
    await lane.close()


@pytest.mark.parametrize(("asked", "said"), [({}, ""), ({"retry-after-ms": "1"}, " (or one under 1s)")],
                         ids=["none", "one-ms"])
async def test_refusals_asking_no_wait_back_off_longer_each_time_in_a_row(
        api: FakeAnthropic, asked: dict[str, str], said: str) -> None:
    # Two 529s with no retry-after: 1 s of backoff after the first, 2 s after the second; a reply ends it. A
    # gateway asking 1 ms each time had held the lane 1 ms, and the lane sent every example into the same
    # refusal: a wait under a second is read as none.
    api.enqueue(Fail(529, "overloaded_error", asked), Fail(529, "overloaded_error", asked))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "rate_limited"
    clock.now += 0.5
    held = await lane.judge_example(example(2))
    assert held.outcome == "rate_limited" and api.calls == 1
    assert held.message.endswith(
        f"1 call ended in a 429 or 529 asking for no wait{said}, none getting its verdicts since the first: "
        "backing off 1s; 1s left")
    clock.now += 0.5
    assert (await lane.judge_example(example(3))).outcome == "rate_limited" and api.calls == 2
    clock.now += 1.5
    held = await lane.judge_example(example(4))
    assert api.calls == 2
    assert held.message.endswith(
        f"2 calls ended in a 429 or 529 asking for no wait{said}, none getting its verdicts since the first: "
        "backing off 2s; 1s left")
    clock.now += 0.5
    api.enqueue(Reply(usage=(1_000, 100)), Fail(529, "overloaded_error"))
    assert (await lane.judge_example(example(5))).outcome == "ok" and api.calls == 3
    # The reply ended the run of refusals: the next 529 backs off 1 s again, not 4.
    assert (await lane.judge_example(example(6))).outcome == "rate_limited" and api.calls == 4
    clock.now += 1.0
    api.default = Reply(usage=(1_000, 100))
    assert (await lane.judge_example(example(7))).outcome == "ok" and api.calls == 5
    await lane.close()


async def test_the_backoff_stops_doubling_at_a_minute(api: FakeAnthropic) -> None:
    # Every call refused with no wait asked: held 1, 2, 4, 8, 16 and 32 s, then a minute, the span the API's
    # limits are measured over, not 64 s.
    api.default = Fail(529, "overloaded_error")
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    for number, wait in enumerate((1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0), start=1):
        assert (await lane.judge_example(example(number))).outcome == "rate_limited" and api.calls == number
        clock.now += wait - 0.5
        held = await lane.judge_example(example(100 + number))
        assert api.calls == number and held.message.endswith(f"backing off {wait:g}s; 1s left")
        clock.now += 0.5
    await lane.close()


@pytest.mark.parametrize("between", [Fail(500, "api_error"), Hang(5.0)], ids=["500", "timeout"])
async def test_an_error_between_refusals_does_not_restart_the_backoff(api: FakeAnthropic,
                                                                       between: Action) -> None:
    # While the API is overloaded it answers 500s and times out between its 529s: none of them gets verdicts,
    # so the backoff goes on doubling, 1 s, 2 s, then 4 s for the third 529 (not 1 s afresh).
    api.enqueue(Fail(529, "overloaded_error"), Fail(529, "overloaded_error"), between,
                Fail(529, "overloaded_error"))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "rate_limited"
    clock.now += 1.0
    assert (await lane.judge_example(example(2))).outcome == "rate_limited"
    clock.now += 2.0
    assert (await lane.judge_example(example(3))).outcome in ("error", "timeout")
    assert (await lane.judge_example(example(4))).outcome == "rate_limited" and api.calls == 4
    clock.now += 3.5
    held = await lane.judge_example(example(5))
    assert held.outcome == "rate_limited" and api.calls == 4
    assert held.message.endswith(
        "3 calls ended in a 429 or 529 asking for no wait, none getting its verdicts since the first: "
        "backing off 4s; 1s left")
    clock.now += 0.5
    api.default = Reply(usage=(1_000, 100))
    assert (await lane.judge_example(example(6))).outcome == "ok" and api.calls == 5
    await lane.close()


async def test_the_backoff_counts_only_the_refusals_that_asked_no_wait(api: FakeAnthropic) -> None:
    # A 429 asking 5 s, then a 529 asking nothing: one refusal asked for no wait, so 1 s of backoff, said so.
    api.enqueue(Fail(429, "rate_limit_error", {"retry-after": "5"}), Fail(529, "overloaded_error"))
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)
    assert (await lane.judge_example(example(1))).outcome == "rate_limited"
    clock.now += 5.0
    assert (await lane.judge_example(example(2))).outcome == "rate_limited" and api.calls == 2
    clock.now += 0.5
    held = await lane.judge_example(example(3))
    assert held.outcome == "rate_limited" and api.calls == 2
    assert held.message == (
        "example 'ex-3': no call made: 1 call ended in a 429 or 529 asking for no wait, none getting its "
        "verdicts since the first: backing off 1s; 1s left")
    await lane.close()


async def test_calls_refused_together_are_one_step_of_the_backoff(api: FakeAnthropic) -> None:
    # --llm-concurrency 4: four consumers' calls in flight as the API starts answering 529s asking no wait.
    # They are one burst, held 1 s (doubled for each, 8 s); the next four, sent after it, 2 s (not the 60 s
    # cap that 16, 32, 64 and 128 s had reached).
    api.default = Fail(529, "overloaded_error")
    clock = ManualClock()
    lane = make_lane(api, clock=clock, timeout=1.0, max_retries=0)

    async def burst(first: int) -> list[str]:
        outcomes = await asyncio.gather(*(lane.judge_example(example(i)) for i in range(first, first + 4)))
        return [o.outcome for o in outcomes]

    assert await burst(1) == ["rate_limited"] * 4 and api.calls == 4
    held = await lane.judge_example(example(9))
    assert held.message.endswith(
        "4 calls ended in a 429 or 529 asking for no wait, none getting its verdicts since the first: "
        "backing off 1s; 1s left")
    clock.now += 1.0
    assert await burst(5) == ["rate_limited"] * 4 and api.calls == 8
    clock.now += 1.5
    held = await lane.judge_example(example(9))
    assert held.outcome == "rate_limited" and api.calls == 8
    assert held.message.endswith(
        "8 calls ended in a 429 or 529 asking for no wait, none getting its verdicts since the first: "
        "backing off 2s; 1s left")
    clock.now += 0.5
    api.default = Reply(usage=(1_000, 100))
    assert (await lane.judge_example(example(9))).outcome == "ok" and api.calls == 9
    await lane.close()
