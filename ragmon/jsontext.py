"""JSON from outside (OTLP/JSON bodies, JSON-valued span attributes) read into text that is always valid,
and refused alike on every Python.

`json.loads` accepts a lone surrogate, escaped ("\\ud800" alone) or as its UTF-8-style bytes (ED A0 80):
valid JSON, but no character, and no UTF-8 encoding downstream can write it. Left in, one fails whatever
writes it: as a pipeline label, every /metrics scrape; in a document, the Claude judge's cache key and the
capture file. Each becomes U+FFFD here, as the Collector's decoder reads it.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate escaped. A regex, as its literal start lets the engine skip to backslashes (rare) where
`in` would test at every "d" (5x slower); compiled for bytes and for str below."""
_SURROGATE_ESCAPE_BYTES = re.compile(_SURROGATE_ESCAPE.pattern.encode())
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a str every surrogate is lone: `json.loads` joins an escaped pair into one character."""
JSON_SPACE = " \t\n\r"
"""The white space JSON allows between tokens."""
MAX_NESTING = 128
"""Arrays and objects one attribute value may hold within each other, as JSON text in a string attribute
(`loads_bounded`) or as OTLP's arrayValue and kvlistValue (`ragmon.otlp.decode`); deeper is refused. Far
past any real value, and far below where a Python stops: bounded here, as json's own limit is each
version's (3.11 refuses from ~990 levels, less the caller's stack; 3.12 from ~1,500; 3.13 from ~10,000),
so the same trace was an error on one Python and read, or another error, on the next."""
_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\\?\Z)')
"""A JSON string, or one left open to the end of the text (cut short)."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_OR_STRING = re.compile(rf"{_STRING.pattern}|[\[\]{{}}]")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_TRAILING_COMMA = "Illegal trailing comma before end of "
_EXPECTED_AFTER_COMMA = {"object": "Expecting property name enclosed in double quotes",
                         "array": "Expecting value"}
"""What Python 3.11 and 3.12 expected where 3.13 finds a trailing comma, by what the comma is in."""


def loads(data: str | bytes) -> Any:
    """`json.loads`, with every lone surrogate made U+FFFD. Only text holding a surrogate escape or an ED
    byte (Hangul has them too) pays for the check; an emoji escaped as a pair is one character and stays."""
    doc = json.loads(data)
    if isinstance(data, bytes):
        suspect = b"\xed" in data or _SURROGATE_ESCAPE_BYTES.search(data) is not None
    else:
        suspect = _SURROGATE_ESCAPE.search(data) is not None
    if not suspect:
        return doc
    text = json.dumps(doc, ensure_ascii=False)
    replaced = replace_lone_surrogates(text)
    return doc if replaced is text else json.loads(replaced)


class NestedTooDeeply(json.JSONDecodeError):
    """JSON text nesting arrays and objects deeper than `bound`, at `pos`, where it first does."""

    def __init__(self, bound: int, doc: str, pos: int) -> None:
        super().__init__(f"nested too deeply (more than {bound} arrays and objects within each other)", doc,
                         pos)


def loads_bounded(text: str, bound: int = MAX_NESTING) -> Any:
    """`loads`, refusing text nested deeper than `bound` (NestedTooDeeply) before it is parsed."""
    where = nesting_past(text, bound)
    if where is not None:
        raise NestedTooDeeply(bound, text, where)
    return loads(text)


def nesting_past(text: str, bound: int) -> int | None:
    """Where `text` first opens an array or an object inside `bound` others (strings skipped), None when it
    never does. Text of no more brackets than `bound` is not read further, as nearly all is; other text
    has its depth measured by builtins, no Python code run a character or a bracket, and only text past
    the bound is walked to find where."""
    if text.count("[") + text.count("{") <= bound:
        return None
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= bound:
        return None
    depth = 0
    for token in _BRACKET_OR_STRING.finditer(text):
        depth += _DEPTH_STEP.get(token[0], 0)
        if depth > bound:
            return token.start()
    return None


def replace_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD; `text` itself when it has none."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def decode_error(exc: json.JSONDecodeError) -> json.JSONDecodeError:
    """`exc` as Python 3.11 and 3.12 give it, so a file gets one message on every Python. 3.13 names a
    trailing comma itself ("Illegal trailing comma before end of object"), at the comma; earlier Pythons
    say what they expected instead ("Expecting property name enclosed in double quotes", "Expecting
    value") at the `}` or `]` after it, one column or a line later, where ragmon's messages place the
    error and say it is a trailing comma (`ragmon.datasets.decoding`)."""
    if not exc.msg.startswith(_TRAILING_COMMA):
        return exc
    after = exc.doc[exc.pos + 1:]
    closing = exc.pos + 1 + len(after) - len(after.lstrip(JSON_SPACE))
    expected = _EXPECTED_AFTER_COMMA[exc.msg.removeprefix(_TRAILING_COMMA)]
    return json.JSONDecodeError(expected, exc.doc, closing)
