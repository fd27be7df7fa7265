"""Claims of answers in the formats LLMs write (from a user's audit): what a reviewer would mark, no more."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.model import ExampleResult

POLICY = ("Customers can return items within 30 days of delivery. Clearance items are final sale. "
          "The Pro plan costs $40 per month. Exchanges are free of charge.")


def scored(answer: str, page: str = POLICY) -> ExampleResult:
    example = Example(id="q1", question="What is the policy?", contexts=(Context("policy", page),),
                      answer=answer)
    return evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]


def claims(result: ExampleResult) -> list[str]:
    return [verdict.claim.text for verdict in result.verdicts]


@pytest.mark.parametrize(("answer", "expected"), [
    ("El reembolso tarda aprox. 5 a 10 días hábiles. Los cambios son gratuitos.",
     ["El reembolso tarda aprox. 5 a 10 días hábiles.", "Los cambios son gratuitos."]),
    ("El plazo es de 30 días, p. ej. para ropa. Los cambios son gratuitos.",
     ["El plazo es de 30 días, p. ej. para ropa.", "Los cambios son gratuitos."]),
    ("Le remboursement prend env. 5 à 10 jours ouvrés. Les échanges sont gratuits.",
     ["Le remboursement prend env. 5 à 10 jours ouvrés.", "Les échanges sont gratuits."]),
    ("Die Frist beträgt ca. 30 Tage. Die Erstattung erfolgt inkl. Versand bzw. per Gutschrift.",
     ["Die Frist beträgt ca. 30 Tage.", "Die Erstattung erfolgt inkl. Versand bzw. per Gutschrift."]),
    # Before a word too, and a French month's abbreviation: each had cut its sentence in two.
    ("Le remboursement est effectué sous 5 jours, env. une semaine. Les échanges sont gratuits.",
     ["Le remboursement est effectué sous 5 jours, env. une semaine.", "Les échanges sont gratuits."]),
    ("Die Erstattung dauert ca. eine Woche. Der Umtausch ist kostenlos.",
     ["Die Erstattung dauert ca. eine Woche.", "Der Umtausch ist kostenlos."]),
    ("Le tarif augmente le 1er janv. 2025. Les échanges sont gratuits.",
     ["Le tarif augmente le 1er janv. 2025.", "Les échanges sont gratuits."]),
], ids=["aprox", "p-ej", "env", "ca-inkl-bzw", "env-word", "ca-word", "janv"])
def test_european_abbreviations_keep_a_fact_whole(answer: str, expected: list[str]) -> None:
    # "aprox.", "p. ej.", "env.", "ca.", "inkl." and "bzw." end no sentence: cut at them, one fact was two
    # claims ("El reembolso tarda aprox." and "5 a 10 días hábiles."), each quoted so in a report. The
    # answer is its own page: every claim of it is then supported, however it is cut.
    result = scored(answer, page=answer)
    assert claims(result) == expected
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("answer", "page", "expected", "supported"), [
    # Cut after the day as a sentence, the month opened the next as a list item's number and was read as
    # none: "ab 1. 7. 2025" (1 July) was supported by a page's 1 January.
    ("Der neue Tarif gilt ab 1. 7. 2025.", "Der neue Tarif gilt ab 1. 1. 2025.",
     ["Der neue Tarif gilt ab 1. 7. 2025."], False),
    ("Der neue Tarif gilt ab 1.1.2025.", "Der neue Tarif gilt ab 1. 1. 2025.",
     ["Der neue Tarif gilt ab 1.1.2025."], True),
    ("Geschlossen am 3. 5. und am 4. 5.", "Geschlossen am 3. 6. und am 4. 6.",
     ["Geschlossen am 3. 5. und am 4. 5."], False),
    ("Geschlossen am 4. 6. Danach ist offen.", "Geschlossen am 4. 6. Danach ist offen.",
     ["Geschlossen am 4. 6.", "Danach ist offen."], True),
    # Not dates (a second review of rules 34, 35): a number ending a sentence, then an inline step's;
    # a step's number, then a count; a decimal ending a sentence, then a year opening the next.
    ("Set the volume to 10. 2. Press the play button.", "Set the volume to 10. 2. Press the play button.",
     ["Set the volume to 10.", "Press the play button."], True),
    ("The kit holds 10. 2. 25 spare screws are in the box.",
     "The kit holds 10. 2. 25 spare screws are in the box.",
     ["The kit holds 10.", "25 spare screws are in the box."], True),
    ("The ratio was 1.5 on 1 May 2024.", "The ratio was 1.5. 2024 was worse.",
     ["The ratio was 1.5 on 1 May 2024."], False),
], ids=["month-changed", "unspaced-page-spaced", "no-year", "sentence-after", "inline-step",
        "step-then-count", "decimal-then-year"])
def test_a_german_date_written_with_spaces_is_one_date(answer: str, page: str, expected: list[str],
                                                       supported: bool) -> None:
    result = scored(answer, page=page)
    assert claims(result) == expected
    assert result.metrics["groundedness"] == float(supported)


def test_an_abbreviation_of_a_number_still_ends_a_sentence_before_a_word() -> None:
    # "ca." and "env." stand for "about" only before a number: a state's "CA." ends its sentence.
    answer = "We ship from Los Angeles, CA. Exchanges are free of charge."
    assert claims(scored(answer)) == ["We ship from Los Angeles, CA.", "Exchanges are free of charge."]


@pytest.mark.parametrize("sources", [
    "📚 Sources:\n• refunds.md\n• help.md",
    "🔗 **References:**\n- [Refund Policy](https://acme.example/help)\n- help.md",
], ids=["books", "link"])
def test_a_list_of_sources_under_an_emoji_makes_no_claim(sources: str) -> None:
    # Each entry had been a claim no context holds: one grounded sentence scored 1/3.
    result = scored(f"Customers can return items within 30 days of delivery.\n\n{sources}")
    assert claims(result) == ["Customers can return items within 30 days of delivery."]
    assert result.metrics["groundedness"] == 1.0


def test_a_sentence_opening_with_an_emoji_and_sources_is_still_a_claim() -> None:
    assert claims(scored("📚 Sources of refunds are rare. Exchanges are free of charge.")) == [
        "📚 Sources of refunds are rare.", "Exchanges are free of charge."]


def test_a_nested_lists_titles_are_no_claims() -> None:
    # "Returns" and "Pricing" only name the items under them; "Pricing" is no word of the policy, and the
    # title had been an unsupported claim: 3 of 4 claims supported, 0.75, for a grounded answer.
    answer = ("Key points:\n- Returns\n  - Items can be returned within 30 days of delivery.\n"
              "  - Clearance items are final sale.\n- Pricing\n  - The Pro plan costs $40 per month.")
    result = scored(answer)
    assert claims(result) == ["Items can be returned within 30 days of delivery.",
                              "Clearance items are final sale.", "The Pro plan costs $40 per month."]
    assert result.metrics["groundedness"] == 1.0


def test_a_numbered_lists_titles_are_no_claims() -> None:
    answer = "1. Returns\n   - Items can be returned within 30 days of delivery.\n2. Exchanges\n" \
             "   - Exchanges are free of charge."
    assert claims(scored(answer)) == ["Items can be returned within 30 days of delivery.",
                                      "Exchanges are free of charge."]


def test_a_nested_lists_item_that_states_something_is_a_claim() -> None:
    # A made-up statement over its details must still be judged: "Shipping" is no word of the policy, and
    # "worldwide" neither, so 1 of each item's 2 terms is held, under 56%; the exchanges are the policy's.
    answer = "- Shipping is always free\n  - worldwide, within 30 days\n- Exchanges are free of charge"
    result = scored(answer)
    assert claims(result) == ["Shipping is always free", "worldwide, within 30 days",
                              "Exchanges are free of charge"]
    assert [verdict.supported for verdict in result.verdicts] == [False, False, True]


@pytest.mark.parametrize("answer", [
    "**Price:** $40 per month", "Price: $40 per month", "- **Price**: $40 per month",
    "1. __Pricing:__ $40 per month"])
def test_a_fields_label_is_no_term_of_its_value(answer: str) -> None:
    # The page says the plan "costs" $40 per month, never "price": the claim was price and month, one of
    # two terms held (0.5, under 0.56), so a chat answer's field list read as made up. The value alone is
    # month and 40, both on the page.
    result = scored(answer)
    assert [v.supported for v in result.verdicts] == [True]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("answer", "page"), [
    ("**Frist:** 14 Tage", "Die Rückgabe ist 14 Tage lang möglich."),
    ("**Délai :** 14 jours", "Le retour est possible pendant 14 jours."),
], ids=["de", "fr"])
def test_a_fields_label_in_german_or_french_is_no_term(answer: str, page: str) -> None:
    # "Frist" and "Délai" (the deadline) are on neither page: 1 of 2 terms before, 1 of 1 now.
    assert [v.supported for v in scored(answer, page).verdicts] == [True]


@pytest.mark.parametrize("answer", [
    "**Enterprise:** $40 per month",  # a thing named, not a field: enterprise and month, 1 of 2 held
    "**Acme Ultra:** $40 per month",  # a product's name: acme, ultra and month, 1 of 3
    "**Gift cards:** free of charge",  # gift, card, free, charge: 2 of 4
    "**Price:** $45 per month",  # the value is checked as ever: 45 is not on the page
])
def test_a_label_naming_a_thing_or_a_made_up_value_is_still_unsupported(answer: str) -> None:
    assert [v.supported for v in scored(answer).verdicts] == [False]


def test_a_label_alone_with_nothing_to_check_keeps_its_words() -> None:
    # "Yes" is a function word: without the label the claim would hold nothing, and any page support it.
    result = scored("**Answer:** yes")
    assert [v.supported for v in result.verdicts] == [False]
    assert "0/1 of its terms" in (result.verdicts[0].reason or "")


def test_sentence_case_titles_in_bold_are_no_claims() -> None:
    # "Important notes", "Key takeaways" and "Gift cards" are on no page: each was a claim with 0 of 2
    # terms held, so a grounded answer of two facts scored 2 of 5.
    answer = ("**Important notes**\n\nClearance items are final sale.\n\n**Key takeaways**\n"
              "Exchanges are free of charge.\n\n**Gift cards**\n- The Pro plan costs $40 per month.")
    result = scored(answer)
    assert claims(result) == ["Clearance items are final sale.", "Exchanges are free of charge.",
                              "The Pro plan costs $40 per month."]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("answer", "bold"), [
    ("**Refunds take 30 days**\nExchanges are free of charge.", "**Refunds take 30 days**"),
    ("**No refunds**\nExchanges are free of charge.", "**No refunds**"),
    ("**Clearance items are final sale**\nExchanges are free of charge.",
     "**Clearance items are final sale**"),
    ("**礼品卡不可退款**\n换货免费。", "**礼品卡不可退款**"),
], ids=["number", "function-word", "five-words", "chinese"])
def test_a_fact_in_bold_on_its_own_line_is_still_a_claim(answer: str, bold: str) -> None:
    assert claims(scored(answer))[0] == bold


def test_a_bold_line_under_everything_else_is_a_claim() -> None:
    # A title heads something: the last line is the answer's own words.
    assert claims(scored("Exchanges are free of charge.\n\n**Gift cards**")) == [
        "Exchanges are free of charge.", "**Gift cards**"]


@pytest.mark.parametrize("opening", ["Sure! Here's what I found.", "Sure! Here’s what I found.",
                                     "Of course! Here is what I found."])
def test_here_is_what_i_found_is_no_claim(opening: str) -> None:
    # After "Sure!" it is neither the answer's first sentence nor one of its last two, where the wrapper
    # model is asked: it was a claim with 0 of 1 terms ("found") on the page, and the answer scored 3 of 4.
    result = scored(opening + "\n\nExchanges are free of charge. Clearance items are final sale. "
                    "The Pro plan costs $40 per month.")
    assert claims(result) == ["Exchanges are free of charge.", "Clearance items are final sale.",
                              "The Pro plan costs $40 per month."]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize(("answer", "verdict"), [
    ("- 不退款\n  - 换货免费。", "不退款"),  # no refunds: no space counts its words
    ("- Keine Rückerstattung\n  - Exchanges are free of charge.", "Keine Rückerstattung"),
    ("**Sin reembolsos**\nExchanges are free of charge.", "**Sin reembolsos**"),
    ("**No refunds ever**\n- Exchanges are free of charge.", "**No refunds ever**"),
    ("**Refunds unavailable**\n\nExchanges are free of charge.", "**Refunds unavailable**"),
    ("**Returns accepted**\nExchanges are free of charge.", "**Returns accepted**"),
    ("- Clearance items excluded\n  - Exchanges are free of charge.", "Clearance items excluded"),
], ids=["chinese-item", "german-item", "spanish-bold", "negated-bold", "unavailable", "accepted",
        "excluded-item"])
def test_a_short_verdict_over_other_lines_is_still_a_claim(answer: str, verdict: str) -> None:
    # Read as a title (a list item over nested ones, or a bold line in sentence case), each went unchecked:
    # a review found "- 不退款" (no refunds) and "- Keine Rückerstattung" skipped.
    assert claims(scored(answer))[0] == verdict


def test_a_made_up_verdict_in_bold_is_judged() -> None:
    # The page says refunds are available: read as a title, "**Refunds unavailable**" went unchecked and
    # the answer scored 1.0; judged, it is one claim of two unsupported.
    result = scored("**Refunds unavailable**\n\nExchanges are free of charge.",
                    "Refunds are available within 30 days. Exchanges are free of charge.")
    assert [v.supported for v in result.verdicts] == [False, True]
    assert result.metrics["groundedness"] == 0.5


@pytest.mark.parametrize("numbered", ["1. ", "2) ", "A. ", "Step 3. "])
def test_a_numbered_title_in_bold_is_a_title(numbered: str) -> None:
    # How chat models number their sections: cut after the number, "Return window**" was a claim no page
    # holds, and a grounded answer of two facts scored 2 of 4.
    answer = (f"**{numbered}Return window**\nCustomers can return items within 30 days of delivery.\n\n"
              f"**{numbered}Exchange fees**\nExchanges are free of charge.")
    result = scored(answer)
    assert claims(result) == ["Customers can return items within 30 days of delivery.",
                              "Exchanges are free of charge."]
    assert result.metrics["groundedness"] == 1.0


def test_a_numbered_claim_in_bold_is_still_a_claim() -> None:
    # Four words, a verb among them: no title, whatever its number.
    first, second = claims(scored("**1. Clearance items are final sale**\nExchanges are free of charge."))
    assert first.startswith("Clearance items are final sale") and second == "Exchanges are free of charge."


@pytest.mark.parametrize("title", ["Key takeaways", "Refund policy", "Shipping details", "Supported devices",
                                   "Required documents", "Warranty coverage"])
def test_a_title_naming_what_follows_stays_a_title(title: str) -> None:
    # A verdict's word before the noun only says which ones ("Supported devices"): still a title.
    answer = f"**{title}**\n\nExchanges are free of charge."
    assert claims(scored(answer)) == ["Exchanges are free of charge."]


@pytest.mark.parametrize("title", [
    "Your subsidy rate", "The household rule", "How to apply", "What happens now",
    "If service is disconnected", "When could deletion happen?", "Are all hours covered?",
    "Votre remboursement", "Si vous annulez maintenant", "Cómo pedir la baja", "Die Kosten",
    "Plazos de cobro",
])
def test_a_heading_in_bold_as_chat_assistants_write_them_is_a_title(title: str) -> None:
    # A noun phrase of up to three words joined by determiners and prepositions, a short clause opening
    # with a question word or "if", a short question: each titles the paragraph under it. Read as claims, a
    # grounded answer's headings were claims no page holds.
    answer = f"**{title}**\nExchanges are free of charge."
    assert claims(scored(answer)) == ["Exchanges are free of charge."]


@pytest.mark.parametrize("line", [
    "Your refund is on its way",  # an auxiliary: a statement in bold
    "Why the crown isn't covered",  # a negation: the clause says it is not covered
    "Why the crown is not covered",
    "Refunds for your order are final",
    "Votre remboursement est refusé",
    "Die Rückerstattung ist kostenlos",
    # Opening with a noun or an adjective, a word of what holds, a clause after a comma, a figure: facts in
    # bold (an adversarial review of the first version, which took each for a heading).
    "Free returns for members",
    "Lifetime warranty on our products",
    "Garantie à vie sur nos produits",
    "If you cancel, you get a full refund",
    "Why your claim was approved",
    "Did you know we offer free returns?",
    "How we refund you within two days",
    "Who qualifies: all residents over sixty",
    "Come back within a month for a full refund",
    # Sentences in bold of more words than a heading has (a second review of the next version, which read
    # six-word noun phrases and ten-word clauses as headings).
    "Your order ships tomorrow",
    "The warranty covers water damage",
    "Ihr Tarif beinhaltet Roaming",
    "Votre colis arrive demain",
    "If you cancel you lose the discount",
    "Si cancelas pierdes el descuento",
    "Como miembro tienes acceso a la sala VIP",
    "Did you know members get priority boarding?",
    "Why we charge a cleaning fee",
    # A third review: "why" takes for granted what it explains; a noun joined by "on" or "for" says what
    # holds of it.
    "Why members pay less",
    "Pets on board",
    "Refunds for everyone",
    "Warranty for life",
])
def test_a_statement_in_bold_over_a_paragraph_is_still_a_claim(line: str) -> None:
    assert claims(scored(f"**{line}**\nExchanges are free of charge.")) == [
        f"**{line}**", "Exchanges are free of charge."]


NEEDS = "The Pro plan includes 24/7 support and 5 seats. To return an item you need an ID and a receipt."


@pytest.mark.parametrize(("answer", "items"), [
    ("**Documents required**\n1. An ID\n2. A receipt", ["An ID", "A receipt"]),
    ("**Features included**\n- 24/7 support\n- 5 seats", ["24/7 support", "5 seats"]),
    ("Here is what the Pro plan offers.\n\n**Features included**\n\n- 24/7 support\n- 5 seats",
     ["Here is what the Pro plan offers.", "24/7 support", "5 seats"]),
    ("- Features Included\n  - 24/7 support\n  - 5 seats", ["24/7 support", "5 seats"]),
], ids=["numbered", "bulleted", "after-prose", "nested"])
def test_a_verdict_word_over_a_list_titles_it(answer: str, items: list[str]) -> None:
    # Read as a claim, "**Documents required**" was one unsupported claim of three beside two items the page
    # states: a grounded answer scored 2/3. A title over them, the answer is all supported: 1.
    result = scored(answer, NEEDS)
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [(item, True) for item in items]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize("title", ["Refunds unavailable", "Items excluded", "No refunds"])
def test_a_denial_over_a_list_is_still_a_claim(title: str) -> None:
    # The page says nothing of refunds being unavailable: over items it names ("24/7 support", "5 seats"),
    # the made-up denial is the one claim saying what holds of them, one of three unsupported.
    result = scored(f"**{title}**\n- 24/7 support\n- 5 seats", NEEDS)
    assert [(v.claim.text, v.supported) for v in result.verdicts] == [
        (f"**{title}**", False), ("24/7 support", True), ("5 seats", True)]
    assert result.metrics["groundedness"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("line", [
    "Gift Cards Can Be Returned Within 90 Days",  # an auxiliary, a figure
    "Full Refund Within 60 Days",  # a value
    "Lifetime Warranty Included",  # a value, a verdict after its noun
    "No Restocking Fee On Opened Items",  # a negation
    "Free Return Shipping On Every Order",
])
def test_a_statement_in_title_case_bold_is_a_claim(line: str) -> None:
    # Every long word capitalised, each had read as a title whatever it said, over a line or under all of
    # them, and a made-up fact in it went unchecked.
    assert claims(scored(f"**{line}**\nExchanges are free of charge.")) == [
        f"**{line}**", "Exchanges are free of charge."]
    assert claims(scored(f"Exchanges are free of charge.\n\n**{line}**")) == [
        "Exchanges are free of charge.", f"**{line}**"]


@pytest.mark.parametrize("title", ["Return Window", "Plan Comparison", "How Do I Apply", "Supported Devices",
                                   "Dein Einzelticket (38 €)"])
def test_a_title_in_title_case_bold_stays_a_title(title: str) -> None:
    # A question word's clause asks; a verdict before its noun says which ones; a figure in brackets is the
    # value of what it names, as before.
    fact = "Exchanges are free of charge."
    assert claims(scored(f"**{title}**\n{fact}")) == claims(scored(f"{fact}\n\n**{title}**")) == [fact]


def test_a_list_item_stating_a_value_over_nested_items_is_a_claim() -> None:
    answer = "- Free Lifetime Warranty\n  - Exchanges are free of charge."
    assert claims(scored(answer)) == ["Free Lifetime Warranty", "Exchanges are free of charge."]
    assert claims(scored("- Exchange Fees\n  - Exchanges are free of charge.")) == [
        "Exchanges are free of charge."]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Exchanges are free of charge.\nClearance items can be returned within 7 days\n---\nThe Pro plan costs "
     "$40 per month.", ["Exchanges are free of charge.", "Clearance items can be returned within 7 days",
                        "The Pro plan costs $40 per month."]),
    ("Exchange Fees\n---\nExchanges are free of charge.", ["Exchanges are free of charge."]),
    ("| Plan | Price for 2 seats |\n|---|---|\n| Pro | $40 |", ["| Pro | $40 |"]),
], ids=["statement", "title", "header-row"])
def test_a_line_over_a_rule_is_a_title_unless_it_states_what_holds(answer: str, expected: list[str]) -> None:
    assert claims(scored(answer)) == expected


@pytest.mark.parametrize("answer", [
    "**Step 1: Log In**\nExchanges are free of charge.",
    "**Option 1: Cancel Early**\nExchanges are free of charge.",
    "**Day 1**\nExchanges are free of charge.",
    "**Day 1 — Arrival**\nExchanges are free of charge.",
    "**Top 3 Things to Know**\nExchanges are free of charge.",
    "**Who Is Eligible**\nExchanges are free of charge.",
    "**Payment Methods Accepted**\nExchanges are free of charge.",
    "**Services Available On Request**\nExchanges are free of charge.",
    "**Included Amenities**\n- Exchanges are free of charge.",
    "**Items Not Covered**\n- Exchanges are free of charge.",
    "**Things That Can't Be Returned**\n- Exchanges are free of charge.",
    "- **Free Services**\n  - Exchanges are free of charge.",
], ids=["step", "option", "day", "day-dash", "top-3", "who", "accepted", "available", "included",
        "not-covered", "relative", "list-title"])
def test_a_section_title_sorting_or_numbering_what_follows_stays_a_title(answer: str) -> None:
    # A review found each flagged over its section: a step's or day's number, a count, a question word's
    # clause, a relative clause, a plural class sorted by a value or a verdict. "**Step 1: Log In**" had
    # left "Log In**" a claim, read with the line under it.
    assert claims(scored(answer)) == ["Exchanges are free of charge."]


@pytest.mark.parametrize("title", ["Full Refund Within 60 Days", "2-Year Warranty",
                                   "Gift Cards Can Be Returned Within 90 Days", "No Pets",
                                   "Free Cancellation", "What's Not Covered"])
def test_a_title_stating_a_quantity_a_verb_or_one_things_value_stays_a_claim(title: str) -> None:
    # A number with a unit, a verb, a leading negation, a value of one thing (a singular noun), a question
    # word's clause with a negation: each says what holds, over a section or not.
    assert claims(scored(f"**{title}**\nExchanges are free of charge.")) == [
        f"**{title}**", "Exchanges are free of charge."]
    assert claims(scored(f"Exchanges are free of charge.\n\n**{title}**")) == [
        "Exchanges are free of charge.", f"**{title}**"]


def test_a_plural_sorted_by_a_value_is_a_claim_with_nothing_under_it() -> None:
    # Only over its section does "**Included Amenities**" title one.
    assert claims(scored("Exchanges are free of charge.\n\n**Included Amenities**")) == [
        "Exchanges are free of charge.", "**Included Amenities**"]
