"""The scoring core end to end: public API, per-example results, aggregates, judge errors."""

from __future__ import annotations

import asyncio

import numpy
import pytest

from ragmon import Aggregate, Context, EvalConfig, Example, LexicalJudge, Report, evaluate
from ragmon.evaluation import Progress, aevaluate, evaluate_example, example_claims, score_example
from ragmon.judges.base import AsyncJudge, JudgeError
from ragmon.model import METRIC_NAMES, Claim, ClaimVerdict

POLICY = (
    Context("c1", "Returns are accepted within 30 days of purchase."),
    Context("c2", "Shipping is free for orders over 50 dollars."),
)
# Claim 1 terms return, accept + number 30: all in c1 -> supported by c1.
# Claim 2 terms ship, cost, dollar + number 10: c2 has ship and dollar (2/3 >= 0.6) but not 10 -> unsupported.
ANSWER = "Returns are accepted within 30 days. Shipping costs 10 dollars."


def policy_example(**fields) -> Example:
    base = {"id": "p1", "question": "How long do I have to return an item?", "contexts": POLICY,
            "answer": ANSWER, "relevant_ids": frozenset({"c1"}), "citations": ("c1",)}
    return Example(**{**base, **fields})


def test_public_api() -> None:
    report = evaluate([policy_example()], LexicalJudge(), EvalConfig(k=1))
    assert isinstance(report, Report)
    g = report.aggregates["groundedness"]
    assert isinstance(g, Aggregate)
    # 1 of 2 claims supported.
    assert g.mean == 0.5
    assert float(g) == 0.5
    assert g.n == 1
    assert report.judge == {"name": "lexical", "threshold": LexicalJudge().threshold}
    assert report.k == 1
    assert tuple(report.aggregates) == METRIC_NAMES


def test_example_result() -> None:
    result = evaluate_example(policy_example(), LexicalJudge(), k=1)
    assert [v.supported for v in result.verdicts] == [True, False]
    assert result.verdicts[0].supporting_ids == ("c1",)
    assert result.judge == "lexical"
    assert result.metrics == pytest.approx({
        # top 1 = c1, the one relevant id.
        "hit_rate": 1.0, "precision": 1.0, "recall": 1.0, "mrr": 1.0, "ndcg": 1.0,
        "groundedness": 0.5, "hallucination_rate": 0.5,
        "citation_accuracy": 1.0,  # cited {c1}, c1 supports claim 1
        "citation_coverage": 1.0,  # used {c1}, all cited
        "context_utilisation": 0.5,  # used {c1} of {c1, c2}
        # Question terms: item, return ("how long" is a question's measure; do, I, have, to, an are function
        # words); the answer has return only -> 1/2.
        "answer_relevance": 1 / 2,
        "answer_correctness": None,  # no ground truth
        "abstention": None,  # answerable
    })
    assert result.retrieved_unused == ("c2",)  # c2 supported no claim
    assert result.relevant_not_retrieved == ()


def test_relevant_not_retrieved_uses_the_top_k_and_is_sorted() -> None:
    ex = policy_example(relevant_ids=frozenset({"c2", "zz", "c1"}))
    # Top 1 = c1: c2 (cut off) and zz (never retrieved) are missed, sorted.
    assert evaluate_example(ex, LexicalJudge(), k=1).relevant_not_retrieved == ("c2", "zz")
    # Top 5 holds both retrieved ids: only zz is missed.
    assert evaluate_example(ex, LexicalJudge(), k=5).relevant_not_retrieved == ("zz",)


def test_chunks_sharing_an_id_keep_their_ranks_and_each_count_as_a_context() -> None:
    # Five chunks keyed by their file (LangChain's metadata["source"]), then the relevant policy.md at rank 6.
    chunks = [Context("faq.md", f"Chunk {i} talks about gift wrapping option {i}.") for i in range(5)]
    ex = Example("q", "How long for returns?", [*chunks, Context("policy.md", "Returns are accepted within "
                 "30 days.")], "Returns are accepted within 30 days.", relevant_ids=["policy.md"])
    result = evaluate([ex], config=EvalConfig(k=5, bootstrap_samples=0)).results[0]
    # Ranks are positions: the top 5 is faq.md five times, policy.md is not in it. Every retrieval metric is
    # 0 and policy.md is relevant but not retrieved (it was hit_rate 1, precision 0.2, recall 1, mrr 0.5,
    # ndcg 0.631 and nothing missed, policy.md moved up to rank 2).
    assert {name: result.metrics[name] for name in ("hit_rate", "precision", "recall", "mrr", "ndcg")} == \
        dict.fromkeys(("hit_rate", "precision", "recall", "mrr", "ndcg"), 0.0)
    assert result.relevant_not_retrieved == ("policy.md",)
    # The one claim is the policy sentence, supported by policy.md alone: 1 of 6 contexts (it was 1 of 2
    # distinct ids, 0.5). faq.md, five contexts under one id, went unused.
    assert result.verdicts[0].supporting_ids == ("policy.md",)
    assert result.metrics["context_utilisation"] == pytest.approx(1 / 6)
    assert result.retrieved_unused == ("faq.md",)
    # With k = 6 policy.md is in, at rank 6: mrr 1/6, nothing missed.
    wider = evaluate([ex], config=EvalConfig(k=6, bootstrap_samples=0)).results[0]
    assert wider.metrics["mrr"] == pytest.approx(1 / 6) and wider.relevant_not_retrieved == ()


def test_a_k_beyond_any_list_cuts_none_of_it() -> None:
    # EvalConfig(k=10**20), for "every context", failed in scoring with islice's "Stop argument for
    # islice() must be None or an integer: 0 <= x <= sys.maxsize", naming no k.
    example = policy_example(relevant_ids=frozenset({"c2"}))
    result = evaluate([example], config=EvalConfig(k=10**20)).results[0]
    # c2 is relevant at rank 2 of 2: a hit, 1 of 1 relevant, 1/2 reciprocal rank, DCG 1/log2(3) over an
    # ideal DCG of 1 (one relevant id, at rank 1), and 1 relevant of 10**20 places.
    assert {name: result.metrics[name] for name in ("hit_rate", "precision", "recall", "mrr", "ndcg")} \
        == pytest.approx({"hit_rate": 1.0, "precision": 1e-20, "recall": 1.0, "mrr": 0.5, "ndcg": 0.6309298})
    assert result.relevant_not_retrieved == ()


def test_no_claims_means_nothing_unused_and_groundedness_undefined() -> None:
    result = evaluate_example(policy_example(answer="I don't know."), LexicalJudge(), k=2)
    assert result.verdicts == ()
    assert result.retrieved_unused == ()
    assert result.metrics["groundedness"] is None
    assert result.metrics["context_utilisation"] is None


def test_empty_contexts_give_groundedness_zero() -> None:
    result = evaluate_example(policy_example(contexts=()), LexicalJudge(), k=5)
    assert result.metrics["groundedness"] == 0.0
    assert result.metrics["hallucination_rate"] == 1.0
    # Nothing retrieved: every retrieval metric is a real 0.
    assert result.metrics["hit_rate"] == 0.0 and result.metrics["precision"] == 0.0
    assert result.relevant_not_retrieved == ("c1",)


def test_unanswerable_question_answered_versus_abstained() -> None:
    answered = policy_example(id="a", relevant_ids=frozenset(), answer="Returns are accepted within 30 days.")
    abstained = policy_example(id="b", relevant_ids=frozenset(), answer="The context does not say.")
    report = evaluate([answered, abstained], LexicalJudge(), EvalConfig(k=2))
    assert [r.metrics["abstention"] for r in report.results] == [0.0, 1.0]
    assert report.aggregates["abstention"].mean == 0.5
    # Relevant ids explicitly empty: the retrieval metrics are undefined for both.
    assert report.aggregates["hit_rate"] == Aggregate(None, 0, None)


def test_score_example_from_given_verdicts_matches_evaluate_example() -> None:
    ex = policy_example()
    verdicts = LexicalJudge().judge(ex, example_claims(ex))
    assert score_example(ex, verdicts, 1, "lexical") == evaluate_example(ex, LexicalJudge(), 1)


def test_aggregates_count_only_defined_examples() -> None:
    known = policy_example(id="a")
    unknown = policy_example(id="b", relevant_ids=None, answer="Shipping is free for orders over 50 dollars.")
    report = evaluate([known, unknown], config=EvalConfig(k=1))
    assert report.aggregates["hit_rate"].n == 1
    # Groundedness 0.5 (known) and 1.0 (unknown's single claim is c2 verbatim): mean 0.75 over 2.
    assert report.aggregates["groundedness"].mean == 0.75
    assert report.aggregates["groundedness"].n == 2


def test_defaults_and_progress() -> None:
    calls: list[tuple[int, int]] = []
    report = evaluate(iter([policy_example(id="a"), policy_example(id="b")]),
                      progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
    assert report.k == EvalConfig().k
    assert report.judge["name"] == "lexical"


class BrokenJudge:
    name = "broken"

    def settings(self) -> dict:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        if example.id == "bad":
            raise JudgeError("model unavailable")
        return tuple(ClaimVerdict(c, False) for c in claims[:1])  # drops claims after the first


def test_a_judge_returning_the_wrong_verdicts_is_an_error() -> None:
    with pytest.raises(JudgeError, match="1 verdicts for 2 claims"):
        evaluate_example(policy_example(), BrokenJudge(), k=1)


class TextJudge:
    """A judge's common slip: the claim's text in the verdict, not the Claim passed in."""

    name = "text"

    def settings(self) -> dict:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> list[ClaimVerdict]:
        return [ClaimVerdict(c.text, True) for c in claims]  # type: ignore[arg-type]


def test_verdicts_as_many_as_the_claims_but_not_for_them_name_the_first_astray() -> None:
    # It said "1 verdicts for 1 claims ..., not one per claim in order": a count that was right.
    example = Example("q1", "q?", [Context("d", "The sky is blue.")], "The sky is blue.")
    with pytest.raises(JudgeError) as error:
        evaluate([example], TextJudge())
    assert str(error.value) == (
        "judge 'text' returned 1 verdicts for 1 claims of example 'q1', but verdict 0 is for 'The sky is "
        "blue.', not claim 0 as passed in, Claim(text='The sky is blue.', start=0, end=16): give each "
        "verdict the Claim object it decides, in order")


def test_judge_errors_stop_the_run_or_are_recorded_as_skipped() -> None:
    bad = policy_example(id="bad")
    good = policy_example(id="good", answer="Returns are accepted within 30 days.")
    with pytest.raises(JudgeError, match="model unavailable"):
        evaluate([bad, good], BrokenJudge())
    report = evaluate([bad, good], BrokenJudge(), skip_judge_errors=True)
    assert report.skipped == (("bad", "model unavailable"),)
    assert [r.example.id for r in report.results] == ["good"]
    # The only scored example's single claim was judged unsupported by the broken judge.
    assert report.aggregates["groundedness"].mean == 0.0


def test_no_examples_leaves_every_metric_undefined() -> None:
    report = evaluate([])
    assert report.results == ()
    assert all(agg == Aggregate(None, 0, None) for agg in report.aggregates.values())


def test_float_of_an_undefined_metric_names_it() -> None:
    # No contexts known: groundedness is undefined. The error used to say "metric is undefined", not which.
    report = evaluate([policy_example(contexts=None)])
    with pytest.raises(ValueError) as raised:
        float(report.aggregates["groundedness"])
    assert str(raised.value) == "metric 'groundedness' is undefined: no example had an observation"
    # The name is no part of the value: an aggregate equals one built without it, and prints as before.
    assert report.aggregates["groundedness"] == Aggregate(None, 0, None)
    assert repr(report.aggregates["groundedness"]) == "Aggregate(mean=None, n=0, ci=None)"


class SlowJudge:
    """A network judge in miniature: each decision takes a while, "bad*" examples fail, and the judge
    records how many decisions were in progress at once."""

    name = "slow"

    def __init__(self) -> None:
        self.in_flight = self.max_in_flight = 0

    def settings(self) -> dict:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        raise AssertionError("aevaluate must await ajudge")

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        # Later examples answer sooner, so completion order is the reverse of input order.
        await asyncio.sleep(0.01 * (10 - int(example.id[-1])))
        self.in_flight -= 1
        if example.id.startswith("bad"):
            raise JudgeError(f"{example.id} unavailable")
        return tuple(ClaimVerdict(c, c.text.startswith("Returns"), ("c1",)) for c in claims)


async def test_aevaluate_judges_concurrently_and_keeps_input_order() -> None:
    judge = SlowJudge()
    examples = [policy_example(id=f"e{i}") for i in range(7)]
    calls: list[tuple[int, int]] = []
    report = await aevaluate(examples, judge, EvalConfig(k=1),
                             lambda done, total: calls.append((done, total)), concurrency=3)
    assert judge.max_in_flight == 3 and calls == [(done, 7) for done in range(1, 8)]
    assert [r.example.id for r in report.results] == [f"e{i}" for i in range(7)]
    # Each answer: the "Returns ..." claim supported, the "Shipping ..." claim not: 1/2 everywhere.
    assert report.aggregates["groundedness"].mean == 0.5 and report.aggregates["groundedness"].n == 7
    assert report.judge == {"name": "slow"}


async def test_aevaluate_raises_the_earliest_failure_or_skips_in_order() -> None:
    examples = [policy_example(id=i) for i in ("ok1", "bad2", "ok3", "bad4", "ok5")]
    # bad4 fails first (it answers sooner), but bad2 comes first in the input: evaluate() would name it.
    with pytest.raises(JudgeError, match="bad2 unavailable"):
        await aevaluate(examples, SlowJudge(), concurrency=5)
    report = await aevaluate(examples, SlowJudge(), concurrency=2, skip_judge_errors=True)
    assert report.skipped == (("bad2", "bad2 unavailable"), ("bad4", "bad4 unavailable"))
    assert [r.example.id for r in report.results] == ["ok1", "ok3", "ok5"]


class RefusingJudge(BrokenJudge):
    """Fails the test if asked: with the contexts unknown there is nothing a judge could check."""

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        raise AssertionError("the judge must not be called")

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        raise AssertionError("the judge must not be called")


def test_unknown_contexts_invent_no_verdicts() -> None:
    # contexts=None means "never told", not "nothing retrieved": the two claims get no verdict at all
    # (not "unsupported"), so no report quotes them as unsupported and no counter counts them.
    result = evaluate_example(policy_example(contexts=None), RefusingJudge(), k=1)
    assert result.verdicts == ()
    assert result.retrieved_unused == ()
    assert result.metrics["groundedness"] is None and result.metrics["hallucination_rate"] is None
    assert result.metrics["citation_coverage"] is None and result.metrics["context_utilisation"] is None
    # Nothing retrieved (contexts=()) is different: both claims are unsupported, a real 0.
    empty = evaluate_example(policy_example(contexts=()), RefusingJudge(), k=1)
    assert [v.supported for v in empty.verdicts] == [False, False]


class ScriptedJudge:
    """A third-party judge: `reply(claims)` is what it returns, by `judge` and by `ajudge` alike."""

    def __init__(self, reply, name: str = "custom") -> None:  # type: ignore[no-untyped-def]
        self.reply = reply
        self.name = name

    def settings(self) -> dict:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]):  # type: ignore[no-untyped-def]
        return self.reply(claims)

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]):  # type: ignore[no-untyped-def]
        return self.reply(claims)


def returns_claim_supported(claims: tuple[Claim, ...]):  # type: ignore[no-untyped-def]
    """A generator, not a tuple: the "Returns ..." claim supported by c1, the "Shipping ..." claim not."""
    return (ClaimVerdict(c, c.text.startswith("Returns"), ("c1",) if c.text.startswith("Returns") else ())
            for c in claims)


async def test_a_judge_returning_a_generator_keeps_every_verdict() -> None:
    # Read once to compare claims, a generator used to reach scoring empty: no verdicts, groundedness
    # undefined, and the example out of the average. Here: 1 of 2 claims supported -> 0.5.
    judge = ScriptedJudge(returns_claim_supported)
    result = evaluate_example(policy_example(), judge, k=1)
    assert [(v.supported, v.supporting_ids) for v in result.verdicts] == [(True, ("c1",)), (False, ())]
    assert result.metrics["groundedness"] == 0.5
    for report in (evaluate([policy_example()], judge), await aevaluate([policy_example()], judge)):
        assert (report.aggregates["groundedness"].mean, report.aggregates["groundedness"].n) == (0.5, 1)


@pytest.mark.parametrize(("reply", "message"), [
    (lambda claims: None,
     "judge 'custom' returned NoneType for example 'p1', not an iterable of ClaimVerdict"),
    (lambda claims: [{"claim": c.text, "supported": True} for c in claims],
     "judge 'custom' returned list for example 'p1', not an iterable of ClaimVerdict: item 0 is dict"),
    # The string "no" is truthy: unchecked, it counted as supported.
    (lambda claims: (ClaimVerdict(claims[0], False), ClaimVerdict(claims[1], "no")),  # type: ignore[arg-type]
     "judge 'custom', example 'p1', claim 1: supported must be a bool, got str"),
    # Unchecked, "c1" was read as the ids "c" and "1".
    (lambda claims: tuple(ClaimVerdict(c, True, "c1") for c in claims),  # type: ignore[arg-type]
     "judge 'custom', example 'p1', claim 0: supporting_ids must be a tuple of str, got str"),
    (lambda claims: tuple(ClaimVerdict(c, True, ("c1", 1)) for c in claims),  # type: ignore[arg-type]
     "judge 'custom', example 'p1', claim 0: supporting_ids[1] must be a str, got int"),
    (lambda claims: tuple(ClaimVerdict(c, False, (), 404) for c in claims),  # type: ignore[arg-type]
     "judge 'custom', example 'p1', claim 0: reason must be a str or None, got int"),
])
async def test_a_malformed_reply_is_an_error_naming_judge_example_claim_and_field(reply, message):  # type: ignore[no-untyped-def]
    judge = ScriptedJudge(reply)
    with pytest.raises(JudgeError) as sync_error:
        evaluate([policy_example()], judge)
    with pytest.raises(JudgeError) as async_error:
        await aevaluate([policy_example()], judge)
    assert str(sync_error.value) == str(async_error.value) == message


async def test_supporting_ids_never_retrieved_are_dropped() -> None:
    ex = policy_example(answer=f"{ANSWER} Shipping is free for orders over 50 dollars.")

    def reply(claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return (ClaimVerdict(claims[0], True, ("zz",), "zz says so"),  # only an id never retrieved
                ClaimVerdict(claims[1], True, ["zz", "c2", "zz"]),  # a list, one real id among stray ones
                ClaimVerdict(claims[2], True))  # no id at all: a judge need not track them

    judge = ScriptedJudge(reply)
    claims = example_claims(ex)
    note = "[ragmon: dropped supporting ids never retrieved: 'zz']"
    expected = (ClaimVerdict(claims[0], False, (), "supported only by ids never retrieved: 'zz'"),
                ClaimVerdict(claims[1], True, ("c2",), note),
                ClaimVerdict(claims[2], True))
    for report in (evaluate([ex], judge, EvalConfig(k=2)), await aevaluate([ex], judge, EvalConfig(k=2))):
        result = report.results[0]
        assert result.verdicts == expected
        # Claims 2 and 3 stay supported, claim 1 does not: 2/3 (it was 3/3 when "zz" counted as support).
        assert result.metrics["groundedness"] == pytest.approx(2 / 3)
        # Claim 3 names no context and may rest on c1: which contexts went unused is unknown, not ("c1",).
        assert result.retrieved_unused == ()


def test_only_the_lexical_judge_itself_is_trusted_unchecked() -> None:
    class TunedLexical(LexicalJudge):
        def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
            return tuple(ClaimVerdict(c, "no") for c in claims)  # type: ignore[arg-type]

    with pytest.raises(JudgeError) as error:
        evaluate_example(policy_example(), TunedLexical(), k=1)
    assert str(error.value) == "judge 'lexical', example 'p1', claim 0: supported must be a bool, got str"


def test_score_example_checks_given_verdicts_as_evaluate_does() -> None:
    # The sidecar's Claude lane judges first and hands the verdicts to score_example: same checks.
    ex = policy_example()
    first, second = example_claims(ex)
    result = score_example(ex, (ClaimVerdict(first, True, ("zz",)), ClaimVerdict(second, False)), 1, "claude")
    assert result.verdicts[0] == ClaimVerdict(first, False, (), "supported only by ids never retrieved: 'zz'")
    assert result.metrics["groundedness"] == 0.0  # neither claim is supported by a retrieved context
    wrong = (ClaimVerdict(first, True, ("c1",)), ClaimVerdict(second, 1))  # type: ignore[arg-type]
    with pytest.raises(JudgeError) as error:
        score_example(ex, wrong, 1, "claude")
    assert str(error.value) == "judge 'claude', example 'p1', claim 1: supported must be a bool, got int"


def test_examples_must_be_examples_with_an_id_each() -> None:
    # Checked before any judging: RefusingJudge fails the test if asked about the valid first example.
    mixed = [policy_example(), {"id": "p2", "question": "q?"}]
    twice = [policy_example(id="a"), policy_example(id="b"), policy_example(id="a")]
    for run in (lambda examples: evaluate(examples, RefusingJudge()),
                lambda examples: asyncio.run(aevaluate(examples, RefusingJudge()))):
        with pytest.raises(TypeError, match=r"^examples\[1\] must be an Example, got dict$"):
            run(mixed)
        with pytest.raises(ValueError, match=r"^examples\[0\] and examples\[2\] have the same id 'a': "):
            run(twice)


def count_done_only(done: int) -> None:
    """A progress callback written for a count alone, as tqdm's `update(n)` is."""


async def awaited_progress(done: int, total: int) -> None:
    """A progress callback written for a notebook's event loop, as an `ipywidgets` update might be."""


@pytest.mark.parametrize(("call", "message"), [
    # Each used to fail only when an example reached the judge, deep in scoring, and as an AttributeError
    # ('str' object has no attribute 'judge', 'dict' object has no attribute 'k'), or a bare TypeError
    # ('int' object is not callable) after the first example had been judged.
    (lambda run: run([policy_example()], LexicalJudge),
     "judge must be a judge object, got the class LexicalJudge: pass LexicalJudge()"),
    (lambda run: run([policy_example()], config={"k": 1}), "config must be an EvalConfig or None, got dict"),
    (lambda run: run([policy_example()], progress=5),
     "progress must be a function called as progress(done, total), got int"),
    # Used to fail at the first example judged (a paid call), cancelling aevaluate's others in flight.
    (lambda run: run([policy_example()], progress=count_done_only),
     "progress must be a function called as progress(done, total), got count_done_only(done): too many "
     "positional arguments"),
    # Called and never awaited: no progress shown, a RuntimeWarning per example, and nothing refused.
    (lambda run: run([policy_example()], progress=awaited_progress),
     "progress must be a function called as progress(done, total), got the coroutine function "
     "awaited_progress: it is called, not awaited, so declare it with `def`, not `async def`"),
    # Used to say "'Example' object is not iterable", and a dict was blamed one key at a time.
    (lambda run: run(policy_example()),
     "examples must be an iterable of Example, got Example: wrap a single one in a list"),
    (lambda run: run({"p1": policy_example()}), "examples must be an iterable of Example, got dict"),
    (lambda run: run(None), "examples must be an iterable of Example, got NoneType"),
])
def test_arguments_of_the_wrong_type_are_refused_by_name_before_any_judging(call, message: str) -> None:  # type: ignore[no-untyped-def]
    def sync(examples, judge=None, **options):  # type: ignore[no-untyped-def]
        return evaluate(examples, judge or RefusingJudge(), **options)

    def in_loop(examples, judge=None, **options):  # type: ignore[no-untyped-def]
        return asyncio.run(aevaluate(examples, judge or RefusingJudge(), **options))

    for run in (sync, in_loop):
        with pytest.raises(TypeError) as error:
            call(run)
        assert str(error.value) == message


async def test_the_async_entry_point_is_importable_and_refuses_a_judge_it_cannot_await() -> None:
    import ragmon

    # `ragmon.evaluate` is the function (its module is `ragmon.evaluation`): the package exports both.
    assert "aevaluate" in ragmon.__all__
    # The lexical judge has no coroutine: it used to fail at the first example with an AttributeError.
    with pytest.raises(TypeError) as error:
        await ragmon.aevaluate([policy_example()], LexicalJudge())
    assert str(error.value) == ("aevaluate awaits judge.ajudge(example, claims), which LexicalJudge lacks: "
                                "call evaluate(), which a running event loop can call too, blocking it "
                                "until the run ends; `await asyncio.to_thread(ragmon.evaluate, examples, "
                                "judge)` keeps the loop serving meanwhile")
    # As that says: inside this running loop, evaluate scores as anywhere (1 of 2 claims supported).
    assert evaluate([policy_example()]).aggregates["groundedness"].mean == 0.5
    # A string is a concurrency of the wrong type: a TypeError, as for every argument (it was a ValueError).
    with pytest.raises(TypeError) as wrong:
        await ragmon.aevaluate([policy_example()], ScriptedJudge(returns_claim_supported), concurrency="4")  # type: ignore[arg-type]
    assert str(wrong.value) == "concurrency must be a whole number of at least 1, got '4'"
    for value in (0, -2):  # of the right type, a value that cannot run: a ValueError
        with pytest.raises(ValueError) as wrong_value:
            await ragmon.aevaluate([policy_example()], ScriptedJudge(returns_claim_supported),
                                   concurrency=value)
        assert str(wrong_value.value) == f"concurrency must be a whole number of at least 1, got {value}"
    # A whole number of numpy's, as a config table read with pandas gives: taken, as before the check.
    report = await ragmon.aevaluate([policy_example()], ScriptedJudge(returns_claim_supported),
                                    concurrency=numpy.int64(2))
    assert report.aggregates["groundedness"].mean == 0.5  # the "Returns" claim of the two


class AsyncOnlyJudge:
    """A network judge of one's own as README's "Your own judge" describes it for `aevaluate`: a name,
    settings() and the coroutine ajudge, with no blocking twin."""

    name = "async-only"

    def settings(self) -> dict:
        return {"model": "m1"}

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]):  # type: ignore[no-untyped-def]
        return tuple(returns_claim_supported(claims))


def test_an_async_judge_needs_no_blocking_judge_and_evaluate_sends_it_to_aevaluate() -> None:
    import ragmon

    # Before: "judge must have a name, settings() and judge(example, claims), got AsyncOnlyJudge, which
    # lacks judge", from the very call the README shows.
    report = asyncio.run(ragmon.aevaluate([policy_example()], AsyncOnlyJudge(), concurrency=4))
    assert isinstance(AsyncOnlyJudge(), AsyncJudge)
    assert report.judge == {"name": "async-only", "model": "m1"}
    # The "Returns ..." claim supported by c1, the "Shipping ..." claim not: 1 of 2.
    assert (report.aggregates["groundedness"].mean, report.aggregates["groundedness"].n) == (0.5, 1)
    with pytest.raises(TypeError) as error:
        evaluate([policy_example()], AsyncOnlyJudge())  # type: ignore[arg-type]
    assert str(error.value) == ("evaluate calls judge.judge(example, claims), which AsyncOnlyJudge lacks: "
                                "its ajudge is a coroutine, so await ragmon.aevaluate(examples, judge), or "
                                "asyncio.run() it outside an event loop")


class DictSettingsJudge(ScriptedJudge):
    """Settings written as the mapping itself rather than a method returning it."""

    def __init__(self, reply) -> None:  # type: ignore[no-untyped-def]
        super().__init__(reply)
        self.settings = {"model": "m1"}  # type: ignore[method-assign,assignment]


def test_a_judge_without_its_methods_is_refused_naming_what_each_entry_point_calls() -> None:
    judge = DictSettingsJudge(returns_claim_supported)
    # Before: "'dict' object is not callable", raised from inside scoring once every example was judged.
    with pytest.raises(TypeError) as sync_error:
        evaluate([policy_example()], judge)  # type: ignore[arg-type]
    assert str(sync_error.value) == ("judge must have a name, settings() and judge(example, claims), got "
                                     "DictSettingsJudge, whose settings is a dict, not a method")
    with pytest.raises(TypeError) as async_error:
        asyncio.run(aevaluate([policy_example()], judge))  # type: ignore[arg-type]
    assert str(async_error.value) == ("judge must have a name, settings() and ajudge(example, claims), got "
                                      "DictSettingsJudge, whose settings is a dict, not a method")
    # Neither method: each entry point names the one it calls.
    with pytest.raises(TypeError) as sync_error:
        evaluate([policy_example()], "lexical")  # type: ignore[arg-type]
    assert str(sync_error.value) == ("judge must have a name, settings() and judge(example, claims), got "
                                     "str, which lacks name, settings, judge")
    with pytest.raises(TypeError) as async_error:
        asyncio.run(aevaluate([policy_example()], "lexical"))  # type: ignore[arg-type]
    assert str(async_error.value) == ("judge must have a name, settings() and ajudge(example, claims), got "
                                      "str, which lacks name, settings, ajudge")


class BuggyPaidJudge:
    """A network judge of one's own whose parser has a bug on example "e0": every call is billed, and each
    other one takes 10 ms. It counts the calls made and those still running."""

    name = "paid"

    def __init__(self) -> None:
        self.calls = self.running = 0

    def settings(self) -> dict:
        return {}

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.calls += 1
        self.running += 1
        try:
            if example.id == "e0":
                raise KeyError("bug in my parser")
            await asyncio.sleep(0.01)
            return tuple(returns_claim_supported(claims))
        finally:
            self.running -= 1


def refuse_progress(done: int, total: int) -> None:
    if done == 1:  # once: the other workers would go on
        raise KeyError("bug in my progress bar")


@pytest.mark.parametrize(("example_ids", "progress", "error"), [
    # The judge fails on the first example while three others are in flight.
    ([f"e{i}" for i in range(40)], None, "bug in my parser"),
    # The progress callback fails on the first example judged; the judge itself never does.
    ([f"ok{i}" for i in range(40)], refuse_progress, "bug in my progress bar"),
])
async def test_a_failed_aevaluate_leaves_no_judge_call_running(example_ids: list[str], progress: Progress,
                                                               error: str) -> None:
    # asyncio.gather raised the first exception and left the other workers running: in the notebook's loop
    # the 40 examples were all judged (and billed) after aevaluate had failed on the first.
    judge = BuggyPaidJudge()
    with pytest.raises(KeyError, match=error):  # the exception itself, not an ExceptionGroup
        await aevaluate([policy_example(id=i) for i in example_ids], judge, progress=progress, concurrency=4)
    calls = judge.calls
    assert judge.running == 0  # what was in flight was cancelled, and awaited, before aevaluate raised
    await asyncio.sleep(0.2)  # twenty 10 ms calls' time: the other workers had gone on to example 40 in it
    # The first four examples, taken at once, and at most one more per other worker, whose call may end
    # in the very turn of the loop the failure happens in.
    assert judge.calls == calls and calls <= 7


class NoIdsJudge:
    """An NLI model over the joined contexts: it says whether each claim is supported, not by which
    context (ClaimVerdict's default ids, which the checks take: a judge need not track them)."""

    name = "nli"

    def settings(self) -> dict:
        return {"model": "my-nli"}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return tuple(ClaimVerdict(c, c.text.startswith("Returns")) for c in claims)


def test_a_judge_naming_no_context_leaves_the_use_of_contexts_undefined_not_zero() -> None:
    # The "Returns ..." claim is supported by some context, which one is not said: c1 (cited) may well be
    # it. It was read as "no context used": context utilisation 0, citation accuracy 0 and both contexts
    # listed as unused.
    report = evaluate([policy_example()], NoIdsJudge(), EvalConfig(bootstrap_samples=0))
    (result,) = report.results
    assert result.metrics["groundedness"] == 0.5  # 1 of 2 claims supported: known without ids
    for metric in ("context_utilisation", "citation_accuracy", "citation_coverage"):
        assert result.metrics[metric] is None
        assert report.aggregates[metric] == Aggregate(None, 0, None)
    assert result.retrieved_unused == ()


class UnsettledJudge(RefusingJudge):
    """`settings` and `name` as given: the judge itself fails the test if asked about any example."""

    def __init__(self, settings, name: object = "unsettled") -> None:  # type: ignore[no-untyped-def]
        self._settings = settings
        self.name = name  # type: ignore[assignment]

    def settings(self):  # type: ignore[no-untyped-def]
        return self._settings()


def broken_settings() -> dict:
    raise KeyError("model")


@pytest.mark.parametrize(("judge", "error", "message"), [
    # Each used to be found only after every example had been judged, and paid for: `.items()` failed
    # building the report ("'dict_items' object is not a mapping"), a "name" setting relabelled the report
    # (its results kept the judge's name), and a name of None or 42 was taken.
    (UnsettledJudge(lambda: {"model": "gpt-x"}.items()), TypeError,
     "judge 'unsettled': settings() must return a mapping (a report records it), got dict_items"),
    (UnsettledJudge(lambda: {1: "gpt-x"}), TypeError,
     "judge 'unsettled': settings() must return a mapping with string keys (a report records it as JSON), "
     "got the key 1"),
    (UnsettledJudge(lambda: {"name": "baseline-judge"}), ValueError,
     "judge 'unsettled': settings() has the name 'baseline-judge', which would label the report while its "
     "results say 'unsettled': give the judge that name, or drop the 'name' setting"),
    (UnsettledJudge(dict, name=None), TypeError,
     "judge UnsettledJudge: name must be a non-empty string (it labels the judge's figures in reports), "
     "got None"),
    (UnsettledJudge(dict, name=42), TypeError,
     "judge UnsettledJudge: name must be a non-empty string (it labels the judge's figures in reports), "
     "got 42"),
    (UnsettledJudge(dict, name=" "), TypeError,
     "judge UnsettledJudge: name must be a non-empty string (it labels the judge's figures in reports), "
     "got ' '"),
])
async def test_a_judges_name_and_settings_are_checked_before_anything_is_judged(
        judge: UnsettledJudge, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as sync_error:
        evaluate([policy_example()], judge)
    with pytest.raises(error) as async_error:
        await aevaluate([policy_example()], judge)
    assert str(sync_error.value) == str(async_error.value) == message


def test_a_settings_that_raises_is_named_before_anything_is_judged() -> None:
    with pytest.raises(KeyError) as error:  # the judge's own exception, told where it came from
        evaluate([policy_example()], UnsettledJudge(broken_settings))
    assert error.value.__notes__ == ["(raised by the settings() of judge 'unsettled', called before anything "
                                     "is judged)"]


def test_settings_repeating_the_judges_own_name_are_taken() -> None:
    # As the Claude judge's do: the report says the same either way.
    judge = ScriptedJudge(returns_claim_supported, name="same")
    judge.settings = lambda: {"name": "same", "model": "m1"}  # type: ignore[method-assign]
    assert evaluate([policy_example()], judge).judge == {"name": "same", "model": "m1"}


def numpy_supported(claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
    """A similarity judge: `similarity > threshold` is numpy's bool, not Python's."""
    similarity = {True: numpy.float64(0.9), False: numpy.float64(0.2)}
    return tuple(ClaimVerdict(c, similarity[c.text.startswith("Returns")] > 0.8,  # type: ignore[arg-type]
                              ("c1",) if c.text.startswith("Returns") else ()) for c in claims)


async def test_numpys_bool_is_taken_as_a_verdict_and_stored_as_a_bool() -> None:
    # It was refused as "supported must be a bool, got bool".
    judge = ScriptedJudge(numpy_supported)
    for report in (evaluate([policy_example()], judge), await aevaluate([policy_example()], judge)):
        (result,) = report.results
        assert [v.supported for v in result.verdicts] == [True, False]
        assert all(type(v.supported) is bool for v in result.verdicts)  # a report writes it as JSON
        assert result.metrics["groundedness"] == 0.5  # the "Returns ..." claim of the two
    # Any other number is still refused, now by its full name.
    wrong = ScriptedJudge(lambda claims: tuple(ClaimVerdict(c, numpy.float64(1.0)) for c in claims))  # type: ignore[arg-type]
    with pytest.raises(JudgeError) as error:
        evaluate([policy_example()], wrong)
    assert str(error.value) == ("judge 'custom', example 'p1', claim 0: supported must be a bool, got "
                                "numpy.float64")


class BlockingAjudge(ScriptedJudge):
    """`ajudge` written without `async`: it returns the verdicts themselves, nothing to await."""

    def ajudge(self, example: Example, claims: tuple[Claim, ...]):  # type: ignore[no-untyped-def,override]
        return self.reply(claims)


async def test_an_ajudge_that_is_no_coroutine_is_named() -> None:
    # Used to be Python's own "object tuple can't be used in 'await' expression".
    with pytest.raises(TypeError) as error:
        await aevaluate([policy_example()], BlockingAjudge(returns_claim_supported))
    assert str(error.value) == ("judge 'custom': ajudge returned generator, not an awaitable: declare it "
                                "`async def ajudge` (a blocking judge names its method `judge`)")


def test_skip_judge_errors_must_be_a_bool() -> None:
    # The string "no" is truthy: it used to skip every judge error.
    for run in (lambda: evaluate([policy_example()], BrokenJudge(), skip_judge_errors="no"),  # type: ignore[arg-type]
                lambda: asyncio.run(aevaluate([policy_example()], SlowJudge(), skip_judge_errors="no"))):  # type: ignore[arg-type]
        with pytest.raises(TypeError) as error:
            run()
        assert str(error.value) == "skip_judge_errors must be True or False, got 'no'"
