"""Retrieved passages read once and cached: the lexical judge's side of every comparison.

Passages recur across questions and are far longer than claims, so they are read lazily (numbers only
when a claim needs them) and kept in a cache of their own, apart from claims' profiles.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import KeysView

from ragmon.text import how_often, literals, passage_sentences, percent_rows, units
from ragmon.text.cache import text_cache
from ragmon.text.numbers import (
    FORTNIGHT,
    MONEY_SCALE_LETTERS,
    NUMBER_MARKS,
    SCALES,
    SPELLED,
    chinese_numerals,
    dates_in,
    digits_of,
    european_numbers,
    loosely_dated,
    may_be_continental,
    may_be_date,
    number_words,
    numbers_in,
    spelled_numbers,
    states_a_fortnight,
)
from ragmon.text.places import places
from ragmon.text.terms import (
    NEGATION_TERMS,
    OTHER_DIGIT,
    SLICE,
    TERMS,
    full_width_as_ascii,
    is_cjk,
    negations,
    prepare,
    separated,
    slices,
    with_ascii_digits,
    words_and_pairs,
)


def _terms(spaced: str, *, cjk: bool) -> KeysView[str]:
    """The terms of the words of `spaced` (a text translated by `SEPARATORS`), in the order they first
    occur: the keys of a dict (see `Passage`); a long text's a slice at a time (`slices`), but Chinese or
    Japanese, whose pairs of characters are read with what the whole text holds (`words_and_pairs`)."""
    if cjk:  # read whole: whether it holds kana, and which of its runs are negated, are the text's
        words, pairs = words_and_pairs(spaced)
        read = dict.fromkeys(map(TERMS.__getitem__, words))
        read.update(dict.fromkeys(pairs))
        return read.keys()
    if len(spaced) <= SLICE:
        return dict.fromkeys(map(TERMS.__getitem__, spaced.split())).keys()
    terms: dict[str, None] = {}
    for part in slices(spaced):
        terms.update(dict.fromkeys(map(TERMS.__getitem__, part.split())))
    return terms.keys()


class Passage:
    """A retrieved text as the lexical judge reads it: its terms, and its numbers once a claim needs them.

    Reading passages is the hot path (every passage of every trace), and most claims state no number,
    so the number scan is left until one does; the lower-cased text it reads is made again then rather
    than kept, which would cost more memory traffic than it saves. The terms are the keys of a dict, not
    a frozenset: a dict of strings is not tracked by the garbage collector, which otherwise walks every
    term of every cached passage (with frozensets that was 8% of the scoring time), and it takes less
    than half the memory.
    """

    __slots__ = ("_dates", "_european", "_numbers", "_outside", "_text", "terms")

    def __init__(self, text: str) -> None:
        cjk = not text.isascii() and is_cjk(text)  # a flag's test first: most passages are ASCII
        if cjk:
            text = chinese_numerals(text)  # kept so: `states` finds "七天" as 7
        low = prepare(text)
        words = separated(low)
        if not text.isascii() and OTHER_DIGIT in words:
            # Kept with its numbers in ASCII digits, so `states` finds "２４" as 24.
            text, low, words = with_ascii_digits(text)
        self._text = text
        self._european = False
        """Whether `_text` has its numbers the English way yet (`european_numbers`): done once a claim asks
        for numbers, as most claims state none."""
        self.terms = _terms(words, cjk=cjk)
        if not cjk and not self.terms.isdisjoint(NEGATION_TERMS) and (marked := negations(low)):
            self.terms = _terms(separated(marked), cjk=False)
        """content terms, plus the markers of function words and number words (no claim term is either,
        and leaving them in saves a set difference per passage)"""
        self._numbers: frozenset[float] | None = None
        self._dates: frozenset[float] | None = None
        self._outside: frozenset[float] = frozenset()

    @property
    def numbers(self) -> frozenset[float]:
        return self._read_numbers(prepare(self._numbers_text())) if self._numbers is None else self._numbers

    def _numbers_text(self) -> str:
        if not self._european:
            self._text = european_numbers(full_width_as_ascii(self._text))
            self._european = True
        return self._text

    def _read_numbers(self, low: str) -> frozenset[float]:
        marks = self.terms & NUMBER_MARKS.keys()
        self._numbers = numbers_in(low, spelled_numbers(separated(low), marks, passage=True) if marks else ())
        return self._numbers

    def states(self, wanted: frozenset[float]) -> bool:
        """Whether the passage states all these numbers. Most claims are checked against passages that
        lack their number, so first a C-level substring test: with no number words about, a number under
        1,000 the passage states must appear in it as its digits ("30" in "30-day", "3.5" in "3.50", "0.25"
        or ".25"; the text with its digits in ASCII will do: every run of digits of the prepared text is in
        it). And the passage a claim was drawn from mostly writes its number in plain digits, which a few
        substring tests confirm: only when they cannot is every number in the passage read.

        The substring test runs whether or not the numbers were read already, so the answer never depends
        on what was asked of this (cached, shared) passage before: the same claim and passage always get
        the same verdict. It decides only for numbers its digits spell exactly (not 0.1234567, which they
        round to "0.123457"); where it and the scan could still differ (a number written with more than 15
        significant digits that rounds to a shorter one) the literal text wins.

        Both tests read the passage once per number, so a claim of more than `_MANY_NUMBERS` numbers (a
        table, or an attack: thousands of numbers against a long passage took seconds) is decided by the
        scan alone, which reads it once."""
        if len(wanted) > _MANY_NUMBERS:
            return not self.unstated(wanted)
        if self.terms.isdisjoint(SPELLED):
            text = self._numbers_text()
            for number in wanted:
                magnitude = abs(number)  # "-20" may be written "−20": its digits are what must be there
                if magnitude < 1000:
                    digits = digits_of(magnitude)
                    if (digits not in text and float(digits) == magnitude
                            and not (magnitude < 1 and digits[1:] in text)):  # ".25" is 0.25
                        return False
        if self._numbers is None:
            low = _prepared(self._numbers_text())
            if all(_written(low, number) for number in wanted):
                return True
            self._read_numbers(low)
        return not self.unstated(wanted)

    def unstated(self, wanted: frozenset[float]) -> frozenset[float]:
        """Which of `wanted` the passage does not state, its dates read (`dates_in`) only when a number
        missing from the rest could be one: a claim's date, which few claims have; its fortnights in weeks
        or days likewise, for a claim's `FORTNIGHT`."""
        missing = wanted - self.numbers
        if FORTNIGHT in missing and states_a_fortnight(_prepared(self._numbers_text())):
            missing -= {FORTNIGHT}  # "14 days": read for the claims that say "a fortnight" only
        if missing and any(map(may_be_date, missing)):
            low = _prepared(self._numbers_text())
            if self._dates is None:
                # `_dates` last: a thread sharing this passage takes it as the sign that both are read.
                dates, self._outside = dates_in(low, self.numbers)
                self._dates = dates
            missing = frozenset(number for number in missing - self._dates if not may_be_date(number)
                                or not loosely_dated(number, low, self.numbers, self._outside))
        return missing

    def clashes(self, measured: frozenset[tuple[float, str]]) -> list[str]:
        """A claim's numbers written with a unit this passage writes them with no unit of (`units.clashes`),
        read where the passage writes those numbers (`units.written_with`), and its worked percentages the
        passage gives to another row than the question's (`percent_rows`)."""
        values = {value for value, _ in measured}
        worked = {value: unit for value, unit in measured if isinstance(unit, units.Operand)}
        low = _prepared(self._numbers_text())
        stated = units.written_with(low, values, number_words(self.terms), worked)
        return units.clashes(measured, stated | percent_rows.rows(low, worked) if worked else stated)

    def counts_otherwise(self, counted: frozenset[how_often.Count]) -> list[str]:
        """A claim's counts per period (`how_often.counts`) that this passage gives per other periods only."""
        return how_often.clashes(counted, how_often.counts(_prepared(self._numbers_text())))

    def lacks(self, named: frozenset[str]) -> list[str]:
        """Which of a claim's literals (`ragmon.text.literals`) the passage does not hold as written, in
        order. Read from the text the numbers are, kept only for the last few passages asked (`_prepared`):
        claims with literals are few."""
        low = _prepared(self._numbers_text())
        return sorted(literals.shown(literal) for literal in named if not literals.holds(low, literal))


def _written(low: str, number: float) -> bool:
    """Whether the prepared text has `number` in plain digits that the number scan reads as exactly that
    number: "30" in "30 days", but not in "130", "30,000", "30.5", "30 million", "-30", "30_000", "$30M" or
    "30:00 million". It must never say yes where the scan reads another number: a passage whose numbers an
    earlier claim had read would then judge the same claim otherwise. False only means
    "not this way" ("1,30" states 30 too, as a list), or "not among the first `places` the digits occur
    at": looking at each of them in Python made a long run of digits cost seconds."""
    if number < 0 or number == math.inf:  # 309 digits or more: "inf" is no way to write it ("information")
        return False
    digits = digits_of(number)
    if float(digits) != number:
        return False
    return any((not at or low[at - 1] not in _BEFORE_NUMBER) and _NUMBER_ENDS.match(low, at + len(digits))
               and not (at >= 6 and low.startswith("minus ", at - 6)) for at in places(low, digits))


_MANY_NUMBERS = 64
_BEFORE_NUMBER = frozenset("0123456789.,_:h-\u2212")
"""Characters before digits that make them part of another number ("12_345", a time's minutes "3:30" and
"9h30"), or maybe a negative one ("-20")."""
_NUMBER_ENDS = re.compile(r"(?![0-9]|[.,_][0-9]|[:h](?!00)[0-5][0-9]|(?::00)?(?:" + MONEY_SCALE_LETTERS + "|"
                          + SCALES + "))")
"""Where a number in digits the scan reads ends: no more digits, decimals, groups ("60_000", which code
writes for 60,000) or scale follow, nor a time's minutes ("3:30", "9h30", one number: `numbers.CLOCK`), nor a
currency's scale letter ("$2M", which `numbers_in` reads as 2 million: "5m" is left to the scan too), nor
a whole hour's ":00" before a scale or a currency's scale letter ("9:00 million" is read "9 million",
"€9:00m" 9 million: the scan reads "9:00" as "9" first)."""


_TERM_BYTES = 40
"""Bytes a passage holds per term (measured: 23-30 with tracemalloc)."""
_PAIR_BYTES = 80
"""And per pair of Chinese or Japanese characters, the term's own str: English words are shared by every
passage through the stem cache, pairs only while `terms._PAIRS` holds them."""
_PASSAGE_BYTES = 200
_NUMBER_BYTES = 48
"""Bytes a passage holds per number once they are read: a float and its share of a frozenset's table
(measured: 40-72 with tracemalloc, by how full the table is)."""
_DIGITS = bytes(byte if byte in b"0123456789" else ord(" ") for byte in range(256))
"""A byte table keeping digits and making every other byte a space."""


def size(text: str, read: Passage) -> int:
    """What a long passage holds in the cache, its numbers included: they are read after it is counted,
    once a claim states one, and a table of figures holds more in them than in its text and terms. Each
    run of digits, decimal and group marks dropped ("1,250.50" is one), counts as a number: ~10% of the
    time reading the passage takes, where a regex took ~85% (only long passages are sized). They are
    counted in the text the passage keeps, which has them in ASCII digits: a copy, counted too, when any
    was written in other digits, or when the passage may make one once its numbers are asked for
    (`Passage._numbers_text`: continental numbers, full-width marks), which uncounted had taken the cache of
    32 MiB of long passages writing euro prices to 52 MiB."""
    kept = read._text
    numbers = len(kept.encode("utf-8", "surrogatepass").translate(_DIGITS, b".,").split())
    copied = kept is not text or may_be_continental(kept) or full_width_as_ascii(kept) is not kept
    texts = sys.getsizeof(text) + (sys.getsizeof(kept) if copied else 0)
    per_term = _TERM_BYTES + (_PAIR_BYTES if is_cjk(text) else 0)
    return texts + per_term * len(read.terms) + _NUMBER_BYTES * numbers + _PASSAGE_BYTES


SHORT = 4096
"""Characters of the longest passage in the count-bounded cache: 4,096 of them hold ~40 MB at most. Of a
wide one, `WIDE_SHORT`: a Chinese or Japanese passage holds about a term a character."""
WIDE_SHORT = 256


def _prepared_size(text: str, low: str) -> int:
    return sys.getsizeof(low) + (0 if low is text else sys.getsizeof(text))


_cached_prepared, _clear_prepared = text_cache(prepare, _prepared_size, short=SHORT, entries=8,
                                               max_bytes=16 * 2**20)
_last: tuple[str, str] = ("", "")
"""The last text `_prepared` made, whatever its size: what the next claim of the example asks again."""


def _prepared(text: str) -> str:
    """`prepare`d, for the few passages each claim of an answer asks again: made for each claim, 4,000
    claims stating a number against a context of 1 MB that wrote it in digits took 3.2 s, as many naming
    code 0.74 s against 100 KB. The last 8, the contexts of an example, with the texts they are keyed by
    at most 16 MiB, and the last asked whatever its size: bounded by count alone, 8 documents of 4 MiB
    with one emoji each held 256 MiB in a worker, three times its share of the sidecar's memory bound; by
    bytes alone, a document over them was prepared again for every claim (400 claims against one of 3 MB:
    16 s, against 3.7 s)."""
    global _last
    last = _last
    if last[0] is text:
        return last[1]
    low = _cached_prepared(text)
    _last = (text, low)
    return low


ENTRIES = 4096
passage, _clear_passages = text_cache(Passage, size, short=SHORT, wide_short=WIDE_SHORT, entries=ENTRIES,
                                      max_bytes=32 * 2**20)
"""A passage read once: cached by text, as retrieved passages recur across questions and a replay over one
corpus then reads each passage once. Short ones (nearly all: 200 words are ~1,300 characters) in a C-level
LRU of 4,096 (~18 MB with their texts at 200 words); longer ones in a `LongTextCache` of 32 MiB."""


def release() -> None:
    """Lets go of the last prepared text, which only the claims of one example ask again: kept past its
    example, a lexical worker held its last large document twice over (the text and its prepared copy,
    112 MiB after a 14 MiB document of wide characters) until a later claim stated a number."""
    global _last
    _last = ("", "")


def clear_cache() -> None:
    """Empties the passage cache and the prepared texts and sentences kept beside it."""
    _clear_passages()
    _clear_prepared()
    release()
    passage_sentences.sentences.cache_clear()
