"""The lexical judge's verdict on one claim against one context, through the public API: what the rule
tests of tests/text assert, each rule seen as a user of `evaluate` sees it."""

from __future__ import annotations

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluation import evaluate_example


def verdict(claim: str, context: str) -> tuple[bool, str | None]:
    """(supported, reason) of the answer `claim`, one claim, judged against `context` alone."""
    example = Example("q", "?", (Context("c1", context),), claim)
    [judged] = evaluate_example(example, LexicalJudge(), 5).verdicts
    return judged.supported, judged.reason
