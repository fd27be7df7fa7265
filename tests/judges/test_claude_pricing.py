"""What a Claude reply costs, in every way the API prices it: prompt-cache writes and reads, US-only
inference, and a geography or speed whose price ragmon does not know. Driven through the real `anthropic` SDK
against the Messages API stand-in, whose scripted replies carry any usage; priced as a budget, a sidecar's
lane and `ragmon calibrate` count it. Every figure is at $1 / $5 per million input / output tokens.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropic, Raw
from manual_clock import ManualClock

from ragmon.budget import DailyBudget, Prices, TokenBucket
from ragmon.cli import main
from ragmon.evaluation import example_claims
from ragmon.judges.claude import ClaudeJudge, Usage
from ragmon.llm_lane import ClaudeLane
from ragmon.model import Context, Example

PRICES = Prices(input_per_mtok=1.0, output_per_mtok=5.0)
FACT = "Water boils at 100 degrees Celsius at sea level."


def example(i: int) -> Example:
    """Examples asking apart, so that none is answered from the verdicts cached for another."""
    return Example(f"ex-{i}", f"At what temperature does water boil? ({i})", (Context("d1", FACT),), FACT)


def reply(usage: dict[str, Any], inputs: int = 1_000, outputs: int = 100) -> Raw:
    """A well-formed verdict on FACT (supported by d1), billed `inputs` in and `outputs` out and as `usage`
    adds."""
    verdict = {"claim": FACT, "supported": True, "supporting_ids": ["d1"], "reason": "d1 states it"}
    block = {"type": "tool_use", "id": "toolu_1", "name": "record_verdicts", "input": {"verdicts": [verdict]}}
    return Raw(json.dumps({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [block], "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": inputs, "output_tokens": outputs, **usage}}))


def make_judge(api: FakeAnthropic, **options: Any) -> ClaudeJudge:
    return ClaudeJudge(base_url=api.url, api_key="test-key", **options)


WRITES_1H = {"cache_creation_input_tokens": 2_000,
             "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 2_000}}
US_WITH_CACHE = {**WRITES_1H, "cache_read_input_tokens": 10_000, "inference_geo": "us"}
"""1.1 x (1,000 + 2,000 x 2 + 10,000 / 10) = 6,600 input tokens, 1.1 x 100 = 110 output: $0.0066 + $0.00055
= $0.00715. Counted as before, 13,000 input and 100 output tokens: $0.0135."""

BILLS = {
    # usage besides 1,000 in and 100 out -> (input, output) tokens at the base prices
    "5-minute cache writes at 1.25x": (
        {"cache_creation_input_tokens": 2_000,
         "cache_creation": {"ephemeral_5m_input_tokens": 2_000, "ephemeral_1h_input_tokens": 0}},
        (1_000 + 2_500, 100)),
    "1-hour cache writes at 2x": (WRITES_1H, (1_000 + 4_000, 100)),
    "writes of both lifetimes": (
        {"cache_creation_input_tokens": 2_000,
         "cache_creation": {"ephemeral_5m_input_tokens": 800, "ephemeral_1h_input_tokens": 1_200}},
        (1_000 + 1_000 + 2_400, 100)),
    # A gateway may report the total alone; its lifetime unknown, a write counts at the dearer rate.
    "writes not broken down, at the 1-hour rate": (
        {"cache_creation_input_tokens": 2_000}, (1_000 + 4_000, 100)),
    "writes the breakdown leaves out, at the 1-hour rate": (
        {"cache_creation_input_tokens": 2_000,
         "cache_creation": {"ephemeral_5m_input_tokens": 800, "ephemeral_1h_input_tokens": 0}},
        (1_000 + 1_000 + 2_400, 100)),
    "a breakdown that cannot be read, at the 1-hour rate": (
        {"cache_creation_input_tokens": 2_000,
         "cache_creation": {"ephemeral_5m_input_tokens": -800, "ephemeral_1h_input_tokens": "1200"}},
        (1_000 + 4_000, 100)),
    "cache reads at a tenth": ({"cache_read_input_tokens": 10_000}, (1_000 + 1_000, 100)),
    "US-only inference at 1.1x, output too": ({"inference_geo": "us"}, (1_100, 110)),
    "US-only inference, cache writes and reads": (US_WITH_CACHE, (6_600, 110)),
    "global inference at the list price": ({"inference_geo": "global"}, (1_000, 100)),
    # What models without the inference_geo parameter report: no surcharge, and no unknown price.
    "inference_geo not_available at the list price": ({"inference_geo": "not_available"}, (1_000, 100)),
    "standard speed at the list price": ({"speed": "standard"}, (1_000, 100)),
}


@pytest.mark.parametrize(("usage", "tokens"), BILLS.values(), ids=BILLS.keys())
def test_a_reply_counts_the_tokens_it_bills_at_their_rates(fake_api: FakeAnthropic, usage: dict[str, Any],
                                                           tokens: tuple[int, int]) -> None:
    fake_api.enqueue(reply(usage))
    _, billed = make_judge(fake_api).judge_with_usage(example(1), example_claims(example(1)))
    assert billed == Usage(*tokens, calls=1)


def test_a_fraction_of_a_token_counts_as_a_whole_one(fake_api: FakeAnthropic) -> None:
    """A cap errs high: 1 input + 7 read (0.7) = 1.7, US-only 1.87 -> 2; 1 output, US-only 1.1 -> 2."""
    fake_api.enqueue(reply({"cache_read_input_tokens": 7, "inference_geo": "us"}, inputs=1, outputs=1))
    _, billed = make_judge(fake_api).judge_with_usage(example(1), example_claims(example(1)))
    assert billed == Usage(2, 2, calls=1)


def make_lane(api: FakeAnthropic) -> ClaudeLane:
    clock = ManualClock()
    return ClaudeLane(make_judge(api, max_tokens=350), rate=1.0, concurrency=1, k=5,
                      bucket=TokenBucket(1_000, clock), budget=DailyBudget(100.0, PRICES, day=lambda: 0),
                      clock=clock)


async def test_the_daily_budget_spends_what_cache_and_us_only_inference_bill(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(reply(US_WITH_CACHE))
    lane = make_lane(fake_api)
    outcome = await lane.judge_example(example(1))
    await lane.close()
    assert outcome.outcome == "ok"
    assert outcome.cost_usd == pytest.approx(0.00715) and lane.budget.spent == pytest.approx(0.00715)


UNPRICED = {"a geography ragmon has no price for": {"inference_geo": "eu"},
            "fast mode, priced by model": {"speed": "fast"}}

@pytest.mark.parametrize("usage", UNPRICED.values(), ids=UNPRICED.keys())
def test_a_reply_at_a_price_ragmon_does_not_know_is_told_in_its_usage(fake_api: FakeAnthropic,
                                                                     usage: dict[str, Any]) -> None:
    """What `judge_with_usage` gives a program: the tokens at the base prices, one reply, and that reply
    both unpriced and one more attempt whose bill is unknown."""
    fake_api.enqueue(reply(usage))
    (verdict,), billed = make_judge(fake_api).judge_with_usage(example(1), example_claims(example(1)))
    assert verdict.supported
    assert billed == Usage(1_000, 100, calls=1, unanswered=1, unpriced=1)


FAST = 6
"""Fast mode's multiple of the standard prices on Opus 4.6: $30 / $150 per million tokens against $5 / $25
(https://platform.claude.com/docs/en/build-with-claude/fast-mode); other models have other multiples."""


@pytest.mark.parametrize("usage", UNPRICED.values(), ids=UNPRICED.keys())
async def test_a_reply_at_a_price_ragmon_does_not_know_counts_all_its_call_reserved(
        fake_api: FakeAnthropic, usage: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    """Its verdicts stand; its bill, 1,000 input and 100 output tokens at a multiple of the base prices
    nobody reported, counts as all the budget reserved for the call: 3 attempts (the first and 2 retries) of
    the request's bound in input and max_tokens 350 in output, at 1.1x. In fast mode at 6x the reply bills
    $0.009 (6 x $0.0015); counted at the base prices plus one attempt's worst case, it was less. A warning
    says that the real bill is unknown and may pass the cap, once."""
    fake_api.default = reply(usage)
    lane = make_lane(fake_api)
    bound = lane.claude.request_bound(example(1), example_claims(example(1)))
    assert bound is not None
    # As reserved: 3 attempts, each token at US-only inference's 1.1x, the dearest known rate, rounded up.
    reserved = PRICES.cost(-(-33 * bound.call_input_tokens // 10), -(-33 * 350 // 10))
    with caplog.at_level(logging.WARNING, logger="ragmon.judges.claude"):
        outcomes = [await lane.judge_example(example(i)) for i in (1, 2)]
    await lane.close()
    assert [o.outcome for o in outcomes] == ["ok", "ok"]
    assert [o.cost_usd for o in outcomes] == pytest.approx([reserved] * 2)
    assert lane.budget.spent == pytest.approx(2 * reserved)
    assert outcomes[0].cost_usd >= FAST * 0.0015
    said = [r.getMessage() for r in caplog.records if r.name == "ragmon.judges.claude"]
    ((field, value),) = usage.items()
    assert said == [
        f"Claude judge: a reply ran at {field} {value!r}, whose price ragmon does not know: its real bill is "
        "unknown, possibly many times the base prices; ragmon serve counts each such call at all it "
        "reserved (every attempt's worst case at 1.1x the base prices), but its bill may be more, and the "
        "day's spend may pass --llm-budget-usd-per-day; calibrate marks its tokens and cost as at least"]


def write_labelled(path: Path) -> Path:
    record = {"id": "A", "question": "At what temperature does water boil?",
              "contexts": [{"id": "d1", "text": FACT}], "answer": FACT,
              "labels": {"hallucinated": False, "spans": []}}
    path.write_text(json.dumps(record) + "\n")
    return path


@pytest.mark.parametrize(("usage", "tokens", "cost", "unknown"), [
    (US_WITH_CACHE, [6_600, 110], 0.00715, 0),
    # Unknown price: the tokens at the base prices, marked as a floor.
    ({"inference_geo": "eu"}, [1_000, 100], 0.0015, 1),
], ids=["US-only with cache", "unknown geography"])
def test_calibrate_prices_a_reply_as_the_budget_does(fake_api: FakeAnthropic, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, usage: dict[str, Any],
                                                     tokens: list[int], cost: float, unknown: int) -> None:
    """calibrate's cost per example is what a budget is sized by: the same bill as the sidecar's."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    fake_api.enqueue(reply(usage))
    out = tmp_path / "cal.json"
    data = write_labelled(tmp_path / "labelled.jsonl")
    assert main(["calibrate", str(data), "--judge", "claude", "--json", str(out)]) == 0
    (claude,) = json.loads(out.read_text())["judges"]
    assert [claude["input_tokens_per_example"], claude["output_tokens_per_example"]] == tokens
    assert claude["cost_usd_per_example"] == pytest.approx(cost)
    assert claude["examples_with_unknown_bills"] == unknown


US_AT_MAX_TOKENS = {"inference_geo": "us"}
"""A US-only reply that used all of a `max_tokens` of 20,000: 1.1 x 1,000 = 1,100 input tokens at $1 per
million and 1.1 x 20,000 = 22,000 output tokens at $5, $0.0011 + $0.11 = $0.1111."""


def no_retry_lane(api: FakeAnthropic, usd_per_day: float) -> ClaudeLane:
    clock = ManualClock()
    budget = DailyBudget(usd_per_day, PRICES, day=lambda: 0)
    return ClaudeLane(make_judge(api, max_tokens=20_000, max_retries=0), rate=1.0, concurrency=1, k=5,
                      bucket=TokenBucket(1_000, clock), budget=budget, clock=clock)


@pytest.mark.parametrize(("usd_per_day", "outcome", "spent"), [
    # Reserved at the base prices, (~4,000 input + 20,000 output tokens) one attempt, $0.104: it fitted
    # $0.105, and the US-only bill, $0.1111, passed the cap. At US-only prices the worst case is
    # 1.1 x $0.104 > $0.114.
    (0.105, "over_budget", 0.0),
    (0.12, "ok", 0.1111),
], ids=["cap below the US-only worst case", "cap above it"])
async def test_a_us_only_reply_never_takes_the_day_past_the_cap(fake_api: FakeAnthropic, usd_per_day: float,
                                                                outcome: str, spent: float) -> None:
    """US-only inference bills every token at 1.1x, a price ragmon knows: the worst case a call may bill, and
    so what it reserves, is its bound at that price, or a reply using its `max_tokens` passes the cap."""
    fake_api.default = reply(US_AT_MAX_TOKENS, inputs=1_000, outputs=20_000)
    lane = no_retry_lane(fake_api, usd_per_day)
    bound = lane.claude.request_bound(example(1), example_claims(example(1)))
    assert bound is not None and 3_000 < bound.input_tokens < 5_000 and bound.attempts == 1
    result = await lane.judge_example(example(1))
    await lane.close()
    assert result.outcome == outcome
    assert lane.budget.spent == pytest.approx(spent) and lane.budget.spent <= usd_per_day
