"""How well the lexical judge agrees with human sentence labels, next to a naive baseline.

Runs `LexicalJudge` through the public API over a labelled dataset (ragmon JSONL whose examples carry
`labels: {hallucinated, spans}`), matches claims to labelled sentences with `ragmon.calibrate` (a claim
is labelled unsupported when a span overlaps it by a character), and prints, with "unsupported" and
"hallucinated" as the positive class: sentence-level precision, recall, F1 and accuracy, and response-level
precision, recall and F1 (a response is hallucinated when any claim is unsupported). The naive baseline is
judged in the same run: one context at a time, plain lower-cased content words (no stemming, no numbers
rule), supported at an overlap of at least half the claim's words.

`--rules` prints the table of the README's judge section: the judge as it was (stemming, the numbers
rule, threshold 0.60), then each rule added in turn, by switching the later rules off inside
ragmon.text for the run.
`--sweep` also prints the figures across thresholds; `--halves` tunes the threshold on one half of the
questions and measures it on the other (both ways), which says how far a threshold chosen on one set of
questions carries to unseen ones.

Run: `.venv/bin/python benchmarks/judge_accuracy.py ../shared/data/salad_dev.jsonl [--rules] [--sweep]
[--halves]`.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from unittest import mock

from ragmon import LexicalJudge
from ragmon.calibrate import SWEEP_THRESHOLDS, Calibration, Labelled, calibrate, load_labelled
from ragmon.errors import InputError
from ragmon.judges.base import Judge
from ragmon.model import Claim, ClaimVerdict, Example
from ragmon.text import passages, terms
from ragmon.text.terms import STOPWORDS

SWEEP = SWEEP_THRESHOLDS
"""`ragmon calibrate --sweep`'s, so the two print the same rows."""
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


class NaiveJudge:
    """The baseline: share of a claim's content words (lower-cased, unstemmed) found in one context."""

    name = "naive"

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def settings(self) -> Mapping[str, Any]:
        return {"threshold": self.threshold}

    @staticmethod
    def words(text: str) -> set[str]:
        return set(_WORD.findall(text.lower().replace("\u2019", "'"))) - STOPWORDS

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        contexts = [(ctx.id, self.words(ctx.text)) for ctx in example.contexts or ()]
        verdicts = []
        for claim in claims:
            words = self.words(claim.text)
            supporting = tuple(ctx_id for ctx_id, found in contexts
                               if len(words & found) >= self.threshold * len(words))
            verdicts.append(ClaimVerdict(claim, bool(supporting), supporting))
        return tuple(verdicts)


def _f(value: float | None) -> str:
    return "    -" if value is None else f"{value:.3f}"


def row(label: str, result: Calibration) -> str:
    s, r = result.sentence, result.response
    return (f"{label:<46} sentence P {_f(s.precision)} R {_f(s.recall)} F1 {_f(s.f1)} acc {_f(s.accuracy)} "
            f"[tp {s.tp:3} fp {s.fp:3} fn {s.fn:3} tn {s.tn:3}]   response P {_f(r.precision)} "
            f"R {_f(r.recall)} F1 {_f(r.f1)} [tp {r.tp:2} fp {r.fp:2} fn {r.fn:2} tn {r.tn:2}]")


_NEVER = re.compile(r"(?!)")
_NO_UNITS = types.SimpleNamespace(units=lambda low, spelled=(): frozenset(), signed=lambda low: False)
RULES: tuple[tuple[str, str, Any], ...] = (
    ("US, UK: one word for all their names", "_COUNTRY", _NEVER),
    ("British spelling as American", "american", lambda word: word),
    ("negative prefixes: own terms, opposite vetoes", "_NEGATIVE", _NEVER),
    ("a number's unit is one its context gives it", "units", _NO_UNITS),
)
"""(what the rule does, the ragmon.text.terms name that implements it, what switches it off)."""


@contextlib.contextmanager
def rules_off(names: Sequence[str]) -> Iterator[None]:
    """Run with these rules of ragmon.text switched off, every cache emptied before and after."""

    def fresh() -> None:
        terms.TERMS.clear()
        terms.clear_cache()
        passages.clear_cache()

    with contextlib.ExitStack() as stack:
        for _, name, off in RULES:
            if name in names:
                stack.enter_context(mock.patch.object(terms, name, off))
        fresh()
        try:
            yield
        finally:
            fresh()


def rules_table(items: Sequence[Labelled]) -> None:
    """The judge as it was, then each rule added in turn (at the default threshold from the 2nd row)."""
    names = [name for _, name, _ in RULES]
    rows = [("previous judge (0.60)", 0.60, names),
            (f"threshold {LexicalJudge().threshold:.2f}", None, names)]
    rows += [(f"+ {label}", None, names[i + 1:]) for i, (label, _, _) in enumerate(RULES)]
    for label, threshold, off in rows:
        with rules_off(off):
            judge = LexicalJudge() if threshold is None else LexicalJudge(threshold)
            print(row(label, calibrate(judge, items)))


def best_threshold(items: Sequence[Labelled]) -> float:
    """The threshold with the best sentence F1 on these items (the lowest of equals)."""
    scored = [(calibrate(LexicalJudge(t), items).sentence.f1 or 0.0, -t) for t in SWEEP]
    return -max(scored)[1]


def halves(items: Sequence[Labelled]) -> tuple[list[Labelled], list[Labelled]]:
    """Alternate questions (in sorted order) between two halves, so both hold every kind of answer."""
    questions = sorted({item.example.question for item in items})
    first = set(questions[::2])
    return ([i for i in items if i.example.question in first],
            [i for i in items if i.example.question not in first])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="labelled ragmon JSONL")
    parser.add_argument("--rules", action="store_true", help="also print the figures as each rule is added")
    parser.add_argument("--sweep", action="store_true", help="also print figures across thresholds")
    parser.add_argument("--halves", action="store_true",
                        help="tune the threshold on half the questions, measure on the other half")
    args = parser.parse_args()
    try:
        items = load_labelled([args.dataset])
    except InputError as exc:  # a file missing or malformed: the message says which and where
        print(f"error: {exc}", file=sys.stderr)
        return 2
    claims = sum(len(i.claims) for i in items)
    print(f"{len(items)} answers to {len({i.example.question for i in items})} questions: {claims} claims, "
          f"{sum(sum(i.unsupported) for i in items)} labelled unsupported; "
          f"{sum(i.hallucinated for i in items)} answers labelled hallucinated")
    judges: list[tuple[str, Judge]] = [("naive baseline (0.5)", NaiveJudge()),
                                       (f"lexical ({LexicalJudge().threshold})", LexicalJudge())]
    for label, judge in judges:
        print(row(label, calibrate(judge, items)))
    if args.rules:
        print("\nrule by rule:")
        rules_table(items)
    if args.sweep:
        print("\nthreshold sweep (lexical):")
        for threshold in SWEEP:
            print(row(f"  {threshold:.2f}", calibrate(LexicalJudge(threshold), items)))
    if args.halves:
        print("\nhalf-split check: threshold tuned on one half of the questions, measured on the other")
        a, b = halves(items)
        print(f"  A: {len(a)} answers to questions 1, 3, 5, ... (sorted); B: {len(b)} answers to the others")
        for tuned, tune, measured, test in (("A", a, "B", b), ("B", b, "A", a)):
            judge = LexicalJudge(best_threshold(tune))
            print(row(f"  best on {tuned} ({judge.threshold:.2f}), on {tuned}", calibrate(judge, tune)))
            print(row(f"  best on {tuned} ({judge.threshold:.2f}), on {measured}", calibrate(judge, test)))
        default = LexicalJudge()
        for name, half in (("A", a), ("B", b)):
            print(row(f"  default ({default.threshold:.2f}), on {name}", calibrate(default, half)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
