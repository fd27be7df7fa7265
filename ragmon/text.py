"""Text handling shared by every judge and metric: one tokeniser, one stemmer, one claim splitter.

Everything here is deterministic and offline, and sits on the scoring hot path (thousands of examples a
second), so regexes are compiled once, stems are cached, and per-text work is done in C-level set and
regex operations rather than Python loops over characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ragmon.model import Claim


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOPWORDS: frozenset[str] = _wordset(
    """
    a about above after again against all almost also although am among an and any are aren't around as at
    be because been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each either else etc even ever every few for from further get gets
    got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself
    his how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let's may me might
    more most much must mustn't my myself neither no nor not of off often on once only or other ought our ours
    ourselves out over own per quite rather really same shall shan't she she'd she'll she's should shouldn't
    since so some such than that that's the their theirs them themselves then there there's therefore these
    they they'd they'll they're they've this those though through thus to too under unless until up upon us
    very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether
    which while who who's whom whose why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves one s t d ll m re ve
    """
)
"""Function words: they carry no checkable content, so they neither make a sentence a claim nor count
toward support."""

_UNITS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "dozen": 12,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}
_DIGITS = {"one": 1, **{w: v for w, v in _UNITS.items() if v < 10 and w != "zero"}}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
           "trillion": 1_000_000_000_000}
NUMBER_WORDS: frozenset[str] = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES)
"""Spelled-out numbers are compared as numbers, not as terms, so "two years" matches "2 years". A bare
"one" is a function word: it is far more often a pronoun ("one of the reasons") than a quantity; "one
hundred" is still 100."""

_SEPARATORS = {code: chr(code) for code in range(128)} | str.maketrans(dict.fromkeys(
    "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~0123456789\u201c\u201d\u2018\u2014\u2013\u2026\u2022\u00b7\u00a0", " "))
"""Everything but letters and apostrophes becomes a space, so `split()` yields the words: a C-level
pass several times faster than a unicode word regex, and this runs over every retrieved passage. The
other ASCII characters map to themselves, which changes nothing but speed: `str.translate` looks each
character up once per call, and a character it does not find costs it a raised and cleared KeyError."""
_CITATION_MARK = re.compile(r"\[[^\[\]\n]{1,64}\]")
_COUNTRY = re.compile(
    r"U(?<![\w.]U)(?:\.S\.(?:A\.)?|\.K\.|SA|S|K|nited (?:States(?: of America)?|Kingdom))(?!\w)")
"""The US and the UK by any of their usual names, read as one word each, so "U.S." in a passage
supports "the United States" in a claim. It starts with a literal, so the regex engine looks for "U"
at C speed."""
def _country(name: re.Match[str]) -> str:
    """Capitals are all a bare "US" has to tell the country from the pronoun, so where the word before it
    is in capitals too (not "THE") the text is shouting and "US" is most likely "us" ("CONTACT US",
    "LET US KNOW")."""
    found = name.group()
    if found == "US" and _shouted_word_before(name.string, name.start()):
        return found
    return " UK " if "K" in found else " USA "


def _shouted_word_before(text: str, at: int) -> bool:
    """Whether spaces or tabs and before them a word of 2 or more capitals other than "THE" end at `at`.
    Walked back letter by letter: a regex cannot search backwards, and searching a window forwards
    cost microseconds a match ("US US US ...")."""
    end = at
    while end and text[end - 1] in " \t":
        end -= 1
    start = end
    while start and "A" <= text[start - 1] <= "Z":
        start -= 1
    return (end < at and end - start >= 2 and not (start and text[start - 1].isalpha())
            and text[start:end] != "THE")
# Patterns run on every passage start with a single character class, not `x+`: only then does the regex
# engine skip ahead to candidate positions instead of trying the whole pattern at every character.
_SCALE_WORDS = "|".join(_SCALES)
_DIGIT_NUMBER = re.compile(r"[0-9][0-9]*(?:,[0-9]+)*(?:\.[0-9]+)?(?:[\s-]?(?:" + _SCALE_WORDS + r")\b)?")
_DIGITS_AND_SCALE = re.compile(r"([0-9.,]+)[\s-]?([a-z]*)")
_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")


@dataclass(frozen=True, slots=True)
class TextProfile:
    """What the lexical judge and the relevance metric compare: stemmed content terms and numbers."""

    terms: frozenset[str]
    numbers: frozenset[float]


def normalise(text: str) -> str:
    """Lower-case with one apostrophe, so "Don’t" and "don't" are the same token everywhere."""
    return text.lower().replace("\u2019", "'")


def _prepare(text: str) -> str:
    """The lower-cased text words are read from. Citation markers ("[1]", "[doc-3]") go, or the "1" of
    "[1]" would become a number the context must contain; "non-" joins its word, so "non-refundable" is
    one term, the opposite of "refundable", rather than "non" plus "refundable"."""
    if "U" in text and _COUNTRY.search(text) is not None:
        text = _COUNTRY.sub(_country, text)
    low = normalise(text)
    if "[" in low:
        low = _CITATION_MARK.sub(" ", low)
    if "non-" in low:
        low = low.replace("non-", "non")
    return low


def stem(word: str) -> str:
    """Porter (1980) stem of one lower-case word, minus a possessive "'s". Not cached itself: the term
    cache below holds the results where it matters."""
    if word.endswith("'s"):
        word = word[:-2]
    return _porter(word) if len(word) > 2 and word.isalpha() else word


_BRITISH = (
    (re.compile(r"([a-z]{3,})our(s|ed|ing|ite|ites|ful|able|ably|al|ally|er|ers|ist|y)?"), r"\1or\2"),
    (re.compile(r"([a-z]{2,}[tb])re(s?)"), r"\1er\2"),
    (re.compile(r"([a-z]{3,}[^aeiou])([iy])s(e|es|ed|ing|ation|ations|er|ers)"), r"\1\2z\3"),
    (re.compile(r"([a-z]{3,})ogue(s?)"), r"\1og\2"),
)
_BRITISH_WORDS = {"defence": "defense", "offence": "offense", "licence": "license", "pretence": "pretense",
                  "programme": "program", "programmes": "programs", "grey": "gray", "tyre": "tire",
                  "tyres": "tires", "cheque": "check", "cheques": "checks", "aluminium": "aluminum"}


def american(word: str) -> str:
    """British spelling as American: "centre" -> "center", "colour" -> "color", "organise" ->
    "organize", "analyse" -> "analyze", "catalogue" -> "catalog". Both sides of every comparison go
    through it, so a rule that also rewrites a word with no American twin ("detour" -> "detor") is
    harmless; only merging two different words would not be, hence the minimum lengths."""
    if word in _BRITISH_WORDS:
        return _BRITISH_WORDS[word]
    # Each pattern needs one of these; most words have none, and substring tests cost less than a match.
    if not ("our" in word or "is" in word or "ys" in word or "re" in word[-3:] or "ogue" in word):
        return word
    for pattern, american_form in _BRITISH:
        match = pattern.fullmatch(word)
        if match is not None:
            return match.expand(american_form)
    return word


_NEGATIVE = re.compile(
    r"(?:un|non)([a-z]{4,})"
    r"|(?:in|im|il|ir)([a-z]{3,}(?:able|ible|ent|ant|ate|ete|ite|ive|al|ic|ous|ar|id|ect|ure)(?:ly)?)")
"""A word made negative by its prefix: unlikely, non-refundable, incorrect, impossible, illegal,
irregular. "in-" and its variants also start many words that are not negatives (install, increase), so
they count only before an adjective ending. A word taken for a negative when it is none ("important") is
still matched with itself everywhere, and its made-up base ("portant") never occurs, so it does no harm."""
_NOT_NEGATIVE = frozenset(("invaluable", "inflammable", "immigrant", "immigrants", "immediate",
                           "immediately", "unlike"))
"""Words that look negative but are not the opposite of their base ("unlike" is mostly a preposition)."""
NEGATION = "\u00ac"
"""Prefix of the term of a negative word: "non-refundable" -> "¬refund", the opposite of "refund"."""

_FUNCTION_WORD = ""
_SPELLED_NUMBER = "#"
_NUMBER_MARKS = {_SPELLED_NUMBER + word: word for word in NUMBER_WORDS}
"""The term of a number word ("#two"), so a text's terms tell which number words it has; a number word in
quotes ("'two'") is marked "#" alone: it is no number, as the words are read for numbers."""
_SPELLED = frozenset((_SPELLED_NUMBER, *_NUMBER_MARKS))
_NOT_TERMS = frozenset((_FUNCTION_WORD, *_SPELLED))


def opposite(term: str) -> str:
    """ "refund" <-> "¬refund"."""
    return term[1:] if term.startswith(NEGATION) else NEGATION + term


def _term(word: str) -> str:
    if word in NUMBER_WORDS:
        return _SPELLED_NUMBER + word
    bare = word.strip("'")
    if bare in NUMBER_WORDS:
        return _SPELLED_NUMBER
    if not bare or bare in STOPWORDS:
        return _FUNCTION_WORD
    if bare.endswith("'s"):
        bare = bare[:-2]
        if bare in NUMBER_WORDS:
            return _SPELLED_NUMBER  # "thousand's": no number word to read, but "0.5 thousand's" is 500
    bare = american(bare)
    negative = _NEGATIVE.fullmatch(bare)
    if negative is not None and bare not in _NOT_NEGATIVE:
        return NEGATION + _porter(american(negative.group(1) or negative.group(2)))
    return _porter(bare) if len(bare) > 2 and bare.isalpha() else bare


class _TermCache(dict[str, str]):
    """word -> its term, or a marker for a function word ("") or a number word ("#two"; "#" if in quotes).

    This is the stemming cache. Every word of every passage goes through it by C-level `map`, so it is a
    plain dict that computes only on a miss (a hit costs a third of an `lru_cache` hit). It is bounded by
    generations, as recency bookkeeping on every hit would cost more than it saves: when it holds `limit`
    words they become the old generation and it starts again empty, and a word found in the old
    generation moves back without being stemmed again. So the words in use survive a turnover, and only
    those unused for a whole generation are stemmed again; emptying it all at once made every word a miss
    at the same moment, a stall at each turnover on open-vocabulary traffic. Both generations together
    hold at most 2 x 65,536 words (16 MB measured). Terms are a pure function of the word, so threads
    sharing it can at worst compute one twice.
    """

    limit = 1 << 16

    def __init__(self) -> None:
        super().__init__()
        self.old: dict[str, str] = {}

    def __missing__(self, word: str) -> str:
        term = self.old.get(word)
        if term is None:
            term = _term(word)
        if len(self) >= self.limit:
            self.old = self.copy()
            super().clear()
        self[word] = term
        return term

    def clear(self) -> None:
        super().clear()
        self.old = {}


_TERMS = _TermCache()


def numbers(text: str) -> frozenset[float]:
    """Every quantity in `text` as a float: "1,000" -> 1000, "30-day" -> 30, "two years" -> 2,
    "3.50" -> 3.5, "1.5 million" -> 1500000, "45%" -> 45 (a percentage is compared by its number)."""
    return profile(text).numbers


def _numbers(low: str, spelled: Iterable[float] = ()) -> frozenset[float]:
    """The quantities in digits of a prepared text, plus its spelled-out ones (read from its words)."""
    found = set(spelled)
    for match in _DIGIT_NUMBER.findall(low):
        try:
            found.add(float(match))  # the common case: "30", "3.5"
        except ValueError:
            found.update(_grouped_or_scaled(match))
    return frozenset(found) if found else _NO_NUMBERS


_NO_NUMBERS: frozenset[float] = frozenset()
"""Shared by the texts that state no number (most): one object, not one allocation per text."""


def _spelled_numbers(spaced: str, marks: Iterable[str]) -> set[float]:
    """ "two" -> 2, "twenty-five" -> 25, "three hundred" -> 300, "one million" -> 1e6; a bare "one" is not
    a number. `spaced` is the text with its separators made spaces, `marks` the number words' terms among
    its terms: they say which number words occur, and those are found by C-level `str.find` and read
    with the words that follow. A regex over the whole text would try each number word at every
    character, and splitting a passage into words again costs three times as much."""
    starts: list[tuple[int, str]] = []
    for mark in marks:
        word = _NUMBER_MARKS[mark]
        at = spaced.find(word)
        while at >= 0:
            end = at + len(word)
            if (not at or spaced[at - 1].isspace()) and (end == len(spaced) or spaced[end].isspace()):
                starts.append((at, word))
                if word in _SCALES:
                    _one_before(spaced, at, starts)
            at = spaced.find(word, end)  # an overlapping occurrence follows a letter: it is no word
    found: set[float] = set()
    end = 0
    for at, word in sorted(starts):
        if at < end:
            continue  # the "five" of "twenty-five", already read
        end = at + len(word)
        after = _WORD.match(spaced, end)
        if word in _TENS:
            value = _TENS[word]
            if after is not None and after[1] in _DIGITS:
                value += _DIGITS[after[1]]
                end = after.end()
                after = _WORD.match(spaced, end)
        elif word in _UNITS:
            value = _UNITS[word]
        elif word == "one" and after is not None and after[1] in _SCALES:
            value = 1
        else:
            continue  # a scale word alone ("hundred") is no quantity
        if after is not None and after[1] in _SCALES:
            value *= _SCALES[after[1]]
            end = after.end()
        found.add(float(value))
    return found


def _one_before(spaced: str, at: int, starts: list[tuple[int, str]]) -> None:
    """Adds the "one" of "one hundred": a bare "one" is a pronoun, so it is read only before a scale."""
    end = at
    while end and spaced[end - 1].isspace():
        end -= 1
    if end >= 3 and spaced.endswith("one", end - 3, end) and (end == 3 or spaced[end - 4].isspace()):
        starts.append((end - 3, "one"))


_WORD = re.compile(r"\s*(\S+)")
"""The next word, as `str.split` delimits words."""


def _grouped_or_scaled(match: str) -> list[float]:
    """ "1,000" is one number and "1.5 million" another; "1,2,3" (or "2019,2020") is several."""
    digits, scale = _DIGITS_AND_SCALE.fullmatch(match).groups()  # type: ignore[union-attr]
    parts = [digits.replace(",", "")] if _GROUPED.fullmatch(digits) else digits.split(",")
    factor = _SCALES[scale] if scale else 1
    return [round(float(part) * factor, 6) for part in parts]


@lru_cache(maxsize=4096)
def profile(text: str) -> TextProfile:
    """Content terms and numbers of a claim, a question or an answer. Cached by text: claims recur."""
    low = _prepare(text)
    spaced = low.translate(_SEPARATORS)
    terms = frozenset(filter(None, map(_TERMS.__getitem__, spaced.split())))  # C-level: function words go
    if terms.isdisjoint(_SPELLED):
        return TextProfile(terms, _numbers(low))
    marks = terms & _NUMBER_MARKS.keys()
    return TextProfile(terms.difference(_SPELLED), _numbers(low, _spelled_numbers(spaced, marks)))


def has_content(text: str) -> bool:
    """Whether the text has a content word or a number: without one a sentence asserts nothing."""
    p = profile(text)
    return bool(p.terms or p.numbers)


# --- passages ---------------------------------------------------------------------------------------


class Passage:
    """A retrieved text as the lexical judge reads it: its terms, and its numbers once a claim needs them.

    Reading passages is the hot path (every passage of every trace), and most claims state no number,
    so the number scan is left until one does; the lower-cased text it reads is made again then rather
    than kept, which would cost more memory traffic than it saves. The terms are the keys of a dict, not
    a frozenset: a dict of strings is not tracked by the garbage collector, which otherwise walks every
    term of every cached passage (with frozensets that was 8% of the scoring time), and it takes less
    than half the memory.
    """

    __slots__ = ("_numbers", "_text", "terms")

    def __init__(self, text: str) -> None:
        self._text = text
        words = _prepare(text).translate(_SEPARATORS).split()
        self.terms = dict.fromkeys(map(_TERMS.__getitem__, words)).keys()
        """content terms, plus the markers of function words and number words (no claim term is either,
        and leaving them in saves a set difference per passage)"""
        self._numbers: frozenset[float] | None = None

    @property
    def numbers(self) -> frozenset[float]:
        return self._read_numbers(_prepare(self._text)) if self._numbers is None else self._numbers

    def _read_numbers(self, low: str) -> frozenset[float]:
        marks = self.terms & _NUMBER_MARKS.keys()
        self._numbers = _numbers(low, _spelled_numbers(low.translate(_SEPARATORS), marks) if marks else ())
        return self._numbers

    def states(self, wanted: frozenset[float]) -> bool:
        """Whether the passage states all these numbers. Most claims are checked against passages that
        lack their number, so first a C-level substring test: with no number words about, a number under
        1,000 the passage states must appear in it as its digits ("30" in "30-day", "3.5" in "3.50"; the
        raw text will do: every run of digits of the prepared text is in it). And the passage a claim was
        drawn from mostly writes its number in plain digits, which a few substring tests confirm: only
        when they cannot is every number in the passage read.

        The substring test runs whether or not the numbers were read already, so the answer never depends
        on what was asked of this (cached, shared) passage before: the same claim and passage always get
        the same verdict. It decides only for numbers its digits spell exactly (not 0.1234567, which they
        round to "0.123457"); where it and the scan could still differ (a number written with more than 15
        significant digits that rounds to a shorter one) the literal text wins.

        Both tests read the passage once per number, so a claim of more than `_MANY_NUMBERS` numbers (a
        table, or an attack: thousands of numbers against a long passage took seconds) is decided by the
        scan alone, which reads it once."""
        if len(wanted) > _MANY_NUMBERS:
            return wanted <= self.numbers
        if self.terms.isdisjoint(_SPELLED):
            text = self._text
            for number in wanted:
                if number < 1000:
                    digits = _digits(number)
                    if digits not in text and float(digits) == number:
                        return False
        if self._numbers is not None:
            return wanted <= self._numbers
        low = _prepare(self._text)
        return all(_written(low, number) for number in wanted) or wanted <= self._read_numbers(low)


def _digits(number: float) -> str:
    """How a number is mostly written: "30", "3.5"; to 6 decimals, so check it spells `number` exactly."""
    return f"{number:f}".rstrip("0").rstrip(".")


def _written(low: str, number: float) -> bool:
    """Whether the prepared text has `number` in plain digits that the number scan reads as exactly that
    number: "30" in "30 days", but not in "130", "30,000", "30.5" or "30 million". False only means
    "not this way" ("1,30" states 30 too, as a list), or "not among the first `_LOOKALIKES` places the
    digits occur": looking at each of them in Python made a long run of digits cost seconds."""
    if number == math.inf:  # 309 digits or more: "inf" is no way to write it ("information")
        return False
    digits = _digits(number)
    if float(digits) != number:
        return False
    at = low.find(digits)
    tries = _LOOKALIKES
    while at >= 0 and tries:
        if (not at or low[at - 1] not in _NUMBER_CHARS) and _NUMBER_ENDS.match(low, at + len(digits)):
            return True
        at = low.find(digits, at + 1)
        tries -= 1
    return False


_MANY_NUMBERS = 64
_LOOKALIKES = 64
_NUMBER_CHARS = frozenset("0123456789.,")
_NUMBER_ENDS = re.compile(r"(?![0-9]|[.,][0-9]|[\s-]?(?:" + _SCALE_WORDS + r")\b)")
"""Where a number in digits the scan reads ends: no more digits, decimals, groups or scale follow."""


@lru_cache(maxsize=4096)
def passage(text: str) -> Passage:
    """A passage read once: cached by text (~12 MB for 4,096 passages of 200 words, plus their texts), as
    retrieved passages recur across questions and a replay over one corpus then reads each passage once."""
    return Passage(text)


# --- abstention -------------------------------------------------------------------------------------

_SOURCE = r"(?:provided |given |available |retrieved |supplied )?(?:context|contexts|document|documents|" \
          r"passage|passages|source|sources|text|texts|information|excerpts?|search results|results)"
_ABSTENTION = re.compile(
    "|".join((
        r"\bi (?:do not|don't|really don't) know\b",
        r"\bi'?m not sure\b", r"\bi am not sure\b",
        r"\bi(?: cannot| can't| can not| am unable to|'m unable to| am not able to|'m not able to| couldn't|"
        r" could not| was unable to) (?:answer|determine|find|tell|say|provide|confirm|verify|locate|give)\b",
        r"\bunable to (?:answer|determine|find)\b",
        r"\b(?:not|no) (?:enough|sufficient|adequate) (?:information|context|detail|details|data|evidence)\b",
        r"\binsufficient(?:_| )(?:context|information|data|evidence)\b",
        r"\b" + _SOURCE + r" (?:does not|doesn't|do not|don't|did not|didn't|cannot|can't|fails? to)"
        r" (?:say|mention|contain|include|provide|specify|state|indicate|cover|address|discuss|answer|"
        r"describe|explain|give|have|tell|offer|list)\b",
        r"\b(?:there is|there's|there are|i found|i have|i've found|i see) no (?:information|mention|"
        r"details?|data|indication|evidence|reference)\b",
        r"\bno (?:information|mention|details?|data) (?:about|on|of|regarding|in|is|was|were)\b",
        r"\b(?:is|are|was|were) not (?:mentioned|specified|stated|provided|available|given|covered|"
        r"addressed|discussed|included|found|described|listed) in the " + _SOURCE + r"\b",
        r"\b(?:cannot|can't|can not) be (?:determined|answered|found|inferred|confirmed)\b",
        r"\bnot (?:possible|able) to (?:answer|determine|say)\b",
        r"\bbeyond the scope of the " + _SOURCE + r"\b",
    ))
)


_NO = re.compile(r"no(?:t|\b)")


def _cued(low: str) -> bool:
    """Whether `low` has "not", "no", "n't", "unable", "insufficient", "beyond" or "fail": every cue above
    contains one. C-level substring tests find them far faster than the cue pattern (whose alternatives
    start with word boundaries) or one pattern of them all, so most sentences never reach the former."""
    return ("no" in low and _NO.search(low) is not None) or "n't" in low or "unable" in low \
        or "insufficient" in low or "beyond" in low or "fail" in low


def is_abstention(sentence: str) -> bool:
    """True when the sentence declines to answer ("I don't know", "the context does not mention it")."""
    low = normalise(sentence)
    return _cued(low) and _ABSTENTION.search(low) is not None


# --- sentences and claims ---------------------------------------------------------------------------

_LINE = re.compile(r"[^\n]+")
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]")
_MARKER = re.compile(r"[ \t]*(?:>|[-*+•‣◦▪●]|\(?\d{1,3}[.)]|\(?[a-z][)]|\[[ xX]\])[ \t]+")
_BOUNDARY = re.compile(r"[.!?…](?<![.!?…].)[.!?…]*[\"'”’)\]]*(?=\s|$)")
"""A run of sentence marks, tried from its first mark only: every mark of it reaches the same end, so
trying each again read the rest of the run each time, quadratic in a long run not followed by a space."""
_LEADING_SPACE = re.compile(r"\s*")
_ALWAYS_ABBREV = _wordset(
    "e.g i.e eg ie cf vs viz mr mrs ms dr prof st sr jr mt gen col capt lt sgt rev hon gov sen rep pres "
    "approx dept est"
)
"""Abbreviations after which a sentence practically never ends."""
_ABBREV_BEFORE_LOWER = _wordset(
    "etc al inc ltd co corp bros jan feb mar apr jun jul aug sep sept oct nov dec"
)
"""Abbreviations that do end sentences: they end one only when the next word is capitalised."""
_ABBREV_BEFORE_DIGIT = _wordset("no nos fig figs vol vols p pp ch sec art eq ref")
"""Abbreviations of a following number ("No. 5", "p. 12")."""
_INITIALISM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]|[^\W\d_]")
"""U.S, a.m, J (of "J. K. Rowling"): dotted initialisms and single initials never end a sentence."""


def _is_abbreviation(word: str, next_char: str) -> bool:
    """Whether the period after `word` belongs to an abbreviation rather than ending the sentence."""
    word = word.lstrip("(\"'\u201c\u2018[").lower()
    # Only a word with a dot or of one letter can be an initialism: most words skip the regex.
    if word in _ALWAYS_ABBREV or (("." in word or len(word) == 1) and _INITIALISM.fullmatch(word)):
        return True
    if word in _ABBREV_BEFORE_LOWER:
        return not next_char.isupper()
    if word in _ABBREV_BEFORE_DIGIT:
        return next_char.isdigit()
    return False


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of `text`, whitespace excluded: `text[start:end]` is the sentence.

    A newline always ends a sentence; a list item's marker ("- ", "2. ", "a) ") is not part of it, and a
    markdown heading only titles what follows, so it is no sentence. A period ends one only when
    whitespace follows (so 3.5 stays whole) and the word before it is not an abbreviation.
    """
    out: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        pos, end = line.span()
        if _HEADING.match(text, pos, end):
            continue
        marker = _MARKER.match(text, pos, end)
        if marker:
            pos = marker.end()
        word_from = pos  # where the word before a period can start: not before the last abbreviation
        for b in _BOUNDARY.finditer(text, pos, end):
            stop = b.end()
            next_at = _LEADING_SPACE.match(text, stop, end).end()  # type: ignore[union-attr]  # \s* matches
            if stop - b.start() == 1 and text[b.start()] == "." and next_at < end:
                before = text[word_from:b.start()]
                words = before.rsplit(None, 1)
                if words and _is_abbreviation(words[-1], text[next_at]):
                    # Not rereading the sentence so far at each abbreviation keeps "x. x. x. ..." linear.
                    word_from += len(before.rstrip()) - len(words[-1])
                    continue
            _append(out, text, pos, stop)
            pos = word_from = next_at
        _append(out, text, pos, end)
    return out


def _append(out: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if stripped:
        start += len(chunk) - len(chunk.lstrip())
        out.append((start, start + len(stripped)))


def _is_claim(sentence: str) -> bool:
    """A lead-in ending in a colon ("Here is what I found:") introduces claims but asserts nothing."""
    return not sentence.endswith(":") and has_content(sentence) and not is_abstention(sentence)


@lru_cache(maxsize=1024)
def split_claims(answer: str) -> tuple[Claim, ...]:
    """The checkable sentences of an answer; function-word-only and abstaining sentences are not claims.
    Cached: scoring one example splits its answer for the judge and again for the abstention metric."""
    claims = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        if _is_claim(sentence):
            claims.append(Claim(sentence, start, end))
    return tuple(claims)


def answer_terms(answer: str) -> frozenset[str]:
    """`profile(answer).terms`, gathered from the profiles its claims already have when that is the same set.

    It is when the claims are the whole answer but whitespace, and no citation mark runs from one claim
    into the next ("[see p. 5. Also]" is one mark over two sentences): a word never spans whitespace, and
    neither do the country names, "non-" or the lower-casing the terms are read with. Otherwise (list
    markers, headings, sentences that are no claims) the answer is read whole. Numbers are not gathered
    this way: "twenty. Five" is two numbers in two claims but 25 in one text.
    """
    claims = split_claims(answer)
    if not claims or not _claims_cover(answer, claims):
        return profile(answer).terms
    return frozenset().union(*[profile(claim.text).terms for claim in claims])


def _claims_cover(answer: str, claims: tuple[Claim, ...]) -> bool:
    """Whether the claims' terms are the answer's: see `answer_terms`."""
    end = 0
    for claim in claims:
        if claim.start > end and not answer[end:claim.start].isspace():
            return False
        end = claim.end
    if end < len(answer) and not answer[end:].isspace():
        return False
    if "[" not in answer and "]" not in answer:
        return True
    # A mark ends at the first bracket after its "[": in a claim whose brackets pair up in order, "[]...",
    # every mark lies inside the claim.
    return all(b == "[]" * (len(b) // 2) for b in (_NOT_BRACKET.sub("", claim.text) for claim in claims))


_NOT_BRACKET = re.compile(r"[^\[\]]+")


def answer_abstains(answer: str) -> bool:
    """The answer as a whole declines: it makes no claim, and it either says so or says nothing at all."""
    if split_claims(answer):
        return False
    parts = [answer[start:end] for start, end in sentence_spans(answer)]
    return not any(has_content(s) for s in parts) or any(is_abstention(s) for s in parts)


# --- Porter stemmer ---------------------------------------------------------------------------------

_VOWELS = frozenset("aeiou")


def _cons(word: str, i: int) -> bool:
    """A "y" is a consonant first or after a vowel, else a vowel: in a run of them every other one is.
    Counted, not recursed: a word of a thousand "y"s would exceed Python's recursion limit."""
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch != "y":
        return True
    first = i
    while first and word[first - 1] == "y":
        first -= 1
    return (first == 0 or word[first - 1] in _VOWELS) == ((i - first) % 2 == 0)


def _measure(stem_: str) -> int:
    """m in Porter's [C](VC)^m[V]: the number of vowel-consonant sequences. One pass, each "y" judged by the
    letter before it, as `_cons` would for each letter over again."""
    m, prev_vowel = 0, False
    for i, ch in enumerate(stem_):
        vowel = ch in _VOWELS or (ch == "y" and i > 0 and not prev_vowel)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(stem_: str) -> bool:
    return any(not _cons(stem_, i) for i in range(len(stem_)))


def _double_cons(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _cons(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop or snow)."""
    n = len(word)
    return (n >= 3 and _cons(word, n - 3) and not _cons(word, n - 2) and _cons(word, n - 1)
            and word[-1] not in "wxy")


_Step = tuple[dict[str, tuple[int, ...]], dict[str, str]]
"""A step's rules: last letter -> the lengths of the suffixes ending in it, longest first; and suffix ->
replacement."""


def _suffixes(*rules: tuple[str, str]) -> _Step:
    """Porter applies the longest suffix of a step a word ends with, so a step costs a dict lookup by the
    word's last letter and one per length of the suffixes ending in it, rather than an `endswith` per rule:
    stemming is what a word the term cache has not seen costs, and open-vocabulary traffic brings many."""
    lengths: dict[str, set[int]] = {}
    for suffix, _ in rules:
        lengths.setdefault(suffix[-1], set()).add(len(suffix))
    return {last: tuple(sorted(ns, reverse=True)) for last, ns in lengths.items()}, dict(rules)


_STEP2 = _suffixes(
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"),
    ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"),
    ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("logi", "log"))
_STEP3 = _suffixes(("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
                   ("ful", ""), ("ness", ""))
_STEP4 = _suffixes(*((suffix, "") for suffix in (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
    "ate", "iti", "ous", "ive", "ize")))


def _suffix(word: str, step: _Step) -> int:
    """Length of the longest suffix of the step that `word` ends with, 0 if none. (A word shorter than a
    suffix length is looked up whole: it matches only if it is a suffix itself, and then no stem is left
    for a rule to apply to.)"""
    by_last, table = step
    for n in by_last.get(word[-1:], ()):
        if word[-n:] in table:
            return n
    return 0


def _replace(word: str, step: _Step, min_m: int) -> str:
    n = _suffix(word, step)
    if n:
        base = word[:-n]
        if _measure(base) > min_m:
            return base + step[1][word[-n:]]
    return word


def _porter(w: str) -> str:
    # Step 1a: plurals. (Steps 1a and 1b test the common case first: most words have neither ending.)
    if w.endswith("s"):
        if w.endswith("sses") or w.endswith("ies"):
            w = w[:-2]
        elif not w.endswith("ss"):
            w = w[:-1]
    # Step 1b: -ed, -ing.
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    elif w.endswith(("ed", "ing")):
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = w[: -len(suffix)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif _double_cons(w) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    # Step 1c: terminal y after a vowel-bearing stem.
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    # Step 4: strip a final suffix from long stems.
    n = _suffix(w, _STEP4)
    if n:
        base = w[:-n]
        if _measure(base) > 1 and (w[-n:] != "ion" or base.endswith(("s", "t"))):
            w = base
    # Step 5: final -e and -ll.
    if w.endswith("e"):
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            w = base
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w
