"""JSON from outside (OTLP/JSON bodies, JSON-valued span attributes) read into text that is always valid.

`json.loads` accepts a lone surrogate, escaped ("\\ud800" alone) or as its UTF-8-style bytes (ED A0 80):
valid JSON, but no character, and no UTF-8 encoding downstream can write it. Left in, one fails whatever
writes it: as a pipeline label, every /metrics scrape; in a document, the Claude judge's cache key and the
capture file. Each becomes U+FFFD here, as the Collector's decoder reads it.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate escaped. A regex, as its literal start lets the engine skip to backslashes (rare) where
`in` would test at every "d" (5x slower); compiled for bytes and for str below."""
_SURROGATE_ESCAPE_BYTES = re.compile(_SURROGATE_ESCAPE.pattern.encode())
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a str every surrogate is lone: `json.loads` joins an escaped pair into one character."""
JSON_SPACE = " \t\n\r"
"""The white space JSON allows between tokens."""
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
