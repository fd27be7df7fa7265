"""Reading dataset files: JSONL line by line, whole JSON documents, gzip; ids unique across files; every
error at its file and line."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import lzma
import os
import sys
import tarfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

import pytest
from dataset_cases import error_of, write_jsonl

from ragmon.datasets import load, reader
from ragmon.errors import InputError
from ragmon.model import Context

# --- format 1: ragmon JSONL ----------------------------------------------------------------------


def test_malformed_line_in_a_thousand_line_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = [json.dumps({"id": f"q{i}", "question": "q?"}) for i in range(1, 1001)]
    lines[636] = '{"id": "q637", "question": "q?"'  # line 637 lost its closing brace
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = error_of([path])
    assert err.source == str(path) and err.line == 637
    assert str(err).startswith(f"{path}:637: invalid JSON")


def test_non_object_line_and_bad_utf8_are_errors_with_line(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q"}\n[1, 2]\n', encoding="utf-8")
    assert error_of([path]).line == 2
    path.write_bytes(b'{"id": "a", "question": "q"}\n{"id": "b", "question": "\xff"}\n')
    err = error_of([path])
    assert err.line == 2 and "UTF-8" in str(err)


def test_malformed_first_line_of_jsonl_is_reported_on_line_one(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q"\n{"id": "b", "question": "q"}\n', encoding="utf-8")
    err = error_of([path])
    assert err.line == 1 and "invalid JSON" in str(err)


def test_duplicate_ids_across_files_are_an_error(tmp_path: Path) -> None:
    one = write_jsonl(tmp_path / "one.jsonl", [{"id": "a", "question": "q"}])
    two = write_jsonl(tmp_path / "two.jsonl", [{"id": "b", "question": "q"}, {"id": "a", "question": "q"}])
    err = error_of([one, two])
    assert (err.source, err.line) == (str(two), 2)
    assert f"first at {one}:1" in str(err)


def test_ids_that_differ_only_in_half_an_emoji_are_duplicates(tmp_path: Path) -> None:
    # "a\ud83d" and "a\ud83c" (json.dumps writes the escapes) are both "a\ufffd" in the JSON report,
    # which would then name one id twice and be refused as the next run's baseline.
    data = write_jsonl(tmp_path / "cut.jsonl", [{"id": "a\ud83d", "question": "q"},
                                               {"id": "a\ud83c", "question": "q"}])
    err = error_of([data])
    assert (err.source, err.line, err.field) == (str(data), 2, "id")
    assert (f"(first at {data}:1, the same as 'a\\ud83d' once each lone surrogate is U+FFFD, as reports "
            "write it)") in str(err)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    err = error_of([missing])
    assert err.source == str(missing) and "cannot read" in str(err)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert "no examples" in str(error_of([empty]))


@pytest.mark.parametrize("content", [b"\xef\xbb\xbf", b"\xef\xbb\xbf\n\n", b"\xef\xbb\xbf  \r\n"])
def test_a_file_saved_empty_with_a_byte_order_mark_has_no_examples(tmp_path: Path, content: bytes) -> None:
    # An editor's "UTF-8 with BOM" of an empty file: it was "invalid JSON: the line ends before the value is
    # complete" at line 1, where the same file without its mark "contains no examples".
    path = tmp_path / "golden.jsonl"
    path.write_bytes(content)
    assert str(error_of([path])) == f"{path}: contains no examples"


def test_a_byte_order_mark_alone_on_the_first_line_is_no_record(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_bytes(b'\xef\xbb\xbf\n{"id": "a", "question": "q?"}\n')
    [example] = load([path])
    assert example.id == "a"


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_byte_order_mark_alone_on_a_later_line_is_no_record(tmp_path: Path, end: bytes) -> None:
    # Before: on line 2, "invalid JSON: the line ends before the value is complete", where on line 1 the
    # same line was blank.
    path = tmp_path / "golden.jsonl"
    path.write_bytes(b'{"id": "a", "question": "q?"}' + end + b"\xef\xbb\xbf" + end
                     + b'{"id": "b", "question": "q?"}' + end)
    assert [example.id for example in load([path])] == ["a", "b"]


# --- format 2: eval-set JSON ---------------------------------------------------------------------


def test_invalid_whole_document_json_reports_its_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    path.write_text('{\n  "examples": [\n    {"id": "a",, "question": "q"}\n  ]\n}\n', encoding="utf-8")
    err = error_of([path])
    assert err.line == 3 and "invalid JSON" in str(err)


# --- found in review: text that no report could be written in, layouts misread --------------------


def test_json_array_with_one_object_per_line_is_one_document(tmp_path: Path) -> None:
    # Line 1 is "[" and line 2 a whole object: a JSON array laid out one object per line, not JSONL
    # with a broken first line.
    path = tmp_path / "d.json"
    path.write_text('[\n{"id": "a", "question": "Q?"}\n]\n', encoding="utf-8")
    (example,) = load([path])
    assert (example.id, example.question) == ("a", "Q?")


def test_file_cut_off_mid_value_names_its_last_line(tmp_path: Path) -> None:
    # One JSON value on line 1, cut off before its closing brace, then a newline: the parser stops at
    # the end of the file (line 2, empty), but the value that is incomplete is on line 1.
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q"\n', encoding="utf-8")
    err = error_of([path])
    assert err.line == 1 and "invalid JSON: the file ends before the value is complete" in str(err)


# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


GZ_ROWS = [{"id": "a", "question": "q?", "contexts": [{"id": "d1", "text": "Refunds take 5 days."}],
            "answer": "Refunds take 5 days."},
           {"id": "b", "question": "q?", "answer": "No."}]


@pytest.mark.parametrize("document", [False, True], ids=["jsonl", "json-array"])
def test_a_gzip_file_is_read_as_its_contents(tmp_path: Path, document: bool) -> None:
    # By its magic number, not its name: the same two examples as the plain file would give.
    text = json.dumps(GZ_ROWS) if document else "".join(json.dumps(row) + "\n" for row in GZ_ROWS)
    path = tmp_path / "golden.data"
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    examples = list(load([path]))
    assert [e.id for e in examples] == ["a", "b"]
    assert examples[0].contexts == (Context("d1", "Refunds take 5 days."),)


@contextlib.contextmanager
def piped(data: bytes) -> Iterator[Path]:
    """A pipe's read end as a path (/dev/fd/N), fed `data` by a thread: what `... | ragmon replay
    /dev/stdin` hands the reader, which cannot seek."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as writer:
            writer.write(data)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        yield Path(f"/dev/fd/{read_end}")
    finally:
        feeder.join()
        os.close(read_end)


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("document", [False, True], ids=["jsonl", "json-array"])
def test_a_pipe_is_read_like_the_file_it_carries(document: bool, compress: bool) -> None:
    # The reader goes back to the start twice (after the gzip magic number; for a document, after its
    # first line), which a pipe cannot: "File or stream is not seekable", and gzip read nothing.
    text = json.dumps(GZ_ROWS, indent=1) if document else "".join(json.dumps(row) + "\n" for row in GZ_ROWS)
    data = gzip.compress(text.encode("utf-8")) if compress else text.encode("utf-8")
    with piped(data) as path:
        assert [e.id for e in load([path])] == ["a", "b"]


def test_an_error_in_a_pipe_names_its_line() -> None:
    # Lines 1-2 are fine, line 3 lost its closing brace (as a JSONL file gives it).
    data = b'{"id": "a", "question": "q"}\n\n{"id": "b", "question": "q"\n'
    with piped(data) as path:
        assert error_of([path]).line == 3


def test_a_gzip_file_cut_short_is_a_clear_error(tmp_path: Path) -> None:
    rows = [{**GZ_ROWS[0], "id": f"ex-{n}"} for n in range(500)]
    data = gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode("utf-8"))
    path = tmp_path / "golden.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    message = str(error_of([path]))
    assert message.startswith(f"{path}: cannot read dataset: ") and "\n" not in message


def _zip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("golden.jsonl", data)
    return buffer.getvalue()


def _tar(data: bytes, mode: Literal["w", "w:gz"]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        member = tarfile.TarInfo("golden.jsonl")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(("pack", "what", "how"), [
    (_zip, "a zip archive", "extract it with `unzip`"),
    (lambda data: _tar(data, "w"), "a tar archive", "extract it with `tar -xf`"),
    (lambda data: _tar(data, "w:gz"), "a tar archive", "extract it with `tar -xf`"),
    (bz2.compress, "bzip2-compressed", "decompress it with `bunzip2`"),
    (lzma.compress, "xz-compressed", "decompress it with `unxz`"),
    (lambda data: b"\x28\xb5\x2f\xfd" + data, "zstd-compressed", "decompress it with `unzstd`"),
    # Saved by a download tool that kept the server's Content-Encoding gzip on a .gz: "not valid UTF-8
    # text at column 2: byte 0x8B".
    (lambda data: gzip.compress(gzip.compress(data)), "gzip-compressed twice",
     "decompress it once with `gunzip -c FILE > FILE.once`"),
], ids=["zip", "tar", "tar.gz", "bzip2", "xz", "zstd", "gzip-twice"])
def test_an_archive_or_another_compression_is_named_as_such(tmp_path: Path, pack: Callable[[bytes], bytes],
                                                            what: str, how: str) -> None:
    # A golden set kept as golden.jsonl.xz or .zst, or a CI artifact downloaded as a zip: the error said
    # "golden.zip:1: not valid UTF-8 text: invalid continuation byte", or for a tar "invalid JSON at column
    # 1: Expecting value", sending the user to look for a bad character in a file they never opened.
    path = tmp_path / "golden.data"
    path.write_bytes(pack("".join(json.dumps(row) + "\n" for row in GZ_ROWS).encode("utf-8")))
    err = error_of([path])
    assert (err.source, err.line) == (str(path), None)
    assert str(err) == (f"{path}: the file is {what}, and ragmon reads a dataset plain or gzipped: {how} "
                        "first")


@pytest.mark.parametrize("pattern", ["*.jsonl", "golden-?.jsonl", "golden-[12].jsonl"])
def test_a_pattern_the_shell_did_not_expand_is_named_as_one(tmp_path: Path, pattern: str) -> None:
    # `ragmon replay "golden/*.jsonl"`, quoted in a CI file: only "No such file or directory", while the
    # files it was meant to match are there.
    write_jsonl(tmp_path / "golden-1.jsonl", GZ_ROWS)
    path = tmp_path / pattern
    assert str(error_of([path])) == (f"{path}: cannot read dataset: No such file or directory (a pattern? "
                                     "ragmon reads it as a file name: leave it unquoted, for the shell to "
                                     "expand it)")


def test_a_missing_file_without_a_pattern_gets_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    assert str(error_of([path])) == f"{path}: cannot read dataset: No such file or directory"


# --- found by a CI engineer: records wrapped in one object were read as one record -----------------

WRAPPED = [{"id": "a", "question": "q", "contexts": ["Returns within 30 days."], "answer": "Thirty days."}]


def test_records_under_one_key_of_the_files_one_object_are_an_error_saying_what_ragmon_reads(
        tmp_path: Path) -> None:
    # Before: "missing required field 'id'", which did not say the whole object was taken for a record.
    path = tmp_path / "golden.json"
    path.write_text(json.dumps({"version": 2, "data": WRAPPED}, indent=2), encoding="utf-8")
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 3, "data")
    assert str(err) == (f"{path}:3: the file's one object was read as one record, which has no 'id', not "
                        f"as the records listed in its 'data': a JSON array of records, or JSONL (one per "
                        f"line), is what ragmon reads (field 'data')")


def test_records_under_one_key_of_a_lines_object_are_an_error_saying_what_ragmon_reads(
        tmp_path: Path) -> None:
    # `json.dump` of a dict writes one line, which is read as JSONL.
    path = write_jsonl(tmp_path / "golden.json", [{"data": WRAPPED}])
    assert str(error_of([path])) == (
        f"{path}:1: the line's object was read as one record, which has no 'id', not as the records listed "
        f"in its 'data': a JSON array of records, or JSONL (one per line), is what ragmon reads "
        f"(field 'data')")


@pytest.mark.parametrize("record", [
    {"question": "q", "contexts": [{"text": "Doc."}]},  # a record missing its id
    {"data": WRAPPED, "more": WRAPPED},                 # which of the two?
    {"data": [1, 2]},
])
def test_an_object_missing_its_id_otherwise_says_so(tmp_path: Path, record: dict) -> None:
    path = write_jsonl(tmp_path / "golden.jsonl", [record])
    assert str(error_of([path])) == f"{path}:1: missing required field 'id'"


# --- found by a security review: a line with no end, binary input, UTF-16 --------------------------

_UTF16 = "not valid UTF-8 text: it is UTF-16: convert it to UTF-8 (PowerShell: Out-File -Encoding utf8)"
_RECORD = {"id": "a", "question": "How long?", "answer": "Two years.",
           "contexts": [{"id": "d1", "text": "Two years."}]}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_utf16_file_is_named_utf16(tmp_path: Path, encoding: str, compress: bool) -> None:
    # PowerShell 5's default: was "not valid UTF-8 text: invalid start byte", not a word of UTF-16.
    data = (json.dumps(_RECORD) + "\n" + json.dumps({**_RECORD, "id": "b"}) + "\n").encode(encoding)
    path = tmp_path / "golden.jsonl"
    path.write_bytes(gzip.compress(data) if compress else data)
    assert str(error_of([path])) == f"{path}:1: {_UTF16}"


def test_a_utf16_line_appended_to_a_utf8_file_is_named_utf16(tmp_path: Path) -> None:
    # PowerShell 5's `>>` appends UTF-16 with no byte-order mark: was "invalid JSON at column 1".
    path = tmp_path / "golden.jsonl"
    appended = (json.dumps({**_RECORD, "id": "b"}) + "\n").encode("utf-16-le")
    path.write_bytes((json.dumps(_RECORD) + "\n").encode() + appended)
    assert str(error_of([path])) == f"{path}:2: {_UTF16}"


@pytest.fixture
def small_lines(monkeypatch: pytest.MonkeyPatch) -> int:
    """MAX_LINE_BYTES made small enough to test without 256 MiB of data."""
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 64)
    return 64


def test_a_line_longer_than_the_cap_is_an_error_naming_file_and_line(tmp_path: Path,
                                                                     small_lines: int) -> None:
    record = json.dumps({"id": "a", "question": "q"}).encode()
    at_cap = json.dumps({"id": "b", "question": "q" * (small_lines - 27)}).encode()
    assert len(at_cap) == small_lines  # a line of exactly the cap is read
    over = json.dumps({"id": "c", "question": "q" * (small_lines - 26)}).encode()
    path = tmp_path / "golden.jsonl"
    path.write_bytes(b"\n".join([record, at_cap, over]) + b"\n")
    message = (" MiB, the most ragmon reads as one: a JSONL record, or a JSON document written on one line, "
               "must fit in it (is this file a dataset?)")
    err = error_of([path])
    assert err.line == 3 and str(err).startswith(f"{path}:3: a line longer than ")
    assert str(err).endswith(message)
    path.write_bytes(gzip.compress(b"\n".join([record, over])))
    assert error_of([path]).line == 2


def test_a_device_with_no_newline_stops_at_the_cap(small_lines: int) -> None:
    # `ragmon replay /dev/zero`: read until memory ran out, a MemoryError reported as a bug in ragmon.
    err = error_of([Path("/dev/zero")])
    assert (err.source, err.line) == ("/dev/zero", 1) and "a line longer than" in str(err)


@contextlib.contextmanager
def endless(chunk: bytes, most: int = 32 << 20) -> Iterator[tuple[Path, list[int]]]:
    """A pipe fed `chunk` over and over (up to `most` bytes) until its reader closes it, with how many bytes
    it took: `yes | ragmon replay -`, `cat /dev/zero | ragmon replay -`."""
    read_end, write_end = os.pipe()
    sent = [0]

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), os.fdopen(write_end, "wb") as writer:
            while sent[0] < most:
                sent[0] += writer.write(chunk)
                writer.flush()

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        yield Path(f"/dev/fd/{read_end}"), sent
    finally:
        os.close(read_end)
        feeder.join()


@pytest.mark.parametrize(("chunk", "line", "words"), [
    (b"\0" * 4096, 1, "a line longer than"),               # cat /dev/zero: no newline, ever
    (b"y\n" * 2048, 1, "invalid JSON at column 1"),        # yes: lines, none of them JSON
    (b"\x89PNG\r\n\x1a\n" * 512, 1, "not valid UTF-8"),  # a binary file
])
def test_a_pipe_that_never_ends_is_refused_after_reading_a_little_of_it(
        small_lines: int, chunk: bytes, line: int, words: str) -> None:
    # It was copied aside whole before reading began (until the disk was full), then read whole as one JSON
    # document when its first line was no JSON: an endless read either way.
    with endless(chunk) as (path, sent):
        err = error_of([path])
    assert err.line == line and words in str(err)
    assert sent[0] < 1 << 20


@pytest.mark.parametrize(("report", "kind"), [
    ({"report_format": 1, "ragmon_version": "0", "aggregates": {}, "results": []}, "replay"),
    ({"report": "ragmon calibrate", "ragmon_version": "0", "judges": []}, "calibrate"),
], ids=["replay", "calibrate"])
def test_a_ragmon_report_given_as_a_dataset_is_named_as_one(tmp_path: Path, report: dict, kind: str) -> None:
    # `ragmon replay main.json` said "missing required field 'id'", or that its results were no records.
    path = tmp_path / "main.json"
    path.write_text(json.dumps(report) + "\n", encoding="utf-8")
    assert f"is a ragmon {kind} JSON report, not a dataset" in str(error_of([path]))


# --- found in an audit of golden-file reading: OTLP/JSON after a record, read as a record ---------

_OTLP_AMONG_RECORDS = ("an OTLP/JSON ExportTraceServiceRequest, in a file whose first record is a dataset "
                       "record: give every record of a file in one format, the OTLP/JSON lines in a file of "
                       "their own")


def test_an_otlp_line_after_a_record_is_named_as_otlp(tmp_path: Path) -> None:
    # `cat golden.jsonl traces.otlp.jsonl > all.jsonl`: the OTLP line was "read as one record, which has no
    # 'id', not as the records listed in its 'resourceSpans'", which named neither format.
    path = write_jsonl(tmp_path / "all.jsonl", [{"id": "a", "question": "q?"}, {"resourceSpans": []}])
    assert str(error_of([path])) == f"{path}:2: {_OTLP_AMONG_RECORDS}"


def test_an_otlp_request_in_an_array_of_records_is_named_as_otlp(tmp_path: Path) -> None:
    # It was "missing required field 'id' (field '[1].id')".
    path = tmp_path / "all.json"
    path.write_text('[\n  {"id": "a", "question": "q?"},\n  {"resource_spans": []}\n]\n', encoding="utf-8")
    assert str(error_of([path])) == f"{path}:3: {_OTLP_AMONG_RECORDS} (field '[1]')"


# --- found in an audit of import formats: other telemetry misread as records under one key -----------


_TRACES_ONLY = ("and ragmon reads traces only: give the file a Collector's file exporter writes in a traces "
                "pipeline")


@pytest.mark.parametrize(("line", "told"), [
    ({"resourceMetrics": [{"scopeMetrics": []}]},
     f"is an OTLP/JSON export of metrics (its 'resourceMetrics'), {_TRACES_ONLY}"),
    ({"resource_logs": [{"scope_logs": []}]},
     f"is an OTLP/JSON export of logs (its 'resource_logs'), {_TRACES_ONLY}"),
    ({"ResourceSpans": [{"ScopeSpans": []}]},
     "holds 'ResourceSpans', which no OTLP/JSON parser reads: an ExportTraceServiceRequest holds "
     "'resourceSpans' (or 'resource_spans'), as the Collector's file exporter writes it"),
    ({"name": "retriever", "span_kind": "RETRIEVER", "context.trace_id": "t1", "context.span_id": "a2",
      "attributes.retrieval.documents": [{"document.id": "kb-12", "document.content": "x"}]},
     "is a Phoenix span (a row of get_spans_dataframe()), not a dataset record: ragmon reads spans as "
     "OTLP/JSON lines, as a Collector's file exporter writes them, or records of 'question', 'contexts' and "
     "'answer'"),
], ids=["metrics", "logs", "cased", "phoenix"])
def test_telemetry_that_is_no_trace_request_is_named_as_what_it_is(tmp_path: Path, line: dict,
                                                                   told: str) -> None:
    # Before: "the line's object was read as one record, which has no 'id', not as the records listed in
    # its 'resourceMetrics'" (or its 'attributes.retrieval.documents'), which named no format.
    path = write_jsonl(tmp_path / "telemetry.jsonl", [line])
    assert str(error_of([path])) == f"{path}:1: the line's object {told}"


def test_an_array_of_otlp_requests_is_told_the_command_that_splits_it(tmp_path: Path) -> None:
    # Before: told to reformat with `jq -c .`, which writes the array back as the one line it was.
    path = tmp_path / "traces.json"
    path.write_text(json.dumps([{"resourceSpans": []}, {"resourceSpans": []}]), encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:1: OTLP/JSON must hold one ExportTraceServiceRequest per line, "
                                     f"as the Collector's file exporter writes it (reformat with "
                                     f"`jq -c '.[]'`)")


# --- found in an audit of golden-file reading: one file named twice, its data blamed -----------------

_TWICE = "named twice among the datasets: give each dataset once"


def _first_error(paths: list[str]) -> InputError:
    """The error before any example is given: the names are checked before any file is read."""
    with pytest.raises(InputError) as info:
        next(iter(load(paths)))
    return info.value


@pytest.mark.parametrize(("again", "named"), [
    ("{d}/g.jsonl", "{d}/g.jsonl is"),
    ("{d}/./g.jsonl", "{d}/g.jsonl and {d}/./g.jsonl are the same file,"),
    ("{d}/link.jsonl", "{d}/g.jsonl and {d}/link.jsonl are the same file,"),
], ids=["same-name", "dot-slash", "symlink"])
def test_a_file_named_twice_is_refused_before_it_is_read(tmp_path: Path, again: str, named: str) -> None:
    # `ragmon calibrate g.jsonl g.jsonl`: "g.jsonl:1: duplicate example id 'ex1' (first at g.jsonl:1)",
    # pointing twice at one place, as if the data were wrong.
    write_jsonl(tmp_path / "g.jsonl", [{"id": "ex1", "question": "q?"}])
    (tmp_path / "link.jsonl").symlink_to("g.jsonl")
    error = _first_error([f"{tmp_path}/g.jsonl", again.format(d=tmp_path)])
    assert str(error) == f"{named.format(d=tmp_path)} {_TWICE}"


def test_standard_input_from_a_file_also_named_is_that_file(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # `ragmon replay - g.jsonl < g.jsonl`: read once through each name.
    path = write_jsonl(tmp_path / "g.jsonl", [{"id": "ex1", "question": "q?"}])
    with path.open(encoding="utf-8") as redirected:
        monkeypatch.setattr(sys, "stdin", redirected)
        assert str(_first_error(["-", str(path)])) == f"<stdin> and {path} are the same file, {_TWICE}"


def test_a_pipe_named_twice_is_one_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    # `cat g.jsonl | ragmon replay - /dev/stdin` (/dev/stdin is /dev/fd/0): the second read found the pipe
    # empty, "/dev/stdin: contains no examples".
    with piped(b'{"id": "ex1", "question": "q?"}\n') as path, os.fdopen(os.dup(int(path.name)), "r") as pipe:
        monkeypatch.setattr(sys, "stdin", pipe)
        assert str(_first_error(["-", str(path)])) == f"<stdin> and {path} are the same file, {_TWICE}"


def test_two_files_alike_are_still_two_files(tmp_path: Path) -> None:
    # Equal bytes in two files is not one file named twice: their ids are duplicates, as any other's.
    first = write_jsonl(tmp_path / "g.jsonl", [{"id": "ex1", "question": "q?"}])
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(first.read_bytes())
    assert str(error_of([first, copy])) == (f"{copy}:1: duplicate example id 'ex1' (first at {first}:1) "
                                            "(field 'id')")
