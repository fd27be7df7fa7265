"""LexicalJudge: a policy verdict turned by "not" ("not covered" against "covered"), read in the context
sentence the claim copies, and the answers it must leave alone."""

from __future__ import annotations

import time

import pytest

from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.text.claims import split_claims


def judged(answer: str, page: str) -> list[tuple[bool, str | None]]:
    """Each claim of the answer as (supported, reason), judged against the one page."""
    example = Example("q1", "question?", (Context("page", page),), answer)
    return [(verdict.supported, verdict.reason)
            for verdict in LexicalJudge().judge(example, split_claims(answer))]


@pytest.mark.parametrize(("claim", "page", "claimed", "given"), [
    ("The laptop is not covered by warranty.", "The laptop is covered by warranty.",
     "not covered", "covered"),
    ("The laptop is covered by warranty.", "The laptop is not covered by warranty.",
     "covered", "not covered"),
    ("Refunds are not available after 30 days.", "Refunds are available after 30 days.",
     "not available", "available"),
    ("The phone is not waterproof.", "The phone is waterproof.", "not waterproof", "waterproof"),
    ("Gift cards can't be refunded.", "Gift cards can be refunded within 14 days.",
     "not refunded", "refunded"),
    ("The warranty doesn't cover screens.", "The warranty covers screens.", "not cover", "covers"),
    ("Water damage is covered.", "Is water damage covered? No, water damage is not covered.",
     "covered", "not covered"),
    # "never", "no longer" and "currently" are terms, which the page's sentence lacks: needed among the
    # claim's, no sentence was ever the one it copies, and each passed (3 of 4 terms).
    ("The setup fee is never waived.", "The setup fee is waived.", "not waived", "waived"),
    ("The Atlas pass is no longer covered.", "The Atlas pass is covered.", "not covered", "covered"),
    ("The setup fee is not currently waived.", "The setup fee is waived.", "not waived", "waived"),
    # "No longer" read as a time the claim lacked: a page's plan withdrawn turned no claim that it is offered.
    ("The Classic plan is available.", "The Classic plan is no longer available.", "available",
     "not available"),
])
def test_a_verdict_turned_by_not_is_unsupported(claim: str, page: str, claimed: str, given: str) -> None:
    # Every term of the claim is on the page ("not" is a function word): each passed before.
    [(supported, reason)] = judged(claim, page)
    assert not supported
    assert reason is not None
    assert reason.endswith(f", and its closest sentence says {given!r}, not {claimed!r}: "
                           f"{page.split('? ')[-1]!r}")


def test_the_reason_names_the_sentence_that_says_otherwise() -> None:
    # laptop, cover, warranti: 3 of 3 terms on the page, the second sentence the closest.
    [(_, reason)] = judged("The laptop is not covered by warranty.",
                           "Warranty claims are answered in 5 days. The laptop is covered by warranty.")
    assert reason == ("no single context supports it; closest page has 3/3 of its terms, and its closest "
                      "sentence says 'covered', not 'not covered': 'The laptop is covered by warranty.'")


def test_a_claim_is_held_to_its_own_sentence_of_a_page_covering_one_thing_and_not_another() -> None:
    page = "The laptop is covered by warranty. The charger is not covered by warranty."
    answer = "The laptop is covered by warranty. The charger is covered by warranty."
    assert [supported for supported, _ in judged(answer, page)] == [True, False]


def test_a_sentence_ruling_both_ways_turns_no_claim() -> None:
    # One sentence says "covered" and "not covered": of which, only its clauses could tell.
    page = ("The laptop is covered by warranty; the charger is not covered by warranty. "
            "The phone is waterproof.")
    answer = "The charger is covered by warranty. The phone is not waterproof."
    assert [supported for supported, _ in judged(answer, page)] == [True, False]


def test_not_only_negates_no_verdict() -> None:
    page = "The laptop is covered by warranty and insured."
    answer = "The laptop is not only covered by warranty but also insured. The laptop is not insured."
    assert [supported for supported, _ in judged(answer, page)] == [True, False]


def test_a_verdict_under_another_condition_is_not_turned() -> None:
    # "after 30 days" against "within 30 days" rules on other refunds; "under $50" against "over $50" on
    # other orders; a negation under a condition leaves the verdict standing otherwise.
    page = ("Refunds are available within 30 days. Shipping is free for orders over $50. "
            "Exchanges are not available after 60 days.")
    answer = ("Refunds are not available after 30 days. Shipping is not free for orders under $50. "
              "Exchanges are available. Refunds are not available within 30 days.")
    assert [supported for supported, _ in judged(answer, page)] == [True, True, True, False]


def test_no_longer_against_a_time_of_its_own_turns_nothing() -> None:
    # The plan was offered until 2023 and is no longer: neither denies the other.
    assert judged("The Classic plan was available until 2023.",
                  "The Classic plan was available until 2023. The Classic plan is no longer available.") \
        == [(True, None)]
    assert judged("The Classic plan is no longer available.",
                  "The Classic plan was available until 2023.") == [(True, None)]
    assert judged("The Classic plan is no longer available.",
                  "The Classic plan used to be available.") == [(True, None)]
    # "Currently" is such a time too: what is not available now may be from a date the page names.
    assert judged("The app is not currently available in Canada.",
                  "The app will be available in Canada soon.") == [(True, None)]
    # A window is such a time: past it, refunds are no longer available.
    assert judged("Refunds are no longer available.",
                  "Refunds are available within 30 days of purchase.") == [(True, None)]
    # A "from" opening a time is one: what is no longer available now may be again from a date.
    for start in ("the start of 2027", "Q3 2026", "mid-2026", "spring 2026", "version 4.0",
                  "the next release", "launch day onwards"):
        assert judged("The Classic plan is not currently available.",
                      f"The Classic plan is available from {start}.") == [(True, None)], start


@pytest.mark.parametrize(("claim", "page"), [
    # "Currently" and "no longer" against each other, or against a condition that is no time: held to a
    # side with no condition at all, each passed.
    ("The setup fee is currently waived.", "The setup fee is no longer waived."),
    ("Dark mode is only available on the desktop app.",
     "Dark mode is not currently available on the desktop app."),
    ("Express shipping is not currently available.", "Express shipping is available for orders over $50."),
    # Nor against the same time, nor a "from" that is none: any "from" on the other side had passed them.
    ("The Classic plan is available from March.", "The Classic plan is no longer available from March."),
    ("The Classic plan is available from our resellers.",
     "The Classic plan is no longer available from our resellers."),
    ("The Classic plan is no longer available from our resellers.",
     "The Classic plan is available from our resellers."),
    ("The Classic plan is available from our resellers.",
     "The Classic plan is currently not available from our resellers."),
    ("The Classic plan is available after login.", "The Classic plan is no longer available after login."),
    ("Express shipping is not currently available.", "Express shipping is available from our resellers."),
])
def test_now_against_no_time_is_turned(claim: str, page: str) -> None:
    [(supported, reason)] = judged(claim, page)
    assert not supported and reason is not None and "its closest sentence says" in reason


def test_a_sentence_denying_the_verdict_for_another_case_turns_no_claim() -> None:
    # "but not on Free" denies "available" for Free with no verdict word after it.
    page = ("Password-protected links are available on Business, but not on Free. "
            "Link expiry dates are available on every plan.")
    answer = "Password-protected links aren't available on Free. Link expiry dates aren't available on Free."
    assert [supported for supported, _ in judged(answer, page)] == [True, False]


def test_a_sentence_sharing_only_some_of_the_claims_terms_turns_nothing() -> None:
    # receipt, requir of the claim's receipt, meal, requir: the page's sentence is about large expenses,
    # not a copy of the claim with its verdict turned. "Refunds" shares every term of its claim.
    page = "An itemized receipt is required for any expense of $75 or more. Refunds are available."
    answer = "Receipts for meals are not required. Refunds are not available."
    assert [supported for supported, _ in judged(answer, page)] == [True, False]


@pytest.mark.parametrize(("claim", "page"), [
    # An affirmation leaving something out restates the negated claim about what it leaves out.
    ("The battery is not covered.", "All parts are covered except the battery."),
    ("Dropped laptops are not covered.", "Laptops are covered unless they were dropped."),
    ("Gift cards are not refundable.", "All items are refundable except gift cards."),
    ("Accidental damage is not always covered.", "Accidental damage is covered only with the Plus plan."),
    # A negation that "but" goes on to affirm of another subject rules both ways.
    ("Laptops are covered.", "Phones are not covered, but laptops are."),
    ("The Basic plan is free.", "The Pro plan isn't free, but the Basic plan is."),
    ("Accessories are covered.", "Many customers assume accessories are not covered, but they are."),
    # Not yet, or no longer, against a time it is or was so: both are true together.
    ("Dark mode isn't available yet.", "Dark mode will be available from March 2027."),
    ("The Classic plan is no longer available.", "The Classic plan was available until 2023."),
])
def test_a_claim_the_page_implies_is_not_turned(claim: str, page: str) -> None:
    # Each claim's terms are all on the page: left alone, it is supported, as before the veto.
    assert judged(claim, page) == [(True, None)]


@pytest.mark.parametrize(("claim", "page"), [
    # refund, avail, annual, subscript: the first sentence lacks "annual", the one term telling the subject.
    ("Refunds are available for annual subscriptions.",
     "Refunds are not available for monthly subscriptions. "
     "Annual subscriptions can be refunded within 14 days."),
    ("Express shipping is available for international orders.",
     "Express shipping is not available for domestic orders. "
     "International orders ship express by default."),
])
def test_a_sentence_about_another_subject_turns_no_claim_of_four_terms(claim: str, page: str) -> None:
    assert judged(claim, page) == [(True, None)]


def test_a_bold_faq_question_states_no_verdict() -> None:
    # The only sentence with every term is the question in bold: it says neither way.
    page = "**Is water damage covered?**\nNo, the warranty excludes it."
    assert judged("Water damage is not covered.", page) == [(True, None)]


def test_an_answer_restating_the_question_is_wholly_grounded() -> None:
    # The restated question asks, it does not claim "covered": both claims are supported, groundedness 1,
    # where the question was judged "covered" against the page's "not covered" (1 of 2).
    answer = "Is water damage covered? No, water damage is not covered by the warranty."
    assert judged(answer, "Water damage is not covered by the warranty.") == [(True, None), (True, None)]


def test_many_claims_with_verdicts_against_long_pages_are_judged_quickly() -> None:
    # 400 claims, 10 pages of 199 sentences each stating the claim's verdict the same way: every sentence
    # was read for its verdicts once per claim and page (3.6 s); no page gives it the other way.
    page = " ".join(f"Laptops are covered by warranty in region {n}." for n in range(199))
    answer = " ".join(["Laptops are covered by warranty."] * 400)
    example = Example("q1", "question?", tuple(Context(f"c{n}", page) for n in range(10)), answer)
    started = time.process_time()  # CPU time: another process's load on the machine does not count
    verdicts = LexicalJudge().judge(example, split_claims(answer))
    assert time.process_time() - started < 1.0
    assert len(verdicts) == 400 and all(verdict.supported for verdict in verdicts)


@pytest.mark.parametrize(("page", "answer"), [
    ("Items marked final sale can't be returned or exchanged.",
     "Items marked final sale cannot be exchanged."),
    ("Tickets are not refundable or transferable.", "Tickets are not transferable."),
    ("Pets are not allowed in the hotel; service animals are welcome.",
     "Service animals are allowed in the hotel."),
    ("Phones are not covered; however, laptops are.", "Laptops are covered."),
    ("Laptops are covered by the warranty; phones are excluded.", "Phones are not covered by the warranty."),
    ("All parts are covered, with the exception of the battery.", "The battery is not covered."),
    ("All parts are covered apart from the battery.", "The battery is not covered."),
    ("Refunds are not available for digital items, with the exception of defective ones.",
     "Refunds are available for defective digital items."),
    ("Shipping is free for members; non-members pay $5.", "Shipping isn't free for non-members."),
    ("Subscriptions cannot be cancelled mid-term; you may cancel at renewal.",
     "Subscriptions can be cancelled at renewal."),
    ("Refunds are issued as store credit when the original payment method is not available.",
     "Refunds are issued to the original payment method when it is available."),
    ("Phones aren't covered, but laptops have full coverage.", "Laptops are covered."),
    ("Laptops are covered; phones and tablets are not eligible.", "Phones are not covered."),
    ("Streaming is included in every plan, aside from the Lite plan.",
     "Streaming is not included in the Lite plan."),
    ("Hotel stays are reimbursable, besides minibar charges.", "Minibar charges are not reimbursable."),
])
def test_a_sentence_of_two_clauses_turns_no_claim(page: str, answer: str) -> None:
    # A review's grounded answers to support pages, each flagged as turned: which subject a verdict of a
    # sentence of two clauses is about (another subject, an exception, a contrast, "or") is a parse the
    # veto does not make, so it reads one-clause sentences alone. Each was supported before the veto.
    assert judged(answer, page) == [(True, None)]
