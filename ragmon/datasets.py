"""Golden datasets for `ragmon replay`, read into `Example`s with errors that point at file, line and field.

The format is detected per file from its first record:

1. ragmon JSONL: one example per line (`id`, `question`, optional `contexts`, `answer`, `relevant_ids`,
   `citations`, `ground_truth`, `category`, `pipeline`); any other field lands in `Example.extra`.
2. eval-set JSON: `{"corpus": [...], "examples": [...]}`, questions without answers.
3. trace JSON or JSONL: `input|question`, `output`, `expectedDocs`, `steps` with retrieval outputs.
4. OTLP/JSON lines: one `ExportTraceServiceRequest` per line, as the Collector's file exporter writes.
   The spans go through the OTLP/JSON decoder, the Assembler and span extraction exactly as live traffic
   does, so an offline figure for a recorded trace is the sidecar's figure for it. A trace must lie in
   one file; its example id is the trace id.

Blank lines in JSONL are skipped; every other line either becomes an example or stops the load with an
`InputError`, so nothing is lost without a word. The one exception is a recorded trace that is not RAG
(no retrieval, no generation): it is no example, and `load` lists it in `skipped` for the caller to
report. JSONL is read line by line and yielded as it goes; a whole-document JSON file is parsed in one
piece, and so is an OTLP file (a trace is only whole once every line has been read).

Fields a format does not know are carried along in `Example.extra`, except a near miss of a known name
(`context`, `anwser`, `groundTruth`): a typo that would leave a metric undefined without a word, so it is
an error naming the field meant. A record is in ragmon format when it has `contexts`, `answer` or
`relevant_ids`, whatever else it carries (a pipeline's own `steps` log, its raw `input`), and in trace
format when it has `steps`, `input`, `expectedDocs` or `output` and none of those. One that gives both
formats' content, or the other format's content than its file's first record, is an error: reading it
either way would drop half of it. Every trace step names a known kind.
"""

from __future__ import annotations

import difflib
import functools
import gzip
import itertools
import json
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from ragmon.errors import InputError
from ragmon.ids import content_id
from ragmon.model import Context, Example
from ragmon.otlp.decode import DecodeError, decode_json
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Assembler, Span

PathLike = str | os.PathLike[str]
FieldPath = tuple[str | int, ...]
_Parser = Callable[[dict[str, Any], str], Example]
_LineOf = Callable[[], int]
"""Where a record starts, worked out only when an error needs it (locating is slow in whole-JSON files)."""

_RAGMON_FIELDS = frozenset({"id", "question", "contexts", "answer", "relevant_ids", "citations",
                            "ground_truth", "category", "pipeline"})
_TRACE_FIELDS = frozenset({"id", "traceId", "trace_id", "input", "question", "output", "expectedDocs",
                           "steps", "citations", "ground_truth", "category", "pipeline"})
_EVALSET_FIELDS = frozenset({"id", "question", "ground_truth_answer", "expected_chunk_ids", "category"})
_RECORD_FIELDS = _RAGMON_FIELDS | _TRACE_FIELDS
"""What a ragmon or trace record is checked against for typos: the two are told apart record by record, so
a ragmon name misspelt in a trace record (or the reverse) is as much a typo."""
_CONTEXT_FIELDS = frozenset({"id", "text", "score", "pageContent", "metadata"})
_STEP_FIELDS = frozenset({"kind", "output"})
_RAGMON_CONTENT = ("contexts", "answer", "relevant_ids")
_TRACE_CONTENT = ("steps", "output", "expectedDocs")
_TRACE_MARKERS = (*_TRACE_CONTENT, "input")
_RETRIEVAL = "retrieval"
_LLM = "llm"
_STEP_KINDS = (_RETRIEVAL, _LLM, "embedding", "tool")
"""Retrieval and llm steps are read; embedding and tool steps carry no documents the model was given and
no answer, and live extraction ignores such spans too. Any other kind (a reranker, a misspelling) would be
ignored without a word, so it is refused."""
_TYPO_CUTOFF = 0.8
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-_\s]+")
_UNANSWERABLE_CATEGORIES = frozenset({"adversarial", "unanswerable"})
_INSUFFICIENT = "insufficient_context"
_QUESTION_KEYS = ("query", "question", "input")
_ANSWER_KEYS = ("answer", "output", "text", "content")
_DOC_ID_KEYS = ("id", "source", "doc_id")
_JSON_SPACE = " \t\n\r"
_OTLP_MARKER = "resourceSpans"
_GZIP_MAGIC = b"\x1f\x8b"


NOT_RAG = "not_rag"
"""The reason recorded in `skipped` for a recorded trace with no retrieval and no generation."""
Skipped = list[tuple[str, str]]


def load(paths: Iterable[PathLike], *, skipped: Skipped | None = None) -> Iterator[Example]:
    """Examples from every file in order; an id seen twice is an error because reports are keyed by id.

    Recorded traces that are not RAG are appended to `skipped` as (trace id, NOT_RAG)."""
    seen: dict[str, tuple[str, _LineOf]] = {}
    for path in paths:
        source = str(path)
        for example, line_of in _load_located(Path(path), [] if skipped is None else skipped):
            if example.id in seen:
                first_source, first_line = seen[example.id]
                raise InputError(f"duplicate example id {example.id!r} (first at "
                                 f"{first_source}:{first_line()})", source=source, line=line_of(), field="id")
            seen[example.id] = (source, line_of)
            yield example


class _FieldError(Exception):
    """A bad value inside one record; the caller knows the file and line and turns it into an InputError."""

    def __init__(self, message: str, path: FieldPath) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _load_located(path: Path, skipped: Skipped) -> Iterator[tuple[Example, _LineOf]]:
    source = str(path)
    try:
        handle = _open(path)
    except OSError as exc:
        raise InputError(f"cannot read dataset: {exc.strerror or exc}", source=source) from None
    try:
        with handle:
            yield from _records(handle, source, skipped)
    except (OSError, EOFError, zlib.error) as exc:  # a gzip stream that is cut short or corrupt
        raise InputError(f"cannot read dataset: {exc}", source=source) from None


def _open(path: Path) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip (by its magic number, whatever its name): large
    golden sets are kept compressed, and reading one as text gave only "not valid UTF-8"."""
    handle: BinaryIO = path.open("rb")
    if handle.read(2) == _GZIP_MAGIC:
        handle.close()
        return gzip.open(path, "rb")  # type: ignore[return-value]
    handle.seek(0)
    return handle


def _records(handle: BinaryIO, source: str, skipped: Skipped) -> Iterator[tuple[Example, _LineOf]]:
    lines = enumerate(handle, start=1)
    first = _next_record_line(lines)
    if first is None:
        raise InputError("contains no examples", source=source)
    number, raw = first
    try:
        obj = _json_line(raw)
    except ValueError as exc:
        second = _next_record_line(lines)
        if not _opens_array(raw) and second is not None and _is_json_object(second[1]):
            raise _json_error(exc, source, number) from None
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if isinstance(obj, list) or (isinstance(obj, dict) and _is_evalset(obj)):
        handle.seek(0)
        yield from _load_document(handle.read(), source)
        return
    if isinstance(obj, dict) and _OTLP_MARKER in obj:
        yield from _load_otlp(itertools.chain([first], lines), source, skipped)
        return
    parse = _record_parser(obj, source, number)
    yield _parse_line(parse, obj, source, number)
    for number, raw in lines:
        if raw.isspace():
            continue
        try:
            obj = _json_line(raw)
        except ValueError as exc:
            raise _json_error(exc, source, number) from None
        yield _parse_line(parse, obj, source, number)


def _next_record_line(lines: Iterator[tuple[int, bytes]]) -> tuple[int, bytes] | None:
    for number, raw in lines:
        if not raw.isspace():
            return number, raw
    return None


def _json_line(raw: bytes) -> Any:
    """One line's JSON value. Decoded strictly first: `json.loads` on bytes lets UTF-8-encoded surrogates
    through (it decodes with surrogatepass), and no report could then be written in UTF-8."""
    return json.loads(raw.decode("utf-8-sig"))


def _is_json_object(raw: bytes) -> bool:
    try:
        return isinstance(_json_line(raw), dict)
    except ValueError:
        return False


def _opens_array(raw: bytes) -> bool:
    """A first line starting with `[` opens a JSON array: a document, whatever its next line looks like."""
    return raw.lstrip(b"\xef\xbb\xbf" + _JSON_SPACE.encode()).startswith(b"[")


def _json_message(exc: json.JSONDecodeError) -> str:
    """json's message with its column; its "Unterminated string starting at" means the text ends inside
    a string, most often a line cut short, and names where the string began."""
    if exc.msg.startswith("Unterminated string"):
        return f"invalid JSON: the text ends inside a string that starts at column {exc.colno}"
    return f"invalid JSON at column {exc.colno}: {exc.msg}"


def _json_error(exc: ValueError, source: str, line: int) -> InputError:
    if isinstance(exc, json.JSONDecodeError):
        # Past the line's text, the parser has taken the newline too: its column would be on the next line.
        if exc.pos >= len(exc.doc.rstrip(_JSON_SPACE)):
            return InputError("invalid JSON: the line ends before the value is complete", source=source,
                              line=line)
        return InputError(_json_message(exc), source=source, line=line)
    reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
    return InputError(f"not valid UTF-8 text: {reason}", source=source, line=line)


def _parse_line(parse: _Parser, obj: Any, source: str, number: int) -> tuple[Example, _LineOf]:
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {_json_type(obj)}", source=source, line=number)
    try:
        return parse(obj, f"{source}:{number}"), _fixed(number)
    except _FieldError as exc:
        raise InputError(exc.message, source=source, line=number, field=_dotted(exc.path)) from None


def _record_parser(obj: Any, source: str, line: int) -> _Parser:
    """The format of a whole file follows from its first record."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {_json_type(obj)}", source=source, line=line)
    if _OTLP_MARKER in obj:
        raise InputError("OTLP/JSON must hold one ExportTraceServiceRequest per line, as the Collector's "
                         "file exporter writes it (reformat with `jq -c .`)", source=source, line=line)
    return _trace_example if _is_trace(obj) else _ragmon_example


def _load_otlp(lines: Iterable[tuple[int, bytes]], source: str,
               skipped: Skipped) -> Iterator[tuple[Example, _LineOf]]:
    """Format 4: every span into one Assembler, every trace decided at the end of the file (no clock:
    the file is all there is), then extraction. Unlike the sidecar's, this Assembler has no bounds: they
    protect a long-running service from an endless stream, and evicting or truncating a trace here would
    score it on part of its spans."""
    assembler = Assembler(max_traces=sys.maxsize, max_spans_per_trace=sys.maxsize)
    span_lines: dict[tuple[str, str], int] = {}
    for number, raw in lines:
        if raw.isspace():
            continue
        for span in _otlp_spans(raw, source, number):
            if assembler.add(span) == "accepted":  # else a duplicate (an exporter's retry): dropped as live
                span_lines[span.trace_id, span.span_id] = number
    if not span_lines:
        raise InputError("contains no spans", source=source)
    for decided in assembler.drain():
        trace = decided.trace
        try:
            example = extract(trace)
        except ExtractionError as exc:
            error = InputError(str(exc), source=source, line=span_lines[trace.trace_id, exc.span_id])
            error.field = exc.field  # as ExtractionError does: the message already names the attribute
            raise error from None
        if example is None:
            skipped.append((trace.trace_id, NOT_RAG))
            continue
        yield example, _fixed(span_lines[trace.trace_id, trace.spans[0].span_id])


def _fixed(line: int) -> _LineOf:
    return lambda: line


def _otlp_spans(raw: bytes, source: str, number: int) -> tuple[Span, ...]:
    """The spans of one line. A span with unusable ids stops the load, where the sidecar would take the
    rest of the batch and count it: a gate must not pass on a trace read without one of its spans (a
    lost retriever span changes the contexts and so every score), and a report has no counter for it."""
    try:
        obj = _json_line(raw)
    except ValueError as exc:
        raise _json_error(exc, source, number) from None
    if not isinstance(obj, dict) or _OTLP_MARKER not in obj:
        raise InputError(f"expected an OTLP/JSON ExportTraceServiceRequest (an object with "
                         f"{_OTLP_MARKER!r}) like the lines before it, got {_json_type(obj)}",
                         source=source, line=number)
    try:
        batch = decode_json(raw)
    except DecodeError as exc:
        raise InputError(str(exc), source=source, line=number) from None
    if batch.rejected:
        raise InputError(f"{batch.rejected} span(s) with unusable ids: {batch.rejection_message()}",
                         source=source, line=number)
    return batch.spans


def _is_trace(obj: Mapping[str, Any]) -> bool:
    if _given(obj, _RAGMON_CONTENT):
        return False
    return any(marker in obj for marker in _TRACE_MARKERS)


def _given(obj: Mapping[str, Any], fields: tuple[str, ...]) -> list[str]:
    """The content fields `obj` gives a value. An empty `steps` list says nothing; an empty `contexts` or
    `expectedDocs` does (nothing was retrieved, nothing is relevant)."""
    return [key for key in fields if obj.get(key) is not None and not (key == "steps" and obj[key] == [])]


def _check_format(obj: Mapping[str, Any], trace: bool) -> None:
    """A record read in one format must not hold the other's content: the reader would drop it."""
    ragmon, traced = _given(obj, _RAGMON_CONTENT), _given(obj, _TRACE_CONTENT)
    if ragmon and traced:
        raise _FieldError(f"mixes the ragmon format's {_listed(ragmon)} with the trace format's "
                          f"{_listed(traced)}: give each example in one format", ())
    other = ragmon if trace else traced
    if other:
        names = ("ragmon", "trace") if trace else ("trace", "ragmon")
        raise _FieldError(f"has the {names[0]} format's {_listed(other)} in a file whose first example is in "
                          f"the {names[1]} format: give every example of a file in one format", (other[0],))


def _check_names(obj: Mapping[str, Any], known: frozenset[str], base: FieldPath = ()) -> None:
    """Refuse a field that is a near miss of a known one the object lacks; any other field is the user's."""
    for key in obj:
        if key not in known:
            meant = _near_miss(key, tuple(sorted(name for name in known if name not in obj)))
            if meant is not None:
                raise _FieldError(f"unknown field {key!r}: did you mean {meant!r}?", (*base, key))


@functools.lru_cache(maxsize=1024)
def _near_miss(name: str, candidates: tuple[str, ...]) -> str | None:
    """The candidate `name` is most likely a misspelling of, or None. Cached: a file repeats its fields on
    every line.

    The same name with another case, `-`/`_` or a trailing "s" is one (`Context`, `groundtruth`,
    `answers`); so is a name as close as `difflib`'s 0.8 that has as many words (`anwser`, `relevant_id`,
    `stpes`). A known name with a word added (`question_id`, `pipeline_version`, `subcategory`) is a field
    of its own, as is anything near a name of under four letters (`idx`, `uid` are not `id`)."""
    spelling = _spelling(name)
    same = [known_name for known_name in candidates if _spelling(known_name) == spelling]
    if same:
        return same[0]
    words = len(_words(name))
    close = {known_name.lower(): known_name for known_name in candidates
             if len(known_name) >= 4 and len(_words(known_name)) == words
             and not (_spelling(known_name) in spelling and len(spelling) - len(_spelling(known_name)) >= 2)}
    found = difflib.get_close_matches(name.lower(), close, n=1, cutoff=_TYPO_CUTOFF)
    return close[found[0]] if found else None


def _spelling(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").removesuffix("s")


def _words(name: str) -> list[str]:
    return [word for word in _WORD_BREAK.split(name) if word]


def _listed(names: Iterable[str]) -> str:
    return ", ".join(repr(name) for name in names)


def _is_evalset(obj: Mapping[str, Any]) -> bool:
    return "corpus" in obj or isinstance(obj.get("examples"), list)


def _load_document(data: bytes, source: str) -> Iterator[tuple[Example, _LineOf]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 text: {exc.reason}", source=source, line=line) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        end = len(text.rstrip(_JSON_SPACE))
        if exc.pos >= end:  # the parser's position is past the last line with anything on it
            raise InputError("invalid JSON: the file ends before the value is complete", source=source,
                             line=text.count("\n", 0, end) + 1) from None
        raise InputError(_json_message(exc), source=source, line=exc.lineno) from None
    records: Iterator[tuple[FieldPath, Example]]
    try:
        if isinstance(doc, dict) and _is_evalset(doc):
            records = _evalset_examples(doc)
        elif isinstance(doc, dict):
            records = iter([((), _record_parser(doc, source, 1)(doc, source))])
        elif isinstance(doc, list):
            records = _array_examples(doc, source, text)
        else:
            raise _FieldError(f"expected a JSON object or array, got {_json_type(doc)}", ())
        for record_path, example in records:
            yield example, functools.partial(_line_of, text, record_path)
    except _FieldError as exc:
        raise InputError(exc.message, source=source, line=_line_of(text, exc.path),
                         field=_dotted(exc.path) or None) from None


def _array_examples(doc: list[Any], source: str, text: str) -> Iterator[tuple[FieldPath, Example]]:
    if not doc:
        raise InputError("contains no examples", source=source)
    parse = _record_parser(doc[0], source, _line_of(text, (0,)))
    for index, item in enumerate(doc):
        if not isinstance(item, dict):
            raise _FieldError(f"expected a JSON object, got {_json_type(item)}", (index,))
        try:
            yield (index,), parse(item, f"{source}[{index}]")
        except _FieldError as exc:
            raise _FieldError(exc.message, (index, *exc.path)) from None


def _ragmon_example(obj: dict[str, Any], default_id: str) -> Example:
    _check_names(obj, _RECORD_FIELDS)
    _check_format(obj, trace=False)
    return Example(
        id=_required_id(obj, "id"),
        question=_required_str(obj, "question"),
        contexts=_contexts(obj.get("contexts"), ("contexts",)),
        answer=_optional_str(obj, "answer"),
        relevant_ids=_optional_id_set(obj, "relevant_ids"),
        citations=_optional_id_tuple(obj, "citations"),
        ground_truth=_optional_str(obj, "ground_truth"),
        category=_optional_str(obj, "category"),
        pipeline=_optional_str(obj, "pipeline"),
        extra=_extra(obj, _RAGMON_FIELDS),
    )


def _trace_example(obj: dict[str, Any], default_id: str) -> Example:
    _check_names(obj, _RECORD_FIELDS)
    _check_format(obj, trace=True)
    steps = _steps(obj.get("steps"))
    answer = _text_value(obj, "output", _ANSWER_KEYS)
    if answer is None and "output" not in obj:
        answer = _last_llm_output(steps)
    trace_id = next((key for key in ("id", "traceId", "trace_id") if obj.get(key) is not None), None)
    return Example(
        id=_required_id(obj, trace_id) if trace_id else default_id,
        question=_trace_question(obj),
        contexts=_retrieved(steps),
        answer=answer,
        relevant_ids=_optional_id_set(obj, "expectedDocs"),
        citations=_optional_id_tuple(obj, "citations"),
        ground_truth=_optional_str(obj, "ground_truth"),
        category=_optional_str(obj, "category"),
        pipeline=_optional_str(obj, "pipeline"),
        extra=_extra(obj, _TRACE_FIELDS),
    )


def _trace_question(obj: Mapping[str, Any]) -> str:
    for key in ("input", "question"):
        if obj.get(key) is not None:
            question = _text_value(obj, key, _QUESTION_KEYS)
            if question is not None:
                return question
    raise _FieldError("missing question: expected 'input' or 'question'", ("input",))


def _text_value(obj: Mapping[str, Any], key: str, inner_keys: tuple[str, ...]) -> str | None:
    """A string, or the first string under one of `inner_keys` when tracers log a dict of inputs/outputs."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        for inner in inner_keys:
            if isinstance(value.get(inner), str):
                return value[inner]
    raise _FieldError(f"expected a string or an object with one of {list(inner_keys)}, "
                      f"got {_json_type(value)}", (key,))


def _steps(value: Any) -> list[dict[str, Any]]:
    """The steps, each an object of a known kind."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _FieldError(f"expected a list of steps, got {_json_type(value)}", ("steps",))
    for index, step in enumerate(value):
        path: FieldPath = ("steps", index)
        if not isinstance(step, dict):
            raise _FieldError(f"expected a step object, got {_json_type(step)}", path)
        _check_names(step, _STEP_FIELDS, path)
        _check_kind(step, path)
    return value


def _check_kind(step: Mapping[str, Any], path: FieldPath) -> None:
    kinds = f"one of {_listed(sorted(_STEP_KINDS))}"
    kind = step.get("kind")
    if kind is None:
        elsewhere = next((key for key, value in step.items()
                          if isinstance(value, str) and _near_miss(value, _STEP_KINDS) is not None), None)
        hint = f": did you mean 'kind' instead of {elsewhere!r}?" if elsewhere else ""
        raise _FieldError(f"missing step kind ({kinds}){hint}", (*path, "kind"))
    if kind not in _STEP_KINDS:
        meant = _near_miss(kind, _STEP_KINDS) if isinstance(kind, str) else None
        hint = f": did you mean {meant!r}?" if meant else ""
        raise _FieldError(f"unknown step kind {kind!r} ({kinds}){hint}", (*path, "kind"))


def _last_llm_output(steps: list[dict[str, Any]]) -> str | None:
    for step in reversed(steps):
        if step["kind"] == _LLM and isinstance(step.get("output"), str):
            return step["output"]
    return None


def _retrieved(steps: list[dict[str, Any]]) -> tuple[Context, ...] | None:
    """Contexts of every retrieval step in order, each document (id and text) once, as live extraction
    reads them: chunks of one file share its `source` as their id and are each something the model saw;
    None when no step says what it retrieved."""
    contexts: dict[tuple[str, str], Context] = {}
    known = False
    for index, step in enumerate(steps):
        if step["kind"] != _RETRIEVAL:
            continue
        found = _contexts(step.get("output"), ("steps", index, "output"))
        if found is None:  # the step recorded no output: unknown, not "retrieved nothing"
            continue
        known = True
        for context in found:
            contexts.setdefault((context.id, context.text), context)
    return tuple(contexts.values()) if known else None


def _evalset_examples(doc: dict[str, Any]) -> Iterator[tuple[FieldPath, Example]]:
    corpus = doc.get("corpus")
    corpus_ids: set[str] | None = None
    if corpus is not None:
        if not isinstance(corpus, list):
            raise _FieldError(f"expected a list of documents, got {_json_type(corpus)}", ("corpus",))
        corpus_ids = set()
        for index, item in enumerate(corpus):
            if not isinstance(item, dict):
                raise _FieldError(f"expected a document object, got {_json_type(item)}", ("corpus", index))
            corpus_ids.add(_required_id(item, "id", ("corpus", index)))
    examples = doc.get("examples")
    if not isinstance(examples, list):
        raise _FieldError(f"expected a list of examples, got {_json_type(examples)}", ("examples",))
    if not examples:
        raise _FieldError("contains no examples", ("examples",))
    for index, item in enumerate(examples):
        path: FieldPath = ("examples", index)
        if not isinstance(item, dict):
            raise _FieldError(f"expected an example object, got {_json_type(item)}", path)
        try:
            yield path, _evalset_example(item, corpus_ids)
        except _FieldError as exc:
            raise _FieldError(exc.message, (*path, *exc.path)) from None


def _evalset_example(item: dict[str, Any], corpus_ids: set[str] | None) -> Example:
    _check_names(item, _EVALSET_FIELDS)
    ground_truth = _optional_str(item, "ground_truth_answer")
    category = _optional_str(item, "category")
    relevant = _optional_id_tuple(item, "expected_chunk_ids")
    if corpus_ids is not None and relevant is not None:
        for index, doc_id in enumerate(relevant):
            if doc_id not in corpus_ids:
                raise _FieldError(f"chunk id {doc_id!r} is not in the corpus", ("expected_chunk_ids", index))
    unanswerable = category in _UNANSWERABLE_CATEGORIES or ground_truth == _INSUFFICIENT
    return Example(
        id=_required_id(item, "id"),
        question=_required_str(item, "question"),
        relevant_ids=frozenset() if unanswerable else (None if relevant is None else frozenset(relevant)),
        ground_truth=ground_truth,
        category=category,
        extra=_extra(item, _EVALSET_FIELDS),
    )


def _contexts(value: Any, path: FieldPath) -> tuple[Context, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _FieldError(f"expected a list of contexts, got {_json_type(value)}", path)
    return tuple(_context(item, (*path, index)) for index, item in enumerate(value))


def _context(item: Any, path: FieldPath) -> Context:
    """`{id, text, score}`, a plain string, or a LangChain document `{pageContent, metadata}`."""
    if isinstance(item, str):
        return Context(content_id(item), item)
    if not isinstance(item, dict):
        raise _FieldError(f"expected a context object or string, got {_json_type(item)}", path)
    _check_names(item, _CONTEXT_FIELDS, path)
    if "pageContent" in item:
        text = _required_str(item, "pageContent", path)
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise _FieldError(f"expected an object, got {_json_type(metadata)}", (*path, "metadata"))
        key = next((k for k in _DOC_ID_KEYS if metadata.get(k) is not None), None)
        doc_id = _required_id(metadata, key, (*path, "metadata")) if key else content_id(text)
    else:
        text = _required_str(item, "text", path)
        doc_id = _required_id(item, "id", path) if item.get("id") is not None else content_id(text)
    score = item.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise _FieldError(f"expected a number, got {_json_type(score)}", (*path, "score"))
    return Context(doc_id, text, score)


def _required_str(obj: Mapping[str, Any], key: str, base: FieldPath = ()) -> str:
    value = obj.get(key)
    if value is None:
        raise _FieldError(f"missing required field {key!r}", (*base, key))
    if not isinstance(value, str):
        raise _FieldError(f"expected a string, got {_json_type(value)}", (*base, key))
    return value


def _optional_str(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _FieldError(f"expected a string or null, got {_json_type(value)}", (key,))


def _required_id(obj: Mapping[str, Any], key: str, base: FieldPath = ()) -> str:
    value = obj.get(key)
    if value is None:
        raise _FieldError(f"missing required field {key!r}", (*base, key))
    return _as_id(value, (*base, key))


def _as_id(value: Any, path: FieldPath) -> str:
    """Ids are strings; whole numbers are accepted and read as their decimal text."""
    if isinstance(value, str):
        if not value:
            raise _FieldError("expected a non-empty id", path)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise _FieldError(f"expected an id (string or whole number), got {_json_type(value)}", path)


def _optional_id_tuple(obj: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise _FieldError(f"expected a list of ids, got {_json_type(value)}", (key,))
    return tuple(_listed_id(item, (key, index)) for index, item in enumerate(value))


def _listed_id(item: Any, path: FieldPath) -> str:
    """A bare id, or a document object naming its id the way retrievers do (`id`, `source`, `doc_id`)."""
    if isinstance(item, dict):
        key = next((k for k in _DOC_ID_KEYS if item.get(k) is not None), None)
        if key is None:
            raise _FieldError(f"document object has none of {list(_DOC_ID_KEYS)}", path)
        return _as_id(item[key], (*path, key))
    return _as_id(item, path)


def _optional_id_set(obj: Mapping[str, Any], key: str) -> frozenset[str] | None:
    ids = _optional_id_tuple(obj, key)
    return None if ids is None else frozenset(ids)


def _extra(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in obj.items() if key not in known}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _dotted(path: FieldPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _line_of(text: str, path: FieldPath) -> int:
    """The line where the value at `path` starts, or where its deepest existing parent does."""
    return text.count("\n", 0, _locate(text, path)) + 1


def _locate(text: str, path: FieldPath) -> int:
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    for step in path:
        child = _child_offset(text, position, step, decoder)
        if child is None:
            break
        position = child
    return position


def _child_offset(text: str, position: int, step: str | int, decoder: json.JSONDecoder) -> int | None:
    """Walk one level into the JSON value at `position` without building it; only used on errors."""
    opening = text[position:position + 1]
    if (opening, isinstance(step, int)) not in (("{", False), ("[", True)):
        return None
    closing = "}" if opening == "{" else "]"
    index = 0
    position = _skip_space(text, position + 1)
    while position < len(text) and text[position] != closing:
        if opening == "{":
            key, position = decoder.raw_decode(text, position)
            position = _skip_space(text, _skip_space(text, position) + 1)
            if key == step:
                return position
        elif index == step:
            return position
        _, position = decoder.raw_decode(text, position)
        index += 1
        position = _skip_space(text, position)
        if text[position:position + 1] == ",":
            position = _skip_space(text, position + 1)
    return None


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in _JSON_SPACE:
        position += 1
    return position

