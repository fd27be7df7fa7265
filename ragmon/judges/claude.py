"""Claude as a groundedness judge: one forced tool call per example, fail-closed, cached, injection-safe.

Why it is shaped this way:

- The claims of an example go out in one Messages call with a forced tool (`tool_choice` type `tool`),
  so the reply is structured data, never prose to be scraped, and the cost is one call; a long answer in
  several, of at most `CLAIMS_PER_CALL` claims (fewer below the default `max_tokens`: `VERDICT_TOKENS`)
  and `LARGEST_ANSWER_CHARS` characters of them each, since one reply holding every verdict would outgrow
  `max_tokens` and be cut off, every time, however paid for.
- Retrieved documents, the question and the claims are untrusted: an app's corpus or its users can
  write "ignore previous instructions". They travel fenced in tags whose look-alikes are neutralised,
  and the system prompt says nothing inside a fence is an instruction.
- Documents are clipped to bound a call's cost, their tags and ids counted with their text (a long id
  shown shortened), never silently: the prompt marks a document cut and counts those left out, and an
  unsupported verdict's reason names them for the user, since a claim supported past the cut would
  otherwise read as a hallucination.
- Fail-closed: a reply that does not match the claims sent (a copy of a claim that could be of another),
  lacks the tool call, says anything besides it (text, another tool's call), ended for any reason but the
  tool call (cut off, refused, paused), cannot be read (a key given twice in one JSON object too) or is
  malformed raises `ClaudeJudgeError`; nothing is ever guessed to be supported. A supporting id not
  among the documents sent is discarded, and a "supported" verdict left with no real document behind it
  is not support: its reason says ragmon overrode it, and it is not cached on disk, so the next run asks.
- Text quoted from a reply (an error body, a reason) has the credentials the call sent redacted: a
  gateway may echo the key back, and the text goes to stderr, reports and logs.
- Verdicts are cached per claim under a hash of (model, prompt version, question, every claim of the
  answer and the claim's place among them, documents as sent after clipping, how many were left out), in
  memory and optionally on disk, so CI re-runs and repeated answers do not re-bill, and a verdict once
  given stays given; an answer changed anywhere is judged again whole, since Claude reads each claim in
  its answer ("It" is whatever the claims before it name). Only the claims missing from the cache are
  sent (those of a long answer's later calls, when an earlier one was paid for and a later one failed),
  and callers asking for the same at the same moment share one call (`_Flights`): a caller's `admit` (the
  sidecar's budget and rate) is asked only for the calls it makes itself. A cache directory
  is made and proved writable when the judge is built, before anything is paid for; a write that fails
  later (disk full) costs a warning, never the verdict.
- No temperature: API version 2026-10-21, which the SDK speaks, removed the sampling parameters (any
  value is a 400), so `settings()` records `temperature: None`; repeatability comes from the cache.
- Retries (429, 529, other 5xx, timeouts, connection errors) are the SDK's own: exponential backoff with
  jitter, honouring `retry-after`/`retry-after-ms`, `max_retries` times. An attempt sent that timed out or
  was cut off (a 504 from the API or a gateway too) may still have run and been billed, so each call counts
  its unanswered attempts (`Usage.unanswered`) for a budget to settle; one whose request never went out
  whole costs nothing, nor does one cancelled (the sidecar's drain) before its request began to go out.
- `timeout` bounds each attempt's whole reply, not each read of it as the SDK's own timeout does, so a
  reply trickled a few bytes at a time cannot hold a call open past it (`_deadline_client`); and a call, its
  attempts and the waits the API asks for between them, to `timeout` x attempts (`_Attempts`).
- An API key or base URL no request could be sent with, or no key at all, is refused when the judge is
  built, before the SDK is imported and before a cache directory is made.
- `anthropic` is imported when a judge is built, not with this module: it takes seconds to import, and
  neither `import ragmon` nor a lexical-only run should pay for it, or install it: it is the `claude`
  extra, and building a judge without it raises MissingExtra saying so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import email.utils
import functools
import importlib.util
import json
import logging
import math
import os
import re
import sys
import threading
import time
import unicodedata
import urllib.parse
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from fractions import Fraction
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmon.budget import Prices
from ragmon.errors import MissingExtra, RagmonError, printable
from ragmon.jsontext import replace_lone_surrogates
from ragmon.judges.base import JudgeError
from ragmon.judges.claude_prompt import (
    PROMPT_VERSION,
    QUOTE_CHARS,
    SYSTEM_PROMPT,
    TOOL,
    TOOL_NAME,
    Question,
    SentDocument,
    build_user_prompt,
    cache_key,
    neutralise,
    sent_documents,
)
from ragmon.judges.loop_thread import LoopThread
from ragmon.judges.verdict_cache import VerdictCache
from ragmon.model import Claim, ClaimVerdict, Context, Example
from ragmon.options import number, positive_duration, positive_int
from ragmon.report.text import clip

if TYPE_CHECKING:
    import anthropic
    import httpx2

log = logging.getLogger("ragmon.judges.claude")

DEFAULT_MODEL = "claude-haiku-4-5"
"""The cheapest current model, fast enough for a sidecar, and one without thinking on by default (the
API does not combine thinking with a forced tool choice); any model id can be passed instead."""

LARGEST_ANSWER_CHARS = 4_000
"""The answer length `ClaudeJudge.largest_request_bound` assumes: as long as the longest document sent.
Answers are not clipped (every claim is judged): a longer one is judged in several calls, none of which
carries more than this many characters of claims (unless one claim alone is longer)."""

CLAIMS_PER_CALL = 20
"""Claims judged in one call at most: twenty verdicts, each copying back at most `QUOTE_CHARS` of its claim
with a one-sentence reason, fit the default 2,048 output tokens (~90 tokens a verdict)."""

VERDICT_TOKENS = 50
"""Output tokens of a verdict besides the claim it copies back (its reason, its fields). With the copy,
`_verdict_tokens`, a 200-character English claim's verdict is allowed 100 (~90, `CLAIMS_PER_CALL`), and a
call carries claims whose verdicts fit in `max_tokens`: twenty such at the default 2,048, fewer at a smaller
`max_tokens` or in a script whose characters are tokens of their own (twenty Chinese claims of 100
characters had been sent in one call, their verdicts past 2,048 tokens: cut off every time, paid for)."""

TOOL_USE_OVERHEAD_TOKENS = 1_000
"""Tokens the API adds for tool use and message framing, rounded well up (documented as a few hundred)."""

KNOWN_PRICES_USD_PER_MTOK: Mapping[str, tuple[float, float]] = {
    # (input, output) USD per million tokens, from https://platform.claude.com/docs/en/models (Nov 2026).
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-sonnet-5": (2.0, 10.0),
    "claude-opus-5": (5.0, 25.0),
    "claude-opus-5-5": (4.0, 20.0),
    "claude-fable-5-1": (10.0, 50.0),
}

CACHE_WRITE_5M = Fraction(5, 4)
"""A token written to a 5-minute prompt cache, in base input tokens; `CACHE_WRITE_1H` one written to a 1-hour
cache, `CACHE_READ` one read from either (https://platform.claude.com/docs/en/about-claude/pricing). The judge
asks for no caching, but a gateway in between may add it, and the reply bills it: counted at the base rate,
writes had cost up to half as much as billed, and reads ten times as much."""
CACHE_WRITE_1H = Fraction(2)
CACHE_READ = Fraction(1, 10)

GEO_SURCHARGES: Mapping[str | None, Fraction] = {
    None: Fraction(1), "global": Fraction(1), "not_available": Fraction(1), "us": Fraction(11, 10)}
"""What every token of a reply costs, by the `inference_geo` it ran in (its `usage` says which,
https://platform.claude.com/docs/en/manage-claude/data-residency): US-only inference is billed at 1.1x
(https://docs.aws.amazon.com/claude-platform/latest/userguide/data-residency.html); models without the
parameter say `not_available`. A geography not listed has a price ragmon does not know (`_unpriced`)."""

DEAREST_SURCHARGE = max(GEO_SURCHARGES.values())
"""The most a reply at a price ragmon knows bills each token of its request and reply, in base tokens (US-only
inference, 1.1x): what a call's worst case is priced at before anyone knows where it will run
(`ragmon.llm_lane`). A bound at the base prices was no bound: with no retries, a US-only reply using its
`max_tokens` billed past the reservation, and past the day's cap."""


@dataclass(frozen=True, slots=True)
class Usage:
    """What one judging billed; `calls` counts billed replies (0 when every verdict came from the cache).

    `unanswered` counts attempts sent that got no reply (timed out, or the connection was cut; a 504 or 524
    says the same, `TIMED_OUT_STATUSES`) or one whose bill could not be read (no usage, or a price ragmon
    does not know): the API may have run each to completion and billed it, for an amount nobody reported, so a
    budget counts each at its worst case. Tokens are counted as billed, at the model's base input and
    output prices (`_usage`): a token written to a prompt cache is up to 2 input tokens, one read from it a
    tenth of one, and US-only inference adds a tenth to each; a budget and `ragmon calibrate` price them
    with `Prices.cost` like any other.
    `unpriced` counts the replies at a price ragmon does not know (`_unpriced`), each one of `unanswered`
    too: fast mode bills a multiple of the base prices that differs by model (6x on Opus 4.6), so one
    attempt's worst case at the base prices was no bound on it, and a budget counts such a call at all it
    reserved, which its bill may still exceed.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    unanswered: int = 0
    unpriced: int = 0


@dataclass(frozen=True, slots=True)
class TokenBound:
    """An upper bound on the tokens judging an example can bill, for reserving budget before it: one attempt
    at each of its calls (a long answer makes several), summed, and how many attempts (the first and the
    SDK's retries) each call may make. `call_input_tokens` and `call_output_tokens` bound one attempt of
    its largest call: what an attempt that got no reply is counted at, whichever call it belonged to.
    `calls`: how many calls were summed, for a message to say."""

    input_tokens: int
    output_tokens: int
    attempts: int
    call_input_tokens: int
    call_output_tokens: int
    calls: int = 1


class ClaudeJudgeError(JudgeError):
    """A Claude call that gave no verdicts. `kind` is the outcome a caller counts (error, timeout,
    rate_limited); `usage` is what it billed: zero tokens for an error status or a request never sent (the
    API bills neither; a 504 or 524 is an attempt unanswered, `TIMED_OUT_STATUSES`), the reply's usage for
    a malformed reply, plus in both the attempts sent that got no reply (`Usage.unanswered`). A reply whose
    bill cannot be read (not JSON, no usage) is one more unanswered attempt: its cost is unknown, but no
    more than one attempt's worst case."""

    def __init__(self, message: str, *, kind: str = "error", usage: Usage = Usage(),
                 retry_after: float | None = None, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable
        self.kind = kind
        self.usage = usage
        self.retry_after = retry_after
        """Seconds the API's last reply (a 429 or 529) asked to wait before another request, None if it
        asked for none: the SDK honours it between a call's own attempts only, so a caller making more
        calls (the sidecar's lane) must honour it too, or send them into the same refusal."""



@dataclass(frozen=True, slots=True)
class _Plan:
    """One example's judging: verdicts the cache already had, and the request for the rest (if any)."""

    example_id: str
    claims: tuple[Claim, ...]
    keys: tuple[str, ...]
    cached: Mapping[int, ClaimVerdict]
    pending: tuple[int, ...]
    documents: tuple[SentDocument, ...]
    clipped: str | None
    """What clipping kept from Claude, for the reason of a claim it found unsupported; None if nothing."""
    batches: tuple[tuple[int, ...], ...]
    """`pending` cut into the claims of each call."""
    requests: tuple[Mapping[str, Any], ...]
    """One per batch; none when the cache had every verdict."""

    @property
    def asked(self) -> tuple[str, ...]:
        """The cache keys the requests would fill: two plans asking the same can share their calls."""
        return tuple(self.keys[i] for i in self.pending)


class _Flights:
    """Calls in progress, under each cache key they will fill, so that callers asking for the same verdicts
    at the same moment (tasks of an event loop, threads sharing a judge) share one call: the first one out
    pays, the others (any asking for a verdict it is paying for) wait for it, read its verdicts from the
    cache, then ask for the rest. Without this a concurrent replay of a golden set with repeated rows, or
    threads scoring the same examples, would pay for each.

    A failed call caches nothing: its waiters find their verdicts still missing and make their own call,
    one leading the others again. Each caller gets the chance it would have had alone; the cost is that
    while the API is down, callers asking the same fail one after the other rather than all at once.

    Each event loop is a lane of its own (the blocking methods' calls all run on the judge's `LoopThread`):
    a task can wait only for a call of its own loop. An entry lives as long as its call (removed however
    the call ends), so the map holds no more than the keys of the calls in flight."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[tuple[int, str], Future[None]] = {}

    def board(self, lane: int, plan: Callable[[], _Plan]) -> tuple[_Plan, Future[None] | None]:
        """A plan, and the call in progress to wait for before planning again; with None, the plan's calls
        (if any) are this caller's to make, in flight until its `flying` block ends.

        Planned under the lock: a call ending between the cache lookups and the check for calls in progress
        would be paid for twice, since it caches its verdicts before it lands."""
        with self._lock:
            fresh = plan()
            calls = (self._calls.get((lane, key)) for key in fresh.asked)
            running = next((call for call in calls if call is not None), None)
            if running is None and fresh.requests:
                self._calls.update(dict.fromkeys(((lane, key) for key in fresh.asked), Future()))
            return fresh, running

    @contextlib.contextmanager
    def flying(self, lane: int, plan: _Plan) -> Iterator[None]:
        """Wakes the callers waiting for the plan's calls once they end, paid for or not."""
        try:
            yield
        finally:
            if plan.requests:
                with self._lock:
                    flights = {self._calls.pop((lane, key)) for key in plan.asked}
                for flight in flights:  # the one this plan boarded
                    flight.set_result(None)


OVERRIDDEN = "[ragmon: counted unsupported: Claude said supported without naming a document it was sent]"
"""Added to the reason of a "supported" verdict left with no document sent behind it, whose reason, the
model's own ("The documents state this"), would otherwise contradict the verdict shown."""

NOTED_ID_CHARS = 80
"""Characters of a document's id a clipping note shows at most (`_clipping`)."""


def _clipping(question: Question, asked: str, contexts: Sequence[Context], documents: Sequence[SentDocument],
              limits: str) -> str | None:
    """The note telling a user which documents Claude saw cut or not at all, naming at most a few of each,
    and whether it saw the question (`asked`) cut: clipping is silent otherwise, and a claim supported past
    the cut would read as a hallucination (a question cut was marked to the model alone). Ids are named by
    their first `NOTED_ID_CHARS`: the note is added to every claim's reason, and five URLs with long query
    strings had made each reason kilobytes long."""
    cut = [f"{clip(d.context.id, NOTED_ID_CHARS)} at {len(d.context.text):,} of {len(c.text):,} characters"
           for d, c in zip(documents, contexts, strict=False) if d.truncated]
    left_out = [clip(c.id, NOTED_ID_CHARS) for c in contexts[len(documents):]]
    parts = [f"{len(items)} {what} ({_some(items)})" for what, items in (("cut", cut), ("left out", left_out))
             if items]
    seen = "documents"
    if question.truncated:
        seen = "documents and the question" if parts else "the question"
        parts.append(f"the question cut at {len(question.text):,} of {len(asked):,} characters")
    return f"[ragmon: Claude saw {seen} clipped ({limits}): {'; '.join(parts)}]" if parts else None


def _some(items: Sequence[str], shown: int = 5) -> str:
    """A list long enough to say which, short enough for a reason: 500 chunks left out are mostly a count."""
    return ", ".join(items[:shown]) + (f", and {len(items) - shown} more" if len(items) > shown else "")


def _quoted(value: object) -> str:
    """What a reply gave where ragmon expected something else, quoted in an error to its first
    `QUOTE_CHARS` characters: a gateway's 1 MB "claim" had gone whole into stderr, the JSON report's
    one-line `error` and the sidecar's log, and the claim sent beside it as well."""
    if isinstance(value, str):
        if len(value) <= QUOTE_CHARS:
            return repr(value)
        return f"{value[:QUOTE_CHARS]!r}…({len(value) - QUOTE_CHARS:,} more characters)"
    said = repr(value)  # a list, an object or a number where a text was asked for
    return said if len(said) <= QUOTE_CHARS else f"{said[:QUOTE_CHARS]}…"


def _noted(reason: str | None, note: str) -> str:
    """A verdict's reason with what ragmon adds to it after the model's own words."""
    return f"{reason} {note}" if reason else note


def _batches(claims: Sequence[Claim], pending: Sequence[int], max_tokens: int) -> tuple[tuple[int, ...], ...]:
    """Consecutive claims, at most CLAIMS_PER_CALL, LARGEST_ANSWER_CHARS characters and verdicts of
    `max_tokens` (`_verdict_tokens`) each, or one claim."""
    batches: list[list[int]] = []
    chars = tokens = 0
    for i in pending:
        size, verdict = len(claims[i].text), _verdict_tokens(claims[i].text)
        if (not batches or len(batches[-1]) >= CLAIMS_PER_CALL or chars + size > LARGEST_ANSWER_CHARS
                or tokens + verdict > max_tokens):
            batches.append([])
            chars = tokens = 0
        batches[-1].append(i)
        chars += size
        tokens += verdict
    return tuple(tuple(batch) for batch in batches)


def _verdict_tokens(claim: str) -> int:
    """Output tokens a verdict on `claim` is allowed: `VERDICT_TOKENS`, and its copy of the claim's first
    QUOTE_CHARS characters at 4 ASCII characters a token and 1.5 tokens for any other: Chinese or Japanese
    text is about a token a character or more, and an estimate short of the reply costs a paid call cut off
    (more calls cost the documents sent again, far less)."""
    copied = claim[:QUOTE_CHARS]
    other = len(copied) - len(copied.encode("ascii", "ignore"))
    return VERDICT_TOKENS + math.ceil((len(copied) - other) / 4 + 1.5 * other)


WIDE = "\u4e00"
"""A character of a script whose characters are tokens each (Chinese "one"): the claims of the examples
the largest verdicts are sized by."""

SMALLEST_MAX_TOKENS = _verdict_tokens(WIDE * QUOTE_CHARS)
"""The output tokens a single verdict may take (350): a claim of QUOTE_CHARS characters or more in Chinese or
Japanese, copied back, with its reason. A `max_tokens` below it sends such a claim alone in a call, its reply
cut off at `max_tokens` every time, each one paid for."""


API_ERROR_CHARS = 300
"""Characters of what an error reply said that its message quotes at most: the API's own error (its type
and message) is well under it; a proxy's HTML page is not."""


def _status_error(status: int, body: object, credentials: Iterable[str]) -> str:
    """An error reply, said on one line of bounded length: its status, and the API's error type and
    message when the body is the API's JSON error, else the beginning of the body. The SDK's message holds
    the whole body: a proxy's 52 KB "Bad gateway" page went, one line, whole into stderr and into the
    JSON report's one-line `error`. The credentials the call sent are redacted before the cut, which could
    otherwise leave the beginning of one."""
    error = body.get("error") if isinstance(body, Mapping) else None
    fields = [error.get(k) for k in ("type", "message")] if isinstance(error, Mapping) else []
    if said := [f for f in fields if isinstance(f, str)]:
        text = ": ".join(said)
    else:  # another shape of JSON (a proxy's), or no JSON at all (the SDK gives it as the text it was)
        text = body if isinstance(body, str) else "" if body is None else json.dumps(body, ensure_ascii=False)
    flat = _redacted(" ".join(text.split()), credentials)
    if len(flat) > API_ERROR_CHARS:
        flat = f"{flat[:API_ERROR_CHARS]}…({len(flat) - API_ERROR_CHARS:,} more characters)"
    return f"API error {status}: {printable(flat)}" if flat else f"API error {status}"


CREDENTIAL_HEADERS = ("authorization", "x-api-key")
"""The request headers carrying its credentials: the SDK sends an API key as `Authorization: Bearer`, a
token as well; `x-api-key` is the API's own spelling, which a gateway in between may add."""

SHORTEST_CREDENTIAL = 8
"""Fewer characters than any real credential has. Shorter values (a test's key "k") are not redacted:
every "k" of a message would be."""


def _credentials(headers: Mapping[str, str]) -> set[str]:
    """The secrets a request sent: the last word of each credential header, the key of `Bearer KEY`."""
    words = (headers.get(name, "").split() for name in CREDENTIAL_HEADERS)
    return {said[-1] for said in words if said and len(said[-1]) >= SHORTEST_CREDENTIAL}


def _redacted(text: str, credentials: Iterable[str]) -> str:
    """`text` quoted from the API without the credentials the call sent: a gateway answering 401 with
    `invalid x-api-key: sk-ant-...` had the key printed whole on stderr, in the reports (the Markdown one
    a CI job's public summary) and in the sidecar's logs. The longest first, in case one holds another."""
    for secret in sorted(credentials, key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text


def _plus(spent: Usage, more: Usage) -> Usage:
    """What calls billed together."""
    return Usage(spent.input_tokens + more.input_tokens, spent.output_tokens + more.output_tokens,
                 spent.calls + more.calls, spent.unanswered + more.unanswered, spent.unpriced + more.unpriced)


def _usage(message: Any, unanswered: int) -> Usage | None:
    """What a reply billed, in tokens at the base prices, rounded up (a budget must never count low); None
    when its counts cannot be read. A reply that ran somewhere or somehow whose price ragmon does not know
    (`_unpriced`) keeps its verdicts and is counted at the base prices, `unpriced`, and one more attempt
    unanswered: its bill is unknown, so calibrate's figures are a floor, marked as one, and a budget
    counts the call at all it reserved (`Usage.unpriced`)."""
    usage = getattr(message, "usage", None)
    inputs, outputs, written, read = _counts(usage).values()
    if inputs is None or outputs is None or written is None or read is None:
        return None
    unpriced = _unpriced(usage) is not None
    surcharge = Fraction(1) if unpriced else GEO_SURCHARGES[getattr(usage, "inference_geo", None)]
    billed = inputs + _cache_writes(usage, written) + CACHE_READ * read
    return Usage(math.ceil(surcharge * billed), math.ceil(surcharge * outputs), 1, unanswered + int(unpriced),
                 int(unpriced))


def _counts(usage: Any) -> dict[str, int | None]:
    """Each token count a bill is made of, by its name in the reply; None where it is no count. The cache's
    may be missing (no cache used)."""
    counts = {name: _count(getattr(usage, name, None)) for name in ("input_tokens", "output_tokens")}
    for name in ("cache_creation_input_tokens", "cache_read_input_tokens"):
        counts[name] = _count(getattr(usage, name, None) or 0)
    return counts


def _unread_usage(message: Any) -> str:
    """Why a reply's bill cannot be read, naming the counts that are none: a count of 10^309, which JSON
    reads as infinity, had been told as "reply carries no token usage", sending the user to look for a
    usage that was there."""
    usage = getattr(message, "usage", None)
    if usage is None:
        return "reply carries no token usage"
    unread = [f"{name} {_quoted(getattr(usage, name, None))}" for name, count in _counts(usage).items()
              if count is None]
    return f"reply's token usage cannot be read (not a whole number of tokens: {', '.join(unread)})"


def _cache_writes(usage: Any, written: int) -> Fraction:
    """Tokens written to a prompt cache, in base input tokens: those `cache_creation` gives a lifetime at its
    rate, the rest of `written` (a gateway reporting the total alone, or a breakdown that cannot be read)
    at the dearer, the 1-hour rate."""
    split = getattr(usage, "cache_creation", None)
    short = _count(getattr(split, "ephemeral_5m_input_tokens", None)) or 0
    long = _count(getattr(split, "ephemeral_1h_input_tokens", None)) or 0
    return CACHE_WRITE_5M * short + CACHE_WRITE_1H * (long + max(0, written - short - long))


def _unpriced(usage: Any) -> str | None:
    """What a reply says it ran at whose price ragmon does not know, None if nothing: a geography not in
    `GEO_SURCHARGES`, or fast mode, billed at a multiple of the standard price that differs by model
    (https://platform.claude.com/docs/en/build-with-claude/fast-mode)."""
    geo = getattr(usage, "inference_geo", None)
    if not isinstance(geo, str | None) or geo not in GEO_SURCHARGES:
        return f"inference_geo {_quoted(geo)}"
    speed = getattr(usage, "speed", None)
    return None if speed in (None, "standard") else f"speed {_quoted(speed)}"


def _count(value: Any) -> int | None:
    """A token count as the reply gives it, or None when it is none (missing, negative, not a number). JSON's
    `true` is no count, though Python's bool is an int: read as 1 token, a bill nobody can read had passed
    for a cheap one."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class _Attempts:
    """SDK middleware for one call: counts its attempts, and those that got no reply once their request had
    gone out whole (timed out waiting, or the connection was cut: a proxy's idle timeout) before the SDK
    retried them or gave up; and ends the call rather than wait past its bound.

    The API bills a request it ran even when nobody got the reply, and retries are separate requests (this
    SDK sends no idempotency key), so each such attempt may be a bill of its own. An attempt whose request
    never went out whole (no connection, none free in the pool, a header httpx will not write, an address
    it cannot use) reached no one and is not counted: an API that cannot be reached, or a request that
    cannot be sent, must not spend a budget on bills that cannot exist, and then refuse calls all day.

    The bound is `timeout` x attempts (the first and `max_retries` more) from the call's start: the time
    its attempts take if each runs to its timeout. The SDK waits before a retry as long as the API's
    `retry-after` asks, however long (a 429 asking 20 s held a call 45 s at a 2 s timeout, a lane's
    worker and its reservation with it), so a wait that leaves no time for one more whole attempt within
    the bound is not made: the call ends with the reply at hand (rate_limited for a 429). The SDK's own
    backoff, when the API asks for no wait, is short (0.5 s, then 1 s, each at most 8 s) and left to it."""

    def __init__(self, timeout: float, max_retries: int) -> None:
        self.timeout = timeout
        self.max_retries = max_retries
        self.bound = timeout * (max_retries + 1)
        self.deadline = time.monotonic() + self.bound
        self.made = 0
        self.unanswered = 0
        self.replied = 0
        """Attempts answered, any status: a call whose every reply was an unbilled error (a 429, a 529) was
        made all the same, and cancelled in the SDK's wait before a retry it is an outcome to count."""
        self.sent = False
        """Whether the last attempt that failed to connect or get a reply had sent its request whole."""
        self.cut_short = ""
        """Why the call ended before its retries were used up, for its error message; empty if it did not."""
        self.credentials: set[str] = set()
        """What the attempts answered had sent as credentials (`_credentials`): a reply may quote them."""

    async def asynchronous(self, request: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """One attempt, its `_Delivery` handed to the judge's HTTP client (`_deadline_client`) through
        `_ATTEMPT`: the attempt runs in this task, and the SDK's request object reaches no further."""
        import anthropic

        self.made += 1
        delivery = _Delivery()
        entered = _ATTEMPT.set(delivery)
        try:
            response = await call_next(request)
        except anthropic.APIConnectionError:
            self.sent = delivery.went_whole
            self._count(self.sent)
            raise
        except asyncio.CancelledError:
            # Cut off (the sidecar's drain deadline). Once its request began to be written it may have gone
            # whole, and been billed; before (waiting for a connection, connecting) it reached no one: was
            # counted all the same, a call cancelled while connecting charged an attempt's worst case.
            self._count(delivery.began)
            raise
        finally:
            _ATTEMPT.reset(entered)
        self.replied += 1
        self.credentials |= _credentials(response.http_response.request.headers)
        self._count(response.http_response.status_code in TIMED_OUT_STATUSES)
        return self._within_bound(request, response)

    def _count(self, maybe_billed: bool) -> None:
        if maybe_billed:
            self.unanswered += 1

    def _within_bound(self, request: Any, response: Any) -> Any:
        """An error reply the SDK would retry after the wait it asks, made final when that wait leaves no
        time for another attempt before the bound: `x-should-retry: false` is how the SDK is told so."""
        reply = response.http_response
        wait = _asked_wait(reply.headers)
        if (not reply.is_success and _retried(reply) and request.retries_taken < self.max_retries
                and wait is not None and wait > 0 and time.monotonic() + wait + self.timeout > self.deadline):
            reply.headers["x-should-retry"] = "false"
            attempts = self.max_retries + 1
            self.cut_short = (f"; the API asked to wait {shown_wait(wait)} before retrying, which with the "
                              f"{self.timeout:g}s the retry may take passes this call's bound of "
                              f"{self.bound:g}s (timeout {self.timeout:g}s x {attempts} attempts)")
        return response


def _retried(reply: Any) -> bool:
    """Whether the SDK retries this error reply, as its `_should_retry` decides: as `x-should-retry` says,
    else a 408, 409, 429 or 5xx. A 400 asking a wait had been told as cut short by the call's bound, which
    played no part: the SDK never retries one."""
    told = reply.headers.get("x-should-retry")
    if told in ("true", "false"):
        return bool(told == "true")
    return bool(reply.status_code in (408, 409, 429) or reply.status_code >= 500)


TIMED_OUT_STATUSES = frozenset({504, 524})
"""The statuses of a reply saying the request timed out while it ran: 504, the API's `timeout_error`, or a
gateway whose own timeout is shorter than the judge's, past which the API ran on and billed it; 524, a CDN's
(Cloudflare's) own word for the same, its request sent to the origin, which did not answer in time. Its
attempt counts as one sent and unanswered (`Usage.unanswered`): counted as no bill, a gateway's 504 (or a
CDN's 524) to each of the SDK's attempts had a day's spend read $0 while the API billed every one."""


def shown_wait(seconds: float) -> str:
    """A wait the API asked for, as a person reads it: a retry-after of "inf", or a date decades ahead, had
    been told as "infs" and "2.29972e+09s"."""
    if not seconds < 86_400:  # NaN and infinity too
        return "more than a day"
    return f"{seconds:g}s" if seconds < 1_000 else f"{seconds:,.0f}s"


def _asked_wait(headers: Mapping[str, str]) -> float | None:
    """Seconds the API asks to wait before a retry, read as the SDK reads them (`retry-after-ms`, else
    `retry-after` in seconds or as an HTTP date), or None when it asks for none: a NaN or a wait of 0 or
    less the SDK also takes for none."""
    for name, seconds in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        with contextlib.suppress(ValueError):
            return float(headers.get(name, "")) * seconds
    date = email.utils.parsedate_tz(headers.get("retry-after") or "")
    return None if date is None else email.utils.mktime_tz(date) - time.time()


def _retry_after(exc: Exception) -> float | None:
    """The wait a failed call's last reply asked for (`_asked_wait`), None if none: NaN, 0 or less."""
    response = getattr(exc, "response", None)
    wait = None if response is None else _asked_wait(response.headers)
    return wait if wait is not None and wait > 0 else None


class _Delivery:
    """What httpcore's trace saw of one attempt: whether its request began to go out (`started`) and went
    out whole (`whole`), after which the API may have run and billed it. One failing before (no connection,
    none free in the pool, a header value h11 will not write, a URL scheme httpx has no transport for)
    reached no one. The most direct signal there is: the transport's error classes say what failed, not
    whether the request had left by then. An attempt cancelled midway is not failed by the transport: its
    write, interrupted, may have ended in the socket's buffer, so it counts from `started`."""

    def __init__(self) -> None:
        self.attached = False
        """Whether an HTTP request of the judge's client carries it; if not, nothing saw the attempt, which
        is counted as sent."""
        self.started = False
        self.whole = False

    def attach(self, request: httpx2.Request) -> None:
        self.attached = True
        request.extensions["trace"] = self._trace

    @property
    def went_whole(self) -> bool:
        """Whether the request may have reached the API whole: for an attempt the transport failed."""
        return self.whole or not self.attached

    @property
    def began(self) -> bool:
        """Whether any of the request may have gone out: for an attempt cancelled midway."""
        return self.started or not self.attached

    async def _trace(self, event: str, info: Mapping[str, Any]) -> None:
        self.started = self.started or event.endswith(".send_request_headers.started")
        self.whole = self.whole or event.endswith(".send_request_body.complete")


_ATTEMPT: contextvars.ContextVar[_Delivery | None] = contextvars.ContextVar("ragmon_claude_attempt",
                                                                            default=None)
"""The `_Delivery` of the attempt the running task makes, set by `_Attempts` for the HTTP client's `send`."""


@functools.cache
def _deadline_client() -> Callable[[float], httpx2.AsyncClient]:
    """The SDK's own default async HTTP client (its pool limits, keep-alive and proxy settings), made with
    an attempt's timeout in seconds, which bounds the whole of each attempt's reply.

    Why: the SDK hands `timeout` to httpx as a timeout of each read (and connect, write, pool wait), and
    httpx has no total timeout (encode/httpx#1450), so a server or proxy sending a few bytes every few
    seconds, of its headers or of its body, never times out and holds the call, a sidecar lane's worker and
    its budget reservation, for as long as it likes. `send` is what the SDK calls once per attempt: pool
    wait, connect, headers and body run there under one deadline, and an attempt cut off by it ends as an
    httpx timeout, which the SDK retries and reports as any other: a `ReadTimeout` once its request went
    out whole, a `ConnectTimeout` before (`_Delivery` says). The blocking methods run on an event loop too
    (`LoopThread`): a blocking read cannot be cancelled. Each request carries its attempt's `_Delivery`, for
    `_Attempts` to count only attempts that may have been billed.

    Made on first use: `anthropic` is imported with a judge, not with this module.
    """
    import anthropic
    import httpx2

    class AsyncClient(anthropic.DefaultAsyncHttpxClient):
        def __init__(self, attempt_timeout: float) -> None:
            super().__init__()
            self.attempt_timeout = attempt_timeout

        async def send(self, request: httpx2.Request, **options: Any) -> httpx2.Response:
            delivery = _ATTEMPT.get() or _Delivery()
            delivery.attach(request)
            deadline = asyncio.timeout(self.attempt_timeout)
            try:
                async with deadline:
                    return await super().send(request, **{**options, "stream": False})
            except TimeoutError as exc:
                if not deadline.expired():
                    raise
                late = httpx2.ReadTimeout if delivery.whole else httpx2.ConnectTimeout
                raise late(f"no whole reply within {self.attempt_timeout:g}s", request=request) from exc

    return AsyncClient


def _check_credentials(client_class: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """Refuse a judge no call could authenticate, when it is built: the SDK finds the key (or token, or
    credentials file) as it will for each call, in a client made for that alone. That client sends
    nothing, so its HTTP client loads no CA certificates (`verify=False`): the SDK's default loaded them,
    ~70 ms of CPU for each judge built (a sidecar builds one; the test suite, hundreds)."""
    import anthropic
    import httpx2

    try:
        client = client_class(**options, http_client=httpx2.Client(verify=False))
    except anthropic.CredentialsError as exc:
        raise RagmonError(f"the Claude judge has no usable credentials ({exc}); set ANTHROPIC_API_KEY") \
            from None
    with client:
        if client.api_key is None and client.auth_token is None and client.credentials is None:
            raise RagmonError("the Claude judge needs an API key: set ANTHROPIC_API_KEY")


def _as_given(entry: Mapping[str, Any], sent_ids: set[str]) -> bool:
    """Whether a cached entry is one `_verdict` could have given for these documents: supported by one or
    more of them, or unsupported by none. Anything else in a cache file was damaged or written by hand."""
    ids = entry["supporting_ids"]
    return entry["supported"] == bool(ids) and sent_ids.issuperset(ids)


def _normalised(text: str) -> str:
    """A claim as the model may copy it back: accents composed or not, other spacing or case, and a lone
    surrogate as the U+FFFD it was sent as."""
    return " ".join(unicodedata.normalize("NFKC", replace_lone_surrogates(text)).split()).casefold()


def _as_written(text: str) -> str:
    """A claim as written but for its spacing and how its accents are encoded: what tells apart claims that
    read alike to `_normalised` ("10³" and "103", "m²" and "m2", "US" and "us")."""
    return " ".join(unicodedata.normalize("NFC", replace_lone_surrogates(text)).split())


def _told_apart(copy: str, claim: str, others: Iterable[str]) -> bool:
    """Whether a verdict's copy of its claim (one `_quotes` accepts) can be of no other claim of its call,
    but one that a copy as long as the tool asks could not be told from either (the same sentence twice,
    claims alike past their first QUOTE_CHARS characters), where its place among the verdicts says which.
    A beginning of 120 characters shared by two long claims read as either, so their verdicts given in
    swapped order were accepted: the unsupported claim came out supported. Of claims alike only as
    `_normalised` reads them, the copy must be the one it quotes as written: "The limit is 10³ requests."
    and a made-up "The limit is 103 requests." were told apart by place, and verdicts in swapped order
    gave the made-up one supported."""
    whole = _quotes(copy, claim, split_end=False)
    return all(_same_beginning(claim, other) or _nearer(copy, claim, other)
               for other in others if _quotes(copy, other, split_end=not whole))


def _same_beginning(claim: str, other: str) -> bool:
    """Whether a copy of QUOTE_CHARS characters, as the tool asks, could not tell two claims apart. Read
    with the leniency of a copy's last character (`_quotes`), claims first differing at that character
    read as alike, and their verdicts given in swapped order were accepted."""
    return _as_written(claim[:QUOTE_CHARS]) == _as_written(other[:QUOTE_CHARS])


def _nearer(copy: str, claim: str, other: str) -> bool:
    """Whether a copy of both claims as `_normalised` reads them is of `claim` alone as written."""
    whole = _quotes(copy, claim, split_end=False, read=_as_written)
    return _quotes(copy, claim, read=_as_written) and not _quotes(copy, other, split_end=not whole,
                                                                  read=_as_written)


QUIET_BLOCKS = frozenset({"thinking", "redacted_thinking"})
"""Blocks a reply may hold besides its tool call: the model's reasoning, which gives no verdict."""


def _ours(block: Any) -> bool:
    return getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == TOOL_NAME


def _the_call(content: Sequence[Any]) -> Any:
    """The reply's one record_verdicts call, alone in it but for the model's reasoning. A forced call comes
    alone (the API writes no text before it, ends the turn at it, and calls no tool it was not offered):
    anything more was swayed or rewritten on the way, and may say the opposite of the call. Read alone,
    the call of a reply that also said "claim 2 is not supported", or called another tool to say so, gave
    every claim supported."""
    calls = [block for block in content if _ours(block)]
    if len(calls) != 1:
        raise ClaudeJudgeError(f"expected one {TOOL_NAME} tool call, got {len(calls)}")
    if said := next(filter(None, (_besides(block) for block in content if not _ours(block))), None):
        raise ClaudeJudgeError(f"reply holds {said} besides its {TOOL_NAME} call")
    return calls[0]


def _besides(block: Any) -> str | None:
    """What a block other than the record_verdicts call says, or None when it says nothing: reasoning, or
    text that is blank."""
    kind = getattr(block, "type", None)
    if not isinstance(kind, str):  # a list or an object, which the SDK builds a block of all the same
        return f"a block of type {_quoted(kind)}"
    if kind in QUIET_BLOCKS:
        return None
    if kind == "text":
        text = getattr(block, "text", None)
        return None if isinstance(text, str) and not text.strip() else f"text ({_quoted(text)})"
    if kind == "tool_use":
        return f"a call of tool {_quoted(getattr(block, 'name', None))}"
    return f"a {_quoted(kind)} block"


def _keys_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a reply, each of its keys given once (`json.loads`'s `object_pairs_hook`). JSON allows
    a key twice, and Python's parser keeps the last: a verdict saying `"supported": false` and then
    `"supported": true` read as supported, and `"stop_reason"` given as `max_tokens` and then `tool_use`
    as a completed call. Which the reply means cannot be told: a ValueError, as the SDK's parser raises for
    a reply that is no JSON, so the reply is unreadable, never a verdict."""
    read: dict[str, Any] = {}
    for key, value in pairs:
        if key in read:
            raise ValueError(f"it gives {_quoted(key)} twice in one JSON object, and which it means "
                             "cannot be told")
        read[key] = value
    return read


async def _message(reply: anthropic.AsyncAPIResponse[Any]) -> Any:
    """The Message of a reply, as the SDK reads it, from a body that gives each key once (`_keys_once`): the
    body is read twice, as the SDK's parser takes no hook, and a reply is a few kilobytes."""
    message = await reply.parse()
    json.loads(await reply.read(), object_pairs_hook=_keys_once)
    return message


def _quotes(copy: str, claim: str, *, split_end: bool = True,
            read: Callable[[str], str] = _normalised) -> bool:
    """Whether a verdict's copy of its claim is the claim sent: whole, or, of a claim longer than
    QUOTE_CHARS, its beginning, as the tool asks. A model counts characters loosely, so a beginning of at
    least half that is enough to tell the claims of a call apart, and one longer than asked is welcome;
    its end may carry an ellipsis, or (`split_end`) half of a character the cut split (an accent apart
    from its letter)."""
    sent = {read(claim), read(neutralise(claim))}
    copied = read(copy)
    if copied in sent:
        return True
    start = copied.rstrip(" .…")  # NFKC writes an ellipsis as three dots
    return (len(claim) > QUOTE_CHARS and len(start) >= QUOTE_CHARS // 2
            and any(s.startswith(start[:-1] if split_end else start) for s in sent))


class BadSetting(RagmonError, ValueError):
    """A ClaudeJudge argument that cannot work: a ValueError to a program, and a message with exit 2 from
    the CLI (`--llm-model ""`), where a bare ValueError would be taken for a bug and print a traceback."""


def _check_model(model: object) -> None:
    """Refuse a model id that cannot be one now, not at the first call: ClaudeJudge("http://...") reads a
    base URL as the model id, and it would fail only once the API answered 404 on each example."""
    if not isinstance(model, str):
        raise TypeError(f"ClaudeJudge: model must be a model id string, got {type(model).__name__}")
    if not model.strip():
        raise BadSetting(f"ClaudeJudge: model is empty: give a model id such as {DEFAULT_MODEL!r}, or leave "
                         "it out for that default")
    if "://" in model:
        raise BadSetting(f"ClaudeJudge: model {model!r} is a URL, not a model id: pass the API's address as "
                         "base_url= or ANTHROPIC_BASE_URL (the first argument is the model, "
                         f"{DEFAULT_MODEL!r} by default)")


def _at_least(name: str, value: object, least: int, why: str = "") -> int:
    """`value` as an int (numpy's int64 from a config table too), or an error naming the argument, what
    it was given and `why` the least is what it is: the API would refuse the request, or the judge
    misbehave, only later and without saying which setting was wrong."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        raise BadSetting(f"ClaudeJudge: {name} must be a whole number of at least {least}, got {value!r}"
                         f"{why}")
    return int(value)


def _seconds(timeout: object) -> float:
    """`_at_least` for the timeout, any real number of seconds above 0 (NaN is none). Infinity is no
    timeout: a call to an API that accepted the connection and never replied waited for good, where the
    judge promises an end within timeout x (max_retries + 1)."""
    if (isinstance(timeout, bool) or not isinstance(timeout, Real) or not float(timeout) > 0
            or not math.isfinite(timeout)):
        raise BadSetting(f"ClaudeJudge: timeout must be a finite number of seconds above 0, got {timeout!r}")
    return float(timeout)


_OTHER_CREDENTIALS = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR",
                      "ANTHROPIC_IDENTITY_TOKEN", "ANTHROPIC_IDENTITY_TOKEN_FILE")
"""Variables by which the SDK finds credentials other than an API key (a bearer token, a profile, workload
identity federation), besides the profiles in its config directory."""


def _require_sdk() -> None:
    """MissingExtra when the SDK is not there, found without importing it (seconds on a busy machine), so
    that a missing extra is said before a missing key: set the key, and the next run would only say the
    extra is missing."""
    if importlib.util.find_spec("anthropic") is None:
        try:
            import anthropic  # noqa: F401 -- fails, in Python's own words for why
        except ImportError as exc:
            raise MissingExtra("the Claude judge", "claude", exc) from exc


async def _aclose_client(clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any]) -> None:
    """Closes the running event loop's client, if it has one."""
    client = clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.close()


def _close_loop_thread(loop_thread: LoopThread,
                       clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any]) -> None:
    """`ClaudeJudge.close`, and its finalizer's: given the judge's parts, not the judge, which a finalizer
    must not hold."""
    loop_thread.close(functools.partial(_aclose_client, clients))


def _check_cache_dir(cache_dir: object) -> None:
    """A path or None; not "", which pathlib reads as the working directory, where cache files were
    written unasked (a `cache_dir=os.environ.get("CACHE", "")` left unset)."""
    if cache_dir is not None and not isinstance(cache_dir, str | os.PathLike):
        raise TypeError(f"ClaudeJudge: cache_dir must be a path or None, got {type(cache_dir).__name__}")
    if cache_dir == "":
        raise BadSetting("ClaudeJudge: cache_dir is empty: give a directory, or None to keep verdicts in "
                         "memory only")


def _check_connection_settings(api_key: str | None, base_url: str | None) -> None:
    """Refuse an API key or base URL no request could be sent with, and a missing key, before the SDK is
    imported (it takes seconds) and a cache directory made: found at the first call, a key with a newline
    (read from a file) or a base URL without its scheme failed every attempt of every example, told as
    "Connection error.", and a budget paid for attempts that never left the process. Messages name the
    setting and what is wrong with it, never the key.

    A missing key is refused here only when the SDK could find no other credentials; otherwise the SDK
    looks (see `ClaudeJudge.__init__`)."""
    for name, value in (("api_key", api_key), ("base_url", base_url)):
        if value is not None and not isinstance(value, str):  # bytes too: the SDK's .strip() failed on them
            raise TypeError(f"ClaudeJudge: {name} must be a string or None, got {type(value).__name__}")
    key_name = "api_key" if api_key is not None else "ANTHROPIC_API_KEY"
    key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY") or None  # "" is unset
    if key is not None and (problem := _unsendable(key)):
        raise BadSetting(f"ClaudeJudge: {key_name} {problem}: an API key is printable ASCII without spaces "
                         "(a key read from a file may keep its newline; the key is not shown here)")
    if key is None and not _other_credentials():
        raise RagmonError("the Claude judge needs an API key: set ANTHROPIC_API_KEY")
    url_name = "base_url" if base_url is not None else "ANTHROPIC_BASE_URL"
    url = base_url if base_url is not None else os.environ.get("ANTHROPIC_BASE_URL")
    if url is not None and (problem := _unusable_url(url)):
        raise BadSetting(f"ClaudeJudge: {url_name} {problem}: give the API's address as an http:// or "
                         "https:// URL, e.g. https://api.anthropic.com or http://127.0.0.1:8080")


def _unsendable(value: str) -> str:
    """What keeps `value` out of an HTTP header, said without quoting it; empty if nothing."""
    if not value.strip():
        return "is empty" if not value else "is blank"
    for i, char in enumerate(value):
        if not "!" <= char <= "~":
            what = ("a line break" if char in "\r\n" else "whitespace" if char.isspace()
                    else "a control character" if unicodedata.category(char) == "Cc"
                    else "a non-ASCII character")
            where = ("at its end" if i == len(value) - 1 else "at its start" if i == 0
                     else f"at character {i + 1} of {len(value)}")
            return f"has {what} {where}"
    return ""


def _unusable_url(url: str) -> str:
    """What keeps `url` from being an address httpx can send to; empty if nothing."""
    if problem := _unsendable(url):
        return problem
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  # raises on a port that is no number or out of range
    except ValueError:
        return "is no valid URL (its host or port cannot be read)"
    if parts.scheme.lower() not in ("http", "https"):
        return "does not start with http:// or https://"
    return "" if parts.hostname else "names no host"


def _address(url: object) -> str:
    """Where `url` sends a request: its scheme, host and port, never a user or password it carries (nor a
    path or query, where a proxy may take a token), clipped; "" for none. For an error that could not reach
    the API, which had named no address: a run of an hour could not be told from a stale
    ANTHROPIC_BASE_URL."""
    try:
        parts = urllib.parse.urlsplit(str(url))
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname or ""
    if ":" in host:  # IPv6, written in brackets in a URL
        host = f"[{host}]"
    address = f"{parts.scheme}://{host}" + ("" if port is None else f":{port}")
    return printable(address if len(address) <= _ADDRESS_SHOWN else f"{address[:_ADDRESS_SHOWN - 3]}...")


_ADDRESS_SHOWN = 80
"""Characters of an API address an error or repr shows."""


def _other_credentials() -> bool:
    """Whether the SDK might find credentials other than an API key: any variable of `_OTHER_CREDENTIALS`
    set, or its config directory there. Erring towards yes: the SDK then looks, as it always did."""
    if any(os.environ.get(name) for name in _OTHER_CREDENTIALS):
        return True
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA") or os.path.expanduser("~/AppData/Roaming")
        return Path(appdata, "Anthropic").exists()
    return Path(os.path.expanduser("~/.config/anthropic")).exists()


class ClaudeJudge:
    """Judge claims with Claude through the `anthropic` SDK (sync `judge`, async `ajudge`).

    `api_key`/`base_url` default to `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`, as the SDK reads them.
    `timeout` bounds each attempt, its whole reply; the SDK makes up to `max_retries` more after a 429,
    529, 5xx or timeout. A call (a long answer makes several) ends within `timeout` x (`max_retries` + 1)
    plus the SDK's backoff between attempts (0.5 s, then 1 s, ...): a retry the API asks to delay so long
    that it could not run whole within `timeout` x (`max_retries` + 1) of the call's start is not made
    (`_Attempts`). The blocking methods run the async ones on the judge's own event loop
    and thread (`LoopThread`), started on first use and ended by `close`.

    Pickled (to the workers of a `ProcessPoolExecutor`), a judge travels as the arguments it was built
    with, and is built again from them where it is unpickled, checked as a new judge is: its own client,
    event loop thread and cache. Calls in flight and the verdicts cached in memory stay behind; those in
    `cache_dir` are shared, as between any judges given it. An API key or base URL the constructor was
    given travels with it; one read from `ANTHROPIC_API_KEY` or `ANTHROPIC_BASE_URL` does not, and is read
    from the unpickling process's environment again, so a key kept out of code is kept out of pickles too.
    """

    name = "claude"
    deterministic = True
    """Within a run every verdict is decided once and then served from the cache, so scoring the same
    examples again (`ragmon replay --repeat`) gives the same figures and is not worth paying for."""

    def __init__(self, model: str = DEFAULT_MODEL, *, max_tokens: int = 2048,
                 timeout: float = 60.0, max_retries: int = 2, base_url: str | None = None,
                 api_key: str | None = None, max_doc_chars: int = 4000, max_total_chars: int = 24000,
                 cache_dir: str | os.PathLike[str] | None = None, cache_entries: int = 10_000) -> None:
        _check_model(model)
        max_tokens = _at_least("max_tokens", max_tokens, SMALLEST_MAX_TOKENS, why=(
            f": one verdict may take that many (a claim of {QUOTE_CHARS} characters in Chinese or Japanese, "
            "copied back, with its reason), and a reply cut off at max_tokens gives no verdict however often "
            "it is paid for"))
        max_doc_chars = _at_least("max_doc_chars", max_doc_chars, 1)
        max_total_chars = _at_least("max_total_chars", max_total_chars, 1)
        cache_entries = _at_least("cache_entries", cache_entries, 1)
        max_retries = _at_least("max_retries", max_retries, 0)
        timeout = _seconds(timeout)
        _check_cache_dir(cache_dir)
        _require_sdk()
        _check_connection_settings(api_key, base_url)
        try:  # before the cache directory is made: a judge that cannot run leaves nothing behind
            import anthropic
        except ImportError as exc:
            raise MissingExtra("the Claude judge", "claude", exc) from exc
        self.model = model
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_doc_chars = max_doc_chars
        self.max_total_chars = max_total_chars
        self._client_options: dict[str, Any] = {
            "api_key": api_key, "base_url": base_url, "timeout": timeout, "max_retries": max_retries,
            # The judge's own calls must not become spans of the app it monitors (a feedback loop).
            "open_telemetry": False,
        }
        _check_credentials(anthropic.Anthropic, self._client_options)
        # Only now: a judge refused for its credentials leaves no directory behind.
        self.cache = VerdictCache(cache_dir, cache_entries)
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anthropic.AsyncAnthropic] = \
            weakref.WeakKeyDictionary()
        self._loop_thread = LoopThread("ragmon-claude-judge")
        # A judge dropped unclosed ends its thread when collected: 100 judges built and dropped in a notebook
        # had left 200 threads and 300 file descriptors. Not at exit, where the daemon thread just ends.
        finalizer = weakref.finalize(self, _close_loop_thread, self._loop_thread, self._clients)
        finalizer.atexit = False
        self._flights = _Flights()
        self._unpriced_said = False

    def __repr__(self) -> str:
        # What it judges with, to tell judges apart in a notebook; never the credentials.
        directory = self.cache.directory
        shown = {**self._arguments(), "cache_dir": None if directory is None else str(directory)}
        del shown["api_key"]
        if (base_url := shown.pop("base_url")) is not None:  # the default's, or ANTHROPIC_BASE_URL's: unsaid
            shown["base_url"] = _address(base_url)
        return f"ClaudeJudge({', '.join(f'{name}={value!r}' for name, value in shown.items())})"

    def __reduce__(self) -> tuple[Callable[[], ClaudeJudge], tuple[()]]:
        """A judge holds a lock, a thread and clients bound to an event loop, none of which can cross to
        another process: it is pickled as the call that builds it again (see the class docstring)."""
        return functools.partial(type(self), **self._arguments()), ()

    def _arguments(self) -> dict[str, Any]:
        """The constructor's arguments that built this judge: the key and base URL as given, None if they
        came from the environment, so that pickling never copies a key the user kept out of code."""
        return {"model": self.model, "max_tokens": self.max_tokens, "timeout": self.timeout,
                "max_retries": self.max_retries, "max_doc_chars": self.max_doc_chars,
                "max_total_chars": self.max_total_chars, "cache_dir": self.cache.directory,
                "cache_entries": self.cache.max_entries, "base_url": self._client_options["base_url"],
                "api_key": self._client_options["api_key"]}

    def settings(self) -> Mapping[str, Any]:
        return {"name": self.name, "model": self.model, "temperature": None,
                "prompt_version": PROMPT_VERSION, "max_tokens": self.max_tokens,
                "max_doc_chars": self.max_doc_chars, "max_total_chars": self.max_total_chars}

    # --- judging ------------------------------------------------------------------------------------

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return self.judge_with_usage(example, claims)[0]

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return (await self.ajudge_with_usage(example, claims))[0]

    def judge_with_usage(self, example: Example,
                         claims: tuple[Claim, ...]) -> tuple[tuple[ClaimVerdict, ...], Usage]:
        """Verdicts plus the tokens this example billed, so a caller can settle its cost. Run as
        `ajudge_with_usage` on the judge's own event loop (`LoopThread`): a blocking HTTP client bounds the
        wait for a reply's headers per read only, and a server trickling them held a call 60 s a attempt at
        a 2 s timeout. Threads sharing the judge share its calls in flight (`_Flights`)."""
        return self._loop_thread.run(functools.partial(self.ajudge_with_usage, example, claims))

    async def ajudge_with_usage(self, example: Example, claims: tuple[Claim, ...], *,
                                admit: Callable[[TokenBound], None] | None = None,
                                ) -> tuple[tuple[ClaimVerdict, ...], Usage]:
        """`judge_with_usage` for a task: it waits for the calls of other tasks of its event loop.

        `admit` is told the bound of the calls this caller is about to make, before any is sent, and may
        raise to make none (the exception is this call's; the callers waiting for its verdicts then ask
        for them themselves). It is told only when the calls are this caller's own: not while it waits for
        an identical call in flight, whose verdicts it is served from the cache, but for what that call's
        failure leaves it to ask. A budget reserves there: reserving before asking, the sidecar's lane had
        held a reservation and per-minute tokens for each caller sharing another's call, which made none."""
        lane = id(asyncio.get_running_loop())
        ask = functools.partial(self._plan, example, claims)
        spent = Usage()
        fresh: list[ClaimVerdict] = []
        attempts: _Attempts | None = None
        try:
            while True:
                plan, running = self._flights.board(lane, ask)
                if running is None:
                    break
                # Shielded: a waiter cancelled must not cancel the call it waits for, which others wait on.
                await asyncio.shield(asyncio.wrap_future(running))
            with self._flights.flying(lane, plan):
                if admit is not None and plan.requests:
                    admit(self._plan_bound(plan))
                for batch, request in zip(plan.batches, plan.requests, strict=True):
                    attempts = _Attempts(self.timeout, self.max_retries)
                    with self._billed(spent):
                        with self._api_errors(plan, attempts):
                            client = self._async_client().with_middleware(attempts.asynchronous)
                            message = await _message(await client.messages.with_raw_response.create(
                                **request))
                        verdicts, usage = self._conclude(plan, batch, message, attempts)
                    fresh += verdicts
                    spent = _plus(spent, usage)
        except asyncio.CancelledError as cancelled:
            # What the call had billed and sent, for its caller to charge (`ClaudeLane`): without it, a
            # call cut off in its first attempt was charged every attempt's worst case.
            sent = Usage(unanswered=attempts.unanswered) if attempts is not None else Usage()
            cancelled.usage = _plus(spent, sent)  # type: ignore[attr-defined]
            cancelled.replied = 0 if attempts is None else attempts.replied  # type: ignore[attr-defined]
            raise
        return self._finish(plan, fresh), spent

    def request_bound(self, example: Example, claims: tuple[Claim, ...]) -> TokenBound | None:
        """Worst-case tokens of the calls judging would make now, or None when no call is needed.

        Input: the UTF-8 byte count of system prompt, messages and tool schema (a token spans at least one
        byte, so no tokenizer gives more tokens than bytes) plus `TOOL_USE_OVERHEAD_TOKENS`. Output:
        `max_tokens`, which the API never exceeds. Both per attempt, summed over the calls of a long
        answer; the SDK may make `max_retries` more attempts at each.
        """
        plan = self._plan(example, claims)
        return self._plan_bound(plan) if plan.requests else None

    def _plan_bound(self, plan: _Plan) -> TokenBound:
        """The bound of a plan's calls, of which it has one at least."""
        return self._summed([self._bound(request) for request in plan.requests])

    def largest_request_bound(self, answer_chars: int = LARGEST_ANSWER_CHARS) -> TokenBound:
        """`request_bound` of the largest request this judge sends for an answer of `answer_chars`
        characters of plain ASCII text, for sizing a budget before any example is seen.

        The question is clipped at `max_doc_chars`, and the documents, their tags and ids with them, take
        at most `max_total_chars` of a request (`sent_documents`), however many there are: here the question
        fills its limit, the documents are that much, and the count of those left out has as many digits
        as the length of any Python sequence can. A longer answer is judged in several calls, none of them
        larger than this (at the default `answer_chars`). Only one claim longer than that alone, or text
        (of the question, a document or a claim) with characters the request writes in several bytes,
        makes a larger one: a script other than ASCII, or the `<`, quotes, backslashes, line breaks and
        other control characters that the prompt defuses and JSON escapes."""
        per_claim = 200
        claims = ["a" * min(per_claim, answer_chars - start) for start in range(0, answer_chars, per_claim)]
        return self._at_the_limits(claims)

    def largest_example_bound(self) -> TokenBound:
        """`request_bound` of the largest example a budget is sized by before any is seen: an answer of
        `CLAIMS_PER_CALL` claims of `QUOTE_CHARS` characters (`LARGEST_ANSWER_CHARS` in all) in a script
        whose characters are tokens each (Chinese, Japanese), the question and documents at their limits as
        in `largest_request_bound`. Its verdicts are the largest `_verdict_tokens` allows for, so `_batches`
        cuts it into the most calls an answer of as many claims and characters makes in any script (four
        at the default `max_tokens`), each sending the documents again: the same answer in ASCII is one
        call, and a budget sized by that one call had counted every long Chinese answer over_budget."""
        claims = tuple(Claim(WIDE * QUOTE_CHARS, 0, QUOTE_CHARS) for _ in range(CLAIMS_PER_CALL))
        batches = _batches(claims, range(len(claims)), self.max_tokens)
        return self._summed([self._at_the_limits([claims[i].text for i in batch]) for batch in batches])

    def _at_the_limits(self, claims: Sequence[str]) -> TokenBound:
        """The bound of a call of `claims`, its question and documents as large as clipping lets them be."""
        request = self._request(Question("a" * self.max_doc_chars, truncated=True), (), claims, sys.maxsize)
        return self._bound(request, unsent=self.max_total_chars)

    def _summed(self, bounds: Sequence[TokenBound]) -> TokenBound:
        """The bound of an example judged in these calls."""
        return TokenBound(sum(b.input_tokens for b in bounds), sum(b.output_tokens for b in bounds),
                          self.max_retries + 1, max(b.input_tokens for b in bounds), self.max_tokens,
                          len(bounds))

    def _bound(self, request: Mapping[str, Any], unsent: int = 0) -> TokenBound:
        """`unsent`: bytes to count besides the request's own, for documents a bound allows for unseen."""
        sent = {k: request[k] for k in ("system", "messages", "tools")}
        inputs = len(json.dumps(sent, ensure_ascii=False).encode()) + unsent + TOOL_USE_OVERHEAD_TOKENS
        return TokenBound(inputs, self.max_tokens, self.max_retries + 1, inputs, self.max_tokens)

    def close(self) -> None:
        """Closes the connections the blocking methods opened, and ends their thread; a call of theirs
        still in flight is cancelled, its caller told so (`LoopClosed`)."""
        _close_loop_thread(self._loop_thread, self._clients)

    async def aclose(self) -> None:
        """Closes the connections opened by calls made on the running event loop."""
        await _aclose_client(self._clients)

    # --- internals ----------------------------------------------------------------------------------

    def _async_client(self) -> anthropic.AsyncAnthropic:
        """One async client per event loop: its connection pool belongs to the loop that opened it."""
        import anthropic

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = anthropic.AsyncAnthropic(**self._client_options,
                                              http_client=_deadline_client()(self.timeout))
            self._clients[loop] = client
        return client

    def _plan(self, example: Example, claims: tuple[Claim, ...]) -> _Plan:
        contexts = example.contexts or ()
        documents = sent_documents(contexts, self.max_doc_chars, self.max_total_chars)
        omitted = len(contexts) - len(documents)
        question = Question(example.question[: self.max_doc_chars],
                            truncated=len(example.question) > self.max_doc_chars)
        texts = [c.text for c in claims]
        keys = tuple(cache_key(self.model, question, texts, i, documents, omitted=omitted)
                     for i in range(len(claims)))
        sent_ids = {d.context.id for d in documents}
        # With documents retrieved, but none with room for its text in a tiny `max_total_chars`, the reason
        # says so, and the clipping note added to it which they were.
        unsent = ("no retrieved documents to support it" if not contexts
                  else "no retrieved document fitted in max_total_chars to support it")
        cached: dict[int, ClaimVerdict] = {}
        for i, (claim, key) in enumerate(zip(claims, keys, strict=True)):
            if not documents:
                cached[i] = ClaimVerdict(claim, False, (), unsent)
            elif (entry := self.cache.get(key)) is not None and _as_given(entry, sent_ids):
                cached[i] = ClaimVerdict(claim, entry["supported"], tuple(entry["supporting_ids"]),
                                         entry.get("reason"))
        pending = tuple(i for i in range(len(claims)) if i not in cached)
        batches = _batches(claims, pending, self.max_tokens)
        requests = tuple(self._request(question, documents, [claims[i].text for i in batch], omitted)
                         for batch in batches)
        limits = f"max_doc_chars={self.max_doc_chars}, max_total_chars={self.max_total_chars}"
        clipped = _clipping(question, example.question, contexts, documents, limits)
        return _Plan(example.id, claims, keys, cached, pending, documents, clipped, batches, requests)

    def _request(self, question: Question, documents: Sequence[SentDocument], claims: Sequence[str],
                 omitted: int) -> dict[str, Any]:
        """`question` as sent, clipped at `max_doc_chars` already: the cache key holds it so.

        `disable_parallel_tool_use`: without it a forced tool may still be called several times in one
        reply (the API's default allows parallel tool use), the verdicts split between the calls, and
        `_parse`, expecting one, fails the call after it was paid for; with it the API makes exactly one."""
        prompt = build_user_prompt(question, documents, claims, omitted=omitted)
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": prompt}],
            "tools": [TOOL],
            "tool_choice": {"type": "tool", "name": TOOL_NAME, "disable_parallel_tool_use": True},
        }

    @staticmethod
    @contextlib.contextmanager
    def _billed(spent: Usage) -> Iterator[None]:
        """A failed call of a long answer's several reports what the calls before it billed too."""
        try:
            yield
        except ClaudeJudgeError as exc:
            exc.usage = _plus(spent, exc.usage)
            raise

    @contextlib.contextmanager
    def _api_errors(self, plan: _Plan, attempts: _Attempts) -> Iterator[None]:
        """SDK failures (after its retries) as ClaudeJudgeError naming the example; never a verdict.

        A 200 whose body the SDK cannot parse surfaces from it as the parser's own exception: a ValueError
        (not JSON, not UTF-8, an integer of more than 4,300 digits), or a RecursionError for JSON nested
        deeper than Python's parser goes (6 KB of `{"a":` did it). Either is an unreadable reply like any
        other, skippable and billed as one, not a traceback."""
        import anthropic

        where = f"example {plan.example_id!r}: Claude judge"
        try:
            yield
        except anthropic.APIError as exc:
            tries = f"{attempts.made} attempt{'s' * (attempts.made != 1)}"
            if isinstance(exc, anthropic.APITimeoutError):
                kind, what = "timeout", f"no reply within {self.timeout:g}s ({tries})"
            elif isinstance(exc, anthropic.RateLimitError):
                kind, what = "rate_limited", f"rate limited (429) after {tries}{attempts.cut_short}"
            elif isinstance(exc, anthropic.OverloadedError):
                # Anthropic's 529: no capacity now. Like a 429 a matter of waiting, not of a key, a request
                # or a bug, so counted with it: the runbooks send the on-call to `rate_limited` for both.
                kind, what = "rate_limited", f"API overloaded (529) after {tries}{attempts.cut_short}"
            elif isinstance(exc, anthropic.APIStatusError):
                kind = "error"
                error = _status_error(exc.status_code, exc.body, attempts.credentials)
                what = f"{error} ({tries}{attempts.cut_short})"
            elif isinstance(exc, anthropic.APIConnectionError):
                # The cause's class, never its text: httpx quotes a header it refused, the API key too.
                cause = type(exc.__cause__).__name__
                at = f" at {address}" if (address := _address(exc.request.url)) else ""
                kind = "error"
                what = (f"connection{at} cut after the request was sent ({cause}; {tries})" if attempts.sent
                        else f"cannot reach the API{at}: the request was never sent ({cause}; {tries})")
            else:
                unreadable = self._unreadable(attempts)
                said = _redacted(str(exc), attempts.credentials)
                raise ClaudeJudgeError(f"{where}: unreadable reply: {said}", usage=unreadable) from exc
            # No reply at all (timed out, or never sent): the next call would wait as long for the same.
            unreachable = isinstance(exc, anthropic.APIConnectionError) \
                and (kind == "timeout" or not attempts.sent)
            # No reply was billed; only the attempts sent that got none (or a 504) may have been.
            raise ClaudeJudgeError(f"{where}: {what}", kind=kind, usage=Usage(unanswered=attempts.unanswered),
                                   retry_after=_retry_after(exc) if kind == "rate_limited" else None,
                                   unreachable=unreachable) from exc
        except anthropic.CredentialsError as exc:
            # Read by the SDK before each request, from a profile's credentials file: a token that expired
            # with the file since made unreadable, or readable by others, fails the call unsent. Not an
            # APIError: it had escaped as a traceback, and the sidecar's lane took it for a bug in ragmon.
            said = _redacted(str(exc), attempts.credentials)
            raise ClaudeJudgeError(f"{where}: no usable credentials, the request was not sent: {said}",
                                   usage=Usage(unanswered=attempts.unanswered)) from exc
        except (ValueError, RecursionError) as exc:
            unreadable = self._unreadable(attempts)
            said = _redacted(str(exc), attempts.credentials)
            raise ClaudeJudgeError(f"{where}: unreadable reply: {said}", usage=unreadable) from exc

    @staticmethod
    def _unreadable(attempts: _Attempts) -> Usage:
        """What a call ending in a reply whose bill cannot be read billed: that reply, for an amount nobody
        can read (at most one attempt's worst case), and the attempts before it sent and unanswered. Not
        every attempt's worst case: those answered with an error status were not billed."""
        return Usage(unanswered=attempts.unanswered + 1)

    def _conclude(self, plan: _Plan, batch: tuple[int, ...], message: Any,
                  attempts: _Attempts) -> tuple[list[ClaimVerdict], Usage]:
        """The verdicts of one call, cached as soon as they are paid for; one ragmon overrode in memory
        only. Fail-closed is right for a reply ragmon cannot trust, not for the claim: written to disk, a
        "supported" citing `POL-RETURNS-WINDOW` for `pol-returns-window` stayed unsupported in every later
        run, the API fixed or not, with no call made to find out. This run keeps it, so a repeated row or a
        caller that waited for the call is not billed for it again."""
        reported = _usage(message, attempts.unanswered)
        usage = reported if reported is not None else self._unreadable(attempts)
        self._warn_unpriced(message)
        try:
            if reported is None:
                raise ClaudeJudgeError(_unread_usage(message))
            parsed = self._parse(plan, batch, message)
        except ClaudeJudgeError as exc:
            said = _redacted(str(exc), attempts.credentials)
            raise ClaudeJudgeError(f"example {plan.example_id!r}: Claude judge: {said}",
                                   usage=usage) from None
        verdicts = []
        for i, (given, overridden) in zip(batch, parsed, strict=True):
            reason = given.reason and _redacted(given.reason, attempts.credentials)
            verdict = replace(given, reason=reason)
            self.cache.put(plan.keys[i], {
                "supported": verdict.supported, "supporting_ids": list(verdict.supporting_ids),
                "reason": reason, "claim": replace_lone_surrogates(verdict.claim.text),
                "model": self.model, "prompt_version": PROMPT_VERSION}, on_disk=not overridden)
            verdicts.append(verdict)
        return verdicts, usage

    def _warn_unpriced(self, message: Any) -> None:
        """Once a judge (not once a call, which a sidecar makes all day): a budget spent at the whole
        reservation of every call, or calibrate's cost marked `>=`, would otherwise say nothing of why, nor
        that the daily cap, promised never to be passed, may be."""
        what = _unpriced(getattr(message, "usage", None))
        if what is None or self._unpriced_said:
            return
        self._unpriced_said = True
        log.warning("Claude judge: a reply ran at %s, whose price ragmon does not know: its real bill is "
                    "unknown, possibly many times the base prices; ragmon serve counts each such call at all "
                    "it reserved (every attempt's worst case at 1.1x the base prices), but its bill may be "
                    "more, and the day's spend may pass --llm-budget-usd-per-day; calibrate marks its tokens "
                    "and cost as at least", what)

    @staticmethod
    def _finish(plan: _Plan, parsed: Sequence[ClaimVerdict]) -> tuple[ClaimVerdict, ...]:
        """Every verdict in claim order, an unsupported one saying what clipping kept from Claude. The note
        is added here, not cached: the cache key counts the documents left out, not which they were."""
        fresh = dict(zip(plan.pending, parsed, strict=True))
        verdicts = (plan.cached[i] if i in plan.cached else fresh[i] for i in range(len(plan.claims)))
        if (note := plan.clipped) is None:
            return tuple(verdicts)
        return tuple(v if v.supported else replace(v, reason=_noted(v.reason, note)) for v in verdicts)

    def _parse(self, plan: _Plan, batch: tuple[int, ...], message: Any) -> list[tuple[ClaimVerdict, bool]]:
        """Each verdict, and whether ragmon overrode it (`_verdict`).

        A forced tool call that completed ends with stop_reason `tool_use`; any other reason means the
        call was cut off (max_tokens, the context window), refused or paused, whatever it contains."""
        stop_reason = getattr(message, "stop_reason", None)
        if stop_reason == "max_tokens":
            raise ClaudeJudgeError(f"reply cut off at max_tokens={self.max_tokens}")
        if stop_reason != "tool_use":
            raise ClaudeJudgeError(f"reply ended with stop_reason {_quoted(stop_reason)}, not a completed "
                                   f"{TOOL_NAME} tool call")
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise ClaudeJudgeError("reply has no list of content blocks")
        tool_input = getattr(_the_call(content), "input", None)
        verdicts = tool_input.get("verdicts") if isinstance(tool_input, dict) else None
        if not isinstance(verdicts, list):
            raise ClaudeJudgeError("tool input has no 'verdicts' list")
        if len(verdicts) != len(batch):
            raise ClaudeJudgeError(f"{len(verdicts)} verdicts for {len(batch)} claims")
        # An id as written in the prompt first: the model is told to copy it so, and another document's
        # raw id may read the same ("a&amp;b" is how "a&b" is written, and may be an id of its own).
        known = {d.context.id: d.context.id for d in plan.documents} | {d.shown_id: d.context.id
                                                                        for d in plan.documents}
        texts = [plan.claims[i].text for i in batch]
        pairs = zip(batch, verdicts, strict=True)
        return [self._verdict(plan.claims[i], raw, n, known, texts[:n] + texts[n + 1:])
                for n, (i, raw) in enumerate(pairs)]

    @staticmethod
    def _verdict(claim: Claim, raw: Any, n: int, known: Mapping[str, str],
                 others: Sequence[str]) -> tuple[ClaimVerdict, bool]:
        """The verdict on `claim`, and whether ragmon overrode the model's ("supported" by no document sent).
        `others`: the texts of the other claims of its call."""
        where = f"verdicts[{n}]"
        if not isinstance(raw, dict):
            raise ClaudeJudgeError(f"{where} is not an object")
        text, supported, ids, reason = (raw.get(k)
                                        for k in ("claim", "supported", "supporting_ids", "reason"))
        if not isinstance(text, str) or not _quotes(text, claim.text):
            raise ClaudeJudgeError(f"{where} is about {_quoted(text)}, not the claim sent "
                                   f"({_quoted(claim.text)})")
        if not _told_apart(text, claim.text, others):
            raise ClaudeJudgeError(f"{where} copies {_quoted(text)}, which begins other claims sent too: "
                                   f"a copy of their first {QUOTE_CHARS} characters would say which it is "
                                   "about")
        if not isinstance(supported, bool):
            raise ClaudeJudgeError(f"{where}.supported is not a boolean")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ClaudeJudgeError(f"{where}.supporting_ids is not a list of strings")
        if reason is not None and not isinstance(reason, str):
            raise ClaudeJudgeError(f"{where}.reason is not a string")
        valid = tuple(dict.fromkeys(known[i] for i in ids if i in known))
        invented = [i for i in ids if i not in known]
        if invented:
            named = _some([clip(i, NOTED_ID_CHARS) for i in dict.fromkeys(invented)])
            reason = _noted(reason, f"[ragmon: discarded supporting ids not among the documents: {named}]")
        if supported and not valid:
            return ClaimVerdict(claim, False, (), _noted(reason, OVERRIDDEN)), True
        return ClaimVerdict(claim, supported, valid if supported else (), reason), False


# --- command-line options shared by `ragmon serve`, `replay` and `calibrate` ---------------------------
# One spelling everywhere, so one RAGMON_LLM_MODEL (etc.) configures every subcommand.

def non_negative(text: str) -> float:
    """argparse type for an amount that may be zero: USD, calls per minute. Read as every number flag is
    (`number`): float() took `0_5` for 5, a budget ten times the one meant. Infinity (`1e999`) is no
    amount: the budget arithmetic has no meaning for it (a day's cap of inf holds inf // cost = NaN calls)."""
    value = number(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number, at least 0: {text}")
    return value


def price(text: str) -> float:
    """argparse type for USD per million tokens: a finite number above 0. At a price of 0 every call costs
    $0, so `--llm-budget-usd-per-day` could never stop one, while `ragmon serve` would start as though
    it capped spending (and `calibrate` would size a budget at $0). Read as every number flag is."""
    value = number(text)
    if not (math.isfinite(value) and value > 0):
        why = ": at a price of 0 the daily budget could never stop a call" if value == 0 else ""
        raise argparse.ArgumentTypeError(f"must be a finite number above 0{why}")
    return value


def add_cli_arguments(group: argparse._ActionsContainer, *, timeout: str = "60s",
                      prices: bool = True) -> None:
    group.add_argument("--llm-model", default=DEFAULT_MODEL, help="Claude model id (default %(default)s)")
    group.add_argument("--llm-timeout", type=positive_duration, default=timeout,
                       help="per attempt, for the whole reply; the SDK retries twice on 429, 529, 5xx "
                            "and timeouts, so a call takes at most 3 times this, plus 1.5 s of backoff; a "
                            "retry-after whose wait and one more attempt would pass 3 times this ends it "
                            "(default %(default)s)")
    group.add_argument("--llm-concurrency", type=positive_int, default=4, metavar="N",
                       help="Claude calls in flight at once (default %(default)s)")
    if not prices:
        return
    group.add_argument("--llm-price-input", type=price, default=None, metavar="USD",
                       help="USD per million input tokens (default: the list price of a known --llm-model)")
    group.add_argument("--llm-price-output", type=price, default=None, metavar="USD",
                       help="USD per million output tokens (default: the list price of a known --llm-model)")


def judge_from_args(args: argparse.Namespace, cache_dir: str | os.PathLike[str] | None = None) -> ClaudeJudge:
    return ClaudeJudge(args.llm_model, timeout=args.llm_timeout, cache_dir=cache_dir)


_SNAPSHOT_DATE = re.compile(r"-[0-9]{8}$")


def list_price(model: str) -> tuple[float, float] | None:
    """The list price of `model`, or of the model a dated snapshot id pins (`claude-haiku-4-5-20251001` is
    `claude-haiku-4-5`: a snapshot is priced as its model); None for a model not in the table. Pinned by
    date, a known model had no cost in calibrate and was refused by serve without explicit prices."""
    known = KNOWN_PRICES_USD_PER_MTOK
    return known.get(model) or known.get(_SNAPSHOT_DATE.sub("", model))


def prices_from_args(args: argparse.Namespace) -> Prices | None:
    """Explicit prices win over the list price of a known model; None when neither is there."""
    known = list_price(args.llm_model)
    if (args.llm_price_input is None or args.llm_price_output is None) and known is None:
        return None
    default_in, default_out = known or (0.0, 0.0)
    return Prices(default_in if args.llm_price_input is None else args.llm_price_input,
                  default_out if args.llm_price_output is None else args.llm_price_output)
