"""The caches by text: long texts are kept within a byte budget, least recently used out first, and a text
too large for the budget is read every time rather than kept."""

from __future__ import annotations

import os
import random
import signal
import sys
import tracemalloc

import pytest

from ragmon.text import claims, passages, terms
from ragmon.text.cache import LongTextCache, text_cache


class Reads:
    """`read` for a cache under test: a fresh object per call, so `is` tells a cache hit from a read."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, text: str) -> list[str]:
        self.count += 1
        return [text]


def by_length(text: str, value: list[str]) -> int:
    return len(text)


def test_keeps_the_most_recently_used_within_its_count() -> None:
    cache = LongTextCache(Reads(), by_length, entries=2, max_bytes=2**20)
    first, second = cache("alpha"), cache("gamma")
    assert cache("alpha") is first  # used again: now the most recent
    cache("epsilon")  # a third: the least recently used, "gamma", goes
    assert cache("alpha") is first and cache("gamma") is not second


def test_holds_at_most_its_bytes_and_never_a_text_larger_than_them() -> None:
    # Sized by length: 100 + 100 = 200 fit in 250; a third makes 300, so the oldest goes.
    reads = Reads()
    cache = LongTextCache(reads, by_length, entries=100, max_bytes=250)
    texts = ["a" * 100, "b" * 100, "c" * 100]
    first, *_ = (cache(text) for text in texts)
    assert cache.held_bytes == 200
    assert cache(texts[0]) is not first and reads.count == 4  # gone, read again
    over = LongTextCache(Reads(), by_length, entries=100, max_bytes=99)
    assert over(texts[0]) is not over(texts[0]) and over.held_bytes == 0  # 100 > 99: read, never kept


def test_long_claims_and_answers_are_read_once_while_held_and_read_as_short_ones_are() -> None:
    # Past SHORT characters a text goes to the byte-bounded cache; what is read from it does not change.
    sentence = "Refunds take thirty days. "
    answer = sentence * (claims.SHORT // len(sentence) + 1)
    assert len(answer) > claims.SHORT and claims.split_claims(answer) is claims.split_claims(answer)
    assert len(claims.split_claims(answer)) == claims.SHORT // len(sentence) + 1
    assert len(answer) > terms.SHORT and terms.profile(answer) is terms.profile(answer)
    # refund, take, thirty -> 30 (a number, not a term), day: the terms of one sentence are all of them.
    assert terms.profile(answer) == terms.profile(sentence)
    assert terms.profile(answer).terms == {"refund", "take", "dai"} and terms.profile(answer).numbers == {30}


def test_a_wide_text_past_wide_short_is_held_within_the_byte_budget_and_a_narrow_one_by_count() -> None:
    # Chinese holds a term at nearly every character, so a wide text is "long" sooner: 22 characters,
    # past wide_short (10), go to the cache of 50 bytes, where a third of them (66) puts out the first.
    # ASCII of the same length stays in the cache bounded by count alone (100 entries).
    reads = Reads()
    cached, _ = text_cache(reads, by_length, short=100, wide_short=10, entries=100, max_bytes=50)
    chinese = ["退款政策" * 5 + f"{n:02d}" for n in range(3)]
    english = [f"refund policy {n:08d}" for n in range(3)]
    for texts in (chinese, english):
        first = cached(texts[0])
        for text in texts[1:]:
            cached(text)
        assert (cached(texts[0]) is first) == texts[0].isascii()
    assert reads.count == 7  # the first Chinese text read twice
    assert cached("退款政策") is cached("退款政策")  # wide, within wide_short: counted, kept


def test_chinese_passages_the_cache_keeps_hold_about_its_budget() -> None:
    # 900 new passages of 1,000 Chinese characters (from 3,000, so nearly every pair new): each under
    # SHORT, they had all been kept, ~100 KB each with their pairs (90 MB), where the budget is 32 MiB.
    rng = random.Random(5)
    ideographs = [chr(0x4E00 + n) for n in range(3_000)]
    texts = ["".join(rng.choices(ideographs, k=1_000)) for _ in range(900)]
    passages.clear_cache()
    tracemalloc.start()
    try:
        for text in texts:
            passages.passage(text)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        passages.clear_cache()
    assert held < 44 * 2**20


def test_clearing_forgets_long_and_short_texts() -> None:
    short, long = "Refunds take thirty days.", "Refunds take thirty days. " * 40
    before = (terms.profile(short), terms.profile(long), claims.split_claims(long * 4))
    terms.clear_cache()
    claims.clear_cache()
    after = (terms.profile(short), terms.profile(long), claims.split_claims(long * 4))
    assert all(a == b and a is not b for a, b in zip(before, after, strict=True))


def held_after_use(text: str) -> tuple[int, int, int]:
    """(what the passage cache counts for a long passage when it keeps it, what the passage then holds
    once a claim with a number has read its numbers, traced with the text itself, how many numbers). The
    least of two readings: a shared cache that tests before this one filled to the point of growing (a
    dict's table doubling) grows once, inside one of them, and had been counted as the passage's."""
    assert passages.Passage(text).numbers  # the stems into TERMS first: that cache is not the passage's
    readings = []
    for _ in range(2):
        tracemalloc.start()
        try:
            kept = passages.Passage(text)
            counted = passages.size(text, kept)
            numbers = kept.numbers
            readings.append(tracemalloc.get_traced_memory()[0])
        finally:
            tracemalloc.stop()
    return counted, min(readings) + sys.getsizeof(text), len(numbers)


@pytest.mark.parametrize("figure", ["{n}", "${n}.50", "{n:,}"])
def test_a_long_passage_is_counted_with_the_numbers_it_will_hold(figure: str) -> None:
    # A table of figures (a price list, a filing): 2,000 rows, each an item number (0 to 1,999) and a
    # figure (1,000,000 and up), so 4,000 distinct numbers, which the passage reads once a claim states
    # one, after the cache counted it. Each is a float in a frozenset, ~60 bytes: ~240 KB, where the
    # ~40 KB of text and the one term ("item") were all a count without them saw.
    rows = [f"Item {n}: " + figure.format(n=1_000_000 + 7 * n) + "." for n in range(2_000)]
    text = " ".join(rows)
    counted, held, numbers = held_after_use(text)
    assert len(text) > passages.SHORT and numbers == 4_000
    assert held / 1.5 <= counted <= held * 1.5, (counted, held)


def test_a_long_passage_writing_euro_prices_is_counted_with_the_copy_its_numbers_make() -> None:
    # Once a claim asks for its numbers, the passage keeps its text with "1000,50 €" written "1000.50 €":
    # a copy of ~84 KB beside the text the cache is keyed by, which the count left out (counted 246 KB
    # for 439 KB held), so a cache of euro price lists held 52 MiB of its 32.
    rows = [f"Artikel {n} kostet {n},50 € pro Stück, der Versand dauert drei bis fünf Werktage inklusive "
            "Verpackung." for n in range(1_000, 1_800)]
    counted, held, numbers = held_after_use(" ".join(rows))
    assert numbers == 1_600 + 2  # each article's number and price, and "drei" and "fünf"
    assert held / 1.2 <= counted <= held * 1.2, (counted, held)


def test_a_count_past_the_budget_is_mended_not_a_key_error() -> None:
    # A KeyboardInterrupt between an eviction and its subtraction left the count one entry too high; past
    # the budget, every later call popped an empty dict: KeyError('dictionary is empty').
    cache = LongTextCache(Reads(), by_length, entries=3, max_bytes=10_000)
    cache("a" * 3_000)
    cache._bytes += 20_000  # what enough interrupts at that moment add up to
    assert cache("b" * 3_000) == ["b" * 3_000]
    assert cache.held_bytes == 0  # all evicted, then counted anew: nothing held counts nothing


def test_a_child_forked_while_a_thread_holds_a_cache_s_lock_can_use_the_cache() -> None:
    # A multiprocessing "fork" worker forked while a service scored in threads inherited the lock held by a
    # thread it does not have, and its first long passage waited for ever.
    cache = LongTextCache(Reads(), by_length, entries=3, max_bytes=10_000)
    with cache._lock:  # as another thread of the parent holds it at the fork
        pid = os.fork()
        if pid == 0:
            signal.alarm(5)  # a hung child ends, and says so by its status
            os._exit(0 if cache("c" * 100) == ["c" * 100] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
