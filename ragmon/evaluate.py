"""The scoring core both front doors call: the sidecar per trace, `ragmon replay` per dataset row.

`score_example` is pure (verdicts in, metrics out) so the sidecar can await a network judge first and
still compute exactly what `evaluate_example` would: an online and an offline figure for the same
example are identical.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ragmon.judges.base import Judge, JudgeError
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
from ragmon.text import split_claims

Progress = Callable[[int, int], None]
"""Called as progress(done, total) after each example."""


def example_claims(example: Example) -> tuple[Claim, ...]:
    """The claims every judge decides, split here once so two judges always see the same sentences."""
    return split_claims(example.answer) if example.answer else ()


def verdicts_without_judge(example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...] | None:
    """Verdicts that need no judge: no claims, or no contexts to support them (nothing to pay a model
    for). None means the judge must decide."""
    if not claims:
        return ()
    if not example.contexts:
        return tuple(ClaimVerdict(c, False, (), "no context was retrieved") for c in claims)
    return None


def score_example(example: Example, verdicts: Sequence[ClaimVerdict], k: int,
                  judge_name: str) -> ExampleResult:
    """Every metric of one example from its claims' verdicts."""
    retrieved = None if example.contexts is None else [c.id for c in example.contexts]
    relevant = example.relevant_ids
    verdicts = tuple(verdicts)
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
        used = gen.used_ids(verdicts)
        unused = tuple(doc for doc in dict.fromkeys(retrieved) if doc not in used)
    return ExampleResult(example, judge_name, metrics, verdicts, missed, unused)


def evaluate_example(example: Example, judge: Judge, k: int) -> ExampleResult:
    """Split the answer into claims, have the judge decide them, and score the example."""
    claims = example_claims(example)
    verdicts = verdicts_without_judge(example, claims)
    if verdicts is None:
        verdicts = judge.judge(example, claims)
        if tuple(v.claim for v in verdicts) != claims:
            raise JudgeError(f"judge {judge.name!r} returned {len(verdicts)} verdicts for {len(claims)} "
                             f"claims of example {example.id!r}, not one per claim in order")
    return score_example(example, verdicts, k, judge.name)


def aggregate_results(results: Sequence[ExampleResult], config: EvalConfig) -> dict[str, Aggregate]:
    """Aggregates of every metric in METRIC_NAMES over the given results (e.g. one pipeline's)."""
    columns = {name: [r.metrics.get(name) for r in results] for name in METRIC_NAMES}
    return aggregate_columns(columns, samples=config.bootstrap_samples, confidence=config.confidence,
                             seed=config.seed)


def evaluate(examples: Iterable[Example], judge: Judge | None = None, config: EvalConfig | None = None,
             progress: Progress | None = None, *, skip_judge_errors: bool = False) -> Report:
    """Score a dataset. A JudgeError stops the run unless `skip_judge_errors`, which records the example
    in `Report.skipped` instead (fail-closed either way: an unjudged example is never "supported")."""
    judge = LexicalJudge() if judge is None else judge
    config = EvalConfig() if config is None else config
    items = tuple(examples)
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
    return Report(judge={"name": judge.name, **judge.settings()}, k=config.k, results=tuple(results),
                  aggregates=aggregate_results(results, config), skipped=tuple(skipped))
