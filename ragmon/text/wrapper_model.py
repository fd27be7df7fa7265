"""A learned second opinion on sentences that only talk to the user ("Gern geschehen!", "Your landlord is
the one to ask about that.") after the phrase patterns (`abstention.is_filler`) found none.

Each fresh red team's wrappers halved the patterns' recall: how people thank, point elsewhere or wish well
is open-ended, and a list of phrases knows only the wordings it was written from. A logistic regression
over words, five-letter prefixes, word pairs, the opening words and the closing mark, trained on the
labelled sentences of the judge's corpora (`ragmon.text.wrapper_training`), recognises 165 of 240 wrappers
of a set written after it in six languages (the patterns alone 77).

Taking a claim for a wrapper hides it from every judge, so the model may only add wrappers, and only where
one is plausible: a sentence of fewer than `MOST_WORDS` words that addresses the user (a pronoun of either
person, "please", "!" or "?"), holds nothing a claim rides on (a digit, a colon or dash, a contrast, a
reason, a restriction, a reminder, news, a clause about a party, a verdict said of a subject, what a
courtesy takes for granted: `abstention.carries_a_fact`, "Shipping is always on the house for you!") and
opens the answer or is one of its last two (`claims._is_claim`); and the model must give it `THRESHOLD`.
Deterministic: fixed integer weights, shipped in `wrapper_weights.json`. README "The lexical judge" has
each version's figures.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Collection, Set
from pathlib import Path

from ragmon.text.abstention import carries_a_fact, states_a_verdict, takes_for_granted
from ragmon.text.deferred import deferred
from ragmon.text.european_courtesy import NO_CLAIM_AROUND
from ragmon.text.terms import normalise, separated
from ragmon.text.verdicts import VERDICTS

WEIGHTS = Path(__file__).with_name("wrapper_weights.json")

THRESHOLD = 0.8
"""The probability from which the model's wrapper is taken, chosen by leaving each training corpus out in
turn: 0.9 recognised 3 fewer of its answers' 509 wrappers and 17 fewer of its sentence sets' 360, for one
fewer of their 360 claims taken; 0.7 took 7 more claims for 9 more wrappers."""

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+")
_PREFIX = 5
"""A crude stem for six languages: "recomendamos" and "recomendaría" share "recom"."""
_LAST_LENGTH_BUCKET = 6
"""Length buckets of five words each, the last for 30 words and more."""

_CLAIM_MARKS = "0-9:;—–"
_MARKS = re.compile(f"[{_CLAIM_MARKS}]")
"""What a claim rides on that one scan of characters finds: a digit, a colon, a semicolon or a dash (" - "
too, looked for apart: in one pattern with it the scan went from character to character, 3 us a sentence).
Tried first: it settles most sentences of an answer about prices and dates."""
_CLAIM_WORDS = frozenset((
    "but", "though", "although", "however", "yet", "unless", "except", "remember", "news", "since", "because",
    "only", "nur", "ausschließlich", "denn", "weil", "uniquement", "seulement", "car", "puisque", "solo",
    "sólo", "solamente", "únicamente", "porque", "soltanto", "unicamente", "perché", "poiché", "apenas",
    "somente", "só"))
_CLAIM_PHRASES = (" keep in mind ", " note that ", " tell you that ", " let you know that ", " as long as ",
                  " ne que ", " parce que ")
"""Words after which a sentence goes on to state something: a contrast or reminder in English ("Sorry, but
the gym ...", "Enjoy it, and keep in mind that ..."; `NO_CLAIM_AROUND` has the other five languages'), a
reason or a restriction in any of the six ("Le dépôt vous sera restitué par chèque uniquement.")."""
_PHRASE_ENDS = frozenset(phrase.split()[-1] for phrase in _CLAIM_PHRASES)
"""A phrase is looked for in the words joined by single spaces, so it is found only where its words are the
sentence's, its last among them: a sentence with none of these words is spared joining its words and the
searches."""
_ADDRESS_WORDS = frozenset((
    "i", "i'm", "i'd", "i'll", "i've", "me", "my", "you", "your", "you're", "you'll", "you've", "we", "we're",
    "we'll", "let's", "us", "our", "please",
    "ich", "mich", "mir", "sie", "ihnen", "ihr", "ihre", "ihrem", "ihren", "ihrer", "du", "dich", "dir",
    "dein", "deine", "deinem", "deinen", "wir", "uns", "unser", "unsere", "gern", "gerne", "bitte",
    "je", "moi", "vous", "votre", "vos", "tu", "te", "toi", "ton", "ta", "tes", "nous", "notre", "nos",
    "yo", "mi", "mis", "usted", "ustedes", "le", "les", "tú", "tus", "su", "sus", "nosotros", "nuestro",
    "nuestra",
    "io", "lei", "la", "ti", "tuo", "tua", "tuoi", "noi", "ci", "suo", "sua",
    "meu", "minha", "você", "vocês", "senhor", "senhora", "teu", "nós", "nosso", "nossa", "seu"))
_ADDRESS_ELIDED = ("j'", "m'", "t'")
_ADDRESS_MARKS = "!?¡¿"
"""What a wrapper holds and a claim about the subject seldom does: a word for the user or the assistant
(French "j'", "m'", "t'" elided too), or the mark of an exclamation or a question. "Return shipping is free
for defective items." has none, so no weight of the model's can take it. Portuguese "eu" is left out: it is
also the EU ("... roaming outside the EU." had passed as addressing the user)."""
_ANY_MARK = re.compile(f"[{_CLAIM_MARKS}{_ADDRESS_MARKS}]")
"""Both kinds of mark in one scan: the first found tells whether the sentence rides on a claim's mark or, if
it is an address mark, addresses the user, and only then is the rest scanned for a claim's. Two scans (a
pattern and a substring test for each address mark) cost an ordinary sentence 0.85 us, this one 0.3 us: a
class of this many characters is compiled to a table, `_MARKS`' to two range tests for each character."""


def features(sentence: str) -> frozenset[str]:
    """The model's inputs: words (a number as one token), prefixes of long words, adjacent pairs, the first
    word and first pair, the closing mark and a length bucket."""
    text = normalise(sentence).strip(_EDGES)
    return frozenset(_features(text, _WORD.findall(text), any(map(str.isdigit, text))))


_EDGES = "*_#>- \t\n"
"""Markdown around a sentence, which says nothing of what it is."""


def _features(text: str, found_words: list[str], digits: bool) -> set[str]:
    words = ["<d>" if word[0].isdigit() else word for word in found_words] if digits else found_words
    found = {"w:" + word for word in words}
    found.update(["p:" + word[:_PREFIX] for word in words if len(word) > _PREFIX])
    found.update([f"b:{first} {second}" for first, second in itertools.pairwise(words)])
    if words:
        found.add("^" + words[0])
        if len(words) > 1:
            found.add(f"^^{words[0]} {words[1]}")
    end = text[-1:]
    found.add("$" + (end if end and end in "!?.:" else "other"))
    found.add(f"len:{min(len(words) // 5, _LAST_LENGTH_BUCKET)}")
    if digits:
        found.add("digit")
    return found


SCALE = 10_000
"""Weights are stored as integers in ten-thousandths: a sum of integers is the same in any order, and a set's
order changes with the process's hash seed, so a float sum could differ in its last bit between runs."""


@functools.cache
def _model() -> tuple[dict[str, int], int]:
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return data["weights"], data["bias"]


def wrapper_probability(sentence: str) -> float:
    """The model's probability that the sentence only talks to the user."""
    return _probability(features(sentence))


def _probability(found: Set[str]) -> float:
    weights, bias = _model()
    score = (bias + sum(map(weights.get, found, itertools.repeat(0)))) / SCALE
    return 1.0 / (1.0 + math.exp(-min(max(score, -30.0), 30.0)))


MOST_WORDS = 20
"""The most words a wrapper the model tells may have: 1,000 of the corpora's 1,017 wrappers have fewer, and
a longer sentence has room for a claim."""


def reads_as_wrapper(sentence: str) -> bool:
    """Whether the model takes the sentence for a wrapper, where one is plausible (the module's docstring).
    The cheap tests first: a sentence's length, one scan of its characters for both kinds of mark, then its
    words, split by the C-level table every text is read with (`separated`); the model (its own word pattern,
    and some 40 features) only for the sentences that pass them, before the two patterns of what a claim
    rides on, which cost half as much and are seldom needed after it."""
    if sentence.count(" ") >= MOST_WORDS:
        return False
    low = normalise(sentence)
    mark = _ANY_MARK.search(low)  # the first mark of either kind: an address mark needs the rest scanned
    if " - " in low or (mark is not None and (
            mark.group() not in _ADDRESS_MARKS or _MARKS.search(low, mark.end()) is not None)):
        return False
    tokens = separated(low).split()
    pieces = _with_elisions(tokens) if "'" in low else tokens
    if mark is None and not _addresses(low, pieces):
        return False
    if _goes_on(tokens, pieces) or states_a_verdict(low) or _tells(low):
        return False
    text = low.strip(_EDGES)
    if text.isascii():  # no digit (it ended above): the table's words are the pattern's, but for apostrophes
        words = tokens if "'" not in text else _WORD.findall(text)
        digits = False
    else:
        words, digits = _WORD.findall(text), any(map(str.isdigit, text))
    return (_probability(_features(text, words, digits)) >= THRESHOLD
            and NO_CLAIM_AROUND.search(low) is None and not takes_for_granted(low)
            and not carries_a_fact(low))


def _goes_on(tokens: list[str], pieces: Collection[str]) -> bool:
    """Whether the sentence holds one of `_CLAIM_WORDS` or `_CLAIM_PHRASES`."""
    if not _CLAIM_WORDS.isdisjoint(pieces):
        return True
    if _PHRASE_ENDS.isdisjoint(tokens):
        return False
    spaced = f" {' '.join(tokens)} "
    return any(phrase in spaced for phrase in _CLAIM_PHRASES)


def _with_elisions(tokens: list[str]) -> Collection[str]:
    """`tokens` and, of those holding an apostrophe, their parts: "we" and "ve" of "we've", as a word
    boundary at the apostrophe would read them."""
    return {*tokens, *(piece for token in tokens if "'" in token for piece in token.split("'"))}


def _addresses(low: str, pieces: Collection[str]) -> bool:
    """Whether the sentence holds a word for the user or the assistant. The "you" of "thank-you", which
    the hyphen makes a word of its own, addresses nobody: "Thank-you vouchers are sent by email." Other
    compounds may: French and Portuguese write their pronouns so ("dites-le-moi", "mande-me")."""
    if not _holds_address(low, pieces):
        return False
    if "thank-you" not in low:
        return True
    outside = low.replace("thank-you", " ")
    tokens = separated(outside).split()
    return _holds_address(outside, _with_elisions(tokens) if "'" in outside else tokens)


def _holds_address(low: str, pieces: Collection[str]) -> bool:
    return not _ADDRESS_WORDS.isdisjoint(pieces) or (
        "'" in low and any(piece.startswith(_ADDRESS_ELIDED) for piece in pieces))


STATES = 0.15
"""The probability under which the model reads a part of a sentence as a statement about the subject."""


def states_after_comma(sentence: str) -> bool:
    """Whether what follows a sentence's last comma or semicolon, read alone, states something about the
    subject ("Cheers for your patience, the outage has been fixed and all services are back online.",
    "Auguri per il matrimonio; il congedo matrimoniale spetta per quindici giorni."): the phrases and the
    model read a courtesy's opening and would pass the fact after it. Three words at least: "Yes,
    absolutely." states no more than "Yes." does. A lead-in ending in a colon is left to the lead-in rule."""
    cut = max(sentence.rfind(", "), sentence.rfind("; "))
    tail = sentence[cut + 2:]
    return (cut > 0 and tail.count(" ") >= 2 and not sentence.rstrip("*_ ").endswith(":")
            and (wrapper_probability(tail) < STATES or _tells(normalise(tail))))


def _tells(low: str) -> bool:
    """Whether a part of a sentence says what became of a thing of the user's or the service's, or what
    the user may do or was done for them (`_TOLD_OF_A_THING`, `_DONE_OR_ALLOWED`), which the model, reading
    "your", "you" and "we", gives far over `STATES`."""
    return _TOLD_OF_A_THING.match(low) is not None or _DONE_OR_ALLOWED.match(low) is not None


_TOLD_OF_A_THING = deferred(
    r"\W*(?:your|the|our)\s+(?!best\b|quickest\b|easiest\b|simplest\b|safest\b)(?:[^\W\d_][\w'-]*\s+){0,3}?"
    r"(?:is|are|was|were|has|have|had|isn't|aren't|wasn't|weren't|hasn't|haven't)"
    r"(?:\s+(?:not|now|been|already|just|also|fully))*\s+(?!appreciated\b|welcomed?\b)(?:[a-z]+(?:ed|en)\b|"
    + "|".join(sorted(VERDICTS)) + r"\b)")
"""What became of a thing of the user's or the service's ("your refund was denied", "the account is
locked", "your claim has been approved", "the fee is waived"): the model, reading "your" as talk to the
user, gave such tails 0.1-0.55, over `STATES`, and "Thanks for your patience, your claim was approved."
was talk to the user, checked by no judge. Not a judgement of it ("your frustration is understandable",
"the answer is yes", "your feedback is appreciated"), what someone can or will do ("our advisers can give
you a quote"), nor "your best bet is ...": a courtesy's or a pointer's."""
_DONE_OR_ALLOWED = deferred(
    r"\W*(?:you(?: can|'re able to| are able to)|(?:we|i)(?:'ve| have))\s+(?:(?:also|now|already|still|"
    r"always|just|usually|often)\s+)?+(?!(?:help|assist|ask|check|checked|look|looked|clarify|explain|reach|"
    r"contact|let|find|see|try|keep|get|got|search|searched|review|reviewed|read|gone|go|sort|be|been)\b)"
    r"[a-z]+")
"""What the user can do or what was done for them ("you can cancel anytime", "we've credited your
account", "I've processed your refund"): after "Sure," or "Happy to help," the model gave such tails 0.8-0.9
and the claim was talk to the user. Not help offered or looked for ("you can ask me anytime", "I've
checked the documents", "I can summarise ...", "you may want to contact ...")."""


TALKS = 0.5
"""The probability from which the model reads a part of a sentence between its dashes as talk to the
user: courtesies so in the corpora have 0.55-0.998 ("Sorry about the delay", "that's horrible", "let's get
you sorted"), the facts 0.06-0.48 ("We also price match", "shipping is free over $50", "das ist günstiger
als die monatliche Zahlung"), which `STATES` would take for talk."""


def talks(part: str) -> bool:
    """Whether a part of a sentence, read alone, talks to the user: two words or fewer ("Sure", "Oh no"),
    or `TALKS` by the model, and says nothing of what became of a thing or what the user can do
    (`_tells`): "We also price match — hope that helps!" is a claim."""
    return part.count(" ") < 2 or (wrapper_probability(part) >= TALKS and not _tells(normalise(part)))
