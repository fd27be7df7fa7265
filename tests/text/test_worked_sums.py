"""Sums an answer works out: a result that follows from its figures is checked through them."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.worked_sums import worked

PAGE = ("Full passes cost €590 until 31 January. The workshop day costs €180 per person. Groups of five or "
        "more get 15% off full passes. Each charging session has a $1.00 fee.")


@pytest.mark.parametrize(("text", "results"), [
    ("€590 + €180 = **€770** per person", {770.0}),  # in bold
    ("€590 − €180 + €20 = €430", {430.0}),
    ("$3.50 + $5.50 = $9.00 in fees", {9.0}),  # to the cent written
    ("30 cent + 20 cent = 50 cent", {50.0}),  # cents, no percentage
    ("€590 + €180 = €790", set()),  # a wrong total derives nothing
    ("Total: €3,540", set()),  # no sum
    # What a made-up figure passes through with true arithmetic (two adversarial reviews'): a product, a
    # division, a percentage, a figure added to itself, a total that is one of its figures or stated again.
    ("6 × €590 = €3,540", set()),
    ("2 × €49 = €98 per month", set()),
    ("€200 / 2 = €100", set()),
    ("€590 / 20% = €2,950", set()),
    ("$5 + $5 = $10 per order", set()),
    ("€250 + €0 = €250", set()),
    ("€590 + €180 = €770 per week, and the room deposit is €770.", set()),
    # A time of a day another and a duration come to: a timetable's departure and journey, not its arrival.
    ("| 06:42 | Stopping (48 min) | 07:30 |", {50_000_730.0}),
    ("Leave at 9:15 and drive 2 hours to arrive by 11:15.", {50_001_115.0}),
    ("| 06:42 | Stopping (45 min) | 07:30 |", set()),  # the duration does not lead to it
    ("| 06:42 | Stopping (48) | 07:30 |", set()),  # nor is a bare number one
])
def test_the_results_of_sums_that_come_right(text: str, results: set[float]) -> None:
    assert worked(text) == (results, set(), set())


@pytest.mark.parametrize(("text", "result", "rate", "base"), [
    # 60/100 x 13.50 = 8.10; 3/100 x 6,800 = 204; 9/100 x 6,000 = 540; 30/100 x 840 = 252; 25/100 x 38
    # = 9.50; 840 - 126 = 714; 238 + 47.60 = 285.60; 12/100 x 238 = 28.56 (in a table row).
    ("60% × $13.50 = **$8.10 per hour** in subsidy", 8.1, 60.0, 13.5),
    ("£6,800 × 3% = **£204**", 204.0, 3.0, 6800.0),
    ("9% of £6,000 = **£540 a year**", 540.0, 9.0, 6000.0),
    ("Acompte : 30 % de 840 € = **252 €**.", 252.0, 30.0, 840.0),
    ("25 % von 38 € = 9,50 €", 9.5, 25.0, 38.0),
    ("Gli sconti non sono cumulabili: 840 € − 15% = **714 €**", 714.0, 15.0, 840.0),
    ("Plus VAT: £238 + 20% = £285.60", 285.6, 20.0, 238.0),
    ("| Duty | 12% x £238 = £28.56 |", 28.56, 12.0, 238.0),
    ("60% × $13.50 ≈ $8", 8.0, 60.0, 13.5),  # 8.10 is within half a dollar of a whole $8
    # 1.5/100 x 310 = 4.65; 245 + 49 = 294; 15/100 x 212 = 31.80; 3.4/100 x 5,000 = 170; 9,800 + 294 =
    # 10,094; 3/100 x 20,000 = 600: a word naming a figure, "is" and "→" for "=", percentages in words.
    ("1.5% of your $310 balance = **$4.65** late fee", 4.65, 1.5, 310.0),
    ("£245 + 20% VAT = **£294.00** at checkout", 294.0, 20.0, 245.0),
    ("15 percent of $212 is **$31.80**.", 31.8, 15.0, 212.0),
    ("1.5% of your $310 balance works out to $4.65", 4.65, 1.5, 310.0),
    ("3.4 per cent of $5,000 = $170 in interest", 170.0, 3.4, 5000.0),
    ("$9,800 + 3% → **$10,094** for 2025–26", 10094.0, 3.0, 9800.0),
    ("3pc of £20,000 = **£600** early repayment fee", 600.0, 3.0, 20000.0),
    # 12/100 x 238 = 28.56; 85/100 x 41.40 = 35.19; 144 - 28.80 = 115.20; 30/100 x 840 = 252: a table's
    # next cell, two words naming the figure, "off", and the connectives of chat.
    ("| Duty (12%) | 12% × £238 | £28.56 |", 28.56, 12.0, 238.0),
    ("Carewell covers 85% of the $41.40 scheduled fee, so that's **$35.19** back.", 35.19, 85.0, 41.4),
    ("20% off $144, which works out to **$115.20** a year", 115.2, 20.0, 144.0),
    ("Acompte versé : 30 % de 840 €, soit **252 €**.", 252.0, 30.0, 840.0),
])
def test_a_percentage_of_a_figure_worked_out_comes_to_its_result(
        text: str, result: float, rate: float, base: float) -> None:
    found = worked(text)
    assert (found.results, {rate for rate, _ in found.rates}, found.bases) == ({result}, {rate}, {base})


@pytest.mark.parametrize("text", [
    "60% × $13.50 = $8.50 per hour",  # 8.10, not 8.50
    "15% of €590 = €90",  # 88.50
    "15% − €590 = €501.50",  # a percentage with a figure taken from it is no discount
    "15% × 20% = 3%",  # a percentage of a percentage
    "50% of £100 = £50",  # the result is one of its figures (the percentage's 50)
    "9% of £6,000 = £540, and the fee is £540",  # stated again outside the working
    "£245 − 20% VAT = £196 at checkout",  # a tax is never taken off as a percentage (245 / 1.2 = 204.17)
    "£245 − 20% UK VAT = £196 at checkout",  # nor named in two words
    "$144 off 20% = $115.20",  # a figure off a percentage
])
def test_a_percentage_worked_out_wrongly_or_ambiguously_derives_nothing(text: str) -> None:
    assert worked(text).results == set()


def _verdicts(answer: str, page: str = PAGE,
              question: str = "What would six full passes cost?") -> list[tuple[str, bool]]:
    example = Example("q1", question, (Context("fees", page),), answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]
    return [(v.claim.text, v.supported) for v in result.verdicts]


def test_a_total_worked_out_from_the_pages_figures_is_supported() -> None:
    # The page states €590 and €180, never €770: the sum's result had made a grounded answer a false alarm.
    assert _verdicts("A full pass and the workshop day cost €590 + €180 = €770 per person.") == [
        ("A full pass and the workshop day cost €590 + €180 = €770 per person.", True)]


@pytest.mark.parametrize("answer", [
    "A full pass and the workshop day cost €590 + €180 = €790 per person.",  # the sum is wrong
    "A full pass and the workshop day cost €590 + €200 = €790 per person.",  # a figure the page lacks
])
def test_a_wrong_total_or_a_made_up_figure_in_a_sum_stays_unsupported(answer: str) -> None:
    assert _verdicts(answer) == [(answer, False)]


DISCOUNTED = [
    "With the group discount a full pass costs €590 − 15% = €501.50.",  # 590 - 88.50
    "With the group discount, 15 percent of €590 = €88.50 off a full pass.",  # 15/100 x 590
]


@pytest.mark.parametrize("answer", DISCOUNTED)
def test_a_discount_worked_out_from_the_pages_percentage_is_supported(answer: str) -> None:
    # The page states €590 and 15% off, never €501.50 or €88.50.
    assert _verdicts(answer) == [(answer, True)]


@pytest.mark.parametrize("answer", DISCOUNTED)
def test_a_percentage_the_page_holds_only_as_a_count_supports_no_result(answer: str) -> None:
    # The page's 15 counts rooms: read as a number only, it had let the made-up 15% off pass.
    rooms = ("Full passes cost €590 until 31 January. Groups of five or more get a discount on full passes "
             "and 15 rooms at the partner hotel.")
    assert _verdicts(answer, rooms) == [(answer, False)]


@pytest.mark.parametrize("answer", [
    "With the group discount a full pass costs €590 − 20% = €472.",  # the page's is 15%
    "With the group discount a full pass costs €650 − 15% = €552.50.",  # the page's price is €590
])
def test_a_made_up_percentage_or_figure_it_is_taken_of_stays_unsupported(answer: str) -> None:
    assert _verdicts(answer) == [(answer, False)]


def test_the_figure_a_percentage_is_taken_of_may_be_the_users_own() -> None:
    # €650 is what the user paid, in the question only: 650 - 97.50 = 552.50.
    answer = "With the group discount your full pass costs €650 − 15% = €552.50."
    asked = "I paid €650 for a full pass: what does the group discount bring it to?"
    assert _verdicts(answer, question=asked) == [(answer, True)]


def test_a_figure_of_a_sum_from_the_question_is_no_pages() -> None:
    # A sum's figure the user gives may be a page's fact the user has wrong: the page's workshop is €180.
    answer = "A full pass and the workshop day cost €590 + €200 = €790 per person."
    asked = "Is the workshop day €200, so €790 with a full pass?"
    assert _verdicts(answer, question=asked) == [(answer, False)]


TUITION = ("Official figures: tuition at Harlan College will rise by 3% for 2025–26. Tuition for 2024–25 "
           "was $9,800.")  # "Official" is no "off"
DIRECT_DEBIT = "Customers who pay their annual bill by direct debit get 4% off it."


@pytest.mark.parametrize(("answer", "page", "supported"), [
    ("Tuition for 2025–26 will be $9,800 + 3% = $10,094.", TUITION, True),  # 9,800 + 294
    ("Tuition for 2025–26 will be $9,800 − 3% = $9,506.", TUITION, False),  # the page's 3% is a rise
    ("Paying the annual bill by direct debit: £1,200 − 4% = £1,152.", DIRECT_DEBIT, True),  # 1,200 - 48
    ("Paying the annual bill by direct debit: £1,200 + 4% = £1,248.", DIRECT_DEBIT, False),  # it is 4% off
])
def test_a_percentage_goes_the_way_the_page_takes_it(answer: str, page: str, supported: bool) -> None:
    asked = "My annual bill is £1,200: what do I pay?" if page == DIRECT_DEBIT else "What will tuition be?"
    assert _verdicts(answer, page, asked) == [(answer, supported)]
