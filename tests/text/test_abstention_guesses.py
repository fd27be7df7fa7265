"""A refusal that goes on to guess makes a claim; one that only declines, points or apologises makes none."""

from __future__ import annotations

import time

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


def _abstained(answer: str) -> ExampleResult:
    """The answer scored, after checking it made no claim and abstained: for the caller's own checks."""
    result = _score(answer)
    assert result.verdicts == ()
    assert result.metrics["abstention"] == 1.0
    return result


def _assert_one_made_up_claim(answer: str) -> None:
    """The whole answer is one claim, unsupported: groundedness 0, hallucination 1, no abstention."""
    result = _score(answer)
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(answer, False)]
    assert result.metrics["groundedness"] == 0.0
    assert result.metrics["hallucination_rate"] == 1.0
    assert result.metrics["abstention"] == 0.0


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
    _assert_one_made_up_claim(answer)


@pytest.mark.parametrize("answer", [
    "I have no idea.",
    "I've got no clue.",
    "That's not covered in the documents I have.",
    "よくわかりません。",
    "確かではありません。",
])
def test_a_plain_refusal_abstains(answer: str) -> None:
    """The English ones had been taken for filler (abstention 0), the Japanese for unsupported claims."""
    assert _abstained(answer).metrics["groundedness"] is None


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
    _abstained(answer)


@pytest.mark.parametrize("answer", [
    "No estoy seguro.",
    "No estoy segura.",
    "No estoy seguro de la respuesta.",
    "Ich bin mir nicht sicher.",
    "Ich bin mir nicht sicher, ob das stimmt.",
    "Ich bin mir nicht sicher, ob es 90 Tage sind.",
    "Ich bin mir nicht sicher. Bitte wenden Sie sich an den Support.",
    "Je ne suis pas sûr.",
    "Je ne suis pas sûre.",
    "Je ne suis pas sûr de la réponse.",
    "Non ne sono sicuro.",
    "Non sono sicuro.",
    "Não tenho certeza.",
])
def test_an_unsure_answerer_abstains_in_five_languages(answer: str) -> None:
    """As "I'm not sure." does: the Spanish, Italian and Portuguese ones had been unsupported claims
    (hallucination_rate 1), the German and French ones answers that neither claimed nor abstained."""
    metrics = _abstained(answer).metrics
    assert (metrics["groundedness"], metrics["hallucination_rate"]) == (None, None)


@pytest.mark.parametrize("answer", [
    "I'm not sure, refunds take 90 days.",
    "I don't know, refunds take 90 days.",
    "I'm not sure, 90 days.",
    "No estoy seguro, los reembolsos tardan 90 días.",
    "Ich bin mir nicht sicher, Rückerstattungen dauern 90 Tage.",
    "Je ne suis pas sûr, les remboursements prennent 90 jours.",
    "Non sono sicuro, il rimborso richiede 90 giorni.",
    "Não tenho certeza, o reembolso leva 90 dias.",
    "我不确定，退款需要90天。",
])
def test_a_refusal_spliced_to_a_stated_figure_is_an_unsupported_claim(answer: str) -> None:
    """No guess word, but a figure stated after the hedge: the English and Chinese ones had abstained, the
    90 days unchecked, and the others would once their hedge declines."""
    _assert_one_made_up_claim(answer)


@pytest.mark.parametrize("answer", [
    "I can't find pricing for 1,000 units or more.",
    "I don't have details about the March 5, 2024 outage.",
    "I don't know, as the documents only cover 2023.",
    "Ich weiß nicht, wie lange die 30-Tage-Frist gilt.",
])
def test_a_figure_the_refusal_is_about_is_no_claim(answer: str) -> None:
    """A comma inside a number or a date, and a clause saying what the refusal is about or why, state
    nothing beside it."""
    _abstained(answer)


@pytest.mark.parametrize("answer", [
    "Non sono sicuri per i bambini.",
    "El pago no está seguro.",
    "Je ne suis pas sur le site depuis 2020.",
])
def test_unsure_words_about_something_else_stay_a_claim(answer: str) -> None:
    """Not the answerer unsure: "they are not safe for children", "the payment is not secure", "I have not
    been on the site since 2020" (French "sur" without its accent)."""
    result = _score(answer)
    assert [v.claim.text for v in result.verdicts] == [answer]
    assert result.metrics["abstention"] == 0.0


@pytest.mark.parametrize("answer", [
    # A word that opens a subordinate clause in one language, or only with a subject after it, opens a
    # statement here: each had abstained, its figure unchecked.
    "I'm not sure, that's 90 days.",
    "I'm not sure, that is 90 days.",
    "I'm not sure, as of 2024 refunds take 90 days.",
    "I'm not sure, since 2020 refunds take 90 days.",
    "I'm not sure, car refunds take 90 days.",
    "I'm not sure, was told it's 90 days.",
    "No estoy seguro, como máximo son 90 días.",
    "No estoy seguro, se reembolsa en 90 días.",
    "Non sono sicuro, come da regolamento sono 90 giorni.",
    "Ich bin mir nicht sicher, da steht 90 Tage.",
    "Ich weiß es nicht, wie gesagt sind es 90 Tage.",
    "Não tenho certeza, como regra são 90 dias.",
    # The answerer's memory as the figure's source is a guess.
    "I'm not sure, as far as I know refunds take 90 days.",
    "I'm not sure, if I remember correctly it's 90 days.",
    "No estoy seguro, que yo sepa son 90 días.",
    "Non sono sicuro, che io sappia sono 90 giorni.",
    "Je ne suis pas sûr, si je me souviens bien c'est 90 jours.",
    "Não tenho certeza, que eu saiba são 90 dias.",
    # A figure, a comma and a space, then the guess: not one number.
    "I'm not sure about 2024, 90 days probably.",
    "I can't find the fee for plan 3, 50 dollars maybe.",
    # A relative clause after the comma says what the thing is: "which" opens no question there.
    "The documents don't mention the restocking fee, which is 90 dollars.",
    "I couldn't find the express option, which takes 90 days.",
    # "da" after a comma is "since": it gives a reason, and the reason states 90 days (it was read as what
    # the refusal is about until rules 24).
    "Ich bin mir nicht sicher, da es 90 Tage sind.",
])
def test_a_figure_stated_after_a_refusal_is_a_claim_whatever_opens_it(answer: str) -> None:
    """Each abstained (abstention 1, groundedness undefined): its 90 days or 50 dollars left every mean."""
    _assert_one_made_up_claim(answer)


@pytest.mark.parametrize("answer", [
    "I don't know, the documents only cover 2023.",
    "I'm not sure, the context only covers 2023 orders.",
    "I don't know, sorry, the context is from 2022.",
    "No lo sé, los documentos solo cubren 2023.",
    "Ich weiß es nicht, die Dokumente decken nur 2023 ab.",
    "我不知道，文档只涵盖2023年。",
    "我不确定，是否需要90天。",
    "我不知道，因为文档只涵盖2023年。",
    "Je ne suis pas sûr, car les documents ne couvrent que 2023.",
    "Ich weiß nicht, wie lange die 2,5-Tage-Frist gilt.",
    "I can't find the 2024 price in the provided documents, which only cover 2023 pricing.",
    "I couldn't find it in the context, which dates from 2022.",
    "I'm not sure, which of the 2 plans do you mean?",
])
def test_a_refusal_saying_what_its_sources_cover_or_what_it_is_about_abstains(answer: str) -> None:
    """The first eight were unsupported claims (hallucination_rate 1): an honest "I don't know" that says
    which year the documents cover, or asks whether it is 90 days, counted as a made-up answer."""
    metrics = _abstained(answer).metrics
    assert (metrics["groundedness"], metrics["hallucination_rate"]) == (None, None)


@pytest.mark.parametrize("answer", [
    "I'm not sure, the documents say refunds take 90 days.",
    "No lo sé, los documentos proporcionados dicen 90 días.",
    "我不确定，文档显示退款需要90天。",
])
def test_sources_said_to_state_a_figure_stay_a_claim(answer: str) -> None:
    """A figure the answer says the documents state is one a context must hold: the sources as a clause's
    subject say what a refusal is about only when they do not say the figure."""
    _assert_one_made_up_claim(answer)


@pytest.mark.parametrize("answer", [
    # The sources as the subject, saying a figure: what the answer says they state is a claim to check.
    "I'm not sure, the documents mention 90 days.",
    "I'm not sure, the documents only say 90 days.",
    "I'm not sure, the documents clearly say 90 days.",
    "I'm not sure, the documents specify 90 days.",
    "I'm not sure, the documents have 90 days.",
    "I'm not sure, the documents contain a 90 day limit.",
    "I'm not sure, the page reads 90 days.",
    "I'm not sure, the documents refer to 90 days.",
    "Ich weiß es nicht, die Dokumente erwähnen 90 Tage.",
    "Je ne sais pas, les documents parlent de 90 jours.",
    "Je ne sais pas, les documents ne mentionnent que 90 jours.",
    "No estoy seguro, los documentos hablan de 90 días.",
    "我不确定，文档写的是90天。",
])
def test_sources_said_to_hold_a_figure_after_a_refusal_are_a_claim(answer: str) -> None:
    """Each abstained (groundedness undefined), its 90 days never checked against a page that says 30."""
    _assert_one_made_up_claim(answer)


@pytest.mark.parametrize("answer", [
    # The sources as the subject, saying what they cover or leave out: what the refusal is about.
    "I'm not sure, the documents don't mention 2024.",
    "I don't know, the documents say nothing about 2024.",
    "I don't know, the documents show nothing for 2024.",
    "I don't know, the provided documents only cover orders from 2023.",
    "I'm not sure, the documents only go up to 2023.",
    "I don't know, section 5 covers refunds.",
    "I'm not sure, pages 3 and 4 cover it.",
    "Je ne sais pas, les documents ne couvrent que 2023.",
    "Ich weiß es nicht, die Dokumente erwähnen 2024 nicht.",
    "No lo sé, los documentos no hablan de 2024.",
    "Non lo so, i documenti sono del 2023.",
    "我不知道，文档只有2023年的。",
    "我不知道，文档没有提到2024年。",
    # A list of figures the refusal is about: its "whether" or "which" opens the whole list.
    "I'm not sure whether refunds take 1, 2 or 3 weeks.",
    "I'm not sure if it's 30, 60 or 90 days.",
    "I'm not sure if it's 30, 60, or 90 days.",
    "I'm not sure which of the 3, 4 or 5 day options applies.",
    "Ich bin mir nicht sicher, ob es 1, 2 oder 3 Wochen sind.",
])
def test_a_refusal_about_what_its_sources_cover_or_a_list_of_figures_abstains(answer: str) -> None:
    """"..., the documents show nothing for 2024." and the last five were unsupported claims (groundedness
    0): in these, the comma after "1" cut "2 or 3 weeks" from the "whether" it belongs to, and read it as a
    figure stated."""
    assert _abstained(answer).metrics["groundedness"] is None


def test_a_refusal_listing_many_figures_is_read_in_linear_time() -> None:
    """A list of figures is looked for from its first figure only: tried again from each of these 20,000
    (the refusal's one clause, as no comma before a year starts one), failing at the end with no "or", it
    read 1.2 billion characters, some 25 s; read once, the answer is scored in a fraction of a second."""
    answer = "I'm not sure about the years " + ", ".join(["2024"] * 20_000) + "."
    start = time.process_time()  # CPU time: another process's load on the machine does not count
    assert _score(answer).verdicts == ()
    assert time.process_time() - start < 2.0
