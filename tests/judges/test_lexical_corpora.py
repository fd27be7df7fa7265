"""The lexical judge on answers in the house styles of the chat models that write them, in Chinese,
Japanese, German, French, Spanish, Italian and Portuguese, and in English over support pages full of
numbers (prices, doses, dates, units), technical documentation (versions, addresses, names in code) and
HR, benefits and insurance policies (conditions, tiers, deadlines), and pages of tables, tiers and bands
where a made-up answer moves a number from one row or clause to another (english_tables, english_fees, and
a red team's claim-passage pairs aimed at the rule that catches it, moved_numbers), and plan tables of
counts (english_quotas: seats, screens, bags, guest passes), and opposites and counts written as words
(english_opposites: "non-refundable" / "not refundable", "one business day", written before the judge
read either), and answers citing their documents' ids in the styles pipelines write them (citation_styles:
"(KB-1234, p. 3)", "According to doc-3, ...", "See KB-1234 for details.", labelled before rules 17 read them;
citation_styles_european: the same in German, French, Spanish, Italian and Portuguese, labelled before rules
18; refusals_citing: refusals naming the ids they looked in, "HR-POL-007 doesn't mention foster care.", and
negative claims about products, codes and plans named by their ids, labelled before rules 19;
refusals_citing_2, the same in other domains, written after it and apart from it; refusals_plain: refusals
naming no id in six languages, "Nessuno dei documenti parla ...", written apart from rules 23, and
refusals_plain_2, the same written after it was fitted and apart from it; refusals_plain_3, ten more
domains, and refusal_sentences and refusal_lookalikes, sentences in six languages labelled refusal, pointer
or a claim dressed as either, each written apart from the code and the others to measure learned readers),
and chatty answers in six languages written to measure the wrapper model (chatty_answers to _3, each
measured once before the model was trained on it; chatty_answers_4 and _5, written after its last version,
not trained on), and answers written as letters and e-mails, salutation, closing and signature (letters,
letters_2: each written before the version it measured)
(tests/judges/corpora/: documents, answers whose every sentence the documents state, answers with one
made-up sentence, refusals; written for ragmon by seven walkthroughs, labelled sentence by sentence before
the judge was run on them).

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
from ragmon.evaluation import evaluate_example
from ragmon.text.claims import sentence_spans, split_claims

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
            written = case["answer"][verdict.claim.start:verdict.claim.end]  # its citations not read out
            if invented and any(invented.strip() in said or said in invented for said in (text, written)):
                caught = caught or not verdict.supported
            elif ((text in not_claims or written in not_claims) if not_claims is not None
                  else case["kind"] == "refusal"):
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
    # German paraphrase: no German stemmer ("Die Sperre dauert" / "wird ... gesperrt").
    ("de-i3", "false alarm", "Die Sperre dauert 30 Minuten."),
    # Contradictions in the source's own words: what a lexical judge cannot see.
    ("de-i1", "made-up sentence passed", "Die Rücksendung ist für Sie kostenlos."),
    ("fr-i4", "made-up sentence passed", "Elle couvre aussi les dommages causés par un liquide."),
    ("es-i5", "made-up sentence passed", "La garantía también cubre daños por contacto con agua."),
    ("it-i4", "made-up sentence passed", "La garanzia copre anche i danni causati da liquidi."),
    ("pt-i4", "made-up sentence passed", "A garantia também cobre danos causados por humidade."),
    ("it-i5", "made-up sentence passed", "Le spese di spedizione del reso sono sempre gratuite."),
    ("pt-i5", "made-up sentence passed", "Os portes de devolução são sempre gratuitos."),
    ("es-i6", "made-up sentence passed", "Los envíos a Canarias, Ceuta y Melilla son gratuitos."),
    # The source says "ne sont pas remboursables" and also "remboursé", which Porter stems alike.
    ("fr-i2", "made-up sentence passed", "Les articles soldés sont remboursables."),
    ("fr-i3", "made-up sentence passed", "Les cartes cadeaux sont remboursables sous 14 jours."),
    # A made-up clause riding on a sentence the page states, 2 of its 6 terms missing. Caught until the
    # thirty-fifth session only because "30. Juni" ended a sentence there, and "Juni 2024 und gilt auch für
    # Kinderspielzeug." was a claim alone.
    ("de-i8", "made-up sentence passed",
     "Die Aktion läuft bis zum 30. Juni 2024 und gilt auch für Kinderspielzeug."),
}


EUROPEAN_2 = {
    # Paraphrase in languages read unstemmed: inflected and other words for the page's ("vorzeigen" for
    # "mitführen", "auf einmal" for "in Raten", "seront demandés" for "facturés", "pagamento ... feito").
    ("de-g2", "false alarm",
     "Bei einer Kontrolle müssen Sie außerdem einen amtlichen Lichtbildausweis vorzeigen."),
    ("de-g3", "false alarm", "Beachten Sie, dass auch die Mindestlaufzeit 24 Monate beträgt."),
    ("de-g4", "false alarm", "Nein, Sie müssen die Kaution nicht auf einmal bezahlen."),
    ("de-g5", "false alarm", "Versäumen Sie die Zahlungsfrist, kommt eine Mahngebühr von 5 € hinzu."),
    ("de-i3", "false alarm",
     "Für Fahrräder brauchen Sie eine gesonderte Fahrradkarte, das Deutschlandticket allein reicht "
     "dafür nicht aus."),
    ("de-i4", "false alarm", "Denken Sie bei der Kontrolle an einen amtlichen Lichtbildausweis."),
    ("fr-g4", "false alarm", "Des frais de dossier de 5 € vous seront toutefois demandés."),
    ("pt-g1", "false alarm", "Se tiver mais de 65 anos, paga apenas 20 € por mês."),
    ("pt-i1", "false alarm", "O pagamento é feito por transferência bancária."),
    # Short sentences that lean on the one before ("Andernfalls", "Cuesta"): 1 of 3 terms, 2 of 2 in
    # a context without the number, which another holds.
    ("de-g5", "false alarm", "Andernfalls bleibt es bei 60 €."),
    ("es-i5", "false alarm", "Cuesta 19 € al día."),
    # The user's delay applied to the page's bands (95 or 75 minutes: no page's number).
    ("es-g4", "false alarm",
     "Con un retraso de 75 minutos te corresponde la devolución del 50 % del precio del billete, ya que el "
     "retraso está entre 60 y 119 minutos."),
    # The page says another plan's care is "não está incluída": the opposite veto finds it.
    ("pt-i3", "false alarm",
     "Sim, no Plano Mais a estomatologia está incluída, com uma cobertura de 50 % até 300 € por ano."),
    # An item added to a list, a column's percentage given to another plan: in the pages' own words.
    ("de-i5", "made-up sentence passed",
     "Bezahlen können Sie per Überweisung, bar in einem Kundenzentrum oder per PayPal."),
    ("fr-i2", "made-up sentence passed",
     "Avec la formule Essentielle, une couronne dentaire est remboursée à 250 % de la base de "
     "remboursement de "
     "la Sécurité sociale."),
}

EUROPEAN_3 = {
    # Paraphrase in languages read unstemmed, and facts put in the user's terms ("vor Ladebeginn in der
    # App", "si solo desea medirse la tensión", "il doit avoir moins de 8 ans").
    ("de-g5", "false alarm",
     "**Voraussetzungen:** Ihre Probezeit muss abgeschlossen sein, und Ihre direkte Führungskraft muss "
     "zustimmen."),
    ("de-g7", "false alarm", "Den genauen Preis sehen Sie vor Ladebeginn in der App."),
    ("es-g2", "false alarm",
     "Según la política de equipaje especial, transportar una bicicleta cuesta 45 € por trayecto."),
    ("es-g6", "false alarm",
     "Si solo desea medirse la tensión arterial, ese servicio es gratuito y no necesita cita."),
    ("es-g7", "false alarm",
     "Si cree que el porcentaje asignado es incorrecto, debe consultarlo en su centro de salud, ya que la "
     "farmacia no puede modificarlo."),
    ("es-i1", "false alarm", "Ese precio es para una maleta de hasta 23 kg."),
    ("es-i2", "false alarm", "Si tu guitarra es más grande, tendrás que comprar un asiento adicional."),
    ("fr-g4", "false alarm", "Il doit également avoir moins de 8 ans à ce moment-là."),
    ("fr-g5", "false alarm", "Une franchise de 20 € par acte s'applique, comme pour toutes les formules."),
    ("fr-i3", "false alarm", "Une franchise de 20 € par acte reste à votre charge."),
    ("fr-i4", "false alarm",
     "Non, les aliments, y compris les aliments diététiques, font partie des exclusions du contrat."),
    ("fr-i4", "false alarm", "Les frais de toilettage ne sont pas non plus couverts."),
    ("it-g2", "false alarm", "è ammesso al massimo un cane per camera"),
    ("it-g2", "false alarm", "il supplemento è di 15 € a notte"),
    ("pt-g1", "false alarm", "Mas você fica isento se gastar mais de R$ 2.000 no mês."),
    # German puts "nicht" after the verb it negates ("gelten ... nicht"): only a word after it is read as
    # negated, so the claim's "nicht gelten" is the opposite of the page's.
    ("de-g7", "false alarm",
     "Beachten Sie, dass die Rabatte der Tarife Plus und Pro an Roaming-Ladepunkten nicht gelten."),
    # Two times from two clauses, 11:00 read against a passage giving it as "11".
    ("it-g4", "false alarm",
     "In generale, il check-out è previsto entro le 11:00, ma il late check-out è possibile fino "
     "alle 14:00 con "
     "un supplemento di 25 €, in base alla disponibilità."),
    # Advice in the answer's own words: no pointer, no fact of the page's.
    # A number from another row, clause or column, a "not" dropped, a condition or a service added: in the
    # pages' own words.
    ("es-i2", "made-up sentence passed",
     "Los instrumentos musicales no necesitan reservarse con antelación."),
    ("es-i3", "made-up sentence passed",
     "La reclamación por daños debe presentarse en un plazo de 21 días desde la recepción del equipaje."),
    ("fr-i1", "made-up sentence passed", "Le débit descendant maximal est de 2 Gb/s."),
    ("fr-i4", "made-up sentence passed",
     "Les maladies antérieures à l'adhésion sont en revanche prises en charge après le délai de carence."),
    ("it-i4", "made-up sentence passed",
     "Sono accettati anche i rifiuti provenienti da attività commerciali."),
    ("pt-i1", "made-up sentence passed",
     "A anuidade é de R$ 79 por mês, com isenção para gastos acima de R$ 2.000 no mês."),
}

EUROPEAN_4 = {
    # Paraphrase in languages read unstemmed, and facts put in the user's terms.
    ("de-g7", "false alarm", "Rechne dabei aber mit etwas Wartezeit."),
    ("de-i4", "false alarm",
     "Die Fissurenversiegelung kostet laut Preisliste 28 € pro Zahn, die Behandlung dauert 15 Minuten."),
    ("es-g1", "false alarm",
     "Si prefiere una pantalla original, tenga en cuenta que las piezas originales llevan un suplemento de "
     "40 € en pantallas."),
    ("es-g3", "false alarm", "Los sábados solo abren por la mañana, de 10:00 a 14:00."),
    ("es-g4", "false alarm", "Normalmente todo el proceso tarda de 3 a 5 días laborables desde la recogida."),
    ("es-g5", "false alarm",
     "En cuanto a los portátiles, lamentablemente no los reparan, aunque sí reparan tablets."),
    ("es-g5", "false alarm", "Sí, en la tienda se acepta el pago en efectivo, con tarjeta y por Bizum."),
    ("es-i3", "false alarm",
     "La tienda ofrece tanto piezas originales como piezas compatibles de alta calidad."),
    ("es-i4", "false alarm", "Lo que sí está incluido es la pieza y la mano de obra."),
    ("fr-g2", "false alarm",
     "Attention en revanche : si seules certaines remontées étaient fermées, aucun remboursement "
     "n'est accordé."),
    ("fr-g4", "false alarm",
     "En réservant en ligne jusqu'à la veille à 18 h, tu profites de 15 % de réduction sur le tarif "
     "magasin."),
    ("fr-g6", "false alarm",
     "Par contre, l'accès n'est inclus que dans les forfaits 6 jours et saison : avec ton forfait 3 "
     "jours, il te "
     "faudra payer 12 €."),
    ("pt-g5", "false alarm",
     "Se a visita passar desse tempo, é cobrado um Day Pass, que custa R$ 79 por dia."),
    ("pt-i5", "false alarm",
     "A senhora terá os seguintes itens incluídos no plano Mesa Fixa (R$ 1.290 por mês):"),
    # A bare "yes, it is possible": "possível", no page's word ("Sì, potete!" has none: "can" is a function
    # word in every language read).
    ("pt-g6", "false alarm", "Sim, é possível."),
    # German puts "nicht" after the verb it negates in a main clause: the page's "übernehmen ... nicht" is
    # read as "übernehmen", the opposite of the claim's "nicht übernehmen".
    ("de-i1", "false alarm",
     "Bitte beachten Sie, dass die gesetzlichen Kassen diese Kosten nicht übernehmen."),
    # Wrappers in words no pattern knows: advice, an exclamation before a wish, a lead-in with numbers,
    # a pointer after a colon or with a purpose no pattern reads.
    ("es-i5", "read as a claim",
     "Según la tabla de tarifas, esto es lo que cuesta cada reparación para iPhone 13 y 14:"),
    ("fr-g7", "read as a claim", "Je suis désolé de ne pas avoir de meilleure nouvelle à vous annoncer."),
    ("it-g6", "read as a claim",
     "Se gli invitati sono tanti, potrebbe essere utile organizzarsi con qualche passaggio condiviso."),
    ("it-i3", "read as a claim", "Capisco che sia un peccato, ma la festa sarà bellissima lo stesso!"),
    ("it-r2", "read as a claim",
     "Potreste rivolgervi direttamente alla villa o al catering che sceglierete: sapranno darvi tutte le "
     "indicazioni."),
    # Numbers from another row or clause, a "not" added, a place added, in the pages' own words (the IVA
    # sentence was caught only while "Ten en cuenta" read as the number ten).
    ("es-i2", "made-up sentence passed",
     "El cambio del conector de carga en un Xiaomi Redmi Note 12 cuesta 45 €, con IVA, pieza y mano de obra "
     "incluidos."),
    ("es-i4", "made-up sentence passed", "Ten en cuenta que los precios de la tarifa no incluyen el IVA."),
    ("fr-i2", "made-up sentence passed", "Le forfait 3 jours senior est à 110 €."),
    ("fr-i4", "made-up sentence passed",
     "En revanche, les frais de secours sur piste ne sont pas couverts par cette assurance."),
    ("fr-i5", "made-up sentence passed", "au magasin Orsen Sports au pied des pistes"),
}

ENGLISH_TECHNICAL = {
    # A lead-in stating a number no count (a status code): a claim, and the page's words are others.
    ("g03", "read as a claim", "Here are the steps to troubleshoot 503 errors from the gateway:"),
    # Code the model wrote around a documented call: its keywords are no context's words.
    ("g46", "false alarm", "// back off and retry"),
    ("g46", "false alarm", "if (err instanceof RateLimitError) {"),
    ("g46", "false alarm", "try {"),
    ("g46", "false alarm", "} catch (err) {"),
    # Paraphrase of a code example (`new Nimbus({ maxRetries: 2 })`): 2 of 5 terms.
    ("i08", "false alarm", "You can change it with the `maxRetries` option when you create the client."),
    # Contradictions in the documents' own words: a "not" moved or dropped, a plan's benefit given to
    # another, a fix given to the release before.
    ("i07", "made-up sentence passed", "Yes, test keys can read live data, but they can't modify it."),
    ("i17", "made-up sentence passed",
     "Yes, the metrics endpoint listens on port 9090 at `/metrics` and is exposed outside the cluster."),
    ("i19", "made-up sentence passed",
     "Yes, the SOC 2 Type II report is available to customers on both the Standard and Enterprise "
     "plans under "
     "NDA."),
    ("i21", "made-up sentence passed",
     "The connection leak in the Python SDK's `AsyncClient` when a request timed out was fixed in v2.3.0, "
     "released on 2024-10-29."),
    # A made-up clause on a copied sentence: 8 of 13 terms ("replay" from the page's "replay attacks").
    ("i11", "made-up sentence passed",
     "Failed deliveries are retried with exponential backoff for up to 72 hours, after which the "
     "event is moved "
     "to a dead-letter queue that you can replay from the dashboard."),
    # A refusal with an aside on what the documents do cover, "but not ...": read whole as a claim.
    ("r04", "read as a claim",
     "I don't see anything about SAML or single sign-on in the documentation you've shared — the "
     "authentication docs cover API keys and OAuth tokens for the API, but not dashboard login."),
}

ENGLISH_SUPPORT = {
    # Paraphrase: a terse spec line or fee table as a sentence with verbs of its own.
    ("fee-g5", "false alarm",
     "If you need it faster, expedited delivery costs $15 and gets the card to you in 1–2 business days."),
    ("lost-i2", "false alarm",
     "To prevent new purchases immediately, lock your card in the app under Card > Lock card."),
    ("x200-i2", "false alarm",
     "It reaches 400 nits of brightness and covers 100% of the DCI-P3 color gamut."),
    # "limited" and "unlimited" in one claim: the opposite veto finds the context's "unlimited".
    ("plan-g1", "false alarm",
     "Starter is limited to 3 agents and 10 GB of storage, while Pro and Business Plus allow "
     "unlimited agents."),
    # No claims to a reader, but no pattern tells them from claims: a disclaimer, a hedge, a remark on the
    # documents.
    ("saas-r1", "read as a claim",
     "They cover CloudDesk's plans, pricing, billing and data security, but not integrations."),
    # A fact of one product or plan given to another: every word and number is the page's.
    ("rw-i2", "made-up sentence passed",
     "Nova Classic cardholders can also earn a welcome bonus after spending $4,000 in the first 3 months."),
    ("plan-i1", "made-up sentence passed", "It also includes audit logs and a sandbox environment."),
    ("ret-i2", "made-up sentence passed", "The restocking fee is waived for VoltMart Plus members."),
    # One item added to a list copied from the page.
    ("pm-i1", "made-up sentence passed",
     "After purchase, contact customer support by chat, by email, or by calling 1-800-555-0199."),
    ("lost-i2", "made-up sentence passed", "You can also report it through live chat in the Nova app."),
    ("cv-i3", "made-up sentence passed",
     "CareLine is in network with Aetna, Cigna, UnitedHealthcare and Blue Cross Blue Shield."),
    ("bill-i3", "made-up sentence passed",
     "CloudDesk accepts Visa, Mastercard, American Express and PayPal."),
    # A number the page uses for something else, with the same unit: the sentence closest to the claim
    # holds it too, as "P2" ("High (P2): 4 business hours.").
    ("sla-i3", "made-up sentence passed",
     "High-priority (P2) tickets get a response within 2 business hours."),
    # Contradictions and plausible policies in the page's own words.
    ("ret-i3", "made-up sentence passed", "VoltMart Plus members also pay this fee on regular returns."),
    ("fee-i1", "made-up sentence passed", "The late payment fee is waived the first time you pay late."),
    ("ship-i2", "made-up sentence passed",
     "Orders under that amount can be shipped to a P.O. box with Standard Shipping only."),
    ("ti-i2", "made-up sentence passed",
     "However, you can still recycle them for free at any VoltMart store."),
    ("data-i3", "made-up sentence passed",
     "You can also move an existing US account to the EU region at any time from the admin settings."),
}


ENGLISH_POLICY = {
    # Arithmetic and rules applied to the user's facts: right, and no words or numbers of the page's.
    ("cobra-g1", "false alarm",
     "Your medical, dental and vision coverage ends on the last day of the month in which your employment "
     "ends, so with a June 10 last day your coverage would run through June 30."),
    ("401k-g1", "false alarm",
     "That means if you contribute at least 5% of your pay, you'll get the maximum match of 4% of "
     "eligible pay."),
    ("dv-g2", "false alarm",
     "Orthodontia is covered at 50% up to a $2,000 lifetime maximum, but only for dependent children "
     "under age 19 "
     "— so your 15-year-old qualifies."),
    ("pd-g1", "false alarm",
     "So for a 3-day trip you'd get $64.50 on day one, $86 on day two and $64.50 on day three, for "
     "$215 in total "
     "M&IE."),
    ("pd-g2", "false alarm",
     "In Boston, the M&IE rate is $92 per day and the lunch deduction is $19, so on a full day where "
     "lunch is "
     "provided you'd receive $73."),
    ("pto-g1", "false alarm",
     "With 4 years of service, you fall in the **3 to 5 years** tier, so you accrue **6.15 hours per pay "
     "period**, or 160 hours (20 days) per year."),
    ("tr-g2", "false alarm",
     "Since your flight is about 7 hours, it qualifies — just make sure to get that approval and "
     "book through "
     "Concur Travel."),
    # Paraphrase, and advice added to a true clause.
    ("401k-g2", "false alarm",
     "Since you're eligible on your date of hire (as long as you're 21 or older), you can enroll or choose a "
     "different rate right away."),
    ("elig-g3", "false alarm", "Your son's marriage doesn't affect his eligibility."),
    ("fsa-g1", "false alarm",
     "Anything above $640 is forfeited, so it's worth estimating your expenses carefully."),
    ("home-g1", "false alarm",
     "That means the most the policy pays for a stolen ring is $1,500, even if it's worth more."),
    ("r-hail", "false alarm",
     "If your policy only has liability coverage, please call us at 1-800-555-0142 to review your options."),
    ("tr-i2", "false alarm", "Not for everything."),
    # Wrappers no pattern tells from claims: a lead-in naming a number, a pointer with a purpose of its own
    # or a number in its party's name, a remark on what the documents cover.
    ("elig-g2", "read as a claim",
     "Here's what applies to you as a part-time employee working 24 hours a week:"),
    ("ppo-g1", "read as a claim", "On the Acme Choice PPO 1500, your in-network copays are:"),
    ("ppo-i1", "read as a claim", "On the Acme Choice PPO 1500, here's what you'd pay in-network:"),
    ("r-roth", "read as a claim",
     "I'd recommend contacting the 401(k) plan administrator or HR to confirm whether this option is "
     "available."),
    ("r-life", "read as a claim",
     "They cover medical, dental and vision eligibility and the PPO's costs, but not life insurance."),
    ("r-std", "read as a claim",
     "The documents mention short-term disability benefits for recovery from childbirth, but they don't say "
     "what percentage of your salary it pays."),
    # A number from another clause of the sentence closest to the claim (5 days for immediate family, 3
    # for a grandparent), from the row of a city the claim does not name (the question does), or the
    # closest sentence's own number said of another group (birthing parents' 12 weeks, of adoptive ones);
    # a bare number from another row (vesting years).
    ("ber-i1", "made-up sentence passed",
     "You can take up to 5 paid days of bereavement leave following the death of a grandparent."),
    ("pd-i1", "made-up sentence passed",
     "The M&IE rate is **$79 per day**, and you get 75% of that on your first and last day of travel."),
    ("pl-i2", "made-up sentence passed",
     "Adoptive parents receive the same 12 weeks of paid parental leave at 100% of base pay as "
     "birthing parents."),
    # The 12 months of "Paid parental leave must be taken within 12 months of the birth or placement" (a
    # deadline, given as the service needed): that sentence names paid parental leave, which the closest
    # (6 months of employment) does not, and a sentence naming what the closest lack may be a second row.
    ("pl-i1", "made-up sentence passed",
     "To qualify for paid parental leave, you need to have completed 12 months of continuous employment on "
     "the date of the birth or placement."),
    ("vest-i1", "made-up sentence passed",
     "Company matching contributions become fully vested after 3 years of vesting service."),
    # One plan's or group's benefit given to another; an exception dropped or turned round.
    ("hdhp-i2", "made-up sentence passed",
     "Primary care visits and generic drugs are also covered before you meet the deductible."),
    ("rw-i1", "made-up sentence passed",
     "You can also be reimbursed up to $50 per month for your home internet."),
    ("auto-i1", "made-up sentence passed",
     "Your policy covers your car while you drive for ride-sharing services, as long as collision "
     "coverage is "
     "shown in your Declarations."),
    ("home-i1", "made-up sentence passed",
     "Water that backs up through sewers or drains is covered up to $10,000 under your HO-3 policy."),
    ("oe-i2", "made-up sentence passed",
     "Your Health Care FSA election will roll over as well, at the same annual amount."),
    ("ppo-i2", "made-up sentence passed", "Out-of-network emergency room visits are not covered."),
}


ENGLISH_TABLES = {
    # Paraphrase: the passage with the number shares too few of the claim's terms ("meet", "pay", "go
    # over", "receive"), or a sentence joins two passages' deductibles, or names a range of zones.
    ("hi-g1", "false alarm", "After you meet the deductible, you pay **30% coinsurance**."),
    ("hi-g5", "false alarm",
     "On the **Gold** plan, the out-of-network deductible is **$3,000**, separate from the "
     "in-network individual deductible of **$1,000**."),
    ("rl-i1", "false alarm", "If you go over, you'll receive an HTTP 429 response."),
    ("ship-g4", "false alarm",
     "According to the tracking policy, parcels sent to Zones 3–4 (Rest of Europe and Rest of world) "
     "are declared lost after 25 business days."),
    # A lead-in naming a number, and refusals in forms no pattern knows ("I wasn't able to find", "The
    # leaflet doesn't give").
    ("ben-i1", "read as a claim", "Here's how the 401(k) match works:"),
    ("ibu-i4", "read as a claim",
     "The leaflet doesn't give specific guidance for earlier in pregnancy."),
    # Numbers moved from another row or clause that the rules do not see: a bare count outside a table
    # ("50 webhook endpoints"), percentages and rates whose rows the
    # claim's words do not tell apart, a closest sentence giving the number itself for another group, and
    # features moved between plans with no number.
    ("bank-i2", "made-up sentence passed",
     "On the Premier account, overdraft interest is charged at 19.9% APR."),
    ("ben-i1", "made-up sentence passed",
     "- The company matches 100% of your contributions up to 2% of eligible pay."),
    ("ben-i3", "made-up sentence passed", "At D1 and above, the target bonus is 15% of base salary."),
    ("den-i2", "made-up sentence passed",
     "If you go out of network, the plan pays 80% for Basic services."),
    ("hi-i1", "made-up sentence passed",
     "For out-of-network care on the Gold plan, a separate deductible of $1,000 applies."),
    ("hi-i2", "made-up sentence passed",
     "On the **Silver** plan, a primary care visit has a **$15 copay**."),
    ("leave-i1", "made-up sentence passed", "For extended family, the policy provides 5 paid days."),
    ("leave-i2", "made-up sentence passed",
     "With 5 to 9 years of continuous service, full-time employees receive 25 working days of annual leave."),
    ("leave-i5", "made-up sentence passed",
     "Carried-over days can be used at any point during that year."),
    ("mob-i1", "made-up sentence passed",
     "On the **Everyday** plan, you get **25 GB per month** of EU roaming."),
    ("mob-i2", "made-up sentence passed",
     "Calls to the EU from the UK cost 25p per minute on the Lite plan."),
    ("mob-i3", "made-up sentence passed", "Yes, the Lite plan includes 5G."),
    ("not-i2", "made-up sentence passed",
     "New employees in individual contributor roles serve a **6-month** probation period."),
    ("plans-i1", "made-up sentence passed", "- **Storage:** 100 GB"),
    ("plans-i2", "made-up sentence passed", "On the Basic plan, an extra seat costs $5/month per seat."),
    ("plans-i4", "made-up sentence passed", "- Single sign-on (SAML) is included on the Pro plan."),
    ("ret-i1", "made-up sentence passed",
     "**Electronics** can be returned within **30 days** of receiving your order."),
    ("ret-i2", "made-up sentence passed",
     "Upholstery is covered for 10 years against manufacturing defects."),
    ("ret-i4", "made-up sentence passed",
     "Electronics can be exchanged for a different model within the return window, free of charge."),
    ("rl-i2", "made-up sentence passed",
     "On the Free plan, each account can register up to 50 webhook endpoints."),
    ("sav-i2", "made-up sentence passed",
     "With the monthly interest option, the 1-year bond pays 4.20% AER."),
    ("ship-i2", "made-up sentence passed",
     "Parcels to Zone 3 (Rest of Europe) are declared lost after 15 business days."),
    ("sla-i1", "made-up sentence passed", "- The first-response target is **2 hours**."),
    ("sla-i2", "made-up sentence passed",
     "For P4 – Low / questions tickets on the Business plan, the first-response target is 1 business day."),
    ("syr-i3", "made-up sentence passed",
     "In this situation, you can give up to 4 doses in total before speaking to a doctor."),
}


ENGLISH_FEES = {
    # A bare "No," answer comparing two rows, and a band worked out from a usage ("over 500 kWh ... falls
    # into Band 3"): no words of the page's.
    ("med-g2", "false alarm", "No, the maximums differ."),
    ("util-i1", "false alarm", "Based on the tariff table, usage over 500 kWh a month falls into Band 3."),
    # A party of four words ("Millbrook Public Library staff"), a pointer for a topic ("for cat policies"),
    # and filler no pattern knows.
    # Numbers moved within a page the rule does not see: the number's own row or sentence is as close to
    # the claim as any (a band's, a cabin's or a plan's name is a number or no term: "Band 3", "Zones
    # 1–3"), the unit is no unit the judge reads ("p per kWh", "15p", "every 4 hours" against "every
    # hour"), or the number given otherwise is in another passage; and features moved with no number.
    ("backup-i1", "made-up sentence passed", "The Business plan keeps file version history for 90 days."),
    ("backup-i2", "made-up sentence passed", "On the Business plan, automatic snapshots run every 4 hours."),
    ("bag-i1", "made-up sentence passed", "Each bag can weigh up to 32 kg."),
    ("bag-i2", "made-up sentence passed",
     "Extra checked bags cost £90 each when added online at least 24 hours before departure."),
    ("car-i2", "made-up sentence passed", "Drivers aged 21–24 pay a young driver surcharge of $12 per day."),
    ("gym-i2", "made-up sentence passed",
     "The same student discount also applies to the Premier monthly fee."),
    ("hotel-i3", "made-up sentence passed", "- Free early check-in from 12:00 pm"),
    ("library-i2", "made-up sentence passed",
     "At Millbrook Public Library, colour printing costs **15p per page**."),
    ("med-i1", "made-up sentence passed", "You can take it every 6 hours as needed."),
    ("med-i2", "made-up sentence passed", "The maximum in 24 hours is **80 mg**."),
    ("pet-i1", "made-up sentence passed", "The monthly premium for a medium breed in that band is £58."),
    ("transit-i1", "made-up sentence passed", "For Zones 1–3, a senior (65+) single fare is **£2.10**."),
    ("transit-i2", "made-up sentence passed",
     "The adult daily cap for Zones 1–4 is £7.50 when you tap in and out with the same contactless "
     "card."),
    ("tuition-i1", "made-up sentence passed",
     "International students on laboratory-based programmes pay £21,400 per year."),
    ("tuition-i2", "made-up sentence passed",
     "This alumni discount can be combined with other scholarships."),
    ("util-i1", "made-up sentence passed", "Band 3 is charged at 18.6p per kWh."),
    ("util-i2", "made-up sentence passed", "- Standing charge: 52.3p per day"),
    ("warranty-i2", "made-up sentence passed",
     "Accidental damage is included for televisions as well as laptops and tablets."),
    ("warranty-i3", "made-up sentence passed",
     "However, products used commercially are covered for 6 months only."),
}


ENGLISH_QUOTAS = {
    # Two passages' facts in one sentence (the table's 3 devices, the help page's 25 titles).
    ("lumora-g1", "false alarm",
     "The plan also lets you download on up to 3 devices, and each device can hold up to 25 "
     "downloaded titles."),
    # "The monthly fee" is the Premier account's, named in the sentence before: the closest sentence,
    # the Plus account's, gives $5,000.
    ("bank-g2", "false alarm",
     "The monthly fee is waived if you keep a combined balance of $25,000 or more."),
    # Paraphrase and advice: "overdraw often", "worth a look"; "fit", "take".
    ("bank-i3", "false alarm",
     "If you overdraw often, Plus Checking at $12 per month might be worth a look."),
    ("meridian-g2", "false alarm",
     "If you need more space, Suites fit up to 6 guests, while Standard rooms take up to 2."),
    # Pointers in wordings no pattern knows: advice with a purpose of its own, "Please" with one.
    # A count whose column its words do not name ("renew ... 2 times": "Renewals per item"), or moved from a
    # list or sentence rather than a table (a status tier's guests, a plan's watch lines, a page's 9 rooms
    # as nights), or from another passage that states every word and number of the claim (status benefits:
    # "2 extra checked bags ... 23 kg"); a number with a unit the closest sentence gives itself, for another
    # item (short loans' 4 hours, Transfer's 100 GB).
    ("eastbrook-i1", "made-up sentence passed", "Alumni can renew each item up to 2 times."),
    ("skyvane-i2", "made-up sentence passed",
     "As a Gold member, you get lounge access for yourself plus 2 guests."),
    ("pinecell-i1", "made-up sentence passed", "On Elite you can add up to 2 smartwatch lines per account."),
    ("meridian-i3", "made-up sentence passed",
     "Reward night bookings are limited to 9 consecutive nights per reservation."),
    ("skyvane-i1", "made-up sentence passed", "The Classic fare includes 2 checked bags of 23 kg."),
    ("eastbrook-i3", "made-up sentence passed", "Laptops are lent for up to 4 hours."),
    ("stashbox-i2", "made-up sentence passed",
     "With Stashbox Transfer, Free users can send files of up to 100 GB."),
    # A tier's benefit given to another, a "not" dropped or added, an item added to a list: in the pages'
    # own words, with no number.
    ("lumora-i2", "made-up sentence passed", "Like Premium, Standard also includes spatial audio."),
    ("hive-i2", "made-up sentence passed", "Flex Desk members also get 50 colour pages per month."),
    ("meridian-i2", "made-up sentence passed",
     "Gold members' points never expire, just like those of Platinum and Titanium members."),
    ("skyvane-i3", "made-up sentence passed", "Silver members also get lounge access when they fly."),
    ("bank-i3", "made-up sentence passed",
     "Everyday Checking customers don't get any overdraft fee refunds."),
    ("eastbrook-i2", "made-up sentence passed", "Alumni borrowers can place holds too."),
    ("taskloom-i3", "made-up sentence passed", "Guests can also create new projects in the workspace."),
    ("hive-i3", "made-up sentence passed", "Day Pass Bundle ($120/month)"),
    ("pinecell-i2", "made-up sentence passed", "Rollover of unused hotspot data to the next month"),
    # A lead-in stating what holds of its items ("included"): a claim, the page's table supports it, and
    # its writer labelled it none (the items under it are where the made-up plan is).
    ("hive-i3", "read as a claim", "Mail handling is included on these plans:"),
}


ENGLISH_COUNTS = {
    # A row's numbers read against the sentence's other row, or the claim's sum with a page that gives its
    # parts ("2 or 3 days", "unlimited washes": the page words them otherwise); a sentence leaning on the one
    # before ("Family sits in between at 25.", "It also includes 6 activations.", "Standard offers 60.").
    ("cw-i2", "false alarm",
     "You can swap them in the app whenever you like, and Fleet includes unlimited washes per month."),
    ("dc-g2", "false alarm",
     "Toddlers attend 2 or 3 days per week, whereas Pre-K children attend 5 days a week — every weekday."),
    ("mk-g2", "false alarm", "Family sits in between at 25."),
    ("sw-i4", "false alarm", "It also includes 6 activations."),
    ("vpn-i2", "false alarm", "If you need more locations, Standard offers 60."),
    # Pointers and a closing in wordings no pattern knows.
    # Counts moved in a table that the claim does not tie to one cell: a bullet naming no row, a column
    # its words do not name ("devices" for "Simultaneous devices" is named, but Lite's 25 is the locations'
    # and another passage gives 25 devices), a row the claim names by a word of another ("Starter").
    ("cw-i1", "made-up sentence passed", "15 washes per month"),
    ("ml-i2", "made-up sentence passed", "Starter students get 8 practice room hours per month."),
    ("pm-i2", "made-up sentence passed", "You can also name up to 6 emergency contacts."),
    ("vpn-i2", "made-up sentence passed", "On Lite, you can connect up to 25 devices at once."),
    # A tier's feature given to another, a "not" dropped, an item added: in the pages' own words.
    ("cw-i3", "made-up sentence passed", "Yes, tyre shine is included with Express washes."),
    ("ev-i3", "made-up sentence passed",
     "Yes, the Garden package includes a dedicated bar with a bartender."),
    ("mk-i3", "made-up sentence passed", "Kids' portions as a separate option"),
    ("ml-i3", "made-up sentence passed",
     "Lessons missed without notice can still be made up within the same term."),
    ("pk-i3", "made-up sentence passed", "Yes, Commuter passes include guest validations for your visitors."),
    ("pm-i3", "made-up sentence passed", "This works on Personal as well as on Family and Business."),
    ("vpn-i3", "made-up sentence passed",
     "Yes, Lite subscribers can use double-hop routing, which sends your traffic through two servers."),
    ("wh-i4", "made-up sentence passed",
     "Staff-assisted restores are also included at no extra cost on Starter."),
}


ENGLISH_OPPOSITES = {
    # A negation written otherwise than the page's: "non-transferable" for its "not transferable",
    # "unsupported" for "no longer supported" and "not supported", "no limit" for "unlimited"; the opposite
    # veto finds the claim's word turned round in the page's.
    ("app-g1", "false alarm", "Android 10 is unsupported now."),
    ("gym-g1", "false alarm", "Memberships are non-transferable, so your brother can't take it over."),
    ("gym-g1", "false alarm", "As a Premium member, there's no limit on the number of classes you can book."),
    ("tix-g2", "false alarm",
     "Unfortunately not: Northgate tickets are non-transferable on third-party resale platforms."),
    ("volt-g1", "false alarm", "Also note that mobile data hotspots are unsupported for smart charging."),
    # A count in digits where the page writes it as a word or article ("one tablet", "one business day",
    # "a pair of skis"): no page's number.
    ("bag-g1", "false alarm", "Two skis plus boots count as one checked bag."),
    ("nap-g1", "false alarm",
     "Adults and children over 16 should take 1 tablet twice a day, with food or milk, about 12 hours "
     "apart."),
    ("sky-g1", "false alarm", "Fault reports are answered within 1 business day."),
    # The $50 free-shipping threshold of the sentence before, read against the closest sentence's $14.95.
    ("frs-g1", "false alarm",
     "Orders shipped to APO/FPO addresses are not eligible for free shipping, even over $50."),
    # An opposite flipped or a "not" dropped or added where the page also uses the plain word ("Refunds are
    # issued", "Opened hardware is eligible"): the page's own words.
    ("app-i1", "made-up sentence passed", "Android 9 is still fully supported and receives updates."),
    ("exch-i1", "made-up sentence passed", "Digital downloads are eligible for exchange within 14 days."),
    ("exch-i2", "made-up sentence passed",
     "Opened hardware is not eligible for exchange, even in like-new condition."),
    ("gift-i1", "made-up sentence passed", "Gift cards are refundable."),
    ("ship-i1", "made-up sentence passed", "Yes, assembly is offered by our drivers when they deliver."),
    ("tix-i1", "made-up sentence passed", "Booking fees are refunded as well when an event is moved."),
    # A count written "one" against the page's 2 or two ("two free replacements", "2 business days",
    # "two tablets", "twice daily"): "one" is no number.
    ("brew-i1", "made-up sentence passed",
     "Yes, during the warranty you get one free replacement of the drip tray."),
    ("hay-i1", "made-up sentence passed", "As an adult, you should take one tablet once a day."),
    ("nap-i1", "made-up sentence passed", "Take one tablet once a day, with food or milk."),
    ("sky-i1", "made-up sentence passed",
     "Billing questions sent through the contact form are answered within one business day."),
}


CHATTY_ANSWERS = {
    # Written after the wrapper model's first version, to measure it (README: 68 wrappers read as claims by
    # the patterns alone, 27 by that version); trained on since, with 10 greetings and wishes its writer had
    # left out of not_claims put in ("Ehi, benvenuto!", "Bonne rentrée !").
    # Wrappers the model gives less than 0.8, or holding what a claim rides on (a dash, "but", a colon),
    # or mid-answer; false alarms of sums worked out from the page ("so you pay 19,92 €"),
    # of paraphrase, and of greetings the labels count as claims ("Ehi, benvenuto!", "E aí, tudo bem?").
    ("de-g1", "false alarm",
     "Da Ihr monatlicher Geldeingang unter 700 € liegt und Sie älter als 27 sind, fällt eine "
     "Kontoführungsgebühr von 4,90 € pro Monat an."),
    ("de-g2", "false alarm",
     "Denk auch daran, dass du deine Mitgliedschaft separat kündigen musst, wenn du deine "
     "Geschäftsanteile zurückhaben möchtest."),
    ("de-g2", "read as a claim", "Gute Frage – bei Kündigungen lohnt es sich, auf die Details zu achten."),
    ("de-g3", "false alarm", "Dazu kommt einmalig eine Startgebühr von 29 €."),
    ("de-g3", "false alarm",
     "💪 Mit gültigem Studierendennachweis bekommst du 20 % Rabatt auf den Basic-Tarif, der regulär "
     "24,90 € im Monat kostet – also zahlst du 19,92 €."),
    ("de-i1", "made-up sentence passed",
     "Der Zuschuss gilt allerdings nur bei Zahnärzten, die Vertragspartner der Nordkasse sind."),
    ("de-i2", "false alarm",
     "Gute Nachricht: Ein Upgrade ist jederzeit möglich und kostet Sie nichts extra."),
    ("de-i2", "made-up sentence passed",
     "Mit dem Wechsel beginnt außerdem eine neue Mindestlaufzeit von 24 Monaten."),
    ("de-i3", "false alarm", "Das geht allerdings nur bis zum 31.03."),
    ("de-i3", "false alarm", "Du kannst den Semesterbeitrag von 312,40 € auch nach dem 15.02."),
    ("de-i3", "false alarm", "Vergiss nicht, deine Matrikelnummer im Verwendungszweck anzugeben."),
    ("de-i3", "false alarm", "– danach wirst du exmatrikuliert."),
    ("de-i3", "made-up sentence passed",
     "Die Säumnisgebühr kann auf Antrag beim Studierendensekretariat erlassen werden."),
    ("de-r1", "read as a claim",
     "Leider enthalten die mir vorliegenden Richtlinien keine Angaben zu einem Zuschuss für das "
     "Deutschlandticket."),
    ("en-g1", "false alarm", "Anything beyond that is charged at 19.9% EAR, and that rate is variable."),
    ("en-g13", "false alarm",
     "Without an extension, work handed in late loses 5 marks for each day it's late, so two days "
     "late would mean a 10-mark deduction."),
    ("en-g13", "read as a claim",
     "That's a stressful spot to be in, so here's exactly what the policy says."),
    ("en-g14", "false alarm",
     "Based on AeroLink's policy, a flight of up to 1,500 km that arrives 3 or more hours late "
     "qualifies for €250 in compensation, so your 4-hour delay on a 1,200 km route would fall into "
     "that band."),
    ("en-g14", "false alarm",
     "Technical faults don't count as extraordinary circumstances under the policy, so they don't "
     "rule out compensation."),
    ("en-g17", "false alarm",
     "Up to 2 pets per room are allowed, but each one has to weigh under 25 kg, so your 30 kg dog "
     "wouldn't meet the limit."),
    ("en-g2", "false alarm",
     "Just keep in mind that if a bag turns out to be too big at the gate, there's a €60 charge and "
     "it goes in the hold."),
    ("en-g3", "read as a claim", "Not ready to leave town yet?"),
    ("en-g8", "false alarm",
     "Your deposit should also have been protected with the TDS within 30 days of being paid."),
    ("en-i11", "false alarm",
     "There are no fines on ordinary loans — fines only kick in if you keep an item someone else has "
     "requested, at £1 per day."),
    ("en-i12", "read as a claim", "Here's how guest visits work for Standard members."),
    ("en-i2", "read as a claim", "Sure, here's how the timing works."),
    ("en-i5", "made-up sentence passed", "Claims for major dental are paid back at 60% of the fee."),
    ("en-i7", "false alarm", "The remaining 3 days would normally be lost."),
    ("en-i7", "false alarm",
     "You can carry up to 5 of those days into the next leave year, as long as you use them by 31 "
     "March."),
    ("en-r2", "read as a claim",
     "I'd love to help you plan this, but the pages I have only cover checked baggage and sports "
     "equipment, not travelling with animals."),
    ("en-r3", "read as a claim", "Good thinking to check this up front."),
    ("en-r4", "read as a claim",
     "Unfortunately, nothing in the documents I've got covers rent increases during a tenancy."),
    ("es-g1", "false alarm",
     "Eso sí, el límite diario en la app es de 3.000 €, así que para enviar 4.000 € tendrás que "
     "ampliarlo antes."),
    ("es-g3", "false alarm", "Así que, si puedes, programa la lavadora de madrugada o el fin de semana."),
    ("es-i1", "false alarm",
     "Su póliza cubre urgencias médicas en el extranjero hasta 12.000 € por viaje, siempre que el "
     "viaje no supere los 90 días, así que dos meses entran dentro del límite."),
    ("es-i1", "read as a claim", "Entiendo que quiera viajar tranquilo en un viaje tan largo."),
    ("es-i2", "false alarm",
     "😕 La buena noticia es que la garantía legal es de 3 años, así que con 20 meses tu portátil "
     "sigue cubierto."),
    ("fr-g1", "false alarm",
     "Comme votre valise pèse 26 kg, un supplément de 10 € par kilo excédentaire s'appliquera, soit "
     "30 €."),
    ("fr-g3", "false alarm",
     "Bonne nouvelle : en tant que boursier, tu es exonéré des droits d'inscription de master (254 €) "
     "et tu n'as pas non plus à payer la CVEC."),
    ("fr-g3", "false alarm",
     "Il te faudra quand même obtenir ton attestation CVEC avant de t'inscrire, même si elle est "
     "gratuite pour toi."),
    ("fr-i3", "false alarm",
     "Pour votre fils de 8 ans, le tarif enfant est de 8 €, et pour les adultes, comptez 16 €."),
    ("it-g1", "false alarm",
     "💪 Visto che hai meno di 25 anni, hai diritto al 15% di sconto sull'annuale, che normalmente "
     "costa 390 €: quindi pagheresti 331,50 €."),
    ("it-g3", "false alarm",
     "Con un ISEE di 18.000 € rientra nella no-tax area, quindi è esonerato dal contributo "
     "onnicomprensivo."),
    ("it-i1", "false alarm",
     "A 9 anni il servizio di assistenza per minori non accompagnati è obbligatorio."),
    ("it-i1", "false alarm", "Per un volo nazionale come Roma–Catania il costo è di 60 € a tratta."),
    ("it-i2", "false alarm", "La portabilità è gratis, mentre la SIM costa 10 € una tantum."),
    ("pt-g1", "read as a claim", "Que bom que você já está organizando seus cuidados."),
    ("pt-g2", "read as a claim", "Caso precise de ajuda com outra encomenda, estamos por cá."),
    ("pt-g3", "false alarm",
     "A boa notícia é que, apresentando o boletim de ocorrência, você fica isento da taxa da segunda "
     "via."),
    ("pt-i1", "false alarm", "Com 24 anos pode abrir a Conta Jovem sem pagar comissão de manutenção."),
    ("pt-i2", "false alarm", "Em ambos os casos, o técnico instala tudo em até 7 dias úteis."),
    ("pt-i2", "false alarm", "Se você topar a fidelidade de 12 meses, a instalação sai de graça."),
    ("pt-i2", "read as a claim", "Qualquer coisa, só chamar!"),
    ("pt-i3", "read as a claim", "Fico contente por estares a pensar na residência."),
}

CHATTY_ANSWERS_2 = {
    # Written after the wrapper model's fourth version, measured once on it (README: 48 wrappers read as
    # claims by the patterns alone, 22 with the model; false alarms 47 -> 43; made-up sentences caught 18 of
    # 21 either way); trained on since, with 7 greetings and wishes put in not_claims ("¡Hola!", "Oi!").
    ("en-i6", "false alarm", "Yep, there is!"),
    ("de-g1", "false alarm",
     "Ja, in Regional- und InterRegio-Zügen dürfen Sie Ihr Velo mitnehmen, solange es Platz hat."),
    ("de-g2", "false alarm",
     "Brauchen Sie noch mehr, hilft Ihnen der Kundenservice unter 0800 600 700 weiter, allerdings nur "
     "nach einer Bonitätsprüfung."),
    ("de-g2", "false alarm",
     "Dieses Limit lässt sich in der App unter **Karte > Limits** auf bis zu 5.000 € täglich anheben."),
    ("de-g2", "false alarm", "Wenn Sie möchten, können Sie das gleich erledigen – die Änderung gilt sofort."),
    ("de-g3", "false alarm",
     "Die Praxis ruft dich nach der OP an, und meistens kannst du sie ab 16 Uhr wieder abholen."),
    ("de-g3", "false alarm", "Ja, ab 22 Uhr am Abend vor der OP sollte deine Katze nichts mehr fressen."),
    ("de-i1", "false alarm", "Dazu kommt eine Servicepauschale von 15 €."),
    ("de-i2", "false alarm",
     "Das Geld bekommst du nach Eingang und Prüfung innerhalb von 14 Tagen auf dem Weg zurück, wie du "
     "bezahlt hast."),
    ("de-i2", "false alarm",
     "😊 Zurückschicken ist bei Lindgrün kostenlos, solange du innerhalb von 30 Tagen nach Erhalt dran "
     "bist."),
    ("de-r1", "read as a claim", "Das ist wirklich ärgerlich, das tut mir leid."),
    ("de-r1", "read as a claim",
     "In den Unterlagen, die mir vorliegen, geht es nur um den Glasbruch-Baustein und die "
     "Beitragszahlung – zum Fahrraddiebstahl aus dem Keller steht dort leider nichts."),
    ("en-g10", "false alarm", "2 to 7 days before: half the deposit back"),
    ("en-g11", "false alarm",
     "You can reduce your limit under **Settings > Limits**, but it cannot be raised beyond ₹1 lakh."),
    ("en-g12", "false alarm", "Yes, in most cases you can!"),
    ("en-g14", "false alarm",
     "If you'd like to add one, it's much cheaper to do it online in Manage Booking: from £12, "
     "compared with £40 at the gate."),
    ("en-g2", "false alarm", "If you can see you'll be delayed, give the branch a ring as early as you can."),
    ("en-g3", "false alarm",
     "If you need more than that, extra guest day passes cost £15 each and can be bought at reception "
     "or in the app."),
    ("en-g8", "false alarm", "Happy to help — and yes, you can renew online."),
    ("en-g8", "false alarm",
     "If something does come back late, it's 20p per item per day, with a cap of £5 per item."),
    ("en-i10", "made-up sentence passed",
     "Note that from your second replacement within 12 months, there's a £5 fee."),
    ("en-i2", "false alarm", "Yes, at 23 you can rent with Velo Rent, since the minimum age is 21."),
    ("en-i2", "false alarm",
     "You need to have held a full licence for at least two years, and the Premium and SUV categories "
     "are off-limits until you turn 25."),
    ("en-i4", "made-up sentence passed",
     "For windscreen damage, Meridian uses a partner called ClearShield Glass, which you can reach on "
     "0800 123 4567."),
    ("en-i5", "false alarm",
     "Verification goes through UniDays and needs renewing every 12 months, for up to four years in "
     "total."),
    ("en-i5", "made-up sentence passed",
     "You'll get the first month completely free when you sign up with a student account."),
    ("en-i7", "false alarm",
     "The change can take up to 5 working days to kick in, and the account has to be in your name (on "
     "its own or jointly)."),
    ("en-r4", "read as a claim",
     "I'm afraid the info I've got covers packing materials and transit insurance, but says nothing "
     "about moving pianos."),
    ("en-r5", "read as a claim",
     "The school office or the local council's school transport team would be best placed to advise."),
    ("es-g2", "false alarm",
     "Ojo, que si te quedás sin saldo podés viajar igual hasta un negativo de $1.300, pero después "
     "tenés que cargar sí o sí."),
    ("es-g2", "false alarm",
     "Si encima hacés un tercer viaje dentro de los 90 minutos, te cobran solo el 25 %."),
    ("es-g3", "false alarm",
     "Para un vuelo nacional como Madrid–Sevilla, la tarifa es de 50 € por trayecto."),
    ("es-i1", "false alarm", "Como ya pasaron 20 días, lamentablemente quedaría fuera de ese plazo."),
    ("es-i1", "false alarm",
     "Si todavía estuviera dentro del periodo, la guía de devolución sería gratuita desde Mis pedidos "
     "> Devolver."),
    ("es-i2", "false alarm",
     "Después, un perito te va a contactar dentro de los 5 días hábiles para coordinar la inspección."),
    ("fr-g1", "false alarm", "Oui, absolument!"),
    ("fr-g1", "false alarm", "Tu as droit à 5 documents en même temps, pour 21 jours chacun."),
    ("fr-g1", "false alarm",
     "À la fin du prêt, le livre se retourne tout seul, donc pas de frais de retard à craindre."),
    ("fr-g3", "false alarm",
     "Si vous voulez comparer sur place, je peux vous expliquer comment vous inscrire à une visite : "
     "elles ont lieu tous les jeudis à 11 h."),
    ("fr-r1", "false alarm",
     "En attendant, si vous avez besoin de boîtes, la livraison est gratuite à partir de 150 $ "
     "d'achat dans un rayon de 25 km."),
    ("fr-r1", "read as a claim",
     "Malheureusement, l'information dont je dispose porte seulement sur les boîtes et les "
     "fournitures d'emballage; je ne peux donc pas vous dire s'il reste des disponibilités pour le "
     "1er juillet."),
    ("it-g1", "false alarm",
     "Certo, può vaccinarsi presso la Farmacia Centrale: non rientrando nelle categorie gratuite, il "
     "costo è di 25 €, dose e somministrazione incluse."),
    ("it-g1", "false alarm",
     "Tenga presente che, se il giorno dell'appuntamento avesse la febbre, non sarà possibile "
     "vaccinarla."),
    ("it-g3", "false alarm",
     "Se suo figlio ha bisogno di una dieta speciale per motivi di salute, va allegato un certificato "
     "medico."),
    ("it-i1", "false alarm",
     "Dopo la disdetta continui a vedere tutto fino alla fine del periodo già pagato, ma per i giorni "
     "non usati non è previsto alcun rimborso, nemmeno parziale."),
    ("it-i1", "false alarm",
     "Profili e cronologia restano salvati per 10 mesi, quindi se torni ritrovi tutto com'era."),
    ("it-r1", "false alarm",
     "Le consiglio di chiedere conferma all'ufficio, magari quando prenota l'appuntamento al numero "
     "0571 220 310."),
    ("it-r1", "read as a claim",
     "Purtroppo le informazioni che ho sull'Ufficio Tributi di Castelverde riguardano gli orari e i "
     "rimborsi, ma non dicono nulla sulle modalità di pagamento dell'IMU allo sportello."),
    ("pt-g3", "false alarm",
     "Cada dose da V10 custa R$ 120 e a antirrábica sai R$ 80, então o protocolo inicial completo "
     "fica em R$ 440."),
    ("pt-g3", "false alarm", "🐶 Como ele já passou dos 45 dias, já pode começar o protocolo."),
    ("pt-i1", "false alarm",
     "Convém lembrar que o limite diário na app é de 5.000 €, que pode subir até 15.000 € se o pedir "
     "na agência."),
    ("pt-i2", "false alarm",
     "Como a air fryer chegou há dois dias, você ainda está dentro do prazo de 7 dias corridos para "
     "desistir da compra."),
    ("pt-i2", "false alarm", "Consegue sim!"),
    ("pt-r1", "read as a claim", "Percebo perfeitamente a sua dúvida."),
}


CHATTY_ANSWERS_3 = {
    # Written after the wrapper model's fourth version, measured once on it and on the fifth (README); trained
    # on since, with 12 greetings and wishes put in not_claims ("Welcome aboard!", "Boas pedaladas!").
    ("de-g2", "false alarm",
     "Ja, das geht: Für einen Dienstwagen reicht eine Bescheinigung deines Arbeitgebers, dass du das "
     "Auto auch privat nutzen darfst."),
    ("de-g3", "false alarm",
     "👋 Mit einem ein Jahr alten Gerät sind Sie noch innerhalb der gesetzlichen Gewährleistung von 24 "
     "Monaten."),
    ("de-i2", "false alarm",
     "Dein Hund kostet 5 € pro Strecke und muss an Bord an der Leine bleiben – ins Bordrestaurant "
     "darf er allerdings nicht mit."),
    # One sentence since the thirty-fifth session ("dem 1. April" is an ordinal): it had been three, two of
    # them flagged ("... zwischen dem 1." and "Oktober musst du es vorher reservieren.").
    ("de-i2", "false alarm",
     "Für das Fahrrad zahlst du 9,50 € pro Strecke, und zwischen dem 1. April und dem 31. Oktober musst du "
     "es vorher reservieren."),
    ("de-i2", "false alarm", "Klar, beides ist möglich!"),
    # "minutos" a unit since the thirty-fourth session (durations in five languages): the page's only 45 is
    # "45 € al año", as an English "45 minutes" against "€45" is flagged too.
    ("es-g1", "false alarm",
     "Si usas la bici 45 minutos, pagarías 0,50 € por el tramo adicional, ya que se cobra por cada 30 "
     "minutos o fracción."),
    ("en-g2", "false alarm", "Last admission is 45 minutes before closing, so 20:15 on a Wednesday."),
    ("en-g7", "false alarm", "Have an amazing time at Riverside Sounds!"),
    ("en-g8", "false alarm",
     "Flex Tracker is the only tariff without an exit fee; it charges 22.8p/kWh plus a 51.2p daily "
     "standing charge, but its prices vary monthly."),
    ("en-i1", "false alarm",
     "At 14 months it's still within the 2-year manufacturer's warranty, as long as you have proof of "
     "purchase."),
    ("en-i5", "made-up sentence passed",
     "There's also a guided tour of the 'Life at Sea' galleries led by curator Dr Helen Marsh every "
     "Thursday at 14:00, for an extra £6 per person."),
    ("en-i9", "made-up sentence passed",
     "It lets you make up to 3 claims in any 3-year period without your NCD being reduced."),
    ("en-r2", "read as a claim",
     "The tariff information I have only covers what you pay for electricity; there's nothing about "
     "payments for exported solar power."),
    ("en-r3", "read as a claim",
     "It would be best to check the full policy wording or ask PawSure directly to be sure."),
    ("es-i1", "read as a claim", "¡Buenas noticias!"),
    ("fr-g1", "false alarm",
     "Bonne nouvelle : si vous êtes en formule Confort ou Intégrale, la réparation d'un impact se "
     "fait sans franchise."),
    ("fr-g3", "false alarm",
     "Je vous conseille de réserver vite la visite de 15 h : il n'y reste que 4 places, celle de 10 h "
     "étant déjà complète."),
    ("fr-i2", "false alarm",
     "Elle peut en revanche être prise en charge avec la formule Premium, grâce à son forfait "
     "prévention de 100 € par an."),
    ("fr-i2", "made-up sentence passed",
     "Vous pouvez passer en Premium à tout moment, sans nouveau délai de carence."),
    ("it-g3", "false alarm", "Se ti iscrivi entro il 15 settembre hai uno sconto del 10%."),
    ("it-i1", "false alarm", "Ti ricordo che i concerti serali iniziano alle 21:00."),
    ("it-i2", "false alarm",
     "Se invece decidesse di annullare, a questo punto non è previsto alcun rimborso, tranne le tasse "
     "portuali."),
    ("it-r1", "false alarm",
     "Per una risposta certa Le consiglio di scrivere a supporto@cadpro.it, attivo dal lunedì al "
     "venerdì dalle 9:00 alle 18:00."),
    ("pt-r1", "read as a claim",
     "Peço desculpa, mas a informação que tenho sobre a creche não refere se existe transporte para "
     "as crianças."),
}


CHATTY_ANSWERS_4 = {
    # Written after the wrapper model's sixth version, not trained on (README: 39 wrappers read as claims by
    # the patterns alone, 11 with the model; 34 false alarms and all 17 made-up sentences caught either way).
    ("de-g2", "false alarm",
     "Für die dritte Person kommen 30 € pro Stunde hinzu, also 120 €, sodass Sie insgesamt 480 € "
     "bezahlen."),
    ("de-i1", "false alarm", "Beachte, dass normalerweise 150 € Selbstbeteiligung abgezogen werden."),
    ("de-i1", "false alarm", "Bei einer Wohnung mit 60 m² wären das zum Beispiel 390 €."),
    ("de-i1", "false alarm", "Die Entschädigung ist auf 1 % der Versicherungssumme begrenzt."),
    ("en-g3", "false alarm",
     "Alternatively, you can defer your place to 2026 for £20, provided you request it by the same "
     "date."),
    ("en-g4", "false alarm", "A 20-minute ride costs £4.60: £1 to unlock plus 18p per minute."),
    ("en-g6", "false alarm", "Note that once you leave, you can't get back in."),
    ("en-g8", "false alarm",
     "Good news: three weeks is enough, because the yellow fever vaccine only has to be given at "
     "least 10 days before travel for the certificate to be valid."),
    ("en-g8", "false alarm", "Just remember that we only take card payments."),
    ("en-i1", "false alarm",
     "Since your laptop is worth £1,200, it doesn't need to be listed individually, as the limit for "
     "unlisted single items is £1,500."),
    ("en-i3", "false alarm", "8 kg of wash & fold comes to £17.60 at £2.20 per kg."),
    ("en-i3", "false alarm", "Adding a double duvet at £15 brings the total to £32.60."),
    ("en-i3", "false alarm",
     "Since that's over £30 and M3 is in the free zone, pickup and delivery are free."),
    ("en-i4", "false alarm", "The lift pass isn't included, so you'll need to buy one separately for her."),
    ("en-i4", "false alarm", "Wonderful, she's right in the 5–12 age range for our kids' groups ⛷️!"),
    ("en-i7", "false alarm",
     "A fridge counts as two items, so together with the sofa and the two mattresses your booking "
     "totals 5 items."),
    ("en-i7", "false alarm", "That falls within the standard fee of £35 for up to 5 items."),
    ("en-r1", "read as a claim", "The best thing would be to ask the store directly."),
    ("es-g2", "false alarm",
     "Recuerde que la presentación por internet está abierta hasta el 1 de julio de 2024."),
    ("es-g2", "false alarm", "Si desea domiciliar el pago, el plazo termina el 26 de junio."),
    ("es-i1", "false alarm", "El casco se alquila aparte por 12 €."),
    ("es-i1", "false alarm", "El forfait tampoco está incluido."),
    ("es-i1", "false alarm",
     "Si le sumas el alquiler de esquís, botas y bastones para 5 días (95 €), el total es de 260 €."),
    ("es-i2", "false alarm",
     "Con dos meses de margen vas bien, porque se recomienda acudir al menos 4–6 semanas antes."),
    ("fr-g1", "read as a claim", "À bientôt à la laverie !"),
    ("fr-g2", "false alarm", "Sans document validé, le dossard ne pourra pas vous être remis."),
    ("fr-i1", "false alarm", "Ça coûte 1 € pour débloquer, puis 0,29 € la minute."),
    ("fr-i2", "false alarm",
     "En tant que doctorante, vous pouvez emprunter jusqu'à 30 documents pour une durée de 8 "
     "semaines."),
    ("fr-r1", "read as a claim",
     "Les informations dont je dispose indiquent les horaires d'été habituels, mais elles ne "
     "précisent rien concernant les jours fériés comme le 14 juillet."),
    ("it-g2", "false alarm", "Se resti almeno 6 mesi, hai uno sconto del 10 % sull'affitto."),
    ("it-g2", "false alarm",
     "Sì, il tuo gatto è il benvenuto, ma solo nelle stanze con accesso al giardino e con un "
     "supplemento di 50 € al mese."),
    ("pt-g1", "false alarm",
     "Lavar e secar uma máquina de 10 kg sai por R$ 36, sendo R$ 18 a lavagem e R$ 18 a secagem de 45 "
     "minutos."),
    ("pt-i1", "false alarm", "Com duas viagens longas destas, o passe já compensa."),
    ("pt-i1", "false alarm",
     "O passe diário custa 9,99 € e dá viagens ilimitadas, desde que cada uma não passe dos 30 "
     "minutos."),
    ("pt-i1", "false alarm",
     "Sem passe, pagas 0,50 € para desbloquear e 0,20 € por minuto, ou seja, 6,50 € por uma viagem de "
     "30 minutos."),
    ("pt-i2", "false alarm", "Cada dose da tetravalente custa R$ 140, então o total fica em R$ 280."),
    ("pt-i2", "false alarm",
     "Como ela tem 5 anos e nunca tomou a vacina, vai precisar de duas doses, com intervalo de 30 "
     "dias entre elas."),
}


CHATTY_ANSWERS_5 = {
    # A fifth red team (sixty-third session), writing house styles of 2025-2026 assistants: headings, bold
    # labels, tables, sources lines, meta statements and disclaimers. Measured once at scoring rules 38's
    # first filler (README: 34 no-claims read as claims, 30 false alarms, 15 of 20 made-up sentences
    # caught), then 29 after the dash rule fitted to the older sets, 27 after two lead-ins fitted to it
    # ("Here's the key information.", "Let me walk you through it."), 18 after scoring rules 39 read seven
    # English refusals saying what their one page covers as declining and two disclaimers that prices change
    # leading a pointer as no claims (both fitted to this set); 15 with "I don't want to guess on this one."
    # and the German and Italian refusals of scope read as refusals. Not trained on.
    # Made up in the page's own words, or beside a sentence it states (a condition added, a way to pay).
    ("en-i11", "made-up sentence passed",
     "To qualify, you just need to send Riverdale proof of the repair, such as a plumber's invoice."),
    ("en-i12", "made-up sentence passed",
     "If you'd rather not spend it, any store can exchange the remaining balance for cash."),
    ("en-i14", "made-up sentence passed",
     "Trade-in credit is paid straight into your bank account within 30 days of Orbit receiving the device."),
    ("en-i7", "made-up sentence passed",
     "Hotels outside London are capped at £150 per night and must be booked through TravelDesk."),
    ("en-i9", "made-up sentence passed",
     "If your plans change, you can cancel for a full refund as long as you do it by 7 am on the day of "
     "collection [1]."),
    # Sums and cases worked out from the page ("£140 coming back", "so at 5 months it's too late", "£43 in
    # total"), paraphrase, unstemmed languages, and a table in French over an English page.
    ("de-g1", "false alarm", "Alternativ kannst du einfach den Kündigungsbutton in der App nutzen."),
    ("de-g1", "false alarm", "😊 **Kurz gesagt:** Ja, du kannst jederzeit kündigen."),
    ("de-i1", "false alarm",
     "Bei Ihrer Rechnung über 110 € wären 80 % zwar 88 €, erstattet wird aber höchstens der Jahresbetrag "
     "von 60 €."),
    ("en-g11", "false alarm", "With £240 in credit, that would mean £140 coming back to you at the review."),
    ("en-g12", "false alarm",
     "CarePlus can only be added within 30 days of purchase, so at 5 months it's too late to add it for this "
     "laptop."),
    ("en-g15", "false alarm",
     "Once you're back in, you can generate a fresh set of recovery codes, which will invalidate the old "
     "ones."),
    ("en-g2", "false alarm", "Anything heavier than 32 kg won't be accepted at all."),
    ("en-g2", "false alarm", "If you leave it until you're at the airport desk, the price goes up to £45."),
    ("en-g2", "false alarm",
     "The standard weight limit is 23 kg, so a 26 kg bag would fall into the overweight band of 23–32 kg and "
     "carry an extra £40 fee."),
    ("en-g6", "false alarm",
     "If you actually run out before then, the practice advises contacting your pharmacy or NHS 111."),
    ("en-g7", "false alarm", "**TL;DR:** 12 weeks at full pay, and yes, you can split it."),
    ("en-g8", "false alarm",
     "It's worth honouring it, because repeatedly ignoring `Retry-After` can get your key temporarily "
     "suspended for up to an hour."),
    ("en-g9", "false alarm",
     "Note that any time remaining on your current passport won't be carried over to the new one."),
    ("en-i1", "false alarm",
     "As a non-member, delivery on an order of £40 or more costs £4.50, so that's what you'd pay on a £48 "
     "basket."),
    ("en-i2", "false alarm",
     "For a single ticket delayed by 30 to 59 minutes, Northline pays 50% of the ticket price, which would "
     "be £16 on your £32 fare."),
    ("en-i5", "false alarm",
     "Unfortunately, illness cover doesn't kick in until 14 days after your policy starts, so an illness "
     "next week wouldn't be covered yet."),
    ("en-i7", "false alarm",
     "**Short answer:** yes, first class is allowed for your trip — as long as you book early enough."),
    ("en-i8", "false alarm",
     "Separately, anything you delete stays in the Bin for 30 days before it's gone for good."),
    ("en-i9", "false alarm",
     "A bulky waste collection of up to 3 items costs £35, and each additional item is £8, so four items "
     "would come to £43 in total [1]."),
    ("es-g1", "false alarm", "Si prefieres pagarlo todo de una vez, tienes un 5 % de descuento."),
    ("es-g1", "false alarm", "👋 Te cuento cómo funciona."),
    ("es-i1", "false alarm",
     "MóvilNet solo cobra una penalización de 50 € si cambias a una tarifa inferior durante los primeros 6 "
     "meses, y tú ya llevas 10."),
    ("fr-g2", "false alarm", "Les deux formules acceptent jusqu'à 100 participants."),
    ("fr-g2", "false alarm",
     "Pro coûte 13,99 € par hôte et par mois, avec 16 % d'économie en facturation annuelle."),
    ("fr-g2", "false alarm", "| Free | 40 minutes | Non inclus |"),
    ("fr-g2", "false alarm", "| Pro | 30 heures | 5 Go par hôte |"),
    ("fr-i1", "false alarm", "Attention : le jour même du départ, aucun échange n'est plus possible."),
    ("it-i1", "false alarm",
     "Visto che la bolletta è il triplo del solito, supera ampiamente la soglia prevista rispetto alla media "
     "degli ultimi 12 mesi, quindi puoi chiedere la rateizzazione."),
    ("pt-g1", "false alarm",
     "Como você pagou no Pix, o reembolso sai em até 5 dias úteis depois que o tênis chegar ao centro de "
     "distribuição."),
    ("pt-g1", "false alarm", "Tudo bem?"),
    # Refusals in German and Italian saying what the one document covers, which no cue reads as declining:
    # a statement of scope asserts what the page is about (the English ones decline since scoring rules 39).
    ("fr-g2", "read as a claim", "Cette réponse s'appuie uniquement sur la page de tarifs fournie."),
    # Wrappers in words no pattern knows, or that the model gives under 0.8 or reads mid-answer: a bare
    # verdict with a lead in other languages, a disclaimer that prices change, a pointer with its purpose,
    # an offer, a question to the user, a lead-in.
    ("en-g1", "read as a claim", "**Short answer:** yes, most likely — with one catch."),
    ("es-i1", "read as a claim", "La respuesta corta es no."),
    ("it-i1", "read as a claim", "In breve: sì."),
    ("fr-g2", "read as a claim", "Les prix peuvent évoluer, pensez à vérifier avant de vous abonner."),
    ("en-r1", "read as a claim",
     "The quickest way to get a definite answer would be to ask a member of staff in store or contact "
     "Brightview customer service."),
    ("en-r8", "read as a claim",
     "The school office would be the best people to ask, and they may be able to point you to any local "
     "support."),
    ("en-g8", "read as a claim", "If it helps, I can sketch a simple backoff loop for your sync job."),
    ("en-g12", "read as a claim", "Not sure whether you took out CarePlus when you bought it?"),
    ("en-g13", "read as a claim", "We look forward to welcoming you (and your four-legged friend)!"),
    ("en-i9", "read as a claim", "Here's the cost breakdown for your four items [1]."),
    ("en-g9", "read as a claim",
     "Please note this chatbot cannot check the status of an existing application."),
    # Sympathy after a dash the model gives under 0.5 ("running low on regular medication is worrying"),
    # and a lead-in after "Got it —" whose tail names "the numbers".
    ("en-g6", "read as a claim",
     "I'm sorry you're feeling stressed about this — running low on regular medication is worrying."),
    ("en-g8", "read as a claim", "Got it — here are the numbers that matter for your case."),
    ("en-i11", "read as a claim", "I'm sorry — a surprise bill like that is never fun."),
}


LETTERS = {
    # Thanks, sympathy and welcomes in forms no pattern knows ("vielen Dank, dass ...", "Será un placer
    # atenderle.", "Lamentamos o sucedido."), a refusal's, and name lines no closing above signs, or with
    # words no list knows ("asistente virtual").
    ("de-g7", "read as a claim", "vielen Dank, dass Sie uns Bescheid geben."),
    ("de-i1", "read as a claim",
     "vielen Dank für Ihre Nachricht – es tut mir leid, dass Ihnen das passiert ist."),
    ("de-i2", "read as a claim", "Ihr Nordzug-Kundendialog"),
    ("en-g5", "read as a claim", "So sorry to hear about your ankle – wishing you a speedy recovery!"),
    ("es-g5", "read as a claim", "Será un placer atenderle."),
    ("es-g6", "read as a claim", "TecnoBot, asistente virtual de TecnoCasa"),
    ("es-i3", "read as a claim", "¡Gracias por escribirnos!"),
    ("fr-g5", "read as a claim", "Le secrétariat du Centre médical Pasteur"),
    ("fr-g6", "read as a claim", "Julie"),
    ("fr-g6", "read as a claim", "À bientôt au club !"),
    ("fr-g6", "read as a claim", "Équipe Forme+"),
    ("fr-g7", "read as a claim", "Nous sommes désolés d'apprendre que vous souhaitez nous quitter."),
    ("it-g7", "read as a claim", "Gentile cittadino,"),
    ("it-i1", "read as a claim", "ci dispiace per il disagio."),
    ("pt-g2", "read as a claim", "Rita, da equipa Movel+"),
    ("pt-i1", "read as a claim", "Lamentamos o sucedido."),
    ("pt-r1", "read as a claim",
     "Infelizmente, não disponho de informação sobre as condições de crédito à habitação para "
     "clientes não residentes."),
    # Facts the pages state in other words or numbers worked out from them, a trap's tip after a closing
    # ("Herzliche Grüße und noch ein kleiner Tipp: ...": a claim the page states in other words), signature
    # lines of hours and numbers written otherwise, and salutations split by an abbreviation the splitter does
    # not know ("Exmo.").
    ("de-g1", "false alarm", "Tel. 08382 704-0 (Mo–Fr 8–17 Uhr)"),
    ("de-g4", "false alarm",
     "Herzliche Grüße und noch ein kleiner Tipp: Ab einem Bestellwert von 40 € ist der Versand "
     "kostenlos."),
    ("de-g6", "false alarm", "Deine Mitgliedskarte musst du nicht zurückgeben."),
    ("de-i2", "false alarm", "Bitte reichen Sie ihn innerhalb von 3 Monaten nach der Fahrt ein."),
    ("en-g2", "false alarm", "Just bear in mind that you can only pause once every 12 months."),
    ("en-g4", "false alarm",
     "If you find you can't make your appointment, we ask that you cancel at least 24 hours "
     "beforehand."),
    ("en-i2", "false alarm", "If you add it at the airport instead, the price is €45."),
    ("es-g1", "false alarm",
     "El importe máximo por operación en Bizum es de 1.000 €, por lo que no es posible enviar "
     "1.500 € en un único envío."),
    ("fr-g6", "false alarm", "Ta copine aura ses frais d'inscription de 49 € offerts."),
    ("fr-g7", "false alarm",
     "Après la résiliation, vos données sont encore conservées 90 jours avant d'être "
     "définitivement supprimées."),
    ("fr-i2", "false alarm",
     "La livraison à domicile est offerte à partir de 80 € d'achat ; pour une commande de 60 €, "
     "elle vous coûtera donc 5,99 €."),
    ("it-g4", "false alarm", "Esposito,"),
    ("it-g4", "false alarm",
     "Un cordiale saluto e un promemoria: il giorno della visita porti con sé la tessera "
     "sanitaria e l'impegnativa."),
    ("it-g5", "false alarm", "Orari: lun–ven 6:30–22:30, sab 9:00–19:00, dom 9:00–13:00"),
    ("pt-g3", "false alarm", "Exmo."),
    ("pt-g3", "false alarm", "Senhor Ferreira,"),
    ("pt-g7", "false alarm", "a sex., 9h–18h"),
    ("pt-i3", "false alarm",
     "Se não puderes ir, cancela com pelo menos 2 horas de antecedência, senão ficas sem poder "
     "fazer novas reservas durante 7 dias."),
    ("pt-i4", "false alarm",
     "Sim, com 42 anos pode pedir a renovação online em gov.pt, utilizando a Chave Móvel "
     "Digital."),
    # A signature's hours made up from the page's own ("Monday to Saturday, 8am–8pm" where it gives Monday to
    # Friday 8am–8pm, Saturday 9am–5pm); a benefit given to another plan.
    ("en-i1", "made-up sentence passed", "Claims line: 0800 917 3344 (Monday to Saturday, 8am–8pm)"),
    ("es-i2", "made-up sentence passed",
     "Las clases colectivas también están incluidas en la tarifa Básica."),
}


LETTERS_2 = {
    # Written after the second version and measured once (wrappers read as claims 196 -> 111 -> 45 of 240
    # across the two versions; 43 once a mail app's "Von meinem iPhone gesendet" is no claim, which also
    # lets the signature above it be read as one). Greetings the list lacks ("Morning Priya,", "Hi both,",
    # "Olá a todos,"), thanks and apologies in other words ("wir danken Ihnen", "valeu pela mensagem!",
    # "scusi il ritardo"), a mail app's line that ends no letter ("Inviato dal mio smartphone" above a
    # postscript), and job titles and teams in lower-case words no list knows ("Amministratore di
    # condominio", "Gestionnaire locative, Agence du Parc").
    ("de-g3", "read as a claim",
     "herzlichen Dank für Ihre Nachricht und entschuldigen Sie die späte Antwort."),
    ("de-g4", "read as a claim", "Hallo zusammen,"),
    ("de-g4", "read as a claim", "Hausverwaltung König"),
    ("de-g4", "read as a claim", "vielen Dank für die Rückfragen zur Müllabfuhr."),
    ("de-g5", "read as a claim", "oh nein, gute Besserung fürs Knie!"),
    ("de-i1", "read as a claim", "wir danken Ihnen für Ihre Nachricht."),
    ("de-r1", "read as a claim", "Leider liegen mir zu Unfallschäden im Ausland keine Informationen vor."),
    ("de-r1", "read as a claim", "vielen Dank für Ihre Anfrage zu Ihrem E-Bike."),
    ("en-g1", "read as a claim", "We thank you for your enquiry regarding your Easy Access Saver account."),
    ("en-g3", "read as a claim", "Morning Priya,"),
    ("en-g5", "read as a claim", "Hi both,"),
    ("en-r1", "read as a claim",
     "It would be best to check this with one of our advisers, who will be happy to look into it "
     "for you."),
    ("es-g2", "read as a claim", "¡Gracias por escribirnos!"),
    ("es-g3", "read as a claim", "¡Qué alegría volver a saber de ti!"),
    ("es-g4", "read as a claim", "Le deseamos un feliz viaje."),
    ("es-g5", "read as a claim", "Ane, tu asistente de Aguas del Nervión"),
    ("es-g5", "read as a claim", "Gracias por avisarnos."),
    ("es-i1", "read as a claim", "Gestora de banca personal – Banco Levante"),
    ("es-i2", "read as a claim", "Secretaría – Colegio San Fermín"),
    ("es-i2", "read as a claim", "¡Os esperamos!"),
    ("fr-g4", "read as a claim", "Clinique vétérinaire des Tilleuls"),
    ("fr-g4", "read as a claim", "Dr Camille Roux"),
    ("fr-g5", "read as a claim", "Léo, assistant virtuel RailExpress"),
    ("fr-g5", "read as a claim",
     "Nous vous remercions d'avoir pris le temps de nous écrire et vous prions de nous excuser "
     "pour ce retard."),
    ("fr-i2", "read as a claim", "Nous avons bien reçu votre demande et vous en remercions."),
    ("fr-r1", "read as a claim", "Gestionnaire locative, Agence du Parc"),
    ("it-g1", "read as a claim", "Ufficio Relazioni con il Pubblico"),
    ("it-g3", "read as a claim", "Addetta all'accoglienza – Hotel Villa Aurora"),
    ("it-g3", "read as a claim", "Sarà un piacere accoglierVi."),
    ("it-g5", "read as a claim", "Amministratore di condominio"),
    ("it-g5", "read as a claim", "Inviato dal mio smartphone"),
    ("it-g5", "read as a claim", "scusi il ritardo nella risposta."),
    ("it-r1", "read as a claim", "Segreteria didattica – Istituto Comprensivo Leonardo"),
    ("pt-g2", "read as a claim", "Ei Bruno,"),
    ("pt-g2", "read as a claim", "valeu pela mensagem!"),
    ("pt-g4", "read as a claim", "Olá a todos,"),
    ("pt-g4", "read as a claim", "obrigado pelas vossas mensagens."),
    ("pt-g5", "read as a claim", "Que bom receber a tua mensagem!"),
    ("pt-i1", "read as a claim", "Permanecemos à disposição."),
    ("pt-i2", "read as a claim", "lamentamos o sucedido com o seu telemóvel."),
    ("pt-r1", "read as a claim", "Lia, assistente virtual da VoaBrasil"),
    # Facts the pages state in other words, traps after a closing, and salutations or postscripts split at an
    # abbreviation ("Exmo.", "Rag.", "P.S.").
    ("de-g2", "false alarm",
     "Bei 38 Euro Bestellwert berechnen wir 4,95 Euro Versand, ab 50 Euro ist er kostenlos."),
    ("de-g4", "false alarm",
     "Beste Grüße – und denken Sie daran: Sperrmüll darf nicht im Hof abgestellt werden."),
    ("de-g5", "false alarm", "Dafür brauchen wir ein ärztliches Attest."),
    ("en-g5", "false alarm", "P.S."),
    ("es-g2", "false alarm",
     "Todos los productos electrónicos tienen una garantía de tres años, así que tu portátil "
     "sigue cubierto."),
    ("es-g3", "false alarm", "Cada sesión dura 50 minutos."),
    ("fr-g3", "false alarm",
     "Pour connaître le solde restant, il suffit d'entrer le code à 16 chiffres sur notre site."),
    ("it-g2", "false alarm", "Il vestito deve essere integro e con il cartellino."),
    ("it-g3", "false alarm",
     "Il deposito bagagli è gratuito il giorno dell'arrivo, quindi potrà lasciarci le valigie "
     "appena arrivata."),
    ("it-g5", "false alarm", "Ferri,"),
    ("it-g5", "false alarm", "P.S."),
    ("it-g5", "false alarm", "Paolo Conti"),
    ("it-g5", "false alarm", "Rag."),
    ("pt-g1", "false alarm", "Exmo."),
    ("pt-g1", "false alarm", "Senhor,"),
    ("pt-g4", "false alarm", "Um abraço e lembrem-se: o prazo do segundo trimestre termina a 30 de junho."),
    ("pt-g5", "false alarm", "Há ainda uma inscrição com um custo único de 15 €."),
    # A feature given where the page does not: in its own words. (A waiver from "R$ 2.000" a month passed
    # until rules 35 read the amount after "R$" as 2,000, not 2.0.)
    ("fr-i1", "made-up sentence passed", "Le répéteur Wi-Fi est également inclus dans cette offre."),
}


CITATION_STYLES = {
    # Made up in the page's own words, once the citation is read out: an opposite on a page that also states
    # the plain word ("available to Alaska and Hawaii" against "not available"), a benefit or a number from
    # another plan or row. Before rules 17 the first was caught, for the wrong reason: the "88" of "According
    # to KB-88," was a number the page lacked.
    ("attr-i1", "made-up sentence passed",
     "According to KB-88, express shipping is available to Alaska and Hawaii, and it takes 1 to 2 business "
     "days."),
    ("lead-i2", "made-up sentence passed",
     "A \u00a375 excess applies to each claim (as stated in ART-00931)."),
    ("multi-i1", "made-up sentence passed",
     "On a Standard policy, baggage is covered up to \u00a31,500 in total (ART-00931, para. 4), with a "
     "single-item limit of \u00a3500 (ART-00931, para. 4)."),
    ("paren-i2", "made-up sentence passed",
     "Dental check-ups twice a year are covered too (HR-BEN-2024, section 2)."),
    ("works-i1", "made-up sentence passed",
     "Medical freezes are limited to 3 months per contract year (faq_12)."),
    # Paraphrase and inference: "a two-month freeze is fine", "reading the data back ... records", "the main
    # thing to act on now" (the last passed before rules 17 only by its page's title, which holds the id the
    # sentence cited).
    ("multi-g2", "false alarm",
     "The main thing to act on now is notice: you need to tell your manager and the People Team in writing "
     "at least 8 weeks before your leave begins."),
    ("multi-g3", "false alarm",
     "When reading the data back, you can request up to 100 records per page with `limit`."),
    # "non-members" read as the opposite of the page's "members".
    ("multi-g1", "false alarm",
     "For non-members, standard shipping costs $6.95 unless your order is over $75, and returning an item "
     "costs $5.95, which is taken off your refund."),
    # Two products compared in one sentence, each from its own page: no one context holds both numbers.
    ("prod-g2", "false alarm",
     "The [X-200](https://shop.example.com/products/x-200) is lighter, at 8.2 kg against 12.5 kg, and it "
     "comes with a 480 ml milk jug."),
    ("works-i2", "false alarm",
     "The X-200 has a 2-year warranty (3 years if registered), and the X-300 has 3 years (5 if registered)."),
    ("works-i2", "false alarm", "The X-200 heats up in 30 seconds, while the X-300 is ready in 3 seconds."),
    # An id as the sentence's subject ("faq_13 says ...") or after "per" is content: it is as often an error
    # code, a version or a product ("E-1001 indicates ...", "$5 per SKU-12"), which a review showed read out
    # to let made-up sentences pass.
    ("attr-g5", "false alarm",
     "However, faq_13 says guest visits aren't available between 5 pm and 8 pm on weekdays, so an after-work "
     "visit in that window won't be possible."),
    ("attr-i1", "false alarm",
     "Express costs $14.95, and orders placed before 2 pm Eastern ship the same day, per KB-88."),
    # A citation before "and" is within its clause, where an id may be what the sentence says.
    ("works-g1", "false alarm",
     "As a Northwind Plus member, you get free standard shipping (KB-88) and free return postage."),
    # A lead-in naming its source by a link inside the clause, with the id's digits in the address.
    ("works-g2", "read as a claim",
     "Here's what [KB-1234](https://help.northwind.example/articles/KB-1234) says about exceptions:"),
    # A refusal that goes on to say what its page does cover ("it only talks about ..."): the part after
    # the semicolon says something of its own, as "...; refunds take 5 days." would.
    ("ref-r2", "read as a claim",
     "I'm sorry, but HR-POL-007 doesn't mention foster care; it only talks about birth, adoption and "
     "surrogacy."),
    # A question back to the user.
    ("lead-g1", "read as a claim", "Need it faster?"),
}

CITATION_STYLES_EUROPEAN = {
    # Made up in the page's own words once the citation is read out (a condition dropped, a figure of another
    # plan or limit, an opposite); es-close-i3, es-paren-i2, fr-paren-i2, pt-paren-i1 and it-attr-i3 had been
    # caught only by the citation's own digits, name or words before rules 18 read it out (and de-src-i3,
    # passed before, is caught now).
    ('de-attr-i2', 'made-up sentence passed',
     'Gemäß HR-POL-007 ist mobiles Arbeiten aus der Schweiz an bis zu 20 Arbeitstagen pro Kalenderjahr '
     'erlaubt.'),
    ('es-close-i3', 'made-up sentence passed',
     'Si vuelve a darse de alta en los 6 meses siguientes a la baja, tendrá que pagar una nueva matrícula, '
     'según faq_13.'),
    ('es-paren-i2', 'made-up sentence passed',
     'Sí, todavía está a tiempo: todos los clientes disponen de 30 días naturales desde la recepción del '
     'pedido para devolver cualquier producto (ver politica_devoluciones.pdf, pág. 1).'),
    ('fr-paren-i2', 'made-up sentence passed',
     'La résiliation est sans frais (voir docs/conditions_generales.pdf, art. 7).'),
    ('it-attr-i3', 'made-up sentence passed',
     '**Copertura:** secondo doc-3, i danni da infiltrazioni lente sono coperti quando derivano da '
     "tubazioni dell'impianto."),
    ('it-paren-i2', 'made-up sentence passed',
     'Per i danni da acqua condotta, il massimale è di 20.000 € per sinistro (vedi doc-3, art. 4).'),
    ('pt-close-i3', 'made-up sentence passed',
     'Esse dia tem de ser gozado na data exata do aniversário, conforme HR-POL-007.'),
    ('pt-paren-i1', 'made-up sentence passed',
     'Sim, no plano Essencial tem direito a um veículo de substituição por um máximo de 5 dias em caso de '
     'avaria (ver doc-3, p. 2).'),
    # "Gemäß KB-1234 wird ..." and "..., conforme doc-4.": "gemäß" without a comma and a bare "conforme" are
    # no attribution rules 18 reads ("Gemäß SKU-12 kostet der Versand 25 €.", "conforme NBR-5410" say what a
    # figure is per, what a part complies with).
    ('de-attr-g3', 'false alarm',
     'Gemäß KB-1234 wird allen anderen Kundinnen und Kunden, also auch Ihnen, eine Rücksendegebühr von '
     '4,95 € von der Erstattung abgezogen.'),
    ('pt-close-g4', 'false alarm',
     '**Prazo:** o sinistro deve ser participado no prazo de 8 dias a contar da data do acidente, conforme '
     'doc-4.'),
    # Paraphrase ("30 Tage ab Zustellung Zeit", the user's "8 mois", "restituer" for the page's "restitués",
    # "si solo necesita una pausa"), two products compared in one sentence, and "inclui" read against the
    # page's "não inclui".
    ('de-works-g5', 'false alarm',
     'Falls Sie die Ware zurückschicken möchten, haben Sie dafür 30 Tage ab Zustellung Zeit.'),
    ('es-close-g4', 'false alarm',
     '**Alternativa:** si solo necesita una pausa, también puede congelar su cuota entre 1 y 3 meses por '
     'año de contrato.'),
    ('fr-paren-i2', 'false alarm',
     "N'oubliez pas de restituer la box et le décodeur dans les 30 jours suivant la résiliation."),
    ('it-prod-g6', 'false alarm',
     '**Aspirazione:** il Vesta-S5 ha una potenza di 4.000 Pa, il Vesta-S7 di 6.000 Pa.'),
    ('it-prod-g6', 'false alarm',
     '**Autonomia:** il Vesta-S5 arriva fino a 120 minuti, mentre il '
     '[Vesta-S7](https://www.casalux.it/prodotti/vesta-s7) arriva fino a 180 minuti.'),
    ('it-prod-g6', 'false alarm',
     '**Prezzo:** il prezzo consigliato è di 399 € per il Vesta-S5 e di 699 € per il Vesta-S7.'),
    ('it-prod-g6', 'false alarm',
     '**Svuotamento:** il Vesta-S7 è venduto con la stazione di svuotamento automatico, che non è '
     'compatibile con il Vesta-S5.'),
    ('pt-close-g4', 'false alarm',
     '**Veículo de substituição:** em caso de acidente, o plano Premium inclui um veículo de substituição '
     'por um máximo de 15 dias.'),
    # Courtesies no wrapper rule reads in these words.
    ('de-close-g6', 'read as a claim', 'Schreiben Sie mir gerne, wenn Sie Hilfe beim Antrag brauchen.'),
    ('es-works-g6', 'read as a claim', 'Si necesita ayuda con la solicitud, dígamelo.'),
    ('it-paren-g2', 'read as a claim', 'Se ha bisogno di aiuto con la denuncia, sono qui.'),
    ('it-ptr-g5', 'read as a claim', 'Mi dispiace non avere notizie migliori.'),
    ('pt-close-i3', 'read as a claim', 'Lamento não ter melhores notícias.'),
}

REFUSALS_CITING = {
    # Negative claims about a product, an error code, a plan or a version named by its id, in the page's
    # own words where the page says the opposite: what a lexical judge cannot see. Each stays a claim.
    ("rc-ctl-i01", "made-up sentence passed",
     "SKU-4412 doesn't come with a carry case, so you'd need to buy one separately."),
    ("rc-ctl-i02", "made-up sentence passed",
     "E-1001 doesn't pause scheduled backups, so tonight's backup will still run."),
    ("rc-ctl-i03", "made-up sentence passed",
     "Unfortunately, Plan-B doesn't include optical cover, so glasses aren't reimbursed."),
    ("rc-ctl-i04", "made-up sentence passed",
     "v3.2 doesn't support Python 3.13 yet; it supports Python 3.9 to 3.12."),
    ("rc-ctl-i05", "made-up sentence passed",
     "The AX-3000 doesn't have a USB port, so you can't share a printer through it."),
    ("rc-part-i01", "made-up sentence passed", "Shipping to Alaska is free on every order (KB-88)."),
    # A refusal that goes on to answer is a claim, judged whole: made up in the page's words, or grounded
    # with the refusal's own words ("in-store pickup") unsupported beside it.
    ("rc-part-i06", "made-up sentence passed",
     "HR-POL-007 doesn't mention fostering, but foster carers get the same 16 weeks at full pay as adoptive "
     "parents."),
    ("rc-part-g06", "false alarm",
     "KB-88 doesn't mention in-store pickup, but orders to Alaska go by standard shipping and take 7 to 10 "
     "business days."),
    # An inference from the page (a dual-band router reached on 5 GHz) and a bullet that leans on the one
    # before it ("6 weeks" is the secondary carer's).
    ("rc-ctl-g05", "false alarm", "Your laptop will still connect to it on 5 GHz."),
    ("rc-part-g02", "false alarm", "**Leave:** 6 weeks at full pay."),
    # Refusals by what the ids do not "cover", or only cover: said of a plan or a product ("Neither SKU-1
    # nor E-1 covers water damage.", "Water damage isn't covered in Plan-B."), they are claims to judge.
    ("rc-ref-r02", "read as a claim", "Neither KB-1234 nor KB-88 covers price matching."),
    ("rc-ref-r05", "read as a claim", "Guest passes aren't covered in faq_12."),
    ("rc-ref-r06", "read as a claim",
     "KB-1234 and KB-88 only cover returns and shipping, not gift wrapping."),
    # A list of sources under another label.
    ("rc-ref-r12", "read as a claim", "**Sources checked:** chunk_0042, chunk_0043"),
    # "[faq_12] y [faq_13]," in a clause: the second, before the comma, reads as a citation ending it, and
    # "ninguno habla" (none speaks of) is no refusal the Spanish cues know.
    ("rc-ref-es2", "read as a claim", "He revisado [faq_12] y, pero ninguno habla del servicio de toallas."),
}


REFUSALS_CITING_2 = {
    # Written after rules 19's first version and apart from it (held out: 39 -> 26 wrong on the version
    # reviewed; three forms it showed were then read, 26 -> 23). Negative claims about cards, versions,
    # plans and models in the page's own words, and made-up bullets in them: what a lexical judge cannot
    # see. Each stays a claim.
    ("rc2-ctl-i1", "made-up sentence passed",
     "Visa-Gold doesn't charge a fee for cash withdrawals abroad either, so taking out cash in the US costs "
     "you nothing extra."),
    ("rc2-ctl-i3", "made-up sentence passed",
     "**Display:** the Model-Q5 doesn't show your remaining range, only the speed, assistance level and "
     "battery level."),
    ("rc2-ctl-i4", "made-up sentence passed",
     "However, v4.8 doesn't support password-protected links on any plan, so anyone with the link can open "
     "the note."),
    ("rc2-ctl-i5", "made-up sentence passed",
     "Volta-Lite doesn't cap your speed, so streaming in HD should be no problem."),
    ("rc2-ctl-i6", "made-up sentence passed",
     "The Model-Q7's 625 Wh battery isn't removable, because it's built into the down tube, so you'd need to "
     "bring the whole bike inside to charge it."),
    ("rc2-part-i4", "made-up sentence passed",
     "**Direct debits:** freezing or cancelling the card stops your direct debits, so you'll need to set "
     "them up again."),
    ("rc2-part-i5", "made-up sentence passed",
     "Offline notebooks sync automatically every 15 minutes once you're back online."),
    # A refusal joined by "but" to the page's fact, judged whole; "you haven't lost anything" for the page's
    # "no data on your disks is affected".
    ("rc2-part-g5", "false alarm",
     "ART-1142 doesn't mention monthly payments, but permits can be bought for 6 or 12 months, with 6-month "
     "permits costing 60% of the annual price."),
    ("rc2-ctl-g2", "false alarm", "No, you haven't lost anything."),
    # Suggestions of someone to ask with a number to call or a step in the app: what a party will do, or
    # where to find it, is a claim. (Rules 21 read "... should know", "... would be the place to ask" and
    # "**What I'd suggest:** ask ...", fitted to this corpus.)
    ("rc2-de-01", "read as a claim",
     "Fragen Sie am besten bei der Terminvereinbarung unter 115 nach, ob beides in einem Termin möglich "
     "ist."),
    ("rc2-it-01", "read as a claim",
     "Le consiglio di chiamare lo 02 4455 6677 per chiedere se il Poliambulatorio San Marco offre questo "
     "servizio."),
    ("rc2-part-g7", "read as a claim",
     "The Community team can look into it if you message them in the app under Help > Bookings."),
    ("rc2-ref-06", "read as a claim", "It's probably best to call the surgery on 020 7946 0321 and ask."),
    # What the pages do cover, said of them by a pronoun or by "neither" after the clause naming them; an
    # id in an aside ("POL-3.4, on courtesy cars, ..."); "né nella [pagina](...) né in chunk-4 trovo" (I
    # find), a search no Italian pattern reads; a pointer for "what it does cover".
    ("rc2-ref-02", "read as a claim",
     "They cover borrowing, renewals, overdue charges, reservations and interlibrary loans, but not digital "
     "lending."),
    ("rc2-ref-03", "read as a claim",
     "From section-4 I can only see the application fee and the deadlines, and section-7 is about English "
     "language requirements."),
    ("rc2-ref-05", "read as a claim", "POL-3.4, on courtesy cars, doesn't mention European cover either."),
    ("rc2-ref-06", "read as a claim",
     "Those pages cover booking appointments and repeat prescriptions, not which treatments Brookside "
     "offers."),
    ("rc2-ref-08", "read as a claim",
     "Both describe quotas per project and region, but neither covers transfers."),
    ("rc2-it-01", "read as a claim",
     "Mi dispiace, ma né nella [pagina sulle prenotazioni](https://help.poliambulatorio.example.it/articoli/"
     "2207) né in chunk-4 trovo informazioni sulle vaccinazioni per i viaggi."),
    ("rc2-ref-09", "read as a claim", "See ART-1142 for what it does cover."),
}


REFUSALS_PLAIN = {
    # Refusals naming no id, as chat models phrase them in six languages, written apart from the code and
    # labelled before the judge ran (held out on rules 23's first version: 48 -> 45 wrong; then fitted, 7;
    # 9 once a review's made-up claims were claims again: "Ninguno de ellos" and "trechos" read no more).
    # Named documents ("Weder die Installationsanleitung noch ..."), a scope before a contrast, a pointer in
    # English that names a desk or a page, one with a relative clause, and a refusal in words of its own
    # ("são omissas"): each stays a claim.
    ("rp-de-refusal-04", "read as a claim",
     "Weder die Installationsanleitung noch die Konfigurationsreferenz erwähnen Single Sign-on oder "
     "Azure AD."),
    ("rp-en-invented-02", "read as a claim",
     "For anything else, the customer service desk at Central Station can help."),
    ("rp-en-refusal-01", "read as a claim",
     "They cover annual leave and sick leave, but paternity leave isn't addressed anywhere."),
    ("rp-en-refusal-06", "read as a claim",
     "The project's release notes or the maintainers' issue tracker would be a good place to check."),
    ("rp-es-refusal-02", "read as a claim",
     "Te sugiero escribir a la secretaría académica de tu facultad, que es quien gestiona estos "
     "trámites."),
    ("rp-es-refusal-06", "read as a claim",
     "Ninguno de ellos menciona la penalización por cancelar la fibra antes de que termine la "
     "permanencia."),
    ("rp-pt-refusal-05", "read as a claim",
     "Nenhum dos trechos fornecidos fala sobre exportação para o formato Parquet."),
    ("rp-pt-refusal-05", "read as a claim",
     "Vale a pena conferir o changelog ou abrir uma issue no repositório do projeto."),
    ("rp-pt-refusal-06", "read as a claim",
     "As condições fornecidas são omissas quanto ao cancelamento da viagem por doença de um familiar."),
}


REFUSALS_PLAIN_2 = {
    # The same in ten other domains, written after rules 23 was fitted to refusals_plain and apart from it:
    # held out, 89 wrong verdicts before rules 23, 81 after, 85 once a review's made-up claims were claims
    # again (verbs of treating only after sources marked as the answerer's; a clause before "quindi" that
    # denies nothing). Refusals in words no pattern knows ("findet sich darin kein Wort", "the topic simply
    # didn't come up", "n'y est tout simplement pas abordée", "é omissa quanto a"), pointers as bare
    # imperatives, list items or a party's promise ("Consulta con tu distribuidora eléctrica.", "Ligue para a
    # clínica para confirmar.", "Sapranno dirti se ..."), a refusal ending in a claim ("..., which means all
    # ages are admitted."), and three claims in words no context holds.
    ("rp2-de-grounded-01", "read as a claim",
     "Einen Bonus für Wärmepumpen erwähnen die Tarifunterlagen dagegen nicht, weder als Rabatt noch als "
     "eigenen Tarif."),
    ("rp2-de-grounded-01", "read as a claim", "Ob es so etwas gibt, kann Ihnen der Kundenservice sagen."),
    ("rp2-de-grounded-02", "read as a claim", "Hierzu geben die vorliegenden Mietbedingungen nichts her."),
    ("rp2-de-invented-01", "read as a claim",
     "Falls Sie darauf angewiesen sind, fragen Sie am besten vorab an der Rezeption nach."),
    ("rp2-de-refusal-01", "read as a claim",
     "Zum Arbeitszimmer oder zur Homeoffice-Regelung findet sich darin kein Wort."),
    ("rp2-de-refusal-02", "read as a claim",
     "Der Kundenservice des Marktplatzes kann Ihnen sagen, welche Möglichkeiten Sie in Ihrem Fall haben."),
    ("rp2-de-refusal-02", "read as a claim",
     "Ich habe in den bereitgestellten Informationen nachgesehen, aber zu Rückgaben bei Privatverkäufern "
     "stand dort nichts."),
    ("rp2-de-refusal-02", "read as a claim",
     "Ich möchte Ihnen hier keine Frist nennen, die sich am Ende als falsch herausstellt."),
    ("rp2-de-refusal-03", "read as a claim", "Frag am besten im Sekretariat der Schule nach."),
    ("rp2-de-refusal-04", "read as a claim", "Rufen Sie am besten in der Praxis an und fragen Sie nach."),
    ("rp2-de-refusal-05", "read as a claim",
     "**Details:** Die Dokumente beschäftigen sich mit Tarifen und der Anmeldung, zum Standort der "
     "Rechenzentren schweigen sie."),
    ("rp2-de-refusal-05", "read as a claim",
     "**Empfehlung:** Wenden Sie sich an den Support oder werfen Sie einen Blick in die "
     "Datenschutzerklärung des Anbieters."),
    ("rp2-de-refusal-06", "read as a claim",
     "beim Ticketanbieter nachfragen, über den Sie die Karte gekauft haben,"),
    ("rp2-de-refusal-06", "read as a claim", "oder sich direkt an den Veranstalter wenden."),
    ("rp2-en-grounded-02", "read as a claim", "**Dental cleaning for cats**"),
    ("rp2-en-grounded-01", "read as a claim",
     "On sibling priority, though, I've come up empty: the admissions information doesn't set out how "
     "places are ranked when the school is oversubscribed."),
    ("rp2-en-grounded-02", "read as a claim",
     "It's worth asking the reception team for a full written estimate."),
    ("rp2-en-invented-01", "false alarm",
     "When the downgrade takes effect at the end of your billing cycle, any data above the 5 GB free "
     "quota makes your account read-only."),
    ("rp2-en-invented-02", "made-up sentence passed",
     "The documents don't list an age restriction for this show, which means all ages are admitted."),
    ("rp2-en-refusal-01", "read as a claim",
     "An energy advisor, or our customer service team, would be the right people to give you an estimate "
     "for your home."),
    ("rp2-en-refusal-01", "read as a claim",
     "Neither the tariff information nor the meter-reading guide says anything about heat pumps or how "
     "new appliances change a bill."),
    ("rp2-en-refusal-02", "read as a claim",
     "I went through the rental terms you shared, and ferry crossings aren't covered anywhere in them."),
    ("rp2-en-refusal-02", "read as a claim",
     "Rather than guess on something that could affect your insurance, I'd leave this one to the people "
     "who manage your booking."),
    ("rp2-en-refusal-02", "read as a claim",
     "The branch where you're collecting the car can confirm whether a crossing to Ireland is allowed "
     "and whether you'd need any extra paperwork."),
    ("rp2-en-refusal-03", "read as a claim", "**Pets policy:** Not covered."),
    ("rp2-en-refusal-03", "read as a claim",
     "The hotel details I can see go into breakfast, check-in times and parking, but animals don't come "
     "up at all."),
    ("rp2-en-refusal-03", "read as a claim",
     "To be sure before you travel, give the reception desk a call or send them a message through your "
     "booking confirmation."),
    ("rp2-en-refusal-04", "read as a claim",
     "I checked the membership and class booking details, but the topic simply didn't come up."),
    ("rp2-en-refusal-05", "read as a claim",
     "No filing deadline for people who moved abroad appears in the provided context."),
    ("rp2-en-refusal-06", "read as a claim",
     "Contact the marketplace's buyer support team and explain that the seller has gone quiet."),
    ("rp2-en-refusal-06", "read as a claim",
     "Keep copies of your messages with the seller in case they're needed."),
    ("rp2-es-grounded-01", "read as a claim",
     "Te conviene confirmarlo con la Agencia Tributaria o con un asesor fiscal."),
    ("rp2-es-invented-01", "made-up sentence passed",
     "No hay ninguna mención a una ruta escolar en la información del centro, porque el colegio no "
     "dispone de transporte propio."),
    ("rp2-es-invented-01", "read as a claim", "Si lo necesitas, consulta en secretaría."),
    ("rp2-es-invented-02", "false alarm", "Esterilizar a una gata cuesta 140 euros."),
    ("rp2-es-invented-02", "made-up sentence passed",
     "Lamentablemente, los documentos no indican cuántos días de observación hacen falta, aunque lo "
     "habitual en la clínica es que pase una noche ingresada."),
    ("rp2-es-refusal-02", "read as a claim",
     "Entiendo la preocupación, pero la hora de finalización del concierto no figura en la información "
     "que me han facilitado."),
    ("rp2-es-refusal-02", "read as a claim",
     "Quizá el promotor del evento o la propia sala puedan darte una hora aproximada de cierre."),
    ("rp2-es-refusal-02", "read as a claim", "Tampoco encuentro nada sobre el transporte público de vuelta."),
    ("rp2-es-refusal-03", "read as a claim", "Consulta con tu distribuidora eléctrica."),
    ("rp2-es-refusal-03", "read as a claim", "Los documentos no recogen cortes programados."),
    ("rp2-es-refusal-04", "read as a claim",
     "**Siguiente paso:** Pregunta en la oficina de recogida antes de salir, sobre todo si vas a "
     "circular por puertos de montaña."),
    ("rp2-es-refusal-05", "read as a claim", "Disculpe las molestias."),
    ("rp2-es-refusal-05", "read as a claim",
     "Le sugiero que se ponga en contacto con la recepción del hotel, donde podrán indicarle si ofrecen "
     "este servicio o recomendarle alguna alternativa."),
    ("rp2-es-refusal-06", "read as a claim",
     "No encontré en el contexto proporcionado ninguna norma sobre la edad mínima ni sobre el acceso de "
     "menores."),
    ("rp2-es-refusal-06", "read as a claim", "o escribe al servicio de atención al socio."),
    ("rp2-es-refusal-06", "read as a claim", "pregunta en la recepción del gimnasio,"),
    ("rp2-fr-grounded-01", "read as a claim",
     "Pour la piscine, en revanche, je ne peux pas vous répondre : les informations de l'hôtel n'en "
     "parlent pas."),
    ("rp2-fr-refusal-01", "read as a claim",
     "La question des repas sans porc n'y est tout simplement pas abordée."),
    ("rp2-fr-refusal-02", "read as a claim",
     "Appelez sans attendre la clinique ou un vétérinaire de garde : ils sauront vous dire quoi faire "
     "selon le poids de votre chien et la quantité de chocolat."),
    ("rp2-fr-refusal-02", "read as a claim",
     "Les documents de la clinique que j'ai sous les yeux ne traitent pas de ce genre de situation, et "
     "je ne veux pas vous donner une réponse approximative sur un sujet aussi sérieux."),
    ("rp2-fr-refusal-04", "read as a claim", "**Placement :** information introuvable."),
    ("rp2-fr-refusal-04", "read as a claim",
     "Rien, dans les éléments transmis, n'indique si les places de ce concert sont numérotées ou en "
     "placement libre."),
    ("rp2-fr-refusal-06", "read as a claim",
     "Je n'ai malheureusement rien trouvé sur la restitution du véhicule dans une autre agence."),
    ("rp2-fr-refusal-06", "read as a claim", "contactez l'agence où vous avez réservé ;"),
    ("rp2-fr-refusal-06", "read as a claim", "ou adressez-vous au service client du loueur."),
    ("rp2-it-grounded-01", "read as a claim",
     "Quanto alla possibilità di fissare un limite di spazio per ciascun membro, la documentazione che "
     "ho non ne fa cenno."),
    ("rp2-it-grounded-02", "false alarm", "I cancelli aprono alle 17:00."),
    ("rp2-it-grounded-02", "read as a claim",
     "Su questo punto le informazioni disponibili tacciono, quindi non posso dirti se è consentita."),
    ("rp2-it-invented-01", "read as a claim",
     "Per sicurezza, puoi comunque chiedere conferma al servizio clienti."),
    ("rp2-it-invented-02", "read as a claim", "Se ti serve un'automatica, è meglio chiederlo all'agenzia."),
    ("rp2-it-refusal-02", "read as a claim",
     "Ho cercato nei documenti che mi sono stati forniti, ma non ho trovato nulla che riguardi l'accesso "
     "ad altre sedi."),
    ("rp2-it-refusal-02", "read as a claim",
     "Non vorrei darti un'indicazione sbagliata, quindi ti suggerisco di chiedere alla reception della "
     "tua palestra o di scrivere al servizio clienti della catena."),
    ("rp2-it-refusal-02", "read as a claim", "Sapranno dirti se il tuo abbonamento è valido anche altrove."),
    ("rp2-it-refusal-04", "read as a claim",
     "Il contesto fornito non dice quali metodi di pagamento accetti il marketplace."),
    ("rp2-it-refusal-04", "read as a claim",
     "Puoi controllare nella pagina di pagamento al momento dell'ordine oppure chiedere all'assistenza "
     "clienti."),
    ("rp2-it-refusal-05", "read as a claim",
     "Per un dato aggiornato conviene chiedere direttamente alla segreteria didattica."),
    ("rp2-it-refusal-06", "read as a claim", "chiedere al veterinario durante la prossima visita;"),
    ("rp2-it-refusal-06", "read as a claim", "rivolgerti al servizio veterinario della tua ASL."),
    ("rp2-pt-grounded-01", "read as a claim", "Vale confirmar com a locadora antes de planejar a viagem."),
    ("rp2-pt-grounded-02", "read as a claim",
     "A informação disponível sobre o hotel é omissa quanto a um ginásio."),
    ("rp2-pt-grounded-02", "read as a claim",
     "Se for importante para si, pergunte à receção antes de reservar."),
    ("rp2-pt-invented-01", "read as a claim", "Se quiser detalhes, fale com a recepção."),
    ("rp2-pt-refusal-01", "read as a claim",
     "A central de ajuda do marketplace ou o atendimento ao cliente podem esclarecer essa dúvida."),
    ("rp2-pt-refusal-02", "read as a claim",
     "Como não quero dar-lhe uma resposta errada, sugiro que contacte os serviços administrativos da "
     "escola ou o diretor de turma."),
    ("rp2-pt-refusal-02", "read as a claim",
     "Eles saberão dizer-lhe que ofertas existem para o próximo ano letivo."),
    ("rp2-pt-refusal-03", "read as a claim", "Ligue para a clínica para confirmar."),
    ("rp2-pt-refusal-03", "read as a claim", "O atendimento aos domingos não aparece no contexto fornecido."),
    ("rp2-pt-refusal-04", "read as a claim",
     "**O que fazer:** consulte a central de ajuda ou abra um chamado com o suporte técnico."),
    ("rp2-pt-refusal-04", "read as a claim",
     "**Por quê:** os documentos recuperados não tratam de limite por arquivo."),
    ("rp2-pt-refusal-05", "read as a claim",
     "Infelizmente, não consegui localizar nas informações que recebi nada sobre o que acontece com os "
     "ingressos em caso de adiamento."),
    ("rp2-pt-refusal-06", "read as a claim",
     "Nada nos documentos que tenho indica quais são as condições de acesso à tarifa social."),
    ("rp2-pt-refusal-06", "read as a claim", "contacte o seu comercializador de eletricidade;"),
    ("rp2-pt-refusal-06", "read as a claim", "ou informe-se junto da Segurança Social."),
}


REFUSALS_PLAIN_3 = {
    # Ten more domains, written apart from the code to hold out a learned reader of refusals and pointers
    # (README "Rules tried and not kept": it read more, 56 -> 43 and then 51, but hid claims). Refusal
    # answers with no claim 8 of 36: refusals in words no pattern knows ("Kastrationen werden darin an
    # keiner Stelle erwähnt.", "Non vorrei inventarmi una risposta."), a contrast after an apology ("Je
    # suis désolé, mais ..."), pointers as bare imperatives ("Meglio informarsi in biglietteria.").
    ("rp3-de-invented-01", "false alarm",
     "Für den Anschluss wird einmalig ein Bereitstellungspreis von 69,95 Euro berechnet, bei "
     "Online-Abschluss entfällt er derzeit."),
    ("rp3-de-refusal-01", "read as a claim", "Kastrationen werden darin an keiner Stelle erwähnt."),
    ("rp3-de-refusal-03", "read as a claim",
     "Eine unabhängige Finanzierungsberatung oder Ihr Bankberater kann das gemeinsam mit Ihnen "
     "durchrechnen."),
    ("rp3-de-refusal-04", "read as a claim", "Daunenjacken tauchen in der Preisliste nicht auf"),
    ("rp3-de-refusal-04", "read as a claim", "auch sonst gibt es keine Angaben dazu"),
    ("rp3-de-refusal-05", "read as a claim",
     "**Hinweis:** Die Hausordnung, die Sie mir gegeben haben, enthält keine Regelung zu Haustieren."),
    ("rp3-en-refusal-03", "read as a claim",
     "The documents explain how fixed rates and early repayment charges work in general, but they "
     "contain no forecast of interest rates and nothing that would let me recommend one term over the "
     "other."),
    ("rp3-en-refusal-04", "read as a claim", "no turnaround times for silk garments are given"),
    ("rp3-en-refusal-05", "read as a claim",
     "Hmm, nothing in the membership docs you sent mentions phone booths or call rooms."),
    ("rp3-en-refusal-06", "read as a claim",
     "Please contact the train operator's customer relations team, who can advise you on your specific "
     "case."),
    ("rp3-es-invented-01", "read as a claim", "Para más detalles, pregunta en recepción."),
    ("rp3-es-refusal-02", "read as a claim",
     "Según el contexto proporcionado, no es posible determinar si se concede el distintivo a vehículos "
     "a nombre de una empresa."),
    ("rp3-es-refusal-03", "read as a claim",
     "Pero no tengo ese dato, en lo que me pasaste no se habla del profesorado."),
    ("rp3-es-refusal-03", "read as a claim", "Pregúntalo en secretaría, seguro que te lo aclaran."),
    ("rp3-es-refusal-04", "read as a claim", "no se mencionan sillitas infantiles"),
    ("rp3-es-refusal-04", "read as a claim", "tampoco hay nada sobre llevar pasajeros"),
    ("rp3-es-refusal-05", "read as a claim",
     "No quiero darte una respuesta equivocada, así que prefiero no suponer nada."),
    ("rp3-fr-grounded-01", "read as a claim",
     "En revanche, rien dans ces documents n'indique si vous pouvez conserver votre numéro de téléphone "
     "fixe actuel."),
    ("rp3-fr-invented-02", "false alarm",
     "Les robes de soirée sont traitées sur devis, mais les robes de mariée ne figurent pas dans la "
     "liste de prix que tu m'as transmise."),
    ("rp3-fr-refusal-01", "read as a claim",
     "Je suis désolé, mais les conditions générales que vous avez partagées ne précisent rien sur un âge "
     "limite à la souscription."),
    ("rp3-fr-refusal-02", "read as a claim",
     "Tu peux demander directement au service stationnement de la mairie."),
    ("rp3-fr-refusal-03", "read as a claim",
     "**Réponse :** les extraits fournis ne mentionnent ni préparation au TOEIC ni cours le samedi."),
    ("rp3-fr-refusal-05", "read as a claim", "Il faudrait voir avec l'équipe d'accueil de l'espace."),
    ("rp3-fr-refusal-06", "read as a claim",
     "Pour une réponse fiable, adressez-vous à un guichet en gare ou au service client de la région."),
    ("rp3-it-grounded-02", "read as a claim",
     "**Smarrimento:** gli estratti non dicono cosa succede se l'abbonamento viene smarrito, quindi su "
     "questo punto non posso risponderti."),
    ("rp3-it-invented-01", "read as a claim", "Ti conviene comunque verificarlo con l'assicurazione."),
    ("rp3-it-refusal-02", "read as a claim", "Bella domanda, ma purtroppo qui non posso aiutarti."),
    ("rp3-it-refusal-02", "read as a claim",
     "Le condizioni d'uso che mi hai condiviso non parlano di multe o sanzioni stradali."),
    ("rp3-it-refusal-02", "read as a claim", "Prova a scrivere al servizio clienti del bike sharing."),
    ("rp3-it-refusal-03", "read as a claim", "A chi chiedere: al servizio tecnico del tuo operatore"),
    ("rp3-it-refusal-03", "read as a claim", "Eventuali costi: non indicati"),
    ("rp3-it-refusal-05", "read as a claim", "Non sono quindi in grado di darle un consiglio affidabile."),
    ("rp3-it-refusal-05", "read as a claim",
     "Per una valutazione personalizzata, è bene rivolgersi a un consulente del credito."),
    ("rp3-pt-refusal-03", "read as a claim",
     "Eles não incluem critérios de taxa de esforço nem simulações de montantes."),
    ("rp3-pt-refusal-03", "read as a claim",
     "Lamento, mas não consigo fazer essa estimativa com base nos documentos disponibilizados."),
    ("rp3-pt-refusal-03", "read as a claim", "Não quero arriscar um valor que pode estar errado."),
    ("rp3-pt-refusal-03", "read as a claim",
     "Um intermediário de crédito ou o gestor do seu banco poderá fazer essa simulação consigo."),
    ("rp3-pt-refusal-06", "read as a claim",
     "Procurei nas fontes que partilhou, mas não encontrei qualquer referência a descontos para "
     "estudantes com mais de 23 anos."),
    ("rp3-de-invented-01", "read as a claim", "Genaueres kann Ihnen die Hotline des Anbieters sagen."),
    ("rp3-de-refusal-02", "read as a claim",
     "Frag am besten beim Bürgeramt oder bei der Straßenverkehrsbehörde nach."),
    ("rp3-fr-invented-02", "read as a claim",
     "Le mieux, c'est de passer en boutique pour demander un devis."),
    ("rp3-fr-refusal-04", "read as a claim",
     "Malheureusement, ce que l'on m'a fourni ne couvre pas ce cas de figure."),
    ("rp3-it-grounded-02", "read as a claim", "Meglio informarsi in biglietteria."),
    ("rp3-it-refusal-02", "read as a claim", "Non vorrei inventarmi una risposta."),
    ("rp3-it-refusal-03", "read as a claim",
     "Spostamento della presa: non menzionato nelle informazioni che ho"),
    ("rp3-pt-grounded-01", "read as a claim", "Vale confirmar com a central de atendimento do plano."),
    ("rp3-pt-invented-02", "read as a claim", "Para confirmar, contacte o apoio ao cliente do serviço."),
    ("rp3-pt-refusal-01", "read as a claim",
     "Os documentos fornecidos não tratam de instalações em condomínios."),
    ("rp3-pt-refusal-04", "read as a claim",
     "**Porquê:** o material que me deu não menciona o tratamento de manchas de tinta."),
    ("rp3-pt-refusal-05", "read as a claim", "Pelo que consta no contexto fornecido, não dá para saber."),
    ("rp3-pt-refusal-06", "read as a claim", "Não lhe consigo dar uma resposta segura sobre isso."),
    ("rp3-de-refusal-04", "read as a claim", "Am besten einfach im Laden nachfragen."),
    ("rp3-en-refusal-01", "read as a claim",
     "The engineer or the provider's installation team would be the best people to ask before the "
     "appointment."),
    ("rp3-en-refusal-04", "read as a claim",
     "It's probably worth popping into the shop and asking at the counter."),
    ("rp3-es-grounded-02", "read as a claim", "Puedes preguntarlo directamente en el mostrador."),
    ("rp3-pt-refusal-04", "read as a claim",
     "**O que pode fazer:** levar a camisa à loja e perguntar ao balcão."),
}


CHATTY_ANSWERS_7 = {
    # A seventh red team (sixty-fifth session), writing blind, in 50 domains none of the earlier sets used:
    # 50 answers (12 in five other languages), 177 sentences labelled no claim, 20 made-up sentences.
    # Measured once, at scoring rules 39 (f092c78), before any rule saw it: 32 of its no-claims read as
    # claims, 130 false alarms, 14 of 20 made-up sentences caught (the sixth set, at the session before
    # its rules: 100, 152, 12). Not trained on (`wrapper_training.HELD_OUT`).
    # Made up in the page's own words: a step, a condition or an exception added, a "cannot" made "can".
    ("de-i1", "made-up sentence passed",
     "Bitte senden Sie die Chipkarte nach Ablauf des Abos an uns zurück."),
    ("en-i12", "made-up sentence passed",
     "That interest is waived if you pay off your full balance by the due date."),
    ("en-i14", "made-up sentence passed",
     "You can postpone once free of charge with at least 9 months' notice, and your new date keeps your "
     "original price even if it falls in a pricier season."),
    ("en-i15", "made-up sentence passed",
     "Items you pack yourself are covered in exactly the same way as anything our team packs."),
    ("en-i3", "made-up sentence passed",
     "Staff can reheat the food for him on the ward as long as it's in a labelled container."),
    ("en-i9", "made-up sentence passed",
     "If the bay was full when you arrived, the fee is waived once you send us a photo showing it."),
    # No claims read as claims: courtesies, pointers, disclaimers, lead-ins and headings no rule reads.
    ("de-g1", "read as a claim", "**Kann dein Mitbewohner es abholen?**"),
    ("de-g1", "read as a claim", "**Wie lange bleibt dein Paket liegen?**"),
    ("de-r1", "read as a claim",
     "Bitte wenden Sie sich mit Ihrem Abholschein direkt an Ihre Filiale oder an unseren Kundenservice, "
     "damit der Schaden geprüft werden kann."),
    ("en-g11", "read as a claim", "Applying well ahead of February is the safest plan."),
    ("en-g13", "read as a claim", "This is general information, not financial advice."),
    ("en-g2", "read as a claim", "Let's walk through it with your numbers."),
    ("en-g2", "read as a claim",
     "Would you like help working out whether that 30% threshold applies to you?"),
    ("en-g4", "read as a claim",
     "Here's what each plan would cost for your team, including the 10% discount for 3+ people on the same "
     "plan:"),
    ("en-g5", "read as a claim",
     "This is general information rather than personal tax advice, so if your situation gets complicated "
     "it's worth speaking to an accountant."),
    ("en-g5", "read as a claim", "Your key dates for 2024/25 are:"),
    ("en-g6", "read as a claim",
     "If you're unsure whether taking on the extra module is a good idea, your academic advisor is the "
     "best person to talk it through with."),
    ("en-g9", "read as a claim", "**Switzerland (4 days)**"),
    ("en-g9", "read as a claim", "**Turkey (10 days)**"),
    ("en-g9", "read as a claim", "**Your safety net** 🛡️"),
    ("en-g9", "read as a claim", "If you have any questions while you're away, just drop us a message."),
    ("en-i10", "read as a claim", "**With a pass**"),
    ("en-i10", "read as a claim", "**Without a pass**"),
    ("en-i14", "read as a claim", "**If you need to postpone**"),
    ("en-i2", "read as a claim", "**Sunday prices with a Millbrook Card (20% off):**"),
    ("en-r1", "read as a claim",
     "It's best to check with the driving test booking service before you cancel, so you don't risk losing "
     "your fee."),
    ("en-r2", "read as a claim",
     "I'm not able to see whether your laptop has been handed in, and I don't have access to report "
     "reference numbers."),
    ("en-r3", "read as a claim",
     "For an update on your place in the queue, the council's allotments officer is the best person to ask."),
    ("en-r5", "read as a claim",
     "Please get in touch with the race organisers directly to ask about transfer or deferral options."),
    ("en-r7", "read as a claim",
     "For the refund question, please call the clinic directly so they can look at her purchase."),
    ("en-r8", "read as a claim", "**What the payout pages do say**"),
    ("en-r8", "read as a claim",
     "For whether you need to declare your £4,200, HMRC's guidance or an accountant would be the right "
     "place to check."),
    ("fr-g1", "read as a claim",
     "Les garanties pouvant évoluer d'une année à l'autre, pensez à consulter votre tableau de garanties "
     "chaque année."),
    ("fr-i1", "read as a claim", "**Pour la natation** 🏊"),
    ("fr-r1", "read as a claim",
     "Pour vos colis Amazon, je vous conseille de mettre à jour votre adresse dans votre compte Amazon et "
     "de vous renseigner auprès de leur service client."),
    ("pt-i1", "read as a claim", "**Para o seu filho**"),
    ("pt-i1", "read as a claim", "**Se o mar estiver ruim**"),
    ("pt-i1", "read as a claim", "**Se você precisar desmarcar**"),
    # False alarms: sums, products and percentages worked out from the page and the user's own figures,
    # dates counted from theirs, tables of figures, paraphrase, and talk to the user the writer labelled a
    # claim ("Have an amazing trip!", "🐾 Lovely to hear Miso is coming in to see us.").
    ("de-g1", "false alarm",
     "Da du erst am Dienstag zurück bist, wäre es dann schon in der nächsten Filiale, wo es noch 7 "
     "Werktage abholbereit ist."),
    ("de-g1", "false alarm",
     "Wenn dein Paket am Montag eingeliefert wurde, liegt es also bis einschließlich nächsten Montag dort."),
    ("de-i1", "false alarm",
     "Damit Ihr Abo zum 30. Juni endet, muss Ihre Kündigung bis spätestens **10. Juni** bei uns eingehen."),
    ("de-i1", "false alarm",
     "Geht sie später ein, wird sie erst zum Ende des Folgemonats wirksam, also zum 31. Juli."),
    ("de-r1", "false alarm",
     "Sie enthalten nur unsere Preisliste, nach der die Reinigung eines Mantels 14,90 € kostet, sowie die "
     "Regeln zur Abholung und Aufbewahrung."),
    ("en-g1", "false alarm",
     "As a Healthy Pet Club member you get 10% off, so that's £135 − £13.50 = **£121.50**."),
    ("en-g1", "false alarm", "🐾 Lovely to hear Miso is coming in to see us."),
    ("en-g10", "false alarm",
     "**Charge today:** 6 seats × $96 × 6/12 = **$288**, taken immediately from the card on file."),
    ("en-g10", "false alarm",
     "Adding 6 seats on 1 August leaves 6 full months until your 1 February renewal, so they're prorated "
     "at half the annual price."),
    ("en-g10", "false alarm",
     "Your pooled storage goes from 50 TB to 62 TB, at 2 TB per seat across 31 seats."),
    ("en-g11", "false alarm",
     "Thailand requires your passport to be valid for at least 6 months from the date you arrive, and "
     "yours expires on 3 March — less than two weeks after you land on 20 February."),
    ("en-g12", "false alarm",
     "If the battery turns out to be the problem, though, batteries are only covered in the first 12 "
     "months, and you're at 14."),
    ("en-g13", "false alarm", "Amount over the allowance: £25,000 − £18,200 = £6,800"),
    ("en-g13", "false alarm", "ERC: £6,800 × 3% = **£204**"),
    ("en-g13", "false alarm",
     "If you pay by debit card, the maximum is £20,000 per payment, so a single £25,000 payment would need "
     "to go by bank transfer instead."),
    ("en-g13", "false alarm",
     "The allowance is based on the balance on your product anniversary, so with £182,000 at your March "
     "anniversary, you can overpay **£18,200** without a charge until your next anniversary."),
    ("en-g13", "false alarm",
     "Unused allowance doesn't carry over, but it does reset on each anniversary, so another option is to "
     "overpay £18,200 now and the remaining £6,800 after next March, when a new allowance applies."),
    ("en-g14", "false alarm", "Here's how that looks on your £34,000 salary:"),
    ("en-g14", "false alarm", "So for an extra £340 a year from you, the company puts in an extra £1,020."),
    ("en-g14", "false alarm", "| At 6% | £2,040 | £2,040 (6%) | £4,080 |"),
    ("en-g14", "false alarm", "| Now (5%) | £1,700 | £1,020 (3%) | £2,720 |"),
    ("en-g15", "false alarm",
     "As a Silver member, your points don't expire for as long as you hold Silver status or higher, so "
     "your last stay in January 2024 doesn't affect them."),
    ("en-g15", "false alarm", "I'm happy to help you look at Category 3 options if that's useful."),
    ("en-g15", "false alarm", "Peak: 50,000 points — you'd be 11,500 points short"),
    ("en-g15", "false alarm", "Standard: 40,000 points — you'd be **1,500 points short**"),
    ("en-g2", "false alarm",
     "Clearwell charges metered homes in four parts: water supply at £1.62 per m³, wastewater at £1.48 per "
     "m³ on 95% of the metered volume, and two annual standing charges (£28 for water, £36 for wastewater) "
     "that are split pro rata, so a half-yearly bill carries half of each."),
    ("en-g2", "false alarm", "That's £35.61 less than the £346 on your bill."),
    ("en-g2", "false alarm", "| **Total** | | **£310.39** |"),
    ("en-g2", "false alarm", "| Standing charges | (£28 + £36) ÷ 2 | £32.00 |"),
    ("en-g2", "false alarm", "| Wastewater | 87.4 m³ (95% of 92) × £1.48 | £129.35 |"),
    ("en-g2", "false alarm", "| Water supply | 92 × £1.62 | £149.04 |"),
    ("en-g3", "false alarm",
     "You can rearrange for free in the app or by phone up to 24 hours before your slot, which for "
     "Thursday morning means by 8am on Wednesday 13th."),
    ("en-g4", "false alarm", "| Fixed Desk | £260 | £702 |"),
    ("en-g4", "false alarm", "| Flex 10 | £95 | £256.50 |"),
    ("en-g4", "false alarm", "| Hot Desk Unlimited | £180 | £486 |"),
    ("en-g4", "false alarm",
     "➕ Extra days for Flex members are £15 each, so 3 extra days each would add £135 for the team."),
    ("en-g4", "false alarm", "👋 Love that the three of you are joining us in March."),
    ("en-g4", "false alarm",
     "💡 At 3 days a week you'd each be in roughly 12–13 days a month, which is more than the 10 days Flex "
     "10 includes."),
    ("en-g5", "false alarm",
     "As you didn't send a return last year, you need to register for Self Assessment as a sole trader by "
     "**5 October 2025**."),
    ("en-g5", "false alarm",
     "Because you started in June 2024, your first freelance income is in the 2024/25 tax year, which ran "
     "from 6 April 2024 to 5 April 2025."),
    ("en-g5", "false alarm", "Online return: 31 January 2026"),
    ("en-g5", "false alarm", "Paper return: 31 October 2025"),
    ("en-g5", "false alarm", "Paying any tax you owe: 31 January 2026"),
    ("en-g6", "false alarm",
     "Adding ECON2104's 15 credits would take you to 75 credits, which is the maximum load allowed."),
    ("en-g6", "false alarm",
     "As a home student, overload credits are £310 per 5 credits, so 15 credits would be 3 × £310 = "
     "**£930**, due within 30 days of being added to your student account."),
    ("en-g7", "false alarm",
     "As you don't agree with the £400, your deposit stays protected in the scheme until the dispute is "
     "settled."),
    ("en-g7", "false alarm",
     "Once the dispute is raised, the £750 that isn't in dispute (£1,150 − £400) must be repaid within 5 "
     "working days."),
    ("en-g7", "false alarm",
     "Raise a dispute with the free dispute service — you have 3 months from the end of your tenancy, so "
     "if it ended when you moved out on 2 May, that's until 2 August."),
    ("en-g8", "false alarm",
     "If you book online in advance you save £1 on each paid ticket, which brings it down to **£34**."),
    ("en-g8", "false alarm", "The family ticket is £42, so individual tickets work out cheaper for you."),
    ("en-g8", "false alarm",
     "Your 4-year-old can also try the Little Sailors soft play, which runs 10am–12pm at weekends and is "
     "included in admission."),
    ("en-g8", "false alarm", "| **Total** | | **£37** |"),
    ("en-g8", "false alarm", "| Your 11-year-old | Child | £8 |"),
    ("en-g8", "false alarm", "| Your 4-year-old | Under 5 | Free |"),
    ("en-g8", "false alarm", "| Your mum (68) | Senior | £13 |"),
    ("en-g8", "false alarm", "😊 Sounds like a lovely day out."),
    ("en-g9", "false alarm", "Have an amazing trip!"),
    ("en-g9", "false alarm", "Hey, good news first!"),
    ("en-g9", "false alarm",
     "You're only charged on days you actually use your phone, so 10 days of use would be at most 10 × £6 "
     "= £60."),
    ("en-i1", "false alarm", "The face value of your 2 tickets."),
    ("en-i10", "false alarm",
     "**12 months upfront:** £79, which is much less than £234 a year in delivery charges."),
    ("en-i10", "false alarm", "If you order weekly, that's £18 for 4 deliveries, or £234 over 52 weeks."),
    ("en-i10", "false alarm", "Pass holders can also book slots up to 4 weeks ahead instead of 3."),
    ("en-i10", "false alarm", "Saturday is a peak slot, so delivering a £55 order costs £4.50."),
    ("en-i11", "false alarm",
     "Unfortunately your sister can't join, because everyone on the Family plan has to live at the same "
     "address as the plan manager."),
    ("en-i11", "false alarm", "Your son can definitely have his own profile."),
    ("en-i12", "false alarm", "So paying by card is the cheaper option."),
    ("en-i12", "false alarm", "Using your estimate of £800, that's about £23.92."),
    ("en-i13", "false alarm",
     "Having worked here since February last year, you'll have more than 26 weeks' continuous service, so "
     "you qualify for up to 2 weeks' paternity leave."),
    ("en-i13", "false alarm",
     "You can still change your dates later with 28 days' notice, so it's worth sending the form soon."),
    ("en-i14", "false alarm", "Final guest numbers are due 4 weeks before, on 9 May 2026."),
    ("en-i14", "false alarm",
     "Saturday hire in June is £9,500, and 110 guests is within our 120-seat capacity for the wedding "
     "breakfast."),
    ("en-i14", "false alarm", "| Balance (25%) | £2,375 | 11 April 2026 |"),
    ("en-i14", "false alarm", "| Booking fee (25%, non-refundable) | £2,375 | To secure your date |"),
    ("en-i14", "false alarm", "| Second payment (50%) | £4,750 | 6 December 2025 |"),
    ("en-i14", "false alarm", "💍🎉 6 June 2026 sounds perfect."),
    ("en-i15", "false alarm", "Your £1,800 TV would only be covered up to £750."),
    ("en-i2", "false alarm", "**Total: £9.44**"),
    ("en-i2", "false alarm", "2 juniors: 2 × £2.56 = £5.12"),
    ("en-i2", "false alarm", "Adult: £4.32"),
    ("en-i2", "false alarm", "See you at the pool!"),
    ("en-i2", "false alarm", "Yes, you can bring them both on your own."),
    ("en-i2", "false alarm",
     "👧 Your 6-year-old needs to be accompanied in the water by you, and one adult can supervise up to 2 "
     "children under 8."),
    ("en-i2", "false alarm",
     "🧒 Your 9-year-old can swim without you if they can confidently swim 25 metres; if not, you'll need "
     "to be in the water with them too."),
    ("en-i3", "false alarm",
     "As your children are 13 and 15, the rule that under-12s must be accompanied by an adult doesn't "
     "apply to them."),
    ("en-i3", "false alarm",
     "Only 2 visitors are allowed at the bedside at any one time, so you and your teenagers will need to "
     "take turns."),
    ("en-i3", "false alarm", "Ward 9 is a general ward, so visiting is 11am–8pm every day."),
    ("en-i4", "false alarm",
     "Hep A, typhoid and yellow fever together come to £180, plus £40 if you need the DTP booster."),
    ("en-i4", "false alarm",
     "Rabies is worth considering for a safari, as it's suggested for activities involving animals; the "
     "course is 3 doses over 21 or 28 days, at £70 per dose."),
    ("en-i4", "false alarm", "| DTP booster | £40 | Only if your last booster was more than 10 years ago |"),
    ("en-i4", "false alarm",
     "| Hepatitis A | £55 | Your single dose from 8 years ago can be completed with one booster |"),
    ("en-i4", "false alarm", "🦁 Here's a rundown based on our clinic guidance."),
    ("en-i5", "false alarm", "**Import charges total:** £28.56 + £53.31 = **£81.87**."),
    ("en-i5", "false alarm", "**Total to pay: £93.87.**"),
    ("en-i5", "false alarm", "**VAT:** 20% on goods, shipping and duty: 20% × (£238 + £28.56) = **£53.31**."),
    ("en-i5", "false alarm", "Duty is worked out on goods plus shipping: 12% × £238 = **£28.56**."),
    ("en-i5", "false alarm",
     "It's £12 or 2.5% of the import charges, whichever is higher; 2.5% of £81.87 is about £2.05, so the "
     "£12 applies."),
    ("en-i8", "false alarm", "50% of £7,300 = **£3,650**"),
    ("en-i8", "false alarm", "Tuition excluding the deposit: £7,800 − £500 = £7,300"),
    ("en-i8", "false alarm", "🎉 Let's work out your refund."),
    ("en-i9", "false alarm", "That's the £1.00 unlock plus 4 × £0.16 = £0.64."),
    ("en-i9", "false alarm",
     "⏱️ Photos need to reach us within 48 hours through Help > Report an issue, so it's worth doing that "
     "today."),
    ("en-i9", "false alarm", "👋 Let's sort this out."),
    ("en-i9", "false alarm",
     "💷 As for the £1.64: ride time is rounded up to the next full minute, so your 3½ minutes counted as "
     "4."),
    ("en-r2", "false alarm",
     "Found items are kept for 30 days, and for a laptop you'd need photo ID and proof of ownership, such "
     "as a receipt or the unlock code, plus a £10 collection fee for items worth over £50."),
    ("en-r2", "false alarm",
     "From our lost property information, items are logged within 48 hours of being handed in, so "
     "something lost yesterday evening may not show up yet."),
    ("en-r4", "false alarm",
     "It does cover what to bring for her 2–9 August stay: enough of her usual food, any medication in its "
     "original packaging with written instructions, and her lead and collar with an ID tag."),
    ("en-r4", "false alarm",
     "Please give the kennels team a call to check the vaccination rules before her stay."),
    ("en-r5", "false alarm", "The only related point it covers is that entry fees are non-refundable."),
    ("en-r5", "false alarm", "🏃‍♀️ I hope it heals quickly."),
    ("en-r6", "false alarm",
     "For reference, a 42-week Harper House contract runs from 21 September 2024 to 12 July 2025, so most "
     "of July and all of August fall after it ends."),
    ("es-g1", "false alarm",
     "**En punto de recogida o Correos:** se descuentan 2,95 €, así que recibirías 87,00 €."),
    ("es-g1", "false alarm", "**En tienda:** gratis, así que recuperas los 89,95 € completos."),
    ("es-g1", "false alarm",
     "Como solo devuelves la chaqueta y no el pedido completo, los gastos de envío originales no se "
     "reembolsan."),
    ("es-g1", "false alarm",
     "Tienes 30 días naturales desde la fecha de envío, y tu compra fue hace 20 días."),
    ("es-g1", "false alarm", "¡Sí, todavía estás a tiempo!"),
    ("es-i1", "false alarm",
     "Le conviene adelantarse: puede pasarla hasta 30 días antes del 15 de mayo, es decir, desde el 15 de "
     "abril, sin perder días, porque la nueva fecha se cuenta desde la fecha de caducidad anterior."),
    ("fr-g1", "false alarm", "4 séances × 35 € = **140 €** remboursés"),
    ("fr-g1", "false alarm",
     "Attention, le plafond de 4 séances est commun à toutes les médecines douces : si vous allez aussi "
     "chez un acupuncteur, ces séances compteront dans les 4."),
    ("fr-g1", "false alarm", "Vous payez 4 × 60 € = 240 €, il vous restera donc 100 € à charge."),
    ("fr-i1", "false alarm",
     "Tu verses un acompte de 30 % à l'inscription (267 € si tu prends le transport) et le solde 30 jours "
     "avant le départ."),
    ("fr-i1", "false alarm", "😊 Super choix !"),
    ("it-g1", "false alarm",
     "Avendo più di 65 anni e un reddito familiare di circa 32.000 euro, quindi sotto il limite di "
     "36.151,98 euro, rientra nell'esenzione per reddito con codice **E01**, che copre sia la visita "
     "specialistica sia l'ecocardiogramma."),
    ("it-i1", "false alarm",
     "📅 Il rimborso copre i giorni non utilizzati a partire dal giorno dopo la presentazione del "
     "certificato: se lo presentate il secondo giorno, sono rimborsati 4 giorni su 6."),
    ("pt-g1", "false alarm", "Autoestrada: 0,59 € × 12 = 7,08 €"),
    ("pt-g1", "false alarm", "Mobilidade: 1,09 € × 12 = 13,08 €"),
    ("pt-i1", "false alarm",
     "Com 10 anos, ele precisa de autorização assinada por você e faz as aulas na turma kids, aos sábados "
     "e domingos às 9h."),
    ("pt-i1", "false alarm", "🏄‍♂️ Que legal, vocês dois vão curtir muito!"),
}


CHATTY_ANSWERS_6 = {
    # A sixth red team (sixty-fourth session), writing blind: 50 answers (12 in five other languages) with
    # worked sums, tables, bold headings, medical and legal disclaimers, and chat around facts. Measured at
    # the session's start (c519a75): 100 of its no-claims read as claims, 152 false alarms, 12 of 20 made-up
    # sentences caught; 97 after the session's rules fitted to chatty_answers_5, then 65, 151, 12 at scoring
    # rules 39 (headings in bold, refusals listing what their page covers and sums fitted to this set, then
    # narrowed after three adversarial reviews). Its writer labels some talk to the user as claims ("Give
    # Biscuit a scratch behind the ears from us!"): those count as false alarms here. Not trained on.
    # Made up in the page's own words: a rule moved to another item, a condition or a group added.
    ("en-i1", "made-up sentence passed",
     "The overweight fee is €70 per bag, charged once for the whole round trip."),
    ("en-i12", "made-up sentence passed",
     "Your son might also qualify for the student discount, which gives 50% off the Standard plan."),
    ("en-i13", "made-up sentence passed",
     "He can start socialising with vaccinated dogs in private yards after his second vaccination."),
    ("en-i15", "made-up sentence passed", "You can do up to 4 remote deactivations every 30 days."),
    ("en-i2", "made-up sentence passed", "Eastmere Assist customers also have the reconnection fee waived."),
    ("en-i3", "made-up sentence passed",
     "You'll need to give 30 days' notice and provide proof of your new address."),
    ("en-i8", "made-up sentence passed",
     "Because you're under 25, you'll also need to have held your full licence for at least 3 years."),
    ("it-i1", "made-up sentence passed",
     "Se l'impresa userà l'ascensore per trasportare i materiali, il deposito cauzionale di 200 € va "
     "versato insieme alla comunicazione, almeno 10 giorni prima."),
    # No claims read as claims: courtesies, pointers, disclaimers and headings no rule reads.
    ("en-g10", "read as a claim", "**Per-hour amount**"),
    ("en-i14", "read as a claim", "**Keep in mind**"),
    ("en-i9", "read as a claim", "**About idle fees**"),
    ("en-r8", "read as a claim",
     "The handbook section I have access to explains how PTO is accrued, the balance cap, and how to "
     "request time off, but it doesn't cover what happens to unused PTO when someone leaves the company."),
    ("es-g1", "read as a claim", "**Penalización por permanencia**"),
    ("it-g1", "read as a claim", "**Pagamento a rate**"),
    ("de-g1", "read as a claim", "**Mehrkosten durch die Preiserhöhung**"),
    ("en-g6", "read as a claim", "**Important first — warfarin**"),
    ("en-g9", "read as a claim", "**Your Flexible Rate booking**"),
    ("en-g9", "read as a claim", "**Your parents' Advance Purchase booking**"),
    ("en-i14", "read as a claim", "**What you can redeem now**"),
    ("en-i2", "read as a claim", "**Will you be disconnected in January?**"),
    ("en-i5", "read as a claim", "**On the Premium account**"),
    ("en-i5", "read as a claim", "**On your Everyday account**"),
    ("en-g4", "read as a claim", "**Why you're seeing 429s**"),
    ("en-i12", "read as a claim", "**The fix: Extra Member add-ons ➕**"),
    ("en-i14", "read as a claim", "**Points on the catering order**"),
    ("fr-g1", "read as a claim", "**Pouvez-vous renouveler vos lunettes en 2025 ?**"),
    ("it-i1", "read as a claim", "**Prima di iniziare i lavori**"),
    ("de-g1", "read as a claim", "**Vergleich ab 2026**"),
    ("de-g1", "read as a claim",
     "Bitte beachten Sie, dass es sich um eine Schätzung auf Basis Ihres angegebenen Verbrauchs handelt."),
    ("de-g1", "read as a claim", "Gern rechne ich das für Sie durch."),
    ("de-i1", "read as a claim", "**So beantragst du das**"),
    ("en-g1", "read as a claim",
     "I'd recommend confirming the details with your HR team before making any decisions, since your "
     "personal situation might have nuances I can't see."),
    ("en-g10", "read as a claim",
     "Please check the official Family Services portal for your exact entitlement."),
    ("en-g11", "read as a claim",
     "The article I have doesn't cover how a downgrade affects the other family members' storage, so "
     "please contact support about their 600 GB."),
    ("en-g12", "read as a claim", "Can't wait to see you in April!"),
    ("en-g15", "read as a claim", "Monthly is a good choice if you'd rather not commit."),
    ("en-g15", "read as a claim", "Nice, a bike commute!"),
    ("en-g15", "read as a claim", "Ouch."),
    ("en-g15", "read as a claim", "Quick comparison for 10 classic rides a week at 25 minutes each:"),
    ("en-g3", "read as a claim",
     "This is just a summary, so please check your full policy documents or give our claims team a ring if "
     "anything's unclear."),
    ("en-g6", "read as a claim", "Here's your timeline for an **11 am Thursday** appointment:"),
    ("en-g6", "read as a claim",
     "Hi, thanks for checking ahead — it's completely normal to feel a bit unsure about colonoscopy prep."),
    ("en-g6", "read as a claim",
     "If anything doesn't match the instructions you were given, please follow theirs or call the clinic."),
    ("en-g6", "read as a claim",
     "This information comes from the clinic's general leaflet and isn't a substitute for advice from your "
     "own care team."),
    ("en-g8", "read as a claim", "Ooh, Japan for 3 weeks — amazing!"),
    ("en-i1", "read as a claim",
     "Fees and rules can change, so double-check in Manage Booking before you fly."),
    ("en-i10", "read as a claim", "**Getting extra lisinopril before you go**"),
    ("en-i10", "read as a claim", "Please talk to your pharmacist to get the override started."),
    ("en-i12", "read as a claim", "**Another option for your son 🎓**"),
    ("en-i13", "read as a claim", "Give us a call and we can check what makes the most sense for him."),
    ("en-i14", "read as a claim", "Ooh, a catering box for the office — your coworkers are lucky!"),
    ("en-i15", "read as a claim", "Let's get you up and running on the new one."),
    ("en-i2", "read as a claim",
     "I'd strongly encourage calling our customer care team as soon as you can to talk through what's "
     "possible for you."),
    ("en-i2", "read as a claim",
     "I'm really sorry to hear about your job — that's a stressful time, and I understand wanting to get "
     "ahead of this."),
    ("en-i3", "read as a claim",
     "Honestly though, if you're moving for good, cancelling probably makes more sense!"),
    ("en-i3", "read as a claim",
     "So you're on the 12-Month plan and relocating about 40 miles away — here's the deal:"),
    ("en-i3", "read as a claim",
     "Stop by the front desk or drop us a message if you want help starting the paperwork."),
    ("en-i4", "read as a claim", "Here's how the handbook applies to your situation."),
    ("en-i5", "read as a claim", "I'd suggest comparing against your actual spending before switching."),
    ("en-i6", "read as a claim", "Please check live departures on the day in case of disruption."),
    ("en-i7", "read as a claim",
     "Easiest option: renew what you can online and return the new release as soon as possible."),
    ("en-i8", "read as a claim",
     "Here's what a week-long compact rental in Denver would look like for you two."),
    ("en-i8", "read as a claim",
     "I'd double-check the details on your booking confirmation, as terms can change."),
    ("en-r2", "read as a claim",
     "Thanks for the question — a weekly commute to the airport can definitely add up!"),
    ("en-r3", "read as a claim",
     "The best next step would be to contact the benefits team or call the member services number on your "
     "insurance card and ask specifically about IVF coverage."),
    ("en-r5", "read as a claim",
     "Please call the Kestrel claims line or check your full policy schedule as soon as you can, and in "
     "the meantime it's a good idea to take photos of the damage before throwing anything away."),
    ("en-r6", "read as a claim",
     "For a 7.5m campervan, I'd recommend contacting the Isles Link reservations team directly so they can "
     "quote the right fare."),
    ("es-g1", "read as a claim",
     "Te recomiendo revisar la fecha exacta de alta en tu contrato para calcular el importe con precisión."),
    ("es-i1", "read as a claim",
     "Le recomendamos confirmar las condiciones en el momento de la compra, ya que pueden cambiar."),
    ("es-r1", "read as a claim",
     "Entiendo que 1.200 € es un gasto importante y es normal querer saber si te lo cubren."),
    ("fr-g2", "read as a claim",
     "Si vous devez annuler, je vous conseille donc de le faire avant cette date."),
    ("it-g1", "read as a claim", "Che bello che tu voglia studiare tedesco!"),
    ("pt-r1", "read as a claim",
     "Se tiver outras dúvidas sobre o processo de candidatura, terei todo o gosto em ajudar."),
    # False alarms: sums, dates and cases worked out from the page, paraphrase, tables of figures, and
    ("en-i9", "false alarm", "Session fees: 4 × $1.00 = $4.00"),
    ("it-g1", "false alarm", "Due corsi semestrali: 2 × 420 € = **840 €**"),
    # sentences the red team labelled claims that only talk to the user ("Give Biscuit a scratch").
    ("de-g1", "false alarm", "Bei 2.400 kWh sind das **62,40 € mehr pro Jahr**."),
    ("de-g1", "false alarm",
     "Der Arbeitspreis steigt zum 1. Januar 2026 von 31,2 auf 33,8 Cent/kWh, also um 2,6 Cent."),
    ("de-g1", "false alarm",
     "Mit Fix 24 würden Sie also rund **19,20 € pro Jahr** sparen und hätten zusätzlich eine Preisgarantie "
     "für 24 Monate."),
    ("de-g1", "false alarm", "| Basis | 2.400 × 33,8 Ct = 811,20 € | 154,80 € | **966,00 €** |"),
    ("de-g1", "false alarm", "| Fix 24 | 2.400 × 32,5 Ct = 780,00 € | 166,80 € | **946,80 €** |"),
    ("de-i1", "false alarm", "(50 % gäbe es erst ab 120 Minuten.)"),
    ("de-i1", "false alarm",
     "Bei 3 solchen Fahrten sind das **4,50 €** — knapp über der 4-€-Grenze, ab der ausgezahlt wird."),
    ("de-i1", "false alarm",
     "Bei 95 Minuten Verspätung am Ziel bekommst du 25 % des Fahrpreises zurück, also **9,50 €**."),
    ("de-i1", "false alarm", "👋 Ärgerlich mit der Verspätung — lass uns schauen, was dir zusteht."),
    ("en-g1", "false alarm",
     "**Short answer:** Unfortunately, neither the crown nor your daughter's braces are covered under Core."),
    ("en-g1", "false alarm",
     "👋 Thanks for reaching out — dental surprises are never fun, so let's sort out what your plan does."),
    ("en-g10", "false alarm",
     "Both of you meet the activity test of at least 16 hours per fortnight (you do around 40 hours a "
     "fortnight, and your husband works full time), so you can get up to 72 subsidised hours per fortnight."),
    ("en-g10", "false alarm", "That leaves you paying about **$6.90 per hour** ($15.00 − $8.10)"),
    ("en-g10", "false alarm",
     "With a combined income of around $140,000, you fall in the $85,000–$150,000 band, which means the "
     "scheme covers **60%** of approved fees."),
    ("en-g10", "false alarm",
     "Your centre charges $15/hour, but the subsidy is calculated on the lower of the actual fee or the "
     "hourly cap — and the cap for centre-based day care is $13.50."),
    ("en-g10", "false alarm",
     "Your daughter attends 30 hours a week, or 60 hours a fortnight, which is within that limit."),
    ("en-g11", "false alarm", "The short answer: your files won't be deleted any time soon."),
    ("en-g12", "false alarm",
     "**Early Bird wins** by €489 — and note the group discount can't be combined with Early Bird pricing, "
     "and it only applies to the full passes, not the workshop add-on."),
    ("en-g12", "false alarm", "Great to hear your team wants to join us in Rotterdam!"),
    ("en-g12", "false alarm",
     "| Early Bird (by 31 Jan) | 6 × €590 = €3,540 | 6 × €180 = €1,080 | **€4,620** |"),
    ("en-g12", "false alarm",
     "| Group discount in Feb | 6 × €790 − 15% = €4,029 | 6 × €180 = €1,080 | **€5,109** |"),
    ("en-g13", "false alarm",
     "Permits run until 31 March, so you'll need new ones for the year starting 1 April."),
    ("en-g13", "false alarm",
     "Your building (1998) isn't affected by the post-2015 off-street parking exclusion, so you're "
     "eligible."),
    ("en-g14", "false alarm", "9% of £6,000 = **£540 a year**, which is **£45 a month**"),
    ("en-g14", "false alarm",
     "Any balance left is written off 40 years after the first April you were due to repay — for you, that "
     "would be April 2067."),
    ("en-g14", "false alarm",
     "Repayments begin in the April after you leave your course, so if you graduate in June 2026, your "
     "first repayments would be due from **April 2027**."),
    ("en-g14", "false alarm", "£31,000 − £25,000 = £6,000 above the threshold"),
    ("en-g15", "false alarm",
     "**Annual pass ($150):** unlimited rides up to 60 min — works out to **$12.50 a month**."),
    ("en-g15", "false alarm",
     "**E-bike rides:** these cost extra per minute on every pass — $0.12/min with the monthly pass and "
     "$0.10/min with the annual, so a 25-minute e-bike ride would be $3.00 or $2.50."),
    ("en-g15", "false alarm", "**Pay-per-ride:** $1.25 + (25 × $0.20) = $6.25 per ride → **$62.50 a week**."),
    ("en-g15", "false alarm", "👉 **Annual wins** if you're commuting all year."),
    ("en-g2", "false alarm",
     "However, Computer Science requires a minimum cumulative GPA of 3.2, so a 3.0 would fall short of the "
     "program's threshold, even though it clears the general 2.75 requirement."),
    ("en-g2", "false alarm", "With 30 credits you would exceed the 24-credit minimum."),
    ("en-g3", "false alarm", "Give Biscuit a scratch behind the ears from us!"),
    ("en-g3", "false alarm",
     "Your accident waiting period is just 2 days, and this happened on day 5, so if it's treated as an "
     "accident, it's past the waiting period."),
    ("en-g3", "false alarm", "| Eligible amount | $1,200 |"),
    ("en-g3", "false alarm", "| Pawsure pays 80% | **$960** |"),
    ("en-g3", "false alarm", "| Vet bill | $1,450 |"),
    ("en-g3", "false alarm",
     "✅ If it were classed as an illness instead, though, it would fall inside the 14-day illness waiting "
     "period and wouldn't be covered."),
    ("en-g3", "false alarm", "🐶🧦 I hope he's feeling better now."),
    ("en-g4", "false alarm", "250,000 requests/day is 50,000 over the Pro daily quota."),
    ("en-g4", "false alarm",
     "Each sub-request in a `/v2/batch` call counts individually, so a batch of 50 consumes 50 requests, "
     "not 1."),
    ("en-g4", "false alarm", "Or spread the job out: at 600/min, 200k requests take roughly 5.5 hours."),
    ("en-g4", "false alarm",
     "Short version: batching doesn't reduce your rate-limit usage, and 250k requests exceeds the Pro "
     "daily cap."),
    ("en-g4", "false alarm",
     "Spread over 2 hours (120 minutes), 250k requests averages ~2,083/minute — well above the 600/minute "
     "limit (even the 2x burst allowance, 1,200/minute, only lasts 10 seconds)."),
    ("en-g4", "false alarm",
     "The quota resets at 00:00 UTC, so your job will exhaust it during the 1–3am window."),
    ("en-g4", "false alarm", "otherwise: backoff = 1s, 2s, 4s, ... capped at 32s"),
    ("en-g5", "false alarm",
     "**Why:** The motor on Voltaire stand mixers has a 5-year warranty, so at 2.5 years old you're well "
     "within it."),
    ("en-g5", "false alarm", "Repairs usually take 10–14 business days once they receive the mixer."),
    ("en-g5", "false alarm", "😕 The good news is that this sounds like it should be covered."),
    ("en-g6", "false alarm", "**Thursday 6 am:** second dose (5 hours before your appointment)."),
    ("en-g6", "false alarm", "**Thursday 9 am:** stop drinking anything at all."),
    ("en-g6", "false alarm", "Going alone in a taxi wouldn't meet that requirement."),
    ("en-g6", "false alarm", "This is when you stop eating solid food."),
    ("en-g7", "false alarm", "**Your plan (3 weeks + 3 weeks):** That works under the policy."),
    ("en-g7", "false alarm",
     "With a due date of February 10, 2026, you'd qualify if you started on or before August 10, 2025 — if "
     "your start date was later in August, you may fall just short, so it's worth checking your exact date."),
    ("en-g7", "false alarm", "| Must be used within 12 months of the birth | February + summer 2026 ✅ |"),
    ("en-g7", "false alarm", "| Secondary caregivers get 6 weeks fully paid | 3 + 3 = 6 weeks ✅ |"),
    ("en-g7", "false alarm", "| Up to 2 blocks, each at least 2 weeks | 2 blocks of 3 weeks ✅ |"),
    ("en-g8", "false alarm",
     "Since your whole trip (5th–25th) falls within one bill cycle, the most you'd pay is **10 × $15 = "
     "$150**, even if you use your phone every day."),
    ("en-g9", "false alarm",
     "Unfortunately, Advance Purchase rates are prepaid and non-refundable, so that booking can't be "
     "cancelled for a refund."),
    ("en-i1", "false alarm", "**Estimated total:** €70 for the suitcase, skis free."),
    ("en-i1", "false alarm",
     "**Your 26 kg suitcase:** That's over the 23 kg limit, so it counts as overweight."),
    ("en-i1", "false alarm", "So your skis can use one of those two bag slots."),
    ("en-i1", "false alarm", "✈️ Great question — let's get your ski trip sorted."),
    ("en-i1", "false alarm",
     "💡 Tip: if you can shift 3 kg into your cabin bag (up to 8 kg on Classic), you'd avoid the fee "
     "entirely."),
    ("en-i10", "false alarm",
     "For a 30-day supply filled on Nov 20, that's around day 23, so roughly **December 12–13**."),
    ("en-i11", "false alarm", "So your total would be **£60**."),
    ("en-i11", "false alarm",
     "You'll need to report it within 2 working days of the scheduled collection — so if your collection "
     "was Thursday, report it by the end of Monday at the latest."),
    ("en-i11", "false alarm",
     "Your sofa, mattress and 2 chairs count as 4 items, which falls within the standard booking of up to "
     "5 items for **£35**."),
    ("en-i12", "false alarm",
     "Each one is $5.99/month, so adding both would be **$11.98/month** on top of your $19.99."),
    ("en-i12", "false alarm",
     "Since your sister and your son both live elsewhere, they'd count as outside your household."),
    ("en-i12", "false alarm", "That brings your total to **$31.97/month**."),
    ("en-i12", "false alarm", "🍿 Let's see how that works."),
    ("en-i13", "false alarm", "Can't wait to meet him!"),
    ("en-i13", "false alarm",
     "Paying separately, his two remaining vaccine visits would be $85 each ($170), plus $60 for a "
     "microchip if he doesn't have one — $230 in total."),
    ("en-i13", "false alarm",
     "Since his first shot was at 7 weeks, his second is due at **10–12 weeks** — so within the next few "
     "weeks."),
    ("en-i13", "false alarm",
     "So if his last shot is at 16 weeks, he'd be ready for the dog park at about 17 weeks."),
    ("en-i13", "false alarm", "🐶🐾 How exciting!"),
    ("en-i14", "false alarm",
     "Rewards come in blocks of 1,000 points = $5, so you can redeem **2,000 points for $10** off."),
    ("en-i14", "false alarm", "That would leave you with **750 points**."),
    ("en-i14", "false alarm",
     "Unfortunately, catering orders over $200 don't earn points, so your $240 order won't add any — even "
     "with Double Points Tuesday on the app."),
    ("en-i14", "false alarm", "You have **2,750 points**."),
    ("en-i15", "false alarm",
     "**Why you can't just activate yet**\nA Personal license can be active on up to 2 devices at once, "
     "and right now those two slots are taken by your desktop and the stolen laptop."),
    ("en-i2", "false alarm",
     "Arrangements normally have to be requested *before* a disconnection notice goes out, so since you've "
     "already received one, a standard arrangement may not be available."),
    ("en-i3", "false alarm", "At 40 miles with no club nearby, you should qualify!"),
    ("en-i3", "false alarm", "👋 Exciting news about the move!!"),
    ("en-i4", "false alarm", "*This is general information from the tenant handbook, not legal advice."),
    ("en-i4", "false alarm", "At around 20 kg, a labrador would be over that limit."),
    ("en-i4", "false alarm",
     "If you'd left before 1 August, the fee would have been 4 weeks' rent ($2,080) instead."),
    ("en-i4", "false alarm", "Your 12-month lease started on 1 February, so the halfway point is 1 August."),
    ("en-i4", "false alarm", "Your lease agreement and local tenancy laws take precedence.*"),
    ("en-i4", "false alarm", "| **Maximum total** | **$1,190** |"),
    ("en-i4", "false alarm", "| Break fee (2 weeks' rent × $520) | $1,040 |"),
    ("en-i5", "false alarm",
     "For example, withdrawing the equivalent of $200 would cost $3.50 + $5.50 = $9.00 in fees."),
    ("en-i5", "false alarm",
     "If you'd make 4 withdrawals of $200 a month, that's $36 a month in withdrawal fees on Everyday "
     "versus $0 on Premium."),
    ("en-i6", "false alarm", "**Best option: the 06:42 from Ashford Junction**"),
    ("en-i6", "false alarm",
     "It would arrive at 07:36, but bikes aren't allowed on trains departing between 07:00 and 09:00 "
     "unless they're folding bikes."),
    ("en-i6", "false alarm", "The 06:42 leaves before that window, so your bike is fine on it."),
    ("en-i6", "false alarm",
     "The next stopping train, the 07:24, wouldn't arrive until 08:12 — too late for an 8 am start."),
    ("en-i6", "false alarm", "🤞 Let's get you there on time with your bike."),
    ("en-i7", "false alarm", "📚 Don't worry — this happens to lots of people!"),
    ("en-i8", "false alarm",
     "**$175–$259** depending on whether your boyfriend is added free, plus the $500 hold on your card."),
    ("en-i8", "false alarm", "Additional drivers are normally $12/day, which would be **$84** for the week."),
    ("en-i8", "false alarm", "For 7 days that's **$175** (well under the $250 per-rental cap)."),
    ("en-i9", "false alarm", "**Total: $116.00/month**"),
    ("en-i9", "false alarm", "**Total: $94.99/month**"),
    ("en-i9", "false alarm", "Energy: 200 kWh × $0.44 = $88.00"),
    ("en-i9", "false alarm", "Energy: 200 kWh × $0.56 = $112.00"),
    ("en-i9", "false alarm", "You can cancel Plus anytime, so there's no risk in trying it for a month."),
    ("en-i9", "false alarm", "⚡ Let's run the numbers for 4 DC sessions of ~50 kWh a month."),
    ("en-i9", "false alarm",
     "👉 That's a saving of about **$21/month**, so Plus is worth it for your usage."),
    ("es-g1", "false alarm",
     "Buenas noticias: irte a otro operador por portabilidad no tiene coste de gestión."),
    ("es-g1", "false alarm", "Si no lo devuelves, se te cobrarán 60 €."),
    ("es-g1", "false alarm",
     "Si te das de baja en enero de 2026, habrán pasado unos 6 meses desde julio de 2025, así que te "
     "faltarían aproximadamente 6 meses."),
    ("es-g1", "false alarm", "👋 Gracias por escribirnos, te explico cómo quedaría tu baja."),
    ("es-i1", "false alarm",
     "Como su viaje dura unas 6 horas, su gata no podría viajar en este autocar, aunque cumpla el límite "
     "de 8 kg y vaya en transportín."),
    ("fr-g1", "false alarm", "**Total remboursé : 400 €**, soit un reste à charge de **200 €**."),
    ("fr-g1", "false alarm", "Avec une évolution de 0,75 dioptrie, vous êtes concernée."),
    ("fr-g1", "false alarm",
     "Chez un opticien du réseau partenaire Optivue, vous bénéficiez du tiers payant (pas d'avance de "
     "frais) et de 15 % de remise sur la monture : elle vous reviendrait à 153 €, ce qui ramènerait votre "
     "reste à charge à 173 €."),
    ("fr-g1", "false alarm", "Monture : forfait de **100 €** (sur 180 €)"),
    ("fr-g1", "false alarm", "Verres progressifs : **300 €** (sur 420 €)"),
    ("fr-g2", "false alarm",
     "Entre 60 et 30 jours avant l'arrivée, l'acompte est conservé : vous perdriez donc **252 €**."),
    ("fr-g2", "false alarm",
     "Nous sommes le 20 mai et votre arrivée est prévue le 12 juillet, soit 53 jours avant l'arrivée."),
    ("fr-g2", "false alarm",
     "À moins de 30 jours de l'arrivée (à partir du 12 juin), la totalité du séjour est due, soit **840 "
     "€**."),
    ("fr-i1", "false alarm", "Annuel : 220 €, donc **80 € d'économie** sur l'année 💸"),
    ("fr-i1", "false alarm",
     "Et si tu ne veux pas tout payer d'un coup, l'annuel peut se régler en 10 mensualités de 22 €, sans "
     "frais."),
    ("fr-i1", "false alarm", "Mensuel : 25 €/mois, soit 300 € sur 12 mois"),
    ("fr-i1", "false alarm",
     "Ton employeur doit te rembourser 50 % du prix de ton abonnement, ce qui ramène l'annuel à 110 € pour "
     "toi."),
    ("it-g1", "false alarm",
     "Come studentessa universitaria under 25 avresti diritto al 10%, ma iscrivendoti a due semestri "
     "insieme hai il 15%."),
    ("it-g1", "false alarm",
     "Gli sconti non sono cumulabili, quindi si applica quello maggiore: 840 € − 15% = **714 €**"),
    ("it-i1", "false alarm",
     "Invii una comunicazione scritta all'amministratore almeno 10 giorni prima dell'inizio, indicando il "
     "nominativo dell'impresa e la durata prevista (nel Suo caso, circa 3 settimane)."),
    ("it-i1", "false alarm", "Sabato: solo 9:00–12:00, quindi **il sabato pomeriggio non si può lavorare**"),
    ("pt-i1", "false alarm", "**Guincho: sim, está coberto ✅**"),
    ("pt-i1", "false alarm", "Ligue para o 0800 ou use o app da Vértice."),
    ("pt-i1", "false alarm",
     "No Plano Essencial, o guincho leva até 200 km por acionamento, então os 150 km até sua casa estão "
     "dentro do limite."),
    ("pt-i1", "false alarm", "Uma pane mecânica não se enquadra nessa regra."),
    ("pt-i1", "false alarm",
     "Você tem direito a 3 acionamentos por vigência anual; como já usou 1, este será o segundo e ainda "
     "sobra mais um."),

}


@pytest.mark.parametrize(("corpus", "known"), [
    ("chinese_japanese.jsonl", CHINESE_JAPANESE), ("european.jsonl", EUROPEAN),
    ("european_2.jsonl", EUROPEAN_2), ("european_3.jsonl", EUROPEAN_3), ("european_4.jsonl", EUROPEAN_4),
    ("english_technical.jsonl", ENGLISH_TECHNICAL), ("english_support.jsonl", ENGLISH_SUPPORT),
    ("english_policy.jsonl", ENGLISH_POLICY), ("english_tables.jsonl", ENGLISH_TABLES),
    ("english_fees.jsonl", ENGLISH_FEES), ("english_quotas.jsonl", ENGLISH_QUOTAS),
    ("english_counts.jsonl", ENGLISH_COUNTS), ("english_opposites.jsonl", ENGLISH_OPPOSITES),
    ("citation_styles.jsonl", CITATION_STYLES),
    ("citation_styles_european.jsonl", CITATION_STYLES_EUROPEAN), ("refusals_citing.jsonl", REFUSALS_CITING),
    ("refusals_citing_2.jsonl", REFUSALS_CITING_2), ("refusals_plain.jsonl", REFUSALS_PLAIN),
    ("refusals_plain_2.jsonl", REFUSALS_PLAIN_2), ("refusals_plain_3.jsonl", REFUSALS_PLAIN_3),
    ("chatty_answers.jsonl", CHATTY_ANSWERS),
    ("chatty_answers_2.jsonl", CHATTY_ANSWERS_2),
    ("chatty_answers_3.jsonl", CHATTY_ANSWERS_3), ("chatty_answers_4.jsonl", CHATTY_ANSWERS_4),
    ("chatty_answers_5.jsonl", CHATTY_ANSWERS_5), ("chatty_answers_6.jsonl", CHATTY_ANSWERS_6),
    ("chatty_answers_7.jsonl", CHATTY_ANSWERS_7),
    ("letters.jsonl", LETTERS), ("letters_2.jsonl", LETTERS_2),
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


MOVED_NUMBERS_FLAGGED = {
    # True claims the closest-sentence rule flags (tests/judges/corpora/moved_numbers.jsonl, a red team's
    # hand-written pairs aimed at the rule): a number's role (a "within 30 days" condition, opening hours
    # beside late hours, a free-shipping threshold beside the flat rate), a contrast ("Unlike the Pro
    # plan, ..."), synonyms and abbreviations ("ER", "weekend", "extra users", "Sat."), a bare table cell
    # read as the claim's "4 hours". "abb-03" ("opens at 9 a.m. ET on Saturdays", the page's "Sat.") since
    # "a.m." is a unit as "p.m." was: its "closes at 1 p.m." twin was flagged so before. A screen size equal
    # to the battery hours ("r2-num-05": "15-inch", "15 hours") is told apart: inches are a unit now.
    "abb-03", "abb-04", "con-01", "hdr-04", "mer-12", "mul-02", "mul-03", "par-04", "r2-syn-03", "rol-05",
}
MOVED_NUMBERS_CAUGHT = 53
"""Of its 111 pairs moving a number with a unit to another row, tier or clause."""


def test_numbers_moved_within_a_passage() -> None:
    judge = LexicalJudge()
    flagged, caught = set(), 0
    for line in (CORPORA / "moved_numbers.jsonl").read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        example = Example(pair["id"], "?", (Context("c1", pair["passage"]),), pair["claim"])
        moved = any(not verdict.supported and "closest sentence gives" in (verdict.reason or "")
                    for verdict in evaluate_example(example, judge, 5).verdicts)
        if moved and pair["kind"] == "supported":
            flagged.add(pair["id"])
        caught += moved and pair["kind"] == "moved"
    assert (flagged, caught) == (MOVED_NUMBERS_FLAGGED, MOVED_NUMBERS_CAUGHT)


WRAPPERS_READ_AS_CLAIMS = {
    # Refusals read since rules 23, no longer here: pt 17 ("Os documentos não falam sobre ..."), de3 17 ("In
    # den Dokumenten, die mir zur Verfügung stehen, wird dieser Fall nicht behandelt."), fr4 24 ("mes sources
    # n'abordent pas cette question").
    "wrapper_sentences.jsonl": {
        "de": (17, 25, 34), "fr": (4,), "es": (25, 29, 34, 38), "it": (3, 4, 19, 25, 27, 29, 30, 34, 38),
        "pt": (4, 6, 26, 29, 30, 34, 35, 38),
    },
    "wrapper_sentences_en.jsonl": {"en2": (7, 97)},  # 103 ("doesn't go into that") since scoring rules 39
    # en3 17 ("I wasn't able to locate details on ... in these files.") since "was not able to" reads as
    # cannot (thirty-sixth session).
    "wrapper_sentences_3.jsonl": {
        "en3": (15, 16, 21, 40), "de3": (13, 16, 29, 30, 33, 39), "fr3": (16, 29, 39),
        "es3": (16, 20, 25, 28, 33, 34, 35, 37, 39),
        "it3": (2, 16, 18, 20, 23, 25, 28, 29, 33, 34, 37, 39),
        "pt3": (2, 13, 16, 20, 24, 25, 28, 33, 34, 38, 39),
    },
    "wrapper_sentences_4.jsonl": {
        "en4": (7, 8), "de4": (9, 16, 18, 19, 27), "es4": (8, 14, 18, 22),
        "it4": (2, 14, 18, 22), "pt4": (11, 18, 20, 26, 30),
    },
    # it5-w-008 since the twenty-fifth session: a pointer resting on a reason ("Visto che ogni contratto ha
    # clausole diverse, ..."), which is read as a claim as "since" and "weil" always were.
    # fr5 22 ("Oh là là, quelle galère… on va arranger ça !") since an ellipsis before a small letter ends
    # no sentence (thirty-sixth session): one sentence, read as the wrapper it is.
    # de5 24 ("Ehrlich gesagt bin ich mir da nicht sicher, weil ...") since "ich bin mir nicht sicher" and
    # its French, Spanish, Italian and Portuguese forms decline as "I'm not sure" does.
    # en5 22, en6 4 and 16, fr6 16, it6 16, pt6 16 since scoring rules 38 read a courtesy after a dash as
    # after a comma ("Ooh, fun one — let me have a look!").
    "wrapper_sentences_5.jsonl": {
        "en5": (8, 15, 19), "de5": (4, 9, 11, 13, 15, 19, 22), "fr5": (4, 14),
        "es5": (9, 11, 15, 17, 18, 22), "it5": (8, 11, 14, 17, 22), "pt5": (3, 7, 11, 14, 17, 18, 19, 22),
    },
    # Offers and questions put to the user, half of them taking a fact for granted, written for the
    # twenty-fifth session's rules by helpers who saw no code or data: offers.jsonl before the rules,
    # offers_2.jsonl after the first, offers_3.jsonl (question shapes) before the openings of informal,
    # preferring and first-person questions, offers_4.jsonl after all of them. Left read as claims:
    # questions about the user's situation ("Ha già provato a riavviare il modem?"), checks of
    # understanding ("Ai-je bien compris que ...?") and offers with no "?" in the other five languages
    # ("Si lo desea, puedo explicarle ..."). offers_5.jsonl (offers made as statements in five languages) was
    # written after the "if you like, I can" openings of those languages: 28 of 60 read as claims before
    # them, 21 after (verbs and conditions they do not list: "Se ti va, cerco ...", "Si te apetece,
    # podemos ...", and the condition at the end: "Puedo ayudarle ..., si así lo prefiere.").
    # de 16 ("Möchten Sie, dass ich Ihnen erkläre, ...?") since the wrapper model was trained again on German
    # sentences no longer cut at ordinals (thirty-fifth session), which also read en-g4's "We look forward
    # to welcoming you on board." in letters_2 as no claim.
    "offers.jsonl": {"de": (16,), "fr": (13,), "es": (8,), "it": (11, 13), "pt": (13, 14)},
    "offers_2.jsonl": {"de": (5,), "fr": (8, 14), "it": (12,), "pt": (7,)},
    "offers_3.jsonl": {"en": (12, 14), "de": (3, 15), "fr": (3, 6, 12, 14), "es": (5, 10, 12),
                       "it": (3, 6, 13, 15), "pt": (6, 13)},
    # 19 of 90 before the openings, 16 after.
    "offers_4.jsonl": {"en": (10,), "de": (15,), "fr": (5, 8, 14), "es": (8, 9, 11), "it": (7, 8),
                       "pt": (5, 8, 10, 14)},
    "offers_5.jsonl": {"de": (3, 7, 11), "es": (3, 7, 8, 10, 12), "it": (3, 7, 8, 9, 11, 12),
                       "pt": (2, 3, 4, 6, 7, 9, 12)},
    # es6 20 since rules 23 ("Tu gestor ... podrá orientarte mejor, porque conoce ..."): a clause after the
    # party's help is a claim, as "Le pharmacien pourra vous répondre, ce médicament est sans danger." is;
    # pt6 8 ("os documentos que tenho não abordam esse assunto") is read as a refusal since then.
    "wrapper_sentences_6.jsonl": {
        "en6": (7, 12, 20),
        "de6": (2, 6, 7, 8, 12, 16, 18, 20),
        "fr6": (7, 12, 20),
        "es6": (5, 7, 11, 13, 15, 16, 20),
        "it6": (2, 5, 6, 7, 9, 12, 20),
        "pt6": (2, 4, 6, 7),
    },
}
"""The numbers of red teams' wrapper sentences that the judge reads as claims, each set written without
seeing the code: wrapper_sentences.jsonl (40 wrappers and 40 claims dressed as wrappers in each of English,
German, French, Spanish, Italian and Portuguese), wrapper_sentences_en.jsonl (120 and 120 in English), then
three written each after a version of the wrapper model (`ragmon.text.wrapper_model`) and measured on it
once before joining its training (wrapper_sentences_3, _4 and _5.jsonl: wrappers, dressed claims and plain
claims in six languages). The model is trained on all five now, so these figures say little; the README
gives each set's first figure. wrapper_sentences_6.jsonl was written after this version and is not trained
on (`wrapper_training.HELD_OUT`): 20 wrappers, 12 dressed claims and 8 plain claims in each language; 75 of
its 120 wrappers read as claims by the patterns alone, 38 with the model, no claim taken for a wrapper (33
since scoring rules 38 read a courtesy after a dash, a rule fitted to other sets)."""
CLAIMS_READ_AS_WRAPPERS = {
    "wrapper_sentences.jsonl": set(),
    # An offer taking a deadline for granted, with no number or clause about a party to tell it by.
    "wrapper_sentences_en.jsonl": {"en2-c-090"},
    "wrapper_sentences_3.jsonl": set(),
    # Its five offers taking an event for granted ("now that your account has moved to the family plan") or
    # what alone is so ("l'unico tenuto da una logopedista") are claims since the twenty-fifth session.
    "wrapper_sentences_4.jsonl": set(),
    "wrapper_sentences_5.jsonl": set(),
    "wrapper_sentences_6.jsonl": set(),
    # 33 of 120 taken at the session's start; the rules were written from these (29 after "now that" and
    # ", the only", then 2).
    "offers.jsonl": {"de-c-011", "fr-c-019"},
    # Measured once the first rules were written: 22 of 90 taken at the session's start, 19 after "now that"
    # and ", the only", 12 after the rest; then ", da" (German "since" after a comma) was added on seeing
    # three of them: 10; the first-person openings took es-c-012 ("¿Le envío ..., disponible sin aval
    # bancario?"): 11. Left: a fact in a participle or apposition ("appena ristrutturato e senza spese di
    # agenzia", "unsere Ansprechpartnerin für ..."), a presupposed event ("il richiamo ufficiale sui
    # freni"), a time clause ("bevor die Preise im Sommer steigen"). en-c-009 ("Let me know if you'd like
    # me to cancel the annual plan while it's still refundable.") is a claim since a courtesy taking a
    # property for granted is one (`abstention.carries_a_fact`): its "Let me know" had made it a courtesy.
    "offers_2.jsonl": {"de-c-003", "de-c-009", "de-c-012", "en-c-014", "es-c-012", "fr-c-015",
                       "it-c-005", "it-c-011", "it-c-012", "it-c-015"},
    # 11 of 90 taken at the session's start, 8 after "now that", 5 after the reasons and costs, 5 after the
    # openings. Left: a relative clause the pronouns miss ("..., bei dem keine Kontoführungsgebühren
    # anfallen"), a leading question ("Haben Sie schon gesehen, dass ...").
    "offers_3.jsonl": {"de-c-011", "de-c-013", "de-c-014", "es-c-011", "it-c-009"},
    # Written after every rule, measured once: 16 of 90 taken at the session's start, 16 after "now that",
    # 8 after the reasons and costs, 10 after the openings (fr-c-013, it-c-008: a fact in an apposition,
    # ", coupée pour impayé la semaine dernière", ", riservato ai bambini con entrambi i genitori
    # lavoratori", which is what the 10 left mostly carry).
    "offers_4.jsonl": {"de-c-008", "en-c-008", "es-c-011", "es-c-014", "fr-c-007", "fr-c-010", "fr-c-013",
                       "it-c-008", "it-c-014", "pt-c-014"},
    # 2 of 60 taken before the "if you like, I can" openings, 4 after: facts in a relative clause the
    # pronouns miss ("..., für den du als Mitarbeiter förderberechtigt bist", "..., à laquelle tu as droit")
    # or an apposition (", disponible également le week-end"), a presupposed event ("el técnico que revisó
    # su caldera la semana pasada").
    "offers_5.jsonl": {"de-c-008", "es-c-012", "fr-c-009", "fr-c-011"},
}


@pytest.mark.parametrize("corpus", sorted(WRAPPERS_READ_AS_CLAIMS))
def test_wrapper_sentences_are_told_from_claims_dressed_as_wrappers_as_measured(corpus: str) -> None:
    missed, skipped = set(), set()
    for line in (CORPORA / corpus).read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        read_as_claim = bool(split_claims(case["sentence"]))
        if case["label"] == "wrapper" and read_as_claim:
            missed.add(case["id"])
        elif case["label"] == "claim" and not read_as_claim:
            skipped.add(case["id"])
    assert skipped == CLAIMS_READ_AS_WRAPPERS[corpus]
    listed = WRAPPERS_READ_AS_CLAIMS[corpus]
    assert missed == {f"{prefix}-w-{number:03d}" for prefix, numbers in listed.items() for number in numbers}


REFUSALS_READ_AS_CLAIMS = {
    # Written for a learned reader of refusals and pointers without seeing the code: 35 refusals, 25
    # pointers and 50 claims dressed as either in each of six languages. After a refusal, the patterns read
    # 97 of the 210 refusals and 59 of the 150 pointers.
    "refusal_sentences.jsonl": {
        "en-r": (5, 7, 9, 13, 16, 20, 22, 28, 31, 32, 35), "en-p": (2, 4, 9, 10, 11, 13, 15, 16, 23, 24, 25),
        "de-r": (4, 7, 8, 9, 12, 13, 15, 18, 19, 20, 21, 22, 23, 24, 26, 27, 30, 31, 33, 34, 35),
        "de-p": (1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 19, 23, 24, 25),
        "fr-r": (5, 7, 9, 13, 15, 16, 19, 20, 21, 22, 23, 25, 26, 29, 30, 32, 33, 35),
        "fr-p": (3, 4, 5, 6, 7, 9, 11, 13, 15, 16, 19, 23, 24, 25),
        "es-r": (2, 4, 8, 10, 12, 13, 17, 18, 20, 26, 27, 28, 29, 33, 34, 35),
        "es-p": (2, 3, 4, 6, 9, 11, 12, 13, 14, 15, 16, 19, 21, 24, 25),
        "it-r": (1, 3, 4, 6, 8, 11, 12, 13, 14, 15, 18, 19, 20, 21, 22, 23, 26, 27, 28, 29, 30, 33, 35),
        "it-p": (2, 4, 6, 9, 11, 12, 13, 15, 16, 18, 19, 20, 21, 22, 23, 24, 25),
        "pt-r": (2, 4, 6, 7, 8, 10, 13, 17, 18, 19, 20, 21, 23, 24, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35),
        "pt-p": (3, 4, 6, 8, 9, 11, 12, 13, 14, 15, 16, 18, 19, 21, 22, 24, 25),
    },
    # Written apart from the first, to hold out: 20 refusals, 15 pointers and 35 dressed claims a language.
    # After a refusal, the patterns read 81 of the 120 refusals and 38 of the 90 pointers. A reader trained
    # on the first set read 58 pointers and took none of these claims, but reviews found it hid checkable
    # details of pointers and refusals written otherwise (README "Rules tried and not kept").
    "refusal_lookalikes.jsonl": {
        "enL-r": (14, 18), "enL-p": (3, 4, 8, 9, 11, 12, 13), "deL-r": (3, 7, 10, 13, 16, 18, 19),
        "deL-p": (3, 4, 5, 7, 8, 9, 12, 13, 14, 15), "frL-r": (4, 9, 12, 14, 15, 16, 17),
        "frL-p": (3, 5, 7, 8, 9, 11, 12), "esL-r": (3, 5, 13, 15, 16, 17),
        "esL-p": (3, 4, 7, 8, 9, 12, 13, 15), "itL-r": (4, 5, 9, 11, 15, 16, 18),
        "itL-p": (3, 4, 7, 8, 9, 10, 13, 14, 15), "ptL-r": (4, 9, 10, 11, 12, 15, 16, 17, 18, 20),
        "ptL-p": (3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14),
    },
}
"""The numbers of the refusals ("-r") and pointers ("-p") of the refusal sets read as claims after a
refusal in their language (`REFUSAL_BEFORE`), as they would be in an answer that declines."""
CLAIMS_READ_AS_REFUSALS = {
    # A reason of the subject without a figure ("... parce qu'elle a été supprimée l'an dernier.", "...
    # because the basic tier was discontinued last year."; worded so, a reason is the refusal's own account
    # far more often), a refusal presupposing what it declines ("I can't say why the number 12 bus route was
    # withdrawn.", "I'm not able to confirm that the passport office closes early on Fridays."; a question of
    # why takes for granted what the user asked about far more often than what the answerer made up), a
    # claim spliced to a refusal by a comma ("..., elle est fermée pour travaux jusqu'en mars.", "..., che
    # resta chiuso per lavori fino a marzo.") or a participle ("..., le suivi n'étant proposé que pour les
    # envois express."), and claims the wrapper model takes for talk to the user ("I don't believe the branch
    # offers coin exchange anymore.", "La tua ricetta non è ripetibile.", "Je ne peux pas vous en dire plus,
    # sinon que l'offre Duo se limite à deux appareils."): README "Honest limitations". 17 and 13 before
    # rules 24, which reads what alone is said beside ("..., solo che ...", "I can't tell you more than that
    # ...") and a reason with a figure ("... because the airline dropped it in 2023.") as claims.
    "refusal_sentences.jsonl": {
        "en-c-026", "en-c-037", "en-c-041", "de-c-037", "fr-c-016", "fr-c-037", "fr-c-041", "es-c-037",
        "it-c-016", "it-c-017", "it-c-037", "it-c-041", "pt-c-037", "pt-c-041"},
    "refusal_lookalikes.jsonl": {
        "enL-c-004", "enL-c-006", "enL-c-017", "deL-c-006", "deL-c-009", "frL-c-006", "frL-c-020",
        "frL-c-030", "esL-c-006", "itL-c-006", "ptL-c-006"},
}
REFUSAL_BEFORE = {
    "en": "I couldn't find that in the documents.", "de": "Die Dokumente erwähnen das nicht.",
    "fr": "Les documents ne parlent pas de cela.", "es": "La documentación no menciona nada sobre eso.",
    "it": "I documenti non parlano di questo.", "pt": "Os documentos não mencionam isso.",
}
"""A refusal the patterns read, in each language, put before each sentence of the refusal sets."""


def test_the_refusal_put_before_the_sets_sentences_is_one() -> None:
    assert all(split_claims(refusal) == () for refusal in REFUSAL_BEFORE.values())


@pytest.mark.parametrize("corpus", sorted(REFUSALS_READ_AS_CLAIMS))
def test_refusal_sentences_are_told_from_claims_dressed_as_refusals_as_measured(corpus: str) -> None:
    missed, taken = set(), set()
    for line in (CORPORA / corpus).read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        read_as_claim = bool(split_claims(f"{REFUSAL_BEFORE[case['lang']]} {case['sentence']}"))
        if case["label"] in ("refusal", "pointer") and read_as_claim:
            missed.add(case["id"])
        elif case["label"] == "claim" and not read_as_claim:
            taken.add(case["id"])
    assert taken == CLAIMS_READ_AS_REFUSALS[corpus]
    listed = REFUSALS_READ_AS_CLAIMS[corpus]
    assert missed == {f"{kind}-{number:03d}" for kind, numbers in listed.items() for number in numbers}


EXPLANATORY_CLAIMS_READ_AS_WRAPPERS: set[tuple[str, str]] = set()
EXPLANATORY_WRAPPERS_READ_AS_CLAIMS: set[tuple[str, str]] = set()


def test_explanatory_answers_keep_their_claims_in_the_second_person() -> None:
    """Forum-style explanations state facts with the generic "you" ("Once you have the right adapter, you
    will be able to ..."), which the wrapper model, trained on chat answers, could take for talk to the user:
    of 422 such claims in 60 answers written after its third version, that version took one (and 4 of 16
    wrappers stayed claims); the model is trained on them since, so none now."""
    taken, missed = set(), set()
    for line in (CORPORA / "explanatory_answers.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        answer, not_claims = case["answer"], set(case["not_claims"])
        claims = {claim.text.strip() for claim in split_claims(answer)}
        for start, end in sentence_spans(answer):
            sentence = answer[start:end].strip()
            if sentence in not_claims and sentence in claims:
                missed.add((case["id"], sentence))
            elif sentence not in not_claims and sentence not in claims:
                taken.add((case["id"], sentence))
    assert taken == EXPLANATORY_CLAIMS_READ_AS_WRAPPERS
    assert missed == EXPLANATORY_WRAPPERS_READ_AS_CLAIMS
