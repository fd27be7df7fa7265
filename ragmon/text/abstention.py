"""Abstention cues: a sentence that declines to answer is no claim, and an answer of them abstains."""

from __future__ import annotations

import re

from ragmon.text.terms import normalise

_SOURCE_NOUN = r"(?:context|contexts|document|documents|passage|passages|source|sources|text|texts|" \
               r"information|excerpts?|search results|results)"
_SOURCE = r"(?:provided |given |available |retrieved |supplied )?" + _SOURCE_NOUN
"""Where a cue starts with the source, its noun alone will do: "the provided context does not say" has a
match at "context" as well, and the optional word, tried at every word boundary, was a quarter of the
search's cost. After "in the" the adjective stays, as it sits between the two."""
_ABSTENTION = re.compile(
    "|".join((
        r"\bi (?:do not|don't|really don't) know\b",
        r"\bi'?m not sure\b", r"\bi am not sure\b",
        r"\bi(?: cannot| can't| can not| am unable to|'m unable to| am not able to|'m not able to| couldn't|"
        r" could not| was unable to) (?:answer|determine|find|tell|say|provide|confirm|verify|locate|give)\b",
        r"\bunable to (?:answer|determine|find)\b",
        r"\b(?:not|no) (?:enough|sufficient|adequate) (?:information|context|detail|details|data|evidence)\b",
        r"\binsufficient(?:_| )(?:context|information|data|evidence)\b",
        r"\b" + _SOURCE_NOUN + r" (?:does not|doesn't|do not|don't|did not|didn't|cannot|can't|fails? to)"
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


_PLACEHOLDERS = frozenset({"empty response"})
"""Whole answers a framework writes when it has none: LlamaIndex's response synthesizers answer "Empty
Response" when no node survives retrieval, which read as a claim would count as a made-up one."""
_LONGEST_PLACEHOLDER = max(map(len, _PLACEHOLDERS)) + 6
"""A placeholder with a few spaces and dots around it: longer sentences skip the strip (most reach it)."""


def is_abstention(sentence: str) -> bool:
    """True when the sentence declines to answer ("I don't know", "the context does not mention it"), or
    is a framework's placeholder for no answer."""
    low = normalise(sentence)
    return (_cued(low) and _ABSTENTION.search(low) is not None) or (
        len(low) < _LONGEST_PLACEHOLDER and low.strip(" .") in _PLACEHOLDERS)
