"""The scoring core both front doors call: the sidecar per trace, `ragmon replay` per dataset row.

`score_example` is pure (verdicts in, metrics out) so the sidecar can await a network judge first and
still compute exactly what `evaluate_example` would: an online and an offline figure for the same
example are identical. Either way a judge's verdicts are checked before any metric sees them (`checked`):
a user can plug in their own judge, and its mistakes must fail loudly, not shift a gated average.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Integral
from typing import Any

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
)
from ragmon.text.claims import split_claims

Progress = Callable[[int, int], None]
"""Called as progress(done, total) after each example."""


def example_claims(example: Example) -> tuple[Claim, ...]:
    """The claims every judge decides, split here once so two judges always see the same sentences."""
    return split_claims(example.answer) if example.answer else ()


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
    metrics.update({
        "groundedness": gen.groundedness(example, verdicts),
        "hallucination_rate": gen.hallucination_rate(example, verdicts),
        "citation_accuracy": gen.citation_accuracy(example, verdicts),
        "citation_coverage": gen.citation_coverage(example, verdicts),
        "context_utilisation": gen.context_utilisation(example, verdicts),
        "answer_relevance": gen.answer_relevance(example),
        "answer_correctness": gen.answer_correctness(example),
        "abstention": gen.abstention(example),
    })
    missed: tuple[str, ...] = ()
    if retrieved is not None and relevant:
        missed = tuple(sorted(relevant.difference(ret.top_k(retrieved, k))))
    unused: tuple[str, ...] = ()
    if verdicts and retrieved is not None:
        used = gen.used_ids(example, verdicts)
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
    if tuple(v.claim for v in verdicts) != claims:
        raise JudgeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(claims)} "
                         f"claims of example {example.id!r}, not one per claim in order")
    return verdicts


def _materialised(judge_name: str, example: Example, returned: object) -> tuple[Any, ...]:
    if not isinstance(returned, Iterable):
        raise JudgeError(f"judge {judge_name!r} returned {type(returned).__name__} for example "
                         f"{example.id!r}, not an iterable of ClaimVerdict")
    return tuple(returned)


def _sound(judge_name: str, example: Example, verdicts: tuple[Any, ...],
           returned: object) -> tuple[ClaimVerdict, ...]:
    """The verdicts with every field of the declared type, else a JudgeError naming the claim and field:
    a string "no" would count as supported, and a string of ids be read one character per id.

    Supporting ids not among the example's contexts are dropped (a note in the reason says which): a
    judge may only cite what was retrieved. A supported verdict that named ids, none of them retrieved,
    is support by nothing, so it becomes unsupported; one that named no id at all stays supported, since
    a judge need not track ids. Verdicts are rebuilt only where something changed."""
    retrieved: frozenset[str] | None = None
    fixed: list[ClaimVerdict] | None = None
    for index, verdict in enumerate(verdicts):
        if not isinstance(verdict, ClaimVerdict):
            raise JudgeError(f"judge {judge_name!r} returned {type(returned).__name__} for example "
                             f"{example.id!r}, not an iterable of ClaimVerdict: item {index} is "
                             f"{type(verdict).__name__}")
        supported, ids, reason = verdict.supported, verdict.supporting_ids, verdict.reason
        if type(supported) is not bool:
            raise _wrong(judge_name, example, index, "supported", "a bool", supported)
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
        if ids is not verdict.supporting_ids or reason is not verdict.reason:  # `supported` changes with both
            if fixed is None:
                fixed = list(verdicts[:index])
            fixed.append(ClaimVerdict(verdict.claim, supported, ids, reason))
        elif fixed is not None:
            fixed.append(verdict)
    return verdicts if fixed is None else tuple(fixed)


def _wrong(judge_name: str, example: Example, index: int, field: str, wanted: str,
           value: object) -> JudgeError:
    return JudgeError(f"judge {judge_name!r}, example {example.id!r}, claim {index}: {field} must be "
                      f"{wanted}, got {type(value).__name__}")


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
        verdicts = checked(judge, example, claims, judge.judge(example, claims))
    return _scored(example, verdicts, k, judge.name)


def aggregate_results(results: Sequence[ExampleResult], config: EvalConfig) -> dict[str, Aggregate]:
    """Aggregates of every metric in METRIC_NAMES over the given results (e.g. one pipeline's)."""
    columns = {name: [r.metrics.get(name) for r in results] for name in METRIC_NAMES}
    return aggregate_columns(columns, samples=config.bootstrap_samples, confidence=config.confidence,
                             seed=config.seed)


def _arguments(judge: object, config: object, progress: object, method: str) -> None:
    """A TypeError naming the argument unless each has its declared type. Checked before the first
    example is judged: else a wrong judge fails deep in scoring, at whichever example first has claims
    to decide, and a wrong progress only after a paid-for judgement. `method` is what the caller calls
    on the judge: `judge` for `evaluate`, the coroutine `ajudge` for `aevaluate`."""
    if isinstance(judge, EvalConfig):
        raise TypeError("evaluate(examples, judge, config): pass the EvalConfig as config=, not as the judge")
    if isinstance(judge, type):
        raise TypeError(f"judge must be a judge object, got the class {judge.__name__}: pass "
                        f"{judge.__name__}()")
    _judge_shape(judge, method)
    if config is not None and not isinstance(config, EvalConfig):
        raise TypeError(f"config must be an EvalConfig or None, got {type(config).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a function called as progress(done, total), got "
                        f"{type(progress).__name__}")


_OTHER_ENTRY = {
    "judge": ("ajudge", "evaluate calls judge.judge(example, claims), which {} lacks: its ajudge is a "
              "coroutine, so await ragmon.aevaluate(examples, judge), or asyncio.run() it outside an "
              "event loop"),
    "ajudge": ("judge", "aevaluate awaits judge.ajudge(example, claims), which {} lacks: call evaluate(), "
               "which a running event loop can call too"),
}
"""For each method an entry point calls, the other one's, and what to say to a judge that has only that."""


def _judge_shape(judge: object, method: str) -> None:
    """A TypeError unless `judge` has a name, and a settings() and `method` to call (hasattr, not the
    protocol's isinstance, which is satisfied by a dict for `settings`: it failed in scoring, as "'dict'
    object is not callable"). A judge with the other entry point's method only is sent there."""
    kind = type(judge).__name__
    lacks = [name for name in ("name", "settings", method) if not hasattr(judge, name)]
    other, hint = _OTHER_ENTRY[method]
    if lacks == [method] and callable(getattr(judge, other, None)):
        raise TypeError(hint.format(kind))
    wanted = f"judge must have a name, settings() and {method}(example, claims), got {kind}"
    if lacks:
        raise TypeError(f"{wanted}, which lacks {', '.join(lacks)}")
    for name in ("settings", method):
        if not callable(value := getattr(judge, name)):
            raise TypeError(f"{wanted}, whose {name} is a {type(value).__name__}, not a method")


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
    _arguments(judge, config, progress, "judge")
    config = EvalConfig() if config is None else config
    items = _examples(examples)
    results: list[ExampleResult] = []
    skipped: list[tuple[str, str]] = []
    for done, example in enumerate(items, 1):
        try:
            results.append(evaluate_example(example, judge, config.k))
        except JudgeError as exc:
            if not skip_judge_errors:
                raise
            skipped.append((example.id, str(exc)))
        if progress is not None:
            progress(done, len(items))
    return _report(judge, config, results, skipped)


def _report(judge: Judge | AsyncJudge, config: EvalConfig, results: Sequence[ExampleResult],
            skipped: Sequence[tuple[str, str]]) -> Report:
    return Report(judge={"name": judge.name, **judge.settings()}, k=config.k, results=tuple(results),
                  aggregates=aggregate_results(results, config), skipped=tuple(skipped),
                  config=config)


async def aevaluate_example(example: Example, judge: AsyncJudge, k: int) -> ExampleResult:
    """`evaluate_example` for a judge that calls out over the network: awaited, not blocking."""
    claims = example_claims(example)
    verdicts = verdicts_without_judge(example, claims)
    if verdicts is None:
        verdicts = checked(judge, example, claims, await judge.ajudge(example, claims))
    return _scored(example, verdicts, k, judge.name)


async def aevaluate(examples: Iterable[Example], judge: AsyncJudge, config: EvalConfig | None = None,
                    progress: Progress | None = None, *, concurrency: int = 4,
                    skip_judge_errors: bool = False) -> Report:
    """`evaluate` with up to `concurrency` examples being judged at once: a network judge spends its time
    waiting for replies, so a golden set is scored about `concurrency` times faster. The judge needs only
    its coroutine `ajudge` (`AsyncJudge`), never a blocking `judge`. Results keep the input order. A
    JudgeError stops new work (what is in flight finishes, it is already paid for) and the error of the
    earliest failed example is raised, as `evaluate` would have raised it."""
    _arguments(judge, config, progress, "ajudge")
    # Any whole number (numpy's int64 from a config table too), not a bool or a string.
    if isinstance(concurrency, bool) or not isinstance(concurrency, Integral) or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number of at least 1, got {concurrency!r}")
    config = EvalConfig() if config is None else config
    items = _examples(examples)
    outcomes: list[ExampleResult | tuple[str, str] | None] = [None] * len(items)
    failures: list[tuple[int, JudgeError]] = []
    pending = iter(range(len(items)))
    done = 0

    async def worker() -> None:
        nonlocal done
        for index in pending:  # one iterator shared by every worker: each example is taken once
            if failures:
                return
            example = items[index]
            try:
                outcomes[index] = await aevaluate_example(example, judge, config.k)
            except JudgeError as exc:
                if not skip_judge_errors:
                    failures.append((index, exc))
                    return
                outcomes[index] = (example.id, str(exc))
            done += 1
            if progress is not None:
                progress(done, len(items))

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(items)))))
    if failures:
        raise min(failures, key=lambda failure: failure[0])[1]
    results = [o for o in outcomes if isinstance(o, ExampleResult)]
    skipped = [o for o in outcomes if isinstance(o, tuple)]
    return _report(judge, config, results, skipped)
