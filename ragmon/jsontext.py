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
