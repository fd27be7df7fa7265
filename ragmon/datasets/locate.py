"""The line where a record or a value starts, for error messages.

A JSONL record's line is known as it is read. In a whole JSON document it is found by walking the text
along the value's JSON path, and only when an error needs it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ragmon.datasets.fields import FieldPath
from ragmon.jsontext import JSON_SPACE

LineOf = Callable[[], int]
"""Where a record starts, worked out only when an error needs it (locating is slow in whole-JSON files)."""


def fixed(line: int) -> LineOf:
    return lambda: line


def line_of(text: str, path: FieldPath) -> int:
    """The line where the value at `path` starts, or where its deepest existing parent does."""
    return text.count("\n", 0, _locate(text, path)) + 1


def _locate(text: str, path: FieldPath) -> int:
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    for step in path:
        child = _child_offset(text, position, step, decoder)
        if child is None:
            break
        position = child
    return position


def _child_offset(text: str, position: int, step: str | int, decoder: json.JSONDecoder) -> int | None:
    """Walk one level into the JSON value at `position` without building it; only used on errors."""
    opening = text[position:position + 1]
    if (opening, isinstance(step, int)) not in (("{", False), ("[", True)):
        return None
    closing = "}" if opening == "{" else "]"
    index = 0
    position = _skip_space(text, position + 1)
    while position < len(text) and text[position] != closing:
        if opening == "{":
            key, position = decoder.raw_decode(text, position)
            position = _skip_space(text, _skip_space(text, position) + 1)
            if key == step:
                return position
        elif index == step:
            return position
        _, position = decoder.raw_decode(text, position)
        index += 1
        position = _skip_space(text, position)
        if text[position:position + 1] == ",":
            position = _skip_space(text, position + 1)
    return None


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in JSON_SPACE:
        position += 1
    return position
