"""The scoring core both front doors call: the sidecar per trace, `ragmon replay` per dataset row.

`score_example` is pure (verdicts in, metrics out) so the sidecar can await a network judge first and
still compute exactly what `evaluate_example` would: an online and an offline figure for the same
example are identical. Either way a judge's verdicts are checked before any metric sees them (`checked`):
a user can plug in their own judge, and its mistakes must fail loudly, not shift a gated average.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import operator
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, SupportsIndex, TypeVar, cast

from ragmon.example_warnings import run_warnings
from ragmon.judges.base import AsyncJudge, Judge, JudgeError
from ragmon.judges.lexical import LexicalJudge
from ragmon.metrics import generation as gen
from ragmon.metrics import retrieval as ret
from ragmon.metrics.aggregate import aggregate_columns
from ragmon.model import (
    METRIC_NAMES,
    Aggregate,
    Claim,
    ClaimVerdict,
    EvalConfig,
    Example,
    ExampleResult,
    Report,
    numpy_bool,
    whole,
)
from ragmon.text import cited_ids
from ragmon.text.claims import split_claims

Progress = Callable[[int, int], None]
"""Called as progress(done, total) after each example."""
T = TypeVar("T")


def example_claims(example: Example) -> tuple[Claim, ...]:
    """The claims every judge decides, split here once so two judges always see the same sentences, with
    their citations of the example's retrieved documents read out ("(KB-1234)", `ragmon.text.cited_ids`):
    where the answer cites a document is nothing the document states."""
    if not example.answer:
        return ()
    claims = split_claims(example.answer)
    return cited_ids.read_out(example.answer, claims, (c.id for c in example.contexts or ()))


def verdicts_without_judge(example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...] | None:
    """Verdicts that need no judge: no claims, or no contexts to support them (nothing to pay a model
    for). None means the judge must decide. With the contexts unknown there are no verdicts at all: the
    claims are neither supported nor unsupported, and calling them unsupported would count them in
    every claim tally and quote them in reports as unsupported."""
    if not claims or example.contexts is None:
        return ()
    if not example.contexts:
        return tuple(ClaimVerdict(c, False, (), "no context was retrieved") for c in claims)
    return None


def score_example(example: Example, verdicts: Sequence[ClaimVerdict], k: int,
                  judge_name: str) -> ExampleResult:
    """Every metric of one example from verdicts its caller got from a judge (the sidecar's Claude lane),
    after the same per-verdict checks `checked` makes, so the figure is the one `evaluate_example` gives.
    Claim order is the caller's to keep: it split the claims (`example_claims`) and has no judge here."""
    verdicts = tuple(verdicts)
    return _scored(example, _sound(judge_name, example, verdicts, verdicts), k, judge_name)


def _scored(example: Example, verdicts: tuple[ClaimVerdict, ...], k: int, judge_name: str) -> ExampleResult:
    retrieved = None if example.contexts is None else [c.id for c in example.contexts]
    relevant = example.relevant_ids
    metrics = ret.retrieval_metrics(retrieved, relevant, k)
    used = gen.use(example, verdicts)  # asked by four metrics and the unused contexts: read once
    metrics.update(gen.generation_metrics(example, verdicts, used))
    missed: tuple[str, ...] = ()
    if retrieved is not None and relevant:
        missed = tuple(sorted(relevant.difference(ret.top_k(retrieved, k))))
    unused: tuple[str, ...] = ()  # also when unknown: a supported claim naming no context may rest on any
    if verdicts and retrieved is not None and used is not None:
        unused = tuple(doc for doc in dict.fromkeys(retrieved) if doc not in used)
    return ExampleResult(example, judge_name, metrics, verdicts, missed, unused)


def checked(judge: Judge | AsyncJudge, example: Example, claims: tuple[Claim, ...],
            returned: Iterable[ClaimVerdict]) -> tuple[ClaimVerdict, ...]:
    """What a judge returned, as a tuple with one verdict per claim in order, each sound (`_sound`); else
    a JudgeError, since any metric or label comparison would pair a claim with another claim's verdict.

    Taken as a tuple first: a generator would be spent by the first look, leaving the example with no
    verdicts, its groundedness undefined and so out of the gate's average. The LexicalJudge's verdicts
    skip the per-verdict checks: they are sound by construction (bools, tuples of its own contexts' ids),
    and this runs for every example the sidecar scores. A subclass may override `judge`: it is checked."""
    verdicts = returned if type(returned) is tuple else _materialised(judge.name, example, returned)
    if type(judge) is not LexicalJudge:
        verdicts = _sound(judge.name, example, verdicts, returned)
    given = tuple(v.claim for v in verdicts)
    if given != claims:
        raise JudgeError(_unpaired(judge.name, example, claims, given))
    return verdicts


def _unpaired(judge_name: str, example: Example, claims: tuple[Claim, ...], given: tuple[object, ...]) -> str:
    """Why verdicts whose claims are `given` do not pair with `claims`. With as many of each, the first
    verdict whose claim is not the one passed in is named: "2 verdicts for 2 claims, not one per claim in
    order" sent a judge that passed the claim's text, or built a Claim of its own, looking for a count
    that was right."""
    where = (f"judge {judge_name!r} returned {len(given)} verdicts for {len(claims)} claims of example "
             f"{example.id!r}")
    if len(given) != len(claims):
        return f"{where}, not one per claim in order"
    index = next(i for i, (got, claim) in enumerate(zip(given, claims, strict=True)) if got != claim)
    return (f"{where}, but verdict {index} is for {given[index]!r}, not claim {index} as passed in, "
            f"{claims[index]!r}: give each verdict the Claim object it decides, in order")


def _materialised(judge_name: str, example: Example, returned: object) -> tuple[Any, ...]:
    if inspect.isawaitable(returned):
        raise _unawaited(returned, f"judge {judge_name!r} returned {type(returned).__name__} for example "
                                   f"{example.id!r}, which ragmon does not await: a judge returns its "
                                   "verdicts from judge(example, claims), or from the coroutine ajudge, "
                                   "which aevaluate and acalibrate await")
    if not isinstance(returned, Iterable):
        raise JudgeError(f"judge {judge_name!r} returned {type(returned).__name__} for example "
                         f"{example.id!r}, not an iterable of ClaimVerdict")
    return tuple(returned)


def _sound(judge_name: str, example: Example, verdicts: tuple[Any, ...],
           returned: object) -> tuple[ClaimVerdict, ...]:
    """The verdicts with every field of the declared type, else a JudgeError naming the claim and field:
    a string "no" would count as supported, and a string of ids be read one character per id. numpy's
    bool (`similarity > 0.8`) is taken, as the bool it unambiguously is.

    Supporting ids not among the example's contexts are dropped (a note in the reason says which): a
    judge may only cite what was retrieved. A supported verdict that named ids, none of them retrieved,
    is support by nothing, so it becomes unsupported; one that named no id at all stays supported, since
    a judge need not track ids. Verdicts are rebuilt only where something changed."""
    retrieved: frozenset[str] | None = None
    fixed: list[ClaimVerdict] | None = None
    for index, verdict in enumerate(verdicts):
        if not isinstance(verdict, ClaimVerdict):
            raise JudgeError(f"judge {judge_name!r} returned {_returned_name(returned)} for example "
                             f"{example.id!r}, not an iterable of ClaimVerdict: item {index} is "
                             f"{type(verdict).__name__}")
        supported, ids, reason = verdict.supported, verdict.supporting_ids, verdict.reason
        if type(supported) is not bool:
            if not numpy_bool(supported):
                raise _wrong(judge_name, example, index, "supported", "a bool", supported)
            supported = bool(supported)
        if not isinstance(ids, tuple):
            if not isinstance(ids, list):
                raise _wrong(judge_name, example, index, "supporting_ids", "a tuple of str", ids)
            ids = tuple(ids)
        for n, doc in enumerate(ids):
            if not isinstance(doc, str):
                raise _wrong(judge_name, example, index, f"supporting_ids[{n}]", "a str", doc)
        if reason is not None and not isinstance(reason, str):
            raise _wrong(judge_name, example, index, "reason", "a str or None", reason)
        if ids:
            if retrieved is None:
                retrieved = frozenset(c.id for c in example.contexts or ())
            if not retrieved.issuperset(ids):
                stray = ", ".join(repr(doc) for doc in dict.fromkeys(ids) if doc not in retrieved)
                ids = tuple(doc for doc in ids if doc in retrieved)
                if supported and not ids:
                    supported, reason = False, f"supported only by ids never retrieved: {stray}"
                else:
                    note = f"[ragmon: dropped supporting ids never retrieved: {stray}]"
                    reason = f"{reason} {note}" if reason else note
        if supported is not verdict.supported or ids is not verdict.supporting_ids \
                or reason is not verdict.reason:
            if fixed is None:
                fixed = list(verdicts[:index])
            fixed.append(ClaimVerdict(verdict.claim, supported, ids, reason))
        elif fixed is not None:
            fixed.append(verdict)
    return verdicts if fixed is None else tuple(fixed)


def _unawaited(returned: Awaitable[object], why: str) -> TypeError:
    """The error for an awaitable that a function ragmon calls, and never awaits, returned; closed unrun. An
    `async def` judge or progress is refused before anything is judged, but one behind a plain decorator's
    wrapper returns its coroutine from a plain call: a judge's was a JudgeError, so with skip_judge_errors
    every example of a run came back skipped, and a progress's reported nothing, with Python's "never
    awaited" warning once per example. A TypeError: the judge did not fail to decide, it never ran."""
    if inspect.iscoroutine(returned):
        returned.close()
    return TypeError(why)


def _wrong(judge_name: str, example: Example, index: int, field: str, wanted: str,
           value: object) -> JudgeError:
    # Qualified outside the builtins: numpy's bool is named "bool" too, and "must be a bool, got bool" told
    # nothing.
    kind = type(value)
    named = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return JudgeError(f"judge {judge_name!r}, example {example.id!r}, claim {index}: {field} must be "
                      f"{wanted}, got {named}")


def _examples(examples: Iterable[Example]) -> tuple[Example, ...]:
    """The examples as a tuple, each an Example with an id of its own (reports and the skipped list are
    keyed by id: a second example under one id would hide the first); else an error naming where.

    A lone Example, string or mapping is refused as a whole: iterated, the first is no iterable and the
    others would be blamed one character or key at a time."""
    if isinstance(examples, Example | str | bytes | Mapping) or not isinstance(examples, Iterable):
        hint = ": wrap a single one in a list" if isinstance(examples, Example) else ""
        raise TypeError(f"examples must be an iterable of Example, got {type(examples).__name__}{hint}")
    items = tuple(examples)
    first: dict[str, int] = {}
    for index, example in enumerate(items):
        if not isinstance(example, Example):
            raise TypeError(f"examples[{index}] must be an Example, got {type(example).__name__}")
        seen = first.setdefault(example.id, index)
        if seen != index:
            raise ValueError(f"examples[{seen}] and examples[{index}] have the same id {example.id!r}: "
                             "every example needs an id of its own")
    return items


def evaluate_example(example: Example, judge: Judge, k: int) -> ExampleResult:
    """Split the answer into claims, have the judge decide them, and score the example."""
    claims = example_claims(example)
    verdicts = verdicts_without_judge(example, claims)
    if verdicts is None:
        try:
            returned = spent(judge.judge(example, claims))
        except Exception as exc:
            _blame(exc, judge, example)
            raise
        verdicts = checked(judge, example, claims, returned)
    return _scored(example, verdicts, k, judge.name)


def spent(returned: T) -> T | _Drawn:
    """What a judge returned, its verdicts drawn at once: where its call is timed and its exceptions are
    noted with the example. Drawn later, when the verdicts are checked, a generator judge's KeyError (or a
    lazy iterable's, or a lazy sequence's) named no example, and calibrate timed it at a microsecond an
    example. A tuple or list costs one type check; what is no iterable is left to `checked`'s error."""
    if type(returned) in (tuple, list) or not isinstance(returned, Iterable):
        return returned
    return _Drawn(returned)


class _Drawn(tuple[Any, ...]):
    """What `spent` drew from a judge's return other than a tuple or list, keeping the name of its type:
    drawn into a plain tuple, a judge returning a dict of claim to verdict, a str or a generator was told
    it "returned tuple", a type it never returned."""

    type_name: str

    def __new__(cls, returned: Iterable[Any]) -> _Drawn:
        drawn = super().__new__(cls, returned)
        drawn.type_name = type(returned).__name__
        return drawn


def _returned_name(returned: object) -> str:
    """The name of the type the judge returned, also for verdicts `spent` has drawn into a tuple."""
    return returned.type_name if isinstance(returned, _Drawn) else type(returned).__name__


def _blame(exc: Exception, judge: Judge | AsyncJudge, example: Example) -> None:
    """Notes the judge and the example on what the judge's call raised, which then propagates as it is (a
    caller's `except KeyError` still catches it): a bug of the judge's, or a JudgeError it raised with a
    reason alone, stopped a run of thousands as "KeyError: 'score'" or "JudgeError: no reply", naming no
    example to reproduce it with. Called from an `except` around the call, which costs nothing until it
    raises: a context manager around every lexical judging cost 0.35% more instructions an example."""
    exc.add_note(f"(raised by judge {judge.name!r} on example {example.id!r})")


def aggregate_results(results: Sequence[ExampleResult], config: EvalConfig) -> dict[str, Aggregate]:
    """Aggregates of every metric in METRIC_NAMES over the given results (e.g. one pipeline's)."""
    columns = {name: [r.metrics.get(name) for r in results] for name in METRIC_NAMES}
    return aggregate_columns(columns, samples=config.bootstrap_samples, confidence=config.confidence,
                             seed=config.seed)


def _arguments(judge: Judge | AsyncJudge, config: object, progress: object, skip_judge_errors: object,
               method: str) -> dict[str, Any]:
    """What a report records of the judge (`judge_identity`), else a TypeError naming the argument that
    is not of its declared type. Checked before the first example is judged: else a wrong judge fails deep
    in scoring, at whichever example first has claims to decide, and a wrong progress or judge settings
    only after every paid-for judgement. `method` is what the caller calls on the judge: `judge` for
    `evaluate`, the coroutine `ajudge` for `aevaluate`."""
    if isinstance(judge, EvalConfig):
        raise TypeError("evaluate(examples, judge, config): pass the EvalConfig as config=, not as the judge")
    if isinstance(judge, type):
        raise TypeError(f"judge must be a judge object, got the class {judge.__name__}: pass "
                        f"{judge.__name__}()")
    name, settings = judge_identity(judge, method, _OTHER_ENTRY[method])
    if config is not None and not isinstance(config, EvalConfig):
        raise TypeError(f"config must be an EvalConfig or None, got {type(config).__name__}")
    if progress is not None:
        check_progress(progress)
    if type(skip_judge_errors) is not bool:  # the string "no" is truthy: it skipped
        raise TypeError(f"skip_judge_errors must be True or False, got {skip_judge_errors!r}")
    return {"name": name, **settings}


def check_progress(progress: object) -> None:
    """A TypeError unless `progress` can be called as progress(done, total): one taking `done` alone
    failed only once the first example was judged, and under `aevaluate` cancelled the calls in flight.
    An `async def` one is refused too: called and never awaited, it reported nothing, with Python's
    "coroutine was never awaited" warning once per example."""
    wanted = "progress must be a function called as progress(done, total)"
    if not callable(progress):
        raise TypeError(f"{wanted}, got {type(progress).__name__}")
    called = getattr(progress, "__qualname__", type(progress).__name__)
    if (coroutine := _coroutine_function(progress)) is not None:
        raise TypeError(f"{wanted}, got the coroutine function {coroutine}: it is called, not awaited, so "
                        "declare it with `def`, not `async def`")
    try:
        signature = inspect.signature(progress)
    except (TypeError, ValueError):  # a builtin without a signature to read: called as it is
        return
    try:
        signature.bind(0, 0)
    except TypeError as exc:
        raise TypeError(f"{wanted}, got {called}({', '.join(signature.parameters)}): {exc}") from None


def report_progress(progress: Callable[[int, int], object], done: int, total: int) -> None:
    if inspect.isawaitable(returned := progress(done, total)):
        raise _unawaited(returned, f"progress must be a function called as progress(done, total), but it "
                                   f"returned {type(returned).__name__}, which is called, not awaited: "
                                   "declare the function it runs with `def`, not `async def`")


def _coroutine_function(target: Callable[..., object]) -> str | None:
    """The name of the `async def` that calling `target` runs, if it runs one, else None. Looked for
    through functools.partial and in the class of an instance, whose `async def __call__`
    inspect.iscoroutinefunction does not see on Python 3.11: such a progress object was taken, and
    reported nothing."""
    while isinstance(target, functools.partial):
        target = target.func
    for function in (target, type(target).__call__):
        if inspect.iscoroutinefunction(function):
            return getattr(function, "__qualname__", type(target).__name__)
    return None


_OTHER_ENTRY = {
    "judge": "evaluate calls judge.judge(example, claims), which {} lacks: its ajudge is a coroutine, so "
             "await ragmon.aevaluate(examples, judge), or asyncio.run() it outside an event loop",
    "ajudge": "aevaluate awaits judge.ajudge(example, claims), which {} lacks: call evaluate(), which a "
              "running event loop can call too, blocking it until the run ends; `await "
              "asyncio.to_thread(ragmon.evaluate, examples, judge)` keeps the loop serving meanwhile",
}
"""For each method an entry point calls, what to say to a judge that has only the other one."""
_OTHER_METHOD = {"judge": "ajudge", "ajudge": "judge"}


def judge_identity(judge: Judge | AsyncJudge, method: str,
                   elsewhere: str | None = None) -> tuple[str, Mapping[str, Any]]:
    """The judge's name and settings(), called once here, before anything is judged: a report records
    them, and a mistake in either (settings() returning `dict.items()`, raising, or renaming the judge)
    used to fail, or silently mislabel the report, only after every paid-for call. A TypeError unless the
    judge has the shape `_judge_shape` checks, a name that is a non-empty string and settings() returning
    a mapping with string keys; a ValueError if the settings have a "name" other than the judge's (the
    Claude judge repeats its own), which would relabel the report but not its results."""
    _judge_shape(judge, method, elsewhere)
    name = judge.name
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"judge {type(judge).__name__}: name must be a non-empty string (it labels the "
                        f"judge's figures in reports), got {name!r}")
    try:
        settings = judge.settings()
    except Exception as exc:
        exc.add_note(f"(raised by the settings() of judge {name!r}, called before anything is judged)")
        raise
    if not isinstance(settings, Mapping):
        raise TypeError(f"judge {name!r}: settings() must return a mapping (a report records it), got "
                        f"{type(settings).__name__}")
    for key in settings:
        if not isinstance(key, str):
            raise TypeError(f"judge {name!r}: settings() must return a mapping with string keys (a report "
                            f"records it as JSON), got the key {key!r}")
    if settings.get("name", name) != name:
        raise ValueError(f"judge {name!r}: settings() has the name {settings['name']!r}, which would label "
                         f"the report while its results say {name!r}: give the judge that name, or drop "
                         "the 'name' setting")
    return name, settings


def _judge_shape(judge: object, method: str, elsewhere: str | None) -> None:
    """A TypeError unless `judge` has a name, and a settings() and `method` to call (hasattr, not the
    protocol's isinstance, which is satisfied by a dict for `settings`: it failed in scoring, as "'dict'
    object is not callable"). A judge with the other method only is told `elsewhere`, formatted with its
    class: where to take it."""
    kind = type(judge).__name__
    lacks = [name for name in ("name", "settings", method) if not hasattr(judge, name)]
    if elsewhere is not None and lacks == [method] and callable(getattr(judge, _OTHER_METHOD[method], None)):
        raise TypeError(elsewhere.format(kind))
    wanted = f"judge must have a name, settings() and {method}(example, claims), got {kind}"
    if lacks:
        raise TypeError(f"{wanted}, which lacks {', '.join(lacks)}")
    for name in ("settings", method):
        if not callable(value := getattr(judge, name)):
            raise TypeError(f"{wanted}, whose {name} is a {type(value).__name__}, not a method")
    if method == "judge" and _coroutine_function(getattr(judge, method)) is not None:
        # Called and never awaited, it failed every example as "returned coroutine", and with
        # skip_judge_errors a whole run came back with every example skipped.
        raise TypeError(f"judge {kind}: its judge(example, claims) is an async def, which is called here, "
                        "not awaited: name it ajudge, which aevaluate and acalibrate await")


def evaluate(examples: Iterable[Example], judge: Judge | None = None, config: EvalConfig | None = None,
             progress: Progress | None = None, *, skip_judge_errors: bool = False) -> Report:
    """Score a dataset with `judge` (default: a `LexicalJudge`, offline and free) under `config`
    (default: `EvalConfig()`), calling `progress(done, total)` after each example if given.

    Synchronous, and safe inside a running event loop (a notebook): it never starts one. `aevaluate` is
    its counterpart for a network judge, which it judges concurrently.

    Every example and argument is checked before the first is judged, so a mistake costs no judge call.
    A JudgeError stops the run unless `skip_judge_errors`, which records the example in `Report.skipped`
    instead (fail-closed either way: an unjudged example is never "supported")."""
    judge = LexicalJudge() if judge is None else judge
    recorded = _arguments(judge, config, progress, skip_judge_errors, "judge")
    config = EvalConfig() if config is None else config
    items = _examples(examples)
    results: list[ExampleResult] = []
    skipped: list[tuple[str, str]] = []
    unreachable = Unreachable()
    for done, example in enumerate(items, 1):
        if (why := unreachable.reason(example)) is not None:
            skipped.append((example.id, why))
        else:
            try:
                results.append(evaluate_example(example, judge, config.k))
                unreachable.answered()
            except JudgeError as exc:
                if not skip_judge_errors:
                    raise
                unreachable.failed(exc)
                skipped.append((example.id, str(exc)))
        if progress is not None:
            report_progress(progress, done, len(items))
    return _report(recorded, config, items, results, skipped)


def _report(recorded: Mapping[str, Any], config: EvalConfig, items: Sequence[Example],
            results: Sequence[ExampleResult], skipped: Sequence[tuple[str, str]]) -> Report:
    return Report(judge=recorded, k=config.k, results=tuple(results),
                  aggregates=aggregate_results(results, config), skipped=tuple(skipped),
                  config=config, run_warnings=run_warnings(items))


class Unreachable:
    """Whether to stop calling a judge whose service was not reached (`JudgeError.unreachable`) for
    `UNREACHABLE_IN_A_ROW` examples in a row, under `skip_judge_errors`: each took its connection attempts
    (1.3 s on a closed port) or its timeout times its attempts (3 minutes against a server that never
    answers), so 1,000 examples took 50 hours to be skipped one by one. The rest are skipped at once with
    the last error as their reason, fail-closed and counted as any skipped example; those that need no judge
    (no claims, no context) are still scored. One that reached the judge and failed otherwise, or was
    scored, ends the streak: a judge that answers is called again."""

    def __init__(self) -> None:
        self.streak = 0
        self.last: JudgeError | None = None

    def answered(self) -> None:
        self.streak = 0

    def failed(self, exc: JudgeError) -> None:
        self.streak = self.streak + 1 if exc.unreachable else 0
        self.last = exc

    def reason(self, example: Example) -> str | None:
        """Why `example` is skipped without calling the judge, None if the judge is to be called."""
        if self.streak < UNREACHABLE_IN_A_ROW or verdicts_without_judge(example, example_claims(example)) \
                is not None:
            return None
        return (f"not judged: the judge was not reached for {self.streak} examples in a row, so the rest "
                f"were skipped without calling it; the last error: {self.last}")


UNREACHABLE_IN_A_ROW = 3
"""Examples in a row whose judge was not reached after which a run skipping judge errors stops calling it."""


async def aevaluate_example(example: Example, judge: AsyncJudge, k: int) -> ExampleResult:
    """`evaluate_example` for a judge that calls out over the network: awaited, not blocking."""
    claims = example_claims(example)
    verdicts = verdicts_without_judge(example, claims)
    if verdicts is None:
        try:
            returned = spent(await awaited(judge, judge.ajudge(example, claims)))
        except Exception as exc:
            _blame(exc, judge, example)
            raise
        verdicts = checked(judge, example, claims, returned)
    return _scored(example, verdicts, k, judge.name)


def awaited(judge: object, pending: Awaitable[T]) -> Awaitable[T]:
    """What the judge's `ajudge` returned, else a TypeError naming the judge: a plain `def ajudge` failed
    with Python's "object tuple can't be used in 'await' expression". Told at the call, not before: a
    plain function returning a coroutine (a decorator's wrapper) is a coroutine function in all but name."""
    if not inspect.isawaitable(pending):
        raise TypeError(f"judge {getattr(judge, 'name', type(judge).__name__)!r}: ajudge returned "
                        f"{type(pending).__name__}, not an awaitable: declare it `async def ajudge` (a "
                        "blocking judge names its method `judge`)")
    return pending


def check_concurrency(concurrency: SupportsIndex) -> int:
    """`concurrency` as an int; a TypeError unless a whole number (numpy's int64 from a config table too),
    not a bool or a string; a ValueError unless at least 1: with 0 nothing would ever be judged."""
    wanted = f"concurrency must be a whole number of at least 1, got {concurrency!r}"
    if not whole(concurrency):
        raise TypeError(wanted)
    if (workers := operator.index(concurrency)) < 1:
        raise ValueError(wanted)
    return workers


async def gather_or_cancel(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """Every awaitable's result, run concurrently; if one raises, the others are cancelled and awaited
    before its exception propagates as it is. `asyncio.gather` leaves them running: a judge that raised a
    KeyError on 1 example of 40 failed `aevaluate` after 7 calls, and all 40 were made afterwards, billed,
    in the loop of the notebook that had moved on. (A TaskGroup cancels them too, but raises an
    ExceptionGroup, which the caller's `except KeyError` would not catch.)"""
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def in_order_until_judge_error(count: int, run: Callable[[int], Awaitable[T]],
                                     concurrency: int) -> list[T]:
    """`run(i)` for every i below `count`, `concurrency` at once, the results in that order. A JudgeError
    stops new work: what is in flight finishes (it is already paid for) and the error of the earliest
    failed i is raised, as a run in turn would have raised it, the same on every run (the first to fail in
    time named another example each run). Any other exception cancels what is in flight and propagates."""
    results: list[T | None] = [None] * count
    failures: list[tuple[int, JudgeError]] = []
    pending = iter(range(count))

    async def worker() -> None:
        for index in pending:  # one iterator shared by every worker: each index is taken once
            if failures:
                return
            try:
                results[index] = await run(index)
            except JudgeError as exc:
                failures.append((index, exc))
                return

    await gather_or_cancel(worker() for _ in range(min(concurrency, count)))
    if failures:
        raise min(failures, key=lambda failure: failure[0])[1]
    return cast(list[T], results)


async def aevaluate(examples: Iterable[Example], judge: AsyncJudge, config: EvalConfig | None = None,
                    progress: Progress | None = None, *, concurrency: SupportsIndex = 4,
                    skip_judge_errors: bool = False) -> Report:
    """`evaluate` with up to `concurrency` examples being judged at once: a network judge spends its time
    waiting for replies, so a golden set is scored about `concurrency` times faster. The judge needs only
    its coroutine `ajudge` (`AsyncJudge`), never a blocking `judge`. Results keep the input order. A
    JudgeError stops new work (what is in flight finishes, it is already paid for) and the error of the
    earliest failed example is raised, as `evaluate` would have raised it. Any other exception (a bug in
    the judge or in `progress`) cancels what is in flight and propagates."""
    recorded = _arguments(judge, config, progress, skip_judge_errors, "ajudge")
    workers = check_concurrency(concurrency)
    config = EvalConfig() if config is None else config
    items = _examples(examples)
    done = 0

    unreachable = Unreachable()

    async def one(index: int) -> ExampleResult | tuple[str, str]:
        nonlocal done
        example = items[index]
        outcome: ExampleResult | tuple[str, str]
        if (why := unreachable.reason(example)) is not None:
            outcome = (example.id, why)
        else:
            try:
                outcome = await aevaluate_example(example, judge, config.k)
                unreachable.answered()
            except JudgeError as exc:
                if not skip_judge_errors:
                    raise
                unreachable.failed(exc)
                outcome = (example.id, str(exc))
        done += 1
        if progress is not None:
            report_progress(progress, done, len(items))
        return outcome

    outcomes = await in_order_until_judge_error(len(items), one, workers)
    results = [o for o in outcomes if isinstance(o, ExampleResult)]
    skipped = [o for o in outcomes if isinstance(o, tuple)]
    return _report(recorded, config, items, results, skipped)
