"""The number scan's shortcuts (`numbers._read_digits`): numbers found by `bytes.find` in ASCII text, and
signs looked for only before a number that has a "-", "\u2212" or "minus" before it. These tests fail when
a pattern is edited so that the shortcut would read otherwise than the regex it stands in for."""

from __future__ import annotations

import pytest

from ragmon.text import numbers
from ragmon.text.numbers import numbers_in

_CHARACTERS = [chr(code) for code in range(0x3000)] + ["\U0001d7ce", "\U0001f100"]


def test_the_number_pattern_matches_exactly_where_an_ascii_digit_is() -> None:
    # `_digit_numbers` finds each number at the next ASCII digit: a pattern that could start elsewhere (a
    # sign, a leading dot, another script's digit) would find numbers the shortcut skips.
    starts = {ch for ch in _CHARACTERS if numbers._DIGIT_NUMBER.match(ch + "5 ") is not None}
    assert starts == set("0123456789")


def test_every_sign_place_is_a_digit_after_a_sign_or_after_minus() -> None:
    # `_may_be_signed` looks for a sign only where one of these stands before a number ("x-y" so that
    # every text has a hyphen, which `_negative_starts` asks for first).
    texts = [f"{before}{sign}{space}7 x-y" for before in ("", "a", " ", "(", ".", "at ", "\n")
             for sign in [*_CHARACTERS[:0x300], "minus", "\u2212"] for space in ("", " ", "\t", "\u00a0")]
    for text in texts:
        for at in numbers._negative_starts(text):
            assert text[at].isdigit()
            assert text[at - 1] in numbers._SIGNS or text[:at].rstrip().endswith("minus"), text


@pytest.mark.parametrize(("text", "expected"), [
    ("temperatures fell to -20 overnight", {-20.0}),
    ("the built-in timer runs 15 minutes, the low is \u22123", {15.0, -3.0}),
    ("it reached minus 40 at night", {-40.0}),
    ("the price minus 5 is 95", {5.0, 95.0}),  # "minus" subtracting: no sign
    ("open 9 -17 daily and a well-known 3-step plan", {9.0, 17.0, 3.0}),  # a loose range, a hyphenated word
    ("-20 days for parts", {20.0}),  # a hyphen opening the text is a bullet
    ("versions 2.5.1, 1,250.50, 60_000, 10k", {2.5, 1.0, 1250.5, 60000.0, 10000.0}),  # "2.5" then "1"
    ("caf\u00e9 bill: -12 and 3", {-12.0, 3.0}),  # not ASCII: the regex path
])
def test_numbers_and_signs_read_as_written(text: str, expected: set[float]) -> None:
    assert numbers_in(text) == expected
