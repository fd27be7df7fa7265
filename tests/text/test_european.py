"""German, French, Spanish, Italian and Portuguese answer wrappers: refusals, filler, attributions and
sources are no claims; facts that hold "nicht", "pas" or "no" stay claims."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.abstention import is_abstention
from ragmon.text.claims import claim_profile, split_claims
from ragmon.text.terms import numbers


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


PRIVACY_ANSWER = ("Nous collectons votre adresse e-mail.", "Recopilamos su dirección de correo electrónico.",
                  "Raccogliamo il tuo indirizzo email.", "Recolhemos o seu endereço de email.")
"""Sentences around one under test (third of five), so that it is no answer's edge."""


def amid(sentence: str) -> list[str]:
    """The claims of `sentence` said in the middle of an answer of `PRIVACY_ANSWER`."""
    answer = " ".join((*PRIVACY_ANSWER[:2], sentence, *PRIVACY_ANSWER[2:]))
    return [claim.text for claim in split_claims(answer)]


@pytest.mark.parametrize("sentence", [
    # A red team's made-up facts opening with "no information" (`european.DECLINES`' bare cue), each dropped
    # as a refusal, and one with two of them.
    "Aucune information n'est vendue aux assureurs.",
    "Ninguna información se vende a aseguradoras.",
    "Nessuna informazione viene venduta alle assicurazioni.",
    "Nenhuma informação é vendida a seguradoras.",
    "Aucune information n'est vendue et aucune information n'est partagée.",
])
def test_facts_opening_with_no_information_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert amid(sentence) == [*PRIVACY_ANSWER[:2], sentence, *PRIVACY_ANSWER[2:]]


@pytest.mark.parametrize("sentence", [
    # "No information" beside the answerer, the sources or a word of their giving, or alone before a topic.
    "Je n'ai trouvé aucune information sur les frais de dossier.",
    "**Contrassegno:** nessuna informazione disponibile.",
    "Aucune information à ce sujet.",
    "Nessuna informazione in merito.",
    "Ninguna información sobre el horario del sábado.",
    "Nenhuma informação disponível sobre o estacionamento.",
    "Aucune information sur les horaires du samedi ne figure dans ce que j'ai reçu.",
    "Não encontrei nos documentos disponíveis nenhuma informação sobre animais de estimação.",
])
def test_no_information_with_a_refuser_is_a_refusal_inside_an_answer(sentence: str) -> None:
    assert is_abstention(sentence)
    assert amid(sentence) == list(PRIVACY_ANSWER)


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


@pytest.mark.parametrize("sentence", [
    # pointers to someone who may know: a recommendation, or an instruction with a purpose
    "Am besten wenden Sie sich direkt an Ihre Krankenkasse.",
    "Ich empfehle Ihnen, sich an den Kundenservice oder an Ihre Filiale zu wenden.",
    "Bitte wenden Sie sich mit dieser Frage an Ihre Personalabteilung.",
    "Je vous conseille de contacter directement votre agence pour en savoir plus.",
    "Pour une réponse précise, adressez-vous au service client.",
    "Te recomiendo que lo consultes con la recepción antes de llegar.",
    "Para saber si está incluido, contacta con el servicio de atención al cliente.",
    "Ti consiglio di rivolgerti alla segreteria della scuola.",
    "Per maggiori dettagli puoi contattare direttamente l'ufficio prenotazioni.",
    "Sugiro que fale diretamente com a loja ou com o fabricante.",
    # asked politely, as English's "Please contact support." (rules 23; each had been a made-up claim)
    "Veuillez contacter le service client.",
    "Por favor, contacta con Recursos Humanos.",
    "Si prega di contattare l'ufficio del personale.",
    "Por favor, entre em contato com o suporte.",
    "Bitte fragen Sie in der Apotheke oder bei Ihrer Ärztin nach.",
    "Chiedi pure al farmacista al banco.",
    "Confirme com o farmacêutico responsável.",
    "Por favor, ligue para o suporte.",
    "Adressez-vous à votre conseiller pour en avoir le cœur net.",
    "Per questa informazione rivolgiti all'ufficio del personale.",
    "Para mais detalhes, fale com o RH.",
    "Si necesitas esa información, lo mejor es que hables con Recursos Humanos o revises el convenio.",
    "Le service client de l'enseigne saura sûrement vous répondre.",
    "Il servizio clienti potrà chiarire questo dubbio.",
    # courtesies, questions back, refusals in other words
    "Viel Erfolg bei der Prüfung!", "Vielen Dank für Ihre Nachricht!", "Désolé pour ce contretemps.",
    "Bon séjour à Lyon !", "¡Que te mejores pronto!", "Un saludo y buen fin de semana.",
    "Buon divertimento al concerto!", "Sinto muito pelo incómodo.",
    "Se precisar de mais alguma coisa, estou à disposição.",
    "Kann ich Ihnen sonst noch helfen?", "Souhaitez-vous que je vous explique la procédure ?",
    "¿Quieres que te resuma las condiciones?", "Posso aiutarti con qualcos'altro?",
    "Posso ajudar com mais alguma dúvida?",
    # informal and preference questions, actions proposed in the first person (twenty-fifth session)
    "Möchtest du, dass ich dir die Schritte noch einmal zeige?", "Gibt es noch etwas, das ich klären kann?",
    "Veux-tu que je reformule ?", "Tu veux que je te rappelle demain ?", "Dois-je relancer le dossier ?",
    "¿Prefieres que te lo explique por teléfono?", "¿Te mando el resumen por correo?",
    "Preferisce ricevere il modulo per posta?", "Ti preparo un riepilogo?",
    "Procuro outro horário para si?", "Te envio o link por SMS?",
    "Schicke ich Ihnen die Anleitung per E-Mail?",
    # offers made as statements, "if you like" first
    "Wenn Sie möchten, kann ich Ihnen die Unterlagen zusammenstellen.",
    "Si tu veux, je te prépare un récapitulatif.", "Si lo desea, puedo enviarle el resumen por correo.",
    "Se vuoi, posso mandarti il modulo.", "Se quiser, posso rever os passos consigo.",
    "Die Unterlagen enthalten keine Angaben zu Ratenzahlungen.",
    "Eso no aparece en la documentación que tengo.",
    "Cette question n'est pas abordée dans les documents fournis.",
    "Nei documenti che ho non si parla di parcheggi.",
])
def test_pointers_courtesies_and_questions_to_the_user_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "Puede consultar el saldo en la app.",  # what the app does: a fact
    "Contacte o apoio ao cliente.",  # an instruction, no purpose: may be how it is done
    "Am besten buchen Sie das Ticket online.",  # a recommendation to do something, not to ask
    "Ich empfehle Ihnen, die AGB vor der Buchung zu lesen.",
    "Te recomiendo contactar con atención al cliente, que te devolverá el dinero.",  # what the party will do
    "Ti consiglio di chiamare il numero 800 123 456.",  # a number to call
    "Wenden Sie sich an den Kundenservice, um zu kündigen.",  # how to cancel
    "Vous pouvez contacter le service client 24h/24 au 01 23 45 67 89.",
    "Puoi chiedere il rimborso entro 14 giorni.",
    "Bei Fragen hilft der Kundenservice gerne.",
    "Lamento informarle que no se aceptan devoluciones.",  # an apology carrying a fact
    "Kann die Karte online gesperrt werden?",  # a question, but no offer: kept as written
    # asked politely, but with a number to call, what the party will do, or a step a page may state
    "Veuillez contacter le service client au 01 23 45 67 89.",
    "Veuillez contacter votre agence, qui pourra débloquer la carte sous 24 heures.",
    "Si prega di contattare l'ufficio del personale per il rimborso di 50 euro.",
    "Por favor, llame al 900 123 456.",
    "Por favor, consulta el saldo en la app.",
    "Veuillez contacter le service client pour obtenir un remboursement intégral.",
    "Por favor, contacta con el hotel que ofrece cancelación gratuita.",
])
def test_instructions_and_facts_that_look_like_wrappers_stay_claims(sentence: str) -> None:
    # Two the wrapper model takes for wrappers: a recommendation, and the party's help promised (counted
    # with test_abstention's TAKEN_BY_THE_WRAPPER_MODEL in the README).
    taken = {"Am besten buchen Sie das Ticket online.", "Bei Fragen hilft der Kundenservice gerne."}
    assert [claim.text for claim in split_claims(sentence)] == ([] if sentence in taken else [sentence])


@pytest.mark.parametrize("sentence", [
    # told by their opening or a cue word, whatever the wish or the sympathy is about
    "Ich drücke Ihnen die Daumen für das Vorstellungsgespräch!",
    "Profitez bien de votre week-end en famille !", "Ojalá tu perro se recupere enseguida.",
    "Goditi la serata a teatro!", "Aproveite bem as férias na praia!",
    "Es tut mir leid, dass Ihre Bestellung so lange unterwegs war.", "Dommage pour le concert annulé !",
    "Siento mucho las molestias con la entrega.", "Mi dispiace per il disguido con la prenotazione.",
    "Melden Sie sich gern, falls noch etwas fehlt.", "Aquí estoy si necesitas algo más.",
    "Fico à disposição para qualquer outra dúvida.",
    # the party as who can tell
    "Le personnel de l'accueil pourra vous renseigner sur place.",
    "Si tienes dudas, en la recepción podrán orientarte.",
])
def test_courtesies_told_by_their_cue_words_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "Gute Reise, und denken Sie daran, dass der Reisepass noch sechs Monate gültig sein muss.",  # a reminder
    "Es tut mir leid, aber Rückgaben sind nur innerhalb von 14 Tagen möglich.",  # a contrast and a number
    "Lo siento, pero el seguro no cubre los daños por agua.",
    "Bonne nouvelle : les enfants skient gratuitement.",  # news
    "Lamento informarle que la tienda cierra los domingos.",  # a verb of telling
    "Mi dispiace dirti che il parcheggio non è incluso.",
    "Per disdire l'abbonamento, contatti il servizio clienti.",  # an instruction to act, not to know
    "Para cancelar a assinatura, entre em contato com o suporte.",
    "Aproveite o desconto de 15% na primeira mensalidade.",  # a wish carrying a number
    "Si vous le souhaitez, vous pouvez résilier sans frais pendant quatorze jours.",  # what the user may do
    "Se quiser, posso ativar o plano com internet ilimitada incluída.",  # what the plan holds
    "Wenn du magst, buche ich dir den Expresstarif, der am selben Tag liefert.",  # what the rate does
])
def test_courtesies_that_carry_a_claim_stay_claims(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


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


@pytest.mark.parametrize(("text", "expected"), [
    ("über 1.000 €", {1000.0}), ("wiegt 2,5 kg", {2.5}), ("Express kostet 5,90 €", {5.9}),
    ("1.000.000 €", {1_000_000.0}), ("1.250,50 €", {1250.5}), ("4,75 %", {4.75}), ("2,5 Jahre", {2.5}),
    ("hasta tres mil euros", {3000.0}), ("dix mille", {10_000.0}),
    # No sign of the continental way: read the English way, as "1,000 people" and "3.5 kg" are.
    ("1,000 people", {1000.0}), ("3.5 kg", {3.5}), ("costs $1,250.50", {1250.5}),
    # Number words.
    ("Nach drei Versuchen", {3.0}), ("cinq ans", {5.0}), ("vingt-cinq jours", {25.0}),
    ("tres intentos", {3.0}),
    ("dreißig Tage", {30.0}), ("trinta dias", {30.0}),
    # The teens and the tens past fifty, which had been no number ("vierzehn Tagen" passed against 30).
    ("innerhalb von vierzehn Tagen", {14.0}), ("sechzig Tage", {60.0}), ("quince días", {15.0}),
    ("sesenta días", {60.0}), ("quatorze jours", {14.0}), ("soixante jours", {60.0}),
    ("quattordici giorni", {14.0}), ("sessanta giorni", {60.0}), ("catorze dias", {14.0}),
    ("sessenta dias", {60.0}), ("dieciocho meses", {18.0}), ("neunzig Minuten", {90.0}),
    ("soixante-dix jours", {70.0}), ("soixante-quinze euros", {75.0}),  # not 60 and 10, 60 and 15
    # Not the words that are English too.
    ("once you return it", set()), ("seize the day", set()),
])
def test_numbers_written_the_continental_way_or_in_words(text: str, expected: set[float]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize(("claim", "context"), [
    # One number in a passage written the continental-looking way had made the whole passage read so,
    # and its "4,000 mg" 4.0: each number is read by itself.
    ("The maximum daily dose for adults is 4,000 mg.",
     "Paracetamol reduces fever [1,2]. The maximum daily dose for adults is 4,000 mg."),
    ("The default MTU is 1,500 bytes.",
     "Set the subnet mask to 255.255.255.0. The default MTU is 1,500 bytes."),
    ("The free tier allows 10,000 requests per month.",
     "Call range(0,10) to iterate. The free tier allows 10,000 requests per month."),
    ("A car costs €2,500.", "Petrol costs €1.859 per litre, and a car costs €2,500."),
    ("Complete steps 1,2 and 3 before upgrading.", "Complete steps 1, 2 and 3 before upgrading."),
    # What stays ambiguous is read alike on both sides.
    ("Bestellungen ab 1.000 Stück erhalten Rabatt.",
     "Die Versandkosten betragen 4,90 €. Bestellungen ab 1.000 Stück erhalten Rabatt."),
])
def test_english_numbers_stay_english_beside_continental_looking_ones(claim: str, context: str) -> None:
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", context),), claim), split_claims(claim))
    assert verdict.supported


@pytest.mark.parametrize(("claim", "context"), [
    ("Das Gerät wiegt 5 kg.", "Das Gerät wiegt 2,5 kg."),  # read as 2 and 5, the 5 had been there
    ("Für Reparaturen über 2.000 € ist ein Kostenvoranschlag nötig.",
     "Für Reparaturen über 1.000 € ist ein Kostenvoranschlag nötig. Die Garantie gilt 2 Jahre."),
    ("Nach drei Fehlversuchen wird das Konto gesperrt.", "Nach fünf Fehlversuchen wird das Konto gesperrt."),
    ("Rücksendungen sind innerhalb von vierzehn Tagen möglich.",
     "Rücksendungen sind innerhalb von 30 Tagen möglich."),
    ("Tienes sesenta días para devolver el producto.", "Tienes 30 días para devolver el producto."),
    ("Vous disposez de quatorze jours pour retourner le produit.",
     "Vous disposez de 30 jours pour retourner le produit."),
    ("Der Artikel ist erstattungsfähig.", "Der Artikel ist nicht erstattungsfähig."),
    ("Der Artikel ist nicht erstattungsfähig.", "Der Artikel ist erstattungsfähig."),
    ("Los artículos rebajados son reembolsables.", "Los artículos rebajados no son reembolsables."),
    ("Gli articoli in saldo sono rimborsabili.", "Gli articoli in saldo non sono rimborsabili."),
    ("Os artigos em saldo são reembolsáveis.", "Os artigos em saldo não são reembolsáveis."),
    ("Les cartes cadeaux sont remboursables.", "Les cartes cadeaux ne sont pas remboursables."),
])
def test_a_made_up_number_or_a_flipped_negation_is_unsupported(claim: str, context: str) -> None:
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", context),), claim), split_claims(claim))
    assert not verdict.supported


@pytest.mark.parametrize("text", [
    "Das Gerät wiegt 2,5 kg.", "Ein Kostenvoranschlag ist bei Reparaturen über 1.000 € erforderlich.",
    "Der Artikel ist nicht erstattungsfähig.",
    "Abgedeckt sind Materialfehler, nicht jedoch Schäden durch Wasser.",
    "Die Garantie deckt nicht nur Materialfehler ab.",
])
def test_the_same_text_still_supports_itself(text: str) -> None:
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", text),), text), split_claims(text))
    assert verdict.supported


def test_a_negation_past_an_adverb_negates_the_word_after_it() -> None:
    # "nicht jedoch Schäden" (but not damage) says what "jedoch keine Schäden" says; "nicht nur" (not
    # only) negates nothing.
    claim = "Abgedeckt sind Materialfehler, nicht jedoch Schäden durch Wasser."
    context = "Die Garantie deckt Materialfehler ab, jedoch keine Schäden durch Wasser."
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", context),), claim), split_claims(claim))
    assert verdict.reason is None or "opposite" not in verdict.reason


NBSP, NNBSP = "\u00a0", "\u202f"


@pytest.mark.parametrize(("claim", "context"), [
    # French typography's non-breaking spaces before a unit or sign, and as thousands separators: the
    # number was read the English way, "2,5" as 2 and 5, and these made-up numbers passed.
    (f"Das Paket wiegt 5{NBSP}kg.", f"Das Paket wiegt 2,5{NBSP}kg."),
    (f"Le colis coûte 90{NBSP}€.", f"Le colis coûte 5,90{NBSP}€."),
    (f"Le taux est de 75{NNBSP}%.", f"Le taux est de 4,75{NNBSP}%."),
    (f"Le colis coûte 500{NBSP}€.", f"Le colis coûte 1{NNBSP}500{NBSP}€."),
    # A continental number ending its sentence was read as 1.25 and 50.
    ("Die Miete beträgt monatlich 50.", "Die Miete beträgt monatlich 1.250,50."),
    # The sign before the amount, as Brazil and Italy write prices.
    ("O preço é R$ 90.", "O preço é R$ 5,90."),
    ("Il prezzo è € 5 al mese.", "Il prezzo è € 5,90 al mese."),
    # "1.500 Euro" was 1.5, so a thousand times less, "1,5 Euro", passed.
    ("Die Kaution beträgt 1,5 Euro.", "Die Kaution beträgt 1.500 Euro."),
    # A full-width decimal point: the claim's 2.5 and the page's 1.5 (it had been flagged for nothing
    # either way, so this is the half that held).
    ("包裹重2.5公斤。", "包裹重１．５公斤。"),
    # Thousands after the sign: "R$ 1,50" was supported by "R$ 1.500" once the decimal was read there.
    ("O bilhete custa R$ 1,50.", "O bilhete custa R$ 1.500."),
    ("Il biglietto costa € 1,50.", "Il biglietto costa € 1.500."),
    # French "jamais" (never) and "plus" (no longer) negate as "pas" does.
    ("Le billet est remboursable.", "Le billet n'est jamais remboursable."),
    ("Le billet est remboursable.", "Le billet n'est plus remboursable."),
    ("Les articles soldés sont remboursés.", "Les articles soldés ne sont jamais remboursés."),
])
def test_continental_numbers_in_french_typography_and_french_never_are_read(claim: str, context: str) -> None:
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", context),), claim), split_claims(claim))
    assert not verdict.supported


@pytest.mark.parametrize(("claim", "context"), [
    # Each was flagged: the page's number read one way, the claim's the other.
    ("包裹重１．５公斤。", "包裹重１．５公斤。"),
    ("包裹重1.5公斤。", "包裹重１．５公斤。"),
    ("割引率は１２．５％です。", "割引率は１２．５％です。"),
    ("The parcel weighs １．５ kg.", "The parcel weighs １．５ kg."),
    ("Das Paket wiegt 2,5 kg.", f"Das Paket wiegt 2,5{NBSP}kg."),
    ("Le colis coûte 1500 €.", f"Le colis coûte 1{NNBSP}500{NBSP}€."),
    ("Die Miete beträgt monatlich 1.250,50 €.", "Die Miete beträgt monatlich 1.250,50."),
    ("O aluguel é de R$ 2.300,00 por mês.", "O aluguel é R$ 2.300,00."),
    ("Il prezzo è 5,90 € al mese.", "Il prezzo è € 5,90 al mese."),
    ("Die Kaution beträgt 1.500 Euro.", "Die Kaution beträgt 1.500 €."),
    ("Le billet n'est plus remboursable.", "Le billet n'est plus remboursable."),
    # Thousands grouped by spaces before the euro, written either way; the same amount after "R$" or
    # with the sign after it.
    ("Le colis coûte 1 500 €.", f"Le colis coûte 1{NNBSP}500{NBSP}€."),
    (f"Le colis coûte 1{NNBSP}500{NBSP}€.", "Le colis coûte 1 500 €."),
    ("O aluguel é R$ 1.500.", "O aluguel é R$ 1.500,00."),
    ("Die Kaution beträgt 1.000 EUR.", "Die Kaution beträgt 1.000 Euro."),
    # Written as the adversarial review of rules 33 found them flagged: a count and a quantity with a
    # no-break space between ("2\u00a0500 mg" read as 2,500 mg), an English rate with three decimals
    # before the word (1,165 euros), a list's full-width comma (10.2%), comparisons with "plus ... que".
    ("Take two 500 mg tablets.", f"Take 2{NBSP}500 mg tablets."),
    ("The rate is 1.165 euros per pound.", "The rate is 1.165 EUR per pound."),
    ("The rate is 1.165 euros per pound.", "The rate is €1.165 per pound."),
    ("税率为10%和20%。", "税率为１０，２０％。"),
    ("Rien n'est plus simple que de retourner un article.",
     "Rien n'est plus simple que de retourner un article."),
    ("Le compte est accessible aux étudiants.", "Le compte n'est plus accessible qu'aux étudiants."),
    ("Il est possible de payer en ligne.", "Il n'est plus possible de payer qu'en ligne."),
    # A price per unit keeps its decimals: petrol at 1.850 euros a litre; the code before the amount.
    ("Fuel costs 1.850 euros per litre.", "Fuel costs €1.850 per litre."),
    ("Petrol costs € 1.859 per litre.", "Petrol costs €1.859 per litre."),
    ("Der Preis beträgt 2.500 Euro.", "Der Preis beträgt EUR 2.500."),
    # English stays English: a petrol price to the tenth of a cent, an exchange rate.
    ("Petrol costs €1.859 per litre.", "Petrol costs €1.859 per litre, and a car costs €2,500."),
    ("One dollar buys 0.920 €.", "One dollar buys 0.920 €."),
    ("Il y a plus de 30 jours pour retourner un article.",
     "Il y a plus de 30 jours pour retourner un article."),
])
def test_the_same_number_written_either_way_supports_itself(claim: str, context: str) -> None:
    [verdict] = LexicalJudge().judge(Example("q", "?", (Context("c1", context),), claim), split_claims(claim))
    assert verdict.supported, verdict.reason


@pytest.mark.parametrize("sentence", [
    # A wish or a pointer taking a made-up property for granted (the red team's seventh report, shape C):
    # dropped by its opening or cue words, the fact went unchecked.
    "Profitez bien de votre petit-déjeuner offert !",
    "Je vous conseille de contacter la réception pour confirmer votre départ tardif gratuit.",
    "¡Que disfrutes del spa gratis!", "Goditi il parcheggio gratuito!", "Aproveite o estacionamento grátis!",
    "Viel Spaß mit Ihrem kostenlosen Upgrade!",
])
def test_a_courtesy_taking_a_property_for_granted_is_a_claim(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    "Profitez bien de votre séjour !", "Viel Spaß bei Ihrem Aufenthalt!", "¡Que disfrutes del spa!",
    "Je vous conseille de contacter la réception pour confirmer votre départ tardif.",
])
def test_the_same_courtesies_without_the_property_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()
