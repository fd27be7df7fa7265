"""Property: whatever bytes a dataset file holds, loading it gives examples or an InputError naming the
file (and the line, unless the fault is the file's as a whole); never another exception.

Files are drawn as records shaped like each format's (known field names, near misses, unknown ones)
whose values are of any JSON type, plus what damages a file on its way (a byte-order mark, CRLF, a
cut, a stray byte, gzip, gzip cut short). Deep nesting, huge integers and lone surrogate escapes are
written verbatim into the JSON text, which `json.dumps` cannot produce.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dataset_cases import error_of
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from ragmon.datasets import load
from ragmon.errors import InputError

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

FILE_LEVEL = ("cannot read dataset", "contains no examples", "contains no spans",
              "and ragmon reads a dataset plain or gzipped")
"""The faults of a whole file, which have no line to name: the last an archive or another compression's
magic number (`\xfd7zXZ\x00`), which Hypothesis draws from the constants of ragmon's code."""


class Raw(str):
    """A JSON fragment written into the text as it stands."""


def to_json(value: Any, sep: str = ", ") -> str:
    """JSON text of `value`; a `sep` with a newline spreads a document over lines."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + sep.join(f"{json.dumps(k)}: {to_json(v, sep)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + sep.join(to_json(v, sep) for v in value) + "]"
    return json.dumps(value)  # NaN and Infinity come out as the literals json.loads accepts


def deep(depth: int) -> Raw:
    return Raw("[" * depth + "]" * depth)


DIGIT_LIMIT = 4300
"""Python's default int <-> str digit limit (sys.get_int_max_str_digits), which json.loads meets."""

RAW_VALUES = st.sampled_from([
    Raw("9" * (DIGIT_LIMIT + 1)), Raw("-" + "1" * (DIGIT_LIMIT + 5)), Raw("1" * 400), Raw("1e400"),
    Raw("-1e999"), Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1" * 400 + ".5"),
    deep(3000), Raw('{"a":' * 3000 + "1" + "}" * 3000),
])
SURROGATES = st.sampled_from([Raw('"\\ud800"'), Raw('"a\\udfffb"'), Raw('"\\ud83d\\ude00"')])
"""Two lone surrogates, escaped, and a proper pair."""
WORDS = st.sampled_from([
    "", " ", "q?", "insufficient_context", "adversarial", "unanswerable", "retrieval", "llm", "tool",
    "retrival", "__REDACTED__", "doc-1", "0", "[1]", "{", "\u00e9", "\u2028", "a\nb", "\x00",
])
TEXT = WORDS | st.text(max_size=12) | SURROGATES
SCALARS = (st.none() | st.booleans() | TEXT | RAW_VALUES
           | st.integers(min_value=-(2**70), max_value=2**70) | st.sampled_from([10**400, -(10**400)])
           | st.floats(allow_nan=True, allow_infinity=True))
KEYS = st.sampled_from([
    "id", "question", "contexts", "answer", "relevant_ids", "citations", "ground_truth", "category",
    "pipeline", "input", "output", "expectedDocs", "steps", "traceId", "trace_id", "kind", "text",
    "score", "pageContent", "metadata", "source", "doc_id", "query", "corpus", "examples",
    "ground_truth_answer", "expected_chunk_ids", "context", "anwser", "groundTruth", "Steps", "labels",
    "resourceSpans",
]) | st.text(max_size=6)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=10)
IDS = st.sampled_from(["a", "b", "c1", "doc-1"]) | st.integers(-3, 3) | VALUES


def sometimes(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a well-typed value, so parsing gets past the first field; else any value."""
    return st.one_of(good, good, VALUES)


CONTEXT = sometimes(TEXT | st.fixed_dictionaries(
    {}, optional={"id": IDS, "text": sometimes(TEXT), "score": sometimes(st.floats() | st.integers()),
                  "pageContent": sometimes(TEXT),
                  "metadata": sometimes(st.fixed_dictionaries({}, optional={"id": IDS, "source": IDS}))}))
CONTEXTS = sometimes(st.lists(CONTEXT, max_size=3))
DOC_REF = st.fixed_dictionaries({}, optional={"id": IDS, "source": IDS})
ID_LIST = sometimes(st.lists(IDS | DOC_REF, max_size=3))
RAGMON_RECORD = st.fixed_dictionaries(
    {"id": IDS, "question": sometimes(TEXT)},
    optional={"contexts": CONTEXTS, "answer": sometimes(TEXT), "relevant_ids": ID_LIST, "citations": ID_LIST,
              "ground_truth": sometimes(TEXT), "category": sometimes(TEXT), "pipeline": sometimes(TEXT),
              "labels": VALUES, "context": VALUES, "anwser": VALUES})
STEP = sometimes(st.fixed_dictionaries(
    {"kind": sometimes(st.sampled_from(["retrieval", "llm", "embedding", "tool", "retriever", "rerank"]))},
    optional={"output": st.one_of(CONTEXTS, TEXT), "kidn": VALUES}))
TRACE_RECORD = st.fixed_dictionaries(
    {"input": sometimes(TEXT | st.fixed_dictionaries({"query": sometimes(TEXT)}))},
    optional={"id": IDS, "traceId": IDS, "output": sometimes(TEXT | st.fixed_dictionaries({"answer": TEXT})),
              "expectedDocs": ID_LIST, "steps": sometimes(st.lists(STEP, max_size=3)),
              "question": VALUES, "category": VALUES, "stpes": VALUES})
EVALSET_EXAMPLE = sometimes(st.fixed_dictionaries(
    {"id": IDS, "question": sometimes(TEXT)},
    optional={"ground_truth_answer": sometimes(TEXT), "expected_chunk_ids": ID_LIST,
              "category": sometimes(st.sampled_from(["adversarial", "pricing"]))}))
EVALSET = st.fixed_dictionaries(
    {"examples": sometimes(st.lists(EVALSET_EXAMPLE, max_size=3))},
    optional={"corpus": sometimes(st.lists(sometimes(st.fixed_dictionaries({"id": IDS, "text": TEXT})),
                                           max_size=3))})
HEX_IDS = st.sampled_from(["0" * 31 + "1", "ab" * 16, "0" * 32, "xyz", ""])
SPAN_IDS = st.sampled_from(["0" * 15 + "1", "0" * 15 + "2", "cd" * 8, "0" * 16, "12"])
ATTRIBUTE_KEYS = st.sampled_from([
    "ragmon.question", "ragmon.answer", "ragmon.contexts", "ragmon.citations", "ragmon.relevant_ids",
    "openinference.span.kind", "input.value", "output.value", "retrieval.documents.0.document.content",
    "retrieval.documents.0.document.score", "retrieval.documents.0.document.metadata",
    "retrieval.documents.\u00b2.document.content", "gen_ai.operation.name", "gen_ai.retrieval.documents",
]) | st.text(max_size=5)
ANY_VALUE = sometimes(st.one_of(
    st.builds(lambda v: {"stringValue": v}, sometimes(TEXT | st.sampled_from(
        ['[{"text": "t", "score": 1e999}]', '["a", "b"]', "RETRIEVER", "[" * 2000, "{'id': " * 10]))),
    st.builds(lambda v: {"intValue": v}, sometimes(st.integers() | st.sampled_from(["1", "1e3", "9" * 400]))),
    st.builds(lambda v: {"doubleValue": v}, sometimes(st.floats() | st.sampled_from([10**400, "NaN"]))),
    st.builds(lambda v: {"boolValue": v}, VALUES),
    st.builds(lambda v: {"arrayValue": {"values": v}}, VALUES)))
SPAN = sometimes(st.fixed_dictionaries(
    {"traceId": sometimes(HEX_IDS), "spanId": sometimes(SPAN_IDS)},
    optional={"parentSpanId": sometimes(SPAN_IDS), "name": sometimes(TEXT),
              "startTimeUnixNano": sometimes(st.integers(0, 2**70) | st.sampled_from(["5", "x"])),
              "kind": sometimes(st.integers(0, 5)),
              "attributes": sometimes(st.lists(sometimes(st.fixed_dictionaries(
                  {"key": sometimes(ATTRIBUTE_KEYS), "value": ANY_VALUE})), max_size=4))}))
OTLP_LINE = st.builds(lambda spans: {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]},
                      st.lists(SPAN, max_size=3))


@st.composite
def dataset_files(draw: st.DrawFn) -> bytes:
    shape = draw(st.sampled_from(["ragmon", "trace", "mixed", "array", "evalset", "otlp", "bytes"]))
    if shape == "bytes":
        return draw(st.binary(max_size=64))
    if shape in ("array", "evalset"):
        doc = draw(st.lists(RAGMON_RECORD | TRACE_RECORD, max_size=3)) if shape == "array" else draw(EVALSET)
        text = to_json(doc, draw(st.sampled_from([", ", ",\n ", ",\n\n"])))
    else:
        record = {"ragmon": RAGMON_RECORD, "trace": TRACE_RECORD, "otlp": OTLP_LINE,
                  "mixed": RAGMON_RECORD | TRACE_RECORD | VALUES}[shape]
        lines = [to_json(r) for r in draw(st.lists(record, min_size=1, max_size=4))]
        if draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "  ", "\t"])))
        text = "\n".join(lines) + draw(st.sampled_from(["\n", ""]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    damage = draw(st.sampled_from(["none", "none", "cut", "byte", "gzip", "gzip-cut", "gzip-flip"]))
    if damage == "cut" and data:
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif damage == "byte":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x00"])) + data[at:]
    elif damage.startswith("gzip"):
        data = gzip.compress(data, mtime=0)
        at = draw(st.integers(2, len(data) - 1))
        if damage == "gzip-cut":
            data = data[:at]
        elif damage == "gzip-flip":  # a corrupt header, deflate block or CRC
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    return data


def assert_loads_or_names_where(path: Path) -> str:
    """Load `path`; return the outcome, having checked that an error names the file and line."""
    skipped: list[tuple[str, str]] = []
    try:
        examples = list(load([path], skipped=skipped))
    except InputError as exc:
        message = str(exc)
        assert message.startswith(f"{path}:"), message
        assert "\n" not in message and "\r" not in message, message  # the CLI's one-line message
        if exc.line is None:
            assert any(problem in message for problem in FILE_LEVEL), message
        else:
            assert message.startswith(f"{path}:{exc.line}: "), message
        return "error at a line" if exc.line is not None else "error of the file"
    return "examples" if examples else ("not RAG" if skipped else "nothing")


@pytest.fixture(scope="module")
def dataset_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "golden.jsonl"


def check_dataset(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    event(assert_loads_or_names_where(path))


@settings(FUZZ, max_examples=600)
@given(data=dataset_files())
@example(data=b"[" * 100_000 + b"\n")  # RecursionError from json
@example(data=b'{"id": "a", "question": "q"}\n{"id": "b", "question": ' + b"[" * 3000 + b"\n")
@example(data=b'{"corpus": [], "examples": [' + b"[" * 3000 + b"\n]}\n")
@example(data=b'{"id": ' + b"9" * (DIGIT_LIMIT + 1) + b', "question": "q"}\n')  # json's ValueError
@example(data=b'{"id": "a", "question": "q"}\n{"id": ' + b"9" * (DIGIT_LIMIT + 1) + b', "question": "q"}\n')
@example(data=b'{"id": "a", "question": "q", "contexts": ["\\ud800"]}\n')  # content id of a surrogate
@example(data=b'[{"id": "a", "question": "q",\n "contexts": [{"text": "a\\udc00"}]}]\n')
def test_any_dataset_file_loads_or_fails_naming_file_and_line(dataset_path: Path, data: bytes) -> None:
    check_dataset(dataset_path, data)


def test_lone_surrogate_in_an_id_less_context_is_named_as_the_otlp_door_names_it(tmp_path: Path) -> None:
    # "\ud800" is valid JSON but no character: kept in the text (reports write it back as the same escape),
    # while the document's id hashes it as U+FFFD, which the OTLP decoder makes of it.
    path = tmp_path / "golden.jsonl"
    path.write_text('{"id": "a", "question": "q", "contexts": ["x\\ud800"]}\n', encoding="utf-8")
    [context] = next(iter(load([path]))).contexts or ()
    assert context.text == "x\ud800"
    assert context.id == "doc-" + hashlib.sha256("x\ufffd".encode()).hexdigest()[:8]


def test_a_proper_surrogate_pair_escape_is_one_character(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text('{"id": "a", "question": "\\ud83d\\ude00?"}\n', encoding="utf-8")
    assert [e.question for e in load([path])] == ["\U0001F600?"]


def test_too_deep_document_is_an_error_at_the_line_it_goes_too_deep(tmp_path: Path) -> None:
    # Lines 1-2 are fine, line 3 opens 5,000 lists: the 599th is past the bound (3.13's json read them all).
    path = tmp_path / "golden.json"
    path.write_text('[{"id": "a",\n "question": "q",\n "labels": ' + "[" * 5000 + "]" * 5000 + "}]\n")
    with pytest.raises(InputError) as info:
        list(load([path]))
    assert info.value.line == 3 and "nested too deeply" in str(info.value)


def _nested_line(depth: int) -> str:
    """A record carrying a value that brings it to `depth` arrays and objects within each other."""
    return '{"id": "b", "question": "q?", "tags": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}\n"


def test_a_line_nested_600_deep_loads(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text('{"id": "a", "question": "q?"}\n' + _nested_line(600))
    assert [e.id for e in load([path])] == ["a", "b"]


def test_a_line_nested_past_600_is_an_error_at_its_column_on_every_python(tmp_path: Path) -> None:
    # json's own limit was each Python's: 3.11 refused from ~990 levels, 3.12 from ~1,500, and 3.13 loaded
    # 5,000, so the same golden file passed on one Python and failed on the next.
    path = tmp_path / "golden.jsonl"
    path.write_text('{"id": "a", "question": "q?"}\n' + _nested_line(601))
    # `{"id": "b", "question": "q?", "tags": ` is 38 characters: the first list is column 39, at level 2,
    # and the 600th, at level 601, is column 638.
    assert str(error_of([path])) == (f"{path}:2: invalid JSON at column 638: nested too deeply (more than "
                                     "600 arrays and objects within each other)")


def test_an_otlp_line_is_bounded_as_the_sidecar_bounds_it(tmp_path: Path) -> None:
    # 129 key-value lists within each other in a span attribute, one past the sidecar's bound, are 526
    # levels of JSON: under the datasets' 600, the line gets the sidecar's own message (its 400).
    value: dict[str, Any] = {"stringValue": "x"}
    for _ in range(129):
        value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    path = tmp_path / "traces.jsonl"
    path.write_bytes(otlp_line({"key": "x", "value": value}))
    error = error_of([path])
    assert error.line == 1 and "key-value lists nested more than 128 levels deep" in str(error)


def test_integer_of_too_many_digits_is_an_invalid_json_error_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    path.write_text('[{"id": "a", "question": "q"},\n {"id": ' + "7" * 5000 + ', "question": "q"}]\n')
    with pytest.raises(InputError) as info:
        list(load([path]))
    assert info.value.line == 2 and "digits" in str(info.value) and "UTF-8" not in str(info.value)


def test_too_many_digits_are_found_in_the_number_not_in_a_string_or_a_fraction(tmp_path: Path) -> None:
    # Line 1 holds 5,000 digits in a document's text and line 2 a 5,000-digit fraction, both valid JSON
    # (a fraction is read as a float, which has no digit limit); the integer json.loads fails on is line 4.
    path = tmp_path / "golden.json"
    path.write_text('[{"id": "a", "question": "q", "contexts": [{"id": "d", "text": "' + "1" * 5000
                    + '"}]},\n {"id": "b", "question": "q", "score": 0.' + "2" * 5000
                    + '},\n {"id": "c", "question": "q",\n  "n": ' + "7" * 5000 + "}]\n")
    with pytest.raises(InputError) as info:
        list(load([path]))
    assert info.value.line == 4 and "digits" in str(info.value)


def otlp_line(*attributes: dict[str, Any]) -> bytes:
    span = {"traceId": "1" * 32, "spanId": "1" * 16, "name": "rag", "attributes": list(attributes)}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode() + b"\n"


CLI_CASES = {
    "deep.jsonl": b"[" * 100_000 + b"\n",
    "otlp-deep-attribute.jsonl": otlp_line({"key": "ragmon.question", "value": {"stringValue": "q"}},
                                           {"key": "ragmon.contexts", "value": {"stringValue": "[" * 3000}}),
    "otlp-huge-double.jsonl": otlp_line({"key": "x", "value": {"doubleValue": 10**400}}),
    "digits.jsonl": b'{"id": ' + b"9" * (DIGIT_LIMIT + 1) + b', "question": "q"}\n',
    "cut.jsonl.gz": gzip.compress(b'{"id": "a", "question": "q"}\n' * 50, mtime=0)[:40],
}


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_replay_of_a_bad_file_exits_2_with_one_line(tmp_path: Path, ragmon_cmd: list[str], name: str) -> None:
    path = tmp_path / name
    path.write_bytes(CLI_CASES[name])
    done = subprocess.run([*ragmon_cmd, "replay", str(path)], capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("ragmon replay: warning:")]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"ragmon replay: error: {path}"), done.stderr
