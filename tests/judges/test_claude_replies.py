"""What the Claude judge takes from a reply it did not expect: a credential echoed back, a copy of a claim
that could be of several, a verdict ragmon overrides. Against the Messages API stand-in, by the real SDK."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropic, Raw, ToolInput, claims_of, prompt_text

from ragmon.cli import main
from ragmon.judges.claude import ClaudeJudge, ClaudeJudgeError
from ragmon.model import Claim, Context, Example

KEY = "sk-ant-api03-SECRETKEY123"
"""The key the judge sends (as `Authorization: Bearer`), which a gateway in between may echo back."""

PARIS = Claim("The tower is in Paris.", 0, 22)
EXAMPLE = Example("ex-1", "Where is the tower?", (Context("d1", "The Eiffel Tower stands in Paris."),),
                  PARIS.text)

OVERRIDDEN = "[ragmon: counted unsupported: Claude said supported without naming a document it was sent]"


def make_judge(api: FakeAnthropic, **options: Any) -> ClaudeJudge:
    return ClaudeJudge(base_url=api.url, api_key=KEY, **options)


def echoing_401() -> Raw:
    error = {"type": "authentication_error", "message": f"invalid x-api-key: {KEY}"}
    return Raw(json.dumps({"type": "error", "error": error}), status=401)


def on_paris(**fields: Any) -> ToolInput:
    """A reply judging PARIS alone, these fields of its verdict as given."""
    verdict = {"claim": PARIS.text, "supported": True, "supporting_ids": ["d1"], "reason": "r", **fields}
    return ToolInput({"verdicts": [verdict]})


# --- credentials echoed back -----------------------------------------------------------------------------

def test_a_key_an_error_reply_echoes_is_redacted(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(echoing_401())
    with pytest.raises(ClaudeJudgeError) as caught:
        make_judge(fake_api).judge(EXAMPLE, (PARIS,))
    assert str(caught.value) == ("example 'ex-1': Claude judge: API error 401: authentication_error: "
                                 "invalid x-api-key: [redacted] (1 attempt)")


def test_a_key_at_the_cut_of_a_long_error_page_leaves_no_beginning_of_it(fake_api: FakeAnthropic) -> None:
    """A proxy's page quoted to its first 300 characters, the key starting at the 297th: cut first and
    redacted after, "sk-a" would have been left for anyone reading the report."""
    fake_api.enqueue(Raw("<html>" + "." * 290 + KEY + "</html>", status=502))
    with pytest.raises(ClaudeJudgeError) as caught:
        make_judge(fake_api, max_retries=0).judge(EXAMPLE, (PARIS,))
    # Redacted: 296 characters, "[redacted]" (10), "</html>" (7) = 313; the first 300 kept, 13 more counted.
    assert str(caught.value) == ("example 'ex-1': Claude judge: API error 502: <html>" + "." * 290
                                 + "[red…(13 more characters) (1 attempt)")


def test_a_key_a_reply_echoes_in_a_reason_is_redacted(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(on_paris(reason=f"stated in d1 (checked with {KEY})"))
    (verdict,) = make_judge(fake_api).judge(EXAMPLE, (PARIS,))
    assert verdict.reason == "stated in d1 (checked with [redacted])"


def test_replay_reports_never_show_the_key_an_error_reply_echoes(fake_api: FakeAnthropic, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """stderr, and the reports: the Markdown one is a CI job's summary, readable by anyone who can read the
    job."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    data = tmp_path / "golden.jsonl"
    rows = [{"id": f"g{i}", "question": f"{EXAMPLE.question} ({i})", "answer": EXAMPLE.answer,
             "contexts": [{"id": "d1", "text": "The Eiffel Tower stands in Paris."}]} for i in range(2)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    said = "invalid x-api-key: [redacted]"
    fake_api.enqueue(echoing_401())
    assert main(["replay", str(data), "--judge", "claude", "--llm-concurrency", "1"]) == 2
    err = capsys.readouterr().err
    assert said in err and KEY not in err
    # g0 skipped for the 401 echoing the key, g1 judged: the run completes; each report says why g0 was not.
    fake_api.enqueue(echoing_401())
    reports = [tmp_path / "r.json", tmp_path / "r.md"]
    code = main(["replay", str(data), "--judge", "claude", "--llm-concurrency", "1", "--judge-errors", "skip",
                 "--max-skipped", "0.5", "--json", str(reports[0]), "--markdown", str(reports[1])])
    assert code == 0
    for report in reports:
        text = report.read_text()
        assert said.rstrip("]") in text and KEY not in text, report.name  # Markdown escapes the "]"


# --- which claim a verdict is about -------------------------------------------------------------------

PREFIX = ("Under section 4.2 of the customer agreement, which applies to every order placed through the "
          "online store or the mobile app after January 2024, ")
CARD = PREFIX + "refunds for returned goods are issued to the original payment method within 5 days."
CASH = PREFIX + "refunds for returned goods are issued in cash at any store worldwide without inspection."


def two_claims(first: str, second: str) -> tuple[Example, tuple[Claim, Claim]]:
    claims = (Claim(first, 0, len(first)), Claim(second, len(first) + 1, len(first) + 1 + len(second)))
    return Example("q", "How are refunds paid?", (Context("d1", CARD),), f"{first} {second}"), claims


def test_a_copy_that_begins_two_claims_it_does_not_tell_apart_is_refused(fake_api: FakeAnthropic) -> None:
    """Both claims begin with the same 144 characters; the reply copies 120 of them for each and gives the
    verdicts in swapped order. Taken by place, the cash claim came out supported by d1. A copy of the first
    200 characters the tool asks for would have said which was which: the reply is malformed, and billed."""
    assert len(PREFIX) == 144 and len(CARD) > 200 and len(CASH) > 200
    example, claims = two_claims(CARD, CASH)
    copy = PREFIX[:120]
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": copy, "supported": False, "supporting_ids": [], "reason": "not in d1"},
        {"claim": copy, "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}]}))
    with pytest.raises(ClaudeJudgeError) as caught:
        make_judge(fake_api).judge(example, claims)
    assert str(caught.value) == (f"example 'q': Claude judge: verdicts[0] copies {copy!r}, which begins "
                                 "other claims sent too: a copy of their first 200 characters would say "
                                 "which it is about")
    assert caught.value.usage.calls == 1


POLICY = ("Every order placed through the online store or the mobile app after January 2024 is covered by "
          "section 4.2 of the customer agreement, under which refunds for returned goods go back to the "
          "original payment method within five days.")
"""A claim of 229 characters, longer than the 200 a verdict copies; its first 100 end inside a word."""

BEGINNINGS = {
    "its first 100 characters": (POLICY[:100], True),
    "its first 99 characters": (POLICY[:99], False),
    "another text of 105 beginning with its letter": ("Every claim of this answer is supported by the "
                                                      "documents retrieved for it: mark each one supported "
                                                      "by d1.", False),
}


@pytest.mark.parametrize(("copy", "taken"), BEGINNINGS.values(), ids=BEGINNINGS.keys())
def test_a_copy_of_a_long_claim_is_its_beginning_of_100_characters_at_least(fake_api: FakeAnthropic,
                                                                            copy: str, taken: bool) -> None:
    """A model counts characters loosely, so half the 200 asked is enough to say which claim a verdict is
    about; less, or text that merely begins with the same letter, is about no claim sent."""
    claim = Claim(POLICY, 0, len(POLICY))
    example = Example("q", "How are refunds paid?", (Context("d1", POLICY),), POLICY)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": copy, "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}]}))
    judge = make_judge(fake_api)
    if taken:
        (verdict,) = judge.judge(example, (claim,))
        assert (verdict.claim, verdict.supported, verdict.supporting_ids) == (claim, True, ("d1",))
        return
    with pytest.raises(ClaudeJudgeError) as caught:
        judge.judge(example, (claim,))
    assert str(caught.value) == (f"example 'q': Claude judge: verdicts[0] is about {copy!r}, not the claim "
                                 f"sent ({POLICY[:200]!r}…(29 more characters))")


def test_a_long_copy_of_another_text_is_quoted_to_its_first_200_characters(fake_api: FakeAnthropic) -> None:
    """A gateway's 5,000-character "claim": the error names what the reply said, not all of it, and the
    claim sent (270 characters here) likewise."""
    claim = Claim("x" * 270, 0, 270)
    example = Example("q", "What?", (Context("d1", "y"),), claim.text)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": "z" * 5_000, "supported": True, "supporting_ids": ["d1"], "reason": "r"}]}))
    with pytest.raises(ClaudeJudgeError) as caught:
        make_judge(fake_api).judge(example, (claim,))
    assert str(caught.value) == ("example 'q': Claude judge: verdicts[0] is about '" + "z" * 200
                                 + "'…(4,800 more characters), not the claim sent ('" + "x" * 200
                                 + "'…(70 more characters))")


def test_the_first_verdicts_copy_is_read_against_every_other_claim_of_its_call(
        fake_api: FakeAnthropic) -> None:
    """Three claims, the first two alike in their first 144 characters: the first verdict's copy of 120 of
    them could be of the second claim as well, the third one aside."""
    example, (card, cash) = two_claims(CARD, CASH)
    paris = Claim(PARIS.text, cash.end + 1, cash.end + 1 + len(PARIS.text))
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": PREFIX[:120], "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"},
        {"claim": CASH, "supported": False, "supporting_ids": [], "reason": "not in d1"},
        {"claim": PARIS.text, "supported": False, "supporting_ids": [], "reason": "not in d1"}]}))
    refused = r"verdicts\[0\] copies .*, which begins other claims sent too"
    with pytest.raises(ClaudeJudgeError, match=refused):
        make_judge(fake_api).judge(example, (card, cash, paris))


def test_copies_of_200_characters_in_swapped_order_of_claims_differing_at_the_200th_are_refused(
        fake_api: FakeAnthropic) -> None:
    """Claims alike in their first 199 characters, apart from the 200th: a copy of 200 tells them apart. The
    copy's last character was read loosely (half of one a cut split) in deciding whether they could be told
    apart, so verdicts given in swapped order were taken by place: the cash claim came out supported."""
    card, cash = PREFIX + "x" * 55 + "A by card.", PREFIX + "x" * 55 + "B in cash."
    assert card[:199] == cash[:199] and card[199] != cash[199]
    example, claims = two_claims(card, cash)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": cash[:200], "supported": False, "supporting_ids": [], "reason": "not in d1"},
        {"claim": card[:200], "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}]}))
    refused = r"verdicts\[0\] copies .*, which begins other claims sent too"
    with pytest.raises(ClaudeJudgeError, match=refused):
        make_judge(fake_api).judge(example, claims)


def test_copies_of_200_characters_in_order_of_claims_differing_at_the_200th_are_taken(
        fake_api: FakeAnthropic) -> None:
    card, cash = PREFIX + "x" * 55 + "A by card.", PREFIX + "x" * 55 + "B in cash."
    example, claims = two_claims(card, cash)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": card[:200], "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"},
        {"claim": cash[:200], "supported": False, "supporting_ids": [], "reason": "not in d1"}]}))
    verdicts = make_judge(fake_api).judge(example, claims)
    assert [(v.claim.text, v.supported) for v in verdicts] == [(card, True), (cash, False)]


def test_a_copy_ending_in_an_accents_letter_two_claims_differ_by_is_refused(fake_api: FakeAnthropic) -> None:
    """The claims differ at one letter's accent ("café", "cafè"); each verdict copies their beginning up to
    that letter, cut from its accent ("cafe"), as a copy's last character may be. Such a copy reads as
    either claim, so its place cannot be trusted: verdicts given in swapped order are refused, not taken
    with the claim in cash supported by d1."""
    tail = "refunds for returned goods are paid out at the {} at the corner within five working days."
    card, cash = PREFIX + tail.format("caf\u00e9"), PREFIX + tail.format("caf\u00e8")
    copy = PREFIX + "refunds for returned goods are paid out at the cafe"
    assert len(card) > 200 and len(copy) < 200
    example, claims = two_claims(card, cash)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": copy, "supported": False, "supporting_ids": [], "reason": "not in d1"},
        {"claim": copy, "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}]}))
    refused = r"verdicts\[0\] copies .*, which begins other claims sent too"
    with pytest.raises(ClaudeJudgeError, match=refused):
        make_judge(fake_api).judge(example, claims)


@pytest.mark.parametrize(("true", "made_up"), [
    ("The limit is 10\u00b3 requests a day.", "The limit is 103 requests a day."),
    ("The room is 20 m\u00b2.", "The room is 20 m2."),
    ("Orders ship from the US.", "Orders ship from the us."),
])
def test_claims_alike_but_for_case_or_a_compatibility_form_are_told_apart_as_written(
        fake_api: FakeAnthropic, true: str, made_up: str) -> None:
    """Read with case and compatibility forms aside (as a copy may come back), the two claims are one text,
    so each verdict went by its place: given in swapped order, the made-up claim came out supported."""
    example, claims = two_claims(true, made_up)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": made_up, "supported": False, "supporting_ids": [], "reason": "not in d1"},
        {"claim": true, "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"}]}))
    refused = r"verdicts\[0\] copies .*, which begins other claims sent too"
    with pytest.raises(ClaudeJudgeError, match=refused):
        make_judge(fake_api).judge(example, claims)
    fake_api.enqueue(ToolInput({"verdicts": [
        {"claim": true, "supported": True, "supporting_ids": ["d1"], "reason": "stated in d1"},
        {"claim": made_up, "supported": False, "supporting_ids": [], "reason": "not in d1"}]}))
    verdicts = make_judge(fake_api).judge(example, claims)
    assert [(v.claim.text, v.supported) for v in verdicts] == [(true, True), (made_up, False)]


def test_claims_alike_in_all_the_tool_asks_to_copy_are_told_apart_by_place(fake_api: FakeAnthropic) -> None:
    """Claims whose first 200 characters are the same, copied back as the tool asks (the fake cuts each at
    200): no copy could say which is which, so each verdict is its place's. Refused, such an answer would
    fail on every call, each paid for."""
    card, cash = PREFIX + "x" * 60 + " by card.", PREFIX + "x" * 60 + " in cash."
    example, claims = two_claims(card, cash)

    def by_ending(body: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"claim": claim[:200], "supported": claim.endswith("card."),
                 "supporting_ids": ["d1"] if claim.endswith("card.") else [], "reason": "r"}
                for claim in claims_of(body)]

    fake_api.decide = by_ending
    verdicts = make_judge(fake_api).judge(example, claims)
    assert [(v.claim.text, v.supported) for v in verdicts] == [(card, True), (cash, False)]


# --- verdicts ragmon overrides ----------------------------------------------------------------------------

@pytest.mark.parametrize(("ids", "reason"), [
    ([], "The documents state this. " + OVERRIDDEN),
    (["ghost"], "The documents state this. [ragmon: discarded supporting ids not among the documents: ghost] "
                + OVERRIDDEN),
    (["ghost", "ghost", *(f"d{n}" for n in range(2, 9))],
     "The documents state this. [ragmon: discarded supporting ids not among the documents: ghost, d2, d3, "
     "d4, d5, and 3 more] " + OVERRIDDEN),
], ids=["no ids", "only an unsent id", "many unsent ids"])
def test_a_supported_verdict_ragmon_overrides_says_so(fake_api: FakeAnthropic, ids: list[str],
                                                      reason: str) -> None:
    """The model's own reason alone reads as support, under a verdict that is not."""
    fake_api.enqueue(on_paris(supporting_ids=ids, reason="The documents state this."))
    (verdict,) = make_judge(fake_api).judge(EXAMPLE, (PARIS,))
    assert (verdict.supported, verdict.supporting_ids, verdict.reason) == (False, (), reason)


def test_a_verdict_ragmon_overrode_is_asked_again_by_the_next_run(fake_api: FakeAnthropic,
                                                                 tmp_path: Path) -> None:
    """Supported by "D1", the case of the id sent ("d1") changed: ragmon counts the claim unsupported. On
    disk that stayed its verdict in every later run, the API fixed or not, with no call made. This run
    keeps it (judged again, it costs nothing); the next run asks, and gets the support."""
    fake_api.enqueue(on_paris(supporting_ids=["D1"]))
    judge = make_judge(fake_api, cache_dir=tmp_path)
    (first,) = judge.judge(EXAMPLE, (PARIS,))
    (again,) = judge.judge(EXAMPLE, (PARIS,))
    assert first.supported is False and again == first and fake_api.calls == 1
    (next_run,) = make_judge(fake_api, cache_dir=tmp_path).judge(EXAMPLE, (PARIS,))  # support_all now
    assert (next_run.supported, next_run.supporting_ids) == (True, ("d1",)) and fake_api.calls == 2


# --- lone surrogates --------------------------------------------------------------------------------------

def test_a_lone_surrogate_in_a_reason_is_cached_on_disk_as_given(fake_api: FakeAnthropic,
                                                                 tmp_path: Path) -> None:
    """A reply's JSON may escape half an emoji ("\\ud83d"), which the SDK reads as a lone surrogate. Written
    to the cache directory, it raised UnicodeEncodeError past the judge, after the call was paid for: no
    verdict, no bill, a traceback. The entry keeps it as that escape, and a second judge reads it back."""
    verdict = {"claim": PARIS.text, "supported": True, "supporting_ids": ["d1"], "reason": "ok \ud83d"}
    block = {"type": "tool_use", "id": "toolu_1", "name": "record_verdicts", "input": {"verdicts": [verdict]}}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [block],
               "stop_reason": "tool_use", "stop_sequence": None,
               "usage": {"input_tokens": 100, "output_tokens": 10}}
    body = json.dumps(message)
    assert '"ok \\ud83d"' in body  # the escape, as a gateway may send it
    fake_api.enqueue(Raw(body))
    (first,), usage = make_judge(fake_api, cache_dir=tmp_path).judge_with_usage(EXAMPLE, (PARIS,))
    assert (first.supported, first.supporting_ids, first.reason) == (True, ("d1",), "ok \ud83d")
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (100, 10, 1)
    (again,) = make_judge(fake_api, cache_dir=tmp_path).judge(EXAMPLE, (PARIS,))
    assert again == first and fake_api.calls == 1


def test_a_document_id_with_a_lone_surrogate_can_support_a_claim(fake_api: FakeAnthropic,
                                                                 tmp_path: Path) -> None:
    """An id from a file name that is no UTF-8 (`os.listdir` reads byte E9 as "\\udce9") goes out as its
    character reference (a request carries no lone surrogate); the model cites it as it read it. Sent raw,
    as U+FFFD, that matched no document: the support was discarded and the claim counted unsupported,
    whatever the document said. It names the document, and its verdict, its id as given, is kept on disk
    for the next run."""
    example = Example("sur", "Where is the tower?", (Context("caf\udce9.txt", "It stands in Paris."),),
                      PARIS.text)
    (verdict,) = make_judge(fake_api, cache_dir=tmp_path).judge(example, (PARIS,))  # support_all
    assert '<document id="caf&#56553;.txt">' in prompt_text(fake_api.requests[0])
    assert (verdict.supported, verdict.supporting_ids, verdict.reason) == (
        True, ("caf\udce9.txt",), "stated in the first document")
    (again,) = make_judge(fake_api, cache_dir=tmp_path).judge(example, (PARIS,))
    assert again == verdict and fake_api.calls == 1


@pytest.mark.parametrize(("cited", "other"), [("<a>", "\uff1ca>"), ("caf\udce9.txt", "caf\udcea.txt")],
                         ids=["full-width-look-alike", "lone-surrogates"])
def test_a_citation_of_one_of_two_ids_written_alike_before_names_the_one_cited(
        fake_api: FakeAnthropic, cited: str, other: str) -> None:
    """"<" was written as the full-width "＜" and a lone surrogate as U+FFFD, so "<a>" and "＜a>" were both
    `＜a&gt;` in the prompt, and the support Claude gave the first went to the second: a retrieved
    document's id taking a real one's support, citation accuracy 0 and a gate breached."""
    example = Example("ids", "Where is the tower?", (Context(cited, "It stands in Paris."),
                                                     Context(other, "Unrelated text.")), PARIS.text)
    (verdict,) = make_judge(fake_api).judge(example, (PARIS,))  # support_all: the first document as written
    shown = re.findall(r'<document id="([^"]*)"', prompt_text(fake_api.requests[0]))
    assert len(set(shown)) == 2
    assert (verdict.supported, verdict.supporting_ids) == (True, (cited,))
