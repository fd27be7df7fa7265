"""Runs shared by the report tests: two examples with an invented sentence, and many long answers."""

from __future__ import annotations

from ragmon.evaluate import evaluate
from ragmon.gate import GateResult, decide, parse_gates
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Aggregate, Claim, ClaimVerdict, Context, EvalConfig, Example, ExampleResult, Report

INVENTED = "Purple elephants sing opera."
# The lexical judge's reason for it, by hand: its 4 content words (purple, elephants, sing, opera) are in
# neither context, so no context shares any; on that 0-0 tie the closest is the first context, doc-1.
INVENTED_REASON = "no single context supports it; closest doc-1 has 0/4 of its terms"


def invented_run(*gates: str) -> tuple[Report, tuple[GateResult, ...]]:
    """Two examples scored by the real lexical judge and gated by the real gate code.

    "ok" answers with its context's sentence: groundedness 1, recall 1/1. "bad" answers with its first
    context's sentence and the invented one: groundedness 1/2; of its relevant doc-1 and doc-9 only doc-1
    was retrieved: recall 1/2. Means 0.75 and 0.75: the default gates, groundedness >= 0.9 and recall >= 0.5,
    are breached and held.
    """
    returns = "Returns are accepted within 30 days of purchase."
    refunds = "Refunds are paid to the original card."
    examples = [
        Example("ok", "How long do I have to return an item?", (Context("doc-1", returns),), returns,
                frozenset({"doc-1"})),
        Example("bad", "How are refunds paid?",
                (Context("doc-1", refunds), Context("doc-2", "Store credit never expires.")),
                f"{refunds} {INVENTED}", frozenset({"doc-1", "doc-9"})),
    ]
    report = evaluate(examples, LexicalJudge(), EvalConfig(k=5))
    return report, decide(report, parse_gates(gates or ("groundedness=0.9", "recall=0.5")))


SENTENCE = " ".join(["Word"] * 199) + " end."  # 199 * 5 + 4 = 999 characters
LONG_REASON = "r" * 1000


def many_long_run(count: int = 1000, sentences: int = 20) -> tuple[Report, tuple[GateResult, ...]]:
    """`count` examples whose answers are `sentences` unsupported SENTENCEs, each with a LONG_REASON:
    groundedness 0, hallucination_rate 1, recall 0 everywhere, all three gated and breached. A report
    quoting them all would hold ~40 MB of sentences and reasons."""
    step = len(SENTENCE) + 1
    answer = " ".join([SENTENCE] * sentences)
    verdicts = tuple(ClaimVerdict(Claim(SENTENCE, i * step, i * step + len(SENTENCE)), False, (), LONG_REASON)
                     for i in range(sentences))
    contexts = (Context("d1", "Other."),)
    metrics = {"groundedness": 0.0, "hallucination_rate": 1.0, "recall": 0.0}
    results = tuple(ExampleResult(Example(f"x{i:04}", "Q?", contexts, answer), "lexical", metrics, verdicts)
                    for i in range(count))
    aggregates = {"groundedness": Aggregate(0.0, count, (0.0, 0.0)),
                  "hallucination_rate": Aggregate(1.0, count, (1.0, 1.0)),
                  "recall": Aggregate(0.0, count, (0.0, 0.0))}
    gates = (GateResult("groundedness", ">=", 0.99, 0.0, False, "0 < 0.99"),
             GateResult("hallucination_rate", "<=", 0.0, 1.0, False, "1 > 0"),
             GateResult("recall", ">=", 0.9, 0.0, False, "0 < 0.9"))
    return Report({"name": "lexical"}, 5, results, aggregates), gates
