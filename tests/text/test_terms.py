"""Words as terms: function words, spelling, country names, negation and the term cache."""

from __future__ import annotations

import unicodedata

import pytest

import ragmon.text.terms as text_module
from ragmon.text.terms import INVISIBLE, NEGATION, SEPARATORS, american, opposite, profile, separated, stem


def test_profile_drops_function_words_and_spelled_numbers() -> None:
    p = profile("The customer's two returns weren't processed.")
    # "the", "weren't" are function words; "two" is a number, not a term; "customer's" loses "'s".
    assert p.terms == {"custom", "return", "process"}
    assert p.numbers == {2.0}


def test_digits_split_words_and_are_read_as_numbers() -> None:
    # Digits separate words as spaces do: "route66" is the word "route" (stem "rout") and 66, "3rd" is 3 and
    # "rd", an ordinal's ending and a function word, as "and" is. Without a digit a text states no number.
    p = profile("route66 and 3rd")
    assert p.terms == profile("route and rd").terms == {"rout"}
    assert p.numbers == {66.0, 3.0}
    assert profile("route and rd").numbers == frozenset()


def test_digits_of_other_scripts_are_no_terms() -> None:
    # As "99" is none: "lasts" -> "last" and "months" -> "month" are the terms, 99 the number.
    assert profile("lasts \uff19\uff19 months").terms == profile("lasts 99 months").terms == {"last", "month"}
    assert profile("lasts \u0669\u0669 months").terms == {"last", "month"}


def test_a_superscript_after_a_word_is_no_part_of_it() -> None:
    # A footnote's "¹" or a unit's "²" is read as neither word nor number: "days¹" is "days" ("dai").
    assert profile("30 days\u00b9").terms == profile("30 days").terms == {"dai"}
    assert profile("30 days\u00b9").numbers == {30.0}


@pytest.mark.parametrize(("text", "terms"), [
    ("war\u00adranty", {"warranti"}),  # a soft hyphen inside a word shows nothing
    ("\ufeffwarranty\u2060", {"warranti"}),  # nor do a byte order mark and a word joiner
    ("warr\u200banty", {"warranti"}),  # nor does a zero-width space: pasted web text puts one in a word
    # and between two words it shows them joined, as a reader sees them ("coversscreens" -> "coversscreen")
    ("covers\u200bscreens", {"coversscreen"}),
    ("covers\u200b screens", {"cover", "screen"}),  # beside a space it changes nothing
    ("covers\x00screens", {"cover", "screen"}),  # a control character separates words: it joins nothing
])
def test_invisible_characters_are_no_part_of_a_word(text: str, terms: set[str]) -> None:
    assert profile(text).terms == terms


def test_invisible_characters_are_every_format_and_non_space_control_character() -> None:
    # Every Cf and every Cc that is not whitespace this Python's Unicode knows; the list may hold more,
    # assigned by a later version of Unicode (Cn here).
    known = {chr(code) for code in range(0x110000)
             if unicodedata.category(chr(code)) == "Cf"
             or (unicodedata.category(chr(code)) == "Cc" and not chr(code).isspace())}
    assert {c for c in INVISIBLE if unicodedata.category(c) != "Cn"} == known


def test_ascii_text_is_separated_as_separators_translate_it() -> None:
    # `separated` translates ASCII text by its bytes, other text by `SEPARATORS`: the same characters.
    every_ascii = "".join(map(chr, range(128)))
    for text in (every_ascii, every_ascii[::-1] + "\u00e9\u200b\uff12", "Refunds: 30-day [1].", ""):
        assert separated(text) == text.translate(SEPARATORS)


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
    # So with an en dash, an em dash or a minus, which "non" and "refundable" read apart had not been.
    assert profile("non\u2013refundable").terms == profile("Non\u2014refundable").terms \
        == profile("non\u2212refundable").terms == {NEGATION + "refund"}
    # A dash elsewhere stays: "5–7 days" is a range.
    assert text_module.prepare("Non\u2013refundable, ships in 5\u20137 days") \
        == "nonrefundable, ships in 5\u20137 days"
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


def test_chinese_and_japanese_runs_are_read_as_overlapping_pairs_of_characters() -> None:
    # The number and "。" split the run: 退款在交货后 gives 5 pairs, 天内受理 3.
    read = profile("退款在交货后30天内受理。")
    assert read.terms == {"退款", "款在", "在交", "交货", "货后", "天内", "内受", "受理"}
    assert read.numbers == {30.0}
    # A character alone between punctuation is a term of its own; Japanese kana pair like kanji; the
    # katakana middle dot separates words.
    assert profile("书，笔").terms == {"书", "笔"}
    assert profile("ギフト・カード").terms == {"ギフ", "フト", "カー", "ード"}
    # Korean writes spaces between words, and is read word by word as before.
    assert profile("환불은 배송 후").terms == {"환불은", "배송", "후"}


def test_pairs_of_characters_are_terms_as_they_are_and_leave_the_stem_cache_to_words() -> None:
    # A pair has no stem: each one stemmed and cached had taken a slot of the stem cache (65,536 of them,
    # English words' too) at nearly every character of open-vocabulary Chinese, and a Python call per miss.
    text_module.TERMS.clear()
    text_module.clear_cache()  # the corpora hold this sentence: a test scoring them first had cached it
    read = profile("客服不支持退款 refunds。")
    assert read.terms == {"客服", "服不", "不支", NEGATION + "支持", "持退", "退款", "refund"}
    assert set(text_module.TERMS) == {"refunds"}
    # Two sound marks (or code points no letter is assigned to) make no pair, as a symbol makes no term;
    # one beside a kana makes one
    assert profile("か\u309b\u309c").terms == {"か\u309b"}
    # A combining sound mark is composed with its kana first (NFC): "か\u3099" is "が", one character.
    assert profile("か\u3099\u309b\u309c").terms == {"が\u309b"}


def test_a_pair_read_in_two_texts_is_one_str_shared_by_both() -> None:
    # What the passage and profile caches hold of Chinese text is mostly pairs: 80 bytes each, shared.
    first, second = (profile(text).terms for text in ("退款政策", "全额退款"))
    [shared] = first & second
    assert shared == "退款"
    assert next(term for term in first if term == shared) is next(term for term in second if term == shared)


def test_full_width_punctuation_reads_as_ascii() -> None:
    # "５，０００" is 5,000, not 5 and 0; "３．５" is 3.5; a full-width note's number is no quantity.
    assert profile("５，０００円").numbers == {5000.0}
    assert profile("３．５公斤").numbers == {3.5}
    assert profile("运费由买家承担（来源：文档1）").numbers == frozenset()


def test_a_long_text_lowered_in_slices_keeps_greek_final_sigma() -> None:
    # A long text other than ASCII is lowered a slice at a time (CPython's lower() holds 12 bytes a
    # character). A capital sigma ending a word lowers to "ς", elsewhere to "σ": the 65,536th character
    # is the last of "ΟΔΟΣ", which a slice starting there would read as a word of its own, "σ".
    lead = "λόγος " * 10_922 + " "
    text = f"{lead}ΟΔΟΣ ΣΟΦΙΑ ΟΔΟΣ."
    assert len(lead + "ΟΔΟ") == 65_536
    assert text_module.normalise(text).endswith("οδος σοφια οδος.")
