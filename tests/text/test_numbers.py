"""Numbers in digits and in words, as a text's profile reads them."""

from __future__ import annotations

import unicodedata

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.numbers import OTHER_DIGITS
from ragmon.text.terms import numbers


@pytest.mark.parametrize(("text", "expected"), [
    ("It lasts 3.5 days", {3.5}),
    ("a 30-day window", {30.0}),
    ("two years", {2.0}),
    ("it costs $1,000", {1000.0}),
    ("45% of users", {45.0}),
    ("twenty-five people", {25.0}),
    ("1.5 million users", {1_500_000.0}),
    ("three hundred pages", {300.0}),
    ("3.50 and 3.5 and 3.0 and 3", {3.5, 3.0}),  # 3.50 == 3.5, 3.0 == 3
    ("items 1,2,3", {1.0, 2.0, 3.0}),  # not a thousands group: three numbers
    ("one of the reasons", set()),  # a bare "one" is a pronoun far more often than a quantity
    ("one hundred pages", {100.0}),  # ... but not before a scale word
    ("Returns take 30 days [1].", {30.0}),  # a citation marker is not a number of the claim
    # A whole hour is the hour, as in "9am" (it had been 9 and 0); a time of a day with other minutes is
    # one number, CLOCK + hour x 100 + minutes (it had been 17 and 30); a timestamp's pieces stay numbers.
    ("opens at 9:00 AM", {9.0}),
    ("open 09:00-17:30", {9.0, 50_001_730.0}),
    ("from 9:30am to 5:45pm", {50_000_930.0, 50_000_545.0}),
    ("at 9:00:30", {9.0, 0.0, 30.0}),
    ("at 12:30:45", {12.0, 30.0, 45.0}),
    ("at 24:30", {24.0, 30.0}),  # no time of a day
    ("a ratio of 3:1", {3.0, 1.0}),
    ("Full days (7:30 to 17:30) cost more", {50_000_730.0, 50_001_730.0}),  # no list's item "30)"
    # Written with "h", or a full stop before "Uhr", "am" or "pm", a time is the same number as with a colon
    # (it had been 9 and 30, or 9.3); a whole hour is the hour. A price or a duration stays as it was.
    ("ouvert de 9h30 à 17h30", {50_000_930.0, 50_001_730.0}),
    ("von 9.30 Uhr bis 17.30 Uhr", {50_000_930.0, 50_001_730.0}),
    ("von 9.30 bis 18.00 Uhr", {50_000_930.0, 18.0}),  # a range's first time, marked by its second
    ("open 9.30am to 5.30 pm", {50_000_930.0, 50_000_530.0}),
    ("dès 18h00", {18.0}),
    ("tickets cost €9.30", {9.3}),
    ("it costs 9.30 to 12.50", {9.3, 12.5}),
    ("the tour takes 1h30m", {1.0, 30.0}),
    # Midnight is one time however written (50,000,000, CLOCK + 0), noon another (CLOCK + 1200); "12:00"
    # alone is the hour 12, as "9:00" is 9.
    ("until 12 am", {50_000_000.0}),
    ("until 12:00 a.m.", {50_000_000.0}),
    ("until 00:00", {50_000_000.0}),
    ("from 8:00 to 24:00", {8.0, 50_000_000.0}),
    ("until 12 pm", {50_001_200.0}),
    ("by 12 noon", {50_001_200.0}),
    ("by 12:00", {12.0}),
    # "k" and "bn" attached to digits scale them, as "thousand" and "billion" do; "10-K" is a form's name.
    ("10k requests", {10_000.0}),
    ("a $2.5bn fund", {2_500_000_000.0}),
    ("the 10-K filing", {10.0}),
    ("5 k", {5.0}),
])
def test_numbers(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("twenty five days", {25.0}),
    ("two hundred and three thousand", {200.0, 3000.0}),
    ("hundreds of people", set()),  # a scale word alone is no quantity
    ("a dozen eggs", {12.0}),
    # "a" before a scale is one, as "one" is; not in "half a million", and not before anything else.
    ("up to a thousand dollars", {1000.0}),
    ("a hundred pages", {100.0}),
    ("half a million people", set()),
    ("a refund of the fee", set()),
    # Words that name a span of days or a time of a day: each one number of its own (a fortnight
    # 60,000,014, noon CLOCK + 1200, midnight CLOCK + 0), as their other spellings read.
    ("within a fortnight", {60_000_014.0}),
    ("checkout at noon", {50_001_200.0}),
    ("closes at midnight", {50_000_000.0}),
    ("in the afternoon", set()),
    ("within a couple of business days", {2.0}),
    ("a couple staying one night", set()),  # two people, no number of anything
    ("a couple of minutes", set()),  # a few: no count
    ("a couple of seconds", set()),
])
def test_spelled_numbers(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("stored at -20 °C", {-20.0}),
    ("stored at \u221220 °C", {-20.0}),  # U+2212, the minus sign typesetters use
    ("stored at minus 20 °C", {-20.0}),
    ("an offset of (-5 dB)", {-5.0}),
    ("a loss of -1,500 dollars", {-1500.0}),
    # A hyphen after a digit or a letter joins, it signs nothing: a range, a name, a date.
    ("a range of 10-20 units", {10.0, 20.0}),
    ("COVID-19", {19.0}),
    ("on 2024-01-05", {20240105.0}),  # a claim's date is one number: 2024 x 10,000 + 1 x 100 + 5
    ("pages 10 - 20", {10.0, 20.0}),  # a dash between spaces is no sign either
    ("open 9 -17 on weekdays", {9.0, 17.0}),  # nor one after a number: a range written loosely
    ("Warranty:\n-20 days for parts", {20.0}),  # nor one opening a line: a list's bullet
    # "minus" after a word that introduces a quantity is a sign; after a quantity or a noun it subtracts.
    ("between minus 20 and minus 10", {-20.0, -10.0}),
    ("100 dollars minus 15 dollars", {100.0, 15.0}),
    ("the price minus 5 dollars", {5.0}),
])
def test_a_minus_sign_makes_a_number_negative(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Decimal digits of any script are the number they spell in ASCII digits.
    ("lasts \uff19\uff19 months", {99.0}),  # full-width
    ("lasts \u0669\u0669 months", {99.0}),  # Arabic-Indic
    ("lasts \u096f\u096f months", {99.0}),  # Devanagari
    ("lasts \U0001d7d7\U0001d7d7 months", {99.0}),  # mathematical bold
    ("lasts \u0662\u0664 or 25 months", {24.0, 25.0}),  # two scripts in one text
    ("costs \u0661\u066c\u0660\u0660\u0660\u066b\u0665 riyals", {1000.5}),  # Arabic group and decimal marks
    ("Returns take 30 days [\u0663].", {30.0}),  # still a citation marker, no number of the claim
    # Each enclosed number is one whole number.
    ("press \u2468 now", {9.0}),  # circled nine
    ("step \u246b", {12.0}),  # circled twelve, one number
    ("step \u247c", {9.0}),  # parenthesized nine
    # A fraction after a digit is its fractional part; alone, a number of its own.
    ("lasts 2\u00bd years", {2.5}),
    ("lasts 2\u00be years", {2.75}),
    ("add \u00bd cup", {0.5}),
    # A superscript after a digit is an exponent, a number as "10^9" has two; after a letter, a unit's
    # power or a footnote, no number.
    ("serves 10\u2079 requests", {10.0, 9.0}),
    ("serves 10^9 requests", {10.0, 9.0}),
    ("a gap of 10\u207b\u2079 m", {10.0, -9.0}),
    ("priced per m\u00b2", set()),
])
def test_numbers_in_other_scripts(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


def test_every_decimal_digit_of_another_script_is_read() -> None:
    # Texts are read for other digits only when they hold one of OTHER_DIGITS: every decimal digit (Nd)
    # this Python's Unicode knows but ASCII's must be there. The list may hold more, assigned by a later
    # version of Unicode (Cn here).
    known = {chr(code) for code in range(0x80, 0x110000) if unicodedata.category(chr(code)) == "Nd"}
    assert known == {c for c in OTHER_DIGITS if unicodedata.category(c) == "Nd"}
    # And each of the others is a number (a superscript, a fraction, an enclosed number), or the
    # superscript minus of "10⁻⁹".
    assert all(unicodedata.numeric(c, None) is not None
               for c in OTHER_DIGITS if unicodedata.category(c) != "Cn" and c != "\u207b")


@pytest.mark.parametrize(("context", "answer", "supported"), [
    ("The store opens at 9am.", "The store opens at 9:00 AM.", True),
    ("The store opens at 9:00 AM.", "The store opens at 9am.", True),
    ("The plan includes 10,000 API calls.", "The plan includes 10k API calls.", True),
    ("The plan includes 10k API calls.", "The plan includes 10,000 API calls.", True),
    ("The plan includes 10k API calls.", "The plan includes 10 API calls.", False),  # "10" of "10k" is not 10
    # A time of a day is one number: its minutes are not the page's price, nor its hour a whole hour.
    ("Check-in starts at 3 pm. Late checkout costs $30.", "Check-in starts at 3:30 pm.", False),
    ("Check-in starts at 15:00. The deposit is 30 euros.", "Check-in starts at 15:30.", False),
    ("Das Büro ist von 9 bis 17 Uhr geöffnet. Die Bearbeitung dauert 30 Tage.",
     "Das Büro ist von 9:30 bis 17 Uhr geöffnet.", False),
    ("Check-in starts at 3:30 pm.", "Check-in starts at 3 pm.", False),
    ("Gates open at 6:15 and the show starts soon after.", "The show starts 15 minutes after the gates open.",
     False),  # nor are its minutes a number of their own
    ("The museum opens at 3:30 pm. Tours cost $30.", "Tours cost $30.", True),
    ("Check-in from 3:30 pm. Late checkout costs $30.", "Check-in starts at 3:30 pm.", True),
    ("Check-in starts from 15:30.", "Check-in starts at 15:30.", True),
    ("Events must end by 11:30 pm, and music must be turned down after 10:00 pm.",
     "Events must end by 11:30 pm.", True),  # its unit is the time's too: not "gives 10 pm, not 11 pm"
    ("Events must end by 11:30 am.", "Events must end by 11:30 pm.", False),
    ("The office opens at 09:30.", "The office opens at 9:30.", True),
    ("Read John 3:16 first.", "Read John 3:16 first.", True),
    # A number in words the context does not state: it had been no number.
    ("You can claim up to $500 for lost luggage.", "You can claim up to a thousand dollars for luggage.",
     False),
    ("You can claim up to $1,000 for lost luggage.", "You can claim up to a thousand dollars for luggage.",
     True),
    ("Returns are accepted within 30 days of delivery.", "Returns are accepted within a fortnight.", False),
    ("Returns are accepted within 14 days of delivery.", "Returns are accepted within a fortnight.", True),
    ("Refunds are issued within two weeks.", "Refunds are issued within a fortnight.", True),
    ("Refunds are issued within 2 weeks.", "Refunds are issued within a fortnight.", True),
    ("Refunds are issued within a fortnight.", "Refunds are issued within 14 days.", True),
    ("Refunds are issued within 3 weeks.", "Refunds are issued within a fortnight.", False),
    ("The warranty lasts 2 years.", "The warranty lasts a fortnight.", False),
    ("Refunds are issued within a fortnight.", "Refunds are issued within 2 years.", False),
    ("Checkout is at 11 am on the day of departure.", "Checkout is at noon on the day of departure.", False),
    ("Checkout is at 12 pm on the day of departure.", "Checkout is at noon on the day of departure.", True),
    ("The pool closes at 10 pm every night.", "The pool closes at midnight every night.", False),
    ("Refunds are processed within 10 business days.", "Refunds take a couple of business days.",
     False),
    # A time written with "h" or a full stop is the time with a colon: not its hour and a price.
    ("L'accueil est ouvert de 9h30 à 17h30 du lundi au vendredi.",
     "L'accueil est ouvert de 9:30 à 17:30 du lundi au vendredi.", True),
    ("Öffnungszeiten: Montag bis Freitag 9.30 Uhr bis 17.30 Uhr.",
     "Geöffnet ist Montag bis Freitag von 9:30 bis 17:30 Uhr.", True),
    ("The shop opens at 9.30am and closes at 5pm.", "The shop opens at 9:30am.", True),
    ("The shop opens at 9:30am and closes at 5pm.", "The shop opens at 9.30am.", True),
    ("L'accueil est ouvert de 9h à 17h. Le parking coûte 30 euros.", "L'accueil est ouvert de 9h30 à 17h.",
     False),
    ("The shop opens at 9.30 am and closes at 5 pm.", "The shop opens at 9.30 pm.", False),
    # Midnight and noon however written.
    ("The pool is open from 8:00 to 24:00.", "The pool is open until midnight.", True),
    ("The bar is open until 00:00.", "The bar is open until midnight.", True),
    ("The bar is open until 12 am.", "The bar is open until midnight.", True),
    ("The bar is open until midnight.", "The bar is open until 12 am.", True),
    ("The bar is open until midnight.", "The bar is open until 24:00.", True),
    ("The bar is open until 12 pm.", "The bar is open until midnight.", False),
    ("The bar is open until midnight.", "The bar is open until 10 pm.", False),
    ("The bar is open until noon.", "The bar is open until midnight.", False),
    ("Check-out is at 12:00.", "Check-out is at noon.", True),
    ("Checkout is at noon on the day of departure.", "Checkout is at 12:00 on the day of departure.", True),
    ("Checkout is at 12 am on the day of departure.", "Checkout is at noon on the day of departure.", False),
    ("The fund raised 12:00 million.", "The fund raised 12 million.", True),  # a page's "12:00" is 12 too
    # "A couple of minutes" is a few; "a couple" two people, a word the page shares.
    ("It takes a few minutes to activate.", "It takes a couple of minutes to activate.", True),
    ("Rooms accommodate a couple and one child.", "The rooms fit a couple plus one child.", True),
])
def test_the_same_number_written_another_way_supports_a_claim(context: str, answer: str,
                                                              supported: bool) -> None:
    # Before, "9:00 AM" lacked a 0 the context never had, "10k" was 10, and "3:30 pm" was 3 and 30.
    example = Example("q1", "When and how many?", (Context("c1", context),), answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [verdict.supported for verdict in result.verdicts] == [supported]


@pytest.mark.parametrize(("text", "expected"), [
    ("七天内", {7.0}), ("两年保修", {2.0}), ("三十个工作日", {30.0}), ("十五天", {15.0}),
    ("一百二十元", {120.0}),
    ("三万五千人", {35000.0}), ("二〇二四年", {2024.0}), ("一年保修", {1.0}), ("一个月", {1.0}),
    ("3万元", {30000.0}), ("1.5亿", {150000000.0}),
    # Before no counter, or 一 as the article ("一个问题", a question), numerals state no number.
    ("一个问题", set()), ("一般", set()), ("统一", set()), ("一些", set()), ("千万不要", set()),
])
def test_chinese_numbers_are_read_as_numbers(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


def test_digits_grouped_by_underscores_are_one_number() -> None:
    # As code writes them: 60_000 is 60,000, not 60 and 0; a name's digits stay its own.
    assert numbers("The timeout is `60_000` ms.") == {60000.0}
    assert numbers("Up to 1_000_000 rows.") == {1000000.0}
    assert numbers("Set max_retries_3 off.") == {3.0}


@pytest.mark.parametrize(("text", "number"), [
    ("O governo gastou 2 milhões de euros.", 2_000_000.0),  # a scale word with a letter past ASCII
    ("Es kostet 3 Millionen Euro.", 3_000_000.0),
    ("Costó 4 millones de pesos.", 4_000_000.0),
])
def test_digits_before_another_languages_scale_word_are_one_number(text: str, number: float) -> None:
    # "2 milhões" raised AttributeError inside the judge: replay and every trace holding it failed.
    assert numbers(text) == {number}
