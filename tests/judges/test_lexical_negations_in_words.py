"""The page-wide opposite rule ("non-refundable" on the page, "refundable" in the claim: unsupported) with the
claim's negation written in words read as the opposite word it states: "not" is a function word, so a claim
"Gift cards are not refundable" held "refund" against a page saying only "Gift cards are non-refundable." and
was flagged as saying the opposite of what it restates. The page's negations in words are not read so: a
page's "not" about something else had excused a flipped claim."""

from __future__ import annotations

import pytest
from lexical_verdict import verdict

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluation import evaluate_example

REFUNDS = "Refunds are issued within 5 business days. Gift cards are non-refundable."


@pytest.mark.parametrize(("claim", "page"), [
    # Terms sale, item, return (3): the page holds sale, item and ¬return, 2/3 above the 0.56 needed, so
    # only the opposite rule had flagged it.
    ("Sale items cannot be returned.", "Sale items are non-returnable."),
    ("Gift cards are not refundable.", "Gift cards are non-refundable."),
    ("Gift cards aren't refundable.", "Gift cards are non-refundable."),
    ("Gift cards can't be refunded.", "Gift cards are non-refundable."),
    ("Gift cards won't be refunded.", "Gift cards are non-refundable."),
    ("The Legacy plan isn't available.", "The Legacy plan is unavailable."),
    ("Mobile data hotspots are not supported for smart charging.",
     "Smart charging needs Wi-Fi; mobile data hotspots are unsupported."),
])
def test_a_claim_negating_in_words_restates_the_pages_opposite_word(claim: str, page: str) -> None:
    assert verdict(claim, page) == (True, None)


@pytest.mark.parametrize(("claim", "page"), [
    # Every term held in one sentence, the negated word by the page's opposite word: it had counted missing,
    # so a short claim fell short of the 0.56 needed on it. product, avail (2): 2/2 (1/2 before).
    ("The product is not available.", "The product is unavailable."),
    ("This item is not eligible.", "This item is ineligible."),
    ("The invoice is not correct.", "The invoice is incorrect."),
    ("Resale isn\u2019t legal.", "Resale is illegal."),
    ("Tickets aren't transferable.", "Shipping is free. Tickets are non-transferable."),
    # A double negative states the word itself.
    ("The product is not unavailable.", "The product is available in all stores."),
])
def test_a_short_claim_negating_in_words_holds_the_word_by_the_pages_opposite(claim: str, page: str) -> None:
    assert verdict(claim, page) == (True, None)


def test_a_negated_word_held_by_the_opposite_counts_toward_any_threshold() -> None:
    # gift, card, refund (3): at 0.7, 2/3 had fallen short; the page holds all three, one by its opposite.
    page = (Context("c1", "Gift cards are non-refundable."),)
    example = Example("q", "?", page, "Gift cards are not refundable.")
    [judged] = evaluate_example(example, LexicalJudge(0.7), 5).verdicts
    assert judged.supported


@pytest.mark.parametrize(("claim", "page", "shared"), [
    # Each was supported by a version that counted the negated word held wherever the page used its
    # opposite, at the threshold's share (a review's made-up claims). Another subject: digital, gift, card,
    # refund, the page lacking "digital".
    ("Digital gift cards are not refundable.", "Physical gift cards are non-refundable.", "2/4"),
    # The opposite word in another sentence than the claim's other word.
    ("Please note that the gym isn't available.", "The pool is unavailable. Please note the gym hours.",
     "1/2"),
    # "never" and "no longer" say more than the page's opposite word (always; a change), and are terms
    # themselves, which the page must hold.
    ("The fund has never been profitable.", "The fund was unprofitable in 2020.", "1/3"),
    ("Gift cards are never refundable.", "Gift cards are non-refundable.", "2/4"),
    ("Refunds are no longer possible.", "Refunds are impossible for sale items.", "1/3"),
])
def test_a_negated_word_is_not_held_by_the_opposite_short_of_the_claims_sentence(
        claim: str, page: str, shared: str) -> None:
    reason = f"no single context supports it; closest c1 has {shared} of its terms"
    assert verdict(claim, page) == (False, reason)


@pytest.mark.parametrize(("claim", "page", "opposite"), [
    # Made up: the page's opposite word, the claim's plain one, no negation anywhere.
    ("Gift cards are refundable.", "Gift cards are non-refundable.", "'refund'"),
    ("Gift cards are non-refundable.", "Gift cards are refundable.", "'not-refund'"),
    # The claim negates "refundable" once but affirms it too: it still says something is refundable.
    ("Gift cards are not refundable, and sale items are refundable.",
     "Gift cards are non-refundable. Sale items are non-refundable.", "'refund'"),
    # The page negates another word in words ("exchanged"), not "refundable", which it states plainly.
    ("Sale items are non-refundable.", "Sale items are refundable but cannot be exchanged.", "'not-refund'"),
    # The page negates the word in words, but of something else: read page-wide, its "not" had excused
    # the claim's "non-refundable" against what it says of the claim's subject.
    ("Gift cards are non-refundable.", "Gift cards are refundable; we don't refund shipping fees.",
     "'not-refund'"),
    ("Annual plans are non-refundable.",
     "Annual plans are refundable within 30 days. Monthly plans are not refundable.", "'not-refund'"),
    ("The Legacy plan is unavailable.",
     "The Legacy plan is available. Feature X is not available on the Legacy plan.", "'not-avail'"),
])
def test_a_flipped_word_is_still_unsupported(claim: str, page: str, opposite: str) -> None:
    supported, reason = verdict(claim, page)
    assert not supported
    assert reason is not None and f"says the opposite of {opposite}" in reason


@pytest.mark.parametrize("claim", [
    # Another negative word for "non-refundable": supported before negations in words were read, still so.
    "Gift cards are ineligible for refunds.", "Gift cards are ineligible for a refund.",
    "Refunds are unavailable for gift cards.", "Refunds are impossible for gift cards.",
])
def test_another_negative_word_restating_the_page_is_supported(claim: str) -> None:
    assert verdict(claim, REFUNDS) == (True, None)


def test_a_claim_unsupported_otherwise_is_not_said_to_state_the_opposite() -> None:
    # Terms gift, card, refund, onlin, store, month (6): the page holds 2, so it is unsupported; the reason
    # had added "says the opposite of 'refund'", which the claim's "not refundable" does not.
    supported, reason = verdict("Gift cards bought online are not refundable in stores after a month.",
                                "Gift cards are non-refundable.")
    assert not supported
    assert reason is not None and "opposite" not in reason
