"""One text in its several Unicode forms is one text to the lexical judge: composed or decomposed accents
(NFC, NFD), a PDF's ligatures, invisible characters inside a word. Read as written elsewhere: superscripts,
fractions and full-width digits keep what the number rules make of them, and claims quote the answer."""

from __future__ import annotations

import unicodedata

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.claims import split_claims
from ragmon.text.terms import normalise, profile


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def scored(answer: str, context: str, question: str = "q?") -> tuple[dict[str, float | None], list[bool]]:
    [result] = evaluate([Example("x", question, (Context("c", context),), answer)], LexicalJudge(),
                        EvalConfig(bootstrap_samples=0)).results
    return dict(result.metrics), [v.supported for v in result.verdicts]


FRENCH = "Le café Lumière ouvre à midi."


def test_the_decomposed_form_of_a_text_is_read_as_the_composed_one() -> None:
    decomposed = nfd(FRENCH)
    # "e" + U+0301 and "a" + U+0300: three characters more, and no word of them a word of the NFC text.
    assert len(decomposed) == len(FRENCH) + 3
    # Terms: "café", "lumièr" (stemmed), "ouvr", "midi"; "le" and "à" are function words. Before, the NFD
    # text's "cafe\u0301" and "lumie\u0300re" were other words and its "a\u0300" a term.
    assert profile(decomposed).terms == profile(FRENCH).terms == {"café", "lumièr", "ouvr", "midi"}
    assert normalise(decomposed) == "le café lumière ouvre à midi."


@pytest.mark.parametrize(("answer", "context"), [(FRENCH, nfd(FRENCH)), (nfd(FRENCH), FRENCH)])
def test_an_answer_copied_from_its_context_is_grounded_in_either_form(answer: str, context: str) -> None:
    # Before: "closest c has 2/4 of its terms" (only "ouvr" and "midi" matched), groundedness 0.0.
    metrics, supported = scored(answer, context)
    assert supported == [True]
    assert metrics["groundedness"] == 1.0


def test_a_decomposed_question_is_as_relevant_as_a_composed_one() -> None:
    # The question's terms are "quand", "café", "ouvr"; the answer holds "café" and "ouvr": 2/3 either way.
    # With the question in NFD its "cafe\u0301" was no answer's term: 1/3.
    question = "Quand le café ouvre-t-il ?"
    for asked in (question, nfd(question)):
        metrics, _ = scored(FRENCH, FRENCH, asked)
        assert metrics["answer_relevance"] == pytest.approx(2 / 3)


def test_a_decomposed_claim_is_quoted_as_written() -> None:
    # Composing is for matching only: the claim's offsets slice the answer, and its text is the answer's,
    # decomposed, not the composed form the judge read.
    answer = nfd(FRENCH) + " " + nfd("Le musée ferme à 18 h.")
    claims = split_claims(answer)
    assert [answer[c.start:c.end] for c in claims] == [c.text for c in claims]
    assert [c.text for c in claims] == [nfd(FRENCH), nfd("Le musée ferme à 18 h.")]
    assert claims[0].text != FRENCH
    # "Le café Lumière ouvre à midi." is 29 characters, 32 decomposed; the space, then 24 more (22 + 2).
    assert [(c.start, c.end) for c in claims] == [(0, 32), (33, 57)]


@pytest.mark.parametrize(("ligatured", "plain"), [
    ("The o\ufb03ce o\ufb00ers free co\ufb00ee.", "The office offers free coffee."),
    ("Re\ufb01ll the \ufb02ask \ufb01rst.", "Refill the flask first."),
    ("A ba\ufb04ing \ufb01rst step.", "A baffling first step."),
])
def test_a_pdfs_ligatures_are_their_letters(ligatured: str, plain: str) -> None:
    assert profile(ligatured).terms == profile(plain).terms
    metrics, supported = scored(plain, ligatured)
    assert (metrics["groundedness"], supported) == (1.0, [True])


def test_the_office_example_by_hand() -> None:
    # "office" -> "offic", "offers" -> "offer", "free", "coffee" -> "coffe": all four in the ligatured
    # context, where before only "free" was (1/4).
    assert profile("The o\ufb03ce o\ufb00ers free co\ufb00ee.").terms == {"offic", "offer", "free", "coffe"}


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff"])
def test_an_invisible_character_inside_a_word_shows_nothing(invisible: str) -> None:
    # "warranty", "covers", "accidental", "damage": with the character inside two of them the context had
    # held 2 of the 4 (the zero-width space split "warranty" into "warr" and "anty"): 0.0.
    context = f"The warr{invisible}anty covers accidental dam{invisible}age."
    assert profile(context).terms == {"warranti", "cover", "accident", "damag"}
    metrics, supported = scored("The warranty covers accidental damage.", context)
    assert (metrics["groundedness"], supported) == (1.0, [True])


@pytest.mark.parametrize(("text", "numbers"), [
    # A superscript after a digit is a number of its own; NFKC would make "10⁹" 109.
    ("Le café coûte 10\u2079 euros.", {10.0, 9.0}),
    # One after a letter is none; NFKC would make "m²" "m2", a 2 the context must hold.
    ("La pièce fait 20 m\u00b2 de surface.", {20.0}),
    # A fraction is its value; NFKC would make "2½" "21\u20442" (a fraction slash), 21 and 2.
    ("Prenez 2\u00bd comprimés à la fois.", {2.5}),
    # Full-width and circled digits are read as they were.
    ("La durée est de \uff12\uff14 mois.", {24.0}),
    ("Le délai est de \u2468 jours.", {9.0}),
])
def test_composing_leaves_superscripts_fractions_and_other_digits_as_written(text: str,
                                                                             numbers: set[float]) -> None:
    # Decomposed, the text is composed before it is read, and nothing else of it changes.
    assert nfd(text) != text
    assert profile(nfd(text)).numbers == profile(text).numbers == numbers
    assert profile(nfd(text)).terms == profile(text).terms


def test_normalise_composes_and_changes_no_compatibility_character() -> None:
    # Superscripts, a fraction, full-width digits, a circled number and a ligature stay in the text
    # numbers and names are read from (the ligature is its letters in words only); the accent composes.
    assert normalise(nfd("Café") + " 10\u2079 m\u00b2 \u00bd \uff12\uff14 \u2468 \ufb03") == \
        "café 10\u2079 m\u00b2 \u00bd \uff12\uff14 \u2468 \ufb03"
    # ASCII text is returned as it was lowered, unlooked at.
    assert normalise("Refunds: 30-day") == "refunds: 30-day"


def test_a_decomposed_number_claim_still_needs_its_number() -> None:
    # The number rule reads the composed text: a claim's 10⁹ is 10 and 9, and a context's 10⁶ lacks the 9.
    claim = "Le café coûte 10\u2079 euros."
    _, supported = scored(nfd(claim), "Le café coûte 10\u2076 euros.")
    assert supported == [False]
    _, supported = scored(nfd(claim), claim)
    assert supported == [True]
