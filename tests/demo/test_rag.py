"""The demo app's three builds, worked out by hand from corpus.json and the templates in rag.py."""

from __future__ import annotations

import re

from ragmon.demo.rag import ABSTAIN, INVENTED, REMEMBERED, build, load_corpus

RETURNS_S1 = "Most items can be returned within 30 days of delivery for a full refund."
RETURNS_S3 = "Final sale items, opened software and personalised products cannot be returned."


def ask(phase: str, question: str) -> tuple[list[str], str]:
    retriever, llm = build(phase)
    hits = retriever.search(question)
    return [h.document.id for h in hits], llm.answer(question, hits)


def test_healthy_build_quotes_the_two_best_matching_sentences_of_the_right_policy() -> None:
    # "how many days do i have to return an item" keeps {day, return, item}: S1 shares all three, S3 two
    # (item, return), S2 and S4 one each; the two best are quoted in document order.
    ids, answer = ask("healthy", "How many days do I have to return an item?")
    assert ids[0] == "returns"
    assert answer == f"{RETURNS_S1} {RETURNS_S3}"


def test_hallucinating_build_drifts_numbers_off_the_corpus_and_invents_a_sentence() -> None:
    ids, answer = ask("hallucinating", "How many days do I have to return an item?")
    assert ids[0] == "returns"
    # 30 -> 30 + 15 = 45, which the international policy states, so the next free number: 46.
    drifted = RETURNS_S1.replace("30", "46")
    assert answer.startswith(f"{drifted} {RETURNS_S3} ")
    assert answer.removeprefix(f"{drifted} {RETURNS_S3} ") in INVENTED


def test_drift_skips_every_number_the_corpus_or_the_answer_already_uses() -> None:
    _, answer = ask("hallucinating", "How much does standard shipping cost?")
    # 50 -> 75; 6 -> 9; 2 -> 3 but 3..7 are in the corpus -> 8; 3 -> 4.. taken or in the corpus -> 11;
    # 5 -> 7.. (8, 9, 11 used; 10, 12 in the corpus) -> 13.
    assert answer.startswith(
        "Standard shipping is free on orders over 75 dollars and costs 9 dollars otherwise. "
        "Standard orders leave our warehouse within 8 business days and arrive in 11 to 13 business days. ")


def test_degraded_index_lost_every_other_policy_and_the_generator_falls_back() -> None:
    documents, _ = load_corpus()
    lost = {d.id for d in documents[1::2]}
    # "refunds" is the 2nd policy, so it is gone: retrieval returns other policies, none of which shares
    # two terms with the question, so the generator declines or answers "from memory".
    ids, answer = ask("degraded", "How long does a card refund take to appear on my statement?")
    assert "refunds" in lost and not lost & set(ids)
    assert answer in (ABSTAIN, *REMEMBERED)


def test_made_up_numbers_never_occur_in_the_corpus() -> None:
    documents, _ = load_corpus()
    corpus_numbers = {n for d in documents for n in re.findall(r"\d+", d.text)}
    for sentence in (*INVENTED, *REMEMBERED):
        numbers = set(re.findall(r"\d+", sentence))
        assert numbers and not numbers & corpus_numbers, sentence
