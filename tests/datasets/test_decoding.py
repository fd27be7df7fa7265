"""JSON lines decoded strictly, and their errors worded to say where the line went wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from dataset_cases import error_of

# --- found in review: text that no report could be written in, layouts misread --------------------


def test_utf8_encoded_surrogate_in_jsonl_is_invalid_utf8_with_its_line(tmp_path: Path) -> None:
    # ED A0 80 is U+D800 encoded as if it were a character: not UTF-8 (RFC 3629), rejected by the
    # strict decoder; json.loads on bytes would let it through and the report writer would then crash.
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"id": "a", "question": "q"}\n'
                     b'{"id": "b", "question": "q", "answer": "x\xed\xa0\x80"}\n')
    err = error_of([path])
    assert (err.source, err.line) == (str(path), 2) and "not valid UTF-8" in str(err)


# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


def test_truncated_jsonl_line_says_the_line_ends_early(tmp_path: Path) -> None:
    # Before: "Expecting ',' delimiter at column 1", the column on the next line, past the newline.
    path = tmp_path / "tr3.jsonl"
    path.write_text('{"id": "x", "question": "q?"}\n{"id": "y", "question": "q?"}\n'
                    '{"id": "z", "question": "q?"\n{"id": "w", "question": "q?"}\n', encoding="utf-8")
    assert str(error_of([path])) == f"{path}:3: invalid JSON: the line ends before the value is complete"


def test_error_inside_a_jsonl_line_keeps_its_column(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "x", "question": "q?"}\n{"id": "y",, "question": "q?"}\n', encoding="utf-8")
    # `{"id": "y",` is 11 characters: the second comma is column 12, where a key was expected.
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 12: Expecting property name "
                                     "enclosed in double quotes")


def test_a_line_cut_inside_a_string_says_so(tmp_path: Path) -> None:
    # The last line, cut with no newline after it. json says "Unterminated string starting at" and a
    # column, which read "... at at column 25".
    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "x", "question": "q?"}\n{"id": "y", "question": "How lo', encoding="utf-8")
    # `{"id": "y", "question": ` is 24 characters: the cut string starts at column 25.
    assert str(error_of([path])) == (f"{path}:2: invalid JSON: the text ends inside a string that starts "
                                     "at column 25")


def test_a_key_given_twice_in_one_object_is_an_error_not_the_last_one_kept(tmp_path: Path) -> None:
    # json.loads keeps the last: line 2 was scored as example a2, and a1 was never missed. The same key
    # in different objects is no repeat: line 1, with "id" in three, is read, and the error is line 2's.
    path = tmp_path / "dup.jsonl"
    path.write_text('{"id": "a0", "question": "q?", "contexts": [{"id": "d1", "text": "t"}, '
                    '{"id": "d2", "text": "u"}], "answer": "t"}\n'
                    '{"id": "a1", "contexts": [{"id": "d", "text": "t"}], "id": "a2"}\n', encoding="utf-8")
    # `{"id": "a1", "contexts": [{"id": "d", "text": "t"}], ` is 53 characters: the last "id" is at 54.
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 54: the key 'id' is given twice in "
                                     "one object (its last place is this column)")


def test_lines_ending_in_a_carriage_return_alone_name_the_line_ending(tmp_path: Path) -> None:
    # Classic Mac OS line endings: the file is one line to every reader, and json took the CR for space
    # between two values, saying only "Extra data".
    path = tmp_path / "mac.jsonl"
    path.write_bytes(b'{"id": "x", "question": "q?"}\r{"id": "y", "question": "q?"}\r')
    # `{"id": "x", "question": "q?"}` is 29 characters, the CR the 30th: the second record is column 31.
    assert str(error_of([path])) == (f"{path}:1: invalid JSON at column 31: a second value follows a "
                                     "carriage return alone: the file's lines end in CR (classic Mac OS), "
                                     "not LF or CRLF; convert them (tr '\\r' '\\n')")


def test_a_record_glued_to_the_one_before_says_a_newline_is_missing(tmp_path: Path) -> None:
    # `cat a.jsonl b.jsonl` with a's last line saved without its newline (as editors may), or a line
    # appended to such a file: "Extra data" named no cause, and the file looked fine in the editor.
    first = tmp_path / "a.jsonl"
    first.write_text('{"id": "x", "question": "q?"}\n{"id": "y", "question": "q?"}', encoding="utf-8")
    joined = tmp_path / "joined.jsonl"
    joined.write_text(first.read_text() + '{"id": "z", "question": "q?"}\n', encoding="utf-8")
    # `{"id": "y", "question": "q?"}` is 29 characters: the glued record starts at column 30.
    assert str(error_of([joined])) == (f"{joined}:2: invalid JSON at column 30: a second record starts "
                                       "right after the first one's '}' on the same line: a newline is "
                                       "missing between them (files joined, the first not ending in one?)")


def test_two_eval_sets_glued_in_a_json_file_are_told_the_file_holds_one(tmp_path: Path) -> None:
    # Two whole-JSON eval sets joined: "a newline is missing" was the advice, and with the newline added the
    # file failed again ("a file holds one eval set"). `{"examples": []}` is 16 characters.
    joined = tmp_path / "sets.json"
    joined.write_text('{"examples": []}{"examples": []}\n', encoding="utf-8")
    assert str(error_of([joined])) == (f"{joined}:1: invalid JSON at column 17: a second JSON value starts "
                                       "right after the first one's '}': a JSON file holds one value (an "
                                       "array of records, or one eval set); were two files joined?")


def test_two_values_on_one_line_without_a_carriage_return_keep_jsons_message(tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    path.write_text('{"id": "x", "question": "q?"} {"id": "y", "question": "q?"}\n', encoding="utf-8")
    assert str(error_of([path])) == f"{path}:1: invalid JSON at column 31: Extra data"


def test_records_written_over_several_lines_are_named_as_such(tmp_path: Path) -> None:
    # Read as one JSON document (its first line opens an object), the second record was "Extra data".
    path = tmp_path / "pretty.jsonl"
    path.write_text('{\n  "id": "x",\n  "question": "q?"\n}\n{\n  "id": "y",\n  "question": "q?"\n}\n',
                    encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:5: invalid JSON at column 1: a second JSON value starts here: "
                                     "JSONL holds one record per line, and these records span several lines "
                                     "(pretty-printed?); write each on a line of its own (jq -c . FILE)")


@pytest.mark.parametrize("comment", ["# golden set v2", "// golden set v2"])
def test_a_comment_line_is_named_a_comment(tmp_path: Path, comment: str) -> None:
    path = tmp_path / "commented.jsonl"
    path.write_text(f'{{"id": "x", "question": "q?"}}\n{comment}\n', encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 1: Expecting value: JSON has no "
                                     "comments; remove it")


@pytest.mark.parametrize(("raw", "escaped"), [("\x00", "\\u0000"), ("\t", "\\t"), ("\x1b", "\\u001b")])
def test_a_raw_control_character_in_a_string_is_named_with_its_escape(tmp_path: Path, raw: str,
                                                                      escaped: str) -> None:
    # json's own message, "Invalid control character at", ended on its "at".
    path = tmp_path / "control.jsonl"
    path.write_text(f'{{"id": "x", "question": "q{raw}?"}}\n', encoding="utf-8")
    # `{"id": "x", "question": "q` is 26 characters: the character is column 27.
    assert str(error_of([path])) == (f"{path}:1: invalid JSON at column 27: control character "
                                     f"U+{ord(raw):04X} inside a string: JSON writes it escaped "
                                     f"(\"{escaped}\")")


def test_a_trailing_comma_is_named_as_one(tmp_path: Path) -> None:
    path = tmp_path / "comma.jsonl"
    path.write_text('{"id": "x", "question": "q?",}\n', encoding="utf-8")
    # `{"id": "x", "question": "q?",` is 29 characters: the `}` json expected a key at is column 30.
    assert str(error_of([path])) == (f"{path}:1: invalid JSON at column 30: Expecting property name enclosed "
                                     "in double quotes: a comma before '}' ends no item (JSON allows no "
                                     "trailing comma)")


@pytest.mark.parametrize(("name", "text", "where", "expected"), [
    # `{"id": "x", "question": "q?", "contexts": ["a",` is 47 characters: the `]` is column 48.
    ("comma.jsonl", '{"id": "x", "question": "q?", "contexts": ["a",]}\n', "1: invalid JSON at column 48",
     "Expecting value: a comma before ']'"),
    # The last record's comma ends line 2, the `]` json expected a value at opens line 3.
    ("comma.json", '[\n  {"id": "x", "question": "q?"},\n]\n', "3: invalid JSON at column 1",
     "Expecting value: a comma before ']'"),
    ("comma.json", '[{"id": "x",\n  "question": "q?",\n  }]\n', "3: invalid JSON at column 3",
     "Expecting property name enclosed in double quotes: a comma before '}'"),
])
def test_a_trailing_comma_is_named_at_its_bracket_on_every_python(tmp_path: Path, name: str, text: str,
                                                                  where: str, expected: str) -> None:
    # Python 3.13's json names the comma itself ("Illegal trailing comma before end of array"), at the
    # comma: a column earlier, or a line earlier when the bracket is on the next line, and ragmon's own
    # wording of the cause was lost; 3.11 and 3.12 stop at the bracket.
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert str(error_of([path])) == f"{path}:{where}: {expected} ends no item (JSON allows no trailing comma)"


# --- found in an audit of golden-file reading: two layouts called pretty-printed, a NUL byte unnamed --


@pytest.mark.parametrize("second", ['[{"id": "b", "question": "q?"}]', '{"id": "b", "question": "q?"}'])
def test_an_array_on_the_first_line_then_another_value_is_not_called_pretty_printed(tmp_path: Path,
                                                                                    second: str) -> None:
    # An array per line (`json.dumps(batch)` per batch), or an array then JSONL: no record spans lines,
    # yet the error said they did and suggested `jq -c .`, which leaves both files as they are.
    path = tmp_path / "batches.jsonl"
    path.write_text(f'[{{"id": "a", "question": "q?"}}]\n{second}\n', encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 1: a second JSON value starts here, "
                                     "after the array that is the whole first line: give one JSON array of "
                                     "records, or JSONL with one object per line (jq -c '.[]' FILE)")


def test_an_eval_set_on_the_first_line_then_another_is_not_called_pretty_printed(tmp_path: Path) -> None:
    path = tmp_path / "evals.jsonl"
    line = '{"examples": [{"id": "e1", "question": "q?"}]}\n'
    path.write_text(line * 2, encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 1: a second JSON value starts here, "
                                     "after the eval set that is the whole first line: a file holds one eval "
                                     "set")


@pytest.mark.parametrize(("data", "line"), [
    (b'{"id": "a", "question": "q?"}\n\x00\n', 2),  # a JSONL line of a zero byte
    (b'[\n  {"id": "a", "question": "q?"},\n\x00\n]\n', 3),  # in a JSON document, where a record goes
])
def test_a_zero_byte_where_a_value_goes_is_named(tmp_path: Path, data: bytes, line: int) -> None:
    # json says only "Expecting value", at a column where the line looks empty in most terminals.
    path = tmp_path / "zeros.jsonl"
    path.write_bytes(data)
    assert str(error_of([path])) == (f"{path}:{line}: invalid JSON at column 1: Expecting value: control "
                                     "character U+0000 outside a string (is the file binary?)")


# --- found in an audit of golden-file reading: a byte that is no UTF-8, named by neither place nor cause --

_ICONV = ("; if the file is Windows-1252 (Latin-1) text, convert it to UTF-8: iconv -f windows-1252 -t utf-8 "
          "FILE > FILE.utf8")


def test_a_windows_1252_byte_is_named_with_its_column_and_the_conversion(tmp_path: Path) -> None:
    # "Café?" saved by a Windows editor or a spreadsheet export: it was "l1.jsonl:1: not valid UTF-8 text:
    # invalid continuation byte", naming no column, no byte, no way out.
    path = tmp_path / "l1.jsonl"
    path.write_bytes(b'{"id":"a","question":"Caf\xe9?"}\n')
    # `{"id":"a","question":"Caf` is 25 characters: the é is column 26.
    assert str(error_of([path])) == (f"{path}:1: not valid UTF-8 text at column 26: byte 0xE9 begins no "
                                     f"UTF-8 character{_ICONV}")


def test_a_windows_1252_byte_in_a_json_document_is_named_at_its_line(tmp_path: Path) -> None:
    # Read whole, as one document: the line is counted in the file and the column in it, the byte-order
    # mark counting for neither, as JSON's own errors count them.
    path = tmp_path / "golden.json"
    path.write_bytes(b'\xef\xbb\xbf[\n {"id": "a",\n  "question": "Caf\xe9"}]\n')
    # `  "question": "Caf` is 18 characters: the é is column 19 of line 3.
    assert str(error_of([path])) == (f"{path}:3: not valid UTF-8 text at column 19: byte 0xE9 begins no "
                                     f"UTF-8 character{_ICONV}")


@pytest.mark.parametrize(("value", "column", "byte"), [
    # The line holds UTF-8 already (the ï): converting the file would garble it. Counted in characters,
    # `naïve Caf` is 9 after the 22 of `{"id":"b","question":"`; in bytes the é would be 33.
    ("naïve Caf".encode() + b"\xe9", 32, "E9"),
    # UTF-16 without a byte-order mark, mid-line: its zero bytes are no text. `Caf` is 6 characters of it.
    ("Café".encode("utf-16-le"), 29, "E9"),
    # 0x81 is no character of Windows-1252 either.
    (b"Caf\x81", 26, "81"),
], ids=["utf8-too", "utf16", "not-1252"])
def test_a_line_that_does_not_read_as_windows_1252_gets_no_conversion(tmp_path: Path, value: bytes,
                                                                     column: int, byte: str) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"id":"a","question":"q"}\n{"id":"b","question":"' + value + b'"}\n')
    assert str(error_of([path])) == (f"{path}:2: not valid UTF-8 text at column {column}: byte 0x{byte} "
                                     "begins no UTF-8 character")


def test_a_lone_bad_byte_in_a_long_line_gets_a_short_message(tmp_path: Path) -> None:
    # 4 MB of text on one line, a lone 0xFF in the middle: the message quotes nothing of the line.
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"id":"a","question":"' + b"x" * 2_000_000 + b"\xff" + b"y" * 2_000_000 + b'"}\n')
    # `{"id":"a","question":"` is 22 characters, then 2,000,000 x: the 0xFF is column 2,000,023.
    assert str(error_of([path])) == (f"{path}:1: not valid UTF-8 text at column 2000023: byte 0xFF begins no "
                                     f"UTF-8 character{_ICONV}")


# --- found in an audit of import formats: a comma after each record, a mark between two, bare "Extra data" -


def test_a_comma_after_each_jsonl_record_is_named(tmp_path: Path) -> None:
    # Before: "invalid JSON at column 30: Extra data", which named no cause for a file that looked right.
    path = tmp_path / "commas.jsonl"
    path.write_text('{"id": "x", "question": "q?"},\n{"id": "y", "question": "q?"},\n', encoding="utf-8")
    # `{"id": "x", "question": "q?"}` is 29 characters: the comma is column 30.
    assert str(error_of([path])) == (f"{path}:1: invalid JSON at column 30: a comma after a complete value: "
                                     "JSONL holds one record a line with nothing between them, and a JSON "
                                     "array of records needs '[' and ']' around them; remove the commas, or "
                                     "add those")


def test_a_byte_order_mark_between_two_records_is_named(tmp_path: Path) -> None:
    # Before: "invalid JSON at column 30: Extra data"; the mark is invisible in most editors.
    path = tmp_path / "joined.jsonl"
    path.write_bytes(b'{"id": "x", "question": "q?"}\xef\xbb\xbf{"id": "y", "question": "q?"}\n')
    assert str(error_of([path])) == (f"{path}:1: invalid JSON at column 30: a byte-order mark (U+FEFF) after "
                                     "a complete value, as files joined with cat, the second saved with one, "
                                     "give it: remove the mark, and put each record on a line of its own")
