"""The default judge: deterministic, offline and free, so it can score every trace.

A claim is supported by one context when enough of its stemmed content terms occur in that context and
every number it states occurs there too. Each context is judged on its own: a claim whose terms are only
covered by stitching two passages together is exactly the kind of confabulation we want to catch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmon.model import Claim, ClaimVerdict, Example
from ragmon.text import TextProfile, profile

DEFAULT_THRESHOLD = 0.6
"""Share of a claim's content terms one context must contain. Chosen on human sentence labels (SALAD
dev, 519 claims): 0.55-0.6 maximise F1 of "unsupported"; 0.6 keeps the higher recall."""


class LexicalJudge:
    """Stateless apart from its threshold: safe to share between threads and event-loop tasks."""

    name = "lexical"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
        self.threshold = threshold

    def settings(self) -> Mapping[str, Any]:
        return {"threshold": self.threshold}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        seen: set[str] = set()
        contexts: list[tuple[str, TextProfile]] = []
        for ctx in example.contexts or ():
            if ctx.id not in seen:
                seen.add(ctx.id)
                contexts.append((ctx.id, profile(ctx.text)))
        return tuple(self._verdict(claim, contexts) for claim in claims)

    def _verdict(self, claim: Claim, contexts: list[tuple[str, TextProfile]]) -> ClaimVerdict:
        claim_profile = profile(claim.text)
        terms, nums = claim_profile.terms, claim_profile.numbers
        # A claim made only of numbers (and function words) is supported by a context holding them all.
        needed = self.threshold * len(terms)
        supporting = tuple(ctx_id for ctx_id, ctx in contexts
                           if nums <= ctx.numbers and len(terms & ctx.terms) >= needed)
        if supporting:
            return ClaimVerdict(claim, True, supporting)
        return ClaimVerdict(claim, False, (), _reason(claim_profile, contexts))


def _reason(claim: TextProfile, contexts: list[tuple[str, TextProfile]]) -> str:
    """Why the closest single context fell short, for the worst-examples section of a report."""
    if not contexts:
        return "no context was retrieved"
    best_id, best = max(contexts, key=lambda c: len(claim.terms & c[1].terms))
    text = f"no single context supports it; closest {best_id} has {len(claim.terms & best.terms)}" \
           f"/{len(claim.terms)} of its terms"
    missing = sorted(claim.numbers - best.numbers)
    return text + (f", lacks {', '.join(f'{n:g}' for n in missing)}" if missing else "")
