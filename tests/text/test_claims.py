"""Sentences and claims: where answers are split, and what counts as a claim."""

from __future__ import annotations

import pytest

import ragmon.text.claims as text_module
from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.claims import answer_abstains, answer_terms, sentence_spans, split_claims
from ragmon.text.terms import numbers, profile


def texts(answer: str) -> list[str]:
    return [c.text for c in split_claims(answer)]


def assert_offsets(answer: str) -> None:
    for claim in split_claims(answer):
        assert answer[claim.start:claim.end] == claim.text
        assert claim.text == claim.text.strip()


def test_abbreviations_do_not_end_sentences() -> None:
    answer = "Dr. Smith moved to the U.S. in 2010. Some fruits, e.g. apples, are red. Mr. Jones agreed."
    # Three sentences: the periods of "Dr.", "U.S." (followed by a lower-case word), "e.g." and "Mr." are
    # abbreviations; only "2010.", "red." and "agreed." end sentences.
    assert texts(answer) == [
        "Dr. Smith moved to the U.S. in 2010.",
        "Some fruits, e.g. apples, are red.",
        "Mr. Jones agreed.",
    ]
    assert_offsets(answer)


@pytest.mark.parametrize(("answer", "claims"), [
    # A German ordinal: a day before its month, a number after the word it goes with. Each was cut at the
    # number's period, "Die Frist endet am 15." and "März." two claims a report quoted so.
    ("Die Frist endet am 15. März. Danach ist es zu spät.",
     ["Die Frist endet am 15. März.", "Danach ist es zu spät."]),
    ("Die Kündigung ist bis zum 31. Dezember möglich.", ["Die Kündigung ist bis zum 31. Dezember möglich."]),
    ("Ab dem 18. Lebensjahr zahlen Sie den vollen Beitrag.",
     ["Ab dem 18. Lebensjahr zahlen Sie den vollen Beitrag."]),
    ("Im 3. Quartal steigen die Preise. Das ist neu.", ["Im 3. Quartal steigen die Preise.", "Das ist neu."]),
    # A number ending an English or a German sentence before a word that is no month still ends it.
    ("The fee is 15. The refund is 20.", ["The fee is 15.", "The refund is 20."]),
    ("Ich bin 15. Das ist alt.", ["Ich bin 15.", "Das ist alt."]),
    # A month's name that is English too ends nothing only after a German word: the rule's first version
    # glued "November courses are free of charge." onto a true sentence, and it passed with it.
    ("Der Kurs beginnt am 1. November.", ["Der Kurs beginnt am 1. November."]),
    ("Applications close on June 30. September intake opens on July 1.",
     ["Applications close on June 30.", "September intake opens on July 1."]),
    ("The sale ends on March 15. November courses are free of charge.",
     ["The sale ends on March 15.", "November courses are free of charge."]),
    # A noun the ordinal counts: "am 3." and "Werktag des Monats." had been two claims.
    ("Die Zahlung erfolgt am 3. Werktag des Monats.", ["Die Zahlung erfolgt am 3. Werktag des Monats."]),
    ("Die Ware kommt in der 2. Woche an. Das ist neu.",
     ["Die Ware kommt in der 2. Woche an.", "Das ist neu."]),
    ("Der Preis beträgt 30. Danach gibt es keine Rückerstattung.",
     ["Der Preis beträgt 30.", "Danach gibt es keine Rückerstattung."]),
    ("Sie erhalten die 2. Mahnung per Post.", ["Sie erhalten die 2. Mahnung per Post."]),
    # A counted noun after a word that is no German one's: "Tag" opens English sentences too.
    ("You can upload up to 12. Tag each photo with a label.",
     ["You can upload up to 12.", "Tag each photo with a label."]),
    ("Die Frist beträgt 14. Tag für Tag wächst sie.", ["Die Frist beträgt 14.", "Tag für Tag wächst sie."]),
], ids=["day-and-month", "bis-zum", "ab-dem", "im", "english", "german-number-ends", "am-shared-month",
        "english-september", "english-november", "am-werktag", "in-der-woche", "german-price-ends",
        "die-mahnung", "english-tag", "german-tag-opens"])
def test_a_german_ordinal_ends_no_sentence(answer: str, claims: list[str]) -> None:
    assert [claim.text for claim in split_claims(answer)] == claims


def test_etc_ends_a_sentence_only_before_a_capital() -> None:
    answer = "They sell shoes, bags, etc. and hats. They sell coats, etc. Prices vary."
    assert texts(answer) == ["They sell shoes, bags, etc. and hats.", "They sell coats, etc.", "Prices vary."]


def test_decimals_stay_whole() -> None:
    answer = "The trial lasts 3.5 days. It costs 2.99 dollars!"
    assert texts(answer) == ["The trial lasts 3.5 days.", "It costs 2.99 dollars!"]
    assert_offsets(answer)


def test_bullet_items_are_claims_without_their_marker() -> None:
    answer = "- Refunds take 5 days\n- Exchanges are free"
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 5 days", "Exchanges are free"]
    # "- " is 2 characters and "Refunds take 5 days" 19, so the first item is 2..21; the newline is at 21,
    # the second line starts at 22, its text at 24 and runs 18 characters, to 42.
    assert [(c.start, c.end) for c in claims] == [(2, 21), (24, 42)]
    assert_offsets(answer)


def test_numbered_items_are_claims_and_the_item_number_is_not_a_number_of_the_claim() -> None:
    answer = "1. Refunds take 5 days.\n2. Exchanges are free."
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 5 days.", "Exchanges are free."]
    assert numbers(claims[0].text) == {5.0}
    assert_offsets(answer)


def test_roman_numbers_in_capitals_are_item_markers_as_numbers_are() -> None:
    # "II." had been a claim of its own, unsupported: groundedness 2/3 for an answer whose every item the
    # context holds.
    answer = "I. Returns\nII. Customers may return most items within 30 days of delivery.\nIII. Clearance " \
             "items are final sale."
    assert verdicts(answer) == [("Returns", True),
                                ("Customers may return most items within 30 days of delivery.", True),
                                ("Clearance items are final sale.", True)]
    # "I. " is 3 characters, "Returns" 7: 3 to 10; the newline at 10, "II. " 11 to 15, then 21 characters.
    answer = "I. Returns\nII. Refunds take 30 days."
    assert [(c.text, c.start, c.end) for c in split_claims(answer)] == [
        ("Returns", 3, 10), ("Refunds take 30 days.", 15, 36)]


@pytest.mark.parametrize("marker", ["IV.", "VIII.", "IX.", "XII.", "  VI."])
def test_a_roman_number_in_capitals_is_no_number_of_its_claim(marker: str) -> None:
    assert texts(f"{marker} Refunds take 5 days.\nReturns. II. Exchanges are free.") == [
        "Refunds take 5 days.", "Returns.", "Exchanges are free."]


@pytest.mark.parametrize(("answer", "claims"), [
    # "I.", "V." or "X." and a capital open a name as often as a list's item: an initial, whole, unless the
    # line above or below goes on with the list.
    ("V. Smith wrote the refund policy.", ["V. Smith wrote the refund policy."]),
    ("X. Li approved the policy in 2023.", ["X. Li approved the policy in 2023."]),
    ("I. Newton discovered gravity.", ["I. Newton discovered gravity."]),
    ("Testing matters. V. Smith agrees.", ["Testing matters.", "V. Smith agrees."]),
    ("Refunds take 30 days.\nV. Smith wrote the refund policy.",
     ["Refunds take 30 days.", "V. Smith wrote the refund policy."]),
    ("  V. Smith wrote the refund policy.", ["V. Smith wrote the refund policy."]),
])
def test_a_single_roman_capital_opening_a_name_stays_in_its_claim(answer: str, claims: list[str]) -> None:
    assert texts(answer) == claims


@pytest.mark.parametrize(("answer", "spans"), [
    # "I. " is 3 characters, "Refunds take 30 days." 21: 3 to 24, the newline at 24; "II. " from 25 to 29,
    # then the 19 of "Exchanges are free.": 29 to 48.
    ("I. Refunds take 30 days.\nII. Exchanges are free.", [(3, 24), (29, 48)]),
    # "IV. " is 4: 4 to 25, the newline at 25, "V. " 26 to 29, 29 to 48.
    ("IV. Refunds take 30 days.\nV. Exchanges are free.", [(4, 25), (29, 48)]),
    ("V. Refunds take 30 days.\nVI. Exchanges are free.", [(3, 24), (29, 48)]),
    ("IX. Refunds take 30 days.\nX. Exchanges are free.", [(4, 25), (29, 48)]),
    ("X. Refunds take 30 days.\nXI. Exchanges are free.", [(3, 24), (29, 48)]),
    # A lettered list's "I." after "H.": 3 to 24, "I. " 25 to 28, 28 to 47.
    ("H. Refunds take 30 days.\nI. Exchanges are free.", [(3, 24), (28, 47)]),
])
def test_a_single_roman_capital_in_a_list_is_an_items_number(answer: str,
                                                              spans: list[tuple[int, int]]) -> None:
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 30 days.", "Exchanges are free."]
    assert [(c.start, c.end) for c in claims] == spans


def test_the_letters_of_a_lettered_list_are_no_part_of_its_claims() -> None:
    # "B." before "The" had been a claim of its own, the letter "b" a term no context holds: groundedness
    # 3/4 for an answer whose every item the context holds. "A." and "C." had stayed in their claims.
    answer = ("A. Customers may return most items within 30 days of delivery.\nB. The items must be unused "
              "and in their original packaging.\nC. Clearance items are final sale.")
    assert verdicts(answer) == [("Customers may return most items within 30 days of delivery.", True),
                                ("The items must be unused and in their original packaging.", True),
                                ("Clearance items are final sale.", True)]


@pytest.mark.parametrize(("answer", "spans"), [
    # "A) " is 3 characters and "Refunds take 30 days." 21: 3 to 24. The second item opens at 25, "B) "
    # before it, and its 19 characters run from 28 to 47, on a line of its own or not.
    ("A) Refunds take 30 days.\nB) Exchanges are free.", [(3, 24), (28, 47)]),
    ("A) Refunds take 30 days. B) Exchanges are free.", [(3, 24), (28, 47)]),
    # "(A) " and "(B) " are a character longer each: 4 to 25, and 30 to 49.
    ("(A) Refunds take 30 days.\n(B) Exchanges are free.", [(4, 25), (30, 49)]),
    ("  A) Refunds take 30 days.\n  B) Exchanges are free.", [(5, 26), (32, 51)]),
    # A lettered list's items, blank lines between them or not: "A. " 3 characters, "B. " at 25.
    ("A. Refunds take 30 days.\nB. Exchanges are free.", [(3, 24), (28, 47)]),
    ("A. Refunds take 30 days.\n\nB. Exchanges are free.", [(3, 24), (29, 48)]),
])
def test_a_capital_letters_item_marker_is_no_part_of_its_claim(answer: str,
                                                                 spans: list[tuple[int, int]]) -> None:
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 30 days.", "Exchanges are free."]
    assert [(c.start, c.end) for c in claims] == spans


@pytest.mark.parametrize(("answer", "claims"), [
    # A letter and a full stop open a name as well: only in a lettered list, the letter before or after
    # it opening the line above or below, is it an item's.
    ("A. Smith wrote the refund policy.", ["A. Smith wrote the refund policy."]),
    ("Refunds take 30 days.\nC. Exchanges are free.", ["Refunds take 30 days.", "C. Exchanges are free."]),
    # A letter before a small letter is what the sentence is about, and one within a sentence no marker.
    ("B) is the right option.", ["B) is the right option."]),
    ("Refunds are (A) fast.", ["Refunds are (A) fast."]),
])
def test_a_capital_letter_that_is_no_items_marker_stays_in_its_claim(answer: str, claims: list[str]) -> None:
    assert texts(answer) == claims


@pytest.mark.parametrize(("answer", "claims"), [
    # A step's number is the item's, as "1." is: "Step 1." had been a claim of its own, and 1 and 2 numbers
    # the context had to hold.
    ("Step 1: Keep the receipt.\nStep 2 - Return the box.", ["Keep the receipt.", "Return the box."]),
    ("Step 1. Keep the receipt. Step two: Return the box.", ["Keep the receipt.", "Return the box."]),
    ("Option 2: pay monthly.", ["pay monthly."]),
    # An item's marker opening a sentence mid-line is one too ("2. " had been the claim "2.").
    ("1) Keep the receipt. 2) Return the box.", ["Keep the receipt.", "Return the box."]),
    ("Keep the receipt. 2. Return the box.", ["Keep the receipt.", "Return the box."]),
    # Other words before a number name something: "Tier 2" must be in the context.
    ("Tier 2: costs 30 dollars.", ["Tier 2: costs 30 dollars."]),
    ("Steps 1 to 3 are free.", ["Steps 1 to 3 are free."]),
])
def test_a_steps_number_opening_a_sentence_is_its_marker(answer: str, claims: list[str]) -> None:
    assert texts(answer) == claims
    assert_offsets(answer)


@pytest.mark.parametrize("answer", [
    "| Plan | Price |\n|---|---|\n| Basic | 30 dollars |",
    "Plan | Price\n:--- | ---:\nBasic | 30 dollars",
    "Prices\n------\nBasic | 30 dollars",
    "Prices\n===\nBasic | 30 dollars",
])
def test_a_table_header_or_an_underlined_title_is_no_claim(answer: str) -> None:
    # The header row ("| Plan | Price |", whose words no context needs to hold) had been an unsupported claim
    # beside every row the context supports; a title underlined as markdown does is a heading as "# " is.
    assert [text.strip("| ") for text in texts(answer)] == ["Basic | 30 dollars"]


@pytest.mark.parametrize("answer", [
    "Prices are fixed.\n\n---\nBasic costs 30 dollars.",  # after a blank line: a separator
    "Prices are fixed.\n---\nBasic costs 30 dollars.",  # a sentence above it is no title
])
def test_a_line_of_dashes_under_a_sentence_underlines_nothing(answer: str) -> None:
    assert texts(answer) == ["Prices are fixed.", "Basic costs 30 dollars."]


@pytest.mark.parametrize("answer", [
    "Refunds take 30 days.\n\nSources: doc-1, refund-policy.pdf",
    "Refunds take 30 days.\n\n**Sources:**\n- doc-1\n- refund-policy.pdf",
    "Refunds take 30 days.\n\nReferences:\n\n[1] doc-1\n[2] refund-policy.pdf",
    "Refunds take 30 days.\n\n## Sources\n1. doc-1",
    "Refunds take 30 days.\n\n[1]: doc-1\n[^2]: refund-policy.pdf",
    "Refunds take 30 days. (Source: Refund Policy, p. 3)",
    "Refunds take 30 days.\nCitation: doc-1",
    "Refunds take 30 days.\n<sources>kb-12</sources>",
])
def test_a_list_of_the_answers_sources_is_no_claim(answer: str) -> None:
    # "Sources: doc-1, refund-policy.pdf" had been a claim no context supports (its ids and file names
    # are in none), so an answer told to cite its sources scored half of a grounded one.
    assert texts(answer) == ["Refunds take 30 days."]


def test_what_a_source_was_used_for_or_the_part_cited_is_no_claim() -> None:
    # A value after "used for", a verb whose subject is the part cited: each had been flagged (a review).
    for entry in ("- d1 (Hotel guest information) – used for check-out times and the free shuttle",
                  "- Returns policy: the relevant part is the refund section"):
        assert texts(f"Refunds take 30 days.\n\nSources:\n{entry}") == ["Refunds take 30 days."]
    # A clause after a comma is read again, and what the source says is a claim.
    assert texts("Refunds take 30 days.\n\nSources:\n- Gift card FAQ: for members, refunds are free")[-1] == (
        "Gift card FAQ: for members, refunds are free")


@pytest.mark.parametrize(("answer", "claim"), [
    ("Refunds take 30 days.[^1]\n\n[^1]: Return shipping is free for all orders.",
     "[^1]: Return shipping is free for all orders."),
    ("Refunds take 30 days [1].\n\nSources:\n- Gift card FAQ: gift cards can be refunded within 60 days\n"
     "- Returns Policy (doc-1)", "Gift card FAQ: gift cards can be refunded within 60 days"),
    ("Refunds take 30 days [1]. Gift cards cannot be returned [2].\n\n[1] Returns policy\n"
     "[2] Gift card FAQ - refunds to store credit within 60 days",
     "[2] Gift card FAQ - refunds to store credit within 60 days"),
    ("Refunds take 30 days. Source: Returns Policy, which also says return shipping is free.",
     "Source: Returns Policy, which also says return shipping is free."),
])
def test_a_fact_beside_a_sources_name_is_a_claim(answer: str, claim: str) -> None:
    # Read as a source's entry, footnote or definition for its shape, each made-up fact went unchecked; a
    # source's name beside it ("- Returns Policy (doc-1)", "[1] Returns policy") is still none.
    assert texts(answer)[-1] == claim
    assert not {"Returns Policy (doc-1)", "[1] Returns policy"} & set(texts(answer))


def test_a_note_of_sources_stating_a_fact_is_read_with_its_sentence() -> None:
    # "(Source: ...)" had been stripped whatever it held, so its made-up waiver went unchecked; a note naming
    # only its source is still no part of the sentence after it.
    assert texts("Refunds take 30 days. (Source: Returns Policy; restocking fee waived for members) "
                 "Gift cards cannot be returned.") == [
        "Refunds take 30 days.",
        "(Source: Returns Policy; restocking fee waived for members) Gift cards cannot be returned."]
    assert texts("Refunds take 30 days. (Source: Returns Policy) Gift cards cannot be returned.") == [
        "Refunds take 30 days.", "Gift cards cannot be returned."]


def test_a_code_fences_line_is_no_claim_and_the_code_is_one() -> None:
    # "```json" had been a claim of the term "json"; a command in the block is checked as any claim is.
    assert texts("Run this:\n```bash\nsystemctl restart web\n```\n~~~\nDone.") == [
        "systemctl restart web", "Done."]


def test_a_reasoning_models_thinking_is_no_claim() -> None:
    # An app that leaves "<think>" in the answer: what the model weighed ("The context says 30 days.")
    # is not what it answered. The answer keeps its offsets: "Refunds ..." starts after the block's 69
    # characters (7 + 28 + 1 + 25 + 8) and its newline, at 70.
    answer = "<think>The user asks about refunds.\nThe context says 30 days.</think>\nRefunds take 30 days."
    [claim] = split_claims(answer)
    assert (claim.text, claim.start) == ("Refunds take 30 days.", 70)
    assert answer[claim.start:claim.end] == claim.text
    # Cut off while thinking (its token limit): no answer was given.
    assert split_claims("<think>The user asks about refunds. The context says") == ()
    assert [c.text for c in split_claims("<thinking>The user asks.</thinking> Refunds take 30 days.")] == [
        "Refunds take 30 days."]


def test_the_list_of_sources_ends_at_a_blank_line() -> None:
    answer = "Sources:\n- doc-1\n\nShipping is free.\nSources say returns are free."
    assert texts(answer) == ["Shipping is free.", "Sources say returns are free."]


def test_newlines_end_sentences_and_headings_are_not_claims() -> None:
    answer = "## Returns\nReturns are accepted within a month\nExchanges are free"
    assert texts(answer) == ["Returns are accepted within a month", "Exchanges are free"]


@pytest.mark.parametrize(("answer", "claims"), [
    # Wrapped at a width: the line below goes on with a sentence the line above left open.
    ("The Starter plan\ncosts $79 per month. It has SSO.",
     ["The Starter plan\ncosts $79 per month.", "It has SSO."]),
    ("The Starter plan costs\n$79 per month.", ["The Starter plan costs\n$79 per month."]),
    ("Returns are accepted within\n30 days, provided the item\nis unused.",
     ["Returns are accepted within\n30 days, provided the item\nis unused."]),
    ("- Returns are accepted\n  within 30 days.\n- Exchanges are free.",
     ["Returns are accepted\n  within 30 days.", "Exchanges are free."]),
    # Not where a line ends a sentence, a lead-in or a paragraph, or the next opens an item or a capital.
    ("Returns are accepted.\nexchanges too.", ["Returns are accepted.", "exchanges too."]),
    ("Returns are accepted within 30 days\n\nexchanges within 14.", [
        "Returns are accepted within 30 days", "exchanges within 14."]),
    ("Included in the plan\nSingle sign-on\nAudit logs",
     ["Included in the plan", "Single sign-on", "Audit logs"]),
    ("The plan includes\n- single sign-on\n- audit logs",
     ["The plan includes", "single sign-on", "audit logs"]),
    ("| Plan | Price |\n|---|---|\n| Starter | $19 |\nmonthly prices",
     ["| Starter | $19 |", "monthly prices"]),
    ("Sehr geehrter Herr Yilmaz,\nihre Bestellung wurde gestern versandt.",  # a salutation
     ["ihre Bestellung wurde gestern versandt."]),
    # After a function word, whatever the next line opens with ("im\nMonat", a German noun).
    ("Der Tarif kostet 49 Euro im\nMonat und ist monatlich kündbar.",
     ["Der Tarif kostet 49 Euro im\nMonat und ist monatlich kündbar."]),
    # Lines that never reach a sentence's end are lines apart, however they open: a list without markers,
    # a chat's one thought a line, hours on lines of their own, a signature.
    ("We support these formats\npdf and docx\nhtml and markdown",
     ["We support these formats", "pdf and docx", "html and markdown"]),
    ("yes it works on linux\nyou need python 3.9 or newer\ninstall it with pip",
     ["yes it works on linux", "you need python 3.9 or newer", "install it with pip"]),
    # Numbered lines, "key: value" pairs and columns stay apart even when the last one ends a sentence.
    ("1 Open the app and wait\n2 Tap Settings.", ["1 Open the app and wait", "2 Tap Settings."]),
    ("the host name: db.internal\nthe port: 5432.", ["the host name: db.internal", "the port: 5432."]),
    ("Plan\tPrice per month\nbasic\t19 dollars.", ["Plan\tPrice per month", "basic\t19 dollars."]),
    ("\tPlan\tPrice per month\n\tbasic\t19 dollars.", ["Plan\tPrice per month", "basic\t19 dollars."]),
    # A tab that indents the lines (a quoted e-mail, an indented paragraph) is no column: one sentence.
    ("\tThe warranty covers parts\n\tand labour for two years.",
     ["The warranty covers parts\n\tand labour for two years."]),
    # A citation marker ends what its line says; a salutation is no part of the sentence below it.
    ("Refunds are accepted within 30 days [1]\nexchanges within 14 days are free [2].",
     ["Refunds are accepted within 30 days [1]", "exchanges within 14 days are free [2]."]),
    ("Dear valued customer\nyour refund was issued on Monday.", ["your refund was issued on Monday."]),
    # Never over a reasoning model's thinking, which the claims must not hold; but the answer after it is
    # read as any answer is.
    ("The Starter plan costs\n<think>check the price table</think>$79 per month.",
     ["The Starter plan costs", "$79 per month."]),
    ("<think>The user asks about the price.</think>\nThe Starter plan costs\n$79 per month.",
     ["The Starter plan costs\n$79 per month."]),
    # A line ending in a space of another kind (HTML's no-break space, a PDF's form feed) is as open.
    ("The Starter plan costs\xa0\n$79 per month.", ["The Starter plan costs\xa0\n$79 per month."]),
    ("The Starter plan costs\x0c\n$79 per month.", ["The Starter plan costs\x0c\n$79 per month."]),
])
def test_a_sentence_wrapped_over_lines_is_one_claim(answer: str, claims: list[str]) -> None:
    assert texts(answer) == claims


def test_a_lead_in_in_bold_is_no_claim() -> None:
    # "**Details:**" ends in its emphasis, not its colon: it had been a claim no context supports.
    assert texts("**Details:**\n* Returns are accepted within 30 days.\n__Steps:__") == [
        "Returns are accepted within 30 days."]


def test_abstaining_and_contentless_sentences_are_not_claims() -> None:
    answer = ("I don't know. The context does not mention refund fees. It is what it is. "
              "Here is what I found:\nReturns are accepted within 30 days.")
    # "It is what it is." has only function words; "Here is what I found:" is a lead-in.
    assert texts(answer) == ["Returns are accepted within 30 days."]
    assert_offsets(answer)


@pytest.mark.parametrize(("answer", "abstains"), [
    ("", True),
    ("   \n ", True),
    ("I don't know.", True),
    ("The context does not say. Refunds take 30 days.", False),  # the second sentence is a claim
    ("The context does not say. Sorry!", True),  # "Sorry!" is filler: no claim, and no answer either
    ("Sorry! I don't know.", True),
    ("Sure!", False),  # filler makes no claim but does not decline: the answer has not abstained
    ("👍", True),  # says nothing, like "..."
    ("It is what it is.", True),  # says nothing checkable at all
    ("I don't know. Paris is the capital of France.", False),
    ("Here is what I found:", False),  # a lead-in, neither a claim nor an abstention
])
def test_answer_abstains(answer: str, abstains: bool) -> None:
    assert answer_abstains(answer) is abstains


def test_sentence_spans_are_stripped_offsets() -> None:
    text = "  First one.   Second one?\n\tThird!  "
    assert [text[s:e] for s, e in sentence_spans(text)] == ["First one.", "Second one?", "Third!"]


def test_blank_lines_and_carriage_returns_make_no_sentences() -> None:
    # Lines are cut at "\n" only: "One.\r" ends at its period (a "\r" is whitespace), the lines "\r" and ""
    # hold nothing, and the last line "Two" has no mark; offsets count every character before it (4 + 2 +
    # 1 + 2 = 9 for "Two").
    text = "One.\r\n\r\n\nTwo"
    assert sentence_spans(text) == [(0, 4), (9, 12)]


@pytest.mark.parametrize(("answer", "terms"), [
    # Stems by hand: returns -> return, accepted -> accept, shipping -> ship; "are", "is" are function
    # words and the citation mark "[1]" is dropped.
    ("Returns are accepted. Shipping is free [1].", {"return", "accept", "ship", "free"}),
    # List markers are not part of any claim: the same terms, read from the whole answer.
    ("- Returns are accepted.\n- Shipping is free.", {"return", "accept", "ship", "free"}),
    # One citation mark runs over two sentences: read whole, the mark and every word in it go, so "see"
    # and "free" are not terms of the answer, though they are terms of the second sentence on its own.
    ("Returns are accepted [see p. 5. Also free].", {"return", "accept"}),
])
def test_answer_terms_are_the_terms_of_the_whole_answer(answer: str, terms: set[str]) -> None:
    assert answer_terms(answer) == terms == profile(answer).terms


def test_a_run_of_sentence_marks_is_tried_from_its_first_mark_only() -> None:
    # Each mark of a run would read the rest of the run again: quadratic in a long run not followed by a
    # space ("....x"; benchmarks/text_worst_case.py). A mark after a mark starts no boundary; "Wait.." is
    # one boundary ".." at 4..6 read from its first mark.
    assert text_module._BOUNDARY.search("Wait.. what", 5) is None
    assert text_module._BOUNDARY.search("Wait.. what").span() == (4, 6)
    text = "It was" + "." * 50 + "x then. Done!"
    # The run is followed by "x", not a space: no boundary in it, so "It was" runs on to "then.".
    assert [text[s:e] for s, e in sentence_spans(text)] == ["It was" + "." * 50 + "x then.", "Done!"]


@pytest.mark.parametrize(("text", "sentences"), [
    # "al." before a lower-case word and the initials "J." "K." and "X." end no sentence.
    ("See Dr. J. K. Rowling et al. and Mr. X. Wong left.",
     ["See Dr. J. K. Rowling et al. and Mr. X. Wong left."]),
    # The word before a period may end before it: "Dr ." is still the abbreviation, "went ." is not.
    ("Dr . Who went . Home", ["Dr . Who went .", "Home"]),
    ("e.g. e.g. x. y. Zed ended. Yes.", ["e.g. e.g. x. y. Zed ended.", "Yes."]),
])
def test_chains_of_abbreviations_end_no_sentence(text: str, sentences: list[str]) -> None:
    assert [text[s:e] for s, e in sentence_spans(text)] == sentences


@pytest.mark.parametrize(("text", "sentences"), [
    # A letter after a number is a unit or a rating, not an initial.
    ("The router draws 12 W. Replace the fuse.", ["The router draws 12 W.", "Replace the fuse."]),
    ("Typical use is 7.5 W. Its fan is quiet.", ["Typical use is 7.5 W.", "Its fan is quiet."]),
    # A capitalised function word after the letter opens a sentence: no name goes on with "Then" or "It".
    ("Choose option A. Then restart it.", ["Choose option A.", "Then restart it."]),
    ("He met Mr. X. It rained.", ["He met Mr. X.", "It rained."]),
    # Initials stay whole: before a surname, before another initial ("A" is a function word, but one
    # letter long), after a lower-case word.
    ("It was written by J. Smith in May.", ["It was written by J. Smith in May."]),
    ("J. A. Smith wrote it. The end.", ["J. A. Smith wrote it.", "The end."]),
    # A year is no quantity a unit follows, nor is a number a comma ends.
    ("In 1998, J. K. Rowling wrote it.", ["In 1998, J. K. Rowling wrote it."]),
    ("Since 2016 J. Powell has chaired it.", ["Since 2016 J. Powell has chaired it."]),
])
def test_a_letter_alone_before_a_period_ends_a_sentence_after_a_number_or_before_an_opening_word(
        text: str, sentences: list[str]) -> None:
    assert [text[s:e] for s, e in sentence_spans(text)] == sentences


@pytest.mark.parametrize("sentence", [
    "Yes.", "Yes!", "Sure!", "Okay.", "OK.", "Certainly.", "Absolutely.", "Of course.", "Great question!",
    "Good question.", "Sure, happy to help!", "Yes, absolutely.",
    "Hope this helps!", "I hope this helps.", "Happy to help!", "Glad I could help.",
    "Let me know if you have any other questions.", "Feel free to ask if you need anything else.",
    "Please don't hesitate to reach out if you have any additional questions.",
    "If you have any other questions, just let me know!", "Is there anything else I can help you with?",
    "Thanks for asking!", "Thank you for reaching out.", "Sorry about that.",
    # Not ASCII: a curly apostrophe, an emoji after the words, and sentences of emoji, no letter or digit.
    "I’m happy to help.", "Hope this helps 😊", "👍", "🙂🙂",
    # An app's note of who wrote the answer.
    "*This answer was generated by AI.*", "AI-generated content may be incorrect.",
    # News announced, not told, a bare yes or no said with a lead, an answer announced: each was a claim no
    # page holds, opening or closing an answer.
    "Great news!", "Good news.", "Some good news!", "Wonderful news!", "Good to know!", "Happy to explain.",
    "In short, yes.", "The short answer is no.", "Short answer: no.", "Unfortunately not.", "Sadly, no.",
    "Here's the answer.", "Here's a quick summary.", "Here is what you need to know.",
    "Here's the key information.", "Let me walk you through it.",
    # What the answer rests on, named as a whole, and a disclaimer.
    "*Note: This is based on the provided documents.*", "This answer is based on the provided context.",
    "Based on the documents provided.", "This is not legal advice.",
])
def test_filler_is_not_a_claim(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    # Filler words before or around an assertion: each states something a context must support.
    "Yes, refunds take 30 days.",
    "Yes, it is free.",
    "Sure, the plan includes two seats.",
    "Great questions get answered within a day.",
    "Good news travels fast in our community.",
    "Unfortunately, refunds are not available.",
    "Short answers are preferred in the exam.",
    "The answer is in section 4.",
    "Not all items can be returned.",
    "Based on the documents, refunds take 5 days.",
    "Note: refunds take 5 days.",
    "Thanks to the new policy, refunds take 30 days.",
    "Happy customers get a 10% discount.",
    "The plan costs €5 👍",
    # Pointers to help that name what: the words are filler words, the sentence is no closer.
    "See the backup documentation.",
    "Contact support.",
])
def test_a_sentence_asserting_something_after_filler_stays_a_claim(sentence: str) -> None:
    assert texts(sentence) == [sentence]


@pytest.mark.parametrize("sentence", [
    "Sorry about the delay — that's frustrating.", "Good question - here's what applies to you.",
    "I'm sorry—that sounds painful.",
    "Oh je, Zahnschmerzen am Wochenende sind wirklich fies – erst mal gute Besserung!",
])
def test_a_courtesy_after_a_dash_is_talk_to_the_user(sentence: str) -> None:
    # As after a comma ("Sorry about the delay, that's frustrating."): the dash alone had made each a claim.
    assert texts(f"{sentence} Refunds take 5 days.") == ["Refunds take 5 days."]


@pytest.mark.parametrize("sentence", [
    "I'm sorry — refunds take 5 days.", "Sorry for the wait—your refund was denied.",
    "Great question — the fee is waived for students.", "Happy to help - shipping is free over $50.",
    "Sag Bescheid, wenn ich dein Abo umstellen soll – das ist günstiger als die monatliche Zahlung.",
    # A fact before the dash, or what the user can do or was done for them after it (a review's).
    "We also price match — hope that helps!", "Sure — you can cancel anytime!",
    "Sorry about that — we've credited your account!",
    # After a comma too: the model read "your" as talk to the user, and the claim was checked by no judge.
    "Thanks for your patience, your claim was approved.", "Sorry for the wait, your account is locked.",
    "Sure, you can cancel anytime!", "Sorry about that, we've credited your account!",
])
def test_a_fact_after_a_courtesys_dash_or_comma_is_a_claim(sentence: str) -> None:
    assert texts(f"{sentence} Refunds take 5 days.") == [sentence, "Refunds take 5 days."]


@pytest.mark.parametrize("sentence", [
    "Great question, the answer is yes!", "Sorry to hear that, your frustration is understandable.",
    "Happy to help, you can ask me anytime!", "For pricing, you may want to contact the Nimbus sales team.",
])
def test_a_judgement_or_help_after_a_courtesys_comma_is_no_claim(sentence: str) -> None:
    assert texts(f"{sentence} Refunds take 5 days.") == ["Refunds take 5 days."]


@pytest.mark.parametrize("answer", [
    "Yes. Account deletion is permanent.",
    "Sure! Account deletion is permanent.",
    "Okay. Account deletion is permanent.",
    "Account deletion is permanent. 👍",
    "Account deletion is permanent. Hope this helps!",
    "Great question! Account deletion is permanent. Let me know if you have any other questions.",
    "Good news! Account deletion is permanent.",
])
def test_a_polite_answer_is_scored_on_its_claim_alone(answer: str) -> None:
    # The one claim's terms (account, delet, perman) are all in the context: 1 supported of 1 claim, so
    # groundedness 1 and no hallucination, where the filler counted as an unsupported claim made it 0.5.
    example = Example("q1", "Is account deletion permanent?",
                      (Context("c1", "Account deletion is permanent and takes up to 30 days."),), answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [v.claim.text for v in result.verdicts] == ["Account deletion is permanent."]
    assert result.metrics["groundedness"] == 1.0
    assert result.metrics["hallucination_rate"] == 0.0


@pytest.mark.parametrize("gap", ["\u200b", "\ufeff", "\u202c", "\u2060", "\x00", " \u200b "])
def test_an_invisible_character_after_a_period_ends_the_sentence(gap: str) -> None:
    # Zero-width space, byte order mark, bidi pop, word joiner, NUL: pasted text carries them where a
    # reader sees a sentence end. "Refunds take 5 days." is 0..20; "Exchanges are free." (19 characters)
    # starts after the gap.
    answer = f"Refunds take 5 days.{gap}Exchanges are free."
    assert texts(answer) == ["Refunds take 5 days.", "Exchanges are free."]
    start = 20 + len(gap)
    assert [(c.start, c.end) for c in split_claims(answer)] == [(0, 20), (start, start + 19)]
    assert_offsets(answer)


def test_invisible_characters_are_stripped_from_a_sentences_ends() -> None:
    # A byte order mark at 0, "Refunds take 5 days" at 1..20, a zero-width space at 20, the newline at 21;
    # a line of invisible characters only (22, 23) and its newline (24); then a zero-width space, a space
    # and a word joiner (25..27), "Exchanges are free." at 28..47 and a zero-width space.
    answer = "\ufeffRefunds take 5 days\u200b\n\u200b\u2060\n\u200b \u2060Exchanges are free.\u200b"
    assert [(c.start, c.end) for c in split_claims(answer)] == [(1, 20), (28, 47)]
    assert texts(answer) == ["Refunds take 5 days", "Exchanges are free."]
    assert_offsets(answer)


def test_circled_numbers_opening_items_are_markers_not_numbers_of_the_claim() -> None:
    answer = "\u2460 Refunds take 5 days.\n\u2461 Exchanges are free."
    claims = split_claims(answer)
    assert [c.text for c in claims] == ["Refunds take 5 days.", "Exchanges are free."]
    assert numbers(claims[0].text) == {5.0}
    # "① " is 2 characters, the first item's text 20; the second line starts at 23, its text at 25.
    assert [(c.start, c.end) for c in claims] == [(2, 22), (25, 44)]


@pytest.mark.parametrize("space", [c for c in map(chr, range(0x110000)) if c.isspace()])
def test_a_sentence_with_invisible_ends_is_stripped_of_every_kind_of_whitespace(space: str) -> None:
    # The invisible characters send the sentence to the slower strip, which must still take every
    # whitespace character: the sentence is 3..23 whatever the space.
    answer = f"{space}\u200b{space}Refunds take 5 days.{space}\u200b"
    assert sentence_spans(answer) == [(3, 23)]


@pytest.mark.parametrize("closer", [
    "Please let me know if you need further clarification.",
    "If you have further questions, please contact support.",
    "Please refer to the documentation for more details.",
    "For more information, please see the documentation.",
    "Please contact our support team if you have any other questions.",
    "If you need any additional clarification, please reach out to our support team.",  # the longest: 79
])
def test_a_closing_pointer_to_help_or_the_documentation_is_no_claim(closer: str) -> None:
    # The one claim (databas, back, hour and 6) is all in the context: groundedness 1 of 1 claim, where the
    # closer counted as a second, unsupported one made it 0.5.
    example = Example("q1", "How often are databases backed up?",
                      (Context("c1", "Databases are backed up every 6 hours."),),
                      "Databases are backed up every 6 hours. " + closer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [v.claim.text for v in result.verdicts] == ["Databases are backed up every 6 hours."]
    assert result.metrics["groundedness"] == 1.0


def test_an_attribution_before_filler_is_no_claim() -> None:
    # "Based on the provided context, yes." asserts no more than "Yes.": the answer's one claim (enterpris,
    # bring, kei, kms and the rest, all in c1) is supported, groundedness 1 where it was 0.5.
    answer = "Based on the provided context, yes. Enterprise customers can bring their own keys through KMS."
    example = Example("q1", "Can I bring my own keys?",
                      (Context("c1", "Customers on Enterprise can bring their own keys through KMS."),),
                      answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [v.claim.text for v in result.verdicts] == [
        "Enterprise customers can bring their own keys through KMS."]
    assert result.metrics["groundedness"] == 1.0


WARRANTY = "The warranty lasts 2 years from the date of purchase."


RECEIPT = Context("c1", "Refunds are issued within 30 days of purchase. Keep the receipt and return the box.")


@pytest.mark.parametrize("answer", [
    "To get a refund you must (1) keep the receipt and (2) return the box within 30 days of purchase.",
    "To get a refund: 1) keep the receipt, 2) return the box within 30 days of purchase.",
    "Step 1: Keep the receipt.\nStep 2: Return the box within 30 days of purchase.",
    "Refunds are issued within 30 days of purchase【4:0†source】.",  # OpenAI file search's citation
    "Refunds are issued within 30 days of purchase (1).",
    "Refunds are issued within 30 days of purchase (Source: doc-1).",
    "Refunds are issued within 30 days of purchase (see doc 2).",
    "Refunds are issued within 30 days of purchase (Sources: 1, 3).",
    "Refunds are issued within 30 days of purchase (documents 1-2).",
])
def test_numbers_that_list_items_or_cite_sources_need_not_be_in_the_context(answer: str) -> None:
    # Every word and the 30 are in the context; the other numbers only number the items or name sources.
    # Before, they were numbers the claim stated: groundedness 0.0 (or 0.5 for the steps) for an answer
    # copied from its source.
    example = Example("q1", "How do I get a refund?", (RECEIPT,), answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("answer", "missing"), [
    ("You must (1) keep the receipt and (2) return the box within 3 days of purchase.", "3"),
    ("Under rule 4(2) you must keep the receipt.", "2, 4"),  # a reference, not an item's number
    ("Refunds are issued within 3 days of purchase (Source: doc-1).", "3"),
    ("Refunds are issued within 30 days of purchase (45 days in May).", "45"),  # no source named
])
def test_a_listed_items_claim_still_has_its_numbers_checked(answer: str, missing: str) -> None:
    example = Example("q1", "How do I get a refund?", (RECEIPT,), answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    [verdict] = result.verdicts
    assert not verdict.supported
    assert verdict.reason is not None and verdict.reason.endswith(f"lacks {missing}")


@pytest.mark.parametrize("question", [
    "Would you like to know how to extend your warranty?",
    "Do you want me to open a repair ticket?",
    "Shall I open a repair ticket for you?",
    "Can I help you with anything else regarding your order?",
    "Is there anything else you would like to know about the warranty?",
    "Let me know if you would like the steps to register your product.",
    "Want me to send you the claim form?",
    "**Would you like me to open a repair ticket?** 🙂",
    "If you'd like, I can open a repair ticket for you.",
    "If you want more details, I’d be happy to walk you through the claim form.",
])
def test_a_question_or_offer_put_to_the_user_is_no_claim(question: str) -> None:
    # The one claim (warranti, last, year and 2) is all in the context: groundedness 1 of 1 claim, where
    # the question counted as a second, unsupported claim made it 0.5 and the answer a hallucination.
    example = Example("q1", "How long is the warranty?", (Context("c1", WARRANTY),),
                      "The warranty lasts 2 years. " + question)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    assert [v.claim.text for v in result.verdicts] == ["The warranty lasts 2 years."]
    assert result.metrics["groundedness"] == 1.0
    assert result.metrics["hallucination_rate"] == 0.0


@pytest.mark.parametrize(("answer", "claims"), [
    ("The warranty lasts 5 years?", ["The warranty lasts 5 years?"]),  # ends in "?", opens as no offer
    ("Would you like it, the warranty lasts 5 years.", ["Would you like it, the warranty lasts 5 years."]),
    ("Let me explain: the warranty lasts 5 years.", ["Let me explain: the warranty lasts 5 years."]),
    ("Do you want to know more? The warranty lasts 5 years.", ["The warranty lasts 5 years."]),
    ("If you want a refund, you can return it within 5 years.",  # the user's option, not an offer
     ["If you want a refund, you can return it within 5 years."]),
    ("If you prefer email, the form is sent within 5 days.",
     ["If you prefer email, the form is sent within 5 days."]),
    # An offer taking a number or a party's doing for granted: a context must hold it.
    ("Would you like to extend your 5-year warranty?", ["Would you like to extend your 5-year warranty?"]),
    ("Want me to transfer you to billing, which handles refunds?",
     ["Want me to transfer you to billing, which handles refunds?"]),
    ("Möchten Sie die Versicherung für 15 € dazubuchen?",
     ["Möchten Sie die Versicherung für 15 € dazubuchen?"]),
])
def test_a_statement_stays_a_claim_beside_or_like_a_question(answer: str, claims: list[str]) -> None:
    assert texts(answer) == claims


def test_a_refusal_with_an_offer_abstains() -> None:
    # "but" sets apart an offer, which asserts nothing: the sentence declines, and the answer with it.
    answer = "I don't know when the store opens, but would you like me to open a support ticket?"
    assert split_claims(answer) == ()
    assert answer_abstains(answer)


# --- answer formats chat models write (a walkthrough's house styles) --------------------------------------

REFUND_POLICY = Context(
    "refund_policy", "Customers may return most items within 30 days of delivery for a full refund. Items "
    "must be unused and in their original packaging. Clearance items are final sale and cannot be returned.")
ROUTER = Context("aurora_x2", "The Aurora X2 router has four Gigabit Ethernet ports. It costs $249.99.")


def verdicts(answer: str, *contexts: Context) -> list[tuple[str, bool]]:
    example = Example("q1", "What is the policy?", contexts or (REFUND_POLICY,), answer)
    [result] = evaluate([example], LexicalJudge(), EvalConfig(bootstrap_samples=0)).results
    return [(verdict.claim.text, verdict.supported) for verdict in result.verdicts]


@pytest.mark.parametrize("cite", ["[1]", "¹", "^1", "【4:0†source】", "<sup>1</sup>"])
def test_a_citation_after_the_full_stop_still_ends_the_sentence(cite: str) -> None:
    # Glued into one claim by the citation after its full stop, a made-up second sentence rode on the first
    # (supported as a whole), and two sentences from two contexts were supported by neither.
    assert verdicts(f"Clearance items are final sale.{cite} Exchanges are always free.{cite}") == [
        (f"Clearance items are final sale.{cite}", True), (f"Exchanges are always free.{cite}", False)]
    assert verdicts(f"Clearance items are final sale.{cite} The Aurora X2 router has four Gigabit Ethernet "
                    f"ports.{cite}", REFUND_POLICY, ROUTER) == [
        (f"Clearance items are final sale.{cite}", True),
        (f"The Aurora X2 router has four Gigabit Ethernet ports.{cite}", True)]


@pytest.mark.parametrize("answer", [
    "Clearance items are final sale. (Source: Refund Policy) Electronics carry a 15% restocking fee.",
    "Clearance items are final sale. [Source: Refund Policy] Electronics carry a 15% restocking fee.",
    "Clearance items are final sale.\nSources: refund policy. Electronics carry a 15% restocking fee.",
    "Clearance items are final sale.\nSources:\n- refund policy\nElectronics carry a 15% restocking fee.",
    # A list item or a table row over a "---" is no title.
    "- Clearance items are final sale\n- Electronics carry a 15% restocking fee\n---",
    "| Clearance items | final sale |\n| Electronics carry a 15% restocking fee | yes |\n---",
])
def test_what_follows_a_note_of_sources_or_stands_over_a_rule_is_still_checked(answer: str) -> None:
    # Each had dropped the made-up 15% sentence: judged the whole answer scored 1.0.
    found = verdicts(answer)
    assert [supported for _, supported in found] == [True, False]
    assert "15%" in found[1][0]


def test_a_lead_in_stating_a_number_is_checked_and_one_counting_its_items_is_not() -> None:
    assert verdicts("The following items carry a 25% restocking fee:\n- Clearance items") == [
        ("The following items carry a 25% restocking fee:", False), ("Clearance items", True)]
    assert verdicts("Here are the 2 rules:\n- Items must be unused\n- Clearance items are final sale") == [
        ("Items must be unused", True), ("Clearance items are final sale", True)]


@pytest.mark.parametrize("lead_in", ["Return items within 9 days to:", "Drop items off before 2 p.m. at:"])
def test_a_lead_in_whose_number_has_a_unit_is_checked_whatever_the_number(lead_in: str) -> None:
    # 9 and 2 could count items, but a number with a unit counts nothing: dropped as lead-ins, the made-up
    # 9 days (the page says 30) and 2 p.m. went unchecked.
    assert verdicts(f"{lead_in}\n- Clearance items") == [(lead_in, False), ("Clearance items", True)]


GIFT_CARDS = Context("returns", "Gift cards and clearance items cannot be returned. Electronics can be "
                     "returned within 14 days.")


@pytest.mark.parametrize("lead_in", [
    "The following items can be returned for a full cash refund:",
    "Members get a full cash refund in these 2 cases:",
    "Clearance items ship free with a prepaid label:",
    "Estos artículos tienen devolución gratuita:",
    "Ces articles sont remboursés intégralement :",
    "Diese Artikel können Sie kostenlos zurückschicken:",
    "会员可享受以下2项免费服务：",
])
def test_a_lead_in_stating_a_value_is_checked(lead_in: str) -> None:
    # Each says what its items are worth, which the page does not: dropped as a lead-in, the item under it
    # passed on its own words, and the answer scored 1.0.
    assert verdicts(f"{lead_in}\n- Clearance items", GIFT_CARDS) == [
        (lead_in, False), ("Clearance items", True)]


@pytest.mark.parametrize("lead_in", [
    "Here's what I found:", "Documents required:", "Here's when free cancellation ends:",
    "What you'd get back if approved:", "Here is how to get a full refund:"])
def test_a_lead_in_naming_what_follows_is_no_claim_with_a_value_or_without(lead_in: str) -> None:
    assert verdicts(f"{lead_in}\n- Clearance items") == [("Clearance items", True)]


@pytest.mark.parametrize("lead_in", ["Excluded from coverage:", "Included:"])
def test_a_bare_label_a_value_opens_is_a_lead_in(lead_in: str) -> None:
    # No subject, at most three words: a label of the items under it. Read as a claim, its words no page
    # holds were flagged (a review).
    assert verdicts(f"{lead_in}\n- Clearance items", GIFT_CARDS) == [("Clearance items", True)]


def test_a_label_saying_of_what_its_value_holds_is_checked() -> None:
    assert verdicts("Included with every room:\n- Clearance items", GIFT_CARDS) == [
        ("Included with every room:", False), ("Clearance items", True)]


@pytest.mark.parametrize("answer", [
    "**Step 1:** Return most items within 30 days of delivery.\n**Step 2:** Items must be unused.",
    "**1.** Return most items within 30 days of delivery.\n**2.** Items must be unused.",
    "1\ufe0f\u20e3 Return most items within 30 days of delivery.\n2\ufe0f\u20e3 Items must be unused.",
    "i. Return most items within 30 days of delivery.\nii. Items must be unused.",
    "📦 Return most items within 30 days of delivery.\n✅ Items must be unused.",
])
def test_bold_keycap_roman_and_emoji_markers_are_no_part_of_the_claim(answer: str) -> None:
    # Each marker's number (1, 2) had to be in the context, or its emoji counted as a word it lacks.
    assert [supported for _, supported in verdicts(answer)] == [True, True]


@pytest.mark.parametrize(("answer", "claim"), [
    ("Okay, the user asks about clearance items. Let me check.\n</think>\n\nClearance items are final sale.",
     "Clearance items are final sale."),
    ("**Return Window**\nClearance items are final sale.", "Clearance items are final sale."),
    ("<answer>\nClearance items are final sale.\n</answer>", "Clearance items are final sale."),
    ("See the [refund policy](https://shop.example.com/help/refund-policy): clearance items are final sale.",
     "See the [refund policy](https://shop.example.com/help/refund-policy): clearance items are final sale."),
])
def test_thinking_without_its_opening_tag_titles_tags_and_link_addresses_are_no_claims(answer: str,
                                                                                       claim: str) -> None:
    # DeepSeek-R1's reply opens inside "<think>" (its template puts it in the prompt); a bold title and a
    # line of tags had been unsupported claims; a link's address gave "https", "shop", "com" as words the
    # context must hold (4 of 11 terms), its text none.
    assert verdicts(answer) == [(claim, True)]


def test_a_bold_line_that_is_a_sentence_is_a_claim() -> None:
    assert verdicts("**Exchanges are always free**") == [("**Exchanges are always free**", False)]


@pytest.mark.parametrize(("answer", "supported"), [
    ("Gift cards are non\u2011refundable.", False),  # the non-breaking hyphen chat models write: "non-"
    ("Acme reported revenue of $310M in 2023.", True),  # after a currency sign, M is millions
    ("Globex reported revenue of $1.5B in 2023.", False),  # 1.5 billion: not in the context
])
def test_hyphens_and_money_written_as_chat_models_write_them(answer: str, supported: bool) -> None:
    contexts = (Context("gift", "Gift cards are refundable within 14 days."),
                Context("acme", "Acme reported revenue of $310 million in 2023. Globex made $1.5 million."))
    assert [ok for _, ok in verdicts(answer, *contexts)] == [supported]


@pytest.mark.parametrize("answer", [
    "The refund policy doesn't mention gift cards.",
    "I don't see any information about gift cards in the documents provided.",
])
def test_saying_a_source_is_silent_is_an_abstention(answer: str) -> None:
    # The first had been judged as a fact: unsupported when true, and "The refund policy doesn't mention
    # clearance items." (false: it does) supported on its words.
    assert split_claims(answer) == ()
    assert answer_abstains(answer)


@pytest.mark.parametrize(("answer", "expected"), [
    # Chinese and Japanese end a sentence with a full-width mark and no space after it.
    ("退款在交货后30天内受理。我们提供礼品包装！需要收据吗？",
     ["退款在交货后30天内受理。", "我们提供礼品包装！", "需要收据吗？"]),
    # A closing quotation mark and a citation stay with the sentence they close.
    ("他说「可以退款。」运费由买家承担。[1]标准运输需要5个工作日。",
     ["他说「可以退款。」", "运费由买家承担。[1]", "标准运输需要5个工作日。"]),
    # The half-width stop; a decimal point between digits ends nothing.
    ("返金は配達後30日以内です｡費用は3.5ドルです。", ["返金は配達後30日以内です｡", "費用は3.5ドルです。"]),
    # "、" and "，" are commas.
    ("退款、换货，均需收据。", ["退款、换货，均需收据。"]),
])
def test_chinese_and_japanese_sentences_end_at_their_full_stops(answer: str, expected: list[str]) -> None:
    assert texts(answer) == expected
    assert_offsets(answer)


@pytest.mark.parametrize(("answer", "expected"), [
    # List markers with no space after them are no part of the claim (their numbers no quantity).
    ("①登录密码需包含至少8个字符；\n②每90天更换一次。", ["登录密码需包含至少8个字符；", "每90天更换一次。"]),
    ("1、登录账户。\n2、点击退款。", ["登录账户。", "点击退款。"]),
    ("１．登录账户。", ["登录账户。"]),
    ("（一）登录账户。", ["登录账户。"]),
    ("第一步：登录账户。第二步：点击退款。", ["登录账户。", "点击退款。"]),
    ("步骤2：点击退款。", ["点击退款。"]),
    ("ステップ1：ログインします。", ["ログインします。"]),
    # A decimal is no marker: "3.5" stays in its sentence.
    ("3.5公斤以内免运费。", ["3.5公斤以内免运费。"]),
    # A section's title is a heading; a sentence after an enumerator is not a title.
    ("一、退款政策\n退款在交货后30天内受理。", ["退款在交货后30天内受理。"]),
    ("一、退款政策\n退款在交货后30天内受理。\n二、换货政策\n换货免费。",
     ["退款在交货后30天内受理。", "换货免费。"]),
    # A list's items written without "。" (over the next item, or the last line) are claims, not titles.
    ("根据资料：\n一、签收后30天内可申请退货\n二、签收后60天内可申请退货",
     ["签收后30天内可申请退货", "签收后60天内可申请退货"]),
    ("一、すべての注文は送料無料\n二、返金は5営業日以内に行われます。",
     ["すべての注文は送料無料", "返金は5営業日以内に行われます。"]),
    # Sources: a heading and its entries, a note after the full stop, a note line.
    ("退款在交货后30天内受理【1】。\n\n参考资料：\n[1] 退款政策.pdf", ["退款在交货后30天内受理【1】。"]),
    ("运费由买家承担。（来源：文档1）标准运输需要5个工作日。",
     ["运费由买家承担。", "标准运输需要5个工作日。"]),
    ("返品は30日以内です。\n出典：refund_policy_v2.pdf", ["返品は30日以内です。"]),
    # A lead-in ending in a full-width colon introduces the list and asserts nothing.
    ("退货条件如下：\n- 商品未使用。", ["商品未使用。"]),
    ("返品については以下の通りです：\n- 未使用であること。", ["未使用であること。"]),
    # Filler, in Chinese and Japanese, is no claim.
    ("您好！订单满99元免运费。希望对您有帮助！如有其他问题，请随时联系我们。", ["订单满99元免运费。"]),
    ("ご質問ありがとうございます。返金は30日以内です。ご不明な点がございましたら、お気軽にお問い合わせください。",
     ["返金は30日以内です。"]),
    # A quotation the sentence goes on after is no end of it.
    ("ガイドには「5,000円以上は送料無料となります。」と記載されています。",
     ["ガイドには「5,000円以上は送料無料となります。」と記載されています。"]),
])
def test_chinese_and_japanese_answer_formats(answer: str, expected: list[str]) -> None:
    assert texts(answer) == expected
    assert_offsets(answer)


def test_a_section_title_on_a_chinese_answers_last_line_is_no_item() -> None:
    # After a line of text, not an item, "三、其他说明" titles a section: read as an item, it was flagged (a
    # review). After an item it is the list's last one.
    assert texts("签收后30天内可申请退货。\n\n三、其他说明") == ["签收后30天内可申请退货。"]
    assert texts("二、签收后30天内可申请退货\n三、其他说明") == ["签收后30天内可申请退货", "其他说明"]


def test_a_made_up_item_of_a_chinese_list_without_full_stops_is_checked() -> None:
    # Read as section titles, both items were skipped and the made-up 60 days never checked.
    page = Context("returns", "商品签收后30天内可申请退货。")
    assert verdicts("一、签收后30天内可申请退货\n二、签收后60天内可申请退货", page) == [
        ("签收后30天内可申请退货", True), ("签收后60天内可申请退货", False)]


def test_a_chinese_attribution_opening_a_claim_is_not_checked() -> None:
    # 根据您提供的信息，订单满99元免运费。: the attribution's 7 pairs (根据 据您 您提 提供 供的 的信 信息)
    # and the fact's 5 (订单 单满 | 元免 免运 运费): 5/12 = 0.42 against a context holding only the fact,
    # were it read.
    claim = "根据您提供的信息，订单满99元免运费。"
    assert texts(claim) == [claim]
    context = Context("c1", "订单满99元免运费。")
    result = evaluate([Example("q1", "运费？", (context,), claim)], LexicalJudge(),
                      EvalConfig(bootstrap_samples=0)).results[0]
    assert result.metrics["groundedness"] == 1.0


def test_a_closing_block_naming_the_sources_of_cited_marks_is_no_claim() -> None:
    # "[2] doc-7" read as a claim lacked 7: a grounded answer's score halved by its own footnotes.
    answer = ("Clearance items are final sale [1]. Electronics carry a 15% restocking fee [2].\n\n"
              "[1] Refund Policy\n[2] doc-7")
    assert [text for text, _ in verdicts(answer)] == ["Clearance items are final sale [1].",
                                                      "Electronics carry a 15% restocking fee [2]."]
    # Marks never cited before, lines opening with their mark, or a sentence after one, are claims.
    assert len(verdicts("Clearance items are final sale [1].\n\n[1] Electronics are final sale too.")) == 2
    assert len(verdicts("Clearance items are final sale [1].\n\n[1] Electronics are final sale too")) == 2
    assert len(verdicts("Clearance items are final sale.\n\n[1] Electronics are final sale too")) == 2
    assert len(verdicts("[1] Clearance items are final sale.\n[1] Electronics are final sale.")) == 2


def test_documents_that_only_mention_something_are_an_attribution() -> None:
    # Read whole: provid, document, mention, discount, ¬profit (nonprofits), annual, plan and the 25, of
    # which the context holds ¬profit, annual, plan and 25: 4 of 8, 0.5. Without the attribution: 4 of 5.
    context = Context("c1", "Nonprofits get 25% off any annual plan.")
    claim = ("The provided documents only mention a discount for nonprofits, which get 25% off any annual "
             "plan.")
    assert verdicts(claim, context) == [(claim, True)]


@pytest.mark.parametrize(("claim", "context"), [
    # Read whole, the first two fell short: 3 of 6 terms (pleas, keep, mind) and 2 of 4 (bear, mind).
    ("Please keep in mind that refunds take 30 days.", "Refunds take 30 days."),
    ("Bear in mind that exchanges are free.", "Exchanges are free."),
    # "Ten" opens "Ten en cuenta" ("keep in mind"): read as a number, it made the claim state a 10 that
    # no context holds.
    ("Ten en cuenta que se aplica un suplemento de 12 € al día.", "Se aplica un suplemento de 12 € al día."),
])
def test_a_request_to_take_note_is_no_part_of_the_claim(claim: str, context: str) -> None:
    assert verdicts(claim, Context("c1", context)) == [(claim, True)]
    # What follows it is checked as ever: a made-up number still fails.
    made_up = claim.replace("3", "4").replace("2", "5")
    assert verdicts(made_up, Context("c1", context)) == [(made_up, made_up == claim)]


def test_an_initialism_after_a_prefix_ends_no_sentence() -> None:
    # Cut after "Non-U.S.", the rest was judged alone: half a sentence can be supported by the context.
    text = "Non-U.S. citizens living abroad can apply with a passport instead. The fee is 3%."
    assert [claim.text for claim in split_claims(text)] == [
        "Non-U.S. citizens living abroad can apply with a passport instead.", "The fee is 3%."]
    # Before a word a sentence opens with, the initialism's period ends its sentence too: glued, a made-up
    # fee rode on a supported sentence.
    assert [claim.text for claim in split_claims("We ship to the U.S. The fee is 3%.")] == [
        "We ship to the U.S.", "The fee is 3%."]
    assert len(split_claims("We ship to U.S. Army bases at 9 a.m. daily.")) == 1
    glued = "The plan is available in the U.S. Refunds take 30 days."
    assert [claim.text for claim in split_claims(glued)] == ["The plan is available in the U.S.",
                                                             "Refunds take 30 days."]


@pytest.mark.parametrize(("text", "first"), [
    ("Free express shipping is available for all orders shipped for the U.S. Refunds are instant.",
     "Free express shipping is available for all orders shipped for the U.S."),
    ("Support is offered by the U.S. Refunds are issued as store credit.", "Support is offered by the U.S."),
    ("We only ship to the U.S. and the E.U. Refunds are issued as store credit.",
     "We only ship to the U.S. and the E.U."),
])
def test_a_sentence_after_the_us_ends_it_whatever_word_comes_before_the(text: str, first: str) -> None:
    # Only after a listed preposition ("in", "to", ...) was the cut made: after "for", "by" or "and" the
    # made-up second sentence rode on the supported first as one claim.
    assert [claim.text for claim in split_claims(text)] == [first, text[len(first) + 1:]]


@pytest.mark.parametrize("text", [
    "The U.S. plan costs $10.",
    "The U.S. Army is large.",
    "The framers of the U.S. Constitution wanted a republic.",
    "Staff of the U.S. Food and Drug Administration approved it.",
    "The book by J.K. Rowling sold well.",
])
def test_a_name_going_on_after_an_initialism_stays_one_sentence(text: str) -> None:
    assert [claim.text for claim in split_claims(text)] == [text]


@pytest.mark.parametrize("text", [
    "The U.S. Healthcare system costs 4 trillion dollars.",
    "The U.S. Marshals service handles 5 cases.",
    "In the U.S. Healthcare costs rose 5 percent.",
    "Per the U.S. Code section 5 applies.",
    "The history of the U.S. Healthcare system is long.",
])
def test_a_name_after_the_initialism_opening_a_sentence_stays_in_it(text: str) -> None:
    # Cut after "The U.S." (or "In the U.S.", "Per the U.S."), the piece "The U.S." was a claim alone.
    assert [claim.text for claim in split_claims(text)] == [text]


def test_a_made_up_figure_after_the_us_is_no_half_supported_answer() -> None:
    # The page says 3 trillion. Cut in two, "The U.S." was supported by the page naming the country and the
    # made-up figure one unsupported claim of two: groundedness 0.5. Whole, it is the only claim: 0.
    page = Context("c1", "The U.S. Healthcare system costs 3 trillion dollars. Refunds take 14 days.")
    answer = "The U.S. Healthcare system costs 4 trillion dollars."
    result = evaluate([Example("q1", "How much?", (page,), answer)], LexicalJudge()).results[0]
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(answer, False)]
    assert result.metrics["groundedness"] == 0.0


def test_a_made_up_sentence_after_the_us_is_judged_alone() -> None:
    # Glued to "The plan is available in the U.S.", the made-up 30 days had one unsupported claim for the
    # answer: groundedness 0. Alone, it is one of two, the first supported: 1/2.
    page = Context("c1", "The plan is available in the U.S. Refunds take 14 days.")
    result = evaluate([Example("q1", "Where?", (page,), "The plan is available in the U.S. Refunds take 30 "
                                                        "days.")], LexicalJudge()).results[0]
    assert [v.supported for v in result.verdicts] == [True, False]
    assert result.metrics["groundedness"] == 0.5
    assert len(split_claims("Contact the U.S. IT help desk for access.")) == 1  # "IT" is a name here


@pytest.mark.parametrize(("text", "count"), [
    # A policy's abbreviations end no sentence before a number or a lower-case word.
    ("Call the IT Service Desk at ext. 4357 to report it.", 1),
    ("Acupuncture is limited to 12 visits per yr. for each member.", 1),
    ("Up to 40 hrs. of leave a year. The rest is unpaid.", 2),
    # A citation's paragraph: "(sec-4.2, para." and "3)." had been two claims.
    ("Batches count as one request (sec-4.2, para. 3).", 1),
    # Words that end sentences before a count or a list's next marker stay ends.
    ("It spans 20 paras. 10 of them are new.", 2),
    ("1. Set the body text to 11 pt. 2. Click Save to keep the template.", 2),
    ("The bottle holds 75 cl. 12 bottles make a case.", 2),
    ("It is a small sect. 200 members live in the valley.", 2),
    ("1. Remove the cap. 2. Fill the bottle with hot water.", 2),
    ("1. Tighten your abs. 2. Lift your legs.", 2),
    ("Revenue is reported to the CFR. Revenue rose 9%.", 2),
    ("Il libro ha 300 pagg. 5 capitoli sono nuovi.", 2),
    # A citation's page in Spanish and Italian, and "cfr." before an id.
    ("La devolución es gratuita (ver doc-3, pág. 5).", 1),
    ("Il massimale è di 10.000 € (cfr. doc-3, art. 5).", 1),
])
def test_policy_abbreviations_end_no_sentence(text: str, count: int) -> None:
    assert len(split_claims(text)) == count


@pytest.mark.parametrize("answer", [
    # A quotation or a parenthesis closed after its own full stop, or an ellipsis, and the sentence goes on
    # in small letters: each had been cut in two, "and the clerk agrees." a claim of its own.
    'The sign reads "No refunds." and the clerk agrees.',
    'He asked "Can I return it?" and the clerk said yes.',
    "The restocking fee (15% of the price.) is charged on opened items.",
    "Items such as shoes... are returnable within 30 days.",
    "Items such as shoes… are returnable within 30 days.",
])
def test_a_mark_closing_a_quote_or_an_ellipsis_before_a_small_letter_ends_no_sentence(answer: str) -> None:
    assert texts(answer) == [answer]
    assert_offsets(answer)


def test_a_mark_closing_a_quote_or_an_ellipsis_before_a_capital_still_ends_the_sentence() -> None:
    answer = 'The sign reads "No refunds." The clerk agrees... Gift cards are final.'
    assert texts(answer) == ['The sign reads "No refunds."', "The clerk agrees...", "Gift cards are final."]
    # A Chinese full stop before a small letter still ends one ("iPhone" opens the second).
    assert texts("退款需要5天。iPhone的维修需要10天。") == ["退款需要5天。", "iPhone的维修需要10天。"]


@pytest.mark.parametrize(("answer", "sentences"), [
    # A capitalised word after "a.m." or "p.m." opens a sentence: only a function word had, and the made-up
    # "Staff leave later." rode on a true sentence about the hours.
    ("The store closes at 5 p.m. Staff leave later.", ["The store closes at 5 p.m.", "Staff leave later."]),
    ("Doors open at 9 a.m. Parking is free.", ["Doors open at 9 a.m.", "Parking is free."]),
    # A day, a time zone, a month or a name in capitals goes on with the time.
    ("The store is open until 5 p.m. Monday through Friday.",
     ["The store is open until 5 p.m. Monday through Friday."]),
    ("Support is available from 9 a.m. Pacific.", ["Support is available from 9 a.m. Pacific."]),
    ("Doors open at 10 a.m. EST on weekdays.", ["Doors open at 10 a.m. EST on weekdays."]),
    # A time zone in capitals ends a sentence, "EST." as "PST." does: read as "est." (estimated), it had
    # joined the made-up second sentence to the first.
    ("Support is available 9 AM-5 PM EST. Refunds take 5 days.",
     ["Support is available 9 AM-5 PM EST.", "Refunds take 5 days."]),
    ("The office opened in 1990, est. by the founders.",
     ["The office opened in 1990, est. by the founders."]),
], ids=["staff", "parking", "weekday", "time-zone", "capitals", "est-zone", "est-abbreviation"])
def test_a_capitalised_word_after_a_time_of_day_opens_a_sentence(answer: str, sentences: list[str]) -> None:
    assert [answer[start:end] for start, end in sentence_spans(answer)] == sentences


@pytest.mark.parametrize(("answer", "sentences"), [
    # Cut after "in." and "mo.", each claim had been two.
    ("The tablet is 12 in. wide. The screen is glossy.",
     ["The tablet is 12 in. wide.", "The screen is glossy."]),
    ("Pay $4.99/mo. or $49.99/yr. Both renew automatically.",
     ["Pay $4.99/mo. or $49.99/yr.", "Both renew automatically."]),
    # Not after a word: "in." ends a sentence there, and before a list's next number.
    ("Log in. 2. Click Save.", ["Log in.", "Click Save."]),
])
def test_inches_and_a_rates_period_end_no_sentence(answer: str, sentences: list[str]) -> None:
    assert texts(answer) == sentences


@pytest.mark.parametrize(("answer", "sentences"), [
    # A sentence in bold or italics, as chat models open a paragraph with its point, ends at its mark: the
    # next sentence had been read with it, one claim, a made-up one riding on a true one.
    ("**Clearance items are final sale.** Refunds take 90 days.",
     ["**Clearance items are final sale.**", "Refunds take 90 days."]),
    ("Gift cards are *not refundable.* Exchanges are free.",
     ["Gift cards are *not refundable.*", "Exchanges are free."]),
    # A lead-in in bold of fewer than three terms and no number is read with the next sentence: cut off,
    # "**Good news.**" was a claim no page holds (a review found such lead-ins flagged).
    ("**Good news.** Your plan covers two repairs a year.",
     ["**Good news.** Your plan covers two repairs a year."]),
    ("__Short answer: yes, all six.__ The plan allows six members.",
     ["__Short answer: yes, all six.__", "The plan allows six members."]),
    # Short, but a value, a negation or "only": a verdict of its own, not a lead-in. Read with the
    # supported sentence after it, each made-up verdict passed on that sentence's words.
    ("**Free pickup.** Your plan covers two repairs a year.",
     ["**Free pickup.**", "Your plan covers two repairs a year."]),
    ("**No fees.** Your plan covers two repairs a year.",
     ["**No fees.**", "Your plan covers two repairs a year."]),
    ("**Store credit only.** Your plan covers two repairs a year.",
     ["**Store credit only.**", "Your plan covers two repairs a year."]),
    ("**Not allowed.** Your plan covers two repairs a year.",
     ["**Not allowed.**", "Your plan covers two repairs a year."]),
    # A question, or a negation, "only" or "full" said of filler, still leads in: cut off, each was flagged
    # (a review).
    ("**No worries.** Your plan covers two repairs a year.",
     ["**No worries.** Your plan covers two repairs a year."]),
    ("**Not yet sure?** Your plan covers two repairs a year.",
     ["**Not yet sure?** Your plan covers two repairs a year."]),
    ("**Full details.** Your plan covers two repairs a year.",
     ["**Full details.** Your plan covers two repairs a year."]),
    ("**Only partly.** Your plan covers two repairs a year.",
     ["**Only partly.** Your plan covers two repairs a year."]),
    # An abbreviation in bold still ends none.
    ("Ask **Dr.** Smith about the **Model No.** 5 unit. It ships today.",
     ["Ask **Dr.** Smith about the **Model No.** 5 unit.", "It ships today."]),
])
def test_a_sentence_in_bold_or_italics_ends_at_its_mark(answer: str, sentences: list[str]) -> None:
    assert texts(answer) == sentences


@pytest.mark.parametrize(("answer", "sentences"), [
    # A code after "No." of a thing numbered so: cut after "no.", the code and the rest were a claim alone.
    ("The Model no. XR-200 ships today. It is blue.", ["The Model no. XR-200 ships today.", "It is blue."]),
    ("Order No. A1234 is late.", ["Order No. A1234 is late."]),
    # After another word "No." ends a sentence, a code opening the next (the question and "No." no claims).
    ("Is it free? No. X2 costs more.", ["X2 costs more."]),
    # A street's "St." and a department's "dept." end a sentence before a capital: the two had been one
    # claim. A saint's goes on, as "Dept." before a small word does.
    ("Visit 123 Main St. Refunds take 5 days.", ["Visit 123 Main St.", "Refunds take 5 days."]),
    ("We ship from 5th St. It is fast.", ["We ship from 5th St.", "It is fast."]),
    ("Ask the billing dept. Refunds are instant.", ["Ask the billing dept.", "Refunds are instant."]),
    ("Visit St. Louis today. Welcome to St. Louis.", ["Visit St. Louis today.", "Welcome to St. Louis."]),
    ("Dept. of Labor rules apply.", ["Dept. of Labor rules apply."]),
    # After a capital "St." is a saint's, and "Dept." a department's name going on (a review found these
    # cut when a capitalised word before them was taken for a street's).
    ("The eruption of Mount St. Helens happened in 1980.",
     ["The eruption of Mount St. Helens happened in 1980."]),
    ("Email the Billing Dept. Team Lead, who approves refunds.",
     ["Email the Billing Dept. Team Lead, who approves refunds."]),
])
def test_a_numbered_things_code_a_street_and_a_department_are_read_where_they_end(
        answer: str, sentences: list[str]) -> None:
    assert texts(answer) == sentences


@pytest.mark.parametrize("answer", [
    "Refunds take 30 days.<br>Exchanges are free.",
    "Refunds take 30 days.<br/>Exchanges are free.",
    "Refunds take 30 days. <BR /> Exchanges are free.",
])
def test_an_html_line_break_between_sentences_ends_one(answer: str) -> None:
    # Answers written for a web chat widget: read as no space, the tag glued the made-up second sentence
    # onto the supported first.
    assert texts(answer) == ["Refunds take 30 days.", "Exchanges are free."]
    assert_offsets(answer)


def test_an_html_line_break_inside_a_sentence_is_a_soft_wrap() -> None:
    # As a newline is: the line goes on in small letters, so the sentence does.
    answer = "Refunds take 30 days<br>and exchanges are free."
    assert texts(answer) == [answer]
    # A list of items, each on its line: each its own claim, markers off.
    assert texts("- Refunds take 30 days.<br>- Exchanges are free.") == [
        "Refunds take 30 days.", "Exchanges are free."]


def test_a_roman_heading_with_its_body_between_is_an_items_number() -> None:
    # Section headings, each with a line of body: "V." had no item on the lines next to it, so it stayed in
    # its claim, "v" a term the context must hold. Offsets: "IV. " 0-4, "Refunds" 4-11, the body 12-33;
    # "V. " 35-38, "Exchanges" 38-47, its body 48-67.
    answer = "IV. Refunds\nRefunds take 30 days.\n\nV. Exchanges\nExchanges are free.\n"
    assert [(c.text, c.start, c.end) for c in split_claims(answer)] == [
        ("Refunds", 4, 11), ("Refunds take 30 days.", 12, 33), ("Exchanges", 38, 47),
        ("Exchanges are free.", 48, 67)]
