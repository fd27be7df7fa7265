"""An answer's citations of its example's retrieved documents, read out of its claims before they are judged.

A pipeline told to "cite the id in parentheses" writes "... for a full refund (KB-1234).": read as the
claim's content, the id's digits were numbers the document had to state and a file name
("returns_policy.md") a literal it had to hold, and nearly every grounded answer read as made up.
`split_claims` knows no ids (it splits an answer alone, and is cached so); this runs after it, with the
example's ids, where every judge's claims come from (`ragmon.evaluation.example_claims`).

The rule is narrow on purpose, as whatever it reads out no judge sees: a citation is
- a group in parentheses or square brackets (full-width too) holding nothing but retrieved ids, split by
  ",", ";", "&" or "and", a lead-in before them or not ("(KB-1234)", "[KB-1, KB-2]", "(see faq-12)",
  "(Sources: KB-1 and KB-2)"), and a bracket around the group with it ("[[KB-1]]");
- a markdown link whose text is such an id ("[KB-1234](url)", "[[KB-1234]](url)");
either opening the claim or ending a clause of it (a full stop, comma, colon, the next citation or the
claim's end after it): within a clause it is what the sentence says ("The [Pixel-8](url) has a 6.1-inch
screen.", "Revenue (FY2023) was $5 million.").
An id is matched whole, whatever its case, dashes or spacing, and only when it is one no sentence writes
as a word or a quantity: 4 characters or more, a letter and a digit or punctuation ("KB-1", "doc-3",
"policy.pdf"; not "v2", "2024", "returns", "Returns Policy", nor a number linked as "[1](url)").
Anywhere else an id is the claim's content: "migrated from v2.", "upgrades from iPhone-15.", "See KB-1."
stay as written, and an id no context has ("KB-9999") is never a citation of this example's.
A sentence of bracketed citations alone (". (doc-3)" after a full stop) is no claim."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from ragmon.model import Claim

_AS_HYPHEN = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
_OPENERS = "([（［"
"""A citation can open only with one of these: an answer holding none is spared every pattern."""
_GROUPS = re.compile(
    r"\[\[?(?P<link>[^\[\]()\n]{1,300})\]?\]\([^()\s]{1,2000}\)"
    r"|(?P<outer>\[[ \t]*)?[(\[（［](?P<group>[^()\[\]（）［］\n]{1,1000})[)\]）］](?(outer)[ \t]*\])")
"""A markdown link's text, or what one pair of brackets holds (and a bracket around them), citations or
not: `_cites` decides. Bounded runs that exclude the brackets, so no answer makes them backtrack far."""
_LEAD_IN = re.compile(r"(?:see|sources?|cf\.?|ref\.?|per|from|according[ \t]+to)(?![\w-])[ \t]*:?[ \t]*",
                      re.IGNORECASE)
_SEPARATOR = re.compile(r"[ \t]*(?:[,;&]|(?<![\w-])and(?![\w-]))[ \t]*", re.IGNORECASE)


def _loose(text: str) -> str:
    """`text` as ids are compared: case folded, composed, every dash "-", any spacing one space."""
    low = " ".join(text.casefold().split())
    return low if low.isascii() else unicodedata.normalize("NFC", low).translate(_AS_HYPHEN)


@functools.lru_cache(maxsize=4096)
def _citable(doc_id: str) -> str:
    """`doc_id` loosely when no sentence writes it as a word or a quantity, else "" (never cited)."""
    loose = _loose(doc_id)
    marked = any(char.isalpha() for char in loose) and any(
        not char.isalpha() and not char.isspace() for char in loose)
    return loose if marked and len(loose) >= 4 else ""


def _cites(match: re.Match[str], ids: frozenset[str]) -> bool:
    """Whether a link's text or a bracket group's content is nothing but citations of `ids`."""
    if (text := match["link"]) is not None:
        return _loose(text) in ids
    content = match["group"].strip()
    if lead := _LEAD_IN.match(content):
        content = content[lead.end():]
    pieces = _SEPARATOR.split(content)
    return all(_loose(piece) in ids for piece in pieces)


_AFTER = frozenset(".,;:!?。，；：！？([（［")
"""What may follow a citation, past spaces: a clause's end, or the next citation."""


def _placed(text: str, found: re.Match[str]) -> bool:
    """Whether `found` stands where a citation does: opening the claim, or ending a clause of it. Within a
    clause, a bracket or link is what the sentence says ("The [Pixel-8](url) has ...", "Revenue (FY2023)
    was ..."): read out, the rest was judged against another product's or year's document and passed."""
    after = text[found.end():].lstrip(" \t")
    return not after or after[0] in _AFTER or not text[:found.start()].strip(_OPENING)


def read_out(answer: str, claims: tuple[Claim, ...], ids: Iterable[str]) -> tuple[Claim, ...]:
    """`claims` of `answer` with their citations of `ids` read out (the module's rule), each keeping the
    place of its sentence in the answer: `start` and `end` still mark what it was split from, less a
    citation that opened or closed it, while its text, what judges and reports read, is the sentence
    without the citations. The claims as they are when the answer opens no bracket (most answers)."""
    if not any(opener in answer for opener in _OPENERS):
        return claims
    citable = frozenset(loose for doc_id in ids if (loose := _citable(doc_id)))
    if not citable:
        return claims
    return tuple(read for claim in claims if (read := _without(claim, citable)) is not None)


def _without(claim: Claim, ids: frozenset[str]) -> Claim | None:
    """`claim` without its citations of `ids` and the space before each, or None when nothing that says
    anything is left. Its span is trimmed of a citation that opened it or closed it."""
    kept, at = [], 0
    for found in _GROUPS.finditer(claim.text):
        if _placed(claim.text, found) and _cites(found, ids):
            kept.append((at, at + len(claim.text[at:found.start()].rstrip(" \t"))))
            at = found.end()
    if not kept:
        return claim
    kept.append((at, len(claim.text)))
    text = claim.text
    body = "".join(text[start:end] for start, end in kept).lstrip(_OPENING).rstrip()
    if not any(char.isalnum() for char in body):
        return None
    first = next(end - len(rest) for start, end in kept if (rest := text[start:end].lstrip(_OPENING)))
    last = next(start + len(part) for start, end in reversed(kept) if (part := text[start:end].rstrip()))
    return Claim(body, claim.start + first, claim.start + last)


_OPENING = " \t\n,;:"
"""What is left before a claim's first word once a citation opening it is read out ("(KB-1), returns
...")."""
