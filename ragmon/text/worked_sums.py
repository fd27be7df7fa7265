"""Sums an answer works out in the open ("€590 + €180 = €770", "$3.50 + $5.50 = $9.00 in fees"): a total
that follows from the figures before it is checked through them, not looked for in a page, which states the
prices but never the total an answer computes for its reader."""

from __future__ import annotations

import re

from ragmon.text.deferred import deferred
from ragmon.text.numbers import CLOCK, clock_forms
from ragmon.text.terms import profile

_FIGURE = r"[$€£¥]?[ \u00a0]?[0-9][0-9.,]*+(?:[ \u00a0]?(?:%|[$€£¥]|(?!x\b)[^\W\d_]{1,5}\b))?"
"""A figure with its currency or a short unit ("€590", "420 €", "200 kWh", "33,8 Ct"), or a percentage,
read so as to refuse the sum it is in."""
_OPERATOR = r"[×x*/÷+\-−–]"
_GAP = r"[ \u00a0]{0,3}+"
_SUM = deferred(
    r"(?<![\w.,])" + _FIGURE + r"(?:" + _GAP + _OPERATOR + _GAP + _FIGURE + r"){1,8}" + _GAP + r"=" + _GAP
    + r"[*_]{0,2}+(?P<result>" + _FIGURE + ")")
"""Figures joined by up to eight operators, an equals sign, and the figure they come to (in bold or not).
Spaced as sums are written, a few spaces at most: runs of spaces or operators read every way had taken
seconds (tests/text/test_backtracking.py)."""
_TERM = deferred(_GAP + r"(?P<sign>[+\-−–])?" + _GAP + r"(?P<figure>" + _FIGURE + ")")


def worked_results(text: str) -> frozenset[float]:
    """The totals of `text` that follow from the figures added or taken away before their equals sign, as
    the claim's numbers read them (`profile`). A sum that does not come to its total derives nothing: the
    total is then looked for in a page like any figure, and a wrong one stays unsupported. Nor does one
    that a made-up figure could pass through with true arithmetic (two adversarial reviews'): a product ("2
    × €49 = €98 per month" of a page's €49 "for up to 2 users": a count is any page's small number), a
    division, a percentage ("€590 − 15% = €501.50" of a page's "15 rooms"), a figure added to itself ("$5 +
    $5 = $10 per order"), a total that is one of its figures ("€250 + €0 = €250"), or one the claim states
    again outside the sum ("€590 + €180 = €770 per week, and the deposit is €770")."""
    derived = _arrivals(text) if ":" in text else set()
    if "=" not in text:
        return frozenset(derived)
    outside: frozenset[float] | None = None  # the numbers the claim states outside its sums, read once
    for found in _SUM.finditer(text):
        terms = _terms(text[found.start():found.start("result")].rstrip(" =*_"))
        values = [value for value, _ in terms]
        total = _value(found["result"])
        if (terms and total is not None and total not in values and len(set(values)) == len(values)
                and abs(sum(value * sign for value, sign in terms) - total) <= _tolerance(found["result"])):
            outside = profile(_SUM.sub(" ", text)).numbers if outside is None else outside
            if total not in outside:
                derived.add(total)
    return frozenset(derived)


def _arrivals(text: str) -> set[float]:
    """The times of a day `text` works out from another it states and a duration it gives in minutes or
    hours: "| 06:42 | Stopping (48 min) | 07:30 |" arrives at 07:30, a time a timetable states the departure
    and the journey's length for but never writes (read whole, as `ragmon.text.numbers.CLOCK` reads a time,
    07:30 had been flagged; read as 7 and 30, it had passed on the 7 and the 30 of other times). Only times
    of a day the duration leads to exactly, from one the claim states too, checked in a page like any. Not
    in a claim of more than `_FEW_TIMES` times: each pair is tried."""
    read = profile(text)
    times = [number for number in read.numbers if clock_forms(number)]
    if not 2 <= len(times) <= _FEW_TIMES:
        return set()
    minutes = {value * _MINUTES[unit] for value, unit in read.units if unit in _MINUTES}
    return {later for later in times for earlier in times
            if _minutes_of(later) - _minutes_of(earlier) in minutes}


_MINUTES = {"min": 1, "h": 60}
_FEW_TIMES = 16
"""The most times of a day a claim is read for those it works out: a timetable's row has a few, and a
claim of a thousand had its million pairs tried."""


def _minutes_of(time: float) -> float:
    """A time of a day read as one number (`CLOCK`), in minutes since midnight."""
    hour, minutes = divmod(time - CLOCK, 100)
    return hour * 60 + minutes


def _terms(expression: str) -> list[tuple[float, int]]:
    """Each figure of a sum with its sign (1 added, -1 taken away), or none where the sum holds another
    operator or a percentage."""
    terms: list[tuple[float, int]] = []
    position = 0
    while position < len(expression):
        term = _TERM.match(expression, position)
        if term is None or (term["sign"] is None) != (position == 0):
            return [] if expression[position:].strip() else terms
        value = _value(term["figure"])
        if value is None or term["figure"].rstrip().endswith("%"):
            return []
        terms.append((value, 1 if term["sign"] in (None, "+") else -1))
        position = term.end()
    return terms


def _value(figure: str) -> float | None:
    """A figure's number as the claim reads it, or None where it reads none or several."""
    numbers = profile(figure).numbers
    return next(iter(numbers)) if len(numbers) == 1 else None


def _tolerance(figure: str) -> float:
    """Half the last written decimal place: "$9.00" stands for 8.995 to 9.005, "€4,029" for a whole euro
    either way of it, as a total is rounded to what it is written in."""
    digits = re.sub(r"[^0-9.,]", "", figure)
    decimals = re.search(r"[.,]([0-9]{1,2})$", digits)
    return 0.5 * 10 ** -(len(decimals.group(1)) if decimals else 0) + 1e-9
