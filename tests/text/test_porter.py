"""The Porter stemmer, through `stem` and a text's profile."""

from __future__ import annotations

import pytest

from ragmon.text.terms import profile, stem


def test_porter_stems() -> None:
    # Examples from Porter (1980).
    cases = {"caresses": "caress", "ponies": "poni", "relational": "relat", "hopping": "hop",
             "conditional": "condit", "adjustment": "adjust", "agreed": "agre", "sized": "size"}
    assert {word: stem(word) for word in cases} == cases
    assert stem("returned") == stem("returns") == stem("return") == "return"


@pytest.mark.parametrize(("word", "expected"), [
    # A step applies the longest of its suffixes a word ends with, and only that one, worked by hand:
    ("vietnamization", "vietnam"),  # step 2 "ization" (not "ation") -> vietnamize; step 4 "ize"
    ("generalization", "gener"),  # step 2 "ization" -> generalize; step 3 "alize" -> general; step 4 "al"
    ("replacement", "replac"),  # step 4 "ement" (not "ment" or "ent"): m(replac) = 2
    ("adoption", "adopt"),  # step 4 "ion" after a "t"
    ("operator", "oper"),  # step 2 "ator" -> operate; step 4 "ate": m(oper) = 2
    ("hopefulness", "hope"),  # step 2 "fulness" -> hopeful; step 3 "ful"; step 5 keeps the e after cvc "hop"
    ("decisiveness", "decis"),  # step 2 "iveness" -> decisive; step 4 "ive"
    ("sensibility", "sensibl"),  # step 1c y -> i; step 2 "biliti" -> sensible; step 4 "ible" needs m > 1
    # (m(sens) = 1); step 5 drops the e
    ("electrical", "electr"),  # step 3 "ical" -> electric; step 4 "ic"
    ("allowance", "allow"),  # step 4 "ance"
    ("callousness", "callous"),  # step 2 "ousness" -> callous; step 4 "ous" needs m(call) > 1
    ("ion", "ion"),  # the whole word is a suffix: no stem is left to apply it to
])
def test_porter_steps_apply_their_longest_suffix(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_a_long_run_of_ys_is_stemmed() -> None:
    # Porter's "y" is a consonant at the start or after a vowel, else a vowel, so a run of them alternates
    # C V C V ... By hand: "y" * 2000 + "ed" loses "-ed" (step 1b: "yy" has a vowel, the second y); the
    # run is no double consonant (its last y, at odd index 1999, is a vowel), and its measure (a V-C pair
    # at each even index 2..1998: 999) is not 1, so no "e" is added; step 1c turns its final "y" to "i"
    # ("yy..." before it has a vowel) and no later step has a suffix "yyi" ends with.
    assert stem("y" * 2000 + "ed") == "y" * 1999 + "i"
    # "-ness" goes in step 3, since the measure of the run before it (1,499 by the same count) is above 0;
    # "ness" ends in "ss", so step 1a keeps its "s".
    assert profile("y" * 3000 + "ness").terms == {"y" * 3000}
