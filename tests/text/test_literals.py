"""Literals: names written as code, snake_case names and dotted versions and addresses must be in the
context as written. The cases are the technical-docs walkthrough's (tests/judges/corpora/
english_technical.jsonl): made-up names built from the documentation's own words had passed."""

from __future__ import annotations

import random

import pytest
from lexical_verdict import verdict

from ragmon.text import literals
from ragmon.text.terms import prepare


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    # Every word is the context's (deploy, confirm, prompt...): 5 of 7 terms, 0.71 >= 0.56, so it passed.
    ("Set `NIMBUS_DEPLOY_CONFIRM=false` to skip the confirmation prompt on deploy.",
     "`nimbus deploy --force` skips the confirmation prompt.", "nimbus_deploy_confirm"),
    # The same without backticks: a snake_case name is a name anywhere.
    ("Set NIMBUS_DEPLOY_CONFIRM to skip the confirmation prompt on deploy.",
     "`nimbus deploy --force` skips the confirmation prompt on deploy.", "nimbus_deploy_confirm"),
    ("Fetch line items with `GET /v1/orders/{id}/line_items`.",
     "`GET /v1/orders/{id}` returns the order; an order holds at most 250 line items.",
     "/v1/orders/{…}/line_items"),
    ("The SDK provides an `autoPagingIter()` helper for list endpoints.",
     "The SDK provides an `auto_paging_iter()` helper for list endpoints.", "autopagingiter"),
    # A flag is not the start of a longer one.
    ("Use `--force` to skip the prompt.", "Use `--force-delete` to skip the prompt.", "--force"),
    # Read as numbers, 2.3.5 was {2.3, 5}: 2.3 from "v2.3.1" and the 5 of "5 failures".
    ("The leak was fixed in v2.3.5.", "The leak was fixed in v2.3.1; the probe fails after 5 failures.",
     "2.3.5"),
    # {10.0, 0.0, 16}: every piece somewhere in the context.
    ("A typical policy allows egress to 10.0.0.0/16.",
     "A typical policy allows egress to 10.0.0.0/8 and you can register up to 16 endpoints.", "10.0.0.0/16"),
    ("The fix shipped in 2.3.1.", "The fix shipped in 12.3.1 and 2.3.10.", "2.3.1"),
])
def test_a_made_up_name_version_or_address_is_unsupported(claim: str, context: str, lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported
    assert reason is not None and reason.endswith(f"lacks {lacks}")


@pytest.mark.parametrize(("claim", "context"), [
    ("Call `client.orders.list()` to page through orders.",
     "Call client.orders.list() to page through orders."),
    # The end of a longer dotted name, a path before more of it, a re-cased header.
    ("Call `orders.list()` to page through orders.", "Call `client.orders.list()` to page through orders."),
    ("`GET /v1/orders` lists orders.", "`GET /v1/orders/{id}` returns one; `GET /v1/orders` lists orders."),
    ("Send the key in the `authorization` header.", "Send the key in the `Authorization` header."),
    ("Egress to 10.0.0.0 is allowed.", "Egress to 10.0.0.0/8 is allowed."),
    ("The fix shipped in 2.3.1.", "The fix shipped in v2.3.1."),
    # Plain words in code are words; versions in code are numbers: neither is asked for as written.
    ("Run `nimbus deploy` to ship it.", "Run nimbus deploy to ship it."),
    ("Python `3.12` is supported.", "Python 3.12 is supported."),
    # The red team's false alarms: a path inside the URL the docs write, a host with its scheme, a template
    # against a concrete id, a call's arguments, a scraped escape, a flag as typography prints it, a
    # hyphenated name, a pre-release, a placeholder in angle brackets.
    ("List orders with `GET /v1/orders`.", "List orders with GET https://api.acme.com/v1/orders."),
    ("The dashboard runs at `http://localhost:3000`.", "The dashboard runs at localhost:3000."),
    ("Fetch one with `GET /v1/orders/:id`.", "Fetch one with `GET /v1/orders/{order_id}`."),
    ("Page with `client.orders.list(limit)`.", "Page with `client.orders.list()`."),
    ("Set `max_retries` to retry.", "Set max\\_retries to retry."),
    ("Use `--dry-run` to preview.", "Use —dry-run to preview."),
    ("Set `max_retries` to retry.", "Set max-retries to retry."),
    ("Install 3.0.0 now.", "Install 3.0.0rc1 now."),
    ("Restart it with `kubectl rollout restart deployment/<name>`.",
     "Restart it with kubectl rollout restart deployment/nimbus-gateway."),
    ("Send `{\"enabled\": true}` to switch it on.", "Send enabled true to switch it on."),
])
def test_a_name_the_context_writes_is_supported(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_prose_has_no_literals() -> None:
    # What most claims are: no backtick, no underscore, no dotted version; the judge asks nothing more.
    low = prepare("Refunds take 5-7 business days. Store credit is issued in 3.5 days.")
    assert literals.read(low) == frozenset()
    assert not literals.worth_asking(prepare("Refunds take 5 business days."), has_digits=True)


@pytest.mark.parametrize(("claim", "context"), [
    # Placeholders of other names and forms, a concrete id, a directory before its file, a trailing slash,
    # a sigil, a glob, JSON: the red team's other false alarms.
    ("Retrieve an order with `GET /v1/orders/{id}`.", "Retrieve an order with GET /v1/orders/:id."),
    ("Retrieve an order with `GET /v1/orders/{order_id}`.",
     "Retrieve an order with GET /v1/orders/<order_id>."),
    ("List sessions with `GET /api/v2/users/{userId}/sessions`.",
     "List sessions with GET /api/v2/users/{user_id}/sessions."),
    ("Logs are written under `/var/log/nimbus/`.", "Logs are written under /var/log/nimbus/agent.log."),
    ("Static files are served from `/static/`.", "Static files are served from /static."),
    ("The app reads `$DATABASE_URL` when it starts.", "The app reads DATABASE_URL when it starts."),
    ("Nimbus ignores `*.log` files.", "Nimbus ignores .log files."),
    ("React with :white_check_mark: to approve it.", "React with a check mark to approve it."),
])
def test_a_name_in_another_legitimate_form_is_supported(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


@pytest.mark.parametrize(("claim", "context"), [
    # The second red team's: an Express path's ":id", a query parameter's "?".
    ("List invoices with `GET /v1/customers/:id/invoices`.",
     "List invoices with GET /v1/customers/{id}/invoices."),
    ("Page on with `?starting_after=<id>`.", "Page on with the starting_after parameter."),
])
def test_a_path_parameter_or_query_is_read_as_its_name(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_an_answer_with_a_number_and_no_decimal_point_is_not_read_for_literals() -> None:
    # Two periods and a digit had sent every such answer to `read`, which found nothing in it.
    assert not literals.worth_asking(prepare("The fee is 5 dollars. Refunds take 10 days."), True)
    assert literals.worth_asking(prepare("The leak was fixed in v2.3.5."), True)
    assert literals.worth_asking(prepare("Allow 10.0.0.0/8 in the firewall."), True)


def test_every_text_read_finds_a_literal_in_is_worth_asking() -> None:
    # The gate rests on `read` finding nothing but what a backtick, an underscore or a period before a
    # digit shows: a text of the characters literals are written with, shuffled, keeps it so.
    rng = random.Random(7)
    alphabet = "0123456789...,,-/:v ab`_"
    found = 0
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        if literals.read(text):
            found += 1
            assert literals.worth_asking(text, any(c.isdigit() for c in text)), text
    assert found > 300  # the shuffles hold literals: the check above did run
