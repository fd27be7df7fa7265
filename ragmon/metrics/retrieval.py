"""Retrieval metrics over the top k contexts, binary relevance: hit_rate, precision, recall, mrr, ndcg.

`retrieval_metrics` takes the retrieved ids in rank order (`None` when the contexts are unknown), the
relevant ids (`None` when unknown) and k, and gives each metric `None` when it is undefined: contexts
unknown, or relevant ids unknown or empty. An empty retrieval (`()`) is defined and scores 0.

Repeated ids: a retriever may return the same document twice (chunks keyed by their file, as LangChain's
`metadata["source"]` names them, or a fused result list). A rank is a position in the list, as
`Example.contexts` gives it, so the list is cut to its first k positions *first*: a repeat takes a rank of
its own and can push another document out of the top k. Within the top k only an id's first position can
be a hit, its repeats earn nothing: precision never counts one relevant id twice, nDCG never exceeds 1, and
MRR is 1 / the rank of the first position holding a relevant id. (Deduplicating before the cut had moved
a relevant document from rank 6 into a top 5 of five chunks of one other file.)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import islice

RETRIEVAL_METRICS = ("hit_rate", "precision", "recall", "mrr", "ndcg")
"""The metrics read at the top k, whose k is `--k`, not part of a metric's name (`ndcg@10`)."""


def top_k(retrieved: Iterable[str], k: int) -> tuple[str, ...]:
    """The distinct ids of the first k positions, in rank order: what the top k retrieved."""
    return tuple(dict.fromkeys(_cut(retrieved, k)))


def _cut(retrieved: Iterable[str], k: int) -> Iterable[str]:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    # No list holds more than sys.maxsize items, and islice refuses a larger stop: EvalConfig(k=10**20),
    # a k meaning "every context", failed in scoring with islice's error naming no k.
    return islice(retrieved, min(k, sys.maxsize))


def relevance(retrieved: Sequence[str] | None, relevant: frozenset[str] | None,
              k: int) -> tuple[bool, ...] | None:
    """Whether each rank of the top k is a hit: a relevant id at its first position in the list (a repeat
    is no hit), so the hits name distinct ids. None when the retrieval metrics are undefined."""
    if retrieved is None or not relevant:
        return None
    seen: set[str] = set()
    hits = []
    for doc in _cut(retrieved, k):
        hits.append(doc in relevant and doc not in seen)
        seen.add(doc)
    return tuple(hits)


def retrieval_metrics(retrieved: Sequence[str] | None, relevant: frozenset[str] | None,
                      k: int) -> dict[str, float | None]:
    """All five, cutting the list a single time (the per-example hot path)."""
    hits = relevance(retrieved, relevant, k)
    if hits is None or relevant is None:
        return dict.fromkeys(RETRIEVAL_METRICS)
    return {"hit_rate": _hit_rate(hits), "precision": _precision(hits, k),
            "recall": _recall(hits, len(relevant)), "mrr": _mrr(hits), "ndcg": _ndcg(hits, len(relevant), k)}


def _hit_rate(hits: tuple[bool, ...]) -> float:
    return 1.0 if any(hits) else 0.0


def _precision(hits: tuple[bool, ...], k: int) -> float:
    """Divides by k even when fewer than k were retrieved: a short list is not rewarded for brevity."""
    return sum(hits) / k


def _recall(hits: tuple[bool, ...], n_relevant: int) -> float:
    return sum(hits) / n_relevant


def _mrr(hits: tuple[bool, ...]) -> float:
    return next((1.0 / rank for rank, hit in enumerate(hits, 1) if hit), 0.0)


def _ndcg(hits: tuple[bool, ...], n_relevant: int, k: int) -> float:
    """DCG over the top k with gain 1 and discount log2(rank + 1), over the DCG of the ideal ranking
    (all relevant ids first, at most k of them)."""
    dcg = sum(_discount(rank) for rank, hit in enumerate(hits, 1) if hit)
    return dcg / _ideal_dcg(min(n_relevant, k))


@lru_cache(maxsize=256)
def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


@lru_cache(maxsize=256)
def _ideal_dcg(n: int) -> float:
    return sum(_discount(rank) for rank in range(1, n + 1))
