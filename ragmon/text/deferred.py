"""Regular expressions compiled at their first use, not at import.

The judge's refusal, courtesy and European-language patterns are long alternations (`european.DECLINES` is
23 KB of source), and Python's `re` parses and compiles them in Python: compiling the text modules' patterns
at import took about half a second of CPU in each process that imported the judge (`ragmon replay`, `ragmon
serve` and its forkserver, the test suite's hundreds of CLI subprocesses) before a first argument was read,
where scoring the shipped golden set uses a sixth of them.

A deferred pattern compiles itself when a method of it is first called, then puts the compiled pattern in
its own place in the module that made it: that module's later calls reach `re.Pattern` itself, at no cost
per call. Whatever else holds it from import on (a default argument, a tuple, a dataclass, another module's
`from ... import`) calls through it for ever, at an attribute lookup more: such a pattern is compiled at
import instead (a test finds one)."""

from __future__ import annotations

import re
import sys
from typing import Any, cast

_MADE: list[DeferredPattern] = []
"""Every deferred pattern made, so that a test compiles them all: a mistyped one compiled at first use could
otherwise wait for the one text in production that reaches it."""


class DeferredPattern:
    """A pattern's source, until a method of it is called. `pattern` is there from the start: modules build
    patterns of other patterns' sources at import, which should compile nothing."""

    def __init__(self, pattern: str, flags: int, home: dict[str, Any]) -> None:
        self.pattern = pattern
        self._flags = flags
        self._home = home
        self._compiled: re.Pattern[str] | None = None
        _MADE.append(self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled(), name)

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return re.compile, (self.pattern, self._flags)

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self._flags)
            for name, value in list(self._home.items()):
                if value is self:
                    self._home[name] = self._compiled
        return self._compiled


def deferred(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used; typed as what it stands in for, whose methods
    and attributes it answers."""
    return cast("re.Pattern[str]", DeferredPattern(pattern, flags, sys._getframe(1).f_globals))


def compile_all() -> int:
    """Compile every deferred pattern not compiled yet; how many were made in all."""
    for pattern in _MADE:
        pattern.compiled()
    return len(_MADE)
