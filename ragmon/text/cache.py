"""Caches by text for what the lexical judge reads: passages, profiles and claims.

Texts recur (the same passages across questions, the same claims and questions across traces), so what
is read from them is cached. A count alone does not bound a cache's memory: a pipeline that retrieves
whole files, or an answer of 100,000 characters, made 4,096 entries hold gigabytes per scoring process.
So each cache sends short texts, nearly all of them, to a C-level `lru_cache` (a Python cache for them
cost ~2% of scoring), where the length bound makes the count a bound in bytes, and long ones to a
`LongTextCache`, bounded by bytes as well as count, where Python bookkeeping is a small share of the
reading.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class LongTextCache(Generic[T]):
    """`read(text)` by text, least recently used out first, at most `entries` and `max_bytes`.

    `size(text, value)` estimates what an entry holds; one over the whole budget is read and not kept.
    Shared by the threads of one process, hence the lock (read outside it: two threads may read one
    text twice, never keep it twice)."""

    def __init__(self, read: Callable[[str], T], size: Callable[[str, T], int], *, entries: int,
                 max_bytes: int) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self._read = read
        self._size = size
        self._held: OrderedDict[str, tuple[T, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        _CACHES.add(self)

    def __call__(self, text: str) -> T:
        with self._lock:
            found = self._held.get(text)
            if found is not None:
                self._held.move_to_end(text)
                return found[0]
        value = self._read(text)
        size = self._size(text, value)
        if size > self.max_bytes:
            return value
        with self._lock:
            if text not in self._held:
                self._held[text] = (value, size)
                self._bytes += size
            while self._held and (len(self._held) > self.entries or self._bytes > self.max_bytes):
                self._bytes -= self._held.popitem(last=False)[1][1]
            if not self._held:
                # A KeyboardInterrupt between an eviction and its subtraction leaves the count too high; were
                # it past the budget, every later call had popped an empty dict (KeyError): an empty cache
                # counts nothing, whatever happened before.
                self._bytes = 0
        return value

    def _unlock_after_fork(self) -> None:
        self._lock = threading.Lock()

    @property
    def held_bytes(self) -> int:
        return self._bytes

    def cache_clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._bytes = 0


_CACHES: weakref.WeakSet[LongTextCache[Any]] = weakref.WeakSet()
"""Every long-text cache of the process, whose locks a forked child gets new (`_unlock_after_fork`)."""


def _unlock_caches() -> None:
    """A child forked while another thread held a cache's lock inherits it held, by a thread it does not
    have: its first long passage waited for ever (a `multiprocessing` pool's "fork" worker, forked while a
    service scored in threads, never returned a task)."""
    for cache in _CACHES:
        cache._unlock_after_fork()


os.register_at_fork(after_in_child=_unlock_caches)

_NARROW = sys.getsizeof("\xe9") - 1


def wide(text: str) -> bool:
    """Whether `text` holds a character past U+00FF, told from the size CPython keeps it at (PEP 393: one
    byte a character up to U+00FF, two or four past it; `_NARROW` is the rest, measured at import): a
    constant-time test, where searching a passage of 1,300 characters with a "é" for a Chinese character
    took 3-9 us. Chinese, Japanese and full-width text is wide, and so is some English ("—", "€")."""
    return not text.isascii() and sys.getsizeof(text) > _NARROW + len(text)


def text_cache(read: Callable[[str], T], size: Callable[[str, T], int], *, short: int, entries: int,
               max_bytes: int, wide_short: int | None = None
               ) -> tuple[Callable[[str], T], Callable[[], None]]:
    """`read` cached by text, and the function that empties its cache: texts of at most `short` characters
    (`wide_short` if they are `wide`) in an `lru_cache` of `entries`, longer ones in a `LongTextCache` of
    `entries` and `max_bytes`. What a text is read into may grow with its terms rather than its length:
    Chinese and Japanese are read in pairs of characters, a term at nearly every character where English
    has one in ten, and 4,096 passages of 4,096 Chinese characters would have held ~650 MB; whether a
    text could be Chinese is told in constant time (`wide`), so wide English longer than `wide_short`
    goes to the long cache too, at ~0.3 us a lookup more. A plain function, not an object with
    `__call__`: on the scoring hot path that costs ~70 ns a call more."""
    small = lru_cache(maxsize=entries)(read)
    large = LongTextCache(read, size, entries=entries, max_bytes=max_bytes)
    narrow = short if wide_short is None else wide_short

    @wraps(read, updated=())
    def cached(text: str) -> T:
        length = len(text)
        return small(text) if length <= narrow or (length <= short and not wide(text)) else large(text)

    def clear() -> None:
        small.cache_clear()
        large.cache_clear()

    return cached, clear
