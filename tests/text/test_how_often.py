"""A count with the period it is per, what is counted being no unit: "take 2 tablets a week" is not stated
by "take 2 tablets a day", nor "twice a week" by "twice a day". Each expected value is worked by hand from
`ragmon.text.how_often`' rule: where the claim and the context both give a count a period, the claim's
must be among the context's; a count the context gives no period says nothing against it."""

from __future__ import annotations

import pytest
from lexical_verdict import verdict

from ragmon.text.how_often import counts
from ragmon.text.terms import prepare


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    # A dose at another frequency: 3 of the claim's 4 terms held ("week" missing), and its 2 stated; it
    # passed.
    ("Adults take 2 tablets a week.", "Adults take 2 tablets a day with water.", "2 per week"),
    ("You can withdraw cash 3 times a month for free.", "You can withdraw cash 3 times a week for free.",
     "3 per month"),
    ("Water the plant twice a week.", "Water the plant twice a day in summer.", "2 per week"),
    ("Take it once a week.", "Take it once a day with food.", "1 per week"),
    ("Adults take two tablets per week.", "Adults take 2 tablets per day with water.", "2 per week"),
    ("Erwachsene nehmen 2 Tabletten pro Woche.", "Erwachsene nehmen 2 Tabletten pro Tag.", "2 per week"),
    ("Adults take 2 tablets a week.", "Adults take 2 tablets daily with water.", "2 per week"),
    # The claim's period in one word: its count was never read (its terms had no "a day" nor "per week").
    ("Take 2 tablets daily with water.", "Take 2 tablets a week with water.", "2 per day"),
    ("Back up the database 3 times weekly.", "Back up the database 3 times a month.", "3 per week"),
], ids=["digits", "times", "twice", "once", "spelled-and-per", "german", "daily", "claim-daily",
        "claim-weekly"])
def test_a_count_given_per_another_period_is_unsupported(claim: str, context: str, lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported and reason is not None and reason.endswith(f"lacks {lacks}")


@pytest.mark.parametrize(("claim", "context"), [
    ("Adults take 2 tablets a day.", "Adults take 2 tablets a day with water."),
    ("Adults take 2 tablets each day.", "Adults take 2 tablets per day with water."),
    ("Adults take 2 tablets daily.", "Adults take 2 tablets a day with water."),
    # The context gives its 2 no period: nothing said against the claim's (its terms decide, and hold 4 of 5).
    ("Adults take 2 tablets a week with water.", "Adults take 2 tablets with water. Do this 3 times a week."),
    # The context gives its 2 two periods: the claim's is one of them.
    ("Adults take 2 tablets a week.", "Adults take 2 tablets a day, or 2 tablets a week for the slow form."),
    # No count before the period: a duration, not how often.
    ("The refund arrives within a week.", "The refund arrives within a week of the return."),
    # The period in one word ("twice daily"), and the same number counting something else per another
    # period: each was flagged by the rule's first version, which read counts without what they count.
    ("Take the tablet twice a day.", "Take one tablet twice daily with food. See your GP twice a year."),
    ("Adults take 2 tablets a day.", "Adults take 2 tablets daily. Blood tests are needed 2 times a year."),
    ("Adults take 2 tablets a day.", "Adults take 2 tablets every morning. Blood tests: 2 times a year."),
    ("Phase 2 lasts a week.", "Phase 2 lasts one week. Participants attend 2 visits a month."),
    ("Gate 3 opens a day early.", "Gate 3 opens one day early. Shuttles run 3 times a week."),
], ids=["same-period", "same-period-other-words", "claim-daily", "context-gives-none", "context-gives-both",
        "duration", "twice-daily", "daily-beside-other-counts", "every-morning", "phase-label", "gate-label"])
def test_a_count_the_context_gives_that_period_or_none_passes(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


@pytest.mark.parametrize(("text", "read"), [
    ("take 2 tablets a day", {(2.0, "tablet", "/d")}),
    # Occasions count nothing of their own: "3 times" is as "thrice".
    ("3 times per week, twice a month", {(3.0, "", "/w"), (2.0, "", "/mo")}),
    ("once a month or so", {(1.0, "", "/mo")}),
    ("two classes per week", {(2.0, "class", "/w")}),
    ("2 tablets daily with food", {(2.0, "tablet", "/d")}),
    ("pay in 12 monthly payments", set()),
    # What is counted is a unit: `ragmon.text.units` reads those rates, this leaves them.
    ("open 6 days a week, 30 minutes a day", set()),
    # A time, not a rate; an amount; a year after the period; "once" meaning "after".
    ("i bought 2 tablets a week ago", set()),
    ("$5 a month", set()),
    ("5 € im jahr 2024", set()),
    ("once the parcel ships a week passes", set()),
], ids=["dose", "times-and-twice", "or-so", "spelled", "one-word-period", "adjective", "units-left", "ago",
        "amount", "year", "once-as-after"])
def test_counts_read_from_a_prepared_text(text: str, read: set[tuple[float, str, str]]) -> None:
    assert counts(prepare(text)) == read
