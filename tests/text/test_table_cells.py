"""A count a claim gives a table's row under a column is held to that row's cell: a plan page's count given
to the wrong plan or column is unsupported, though the page states the number and the row and header hold
the claim's words. The pages here are written for the tests, in the shape of a walkthrough's plan and
membership pages (tests/judges/corpora/english_quotas.jsonl) where such claims had passed."""

from __future__ import annotations

import pytest
from lexical_verdict import verdict

from ragmon.text.table_cells import counts

STREAMING = """Plans

| Plan | Monthly price | Screens at once | Download devices | Profiles |
|---|---|---|---|---|
| Basic | $6.99 | 1 | 1 | 2 |
| Family | $12.99 | 3 | 4 | 5 |
| Ultra | $19.99 | 4 | 8 | 7 |

Every plan lets you watch on a TV, phone or laptop, and can be cancelled at any time."""

TRANSPOSED = """Compare plans

| Feature | Free | Team | Business |
|---|---|---|---|
| Seats | Up to 3 | Up to 20 | Up to 200 |
| Projects | 5 | 40 | Unlimited |
| Storage | 2 GB | 100 GB | 1 TB |"""

COWORKING = """| Plan | Meeting room hours per month | Guest passes per month | Monthly price |
|---|---|---|---|
| Flex | 5 | 2 | $250 |
| Fixed | 10 | 4 | $400 |"""


def test_another_columns_count_given_to_a_row_is_unsupported_and_the_reason_names_the_cell() -> None:
    # Every term of the claim is the page's and so is its 8 (Ultra's download devices); the Ultra row's
    # cell under "Screens at once" gives 4.
    supported, reason = verdict("Ultra lets you watch on 8 screens at once.", STREAMING)
    assert not supported
    assert reason is not None and reason.endswith(
        "the table's 'Ultra' row gives '4' under 'Screens at once', not 8")


def test_another_rows_count_is_unsupported_in_a_table_with_plans_as_columns() -> None:
    # 20 is the Team column's; the Free column's cell in the Seats row gives 3.
    supported, reason = verdict("The Free plan supports up to 20 seats.", TRANSPOSED)
    assert not supported
    assert reason is not None and reason.endswith(
        "the table's 'Seats' row gives 'Up to 3' under 'Free', not 20")


@pytest.mark.parametrize(("claim", "context"), [
    ("Ultra lets you watch on 4 screens at once.", STREAMING),
    ("The Family plan allows downloads on 4 devices.", STREAMING),
    ("The Team plan supports up to 20 seats.", TRANSPOSED),
    ("Fixed members get 10 meeting room hours per month.", COWORKING),
    ("Flex members get two guest passes per month.", COWORKING),  # a number in words
])
def test_the_rows_own_count_is_supported(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


@pytest.mark.parametrize(("claim", "context"), [
    # Two rows compared: no one row to hold the claim to.
    ("Family lets you watch on 3 screens at once, and Ultra on 4.", STREAMING),
    # "per month" names two columns alike: which one the 2 is of, the words do not tell.
    ("Flex comes with 2 per month.", COWORKING),
])
def test_a_claim_the_table_does_not_tie_to_one_cell_is_not_held_to_one(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_a_price_is_no_count_and_is_left_to_the_rule_for_numbers_with_units() -> None:
    # Its sign is read before the number: the closest row, not a column of counts, gives $400.
    supported, reason = verdict("Fixed costs $250 per month.", COWORKING)
    assert not supported
    assert reason is not None and reason.endswith(
        "its closest sentence gives $400, not $250: '| Fixed | 10 | 4 | $400 |'")


def test_a_count_the_page_states_outside_the_table_is_supported() -> None:
    page = STREAMING + "\n\nOn the Family plan, each download device holds up to 8 titles."
    assert verdict("On the Family plan, each download device holds up to 8 titles.", page) == (True, None)


def test_a_cell_with_no_bare_count_says_nothing_against_the_claim() -> None:
    # "Unlimited" gives no number: the 40 is the Team column's, but nothing says Business has not 40 too.
    assert verdict("The Business plan includes 40 projects.", TRANSPOSED) == (True, None)


def test_counts_are_numbers_with_the_words_after_them_up_to_a_function_word() -> None:
    assert counts("Ultra lets you watch on 8 screens at once and 2 checked bags of 23 kg.") == (
        (8.0, frozenset({"screen"})), (2.0, frozenset({"check", "bag"})), (23.0, frozenset({"kg"})))
    # Words, and "twenty-five"; not a price, a percentage, nor "times", which names nothing counted.
    assert counts("It costs $9 per seat, gives twenty-five seats and 20% off, renewable 2 times.") == (
        (25.0, frozenset({"seat"})),)


def test_a_count_whose_number_a_header_writes_is_told_by_the_claims_other_number() -> None:
    # The 24 of "in 24 hours" is the header's: the cell of 100 is the place of the claim's 1,000, and the
    # reason had said "not 24".
    page = "| Plan | Maximum in 24 hours |\n|---|---|\n| Basic | 100 |\n| Pro | 1,000 |"
    supported, reason = verdict("The Basic plan allows a maximum of 1,000 requests in 24 hours.", page)
    assert not supported
    assert reason is not None and reason.endswith(
        "the table's 'Basic' row gives '100' under 'Maximum in 24 hours', not 1000")
    # A price is no count: "at $5" is not what the cell of 100 contradicts.
    priced = ("| Plan | Price | Maximum in 24 hours |\n|---|---|---|\n| Basic | $5 | 100 |\n"
              "| Pro | $20 | 1,000 |")
    for claim in ("The Basic plan at $5 allows a maximum of 1,000 requests in 24 hours.",
                  # Counts `counts` does not read whole, or with no noun after them.
                  "The Basic plan allows a maximum of 1k requests in 24 hours.",
                  "The Basic plan allows a maximum of 1,000 in 24 hours.",
                  "The Basic plan allows a maximum of one thousand requests in 24 hours."):
        supported, reason = verdict(claim, priced)
        assert not supported
        assert reason is not None and reason.endswith(
            "the table's 'Basic' row gives '100' under 'Maximum in 24 hours', not 1000"), claim
