"""The default judge: deterministic, offline and free, so it can score every trace.

A claim is supported by one context when enough of its stemmed content terms occur in that context, every
number it states and every name it writes as code (`ragmon.text.literals`) occur there too, and the context
does not use the opposite of one of its words ("non-refundable" against "refundable", the claim's
negation in words such as "not refundable" read as the opposite word) without the word itself, nor give one
of its policy verdicts the other way in the sentence the claim copies ("The laptop is covered" against "The
laptop is not covered": `passage_sentences.turned`). Each context is judged on its own: a claim whose terms
are only covered by stitching two passages together is exactly the kind of confabulation we want to catch.
The README's judge section gives each rule with the figures it earned against human labels.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, SupportsFloat

from ragmon.model import Claim, ClaimVerdict, Example, real_as_written
from ragmon.options import fraction
from ragmon.text import how_often
from ragmon.text.bound_sentences import NEGATED, bound_sentences
from ragmon.text.claims import claim_profile
from ragmon.text.numbers import shown
from ragmon.text.own_figures import ages_spelled, agreed, negated, own_figures, speaks_to_the_user
from ragmon.text.passage_sentences import (
    LONGEST,
    NO_STANCE,
    PREDICATE_TERMS,
    Displaced,
    Sentence,
    Stance,
    Turned,
    displaced,
    example_sentences,
    negated_in_words,
    stance,
    turned,
)
from ragmon.text.passages import Passage, passage, release
from ragmon.text.table_cells import Miscounted, miscounted
from ragmon.text.terms import NEGATION, TERMS, TextProfile, opposite, prepare, read_profile, read_terms
from ragmon.text.units import (
    BOUND_WORDS,
    ONE_WORD_PERIODS,
    PERIOD_WORDS,
    bounded_otherwise,
    bounds,
    may_bound,
)

DEFAULT_THRESHOLD = 0.56
"""Share of a claim's content terms one context must contain. Chosen on human sentence labels (SALAD
dev, 519 claims; see the README's judge section)."""


_FLOAT_SLACK = 1e-9
"""Far below one term of any claim, far above a product's rounding error."""


class LexicalJudge:
    """The default judge: a claim is supported when one context holds `threshold` of its content terms,
    every number and literal it states and no opposite of its words (the module's docstring gives the
    rules).

    Stateless apart from its threshold: safe to share between threads and event-loop tasks."""

    name = "lexical"
    deterministic = True
    """The same verdicts on every run: `ragmon replay --repeat` scores it once."""

    def __init__(self, threshold: SupportsFloat = DEFAULT_THRESHOLD) -> None:
        # A bool would pass as 1 (every term needed) and a string fail at the comparison, naming neither.
        # Any real number is taken (numpy's float32 from a config table, a database's Decimal), and stored
        # as the float it was written as: numpy's float32 0.6 read as 0.6000000238418579 needed more than
        # 3 terms of 5. The wrong type is a TypeError, a number out of range a ValueError, as for every
        # argument of the API.
        share = real_as_written(threshold)
        if share is None or not 0.0 < share <= 1.0:
            raise (TypeError if share is None else ValueError)(
                f"threshold must be a number in (0, 1], got {threshold!r}")
        self._threshold = share

    @property
    def threshold(self) -> float:
        """Read-only: set after the check above, 7 was taken, and `settings()` put it in every report."""
        return self._threshold

    def __repr__(self) -> str:
        return f"LexicalJudge(threshold={self.threshold!r})"

    def settings(self) -> Mapping[str, Any]:
        return {"threshold": self.threshold}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        # Every distinct text is read, even under an id already seen: chunks of one file often share the
        # file's name as their id, and each is something the generator saw.
        contexts = [(ctx_id, text, passage(text))
                    for ctx_id, text in dict.fromkeys((ctx.id, ctx.text) for ctx in example.contexts or ())]
        try:
            read_sentences: dict[str, tuple[Sentence, ...]] = {}  # this example's, whatever `sentences` keeps
            return tuple(_verdict(claim, claim_profile(claim.text, example.question), self.threshold,
                                  contexts, read_sentences, example.question) for claim in claims)
        except AttributeError:
            # Sentences passed as strings failed with "'str' object has no attribute 'text'". Told apart
            # here, once something failed, so that judging claims costs no check at all.
            _refuse_non_claims(claims)
            raise
        finally:
            release()


def _refuse_non_claims(claims: Sequence[object]) -> None:
    """A TypeError naming the first claim that is not one, and where claims come from."""
    for index, claim in enumerate(claims):
        if not isinstance(claim, Claim):
            raise TypeError(f"claims[{index}] must be a ragmon.model.Claim, got {type(claim).__name__} "
                            f"{claim!r:.80}: split the answer with ragmon.text.claims.split_claims(answer)") \
                from None


def _verdict(claim: Claim, claim_profile: TextProfile, threshold: float,
             contexts: Sequence[tuple[str, str, Passage]],
             read_sentences: dict[str, tuple[Sentence, ...]], question: str) -> ClaimVerdict:
    # The user's own figures restated ("so your 15-year-old qualifies") count towards the claim's numbers,
    # as ever, but no page need state them.
    all_numbers = claim_profile.numbers
    if all_numbers and (given := _users_own(claim, claim_profile, question, contexts)):
        claim_profile = TextProfile(claim_profile.terms - ages_spelled(claim.text, given),
                                    all_numbers - given, claim_profile.literals,
                                    frozenset(unit for unit in claim_profile.units if unit[0] not in given))
    terms, numbers, named, measured = (claim_profile.terms, claim_profile.numbers, claim_profile.literals,
                                       claim_profile.units)
    # A claim made only of numbers (and function words) is supported by a context holding them all.
    # Less a hair: 0.56 x 25 is 14.000000000000002 in floats, which made 14 of 25 terms, exactly the
    # "at least 56%" the threshold promises, fall short (at 0.14, 0.28 and 0.56 among 0.01 to 1.00).
    needed = threshold * len(terms) - _FLOAT_SLACK
    lowered: float | None = None  # what is needed with its numbers counted, worked out when it matters
    opposites = _doubled_opposites(terms)
    counted: frozenset[how_often.Count] | None = None  # worked out at the first context that passes the rest
    bounded: Bounds | None = None  # likewise: its numbers given with a bound
    ruled: Stance | None = None  # likewise: its verdicts ("not covered")
    denied: frozenset[str] | None = None  # at the first context using one of its words' opposites: its
    # words negated in words ("not refundable"), for `_restates` and `_meant`
    supporting = []
    closest: tuple[int, str, Passage, str, set[str]] | None = None  # the first context sharing most terms
    # Contexts that pass the rest but give a number otherwise, or one of its verdicts the other way.
    moved: dict[str, Displaced | Miscounted | Turned] = {}
    negatable: frozenset[str] | None = None  # its terms' opposites, if it may negate one in words
    for ctx_id, text, read in contexts:
        held = read.terms & terms
        shared = len(held)
        if 0 < len(terms) - shared <= _MOST_NEGATED:
            negatable = _negatable(claim.text, terms) if negatable is None else negatable
            if negatable and not read.terms.isdisjoint(negatable):
                denied = negated_in_words(prepare(claim.text)) if denied is None else denied
                if _restates(terms, held, denied, text, read, read_sentences):
                    held, shared = set(terms), len(terms)
        if closest is None or shared > closest[0]:
            closest = (shared, ctx_id, read, text, held)
        if shared < needed:
            if not all_numbers:
                continue
            if lowered is None:
                lowered = needed - _counted(all_numbers) * (1.0 - threshold)
            if shared < lowered:
                continue
        if ((numbers and not read.states(numbers)) or (named and read.lacks(named))
                or (measured and read.clashes(measured))):
            continue
        # A passage holding every term contradicts none (`_contradictions`): most that pass the rest do.
        if (opposites is not None or shared < len(terms)) and (
                found := _contradictions(terms, held, read, opposites)):
            denied = negated_in_words(prepare(claim.text)) if denied is None else denied
            if _meant(found, denied):
                continue
        if not terms.isdisjoint(FREQUENCIES) and _other_frequency(terms, read):
            continue
        counted = _counts(claim, terms, numbers) if counted is None else counted
        if counted and read.counts_otherwise(counted):
            continue
        # Before the bounds: a number moved to another sentence is the more exact reason, and the one kept.
        if measured and (elsewhere := displaced(claim_profile, text, read_sentences)) is not None:
            moved[ctx_id] = elsewhere
            continue
        if numbers:
            bounded = _bounds(claim, claim_profile, threshold) if bounded is None else bounded
            if bounded.given and _bounded_otherwise(bounded, text):
                continue
        if numbers and "|" in text and (
                miscount := miscounted(claim.text, claim_profile, text, read_sentences)) is not None:
            moved[ctx_id] = miscount
            continue
        ruled = _stance(claim, terms) if ruled is None else ruled
        if ruled.verdicts and (other := turned(claim_profile, ruled, text, read_sentences)) is not None:
            moved[ctx_id] = other
            continue
        supporting.append(ctx_id)
    if supporting:
        return ClaimVerdict(claim, True, tuple(dict.fromkeys(supporting)))
    if closest is None:
        return ClaimVerdict(claim, False, (), "no context was retrieved")
    counted = _counts(claim, terms, numbers) if counted is None else counted
    # Bounds unread: no context passed the rest, so none fell short on its bounds alone.
    return ClaimVerdict(claim, False, (), _reason(claim.text, claim_profile, opposites, counted,
                                                  bounded or NO_BOUNDS, *closest, moved.get(closest[1])))


def _users_own(claim: Claim, profile: TextProfile, question: str,
               contexts: Sequence[tuple[str, str, Passage]]) -> frozenset[float]:
    """The user's own figures in the question that the claim restates (`own_figures`) and no context
    states: one that does checks the claim as ever ("Holding three policies, you get 15% off" is
    read against the page's "3 or more policies ... 15%", not against its "2 policies ... 10%", which
    shares more of its other words). Only where the contexts' bounds agree with what the claim makes of
    them (`agreed`)."""
    own = own_figures(question, profile) if question else _NO_FIGURES
    if not own:
        return _NO_FIGURES
    given = frozenset(figure for figure in own
                      if not any(read.states(frozenset((figure,))) for _, _, read in contexts))
    if not given:
        return given
    return agreed(given, profile, negated(prepare(claim.text)), speaks_to_the_user(claim.text),
                  [text for _, text, _ in contexts])


_NO_FIGURES: frozenset[float] = frozenset()


def _negatable(claim_text: str, terms: frozenset[str]) -> frozenset[str]:
    """The opposites of the claim's terms where it holds "not", "n't" or "cannot" and neither "never" nor
    "no longer", themselves terms that say more than a page's opposite word (always; a change: "The fund has
    never been profitable." against "The fund was unprofitable in 2020." is no restatement); else none.
    C-level substring tests spare most claims any more (a pattern for them had cost 3% of the scoring),
    and a passage holding none of the opposites the reading of the claim's negations."""
    low = claim_text.lower()
    if not ("not" in low or "n't" in low or "n\u2019t" in low) or not terms.isdisjoint(_NEGATORS):
        return _NO_OPPOSITES
    return _opposites(terms)


def _restates(terms: frozenset[str], held: set[str], denied: frozenset[str], text: str, read: Passage,
              read_sentences: dict[str, tuple[Sentence, ...]]) -> bool:
    """Whether one sentence of the passage holds every term of the claim, the words it negates in words
    (`denied`, `negated_in_words`) by their opposite ("Gift cards are not refundable." restates "Gift cards
    are non-refundable.", "The product is not available." "The product is unavailable."): such a claim's
    word had counted missing, and a short one fell short of the threshold on it, where the opposite rule
    only excused it from saying the opposite. Every term, not the threshold's share, and in one sentence: a
    review's made-up claims about another subject sharing the negated word ("Digital gift cards are not
    refundable." against "Physical gift cards are non-refundable.", "Please note that the gym isn't
    available." against "The pool is unavailable. Please note the gym hours.") passed on the share or the
    page, 20 of them. The page-wide test first: most passages lack an opposite, and are not read by
    sentence."""
    lacked = terms.difference(held)
    if not lacked <= denied or not all(opposite(term) in read.terms for term in lacked):
        return False
    if len(text) > LONGEST:
        return False
    wanted = terms.difference(lacked).union(map(opposite, lacked))
    return any(wanted <= sentence.terms for sentence in example_sentences(text, read_sentences))


_MOST_NEGATED = 3
"""The most words a claim is read as negating in words when it lacks them (`_restates`): each needs a
"not", "n't" or "cannot" of its own, and a context lacking more of a claim's terms, as most do, spares it
the reading (1% of the scoring time where every claim was read)."""
_NO_OPPOSITES: frozenset[str] = frozenset()
_NEGATORS = frozenset(map(TERMS.__getitem__, ("never", "longer")))


def _stance(claim: Claim, terms: frozenset[str]) -> Stance:
    """The policy verdicts the claim states (`passage_sentences.stance`), read only from a claim holding a
    verdict's term: "not" is a function word, so "The laptop is not covered by warranty" held every term
    of "The laptop is covered by warranty" and passed on it."""
    return NO_STANCE if terms.isdisjoint(PREDICATE_TERMS) else stance(claim.text)


FREQUENCIES = frozenset(map(TERMS.__getitem__, (
    "hourly", "daily", "weekly", "biweekly", "fortnightly", "monthly", "quarterly", "annually", "yearly",
    "semiannually")))
"""How often, as a unit of time is a number's unit: "deposited monthly" is not stated by a page that
deposits quarterly (the one word of nine missing, it had passed)."""


def _other_frequency(terms: frozenset[str], read: Passage) -> bool:
    """Whether the passage says how often only with other words than the claim's."""
    said = FREQUENCIES.intersection(read.terms)
    return bool(said) and not (terms & FREQUENCIES) <= said


PERIOD_TERMS = frozenset(filter(None, map(TERMS.__getitem__, (*PERIOD_WORDS, *ONE_WORD_PERIODS))))
"""The terms of the periods a count is given per ("a day", "per week", "daily"): a claim with none has no
count per period to check (`how_often`). Without the one-word periods, "Take 2 tablets daily." was never
read, and passed against a leaflet's "2 tablets a week"."""
NO_COUNTS: frozenset[how_often.Count] = frozenset()


def _counts(claim: Claim, terms: frozenset[str], numbers: frozenset[float]) -> frozenset[how_often.Count]:
    """The claim's counts per period ("2 tablets a day"), read from its text only when it has a period's
    term and a count: a number, or "once", which is no number (`ragmon.text.numbers`)."""
    if terms.isdisjoint(PERIOD_TERMS) or (not numbers and "once" not in claim.text.lower()):
        return NO_COUNTS
    return how_often.counts(prepare(claim.text))


class Bounds(NamedTuple):
    """What a claim's bounds are checked with: its numbers given with a bound, whether it is negated (it is
    compared with negated sentences only), its terms but the bound words and how many of them a context
    sentence must hold to be compared with it (the judge's threshold, as for support), and its numbers,
    which such a sentence must all hold."""

    given: frozenset[tuple[float, str]]
    negated: bool
    terms: frozenset[str]
    needed: float
    numbers: frozenset[float]


NO_BOUNDS = Bounds(frozenset(), False, frozenset(), 0.0, frozenset())


def _bounds(claim: Claim, profile: TextProfile, threshold: float) -> Bounds:
    """The claim's numbers given with a bound ("over $50", "up to 5 users", "18+"), read only from a claim
    with a word a bound is written with: "over" and "under" are function words, so a made-up "Orders over
    $50 ship free" against "Orders under $50 ship free" held every term and number of the page."""
    if not may_bound(claim.text):
        return NO_BOUNDS
    low = prepare(claim.text)
    given = bounds(low, profile.numbers)
    if not given:
        return NO_BOUNDS  # the rest is read only of bounds `given` (`_bounded_otherwise`): nothing to compare
    terms = profile.terms - BOUND_TERMS
    return Bounds(given, NEGATED.search(low) is not None, terms, threshold * len(terms) - _FLOAT_SLACK,
                  profile.numbers)


def _bounded_otherwise(bounded: Bounds, text: str) -> list[str]:
    """The claim's bounds a context gives their numbers only the other way (`units.bounded_otherwise`) in
    its sentences holding every number of the claim and the judge's share of its other terms: the claim is
    such a sentence with its bound turned, not a clause of another ("5 or more years of service accrue 20
    days" from "less than 5 years ... accrue 15 days. After that, they accrue 20 days."). A share, not all:
    one word added ("Orders over $50 ship free today") had taken the page's only sentence out of the check.
    Read from the whole context, the complement a reader infers was flagged: "you can't apply if you're
    under 18" from "you must be at least 18", "cancel less than 24 hours before the start and you're
    charged in full" from "cancellations at least 24 hours before the start are free" (4 right sentences
    of the English corpora, and no made-up one caught)."""
    values = {value for value, _ in bounded.given}
    stated: set[tuple[float, str]] = set()
    for sentence in bound_sentences(text):
        given = bounds(sentence, values)
        if (not given or len(bounded.terms & read_terms(sentence)[0]) < bounded.needed
                or not bounded.numbers <= read_profile(sentence).numbers):
            continue
        sentence_negated = NEGATED.search(sentence) is not None
        if bounded.negated and not sentence_negated:
            continue
        stated.update(given)
        if sentence_negated != bounded.negated or _OTHERWISE.search(sentence) is not None:
            stated.update((value, way) for value in values for way in ("more", "less"))
    return bounded_otherwise(bounded.given, frozenset(stated))


_OTHERWISE = re.compile(r"\bunless\b|\bexcept\b|\botherwise\b"
                        r"|\b(?:above|over|below|under|more|less)\s+(?:that|this|it)\b")
"""A context sentence stating a bound's complement ("free unless your order is under $50"; a negation,
"isn't free on orders under $50", against a claim without one) or both sides ("orders under $50 pay $5,
and orders above that ship free"): it gives the number both ways, and says nothing against a claim's
bound."""


BOUND_TERMS = frozenset(filter(None, map(TERMS.__getitem__, BOUND_WORDS)))
"""The terms of the words bounds are written with: "a maximum of 5 users" turned is "a minimum of 5"."""


def _counted(numbers: frozenset[float]) -> int:
    """How many of a claim's numbers count as terms the context holds (it must state them all anyway):
    each specific one (10 or more, or a decimal) but the first. One shared number is as often a coincidence
    (a price or a dose given to another plan or drug: "The Team plan costs $49" against "The Pro plan costs
    $49"), two or more in one context seldom. Counting a number as one more term held, of one more, lowers
    what the terms must hold by 1 - threshold."""
    return max(sum(1 for n in numbers if n >= 10 or not n.is_integer()) - 1, 0)


def _opposites(terms: frozenset[str]) -> frozenset[str]:
    """The opposite of every term: "¬refund" for "refund" (C-level), "refund" for "¬refund"."""
    opposites = frozenset(map(NEGATION.__add__, terms))
    # A negative term sorts at or after "¬": most claims have none, and `max` tells in C (given no
    # `default`, whose keyword `max` parses at every call: 2,000 instructions a claim).
    if not terms or max(terms) < NEGATION:
        return opposites
    return opposites.union([term[1:] for term in terms if term[0] == NEGATION])


_DOUBLED = NEGATION * 2


def _doubled_opposites(terms: frozenset[str]) -> frozenset[str] | None:
    """Every term's opposite (`_opposites`) for a claim one of whose terms may open "¬¬", whose opposite
    ("¬x") is then another term's ("x"'s), so that `_contradictions`' shortcut does not hold: one whose
    terms run together hold "¬¬" (C-level, as a term opening so does). None for any other claim, all that
    `ragmon.text.terms` reads: building every term's opposite had cost a microsecond a claim."""
    return _opposites(terms) if _DOUBLED in "".join(terms) else None


def _contradictions(terms: frozenset[str], held: set[str], read: Passage,
                    opposites: frozenset[str] | None) -> list[str]:
    """The claim terms whose opposite the passage uses while never using the term; `held` are the terms
    the passage holds, `opposites` every term's (`_doubled_opposites`) or None. Sorted: a set's order
    changes with the process's hash seed, and a report must read the same on every run.

    With no term opening "¬¬", each of the passage's terms is the opposite of at most one claim term, a
    term it does not hold: "¬x" of "x", and of "¬x" also "x" (the passage holding both names "¬x" twice).
    So only the terms it lacks are looked up, and a passage lacking none contradicts none."""
    if opposites is not None:
        return sorted(term for term in map(opposite, read.terms & opposites) if term not in read.terms)
    lacked = terms.difference(held)
    found = [term for term in lacked if NEGATION + term in read.terms]
    found += [term for term in lacked if term[0] == NEGATION and term[1:] in read.terms]
    return sorted(found)


def _meant(found: list[str], denied: frozenset[str]) -> list[str]:
    """The contradictions found (`_contradictions`) that stand once the claim's negations written in words
    are read as the opposite words they state (`denied`: its terms `passage_sentences.negated_in_words`
    reads so): a claim "Gift cards are not refundable" or "Sale items cannot be returned" against a page
    saying only "Gift cards are non-refundable." or "Sale items are non-returnable." had been flagged as
    saying the opposite. The claim's side alone: read page-wide, a page's "not" about anything ("Monthly
    plans are not refundable.") excused a claim's "non-refundable" against its "Annual plans are
    refundable." (a review found 12 such made-up claims passing)."""
    return [term for term in found if term not in denied]


def _reason(claim_text: str, claim: TextProfile, opposites: frozenset[str] | None,
            counted: frozenset[how_often.Count], bounded: Bounds, shared: int, best_id: str, best: Passage,
            best_text: str, held: set[str], moved: Displaced | Miscounted | Turned | None) -> str:
    """Why the closest single context fell short, for the worst-examples section of a report."""
    text = f"no single context supports it; closest {best_id} has {shared}/{len(claim.terms)} of its terms"
    missing = sorted(best.unstated(claim.numbers)) if claim.numbers else ()  # reading them costs a scan
    lacked = [*map(shown, missing), *(best.lacks(claim.literals) if claim.literals else ()),
              *(best.clashes(claim.units) if claim.units and not missing else ()),
              *(best.counts_otherwise(counted) if counted and not missing else ())]
    if lacked:
        text += f", lacks {', '.join(lacked)}"
    terms = _contradictions(claim.terms, held, best, opposites)
    if terms and (terms := _meant(terms, negated_in_words(prepare(claim_text)))):
        text += ", and says the opposite of " + " and ".join(repr(t.replace(NEGATION, "not-")) for t in terms)
    other_way = _bounded_otherwise(bounded, best_text) if bounded.given and not missing else ()
    if other_way:
        text += ", and bounds it the other way: says " + " and ".join(other_way)
    if moved is not None:
        text += f", and {moved}"
    return text


def threshold(text: str) -> float:
    """argparse type of `--lexical-threshold`: a share of terms in (0, 1]."""
    value = fraction(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError("must be above 0: at 0 any context would support any claim")
    return value


def add_cli_arguments(group: argparse._ActionsContainer) -> None:
    """One spelling for `serve`, `replay` and `calibrate`, so one RAGMON_LEXICAL_THRESHOLD sets all."""
    group.add_argument("--lexical-threshold", type=threshold, default=DEFAULT_THRESHOLD, metavar="SHARE",
                       help="share of a claim's terms one context must hold (default %(default)s; lower "
                            "flags fewer claims: see the README's judge section for the trade-off)")
