"""Passages: read once, and the numbers they state whatever was asked of them before."""

from __future__ import annotations

import sys

import pytest

from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.text.claims import split_claims
from ragmon.text.passages import SHORT, Passage, passage, size
from ragmon.text.terms import NEGATION, profile


def test_passages_are_read_once_with_terms_and_numbers() -> None:
    text = "Refunds take 30 days. Exchanges take two weeks."
    read = passage(text)
    assert read is passage(text)
    # Content terms (Porter stems) of the passage; function words and numbers are no terms.
    assert {"refund", "take", "dai", "exchang", "week"} <= read.terms
    assert read.numbers == {30.0, 2.0}


@pytest.mark.parametrize(("text", "wanted", "states"), [
    ("Refunds take 30 days.", {30.0}, True),
    ("Refunds take 30 days.", {3.0}, False),  # "3" occurs inside "30", but 30 is the number stated
    ("Refunds take 30 days.", {14.0}, False),  # no "14" anywhere: rejected before the number scan
    ("Refunds take two weeks.", {2.0}, True),  # a number word: always the full scan
    ("It costs 1,000 points.", {1000.0}, True),
    ("Returns take 30 days [1].", {1.0}, False),  # the citation marker is no number of the passage
    ("It costs 3.50 dollars.", {3.5}, True),
    # The sign is part of the number, however it is written: "-20" is not 20, and "−20" is -20.
    ("Store it at -20 °C.", {20.0}, False),
    ("Store it at minus 20 °C.", {20.0}, False),
    ("Store it at 20 °C.", {-20.0}, False),
    ("Store it at \u221220 °C.", {-20.0}, True),
    ("Pick 10-20 units.", {20.0}, True),
])
def test_passage_states_numbers(text: str, wanted: set[float], states: bool) -> None:
    assert Passage(text).states(frozenset(wanted)) is states


@pytest.mark.parametrize(("text", "wanted", "states"), [
    # 7 decimals: its 6-decimal digits "0.123457" are not in the text, yet the text states it exactly.
    ("The ratio was 0.1234567 in the trial.", {0.1234567}, True),
    # 0.5 thousand is 500, though "500" is nowhere and "thousand's" is no plain number word.
    ("It cost 0.5 thousand's worth of gear.", {500.0}, True),
    # 20 significant digits round to the double 2.5, but the text never says 2.5: the literal text wins.
    ("The ratio was 2.4999999999999999999.", {2.5}, False),
])
def test_a_passage_states_the_same_numbers_whatever_was_asked_of_it_before(
        text: str, wanted: set[float], states: bool) -> None:
    # Passages are cached and shared across examples, and reading `numbers` is done lazily, only when
    # some claim's reason needs them: neither may change a later verdict.
    fresh = Passage(text)
    read = Passage(text)
    assert read.numbers is not None
    assert fresh.states(frozenset(wanted)) is states
    assert read.states(frozenset(wanted)) is states


def test_a_claim_with_many_numbers_is_checked_against_them_all() -> None:
    # 100 numbers 1..100: the passage states them all; without 57 it does not.
    numbers_ = frozenset(float(n) for n in range(1, 101))
    listed = " ".join(str(n) for n in range(1, 101))
    assert Passage(f"Scores: {listed}.").states(numbers_) is True
    assert Passage(f"Scores: {listed.replace(' 57 ', ' ')}.").states(numbers_) is False


def test_a_number_found_after_many_lookalikes_is_stated() -> None:
    # "1" occurs 300 times inside "1,1,...", each time in a list of numbers (so not as the plain number
    # "1"), then once alone: stated either way, as is 2 in "2.5" only when alone.
    text = "1," * 300 + " and 1 day"
    assert Passage(text).states(frozenset({1.0})) is True
    assert Passage("2.5 " * 300 + "and 2 days").states(frozenset({2.0})) is True
    assert Passage("2.5 " * 300).states(frozenset({2.0})) is False


def test_a_number_too_long_for_a_float_is_not_found_as_inf_in_a_word() -> None:
    # 400 sevens read as float infinity, which prints as "inf": "information" must not state it.
    claim = profile("The code is " + "7" * 400 + ".")
    assert claim.numbers == {float("inf")}
    assert not passage("The code is in the information sheet.").states(claim.numbers)
    assert passage("The code is " + "7" * 400 + ".").states(claim.numbers)


def test_long_passages_are_read_once_too() -> None:
    # Over SHORT characters a passage goes to the byte-bounded cache, still read once while it is held.
    text = "Refunds take thirty days. " * (SHORT // 26 + 1)
    assert len(text) > SHORT and passage(text) is passage(text)


@pytest.mark.parametrize(("text", "wanted", "states"), [
    # Digits of any script state the number they spell; the substring test must not reject them.
    ("Refunds take \uff13\uff10 days.", {30.0}, True),  # full-width
    ("Refunds take \u0663\u0660 days.", {30.0}, True),  # Arabic-Indic
    ("Refunds take \u0663\u0660 days.", {3.0}, False),
    ("Refunds take \u0663\u0660 days.", {99.0}, False),
    ("It serves 10\u2079 requests.", {10.0, 9.0}, True),
    ("It serves 10\u2076 requests.", {10.0, 9.0}, False),
    ("It lasts 2\u00bd years.", {2.5}, True),
    ("It lasts 2\u00bd years.", {2.75}, False),
])
def test_a_passage_states_numbers_in_other_scripts(text: str, wanted: set[float], states: bool) -> None:
    assert Passage(text).states(frozenset(wanted)) is states


def test_a_long_passage_counts_numbers_in_other_scripts_as_it_counts_ascii_ones() -> None:
    # The cache's byte bound counts each number a long passage holds: written in Arabic-Indic digits they
    # are as many as in ASCII ones. The Arabic passage holds what the ASCII one does (a text of the same
    # numbers in ASCII digits, the same terms and numbers) and its own text besides.
    ascii_text = "24 " * (SHORT // 3 + 1)
    arabic = ascii_text.replace("24", "\u0662\u0664")
    assert size(arabic, passage(arabic)) == size(ascii_text, passage(ascii_text)) + sys.getsizeof(arabic)



@pytest.mark.parametrize(("filler", "term"), [("padding ", "pad"), ("pädding ", "pädding")])
def test_a_long_passage_read_in_slices_keeps_every_word_whole(filler: str, term: str) -> None:
    # A document longer than one slice (65,536 characters) is read a slice at a time to bound memory;
    # "reimbursements" and "non-refundable" straddle the first slice's end, where a cut would leave
    # "reimburs" + "ements", and "non" + "refundable", the opposite of what the page says.
    lead = filler * (65_530 // len(filler))
    text = f"{lead}reimbursements are non-refundable {filler * 20}closing words."
    assert 65_536 - len(lead) in range(1, len("reimbursements"))
    read = Passage(text)
    assert {"reimburs", f"{NEGATION}refund", "close"} <= read.terms
    assert "refund" not in read.terms and "ement" not in read.terms
    assert list(read.terms)[:2] == [term, "reimburs"]  # in the order they first occur, as a short text's


def test_a_long_japanese_passage_is_judged_as_the_same_text_short() -> None:
    # Whether a page is Japanese (it holds kana) is the whole text's question: its 無 is then a word's
    # prefix ("無料", free of charge), not a negation. Read a slice at a time (81,000 characters), the
    # slice holding "全品無料配送" holds no kana, was read as Chinese, and made "料配" negative: the claim,
    # word for word the page's, said the opposite of it where the short page's was supported.
    claim = "全品無料配送です。"
    filler = "本社所在地東京都、" * 9000
    short = "送料についてです。全品無料配送。" + filler
    long = "送料についてです。" + filler + "全品無料配送。"
    judged = [LexicalJudge().judge(ex, split_claims(claim))[0].supported
              for ex in (Example("q", "問題?", (Context("d", page),), claim) for page in (short, long))]
    assert judged == [True, True]
