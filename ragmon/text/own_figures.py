"""The user's own figures in a question ("my 15-year-old", "I'm 23", "our group of 15", "My dog is 9"): an
answer speaking to the user restates them ("so your 15-year-old qualifies"), and no page states them, so
they had made a grounded sentence a false alarm (the largest group left in the blind sets). Only figures a
first-person word stands just before: "Is the return window 45 days?" asks about the page's figure, and an
answer confirming it ("Yes, your return window is 45 days.") is checked against the page as ever.

The old judge had flagged, by accident, eligibility made up around such a figure ("I'm 17, can I rent a
car?" answered "At 17 you can rent a car" where the page says at least 21): 17 is on no page. So a figure
is given only where the page's bounds on figures of its kind agree with what the claim makes of it
(`agreed`)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import NamedTuple

from ragmon.text.bound_sentences import NEGATED, bound_sentences
from ragmon.text.deferred import deferred
from ragmon.text.passage_sentences import LONGEST
from ragmon.text.terms import TextProfile, profile, read_profile, read_terms
from ragmon.text.units import bounds, may_bound

_FIRST_PERSON = deferred(
    r"(?<![\w'’])(?:i|i['’]m|i['’]ve|i['’]ll|i['’]d|my|me|we|we['’]re|we['’]ve|we['’]ll|we['’]d|our|us|je|j['’]ai|"
    r"mon|ma|mes|nous|notre|nos|ich|mein(?:e[mnrs]?)?|wir|unser(?:e[mnrs]?)?|yo|mi|mis|tengo|tenemos|llevo|llevamos|somos|soy|"
    r"estamos|nuestr[ao]s?|it['’]s\s+been|it\s+has\s+been)"
    r"(?![\w'’])")
_NEAR = deferred(r"(?:[ \u00a0]+(?:[^\s,.;:!?]|[.,](?=\d))+){1,4}")
"""Up to four words after a first-person word, within its clause ("my dog is 9", "I have worked here 4
years", "I spent $3,000", "my parcel is 8.5 kg"), or after "it's been" ("It's been 20 days since it was
delivered"). Measured on three blind sets: four moved 10 more grounded answers to supported than three, and
2 more made-up ones."""
_TO_THE_USER = deferred(
    r"(?<![\w'’])(?:you|your|yours|you['’]re|you['’]ve|you['’]ll|you['’]d|vous|votre|vos|tu|ton|ta|tes|du|"
    r"dein(?:e[mnrs]?)?|usted|tus)(?![\w'’])")


def speaks_to_the_user(text: str) -> bool:
    """Whether a claim addresses the user ("your", "you're", "vous", "du"), as one restating their figures
    does."""
    return _TO_THE_USER.search(text.lower()) is not None


def own_figures(question: str, claim: TextProfile) -> frozenset[float]:
    """The claim's numbers that are the user's own in `question` (`_own`), given no unit the question
    does not give them: "3 Monaten" is not the user's "3x verspätet". The question's numbers first (read
    once for all its claims): most claims share none, and are spared reading the question for its own."""
    if claim.numbers.isdisjoint(profile(question).numbers):
        return _NO_NUMBERS
    own = _own(question)
    numbers = claim.numbers & own.numbers
    return frozenset(number for number in numbers if all(
        unit == "" or (number, unit) in own.units for value, unit in claim.units if value == number))


_NO_NUMBERS: frozenset[float] = frozenset()


@functools.lru_cache(maxsize=4)
def _own(question: str) -> TextProfile:
    """The numbers of `question` within four words after a first-person word (and their units in the
    question, which may be past them: "My suitcase is 28 kg", or years for an age stated without one,
    `_AGE_STATED`) or before "of us", but after an auxiliary's
    inverted subject ("Can I return it after 40 days?") or "if", after hearsay ("I was told I get 25
    days") or in a sentence asking to confirm it ("My contract is 12 months, right?"). Kept for the last
    few questions: each claim of an answer asks for its question's, one after another."""
    low = question.lower()
    numbers: set[float] = set()
    for person in _FIRST_PERSON.finditer(low):
        near = _NEAR.match(low, person.end())
        if near is None or _HEARSAY.search(near.group(), 0, _first_digit(near.group())) is not None or (
                person.group() in _SUBJECTS and _ASKED.search(low, 0, person.start())) or (
                _SUPPOSED.search(low, 0, person.start())) or (
                _WHEN.search(near.group()) and _ASKING.search(low, 0, person.start())) or (
                _CONFIRMING.search(low, near.end(), _sentence_end(low, near.end()))):
            continue
        numbers.update(profile(near.group()).numbers)
    numbers.update(number for count in _OF_US.findall(low) for number in profile(count).numbers)
    units = {unit for unit in profile(question).units if unit[0] in numbers}
    units.update((age, "y") for stated in _AGE_STATED.findall(low) for age in profile(stated).numbers
                 if age in numbers and not any(value == age for value, _ in units))
    return TextProfile(frozenset(), frozenset(numbers), frozenset(), frozenset(units))


def ages_spelled(claim: str, figures: frozenset[float]) -> frozenset[str]:
    """The terms of "N-year-old" ("your 15-year-old", "a 10-week-old puppy") where N is one of the user's own
    figures: the figure's unit written out, which a page bounding ages ("aged 16 and over") need not
    hold any more than the figure."""
    return frozenset(term for number, unit in _AGE_SPELLED.findall(claim.lower()) if float(number) in figures
                     for term in (unit, "old"))


_AGE_SPELLED = deferred(r"(?<![\w.,])(\d+)[- \u00a0](year|month|week)s?[- \u00a0]old(?![\w'’])")


def _first_digit(text: str) -> int:
    """Where the first digit of `text` is, or its end: hearsay after the figure ("I'm 62 — should I buy a
    certificate?") is not about it."""
    digit = _DIGIT.search(text)
    return len(text) if digit is None else digit.start()


_DIGIT = deferred(r"\d")


def _sentence_end(low: str, at: int) -> int:
    """Where the sentence going on at `at` ends, past its mark."""
    end = _SENTENCE_END.search(low, at)
    return len(low) if end is None else end.end()


_SENTENCE_END = deferred(r"[.!?]")
_CONFIRMING = deferred(
    r"(?:right|correct|isn['’]t it|aren['’]t they|don['’]t i|isn['’]t that|verdad|n['’]est-ce pas|"
    r"c['’]est (?:bien )?ça|oder|nicht wahr|stimmt['’]?s|richtig)\s*\?\Z")
"""A question asking the page to confirm what the user believes ("My fee is 12 months, right?", "isn't it?",
"¿verdad?", "c'est bien ça ?", "oder?"): its figures are the user's belief, not their own fact."""
_AGE_STATED = deferred(
    r"(?:(?<![\w'’])(?:is|am|are|was|turned|turns|turning|aged|ist|bin|sind|wird)|['’][ms])[ \u00a0]+([\w-]+)"
    r"(?=\s*(?:[,;:!?)\-–—]|\.(?!\d)|\Z|(?:and|now|today|years?|yrs?|yo|but|so|next|this|in|und|et|y|jahre|ans|"
    r"años)(?![\w'’])))")
"""A figure stated as the user's or their family's age, with no unit ("My son is 11", "I'm 22 and a
student", "she's 9 now"): restated by an answer as "your 11-year-old", and of the kind of the page's ages
("Group lessons are for ages 4 to 14") and of its numbers written with no unit, as pages write ages
("Children 10 and older"; so also "a maximum of 8 students", which cannot be told from them), not of
"$150"."""
_OF_US = deferred(r"(?<![\w.,])([\w-]+)\s+of\s+us(?![\w'’])")
"""The user's party counted before the first-person word: "There are 20 of us"."""
_SUBJECTS = frozenset({"i", "we", "je", "nous", "ich", "wir", "yo"})
_SUPPOSED = deferred(r"(?<![\w'’])(?:if|suppose|supposing|imagine|si|wenn|falls)[ \u00a0]+\Z")
"""A supposition, not the user's fact: "How would a bank make money if I deposited 1 billion dollars?"."""
_AUXILIARIES = r"can|could|do|does|did|will|would|should|may|shall"
_ASKED = deferred(r"(?<![\w'’])(?:" + _AUXILIARIES + r"|am)[ \u00a0]+\Z")
"""An auxiliary just before a subject pronoun (`_SUBJECTS`): the question asks what the user may do; not
before a possessive ("Can my 15-year-old use the pool?" gives the child's age)."""
_ASKING = deferred(r"(?:\A|[.!?]\s)\s*(?:" + _AUXILIARIES + r")[ \u00a0]+(?:i|we)(?![\w'’])[^.!?]*\Z")
_WHEN = deferred(r"(?<![\w'’])(?:within|after|before|by|until|in|for|over|under|past)[ \u00a0]+\d")
"""Under a question the user asks of what they may do, a possessive's figure after a preposition is
asked of the page too: "Can I return my headphones within 40 days?" (not "Can I bring my 2 dogs?")."""


_HEARSAY = deferred(
    r"(?<![\w'’])(?:get|got|told|think|thought|heard|believe|read|saw|seen|understand|understood|assume|"
    r"supposed|should|entitled|allowed|can|could|may|might|qualify|will|would|"
    r"droit|dit|crois|pense|peux|puis|pourrai[st]?|devrais|"
    r"darf|kann|soll|glaube|dachte|gehört|bekomme|"
    r"puedo|podría|creo|dijeron|derecho)(?![\w'’])")
"""Words that make the figure after them what the user believes or asks of the page ("I was told I get 25
days of leave", "Can I return it after 40 days?", "J'ai droit à 5 retraits"), not a fact of their own."""


def agreed(figures: frozenset[float], claim: TextProfile, denied: bool, addressed: bool,
           texts: Iterable[str]) -> frozenset[float]:
    """The figures the pages' bounds let the claim (`denied`: negated; `addressed`: speaking to the user)
    make of them. A page's clause bounding a number of a figure's kind ("at least 21", "16 and over", "12
    to 25", "up to 2 dogs") says what holds for the figures it lets in, and its complement for those it
    keeps out. The clause closest to
    the claim (`_agrees`; ties to one disagreeing) must agree with it: let the figure in where both or
    neither are negated ("Guests aged 14 and older may use the pool unaccompanied": "at 15 your daughter
    may use the pool unaccompanied"), keep it out where one is ("Bags over 32 kg are not accepted": "your
    28 kg suitcase will be accepted"; "only open to guests aged 16 and over": "so your 15-year-old won't be
    able to join you"). And a requirement it fails ("must be at least 21") keeps it out of any claim not
    negated, whichever clause the claim is closer to ("At 17 you can rent a car, though you'll pay a young
    driver surcharge", against "Drivers must be at least 21. Drivers under 25 pay a young driver
    surcharge."). A claim not speaking to the user needs a clause letting the figure in ("At 14 she is
    under the limit of 19", not "Items can be returned within 40 days" against a page giving no window):
    it may be stating the user's figure as the page's rule. A page too long to read by sentence gives none
    (the figure is checked against it as any number)."""
    texts = tuple(texts)
    if any(len(text) > LONGEST for text in texts):
        return frozenset()
    bounding = [clause for text in texts for clause in _bounding(text)]
    return frozenset(figure for figure in figures if _agrees(
        figure, {unit for value, unit in claim.units if value == figure}, claim, denied, addressed, bounding))


def _agrees(figure: float, units: set[str], claim: TextProfile, denied: bool, addressed: bool,
            clauses: list[_Bounding]) -> bool:
    """Whether the clauses bounding figures of this one's kind agree with what the claim makes of it
    (`agreed`). A figure given a unit ("80 GB", "your 15-year-old") is of the kind of the numbers sharing
    one ("200 GB", "aged 16"), not of "up to 6 members" nor "30 or more hours"; one given none ("I'm 17")
    is of any bounded number's kind, as what it counts is not known. The clause the claim is closest to
    is the one holding most of its other numbers ("At 16 you'd pay £27 a month" applies "Students aged 18
    to 24 pay £27", not "Juniors from 14 to 17 join for £19 with a parent's consent", which shares more of
    its words), then of its terms; one letting the figure in is overruled by another letting it in on a
    tighter bound the same way ("After 5 years, 27 days, and after 10 years, 30 days": 11 years is the
    second's)."""
    others = claim.numbers - {figure}
    agreeing: tuple[tuple[int, int], _Bounding] | None = None  # the closest agreeing clause, how close
    disagreeing: tuple[int, int] | None = None
    letting_in: list[_Bounding] = []
    for clause in clauses:
        ways = _kind(figure, units, clause)
        if not ways:
            continue
        kept_out = any(figure < value if way == "more" else figure > value for value, way in ways)
        if kept_out and clause.required and not denied:
            return False
        if not kept_out:
            letting_in.append(clause)
        closeness = (len(others & clause.numbers), len(claim.terms & clause.terms))
        if kept_out != (denied != clause.negated):
            disagreeing = max(disagreeing or closeness, closeness)
        elif agreeing is None or closeness > agreeing[0]:
            agreeing = (closeness, clause)
    if agreeing is not None and not denied and _overruled(figure, units, agreeing[1], letting_in):
        return False
    if agreeing is None:
        return disagreeing is None and addressed
    return disagreeing is None or agreeing[0] > disagreeing


def _kind(figure: float, units: set[str], clause: _Bounding) -> list[tuple[float, str]]:
    """The clause's bounds on numbers of the figure's kind (`_agrees`): sharing a unit with it, or, for an
    age, written with none ("Children 10 and older"), as pages write ages."""
    return [(value, way) for value, way in clause.bounds if value != figure and (
        not units or not units.isdisjoint(clause.units.get(value, ()))
        or ("y" in units and value not in clause.units))]


def _overruled(figure: float, units: set[str], closest: _Bounding, letting_in: list[_Bounding]) -> bool:
    """Whether another clause lets the figure in on a tighter bound the same way, on a number of the
    figure's units ("after 10 years" overrules "after 5 years" for 11 years; "aged 65 or older" does not
    overrule "orders over $25", nor "a maximum of $120" "a maximum of $250" for the user's age)."""
    return any(
        value < tighter <= figure if way == "more" else figure <= tighter < value
        for value, way in _kind(figure, units, closest) if closest.units.get(value, set()) == units
        for other in letting_in if other is not closest
        for tighter, other_way in _kind(figure, units, other)
        if other_way == way and other.units.get(tighter, set()) == units)


def negated(low: str) -> bool:
    """Whether a lower-cased claim or sentence is negated, in English (`bound_sentences.NEGATED`) or in
    French, German or Spanish ("vous ne pouvez pas", "nicht erlaubt", "no se admiten")."""
    low = _NO_MORE_THAN.sub(" ", low)
    return NEGATED.search(low) is not None or _NEGATED_OTHERWISE.search(low) is not None


_NO_MORE_THAN = deferred(
    r"(?<![\w'’])(?:(?:no|not)\s+(?:more|less|fewer|later|earlier|"
    r"longer|older|younger)\s+than|(?:pas|ne\s+\S+\s+pas)\s+(?:plus|moins)\s+de|nicht\s+(?:mehr|weniger)\s+als|"
    r"no\s+(?:más|menos)\s+de|with\s+no)(?![\w'’])")
"""A bound, no negation: "no more than 6 tickets", "pas plus de 3", "nicht mehr als 2" (but "no longer" is
one); nor is what comes with it ("you can open an account with no monthly fee")."""
_NEGATED_OTHERWISE = deferred(
    r"(?<![\w'’])(?:ne|n['’]|pas|aucun\w*|nicht|kein\w*|nie|no|nunca|ningún|ninguna)(?![\w'’])")


class _Bounding(NamedTuple):
    """A clause of a page that bounds a number: its bounds (`units.bounds`, and a range's two), each
    number's units, its terms and numbers, whether it is negated, and whether it requires what it bounds."""

    bounds: frozenset[tuple[float, str]]
    units: dict[float, set[str]]
    terms: frozenset[str]
    numbers: frozenset[float]
    negated: bool
    required: bool


@functools.lru_cache(maxsize=16)
def _bounding(text: str) -> tuple[_Bounding, ...]:
    """A page's clauses that bound a number, each with the clauses after it in its sentence that bound none
    ("Members with 25 or more nights hold Gold status and also receive free breakfast": the breakfast is
    Gold's), whose words and numbers it takes, not their negation ("Patients aged 60 or over get free
    prescriptions and don't need a certificate" lets 60 in to free prescriptions). A number bounded both
    ways is a deadline ("book at least 48 hours in advance") or a verb's "over" ("over 30 kg and up to 50
    kg"), no bound on a figure but as a range's end. Kept for the last few pages, of at most `LONGEST`
    characters (`agreed`): each claim restating a figure asks again."""
    found: list[_Bounding] = []
    for sentence in bound_sentences(text):
        head: _Bounding | None = None  # the sentence's last clause with a bound
        for clause in _CLAUSE.split(sentence):
            bounded = _bounds(clause)
            if bounded is not None:
                if head is not None:
                    found.append(head)
                given, read = bounded
                units: dict[float, set[str]] = {}
                for value, unit in (*read.units, *((float(age), "y") for age in _AGED.findall(clause))):
                    units.setdefault(value, set()).add(unit)
                head = _Bounding(given, units, read_terms(clause)[0], read.numbers, negated(clause),
                                 _REQUIRED.search(clause) is not None)
            elif head is not None:
                read = read_profile(clause)
                head = head._replace(terms=head.terms | read.terms, numbers=head.numbers | read.numbers)
        if head is not None:
            found.append(head)
    return tuple(found)


def _bounds(clause: str) -> tuple[frozenset[tuple[float, str]], TextProfile] | None:
    """The bounds a clause gives numbers, in its words (`units.bounds`, `_OTHER_BEFORE`, `_OTHER_AFTER`) and
    as ranges (`_RANGE`), with what was read of the clause to find them; None where it gives none."""
    ranges = [(float(between or low), float(high)) for between, low, high in _RANGE.findall(clause)]
    if not ranges and not may_bound(clause) and not _MAY_BOUND_OTHERWISE.search(clause):
        return None
    read = read_profile(clause)
    given = set(bounds(clause, read.numbers))
    given.update((float(number), "more" if more else "less")
                 for more, _, number in _OTHER_BEFORE.findall(clause))
    given.update((float(number), "more" if more else "less")
                 for number, more, _ in _OTHER_AFTER.findall(clause))
    given -= {(value, way) for value, way in given if (value, _OTHER[way]) in given}
    given.update(*(((low, "more"), (high, "less")) for low, high in ranges))
    return (frozenset(given), read) if given else None


_OTHER = {"more": "less", "less": "more"}
_CLAUSE = deferred(r"(?:,\s+|\s+)(?:and|but|while|whereas)\s+(?!(?:up\s+to|over|older|above|under|younger|"
                   r"below|more|less|fewer)(?![\w'’])|[\d$€£¥])")
"""Where a sentence goes on to another clause ("Students aged 18 to 24 pay £27, and members aged 60 and over
pay £25"; "aged 60 or over ride free and don't need a pass"), not within a bound or range ("16 and over",
"between 23 and 32 kg", "over 30 kg and up to 50 kg")."""
_OTHER_BEFORE = deferred(
    r"(?<![\w'’])(?:(after|beyond|minimum|plus de|au moins|au-delà de|à partir de|dès|mindestens|ab|über|"
    r"mehr als|más de|al menos|a partir de|desde|mayores de)|(within|maximum|moins de|jusqu['’]à|au plus|"
    r"au maximum|höchstens|bis zu|bis|unter|weniger als|menos de|menores de|hasta|como máximo))"
    r"(?:\s+[^\W\d_]+){0,2}?\s+(\d+)(?!\w|[.,]\d)")
_OTHER_AFTER = deferred(
    r"(?<![\w.,])(\d+)(?:\s+[^\W\d_]+){0,2}?\s+(?:(ou plus|et plus|oder mehr|und mehr|und älter|o más|y más)|"
    r"(ou moins|et moins|oder weniger|o menos|y menos))(?![\w'’])")
_MAY_BOUND_OTHERWISE = deferred(
    r"after|beyond|within|imum|plus|moins|jusqu|dès|partir|mindestens|ab\b|über|mehr|bis|unter|weniger|"
    r"höchstens|más|menos|hasta|desde|máximo|mayores|menores")
"""Bounds `units.bounds` does not read, a claim's being compared with a page's words as written: in English
a time's ("within 60 days", "after 5 years") and a word between ("a minimum stay of 3 nights"), and in
French, German and Spanish ("groupes de 8 personnes ou plus", "moins de 8 personnes", "bis zu 2 Hunde", "a
partir de 65 años"). One search spares most sentences the two patterns."""
_RANGE = deferred(
    r"(?<![\w.,])(?:(?:between|from|over|above|more\s+than|de|entre|von|zwischen|desde)\s+(\d+)"
    r"(?:\s?[^\W\d_]{1,6})?\s+(?:(?:and|to|à|a|et|y|bis|und|hasta)"
    r"(?:\s+(?:up\s+to|under|below|less\s+than))?|up\s+to)\s+"
    r"|(\d+)(?:\s?[^\W\d_]{1,6})?\s*(?:-|–|to)\s*)"
    r"(?:[^\W\d_]{1,6}\s)?(\d+)(?!\w|[.,]\d)")
"""A range: "aged 12 to 25", "1-4 nights", "between 23 kg and 32 kg", "over 30 kg and up to 50 kg", "from
over 2 kg up to 10 kg", "from day 15 to day 30", "de 8 à 11 ans", "de 4 a 11 años", "von 6 bis 17". Its
second number may close the sentence ("for ages 4 to 14."): only a digit after a point or comma goes on
with it."""
_AGED = deferred(r"\bage[ds]?\s+(?:of\s+)?(?:[a-z]+\s+)?(\d+)(?!\w|[.,]\d)")
"""An age without a unit ("aged 16 and over", "under age 19", "ages 12 to 25"): of a figure's kind given in
years ("your 15-year-old")."""
_REQUIRED = deferred(
    r"(?<![\w'’])(?:must|need\s+to|needs\s+to|have\s+to|has\s+to|required\s+to|minimum|only|doi[st]|doivent|"
    r"muss|müssen|mindestens|nur|debe|deben|solo)(?:\s+\S+){0,3}?\s+(?:[$€£¥]\s?)?\d")
"""A requirement word a few words before a bounded number ("Drivers must be at least 21", "only open to
guests aged 16 and over", "minimum age 18"), not one after it ("Guests under 14 must be accompanied",
which requires something of those it bounds)."""
