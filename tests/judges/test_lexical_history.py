"""The lexical judge's verdicts, reasons and metrics are a function of the example and the threshold alone.

The sidecar keeps one judge per worker process for its lifetime, and what it reads (passages, profiles,
stems, sentences, claims) is cached and shared from one example to the next. A user reading one trace's
verdict must get the one any other worker, order of traffic, hash seed or cache size would have given:
otherwise a claim's groundedness depends on which questions were asked before it.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import random
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest
import scoring_corpus

import ragmon
from ragmon import Context, Example, LexicalJudge, scoring
from ragmon.evaluation import evaluate_example
from ragmon.model import ExampleResult
from ragmon.text import bound_sentences, claims, own_figures, passage_sentences, passages, table_cells, terms
from ragmon.text.cache import text_cache
from ragmon.text.passages import Passage


def _fresh(example: Example) -> ExampleResult:
    """As a worker that has scored nothing yet scores it."""
    passages.clear_cache()
    terms.clear_cache()
    terms.TERMS.clear()
    claims.clear_cache()
    return evaluate_example(example, LexicalJudge(), 5)


@pytest.mark.parametrize(("page", "claim", "other", "reason"), [
    # Code writes 60,000 as "60_000": the page gives no 60.
    ("Set the timeout with REQUEST_TIMEOUT_MS. The default timeout is 60_000 ms.",
     "The default timeout is 60 ms.", "The default timeout is 60,000 ms.",
     "no single context supports it; closest docs has 3/3 of its terms, lacks 60"),
    # After a currency sign "M" is million: the page gives no $2.
    ("Liability coverage is capped at $2M per claim.",
     "Liability coverage is capped at $2 per claim.", "Liability coverage is capped at $2 million per claim.",
     "no single context supports it; closest docs has 4/4 of its terms, lacks 2"),
])
def test_a_claims_verdict_does_not_depend_on_the_claim_scored_before_it(
        page: str, claim: str, other: str, reason: str) -> None:
    """A first claim stating the page's number made the judge read all its numbers; the same made-up
    number was supported on a worker that had not been asked that before, and unsupported on one that
    had."""
    contexts = (Context("docs", page),)
    asked = Example("asked", "?", contexts, claim)
    first = _fresh(asked).verdicts
    evaluate_example(Example("before", "?", contexts, other), LexicalJudge(), 5)
    again = evaluate_example(asked, LexicalJudge(), 5).verdicts
    assert [(v.supported, v.reason) for v in first] == [(False, reason)]
    assert again == first


@pytest.mark.parametrize(("page", "number"), [
    ("timeout: 60_000 ms", 60.0),  # 60,000
    ("ticket 12_345", 345.0),  # 12,345
    ("raised $1.5M in its seed round", 1.5),  # 1,500,000
    ("a $2B market", 2.0),  # 2,000,000,000
    ("a 9:00 million budget", 9.0),  # 9:00 is the hour 9, and "9 million" is 9,000,000
    ("a fee of €9:00m per case", 9.0),  # "9:00" read as 9 first, then "€9m": 9,000,000
])
def test_a_passage_states_a_number_alike_before_and_after_its_numbers_are_read(
        page: str, number: float) -> None:
    """Each of these pages writes the number's digits as part of a larger one."""
    unread = Passage(page)
    read = Passage(page)
    assert number not in read.numbers
    assert (unread.states(frozenset([number])), read.states(frozenset([number]))) == (False, False)


class _AskedWhileReadingDates(Passage):
    """A passage asked again the moment it stores its dates, as a second thread sharing it through the
    cache may ask it (`LexicalJudge` is shared between threads): it must find what it would find after."""

    __slots__ = ()
    answers: ClassVar[list[bool]] = []

    def __setattr__(self, name: str, value: object) -> None:
        super().__setattr__(name, value)
        if name == "_dates" and value is not None:
            self.answers.append(self.states(_MARCH_15))


_MARCH_15 = claims.claim_profile("The offer ends on March 15, 2024.").numbers


def test_a_thread_sharing_a_passage_reads_its_dates_as_the_thread_reading_them() -> None:
    """"Mar-15-2024" is read as its pieces, its 15 among the numbers outside the dates read: the second
    thread took the dates as read before those numbers were, and found no March 15, 2024."""
    _AskedWhileReadingDates.answers.clear()
    passage = _AskedWhileReadingDates("The offer ends Mar-15-2024.")
    assert passage.states(_MARCH_15) is True
    assert _AskedWhileReadingDates.answers == [True]


def _in_order(examples: list[Example], seed: int, times: int = 2) -> dict[str, list[Any]]:
    """Each example's outcome with one judge scoring them all, `times` over, in a shuffled order: twice, each
    example meets its own texts cached as well as others'."""
    judge, outcomes = LexicalJudge(), {}
    order = examples * times
    random.Random(seed).shuffle(order)
    for example in order:
        outcome = scoring_corpus.outcome(evaluate_example(example, judge, 5))
        assert outcomes.setdefault(example.id, outcome) == outcome, example.id
    return outcomes


def _tiny_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cache of what the judge reads holds one entry, so it evicts at nearly every text."""
    def tiny(cached: Callable[..., Any], replacement: Callable[..., Any]) -> None:
        for module in [m for name, m in sys.modules.items() if name.startswith("ragmon")]:
            for name, value in list(vars(module).items()):
                if value is cached:
                    monkeypatch.setattr(module, name, replacement)

    def small(read: Callable[[str], Any], size: Callable[[str, Any], int], short: int
              ) -> Callable[[str], Any]:
        return text_cache(read, size, short=short, entries=1, max_bytes=4096)[0]

    tiny(passages.passage, small(Passage, passages.size, passages.SHORT))
    tiny(passages._cached_prepared, small(terms.prepare, passages._prepared_size, passages.SHORT))
    tiny(terms.profile, small(terms.read_profile, terms._held, terms.SHORT))
    tiny(claims.split_claims, small(claims._split_claims, claims._held, claims.SHORT))
    for cached in (passage_sentences.sentences, table_cells.tables, table_cells.counts,
                   bound_sentences.bound_sentences, own_figures._bounding, own_figures._own):
        tiny(cached, functools.lru_cache(maxsize=1)(cached.__wrapped__))
    monkeypatch.setattr(terms.TERMS, "limit", 8)
    monkeypatch.setattr(terms, "_PAIRS_HELD", 4)


def _in_workers(examples: list[Example]) -> dict[str, list[Any]]:
    """Each example's outcome from the sidecar's lexical workers: two processes, each with its judge."""
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(2, mp_context=context, initializer=scoring.warm, initargs=(0.56,)) as pool:
        sent = [(example, pool.submit(scoring.score_lexical, example, 5)) for example in examples]
        return {example.id: scoring_corpus.outcome(scoring.read_result(example, done.result()[0]))
                for example, done in sent}


def _in_order_under_hash_seed(seed: str) -> subprocess.Popen[str]:
    """`_in_order` in another process under another hash seed (set order differs there), started to run
    beside this one's work; its JSON outcomes on stdout."""
    code = ("import json, sys; sys.path[:0] = sys.argv[1:]; import test_lexical_history as t; "
            "print(json.dumps(t._in_order(t.scoring_corpus.examples(), 2)))")
    tests = Path(__file__).parents[1]  # scoring_corpus
    paths = [str(Path(__file__).parent), str(tests), str(Path(ragmon.__file__).parents[1])]
    return subprocess.Popen([sys.executable, "-c", code, *paths], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONHASHSEED": seed})


def test_every_outcome_is_the_one_a_fresh_judge_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each example scored alone with empty caches (under this process's hash seed, random unless set),
    then by one judge in a long shuffled sequence under hash seed 1, in the sidecar's worker processes,
    and with caches that evict constantly. Each way once: a second hash seed and a second shuffled sequence
    were run before: the module took ~37 s of CPU with them, ~30 s without (one run each)."""
    seeded = _in_order_under_hash_seed("1")
    try:
        examples = scoring_corpus.examples()
        fresh = {example.id: scoring_corpus.outcome(_fresh(example)) for example in examples}
        assert len(fresh) == len(examples) > 3000
        assert _in_workers(examples) == fresh
        _tiny_caches(monkeypatch)  # each text is let go before it comes round again: once through is enough
        assert _in_order(examples, 2, times=1) == fresh
        output = seeded.communicate(timeout=120)[0]
    finally:
        if seeded.poll() is None:
            seeded.kill()
            seeded.communicate()
    assert seeded.returncode == 0
    assert json.loads(output) == fresh
