"""An emoji ending a sentence with no full stop: "...30 days 🎉 Exchanges are free." is two claims, as chat
answers write two sentences; an emoji within a sentence ("I ❤️ it", "ship to 🇺🇸 US addresses") or opening
one ("✅ Free shipping") ends nothing."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.claims import sentence_spans, split_claims

REFUND = "Most items can be returned within 30 days of delivery for a full refund"
GIFT = "Gift cards are refundable too."


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def test_a_made_up_sentence_after_an_emoji_is_a_claim_of_its_own() -> None:
    # One claim, the gift-card sentence riding on the refund one: supported, groundedness 1.0. Two: the
    # refund sentence's terms are all in the context, the gift card's ("gift", "card", "refund") 1 of 3.
    example = Example("x", "Can I return items?", (Context("c1", REFUND + "."),), f"{REFUND} 🎉 {GIFT}")
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(f"{REFUND} 🎉", True), (GIFT, False)]
    assert result.metrics["groundedness"] == 0.5


def test_the_claims_of_an_answer_split_at_an_emoji_slice_it() -> None:
    # "Refunds take 30 days " is 21 characters, the emoji the 22nd; "Exchanges are free." is 19 after the
    # space at 22: 23 to 42.
    answer = "Refunds take 30 days 🎉 Exchanges are free."
    assert [(c.text, c.start, c.end) for c in split_claims(answer)] == [
        ("Refunds take 30 days 🎉", 0, 22), ("Exchanges are free.", 23, 42)]


@pytest.mark.parametrize("emoji", [
    "👍🏽",  # a skin tone
    "👨\u200d👩\u200d👧",  # a family: three emoji a zero-width joiner makes one
    "❤️",  # a heart with its emoji variation selector
    "🇫🇷",  # a flag: two regional indicator letters
    "🎉🎉",
])
def test_an_emoji_sequence_before_a_capital_ends_the_sentence(emoji: str) -> None:
    assert sentences(f"Refunds take 30 days {emoji} Exchanges are free.") == [
        f"Refunds take 30 days {emoji}", "Exchanges are free."]


@pytest.mark.parametrize(("text", "expected"), [
    ("Refunds take 30 days 🎉 2 items may be exchanged.",
     ["Refunds take 30 days 🎉", "2 items may be exchanged."]),
    ("Refunds take 30 days🎉 Exchanges are free.", ["Refunds take 30 days🎉", "Exchanges are free."]),
    ("Rückerstattungen dauern 30 Tage 🎉 Über uns mehr.",
     ["Rückerstattungen dauern 30 Tage 🎉", "Über uns mehr."]),
])
def test_an_emoji_before_a_digit_or_after_a_word_ends_the_sentence(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", [
    "I ❤️ it when refunds are quick.",
    "Refunds take 30 days 🎉 and exchanges are free.",
    "I ❤️ New York.",
    "We ship to 🇺🇸 US addresses only.",
    "Go to Settings → Billing to see it.",
    "Tap ➡ Next to go on.",
])
def test_an_emoji_or_an_arrow_within_a_sentence_ends_nothing(text: str) -> None:
    assert sentences(text) == [text]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Refunds take 30 days. 🎉 Exchanges are free.", ["Refunds take 30 days.", "🎉 Exchanges are free."]),
    ("Refunds take 30 days! 🎉 🎊 Exchanges are free.",
     ["Refunds take 30 days!", "🎉 🎊 Exchanges are free."]),
    ("✅ Free shipping on all orders.\n✅ Exchanges are free.",
     ["✅ Free shipping on all orders.", "✅ Exchanges are free."]),
])
def test_an_emoji_opening_a_sentence_makes_no_claim_of_its_own(answer: str, expected: list[str]) -> None:
    assert sentences(answer) == expected
    assert [claim.text for claim in split_claims(answer)] == expected
