"""An answer's citations of its example's retrieved documents, read out of its claims before they are judged.

A pipeline told to "cite the id in parentheses" writes "... for a full refund (KB-1234).": read as the
claim's content, the id's digits were numbers the document had to state and a file name
("returns_policy.md") a literal it had to hold, and nearly every grounded answer read as made up.
`split_claims` knows no ids (it splits an answer alone, and is cached so); this runs after it, with the
example's ids, where every judge's claims come from (`ragmon.evaluation.example_claims`).

The rule is narrow on purpose, as whatever it reads out no judge sees: a citation is
- a group in parentheses or square brackets (full-width too) holding nothing but retrieved ids, split by
  ",", ";", "&", "and" or "or", each id with a locator after it or not ("p. 3", "pp. 2-3", "section 4.2",
  "s. 2.1", "§ 2", "para. 4"), a lead-in before them or not and a trailer after them or not ("(KB-1234)",
  "[KB-1, KB-2]", "(see faq-12)", "(Sources: KB-1 and KB-2)", "(as noted in doc-3)", "(KB-1234, p. 3)",
  "(see KB-1234 for details)"), and a bracket around the group with it ("[[KB-1]]");
- a markdown link whose text is such an id ("[KB-1234](url)", "[[KB-1234]](url)");
either opening the claim or ending a clause of it (a full stop, comma, colon, the next citation or the
claim's end after it): within a clause it is what the sentence says ("The [Pixel-8](url) has a 6.1-inch
screen.", "Revenue (FY2023) was $5 million.");
- an attribution to retrieved ids, bracketed or bare, opening the claim ("According to KB-1234, ...", "As
  per doc-3, ...", "As stated in doc-3, ...", "As KB-1234 notes, ...", after a label or a connective or not:
  "**How often:** According to ...", "However, according to ...") or closing it ("..., according to
  doc-3.", "..., as noted in faq_12."): the id named as the source. Not an id as the sentence's subject
  ("KB-1234 says nothing about fees.", "E-1001 indicates that the disk is full."), nor after "per" or
  "based on": error codes, versions and products are ids too, and there the sentence is about them;
- a sentence that only sends the reader to retrieved ids with "see" or "refer to", or says more is in them
  ("See KB-1234 for details.", "For more information, see [doc-3].", "Please refer to HR-POL-007 for the
  full policy.", "You can read more in policy.pdf."), beside a claim of the answer that is no such pointer:
  an answer that only points ("See KB-1234.") says nothing the page states, and is judged so ("Check
  ERR-42." is an instruction, and stays);
- each of these in German, French, Spanish, Italian and Portuguese as well ("(siehe KB-1234, S. 2)",
  "(Quelle: KB-1234)", "Laut KB-1234 werden ...", "Selon le document doc-3, ...", "..., según faq_12.",
  "(vedi doc-3, art. 4)", "De acordo com doc-3, ...", "Weitere Informationen finden Sie in KB-1234."), but
  not "in base a", a bare "conforme" or "gemäß" without a comma, which also say what a figure is per or
  complies with.
A document named by a path or an address is cited by its file's name too ("(returns_policy.md)" of
"docs/returns_policy.md"), when that name has an extension of letters.
An id is matched whole, whatever its case, dashes or spacing, and only when it is one no sentence writes
as a word or a quantity: 4 characters or more, a letter and a digit or punctuation ("KB-1", "doc-3",
"policy.pdf"; not "v2", "2024", "returns", "Returns Policy", nor a number linked as "[1](url)").
Anywhere else an id is the claim's content: "migrated from v2.", "upgrades from iPhone-15.", "If the disk
is full, you see E-1001." stay as written, and an id no context has ("KB-9999") is never a citation of this
example's. A sentence of bracketed citations alone (". (doc-3)" after a full stop) is no claim.

A refusal naming the retrieved documents it looked in ("HR-POL-007 doesn't mention foster care.", "The
documents provided (doc-3, doc-4) do not say ...") is no claim either, as the same refusal naming "the
documents" is not (`_refuses`), and an answer that declines and only points to its sources ("I don't
know. See KB-1234.") makes none; `declines` tells whether an answer abstains so."""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

from ragmon.model import Claim
from ragmon.text.abstention import is_abstention
from ragmon.text.claims import answer_abstains, sentence_spans, split_claims
from ragmon.text.deferred import deferred

_AS_HYPHEN = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
_GROUPS = deferred(
    r"\[\[?(?P<link>[^\[\]()\n]{1,300})\]?\]\([^()\s]{1,2000}\)"
    r"|(?P<outer>\[[ \t]*)?[(\[（［](?P<group>[^()\[\]（）［］\n]{1,1000})[)\]）］](?(outer)[ \t]*\])")
"""A markdown link's text, or what one pair of brackets holds (and a bracket around them), citations or
not: `_cites` decides. Bounded runs that exclude the brackets, so no answer makes them backtrack far."""
_SOURCED = (r"as[ \t]+(?:stated|noted|described|explained|outlined|set[ \t]+out|mentioned|specified|shown)"
            r"[ \t]+in")
"""A clause naming where the claim is written ("as noted in")."""
_LEAD_IN = deferred(r"(?:see(?:[ \t]+also)?|sources?|cf\.?|ref\.?|per|as[ \t]+per|from|according[ \t]+to|"
                      r"cited[ \t]+in|" + _SOURCED + r"|siehe|vgl\.?|quellen?|gemäß|laut|voir|selon|"
                      r"d['’]après|ver|véase|veja|fuentes?|según|vedi|cfr\.?|fonte|fonti|fontes|secondo|"
                      r"segundo)(?![\w-])[ \t]*:?[ \t]*", re.IGNORECASE)
"""What may open a bracket of ids: "(see KB-1)", "(Sources: KB-1, KB-2)", and the same in German, French,
Spanish, Italian and Portuguese ("(siehe KB-1)", "(Quelle: KB-1)", "(voir doc-3)", "(fuente: faq_12)",
"(vedi doc-3)", "(ver doc-3)")."""
_TRAILER = deferred(r"(?<![ \t])[ \t]+for[ \t]+(?:(?:more|further|additional|full|complete|the[ \t]+full)"
                      r"[ \t]+)?(?:details|information|info|specifics)$", re.IGNORECASE)
"""What a bracketed pointer may close with: "(see KB-1234 for details)"."""
_SEPARATOR = deferred(r"(?<![ \t])[ \t]*(?:[,;&]|(?<![\w-])(?:and|or)(?![\w-]))[ \t]*", re.IGNORECASE)
"""Between two ids of a group. Only from a run of spaces' first: tried at each of its spaces, a long run
took quadratic time."""
_PLACE = r"(?:\d{1,5}[a-z]?(?:[.:]\d{1,5}[a-z]?){0,4}|[ivxlc]{1,6}|[a-z])"
_PLACES = _PLACE + r"(?:[ \t]*(?:-|to)[ \t]*" + _PLACE + ")?"
_PLACE_WORD = (r"(?:(?:pp?|pgs?|paras?|secs?|sects?|ch|chap|arts?|cl|figs?|pt|s|abs|kap|abschn|págs?|"
               r"pags?|pagg|apdo|cap|sez|par)\.[ \t]*|(?:pages?|paragraphs?|sections?|chapters?|articles?|"
               r"clauses?|lines?|slides?|figures?|tables?|appendix|annex|steps?|parts?|seiten?|kapitel|"
               r"abschnitt|absatz|chapitre|páginas?|pagin[ae]|capítulo|capitolo|artículo|articolo|artigo|"
               r"apartado|sección|sezione|seção|secção)[ \t]+|§§?[ \t]*)")
_LOCATOR = deferred(_PLACE_WORD + _PLACES + r"(?:[ \t]+" + _PLACE_WORD + _PLACES + ")*+", re.IGNORECASE)
"""Where in a document a citation points ("p. 3", "pp. 2-3", "section 4.2", "§ 2", and in the other
languages "S. 2", "pág. 5", "art. 4", "Kapitel 2"; "Abs." and "cap." are here too, but end the sentence
before a digit, as "abs." and "cap." do in English lists): never checked, as no page states its own page
number. An abbreviation with its full stop, a word with a space: "P85", "s 4" or "item 4" after a model's or
product's id ("(Model-S P85)", "(SKU-12, item 4)") says which variant. The locators after the first are
taken possessively: "i" is a place two ways (a roman numeral, a letter), and a run of them that fails had
doubled its time at each ("(KB-1 p. i p. i ... x)": seconds at 20)."""
_MORE_PLACES = deferred(_PLACES, re.IGNORECASE)
"""A place after a locator's own ("pp. 2, 4"), split from it by a separator."""
_WRAPPED = deferred(r"\[\[?(?P<link>[^\[\]]+)\]?\](?:\([^()\s]*\))?|[(（](?P<group>[^()（）]+)[)）]")
"""An id written in brackets or as a link's text, in an attribution or a pointer ("According to [KB-1],
...")."""
_SAYS = r"(?:states?|notes?|says?|explains?|describes?|mentions?|outlines?|puts?[ \t]+it)"
"""What a document does in "As KB-1234 notes, ...". Not "indicates", "specifies" or "confirms", said as
often of an error code or a version ("As HTTP-429 indicates, ..."), which is the claim's content."""
_LEAD = (r"(?P<lead>(?:\*\*[^*\n]{1,60}\*\*|__[^_\n]{1,60}__|[^\s:*_]{1,40}:)[ \t]++|(?:however|also|"
         r"additionally|but|and|so|importantly|note[ \t]+that|that[ \t]+said|in[ \t]+short|in[ \t]+fact)"
         r"(?:[ \t]*+,)?[ \t]++)?")
"""What may stand before an attribution opening a claim, and stays: a label ("**How often:** According to
KB-1, ...") or a connective ("However, according to KB-1, ...")."""
_ACCORDING = (r"(?:according[ \t]+to|as[ \t]+per|" + _SOURCED + r"|selon|d['’]après|según|segun|"
              r"de[ \t]+acuerdo[ \t]+con|tal[ \t]+como[ \t]+indica|secondo|come[ \t]+indicato[ \t]+in|"
              r"segundo|de[ \t]+acordo[ \t]+com|conforme[ \t]+indicado[ \t]+em|laut|gemäß)")
"""Attributions in English, French, Spanish, Italian, Portuguese and German ("Selon doc-3, ...", "...,
según faq_12.", "Secondo doc-3, ...", "De acordo com doc-3, ...", "Laut KB-1234, ..."). Not "in base a"
(based on a quantity) nor a bare "conforme" (compliant with: "certificado conforme NBR-5410"), which say
what the claim does."""
_DOCUMENT = (r"(?:(?:the|dem|das|le|la|l['’]|el|il|lo|o|a)[ \t]*+)?(?:document|documento|dokument|article|"
             r"artículo|articolo|artigo|artikel|fiche|ficha)[ \t]++")
""""the document" before an id ("Según el documento faq_13, ...", "Laut Dokument KB-1234 ...")."""
_OPENING_FRAME = deferred(
    _LEAD + r"(?P<frame>laut[ \t]++(?:" + _DOCUMENT + r")?(?P<german>[^\s,]{4,300})[ \t]++(?=\w)|"
    + _ACCORDING + r"[ \t]++(?:" + _DOCUMENT + r")?(?P<source>[^,\n]{1,300}?)[ \t]*+,[ \t]*+|"
    r"as[ \t]++(?P<as>[^,\n]{1,300}?)[ \t]++" + _SAYS + r"[ \t]*+,[ \t]*+)", re.IGNORECASE)
"""An attribution opening a claim: "According to KB-1234, ", "As stated in doc-3, ", "As doc-3 notes, ", and
German's "laut" without a comma, the verb next ("Laut KB-1234 ist die Rücksendung kostenlos."; not "gemäß",
which is also "per": "Gemäß SKU-12 kostet der Versand 25 €.").
Not an id as the sentence's subject ("KB-1234 says nothing about fees.", "E-1001 indicates that the disk is
full."), nor "per" or "based on" (what a price is per, what a conclusion rests on): those are what the
claim says."""
_CLOSING_FRAME = deferred(
    r",[ \t]*+" + _ACCORDING + r"[ \t]++(?:" + _DOCUMENT + r")?(?P<source>[^,;\n]{1,300}?)[ \t]*+(?=[.!?]?$)",
    re.IGNORECASE)
"""An attribution closing a claim: ", according to doc-3.", ", as noted in faq_12." (not ", see E-1001.":
"If the disk is full, see E-1001." tells the reader what to look up; nor ", per SKU-12.", which may say
what a price is of)."""
_FOR_WHAT = (r"(?:details|information|info|specifics|instructions|steps|guidance|(?:the[ \t]+)?"
             r"(?:full|complete)[ \t]+(?:policy|details|text|terms|list|steps|instructions|procedure|guide|"
             r"breakdown|table|schedule))")
_SOURCE = r"[ \t]*+(?::[ \t]*+)?(?P<source>[^\n]{0,299}?\S)"
"""The ids a pointer names, which `_only_ids` then reads: ending in no space, so that what may follow them
is tried only after each word, not at each space of a run."""
_POINTERS = (
    re.compile(r"(?:(?:for[ \t]+(?:(?:more|further|additional|step-by-step|detailed)[ \t]+)?" + _FOR_WHAT
               + r"|to[ \t]+learn[ \t]+more)[ \t]*,?[ \t]*)?(?:please[ \t]+)?"
               r"(?:see(?:[ \t]+also)?|refer[ \t]+to)" + _SOURCE
               + r"(?:[ \t]+for[ \t]+(?:(?:more|further|additional)[ \t]+)?" + _FOR_WHAT + r")?[ \t]*[.!]?",
               re.IGNORECASE),
    re.compile(r"(?:you[ \t]+can|you['’]ll|you[ \t]+will)[ \t]+(?:find|read|learn)[ \t]+more"
               r"(?:[ \t]+(?:details|information|info))?[ \t]+(?:in|at|from)" + _SOURCE + r"[ \t]*[.!]?",
               re.IGNORECASE),
    re.compile(r"(?:more|further|full|additional|complete)[ \t]+(?:details|information|info)[ \t]+"
               r"(?:(?:is|are|can[ \t]+be)[ \t]+(?:available|found)[ \t]+)?(?:in|at)" + _SOURCE
               + r"[ \t]*[.!]?",
               re.IGNORECASE),
    re.compile(r"(?:(?:pour[ \t]+(?:plus[ \t]+de[ \t]+(?:détails|précisions|renseignements)|plus[ \t]+"
               r"d['’]informations|en[ \t]+savoir[ \t]+plus)|para[ \t]+(?:más|mais)[ \t]+(?:información|"
               r"informações|detalles|detalhes)|per[ \t]+maggiori[ \t]+(?:informazioni|dettagli))"
               r"[ \t]*,?[ \t]*)?(?:consultez|voir|voyez|consulte|vea|véase|ver|veja|consulti|consulta|vedi|"
               r"veda|siehe)" + _SOURCE + r"[ \t]*[.!]?", re.IGNORECASE),
    re.compile(r"(?:weitere|mehr)[ \t]+(?:informationen|details|einzelheiten|hinweise)[ \t]+finden[ \t]+sie"
               r"[ \t]+(?:in|im|unter)" + _SOURCE + r"[ \t]*[.!]?", re.IGNORECASE),
)
"""A sentence that only points the reader to its sources ("See KB-1234 for details."). "Check ERR-42." or
"Read policy.pdf." is no pointer: what it asks the reader to do is an instruction of the answer's."""
_LONGEST_POINTER = 400
"""The most characters a pointer, or an attribution closing a claim, is read in: the patterns' ids are at
most 300, and a bound keeps a run of spaces from costing the lazy ids a scan each."""


def _loose(text: str) -> str:
    """`text` as ids are compared: case folded, composed, every dash "-", any spacing one space."""
    low = " ".join(text.casefold().split())
    return low if low.isascii() else unicodedata.normalize("NFC", low).translate(_AS_HYPHEN)


@functools.lru_cache(maxsize=4096)
def _citable(doc_id: str) -> str:
    """`doc_id` loosely when no sentence writes it as a word or a quantity, else "" (never cited)."""
    loose = _loose(doc_id)
    marked = any(char.isalpha() for char in loose) and any(
        not char.isalpha() and not char.isspace() for char in loose)
    return loose if marked and len(loose) >= 4 else ""


def _cites(match: re.Match[str], ids: Collection[str]) -> tuple[str, ...]:
    """The ids of `ids` a link's text or a bracket group's content cites when it is nothing but citations of
    them, else none."""
    if (text := match["link"]) is not None:
        return (loose,) if (loose := _loose(text)) in ids else ()
    content = match["group"].strip()
    if lead := _LEAD_IN.match(content):
        content = content[lead.end():]
    return _only_ids(_TRAILER.sub("", content), ids)


def _only_ids(text: str, ids: Collection[str]) -> tuple[str, ...]:
    """The ids `text` cites when it is retrieved ids and nothing else, else none: split by separators, each
    an id of `ids` (written in brackets or as a link's text or not), an id with a locator ("KB-1 p. 3"), or a
    locator or a place after one following an id ("KB-1, p. 3", "KB-1, pp. 2, 4")."""
    cited: list[str] = []
    located = False
    for piece in _SEPARATOR.split(text.strip()):
        if (wrapped := _WRAPPED.fullmatch(piece)) is not None:
            piece = wrapped["link"] or wrapped["group"]
        loose = _loose(piece)
        if loose in ids or (doc_id := _located(loose, ids)):
            cited.append(loose if loose in ids else doc_id)
            located = loose not in ids
        elif cited and (_LOCATOR.fullmatch(loose) or (located and _MORE_PLACES.fullmatch(loose))):
            located = True
        else:
            return ()
    return tuple(cited)


def _located(loose: str, ids: Collection[str]) -> str:
    """The id of `ids` that `loose` is, followed by a space and a locator ("kb-1234 p.3"), or ""."""
    at = loose.find(" ")
    while at > 0:
        if loose[:at] in ids and _LOCATOR.fullmatch(loose, at + 1):
            return loose[:at]
        at = loose.find(" ", at + 1)
    return ""


_AFTER = frozenset(".,;:!?。，；：！？([（［")
"""What may follow a citation, past spaces: a clause's end, or the next citation."""


def _placed(text: str, found: re.Match[str], opening: int) -> bool:
    """Whether `found` stands where a citation does: opening the claim (nothing but `_OPENING` before it
    since the claim's start, which ends at `opening`), or ending a clause of it. Within a clause, a bracket
    or link is what the sentence says ("The [Pixel-8](url) has ...", "Revenue (FY2023) was ..."): read out,
    the rest was judged against another product's or year's document and passed. Read in place, the
    claim's start told once: copies of the claim's rest and start for each bracket had taken seconds for
    a claim of 40,000 of them, or of 100,000 commas before them."""
    after = gap[1] if (gap := _NEXT.match(text, found.end())) else ""
    return not after or after in _AFTER or found.start() <= opening


_NEXT = deferred(r"[ \t]*+(.?)", re.DOTALL)
"""The first character after a citation and its spaces, or none at the claim's end."""


def read_out(answer: str, claims: tuple[Claim, ...], ids: Iterable[str]) -> tuple[Claim, ...]:
    """`claims` of `answer` with their citations of `ids` read out (the module's rule), each keeping the
    place of its sentence in the answer: `start` and `end` still mark what it was split from, less a
    citation that opened or closed it, while its text, what judges and reports read, is the sentence
    without the citations. The claims as they are when the answer names no retrieved id (most answers)."""
    named = _written(answer, ids)
    return _read(answer, claims, named).claims if named else claims


def declines(answer: str, ids: Iterable[str]) -> bool:
    """`answer_abstains` with the answer's citations of `ids` read out: no claim is left, and a sentence
    declines, a refusal naming its sources ("HR-POL-007 doesn't mention foster care.") or one beside a
    citation alone ("I don't know. (KB-1)")."""
    claims = split_claims(answer)
    if not claims:
        return answer_abstains(answer)
    named = _written(answer, ids)
    if not named or (read := _read(answer, claims, named)).claims:
        return False
    return read.declined or _declines_somewhere(answer)


def _declines_somewhere(answer: str) -> bool:
    """Whether a sentence of `answer` is a refusal, `split_claims` having dropped it or not."""
    return any(is_abstention(answer[start:end]) for start, end in sentence_spans(answer))


def citations(answer: str, ids: Iterable[str]) -> tuple[str, ...]:
    """The ids of `ids` whose citations `read_out` reads out of the answer's sentences, each once, in the
    order the answer first cites them: what it cites, for citation_accuracy, where a trace names no
    citations. Its sentences, not its claims: the sidecar asks this on its event loop, where telling claims
    (the wrapper model, refusals) cost three times the cutting, and a note of the sources ("Sources: KB-1,
    KB-2.") cites them too. A name two ids share ("readme.md" of "a/readme.md" and "b/readme.md") cites the
    first. Nothing is cut when the answer names none (most)."""
    named = _written(answer, ids)
    if not named:
        return ()
    sentences = tuple(Claim(answer[start:end], start, end) for start, end in sentence_spans(answer))
    return tuple(dict.fromkeys(named[name] for name in _read(answer, sentences, named).cited))


class _Read(NamedTuple):
    claims: tuple[Claim, ...]
    cited: list[str]
    """The names of the ids read out, in order."""
    declined: bool
    """Whether a claim was a refusal once its ids were read (`_refuses`), or, with only pointers left, the
    answer has a refusal `split_claims` had dropped."""


def _read(answer: str, claims: tuple[Claim, ...], named: Mapping[str, str]) -> _Read:
    """`read_out` of claims of `answer` naming the ids `named` holds. A claim where none of them is written
    is left as it is, unread (`_marks`)."""
    read: list[tuple[Claim, bool]] = []
    cited: list[str] = []
    declined = False
    marks = _marks(answer, named)
    for claim in claims:
        if marks is not None and not _marked(marks, claim.start, claim.end):
            read.append((claim, False))
            continue
        kept, names = _without(claim, named)
        pointed = _points(claim.text, named)
        cited += names or pointed
        if kept is not None and not pointed and _refuses(claim.text, named):
            declined = True
        elif kept is not None:
            read.append((kept, bool(pointed)))
    if read and all(pointer for _, pointer in read):
        # An answer that only points says nothing the page states, unless it declines as well: "I don't
        # know. See KB-1234." points to where the answer may be.
        if declined or _declines_somewhere(answer):
            return _Read((), cited, True)
        return _Read(tuple(claim for claim, _ in read), cited, declined)
    return _Read(tuple(claim for claim, pointer in read if not pointer), cited, declined)


def _refuses(text: str, ids: Collection[str]) -> bool:
    """Whether the sentence `text` declines once ids of `ids` that it names as where it looked are read as
    "the documents" (`is_abstention`): ids opening it (after an apology or a connective or not) as the
    subject of a verb of saying, negated ("HR-POL-007 doesn't mention foster care.", "The documents
    provided (doc-3, doc-4) do not say ...", "Neither doc-3 nor doc-4 mentions ...", "Unfortunately, faq_12
    says nothing about ..."), or where the answerer looked for something ("I couldn't find anything about X
    in faq_12.", "X is not mentioned in doc-3."); a bracket of citations elsewhere is read out ("... in the
    documents provided (doc-3, doc-4, sec-4.2)."). A model citing its sources names them when it declines
    too, and such a refusal read as a claim was a made-up one. Anywhere else an id stays what the sentence
    is about: error codes, products, plans and versions are ids too, and "SKU-4410 doesn't include a
    charger.", "E-1001 does not indicate a hardware fault.", "Plan-B doesn't cover anything over 500 EUR.",
    "The bug was not found in v2.1." and "The fee is 15 EUR, which KB-1 does not mention." are claims to
    judge."""
    if is_abstention(text):
        return True
    cited = _GROUPS.sub(lambda found: _GROUP if _cites(found, ids) else found[0], _LINKED.sub(
        lambda found: _ID if _loose(found["target"]) in ids else found[0], text.translate(_NO_MARKS)))
    marked = _WORD.sub(lambda found: _ID if found[0].strip(_QUOTES).rstrip(".:") in ids else found[0],
                       _loose(cited))
    said = _UNIT.sub(lambda found: _ID if _ID in found[0] else _GROUP, marked)
    if (opening := _OPENING_REFUSAL.match(said)) is not None and _opens(opening["lead"]):
        said = opening["lead"] + _REFUSALS[opening.lastgroup or ""] + said[opening.end():]
    said = _LOOKED_IN.sub(lambda found: found["before"] + _DOCUMENTS, said)
    if (german := _GERMAN_IN.match(said)) is not None:
        said = said[:german.end() - 1] + "den dokumenten" + said[german.end():]
    return is_abstention(said.replace(_GROUP, "").replace(_ID, "it"))


_GROUP, _ID = "\x00", "\x01"
"""What a bracket of citations and an id, or a list of them, stand as while `_refuses` reads where they
stand: out of the way of every word pattern (an answer's own are dropped first). Where they are no source,
a bracket is read out and an id is read as "it", what the sentence is about, its digits no figure the
sentence states."""
_NO_MARKS = str.maketrans("", "", _GROUP + _ID)
_UNIT = deferred("[\x00\x01](?:(?:[ \t]*,[ \t]*|[ \t]+(?:and|or|nor|&|und|oder|et|ou|ni|y|e|o|u|nem|né)"
                   "[ \t]+(?:(?:the|le|la|les|el|los|las|il|lo|gli|o|a|os|as)[ \t]+)?)[\x00\x01])*+")
"""Ids and brackets of them listed ("doc-3, doc-4 and doc-5", "ni doc-3 ni doc-4", "nem o doc-3 nem o doc-4",
"[doc-3] and [doc-4]"), each list made one mark first, in one pass: tried from each of its ids, a list of
20,000 had taken minutes."""
_SPEECH = r"(?:mention|say|state|specify|discuss|talk[ \t]+about|describe|cover[ \t]+whether)"
"""What a text does, and a product, an error code or a plan does not: "include", "contain", "cover",
"have", "indicate", "address", "explain" and "go into" say what a product holds, a plan pays for, a
release fixes or a code means ("v2.1 does not address the login bug.", "Plan-B does not go into effect
until June."; but no plan "covers whether")."""
_SUBJECT = r"(?:the[ \t]+(?:documents?|sources?|pages?|articles?)(?:[ \t]+[a-z]+)?[ \t]*)?[\x00\x01]"
"""Ids as a subject, "the documents provided" before their bracket or not."""
_NICHT_ENDS = r"nicht(?=[ \t]*(?:[.!;]|,[ \t]*und(?![\w-])|$))"
"""German's "nicht" closing the sentence, or its clause before "und": before "weil", "da" or "sondern" what
follows says why, or what instead, and is a claim."""
_OPENING_REFUSAL = deferred(
    r"(?P<lead>[^\x00\x01]{0,80}?)(?:"
    r"(?P<en>(?<![\w-])neither[ \t]+[\x00\x01][ \t]+(?:mentions|says|states|specifies|discusses|"
    r"talks[ \t]+about|describes)|" + _SUBJECT + r"[ \t]+(?:(?:does|do|did)(?:[ \t]+not|n['’]t)|"
    r"never)[ \t]+" + _SPEECH + r"|" + _SUBJECT + r"[ \t]+(?:says?|mentions?|states?)[ \t]+nothing)"
    r"|(?P<fr>(?:ni[ \t]+(?:(?:les|le|la|l['’])[ \t]*)?[\x00\x01][ \t]+ne|(?:(?:les|le|la|l['’])[ \t]*)?"
    r"[\x00\x01][ \t]+ne)[ \t]+(?:mentionne(?:nt)?|précise(?:nt)?|disent|dit|évoque(?:nt)?|aborde(?:nt)?))"
    r"|(?P<es>(?:(?:el|la|los|las)[ \t]+)?[\x00\x01][ \t]+no[ \t]+(?:mencionan?|dicen?|especifican?|"
    r"aclaran?|detallan?|hablan?[ \t]+de)|ni[ \t]+(?:(?:el|la|los|las)[ \t]+)?[\x00\x01][ \t]+"
    r"(?:mencionan|dicen|especifican|aclaran|detallan|hablan[ \t]+de))"
    r"|(?P<it>(?:(?:il|la|i|le|lo|l['’])[ \t]*)?[\x00\x01][ \t]+non[ \t]+(?:menziona(?:no)?|dicono|dice|"
    r"specifica(?:no)?|accenna(?:no)?|parla(?:no)?[ \t]+d)|né[ \t]+(?:(?:il|la|i|le|lo|gli|l['’])[ \t]*)?"
    r"[\x00\x01][ \t]+(?:menzionano|dicono|specificano|accennano|parlano[ \t]+d))"
    r"|(?P<pt>(?:(?:o|a|os|as)[ \t]+)?[\x00\x01][ \t]+não[ \t]+(?:menciona(?:m)?|dizem|diz|"
    r"especifica(?:m)?|refere(?:m)?|fala(?:m)?[ \t]+d)|nem[ \t]+(?:(?:o|a|os|as)[ \t]+)?[\x00\x01][ \t]+"
    r"(?:mencionam|dizem|especificam|referem|falam[ \t]+d))"
    r"|(?P<de>(?:(?:der|die|das)[ \t]+)?[\x00\x01][ \t]+(?:erwähnt|erwähnen|nennt|nennen|sagt|sagen)"
    r"(?:[ \t]+[^.!?;,:\x00\x01 \t]+){0,6}?[ \t]+(?:leider[ \t]+)?" + _NICHT_ENDS + r"|"
    r"(?<![\w-])(?:erwähnt|erwähnen|nennt|nennen)[ \t]+[\x00\x01][ \t]+(?:keine[nrs]?|nichts)(?![\w-])|"
    r"(?<![\w-])(?:erwähnt|erwähnen|nennt|nennen)[ \t]+[\x00\x01](?:[ \t]+[^.!?;,:\x00\x01 \t]+){0,6}?"
    r"[ \t]+(?:leider[ \t]+)?" + _NICHT_ENDS + r"|"
    r"(?<![\w-])steht[ \t]+in[ \t]+[\x00\x01](?:[ \t]+leider)?[ \t]+" + _NICHT_ENDS + r")"
    r")(?![\w-])")
"""Ids opening the sentence as the subject of a verb of saying, negated ("doc-3 doesn't mention", "Neither
doc-3 nor doc-4 mentions", "The documents provided (doc-3, doc-4) do not say", "faq_12 says nothing"), and
the same in French, Spanish, Italian, Portuguese and German ("ni doc-3 ni doc-4 ne mentionnent", "faq_12 no
menciona", "doc-3 non menziona", "HR-POL-007 não menciona", "KB-2214 erwähnt Ratenzahlung nicht", "Leider
erwähnen KB-1 und KB-2 keinen ...", "..., steht in KB-2214 nicht."), after a `lead` `_opens` takes: each
read as a refusal of its language that every cue knows, so that what follows is read as that language's.
Not "speaks", "indicates" or "says nothing" of what a product or a code "has" or "contains"; nor "nennt 30
Tage und nicht 60" (German's "nicht" closes the clause)."""
_REFUSALS = {"en": "the documents do not mention", "fr": "les documents ne mentionnent pas",
             "es": "los documentos no mencionan", "it": "i documenti non menzionano",
             "pt": "os documentos não mencionam", "de": "die dokumente enthalten keine angaben"}
_LEADS = frozenset((
    "i", "m", "am", "sorry", "unfortunately", "however", "but", "also", "and", "so", "afraid", "je", "suis",
    "désolé", "désolée", "mais", "malheureusement", "en", "revanche", "cependant", "leider", "aber", "jedoch",
    "lo", "siento", "pero", "lamentablemente", "sin", "embargo", "mi", "dispiace", "ma", "purtroppo", "però",
    "tuttavia", "lamento", "mas", "infelizmente", "porém", "contudo", "ni", "nem", "né", "the", "le", "la",
    "les", "l", "el", "los", "las", "il", "o", "os", "document", "documents", "page", "pages", "article",
    "fiche", "documento", "documentos", "página", "pagina", "artikel", "dokument", "seite"))
"""Words that may open a sentence before its refusal: an apology or a connective ("I'm sorry, but ...",
"Je suis désolée, mais ...", "En revanche, ..."), and the page an id is named as ("Ni la fiche Visa-Premier
ni FAQ-318 ne précisent ..."). Nothing else: "The fee is 15 EUR, which KB-1 does not mention." states the
fee."""


def _opens(lead: str) -> bool:
    """Whether `lead`, what stands before an opening refusal, is nothing but `_LEADS` and punctuation, after
    a clause saying what it is about ("Whether ..., doc-3 doesn't say.", "Ob ..., steht in KB-1 nicht.")."""
    if (label := _LABEL.match(lead)) is not None:
        lead = lead[label.end():]
    if (whether := _WHETHER.match(lead)) is not None:
        lead = lead[whether.end():]
    return all(word in _LEADS for word in _LETTERS.findall(lead))


_LETTERS = deferred(r"[^\W\d_]+")
_LABEL = deferred(r"[^\w*_]*+(?:\*\*[^*\n\d]{1,40}\*\*|__[^_\n\d]{1,40}__|[^\W\d_]++:)")
"""A label opening a sentence ("**Sending a result later:** section-7 doesn't say ...", "Note: ..."): a few
words and no figure, which a heading holds and a claim in bold ("**Returns cost 15 EUR:** ...") does not."""
_WHETHER = deferred(r"\W*+(?:whether|ob)(?![\w-])[^,;:.!?\d]*+,")
_LOOKED_IN = deferred(
    r"(?P<before>(?:(?<![\w-])(?:i|we)(?:[ \t]+[\w'’]+){0,3}?[ \t]+(?:find|found|see|locate)|(?<![\w-])"
    r"(?:is|are|was|were)(?:[ \t]+not|n['’]t)[ \t]+(?:mentioned|specified|stated|described|discussed|"
    r"documented)|(?<![\w-])there(?:[ \t]+is|['’]s|[ \t]+was)[ \t]+nothing)(?![\w-])[^.!?\x00\x01]{0,80}?"
    r"(?<![\w-])(?:in|from|within|across)[ \t]+|(?<![\w-])(?:i|we)(?:[ \t]+have|['’]ve)?[ \t]+(?:checked|"
    r"searched|reviewed|read|looked[ \t]+(?:at|through|in)|went[ \t]+through)[ \t]+)[\x00\x01]")
"""Ids where the answerer looked for something ("I couldn't find anything about X in faq_12", "we don't
see X in doc-3", "I checked doc-3, but it doesn't mention X") or that say nothing of it ("X is not
mentioned in doc-3", "There is nothing about X in doc-3."). Not "not found", "not covered" or "not included
in": "The bug was not found in v2.1." and "Water damage isn't covered in Plan-B." are claims."""
_GERMAN_IN = deferred(r"[^\w\x00\x01]*+(?:leider[ \t]+)?in[ \t]+[\x00\x01](?=[^.!?,;:\x00\x01]{0,60}?"
                        r"[ \t]nicht[ \t]+(?:erwähnt|angegeben|beschrieben|aufgeführt|genannt)(?![\w-]))")
"""German's "In KB-2214 wird Zubehör nicht erwähnt.", opening the sentence, read as "in den Dokumenten",
as refusals say it. Only there, and only up to a clause's end: "Die Garantie beträgt 5 Jahre, in KB-1 wird
Zubehör nicht erwähnt." states the 5 years."""
_DOCUMENTS = "the documents"
_LINKED = deferred(r"\[[^\[\]\n]{1,300}\]\((?P<target>[^()\s]{1,2000})\)")
"""A markdown link, which names a retrieved document by its address ("Neither [Set up two-step
verification](https://help.example.com/articles/1) nor ... mentions passkeys")."""
_QUOTES = "`*\"'“”‘’"
"""What may wrap an id as a word: code spans, bold, quotation marks."""
_WORD = deferred(r"[^\s()\[\]（）［］,;!?\x00\x01]+")
"""A run of characters an id may hold, read as a whole: an id of `_refuses` is a word of its own, with a full
stop or a colon after it or not. Looked up in a set word by word, not searched for: an alternation of
thousands of names, tried at every character of a long answer, took seconds."""


def _marks(answer: str, named: Mapping[str, str]) -> list[int] | None:
    """Where in `answer` a name `named` holds starts, in order, so that a claim none starts in is spared
    every pattern (most claims of an answer citing one id do not cite it): an ASCII answer's, as
    `str.lower` gives it the same length, and names without spaces (whose loose form may space them
    otherwise); None for others, for more than `_MARKED` names (a scan of the answer each), or past one mark
    in four characters (a name hidden in every word): then every claim is read."""
    if len(named) > _MARKED or not answer.isascii() or any(len(name.split()) != 1 for name in named):
        return None
    low, marks, most = answer.lower(), [], len(answer) // 4 + 1
    for name in named:
        at = low.find(name)
        while at >= 0:
            marks.append(at)
            if len(marks) > most:
                return None
            at = low.find(name, at + 1)
    return sorted(marks)


_MARKED = 32


def _marked(marks: list[int], start: int, end: int) -> bool:
    """Whether a mark of `marks` (sorted) is in `start:end`."""
    at = bisect.bisect_left(marks, start)
    return at < len(marks) and marks[at] < end


def _written(answer: str, ids: Iterable[str]) -> dict[str, str]:
    """The names of `ids` that may be cited (`_citable`) and are written in `answer`, loosely, each looked
    for once, with the id each names: every citation the module reads out is of one of them. A document's
    names are its id and, for a path or an address, its file's name ("returns_policy.md" of
    "docs/returns_policy.md", which a model shown the path cites as often). An ASCII name without spaces
    is looked for in an ASCII answer as `str.lower` gives both, which is the loose form then, at C speed:
    most answers name no id, and reading every example's ids loosely cost more than all the rest of this."""
    ids = tuple(ids)
    many = len(ids) * len(answer) > _SCANNED
    plain = answer.isascii()
    searched: dict[bool, tuple[str, frozenset[str] | None]] = {}
    found: dict[str, str] = {}
    for doc_id in ids:
        simple = plain and doc_id.isascii() and len(doc_id.split()) == 1
        for name in _names(doc_id) if "/" in doc_id or "\\" in doc_id else (doc_id,):
            if not (key := name.strip().lower() if simple else _citable(name)):
                continue
            if simple not in searched:
                text = answer.lower() if simple else _loose(answer)
                searched[simple] = text, _grams(text) if many else None
            text, grams = searched[simple]
            if (grams is None or (key[:_GRAM] in grams and key[-_GRAM:] in grams)) and key in text and (
                    cited := _citable(name)):
                found.setdefault(cited, doc_id)
    return found


def _names(doc_id: str) -> tuple[str, ...]:
    """`doc_id`, and the name of the file a path or an address ends in (query and fragment dropped) when it
    is one: a name and an extension of letters ("returns_policy.md", "handbook.pdf"). An address's last word
    without one is what its page is about ("/p/Pixel-8", "/releases/v2.1", "/errors/E-1001"): read out, a
    made-up sentence about that product, version or code was judged against its neighbour's page."""
    path = doc_id.split("?", 1)[0].split("#", 1)[0].rstrip("/\\")
    base = path[max(path.rfind("/"), path.rfind("\\")) + 1:]
    return (doc_id, base) if base != doc_id and _FILE_NAME.fullmatch(base) else (doc_id,)


_FILE_NAME = deferred(r"[^/\\]+\.[A-Za-z][A-Za-z0-9]{0,5}")


_GRAM = 4
"""The fewest characters of an id that may be cited (`_citable`)."""
_SCANNED = 4_000_000
"""Characters of answer times ids past which the answer's 4-grams are gathered first, and a name looked for
only where its first and last 4 characters are among them: 4,000 ids over an answer of 200,000 characters
had taken 0.6 s of substring scans that found nothing."""


def _grams(text: str) -> frozenset[str]:
    return frozenset(text[at:at + _GRAM] for at in range(len(text) - _GRAM + 1))


def _points(text: str, ids: Collection[str]) -> tuple[str, ...]:
    """The ids of `ids` the sentence `text` points the reader to when that is all it does ("See KB-1234
    for details."), else none."""
    text = text.strip()
    if len(text) > _LONGEST_POINTER:
        return ()
    return next((cited for pattern in _POINTERS if (found := pattern.fullmatch(text)) is not None
                 and (cited := _only_ids(found["source"], ids))), ())


def _frames(text: str, ids: Collection[str]) -> tuple[_Frame, _Frame]:
    """The attribution to ids of `ids` opening `text` ("According to KB-1234, ", after a label or
    connective it may follow, which stays: its start is where the attribution's is) and the one closing
    it (", according to doc-3" before the full stop, its end the text's), each empty where there is none."""
    opening = closing = _Frame(0, 0, ())
    if (found := _OPENING_FRAME.match(text)) is not None and (
            named := _only_ids(found["source"] or found["as"] or found["german"], ids)):
        opening = _Frame(found.start("frame"), found.end(), named)
    said = len(text.rstrip())
    found = _CLOSING_FRAME.search(text, max(opening.end, said - _LONGEST_POINTER), said)
    if found is not None and (named := _only_ids(found["source"], ids)):
        closing = _Frame(found.start(), len(text), named)
    return opening, closing


class _Frame(NamedTuple):
    start: int
    end: int
    cited: tuple[str, ...]


def _without(claim: Claim, ids: Collection[str]) -> tuple[Claim | None, list[str]]:
    """`claim` without its citations of `ids` and the space before each, or None when nothing that says
    anything is left, and the ids it cited. Its span is trimmed of a citation that opened it or closed it.
    The attribution patterns are anchored (an opening one at the start, a closing one in the last
    `_LONGEST_POINTER` characters), so each costs a claim little; `_read` asks only of claims an id is
    written in, where it can tell them (`_marks`), and of every claim where it cannot."""
    text = claim.text
    opening, closing = _frames(text, ids)
    opened, lo, hi = opening.start, opening.end, closing.start if closing.cited else len(text)
    cuts, cited = [], list(opening.cited)
    run = _OPENING_ONLY.match(text, lo)
    opening_end = run.end() if run else lo
    for found in _GROUPS.finditer(text, lo, hi):
        if _placed(text, found, opening_end) and (named := _cites(found, ids)):
            cuts.append(found.span())
            cited += named
    cited += closing.cited
    if hi < len(text):
        said = hi + len(text[hi:].rstrip(" \t.!?"))
        cuts.append((hi, said + len(text[said:]) - len(text[said:].lstrip(" \t"))))
    if not cuts and not lo:
        return claim, cited
    kept, at = ([(0, opened)], lo) if lo else ([], 0)  # a label or connective before the attribution stays
    for cut_start, cut_end in cuts:
        kept.append((at, at + len(text[at:cut_start].rstrip(" \t"))))
        at = cut_end
    kept.append((at, len(text)))
    body = "".join(text[start:end] for start, end in kept).lstrip(_OPENING).rstrip()
    if not any(char.isalnum() for char in body):
        return None, cited
    first = next(end - len(rest) for start, end in kept if (rest := text[start:end].lstrip(_OPENING)))
    last = next(start + len(part) for start, end in reversed(kept) if (part := text[start:end].rstrip()))
    return Claim(body, claim.start + first, claim.start + last), cited


_OPENING = " \t\n,;:"
"""What is left before a claim's first word once a citation opening it is read out ("(KB-1), returns
...")."""
_OPENING_ONLY = deferred("[" + re.escape(_OPENING) + "]*+")
