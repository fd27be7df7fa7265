"""The sidecar's Claude lane: a nested sample of traces judged by Claude, within a rate and a USD budget.

The service samples (a trace is offered when its key is below `--llm-sample-rate`, which may not exceed
`--sample-rate`, so Claude always judges a subset of what the lexical judge scores and the two can be
compared trace by trace), queues the example on this lane's own bounded queue (dropped and counted
`throttled` when full: lexical scoring never waits on Claude) and runs `concurrency` consumers. Here,
per example: a call is needed only when some claim is not cached, nor being paid for by an identical
example's call in flight (waited for, that call's verdicts take nothing of the limits below: `cached`; one
that fails leaves each waiter to make its own, which takes them then); none is made while the wait the API's
last 429 or 529 asked for (`retry-after`) runs, or, when it asked for none (or under 1 s), a backoff of
1 s doubled with each burst of such calls until a call gets its verdicts (`rate_limited`, no call); it must
get a reservation of its worst-case cost from the daily budget (else `over_budget`), which covers every
attempt the SDK may make, since an attempt that timed out or was cut off may be billed and is then retried
as a new request, and a token for each of its calls (a long answer makes several) from the per-minute bucket
(else `throttled`, and the reservation is released); then
Claude judges, the reservation is settled with the tokens billed (each unanswered attempt at its worst
case, its bill being unknown; a call with a reply at a price ragmon does not know at the whole
reservation, which its bill may still exceed), and the outcome is one of the `ragmon_judge_requests_total`
outcomes: ok, cached (no call made: every verdict cached, or none needed), error, timeout, rate_limited,
throttled, over_budget. A call cancelled midway (the sidecar's drain deadline) is settled at the worst
case of what it sent, said apart as never billed, as a call in flight when a process dies is, and is an
`error` told to `on_cancelled`. Only `ok` and `cached` yield figures; a failed call never yields a
verdict. Every other outcome is logged with its reason (a wrong model id, a revoked key, malformed
replies: the counters say how often, only the log says why), at most one line a minute per outcome,
counting the ones left out; so is a bill past its reservation, or a day's spend past the cap, which only an
API reporting more tokens than the judge's bound can cause (or, unseen, a reply at a price ragmon does not
know, which the judge warns of).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ragmon.budget import DailyBudget, Prices, Reservation, TokenBucket
from ragmon.budget_file import BudgetFile, day_name
from ragmon.errors import InputError
from ragmon.evaluation import example_claims, score_example, verdicts_without_judge
from ragmon.judges.claude import (
    CLAIMS_PER_CALL,
    DEAREST_SURCHARGE,
    LARGEST_ANSWER_CHARS,
    ClaudeJudge,
    ClaudeJudgeError,
    TokenBound,
    Usage,
    add_cli_arguments,
    judge_from_args,
    non_negative,
    prices_from_args,
    shown_wait,
)
from ragmon.judges.claude_prompt import QUOTE_CHARS
from ragmon.logs import MAX_MESSAGE, LineLimit, clip, more_like_it
from ragmon.model import ClaimVerdict, Example, ExampleResult
from ragmon.options import Flag, flag_of, fraction, given_file, long_options, typed_among
from ragmon.scoring import LaneRefusal, Scored

log = logging.getLogger("ragmon.llm_lane")


@dataclass(frozen=True, slots=True)
class LaneOutcome:
    """What became of one example offered to the lane; `result` is set only for `ok` and `cached`."""

    outcome: str
    result: ExampleResult | None = None
    cost_usd: float = 0.0
    duration: float | None = None
    """Seconds spent in the judge call, None when no call was attempted."""
    message: str = ""


@dataclass(slots=True)
class _Admission:
    """What the lane let one example's own calls take (`ClaudeLane._admit`): nothing, when its verdicts came
    from the cache or from an identical example's call it waited for."""

    sent: float
    """When its calls were let go, on the lane's clock (until then, when the example was offered)."""
    bound: TokenBound | None = None
    reservation: Reservation | None = None


class _Refused(Exception):
    """The lane refusing the calls its judge was about to make (`ClaudeLane._admit`), with the outcome."""

    def __init__(self, outcome: LaneOutcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


LONGEST_HOLD = 600.0
"""Seconds a `retry-after` holds the lane's calls at most: the API's rate limits are measured per minute, so
a longer wait is a gateway's nonsense (a day, from a bad clock or a typo), which must not turn the Claude
judge off unseen for as long."""

FIRST_BACKOFF = 1.0
LONGEST_BACKOFF = 60.0
"""Seconds the lane holds its calls after a 429 or 529 that asked for no wait: `FIRST_BACKOFF`, doubled with
each burst of such calls until a call gets its verdicts, up to a minute, the span the API's rate limits are
measured over."""


class ClaudeLane:
    """Claude as a lane of the sidecar (see `ragmon.scoring.Lane`)."""

    judge = "claude"

    def __init__(self, claude: ClaudeJudge, *, rate: float, concurrency: int, k: int, bucket: TokenBucket,
                 budget: DailyBudget, timer: Callable[[], float] = time.perf_counter,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.concurrency = concurrency
        self.claude = claude
        self.bucket = bucket
        self.budget = budget
        self._k = k
        self._timer = timer
        self._clock = clock
        self._lines = LineLimit(clock=clock)
        self._held_until = -math.inf
        self._why_held = ""
        """Why the lane's calls are held (`_hold`), for the message of each example left uncalled."""
        self._unasked = 0
        """Calls ended by a 429 or 529 asking for no wait since a call last got its verdicts, for the message
        of a backoff: a 429 asking a wait among them must not be counted as one that asked none."""
        self._backoff = FIRST_BACKOFF
        """The hold after the next burst of 429s or 529s that ask for no wait."""
        self._burst_began = -math.inf
        """When the current burst's first refusal asking for no wait came (`_hold`); a refused call sent by
        then was in flight with it, one of the same burst."""
        self._burst_wait = FIRST_BACKOFF
        """The hold of the current burst."""
        self.on_cancelled: Callable[[LaneOutcome], None] | None = None
        """Told the outcome of a call cancelled midway (the sidecar stopping, its drain's deadline passed),
        which `score` cannot return, it being cancelled: an `error` with the worst case of the attempts the
        call sent, so that the sidecar counts it as it counts any other (`ragmon_judge_requests_total`,
        `ragmon_judge_cost_usd_total`)."""

    async def start(self) -> None:
        """Nothing to warm: the SDK client opens its connections on first use."""

    async def close(self) -> None:
        await self.claude.aclose()
        self.budget.close()

    async def score(self, example: Example) -> Scored:
        outcome = await self.judge_example(example)
        if outcome.result is None:
            raise LaneRefusal(outcome.outcome, outcome.message, cost_usd=outcome.cost_usd,
                              duration=outcome.duration)
        return Scored(outcome.result, outcome.duration or 0.0, outcome.cost_usd, outcome.outcome)

    async def judge_example(self, example: Example) -> LaneOutcome:
        """Never raises for a judge failure: every way an example can end is an outcome."""
        outcome = await self._judge(example)
        self._log(outcome)
        return outcome

    def _log(self, outcome: LaneOutcome) -> None:
        kind = outcome.outcome
        if kind not in ("ok", "cached") and (suppressed := self._lines.admit(kind)) is not None:
            line = f"Claude judge {kind}: {clip(outcome.message, MAX_MESSAGE)}"
            log.log(logging.INFO if kind == "throttled" else logging.WARNING, more_like_it(line, suppressed),
                    extra={"outcome": kind, "suppressed": suppressed})

    async def _judge(self, example: Example) -> LaneOutcome:
        claims = example_claims(example)
        free = verdicts_without_judge(example, claims)
        if free is not None:
            return self._ok(example, free, 0.0, None, called=False)
        admission = _Admission(self._clock())
        started = self._timer()
        try:
            verdicts, usage = await self.claude.ajudge_with_usage(
                example, claims, admit=functools.partial(self._admit, example, admission))
        except _Refused as refused:
            return refused.outcome
        except ClaudeJudgeError as exc:
            if exc.kind == "rate_limited":
                self._hold(exc.retry_after, admission.sent)
            cost = self._settle(example, admission.reservation, admission.bound, exc.usage)
            return LaneOutcome(exc.kind, None, cost, self._timer() - started, str(exc))
        except asyncio.CancelledError as cancelled:  # mid-call: the sidecar stopping
            took = self._timer() - started
            self._cancelled(example, admission.reservation, admission.bound, cancelled, took)
            raise
        except BaseException:  # a bug past the judge's own failures: what the call billed is unknown
            self._settle(example, admission.reservation, admission.bound, None)
            raise
        cost = self._settle(example, admission.reservation, admission.bound, usage)
        called = usage.calls > 0 or usage.unanswered > 0  # else every claim was cached by now
        if called:
            self._unasked, self._backoff, self._burst_began = 0, FIRST_BACKOFF, -math.inf
        return self._ok(example, verdicts, cost, self._timer() - started, called=called)

    def _admit(self, example: Example, admission: _Admission, bound: TokenBound) -> None:
        """Let the calls the judge is about to make for `example`, of this `bound`, go, or refuse them
        (`_Refused`): none while the lane is held (`_hold`), then the budget's reservation of their worst
        case, then a token for each from the per-minute bucket. The judge asks only for calls this caller
        makes itself: one waiting for an identical call in flight takes nothing of either limit (it had
        taken both, turning other examples away as over_budget or throttled for calls never made)."""
        if (held := self._held(example)) is not None:
            raise _Refused(held)
        # The budget first: an example it refuses makes no call, so takes none of the minute's.
        worst = _worst(bound)
        budget = self.budget
        if not budget.fits(*worst):
            carried = (f", ${budget.carried:.4f} of it the worst case of calls in flight when an earlier "
                       "process stopped" if budget.carried else "")
            raise _Refused(LaneOutcome("over_budget", message=(
                f"example {example.id!r}: over --llm-budget-usd-per-day {budget.usd_per_day:g} "
                f"(${budget.spent:.4f} spent{carried}, and ${budget.reserved:.4f} reserved today; this "
                f"call would reserve up to ${budget.prices.cost(*worst):.4f})")))
        if not self.bucket.try_acquire(bound.calls):
            calls = f" (it needs {bound.calls} calls)" if bound.calls > 1 else ""
            raise _Refused(LaneOutcome("throttled",
                                       message=f"example {example.id!r}: over --llm-max-per-minute{calls}"))
        admission.bound, admission.reservation, admission.sent = bound, budget.reserve(*worst), self._clock()

    def _hold(self, asked: float | None, sent: float) -> None:
        """After a call `sent` then ended in a 429 or 529, make no call until the wait it `asked` for has
        passed (at most `LONGEST_HOLD`), or, when it asked for none, a backoff doubling from `FIRST_BACKOFF`
        with each burst of such calls until a call gets its verdicts: an overloaded API answers timeouts and
        500s between its 529s, which end no overload, so they must not start the backoff afresh. The SDK
        waits only between a call's own attempts, and not at all past the call's bound: the next examples'
        calls went out at once, each into the same refusal, up to --llm-max-per-minute calls of three
        attempts each, against limits the app's own calls may share. A wait asked under `FIRST_BACKOFF` is
        read as none: a gateway asking 1 ms had the lane send every example into the same refusal, the
        backoff never begun."""
        if asked is None or asked < FIRST_BACKOFF:
            self._unasked += 1
            wait = self._burst_wait if sent <= self._burst_began else self._next_burst()
            calls = f"{self._unasked} call{'s' * (self._unasked != 1)}"
            little = "" if asked is None else f" (or one under {FIRST_BACKOFF:g}s)"
            why = (f"{calls} ended in a 429 or 529 asking for no wait{little}, none getting its verdicts "
                   f"since the first: backing off {wait:g}s")
        else:
            wait = min(asked, LONGEST_HOLD)
            capped = f", held {LONGEST_HOLD:g}s at most" if asked > LONGEST_HOLD else ""
            why = (f"the API's last 429 or 529 asked to wait {shown_wait(asked)} before another "
                   f"request{capped}")
        until = self._clock() + wait
        if until >= self._held_until:  # equal: the same burst, its count now one more
            self._held_until, self._why_held = until, why

    def _next_burst(self) -> float:
        """Begin a burst of refusals asking for no wait, held one step of the backoff longer than the last.
        Only a call sent after a burst began starts the next: the calls of --llm-concurrency consumers in
        flight together are refused together, and doubling for each had held 4 of them 8 s, not 1 s, and the
        next 4 the 60 s cap."""
        wait, self._backoff = self._backoff, min(2 * self._backoff, LONGEST_BACKOFF)
        self._burst_began, self._burst_wait = self._clock(), wait
        return wait

    def _held(self, example: Example) -> LaneOutcome | None:
        """`rate_limited`, with no call, while the lane is held (`_hold`); None when it is not."""
        left = self._held_until - self._clock()
        if left <= 0:
            return None
        return LaneOutcome("rate_limited", message=(
            f"example {example.id!r}: no call made: {self._why_held}; {math.ceil(left)}s left"))

    def _ok(self, example: Example, verdicts: tuple[ClaimVerdict, ...], cost: float, took: float | None, *,
            called: bool) -> LaneOutcome:
        """`called`: a call was made (`ok`, and its time); else `cached`, with no time, being no call."""
        result = score_example(example, verdicts, self._k, self.judge)
        return LaneOutcome("ok", result, cost, took) if called else LaneOutcome("cached", result, cost)

    def _cancelled(self, example: Example, reservation: Reservation | None, bound: TokenBound | None,
                   cancelled: asyncio.CancelledError, took: float) -> None:
        """Count a call cancelled midway as one in flight when a process is killed counts: at the worst case
        of what it may have had billed, said apart as never billed (`DailyBudget.carried`: the budget file's
        `unbilled_usd`, the next start's line), and, as a timeout's worst case is, in the call's cost. Was:
        the whole reservation (every attempt of every call) charged as spent, unsaid, with no outcome and
        no cost counted. What the call had sent is the judge's to say: the `Usage` it puts on the
        cancellation as `usage` (billed replies, and the attempts sent and unanswered, the one in flight
        among them); without it, every attempt the reservation allows for."""
        said = getattr(cancelled, "usage", None)
        usage = said if isinstance(said, Usage) else None
        cost = self._settle(example, reservation, bound, usage, stopped=True)
        replied = getattr(cancelled, "replied", 0)
        if reservation is None or (usage == Usage() and not replied):
            # No call announced, or none made: a caller waiting for another's call for the same answer
            # sent nothing, and counted, it was a failed call that never was.
            return
        if usage == Usage():
            # Every attempt answered with an error, which bills nothing (a 429, a 529), and cut off in the
            # wait before a retry: a call all the same, which had gone uncounted and unsaid.
            what = f"$0, its {replied} attempt{'s' * (replied != 1)} answered with errors, which bill nothing"
            billed = ""
        elif usage is None:
            what = f"the worst case of every attempt it may have made, ${cost:.4f}"
            billed = ""
        else:
            unbilled = max(0.0, cost - self.budget.prices.cost(usage.input_tokens, usage.output_tokens))
            sent, replies = usage.unanswered, usage.calls
            what = (f"the worst case of the {sent} attempt{'s' * (sent != 1)} it sent with no reply, "
                    f"${unbilled:.4f}")
            billed = (f" (besides ${cost - unbilled:.4f} its {replies} earlier "
                      f"repl{'ies' if replies != 1 else 'y'} billed)" if replies else "")
        outcome = LaneOutcome("error", None, cost, took, (
            f"example {example.id!r}: call cancelled midway, ragmon stopping (its --drain-seconds passed); "
            f"counted at {what}, never billed as far as ragmon knows{billed}"))
        self._log(outcome)
        if self.on_cancelled is not None:
            self.on_cancelled(outcome)

    def _settle(self, example: Example, reservation: Reservation | None, bound: TokenBound | None,
                usage: Usage | None, *, stopped: bool = False) -> float:
        """Swap the reservation for the bill (`_counted`); a call whose attempts are unknown (`usage is None`:
        cancelled, or a bug) counts at the whole reservation. A token count no float holds is no bill anyone
        can read: each reply billed counts as an unanswered attempt instead (it crashed the settlement, and
        the call was charged nothing). `stopped`: the call was cancelled midway; what was not billed is said
        apart (`_cancelled`)."""
        budget, prices = self.budget, self.budget.prices
        if usage is not None and not math.isfinite(prices.cost(usage.input_tokens, usage.output_tokens)):
            usage = replace(usage, input_tokens=0, output_tokens=0,
                            unanswered=usage.unanswered + max(usage.calls, 1))
            self._warn("unreadable_bill", (
                f"Claude judge: example {example.id!r}: the API reported a token count no float holds: "
                "counted as a bill nobody can read, at the worst case of an attempt"))
        if usage is None:
            billed = (0, 0)
            if reservation is None or bound is None:
                inputs = outputs = 0
            else:
                inputs, outputs = reservation.input_tokens, reservation.output_tokens
        else:
            billed = (usage.input_tokens, usage.output_tokens)
            inputs, outputs = self._counted(usage, reservation, bound)
        if reservation is None:
            cost = budget.charge(inputs, outputs) if inputs or outputs else 0.0
        else:
            unbilled = prices.cost(inputs, outputs) - prices.cost(*billed) if stopped else 0.0
            cost = budget.settle(reservation, inputs, outputs, unbilled=unbilled)
        self._overspent(example, reservation, usage, cost)
        return cost

    def _counted(self, usage: Usage, reservation: Reservation | None,
                 bound: TokenBound | None) -> tuple[int, int]:
        """The tokens a call that returned `usage` is counted at: those billed plus each unanswered attempt
        (an unreadable reply among them) at the bound of one attempt of the largest call, each token at the
        dearest rate a known price bills it (`DEAREST_SURCHARGE`, as the reservation is: where the attempt
        ran nobody said; at the base prices a US-only workspace's timeouts were counted a tenth low), but no
        more than the reservation, which bounds every attempt of every call (only tokens the API reported
        may pass it). A reply at a price ragmon does not know (`Usage.unpriced`) counts the call at all of
        the reservation, the most the budget let it cost: its bill is a multiple of the base prices nobody
        reported (6x in fast mode on Opus 4.6), which one more attempt at its worst case had counted low."""
        if bound is None:  # no call of its own was let go (`_admit`): nothing unanswered to count
            return usage.input_tokens, usage.output_tokens
        attempt_inputs, attempt_outputs = (math.ceil(DEAREST_SURCHARGE * bound.call_input_tokens),
                                           math.ceil(DEAREST_SURCHARGE * bound.call_output_tokens))
        inputs = usage.input_tokens + usage.unanswered * attempt_inputs
        outputs = usage.output_tokens + usage.unanswered * attempt_outputs
        if reservation is not None:
            # At the largest call's worst case, the unanswered attempts of a smaller call add up past it.
            inputs = max(usage.input_tokens, min(inputs, reservation.input_tokens))
            outputs = max(usage.output_tokens, min(outputs, reservation.output_tokens))
        if usage.unpriced:
            most_inputs, most_outputs = _worst(bound)
            inputs, outputs = max(inputs, most_inputs), max(outputs, most_outputs)
        return inputs, outputs

    def _overspent(self, example: Example, reservation: Reservation | None, usage: Usage | None,
                   cost: float) -> None:
        """Warn when a bill passed its reservation or the day's cap, which only tokens the API reported past
        the judge's bound can do: the cap was promised never to be passed, and the counters alone would
        show a cost, not that the promise failed. One line a minute of each, like the outcomes'."""
        if reservation is not None and usage is not None and cost > reservation.usd:
            self._warn("over_reservation", (
                f"Claude judge: example {example.id!r} billed ${cost:.4f}, more than the "
                f"${reservation.usd:.4f} reserved for it: the API billed as many as {usage.input_tokens:,} "
                f"input and {usage.output_tokens:,} output tokens, past the {reservation.input_tokens:,} and "
                f"{reservation.output_tokens:,} reserved (every attempt's bound, at "
                f"{float(DEAREST_SURCHARGE):g}x)"))
        budget = self.budget
        if budget.spent > budget.usd_per_day:
            self._warn("over_cap", (
                f"Claude judge: ${budget.spent:.4f} spent today, past --llm-budget-usd-per-day "
                f"{budget.usd_per_day:g} (example {example.id!r} billed ${cost:.4f}); no further call is "
                "made before the UTC day ends"))

    def _warn(self, key: str, line: str) -> None:
        if (suppressed := self._lines.admit(key)) is not None:
            log.warning(more_like_it(line, suppressed), extra={"suppressed": suppressed})


# --- `ragmon serve` options -----------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    llm = parser.add_argument_group("LLM judge (Claude; needs ANTHROPIC_API_KEY)")
    llm.add_argument("--llm-sample-rate", type=fraction, default=0.0,
                     help="share of the RAG traces ragmon receives that Claude judges too, within the "
                          "lexical sample, at most --sample-rate (default 0: off)")
    _add_lane_settings(llm)


def _add_lane_settings(llm: argparse._ActionsContainer) -> None:
    """The flags only the Claude lane reads, apart: `_check_lane_flags` reads their names."""
    llm.add_argument("--llm-max-per-minute", type=non_negative, default=60.0, metavar="N",
                     help="Claude calls per minute, a long answer's several calls each counted; the rest "
                          "are counted throttled (default 60)")
    llm.add_argument("--llm-budget-usd-per-day", type=non_negative, default=5.0, metavar="USD",
                     help="hard cap on Claude USD per UTC day; the rest are counted over_budget (default 5)")
    llm.add_argument("--llm-budget-file", type=given_file, metavar="FILE",
                     help="where the day's spend is kept, so a restarted sidecar resumes the day's cap "
                          "rather than starting it afresh (one process per file; default: none, the cap "
                          "is per process)")
    add_cli_arguments(llm, timeout="30s")


def lane_from_args(args: argparse.Namespace, *, sample_rate: float, k: int) -> ClaudeLane | None:
    """The Claude lane `ragmon serve` was asked for, or None when --llm-sample-rate is 0."""
    if args.llm_sample_rate <= 0:
        _check_lane_flags(args)
        return None
    if args.llm_sample_rate > sample_rate:
        claude_rate = flag_of(args, "--llm-sample-rate").given(f"{args.llm_sample_rate:g}")
        raise InputError(f"{claude_rate} exceeds {flag_of(args, '--sample-rate').given(f'{sample_rate:g}')}: "
                         "Claude judges a subset of the lexically scored traces")
    if args.llm_max_per_minute <= 0:
        # A bucket of rate 0 lets no call through (`TokenBucket`): Claude was on, counting every sampled
        # example throttled all day, with one info line a minute to say why, as a budget of $0 is refused.
        raise InputError(f"{flag_of(args, '--llm-max-per-minute').given('0')} lets no Claude call through, "
                         f"while {flag_of(args, '--llm-sample-rate').given(f'{args.llm_sample_rate:g}')} "
                         "gives Claude a share of traces: each would be counted throttled; give a rate of "
                         "calls, or set --llm-sample-rate 0 to turn Claude off")
    prices = prices_from_args(args)
    if prices is None:
        model = flag_of(args, "--llm-model").given(repr(args.llm_model))
        raise InputError(f"no known price for {model}: set --llm-price-input and --llm-price-output (USD per "
                         "million tokens) so the budget can be enforced")
    claude = judge_from_args(args)
    budget = None
    try:
        path = args.llm_budget_file
        record = None if path is None else BudgetFile(path, flag_of(args, "--llm-budget-file"))
        budget = DailyBudget(args.llm_budget_usd_per_day, prices, record=record)
        check_budget(claude, budget, flag_of(args, "--llm-budget-usd-per-day"))
        budget.start_record()
    except InputError:
        claude.close()
        if budget is not None:
            budget.close()
        raise
    return ClaudeLane(claude, rate=args.llm_sample_rate, concurrency=args.llm_concurrency, k=k,
                      bucket=TokenBucket(args.llm_max_per_minute), budget=budget)


def _check_lane_flags(args: argparse.Namespace) -> None:
    """With the lane off, a flag only it reads, typed, is refused before the sidecar starts. Ignored without
    a word, `--llm-budget-usd-per-day 1 --llm-model claude-x` typed with --llm-sample-rate forgotten had the
    user believe Claude judged a share of the traffic. Typed only (`typed_among`): a RAGMON_* variable is a
    default every replica of a chart is given, read by those that turn the lane on."""
    typed = typed_among(args, long_options(_add_lane_settings))
    if not typed:
        return
    rate = flag_of(args, "--llm-sample-rate")
    chosen = rate.variable is not None or bool(typed_among(args, [rate.option]))
    off = rate.given("0") + ("" if chosen else ", the default")
    them = typed.either("it", "them")
    raise InputError(f"{typed} {typed.either('is', 'are')} given with the Claude judge off at {off}: only "
                     f"the Claude judge reads {them}, and it judges no trace; give it a share of traces "
                     f"(--llm-sample-rate 0.02, say), or leave {them} out")


FEW_CALLS_A_DAY = 10
"""Below this many worst-case reservations a day, `check_budget` warns. A reservation is the worst case of
the largest request (~$0.15 with claude-haiku-4-5, 78% of it its 3 x ~36,000 input tokens), while a typical
call bills a few tenths of a cent, so the default $5 (32 of them) judges far more than 32 calls; below 10
a handful of large examples in flight hold the whole day's budget and others are refused meanwhile."""


def check_budget(claude: ClaudeJudge, budget: DailyBudget, setting: Flag) -> None:
    """Refuse a daily budget that cannot hold what one large example reserves: all its calls,
    as the lane reserves them (`ClaudeJudge.largest_example_bound`), since every such trace would be counted
    over_budget all day, and nothing else would say so. Sized by one call, as it was, a budget passing it
    could not hold a long answer in Chinese, judged in four calls. Warn when it holds few calls. `setting`
    is named, with the variable that gave it, if one did."""
    prices = budget.prices
    flag = setting.given(f"{budget.usd_per_day:g}")
    example = claude.largest_example_bound()
    least = _reserved(example, prices)
    if budget.usd_per_day < least:
        given = (f"give it at least ${math.ceil(least * 100) / 100:.2f}" if math.isfinite(least)
                 else "no budget can at these prices")  # they overflow a float: 1e305 per million
        made = f"{example.calls} call{'s' * (example.calls != 1)}"
        raise InputError(
            f"{flag} cannot cover one large Claude example: it reserves up to ${least:.4f} "
            f"until it is billed ({_tokens(example, prices)} over its {made}, for documents clipped at "
            f"{claude.max_total_chars:,} characters and an answer of {CLAIMS_PER_CALL} claims of "
            f"{QUOTE_CHARS} characters in Chinese or Japanese, whose verdicts take {made} at max_tokens "
            f"{claude.max_tokens:,}; an answer of more claims, or of shorter ones, takes more calls, each "
            f"sending the documents again); {given}")
    log_resumed(budget, least)
    call = claude.largest_request_bound()
    worst = _reserved(call, prices)
    if budget.usd_per_day >= worst * FEW_CALLS_A_DAY:  # prices of 0 too: any budget holds every call
        return
    calls = int(budget.usd_per_day // worst)  # small here: a budget of 1e308 never gets this far
    log.warning(f"{flag} holds only {calls} Claude call{'s' * (calls != 1)} a day at the worst case: "
                f"each call reserves up to ${worst:.4f} until it is billed ({_tokens(call, prices)}, for "
                f"documents clipped at {claude.max_total_chars:,} characters and a "
                f"{LARGEST_ANSWER_CHARS:,}-character answer); calls bill less than they reserve, so more are "
                "made, but one made while the reservations in flight fill the budget is counted over_budget")


def _worst(bound: TokenBound) -> tuple[int, int]:
    """Input and output tokens the lane reserves for an example of this bound: every attempt's worst case, at
    the dearest rate a reply at a known price bills its tokens at (`DEAREST_SURCHARGE`), rounded up. Where
    the call will run is told only by its reply: at the base prices, a US-only reply that used its
    `max_tokens` billed past what its call reserved, and with no retries to spare, past the day's cap."""
    return (math.ceil(DEAREST_SURCHARGE * bound.input_tokens * bound.attempts),
            math.ceil(DEAREST_SURCHARGE * bound.output_tokens * bound.attempts))


def _reserved(bound: TokenBound, prices: Prices) -> float:
    return prices.cost(*_worst(bound))


def _tokens(bound: TokenBound, prices: Prices) -> str:
    return (f"{bound.attempts} attempts x ({bound.input_tokens:,} input + {bound.output_tokens:,} output "
            f"tokens) at ${prices.input_per_mtok:g} / ${prices.output_per_mtok:g} per million, "
            f"x{float(DEAREST_SURCHARGE):g} as US-only inference bills")


def log_resumed(budget: DailyBudget, worst: float) -> None:
    """When the day resumed from a budget file: say that it did not start afresh, and warn when what is
    left cannot hold the largest example (`check_budget`), else a restarted sidecar would count every
    such Claude sample over_budget with no line saying why."""
    resumed, record = budget.resumed, budget.record
    if resumed is None or record is None:
        return
    left = max(0.0, budget.usd_per_day - resumed.usd)
    unbilled = (f" (${resumed.unbilled:.4f} of it the worst case of calls in flight when a process stopped, "
                "never billed as far as ragmon knows)" if resumed.unbilled else "")
    line = (f"Claude judge: ${resumed.usd:.4f} of --llm-budget-usd-per-day {budget.usd_per_day:g} already "
            f"committed on {day_name(resumed.day)} (UTC){unbilled}, resumed from {record.named}; "
            f"${left:.4f} left")
    if left < worst:
        log.warning(f"{line}, less than the largest example reserves (${worst:.4f}): such examples are "
                    f"counted over_budget until {day_name(resumed.day + 1)} 00:00 UTC")
    else:
        log.info(line)
