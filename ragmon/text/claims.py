"""Sentences and claims: answers are split once, here, so every judge and metric sees the same claims."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Sequence

from ragmon.model import Claim
from ragmon.text import european
from ragmon.text.abstention import SOURCE_ADJECTIVE, SOURCE_NOUN, is_abstention, is_filler
from ragmon.text.cache import text_cache, wide
from ragmon.text.deferred import deferred
from ragmon.text.letters import GREETING_TERMS, ending, salutation_end
from ragmon.text.numbers import ENCLOSED_NUMBERS, NUMBER_WORDS
from ragmon.text.places import places
from ragmon.text.terms import (
    CITATION_MARK,
    CJK_SOURCES,
    FILE_CITATION,
    FUNCTION_WORDS,
    INVISIBLE,
    INVISIBLE_CLASS,
    STOPWORDS,
    SUPERSCRIPT_CITATION,
    TextProfile,
    is_cjk,
    normalise,
    profile,
    read_terms,
    wordset,
)
from ragmon.text.units import Operand
from ragmon.text.worked_sums import worked
from ragmon.text.wrapper_model import reads_as_wrapper, states_after_comma, talks

_HEADING = deferred(r"[ \t]*#{1,6}[ \t]")
_CAPITALISED = "[A-Z0-9À-ÖØ-Þ]"
"""What a capital's marker must be followed by: "B) Exchanges ...", "B) 30 days", not "B) is correct."."""
_ROMAN = "I{2,3}|IV|VI{1,3}|IX|XI{1,2}"
"""Roman numbers in capitals of two letters or more, to XII: no initial."""
_ITEM_NUMBER = (r"\(?\d{1,3}[.)]|\d\ufe0f?\u20e3|\(?(?:[a-z]|[A-Z](?=\)[ \t]+" + _CAPITALISED + r"))\)|"
                r"(?:i{1,3}|iv|vi{0,3}|ix|xi{0,2}|" + _ROMAN + r")\.")
"""An item's number: "2.", "(2)", "2)", a keycap "2️⃣", "b)", "B)" and "(B)" before a capital, a roman "iv."
or "IV.". Not "I.", "V." or "X.": an initial as often ("V. Smith wrote ..."), an item's only in a list
(`_lettered`)."""
_MARKER = deferred(r"[ \t]*(?:>|[-*+•‣◦▪●" + ENCLOSED_NUMBERS + r"]|" + _ITEM_NUMBER + r"|\[[ xX]\])[ \t]+")
_LABEL_WORDS = ("step", "option", "tip", "method", "approach", "solution", "reason", "way")
_ROMAN_CAPITALS = "IVX"
"""The capitals a roman item number ("II.", "IV.", "XII.") opens with: a marker a capital opens whatever
follows it (a letter's must be followed by a capital, and "V." is a letter's: `_ITEM_NUMBER`, `_lettered`)."""
_PLAIN_OPENINGS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ") - {word[0].upper() for word in _LABEL_WORDS} \
    - frozenset(_ROMAN_CAPITALS)
"""Capitals that open no marker, no step and no note, but for a letter's ("B) ", `_LETTERED`): most
sentences open with one, and a set's test spares them the call that looks (splitting prose had cost 12%
more instructions with it)."""
_LETTERED = frozenset(").")
"""What follows a capital that is an item's letter ("B) ", "B. "): a line opening so is looked at."""
_LETTER_ITEM = deferred(r"([A-Z]|" + _ROMAN + r")\.[ \t]+(?=" + _CAPITALISED + ")")
"""A line's item of a lettered list or a roman one ("B. Exchanges", "IV. Exchanges"), before a capital."""
_ROMAN_BEFORE = {"V": "IV", "X": "IX"}
_ROMAN_AFTER = {"I": "II", "V": "VI", "X": "XI"}
"""The roman numbers before and after the ones of one letter: the neighbours that make "V." an item."""
_LABEL_STARTS = (*(form for word in _LABEL_WORDS for form in (word, word.capitalize(), word.upper())),
                 "**", "__")
_LABEL_PREFIXES = frozenset(start[:2] for start in _LABEL_STARTS)
"""The first two characters of every label start (each is two or more long): a sentence opening with none
("The", "It") is spared the test of all 26 starts."""
_STEP = (r"(?:" + "|".join(_LABEL_WORDS) + r")[ \t]+(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|"
         r"ten)[ \t]*(?:[:.)]|[-–—](?=[ \t]))")
_LABEL = deferred(_STEP + r"[ \t]*|(\*\*|__)(?:" + _STEP + "|" + _ITEM_NUMBER + r")(?:\1[ \t]*|[ \t]+)",
                    re.IGNORECASE)
"""A step's or an option's number opening a sentence ("Step 1: Keep the receipt.", "Option 2 - pay
monthly", in bold too: "**Step 1:**", "**1.**"): it numbers the item as a list's "1." does, and read as
the claim's number it had to be in the context, so a grounded step was flagged. Other words before a
number ("Tier 2:", "Phase 3:") name something the context must hold, and stay."""
_DASHES = r"[ \t]*+:?+-++:?+[ \t]*+"
_UNDERLINE = deferred(r"[ \t]*+(?:=++|\|?+" + _DASHES + r"(?:\|" + _DASHES + r")*+\|?+)[ \t]*+")
"""A line under a title ("Refunds" then "---" or "===") or under a table's header row ("| Plan | Price |"
then "|---|---|"): the line above it names what follows, and is no claim, as a "# " heading is none.
Possessive throughout: runs of spaces that two parts could share were given back one at a time, and a line
of 50,000 spaces took 50 s."""
_BLANK_CLASS = r"[\s" + INVISIBLE_CLASS + "]"
_CITATION = ("(?:" + "|".join((CITATION_MARK, FILE_CITATION, SUPERSCRIPT_CITATION, r"\^[0-9]{1,3}",
                                "[¹²³⁰⁴-⁹]")) + ")")
"""One citation; a run of superscript digits is a run of them. Not `[¹...]+` inside a repeat: a run of
superscripts before no citation was then tried split every way, 4x the time for each 2 more characters
(24 took a second) in `_CITED_BEFORE`, on every sentence the LLM ended so."""
_CITED_AFTER = _CITATION + "*"
_ENDS = r"[.!?…](?<![.!?…].)[.!?…]*[\"'”’)\]*_]*" + _CITED_AFTER + "(?=" + _BLANK_CLASS + "|$"
_CITATION_LAST = frozenset("]】>0123456789¹²³⁰⁴⁵⁶⁷⁸⁹")
"""What a citation ends with (`_CITATION`: "]", "】", "</sup>", "^1", "¹")."""
_CITATION_ENDS = re.escape("".join(sorted(_CITATION_LAST)))
_AFTER_CITATION = "(?<=[" + _CITATION_ENDS + "])"
_RUN_ON = r"|(?:(?<=[a-z" + _CITATION_ENDS + "][.!?])|" + _AFTER_CITATION + r")[A-Z][a-z])"
_WIDE_RUN_ON = (r"|(?:(?<=[^\W\d_A-Z][.!?])|(?<=[" + _CITATION_ENDS + "][.!?])|" + _AFTER_CITATION
                + r")(?![a-z])[^\W\d_]{2})")
"""A full stop, "!" or "?" after a small letter with a capital and a small letter straight after it, no
space between ("...for a full refund.Gift cards are refundable too."): a sentence run on into the next,
as text joined from streamed chunks or extracted from a PDF is. So is one whose citation the next
sentence is glued to, after the mark or before it ("...30 days.[1]Exchanges are free.", an OpenAI
assistant's "...30 days.【4:0†policy.pdf】Exchanges...", "...30 days[1].Exchanges..."): the citation is the
first sentence's, as with a space after it. Only a candidate: `_runs_on` decides."""
_BOUNDARY = deferred(_ENDS + _RUN_ON)
"""A run of sentence marks, tried from its first mark only: every mark of it reaches the same end, so
trying each again read the rest of the run each time, quadratic in a long run not followed by a space.
An invisible character after it ends a sentence as a space does: read as part of a word, a zero-width
space glued the sentence after it onto this one, and a made-up sentence rode on a supported one. So do
the citations an answer puts after its full stop ("...delivery.[1] Exchanges...", ".¹", ".^1",
".【4:0†source】"): the two sentences had been one claim, a made-up one riding on its neighbour. Chinese and
Japanese end sentences with "。", "！" and "？" (full width) and no space: the next sentence starts at once
(`_WIDE_BOUNDARY`, for text that is not ASCII: the alternative made every answer's search 12% slower),
except inside a quotation the sentence goes on after ("「…となります。」と記載されています。"). A capitalised
word straight after the mark may end one too (`_RUN_ON`, `_runs_on`)."""
_WIDE_ENDS = _ENDS + _WIDE_RUN_ON
_WIDE_BOUNDARY = deferred(_WIDE_ENDS + r"|[。！？｡](?<![。！？｡!?].)[。！？｡!?]*+[」』）”’\"')\]]*+"
                            + _CITED_AFTER + r"(?!と|って)")
_EMOJI = ("\u231a\u231b\u23e9-\u23f3\u23f8-\u23fa\u2600-\u2775\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55"
          "\U0001f000-\U0001f0ff\U0001f170-\U0001f7ff\U0001f900-\U0001faff")
"""Emoji, skin tones and flags' letters among them, but no arrow ("Settings → Billing", "➡") and no
number ("❶", "🄂"): those go on with the sentence, or are list markers (`_MARKER`)."""
_IN_EMOJI = _EMOJI + "\ufe0e\ufe0f\u200d\U000e0020-\U000e007f"
_EMOJI_BOUNDARY = deferred(_WIDE_BOUNDARY.pattern + "|(?P<emoji>(?<![" + _IN_EMOJI + "])[" + _EMOJI + "]["
                             + _IN_EMOJI + "]*+)(?=\\s+(?![a-z])[^\\W_])")
"""`_WIDE_BOUNDARY`, and an emoji (with its variation selector, skin tone, or the other emoji a joiner
makes one with it) before a space and no small letter: a candidate end that `_emoji_ends` decides, for
text with an emoji (`_HAS_EMOJI`): the others are spared the alternative. Tried from a run's first emoji
only: each of a run of emoji before no space had read the rest of it again, and 100,000 took seconds."""
_HAS_EMOJI = deferred("[" + _EMOJI + "]")
_LEADING_SPACE = deferred(_BLANK_CLASS + "*")
_INVISIBLE = frozenset(INVISIBLE)
_BLANK = INVISIBLE + "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" \
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""What a sentence is stripped of: invisible characters and whitespace (every character `str.isspace`
takes for it, listed: finding them cost milliseconds at import)."""
_ALWAYS_ABBREV = wordset(
    "e.g i.e eg ie cf vs viz mr mrs ms dr prof st sr jr mt gen col capt lt sgt rev hon gov sen rep pres "
    "approx est sra srta sras sres dra dña dott avv aprox ej bzw inkl vgl"
)
"""Abbreviations after which a sentence practically never ends (a letter's "Prezada Sra. Costa," too; the
Spanish "aprox." and "p. ej.", the German "bzw.", "inkl." and "vgl.": read as ends, "El reembolso tarda
aprox. 5 a 10 días." was two claims, "El reembolso tarda aprox." and "5 a 10 días.")."""
_ABBREV_BEFORE_LOWER = wordset(
    "etc al inc ltd co corp bros jan feb mar apr jun jul aug sep sept oct nov dec "
    "hr hrs yr yrs mo mos wk wks min max incl ins pub ex cfr ca env janv févr fév avr juil déc dept"
)
"""Abbreviations that do end sentences: they end one only when the next word is capitalised. "ca." and
"env." before a word as before a number ("ca. eine Woche", "env. une semaine"), French months ("le 1er janv.
2025"): read as ends there, each cut its sentence in two. "dept." ends "Ask the billing dept. Refunds are
instant." and goes on in "Dept. of Labor" and, after a capital, in "the Billing Dept. Team Lead"."""
_ABBREV_BEFORE_DIGIT = wordset(
    "no nos fig figs vol vols p pp ch sec para art eq ref ext tel nr pág pag apdo kap sez")
"""Abbreviations of a following number ("No. 5", "p. 12", "para. 4", "Nr. 5", a citation's "pág. 5",
"pag. 2", "apdo. 3"). Not "paras", "sect", "chap", "pt", "cl", "pg", "cap",
"abs" or the plurals "págs" and "pagg", which end sentences before a count or a list's next marker too ("It
spans 20 paras. 10 of them are new.", "Set the text to 11 pt. 2. Click Save.", "1. Remove the cap. 2. Fill
the bottle.", "Tighten your abs. 3 sets of 12.")."""
_LONGEST_ABBREVIATION = max(map(len, _ALWAYS_ABBREV | _ABBREV_BEFORE_LOWER | _ABBREV_BEFORE_DIGIT))
"""Letters of the longest word `_is_abbreviation` looks up: a word of more letters, with no period in it
(no initialism), and no number, is no abbreviation, whatever follows."""
_GERMAN_MONTHS = wordset("januar jänner februar märz mai juni juli oktober dezember")
"""German months' names no English sentence opens with."""
_SHARED_MONTHS = wordset("april august september november")
"""German months' names that are English ones too."""
_BEFORE_ORDINAL = wordset("im vom zum zur bis ab dem den des der jeden jedem jeder jedes")
"""German words an ordinal follows ("im 3. Quartal", "ab dem 18. Lebensjahr", "jeden 1. Montag"), none an
English word a number ends a sentence after."""
_COUNTED_AFTER_ORDINAL = wordset(
    "werktag werktages arbeitstag arbeitstages bankarbeitstag geschäftstag kalendertag tag tages woche "
    "monat monats monates jahr jahres jahrestag quartal quartals halbjahr halbjahres lebensjahr "
    "lebensjahres geburtstag mahnung klasse")
"""German nouns an ordinal counts ("am 3. Werktag", "in der 2. Woche", "nach dem 1. Jahr"), read so only
after a German word (`_BEFORE_ORDINAL`, `_BEFORE_COUNTED`): "Tag" opens English sentences too, and after
any word "You can upload up to 12. Tag each photo with a label." was one claim."""
_BEFORE_COUNTED = wordset("am die eine einer einem einen")
"""German words before an ordinal when a noun it counts follows ("am 3. Werktag", "die 2. Mahnung"); before
another word a number after them ends a sentence ("Wir sind am 30. Danach ...")."""
_INITIALISM = deferred(r"(?:[^\W\d_]\.)+[^\W\d_]")
"""U.S, a.m: dotted initialisms end no sentence (nor do they after a prefix: "non-U.S") unless a word a
sentence opens with follows, or after a place's "the" a sentence does (`_opens_after_a_place`)."""
_QUANTITY = deferred(r"[$€£]?(?:[0-9][0-9.,]*[0-9]|[0-9])")
_YEAR = deferred(r"1[0-9]{3}|20[0-9]{2}")
_NEXT_WORD = deferred(r"[^\W\d_]+")


def _abbreviation_at(text: str, word_from: int, mark: int, next_at: int) -> int | None:
    """Where the abbreviation the period at `mark` ends starts, or None when the period ends a sentence; the
    word before it is read from `word_from`, which the caller moves to the start returned: not rereading the
    sentence so far at each abbreviation keeps "x. x. x. ..." linear. `text[next_at]` opens what follows."""
    if mark - word_from > _LONGEST_ABBREVIATION and text[mark - _LONGEST_ABBREVIATION - 1:mark].isalpha():
        return None  # a word longer than every abbreviation, and with no period but its last: none ends it
    before = text[word_from:mark]
    words = before.rsplit(None, 3)
    if words and _is_abbreviation(words, text, next_at):
        return word_from + len(before.rstrip()) - len(words[-1])
    return None


def _after_a_place(words: list[str]) -> bool:
    """Whether the last of `words` (the sentence so far, its last three words split off) is a place's
    initialism after "the", with a word other than "of" before "the" and one more before that ("We ship
    within the U.S.", "orders shipped for the U.S.", "Support is offered by the U.S."): a sentence may end
    there, and a list of prepositions had let "... for the U.S. Refunds are instant." through as one claim,
    the made-up second sentence judged with the first. After "the" opening the sentence ("The U.S.
    Healthcare system costs ...", "In the U.S. Healthcare ...") the initialism opens a name, and cut there,
    "The U.S." was a claim of its own, supported by any page naming the country. Not after "of": "the
    history of the U.S. Healthcare system" goes on with a name far more often than a sentence ends."""
    return len(words) == 4 and words[-2].lower() == "the" and words[-3].lower() != "of"


def _is_abbreviation(words: list[str], text: str, next_at: int) -> bool:
    """Whether the period after the last of `words` (the sentence so far, its last three words split off)
    belongs to an abbreviation rather than ending the sentence; `text[next_at]` is the first character
    after it."""
    written = words[-1].lstrip("(\"'\u201c\u2018[*_")
    word = written.lower()
    if "/" in word:  # a rate's period: "$4.99/mo. or $49.99/yr." had been cut after "mo."
        word = word.rpartition("/")[2]
    previous = words[-2] if len(words) > 1 else ""
    next_char = text[next_at]
    if word == "st" and (previous[:1].isdigit() or (len(words) > 2 and words[-3][:1].isdigit())):
        # A street's after its number ("123 Main St.", "5th St."), which ends a sentence before a capital:
        # "Visit 123 Main St. Refunds take 5 days." had been one claim. A saint's goes on, after a capital
        # too ("in St. Louis", "Mount St. Helens", "Hotel St. Regis").
        return not next_char.isupper()
    if word == "dept" and previous[:1].isupper():
        return True  # a department's name goes on ("the Billing Dept. Team Lead"); "the billing dept." ends
    if word in _ALWAYS_ABBREV:
        # But a time zone in capitals, as "PST." ends one: "Support is open 9 AM-5 PM EST. Refunds take 5
        # days." had been one claim, the true first sentence flagged with the second.
        return written != "EST"
    if "." in word and _INITIALISM.fullmatch(word.rpartition("-")[2]):
        # "U.S.", and "non-U.S." as well: cut there, "citizens living abroad" was a claim alone. But "We
        # ship to the U.S. The fee is 3%." is two sentences.
        if word in _TIMES_OF_DAY:
            return not _opens_after_a_time(text, next_at)
        return not (_opens_sentence(text, next_at)
                    or (_after_a_place(words) and _opens_after_a_place(text, next_at)))
    if len(word) == 1 and word.isalpha():
        return _is_initial(previous, text, next_at)
    if word in _ABBREV_BEFORE_LOWER:
        return not next_char.isupper()
    if word in _ABBREV_BEFORE_DIGIT:
        return next_char.isdigit() or (word in _NUMBER_SIGNS and _numbers_a_code(previous, text, next_at))
    if word == "in" and _QUANTITY.fullmatch(previous) is not None:
        return next_char.islower()  # inches: "It is 12 in. wide." had been cut after "in."
    if word.isdigit() and len(word) <= 2:
        if int(word) <= 31 and (_SPACED_DATE.match(text, next_at) is not None
                or (previous.lower() in _BEFORE_DATE and _SPACED_DATE_CAPITAL.match(text, next_at))
                or (_DAY_OF_DATE.fullmatch(previous) is not None and _YEAR_OR_WORD.match(text, next_at))):
            return True  # a date written with spaces, "ab 1. 7. 2025", "am 3. 6. und"
        return next_char.isupper() and _is_ordinal(previous, text, next_at)
    return False


_TWO_DIGIT_YEAR = r"[0-9]{2}(?=[.,;:!?)]|\s*$)"
"""A year of two digits ends its date: "ab 1. 7. 25." ("10. 2. 25 spare screws" is a step and a count)."""
_SPACED_DATE = deferred(r"(?:0?[1-9]|1[0-2])\.(?:[ \u00a0](?:[0-9]{4}\b|" + _TWO_DIGIT_YEAR
                          + r"|[a-zäöüß])|\s*$)")
"""A month's number after a day's, before a year, a word in small letters or the end ("1. 7. 2025", "am 3.
6. und", "am 4. 5."), as German writes a date with spaces: cut after the day as a sentence, the month opened
the next one as a list item's number and was read as none, so "ab 1. 7. 2025" was supported by "ab 1. 1.
2025". Before a capital only after a word a date follows (`_BEFORE_DATE`): "Set the volume to 10. 2. Press
play." is a step's number, and read as a date it was glued to the sentence before and flagged."""
_SPACED_DATE_CAPITAL = deferred(r"(?:0?[1-9]|1[0-2])\.[ \u00a0][^\W\d_]")
_BEFORE_DATE = frozenset(("am", "ab", "bis", "vom", "zum", "seit", "vor", "nach", "dem", "den", "od", "do"))
"""Words a date follows in German and Czech ("am 4. 6. Danach ...", "od 1. 7. 2025")."""
_DAY_OF_DATE = deferred(r"[0-9]{1,2}\.")
_YEAR_OR_WORD = deferred(r"[0-9]{4}\b|" + _TWO_DIGIT_YEAR + r"|[a-zäöüß]")


_NUMBER_SIGNS = frozenset(("no", "nos", "nr"))
_NUMBERED = wordset(
    "model serial part item order invoice account policy case ticket reference ref product article catalog "
    "catalogue sku claim contract customer member patent phone room flight unit version form document file "
    "registration license licence tracking confirmation booking")
"""Things numbered by a code after "No." ("Model no. XR-200", "Order No. A1234"): cut there, the code and
what followed were a claim of their own. After another word the code may open a sentence ("Is it free? No.
X2 costs more.")."""
_CODE = deferred(r"[A-Za-z]*[0-9][\w-]*|[A-Za-z]+-[0-9]")
"""A code that holds a digit, letters first or not ("XR-200", "A1234")."""


def _numbers_a_code(previous: str, text: str, next_at: int) -> bool:
    """Whether "No." after `previous` numbers the code at `next_at` ("Model no. XR-200"): `previous` is the
    word before it, not an abbreviation, so its set is no abbreviations' (longer words than theirs)."""
    return previous.lower().strip("*_") in _NUMBERED and _CODE.match(text, next_at) is not None


_TIMES_OF_DAY = frozenset(("a.m", "p.m"))
_GOES_ON_AFTER_A_TIME = wordset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri sat sun "
    "eastern central mountain pacific atlantic local standard daylight "
    "january february march april may june july august september october november december")
"""Capitalised words a time goes on with: "5 p.m. Monday through Friday", "9 a.m. Pacific", "10 a.m. May
3"."""


def _opens_after_a_time(text: str, at: int) -> bool:
    """Whether a sentence opens at `at`, after "a.m." or "p.m.": any capitalised word but a day's, a month's
    or a time zone's name, and a name in capitals ("EST"; "I" opens one). Only a function word had opened
    one, as after "U.S." ("U.S. Army"), so "The store closes at 5 p.m. Staff leave later." was one claim,
    and a made-up sentence after a time rode on a true one."""
    following = _NEXT_WORD.match(text, at)
    if following is None or not text[at].isupper():
        return False
    word = following.group()
    return _opens_sentence(text, at) or not ((len(word) > 1 and word.isupper())
                                             or word.lower() in _GOES_ON_AFTER_A_TIME)


_GOES_ON_AFTER_A_PLACE = wordset(
    "army navy air marine marines coast corps postal post department government congress senate house "
    "supreme court courts constitution treasury census bureau embassy consulate customs border patent "
    "office dollar dollars citizen citizens citizenship federal national military armed forces open steel "
    "bank mint secretary president ambassador attorney highway route interstate space geological forest "
    "food parliament commission council charter security general assembly state states")
"""Capitalised words a country's or a body's initialism goes on with as part of a name ("the U.S. Army
is ...", "the U.S. Constitution requires ...", "the E.U. Commission has ...")."""
_FOLLOWED_BY_SMALL_WORD = deferred(r"([^\W\d_]+)[ \t]++(?!(?:of|and|for)\b)[a-z]")
"""A word, then one in small letters that no name goes on with ("Refunds take", not "Food and Drug",
"Department of Labor")."""


def _opens_after_a_place(text: str, at: int) -> bool:
    """Whether a sentence opens at `at`, after "the U.S." or "the E.U.": a capitalised word and a small one
    ("We ship within the U.S. Refunds take 30 days."), unless the name goes on (`_GOES_ON_AFTER_A_PLACE`).
    Only a function word had opened one, so the made-up second sentence rode on the first, which it was
    judged with. Asked only after "the" after another word (`_after_a_place`), which tell a place from a
    person's initials ("J.K. Rowling wrote") and from the subject a sentence opens with ("The U.S. Marshals
    service handles ...")."""
    following = _FOLLOWED_BY_SMALL_WORD.match(text, at)
    return (following is not None and text[at].isupper() and not text[at + 1:at + 2].isupper()
            and following[1].lower() not in _GOES_ON_AFTER_A_PLACE)


def _is_ordinal(previous: str, text: str, next_at: int) -> bool:
    """A German ordinal: a day before a month ("am 15. März"), a number after the word it goes with
    ("ab dem 18. Lebensjahr", "im 3. Quartal"), or between a German word and a noun it counts ("am 3.
    Werktag", `_COUNTED_AFTER_ORDINAL`). Read as sentence ends, "Die Frist endet am 15. März." was two
    claims, "Die Frist endet am 15." and "März.", each quoted so in a report. April, August, September and
    November are English months too, and an English sentence may end with a day and the next open with one
    ("Applications close on June 30. September intake opens ..."): before those a German word must come
    first ("am 1. April"), or a made-up sentence rode on a true one."""
    following = _NEXT_WORD.match(text, next_at)
    after = following.group().lower() if following is not None else ""
    before = previous.lower()
    return (after in _GERMAN_MONTHS or before in _BEFORE_ORDINAL
            or (before in _BEFORE_COUNTED and after in _COUNTED_AFTER_ORDINAL)
            or (before == "am" and after in _SHARED_MONTHS))


_MARKS_RUN = deferred(r"[.!?…。！？｡]+")
_QUOTE_OR_BRACKET_CLOSED = frozenset("\"')”’")


def _goes_on(text: str, mark: int, stop: int) -> bool:
    """Whether the sentence marks from `mark` to `stop`, before a small letter, end a quotation or a
    parenthesis within the sentence ('The sign reads "No refunds." and the clerk agrees.', "The fee (5% of
    the total.) is charged.") or are an ellipsis ("Items such as shoes... are returnable."): the sentence
    goes on after them. Cut there, a report quoted half a claim, and the other half, "and the clerk
    agrees.", as a claim of its own. A citation after a full stop ("days.[1] see ...") is no such mark."""
    run = _MARKS_RUN.match(text, mark, stop).end()  # type: ignore[union-attr]  # a boundary opens with a mark
    marks = text[mark:run]
    return text[run:run + 1] in _QUOTE_OR_BRACKET_CLOSED or "…" in marks or ".." in marks


def _runs_on(text: str, mark: int, stop: int) -> bool:
    """Whether the sentence mark at `mark`, a capitalised word straight after it at `stop` (`_RUN_ON`), ends
    a sentence run on into the next ("...a full refund.Gift cards are refundable too."): read as one
    claim, the made-up second sentence rode on the first, supported by its words. Not when the mark is in
    a name: the word before it must be letters after a space (or the line's start, an opening quote or
    bracket), so "www.example.Com", "docs/Guide.Md", "e.g.The", "a.m.Then", "9am.Then" and "`os.Path`"
    stay whole, and of two letters only a word a sentence may end with ("it", "up": not "os", "np", "St",
    "Dr"); the word after must be a capital and small letters, of three or more (not "Vue.Js",
    "Socket.Io") unless a function word ("It", "We", "Le"), no ending of an address or a file ("Com",
    "Pdf", "Yaml"), and not go on as a name does ("john.Smith@example.com", "pathlib.Path(",
    "os.Path.join"). Capitals before the mark are no small letter ("ASP.NET", "U.S.Army",
    "J.R.R.Tolkien"), nor digits ("3.5", "v2.Beta"); abbreviations (`_is_abbreviation`: "Mrs.Jones",
    "Sra.Costa") are asked after this. A module and a class written bare in prose and followed by a space
    ("import it from ragmon.Example and ...") read as two sentences: a capital straight after a full stop
    is a sentence's far more often, and in backticks or with "(" they are whole."""
    following = _NEXT_WORD.match(text, stop)
    if following is None:
        return False
    word = following.group()
    if not (word[0].isupper() and word[1:].islower()) or word.lower() in _NAME_ENDINGS or (
            len(word) < 3 and word.lower() not in FUNCTION_WORDS):
        return False
    after = text[following.end():following.end() + 2]
    if after and (after[0] in _GOES_ON_AS_NAME or after[0].isdigit() or after == "::"
                  or (after[0] == "." and after[1:].isalnum())):
        return False
    word_end = _before_citations(text, mark) if text[mark - 1:mark] in _CITATION_LAST else mark
    if word_end < mark or (text[stop - 1] in _CITATION_LAST and _before_citations(text, stop) < stop):
        return _cited_word_ends(text, word_end)
    return _word_ends(text, word_end)


def _word_ends(text: str, word_end: int) -> bool:
    """Whether the word ending at `word_end`, before a sentence mark glued to a capitalised word, may end a
    sentence: small letters after a space, of two only one a sentence ends with (`_runs_on`)."""
    start = word_end
    least = max(word_end - _LONGEST_WORD, 0)
    while start > least and (text[start - 1].isalpha() or text[start - 1] in _IN_WORD):
        start -= 1
    if start and not (text[start - 1].isspace() or text[start - 1] in _OPENS_WORD):
        return False  # in a name ("shop.example.Com", "e.g.The"), or no word's length
    before = text[start:word_end].strip(_IN_WORD)
    return before[-1:].islower() and (len(before) > 2 or before.lower() in _SHORT_LAST_WORDS)


def _cited_word_ends(text: str, word_end: int) -> bool:
    """Whether the word ending at `word_end` ends a sentence whose citation is glued to the next one,
    before the mark or after it ("The fee is $5.[1]Exchanges ...", "... 5%[1].Exchanges ...", "... (in 5
    days).[1]Exchanges ...", "... the U.S.[1]Exchanges ...", "... in 2023[1].Exchanges ..."): a citation
    there is a sentence's end more surely than a bare mark, so a number, a percentage, a closed
    parenthesis or an initialism ends one too, each of which had kept the next sentence in the claim. A
    word of letters is still read as before a bare mark ("Dr[2].Smith", "`items[0].Name`" stay whole), and
    an abbreviation ends none ("Dr.[2]Smith")."""
    start = max(word_end - _LONGEST_WORD, 0)
    tokens = text[start:word_end].split()
    token = tokens[-1] if tokens else ""
    bare = token.lstrip(_OPENING_MARKS)
    if not bare or (start and len(token) == word_end - start) or bare.lower() in _ALWAYS_ABBREV:
        return False  # no word's length, or "Dr", "e.g"
    if (bare[-1].isdigit() or bare[-1] in _CLOSED_BEFORE_CITATION or _INITIALISM.fullmatch(bare)) and not (
            text.count("`", max(word_end - _LONGEST_CITATIONS, 0), word_end) % 2):
        return True  # not in code: "`x = 5[1].Name`"
    return _word_ends(text, word_end)


_CLOSED_BEFORE_CITATION = frozenset("%)\"'”’")
_OPENING_MARKS = "([{\"'“‘*"


_CITED_BEFORE = deferred(_CITATION + r"+\Z")
_LONGEST_CITATIONS = 200
"""Characters before a mark looked through for the citations it follows: three marks of 64 and more."""


def _before_citations(text: str, mark: int) -> int:
    """Where the citations right before the mark at `mark` start, and the space before them ("...30
    days[1].", "...30 days [1].", "days^1."): the word a sentence ends with is before them. At `mark` when
    there is none ("v2.", "3."): a digit is no citation but after "^"."""
    cited = _CITED_BEFORE.search(text, max(mark - _LONGEST_CITATIONS, 0), mark)
    if cited is None:
        return mark
    start = cited.start()
    return start - 1 if text[start - 1:start] == " " else start


_LONGEST_WORD = 40
_IN_WORD = "-'\u2019"
_OPENS_WORD = frozenset("([{\"'\u201c\u2018*") | _INVISIBLE
_GOES_ON_AS_NAME = frozenset("@/\\(_=")
_NAME_ENDINGS = wordset("com org net edu gov info biz app dev html htm pdf txt csv json yaml yml xml png jpg "
                        "jpeg gif svg zip docx xlsx pptx exe")
"""A top-level domain or a file's extension after a dot: no sentence opens with one ("example.Com",
"report.Pdf")."""
_SHORT_LAST_WORDS = wordset("it up in on us me so do go to by at of is be we no he my am an as or ok oh "
                            "da ja zu ab là ça ya sí yo él já lá aí eu")
"""Words of two letters a sentence may end with: a name's part mostly is none ("os.Path", "np.Array")."""


def _is_initial(previous: str, text: str, next_at: int) -> bool:
    """A letter alone before a period is an initial ("J. K. Rowling", "by J. Smith") unless it follows a
    quantity, being a unit or a grade ("draws 12 W.", "rated 5 A."), or a capitalised function word of the
    kind sentences open with follows it ("option A. Then", "7.5 W. It"): no name goes on with "It" or
    "The". Read as initials, such letters glued an unsupported sentence onto a supported one. A year is
    no quantity ("Since 2016 J. Powell"), nor is a number a comma ends ("In 1998, J. K. Rowling")."""
    if _QUANTITY.fullmatch(previous) and not _YEAR.fullmatch(previous):
        return False
    return not _opens_sentence(text, next_at)


def _opens_sentence(text: str, at: int) -> bool:
    """Whether a capitalised function word of the kind sentences open with starts at `at` ("The", "It"; not
    "IT" or "ALL", names in capitals: "the U.S. IT help desk")."""
    following = _NEXT_WORD.match(text, at)
    return (following is not None and following.end() - following.start() > 1 and text[at].isupper()
            and not following.group().isupper() and following.group().lower() in STOPWORDS)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of `text`, whitespace excluded: `text[start:end]` is the sentence.

    A newline ends a sentence unless the next line goes on with it (`soft_wraps`); a list item's marker
    ("- ", "2. ", "a) ", "① ", "Step 2: ") is not part of it, and lines that hold no sentence
    (`_skipped_lines`: headings, a list of sources, code fences' lines) are skipped, as is a reasoning
    model's thinking (`_thinking`). A period ends one only when whitespace or an invisible character
    follows (so 3.5 stays whole), or a sentence runs on into the next ("refund.Gift cards": `_runs_on`),
    and the word before it is not an abbreviation. An emoji before a capital may end one too
    (`_emoji_ends`). Invisible characters are stripped from a sentence's ends as whitespace is.
    """
    plain = _plain_spans(text) if text.isascii() and "\n" not in text else None
    if plain is not None:
        return plain
    out: list[tuple[int, int]] = []
    if "<" in text and ("<br" in text or "<BR" in text):
        text = _LINE_BREAK_TAG.sub(_as_newline, text)  # a line as a newline is: soft wraps join it too
    original = text
    if "<" in text and ("<think" in text or "</think>" in text or "<reasoning" in text):
        text = _thinking(text)
    lines = _lines(text)
    # One line opening as no skipped line can is the common answer: spared the look.
    may_skip = len(lines) > 1 or (lines and text[lines[0][0]] in _MAY_SKIP)
    skipped = _skipped_lines(text, lines) if may_skip else ()
    boundary = _BOUNDARY if text.isascii() else (
        _EMOJI_BOUNDARY if wide(text) and _HAS_EMOJI.search(text) else _WIDE_BOUNDARY)
    carried: int | None = None  # where the sentence a line left open (`soft_wraps`) starts
    joins = _joins(text, lines, skipped, original) if len(lines) > 1 else ()
    for at, (pos, end) in enumerate(lines):
        if at in skipped:
            continue
        if carried is None and (text[pos] not in _PLAIN_OPENINGS or text[pos + 1:pos + 2] in _LETTERED):
            pos = _opening(text, pos, end, lines, at)
        first = pos if carried is None else carried  # where the sentence being read starts
        word_from = pos  # where the word before a period can start: not before the last abbreviation
        for b in boundary.finditer(text, pos, end):
            if b.start() < pos:
                continue  # within the marker of the sentence begun at the last boundary
            stop = b.end()
            next_at = _LEADING_SPACE.match(text, stop, end).end()  # type: ignore[union-attr]  # "*" always matches
            if b.lastgroup == "emoji" and not _emoji_ends(text, first, b.start(), next_at):
                continue
            if next_at == stop < end and text[b.start()] in ".!?…" and not _runs_on(text, b.start(), stop):
                continue  # a mark with a word straight after it: "example.Com", "Vue.Js", "os.Path"
            if next_at < end and text[next_at].islower() and _goes_on(text, b.start(), stop):
                continue
            if text[b.start()] == "." and text[b.start() + 1:stop] in _EMPHASIS_CLOSED and next_at < end:
                abbreviation = _abbreviation_at(text, word_from, b.start(), next_at)
                if abbreviation is not None:
                    word_from = abbreviation
                    continue
            if text[stop - 1] in "*_" and next_at < end and _lead_in(text[first:stop]):
                continue
            _append(out, text, first, stop)
            pos = first = word_from = next_at if next_at == end or (
                text[next_at] in _PLAIN_OPENINGS and text[next_at + 1:next_at + 2] != ")") else (
                _opening(text, next_at, end))
        if joins and joins[at]:
            carried = first
        else:
            _append(out, text, first, end)
            carried = None
    return out


_EMPHASIS_CLOSED = frozenset(("", "*", "**", "_", "__"))
"""What may close a period that an abbreviation ends ("**Model No.** 5"): a sentence ending in bold
("**Final sale.** Refunds take 30 days.") ends there, and the period of an abbreviation in bold does
not."""


def _lead_in(sentence: str) -> bool:
    """Whether a sentence in bold or italics is a lead-in read with the next one ("**Good news.** Your plan
    covers two repairs.", "**Short version.** ..."): fewer than three terms, no number, and no word of what
    holds (`_VERDICT_IN_BOLD`). Cut off, each was a claim of its own no page holds, a review found, where
    "**Clearance items are final sale.**" states what it says; so do "**Free pickup.**", "**No fees.**"
    and "**Store credit only.**", which, read with the supported sentence after them, passed on its
    words. A question or filler is still a lead-in with them (`_asks_or_fills`)."""
    if len(read_terms(sentence)[0]) >= _LEAD_IN_TERMS or any(char.isdigit() for char in sentence):
        return False
    words = _NEXT_WORD.findall(normalise(sentence))
    return _VERDICT_IN_BOLD.isdisjoint(words) or _asks_or_fills(sentence, words)


def _asks_or_fills(sentence: str, words: list[str]) -> bool:
    """Whether a short bold sentence holding a negation, "only" or "full" (`_VERDICT_IN_BOLD`) asks, or
    says them of filler only (`_FILLER_IN_BOLD`), and holds no other value or verdict (`_ASSERTING`): "**No
    worries.**", "**Not yet sure?**", "**Full details.**" and "**Only partly.**" lead in, and cut off,
    each was flagged (a review). "**No fees.**", "**Not allowed.**" and "**Free pickup.**" say what holds."""
    if not _ASSERTING.isdisjoint(word for word in words if word != "full"):
        return False
    return sentence.rstrip("*_ ").endswith("?") or all(
        word in _VERDICT_IN_BOLD or word in _FILLER_IN_BOLD for word in words)


_LEAD_IN_TERMS = 3
_FILLER_IN_BOLD = wordset("worries worry problem problems quite exactly yet sure really details answer "
                          "partly rush doubt")
"""Words a short bold lead-in says "no", "not", "only" or "full" of, stating nothing (`_asks_or_fills`)."""


_INERT_AFTER_PERIOD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
"""What a period is never a boundary before: `_BOUNDARY`'s look ahead takes no small letter or digit
("3.5", "e.g", "v2.1"), and neither opens a citation."""


def _plain_spans(text: str) -> list[tuple[int, int]] | None:
    """`sentence_spans` of one line of ASCII prose (most answers), or None for one it cannot tell, which
    `sentence_spans` reads whole. It tells a line with no "!", "?" or "<" that opens with a letter or a
    digit, and whose every period is followed by a space and a printed character, by a small letter or a
    digit, or ends it. Such a period before a space is a boundary `_BOUNDARY` finds (no mark before it, a
    blank after it) and keeps unless an abbreviation ends it (no small letter after a lone "." goes on with
    the sentence: `_goes_on`); one before a small letter or a digit ("3.5", "e.g") is none. So the periods
    are found at C speed, where the pattern was tried at every character (half the time of splitting the
    benchmark's answers), and the rules that could keep a sentence whole are the same calls on the same
    arguments (`_abbreviation_at`; `_opening`, None when it would skip a marker). The sentences but the last
    open after a space on a printed character and end with a period: nothing to strip."""
    if not text[:1].isalnum() or "<" in text or "!" in text or "?" in text:
        return None  # a line opening blank or as a skipped line may, or marks `_BOUNDARY` reads otherwise
    end = len(text)
    if (text[0] not in _PLAIN_OPENINGS or text[1:2] in _LETTERED) and _opening(text, 0, end, [(0, end)], 0):
        return None
    out = []
    first = word_from = 0
    mark = text.find(".")
    while mark >= 0:
        after = text[mark + 1:mark + 2]
        if after == " ":
            next_at = mark + 2
            if not "!" <= text[next_at:next_at + 1] <= "~":
                return None  # a blank after the space, or the line's end
            abbreviation = _abbreviation_at(text, word_from, mark, next_at)
            if abbreviation is not None:
                word_from = abbreviation
            elif (text[next_at] in _PLAIN_OPENINGS and text[next_at + 1:next_at + 2] != ")") or (
                    _opening(text, next_at, end) == next_at):
                out.append((first, mark + 1))
                first = word_from = next_at
            else:
                return None  # a marker opening the next sentence
        elif after and after not in _INERT_AFTER_PERIOD:
            return None
        mark = text.find(".", mark + 1)
    _append(out, text, first, end)
    return out


_NOT_LAST_BEFORE_EMOJI = wordset(
    "a an the and or but nor i my our your their its to of in on at by for from with via into onto per than "
    "not no never don't doesn't didn't can't won't isn't aren't wasn't weren't shouldn't mustn't hasn't "
    "haven't dont doesnt didnt cant wont isnt arent wasnt werent shouldnt mustnt hasnt havent")
"""Words no sentence ends with before an emoji: an article or a preposition ("I ❤️ New York", "ship to 🇺🇸 US
addresses"), and a negation, whose sentence goes on with what it denies ("Do not 🚫 Return opened
software.": cut there, the claim read "Return opened software."). Not every function word: "You can return
it 📦 Gift cards ..." and "... to help you 😊 Refunds ..." end there."""
_INSTRUCTION_VERBS = wordset(
    "tap click press hold open select choose pick call dial text email visit go see view check find use "
    "enter type swipe scroll toggle enable disable download install update upgrade rate rated version")
"""Verbs an instruction names an icon after ("Then open ⚙️ Settings", "please tap 📷 Scan"), ending no
sentence when they are one's command (`_BEFORE_IMPERATIVE` before them); elsewhere they may ("Our lines are
open ☎️ Gift cards ...")."""
_BEFORE_IMPERATIVE = wordset("then and please you to or first next")
_LEAST_WORDS_BEFORE_EMOJI = 3
"""Words the text before an emoji must have to be a sentence of its own: an instruction's verb and an icon's
name ("Email 📧 Support", "Version 2.0 🚀 Released today.", "Free shipping 🚚 On orders ...") are fewer."""
_LOOK_BEFORE_EMOJI = 3 * _LONGEST_WORD
"""Characters before an emoji read for its sentence's words: three of the longest, so that many emoji in
one long sentence are each read at a bounded cost."""
_WORD_BEFORE_EMOJI = deferred(r"[^\W_]+(?:[-.,'’][^\W_]+)*")
"""A word; a number ("4.8", "1,200", "1-800-555-0100") is one."""
_BETWEEN_WORD_AND_EMOJI = deferred(r"(?:[\s)%\"'”’*_`\]】" + _IN_EMOJI + "]|" + _CITATION + ")*+")
"""What may stand between a sentence's last word and the emoji ending it: spaces, a closing bracket or
quote, "%", markdown's emphasis or code marks, a citation, other emoji. Not ">" ("Tap ⚙️ Settings > 💳
Payments"), nor a comma."""


def _emoji_ends(text: str, first: int, emoji: int, next_at: int) -> bool:
    """Whether the emoji at `emoji` ends the sentence begun at `first`, a capital or a digit at `next_at`
    opening the next ("Refunds take 30 days 🎉 Exchanges are free."): read as one claim, a made-up sentence
    after an emoji rode on a supported one. Only when what is before it reads as a sentence of its own:
    three words or more (`_LEAST_WORDS_BEFORE_EMOJI`), the last one a sentence may end with
    (`_NOT_LAST_BEFORE_EMOJI`), nothing but a closing mark or other emoji after it. So an emoji opening the
    sentence ("✅ Free shipping", and after an end: "Great news! 🎉 Your refund ...") ends nothing, nor does
    an icon in an instruction ("Open ⚙️ Settings and choose Billing."), nor one after a negation: cut there,
    a claim was a verb and its icon; "Never ❌" a claim of its own, unsupported beside a supported one; and
    "Do not 🚫", saying nothing, was dropped, the claim left saying the opposite."""
    opening = text[next_at]
    if not (opening.isupper() or opening.isdigit()):
        return False
    start = max(first, emoji - _LOOK_BEFORE_EMOJI)
    words = list(_WORD_BEFORE_EMOJI.finditer(text, start, emoji))
    if len(words) < _LEAST_WORDS_BEFORE_EMOJI:
        return False
    last = words[-1]
    word = last.group().lower().replace("’", "'")
    if word in _INSTRUCTION_VERBS and words[-2].group().lower() in _BEFORE_IMPERATIVE:
        return False
    return (word not in _NOT_LAST_BEFORE_EMOJI
            and _BETWEEN_WORD_AND_EMOJI.fullmatch(text, last.end(), emoji) is not None)


def _joins(text: str, lines: list[tuple[int, int]], skipped: Collection[int], original: str) -> list[bool]:
    """`soft_wraps` of the lines of `text`: only a line right above the next (no blank line between),
    neither skipped, nor in a code block, whose lines are never one sentence, nor holding a reasoning
    model's thinking, blanked in `text` but not in the `original` the sentences are cut from. Empty when no
    line but the last ends open (`_MAY_END_WRAPPED`), as most lines of most answers do not."""
    if not any((text[end - 1].isalnum() or text[end - 1] in _MAY_END_WRAPPED or text[end - 1].isspace())
               and text[pos] != "#" for pos, end in lines[:-1]):
        return []
    apart = [original is not text and original[pos:end] != text[pos:end] for pos, end in lines]
    if "```" in text or "~~~" in text:
        inside = False
        for at, (pos, end) in enumerate(lines):
            if text[pos:end].lstrip(" \t").startswith(("```", "~~~")):
                inside = not inside
            apart[at] = apart[at] or inside
    eligible = [at + 1 < len(lines) and lines[at + 1][0] == end + 1 and at not in skipped
                and at + 1 not in skipped and not apart[at] and not apart[at + 1]
                for at, (_, end) in enumerate(lines)]
    return soft_wraps([text[pos:end] for pos, end in lines], eligible)


def soft_wraps(lines: Sequence[str], eligible: Sequence[bool]) -> list[bool]:
    """For each line, whether the line below goes on with its sentence (`eligible[i]`: whether lines i
    and i + 1 may be one at all). Text wrapped at a width (Markdown's soft line breaks, a PDF's or an
    e-mail's lines) broke "The Starter plan costs\n$79 per month." into two claims, each passing on its own
    words where the sentence was caught, and a page wrapped so hid a price moved from another plan.

    A pair joins (`_wrapped_pair`) only when the lines it starts reach a sentence's end ("." or "!" or "?"
    before a space or the line's end): wrapped prose does, and the lines that must stay apart mostly do
    not: lists written without markers ("flour\nsugar\ntwo eggs"), hours and prices on lines of their
    own, a chat's one thought a line, signatures, addresses, commands, verse. A helper's 203 labelled
    texts, 124 of them lines to keep apart, measured the first version, which joined on the pair alone:
    188 of 292 pairs to keep apart were joined, and 10 made-up lines of a list passed joined to true ones."""
    count = len(lines)
    pairs = [at + 1 < count and eligible[at] and _wrapped_pair(lines[at], lines[at + 1])
             for at in range(count)]
    if not any(pairs):  # most answers of several lines: a list, or paragraphs
        return pairs
    reaches_end = [False] * (count + 1)
    for at in range(count - 1, -1, -1):
        reaches_end[at] = _SENTENCE_END.search(lines[at]) is not None or (pairs[at] and reaches_end[at + 1])
    return [pairs[at] and reaches_end[at + 1] for at in range(count)]


def _wrapped_pair(line: str, below: str) -> bool:
    """Whether `below` may go on with the sentence `line` leaves open. `line` ends in a letter or a digit
    (quotes and brackets looked through: not a sentence's end, a lead-in's colon, code's brace), or in a
    comma after six words or more (not a salutation's: "Sehr geehrter Herr Yilmaz,\nwir danken ..."), and
    holds three words or more (a label, a heading, a list's item is shorter); `below` opens with a small
    letter, a digit or a price, or any word after a function word ("... kostet 49 Euro im\nMonat"); and
    neither is a heading, table row, quote, list item, a "key: value" pair with the other, columns (a tab
    within the line, not one indenting it; " | "), a salutation ("Dear valued customer"), nor opens with a
    label ("sources: ..."), an e-mail address or host name (a signature's), nor is the next of numbered
    lines or figures ("12 rue de la Paix\n75002 Paris")."""
    stripped = line.strip()
    last = stripped.rstrip(_CLOSING)
    opening = below.lstrip()
    words = last.split()
    if (not last or not opening or not (last[-1].isalnum() or (last[-1] == "," and len(words) >= 6))
            or stripped[0] in "#|>" or opening[0] in "#|>"
            or "\t" in stripped or "\t" in opening.rstrip() or " | " in line or " | " in below):
        return False
    first_word = opening.split(None, 1)[0]
    if (len(words) < 3 or "@" in first_word or _ADDRESS.search(first_word) is not None
            or first_word.endswith(":") or _MARKER.match(below) is not None
            or (_KEY_VALUE.match(line) is not None and _KEY_VALUE.match(below) is not None)
            or salutation_end(stripped) == len(stripped)):
        return False
    if first_word[0].isdigit() and (last[-1].isdigit() or stripped[0].isdigit()):
        return False  # figures on lines of their own, or numbered lines ("1 Open the app\n2 Tap Settings")
    return (opening[0].islower() or first_word[0].isdigit() or words[-1].lower() in FUNCTION_WORDS
            or (opening[0] in _CURRENCY_SIGNS and opening[1:2].isdigit()))


_SENTENCE_END = deferred(r"[.!?…。！？][\"')\]”’»*_]*(?:\s+(?!\d)|$)")
"""A sentence's end in a line: not "tel. 912", "1.4.2" or "3.5"."""
_KEY_VALUE = deferred(r"\s*[^\s:=]+(?: [^\s:=]+){0,2} ?[:=] ")
"""A "name: value" or "key = value" line, two words of a name at most."""
_ADDRESS = deferred(r"://|[^\W\d_]\.[^\W\d_]")
"""A link or a host name ("railexpress.fr"), as a signature's last line gives one."""
_CLOSING = "\"')*_`”’»"
"""Marks closing a quote, a parenthesis or emphasis, looked through to the mark before them. Not "]": a
line ending in a citation marker ("... of delivery [1]") ends what it says."""
_CURRENCY_SIGNS = frozenset("$€£¥₹")
_MAY_END_WRAPPED = frozenset(_CLOSING + ",")
"""What a line `_wrapped_pair` may take as open can end with but a letter, a digit or a space of any kind:
most lines of most answers end in ".", ":" or "?", and are spared the look (it had cost a multi-line
answer +60%)."""


_REASONING = deferred(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.DOTALL)


_LINE_BREAK_TAG = deferred(r"<br\s*/?>", re.IGNORECASE)
"""HTML's line break, as answers written for a web chat widget put it between sentences and list items
("Refunds take 30 days.<br>Exchanges are free."): read as no space, it glued the sentence after it onto
the one before, and a made-up sentence rode on a supported one."""


def _as_newline(tag: re.Match[str]) -> str:
    """A line break's tag as a newline and spaces: the same length, so what follows keeps its offsets."""
    return "\n" + " " * (len(tag.group()) - 1)


def _thinking(text: str) -> str:
    """`text` with a reasoning model's thinking as spaces, so that what follows keeps its offsets. An app
    that does not strip it sends it with the answer ("<think>The user asks about refunds.</think>"): what
    the model weighed, not what it answered. One never closed (a reply cut at its token limit) runs to the
    end; one never opened (DeepSeek-R1's template puts "<think>" in the prompt, so the reply opens inside
    it) from the start to the first "</think>"."""
    close = text.find("</think>")
    if close >= 0 and "<think>" not in text[:close]:
        close += len("</think>")
        text = " " * close + text[close:]
    return _REASONING.sub(_blank, text)


_FENCE_OR_TAG = deferred(
    r"[ \t]*+(?:(?:```|~~~)[`~]*+[ \t]*+[\w+#.-]*+|(?:</?[A-Za-z][\w-]{0,30}>[ \t]*+)++)[ \t]*+")
"""A code block's opening or closing line ("```json": its language's name is no claim, the code is), or a
line of tags only ("<answer>", "</answer>")."""
_BOLD_LINE = deferred(r"[ \t]*+(\*\*|__)(?:(?:step[ \t]+)?(?:[0-9]{1,2}|[a-z])[.)][ \t]+)?"
                        r"([^*_.!?\n]{1,120})(\?)?\1[ \t]*+:?[ \t]*+", re.IGNORECASE)
"""A line all in bold, its number in a list of sections with it ("**1. Return window**", "**A) Fees**",
"**Step 2. Ship it**"): a chat model's numbered headings had been cut after the number, "Return window**"
left a claim no context holds."""
_MAY_BE_SKIPPED = frozenset("`~*_< \t")
_MAY_SKIP = _MAY_BE_SKIPPED | {"#", "["}
"""What a line `_skipped_lines` skips may open with, when it is the text's only line."""


_LONGEST_BOLD_TITLE = 3
"""The most words of a title in bold written in sentence case ("**Key takeaways**"): "**Refunds take 30
days**" is a claim in bold."""
_JOINING = wordset(
    "a an the your my our their his her its this these those another other for on in of to with about from "
    "at by per into after before and or vs "
    "der die das den dem des ein eine einen einem einer eines ihr ihre ihren ihrem ihres dein deine deinen "
    "unser unsere für von vom zum zur mit bei beim nach vor durch über auf im an am aus und oder "
    "le la les l un une des du de d votre vos ton ta tes sa ses notre nos pour sur dans avec à au aux en "
    "et ou "
    "el los las una unos unas su sus tu tus nuestro nuestra del al a para por con sobre y o "
    "il lo i gli uno dei degli delle della dello di da dal dalla per su sul sulla nel nella e tuo tua "
    "vostro vostra suo "
    "os as um do dos das em no na nos nas seu seus suas")
"""Function words a noun phrase is joined with, in each language read: determiners, possessives,
prepositions and conjunctions, no auxiliary, pronoun or negation, which make a line a statement ("**Your
refund is on its way**")."""
_DETERMINERS = wordset(
    "the a an your my our their this these those another der die das den dem des ein eine ihr ihre dein "
    "deine unser unsere le la les l un une votre vos ton ta tes sa ses notre nos el los las una su sus tu "
    "tus nuestro nuestra il lo i gli uno os as um uma o seu sua seus suas")
"""What a heading joined by other function words opens with ("**Your subsidy rate**", "**Votre
situation**"): one opening with its noun is joined only by "of" (`_OF`): "**Pets on board**" and
"**Refunds for everyone**" say what holds (a third review)."""
_OF = wordset("of de di du des da do dos das del della dei von")
_CLAUSE_OR_FIGURE = deferred(r"[,:;0-9]|\b(?:" + "|".join(sorted(NUMBER_WORDS)) + r")\b")
"""A comma, colon or semicolon (a clause of its own: "**If you cancel, you get a full refund**", "**Who
qualifies: all residents over sixty**"), or a figure: not in a title that asks or sets a case."""
_STATING = wordset("est était sont ist war sind wird es son está están era fue è sono é estão foi hat "
                   "tiene")
"""Verbs of being and having that `FUNCTION_WORDS` leaves out, which make a line a statement: "**Votre
remboursement est refusé**", "**Die Rückerstattung ist kostenlos**"."""
_WH_HEADING = deferred(r"(?:how|what|when|where|which|who|if|whether|wie|was|wann|wo|wenn|falls|comment|"
                       r"quand|où|si|cómo|qué|cuándo|dónde|quando|dove|onde)\b", re.IGNORECASE)
"""A bold line opening with a question word or "if", over another line, titles what follows ("**How to
apply**", "**What happens now**", "**If service is disconnected**"): a clause that asks or sets a case
asserts nothing. So does a question in bold ("**Are all hours covered?**"). Not with a negation: "**Why the
crown isn't covered**" says that it is not. Not "como" nor "come", "as" as often as "how", nor "why",
which takes for granted what it explains ("**Why members pay less**", a third review)."""
_LONGEST_ASKING_TITLE = 4
"""The most words of such a clause: "**If you cancel you lose the discount**", "**Why we charge a cleaning
fee**" state what happens (a second review of the first version, which took ten)."""
_LONGEST_QUESTION_TITLE = 5
"""The most words of a question in bold: "**Did you know members get priority boarding?**" tells."""
_TELLING = deferred(r"(?:did|do) you know\b|(?:wussten|wusstest) (?:sie|du)\b|(?:saviez|savez)-vous\b|"
                    r"(?:sabías|sabía|sabia|sabias) que\b|lo sapevi\b", re.IGNORECASE)
"""A question in bold that tells the user something ("**Did you know we match any lower price?**")."""


def _bold_title(text: str, pos: int, end: int, below: tuple[int, int] | None) -> bool:
    """A line all in bold, without a sentence's mark, whose every word of four letters or more is
    capitalised ("**Return Window**"), is a title as "## Return Window" is, unless it says what holds
    (`_states_what_holds`: "**Full Refund Within 60 Days**"); so is one in sentence case
    ("**Important notes**", "**Gift cards**") over another line (`below`), of at most `_LONGEST_BOLD_TITLE`
    words, no digit and no function word (`_names_only`, which reads it over a list's item otherwise).
    "**Clearance items are final sale**", "**No refunds**" and "**Refunds take 30 days**" are claims in
    bold; so is Chinese or Japanese, whose words no space counts ("**礼品卡不可退款**", gift cards are
    non-refundable). Over another line, such a title may be joined by determiners and prepositions after
    a determiner (`_JOINING`, `_DETERMINERS`: "**Your subsidy rate**") and by "of" after its noun (`_OF`:
    "**Plazos de cobro**"), and a short clause asking or setting a
    case (`_WH_HEADING`: "**How to apply**") or a short question in bold is a title, none with a word of
    what holds (`_ASSERTING`: "**Free returns for members**", "**Why your claim was approved**"), a clause
    after a comma or colon, or a figure. Longer, a bold line is as often a sentence ("**The warranty covers
    water damage**", "**If you cancel you lose the discount**"): a second review of the first version,
    which took six words and ten."""
    bold = _BOLD_LINE.fullmatch(text, pos, end)
    if bold is None:
        return False
    title = bold.group(2)
    words = title.split()
    if bold.group(3) is None and all(word[0].isupper() for word in words if len(word) > 3):
        return not _states_what_holds(title, section=below is not None)
    if below is None:
        return False
    low = normalise(title)
    read = _NEXT_WORD.findall(low)
    question = bold.group(3) is not None
    if question or _WH_HEADING.match(title) is not None:
        longest = _LONGEST_QUESTION_TITLE if question else _LONGEST_ASKING_TITLE
        return (len(words) <= longest and "n't" not in low and not _CLAUSE_OR_FIGURE.search(low)
                and _NEGATING.isdisjoint(read) and _VALUES.isdisjoint(read)
                and (question or _ASSERTING.isdisjoint(read)) and _TELLING.match(title) is None)
    if len(words) > _LONGEST_BOLD_TITLE:
        return False
    over_list = _is_item(text, below)
    joined = _JOINING if read[:1] and read[0] in _DETERMINERS else _OF
    return _names_only(title, over_list) or (
        _names_only(title, over_list, joined) and not _CLAUSE_OR_FIGURE.search(low)
        and _STATING.isdisjoint(read) and _ASSERTING.isdisjoint(read))


def _is_item(text: str, line: tuple[int, int]) -> bool:
    """Whether `line` is a list's item ("- 24/7 support", "1. An ID"), not a quotation's line."""
    marker = _MARKER.match(text, *line)
    return marker is not None and not marker.group().lstrip().startswith(">")


def _skipped_lines(text: str, lines: list[tuple[int, int]]) -> set[int]:
    """The indices of the lines that hold no sentence: a markdown heading (a "# " line, a title underlined,
    a table's header row, a title in bold), a list of sources (`_source_lines`), a code fence's line, a
    line of tags."""
    skipped = _source_lines(text, lines) if len(lines) > 1 or "]:" in text else set()
    for at, (pos, end) in enumerate(lines):
        if (_HEADING.match(text, pos, end)
                or (text[pos] in _MAY_BE_SKIPPED
                    and (_FENCE_OR_TAG.fullmatch(text, pos, end)
                         or _bold_title(text, pos, end, lines[at + 1] if at + 1 < len(lines) else None)))
                or (at + 1 < len(lines) and (_underlined(text, lines[at], lines[at + 1])
                                             or _list_title(text, lines[at], lines[at + 1])))
                or (wide(text) and _CJK_TITLE.fullmatch(text, pos, end) and not _cjk_item(text, lines, at))):
            skipped.add(at)
    return skipped


def _blank(found: re.Match[str]) -> str:
    """The text found as as many spaces, so that what follows keeps its offsets."""
    return " " * len(found.group())


_BEFORE_SOURCES = r"[ \t>#*_(\[<（]*"
_SOURCES_LINE = deferred(
    _BEFORE_SOURCES + "(?:[" + _EMOJI + "][" + _IN_EMOJI + "]*" + _BEFORE_SOURCES + r")?(?:sources?|"
    r"references?|citations?|bibliography|" + european.SOURCES + "|" + CJK_SOURCES
    + r")[ \t*_]*([:：][ \t*_]*|>|$)", re.IGNORECASE)
"""A sentence naming the answer's sources ("Sources: doc-1, policy.pdf.", "<sources>kb-12</sources>"), or a
line opening a list of them ("**References:**", "## Sources"), an emoji before it too ("📚 Sources:"): a chat
answer's list under one had made an unsupported claim of each of its entries."""
_MAY_OPEN_SOURCES = frozenset(" \t>#*_([<sSrRcCbBqQfF（来來出参參资資引")
"""What a line `_SOURCES_LINE` matches opens with but an emoji: other lines are spared the pattern."""
_ENTRY = deferred(r"[ \t]*+(?:(?:[-*+•]|\d{1,3}[.)]|\[[^\]\n]{1,64}\])[ \t].{0,300}|\S{1,300})")
"""An entry of a list of sources: an item ("- Refund Policy, p. 3", "[2] policy.pdf") or a bare id or
address ("doc-1")."""
_AUXILIARIES = frozenset(("is", "are", "was", "were", "be", "been", "will", "can", "cannot", "must", "may",
                          "might", "should", "would", "could", "has", "have", "had", "does", "do", "did"))
"""Words a footnote's title has none of: "[1] Batteries are covered for 5 years" is a claim."""
_FOOTNOTE = deferred(r"\[([^\]\n]{1,64})\][ \t]+[^\n]{0,79}[^\n.!?]")
"""An answer's closing line naming the source of a mark it cites ("[1] security", "[2] Refund Policy"),
with no heading above: the lines of such a block end the answer, each label cited before it. A title, not
a sentence: at most 80 characters, ending in no full stop ("[1] Refunds take 30 days." is a claim)."""
_DEFINITION = deferred(r"[ \t]*\[\^?[^\]\n]{1,64}\]:[ \t]")
"""A markdown link or footnote definition ("[1]: doc-1", "[^2]: policy.pdf")."""
_NOTE = deferred(r"(?:\((?:sources?|references?|citations?|see)\b[^()\n]{0,200}\)|\[(?:sources?|"
                   r"references?|citations?|see)\b[^\[\]\n]{0,200}\]|[（(](?:" + CJK_SOURCES
                   + r")[：:][^()（）\n]{0,200}[）)])[ \t。]*", re.IGNORECASE)
"""A note of the sources opening a sentence, after the full stop of the one it belongs to ("... sale.
(Source: Refund Policy) Electronics ...", "[Source: policy.pdf]" too): no part of the next one. In square
brackets it had been, and the sentence it opened read as a note of sources (`_SOURCES_LINE`): no claim,
so a made-up sentence after it was never checked."""


def _source_lines(text: str, lines: list[tuple[int, int]]) -> set[int]:
    """The lines of `lines` that list the answer's sources: a line opening a list ("Sources:") and the
    entries after it (`_ENTRY`, blank lines between them or not), and `_DEFINITION`s. Answers told to cite
    end with such a list, whose ids and names no context holds: it had made an unsupported claim of each
    line, halving a grounded answer's score. The list ends at a line that is no entry, which is read as
    the claims it holds."""
    listed: set[int] = set()
    in_list = False
    for at, (pos, end) in enumerate(lines):
        heading = _SOURCES_LINE.match(text, pos, end) if (
            text[pos] in _MAY_OPEN_SOURCES or _HAS_EMOJI.match(text, pos)) else None
        in_list = (heading is not None and heading.end() == end) or (
            in_list and _ENTRY.fullmatch(text, pos, end) is not None)
        if (in_list or _DEFINITION.match(text, pos, end)) and not _states_beside_source(text[pos:end]):
            listed.add(at)
    return listed | _footnotes(text, lines)


def _footnotes(text: str, lines: list[tuple[int, int]]) -> set[int]:
    """The closing block of `_FOOTNOTE` lines, when the answer cites each label before it, after some
    text ("... later [1]."): a line opening with its mark ("[1] The warranty is 2 years.") is a claim, and
    so is one of the block that states what holds beside its source's name (`_states_beside_source`: "[2]
    Gift card FAQ - refunds to store credit within 60 days"), the others still none."""
    labels: dict[int, str] = {}
    at = len(lines) - 1
    while (at > 0 and len(labels) < _MOST_FOOTNOTES and text[lines[at][0]] == "["
           and (note := _FOOTNOTE.fullmatch(text, *lines[at]))):
        labels[at] = note.group(1)
        at -= 1
    body = text[:lines[at + 1][0]] if labels else ""
    if not all(_cited(body, f"[{label}]") for label in labels.values()):
        return set()
    return {line for line in labels if not _states_beside_source(text[lines[line][0]:lines[line][1]])}


_MOST_FOOTNOTES = 64
"""Lines of a closing block of footnotes read at most: each is a search of the answer for its mark, and a
hostile block of thousands had made the search quadratic."""


_USE_OF_SOURCE = deferred(
    r"[-–—:(,;][ \t]*+(?:used (?:for|in|to)|for|about|covers|covering|regarding)\b[^,;)\n]{0,200}|\b(?:this|"
    r"that|which|it|the (?:relevant |main |key )?(?:parts?|sections?|passages?|pages?|document|source|one))"
    r"[ \t]+(?:is|was|are|were)\b", re.IGNORECASE)
"""What a source's entry says of its use or of itself, not of what holds: "d1 (Hotel guest information) –
used for check-out times and the free shuttle", "Returns policy: the relevant part is the refund section"
had been flagged (a review). A clause after a comma or semicolon is still read ("- Gift card FAQ: for
members, refunds are free"), and so is a verb the source's name is not the subject of ("..., which also
says return shipping is free")."""


def _states_beside_source(text: str) -> bool:
    """Whether a line or a note read as naming a source (an entry under "Sources:", a "[^1]: ..."
    definition, a closing footnote, a "(Source: ...)" note, the text after "Source:") states what holds
    beside the name: an auxiliary (`_AUXILIARIES`, as a footnote's title has none), a value or a verdict
    in small letters (`_ASSERTING`: a title capitalises its words, "Source: Excluded Services & Other
    Covered Services"), or a number with a unit. Each had dropped a made-up fact: "[^1]: Return shipping
    is free for all orders.", "- Gift card FAQ: gift cards can be refunded within 60 days" after
    "Sources:", "Source: Returns Policy, which also says return shipping is free.", "(Source: Returns
    Policy; restocking fee waived for members)", "[2] Gift card FAQ - refunds to store credit within 60
    days". A source's name, its id, page, section or year ("- Returns Policy (doc-1)", "[1]: policy.pdf",
    "KB-1234, p. 3", "Fuentes: es-shipping") holds none; nor does what it was used for or the part cited
    (`_USE_OF_SOURCE`). Asked only of what those patterns matched."""
    text = _USE_OF_SOURCE.sub(" ", text)
    small = [word for word in _NEXT_WORD.findall(text) if word.islower()]
    return (not _AUXILIARIES.isdisjoint(_NEXT_WORD.findall(normalise(text)))
            or not _ASSERTING.isdisjoint(small)
            or (any(char.isdigit() for char in text) and bool(profile(text).units)))


def _cited(body: str, mark: str) -> bool:
    """Whether `mark` follows some text in `body`, not a line's start (among its first `places`)."""
    return any(at and body[at - 1] != "\n" for at in places(body, mark))


def _underlined(text: str, line: tuple[int, int], below: tuple[int, int]) -> bool:
    """Whether `line` is a title or a table's header row: the line `below` comes right after it and
    underlines it. A line ending a sentence is none, nor is a list item or a table row over a line of
    dashes: such a "---" is a separator written without a blank line (markdown would make a sentence
    over it a heading), and the item is still a claim. A row is a header only over a row of dashes. A line
    of prose that states what holds (`_states_what_holds`: "Perishable goods can be returned within 7
    days" over "---") is a sentence before a rule, and a claim; a header row names its columns whatever
    they hold ("| Account | 2025 limit |")."""
    pos, end = line
    start, stop = below
    if start != end + 1 or text[start] not in "=-|: \t" or text[end - 1] in ".!?":
        return False
    if ("|" in text[pos:end]) != ("|" in text[start:stop]) or _MARKER.match(text, pos, end):
        return False
    return _UNDERLINE.fullmatch(text, start, stop) is not None and (
        "|" in text[pos:end] or not _states_what_holds(text[pos:end]))


def _list_title(text: str, line: tuple[int, int], below: tuple[int, int]) -> bool:
    """Whether `line` is a list's item that only names the items nested under it ("- Pricing" over "  -
    The Pro plan costs $40."): a title, as "**Pricing**" is (`_bold_title`: every word of four letters or
    more capitalised, no sentence mark). Read as a claim, a word no context holds was an unsupported one.
    An item that says something ("- Exchanges are free" over "  - within 30 days") stays a claim."""
    pos, end = line
    if text[pos] not in _MAY_OPEN_LIST or text[end - 1] in ".!?:" or not text[below[0]].isspace():
        return False
    item, child = _MARKER.match(text, pos, end), _MARKER.match(text, *below)
    if item is None or child is None or _indent(text, below) <= _indent(text, line):
        return False
    title = text[item.end():end].strip("*_")  # "- Free Lifetime Warranty" states it (`_states_what_holds`)
    return (all(word[0].isupper() for word in title.split() if len(word) > 3) and _names_only(title, True)
            and not _states_what_holds(title, over_list=True))


_NEGATING = frozenset((*european.NEGATION_WORDS, "no", "not", "never", "without", "none", "sin", "ohne",
                       "sans", "senza", "sem", "nunca", "jamais", "nie"))
"""Words that make a short line a verdict ("No refunds", "Keine Rückerstattung", "Sin reembolsos"), not a
title naming what follows."""


_DENIALS = wordset(
    "unavailable uncovered disallowed prohibited forbidden excluded ineligible nonrefundable non-refundable "
    "unsupported waived inapplicable impossible")
"""Verdicts that deny what the line names ("Refunds unavailable", "Items excluded"): over a list they
still make it a claim (`_names_only`)."""
_VERDICTS = _DENIALS | wordset(
    "available covered allowed permitted required included eligible accepted refundable supported "
    "guaranteed applicable possible")
"""Words that state what holds of what the line names when they come after it ("Refunds unavailable",
"Returns accepted"); before it they only say which ones ("Supported devices", "Required documents")."""


_VALUES = wordset(
    "free full unlimited lifetime instant instantly complete approved denied rejected refunded included "
    "gratis gratuit gratuite gratuits gratuites intégral intégrale kostenlos kostenlose kostenloser "
    "gratuito gratuita gratuitos gratuitas grátis completo completa ilimitado ilimitada illimitato "
    "illimitata illimité illimitée unbegrenzt unbegrenzte")
"""Words that say what a thing is worth or what became of it: a bold line with one ("**Free returns for
members**", "**Why your claim was approved**") asserts it, even asking."""
_ASSERTING = _VERDICTS | _VALUES
"""`_VALUES` and the verdicts: in a bold line but a question ("**Are all hours covered?**" asks), they
assert."""
_VERDICT_IN_BOLD = _ASSERTING | _NEGATING | wordset("only nur seulement uniquement solo solamente soltanto "
                                                      "apenas somente")
"""Words that make a short bold sentence a verdict, not a lead-in (`_lead_in`): values, verdicts, negations
and "only" ("**Store credit only.**"). Not "n't": "**Don't worry.**" leads in."""
_LEAD_IN_STATED = _VALUES | _DENIALS | wordset("intégralement gratuitement")
"""What a lead-in states of its items (`_states_a_value`): values, denials, and French's adverbs of them
("Ces articles sont remboursés intégralement :")."""


_SAYING = _AUXILIARIES | _STATING
"""Verbs that make a heading-shaped line a statement ("Gift Cards Can Be Returned Within 90 Days")."""


def _states_what_holds(title: str, over_list: bool = False, section: bool = True) -> bool:
    """Whether a line read as a title for its shape alone says what holds: a line in bold whose every word
    of four letters or more is capitalised (`_bold_title`), a list's item over nested ones (`_list_title`,
    `over_list`) or a line over a rule (`_underlined`). Each had been a title whatever it said, and
    "**Gift Cards Can Be Returned Within 90 Days**" (the page says they cannot be), "**Full Refund Within
    60 Days**", "**No Restocking Fee On Opened Items**", "- Free Lifetime Warranty" over its details and
    "Perishable goods can be returned within 7 days" over "---" went unchecked. The words that make a
    sentence-case line a claim make it one: a number with a unit (`_counts_a_quantity`), a negation, a
    verb of being or an auxiliary, a value (`_VALUES`), a verdict after its first word (`_VERDICTS`:
    "**Supported Devices**" says which ones). Over a list's items only a denial is a verdict and
    "included" no value ("- Features Included" titles them, as `_names_only` reads it). "**Return
    Window**" and "**Plan Comparison**" name what follows; so does a clause a question word opens without
    a negation ("**Who Is Eligible**", "**How Do I Apply**"), a relative clause but for a value in it
    ("**Things That Can't Be Returned**"), and, over its `section`, a class of things a value or a verdict
    only sorts (`_names_a_class`: "**Included Amenities**", "**Items Not Covered**"): a review found each
    of these flagged over the section it titled."""
    low = normalise(title)
    if _counts_a_quantity(title.partition(":")[0].partition("(")[0]):
        return True
    if _WH_HEADING.match(low) is not None:
        return "n't" in low or not _NEGATING.isdisjoint(_NEXT_WORD.findall(low))
    head, _, clause = low.partition(" that ")
    words = _NEXT_WORD.findall(head)
    values, verdicts = (_VALUES - _VERDICTS, _DENIALS) if over_list else (_VALUES, _VERDICTS)
    if ("n't" in head or not _SAYING.isdisjoint(words) or (bool(words) and words[0] in _NEGATING)
            or not values.isdisjoint(_NEXT_WORD.findall(clause))):
        return True
    sorts = (not values.isdisjoint(words) or not verdicts.isdisjoint(words[1:])
             or not _NEGATING.isdisjoint(words))
    return sorts and not (section and _names_a_class(words))


def _counts_a_quantity(named: str) -> bool:
    """Whether a title's name holds a number with a unit, a currency or "%" ("**2-Year Warranty**",
    "**Full Refund Within 60 Days**"): "**Step 1: Log In**", "**Day 1 — Arrival**" and "**Top 3 Things to
    Know**" number or count their sections, and read as claims they were flagged (a review); a step's
    label split off left "Log In**" a claim of its own."""
    return any(map(str.isdigit, named)) and bool(profile(named).units)


_PLURAL_NOT = ("ss", "us", "is")
"""Endings of a word in "s" that is no plural ("Access", "Bonus", "Analysis")."""


def _names_a_class(words: list[str]) -> bool:
    """Whether a title's noun, before any preposition, negation or verdict after it, is plural, its values
    and verdicts set aside: "included amenities", "payment methods accepted", "items not covered",
    "services available on request" name the class its section lists. "Free lifetime warranty", "lifetime
    warranty included" and "free return shipping on every order" state what one thing is."""
    noun = ""
    for at, word in enumerate(words):
        if word in _JOINING or word in _NEGATING or (at and word in _VERDICTS):
            break
        if word not in _VALUES and word not in _VERDICTS:
            noun = word
    return len(noun) > 3 and noun.endswith("s") and not noun.endswith(_PLURAL_NOT)


def _names_only(title: str, over_list: bool, joining: frozenset[str] = frozenset()) -> bool:
    """Whether a short line can only name what follows it: a word of four letters or more, no digit, no
    function or negating word, no verdict after its first word (`_VERDICTS`), and no Chinese or Japanese,
    whose words no space counts ("- 不退款", no refunds, had read as a title, and the claim went
    unchecked; so had "**Refunds unavailable**"). Over a list's items (`over_list`) only a denial
    (`_DENIALS`) is a verdict: "**Documents required**" over "1. An ID" titles the items, which are claims
    themselves, and read as a claim it cost a grounded answer a third of its score; "**Refunds
    unavailable**" over "- Sale items" says the items are not refundable, which the items alone, supported
    by any page naming them, do not."""
    words = _NEXT_WORD.findall(title.lower())
    verdicts = _DENIALS if over_list else _VERDICTS
    return (any(len(word) > 3 for word in words) and not any(map(str.isdigit, title)) and not is_cjk(title)
            and FUNCTION_WORDS.isdisjoint(word for word in words if word not in joining)
            and _NEGATING.isdisjoint(words)
            and verdicts.isdisjoint(title.lower().split()[1:]))


_MAY_OPEN_LIST = frozenset(" \t-*+•0123456789")
"""What a list's item `_list_title` reads opens with: most lines of prose are spared the look."""


def _indent(text: str, line: tuple[int, int]) -> int:
    """The spaces and tabs `line` opens with."""
    pos, end = line
    return len(text[pos:end]) - len(text[pos:end].lstrip(" \t"))


_CJK_NUMERAL = "[一二三四五六七八九十]{1,3}"
_CJK_MARKER = deferred(
    r"[ \t]*(?:[" + ENCLOSED_NUMBERS + r"]|(?:\d{1,3}|[０-９]{1,3}|" + _CJK_NUMERAL
    + r")[、．.](?![0-9０-９])|[（(](?:\d{1,3}|" + _CJK_NUMERAL + r")[）)]|(?:第(?:\d{1,2}|" + _CJK_NUMERAL
    + r")(?:步|点|點|条|條|项|項)|(?:步骤|步驟|ステップ)[ \t]?(?:\d{1,2}|[０-９]{1,2}))[：:]?)[ \t]*")
"""Chinese and Japanese list markers, written with no space after them: "①", "1、", "１．", "一、", "（一）",
"第一步：", "步骤2：", "ステップ2：". Read as the claim's, "1、" and "步骤2" were numbers the context had to
hold."""
_CJK_TITLE = deferred(r"[ \t]*(?:" + _CJK_NUMERAL + r"、|第(?:\d{1,2}|" + _CJK_NUMERAL
                        + r")(?:章|节|節|部分))[^。！？!?:：\n]{1,24}")
"""A section's title, "一、退款政策": a heading as "## Refunds" is, no claim, unless it is a list's item
(`_cjk_item`)."""
_CJK_ITEM = deferred(r"[ \t]*" + _CJK_NUMERAL + "、")


def _cjk_item(text: str, lines: Sequence[tuple[int, int]], at: int) -> bool:
    """Whether line `at`, which opens as a section's title does ("二、签收后60天内可申请退货"), is a
    list's item: the last line, or one over another numbered so ("三、..."). A title has its section's
    text under it ("一、退款政策\n退款在..."); read as titles, a list written without "。" was skipped
    whole, and a made-up item in it ("二、签收后60天内可申请退货" under the page's 30 days) was never
    checked. The numeral is then the item's marker (`_CJK_MARKER`). A chapter's title ("第一章 ...")
    stays one, and so does a last line after a line of text, not an item ("...退货。\n\n三、其他说明": read
    as an item, a review found it flagged)."""
    if _CJK_ITEM.match(text, *lines[at]) is None:
        return False
    if at + 1 == len(lines):
        return at > 0 and _CJK_ITEM.match(text, *lines[at - 1]) is not None
    return _CJK_ITEM.match(text, *lines[at + 1]) is not None


def _opening(text: str, pos: int, end: int, lines: Sequence[tuple[int, int]] = (), at: int = 0) -> int:
    """Where the sentence starting at `pos` starts past a note of the sources (`_NOTE`), or past its list
    marker and its step's number. A capital letter opens no marker but a roman number ("II. "), a letter
    before a capital ("B) Exchanges", "(B) Exchanges") and, at the start of line `at` of `lines`, a letter
    of a lettered list ("B. Exchanges": `_lettered`)."""
    if (text.startswith(("(", "（", "["), pos, end) and (note := _NOTE.match(text, pos, end))
            and not _states_beside_source(note.group())):
        return note.end()
    capital = text[pos:pos + 1].isupper()
    if capital and text[pos + 1:pos + 2] == ".":
        if lines:
            pos = _lettered(text, lines, at)
    elif not capital or text[pos] in _ROMAN_CAPITALS or text[pos + 1:pos + 2] == ")":
        marker = _MARKER.match(text, pos, end)
        if marker:
            pos = marker.end()
        elif wide(text) and (marker := _CJK_MARKER.match(text, pos, end)) is not None:
            return marker.end()
    if text[pos:pos + 2] in _LABEL_PREFIXES and text.startswith(_LABEL_STARTS, pos, end):
        label = _LABEL.match(text, pos, end)
        if label:
            return label.end()
    return pos


def _lettered(text: str, lines: Sequence[tuple[int, int]], at: int) -> int:
    """Where line `at` starts past its letter, when it is an item of a lettered list ("A. Refunds ...\nB.
    Exchanges ...") or a roman one ("I. Refunds ...\nII. Exchanges ..."): "B." had been a claim of its own,
    "C." a term the context had to hold. A letter and a full stop open a name too ("A. Smith wrote the
    policy.", "V. Smith ..."), so only a capital follows it, and the nearest item above opens with the
    letter or the roman number before it ("U.", "IV.") or the nearest below with the one after it ("W.",
    "VI."): an item's body may stand between them ("IV. Refunds\nRefunds take 30 days.\nV. Exchanges"),
    within `_ITEM_REACH` lines."""
    pos, end = lines[at]
    item = _LETTER_ITEM.match(text, pos, end)
    if item is None or item.end(1) - pos > 1:
        return pos
    letter = text[pos]
    before = (chr(ord(letter) - 1), _ROMAN_BEFORE.get(letter))
    after = (chr(ord(letter) + 1), _ROMAN_AFTER.get(letter))
    above = _nearest_item(text, lines[max(at - _ITEM_REACH, 0):at][::-1]) in before
    below = _nearest_item(text, lines[at + 1:at + 1 + _ITEM_REACH]) in after
    return item.end() if above or below else pos


_ITEM_REACH = 8
"""Lines looked through for a list's neighbouring item: a heading's short body."""


def _nearest_item(text: str, lines: Sequence[tuple[int, int]]) -> str:
    """The letter or roman number of the first of `lines` that opens as a list's item does, or ""."""
    return next((found for line in lines if (found := _item(text, line))), "")


def _item(text: str, line: tuple[int, int]) -> str:
    """The letter or roman number `line` opens with as a list's item does ("B. Exchanges", "IV. ..."), or
    ""."""
    item = _LETTER_ITEM.match(text, *line)
    return item.group(1) if item else ""


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line that is not empty. `split` finds the newlines at C speed, where a
    `[^\n]+` regex tested each character in turn."""
    lines = []
    start = 0
    for line in text.split("\n"):
        if line:
            lines.append((start, start + len(line)))
        start += len(line) + 1
    return lines


def _append(out: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    blank = None  # whitespace: stripped by `str.strip`'s default, several times faster than with `_BLANK`
    stripped = chunk.strip()
    if stripped and (stripped[0] in _INVISIBLE or stripped[-1] in _INVISIBLE):
        blank = _BLANK  # a line opening with a byte order mark, or ending in a zero-width space
        stripped = chunk.strip(blank)
    if stripped:
        start += len(chunk) - len(chunk.lstrip(blank))
        out.append((start, start + len(stripped)))


def _says_something(read: TextProfile) -> bool:
    """Without a content word or a number a sentence asserts nothing: one of function words, symbols or
    emoji ("👍", "→", which are no terms) states nothing a context could hold. `read` is the sentence's
    profile, which the caller needs as well."""
    return bool(read.terms or read.numbers)


_ATTRIBUTED_TO = r"(?:the )?(?:" + SOURCE_ADJECTIVE + " )?" + SOURCE_NOUN + "(?: " + SOURCE_ADJECTIVE + ")?"
_ATTRIBUTION = deferred(
    r"[\W_]*(?:(?:according to|based (?:solely |only |entirely )?(?:up)?on|(?:as )?per|from|in|as (?:stated|"
    r"mentioned|described|noted|indicated|explained) in) " + _ATTRIBUTED_TO + r",|" + _ATTRIBUTED_TO +
    r" (?:states|state|says|say|indicates|indicate|mentions|mention|notes|note|explains|explain|specifies|"
    r"specify|confirms|confirm) that|" + _ATTRIBUTED_TO + r" (?:only |also )?(?:mentions?|describes?|lists?|"
    r"covers?)|" + european.ATTRIBUTION + r")\s+", re.IGNORECASE)
"""An opening clause that only says where the answer comes from: "According to the provided context,",
"Based on the information provided,", "The documents say that", "The provided documents only mention"."""
_SOURCE_TERMS = profile(" ".join(re.findall(r"[^\W\d_]+", SOURCE_NOUN + "|" + european.SOURCE_NOUNS))).terms
"""A term of every attribution: a claim with none has none to drop."""


_CJK_ATTRIBUTION = deferred(
    r"[\W_]*+(?:(?:根据|根據|依据|依據|按照|基于|基於)(?:您|你)?所?(?:提供|给出|給出|检索到|檢索到|上述|以上|现有|現有)?的?"
    r"(?:资料|資料|信息|資訊|文档|文檔|文件|内容|內容|上下文|参考资料|參考資料|知识库|知識庫)(?:显示|顯示|来看|來看|中|所述)?"
    r"|(?:资料|資料|文档|文檔|文件)(?:显示|顯示|指出|表明)"
    r"|(?:ご?提供(?:された|いただいた))?(?:情報|資料|ドキュメント|文書|コンテキスト)(?:に|を)?"
    r"(?:よると|よれば|基づくと|基づきますと|基づいて|参照すると))[,，、:：]?\s*")
"""Chinese and Japanese attributions: "根据提供的资料，" (according to the documents provided), "资料显示，"
(the documents show), "提供された情報によると、"."""


_TAKE_NOTE = deferred(
    r"[\W_]*(?:(?:please )?(?:note|keep in mind|bear in mind|be aware|remember)(?: that)?|"
    r"(?:bitte )?beachten sie,? dass|denken sie daran,? dass|(?:veuillez )?not(?:ez|er) (?:bien )?que|"
    r"(?:ten|tenga|tened|tenés) en cuenta(?: que)?|tien[ie] presente che|tenga presente che|"
    r"(?:tenha|tem) em (?:conta|atenção) que|note que)[,:]?\s+", re.IGNORECASE)
"""An opening that asks the reader to take note ("Please note that", "Keep in mind that", "Beachten Sie,
dass", "Ten en cuenta que"): its words are no context's, and "Ten" is no ten."""
_TAKE_NOTE_TERMS = profile("note keep mind bear aware remember beachten denken notez noter cuenta presente "
                           "conta atenção").terms
"""A term of every such opening: a sentence with none is spared the pattern."""
_OPENING_TERMS = GREETING_TERMS | _SOURCE_TERMS | _TAKE_NOTE_TERMS
"""A term of every salutation, attribution or request to take note: one C-level test spares a sentence with
none (nearly every claim, asked twice: for the claim and for its profile) the three."""


def _content_start(sentence: str, terms: frozenset[str]) -> int:
    """Where what a sentence asserts starts: after a salutation ("Hi Jonas, "; all of "Dear Ms Patel,"), an
    opening attribution or a request to take note, or at 0. `terms` are the sentence's: every attribution
    names a source and every request one of a few verbs, so a C-level test spares nearly every sentence
    the patterns."""
    if wide(sentence) and (opener := _CJK_ATTRIBUTION.match(sentence)) is not None:
        return opener.end()
    if terms.isdisjoint(_OPENING_TERMS):
        return 0
    start = 0 if terms.isdisjoint(GREETING_TERMS) else salutation_end(sentence)
    if not terms.isdisjoint(_SOURCE_TERMS) and (opener := _ATTRIBUTION.match(sentence, start)) is not None:
        start = opener.end()
    if not terms.isdisjoint(_TAKE_NOTE_TERMS) and (note := _TAKE_NOTE.match(sentence, start)) is not None:
        start = note.end()
    return start


_FIELD_NAMES = profile(
    "price prices pricing cost costs fee fees charge rate amount total deadline window period timeframe "
    "duration time timing date frequency limit minimum maximum eligibility requirement requirements "
    "availability location address contact hours schedule status method process procedure condition "
    "conditions note answer summary result type size weight capacity dose dosage coverage policy details "
    "preis preise kosten gebühr gebühren frist dauer zeitraum datum termin zeit betrag laufzeit lieferzeit "
    "hinweis antwort prix coût coûts frais tarif délai durée période montant remarque réponse precio "
    "precios costo coste costos plazo duración período periodo fecha importe nota respuesta prezzo costi "
    "tariffa scadenza durata risposta preço custo custos taxa prazo duração resposta").terms
"""Words that name a field, not a fact: "**Price:** $40 per month" states $40 a month, and a context saying
"costs" never holds "price". Names of things ("**Enterprise:**", "**Gift cards:**") are none of them."""
_LONGEST_LABEL = 60
"""Where a label's colon must come by: most claims, with none there, are spared the pattern."""
_FIELD_LABEL = deferred(
    r"[ \t]*+(?:(\*\*|__)(?P<bold>[^\W\d_]+(?:[-'’ ][^\W\d_]+){0,3})(?: ?:\1|\1[ \t]*:)"
    r"|(?P<plain>[^\W\d_]+(?:[-'’ ][^\W\d_]+){0,3}) ?:)[ \t]+")
"""A field's label opening a claim, in bold or plain ("**Return window:** 30 days", "Frist: 30 Tage",
French's "Délai : 14 jours"), of one to four words and no digit."""


def _label_terms(text: str) -> frozenset[str]:
    """The terms of the field a claim's opening label names (`_FIELD_NAMES`) that its value does not use
    itself: the answer's framing, no part of what it states. A label's other words ("Enterprise", "Gift
    cards", "Return" in "Return window") name what the value is about, and are checked as ever."""
    if ":" not in text[:_LONGEST_LABEL] or (label := _FIELD_LABEL.match(text)) is None:
        return frozenset()
    named = profile(label.group("bold") or label.group("plain")).terms & _FIELD_NAMES
    return named - profile(text[label.end():]).terms if named else named


def claim_profile(text: str, question: str = "") -> TextProfile:
    """The terms and numbers of a claim without an opening attribution ("Based on the provided context,",
    "The documents say that"): where the answer comes from is nothing a context holds, and the clause's
    two or three words ("provided", "context") made a sentence copied from its context fall short of the
    threshold. Likewise without a label's field name ("**Price:**", `_label_terms`), and without the results
    of the sums it works out (`worked`: "€590 + €180 = €770" holds 590 and 180), whose percentages a page
    must write as such (`Operand`), and whose figures a percentage is taken of may be the user's own, from
    the `question` ("What fee would I pay on my $310 balance?": "1.5% × $310 = $4.65"), as no page states
    them. Only those: a sum's figure from the question may be the page's fact the user got wrong ("Is the
    fee $25?"), and a percentage must be the page's. A claim made by hand of such a clause or label alone
    is read whole: with nothing left to check, any context would support it."""
    read = profile(text)
    start = _content_start(text, read.terms)
    if start:
        rest = profile(text[start:])
        read = rest if rest.terms or rest.numbers else read
    if read.numbers and (derived := worked(text)).results:
        asked = profile(question)
        known = derived.results | (derived.bases & asked.numbers)
        rates = {rate for rate, _ in derived.rates}
        read = TextProfile(read.terms, read.numbers - known, read.literals, frozenset(
            unit for unit in read.units if unit[0] not in known and unit[0] not in rates).union(
            (rate, Operand(way, asked.terms)) for rate, way in derived.rates))
    framing = _label_terms(text)
    if not framing or (not (terms := read.terms - framing) and not read.numbers):
        return read
    return TextProfile(terms, read.numbers, read.literals, read.units)


_LONGEST_HEADING = len("## **Bibliography**")
"""A sources heading with neither ":" nor ">" is the whole sentence, at most this long."""

_MOST_ITEMS = 12
"""The largest whole number a lead-in may state as the count of the items it introduces."""


_DASH = re.compile(r" ?— ?| [–-] ")
"""A dash joining two parts of a sentence as a comma would: "Sorry about the delay — that's frustrating."
and "Good question — here's what applies to you." are courtesies, read as they are with a comma, when each
part is talk to the user (`talks`): the dash alone had made each a claim. "I'm sorry — refunds take 5 days."
and "We also price match — hope that helps!" stay claims."""


_LEAD_IN_VALUES = ("免费", "免費", "無料", "全额", "全額", "包邮", "包郵")
"""Chinese and Japanese words of what a thing costs or is worth ("免费", free; "全额", in full; "包邮",
shipped free), found in a lead-in as `_VALUES` are (`_states_a_value`): no space counts their words."""


_ASKING = wordset("how what when where which who whether wie wann wo welche comment quand où quel quelle "
                  "quels quelles cómo qué cuándo dónde cuál cuáles come quando dove quale quali como onde")
"""Question words that make a lead-in with a value name what follows: "Here's when free cancellation ends
for each rate:", "What you'd get back (if approved):", "Here is how to get a full refund:" (its items say
it)."""
_ASKING_REACH = 3
"""The words of a lead-in's opening read for one ("here", "s", "when")."""


def _states_a_value(lead_in: str) -> bool:
    """Whether a lead-in says what the items it introduces are worth or that they are denied (`_VALUES`,
    `_DENIALS`): "The following items can be returned for a full cash refund:" over "- Gift cards" states
    what the page denies, and dropped as a lead-in, each item passed on its own words; so did "Members get
    a full cash refund in these 2 cases:", "Estos artículos tienen devolución gratuita:" and
    "会员可享受以下3项免费服务：". "Here's what I found:" and "Documents required:" name what follows."""
    if wide(lead_in) and any(word in lead_in for word in _LEAD_IN_VALUES):
        return True
    words = _NEXT_WORD.findall(normalise(lead_in))
    return (not _LEAD_IN_STATED.isdisjoint(words) and _ASKING.isdisjoint(words[:_ASKING_REACH])
            and not _bare_label(words))


def _bare_label(words: list[str]) -> bool:
    """Whether a lead-in is a label its value opens, of at most `_LONGEST_BARE_LABEL` words and naming no
    subject (`_DETERMINERS`, `_QUANTIFIERS`): "Excluded from coverage:", "Included:" title their items, and
    read as claims, their words no page holds were flagged (a review). "Included with every room:" says of
    what."""
    return (0 < len(words) <= _LONGEST_BARE_LABEL and words[0] in _LEAD_IN_STATED
            and _DETERMINERS.isdisjoint(words) and _QUANTIFIERS.isdisjoint(words))


_LONGEST_BARE_LABEL = 3
_QUANTIFIERS = wordset("every all each any")


def _is_claim(sentence: str, edge: bool) -> bool:
    """A lead-in ending in a colon ("Here is what I found:", "**Details:**") introduces claims but asserts
    nothing, unless it states a number other than a count of what follows ("Here are the 3 steps:" is a
    lead-in, "These items carry a 25% restocking fee:" a claim) or a value (`_states_a_value`); nor does a
    note of the sources ("Sources: doc-1."), nor filler ("Sure!", "Hope this helps!"), nor filler after an
    attribution ("Based on the provided context, yes."). `edge`: the sentence opens the answer or is one of
    its last two, where 95% of the corpora's wrappers are and the wrapper model is asked
    (`ragmon.text.wrapper_model`). Filler whose last part after a comma or semicolon states something
    ("Cheers for your patience, the outage has been fixed.") is a claim."""
    if ((":" in sentence or ">" in sentence or "：" in sentence or len(sentence) < _LONGEST_HEADING)
            and (sources := _SOURCES_LINE.match(sentence))
            and not _states_beside_source(sentence[sources.end():])):
        return False  # it only names the answer's sources; most sentences are spared the pattern
    read = profile(sentence)
    if (sentence.endswith((":", "：", "*", "_")) and sentence.rstrip("*_").endswith((":", "："))
            and all(n.is_integer() and 1 <= n <= _MOST_ITEMS for n in read.numbers) and not read.units
            and not _states_a_value(sentence)):
        return False  # not with a unit, which counts nothing: "within 9 business days to:", "before 2 p.m.:"
    if not _says_something(read) or is_abstention(sentence):
        return False
    if is_filler(sentence, read.terms) or (edge and reads_as_wrapper(sentence)):
        return states_after_comma(sentence)
    if (("—" in sentence or " – " in sentence or " - " in sentence) and all(map(talks, _DASH.split(sentence)))
            and not _is_claim(_DASH.sub(", ", sentence), edge)):
        return False
    start = _content_start(sentence, read.terms)
    if not start:
        return True
    rest = sentence[start:]
    rest_read = profile(rest)
    return _says_something(rest_read) and not is_filler(rest, rest_read.terms)


def _split_claims(answer: str) -> tuple[Claim, ...]:
    """The checkable sentences of an answer; function-word-only, abstaining and filler sentences are none.
    Cached: scoring one example splits its answer for the judge and again for the abstention metric.
    Answers of up to `SHORT` characters in a C-level LRU of 1,024, ~10 KB each as prose, ~50 KB at most
    (a claim every 7 characters, traced); longer ones in a `LongTextCache` of 8 MiB."""
    claims = []
    spans = sentence_spans(answer)
    body_end, frame = ending(answer, spans)  # a letter's closing and signature say nothing
    last_but_one = body_end - 2  # the answer's last two sentences are those before its closing
    for index, (start, end) in enumerate(spans):
        if index in frame:
            continue
        sentence = answer[start:end]
        if _is_claim(sentence, index == 0 or index >= last_but_one):
            claims.append(Claim(sentence, start, end))
    return tuple(claims)


def _held(answer: str, claims: tuple[Claim, ...]) -> int:
    return sys.getsizeof(answer) + sys.getsizeof(claims) + sum(
        sys.getsizeof(claim) + sys.getsizeof(claim.text) for claim in claims)


SHORT = 2048
split_claims, clear_cache = text_cache(_split_claims, _held, short=SHORT, entries=1024, max_bytes=8 * 2**20)


def answer_terms(answer: str) -> frozenset[str]:
    """`profile(answer).terms`, gathered from the profiles its claims already have when that is the same set.

    It is when the claims are the whole answer but whitespace, and no citation mark runs from one claim
    into the next ("[see p. 5. Also]" is one mark over two sentences): a word never spans whitespace, and
    neither do the country names, "non-" or the lower-casing the terms are read with. Otherwise (list
    markers, headings, sentences that are no claims) the answer is read whole. Numbers are not gathered
    this way: "twenty. Five" is two numbers in two claims but 25 in one text.
    """
    claims = split_claims(answer)
    if not claims or not _claims_cover(answer, claims):
        return profile(answer).terms
    return frozenset().union(*[profile(claim.text).terms for claim in claims])


def _claims_cover(answer: str, claims: tuple[Claim, ...]) -> bool:
    """Whether the claims' terms are the answer's: see `answer_terms`."""
    end = 0
    for claim in claims:
        if claim.start > end and not answer[end:claim.start].isspace():
            return False
        end = claim.end
    if end < len(answer) and not answer[end:].isspace():
        return False
    if "[" not in answer and "]" not in answer:
        return True
    # A mark ends at the first bracket after its "[": in a claim whose brackets pair up in order, "[]...",
    # every mark lies inside the claim.
    return all(b == "[]" * (len(b) // 2) for b in (_NOT_BRACKET.sub("", claim.text) for claim in claims))


_NOT_BRACKET = deferred(r"[^\[\]]+")


def answer_abstains(answer: str) -> bool:
    """The answer as a whole declines: it makes no claim, and it either says so or says nothing at all.
    Filler says something: an answer of only "Sure!" has not declined, though "Sorry! I don't know." has."""
    if split_claims(answer):
        return False
    parts = [answer[start:end] for start, end in sentence_spans(answer)]
    return not any(_says_something(profile(s)) for s in parts) or any(is_abstention(s) for s in parts)
