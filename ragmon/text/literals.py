"""Literals: what a claim names exactly, so a context must hold it as written, not just its words.

An environment variable, config key, endpoint, flag or method made up from the documentation's own words
(`NIMBUS_DEPLOY_CONFIRM`, `/v1/orders/{id}/line_items`, `autoPagingIter()`) is the commonest made-up
claim in answers about software, and read as words it passed: its words are the documentation's. Nor is a
version, an address or a network one number: read as loose pieces, "v2.3.5" was stated by a changelog
holding 2.3 (of "v2.3.1") and a 5 anywhere else, and "10.0.0.0/16" by "10.0.0.0/8" and a 16. So these are
compared as numbers are, whole: what the answer marks as code, a snake_case name anywhere, and a number of
three or more dotted groups.

Both sides are `prepare`d texts (lower-case: "Authorization" and "authorization" are one header, and a
model re-casing a name is no invention worth an alarm), so a claim and the passage it copies always agree.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"`([^`\n]{1,200})`")
_CODE_TOKEN = re.compile(r"[^\s=:,;\"'<>\[\]`]+")
_CODE_SHAPE = re.compile(r"[_./{}]|^--?[a-z]")
"""A token in code that names something exactly: a snake_case or dotted name, a path or a template, a
flag. Lower-cased first, so camelCase is told by its call: `autoPagingIter()` keeps its "()". Plain words
in code (`nimbus deploy`) are words: the terms check them."""
_VERSION = re.compile(r"v?[0-9][0-9.]*")
"""A version or number in code: `_DOTTED` reads one of three or more groups, the number reader the rest."""
_SNAKE = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w])")
"""A snake_case or SCREAMING_CASE name outside code too ("set NIMBUS_TOKEN"): prose has none."""
_DOTTED = re.compile(r"(?<![0-9.])[0-9]+(?:\.[0-9]+){2,}(?:/[0-9]{1,3})?(?![0-9]|\.[0-9])")
""""2.3.1", "10.0.0.0/8", "127.0.0.1": not "3.5" (a number) nor the date "2024-10-29"."""
_NAME_CHARACTER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_NAME_GOES_ON = _NAME_CHARACTER | {"-"}
"""After a name, what makes it part of a longer one: `--force` is not `--force-delete`."""
_NUMBER_CHARACTER = frozenset("0123456789.")


def worth_asking(text: str, has_digits: bool) -> bool:
    """Whether `read` may find any literal in `text`: C-level tests that spare nearly every claim."""
    return "`" in text or "_" in text or (has_digits and text.count(".") >= 2)


def read(low: str) -> frozenset[str]:
    """The literals of a `prepare`d claim. Asked only of one with a backtick, an underscore, or digits and
    two dots (`worth_asking`), which most have not."""
    found = set(_DOTTED.findall(low)) if low.count(".") >= 2 else set()
    if "_" in low:
        found.update(_SNAKE.findall(low))
    if "`" in low:
        for code in _CODE.findall(low):
            for token in _CODE_TOKEN.findall(code):
                token = token.strip(".")
                if token.endswith("()"):
                    token = token[:-2]
                    if len(token) > 2:
                        found.add(token)
                elif len(token) > 2 and _CODE_SHAPE.search(token) and not _VERSION.fullmatch(token):
                    found.add(token)
    return frozenset(found)


def holds(low: str, literal: str) -> bool:
    """Whether `low` (`prepare`d) holds `literal` whole: `max_retries` not in `max_retries_total`, "2.3.1"
    not in "12.3.1" or "2.3.10". A name may sit at the end of a longer dotted one (`orders.list` in
    `client.orders.list()`), a path or an address before more of it (`/v1/orders/{id}` in
    `/v1/orders/{id}/items`, "10.0.0.0" in "10.0.0.0/8")."""
    number = literal[0].isdigit()
    inside, goes_on = (_NUMBER_CHARACTER, _NAME_CHARACTER) if number else (_NAME_CHARACTER, _NAME_GOES_ON)
    at = low.find(literal)
    while at >= 0:
        end = at + len(literal)
        before = low[at - 1] if at else " "
        after = low[end] if end < len(low) else " "
        if (before not in inside and after not in goes_on
                and not (number and after == "." and low[end + 1:end + 2].isdigit())):
            return True
        at = low.find(literal, at + 1)
    return False
