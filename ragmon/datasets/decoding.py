"""JSON text decoded strictly, and its errors as messages that say where the text went wrong.

Shared by the reader and the OTLP/JSON lines reader, so a bad line gets the same message in every format.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from typing import Any

from ragmon.errors import InputError
from ragmon.jsontext import JSON_SPACE, NestedTooDeeply, decode_error, nesting_past

MAX_NESTING = 600
"""Arrays and objects a dataset's JSON value (a JSONL line, or a whole JSON file) may hold within each
other; deeper is an error naming file, line and column. Bounded here, as json's own limit is each Python
version's (3.11 refused from ~990 levels, less the caller's stack; 3.12 from ~1,500; 3.13 loaded 5,000).
600 takes any OTLP/JSON line the sidecar takes (an attribute value of 128 key-value lists within each
other, `ragmon.otlp.decode.MAX_NESTING`, is 524 deep in a span event), and leaves 3.11's parser, which
spends one of Python's 1,000 frames a level, ~400 for its caller's stack."""

_STRING_OR_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?([0-9]+)(\.[0-9]+)?([eE][-+]?[0-9]+)?')
"""JSON strings, skipped whole, and numbers: the integer part, fraction and exponent of each."""


_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_UTF16 = "it is UTF-16: convert it to UTF-8 (PowerShell: Out-File -Encoding utf8)"
_WINDOWS_1252 = ("if the file is Windows-1252 (Latin-1) text, convert it to UTF-8: "
                 "iconv -f windows-1252 -t utf-8 FILE > FILE.utf8")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_UTF8_BEYOND_ASCII = re.compile(r"[^\x00-\x7f\udc80-\udcff]")
"""A character that UTF-8 bytes decoded to, among the bytes that did not decode (surrogateescape's)."""


def blank_line(raw: bytes) -> bool:
    """A line of white space, or nothing, after a UTF-8 byte-order mark too: an editor saving an empty file
    as "UTF-8 with BOM" wrote a file read as "invalid JSON: the line ends before the value is complete", and
    a mark alone on a later line (files joined with `cat`, the second saved empty with one) still was."""
    rest = raw.removeprefix(codecs.BOM_UTF8)
    return not rest or rest.isspace()


def json_line(raw: bytes) -> Any:
    """One line's JSON value. Decoded strictly first: `json.loads` on bytes lets UTF-8-encoded surrogates
    through (it decodes with surrogatepass), and no report could then be written in UTF-8."""
    return json_text(utf8_text(raw))


def utf8_text(data: bytes) -> str:
    """`data` as UTF-8, a byte-order mark dropped. UTF-16, what PowerShell 5 writes by default (`>`,
    Out-File), is refused as such: its byte-order mark was "invalid start byte", and a line of it after
    the first, which has none, "invalid JSON at column 1", neither naming the encoding to change."""
    if _is_utf16(data):
        raise UnicodeDecodeError("utf-8", data, 0, min(len(data), 2), _UTF16)
    return data.decode("utf-8-sig")


def _is_utf16(data: bytes) -> bool:
    """A UTF-16 byte-order mark, or the zero byte every other byte of its first 4 characters holds when
    they are ASCII, as a JSON value's first ones are (a zero byte is no part of any UTF-8 JSON text)."""
    if data.startswith(_UTF16_BOMS):
        return True
    head = data[:8]
    return len(head) == 8 and any(all((byte == 0) == (index % 2 == parity) for index, byte in enumerate(head))
                                  for parity in (0, 1))


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: `json.loads` keeps the last of a key given twice without
    a word, so `{"id": "a1", ..., "id": "a2"}` was scored as a2 and a1 was never missed."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return found


def json_text(text: str) -> Any:
    """`json.loads`, with the ways it fails other than a JSONDecodeError made one, placed where the text
    goes wrong: nesting deeper than `MAX_NESTING` (a RecursionError from json, on 3.11 and 3.12), an
    integer of more digits than Python converts (a bare ValueError), both of which used to reach the user
    as a traceback, and a key given twice in one object, which it would take silently."""
    too_deep = nesting_past(text, MAX_NESTING)
    if too_deep is not None:
        raise NestedTooDeeply(MAX_NESTING, text, too_deep)
    try:
        return json.loads(text, object_pairs_hook=_object)
    except _RepeatedKey as exc:
        # json does not say where: the column is the key's last place in the text, written as json would.
        last = text.rfind(json.dumps(exc.key, ensure_ascii=False))
        raise json.JSONDecodeError(f"the key {exc.key!r} is given twice in one object (its last place is "
                                   "this column)", text, max(last, 0)) from None
    except json.JSONDecodeError as exc:
        raise decode_error(exc) from None
    except ValueError:
        limit = sys.get_int_max_str_digits()
        # The first integer past the limit: digits in a string, a fraction or an exponent are no integer.
        position = next((m.start() for m in _STRING_OR_NUMBER.finditer(text)
                         if m[1] is not None and len(m[1]) > limit and m[2] is None and m[3] is None), 0)
        raise json.JSONDecodeError(f"a number of over {limit} digits", text, position) from None


def json_message(exc: json.JSONDecodeError, *, document: bool = False) -> str:
    """json's message with its column, and the cause when it is one of the usual: its "Unterminated string
    starting at" means the text ends inside a string, most often a line cut short, and names where the
    string began; the others say what json cannot: a CR alone ending lines (classic Mac OS), records
    written over several lines, two records glued on one line (a file without its final newline joined
    to another), a comment, a trailing comma, a comma after each JSONL record, a byte-order mark between
    two records (each had been a bare "Extra data"). `document`: `exc` is of a whole-JSON file, not a JSONL
    line, where a newline between two glued values mends nothing: the file holds one value."""
    if exc.msg.startswith("Unterminated string"):
        return f"invalid JSON: the text ends inside a string that starts at column {exc.colno}"
    return f"invalid JSON at column {exc.colno}: {_cause(exc, document)}"


def _cause(exc: json.JSONDecodeError, document: bool) -> str:
    before, at = exc.doc[:exc.pos], exc.doc[exc.pos:exc.pos + 2]
    gap = before[len(before.rstrip(JSON_SPACE)):]
    if exc.msg == "Extra data" and "\r" in gap and "\n" not in gap:
        return ("a second value follows a carriage return alone: the file's lines end in CR (classic Mac "
                "OS), not LF or CRLF; convert them (tr '\\r' '\\n')")
    if exc.msg == "Extra data" and exc.lineno > 1 and exc.colno == 1:
        return _second_value(before.lstrip(JSON_SPACE))
    if exc.msg == "Extra data" and at.startswith(","):
        return ("a comma after a complete value: JSONL holds one record a line with nothing between them, "
                "and a JSON array of records needs '[' and ']' around them; remove the commas, or add those")
    if exc.msg == "Extra data" and at.startswith("\ufeff"):
        return ("a byte-order mark (U+FEFF) after a complete value, as files joined with cat, the second "
                "saved with one, give it: remove the mark, and put each record on a line of its own")
    if exc.msg == "Extra data" and before.endswith("}") and at.startswith("{") and document:
        return ("a second JSON value starts right after the first one's '}': a JSON file holds one value "
                "(an array of records, or one eval set); were two files joined?")
    if exc.msg == "Extra data" and before.endswith("}") and at.startswith("{"):
        return ("a second record starts right after the first one's '}' on the same line: a newline is "
                "missing between them (files joined, the first not ending in one?)")
    if exc.msg == "Invalid control character at" and at:  # the C scanner's, which names no character
        return (f"control character U+{ord(at[0]):04X} inside a string: JSON writes it escaped "
                f"({json.dumps(at[0])})")
    if at and at[0] < " " and at[0] not in JSON_SPACE:  # outside a string: json says only "Expecting value"
        return f"{exc.msg}: control character U+{ord(at[0]):04X} outside a string (is the file binary?)"
    if at.startswith(("#", "//")):
        return f"{exc.msg}: JSON has no comments; remove it"
    if before.rstrip(JSON_SPACE).endswith(",") and at[:1] in ("}", "]"):
        return f"{exc.msg}: a comma before {at[0]!r} ends no item (JSON allows no trailing comma)"
    return exc.msg


def _second_value(first: str) -> str:
    """What a second top-level value on a line of its own means: the first one spanning several lines was
    pretty-printed; one on a single line (an array per line, or an array or eval set then more) is not."""
    if "\n" in first.rstrip(JSON_SPACE):
        return ("a second JSON value starts here: JSONL holds one record per line, and these records span "
                "several lines (pretty-printed?); write each on a line of its own (jq -c . FILE)")
    if first.startswith("["):
        return ("a second JSON value starts here, after the array that is the whole first line: give one "
                "JSON array of records, or JSONL with one object per line (jq -c '.[]' FILE)")
    return ("a second JSON value starts here, after the eval set that is the whole first line: a file holds "
            "one eval set")


def json_error(exc: ValueError, source: str, line: int) -> InputError:
    if isinstance(exc, UnicodeDecodeError):
        return utf8_error(exc, source, line)
    if isinstance(exc, json.JSONDecodeError):
        # Past the line's text, the parser has taken the newline too: its column would be on the next line.
        if exc.pos >= len(exc.doc.rstrip(JSON_SPACE)):
            return InputError("invalid JSON: the line ends before the value is complete", source=source,
                              line=line)
        return InputError(json_message(exc), source=source, line=line)
    return InputError(f"not valid UTF-8 text: {exc}", source=source, line=line)


def utf8_error(exc: UnicodeDecodeError, source: str, line: int) -> InputError:
    """`utf8_text`'s error, at the line and column (in characters, as JSON's errors count them) of the
    byte that stopped it, `line` being the first line of the text decoded. Python's reason alone ("invalid
    continuation byte") named neither, nor what to do: the usual cause is an editor or a spreadsheet
    export saving Windows-1252 (Latin-1), and `iconv` converts that. Nothing of the text is quoted, so the
    message stays short whatever the line's length."""
    if exc.reason == _UTF16:
        return InputError(f"not valid UTF-8 text: {_UTF16}", source=source, line=line)
    data: bytes = exc.object  # after a byte-order mark, as `exc.start` counts
    before = data[:exc.start].decode("utf-8")
    column = len(before) - before.rfind("\n")
    message = (f"not valid UTF-8 text at column {column}: byte 0x{data[exc.start]:02X} begins no UTF-8 "
               "character")
    if _is_windows_1252(data):
        message += f"; {_WINDOWS_1252}"
    return InputError(message, source=source, line=line + before.count("\n"))


def _is_windows_1252(data: bytes) -> bool:
    """Whether `data` reads as Windows-1252 text: every byte one of its characters, none a control
    character JSON text never holds raw (binary data, UTF-16's zero bytes), and no character beyond ASCII
    already in UTF-8, which converting would garble."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90 and 0x9D are no character of it
        return False
    utf8 = data.decode("utf-8", "surrogateescape")
    return not _CONTROL.search(text) and not _UTF8_BEYOND_ASCII.search(utf8)
