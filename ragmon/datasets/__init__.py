"""Golden datasets for `ragmon replay`, read into `Example`s with errors that point at file, line and field.

The format is detected per file from its first record:

1. ragmon JSONL: one example per line (`id`, `question`, optional `contexts`, `answer`, `relevant_ids`,
   `citations`, `ground_truth`, `category`, `pipeline`, and ragas's `retrieved_context_ids` naming
   plain-string contexts in order); any other field lands in `Example.extra`.
2. eval-set JSON: `{"corpus": [...], "examples": [...]}`, questions without answers.
3. trace JSON or JSONL: `input|question`, `output`, `expectedDocs`, `steps` with retrieval outputs; an
   `input` or `output` a tracer logged as an object gives its question, answer and contexts under a
   chain's names (`query`, `result`, `source_documents`), and its other keys stay in `Example.extra`.
4. OTLP/JSON lines: one `ExportTraceServiceRequest` per line, as the Collector's file exporter writes
   (its keys in lowerCamelCase) or protobuf's `MessageToJson(preserving_proto_field_name=True)` does.
   The spans go through the OTLP/JSON decoder, the Assembler and span extraction exactly as live traffic
   does, so an offline figure for a recorded trace is the sidecar's figure for it. One assembly takes the
   spans of every OTLP file given, so a trace may lie in several (a Collector's rotated files); its
   example id is the trace id.

Blank lines in JSONL are skipped; every other line either becomes an example or stops the load with an
`InputError`, so nothing is lost without a word. The one exception is a recorded trace that is not RAG
(no retrieval, no generation): it is no example, and `load` lists it in `skipped` for the caller to
report. JSONL is read line by line and yielded as it goes; a whole-document JSON file is parsed in one
piece, and OTLP files are yielded after every other (a trace is only whole once every file has been read).

Fields a format does not know are carried along in `Example.extra`, except a near miss of a known name
(`context`, `anwser`, `groundTruth`, or a capture's `needsReview`, which `ragmon replay` reads from
`extra`) or another tool's name for one the record lacks (`retrieved_contexts`,
or `documents` holding a list of texts): left unread, it would leave a metric undefined without a word, so
it is an error naming the field meant. So are contexts or an answer in an eval set's example, which that
format does not read. A record is in ragmon format when it has `contexts`, `answer` or `relevant_ids`,
whatever else it carries (a pipeline's own `steps` log, its raw `input`), and in trace format when it has
`steps`, `input`, `expectedDocs` or `output` and none of those. One that gives both
formats' content, or the other format's content than its file's first record, is an error: reading it
either way would drop half of it. Every trace step names a known kind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import PurePath

from ragmon.datasets.locate import LineOf
from ragmon.datasets.otlp_lines import NOT_RAG, Recording, Skipped
from ragmon.datasets.reader import load_located
from ragmon.errors import InputError
from ragmon.jsontext import replace_lone_surrogates
from ragmon.model import Example
from ragmon.options import input_name, is_stdin, stdin_bytes

__all__ = ["NOT_RAG", "PathLike", "Skipped", "check_each_named_once", "check_not_one_path", "load", "located"]

PathLike = str | os.PathLike[str]


def load(paths: Iterable[PathLike], *, skipped: Skipped | None = None) -> Iterator[Example]:
    """Examples from every file in order; an id seen twice is an error because reports are keyed by id.
    A path that is the string `-` is standard input (ragmon.options.STDIN).

    Recorded traces that are not RAG are appended to `skipped` as (trace id, NOT_RAG), and those scored
    with some of their requests left unscored as (trace id, why)."""
    for example, _, _ in located(paths, skipped=skipped):
        yield example


def check_not_one_path(paths: object) -> None:
    """One path given bare is a TypeError: a string is a sequence of one-character paths, and
    "golden.jsonl" had been read as the files "g", "o", ..., the error naming a file "g" never given."""
    if isinstance(paths, str | bytes | PurePath):
        raise TypeError(f"paths must be a list of paths, got one {type(paths).__name__}: pass [{paths!r}]")


def located(paths: Iterable[PathLike], *, skipped: Skipped | None = None,
            ) -> Iterator[tuple[Example, str, LineOf]]:
    """`load`'s examples, each with its file as errors name it and its line: a caller checking more of a
    record (calibrate, its labels) names where it is as the loader's own errors do. The examples of
    OTLP/JSON lines come last, once every file has been read: a trace may lie in several files."""
    check_not_one_path(paths)
    paths = list(paths)
    check_each_named_once(paths)
    seen: dict[str, tuple[str, LineOf, str]] = {}
    recording = Recording()
    for path in paths:
        source = input_name(path)
        for example, line_of in load_located(path, recording):
            _check_unique(seen, example, source, line_of)
            yield example, source, line_of
    for example, source, line_of in recording.examples([] if skipped is None else skipped):
        _check_unique(seen, example, source, line_of)
        yield example, source, line_of


def _check_unique(seen: dict[str, tuple[str, LineOf, str]], example: Example, source: str,
                  line_of: LineOf) -> None:
    """Keyed as the JSON report writes ids: two that differ only in half an emoji (a lone surrogate,
    written as U+FFFD) would be one id there, and that report refused as the next baseline."""
    key = replace_lone_surrogates(example.id)
    if key in seen:
        first_source, first_line, first_id = seen[key]
        alike = "" if first_id == example.id else (
            f", the same as {first_id!r} once each lone surrogate is U+FFFD, as reports write it")
        raise InputError(f"duplicate example id {example.id!r} (first at "
                         f"{first_source}:{first_line()}{alike})", source=source, line=line_of(),
                         field="id")
    seen[key] = (source, line_of, example.id)


def check_each_named_once(paths: Iterable[PathLike]) -> None:
    """Before anything is read: a file named twice (`g.jsonl g.jsonl`, `g.jsonl ./g.jsonl`, a link to it,
    or `-` and the file standard input comes from) was read twice and refused for its first example,
    "duplicate example id 'ex1' (first at g.jsonl:1)", which blamed the data for the command line; a pipe
    named twice (`-` and `/dev/stdin`) was empty the second time, "contains no examples"."""
    seen: dict[tuple[int, int], PathLike] = {}
    for path in paths:
        key = _file_of(path)
        if key is None:
            continue
        if key in seen:
            first, again = input_name(seen[key]), input_name(path)
            named = (f"{first} is named twice" if first == again else
                     f"{first} and {again} are the same file, named twice")
            raise InputError(f"{named} among the datasets: give each dataset once")
        seen[key] = path


def _file_of(path: PathLike) -> tuple[int, int] | None:
    """What reading `path` reads, by device and inode, whichever name it is given by; a pipe too, which
    two names of can only be read once. None when it cannot be told: a missing file, which opening it
    reports, or standard input closed or no file descriptor (replaced in-process)."""
    try:
        status = os.fstat(stdin_bytes().fileno()) if is_stdin(path) else os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino
