"""Units: a number is stated with what it counts, so "500 mcg" is not "500 mg" and "25 °F" not "25 °C".

The number rule compares numbers alone, so a made-up unit on a number the context states passed: a dose in
micrograms where the leaflet says milligrams, a storage temperature in Fahrenheit where it says Celsius, a
fee of 1% where the page charges $1, an order cut-off at "3 p.m." where the 3 was of "3-5 business days".
So a number written with a unit is checked against the units the context writes the same number with:
when it writes it with one or more, the claim's must be among them. A context that writes the number bare
(a table's cell, "30 or more") says nothing against it, and conversions ("1 TB" as "1,000 GB") are not
made: the number rule already asks for the claim's own number.

Units are read from `prepare`d text, only right after the digits ("30 days", "30-day", "5-7 business
days", "10GB", "9:00 am") or, for money, right before them ("$24.99", "€25"). So is what such an amount or
dose is per: a body weight, which makes a unit of its own ("5 mg/kg" is no dose of 5 mg), and a period,
which the claim must give as the context does where both give one ("$5 per month" is not "$5 per week",
"10 mg/day" is "10 mg daily": a `Rate`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ragmon.text.deferred import deferred
from ragmon.text.numbers import clock, clock_forms, digits_of, shown, word_number
from ragmon.text.places import places

UNIT_NAMES = {
    "mg": "mg", "milligram": "mg", "milligrams": "mg",
    "mcg": "mcg", "µg": "mcg", "μg": "mcg", "ug": "mcg", "microgram": "mcg", "micrograms": "mcg",
    "g": "g", "gram": "g", "grams": "g", "kg": "kg", "kilogram": "kg", "kilograms": "kg",
    "kgs": "kg", "kilo": "kg", "kilos": "kg",
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
    "years": "y", "dose": "dose", "doses": "dose", "h": "h",
    "wk": "w", "wks": "w", "mo": "mo", "mos": "mo", "mth": "mo", "mths": "mo", "yr": "y", "yrs": "y",
    "€": "€", "tag": "d", "tage": "d", "werktag": "d", "werktage": "d", "werktagen": "d", "tagen": "d",
    "jour": "d", "jours": "d", "día": "d", "días": "d", "dia": "d", "dias": "d", "giorno": "d", "giorni": "d",
    "stunde": "h", "stunden": "h", "heure": "h", "heures": "h", "hora": "h", "horas": "h", "ore": "h",
    "monat": "mo", "monate": "mo", "monaten": "mo", "mois": "mo", "mes": "mo", "meses": "mo", "mese": "mo",
    "mesi": "mo", "jahr": "y", "jahre": "y", "jahren": "y", "ans": "y", "año": "y", "años": "y",
    "anno": "y", "anni": "y", "ano": "y", "anos": "y",
    "woche": "w", "wochen": "w", "semaine": "w", "semaines": "w", "semana": "w", "semanas": "w",
    "settimana": "w", "settimane": "w", "minuten": "min", "minuto": "min", "minutos": "min", "minuti": "min",
    "std.": "h", "ora": "h", "mês": "mo", "année": "y", "années": "y", "sekunde": "s", "sekunden": "s",
    "secondes": "s", "segundos": "s", "secondi": "s",
    "lb": "lb", "lbs": "lb", "oz": "oz", "ounce": "oz", "ounces": "oz",
    "km": "km", "kph": "kph", "kilometer": "km", "kilometers": "km", "kilometre": "km", "kilometres": "km",
    "meter": "m", "meters": "m", "metre": "m", "metres": "m", "cm": "cm", "centimeter": "cm",
    "centimeters": "cm", "centimetre": "cm", "centimetres": "cm", "mm": "mm", "millimeter": "mm",
    "millimeters": "mm", "millimetre": "mm", "millimetres": "mm", "ft": "ft", "foot": "ft", "feet": "ft",
    "inch": "in", "inches": "in", "mile": "mi", "miles": "mi", "mph": "mph", "yard": "yd", "yards": "yd",
    "l": "l", "liter": "l", "liters": "l", "litre": "l", "litres": "l", "gal": "gal", "gallon": "gal",
    "gallons": "gal",
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms",
    "w": "W", "watt": "W", "watts": "W", "kw": "kw", "kilowatt": "kw", "kilowatts": "kw", "wh": "wh",
    "kwh": "kwh", "kilowatt-hour": "kwh", "kilowatt-hours": "kwh", "kilowatt hour": "kwh",
    "kilowatt hours": "kwh", "watt-hour": "wh", "watt-hours": "wh", "watt hour": "wh", "watt hours": "wh",
    "mwh": "mwh", "megawatt-hour": "mwh", "megawatt-hours": "mwh", "megawatt hour": "mwh",
    "megawatt hours": "mwh", "gwh": "gwh", "gigawatt-hour": "gwh", "gigawatt-hours": "gwh",
    "gigawatt hour": "gwh", "gigawatt hours": "gwh",
    "mah": "mah", "kbps": "kbps", "mbps": "mbps", "gbps": "gbps", "hz": "hz", "khz": "khz",
    "mhz": "mhz", "ghz": "ghz",
}
"""Each unit's spellings, to one name. Durations and doses are units too: "every 6 hours" is not "6 doses".
One name for a binary prefix and its decimal twin ("GiB", "GB"), which answers swap; none for "tablet",
"capsule" and "pill", which they swap as well. Seconds, minutes, hours, days, weeks, months and years in
German, French, Spanish, Italian and Portuguese too ("14 Tage", "30 jours", "6 horas", "5 Wochen", "30
Minuten", "2 Std."), and a euro sign after the amount, as those countries write it ("5,90 €"). Not their
words that are mostly something else: French "an" (a year, and English's article), "seconde",
"secondo" and "segundo" (second, and "according to"), German "Wo." (where) and "Min." is "min" already.
Length, weight, volume, speed, power, energy, charge, bit rates and frequencies, in their usual symbols
and English words: "5 lb" is not "5 kg", nor "30 ms" "30 s", "65 W" "65 kW" (each had passed on its
number). Not "m" alone (minutes, millions), "in" (the preposition) nor "pound" (a weight, and a
currency: "5 pounds" is as often £5), nor "mW" and "MW", one text in lower case. Watts are "W", as "w" is
a week. Durations written short too, "2-3 wks", "6 mos", "2 yrs", "24h" (each had passed against
another unit); not "d", as "3D" is no 3 days."""
_CURRENCY = {"$": "$", "€": "€", "£": "£", "¥": "¥"}
_UNIT = "|".join(sorted(map(re.escape, UNIT_NAMES), key=len, reverse=True))
_BETWEEN = (r"(?:(?:business|calendar|working|paid|unpaid|sick|vacation|consecutive|unused|additional|extra|"
            r"full|free|rolling|continuous|school|bank|public|weekly|monthly|annual) ){0,2}")
"""Words a unit is written after ("5-7 business days", "10 paid sick days", "5 consecutive days")."""
_NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?)"
PERIOD_WORDS = {
    "day": "/d", "week": "/w", "month": "/mo", "year": "/y", "hour": "/h", "minute": "/min", "quarter": "/q",
    "second": "/s", "sekunde": "/s", "annum": "/y",
    "tag": "/d", "woche": "/w", "monat": "/mo", "jahr": "/y", "stunde": "/h", "jour": "/d",
    "semaine": "/w", "mois": "/mo", "an": "/y", "année": "/y", "heure": "/h", "día": "/d", "dia": "/d",
    "semana": "/w", "mes": "/mo", "mês": "/mo", "año": "/y", "ano": "/y", "hora": "/h", "minuto": "/min",
    "giorno": "/d", "settimana": "/w", "mese": "/mo", "anno": "/y",
}
"""A rate's period after "per", "a", "every", ... ("$5 per month", "$60 a year", "10 mg each day", "5 € pro
Monat", "par mois", "al mes", "por dia"), to one name (a `Rate`'s). Not Italian "ora" (hour), whose "per
ora" is mostly "for now". A second is one: an API's "100 requests per second" had passed against a page's
"per minute"."""
_SLASHED = PERIOD_WORDS | {"d": "/d", "wk": "/w", "mo": "/mo", "yr": "/y", "y": "/y", "hr": "/h", "h": "/h",
                       "min": "/min", "std": "/h", "s": "/s", "sec": "/s"}
"""A period after a slash ("$5/mo", "10 mg/d", "5 ml/hr", "5 €/Monat", "100 requests/s", "10 MB/s")."""
ONE_WORD_PERIODS = {"hourly": "/h", "daily": "/d", "weekly": "/w", "monthly": "/mo", "quarterly": "/q",
              "yearly": "/y", "annually": "/y", "annual": "/y"}
"""A period in one word, after an amount or a dose with its unit ("$5 monthly", "10 mg daily", "$99 annual
fee"): after a bare number it counts something else ("12 monthly payments")."""
PERIODS = frozenset(_SLASHED.values())
PER = r"(?:per|a|an|each|every|pro|je|im|am|par|por|al|ao|cada|ogni|a la|alla)"
"""The words a rate's period is written after, in English and the other European languages."""
_WORD = r"[^\W\d_]+"
NOT_ORDINAL = r"(?!\s+(?:time|day|week|month|year|dose|night|hour|visit|shift)s?\b)"
"""What follows no period: "every second day", "a second time" count, as "every other day" does; read as
per second, a page's "every other day" had lacked "2 tablets per second"."""
_RATE = (r"(?:(?:(?:\s?/\s?|\sper\s)" + _WORD + r"|\sof\s(?:" + _WORD + r"\s){0,2}" + _WORD + r")?"
         r"(?:\s?/\s?(" + "|".join(sorted(_SLASHED, key=len, reverse=True)) + r")(?![\w])|\s" + PER + r"\s("
         + "|".join(sorted(PERIOD_WORDS, key=len, reverse=True)) + r")(?![\w])(?!\s?[0-9])" + NOT_ORDINAL
         + r")|\s(" + "|".join(ONE_WORD_PERIODS) + r")(?![\w]))")
"""A rate's period, after at most one other thing the amount is per ("$10 per user per month", "$0.02/GB/
month") or what it is of, in up to three words ("10 mg of the drug per day", "5 days of leave a year");
in one word right after it only ("20% of the annual fee" is no rate). Not before a number, a year's: "5 €
im Jahr 2024" is no rate."""
_BODY = r"(?:\s?/\s?|\s(?:per|pro|par|por|je)\s)(kg|kilogram|kilo|m2|m²)(?![\w²])"
"""Per kilogram of body weight, or per square metre of its surface: "5 mg/kg" is no dose of 5 mg."""
_BY_BODY = frozenset(("mg", "mcg", "g", "ml"))
"""The units a dose is given per body weight in."""
_WITH_UNIT = re.compile(
    r"(?<![\w.,])(?:([$€£¥]) ?)?" + _NUMBER + r"(?::([0-9]{2}))?(?:\s?(?:-|–|to|and|bis|à|a|al)\s?[$€£¥]?"
    + _NUMBER + r"(?::([0-9]{2}))?)?(?:[\s-]?" + _BETWEEN + r"(" + _UNIT + r")(?![\w])(?:" + _BODY + r")?)?"
    + r"(?:" + _RATE + r")?")
"""A number in digits with its currency sign before it or its unit after it: a range's first number takes
the unit of its second ("5-7 business days" is 5 days too), but for the half of the day, and a clock time
its minutes ("9:00 am"; "9:30 am" is that time, one number as `numbers_in` reads it). Then what it is
per, if anything: a body weight makes it a unit of its own ("5 mg/kg"), a period a rate of its unit ("$5
per month", "10 mg/kg/day": a `Rate`)."""


NAMED_SPANS = {"fortnight": ((2.0, "w"), (14.0, "d"))}
"""A word that is a number with its unit, as a page's "a fortnight" is "two weeks" and "14 days"
(`numbers._ON_A_PAGE`): a claim's "2 years" and "14 weeks" are not. A claim's "fortnight" is one number of
its own (`numbers.FORTNIGHT`), with no unit."""
WORDS = frozenset(word for name in (*UNIT_NAMES, *_SLASHED, *ONE_WORD_PERIODS)
                  for word in re.findall(r"[^\W\d_]+", name))
"""The words units are written with: a text whose terms have none of theirs (`ragmon.text.terms`) and no
`signed` number has no unit to read."""
_AM = re.compile(r"[0-9] ?a\.?m\b")
_WIDE_SIGNS = frozenset("€£¥°¢µμ")


def signed(low: str) -> bool:
    """What else makes a unit: a sign, or "am" or "a.m." after digits (a function word as a term, "I am":
    with "am" alone looked for, "closes at 5 a.m." read no unit and passed against "5 p.m."). Substring
    and set tests first: one pattern of them all, tried at every character, cost 2.7 us a claim."""
    return ("$" in low or "%" in low or (("am" in low or "a.m" in low) and _AM.search(low) is not None)
            or (not low.isascii() and not _WIDE_SIGNS.isdisjoint(low)))


_UNIT_AFTER = re.compile(r"[\s-]+" + _BETWEEN + r"(" + _UNIT + r")(?![\w])")
_TENS_BEFORE = re.compile(r"([a-z]+)[- ]$")


def _spelled(low: str, words: Iterable[str], found: set[tuple[float, str]], *, page: bool = False) -> None:
    """Adds number words with their unit ("two years", "twenty percent", "thirty-day", "twenty-five days"):
    read as digits are, else a made-up "within two years" passed on the page's only 2, of "2%"; and a
    `page`'s `NAMED_SPANS`. Each of the text's number words (its terms tell which) is found by `str.find`:
    a pattern trying every word of a passage for one had cost more than reading it."""
    for word in words:
        if word in NAMED_SPANS:
            if page:
                found.update(NAMED_SPANS[word])
            continue
        for at in places(low, word):
            unit = _UNIT_AFTER.match(low, at + len(word)) if not (at and low[at - 1].isalpha()) else None
            if unit is not None:
                tens = _TENS_BEFORE.search(low, max(0, at - 12), at)
                value = word_number(f"{tens[1]} {word}") if tens is not None else None
                value = word_number(word) if value is None else value
                if value is not None:
                    found.add((value, UNIT_NAMES[unit[1]]))


def units(low: str, spelled: Iterable[str] = ()) -> frozenset[tuple[float, str]]:
    """(number, unit) for every number of a `prepare`d text written with a unit or a currency sign, in
    words as well for its number words (`spelled`, which its terms tell); a unit given with a rate's period
    is a `Rate` ("$5 per month": 5, "$" per month), when the text gives that number with that unit one
    period only."""
    found: set[tuple[float, str]] = set()
    _spelled(low, spelled, found)
    rates: dict[tuple[float, str], set[str]] = {}
    for match in _WITH_UNIT.finditer(low):
        _pairs(match, found, rates)
    for (value, unit), periods in rates.items():
        if len(periods) == 1:
            found.discard((value, unit))
            found.add((value, Rate(unit, *periods)))
    return frozenset(found)


class Rate(str):
    """A claim's unit with the period its number is per: "$" of "$5 per month", "mg" of "10 mg/day", "10
    mg daily". Equal to the unit alone, its hash and comparisons being str's: a rule comparing units (a
    number moved between rows, `ragmon.text.passage_sentences`) compares them as before, which a page
    writing "$1,900" in the sentence that names two-bedroom units and "$1,450 per month" in the other must
    keep. Only `clashes` reads the period."""

    period: str

    def __new__(cls, unit: str, period: str) -> Rate:
        rate = super().__new__(cls, unit)
        rate.period = period
        return rate

    def __reduce__(self) -> tuple[type[Rate], tuple[str, str]]:
        return Rate, (str(self), self.period)


class Days(str):
    """A claim's unit of days of a kind, "business" (or working) or "calendar": "14 business days" is not
    "14 calendar days" (it had passed against them, and "10 calendar days" against "10 working days").
    Equal to "d", as a `Rate` is to its unit: every other rule reads it as days, a claim's "10 days" is
    any kind's and a page's "10 days" says nothing against a kind; only `clashes` reads the kind."""

    kind: str

    def __new__(cls, kind: str) -> Days:
        days = super().__new__(cls, "d")
        days.kind = kind
        return days

    def __reduce__(self) -> tuple[type[Days], tuple[str]]:
        return Days, (self.kind,)


class Operand(str):
    """A claim's "%" of a percentage it works a figure out from ("60% × $13.50 = $8.10", `ragmon.text.
    worked_sums`): its result is checked through it, so a page must write it as a percentage, not only
    hold its number (a page's "15 rooms" had passed "€590 − 15% = €501.50" where the claim's plain "15%"
    is only refused against a page writing 15 with another unit), and, where the claim takes it off a
    figure or adds it on (`way`, "off" or "on"), not only in words of the other way ("$9,800 − 3%" of a
    page's "will rise by 3%"). Equal to "%", as `Days` is to "d"."""

    way: str
    asked: frozenset[str]
    """The terms of the question: a page's percentage given to a row or tier it names less than another's
    is another row's (`ragmon.text.percent_rows`)."""

    def __new__(cls, way: str = "", asked: frozenset[str] = frozenset()) -> Operand:
        operand = super().__new__(cls, "%")
        operand.way = way
        operand.asked = asked
        return operand

    def __reduce__(self) -> tuple[type[Operand], tuple[str, frozenset[str]]]:
        return Operand, (self.way, self.asked)


_PERCENT_WAYS = deferred(
    r"\b(?:(off\b|discount|reduc|rebate|cheaper|lower|sav(?:e|ing)|remise|rabatt|ermäßig|sconto|descuento|"
    r"decreas)|(increas|rise|rising|risen|surcharge|higher|markup|uplift|plus\b|supplément|majoration|"
    r"aufschlag|zuschlag|aumento|recargo|maggiorazione))")
"""Words that take a page's percentage off a figure or add it on, in the sentence that gives it, and the
words they begin ("reduced", "increases"), but for "off" and "plus" ("office", "plusieurs"); not "fee",
"tax" or "interest", which go either way ("$500 − 2% = $490 after the fee")."""
_SENTENCE_END = deferred(r"[.!?;](?:\s|$)|\n")


def clause_start(low: str, at: int, ends: re.Pattern[str]) -> int:
    """Where the clause holding `at` starts: after the last of `ends` within `REACH` characters before it,
    or `REACH` characters before it."""
    return max((found.end() for found in ends.finditer(low, max(0, at - REACH), at)),
               default=max(0, at - REACH))


def _percent_ways(low: str, at: int) -> set[str]:
    """The ways (`Operand.way`) the words of the sentence around `at` take a percentage there, as units of
    their own ("% off", "% on")."""
    start = clause_start(low, at, _SENTENCE_END)
    end = _SENTENCE_END.search(low, at, at + REACH)
    return {"% off" if found.group(1) else "% on"
            for found in _PERCENT_WAYS.finditer(low, start, end.start() if end else at + REACH)}


REACH = 160
"""The most characters either side of a page's percentage read for the way it goes and the row it is given
to (`ragmon.text.percent_rows`)."""


_KINDS = {"business": "business", "working": "business", "calendar": "calendar"}
"""The words a kind of day is written with, to its name."""


def _days(between: str, unit: str) -> str:
    """The unit of days written with these words `between` the number and `unit` ("business", "working",
    "calendar"; German "Werktage" in one word), a `Days`, or "d"."""
    if unit.startswith("werktag"):
        return Days("business")
    kinds = {_KINDS[word] for word in between.split() if word in _KINDS}
    return Days(kinds.pop()) if len(kinds) == 1 else "d"


def written_with(low: str, values: Iterable[float], spelled: Iterable[str] = (),
                 worked: Mapping[float, Operand] | None = None) -> frozenset[tuple[float, str]]:
    """`units` of a passage for these numbers only: each is looked for by its digits (`str.find`) and read
    where it is written. Reading a passage's every unit cost 28 us, for each passage a claim with a unit
    passed the rest on. A rate's period is a unit of its own here, the unit and its period ("$/mo"), for
    `clashes` only: a passage may give a number one period in one place and another in the next; so are
    days of a kind ("d business", `Days`), and the ways a percentage goes ("% off", `Operand`), read for a
    claim's `worked` percentages only (reading them for every claim had cost 3%)."""
    found: set[tuple[float, str]] = set()
    _spelled(low, spelled, found, page=True)
    rates: dict[tuple[float, str], set[str]] = {}
    kinds: set[tuple[float, str]] = set()
    for value in values:
        for digits in _forms(value):
            for at in places(low, digits):
                start = at - 1 if at and low[at - 1] in _CURRENCY else at
                start = at - 2 if at > 1 and low[at - 1] == " " and low[at - 2] in _CURRENCY else start
                match = _WITH_UNIT.match(low, start)
                if match is not None and match.start(2) == at:
                    _pairs(match, found, rates, kinds)
                    if worked and value in worked and worked[value].way and match.group(6) is not None \
                            and UNIT_NAMES[match.group(6)] == "%":
                        kinds.update((value, way) for way in _percent_ways(low, at))
    found.update((value, unit + period) for (value, unit), periods in rates.items() for period in periods)
    return frozenset(found | kinds)


def _forms(value: float) -> tuple[str, ...]:
    """How a number's digits are written: "30", "1299" and "1,299", "24.99", a time of a day "9:30",
    "09:30" and "9.30" ("9.30am")."""
    if value >= 1000 and (times := clock_forms(value)):
        return (*times, *(time.replace(":", ".") for time in times))
    digits = digits_of(value)
    return (digits, f"{value:,.0f}") if value.is_integer() and value >= 1000 else (digits,)


def _pairs(match: re.Match[str], found: set[tuple[float, str]],
           rates: dict[tuple[float, str], set[str]], kinds: set[tuple[float, str]] | None = None) -> None:
    """Adds a `_WITH_UNIT` match's numbers with their sign and unit to `found`, the period of a rate
    to `rates`, by number and unit, and days of a kind to `kinds` as units of their own ("d business")."""
    sign, first, first_minutes, second, second_minutes, unit, body, slashed, per, how_often = match.groups()
    if sign is None and unit is None:
        return
    name = UNIT_NAMES[unit] if unit is not None else None
    if name == "d":
        name = _days(match.string[match.end(4 if second is not None else 2):match.start(6)], unit)
    if body is not None and name in _BY_BODY:
        name = f"{name}/m²" if body[0] == "m" else f"{name}/kg"
    period = (_SLASHED[slashed] if slashed is not None else PERIOD_WORDS[per] if per is not None
              else ONE_WORD_PERIODS[how_often] if how_often is not None else None)
    if period == "/h" and name in _SPEEDS:
        name, period = _SPEEDS[name], None
    numbers = ((False, first, first_minutes), (True, second, second_minutes)) if second is not None \
        else ((True, first, first_minutes),)
    for last, digits, minutes in numbers:
        if minutes is None and name in _HALF_DAY and "." in digits:
            digits, _, minutes = digits.partition(".")  # "9.30am", as `numbers` reads it: "9:30am"
        try:
            value = clock(float(digits.replace(",", "")), minutes)
        except ValueError:  # "1,2,3": a list, whose numbers the number rule reads
            continue
        given = []
        if sign is not None:
            given.append(_CURRENCY[sign])
        if name is not None and (last or name not in _HALF_DAY):
            given.append(name)
        for its in given:
            found.add((value, its))
            if kinds is not None and isinstance(its, Days):
                kinds.add((value, f"d {its.kind}"))
            if period is not None:
                rates.setdefault((value, its), set()).add(period)


def _other_kind(kinds: dict[tuple[float, str], set[str]], value: float, kind: str) -> bool:
    """Whether a page gives `value` only as units of another kind of the same family ("d calendar" for "d
    business", "% on" for "% off"): one it gives as no kind of that family says nothing against any, nor do
    another family's ("14% off" against "14 calendar days")."""
    given = kinds.get((value, kind[0]))
    return given is not None and kind not in given


_SPEEDS = {"km": "kph", "mi": "mph"}
"""Units a period of an hour makes a speed of: "60 km/h" and "60 km per hour" are "kph", no rate."""
_HALF_DAY = frozenset(("am", "pm"))
"""Units a range's first number does not take from its second: "9-5pm" is 9 in the morning."""


def clashes(claimed: frozenset[tuple[float, str]], stated: frozenset[tuple[float, str]]) -> list[str]:
    """The claim's numbers with a unit the context never writes them with, though it writes them with another
    ("500 mcg" where the context has only "500 mg"), or with a period (a `Rate`) the context never gives
    them that unit with, though it gives them another ("$5 per month" where it has only "$5 per week":
    `written_with`'s "$/w"), or days of a kind the context gives them only in days of the other ("14
    business days" where it has only "14 calendar days": `written_with`'s "d calendar"), or a percentage a
    result is worked out from that it writes with no "%" or not at all, or only in words taking it the
    other way ("rise by 3%" for a claim's "$9,800 − 3%": `Operand`), or only for another row than the
    question's ("r another", `ragmon.text.percent_rows`), as `written` for a reason. A number given no
    period, by the claim or by the context, says nothing against the other's: so the lexical judge treats
    a frequency word missing from either ("monthly")."""
    by_number: dict[float, set[str]] = {}
    periods: dict[tuple[float, str], set[str]] = {}
    kinds: dict[tuple[float, str], set[str]] = {}  # by family: days' kinds ("d"), ways ("%"), rows ("r")
    for value, unit in stated:
        at = unit.rfind("/")
        if at > 0 and unit[at:] in PERIODS:
            periods.setdefault((value, unit[:at]), set()).add(unit[at:])
        elif unit.startswith(("d ", "% ", "r ")):
            kinds.setdefault((value, unit[0]), set()).add(unit)
        else:
            by_number.setdefault(value, set()).add(unit)
    found = []
    for value, unit in claimed:
        if unit not in by_number.get(value, () if isinstance(unit, Operand) else (unit,)):
            found.append(written(value, unit))
        elif isinstance(unit, Operand) and unit.way and _other_kind(kinds, value, f"% {unit.way}"):
            found.append(f"{shown(value)}% {unit.way}")
        elif isinstance(unit, Operand) and unit.asked and _other_kind(kinds, value, "r this"):
            found.append(f"{shown(value)}% (another row's)")  # `ragmon.text.percent_rows`
        elif isinstance(unit, Days) and _other_kind(kinds, value, f"d {unit.kind}"):
            found.append(f"{shown(value)} {unit.kind} day{'' if value == 1 else 's'}")
        elif isinstance(unit, Rate) and unit.period not in periods.get((value, unit), (unit.period,)):
            found.append(f"{written(value, unit)} per {UNIT_WORDS[unit.period[1:]]}")
    return sorted(found)


def written(value: float, unit: str) -> str:
    """A number with its unit as a reason shows it to people: "$49", "4%", "30 days", "500 mg"."""
    if unit in _CURRENCY:
        return f"{unit}{shown(value)}"
    if unit in ("%", "¢"):
        return f"{shown(value)}{unit}"
    if unit in UNIT_WORDS:
        return f"{shown(value)} {UNIT_WORDS[unit]}{'' if value == 1 else 's'}"
    return f"{shown(value)} {unit}"


UNIT_WORDS = {"s": "second", "min": "minute", "h": "hour", "d": "day", "w": "week", "mo": "month",
              "y": "year", "q": "quarter", "dose": "dose"}
"""The names of units that are words, for a reason: "8 h" read as "8 hours"."""


_MORE = ("over", "above", "more than", "greater than", "at least", "minimum", "no less than",
         "not less than", "no fewer than", "in excess of", "upwards of", "exceeding", "exceed",
         "exceeds")
_LESS = ("under", "below", "less than", "fewer than", "up to", "at most", "maximum", "max", "no more than",
         "not more than", "not exceeding", "not exceed", "cannot exceed")
_MORE_AFTER = ("or more", "or over", "or above", "or higher", "or greater", "or older", "and up",
               "and over", "and above", "and older")
_LESS_AFTER = ("or less", "or fewer", "or under", "or below", "or lower", "or younger", "and under",
               "and below", "and younger")
_WAY = dict.fromkeys((*_MORE, *_MORE_AFTER, "+"), "more") | dict.fromkeys(_LESS + _LESS_AFTER, "less")
"""Which way a bound goes: "over 50", "at least 50" and "50 or more" are lower bounds of one way, "under 50",
"up to 50" and "50 or less" upper bounds of the other."""
BOUND_WORDS = frozenset(word for bound in _WAY for word in bound.split())
"""The words bounds are written with ("maximum", "least"): no term a claim that turns a bound must share."""


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in sorted(words, key=len, reverse=True))


_BOUND_BEFORE = re.compile(r"\b(" + _alternatives((*_MORE, *_LESS))
                           + r")(?:\s+(?:the\s+)?age)?(?:\s+of)?\s*(?:[$€£¥]\s?)?$")
_BOUND_AFTER = re.compile(r"(\+)(?![0-9])|(?:\s?%|[\s-][^\W\d_]++){0,2}?\s+("
                          + _alternatives((*_MORE_AFTER, *_LESS_AFTER)) + r")\b(?!(?<=up)\s+to\b)")
"""A bound after a number, past up to two words of its unit or of what it counts ("5 users or fewer"); not
"and up" of "and up to 10 GB", which bounds the next number. Each word after a separator, whole: words
side by side with none had let one long word be split every way (16,000 letters: 3 s)."""
_BOUND_ANY = re.compile(r"\b(" + _alternatives((*_MORE, *_LESS)) + r")\b")
_NUMBER_AT = re.compile(_NUMBER)
_MAY_BOUND = re.compile(r"over|under|above|below|than|up to|at least|at most|imum|max|excee|upwards|\+|"
                        r"or (?:more|less|fewer|greater|higher|lower|older|younger)|and (?:up|older|younger)")
"""A claim that may bound a number: only such a claim's bounds are read (`bounds`)."""


def may_bound(text: str) -> bool:
    """Whether a claim may write a number with a bound: one C-level search spares most, of the text
    lower-cased (a search ignoring case took six times as long: +1% of the scoring time)."""
    return _MAY_BOUND.search(text.lower()) is not None


def bounds(low: str, values: Iterable[float]) -> frozenset[tuple[float, str]]:
    """(number, "more" or "less") for each of these numbers a `prepare`d text writes with a bound, before
    it ("over $50", "at least 18", "a maximum of 5") or after it ("$50 or more", "18+", "5 users or
    fewer"). Each number is looked for by its digits (`str.find`) and read where it is written."""
    found: set[tuple[float, str]] = set()
    for value in values:
        for digits in _forms(value):
            for at in places(low, digits):
                number = _NUMBER_AT.match(low, at)
                if (number is None or (at and low[at - 1] in _IN_NUMBER)
                        or float(number[1].replace(",", "")) != value):
                    continue
                before = _BOUND_BEFORE.search(low, max(0, at - 24), at)
                after = _BOUND_AFTER.match(low, number.end())
                found.update((value, _WAY[" ".join(bound[bound.lastindex or 0].split())])
                             for bound in (before, after) if bound is not None)
                if before is not None:  # "carry over up to 5 days": "over" too, a verb's or a bound's
                    found.update((value, _WAY[" ".join(word[1].split())])
                                 for word in _BOUND_ANY.finditer(low, max(0, at - 24), before.start()))
                if (before is not None or after is not None) and _BEFORE_EVENT.match(low, number.end()):
                    found.update(((value, "more"), (value, "less")))
    return frozenset(found)


_BEFORE_EVENT = re.compile(r"(?:[\s-][^\W\d_]++){0,2}?\s+(?:before|prior\s+to|in\s+advance|ahead)\b")
"""A bound on a time before an event, which reads both ways: "skip at least 5 days before your delivery
date" and "skip up to 5 days before" give one deadline, and "cancel less than 24 hours before the start"
is the complement of "cancel at least 24 hours before". Each word after a separator, as `_BOUND_AFTER`'s."""


_IN_NUMBER = frozenset("0123456789.,")


def bounded_otherwise(claimed: frozenset[tuple[float, str]],
                      stated: frozenset[tuple[float, str]]) -> list[str]:
    """The claim's bounds the context gives that number only the other way ("over 50" where it says "under
    50"), as a reason shows them. A number the context gives no bound says nothing against the claim's, nor
    one the claim gives both ways ("carry over up to 5 days": a verb's "over") against the context's."""
    given, ways = _ways(stated), _ways(claimed)
    return sorted(f"{_SHOWN[_OTHER[way]]} {shown(value)}, not {_SHOWN[way]} {shown(value)}"
                  for value, way in claimed if given.get(value, ways[value]).isdisjoint(ways[value]))


def _ways(bounded: frozenset[tuple[float, str]]) -> dict[float, set[str]]:
    """Each number's ways, "more" or "less" or both."""
    ways: dict[float, set[str]] = {}
    for value, way in bounded:
        ways.setdefault(value, set()).add(way)
    return ways


_OTHER = {"more": "less", "less": "more"}
_SHOWN = {"more": "over", "less": "under"}
