"""The Porter (1980) stemmer, so "return", "returns" and "returned" are one term.

Written here rather than taken from an NLP library, which the core install (the offline gate) would then
need. It runs on every word the term cache (`ragmon.text.terms`) has not seen, and open-vocabulary traffic
brings many (16 new words an example on `benchmarks/scoring.py`'s "all new" workload, each of which had
cost 33,000 instructions to read, 24,000 of them stemming), so each step looks its suffixes up by a word's
last letter rather than trying each in turn, and one that has no suffix ending in that letter is passed over
on the letter alone. Written so, stemming a word costs 16,000 instructions, and scoring an example took 3%
fewer (callgrind).
"""

from __future__ import annotations

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
    """m in Porter's [C](VC)^m[V]: the number of vowel-consonant sequences. Without a "y", the "vc" pairs
    of the stem written as "v"s and "c"s, counted in C (a loop over the letters cost a miss 4,000
    instructions); with one, one pass, each "y" judged by the letter before it, as `_cons` would for each
    letter over again."""
    if "y" not in stem_ and stem_.isascii():
        return stem_.translate(_VOWEL_OR_CONSONANT).count("vc")
    m, prev_vowel = 0, False
    for i, ch in enumerate(stem_):
        vowel = ch in _VOWELS or (ch == "y" and i > 0 and not prev_vowel)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


_VOWEL_OR_CONSONANT = {code: "v" if chr(code) in _VOWELS else "c" for code in range(128)}


def _has_vowel(stem_: str) -> bool:
    """Whether `_cons` finds a vowel in the stem, without asking it of each letter: a stem with none of
    "aeiou" has only consonants but its "y"s, and a "y" after a consonant is a vowel, as is the second of a
    run opening the stem, so it has one exactly when a "y" follows its first letter."""
    return not _VOWELS.isdisjoint(stem_) or "y" in stem_[1:]


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


def _suffix(word: str, lengths: tuple[int, ...], table: dict[str, str]) -> int:
    """Length of the longest suffix of `table` that `word` ends with, among `lengths` (those of the step's
    suffixes ending in its last letter, longest first), 0 if none. (A word shorter than a suffix length is
    looked up whole: it matches only if it is a suffix itself, and then no stem is left for a rule to apply
    to.)"""
    for n in lengths:
        if word[-n:] in table:
            return n
    return 0


def _replace(word: str, step: _Step, min_m: int) -> str:
    lengths = step[0].get(word[-1])
    if lengths is None:
        return word
    table = step[1]
    n = _suffix(word, lengths, table)
    if n:
        base = word[:-n]
        if _measure(base) > min_m:
            return base + table[word[-n:]]
    return word


def porter(w: str) -> str:
    """The stem of `w`, a lower-case word of three letters or more (its callers leave shorter ones as they
    are; no step leaves such a word empty). Each step tests the last letter before any suffix: most words
    have none of a step's."""
    last = w[-1]
    # Step 1a: plurals.
    if last == "s":
        if w.endswith("sses") or w.endswith("ies"):
            w = w[:-2]
        elif w[-2:] != "ss":
            w = w[:-1]
        last = w[-1]
    # Step 1b: -ed, -ing.
    if last == "d" or last == "g":
        if w.endswith("eed"):
            if _measure(w[:-3]) > 0:
                w = w[:-1]
        else:
            suffix = "ed" if last == "d" else "ing"
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = w[: -len(suffix)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif _double_cons(w) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
        last = w[-1]
    # Step 1c: terminal y after a vowel-bearing stem.
    if last == "y" and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    # Step 4: strip a final suffix from long stems.
    lengths = _STEP4[0].get(w[-1])
    if lengths is not None:
        n = _suffix(w, lengths, _STEP4[1])
        if n:
            base = w[:-n]
            if _measure(base) > 1 and (w[-n:] != "ion" or base.endswith(("s", "t"))):
                w = base
    # Step 5: final -e and -ll.
    if w[-1] == "e":
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            w = base
    if w[-1] == "l" and w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w
