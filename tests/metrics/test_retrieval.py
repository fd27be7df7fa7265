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


def test_a_repeated_id_keeps_its_ranks_and_can_push_the_relevant_one_out_of_the_top_k() -> None:
    # Five chunks of faq.md under the file's id, then the relevant policy.md at rank 6: ranks are positions,
    # so the top 5 is faq.md five times and holds nothing relevant. Every metric is 0.
    # (Deduplicating before the cut had moved policy.md up to rank 2: hit_rate 1, precision 0.2, recall 1,
    # mrr 0.5, ndcg 1/log2(3) = 0.631.)
    retrieved = ["faq.md"] * 5 + ["policy.md"]
    assert retrieval_metrics(retrieved, frozenset({"policy.md"}), 5) == dict.fromkeys(NAMES, 0.0)
    assert top_k(retrieved, 5) == ("faq.md",)
    # One more rank and it is in: rank 6 of k = 6. precision 1/6, recall 1/1, mrr 1/6,
    # ndcg = (1/log2(7)) / (ideal: min(1, 6) = 1 hit at rank 1 = 1) = 0.3562.
    got = retrieval_metrics(retrieved, frozenset({"policy.md"}), 6)
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 1 / 6, "recall": 1.0, "mrr": 1 / 6,
                                 "ndcg": 1 / math.log2(7)})
    assert got["ndcg"] == pytest.approx(0.3562, abs=1e-4)
    assert top_k(retrieved, 6) == ("faq.md", "policy.md")


def test_a_repeated_non_relevant_id_moves_the_first_hit_down() -> None:
    # d9 d9 d1, relevant d1, k = 3: d1 is at rank 3 (it was rank 2 once d9's repeat was dropped).
    # precision 1/3, recall 1/1, mrr 1/3, ndcg = (1/log2(4)) / 1 = 0.5.
    got = retrieval_metrics(["d9", "d9", "d1"], frozenset({"d1"}), 3)
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 1 / 3, "recall": 1.0, "mrr": 1 / 3,
                                 "ndcg": 0.5})


def test_a_repeated_relevant_id_takes_a_rank_but_counts_once() -> None:
    # d2 d9 d2 d3, relevant {d2, d3}, k = 4: d2 hits at rank 1, its repeat at rank 3 earns nothing, d3
    # hits at rank 4. precision 2/4 (not 3/4), recall 2/2, mrr 1/1.
    # DCG = 1 + 1/log2(5) = 1.4307; ideal: min(2, 4) = 2 hits = 1 + 1/log2(3) = 1.6309; ndcg = 0.8772.
    # (Deduplicating first put d3 at rank 3: DCG 1.5, ndcg 0.9197.)
    got = retrieval_metrics(["d2", "d9", "d2", "d3"], frozenset({"d2", "d3"}), 4)
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.5, "recall": 1.0, "mrr": 1.0,
                                 "ndcg": (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3))})
    assert got["ndcg"] == pytest.approx(0.8772, abs=1e-4)
    # One relevant id at every rank is one hit: precision 1/3, recall 1/1, mrr 1, and ndcg exactly 1
    # (DCG 1 at rank 1 over the ideal 1), never 1 + 1/log2(3) + 1/log2(4) = 2.13.
    assert retrieval_metrics(["d1", "d1", "d1"], frozenset({"d1"}), 3) == pytest.approx(
        {"hit_rate": 1.0, "precision": 1 / 3, "recall": 1.0, "mrr": 1.0, "ndcg": 1.0})
    # d2 d2 d1 d3, relevant {d2, d3}, k = 2: the top 2 is d2 twice, one hit. precision 1/2, recall 1/2,
    # mrr 1, ndcg = 1 / (ideal: min(2, 2) = 2 hits = 1 + 1/log2(3)).
    got = retrieval_metrics(["d2", "d2", "d1", "d3"], frozenset({"d2", "d3"}), 2)
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.5, "recall": 0.5, "mrr": 1.0,
                                 "ndcg": 1 / (1 + 1 / math.log2(3))})
    assert top_k(["d2", "d2", "d1", "d3"], 2) == ("d2",)


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
    # d3 d1 d7 d2 d3, all four distinct ids in the top 4; relevant d3 (rank 1), d2 (rank 4), d5 (never
    # retrieved): 2 of 4 shown, 2 of 3 relevant, first hit at rank 1. d3's repeat at rank 5 is cut off.
    got = retrieval_metrics(["d3", "d1", "d7", "d2", "d3"], frozenset({"d2", "d3", "d5"}), 4)
    # DCG = 1 + 1/log2(5) = 1.4307; ideal: min(3, 4) = 3 hits = 1 + 1/log2(3) + 1/log2(4) = 2.1309.
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.5, "recall": 2 / 3, "mrr": 1.0,
                                 "ndcg": (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))})
    assert got["ndcg"] == pytest.approx(0.6714, abs=1e-4)


def test_a_repeat_inside_the_top_k_pushes_a_relevant_id_out() -> None:
    # d3 d1 d3 d7 d2, relevant {d2, d3, d5}, k = 4: the top 4 is d3 d1 d3 d7, d2 (rank 5) is cut off.
    # One hit (d3, rank 1; its repeat at rank 3 earns nothing): precision 1/4, recall 1/3, mrr 1,
    # ndcg = 1 / (ideal: 3 hits = 1 + 1/log2(3) + 1/log2(4) = 2.1309) = 0.4693.
    # (Deduplicating first gave precision 1/2, recall 2/3, ndcg 0.6714, as if d2 were in the top 4.)
    got = retrieval_metrics(["d3", "d1", "d3", "d7", "d2"], frozenset({"d2", "d3", "d5"}), 4)
    assert got == pytest.approx({"hit_rate": 1.0, "precision": 0.25, "recall": 1 / 3, "mrr": 1.0,
                                 "ndcg": 1 / (1 + 1 / math.log2(3) + 1 / math.log2(4))})
    assert got["ndcg"] == pytest.approx(0.4693, abs=1e-4)


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be"):
        retrieval_metrics(["d1"], frozenset({"d1"}), 0)
