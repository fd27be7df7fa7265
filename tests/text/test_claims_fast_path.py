"""The shortcuts splitting answers rests on: a line of plain prose is split without the boundary pattern
(`_plain_spans`), a long word is no abbreviation, a sentence opening with no label's first two letters
is no label. Each gives what the full reading gives; these tests fail when an edit breaks what that rests
on."""

from __future__ import annotations

import pytest

import ragmon.text.claims as claims
from ragmon.text.claims import sentence_spans

TRICKY_LINES = [
    "Refunds take 30 days. Exchanges are free.",
    "See Dr. Smith on 3.5 days. Then go.",
    "It costs 5 USD. the rest is free.",
    "Ask J. K. Rowling. It is fine. We ship to the U.S. The fee is 3.",
    "Call us at 5 p.m. Monday. Staff leave at 6 p.m. Then we close.",
    "Die Frist endet am 15. März. Das ist alles.",
    "We ship within the U.S. Refunds take 30 days. The U.S. Army is large.",
    "Die Zahlung erfolgt am 3. Werktag. Der Preis beträgt 30. Danach nicht.",
    "Step 1. Keep the receipt. Option 2: pay monthly. Tip 3 - ask.",
    "Refunds take 30 days. 2. Exchanges are free. B) Gift cards. II. Shoes.",
    "It draws 12 W. It is fine. See fig. 3 and No. 5. Approx. 5 days.",
    "Apples etc. Pears etc. and more. Items incl. shoes. Jan. 5 is the date.",
    "Ends in approximately. Then more. Plain sentence without a period",
    "The v2.1 release is out. Version 3.0.1 follows.",
    "Trailing blanks follow.   ",
    "A. B. C. D.",
]


def test_a_plain_line_is_split_as_the_full_reading_splits_it() -> None:
    # A trailing newline makes no line of its own, but sends the text the full reading's way.
    for line in TRICKY_LINES:
        assert sentence_spans(line) == sentence_spans(line + "\n"), line


@pytest.mark.parametrize(("line", "spans"), [
    # "Refunds take 30 days." is 21 characters; "Exchanges are free." 19, from 22.
    ("Refunds take 30 days. Exchanges are free.", [(0, 21), (22, 41)]),
    # "Dr." and "3.5" end nothing: "See Dr. Smith on 3.5 days." is 26 characters, "Then go." 8 from 27.
    ("See Dr. Smith on 3.5 days. Then go.", [(0, 26), (27, 35)]),
    # A small letter after "USD. " opens a sentence: 15 characters, then 17 from 16.
    ("It costs 5 USD. the rest is free.", [(0, 15), (16, 33)]),
])
def test_a_plain_line_is_split_at_its_periods(line: str, spans: list[tuple[int, int]]) -> None:
    assert claims._plain_spans(line) == spans
    assert sentence_spans(line) == spans


def test_no_pattern_takes_a_period_before_a_small_letter_or_a_digit_for_a_boundary() -> None:
    # `_plain_spans` passes such periods by: the boundary pattern must find none there, after any word.
    for after in claims._INERT_AFTER_PERIOD:
        for before in ("days", "Days", "DAYS", "5", "e.g", "x]", "[1]", "ok)", "I", "a"):
            text = f"Refunds in {before}.{after}x more"
            period = len("Refunds in ") + len(before)
            for pattern in (claims._BOUNDARY, claims._WIDE_BOUNDARY, claims._EMOJI_BOUNDARY):
                assert pattern.match(text, period) is None, text


def test_a_lone_period_before_a_space_is_a_boundary_of_one_mark_that_goes_on_with_nothing() -> None:
    # `_plain_spans` keeps such a period as a sentence's end but for an abbreviation or a marker after it.
    for after in ("B", "b", "5", "(", '"', "-"):
        text = f"It is free. {after}x"
        assert claims._BOUNDARY.match(text, 10).span() == (10, 11)
        assert not claims._goes_on(text, 10, 11)


def test_no_word_looked_up_as_an_abbreviation_ends_in_more_letters_than_the_longest() -> None:
    # `_abbreviation_at` takes a word ending in more letters than `_LONGEST_ABBREVIATION` for none without
    # looking it up: every set `_is_abbreviation` looks words up in must be within that length.
    looked_up = [value for name in claims._is_abbreviation.__code__.co_names
                 if isinstance(value := getattr(claims, name, None), frozenset)]
    assert claims._ALWAYS_ABBREV in looked_up
    longest = claims._LONGEST_ABBREVIATION
    for words in looked_up:
        assert not [w for w in words if w[-longest - 1:].isalpha() and len(w) > longest]


def test_a_long_word_before_a_period_ends_the_sentence() -> None:
    # 7 letters and more before the period: no abbreviation, whatever follows. "Ends in approximately."
    # is 22 characters; "then more." 10 from 23; "Approx. 5." stays whole: 10 from 34.
    text = "Ends in approximately. then more. Approx. 5."
    assert sentence_spans(text) == [(0, 22), (23, 33), (34, 44)]


def test_every_label_start_has_the_two_letters_it_is_told_by() -> None:
    # `_opening` looks for a label only after a sentence opening with one of `_LABEL_PREFIXES`.
    assert all(len(start) >= 2 and start[:2] in claims._LABEL_PREFIXES for start in claims._LABEL_STARTS)
