"""LexicalJudge: support by one context at a time, numbers exact, terms stemmed."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from ragmon import EvalConfig, evaluate
from ragmon.evaluation import evaluate_example
from ragmon.judges.base import Judge
from ragmon.judges.lexical import LexicalJudge, _contradictions, _opposites
from ragmon.model import Claim, Context, Example
from ragmon.text.claims import claim_profile, sentence_spans, split_claims
from ragmon.text.passages import passage


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


def test_every_chunk_is_read_when_chunks_share_their_files_id() -> None:
    # Two chunks of policy.md, as a LangChain loader names them. Claim 1's terms (shipping -> ship, free,
    # order) are only in the second chunk; claim 2's (return, accept) are in both, and are credited to the
    # file once.
    chunks = ("Returns are accepted for a refund.", "Shipping is free on all orders. Returns are accepted.")
    ex = example("Shipping is free on all orders. Returns are accepted.", *chunks, ids=("policy.md",) * 2)
    assert [(v.supported, v.supporting_ids) for v in verdicts(LexicalJudge(), ex)] == [
        (True, ("policy.md",)), (True, ("policy.md",))]


def test_a_number_missing_from_the_context_is_unsupported() -> None:
    # Terms return, accept: 2/2 in every context below; only the number decides.
    answer = "Returns are accepted within 14 days."

    def supported(context: str) -> bool:
        return verdicts(LexicalJudge(), example(answer, context))[0].supported

    assert not supported("Returns are accepted within 30 days.")
    assert supported("Returns are accepted within 14 days.")
    assert supported("Returns are accepted within fourteen days.")


def test_a_number_of_the_other_sign_is_unsupported() -> None:
    # Terms X200, store, °C... are shared; only the sign of 20 differs, so only it decides.
    def supported(answer: str, context: str) -> bool:
        return verdicts(LexicalJudge(), example(answer, context))[0].supported

    assert not supported("The X200 can be stored at -20 °C.", "The X200 can be stored at 20 °C.")
    assert not supported("The X200 can be stored at 20 °C.", "The X200 can be stored at minus 20 °C.")
    assert supported("The X200 can be stored at -20 °C.", "The X200 can be stored at \u221220 °C.")


def test_stemming_matches_inflections() -> None:
    # Claim terms custom, return, shoe; the context has custom, return, shoe, often: 3/3.
    ex = example("The customer returned the shoes.", "A customer returns shoes often.")
    assert verdicts(LexicalJudge(threshold=1.0), ex)[0].supported


def test_threshold_is_a_share_of_claim_terms() -> None:
    # Claim terms: store, open, monday, sunday (4); the context holds store, open, monday: 3/4 = 0.75.
    ex = example("The store opens Monday and Sunday.", "The store opens on Monday.")
    assert verdicts(LexicalJudge(threshold=0.75), ex)[0].supported
    assert not verdicts(LexicalJudge(threshold=0.76), ex)[0].supported


NATO = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo",
        "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "victor",
        "whiskey", "xray", "yankee", "zulu"]


def test_a_share_exactly_at_the_threshold_is_enough() -> None:
    # 25 content terms, 14 of them in the context: 14/25 = 0.56, "at least 56%". In floats 0.56 x 25 is
    # 14.000000000000002, which once made this claim unsupported; 13/25 = 0.52 is not enough.
    claim = " ".join(NATO) + "."
    assert verdicts(LexicalJudge(), example(claim, " ".join(NATO[:14]) + "."))[0].supported
    assert not verdicts(LexicalJudge(), example(claim, " ".join(NATO[:13]) + "."))[0].supported
    assert verdicts(LexicalJudge(0.28), example(claim, " ".join(NATO[:7]) + "."))[0].supported  # 7/25


@pytest.mark.parametrize(("threshold", "error_type", "message"), [
    # Used to fail at the comparison with "'<' not supported between instances of 'float' and 'str'"; then
    # a ValueError, which `except TypeError`, as the README says of a wrong type, did not catch.
    ("0.5", TypeError, "threshold must be a number in (0, 1], got '0.5'"),
    # Used to be taken as 1: every term of a claim needed, with nothing said.
    (True, TypeError, "threshold must be a number in (0, 1], got True"),
    (56, ValueError, "threshold must be a number in (0, 1], got 56"),
])
def test_a_threshold_that_is_no_share_is_refused_by_name(threshold: object, error_type: type[Exception],
                                                         message: str) -> None:
    with pytest.raises(error_type) as error:
        LexicalJudge(threshold)  # type: ignore[arg-type]
    assert str(error.value) == message


def test_a_numpy_threshold_is_taken_as_a_float_and_cannot_be_changed_past_the_check() -> None:
    # A threshold from a config table (numpy's float32) was refused as "no number in (0, 1]", and one set
    # on the judge afterwards (judge.threshold = 7) skipped the check and went into every report.
    judge = LexicalJudge(np.float32(0.5))
    assert type(judge.threshold) is float and judge.threshold == 0.5
    assert judge.settings() == {"threshold": 0.5}
    with pytest.raises(AttributeError):
        judge.threshold = 7  # type: ignore[misc]


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


def test_the_reason_for_a_verdict_reads_the_same_on_every_run() -> None:
    # Two claim words whose opposites the context uses: the reason names both, alphabetically by stem
    # ("avail", "refund"), whatever order this process's hash seed gives its sets. Six seeds: with the
    # first contradiction a set happened to yield, some of them named 'avail' and others 'refund' alone.
    code = (
        "from ragmon import Context, Example, LexicalJudge\n"
        "from ragmon.text.claims import split_claims\n"
        "answer = 'The product is refundable and available in stores.'\n"
        "ex = Example('x', 'q?', (Context('d', 'The product is non-refundable and unavailable in stores.'),),"
        " answer)\n"
        "print(LexicalJudge().judge(ex, split_claims(answer))[0].reason)\n"
    )
    reasons = {subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip()
               for seed in range(1, 7)}
    # Claim terms product, refund, avail, store (4); the context holds product and store: 2/4.
    assert reasons == {"no single context supports it; closest d has 2/4 of its terms, "
                       "and says the opposite of 'avail' and 'refund'"}


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5])
def test_threshold_must_be_a_share(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        LexicalJudge(threshold=threshold)


def test_a_context_using_the_opposite_word_does_not_support() -> None:
    # Claim terms gift, card, refund (3). The first context holds gift, card and ¬refund: 2/3 = 0.67 of
    # the terms, above the default 0.56, so only the opposite-word rule rejects it.
    claim = "Gift cards are refundable."
    (verdict,) = verdicts(LexicalJudge(), example(claim, "Gift cards are non-refundable."))
    assert not verdict.supported
    assert verdict.reason is not None and "opposite of 'refund'" in verdict.reason
    assert verdicts(LexicalJudge(), example(claim, "Gift cards are refundable."))[0].supported
    # The other way round: the claim's negative word against a context with only the positive one.
    reverse = example("Gift cards are non-refundable.", "Gift cards are refundable.")
    assert not verdicts(LexicalJudge(), reverse)[0].supported
    # A context using both words (about different things) is no contradiction: 3/3 terms.
    both = example(claim, "Gift cards are refundable, but sale items are non-refundable.")
    assert verdicts(LexicalJudge(), both)[0].supported


@pytest.mark.parametrize("dash", ["\u2013", "\u2014", "\u2012", "\u2212"])
def test_non_with_any_dash_is_the_opposite_of_its_word(dash: str) -> None:
    # An en dash, an em dash, a figure dash, a minus: read as "non" and "refundable", the page held both
    # claim terms (deposit, refund) and supported it.
    context = f"The deposit is non{dash}refundable."
    (verdict,) = verdicts(LexicalJudge(), example("The deposit is refundable.", context))
    assert not verdict.supported
    assert verdict.reason == ("no single context supports it; closest c1 has 1/2 of its terms, and says the "
                              "opposite of 'refund'")


def test_unlikely_is_the_opposite_of_likely() -> None:
    # Terms delai, like, winter; the context has delai, ¬like, winter: 2/3 = 0.67 >= 0.56 by overlap.
    ex = example("Delays are likely in winter.", "Delays are unlikely in winter.")
    assert not verdicts(LexicalJudge(), ex)[0].supported


def test_us_names_match_each_other() -> None:
    # Claim terms presid, born, usa; the context has the same three (every name of the US is "usa").
    ex = example("The president must be born in the United States.", "A president must be born in the U.S.")
    assert verdicts(LexicalJudge(threshold=1.0), ex)[0].supported


def test_british_and_american_spellings_match() -> None:
    # Claim terms color, center, gray (after spelling normalisation): all three in the context.
    ex = example("The colour of the centre is grey.", "The color of the center is gray.")
    assert verdicts(LexicalJudge(threshold=1.0), ex)[0].supported


def test_spelled_and_digit_numbers_match() -> None:
    # Terms refund, take, dai: 3/3 in each context; the numbers decide (25 written two ways, vs 30).
    claim = "Refunds take twenty-five days."
    assert verdicts(LexicalJudge(), example(claim, "Refunds take 25 days."))[0].supported
    assert not verdicts(LexicalJudge(), example(claim, "Refunds take 30 days."))[0].supported


def test_sentences_passed_as_strings_are_refused_saying_what_claims_are() -> None:
    # They failed with "AttributeError: 'str' object has no attribute 'text'", naming neither the argument
    # nor where claims come from.
    ex = example("The warranty lasts 2 years.", "The warranty lasts 2 years.")
    with pytest.raises(TypeError) as raised:
        LexicalJudge().judge(ex, ["The warranty lasts 2 years."])  # type: ignore[arg-type]
    assert str(raised.value) == ("claims[0] must be a ragmon.model.Claim, got str 'The warranty lasts 2 "
                                 "years.': split the answer with ragmon.text.claims.split_claims(answer)")
    # The first claim that is not one is named, after any that are.
    with pytest.raises(TypeError, match=r"^claims\[1\] must be a ragmon.model.Claim, got dict "):
        LexicalJudge().judge(ex, (*split_claims("Fine."), {"text": "x"}))  # type: ignore[arg-type]


def test_repr_shows_the_threshold() -> None:
    assert repr(LexicalJudge()) == "LexicalJudge(threshold=0.56)"
    assert repr(LexicalJudge(threshold=0.8)) == "LexicalJudge(threshold=0.8)"


WARRANTY = "The warranty lasts 24 months from the date of purchase."


@pytest.mark.parametrize("digits", [
    "99", "\uff19\uff19", "\u0669\u0669", "\u096f\u096f", "\U0001d7d7\U0001d7d7",
])
def test_a_wrong_number_in_any_script_is_unsupported(digits: str) -> None:
    # ASCII, full-width, Arabic-Indic, Devanagari and mathematical bold digits. Terms warranti, last,
    # month, date, purchas: 5/5 in the context; only the number, 99, decides.
    (verdict,) = verdicts(LexicalJudge(), example(f"The warranty lasts {digits} months from the date of "
                                                  "purchase.", WARRANTY))
    assert not verdict.supported
    assert verdict.reason == "no single context supports it; closest c1 has 5/5 of its terms, lacks 99"


@pytest.mark.parametrize(("claimed", "stated"), [
    ("\uff12\uff14", "24"), ("\u0662\u0664", "24"), ("24", "\uff12\uff14"), ("24", "\u0968\u096a"),
])
def test_a_number_supports_a_claim_in_whatever_digits_either_writes_it(claimed: str, stated: str) -> None:
    ex = example(f"The warranty lasts {claimed} months.", f"The warranty lasts {stated} months in all.")
    assert [v.supported for v in verdicts(LexicalJudge(), ex)] == [True]


@pytest.mark.parametrize(("answer", "context", "supported"), [
    # An exponent is a number of its own, as in "10^9": 10⁹ is not 10⁶.
    ("The cluster serves 10\u2079 requests a day.", "The cluster serves 10\u2076 requests a day.", False),
    ("The cluster serves 10\u2079 requests a day.", "The cluster serves 10^9 requests a day.", True),
    # A fraction is its value: 2¾ is 2.75, not 2½ (2.5), which 2.5 states.
    ("The warranty lasts 2\u00be years.", "The warranty lasts 2\u00bd years.", False),
    ("The warranty lasts 2\u00bd years.", "The warranty lasts 2.5 years.", True),
    # A circled number mid-sentence is a number.
    ("Press \u2468 to reset the router.", "Press 6 to reset the router.", False),
])
def test_exponents_fractions_and_circled_numbers_are_checked(answer: str, context: str,
                                                             supported: bool) -> None:
    assert [v.supported for v in verdicts(LexicalJudge(), example(answer, context))] == [supported]


@pytest.mark.parametrize("gap", [" ", "\u200b", "\ufeff", "\u202c", "\u2060", "\x00"])
def test_an_invisible_character_between_sentences_does_not_hide_an_invented_one(gap: str) -> None:
    # The first sentence's terms (warranti, last, year, cover, batteri) and its 2 are in the context; the
    # second's (cover, water, damag) only 1/3. Glued into one claim by the zero-width space, byte order
    # mark, bidi pop, word joiner or NUL, the pair held 5 of its 8 terms ("It" with the character glued
    # to it was the eighth), 0.625 >= 0.56, and passed: groundedness 1, not 1/2.
    first, second = "The warranty lasts 2 years and covers the battery.", "It also covers water damage."
    ex = example(first + gap + second, "The warranty lasts 2 years and covers the battery and screen.")
    [result] = evaluate([ex], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(first, True), (second, False)]
    assert result.metrics["groundedness"] == 0.5


@pytest.mark.parametrize("opener", [
    "Based on the provided context, ",
    "According to the information provided, ",
    "Based on the retrieved documents, ",
    "According to the knowledge base, ",
    "The provided context indicates that ",
])
def test_an_opening_attribution_is_not_part_of_the_claim(opener: str) -> None:
    ex = example(opener + "databases are backed up every 6 hours.", "Databases are backed up every 6 hours.")
    # Terms databas, back, hour (and 6): all in c1. With the opener's three words (base, provid, context...)
    # they were 3 of 6, short of 0.56, and a sentence copied from its context was flagged.
    [verdict] = verdicts(LexicalJudge(), ex)
    assert verdict.supported
    assert verdict.supporting_ids == ("c1",)


def test_only_the_opening_attribution_is_dropped() -> None:
    answer = ("Based on the provided context, backups are kept for 9 days. "
              "Backups, according to the provided context, are kept for 7 days.")
    ex = example(answer, "Backups are kept for 7 days.")
    wrong_number, attribution_inside = verdicts(LexicalJudge(), ex)
    # backup, kept, dai: 3 of 3 terms in c1, but not 9. Read with the opener it was 3 of 6.
    assert not wrong_number.supported
    assert wrong_number.reason == "no single context supports it; closest c1 has 3/3 of its terms, lacks 9"
    # Not at the start, the clause is part of the claim: backup, kept, dai of 6 terms, 0.5 < 0.56 (a
    # number under 10 counts for no term: it is no specific one).
    assert not attribution_inside.supported
    # A claim made by hand of nothing but an attribution is read whole (accord, provid, document: none in
    # c1), not supported by any context for want of terms to check.
    text = "According to the provided documents, it is."
    [alone] = LexicalJudge().judge(ex, (Claim(text, 0, len(text)),))
    assert not alone.supported


# --- Chinese and Japanese: no spaces between words ---------------------------------------------------

ZH_CONTEXT = "退款在交货后30天内受理。标准运输需要5个工作日。"


def test_a_chinese_sentence_copied_from_its_source_is_supported_and_an_invented_one_is_not() -> None:
    # Two sentences at "。" with no space. The first copies the context: its pairs of characters 退款 款在
    # 在交 交货 货后 and 天内 内受 受理 (the number splits the run) are all there, and so is 30. The second's
    # 13 pairs (我们 们还 ... 服务) share none with the context: 0/13.
    answer = "退款在交货后30天内受理。我们还提供免费的礼品包装服务。"
    found = verdicts(LexicalJudge(), example(answer, ZH_CONTEXT))
    assert [(v.claim.text, v.supported) for v in found] == [
        ("退款在交货后30天内受理。", True), ("我们还提供免费的礼品包装服务。", False)]
    assert found[1].reason == "no single context supports it; closest c1 has 0/13 of its terms"


def test_a_chinese_paraphrase_holding_enough_pairs_is_supported() -> None:
    # 交货后30天内可以退款: pairs 交货 货后 | 天内 内可 可以 以退 退款 (7); the context holds
    # 交货 货后 天内 退款: 4/7 = 0.57 >= 0.56. With 60 days it states a number the context does not.
    judge = LexicalJudge()
    assert [v.supported for v in verdicts(judge, example("交货后30天内可以退款。", ZH_CONTEXT))] == [True]
    assert [v.supported for v in verdicts(judge, example("交货后60天内可以退款。", ZH_CONTEXT))] == [False]


def test_japanese_kana_and_kanji_are_read_in_pairs_too() -> None:
    # The invented sentence's 15 pairs (ギフ フト ト包 ... いま ます) share only ます with the context: 1/15.
    context = "返金は配達後30日以内に受け付けます。標準配送は5営業日かかります。"
    answer = "返金は配達後30日以内に受け付けます。ギフト包装は無料で提供しています。"
    found = verdicts(LexicalJudge(), example(answer, context))
    assert [v.supported for v in found] == [True, False]
    assert found[1].reason == "no single context supports it; closest c1 has 1/15 of its terms"


@pytest.mark.parametrize(("claim", "context", "supported"), [
    ("七天内可申请退款。", "收到商品后30天内可申请退款。", False),  # 7 days against 30: not in the context
    ("三十天内可申请退款。", "收到商品后30天内可申请退款。", True),  # 三十 is 30
    ("30天内可申请退款。", "收到商品后三十天内可申请退款。", True),  # and the other way round
    ("手机享受一年保修。", "手机享受2年保修。", False),  # one year against two
])
def test_chinese_numbers_must_be_in_the_context_as_digits_are(claim: str, context: str,
                                                              supported: bool) -> None:
    assert [v.supported for v in verdicts(LexicalJudge(), example(claim, context))] == [supported]


def test_a_japanese_claim_saying_the_opposite_of_its_context_is_unsupported() -> None:
    # セール品は返品できます (sale items can be returned): pairs セー ール ル品 品は は返 返品 品で でき
    # きま ます; the context's negative ending makes its "でき" negative: 8 of 10 shared, but でき only as
    # its opposite.
    [verdict] = verdicts(LexicalJudge(), example("セール品は返品できます。", "セール品は返品できません。"))
    assert not verdict.supported
    assert verdict.reason is not None and "says the opposite of 'でき'" in verdict.reason
    assert [v.supported for v in verdicts(LexicalJudge(), example("セール品は返品できません。",
                                                                  "セール品は返品できません。"))] == [True]


@pytest.mark.parametrize(("claim", "context", "supported"), [
    ("会员需要支付运费。", "会员无需支付运费。", False),  # members must pay, against need not
    ("会员需要支付运费。", "会员不用支付运费。", False),
    ("会员不需要支付运费。", "会员无需支付运费。", True),  # both: no need
    # The context states the claim word for word, and that VIP members need not pay: its "无需" negates no
    # "需要" of its own, and had cancelled the one it states (the claim "said the opposite of '需要'").
    ("普通会员需要支付运费。", "普通会员需要支付运费。VIP会员无需支付运费。", True),
    ("VIP会员无需支付运费。", "普通会员需要支付运费。VIP会员无需支付运费。", True),
    ("普通会员需要支付运费。", "普通会员不用支付运费。VIP会员无需支付运费。", False),  # no one need pay
])
def test_no_need_in_chinese_is_the_opposite_of_need(claim: str, context: str, supported: bool) -> None:
    assert [v.supported for v in verdicts(LexicalJudge(), example(claim, context))] == [supported]


def test_an_answer_copied_from_a_chinese_page_that_also_says_no_need_is_grounded() -> None:
    # One claim, its sentence copied from the only context: 1 supported of 1.
    page = Context("c1", "普通会员需要支付运费。VIP会员无需支付运费。")
    report = evaluate([Example("zh", "普通会员需要支付运费吗？", (page,), "普通会员需要支付运费。")])
    assert report.aggregates["groundedness"].mean == 1.0


@pytest.mark.parametrize(("claim", "context", "supported"), [
    # ".25 mg" had been read as 25 mg: a claim of a hundred times the dose was supported.
    ("Take 25 mg twice a day.", "Take .25 mg twice a day.", False),
    ("The fee is $99.", "The fee is $.99.", False),
    ("Transfers have a 0.5% fee.", "Transfers have a .5% fee.", True),
    ("Transfers have a .5% fee.", "Transfers have a 0.5% fee.", True),
])
def test_a_decimal_without_its_leading_zero_is_that_decimal(claim: str, context: str,
                                                            supported: bool) -> None:
    [verdict] = verdicts(LexicalJudge(), example(claim, context))
    assert verdict.supported is supported


def test_v_before_a_version_is_the_word_version() -> None:
    # "version", ad(ded): 2 terms. "v" was a term of its own, so the changelog held 1 of 2, 0.5 < 0.56.
    ex = example("It was added in version 2.3.0.", "v2.3.0: added --dry-run.")
    [verdict] = verdicts(LexicalJudge(), ex)
    assert verdict.supported


def test_a_specific_number_the_context_states_counts_as_a_term_it_holds() -> None:
    # credit, rise: 2 terms, 1 (credit) in the context, 0.5 < 0.56. Its four numbers, each specific (10 or
    # more, or a decimal), are there too, and all but the first count: 1 + 3 of 2 + 3, 0.8.
    claim = "The credit rises to 25% below 99.0% and to 50% below 95.0%."
    context = "If uptime falls below 99.9%, the credit is 10%; below 99.0%, 25%; below 95.0%, 50%."
    [verdict] = verdicts(LexicalJudge(), example(claim, context))
    assert verdict.supported
    # With one of them not there it is unsupported, as any claim lacking a number is.
    [verdict] = verdicts(LexicalJudge(), example(claim.replace("50%", "60%"), context))
    assert not verdict.supported
    # A number under 10 counts for nothing: "3 agents" is as often a paraphrase's count as a fact.
    # starter, seat: 1 (starter) of 2 in "Starter: 3 agents." (0.5); with the 3 it would be 2 of 3.
    [verdict] = verdicts(LexicalJudge(), example("Starter has 3 seats.", "Starter: 3 agents."))
    assert not verdict.supported
    # One specific number counts for nothing: a price given to another plan keeps it. team, plan, cost,
    # seat: plan and cost in the context, 2 of 4; had the $49 counted, 3 of 5 (0.6) would have passed.
    ex = example("The Team plan costs $49 per seat.", "The Pro plan includes 100 GB and costs $49 per month.")
    [verdict] = verdicts(LexicalJudge(), ex)
    assert not verdict.supported


def test_how_often_is_checked_as_a_unit_of_time_is() -> None:
    # money, deposit, equal, instal(l)ment, monthli, year: all but "monthli" in the context (5 of 6, 0.83);
    # the context says how often only as "quarterly".
    context = "The money is deposited in equal quarterly installments throughout the year."
    claim = "The money is deposited in equal monthly installments throughout the year."
    [verdict] = verdicts(LexicalJudge(), example(claim, context))
    assert not verdict.supported
    # A context that names no frequency says nothing against it: the terms decide.
    plain = "The money is deposited in equal installments each year."
    [verdict] = verdicts(LexicalJudge(), example(claim, plain))
    assert verdict.supported


PRICES = "The Starter plan costs $19 per month. The Team plan costs $79 per month."


@pytest.mark.parametrize(("answer", "page"), [
    ("The Starter plan costs $79 per month.", PRICES),
    # Wrapped at a width, in the answer or on the page: each line had been read as a sentence of its own,
    # and the price moved from the Team plan passed (the answer scored 1.0).
    ("The Starter plan\ncosts $79 per month.", PRICES),
    ("The Starter plan costs $79 per month.", PRICES.replace("costs $19", "costs\n$19")),
    ("The Starter plan costs $79 per\nmonth.", PRICES.replace("$19 per month", "$19 per\nmonth")),
])
def test_a_price_moved_between_plans_is_caught_however_the_lines_are_wrapped(answer: str, page: str) -> None:
    (verdict,) = verdicts(LexicalJudge(), example(answer, page))
    assert not verdict.supported
    assert verdict.reason is not None
    assert "its closest sentence gives $19, not $79: 'The Starter plan costs $19 per" in verdict.reason


def test_a_made_up_item_of_a_list_without_markers_is_judged_on_its_own() -> None:
    # Lines joined as one wrapped sentence, "offline mode" passed on the other items' words (3 of 4).
    answer = "The Pro plan includes\nfast full-text search\nautomatic backups\noffline mode"
    page = "The Pro plan includes fast full-text search, automatic backups and end-to-end encryption."
    judged = verdicts(LexicalJudge(), example(answer, page))
    assert [(v.claim.text, v.supported) for v in judged] == [
        ("The Pro plan includes", True), ("fast full-text search", True), ("automatic backups", True),
        ("offline mode", False)]


def test_a_document_too_large_for_the_caches_is_let_go_once_its_example_is_judged() -> None:
    # 9 million characters with one emoji: 36 MB as a str (4 bytes a character), over what the passage
    # cache (32 MiB) and the prepared texts (16 MiB) keep. Its claim states a number, so the judge reads the
    # document's numbers from a prepared (lower-cased) copy. Once the example is gone, nothing of either
    # may stay: a lexical worker kept its last such document, twice over, until a later claim stated a
    # number against another text (34 MiB here).
    doc = "The monthly fee is 42 dollars for every member of the club. " * 150_000 + "\N{GRINNING FACE}"
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        example = Example("e", "What is the fee?", (Context("d", doc),), "The monthly fee is 42 dollars.")
        del doc
        result = evaluate_example(example, LexicalJudge(), 5)
        assert result.metrics["groundedness"] == 1.0
        del example, result
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert retained < 2**20


@pytest.mark.parametrize(("answer", "context", "says"), [
    # "over" and "under" are function words: each claim held every term and number of its page.
    ("Orders over $50 ship free.", "Orders under $50 ship free.", "under 50, not over 50"),
    ("Customers under 18 need a parent's consent.", "Customers over 18 need a parent's consent.",
     "over 18, not under 18"),
    ("Up to 5 users are included.", "At least 5 users are included.", "over 5, not under 5"),
    ("A maximum of 5 users is included.", "A minimum of 5 users is included.", "over 5, not under 5"),
    ("Orders of $50 or more ship free.", "Orders below $50 ship free.", "under 50, not over 50"),
    # Found in review. One word more than the page's sentence (3 of the 4 terms, 75%, above the 56% support
    # needs) had taken it out of the check, which asked for all of them; a colon had split "Free
    # shipping" from "orders over $50"; a negation on both sides had switched the check off.
    ("Orders over $50 ship free today.", "Orders under $50 ship free.", "under 50, not over 50"),
    ("Shipping is free on orders under $50.", "Free shipping: orders over $50.", "over 50, not under 50"),
    ("Orders under $50 don't ship free.", "Orders over $50 don't ship free.", "over 50, not under 50"),
    # "and younger" and "and older" were not looked for, and "under age 19" not read as a bound: each claim
    # held every term and number of its page.
    ("Guests aged 16 and younger may use the pool without an adult.",
     "Guests aged 16 and older may use the pool without an adult.", "over 16, not under 16"),
    ("Guests aged 12 and older must be accompanied by an adult.",
     "Guests aged 12 and younger must be accompanied by an adult.", "under 12, not over 12"),
    ("Orthodontia is covered for dependent children over age 19 only.",
     "Orthodontia is covered for dependent children under age 19 only.", "under 19, not over 19"),
    # "exceed" was no bound, and "not exceed" a negation: each claim held every term and number of its page.
    ("Cabin bags must exceed 7 kg.", "Cabin bags must not exceed 7 kg.", "under 7, not over 7"),
    ("Cabin bags must be at least 7 kg.", "Cabin bags cannot exceed 7 kg.", "under 7, not over 7"),
    ("A bag that weighs under 23 kg pays a fee.", "A bag that exceeds 23 kg pays a fee.",
     "over 23, not under 23"),
])
def test_a_bound_turned_the_other_way_is_unsupported(answer: str, context: str, says: str) -> None:
    [verdict] = verdicts(LexicalJudge(), example(answer, context))
    assert not verdict.supported
    assert verdict.reason is not None and verdict.reason.endswith(f"bounds it the other way: says {says}")


@pytest.mark.parametrize(("answer", "context"), [
    # The same way in other words.
    ("Orders above $50 ship free.", "Orders of $50 or more ship free."),
    ("Orders of at least $50 ship free.", "Orders over $50 ship free."),
    ("Adults 18+ can apply.", "Adults 18 or older can apply."),
    # A page giving the number both ways, in two sentences.
    ("Orders over $50 ship free.", "Orders under $50 pay $5 shipping. Orders over $50 ship free."),
    # The complement a reader infers, in other words than the page's sentence: no turned copy of it.
    ("You can't apply if you're under 18.", "You must be at least 18 years old to apply for a card."),
    ("If you cancel less than 24 hours before the start, you'll be charged in full.",
     "Cancellations made at least 24 hours before the start time are free; later ones are charged in full."),
    # Found in review: the page states the complement or both sides itself, a verb's "over" stands before
    # the bound, "and up to" bounds the next number. Each was flagged "bounds it the other way".
    ("Shipping is free on orders over $50.", "Shipping is free unless your order is under $50."),
    ("Shipping is free on orders over $50.", "Shipping isn't free on orders under $50."),
    ("Shipping is free for orders above $50.",
     "Orders under $50 pay $5 for shipping, and orders above that ship free."),
    ("Employees can carry over 5 days of unused leave.",
     "Employees can carry over up to 5 days of unused leave."),
    ("The loan is repaid over 36 months.", "The loan is repaid over a maximum of 36 months."),
    ("The plan includes 5 users and up to 10 GB of storage.",
     "The plan includes up to 5 users, and up to 10 GB of storage."),
    # Compared with sentences holding 56% of their terms, not all: a verb's "over" gives the claim's 5 both
    # ways, and "up to" of the page is one of them; a time before an event bounded either way is one
    # deadline; a negated claim against a sentence without a negation is its complement.
    ("You can carry over up to 5 unused vacation days into the next year.",
     "Up to 5 unused days may be carried into the next calendar year; any balance above that is forfeited."),
    ("Just make sure you skip at least 5 days before your delivery date.",
     "You can skip a week up to 5 days before your delivery date."),
    ("Orders under $50 don't ship free today.", "Orders over $50 ship free."),
    ("Cabin bags may weigh up to 7 kg.", "Cabin bags must not exceed 7 kg."),
    ("Bags over 23 kg pay a fee.", "Bags that exceed 23 kg pay a fee."),
])
def test_a_bound_given_the_same_way_or_its_complement_is_supported(answer: str, context: str) -> None:
    assert [v.supported for v in verdicts(LexicalJudge(), example(answer, context))] == [True]


def _corpus_claims_and_pages() -> list[tuple[str, str]]:
    """Every sentence of the judge's corpora (answers and pages) with each page of its example."""
    pairs = []
    for path in sorted((Path(__file__).parent / "corpora").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            pages = [c["text"] for c in case.get("contexts", ())]
            pages = pages or [page for page in (case.get("passage"), case.get("context")) if page]
            texts = [case.get("answer") or case.get("claim") or case.get("sentence") or "", *pages]
            pairs += [(text[start:end], page) for text in texts for start, end in sentence_spans(text)
                      for page in pages]
    return pairs


def test_contradictions_read_from_the_terms_a_passage_lacks_are_those_of_every_terms_opposite() -> None:
    # The judge looks up only the claim terms a passage lacks, each as "¬" + it (and a "¬" term without its
    # "¬"), instead of building every term's opposite (`_opposites`) for each claim: exact while a term's
    # opposite is only that. An opposite added there ("paid" for "free") would be missed by the lookup:
    # this compares both ways on every sentence of the corpora against each page of its example.
    found = 0
    for claim, page in _corpus_claims_and_pages():
        terms, read = claim_profile(claim).terms, passage(page)
        every = _contradictions(terms, read.terms & terms, read, _opposites(terms))
        assert _contradictions(terms, read.terms & terms, read, None) == every, (claim, page)
        found += bool(every)
    assert found >= 100  # the corpora's negations ("non-refundable", "不支持", "できません") are compared
    # By hand: the claim's refund and avail against the page's ¬refund and ¬avail; the other way round;
    # and a page using both words of a pair, which contradicts nothing.
    for claim, page, expected in (
            ("The product is refundable and available.", "The product is non-refundable and unavailable.",
             ["avail", "refund"]),
            ("The deposit is non-refundable.", "The deposit is refundable.", ["¬refund"]),
            ("Gift cards are refundable.", "Gift cards are refundable; sale items are non-refundable.", [])):
        terms, read = claim_profile(claim).terms, passage(page)
        assert _contradictions(terms, read.terms & terms, read, None) == expected
