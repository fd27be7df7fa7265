"""Runs shared by the report tests: two examples with an invented sentence, and many long answers, each
also against a baseline run."""

from __future__ import annotations

import json
from dataclasses import replace

from ragmon import baseline as baselines
from ragmon.baseline import Comparison
from ragmon.evaluation import evaluate
from ragmon.gate import GateResult, decide, decide_drops, parse_drops, parse_gates
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Aggregate, Claim, ClaimVerdict, Context, EvalConfig, Example, ExampleResult, Report
from ragmon.report import json as json_report

RUN_WARNING = "3 examples were captured by a sidecar at --k 1, this run is at --k 5"
"""A warning of the whole run, of no example (replay's of a capture made at another --k)."""
EXAMPLE_WARNING = ("e1", "only the last of 2 answers is scored")
"""A warning of one example (replay's of a recorded trace of several requests)."""

INVENTED = "Purple elephants sing opera."
# The lexical judge's reason for it, by hand: its 4 content words (purple, elephants, sing, opera) are in
# neither context, so no context shares any; on that 0-0 tie the closest is the first context, doc-1.
INVENTED_REASON = "no single context supports it; closest doc-1 has 0/4 of its terms"


def invented_run(*gates: str) -> tuple[Report, tuple[GateResult, ...]]:
    """Two examples scored by the real lexical judge and gated by the real gate code.

    "ok" answers with its context's sentence: groundedness 1, recall 1/1. "bad" answers with its first
    context's sentence and the invented one: groundedness 1/2; of its relevant doc-1 and doc-9 only doc-1
    was retrieved: recall 1/2. Means 0.75 and 0.75: the default gates, groundedness >= 0.9 and recall >= 0.5,
    are breached and held.
    """
    returns = "Returns are accepted within 30 days of purchase."
    refunds = "Refunds are paid to the original card."
    examples = [
        Example("ok", "How long do I have to return an item?", (Context("doc-1", returns),), returns,
                frozenset({"doc-1"})),
        Example("bad", "How are refunds paid?",
                (Context("doc-1", refunds), Context("doc-2", "Store credit never expires.")),
                f"{refunds} {INVENTED}", frozenset({"doc-1", "doc-9"})),
    ]
    report = evaluate(examples, LexicalJudge(), EvalConfig(k=5))
    return report, decide(report, parse_gates(gates or ("groundedness=0.9", "recall=0.5")))


SENTENCE = " ".join(["Word"] * 199) + " end."  # 199 * 5 + 4 = 999 characters
LONG_REASON = "r" * 1000


def many_long_run(count: int = 1000, sentences: int = 20) -> tuple[Report, tuple[GateResult, ...]]:
    """`count` examples whose answers are `sentences` unsupported SENTENCEs, each with a LONG_REASON:
    groundedness 0, hallucination_rate 1, recall 0 everywhere, all three gated and breached. A report
    quoting them all would hold ~40 MB of sentences and reasons."""
    step = len(SENTENCE) + 1
    answer = " ".join([SENTENCE] * sentences)
    verdicts = tuple(ClaimVerdict(Claim(SENTENCE, i * step, i * step + len(SENTENCE)), False, (), LONG_REASON)
                     for i in range(sentences))
    contexts = (Context("d1", "Other."),)
    metrics = {"groundedness": 0.0, "hallucination_rate": 1.0, "recall": 0.0}
    results = tuple(ExampleResult(Example(f"x{i:04}", "Q?", contexts, answer), "lexical", metrics, verdicts)
                    for i in range(count))
    aggregates = {"groundedness": Aggregate(0.0, count, (0.0, 0.0)),
                  "hallucination_rate": Aggregate(1.0, count, (1.0, 1.0)),
                  "recall": Aggregate(0.0, count, (0.0, 0.0))}
    gates = (GateResult("groundedness", ">=", 0.99, 0.0, False, "0 < 0.99"),
             GateResult("hallucination_rate", "<=", 0.0, 1.0, False, "1 > 0"),
             GateResult("recall", ">=", 0.9, 0.0, False, "0 < 0.9"))
    return Report({"name": "lexical"}, 5, results, aggregates), gates


GIFT = "Gift cards can be exchanged for cash."
# By hand, as INVENTED_REASON: its content words gift, cards, exchanged, cash ("can", "be" and "for" are
# function words) are none of them in "ok"'s one context, doc-1.
GIFT_REASON = "no single context supports it; closest doc-1 has 0/4 of its terms"


def regressed_run(*drops: str) -> tuple[Report, tuple[GateResult, ...], Comparison]:
    """The baseline is invented_run's two examples and "old", scored by the real judge, written as a JSON
    report and read back; this run has "ok" adding GIFT to its answer, "bad" as it was, "new", not "old".

    Shared: ok and bad; new: 1; gone: old. Groundedness on the shared examples: baseline (1 + 1/2) / 2 =
    0.75, this run (1/2 + 1/2) / 2 = 0.5, a drop of 0.25; only "ok" regressed (1 -> 0.5), GIFT newly
    unsupported, while bad's INVENTED was unsupported in the baseline too. Recall: ok 1, bad 1/2 in both
    runs, unchanged. The default drop gates: groundedness=0.1 breached, recall=0 held.
    """
    invented, _ = invented_run()
    ok, bad = (r.example for r in invented.results)
    old = Example("old", "Do you ship abroad?", (Context("doc-5", "We ship to 40 countries."),),
                  "We ship to 40 countries.", frozenset({"doc-5"}))
    before = evaluate([ok, bad, old], LexicalJudge(), EvalConfig(k=5))
    returns = "Returns are accepted within 30 days of purchase."
    new = Example("new", "Do gift cards expire?", (Context("doc-7", "Gift cards never expire."),),
                  "Gift cards never expire.", frozenset({"doc-7"}))
    report = evaluate([replace(ok, answer=f"{returns} {GIFT}"), bad, new], LexicalJudge(), EvalConfig(k=5))
    baseline = baselines.from_dict(json.loads(json_report.render(before, ())), "main.json")
    comparison = baselines.compare(baseline, report)
    drop_gates = decide_drops(comparison, parse_drops(drops or ("groundedness=0.1", "recall=0")), None,
                              report.config)
    return report, drop_gates, comparison


def many_regressed_run(count: int = 1000) -> tuple[Report, tuple[GateResult, ...], Comparison]:
    """many_long_run's examples against a baseline where each was fully grounded, with no unsupported
    sentence, and found its relevant document: every one regressed (groundedness 1 -> 0), its 20
    sentences all newly unsupported, and lost recall (1 -> 0). The three metrics gated on their change
    and breached (a drop, a rise, of 1)."""
    report, _ = many_long_run(count)
    grounded = baselines.BaselineExample({"groundedness": 1.0, "hallucination_rate": 0.0, "recall": 1.0},
                                         frozenset())
    baseline = baselines.Baseline("main.json", "0.1.0", {"name": "lexical"}, 5,
                                  {r.example.id: grounded for r in report.results})
    comparison = baselines.compare(baseline, report)
    drops = parse_drops(["groundedness=0.1", "hallucination_rate=0.1", "recall=0.5"])
    return report, decide_drops(comparison, drops, None, report.config), comparison


def silent_run() -> tuple[Report, tuple[GateResult, ...]]:
    """30 examples scored by the real lexical judge and gated by the real gate code, 10 of them saying
    nothing a metric of claims can measure.

    s01 answers its context's sentence and INVENTED: groundedness 1/2. s02-s20 answer their context's
    sentence: 1. s21-s24 answer "", s25-s28 abstain ("I don't know."): no claim, so no groundedness. s29
    and s30 answer but have no contexts: no groundedness either. So groundedness has n = 20, mean
    (0.5 + 19) / 20 = 0.975 and hallucination_rate 0.5 / 20 = 0.025: `groundedness=0.85` holds and
    `hallucination_rate=0.01` is breached."""
    returns = "Returns are accepted within 30 days of purchase."
    context = (Context("doc-1", returns),)
    answers = [f"{returns} {INVENTED}", *[returns] * 19, *[""] * 4, *["I don't know."] * 4]
    examples = [Example(f"s{i:02}", "How long do I have to return an item?", context, answer)
                for i, answer in enumerate(answers, 1)]
    examples += [Example(f"s{i}", "How long do I have to return an item?", None, returns) for i in (29, 30)]
    report = evaluate(examples, LexicalJudge(), EvalConfig(k=5))
    return report, decide(report, parse_gates(["groundedness=0.85", "hallucination_rate=0.01"]))


JOINED = "Family 👨\u200d👩\u200d👧, Hindi क्\u200dया, Persian می\u200cخواهم."
"""Zero-width joiners (U+200D) and a non-joiner (U+200C) that spell an emoji and words: shown as written."""
SPOOFED = "Pay \u202eevil\u202c now, sup-0\u200d04, a\u200b b."
"""A bidi override (Trojan Source), a joiner between ASCII digits, where it only hides that two ids differ,
and a zero-width space: each shown as its escape, by hand below."""
SPOOFED_SHOWN = "Pay \\u202eevil\\u202c now, sup-0\\u200d04, a\\u200b b."


def unicode_run() -> tuple[Report, tuple[GateResult, ...]]:
    """One example answering JOINED and SPOOFED, both unsupported (groundedness 0), gated and breached."""
    answer = f"{JOINED} {SPOOFED}"
    verdicts = tuple(ClaimVerdict(Claim(s, answer.index(s), answer.index(s) + len(s)), False, (),
                                  "no support") for s in (JOINED, SPOOFED))
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "Other."),), answer), "lexical",
                           {"groundedness": 0.0}, verdicts)
    report = Report({"name": "lexical"}, 5, (result,), {"groundedness": Aggregate(0.0, 1, (0.0, 0.0))})
    return report, (GateResult("groundedness", ">=", 0.5, 0.0, False, "0 < 0.5"),)


RELEVANCE_CHANGES = ((0.9, 0.8), (1.0, 0.5), (0.6, 0.7), (0.8, 0.6), (0.5, 0.25))
"""r1 to r5's answer_relevance in the baseline and in this run: r1, r2, r4 and r5 worse (by 0.1, 0.5, 0.2
and 0.25), r3 better. Means 3.8 / 5 = 0.76 and 2.85 / 5 = 0.57: a drop of 0.19."""


def relevance_run(changes: tuple[tuple[float | None, float], ...] = RELEVANCE_CHANGES,
                  ) -> tuple[Report, tuple[GateResult, ...], Comparison]:
    """One example per (baseline, this run) answer_relevance, r1, r2, ..., fully grounded in both runs (so
    none regressed on groundedness), against a baseline read as the real comparison reads one, and gated by
    the real gate code on `--max-drop answer_relevance=0.02`. None: the baseline did not measure it."""
    results = tuple(ExampleResult(Example(f"r{i}", f"Question r{i}?"), "lexical",
                                  {"groundedness": 1.0, "answer_relevance": after}, ())
                    for i, (_, after) in enumerate(changes, 1))
    report = Report({"name": "lexical"}, 5, results, {})
    baseline = baselines.Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {
        f"r{i}": baselines.BaselineExample({"groundedness": 1.0, "answer_relevance": before}, frozenset())
        for i, (before, _) in enumerate(changes, 1)})
    comparison = baselines.compare(baseline, report)
    drops = decide_drops(comparison, parse_drops(["answer_relevance=0.02"]), None, report.config)
    return report, drops, comparison


def bound_run(metric: str, values: tuple[float, ...], interval: tuple[float, float],
              gate: str) -> tuple[Report, tuple[GateResult, ...]]:
    """Examples e0, e1, ... with `metric` at `values`, its aggregate their mean and `interval` as its 95%
    one, gated by the real gate code at `--confidence 0.95`: so on the interval's bound."""
    results = tuple(ExampleResult(Example(f"e{i}", f"Question e{i}?"), "lexical", {metric: value}, ())
                    for i, value in enumerate(values))
    report = Report({"name": "lexical"}, 5, results,
                    {metric: Aggregate(sum(values) / len(values), len(values), interval)})
    return report, decide(report, parse_gates([gate]), 0.95)
