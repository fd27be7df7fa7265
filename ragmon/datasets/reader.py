"""One dataset file read into examples: gzip or plain, JSONL line by line or one JSON document whole.

The file's format is taken from its first record and every record goes to that format's parser, which
knows nothing of files: this is where an error is given its file and line.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import itertools
import json
import os
import re
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

from ragmon.datasets.decoding import (
    blank_line,
    json_error,
    json_line,
    json_message,
    json_text,
    utf8_error,
    utf8_text,
)
from ragmon.datasets.evalset_format import evalset_examples
from ragmon.datasets.fields import FieldError, FieldPath, dotted, json_type
from ragmon.datasets.formats import RECORD_FIELDS, is_evalset, is_trace
from ragmon.datasets.locate import LineOf, fixed, line_of
from ragmon.datasets.otlp_lines import Recording, is_otlp
from ragmon.datasets.ragmon_format import ragmon_example
from ragmon.datasets.trace_format import trace_example
from ragmon.errors import InputError
from ragmon.jsontext import JSON_SPACE
from ragmon.model import Example
from ragmon.options import input_name, is_stdin, stdin_bytes

_Parser = Callable[[dict[str, Any], str], Example]
_GZIP_MAGIC = b"\x1f\x8b"
_SPOOL_IN_MEMORY = 64 << 20
_CSV_HEADER = re.compile(r'"?[\w .-]+"?(?:[,;\t]"?[\w .-]+"?)+')
_SHOWN = 80
_OTLP_AMONG_RECORDS = ("an OTLP/JSON ExportTraceServiceRequest, in a file whose first record is a dataset "
                       "record: give every record of a file in one format, the OTLP/JSON lines in a file of "
                       "their own")
"""Read as a record, such a request was "missing required field 'id'", which named no format."""
MAX_LINE_BYTES = 256 << 20
"""The longest line read: a JSONL record, an OTLP/JSON line, or a JSON document written on one line
(`json.dump` without indent: an eval set's corpus). As much as `ragmon serve --max-buffer` holds of every
trace at once by default; `ragmon serve --capture` writes no longer line (ragmon.capture counts such an
example `too_large`: JSON can spell a character in 6 bytes), so a capture file always loads. Reading one
takes ~0.5 GiB. A line is read
whole before anything else is done with it: without a bound, a file with no newline (`/dev/zero`, a
binary file given by mistake) was read until memory ran out, a MemoryError traceback reported as a bug
in ragmon."""


def load_located(path: str | os.PathLike[str], recording: Recording) -> Iterator[tuple[Example, LineOf]]:
    """`path` `-` is standard input (ragmon.options.STDIN). OTLP/JSON lines go to `recording`, whose
    examples the caller takes once every file has been read."""
    source = input_name(path)
    with contextlib.ExitStack() as opened:
        try:
            handle = _open(path, opened)
        except OSError as exc:
            raise InputError(f"cannot read dataset: {exc.strerror or exc}{_unexpanded(path, exc)}",
                             source=source) from None
        try:
            _refuse_archive(handle, source)
            yield from _records(handle, source, recording)
        except (OSError, EOFError, zlib.error) as exc:  # a gzip stream that is cut short or corrupt
            raise InputError(f"cannot read dataset: {exc}", source=source) from None


def _unexpanded(path: str | os.PathLike[str], exc: OSError) -> str:
    """For a missing file whose name holds a wildcard, what it most likely is: a pattern quoted in a CI
    file (`ragmon replay "golden/*.jsonl"`), which no shell expanded and ragmon reads as a file name."""
    if isinstance(exc, FileNotFoundError) and any(char in os.fspath(path) for char in "*?["):
        return " (a pattern? ragmon reads it as a file name: leave it unquoted, for the shell to expand it)"
    return ""


def _open(path: str | os.PathLike[str], opened: contextlib.ExitStack) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip (by its magic number, whatever its name): large
    golden sets are kept compressed, and reading one as text gave only "not valid UTF-8". Reading goes
    back to the start (after the magic number, and for a JSON document after its first lines), so a pipe
    (`-`, `/dev/stdin`, `<(zcat ...)`) is kept aside as it is read (`_Replayed`). So is standard input when
    it is a file (`ragmon replay - < golden.jsonl`): the shell may have read some of it already
    (`{ read -r header; ragmon replay -; } < golden.jsonl`), and going back to the start would read those
    lines again. Everything opened is closed with `opened`; standard input is left open."""
    stdin = is_stdin(path)
    handle = stdin_bytes() if stdin else opened.enter_context(Path(path).open("rb"))  # noqa: SIM115
    if stdin or not handle.seekable():
        spool = opened.enter_context(tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY))  # noqa: SIM115
        handle = io.BufferedReader(_Replayed(handle, spool))  # type: ignore[assignment]
    if handle.read(2) != _GZIP_MAGIC:
        handle.seek(0)
        return handle
    handle.seek(0)
    return opened.enter_context(gzip.GzipFile(fileobj=handle, mode="rb"))  # type: ignore[return-value]


_ARCHIVES = (
    (b"PK\x03\x04", "a zip archive", "extract it with `unzip`"),
    (b"BZh", "bzip2-compressed", "decompress it with `bunzip2`"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it with `unxz`"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it with `unzstd`"),
    (b"\x1f\x8b", "gzip-compressed twice", "decompress it once with `gunzip -c FILE > FILE.once`"),
)
"""Magic numbers of what a golden set is kept (.xz, .zst) or downloaded (a CI artifact's zip) in, that ragmon
does not open, as it does gzip; no JSON text begins with any of them. Read after gzip, gzip's own is a
file compressed twice (a download tool's, saving a gzip served with Content-Encoding gzip as it came)."""
_TAR_HEADER = 512


def _refuse_archive(handle: BinaryIO, source: str) -> None:
    """An archive or another compression, named as such: read as text, it was "not valid UTF-8 text:
    invalid start byte" at line 1 (or for a tar "invalid JSON at column 1"), which sends the user looking
    for a bad character in a file that holds none. Looked for after gzip, so a .tar.gz is named too."""
    head = handle.read(_TAR_HEADER)
    handle.seek(0)
    found = next(((what, how) for magic, what, how in _ARCHIVES if head.startswith(magic)), None)
    if found is None and _is_tar(head):
        found = "a tar archive", "extract it with `tar -xf`"
    if found is not None:
        what, how = found
        raise InputError(f"the file is {what}, and ragmon reads a dataset plain or gzipped: {how} first",
                         source=source)


def _is_tar(head: bytes) -> bool:
    """POSIX tar's "ustar" at offset 257, after a member's name padded with zero bytes, which no JSON text
    holds: a JSONL line may well say "mustard" there."""
    return head[257:262] == b"ustar" and b"\0" in head[:257]


class _Replayed(io.RawIOBase):
    """A stream read once, each byte kept in `spool` as it comes (in memory up to `_SPOOL_IN_MEMORY`, then
    in a temporary file), so that reading can go back to the start and read it again. Copied whole before
    reading, a pipe that never ends (`cat /dev/zero | ragmon replay -`) was copied until the disk was full,
    before the line cap (MAX_LINE_BYTES) could stop it."""

    def __init__(self, source: IO[bytes], spool: IO[bytes]) -> None:
        super().__init__()
        self._source = source
        self._spool = spool
        self._spooled = 0
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._position < self._spooled:
            self._spool.seek(self._position)
            data = self._spool.read(min(len(buffer), self._spooled - self._position))
        else:
            data = self._source.read(len(buffer))
            self._spool.seek(self._spooled)
            self._spool.write(data)
            self._spooled += len(data)
        memoryview(buffer)[:len(data)] = data
        self._position += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Anywhere already read: the reader only goes back."""
        position = offset + (self._position if whence == io.SEEK_CUR else 0)
        if whence == io.SEEK_END or not 0 <= position <= self._spooled:
            raise io.UnsupportedOperation("a pipe can only go back to where it was read")
        self._position = position
        return position


def _records(handle: BinaryIO, source: str, recording: Recording) -> Iterator[tuple[Example, LineOf]]:
    lines = _lines(handle, source)
    first = _next_record_line(lines)
    if first is None:
        raise InputError("contains no examples", source=source)
    number, raw = first
    try:
        obj = json_line(raw)
    except ValueError as exc:
        # A first line of no UTF-8 text, or that opens no JSON object or array, begins no JSON document
        # either: reading the file whole as one would read a binary file, or a stream with no end, to its end.
        if isinstance(exc, UnicodeDecodeError) or not _opens(raw, b"[{"):
            raise _first_line_error(exc, raw, source, number) from None
        second = _next_record_line(lines)
        if not _opens(raw, b"[") and second is not None and _is_json_object(second[1]):
            raise json_error(exc, source, number) from None
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if isinstance(obj, list) or (isinstance(obj, dict) and is_evalset(obj)):
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if is_otlp(obj):
        recording.read(itertools.chain([first], lines), source)
        return
    parse, base = _record_parser(obj, source, number), _id_base(source)
    yield _parse_line(parse, obj, source, number, base)
    for number, raw in lines:
        if blank_line(raw):
            continue
        try:
            obj = json_line(raw)
        except ValueError as exc:
            raise json_error(exc, source, number) from None
        yield _parse_line(parse, obj, source, number, base)


def _lines(handle: BinaryIO, source: str) -> Iterator[tuple[int, bytes]]:
    """The lines of `handle`, numbered from 1, each read up to MAX_LINE_BYTES and no further."""
    for number in itertools.count(1):
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise InputError(f"a line longer than {MAX_LINE_BYTES >> 20} MiB, the most ragmon reads as one: "
                             f"a JSONL record, or a JSON document written on one line, must fit in it (is "
                             f"this file a dataset?)", source=source, line=number)
        yield number, raw


def _next_record_line(lines: Iterator[tuple[int, bytes]]) -> tuple[int, bytes] | None:
    for number, raw in lines:
        if not blank_line(raw):
            return number, raw
    return None


def _first_line_error(exc: ValueError, raw: bytes, source: str, line: int) -> InputError:
    """A first line of column names is a CSV file's header: "invalid JSON at column 1" named no format to
    convert it to."""
    text = raw.decode("utf-8", "replace").strip()
    if isinstance(exc, UnicodeDecodeError) or not _CSV_HEADER.fullmatch(text):
        return json_error(exc, source, line)
    return InputError(f"the file looks like CSV (its first line names columns: {text[:_SHOWN]!r}), and "
                      f"ragmon reads JSONL, one JSON object per line: convert it, e.g. with pandas "
                      f"read_csv(...).to_json(\"golden.jsonl\", orient=\"records\", lines=True), with "
                      f"'contexts' a list, not the text of one", source=source, line=line)


def _is_json_object(raw: bytes) -> bool:
    try:
        return isinstance(json_line(raw), dict)
    except ValueError:
        return False


def _opens(raw: bytes, brackets: bytes) -> bool:
    """Whether a line's text starts with one of `brackets`; a first line starting with `[` opens a JSON
    array: a document, whatever its next line looks like."""
    first = raw.lstrip(b"\xef\xbb\xbf" + JSON_SPACE.encode())[:1]
    return bool(first) and first in brackets


def _id_base(source: str) -> str:
    """What a trace record without an id is named by, with its line or index: the file's name without its
    directory. The path as typed had named it, so a run given `./t/golden.jsonl` against a baseline of
    `t/golden.jsonl` found every example new and every one gone, and its --max-drop gate failed."""
    return os.path.basename(source)


def _parse_line(parse: _Parser, obj: Any, source: str, number: int, base: str) -> tuple[Example, LineOf]:
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {json_type(obj)}", source=source, line=number)
    if is_otlp(obj):
        raise InputError(_OTLP_AMONG_RECORDS, source=source, line=number)
    try:
        return parse(obj, f"{base}:{number}"), fixed(number)
    except FieldError as exc:
        exc = _records_inside(exc, obj, "the line's object")
        raise InputError(exc.message, source=source, line=number, field=dotted(exc.path)) from None


def _record_parser(obj: Any, source: str, line: int, one_per_line: str = "jq -c .") -> _Parser:
    """The format of a whole file follows from its first record. `one_per_line`: the command that writes
    the document's records one per line, `jq -c '.[]'` for an array: `jq -c .` wrote an array of requests
    back as the one line it was."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {json_type(obj)}", source=source, line=line)
    if is_otlp(obj):
        raise InputError("OTLP/JSON must hold one ExportTraceServiceRequest per line, as the Collector's "
                         f"file exporter writes it (reformat with `{one_per_line}`)", source=source,
                         line=line)
    return trace_example if is_trace(obj) else ragmon_example


def _load_document(data: bytes, source: str) -> Iterator[tuple[Example, LineOf]]:
    try:
        text = utf8_text(data)
    except UnicodeDecodeError as exc:
        raise utf8_error(exc, source, 1) from None
    try:
        doc = json_text(text)
    except json.JSONDecodeError as exc:
        end = len(text.rstrip(JSON_SPACE))
        if exc.pos >= end:  # the parser's position is past the last line with anything on it
            raise InputError("invalid JSON: the file ends before the value is complete", source=source,
                             line=text.count("\n", 0, end) + 1) from None
        raise InputError(json_message(exc, document=True), source=source, line=exc.lineno) from None
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
        return _record_parser(doc, source, 1)(doc, _id_base(source))
    except FieldError as exc:
        raise _records_inside(exc, doc, "the file's one object") from None


def _records_inside(exc: FieldError, obj: dict[str, Any], what: str) -> FieldError:
    """`exc`, unless it is the missing id of an object holding no record field but records under one key
    (`{"data": [...]}`, as `json.dump` of a dict writes them): "missing required field 'id'" would not
    say that the object was taken for one record. Nor, for a pandas DataFrame written with `to_json()`'s
    default orient ("columns": `{"id": {"0": ...}, "question": {...}}`) or as "split" or "index", that
    "expected an id, got an object" comes of its layout."""
    if "report_format" in obj and "aggregates" in obj:  # what --json writes, read back where data goes
        return FieldError(f"{what} is a ragmon replay JSON report, not a dataset: give it as --baseline to "
                          "compare a run with it; its results hold no contexts or answers to score", ())
    if obj.get("report") == "ragmon calibrate":
        return FieldError(f"{what} is a ragmon calibrate JSON report, not a dataset of labelled examples", ())
    spans = _spans_otherwise(obj)
    if spans is not None:
        return FieldError(f"{what} {spans}", ())
    orient = _pandas_orient(obj)
    if orient is not None:
        return FieldError(f"{what} is a pandas DataFrame written with orient={orient!r}, not records: write "
                          f"it with to_json(path, orient=\"records\", lines=True), one record per line", ())
    if exc.path != ("id",) or not RECORD_FIELDS.isdisjoint(obj):
        return exc
    lists = [key for key, value in obj.items()
             if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)]
    if len(lists) != 1:
        return exc
    return FieldError(f"{what} was read as one record, which has no 'id', not as the records listed in its "
                      f"{lists[0]!r}: a JSON array of records, or JSONL (one per line), is what ragmon reads",
                      (lists[0],))


_OTHER_SIGNALS = {"resourceMetrics": "metrics", "resource_metrics": "metrics", "resourceLogs": "logs",
                  "resource_logs": "logs", "resourceProfiles": "profiles", "resource_profiles": "profiles"}
_PHOENIX_SPAN = ("context.trace_id", "context.span_id")


def _spans_otherwise(obj: dict[str, Any]) -> str | None:
    """What `obj` is, when it is telemetry ragmon does not read as spans: another OTLP signal (a file
    exporter in a metrics or logs pipeline), OTLP/JSON's key in another case (`ResourceSpans`), or a row of
    Phoenix's `get_spans_dataframe()`. Each had been told it was "read as one record, ... not as the
    records listed in its 'resourceMetrics'" (or its 'attributes.retrieval.documents'), which named no
    format."""
    signal = next((key for key in _OTHER_SIGNALS if key in obj), None)
    if signal is not None:
        return (f"is an OTLP/JSON export of {_OTHER_SIGNALS[signal]} (its {signal!r}), and ragmon reads "
                f"traces only: give the file a Collector's file exporter writes in a traces pipeline")
    cased = next((key for key in obj if key.replace("_", "").lower() == "resourcespans"), None)
    if cased is not None:
        return (f"holds {cased!r}, which no OTLP/JSON parser reads: an ExportTraceServiceRequest holds "
                f"'resourceSpans' (or 'resource_spans'), as the Collector's file exporter writes it")
    if all(key in obj for key in _PHOENIX_SPAN):
        return ("is a Phoenix span (a row of get_spans_dataframe()), not a dataset record: ragmon reads "
                "spans as OTLP/JSON lines, as a Collector's file exporter writes them, or records of "
                "'question', 'contexts' and 'answer'")
    return None


def _pandas_orient(obj: dict[str, Any]) -> str | None:
    """The `DataFrame.to_json` orient `obj` was written with, when it is one that holds no records. "index"
    holds a row under each label, every row with the same columns: LangSmith's `{"inputs": {"question": ...},
    "outputs": {"answer": ...}}` holds two objects of other fields, and was told to be written again from
    pandas, which it never came from."""
    if isinstance(obj.get("columns"), list) and isinstance(obj.get("data"), list):
        return "split"
    if not obj or not all(isinstance(value, dict) and value for value in obj.values()):
        return None
    if not RECORD_FIELDS.isdisjoint(obj):
        return "columns"
    columns = next(iter(obj.values())).keys()
    rows_alike = all(not RECORD_FIELDS.isdisjoint(row) and row.keys() == columns for row in obj.values())
    return "index" if rows_alike else None


def _array_examples(doc: list[Any], source: str, text: str) -> Iterator[tuple[FieldPath, Example]]:
    if not doc:
        raise InputError("contains no examples", source=source)
    parse, base = _record_parser(doc[0], source, line_of(text, (0,)), "jq -c '.[]'"), _id_base(source)
    for index, item in enumerate(doc):
        if not isinstance(item, dict):
            raise FieldError(f"expected a JSON object, got {json_type(item)}", (index,))
        if is_otlp(item):
            raise FieldError(_OTLP_AMONG_RECORDS, (index,))
        try:
            yield (index,), parse(item, f"{base}[{index}]")
        except FieldError as exc:
            raise FieldError(exc.message, (index, *exc.path)) from None
