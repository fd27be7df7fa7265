"""How often: a count with the period it is per, where what is counted is no unit ("2 tablets a day", "3
times a week", "twice a month", "two classes per week", "2 tablets daily").

The number rule finds the claim's 2 in "take 2 tablets a day", and one word of five missing ("week") leaves
the terms above the threshold, so "take 2 tablets a week" passed, as did "twice a week" against "twice a
day": a dose or a schedule at another frequency, what a leaflet or a timetable is read for. A unit's rate
("$5 per month", "10 mg/day", "6 days a week") is `ragmon.text.units`'; this reads counts of anything
else, and only after a count: "within a week" and "a day pass" state no frequency.

A count is told apart by what it counts, the term of the word before the period ("2 tablets a day" is not
"2 blood tests a year", nor "Phase 2 lasts a week" "2 visits a month"); "times" and its European twins
count nothing of their own, so "2 times a day" is "twice a day". As with a unit's period, a count the
context gives no period says nothing against the claim's, and one it gives several periods is stated with
each of them.
"""

from __future__ import annotations

import re

from ragmon.text.numbers import NUMBER_WORDS, word_number
from ragmon.text.terms import TERMS
from ragmon.text.units import NOT_ORDINAL, ONE_WORD_PERIODS, PER, PERIOD_WORDS, UNIT_NAMES, UNIT_WORDS

Count = tuple[float, str, str]
"""A count, the term of what it counts ("" for occasions: "twice", "3 times"), and its period ("/d")."""

_COUNT = (r"(?<![\w.,$€£¥/#-])([0-9]+|" + "|".join(sorted({*NUMBER_WORDS, "once"}, key=len, reverse=True))
          + r")")
"""A count in digits or in a number word ("once" too, which `NUMBER_WORDS` leaves out for "once you
return it"): not a decimal, an amount or a part of a code."""
_PERIOD = "|".join(sorted(PERIOD_WORDS, key=len, reverse=True))
_HOW_OFTEN = re.compile(
    _COUNT + r"((?:\s[^\W\d_]+){0,2}?)\s(?:" + PER + r"\s(" + _PERIOD + r")|(" + "|".join(ONE_WORD_PERIODS)
    + r"))(?![\w])(?!\s?[0-9])" + NOT_ORDINAL
    + r"(?!\s(?:ago|earlier|later|before|after)\b)(?:\s([^\W\d_]+))?")
"""A count, up to two words of what it counts, and the period it is per: "2 tablets a day", "3 times per
week", "twice a month", "once a month or so", "zwei Mal pro Woche", "twice daily". Not a period a year
follows ("im Jahr 2024"), nor one that makes it a time ("2 tablets a week ago", "2 doses a week before").
The word after it, if any, tells a one-word period from an adjective ("2 tablets daily with food", not "12
monthly payments")."""
_OCCASIONS = frozenset(map(TERMS.__getitem__, ("times", "time", "mal", "fois", "veces", "volte", "vezes")))
"""What "3 times" counts: occasions, as "thrice" does."""


def counts(low: str) -> frozenset[Count]:
    """Each count of a `prepare`d text with what it counts and the period it is per: "2 tablets a day" is
    (2, "tablet", "/d")."""
    found = set()
    for match in _HOW_OFTEN.finditer(low):
        count, between, per, one_word, after = match.groups()
        counted = between.split()
        if any(word in UNIT_NAMES for word in counted):
            continue  # a unit's rate ("6 days a week", "30 minutes a day"): `ragmon.text.units` reads it
        if one_word is not None and after is not None and TERMS[after]:
            continue  # an adjective before what is counted: "12 monthly payments"
        value = float(count) if count.isdigit() else 1.0 if count == "once" else word_number(count)
        if value is None or (count == "once" and counted):  # "once the order ships a week ..."
            continue
        term = TERMS[counted[-1]] if counted else ""
        period = PERIOD_WORDS[per] if per is not None else ONE_WORD_PERIODS[one_word]
        found.add((value, "" if term in _OCCASIONS else term, period))
    return frozenset(found)


def clashes(claimed: frozenset[Count], stated: frozenset[Count]) -> list[str]:
    """The claim's counts with a period the context never gives that count of that thing, though it gives
    it another: "2 per week" where the context gives 2 tablets only per day, as a reason shows it."""
    periods: dict[tuple[float, str], set[str]] = {}
    for value, counted, period in stated:
        periods.setdefault((value, counted), set()).add(period)
    return sorted(f"{value:g} per {UNIT_WORDS[period[1:]]}" for value, counted, period in claimed
                  if period not in periods.get((value, counted), (period,)))
