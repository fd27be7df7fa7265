"""The premises `ragmon.text.abstention` spares sentences the refusal patterns on: every text a pattern
matches holds one of its words, read as a term of the sentence."""

from __future__ import annotations

import random
import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest

from ragmon.text import abstention
from ragmon.text.terms import profile, separated

FREE = "qxz"
"""Letters a pattern's open parts ("[^.,;:!?]{1,60}?", "(?:[a-z]+ ){0,2}?") are written with: no word of
them is a cue word, so a sample holds one only if the pattern put it there."""
_CLASS = {sre.CATEGORY_DIGIT: "7", sre.CATEGORY_NOT_DIGIT: "q", sre.CATEGORY_SPACE: " ",
          sre.CATEGORY_NOT_SPACE: "q", sre.CATEGORY_WORD: "q", sre.CATEGORY_NOT_WORD: " "}


def _write(parsed: sre_parse.SubPattern, rng: random.Random) -> str:
    return "".join(_write_one(op, value, rng) for op, value in parsed)


def _write_one(op: object, value: object, rng: random.Random) -> str:
    """A text one item of a parsed pattern may match; assertions and boundaries write nothing (a sample
    breaking one is not a match, and is dropped)."""
    if op is sre.LITERAL:
        return chr(value)  # type: ignore[arg-type]
    if op is sre.NOT_LITERAL or op is sre.ANY:
        return rng.choice(FREE + " ")
    if op is sre.IN:
        return _member(value, rng)  # type: ignore[arg-type]
    if op is sre.BRANCH:
        return _write(rng.choice(value[1]), rng)  # type: ignore[index]
    if op is sre.SUBPATTERN:
        return _write(value[-1], rng)  # type: ignore[index]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, item = value  # type: ignore[misc]
        return "".join(_write(item, rng) for _ in range(rng.randint(low, min(high, low + 2))))
    return ""


def _member(items: list[tuple[object, object]], rng: random.Random) -> str:
    if items[0][0] is sre.NEGATE:
        return rng.choice(FREE + " ")
    op, value = rng.choice(items)
    if op is sre.LITERAL:
        return chr(value)  # type: ignore[arg-type]
    if op is sre.RANGE:
        return chr(rng.randint(*value))  # type: ignore[call-overload]
    return _CLASS[value]


def samples(pattern: str, count: int, seed: int) -> list[str]:
    """`count` different texts (or as many as 50 tries each find) that `pattern` matches from their start,
    drawn through every branch of it at random."""
    rng = random.Random(seed)
    parsed = sre_parse.parse(pattern)
    compiled = re.compile(pattern)
    found: set[str] = set()
    for _ in range(count * 50):
        text = _write(parsed, rng)
        if compiled.match(text) is not None:
            found.add(text)
            if len(found) == count:
                break
    return sorted(found)


REFUSALS = (*abstention._CUES, *abstention._BARE_CUES, abstention._NOT_AVAILABLE.pattern,
            abstention._THEY_SAY_NOTHING.pattern, abstention._NOT_THERE.pattern)


@pytest.mark.parametrize("pattern", REFUSALS)
def test_every_refusal_holds_a_cue_word(pattern: str) -> None:
    """A cue added without one of `_CUE_WORDS` would be searched for only in sentences holding one for
    another reason: refusals of its own would be read as claims."""
    written = samples(pattern, 300, seed=len(pattern))
    assert written, pattern
    missing = [text for text in written if profile(text).terms.isdisjoint(abstention._CUE_TERMS)]
    assert missing == [], f"no cue word in {missing[:3]} ({pattern[:60]}...)"


def test_every_other_ascii_character_separates_words() -> None:
    """The cue words are found among the terms of ASCII text only because every character the patterns'
    word boundaries stop at, but the apostrophe, separates the words terms are read from."""
    stops = [c for c in map(chr, range(128)) if re.fullmatch(r"\W", c) and c != "'"]
    assert [c for c in stops if separated(f"a{c}b").split() != ["a", "b"]] == []


@pytest.mark.parametrize(("sentence", "declines"), [
    ("The context does not include prices.", True),
    ("THE CONTEXT DOES NOT INCLUDE PRICES.", True),
    ("The pre-context does not include prices.", True),
    ("The non-context does not include prices.", True),
    ("Abc'context does not include prices.", True),
    ("[The context does not include prices.]", True),
    ("<a context does not include prices>", True),
    ("Nicht context does not include prices.", True),
    ("The store does not include prices.", False),
    ("Returns are not accepted after 30 days.", False),
])
def test_refusals_whose_words_the_terms_read_otherwise(sentence: str, declines: bool) -> None:
    """Where the terms lose or change the only cue word (a citation's brackets or a tag drop it, an
    apostrophe or "non-" joins it to the letters before it, a European negation marks it), the sentence is
    searched all the same."""
    assert abstention.is_abstention(sentence) is declines
