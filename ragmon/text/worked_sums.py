"""Sums and percentages an answer works out in the open ("€590 + €180 = €770", "$3.50 + $5.50 = $9.00 in
fees", "9% of £6,000 = £540"): a result that follows from the figures before it is checked through them, not
looked for in a page, which states the prices and rates but never what an answer computes for its reader."""

from __future__ import annotations

import re
from typing import NamedTuple

from ragmon.text.deferred import deferred
from ragmon.text.numbers import CLOCK, clock_forms
from ragmon.text.terms import profile

_FIGURE = (r"[$€£¥]?[ \u00a0]?[0-9][0-9.,]*+(?:[ \u00a0]?(?:%|percent\b|per[ \u00a0]cent\b|[$€£¥]|"
           r"(?!x\b)[^\W\d_]{1,5}\b))?")
"""A figure with its currency or a short unit ("€590", "420 €", "200 kWh", "33,8 Ct"), or a percentage
("15%", "15 percent", "3.4 per cent", "3pc"), read so as to refuse the sum it is in."""
_OPERATOR = r"[×x*/÷+\-−–]"
_GAP = r"[ \u00a0]{0,3}+"
_OF = r"[ \u00a0](?:of|off|de|von|di)[ \u00a0](?:(?:your|the|my|votre|ihrer|ihres)[ \u00a0])?"
"""A percentage's "of" in the languages read ("9% of £6,000", "30 % de 840 €", "25 % von 38 €"), with a
possessive ("1.5% of your $310 balance"), or its "off" ("20% off $144")."""
_JOIN = r"(?:" + _GAP + r"(?P<operator>" + _OPERATOR + r")" + _GAP + r"|" + _OF + r")"
_EQUALS = (r"(?:" + _GAP + r"[=≈→|]" + _GAP + r"|,?[ \u00a0](?:(?:which )?(?:is|are|comes to|works out "
           + r"(?:to|at))|soit|(?:so )?that[’']s|i\.e\.)[ \u00a0])")
_SUM = deferred(
    r"(?<![\w.,])(?P<expression>" + _FIGURE + r"(?:" + _JOIN.replace("?P<operator>", "") + _FIGURE
    + r"){1,8})(?P<named>(?:[ \u00a0][^\W\d_]{2,12}){0,2})" + _EQUALS + r"[*_]{0,2}+(?P<result>" + _FIGURE
    + ")")
"""Figures joined by up to eight operators (or a percentage's "of"), up to two words naming them or none
("$310 balance", "20% VAT", "the $41.40 scheduled fee"), an equals sign or its like ("≈", "→", a table's
next cell, "is", "works out to", ", so that's": words and cells looked for in a claim with "=", "≈", "→"
or a percentage only, `worked`), and the figure they come to (in bold or not). Spaced as sums are
written, a few spaces at most: runs of spaces or operators read every way had taken seconds
(tests/text/test_backtracking.py)."""
_TAXES = frozenset({"vat", "tax", "gst", "hst", "iva", "tva", "mwst", "ust"})
"""Names of a tax, which no worked percentage takes away."""
_PERCENT_OF = deferred(r"(?P<first>" + _FIGURE + r")" + _JOIN + r"(?P<second>" + _FIGURE + r")")
"""Two figures of a percentage of a figure: multiplied ("60% × $13.50", "£6,800 × 3%"), a percentage of
("9% of £6,000", "30 % de 840 €", "25 % von 38 €"), or a figure with a percentage added or taken away
("840 € − 15%", "£238 + 20%"); a division ("€200 / 20%") is none."""
_TERM = deferred(_GAP + r"(?P<sign>[+\-−–])?" + _GAP + r"(?P<figure>" + _FIGURE + ")")


class Worked(NamedTuple):
    """What a claim works out in the open: the `results` its figures come to, checked through those
    figures and not looked for in a page; the percentages (`rates`) a result was worked out from, which
    a page must write as percentages (`ragmon.text.units.Operand`); and the figures they were taken of
    (`bases`), which may be the user's own ("1.5% of your $310 balance"), stated in the question only."""

    results: frozenset[float]
    rates: frozenset[tuple[float, str]] = frozenset()
    """Each with the way it goes: "off" a figure, "on" it, or "" (a percentage of it)."""
    bases: frozenset[float] = frozenset()


NOTHING_WORKED = Worked(frozenset())


def worked(text: str) -> Worked:
    """The totals of `text` that follow from the figures added or taken away before their equals sign, and
    the results of a percentage of a figure ("60% × $13.50 = $8.10", "9% of £6,000 = £540", "840 € − 15% =
    714 €", `_percent_of`), as the claim's numbers read them (`profile`). A sum that does not come to its
    total derives nothing: the total is then looked for in a page like any figure, and a wrong one stays
    unsupported. Nor does one that a made-up figure could pass through with true arithmetic (two
    adversarial reviews'): a product ("2 × €49 = €98 per month" of a page's €49 "for up to 2 users": a
    count is any page's small number), a division, a figure added to itself ("$5 + $5 = $10 per order"), a
    total that is one of its figures ("€250 + €0 = €250"), or one the claim states again outside the sum
    ("€590 + €180 = €770 per week, and the deposit is €770"). A percentage is no count: a page must write
    it with its "%" (`rates`), so a page's "15 rooms" passes no "€590 − 15% = €501.50"."""
    derived = _arrivals(text) if ":" in text else set()
    # Substrings, not a pattern: a search on every claim with a number had cost 0.9% of all the scoring.
    if not ("=" in text or "%" in text or "≈" in text or "→" in text or "cent" in text):
        return Worked(frozenset(derived)) if derived else NOTHING_WORKED
    rates: set[tuple[float, str]] = set()
    bases: set[float] = set()
    outside: frozenset[float] | None = None  # the numbers the claim states outside its sums, read once
    for found in _SUM.finditer(text):
        expression = found["expression"]
        total = _value(found["result"])
        terms = _terms(expression)
        percent = None if terms else _percent_of(expression)
        if percent is not None and percent.way == "off" and not _TAXES.isdisjoint(
                found["named"].lower().split()):
            continue  # "£245 − 20% VAT = £196": a tax is added, or taken out by division (£204.17)
        if percent is not None:
            values, worked_out = [percent.rate, percent.base], percent.result
        else:
            values, worked_out = [value for value, _ in terms], sum(value * sign for value, sign in terms)
        if (values and total is not None and total not in values and len(set(values)) == len(values)
                and abs(worked_out - total) <= _tolerance(found["result"])):
            outside = profile(_SUM.sub(" ", text)).numbers if outside is None else outside
            if total not in outside:
                derived.add(total)
                if percent is not None:
                    rates.add((percent.rate, percent.way))
                    bases.add(percent.base)
    return Worked(frozenset(derived), frozenset(rates), frozenset(bases))


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
        if value is None or _percent(term["figure"]):
            return []
        terms.append((value, 1 if term["sign"] in (None, "+") else -1))
        position = term.end()
    return terms


class _Percent(NamedTuple):
    rate: float
    base: float
    result: float
    way: str


def _percent_of(expression: str) -> _Percent | None:
    """The percentage of a figure an expression works out (`_PERCENT_OF`), or None where it is none: two
    percentages, no percentage, a division, a percentage a figure is added to or taken from ("15% −
    €590"), a figure taken off a percentage ("$144 off 20%"), or a percentage of a percentage."""
    found = _PERCENT_OF.fullmatch(expression)
    if found is None:
        return None
    first, second, operator = found["first"], found["second"], found["operator"]
    rate_first = _percent(first)
    off = operator is None and "off" in expression[found.end("first"):found.start("second")]
    if rate_first == _percent(second) or operator in ("/", "÷") or (
            rate_first and operator not in (None, "×", "x", "*")) or (off and not rate_first):
        return None
    rate, base = (_value(first), _value(second)) if rate_first else (_value(second), _value(first))
    if rate is None or base is None:
        return None
    share = rate / 100 * base
    if operator == "+":
        return _Percent(rate, base, base + share, "on")
    if off or operator in ("-", "−", "–"):
        return _Percent(rate, base, base - share, "off")
    return _Percent(rate, base, share, "")


def _percent(figure: str) -> bool:
    """Whether a figure is a percentage, written with "%" or in words ("15 percent", "3pc")."""
    return figure.rstrip().lower().replace("\u00a0", " ").endswith(("%", "percent", "per cent", "pc"))


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
