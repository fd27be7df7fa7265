"""What the documents take of a Claude request is bounded, whatever their number and ids: each document's
tags and id count against `max_total_chars` with its text, an id longer than 200 characters is shown
shortened, and the documents that do not fit are left out and counted (`omitted=`), never silently.

Counting the text alone, 2,000 documents of no text, or 500 with 120-character URLs for ids, made calls
bounded at 153,763 and 105,263 input tokens, where `largest_request_bound()` (what `ragmon serve` checks
its daily budget against) allowed for 36,693; a replay of 3,000 documents sent a 748,826-character prompt.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from fakes.anthropic_server import FakeAnthropic, documents_of, prompt_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmon.judges.claude import ClaudeJudge
from ragmon.model import Claim, Context, Example

PARIS = Claim("The tower is in Paris.", 0, 22)

def make_judge(api: FakeAnthropic | None = None, **options: Any) -> ClaudeJudge:
    """A judge of the fake API, or of an address nobody answers when only its plans are looked at."""
    return ClaudeJudge(base_url=api.url if api else "http://127.0.0.1:9", api_key="test-key", **options)


def kb(i: int, length: int) -> str:
    """A knowledge-base URL of `length` characters, told apart by `i` in its first 29."""
    return f"https://kb.example.com/{i:06d}".ljust(length, "x")


def documents_part(body: dict[str, Any]) -> str:
    """The documents as the prompt holds them, from the line after <documents ...> to </documents>."""
    match = re.search(r"<documents[^>]*>\n(.*)</documents>", prompt_text(body), re.S)
    assert match is not None
    return match[1]


def request_bytes(text: str) -> int:
    """What `text` takes of a request body: the UTF-8 bytes of its JSON string."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def test_the_testers_shapes_fit_the_largest_request(fake_api: FakeAnthropic) -> None:
    """One document's tags, as the request's JSON writes them (a quote or a line break is two characters):
    '<document id=\\"' 15, '\\"' 2, ' truncated=\\"true\\"' 19, '>' 1, '\\n' 2, '\\n' 2, '</document>' 11,
    and the line break before the next 2: 54 with truncated="true", 35 without. Every document is charged
    54, with its id and text, out of the 24,000.

    500 documents with 120-character URLs for ids and 48 characters of text: each is charged 54 + 120 + 48
    = 222, so 108 go in (23,976) and 392 are left out. Sent whole, each takes 35 + 120 + 48 = 203 of the
    request: 21,924. Then 2,000 documents of no text and 40-character ids: each is charged 54 + 40 = 94,
    and goes in while room is left after it: after 255 (23,970), 30 are left, not enough for the 256th;
    sent, each takes 35 + 40 = 75, 19,125 in all."""
    judge = make_judge(fake_api)
    largest = judge.largest_request_bound().input_tokens
    for count, id_chars, text_chars, sent, share in [(500, 120, 48, 108, 108 * 203),
                                                     (2_000, 40, 0, 255, 255 * 75)]:
        contexts = tuple(Context(kb(i, id_chars), "w" * text_chars) for i in range(count))
        example = Example("e", "q?", contexts, PARIS.text)
        bound = judge.request_bound(example, (PARIS,))
        judge.judge(example, (PARIS,))
        body = fake_api.requests[-1]
        assert len(documents_of(body)) == sent
        assert f'<documents omitted="{count - sent}">' in prompt_text(body)
        assert request_bytes(documents_part(body)) == share
        assert bound is not None and bound.input_tokens <= largest


def test_a_long_id_is_shown_shortened_and_its_verdict_names_the_document(fake_api: FakeAnthropic) -> None:
    """Two 500-character URLs alike in their first 200: each is shown as those 200 and its rank, so they
    stay apart, and each takes 200 + len("...[1]") = 206 characters of the budget, not 500. A verdict
    citing the id as shown names the document by its own id."""
    first, second = kb(1, 500), kb(1, 499) + "y"
    contexts = (Context(first, "The Eiffel Tower stands in Paris."), Context(second, "Rome is in Italy."))
    fake_api.decide = lambda body: [{"claim": PARIS.text, "supported": True,
                                     "supporting_ids": [next(iter(documents_of(body)))], "reason": "r"}]
    judge = make_judge(fake_api)
    (verdict,) = judge.judge(Example("long", "q", contexts, PARIS.text), (PARIS,))
    assert list(documents_of(fake_api.requests[0])) == [first[:200] + "...[1]", first[:200] + "...[2]"]
    assert verdict.supporting_ids == (first,)

    # The documents as retrieved are in the cache key, not only as shown: the same prompt of another
    # document (its id unlike past what is shown) is another call, whose verdict names that document.
    swapped = (Context(second, contexts[0].text), Context(first, contexts[1].text))
    (other,) = judge.judge(Example("long", "q", swapped, PARIS.text), (PARIS,))
    assert prompt_text(fake_api.requests[1]) == prompt_text(fake_api.requests[0])
    assert fake_api.calls == 2 and other.supporting_ids == (second,)
    assert judge.judge(Example("long", "q", swapped, PARIS.text), (PARIS,)) == (other,)
    assert fake_api.calls == 2


def test_a_budget_too_small_for_any_document_says_so_without_a_call(fake_api: FakeAnthropic) -> None:
    """Under max_total_chars=50 a document of id "d1" would take 54 + 2 characters before its text: none
    goes out, and the claim is unsupported with a reason naming the document left out."""
    example = Example("tiny", "q", (Context("d1", "The Eiffel Tower stands in Paris."),), PARIS.text)
    (verdict,) = make_judge(fake_api, max_total_chars=50).judge(example, (PARIS,))
    assert fake_api.calls == 0 and not verdict.supported
    assert verdict.reason == ("no retrieved document fitted in max_total_chars to support it [ragmon: "
                              "Claude saw documents clipped (max_doc_chars=4000, max_total_chars=50): 1 left "
                              "out (d1)]")


# --- property: no example makes a call larger than the largest -------------------------------------------

ID_CHARS = st.sampled_from(["x", "&", '"', "<", "\\", "\n", "é", "日"])
"""What pads an id: ids count at what the request takes to write them, escapes and all."""

GROUPS = st.lists(st.tuples(st.integers(1, 600), st.integers(0, 1_200), st.integers(0, 5_000), ID_CHARS),
                  min_size=1, max_size=4)
"""Runs of documents alike: how many, their ids' length, their texts' length, and what pads the ids."""

LIMITS = st.sampled_from([(4_000, 24_000), (4_000, 100), (100, 300), (1, 2_000), (700, 30_000),
                          (9_000, 9_000)])
"""(max_doc_chars, max_total_chars): the defaults, and a few far from them."""


@functools.cache
def planner(limits: tuple[int, int]) -> ClaudeJudge:
    """One judge of each limits for the whole property (a judge takes ~50 ms to build); it only plans."""
    max_doc_chars, max_total_chars = limits
    return make_judge(max_doc_chars=max_doc_chars, max_total_chars=max_total_chars)


@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(groups=GROUPS, limits=LIMITS, question=st.integers(0, 9_000),
       claims=st.lists(st.integers(1, 300), min_size=1, max_size=45))
def test_no_call_is_larger_than_the_largest_request(groups: list[tuple[int, int, int, str]],
                                                    limits: tuple[int, int], question: int,
                                                    claims: list[int]) -> None:
    """Many tiny documents, long ids, empty texts, escapes in ids, a long question, many claims: every call
    fits `largest_request_bound()` of the same judge. Text is of characters the request writes in one
    byte, the case the bound is documented for."""
    judge = planner(limits)
    contexts = tuple(Context(f"{g}-{i}-".ljust(id_chars, pad), "w" * text_chars)
                     for g, (count, id_chars, text_chars, pad) in enumerate(groups) for i in range(count))
    answer = tuple(Claim("c" * length + ".", 0, length + 1) for length in claims)
    bound = judge.request_bound(Example("e", "q" * question, contexts, None), answer)
    largest = judge.largest_request_bound()
    assert bound is None or bound.call_input_tokens <= largest.input_tokens


def test_text_of_several_bytes_a_character_is_bounded_at_a_token_a_byte() -> None:
    """A tokenizer may give a character outside its vocabulary (an emoji, a rare CJK ideograph beyond the
    Basic Multilingual Plane) a token per UTF-8 byte, so the bound counts bytes, not characters: 300 emoji
    of 4 bytes each, in the document and in the claim, bound at least 2 x 300 x (4 - 1) = 1,800 tokens more
    than 300 ASCII letters; 300 ideographs of U+20000 (4 bytes) as many."""
    judge = make_judge()
    try:
        def bound(text: str) -> int:
            made = judge.request_bound(Example("e", "q", (Context("d1", text),), text),
                                       (Claim(text, 0, len(text)),))
            assert made is not None
            return made.input_tokens

        ascii_bound = bound("a" * 300)
        for wide in ("\U0001F600", "\U00020000"):
            assert bound(wide * 300) - ascii_bound >= 1_800
    finally:
        judge.close()
