"""The Porter (1980) stemmer, so "return", "returns" and "returned" are one term.

Written here rather than taken from an NLP library, which the core install (the offline gate) would then
need. It runs on every word the term cache (`ragmon.text.terms`) has not seen, and open-vocabulary traffic
brings many, so each step looks its suffixes up by a word's last letter rather than trying each in turn.
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


def porter(w: str) -> str:
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
