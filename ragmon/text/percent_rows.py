"""Which row or tier a page gives a percentage to, for a percentage a claim works a figure out from: "Gold
members get 20% off; Silver members get 10%." gives the 20% to Gold, so a Silver member's "20% of £80 = £16"
is worked from another row's (a blind review's five made-up answers that passed the rule of percentages,
`ragmon.text.worked_sums`, were of this kind)."""

from __future__ import annotations

from collections.abc import Mapping

from ragmon.text.deferred import deferred
from ragmon.text.terms import read_terms
from ragmon.text.units import Operand, clause_start

_PAGE_PERCENT = deferred(r"(?<![\w.,])([0-9]+(?:\.[0-9]+)?)[ \u00a0]?%")
_CLAUSE_END = deferred(r"[.!?;](?:\s|$)|\n|,? (?:and|while|whereas|but) ")
"""Where the row or tier a percentage is given to starts: a sentence, a line (a table's row, a list's
item), or a clause joined by "and", "while" or "but" ("seniors get 15% off, and low-income households get
30%")."""


def rows(low: str, worked: Mapping[float, Operand]) -> frozenset[tuple[float, str]]:
    """For each of a claim's worked percentages that asks for a row (`Operand.asked`), "r this" where the
    page (prepared, `low`) gives it to a row the question names no less than any other, "r another" where it
    gives it to one the question names less than another percentage's (`_another_row`), as units of their
    own for `ragmon.text.units.clashes`. Nothing for a page of more than `_MOST_PERCENTAGES`: each place of
    the claim's percentage is read against every other's."""
    asked = {value: operand.asked for value, operand in worked.items() if operand.asked}
    if not asked:
        return frozenset()
    places = [(float(place.group(1)), place.start()) for place in _PAGE_PERCENT.finditer(low)]
    if len(places) > _MOST_PERCENTAGES:
        return frozenset()
    named = [(value, _named_before(low, at)) for value, at in places]
    return frozenset((value, "r another" if _another_row(mine, value, asked[value], named) else "r this")
                     for value, mine in named if value in asked)


_MOST_PERCENTAGES = 200
"""The most percentages a page may give for their rows to be read: 2,000 places of the claim's among 4,000
had taken 30 s, read against each other."""


def _another_row(mine: frozenset[str], value: float, asked: frozenset[str],
                 named: list[tuple[float, frozenset[str]]]) -> bool:
    """Whether another percentage of the page is given to a row that `asked` names more of than the row
    this one (named `mine`) is given to ("silver" of "Silver members get 10%" for a Silver member, against
    the 20%'s "gold")."""
    for other, theirs in named:
        if other != value:
            naming = theirs - mine
            if len(naming) <= _MOST_NAMING and len(naming & asked) > len((mine - theirs) & asked):
                return True
    return False


_MOST_NAMING = 2
"""The most terms another percentage's clause may hold that this one's lacks for them to name its row or
tier ("silver" of "Silver members get 10%" against "Gold members get 20% off books"): more are words this
clause leaves to it ("Standard customers who add car insurance get 7% off; Premier customers get 12%")."""


def _named_before(low: str, at: int) -> frozenset[str]:
    """The terms of the clause before a page's percentage at `at`: the row or tier it is given to, after a
    colon where words follow it ("Harwood Books loyalty: Gold members get 20%", not "Gold members: 20%")."""
    start = clause_start(low, at, _CLAUSE_END)
    colon = low.rfind(": ", start, at)
    if colon >= 0 and (after := read_terms(low[colon + 2:at])[0]):
        return after
    return read_terms(low[start:at])[0]
