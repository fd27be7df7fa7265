"""Which examples a gated metric has no value for, and why: the one place every report asks.

An example where a metric is undefined is left out of its mean, never counted as 0: that principle stays.
But it lets a build pass by saying less: an empty answer makes no claim, so its groundedness is undefined,
and a candidate answering "" to its hardest questions raises its mean. A report that gives only the mean
and `n` hides that, so each says, for every gated metric, how many examples have no value and why.

The reasons are the "undefined when" column of the README's metric table, tried in the order the metric
itself tries them (ragmon.metrics), so an example is named under the first that applies; before them, the
examples the judge failed on (`--judge-errors skip`), which have no value for any metric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragmon.datasets import NOT_RAG
from ragmon.gate import GateResult
from ragmon.metrics.generation import is_unanswerable, use_unknown, used_ids
from ragmon.model import ExampleResult, Report
from ragmon.text.terms import profile

IDS_NAMED = 5
"""Examples named per reason: enough to open one and see, bounded whatever the golden set's size."""
NO_VALUE = "with no value"
"""The reason of a value none of the metric's conditions explains: a NaN from a hand-built result."""
SKIPPED = "skipped after a judge error (a skipped example keeps no metric, retrieval ones included)"
"""The reason of the examples the judge failed on. Their retrieval metrics need no judge, but they are not
kept: a skipped example has no result (`Report.results`, the JSON report's `results`, what a baseline
compares and `--confidence` resamples are the scored examples), and one with retrieval figures alone would
be read everywhere as an answer that makes no claim."""

_Condition = tuple[str, Callable[[ExampleResult], bool]]


def _termless_question(result: ExampleResult) -> bool:
    question = profile(result.example.question)
    return not (question.terms or question.numbers)


_ANSWER: _Condition = ("with the answer unknown", lambda r: r.example.answer is None)
_CONTEXTS: _Condition = ("with the contexts unknown", lambda r: r.example.contexts is None)
_NO_CLAIM: _Condition = ("whose answer makes no claim (empty, declining or filler)", lambda r: not r.verdicts)
_RELEVANT: _Condition = ("with the relevant ids unknown or empty", lambda r: not r.example.relevant_ids)
_USE_UNKNOWN: _Condition = ("whose judge named no context for a supported claim",
                            lambda r: use_unknown(r.verdicts))
_RETRIEVAL = (_CONTEXTS, _RELEVANT)
_CLAIMS = (_ANSWER, _CONTEXTS, _NO_CLAIM)
_CONDITIONS: dict[str, tuple[_Condition, ...]] = {
    "hit_rate": _RETRIEVAL, "precision": _RETRIEVAL, "recall": _RETRIEVAL, "mrr": _RETRIEVAL,
    "ndcg": _RETRIEVAL,
    "groundedness": _CLAIMS, "hallucination_rate": _CLAIMS,
    "citation_accuracy": (("with the citations unknown or empty", lambda r: not r.example.citations),
                          _ANSWER, _CONTEXTS, _NO_CLAIM, _USE_UNKNOWN),
    "citation_coverage": (("with the citations unknown", lambda r: r.example.citations is None),
                          _ANSWER, _CONTEXTS, _NO_CLAIM, _USE_UNKNOWN,
                          ("whose answer uses no context", lambda r: not used_ids(r.example, r.verdicts))),
    "context_utilisation": (("with the contexts unknown or empty", lambda r: not r.example.contexts),
                            _ANSWER, _NO_CLAIM, _USE_UNKNOWN),
    "answer_relevance": (_ANSWER, ("whose question has no content term or number", _termless_question)),
    "answer_correctness": (("with the ground truth unknown", lambda r: r.example.ground_truth is None),
                           _ANSWER),
    "abstention": (_ANSWER, ("whose question is answerable", lambda r: not is_unanswerable(r.example))),
}


def judge_skipped(report: Report) -> tuple[str, ...]:
    """The ids of the examples the judge failed on, left out of every figure; not the recorded traces that
    are not RAG (`NOT_RAG`), which `ragmon replay` lists as skipped too but which are no examples."""
    return tuple(example_id for example_id, why in report.skipped if why != NOT_RAG)


def skipped_note(report: Report) -> str:
    """How many of the examples given the judge failed on, for beside every gate's reason ("" for none):
    each gate was decided without them, and a gate line reading `ok` alone would hide that."""
    skipped = len(judge_skipped(report))
    if not skipped:
        return ""
    return (f"{skipped:,} of {len(report.results) + skipped:,} examples skipped: the judge failed on "
            f"{'it' if skipped == 1 else 'them'}")


def with_skipped(reason: str, note: str) -> str:
    """A gate's reason as the reports show it: with the `skipped_note`, if any."""
    return f"{reason}; {note}" if note else reason


def why_undefined(metric: str, result: ExampleResult) -> str:
    """Why `metric` has no value for `result`, as a phrase that follows a count ("3 with ...")."""
    return next((why for why, applies in _CONDITIONS.get(metric, ()) if applies(result)), NO_VALUE)


@dataclass(frozen=True, slots=True)
class Gap:
    """A gated metric with fewer values than examples given: the ids without one, grouped by reason, the
    most common reason first."""

    metric: str
    examples: int
    """Examples given: those scored, and those the judge failed on."""
    reasons: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def missing(self) -> int:
        return sum(len(ids) for _, ids in self.reasons)

    def describe(self, named: Callable[[Sequence[str]], str]) -> str:
        """One line for people; `named` writes a list of ids as the report shows them (the Markdown
        report in code spans), IDS_NAMED of them at most."""
        reasons = "; ".join(f"{len(ids):,} {why}: {named(ids)}" for why, ids in self.reasons)
        return (f"{self.metric} has no value for {self.missing:,} of {self.examples:,} examples, left out of "
                f"its figures (not counted as 0): {reasons}")


def gaps(report: Report, gates: Sequence[GateResult]) -> list[Gap]:
    """One Gap per gated metric (a `--gate` or `--max-drop` one) that some example given has no value for,
    in the order the gates were given; an example the judge failed on has none for any."""
    found = []
    skipped = judge_skipped(report)
    for metric in dict.fromkeys(g.metric for g in gates):
        grouped: dict[str, list[str]] = {SKIPPED: list(skipped)} if skipped else {}
        for result in report.results:
            value = result.metrics.get(metric)
            if value is None or not math.isfinite(value):
                grouped.setdefault(why_undefined(metric, result), []).append(result.example.id)
        if grouped:
            reasons = sorted(grouped.items(), key=lambda item: -len(item[1]))  # stable: ties as first seen
            found.append(Gap(metric, len(report.results) + len(skipped),
                             tuple((why, tuple(ids)) for why, ids in reasons)))
    return found
