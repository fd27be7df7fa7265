"""Dates read as one number, and "twice" and "thrice" as numbers: a claim's date or count must be its
context's, not pieces of another one."""

from __future__ import annotations

import pytest

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluation import evaluate_example
from ragmon.text.numbers import dates_in, numbers_in
from ragmon.text.passages import Passage
from ragmon.text.terms import prepare, profile


def supported(claim: str, context: str) -> bool:
    """The lexical judge's verdict on a one-sentence answer against one context."""
    example = Example("q1", "When does the offer end?", (Context("c1", context),), claim)
    (verdict,) = evaluate_example(example, LexicalJudge(), 5).verdicts
    return verdict.supported


def states(claim: str, context: str) -> bool:
    """Whether the context states every number of the claim, read as a claim's numbers are (its full dates
    instead of their pieces)."""
    return Passage(context).states(numbers_in(prepare(claim), claim=True))


MARCH_15 = ["2024-03-15", "March 15, 2024", "15 March 2024", "Mar. 15th, 2024", "15th of March 2024",
            "Friday, March 15, 2024", "2024/03/15", "03/15/2024", "15/03/2024", "15.03.2024", "15.3.2024"]


@pytest.mark.parametrize("written", MARCH_15)
def test_a_date_is_one_number_and_a_claim_needs_it_not_its_pieces(written: str) -> None:
    # 2024 * 10000 + 3 * 100 + 15. A passage keeps the pieces it writes in digits, its dates read apart.
    low = prepare(f"The offer ends on {written}.")
    assert numbers_in(low, claim=True) == {20240315.0}
    assert 20240315.0 not in numbers_in(low)
    assert 20240315.0 in dates_in(low, numbers_in(low))[0]


@pytest.mark.parametrize("claimed", MARCH_15)
@pytest.mark.parametrize("written", MARCH_15)
def test_a_true_date_written_another_way_is_stated(claimed: str, written: str) -> None:
    # "2024-03-15" against "March 15, 2024" had lacked 3: a month's name is no number.
    assert states(f"The offer ends on {claimed}.", f"The offer ends on {written}.")


@pytest.mark.parametrize("written", MARCH_15)
def test_a_made_up_day_is_not_stated_by_the_month_of_another_date(written: str) -> None:
    # March 3rd against March 15th: the 3 of "03" had been the claim's day.
    assert not states("The offer ends on March 3, 2024.", f"The offer ends on {written}.")
    assert not states("The offer ends on 2024-03-03.", f"The offer ends on {written}.")


def test_a_page_writing_a_date_day_first_with_periods_states_it() -> None:
    # Read as the numbers 15.03 and 2024, the page's "15.03.2024" was no date, and the claim's 15 March
    # 2024 (20240315) was missing from it.
    assert supported("The offer ends on 15 March 2024.", "The offer ends on 15.03.2024.")
    assert not supported("The offer ends on 16 March 2024.", "The offer ends on 15.03.2024.")


def test_a_claim_writing_a_date_day_first_with_periods_is_held_to_the_date() -> None:
    # Taken for a version number ("1.2.3"), the claim's "15.03.2024" had to stand word for word in the page:
    # one writing the date 2024-03-15 "lacked" it. A version is still held to its literal text.
    assert supported("The offer ends on 15.03.2024.", "The offer ends on 2024-03-15.")
    assert not supported("The offer ends on 16.03.2024.", "The offer ends on 2024-03-15.")
    assert not supported("Install version 1.2.3 today.", "Install version 1.2.4 today.")


@pytest.mark.parametrize("claim", ["Use release 2.1.2024 today.", "Install version 2.1.2024 today.",
                                   "Install v2.1.2024 today.", "Flash firmware 2.1.2024 today."])
def test_a_version_that_looks_like_a_date_is_held_to_its_text(claim: str) -> None:
    # Read as 2 January 2024, the made-up release was stated by the page's shipping date; held as a version
    # it must stand in the page as written, which has 2.1.2023 only.
    shipped = "On 2 January 2024 we shipped it. "
    assert not supported(claim, shipped + claim.replace("2.1.2024", "2.1.2023"))
    assert supported(claim, shipped + claim)


@pytest.mark.parametrize("written", ["1.15.03.2024", "32.03.2024", "15.13.2024", "15.03.2024.1"])
def test_periods_around_a_year_that_make_no_date_keep_their_numbers(written: str) -> None:
    # No day before a month past 12 or a day past 31, and none inside a longer dotted number.
    assert numbers_in(prepare(f"Code {written}."), claim=True) == numbers_in(prepare(f"Code {written}."))


def test_made_up_dates_are_unsupported() -> None:
    assert not supported("The offer ends on March 3, 2024.", "The offer ends on 2024-03-15.")
    # The 18 is in the changelog, but not as this release's day.
    changelog = "v2.3.0 was released on 2024-10-29. It fixes 18 bugs."
    assert not supported("v2.3.0 was released on 2024-10-18.", changelog)
    assert supported("v2.3.0 was released on 2024-10-29.", changelog)


@pytest.mark.parametrize(("claim", "context"), [
    ("The offer ends on March 15, 2024.", "The offer ends on 2024-03-15."),
    ("The offer ends on 15 March 2024.", "The offer ends on Friday, March 15, 2024."),
    ("The offer ends on Mar. 15th, 2024.", "The offer ends on 15/03/2024."),
])
def test_a_date_written_by_its_month_is_supported_by_the_same_date_written_otherwise(
        claim: str, context: str) -> None:
    assert supported(claim, context)


@pytest.mark.parametrize("claim", ["The offer started in 2024.", "The offer ends on the 15th."])
def test_a_year_or_a_day_alone_is_found_in_a_full_date(claim: str) -> None:
    assert supported(claim, "The offer started on 2024-01-02 and ends on 2024-03-15.")
    assert states(claim, "The offer started on 2024-01-02 and ends on 2024-03-15.")


def test_a_slash_date_whose_day_is_past_12_is_a_date() -> None:
    # 03/15/2024 can only be March 15th (no 15th month), and so can 15/03/2024.
    assert states("The offer ends on 03/15/2024.", "The offer ends on 15/03/2024.")
    assert not supported("The offer ends on 03/15/2024.", "The offer ends on 2024-05-03, with 15 left.")


def test_a_slash_date_that_reads_both_ways_stays_its_pieces_in_a_claim() -> None:
    # 03/04/2024: March 4th in the US, April 3rd elsewhere. A claim states 3, 4 and 2024, as it did; a
    # context may mean either date.
    assert numbers_in(prepare("The offer ends on 03/04/2024."), claim=True) == {3.0, 4.0, 2024.0}
    assert states("The offer ends on 03/04/2024.", "The offer ends on 04/03/2024.")
    assert states("The offer ends on March 4, 2024.", "The offer ends on 03/04/2024.")
    assert states("The offer ends on April 3, 2024.", "The offer ends on 03/04/2024.")
    assert not states("The offer ends on March 5, 2024.", "The offer ends on 03/04/2024.")


def test_a_month_and_a_year_are_no_date() -> None:
    assert numbers_in(prepare("The offer ends in March 2024."), claim=True) == {2024.0}
    assert supported("The offer ends in March 2024.", "The offer ends on 2024-03-15.")


@pytest.mark.parametrize(("word", "value"), [("twice", 2.0), ("thrice", 3.0)])
def test_twice_and_thrice_are_numbers(word: str, value: float) -> None:
    assert profile(f"Take it {word} a day.").numbers == {value}
    assert Passage(f"Take the tablet {word} daily with food.").states(frozenset({value}))


def test_twice_is_not_three_times_and_two_times_is_twice() -> None:
    assert not supported("Take it twice a day.", "Take it three times a day.")
    assert not supported("Take it three times a day.", "Take it twice a day.")
    assert not supported("Take it thrice a day.", "Take it twice a day.")
    assert supported("Take it two times a day.", "Take it twice a day.")
    assert supported("Take it twice a day.", "Take it 2 times a day.")


def test_once_is_no_number() -> None:
    # "once" mostly means "after": a claim saying it needs no 1 in its context.
    assert profile("Once you return it, the refund takes 5 days.").numbers == {5.0}
    assert supported("Once you return it, the refund takes 5 days.", "After a return, refunds take 5 days.")


@pytest.mark.parametrize(("claim", "context"), [
    # The red team's false alarms once a claim's date had to be a date of the context: a range of days, two
    # days, a day-month-year with the month's name, a day under a year written elsewhere.
    ("The spring sale ends on March 15, 2024.", "The spring sale runs March 1–15, 2024."),
    ("The office is closed on December 24, 2024.", "The office is closed on December 24 and 25, 2024."),
    ("The submission deadline is March 15, 2024.", "Submission deadline: 15-Mar-2024."),
    ("The final release shipped on March 15, 2024.",
     "Release notes for 2024. The final release shipped on March 15."),
])
def test_a_date_in_a_range_or_under_its_year_is_stated(claim: str, context: str) -> None:
    assert supported(claim, context)


def test_a_missing_date_is_named_as_a_date() -> None:
    example = Example("q1", "When?", (Context("c1", "The offer ends on 2024-03-15."),),
                      "The offer ends on March 3, 2024.")
    (verdict,) = evaluate_example(example, LexicalJudge(), 5).verdicts
    assert verdict.reason is not None and verdict.reason.endswith("lacks 2024-03-03")


@pytest.mark.parametrize(("claim", "context"), [
    # Forms the date reader does not read whole: the date is stated when its year, its day (not a piece of
    # another date) and its month's name are the passage's.
    ("The sale starts on 1 March 2024.", "The sale runs 1–15 March 2024."),
    ("The sale ends 15 March 2024.", "The sale ends 15 and 16 March 2024."),
    ("The submission deadline is March 15, 2024.", "Submission deadline: Mar-15-2024."),
    ("The submission deadline is March 15, 2024.", "Submission deadline: 2024-Mar-15."),
    ("The office reopens on January 8, 2024.", "The office reopens on January 8,2024."),
])
def test_a_date_written_in_a_form_not_read_whole_is_stated(claim: str, context: str) -> None:
    assert supported(claim, context)


def test_a_day_that_is_another_dates_piece_states_no_date() -> None:
    # The 3 of "2024-03-15" is its month; March is named nowhere but in that date.
    assert not supported("The offer ends on March 3, 2024.", "The offer ends on 2024-03-15 in March.")


@pytest.mark.parametrize(("claim", "context", "stated"), [
    # A day of a month with no year was a bare day: "July 1" was stated by "April 1", December's 1 by
    # November's (the HR walkthrough's probes).
    ("Your rate increases by 1% each July 1.", "Your rate increases by 1% each April 1 until 10%.", False),
    ("Your rate increases by 1% each April 1.", "Your rate increases by 1% each April 1 until 10%.", True),
    ("Open enrollment runs December 1–15, 2024.", "Open enrollment runs November 1–15, 2024.", False),
    ("Coverage begins June 1.", "Coverage begins on 2024-06-01.", True),
    ("Coverage begins June 15.", "Coverage begins June 1–15.", True),
    ("Coverage begins on the 1st of May.", "Coverage begins May 1.", True),
    # "may" before a number is the verb, unless a word that opens a date comes before it.
    ("You may 5 times a year renew it.", "You can renew it 5 times a year.", True),
])
def test_a_day_of_a_month_with_no_year_is_that_day(claim: str, context: str, stated: bool) -> None:
    assert supported(claim, context) is stated


@pytest.mark.parametrize(("claim", "context", "stated"), [
    # A page's day and month in digits with no year: the claim's day of the month by its name, in English
    # or another language, had been flagged as lacking it.
    ("Las rebajas terminan el 15 de mayo.", "Las rebajas terminan el 15/05.", True),
    ("The sale ends on 15 May.", "The sale ends 15/05.", True),  # day first: 15 is no month
    ("The sale ends on May 15.", "The sale ends 05/15.", True),  # month first
    ("The sale ends on 4 March.", "The sale ends 03/04.", True),  # either way
    ("The sale ends on 3 April.", "The sale ends 03/04.", True),
    ("The sale ends on 16 May.", "The sale ends 15/05.", False),
    ("The sale ends on 5 March.", "The sale ends 03/04.", False),
    ("The sale ends on 7 March.", "The sale ends 3/4/2025 and 7/2025.", False),  # no day and month alone
    # Shares, scores and hours written with a slash, one digit on a side: no days (an adversarial review).
    ("The helpline is open for members from 24 July.", "The helpline is open 24/7 for members.", False),
    ("Early check-in is available from 3 April.", "Early check-in is available for 3/4 of our rooms.", False),
    ("Customers rated the blender on 5 April.", "Customers rated the blender 4/5.", False),
    ("The winter sale ends on 10 December.", "Winter coats come in sizes 10/12.", False),  # no date's word
    ("Take the tablets until 10 December.", "Take the tablets for 10/12 days.", False),
    ("The offer ends on 12 October.", "Children from 10/12 years old pay half.", False),  # a third review's
    ("Payment is due on 10 December.", "Payment is due 10/12 days after the invoice.", False),
])
def test_a_pages_day_and_month_in_digits_state_that_day(claim: str, context: str, stated: bool) -> None:
    assert supported(claim, context) is stated


def test_a_missing_day_of_a_month_is_named_so() -> None:
    example = Example("q1", "When?", (Context("c1", "Your rate increases each April 1."),),
                      "Your rate increases each July 1.")
    (verdict,) = evaluate_example(example, LexicalJudge(), 5).verdicts
    assert verdict.reason is not None and verdict.reason.endswith("lacks --07-01")


@pytest.mark.parametrize("written", [
    "15. März 2024", "15. Maerz 2024", "15 maart 2024", "15 mars 2024", "15 de marzo de 2024",
    "15 de marzo del 2024", "15 marzo 2024", "15 de março de 2024", "15º de março de 2024",
    "15.º de marzo de 2024"])
def test_a_month_named_in_another_language_makes_a_date(written: str) -> None:
    # German, Dutch, French, Spanish, Italian, Portuguese: 2024 * 10000 + 3 * 100 + 15, as in English.
    assert numbers_in(prepare(f"Die Frist: {written}."), claim=True) == {20240315.0}


@pytest.mark.parametrize(("claim", "context", "stated"), [
    # Read in English only, the day and the year were pieces: a German page's own date in digits did not
    # state its date by name (no 15 outside the date), and another month's name passed on them.
    ("Die Frist endet am 15. März 2024.", "Die Frist endet am 15.03.2024.", True),
    ("Die Frist endet am 15. Oktober 2024.", "Die Frist endet am 15. Mai 2024.", False),
    ("Le délai expire le 1er mars 2024.", "Le délai expire le 01/03/2024.", True),
    ("Le délai expire le 15 octobre 2024.", "Le délai expire le 15 mai 2024.", False),
    ("El plazo vence el 15 de octubre de 2024.", "El plazo vence el 15 de mayo de 2024.", False),
    ("O prazo termina em 1 de abril de 2024.", "O prazo termina em 01/03/2024.", False),
    ("De termijn loopt af op 15 mei 2024.", "De termijn loopt af op 15-10-2024.", False),
    # A day of a month with no year.
    ("La scadenza è il 15 ottobre.", "La scadenza è il 15 maggio.", False),
    ("La scadenza è il 15 maggio.", "La scadenza del pagamento è il 15 maggio.", True),
    ("Die Frist endet am 30. März.", "Die Frist endet am 31. März.", False),
    # The 1st as Italian, Portuguese and Spanish write it.
    ("Il pagamento scade il 1° giugno 2024.", "Il pagamento scade il 1° maggio 2024.", False),
    ("El pago vence el 1.º de junio de 2024.", "El pago vence el 01/05/2024.", False),
    ("El pago vence el 1.º de mayo de 2024.", "El pago vence el 1 de mayo de 2024.", True),
    # The ordinal indicator is no term the page lacks: read as one, it left 2 of 4 terms.
    ("El pago vence el 1.º de mayo de 2024.", "El pago vence el 01/05/2024.", True),
    # Only an English month is read before its day: the planet's "Mars 2" is no 2 March.
    ("The probe launched on March 2, 1971.", "The Mars 2 probe launched in 1971.", False),
    ("The Mars 2 orbiter weighed 4650 kg.", "The Mars-2 orbiter weighed 4650 kg.", True),
    # A page's range or list of days by another language's month name states each day of it (the month's
    # name found beside a day, not anywhere: "may return 3 items" is no 3 May).
    ("L'offre commence le 1er mars 2024.", "L'offre est valable du 1er au 15 mars 2024.", True),
    ("La oferta termina el 2 de mayo de 2024.", "La oferta termina el 2 y 3 de mayo de 2024.", True),
    ("La tarifa se aplica el 15 de mayo.", "La tarifa se aplica los días 15 y 16 de mayo.", True),
    ("The policy took effect on May 3, 2024.",
     "The policy took effect in 2024; customers may return 3 items per order.", False),
    # Nor is a count before a name that is an English word going on into one: "3 may be returned", "2 Mars
    # rovers" and "3 mayo flavours" beside a year had stated 3 May, 2 March and 3 May of it.
    ("Orders may be returned on May 3, 2024.", "In 2024, orders of 3 may be returned.", False),
    ("NASA operated Mars rovers on March 2, 2024.", "In 2024 NASA operated 2 Mars rovers.", False),
    ("The shop sold flavours on May 3, 2024.", "In 2024 the shop sold 3 mayo flavours.", False),
    # A day before such a name going on into a word that follows dates is that day.
    ("We opened on May 3, 2024.", "On 3 May we opened; it was 2024.", True),
    ("La boutique ouvre le 2 mars 2024.", "Le 2 mars prochain, en 2024, la boutique ouvre.", True),
    ("The shop opened on May 3, 2024.", "In 2024 the shop opened on 3 May and closed in June.", True),
    ("Up to 3 may be returned per order.", "Up to 3 items may be returned per order.", True),
    # After a word dates follow, a day before "May" and a verb is a date all the same: read as "may", a
    # made-up "31 May" passed against the page's "31 March", and "May 31" was flagged against "31 May".
    ("Payments received after 31 May incur a late fee of $20.",
     "Payments received after 31 March incur a late fee of $20.", False),
    ("Payments received after May 31 incur a late fee of $20.",
     "Payments received after 31 May incur a late fee of $20.", True),
    ("The offer is valid until 31 May only.", "The offer is valid until 31 March.", False),
    ("A partir del 1 mayo los precios suben un 5%.", "A partir del 1 de marzo los precios suben un 5%.",
     False),
    # "May", a function word, is found in the claim's text, not its terms: after it a comma or a no-break
    # space had skipped the date search, and "15 May, 2024" passed against "15 June 2024".
    ("The fee changed on 15 May, 2024.", "The fee changed on 15 June 2024.", False),
    ("The fee changed on May\xa015, 2024.", "The fee changed on June 15, 2024.", False),
    # Loose forms a page writes: slashes, en dashes, a period with no space, "the" before the day.
    ("The fee changed on March 15, 2024.", "The fee changed on 15/Mar/2024.", True),
    ("The fee changed on March 15, 2024.", "The fee changed on 15–Mar–2024.", True),
    ("The fee changed on March 15, 2024.", "The fee changed on 15.März 2024.", True),
    ("The fee changed on March 15, 2024.", "The fee changed on March the 15th, 2024.", True),
])
def test_a_date_by_a_months_name_in_another_language_is_held_to_that_date(
        claim: str, context: str, stated: bool) -> None:
    assert supported(claim, context) is stated


def test_a_degree_sign_is_an_ordinal_only_of_the_first() -> None:
    # Italian writes the 1st "1°"; "15°" is a temperature, before a month's name or not.
    assert numbers_in(prepare("Il 1° maggio 2024."), claim=True) == {20240501.0}
    assert numbers_in(prepare("At 15° March 2024."), claim=True, months=True) == {15.0, 2024.0}


def test_a_made_up_date_in_another_language_is_named_as_a_date() -> None:
    example = Example("q1", "Wann?", (Context("c1", "Die Frist endet am 15. Mai 2024."),),
                      "Die Frist endet am 15. Oktober 2024.")
    (verdict,) = evaluate_example(example, LexicalJudge(), 5).verdicts
    assert verdict.reason is not None and verdict.reason.endswith("lacks 2024-10-15")
