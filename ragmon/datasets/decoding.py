"""JSON text decoded strictly, and its errors as messages that say where the text went wrong.

Shared by the reader and the OTLP/JSON lines reader, so a bad line gets the same message in every format.
"""

from __future__ import annotations

import json
from typing import Any

from ragmon.errors import InputError

JSON_SPACE = " \t\n\r"


def json_line(raw: bytes) -> Any:
    """One line's JSON value. Decoded strictly first: `json.loads` on bytes lets UTF-8-encoded surrogates
    through (it decodes with surrogatepass), and no report could then be written in UTF-8."""
    return json.loads(raw.decode("utf-8-sig"))


def json_message(exc: json.JSONDecodeError) -> str:
    """json's message with its column; its "Unterminated string starting at" means the text ends inside
    a string, most often a line cut short, and names where the string began."""
    if exc.msg.startswith("Unterminated string"):
        return f"invalid JSON: the text ends inside a string that starts at column {exc.colno}"
    return f"invalid JSON at column {exc.colno}: {exc.msg}"


def json_error(exc: ValueError, source: str, line: int) -> InputError:
    if isinstance(exc, json.JSONDecodeError):
        # Past the line's text, the parser has taken the newline too: its column would be on the next line.
        if exc.pos >= len(exc.doc.rstrip(JSON_SPACE)):
            return InputError("invalid JSON: the line ends before the value is complete", source=source,
                              line=line)
        return InputError(json_message(exc), source=source, line=line)
    reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
    return InputError(f"not valid UTF-8 text: {reason}", source=source, line=line)
