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


@pytest.mark.parametrize("text", [
    # An icon after an instruction's verb, before the name it labels: one word before the emoji.
    "Open ⚙️ Settings and choose Billing.",
    "Call ☎️ 1-800-555-0100 for help.",
    "Rated ⭐ 4.8 by 1,200 customers.",
    "Email 📧 Support for a refund.",
    # Two icons: "Tap" and "Settings" are two words before the second, and ">" leads on to what it labels.
    "Tap ⚙️ Settings > 💳 Payments to change your card.",
    "Go to ⚙️ Settings > 💳 Payments to change your card.",
    # Two words, a version or a label, before the emoji: no sentence of their own.
    "Version 2.0 🚀 Released today.",
    "Free shipping 🚚 On orders over $50.",
    # Three words or more, the last a function word or an instruction's verb.
    "Go to the ⚙️ Settings page.",
    "Then you tap ⚙️ Settings to change it.",
])
def test_an_icon_in_an_instruction_ends_no_sentence(text: str) -> None:
    assert sentences(text) == [text]
    assert [claim.text for claim in split_claims(text)] == [text]


@pytest.mark.parametrize("text", [
    "Do not 🚫 Return opened software.",
    "Never ❌ Return unopened items within 30 days.",
    "Please do not 🚫 Return opened software.",
    "You should never ❌ Return sale items.",
])
def test_an_emoji_after_a_negation_keeps_it_in_the_claim(text: str) -> None:
    assert [claim.text for claim in split_claims(text)] == [text]


def test_a_negation_before_an_emoji_is_no_claim_of_its_own() -> None:
    # Context: opened software cannot be returned. Cut at the emoji, "Do not 🚫" was no claim (function
    # words only) and dropped: the claim checked was "Return opened software.", the opposite, and
    # "Never ❌" a claim alone, "never" in no context: groundedness 1/2 where without the emoji it is 1.0.
    # Whole, "Do not 🚫 Return opened software." has the context's "return", "opened" and "software" (3
    # of 3), "Never ❌ Return opened software." 3 of 4 with "never", above 0.56: supported, 1.0.
    context = (Context("c1", "Opened software cannot be returned."),)
    for answer in ("Do not 🚫 Return opened software.", "Never ❌ Return opened software."):
        [result] = evaluate([Example("x", "Can I return software?", context, answer)], LexicalJudge(),
                            EvalConfig(bootstrap_samples=0)).results
        assert [(v.claim.text, v.supported) for v in result.verdicts] == [(answer, True)]
        assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("text", "expected"), [
    # A sentence of its own before the emoji, a negation within it: two claims, neither loses a word.
    ("Returns are not accepted 🚫 Exchanges are free.",
     ["Returns are not accepted 🚫", "Exchanges are free."]),
    # A closing parenthesis or a percentage before the emoji ends the sentence as a word does.
    ("Refunds take 30 days (or less) 🎉 Exchanges are free.",
     ["Refunds take 30 days (or less) 🎉", "Exchanges are free."]),
    ("Prices dropped by 20% 🎉 Exchanges are free.", ["Prices dropped by 20% 🎉", "Exchanges are free."]),
    ("Refunds take 30 days 🎉 🎊 Exchanges are free.", ["Refunds take 30 days 🎉 🎊", "Exchanges are free."]),
])
def test_an_emoji_after_a_sentence_of_its_own_ends_it(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected
    assert [claim.text for claim in split_claims(text)] == expected


@pytest.mark.parametrize(("first", "second"), [
    # A pronoun or "too" ends a sentence; the last word's emphasis, code marks or citation stand between it
    # and the emoji; "open" is no command after "are". Each had been one claim, the second riding on the
    # first.
    ("You can return it 📦", "Gift cards are refundable too."),
    ("We are happy to help you 😊", "Refunds take 5 days."),
    ("Refunds take 30 days [1] 🎉", "Exchanges are free."),
    ("Refunds take **30 days** 🎉", "Exchanges are free."),
    ("Run the `npm install` command 🚀", "Then start the server."),
    ("Our support lines are open ☎️", "Gift cards are refundable too."),
])
def test_an_emoji_after_a_sentence_ending_in_a_pronoun_a_mark_or_a_citation_ends_it(first: str,
                                                                                      second: str) -> None:
    assert sentences(f"{first} {second}") == [first, second]


@pytest.mark.parametrize("text", [
    "Then open ⚙️ Settings and choose Billing.",
    "In the app, please tap 📷 Scan to add a receipt.",
    "Go to your profile and click ⚙️ Settings to change it.",
])
def test_an_icon_after_a_command_ends_no_sentence(text: str) -> None:
    assert sentences(text) == [text]
