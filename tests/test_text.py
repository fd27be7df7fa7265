"""Claim splitting, abstention cues, numbers and stemming: the text layer every judge shares."""

from __future__ import annotations

import pytest

import ragmon.text as text_module
from ragmon.text import (
    NEGATION,
    Passage,
    american,
    answer_abstains,
    answer_terms,
    is_abstention,
    numbers,
    opposite,
    passage,
    profile,
    sentence_spans,
    split_claims,
    stem,
)


def texts(answer: str) -> list[str]:
    return [c.text for c in split_claims(answer)]


def assert_offsets(answer: str) -> None:
    for claim in split_claims(answer):
        assert answer[claim.start:claim.end] == claim.text
        assert claim.text == claim.text.strip()


def test_abbreviations_do_not_end_sentences() -> None:
    answer = "Dr. Smith moved to the U.S. in 2010. Some fruits, e.g. apples, are red. Mr. Jones agreed."
    # Three sentences: the periods of "Dr.", "U.S." (followed by a lower-case word), "e.g." and "Mr." are
    # abbreviations; only "2010.", "red." and "agreed." end sentences.
    assert texts(answer) == [
        "Dr. Smith moved to the U.S. in 2010.",
        "Some fruits, e.g. apples, are red.",
        "Mr. Jones agreed.",
    ]
    assert_offsets(answer)


def test_etc_ends_a_sentence_only_before_a_capital() -> None:
    answer = "They sell shoes, bags, etc. and hats. They sell coats, etc. Prices vary."
    assert texts(answer) == ["They sell shoes, bags, etc. and hats.", "They sell coats, etc.", "Prices vary."]


def test_decimals_stay_whole() -> None:
    answer = "The trial lasts 3.5 days. It costs 2.99 dollars!"
    assert texts(answer) == ["The trial lasts 3.5 days.", "It costs 2.99 dollars!"]
    assert_offsets(answer)


def test_bullet_items_are_claims_without_their_marker() -> None:
    answer = "- Refunds take 5 days\n- Exchanges are free"
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 5 days", "Exchanges are free"]
    # "- " is 2 characters and "Refunds take 5 days" 19, so the first item is 2..21; the newline is at 21,
    # the second line starts at 22, its text at 24 and runs 18 characters, to 42.
    assert [(c.start, c.end) for c in claims] == [(2, 21), (24, 42)]
    assert_offsets(answer)


def test_numbered_items_are_claims_and_the_item_number_is_not_a_number_of_the_claim() -> None:
    answer = "1. Refunds take 5 days.\n2. Exchanges are free."
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 5 days.", "Exchanges are free."]
    assert numbers(claims[0].text) == {5.0}
    assert_offsets(answer)


def test_newlines_end_sentences_and_headings_are_not_claims() -> None:
    answer = "## Returns\nReturns are accepted\nwithin a month"
    assert texts(answer) == ["Returns are accepted", "within a month"]


def test_abstaining_and_contentless_sentences_are_not_claims() -> None:
    answer = ("I don't know. The context does not mention refund fees. It is what it is. "
              "Here is what I found:\nReturns are accepted within 30 days.")
    # "It is what it is." has only function words; "Here is what I found:" is a lead-in.
    assert texts(answer) == ["Returns are accepted within 30 days."]
    assert_offsets(answer)


@pytest.mark.parametrize("sentence", [
    "I don't know.",
    "I do not know the answer.",
    "The context does not say when the store opens.",
    "The provided documents don't mention a warranty.",
    "There is not enough information to answer.",
    "insufficient_context",
    "I cannot answer that from the sources.",
    "I'm unable to determine the price.",
    "I’m unable to tell from these sources.",
    "The price is not mentioned in the context.",
    "There is no information about refunds.",
])
def test_abstention_cues(sentence: str) -> None:
    assert is_abstention(sentence)
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "I know the store opens at 9.",
    "The context mentions a warranty.",
    "Returns are not accepted after 30 days.",
])
def test_statements_are_not_abstentions(sentence: str) -> None:
    assert not is_abstention(sentence)


@pytest.mark.parametrize(("answer", "abstains"), [
    ("", True),
    ("   \n ", True),
    ("I don't know.", True),
    ("The context does not say. Sorry!", False),  # "Sorry!" has a content word: it is a claim
    ("It is what it is.", True),  # says nothing checkable at all
    ("I don't know. Paris is the capital of France.", False),
    ("Here is what I found:", False),  # a lead-in, neither a claim nor an abstention
])
def test_answer_abstains(answer: str, abstains: bool) -> None:
    assert answer_abstains(answer) is abstains


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
])
def test_numbers(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


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


def test_profile_drops_function_words_and_spelled_numbers() -> None:
    p = profile("The customer's two returns weren't processed.")
    # "the", "weren't" are function words; "two" is a number, not a term; "customer's" loses "'s".
    assert p.terms == {"custom", "return", "process"}
    assert p.numbers == {2.0}


def test_sentence_spans_are_stripped_offsets() -> None:
    text = "  First one.   Second one?\n\tThird!  "
    assert [text[s:e] for s, e in sentence_spans(text)] == ["First one.", "Second one?", "Third!"]


@pytest.mark.parametrize(("british", "american_form"), [
    ("centre", "center"), ("colours", "colors"), ("behaviour", "behavior"), ("organised", "organized"),
    ("analyse", "analyze"), ("catalogue", "catalog"), ("defence", "defense"),
])
def test_british_spelling_reads_as_american(british: str, american_form: str) -> None:
    assert american(british) == american_form
    assert profile(f"the {british}").terms == profile(f"the {american_form}").terms


@pytest.mark.parametrize("word", ["four", "your", "rise", "genre", "league", "vogue"])
def test_spelling_rules_leave_short_and_lookalike_words_alone(word: str) -> None:
    # Each ends like a British form (-our, -ise, -re, -gue) but its stem is too short or is no such form.
    assert american(word) == word


def test_the_us_and_the_uk_are_one_word_by_any_name() -> None:
    us = {profile(f"born in the {name}").terms for name in ("U.S.", "US", "USA", "U.S.A.", "United States")}
    # "born" is its own Porter stem; "in", "the" are function words; every name reads as "usa".
    assert us == {frozenset({"born", "usa"})}
    assert profile("the UK").terms == profile("the U.K.").terms == profile("the United Kingdom").terms \
        == {"uk"}
    assert profile("tell us").terms == {"tell"}  # the pronoun stays a function word
    assert profile("a USB port").terms == {"usb", "port"}  # no name inside a longer word


def test_a_shouted_us_is_the_pronoun_unless_it_follows_the() -> None:
    # After another word in capitals, "US" is "us", a function word; "contact" and "know", "let" are their
    # own Porter stems. After "THE", or after a one-letter "A", it is still the country.
    assert profile("CONTACT US").terms == {"contact"}
    assert profile("LET US KNOW").terms == {"let", "know"}
    assert profile("SHIPPED IN THE US").terms == profile("shipped in the USA").terms == {"ship", "usa"}
    assert profile("A US company").terms == {"usa", "compani"}
    assert profile("US ARMY").terms == {"usa", "armi"}


def test_negative_prefixes_make_an_opposite_term() -> None:
    # "non-" joins its word; the negative word's term is NEGATION + the stem of its base.
    assert profile("non-refundable").terms == {NEGATION + stem("refundable")} == {NEGATION + "refund"}
    assert profile("unlikely").terms == {NEGATION + stem("likely")}
    assert profile("incorrect").terms == {NEGATION + "correct"}
    assert opposite("refund") == NEGATION + "refund" and opposite(NEGATION + "refund") == "refund"
    # Words that look negative but are not their base's opposite keep their own stem.
    assert profile("invaluable").terms == {stem("invaluable")}
    assert profile("unlike").terms == {stem("unlike")}


def test_hyphens_and_possessives_do_not_change_terms() -> None:
    assert profile("a long-term plan").terms == profile("a long term plan").terms
    assert profile("the company's policy").terms == profile("the company\u2019s policy").terms \
        == profile("the company policy").terms


@pytest.mark.parametrize(("text", "expected"), [
    ("twenty five days", {25.0}),
    ("two hundred and three thousand", {200.0, 3000.0}),
    ("hundreds of people", set()),  # a scale word alone is no quantity
    ("a dozen eggs", {12.0}),
])
def test_spelled_numbers(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


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


@pytest.mark.parametrize(("answer", "terms"), [
    # Stems by hand: returns -> return, accepted -> accept, shipping -> ship; "are", "is" are function
    # words and the citation mark "[1]" is dropped.
    ("Returns are accepted. Shipping is free [1].", {"return", "accept", "ship", "free"}),
    # List markers are not part of any claim: the same terms, read from the whole answer.
    ("- Returns are accepted.\n- Shipping is free.", {"return", "accept", "ship", "free"}),
    # One citation mark runs over two sentences: read whole, the mark and every word in it go, so "see"
    # and "free" are not terms of the answer, though they are terms of the second sentence on its own.
    ("Returns are accepted [see p. 5. Also free].", {"return", "accept"}),
])
def test_answer_terms_are_the_terms_of_the_whole_answer(answer: str, terms: set[str]) -> None:
    assert answer_terms(answer) == terms == profile(answer).terms


def test_the_stemming_cache_keeps_the_words_in_use_when_it_turns_over(
        monkeypatch: pytest.MonkeyPatch) -> None:
    stemmed: list[str] = []
    term = text_module._term

    def counted(word: str) -> str:
        stemmed.append(word)
        return term(word)

    cache = text_module._TermCache()
    cache.limit = 3
    monkeypatch.setattr(text_module, "_term", counted)
    # A full cache turns over at "walks": "reads", "runs" and "talks" become the old generation. "runs" is
    # in use again and comes back without being stemmed; "reads" was not, and after the next turnover (at
    # "sings") it is gone and stemmed again, while "runs" comes back once more.
    for word in ("reads", "runs", "talks", "walks", "runs", "jumps", "sings", "reads", "runs"):
        cache[word]
    assert stemmed == ["reads", "runs", "talks", "walks", "jumps", "sings", "reads"]
    assert cache["runs"] == "run" and cache["reads"] == "read"


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


def test_a_run_of_sentence_marks_is_tried_from_its_first_mark_only() -> None:
    # Each mark of a run would read the rest of the run again: quadratic in a long run not followed by a
    # space ("....x"; benchmarks/text_worst_case.py). A mark after a mark starts no boundary; "Wait.." is
    # one boundary ".." at 4..6 read from its first mark.
    assert text_module._BOUNDARY.search("Wait.. what", 5) is None
    assert text_module._BOUNDARY.search("Wait.. what").span() == (4, 6)
    text = "It was" + "." * 50 + "x then. Done!"
    # The run is followed by "x", not a space: no boundary in it, so "It was" runs on to "then.".
    assert [text[s:e] for s, e in sentence_spans(text)] == ["It was" + "." * 50 + "x then.", "Done!"]


@pytest.mark.parametrize(("text", "sentences"), [
    # "al." before a lower-case word and the initials "J." "K." and "X." end no sentence.
    ("See Dr. J. K. Rowling et al. and Mr. X. Then he left.",
     ["See Dr. J. K. Rowling et al. and Mr. X. Then he left."]),
    # The word before a period may end before it: "Dr ." is still the abbreviation, "went ." is not.
    ("Dr . Who went . Home", ["Dr . Who went .", "Home"]),
    ("e.g. e.g. x. y. It ended. Yes.", ["e.g. e.g. x. y. It ended.", "Yes."]),
])
def test_chains_of_abbreviations_end_no_sentence(text: str, sentences: list[str]) -> None:
    assert [text[s:e] for s, e in sentence_spans(text)] == sentences


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
