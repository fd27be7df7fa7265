"""Sentences run together with no space after the full stop: "...a full refund.Gift cards are refundable
too." is two claims, as text joined from streamed chunks or extracted from a PDF writes two sentences; a
name with a capital after a dot is not ("St.Louis", "ASP.NET", "john.Smith@example.com")."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.claims import sentence_spans, split_claims


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


REFUND = "Most items can be returned within 30 days of delivery for a full refund."
GIFT = "Gift cards are refundable too."


def test_a_made_up_sentence_run_on_into_a_true_one_is_a_claim_of_its_own() -> None:
    # One claim, the gift-card sentence riding on the refund one: supported, groundedness 1.0. Two, as
    # with a space: the refund sentence's terms are all in the context, the gift card's ("gift", "card",
    # "refund") 1 of 3: groundedness 1/2.
    context = (Context("c1", REFUND),)
    for answer in (REFUND + " " + GIFT, REFUND + GIFT):
        [result] = evaluate([Example("x", "Can I return items?", context, answer)], LexicalJudge(),
                            EvalConfig(bootstrap_samples=0)).results
        assert [(v.claim.text, v.supported) for v in result.verdicts] == [(REFUND, True), (GIFT, False)]
        assert result.metrics["groundedness"] == 0.5


def test_the_claims_of_a_run_on_answer_slice_it() -> None:
    answer = REFUND + GIFT
    claims = split_claims(answer)
    # The refund sentence is 72 characters, the gift card's 30, straight after it.
    assert [(c.start, c.end) for c in claims] == [(0, 72), (72, 102)]
    assert [answer[c.start:c.end] for c in claims] == [REFUND, GIFT]


@pytest.mark.parametrize(("text", "expected"), [
    ("Keep the receipt!Refunds take 5 days.", ["Keep the receipt!", "Refunds take 5 days."]),
    ("Is it refundable?Yes, within 30 days.", ["Is it refundable?", "Yes, within 30 days."]),
    # A function word of two letters opens a sentence ("It", "We"; "Le" in French), and a word of two
    # letters a sentence may end with ends one ("it", "no").
    ("Keep the box.It proves the date.", ["Keep the box.", "It proves the date."]),
    ("Do not open it.We cannot take it back.", ["Do not open it.", "We cannot take it back."]),
    ("Le café ouvre à midi.Le musée ferme tôt.", ["Le café ouvre à midi.", "Le musée ferme tôt."]),
    ("Das ist schön.Über uns mehr.", ["Das ist schön.", "Über uns mehr."]),
    # A hyphenated word before the mark is a word.
    ("Sale items are non-refundable.Gift cards are too.", ["Sale items are non-refundable.",
                                                           "Gift cards are too."]),
    # An abbreviation that ends a sentence before a capital does so with no space too, as "etc. The" does.
    ("They sell shoes, bags, etc.The rest is online.",
     ["They sell shoes, bags, etc.", "The rest is online."]),
])
def test_a_sentence_end_with_a_capitalised_word_straight_after_it_splits(text: str,
                                                                           expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", [
    # Names with nothing capitalised after the dot never were candidates.
    "Visit example.com for details.",
    "Install Node.js first.",
    # Capitals before the dot: an initialism, a product, initials.
    "It runs on ASP.NET Core.",
    "He served in the U.S.Army for years.",
    "I read J.R.R.Tolkien as a child.",
    # Abbreviations the splitter knows.
    "We flew to St.Louis last week.",
    "Ask Mrs.Jones about it.",
    "Write to Dr.Smith today.",
    "Prezada Sra.Costa, obrigado pelo contacto.",
    "This works, e.g.The cat sat.",
    # Digits: decimals, versions, times.
    "Pi is 3.14 roughly.",
    "Use version 2.3.1 now.",
    "Upgrade to v2.Beta builds later.",
    "Open at 9am.Then close at 5pm.",
    # A word of one or two small letters after the dot that is no function word: "Js", "Io".
    "Built with Vue.Js today.",
    "Click Socket.Io now.",
    # Addresses, e-mail addresses, file names.
    "See https://docs.Example.com/Guide for more.",
    "Mail john.Smith@example.com today.",
    "Browse www.Example.com today.",
    "Open example.Com today.",
    "Save the report.Pdf file.",
    "Edit config.Yaml first.",
    # Code: in backticks, a call, a dotted chain, an alias of two letters, an underscore or "::" before.
    "Try `ragmon.Example` here.",
    "Call pathlib.Path(x) now.",
    "Use os.Path.join here.",
    "Use os.Path to join them.",
    "Use np.Array here.",
    "Use the my_module.Class name.",
    "Use std::vector.Then free it.",
    # CamelCase after the dot.
    "Load it with pd.DataFrame now.",
    "Check numpy.NaN values.",
])
def test_a_name_with_a_capital_after_a_dot_stays_whole(text: str) -> None:
    assert sentences(text) == [text]


def test_a_module_and_a_class_written_bare_in_prose_read_as_two_sentences() -> None:
    # The decided limit: "ragmon" then a capitalised word of three letters or more after the dot, a space
    # after it, is what a sentence run on into the next looks like; in backticks or called it is whole
    # (above).
    assert sentences("Import ragmon.Example and call it.") == ["Import ragmon.", "Example and call it."]


def test_a_run_on_sentence_end_in_text_that_is_not_ascii_splits_as_in_ascii() -> None:
    # The wide pattern (any text with a character past ASCII) reads the same candidates: "—" makes it wide.
    assert sentences("Refunds take 5 days — always.Gift cards are final.") == [
        "Refunds take 5 days — always.", "Gift cards are final."]
    assert sentences("Visit example.com — or Node.js — today.") == ["Visit example.com — or Node.js — today."]
    address = "Refunds take 5 days — see www.Example.com."
    assert sentences(address) == [address]


def test_a_long_run_of_candidates_is_read_in_linear_time() -> None:
    # Each candidate looks back at most 40 characters: 20,000 run-on ends of "ab.Cd" (two letters, no
    # function word: none splits) and of "abc.Def" (each splits: "abc.", then "Def abc." 19,999 times, then
    # "Def") are read at once.
    text = "x ab.Cd " * 20_000
    assert sentences(text) == [text.rstrip()]
    text = "abc.Def " * 20_000
    assert len(sentences(text)) == 20_001


@pytest.mark.parametrize("cite", ["[1]", "【4:0†policy.pdf】", "<sup>1</sup>", "¹", "^1"])
def test_a_sentence_glued_to_the_citation_after_a_true_one_is_a_claim_of_its_own(cite: str) -> None:
    # One claim, the gift-card sentence riding on the cited refund one: supported, groundedness 1.0. Two,
    # the citation the refund sentence's as with a space after it: the gift card's terms are 1 of 3 in the
    # context, groundedness 1/2.
    context = (Context("c1", REFUND),)
    [result] = evaluate([Example("x", "Can I return items?", context, REFUND + cite + GIFT)], LexicalJudge(),
                        EvalConfig(bootstrap_samples=0)).results
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(REFUND + cite, True), (GIFT, False)]
    assert result.metrics["groundedness"] == 0.5


def test_the_claims_of_a_sentence_glued_to_a_citation_slice_it_as_with_a_space() -> None:
    # The refund sentence is 72 characters; "[1]" 3 more, to 75. With a space the gift card's 30 start at
    # 76, glued at 75. "【4:0†policy.pdf】" is 16 characters: the refund sentence ends at 88.
    spaced, glued = REFUND + "[1] " + GIFT, REFUND + "[1]" + GIFT
    assert [(c.start, c.end) for c in split_claims(spaced)] == [(0, 75), (76, 106)]
    assert [(c.start, c.end) for c in split_claims(glued)] == [(0, 75), (75, 105)]
    openai = REFUND + "【4:0†policy.pdf】" + GIFT
    assert [(c.start, c.end) for c in split_claims(openai)] == [(0, 88), (88, 118)]


@pytest.mark.parametrize("text", ["Write to Dr.[2]Smith today.", "Browse www.example.[1]Com today."])
def test_a_name_with_a_citation_glued_after_its_dot_stays_whole(text: str) -> None:
    assert sentences(text) == [text]


@pytest.mark.parametrize("cite", ["[1]", " [1]", "[1][2]", "【4:0†policy.pdf】", "<sup>1</sup>", "¹", "^1"])
def test_a_sentence_glued_to_a_true_one_cited_before_its_full_stop_is_a_claim_of_its_own(cite: str) -> None:
    # "...a full refund[1].Gift cards ..." had been one claim, the gift-card sentence riding on the cited
    # refund one: supported, groundedness 1.0. Two, the citation and the full stop the refund sentence's as
    # with a space after them: the gift card's terms are 1 of 3 in the context, groundedness 1/2.
    cited = REFUND[:-1] + cite + "."
    context = (Context("c1", REFUND),)
    [result] = evaluate([Example("x", "Can I return items?", context, cited + GIFT)], LexicalJudge(),
                        EvalConfig(bootstrap_samples=0)).results
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(cited, True), (GIFT, False)]
    assert result.metrics["groundedness"] == 0.5


def test_the_claims_of_a_sentence_glued_after_a_cited_full_stop_slice_it_as_with_a_space() -> None:
    # The refund sentence without its full stop is 71 characters; "[1]." 4 more, to 75, " [1]." 5, to 76.
    # With a space the gift card's 30 start one further on, glued straight after the full stop.
    bare = REFUND[:-1]
    assert [(c.start, c.end) for c in split_claims(bare + "[1]. " + GIFT)] == [(0, 75), (76, 106)]
    assert [(c.start, c.end) for c in split_claims(bare + "[1]." + GIFT)] == [(0, 75), (75, 105)]
    assert [(c.start, c.end) for c in split_claims(bare + " [1]." + GIFT)] == [(0, 76), (76, 106)]
    # "【4:0†policy.pdf】" is 16 characters: the refund sentence ends at 71 + 16 + 1 = 88.
    openai = bare + "【4:0†policy.pdf】." + GIFT
    assert [(c.start, c.end) for c in split_claims(openai)] == [(0, 88), (88, 118)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Is it refundable[1]?Yes, within 30 days.", ["Is it refundable[1]?", "Yes, within 30 days."]),
    ("Keep the receipt [2]!Refunds take 5 days.", ["Keep the receipt [2]!", "Refunds take 5 days."]),
    # The decided reading of a bracket glued before a full stop: a citation, as "Fig[1]. Caption" with a
    # space is two sentences. Code written bare in prose reads so too ("ragmon.Example and ..." above).
    ("See Fig[1].Caption for details.", ["See Fig[1].", "Caption for details."]),
    ("Use items[0].Name to get it.", ["Use items[0].", "Name to get it."]),
])
def test_a_question_or_a_bracket_cited_before_its_mark_ends_the_sentence(text: str,
                                                                          expected: list[str]) -> None:
    assert sentences(text) == expected
    assert sentences(re.sub(r"\]([.!?])", r"]\1 ", text)) == expected  # as with a space after the mark


@pytest.mark.parametrize("text", [
    # The word before the citation is read as the word before a bare mark is: of two letters only one a
    # sentence ends with, no name's part, no digit but a cited one.
    "Write to Dr[2].Smith today.",
    "Write to Dr [2].Smith today.",
    "Try `items[0].Name` here.",
    "Mail john[1].Smith@example.com today.",
    "It costs 5.Then pay.",
])
def test_a_name_with_a_citation_glued_before_its_dot_stays_whole(text: str) -> None:
    assert sentences(text) == [text]


def test_a_long_run_of_citations_glued_before_full_stops_is_read_in_linear_time() -> None:
    # Each candidate looks back through at most 200 characters of citations: 20,000 "abc[1].Def" (each
    # splits: "abc[1].", then "Def abc[1]." 19,999 times, then "Def") are read at once, and so are 50,000
    # marks before one full stop, where no word is found within reach and the sentence goes on.
    assert len(sentences("abc[1].Def " * 20_000)) == 20_001
    text = "Refunds take 30 days" + "[1]" * 50_000 + ".Exchanges are free."
    assert sentences(text) == [text]


def test_a_run_of_superscript_digits_before_no_citation_is_read_at_once() -> None:
    # 40 superscripts, then "a1." and a capital: no citation ends before the full stop, so no sentence ends
    # there. Read as one pattern repeated inside another, each 2 more superscripts took 4x as long (24: a
    # second; 40: days), on an LLM's answer. Run apart, so that a relapse fails at the timeout, not hangs.
    text = "The fee is x" + "¹" * 40 + "a1.Then it works."
    program = f"from ragmon.text.claims import sentence_spans; print(sentence_spans({text!r}))"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=20,
                          check=True)
    assert done.stdout == f"{[(0, len(text))]}\n"


@pytest.mark.parametrize(("first", "glued"), [
    # A number, a percentage, a closed parenthesis, an initialism or a year before the citation or the
    # mark: no small letter there, and each had kept the next sentence in its claim.
    ("The fee is $5.[1]", "The fee is $5.[1]Exchanges are free."),
    ("The fee is 5%[1].", "The fee is 5%[1].Exchanges are free."),
    ("Refunds are issued (in 5 days).[1]", "Refunds are issued (in 5 days).[1]Exchanges are free."),
    ("Sold in the U.S.[1]", "Sold in the U.S.[1]Exchanges are free."),
    ("Costs rose in 2023[1].", "Costs rose in 2023[1].Exchanges are free."),
    ("The fee is $5.¹", "The fee is $5.¹Exchanges are free."),
    ("The fee is 5% [2].", "The fee is 5% [2].Exchanges are free."),
])
def test_a_sentence_glued_to_a_citation_after_a_number_is_a_claim_of_its_own(first: str, glued: str) -> None:
    assert sentences(glued) == [first, "Exchanges are free."]
    # As with a space after the citation: the second claim starts where the first ends.
    assert [(c.start, c.end) for c in split_claims(glued)] == [(0, len(first)), (len(first), len(glued))]
    spaced = first + " Exchanges are free."
    assert sentences(spaced) == sentences(glued)


def test_a_made_up_sentence_glued_to_a_cited_price_is_checked() -> None:
    # One claim, the gift-card sentence riding on the cited price: "return", "fee" and "refund" of its 5
    # terms in the context (with "gift" and "card"), 3/5 = 0.6 above 0.56, and $5 there: supported,
    # groundedness 1.0. Two: the price's "return" and "fee" (2 of 2) and $5 in the context, supported; the
    # gift card's "gift", "card", "refund" 1 of 3, unsupported: groundedness 1/2.
    context = (Context("c1", "The return fee is $5. Most items can be returned for a full refund."),)
    answer = "The return fee is $5.[1]Gift cards are refundable too."
    [result] = evaluate([Example("x", "What is the fee?", context, answer)], LexicalJudge(),
                        EvalConfig(bootstrap_samples=0)).results
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [
        ("The return fee is $5.[1]", True), ("Gift cards are refundable too.", False)]
    assert result.metrics["groundedness"] == 0.5


@pytest.mark.parametrize("text", [
    # An abbreviation before a cited mark ends no sentence, as before a bare one.
    "Ask Mrs.[1]Jones about it.",
    "Write to Dr.[2]Smith today.",
    "This works, e.g.[1]The cat sat.",
    # A number in code, or one glued to more than a word's length of characters.
    "Try `x = 5[1].Name` here.",
    "See " + "x" * 60 + "5.[1]Then go.",
])
def test_an_abbreviation_or_code_before_a_cited_mark_stays_whole(text: str) -> None:
    assert sentences(text) == [text]
