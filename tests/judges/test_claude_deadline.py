"""`ClaudeJudge(timeout=...)` (`--llm-timeout`) bounds each attempt's whole reply, not each read of it: a
reply trickled a few bytes at a time never waits long on any one read, and used to hold a call open for
as long as the server liked, past the timeout the sidecar's lane and its budget count on."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from typing import Any

import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Reply, Trickle

from ragmon.judges.claude import ClaudeJudge, ClaudeJudgeError, Usage
from ragmon.model import Claim, ClaimVerdict, Context, Example

PARIS = Claim("The tower is in Paris.", 0, 22)
EXAMPLE = Example("slow", "Where is the tower?", (Context("d1", "The Eiffel Tower stands in Paris."),),
                  PARIS.text)

PATHS = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
"""`judge` (replay and calibrate as a library) and `ajudge` (the sidecar, replay, calibrate)."""


def judged(judge: ClaudeJudge, asynchronous: bool) -> tuple[tuple[ClaimVerdict, ...], Usage]:
    if not asynchronous:
        return judge.judge_with_usage(EXAMPLE, (PARIS,))

    async def run() -> tuple[tuple[ClaimVerdict, ...], Usage]:
        try:
            return await judge.ajudge_with_usage(EXAMPLE, (PARIS,))
        finally:
            await judge.aclose()

    return asyncio.run(run())


def make_judge(url: str, **options: Any) -> ClaudeJudge:
    return ClaudeJudge(base_url=url, api_key="test-key", **options)


@PATHS
def test_a_reply_trickled_past_the_timeout_is_a_timeout(fake_api: FakeAnthropic, asynchronous: bool) -> None:
    """16 bytes every 0.1 s: no read waits anywhere near the 0.4 s timeout, but the reply (over 300 bytes:
    its id, model, usage and one verdict) takes over 300 / 16 x 0.1 = 1.9 s to arrive whole."""
    fake_api.default = Trickle(interval=0.1)
    judge = make_judge(fake_api.url, timeout=0.4, max_retries=1)
    started = time.monotonic()
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(judge, asynchronous)
    elapsed = time.monotonic() - started
    assert caught.value.kind == "timeout" and "no reply within 0.4s" in str(caught.value)
    assert fake_api.calls == 2  # a timeout is retried, as ever
    # Both attempts were sent, and the API may have run and billed each: a budget counts both.
    assert caught.value.usage == Usage(unanswered=2)
    # Two attempts of 0.4 s, the SDK's backoff between them (0.5 s at most before the first retry), and
    # a second of slack for a loaded machine: still well short of the 1.9 s a single whole reply takes.
    assert elapsed < 2 * 0.4 + 0.5 + 1.0


@PATHS
def test_a_reply_whose_headers_trickle_past_the_timeout_is_a_timeout(fake_api: FakeAnthropic,
                                                                     asynchronous: bool) -> None:
    """The status line and headers (~500 bytes) 16 bytes every 0.1 s: no read waits near the 0.4 s timeout,
    yet the head alone takes over 3 s. `judge` waited for headers per read only (two attempts took ~7 s
    here, and a call at a 2 s timeout 60 s an attempt); it now runs on an event loop, as `ajudge` does,
    under one deadline."""
    fake_api.default = Trickle(interval=0.1, headers=True)
    judge = make_judge(fake_api.url, timeout=0.4, max_retries=1)
    started = time.monotonic()
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(judge, asynchronous)
    elapsed = time.monotonic() - started
    judge.close()
    assert caught.value.kind == "timeout" and "no reply within 0.4s" in str(caught.value)
    assert fake_api.calls == 2 and caught.value.usage == Usage(unanswered=2)
    assert elapsed < 2 * 0.4 + 0.5 + 1.0  # as for a trickled body, above


@PATHS
def test_an_answer_after_a_trickled_attempt_reports_that_attempt(fake_api: FakeAnthropic,
                                                                 asynchronous: bool) -> None:
    fake_api.enqueue(Trickle(interval=0.1))
    fake_api.default = Reply(usage=(1_000, 100))
    # 1 s: the trickle (1.9 s whole) is still cut off, and the answer has room on a loaded machine.
    verdicts, usage = judged(make_judge(fake_api.url, timeout=1.0, max_retries=1), asynchronous)
    assert [v.supported for v in verdicts] == [True] and fake_api.calls == 2
    # The answer billed 1,000 + 100; the trickled attempt before it was cut off, billed an unknown amount.
    assert usage == Usage(1_000, 100, 1, unanswered=1)


@PATHS
def test_a_trickled_reply_that_ends_within_the_timeout_is_an_answer(fake_api: FakeAnthropic,
                                                                    asynchronous: bool) -> None:
    """64 bytes every 10 ms: a reply of under 1 kB is whole in under 1024 / 64 x 0.01 = 0.16 s, well within
    the 2 s; read in pieces past the deadline check, it is still the same reply."""
    fake_api.default = Trickle(interval=0.01, chunk=64)
    verdicts, usage = judged(make_judge(fake_api.url, timeout=2.0, max_retries=0), asynchronous)
    assert [(v.claim, v.supported, v.supporting_ids) for v in verdicts] == [(PARIS, True, ("d1",))]
    assert (usage.calls, usage.unanswered) == (1, 0) and fake_api.calls == 1


@PATHS
def test_an_attempt_that_never_connected_is_not_counted_as_sent(asynchronous: bool) -> None:
    """A listening socket whose accept queue (of one) is full: the kernel drops further SYNs, so connecting
    hangs, as to an address behind a firewall that drops packets. The attempt's deadline ends it, but
    nothing was sent, so there is no bill to count: an unreachable API must not spend a budget."""
    with socket.socket() as server, socket.socket() as queued:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        queued.connect(server.getsockname())
        judge = make_judge(f"http://127.0.0.1:{server.getsockname()[1]}", timeout=0.3, max_retries=0)
        with pytest.raises(ClaudeJudgeError) as caught:
            judged(judge, asynchronous)
    assert caught.value.kind == "timeout" and caught.value.usage == Usage()


IN_AN_HOUR = email.utils.formatdate(time.time() + 3600, usegmt=True)


@PATHS
@pytest.mark.parametrize("asked", [{"retry-after": "20"}, {"retry-after-ms": "20000"},
                                   {"retry-after": IN_AN_HOUR}], ids=["seconds", "ms", "date"])
def test_a_retry_the_api_asks_to_delay_past_the_calls_bound_is_not_made(
        fake_api: FakeAnthropic, asynchronous: bool, asked: dict[str, str]) -> None:
    """The SDK waits as long as a 429's retry-after says, on top of the attempts' timeouts: at a 1 s
    timeout and 2 retries, a call held its caller (a lane's worker, and its reservation) for 40 s of waits,
    or an hour. A call is bounded by 1 s x 3 attempts = 3 s: a wait of 20 s leaves no room for another
    attempt in it, so the call ends at once, rate limited, saying why."""
    fake_api.default = Fail(429, "rate_limit_error", asked)
    judge = make_judge(fake_api.url, timeout=1.0, max_retries=2)
    started = time.monotonic()
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(judge, asynchronous)
    elapsed = time.monotonic() - started
    assert caught.value.kind == "rate_limited" and fake_api.calls == 1 and elapsed < 3.0
    message = str(caught.value)
    assert "rate limited (429) after 1 attempt; the API asked to wait" in message
    # The wait with the retry's own 1 s, not the wait alone, passes the bound: "asked to wait 2s ... past
    # this call's bound of 3s" had read as a contradiction.
    assert message.endswith("which with the 1s the retry may take passes this call's bound of 3s (timeout "
                            "1s x 3 attempts)")
    assert caught.value.usage == Usage()  # a 429 is not billed


@pytest.mark.parametrize(("asked", "shown"), [
    ({"retry-after": "20"}, "20s"), ({"retry-after-ms": "1500"}, "1.5s"), ({"retry-after": "3600"}, "3,600s"),
    # Read as the SDK reads them; had been told "infs" and "2.29972e+09s".
    ({"retry-after": "inf"}, "more than a day"),
    ({"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}, "more than a day"),
])
def test_the_wait_the_api_asked_for_is_told_as_a_person_reads_it(
        fake_api: FakeAnthropic, asked: dict[str, str], shown: str) -> None:
    fake_api.default = Fail(429, "rate_limit_error", asked)
    judge = make_judge(fake_api.url, timeout=0.5, max_retries=2)
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(judge, False)
    told = (f"the API asked to wait {shown} before retrying, which with the 0.5s the retry may take passes "
            f"this call's bound of 1.5s")
    assert told in str(caught.value)


@PATHS
def test_a_retry_the_api_asks_to_delay_within_the_bound_is_made(fake_api: FakeAnthropic,
                                                                asynchronous: bool) -> None:
    """0.5 s of wait and a 1 s attempt fit in the 2 s of 1 s x 2 attempts: waited for, as the API asked."""
    fake_api.enqueue(Fail(429, "rate_limit_error", {"retry-after": "0.5"}))
    started = time.monotonic()
    verdicts, _ = judged(make_judge(fake_api.url, timeout=1.0, max_retries=1), asynchronous)
    assert [v.supported for v in verdicts] == [True] and fake_api.calls == 2
    assert time.monotonic() - started >= 0.5



def test_the_sdks_backoff_is_no_part_of_the_bound_a_requested_wait_must_fit(fake_api: FakeAnthropic) -> None:
    """The README and --help had said a retry-after ended the call only past the attempts' timeouts plus
    the SDK's backoff (1 s x 2 + 0.5 s = 2.5 s here), where the bound is the timeouts alone: a 1.2 s wait
    and a 1 s attempt (2.2 s) fit the first and not the second, so no retry is made."""
    fake_api.enqueue(Fail(429, "rate_limit_error", {"retry-after": "1.2"}))
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(make_judge(fake_api.url, timeout=1.0, max_retries=1), False)
    assert caught.value.kind == "rate_limited" and fake_api.calls == 1
    assert str(caught.value).endswith("passes this call's bound of 2s (timeout 1s x 2 attempts)")

@pytest.mark.parametrize(("status", "error_type", "headers", "said"), [
    (400, "invalid_request_error", {"retry-after": "100"}, "API error 400: invalid_request_error: fake 400 "
                                                           "(1 attempt)"),
    (429, "rate_limit_error", {"retry-after": "100", "x-should-retry": "false"},
     "rate limited (429) after 1 attempt"),
], ids=["a-400", "told-not-to-retry"])
def test_an_error_the_sdk_does_not_retry_is_not_said_cut_short_by_the_bound(
        fake_api: FakeAnthropic, status: int, error_type: str, headers: dict[str, str], said: str) -> None:
    """A reply the SDK never retries, whatever wait it asks: the call's bound played no part, and the error
    had said the wait passed it."""
    fake_api.default = Fail(status, error_type, headers)
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(make_judge(fake_api.url, timeout=1.0, max_retries=2), False)
    assert fake_api.calls == 1
    assert str(caught.value) == f"example 'slow': Claude judge: {said}"


@PATHS
def test_a_request_that_never_left_the_process_costs_nothing_and_says_why(
        fake_api: FakeAnthropic, asynchronous: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A header h11 will not write (here a custom header's name with a space, from the SDK's
    ANTHROPIC_CUSTOM_HEADERS) fails each attempt before a byte is sent: no request reached the API, so
    nothing can have been billed. Counted as 3 attempts at their worst case, it spent a budget on bills
    that cannot exist; told as "Connection error.", it hid that the fault was in the process."""
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X Not A Name: 1")
    judge = make_judge(fake_api.url, timeout=2.0, max_retries=2)
    with pytest.raises(ClaudeJudgeError) as caught:
        judged(judge, asynchronous)
    assert fake_api.calls == 0 and caught.value.kind == "error" and caught.value.usage == Usage()
    assert str(caught.value) == (f"example 'slow': Claude judge: cannot reach the API at {fake_api.url}: the "
                                 "request was never sent (LocalProtocolError; 3 attempts)")
