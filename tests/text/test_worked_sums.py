"""Sums an answer works out: a result that follows from its figures is checked through them."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.worked_sums import worked_results

PAGE = ("Full passes cost €590 until 31 January. The workshop day costs €180 per person. Groups of five or "
        "more get 15% off full passes. Each charging session has a $1.00 fee.")


@pytest.mark.parametrize(("text", "results"), [
    ("€590 + €180 = **€770** per person", {770.0}),  # in bold
    ("€590 − €180 + €20 = €430", {430.0}),
    ("$3.50 + $5.50 = $9.00 in fees", {9.0}),  # to the cent written
    ("€590 + €180 = €790", set()),  # a wrong total derives nothing
    ("Total: €3,540", set()),  # no sum
    # What a made-up figure passes through with true arithmetic (two adversarial reviews'): a product, a
    # division, a percentage, a figure added to itself, a total that is one of its figures or stated again.
    ("6 × €590 = €3,540", set()),
    ("2 × €49 = €98 per month", set()),
    ("€200 / 2 = €100", set()),
    ("€590 − 15% = €501.50 per week", set()),
    ("60% × $13.50 = $8.10 per hour", set()),
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
    assert worked_results(text) == results


def _verdicts(answer: str) -> list[tuple[str, bool]]:
    example = Example("q1", "What would six full passes cost?", (Context("fees", PAGE),), answer)
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
