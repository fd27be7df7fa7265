"""ragmon's retrieval metrics against trec_eval's own (pytrec_eval, a build of trec_eval): the figures users
set beside ragmon's are trec_eval's or ir_measures', so any drift on a plain ranking would be a wrong gate.

trec_eval names: hit_rate is success_k, precision P_k, recall recall_k, ndcg ndcg_cut_k, and mrr is
recip_rank, which has no cut-off, on the run cut to its top k. trec_eval reads a run as {docno: score},
orders it by score and breaks ties by docno in reverse, so every run here scores its ranks strictly
decreasingly and trec_eval ranks the ids as ragmon's list does.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import pytest
import pytrec_eval

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.metrics.retrieval import RETRIEVAL_METRICS, retrieval_metrics

KS = (1, 3, 5, 10)
TREC_NAMES = {"hit_rate": "success", "precision": "P", "recall": "recall", "ndcg": "ndcg_cut"}
"""ragmon's metric at k and trec_eval's, whose name at k is `<name>_<k>`; mrr is recip_rank on the cut run."""
POOL = tuple(f"d{i}" for i in range(24))
"""Ids the rankings and relevant sets draw from: small enough that they overlap often, large enough that
they often do not."""
CASES = 1500

Qrels = dict[str, dict[str, int]]


def _scored(ranking: Sequence[str]) -> dict[str, float]:
    """A run trec_eval orders as `ranking` is listed: scores fall strictly with the rank."""
    return {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}


def _trec_eval(qrels: Qrels, rankings: Mapping[str, Sequence[str]], k: int) -> dict[str, dict[str, float]]:
    """trec_eval's five figures at k per query, under ragmon's names."""
    at_k = pytrec_eval.RelevanceEvaluator(qrels, {f"{name}.{k}" for name in TREC_NAMES.values()}).evaluate(
        {qid: _scored(ranking) for qid, ranking in rankings.items()})
    cut = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(
        {qid: _scored(ranking[:k]) for qid, ranking in rankings.items()})
    return {qid: {**{ours: at_k[qid][f"{theirs}_{k}"] for ours, theirs in TREC_NAMES.items()},
                  "mrr": cut[qid]["recip_rank"]} for qid in rankings}


def _ragmon(grades: Mapping[str, int], ranking: Sequence[str], k: int) -> dict[str, float | None]:
    """ragmon's figures with the relevant ids the README has users take from qrels: those graded above 0."""
    return retrieval_metrics(ranking, frozenset(doc for doc, grade in grades.items() if grade > 0), k)


def _assert_agree(qrels: Qrels, retrieved: Mapping[str, Sequence[str]],
                  as_trec_eval_reads_it: Mapping[str, Sequence[str]]) -> None:
    """ragmon on each query's `retrieved` list against trec_eval on that query's list as trec_eval can be
    given it, at every k."""
    for k in KS:
        theirs = _trec_eval(qrels, as_trec_eval_reads_it, k)
        for qid, ranking in retrieved.items():
            assert _ragmon(qrels[qid], ranking, k) == pytest.approx(theirs[qid], abs=1e-12), \
                (ranking, qrels[qid], k)


def _relevant(rng: random.Random, graded: bool) -> dict[str, int]:
    """1 to 6 relevant ids; graded, with grades 1 to 3 and up to 3 ids judged 0 (not relevant) beside
    them, as TREC and BEIR qrels have."""
    relevant, judged_0 = rng.randint(1, 6), rng.randint(0, 3) if graded else 0
    ids = rng.sample(POOL, relevant + judged_0)
    grades = [rng.randint(1, 3) if graded else 1 for _ in range(relevant)] + [0] * judged_0
    return dict(zip(ids, grades, strict=True))


def _cases(seed: int, graded: bool = False) -> tuple[Qrels, dict[str, list[str]]]:
    """CASES queries: distinct ids ranked 0 to 15 deep, relevant ids that may or may not be among them."""
    rng = random.Random(seed)
    qrels = {f"q{n}": _relevant(rng, graded) for n in range(CASES)}
    rankings = {qid: rng.sample(POOL, rng.randint(0, 15)) for qid in qrels}
    return qrels, rankings


def test_distinct_ids_agree_with_trec_eval() -> None:
    qrels, rankings = _cases(seed=20240521)
    assert sum(not ranking for ranking in rankings.values()) > 50  # empty retrievals are among them
    overlapping = sum(bool(qrels[qid].keys() & set(ranking)) for qid, ranking in rankings.items())
    assert CASES // 4 < overlapping < CASES * 3 // 4
    _assert_agree(qrels, rankings, rankings)


def _repeats_as_fillers(ranking: Sequence[str]) -> list[str]:
    """A list with repeated ids as trec_eval can be given it (a run holds an id once): each repeat becomes an
    id of its own that no query judges, at the same rank. That is ragmon's reading of a repeat, which takes
    a rank and is no hit."""
    seen: set[str] = set()
    out = []
    for rank, doc in enumerate(ranking):
        out.append(f"repeat-at-{rank}" if doc in seen else doc)
        seen.add(doc)
    return out


def test_repeated_ids_agree_with_trec_eval_given_each_repeat_as_an_unjudged_id_at_its_rank() -> None:
    rng = random.Random(7)
    qrels = {f"q{n}": _relevant(rng, graded=False) for n in range(CASES)}
    rankings = {qid: rng.choices(POOL[:8], k=rng.randint(0, 15)) for qid in qrels}
    assert sum(len(set(ranking)) < len(ranking) for ranking in rankings.values()) > CASES // 2
    _assert_agree(qrels, rankings, {qid: _repeats_as_fillers(ranking) for qid, ranking in rankings.items()})


def test_the_readmes_five_chunks_of_one_file_leave_policy_md_out_of_the_top_5() -> None:
    # README: five chunks of faq.md fill a top 5, policy.md at position 6 is not in it: every retrieval
    # metric 0, policy.md listed as relevant but not retrieved. A trec_eval run holds an id once: by hand.
    contexts = [Context("faq.md", f"FAQ part {n}.") for n in range(5)] + [Context("policy.md", "Policy.")]
    example = Example("q1", "What is the policy?", contexts=contexts, answer="Policy.",
                      relevant_ids=["policy.md"])
    result = evaluate([example], LexicalJudge(), EvalConfig(k=5, bootstrap_samples=0)).results[0]
    assert {name: result.metrics[name] for name in RETRIEVAL_METRICS} == dict.fromkeys(RETRIEVAL_METRICS, 0.0)
    assert result.relevant_not_retrieved == ("policy.md",)


def test_grades_above_0_as_relevant_ids_agree_with_trec_eval_on_the_graded_qrels() -> None:
    # From qrels {id: grade} the README has users pass [d for d, g in qrels.items() if g > 0]. trec_eval's
    # success, P, recall and recip_rank count a grade of 1 or more as relevant, so they agree on the qrels
    # as they are; ragmon's nDCG is binary, so it is trec_eval's ndcg_cut with every grade above 0 set to 1.
    qrels, rankings = _cases(seed=31337, graded=True)
    assert sum(0 in grades.values() for grades in qrels.values()) > CASES // 2
    assert sum(max(grades.values()) > 1 for grades in qrels.values()) > CASES // 2
    binary = {qid: {doc: min(grade, 1) for doc, grade in grades.items()} for qid, grades in qrels.items()}
    for k in KS:
        graded, binarised = _trec_eval(qrels, rankings, k), _trec_eval(binary, rankings, k)
        for qid, ranking in rankings.items():
            expected = {**graded[qid], "ndcg": binarised[qid]["ndcg"]}
            assert _ragmon(qrels[qid], ranking, k) == pytest.approx(expected, abs=1e-12), \
                (ranking, qrels[qid], k)


def test_ndcg_is_binary_not_trec_evals_graded_ndcg_cut() -> None:
    # qrels {a: 2, b: 1}, ranking b a, k = 2. Binary: both relevant, both in the top 2, so DCG is the ideal
    # DCG and ndcg is 1. trec_eval's graded ndcg_cut_2 gains the grades: DCG = 1 + 2/log2(3) = 2.2619 over
    # the ideal a b = 2 + 1/log2(3) = 2.6309: 0.8597. A graded figure is not comparable with ragmon's.
    assert retrieval_metrics(["b", "a"], frozenset({"a", "b"}), 2)["ndcg"] == 1.0
    graded = _trec_eval({"q": {"a": 2, "b": 1}}, {"q": ["b", "a"]}, 2)["q"]["ndcg"]
    assert graded == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert graded == pytest.approx(0.8597, abs=1e-4)
