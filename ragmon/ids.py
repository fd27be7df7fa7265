"""Ids for documents that arrive without one.

Both doors (dataset files and spans) must name an id-less document the same way, or citations and
relevant ids stop matching between an offline run and live traffic; this is the one place that rule lives.
"""

from __future__ import annotations

import hashlib


def content_id(text: str) -> str:
    """`doc-` plus the first 8 hex digits of the SHA-256 of the UTF-8 text."""
    return "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
