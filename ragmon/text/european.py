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

from ragmon.text.deferred import deferred

SOURCE_NOUNS = (
    "dokumente|dokumenten|unterlagen|informationen|quellen|kontext|daten|dokumentation|"
    "documents|document|informations|information|sources|contexte|données|documentation|"
    "documentos|información|informacion|fuentes|contexto|datos|documentación|"
    "documenti|informazioni|fonti|contesto|dati|documentazione|"
    "informações|informação|fontes|documentação"
)
"""What an answer calls the text it was given, in the five languages."""
_ENGLISH_TOO = frozenset({"documents", "document", "information", "sources", "documentation"})
"""Source nouns English writes alike: a refusal in French holds "pas", "rien" or "aucun" too, and English
claims naming their documents are spared the search (`REFUSAL_WORDS`)."""

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
_OWN = (r"(?:dont je dispose|que (?:tengo|me han (?:dado|facilitado|proporcionado))|che ho|"
        r"a mia disposizione|che mi (?:hai|ha|avete) fornit[oaie]|que tenho|de que disp(?:onho|ongo))")
"""The sources as what the answerer has: "dont je dispose", "que tengo", "che ho", "de que disponho"."""
_MINE = (r"(?:" + _PROVIDED + r"|fornit[oa]|fourni|fournie|" + _OWN + r"|bereitgestellten?|vorliegenden?|"
         r"verfügbaren?|angegebenen?)")
"""What marks the sources as the ones the answerer was given: "fournis", "proporcionada", "dont je dispose",
"que tengo", "che ho", "de que disponho", "bereitgestellte"."""
_DATA = frozenset({"daten", "données", "datos", "dati"})
_TEXTS = "(?:" + "|".join(noun for noun in SOURCE_NOUNS.split("|") if noun not in _DATA) + ")"
"""`SOURCE_NOUNS` but data ("Daten", "données", "datos", "dati"): "Anonymisierte Daten sagen nichts über
die Person aus" and "Les données n'évoquent pas votre état de santé" are what data do."""
_GIVEN = (r"(?:(?:kontext|contexte|contexto|contesto|informationen|informations|información|informacion|"
          r"informazioni|informações|informação)(?: " + _MINE + r")|" + _TEXTS + r" " + _OWN + r")")
"""Sources that can only be the answerer's: the context or the information given, or any sources it has
("dont je dispose"). "Le document fourni", "Los documentos proporcionados" may be what the user handed in
(a visa's, an admission's): "Le document fourni ne couvre pas toute la durée du séjour." is a claim."""
_GOES_ON = (r"(?![^.!?]{0,200}?[,;] *(?!(?:ob|si|se|que|qu'|che|ni|nem|né|noch|weder|wie|was|welche[mnrs]?|"
            r"cuándo|cuánto|quand|quando|cómo|comment|come|como|dove|où|dónde|onde|wann|wo|porque|parce|car|"
            r"perché|weil|da|noch|geschweige)\b)[^\W\d_])")
"""No clause after a refusal of the sources but one saying what it is about or why ("..., ob ...", "...,
si ...", "..., ni sur ..."): "Os documentos não falam sobre a taxa, o visto é gratuito." states a fact.
Looked for over 200 characters, so that a refusal repeated thousands of times is not read in quadratic
time."""
_SAYS_NOT = (
    r"(?:ne (?:parlent|parle|expliquent|explique|précisent|précise) (?:pas|rien)|n'(?:abordent|aborde|"
    r"évoquent|évoque|expliquent|explique|indiquent|indique) (?:pas|rien)"
    r"|no (?:hablan?|abordan?|explican?|detallan?|aclaran?)"
    r"|non (?:parlano|parla|spiegano|spiega|chiariscono|chiarisce|citano|cita|precisano|precisa|affrontano|"
    r"affronta)|non (?:dicono|dice) (?:nulla|niente)"
    r"|não (?:falam|fala|abordam|aborda|explicam|explica|detalham|detalha|esclarecem|esclarece)"
    r"|não (?:informam|informa) (?:se|sobre|nada|quando|quanto|qual|quais|como|onde)"
    r"|não (?:respondem|responde) (?:a|à|às|ao|aos)"
    r"|(?:sagen|sagt) nichts(?![^.!?]{0,80}\baus\b)"
    r"|(?:sagen|sagt|erwähnen|erwähnt) dazu nichts"
    r"|n'en (?:parlent|parle|disent|dit) (?:pas|rien)"
    r"|ne (?:le|l') ?(?:précisent|précise|mentionnent|mentionne|indiquent|indique|abordent|aborde|évoquent|"
    r"évoque|expliquent|explique) pas"
    r"|no lo (?:mencionan?|dicen?|indican?|especifican?|aclaran?|explican?|detallan?)"
    r"|non ne (?:parlano|parla)|non lo (?:dicono|dice|menzionano|menziona|indicano|indica|specificano|"
    r"specifica|chiariscono|chiarisce|spiegano|spiega)"
    r"|não o (?:mencionam|menciona|referem|refere|indicam|indica|especificam|especifica|explicam|explica|"
    r"dizem|diz))")
"""Verbs of saying, negated, that the sources do not say ("Los documentos no hablan de ...", "Les documents
ne parlent pas de ...", "I documenti non parlano ...", "Os documentos não falam sobre ...", "Die Unterlagen
sagen nichts über ..."), the thing asked about a pronoun too ("Les documents n'en parlent pas.", "La
documentación no lo menciona.", "I documenti non ne parlano.", "Os documentos não o mencionam.", "Die
Dokumente erwähnen dazu nichts."): read only right after the sources as their subject (`SAID_BY`). Not
Spanish "precisar" (also "to need"), Portuguese "responder por" (to answer for), "informar" but of what
they hold, nor German's "nichts aussagen" (reveal nothing)."""
_HOLDS_NOT = (
    r"(?:ne (?:traitent|traite|couvrent|couvre) pas|no (?:tratan?|recogen?)|non (?:trattano|tratta|riportano|"
    r"riporta)|não (?:tratam|trata))")
"""Verbs of treating, negated: what the context given does not treat ("Il contesto fornito non tratta ...").
Read only after sources that can only be the answerer's (`_GIVEN`): "I dati sanitari non sono trattati",
"l'assurance ne couvre pas" and "Os documentos fornecidos não tratam do visto de estudante" are what data,
a policy and an applicant's papers do."""
_NO_INFORMATION = (
    r"(?:ne (?:donnent|donne|fournissent|fournit) (?:pas|aucune) (?:d'|de )?(?:informations?|précisions?|"
    r"détails)|no (?:incluyen?|dan|da|ofrecen?|aportan?|proporcionan?) (?:(?:ninguna|más) )?(?:información|"
    r"informacion|detalles)"
    r"|non (?:includono|include|danno|dà|forniscono|fornisce) (?:(?:alcuna|nessuna) )?(?:informazioni|"
    r"informazione|dettagli)"
    r"|não (?:trazem|traz|incluem|inclui|dão|dá|fornecem|fornece) (?:(?:nenhuma|qualquer) )?(?:informações|"
    r"informação|detalhes))")
"""Verbs of holding, negated, before a word for information: "La información proporcionada no incluye
detalles sobre ...", "os documentos fornecidos não trazem informações": "no incluye el IVA" is what an
invoice holds."""
SAID_BY = (
    r"(?:\b" + _TEXTS + r"(?: " + _MINE + r")? " + _SAYS_NOT
    + r"|\b" + _TEXTS + r" " + _MINE + r" " + _NO_INFORMATION + r"|\b" + _GIVEN + r" " + _HOLDS_NOT
    + r")\b" + _GOES_ON
    + r"|\b(?:die |diese )?(?:" + _MINE + r" )?" + _TEXTS + r" (?:erwähnen|erwähnt|beschreiben|"
    r"beschreibt|thematisieren|thematisiert|erläutern|erläutert) (?!wir\b|ich\b|sie\b|man\b)[^.!?;,:]{0,60}?"
    r"(?:leider )?nicht(?= *(?:[.!;]|$))"
    r"|\b(?:die |diese )?" + _MINE + r" " + _TEXTS + r" (?:behandeln|behandelt) (?!wir\b|ich\b|sie\b|man\b)"
    r"[^.!?;,:]{0,60}?(?:leider )?nicht(?= *(?:[.!;]|$))"
    r"|\b(?:in den|in der|in diesen) (?:" + _MINE + r" )?" + _TEXTS + r"\b"
    r"(?:, die [^,.;:!?]{1,30},)? (?:wird|werden|ist|sind) [^.!?;,:]{0,40}?nicht (?:behandelt|erwähnt|"
    r"thematisiert|erläutert)\b")
"""The sources, as the subject, not saying (`_SAYS_NOT`), not holding information (`_NO_INFORMATION`,
marked as the answerer's), or, only the answerer's, not treating it (`_HOLDS_NOT`), and no clause stating
something after (`_GOES_ON`); German's verb before its "nicht" at the clause's end ("Die Dokumente
erwähnen den Pflegeurlaub nicht.", not "Die Daten erwähnen wir gegenüber Dritten nicht."), and its passive
in them ("In den Dokumenten, die mir vorliegen, wird dieser Fall nicht behandelt.")."""
_ALONE = (r"(?=(?: (?!(?:e|y|et|und|o|ou|oder|ma|mas|mais|pero|aber|porque|pues|car|puisque|perché|poiché|"
          r"pois|weil|denn|da|quindi|donc|also|então|portanto|che|que|qu|dass|parce)\b)[^\W\d_]+(?:['’]"
          r"[^\W\d_]+)?){0,6}[\W_]*$)")
"""Nothing after a refusal in the answerer's own words ("Prefiero no especular.", "Je préfère ne pas
m'avancer sur ce point.") but at most six words and its sentence's end: "..., el trámite tarda dos
semanas.", "... — el trámite ...", "... porque el visado es gratuito" and "... e ti dico che ..." go on to
state something."""
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
DECLINES = deferred(
    "|".join((
        r"\b(?:ich )?(?:weiß|weiss) (?:ich )?(?:es |das )?(?:leider )?nicht\b",
        r"\b(?:liegen )?mir (?:liegen )?(?:leider )?keine (?:informationen|angaben)\b",
        r"\b(?:kann|könnte) (?:ich )?(?:ihnen |dir )?(?:(?:daher|deshalb|also|somit|leider) )?"
        r"(?:diese frage |das |dazu )?(?:leider )?nicht (?:beantworten|sagen)\b",
        r"\b(?:ich habe|habe ich) (?:in |auf )?(?:den |der |die |diesen )?(?:" + _PROVIDED + r" )?(?:"
        + SOURCE_NOUNS + r")\b[^.!?;,]{0,40}?\b(?:nichts|keine (?:informationen|angaben|hinweise)) "
        r"gefunden\b",
        r"\b(?:dazu|darüber|hierzu) (?:leider )?(?:nichts|keine (?:informationen|angaben|"
        r"hinweise)) gefunden\b",
        r"\blässt sich (?:daraus |den [^\W\d_]+ |aus den [^\W\d_]+ )?(?:leider )?nicht (?:ableiten|entnehmen|"
        r"sagen|erkennen|beantworten)\b",
        r"\bje ne (?:sais|saurais) pas\b", r"\bje n'ai (?:pas|aucune) (?:d'|de |les? |l')?informations?\b",
        r"\bje ne (?:peux|suis pas en mesure de) (?:pas )?(?:répondre|vous dire|confirmer)\b",
        r"\brien n'(?:y )?est (?:dit|mentionné|précisé|indiqué)\b",
        # rather not guess ("prefiero no arriesgar una cifra", "mejor no te lo aseguro"), and nothing after
        r"(?:\b(?:prefiero no|mejor no) (?:te |le )?(?:lo )?(?:arriesgar\w*|aventurar\w*|especular|asegur\w*|"
        r"confirm\w*)"
        r"|\bprefiro não (?:arriscar|especular|adivinhar|afirmar|confirmar)"
        r"|\bpreferisco non (?:rischiare|azzardare|sbilanciarmi|speculare)"
        r"|\bnon vorrei (?:darti|darle|darvi|dare) (?:un'informazione|informazioni|indicazioni) "
        r"(?:sbagliat[ae]|errat[ae]|inesatt[ae])\b"
        r"|\bje (?:préfère|préférerais) ne pas (?:m'avancer|avancer|spéculer|deviner|vous induire en erreur)"
        r"|\b(?:ich möchte|möchte ich) (?:ihnen |dir )?(?:nichts falsches sagen|nicht spekulieren|"
        r"keine falschen angaben machen)"
        r"|\bil m'est (?:donc |malheureusement )?impossible de (?:vous |te )?(?:dire|répondre|confirmer|"
        r"donner)\b)" + _ALONE,
        r"\bne (?:me |nous )?permettent? pas de (?:répondre|(?:vous |te )?(?:dire|confirmer))\b",
        r"\bno (?:lo )?sé\b",
        r"\bno (?:tengo|dispongo de|encuentro|encontré|he encontrado) (?:(?:ninguna|la|esa|esta|dicha|"
        r"suficiente) )?(?:información|informacion|datos)\b(?! (?:que|salvo|excepto|aparte)\b)",
        r"\bno (?:puedo|podría) (?:responder|confirmar|decir)",
        r"\bnon (?:lo )?so\b",
        r"\bnon (?:ho|dispongo di|possiedo) (?:(?:alcuna|nessuna|sufficienti|abbastanza) )?(?:informazioni|"
        r"informazione|dati)\b(?! (?:oltre|tranne|salvo|che)\b)",
        r"\bnon (?:posso|sono(?: quindi| pertanto| purtroppo| perciò)? in grado di)"
        r"(?: quindi| pertanto| purtroppo| perciò)? (?:rispondere|confermare|dir(?:e|ti|le|vi))\b",
        r"\bnão (?:sei|encontrei|tenho (?:nenhuma |essa |esta )?informaç(?:ão|ões)"
        r"|posso (?:responder|confirmar))", r"\bnão (?:lhe |te )?(?:consigo|posso) (?:confirmar|dizer|"
        r"responder|informar)\b",
        r"\b(?:" + SOURCE_NOUNS + r")\b[^.!?]{0,60}?\b" + _NOT_SAID + r"\b",
        r"\b(?:in den|dans les|en los|en la|nei|negli|nos|nas) (?:" + SOURCE_NOUNS + r")\b[^.!?]{0,40}?\b"
        + _NOT_SAID + r"\b",
        r"\b" + _NOT_SAID + r"\b[^.!?]{0,40}?\b(?:in den|in der|dans les|en los|en la|en el|nei|negli|nel|"
        r"nos|nas) (?:\w+ )?(?:" + SOURCE_NOUNS + r")\b",
        r"\b(?:finde|fand) ich\b[^.!?]{0,60}?\b(?:nichts|keine (?:informationen|angaben|hinweise))\b",
        r"\b(?:konnte|kann) ich\b[^.!?]{0,60}?\b(?:nichts|keine (?:informationen|angaben|hinweise)) finden\b",
        r"\bgeht aus\b[^.!?]{1,60}?\bnicht hervor\b",
        r"\b(?:erwähnt|erwähnen|nennt|nennen) (?:die |den |der |diese )?(?:" + SOURCE_NOUNS
        + r")\b[^.!?;,:]{0,60}? (?:leider )?nicht(?= *(?:[.!;]|, *und\b|$))",
        SAID_BY,
        r"\bschweig(?:en|t) (?:die |diese |der |das )?(?:" + _PROVIDED + r" )?(?:" + SOURCE_NOUNS + r")\b",
        r"\b(?:nada|nichts|rien|nulla|niente) (?:en|n[oa]s?|in|dans|nei|negli|nelle) (?:(?:los|las|el|la|den|"
        r"der|les|diesen) )?(?:" + _PROVIDED + r" )?(?:" + SOURCE_NOUNS + r")(?: " + _PROVIDED + r")? "
        r"(?:ne )?(?:menciona|dice|fala|diz|indica|habla|erwähnt|sagt|mentionne|parle|indique|dit|"
        r"menziona|parla)\b",
        r"\bje (?:ne trouve|n'(?:y )?ai trouvé) (?:pas|rien|aucune)\b",
        r"\bil n'y a (?:pas|aucune) (?:d'|de )?"
        r"(?:information|informations|précision|précisions|indication|indications)\b",
        r"\bno (?:hay|he encontrado|encuentro|aparece|figura|consta) (?:ninguna |nada|información|"
        r"informacion|"
        r"datos)", r"\b(?:no (?:he podido|pude|puedo) encontrar)\b",
        r"\bnon (?:ci sono|ho trovato|trovo|risultano|sono riuscit[oa] a trovare) (?:(?:alcuna|alcun|nessuna|"
        r"nessun|questa|queste|tale|tali) |quest')?(?:informazioni|informazione|dati|indicazioni|nulla|"
        r"niente|riferimento|riferimenti|menzione)\b",
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
        # none of the documents, or no document, saying it (not holding it: "Keine Quelle enthält mehr als 10
        # mg Nitrat" is of springs), and no comparison with a figure ("... eine andere Frist als 30 Tage")
        r"(?:\b(?:kein(?:e|es|er)? (?:der|dieser) (?:" + _PROVIDED + r" )?" + _TEXTS + r"|kein dokument) "
        r"(?:erwähnt|erwähnen|nennt|nennen|beschreibt|beschreiben|behandelt|behandeln)"
        r"|\baucune? (?:des " + _TEXTS + r"(?: " + _PROVIDED + r")?|document) "
        r"(?:ne (?:l'|y |en )?|n'(?:y |en )?)"
        r"(?:parlent|parle|mentionnent|mentionne|précisent|précise|traitent|traite|évoquent|évoque|indiquent|"
        r"indique|disent|dit|abordent|aborde|font mention|fait mention)"
        r"|\b(?:ningun[oa] de (?:los|las|estos|estas) " + _TEXTS + r"(?: " + _PROVIDED + r")?"
        r"|ningún documento) (?:hablan?|mencionan?|indican?|especifican?|tratan?|dicen?|abordan?|"
        r"hacen? referencia|hacen? mención)"
        r"|\b(?:nessun[oa]? (?:dei|degli|delle|di questi|di queste) " + _TEXTS + r"(?: " + _PROVIDED
        + r")?|nessun documento) (?:parla|menziona|indica|specifica|tratta|dice|riporta|fa riferimento|"
        r"accenna)"
        r"|\b(?:nenhum(?:a)? d(?:os|as|estes|estas) " + _TEXTS + r"(?: " + _PROVIDED + r")?"
        r"|nenhum documento) "
        r"(?:falam?|mencionam?|indicam?|especificam?|tratam?|dizem|diz|abordam?|referem?|faz(?:em)? "
        r"referência|faz(?:em)? menção))\b(?![^.!?]{0,80}?\b(?:als|que|than|oltre|che|außer|sauf|salvo|além|"
        r"tranne|excepto)\b[^.!?]{0,20}?\d)",
        r"\b(?:in den|in der|in diesen) (?:" + _PROVIDED + r" )?(?:" + SOURCE_NOUNS + r") (?:steht|stehen|"
        r"findet sich|finden sich|gibt es) (?:leider )?(?:nichts|keine (?:informationen|angaben|hinweise))\b",
        _NOT_SURE,
        # last, as `ragmon.text.abstention`'s bare cues: "no information", naming no one refusing
        r"(?P<bare>\b(?:aucune|ninguna|nessuna|nenhuma) (?:information|información|informazione|"
        r"informação)\b)",
    ))
)
"""Refusals: "Das weiß ich leider nicht", "Dazu liegen mir keine Informationen vor", "Je ne sais pas",
"Je n'ai pas d'information sur ...", "No tengo información sobre ...", "Non ho informazioni ...",
"Não encontrei essa informação", and the documents saying nothing of it ("Die bereitgestellten Dokumente
enthalten keine Informationen über ...", "Les documents fournis ne précisent pas ...", "Non è specificato
nei documenti"), and the answerer unsure (`_NOT_SURE`). Each holds one of `REFUSAL_WORDS`. "Aucune
information", "ninguna información", "nessuna informazione" and "nenhuma informação" name no one refusing,
and open facts as often ("Aucune information n'est vendue aux assureurs."): the group "bare" tells that one
of them matched, which declines only with `REFUSER` beside it or as `TERSE`."""
REFUSER = deferred(
    r"\bj'|\b(?:je|moi|yo|tengo|io|ho|eu|tenho|ich|mir|" + _TEXTS + r"|disponibles?|disponibil[ei]|"
    r"disponíve(?:l|is)|fourni(?:e|s|es)?|fornit[oaie]|fornecid[ao]s?|proporcionad[ao]s?|facilitad[ao]s?|"
    r"mentionnée?s?|mencionad[ao]s?|menzionat[oaie]|indiquée?s?|indicad[ao]s?|indicat[oaie]|précisée?s?|"
    r"especificad[ao]s?|specificat[oaie]|trouvée?s?|encontrad[ao]s?|trovat[oaie]|mencionan?|mencionam|"
    r"menzionan?o?|mentionnen?t?)(?!\w)")
"""Who refuses beside a bare "no information" in `DECLINES`: the answerer ("Je n'ai trouvé aucune
information sur ..."), the sources, or a word of their giving or finding ("**Contrassegno:** nessuna
informazione disponibile.", "Ninguna información proporcionada menciona ..."), or of their mentioning it
("Lamentablemente, ninguna información menciona el gimnasio."). Not "nous", "nosotros",
"noi" or "nós": a company telling its practice."""
TERSE = deferred(
    r"[\W_]*(?:(?:malheureusement|désolée?|lamentablemente|lo siento|purtroppo|mi dispiace|infelizmente|"
    r"desculpe)[\W_]+)?(?:aucune|ninguna|nessuna|nenhuma) (?:information|información|informazione|informação)"
    r"(?:[\W_]*$| (?:sur|concernant|à propos|au sujet|à ce sujet|quant|sobre|acerca|al respecto|respecto|"
    r"su|sul|sulla|sui|sugli|sulle|in merito|riguardo|circa|a respeito|relativa)\b)")
"""A bare "no information" as the whole of a terse refusal, alone or before its topic: "Aucune information à
ce sujet.", "Nessuna informazione in merito.", "Ninguna información sobre el horario." One going on with a
verb states a fact ("Aucune information n'est vendue aux assureurs.", "Ninguna información se vende a
aseguradoras.")."""
REFUSAL_WORDS = (
    "nicht", "kein", "keine", "pas", "aucun", "aucune", "non", "não", "ninguna", "nessuna", "nenhuma",
    "sé", "tengo", "dispongo", "encuentro", "encontré", "encontrado", "puedo", "podría", "menciona",
    "mencionan", "indica", "indican", "especifica", "especifican", "contiene", "contienen", "dice", "dicen",
    "nichts", "hervor", "trouve", "trouvé", "rien", "aparece", "figura", "consta", "encontrar",
    "informazioni", "trovato", "trovo", "dicono", "encontro", "encontrei", "dizem", "diz", "nada", "aclaran",
    "disent", "dit", "informações", "información", "informacion", "seguro", "segura", "keines", "keiner",
    "ninguno", "ningún", "nessuno", "nessun", "nenhum", "schweigen", "schweigt", "impossible", "prefiero",
    "aseguro", "prefiro", "preferisco", "vorrei", "préfère", "préférerais", "möchte",
    *(noun for noun in SOURCE_NOUNS.split("|") if noun not in _ENGLISH_TOO),
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
ABOUT_THE_REFUSAL = deferred(
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

_LOOKED_IN = r"(?:" + SOURCE_NOUNS + r")(?: " + _MINE + r")?"
SEARCHED = deferred(
    r"[\W_]*(?:(?:ich habe|habe ich)(?: mir)? (?:die |alle |diese )?(?:" + _PROVIDED + r" )?" + _LOOKED_IN
    + r" (?:durchgesehen|durchsucht|geprüft|gelesen|überprüft)"
    r"|j'ai (?:bien )?(?:parcouru|consulté|vérifié|lu|examiné|relu) (?:les |la |le |l'|ces |tous les )?"
    + _LOOKED_IN
    + r"|(?:he|hemos) (?:revisado|consultado|leído|buscado en|comprobado) (?:los |las |la |el |todos los )?"
    + _LOOKED_IN
    + r"|ho (?:controllato|consultato|esaminato|letto|verificato) (?:i |gli |le |la |il |tutti i )?"
    + _LOOKED_IN
    + r"|(?:verifiquei|consultei|li|analisei|revisei) (?:os |as |a |o |todos os )?" + _LOOKED_IN + r")[\W_]*")
"""Where the answerer looked, and nothing else, before a contrast and what it found there ("Ich habe die
Unterlagen durchgesehen, aber dazu nichts gefunden.", "He revisado los documentos proporcionados, pero no
encuentro ..."), as English's "I checked the documents, but ...": set apart from the refusal, it asserted
something of its own, and the refusal was a claim. No clause after the sources: "J'ai consulté les
documents qui confirment que le visa est gratuit, mais ..." asserts."""
CONTRAST = deferred(
    r"\b(?:aber|jedoch|cependant|pero|sin embargo|però|tuttavia|porém|contudo)\b|(?:^|,\s*)(?:mais|ma|mas)\b")
"""A contrast: "ma", "mas" and "mais" only after a comma or at the start, being also "my" (French "à ma
disposition") and "more" (Portuguese "mais alguma dúvida")."""
OWN = deferred(r"\b" + _OWN)
"""The sources as the answerer's (`_OWN`), searched for: the mark of a refusal's reason (`CONSEQUENCE`)."""
DENIES = deferred(r"\b(?:no|non|não|nao|ne|nicht|kein[a-z]*|nada|nichts|rien|niente|nulla|nenhuma?|"
                    r"ningun[oa]?|ningún|nessun[oa]?|aucune?)\b|\bn'")
"""A word that denies, in the five languages: with `OWN`, the mark of a refusal's reason (`CONSEQUENCE`)."""
OPENS_A_STATEMENT = re.compile(
    r"\b(?:(?P<beside>(?:mehr als dass|außer dass|sinon que|si ce n'est que|salvo que|excepto que|solo che|"
    r"tranne che|salvo che|exceto que)(?!\w))|(?P<reason>(?:parce qu'|puisqu'|(?:weil|denn|parce que|puisque|"
    r"ya que|puesto que|dado que|poiché|siccome|dato che|visto che|já que|uma vez que|visto que|"
    r"(?<!sei )(?<!sé )(?<!saber )(?<!explicar )(?<!dizer )(?<!decir )porque|"
    r"(?<!\bso )(?<!sapere )(?<!dirti )(?<!dirle )(?<!capire )(?<!spiega )(?<!spiegarti )(?<!spiegarle )"
    r"perché)(?!\w))))"
    r"|,\s*(?P<reason_after_comma>da|car)\b"
    r"|[,;:]|\s[-—–]\s|[—–]")
"""`abstention._OPENS_A_STATEMENT` in the five languages: what alone is said beside ("..., solo che il
nuovo orario parte in primavera.") or a reason ("... porque la compañía la eliminó en 2023.", "..., da es
90 Tage sind."), only with a figure. Not a question of why ("No sé por qué ...", "Warum ..., kann ich
nicht sagen."), nor "perché" or "porque" after a verb of knowing or telling, where it is "why" ("Não sei
explicar porque é que a biblioteca fechou."); nor a relative clause after a comma: "..., que tratam da
assistência em viagem" says what the sources hold, as often as "..., che resta chiuso per lavori" what a
place does."""
ANSWERERS = re.compile(
    r"\W*(?:[\w']+\W+){0,2}?(?:" + SOURCE_NOUNS + r"|sie|ihnen|du|dir|dich|wir|uns|vous|votre|vos|tu|te|"
    r"usted|nosotros|lei|ti|você|nós|quelle|fuente|fonte|dokument|text|texte|auszüge|auszügen|abschnitt\w*|"
    r"handbuch|material|extrait|extraits|passage|tableau|fragmentos?|pasaje|tabla|documento|testo|passaggio|"
    r"estratto|trecho|trechos)(?!\w)"
    r"|.*\b(?:ich|mir|mich|mein\w*|je|j'|moi|me|m'|mon|ma|mes|yo|mi|mis|io|ho|mio|mia|miei|eu|mim|meu|minha|"
    r"tenho|tengo)(?!\w)")
"""`abstention._ANSWERERS` in the five languages ("..., porque los documentos no lo mencionan", "...,
perché non ho accesso a queste informazioni", "..., weil mir dazu nichts vorliegt")."""
NOT_GIVEN = (re.compile(r"\b(?:nicht|kein\w*|nichts|nirgends|nirgendwo|ne|pas|rien|aucun\w*|no|nada|"
                        r"ningun\w*|ningún|non|nulla|niente|nessun\w*|não|nao|nenhum\w*)\b|\bn'"),
             re.compile(r"angabe|angegeben|erwähnt|aufgeführt|steht|stehen|genannt|beschrieben|behandelt|"
                        r"vorlieg|bekannt|klar|précis|mentionn|indiqu|abord|trait|figur|donn|connu|clair|"
                        r"menciona|especifica|indica|aparece|consta|conoce|trata|\bda\b|\bdan\b|detalle|"
                        r"specificat|menzionat|indicat|trattat|riportat|fornit|compar|not[oa]\b|chiar|"
                        r"mencionad|especificad|referid|tratad|informad|conhecid"))
ABOUT_ANSWERING = re.compile(
    r"\b(?:fehlt|fehlen|manque|manquent|falta|faltan|manca|mancano|frage|unklar|unvollständig|thema|themas|"
    r"spekulation|vertraulich|médic\w*|medic\w*|escopo|questão|"
    r"question|ambigu\w*|cadre|spéculation|confidentiel\w*|pregunta|alcance|especulación|confidencial|"
    r"domanda|ambito|speculazione|riservat[oa]|pergunta|amb[ií]gu[oa]|âmbito|especulação|geändert|ändern|"
    r"changé|changer|cambiado|cambiar|variar|cambiato|cambiare|variare|mudado|mudar)(?!\w)")
"""`abstention._NOT_GIVEN` and `_ABOUT_ANSWERING` in the five languages: the answer not given ("..., da es
nicht angegeben ist", "..., car ce n'est pas précisé", "... porque no se menciona", "... perché non è
specificato", "... porque não está indicado"), missing, the question unclear, an answer a guess, or
changed."""
CONSEQUENCE = deferred(
    r",\s*(?:also|daher|deshalb|sodass|so dass|donc|alors|así que|por lo que|por tanto|quindi|perciò|"
    r"pertanto|então|portanto|por isso)\b")
"""A consequence after a comma: what follows it asserts as what follows "but" does ("La documentación no
menciona límites, así que la API no aplica ninguno." had hidden its claim in the refusal), unless it
declines too ("El Pixel 7 no figura en la tabla de tarifas que tengo, así que no puedo darte un precio.":
what comes before it is the refusal's reason, `OWN`)."""
APOLOGY = deferred(
    r"[\W_]*(?:(?:es )?tut mir (?:sehr )?leid|leider|(?:je suis )?(?:vraiment )?désolée?|malheureusement|"
    r"(?:lo )?siento|lamentablemente|desafortunadamente|mi dispiace|purtroppo|sfortunatamente|desculpe|"
    r"lamento|infelizmente|entschuldigung|entschuldigen sie|excusez-moi|pardon|disculpa|disculpe|perdona|"
    r"perdone|perdón|scusa|scusi|mi scuso|ci scusiamo|desculpa)[\W_]*")
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

NEGATION_WORDS = ("nicht", "kein", "keine", "keinen", "keiner", "pas", "jamais", "non", "não", "nao", "es",
                  "son", "está", "están", "se")
"""Words one of which every `NEGATION` holds, beside "no" (a function word) and `NO_LONGER`: a text none of
whose terms is one is spared the pattern."""
NO_LONGER = "plus"
"""French "ne ... plus" (no longer), a word of `NEGATION` too, kept out of `NEGATION_WORDS`, which also make
a short line a verdict ("Keine Rückerstattung"), as English's "Plus" in a title does not."""
_NO_LONGER = r"plus(?!(?: [\w'-]+){0,4}? qu)"
"""French "plus" as "no longer", not a comparison ("Rien n'est plus simple que ...") or "now only" ("n'est
plus possible que sous 14 jours", "n'est plus possible de payer qu'en ligne")."""
NEGATION = deferred(
    r"\b((?:non (?:è|sono|si|viene|vengono)|não (?:é|são|se|está|estão)"
    r"|no (?:es|son|está|están|se)"
    r"|ne (?:sont|est|sera|seront|peut|peuvent|pouvez)? ?(?:pas|jamais|" + _NO_LONGER + ")"
    r"|n'(?:est|a|ont|était|sera) (?:pas|jamais|" + _NO_LONGER + ")"
    r"|nicht|kein|keine|keinen|keiner|non|não|nao) (?!nur |seulement |solo |sólo |só )"
    r"(?:jedoch |aber |mehr |immer |plus |toujours |más |siempre |più |sempre |mais )?(?:être )?)(\w)")
"""A negation and the first letter of the word it negates: "nicht erstattungsfähig", "ne sont pas
remboursables" (or "jamais", never, or "plus", no longer: "n'est jamais remboursable" had supported "est
remboursable"), "no son reembolsables", "non sono rimborsabili", "não são reembolsáveis". The word is
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
