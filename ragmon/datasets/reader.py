"""One dataset file read into examples: gzip or plain, JSONL line by line or one JSON document whole.

The file's format is taken from its first record and every record goes to that format's parser, which
knows nothing of files: this is where an error is given its file and line.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import itertools
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ragmon.datasets.decoding import JSON_SPACE, json_error, json_line, json_message, json_text
from ragmon.datasets.evalset_format import evalset_examples
from ragmon.datasets.fields import FieldError, FieldPath, dotted, json_type
from ragmon.datasets.formats import RECORD_FIELDS, is_evalset, is_trace
from ragmon.datasets.locate import LineOf, fixed, line_of
from ragmon.datasets.otlp_lines import OTLP_MARKER, Skipped, load_otlp
from ragmon.datasets.ragmon_format import ragmon_example
from ragmon.datasets.trace_format import trace_example
from ragmon.errors import InputError
from ragmon.model import Example
from ragmon.options import input_name, is_stdin, stdin_bytes

_Parser = Callable[[dict[str, Any], str], Example]
_GZIP_MAGIC = b"\x1f\x8b"
_SPOOL_IN_MEMORY = 64 << 20


def load_located(path: str | os.PathLike[str], skipped: Skipped) -> Iterator[tuple[Example, LineOf]]:
    """`path` `-` is standard input (ragmon.options.STDIN)."""
    source = input_name(path)
    with contextlib.ExitStack() as opened:
        try:
            handle = _open(path, opened)
        except OSError as exc:
            raise InputError(f"cannot read dataset: {exc.strerror or exc}", source=source) from None
        try:
            yield from _records(handle, source, skipped)
        except (OSError, EOFError, zlib.error) as exc:  # a gzip stream that is cut short or corrupt
            raise InputError(f"cannot read dataset: {exc}", source=source) from None


def _open(path: str | os.PathLike[str], opened: contextlib.ExitStack) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip (by its magic number, whatever its name): large
    golden sets are kept compressed, and reading one as text gave only "not valid UTF-8". Reading goes
    back to the start (after the magic number, and for a JSON document after its first lines), so a pipe
    (`-`, `/dev/stdin`, `<(zcat ...)`) is first copied aside: in memory up to `_SPOOL_IN_MEMORY`, then to
    a temporary file. So is standard input when it is a file (`ragmon replay - < golden.jsonl`): the shell
    may have read some of it already (`{ read -r header; ragmon replay -; } < golden.jsonl`), and going
    back to the start would read those lines again. Everything opened is closed with `opened`; standard
    input is left open."""
    stdin = is_stdin(path)
    handle = stdin_bytes() if stdin else opened.enter_context(Path(path).open("rb"))  # noqa: SIM115
    if stdin or not handle.seekable():
        spool = opened.enter_context(tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY))  # noqa: SIM115
        shutil.copyfileobj(handle, spool)
        spool.seek(0)
        handle = spool  # type: ignore[assignment]
    if handle.read(2) != _GZIP_MAGIC:
        handle.seek(0)
        return handle
    handle.seek(0)
    return opened.enter_context(gzip.GzipFile(fileobj=handle, mode="rb"))  # type: ignore[return-value]


def _records(handle: BinaryIO, source: str, skipped: Skipped) -> Iterator[tuple[Example, LineOf]]:
    lines = enumerate(handle, start=1)
    first = _next_record_line(lines)
    if first is None:
        raise InputError("contains no examples", source=source)
    number, raw = first
    try:
        obj = json_line(raw)
    except ValueError as exc:
        second = _next_record_line(lines)
        if not _opens_array(raw) and second is not None and _is_json_object(second[1]):
            raise json_error(exc, source, number) from None
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if isinstance(obj, list) or (isinstance(obj, dict) and is_evalset(obj)):
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if isinstance(obj, dict) and OTLP_MARKER in obj:
        yield from load_otlp(itertools.chain([first], lines), source, skipped)
        return
    parse = _record_parser(obj, source, number)
    yield _parse_line(parse, obj, source, number)
    for number, raw in lines:
        if raw.isspace():
            continue
        try:
            obj = json_line(raw)
        except ValueError as exc:
            raise json_error(exc, source, number) from None
        yield _parse_line(parse, obj, source, number)


def _next_record_line(lines: Iterator[tuple[int, bytes]]) -> tuple[int, bytes] | None:
    for number, raw in lines:
        if not raw.isspace():
            return number, raw
    return None


def _is_json_object(raw: bytes) -> bool:
    try:
        return isinstance(json_line(raw), dict)
    except ValueError:
        return False


def _opens_array(raw: bytes) -> bool:
    """A first line starting with `[` opens a JSON array: a document, whatever its next line looks like."""
    return raw.lstrip(b"\xef\xbb\xbf" + JSON_SPACE.encode()).startswith(b"[")


def _parse_line(parse: _Parser, obj: Any, source: str, number: int) -> tuple[Example, LineOf]:
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {json_type(obj)}", source=source, line=number)
    try:
        return parse(obj, f"{source}:{number}"), fixed(number)
    except FieldError as exc:
        exc = _records_inside(exc, obj, "the line's object")
        raise InputError(exc.message, source=source, line=number, field=dotted(exc.path)) from None


def _record_parser(obj: Any, source: str, line: int) -> _Parser:
    """The format of a whole file follows from its first record."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {json_type(obj)}", source=source, line=line)
    if OTLP_MARKER in obj:
        raise InputError("OTLP/JSON must hold one ExportTraceServiceRequest per line, as the Collector's "
                         "file exporter writes it (reformat with `jq -c .`)", source=source, line=line)
    return trace_example if is_trace(obj) else ragmon_example


def _load_document(data: bytes, source: str) -> Iterator[tuple[Example, LineOf]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 text: {exc.reason}", source=source, line=line) from None
    try:
        doc = json_text(text)
    except json.JSONDecodeError as exc:
        end = len(text.rstrip(JSON_SPACE))
        if exc.pos >= end:  # the parser's position is past the last line with anything on it
            raise InputError("invalid JSON: the file ends before the value is complete", source=source,
                             line=text.count("\n", 0, end) + 1) from None
        raise InputError(json_message(exc), source=source, line=exc.lineno) from None
    records: Iterator[tuple[FieldPath, Example]]
    try:
        if isinstance(doc, dict) and is_evalset(doc):
            records = evalset_examples(doc)
        elif isinstance(doc, dict):
            records = iter([((), _whole_record(doc, source))])
        elif isinstance(doc, list):
            records = _array_examples(doc, source, text)
        else:
            raise FieldError(f"expected a JSON object or array, got {json_type(doc)}", ())
        for record_path, example in records:
            yield example, functools.partial(line_of, text, record_path)
    except FieldError as exc:
        raise InputError(exc.message, source=source, line=line_of(text, exc.path),
                         field=dotted(exc.path) or None) from None


def _whole_record(doc: dict[str, Any], source: str) -> Example:
    try:
        return _record_parser(doc, source, 1)(doc, source)
    except FieldError as exc:
        raise _records_inside(exc, doc, "the file's one object") from None


def _records_inside(exc: FieldError, obj: dict[str, Any], what: str) -> FieldError:
    """`exc`, unless it is the missing id of an object holding no record field but records under one key
    (`{"data": [...]}`, as `json.dump` of a dict writes them): "missing required field 'id'" would not
    say that the object was taken for one record."""
    if exc.path != ("id",) or not RECORD_FIELDS.isdisjoint(obj):
        return exc
    lists = [key for key, value in obj.items()
             if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)]
    if len(lists) != 1:
        return exc
    return FieldError(f"{what} was read as one record, which has no 'id', not as the records listed in its "
                      f"{lists[0]!r}: a JSON array of records, or JSONL (one per line), is what ragmon reads",
                      (lists[0],))


def _array_examples(doc: list[Any], source: str, text: str) -> Iterator[tuple[FieldPath, Example]]:
    if not doc:
        raise InputError("contains no examples", source=source)
    parse = _record_parser(doc[0], source, line_of(text, (0,)))
    for index, item in enumerate(doc):
        if not isinstance(item, dict):
            raise FieldError(f"expected a JSON object, got {json_type(item)}", (index,))
        try:
            yield (index,), parse(item, f"{source}[{index}]")
        except FieldError as exc:
            raise FieldError(exc.message, (index, *exc.path)) from None
