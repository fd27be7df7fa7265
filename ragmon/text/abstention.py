"""Abstention cues: a sentence that declines to answer is no claim, and an answer of them abstains.
Conversational filler ("Sure!", "Hope this helps!") is no claim either, but it declines nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragmon.text import european, european_courtesy
from ragmon.text.cache import wide
from ragmon.text.deferred import deferred
from ragmon.text.numbers import NUMBER_WORDS
from ragmon.text.terms import normalise, opposite, profile, wordset
from ragmon.text.verdicts import VERDICTS

SOURCE_NOUN = r"(?:context|contexts|document|documents|documentation|passage|passages|source|sources|text|" \
              r"texts|information|excerpts?|knowledge base|search results|results)"
"""What an answer calls the text it was given; `ragmon.text.claims` reads attributions to it as well."""
SOURCE_ADJECTIVE = r"(?:provided|given|available|retrieved|supplied|above)"
_SOURCE = r"(?:" + SOURCE_ADJECTIVE + " )?" + SOURCE_NOUN
"""Where a cue starts with the source, its noun alone will do: "the provided context does not say" has a
match at "context" as well, and the optional word, tried at every word boundary, was a quarter of the
search's cost. After "in the" the adjective stays, as it sits between the two, and so does one after the
noun ("the documentation provided does not address"), tried only where a noun matched."""
_SAY_NOTHING = r"(?:say|says|said|mention|mentions|state|states|contain|contains|tell us|tells us) nothing " \
               r"(?:about|on|regarding|concerning)\b"
"""After a source, or `_THEY_SAY_NOTHING`."""
_CANNOT = r"(?: cannot| can't| can not| am unable to|'m unable to| am not able to|'m not able to| couldn't|" \
          r" could not| was unable to| was not able to| wasn't able to| won't be able to|" \
          r" will not be able to)"
"""What follows "i" in a cue that the answerer cannot do something; each form contains "not", "n't" or
"unable", so `_cued` lets them through."""
_SEARCHED = (r"(?:i|we)(?: have|'ve)? (?:checked|searched|reviewed|read|looked (?:at|through|in)|went "
             r"through) (?:the |both |all |these |those |our |my |your )?(?:[a-z]+ ){0,3}?(?:" + SOURCE_NOUN
             + r"|pages?|polic(?:y|ies)|guides?|handbook|faqs?|articles?|terms)")
"""Where the answerer looked, before what it found there: "I checked the documents, but they don't mention
foster care.", "We searched the provided sources and none of them mentions it.", "I checked our returns and
exchanges policy, but it doesn't mention price adjustments."."""
_THEY_DECLINE = (r"(?:(?:they|it) (?:do not|don't|does not|doesn't|did not|didn't) (?:mention|say|discuss)|"
                 r"(?:neither|none)(?: of them)? (?:mentions?|says?|discuss(?:es)?))\b")
"""What the sources looked in do not say, by a pronoun (`_SEARCHED` before it). Not "cover" or "address":
"I checked Plan-B, but it doesn't cover water damage." says what a plan pays for."""
_CUES = (
    r"\bi (?:do not|don't|really don't) know\b", r"\bi(?: have|'ve|'ve got) no (?:idea|clue)\b",
    r"\bi(?:'d| would) (?:rather|prefer) not (?:to )?(?:guess|speculate)\b",
    r"\bi (?:do not|don't) want to (?:guess|speculate)\b",
    r"\bi'?m not sure\b", r"\bi am not sure\b",
    r"\bi" + _CANNOT + r" (?:answer|determine|find|tell|say|provide|confirm|verify|locate|give)\b",
    r"\bi" + _CANNOT + r" (?:help|assist)(?: you)? with (?:that|this|it|your (?:request|question)|"
    r"(?:that|this|the) (?:request|question|topic))\b",
    r"\bi (?:do not|don't) (?:have|know) (?:any |an |enough |sufficient |specific |the |that |this |"
    r"(?:any )?access to (?:any |that |this |the |such )?)?(?:information|info|details?|data|answer)\b",
    r"n't (?:enough|sufficient) (?:information|context|detail|details)(?: here)? "
    r"(?:in (?:the|these|my|what) [^.,;:!?]{1,40} )?to (?:answer|say|tell|determine|confirm)\b(?=[^,;]*$)",
    r"\b" + SOURCE_NOUN + r"(?: " + SOURCE_ADJECTIVE + r")?"
    r"(?: (?:i|we) (?:have|can access|was given|see))? (?:(?:does not|doesn't|do not|don't|did not|"
    r"didn't|cannot|can't|fails? to) (?:say|mention|contain|include|provide|specify|state|indicate|cover|"
    r"address|discuss|answer|describe|explain|give|have|tell|offer|list|go into|get into|touch on)\b|"
    + _SAY_NOTHING + ")",
    r"\b(?:there is|there's|there are|i found|i have|i've found|i see) no (?:information|mention|"
    r"details?|data|reference)\b",
    r"\b(?:i found|i have|i've found|i see) no (?:indication|evidence)\b",
    r"\bthere(?: is|'s| was) nothing (?:about|on|regarding|concerning|related to)\b[^.!?]{0,80}? in the "
    r"(?:[a-z]+ ){0,2}?" + _SOURCE + r"\b",
    r"\bthere(?: is|'s| was) nothing in the (?:[a-z]+ ){0,2}?" + _SOURCE + r"\b(?: " + SOURCE_ADJECTIVE
    + r")? (?:about|on|regarding|concerning|related to|that (?:mentions|says|addresses|covers|answers))\b",
    r"\b" + _SEARCHED + r"\b[^.!?]{0,40}? (?:but|and) " + _THEY_DECLINE,
    r"\bi (?:do not|don't|did not|didn't) (?:see|find) (?:any )?(?:information|mention|details?|data|"
    r"reference)\b",
    r"\b(?:the|this|that|these|those|your|our) [^.,;:!?]{1,60}? (?:does not|doesn't|do not|don't|did not|"
    r"didn't) (?:mention|say|specify|state)\b",
    r"\bno (?:relevant |specific |such )?(?:information|mention|details?|data) could be\b",
    r"\bno (?:relevant |specific |such )?mention (?:about|on|of|regarding|in|is|was|were)\b",
    r"\b(?:none of|nothing in|neither of) the (?:" + SOURCE_ADJECTIVE + " )?" + SOURCE_NOUN + r"(?: "
    + SOURCE_ADJECTIVE + r"| (?:i|we) (?:have|was given|can see))? (?:mentions?|says?|specif(?:y|ies)|"
    r"states?|address(?:es)?|covers?|discuss(?:es)?|indicates?)\b",
    r"\b(?:this|that|it)(?: is not|'s not| isn't) (?:something|anything) i can (?:confirm|answer|say|tell|"
    r"determine|verify)\b",
    r"\b(?:this|that|it)(?: is not|'s not| isn't) (?:something|anything|a (?:topic|question)) (?:that )?the "
    r"(?:" + SOURCE_ADJECTIVE + " )?" + SOURCE_NOUN + r"(?: " + SOURCE_ADJECTIVE + r")? (?:covers?|mentions?|"
    r"address(?:es)?|discuss(?:es)?|answers?|go(?:es)? into)\b",
    r"\b" + SOURCE_NOUN + r"(?: " + SOURCE_ADJECTIVE + r")? (?:is|are) silent (?:on|about|regarding|"
    r"as to)\b",
    r"\b(?:is not|isn't|are not|aren't) (?:in|present in|contained in) the (?:[a-z]+ ){0,2}?" + _SOURCE
    + r"\b",
    r"\b(?:not |un)clear (?:from|in) the (?:[a-z]+ ){0,2}?" + _SOURCE + r"\b",
    r"\b(?:is not|are not|was not|were not|isn't|aren't|wasn't|weren't|(?:that|it)'s not) (?:mentioned|"
    r"specified|stated|provided|available|given|covered|addressed|discussed|included|found|described|listed)"
    r"(?: anywhere)? (?:in|by) the (?:[a-z]+ ){0,2}?" + _SOURCE + r"\b",
    r"\bi (?:do not|don't) see [^.,;:!?]{1,60}? in the (?:[a-z]+ ){0,2}?" + _SOURCE + r"\b",
    r"\bnot (?:possible|able) to (?:answer|determine|say)\b",
    r"\bbeyond the scope of the " + _SOURCE + r"\b",
    r"\b(?:falls|is|lies) outside (?:of )?(?:what|the scope of) (?:the )?(?:" + SOURCE_ADJECTIVE + " )?"
    + SOURCE_NOUN + r"\b",
)
_BARE_CUES = (
    r"\bno (?:relevant |specific |such )?(?:information|details?|data) (?:is|was|were|are|about|on|of|"
    r"regarding|in)\b",
    r"\b(?:there is|there's|there are) no (?:indication|evidence)\b",
    r"\binsufficient(?:_| )(?:context|information|data|evidence)\b",
    r"\b(?:not|no) (?:enough|sufficient|adequate) (?:information|context|detail|details|data|evidence)\b",
    r"\b(?:cannot|can't|can not) be (?:determined|answered|found|inferred|confirmed)\b",
    r"\bunable to (?:answer|determine|find)\b",
)
"""Cues that name no one refusing, which facts hold as often: "No data is passed to insurers.", "There is no
evidence that vitamin D prevents colds.", "Applications with insufficient information are rejected.",
"Bookings made through travel agents cannot be confirmed at the embassy.", "The embassy was unable to find
any record of delays.", "No details of the damp are passed on to the next tenant." (a red team's made-up
facts, each hidden as a refusal). One declines only with a
refuser beside it (`_cue_declines`), as the Chinese and Japanese cues do (`_CJK_REFUSER`)."""
_ABSTENTION = deferred(r"(?=\w)(?:" + "|".join(_CUES) + "|(?P<bare>" + "|".join(_BARE_CUES) + "))")
"""Every cue opens on a word's first letter (a new one must too, or it never matches), so the lookahead before
them all rejects every word's end in one test: without it each word's end, past the shared word boundary,
tried all 24 cues (a cued sentence's search 7.0 -> 5.1 us, 0.6% of the scoring's instructions). The bare
cues come last, in one group: a cue naming the refuser that matches where one of them does is taken first,
and the group tells the search's caller (`_declines`) which kind it found, in the same scan."""


_NO = deferred(r"no(?:t|\b)")


def _cued(low: str) -> bool:
    """Whether `low` has "not", "no", "none", "n't", "unable", "insufficient", "beyond", "outside", "fail",
    "silent", "unclear" or "neither": every cue above contains one (without "neither", "I checked the
    documents, but neither mentions it." and "Neither document mentions it." never reached their cues).
    C-level substring tests find them far faster than the cue pattern (whose alternatives start with word
    boundaries) or one pattern of them all, so most sentences never reach the former."""
    return ("no" in low and (_NO.search(low) is not None or "none" in low)) or "n't" in low \
        or "unable" in low or "insufficient" in low or "beyond" in low or "fail" in low or "outside" in low \
        or "silent" in low or "unclear" in low or "neither" in low


_PLACEHOLDERS = frozenset({"empty response"})
"""Whole answers a framework writes when it has none: LlamaIndex's response synthesizers answer "Empty
Response" when no node survives retrieval, which read as a claim would count as a made-up one."""
_LONGEST_PLACEHOLDER = max(map(len, _PLACEHOLDERS)) + 6
"""A placeholder with a few spaces and dots around it: longer sentences skip the strip (most reach it)."""


_NOT_AVAILABLE = deferred(
    r"\W*(?:(?:unfortunately|sorry|i'm sorry|i am sorry)\W+)?(?:(?:that|this|such|the requested) "
    r"(?:information|info|data|details?) (?:is not|isn't|are not|aren't|was not|wasn't) "
    r"(?:available|known|something i have)|[^\W\d_][^\d.,;:!?]{0,40}? (?:is not|isn't|are not|aren't) "
    r"(?:mentioned|mentioned anywhere|mentioned at all))\W*")
"""A refusal only as the whole sentence: "This information is not available in the US store" is a fact.
So is "Ozempic isn't mentioned." (the refusals of support answers), but not "... isn't covered": water
damage that isn't covered is a warranty's fact.
Matched from the sentence's start, apart from the cues searched for anywhere: as one of them, its anchor
made the search four times slower."""

_THEY_SAY_NOTHING = deferred(
    r"\W*the (?:" + SOURCE_ADJECTIVE + " " + SOURCE_NOUN + r"|contexts?)\b[^.!?]*?\b(?:they|it) "
    + _SAY_NOTHING)
"""A sentence that opens with the source the answer was given and later says "they" or "it" say nothing ("The
retrieved passages describe encryption; they say nothing about HIPAA"): "The leaked documents describe the
plan; they say nothing about funding" states what the documents hold. Matched from the sentence's start
only, apart from the cues, as `_NOT_AVAILABLE` is: searched for from each source in the sentence, it read
the rest of the sentence each time, and as one of the cues it made their search several times slower."""


_NO_DOCUMENT = deferred(
    r"\W*(?:(?:unfortunately|sorry|i'm sorry|i am sorry|however)\W+)?(?:neither (?:of the (?:"
    + SOURCE_ADJECTIVE + " )?" + SOURCE_NOUN + r"|(?:" + SOURCE_ADJECTIVE + r" )?(?:document|source))|no (?:"
    + SOURCE_ADJECTIVE + r" )?(?:documents?|sources?))(?: " + SOURCE_ADJECTIVE + r")? (?:mentions?|says?|"
    r"specif(?:y|ies)|states?|address(?:es)?|covers?|discuss(?:es)?|indicates?)\b"
    r"(?![^.!?]{0,80}?\b(?:than|other|except|apart from|besides|beyond)\b[^.!?]{0,20}?\d)")
"""A sentence opening with "neither" or "no" of the documents saying something: "Neither document mentions
foster care.", "No provided source says ...". From its start, and of documents or sources alone: "A search
that returns no results indicates ...", "No text says the deadline is 30 days." and "Neither passage covers
the return trip after 6 pm." state facts, and so does a comparison with a figure ("No document mentions a
fee higher than 15 EUR.")."""

_NOT_THERE = deferred(r"\W*not (?:mentioned|specified|stated|provided|covered|addressed|included|found) "
                        r"(?:in|by) the (?:[a-z]+ ){0,2}?" + _SOURCE + r"\b")
"""A sentence that is only a refusal's verb phrase: "Not mentioned in the context." Matched from the start
apart from the cues: as one of them, its `^` cost the cues' search the scan for where a cue can start,
and the search took seven times as long (52 µs a sentence, 15% of the lexical judge's instructions)."""


_OWN_SOURCE = (r"(?:documents?|docs?|pages?|information|info|articles?|leaflets?|guides?|guidance|texts?|"
               r"excerpts?|extracts?|sources?|materials?|context|handbook|faqs?|sections?|brochure|passages?)")
"""What an answer calls a text it was given when it says what that text is about. Not a policy, terms,
details, data or a file: "The policy I have only covers fire and theft.", "The details I have are for a
single room only." tell what a customer's cover or booking holds (a second review)."""
_HOLDS = (r"(?:i (?:have|had|can see|could see|can access|have access to|was given|were given|'ve got|"
          r"'ve been given|am looking at|'m looking at|received)(?: (?:here|now|from [^,.;:!?]{1,40}?))?"
          r"|(?:available|provided|given|shared) (?:to|with) me)")
"""The answerer holding its sources: "the page I can see", "the information I have from the school", "the
document available to me". Not "available" or "provided" alone, nor what follows it: "The only document
given on arrival is the boarding pass." says what a traveller is handed."""
_SHARED = (r"(?:documents?|pages?|files?|articles?|links?|texts?|excerpts?|pdfs?|screenshots?|guides?) "
           r"you (?:shared|provided|sent|attached)(?: me| with me)?")
"""A text the user gave the answerer to read ("the page you shared"): not their "details" or "data" ("The
details you provided are only for delivery purposes." says what a shop does with them)."""
_A_TEXT = (r"(?:policy|handbook|guide|summary|page|document|leaflet|faq|schedule|price list|terms|brochure|"
           r"article|section|manual|sheet|notice|letter|overview)")
"""What the sources are when a refusal says what they are ("The only document I have is the savings account
summary"): "What I can see is a refund for the blue jacket only." says what the customer has."""
_SCOPE = deferred(
    r"\W*(?:(?:unfortunately|sorry|i'm sorry|i am sorry|i'm afraid|i am afraid|however)\W+)?"
    r"(?:i (?:looked through|checked|searched|read|reviewed|went through) [^,.;:!?]{1,60}, but )?"
    r"(?P<source>(?:the|this|that|my)(?: only)? (?:[\w'-]+ ){0,3}?(?:" + _OWN_SOURCE
    + r"(?: (?:that|which))? " + _HOLDS + "|" + _SHARED + r")|(?:what|all) i (?:have|can see|was given|"
    r"'ve got)(?: here)?)"
    r"(?P<verb>(?: (?:only|just|mainly|mostly|solely|specifically))? (?:(?:is|are|was|were)(?: (?:only|just|"
    r"all|mainly|mostly|solely|specifically|entirely))? (?:about|on|limited to|restricted to|focused on|"
    r"(?:the|an?) (?=[^,;]*\b" + _A_TEXT + r"\b))|covers?|covered|deals? with|dealt with|relates? to|"
    r"concerns?|focus(?:es)? on|talks? about|describes?|explains?|lists?|outlines?|sets? out|goes over|"
    r"includes?)\b)(?! that\b)")
"""A refusal saying what the answerer's sources are about, narrowly ("The page I can see is about resident
parking permits only.", "The only document I have is the savings account summary, which doesn't cover
mortgages.", "The handbook section I have explains how to request leave and the balance cap, but it
doesn't cover unused leave."): an account of the sources, not of the subject; read as a claim, a refusal
naming what they leave out ("mortgages") was flagged as made up. Narrowly: "only", "just" or "solely" says
so, or a denial (`_NARROWS`) after what they are about; every clause after it that opens a statement of
its own (`_NEW_CLAUSE`: "..., which take 10 days", "... but refunds are free") is a denial of what the
sources hold ("which doesn't cover", not "which are not free"), and no other
states anything (`_A_VERB`: "..., refunds take 10 days"). A source that "says" or "mentions" something, or
"explains that", states it (no verb here is one). With no figure but a year ("the 2023 fee schedule"):
"The page I have only covers flood damage up to $5,000." tells what a policy pays for."""
_YEAR = deferred(r"\b(?:19|20)[0-9]{2}\b")
_STATUS = deferred(r"\b(?:approved|approval|rejected|rejection|denied|denial|granted|waived|waiver|"
                   r"cancell?ed|cancellation|refused|refusal|accepted|aprobad[oa]s?|rechazad[oa]s?|denegad[oa]s?|"
                   r"approvat[oaie]|respint[oaie]|rifiutat[oaie]|accordée?s?|acceptée?s?|refusée?s?|annulée?s?|"
                   r"genehmigt|abgelehnt|bewilligt|storniert|aprovad[oa]s?|recusad[oa]s?|negad[oa]s?)\b")
"""Words of what became of a thing, which a refusal of scope never holds: "The document I have is about your
claim being rejected only." tells the user (a third review), and so does a figure in words ("... up to five
thousand dollars")."""
_NARROWS = deferred(
    r"^not\b|\b(?:only|just|solely|rather than|instead of|not (?:about|on|for|with)|"
    r"nothing (?:about|on|regarding)|no (?:mention|information|details)|neither)\b"
    r"|(?:\bnot|n't)(?: \w+)? (?:cover|mention|say|discuss|address|deal with|go into|tell|specify|state|list|"
    r"explain|touch on|get into|(?:include|have|contain) any(?:thing)?)\b")
_SCOPE_CLAUSE = deferred(r"(;|\s[-—–]\s)\s*|,\s*|\s(?=(?:but|which|whereas|though|although|so|yet)\b)")
_NEW_CLAUSE = deferred(r"(?:and |but |so |yet )?(?:but|which|so|though|although|whereas|however|yet|while|it|"
                       r"they|this|that|there|with|without|including|plus)\b")
_CARRIES = deferred(r"\b(?:with|without|free|including|plus)\b")
"""What the sources are said to cover must name no more than topics: "The guide I have only lists the Gold
card with free lounge access." states what the card comes with."""
_A_VERB = deferred(r"\b(?:is|are|was|were|be|been|will|would|can|could|may|might|must|should|has|have|had|"
                   r"does|did|takes?|costs?|gets?|pays?|needs?|offers?|allows?|requires?|applies|lasts?|"
                   r"charges?|covers|includes|excludes|protects|refunds)\b|'(?:re|ll)\b")
_TOPIC = deferred(r"(?:and |or )?(?:how|what|when|where|who|whether) to\b")
_TOPIC_IN = deferred(r"\b(?:how|what|when|where|who|whether) to\b")
"""A question word and an infinitive in what the sources are said to cover: "how to request leave" is a
topic, where "how refunds are paid by bank transfer" says how they are (a third review)."""
_ONLY = deferred(r"\bonly\b")
_EUROPEAN_SOURCE = (
    r"(?:(?:la|el|los|las)(?: única| único)? (?:información|informacion|documentos?|página|documentación)"
    r"(?: que tengo| de que dispongo| disponible| a la que tengo acceso)"
    r"|(?:a|o|os|as)(?: única| único)? (?:informação|informações|documentos?|página|documentação)"
    r"(?: que tenho| de que disponho| disponível| a que tenho acesso)"
    r"|(?:l'|il |la |i |le )(?:unico |unica )?(?:documento|documenti|informazioni|pagina|documentazione)"
    r"(?: che ho| a mia disposizione| disponibile| disponibili)"
    r"|(?:le |la |les |l')(?:seul |seule |seuls |seules )?(?:documents?|informations?|page|documentation)"
    r"(?: dont je dispose| que j'ai| à ma disposition| disponibles?)"
    r"|(?:das|die|der) (?:einzige )?(?:dokument|dokumente|informationen|seite|unterlagen|dokumentation)"
    r",? (?:(?:auf|zu) (?:das|die|der|dem|den) ich (?:zugreifen kann|zugriff habe)|die mir vorliegen"
    r"|das mir vorliegt|die ich habe|das ich habe),?)"
    r"(?: (?:de|sobre|del|da|do|das|dos|su|sul|sulla|sur|über|zu|zum|zur) [^,.;:!?]{1,50}?)?")
_EUROPEAN_SCOPE = deferred(
    r"\W*(?:(?:lamentablemente|desafortunadamente|lo siento|infelizmente|purtroppo|malheureusement|"
    r"désolée?|leider)\W+)?(?P<source>" + _EUROPEAN_SOURCE + r")"
    r"(?P<verb>(?: (?:solo|sólo|solamente|únicamente|apenas|só|somente|soltanto|unicamente|seulement|"
    r"uniquement|nur|ausschließlich))? (?:trata(?:n|m)?(?: (?:de|sobre|das|dos|da|do))?|cubren?|"
    r"hablan? (?:de|sobre)|se refieren? a|se centran? en|cobrem?|falam? (?:de|sobre)|referem?-se a|"
    r"abordam?|abordan|riguarda(?:no)?|trattano|tratta(?: di)?|copr(?:e|ono)|parla(?:no)? di|"
    r"si riferisc(?:e|ono) a|(?:porten?t?|traiten?t?|parlen?t?) (?:seulement |uniquement )?(?:sur|de|des|du)|"
    r"couvren?t?|concernen?t?|"
    r"behandel[tn]|betreffen|betrifft|beziehen sich auf|bezieht sich auf|handel[tn] von)\b)")
"""`_SCOPE` in German, French, Spanish, Italian and Portuguese, with the patterns after it: "La
información que tengo de tu póliza solo trata la fisioterapia, y no menciona nada sobre tratamientos
dentales.", "Das Dokument, auf das ich zugreifen kann, behandelt nur das Thema Umzug.", "L'unico documento
disponibile riguarda i buoni pasto, quindi non posso dirti ..."."""
_EUROPEAN_ONLY = deferred(r"\b(?:únic[oa]|unic[oa]|seule?s?|einzige)\b")
_EUROPEAN_NARROWS = deferred(
    r"\b(?:solo|sólo|solamente|únicamente|apenas|só|somente|soltanto|unicamente|seulement|uniquement|nur|"
    r"ausschließlich|nada (?:sobre|de|acerca)|nichts (?:über|zu)|rien (?:sur|à propos)|niente su)\b"
    r"|\b(?:no|não|non|ne|n') ?(?:\w+ )?(?:menciona|mencionan|refere|referem|menziona|menzionano|mentionne|"
    r"mentionnent|dice|dicen|diz|dizem|dit|disent|parla|parle|habla|fala|trata|tratta|traite|cubre|cobre|"
    r"copre|couvre|posso dirti|puedo decirte|posso dizer|peux (?:vous |te )?dire)\b"
    r"|\b(?:erwähnt|nennt|sagt|behandelt)\b[^,.;]{0,40}\bnicht\b")
_EUROPEAN_SCOPE_CLAUSE = deferred(
    r"(;|\s[-—–]\s)\s*|,\s*|\s(?=(?:mas|pero|ma|mais|aber|quindi|donc|daher)\b)")
_EUROPEAN_CARRIES = deferred(r"\b(?:con|sin|avec|sans|mit|ohne|com|sem|senza|gratis|gratuit\w*|kostenlos\w*|"
                             r"grátis|incluid[oa]s?|inclus\w*|inklusive|inclus[oa]s?)\b")
_EUROPEAN_NEW_CLAUSE = deferred(
    r"(?:y |e |et |und )?(?:mas|pero|ma|mais|aber|quindi|así que|por lo que|donc|daher|por isso|que|qui|che|"
    r"esto|isso|ciò|con|sin|avec|sans|mit|ohne|com|sem|senza)\b")
_EUROPEAN_A_VERB = deferred(
    r"\b(?:es|son|está|están|cuesta|cuestan|incluye|é|são|estão|custa|custam|inclui|è|sono|costa|costano|"
    r"include|est|sont|coûte|coûtent|inclut|ist|sind|kostet|kosten|enthält|beträgt)\b")
_EUROPEAN_TOPIC = deferred(
    r"(?:y |e |et |und )?(?:cómo|qué|cuándo|dónde|quién|si|como|o que|quando|onde|quem|se|come|cosa|dove|chi|"
    r"comment|quand|où|qui|wie|was|wann|wo|wer|ob)\b")
_EUROPEAN_TOPIC_IN = deferred(
    r"\b(?:cómo|qué|cuándo|dónde|quién|como|quando|onde|quem|come|cosa|dove|chi|comment|quand|où|wie|was|"
    r"wann|wo|wer|ob)\b")
_SCOPE_TERMS = profile(
    "documents docs pages information info articles leaflets guides guidance texts excerpts extracts sources "
    "materials context handbook faqs sections brochure passages files links pdfs screenshots").terms
"""The terms of the texts `_SCOPE` names: a sentence with none (nor "what I" or "all I") is spared it."""
_EUROPEAN_HOLDER_TERMS = profile(
    "tengo dispongo disponible tenho disponho disponível disponibile disponibili disposizione dispose "
    "disposition zugreifen zugriff vorliegen vorliegt").terms
"""The terms of the ways `_EUROPEAN_SOURCE` has the answerer hold its sources ("ich habe", "che ho" and "j'ai"
are function words, looked for as they are): a sentence with none is spared the pattern (a set test and
three substring tests, where one for each way had cost every claim 13 scans)."""


def _states_the_scope(low: str, european: bool) -> bool:
    """Whether `low` (normalised) is only a narrow account of what the answerer's sources are about
    (`_SCOPE`, or `_EUROPEAN_SCOPE` in the other languages read). The patterns are read at each call, as
    `ragmon.text.deferred` puts each compiled one in its place."""
    scope, only, narrows, clause_break, new_clause, a_verb, topic, topic_in, carries = (
        (_EUROPEAN_SCOPE, _EUROPEAN_ONLY, _EUROPEAN_NARROWS, _EUROPEAN_SCOPE_CLAUSE, _EUROPEAN_NEW_CLAUSE,
         _EUROPEAN_A_VERB, _EUROPEAN_TOPIC, _EUROPEAN_TOPIC_IN, _EUROPEAN_CARRIES) if european
        else (_SCOPE, _ONLY, _NARROWS, _SCOPE_CLAUSE, _NEW_CLAUSE, _A_VERB, _TOPIC, _TOPIC_IN, _CARRIES))
    found = scope.match(low)
    if found is None or _STATUS.search(low) is not None:
        return False
    without_years = _YEAR.sub("", low)
    if _DIGIT.search(without_years) is not None or profile(without_years).numbers:
        return False
    first, *parts = clause_break.split(low[found.end("verb"):])
    if (verb := a_verb.search(first)) is not None and topic_in.search(first, 0, verb.start()) is None:
        return False  # "... is only about home insurance and covers fire and theft": a fact of its own
    if carries.search(first) is not None:
        return False
    narrowed = (only.search(found.group("source")) is not None
                or narrows.search(found.group("verb") + first) is not None)
    for semicolon, clause in zip(parts[::2], parts[1::2], strict=True):
        if not clause.strip(" .!"):
            continue
        denies = narrows.search(clause) is not None
        if (semicolon or new_clause.match(clause)) and not denies:
            return False
        if not denies and a_verb.search(clause) is not None and topic.match(clause) is None:
            return False
        narrowed = narrowed or denies
    return narrowed


def _declines(low: str) -> bool:
    """Whether a cue that declines is in `low` (normalised) (`_cue_declines`), or it opens with a source that
    says nothing, with "not mentioned in the ..." (`_NOT_THERE`), or with "neither" or "no" of the documents
    (`_NO_DOCUMENT`)."""
    return (_cue_declines(low) or _THEY_SAY_NOTHING.match(low) is not None
            or _NOT_THERE.match(low) is not None or _NO_DOCUMENT.match(low) is not None)


def _cue_declines(low: str) -> bool:
    """Whether one of `_CUES` is in `low`, or one of `_BARE_CUES` with a refuser beside it (`_REFUSER`), in a
    sentence opening with a pronoun for what was asked (`_OPENER`) or as a terse refusal (`_TERSE`)."""
    found = _ABSTENTION.search(low)
    if found is None or found["bare"] is None or _terse(low) or _said_of_the_asked(low, found):
        return found is not None
    return _past_the_bare(low, found, _ABSTENTION, _REFUSER)


def _said_of_the_asked(low: str, found: re.Match[str]) -> bool:
    """Whether the bare cue `found` is said of what was asked: of a pronoun for it (`_OPENER`), wherever the
    sentence goes on; of a subject with "the" ("The gym fee can't be confirmed."), or of any subject
    "from this" (`_ENDS_THERE`), only where the sentence ends there: "The reservation can't be confirmed
    without a card." and "Same-day bookings cannot be confirmed." state a rule."""
    opening = _OPENER.match(low)
    if opening is None or opening.end() != found.start():
        opening = None
    elif opening["subject"] is None:
        return True
    rest = _ENDS_THERE.match(low, found.end())
    return rest is not None and (opening is not None or rest["given"] is not None)


def _european_declines(low: str) -> bool:
    """`_cue_declines` for German, French, Spanish, Italian and Portuguese (`european.DECLINES`, whose group
    "bare" is their "no information")."""
    found = european.DECLINES.search(low)
    if found is None or found["bare"] is None or european.TERSE.match(low) is not None:
        return found is not None
    return _past_the_bare(low, found, european.DECLINES, european.REFUSER)


def _past_the_bare(low: str, found: re.Match[str], cues: re.Pattern[str], refuser: re.Pattern[str]) -> bool:
    """Whether `found`, a bare cue of `cues` in `low`, declines: a cue naming the refuser follows it, or
    `refuser` is in the sentence outside every bare cue ("information" in "No information is given." is the
    cue's own word, and so is it in "No data is sold and no information is shared."). Read once, each cue
    blanked out in place, and only in a sentence with a bare cue (few): a draft that looked for a refuser
    at each cue read a sentence repeating one again each time."""
    rest = []
    start = 0
    for cue in cues.finditer(low, found.start()):
        if cue["bare"] is None:
            return True
        rest.append(low[start:cue.start()])
        rest.append(" " * (cue.end() - cue.start()))
        start = cue.end()
    rest.append(low[start:])
    return refuser.search("".join(rest)) is not None


_REFUSER = deferred(
    r"\b(?:(?:i'm|i've|i'd|i(?!'))(?! (?:think|believe|guess|suspect|assume|understand|know|recall|"
    r"remember|heard|read|told|been told|sure|certain|confident|aware|pretty|fairly|quite)\b)|me|"
    r"my(?! (?:understanding|guess|impression|sense|belief)\b)|" + SOURCE_NOUN + r"|(?:mentioned|given|"
    r"provided|available|specified|listed|included|described|discussed|addressed|supplied|stated|known|"
    r"found)(?! to (?!(?:say|tell|determine|confirm|know|judge|be sure|answer)\b)| (?:on|in|with) (?:your|"
    r"their|our|his|her)\b)|could be located|question|answer|to (?:say|tell|determine|confirm|know|judge|"
    r"be sure))\b")
"""Who refuses beside a bare cue: the answerer ("I", "my"), the sources, a word of their giving or finding
or not ("No information is given about pets.", "No details are available on parking.", "No relevant
information was found.", "No information about the gym could be located."), or the answering itself ("Not
enough information is given to say.", "There is no evidence to answer the question."). Not the answerer
believing or being told ("I think no data is sold.", "My understanding is ..."): a claim hedged; nor "we",
"our" or "us", a company telling its practice ("No data is passed on outside our group."), nor "shared" or
"shown", what a privacy page says of data; nor a word of giving to a party or on the user's things: "No
details are provided to advertisers.", "No details are listed on your public profile." state a practice."""
_OPENER = deferred(
    r"[\W_]*(?:(?:unfortunately|sorry|however|regrettably)[\W_]+)?(?:(?:regarding|as for|as to|about) "
    r"[^.,;:!?]{1,40}, )?(?:(?:[^.;:!?]{1,80}?,? so )?(?:(?:it|this|that|which)(?: is| was|'s)?|whether "
    r"[^.,;:!?]{1,80}?) (?=(?:cannot|can't|can not|unable|insufficient|not (?:enough|sufficient|"
    r"adequate))\b)|(?P<subject>(?:the|its) [^\d.,;:!?]{1,50}?) (?=(?:cannot|can't|can not) be\b))")
"""What opens a sentence before its bare cue when the cue is said of a pronoun for what was asked: "It
cannot be determined from what I have.", "This can't be confirmed.", "That is not enough information to go
on.", "Whether the fee applies cannot be determined.", after an apology, a topic ("Regarding the gym, that
can't be determined.") or a reason ("Nothing is said about the gym, so whether there is one can't be
confirmed."); or of a subject with "the" (group "subject"), which `_said_of_the_asked` reads further.
Only right before a cue that is a predicate: "It seems there is no evidence that ..." asserts, and so does
"Doc-1: no data is sold." (`ragmon.text.cited_ids` reads an id as "it", and the colon out)."""
_ENDS_THERE = deferred(
    r"(?P<given> (?:from|based on) (?:this|that|these|those|it|here)| (?:from|based on) what\b[^.!?]{0,80}|"
    r" here)?(?: (?:yet|for now|for sure|for certain|at (?:this|the) (?:time|moment)))?[\W_]*$")
"""The end of a sentence after "cannot be determined" that makes it a refusal: none, or where it cannot be
("Gym opening hours can't be determined from this."). Said of a subject with "the", a bare cue had read
as a claim unless a refuser stood beside it: "The exact gym hours cannot be determined.", "Sorry — the gym
fee cannot be confirmed."."""
_TERSE = deferred(
    r"[\W_]*(?:(?:unfortunately|sorry|however)[\W_]+)?(?:(?:cannot|can't|can not) be (?:determined|answered|"
    r"found|inferred|confirmed)|unable to (?:answer|determine|find))\b"
    r"|[\W_]*(?:[^\W\d_][^.,;:!?]{0,40}[,:][\W_]*)?(?:(?:but|however|unfortunately|sorry|sadly)[\W_]+)?"
    r"(?:(?:insufficient|(?:not|no) (?:enough|sufficient|adequate))[ _](?:context|information|data|evidence|"
    r"details?)(?:[\W_]*$| (?:about|on|regarding|concerning|as to|for|to (?:answer|say|tell|determine|"
    r"confirm|know|judge|be sure))\b)"
    r"|no (?:relevant |specific |such )?(?:information|details?|data) (?:about|on|of|regarding|in)\b"
    r"(?P<topic>.*))")
"""A bare cue as the whole of a terse refusal, with no subject: "Unable to determine the warranty length.",
"Cannot be determined.", "Insufficient context.", "Not enough information about the warranty.",
"Insufficient data to say.", "No information on the fee.", a noun phrase after a label or a few words and
a comma too, or a contrast ("**Parking:** no information about fees.", "So far, no details on that.",
"Sorry, but no information about the fee."). A noun phrase only
alone or before its topic (`_terse`): "Insufficient information leads to a refusal.", "Not enough evidence
exists ..." and "No details of the damp are passed on to the next tenant." go on to state something."""
_AUXILIARY = deferred(r"\b(?:is|are|was|were|be|been|will|would|can|could|may|might|must|should|has|have|had|"
                      r"does|did)\b|'(?:re|ll)\b")
"""The verb of a clause the topic of "no information about ..." goes on to ("No data on children is
collected."): auxiliaries only, as `_A_VERB`'s other verbs are nouns as often ("No information about
refunds.", "... about costs.")."""
_ASKED = deferred(r"\b(?:whether|if|how|what|when|where|which|who|why)\b")
"""A question word, after which a verb is the topic's: "No information about whether pets are allowed."."""


def _terse(low: str) -> bool:
    """Whether `low` is a terse refusal (`_TERSE`) whose topic, if any, holds no verb (`_AUXILIARY`) but
    after a question word (`_ASKED`)."""
    terse = _TERSE.match(low)
    if terse is None:
        return False
    topic = terse["topic"]
    return (not topic or (verb := _AUXILIARY.search(topic)) is None
            or _ASKED.search(topic, 0, verb.start()) is not None)


_CJK_DECLINES = deferred(
    "|".join((
        r"(?:无法|無法|不能|没办法|沒辦法)(?:[^。！？!?,，]{0,24}?)(?:回答|确定|確定|判断|判斷|找到|提供|答复|答覆)",
        r"(?:不知道|不清楚|不确定|不確定)", r"(?:信息|资料|資訊|資料)(?:不足|有限)",
        r"(?:没有|沒有|未)(?:找到|发现|發現)",
        r"不(?:包含|包括)[^。！？!?]{0,20}?(?:信息|資訊|内容|內容|说明|說明)",
        r"超出(?:了)?[^。！？!?]{0,12}?(?:范围|範圍)",
        r"(?:没有|沒有|并未|並未|未|暂无|暫無)(?:找到)?(?:任何)?(?:相关|相關|足够|足夠|关于|關於|提到|提及|说明|說明|涉及|"
        r"包含|记载|記載)",
        r"(?:わかり|分かり|判り)(?:ません|かねます)",
        r"(?:お答え|回答|判断|特定|確認)(?:いたし)?(?:でき)?(?:かねます|できません|することが(?:でき|出来)ません|られません)",
        r"(?:記載|言及|説明|掲載)(?:されて(?:い|おり)ません|が(?:あり|ござい)ません|は(?:あり|ござい)ません)",
        r"(?:情報|記載|内容|説明)(?:が|は)(?:含まれて(?:い|おり)ません|見当たりません|見つかりません|(?:あり|ござい)ません)",
    ))
)
"""Chinese (simplified and traditional) and Japanese refusal cues: "无法回答" (cannot answer), "没有提到"
(does not mention), "信息不足" (not enough information), "わかりかねます" (I cannot tell), "記載されて
いません" (it is not stated), "お答えできません" (I cannot answer). A cue is a refusal only with the one
refusing: the answerer ("我", not "我们", the company; Japanese "私" before a particle, not "私たち" nor
"私書箱", a PO box) or the documents (`_CJK_REFUSER`), or the polite apology a refusal opens with;
without one it states a fact: "如果系统无法确定收货地址，订单将被取消" (if the system cannot determine
the address...), "订单信息不足的退货申请将被驳回" (returns with too little information are refused),
"チャットではお答えできません" (this cannot be answered by chat)."""
_CJK_REFUSER = deferred(
    r"我(?![们們])|(?<!公)私(?=[はにがものでとか、]|自身)|本助手|资料|資料|文档|文檔|文件|上下文|知识库|知識庫|提供的信息|提供的資訊"
    r"|现有信息|現有資訊"
    r"|抱歉|對不起|对不起|遗憾|遺憾|申し訳|恐れ入り|すみません|提供された|いただいた(?:情報|資料)"
    r"|(?:情報|資料|ドキュメント|文書)(?:に|で|の中|には|では)|(?:この|その)ご?質問|该问题|這個問題|这个问题|此问题|您的问题|您的問題")
_CJK_REFUSAL = deferred(
    r"[\W_]*+(?:(?:很)?抱歉|對不起|对不起)?[\W_]*+(?:(?:目前)?(?:没有|沒有|暂无|暫無)(?:相关|相關)的?"
    r"(?:信息|资料|資訊|資料)|(?:よく|はっきり(?:とは)?)?(?:わかり|分かり)(?:ません|かねます)|確か(?:では|じゃ)ありません|お答え(?:できません|いたしかねます))[\W_]*")
"""Refusals whole in themselves: "没有相关信息。" (no relevant information), "わかりません。", "よくわかりま
せん。" (I don't really know), "確かではありません。" (I am not sure), "お答えできません。". The runs of marks
are possessive: two greedy ones around an optional group had "📚" and 100,000 variation selectors take
minutes (benchmarks/text_worst_case.py)."""
_CJK_CONTRAST = deferred(r"但|不过|不過|然而|ただし|しかし|ですが|けれど")
"""Where a Chinese or Japanese refusal goes on to assert something ("..., but ..."): a claim."""


_CUE_WORDS = (
    *re.findall("[a-z]+", SOURCE_NOUN), "know", "idea", "clue", "sure", "answer", "determine", "find", "tell",
    "say", "provide", "confirm", "verify", "locate", "give", "help", "assist", "info", "details", "data",
    "evidence",
    "mention", "indication", "reference", "specify", "state", "determined", "answered", "found", "inferred",
    "confirmed", "mentioned", "guess", "speculate", "discuss",
)
"""Words one of which every English refusal holds as a word of its own, with a space, a word boundary or
"_" on either side: in every cue of `_CUES` and in `_THEY_SAY_NOTHING`, `_NOT_THERE` and `_NOT_AVAILABLE`
(tests/text/test_abstention_gate.py expands each pattern and checks). "not", "can" and "could", which
nearly all of them hold too, are function words and no terms."""
_CUE_TERMS = frozenset(term for word in _CUE_WORDS for read in profile(word).terms
                       for term in (read, opposite(read)))
"""The terms of `_CUE_WORDS`, and their opposites: a word a European negation marks ("nicht context") is
read as its opposite."""


def _may_decline(low: str, terms: frozenset[str]) -> bool:
    """Whether `low` (normalised; `terms` its sentence's) may hold an English refusal: one of `_CUE_WORDS`
    as a word of its own, which in ASCII text is one of the sentence's terms (or its opposite), as every
    character but a letter, a digit, "_" and "'" separates words for the terms as it bounds them for the
    patterns. Unless the terms were read from other words than the patterns see: an apostrophe joins the
    letters beside it into one word ("x'context"), "non-" joins its word, citations ("[...]") and tags
    ("<...>") go with their words, and text other than ASCII is read in other ways: such a sentence is
    searched as before. One C-level set test spares nearly every claim `_cued`, which lets a quarter of
    them through ("no" and "not" are everywhere), and the cues' search after it, 5 us a sentence."""
    return (not terms.isdisjoint(_CUE_TERMS) or not low.isascii() or "'" in low or "[" in low or "<" in low
            or "non-" in low)


def is_abstention(sentence: str) -> bool:
    """True when the sentence declines to answer ("I don't know", "the context does not mention it"), or
    is a framework's placeholder for no answer. A sentence that declines and asserts ("I can't help with
    that, but the warranty is 5 years") is a claim: taken for an abstention, its assertion was never
    checked and the answer left every gated mean. The sentence's terms are cached: every caller has read
    them. So is one that declines and then guesses or states a figure ("I'm not sure, refunds probably take
    90 days.", "I'm not sure, refunds take 90 days.", `_states_a_figure_beside`)."""
    low = normalise(sentence)
    return _refuses(low, profile(sentence).terms) and not _states_a_figure_beside(low)


def _refuses(low: str, terms: frozenset[str]) -> bool:
    """`is_abstention` but for a figure beside the refusal: `low` is the sentence normalised, `terms` its."""
    if (_may_decline(low, terms) and _cued(low)
            and (_declines(low) or _NOT_AVAILABLE.fullmatch(low) is not None)):
        return not _asserts_beside(low) and not _states_of_its_own(low, _ENGLISH_REASONS)
    if ((not terms.isdisjoint(_SCOPE_TERMS) or "what i " in low or "all i " in low)
            and _states_the_scope(low, european=False)):
        return True
    if ((not terms.isdisjoint(_EUROPEAN_HOLDER_TERMS) or "ich habe" in low or "che ho" in low
         or "j'ai" in low) and _states_the_scope(low, european=True)):
        return True
    if not low.isascii() and wide(low):
        if _CJK_REFUSAL.fullmatch(low):
            return True
        if _CJK_DECLINES.search(low) and _CJK_REFUSER.search(low) and not _CJK_CONTRAST.search(low):
            return True
    if not terms.isdisjoint(_REFUSAL_TERMS) and _european_declines(low):
        return not _asserts_beside_european(low) and not _states_of_its_own(low, _EUROPEAN_REASONS)
    return len(low) < _LONGEST_PLACEHOLDER and low.strip(" .") in _PLACEHOLDERS


_OPENS_A_STATEMENT = re.compile(
    r"\b(?:(?P<beside>more than that|other than that|except that|beyond the fact that)|(?P<reason>because))\b"
    r"|[,;:]|\s[-—–]\s|[—–]")
"""What opens a clause of a refusal that may state something of its own, and where such a clause ends: what
alone is said beside ("I can't tell you more than that the family plan allows up to six members."), or a
reason ("The documents don't mention a change fee because the airline dropped it in 2023."), which states
something of its own only with a figure: worded otherwise, a reason is the refusal's own account far more
often than a fact ("because it wasn't part of the excerpts", "because the FAQ doesn't cover it"). Not
"since", as often of time ("I haven't found anything since the update."), nor a question of why: "I can't
determine why the fee was charged." takes for granted what the user asked about far more often than what
the answerer made up."""
_ANSWERERS = re.compile(
    r"\W*(?:[\w']+\W+){0,2}?(?:we|our|us|you|your|you're|" + SOURCE_NOUN + r"|data|report|page|pages|faq|"
    r"manual|material|file|files|table|chunks?|snippets?)\b|.*\b(?:i|i'm|i've|i'd|me|my)\b")
"""A clause whose subject, in its first three words, is the user or the sources, or that names the answerer
anywhere, is the refusal's own account ("..., because the documents only cover 2023", "..., because the data
only goes up to 2022", "..., because it's more recent than my training data")."""
_NOT_GIVEN = (re.compile(r"\b(?:not|no|nothing|never|none|nowhere)\b|n't\b"),
              re.compile(r"\b(?:specif|stat|mention|list|giv|includ|provid|shar|discuss|address|indicat|describ|"
                         r"document|detail|appear|say|said|show|record|known|clear)"))
_ABOUT_ANSWERING = re.compile(
    r"(?:n't|\bnot) (?:there|covered)\b|\b(?:question|unclear|ambiguous|scope|guess\w*|speculat\w*|advice|"
    r"confidential|personal data|private information|missing|incomplete|unknown|access|medical|legal|"
    r"outside what|nothing (?:about|on|to|confirms)|"
    r"(?:may|might|could|can|will)(?: have)? (?:change|changed|vary|varied|differ|differed))\b")
"""What else a clause giving a refusal's reason may say of it, with no fact of the subject: that the answer
is not given, a denial and a verb of giving or telling ("..., because it isn't specified", "... because no
date is given"), or that the question is unclear or out of scope, an answer would be a guess or advice, or
it may have changed."""


@dataclass(frozen=True)
class _Reasons:
    """A language group's patterns for `_states_of_its_own`."""
    opens: re.Pattern[str]
    own: re.Pattern[str]
    not_given: tuple[re.Pattern[str], re.Pattern[str]]
    answering: re.Pattern[str]


def _own_account(clause: str, language: _Reasons) -> bool:
    """Whether a clause giving a refusal's reason is its own account: of the answerer, the user or the
    sources as its subject, the answer not given, or the answering (`_NOT_GIVEN`, `_ABOUT_ANSWERING`)."""
    denial, giving = language.not_given
    return (language.own.match(clause) is not None or language.answering.search(clause) is not None
            or (denial.search(clause) is not None and giving.search(clause) is not None))


def _states_of_its_own(low: str, language: _Reasons) -> bool:
    """Whether a clause `language.opens` opens in the refusal `low` states something: two words or more, not
    the refusal's own account (`_own_account`), a reason only with a figure, and no refusal itself. Each
    clause is read up to the next opening or break, once."""
    found = list(language.opens.finditer(low))
    if not found:
        return False
    for opening, after in zip(found, [*found[1:], None], strict=True):
        kind = opening.lastgroup  # "beside", "reason" (or "reason_after_comma"), or None at a break
        if kind is None:
            continue
        clause = low[opening.end():after.start() if after is not None else len(low)]
        if len(clause.split()) < 2 or _own_account(clause, language):
            continue
        read = profile(clause)
        if kind != "beside" and not read.numbers:
            continue
        if not _refuses(clause, read.terms):
            return True
    return False


_ENGLISH_REASONS = _Reasons(_OPENS_A_STATEMENT, _ANSWERERS, _NOT_GIVEN, _ABOUT_ANSWERING)
_EUROPEAN_REASONS = _Reasons(european.OPENS_A_STATEMENT, european.ANSWERERS, european.NOT_GIVEN,
                             european.ABOUT_ANSWERING)


_FIGURE_LIST = (r"\d(?<![\d.,]\d)(?<!\d, \d)\d*+(?:\.\d+)?+(?:, \d+(?:\.\d+)?+)++,? "
                r"(?:and|or|und|oder|et|ou|y|o|u|e) (?=\d)")
"""A list of figures ending with "and" or "or" ("1, 2 or 3", "30, 60, or 90", "1, 2 oder 3"), matched from
its first figure only (no digit, or a figure and a comma, before it): tried again from each figure, a
refusal listing 20,000 with no "or" after them was read in quadratic time."""
_CLAUSE_BREAK = deferred(
    r"(?P<list>" + _FIGURE_LIST + r")|(?<!\d),|,(?!\d| \d{4}(?!\d))|[;:，、；：]|\s[-—–]\s|[—–]")
"""Where a comma, a semicolon, a colon or a dash starts a clause: a guess needs no contrast word to follow a
refusal ("I don't know, maybe 90 days.", "No tengo información; normalmente son 2 semanas."). Not a comma
inside a number ("1,000 units", "2,5 Tage") or before a date's year ("May 5, 2024 orders"): its number's
last digits, cut off with the words after them, read as a figure stated. A figure, a comma and a space
before another figure do start a clause ("I'm not sure about 2024, 90 days probably.", "..., plan 3, 50
dollars maybe."): kept in the refusal's clause, the guess was read as part of what it is about. Not so in
a list of figures (`_FIGURE_LIST`, "whether refunds take 1, 2 or 3 weeks"): cut from the "whether" that
opens it, "2 or 3 weeks" was read as a figure stated, and an honest refusal as a hallucination."""


def _clauses(low: str) -> list[str]:
    """The clauses of `low` after its first, cut at each `_CLAUSE_BREAK` but a list of figures."""
    parts = []
    start = None
    for found in _CLAUSE_BREAK.finditer(low):
        if found.lastgroup == "list":
            continue
        if start is not None:
            parts.append(low[start:found.start()])
        start = found.end()
    if start is not None:
        parts.append(low[start:])
    return parts


_GUESS = deferred(
    r"\b(?:i think|i believe|i guess|i(?:'d| would) (?:guess|say)|i suspect|i assume|my (?:best )?guess|"
    r"probably|maybe|perhaps|likely|possibly|presumably|typically|usually|generally|normally|around|"
    r"roughly|approximately|wahrscheinlich|vermutlich|vielleicht|normalerweise|meistens|ungefähr|etwa|wohl|"
    r"probablement|peut-être|généralement|habituellement|normalement|environ|probablemente|quizás?|"
    r"tal vez|normalmente|generalmente|aproximadamente|probabilmente|forse|di solito|circa|provavelmente|"
    r"talvez|geralmente|as far as i(?: know| can tell| am aware|'m aware)|"
    r"if i (?:remember|recall)(?: correctly| right)?|"
    r"as i (?:remember|recall)|soweit ich (?:weiß|weiss)|wenn ich mich (?:recht |richtig )?erinnere|"
    r"si je (?:me souviens|me rappelle) bien|si je ne me trompe pas|à ma connaissance|que yo sepa|"
    r"hasta donde (?:yo )?sé|si (?:mal no recuerdo|no recuerdo mal|no me equivoco)|che io sappia|"
    r"per quanto ne so|se (?:ricordo bene|non (?:mi )?sbaglio)|que eu saiba|pelo que sei|"
    r"se (?:não me engano|bem me lembro))\b"
    r"|大概|可能|应该|應該|也许|也許|或许|或許|估计|估計|通常|一般|大约|大約|左右|"
    r"たぶん|おそらく|多分|だいたい|約(?=\d)")
"""The words of a guess, in the languages the refusals are read in, with the answerer's memory as its source
("as far as I know", "que yo sepa", "si je me souviens bien"): a refusal that goes on to guess has made up
an answer, and taken for an abstention it hid that answer from groundedness. Japanese "約" only
before a number: it is in "予約" (a booking) and "契約" (a contract), which a pointer names."""


def _states_a_figure_beside(low: str) -> bool:
    """Whether a clause after the sentence's first (`_CLAUSE_BREAK`) states a figure, as a guess (`_GUESS`)
    or as a clause of its own (`_about_the_refusal` does not open it), and says something that neither
    declines nor is filler ("I'm not sure, maybe." declines). A refusal spliced to a statement ("I'm not
    sure, refunds take 90 days.", "No estoy seguro, los reembolsos tardan 90 días.") has answered after
    all: read as an abstention, its figure was never checked. The first clause is left out: what opens a
    refusal frames it ("Generally speaking, I can't answer that."). So is a clause that points to someone
    to ask ("..., so it's probably best to contact support.", "您可能需要联系客服"), or one that says what
    the refusal is about or why ("Ich bin mir nicht sicher, ob es 90 Tage sind.", "I don't know, the
    documents only cover 2023."), unless it guesses ("..., as it's probably 90 days."). A figure is stated:
    with a guess word alone, a refusal saying what the documents "generally" cover, or where the user
    should "probably" look, was read as a made-up claim, an honest "I don't know" counted as a
    hallucination."""
    about = _about_the_refusal(low)  # once: searched for each clause, a long refusal's took quadratic time
    for part in _clauses(low):
        read = profile(part)
        terms = read.terms
        if (read.numbers and terms and terms.isdisjoint(_REFERRAL_TERMS)
                and (_GUESS.search(part) is not None or about.match(part) is None)
                and _CJK_REFERRAL.search(part) is None and not _refuses(part, terms)
                and not is_filler(part, terms)):
            return True
    return False


def _about_the_refusal(low: str) -> re.Pattern[str]:
    """The openings of a clause saying what the refusal `low` is about, in its language: one list for every
    language read "that's 90 days", "as of 2024 ...", "car refunds ..." (French "because") and "was told
    ..." (German "what") in English refusals as what they were about, and hid the figure stated."""
    return european.ABOUT_THE_REFUSAL if european.DECLINES.search(low) is not None else _ABOUT_THE_REFUSAL


_SOURCES_COVER = (
    r"(?: (?:only|just|clearly|merely|also|mostly|mainly|seem to|seems to|appear to|appears to)){0,3}"
    r" (?:cover|covers|covered|span|spans"
    r"|(?:(?:is|are|was|were)(?: (?:only|just|all|mostly))? |dates? |dated )from"
    r"|(?:go|goes|went) (?:up to|back to|until|through)"
    r"|(?:do|does|did)(?: not|n't) |can(?:not| not|'t) |never "
    r"|(?:say|says|said|show|shows|mention|mentions|contain|contains|have|has|include|includes|give|gives) "
    r"nothing\b)")
"""What the sources as a clause's subject do when the clause says what a refusal is about: cover a span
("the documents only cover 2023", "the context is from 2022", "the documents only go up to 2023"), or
leave it out ("the documents don't mention 2024", "the documents say nothing about 2024"); "only",
"just" or "clearly" may come before. Saying anything else ("the documents mention 90 days", "only say
90 days", "specify", "have", "refer to") they state the figure, a claim a context must hold."""
_LABELLED = r"(?:sections?|pages?)(?: [0-9]+(?:(?:,? (?:and|or|to) |, |[-–])[0-9]+)*+)?"
"""A part of the sources with its numbers ("pages 3 and 4", "section 5"), which name it, not a figure."""
_ABOUT_THE_REFUSAL = deferred(
    r"[\W_]*(?:(?:whether|if|what|who|whom|whose|how|when|where|why|because|than|unless"
    r"|(?:as|since)(?= (?:the|these|those|this|it|its|i|i'm|we|they|there|my|our|your|their|no|none|nothing)"
    r"\b))\b"
    r"|which(?=[^.!;]*\?)|which(?: " + SOURCE_ADJECTIVE + r")?" + _SOURCES_COVER
    + r"|(?:(?:the|these|those|this|my|our|your|all) )?(?:" + SOURCE_ADJECTIVE + r" )?(?:" + SOURCE_NOUN
    + r"|" + _LABELLED + r")\b(?: " + SOURCE_ADJECTIVE + r")?+" + _SOURCES_COVER
    + r"|是否|是不是|因为|因為|由于|由於|为什么|為什麼|为何|為何|多少|什么|什麼|何时|何時|哪|怎么|怎麼|如何"
    r"|多久|多长|多長|有没有|有沒有"
    r"|(?:提供的|现有的?|現有的?|这些|這些|该|該|此)?(?:文档|文檔|文件|资料|資料|上下文|知识库|知識庫|信息|資訊|内容|內容|段落)"
    r"(?:中|里|裡|上)?(?:只|仅|僅|只是|仅仅|僅僅|都)?(?:涵盖|涵蓋|覆盖|覆蓋|涉及|截至|截止|来自|來自"
    r"|(?:没有|沒有|未|并未|並未|不)(?:提到|提及|涉及|包含|包括|涵盖|涵蓋|覆盖|覆蓋|说明|說明|记载|記載)"
    r"|有[^，。；,;]{1,20}?的[\W_]*$))")
"""What opens a clause saying what an English, Chinese or Japanese refusal is about or why: a subordinating
word ("..., whether it's 90 days", "..., as the documents ...", "我不确定，是否需要90天", "..., 因为文档
..."), or the sources as its subject saying what they cover or leave out (`_SOURCES_COVER`: "..., the
documents only cover 2023", "文档只涵盖2023年", "文档只有2023年的", "文档没有提到2024年"). Whatever else
they do states the figure ("..., the documents mention 90 days", "文档写的是90天"): read as what the refusal
was about, it had been hidden from groundedness. "as" and "since" only before a subject: "as of 2024",
"as far as I know" and "since 2020" open a statement. Not "that": "that's 90 days" states it; nor "which",
which after a comma opens what the thing is ("..., which costs 900 EUR"), unless the sources are what it
stands for ("... in the documents, which only cover 2023.", "..., which dates from 2022.") or it asks
("I'm not sure, which of the 2 plans do you mean?")."""


_CJK_REFERRAL = deferred(r"联系|聯繫|联络|聯絡|咨询|諮詢|问询|問い合わせ|ご連絡|ご相談")
"""The verbs of a pointer to someone to ask in Chinese and Japanese, as `_REFERRAL_TERMS` are English's."""


_REFUSAL_TERMS = frozenset(term for word in european.REFUSAL_WORDS for term in profile(word).terms)
"""The terms of `european.REFUSAL_WORDS`: a sentence's terms (cached, read for its claim anyway) tell in
one C-level test whether it may hold a refusal, where ten substring tests had cost every claim 0.6 us."""


def _asserts_beside_european(low: str) -> bool:
    """`_asserts_beside` for German, French, Spanish, Italian and Portuguese: a part a contrast sets apart,
    or one after a consequence (`european.CONSEQUENCE`), that is no refusal, no apology ("Je suis désolé,
    mais ...") and no note of where the answerer looked (`european.SEARCHED`), and no filler, says
    something; so does what comes before a consequence unless it declines too, or denies something of the
    answerer's sources, as a refusal's reason does ("El Pixel 7 no figura en la tabla de tarifas que tengo,
    así que no puedo darte un precio." declines; "El visado es gratuito, así que no lo sé." and "La domanda
    non è completa, quindi non posso dirti di più." do not)."""
    head, *consequences = european.CONSEQUENCE.split(low)
    if consequences and (any(map(_says_beside, consequences)) or not _a_reason(head)):
        return True
    return any(map(_says_beside, european.CONTRAST.split(low)))


def _a_reason(head: str) -> bool:
    """Whether the part before a consequence is a refusal's reason: a denial naming the answerer's sources,
    or nothing said beside the refusal (a refusal itself, `_says_beside`)."""
    return (european.DENIES.search(head) is not None and european.OWN.search(head) is not None) \
        or not _says_beside(head)


def _says_beside(part: str) -> bool:
    """Whether a part of a European refusal says something: see `_asserts_beside_european`."""
    if (_european_declines(part) or european.APOLOGY.fullmatch(part)
            or european.SEARCHED.fullmatch(part)):
        return False
    terms = profile(part).terms
    return bool(terms) and not is_filler(part, terms)


_CONTRAST_WORDS = ("but", "however", "though", "whereas", "nevertheless")  # "though" finds "although"
_CONTRAST = deferred(r"(?:[,;]|(?<![\s,;]))\s*+\b(?:but|however|although|though|whereas|nevertheless)\b")
"""A contrast, with the comma or semicolon and the spaces before it. A match opens at a run of spaces' first
only: tried from each of them, a run read again from each, 16,000 spaces before a refusal's "but" took 9 s."""
_BESIDE_MARKS = (*_CONTRAST_WORDS, ";", "only that")
_BESIDE = deferred(_CONTRAST.pattern + r"|;|,\s*only that\b")
"""What sets a part of a sentence apart from a refusal: a contrast, a semicolon ("The documents don't
mention shipping; refunds take 5 days."), or ", only that" ("The context doesn't say what shipping
costs, only that orders over $50 ship free."): read whole, each such answer abstained, and what it
asserted after the refusal was never checked."""
_CONCEDED = deferred(r"\W*(?:while|although|though|whereas|even though)\b([^,;]+)[,;]")
"""A clause opening the sentence, up to its comma, that concedes what the main clause goes on from."""


def _asserts_beside(low: str) -> bool:
    """Whether a part of the sentence that a contrast sets apart ("..., but ...") has no cue of its own and
    says something: a content word that is no filler ("I'm sorry, but I don't know" declines). A refusal
    conceded in an opening clause is set apart at its comma ("While the documents don't mention shipping,
    refunds take 5 days."): the contrast word opening it left refusal and assertion in one part, and the
    answer abstained. An opening clause that declines nothing is not set apart: "While I understand your
    question, I don't have that information" declines. Nor is what the sources hold, beside what they say
    nothing about (`_THEY_SAY_NOTHING`: "The retrieved passages describe encryption; they say nothing about
    HIPAA."): the refusal's own account of them."""
    breaks = _CONTRAST if _THEY_SAY_NOTHING.match(low) else _BESIDE
    conceded = _CONCEDED.match(low)
    if conceded is not None and _cued(conceded.group(1)) and _declines(conceded.group(1)):
        parts = [conceded.group(1), *breaks.split(low[conceded.end():])]
    elif not any(mark in low for mark in _BESIDE_MARKS) or breaks.search(low) is None:
        return False  # the substring tests first: the pattern, tried at every character, cost 3 µs
    else:
        parts = breaks.split(low)
    # Searched for once: asked of each part, it had read the sentence again each time, in quadratic time.
    searched = any(word in low for word in _SEARCH_WORDS) and _SEARCHED_SOMEWHERE.search(low) is not None
    for part in parts:
        if ((_cued(part) and _declines(part)) or (searched and (_SEARCHED_ALONE.fullmatch(part) is not None
                                                                or _THEY_DECLINED.match(part) is not None))):
            continue
        terms = profile(part).terms
        if terms and not is_filler(part, terms):
            return True
    return False


_SEARCHED_ALONE = deferred(r"\W*" + _SEARCHED + r"\W*")
"""A part of a refusal saying only where the answerer looked ("I checked the documents, but ..."): no
assertion beside it, nor is what it then says they leave out (`_THEY_DECLINED`)."""
_SEARCHED_SOMEWHERE = deferred(r"\b" + _SEARCHED + r"\b")
_SEARCH_WORDS = ("checked", "searched", "reviewed", "read", "looked", "went through")
"""A word `_SEARCHED` holds: a sentence with none is spared its pattern."""
_THEY_DECLINED = deferred(r"\W*" + _THEY_DECLINE)


_MORE = r"if you (?:have (?:any )?(?:other |more |further |additional )?questions?|need anything else|" \
        r"need (?:any )?(?:more |further |additional )?(?:help|assistance|clarification|information|details))"
_SUPPORT = r"(?:contact|reach out to) (?:us|support|our support team|customer support)"
_SEE_DOCS = r"(?:please )?(?:refer to|see|check|consult) (?:the|our) (?:official |full )?" \
            r"(?:documentation|docs)"
_FOR_MORE = r"for (?:more|further|additional) (?:details|information|info)"
_THE_DOCUMENTS = (r"(?:the )?(?:(?:provided|given|retrieved|available|supplied|attached|shared) )?"
                  r"(?:documents?|context|sources?|information|excerpts?|materials?|passages?)"
                  r"(?: (?:provided|given|supplied|(?:you|that you) (?:shared|provided)))?")
"""What the answerer was given to read, named as a whole ("the provided documents", "the context given"):
an answer saying it rests on them says nothing a page holds."""
_FILLER_PHRASE = (
    r"yes|yeah|yep|yup|sure(?: thing)?|ok|okay|alright|all right|certainly|absolutely|of course|definitely|"
    r"got it|understood|no problem",
    r"(?:that's |that is |what )?(?:a )?(?:great|good|excellent|interesting) question",
    r"(?:some |the )?(?:great|good|excellent|exciting|happy|wonderful|fantastic|amazing) news|"
    r"(?:good|great|nice) to (?:know|hear)",
    r"in short|in summary|in a word|to sum up|(?:the )?short answer(?: is)?|the answer is|unfortunately|"
    r"sadly|no|nope|not|not really|not quite",
    r"here(?:'s| is) (?:the answer|the short version|what you (?:need|want|should) to know|"
    r"an? (?:quick |short |brief )?(?:summary|overview|rundown)|the (?:key|main|relevant) (?:information|"
    r"info|details|points)|how (?:it|this) works|(?:a few|some) things to (?:keep in mind|know|consider|"
    r"note)|(?:your|the) options)|here are (?:a few|some) things to (?:keep in mind|know|consider|note)|"
    r"here are (?:your|the) options|"
    r"let me walk you through (?:it|this|that|the (?:steps|process|details|options))|"
    r"(?:let me|let's|let us) (?:break (?:this|it|that) down|walk through (?:it|this|that|the (?:steps|"
    r"process|details|options))|go through (?:it|this|that|the details))(?: for you)?(?: step by step)?|"
    r"let me check what the (?:documents|sources|context|information) (?:says?|covers?)",
    r"(?:please )?note|(?:all of )?(?:this|the above|this (?:answer|response|information|summary)) (?:is )?"
    r"(?:based on|drawn from|taken from|according to|comes from|from) " + _THE_DOCUMENTS + "|"
    r"(?:based on|according to|drawn from) " + _THE_DOCUMENTS,
    r"(?:this|it) (?:is not|isn't|does not constitute|doesn't constitute) (?:legal|medical|financial|tax|"
    r"professional) advice|(?:this|it) is general information(?:,)? (?:and|but) not (?:legal|medical|"
    r"financial|tax|professional) advice",
    r"(?:hi|hello|hey)(?: there)?|you're welcome|you are welcome|have a (?:great|nice|good|safe|wonderful) "
    r"(?:day|trip|flight|stay|weekend|visit|time|holiday|vacation)",
    r"(?:thanks|thank you)(?: so much| very much)?(?: for (?:asking|reaching out|your (?:question|message|"
    r"patience)|the question|contacting us|getting in touch))?",
    r"(?:i )?hope (?:this|that|it) (?:helps|helped|answers your question|clarifies things|is helpful)"
    r"(?: you (?:resolve|fix|solve|sort out) (?:the|this|your) (?:issue|problem))?",
    r"(?:i )?hope you(?:'re| are)? feel(?:ing)? better(?: soon)?|(?:i'm |i am )?(?:so |very |really )?"
    r"sorry (?:to hear (?:that|about that|this)|for your loss|(?:if|that) you(?:'re| are) (?:dealing with|"
    r"going through) (?:a loss|this|that))",
    r"congratulations(?: on (?:the|your) (?:new )?(?:promotion|adoption|wedding|marriage|retirement|baby|"
    r"job|role|home|engagement|graduation))?|(?:and )?i hope everything goes (?:smoothly|well)|"
    r"enjoy your (?:stay|trip|flight|visit|holiday|vacation)|"
    r"possibly|maybe|perhaps|yes to both",
    r"(?:(?:i'm|i am|i'd be|i would be|always) )?(?:happy|glad) to (?:help|assist|explain|clarify)"
    r"(?: with anything else)?|"
    r"glad i could help",
    r"(?:please )?(?:let me know " + _MORE + r"|(?:feel free|(?:don't|do not) hesitate) to "
    r"(?:ask|reach out|contact us)(?: " + _MORE + r")?)",
    _MORE + r",? (?:please |just )?(?:let me know|feel free to ask|ask away|" + _SUPPORT + ")",
    r"(?:please )?" + _SUPPORT + " " + _MORE,
    _SEE_DOCS + r"(?: " + _FOR_MORE + r")?|" + _FOR_MORE + r",? " + _SEE_DOCS,
    r"(?:is there )?anything else(?: i can (?:help you with|help with|do for you))?",
    r"here(?:'s| is) what i (?:found|know|could find)",
    r"(?:i'm |i am )?(?:so |very |really )?sorry(?: about that| for (?:the|any) (?:confusion|inconvenience|"
    r"delay))?|(?:my )?apologies(?: for (?:the|any) (?:confusion|inconvenience|delay))?",
    r"(?:this )?(?:answer|response|content) (?:was |is |has been )?(?:generated|written|produced) (?:by|with|"
    r"using) (?:ai|an ai|a language model|an llm)(?:,? (?:and|which) may (?:contain|include) (?:errors|"
    r"mistakes|inaccuracies))?|ai-generated content may be (?:incorrect|inaccurate)",
)
_ALL_FILLER_PHRASES = (*_FILLER_PHRASE, *european.FILLER_PHRASES)
_FILLER_PART = "(?:" + "|".join(_ALL_FILLER_PHRASES) + ")"
_FILLER = deferred(r"[\W_]*" + _FILLER_PART + r"(?:[\W_]+" + _FILLER_PART + r")*[\W_]*")
"""Acknowledgements, greetings, thanks, apologies, offers of more help, pointers to the documentation as a
whole ("Please refer to the documentation for more details.") and an app's note that AI wrote the answer
("This answer was generated by AI."), alone or strung together ("Sure, happy to
help!"). Whole sentences only: "Yes, refunds take 30 days." asserts something, and so does "See the backup
documentation." (which documentation is a term of its own)."""
_FILLER_TERMS = profile(" ".join(re.findall(r"[a-z']+", "|".join(_ALL_FILLER_PHRASES)))).terms
"""The terms of every word in the phrases, which are therefore spelled whole ("ok|okay", not "ok(?:ay)?"): a
sentence of ASCII the phrases match has no other, so its cached terms rule out nearly every claim at C
speed, where the pattern's many alternatives cost microseconds a sentence. An emoji is a term too, so
other sentences go to the pattern."""
_CJK_FILLER_PHRASE = (
    r"您好|你好|親|亲|こんにちは",
    r"(?:非常)?(?:感谢|感謝|谢谢|謝謝|多谢|多謝)(?:您)?的?(?:提问|提問|咨询|諮詢|耐心|来信|來信|理解|关注|關注|支持|等待)?",
    r"(?:希望|但愿|但願)(?:以上|这些|這些|这个|這個|本次)?的?(?:信息|資訊|内容|內容|回答|解答|说明|說明)?(?:能|可以)?"
    r"(?:对您|對您)?(?:有所)?(?:帮助|幫助|有帮助|有幫助|有用)",
    r"(?:如|如果|若)(?:您)?(?:还|還)?有(?:任何|其他|其它|更多)?(?:其他|其它)?的?(?:问题|問題|疑问|疑問|需要|需求)[,，]?"
    r"(?:请|請|欢迎|歡迎)?(?:随时|隨時)?(?:与我们联系|與我們聯繫|联系我们|聯繫我們|告诉我|告訴我|提问|提問|咨询|諮詢|"
    r"联系客服|聯繫客服|留言)",
    r"(?:请问)?(?:还有|還有)(?:什么|什麼|其他|其它)(?:可以|能)?(?:帮|幫|为|為)(?:您|你)(?:的|做的)?(?:吗|嗎|么|麼)?",
    r"(?:建议|建議)(?:您)?(?:联系|聯繫|咨询|諮詢)(?:我们的)?(?:客服|客服人员|客服人員|客服团队|客服團隊)(?:以|来|來)?"
    r"(?:获取|獲取|获得|獲得|了解)(?:更多|准确|準確|详细|詳細)的?(?:信息|資訊|帮助|幫助)",
    r"祝您(?:生活愉快|购物愉快|購物愉快|愉快|一切顺利|一切順利)",
    r"很(?:高兴|高興)(?:能)?(?:为您|為您)?(?:服务|服務|解答)",
    r"(?:ご質問|ご連絡|ご相談|ご利用|お問い合わせ)(?:いただき)?(?:まして)?(?:誠に|まことに)?ありがとうございます",
    r"(?:その他|他に)?(?:ご不明な点|ご質問|何か)(?:が|など)?(?:ございましたら|ありましたら|あれば)[、,，]?(?:お気軽に|いつでも)?"
    r"(?:お問い合わせ|ご連絡|ご相談|お尋ね|お知らせ)(?:ください|くださいませ)",
    r"お役に立て(?:れ)?ば幸いです",
    r"(?:引き続き)?(?:どうぞ)?よろしくお願い(?:いたします|します|申し上げます)",
)
_CJK_FILLER_GAP = r"[\s!?.,~…！？。，、～]*"
_CJK_FILLER_PART = "(?:" + "|".join(_CJK_FILLER_PHRASE) + ")"
_CJK_FILLER = deferred(_CJK_FILLER_GAP + _CJK_FILLER_PART
                         + "(?:" + _CJK_FILLER_GAP + _CJK_FILLER_PART + ")*" + _CJK_FILLER_GAP)
"""Chinese and Japanese filler, the greetings, thanks and closings those answers open and end with:
"您好！", "希望对您有帮助！", "如有其他问题，请随时联系我们。", "ご質問ありがとうございます。",
"ご不明な点がございましたら、お気軽にお問い合わせください。". Whole sentences only, as `_FILLER`."""
_LONGEST_FILLER = 80
"""Longer sentences skip the phrase check: the longest single phrase above, with its period, has 79
characters ("If you need any additional clarification, please reach out to our support team.")."""

_ASKS_THE_USER = deferred(
    r"[\W_]*+(?:((?:please |just )?let me know (?:if|whether)|"
    r"if you(?:['’]d| would)? (?:like|want|prefer|wish)\b[^,.;:!?]{0,60}, ?i(?: can| could|['’]ll| will|"
    r"(?:['’]d| would) be (?:happy|glad)|(?:['’]m| am) (?:happy|glad))\b(?!['’]t| not))|"
    r"(?:would|do) you (?:like|want|need|prefer)|"
    r"want me to|shall (?:i|we)|should i|(?:can|may|could) i (?:help|assist)|how (?:else )?can i (?:help|"
    r"assist)|is there (?:anything|something) (?:else|more)|would it help)\b", re.IGNORECASE)
"""The openings of offers and questions put to the user ("Would you like to know how to extend it?", "Shall I
open a ticket?", "Let me know if you'd like the steps.", "If you'd like, I can open a ticket."), which chat
assistants end answers with: they assert nothing. A question with a number ("... extend your 5-year
warranty?"), and a question or an offer taking a party's doing, an event or what the offered thing costs
for granted, is read as a claim (`takes_for_granted`). The group holds the offers
that are no question; an offer is one the assistant makes ("I can"), not one the user has ("If you want a
refund, you can return it" is a claim). What precedes the words is taken whole (`*+`): given back a
character at a time, 100,000 of them took 60 ms."""
_WORD_CHARACTER = deferred(r"[^\W_]")


def _asks_the_user(sentence: str) -> bool:
    """Whether the sentence is an offer or a question put to the user: one of the openings, and for a
    question a "?" after its last word (a statement ending in "?" by a slip stays a claim); or an offer
    made as a statement in another language (`european_courtesy.OFFERS`). The end is found with `rfind`:
    a pattern reading to it backtracked over every "?" of the sentence, quadratic."""
    opening = _ASKS_THE_USER.match(sentence)
    if opening is None:
        if european_courtesy.ASKS.match(sentence) is None:
            return (european_courtesy.opens_like_an_offer(sentence)
                    and european_courtesy.OFFERS.match(sentence) is not None
                    and _DIGIT.search(sentence) is None and not takes_for_granted(sentence))
    elif opening.group(1) is not None:  # "Let me know ..., though the warranty ..." tells more
        return _CONTRAST.search(sentence) is None and not takes_for_granted(sentence)
    mark = sentence.rfind("?")
    return (mark >= 0 and _WORD_CHARACTER.search(sentence, mark + 1) is None
            and _DIGIT.search(sentence) is None and not takes_for_granted(sentence))


_PRESUMED = deferred(
    r", (?:which|who|where|since|as|die|der|das|wo|qui|que|où|che|dove|cui|quien|donde|onde|o qual|"
    r"a qual|the only|der einzige|die einzige|das einzige|le seul|la seule|l'unique|l'unico|l'unica|"
    r"el único|la única|o único|a única)\b(?! (?:i|ich|je|yo|io|eu)\b)"  # "..., das ich klären kann?"
    r"|\b(?:now that|nachdem|maintenant que|ahora que|agora que|ora che|adesso che)\b"
    # a reason or an event the offer rests on
    r"|\b(?:since|because|given that|jetzt,? wo|nun,? da|weil|puisque|étant donné que|vu que|parce que|"
    r"depuis que|ya que|dado que|puesto que|porque|poiché|siccome|dato che|visto che|já que|visto que|"
    r"uma vez que|considering that|even though|although|sachant que|compte tenu que|obwohl|"
    r"teniendo en cuenta que|considerando que|aunque|tenendo conto che|considerando che|considerato che|"
    r"anche se|sebbene|"
    r"tendo em conta que|levando em conta que|embora)\b"
    r"|(?:^[\W_]*|, )da (?:ihr\w*|dein\w*|unser\w*|sein\w*|eure?\w*|sie|du|die|der|das|dem|den|es|wir|man|"
    r"ein\w*|kein\w*|bei|im|am|laut)\b"  # German "da" as "since", not "there" ("Sorry, da habe ich ...")
    r"|^[\W_]*(?:comme (?:votre|vos|ton|ta|tes|le|la|les|l'|il|elle)|"
    r"como (?:su|sus|tu|tus|el|la|los|las|seu|sua|seus|suas|o|a|os|as))\b",
    re.IGNORECASE)
"""A clause about a party ("Want me to transfer you to billing, which handles all refund requests?"), what
alone is so ("..., the only one run by a dietitian?"), an event or a reason the offer rests on ("... now
that your account has moved to the family plan?", "Da Ihr Vertrag Ende März ausläuft, soll ich ...?")."""
_PROPERTY = deferred(
    r"\b(?:(?:the|a|an|your|our) free|for free|free of charge|at no (?:extra |additional )?(?:cost|charge)|"
    r"no extra (?:cost|charge)|included|cheapest|cheaper|discounted|refundable|complimentary|"
    r"(?:our|the|your) only|"
    r"kostenlos\w*|gratis|inklusive|inbegriffen\w*|enthalten\w*|günstigst\w*|billigst\w*|ohne aufpreis|"
    r"ohne (?:zusätzliche )?kosten|erstattungsfähig\w*|einzig\w*|"
    r"gratuit\w*|offerte?s?|inclus\w*|moins chère?s?|sans frais|sans supplément|remboursables?|"
    r"notre seule?|"
    r"incluid[oa]s?|sin (?:coste|costo|cargo)|más (?:barat|económic)[oa]s?|reembolsables?|únic[oa]s?|"
    r"compres[oaie]|senza cost[oi]|più (?:convenient|economic)\w*|rimborsabil[ei]|in omaggio|unic[oa]|"
    r"grátis|incluíd[oa]s?|sem (?:custos?|mudar o valor)|mais barat[oa]s?|reembolsáve(?:l|is))\b",
    re.IGNORECASE)
"""What the offered thing costs, holds or alone is ("Shall I add the free screen protector?", "... the
transfer included in your package?", "our cheapest plan")."""
_ASKED_ABOUT = deferred(
    r"\b(?:what|which|whether|was|welche[mnrs]?|ob|ce qu[ei]|quel(?:le)?s?|lo que|cuál(?:es)?|qué|cosa|"
    r"quale|quali|o que|qual|quais|(?:confirm|check|ask|find out) if|(?:saber|confirmar|comprobar|"
    r"verificar|savoir|confirmer|vérifier|sapere|confermare|verificare|chiedere) (?:si|se))\b", re.IGNORECASE)
"""A question about the property rather than a claim of it: "Would you like me to explain what is included
in each plan?", "Para saber si está incluido, contacta con el servicio de atención al cliente." ("si" and
"se" alone are also an offer's "if", as English "if" is: "Let me know if ...")."""


_SPELLED_COUNT = deferred(
    r"(?<!past )(?<!last )(?<!previous )(?<!over )(?<!after )(?<!waiting )(?<!waited )(?<!taken )(?<!took )"
    r"\b(?:" + "|".join(sorted(NUMBER_WORDS)) + r")(?:-| (?:[a-z]+ ){0,2})(?:years?|months?|weeks?|days?|"
    r"nights?|hours?|minutes?|bags?|visits?|sessions?|class(?:es)?|tickets?|pass(?:es)?|guests?|people|"
    r"persons?|users?|devices?|screens?|seats?|rooms?|meals?|drinks?|vouchers?|credits?|repairs?|"
    r"replacements?|installments?|instalments?)\b", re.IGNORECASE)
"""A number in words counting a unit or a thing ("your five-year warranty", "your two free nights", "your
twelve free parking nights"): the digit gates read only [0-9], and "5-year" made a claim of what "five-year"
left a courtesy. Not a number word alone ("... safe to take the two together"), nor the user's own time,
past or waited: "Thank you for your patience over the past two days.", "Thank you for waiting three days
for a reply.", "I'm sorry it's taken two weeks to sort this out." had been flagged as made-up facts."""


def takes_for_granted(sentence: str) -> bool:
    """Whether a question or an offer takes for granted what a context must hold (`_PRESUMED`, `_PROPERTY`
    where it is not what the user is asked about, a count in words: `_SPELLED_COUNT`). Such a sentence is
    read as a claim; `_asks_the_user` reads a question with a number as one too ("Would you like to add
    travel insurance for €15 per person?", "Shall I book the 3 pm tour?"), but not an offer, whose number
    is its topic ("Let me know if you need help handling 429 responses!")."""
    return (_PRESUMED.search(sentence) is not None or _holds_a_property(sentence)
            or _SPELLED_COUNT.search(sentence) is not None)


def _holds_a_property(sentence: str) -> bool:
    """Whether the sentence says what a thing costs, holds or alone is (`_PROPERTY`), not asking about it."""
    found = _PROPERTY.search(sentence)
    return found is not None and _ASKED_ABOUT.search(sentence, 0, found.start()) is None


_STATES_A_VERDICT = deferred(
    r"(?:\b(?:is|are|was|were|be|been)|'s|'re)\s+(?:(?:not|also|now|always|still|completely|fully|totally"
    r"|entirely|absolutely|all)\s+)?(?:" + "|".join(sorted(VERDICTS)) + r")\b")
_ASKS_WHETHER = deferred(r"\b(?:whether|if|what|what's|which|whatever|how)\b")


def states_a_verdict(low: str) -> bool:
    """Whether the sentence says a verdict of a subject ("Shipping is free!", "It's covered!", "You're
    covered!", "Returns are not accepted!"), not asked after one ("... can tell you whether e-books are
    available.", "Happy to check what's refundable for you!"): an
    exclamation opening an answer addresses the user, and the wrapper model, sure of "free!" from "Feel free
    to ask!", had taken the first for talk to the user, a claim no judge then checked. "Feel free to ask!"
    has no copula before its "free"."""
    verdict = _STATES_A_VERDICT.search(low)
    return verdict is not None and _ASKS_WHETHER.search(low, 0, verdict.start()) is None


_DENIES_A_VERDICT = deferred(
    r"(?:n't|\bnot|\bnever|\bno longer)\s(?:be\s|been\s|get\s)?(?:" + "|".join(sorted(VERDICTS)) + r")\b")
"""A verdict denied with a modal or "never" ("the warranty won't cover the charger", "returns can't be
accepted"), which `_STATES_A_VERDICT`'s copula misses."""
_ABOUT_THE_ANSWER = deferred(
    r"^\W*(?:that|this|it)\b|^\W*(?:our|my|the) (?:resources|sources|documents|docs)\b|\b(?:in|by) "
    r"(?:the|my|our) (?:[\w'-]+ ){0,2}(?:faq|documents?|guidance|context|sources?|information|docs|page)\b"
    r"|\b(?:covered|included|mentioned|addressed|answered) (?:here|above|below|in (?:this|my) (?:answer|"
    r"reply|response|summary|message))\b")
"""A verdict of what the answer holds, not of the subject: "That isn't covered in the FAQ I'm working
from." declines, and "For anything not covered here, please contact the front desk." points on."""
_GRANTED = deferred(
    r"\b(?:lifetime(?! (?:loyalty|custom|patronage)\b)|unlimited|on the house|waived?|(?<!rely )(?<!relying )"
    r"(?<!count )(?<!counting )(?<!depend )(?<!depending )(?<!chance )(?<!call )(?<!calling )on us)\b|"
    r"(?:kosten|gebühren|porto|versand|zuzahlungs)frei|免费|免費|免运费|免運費|包邮|包郵|無料|赠送|贈送")
"""What a thing costs or how long it lasts that `_PROPERTY` lacks: "Safe travels and enjoy the lounge on
us!", "Thank you for choosing our lifetime warranty!", German compounds ("Ihre Bestellung ist
versandkostenfrei, viel Spaß beim Einkaufen!") and Chinese and Japanese, which no word boundary splits
("所有订单均免运费，祝您购物愉快！", all orders ship free). Not "Thanks for counting on us!", "Feel free to
call on us anytime!", "... thanks for your lifetime loyalty!"; nor asked about (`_grants`)."""


_ASKS_IF = deferred(r"\b(?:whether|(?:ask|check|confirm|find out|see) if)\b")
"""A question after what `_GRANTED` names; not `_ASKED_ABOUT`, whose "what" and German "was" ask nothing
in "Hope you enjoyed dinner, it was on us!"."""


def _grants(low: str) -> bool:
    """Whether `low` says what a thing costs or how long it lasts (`_GRANTED`), not asking about it
    (`_ASKS_IF`): "You may want to ask the front desk whether the late fee can be waived." points on."""
    granted = _GRANTED.search(low)
    return granted is not None and _ASKS_IF.search(low, 0, granted.start()) is None


def _denies_a_verdict(low: str) -> bool:
    """Whether `low` denies a verdict (`_DENIES_A_VERDICT`), not asking after one (`_ASKS_WHETHER`, as
    `states_a_verdict` reads): "Feel free to reach out if your item isn't eligible." points on."""
    denial = _DENIES_A_VERDICT.search(low)
    return denial is not None and _ASKS_WHETHER.search(low, 0, denial.start()) is None
_THAT_CLAUSE = deferred(
    r"(?<=\w )(?:that|sorry|apologi[sz]e)\s(?!(?:you|you're|you've|i|i'm|i've|we|this|that|it|it's|there)"
    r"\b)[\w'-]++(?:\s[\w'-]++){0,3}\s(?P<verb>is|are|isn't|aren't|won't|will|must|can't|cannot|has to|"
    r"have to|need to|needs to|voids?|gets?)\b(?! [a-z]+ing\b)")
"""A clause of a subject other than the user, the assistant or the thing just said, with a verb of its own:
"I'm sorry that liquid spills void the warranty.", "That's great news that theft and loss are reimbursed
in full!", "I'm really sorry the warranty won't cover the charger."; not "I'm sorry to hear that." nor
"I'm sorry you've been dealing with this.", nor what is going on for the user, which they told: "I'm sorry
your mum is finding them difficult."; and only with a verb of a rule or a policy's word after its verb
(`_states_in_a_clause`)."""
_POLICY_WORDS = VERDICTS | wordset(
    "void voids voided cover cost costs charge charges charged free full unlimited lifetime")
"""What a clause of `_THAT_CLAUSE` must say after its verb to state a fact a page must hold: a verdict, a
value or a cost ("... void the warranty", "... are reimbursed in full", "... won't cover the charger"). Any
clause had been one, and sympathy or thanks for what the user told (the commonest courtesy of a support
bot) was flagged as a made-up fact: "I'm sorry to hear your package is late.", "I hope that the information
is helpful!", "Thanks for confirming that the address is correct.", "I'm sorry your dog can't come along."."""
_CLAUSE_END = deferred(r"[,;:!?.()\u2013\u2014]| - ")
"""Where the clause's predicate ends: "I'm sorry the room isn't ready yet — feel free to leave your bags"
says no "free" of the room."""
_WORDS = deferred(r"[a-z]+")
"""The words of a predicate, looked up in `_POLICY_WORDS`."""


_OBLIGATIONS = frozenset(("must", "has to", "have to", "need to", "needs to"))
"""The verbs of `_THAT_CLAUSE` that state a rule whatever follows: "I'm sorry that checked bags must be
prepaid online.", "I'm sorry that dogs have to stay in the outdoor kennel."."""


def _states_in_a_clause(low: str) -> bool:
    """Whether `low` holds a clause of `_THAT_CLAUSE` whose verb states a rule (`_OBLIGATIONS`) or whose
    predicate, to its end (`_CLAUSE_END`), says a word of `_POLICY_WORDS`."""
    clause = _THAT_CLAUSE.search(low)
    if clause is None:
        return False
    if clause["verb"] in _OBLIGATIONS:
        return True
    end = _CLAUSE_END.search(low, clause.start("verb"))
    predicate = low[clause.start("verb"):end.start() if end is not None else len(low)]
    return not _POLICY_WORDS.isdisjoint(_WORDS.findall(predicate))


def carries_a_fact(low: str) -> bool:
    """Whether a courtesy or a pointer (normalised) takes for granted a fact a context must hold: what a thing
    costs, holds or alone is (`_PROPERTY`, `_grants`), a count in words (`_SPELLED_COUNT`), a verdict said
    or denied of a subject, or a clause of its own (`_THAT_CLAUSE`). Its form had dropped it, and the fact
    in it went unchecked: "Enjoy the complimentary breakfast during your stay!", "For the free airport
    shuttle, you may want to contact the front desk.", "Goditi il parcheggio gratuito!". Such a sentence is
    read as a claim, supported where the page states what it takes for granted. Not `_PRESUMED`, which
    reads German ", das" as a relative clause: "Ich hoffe, das bringt Sie weiter." is a courtesy."""
    return (_holds_a_property(low) or _grants(low)
            or _SPELLED_COUNT.search(low) is not None or _states_in_a_clause(low)
            or ((states_a_verdict(low) or _denies_a_verdict(low)) and _ABOUT_THE_ANSWER.search(low) is None))


_DIGIT = deferred("[0-9]")


_PARTY = r"(?:(?:the |your |our |their |a |an )?(?:[a-z][\w'-]* ){0,2}?(?:" + "|".join((
    "support(?: team)?", "sales(?: team)?", "customer (?:service|support|care)(?: team)?", "account manager",
    "administrator", "admin", "help ?desk", "representative", "associate", "agent", "(?:web)?site", "doctor",
    "pharmacist", "physician", "(?:healthcare |health care )?provider", "bank", "advis[eo]r", "team", "hr",
    "human resources", "people team", "benefits (?:team|center|portal|office)", "leave center",
    "service desk", "manager", "broker", "insurer", "staff", "member services", "handbook", "pharmacy",
    "prescriber", "clinic", "office", "reception(?: team| desk)?", "front desk", "landlord", "airline",
    "carrier", "documentation", "(?:account )?settings", "help (?:center|centre)", "venue", "organi[sz]er",
    "app", "portal",
    "hotel", "school", "(?:front|it|service|help) desk", "department", "embassy", "consulate", "council",
    "registrar(?:'s office)?", "tutor", "gp", "nurse", "partner", "letting agent", "relationship manager",
)) + r")(?:'s)?|(?!(?:the|your|my|our|a|an|their|this|that|it|them) )(?:[a-z][\w'-]* ){0,2}[a-z][\w'-]*" \
    r"(?= directly| to confirm))"
"""Someone to ask: a party noun after at most two words of its name ("Nimbus support", "Samsung's website",
"your account manager"); or a name of up to three words alone, pointed to "directly" or "to confirm"
("checking with Redline directly", "contacting Northmere Building Society to confirm")."""
_ASK = (r"(?:(?:contact|reach out to|ask|check with|check|speak (?:to|with)|talk to|get in touch with|"
        r"consult|visit|call|double-check with|confirm with)(?:ing)?|reaching out to|getting in touch with|"
        r"speaking (?:to|with)|talking (?:to|with)|checking with|double-checking with|confirming with|"
        r"verify(?:ing)? with|(?:double-)?check(?:ing)? on) ")
_MAY_CHANGE = (r"(?:policies|prices|charges|fees|rates|fares|terms|rules|details|timetables|schedules|"
               r"availability|opening hours|requirements|benefits|things) "
               r"(?:can|may|might|could|do|sometimes) (?:change|vary|be updated)"
               r"(?: over time| at any time| from time to time| without notice)?,? "
               r"(?:so|and) ")
"""A disclaimer that what the answer says may change, leading a pointer to check it ("Policies can change, so
double-check on the airline's site before you book."): the answerer's caution, not a fact of the page, and
the pointer after it needs no hedge: the disclaimer is one."""
_REFERRAL = deferred(
    r"[\W_]*(?:(?:for|about|regarding) [^\d,.;:!?]{1,40}, |if [^\d,.;:!?]{1,40}, |(?P<changes>"
    + _MAY_CHANGE + "))?"
    r"(?:you (?:may|might) (?:also )?want to|i(?:'d| would)? (?:also )?(?:recommend|suggest)|"
    r"i(?:'d| would) (?:strongly )?(?:encourage|advise)(?: you to)?|"
    r"we (?:recommend|suggest)|it (?:may|might|would|could) be (?:worth|best to|a good idea to|wise to)|"
    r"it(?:'s| is) (?:still |always )?(?:best|a good idea|wise) to|it(?:'s| is) worth|you could(?: also)?|"
    r"it(?:'d| would) be (?:best|a good idea|worth|wise) to|(?:it's )?best to|you may wish to|"
    r"(?:you could )?consider|your best bet is to|you can (?:also )?|please|what i(?:'d| would) "
    r"(?:suggest|recommend)[\W_]*|(?(changes)|(?!))) ?" + _ASK + _PARTY
    + r"(?: (?:or|and) (?:" + _ASK + ")?" + _PARTY + ")?"
    r"(?: directly)?(?:(?: to confirm(?: (?:whether|if|how|your|the) [^\d.;:!?@]{0,50})?"
    r"| (?:whether|if) [^\d.;:!?@]{1,60}"
    r"| to (?:ask|find out|check) (?:about |whether |if )?[^\d.;:!?@]{0,60}"
    r"| at your (?:local )?(?:location|branch|store|club|office|pharmacy|site)"
    r"| (?:before|when) (?:you )?(?:book|booking|travel|travell?ing|buy|buying|sign|signing|fly|flying|order|"
    r"ordering|submit|submitting|apply|applying|go|going|leave|leaving|set off|commit|committing|decide|"
    r"deciding|choose|choosing|switch|switching)(?: to (?:either|one|any) (?:option|plan|offer|one|of "
    r"(?:them|these|the options|the plans)))?"
    r"| as soon as (?:you can|possible)"
    r"|, who (?:can|will|should be able to) (?:look|check|help|advise|confirm|review)[^\d.;:!?@]{0,50}"
    r"| before (?:combining|taking|using|starting|giving|mixing|making|sending|paying|submitting) "
    r"[^\d.;:!?@]{1,40}"
    r"| to review your (?:coverage|options|situation|case)| early| if you have (?:any )?(?:other |more )?"
    r"questions(?: about [^\d.;:!?@]{1,60})?| for (?:the )?(?:details|information)(?: (?:of|on|about) "
    r"[^\d.;:!?@]{1,50})?| directly| first| for (?:details|more (?:details|"
    r"information|info)|pricing|confirmation|"
    r"help|assistance|guidance|advice|the latest (?:information|details|pricing))"
    r"| for (?:the |your )?(?:current|latest|exact|up-to-date|most recent) (?:rates|prices|pricing|fares|"
    r"details|information|times|entitlement|terms)| about (?:this|that|it|"
    r"your (?:case|account|options|situation))| to help with [^\d.;:!?@]{0,60})){0,2}[\W_]*")
"""A hedged pointer to someone who may know ("You may want to contact Nimbus support to confirm.", "I'd
recommend asking your pharmacist or doctor.", "For pricing, you may want to contact the sales team."), which
refusals end with: read as a claim it was an unsupported one, and an honest refusal scored 0 and headed the
report's worst examples. Only hedged, only to parties (support, a doctor, a website, a company "directly")
and for no more than a purpose of a few words ("to confirm", "to ask whether ...", "before combining
them"): what the party will do ("... and get a full refund", "... and they will waive the fee") is a claim,
as are a number to call or an address to write to, and an unhedged instruction ("Contact support to cancel
your plan."); a "Please" points only for a purpose of these ("Please contact HR for details.")."""
_ABLE = deferred(r"[\W_]*" + _PARTY + r" should be able to (?:tell you|help(?: you)?(?: with this)?|"
                   r"answer (?:this|that|your question)|confirm(?: (?:this|that|it|how [^\d.;:!?@]{1,40}))?)"
                   r"[\W_]*")
"""The same pointer as a statement of what a party can do: "Your HR team should be able to confirm how this
works."""
_STATES = deferred(
    r"\bthat\b(?! *+(?:for|with|$))|\b(?:is|are|was|were|will|won't|has|have|had|includes?|covers?|ships?|"
    r"costs?|isn't|aren't|can't|cannot)\b|'s\b|\b(?:free(?! up)|no (?:cost|charge|fee)s?|waived?|"
    r"guaranteed?)\b")
"""What makes what a party who may know confirms, tells or helps with a statement ("Your doctor should be
able to confirm the battery is covered.", "Your bank can help you get a free replacement."): a clause or a
verb of its own, or a promise. Not after a question word ("... confirm whether fostering is covered."),
which says what to ask."""
_ASKS = deferred(r" *+(?:you )?(?:exactly )?(?:whether|if|how|what|when|which|who|why|where)\b")


def _best_placed(low: str) -> bool:
    """Whether `low` (normalised) is `_BEST_PLACED`, what a party may tell asked about, not stated."""
    found = _BEST_PLACED.fullmatch(low)
    return found is not None and not ((tail := found["tail"]) and _STATES.search(tail) is not None
                                      and _ASKS.match(tail) is None)


_BEST_PLACED = deferred(
    r"[\W_]*(?:(?:for|about|regarding) [^\d,.;:!?]{1,50}, )?(?:" + _PARTY + r" (?:is|are|would be|will be) "
    r"(?:probably |likely )?(?:the )?(?:right|best|better) (?:person|people|place|team|contact|ones?)"
    r"(?: to [^\d.;:!?@]{1,50})?|" + _PARTY
    + r" (?:is|are|would be) (?:best|better|well) placed to (?:help|advise|answer|review)"
    r"(?: [^\d.;:!?@]{1,40})?|" + _PARTY + r" (?:will|would|should|can|could|may|might)(?: probably|"
    r" likely)? "
    r"(?:be able to )?(?:give you (?:the latest|more|further|the full|the exact|accurate)|tell you(?: more)?|"
    r"confirm|clarify|advise(?: you)?|help(?: you)?|look into|know more|have (?:the )?(?:latest|"
    r"most up-to-date|full|exact|specific))(?P<tail>[^\d.;:!?@]{0,50})|your best source (?:is|would be) "
    + _PARTY + r"(?: itself)?|" + _PARTY + r"(?: or (?:" + _PARTY + r"|(?:the|your) [a-z][\w'-]*))? "
    r"(?:will|would|should|may|might)(?: probably| likely)? know(?: for sure| more| best)?|" + _PARTY
    + r" (?:is|are|would be|will be) (?:probably |likely )?the (?:person|people|place|team|ones?) to "
    r"(?:ask|contact|check with|talk to)(?: about (?:this|that|it))?)[\W_]*")
"""The party as who is best placed to answer, or who can tell: "Your doctor is the right person to advise
you on the dosage.", "Your letting agent should be able to clarify that for you.",
"For questions about your account, a branch advisor is best placed to help.", "The IT service desk would be
the best place to raise this.", "Your best source is the venue itself.", "Nimbus support would be the place
to ask.", "Customer service or your dealer should know." (a party, or one beside it named by a word);
not what a party knows ("Your dealer should know that the battery is covered."), which is a claim."""
_NO_CLAIM_AROUND = deferred(
    r"[0-9:;—–]| - |\b(?:but|however|though|although|whereas|remember|keep in mind|note that|"
    r"don't forget|since|"
    r"because|as long as|which|where|unless|only|must(?! be)|will be|it will|they will|they'll|we'll)\b")
"""What a courtesy told by its opening or cue words must not hold: a digit, a colon or a dash ("Apologies —
the gym is closed"), a contrast ("Sorry, but returns ..."), a reminder ("Have a great trip, and keep in
mind ..."), a reason, a relative clause, a condition or what will happen: what follows them is a claim."""
_COURTESY_OPENING = deferred(
    r"[\W_]*(?:if [^\d,.;:!?]{1,40}, )?(?:(?:thank you|thanks|many thanks|cheers)(?: so much| very much|"
    r" again)? for|i (?:really |truly )?appreciate (?:you|your|it)|i apologi[sz]e|"
    r"i can (?:only )?imagine|i hear you|(?:it was|it's been) a pleasure|have fun|glad (?:that|it|this)|"
    r"that's (?:a pain|frustrating|annoying|a shame|rough|tough|great news|wonderful)|"
    r"just (?:shout|ask)|i(?:'d| would) be (?:glad|happy) to|let me know|best of luck|good luck|"
    r"(?:i )?hope (?:the|your|you|it|that|this|everything)|wishing you|"
    r"i wish you|enjoy (?:the|your)|have (?:a|an) (?:great|nice|good|lovely|safe|wonderful|fantastic|"
    r"brilliant)|congratulations|congrats|fingers crossed|all the best|take care|safe travels|get well soon|"
    r"(?:i'm|i am) (?:so |really |very |truly |terribly )?sorry|(?:my )?apologies|sorry|"
    r"(?:i )?(?:completely |totally |really |fully )?understand (?:how|why|that this|your)|"
    r"that sounds (?:really |so |very |incredibly )?(?:frustrating|stressful|difficult|annoying|tough|hard|"
    r"exciting|lovely|great)|what a (?:pain|shame|hassle)|oh no|you're (?:very |most )?welcome|"
    r"glad (?:i could|to) help|happy to (?:help|dig|look|assist|go|walk)|feel free to (?:ask|reach out|"
    r"get in touch|follow up|come back|let me know)|(?:i'm|i am) here (?:if|to help|whenever)|"
    r"just (?:ask|let me know|shout)|don't hesitate)\b")
"""The opening of a courtesy: a wish ("Best of luck on your exam!", "Wishing you a speedy recovery."),
sympathy or an apology ("I'm sorry to hear you've been dealing with this.", "That sounds really
frustrating."), help offered ("Happy to dig into anything else you need.")."""
_ABOUT_YOU = deferred(
    r"[\W_]*(?!did you know|do you know that|are you aware|were you aware)(?:which|what|are you|do you|"
    r"did you|have you|were you|could you|can you|would you mind|is it (?:the|your)|is (?:it|this|"
    r"that) for|when (?:are|will|do) you|where (?:are|will) you|how (?:many|much|long|soon) (?:are|will|do) "
    r"you)\b[^\d.!;:]{0,80}\?[\W_]*")
"""A question about the user's situation, which chat models ask to narrow an answer ("Which city will you be
flying from?", "Are you asking about the domestic or the international plan?"); not "Did you know ...?" or
"Are you aware that ...?", which tell."""
_COURTESY_MOST_WORDS = 20


_INTERJECTION = deferred(
    r"[\W_]*(?:no problem(?: at all)?|brilliant|anytime|any time|ugh|oh no|cheers|thanks|"
    r"thank you(?: so much)?|sorry|great|perfect|of course|sure|you're welcome)(?:[,!.…—–-]+\s*|\s*$)")
"""A word of courtesy alone before a comma or an exclamation: what follows must be a courtesy too ("Anytime,
enjoy the rest of your evening."), as "No problem, the fee is waived for students." tells more."""


def _english_courtesy(low: str, placed: bool) -> bool:
    """Whether a sentence (normalised) is one of the courtesies or pointers above, told by its form: a party
    best placed to answer, a question about the user, or the opening of a thanks, wish, sympathy or help
    offered in a sentence of fewer than `_COURTESY_MOST_WORDS` words with nothing `_NO_CLAIM_AROUND` lists.
    The openings are anchored, so nearly every claim fails them at its first word; the party's pattern,
    which tries several words, only runs on a sentence with one of `_PLACED_TERMS` (`placed`)."""
    if placed and _best_placed(low):
        return True
    if "?" in low and _ABOUT_YOU.fullmatch(low) is not None:
        return True
    if low.lstrip(european_courtesy.BEFORE_A_WORD).partition(" ")[0].rstrip(",!.…") not in _OPENING_WORDS:
        return False
    interjection = _INTERJECTION.match(low)
    if interjection is not None:
        rest = low[interjection.end():]
        return not rest.strip() or _english_courtesy(rest, placed)
    return (_COURTESY_OPENING.match(low) is not None and low.count(" ") < _COURTESY_MOST_WORDS
            and _NO_CLAIM_AROUND.search(low) is None)


_OPENING_WORDS = frozenset((
    "if", "thank", "thanks", "many", "cheers", "i", "i'm", "i'd", "it", "it's", "have", "glad", "that",
    "that's", "just", "let", "best", "good", "hope", "wishing", "enjoy", "congratulations", "congrats",
    "fingers", "all", "take", "safe", "get", "my", "apologies", "sorry", "understand", "completely",
    "totally", "really", "fully", "what", "oh", "you're", "happy", "feel", "don't", "no", "brilliant",
    "anytime", "any", "ugh", "great", "perfect", "of", "sure",
))
"""First words a courtesy may open with: a claim opening with any other is spared both patterns (tried on
every claim, they had cost 0.9% of the scoring)."""
_PLACED_TERMS = profile("right best better placed place source able tell confirm clarify advise help look "
                        "know latest").terms
"""A term of every sentence `_BEST_PLACED` may match: one with none is spared its pattern."""
_REFERRAL_TERMS = frozenset(
    ("contact", "reach", "ask", "check", "speak", "talk", "touch", "consult", "visit", "call", "confirm",
     "verifi"))
"""The stems of the verbs of `_REFERRAL`: a sentence with none of them is spared the pattern."""
_LONGEST_REFERRAL = 200
_EUROPEAN_CUE_TERMS = frozenset(term for word in european_courtesy.CUE_WORDS for term in profile(word).terms)
"""The terms of `european_courtesy.CUE_WORDS`, as `_REFERRAL_TERMS` for English's."""
_NAMED_TERMS = _PLACED_TERMS | _REFERRAL_TERMS | _EUROPEAN_CUE_TERMS
"""A sentence with none of these is spared the three tests above: one C-level set test, where the three cost
every claim 0.4 us."""


def is_filler(sentence: str, terms: frozenset[str]) -> bool:
    """True when the sentence only makes conversation ("Sure!", "Great question.", "Hope this helps!", "Would
    you like me to open a ticket?"): it asserts nothing a context could support, so as a claim it was one no
    context ever supports. It is no abstention either: an answer of "Sure!" has not declined anything.
    `terms` are the sentence's (`profile(sentence).terms`): the caller has them already, and reading them
    again from the cache cost as much as the rest of this test. Offers are tried only in a sentence with a
    "?", "you" or the term "know", or one opening with "wenn", "falls", "si" or "se": those tests spare
    nearly every claim the pattern, at 0.1% of the scoring cost (callgrind), where searching the sentence
    for "know" cost 0.4%."""
    if (("?" in sentence or "know" in terms or "you" in sentence
         or (sentence[:1] in european_courtesy.OFFER_FIRST
             and european_courtesy.opens_like_an_offer(sentence))) and _asks_the_user(sentence)):
        return True
    if len(sentence) >= _LONGEST_REFERRAL:
        return False  # longer than any pointer or courtesy, and than `_LONGEST_FILLER`
    low = normalise(sentence)  # every sentence asks `_english_courtesy`, which reads it so
    if _courtesy_or_pointer(sentence, low, terms):
        return not carries_a_fact(low)
    if len(sentence) > _LONGEST_FILLER or (sentence.isascii() and not terms <= _FILLER_TERMS):
        return False
    return _FILLER.fullmatch(low) is not None or (wide(low) and _CJK_FILLER.fullmatch(low) is not None)


def _courtesy_or_pointer(sentence: str, low: str, terms: frozenset[str]) -> bool:
    """Whether the sentence (`low` normalised) is a pointer to someone who may know or a courtesy, in
    English or another European language, by its form: what it may take for granted is `is_filler`'s to
    read (`carries_a_fact`)."""
    named = not terms.isdisjoint(_NAMED_TERMS)
    if named and not terms.isdisjoint(_REFERRAL_TERMS) and _REFERRAL.fullmatch(low) is not None:
        return True
    if "able to" in sentence and _ABLE.fullmatch(low):
        return True
    if named and not terms.isdisjoint(_EUROPEAN_CUE_TERMS) and european_courtesy.is_courtesy(low):
        return True
    return _english_courtesy(low, named and not terms.isdisjoint(_PLACED_TERMS))
