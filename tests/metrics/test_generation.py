"""Generation metrics from given verdicts, hand-computed, including every "undefined when" row of §3."""

from __future__ import annotations

import pytest

from ragmon.metrics.generation import (
    abstention,
    answer_correctness,
    answer_relevance,
    citation_accuracy,
    citation_coverage,
    context_utilisation,
    generation_metrics,
    groundedness,
    hallucination_rate,
    is_unanswerable,
    token_f1,
    use,
)
from ragmon.model import Claim, ClaimVerdict, Context, Example

CONTEXTS = tuple(Context(f"d{i}", f"text {i}") for i in range(1, 5))


def ex(**fields) -> Example:
    base = {"id": "e", "question": "When do refunds arrive?", "contexts": CONTEXTS, "answer": "Some answer."}
    return Example(**{**base, **fields})


def v(supported: bool, *ids: str) -> ClaimVerdict:
    text = f"claim {'+'.join(ids) or 'none'}"
    return ClaimVerdict(Claim(text, 0, len(text)), supported, ids)


# Three claims: two supported (by d1, by d1 and d2), one not. used = {d1, d2}.
VERDICTS = (v(True, "d1"), v(True, "d1", "d2"), v(False))


def test_groundedness_and_hallucination_rate() -> None:
    assert groundedness(ex(), VERDICTS) == pytest.approx(2 / 3)
    assert hallucination_rate(ex(), VERDICTS) == pytest.approx(1 / 3)


@pytest.mark.parametrize(("example", "verdicts"), [
    (ex(answer=None), VERDICTS),  # answer unknown
    (ex(contexts=None), VERDICTS),  # contexts unknown
    (ex(), ()),  # no claims
])
def test_groundedness_undefined(example: Example, verdicts) -> None:
    assert groundedness(example, verdicts) is None
    assert hallucination_rate(example, verdicts) is None


def test_empty_contexts_with_claims_are_a_real_zero() -> None:
    # Nothing was retrieved, so nothing can support a claim, whatever the verdicts say.
    assert groundedness(ex(contexts=()), VERDICTS) == 0.0
    assert hallucination_rate(ex(contexts=()), VERDICTS) == 1.0


def test_citation_accuracy() -> None:
    # Cited d1 (supports a claim), d3 (retrieved, supports nothing), d9 (never retrieved: wrong) -> 1/3.
    assert citation_accuracy(ex(citations=("d1", "d3", "d9")), VERDICTS) == pytest.approx(1 / 3)
    # A repeated citation is one cited id: {d1} -> 1/1.
    assert citation_accuracy(ex(citations=("d1", "d1")), VERDICTS) == 1.0
    # With nothing retrieved every cited id is wrong.
    assert citation_accuracy(ex(contexts=(), citations=("d1",)), (v(False),)) == 0.0


@pytest.mark.parametrize("example", [
    ex(citations=None),  # citations unknown
    ex(citations=()),  # citations empty
    ex(citations=("d1",), contexts=None),  # support cannot be known: contexts unknown
    ex(citations=("d1",), answer=None),  # ... or answer unknown
])
def test_citation_accuracy_undefined(example: Example) -> None:
    assert citation_accuracy(example, VERDICTS) is None


def test_citation_accuracy_of_an_answer_making_no_claim_is_undefined() -> None:
    # A refusal naming where it looked ("d1 doesn't mention it.", citations ("d1",)) has no claim its
    # citation could back: it scored 0 and failed a citation gate for declining.
    assert citation_accuracy(ex(citations=("d1",)), ()) is None


def test_citation_coverage() -> None:
    # used = {d1, d2}; cited {d1, d3}: 1 of the 2 used contexts is cited.
    assert citation_coverage(ex(citations=("d1", "d3")), VERDICTS) == 0.5
    # Known-empty citations with contexts used: a real 0.
    assert citation_coverage(ex(citations=()), VERDICTS) == 0.0


def test_citation_coverage_undefined() -> None:
    assert citation_coverage(ex(citations=None), VERDICTS) is None  # citations unknown
    assert citation_coverage(ex(citations=("d1",)), (v(False), v(False))) is None  # used empty


def test_context_utilisation() -> None:
    # used {d1, d2} of 4 contexts.
    assert context_utilisation(ex(), VERDICTS) == 0.5


def test_context_utilisation_counts_contexts_not_distinct_ids() -> None:
    # Five chunks of faq.md under the file's id and policy.md, which alone supports the claim: 1 of the 6
    # contexts given supports a claim -> 1/6 (it was 1 used id / 2 distinct ids = 1/2).
    chunks = (*(Context("faq.md", f"chunk {i}") for i in range(5)), Context("policy.md", "p"))
    assert context_utilisation(ex(contexts=chunks), (v(True, "policy.md"),)) == pytest.approx(1 / 6)
    # A verdict names ids, so contexts sharing one cannot be told apart: each context whose id supports a
    # claim counts. Contexts d1 d1 d2, d1 supports -> positions 1 and 2 of 3 -> 2/3 (it was 1/2).
    dup = (Context("d1", "a"), Context("d1", "a"), Context("d2", "b"))
    assert context_utilisation(ex(contexts=dup), (v(True, "d1"),)) == pytest.approx(2 / 3)
    # Both ids used: 3 of 3 contexts -> 1, never more.
    assert context_utilisation(ex(contexts=dup), (v(True, "d1"), v(True, "d2", "d1"))) == 1.0


@pytest.mark.parametrize(("example", "verdicts"), [
    (ex(contexts=None), VERDICTS),  # contexts unknown
    (ex(contexts=()), VERDICTS),  # contexts empty
    (ex(), ()),  # no claims
])
def test_context_utilisation_undefined(example: Example, verdicts) -> None:
    assert context_utilisation(example, verdicts) is None


def test_answer_relevance() -> None:
    # Question terms: refund, arriv ("when", "do" are function words); the answer has both -> 2/2.
    assert answer_relevance(ex(answer="Refunds arrive within 5 days.")) == 1.0
    # Question terms refund, arriv, card; the answer has refund only -> 1/3.
    assert answer_relevance(ex(question="Do refunds arrive on my card?", answer="Refunds are quick.")) == \
        pytest.approx(1 / 3)
    # Numbers count too: terms happen + number 2015 = 2; the answer has 2015 only -> 1/2.
    assert answer_relevance(ex(question="What happened in 2015?", answer="A merger, in 2015.")) == 0.5


@pytest.mark.parametrize(("question", "answer"), [
    # Each question's terms but its measure word: refund, take; devic, regist; deliv; order, ship; rent, car.
    # The answer holds them all, and states the measure as a figure: 1. Read as a term, the measure word
    # was one no answer repeats: 2/3, 2/3, 1/2, 2/3, 2/3.
    ("How long do refunds take?", "Refunds take 5 business days."),
    ("How many devices can I register?", "You can register up to 5 devices."),
    ("How far do you deliver?", "We deliver within 20 miles."),
    ("How soon will my order ship?", "Orders ship within 24 hours."),
    ("How old must I be to rent a car?", "You must be 21 to rent a car."),
])
def test_a_how_question_s_measure_word_is_no_term_the_answer_must_repeat(question: str, answer: str) -> None:
    assert answer_relevance(ex(question=question, answer=answer)) == 1.0


@pytest.mark.parametrize(("question", "answer", "relevance"), [
    # "long" is content but after "how": sell, long, sleev, shirt; the answer lacks "long": 3/4.
    ("Do you sell long sleeve shirts?", "We sell short sleeve shirts.", 3 / 4),
    # Nor is "how long-lasting" a measure: long, last, batteri; the answer holds last, batteri: 2/3.
    ("How long-lasting is the battery?", "The battery lasts 10 hours.", 2 / 3),
    # "far" likewise: far, east, ship; the answer holds ship only: 1/3.
    ("Do you ship to the Far East?", "We ship to Europe.", 1 / 3),
])
def test_a_measure_word_not_asked_after_how_is_a_term(question: str, answer: str, relevance: float) -> None:
    assert answer_relevance(ex(question=question, answer=answer)) == pytest.approx(relevance)


def test_answer_relevance_of_a_chinese_answer_is_the_same_read_whole_or_by_claims() -> None:
    # The answer states that members pay and that they need not. Question pairs 会员 员需 需要 要支
    # 支付 付运 运费 费吗 (8): the answer holds all but 费吗, 7/8. With a number the answer is read
    # whole: 会员 员需 需要 要支 支付 | 元运 运费 费吗 (8) and 10: all but 费吗, 8/9. Read whole, its
    # "无需" had cancelled its "需要": 7/9.
    answer = "会员需要支付10元运费。会员无需支付运费。"
    assert answer_relevance(ex(question="会员需要支付运费吗？", answer=answer)) == pytest.approx(7 / 8)
    assert answer_relevance(ex(question="会员需要支付10元运费吗？", answer=answer)) == pytest.approx(8 / 9)


def test_answer_relevance_undefined() -> None:
    assert answer_relevance(ex(answer=None)) is None  # answer unknown
    assert answer_relevance(ex(question="What is it?")) is None  # the question has no content term


def test_answer_correctness_is_squad_token_f1() -> None:
    # Normalised: "refund takes five business days" (5 tokens, "the" dropped) vs "five days" (2 tokens);
    # 2 in common: P = 2/5, R = 2/2, F1 = 2 * 0.4 * 1 / 1.4 = 0.5714.
    got = answer_correctness(ex(answer="The refund takes five business days.", ground_truth="five days"))
    assert got == pytest.approx(2 * 0.4 * 1.0 / 1.4)
    # Case, punctuation and articles do not matter.
    assert token_f1("The Eiffel Tower!", "eiffel tower") == 1.0
    assert token_f1("Berlin", "Paris") == 0.0
    # Nothing left of either side once normalised: both empty agree (SQuAD's rule), one empty does not.
    assert token_f1("The.", "a") == 1.0
    assert token_f1("The.", "Paris") == 0.0


@pytest.mark.parametrize(("answer", "truth"), [
    ("30 jours", "« 30 jours »"),  # was 2/3: "«" and "»" read as tokens of the truth's 4
    ("30 Tage", "„30 Tage“"),  # was 1/2: "„30" no match for "30"
    ("¡Cuesta 5 euros!", "Cuesta 5 euros"),  # was 2/3: "¡cuesta" no match for "cuesta"
    ("普通会员需要支付运费。", "普通会员需要支付运费"),  # was 0: the answer's "。" made it another token
])
def test_answer_correctness_drops_every_punctuation_mark(answer: str, truth: str) -> None:
    # The same words as the ground truth, only punctuated otherwise: an exact answer, 1.
    assert answer_correctness(ex(answer=answer, ground_truth=truth)) == 1.0


@pytest.mark.parametrize(("answer", "truth", "f1"), [
    ("5 €", "5", 1.0),  # was 2/3: "€" a token, P = 1/2, R = 1
    ("€5", "5", 1.0),  # was 0: "€5" one token, no match for "5"
    ("£30", "$30", 1.0),  # was 0, where SQuAD drops "$"
    ("¥500", "500", 1.0),  # was 0
    # it, costs, 5 against 5: P = 1/3, R = 1, F1 = 2 * (1/3) / (4/3) = 1/2 (was 2/5: with "€", P = 1/4)
    ("It costs 5 €.", "5", 1 / 2),
])
def test_answer_correctness_drops_every_currency_sign_as_squad_drops_the_dollar(answer: str, truth: str,
                                                                                f1: float) -> None:
    assert answer_correctness(ex(answer=answer, ground_truth=truth)) == pytest.approx(f1)


def test_answer_correctness_reads_chinese_a_character_a_token() -> None:
    # "需要支付运费" (6 characters) against "普通会员需要支付运费" (10): 6 shared, P = 6/6, R = 6/10,
    # F1 = 2 * 1 * 0.6 / 1.6 = 0.75 (it was 0: with no space, each side was one token, and they differ).
    assert answer_correctness(ex(answer="需要支付运费。", ground_truth="普通会员需要支付运费")) == \
        pytest.approx(0.75)
    # A digit run stays one token beside them: "退款需要5个工作日" is 退 款 需 要 5 个 工 作 日 (9 tokens),
    # "5个工作日" 5 个 工 作 日 (5), all 5 shared: P = 5/9, R = 1, F1 = 2 * (5/9) / (14/9) = 5/7.
    assert answer_correctness(ex(answer="退款需要5个工作日。", ground_truth="5个工作日")) == \
        pytest.approx(5 / 7)
    # Japanese likewise, kana too: "5営業日以内です" is 5 営 業 日 以 内 で す (8 tokens), "5営業日" 4, all 4
    # shared: P = 4/8, R = 1, F1 = 2 * 0.5 / 1.5 = 2/3.
    assert answer_correctness(ex(answer="5営業日以内です。", ground_truth="5営業日")) == pytest.approx(2 / 3)


def test_answer_correctness_for_unanswerable_ground_truth_rewards_abstaining() -> None:
    assert answer_correctness(ex(answer="I don't know.", ground_truth="insufficient_context")) == 1.0
    assert answer_correctness(ex(answer="Paris is the capital.", ground_truth="insufficient_context")) == 0.0


def test_answer_correctness_undefined() -> None:
    assert answer_correctness(ex(ground_truth=None)) is None  # ground truth unknown
    assert answer_correctness(ex(answer=None, ground_truth="five days")) is None


@pytest.mark.parametrize("unanswerable", [
    ex(relevant_ids=frozenset()),
    ex(ground_truth="insufficient_context"),
    ex(category="adversarial"),
    ex(category="unanswerable"),
])
def test_abstention_on_unanswerable_questions(unanswerable: Example) -> None:
    assert is_unanswerable(unanswerable)
    assert abstention(Example(**{**_fields(unanswerable), "answer": "I don't know."})) == 1.0
    assert abstention(Example(**{**_fields(unanswerable), "answer": "Refunds arrive in 5 days."})) == 0.0


def test_a_refusal_naming_a_retrieved_id_is_an_abstention() -> None:
    # "HR-POL-007 doesn't mention foster care." declines, naming where it looked: read without the
    # example's context ids, it was an answer, and scored 0 for abstention and for answer correctness.
    refusal = ex(contexts=[Context("HR-POL-007", "Parental leave is 16 weeks.")], category="unanswerable",
                 answer="HR-POL-007 doesn't mention foster care.", ground_truth="insufficient_context")
    assert (abstention(refusal), answer_correctness(refusal)) == (1.0, 1.0)


def test_abstention_undefined_for_answerable_questions() -> None:
    for answerable in (ex(), ex(relevant_ids=frozenset({"d1"})), ex(category="policy"), ex(ground_truth="5")):
        assert not is_unanswerable(answerable)
        assert abstention(answerable) is None
    assert abstention(ex(relevant_ids=frozenset(), answer=None)) is None  # answer unknown


def _fields(example: Example) -> dict:
    return {name: getattr(example, name) for name in Example.__slots__ if name != "extra"}


def test_hallucination_rate_is_the_exact_share_of_unsupported_claims() -> None:
    # 7 of 10 claims supported: 3 of 10 unsupported is 0.3 exactly (the double nearest 3/10). Taken as
    # 1 - 0.7 it would be 0.30000000000000004, and a gate `hallucination_rate=0.3` would breach on it.
    verdicts = (v(True, "d1"),) * 7 + (v(False),) * 3
    assert groundedness(ex(), verdicts) == 0.7
    assert hallucination_rate(ex(), verdicts) == 0.3
    assert hallucination_rate(ex(contexts=()), verdicts) == 1.0  # nothing retrieved: all 10 unsupported


def test_support_from_an_id_that_was_not_retrieved_does_not_count() -> None:
    # A judge names d9, which is not among the contexts d1..d4: it was not retrieved, so it cannot be
    # "used" and citing it is wrong (DESIGN §3).
    verdicts = (v(True, "d1", "d9"),)
    # Cited {d1, d9}: only d1 supports a claim -> 1/2.
    assert citation_accuracy(ex(citations=("d1", "d9")), verdicts) == 0.5
    # used = {d1} of 4 contexts -> 1/4.
    assert context_utilisation(ex(), verdicts) == 0.25
    # Ids beyond the contexts never push utilisation past 1: used = {d1} -> 1/4, not 5/4.
    assert context_utilisation(ex(), (v(True, "d1", "x", "y", "z", "w"),)) == 0.25
    # Support only from a non-retrieved id: no context used, so coverage is undefined (not 0/1).
    assert citation_coverage(ex(citations=("d1",)), (v(True, "d9"),)) is None


def test_a_supported_claim_naming_no_context_leaves_the_use_of_contexts_undefined() -> None:
    # A judge need not name ids: the second claim's support may be d3, cited below. Read as "no context
    # used", d3's citation was wrong (accuracy 1/2 here) and utilisation 1/4.
    mixed = (v(True, "d1"), v(True), v(False))
    example = ex(citations=("d1", "d3"))
    assert groundedness(example, mixed) == pytest.approx(2 / 3)  # known without ids
    assert citation_accuracy(example, mixed) is None
    assert citation_coverage(example, mixed) is None
    assert context_utilisation(example, mixed) is None
    # An unsupported claim naming no context says nothing of use: d1 alone of 4 is used, and cited.
    known = (v(True, "d1"), v(False))
    assert (context_utilisation(example, known), citation_accuracy(example, known)) == (1 / 4, 1 / 2)


def test_every_metric_read_together_is_the_one_its_own_function_gives() -> None:
    # `evaluation` reads the contexts used and the claims supported once for all metrics: each must stay the
    # figure of its own function, whatever is unknown. By hand for VERDICTS (used {d1, d2}) citing d1 and d3:
    # 2/3 supported, cited {d1, d3} of which d1 used (1/2), used {d1, d2} of which d1 cited (1/2), 2 of the 4
    # contexts used, no question term ("refund", "arriv") in "Some answer." (0/2).
    cited = ex(citations=("d1", "d3"))
    assert generation_metrics(cited, VERDICTS, use(cited, VERDICTS)) == {
        "groundedness": pytest.approx(2 / 3), "hallucination_rate": pytest.approx(1 / 3),
        "citation_accuracy": 0.5, "citation_coverage": 0.5, "context_utilisation": 0.5,
        "answer_relevance": 0.0, "answer_correctness": None, "abstention": None}
    functions = {"groundedness": groundedness, "hallucination_rate": hallucination_rate,
                 "citation_accuracy": citation_accuracy, "citation_coverage": citation_coverage,
                 "context_utilisation": context_utilisation}
    unknown = (v(True), v(False))  # a supported claim naming no context: use unknown
    stray = (v(True, "d9"), v(True, "d1", "d9"))  # an id never retrieved
    for example in (cited, ex(), ex(citations=()), ex(contexts=()), ex(contexts=None), ex(answer=None),
                    ex(citations=("d9",), ground_truth="insufficient_context", category="unanswerable")):
        for verdicts in (VERDICTS, (), unknown, stray, (v(False),)):
            together = generation_metrics(example, verdicts, use(example, verdicts))
            alone = {name: function(example, verdicts) for name, function in functions.items()}
            assert {name: together[name] for name in functions} == alone, (example, verdicts)
            assert together["answer_relevance"] == answer_relevance(example)
            assert together["abstention"] == abstention(example)
