"""The Claude lane: throttle, budget and fault outcomes, against the Messages API stand-in."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import logging
import math
import os
import re
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import Drop, Fail, FakeAnthropic, Hang, Raw, Reply, ToolInput, claims_of
from manual_clock import ManualClock

from ragmon.budget import DailyBudget, Prices, TokenBucket
from ragmon.budget_file import BudgetFile
from ragmon.cli import UsageError, build_parser
from ragmon.errors import InputError
from ragmon.evaluation import example_claims
from ragmon.judges.claude import ClaudeJudge, TokenBound, Usage
from ragmon.llm_lane import ClaudeLane, LaneOutcome, add_arguments, lane_from_args
from ragmon.model import Context, Example
from ragmon.scoring import LaneRefusal


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        yield api


PRICES = Prices(input_per_mtok=1.0, output_per_mtok=5.0)


def example(i: int) -> Example:
    fact = f"Fact {i} is that water boils at 100 C."
    return Example(f"ex-{i}", f"What is fact {i}?", (Context("d1", fact),), fact)


def make_lane(api: FakeAnthropic, *, per_minute: float = 1_000, usd_per_day: float = 100.0,
              clock: ManualClock | None = None, timer: Callable[[], float] = time.perf_counter,
              **judge_options: Any) -> ClaudeLane:
    judge = ClaudeJudge(base_url=api.url, api_key="test-key", **{"max_tokens": 350, **judge_options})
    clock = clock or ManualClock()
    return ClaudeLane(judge, rate=0.5, concurrency=4, k=5, bucket=TokenBucket(per_minute, clock),
                      budget=DailyBudget(usd_per_day, PRICES, day=lambda: 0), timer=timer, clock=clock)


def ticks(*seconds: float) -> Callable[[], float]:
    """A timer reading `seconds` in turn: a call's duration worked out by hand."""
    return iter(seconds).__next__


async def run_all(lane: ClaudeLane, examples: list[Example], consumers: int = 4) -> list[LaneOutcome]:
    """Like the service: `consumers` tasks draining one queue."""
    queue: asyncio.Queue[Example] = asyncio.Queue()
    for item in examples:
        queue.put_nowait(item)
    outcomes: list[LaneOutcome] = []

    async def consume() -> None:
        while not queue.empty():
            outcomes.append(await lane.judge_example(queue.get_nowait()))

    await asyncio.gather(*(consume() for _ in range(consumers)))
    await lane.close()
    return outcomes


async def test_ok_outcome_carries_the_result_and_its_cost(fake_api: FakeAnthropic) -> None:
    fake_api.default = Reply(usage=(1_000, 100))
    lane = make_lane(fake_api)
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "ok" and outcome.result is not None
    assert outcome.result.judge == "claude" and outcome.result.metrics["groundedness"] == 1.0
    # 1,000 in at $1/M + 100 out at $5/M = $0.001 + $0.0005.
    assert outcome.cost_usd == pytest.approx(0.0015) and lane.budget.spent == pytest.approx(0.0015)
    assert outcome.duration is not None and outcome.duration > 0


async def test_budget_cap_holds_over_a_thousand_examples(fake_api: FakeAnthropic) -> None:
    fake_api.default = Reply(usage=(1_000, 100))  # every call bills $0.0015 (see above)
    lane = make_lane(fake_api, usd_per_day=0.01, max_retries=0)
    examples = [example(i) for i in range(1_000)]
    outcomes = await run_all(lane, examples)

    counts = Counter(o.outcome for o in outcomes)
    assert set(counts) == {"ok", "over_budget"} and counts["ok"] + counts["over_budget"] == 1_000
    assert counts["ok"] == fake_api.calls >= 1
    assert lane.budget.spent <= 0.01
    assert lane.budget.spent == pytest.approx(0.0015 * counts["ok"])
    assert sum(o.cost_usd for o in outcomes) == pytest.approx(lane.budget.spent)
    assert lane.budget.reserved == 0.0


async def test_budget_refuses_only_when_the_worst_case_no_longer_fits(fake_api: FakeAnthropic) -> None:
    fake_api.default = Reply(usage=(1_000, 100))  # bills $0.0015 a call
    # No retries: the worst case is one attempt's (see the next test for what retries add).
    lane = make_lane(fake_api, usd_per_day=0.0115, max_retries=0)
    examples = [example(i) for i in range(10)]
    bound = lane.claude.request_bound(examples[0], example_claims(examples[0]))
    assert bound is not None and bound.output_tokens == 350 and bound.attempts == 1
    worst = 1.1 * PRICES.cost(bound.input_tokens, bound.output_tokens)
    # A ~3 KB prompt (system, tool schema, ~1 KB of user turn) + 1,000 overhead tokens at $1/M, and 350 out at
    # $5/M, $0.00175; reserved at the US-only 1.1x, the dearest a reply bills at a known price.
    assert 0.0055 < worst < 0.0066
    # One at a time: spent 0, 0.0015, 0.003, 0.0045 each leave room for `worst` (< 0.0045 + 0.0066 = 0.0111);
    # at 0.006, 0.006 + worst > 0.0115. So 4 calls, $0.006 spent, then over_budget.
    outcomes = await run_all(lane, examples, consumers=1)
    assert [o.outcome for o in outcomes] == ["ok"] * 4 + ["over_budget"] * 6
    assert lane.budget.spent == pytest.approx(0.006)


def at_us_rates(tokens: int) -> int:
    """`tokens` billed as US-only inference bills them, 1.1x, rounded up to a whole token."""
    return -(-11 * tokens // 10)


def reserved_cost(bound: TokenBound, attempts: int | None = None) -> float:
    """What the lane reserves for a call of `bound`: each of `attempts` (else the bound's) at its worst case,
    every token at US-only inference's 1.1x, the dearest rate of a reply at a price ragmon knows, each count
    rounded up to a whole token."""
    n = bound.attempts if attempts is None else attempts
    return PRICES.cost(at_us_rates(n * bound.input_tokens), at_us_rates(n * bound.output_tokens))


def attempt_cost(lane: ClaudeLane, item: Example) -> float:
    """The worst case of one attempt at judging `item`: its token bound at PRICES, each token at US-only
    inference's 1.1x (where an attempt with no reply ran nobody says), each count rounded up."""
    bound = lane.claude.request_bound(item, example_claims(item))
    assert bound is not None
    return PRICES.cost(at_us_rates(bound.input_tokens), at_us_rates(bound.output_tokens))


async def test_a_failure_past_the_judges_own_charges_the_whole_reservation_and_is_raised(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug after the call was let go: what it billed is unknown, so every attempt the reservation allowed
    for is charged, and nothing stays reserved to turn later examples away as over_budget."""
    lane = make_lane(fake_api, max_retries=2)
    bound = lane.claude.request_bound(example(1), example_claims(example(1)))
    assert bound is not None and bound.attempts == 3

    async def failing(item: Example, claims: Any, *, admit: Callable[..., None]) -> Any:
        admit(bound)
        raise RuntimeError("a bug")

    monkeypatch.setattr(lane.claude, "ajudge_with_usage", failing)
    with pytest.raises(RuntimeError, match="a bug"):
        await lane.judge_example(example(1))
    assert lane.budget.reserved == 0.0
    assert lane.budget.spent == pytest.approx(reserved_cost(bound))
    await lane.close()


async def test_every_timed_out_attempt_the_sdk_retried_is_counted(fake_api: FakeAnthropic) -> None:
    """The SDK retries a timed-out attempt; each may have run to completion and been billed, and the API
    bills each on its own, so the budget reserves and settles all of them, never only the last."""
    fake_api.default = Hang(30)
    probe = make_lane(fake_api, max_retries=2)
    worst = attempt_cost(probe, example(1))
    await probe.close()
    # max_retries=2: up to 3 attempts. A cap of 2.5 worst cases fits one attempt but not three: refused.
    lane = make_lane(fake_api, usd_per_day=2.5 * worst, timeout=0.3, max_retries=2)
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "over_budget" and fake_api.calls == 0
    # A cap of 3.5 worst cases fits them: all three attempts time out, and all three are counted.
    lane = make_lane(fake_api, usd_per_day=3.5 * worst, timeout=0.3, max_retries=2)
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "timeout" and fake_api.calls == 3
    assert outcome.cost_usd == pytest.approx(3 * worst) and lane.budget.spent == pytest.approx(3 * worst)
    # Counted at their worst case, and not said apart as never billed, as calls cut off by a stop are.
    assert lane.budget.carried == 0.0
    assert lane.budget.reserved == 0.0


async def test_an_answer_after_a_timeout_costs_its_bill_plus_the_timed_out_attempt(
        fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(Hang(30))
    fake_api.default = Reply(usage=(1_000, 100))  # $0.0015, as above
    lane = make_lane(fake_api, timeout=1.5, max_retries=1)  # room for a loaded machine
    worst = attempt_cost(lane, example(1))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "ok" and fake_api.calls == 2
    assert outcome.cost_usd == pytest.approx(worst + 0.0015)
    assert lane.budget.spent == pytest.approx(worst + 0.0015)


async def test_per_minute_limit_is_counted_throttled(fake_api: FakeAnthropic) -> None:
    clock = ManualClock()
    lane = make_lane(fake_api, per_minute=5, clock=clock)
    outcomes = await run_all(lane, [example(i) for i in range(20)])
    assert Counter(o.outcome for o in outcomes) == {"ok": 5, "throttled": 15}
    assert fake_api.calls == 5
    clock.now += 12.0  # 5/min refills one call every 12 s
    outcomes = await run_all(lane, [example(i) for i in range(20, 23)])
    assert Counter(o.outcome for o in outcomes) == {"ok": 1, "throttled": 2}


def two_call_answer(name: str) -> Example:
    """Twelve claims of 13 characters ("Rule A holds."), each verdict allowed 50 + ceil(13 / 4) = 54 output
    tokens: six fit make_lane's max_tokens 350 (324), seven do not (378), so the answer takes two calls.
    The question names the example, so that no two share a cache key."""
    answer = " ".join(f"Rule {letter} holds." for letter in "ABCDEFGHIJKL")
    return Example(name, f"Which rules hold for {name}?", (Context("d1", answer),), answer)


async def test_the_per_minute_limit_counts_every_call_of_a_long_answer(fake_api: FakeAnthropic) -> None:
    """--llm-max-per-minute is Claude calls a minute: an example judged in two calls takes two of them. One
    token an example had 3 a minute make 4 calls."""
    lane = make_lane(fake_api, per_minute=3)
    outcomes = await run_all(lane, [two_call_answer("a"), two_call_answer("b")], consumers=1)
    assert [o.outcome for o in outcomes] == ["ok", "throttled"]  # 3 - 2 leaves 1, short of b's 2
    assert fake_api.calls == 2
    assert outcomes[1].message == "example 'b': over --llm-max-per-minute (it needs 2 calls)"


async def test_score_gives_the_calls_duration_or_the_lanes_refusal(fake_api: FakeAnthropic) -> None:
    """What the sidecar exports of an example: an ok call's time in the judge (10 s to 12.5 s on the timer),
    none for one needing no call (an answer that declines makes no claim), and a refusal as a LaneRefusal
    with its outcome, never a result of nothing."""
    fake_api.default = Reply(usage=(1_000, 100))
    lane = make_lane(fake_api, timer=ticks(10.0, 12.5))
    called = await lane.score(example(1))
    assert (called.outcome, called.duration, called.cost_usd) == ("ok", 2.5, pytest.approx(0.0015))
    declined = Example("declines", "What is fact 2?", (Context("d1", "Fact 2."),), "I don't know.")
    free = await lane.score(declined)
    assert (free.outcome, free.duration, free.cost_usd) == ("cached", 0.0, 0.0)
    await lane.close()
    broke = make_lane(fake_api, usd_per_day=0.0001)
    with pytest.raises(LaneRefusal) as refused:
        await broke.score(example(2))
    refusal = refused.value
    assert (refusal.outcome, refusal.cost_usd, refusal.duration) == ("over_budget", 0.0, None)
    await broke.close()


async def test_a_throttled_example_of_one_call_is_said_without_its_count(fake_api: FakeAnthropic) -> None:
    """"(it needs N calls)" tells why an example of several calls found the minute short; of one, it says
    nothing the limit does not."""
    fake_api.default = Reply(usage=(1_000, 100))
    lane = make_lane(fake_api, per_minute=1)
    outcomes = await run_all(lane, [example(1), example(2)], consumers=1)
    assert [o.outcome for o in outcomes] == ["ok", "throttled"]
    assert outcomes[1].message == "example 'ex-2': over --llm-max-per-minute"


async def test_an_answer_of_more_calls_than_a_minute_allows_runs_on_a_full_bucket_and_repays_them(
        fake_api: FakeAnthropic) -> None:
    """At 1 a minute an example of two calls can never find two tokens: it runs when the bucket is full, and
    the minute it overdrew holds the next call back, so the rate holds over time."""
    clock = ManualClock()
    lane = make_lane(fake_api, per_minute=1, clock=clock)
    first = await run_all(lane, [two_call_answer("a"), example(1)], consumers=1)
    assert [o.outcome for o in first] == ["ok", "throttled"]  # 1 - 2 = -1 tokens
    clock.now += 60.0  # -1 + 1 = 0: still short of one
    (early,) = await run_all(lane, [example(2)])
    clock.now += 60.0  # 1
    (due,) = await run_all(lane, [example(3)])
    assert (early.outcome, due.outcome) == ("throttled", "ok")
    assert fake_api.calls == 3


async def test_examples_that_need_no_call_cost_nothing_and_take_no_token(fake_api: FakeAnthropic) -> None:
    lane = make_lane(fake_api, per_minute=1)
    no_contexts = Example("none", "q", (), "Water boils at 100 C.")
    no_answer = Example("blank", "q", (Context("d1", "text"),), None)
    outcomes = await run_all(lane, [no_contexts, no_answer, example(1), example(1)], consumers=1)
    # The repeat of example 1 is answered from the cache, so it needs no token either. Only the one call
    # is `ok`, with its time; the other three made none: `cached`, with none, each with a result.
    assert [o.outcome for o in outcomes] == ["cached", "cached", "ok", "cached"]
    assert [o.duration is None for o in outcomes] == [True, True, False, True]
    assert all(o.result is not None for o in outcomes)
    assert fake_api.calls == 1 and [o.cost_usd for o in outcomes][:2] == [0.0, 0.0]
    assert outcomes[0].result is not None and outcomes[0].result.metrics["groundedness"] == 0.0


FAULTS = {
    "server error": (Fail(500, "api_error", {"retry-after-ms": "1"}), "error"),
    "overloaded": (Fail(529, "overloaded_error", {"retry-after-ms": "1"}), "rate_limited"),
    "rate limited": (Fail(429, "rate_limit_error", {"retry-after-ms": "1"}), "rate_limited"),
    "malformed": (ToolInput({"verdicts": "yes"}, usage=(2_000, 20)), "error"),
    "hang": (Hang(30), "timeout"),
}


@pytest.mark.parametrize(("fault", "expected"), FAULTS.values(), ids=FAULTS.keys())
async def test_faults_give_no_verdict(fake_api: FakeAnthropic, fault: Any, expected: str) -> None:
    fake_api.default = fault
    # A fault that replies must reply within the timeout, with room for a loaded machine.
    lane = make_lane(fake_api, timeout=0.3 if isinstance(fault, Hang) else 1.5, max_retries=1)
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == expected and outcome.result is None and "ex-1" in outcome.message
    assert lane.budget.reserved == 0.0
    if expected == "timeout":
        # Unknown bill: counted at the reservation's worst case, never lost.
        assert outcome.cost_usd > 0 and outcome.cost_usd == pytest.approx(lane.budget.spent)
    elif isinstance(fault, ToolInput):
        # The malformed reply was billed: 2,000 in + 20 out = $0.002 + $0.0001.
        assert outcome.cost_usd == pytest.approx(0.0021)
    else:
        assert outcome.cost_usd == 0.0  # the API does not bill failed requests


def serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_lane_from_args(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    assert lane_from_args(serve_args(), sample_rate=1.0, k=5) is None  # off by default
    with pytest.raises(InputError, match="exceeds --sample-rate"):
        lane_from_args(serve_args("--llm-sample-rate", "0.5"), sample_rate=0.2, k=5)
    with pytest.raises(InputError, match="--llm-price-input"):
        lane_from_args(serve_args("--llm-sample-rate", "0.1", "--llm-model", "some-new-model"),
                       sample_rate=1.0, k=5)
    lane = lane_from_args(serve_args("--llm-sample-rate", "0.1", "--llm-model", "some-new-model",
                                     "--llm-price-input", "3", "--llm-price-output", "15",
                                     "--llm-budget-usd-per-day", "2", "--llm-concurrency", "3"),
                          sample_rate=0.1, k=5)
    assert lane is not None and (lane.rate, lane.concurrency) == (0.1, 3)
    assert lane.budget.prices == Prices(3.0, 15.0) and lane.budget.usd_per_day == 2.0
    assert lane.claude.model == "some-new-model"


def test_a_rate_of_no_calls_with_claude_on_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepted, it started a Claude lane that counted each sampled example throttled, for ever, as a
    budget too small for one call is refused (`check_budget`). With Claude off, a rate set as a variable
    (every replica's default) is of no matter."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    args = serve_args("--llm-sample-rate", "0.1", "--llm-max-per-minute", "0")
    with pytest.raises(InputError) as refused:
        lane_from_args(args, sample_rate=1.0, k=5)
    assert str(refused.value) == (
        "--llm-max-per-minute 0 lets no Claude call through, while --llm-sample-rate 0.1 gives Claude a "
        "share of traces: each would be counted throttled; give a rate of calls, or set --llm-sample-rate 0 "
        "to turn Claude off")
    off = build_parser("serve", {"RAGMON_LLM_MAX_PER_MINUTE": "0"}).parse_args(["serve"])
    assert lane_from_args(off, sample_rate=1.0, k=5) is None
    # Set in a manifest, the variables are named, as every other refusal of serve's names them.
    environ = {"RAGMON_LLM_MAX_PER_MINUTE": "0", "RAGMON_LLM_SAMPLE_RATE": "0.1"}
    with pytest.raises(InputError) as refused:
        lane_from_args(build_parser("serve", environ).parse_args(["serve"]), sample_rate=1.0, k=5)
    assert str(refused.value).startswith(
        "RAGMON_LLM_MAX_PER_MINUTE 0 (--llm-max-per-minute) lets no Claude call through, while "
        "RAGMON_LLM_SAMPLE_RATE 0.1 (--llm-sample-rate) gives Claude a share of traces")


def test_claude_flags_typed_with_claude_off_are_refused_naming_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the sidecar started and said only "claude off (--llm-sample-rate 0)": a user who set a model
    and a budget, and forgot the sample rate, believed Claude judged a share of the traffic."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    def refusal(environ: dict[str, str], *argv: str) -> str:
        with pytest.raises(InputError) as refused:
            lane_from_args(build_parser("serve", environ).parse_args(["serve", *argv]), sample_rate=1.0, k=5)
        return str(refused.value)

    # Named in the order --help lists them, whatever the order typed.
    assert refusal({}, "--llm-model", "claude-x", "--llm-budget-usd-per-day", "1",
                   "--llm-max-per-minute", "5") == (
        "--llm-max-per-minute, --llm-budget-usd-per-day, --llm-model are given with the Claude judge off at "
        "--llm-sample-rate 0, the default: only the Claude judge reads them, and it judges no trace; give it "
        "a share of traces (--llm-sample-rate 0.02, say), or leave them out")
    # Typed at its default (30s), the timeout is as much a choice; the rate typed 0 is not "the default".
    assert refusal({}, "--llm-sample-rate", "0", "--llm-timeout", "30s") == (
        "--llm-timeout is given with the Claude judge off at --llm-sample-rate 0: only the Claude judge "
        "reads it, and it judges no trace; give it a share of traces (--llm-sample-rate 0.02, say), or leave "
        "it out")
    priced = refusal({"RAGMON_LLM_SAMPLE_RATE": "0"}, "--llm-budget-file", "spend.json",
                     "--llm-price-input", "1", "--llm-price-output", "5", "--llm-concurrency", "2")
    assert priced.startswith(
        "--llm-budget-file, --llm-concurrency, --llm-price-input, --llm-price-output are given with the "
        "Claude judge off at RAGMON_LLM_SAMPLE_RATE 0 (--llm-sample-rate): ")
    # Set as variables they are defaults every replica is given, read by those that turn Claude on.
    chart = {"RAGMON_LLM_MODEL": "claude-x", "RAGMON_LLM_BUDGET_USD_PER_DAY": "1"}
    assert lane_from_args(build_parser("serve", chart).parse_args(["serve"]), sample_rate=1.0, k=5) is None


def test_prices_default_to_the_models_list_price(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    lane = lane_from_args(serve_args("--llm-sample-rate", "1"), sample_rate=1.0, k=5)
    assert lane is not None and lane.claude.model == "claude-haiku-4-5"
    assert lane.budget.prices == Prices(1.0, 5.0)  # its list price, $1 / $5 per million tokens
    args = serve_args("--llm-sample-rate", "1", "--llm-price-input", "2")
    lane = lane_from_args(args, sample_rate=1.0, k=5)
    assert lane is not None and lane.budget.prices == Prices(2.0, 5.0)


# The largest request's worst case with the default judge (claude-haiku-4-5 at $1 / $5 per million,
# max_tokens 2,048, 2 retries, so 3 attempts), by hand: input at least 24,000 characters of documents +
# a 4,000-character question + a 4,000-character answer + 1,000 tokens of overhead = 33,000 tokens, and at
# most 5,000 more for the system prompt, the tool schema and the tags. Reserved at US-only inference's 1.1x,
# one call reserves between 1.1 x 3 x (33,000 x $1 + 2,048 x $5) / 1e6 = $0.142692 and
# 1.1 x 3 x (38,000 x $1 + 2,048 x $5) / 1e6 = $0.159192 (each token count rounded up: under $0.00001 more).


# The largest example's (`largest_example_bound`): twenty claims of 200 Chinese characters, each verdict
# allowed 50 + 200 x 1.5 = 350 tokens, so 2,048 // 350 = 5 a call, 4 calls. Each sends the documents and the
# question again, and its 1,000 characters of claims as 3,000 UTF-8 bytes: at least 24,000 + 4,000 + 3,000 +
# 1,000 = 32,000 input tokens a call, at most 5,000 more. So one example reserves between
# 1.1 x 3 x (4 x 32,000 x $1 + 4 x 2,048 x $5) / 1e6 = $0.557568 and
# 1.1 x 3 x (4 x 37,000 x $1 + 4 x 2,048 x $5) / 1e6 = $0.623568.
EXAMPLE_LOW, EXAMPLE_HIGH = 0.557568, 0.623568


def test_a_budget_that_cannot_cover_the_largest_example_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """$0.30 holds two of the largest calls, and was accepted; but an answer of twenty long sentences in
    Chinese is four calls, reserved together, so every such example was counted over_budget all day."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with pytest.raises(InputError) as caught:
        lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", "0.30"),
                       sample_rate=1.0, k=5)
    message = str(caught.value)
    assert message.startswith("--llm-budget-usd-per-day 0.3 cannot cover one large Claude example: it "
                              "reserves up to $")
    match = re.search(r"up to \$(\d\.\d{4}) .*; give it at least \$(\d\.\d\d)$", message)
    assert match is not None and "\n" not in message
    worst, floor = float(match[1]), float(match[2])
    assert EXAMPLE_LOW <= worst <= EXAMPLE_HIGH and floor == math.ceil(worst * 100) / 100
    assert "3 attempts" in message and "8,192 output tokens" in message and "$1 / $5 per million" in message
    assert message.endswith("an answer of 20 claims of 200 characters in Chinese or Japanese, whose verdicts "
                            "take 4 calls at max_tokens 2,048; an answer of more claims, or of shorter "
                            "ones, takes more calls, each sending the documents again); give it at least "
                            f"${floor:.2f}")


async def test_the_smallest_budget_serve_accepts_judges_the_largest_example(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the start check promises: the budget it names as the least judges an example of the size it is
    sized by. It had named $0.14, one call's worth, and the example below, of four calls, was over_budget."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    with pytest.raises(InputError) as caught:
        lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", "0.01"),
                       sample_rate=1.0, k=5)
    least = re.search(r"give it at least \$(\d+\.\d\d)$", str(caught.value))
    assert least is not None
    lane = lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", least[1]),
                          sample_rate=1.0, k=5)
    assert lane is not None
    answer = "".join(f"巴黎{chr(0x4E00 + i) * 197}。" for i in range(20))  # 20 sentences of 200 characters
    documents = tuple(Context(f"d{i}", "x" * 4_000) for i in range(6))
    (outcome,) = await run_all(lane, [Example("long", "q" * 4_000, documents, answer)])
    assert outcome.outcome == "ok" and outcome.result is not None
    assert fake_api.calls == 4 and [len(claims_of(body)) for body in fake_api.requests] == [5] * 4


def test_prices_whose_worst_case_overflows_are_refused_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """$1e305 per million input tokens: 3 x 33,000+ tokens x 1e305 / 1e6 > 1e308, past the largest float, so
    the worst case is inf, which no budget covers; naming "at least $inf" was an OverflowError traceback."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with pytest.raises(InputError) as caught:
        lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", "1e308",
                                  "--llm-price-input", "1e305", "--llm-price-output", "1"),
                       sample_rate=1.0, k=5)
    message = str(caught.value)
    assert message.startswith("--llm-budget-usd-per-day 1e+308 cannot cover one large Claude example: ")
    assert "$1e+305 / $1 per million" in message and "\n" not in message


def test_a_budget_covering_few_calls_is_warned_about(monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    def warnings(budget: str) -> list[str]:
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
            lane = lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", budget),
                                  sample_rate=1.0, k=5)
        assert lane is not None
        return [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]

    # $0.80 holds 0.8 / $0.159192 = 5.03 to 0.8 / $0.142692 = 5.6 worst cases: 5, fewer than 10.
    (warning,) = warnings("0.8")
    assert warning.startswith("--llm-budget-usd-per-day 0.8 holds only 5 Claude calls a day at the worst "
                              "case: each call reserves up to $")
    # $0.65, enough for the largest example (above), holds 0.65 / 0.159192 = 4.08 to 0.65 / 0.142692 = 4.56
    # calls; $1.60 holds 1.6 / 0.159192 = 10.05 at least: no warning.
    assert warnings("0.65")[0].startswith("--llm-budget-usd-per-day 0.65 holds only 4 Claude calls a day")
    assert warnings("1.6") == []


def test_serve_refuses_to_start_on_a_budget_that_cannot_cover_one_call(ragmon_cmd: list[str]) -> None:
    env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    result = subprocess.run([*ragmon_cmd, "serve", "--http-listen", "127.0.0.1:0", "--grpc-listen", "off",
                             "--metrics-listen", "127.0.0.1:0", "--llm-sample-rate", "1",
                             "--llm-budget-usd-per-day", "0.01"], capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("ragmon serve: error: --llm-budget-usd-per-day 0.01 cannot cover one "
                                    "large Claude example: it reserves up to $")


async def test_failures_are_logged_once_a_minute_per_outcome(fake_api: FakeAnthropic,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """A wrong --llm-model makes every call a 404: the operator sees error counts climb, and the log says
    why, naming the API's answer, in one line a minute however many traces fail."""
    fake_api.default = Fail(404, "not_found_error")
    clock = ManualClock()
    lane = make_lane(fake_api, max_retries=0, clock=clock)
    with caplog.at_level(logging.INFO, logger="ragmon.llm_lane"):
        outcomes = await run_all(lane, [example(i) for i in range(3)], consumers=1)
        clock.now += 60.0  # a minute later the problem is still there: one more line, counting the two
        outcomes += await run_all(lane, [example(3)])
    assert [o.outcome for o in outcomes] == ["error"] * 4 and fake_api.calls == 4
    lines = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert len(lines) == 2 and all(r.levelno == logging.WARNING for r in caplog.records)
    assert "example 'ex-0'" in lines[0] and "API error 404" in lines[0] and "more like it" not in lines[0]
    assert "example 'ex-3'" in lines[1] and lines[1].endswith("... and 2 more like it since the last line")


async def test_a_spent_budget_is_logged(fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    lane = make_lane(fake_api, usd_per_day=0.0)
    with caplog.at_level(logging.INFO, logger="ragmon.llm_lane"):
        outcomes = await run_all(lane, [example(i) for i in range(5)], consumers=1)
    assert [o.outcome for o in outcomes] == ["over_budget"] * 5 and fake_api.calls == 0
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert "over_budget" in line and "--llm-budget-usd-per-day 0" in line


async def test_a_connection_cut_after_the_request_was_sent_counts_as_billed(fake_api: FakeAnthropic) -> None:
    """A proxy that cuts a long call leaves no reply, but the API had the request and may have run and
    billed it, like an attempt that timed out: each such attempt counts at its worst case, or a cap
    could be passed by calls nobody counted."""
    fake_api.default = Drop()
    lane = make_lane(fake_api, max_retries=1)
    worst = attempt_cost(lane, example(1))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "error" and fake_api.calls == 2  # retried once, like any connection error
    assert outcome.cost_usd == pytest.approx(2 * worst) and lane.budget.spent == pytest.approx(2 * worst)


async def test_a_gateway_timeout_counts_as_billed(fake_api: FakeAnthropic) -> None:
    """A 504 says the request timed out while it was being run: the API's own timeout_error, or a gateway
    whose idle timeout is shorter than --llm-timeout, past which the API ran on and billed it. Counted as
    no bill, three 504s a call (the SDK retries them) passed the cap unseen, the spend reading $0."""
    gateway_timeout = Fail(504, "timeout_error", {"retry-after-ms": "1"})
    fake_api.default = gateway_timeout
    lane = make_lane(fake_api, max_retries=2)
    worst = attempt_cost(lane, example(1))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "error" and fake_api.calls == 3
    assert outcome.cost_usd == pytest.approx(3 * worst) and lane.budget.spent == pytest.approx(3 * worst)
    fake_api.enqueue(gateway_timeout)
    fake_api.default = Reply(usage=(1_000, 100))  # bills $0.0015
    retried = attempt_cost(lane, example(2))
    (answered,) = await run_all(lane, [example(2)])
    assert answered.outcome == "ok" and fake_api.calls == 5
    assert answered.cost_usd == pytest.approx(retried + 0.0015)


async def test_a_cdn_timeout_counts_as_billed(fake_api: FakeAnthropic) -> None:
    """A 524 is a CDN's (Cloudflare's) 504: it reached the origin and sent the request, which ran past the
    CDN's timeout, and the API billed it. Counted as no bill, as any 5xx, a call of three 524s cost $0, as the
    504s above once did."""
    fake_api.default = Raw("<html><title>A timeout occurred</title></html>", status=524)
    lane = make_lane(fake_api, max_retries=2)
    worst = attempt_cost(lane, example(1))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "error" and fake_api.calls == 3
    assert outcome.cost_usd == pytest.approx(3 * worst) and lane.budget.spent == pytest.approx(3 * worst)


@contextlib.contextmanager
def unreachable() -> Iterator[str]:
    """An address whose TCP handshake never completes: a listening socket that never accepts, its
    backlog filled, so the kernel drops further SYNs (as a firewall dropping packets would)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        fillers = [socket.socket() for _ in range(3)]
        try:
            for filler in fillers:
                filler.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    filler.connect(("127.0.0.1", port))
            yield f"http://127.0.0.1:{port}"
        finally:
            for filler in fillers:
                filler.close()


async def test_an_attempt_that_never_connected_costs_nothing() -> None:
    """A connect timeout sent nothing, so the API billed nothing: counting it at the worst case would spend
    the day's budget on phantom bills while the network is down, and refuse calls after it came back."""
    with unreachable() as url:
        judge = ClaudeJudge(base_url=url, api_key="test-key", max_tokens=350, timeout=0.3, max_retries=1)
        lane = ClaudeLane(judge, rate=0.5, concurrency=1, k=5, bucket=TokenBucket(1_000, ManualClock()),
                          budget=DailyBudget(100.0, PRICES, day=lambda: 0))
        (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "timeout" and "no reply within 0.3s" in outcome.message
    assert outcome.cost_usd == 0.0 and lane.budget.spent == 0.0 and lane.budget.reserved == 0.0


async def test_an_example_the_budget_refused_takes_no_call_from_the_minute(fake_api: FakeAnthropic) -> None:
    """--llm-max-per-minute counts calls: an example the budget refused made none. Were it to take a token,
    a spent budget would show as `throttled` for most examples, pointing at the wrong flag."""
    lane = make_lane(fake_api, per_minute=2, usd_per_day=0.0)
    outcomes = await run_all(lane, [example(i) for i in range(5)], consumers=1)
    assert [o.outcome for o in outcomes] == ["over_budget"] * 5
    # The minute's two calls are still there for an example that fits (a budget now large enough).
    lane.budget = DailyBudget(100.0, PRICES, day=lambda: 0)
    outcomes = await run_all(lane, [example(i) for i in range(3)], consumers=1)
    assert [o.outcome for o in outcomes] == ["ok", "ok", "throttled"] and fake_api.calls == 2


def again(item: Example) -> Example:
    """`item` under another id: the same question, documents and answer, so the same verdicts."""
    return replace(item, id=f"{item.id}-again")


@pytest.mark.parametrize("limit", ["per_minute", "usd_per_day"])
async def test_a_caller_joining_an_identical_call_in_flight_takes_none_of_the_limits(
        fake_api: FakeAnthropic, limit: str) -> None:
    """Two examples with the same answer at once share one call, the second waiting for the first's
    verdicts: it took a reservation and a token all the same, for a call it never made, so under limits
    that fit exactly two calls a third, distinct example was counted throttled (or over_budget) after a
    single call. Now it is `cached`, having taken nothing, and the third makes the second call."""
    probe = make_lane(fake_api, max_retries=0)
    worst = attempt_cost(probe, example(1))  # example 2's is the same: "Fact 2" is as long as "Fact 1"
    await probe.close()
    limits = {"per_minute": 2.0} if limit == "per_minute" else {"usd_per_day": 2.5 * worst}
    lane = make_lane(fake_api, max_retries=0, **limits)
    outcomes = await run_all(lane, [example(1), again(example(1)), example(2)], consumers=3)
    assert Counter(o.outcome for o in outcomes) == {"ok": 2, "cached": 1}
    assert fake_api.calls == 2 and lane.budget.reserved == 0.0


@pytest.mark.parametrize(("per_minute", "expected", "calls"), [(1.0, "throttled", 1), (2.0, "ok", 2)])
async def test_a_caller_whose_joined_call_failed_takes_the_limits_for_its_own(
        fake_api: FakeAnthropic, per_minute: float, expected: str, calls: int) -> None:
    """The call it waited for failed, caching nothing: the waiter makes its own call, which takes its token
    then, so sharing a call never lets one past --llm-max-per-minute."""
    fake_api.enqueue(Fail(400, "invalid_request_error"))
    lane = make_lane(fake_api, per_minute=per_minute, max_retries=0)
    outcomes = await run_all(lane, [example(1), again(example(1))], consumers=2)
    assert [o.outcome for o in outcomes] == ["error", expected] and fake_api.calls == calls


async def test_an_unanswered_attempt_of_a_long_answer_costs_one_calls_worst_case(
        fake_api: FakeAnthropic) -> None:
    """25 claims go out in two calls (20, then 5). The first call's first attempt times out, its retry and
    the second call are billed $0.0015 each: the timed-out attempt counts at the worst case of one attempt
    of the larger call, not of both calls together, which would spend budget nothing could have billed."""
    item = Example("long", "q", (Context("d1", "Water boils at 100 C."),),
                   " ".join(f"Water boils at 100 C, fact {i}." for i in range(25)))
    first_call = Example("first", "q", item.contexts, " ".join(c.text for c in example_claims(item)[:20]))
    fake_api.enqueue(Hang(30))
    fake_api.default = Reply(usage=(1_000, 100))
    lane = make_lane(fake_api, timeout=1.5, max_retries=1, max_tokens=2_048)  # room for a loaded machine
    bound = lane.claude.request_bound(item, example_claims(item))
    assert bound is not None and bound.output_tokens == 2 * 2_048  # two calls
    worst = attempt_cost(lane, first_call)
    (outcome,) = await run_all(lane, [item])
    assert outcome.outcome == "ok" and fake_api.calls == 3
    assert outcome.cost_usd == pytest.approx(2 * 0.0015 + worst)


@pytest.mark.parametrize("flag", ["--llm-budget-usd-per-day", "--llm-max-per-minute"])
@pytest.mark.parametrize("value", ["1e999", "-1"])
def test_an_amount_must_be_a_finite_number_at_least_0(flag: str, value: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`--llm-budget-usd-per-day inf` (meant as "no cap") once passed the parser and crashed the start with
    a traceback sizing the budget (inf // cost is NaN): a flag's value is checked where it is read. `inf`
    is no number now (below); 1e999 is one, too large for a float: inf all the same."""
    with pytest.raises(SystemExit) as caught:
        serve_args(flag, value)
    assert caught.value.code == 2 and f"argument {flag}: must be a finite number, at least 0" in \
        capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--llm-price-input", "--llm-price-output"])
@pytest.mark.parametrize(("value", "why"), [
    ("0", ": at a price of 0 the daily budget could never stop a call"), ("-1", ""), ("1e999", "")])
def test_a_price_must_be_a_finite_number_above_0(flag: str, value: str, why: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """At a price of 0 every reservation was $0: `ragmon serve` started as though --llm-budget-usd-per-day
    capped spending, and no cap could ever stop a call."""
    with pytest.raises(SystemExit) as caught:
        serve_args(flag, value)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.endswith(f"argument {flag}: must be a finite number above 0{why}\n")


@pytest.mark.parametrize(("command", "flag"), [
    ("serve", "--llm-budget-usd-per-day"), ("serve", "--llm-max-per-minute"), ("serve", "--llm-price-input"),
    ("serve", "--llm-price-output"), ("calibrate", "--llm-price-input"), ("calibrate", "--llm-price-output")])
@pytest.mark.parametrize(("value", "hint"), [
    ("0_5", ""), ("1_0", ""),  # float() read them as 5 and 10: a budget of $5.00 a day where 0.5 was meant
    ("٠.٥", " (write it with the digits 0-9)"),  # 0.5 in Arabic-Indic digits, which float() takes
    ("inf", ""), ("nan", "")])
def test_a_claude_flag_reads_numbers_as_every_other_flag(command: str, flag: str, value: str,
                                                         hint: str) -> None:
    """As `--sample-rate 0_5` is refused, with the message the other number flags give; `calibrate` has the
    two prices only."""
    argv = [command, flag, value] if command == "serve" else [command, "labelled.jsonl", flag, value]
    with pytest.raises(UsageError) as refused:
        build_parser(command, {}).parse_args(argv)
    assert refused.value.message == f"argument {flag}: not a number: {value!r}{hint}"


def test_a_claude_flag_from_the_environment_is_refused_naming_the_variable() -> None:
    with pytest.raises(UsageError) as refused:
        build_parser("serve", {"RAGMON_LLM_BUDGET_USD_PER_DAY": "0_5"}).parse_args(["serve"])
    assert refused.value.message == "RAGMON_LLM_BUDGET_USD_PER_DAY='0_5': not a number: '0_5'"


@pytest.mark.parametrize("flags", [("--llm-budget-usd-per-day", "1e308"),
                                   ("--llm-price-input", "1e-320", "--llm-price-output", "1e-320")],
                         ids=["huge-budget", "tiny-prices"])
def test_a_budget_of_countless_calls_starts_without_a_warning(flags: tuple[str, ...],
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """Counting the calls a budget holds, int(1e308 // $0.139) overflowed: a traceback at start-up. Such a
    budget holds more than the warning's 10 calls, which is all start-up needs to know."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        lane = lane_from_args(serve_args("--llm-sample-rate", "1", *flags), sample_rate=1.0, k=5)
    assert lane is not None
    assert [r for r in caplog.records if r.name == "ragmon.llm_lane"] == []


async def test_unanswered_attempts_of_a_small_call_never_settle_past_the_reservation(
        fake_api: FakeAnthropic) -> None:
    """Twenty long claims and a short one go out in two calls, the first about twice the size of the
    second. The first call's first attempt times out and its retry is billed; both attempts of the second
    time out. Counted each at the larger call's worst case, the three unanswered attempts came to more than
    the reservation, which already bounds every attempt of both calls: `spent` passed a cap that no bill
    could have passed. A cap of exactly the reservation must hold."""
    long = [f"Water boils at 100 C at sea level, fact {i:02d}, " + "and it is so " * 11 + "true."
            for i in range(20)]
    item = Example("long", "q", (Context("d1", "Water boils at 100 C."),), " ".join([*long, "Ice melts."]))
    probe = make_lane(fake_api, max_tokens=2_048)  # room for twenty verdicts in one reply
    bound = probe.claude.request_bound(item, example_claims(item))
    first = probe.claude.request_bound(Example("a", "q", item.contexts, " ".join(long)),
                                       example_claims(item)[:20])
    second = probe.claude.request_bound(Example("b", "q", item.contexts, "Ice melts."),
                                        example_claims(item)[20:])
    await probe.close()
    assert bound is not None and first is not None and second is not None
    assert bound.input_tokens == first.input_tokens + second.input_tokens  # two calls
    # The billed reply (20 verdicts: 2,000 output tokens, and all the input its call's bound allows) plus
    # three unanswered attempts at the larger call's worst case pass the reservation of two attempts at each
    # call: the overshoot this test is about.
    fake_api.enqueue(Hang(30), Reply(usage=(first.input_tokens, 2_000)), Hang(30), Hang(30))
    cap = reserved_cost(bound, attempts=2)  # max_retries=1: two attempts a call
    assert PRICES.cost(4 * first.input_tokens, 2_000 + 3 * 2_048) > cap
    lane = make_lane(fake_api, usd_per_day=cap, timeout=1.5, max_retries=1, max_tokens=2_048)  # room to reply
    (outcome,) = await run_all(lane, [item])
    assert outcome.outcome == "timeout" and fake_api.calls == 4
    assert lane.budget.spent <= cap and lane.budget.reserved == 0.0
    # Never less than what could have been billed: the billed reply, the first call's unanswered attempt
    # and the second call's two, each at its own call's worst case.
    could = PRICES.cost(2 * first.input_tokens + 2 * second.input_tokens, 2_000 + 3 * 2_048)
    assert outcome.cost_usd >= could


NOT_JSON = Raw('{"id": "msg_raw", "content": [{"type": "tool_u')
TOO_DEEP = Raw('{"a":' * 100_000 + "1" + "}" * 100_000)
"""JSON nested deeper than Python's parser goes: a RecursionError out of the SDK, which the lane let through,
settling the whole reservation and reporting no cost."""


@pytest.mark.parametrize(("script", "billable"), [
    ((NOT_JSON,), 1),
    ((Fail(500, "api_error", {"retry-after-ms": "1"}), NOT_JSON), 1),
    ((Hang(30), NOT_JSON), 2),
    ((TOO_DEEP,), 1),
], ids=["unreadable", "error-status-then-unreadable", "timeout-then-unreadable", "nested-too-deep"])
async def test_an_unreadable_reply_costs_one_attempt_not_every_attempt(
        fake_api: FakeAnthropic, script: tuple[Any, ...], billable: int) -> None:
    """A 200 whose body is not JSON was billed an amount nobody can read: at most one attempt's worst
    case. It was settled as the whole reservation, all 3 attempts' worst case, though the SDK made one
    attempt (or two, one of them a 500, which the API does not bill, or a timeout, which it may)."""
    fake_api.enqueue(*script)
    lane = make_lane(fake_api, timeout=1.5, max_retries=2)  # room for a loaded machine
    worst = attempt_cost(lane, example(1))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "error" and "unreadable reply" in outcome.message
    assert fake_api.calls == len(script)
    assert outcome.cost_usd == pytest.approx(billable * worst) and lane.budget.reserved == 0.0
    assert lane.budget.spent == pytest.approx(billable * worst)


async def test_a_request_that_never_left_the_process_costs_the_budget_nothing(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Every attempt failed in the process (a header h11 will not write): no request reached the API, yet
    the lane counted 3 attempts at their worst case each, and logged "cannot reach the API: Connection
    error.", naming nothing that failed."""
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X Not A Name: 1")
    lane = make_lane(fake_api, max_retries=2)
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "error" and fake_api.calls == 0
    assert outcome.cost_usd == 0.0 and lane.budget.spent == 0.0 and lane.budget.reserved == 0.0
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert line.endswith(f"cannot reach the API at {fake_api.url}: the request was never sent "
                         "(LocalProtocolError; 3 attempts)")


async def test_a_bill_past_its_reservation_or_the_cap_is_warned_about(
        fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    """Only tokens the API reports past the judge's bound can pass a reservation, and with it the daily cap
    promised never to be passed: the metrics showed a cost, nothing said the promise had failed. Here each
    call reports 1,000,000 input and 100 output tokens: $1 + $0.0005 = $1.0005, against a reservation of
    well under a cent. A cap of $2.5: calls 1 and 2 spend $2.001, call 3 still fits its reservation and
    spends $3.0015, past the cap; call 4 is refused. One line a minute of each kind."""
    fake_api.default = Reply(usage=(1_000_000, 100))
    clock = ManualClock()
    lane = make_lane(fake_api, usd_per_day=2.5, max_retries=0, clock=clock)
    bound = lane.claude.request_bound(example(0), example_claims(example(0)))
    assert bound is not None
    reserved = reserved_cost(bound)
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        outcomes = await run_all(lane, [example(i) for i in range(3)], consumers=1)
        clock.now += 60.0
        outcomes += await run_all(lane, [example(3)])
    assert [o.outcome for o in outcomes] == ["ok", "ok", "ok", "over_budget"]
    assert lane.budget.spent == pytest.approx(3 * 1.0005)
    lines = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert lines[0] == (f"Claude judge: example 'ex-0' billed $1.0005, more than the ${reserved:.4f} "
                        f"reserved for it: the API billed as many as 1,000,000 input and 100 output tokens, "
                        f"past the {at_us_rates(bound.input_tokens):,} and 385 reserved (every attempt's "
                        "bound, at 1.1x)")
    assert lines[1] == ("Claude judge: $3.0015 spent today, past --llm-budget-usd-per-day 2.5 (example "
                        "'ex-2' billed $1.0005); no further call is made before the UTC day ends")
    assert lines[2].startswith("Claude judge over_budget: example 'ex-3'")
    assert len(lines) == 3  # calls 2 and 3 passed their reservations too, within the minute of call 1's line


async def test_output_tokens_billed_past_the_reservation_are_counted_whole(fake_api: FakeAnthropic) -> None:
    """As input tokens past the bound are (above): a reply reporting 1,000 input and 1,000,000 output tokens
    is counted at $0.001 + $5 = $5.001, not clamped to the 385 output tokens its call reserved."""
    fake_api.default = Reply(usage=(1_000, 1_000_000))
    lane = make_lane(fake_api, usd_per_day=10.0, max_retries=0)
    (outcome,) = await run_all(lane, [example(0)])
    assert outcome.outcome == "ok" and outcome.cost_usd == pytest.approx(5.001)
    assert lane.budget.spent == pytest.approx(5.001)


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def write_spend(path: Path, usd: float) -> None:
    path.write_text(json.dumps({"what": "ragmon Claude judge spend", "day": today(), "usd": usd}),
                    encoding="utf-8")


def test_a_restarted_sidecar_resumes_the_days_spend_from_its_budget_file_and_says_so(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """A crash-looping sidecar once had the whole day's cap at every start."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    path = tmp_path / "claude-spend.json"

    def start(spent: float) -> list[logging.LogRecord]:
        write_spend(path, spent)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="ragmon.llm_lane"):
            lane = lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", "5",
                                             "--llm-budget-file", str(path)), sample_rate=1.0, k=5)
        assert lane is not None and lane.budget.spent == spent
        asyncio.run(lane.close())
        return [r for r in caplog.records if r.name == "ragmon.llm_lane"]

    (line,) = start(1.25)
    assert (line.levelno, line.getMessage()) == (logging.INFO, (
        f"Claude judge: $1.2500 of --llm-budget-usd-per-day 5 already committed on {today()} (UTC), resumed "
        f"from --llm-budget-file {path}; $3.7500 left"))
    # $4.60 spent leaves $0.40, less than the largest example's worst case ($0.557568 to $0.623568, above).
    (line,) = start(4.6)
    assert line.levelno == logging.WARNING
    assert line.getMessage().startswith(
        f"Claude judge: $4.6000 of --llm-budget-usd-per-day 5 already committed on {today()} (UTC), resumed "
        f"from --llm-budget-file {path}; $0.4000 left, less than the largest example reserves ($0.5")
    tomorrow = (datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=1)).isoformat()
    assert line.getMessage().endswith(f"such examples are counted over_budget until {tomorrow} 00:00 UTC")


async def test_a_throttled_example_leaves_the_budget_file_alone(fake_api: FakeAnthropic,
                                                                tmp_path: Path) -> None:
    """Only a call that goes out reserves and so is written: a sidecar refusing most of its Claude samples
    for --llm-max-per-minute would otherwise rewrite the file twice for each."""
    path = tmp_path / "spend.json"
    fake_api.default = Reply(usage=(1_000, 100))  # $0.0015 a call
    lane = make_lane(fake_api, per_minute=1)
    lane.budget = DailyBudget(100.0, PRICES, day=lambda: 0, record=BudgetFile(path))
    assert [o.outcome for o in await run_all(lane, [example(1)], consumers=1)] == ["ok"]
    assert json.loads(path.read_text(encoding="utf-8"))["usd"] == pytest.approx(0.0015)
    lane.budget = DailyBudget(100.0, PRICES, day=lambda: 0, record=BudgetFile(path))
    # As ragmon never writes it (its own spacing), so that any rewrite shows:
    by_hand = '{ "what": "ragmon Claude judge spend",  "day": "1970-01-01",  "usd": 0.0015 }'
    path.write_text(by_hand, encoding="utf-8")
    assert [o.outcome for o in await run_all(lane, [example(2)], consumers=1)] == ["throttled"]
    assert path.read_text(encoding="utf-8") == by_hand


def test_serve_refuses_a_budget_file_another_process_holds(ragmon_cmd: list[str], tmp_path: Path) -> None:
    path = tmp_path / "spend.json"
    held = BudgetFile(path)
    env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
           "RAGMON_LLM_BUDGET_FILE": str(path)}
    try:
        result = subprocess.run([*ragmon_cmd, "serve", "--http-listen", "127.0.0.1:0", "--grpc-listen", "off",
                                 "--metrics-listen", "127.0.0.1:0", "--llm-sample-rate", "1"],
                                capture_output=True, text=True, timeout=60, env=env)
    finally:
        held.close()
    assert result.returncode == 2 and result.stdout == "" and len(result.stderr.splitlines()) == 1
    # Set by the variable, as the Dockerfile sets it, the variable is named: the flag had been.
    assert result.stderr.startswith(f"ragmon serve: error: RAGMON_LLM_BUDGET_FILE {path} (--llm-budget-file) "
                                    "is in use by another process (a second ragmon serve?)")


def test_a_budget_refused_at_start_leaves_its_file_as_it_was(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    path = tmp_path / "spend.json"
    with pytest.raises(InputError, match="cannot cover one large Claude example"):
        lane_from_args(serve_args("--llm-sample-rate", "1", "--llm-budget-usd-per-day", "0.01",
                                  "--llm-budget-file", str(path)), sample_rate=1.0, k=5)
    assert not path.exists()


async def test_a_day_spent_by_calls_a_killed_process_left_in_flight_says_so(fake_api: FakeAnthropic,
                                                                            tmp_path: Path) -> None:
    """After a crash loop the refusals said "$4.95 spent" while Claude had billed cents: on call looked for
    the bills. 0.14 a call in flight when its process died, 0.005 billed."""
    path = tmp_path / "spend.json"
    path.write_text(json.dumps({"what": "ragmon Claude judge spend", "day": "1970-01-01", "usd": 0.145,
                                "unbilled_usd": 0.14}), encoding="utf-8")
    lane = make_lane(fake_api)
    lane.budget = DailyBudget(0.15, PRICES, day=lambda: 0, record=BudgetFile(path))
    (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "over_budget"
    assert outcome.message.startswith(
        "example 'ex-1': over --llm-budget-usd-per-day 0.15 ($0.1450 spent, $0.1400 of it the worst case of "
        "calls in flight when an earlier process stopped, and $0.0000 reserved today; this call would "
        "reserve up to $")


async def test_a_token_count_no_float_holds_costs_one_attempt_never_nothing(
        fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    """A reply's `usage.input_tokens` of 10**309 raised OverflowError in the settlement, after the
    reservation was released: cost $0, nothing committed, a traceback, and the verdicts (cached before)
    free from then on. A bill nobody can read counts as one attempt at its worst case."""
    fake_api.enqueue(Reply(usage=(10**309, 10)))
    lane = make_lane(fake_api, max_retries=2)  # the reservation: 3 attempts
    worst = attempt_cost(lane, example(1))
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        (outcome,) = await run_all(lane, [example(1)])
    assert outcome.outcome == "ok" and fake_api.calls == 1
    assert outcome.cost_usd == pytest.approx(worst) and lane.budget.spent == pytest.approx(worst)
    assert lane.budget.reserved == 0.0
    assert [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"] == [
        "Claude judge: example 'ex-1': the API reported a token count no float holds: counted as a bill "
        "nobody can read, at the worst case of an attempt"]


async def until_called(api: FakeAnthropic) -> None:
    """Until a request reached the API (10 s at most)."""
    for _ in range(1_000):
        if api.calls:
            return
        await asyncio.sleep(0.01)


async def cancel(task: asyncio.Future[LaneOutcome]) -> None:
    """Cancel `task` a moment later, as the sidecar's drain does at its deadline, and see it end so."""
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def hang_until_cancelled(lane: ClaudeLane, api: FakeAnthropic) -> list[LaneOutcome]:
    """Judge example 1 until its first attempt reached the API, then cancel it as the sidecar's drain
    does; returns what the lane told `on_cancelled`."""
    told: list[LaneOutcome] = []
    lane.on_cancelled = told.append
    task = asyncio.ensure_future(lane.judge_example(example(1)))
    await until_called(api)
    await cancel(task)
    return told


def judge_saying(lane: ClaudeLane, monkeypatch: pytest.MonkeyPatch, sent: Usage | None) -> None:
    """The lane's judge, saying on a cancellation that it sent `sent` (the CancelledError's `usage`), or
    nothing (None)."""
    judge = lane.claude.ajudge_with_usage

    async def saying_what_it_sent(*args: Any, **options: Any) -> Any:
        try:
            return await judge(*args, **options)
        except asyncio.CancelledError as cancelled:
            if sent is None:
                vars(cancelled).pop("usage", None)
            else:
                cancelled.usage = sent  # type: ignore[attr-defined]
            raise

    monkeypatch.setattr(lane.claude, "ajudge_with_usage", saying_what_it_sent)


async def test_a_call_cancelled_as_the_sidecar_stops_counts_unbilled_with_an_outcome(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """SIGTERM with a call hanging: the drain cancelled it, and its whole reservation was charged as spent,
    the budget file's `unbilled_usd` and the next start's line not saying so; the charge never reached the
    cost metric, and the call had no outcome. Now it counts as a call in flight when a process is killed
    does: at its worst case (every attempt, the judge not saying what it sent), said apart as unbilled,
    and it is an `error` with that cost."""
    fake_api.default = Hang(30)
    path = tmp_path / "spend.json"
    lane = make_lane(fake_api, max_retries=2)
    lane.budget = DailyBudget(100.0, PRICES, day=lambda: 0, record=BudgetFile(path))
    bound = lane.claude.request_bound(example(1), example_claims(example(1)))
    assert bound is not None and bound.attempts == 3
    worst = reserved_cost(bound)  # every attempt, as reserved
    judge_saying(lane, monkeypatch, None)
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        (told,) = await hang_until_cancelled(lane, fake_api)
    await lane.close()
    assert lane.budget.spent == pytest.approx(worst) and lane.budget.carried == pytest.approx(worst)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert (record["usd"], record["unbilled_usd"]) == (pytest.approx(worst), pytest.approx(worst))
    assert (told.outcome, told.result, told.cost_usd) == ("error", None, pytest.approx(worst))
    assert told.duration is not None and told.duration > 0
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert line == ("Claude judge error: example 'ex-1': call cancelled midway, ragmon stopping (its "
                    f"--drain-seconds passed); counted at the worst case of every attempt it may have made, "
                    f"${worst:.4f}, never billed as far as ragmon knows")


async def test_a_cancelled_call_is_told_with_its_time_in_the_judge(fake_api: FakeAnthropic) -> None:
    """The call ran from 100 s to 100.25 s on the timer when the drain cancelled it: its duration, as any
    other outcome's, is the time it spent in the judge."""
    fake_api.default = Hang(30)
    lane = make_lane(fake_api, max_retries=0, timer=ticks(100.0, 100.25))
    (told,) = await hang_until_cancelled(lane, fake_api)
    await lane.close()
    assert (told.outcome, told.duration) == ("error", 0.25)


@pytest.mark.parametrize(("sent", "billed", "said"), [
    (Usage(unanswered=1), 0.0, ""),
    # 1,000 in at $1/M + 100 out at $5/M
    (Usage(1_000, 100, calls=1, unanswered=1), 0.0015, " (besides $0.0015 its 1 earlier reply billed)"),
], ids=["one-attempt-in-flight", "a-reply-billed-then-one-in-flight"])
async def test_a_cancelled_call_counts_only_the_attempts_the_judge_says_it_sent(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, sent: Usage, billed: float,
        said: str) -> None:
    """The judge counts the attempts it sent (`Usage.unanswered`); on a cancellation it may say so as the
    CancelledError's `usage`. One attempt hanging of three allowed: that attempt's worst case, not the
    reservation's three, and only that unbilled; a reply billed before counts as billed. (A call that
    sent nothing is no call: see the waiting caller's test below.)"""
    fake_api.default = Hang(30)
    lane = make_lane(fake_api, max_retries=2)
    worst = attempt_cost(lane, example(1))
    judge_saying(lane, monkeypatch, sent)
    (told,) = await hang_until_cancelled(lane, fake_api)
    await lane.close()
    cost = billed + sent.unanswered * worst
    assert told.cost_usd == pytest.approx(cost) and lane.budget.spent == pytest.approx(cost)
    assert lane.budget.carried == pytest.approx(sent.unanswered * worst) and lane.budget.reserved == 0.0
    assert told.message == ("example 'ex-1': call cancelled midway, ragmon stopping (its --drain-seconds "
                            f"passed); counted at the worst case of the 1 attempt it sent with no reply, "
                            f"${worst:.4f}, never billed as far as ragmon knows{said}")


async def test_a_long_answer_cancelled_in_its_second_call_is_charged_what_its_first_billed(
        fake_api: FakeAnthropic) -> None:
    """Twenty long claims and a short one go out in two calls. The first is answered, billing 1,000 input
    and 100 output tokens ($0.0015); the drain cancels the second while it hangs. The example is charged
    that bill plus one attempt at the larger call's worst case (as US-only inference bills it), only the
    latter said apart as unbilled."""
    long = [f"Water boils at 100 C at sea level, fact {i:02d}, " + "and it is so " * 11 + "true."
            for i in range(20)]
    item = Example("long", "q", (Context("d1", "Water boils at 100 C."),), " ".join([*long, "Ice melts."]))
    fake_api.enqueue(Reply(usage=(1_000, 100)), Hang(30))
    lane = make_lane(fake_api, max_retries=0, max_tokens=2_048)  # room for twenty verdicts in one reply
    first = lane.claude.request_bound(Example("a", "q", item.contexts, " ".join(long)),
                                      example_claims(item)[:20])
    assert first is not None
    told: list[LaneOutcome] = []
    lane.on_cancelled = told.append
    task = asyncio.ensure_future(lane.judge_example(item))
    for _ in range(1_000):  # until the second call reached the API (10 s at most)
        if fake_api.calls == 2:
            break
        await asyncio.sleep(0.01)
    await cancel(task)
    await lane.close()
    in_flight = PRICES.cost(at_us_rates(first.input_tokens), 2_253)  # 2,048 at 1.1x, rounded up
    (outcome,) = told
    assert outcome.cost_usd == pytest.approx(0.0015 + in_flight)
    assert lane.budget.spent == pytest.approx(0.0015 + in_flight)
    assert lane.budget.carried == pytest.approx(in_flight) and lane.budget.reserved == 0.0


async def test_a_call_cut_off_in_its_first_attempt_is_charged_that_attempt_alone(
        fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    """The real judge, hanging in its first of three attempts when the drain cancels it: it says it sent
    one, so the lane charges one attempt's worst case, unbilled. Was: all three, the judge saying nothing."""
    fake_api.default = Hang(30)
    lane = make_lane(fake_api, max_retries=2)
    worst = attempt_cost(lane, example(1))
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        (told,) = await hang_until_cancelled(lane, fake_api)
    await lane.close()
    assert fake_api.calls == 1
    assert (told.outcome, told.cost_usd) == ("error", pytest.approx(worst))
    assert lane.budget.spent == pytest.approx(worst) and lane.budget.carried == pytest.approx(worst)
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert line == ("Claude judge error: example 'ex-1': call cancelled midway, ragmon stopping (its "
                    f"--drain-seconds passed); counted at the worst case of the 1 attempt it sent with no "
                    f"reply, ${worst:.4f}, never billed as far as ragmon knows")


async def test_a_call_cancelled_waiting_to_retry_a_429_is_an_error_costing_nothing(
        fake_api: FakeAnthropic, caplog: pytest.LogCaptureFixture) -> None:
    """The API answered 429 asking for 5 s, and the drain cancelled the call in the SDK's wait before its
    retry: the request went out and was answered, billing nothing. It had been counted nowhere, no outcome
    and no line, as if never made."""
    fake_api.default = Fail(429, "rate_limit_error", {"retry-after": "5"})
    lane = make_lane(fake_api, max_retries=2)
    with caplog.at_level(logging.WARNING, logger="ragmon.llm_lane"):
        (told,) = await hang_until_cancelled(lane, fake_api)
    await lane.close()
    assert fake_api.calls == 1
    assert (told.outcome, told.cost_usd) == ("error", 0.0)
    assert (lane.budget.spent, lane.budget.carried, lane.budget.reserved) == (0.0, 0.0, 0.0)
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ragmon.llm_lane"]
    assert line == ("Claude judge error: example 'ex-1': call cancelled midway, ragmon stopping (its "
                    "--drain-seconds passed); counted at $0, its 1 attempt answered with errors, which bill "
                    "nothing, never billed as far as ragmon knows")


async def test_a_call_cancelled_before_its_request_left_costs_nothing() -> None:
    """The drain's deadline cancels a call still connecting (an API behind a firewall dropping packets): its
    request never left, so nothing can bill it. It was charged an attempt's worst case as spent, and told
    as an `error` costing that much, a failed call that never reached the API."""
    with unreachable() as url:
        judge = ClaudeJudge(base_url=url, api_key="test-key", timeout=30, max_retries=2)
        lane = ClaudeLane(judge, rate=0.5, concurrency=1, k=5, bucket=TokenBucket(1_000, ManualClock()),
                          budget=DailyBudget(100.0, PRICES, day=lambda: 0))
        told: list[LaneOutcome] = []
        lane.on_cancelled = told.append
        await cancel(asyncio.ensure_future(lane.judge_example(example(1))))
        await lane.close()
    assert told == []
    assert (lane.budget.spent, lane.budget.carried, lane.budget.reserved) == (0.0, 0.0, 0.0)


async def test_a_caller_cancelled_while_waiting_for_anothers_call_counts_nothing(
        fake_api: FakeAnthropic) -> None:
    """Two examples with the same answer, judged at once: one call, the other caller waiting for it. The
    drain cancelling the waiter told an `error` for it, costing $0, a failed call that was never made."""
    fake_api.default = Hang(30)
    lane = make_lane(fake_api, max_retries=2)
    told: list[LaneOutcome] = []
    lane.on_cancelled = told.append
    calling = asyncio.ensure_future(lane.judge_example(example(1)))
    await until_called(fake_api)
    await cancel(asyncio.ensure_future(lane.judge_example(example(1))))
    assert told == [] and fake_api.calls == 1
    await cancel(calling)
    await lane.close()
    assert [outcome.outcome for outcome in told] == ["error"]


def test_settings_given_as_variables_are_named_by_their_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chart's environment sets them: the errors had named only the flags, which nobody typed."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    def refusal(environ: dict[str, str]) -> str:
        with pytest.raises(InputError) as refused:
            lane_from_args(build_parser("serve", environ).parse_args(["serve"]), sample_rate=0.1, k=5)
        return str(refused.value)

    assert refusal({"RAGMON_LLM_SAMPLE_RATE": "0.5"}).startswith(
        "RAGMON_LLM_SAMPLE_RATE 0.5 (--llm-sample-rate) exceeds --sample-rate 0.1: ")
    assert refusal({"RAGMON_LLM_SAMPLE_RATE": "0.1", "RAGMON_LLM_MODEL": "claude-foo-9"}).startswith(
        "no known price for RAGMON_LLM_MODEL 'claude-foo-9' (--llm-model): set --llm-price-input")
    assert refusal({"RAGMON_LLM_SAMPLE_RATE": "0.1", "RAGMON_LLM_BUDGET_USD_PER_DAY": "0.0001"}).startswith(
        "RAGMON_LLM_BUDGET_USD_PER_DAY 0.0001 (--llm-budget-usd-per-day) cannot cover one large Claude "
        "example")
