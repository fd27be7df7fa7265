"""A passage's sentences, each read as a claim is: which sentence of a page gives which number.

The number rule asks only that a context state a claim's number somewhere, and policy, pricing and dosing
pages state numbers of one kind many times over: 8 business hours for one plan and 1 hour for another, 5
paid days for one relative and 3 for another, 30 days to make a change and 60 after losing other cover,
3 doses a day for children and 2 doses at once never. An answer giving one plan's figure to another passed
on the page's own words and numbers (13 made-up sentences of the English corpora did). So a claim's number
written with a unit is held to the sentences of the passage closest to the claim (`displaced`): those
sharing most of its terms, each of the claim's other numbers they give counting as one more (a row giving
the claim's price is closer than its neighbour with the same header; "For an iPhone 12, ..." is closer to
a claim about an iPhone 12 than "Trade in an eligible phone ..."), and sharing at least half of its
terms. When every such sentence gives another number with the same unit and not the claim's, the claim
moved the number: unless it is a claim of several rows. It is one when the closest sentences give
another of its numbers with that unit ("£1.20 in Zone 1, £1.55 for Zones 1-2 and £2.10 for Zones 1-3" lists
rows), or a sentence giving the claim's number holds a term of the claim the closest lack ("Lite is £8
with 5 GB, while Max is £20 with unlimited data" compares two rows, and the Lite row names Lite).

Only numbers with a unit: a bare number is as often a name or a code ("iPhone 13", "HTTP 404", "X200"),
which the closest sentence writes beside other codes; and a day of a month, which has none, is left to the
date rules. A table's row is read with its header row, and with the caption line before the table if that
ends in ":", as they name what its cells are ("| 3 | 60% |" under "| Years of vesting service | Vested
percentage |") and give numbers of theirs ("| Maximum in 24 hours |"); so is a list's item under such a
caption ("- 10-12 years: 10 mL"); a sentence under a Markdown heading with the heading ("## International");
and a sentence going on about the one before ("For these, the window is 15 days.", "Their SLA is 99.99%",
"Before that, it was $9") with that one, whose subject it names only so.

Measured on answers written for it (tests/judges/corpora/english_tables.jsonl and english_fees.jsonl, each
labelled by a walkthrough before the judge ran) and on the English corpora: 17 of 62 numbers moved within
a page caught, no sentence of a right answer flagged; on a red team's 380 hand-written pairs, 53 of 111
moved numbers caught and 10 of 269 true claims flagged (27 before its findings were fixed): the README
gives the figures of each version.

The same closest sentences are read for a claim's policy verdicts ("covered", "available", "refundable",
"waterproof"): "not" is a function word, so "The laptop is not covered by warranty" held every term of
"The laptop is covered by warranty" (`turned`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple

from ragmon.text.claims import sentence_spans, soft_wraps
from ragmon.text.numbers import MONTH_WORDS, digits_of
from ragmon.text.terms import TERMS, TextProfile, prepare, read_profile, read_terms, separated, wordset
from ragmon.text.units import written
from ragmon.text.verdicts import VERDICTS


class Sentence:
    """A sentence or a table row of a passage: its terms (a row's with its header's, an item's with its
    caption's), and its numbers and units, read only for the few sentences a claim's comparison comes down
    to. Reading every sentence of a page as a claim had cost 200 us a page of the English corpora, its
    terms a quarter of that. Read once by whichever thread asks first (both would read the same)."""

    __slots__ = ("_read", "_stance", "going_on", "numbered", "terms", "text", "with_")

    def __init__(self, text: str, with_: Sentence | None = None, going_on: bool = False) -> None:
        self.text = text
        terms, numbered = read_terms(text)
        self.terms: frozenset[str] = terms if with_ is None else terms | with_.terms
        self.numbered: bool = numbered or (with_ is not None and with_.numbered)
        """Whether it may give a number: one that cannot is not read for them."""
        self.with_ = with_
        """The header or caption it is read with, or the sentence it goes on about."""
        self.going_on = going_on
        """Whether `with_` is the sentence before, whose subject this one's is ("Before that, it was $9"):
        all its numbers are this one's, where a header's or caption's are only those with units (a bare
        "1" of a header's "P1" is no row's number)."""
        self._read: TextProfile | None = None
        self._stance: Stance | None = None

    @property
    def read(self) -> TextProfile:
        """Its numbers and units (`read_profile`), with those of its header or caption ("| Maximum in 24
        hours |" gives every row its 24 hours)."""
        if self._read is None:
            read = read_profile(self.text)
            if self.with_ is not None:
                other = self.with_.read
                given = other.numbers if self.going_on else {value for value, _ in other.units}
                read = TextProfile(read.terms, read.numbers | given, read.literals, read.units | other.units)
            self._read = read
        return self._read

    @property
    def stance(self) -> Stance:
        """The verdicts it states (`stance`), read once: every claim with a verdict reads the closest
        sentences of every context, and reading them again for each had made 400 claims against 10 pages of
        200 sentences take 4.9 s, not 0.01 s."""
        if self._stance is None:
            self._stance = stance(self.text)
        return self._stance


@dataclass(frozen=True, slots=True)
class Displaced:
    """A claim's number with its unit that the passage's closest sentence gives otherwise."""

    claimed: str
    given: str
    excerpt: str
    """The sentence, or up to `_EXCERPT` characters of it around the number it gives."""

    def __str__(self) -> str:
        return f"its closest sentence gives {self.given}, not {self.claimed}: {self.excerpt!r}"


def _number_excerpt(sentence: str, value: float) -> str:
    """A long sentence cut around the number it gives: the reason must show that number."""
    at = re.search(r"(?<![0-9.,])" + re.escape(digits_of(value)) + "(?![0-9])", sentence)
    return _excerpt(sentence, at.start() if at is not None else 0)


def _excerpt(sentence: str, at: int) -> str:
    """A long sentence cut to whole words around `at`, where what the reason names is."""
    if len(sentence) <= _EXCERPT:
        return sentence
    start = max(0, at - _EXCERPT // 2)
    end = min(len(sentence), start + _EXCERPT)
    start = max(0, end - _EXCERPT)
    if start:  # whole words only
        start = sentence.find(" ", start) + 1 or start
    if end < len(sentence):
        end = sentence.rfind(" ", start, end) if " " in sentence[start:end] else end
    return f"{'...' if start else ''}{sentence[start:end].strip()}{'...' if end < len(sentence) else ''}"


_EXCERPT = 100
SEPARATOR_ROW = frozenset("|-: \t")
"""The characters of a Markdown table's separator row ("|---|:---:|"), which holds no cell."""


@functools.lru_cache(maxsize=32)
def sentences(text: str) -> tuple[Sentence, ...]:
    """The sentences of a passage, its table rows each one. Read only for a passage that states a claim's
    number with a unit and otherwise supports the claim, and kept for the last 32 asked: an example's other
    claims ask again, and retrieved passages recur. Terms only: numbers when a claim's comparison needs
    them (`Sentence.read`)."""
    found: list[Sentence] = []
    header: Sentence | None = None  # the current table's header row, read with its caption
    caption: Sentence | None = None  # the sentence before a table or a list, if it ends in ":"
    section: Sentence | None = None  # the last Markdown heading's ("## International")
    for line in _unwrapped(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == "#":
            section, header, caption = Sentence(stripped.lstrip("#").strip()), None, None
            continue
        if stripped[0] == "|":
            if SEPARATOR_ROW.issuperset(stripped):
                continue
            if header is None:  # captioned only by the line right above it, not by a list's caption
                header = Sentence(stripped, caption if found and caption is found[-1] else section)
                found.append(header)
                caption = None
            else:
                found.append(Sentence(stripped, header))
            continue
        header = None
        item = caption if caption is not None and _ITEM.match(stripped) is not None else None
        for start, end in sentence_spans(line):
            sentence = line[start:end]
            # A sentence going on about the one before ("For these, the window is 15 days.") is read with it.
            going_on = bool(found) and _GOING_ON.match(sentence) is not None
            found.append(Sentence(sentence, found[-1] if going_on else item or section, going_on))
        if stripped.endswith(":") and found:
            caption = found[-1]
        elif item is None:
            caption = None
    return tuple(found)


def _unwrapped(text: str) -> list[str]:
    """The lines of `text`, each with the lines going on with its sentence (`soft_wraps`): a page wrapped
    at a width (a PDF's text, a plain-text file) had "The Starter plan costs\n$19 per month." as two
    sentences, the one a claim shares its terms with holding no price, and a price moved from the Team
    plan's sentence passed."""
    lines = text.split("\n")
    if len(lines) == 1:
        return lines
    joins = soft_wraps(lines, [True] * len(lines))
    out: list[str] = []
    run: list[str] = []  # the lines of one sentence wrapped over them, joined once (a page may be megabytes)
    for line, joined in zip(lines, joins, strict=True):
        if not run and not joined:
            out.append(line)
            continue
        run.append(line.strip() if run else line.rstrip())
        if not joined:
            out.append(" ".join(run))
            run = []
    return out


_GOING_ON = re.compile(
    r"(?i:(?:for|after|before|unlike|in|with|of|on|at|by|since|besides|beyond|under|over) )?(?i:these|those|"
    r"this|that|them|they|their|it|its|such|the latter|the former|celui-ci|celle-ci|ceux-ci|celles-ci|ils|"
    r"elles|leur|leurs|diese[rsnm]?|sie|ihre?|estos|estas|esto|su|sus|questi|queste|esse|essa|esses|essas)\b"
    r"|[其它该此這这]")
"""The opening of a sentence whose subject is the one before's: "For these", "After that", "Their SLA",
"They run", "Celui-ci", "其"."""
_ITEM = re.compile(r"(?:[-*+•]|[0-9]{1,2}[.)])\s")
"""A list item's marker: an item under a caption ("For children aged 6 years and over:") is read with it,
as a table's row is with its header."""


def example_sentences(text: str, read_sentences: dict[str, tuple[Sentence, ...]]) -> tuple[Sentence, ...]:
    """The passage's `sentences`, kept in `read_sentences`, the example's own: an example of 50 contexts
    would turn over `sentences`' cache."""
    read = read_sentences.get(text)
    if read is None:
        read = read_sentences[text] = sentences(text)
    return read


def displaced(claim: TextProfile, text: str,
              read_sentences: dict[str, tuple[Sentence, ...]]) -> Displaced | None:
    """The first of the claim's numbers with a unit (in order) that the passage's closest sentences all
    give otherwise (see the module's docstring); None when none is, or the passage is over `LONGEST`
    characters or `MOST` sentences. `read_sentences` keeps the sentences of the example's passages: with
    more passages than `sentences` keeps, each claim read every passage again (50 passages of 150
    sentences, 300 claims: 16.8 s, 1.1 s before the rule)."""
    if len(text) > LONGEST:
        return None
    read = example_sentences(text, read_sentences)
    if len(read) > MOST:
        return None
    terms = claim.terms
    shared = [len(terms & sentence.terms) for sentence in read]
    most_shared = max(shared, default=0)
    fewest = max(_FEWEST_SHARED, _SHARE * len(terms))
    if most_shared < fewest:
        return None  # no sentence is close enough to hold the claim to
    # What the sentences are scored on besides terms: the claim's numbers with units, and its bare numbers
    # (a model's, a size's or a band's: "iPhone 12", "15-inch", "Two-bedroom"), as (value, "").
    bare = claim.numbers.difference(value for value, _ in claim.units)
    marks = claim.units | {(value, "") for value in bare}
    whole = len(terms)
    if any(count == whole and sentence.numbered and all(_gives(sentence.read, *pair) for pair in marks)
           for sentence, count in zip(read, shared, strict=True)):
        return None  # a sentence holding all its terms and numbers is the closest there can be: copied
    # A sentence's score is its shared terms plus the claim's other numbers it gives: only those within
    # that many of the most shared can be closest, and only they are read for their numbers.
    within = most_shared - len(marks) + 1
    gives = [frozenset(pair for pair in marks if _gives(sentence.read, *pair))
             if count >= within and sentence.numbered else _NOTHING
             for sentence, count in zip(read, shared, strict=True)]
    for number, unit in sorted(claim.units):
        others = marks - {(number, unit)}
        score = [count + len(given & others) for count, given in zip(shared, gives, strict=True)]
        most = max(score, default=0)
        closest = [(sentence, count, given)
                   for sentence, count, given, points in zip(read, shared, gives, score, strict=True)
                   if points == most]
        if any(count < fewest or (number, unit) in given
               for _, count, given in closest):
            continue
        if any(value != number and its_unit == unit for _, _, given in closest for value, its_unit in given):
            continue  # the closest give another of the claim's numbers with this unit: a list of rows
        lacked = terms.difference(*[sentence.terms for sentence, _, _ in closest])
        lacked_numbers = others.difference(*[given for _, _, given in closest])
        if any(_another_row(sentence, number, unit, lacked, lacked_numbers) for sentence in read):
            continue  # the sentence giving it names what the closest do not: a claim of two rows
        given_otherwise = [_other(claim, number, unit, sentence) for sentence, _, _ in closest]
        value = given_otherwise[0]
        if value is not None and None not in given_otherwise:
            return Displaced(written(number, unit), written(value, unit),
                             _number_excerpt(closest[0][0].text, value))
    return None


_NOTHING: frozenset[tuple[float, str]] = frozenset()


def _gives(read: TextProfile, number: float, unit: str) -> bool:
    """Whether a sentence gives the number with the unit, or bare: not "40%" for "$40". A bare number of
    the claim's (`unit` ""), with any unit or none."""
    return number in read.numbers and (not unit or (number, unit) in read.units
                                       or not any(value == number for value, _ in read.units))


def _another_row(sentence: Sentence, number: float, unit: str, lacked: frozenset[str],
                 lacked_numbers: frozenset[tuple[float, str]]) -> bool:
    """Whether the sentence gives the claim's number and names a term, or gives another number, of the
    claim's that the closest sentences lack. The term test first: a sentence that can name nothing lacked
    is not read for its numbers."""
    named = not lacked.isdisjoint(sentence.terms)
    if not sentence.numbered or not (named or lacked_numbers):
        return False
    read = sentence.read
    return _gives(read, number, unit) and (named or any(_gives(read, *pair) for pair in lacked_numbers))


def _other(claim: TextProfile, number: float, unit: str, sentence: Sentence) -> float | None:
    """The least number `sentence` gives with `unit` that the claim does not state."""
    return min((value for value, its_unit in sentence.read.units
                if its_unit == unit and value != number and value not in claim.numbers), default=None)


LONGEST = 20_000
MOST = 200
"""The longest passage read sentence by sentence, in characters (~3,000 words) and in sentences: each claim
compares its terms with every sentence, and an answer of a megabyte of claims with units took 70 s against
a passage of a megabyte and 22 s against one of 49 KB (2,450 sentences), where the rest of the judge took 7
s. Retrieved chunks and pages are far shorter (a few dozen sentences); a longer one keeps the number rule
alone."""

_FEWEST_SHARED = 2
_SHARE = 0.5
"""The closest sentence must share at least 2 of the claim's terms and half of them: a sentence sharing
fewer is no sentence the claim restates, and another number in it says nothing about the claim's."""


_NOUN_FORMS = wordset("cover support refund return exchange permit guarantee cancel insure")
"""Forms of verdicts that are nouns as often ("a phone cover", "phone support", "a full refund"): a verdict
only after a negation ("doesn't cover screens", "cannot refund")."""
PREDICATE_TERMS = frozenset(read_terms(" ".join(VERDICTS | _NOUN_FORMS))[0])
"""The terms of the verdicts ("cover", "avail", "refund"): a claim holding none, most, states no verdict
and is not read for one."""
_FORMS = VERDICTS | _NOUN_FORMS
_NEGATIONS = wordset("not never cannot")
"""With "n't" and "no longer", what negates a verdict right before it ("cannot be refunded")."""
_BETWEEN = wordset("be been currently")
"""Words a negation may stand apart from its verdict by ("isn't currently available", "not be covered"). Not
"always": "Accidental damage is not always covered" says it sometimes is."""
_NEGATING_TERMS = frozenset(read_terms("never longer currently")[0])
"""The terms of the words of a negation (`_NEGATIONS`, "no longer", `_BETWEEN`) that are content terms: part
of the verdict, not of what it is about, so no sentence the claim copies needs them. Needed, "The setup fee
is never waived." and "The Atlas pass is no longer covered." were never compared with "The setup fee is
waived." and "The Atlas pass is covered.", which hold no "never" nor "longer"."""
_DENIALS = wordset("not never no nor neither none nothing without cannot")
_CONDITIONS = wordset("""
    if unless except only when once until before after within under over below above less more fewer least
    most without outside beyond from starting will was yet longer currently
    """)
"""The words a verdict is made conditional with: "Refunds are not available after 30 days" does not deny
"Refunds are available within 30 days", nor "Shipping is not free under $50" "Shipping is free over $50".
A time is one too ("used to be" read as "was"): "Dark mode isn't available yet" does not deny "Dark mode
will be available from March 2027", nor "The Classic plan is no longer available" "The Classic plan was
available until 2023"."""
_PAST = frozenset(("was",))
_EXCEPTIONS = wordset("except unless only until excluding but")
"""Words with which an affirmed verdict leaves something out, which a negated claim may be about: "The
battery is not covered" restates "All parts are covered except the battery" (with "other than")."""
_BOTH_WAYS_AFTER = wordset("but while whereas")
_AFFIRMING_VERBS = wordset("is are does do can will")
"""After a negated verdict, "but", "while" or "whereas" and then one of these affirm the verdict of another
subject ("Phones are not covered, but laptops are."): the sentence rules both ways."""
_ANSWERED_NO = re.compile(r"\bno,")
"""A "No," answering a question, which denies nothing the sentence goes on to say ("No, water damage is not
covered")."""


@dataclass(frozen=True, slots=True)
class Turned:
    """A claim's verdict that the passage's closest sentence gives the other way."""

    claimed: str
    given: str
    excerpt: str

    def __str__(self) -> str:
        return f"its closest sentence says {self.given!r}, not {self.claimed!r}: {self.excerpt!r}"


class Stance(NamedTuple):
    """What a text rules: each verdict's term with whether it is negated (None: both ways) and the words
    it is stated in, the words it is made conditional with (`_CONDITIONS`), and whether it leaves something
    out (`_EXCEPTIONS`)."""

    verdicts: dict[str, tuple[bool | None, str]]
    conditions: frozenset[str]
    excepting: bool


NO_STANCE = Stance({}, frozenset(), False)
_CLOSERS = "*_\"'`)]}\u201d\u2019 \t\n"
"""What may close a question after its mark: bold, quotes, brackets ("**Is water damage covered?**")."""


_CLAUSES = re.compile(
    r"[;,:]|\b(?:but|while|whereas|however|though|although|except|unless|only|until|when|whenever|if|or|"
    r"nor|besides|apart|aside|excluding|exception|other than|once|instead|rather)\b")
"""What joins a clause to a sentence: punctuation inside it, a contrast, an exception, a condition, a list of
alternatives. A review of the veto on 42 grounded answers to support pages found 17 false alarms, every one
in a sentence of two clauses: another subject ("Laptops are covered; phones are excluded." turned "Phones are
not covered."), an exception the guard's words missed ("with the exception of", "apart from", "aside
from"), a verdict both ways ("however, laptops are"), a negation carried over "or" ("can't be returned or
exchanged")."""
_ANSWERING = re.compile(r"(?:yes|no)\b[,.!]?\s*")
"""A "Yes," or "No," opening an answer on the page, which joins no clause ("No, water damage is not
covered.")."""


def _one_clause(text: str) -> bool:
    """Whether a sentence is one clause (`_CLAUSES`), the only kind the veto reads: which subject a verdict
    of a longer one is about is a parse a lexical judge cannot make, and a false alarm on a grounded answer
    costs more trust than a missed flip, which the README lists as a limit."""
    body = _ANSWERING.sub("", text.strip().lower(), count=1).rstrip(_CLOSERS + " .!")
    return _CLAUSES.search(body) is None


def _asks(text: str) -> bool:
    """Whether the text is a question, which states no verdict ("Is water damage covered?"), as a page's
    bold FAQ heading or as a claim restating what was asked."""
    return text.rstrip(_CLOSERS).endswith("?")


def stance(text: str) -> Stance:
    """The verdicts a text states: a claim's, asked only of one holding a term of `PREDICATE_TERMS`, and
    the closest sentences' of a passage that otherwise supports it. A verdict is negated when "not", "n't",
    "never", "no longer" or "cannot" comes right before it, or with up to two of `_BETWEEN` between: "not
    only covered" is no negation. None of a text denying anything more (`_DENIALS`, "rather than",
    "instead of"): "available on Business, but not on Free" makes "available" no verdict on Free, "applied
    to the invoice rather than refunded" no refund, and "Nothing is not covered" (a double negation) is
    left unread, as is a question (`_asks`). A negated verdict that "but", "while" or "whereas" goes on to
    affirm of another subject ("Phones are not covered, but laptops are.") is ruled both ways. Read from
    its words, a set test first: three regexes had cost 50 us a text."""
    if _asks(text):
        return NO_STANCE
    low = prepare(text)
    if "no," in low:
        low = _ANSWERED_NO.sub(" ", low)
    words = separated(low).split()
    if _FORMS.isdisjoint(words):
        return NO_STANCE
    found: dict[str, tuple[bool | None, str]] = {}
    bound = 0  # the negations of verdicts
    for at, form in enumerate(words):
        if form not in _FORMS:
            continue
        negated = _negated(words, at)
        if not negated and form in _NOUN_FORMS:
            continue
        bound += negated
        term = TERMS[form]
        before = found.get(term)
        said = f"not {form}" if negated else form
        ruled = None if negated and _affirmed_after(words, at) else negated
        found[term] = (ruled, said) if before is None or before[0] == ruled else (None, before[1])
    denials = (sum(1 for word in words if word in _DENIALS or word.endswith("n't"))
               + low.count("rather than") + low.count("instead of"))
    if not found or denials > bound:
        return NO_STANCE
    conditions = _CONDITIONS.intersection(words)
    if "used to be" in low:  # "The Classic plan used to be available": a past, as "was" is
        conditions |= _PAST
    if "from" in conditions and _FROM_A_TIME.search(low):
        conditions |= _STARTING
    return Stance(found, conditions, not _EXCEPTIONS.isdisjoint(words) or "other than" in low)


def _affirmed_after(words: list[str], at: int) -> bool:
    """Whether the first of `_BOTH_WAYS_AFTER` after the word at `at` is followed by an affirming verb
    (`_AFFIRMING_VERBS`): "not covered, but laptops are"."""
    turn = next((after for after in range(at + 1, len(words)) if words[after] in _BOTH_WAYS_AFTER), None)
    return turn is not None and not _AFFIRMING_VERBS.isdisjoint(words[turn + 1:])


def _negated(words: list[str], at: int) -> bool:
    """Whether a negation stands right before the word at `at`, or with up to two of `_BETWEEN` between."""
    before = at - 1
    while before >= 0 and at - before <= 3 and words[before] in _BETWEEN:
        before -= 1
    if before < 0 or at - before > 3:
        return False
    word = words[before]
    return (word in _NEGATIONS or word.endswith("n't")
            or (word == "longer" and before > 0 and words[before - 1] == "no"))


def negated_in_words(low: str) -> frozenset[str]:
    """The terms a `prepare`d text writes only right after a negation in words (`_negated`: "not
    refundable", "isn't available", "cannot be refunded", "won't be refunded", "never refundable", "no
    longer available"), which it states as their opposite words ("non-refundable", "unavailable") do: "not"
    is a function word, so "Gift cards are not refundable" held "refund" against a page's "Gift cards are
    non-refundable." A term it also writes plainly it uses both ways, and is none of them."""
    if not ("not" in low or "n't" in low or "never" in low or "longer" in low):  # C-level: most texts
        return frozenset()
    words = separated(low).split()
    negated: set[str] = set()
    plain: set[str] = set()
    for at, word in enumerate(words):
        if term := TERMS[word]:
            (negated if _negated(words, at) else plain).add(term)
    return frozenset(negated - plain)



def turned(claim: TextProfile, claimed: Stance, text: str,
           read_sentences: dict[str, tuple[Sentence, ...]]) -> Turned | None:
    """The first of the claim's verdicts (`claimed`) that every closest sentence of the passage naming it
    gives only the other way, under no condition the negated side lacks: the claim negated, no condition
    of its the sentence lacks ("not covered" against "covered if registered"); affirmed, none of the
    sentence's it lacks ("available" is not denied by "not available after 30 days"). None when none is,
    or no closest sentence names one. The closest sentences share most of the claim's terms and hold every
    one but its verdicts' own: a claim turning a verdict copies its sentence, and "Receipts for meals are
    not required" is not turned by "An itemized receipt is required for any expense of $75 or more", nor
    "Refunds are available for annual subscriptions" by "Refunds are not available for monthly
    subscriptions" (allowing one term of 4 or more to miss, the one telling the subject). A page saying
    "Laptops are covered. Phones are not covered." holds a claim about laptops to the first alone. A
    question states nothing ("Is water damage covered?", `_asks`), nor does a sentence stating the verdict
    both ways ("Laptops are covered; phones are not covered.")."""
    if len(text) > LONGEST:
        return None
    if not any(way for way, _ in claimed.verdicts.values()) and not _may_negate(text):
        return None  # an affirmed verdict is turned only by a negation, and the page writes none
    read = example_sentences(text, read_sentences)
    if len(read) > MOST:
        return None
    # Only sentences naming a verdict's term are read for their stance: reading every sentence of every new
    # passage (`_rulings`, as it was) had taken 44% of the offline gate's time, halving its examples/s.
    otherwise = {(term, not way) for term, (way, _) in claimed.verdicts.items() if way is not None}
    named = {term for term, _ in otherwise}
    if not any((term, ruled) in otherwise for sentence in read if not named.isdisjoint(sentence.terms)
               for term, (ruled, _) in sentence.stance.verdicts.items()):
        return None  # no sentence gives a verdict of the claim's the other way
    terms = claim.terms
    needed = terms.difference(claimed.verdicts).difference(_NEGATING_TERMS)
    shared = [len(terms & sentence.terms) if needed <= sentence.terms else 0 for sentence in read]
    most = max(shared, default=0)
    if most < _FEWEST_SHARED:
        return None  # no sentence the claim copies: one lacking a term but its verdict's is about another
    closest = [sentence for sentence, count in zip(read, shared, strict=True) if count == most]
    for term, (negated, words) in claimed.verdicts.items():
        naming = [sentence for sentence in closest
                  if term in sentence.terms and not _asks(sentence.text) and _one_clause(sentence.text)]
        if negated is None or not naming:
            continue
        first = _given_otherwise(naming[0], term, negated, claimed.conditions)
        if first is not None and all(_given_otherwise(sentence, term, negated, claimed.conditions) is not None
                                     for sentence in naming[1:]):
            shown = naming[0].text
            return Turned(words, first, _excerpt(shown, shown.lower().find(first.split()[-1])))
    return None


def _may_negate(text: str) -> bool:
    """Whether `text` may negate a verdict (`_negated`: "not", "cannot", "never", "n't", "no longer"), by
    substrings of it in lower case, C-speed: a page that writes none is not split into sentences for a claim
    affirming its verdicts, which had been half the offline gate's time on pages never read so before."""
    low = text.lower()
    return any(word in low for word in _NEGATION_STEMS)


_NEGATION_STEMS = ("not", "n't", "n\u2019t", "never", "longer")
"""Substrings of every negation `_negated` reads ("cannot" holds "not"; "no longer" "longer")."""


def _given_otherwise(sentence: Sentence, term: str, negated: bool, conditions: frozenset[str]) -> str | None:
    """How the sentence states the verdict, when only the other way than the claim and under no condition
    the negated side lacks; else None. A negated claim is not turned by a sentence leaving something out
    ("The battery is not covered" against "All parts are covered except the battery")."""
    own = sentence.stance
    given = own.verdicts.get(term)
    if given is None or given[0] is not (not negated) or (negated and own.excepting):
        return None
    narrower, wider = (conditions, own.conditions) if negated else (own.conditions, conditions)
    if wider.difference(narrower).isdisjoint(_TIMES):
        narrower = narrower.difference(_NOW)
    return given[1] if narrower <= wider else None


_NOW = frozenset(("longer", "currently"))
_TIMES = frozenset(("will", "was", "yet", "starting", "until", "before", "after", "within"))
""""No longer" and "currently" set a time against a side that states one the other lacks ("was available
until 2023", "will be available soon", "available within 30 days of purchase", "from March"), not against
a verdict stated plainly, under a condition that is no time, or under the same time, which they deny: "The
Classic plan is no longer available." turns "The Classic plan is available.", "The fee is not currently
waived." "The fee is waived.", "Dark mode is not currently available on the desktop app." "Dark mode is
only available on the desktop app.", "... no longer available from March." "... available from March.", and
the other way round; held to a side with no condition at all, "only available on the desktop app" passed,
and held to any time on the other side, "available from March" and "available from our resellers" did."""
_STARTING = frozenset(("starting",))
_FROM_A_TIME = re.compile(
    r"\bfrom\s+(?:[0-9]|q[1-4]\b|(?:early|mid|late)\b|(?:spring|summer|autumn|fall|winter)\b|v(?:ersion)?\s?[0-9]"
    r"|(?:now|today|tomorrow|tonight|next|then|launch|release)\b|(?:the\s+)?(?:start|end|beginning|first|1st|"
    r"next|following|launch|release|date|day|week|month|year|quarter|season)\b"
    r"|(?:" + "|".join(sorted(MONTH_WORDS)) + r")\b)|\bonwards?\b")
"""A "from" that opens a time ("from March", "from 1 May", "from Q3 2026", "from mid-2026", "from spring",
"from version 4.0", "from the next release", "from launch day onwards"), which is a start as "starting"
is; "from our resellers" and "from the app" are none."""
