"""`ragmon calibrate`: how well each judge agrees with human sentence labels, and what it costs.

Input is any dataset `ragmon.datasets` reads whose examples carry `labels: {"hallucinated": bool,
"spans": [{"start": int, "end": int}, ...]}`, the spans being character ranges of the answer that
humans judged unsupported (code points, as Python counts; a span's `text`, when given, is checked against
them: `_text_mismatch`). The answer is split into claims exactly as scoring splits it; a claim counts
as labelled unsupported when a span overlaps it by a non-whitespace character (`match_claims`, shared with
benchmarks/judge_accuracy.py). Per judge it reports, with "unsupported" / "hallucinated" as the positive
class: sentence-level precision, recall, F1 and accuracy (agreement with the labels), the same at
response level (a response is hallucinated when any claim is unsupported), and latency and cost per
example. Spans that fall on no claim (a lead-in, an abstention) count only at response level. Examples
whose verdicts all came from the Claude judge's cache (`--cache-dir`, a second run), and those that needed
no judge, are counted apart and left out of latency, tokens and cost per example: those figures are for
sizing a budget, and an example judged without a call costs nothing and takes no time, which live traffic,
mostly new answers, would not.

A judge that failed on every example it had to judge (`--judge-errors=skip`) has no figures: the examples
that needed none are no verdict of its own, and counted alone they gave a judge whose every call failed
precision and recall 1.000. The run then exits 2, and its `--json` report says it is incomplete and why, as
does the one a run leaves that stopped for any other reason (an error, a refused command line, a signal):
the previous run's figures are never left behind at that path, as `ragmon replay` leaves no report either.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import itertools
import json
import os
import re
import stat
import sys
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, SupportsIndex, TypeGuard, TypeVar, cast

from ragmon import __version__, datasets
from ragmon.budget import Prices
from ragmon.cli import (
    Stopped,
    note,
    parse_known,
    print_beside,
    result_final,
    stop_status,
    stopped_by,
    terminated_on_signal,
    unfinished,
)
from ragmon.datasets.fields import json_type
from ragmon.datasets.locate import LineOf
from ragmon.errors import InputError, RagmonError, inert, json_escape, printable
from ragmon.evaluation import (
    Progress,
    Unreachable,
    awaited,
    check_concurrency,
    check_progress,
    checked,
    example_claims,
    in_order_until_judge_error,
    judge_identity,
    report_progress,
    spent,
    verdicts_without_judge,
)
from ragmon.files import (
    Unwritten,
    check_not_directory,
    existing_file,
    file_at,
    holds_one_report,
    input_file,
    unwritable,
    write_report,
)
from ragmon.jsontext import replace_lone_surrogates
from ragmon.judges.base import AsyncJudge, Judge, JudgeError
from ragmon.judges.lexical import DEFAULT_THRESHOLD, LexicalJudge
from ragmon.judges.lexical import add_cli_arguments as add_lexical_arguments
from ragmon.model import Claim, ClaimVerdict, Example
from ragmon.names import near_miss
from ragmon.options import (
    check_judge_flags,
    check_stdin_read_once,
    dataset_name,
    flag_of,
    given_path,
    input_name,
    long_options,
    report_file,
    typed_among,
)
from ragmon.progress import Progress as ProgressLine
from ragmon.report.text import clip

JUDGES = ("lexical", "claude")
T = TypeVar("T")

LabelSpan = tuple[int, int]
"""[start, end) character offsets into the answer."""


def match_claims(answer: str, claims: Sequence[Claim], spans: Iterable[LabelSpan]) -> list[bool]:
    """For each claim, whether some labelled span overlaps it by at least one non-whitespace character:
    a span over the space between two words marks no word, like an empty span."""
    spans = tuple(spans)
    return [any(_overlap(answer, c, start, end).strip() for start, end in spans) for c in claims]


def _worded(text: str) -> bool:
    """Whether `text` holds a letter or a digit, not punctuation and white space alone."""
    return any(char.isalnum() for char in text)


def _overlap(answer: str, claim: Claim, start: int, end: int) -> str:
    """The answer's characters of the claim inside [start, end); empty when the two do not meet. The
    answer's, not the claim's text: a claim citing a document is judged without the citation
    (`ragmon.text.cited_ids`), and its text is then shorter than the sentence it marks."""
    low, high = max(claim.start, start), min(claim.end, end)
    return answer[low:high] if low < high else ""


@dataclass(frozen=True, slots=True)
class Labelled:
    """One labelled example, split into claims, with the human verdict per claim and per response."""

    example: Example
    claims: tuple[Claim, ...]
    unsupported: tuple[bool, ...]
    hallucinated: bool
    warnings: tuple[str, ...] = ()
    """Labels that count as documented but were likelier meant otherwise (`_label_warnings`)."""


def labelled(example: Example, source: str, line_of: LineOf | None = None) -> Labelled:
    """Check and read `example.extra["labels"]`; an error names the file, the line (when `line_of` says it,
    as every other error in a dataset does), the example and the field."""

    def bad(message: str, field: str) -> InputError:
        return InputError(f"example {example.id!r}: {message}", source=source,
                          line=None if line_of is None else line_of(), field=field)

    labels = example.extra.get("labels")
    if labels is None:
        raise bad("no labels object (calibration needs human labels on every example)", "labels")
    if not isinstance(labels, Mapping):
        raise bad(f'must be an object {{"hallucinated": true or false, "spans": [...]}}, got '
                  f"{json_type(labels)}", "labels")
    for key in labels:
        meant = None if key in _LABEL_KEYS else near_miss(key, _LABEL_KEYS)
        if meant is not None and meant not in labels:
            # Read as absent, "span" had dropped every span: the sentences people marked counted as supported.
            raise bad(f"unknown field {key!r}: ragmon reads this as {meant!r}, rename it", f"labels.{key}")
    if not isinstance(labels.get("hallucinated"), bool):
        raise bad("must be true or false", "labels.hallucinated")
    raw_spans = labels.get("spans", [])
    if not isinstance(raw_spans, list):
        raise bad("must be a list of {start, end}", "labels.spans")
    answer = example.answer
    if answer is None:
        raise bad("labelled example has no answer to label", "answer")
    if example.contexts is None:
        raise bad("labelled example has no contexts (use [] if retrieval returned nothing): a judge "
                  "cannot decide support without them", "contexts")
    spans = _spans(answer, raw_spans, bad)
    claims = example_claims(example)
    unsupported = tuple(match_claims(answer, claims, spans))
    warnings = _label_warnings(f"example {example.id!r}", answer, claims, spans, unsupported,
                               labels["hallucinated"])
    return Labelled(example, claims, unsupported, labels["hallucinated"], warnings)


_LABEL_KEYS = ("hallucinated", "spans")


def _spans(answer: str, raw_spans: Sequence[Any], bad: Callable[[str, str], InputError]) -> list[LabelSpan]:
    """Each span's offsets, checked against the text it gives, when it gives one (SALAD's spans do)."""
    spans: list[LabelSpan] = []
    for i, span in enumerate(raw_spans):
        if not isinstance(span, Mapping):
            raise bad(f"must be an object {{start, end}}, got {json_type(span)}", f"labels.spans[{i}]")
        start, end = (_offset_of(span, key, f"labels.spans[{i}]", bad) for key in ("start", "end"))
        if start > end:
            raise bad(f"start {start} is after end {end}", f"labels.spans[{i}]")
        # Before the answer's length: offsets in UTF-16 units or bytes may run past it, and the text says why.
        text = span.get("text")  # null, as elsewhere in a dataset, is not given
        if text is not None and not isinstance(text, str):
            raise bad(f"text must be the string the span marks, got {json_type(text)}",
                      f"labels.spans[{i}].text")
        if text is not None and (why := _text_mismatch(answer, start, end, text)):
            raise bad(why, f"labels.spans[{i}]")
        if end > len(answer):
            raise bad(f"end {end} is past the answer's {len(answer)} characters (offsets count characters, "
                      "code points: an emoji is one)", f"labels.spans[{i}].end")
        spans.append((start, end))
    return spans


def _offset_of(span: Mapping[str, Any], key: str, field: str, bad: Callable[[str, str], InputError]) -> int:
    """The span's `key`, checked to be an offset into the answer."""
    value = span.get(key)
    if not _offset(value):
        raise bad(f"{key} must be a whole number of characters from 0, got {_given(value)}", f"{field}.{key}")
    return value


def _offset(value: object) -> TypeGuard[int]:
    """An offset into the answer: JSON's true is an int to Python, and no offset."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _given(value: object) -> str:
    """A bad offset as the file wrote it, or what it is when it is no number: a labeller with thousands of
    spans finds "-1" or "12.0" in the file, where "needs an integer" left them to look for it."""
    if value is None:
        return "nothing (missing or null)"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    return json_type(value)


OFFSET_UNITS = (("UTF-16 code units (as JavaScript and Java count a string)", "utf-16-le", 2),
                ("UTF-8 bytes", "utf-8", 1))
"""Units other than characters that labelling tools count offsets in: (unit, encoding, bytes a unit)."""


def _text_mismatch(answer: str, start: int, end: int, text: str) -> str | None:
    """Why a span's `text` is not the answer's text at its offsets; None when it is, as `_same_text` compares.
    Offsets count characters, as Python does (an emoji is one): offsets a tool counted in UTF-16 code
    units or UTF-8 bytes land one unit further per emoji before the span, and had silently labelled the
    wrong words, or the next sentence; the unit is named when the text is there in it, with the
    characters meant. A span past the answer's end that no unit explains is the caller's error to give
    (a label made on another version of the answer): quoting characters past the end as "" told of text
    that is not there."""
    if _same_text(answer[start:end], text):
        return None
    for unit, encoding, width in OFFSET_UNITS:
        encoded = answer.encode(encoding, "surrogatepass")
        before, marked = (encoded[:start * width].decode(encoding, "replace"),
                          encoded[start * width:end * width].decode(encoding, "replace"))
        if _same_text(marked, text):
            return (f'start {start} and end {end} count {unit}: its text "{clip(text, QUOTED)}" is '
                    f"characters {len(before)}-{len(before) + len(marked)}, and offsets count characters "
                    "(code points, as Python does: an emoji is one)")
    if end > len(answer):
        return None
    there, given = (unicodedata.normalize("NFC", s) for s in (answer[start:end], text))
    differ = _first_difference(_comparable(there), _comparable(given))
    return (f'characters {start}-{end} of the answer are "{_quoted_around(there, differ)}", not its text '
            f'"{_quoted_around(given, differ)}" (offsets count characters, code points: an emoji is one)')


def _same_text(marked: str, text: str) -> bool:
    """Whether a span's `text` is what its offsets mark, in the form a labelling tool may have rewritten:
    copied text loses or gains white space (a double space, CRLF for LF) and an editor may store accents
    decomposed (NFD), while the offsets still count the answer's own characters; white space at either
    end marks no claim (`match_claims`)."""
    return _comparable(marked) == _comparable(text)


def _comparable(text: str) -> str:
    """`text` in NFC, with each run of white space one space, and none at either end."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _first_difference(one: str, other: str) -> int:
    """Where two strings first differ; the shorter one's length when it begins the other."""
    return next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
                min(len(one), len(other)))


def _in_original(text: str, index: int) -> int:
    """Where in `text` (in NFC) the character at `index` of `_comparable(text)` is (or the white space it
    stands for); past its end, the end of its last word."""
    seen = 0
    for word in re.finditer(r"\S+", text):
        if index <= seen + len(word[0]):
            return word.start() + index - seen
        seen += len(word[0]) + 1
    return len(text.rstrip())


def _quoted_around(text: str, differ: int) -> str:
    """`text` (in NFC) quoted for a span whose text is not the answer's, around where the two first differ,
    `differ` counting as `_comparable` does; escaped (`printable`: a tab, a line end show as written), at
    most QUOTED of its characters. Cut from the start and with white space collapsed, as a label warning
    quotes a sentence, a difference past the cut or in white space showed the same words twice."""
    if len(text) <= QUOTED:
        return printable(text)
    first = max(0, min(_in_original(text, differ) - QUOTED // 3, len(text) - QUOTED))
    last = first + QUOTED
    return f"{'…' * (first > 0)}{printable(text[first:last])}{'…' * (last < len(text))}"


QUOTED = 60
"""Characters of a sentence quoted in a label warning, or in the error for a span whose text is not there."""
WARNINGS_SHOWN = 10
"""Label warnings printed, and examples each judge skipped; the rest are counted: a file labelled with one
systematic slip would bury the figures under one line per example."""


def _label_warnings(named: str, answer: str, claims: Sequence[Claim], spans: Sequence[LabelSpan],
                    unsupported: Sequence[bool], hallucinated: bool) -> tuple[str, ...]:
    """Labels counted as the README says, though the labeller likelier meant something else; what counts is
    unchanged (a rule guessing intent would move figures silently), so the user is told instead:
    - a span marking a claim by punctuation alone ("." only, as a span that starts one character early
      on the sentence before does), which still marks it unsupported, unless another span marks it by a
      word (a sentence labelled whole, and a span overlapping it by its "." too);
    - a span over text but no claim ("I don't know." is none), or over nothing but white space, which
      counts at response level only;
    - `hallucinated: false` beside spans marking claims unsupported: the response figures use the one,
      the sentence figures the other;
    - `hallucinated: true` with no span at all on an answer with claims (a file labelled per response
      only): the sentence figures count every claim as supported, so a judge flagging the made-up one
      is scored a false alarm."""
    found = []
    # A claim another span marks by a word is labelled as meant, whatever punctuation this one takes.
    by_word = {c for c in claims for start, end in spans if _worded(_overlap(answer, c, start, end))}
    for i, (start, end) in enumerate(spans):
        overlaps = [(c, text) for c in claims if (text := _overlap(answer, c, start, end).strip())]
        for claim, text in overlaps:
            if claim not in by_word:
                found.append(f'{named}: labels.spans[{i}] marks the claim "{clip(claim.text, QUOTED)}" by '
                             f'"{text}" alone, and it counts as labelled unsupported')
        if not overlaps and (marked := answer[start:end].strip()):
            found.append(f'{named}: labels.spans[{i}] marks "{clip(marked, QUOTED)}", which is no claim '
                         "(ragmon does not check it), so it counts at response level only")
        elif not overlaps:  # an off-by-some span between two sentences: likelier meant one of them
            what = "nothing" if start == end else "white space alone"
            found.append(f"{named}: labels.spans[{i}] ({start}-{end}) marks {what}, so it labels no "
                         "sentence and counts at response level only")
    if not hallucinated and any(unsupported):
        count = f"{sum(unsupported)} of its {len(claims)} claim{'s' * (len(claims) != 1)}"
        found.append(f"{named}: labels.hallucinated is false, yet labels.spans mark {count} unsupported: "
                     "the response figures count it as not hallucinated")
    if hallucinated and claims and not spans:
        every = "its one claim" if len(claims) == 1 else f"all {len(claims)} of its claims"
        found.append(f"{named}: labels.hallucinated is true, yet labels.spans mark no claim unsupported: the "
                     f"sentence figures count {every} as supported")
    return tuple(found)


def load_labelled(paths: Sequence[str | Path]) -> list[Labelled]:
    """`-` is standard input (ragmon.options.STDIN)."""
    datasets.check_not_one_path(paths)
    check_stdin_read_once(paths, "the datasets")
    return [labelled(example, source, line_of) for example, source, line_of in datasets.located(paths)]


@dataclass(frozen=True, slots=True)
class Confusion:
    """Counts for a binary decision whose positive class is "unsupported" (or "hallucinated")."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @classmethod
    def of(cls, predicted: Iterable[bool], actual: Iterable[bool]) -> Confusion:
        pairs = list(zip(predicted, actual, strict=True))
        return cls(sum(p and a for p, a in pairs), sum(p and not a for p, a in pairs),
                   sum(a and not p for p, a in pairs), sum(not p and not a for p, a in pairs))

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else None

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    def as_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn, "precision": self.precision,
                "recall": self.recall, "f1": self.f1, "accuracy": self.accuracy}


@dataclass(frozen=True, slots=True)
class Calibration:
    """One judge against the labels. Latency is judge time per scored example (calls overlap when run
    concurrently, so the run itself is shorter); cost needs prices, tokens need a judge that reports them.
    Examples judged without a call (`cached`, `free`) are left out of `seconds` and of the examples the
    per-example figures divide by, so that those describe real calls."""

    judge: str
    settings: Mapping[str, Any]
    sentence: Confusion
    response: Confusion
    examples: int
    skipped: tuple[tuple[str, str], ...]
    seconds: float
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    unbilled: int = 0
    """Examples with an attempt whose bill nobody reported (timed out, cut off, an unreadable reply): the
    API may have billed it, so tokens and cost are at least what they say."""
    predicted: tuple[tuple[bool, ...] | None, ...] = ()
    """Per labelled example, in the order judged: whether each claim was found unsupported, None for one
    skipped. Judges that skipped different examples are compared on the ones all measured (`common`)."""
    cached: int = 0
    """Examples measured whose every verdict came from the judge's cache: no call was made for them."""
    free: int = 0
    """Examples that needed no judge (no claim, or nothing retrieved: `verdicts_without_judge`): measured,
    unless the judge failed on every other (`failed`). Counted either way, as the error for that run says
    how many it was not measured on: the report had said 0 there, and the table nothing."""

    @property
    def failed(self) -> bool:
        """The judge failed on every example it had to judge, so it measured none: not even those that
        needed no judge, which are no verdict of its own (`_calibration`)."""
        return bool(self.skipped) and not self.examples

    @property
    def called(self) -> int:
        """Examples measured whose verdicts a call gave (some from the cache, for a long answer)."""
        return 0 if self.failed else self.examples - self.cached - self.free

    def per_example(self, total: float | None) -> float | None:
        """`total` over the examples a call judged: every call made counts (a skipped example's too), over
        the examples those calls stand for. None when there is none."""
        return None if total is None or not self.called else total / self.called

    def as_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "settings": dict(self.settings), "examples": self.examples,
                "skipped": [{"id": i, "reason": r} for i, r in self.skipped],
                "sentence": self.sentence.as_dict(), "response": self.response.as_dict(),
                "latency_seconds_per_example": self.per_example(self.seconds),
                "input_tokens_per_example": self.per_example(self.input_tokens),
                "output_tokens_per_example": self.per_example(self.output_tokens),
                "cost_usd_per_example": self.per_example(self.cost_usd),
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost_usd,
                "examples_with_unknown_bills": self.unbilled,
                "examples_from_cache": self.cached, "examples_needing_no_judge": self.free}


@dataclass(frozen=True, slots=True)
class _Judged:
    item: Labelled
    verdicts: Iterable[ClaimVerdict] | None
    error: str | None
    seconds: float
    tokens: tuple[int, int] | None
    unbilled: bool = False
    """Some attempt may have been billed for an amount nobody reported."""
    cached: bool = False
    """Every verdict came from the judge's cache (`Usage.calls` 0): no call was made, none timed."""
    free: bool = False
    """No judge was asked (`verdicts_without_judge`)."""


def _judge_sync(judge: Judge, item: Labelled, skip_errors: bool, unreachable: Unreachable) -> _Judged:
    """`unreachable` tells, under `skip_errors`, when to stop calling a judge that was not reached, as
    `evaluate` does: each example had waited its own timeouts, to be skipped all the same."""
    started = time.perf_counter()
    verdicts: Iterable[ClaimVerdict] | None = verdicts_without_judge(item.example, item.claims)
    if verdicts is not None:
        return _Judged(item, verdicts, None, time.perf_counter() - started, None, free=True)
    if (why := unreachable.reason(item.example)) is not None:
        return _Judged(item, None, why, 0.0, None)
    try:
        verdicts = spent(judge.judge(item.example, item.claims))
    except JudgeError as exc:
        if not skip_errors:
            raise
        unreachable.failed(exc)
        return _Judged(item, None, str(exc), time.perf_counter() - started, None)
    unreachable.answered()
    return _Judged(item, verdicts, None, time.perf_counter() - started, None)


async def _judge_async(judge: Any, item: Labelled, skip_errors: bool, unreachable: Unreachable) -> _Judged:
    """With billed tokens from a judge with `ajudge_with_usage` (the Claude judge); from one with a plain
    `ajudge`, tokens unknown. `unreachable` as for `_judge_sync`: an example not called was billed nothing."""
    metered = hasattr(judge, "ajudge_with_usage")
    started = time.perf_counter()
    verdicts = verdicts_without_judge(item.example, item.claims)
    if verdicts is not None:
        return _Judged(item, verdicts, None, time.perf_counter() - started, (0, 0), free=True)
    if (why := unreachable.reason(item.example)) is not None:
        return _Judged(item, None, why, 0.0, (0, 0) if metered else None)
    try:
        if not metered:
            verdicts = spent(await awaited(judge, judge.ajudge(item.example, item.claims)))
            unreachable.answered()
            return _Judged(item, verdicts, None, time.perf_counter() - started, None)
        verdicts, usage = await judge.ajudge_with_usage(item.example, item.claims)
    except JudgeError as exc:
        if not skip_errors:
            raise
        unreachable.failed(exc)
        if not metered:  # no bill to read
            return _Judged(item, None, str(exc), time.perf_counter() - started, None)
        billed = getattr(exc, "usage", None)
        tokens = (billed.input_tokens, billed.output_tokens) if billed else (0, 0)
        return _Judged(item, None, str(exc), time.perf_counter() - started, tokens,
                       billed is None or billed.unanswered > 0)
    unreachable.answered()
    return _Judged(item, verdicts, None, time.perf_counter() - started,
                   (usage.input_tokens, usage.output_tokens), usage.unanswered > 0,
                   cached=usage.calls == 0)


def _verified(judge: Judge | AsyncJudge, judged: _Judged, skip_errors: bool) -> _Judged:
    """Verdicts one per claim in order, or an error: the labels are compared position by position, so a
    short or reordered reply would score every later label against another claim's verdict. Checked
    after judging so that what a reply cost stays counted."""
    if judged.verdicts is None:
        return judged
    try:
        verdicts = checked(judge, judged.item.example, judged.item.claims, judged.verdicts)
    except JudgeError as exc:
        if not skip_errors:
            raise
        return replace(judged, verdicts=None, error=str(exc))
    return replace(judged, verdicts=verdicts)  # as checked: a generator spent, ids never retrieved dropped


def calibrate(judge: Judge | AsyncJudge, items: Sequence[Labelled], *, skip_errors: bool = False,
              concurrency: SupportsIndex = 4, prices: Prices | None = None,
              progress: Progress | None = None) -> Calibration:
    """Judge every item and compare with the labels, calling `progress(done, total)` after each item if
    given. The first judge error stops the run (JudgeError, exit 2) unless `skip_errors`, which leaves the
    example out of this judge's figures and lists it.

    A judge with a blocking `judge` is called in turn. One awaited (the Claude judge, or a judge of one's
    own with the coroutine `ajudge` only) is run `concurrency` at once in an event loop of calibrate's
    own, and closed after; where a loop already runs (a notebook) that cannot be, so it says to await
    `acalibrate`, which runs in the caller's loop."""
    asynchronous = (hasattr(judge, "ajudge_with_usage")  # the Claude judge: concurrent, and billing tokens
                    or (hasattr(judge, "ajudge") and not hasattr(judge, "judge")))
    name, settings = judge_identity(judge, "ajudge" if asynchronous else "judge")
    workers = _checked_arguments(items, skip_errors, concurrency, prices, progress)
    # The casts are what judge_identity has just checked.
    if not asynchronous:
        unreachable = Unreachable()
        judged = []
        for done, item in enumerate(items, 1):
            judged.append(_judge_sync(cast(Judge, judge), item, skip_errors, unreachable))
            if progress is not None:
                report_progress(progress, done, len(items))
        return _calibration(judge, name, settings, items, judged, skip_errors, prices)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_closed_after(judge, _acalibrate(cast(AsyncJudge, judge), name, settings, items,
                                                             skip_errors, workers, prices, progress)))
    raise RuntimeError(f"calibrate() runs the {name!r} judge in an event loop of its own, and one is "
                       "running here (a notebook's): await ragmon.calibrate.acalibrate(judge, items) instead")


async def acalibrate(judge: AsyncJudge, items: Sequence[Labelled], *, skip_errors: bool = False,
                     concurrency: SupportsIndex = 4, prices: Prices | None = None,
                     progress: Progress | None = None) -> Calibration:
    """`calibrate` awaited, in the caller's event loop (a notebook's): the judge needs the coroutine
    `ajudge`. The judge is left open, as the loop is the caller's: the Claude judge's `aclose()` closes
    its connections."""
    name, settings = judge_identity(judge, "ajudge", "acalibrate awaits judge.ajudge(example, claims), which "
                                    "{} lacks: call calibrate(), which a running event loop can call too")
    workers = _checked_arguments(items, skip_errors, concurrency, prices, progress)
    return await _acalibrate(judge, name, settings, items, skip_errors, workers, prices, progress)


def _checked_arguments(items: object, skip_errors: object, concurrency: SupportsIndex, prices: object,
                       progress: object) -> int:
    """The workers `concurrency` asks for, once every argument is of its declared type, else a TypeError or
    ValueError naming it, before any judge is called: examples passed as they are failed on their first
    attribute ("'Example' object has no attribute 'example'"), the string "no" for `skip_errors` skipped,
    and a judge called in turn let any `concurrency` through, which the same call with the Claude judge
    refused."""
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise TypeError(f"items must be a sequence of ragmon.calibrate.Labelled, got {type(items).__name__}: "
                        "read a labelled file with load_labelled(paths)")
    for index, item in enumerate(items):
        if not isinstance(item, Labelled):
            raise TypeError(f"items[{index}] must be a ragmon.calibrate.Labelled, got {type(item).__name__}: "
                            "read a labelled file with load_labelled(paths), or an Example whose extra holds "
                            "its labels with labelled(example, source)")
    if type(skip_errors) is not bool:
        raise TypeError(f"skip_errors must be True or False, got {skip_errors!r}")
    if prices is not None and not isinstance(prices, Prices):
        raise TypeError(f"prices must be a ragmon.budget.Prices or None, got {type(prices).__name__}")
    if progress is not None:
        check_progress(progress)
    return check_concurrency(concurrency)


async def _acalibrate(judge: AsyncJudge, name: str, settings: Mapping[str, Any], items: Sequence[Labelled],
                      skip_errors: bool, concurrency: int, prices: Prices | None,
                      progress: Progress | None) -> Calibration:
    unreachable = Unreachable()
    done = 0

    async def one(index: int) -> _Judged:
        nonlocal done
        judged = await _judge_async(judge, items[index], skip_errors, unreachable)
        done += 1
        if progress is not None:
            report_progress(progress, done, len(items))
        return judged

    judged = await in_order_until_judge_error(len(items), one, concurrency)
    return _calibration(judge, name, settings, items, judged, skip_errors, prices)


async def _closed_after(judge: object, calibrating: Awaitable[Calibration]) -> Calibration:
    """The async client's connections belong to the event loop `calibrate` started, which ends here."""
    try:
        return await calibrating
    finally:
        aclose = getattr(judge, "aclose", None)
        if aclose is not None:
            await aclose()


def _calibration(judge: Judge | AsyncJudge, name: str, settings: Mapping[str, Any], items: Sequence[Labelled],
                 judged: Sequence[_Judged], skip_errors: bool, prices: Prices | None) -> Calibration:
    judged = [_verified(judge, j, skip_errors) for j in judged]
    asked = [j for j in judged if not j.free]
    if asked and all(j.error is not None for j in asked):
        # Nothing judged: the examples that needed no judge (`verdicts_without_judge`) must not stand in for
        # one that could not judge. Counted alone, they gave a judge whose every call failed F1 1.000.
        judged = [replace(j, verdicts=None) for j in judged]
    failed = [j for j in judged if j.error is not None]
    predicted = tuple(None if j.verdicts is None else tuple(not v.supported for v in j.verdicts)
                      for j in judged)
    sentence, response = _confusions(items, predicted)
    tokens = [j.tokens for j in judged]
    metered = all(t is not None for t in tokens)
    input_tokens = sum(t[0] for t in tokens if t) if metered else None
    output_tokens = sum(t[1] for t in tokens if t) if metered else None
    cost = None
    if prices is not None and input_tokens is not None and output_tokens is not None:
        cost = prices.cost(input_tokens, output_tokens)
    measured = sum(p is not None for p in predicted)
    # `_verified` may still refuse a cache hit's verdicts: only the ones measured are counted apart.
    cached = sum(j.cached and j.verdicts is not None for j in judged)
    free = sum(j.free for j in judged)
    return Calibration(name, settings, sentence, response, measured,
                       tuple((j.item.example.id, j.error or "") for j in failed),
                       sum(j.seconds for j in judged if not (j.cached or j.free)), input_tokens,
                       output_tokens, cost, sum(j.unbilled for j in judged), predicted, cached, free)


def _confusions(items: Sequence[Labelled],
                predicted: Sequence[Sequence[bool] | None]) -> tuple[Confusion, Confusion]:
    """Sentence and response figures over the items with a prediction (None: not measured)."""
    pairs = [(item, p) for item, p in zip(items, predicted, strict=True) if p is not None]
    sentence = Confusion.of((p for _, ps in pairs for p in ps),
                            (a for item, _ in pairs for a in item.unsupported))
    response = Confusion.of((any(ps) for _, ps in pairs), (item.hallucinated for item, _ in pairs))
    return sentence, response


@dataclass(frozen=True, slots=True)
class Common:
    """Every judge's figures on the examples all of them measured, when they did not all measure the same:
    with `--judge-errors=skip`, one judge's F1 over 5 examples and another's over the 4 it did not skip
    are figures about different answers, and the difference between them may be nothing but that."""

    examples: int
    figures: tuple[tuple[str, Confusion, Confusion], ...]
    """(judge, sentence, response) per judge, in the order given."""

    def as_dict(self) -> dict[str, Any]:
        return {"examples": self.examples,
                "judges": [{"judge": judge, "sentence": sentence.as_dict(), "response": response.as_dict()}
                           for judge, sentence, response in self.figures]}


def common(items: Sequence[Labelled], results: Sequence[Calibration]) -> Common | None:
    """None when every judge measured the same examples (one judge always has): its figures are already
    comparable. A judge that measured none takes no part: it has no figures on any example, and with it the
    examples all measured would be none, for every judge."""
    results = [r for r in results if r.examples]
    measured = [tuple(p is not None for p in r.predicted) for r in results]
    if len(set(measured)) < 2:
        return None
    every = [all(column) for column in zip(*measured, strict=True)]
    figures = tuple((r.judge, *_confusions(items, [p if keep else None for p, keep in
                                                    zip(r.predicted, every, strict=True)]))
                    for r in results)
    return Common(sum(every), figures)


SWEEP_THRESHOLDS = tuple(round(0.30 + 0.01 * i, 2) for i in range(51))
"""The thresholds `--sweep` measures: benchmarks/judge_accuracy.py's, so that its figures are the README's.
Below 0.30 a claim sharing one term in three is supported, and above 0.80 one missing a word in five is
flagged: past both, SALAD dev's F1 has long fallen. Steps of 0.01 tell apart claims of up to 100 terms;
the table joins neighbours with the same figures, so a small file reads as a few rows."""


@dataclass(frozen=True, slots=True)
class SweepRow:
    """The lexical judge's figures at one threshold."""

    threshold: float
    sentence: Confusion
    response: Confusion

    def as_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "sentence": self.sentence.as_dict(),
                "response": self.response.as_dict()}


@dataclass(frozen=True, slots=True)
class Sweep:
    """The lexical judge's figures across SWEEP_THRESHOLDS. A verdict is no threshold on one number (a
    claim's numbers lower what its terms must hold by `1 - threshold`, and the check of bounds compares
    context sentences holding the threshold's share of its terms), so each threshold is judged anew:
    51 runs take 0.4 s on SALAD dev's 519 claims."""

    rows: tuple[SweepRow, ...]

    @property
    def best(self) -> SweepRow | None:
        """The row of best sentence F1. Of equals, the default's (moving gains nothing on these labels, and
        the default was chosen on more), else the lowest threshold, which flags the fewest claims, as
        benchmarks/judge_accuracy.py breaks them. None when no threshold flags a labelled claim (F1 0 or
        undefined throughout): there is nothing to choose by."""
        scored = [row for row in self.rows if row.sentence.f1]
        return max(scored, default=None,
                   key=lambda r: (r.sentence.f1, r.threshold == DEFAULT_THRESHOLD, -r.threshold))


def sweep(items: Sequence[Labelled], thresholds: Sequence[float] = SWEEP_THRESHOLDS, *,
          progress: Progress | None = None) -> Sweep:
    """The lexical judge at each threshold, on claims split once (`Labelled`), calling `progress(done,
    total)` after each item at each threshold if given: `total` counts every item once per threshold,
    51 times by default, as the sweep judges it that often."""
    if progress is not None:
        check_progress(progress)
    total = len(thresholds) * len(items)
    rows = []
    for at, threshold in enumerate(thresholds):
        counted = None if progress is None else _counted_from(progress, at * len(items), total)
        result = calibrate(LexicalJudge(threshold), items, progress=counted)
        rows.append(SweepRow(threshold, result.sentence, result.response))
    return Sweep(tuple(rows))


def _counted_from(progress: Progress, before: int, total: int) -> Progress:
    """`progress` for one threshold's run: its items counted after the `before` judged at the thresholds
    ahead of it, of the sweep's `total`."""
    return lambda done, _: progress(before + done, total)


# --- CLI -------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("datasets", nargs="+", type=dataset_name, metavar="DATASET",
                        help="labelled examples (ragmon JSONL with labels: {hallucinated, spans}); - reads "
                             "standard input")
    parser.add_argument("--judge", action="append", choices=JUDGES, default=None,
                        help="judge to calibrate; repeatable (default lexical)")
    _add_report_arguments(parser)
    parser.add_argument("--judge-errors", choices=("fail", "skip"), default="fail",
                        help="on a judge error: stop with exit 2 (default), or leave the example out, listed")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing but errors: the figures go to --json alone (--json /dev/stdout "
                             "--quiet | jq)")
    add_lexical_arguments(parser)
    parser.add_argument("--sweep", action="store_true",
                        help="also measure the lexical judge at thresholds from 0.30 to 0.80 and say which "
                             "gives the best sentence F1 (not with --lexical-threshold)")
    _add_claude_settings(parser.add_argument_group("Claude judge (needs ANTHROPIC_API_KEY)"))


def _add_claude_settings(claude: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """The flags only the Claude judge reads, apart: `_check_judge_flags` reads their names."""
    from ragmon.judges.claude import add_cli_arguments

    claude.add_argument("--cache-dir", type=given_path,
                        help="keep Claude verdicts here so re-runs do not re-bill")
    add_cli_arguments(claude)


def _add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """The report flags, on their own too: a refused command line is read for them alone (`usage_error`)."""
    parser.add_argument("--json", type=report_file("calibration.json"), metavar="PATH",
                        help="also write the figures as JSON here")


def _judges(args: argparse.Namespace) -> list[str]:
    """The judges to calibrate, each once, in the order given."""
    return list(dict.fromkeys(args.judge or ["lexical"]))


def _check_judge_flags(args: argparse.Namespace) -> None:
    """A flag of a judge not calibrated, typed, is refused (`check_judge_flags`). --judge is repeatable,
    so another judge is added to this run's."""
    check_judge_flags(args, _judges(args), {"claude": long_options(_add_claude_settings),
                                            "lexical": long_options(add_lexical_arguments)},
                      lambda judge: f"add --judge {judge} to calibrate the {judge} judge")


def _check_sweep(args: argparse.Namespace) -> None:
    """Before anything is read: the sweep is the lexical judge's, at thresholds of its own. Without that
    judge it would measure nothing asked for; beside a typed --lexical-threshold, one of the two is not what
    the user meant. A threshold a RAGMON_* variable gave is a default for every run, and this one's table
    is measured at it as usual (`typed_among`)."""
    if not args.sweep:
        return
    judges = _judges(args)
    if "lexical" not in judges:
        flag = flag_of(args, "--sweep")
        raise InputError(f"{flag} measures the lexical judge across thresholds, and this run's "
                         f"judge{'s are' if len(judges) > 1 else ' is'} {' and '.join(judges)}: add --judge "
                         f"lexical, or leave {flag.setting} out")
    if typed := typed_among(args, ("--lexical-threshold",)):
        raise InputError(f"{flag_of(args, '--sweep')} and {typed} are given together: the sweep measures "
                         f"every threshold from {SWEEP_THRESHOLDS[0]:.2f} to {SWEEP_THRESHOLDS[-1]:.2f} and "
                         f"says which to pass; leave {typed} out")


def _build_judge(name: str, args: argparse.Namespace, prices: Prices | None) -> tuple[Judge, Prices | None]:
    if name == "claude":
        from ragmon.judges.claude import judge_from_args

        return judge_from_args(args, cache_dir=args.cache_dir), prices
    return LexicalJudge(args.lexical_threshold), None


def _claude_prices(args: argparse.Namespace) -> Prices | None:
    """Before anything is read: the prices the cost column is worked out at, which users size a budget by.
    One price alone for a model with no list price is refused in `ragmon serve`'s words (it had shown no
    cost, and said nothing of the price given); with neither, the run goes on without a cost, said once
    (unless --quiet), since the figures of agreement are worth having all the same."""
    from ragmon.judges.claude import prices_from_args

    prices = prices_from_args(args)
    if prices is not None:
        return prices
    missing = f"no known price for {flag_of(args, '--llm-model').given(repr(args.llm_model))}"
    if args.llm_price_input is not None or args.llm_price_output is not None:
        raise InputError(f"{missing}: set --llm-price-input and --llm-price-output (USD per million tokens) "
                         "so the cost can be worked out")
    if not args.quiet:
        note(f"ragmon calibrate: warning: {missing}, so no cost is shown: set --llm-price-input and "
             "--llm-price-output (USD per million tokens) to see it")
    return None


def _check_json_path(args: argparse.Namespace) -> None:
    """Before anything is read: `--json` names none of the datasets, which the figures would replace (the
    labelled examples are people's work, and no run could give them back), and that it can be written, as
    replay checks its reports (`unwritable`): a file where a folder of its path goes, or no permission, had
    been found only at the end, every Claude call paid for."""
    if args.json is None:
        return
    report = flag_of(args, "--json").given(str(args.json))
    check_not_directory(args.json, report)
    if file_at(args.json) is not None and (why := unwritable(args.json)) is not None:  # not a pipe (None)
        raise InputError(f"{report}: cannot write report: {why}")
    written = existing_file(args.json)
    for name in args.datasets:
        if written is not None and written == input_file(name):
            raise InputError(f"{report} is the dataset {input_name(name)}: the figures would replace the "
                             "labelled examples; give the figures a file of their own")


class _Incomplete(RagmonError):
    """The run measured what it could, and its report already says it is incomplete and why: kept."""


def run(args: argparse.Namespace) -> int:
    """The --json report agrees with the exit status: a run that stops with exit 2, or that a signal stops,
    replaces it with one saying the run is incomplete and why (the previous run's figures, left at the same
    path, would be read by a publishing step as this run's), and the signal leaves as Stopped, so that the
    log of a cancelled job is told, where it got nothing but exit status 143. As `ragmon replay` does."""
    try:
        with terminated_on_signal() as checkpoint:
            return _run(args, checkpoint)
    except _Incomplete:
        raise
    except (Exception, KeyboardInterrupt) as exc:
        reason = stopped_by(exc)
        written = _replace_report(args.json, reason, args.datasets,
                                  wait=not isinstance(exc, KeyboardInterrupt | Unwritten))
        if isinstance(exc, KeyboardInterrupt):
            raise Stopped(_stopped_line(reason, written), stop_status(exc)) from None
        raise


def _run(args: argparse.Namespace, checkpoint: Callable[[], None]) -> int:
    """Exit 2 when a judge failed on every example it had to judge (with `--judge-errors=skip`), after
    printing and writing what was measured: its figures are all "-", which a script reading exit 0 takes for
    a calibration, and any comparison with the other judges would be with nothing. `checkpoint` is
    `terminated_on_signal`'s, called after each example (`_progressing`)."""
    _check_json_path(args)
    _check_judge_flags(args)
    _check_sweep(args)
    prices = _claude_prices(args) if "claude" in _judges(args) else None
    _write_unfinished_report(args)
    items = load_labelled(args.datasets)
    # Every judge is built before any judges: a bad option (an unusable --cache-dir) costs nothing yet.
    judges = [_build_judge(name, args, prices) for name in _judges(args)]
    skip = args.judge_errors == "skip"
    results = [_progressing(args, checkpoint, (f"{judge.name}: judging", f"{judge.name}: judged", "examples"),
                            functools.partial(calibrate, judge, items, skip_errors=skip,
                                              concurrency=args.llm_concurrency, prices=prices))
               for judge, prices in judges]
    swept = _progressing(args, checkpoint, ("sweeping", "sweep:", "judgements"),
                         functools.partial(sweep, items)) if args.sweep else None
    incomplete = _incomplete(items, results)
    if args.json is not None:
        _write_json(args.json, as_dict(items, results, error=incomplete, swept=swept))
    result_final()  # before the table is printed: a signal once the report holds the figures leaves them
    if not args.quiet:
        print_beside(render(items, results, swept), "the figures", (args.json,))
    if incomplete is not None:
        raise _Incomplete(incomplete)
    return 0


def _progressing(args: argparse.Namespace, checkpoint: Callable[[], None], words: tuple[str, str, str],
                 measure: Callable[..., T]) -> T:
    """`measure(progress=...)` showing how far it has got on stderr, as replay's scoring does: a bar on a
    terminal, a line every 30 s in a CI log. Silent until the table, a run of the Claude judge on 1,000
    examples (4 calls of some 3 s at once: 12 minutes) or a sweep of 3,000 (the lexical judge 51 times:
    100 s on a busy machine) looked hung in a terminal, and could outlast a CI job's no-output timeout.
    After each example it also calls `checkpoint`: a SIGTERM whose exception Python dropped in a finalizer
    stops the run there, not at its end."""
    progress = ProgressLine(sys.stderr, enabled=not args.quiet, words=words, checkpoint=checkpoint)
    try:
        return measure(progress=progress)
    finally:
        progress.close()


def _incomplete(items: Sequence[Labelled], results: Sequence[Calibration]) -> str | None:
    """Why the run is incomplete: a judge failed on every example it had to judge (`Calibration.failed`)."""
    failed = [r for r in results if r.failed]
    if not failed:
        return None
    asked = len(failed[0].skipped)  # every example that needed a judge: the same for each judge that failed
    free = len(items) - asked
    one = len(failed) == 1
    they = "it" if one else "they"
    unmeasured = f", not even on the {free} example{'s' * (free != 1)} needing no judge" if free else ""
    every = "the one example" if asked == 1 else f"all {asked} examples"
    return (f"the {' and '.join(r.judge for r in failed)} judge{'' if one else 's'} failed on {every} "
            f"{they} had to judge, so {they} {'has' if one else 'have'} no figures{unmeasured} "
            "(the skipped examples are listed, each with its reason)")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _stopped_line(reason: str, written: bool) -> str:
    """What the log is told of a run a signal stopped: otherwise nothing, the exit status alone."""
    return f"{reason}: the JSON report says the run is incomplete" if written else reason


def usage_error(argv: Sequence[str], message: str) -> None:
    """The command line was refused (exit 2, `ragmon.cli`), yet the report it names is replaced all the
    same, as for any run that could not complete: a CI step publishing it would show the previous run's."""
    _replace_named_report(argv, message)


def stopped(argv: Sequence[str], reason: str, status: int) -> str:
    """A signal came before the run began (while the command line was read, `ragmon.cli`): the report it
    names is replaced as a refused command line's is, and the line the log gets says so. `status` is the
    exit status, which the JSON report does not hold: it says the run is incomplete, and why."""
    return _stopped_line(reason, _replace_named_report(argv, reason, wait=False))


def _write_unfinished_report(args: argparse.Namespace) -> None:
    """Before anything is read or judged, the report file, when an error report may replace it, says the
    run has not finished, as replay's do (`_write_unfinished_reports`): a run killed outright had left the
    previous run's figures at the path. A regular file only: a pipe's reader would get two reports."""
    if args.json is not None and holds_one_report(args.json):
        _replace_report(args.json, unfinished("ragmon calibrate", datetime.now(UTC)), args.datasets)


def _replace_named_report(argv: Sequence[str], message: str, *, wait: bool = True) -> bool:
    """The report a command line that did not run names, replaced; whether it was. Only the report flag is
    read, on its own (and RAGMON_CALIBRATE_JSON), and only written out in full: when it does not parse
    either (`--json` with no path), no file is named for sure, and none is written."""
    named = parse_known("calibrate", _add_report_arguments, argv, os.environ)
    return named is not None and _replace_report(named.json, message, wait=wait)


def _replace_report(path: Path | None, message: str, datasets: Sequence[str] = (), *,
                    wait: bool = True) -> bool:
    """The report at `path` replaced by one saying the run is incomplete and why (`as_dict` of nothing,
    every key there, empty), when it may be (`_replaceable`); whether it was. Best effort: when the error is
    that the report cannot be written, or another comes up here, the error the user must see is the
    first. A signal's, and one where the report could not be written (`wait` false: `Unwritten`), waits for
    no pipe's reader (`_write_json`)."""
    if path is None or not _replaceable(path, datasets):
        return False
    try:
        _write_json(path, as_dict([], [], error=message), wait=wait)
    except Exception:
        return False
    return True


REPORT = "ragmon calibrate"
"""The `--json` report's first field, `report`: how a file calibrate wrote is told from any other."""
_REPORT_MARKER = f'"report": "{REPORT}"'.encode()
_UNMARKED_REPORT = re.compile(rb'\{\s*"examples": \d+,\s*"claims": \d+,')
"""How a report began before it had `report`: the first run after an upgrade replaces it too."""


def _replaceable(path: Path, datasets: Sequence[str]) -> bool:
    """Whether a run that did not complete may write its report over `path`: none of the datasets, and no
    file yet, an empty one, no regular file (a pipe: `--json /dev/stdout | jq`), or a report calibrate wrote.
    Anything else may be what the flag swallowed, no report path at all: `ragmon calibrate --json
    labelled.jsonl more.jsonl` (meant as "the input is JSON") stops on more.jsonl, and people's labels must
    not give way to its error."""
    where = existing_file(path)
    if where is not None and any(where == input_file(name) for name in datasets):
        return False
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return True  # and never read: a pipe's other end may be this process's own stdout
        with path.open("rb") as handle:
            head = handle.read(512)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):  # unreadable, or no path at all (a NUL in it)
        return False
    return not head or _REPORT_MARKER in head or _UNMARKED_REPORT.match(head) is not None


def _write_json(path: Path, doc: Mapping[str, Any], *, wait: bool = True) -> None:
    """Its directories are made, as a CI job names one it has not (`--json reports/calibration.json`).
    Without `wait`, a pipe with no reader (`mkfifo`) is an error (ENXIO), not a wait for one: after a stop
    signal, which the stop ignores from then on, a FIFO nobody read had held calibrate in open() for good,
    ended by nothing short of SIGKILL, as replay's reports had been."""
    # A lone surrogate (half an emoji) in an id as U+FFFD: jq 1.6 refuses a whole file for its escape.
    # A claim's or an id's `##[` as JSON's escape: a step that prints the file runs no CI log command.
    text = inert(replace_lone_surrogates(json.dumps(doc, indent=2, ensure_ascii=False)), json_escape)
    try:
        write_report(path, [text + "\n"], wait=wait)
    except OSError as exc:
        raise Unwritten(f"cannot write: {exc.strerror or exc}", source=str(path)) from None


def as_dict(items: Sequence[Labelled], results: Sequence[Calibration], *,
            error: str | None = None, swept: Sweep | None = None) -> dict[str, Any]:
    """`complete` false, with the one-line `error` that made it so, for a run that exits 2: stopped before
    any figure (as `as_dict([], [], error=...)`), or a judge that failed on every example it had to judge
    (the figures measured kept). `label_warnings`: every one, as `--quiet` prints none and the terminal
    the first WARNINGS_SHOWN, so that a run read from the report alone (`--json /dev/stdout --quiet | jq`)
    still learns which labels the figures count otherwise than their labeller likely meant. `common`:
    every judge's figures on the examples all of them measured, null when each measured the same ones.
    `sweep`: the lexical judge's figures at each threshold (`--sweep`), and `best` the threshold of best
    sentence F1 (`Sweep.best`), both null without the flag (and `best` when no threshold has one)."""
    shared = common(items, results)
    best = None if swept is None else swept.best
    return {"report": REPORT, "ragmon_version": __version__, "complete": error is None, "error": error,
            "examples": len(items), "claims": sum(len(i.claims) for i in items),
            "labelled_unsupported": sum(sum(i.unsupported) for i in items),
            "hallucinated": sum(i.hallucinated for i in items),
            "label_warnings": [warning for item in items for warning in item.warnings],
            "judges": [r.as_dict() for r in results],
            "common": None if shared is None else shared.as_dict(),
            "sweep": None if swept is None else [row.as_dict() for row in swept.rows],
            "best": None if best is None else best.threshold}


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n"
                   for row in rows)


def render(items: Sequence[Labelled], results: Sequence[Calibration], swept: Sweep | None = None) -> str:
    summary = as_dict(items, [])
    head = (f"{_count(summary['examples'], 'labelled example')}: {_count(summary['claims'], 'claim')}, "
            f"{summary['labelled_unsupported']} labelled unsupported; "
            f"{_count(summary['hallucinated'], 'response')} labelled hallucinated\n\n")
    quality = _quality([(_judge_label(r), r.sentence, r.response) for r in results])
    shared = common(items, results)
    if shared is not None:
        measured = [r for r in results if r.examples]  # as `common` counts, in its order
        counts = ", ".join(f"{r.judge} {r.examples}" for r in measured)
        every = f"{shared.examples} example{'s' * (shared.examples != 1)}"
        figures = [(_judge_label(r), sentence, response)
                   for r, (_, sentence, response) in zip(measured, shared.figures, strict=True)]
        quality += (f"\nwarning: the judges were measured on different examples ({counts}; a skipped "
                    "example is left out of that judge's figures only), so the figures above compare "
                    f"different answers; on the {every} every judge measured:\n" + _quality(figures))
    spend = [["judge", "examples", "skipped", "from cache", "latency/example", "tokens in/out per example",
              "cost/example"]]
    for r in results:
        latency = r.per_example(r.seconds)
        tokens_in, tokens_out = r.per_example(r.input_tokens), r.per_example(r.output_tokens)
        least = ">= " if r.unbilled else ""
        spend.append([r.judge, str(r.examples), str(len(r.skipped)), str(r.cached),
                      "-" if latency is None else f"{latency * 1000:.1f} ms",
                      "-" if tokens_in is None else f"{least}{tokens_in:,.0f} / {tokens_out:,.0f}",
                      "-" if (cost := r.per_example(r.cost_usd)) is None else f"{least}${cost:.6f}"])
    notes = "".join(_skipped_note(r) for r in results)
    warned = summary["label_warnings"]
    notes += "".join(f"warning: {printable(warning)}\n" for warning in warned[:WARNINGS_SHOWN])
    if len(warned) > WARNINGS_SHOWN:
        notes += f"and {_count(len(warned) - WARNINGS_SHOWN, 'more label warning')}\n"
    notes += "".join(f"{r.judge}: {r.unbilled} example{'s' * (r.unbilled != 1)} had a call whose bill was "
                     "never reported (timed out, cut off or unreadable): tokens and cost are at least what "
                     "they say\n" for r in results if r.unbilled)
    notes += "".join(_without_call_note(r) for r in results if r.cached or r.free)
    notes += "".join(_spent_note(r) for r in results if r.input_tokens is not None)
    return (head + "positive class: unsupported (sentence), hallucinated (response)\n"
            + quality + "\n" + _table(spend) + notes + ("" if swept is None else "\n" + _sweep_text(swept)))


def _judge_label(result: Calibration) -> str:
    """The judge as the agreement table names it: with its threshold, when it has one (the lexical judge),
    since the figures are the threshold's. Two runs' tables in a CI log, or two lexical judges calibrated
    side by side, were told apart only by the JSON report."""
    threshold = result.settings.get("threshold")
    if not isinstance(threshold, int | float) or isinstance(threshold, bool):
        return result.judge
    return f"{result.judge} (threshold {_share(threshold)})"


def _share(value: float) -> str:
    """A threshold as `--lexical-threshold` takes it: two decimals, as the sweep prints, or more when two
    would round it (0.555 is not 0.56)."""
    two = f"{value:.2f}"
    return two if float(two) == value else repr(float(value))


def _sweep_text(swept: Sweep) -> str:
    """The sweep's table, neighbouring thresholds with the same figures on one row (`0.30-0.41`), then what
    to pass and how far to trust it."""
    first = swept.rows[0]
    head = (f"lexical threshold sweep ({_count(first.sentence.n, 'labelled sentence')}, "
            f"{first.sentence.tp + first.sentence.fn} unsupported; {_count(first.response.n, 'response')}, "
            f"{first.response.tp + first.response.fn} hallucinated):\n")
    rows = [["threshold", "sentence P", "R", "F1", "tp", "fp", "fn", "tn",
             "response P", "R", "F1", "tp", "fp", "fn", "tn", ""]]
    best = swept.best
    marked = (("default", DEFAULT_THRESHOLD), ("best sentence F1", None if best is None else best.threshold))
    for _, grouped in itertools.groupby(swept.rows, key=lambda row: (row.sentence, row.response)):
        run = list(grouped)
        low, high = run[0].threshold, run[-1].threshold
        marks = [mark for mark, at in marked if any(row.threshold == at for row in run)]
        rows.append([f"{low:.2f}" if low == high else f"{low:.2f}-{high:.2f}",
                     *_sweep_cells(run[0].sentence), *_sweep_cells(run[0].response), ", ".join(marks)])
    undefined = any(None in (r.sentence.precision, r.sentence.recall, r.response.precision, r.response.recall)
                    for r in swept.rows)
    note = ("-: undefined (no precision where nothing is flagged, no recall where nothing is labelled)\n"
            if undefined else "")
    return head + _table(rows) + note + _advice(best, first.sentence.n)


def _sweep_cells(c: Confusion) -> list[str]:
    return [_num(c.precision), _num(c.recall), _num(c.f1), str(c.tp), str(c.fp), str(c.fn), str(c.tn)]


def _advice(best: SweepRow | None, sentences: int) -> str:
    """What to pass, and why a threshold read off these labels alone may not carry to the next answers:
    on half of SALAD dev's 80 answers the best threshold was 0.41, which lost a third of the recall on the
    other half (the README's halves check)."""
    if best is None:
        return "no threshold flags a sentence labelled unsupported, so none is recommended\n"
    default = ", the default" if best.threshold == DEFAULT_THRESHOLD else ""
    return (f"best sentence F1 {_num(best.sentence.f1)} at {best.threshold:.2f}{default} (equal F1s go to "
            "the default, else to the lowest threshold, which flags the fewest): pass --lexical-threshold "
            f"{best.threshold:.2f} to ragmon replay and ragmon serve\n"
            f"it was chosen on {_count(sentences, 'labelled sentence')}: a threshold tuned on few labels "
            "fits them, not the next answers (on 40 of SALAD dev's answers the best was 0.41, which lost a "
            "third of the recall on the other 40: the README's halves check); check it on labels it was not "
            "chosen on\n")


def _skipped_note(r: Calibration) -> str:
    """The first WARNINGS_SHOWN examples the judge skipped, each with why, and a count of the rest (the JSON
    report lists every one): an API down for a run of 1,000 examples had printed 1,000 lines after the
    table, which scrolled out of sight."""
    lines = "".join(f"skipped {printable(i)} ({r.judge}): {printable(reason)}\n"
                    for i, reason in r.skipped[:WARNINGS_SHOWN])
    more = len(r.skipped) - WARNINGS_SHOWN
    return lines + (f"and {_count(more, 'more example')} skipped by {r.judge}\n" if more > 0 else "")


def _without_call_note(r: Calibration) -> str:
    """Which examples the figures per example leave out, and over how many they are: an example judged
    without a call costs nothing and takes a fraction of a millisecond, and averaged in, it would size a
    budget too small (a second run with --cache-dir had printed $0.000000 and 0.2 ms)."""
    if r.failed:
        return (f"{r.judge}: {_count(r.free, 'example')} needing no judge (no claim, or nothing retrieved), "
                "not measured either: the judge failed on every example it had to judge\n")
    parts = [f"{count} of {_count(r.examples, 'example')} {what}" for count, what in (
        (r.cached, "from the cache"), (r.free, "needing no judge (no claim, or nothing retrieved)")) if count]
    if r.called:
        return f"{r.judge}: {' and '.join(parts)}, left out of the figures per example (over the other " \
               f"{r.called})\n"
    hint = " (run with an empty --cache-dir to measure them)" if r.cached else ""
    return f"{r.judge}: {' and '.join(parts)}: no call was made, so there are no figures per example{hint}\n"


def _spent_note(r: Calibration) -> str:
    """What the run's calls were billed in all, a failed call's too: with every call failed there is no
    figure per example, and ten refused replies billed 10,000 tokens had been reported nowhere."""
    least = ">= " if r.unbilled else ""
    cost = "; no cost without a price for its model" if r.cost_usd is None else f", {least}${r.cost_usd:.6f}"
    return (f"{r.judge}: this run's calls, a skipped example's too, billed {least}{r.input_tokens:,} tokens "
            f"in / {r.output_tokens:,} out in all{cost}\n")


def _quality(figures: Sequence[tuple[str, Confusion, Confusion]]) -> str:
    """The agreement table: a sentence and a response row per (judge, sentence, response)."""
    rows = [["judge", "level", "n", "precision", "recall", "f1", "accuracy", "tp", "fp", "fn", "tn"]]
    for judge, sentence, response in figures:
        for level, c in (("sentence", sentence), ("response", response)):
            rows.append([judge, level, str(c.n), _num(c.precision), _num(c.recall), _num(c.f1),
                         _num(c.accuracy), str(c.tp), str(c.fp), str(c.fn), str(c.tn)])
    return _table(rows)
