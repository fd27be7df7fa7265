"""A claim's number with a unit is held to the sentence of the passage closest to the claim: a figure the
page gives for another plan, relative or deadline, with the same unit, is not stated for this one. The
made-up cases are the English walkthroughs' (tests/judges/corpora/), where each passed on the page's own
words and numbers."""

from __future__ import annotations

import pytest
from lexical_verdict import verdict

from ragmon.text.passage_sentences import MOST, sentences
from ragmon.text.units import written

SUPPORT_PLANS = """Support plans

| Plan | Channels | First response (P1) | Hours |
|---|---|---|---|
| Standard | Email | 8 business hours | Mon–Fri, 9:00–18:00 CET |
| Enterprise | Email, phone, Slack | 1 hour | 24/7 |

P1 means production is down or severely degraded."""

DISPUTES = ("You can dispute a charge within 60 days of the statement date on which it first appeared. "
            "Most disputes are resolved within 90 days.")

VESTING = """Company matching contributions vest according to the following schedule:

| Years of vesting service | Vested percentage |
|---|---|
| 1 | 20% |
| 3 | 60% |
| 5 or more | 100% |

You also become 100% vested, regardless of your years of service, if you reach 65 while employed by Acme."""


def test_a_figure_from_another_row_of_a_table_is_unsupported_and_the_reason_quotes_the_row() -> None:
    # The claim's terms are all the page's, and so is its "1 hour" (the Enterprise row's). The row sharing
    # most of its terms (Standard, email, Mon-Fri, with the header's plan, first, response, P1, hours)
    # gives 8 business hours.
    supported, reason = verdict("On the Standard plan, P1 tickets get a first response within 1 hour, by "
                                "email, Mon–Fri, 9:00–18:00 CET.", SUPPORT_PLANS)
    assert not supported
    assert reason is not None and reason.endswith(
        "and its closest sentence gives 8 hours, not 1 hour: "
        "'| Standard | Email | 8 business hours | Mon–Fri, 9:00–18:00 CET |'")


def test_a_figure_from_another_clause_of_prose_that_writes_it_in_a_name_passes_as_the_readme_says() -> None:
    # A known miss (README, honest limitations): in prose the closest sentence's "P1" reads as giving 1, so
    # the Enterprise clause's "1 hour" passes for the Standard plan. Written "P2" it is caught.
    prose = ("On the Standard plan, {} tickets get a first response within 8 hours. On the Enterprise plan, "
             "{} tickets get a first response within 1 hour.")
    claim = "On the Standard plan, {} tickets get a first response within 1 hour."
    assert verdict(claim.format("P1"), prose.format("P1", "P1")) == (True, None)
    supported, reason = verdict(claim.format("P2"), prose.format("P2", "P2"))
    assert not supported
    assert reason is not None and "its closest sentence gives 8 hours, not 1 hour" in reason


@pytest.mark.parametrize("claim", [
    "On the Enterprise plan, P1 tickets get a first response within 1 hour, 24/7.",
    "On the Standard plan, P1 tickets get a first response within 8 business hours.",
    # Both rows in one sentence: each number is in a row as close to the claim as any.
    "Standard gets a first response within 8 business hours and Enterprise within 1 hour.",
])
def test_a_figure_from_its_own_row_is_supported(claim: str) -> None:
    assert verdict(claim, SUPPORT_PLANS) == (True, None)


PLANS = """| Plan | Monthly price | Data | EU roaming |
|---|---|---|---|
| Lite | £8 | 5 GB | Not included |
| Max | £20 | Unlimited | 25 GB per month |"""


def test_a_claim_comparing_two_rows_is_supported() -> None:
    # The Max row shares the most terms (Max, unlimited, month, data and GB with its header), and gives 25
    # GB, not the claim's 5 GB; but the Lite row, which gives 5 GB, names Lite, which the Max row does not.
    assert verdict("Lite is £8 a month with 5 GB of data, while Max is £20 a month with unlimited data.",
                   PLANS) == (True, None)
    supported, reason = verdict("Max is £20 a month with unlimited data and 5 GB per month of EU roaming.",
                                PLANS)
    assert not supported
    assert reason is not None and reason.endswith("gives 25 gb, not 5 gb: '| Max | £20 | Unlimited | 25 GB "
                                                  "per month |'")


DOSES = """| Indication | Single dose | Dosing interval | Maximum in 24 hours |
|---|---|---|---|
| Acute migraine | 40 mg | Repeat once after at least 2 hours if needed | 80 mg |
| Tension-type headache | 20 mg | Every 6 hours as needed | 60 mg |"""


def test_a_row_gives_the_numbers_of_its_header() -> None:
    # The claim's 24 hours is the header's: read alone, the migraine row gives 2 hours and not 24.
    assert verdict("The maximum is 80 mg in 24 hours.", DOSES) == (True, None)


FARES = """| Zones | Adult | Child |
|---|---|---|
| Zone 1 only | £2.40 | £1.20 |
| Zones 1–2 | £3.10 | £1.55 |
| Zones 1–3 | £4.20 | £2.10 |"""


def test_a_claim_listing_rows_is_not_held_to_one_of_them() -> None:
    # The row closest to the claim is Zones 1–2 (zones, child, and the claim's £1.55): it gives £3.10 where
    # the claim's first fare is £1.20, but it gives another of the claim's fares too, so the claim lists
    # rows and is no row's moved number.
    assert verdict("A child single costs £1.20 in Zone 1 only, £1.55 for Zones 1–2 and £2.10 for Zones 1–3.",
                   FARES) == (True, None)


def test_a_list_item_is_read_with_its_caption() -> None:
    # The claim's terms: Pyrexil, plus, dose, mL ("six" is a number word). Alone, "10–12 years: 10 mL"
    # shares one of them (mL), and the closest sentence would be the last (Pyrexil, dose, mL: 3), which
    # gives 5 mL. With their caption the items share 3 too (Pyrexil, plus, mL), and one gives 10 mL.
    leaflet = ("Pyrexil Six Plus, for children aged 6 years and over:\n\n- 6–8 years: 5 mL\n"
               "- 10–12 years: 10 mL\n\nFor younger children, give a 5 mL dose of Pyrexil for Children.")
    assert verdict("The Pyrexil Six Plus dose is 10 mL.", leaflet) == (True, None)


def test_a_figure_from_another_sentence_of_the_same_passage_is_unsupported() -> None:
    supported, reason = verdict("You have 90 days from the statement date on which the charge first "
                                "appeared to file a dispute.", DISPUTES)
    assert not supported
    assert reason is not None and reason.endswith("its closest sentence gives 60 days, not 90 days: "
                                                  f"{DISPUTES.split('. ')[0] + '.'!r}")
    assert verdict("Most disputes are resolved within 90 days.", DISPUTES) == (True, None)


def test_the_closest_row_gives_the_number_with_another_unit_only() -> None:
    # "$40" is the drugs' row's; the specialist's row has a 40 too, but of "40%".
    copays = ("| Service | In-network | Out-of-network |\n|---|---|---|\n"
              "| Specialist visit | $50 copay | 40% coinsurance |\n"
              "| Preferred brand drugs | $40 copay | Not covered |")
    supported, reason = verdict("**Specialist visit:** $40 copay", copays)
    assert not supported
    assert reason is not None and reason.endswith(
        "its closest sentence gives $50, not $40: '| Specialist visit | $50 copay | 40% coinsurance |'")
    assert verdict("**Specialist visit:** $50 copay", copays) == (True, None)


def test_a_table_row_is_read_with_its_header_and_caption() -> None:
    # The claim's terms: years, vesting, service, Acme, matching, contributions. Alone, "| 3 | 60% |"
    # shares none of them, and the closest sentence would be the last (vested, years, service, Acme: 4 of
    # 6; the caption has 3), which gives 100%. With its header and caption the row shares 5.
    claim = "With 3 years of vesting service, you are 60% vested in Acme's matching contributions."
    assert verdict(claim, VESTING) == (True, None)
    assert [s.text for s in sentences(VESTING)][:2] == [
        "Company matching contributions vest according to the following schedule:",
        "| Years of vesting service | Vested percentage |"]


def test_only_numbers_with_units_are_held_to_a_sentence() -> None:
    # "ports" is no unit: a bare number is as often a name or a code ("iPhone 13", "HTTP 404"), which the
    # closest sentence writes beside other codes, so the number rule alone decides. A made-up sentence of
    # this kind still passes (a limit, named in the README).
    context = "The Aero 14 has 4 USB ports. The Aero 16 has 6 USB ports."
    assert verdict("The Aero 14 has 6 USB ports.", context) == (True, None)


def test_a_passage_of_more_sentences_than_the_bound_keeps_the_number_rule_alone() -> None:
    filler = " ".join(f"Item {i} is listed." for i in range(MOST))
    assert verdict("You have 90 days from the statement date on which the charge first appeared to file a "
                   "dispute.", f"{DISPUTES} {filler}") == (True, None)


def test_a_unit_is_written_for_people_in_a_reason() -> None:
    assert [written(49.0, "$"), written(4.0, "%"), written(1.0, "h"), written(30.0, "d"),
            written(3.0, "dose"), written(500.0, "mg"), written(25.0, "°c"), written(0.5, "¢")] == [
        "$49", "4%", "1 hour", "30 days", "3 doses", "500 mg", "25 °c", "0.5¢"]


@pytest.mark.parametrize(("claim", "context"), [
    # The red team's: the sentence giving the claim's number names its subject only as "these", "that",
    # "their", "it" (read with the sentence before, it shares the claim's terms as the general one does).
    ("Electronics can be returned within 15 days of delivery.",
     "Items can be returned within 30 days of delivery for a full refund. Electronics are an exception. "
     "For these, the return window is 15 days."),
    ("Employees with 5 or more years of service accrue 20 days of paid time off per year.",
     "Employees with less than 5 years of service accrue 15 days of paid time off per year. After that, they "
     "accrue 20 days."),
    ("Before March 1, 2024, the monthly account fee was $9.",
     "On March 1, 2024, the monthly account fee rose to $12. Before that, it was $9."),
    # What tells two sentences apart is a bare number ("iPhone 12", "15-inch", "Two-bedroom"): a sentence
    # holding the claim's bare numbers is the closer.
    ("Trading in an iPhone 12 gets you up to $200 off the iPhone 16 Pro.",
     "Trade in an eligible phone and get up to $800 off the iPhone 16 Pro. For an iPhone 12, the trade-in "
     "value is up to $200."),
    ("Two-bedroom apartments rent for $1,900 per month.",
     "One-bedroom apartments rent for $1,450 per month. Two-bedroom units are $1,900."),
    # A Markdown heading names what its section's rows are.
    ("International express shipping costs $39.99.",
     "Shipping rates within the United States:\n\n| Service | Time | Cost |\n|---|---|---|\n"
     "| Express | 2 business days | $14.99 |\n\n## International\n\n| Service | Time | Cost |\n"
     "|---|---|---|\n| Express | 5 business days | $39.99 |"),
])
def test_a_sentence_naming_its_subject_otherwise_still_gives_the_number(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_a_list_caption_does_not_caption_the_table_after_the_list() -> None:
    text = ("Children 6-11 years:\n\n- 5 mL every 4 hours\n\n| Adults | Dose |\n|---|---|\n"
            "| 12 years and over | 10 mL |")
    header = next(sentence for sentence in sentences(text) if sentence.text.startswith("| Adults"))
    assert "children" not in " ".join(header.terms)
