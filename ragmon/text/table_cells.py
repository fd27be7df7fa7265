"""A passage's tables read cell by cell: the count a claim gives a row under a column is the one that row
gives there.

Plan, fare and membership pages are tables of counts: screens, devices, seats, checked bags, renewals,
guest passes, each a bare number in a cell under a header naming what it counts. A made-up answer gives
one row another column's or another row's count ("Premium lets you watch on 6 screens" where the Premium
row gives 4 screens and 6 download devices; "The Free plan supports up to 25 seats", the Team plan's), and
passed: the page states the number, and the row and its header hold the claim's words. A number with no
unit is left alone by `ragmon.text.passage_sentences`, as it is as often a name or a code; here a count is
the number right before the words a header names ("6 screens", "2 checked bags", "12 meeting room hours").
On a walkthrough's 72 answers about plans and quotas, written and labelled before this rule, 12 of 14
counts moved within a page had passed.

A claim's count is held to the cell at the crossing of the column whose header names the words after the
number (of those that do, the one sharing most of the claim's terms, then the most of its own) and the
row whose first cell names the claim's other words (one row, not two: "Standard allows 3, Premium 6"
compares rows). Transposed, with plans as columns ("| | Free | Team |" over "| Seats | 3 | 25 |"), the row
names the counted words and the column the plan. The cell must give a bare number and none of the claim's;
a sentence of the passage outside the table that gives the count and holds half of the claim's terms
("Each download device can hold ... 25 on Standard") states it otherwise, and so does any table whose
crossing gives it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ragmon.text.numbers import NUMBER_WORDS, shown, word_number
from ragmon.text.passage_sentences import SEPARATOR_ROW, Sentence, example_sentences
from ragmon.text.terms import TextProfile, prepare, read_profile, read_terms


@dataclass(frozen=True, slots=True)
class Miscounted:
    """A claim's count that the table's cell for it gives otherwise."""

    claimed: float
    row: str
    column: str
    cell: str

    def __str__(self) -> str:
        return (f"the table's {self.row!r} row gives {self.cell!r} under {self.column!r}, "
                f"not {shown(self.claimed)}")


@dataclass(frozen=True, slots=True)
class _Table:
    header: tuple[str, ...]
    header_terms: tuple[frozenset[str], ...]
    rows: tuple[tuple[str, ...], ...]
    """Each data row's cells, the first naming the row."""
    keys: tuple[frozenset[str], ...]
    """The terms of each row's first cell."""
    lines: frozenset[str]
    """Its lines as written, to tell its rows from the passage's other sentences."""


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


@functools.lru_cache(maxsize=32)
def tables(text: str) -> tuple[_Table, ...]:
    """The passage's Markdown tables: a header row, then data rows, the separator row skipped."""
    found: list[_Table] = []
    block: list[str] = []
    for line in (*text.split("\n"), ""):
        stripped = line.strip()
        if stripped.startswith("|"):
            if not SEPARATOR_ROW.issuperset(stripped):
                block.append(stripped)
            continue
        if len(block) >= 2:
            header, *rows = map(_cells, block)
            found.append(_Table(header, tuple(read_terms(cell)[0] for cell in header), tuple(rows),
                                tuple(read_terms(row[0])[0] for row in rows), frozenset(block)))
        block = []
    return tuple(found)


_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_COUNT = re.compile(
    r"(?<![\w.,$€£¥])([0-9][0-9,]*(?:\.[0-9]+)?|(?:" + _NUMBER_WORD + r")(?:-(?:" + _NUMBER_WORD + r"))?\b)"
    r"(?![0-9%]|[.,][0-9]| ?%)(?=(?: x)?((?: [^\W\d_][\w'-]*){1,4}))")
"""A number, in digits or words, and the up to four words after it, up to a punctuation mark or a digit:
"6 screens at the", "2 checked bags of", "twelve meeting room hours". Not a percentage, and not an amount
("$9 per seat": its sign is read before the number). The words are looked ahead at, not taken: a number
among them is a count of its own."""


_NO_THING = frozenset(read_terms("times time x")[0])
"""Words after a number that name no thing counted: "up to 2 times" counts renewals or doses."""


@functools.lru_cache(maxsize=4096)
def counts(claim: str) -> tuple[tuple[float, frozenset[str]], ...]:
    """The claim's counts: each number with the terms of the words after it."""
    found = []
    for match in _COUNT.finditer(re.sub(r"[*_`]+", "", prepare(claim))):
        written, words = match.groups()
        value = word_number(written) if written[0].isalpha() else float(written.replace(",", ""))
        if value is None:
            continue
        counted: list[str] = []
        for word in words.split():
            terms = read_terms(word)[0]
            if not terms:
                break  # the words that name what is counted end at the first function word
            counted.extend(terms)
        named = frozenset(counted) - _NO_THING
        if named:
            found.append((value, named))
    return tuple(found)


def miscounted(claim_text: str, claim: TextProfile, text: str,
               read_sentences: dict[str, tuple[Sentence, ...]]) -> Miscounted | None:
    """The first of the claim's counts that the table cell for it gives otherwise, stated nowhere else in
    the passage; None when there is none (see the module's docstring)."""
    found = tables(text)
    if not found:
        return None
    for value, after in counts(claim_text):
        if value not in claim.numbers:
            continue  # a word that only looks like a number word here
        crossings = [crossing for table in found if (crossing := _crossing(table, claim.terms, after))]
        if not crossings:
            continue
        wrong = [(row, column, cell) for row, column, cell, numbers in crossings
                 if value not in numbers and numbers.isdisjoint(claim.numbers)]
        if len(wrong) < len(crossings) or _stated_elsewhere(value, claim.terms, found, text, read_sentences):
            continue
        row, column, cell = wrong[0]
        return Miscounted(_told_as(value, claim_text, claim, row, column), row, column, cell)
    return None


def _told_as(value: float, claim_text: str, claim: TextProfile, row: str, column: str) -> float:
    """The claim's count a reason names against the cell: its own, unless the row's name or the column's
    header writes it ("Maximum in 24 hours"), when the cell is the claim's other count's: "1,000 requests in
    24 hours" against a Basic row's 100 had been told "not 24". The count written last before the header's
    number ("for 3 users ... 1,000 requests in 24 hours"), else any other number but an amount ("at $5"):
    "1k requests", "1,000 in 24 hours" and "2 thousand requests" are no counts `counts` reads whole."""
    named = read_profile(f"{row} {column}").numbers
    if value not in named:
        return value
    written = [count for count, _ in counts(claim_text) if count in claim.numbers]
    before = written[:written.index(value)] if value in written else written
    other = next((count for count in reversed(before) if count not in named), None)
    if other is not None:
        return other
    amounts = {number for number, _ in claim.units}
    return min(claim.numbers - named - amounts, default=value)


def _crossing(table: _Table, terms: frozenset[str], after: frozenset[str]
              ) -> tuple[str, str, str, frozenset[float]] | None:
    """(row name, column header, cell, the cell's bare numbers) where the claim's count belongs, if the table
    names one column for the counted words and one row for the claim's other terms (or, transposed, one row
    for the counted words and one column for the rest), and the cell gives a bare number."""
    column = _one_of(table.header_terms, terms, after, skip_first=True)
    if column is not None:
        row = _one_of(table.keys, terms - table.header_terms[column])
    else:
        row = _one_of(table.keys, terms, after)
        if row is None:
            return None
        column = _one_of(table.header_terms, terms - table.keys[row], skip_first=True)
    if row is None or column is None or column >= len(table.rows[row]):
        return None
    cell = table.rows[row][column]
    read = read_profile(cell)
    bare = read.numbers.difference(value for value, _ in read.units)
    if not bare:
        return None  # "Unlimited", "$12", "10 days per month": no count of the kind to compare
    return table.rows[row][0], table.header[column], cell, bare


def _one_of(names: tuple[frozenset[str], ...], terms: frozenset[str], after: frozenset[str] | None = None,
            skip_first: bool = False) -> int | None:
    """The header cell or row name (index) sharing most of the claim's terms, if one alone does and it
    names the counted words (`after`, when given); None otherwise. Most, not most of its own: a header
    holding "item" and "time" by chance ("Items on loan at one time") is no closer to "renew each item up
    to 2 times" than "Renewals per item"."""
    shared = [len(terms & name) if index or not skip_first else 0 for index, name in enumerate(names)]
    most = max(shared)
    if not most or shared.count(most) > 1:
        return None
    index = shared.index(most)
    return index if after is None or not after.isdisjoint(names[index]) else None


def _stated_elsewhere(value: float, terms: frozenset[str], found: tuple[_Table, ...], text: str,
                      read_sentences: dict[str, tuple[Sentence, ...]]) -> bool:
    """Whether a sentence outside the tables gives the count with half of the claim's terms, at least 2."""
    read = example_sentences(text, read_sentences)
    in_tables = frozenset().union(*(table.lines for table in found))
    fewest = max(2, len(terms) / 2)
    return any(len(sentence.terms & terms) >= fewest and value in sentence.read.numbers
               for sentence in read if sentence.text not in in_tables)
