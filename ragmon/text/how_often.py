"""How often: a count with the period it is per, where what is counted is no unit ("2 tablets a day", "3
times a week", "twice a month", "one class per week").

The number rule finds the claim's 2 in "take 2 tablets a day", and one word of five missing ("week") leaves
the terms above the threshold, so "take 2 tablets a week" passed, as did "twice a week" against "twice a
day": a dose or a schedule at another frequency, what a leaflet or a timetable is read for. A unit's rate
("$5 per month", "10 mg/day", "6 days a week") is `ragmon.text.units`'; this reads counts of anything
else, and only after a count: "within a week" and "a day pass" state no frequency.

As with a unit's period, a count the context gives no period says nothing against the claim's, and one it
gives several periods ("2 tablets a day", "2 doses a week") is stated with each of them.
"""

from __future__ import annotations

import re

from ragmon.text.numbers import NUMBER_WORDS, word_number
from ragmon.text.units import PER, PERIOD_WORDS, UNIT_NAMES, UNIT_WORDS

_COUNT = (r"(?<![\w.,$€£¥/#-])([0-9]+|" + "|".join(sorted({*NUMBER_WORDS, "once"}, key=len, reverse=True))
          + r")")
"""A count in digits or in a number word ("once" too, which `NUMBER_WORDS` leaves out for "once you
return it"): not a decimal, an amount or a part of a code."""
_PERIOD = "|".join(sorted(PERIOD_WORDS, key=len, reverse=True))
_HOW_OFTEN = re.compile(
    _COUNT + r"((?:\s[^\W\d_]+){0,2}?)\s" + PER + r"\s(" + _PERIOD + r")(?![\w])(?!\s?[0-9])"
    r"(?!\s(?:ago|earlier|later|before|after)\b)")
"""A count, up to two words of what it counts, and the period it is per: "2 tablets a day", "3 times per
week", "twice a month", "once a month or so", "zwei Mal pro Woche". Not a period a year follows ("im Jahr
2024"), nor one that makes it a time ("2 tablets a week ago", "2 doses a week before")."""


def counts(low: str) -> frozenset[tuple[float, str]]:
    """Each count of a `prepare`d text with the period it is per: "2 tablets a day" is (2, "/d")."""
    found = set()
    for match in _HOW_OFTEN.finditer(low):
        count, between, period = match.group(1), match.group(2).split(), match.group(3)
        if any(word in UNIT_NAMES for word in between):
            continue  # a unit's rate ("6 days a week", "30 minutes a day"): `ragmon.text.units` reads it
        value = float(count) if count.isdigit() else 1.0 if count == "once" else word_number(count)
        if value is not None and (count != "once" or not between):  # "once the order ships a week ..."
            found.add((value, PERIOD_WORDS[period]))
    return frozenset(found)


def clashes(claimed: frozenset[tuple[float, str]], stated: frozenset[tuple[float, str]]) -> list[str]:
    """The claim's counts with a period the context never gives that count, though it gives it another:
    "2 per week" where the context gives 2 only per day, as a reason shows it."""
    periods: dict[float, set[str]] = {}
    for value, period in stated:
        periods.setdefault(value, set()).add(period)
    return sorted(f"{value:g} per {UNIT_WORDS[period[1:]]}" for value, period in claimed
                  if period not in periods.get(value, (period,)))
