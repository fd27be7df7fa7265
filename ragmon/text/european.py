"""The answer-wrapper forms of German, French, Spanish, Italian and Portuguese answers, as patterns.

Chat models answering in those languages wrap their answers as they do in English: thanks and offers of
more help, an attribution opening a sentence, a list of sources, a refusal. Read as claims, each was an
unsupported one (a walkthrough's 83 support answers: all 16 refusals and 18 of 30 such sentences flagged,
grounded answers scoring 0.81), so `ragmon.text.abstention` and `ragmon.text.claims` read these beside
their English forms. Matched on normalised (lower-case) text. Only phrases, no grammar: a refusal names
the one refusing (first person, or the documents), as the English cues do, so a fact with "nicht" or "no"
in it ("Der Artikel ist nicht erstattungsfähig") stays a claim.
"""

from __future__ import annotations

import re

SOURCE_NOUNS = (
    "dokumente|dokumenten|unterlagen|informationen|quellen|kontext|daten|"
    "documents|document|informations|information|sources|contexte|données|"
    "documentos|información|informacion|fuentes|contexto|datos|"
    "documenti|informazioni|fonti|contesto|dati|"
    "informações|informação|fontes"
)
"""What an answer calls the text it was given, in the five languages."""

_PROVIDED = (r"(?:bereitgestellten|vorliegenden|verfügbaren|angegebenen|fournis|fournies|disponibles|"
             r"proporcionad[ao]s?|facilitad[ao]s?|disponibles?|forniti|fornite|disponibili|"
             r"fornecid[ao]s?|disponíveis)")

ATTRIBUTION = (
    r"(?:laut|gemäß|gemäss|nach|basierend auf|auf grundlage) (?:den |der |dem |diesen )?(?:" + _PROVIDED
    + r" )?(?:" + SOURCE_NOUNS + r")(?: zufolge)?,?"
    r"|(?:(?:d'après|selon|sur la base d(?:e |es |u )|en me basant sur) (?:les |la |le |l')?"
    r"|(?:según|segun|de acuerdo con|con base en|basándome en|en base a) (?:la |las |los |el )?"
    r"|(?:secondo|in base a|stando a|sulla base d(?:ei|elle|i)) (?:i |le |la |il |l')?"
    r"|(?:de acordo com|segundo|com base n)(?:as|os|a|o)? )(?:" + SOURCE_NOUNS + r")(?: " + _PROVIDED + r")?,"
)
"""An opening that says where the answer comes from: "Laut den bereitgestellten Informationen",
"D'après les documents fournis", "Según la información proporcionada", "Secondo i documenti forniti",
"Com base nos documentos fornecidos", with the comma after it (German puts the verb there instead:
"Laut den Informationen können Sie ...")."""

SOURCES = r"quellen?|fuentes?|fonti|fontes?|références|referencias|riferimenti|referências"
"""A heading of the answer's sources ("Quellen:", "Fuentes:", "Fonti:", "Fontes:"); "Sources" is
English's."""

_NOT_SAID = (
    r"(?:nicht (?:erwähnt|angegeben|beschrieben|aufgeführt|enthalten)|keine (?:informationen|angaben)"
    r"|ne (?:précisent|précise|mentionnent|mentionne|indiquent|indique|contiennent|contient|disent|dit)"
    r" (?:pas|rien)"
    r"|no (?:mencionan?|indican?|especifican?|contienen?|dicen?)"
    r"|non (?:è|sono) (?:specificat[oaie]|indicat[oaie]|menzionat[oaie]|riportat[oaie])"
    r"|non (?:indicano|indica|menzionano|menziona|specificano|specifica|contengono|contiene)"
    r"|não (?:mencionam|menciona|indicam|indica|especificam|especifica|contém|contêm|referem|refere))")
_NOT_SURE = (
    r"\b(?:ich bin|bin ich)(?: mir| da| dabei| hier| leider| dessen){0,3} nicht (?:ganz |so |völlig )?"
    r"sicher\b"
    r"|\bje (?:ne|n'en) (?:suis|serais) pas (?:tout à fait |vraiment |entièrement |très )?"
    r"(?:sûre?|certaine?)\b"
    r"|\bno (?:estoy|me siento) (?:muy |del todo |completamente |totalmente )?segur[oa]\b"
    r"|\bno tengo (?:la )?certeza\b"
    r"|\bnon (?:ne )?sono (?:del tutto |molto |proprio |completamente )?(?:sicur[oa]|cert[oa])\b"
    r"|\bnão (?:tenho (?:a )?certeza|estou (?:muito |totalmente |completamente )?segur[oa])\b")
"""The answerer unsure, as English's "I'm not sure": "Ich bin mir nicht sicher", "Je ne suis pas sûre",
"No estoy seguro", "Non ne sono sicuro", "Não tenho certeza". First person singular only, as a refusal
names the one refusing: "Die Zahlung ist nicht sicher", "non sono sicuri per i bambini" (they are not
safe) and "no está seguro" state facts. French "sur" without its accent is "on" ("je ne suis pas sur le
site"), so only "sûr" is read."""
DECLINES = re.compile(
    "|".join((
        r"\b(?:ich )?(?:weiß|weiss) (?:ich )?(?:es |das )?(?:leider )?nicht\b",
        r"\b(?:liegen )?mir (?:liegen )?(?:leider )?keine (?:informationen|angaben)\b",
        r"\b(?:kann|könnte) (?:ich )?(?:diese frage |das |dazu )?(?:leider )?nicht (?:beantworten|sagen)\b",
        r"\bje ne (?:sais|saurais) pas\b", r"\bje n'ai (?:pas|aucune) (?:d'|de |les? |l')?informations?\b",
        r"\bje ne (?:peux|suis pas en mesure de) (?:pas )?(?:répondre|vous dire|confirmer)\b",
        r"\bno (?:lo )?sé\b", r"\bno (?:tengo|dispongo de|encuentro|encontré|he encontrado) (?:ninguna |la )?"
        r"(?:información|informacion|datos)\b", r"\bno (?:puedo|podría) (?:responder|confirmar|decir)",
        r"\bnon (?:lo )?so\b", r"\bnon ho (?:alcuna |nessuna )?(?:informazioni|informazione|dati)\b",
        r"\bnon (?:posso|sono in grado di) (?:rispondere|confermare|dire)\b",
        r"\bnão (?:sei|encontrei|tenho (?:nenhuma |essa |esta )?informaç(?:ão|ões)"
        r"|posso (?:responder|confirmar))",
        r"\b(?:" + SOURCE_NOUNS + r")\b[^.!?]{0,60}?\b" + _NOT_SAID + r"\b",
        r"\b(?:in den|dans les|en los|en la|nei|negli|nos|nas) (?:" + SOURCE_NOUNS + r")\b[^.!?]{0,40}?\b"
        + _NOT_SAID + r"\b",
        r"\b" + _NOT_SAID + r"\b[^.!?]{0,40}?\b(?:in den|in der|dans les|en los|en la|en el|nei|negli|nel|"
        r"nos|nas) (?:\w+ )?(?:" + SOURCE_NOUNS + r")\b",
        r"\b(?:aucune|ninguna|nessuna|nenhuma) (?:information|información|informazione|informação)\b",
        r"\b(?:finde|fand) ich\b[^.!?]{0,60}?\b(?:nichts|keine (?:informationen|angaben|hinweise))\b",
        r"\b(?:konnte|kann) ich\b[^.!?]{0,60}?\b(?:nichts|keine (?:informationen|angaben|hinweise)) finden\b",
        r"\bgeht aus\b[^.!?]{1,60}?\bnicht hervor\b",
        r"\b(?:erwähnt|erwähnen|nennt|nennen) (?:die |den |der |diese )?(?:" + SOURCE_NOUNS
        + r")\b[^.!?;,:]{0,60}? (?:leider )?nicht(?= *(?:[.!;]|, *und\b|$))",
        r"\bje (?:ne trouve|n'ai trouvé) (?:pas|rien|aucune)\b", r"\bil n'y a (?:pas|aucune) (?:d'|de )?"
        r"(?:information|informations|précision|précisions|indication|indications)\b",
        r"\bno (?:hay|he encontrado|encuentro|aparece|figura|consta) (?:ninguna |nada|información|"
        r"informacion|"
        r"datos)", r"\b(?:no (?:he podido|pude|puedo) encontrar)\b",
        r"\bnon (?:ci sono|ho trovato|trovo|risultano|sono riuscit[oa] a trovare) (?:alcuna |nessuna )?"
        r"(?:informazioni|informazione|dati|indicazioni|nulla|niente)\b",
        r"\b(?:informazioni|documenti|dati) (?:a mia disposizione|che ho|disponibili) non (?:dicono|dice|"
        r"indicano|specificano|riportano|chiariscono)\b",
        r"\bnão (?:há|encontro|consigo encontrar|encontrei) (?:nenhuma |qualquer )?(?:informação|informações|"
        r"dados|nada)\b", r"\bnão (?:dizem|diz|referem|esclarecem) (?:se|nada)\b",
        r"\bno (?:dicen|dice|aclaran|aclara) (?:si|nada)\b", r"\bne (?:disent|dit) (?:pas si|rien)\b",
        r"\b(?:enthält|enthalten|macht|machen) (?:leider )?keine (?:angaben|informationen|hinweise)\b",
        r"\bno se (?:menciona|indica|especifica|dice) nada\b", r"\bno (?:puedo|podría) (?:darte|darle|"
        r"decirte|"
        r"decirle|indicarte|indicarle)\b", r"\bje n'ai (?:malheureusement |hélas )?(?:pas |rien )?trouvé "
        r"(?:aucune|d'|de |rien)", r"\bnon c'è (?:alcuna |nessuna )?(?:indicazione|informazione|menzione)\b",
        r"\bnão é (?:especificad|mencionad|indicad|referid)[oa]\b",
        r"\bnão há (?:qualquer |nenhuma )?(?:menção|referência|informação)\b",
        r"\bno (?:aparece|figura|consta|viene) en (?:la|las|los|el) (?:" + SOURCE_NOUNS
        + r"|documentación)\b",
        r"\b(?:n'est|ne sont|n'a|n'ont) pas (?:été )?(?:abordée?s?|traitée?s?|mentionnée?s?|précisée?s?|"
        r"couverte?s?|évoquée?s?) dans (?:les|la|le|ces) (?:" + SOURCE_NOUNS + r"|documentation)\b",
        r"\b(?:nelle|nei|nella) (?:" + SOURCE_NOUNS + r"|documentazione)\b[^.!?]{0,40}?\bnon (?:si"
        r" parla|si dice|"
        r"si menziona|si accenna|viene (?:indicat|menzionat|specificat)[oa])\b",
        _NOT_SURE,
    ))
)
"""Refusals: "Das weiß ich leider nicht", "Dazu liegen mir keine Informationen vor", "Je ne sais pas",
"Je n'ai pas d'information sur ...", "No tengo información sobre ...", "Non ho informazioni ...",
"Não encontrei essa informação", and the documents saying nothing of it ("Die bereitgestellten Dokumente
enthalten keine Informationen über ...", "Les documents fournis ne précisent pas ...", "Non è specificato
nei documenti"), and the answerer unsure (`_NOT_SURE`). Each holds one of `REFUSAL_WORDS`."""
REFUSAL_WORDS = (
    "nicht", "kein", "keine", "pas", "aucun", "aucune", "non", "não", "ninguna", "nessuna", "nenhuma",
    "sé", "tengo", "dispongo", "encuentro", "encontré", "encontrado", "puedo", "podría", "menciona",
    "mencionan", "indica", "indican", "especifica", "especifican", "contiene", "contienen", "dice", "dicen",
    "nichts", "hervor", "trouve", "trouvé", "rien", "aparece", "figura", "consta", "encontrar",
    "informazioni", "trovato", "trovo", "dicono", "encontro", "encontrei", "dizem", "diz", "nada", "aclaran",
    "disent", "dit", "informações", "información", "informacion", "seguro", "segura",
)
"""Words one of which every refusal above holds beside "no" (a function word): a sentence none of whose
terms is one is spared the pattern."""

_COVER = (
    r"(?: (?:nur|lediglich|bloß|klar|eindeutig|seulement|uniquement|clairement|solo|sólo|solamente"
    r"|únicamente|claramente|soltanto|chiaramente|só|apenas|somente)){0,2}"
    r" (?:decken|deckt|abdecken|abdeckt|umfassen|umfasst|stammen aus|stammt aus|reichen bis|reicht bis"
    r"|(?:ne |n')?(?:couvrent|couvre|portent sur|porte sur|datent de|date de|remontent à|s'arrêtent)"
    r"|cubren|cubre|abarcan|abarca|datan de|data de|llegan hasta|llega hasta"
    r"|coprono|copre|riguardano|riguarda|risalgono|risale|(?:sono|è) del"
    r"|cobrem|cobre|abrangem|abrange|datam de|vão até|vai até"
    r"|(?:ne |n')[\w']+ (?:pas|rien|aucune?|jamais)|no |non |não "
    r"|[\w']+ (?:nichts|keine?[nmrs]?)\b|[\w']+(?: [\w']+){0,3} nicht\b(?! nur))")
"""What the sources as a clause's subject do when the clause says what a refusal is about, as English's
(`ragmon.text.abstention`): cover a span ("die Dokumente decken nur 2023 ab", "les documents ne couvrent
que 2023", "los documentos solo cubren 2023", "i documenti sono del 2023") or leave it out ("die Dokumente
erwähnen 2024 nicht", "les documents ne parlent pas de 2024", "los documentos no hablan de 2024").
Saying anything else ("die Dokumente erwähnen 90 Tage", "les documents parlent de 90 jours", "los
documentos hablan de 90 días") they state the figure."""
ABOUT_THE_REFUSAL = re.compile(
    r"[\W_]*(?:(?:ob|dass|daß|wie(?! gesagt)|wann|wo|was|welche[mnrs]?|warum|weil|wofür|woher|wieso|"
    r"weshalb|da(?= (?:es|ich|er|sie|wir|man|die|der|das|den|dem|diese[mnrs]?|keine?[mnrs]?|mir|uns|"
    r"meine?[mnrs]?|unsere?[mnrs]?|nur|leider)\b)"
    r"|si|que|qu|quel(?:le)?s?|combien|quand|où|comment|pourquoi|car|puisque|parce"
    r"|qué|cuál(?:es)?|cuánt[oa]s?|cuándo|dónde|cómo|porque"
    r"|che|qual(?:[ei]|es)?|quais|quant[oaie]s?|quando|dove|perché|poiché|onde)\b"
    r"|(?:(?:die|den|der|diese|les|la|le|ces|los|las|el|estos|estas|i|gli|questi|queste|os|as|o|a|estes) "
    r"|l')?(?:" + SOURCE_NOUNS + r")\b(?: " + _PROVIDED + r")?+" + _COVER + ")")
"""What opens a clause saying what a refusal is about or why: a subordinating word ("..., ob es 90 Tage
sind", German's comma before it being required; "..., car les documents ne couvrent que 2023"), or the
sources as its subject saying what they cover or leave out (`_COVER`). Only words that open no
statement: Spanish and Portuguese "se" and "como" ("se tarda 90 días", "como máximo son 90 días", "como
regra são 90 dias"), Italian "come" ("come da regolamento sono 90 giorni"), German "da" as "there" ("da
steht 90 Tage") and "wie gesagt" ("as I said") state the figure after them, and read as subordinating
they hid it."""

CONTRAST = re.compile(
    r"\b(?:aber|jedoch|cependant|pero|sin embargo|però|tuttavia|porém|contudo)\b|(?:^|,\s*)(?:mais|ma|mas)\b")
"""A contrast: "ma", "mas" and "mais" only after a comma or at the start, being also "my" (French "à ma
disposition") and "more" (Portuguese "mais alguma dúvida")."""
APOLOGY = re.compile(
    r"[\W_]*(?:(?:es )?tut mir (?:sehr )?leid|leider|(?:je suis )?(?:vraiment )?désolée?|malheureusement|"
    r"(?:lo )?siento|lamentablemente|desafortunadamente|mi dispiace|purtroppo|sfortunatamente|desculpe|"
    r"lamento|infelizmente)[\W_]*")
"""A refusal's apology, before its contrast ("Je suis désolé, mais je n'ai pas d'information"): no claim
beside the refusal."""

FILLER_PHRASES = (
    r"ich hoffe,? (?:das|dies) (?:hilft(?: ihnen| dir)?(?: weiter)?|hat (?:ihnen|dir) geholfen)"
    r"|gern geschehen|gerne|klar|natürlich|selbstverständlich|viele grüße",
    r"(?:lassen sie mich|lass mich) wissen,? (?:wenn|falls|ob) (?:sie|du) (?:weitere|noch|andere) "
    r"fragen (?:haben|hast)"
    r"|(?:wenn|falls) sie (?:weitere|noch) fragen haben,? (?:stehe ich ihnen gerne zur verfügung"
    r"|melden sie sich gerne|lassen sie es mich wissen)"
    r"|bei (?:weiteren )?fragen stehe ich (?:ihnen )?gerne zur verfügung",
    r"j'espère que cela (?:vous |t')?(?:aide|aidera|a aidé)|n'hésitez pas(?: à (?:me|nous) contacter| à "
    r"demander)?(?: si vous avez d'autres questions)?|besoin d'aide supplémentaire|bien sûr|avec plaisir|"
    r"je reste à votre (?:entière )?disposition(?: (?:si besoin|si nécessaire|pour toute (?:autre )?question|"
    r"pour tout renseignement(?: complémentaire)?))?|merci (?:beaucoup )?(?:pour|de) votre (?:question|"
    r"message|patience|confiance)|ne vous inquiétez pas",
    r"espero que (?:esto|esta información) (?:te|le|les) (?:ayude|sirva|haya ayudado)"
    r"|espero (?:haberte|haberle|haber) ayudado|claro|por supuesto"
    r"|si (?:tiene|tienes) (?:alguna )?(?:otra|más) (?:pregunta|preguntas),? no (?:dude|dudes) "
    r"en (?:consultarme|preguntar|contactarnos|preguntarme)",
    r"spero (?:di (?:esserti|esserle|esservi) (?:stato|stata) utile|che (?:questo|queste informazioni) "
    r"(?:ti|le|vi) (?:sia|siano) (?:utile|utili))|fammi sapere se hai (?:altre|ulteriori) domande"
    r"|certo|certamente|se hai (?:altre|ulteriori) domande,? (?:non esitare a chiedere|chiedi pure|sono qui)",
    r"(?:vielen |herzlichen )?dank(?:e)?(?: für (?:ihre|deine|die) (?:frage|nachricht|anfrage|geduld))?"
    r"|keine sorge|(?:eine )?(?:gute|tolle|sehr gute) frage",
    r"(?:très )?bonne question|excellente question",
    r"(?:muchas )?gracias por (?:su|tu) (?:pregunta|consulta|mensaje|paciencia)|no se preocupe|"
    r"no te preocupes|(?:muy )?buena pregunta|espero que (?:esta información |esto )?(?:te|le) sea "
    r"(?:útil|de ayuda)",
    r"grazie (?:mille )?(?:per|della) (?:la )?(?:tua|sua) (?:domanda|richiesta|pazienza)|non (?:si preoccupi|"
    r"preoccuparti)|(?:ottima|bella|buona) domanda|fammi sapere se (?:ti )?serve (?:altro|qualcos'altro|"
    r"altro aiuto)|fammi sapere se hai bisogno di (?:altro|qualcos'altro|aiuto)",
    r"obrigad[oa] pela (?:sua |tua )?(?:pergunta|mensagem|paciência|questão)|não se preocupe|(?:ótima|boa|"
    r"excelente) pergunta|se (?:tiver|tiveres) (?:mais )?(?:alguma )?(?:dúvida|dúvidas|pergunta|perguntas),? "
    r"(?:diga-me|diz-me|me diga|é só (?:dizer|perguntar)|fale comigo)",
    r"espero (?:ter ajudado|que (?:isso|isto) (?:ajude|te ajude|o ajude))|com certeza"
    r"|se (?:tiver|tens) (?:mais )?(?:alguma )?(?:dúvida|dúvidas|pergunta|perguntas),? "
    r"(?:não hesite em (?:contactar-nos|contatar-nos|perguntar)|estou à (?:sua )?disposição)",
)
"""Thanks, offers of more help and acknowledgements: "Ich hoffe, das hilft!", "N'hésitez pas à me
contacter si vous avez d'autres questions.", "¡Espero que esto te ayude!", "Fammi sapere se hai altre
domande.", "Espero ter ajudado!". `ragmon.text.abstention` matches them as whole sentences, as English's."""

NEGATION_WORDS = ("nicht", "kein", "keine", "keinen", "keiner", "pas", "non", "não", "nao", "es", "son",
                  "está", "están", "se")
"""Words one of which every `NEGATION` holds, beside "no" (a function word): a text none of whose terms
is one is spared the pattern."""
NEGATION = re.compile(
    r"\b((?:non (?:è|sono|si|viene|vengono)|não (?:é|são|se|está|estão)"
    r"|no (?:es|son|está|están|se)"
    r"|ne (?:sont|est|sera|seront|peut|peuvent|pouvez)? ?pas|n'(?:est|a|ont|était|sera) pas"
    r"|nicht|kein|keine|keinen|keiner|non|não|nao) (?!nur |seulement |solo |sólo |só )"
    r"(?:jedoch |aber |mehr |immer |plus |toujours |más |siempre |più |sempre |mais )?(?:être )?)(\w)")
"""A negation and the first letter of the word it negates: "nicht erstattungsfähig", "ne sont pas
remboursables", "no son reembolsables", "non sono rimborsabili", "não são reembolsáveis". The word is
read as the opposite of itself (`ragmon.text.terms`), so a claim that it is refundable is unsupported by
a context that says it is not, as "non-refundable" is read in English. One word's scope, past an adverb
("nicht jedoch Schäden", "nicht mehr erhältlich") and French "être" ("ne peuvent pas être remboursés");
"nicht nur" (not only) negates nothing, and "nicht für
Sonderangebote" negates "für", a function word, and so nothing."""

_FUNCTION_WORDS = """
    der das dem des ein eine einer eines einem einen und oder aber ist sind waren wird werden wurde wurden
    haben hatte sein seine seiner seinen seinem ihr ihre ihrer ihren ihrem ihres sie er wir ich du uns euch
    mich mir dich dir zu zum zur im ins vom beim auf aus bei nach von vor für über unter durch gegen ohne um
    bis als wie wenn dass daß ob auch noch nur schon sehr kann können muss müssen soll sollen darf dürfen
    wollen dies diese dieser dieses diesem diesen jede jeder jedes jeden jedem sich ja doch dann denn da hier
    dort etwa bzw
    le la les l un une des du de d ou mais sont était étaient sera seront ont avait être avoir il elle ils
    elles nous vous je tu te lui leur leurs ses mes tes notre nos votre vos ce cet cette ces ceci cela ça
    qui que qu quoi dont où au en dans par sur sous avec sans chez entre vers très aussi si comme donc peut
    peuvent doit doivent y oui
    el los las una unos unas y o pero fue será ser estar ha han había del al a con por para sobre hasta
    desde qué su sus tu tus nuestro nuestra nuestros nuestras le les lo me nos usted ustedes él ella ellos
    ellas este esta estos estas ese esa eso esto muy más también sí cuando donde ya puede pueden hay
    il lo i gli una di della dei degli delle dal dalla dai dalle nel nella nei nelle su sul sulla per tra
    fra è sono erano sarà essere avere ha hanno aveva che chi cui più anche ne vi ti suo sua suoi sue loro
    mio questo questa questi queste quello quella molto già può possono deve devono alla agli alle dello
    o as um uma uns umas do da dos das na nas em ao aos à às pelo pela pelos pelas sem até é são foi
    tem têm seu sua seus suas meu minha nosso nossa mais também muito quando onde já você vocês ele ela
    eles elas isso isto pode podem sim
    kannst könnt pouvez peux pouvons puedes podemos puoi potete possiamo podes sì
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split()) - set(NEGATION_WORDS)
"""German, French, Spanish, Italian and Portuguese articles, pronouns, prepositions, conjunctions and
auxiliaries: like English's, they carry nothing a context must hold, and counted as terms they made a
made-up sentence mostly supported ("Nous livrons également en Allemagne et en Espagne.": 4 of its 7 terms
were "nous", "en", "et" and a verb). Left out, as terms: the negations' words (`NEGATION_WORDS` tells by
its terms whether a text may hold one), and the words English writes with a meaning of its own, which a
context must still hold in English ("die", "war", "hat", "den", "man", "mit", "son", "pour", "plus",
"est" and "et" as time zones, "un", "era", "mi" as miles, "os", "ed", "come", "ci", "ai", "uno", "aux",
"com", "ma", "sa", "ta", "mon", "ton", "non")."""
