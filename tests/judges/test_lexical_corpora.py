"""The lexical judge on answers in the house styles of the chat models that write them, in Chinese,
Japanese, German, French, Spanish, Italian and Portuguese (tests/judges/corpora/: support documents, answers
whose every sentence the documents state, answers with one made-up sentence, refusals; written for ragmon
by two walkthroughs, labelled sentence by sentence).

Each corpus's wrong verdicts are named below, each with why the judge gets it wrong: a change that makes a
new one fails here, and so does a change that fixes one (drop it from the list, and say so in the README's
figures). Labels: `invented`, the one made-up sentence an answer holds, must be judged unsupported; a
sentence in `not_claims` (filler, a lead-in, a list of sources, a refusal) and any sentence of a refusal
answer must be no claim; every other sentence must be judged supported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluate import evaluate_example
from ragmon.text.claims import split_claims

CORPORA = Path(__file__).parent / "corpora"


def wrong_verdicts(corpus: str) -> set[tuple[str, str, str]]:
    """(case id, what went wrong, the sentence) for every verdict against the labels."""
    judge = LexicalJudge()
    wrong: set[tuple[str, str, str]] = set()
    for line in (CORPORA / corpus).read_text(encoding="utf-8").splitlines():
        case: dict[str, Any] = json.loads(line)
        contexts = tuple(Context(c["id"], c["text"]) for c in case["contexts"])
        example = Example(case["id"], case["question"], contexts, case["answer"])
        verdicts = evaluate_example(example, judge, 5).verdicts
        invented = case["invented"]
        not_claims = case.get("not_claims")  # without them (Chinese, Japanese), a refusal is all no claim
        caught = False
        for verdict in verdicts:
            text = verdict.claim.text
            if invented and (invented.strip() in text or text in invented):
                caught = caught or not verdict.supported
            elif text in not_claims if not_claims is not None else case["kind"] == "refusal":
                wrong.add((case["id"], "read as a claim", text))
            elif not verdict.supported:
                wrong.add((case["id"], "false alarm", text))
        if invented and not caught:
            wrong.add((case["id"], "made-up sentence passed", invented))
    return wrong


CHINESE_JAPANESE = {
    # A lead-in whose product name holds a number (X20) over the largest count a lead-in may state.
    ("bullet-g1", "false alarm", "X20手机的主要参数："),
    ("bullet-i1", "false alarm", "X20手机的主要参数："),
    # A bare "cannot." answering "can it be repaired?": implied by the documents, no words of theirs.
    ("think-g1", "false alarm", "不能。"),
    # Japanese polite forms change the character pairs (となります for できません): paraphrase.
    ("ja-g2", "false alarm", "なお、セール品は返品の対象外となります。"),
    # Made up from the source's own words ("お答えできません" there too, of the phone).
    ("fact-i1", "made-up sentence passed", "ロック中のアカウントについてはチャットではお答えできません。"),
    ("recomb-i1", "made-up sentence passed", "电池享受1年免费保修。"),
    ("recomb-i2", "made-up sentence passed", "定制商品可在30天内申请全额退款。"),
    ("recomb-i3", "made-up sentence passed", "加急配送需要3至5个工作日，费用为20元。"),
}

EUROPEAN = {
    # An en dash range after a label: 2 of its terms, one of them a number word's.
    ("de-g2", "false alarm", "Lieferzeit: 2–4 Werktage"),
    # German inflection and paraphrase: no German stemmer ("Garantie ... verlängern" / "Verlängerung").
    ("de-g7", "false alarm", "Ja, Sie können die Garantie auf fünf Jahre verlängern."),
    # Contradictions in the source's own words: what a lexical judge cannot see.
    ("de-i1", "made-up sentence passed", "Die Rücksendung ist für Sie kostenlos."),
    ("fr-i4", "made-up sentence passed", "Elle couvre aussi les dommages causés par un liquide."),
    ("es-i5", "made-up sentence passed", "La garantía también cubre daños por contacto con agua."),
    ("it-i4", "made-up sentence passed", "La garanzia copre anche i danni causati da liquidi."),
    ("pt-i4", "made-up sentence passed", "A garantia também cobre danos causados por humidade."),
    ("it-i5", "made-up sentence passed", "Le spese di spedizione del reso sono sempre gratuite."),
    ("pt-i5", "made-up sentence passed", "Os portes de devolução são sempre gratuitos."),
    ("es-i6", "made-up sentence passed", "Los envíos a Canarias, Ceuta y Melilla son gratuitos."),
    # French function words count as content ("nous", "en", "et"): 4 of 7 terms.
    ("fr-i7", "made-up sentence passed", "Nous livrons également en Allemagne et en Espagne."),
    # The source says "ne sont pas remboursables" and also "remboursé", which Porter stems alike.
    ("fr-i2", "made-up sentence passed", "Les articles soldés sont remboursables."),
    ("fr-i3", "made-up sentence passed", "Les cartes cadeaux sont remboursables sous 14 jours."),
}


@pytest.mark.parametrize(("corpus", "known"), [
    ("chinese_japanese.jsonl", CHINESE_JAPANESE), ("european.jsonl", EUROPEAN),
])
def test_the_judges_wrong_verdicts_are_the_known_ones(corpus: str, known: set[tuple[str, str, str]]) -> None:
    assert wrong_verdicts(corpus) == known


def test_a_sentence_copied_from_its_context_is_supported() -> None:
    # Answers whose every sentence is in the context verbatim, among numbers written every way a passage
    # writes them (thousands commas beside "[1,2]" citations, IP addresses, versions, "range(0,10)",
    # continental decimals, euro amounts, dates, number words that are names: "Cinco de Mayo", "Fort Dix"),
    # in English and the other languages: written by the red-team walkthrough that found continental
    # number reading breaking English ones. A copied sentence is supported, whatever its numbers.
    judge = LexicalJudge()
    unsupported = []
    for line in (CORPORA / "copied_sentences.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        example = Example(case["id"], "?", (Context("c1", case["context"]),), case["answer"])
        unsupported += [(case["id"], verdict.claim.text, verdict.reason)
                        for verdict in evaluate_example(example, judge, 5).verdicts if not verdict.supported]
    assert unsupported == []


def test_a_copied_sentence_with_a_digit_changed_is_unsupported() -> None:
    # The same answers, each claim's first digit raised by 3 (mod 10), where the number that makes is
    # nowhere in the context: a made-up number in each of the formats above is caught.
    judge = LexicalJudge()
    passed = []
    for line in (CORPORA / "copied_sentences.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        for claim in split_claims(case["answer"]):
            digit = re.search(r"[0-9]", claim.text)
            if digit is None:
                continue
            made_up = f"{claim.text[:digit.start()]}{(int(digit.group()) + 3) % 10}{claim.text[digit.end():]}"
            number = re.match(r"[0-9][0-9.,]*", made_up[digit.start():])
            if number is None or number.group().rstrip(".,") in case["context"]:
                continue
            example = Example(case["id"], "?", (Context("c1", case["context"]),), made_up)
            verdicts = judge.judge(example, split_claims(made_up))
            passed += [made_up for verdict in verdicts if verdict.supported]
    assert passed == []
