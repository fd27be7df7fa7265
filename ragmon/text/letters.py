"""The frame of an answer written as a letter: a salutation ("Dear Ms Patel,", "Sehr geehrte Frau Weber,"),
a closing ("Kind regards,", "Mit freundlichen Grüßen", "Cordialement,") and the signature under it ("The
Northwind Support Team", "Anna Schmidt", "Il team di assistenza"). None of them asserts anything a page
could hold, and read as claims they had no page's words: an answer with one true sentence inside a
salutation, a closing and a two-line signature scored groundedness 1/5.

What a signature states stays a claim: a line with a digit, an "@" or a web address (a phone number,
opening hours, an e-mail address) is read as any sentence is, since a made-up hotline under a letter is as
wrong as one inside it; so is a line of words that are not a name's ("Open Monday to Friday")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragmon.text.deferred import deferred
from ragmon.text.terms import profile

_UPPER = "A-ZÀ-ÖØ-ÞĆČĐŁŃŐŘŚŠŰŹŻŽ"
_TITLES = (r"mr|mrs|ms|miss|dr|prof|frau|herr|fr|hr|madame|monsieur|mademoiselle|mme|mlle|sig|signor|signora|"
           r"signorina|sig\.ra|dott|dott\.ssa|dottssa|sr|sra|srta|señor|señora|señorita|don|doña|dona|senhor|"
           r"senhora|senhorita")
_ADDRESSEES = """
    team all everyone there folks valued customer customers client clients member members user users
    guest guests patient patients student students parent parents colleague colleagues friend friends
    sir madam cliente clientes clienti utente utenti socio socia soci membro membri membros paziente
    pazienti studente studenti studentessa usuario usuaria usuarios usuário usuária paciente pacientes
    estudiante estudiantes aluno aluna alunos collega colleghi amigo amiga membre membres abonné
    abonnée abonnés adhérent adhérente étudiant étudiante and und et y e
"""
_NAME = (r"(?:[" + _UPPER + r"][\w'’.-]*|(?i:" + _TITLES + r")\.?|(?:"
         + "|".join(map(re.escape, _ADDRESSEES.split())) + r")\b)")
"""A word of a name after a greeting: a capitalised word, a title ("Ms", "Frau", "Sr.", "signora"), or
the words that stand for one ("Hi there", "Dear customer", "Gentile studente", "Damen und Herren")."""

_GREETING = (
    r"dear|hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening|day)"
    r"|hallo|guten (?:tag|morgen|abend)|(?:sehr )?geehrte[rs]?|liebe[rs]?|moin|servus|grüß gott|grüezi"
    r"|bonjour|bonsoir|salut|ch(?:er|ère)s?|madame|monsieur|mesdames|messieurs"
    r"|hola|buen(?:os|as) (?:días|dias|tardes|noches)|estimad[oa]s?|querid[oa]s?"
    r"|ciao|buongiorno|buonasera|salve|gentil[ei]|egregi[oa]|car[oai]"
    r"|olá|oi|bom dia|boa (?:tarde|noite)|prezad[oa]s?")
_SALUTATION = deferred(
    r"[¡¿*_ \t]*(?i:" + _GREETING + r")\b(?:(?:[ \t]*+,)?[ \t]++" + _NAME + r"){0,4}[*_]*"
    r"(?:[ \t]*+[.!]*+[ \t]*+$|[ \t]*+(?:[,:!]|[—–]|--)[ \t]*+(?:$|(?=\S)))")
"""A greeting with up to four words of a name, the whole sentence ("Dear Ms Patel,", "Guten Tag, Frau
Müller,", "Madame, Monsieur,", "Estimado Sr. García:") or what opens it before a comma, a colon or a dash
("Hi Jonas, thanks for your message."): "Dear customers who ordered before May ..." and "Hello Kitty bags
are ..." are neither, as no mark ends the name. Possessive spaces: two runs that could share them ("Dear
John" and 10,000 spaces before a letter) were tried split every way, a sentence taking seconds."""

_FROM = r"(?: (?:aus|from|desde|da|de|dalla|dal) [^\d.!?,:;\n]{1,30})?"
"""Where a closing's regards come from: "Liebe Grüße aus Hamburg", "Saludos desde Bilbao"."""
_VALEDICTION = (
    r"(?:with )?(?:(?:kind|kindest|best|warm|warmest|many|sincere) )?regards|(?:with )?(?:best|warm|warmest|"
    r"kind|kindest|all good) wishes|best|all the best|(?:yours )?(?:sincerely|faithfully|truly|cordially)"
    r"|sincerely yours|respectfully(?: yours)?|cheers|take care|(?:many )?thanks(?: again)?"
    r"|thank you(?: again)?|with thanks|talk soon|speak soon|greetings" + _FROM +
    r"|(?:mit )?(?:freundlichen|besten|herzlichen|lieben|schönen|sonnigen|vielen) gr(?:ü|ue)(?:ß|ss)en"
    + _FROM +
    r"|(?:(?:viele|liebe|beste|herzliche|freundliche|schöne|sonnige) )?gr(?:ü|ue)(?:ß|ss)e" + _FROM +
    r"|gruß|gruss|mfg|bis bald|danke(?: schön)?|vielen dank|herzlichst|tschüss"
    r"|(?:bien |très )?cordialement|bien à (?:vous|toi)|(?:sincères |meilleures |bien )?salutations"
    r"(?: distinguées| cordiales| respectueuses)?|(?:bien |très )?amicalement|à (?:très )?bientôt"
    r"|(?:bonne|belle) (?:journée|soirée)|merci(?: beaucoup| encore)?"
    r"|(?:je vous prie d'|nous vous prions d'|veuillez )agréer\b[^.!?\n]{0,120}salutations[^.!?\n]{0,30}"
    r"|(?:un )?(?:cordial )?saludo(?: cordial)?|saludos(?: cordiales)?" + _FROM + r"|atentamente|cordialmente"
    r"|(?:reciba|reciban|recibe) un (?:cordial |afectuoso )?saludo|un (?:fuerte )?abrazo|hasta pronto"
    r"|(?:muchas )?gracias"
    r"|(?:cordiali|distinti|cari|tanti|molti) saluti|saluti(?: cordiali)?" + _FROM
    + r"|un (?:caro |cordiale )?saluto(?: cordiale)?|a presto|buona giornata|grazie(?: mille)?"
    r"|(?:com os )?(?:melhores )?cumprimentos|atenciosamente|(?:um )?(?:grande )?abraço|abraços|beijinhos"
    r"|beijos"
    r"|até (?:breve|logo)|(?:muito )?obrigad[oa]|saudações(?: cordiais)?")

_CONNECTORS = """
    from at by of the and & de du des la le les der die das den dem von vom van und für di del della dei da
    do dos e y et al ao à au your ihr ihre ihres dein deine euer votre vos ton su sus il lo gli o a os as
    vostro vostra seu sua
"""
_ROLES = """
    team teams support service services customer customers client clients care desk helpdesk help
    centre center department dept office agent advisor adviser representative manager specialist
    consultant équipe relation relations conseiller conseillère assistance equipo atención atencion
    cliente clientes soporte asistencia servicio agente asesor asesora departamento squadra assistenza
    clienti servizio ufficio reparto consulente operatore operatrice equipa apoio atendimento serviço
    serviços suporte consultor consultora clientèle clientele commercial commerciale comercial sales
    account accounts billing technical technique técnico técnica tecnico tecnica senior junior lead
    head officer coordinator coordinatrice coordinador coordinadora coordinatore
    responsable responsabile gestor gestora gestore executive director directeur directrice directora
    direttore direttrice diretor diretora assistant assistante asistente assistente atendente
"""
_SIGNATURE_WORD = (r"(?:(?i:[ld]['’])?(?:[" + _UPPER + r"][\w'’.-]*+|(?i:" + _TITLES + r")\.?|(?:"
                   + "|".join(map(re.escape, (_CONNECTORS + " " + _ROLES).split())) + r")\b))")
"""A word of a signature. Its hyphens possessive: "A-A-A..." could be one word or words a hyphen
separates (`_SIGNATURE`), tried every way, twice the time for each "-A" more (20: a tenth of a second)."""
_SIGNED = r"(?:[ \t]*+[,—–-]?[ \t]*+" + _SIGNATURE_WORD + r"(?:[ \t]++" + _SIGNATURE_WORD + r"){0,7})?"
_CLOSING = deferred(r"[*_ \t]*(?i:" + _VALEDICTION + r")[*_]*[ \t]*+[,.!]*" + _SIGNED
                      + r"[ \t]*+[.!]?[*_]*+[ \t]*+")
"""A closing formula, alone ("Kind regards,", "Mit freundlichen Grüßen", "Je vous prie d'agréer, Madame,
Monsieur, l'expression de mes salutations distinguées.") or signed on its line ("Best regards, Tom",
"Cordialement, l'équipe Acme."). Possessive spaces: runs that could share them ("Kind regards" and 1,000
spaces before "x1") were tried split every way, for longer than a request may take."""
_SIGNATURE = deferred(r"[ \t]*(?:[—–-]{1,2}[ \t]*)?" + _SIGNATURE_WORD + r"(?:[ \t,|/·•—–-]+"
                        + _SIGNATURE_WORD + r"){0,7}[ \t]*\.?")
"""A line of a signature: a name, a job title, a team ("The Northwind Support Team", "Ihr Kundenservice der
Stadtwerke Lindau", "El equipo de Atención al Cliente"), eight words at most."""
_SENT_FROM = deferred(
    r"[ \t]*(?i:sent from my|von meinem|envoyé de mon|envoyé depuis mon|enviado desde mi|inviato da(?: mio"
    r"| il mio)?|enviado do meu|enviado a partir do meu)[ \t]++[^\s.!?,;:\d@]+"
    r"(?:[ \t]++[^\s.!?,;:\d@]+){0,2}?(?:[ \t]++(?i:gesendet))?[ \t]*+\.?[ \t]*+")
"""A mail app's line under a letter ("Sent from my iPhone", "Von meinem iPad gesendet", "Envoyé de mon
Galaxy"): it says how the mail was sent, nothing a page could hold. Possessive spaces: "Sent from my
iPhone" and 10,000 spaces before "1" had been tried split every way, for seconds."""
_STATES = deferred(r"[0-9@]|://|www\.|^\W*p\.?\s?s\b", re.IGNORECASE)
"""What makes a line under a closing a statement: a number, an address, a postscript."""

CLOSING_LINES = 6
"""How many of an answer's last sentences may be its closing and signature."""
UNSIGNED_NAME_LINES = 3
"""How many name lines may end an answer with no closing above them ("...at the desk.\nMarta\nRutaCar")."""


def ending(answer: str, spans: Sequence[tuple[int, int]]) -> tuple[int, frozenset[int]]:
    """Where an answer's letter ending starts, and which of its sentences say nothing: a closing formula
    among the last `CLOSING_LINES` sentences and the name lines under it, or, with no closing, up to
    `UNSIGNED_NAME_LINES` name lines ending the answer, each on a line of its own after a sentence that
    ended ("... every day.\nMarta\nAtención al Cliente RutaCar"; never after a lead-in's colon, nor as a
    list's items). A line under the closing that states something (a number, an address, a postscript) is
    in neither: it is judged, as any claim is. (len(spans), empty) for an answer that ends otherwise."""
    count = len(spans)
    for index in range(count - 1, max(0, count - CLOSING_LINES) - 1, -1):
        if closes_a_letter(answer[spans[index][0]:spans[index][1]]):
            names = (after for after in range(index + 1, count)
                     if signs_a_letter(answer[spans[after][0]:spans[after][1]]))
            return index, frozenset((index, *names))
    first = count
    while (first > 0 and count - first < UNSIGNED_NAME_LINES and _on_its_line(answer, spans[first - 1])
           and signs_a_letter(answer[spans[first - 1][0]:spans[first - 1][1]])):
        first -= 1
    if first in (0, count) or not _ended(answer, spans[first - 1]):
        return count, frozenset()
    return first, frozenset(range(first, count))


def _on_its_line(answer: str, span: tuple[int, int]) -> bool:
    """Whether a sentence is a whole line: nothing but blanks before it on its line (no list marker, no
    other sentence) and a line break or the end after it."""
    start, end = span
    line_start = answer.rfind("\n", 0, start) + 1
    return not answer[line_start:start].strip() and (end == len(answer) or answer[end:end + 1] in "\r\n")


def _ended(answer: str, span: tuple[int, int]) -> bool:
    return answer[span[0]:span[1]].rstrip("*_)\"'”’ ").endswith((".", "!", "?", "…"))


_GREETING_FIRST = """
    dear hi hello hey hiya greetings good hallo guten sehr geehrte geehrter geehrtes liebe lieber liebes moin
    servus grüß grüezi bonjour bonsoir salut cher chère chers chères madame monsieur mesdames messieurs hola
    buenos buenas estimado estimada estimados estimadas querido querida queridos queridas ciao buongiorno
    buonasera salve gentile gentili egregio egregia caro cara cari olá oi bom boa prezado prezada prezados
    prezadas
"""
_GREETING_WORDS = frozenset(_GREETING_FIRST.split())
"""The first words of `_GREETING`: a sentence opening with none is spared the pattern, which every claim is
asked (a match had cost scoring 2% of its instructions)."""
GREETING_TERMS = frozenset(term for word in _GREETING_WORDS for term in profile(word).terms)
"""Their terms, one of which every salutation holds ("Sehr geehrte" too): a caller holding a sentence's
terms spares nearly every claim even the first-word test."""
_CLOSING_FIRST = """
    with kind kindest best warm warmest many sincere regards all yours sincerely respectfully cheers take
    thanks thank talk speak greetings mit freundlichen besten herzlichen lieben schönen sonnigen vielen viele
    liebe beste herzliche freundliche schöne sonnige grüße grüsse gruesse gruß gruss mfg bis danke herzlichst
    tschüss bien très cordialement sincères meilleures salutations amicalement à bonne belle merci je nous
    veuillez un cordial saludo saludos atentamente cordialmente reciba reciban recibe hasta muchas gracias
    cordiali distinti cari tanti molti saluti a buona grazie com melhores cumprimentos atenciosamente um
    grande abraço abraços beijinhos beijos até muito obrigado obrigada saudações
"""
_CLOSING_WORDS = frozenset(_CLOSING_FIRST.split())
"""The first words of `_VALEDICTION`, for the same reason: the last sentences of every answer are asked."""
_MOST_SIGNATURE_SPACES = 12
"""Spaces past which a line is spared the signature pattern: its eight words with separators between."""


def _opens_with(sentence: str, words: frozenset[str]) -> bool:
    head = sentence[:24].lstrip("*_ \t¡¿").split(None, 1)
    return bool(head) and head[0].rstrip(",.!:;").lower() in words


def salutation_end(sentence: str) -> int:
    """Where what a sentence says starts after an opening salutation: its length when it is all greeting,
    0 when it opens with none."""
    if not _opens_with(sentence, _GREETING_WORDS):
        return 0
    found = _SALUTATION.match(sentence)
    return 0 if found is None else found.end()


def closes_a_letter(sentence: str) -> bool:
    """Whether the sentence is a closing formula, alone or signed on its line."""
    return _opens_with(sentence, _CLOSING_WORDS) and _CLOSING.fullmatch(sentence) is not None


def signs_a_letter(sentence: str) -> bool:
    """Whether a line under a closing is only a name, a title or a team's name (`_SIGNATURE`; a line of
    more than `_MOST_SIGNATURE_SPACES` spaces is spared the pattern), or a mail app's `_SENT_FROM`."""
    if _SENT_FROM.fullmatch(sentence) is not None:
        return True
    return (sentence.count(" ") <= _MOST_SIGNATURE_SPACES and _SIGNATURE.fullmatch(sentence) is not None
            and _STATES.search(sentence) is None)
