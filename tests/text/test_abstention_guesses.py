"""A refusal that goes on to guess makes a claim; one that only declines, points or apologises makes none."""

from __future__ import annotations

import pytest

from ragmon import Context, Example, evaluate
from ragmon.model import ExampleResult

CONTEXTS = (Context(id="policy", text="Returns are accepted within 30 days of purchase. Refunds go to the "
                                       "original payment method."),)


def _score(answer: str) -> ExampleResult:
    """The answer scored as one to a question its contexts cannot answer, so its abstention is defined."""
    example = Example(id="q1", question="How long do refunds take?", contexts=CONTEXTS, answer=answer,
                      ground_truth="insufficient_context")
    return evaluate([example]).results[0]


@pytest.mark.parametrize("answer", [
    "I'm not sure, refunds probably take 90 days.",
    "I'm not sure - refunds probably take 90 days.",
    "I'm not sure: refunds probably take 90 days.",
    "I don't know, maybe 90 days.",
    "The context does not say, so I'd guess around 3 weeks.",
    "No tengo información sobre eso, aunque normalmente son 2 semanas.",
    "Ich weiß es nicht, wahrscheinlich 90 Tage.",
    "Je ne sais pas, probablement 90 jours.",
    "我不确定，退款大概需要90天。",
    "資料には記載されていませんが、通常2週間です。",
])
def test_a_guess_after_a_refusal_is_an_unsupported_claim(answer: str) -> None:
    """Each had abstained (abstention 1, groundedness undefined): the made-up figure left every mean."""
    result = _score(answer)
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(answer, False)]
    assert result.metrics["groundedness"] == 0.0
    assert result.metrics["hallucination_rate"] == 1.0
    assert result.metrics["abstention"] == 0.0


@pytest.mark.parametrize("answer", [
    "I have no idea.",
    "I've got no clue.",
    "That's not covered in the documents I have.",
    "よくわかりません。",
    "確かではありません。",
])
def test_a_plain_refusal_abstains(answer: str) -> None:
    """The English ones had been taken for filler (abstention 0), the Japanese for unsupported claims."""
    result = _score(answer)
    assert result.verdicts == ()
    assert result.metrics["groundedness"] is None
    assert result.metrics["abstention"] == 1.0


@pytest.mark.parametrize("answer", [
    "I don't know, maybe.",
    "Generally speaking, I can't answer that.",
    "I'm not sure, perhaps ask support.",
    "The context does not mention it, so it's probably best to contact support.",
    "我不知道，您可能需要联系客服。",
    "申し訳ありませんが、資料には記載されていません。",
    # A guess word in a clause saying what the documents cover or where to look, with no figure guessed:
    # each was read as a made-up claim (hallucination_rate 1), an honest "I don't know" a hallucination.
    "I don't know, as the documents generally only cover shipping.",
    "I'm not sure, you should probably look at the refund page.",
    "I don't know - perhaps the billing team would.",
    "我不知道，您应该查看官网。",
    "我不确定，文档里一般没有写退款。",
    "Ich weiß es nicht, das steht wohl nicht in den Unterlagen.",
])
def test_a_refusal_that_guesses_nothing_still_abstains(answer: str) -> None:
    """A guess word with no guess beside it (filler, the refusal's framing, a pointer) asserts nothing."""
    result = _score(answer)
    assert result.verdicts == ()
    assert result.metrics["abstention"] == 1.0
