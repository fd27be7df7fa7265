"""Ids for documents that arrive without one, and how an id is compared and quoted in a message.

Both doors (dataset files and spans) must name an id-less document the same way, or citations and
relevant ids stop matching between an offline run and live traffic; this is the one place that rule lives.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

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


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def store_assigned(doc_id: object) -> bool:
    """Whether a LangChain document's id is most likely its vector store's, a UUID as `str(uuid.uuid4())`
    writes it: InMemoryVectorStore, Chroma, FAISS and PGVector give a document added without an id a random
    one, while the app's own name for it, which its labels and citations use, is then its metadata's id or
    source. Any other id is the app's, and names the document."""
    return isinstance(doc_id, str) and len(doc_id) == 36 and _UUID.fullmatch(doc_id) is not None


ID_SHOWN = 60
"""Characters of an id a message quotes: a hand-made file's may be any length."""


def id_key(example_id: str) -> str:
    """An id as a reader sees it: two ids equal here may look alike in a report ("café" in its two Unicode
    forms, "q01" and "q01 "), though a tab or line break around one is shown escaped."""
    return unicodedata.normalize("NFC", example_id).strip()


def escaped_id(example_id: str, width: int = ID_SHOWN) -> str:
    """An id as a warning quotes it: as `ascii` writes it, where what tells two look-alikes apart shows
    (`'caf\\xe9'`, `'q01 '`), and one longer than `width` by its two ends, where white space around it is.
    Quoted whole, two ids of 200,000 characters made a JUnit file of 400 KB."""
    if len(example_id) <= width:
        return ascii(example_id)
    return f"{example_id[:width // 2]!a}...{example_id[-(width // 2):]!a}"
