"""A hand-built Report with one example of each kind a report must render, and gates to go with it."""

from __future__ import annotations

import pytest

from ragmon.gate import GateResult
from ragmon.model import Aggregate, Claim, ClaimVerdict, Context, Example, ExampleResult, Report

ANSWER = "Returns are accepted within 30 days. Refunds arrive within 24 hours."
SUPPORTED = "Returns are accepted within 30 days."
UNSUPPORTED = "Refunds arrive within 24 hours."
WORST_SENTENCE = "Gift cards can be exchanged for cash."


def _verdict(answer: str, sentence: str, supported: bool, ids: tuple[str, ...] = ()) -> ClaimVerdict:
    start = answer.index(sentence)
    return ClaimVerdict(Claim(sentence, start, start + len(sentence)), supported, ids)


def _result(example_id: str, answer: str, verdicts: tuple[ClaimVerdict, ...], groundedness: float | None,
            missed: tuple[str, ...] = (), unused: tuple[str, ...] = ()) -> ExampleResult:
    contexts = (Context("d1", SUPPORTED), Context("d2", "Other."))
    example = Example(example_id, f"Question {example_id}?", contexts, answer)
    metrics = {"groundedness": groundedness, "answer_relevance": float("nan"), "recall": 0.0}
    return ExampleResult(example, "lexical", metrics, verdicts, missed, unused)


@pytest.fixture
def report() -> Report:
    worst_answer = f"Cards never expire. {WORST_SENTENCE} Ask in store. Keep the receipt."
    results = (
        _result("e1", ANSWER,
                (_verdict(ANSWER, SUPPORTED, True, ("d1",)), _verdict(ANSWER, UNSUPPORTED, False)),
                0.5, missed=("d9",), unused=("d2",)),
        _result("e2", SUPPORTED, (_verdict(SUPPORTED, SUPPORTED, True, ("d1",)),), 1.0),
        _result("e3", "", (), None, missed=("d7",)),
        _result("e4", worst_answer,
                (_verdict(worst_answer, "Cards never expire.", True, ("d1",)),
                 _verdict(worst_answer, WORST_SENTENCE, False),
                 _verdict(worst_answer, "Ask in store.", False),
                 _verdict(worst_answer, "Keep the receipt.", False)),
                0.25),
    )
    aggregates = {
        "recall": Aggregate(0.0, 4, (0.0, 0.0)),
        "groundedness": Aggregate(0.5833333333333334, 3, (0.25, 1.0)),
        "citation_accuracy": Aggregate(None, 0, None),
        "answer_relevance": Aggregate(float("nan"), 4, (float("nan"), 1.0)),
    }
    return Report({"name": "lexical", "threshold": 0.6}, 5, results, aggregates,
                  skipped=(("e5", "judge timed out"),))


@pytest.fixture
def gates() -> tuple[GateResult, ...]:
    return (
        GateResult("groundedness", ">=", 0.85, 0.5833333333333334, False, "0.5833 < 0.85"),
        GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),
        GateResult("citation_accuracy", ">=", 0.5, None, False, "undefined: 0 observations"),
    )
