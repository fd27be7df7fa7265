"""A page's sentences as its bounds are read from ("Orders over $50 ship free."), and whether one is
negated: what a claim's turned bound (`ragmon.judges.lexical`) and what an answer makes of the user's own
figure (`ragmon.text.own_figures`) are both checked against."""

from __future__ import annotations

import functools
import re

from ragmon.text.terms import prepare

NEGATED = re.compile(r"n't\b|\bnever\b|\bcannot\b(?!\s+exceed)"
                     r"|\bnot\b(?!\s+(?:more|less|fewer)\s+than|\s+exceed)")
"""A negation: a claim with one states the complement of a sentence without ("you can't apply if you're
under 18", from "you must be at least 18"), not a turned copy of it, so it is compared with negated
sentences only ("Orders under $50 don't ship free" against "Orders over $50 don't ship free"). Not the
"not" of a bound ("no more than 6", "must not exceed 7 kg", "cannot exceed 7 kg")."""


@functools.lru_cache(maxsize=16)
def bound_sentences(text: str) -> tuple[str, ...]:
    """A context's sentences, `prepare`d: read again for each bounded claim of an example, a 345 KB page
    had cost 50 times the scoring without the check (40 such claims: 0.7 s)."""
    return tuple(_SENTENCE_END.split(prepare(text)))


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
"""Not at a colon: "Free shipping: orders over $50." is one statement, whose halves held no claim's terms
and number together."""
