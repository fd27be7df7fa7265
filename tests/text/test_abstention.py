"""Abstention cues: sentences that decline to answer, and statements that do not."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.abstention import is_abstention
from ragmon.text.claims import answer_abstains, split_claims

TAKEN_BY_THE_WRAPPER_MODEL = frozenset({
    "I'd recommend the Pro plan for teams.",
    "You might want to speak with your doctor and drink alcohol in moderation.",
    "I'd recommend contacting Brightforge to get a full refund.",
})
"""Claims below dressed as pointers that the wrapper model (`ragmon.text.wrapper_model`) takes for wrappers:
a recommendation, or a promise after a pointer, which its words do not tell from "I'd recommend contacting
support to confirm". With two of test_european's, five of the 97 claims dressed as wrappers that tests/text
held when the model came (the README counts them); the sixth, "... to help you get a free replacement.", is
a claim since the twenty-fifth session, for what the replacement costs (`takes_for_granted`)."""


@pytest.mark.parametrize("sentence", [
    "I don't know.",
    "I do not know the answer.",
    "The context does not say when the store opens.",
    "The provided documents don't mention a warranty.",
    "The retrieved passages do not include the price.",
    "The fee is not mentioned in the provided documents.",
    "There is not enough information to answer.",
    "insufficient_context",
    "I cannot answer that from the sources.",
    "I'm unable to determine the price.",
    "I’m unable to tell from these sources.",
    "The price is not mentioned in the context.",
    "There is no information about refunds.",
    "Empty Response",  # LlamaIndex's answer when no node survives retrieval
])
def test_abstention_cues(sentence: str) -> None:
    assert is_abstention(sentence)
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "I know the store opens at 9.",
    "The context mentions a warranty.",
    "Returns are not accepted after 30 days.",
    "The response was empty.",
    # Where the answerer looked, then a claim: no refusal.
    "I checked the documents, but foster carers get 10 weeks.",
    "There is nothing about dental in the documents, but it costs 50 dollars.",
    "Die Dokumente nennen 30 Tage und nicht 60 Tage.",
    "Leider erwähnen die Dokumente die Garantie nicht, weil sie 5 Jahre beträgt.",
    "Erwähnen die Dokumente die Garantie von 5 Jahren nicht?",
    # Rules 23's forms stay with the documents: of plans, or going on to state a fact, they are claims.
    "Neither plan covers water damage.",
    "No plan covers water damage.",
    "Neither document mentions a fee, but the fee is 15 EUR.",
    "There is nothing in the documents that contradicts the 30-day window.",
    "This is not something the documents cover, but refunds take 5 days.",
    "Keiner der Tarife enthält Roaming in Kanada.",
    "Kein Tarif enthält Roaming.",
    "Keines der Dokumente erwähnt eine Gebühr, aber die Gebühr beträgt 15 EUR.",
    "Aucun des forfaits ne comprend le roaming au Canada.",
    "Aucun des documents ne parle de frais, mais les frais sont de 15 EUR.",
    "Ninguno de los planes incluye roaming en Canadá.",
    "Ninguno de los documentos menciona una tarifa, pero la tarifa es de 15 EUR.",
    "No encuentro esa información en los documentos, pero normalmente son 15 EUR.",
    "Nessuno dei piani include il roaming in Canada.",
    "Non trovo questa informazione nei documenti, ma di solito costa 15 EUR.",
    "Nenhum dos planos inclui roaming no Canadá.",
    "Nenhum dos documentos fala sobre taxas, mas a taxa é de 15 EUR.",
    # What an invoice or a plan holds, a figure beside "nicht", a claim after "so" or after what was read.
    "La factura no incluye el IVA.",
    "Los documentos necesarios no incluyen el pasaporte.",
    "Die Dokumente nennen 30 Tage und nicht 60 Tage.",
    "Die Dokumente erwähnen, dass die Gebühr nicht erstattet wird.",
    "Die Unterlagen regeln die Kündigung nicht, aber die Frist beträgt 3 Monate.",
    "La documentación no menciona límites de peticiones, así que la API no aplica ninguno.",
    "Os documentos não falam sobre taxas, portanto o serviço é gratuito.",
    "Ich habe die Unterlagen durchgesehen, aber die Frist beträgt 14 Tage.",
])
def test_statements_are_not_abstentions(sentence: str) -> None:
    assert not is_abstention(sentence)


@pytest.mark.parametrize("sentence", [
    # A review's made-up claims in rules 23's words, before it landed (each had been hidden): what data, a
    # policy, an invoice or an office treat or hold; tickets, legs of a trip and criminal-record extracts,
    # which are no sources; "none of them" of menus and plans; a claim in a clause after the sources looked
    # in; a finding; a refusal in the answerer's own words going on, or a claim before "so".
    "I dati sanitari non sono trattati per finalità di marketing.",
    "Per i dati biometrici, l'azienda non tratta le impronte digitali.",
    "Concernant vos données, notre service ne traite pas les informations bancaires.",
    "Pour les documents d'identité perdus, l'assurance ne couvre pas les frais de remplacement.",
    "En cuanto a los datos, la app no recoge la ubicación.",
    "La fattura elettronica, a differenza dei documenti cartacei, non riporta il codice fiscale del cliente.",
    "Unvollständige Unterlagen werden nicht behandelt.",
    "Die Daten der Kunden werden gegenüber Dritten nicht genannt.",
    "Die Unterlagen regeln die Haftung bei Verspätung nicht.",
    "La factura simplificada, a diferencia de los documentos fiscales, no incluye datos del comprador.",
    "A fatura simplificada, ao contrário dos documentos fiscais, não inclui dados do adquirente.",
    "Las fuentes del río no incluyen nada de contaminación.",
    "As passagens promocionais não incluem nada além da bagagem de mão.",
    "Nos trechos internacionais, os comissários não falam português.",
    "Con los pasajes incluidos, los guías locales no hablan español.",
    "Les extraits de casier judiciaire ne mentionnent pas les condamnations avec sursis.",
    "Ofrecemos tres menús y ninguno de ellos contiene gluten.",
    "Aucun d'eux ne contient de gluten.",
    "Keines davon enthält Gluten.",
    "Abbiamo tre integratori e nessuno di essi contiene lattosio.",
    "Nessuno di loro parla italiano.",
    "Nenhum deles fala inglês.",
    "Wir haben drei Tarife und keiner davon nennt eine Mindestlaufzeit.",
    "J'ai consulté les documents qui confirment que le visa est gratuit, mais je n'ai pas trouvé de "
    "précision sur la durée.",
    "He revisado los documentos que exigen pasaporte vigente, pero no encuentro información sobre el visado.",
    "Consultei os documentos que isentam de visto os brasileiros, mas não encontrei informações "
    "sobre o prazo.",
    "Je n'ai trouvé aucun problème sur votre facture, le montant est correct.",
    "Je n'ai trouvé aucun frais caché dans votre contrat.",
    "Non ho trovato nessuna traccia di addebiti doppi sul tuo conto.",
    "Ich habe auf Ihrer Rechnung keine Hinweise gefunden, die Gebühr ist korrekt.",
    "Ich möchte nichts Falsches sagen, die Frist endet am Freitag.",
    "Prefiero no especular, el trámite tarda dos semanas.",
    "Il m'est donc impossible de vous dire plus, le visa est refusé aux mineurs.",
    "Das Visum ist kostenlos, also kann ich Ihnen das nicht sagen.",
    "Preferisco non rischiare e ti dico che il treno parte dal binario sette.",
    "Le pharmacien saura sûrement vous répondre, ce médicament est sans danger.",
    # A second review's, of the first's fixes: a refusal in the answerer's words going on after a dash, a
    # bracket or "because"; verbs with another sense ("no precisan", "sagen nichts ... aus", "não respondem
    # pela"); data as the subject; papers a user handed in; a clause before "so" denying nothing of the
    # sources; a claim after a comma.
    "Prefiero no especular sobre el plazo — el trámite tarda dos semanas.",
    "Prefiero no especular (el trámite tarda dos semanas).",
    "Prefiero no arriesgar una cifra porque el visado es gratuito.",
    "Prefiero no arriesgar una cifra pues el visado es gratuito.",
    "Il m'est impossible de vous dire plus car le visa est refusé aux mineurs.",
    "Il m'est impossible de vous dire plus puisque le visa est refusé aux mineurs.",
    "Ich möchte nichts Falsches sagen – die Frist endet am Freitag.",
    "Ich möchte nichts Falsches sagen (die Frist endet am Freitag).",
    "Preferisco non sbilanciarmi perché il treno parte dal binario sette.",
    "Preferisco non sbilanciarmi o ti direi che il treno parte dal binario sette.",
    "Prefiro não arriscar pois o visto é gratuito.",
    "Prefiro não arriscar porque o visto é gratuito.",
    "Los documentos no precisan traducción jurada para estudiantes de la UE.",
    "Las fuentes no precisan autorización previa.",
    "Anonymisierte Daten sagen nichts über die Person aus.",
    "Os documentos não respondem pela validade do visto.",
    "Die angegebenen Daten erwähnen wir gegenüber Dritten nicht.",
    "Les données n'évoquent pas votre état de santé.",
    "Os documentos não informam a nacionalidade do titular.",
    "Le document fourni ne couvre pas toute la durée du séjour.",
    "Los documentos proporcionados no recogen el sello consular.",
    "Os documentos fornecidos não tratam do visto de estudante.",
    "Die Rechnung enthält keine Mehrwertsteuer, also kann ich Ihnen das nicht sagen.",
    "Die Bewerbung ist nicht vollständig, daher kann ich Ihnen das nicht sagen.",
    "La domanda non è completa, quindi non posso dirti di più.",
    "Ne ho trovati tre sulla fattura, quindi non posso dirti di più.",
    "No consulado o visto é gratuito, portanto não consigo confirmar mais nada.",
    "Le pharmacien saura sûrement vous répondre — ce médicament est sans danger.",
    "Os documentos não falam sobre a taxa, o visto é gratuito.",
    "I documenti non parlano della tassa, il visto è gratuito.",
    "Die Unterlagen sagen nichts über die Gebühr, das Visum ist kostenlos.",
    # The first review's, of the English and the polite pointers: what a party does after "Veuillez
    # contacter"; "no" and "neither" of results, texts and passages, or mid-sentence; springs and roads; a
    # comparison with a figure.
    "Veuillez contacter le service client pour obtenir un remboursement intégral.",
    "Veuillez contacter le service client puisque le produit est garanti à vie.",
    "Si prega di contattare l'assistenza perché la garanzia copre anche i danni da acqua.",
    "Por favor, contacta con el hotel que ofrece cancelación gratuita.",
    "La prego di contattare la banca che rimborsa tutto.",
    "Veuillez appeler la banque et la carte sera remplacée gratuitement.",
    "A search that returns no results indicates the account was deleted after 90 days.",
    "No text says the deadline is 30 days.",
    "A request with no context specifies the default window of 30 days.",
    "Neither passage covers the return trip after 6 pm.",
    "Keine Quelle enthält mehr als 10 mg Nitrat pro Liter.",
    "Aucune source ne contient plus de 10 mg de nitrates par litre.",
    "Ninguna fuente contiene más de 10 mg de nitrato por litro.",
    "Nessuna fonte contiene più di 10 mg di nitrati per litro.",
    "Nenhuma fonte contém mais de 10 mg de nitrato por litro.",
    "Nenhum trecho contém pedágios acima de 10 reais.",
    "Kein Abschnitt enthält mautpflichtige Strecken.",
    "No tengo más información que la tarifa de 15 EUR al mes.",
    "No dispongo de más información que el plazo de 30 días.",
    "Non dispongo di informazioni oltre al canone di 15 euro al mese.",
    "No tengo más datos que los del contrato, que fija 30 días de preaviso.",
    "Kein Dokument erwähnt eine andere Frist als 30 Tage.",
    "No document mentions a fee higher than 15 EUR.",
])
def test_made_up_claims_in_refusal_words_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert split_claims(sentence) != ()


@pytest.mark.parametrize("sentence", [
    "Sorry, I don't have information about that.",
    "I'm sorry, I can't help with that.",
    "I can't help with that",
    "I cannot assist with that",
    "I won't be able to help you with this request.",
    "I don't have enough information about the warranty.",
    "I don’t have information on shipping times.",
    "I do not have access to that information.",
    "I don't have an answer to that.",
    "That information is not available.",
    "Unfortunately, this information isn't available.",
    "I'm sorry, but I don't know.",  # the part the contrast sets apart is only an apology
    # An end-to-end check's (rules 22): nothing there, and where the answerer looked before what they leave
    # out (each had been an unsupported claim, the refusal a hallucination).
    "There is nothing about foster care in the documents.",
    "There's nothing about foster care in the provided context.",
    "I checked the documents, but they don't mention foster care.",
    "We searched the provided sources and none of them mentions foster care.",
    "Leider erwähnen die Dokumente die Garantie für Zubehör nicht.",
    # Rules 23, each a claim before (an honest refusal judged a hallucination): "neither" and "no" of the
    # documents ("neither" had reached no cue at all), nothing in them, not something they cover.
    "Neither document mentions foster care leave.",
    "Neither of the documents mentions foster care leave.",
    "No document mentions foster care leave.",
    "No provided source says whether foster care leave is paid.",
    "I checked the documents, but neither mentions foster care.",
    "There's nothing in the documents about foster care leave.",
    "There is nothing in the provided context that mentions foster care leave.",
    "This isn't something the documents cover.",
    "That is not a topic the provided context discusses.",
    # and in five more languages: none of the documents, no document, nothing in them, not finding it.
    "Keines der Dokumente erwähnt den Pflegeurlaub.",
    "Kein Dokument erwähnt den Pflegeurlaub.",
    "In den Unterlagen steht leider nichts über Pflegeurlaub.",
    "Aucun des documents fournis ne parle du congé d'accueil.",
    "Aucun document ne mentionne le congé d'accueil.",
    "Ninguno de los documentos habla de la baja por acogida.",
    "Ningún documento menciona la baja por acogida.",
    "No encuentro esa información en los documentos.",
    "Nessuno dei documenti parla del congedo per affido.",
    "Non trovo questa informazione nei documenti.",
    "Mi dispiace, ma non dispongo di informazioni sufficienti per rispondere.",
    "Nenhum dos documentos fala sobre a licença de acolhimento.",
    "Nenhum documento menciona a licença de acolhimento.",
    "Aucun document n'indique le délai.",
    "Aucun des documents fournis n'aborde ce point.",
    "Unfortunately, no provided document covers foster care leave.",
    # The documents as the subject of a verb of saying, treating or holding information, in five languages
    # (refusals_plain.jsonl, fitted: its refusals had been 48 wrong verdicts in 60 answers)
    "Die Dokumente erwähnen den Pflegeurlaub nicht.",
    "Die bereitgestellte Dokumentation behandelt die Frage nicht.",
    "In den Unterlagen wird dieser Fall nicht behandelt.",
    "Die Unterlagen sagen nichts darüber, ob der Abschluss anerkannt wird.",
    "Zur Rückgabe im Ausland schweigen die Dokumente.",
    "Les documents ne parlent pas du congé d'accueil.",
    "Le contexte fourni ne traite pas de la migration.",
    "Rien n'y est dit sur les articles soldés.",
    "Los documentos no hablan de la baja por acogida.",
    "La información proporcionada no incluye detalles sobre la ortodoncia.",
    "I documenti non parlano del congedo per affido.",
    "La documentazione fornita non dice nulla sul supporto ARM.",
    "Os documentos não falam sobre a licença de acolhimento.",
    "O contexto não informa se a receita é aceita.",
    "Os documentos fornecidos não trazem informações sobre o roaming.",
    "Infelizmente, nada nos documentos menciona o limite do cheque especial.",
    # the answerer unable to say, or finding nothing where it looked
    "Ich kann Ihnen daher nicht sagen, welcher Betrag Ihnen zusteht.",
    "Ich habe die Unterlagen durchgesehen, aber dazu nichts gefunden.",
    "J'ai parcouru la documentation fournie et je n'y ai trouvé aucune procédure de migration.",
    "Il m'est donc impossible de vous donner un chiffre fiable.",
    "Disculpa, pero no encuentro esa información en los documentos disponibles.",
    "Non sono quindi in grado di dirti se il rimborso è possibile.",
    "Ho controllato i documenti che mi hai fornito, ma non ho trovato alcun riferimento al treno.",
    "Por isso, não consigo confirmar se o plano inclui esse benefício.",
    "Assim, não lhe consigo dizer se a garrafa seria permitida.",
    # rather not guess
    "I'd rather not guess at a figure here.",
    "En la documentación no se dice nada de si vale para autónomos, así que mejor no te lo aseguro.",
    "Non vorrei darti un'informazione sbagliata.",
    "Je préfère ne pas m'avancer sur ce point.",
])
def test_common_refusals_are_abstentions(sentence: str) -> None:
    assert is_abstention(sentence)
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("answer", [
    "Sorry, I don't have information about that.",
    "I'm sorry, I can't help with that.",
    "I'm sorry, I can't help with that. Is there anything else?",  # "anything else?": function words only
    # Naming the documentation (4 of them had scored as hallucinations: abstention 0, groundedness 0).
    "The documentation provided does not address HIPAA.",
    "HIPAA compliance is not mentioned in the available documentation.",
    "That information isn't covered in the documents I have access to.",
    "The retrieved passages only describe encryption; they say nothing about HIPAA.",
    "The passages say nothing about HIPAA.",
])
def test_a_refusal_scores_abstention_1_on_an_unanswerable_question(answer: str) -> None:
    unanswerable = Example("q1", "What does the plan cost?", (Context("c1", "Deletion is permanent."),),
                           answer, category="unanswerable")
    [result] = evaluate([unanswerable], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    # No claim is left, so groundedness is undefined rather than 0 for an "unsupported" refusal.
    assert result.metrics["abstention"] == 1.0
    assert result.metrics["groundedness"] is None


@pytest.mark.parametrize("sentence", [
    # Guards against the refusal cues reaching too far: each asserts something a context can support.
    "I can't stress enough that refunds take 30 days.",
    "Sorry for the delay, refunds take 30 days.",
    "I can't help noticing that refunds are free.",
    "I have information about refunds: they take 30 days.",
    "The information is available on the billing page.",
    "This information is not available in the US store.",  # a fact about the store, not a refusal
    # Declining one thing and asserting another: the assertion is a claim to check.
    "I can't help with that, but the warranty is 5 years.",
    "I don't have any information about a recall, but the warranty is 5 years.",
    "Refunds take 5 days, but I don't know about exchanges.",
])
def test_statements_near_a_refusal_cue_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [c.text for c in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    # Refusals as chat models phrase them that no cue had: each was a claim, judged unsupported, and an
    # honest refusal scored abstention 0.
    "None of the provided documents mention shipping costs.",
    "Nothing in the context addresses shipping costs.",
    "The documents are silent on shipping costs.",
    "No relevant information was found.",
    "The answer is not in the provided documents.",
    "Not mentioned in the context.",
    "It is not clear from the documents when refunds are issued.",
    "I was not able to find this in the provided documents.",
])
def test_refusals_in_other_words_abstain(sentence: str) -> None:
    assert is_abstention(sentence)
    assert split_claims(sentence) == ()
    assert answer_abstains(sentence)


@pytest.mark.parametrize("sentence", [
    # Their words about something other than the sources given: facts to check.
    "None of the plans include phone support.",
    "Nothing in the starter kit is refundable.",
    "The shipping fee is not included in the price.",
    "The warranty terms are unclear to many customers.",
])
def test_statements_worded_like_those_refusals_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [c.text for c in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    # A hedged partial answer: the refusal in an opening clause, before a semicolon or ", only that", and an
    # assertion after it. Each had abstained, and the made-up part was never checked.
    "While the documents don't mention shipping, refunds take 5 days.",
    "Although the context does not say when it ships, the refund window is 30 days.",
    "While I cannot confirm the shipping cost, refunds take 5 days.",
    "The provided documents don't mention shipping; refunds take 5 days.",
    "The context doesn't say what shipping costs, only that orders over $50 ship free.",
])
def test_a_refusal_beside_an_assertion_in_one_sentence_is_a_claim(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [c.text for c in split_claims(sentence)] == [sentence]
    assert not answer_abstains(sentence)


@pytest.mark.parametrize("sentence", [
    # Refusals whose other clause asserts nothing stay refusals.
    "While I understand your question, I don't have that information.",
    "While the documents don't mention shipping, I can't confirm the cost.",
    "I don't have that information; please contact support.",
    "I cannot answer that; the documents do not cover it.",
])
def test_a_refusal_beside_a_courtesy_or_another_refusal_abstains(sentence: str) -> None:
    assert split_claims(sentence) == ()
    assert answer_abstains(sentence)


@pytest.mark.parametrize("sentence", [
    # What documents of the subject hold, or what is not covered by something other than the sources.
    "The leaked documents describe the plan; they say nothing about funding.",
    "Water damage is not covered by the warranty.",
    "Critics say nothing about the price.",
])
def test_saying_nothing_about_the_subject_is_a_claim(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [c.text for c in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("answer", [
    "抱歉，提供的资料中没有提到礼品包装。",  # the documents provided do not mention gift wrapping
    "根据提供的资料无法回答该问题。",  # the question cannot be answered from the documents
    "我不知道。",  # I do not know
    "資料中並未提及運費。",  # traditional: the documents do not mention shipping costs
    "申し訳ありませんが、その情報は記載されていません。",  # sorry, that is not stated
    "わかりません。お答えできません。",  # I do not know. I cannot answer.
    "私には送料についてわかりかねます。",  # I cannot tell about shipping costs ("私" was no refuser)
    "私としては、お答えできません。",  # as for me, I cannot answer
    "私自身、わかりません。",  # I myself do not know
])
def test_chinese_and_japanese_refusals_score_abstention_1(answer: str) -> None:
    unanswerable = Example("q1", "礼品包装要多少钱？", (Context("c1", "退款在交货后30天内受理。"),), answer,
                           category="unanswerable")
    [result] = evaluate([unanswerable], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert result.metrics["abstention"] == 1.0
    assert result.metrics["groundedness"] is None


@pytest.mark.parametrize("sentence", [
    "我无法回答这个问题，但保修期为5年。",  # declines, but goes on: the warranty is 5 years
    "无法找到订单的用户可以联系客服。",  # users who cannot find their order may contact support
    "未说明原因的退货将被拒绝。",  # returns with no reason given are refused
    "如果您不知道订单号，可以联系客服。",  # if you do not know your order number, contact support
    "这款手机没有耳机孔。",  # this phone has no headphone jack
    "私たちはチャットではお答えできません。",  # we (the company) do not answer by chat
    "私書箱への配送は確認できません。",  # delivery to a PO box cannot be confirmed ("私" in a word)
    "私立学校の割引は判断できません。",  # a private school's discount cannot be judged
    "公私ともに、電話ではお答えできません。",  # neither for work nor private matters: no answers by phone
])
def test_chinese_statements_near_a_refusal_word_stay_claims(sentence: str) -> None:
    assert not is_abstention(sentence)
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    # The closing lines of the English walkthroughs' refusals: each had been an unsupported claim, so four
    # honest refusals of five scored groundedness 0 and headed the report's worst examples.
    "You may want to contact Nimbus support to confirm.",
    "I'd recommend checking with Nimbus support or your account manager.",
    "For pricing, you may want to contact the Nimbus sales team.",
    "If you need one, it might be worth asking Nimbus support.",
    "You may want to contact Nova customer service for details.",
    "You can check Samsung's website or ask a VoltMart associate.",
    "I'd recommend asking a pharmacist to help with the right dose for your child.",
    "I hope this helps you resolve the issue!",
    "I'm sorry to hear that!",
    "I hope you feel better soon!",
])
def test_pointers_to_someone_who_may_know_and_sympathy_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "Contact support to cancel your plan.",  # an instruction, not a hedge: the documents' to state
    "You can contact support at support@nimbus.dev.",  # an address to write to
    "You may want to call 1-800-555-0199 for help.",  # a number to call
    "You can contact support by chat around the clock.",  # a channel and its hours
    "You may want to contact support, who can extend your warranty to 5 years.",
    "I'd recommend the Pro plan for teams.",
    "You can visit any VoltMart store to recycle old phones.",
    "Water damage isn't covered.",  # a warranty's fact, not a refusal
])
def test_what_a_pointer_or_a_refusal_adds_is_still_a_claim(sentence: str) -> None:
    assert len(split_claims(sentence)) == (sentence not in TAKEN_BY_THE_WRAPPER_MODEL)


def test_a_refusal_ending_with_a_pointer_abstains() -> None:
    # "isn't mentioned" with no source named: the whole sentence declines, as "... not available" does.
    answer = "Ozempic isn't mentioned. You may want to contact Nova customer service for details."
    assert split_claims(answer) == ()
    assert answer_abstains(answer)


@pytest.mark.parametrize("sentence", [
    # The red team's: what the party will do, after "and", is the answer's claim, not a pointer.
    "You can contact support and get a full refund on sale items.",
    "You can also contact customer service and they will waive the late fee.",
    "You can visit our website and start a return online.",
    "You can check your order status in real time on our website.",
    "You can ask for an instant refund from the support team.",
    "You might want to speak with your doctor and drink alcohol in moderation.",
    "I'd recommend contacting support to help you get a free replacement.",
])
def test_a_pointer_with_a_promise_is_a_claim(sentence: str) -> None:
    assert len(split_claims(sentence)) == (sentence not in TAKEN_BY_THE_WRAPPER_MODEL)


@pytest.mark.parametrize("sentence", [
    # The HR and insurance walkthrough's: pointers to in-house parties, condolences, short non-answers, and
    # refusals naming their documents with a word before them or a clause after.
    "You may want to check with HR.",
    "You may want to contact the Leave Center.",
    "Please contact HR for details.",
    "I'm so sorry for your loss.",
    "Congratulations, and I hope everything goes smoothly!",
    "Possibly.",
    "Pet insurance isn't mentioned in the benefits documents I can access.",
    "The policy excerpts I have don't address business property.",
    "I don't see international rates in the documents.",
])
def test_policy_answers_wrappers_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "Please contact support to cancel your plan.",  # an instruction: what to do to cancel
    "The policy doesn't cover flood.",  # an insurance bot's answer, not a refusal
    "I'd recommend contacting the plan administrator or HR within 30 days.",  # a deadline
])
def test_policy_facts_beside_them_are_claims(sentence: str) -> None:
    assert len(split_claims(sentence)) == 1


@pytest.mark.parametrize("sentence", [
    "You may want to check with HR if you have questions about the documents you need to provide.",
    "I'd suggest reaching out to HR early.",
    "You may want to contact the Leave Center for the details of the short-term disability plan.",
])
def test_pointers_with_a_question_or_a_topic_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    # The tables and fees walkthroughs' refusals: pointers to a company by its name alone, "directly" or
    # "to confirm"; with what to ask; before taking a medicine; and a party that "should be able to" tell.
    "I'd suggest checking with Redline directly.",
    "You may want to contact Ironvale directly to ask about this.",
    "I'd recommend contacting Brightforge to confirm.",
    "You may want to check with Northmere Building Society directly.",
    "I'd recommend contacting Kestrel Mobile support to check coverage in your area.",
    "I'd recommend contacting Orbitdesk directly to ask whether Slack support is an option.",
    "Please ask your pharmacist or doctor before combining them.",
    "Your HR team should be able to confirm how this works.",
    "Stratolink's support team should be able to tell you.",
    "I'd recommend checking with HR or the full employee handbook.",
    # The quotas walkthrough's: "you could", "your best bet", "it would be best", a place to ask at, a time
    # to ask before, settings and documentation as where to look.
    "You could contact Pinecell customer service to ask whether one is available.",
    "Your best bet is to ask the reception team at your location.",
    "It would be best to contact Skyvane Air directly before you book.",
    "For an accurate answer, I'd suggest checking your account settings or contacting Lumora support.",
    "I'd suggest checking Stashbox's security documentation or asking their support team.",
    "Have a great trip!",
    # A held-out walkthrough's refusals (rules 21): who "should know", "the place to ask", a label's hedge.
    "Veloz customer service or your dealer should know.",
    "Nimbus Cloud support would be the place to ask.",
    "**What I'd suggest:** ask Ledgerly's sales team directly.",
])
def test_pointers_to_a_named_party_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    # told by their opening, whatever the wish or the sympathy is about
    "Best of luck with the move!", "Wishing you a smooth first week.", "Enjoy the concert tonight!",
    "I'm so sorry to hear the delivery went wrong.", "That sounds really stressful.",
    "Happy to walk you through anything else.", "Feel free to come back with more questions.",
    # the party best placed to answer, a question about the user, the documents saying nothing
    "Your landlord is the right person to ask about repairs.", "A mortgage adviser is best placed to help.",
    "Which branch do you usually visit?", "Are you on the monthly or the annual plan?",
    "That falls outside what the provided documents cover.",
    # thanks, closings, help offered after an "if", the party as who can tell
    "Thanks so much for your patience today.", "I really appreciate you raising this.",
    "I apologise for the back and forth.", "No problem at all!", "It was a pleasure helping you.",
    "If anything else comes up, just ask.", "Your property manager should be able to clarify that.",
    "The admissions department would know more about that.", "Could you share the error message you see?",
])
def test_courtesies_told_by_their_opening_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "Apologies — the gym is closed for maintenance until Monday.",  # a dash, then a fact
    "Sorry, but refunds take up to ten business days.",  # a contrast
    "Enjoy your stay, and remember that breakfast ends at ten.",  # a reminder
    "I'm sorry for the wait, which was caused by a system outage.",  # a relative clause
    "Are you aware that your passport must be valid for six months?",  # a question that tells
    "Happy to help: the form is on the intranet.",  # a colon
    "Thanks for your order, which ships tomorrow.",  # a relative clause
    "The IT service desk can reset your password.",  # what the party does, not that it can tell
    "Your landlord will return the deposit once the keys are back.",
    "No problem, the fee is waived for students.",  # more than the courtesy: "waived", "students"
])
def test_courtesies_carrying_a_fact_stay_claims(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    # An offer taking an event for granted, or what alone is so: the context must hold it. Written after
    # wrapper_sentences_4's five such offers (English, German, French, Italian) were found taken for
    # wrappers; none of these was a claim before.
    "Is there anything else I can help with now that your refund has been issued?",
    "¿Puedo ayudarle con algo más ahora que su pedido ya fue enviado?",
    "Posso ajudar com mais alguma coisa agora que a sua conta foi migrada?",
    "Would you like me to book the Friday tour, the only one with a guide?",
    "Quer que eu o inscreva na aula de sábado, a única com professor nativo?",
    "Souhaitez-vous réserver la visite du soir, la seule avec un guide ?",
    # a reason the offer rests on
    "Since your lease ends in June, shall I send you the renewal options?",
    "Soll ich die Kündigung vorbereiten, da dein Vertrag bald ausläuft?",
    "Ya que su tarjeta caducó, ¿quiere que le pida una nueva?",
    # what the offered thing costs, holds or alone is
    "Would you like me to add the free gift wrapping?",
    "Shall I book the shuttle that's included in your stay?",
    "Möchten Sie zum günstigsten Tarif wechseln?",
    "Vuoi che ti attivi il servizio in omaggio?",
    "Quer que eu reserve o quarto com café da manhã incluído?",
    # an offer with no "?" is held to the same
    "If you'd like, I can move you to the morning class, which has more free spots.",
    # a first-person proposal resting on what is conceded or considered
    "¿Le renuevo la tarjeta, aunque la actual sigue vigente?",
    "Ti preparo il rimborso, considerando che il volo è stato cancellato?",
])
def test_offers_taking_an_event_or_an_only_one_for_granted_stay_claims(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    "Feel free to ask if anything is unclear!",  # "free" of the idiom
    "Dites-moi quelle offre Free vous avez souscrite et je regarderai ça de plus près.",  # a brand
    "Sorry, da habe ich deine Frage zuerst falsch verstanden.",  # "da" as "there", not "since"
    "Let me know if you need help handling 429 responses!",  # an offer's number is its topic
    "Would you like me to explain what is included in each plan?",
])
def test_offers_whose_cue_words_take_nothing_for_granted_stay_wrappers(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "You can check the status directly.",  # no name: "the status" is a thing, and where to see it a fact
    "You can check your balance directly in the app.",
    "I'd recommend contacting Brightforge to get a full refund.",  # what the party will do
    "Your HR team should be able to approve up to 5 days of leave.",
    "Please ask your pharmacist before taking more than 4 tablets.",  # a number
    "You can contact Redline directly at 555-0100.",
    "I'd recommend contacting Brightforge to confirm your refund of $50.",
    "You could contact the front desk to get a late checkout.",  # a purpose that is an outcome
    "It would be best to contact the airline before you book, as fares rise after Friday.",
    "Have a great trip, and remember that your passport must be valid for six months.",
    "Your dealer should know that the battery is covered.",  # what the party knows
    "Your dealer should be able to confirm the battery is covered.",  # no party noun: "dealer" alone
    "The seller can confirm the item ships free.",
    # What a party confirms, tells or helps with as a statement (rules 21, after review): each had been a
    # pointer, its made-up fact left out of every mean.
    "Your bank can help you get a free replacement.",
    "Your HR team will tell you the leave is paid.",
    "The support team will clarify that returns are free.",
    "The front desk is the place to pick up your keys.",
    "What I'd suggest: ask the bank to refund the 30 dollars.",
])
def test_what_a_named_pointer_adds_is_still_a_claim(sentence: str) -> None:
    assert len(split_claims(sentence)) == (sentence not in TAKEN_BY_THE_WRAPPER_MODEL)


AROUND = ("Refunds take 5 days.", "Returns are free.", "Shipping is fast.", "Exchanges are easy.")
"""Sentences around one under test (second of five), so that it is no answer's edge, where the wrapper model
is asked too."""


def around(sentence: str) -> list[str]:
    """The claims of `sentence` said inside an answer of `AROUND`."""
    return [claim.text for claim in split_claims(" ".join((AROUND[0], sentence, *AROUND[1:])))]


@pytest.mark.parametrize("sentence", [
    "Your pharmacist can help with dosing questions.", "Support can look into your account.",
    "The embassy will be able to advise on visa requirements.",
    "Your HR team can tell you more about parental leave.", "Your insurer can confirm coverage details.",
    "Customer support can help you reset your password.", "Your bank can help you dispute the charge.",
    "Your HR team should be able to confirm whether fostering is covered.",
    "Your IT helpdesk will be able to confirm that for your specific laptop.",
    "The registrar can confirm your eligibility.", "Support can help with refunds.",
])
def test_a_pointer_to_what_a_party_can_help_with_is_no_claim_inside_an_answer(sentence: str) -> None:
    # A review's honest pointers: what the party helps with, tells about or confirms, asked about.
    assert around(sentence) == list(AROUND)


@pytest.mark.parametrize("sentence", [
    "Your doctor should be able to confirm the battery is covered.",
    "Your bank can help you get a free replacement.", "Your HR team will tell you the leave is paid.",
    "The support team will clarify that returns are free.",
    "Customer service can help you get free shipping on every order.",
    "Your doctor can confirm it's safe to double the dose.",
    "Support will confirm your refund has been issued.",
])
def test_what_a_party_is_said_to_confirm_as_a_statement_is_a_claim_inside_an_answer(sentence: str) -> None:
    # Each had been a pointer (rules 21 reads the statement after the verb): its made-up fact unchecked.
    assert around(sentence) == [AROUND[0], sentence, *AROUND[1:]]


@pytest.mark.parametrize("sentence", [
    "Happy to help with anything else!",
    "Enjoy your stay!",
    "Congratulations on the promotion!",
    "I'm sorry if you're dealing with a loss.",
    "It's best to ask your doctor or pharmacist.",
])
def test_closings_of_the_tables_and_fees_walkthroughs_are_no_claims(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "It's best to take it with food.",  # advice the leaflet must give: no one to ask
    "Enjoy your stay at our Paris hotel, which has 200 rooms.",
    "Congratulations on the promotion: your bonus target is now 15%.",
])
def test_closings_with_a_claim_in_them_stay_claims(sentence: str) -> None:
    assert len(split_claims(sentence)) == 1


@pytest.mark.parametrize("claim", [
    # What alone is said beside a refusal, or a reason with a figure, states a fact of its own: each had
    # been read as a refusal, and its fact was never checked.
    "The documents don't list a cleaning fee because the landlord dropped it in 2021.",
    "I can't say more than that the studio holds twelve people.",
    "Die Dokumente erwähnen keine Kaution, weil der Vermieter sie 2022 abgeschafft hat.",
    "Ich kann dazu nichts sagen, außer dass das Studio zwölf Personen fasst.",
    "Les documents ne parlent pas de caution parce que le bailleur y renonce depuis 2020.",
    "Los documentos no mencionan la fianza, ya que se suprimió en 2021.",
    "I documenti non indicano l'orario, solo che la piscina chiude d'inverno.",
    "Non posso rispondere perché la tariffa è stata abolita nel 2023.",
    "Os documentos não falam da caução, já que foi abolida em 2022.",
])
def test_a_refusal_stating_a_fact_beside_or_a_dated_reason_is_a_claim(claim: str) -> None:
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("refusal", [
    # A reason without a figure is the refusal's own account far more often than a fact ("because it
    # wasn't part of the excerpts", "weil das in den Auszügen offen bleibt"): a review found a rule reading
    # them as claims turned most honest reasons into hallucinations. Nor is a question of why a claim: it
    # takes for granted what the user asked about ("I can't determine why the fee was charged."). Nor a
    # figure of the sources or the answerer ("because the data only goes up to 2022").
    "I can't answer that because the documents don't cover deposits.",
    "I can't answer that, because it wasn't part of the context.",
    "I can't tell you because it isn't specified.",
    "I can't say because that happened after my training cutoff in 2023.",
    "I don't know because the data only goes up to 2022.",
    "I can't determine why the fee was charged.",
    "Das kann ich nicht beantworten, weil das in den vorliegenden Auszügen offen bleibt.",
    "Ich kann nicht sagen, weil das Dokument nur bis Seite 3 reicht.",
    "Je ne peux pas répondre, car le texte n'en parle pas.",
    "No lo sé, porque el texto no lo dice.",
    "Non lo so, perché l'informazione non è presente.",
    "Não sei, porque essa informação não consta.",
])
def test_a_refusal_giving_its_own_reason_is_no_claim(refusal: str) -> None:
    assert split_claims(refusal) == ()


@pytest.mark.parametrize("refusal", [
    # The sources saying nothing of what was asked, named by a pronoun: honest refusals that had been claims.
    "Les documents n'en parlent pas.",
    "Les documents ne l'indiquent pas.",
    "La documentación no lo menciona.",
    "I documenti non ne parlano.",
    "Il contesto non lo dice.",
    "Os documentos não o mencionam.",
    "Die Dokumente erwähnen dazu nichts.",
])
def test_the_sources_not_saying_what_a_pronoun_names_is_a_refusal(refusal: str) -> None:
    assert split_claims(refusal) == ()


@pytest.mark.parametrize("claim", [
    "El contrato no lo menciona.",  # a contract of the subject, not the answerer's sources
    "Los datos no lo mencionan.",
    "Los documentos no lo mencionan, así que la tarifa es gratuita.",
    "Les documents n'en parlent pas, mais le tarif est de 5 euros.",
])
def test_a_pronoun_refusal_of_other_things_or_with_a_fact_after_it_is_a_claim(claim: str) -> None:
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("refusal", [
    # What the answerer's one source is about, narrowly: honest refusals that had been claims, and
    # flagged as made up where they named what the source leaves out.
    "The page I can see is about resident parking permits only.",
    "The only document I have is the savings account summary, which doesn't cover mortgages.",
    "What I have is the leave policy, which deals with holiday entitlement rather than career breaks.",
    "I'm afraid the guide I was given only covers returns, and it doesn't say anything about exchanges.",
    "The information I have from the school is about meals, not about uniforms.",
    "The only document available to me is the 2023 fee schedule.",
    "The page you shared only covers domestic flights.",
    # What they list, then what they leave out; where the answerer looked first.
    "The fare information I have lists the zone fares, daily caps, and concessions, but it doesn't mention "
    "the Airport Link at all.",
    "The handbook section I have access to explains how to request leave and the balance cap, but it doesn't "
    "cover unused leave.",
    "I looked through the benefits guide I have, but the section available to me only covers maternity care.",
    "What I have covers the standard plans and how billing works, not special programs.",
    "I checked our returns and exchanges policy, but it doesn't mention price adjustments.",
    "The document you sent me is only about the 2023 plan.",
])
def test_a_refusal_saying_what_its_sources_are_about_is_no_claim(refusal: str) -> None:
    assert split_claims(refusal) == ()


@pytest.mark.parametrize("claim", [
    "The page I have is about refunds, which take 10 days.",  # a clause of its own
    "The only document I have is the price list, which says the fee is waived.",
    "The document I have says refunds take 10 days.",  # what it says, not what it is about
    "The leaflet I have says the clinic closes on Sundays.",
    "The page I was given is about the clinic, which closes on Sundays.",
    "The page I have only covers flood damage up to $5,000.",  # a figure: what a policy pays for
    "The policy we have only covers flood damage.",  # "we": a company's own policy
    "The page I have only covers returns, but refunds take 5 days.",
    "The page I can see covers refunds for damaged items.",  # not narrowed: what the page holds
    "The page I have covers refunds, which are not free.",  # a denial of the refunds, not of the page
    "The only page I have covers refunds, exchanges are free.",  # a clause of its own after a comma
    "The only page I have covers refunds; exchanges are free.",
    "The page I have explains that refunds are not free.",  # what it says
    # What is done with a customer's papers or data, and what a source names beside its scope: facts (an
    # adversarial review of the first version, which read each as a refusal).
    "The details you provided are only for delivery purposes.",
    "The only document given on arrival is the boarding pass.",
    "The guides available on the website only cover Windows.",
    "The data shared for advertising is limited to your email address only.",
    "The policy I have is only about home insurance and covers fire and theft.",
    # And from a second review of the next version: a customer's cover or booking, what a product comes
    # with, a clause about the product after a "which" or a dash.
    "The policy I have only covers fire and theft.",
    "The details I have are for a single room only.",
    "What I can see is a refund for the blue jacket only.",
    "The page I can see is only about the Gold card, which doesn't include travel insurance.",
    "The guide I have only lists the Gold card with free lounge access.",
    "The only document I have is the invoice - paid in full by card.",
    # A third review's: what became of the user's claim, a figure in words, how a thing is done.
    "The document I have is about your claim being rejected only.",
    "The only document I have is the cancellation notice for your flight.",
    "The page I have only covers flood damage up to five thousand dollars.",
    "The text I was given only describes how refunds are paid by bank transfer.",
])
def test_what_a_source_holds_or_a_clause_beside_its_scope_is_a_claim(claim: str) -> None:
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("disclaimer", [
    # That what the answer says may change, and where to check it: caution, not a fact of the page.
    "Policies can change, so double-check on the airline's site before you book.",
    "Charges can change, so it's worth confirming with reception when you book.",
    "Fees may vary, so check with your insurer.",
    "Timetables can change over time, so I'd recommend checking with the station before you travel.",
    "It's worth confirming with reception when you book.",
])
def test_a_disclaimer_that_things_change_leading_a_pointer_is_no_claim(disclaimer: str) -> None:
    assert split_claims(disclaimer) == ()


@pytest.mark.parametrize("claim", [
    "Policies can change, so check the fee is waived.",  # no one to ask: what to check is a claim
    "Prices can change, so contact the hotel and they will waive the fee.",  # what the party will do
    "Fees can change, so confirm with reception when you book the 5 dollar room.",
    "Double-check on the airline's site before you book.",  # an instruction with no hedge nor disclaimer
    "Prices can change, so the fee is now 5 dollars.",
])
def test_what_a_disclaimer_goes_on_to_state_is_a_claim(claim: str) -> None:
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("pointer", [
    # Pointers in words chat assistants write: "talking to", "encourage", what to check for, before what.
    "I'd suggest talking to your property manager before you commit to either option.",
    "Prices may change, so check the app for current rates.",
    "I'd strongly encourage calling our customer care team as soon as you can.",
    "Please check the portal for the latest details.",
])
def test_pointers_chat_assistants_write_are_no_claims(pointer: str) -> None:
    # Inside an answer, where the wrapper model is not asked: its pattern alone tells the pointer.
    assert around(pointer) == list(AROUND)


@pytest.mark.parametrize("claim", [
    "Please check the app to cancel your plan.",  # how to do it: a claim a page must hold
    "I'd suggest talking to your manager, who will approve it.",
    "Please check the portal for your refund of 50 dollars.",
    # A clause after the pointer's purpose (an adversarial review of the first version, which took it in).
    "I'd recommend checking with support before you switch to the yearly plan, which is cheaper.",
    "It's best to check the app before you commit to either option - both are free.",
])
def test_what_such_a_pointer_adds_is_a_claim(claim: str) -> None:
    assert around(claim) == [AROUND[0], claim, *AROUND[1:]]


@pytest.mark.parametrize("refusal", [
    # Refusals chat assistants write that had been claims inside an answer.
    "I don't want to guess on this one.",
    "That's not something I can confirm from these documents.",
    "The documents I have don't go into that.",
    "Nothing in the documents I have addresses that.",
    "There isn't enough information here to answer that.",
])
def test_refusals_in_an_assistants_words_are_no_claims_inside_an_answer(refusal: str) -> None:
    assert around(refusal) == list(AROUND)


@pytest.mark.parametrize("claim", [
    "There isn't enough parking for every guest.",  # what is short is no information
    "There isn't enough data on the Lite plan for streaming.",  # no answer declined
    "There isn't sufficient evidence that the supplement lowers blood pressure.",
    "There wasn't enough information to determine the refund, so it was denied.",
    "The documents I have don't go into detail, but the fee is 5 dollars.",
    "That's not something we can refund.",  # what the company does, not what the answerer can say
])
def test_statements_worded_like_an_assistants_refusals_stay_claims(claim: str) -> None:
    assert around(claim) == [AROUND[0], claim, *AROUND[1:]]


@pytest.mark.parametrize("filler", [
    # Lead-ins and a disclaimer chat assistants write between facts, not only at an answer's edges.
    "Let me break this down for you.",
    "Here's how it works.",
    "In summary, here are your options.",
    "Here are a few things to keep in mind.",
    "Let's walk through it step by step.",
    "Let me check what the documents say.",
    "This is general information and not financial advice.",
])
def test_lead_ins_and_disclaimers_inside_an_answer_are_no_claims(filler: str) -> None:
    assert around(filler) == list(AROUND)


@pytest.mark.parametrize("claim", [
    "Here's how it works for orders over 50 dollars.",
    "Here are your options: a refund or store credit.",
    "This is general information and the fee is waived.",
])
def test_what_such_a_lead_in_goes_on_to_say_is_a_claim(claim: str) -> None:
    assert claim in around(claim)


@pytest.mark.parametrize("refusal", [
    # The same refusals in German, French, Spanish, Italian and Portuguese.
    "Das Dokument, auf das ich zugreifen kann, behandelt nur das Thema Umzug.",
    "L'unico documento disponibile riguarda i buoni pasto, quindi non posso dirti quanti giorni spettano.",
    "La información que tengo de tu póliza solo trata la fisioterapia, y no menciona nada sobre implantes.",
    "A informação de que disponho trata das candidaturas, das mensalidades e da caução, mas não refere "
    "nada sobre animais.",
    "Les informations dont je dispose couvrent seulement les abonnements mensuels.",
    "Das Dokument, das ich habe, behandelt nur das Thema Umzug.",
    "Les informations que j'ai portent seulement sur les abonnements.",
])
def test_a_refusal_saying_what_its_sources_cover_in_another_language_is_no_claim(refusal: str) -> None:
    assert around(refusal) == list(AROUND)


@pytest.mark.parametrize("claim", [
    "La información que tengo dice que el reembolso es gratuito.",  # what it says
    "La póliza que tengo solo cubre daños por agua.",  # a policy of the user's, no source
    "El documento disponible solo trata la fisioterapia, que cuesta 40 euros.",
    "L'unico documento disponibile riguarda i buoni pasto, che sono gratuiti.",  # a clause of its own
    "Das Dokument, das ich habe, behandelt nur Umzüge und ist kostenlos.",
])
def test_statements_worded_like_those_refusals_in_another_language_stay_claims(claim: str) -> None:
    assert around(claim) == [AROUND[0], claim, *AROUND[1:]]


@pytest.mark.parametrize("claim", [
    # A red team's made-up facts in the words of a cue naming no one refusing (`_BARE_CUES`): each was
    # dropped as a refusal, and hidden from every judge.
    "No data is passed to insurers.",
    "No data is stored outside the EU.",
    "No data was exposed in the 2023 breach.",
    "No information is kept once you delete your account.",
    "There is no evidence that vitamin D prevents colds.",
    "There's no indication that vitamin D interacts with other medication.",
    "Applications with insufficient information are rejected without a refund.",
    "Bookings made through travel agents cannot be confirmed at the embassy.",
    "Appointment times cannot be determined online and are set by phone.",
    "The embassy was unable to find any record of delays this year.",
    "If there is not enough evidence of funds, the fee is kept.",
    # Nor is the answerer's belief a refuser, nor another bare cue's own word, nor a noun phrase going on.
    "I think no data is sold to advertisers.",
    "My understanding is that there is no evidence of mould in the bedrooms.",
    "No data is sold and no information is shared.",
    "Insufficient information leads to a refusal.",
    # "No information about ..." going on to a clause of its own.
    "No details of the damp are passed on to the next tenant.",
    "No data on children is collected.",
    "Under the new policy, no data on children's accounts is kept.",
])
def test_a_fact_in_the_words_of_a_bare_cue_is_a_claim(claim: str) -> None:
    assert not is_abstention(claim)
    assert around(claim) == [AROUND[0], claim, *AROUND[1:]]


@pytest.mark.parametrize("refusal", [
    # The same cues beside a refuser: the answerer, the sources or a word of their giving, a pronoun for
    # what was asked, or alone as a terse refusal. Each stays a refusal, mid-answer too.
    "No information is given about pets.",
    "It cannot be determined from the context.",
    "No information is provided about the pet policy.",
    "No details are available on parking.",
    "There's no information on parking in the documents.",
    "Insufficient information to answer.",
    "Insufficient context.",
    "This can't be confirmed from what I have.",
    "Not enough information is given to say.",
    "There is not enough information to say.",
    "Unable to determine the warranty length.",
    "No relevant information was found.",
    "The fee cannot be determined from the provided documents.",
    "Whether pets are allowed cannot be determined.",
    "There is no evidence in the provided context about refunds.",
    "Sorry, no information is available on that.",
    "Based on the provided context, there is insufficient information to answer.",
    "I'm afraid there is not enough information to answer that.",
    "No information about refunds.",
    "No information about whether pets are allowed.",
    "**Parking:** no information about fees.",
    "So far, no information on the fee.",
    "Sorry, but no information about the fee.",
    "Sadly no details on weekend appointments.",
    "No information about waste collection days appears in the context.",
])
def test_a_bare_cue_with_a_refuser_is_a_refusal_inside_an_answer(refusal: str) -> None:
    assert is_abstention(refusal)
    assert around(refusal) == list(AROUND)


PRIVACY = Context("c1", "We collect your email address to improve the app. No data is sold to advertisers.")


def test_an_answer_of_only_a_fact_in_a_bare_cues_words_is_judged_not_an_abstention() -> None:
    # Before: no claim, so groundedness undefined, and a made-up answer to an unanswerable question scored
    # as a correct abstention.
    made_up = Example("q1", "Is my data passed to insurers?", (PRIVACY,), "No data is passed to insurers.",
                      category="unanswerable")
    [result] = evaluate([made_up], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert result.metrics["abstention"] == 0.0
    assert result.metrics["groundedness"] == 0.0
    assert [(verdict.claim.text, verdict.supported) for verdict in result.verdicts] == [
        ("No data is passed to insurers.", False)]


def test_an_answer_of_only_refusals_in_a_bare_cues_words_abstains() -> None:
    refusal = Example("q1", "Is my data passed to insurers?", (PRIVACY,),
                      "No information is given about insurers. Insufficient information to say more.",
                      category="unanswerable")
    [result] = evaluate([refusal], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert result.metrics["abstention"] == 1.0
    assert result.metrics["groundedness"] is None


@pytest.mark.parametrize("sentence", [
    # A courtesy taking a made-up fact for granted (the red team's seventh report, shape A): each was
    # dropped by its opening, and the fact in it went unchecked wherever it stood in the answer.
    "I'm sorry that liquid spills void the warranty.",  # a clause of its own
    "That's great news that theft and loss are reimbursed in full!",
    "I'm really sorry the warranty won't cover the charger.",  # a verdict denied
    "Enjoy the complimentary breakfast during your stay!",  # what a thing costs
    "Congratulations on your free penthouse upgrade!",
    "Thanks for your patience while we arrange your free spa pass!",
    "Thank you for choosing our lifetime warranty!",
    "Safe travels and enjoy the lounge on us!",
    # a pointer whose purpose or topic carries it (shape B)
    "I'd recommend contacting the front desk to confirm your complimentary valet service.",
    "For the free airport shuttle, you may want to contact the front desk.",
    "The front desk should be able to confirm how the free spa pass works.",
    "Just ask at reception for your complimentary welcome drink.",
    # a count in words, where "5-year" was a claim already (shape E)
    "Would you like to extend your five-year warranty?",
    "Enjoy your two free nights at the resort!",
    "Thanks for your patience during the two-week repair!",
    "Let me know if you want me to book your twelve free parking nights.",
])
def test_a_courtesy_or_pointer_taking_a_fact_for_granted_is_a_claim(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]
    assert sentence in around(sentence)


@pytest.mark.parametrize("sentence", [
    "I'm sorry to hear that.", "Enjoy your stay!", "I'm sorry you've been dealing with this.",
    "I'm sorry your mum is finding them difficult.",  # what is going on for the user, who told it
    "Thanks for counting on us!",  # "on us" of no thing
    "You may want to contact Nimbus support to confirm.",
    "You may want to contact support to confirm if the charger is included.",  # asked about
    "Your pharmacist can confirm whether it's safe to take the two together.",  # a number word alone
    "Let me know if you need help setting up two-factor authentication.",  # no unit after it
    "Ich hoffe, das bringt Sie weiter.",  # ", das" is no relative clause here
])
def test_a_courtesy_or_pointer_taking_nothing_for_granted_stays_no_claim(sentence: str) -> None:
    assert split_claims(sentence) == ()
    assert around(sentence) == list(AROUND)


def test_a_refusal_saying_its_faq_does_not_cover_it_stays_no_claim() -> None:
    # The verdict is said of what the answer holds, not of the subject.
    assert split_claims("That isn't covered in the FAQ I'm working from.") == ()


def test_a_courtesy_taking_for_granted_what_the_page_states_is_supported() -> None:
    # Read as a claim, a courtesy costs only where the page does not state what it takes for granted.
    page = Context("c1", "New accounts start with a free trial of the Pro plan.")
    for answer, supported in (("You can try the Pro plan first. Enjoy your free trial!", True),
                              ("You can try the Pro plan first. Enjoy your free onboarding call!", False)):
        example = Example("q1", "Can I try the Pro plan?", (page,), answer)
        [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
        assert [verdict.supported for verdict in result.verdicts
                if verdict.claim.text.startswith("Enjoy")] == [supported]


@pytest.mark.parametrize("sentence", [
    # Sympathy or thanks for what the user told, the commonest courtesy of a support bot: any clause of its
    # own had made one a claim, flagged as a made-up fact (a review of the red team's fixes).
    "I'm sorry to hear your package is late.",
    "I'm sorry your order is late!",
    "Sorry to hear that your package is late!",
    "I hope that the information is helpful!",
    "Thanks for confirming that the address is correct.",
    "Thanks for flagging that the blender is broken.",
    "I'm sorry the room is not ready yet.",
    "I'm sorry the timing is tight with your flight.",
    "I'm sorry your dog can't come along.",
    "Sorry that the answer isn't more complete!",
    "I'm sorry the room isn't ready yet — feel free to leave your bags at the front desk.",  # "free" after it
])
def test_a_clause_of_what_the_user_told_in_a_courtesy_stays_no_claim(sentence: str) -> None:
    assert split_claims(sentence) == ()
    assert around(sentence) == list(AROUND)


@pytest.mark.parametrize("sentence", [
    # A clause with a verdict, a value or a cost after its verb is a fact a page must hold.
    "I'm sorry that liquid spills void the warranty.",
    "That's great news that theft and loss are reimbursed in full!",
    "I'm really sorry the warranty won't cover the charger.",
    "I'm sorry that pets aren't allowed!",
    "I'm sorry that liquid damage isn't covered.",
    "I'm sorry the late check-out is charged extra.",
    "I'm sorry that checked bags must be prepaid online.",  # a rule, whatever its predicate
    "I'm sorry that dogs have to stay in the outdoor kennel.",
])
def test_a_clause_stating_a_verdict_or_a_cost_in_a_courtesy_is_a_claim(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]
    assert sentence in around(sentence)


def test_a_clause_of_what_the_user_told_ending_an_answer_stays_no_claim() -> None:
    # The wrapper model's sentences are held to `carries_a_fact` too: at an answer's edge it was a claim.
    sentence = "Glad to hear that the booking is confirmed!"
    assert split_claims(sentence) == ()
    assert [claim.text for claim in split_claims(f"{AROUND[0]} {sentence}")] == [AROUND[0]]


@pytest.mark.parametrize("refusal", [
    # Honest refusals a bare cue had read as claims (a review of the red team's fixes): "cannot be
    # determined" said of a subject with "the", after an apology, a topic or a reason, or "from this";
    # "could be located"; a source's mentioning in Spanish.
    "The exact gym hours cannot be determined.",
    "The gym fee can't be confirmed.",
    "Sorry — the gym fee cannot be confirmed.",
    "Regarding the gym, that can't be determined.",
    "Gym opening hours can't be determined from this.",
    "Nothing is said about the gym, so whether there is one can't be confirmed.",
    "No information about the gym could be located.",
    "Lamentablemente, ninguna información menciona el gimnasio.",
])
def test_a_bare_cue_said_of_what_was_asked_is_a_refusal_inside_an_answer(refusal: str) -> None:
    assert is_abstention(refusal)
    assert around(refusal) == list(AROUND)


@pytest.mark.parametrize("claim", [
    # The same cue stating a rule: a subject with no "the", or a sentence going on past it.
    "Bookings made through travel agents cannot be confirmed at the embassy.",
    "Same-day bookings cannot be confirmed.",
    "Your booking cannot be confirmed until payment is received.",
    "The reservation can't be confirmed without a card.",
    "No data is passed to insurers.",
    # A word of giving to a party or on the user's things: a practice, not the sources' silence.
    "No details are provided to advertisers.",
    "No details are listed on your public profile.",
])
def test_a_bare_cue_stating_a_rule_or_a_practice_is_a_claim(claim: str) -> None:
    assert not is_abstention(claim)
    assert around(claim) == [AROUND[0], claim, *AROUND[1:]]


@pytest.mark.parametrize("refusal", [
    "No details are available on parking.", "No details are given on the gym.",
    "No information is provided to me.",
])
def test_a_word_of_giving_on_a_topic_is_still_a_refuser(refusal: str) -> None:
    assert is_abstention(refusal)
    assert around(refusal) == list(AROUND)


def test_a_practice_in_a_bare_cues_words_is_judged_against_its_page() -> None:
    # "We value your privacy." says nothing of advertisers: flagged at 816c0f9, then dropped as a refusal.
    page = Context("c1", "We value your privacy.")
    example = Example("q1", "Do you share my details?", (page,), "No details are provided to advertisers.")
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [(verdict.claim.text, verdict.supported) for verdict in result.verdicts] == [
        ("No details are provided to advertisers.", False)]


@pytest.mark.parametrize("sentence", [
    # A pointer past what the answer holds, or asking after a verdict, and the user's own time: each was
    # flagged as a made-up fact (a review of the red team's fixes).
    "For anything not covered here, please contact the front desk.",
    "Please reach out if anything isn't covered in this answer.",
    "Feel free to reach out if your item isn't eligible.",
    "You may want to ask the front desk whether the late fee can be waived.",
    "Thank you for your patience over the past two days.",
    "Thanks for your patience over the last two days.",
    "Thank you for waiting three days for a reply.",
    "I'm sorry it's taken two weeks to sort this out.",
    "Feel free to call on us anytime!",
    "Happy shopping, and thanks for your lifetime loyalty!",
])
def test_a_courtesy_about_the_answer_a_question_or_the_users_time_stays_no_claim(sentence: str) -> None:
    assert split_claims(sentence) == ()
    # ending an answer, where the wrapper model reads it (`carries_a_fact` too)
    assert [claim.text for claim in split_claims(f"{AROUND[0]} {sentence}")] == [AROUND[0]]


@pytest.mark.parametrize("sentence", [
    "Thanks for your patience during the two-week repair!",  # a count of the repair, not the user's wait
    "Enjoy your two free nights at the resort!",
    "Hope you enjoyed dinner, it was on us!",  # "was" asks nothing
    "Sorry, the late fee can't be waived.",
])
def test_a_courtesy_granting_a_count_or_a_cost_outside_a_question_is_a_claim(sentence: str) -> None:
    assert [claim.text for claim in split_claims(sentence)] == [sentence]
    assert sentence in around(sentence)
