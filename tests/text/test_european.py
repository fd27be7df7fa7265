"""German, French, Spanish, Italian and Portuguese answer wrappers: refusals, filler, attributions and
sources are no claims; facts that hold "nicht", "pas" or "no" stay claims."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.abstention import is_abstention
from ragmon.text.claims import claim_profile, split_claims


@pytest.mark.parametrize("sentence", [
    "Das weiß ich leider nicht.",
    "Dazu liegen mir keine Informationen vor.",
    "Die bereitgestellten Dokumente enthalten keine Informationen über Ratenzahlung.",
    "In den Dokumenten wird nicht erwähnt, ob wir nach Italien liefern.",
    "Je ne sais pas.",
    "Je suis désolé, mais je n'ai pas d'information sur le paiement en plusieurs fois.",
    "Les documents fournis ne précisent pas si la livraison est possible au Canada.",
    "No tengo información sobre pagos a plazos.",
    "Lo siento, no puedo responder a esa pregunta con los documentos disponibles.",
    "La información proporcionada no menciona si se realizan envíos a Portugal.",
    "Mi dispiace, ma non ho informazioni sui pagamenti rateali.",
    "Non è specificato nei documenti.",
    "I documenti forniti non indicano se è possibile spedire in Svizzera.",
    "Não encontrei essa informação.",
    "Os documentos fornecidos não mencionam os métodos de pagamento aceites.",
    "Infelizmente, não tenho informações sobre esse assunto.",
])
def test_refusals_are_abstentions(sentence: str) -> None:
    assert is_abstention(sentence)


@pytest.mark.parametrize("sentence", [
    "Der Artikel ist nicht erstattungsfähig.",  # not refundable: a fact
    "Der Versand nach Italien ist nicht möglich.",
    "Les articles soldés ne sont pas remboursables.",
    "Je ne peux pas garantir la livraison, mais le colis arrive en 3 jours.",  # declines, then asserts
    "Los artículos rebajados no son reembolsables.",
    "No se aceptan devoluciones de artículos usados.",
    "Non si accettano resi dopo 30 giorni.",
    "Não aceitamos devoluções sem recibo.",
    "Non è indicato nel contratto.",  # a contract is no source the answer was given
])
def test_facts_with_a_negation_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    "Ich hoffe, das hilft!", "Lassen Sie mich wissen, wenn Sie weitere Fragen haben.",
    "Wenn Sie weitere Fragen haben, stehe ich Ihnen gerne zur Verfügung.",
    "J'espère que cela vous aide !", "N'hésitez pas !",
    "N'hésitez pas à me contacter si vous avez d'autres questions.", "Besoin d'aide supplémentaire ?",
    "¡Espero que esto te ayude!", "¡Claro!", "Si tiene alguna otra pregunta, no dude en consultarme.",
    "Spero di esserti stato utile!", "Fammi sapere se hai altre domande.",
    "Espero ter ajudado!", "Se tiver mais alguma dúvida, não hesite em contactar-nos.",
])
def test_filler_is_no_claim(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("answer", [
    "Der Versand dauert 2-4 Werktage.\n\nQuellen:\n- Versandbedingungen (de-shipping)",
    "El envío tarda 2-4 días.\nFuentes: es-shipping",
    "La spedizione richiede 2-4 giorni.\nFonti: it-shipping",
    "O envio demora 2-4 dias.\nFontes: pt-shipping",
])
def test_sources_lists_are_no_claims(answer: str) -> None:
    assert [claim.text for claim in split_claims(answer)] == [answer.split("\n")[0]]


@pytest.mark.parametrize(("claim", "attribution"), [
    ("Laut den bereitgestellten Informationen können Sie Artikel innerhalb von 30 Tagen zurückgeben.",
     "Laut den bereitgestellten Informationen "),
    ("D'après les documents fournis, la livraison est gratuite.", "D'après les documents fournis, "),
    ("Según la información proporcionada, el envío es gratuito.", "Según la información proporcionada, "),
    ("Secondo i documenti forniti, la spedizione è gratuita.", "Secondo i documenti forniti, "),
    ("Com base nos documentos fornecidos, os equipamentos têm garantia de 3 anos.",
     "Com base nos documentos fornecidos, "),
])
def test_an_attribution_opening_a_claim_is_not_checked(claim: str, attribution: str) -> None:
    assert claim_profile(claim) == claim_profile(claim[len(attribution):])


def test_a_refusal_scores_abstention_1_and_no_groundedness() -> None:
    # Before: a claim no context supports, groundedness 0.0 for an honest "I don't know".
    unanswerable = Example("q1", "Kann ich in Raten zahlen?", (Context("c1", "Der Versand ist kostenlos."),),
                           "Die bereitgestellten Dokumente enthalten keine Informationen über Ratenzahlung.",
                           category="unanswerable")
    [result] = evaluate([unanswerable], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert result.metrics["abstention"] == 1.0
    assert result.metrics["groundedness"] is None
