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
        r"\bgeht aus (?:den|der|dem|diesen) (?:\w+ )?(?:" + SOURCE_NOUNS + r"|unterlagen) (?:leider"
        r" )?nicht hervor\b",
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
        r"\bno (?:aparece|figura|consta|viene) en (?:la|las|los|el) (?:" + SOURCE_NOUNS
        + r"|documentación)\b",
        r"\b(?:n'est|ne sont|n'a|n'ont) pas (?:été )?(?:abordée?s?|traitée?s?|mentionnée?s?|précisée?s?|"
        r"couverte?s?|évoquée?s?) dans (?:les|la|le|ces) (?:" + SOURCE_NOUNS + r"|documentation)\b",
        r"\b(?:nelle|nei|nella) (?:" + SOURCE_NOUNS + r"|documentazione)\b[^.!?]{0,40}?\bnon (?:si"
        r" parla|si dice|"
        r"si menziona|si accenna|viene (?:indicat|menzionat|specificat)[oa])\b",
    ))
)
"""Refusals: "Das weiß ich leider nicht", "Dazu liegen mir keine Informationen vor", "Je ne sais pas",
"Je n'ai pas d'information sur ...", "No tengo información sobre ...", "Non ho informazioni ...",
"Não encontrei essa informação", and the documents saying nothing of it ("Die bereitgestellten Dokumente
enthalten keine Informationen über ...", "Les documents fournis ne précisent pas ...", "Non è specificato
nei documenti"). Each holds one of `CUES`."""
REFUSAL_WORDS = (
    "nicht", "kein", "keine", "pas", "aucun", "aucune", "non", "não", "ninguna", "nessuna", "nenhuma",
    "sé", "tengo", "dispongo", "encuentro", "encontré", "encontrado", "puedo", "podría", "menciona",
    "mencionan", "indica", "indican", "especifica", "especifican", "contiene", "contienen", "dice", "dicen",
    "nichts", "hervor", "trouve", "trouvé", "rien", "aparece", "figura", "consta", "encontrar",
    "informazioni", "trovato", "trovo", "dicono", "encontro", "encontrei", "dizem", "diz", "nada", "aclaran",
    "disent", "dit", "informações", "información", "informacion",
)
"""Words one of which every refusal above holds beside "no" (a function word): a sentence none of whose
terms is one is spared the pattern."""

CONTRAST = re.compile(
    r"\b(?:aber|jedoch|mais|cependant|pero|sin embargo|ma|però|tuttavia|mas|porém|contudo)\b")
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

_FOR = (r"(?:[ ,]+(?:bei|beim|mit|für|im|in|am|zum|zur|pour|avec|à|au|aux|a|al|en|con|para|per|nel|nella|"
        r"alla|allo|ai|alle|all'|com|na|no|ao|de|et|y|e|und|vous)\b[^\d.!?]{1,50})?")
COURTESY = re.compile(
    r"[\W_]*(?:"
    # good wishes, with what they are for, strung together ("Un saludo y buen viaje de regreso.")
    r"(?:(?:viel (?:erfolg|spaß|glück|erholung)|alles gute|gute besserung|(?:ich wünsche ihnen )?(?:eine )?"
    r"gute (?:reise|fahrt)|(?:einen )?schönen tag(?: noch)?|(?:très )?bonne (?:journée|soirée|continuation|"
    r"fin de journée|route|chance)|bon (?:voyage|séjour|courage)|"
    r"au plaisir de vous (?:voir|revoir|accueillir|lire)|"
    r"(?:que (?:tengas|tenga) )?(?:un )?buen (?:día|viaje|fin de semana)|buena suerte|(?:un )?saludos?|"
    r"que (?:se|te) mejores?|in bocca al lupo|buona (?:fortuna|giornata|serata)|buon (?:lavoro|viaggio|"
    r"soggiorno|divertimento)|spero che [^\d.!?]{1,40} (?:godiate|goda|godano)(?: [^\d.!?]{1,30})?|"
    r"boa (?:sorte|viagem|estadia)|(?:tenha|tenhas) um (?:bom|ótimo) dia|(?:as )?melhoras)"
    r"(?: (?:pronto|presto|bald|bientôt|logo))?" + _FOR + r"(?:[ ,]+(?:y|et|e|und) )?)+"
    # help offered if the user needs more
    r"|(?:bei|für) (?:weiteren|anderen) fragen[^\d.!?]{0,40}? (?:bin ich|stehe ich) (?:ihnen |dir )?"
    r"(?:gerne|jederzeit) (?:für sie da|für dich da|zur verfügung)"
    r"|si (?:necesita|necesitas|tiene|tienes) [^\d.!?]{1,40}?,? (?:no (?:dude|dudes) en (?:preguntar|"
    r"consultarme|contactarnos|escribirnos|preguntarme)|estoy a (?:su|tu) disposición|aquí estoy|avíseme|"
    r"avísame|dígame|dime)"
    r"|se (?:hai|ha) [^\d.!?]{1,40}?,? (?:sono qui|chiedi pure|non esitare a (?:chiedere|contattarmi|"
    r"scrivermi))"
    r"|(?:se (?:precisar|tiver|precisares|tiveres)|qualquer dúvida)[^\d.!?]{0,40}?,? (?:estou à (?:sua |"
    r"tua )?"
    r"disposição|é só (?:me )?(?:avisar|chamar|perguntar|dizer|falar)|fale comigo|diga-me|diz-me|me avise)"
    # an apology or sympathy, with what for
    r"|(?:(?:es )?tut mir (?:sehr )?leid|(?:je suis )?(?:vraiment )?désolée?|lamento(?: mucho)?|"
    r"(?:lo )?siento(?: mucho)?|mi dispiace(?: molto)?|sinto muito)"
    r"(?: (?:für|pour|por|per|pelo|pela|pelos|pelas)\b[^\d.!?]{1,40}| lo ocurrido| o ocorrido| l'accaduto)?"
    r")[\W_]*")
"""Courtesies with words of their own: good wishes ("Viel Erfolg bei der Bewerbung!", "Bonne journée à vous
et à votre chiot !", "In bocca al lupo per l'iscrizione!"), help offered if the user needs more ("Se
precisar de mais alguma informação, estou à disposição."), an apology or sympathy ("Désolé pour ce
désagrément.", "Sinto muito pelo transtorno!"). No claims; read apart from `FILLER_PHRASES`, whose words
must all be the phrases' own."""
COURTESY_WORDS = (
    "reise", "fahrt", "tag", "route", "voyage", "séjour", "día", "viaje", "semana", "giornata", "serata",
    "estadia", "dia",
    "erfolg", "spaß", "glück", "erholung", "besserung", "chance", "courage", "journée", "soirée",
    "continuation", "plaisir", "suerte", "saludo", "saludos", "viaje", "mejore", "mejores", "lupo",
    "fortuna", "lavoro", "viaggio", "soggiorno", "divertimento", "godiate", "goda", "godano", "sorte",
    "viagem", "melhoras", "fragen", "disposición", "disposição", "necesita", "necesitas", "tiene", "tienes",
    "hai", "precisar", "precisares", "tiver", "tiveres", "dúvida", "leid", "désolé", "désolée", "lamento",
    "siento", "dispiace", "sinto",
)
"""Words one of which every courtesy holds: a sentence none of whose terms is one is spared the pattern."""
ASKS = re.compile(
    r"[\W_]*+(?:kann ich|könnte ich|soll ich|darf ich|möchten sie|wollen sie|brauchen sie|"
    r"haben sie (?:noch )?"
    r"(?:weitere|andere)|puis-je|(?:est-ce que )?je peux vous|voulez-vous|souhaitez-vous|désirez-vous|"
    r"aimeriez-vous|avez-vous (?:besoin|d'autres)|(?:te|le|les) (?:puedo|podemos)|puedo|podemos|"
    r"(?:quiere|quieres|desea|deseas) que|(?:le|te) gustaría|necesita|necesitas|hay algo (?:más|en)|"
    r"(?:tiene|tienes) (?:alguna )?(?:otra|más)|posso|possiamo|(?:vuoi|vuole|desideri|desidera) che|"
    r"(?:ti|le) (?:serve|piacerebbe)|(?:hai|ha) bisogno|c'è (?:qualcos'altro|altro)|quer que|queres que|"
    r"deseja|gostaria|precisa|precisas|há mais|tem mais)\b", re.IGNORECASE)
"""The openings of questions put to the user: "Kann ich Ihnen sonst noch weiterhelfen?", "Souhaitez-vous
que je compare avec les autres formules ?", "¿Hay algo más en lo que pueda ayudarle?", "Posso aiutarti con
il calendario della raccolta?", "Posso ajudar com mais alguma questão?". As English's, a question only
with its "?" at the end."""

_CONTACT = (
    r"(?:kontaktieren|contacter|joindre|appeler|consulter|vous adresser|vous rapprocher|vous renseigner|"
    r"demander|vérifier|voir|contactar|contactes|contacte|consultar|consultes|consulte|preguntar|preguntes|"
    r"pregunte|dirigirte|dirigirse|te dirijas|se dirija|llamar|confirmar|confirmes|confirme|confirmarlo|"
    r"verificar|ponerte en contacto|ponerse en contacto|contattare|rivolgerti|rivolgersi|rivolgervi|chiedere|"
    r"chiamare|sentire|verificare|contatar|contate|entrar em conta(?:c)?to|entre em conta(?:c)?to|falar|fale|"
    r"perguntar|pergunte|consultare|parlare|parler|llame|llames|poser (?:la|votre|cette) question)"
)
"""The verbs of asking someone, as infinitives and subjunctives after a recommendation ("Je vous invite à
contacter", "te recomiendo que lo consultes", "ti consiglio di rivolgerti", "sugiro que confirme")."""
_IMPERATIVE = (
    r"(?:(?:bitte |am besten )?(?:wenden sie sich|wende dich|erkundigen sie sich|kontaktieren sie|fragen sie|"
    r"rufen sie|sprechen sie)(?: bitte| am besten| direkt| dafür| hierzu|"
    r" dazu)*(?P<about> mit (?:dieser|ihrer|"
    r"der|diesem|ihrem) (?:frage|anfrage|anliegen|angelegenheit))?(?: an| bei| beim| mit)?|adressez-vous|"
    r"renseignez-vous|rapprochez-vous|contactez|appelez|contacta|contacte|consulta|consulte|pregunta|"
    r"pregunte|dirígete|diríjase|ponte en contacto|póngase en contacto|llama|llame|contatta|contatti|"
    r"rivolgiti|si rivolga|chiedi|chieda|chiama|chiami|contate|entre em conta(?:c)?to|fale|pergunte|"
    r"(?:vous pouvez|vous pourriez|puedes|puede|podrías|podría|puoi|può|potete|potresti|potrebbe|pode|podes|"
    r"poderá|poderia|sie können|du kannst)(?: sich| dich)? " + _CONTACT + r"(?:lo|la)?)"
)
"""A pointer's verb as an instruction or as what the user can do: one only with a purpose
(`IMPERATIVE_REFERRAL`), as "Contacte o apoio ao cliente." alone, or "Puede consultar el saldo en la app.",
may be how a thing is done."""
_PARTY = r"[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*){0,9}?"
"""Someone to ask, as up to ten words with no digit ("el servicio de atención al cliente de Aerolíneas
Brisa"): a
party's name is any words here, as the recommendation before it and the ending after it (nothing but
"directly", a second party or a few words of purpose) keep what it may say small."""
_DIRECTLY = r"(?: (?:direkt|directement|directamente|direttamente|diretamente))?"
_TO = (r"(?: (?:à|au|aux|auprès de|avec|de|du|des|con|a|al|en|alla|allo|all'|ai|alle|presso|com|ao|"
       r"junto d[oa]|an|bei|beim))?")
_OR_PARTY = (r"(?: (?:oder|ou|o|or|oppure|e|und|et|y) (?:" + _CONTACT + r" )?(?:an |à |au |aux |al |a |"
r"con |com "
             r"|ao |alla |bei |beim |en |no |na )?" + _PARTY + r")?")
_TAIL_PURPOSE = (
    r"(?:pour en savoir plus|pour plus d'informations|pour (?:le |la )?confirmer|pour (?:toute|"
    r"vos) questions?|"
    r"pour (?:obtenir )?une réponse (?:fiable|précise|définitive)|"
    r"für (?:weitere|nähere|genauere) (?:informationen|auskünfte|details)|"
    r"um (?:das|dies|es) (?:zu klären|zu bestätigen|abzuklären)|para (?:más|obtener más) información|"
    r"para confirmarlo|para (?:cualquier|más) (?:duda|consulta)s?|per (?:maggiori|ulteriori) informazioni|"
    r"per (?:conferma|sicurezza)|per (?:qualsiasi|eventuali) (?:dubbi|domande)|para mais informações|"
    r"para (?:confirmar|ter a certeza|ter certeza)|(?:antes de|prima di|avant de|vor) [^\d,.;:!?]{1,30}|"
    r"(?:pour (?:connaître|savoir|vérifier)|para (?:saber|conocer|consultar|informarte|informarse|conhecer|"
    r"verificar)|per (?:sapere|conoscere|verificare)|um [^\d,.;:!?]{0,40}zu erfahren)[^\d,.;:!?]{0,50}|"
    r"um (?:die |alle |weitere )?(?:details|einzelheiten|fragen|das|dies|es)(?: \w+)? (?:abzustimmen|"
    r"abzuklären|zu klären|zu besprechen|zu bestätigen))")
"""A purpose a pointer may close with: to know more, to confirm, before travelling."""
_ENDING = (_DIRECTLY + _OR_PARTY + _DIRECTLY + r"(?:,? (?:zu wenden|wenden|nach|(?P<tail>" + _TAIL_PURPOSE
           + r")))?(?:,? (?:che|qui|que|der|die) (?:saprà|potrà|saura|pourra|sabrá|podrá|saberá|poderá|kann|"
           r"können)[^\d.;:!?]{0,40})?")
_PURPOSE = (r"(?:für|zur|um|bei|wenn|falls|pour|afin de|si|en cas de|para|sobre|en caso de|per|se|in caso di|"
            r"em caso de|caso) [^\d,.;:!?]{1,60}")
"""A purpose a pointer may open with: "Für eine verbindliche Auskunft", "Pour obtenir une réponse fiable,",
"Si tienes dudas sobre tu caso concreto,", "Per saperlo con certezza", "Para saber se este tratamento
está coberto,"."""
_RECOMMEND = (
    r"(?:(?:ich )?(?:empfehle|rate) (?:ich )?(?:ihnen|dir),? (?:sich|dich)(?: direkt)? (?:an|bei)"
    r"|am besten (?:wenden sie sich|wende dich|erkundigen sie sich|fragen sie)(?: direkt| dafür| hierzu|"
    r" dazu)*"
    r" (?:an|bei|beim)|am besten (?:kontaktieren|fragen|rufen) sie(?: direkt)?"
    r"|(?:je vous (?:invite|conseille|recommande|suggère) (?:à|de|d')|il (?:est|serait) (?:préférable|"
    r"conseillé|plus sûr) de|mieux vaut|le mieux (?:est|serait) de|(?:te|le|les|os) (?:recomiendo|"
    r"recomendaría|sugiero|"
    r"aconsejo)(?: que)?(?: lo| la)?|lo mejor (?:es|sería)(?: que)?|es mejor(?: que)?|(?:ti|le|"
    r"vi) (?:consiglio|suggerisco|raccomando|"
    r"invito) (?:di|a)|(?:ti|le|vi) conviene|(?:sugiro|recomendo|aconselho)(?: que)?(?: você)?|"
    r"o melhor (?:é|seria)(?: que)?) ?" + _CONTACT
    + r"(?:lo|la)?" + _DIRECTLY + _TO + r")"
)
"""A recommendation to ask, up to the party: "Am besten wenden Sie sich an", "Ich empfehle Ihnen, sich an
(... zu wenden)", "Je vous conseille de contacter", "Te recomiendo que lo consultes directamente con", "Ti
consiglio di rivolgerti alla", "Sugiro que confirme diretamente com"."""
REFERRAL = re.compile(
    r"[\W_]*(?:" + _PURPOSE + r",? )?(?:" + _RECOMMEND + r" " + _PARTY
    + r"|(?:ich )?(?:empfehle|rate) (?:ich )?(?:ihnen|dir),? " + _PARTY + r" (?:zu kontaktieren|zu fragen|"
    r"anzurufen)|(?:ich )?(?:empfehle|rate) (?:ich )?(?:ihnen|dir),? [^\d,.;:!?]{0,40}? mit " + _PARTY
    + r" (?:zu besprechen|abzustimmen|zu klären))" + _ENDING + r"[\W_]*")
"""A recommendation to ask someone who may know, which refusals end with: "Am besten wenden Sie sich
direkt an Ihren Verkehrsverbund.", "Je vous invite à contacter votre conseiller pour en savoir plus.", "Te
recomiendo que lo consultes directamente con la oficina de alquiler antes de viajar.", "Ti consiglio di
rivolgerti alla segreteria studenti.", "Sugiro que confirme diretamente com o senhorio." As English's in
`ragmon.text.abstention`, only the pointer: nothing after the party but "directly", a second party or a
few words of purpose ("pour en savoir plus", "antes de viajar"); what the party will do, a number to call
or a second clause is a claim, and so is a recommendation to do anything but ask ("Am besten buchen Sie
online.")."""
IMPERATIVE_REFERRAL = re.compile(
    r"[\W_]*(?:(?P<purpose>" + _PURPOSE + r"),? )?" + _IMPERATIVE + _DIRECTLY + _TO + " " + _PARTY + _ENDING
    + r"[\W_]*")
"""The pointer as an instruction or as what the user can do: one only with a purpose before or after it
("Pour obtenir une réponse fiable, adressez-vous directement à une agence.", "Per saperlo con certezza
puoi contattare direttamente il museo.", "Contacta con el banco para más información.")."""
REFERRAL_WORDS = (
    "kontaktieren", "wenden", "erkundigen", "fragen", "rufen", "empfehle", "rate", "besten", "contacter",
    "joindre", "appeler", "consulter", "adresser", "rapprocher", "renseigner", "demander", "vérifier",
    "adressez", "renseignez", "rapprochez", "contactez", "appelez", "contactar", "contactes", "contacte",
    "contacta", "consultar", "consultes", "consulte", "consulta", "preguntar", "preguntes", "pregunte",
    "pregunta", "dirigirte", "dirigirse", "dirijas", "dirija", "dirígete", "diríjase", "llamar", "llama",
    "llame", "confirmar", "confirmes", "confirme", "confirmarlo", "verificar", "ponerte", "ponerse", "ponte",
    "póngase", "contattare", "contatta", "contatti", "rivolgerti", "rivolgersi", "rivolgervi", "rivolgiti",
    "rivolga", "chiedere", "chiedi", "chieda", "chiamare", "chiama", "chiami", "sentire", "verificare",
    "contatar", "contate", "contato", "contacto", "falar", "fale", "perguntar", "pergunte", "poser",
    "parlare", "parler", "sprechen", "consultare", "llames", "conviene",
)
"""Words one of which every pointer above holds: a sentence none of whose terms is one is spared the
patterns."""
