"""Numbers as structured pages and API answers write them: a date range "March 1-15", an ISO date in a CSV
row, a default in parentheses, a rate per second. Each verdict below is worked by hand from the rule that
every number a claim states, with its unit and its rate's period, must be the context's."""

from __future__ import annotations

import pytest
from lexical_verdict import verdict

CSV = ("employee_id,name,department,start_date,pto_days\n"
       "1043,James Chen,Engineering,2021-01-11,20\n"
       "1044,Priya Nair,Marketing,2022-09-19,18")


@pytest.mark.parametrize(("claim", "context"), [
    # A sentence copied from the page: the hyphen after the date "March 1" had made the range's end -15,
    # which the page (read as 1, 15 and 2024) does not hold.
    ("The sale runs March 1-15, 2024.", "The sale runs March 1-15, 2024."),
    ("The office is closed December 24-26.", "The office is closed December 24-26."),
    ("The conference runs October 14-16, 2024.", "The conference runs from October 14 to October 16, 2024."),
    # A CSV cell's ISO date: a comma before the year, or a comma and the next cell's digits after the day,
    # had kept it from being read as a date, so the claim's "2022-09-19" (one date) was lacked.
    ("Priya Nair works in Marketing and started on 2022-09-19.", CSV),
    ("James Chen started on January 11, 2021.", CSV),
])
def test_a_date_range_and_a_tables_iso_date_support_the_same_date(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    ("Priya Nair started on 2022-09-18.", CSV, "2022-09-18"),
    ("The sale runs March 1-16, 2024.", "The sale runs March 1-15, 2024.", "16"),
    # A number closing a parenthesis opened before it is a quantity, not a list's "2) return it": the
    # made-up default passed.
    ("Optionally pass `due_days` (defaults to 14) and `currency`.",
     "`due_days` (integer, optional): days until the invoice is due. Defaults to 30. `currency`: ISO code.",
     "14"),
    ("The trial lasts 30 days (or 45) and includes seats.", "The trial lasts 30 days and includes seats.",
     "45"),
    # A rate per second is a rate: against the page's per minute it had passed.
    ("The rate limit is 100 requests per second.", "The rate limit is 100 requests per minute.",
     "100 per second"),
    ("Uploads run at 10 MB/s.", "Uploads run at 10 MB per minute.", "10 mb per second"),
])
def test_a_changed_date_default_or_rate_is_lacked(claim: str, context: str, lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported
    assert reason is not None and reason.endswith(f"lacks {lacks}"), reason


@pytest.mark.parametrize(("claim", "context"), [
    # A list's item numbers stay no quantities, in parentheses or after a word.
    ("You must (1) keep the receipt and (2) return the box.", "Keep the receipt and return the box."),
    ("You must 1) keep the receipt, 2) return the box.", "Keep the receipt and return the box."),
    # A number closing a parenthesis of a pointer or an item is none either: only a setting's or a limit's
    # ("(defaults to 14)", "(or 45)", "(max 50)") is a quantity. A review had found these flagged.
    ("Refunds take 30 days (see section 4) and exchanges are free.",
     "Refunds take 30 days and exchanges are free."),
    ("Return it within 30 days (steps: 1) pack it, 2) print the label).",
     "Return it within 30 days: pack it and print the label."),
    ("Use the toll-free line (press 1) for billing questions.",
     "Use the toll-free line for billing questions."),
    # "every second day" counts days, as "every other day" does: no rate per second.
    ("After the first week, take 2 tablets every second day.",
     "Take 2 tablets a day for a week, then 2 tablets every other day."),
    ("Uploads run at 10 MB per second.", "Uploads run at 10 MB/s."),
])
def test_item_numbers_stay_unread_and_a_rate_per_second_is_one_however_written(claim: str,
                                                                               context: str) -> None:
    assert verdict(claim, context) == (True, None)


CHANGELOG = ("# Changelog\n\n## [3.2.0] - 2024-05-02\n### Added\n- Support for Python 3.12.\n\n"
             "## [3.1.4] - 2024-03-18\n### Fixed\n- Crash on empty config files.")
LAMP = '{"name": "Aurora Desk Lamp", "color_options": ["black", "white", "brass"], "ports": [8080, 8443]}'


@pytest.mark.parametrize(("claim", "context"), [
    # Brackets holding data are read: a changelog heading's version, a JSON list of strings, a JSON key's
    # list. Read as citation marks, their words and numbers had gone, and these were flagged.
    ("Python 3.12 support was added in version 3.2.0, released on 2024-05-02.", CHANGELOG),
    ("The Aurora Desk Lamp comes in black, white and brass.", LAMP),
    ("The lamp listens on ports 8080 and 8443.", LAMP),
    # A citation mark still cites: its number is no quantity the context must hold.
    ("The lamp comes in brass [2].", LAMP),
    ("The lamp comes in brass [1, 3].", LAMP),
    ("The lamp comes in brass [doc-3].", LAMP),
    # Citing a title, a section or a record by number is citing: read as data, each was flagged.
    ('The lamp comes in brass ["Lamp guide", p. 4].', LAMP),
    ("The lamp comes in brass [4.2.1].", LAMP),
    ("The lamp comes in brass [10432, 10433].", LAMP),
    ("The lamp comes in brass ['doc-1', 'doc-2'].", LAMP),
])
def test_brackets_holding_data_are_read_and_citation_marks_are_not(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)
