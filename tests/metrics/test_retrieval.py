"""Retrieval metrics on hand-computed rankings, including every "undefined when" row of DESIGN §3."""

from __future__ import annotations

import math

import pytest

from ragmon.metrics.retrieval import retrieval_metrics, top_k

NAMES = ("hit_rate", "precision", "recall", "mrr", "ndcg")


def test_k_shorter_than_the_list() -> None:
    # Top 3 of d1 d2 d3 d4 is d1 d2 d3; relevant d2 (rank 2), d4 (cut off), d9 (never retrieved).
    got = retrieval_metrics(["d1", "d2", "d3", "d4"], frozenset({"d2", "d4", "d9"}), 3)
    # DCG = 1/log2(2+1) = 0.6309; ideal has min(3 relevant, k=3) = 3 hits: 1 + 1/log2(3) + 1/log2(4) = 2.1309.
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 1 / 3, "recall": 1 / 3, "mrr": 1 / 2,
                                 "ndcg": (1 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))})
    assert got["ndcg"] == pytest.approx(0.2961, abs=1e-4)


def test_k_longer_than_the_list_divides_precision_by_k() -> None:
    # Only 2 retrieved but k = 5: precision = 1 relevant / 5 = 0.2, not 1/2.
    got = retrieval_metrics(["d1", "d2"], frozenset({"d2"}), 5)
    # DCG = 1/log2(3); ideal: min(1, 5) = 1 hit at rank 1 = 1.
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.2, "recall": 1.0, "mrr": 0.5,
                                 "ndcg": 1 / math.log2(3)})


def test_duplicate_ids_count_once_and_are_removed_before_the_cut() -> None:
    # d2 d2 d1 d3 dedupes to d2 d1 d3; top 2 = d2 d1: one relevant of two shown, one of two relevant.
    # (Counting duplicates would give precision 2/2 and recall 2/2.)
    got = retrieval_metrics(["d2", "d2", "d1", "d3"], frozenset({"d2", "d3"}), 2)
    # DCG = 1 (rank 1); ideal: min(2, 2) = 2 hits = 1 + 1/log2(3).
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.5, "recall": 0.5, "mrr": 1.0,
                                 "ndcg": 1 / (1 + 1 / math.log2(3))})
    assert top_k(["d2", "d2", "d1", "d3"], 2) == ("d2", "d1")


def test_no_relevant_in_the_top_k_is_zero() -> None:
    got = retrieval_metrics(["d1", "d2", "d3"], frozenset({"d3"}), 2)
    assert got == {"hit_rate": 0.0, "precision": 0.0, "recall": 0.0, "mrr": 0.0, "ndcg": 0.0}


def test_empty_retrieval_is_defined_and_zero() -> None:
    # contexts == () means retrieval returned nothing: a real zero, not unknown.
    assert retrieval_metrics([], frozenset({"d1"}), 5) == dict.fromkeys(NAMES, 0.0)


@pytest.mark.parametrize(("retrieved", "relevant"), [
    (["d1"], None),  # relevant ids unknown
    (["d1"], frozenset()),  # relevant ids empty (an unanswerable question)
    (None, frozenset({"d1"})),  # contexts unknown
])
def test_undefined(retrieved, relevant) -> None:
    assert retrieval_metrics(retrieved, relevant, 5) == dict.fromkeys(NAMES)


def test_hits_at_the_first_and_last_rank_of_the_top_k() -> None:
    # d3 d1 d3 d7 d2 dedupes to d3 d1 d7 d2, all four in the top 4; relevant d3 (rank 1), d2 (rank 4), d5
    # (never retrieved): 2 of 4 shown, 2 of 3 relevant, first hit at rank 1.
    got = retrieval_metrics(["d3", "d1", "d3", "d7", "d2"], frozenset({"d2", "d3", "d5"}), 4)
    # DCG = 1 + 1/log2(5) = 1.4307; ideal: min(3, 4) = 3 hits = 1 + 1/log2(3) + 1/log2(4) = 2.1309.
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.5, "recall": 2 / 3, "mrr": 1.0,
                                 "ndcg": (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))})
    assert got["ndcg"] == pytest.approx(0.6714, abs=1e-4)


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be"):
        retrieval_metrics(["d1"], frozenset({"d1"}), 0)
