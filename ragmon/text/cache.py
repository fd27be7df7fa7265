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

import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Generic, TypeVar

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
            while len(self._held) > self.entries or self._bytes > self.max_bytes:
                self._bytes -= self._held.popitem(last=False)[1][1]
        return value

    @property
    def held_bytes(self) -> int:
        return self._bytes

    def cache_clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._bytes = 0


def text_cache(read: Callable[[str], T], size: Callable[[str, T], int], *, short: int, entries: int,
               max_bytes: int) -> tuple[Callable[[str], T], Callable[[], None]]:
    """`read` cached by text, and the function that empties its cache: texts of at most `short` characters
    in an `lru_cache` of `entries`, longer ones in a `LongTextCache` of `entries` and `max_bytes`. A plain
    function, not an object with `__call__`: on the scoring hot path that costs ~70 ns a call more."""
    small = lru_cache(maxsize=entries)(read)
    large = LongTextCache(read, size, entries=entries, max_bytes=max_bytes)

    @wraps(read, updated=())
    def cached(text: str) -> T:
        return small(text) if len(text) <= short else large(text)

    def clear() -> None:
        small.cache_clear()
        large.cache_clear()

    return cached, clear
