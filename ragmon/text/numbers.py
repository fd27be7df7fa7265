"""Quantities in digits and in words, read so "two years", "2 years" and "2.0 years" state one number.

Claims are checked for their numbers exactly, separately from their terms; this reads them. The number
words' term markers live here too, as the term reader marks number words with them and the spelled-out
reader finds the words by them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from ragmon.text.deferred import deferred

_UNITS: dict[str, float] = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "dozen": 12,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}
_OTHER_UNITS = {
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "zwölf": 12, "fünfzehn": 15, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "huit": 8, "dix": 10,
    "douze": 12, "quinze": 15, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "doce": 12, "tre": 3, "quattro": 4, "cinque": 5, "sette": 7, "nove": 9,
    "dieci": 10, "dodici": 12, "quindici": 15, "dois": 2, "duas": 2, "três": 3, "sete": 7, "oito": 8,
    "dez": 10, "doze": 12,
    "dreizehn": 13, "vierzehn": 14, "sechzehn": 16, "siebzehn": 17, "achtzehn": 18, "neunzehn": 19,
    "onze": 11, "treize": 13, "quatorze": 14, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16,
    "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "undici": 11, "tredici": 13, "quattordici": 14,
    "sedici": 16, "diciassette": 17, "diciotto": 18, "diciannove": 19, "treze": 13, "catorze": 14,
    "dezesseis": 16, "dezasseis": 16, "dezessete": 17, "dezassete": 17, "dezoito": 18,
    "dezenove": 19, "dezanove": 19,
}
"""German, French, Spanish, Italian and Portuguese number words, so "drei Versuche" states 3 against
"fünf" (it had passed as one more word the context lacked) and "cinq ans" is "5 ans"; the teens too, whose
"vierzehn Tagen", "quince días" and "quattordici giorni" had stated no number against a page's 30. Not
those that are English words or mostly something else: "elf", "neuf" (new), "sept", "cent", "dos", "due",
"sei", "otto", "once" (Spanish 11), "seize" (French 16), and the articles "un", "ein", "uno", "um"."""
_OTHER_TENS = {
    "zwanzig": 20, "dreißig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80,
    "neunzig": 90, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "veinte": 20,
    "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80,
    "noventa": 90, "venti": 20, "trenta": 30, "quaranta": 40, "cinquanta": 50, "sessanta": 60, "settanta": 70,
    "ottanta": 80, "novanta": 90, "vinte": 20, "trinta": 30, "quarenta": 40, "cinquenta": 50, "sessenta": 60,
    "oitenta": 80,
}
"""Their tens, to 90 where the word is one ("soixante-dix" is 70 below, `_TEENS_AFTER`; "quatre-vingts",
two words, is not read). Portuguese "setenta" and "noventa" are Spanish's."""
CLOCK = 50_000_000.0
"""What a time of a day is read as, plus hour x 100 + minutes (`_CLOCK`): no date nor likely quantity."""
MIDNIGHT = CLOCK
NOON = CLOCK + 1200
"""Midnight and noon, each one time of a day however written: "midnight", "12 am", "00:00" and "24:00" are
`MIDNIGHT`, "noon" and "12 pm" `NOON` (`_NAMED_HOUR`). Read as 12, "open until midnight" had been flagged
against a page's "24:00" and "00:00", and passed against its "12 pm"."""
FORTNIGHT = 60_000_014.0
"""What "a fortnight" is read as: no date, time nor likely quantity, stated by a page's "fortnight", "two
weeks" or "14 days" (`states_a_fortnight`)."""
_NAMED = {"fortnight": FORTNIGHT, "noon": NOON, "midnight": MIDNIGHT, "couple": 2}
"""Words that name a span of days, a time of a day or two: "within a fortnight" and "at noon", where they
had stated no number, and passed against a page's "30 days" and "11 am"; and "a couple of" two ("a couple
of business days" had passed against 10; not "a couple", two people, nor "a couple of minutes", which says
"a few": `_VAGUE_AFTER_COUPLE`). Read as 14, "a fortnight" had been flagged against a page's "two
weeks"."""
_ON_A_PAGE = {"fortnight": (2.0, 14.0), "noon": (12.0,)}
"""What a named number also is in a page: "a fortnight" 2 weeks and 14 days (`units.NAMED_SPANS` gives
them their units), "noon" 12, so a claim's "two weeks", "14 days" and "12:00" (the hour: `_WHOLE_HOUR`)
are stated by them. A claim's own reads one number, as `_NAMED` says."""
_VAGUE_AFTER_COUPLE = frozenset(("minutes", "mins", "seconds", "secs", "moments"))
"""What "a couple of" counts loosely, as "a few" ("It takes a couple of minutes to activate." had been
flagged against a page's "a few minutes")."""
_DIGITS = {"one": 1, **{w: v for w, v in _UNITS.items() if v < 10 and w != "zero"},
           **{w: v for w, v in _OTHER_UNITS.items() if v < 10}}
_UNITS |= _OTHER_UNITS | _NAMED
_TENS |= _OTHER_TENS
_TEENS_AFTER = {"soixante": {w: v for w, v in _OTHER_UNITS.items() if 10 <= v < 20}}
"""The tens French counts on from with a number of ten to nineteen: "soixante-dix" is 70, "soixante-quinze"
75 (read as 60 and 10, "soixante-dix jours" needed a 10 no page about 70 days has)."""
_TIMES = {"twice": 2, "thrice": 3}
"""How many times, in one word: "twice a day" is "two times a day", and "three times a day" does not state
it. Read alone, never as a tens word's digit or before a scale ("scored twenty twice" is 20 and 2). Not
"once", mostly "after" ("once you return it"), nor "half"."""
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
           "trillion": 1_000_000_000_000,
           "hundert": 100, "tausend": 1_000, "mil": 1_000, "mille": 1_000, "mila": 1_000,
           "millionen": 1_000_000, "millones": 1_000_000, "milioni": 1_000_000,
           "milhões": 1_000_000}
"""The other languages' scales too: "tres mil" is 3000, not 3 (the number words of `_OTHER_UNITS` read
alone had made "tres mil euros" against "3.000 €" lack 3). Not French "millions", English's too, whose
term counts toward an English claim's share (the dev set's figures moved with it)."""
NUMBER_WORDS: frozenset[str] = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES) | frozenset(_TIMES)
"""Spelled-out numbers are compared as numbers, not as terms, so "two years" matches "2 years". A bare
"one" is a function word: it is far more often a pronoun ("one of the reasons") than a quantity; "one
hundred" is still 100."""

# Patterns run on every passage start with a single character class, not `x+`: only then does the regex
# engine skip ahead to candidate positions instead of trying the whole pattern at every character.
SCALE_WORDS = "|".join(_SCALES)
_SUFFIXES = {"k": 1_000, "bn": 1_000_000_000}
"""Scales written after the digits: "10k requests" is 10,000 of them and "$2bn" 2 billion. Not "m":
"5m" is as often 5 metres or minutes as 5 million."""
SCALES = "[\\s-]?(?:" + SCALE_WORDS + r")\b|(?:" + "|".join(_SUFFIXES) + r")\b"
"""What may follow a number's digits as part of it: a scale word or suffix."""
_DIGIT_NUMBER = deferred(r"[0-9][0-9]*(?:,[0-9]+)*(?:\.[0-9]+)?(?:" + SCALES + ")?")
_LEADING_DOT = deferred(r"\.(?<![\w.]\.)(?=[0-9])")
"""A decimal with no leading zero, ".25 mg" and "$.99", read as "0.25" (from its digits, ".25 mg" was 25 mg,
a hundred times the dose): a full stop after no letter, digit or other stop ("v.2", "2.3.1" and "... 5"
hold none). Found by its own pattern, which opens with a literal the regex engine skips to: in the number
pattern it made the engine try every character (+2% of the scoring time)."""
_DIGITS_AND_SCALE = deferred(r"([0-9.,]+)[\s-]?([^\W\d_]*)")
"""The digits, and the scale word after them: a letter of any script ("milhões" had crashed the judge)."""
MONEY_SCALE_LETTERS = r"(?:mn|m|b)\b"
"""After a currency sign "m" and "b" are millions and billions: its digits alone are not the number."""
_MONEY_SCALE = deferred(r"([$€£¥][0-9][0-9,]*(?:\.[0-9]+)?)(" + MONEY_SCALE_LETTERS + ")")
"""After a currency sign "m" and "b" are millions and billions ("$310M", "€1.5B"): there they are no
metres or minutes."""


def _money_scaled(found: re.Match[str]) -> str:
    return f"{found.group(1)} {'billion' if found.group(2) == 'b' else 'million'}"


_WHOLE_HOUR = deferred(r"(?<![0-9:])([0-9]{1,2}):00(?![0-9]|:[0-9])")
""" "9:00" is the hour 9, as "9am" is: read as 9 and 0, it had to have a 0 in the context. Other minutes
are a time of a day (`_CLOCK`); "00:00" and "24:00" are `MIDNIGHT`."""
_MIDNIGHTS = frozenset(("0", "00", "24"))


def _whole_hour(found: re.Match[str]) -> str:
    return f"{MIDNIGHT:.0f}" if found[1] in _MIDNIGHTS else found[1]


def _whole_hour_and_pieces(found: re.Match[str]) -> str:
    """A page's whole hour, and what else it is: "24:00" `MIDNIGHT` and 24, "12:00" 12 and `NOON`. A page
    keeps the pieces a claim's number may be (as its dates do): the passage's fast path finds "24" in
    "24:00" and "12" in "12 pm" (`passages._written`), so the scan must read them too; the hour last, as a
    scale after it is its ("12:00 million" is 12 million, as the fast path reads it)."""
    hour = found[1]
    return f"{MIDNIGHT:.0f} {hour}" if hour in _MIDNIGHTS else f"{NOON:.0f} 12" if hour == "12" else hour


_NAMED_HOUR = deferred(r"(?<![0-9.,:])12(?::00)?[ \u00a0]?(?:(a\.?m|midnight)|p\.?m|noon)\b")
""" "12 am", "12:00 a.m." and "12 midnight" are `MIDNIGHT`, "12 pm" and "12 noon" `NOON`: read as 12,
"12 pm" had stated "open until midnight" and "12 am" "closes at noon"."""


def _named_hour(found: re.Match[str]) -> str:
    return f"{MIDNIGHT if found[1] is not None else NOON:.0f}"


def _named_hour_and_12(found: re.Match[str]) -> str:
    return f"{_named_hour(found)} 12"


_MARKED_MINUTES = deferred(r"[.h](?<=[0-9][.h])[0-5][0-9](?![0-9])")
"""What a time of a day with minutes after a full stop or an "h" holds ("9h30", "9.30 Uhr"): a single
character class the regex engine skips to, so `_MARKED_TIME` runs on texts with one only."""
_HALF_DAY_OR_UHR = r"[ \u00a0]?(?:uhr\b|[ap]\.?m\b)"
_MARKED_TIME = deferred(
    r"(?<![\w.,:$€£¥])([01]?[0-9]|2[0-3])(?:h([0-5][0-9])(?![0-9]|m)|\.([0-5][0-9])(?![0-9])(?="
    + _HALF_DAY_OR_UHR + r"|[ \u00a0]?(?:-|–|bis|to|à|until)[ \u00a0]?[0-9]{1,2}(?:[.:][0-5][0-9])?"
    + _HALF_DAY_OR_UHR + "))")
"""A time of a day written with "h" ("9h30", "17h30", as French writes it) or a full stop before "Uhr",
"am" or "pm" ("9.30 Uhr", "9.30am", or the first of a range "9.30 bis 17.30 Uhr"): the same time as "9:30"
(`_CLOCK`), where they had been 9 and 30, or 9.3, and a page's "de 9h30 à 17h30" had lacked the answer's
"9:30". Not "9.30" alone, a price ("€9.30") or a decimal, nor "1h30m", a duration; "18h00" is 18."""


def _marked_time(found: re.Match[str]) -> str:
    hour, minutes = int(found[1]), found[2] or found[3]
    return str(hour) if minutes == "00" else f"{CLOCK + hour * 100 + int(minutes):.0f}"


_CLOCK_MINUTES = deferred(r":[0-5][0-9]")
"""What a clock time's minutes start with: a literal the regex engine skips to, in the texts holding a
colon, so `_CLOCK` runs on those with such minutes only."""
_CLOCK = deferred(r"(?<![0-9:])([01]?[0-9]|2[0-3]):([0-5][0-9])(?![0-9]|[:.,][0-9])")
""" "3:30" is the time it tells, read as one number, `CLOCK` + hour x 100 + minutes (no date nor likely
quantity): read as 3 and 30, "Check-in starts at 3:30 pm." was stated by a page's "3 pm" and "$30", and
"15:30" by "15:00" and "30 euros". Not a whole hour, which is the hour (`_WHOLE_HOUR`), nor the pieces of
"12:30:45" or of "24:30", no time of a day. "3:30 pm" is not "15:30", as "3 pm" is not "15:00"; a ratio or
a verse ("John 3:16") is read so on both sides alike."""


def _clock(found: re.Match[str]) -> str:
    return f"{CLOCK + int(found.group(1)) * 100 + int(found.group(2)):.0f}"


def clock(hour: float, minutes: str | None) -> float:
    """`hour` and the minutes written after it ("30" of "3:30", or None) as `numbers_in` reads them: a time
    of a day as one number (`CLOCK`), a whole hour or no time of a day as the hour alone."""
    if minutes is None or not "00" < minutes < "60" or not (hour.is_integer() and 0 <= hour <= 23):
        return hour
    return CLOCK + hour * 100 + int(minutes)


def clock_forms(number: float) -> tuple[str, ...]:
    """How a time of a day `numbers_in` reads as one number is written ("9:30" and "09:30"); none for
    another number."""
    if not (number.is_integer() and CLOCK <= number < CLOCK + 2400):
        return ()
    hour, minutes = divmod(int(number - CLOCK), 100)
    return (f"{hour}:{minutes:02}", f"0{hour}:{minutes:02}") if hour < 10 else (f"{hour}:{minutes:02}",)


_UNDERSCORED = deferred(r"(?<![\w.])[0-9]{1,3}(?:_[0-9]{3})+(?![\w.])")
""""60_000" as code writes 60,000 (Python, JavaScript, Rust, Java, Go): read as 60 and 0, a copy of the
documentation's "timeout: 60_000" lacked its 60,000."""


def _joined(found: re.Match[str]) -> str:
    return found.group().replace("_", "")


_GROUPED = deferred(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")

_DECIMAL_ZEROS = (
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0,
    0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50,
    0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0,
    0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50,
    0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6,
    0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
)
"""The zero of each script's decimal digits (Unicode's Nd) but ASCII's: a script's ten digits are
consecutive, zero to nine (Arabic-Indic, Devanagari, full-width, mathematical bold...)."""
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
_SUPERSCRIPT_DIGITS = str.maketrans(_SUPERSCRIPTS, "0123456789\u2212")
_FRACTIONS = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞↉"
_ENCLOSED = ((0x2460, 0x249B), (0x24EA, 0x24FF), (0x2776, 0x2793), (0x3251, 0x325F), (0x32B1, 0x32BF),
             (0x1F100, 0x1F10C))
"""Numbers in a circle, in parentheses or with a full stop ("⑨", "⑼", "⒐"): each one whole number
("⑫" is 12)."""
ENCLOSED_NUMBERS = "".join(f"{chr(first)}-{chr(last)}" for first, last in _ENCLOSED)
"""`_ENCLOSED` as ranges, for a regex's character class."""
OTHER_DIGITS = "".join(chr(zero + digit) for zero in _DECIMAL_ZEROS for digit in range(10)) + _SUPERSCRIPTS \
    + _FRACTIONS + "".join(chr(code) for first, last in _ENCLOSED for code in range(first, last + 1))
"""Every character `ascii_digits` may rewrite: a text with none has nothing for it to do."""
_ARABIC_MARKS = {"\u066b": ".", "\u066c": ","}
"""The Arabic decimal and thousands separators ("١٬٠٠٠٫٥" is 1,000.5)."""
_OTHER_NUMBER = deferred(
    r"[^\x00-\x7f](?:(?<=[^\D0-9])[^\D0-9]*(?:[\u066b\u066c][^\D0-9]+)*"
    r"|(?<=[" + _SUPERSCRIPTS + "])[" + _SUPERSCRIPTS + "]*|(?<=[" + _FRACTIONS + ENCLOSED_NUMBERS + "]))")
"""A number in decimal digits of another script, a run of superscripts, or one fraction or enclosed
number. It starts with one character class, so the regex engine skips ahead to the non-ASCII characters,
and the lookbehind tells which they are."""


def ascii_digits(text: str) -> str:
    """`text` with its numbers in ASCII digits, so "٢٤", "２４" and "24" state one number, and so does
    "𝟐𝟒": a number in any script is one the context must state, and a context may state it in any.
    "2½" is 2.5, "½" alone 0.5, "⑨" is 9. A superscript after a digit is an exponent, read as a number of
    its own as "10^9" is ("10⁹" is 10 and 9, not 10 and 6); after anything else it is a footnote or a
    unit's power ("m²") and stays as it is.

    The text is searched character by character, which cost a tenth of the time reading a passage takes,
    so only texts with one of `OTHER_DIGITS` are (`terms.prepare` says how they are found)."""
    return _OTHER_NUMBER.sub(_in_ascii, text)


def _in_ascii(found: re.Match[str]) -> str:
    run = found.group()
    if run[0].isdecimal():
        return "".join(_ARABIC_MARKS.get(digit) or str(unicodedata.decimal(digit)) for digit in run)
    after_digit = found.start() > 0 and found.string[found.start() - 1].isdecimal()
    if run[0] in _SUPERSCRIPTS:
        return " " + run.translate(_SUPERSCRIPT_DIGITS) if after_digit else run
    value = unicodedata.numeric(run)
    if run in _FRACTIONS:
        decimals = f"{value:f}".rstrip("0").rstrip(".")  # "0.5", "0.333333"; "0" for zero thirds
        return decimals[1:] if after_digit else decimals  # "2" and ".5": "2.5"
    return f" {value:.0f} "


SPELLED_NUMBER = "#"
NUMBER_MARKS = {SPELLED_NUMBER + word: word for word in NUMBER_WORDS}
"""The term of a number word ("#two"), so a text's terms tell which number words it has; a number word in
quotes ("'two'") is marked "#" alone: it is no number, as the words are read for numbers."""
SPELLED = frozenset((SPELLED_NUMBER, *NUMBER_MARKS))


def numbers_in(low: str, spelled: Iterable[float] = (), *, claim: bool = False,
               months: bool | None = None) -> frozenset[float]:
    """The quantities in digits of a prepared text, plus its spelled-out ones (read from its words); a
    `claim`'s full dates are each one number instead of their pieces (`_dates`: "2024-03-15" and "March
    15, 2024" are 20240315).

    Read as its pieces alone, a date was supported by any date sharing them: "March 3, 2024" by
    "2024-03-15" (the month's 3), and "2024-03-15" not by "March 15, 2024", which has no 3. So a claim's
    date needs that date, written in any of the ways `_dates` reads, not a 3 and a 15 somewhere. A passage
    keeps the pieces, so "in 2024" and "on the 15th" are still found in it; its dates are read apart
    (`dates_in`), only for a claim that states one: reading them for every passage cost a tenth of the
    time scoring takes. A claim's day of a month with no year ("each July 1", `months`: its terms name a
    month) is one number too, `MONTH_DAY` + month x 100 + day, so "July 1" is not stated by "April 1".
    The date search runs for a claim with a year and a month's name among its terms (`months`; None: looked
    for in `low`), a hyphen, a slash or a year after a period: a price of 1,250 or a count of 1968 is spared
    it. Looked for as substrings in every claim, the months of seven languages took a claim with a year 7 us
    where the English ones took 3 (and "email" and "junior" held some)."""
    found = set(spelled)
    if _LEADING_DOT.search(low) is not None:
        low = _LEADING_DOT.sub("0.", low)
    if "12" in low and _NAMED_HOUR.search(low) is not None:
        low = _NAMED_HOUR.sub(_named_hour if claim else _named_hour_and_12, low)
    if ":00" in low:
        low = _WHOLE_HOUR.sub(_whole_hour if claim else _whole_hour_and_pieces, low)
    if ":" in low and _CLOCK_MINUTES.search(low) is not None:
        low = _CLOCK.sub(_clock, low)
    if _MARKED_MINUTES.search(low) is not None:
        low = _MARKED_TIME.sub(_marked_time, low)
    if "_" in low:
        low = _UNDERSCORED.sub(_joined, low)
    if "$" in low or "€" in low or "£" in low or "¥" in low:
        low = _MONEY_SCALE.sub(_money_scaled, low)
    _read_digits(low, found)
    dated = claim and not found.isdisjoint(_YEARS) and (
        "-" in low or "/" in low or _DOTTED_YEAR.search(low) is not None
        or (months if months is not None else _NAMES_A_MONTH.search(low) is not None))
    if not dated and not (claim and months):
        return frozenset(found) if found else NO_NUMBERS  # no year, no date: the date search is not run
    dates = [date for date in _dates(low, found) if len(date[2]) == 1] if dated else []  # not "03/04/2024"
    if claim and months:
        days = ((day.start(), day.end(), _month_day(day)) for day in _MONTH_DAY.finditer(low))
        dates += [day for day in days if day[2]]
        dates.sort()
    if dates:
        found = set(spelled)
        _read_digits(_without(low, dates), found)
        for _, _, readings in dates:
            found.update(readings)
    return frozenset(found)


_BEFORE_MAY = deferred(r"\b(?:on|by|from|until|till|through|before|after|since|of|each|every|begins?|"
                         r"starts?|ends?|effective|as of|due)\s+$")
"""What "May" before a day follows to be the month, not the verb ("you may 5 times"): looked for in the
24 characters before it (from the text's start, 10,000 of them had taken 7 s in 100 KB)."""
MONTH_DAY = 40_000_000.0
"""What a day of a month with no year is read as, plus month x 100 + day: no date nor likely quantity."""


def _month_day(day: re.Match[str]) -> frozenset[float]:
    """A `_MONTH_DAY` match as one number, if there is such a day in that month."""
    month, number = (day[1], day[2]) if day[1] is not None else (day[4], day[3])
    if not 1 <= int(number) <= 31 or (month == "may" and day[1] is not None
                                      and _BEFORE_MAY.search(day.string, max(0, day.start() - 24),
                                                             day.start()) is None):
        return NO_NUMBERS
    return frozenset((MONTH_DAY + _MONTHS[month] * 100 + int(number),))



def digits_of(number: float) -> str:
    """How a number is mostly written: "30", "3.5"; to 6 decimals, so check it spells `number` exactly."""
    return f"{number:f}".rstrip("0").rstrip(".")


def number_words(terms: Iterable[str]) -> list[str]:
    """The number words a text's terms mark ("#two" is "two")."""
    return [NUMBER_MARKS[term] for term in NUMBER_MARKS.keys() & terms]


def word_number(words: str) -> float | None:
    """The number one or two number words spell ("two", "twenty", "twenty-five", "twice"), or None."""
    first, _, second = words.replace("-", " ").partition(" ")
    if not second:
        value = _UNITS.get(first, _TENS.get(first, _TIMES.get(first)))
        return None if value is None else float(value)
    if first in _TENS and second in _DIGITS:
        return float(_TENS[first] + _DIGITS[second])
    if second in _TEENS_AFTER.get(first, ()):
        return float(_TENS[first] + _TEENS_AFTER[first][second])
    return None


def may_be_date(number: float) -> bool:
    """Whether a number is one a date is read as (1000-01-01 to 2999-12-31, or a day of a month with no
    year, `numbers_in`)."""
    return (10_000_101.0 <= number < 30_000_000.0 or MONTH_DAY < number < MONTH_DAY + 1300) \
        and number.is_integer()


def dates_in(low: str, numbers: frozenset[float]) -> tuple[frozenset[float], frozenset[float]]:
    """The full dates of a prepared passage whose numbers are `numbers`, each as one number as a claim's
    are (`numbers_in`): both readings of an ambiguous "03/04/2024", and the days of a month written
    without their year in each year the passage writes (`_undated`); and the numbers it writes outside
    the dates read, for `loosely_dated`."""
    years = numbers & _YEARS
    dates = _dates(low, set(numbers)) if years else []
    found = {reading for _, _, readings in dates for reading in readings}
    if years:
        found.update(_undated(low, years))
    found.update(MONTH_DAY + reading % 10_000 for reading in list(found))  # each date's day of its month
    found.update(code for day in _MONTH_DAY.finditer(low) for code in _month_day(day))
    if "/" in low:
        found.update(code for day in _SLASHED_DAY.finditer(low) for code in _slashed_days(day))
    return frozenset(found), numbers_in(_without(low, dates)) if dates else numbers


_SLASHED_DAY = deferred(
    r"(?:" + "|".join(f"(?<=\\b{word} )" for word in (
        "on", "by", "until", "till", "before", "after", "ends", "end", "ending", "el", "le", "am", "bis",
        "hasta", "até", "au", "jusqu'au", "termina", "terminan", "endet"))
    + r")([0-9]{2})/([0-9]{2})(?![0-9]|[/.,][0-9]|\s*(?:[a-z]{0,2}\s)?(?:years?|days?|hours?|minutes?|"
    r"months?|weeks?|nights?|people|persons|personas|años|días|horas|jahre|tage|stunden|ans|jours|heures|"
    r"anni|giorni|ore|anos|dias)\b)")
"""A day and month in two digits each with no year ("15/05", "05/15") after a word a date follows: a page's
"Sale ends 15/05." is the claim's "15 May" or "15 de mayo", which had been flagged as lacking the day.
Two digits each and after such a word, as dates are written: "24/7", "3/4 of our rooms", "sizes 10/12",
"rated 09/10", "from 10/12 years old" and "due 10/12 days after" are no days (three adversarial reviews):
not after "from" nor "due", nor before a unit."""


def _slashed_days(day: re.Match[str]) -> frozenset[float]:
    """A `_SLASHED_DAY` as the days of a month it may be, day first or month first: both where each number
    may be a month ("03/04"), as a passage's ambiguous full dates are read."""
    first, second = int(day[1]), int(day[2])
    readings = {(second, first), (first, second)}  # (month, day)
    return frozenset(MONTH_DAY + month * 100 + number for month, number in readings
                     if 1 <= month <= 12 and 1 <= number <= 31)


def loosely_dated(date: float, low: str, numbers: frozenset[float], outside: frozenset[float]) -> bool:
    """Whether a passage writes `date` in a form not read whole ("Mar-15-2024", "2024-Mar-15", "1–15
    March 2024", "15 and 16 March 2024", "January 8,2024"), as a reader finds it: its year among the
    passage's numbers, its day among those outside the dates read (the 3 of "2024-03-15" is that date's
    month, no day of one), its month by name. Read as its pieces, the claim's date had passed in all of
    these; read whole alone, it was flagged."""
    year, rest = divmod(int(date), 10_000)
    month, day = divmod(rest, 100)
    return ((date > MONTH_DAY or float(year) in numbers) and float(day) in outside and 1 <= month <= 12
            and _MONTH_NAMED[month].search(low) is not None)


def _read_digits(low: str, found: set[float]) -> None:
    """Adds the numbers `low` writes in digits, with their signs, to `found`."""
    numbers = list(_digit_numbers(low))
    negative = _negative_starts(low) if _may_be_signed(low, numbers) else ()
    if negative:
        for number in numbers:
            sign = -1.0 if number.start() in negative else 1.0
            found.update(sign * value for value in _values(number.group()))
        return
    for number in numbers:
        match = number.group()
        try:
            found.add(float(match))  # the common case: "30", "3.5"
        except ValueError:
            found.update(_grouped_or_scaled(match))


def _may_be_signed(low: str, numbers: list[re.Match[str]]) -> bool:
    """Whether `_negative_starts` could find a sign of one of these numbers, which are all it is asked
    about: it searches the whole text (2 us a passage of 200 words on average, most of it for hyphens
    that sign nothing, "built-in"), and each place it finds is a number's first digit right after a "-"
    or "\u2212" (`_SIGN`) or after "minus" (`_MINUS`)."""
    if not numbers:
        return False
    if ("-" in low or "\u2212" in low) and any(low[number.start() - 1] in _SIGNS
                                               for number in numbers if number.start()):
        return True
    return "minus" in low


_SIGNS = frozenset("-\u2212")
"""The characters `_SIGN` reads as a sign."""


def _digit_numbers(low: str) -> Iterator[re.Match[str]]:
    """`_DIGIT_NUMBER.finditer(low)`, found faster in ASCII text: the pattern matches exactly where an
    ASCII digit is, so each match starts at the first digit past the last one's end, which `bytes.find`
    finds in a copy with every digit made "0" and every other byte a space. The regex engine tries its
    first character class at every character (7 us for a passage of 200 words: 60% of reading its
    numbers); the copy and the finds take ~1 us. Other text keeps `finditer`: its characters are no bytes."""
    if not low.isascii():
        yield from _DIGIT_NUMBER.finditer(low)
        return
    marks = low.encode("ascii").translate(_DIGIT_MARKS)
    at = marks.find(b"0")
    while at >= 0:
        number = _DIGIT_NUMBER.match(low, at)
        yield number  # type: ignore[misc]
        at = marks.find(b"0", number.end())  # type: ignore[union-attr]


_DIGIT_MARKS = bytes(ord("0") if byte in b"0123456789" else ord(" ") for byte in range(256))
"""A byte table making ASCII digits "0" and every other byte a space."""


_YEARS = frozenset(range(1000, 3000))
"""The years a date may have. Every date has one, which the number scan has read (2024.0 is found among
these ints): only where it is written is a date looked for, around it. A regex looking for dates' digits
through the whole text had cost a passage with a year 9 us, half the time its numbers took."""
_ENGLISH_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_MONTHS = {
    **_ENGLISH_MONTHS,
    **{name: month for month, names in enumerate((
        "januar jänner januari janvier enero gennaio janeiro",
        "februar februari février fevrier febrero febbraio fevereiro",
        "märz maerz maart mars marzo março",
        "avril abril aprile",
        "mai mei mayo maggio maio",
        "juni juin junio giugno junho",
        "juli juillet julio luglio julho",
        "augustus août aout agosto",
        "septembre septiembre setiembre settembre setembro",
        "oktober octobre octubre ottobre outubro",
        "novembre noviembre novembro",
        "dezember décembre decembre diciembre dicembre dezembro"), start=1) for name in names.split()},
}
"""Months by name in English and in the other languages the judge reads (German, Dutch, French, Spanish,
Italian, Portuguese; full names, and French and German written without their accents): read in English
only, "am 15. Oktober 2024" was the numbers 15 and 2024, and a made-up "15. Oktober" passed against a
page's "15. Mai 2024", while "15. März 2024" was flagged against the page's own "15.03.2024". Those
languages write the day first: only an English name is read before its day ("March 15"), as "Mars 2" is a
probe and "mayo 2" a sauce."""
MONTH_WORDS = frozenset(_MONTHS)
"""The names of months (and their short forms) a day of one is read after or before."""
_DOTTED_YEAR = deferred(r"[0-9]\.[ \u00a0]?[12][0-9]{3}")
"""A year after a digit and a period, which may end a date ("15.03.2024")."""
_MONTH_BACKWARDS = "(" + "|".join(month[::-1] for month in _MONTHS) + ")(?![a-z])"
_ENGLISH_BACKWARDS = "(" + "|".join(month[::-1] for month in _ENGLISH_MONTHS) + ")(?![a-z])"
_AFTER_YEAR = deferred(r"(?:([-/])([0-9]{1,2})\1([0-9]{1,2})(?![0-9])|(?![0-9]|[.,][0-9]))")
"""What follows a year: the month and day of "2024-03-15" or "2024/03/15", or nothing that makes it part
of a longer number ("20245", "2024.5"). After a day, a comma and a digit are a table's next cell (a CSV
row's "2022-09-19,18"), no decimal of it."""
_ORDINAL_BACKWARDS = "(?:ts|dn|dr|ht|re|º\\.?|°(?=1(?![0-9])))?"
_BEFORE_YEAR = deferred(
    r"([-/])([0-9]{1,2})\1([0-9]{1,2})(?![0-9.,])"
    r"|(?:\s*,\s*|\s+)" + _ORDINAL_BACKWARDS + r"([0-9]{1,2})"
    r"(?:(?:\s*[-–]\s*|\s+(?:dna|ot|hguorht)\s+|\s*&\s*)" + _ORDINAL_BACKWARDS + r"([0-9]{1,2}))?\s+\.?"
    + _ENGLISH_BACKWARDS
    + r"|(?:\s*,\s*|\s+)(?:l?ed\s+)?\.?" + _MONTH_BACKWARDS + r"(?:\s+(?:fo|ed))?\s+\.?"
    + _ORDINAL_BACKWARDS + r"([0-9]{1,2})(?![0-9.,])"
    r"|-\.?" + _MONTH_BACKWARDS + r"-([0-9]{1,2})(?![0-9.,])")
"""What comes before a year to make a date, read backwards from the year, as the text before it is
matched reversed: "03/15/" or "15-03-"; "March 15, ", "Mar. 15th ", "January 8," and the ranges "March
1–15, " and "December 24 and 25, " (a date each); "15 March ", "15th of March, ", "15. März ", "1er mars ",
"15 de octubre de ", "15 de octubre del ", "1° maggio ", "1.º de mayo de "; "15-Mar-" (a weekday
before is no part of it: "Friday, March 15, 2024"). One match at the year, where searching the text before
it for these forwards tried each of its characters (2.2 us a year)."""
_DATE_SPAN = 40
"""Characters before a year `_BEFORE_YEAR` reads: "15th of september., " and some spaces."""


def _dates(low: str, found: set[float]) -> list[tuple[int, int, frozenset[float]]]:
    """Where each full date of `low` starts and ends, in order, and the date as one number, year * 10000 +
    month * 100 + day, found around the years among the numbers read from it (`found`). A month's name is
    read in the languages of `_MONTHS`. "03/04/2024" is March 4th in the US and April 3rd elsewhere: a
    numeric date with the year last has both readings, unless one has a month past 12 ("15/03/2024",
    "03/15/2024"). A month and a year ("March 2024") are no date: their year is the number."""
    dates = []
    for at in _year_starts(low, found & _YEARS):
        after = _AFTER_YEAR.match(low, at + 4)
        if after is None:
            continue
        if not at or low[at - 1] not in _IN_NUMBER or (low[at - 1] == "," and (
                after[1] is not None or not low[at - 2:at - 1].isdigit())):
            date = _date_at(low, at, int(low[at:at + 4]), after)
            if not date[2] and low[at - 2:at - 1] == ".":  # "1. 7. 2025", as German writes it with spaces
                date = _dotted_date(low, at, after, _SPACED_DOTTED)
        else:
            date = _dotted_date(low, at, after)
        if date[2]:
            dates.append(date)
    return sorted(dates)


_DOTTED = re.compile(r"(?<![0-9.,])([0-9]{1,2})\.[ \u00a0]?([0-9]{1,2})\.[ \u00a0]?")
"""The day and month before a year in the way German and most of Europe write a date ("15.03.2024", or with
spaces, "1. 7. 2025"), no digit, period or comma before them ("1.15.03.2024" is none)."""


_SPACED_DOTTED = deferred(r"(?<![0-9.,])([0-9]{1,2})\.[ \u00a0]([0-9]{1,2})\.[ \u00a0]")
"""A date written with spaces throughout ("1. 7. 2025"): "4.8. 2024 was its best year" is a decimal ending a
sentence and a year opening the next."""


def _dotted_date(low: str, at: int, after: re.Match[str],
                 dotted: re.Pattern[str] = _DOTTED) -> tuple[int, int, frozenset[float]]:
    """The date "15.03.2024" around the year written at `at`, day first: read as the numbers 15.03 and
    2024, it was no date, and "am 15.03.2024" was not the "15 March 2024" or "2024-03-15" of its page. Not
    after a version's word (`names_a_version`): "release 2.1.2024" is no 2 January 2024."""
    day = dotted.search(low, max(0, at - 8), at)
    if day is None or day.end() != at or after[1] is not None or names_a_version(low, day.start()):
        return at, at, NO_NUMBERS
    return day.start(), at + 4, _date(int(low[at:at + 4]), int(day[2]), int(day[1]))


_VERSION_WORD = deferred(
    r"(?:\b(?:version|versión|versione|versão|release|build|patch|firmware|revision|rev)[\s.:#]{0,2}"
    r"|(?<![^\W\d_])v ?)$")
"""A version's word right before a number ("version 2.1.2024", "Release: 1.10.2024", "v2.1.2024")."""
_VERSION_REACH = 12
"""Characters before a number `_VERSION_WORD` reads: "versione: " and one more."""


def names_a_version(low: str, at: int) -> bool:
    """Whether the dotted number at `at` of the `prepare`d `low` follows a version's word, and so is one
    (`ragmon.text.literals` holds it word for word) even when it reads as a date day first ("release
    2.1.2024"): read as 2 January 2024, a page's date of that day stated the made-up release."""
    return _VERSION_WORD.search(low, max(0, at - _VERSION_REACH), at) is not None


_MONTH_NAMES = "|".join(_MONTHS)
_NAMES_A_MONTH = deferred(r"\b(?:" + _MONTH_NAMES + r")\b")
_AS_THE_WORD = (
    r"(?:may\s+(?:be|not|no|never|also|only|still|even|well|have|apply|vary|change|differ|need|require|take|use"
    r"|get|qualify|receive|remain|return|include|contain|cause|occur|affect|exceed|incur|depend|continue"
    r"|become|help|cost|request|result|lead|choose|want|wish)\b"
    r"|mars\s+(?:rovers?|missions?|landers?|probes?|orbiters?|helicopters?|samples?|colon(?:y|ies)|bases?"
    r"|habitats?|bars?|spacecraft|ships?|flights?|expeditions?)\b"
    r"|mayo\s+(?!(?:de|del|y|al|a|hasta)\b)[a-z])")
_DATE_WORDS = ("after", "before", "until", "till", "by", "on", "from", "since", "through", "el", "del", "al",
               "le", "du", "au", "il", "dal", "desde", "hasta", "do")
_A_DAY = (r"(?:(?![0-9]{1,2}(?:st|nd|rd|th|er|\.?º|°)?\.?[\s/.–-]+" + _AS_THE_WORD + r")|"
          + "|".join(f"(?<=\\b{word} )" for word in _DATE_WORDS) + r")")
"""Where a day before a month's name starts, looked for only at a digit and the words before it only
before such a name (20 look-behinds at every word had cost a passage's date search six times its time):
after a word dates follow ("after 31 May incur a fee", "del 1 mayo"; not "to" nor "and": "up to 3 may be
returned"), or before a name that is no English word going on as that word does: "orders of 3 may be
returned" is no 3 May, "2 Mars rovers" no 2 March, "3 mayo flavours" no 3 May (Spanish writes "3 de
mayo"), while "on 4 March removed", "by 31 May are" and "le 15 mars soit" are dates. The text is lowered
before it is read, and the capitals that tell them apart are gone."""
_DAY_BEFORE = (r"(?<![0-9])(?=[0-9])" + _A_DAY
               + r"[0-9]{1,2}(?:st|nd|rd|th|er|\.?º|°)?[\s/.–-]+(?:(?:of|de)\s+)?")
_MONTH_NAMED = {number: re.compile(
    _DAY_BEFORE + r"(?:" + "|".join(name for name, value in _MONTHS.items() if value == number) + r")\b"
    r"|\b(?:" + "|".join(name for name, value in _ENGLISH_MONTHS.items() if value == number)
    + r")\.?[\s,/–-]*(?:the\s+)?[0-9]") for number in range(1, 13)}
"""A month's name as `loosely_dated` finds it: beside a day, after it ("15 March", "du 1er au 15 mars",
"15 de mayo", "15. Mai", "1er-mars", "15/Mar/2024", "15.März") or, an English one, before it ("March 15",
"Mar-15", "Jan 8,2024", "March the 15th").
Found anywhere, "The Mars 2 probe launched in 1971." stated a made-up "March 2, 1971", and "customers may
return 3 items" in 2024 a made-up "May 3, 2024"."""
_MONTH_DAY = deferred(
    r"\b(?:(" + "|".join(_ENGLISH_MONTHS) + r")\.?\s+([0-9]{1,2})(?:st|nd|rd|th)?"
    r"|(?=[0-9])" + _A_DAY + r"([0-9]{1,2})(?:st|nd|rd|th|er|\.?º|(?<=\b1)°)?\.?\s+"
    r"(?:(?:of|de)\s+)?(" + _MONTH_NAMES + r"))\b(?![.,]?[0-9]|[.,]?\s*(?:del?\s+)?[0-9]{4})")
"""A day of a month with no year of its own ("March 15", "15th of March", "15. März", "1er mars", "15 de
abril"; not "March 15, 2024" nor "15 de abril de 2024")."""


def _undated(low: str, years: frozenset[float]) -> set[float]:
    """A passage's days of a month written without their year, dated in each year the passage writes (at
    most `_FEW_YEARS` of them): release notes under "2024" list "March 15", and a claim's "March 15, 2024"
    is theirs, as its 15 and 2024 were before dates were read whole."""
    if len(years) > _FEW_YEARS:
        return set()
    found: set[float] = set()
    for day in _MONTH_DAY.finditer(low):
        month, number = (day[1], day[2]) if day[1] is not None else (day[4], day[3])
        for year in years:
            found.update(_date(int(year), _MONTHS[month], int(number)))
    return found


def _year_starts(low: str, years: set[float]) -> Iterator[int]:
    """Where these years' digits are written in `low`: found by C-level `str.find`, a tenth of the time a
    regex takes to look at every character, but once per year; past `_FEW_YEARS` (a table, or an attack:
    1,000 to 2,999 in a 1 MB passage had read it 2,000 times) by the regex, once."""
    if len(years) > _FEW_YEARS:
        yield from (year.start() for year in _YEAR_DIGITS.finditer(low))
        return
    for year in years:
        digits = f"{year:.0f}"
        at = low.find(digits)
        while at >= 0:
            yield at
            at = low.find(digits, at + 4)


_FEW_YEARS = 8
_YEAR_DIGITS = deferred(r"[12][0-9]{3}")


_IN_NUMBER = frozenset("0123456789.,")
"""Characters before digits that make them part of another number; a comma only after a digit, or before
a whole "2024-03-15": a CSV row's "Marketing,2022-09-19" and "1044,2022-09-19" are a cell's date."""


def _date_at(low: str, at: int, year: int, after: re.Match[str]) -> tuple[int, int, frozenset[float]]:
    """Where the date around the year written at `at` (followed by `after`) starts and ends, and the dates
    it may be: none when it is no date."""
    if after[1] is not None:
        return at, after.end(), _date(year, int(after[2]), int(after[3]))
    before = _BEFORE_YEAR.match(low[max(0, at - _DATE_SPAN):at][::-1])
    if before is None:
        return at, at, NO_NUMBERS
    start, end = at - before.end(), at + 4
    if before[1] is not None:
        first, second = int(before[3][::-1]), int(before[2][::-1])
        return start, end, _date(year, second, first) | _date(year, first, second)
    if before[4] is not None:
        month = _MONTHS[before[6][::-1]]
        range_start = _date(year, month, int(before[5][::-1])) if before[5] is not None else NO_NUMBERS
        return start, end, _date(year, month, int(before[4][::-1])) | range_start
    if before[7] is not None:
        return start, end, _date(year, _MONTHS[before[7][::-1]], int(before[8][::-1]))
    return start, end, _date(year, _MONTHS[before[9][::-1]], int(before[10][::-1]))


def _date(year: int, month: int, day: int) -> frozenset[float]:
    """The date as one number, if there is such a month and day."""
    return frozenset((float(year * 10_000 + month * 100 + day),)) if 1 <= month <= 12 and 1 <= day <= 31 \
        else NO_NUMBERS


_HOUR_NAMES = {MIDNIGHT: "midnight", NOON: "noon", FORTNIGHT: "a fortnight"}


def shown(number: float) -> str:
    """A number as a reason names it: a date as one ("2024-03-15", not 2.02403e+07; "--07-01" for July 1,
    as ISO 8601 writes a day with no year), a time of a day as one ("15:30", "midnight"), any other in full
    ("1500000", "0.25")."""
    if number.is_integer() and MONTH_DAY < number < MONTH_DAY + 1300:
        day = f"{number - MONTH_DAY:04.0f}"
        return f"--{day[:2]}-{day[2:]}"
    if number in _HOUR_NAMES:
        return _HOUR_NAMES[number]
    if number.is_integer() and CLOCK <= number < CLOCK + 2400:
        return clock_forms(number)[0]
    if number.is_integer() and 10_000_101 <= number < 29_991_232:
        date = f"{number:.0f}"
        if 1 <= int(date[4:6]) <= 12 and 1 <= int(date[6:]) <= 31:
            return f"{date[:4]}-{date[4:6]}-{date[6:]}"
    return f"{number:.15g}"


def _without(low: str, dates: list[tuple[int, int, frozenset[float]]]) -> str:
    """`low` with its `dates` (in order) made a space, so their pieces are no numbers of their own; a
    hyphen straight after one goes too, as it joins a range's end to the date ("March 1-15, 2024",
    "December 24-26"): left before the space, it read the end as negative, and a sentence copied from
    the page was not supported by it."""
    kept, at = [], 0
    for start, end, _ in dates:
        kept.append(low[at:max(at, start)])
        at = max(at, end)
        if low[at:at + 1] == "-" and low[at + 1:at + 2].isdigit():
            at += 1
    kept.append(low[at:])
    return " ".join(kept)


_SIGN = deferred(r"[-\u2212](?<![\w.,][-\u2212])(?=[0-9])")
"""A minus sign's candidates: a hyphen or U+2212 before a digit and after no word, digit or decimal point,
so "10-20", "COVID-19" and "2024-01-05" hold none. Starting with a single character class lets the regex
engine skip ahead to the hyphens."""
_MINUS = deferred(r"(?:^|\(|\b(?:at|to|of|is|was|were|are|be|from|between|and|or|about|around|reach|"
                    r"reaches|reached|hit|hits|fell|drops?|dropped)\s+)minus\s+(?=[0-9])")
""""minus" as a sign: after a word that introduces a quantity ("at minus 20", "between minus 20 and minus
10"), not after one ("100 dollars minus 15", "the price minus 5"), where it subtracts."""


def _negative_starts(low: str) -> set[int]:
    """Where the digits of a negative number start: read as 20, "-20 °C" was supported by "20 °C". A hyphen
    is a sign only after something that is no number, on the same line: "9 -17" is a range written
    loosely, and a hyphen opening a line is a list's bullet ("-20 days for parts"). U+2212 is a minus
    sign wherever it stands."""
    starts = set()
    if "-" in low or "\u2212" in low:
        for sign in _SIGN.finditer(low):
            at = before = sign.start()
            while before and low[before - 1] in " \t":
                before -= 1
            if low[at] == "\u2212" or (before and low[before - 1] != "\n" and not low[before - 1].isdigit()):
                starts.add(sign.end())
    if "minus" in low:
        starts.update(minus.end() for minus in _MINUS.finditer(low))
    return starts


def _values(match: str) -> list[float]:
    try:
        return [float(match)]
    except ValueError:
        return _grouped_or_scaled(match)


NO_NUMBERS: frozenset[float] = frozenset()
"""Shared by the texts that state no number (most): one object, not one allocation per text."""


def spelled_numbers(spaced: str, marks: Iterable[str], *, passage: bool = False) -> set[float]:
    """ "two" -> 2, "twenty-five" -> 25, "three hundred" -> 300, "one million" -> 1e6; a bare "one" is not
    a number; a `passage`'s named numbers are what they also are (`_ON_A_PAGE`). `spaced` is the text with
    its separators made spaces, `marks` the number words' terms among its terms: they say which number
    words occur, and those are found by C-level `str.find` and read with the words that follow. A regex
    over the whole text would try each number word at every character, and splitting a passage into words
    again costs three times as much."""
    starts: list[tuple[int, str]] = []
    for mark in marks:
        word = NUMBER_MARKS[mark]
        at = spaced.find(word)
        while at >= 0:
            end = at + len(word)
            if (not at or spaced[at - 1].isspace()) and (end == len(spaced) or spaced[end].isspace()):
                starts.append((at, word))
                if word in _SCALES:
                    _one_before(spaced, at, starts)
            at = spaced.find(word, end)  # an overlapping occurrence follows a letter: it is no word
    found: set[float] = set()
    end = 0
    for at, word in sorted(starts):
        if at < end:
            continue  # the "five" of "twenty-five", already read
        end = at + len(word)
        after = _WORD.match(spaced, end)
        value: float
        if word in _TENS:
            value = _TENS[word]
            ones = _DIGITS if word not in _TEENS_AFTER else _DIGITS | _TEENS_AFTER[word]
            if after is not None and after[1] in ones:
                value += ones[after[1]]
                end = after.end()
                after = _WORD.match(spaced, end)
        elif word in _UNITS and (word != "couple" or _counts_couple(spaced, after)):
            value = _UNITS[word]
            if passage:
                found.update(_ON_A_PAGE.get(word, ()))
        elif word in _TIMES:
            found.add(float(_TIMES[word]))
            continue
        elif word in _ONE and after is not None and after[1] in _SCALES:
            value = 1
        else:
            continue  # a scale word alone ("hundred") is no quantity
        if after is not None and after[1] in _SCALES:
            value *= _SCALES[after[1]]
            end = after.end()
        found.add(float(value))
    return found


_FORTNIGHT_SPAN = deferred(r"\b(?:(?:2|two)[ -]weeks?|(?:14|fourteen)[ -](?:calendar[ -])?days?)\b")


def states_a_fortnight(low: str) -> bool:
    """Whether a prepared page gives a fortnight in weeks or days ("two weeks", "2-week", "14 days"): asked
    only of the pages a claim's "fortnight" (`FORTNIGHT`) is looked for in, after a substring test."""
    return ("week" in low or "day" in low) and _FORTNIGHT_SPAN.search(low) is not None


COUPLE = SPELLED_NUMBER + "couple"
"""The term of "couple": a content term where no "couple" counts (`counts_a_couple`)."""


def counts_a_couple(spaced: str) -> bool:
    """Whether a "couple" of this text (its separators made spaces) is two of something (`_counts_couple`):
    where none is, "couple" is no number but a word a claim shares with its page ("The rooms fit a couple
    plus one child." had lost it, and had 2 of its 4 terms against "Rooms accommodate a couple")."""
    at = spaced.find("couple")
    while at >= 0:
        end = at + len("couple")
        if (not at or spaced[at - 1].isspace()) and _counts_couple(spaced, _WORD.match(spaced, end)):
            return True
        at = spaced.find("couple", end)
    return False


def _counts_couple(spaced: str, after: re.Match[str] | None) -> bool:
    """Whether "couple" before the word `after` is two of something: "a couple of days", not "a couple"
    (two people) nor "a couple of minutes" (a few, `_VAGUE_AFTER_COUPLE`)."""
    if after is None or after[1] != "of":
        return False
    counted = _WORD.match(spaced, after.end())
    return counted is None or counted[1] not in _VAGUE_AFTER_COUPLE


def _one_before(spaced: str, at: int, starts: list[tuple[int, str]]) -> None:
    """Adds the "one" of "one hundred" and the "a" of "a thousand": a bare "one" is a pronoun and "a" an
    article, so they are read only before a scale (as "a", "up to a thousand dollars" had stated no number,
    and passed against a page's $500). Not "half a million", no million."""
    end = at
    while end and spaced[end - 1].isspace():
        end -= 1
    for one in _ONE:
        start = end - len(one)
        if start >= 0 and spaced.endswith(one, start, end) and (not start or spaced[start - 1].isspace()) \
                and not spaced.endswith("half", 0, max(0, start - 1)):
            starts.append((start, one))


_ONE = ("one", "a")
"""The words read as 1 before a scale word."""


_WORD = deferred(r"\s*(\S+)")
"""The next word, as `str.split` delimits words."""


def _grouped_or_scaled(match: str) -> list[float]:
    """ "1,000" is one number and "1.5 million" another; "1,2,3" (or "2019,2020") is several."""
    digits, scale = _DIGITS_AND_SCALE.fullmatch(match).groups()  # type: ignore[union-attr]
    parts = [digits.replace(",", "")] if _GROUPED.fullmatch(digits) else digits.split(",")
    factor = (_SCALES.get(scale) or _SUFFIXES[scale]) if scale else 1
    return [round(float(part) * factor, 6) for part in parts]


_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
               "七": 7, "八": 8, "九": 9}
_CJK_UNITS = {"十": 10, "百": 100, "千": 1_000}
_CJK_LARGE = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}
_TIME_OR_MONEY = ("[天日年月周週秒元块塊円倍岁歲%％]|小时|小時|分钟|分鐘|星期|个月|個月|工作日|营业日|營業日|"
                  "営業日")
_COUNTED = "[个個件次人台家种種张張本页頁位名步层層期项項条條克米里只双雙箱盒瓶份款]"
_NUMERAL = "[零〇一二两兩三四五六七八九十百千万萬亿億]"
_AFTER_NUMBER = f"(?={_COUNTED}|{_TIME_OR_MONEY})"
_CJK_NUMBER = deferred(
    f"([零〇二两兩三四五六七八九十百千万萬亿億](?<!{_NUMERAL}.){_NUMERAL}*){_AFTER_NUMBER}"
    f"|(一(?<![{_NUMERAL[1:-1]}统唯同之逐专单划均第].)(?:{_NUMERAL}+{_AFTER_NUMBER}|(?={_TIME_OR_MONEY})))"
    r"|([0-9](?<![0-9.].)[0-9]*(?:\.[0-9]+)?)([万萬亿億])")
"""A number in Chinese numerals before what it counts ("七天", "两年", "三十个工作日", "一年保修"), or in
digits with a Chinese scale ("3万", "1.5亿"). Before a counter only: "一般" (usually), "统一" (unified)
and "一些" (some) state no number. A bare 一 is one only before a span of time or money ("一年", "一个月",
"一元"): before other counters it is the article, "一个问题" (a question), as a bare "one" is no number in
English, nor after a character it makes a word with ("统一元数据": unified metadata). Digit by digit
with no 十, 百 or 千 ("二〇二四年") is read so: 2024."""


def chinese_numerals(text: str) -> str:
    """`text` with its Chinese numbers (`_CJK_NUMBER`) in ASCII digits, set apart by spaces: "七天内" ->
    " 7 天内", "3万元" -> " 30000 元". Both sides of a comparison are read so: "7天" in a claim is "七天"
    in its context, and "七天" against "30天" is a number the context does not state, where as characters
    it had passed as one pair of the claim's."""
    return _CJK_NUMBER.sub(_as_digits, text)


def _as_digits(found: re.Match[str]) -> str:
    if found.group(3) is not None:
        value = float(found.group(3)) * _CJK_LARGE[found.group(4)]
    else:
        numerals = found.group(1) or found.group(2)
        if not any(ch in _CJK_DIGITS or ch == "十" for ch in numerals):
            return found.group()  # "万元", "数万": a scale with no number to scale
        value = _chinese_value(numerals)
    return f" {value:.15g} " if value < 1e15 else found.group()


def _chinese_value(numerals: str) -> float:
    """三十五 -> 35, 两百 -> 200, 十二 -> 12, 三万五千 -> 35000; with no unit, digit by digit: 二〇二四 ->
    2024."""
    if not any(ch in _CJK_UNITS or ch in _CJK_LARGE for ch in numerals):
        return float("".join(str(_CJK_DIGITS[ch]) for ch in numerals))
    total = section = number = 0
    for ch in numerals:
        if ch in _CJK_DIGITS:
            number = _CJK_DIGITS[ch]
        elif ch in _CJK_UNITS:
            section += (number or 1) * _CJK_UNITS[ch]
            number = 0
        else:
            total += (section + number) * _CJK_LARGE[ch]
            section = number = 0
    return float(total + section + number)


_SPACE = "[ \u00a0\u202f]?"
"""The space between a number and its unit or currency: French typography writes a non-breaking one there
("5,90\u00a0€", "1\u202f500\u00a0€"), and read as none the number was read the English way."""
_UNIT_AFTER = (r"(?=" + _SPACE + r"(?:€|%|eur\b|euro|kg\b|g\b|mg\b|cm\b|mm\b|m\b|km\b|l\b|ml\b|h\b|min\b|"
               r"uhr\b|jahre|tage|stunden|std\.|wochen|minuten|monate|ans\b|jours|heures|semaines|minutes|"
               r"mois\b|años|días|horas|semanas|minutos|meses|anni\b|giorni|ore\b|settimane|minuti\b|mesi\b|"
               r"anos\b|dias\b))")
"""The units a decimal comma is read before ("2,5 Jahre", "1,5 Wochen", "2,5 Std."): the plurals of
`ragmon.text.units`' European units, as a number with decimals takes."""
_DECIMAL_COMMA = deferred(r",[0-9]{1,2}(?![0-9]|,[0-9])")
"""A comma and decimals, the literal every continental decimal starts its search with."""
_NUMBER_ENDS = r"(?![0-9]|[.,][0-9])"
"""A number's end, a sentence's full stop after it too ("Die Miete beträgt 1.250,50.")."""
_NO_UNIT_PRICE = (r"(?! ?(?:per|a|an|je|pro|par|al|por|/) ?(?:litre|liter|l|kwh|kg|dollars?|usd|gallon|share|"
                  r"unit|pound|gbp|chf|yen)\b)")
"""Not a price per unit after it: "1.850 euros per litre" and "€ 1.859 per litre" keep their decimals."""
_GROUPS = r"[1-9][0-9]{0,2}(?:\.[0-9]{3})+"
"""Thousands grouped by dots, never led by a 0 ("0.125" is no thousand)."""
_CONTINENTAL = deferred(
    r"(?<![0-9.,])(?P<grouped>" + _GROUPS + r"),(?P<grouped_decimals>[0-9]{1,2})" + _NUMBER_ENDS
    + r"|(?<![0-9.,])(?P<unit>[0-9]+),(?P<unit_decimals>[0-9]{1,2})(?![0-9.,])" + _UNIT_AFTER
    + r"|(?<![0-9.,])(?P<sign_after>" + _GROUPS + r")" + _NUMBER_ENDS + r"(?=" + _SPACE + r"€)"
    # Before the word or the code only when a round number: an English rate or price "1.165 euros" stays.
    + r"|(?<![0-9.,])(?P<word_after>[1-9][0-9]{0,2}(?:\.[0-9]{3})*\.[0-9]{2}0)" + _NUMBER_ENDS
    + r"(?=" + _SPACE + r"(?:euros?|eur)\b" + _NO_UNIT_PRICE + ")"
    + r"|(?P<sign>(?<![\w$])(?:€|r\$)" + _SPACE + r")(?P<signed>[0-9]+),(?P<signed_decimals>[0-9]{1,2})"
    + _NUMBER_ENDS
    # With a space after the sign only: "€1.859" a litre of petrol is English.
    + r"|(?P<group_sign>(?<![\w$])(?:r\$ ?|€[ \u00a0\u202f]|eur[ \u00a0]))(?P<signed_groups>" + _GROUPS
    + r")" + _NUMBER_ENDS + _NO_UNIT_PRICE
    # Thousands grouped by spaces, plain ones too (an answer writes "1 500 €" for its page's
    # "1\u202f500\u00a0€"), before the euro only; before other units only with the narrow no-break
    # space, as "Take 2\u00a0500 mg tablets" is 2 tablets.
    + r"|(?<![0-9.,])(?P<spaced>[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+)(?:,(?P<spaced_decimals>[0-9]{1,2}))?"
    r"(?![0-9.,])(?=" + _SPACE + r"(?:€|euros?\b))"
    + r"|(?<![0-9.,])(?P<narrow>[0-9]{1,3}(?:\u202f[0-9]{3})+)(?:,(?P<narrow_decimals>[0-9]{1,2}))?"
    r"(?![0-9.,])" + _UNIT_AFTER,
    re.IGNORECASE)
_PARTS = (("grouped", "grouped_decimals", ""), ("unit", "unit_decimals", ""), ("sign_after", "", ""),
          ("word_after", "", ""), ("signed", "signed_decimals", "sign"), ("signed_groups", "", "group_sign"),
          ("spaced", "spaced_decimals", ""), ("narrow", "narrow_decimals", ""))
"""Each alternative's groups: the whole part, its decimals and the sign kept before it."""
_SEPARATORS = str.maketrans("", "", ". \u00a0\u202f")
_EURO_WORDS = ("eur", "Eur", "EUR")


def _euro_beside_digits(text: str) -> bool:
    """Whether the euro's word or code is written right after a number or right before one ("1.500 Euro",
    "EUR 2.500"), found by literal searches: a pattern opening with a digit's class tested every character,
    and the literal "eur" alone sent a third of the benchmark's made-up passages, and every French one
    ("leur", "heure"), to `_CONTINENTAL` (+9% instructions an example)."""
    for word in _EURO_WORDS:
        at = text.find(word)
        while at >= 0:
            before, after = text[max(0, at - 2):at], text[at + 3:at + 5]
            if (before[-1:].isdigit() or (before[-1:] in _SPACES and before[:1].isdigit())
                    or (after[:1] in _SPACES and after[1:].isdigit())):
                return True
            at = text.find(word, at + 3)
    return False


_SPACES = (" ", "\u00a0", "\u202f")


def _in_english(found: re.Match[str]) -> str:
    for whole, decimals, sign in _PARTS:
        if found[whole] is not None:
            kept = f"{found[sign] if sign else ''}{found[whole].translate(_SEPARATORS)}"
            return f"{kept}.{found[decimals]}" if decimals and found[decimals] is not None else kept
    raise AssertionError(found)  # every alternative has a whole part


def european_numbers(text: str) -> str:
    """`text` with the numbers it writes the continental European way in the English way, each known by
    itself: "1.250,50" (groups and decimals, ending a sentence too), a decimal comma before a unit or a
    currency ("2,5 kg", "5,90 €", "4,75 %", "2,5 Jahre") or after "€" or "R$" ("R$ 5,90"), thousands dots
    before a euro sign or after it and a space ("1.000 €", "€ 1.500", "R$ 2.000"; "€1.859" a litre stays
    English), or before the word or the code when the number is round ("1.500 Euro", "1.000 EUR"; "1.165
    euros", a rate, stays English: read so, "1,5 Euro" had been supported by "1.500 Euro"), thousands
    grouped by spaces before the euro ("1 500 €", "1\u202f500\u00a0€") or by the narrow no-break space
    before another unit, and French typography's no-break space before the unit. Read the English way,
    "2,5" was 2 and 5, so a made-up "5 kg" against "2,5 kg" passed, and "1.000 €" was 1.0. Token by token,
    never by the text around it: a first version that read a whole text the continental way once it held
    one such number read every "4,000 mg" of an English passage citing "[1,2]" as 4.0. What stays
    ambiguous stays English, on both sides alike: "1,500" is 1500, "1.000 Stück" 1.0, a list's "1,2" two
    numbers, "2\u00a0500 mg tablets" 2 and 500."""
    return _CONTINENTAL.sub(_in_english, text) if may_be_continental(text) else text


def may_be_continental(text: str) -> bool:
    """Whether `european_numbers` may rewrite `text`: literal searches, where a digit-first pattern had cost
    an English passage 25 us, and a test for "eur" let it run on every text with "Europe" or "neural" in it
    (+20% instructions)."""
    return ("€" in text or _DECIMAL_COMMA.search(text) is not None or "R$" in text or "r$" in text
            or "\u202f" in text or _euro_beside_digits(text))
