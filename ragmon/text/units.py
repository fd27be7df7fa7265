"""Units: a number is stated with what it counts, so "500 mcg" is not "500 mg" and "25 °F" not "25 °C".

The number rule compares numbers alone, so a made-up unit on a number the context states passed: a dose in
micrograms where the leaflet says milligrams, a storage temperature in Fahrenheit where it says Celsius, a
fee of 1% where the page charges $1, an order cut-off at "3 p.m." where the 3 was of "3-5 business days".
So a number written with a unit is checked against the units the context writes the same number with:
when it writes it with one or more, the claim's must be among them. A context that writes the number bare
(a table's cell, "30 or more") says nothing against it, and conversions ("1 TB" as "1,000 GB") are not
made: the number rule already asks for the claim's own number.

Units are read from `prepare`d text, only right after the digits ("30 days", "30-day", "5-7 business
days", "10GB", "9:00 am") or, for money, right before them ("$24.99", "€25").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragmon.text.numbers import digits_of, shown, word_number
from ragmon.text.places import places

_NAMES = {
    "mg": "mg", "milligram": "mg", "milligrams": "mg",
    "mcg": "mcg", "µg": "mcg", "μg": "mcg", "ug": "mcg", "microgram": "mcg", "micrograms": "mcg",
    "g": "g", "gram": "g", "grams": "g", "kg": "kg", "kilogram": "kg", "kilograms": "kg",
    "ml": "ml", "milliliter": "ml", "milliliters": "ml", "millilitre": "ml", "millilitres": "ml",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "pb": "pb", "kib": "kb", "mib": "mb", "gib": "gb",
    "tib": "tb", "kilobytes": "kb", "megabytes": "mb", "gigabytes": "gb", "terabytes": "tb",
    "°c": "°c", "°f": "°f", "degrees c": "°c", "degrees f": "°f", "celsius": "°c", "fahrenheit": "°f",
    "degrees celsius": "°c", "degrees fahrenheit": "°f",
    "%": "%", "percent": "%", "per cent": "%",
    "usd": "$", "dollar": "$", "dollars": "$", "eur": "€", "euro": "€", "euros": "€", "gbp": "£",
    "cents": "¢", "cent": "¢", "¢": "¢",
    "am": "am", "a.m.": "am", "a.m": "am", "pm": "pm", "p.m.": "pm", "p.m": "pm",
    "second": "s", "seconds": "s", "sec": "s", "secs": "s",
    "minute": "min", "minutes": "min", "min": "min", "mins": "min",
    "hour": "h", "hours": "h", "hr": "h", "hrs": "h",
    "day": "d", "days": "d", "week": "w", "weeks": "w", "month": "mo", "months": "mo", "year": "y",
    "years": "y", "dose": "dose", "doses": "dose",
    "€": "€", "tag": "d", "tage": "d", "werktag": "d", "werktage": "d", "werktagen": "d", "tagen": "d",
    "jour": "d", "jours": "d", "día": "d", "días": "d", "dia": "d", "dias": "d", "giorno": "d", "giorni": "d",
    "stunde": "h", "stunden": "h", "heure": "h", "heures": "h", "hora": "h", "horas": "h", "ore": "h",
    "monat": "mo", "monate": "mo", "monaten": "mo", "mois": "mo", "mes": "mo", "meses": "mo", "mese": "mo",
    "mesi": "mo", "jahr": "y", "jahre": "y", "jahren": "y", "ans": "y", "año": "y", "años": "y",
    "anno": "y", "anni": "y", "ano": "y", "anos": "y",
}
"""Each unit's spellings, to one name. Durations and doses are units too: "every 6 hours" is not "6 doses".
One name for a binary prefix and its decimal twin ("GiB", "GB"), which answers swap; none for "tablet",
"capsule" and "pill", which they swap as well. Days, hours, months and years in German, French, Spanish,
Italian and Portuguese too ("14 Tage", "30 jours", "6 horas"), and a euro sign after the amount, as those
countries write it ("5,90 €")."""
_CURRENCY = {"$": "$", "€": "€", "£": "£", "¥": "¥"}
_UNIT = "|".join(sorted(map(re.escape, _NAMES), key=len, reverse=True))
_BETWEEN = (r"(?:(?:business|calendar|working|paid|unpaid|sick|vacation|consecutive|unused|additional|extra|"
            r"full|free|rolling|continuous|school|bank|public|weekly|monthly|annual) ){0,2}")
"""Words a unit is written after ("5-7 business days", "10 paid sick days", "5 consecutive days")."""
_NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?)"
_WITH_UNIT = re.compile(
    r"(?<![\w.,])(?:([$€£¥]) ?)?" + _NUMBER + r"(?::[0-9]{2})?(?:\s?(?:-|–|to|and|bis|à|a|al)\s?[$€£¥]?"
    + _NUMBER + r"(?::[0-9]{2})?)?(?:[\s-]?" + _BETWEEN + r"(" + _UNIT + r")(?![\w]))?")
"""A number in digits with its currency sign before it or its unit after it: a range's first number takes
the unit of its second ("5-7 business days" is 5 days too), but for the half of the day, and a clock time
its minutes ("9:00 am")."""


WORDS = frozenset(word for name in _NAMES for word in re.findall(r"[^\W\d_]+", name))
"""The words units are written with: a text whose terms have none of theirs (`ragmon.text.terms`) and no
`signed` number has no unit to read."""
_AM = re.compile(r"[0-9] ?a\.?m\b")
_WIDE_SIGNS = frozenset("€£¥°¢µμ")


def signed(low: str) -> bool:
    """What else makes a unit: a sign, or "am" after digits (a function word as a term, "I am"). Substring
    and set tests first: one pattern of them all, tried at every character, cost 2.7 us a claim."""
    return ("$" in low or "%" in low or ("am" in low and _AM.search(low) is not None)
            or (not low.isascii() and not _WIDE_SIGNS.isdisjoint(low)))


_UNIT_AFTER = re.compile(r"[\s-]+" + _BETWEEN + r"(" + _UNIT + r")(?![\w])")
_TENS_BEFORE = re.compile(r"([a-z]+)[- ]$")


def _spelled(low: str, words: Iterable[str], found: set[tuple[float, str]]) -> None:
    """Adds number words with their unit ("two years", "twenty percent", "thirty-day", "twenty-five days"):
    read as digits are, else a made-up "within two years" passed on the page's only 2, of "2%". Each of the
    text's number words (its terms tell which) is found by `str.find`: a pattern trying every word of a
    passage for one had cost more than reading it."""
    for word in words:
        for at in places(low, word):
            unit = _UNIT_AFTER.match(low, at + len(word)) if not (at and low[at - 1].isalpha()) else None
            if unit is not None:
                tens = _TENS_BEFORE.search(low, max(0, at - 12), at)
                value = word_number(f"{tens[1]} {word}") if tens is not None else None
                value = word_number(word) if value is None else value
                if value is not None:
                    found.add((value, _NAMES[unit[1]]))


def units(low: str, spelled: Iterable[str] = ()) -> frozenset[tuple[float, str]]:
    """(number, unit) for every number of a `prepare`d text written with a unit or a currency sign, in
    words as well for its number words (`spelled`, which its terms tell)."""
    found: set[tuple[float, str]] = set()
    _spelled(low, spelled, found)
    for match in _WITH_UNIT.finditer(low):
        _pairs(match, found)
    return frozenset(found)


def written_with(low: str, values: Iterable[float],
                 spelled: Iterable[str] = ()) -> frozenset[tuple[float, str]]:
    """`units` of a passage for these numbers only: each is looked for by its digits (`str.find`) and read
    where it is written. Reading a passage's every unit cost 28 us, for each passage a claim with a unit
    passed the rest on."""
    found: set[tuple[float, str]] = set()
    _spelled(low, spelled, found)
    for value in values:
        for digits in _forms(value):
            for at in places(low, digits):
                start = at - 1 if at and low[at - 1] in _CURRENCY else at
                start = at - 2 if at > 1 and low[at - 1] == " " and low[at - 2] in _CURRENCY else start
                match = _WITH_UNIT.match(low, start)
                if match is not None and match.start(2) == at:
                    _pairs(match, found)
    return frozenset(found)


def _forms(value: float) -> tuple[str, ...]:
    """How a number's digits are written: "30", "1299" and "1,299", "24.99"."""
    digits = digits_of(value)
    return (digits, f"{value:,.0f}") if value.is_integer() and value >= 1000 else (digits,)


def _pairs(match: re.Match[str], found: set[tuple[float, str]]) -> None:
    """Adds a `_WITH_UNIT` match's numbers with their sign and unit to `found`."""
    sign, first, second, unit = match.groups()
    if sign is None and unit is None:
        return
    for last, digits in ((False, first), (True, second)) if second is not None else ((True, first),):
        try:
            value = float(digits.replace(",", ""))
        except ValueError:  # "1,2,3": a list, whose numbers the number rule reads
            continue
        if sign is not None:
            found.add((value, _CURRENCY[sign]))
        if unit is not None and (last or _NAMES[unit] not in _HALF_DAY):
            found.add((value, _NAMES[unit]))


_HALF_DAY = frozenset(("am", "pm"))
"""Units a range's first number does not take from its second: "9-5pm" is 9 in the morning."""


def clashes(claimed: frozenset[tuple[float, str]], stated: frozenset[tuple[float, str]]) -> list[str]:
    """The claim's numbers with a unit the context never writes them with, though it writes them with
    another ("500 mcg" where the context has only "500 mg"), as `written` for a reason."""
    by_number: dict[float, set[str]] = {}
    for value, unit in stated:
        by_number.setdefault(value, set()).add(unit)
    return sorted(written(value, unit) for value, unit in claimed
                  if value in by_number and unit not in by_number[value])


def written(value: float, unit: str) -> str:
    """A number with its unit as a reason shows it to people: "$49", "4%", "30 days", "500 mg"."""
    if unit in _CURRENCY:
        return f"{unit}{shown(value)}"
    if unit in ("%", "¢"):
        return f"{shown(value)}{unit}"
    if unit in _SPELLED:
        return f"{shown(value)} {_SPELLED[unit]}{'' if value == 1 else 's'}"
    return f"{shown(value)} {unit}"


_SPELLED = {"s": "second", "min": "minute", "h": "hour", "d": "day", "w": "week", "mo": "month", "y": "year",
            "dose": "dose"}
"""The names of units that are words, for a reason: "8 h" read as "8 hours"."""
