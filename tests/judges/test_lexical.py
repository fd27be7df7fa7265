"""LexicalJudge: support by one context at a time, numbers exact, terms stemmed."""

from __future__ import annotations

import pytest

from ragmon.judges.base import Judge
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.text import split_claims


def example(answer: str, *texts: str, ids: tuple[str, ...] | None = None) -> Example:
    ids = ids or tuple(f"c{i}" for i in range(1, len(texts) + 1))
    return Example("q1", "question?", tuple(Context(i, t) for i, t in zip(ids, texts, strict=True)), answer)


def verdicts(judge: LexicalJudge, ex: Example):
    assert ex.answer is not None
    return judge.judge(ex, split_claims(ex.answer))


def test_support_stitched_from_two_contexts_is_not_support() -> None:
    answer = "The warranty covers water damage and battery replacement."
    # Claim terms: warranti, cover, water, damag, batteri, replac (6). c1 holds the first 4 (4/6 = 0.67),
    # c2 holds batteri and replac (2/6 = 0.33); together they hold 6/6, but at threshold 0.8 neither alone.
    split = example(answer, "The warranty covers water damage.", "Battery replacement is offered.")
    assert [v.supported for v in verdicts(LexicalJudge(threshold=0.8), split)] == [False]
    # Control: one context holding all six terms (6/6 = 1.0 >= 0.8) supports it.
    whole = example(answer, "The warranty covers water damage and also battery replacement.")
    assert [v.supported for v in verdicts(LexicalJudge(threshold=0.8), whole)] == [True]


def test_a_number_missing_from_the_context_is_unsupported() -> None:
    # Terms return, accept: 2/2 in every context below; only the number decides.
    answer = "Returns are accepted within 14 days."

    def supported(context: str) -> bool:
        return verdicts(LexicalJudge(), example(answer, context))[0].supported

    assert not supported("Returns are accepted within 30 days.")
    assert supported("Returns are accepted within 14 days.")
    assert supported("Returns are accepted within fourteen days.")


def test_stemming_matches_inflections() -> None:
    # Claim terms custom, return, shoe; the context has custom, return, shoe, often: 3/3.
    ex = example("The customer returned the shoes.", "A customer returns shoes often.")
    assert verdicts(LexicalJudge(threshold=1.0), ex)[0].supported


def test_threshold_is_a_share_of_claim_terms() -> None:
    # Claim terms: store, open, monday, sunday (4); the context holds store, open, monday: 3/4 = 0.75.
    ex = example("The store opens Monday and Sunday.", "The store opens on Monday.")
    assert verdicts(LexicalJudge(threshold=0.75), ex)[0].supported
    assert not verdicts(LexicalJudge(threshold=0.76), ex)[0].supported


def test_supporting_ids_are_every_supporting_context_in_rank_order_once() -> None:
    claim = "Shipping is free for members."
    ex = example(claim, "Members get free shipping.", "Unrelated text about hats.",
                 "Shipping is free for members.", "Members get free shipping.", ids=("b", "a", "c", "b"))
    (verdict,) = verdicts(LexicalJudge(), ex)
    assert verdict.supported
    assert verdict.supporting_ids == ("b", "c")


def test_unsupported_verdicts_say_why() -> None:
    ex = example("Returns are accepted within 14 days.", "Returns are accepted within 30 days.")
    (verdict,) = verdicts(LexicalJudge(), ex)
    assert verdict.supporting_ids == ()
    assert verdict.reason is not None and "c1" in verdict.reason and "14" in verdict.reason
    (nothing,) = LexicalJudge().judge(example("Returns are fine."), split_claims("Returns are fine."))
    assert not nothing.supported
    assert nothing.reason == "no context was retrieved"


def test_judge_protocol_settings_and_determinism() -> None:
    judge = LexicalJudge(threshold=0.5)
    assert isinstance(judge, Judge)
    assert judge.name == "lexical"
    assert dict(judge.settings()) == {"threshold": 0.5}
    ex = example("Returns take 30 days. Shipping is free. Hats are red.", "Returns take 30 days.",
                 "Shipping is free.")
    assert verdicts(judge, ex) == verdicts(LexicalJudge(threshold=0.5), ex)
    assert [v.supported for v in verdicts(judge, ex)] == [True, True, False]


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5])
def test_threshold_must_be_a_share(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        LexicalJudge(threshold=threshold)
