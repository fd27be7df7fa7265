"""An answer written as a letter: its salutation, closing and signature are no claims, what it states is."""

from __future__ import annotations

import pytest

from ragmon import Context, Example, LexicalJudge
from ragmon.evaluation import evaluate_example
from ragmon.text.claims import split_claims
from ragmon.text.letters import closes_a_letter, salutation_end, signs_a_letter

PAGE = Context("refunds", "Refunds are issued within 14 days of receiving the returned item. "
                          "Call 0800 555 0101 for help.")
FACT = "Refunds are issued within 14 days of receiving the returned item."


def claims(answer: str) -> list[str]:
    return [claim.text for claim in split_claims(answer)]


@pytest.mark.parametrize("letter", [
    f"Dear Ms Patel,\n\n{FACT}\n\nKind regards,\nThe Northwind Support Team",
    f"Hi Anna,\n{FACT} Best regards, Tom",
    f"Guten Tag, Frau Müller,\n{FACT}\nMit freundlichen Grüßen\nIhr Kundenservice der Stadtwerke Lindau",
    f"Madame, Monsieur,\n{FACT}\nJe vous prie d'agréer, Madame, Monsieur, l'expression de mes salutations "
    "distinguées.\nClaire Dubois\nConseillère clientèle",
    f"Estimado Sr. García:\n{FACT}\nUn saludo,\nEl equipo de Atención al Cliente",
    f"Gentile Signora Bianchi,\n{FACT}\nCordiali saluti,\nil team di assistenza",
    f"Prezada Sra. Costa,\n{FACT}\nCom os melhores cumprimentos,\nA equipa de apoio ao cliente",
    f"Good afternoon.\n{FACT}\nThanks,\nMaria",
    f"Hi Anna,\n{FACT}\nBest,\nTom\n\nSent from my iPhone",
    f"Hallo Frau Weber,\n{FACT}\nViele Grüße\nJonas\nVon meinem iPad gesendet",
])
def test_a_letters_frame_is_no_claim_and_its_one_fact_is_judged_alone(letter: str) -> None:
    assert claims(letter) == [FACT]
    result = evaluate_example(Example("q", "How long do refunds take?", (PAGE,), letter), LexicalJudge(), 5)
    assert result.metrics["groundedness"] == 1.0  # 1 of 1 claim; the frame's 2-4 lines had been 0 of them


def test_a_salutation_before_a_comma_leaves_the_rest_of_its_sentence_to_judge() -> None:
    sentence = "Hi Jonas, refunds are issued within 14 days of receiving the returned item."
    assert salutation_end(sentence) == len("Hi Jonas, ")
    assert claims(sentence) == [sentence]  # the claim is the whole sentence, its terms those after the name
    verdict = LexicalJudge().judge(Example("q", "?", (PAGE,), sentence), tuple(split_claims(sentence)))[0]
    assert verdict.supported
    assert claims("Hi, thanks for getting in touch with Northwind.") == []


@pytest.mark.parametrize("sentence", [
    "Dear customers who ordered before May can return items until June.",  # no mark ends the "name"
    "Hello Kitty bags are refunded within 14 days.",
    "Good morning deliveries arrive before 9 am.",
    "Best Buy gift cards are not refundable.",
    "Kind regards from the team, and note that the showroom is closed on Sundays.",
])
def test_facts_that_open_like_a_greeting_or_a_closing_are_claims(sentence: str) -> None:
    assert salutation_end(sentence) == 0
    assert not closes_a_letter(sentence)
    assert claims(f"{FACT}\n{sentence}") == [FACT, sentence]


def test_what_a_signature_states_is_still_judged() -> None:
    letter = (f"{FACT}\nKind regards,\nAnna Schmidt\nCall 0800 555 0199\nsupport@northwind.example\n"
              "Open Monday to Friday\nP.S. Shipping costs are refunded too")
    assert claims(letter) == [FACT, "Call 0800 555 0199", "support@northwind.example",
                              "Open Monday to Friday", "P.S. Shipping costs are refunded too"]
    result = evaluate_example(Example("q", "?", (PAGE,), letter), LexicalJudge(), 5)
    unsupported = [v.claim.text for v in result.verdicts if not v.supported]
    assert "Call 0800 555 0199" in unsupported  # a made-up hotline: the page's number is 0800 555 0101


def test_name_lines_are_a_signature_only_under_a_closing() -> None:
    assert signs_a_letter("The Northwind Support Team") and signs_a_letter("— Anna")
    assert not signs_a_letter("Returns are free.") and not signs_a_letter("Tel. 0800 555 0101")
    assert claims(f"{FACT}\nAnna\nNorthwind Energy") == [FACT]  # a sentence ended: they sign it
    assert claims("Plans with refunds:\nBusiness\nEnterprise") == ["Business", "Enterprise"]  # a list
    assert claims(f"{FACT}\n- Business\n- Enterprise") == [FACT, "Business", "Enterprise"]  # its items


@pytest.mark.parametrize("sentence", [
    "Nous vous remercions de votre confiance.", "Merci d'avoir contacté la Banque Rivière.",
    "La ringraziamo per aver scelto Autolinee Sud.",
    "Le agradecemos que se haya puesto en contacto con nosotros.",
    "Gracias por confiar en Seguros Faro.", "Agradecemos o seu contacto.",
    "Vielen Dank für Ihr Vertrauen.", "Wir stehen Ihnen gerne zur Verfügung.",
    "Quedamos a su entera disposición.", "Restiamo a vostra disposizione.", "Ficamos ao dispor.",
])
def test_a_teams_thanks_and_offers_of_help_are_no_claims(sentence: str) -> None:
    assert claims(sentence) == []


def test_the_last_sentences_before_a_closing_are_the_answers_last_for_the_wrapper_model() -> None:
    # Above a closing and a two-line signature, "Restiamo a disposizione ..." was the fourth sentence from the
    # end, where the wrapper model is not asked; it is the last before the letter's ending.
    letter = (f"{FACT}\nRestiamo a disposizione per qualsiasi dubbio.\nCordiali saluti,\nGiulia Neri\n"
              "Ufficio Clienti")
    assert claims(letter) == [FACT]
