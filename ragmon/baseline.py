"""A baseline for `ragmon replay --baseline`: an earlier run's JSON report (main's CI artifact, say), checked
to be comparable with this run, then compared with it example by example.

Only the examples both runs scored (matched by id) are compared. A golden set grows: a mean over the whole
of each run would read new, perhaps harder, questions as a drop the change did not cause, and punish adding
them. What each run alone has is counted (new, gone), and the gone ones are named, since dropping the
examples that regressed would otherwise make a regression disappear without a word.

A metric is compared over the shared examples both runs measured: the paired changes. One that one run
alone measured (an answer that abstained there, so made no claim to be grounded) has nothing in the other
run to be paired with; set against the other examples' mean it would move the change by how easy its
question is, not by what it did. So it is counted, for the reports to say so, and not compared; the
regressed examples name one that now makes an unsupported claim where the baseline made none.

Except an answer that abstained in the baseline and makes claims now, on groundedness and
hallucination_rate (`ABSTAINED_AS`): it made no claim, so none unsupported, and is compared as groundedness
1 there. Left out, a drop gate could not see "I don't know" gone to a made-up answer, which
`--gate hallucination_rate` counts. The JSON report says which answers abstained (`abstained`), as an
undefined groundedness alone cannot tell an abstention from contexts unknown (claims made, none decided);
a report from before it says nothing, and its examples are left out as before, with a caveat. The reverse,
an answer abstaining now, stays out: compared as 1 it would be a gain (a build could pass by declining its
hard questions), as 0 a breach for an answer that claims nothing; whether declining is right is for
answer_correctness and abstention to say.

Where this run's text (an id, a claim) has a lone surrogate, half an emoji a pipeline cut in two, its JSON
report holds U+FFFD (ragmon.report.json), and a report from an older ragmon holds the "\\ud83d" escape. So
the baseline is read with each lone surrogate made U+FFFD and this run's ids and claims are compared in that
form: the same example, with the same sentences, in every later run, against either kind of baseline.

A baseline whose run breached a drop gate is refused: its figures hold the regression that gate refused,
and compared with them it would pass (a CI job re-run after it failed, with --json naming the --baseline).
One that breached only its own --gate gates is compared with, and `caveats` says so: main's report stays
the reference for drops while main is below a bar, and every run's --gate is decided anew anyway.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import statistics
import zlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from ragmon import __version__
from ragmon.errors import InputError
from ragmon.ids import ID_SHOWN, escaped_id, id_key
from ragmon.jsontext import decode_error, loads, replace_lone_surrogates
from ragmon.model import LOWER_IS_BETTER, METRIC_NAMES, Claim, ClaimVerdict, Example, ExampleResult, Report
from ragmon.options import input_name, is_stdin, stdin_bytes
from ragmon.rules import SCORING_RULES, scores_examples_alike
from ragmon.text import cited_ids

CLAIM_METRICS = frozenset({"groundedness", "hallucination_rate"})
"""Metrics decided by the unsupported sentences themselves; the others are listed by value alone."""
ABSTAINED_AS: Mapping[str, float] = {"groundedness": 1.0, "hallucination_rate": 0.0}
"""What an answer that abstained in the baseline is compared as, against claims now: no unsupported claim."""
WRITTEN_BY = "give a report written by `ragmon replay --json`"
_GZIP_MAGIC = b"\x1f\x8b"
REPORT_FORMAT = 1
"""The layout's version, apart from ragmon's: raised when a field changes meaning or goes, so that a tool
reading reports (ragmon's own `--baseline` among them) can refuse one it does not know rather than misread
it. New fields do not raise it. Reports before it had none: format 1. Here, beside the reader, as the
writer (ragmon.report.json) imports this module."""


READ_OUT_RULES = 23
"""The scoring rules that last widened what of an answer's citations of its retrieved ids is read out of its
claims (ragmon.text.cited_ids; rules 15 read bracketed ids, 17 also locators, attributions and pointers, 18
in five more languages, 19 a refusal naming them, 22 and 23 more such refusals):
against a baseline of rules before them, the examples whose claims only that read-out changed are named
(`_moved_by_rules`)."""
SHOWN_IDS = 3
"""Ids a caveat names of the examples it counts: enough to find them in the report."""


DECIMALS = 12
"""Changes are rounded to this many decimals: float rounding would otherwise make a drop of exactly the
allowed amount a breach (50 examples at 1.0, then one at 0: 1.0 - 0.98 = 0.020000000000000018 > 0.02)."""


@dataclass(frozen=True, slots=True)
class BaselineExample:
    """What the comparison needs of one example of the baseline run."""

    metrics: Mapping[str, float | None]
    unsupported: frozenset[str]
    """Its unsupported sentences, whitespace normalised: a sentence among them is not newly unsupported."""
    question: str | None = None
    """Whitespace normalised; None where the report gave none."""
    abstained: bool | None = None
    """Whether its answer abstained (`abstained`); None from a report that did not record it."""
    claims: tuple[str, ...] = ()
    """Every claim's text, whitespace normalised, in order: what tells an example other rules cut otherwise
    from one whose answer changed."""


@dataclass(frozen=True, slots=True)
class Baseline:
    path: str
    ragmon_version: str
    judge: Mapping[str, Any]
    """As the report records it: the judge's name and settings, in JSON types."""
    k: int
    examples: Mapping[str, BaselineExample]
    """By id, in the report's order."""
    breached: tuple[str, ...] = ()
    """Metrics of the --gate gates the baseline run breached, in the report's order."""
    skipped: frozenset[str] = frozenset()
    """Ids its run skipped (`--judge-errors skip`, or traces that are not RAG): scored now, they are no
    shared examples, and would count as new without a word."""
    scoring_rules: int | None = None
    """The `ragmon.rules.SCORING_RULES` its run scored with; None from a ragmon that recorded none."""


Measured = tuple[float | None, float | None]
"""A shared example's value of one metric in the baseline and in this run; None where that run did not
measure it."""


@dataclass(frozen=True, slots=True)
class MetricChange:
    """One metric over the shared examples both runs measured (`n` of them, `abstained` of them compared as
    ABSTAINED_AS in the baseline): their means and paired changes. Those one run alone measured are in
    `measured` too, counted and not compared."""

    baseline: float | None
    candidate: float | None
    measured: tuple[Measured, ...]
    """Each shared example either run measured the metric on, in this run's order; an abstention of the
    baseline against claims now as ABSTAINED_AS."""
    baseline_n: int
    """Examples the baseline measured the metric on, of all its own: 0 says which run lacked it."""
    candidate_n: int
    abstained: int = 0
    """Pairs whose baseline side abstained, compared as ABSTAINED_AS: the reasons count them."""

    @property
    def n(self) -> int:
        """Shared examples compared: both runs measured them, or the baseline's abstained."""
        return sum(before is not None and after is not None for before, after in self.measured)

    @property
    def baseline_only(self) -> int:
        """Shared examples measured in the baseline and not now: an answer now abstaining, say."""
        return sum(after is None for _, after in self.measured)

    @property
    def candidate_only(self) -> int:
        """Shared examples measured now and not in the baseline: one that abstained there, say."""
        return sum(before is None for before, _ in self.measured)

    @property
    def one_sided(self) -> tuple[tuple[int, str], ...]:
        """(count, the run) of the shared examples one run alone measured, for each run that has some: left
        out of the comparison, which the reports say."""
        return tuple((count, run) for count, run in ((self.baseline_only, "the baseline"),
                                                     (self.candidate_only, "this run")) if count)

    @property
    def differences(self) -> tuple[float, ...]:
        """This run's value minus the baseline's, per example both measured: what a paired interval
        resamples."""
        return tuple(after - before for before, after in self.measured
                     if before is not None and after is not None)

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.candidate is None:
            return None
        return rounded(self.candidate - self.baseline)


@dataclass(frozen=True, slots=True)
class Change:
    """A shared example that got worse on a metric: its value then and now (None: not measured)."""

    result: ExampleResult
    before: float | None
    after: float | None
    newly_unsupported: tuple[ClaimVerdict, ...]
    """This run's unsupported sentences that the baseline supported or did not make."""
    abstained: bool = False
    """The baseline's answer abstained: `before` is None, and it was compared as ABSTAINED_AS."""


@dataclass(frozen=True, slots=True)
class Comparison:
    path: str
    ragmon_version: str
    shared: int
    new: int
    """Examples of this run the baseline did not score."""
    gone: tuple[str, ...]
    """Ids the baseline scored and this run did not, in the baseline's order."""
    metrics: Mapping[str, MetricChange]
    regressed: tuple[Change, ...]
    """Shared examples whose groundedness fell, or which now make an unsupported claim where the baseline
    had no groundedness; the biggest drop first."""
    pairs: tuple[tuple[ExampleResult, BaselineExample], ...]
    caveats: tuple[str, ...] = ()
    """What may mislead in the comparison, for the reports: on stderr alone, and not at all with --quiet,
    a renumbered golden set compared different questions with nothing in any report. `compare` gives those
    only the scores tell (`_moved_by_rules`, `_unrecorded`); `caveats`, those told before scoring, go
    before them."""
    scoring_rules: int | None = None
    """The baseline's, as its report recorded them; None where it recorded none."""

    def worsened(self, metric: str) -> tuple[Change, ...]:
        """Shared examples worse on `metric` than in the baseline (higher, for LOWER_IS_BETTER), the
        biggest change first; for a claim metric, also those measured now with an unsupported sentence
        and not then."""
        return _worsened(self.pairs, metric)


def rounded(value: float) -> float:
    return round(value, DECIMALS) + 0.0  # + 0.0: a -0.0 would print as "-0"


MAX_BASELINE_BYTES = 1 << 30
"""Bytes of a baseline report read, decompressed: a report of 100,000 examples is a few hundred MiB. Read
whole, `--baseline /dev/zero` grew to 24 GB before the kernel killed the run, and a 2 MB gzip of spaces
took 4 GB."""


def _read_file(path: Path) -> bytes:
    with path.open("rb") as handle:
        return _read_bounded(handle)


def _read_bounded(handle: BinaryIO) -> bytes:
    """At most MAX_BASELINE_BYTES + 1 bytes of the report, gunzipped where it is gzip (kept compressed as a
    CI artifact, as golden sets may be), so that a larger one is told as such."""
    data = handle.read(MAX_BASELINE_BYTES + 1)
    if not data.startswith(_GZIP_MAGIC):
        return data
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
        return unzipped.read(MAX_BASELINE_BYTES + 1)


def load(path: Path | str) -> Baseline:
    """The report at `path` (`-`: standard input, ragmon.options.STDIN); an InputError naming the file
    (and the field) when it is no baseline."""
    source = input_name(path)
    try:
        data = _read_bounded(stdin_bytes()) if is_stdin(path) else _read_file(Path(path))
    # Before OSError, which it is: a corrupt artifact (a failed CRC) is no file that could not be read.
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InputError(f"the baseline is not valid gzip data ({exc}): {WRITTEN_BY}",
                         source=source) from None
    except OSError as exc:
        raise InputError(f"cannot read the baseline report: {exc.strerror or exc}", source=source) from None
    if len(data) > MAX_BASELINE_BYTES:
        raise InputError(f"the baseline holds more than {MAX_BASELINE_BYTES:,} bytes (decompressed), more "
                         f"than a report of any run: {WRITTEN_BY}", source=source)
    if not data.strip():  # an artifact that was never uploaded, or a pipe whose writer failed
        raise InputError(f"the baseline is empty: {WRITTEN_BY}", source=source)
    try:
        doc = loads(data)
    except UnicodeDecodeError:
        raise InputError(f"the baseline is not UTF-8 JSON: {WRITTEN_BY}", source=source) from None
    except json.JSONDecodeError as exc:
        error = decode_error(exc)  # a trailing comma as every Python words it
        raise InputError(f"the baseline is not valid JSON ({error.msg}, column {error.colno})"
                         f"{_looks_like(error)}: {WRITTEN_BY}", source=source, line=error.lineno) from None
    except (ValueError, RecursionError) as exc:  # valid JSON that json will not read: a traceback otherwise
        # int()'s limit on digits, without its advice to the programmer after the colon
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).partition(":")[0]
        raise InputError(f"the baseline is not readable JSON ({why}): {WRITTEN_BY}", source=source) from None
    return from_dict(doc, source)


_OTHER_REPORTS = (("<", "XML: the --junit report?"), ("#", "Markdown: the --markdown report?"),
                  ("ragmon replay:", "the terminal summary?"))
"""How a file of another report begins, and what it then is: each is refused at its first character,
where "Expecting value, column 1" said nothing of which file had been given."""


def _looks_like(exc: json.JSONDecodeError) -> str:
    """What the text that is no JSON appears to be, as a hint in parentheses; empty when nothing tells."""
    if (exc.msg, exc.colno) == ("Extra data", 1):  # a value opening a second line: the golden set
        return " (a value a line: JSON Lines, a golden set?)"
    head = exc.doc.lstrip()
    if exc.pos == len(exc.doc) - len(head):
        return next((f" ({what})" for start, what in _OTHER_REPORTS if head.startswith(start)), "")
    # A string left open runs to the end of the text: json names where it began, not where the text ends.
    if exc.msg.startswith("Unterminated string") or exc.pos >= len(exc.doc.rstrip()):
        return " (the text ends mid-report: a copy or download cut short?)"
    return ""


def from_dict(doc: Any, source: str) -> Baseline:
    """A parsed report; `source` names it in errors."""
    kind = doc.get("report") if isinstance(doc, dict) else None
    if isinstance(kind, str):  # ragmon calibrate's names itself so; a replay report has no such field
        named = json.dumps(_clipped(kind, 60), ensure_ascii=False)  # made printable where it is shown
        raise InputError(f"the baseline is the report of {named} (its field 'report'), not of a replay: "
                         f"{WRITTEN_BY}", source=source)
    if not isinstance(doc, dict) or "ragmon_version" not in doc:
        raise InputError(f"the baseline is not a ragmon report (no 'ragmon_version'): {WRITTEN_BY}",
                         source=source)
    reader = _Reader(source)
    version = reader.get(doc, "ragmon_version", str, "a string")
    layout = doc.get("report_format", 1)
    if isinstance(layout, bool) or not isinstance(layout, int) or not 1 <= layout <= REPORT_FORMAT:
        raise InputError(f"the baseline's report_format is {layout!r}, which ragmon {__version__} does not "
                         f"read (it writes format {REPORT_FORMAT}): compare with the ragmon that wrote it, "
                         "or give a report written by this one's `ragmon replay --json`",
                         source=source, field="report_format")
    complete = reader.get(doc, "complete", bool, "a boolean")
    if not complete:
        error = _clipped(" ".join(str(doc.get("error") or "no error recorded").split()), 300)
        raise InputError(f"the baseline run did not complete ({error}), so it has no figures to compare "
                         f"with", source=source)
    breached = () if reader.get(doc, "passed", bool, "a boolean") else _breached(reader, doc)
    judge = reader.get(doc, "judge", dict, "an object")
    reader.get(judge, "name", str, "a string", "judge.name")
    k = reader.get(doc, "k", int, "a whole number")
    examples: dict[str, BaselineExample] = {}
    for index, item in enumerate(reader.get(doc, "results", list, "a list")):
        where = f"results[{index}]"
        item = reader.check(item, dict, "an object", where)
        example_id = reader.get(item, "id", str, "a string", f"{where}.id")
        if example_id in examples:
            raise InputError(f"the baseline names example {escaped_id(example_id)} twice", source=source,
                             field=f"{where}.id")
        metrics = reader.get(item, "metrics", dict, "an object", f"{where}.metrics")
        for name, value in metrics.items():
            at = f"{where}.metrics.{name}"
            reader.check(value, (int, float, type(None)), "a number or null", at)
            # Every metric is a share: Infinity (which json reads) would make the change infinite, or stop
            # the bootstrap, and NaN, which no report holds, would silently drop the example.
            if name in METRIC_NAMES and value is not None and not 0 <= value <= 1:
                reader.fail("a number between 0 and 1 or null", at)
        question = reader.check(item.get("question"), (str, type(None)), "a string", f"{where}.question")
        unsupported, texts = set(), []
        for number, claim in enumerate(reader.get(item, "claims", list, "a list", f"{where}.claims")):
            at = f"{where}.claims[{number}]"
            claim = reader.check(claim, dict, "an object", at)
            claim_text = reader.get(claim, "text", str, "a string", f"{at}.text")
            texts.append(_normal(claim_text))
            if not reader.get(claim, "supported", bool, "a boolean", f"{at}.supported"):
                unsupported.add(_normal(claim_text))
        abstained = (reader.check(item["abstained"], bool, "a boolean", f"{where}.abstained")
                     if "abstained" in item else None)
        examples[example_id] = BaselineExample(metrics, frozenset(unsupported),
                                               None if question is None else _normal(question), abstained,
                                               tuple(texts))
    return Baseline(source, version, judge, k, examples, breached, _skipped(reader, doc), _rules(reader, doc))


def _clipped(text: str, limit: int) -> str:
    """A message quotes a file's text at most `limit` characters long: a hand-made file's may be any."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _skipped(reader: _Reader, doc: dict[str, Any]) -> frozenset[str]:
    """The ids of `skipped`, which a report before it had none of."""
    entries = reader.check(doc.get("skipped", []), list, "a list", "skipped")
    return frozenset(reader.get(reader.check(entry, dict, "an object", f"skipped[{index}]"), "id", str,
                                "a string", f"skipped[{index}].id")
                     for index, entry in enumerate(entries))


def _rules(reader: _Reader, doc: dict[str, Any]) -> int | None:
    """`scoring_rules`, which a report before it had none of."""
    rules = reader.check(doc.get("scoring_rules"), (int, type(None)), "a whole number", "scoring_rules")
    if rules is not None and rules < 1:
        reader.fail("a whole number of 1 or more", "scoring_rules")
    return rules


def _breached(reader: _Reader, doc: dict[str, Any]) -> tuple[str, ...]:
    """The metrics of the --gate gates a run that did not pass breached; an InputError when it breached a
    drop gate (`max_drop` set), which a report before drop gates never did."""
    gates: dict[str, None] = {}  # in order, each metric once: two gates may name one
    drops: dict[str, None] = {}
    for index, gate in enumerate(reader.get(doc, "gates", list, "a list")):
        where = f"gates[{index}]"
        gate = reader.check(gate, dict, "an object", where)
        metric = _metric(reader.get(gate, "metric", str, "a string", f"{where}.metric"))
        if not reader.get(gate, "passed", bool, "a boolean", f"{where}.passed"):
            max_drop = reader.check(gate.get("max_drop"), (int, float, type(None)), "a number or null",
                                    f"{where}.max_drop")
            (gates if max_drop is None else drops)[metric] = None
    if drops:
        raise InputError(f"the baseline run breached its drop gate on {', '.join(drops)}: its figures hold "
                         f"the regression that gate refused, and compared with them it would pass; give as "
                         f"--baseline the --json report of the last run that passed", source=reader.source)
    return tuple(gates)


def _metric(name: str) -> str:
    """A metric's name as a message shows it: one the file made up, quoted and escaped."""
    return name if name in METRIC_NAMES else json.dumps(name)


def caveats(baseline: Baseline, examples: Sequence[Example]) -> list[str]:
    """What the user should hear of a comparable baseline that may mislead, one line each, before this run
    (`examples`) is scored: that its run breached gates of its own, that ids both runs have name
    other questions there (a golden set renumbered, or its ids reused), which the comparison, by id, would
    read as the same examples, most likely "unchanged", that examples this run scores were skipped
    there, which the counts would call new, as if the golden set had grown, and that ids of this run are
    in the baseline written otherwise (`_respelled`), which the counts would call new and gone. What only
    the scores tell is `compare`'s (`_unrecorded`)."""
    lines = []
    if not scores_examples_alike(baseline.scoring_rules):  # intervals alone do not move a drop or a gain
        lines.append(_rules_caveat(baseline))
    if baseline.breached:
        lines.append(f"the baseline {baseline.path} is of a run that breached its gate on "
                     f"{', '.join(baseline.breached)}: drops are measured from figures that did not pass "
                     f"(this run's --gate gates are decided on their own)")
    shared = [(example, before) for example in examples
              if (before := baseline.examples.get(replace_lone_surrogates(example.id))) is not None]
    changed = [example.id for example, before in shared
               if before.question is not None and before.question != _normal(example.question)]
    if changed:
        lines.append(f"the baseline {baseline.path} asked another question under {len(changed)} of the "
                     f"{len(shared)} ids both runs have ({_clipped(changed[0], ID_SHOWN)!r}, say): examples "
                     f"are compared by id, so these compare different questions (was the golden set "
                     f"renumbered?)")
    skipped = [example.id for example in examples if replace_lone_surrogates(example.id) in baseline.skipped]
    if skipped:
        lines.append(f"the baseline {baseline.path} skipped {len(skipped)} of this run's examples "
                     f"({_clipped(skipped[0], ID_SHOWN)!r}, say; its skipped list says why): they are not "
                     f"compared, and count as new")
    respelled = _respelled(baseline, [replace_lone_surrogates(example.id) for example in examples])
    if respelled:
        here, there = respelled[0]
        lines.append(f"the baseline {baseline.path} has {len(respelled)} of this run's ids written "
                     f"otherwise, in another Unicode normalisation or with other white space around them "
                     f"({escaped_id(here)} here, {escaped_id(there)} there, say): examples are matched by id "
                     f"as written, so these are not compared, and count as new and gone (was the golden set "
                     f"exported anew?)")
    return lines


def _rules_caveat(baseline: Baseline) -> str:
    """Another build cut claims, decided them or computed a metric otherwise: the changes it made read as
    the candidate's. `ragmon_version` could not tell (it stayed 0.1.0 while the rules changed)."""
    rules = ("a ragmon that did not record its scoring rules (before 4 December 2026)"
             if baseline.scoring_rules is None else f"ragmon's scoring rules {baseline.scoring_rules}")
    return (f"the baseline {baseline.path} was scored with {rules}, this run with rules {SCORING_RULES}: "
            f"claims, the lexical judge's verdicts or a metric may be computed otherwise, so some drops and "
            f"gains may be ragmon's, not this run's (a baseline scored by this ragmon compares like with "
            f"like: {_REFRESH})")


_REFRESH = ("refresh the baseline with this build on main first, as an upgrade of ragmon in a PR of its own "
            "changes no answer and its moves are ragmon's")


def _respelled(baseline: Baseline, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(this run's id, the baseline's) for each id of this run the baseline has only in another form, as
    a spreadsheet's export or another OS's file names write it: the same text to a reader, another id to
    the dataset (which keeps "a" and "a " apart), and so to the comparison."""
    scored = set(ids)
    gone: dict[str, str] = {}
    for example_id in baseline.examples:
        if example_id not in scored:
            gone.setdefault(id_key(example_id), example_id)
    return [(example_id, gone[key]) for example_id in ids
            if example_id not in baseline.examples and (key := id_key(example_id)) in gone]


class _Reader:
    """Typed fields of the report, each error naming the file and the field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def get(self, doc: dict[str, Any], key: str, kind: type | tuple[type, ...], wanted: str,
            where: str | None = None) -> Any:
        where = where or key
        if key not in doc:
            raise InputError(f"the baseline is not a ragmon report: {key!r} is missing; {WRITTEN_BY}",
                             source=self.source, field=where)
        return self.check(doc[key], kind, wanted, where)

    def check(self, value: Any, kind: type | tuple[type, ...], wanted: str, where: str) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int to Python, not to a report: `"k": true` or a metric of `true` is a broken file.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            self.fail(wanted, where)
        return value

    def fail(self, wanted: str, where: str) -> NoReturn:
        raise InputError(f"the baseline is not a ragmon report: expected {wanted}", source=self.source,
                         field=where)


def check_comparable(baseline: Baseline, judge: Mapping[str, Any], k: int) -> None:
    """Refuse a baseline scored by another judge, other judge settings or another k: its figures measure
    something else, so a drop against it would mean nothing. `judge` is this run's, in JSON types."""
    differences = []
    if baseline.judge.get("name") != judge.get("name"):
        differences.append(f"judge {_shown(baseline.judge.get('name'))} in the baseline, "
                           f"{_shown(judge.get('name'))} in this run")
    else:
        for key in sorted((set(baseline.judge) | set(judge)) - {"name"}):
            before, now = baseline.judge.get(key, _ABSENT), judge.get(key, _ABSENT)
            if before != now:
                differences.append(f"judge {key} {_shown(before)} in the baseline, {_shown(now)} in this run")
    if baseline.k != k:
        differences.append(f"k {baseline.k} in the baseline, {k} in this run")
    if differences:
        raise InputError(f"the baseline is not comparable with this run: {'; '.join(differences)} (score "
                         f"both with the same judge, judge settings and --k)", source=baseline.path)


_ABSENT = object()


def _shown(value: Any) -> str:
    return "(not set)" if value is _ABSENT else json.dumps(value, ensure_ascii=False)


def compare(baseline: Baseline, report: Report, gated: Collection[str] = ()) -> Comparison:
    """This run's `report` against the baseline; `gated` names the metrics of the run's drop gates, for
    the caveats of what they cannot see (`_unrecorded`)."""
    ids = [replace_lone_surrogates(result.example.id) for result in report.results]  # as the baseline's
    scored = set(ids)
    pairs = tuple((result, baseline.examples[example_id])
                  for result, example_id in zip(report.results, ids, strict=True)
                  if example_id in baseline.examples)
    gone = tuple(example_id for example_id in baseline.examples if example_id not in scored)
    metrics = {name: _change(name, pairs, baseline.examples.values(), report.results)
               for name in METRIC_NAMES}
    return Comparison(baseline.path, baseline.ragmon_version, len(pairs), len(report.results) - len(pairs),
                      gone, metrics, _worsened(pairs, "groundedness"), pairs,
                      (*_moved_by_rules(baseline, pairs, gated), *_unrecorded(baseline, pairs, gated)),
                      baseline.scoring_rules)


def _moved_by_rules(baseline: Baseline, pairs: Sequence[tuple[ExampleResult, BaselineExample]],
                    gated: Collection[str]) -> tuple[str, ...]:
    """A caveat naming the shared examples whose figures moved while their answers did not, as this run's
    claims are the baseline's with citations read out: their drops and gains are this build's rules', and
    averaged with the others' they can hide a real regression (three such gains passed a drop gate over an
    example gone from 1 to 0), so the gated metrics' change over the other examples is given too."""
    if (baseline.scoring_rules or 0) >= READ_OUT_RULES:  # its claims were read out as this run's are
        return ()
    moved = [_rescored(result, before) for result, before in pairs]
    if not any(moved):
        return ()
    ids = [_clipped(result.example.id, ID_SHOWN) for (result, _), rescored in zip(pairs, moved, strict=True)
           if rescored]
    named = ", ".join(map(repr, ids[:SHOWN_IDS])) + (", ..." if len(ids) > SHOWN_IDS else "")
    rest = [pair for pair, rescored in zip(pairs, moved, strict=True) if not rescored]
    others = [f"{name} {_signed(change.delta)} ({_figure(change.baseline)} -> {_figure(change.candidate)} "
              f"over {change.n})" for name in METRIC_NAMES if name in gated
              and (change := _change(name, rest, (), ())).delta is not None]
    without = f"; without them, {', '.join(others)}" if others else ""
    return (f"{len(ids)} of the {len(pairs)} examples both runs have {'is' if len(ids) == 1 else 'are'} "
            f"scored otherwise by the new rules ({named}): their claims are the baseline's with citations of "
            f"retrieved ids, or refusals naming them, read out (scoring rules 15 to {READ_OUT_RULES}), so "
            f"their drops and "
            f"gains are ragmon's, not this run's{without}; {_REFRESH}",)


def _rescored(result: ExampleResult, before: BaselineExample) -> bool:
    """Whether the example's claims are the baseline's only read out otherwise, and a figure the claims
    decide moved: others (citation_accuracy, say) move with inputs the baseline does not record too."""
    now = tuple(_normal(v.claim.text) for v in result.verdicts)
    return (now != before.claims and now == _read_out(before.claims, result.example)
            and any(_value(before.metrics.get(name)) != _value(result.metrics.get(name))
                    for name in CLAIM_METRICS))


def _read_out(texts: Iterable[str], example: Example) -> tuple[str, ...]:
    """Claims of the baseline as this build reads them: without their citations of this run's retrieved
    ids (the baseline records no ids of its own), a claim of nothing but citations gone. Each claim spans
    its own text of the joined answer, since `read_out` reads only the claims a citation is written in:
    claims all spanning the answer's first characters kept a later sentence's citations."""
    texts = tuple(texts)
    claims, start = [], 0
    for text in texts:
        claims.append(Claim(text, start, start + len(text)))
        start += len(text) + 1  # the space joining them
    read = cited_ids.read_out(" ".join(texts), tuple(claims), (c.id for c in example.contexts or ()))
    return tuple(_normal(claim.text) for claim in read)


def _signed(delta: float) -> str:
    return "unchanged" if delta == 0 else f"{delta:+.4g}"


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _unrecorded(baseline: Baseline, pairs: Sequence[tuple[ExampleResult, BaselineExample]],
                gated: Collection[str]) -> tuple[str, ...]:
    """A caveat where a baseline that does not say which answers abstained left out a pair a drop gate on
    a claim metric would have compared had it said so: groundedness measured now and not there, which an
    abstention then (compared, ABSTAINED_AS) and contexts unknown then (not) alike leave. Pairs without
    groundedness now, or gates on other metrics, lose nothing to it, and are not counted: a warning about
    every golden set without contexts, or every answer abstaining in both runs, would be one to ignore."""
    if not ABSTAINED_AS.keys() & set(gated):
        return ()
    unseen = sum(before.abstained is None and _value(before.metrics.get("groundedness")) is None
                 and _value(result.metrics.get("groundedness")) is not None for result, before in pairs)
    if not unseen:
        return ()
    return (f"the baseline {baseline.path} does not record which answers abstained (an older ragmon wrote "
            f"it): {unseen} of the {len(pairs)} examples both runs have {'lacks' if unseen == 1 else 'lack'} "
            f"groundedness there and {'has' if unseen == 1 else 'have'} it now, left out of the comparison, "
            f"so a drop gate cannot see one gone from an abstention to a made-up answer (a baseline written "
            f"by this ragmon can)",)


def abstained(result: ExampleResult) -> bool:
    """Its answer is known and declines: no claim, and it says so or says nothing (`cited_ids.declines`).
    Recorded per example in the JSON report: a later run compares such an example where it now makes
    claims (ABSTAINED_AS), and an undefined groundedness alone does not tell it from contexts unknown.
    With the contexts unknown it is false, whatever the answer: that run decided no claim, so its
    verdicts cannot tell an answer that declines from one that makes claims, and telling them apart by
    splitting every such answer again cost the JSON writer ten times its time (every answer that makes
    claims has no verdicts there). With the contexts known, no verdicts means no claims, so only those few
    answers are read."""
    answer = result.example.answer
    return (result.example.contexts is not None and answer is not None and not result.verdicts
            and cited_ids.declines(answer, (context.id for context in result.example.contexts)))


def _pair(name: str, result: ExampleResult, before_example: BaselineExample) -> tuple[Measured, bool]:
    """A shared example's values of `name` as compared, and whether the baseline's is its abstention's."""
    before, after = _value(before_example.metrics.get(name)), _value(result.metrics.get(name))
    if before is None and after is not None and before_example.abstained and name in ABSTAINED_AS:
        return (ABSTAINED_AS[name], after), True
    return (before, after), False


def _worsened(pairs: Sequence[tuple[ExampleResult, BaselineExample]], metric: str) -> tuple[Change, ...]:
    higher_is_worse = metric in LOWER_IS_BETTER
    changes = []
    for result, before_example in pairs:
        (before, after), imputed = _pair(metric, result, before_example)
        if after is None:
            continue
        if before is None:
            worse = metric in CLAIM_METRICS and any(not v.supported for v in result.verdicts)
        else:
            worse = after > before if higher_is_worse else after < before
        if worse:
            known = _unsupported(result, before_example)
            new = tuple(v for v in result.verdicts if not v.supported and _normal(v.claim.text) not in known)
            changes.append((Change(result, None if imputed else before, after, new, imputed), before))

    def key(item: tuple[Change, float | None]) -> tuple[bool, float]:
        change, before = item
        after = change.after or 0.0
        if before is None:  # newly measured: after the changes that have a size, worst first
            return True, -after if higher_is_worse else after
        return False, -abs(after - before)

    return tuple(change for change, _ in sorted(changes, key=key))


def _unsupported(result: ExampleResult, before: BaselineExample) -> frozenset[str]:
    """The baseline's unsupported sentences as written and as this build reads them: a baseline of rules
    before the citation read-out wrote "... purchase (KB-1234).", which this run's unchanged sentence
    no longer equals. Read out by text, not matched by span: a sentence edited to one of the same length
    ("3 to 5" to "3 to 7") keeps its span."""
    return before.unsupported | frozenset(_read_out(before.unsupported, result.example))


def _change(name: str, pairs: Sequence[tuple[ExampleResult, BaselineExample]],
            before_all: Iterable[BaselineExample], now_all: Iterable[ExampleResult]) -> MetricChange:
    paired = [_pair(name, result, example) for result, example in pairs]
    measured = tuple(value for value, _ in paired if value != (None, None))
    baseline_n = sum(_value(example.metrics.get(name)) is not None for example in before_all)
    candidate_n = sum(_value(result.metrics.get(name)) is not None for result in now_all)
    both = [(before, after) for before, after in measured if before is not None and after is not None]
    return MetricChange(_mean([before for before, _ in both]), _mean([after for _, after in both]), measured,
                        baseline_n, candidate_n, sum(imputed for _, imputed in paired))


def _mean(values: Sequence[float]) -> float | None:
    """statistics.mean sums exactly, as the report's aggregates do: the same examples give the same mean."""
    return float(statistics.mean(values)) if values else None


def _value(value: float | None) -> float | None:
    """NaN is no observation, as in the aggregates."""
    return None if value is None or math.isnan(value) else float(value)


def _normal(sentence: str) -> str:
    return " ".join(replace_lone_surrogates(sentence).split())
