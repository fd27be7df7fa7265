"""Lexical worker tasks that fail on one example: one kills its own worker, as a worker is OOM-killed
every time it scores an example that blows its memory limit; one returns a result the main process
cannot read back, as a bug in ragmon would; one never ends, as a pathological text might. A module of
its own: a worker runs the task by name, importing this module and nothing of the test that sends it."""

from __future__ import annotations

import os
import signal

from ragmon.model import Example
from ragmon.scoring import score_lexical

POISON = "poison"
"""The id of the example that kills the worker scoring it."""
UNREADABLE = "unreadable"
"""The id of the example whose result cannot be unpickled."""
HANG = "hang?"
"""The question of the example its worker never finishes (a sidecar's example is named by its trace id)."""


def score_or_die(example: Example, k: int) -> tuple[bytes | str, float, int, int]:
    if example.id == POISON:
        os.kill(os.getpid(), signal.SIGKILL)
    return score_lexical(example, k)


def score_or_hang(example: Example, k: int) -> tuple[bytes | str, float, int, int]:
    while example.question == HANG:
        pass
    return score_lexical(example, k)


def _refuse() -> None:
    raise ValueError("this result cannot be read back")


class Unreadable:
    def __reduce__(self) -> tuple[object, tuple[()]]:
        return _refuse, ()


def score_unreadable(example: Example, k: int) -> tuple[object, float, int, int]:
    if example.id == UNREADABLE:
        return Unreadable(), 0.0, os.getpid(), 0
    return score_lexical(example, k)
