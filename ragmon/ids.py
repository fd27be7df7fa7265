"""Ids for documents that arrive without one.

Both doors (dataset files and spans) must name an id-less document the same way, or citations and
relevant ids stop matching between an offline run and live traffic; this is the one place that rule lives.
"""

from __future__ import annotations

import hashlib

from ragmon.jsontext import replace_lone_surrogates


def content_id(text: str) -> str:
    """`doc-` plus the first 8 hex digits of the SHA-256 of the UTF-8 text. A lone surrogate (a "\\ud800"
    escape in a dataset: valid JSON, but no character) is hashed as U+FFFD, which is what the OTLP door
    makes of it, so both doors still name the document alike."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = replace_lone_surrogates(text).encode("utf-8")
    return "doc-" + hashlib.sha256(data).hexdigest()[:8]
