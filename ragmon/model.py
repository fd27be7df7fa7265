"""The data every part of ragmon passes around: one shape for online and offline scoring.

`None` always means "unknown", which is not the same as empty: `contexts=()` says retrieval returned
nothing, `contexts=None` says we were never told. Metrics depend on that difference.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal
from itertools import islice
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, SupportsFloat, SupportsIndex, TypeGuard, cast

METRIC_NAMES: tuple[str, ...] = (
    "hit_rate",
    "precision",
    "recall",
    "mrr",
    "ndcg",
    "groundedness",
    "hallucination_rate",
    "citation_accuracy",
    "citation_coverage",
    "context_utilisation",
    "answer_relevance",
    "answer_correctness",
    "abstention",
)
"""Every per-example metric, in report order."""

REPR_TEXT_CHARS = 60
"""Characters of a text a repr shows; the rest is counted."""
REPR_ITEMS = 20
"""Items of a tuple, set or mapping a repr shows, more than a result's metrics; the rest are counted."""
REPR_DEPTH = 4
"""Levels of nested collections a repr shows: `extra` holds whatever a dataset gave, a dict that holds
itself too."""

LOWER_IS_BETTER: frozenset[str] = frozenset({"hallucination_rate"})
"""Metrics a gate treats as a maximum; every other metric is gated as a minimum."""


def _bounded_repr(self: Any) -> str:
    """A dataclass's repr with each text cut to its beginning and length, and each collection to its first
    items and count: a 400 KB manual in the contexts, a 1 MB answer or ground truth, or the thousands of
    verdicts of a long answer made the repr of an example or a result megabytes, flooding a notebook cell,
    a log line or a failed assertion. Short values read as the default repr; equality and hashing still
    use every field whole."""
    shown = ", ".join(f"{f.name}={_shown(getattr(self, f.name), 0)}" for f in fields(self) if f.repr)
    return f"{type(self).__name__}({shown})"


def _shown(value: object, depth: int) -> str:
    if isinstance(value, str):
        if len(value) <= REPR_TEXT_CHARS:
            return repr(value)
        return f"{value[:REPR_TEXT_CHARS]!r}... ({len(value):,} characters)"
    if isinstance(value, bytes | bytearray) and len(value) > REPR_TEXT_CHARS:  # a PDF carried in `extra`
        return f"{bytes(value[:REPR_TEXT_CHARS])!r}... ({len(value):,} bytes)"
    if not _collection(value) or not value:
        return repr(value)
    if depth == REPR_DEPTH:
        return "..."
    if isinstance(value, Mapping):
        pairs = (f"{_shown(key, depth + 1)}: {_shown(item, depth + 1)}" for key, item in value.items())
        return "{" + _counted(pairs, len(value)) + "}"
    opening, closing = _BRACKETS[type(value)]
    # A set's first by str, so it reads the same in every process: its own order follows the hash seed.
    items = heapq.nsmallest(REPR_ITEMS, value, key=str) if isinstance(value, set | frozenset) else value
    shown = _counted((_shown(item, depth + 1) for item in items), len(value))
    return f"{opening}{shown}{',' * (type(value) is tuple and len(value) == 1)}{closing}"


_BRACKETS: dict[type, tuple[str, str]] = {tuple: ("(", ")"), list: ("[", "]"), set: ("{", "}"),
                                          frozenset: ("frozenset({", "})")}


def _collection(value: object) -> TypeGuard[Mapping[Any, Any] | Collection[Any]]:
    """A mapping, or a tuple, list or set itself: a named tuple or another subclass keeps its own repr."""
    return isinstance(value, Mapping) or type(value) in _BRACKETS


def _counted(shown: Iterable[str], total: int) -> str:
    """The first REPR_ITEMS of `shown`, then how many of the `total` are not."""
    first = list(islice(shown, REPR_ITEMS))
    more = f", ... ({total - len(first):,} more)" if total > len(first) else ""
    return ", ".join(first) + more


@dataclass(frozen=True, slots=True)
class Context:
    """One retrieved document as the generator saw it; position in `Example.contexts` is its rank.

    Verdicts, citations and relevant ids name a context by its id, so an Example refuses one whose id is
    empty or spaces, and contexts sharing an id (chunks keyed by their file) are one document to them.

    Any real `score` is taken: vector stores hand back numpy's float32, which is no Python float. It is
    stored as a float, so a report can write it as JSON. A NaN or infinite one (pandas' empty cell) is
    stored as None, as the dataset files and `ragmon.instrument` read it: kept as NaN, which equals
    nothing, an example equalled no copy of itself, and a report pickled back from a worker process
    differed from the one sent."""

    id: str
    text: str
    score: float | None = None

    if TYPE_CHECKING:
        # What the check below takes, for a user's type checker: numpy's float32 is no `float` to it.
        def __init__(self, id: str, text: str, score: SupportsFloat | None = None) -> None: ...

    def __post_init__(self) -> None:
        _store_text(self, "Context.", "id", False)
        _store_text(self, "Context.", "text", False)
        score = self.score
        if score is not None and type(score) is not int:
            number = real_as_written(score)
            if number is None:
                raise TypeError(f"Context.score must be a number or None, got {type(score).__name__}")
            if (kept := number if math.isfinite(number) else None) is not score:
                object.__setattr__(self, "score", kept)

    __repr__ = _bounded_repr


@dataclass(frozen=True, slots=True)
class Example:
    """One question with what was retrieved and answered; `extra` carries unknown input fields along.

    Checked when built, so a mistake fails here, naming the field, rather than deep in scoring or, worse,
    silently: a string of citations would be read one character per id. Lists and other iterables are
    taken for the tuple and frozenset fields and stored as those, which keeps an Example hashable."""

    id: str
    question: str
    contexts: tuple[Context, ...] | None = None
    answer: str | None = None
    relevant_ids: frozenset[str] | None = None
    citations: tuple[str, ...] | None = None
    ground_truth: str | None = None
    category: str | None = None
    pipeline: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    __repr__ = _bounded_repr

    if TYPE_CHECKING:
        # What the checks below take, for a user's type checker: it would refuse the lists they accept.
        def __init__(self, id: str, question: str, contexts: Iterable[Context] | None = None,
                     answer: str | None = None, relevant_ids: Iterable[str] | None = None,
                     citations: Iterable[str] | None = None, ground_truth: str | None = None,
                     category: str | None = None, pipeline: str | None = None,
                     extra: Mapping[str, Any] = ...) -> None: ...

    def __post_init__(self) -> None:
        _store_text(self, "Example.", "id", False)
        if not self.id.strip():  # reports, the weakest examples and the JUnit cases name every example by it
            raise ValueError(f"Example.id must not be empty or spaces, got {self.id!r}: every example needs "
                             "an id of its own")
        # Once the id is known to be a string, errors name the example: in a list of thousands built
        # from a file or a trace store, "contexts[0] must be a Context" alone does not say which one.
        where = f"Example {self.id!r}: "
        _store_text(self, where, "question", False)
        for name in ("answer", "ground_truth", "category", "pipeline"):
            _store_text(self, where, name, True)
        if self.ground_truth is not None and not self.ground_truth.strip():
            # A spreadsheet's empty cell read as "": every answer scored answer_correctness 0 against it.
            # The dataset files refuse it too, and the sidecar reads it as unknown.
            raise ValueError(f"{where}ground_truth must not be empty or spaces, got {self.ground_truth!r}: "
                             "pass None where no reference answer is known")
        if self.contexts is not None:
            contexts = _items(where, "contexts", self.contexts, Context, tuple)
            for index, context in enumerate(contexts):
                if not context.id.strip():  # six contexts all named "" were one to every metric of use
                    raise ValueError(f"{where}contexts[{index}].id must not be empty or spaces, got "
                                     f"{context.id!r}: a verdict, a citation and relevant_ids name a context "
                                     "by its id")
            object.__setattr__(self, "contexts", contexts)
        if self.relevant_ids is not None:
            relevant = _items(where, "relevant_ids", self.relevant_ids, str, frozenset)
            object.__setattr__(self, "relevant_ids", relevant)
        if self.citations is not None:
            object.__setattr__(self, "citations", _citations(where, self.citations, self.contexts or ()))
        if type(self.extra) is not dict and not isinstance(self.extra, Mapping):
            raise TypeError(f"{where}extra must be a mapping, got {type(self.extra).__name__}")
        # A copy: the caller's dict, changed after, changed the frozen example (and its reports) with it.
        object.__setattr__(self, "extra", dict(self.extra))


def check_text(owner: str, name: str, value: object, *, optional: bool = False) -> None:
    """A TypeError naming `owner.name` unless `value` is a string (or None, when optional)."""
    _text(f"{owner}.", name, value, optional)


def _store_text(obj: object, where: str, name: str, optional: bool) -> None:
    """`_text` of the field `name` of the frozen `obj`, stored in its place when it is not the same."""
    value = getattr(obj, name)
    if (text := _text(where, name, value, optional)) is not value:
        object.__setattr__(obj, name, text)


def _text(where: str, name: str, value: object, optional: bool) -> str | None:
    """The text to store for `value` (`_plain`), None for an optional one left unknown."""
    if isinstance(value, str):
        return _plain(value)
    if not (optional and value is None):
        wanted = "a string or None" if optional else "a string"
        raise TypeError(f"{where}{name} must be {wanted}, got {type(value).__name__}"
                        f"{_nan(value) if optional else _nan(value, name)}")
    return None


def _plain(text: str) -> str:
    """A str itself, as given; a subclass's as a str: numpy's str_ (a pandas row's, an array's) was stored
    as it came, so a repr read `Example(id=np.str_('q1'), ...)` and an error "Example np.str_('q1')".
    `str.__str__`, not `str()`: an enum that is a str too (`class Tier(str, Enum)`) prints as `Tier.GOLD`,
    and its text is "gold"."""
    return text if type(text) is str else str.__str__(text)


def _nan(value: object, required: str | None = None) -> str:
    """What to pass for NaN, pandas' missing value, where None means unknown, or what to do of a row where
    the `required` field is missing: "got float" alone, for a column of text with empty cells, said
    neither which value was a float nor what to pass instead."""
    if not (isinstance(value, float) and math.isnan(value)):
        return ""
    if required is not None:
        return f" (NaN, pandas' missing value: {required} cannot be unknown, so fill or drop the row)"
    return " (NaN, pandas' missing value: pass None for one that is unknown)"


def _items(where: str, name: str, value: Any, kind: type, container: Callable[[Iterable[Any]], Any]) -> Any:
    """`value` as `container`, every item a `kind`, ids as plain strs (`_plain`). A lone string is
    refused: its characters are no ids. So is a mapping of ids: BEIR and TREC qrels map each id to a
    grade, and read as keys every id graded 0 (judged not relevant) counted as relevant."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        hint = _FROM_MAPPING.get(name, "") if isinstance(value, Mapping) else _nan(value)
        raise TypeError(f"{where}{name} must be an iterable of {kind.__name__}, got "
                        f"{type(value).__name__}{hint}")
    items = value if type(value) is container else list(value)  # a list keeps the positions for errors
    for index, item in enumerate(items):
        if not isinstance(item, kind):
            raise TypeError(f"{where}{name}[{index}] must be a {kind.__name__}, got {type(item).__name__}"
                            + (_AS_CONTEXT.get(type(item), _FROM_DOCUMENT if hasattr(item, "page_content")
                                               else "") if kind is Context else ""))
        if isinstance(item, str) and not item.strip():
            raise ValueError(f"{where}{name}[{index}] must not be empty or spaces, got {_plain(item)!r}: no "
                             f"context can have that id{_BLANK_ID}")
    if kind is str and not all(type(item) is str for item in items):
        items = [_plain(item) for item in items]
    return items if type(items) is container else container(items)


def _citations(where: str, citations: Any, contexts: tuple[Context, ...]) -> tuple[str, ...]:
    """The citations as `_items` stores them; whole numbers are refused with what to pass instead:
    `citations=[1, 2]` is read by many as the first and second contexts, and "must be a str, got int"
    said neither that a citation is a context's id nor which ids those are."""
    try:
        return cast(tuple[str, ...], _items(where, "citations", citations, str, tuple))
    except TypeError as exc:
        numbers = citations if isinstance(citations, list | tuple) else ()
        if not numbers or not all(type(n) is int and n >= 0 for n in numbers):
            raise
        raise TypeError(f"{exc}: {_as_ids([str(n) for n in numbers], contexts)}") from None


def _as_ids(cited: list[str], contexts: tuple[Context, ...]) -> str:
    # example_warnings imports this module.
    from ragmon.example_warnings import first_position, past_contexts, past_named, positional, positions

    said = "citations are context ids, as strings"
    if not positional(cited, contexts):
        return f"{said}: pass {json.dumps(cited)}"
    meant, past = positions(cited, contexts)
    told = f"{said}, and no context's id is a number: as positions counted from {first_position(cited)}"
    if not meant:
        return f"{told} these are {past_contexts(contexts)}"
    told += f" these are {json.dumps(meant, ensure_ascii=False)}, the ids to pass"
    return f"{told}; {past_named(past, contexts)}" if past else told


_BLANK_ID = " (an empty cell split on ',' gives ['']: pass [] for none, None for unknown)"
"""Where a blank id in `relevant_ids` or `citations` comes from, and what it had scored: a relevant id
nothing can retrieve put every retrieval metric at 0 where [] marks the question unanswerable, and a
citation of nothing lowered citation accuracy. The dataset files refuse such ids and the sidecar leaves
them out."""


_AS_CONTEXT: dict[type, str] = {
    str: ": build it as Context(id, text), the id the one relevant_ids and citations name",
    dict: ": build it as Context(id, text, score) from its fields",
}
"""How to make a Context of what a retriever returns: `ragmon.instrument` takes these as they are, an
Example does not, and "must be a Context" alone left the user to find the constructor."""
_FROM_DOCUMENT = ": a LangChain Document is Context(doc.metadata['source'], doc.page_content)"
_FROM_MAPPING = {
    "contexts": ": for {id: text} pass [Context(id, text) for id, text in docs.items()]",
    "relevant_ids": ": its keys would all count as relevant, whatever their grades; from qrels "
                    "{id: grade} pass [d for d, g in qrels.items() if g > 0]",
    "citations": ": its keys would all count as cited; pass the cited ids as a list, in the answer's order",
}
"""What to pass instead of a mapping, per field: iterated, it gives its keys alone."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One checkable sentence of an answer; `start:end` are character offsets into the answer."""

    text: str
    start: int
    end: int

    __repr__ = _bounded_repr

    def __reduce__(self) -> tuple[type[Claim], tuple[str, int, int]]:
        """Pickled as its constructor's arguments, as `ClaimVerdict` is."""
        return Claim, (self.text, self.start, self.end)


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """A judge's decision on one claim; `supporting_ids` are ids of the given contexts only."""

    claim: Claim
    supported: bool
    supporting_ids: tuple[str, ...] = ()
    reason: str | None = None

    __repr__ = _bounded_repr

    def __reduce__(self) -> tuple[type[ClaimVerdict], tuple[Claim, bool, tuple[str, ...], str | None]]:
        """Pickled as its constructor's arguments: each of a lexical worker's results comes back to the
        sidecar's main process pickled (`ragmon.scoring.read_result`), and a frozen slotted dataclass
        otherwise unpickles through `dataclasses.fields` and `object.__setattr__` for each field, ~2% of
        the main process's CPU."""
        return ClaimVerdict, (self.claim, self.supported, self.supporting_ids, self.reason)


@dataclass(frozen=True, slots=True)
class ExampleResult:
    """Everything a report or an exporter needs about one scored example.

    Hashable, as a frozen dataclass promises (results of two runs compared as sets, a result as a dict
    key): `metrics`, a dict, is compared but not hashed, as `Example.extra` is left out of both; the
    example and the verdicts it was computed from are hashed."""

    example: Example
    judge: str
    metrics: Mapping[str, float | None] = field(hash=False)
    verdicts: tuple[ClaimVerdict, ...]
    relevant_not_retrieved: tuple[str, ...] = ()
    retrieved_unused: tuple[str, ...] = ()
    """Retrieved contexts no supported claim names; empty when that is unknown too: a judge may call a
    claim supported without naming a context, which could then be any of them."""

    __repr__ = _bounded_repr


MIN_BOOTSTRAP_SAMPLES = 200
"""Fewest bootstrap rounds an interval is read from: with 2 rounds a "95% interval" of a mean of 0.5 was
(0.504, 0.663), leaving the mean out, and with 1 it was a single point."""


@dataclass(frozen=True, slots=True)
class EvalConfig:
    """Settings of one evaluation; `k` cuts retrieval metrics, generation metrics see every context.

    `bootstrap_samples` is the number of bootstrap rounds asked for: 0 asks for no intervals (every
    `Aggregate.ci` is None), else at least `MIN_BOOTSTRAP_SAMPLES`. Over 1,000 examples fewer rounds are
    run, never under that minimum (`ragmon.metrics.aggregate.bootstrap_rounds`): the interval is narrow
    then, and the rounds' cost grows with the examples. `Aggregate.rounds` says how many each interval
    was read from. Checked when built: a negative count would silently drop the intervals too, and a seed
    of None would draw different ones on every run, where a report must be reproducible. A field of the
    wrong type (a string, a float count, a bool, None) is a TypeError, a value out of range a ValueError.
    Whole numbers of numpy's (a config table's int64) are taken and stored as ints."""

    k: int = 5
    bootstrap_samples: int = 1000
    confidence: float = 0.95
    seed: int = 0

    if TYPE_CHECKING:
        # What the checks below take, for a user's type checker: numpy's int64 is no `int` to it, nor
        # its float32 a `float`.
        def __init__(self, k: SupportsIndex = 5, bootstrap_samples: SupportsIndex = 1000,
                     confidence: SupportsFloat = 0.95, seed: SupportsIndex = 0) -> None: ...

    def __post_init__(self) -> None:
        # A field of the wrong type (a string, a float, a bool, None) is a TypeError, one of the right type
        # that cannot score a ValueError, as the README promises for every field and argument.
        k = self.k
        if not whole(k) or k < 1:
            raise (ValueError if whole(k) else TypeError)(
                f"EvalConfig.k must be a whole number of at least 1, got {k!r}")
        samples = self.bootstrap_samples
        if not whole(samples) or samples < 0 or 0 < samples < MIN_BOOTSTRAP_SAMPLES:
            raise (ValueError if whole(samples) else TypeError)(
                f"EvalConfig.bootstrap_samples must be 0 (no intervals) or a whole number of at least "
                f"{MIN_BOOTSTRAP_SAMPLES}, got {samples!r}")
        confidence = self.confidence
        # A float before the range is checked: Decimal("NaN") raises on `<` where float's NaN is unordered.
        level = real_as_written(confidence)
        if level is None or not 0 < level < 1:
            raise (TypeError if level is None else ValueError)(
                f"EvalConfig.confidence must be a number in (0, 1), got {confidence!r}")
        if type(confidence) is not float:  # numpy's float32 as a float, which a report writes as JSON
            object.__setattr__(self, "confidence", level)
        if not whole(self.seed):
            raise TypeError("EvalConfig.seed must be a whole number, so intervals are the same on every "
                            f"run, got {self.seed!r}")
        for name in ("k", "bootstrap_samples", "seed"):
            # numpy's int64 as an int: `random.Random` refuses it as a seed, and a report writes it as JSON.
            if type(value := getattr(self, name)) is not int:
                object.__setattr__(self, name, int(value))


def _as_written(number: SupportsFloat) -> float:
    """A number as the float it was written as: numpy's float32 0.95 is 0.949999988079071 as a float, and a
    level of that put one grounded answer's interval at (0.0250000059604645, 1), not the (0.025, 1) of 0.95.
    numpy prints a float of its own as the shortest decimal that reads back as it, which is what was
    written; any other number is converted as it is."""
    return float(str(number)) if type(number).__module__ == "numpy" else float(number)


def real_as_written(value: object) -> float | None:
    """A real number (`_real`) as the float it was written as (`_as_written`), else None: what a number the
    API takes of numpy's or a database's is read as. NaN for a NaN of any kind: Decimal's signalling NaN
    refuses float()."""
    if type(value) is float:  # most are: read as it is, without `_real`'s checks against abstract classes
        return value
    if not _real(value):
        return None
    try:
        return _as_written(value)
    except ValueError:
        return math.nan


def _real(value: object) -> TypeGuard[SupportsFloat]:
    """A real number, a Decimal too (a database's NUMERIC column, which `numbers.Real` leaves out), and not
    a bool: True would read as 1 and hide a mistake."""
    return isinstance(value, Real | Decimal) and not isinstance(value, bool)


def numpy_bool(value: object) -> bool:
    """numpy's bool (`numpy.bool_`, named `numpy.bool` since numpy 2), told without importing numpy."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def whole(value: object) -> bool:
    """A whole number (an int, or numpy's int64 from a config table), and not a bool: True would read as 1
    and hide a mistake."""
    return isinstance(value, Integral) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Aggregate:
    """Unweighted mean over the examples where a metric is defined; `n` counts them.

    Undefined (`mean is None`, `n == 0`) is not zero: `float()` of it raises instead of inventing 0.0.
    """

    mean: float | None
    n: int
    ci: tuple[float, float] | None = None
    metric: str = field(default="", compare=False, repr=False)
    """The metric's name, when the aggregate was computed for one: for the error of `float()`."""
    rounds: int = field(default=0, compare=False, repr=False)
    """Bootstrap rounds `ci` was read from: `EvalConfig.bootstrap_samples`, fewer over 1,000 examples
    (never under `MIN_BOOTSTRAP_SAMPLES`), less the rounds whose resample drew no example defining the
    metric. 0 when none were needed: no interval, or a metric of one value everywhere (or of one example),
    whose interval is then the binomial bound alone (`ragmon.metrics.aggregate`)."""

    @property
    def defined(self) -> bool:
        """Whether any example observed the metric: a gate on an undefined one must fail, not pass."""
        return self.mean is not None

    def __float__(self) -> float:
        if self.mean is None:
            name = f"metric {self.metric!r}" if self.metric else "metric"
            raise ValueError(f"{name} is undefined: no example had an observation")
        return self.mean


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of scoring a dataset: per-example results plus aggregates, ready for gates and reports.

    `aggregates` holds one `Aggregate` per name in METRIC_NAMES, in that order; `results` one
    `ExampleResult` per scored example, in input order, with its metrics and claim verdicts.

    Hashable, as a frozen dataclass promises and `ExampleResult` is (a report as a cache key, the reports
    of two runs in a set): the judge's settings and the aggregates, dicts, are compared but not hashed;
    the aggregates follow from the results and the config, which are."""

    judge: Mapping[str, Any] = field(hash=False)
    k: int
    results: tuple[ExampleResult, ...]
    aggregates: Mapping[str, Aggregate] = field(hash=False)
    skipped: tuple[tuple[str, str], ...] = ()
    """(example id, reason) for examples a judge could not score, when the run was told to skip them."""
    config: EvalConfig = EvalConfig()
    """What the aggregates were computed with: a gate or a report reading their intervals needs the level
    they are at, and the resamples to read another level from."""
    warnings: tuple[tuple[str, str], ...] = ()
    """(example id, warning) for examples scored whole but with something a reader of the figures should
    know: a recorded trace of several requests, of which only the last was scored. In the report files, not
    only on the terminal, because a CI job's log is read less often, and kept for less long, than its
    reports. Last, so that a Report built by position keeps its meaning."""
    run_warnings: tuple[str, ...] = ()
    """The run's warnings, of no example: what `evaluate` found in the examples as a whole (citations that
    look like positions, ids that look alike), which a figure alone would not show. `ragmon replay` writes
    its own, naming files and lines, in their place."""

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data: the document `ragmon replay --json` writes of a run without gates, whose
        schema is kept stable, undefined figures null (never NaN, which strict parsers refuse).
        `dataclasses.asdict` is no route to JSON: it keeps `relevant_ids` a frozenset, and NaN as NaN."""
        from ragmon.report.json import to_dict  # which imports this module

        return to_dict(self, (), run_warnings=self.run_warnings)

    def __repr__(self) -> str:
        # Counts, not contents: a report of 10,000 examples would print megabytes of context text in a
        # notebook cell, a log line or a failed assertion. The results are a field away. The judge's
        # settings are cut as an example's texts are: a judge of one's own records its prompt there.
        return (f"Report(judge={_shown(self.judge, 0)}, k={self.k!r}, results=<{len(self.results)} results>, "
                f"aggregates={self.aggregates!r}, skipped=<{len(self.skipped)} skipped>, "
                f"config={self.config!r}, warnings=<{len(self.warnings)} warnings>)")
