"""Literals: what a claim names exactly, so a context must hold it as written, not just its words.

An environment variable, config key, endpoint, flag or method made up from the documentation's own words
(`NIMBUS_DEPLOY_CONFIRM`, `/v1/orders/{id}/line_items`, `autoPagingIter()`) is the commonest made-up
claim in answers about software, and read as words it passed: its words are the documentation's. Nor is a
version, an address or a network one number: read as loose pieces, "v2.3.5" was stated by a changelog
holding 2.3 (of "v2.3.1") and a 5 anywhere else, and "10.0.0.0/16" by "10.0.0.0/8" and a 16. So these are
compared as numbers are, whole: a name the answer writes as code (a snake_case or dotted name, a path, a
flag, a call), a snake_case name anywhere, and a number of three or more dotted groups.

Both sides are `prepare`d texts (lower-case: "Authorization" and "authorization" are one header, and a
model re-casing a name is no invention worth an alarm), and a name is compared with its hyphens and
underscores alike (`max-retries`, `max_retries`, a scraped `max\\_retries`) and its dashes as typed
("—dry-run" is how typography prints `--dry-run`). What a template leaves open is left open on both
sides: the parts of `/v1/orders/{id}/items` around its placeholder are looked for, so the documentation's
`/v1/orders/{id}` holds the answer's `/v1/orders/:id` or `/v1/orders/12345` (whose digits the number rule
still asks for), and a host is a name without its scheme.
"""

from __future__ import annotations

import functools
import re

from ragmon.text.numbers import names_a_version
from ragmon.text.places import places

_CODE = re.compile(r"`([^`\n]{1,200})`")
_CODE_TOKEN = re.compile(r"(?:[^\s=:,;\"'<>\[\]`]|(?<=/):)+")
_CODE_SHAPE = re.compile(r"[_./]|^--?[a-z]")
"""A token in code that names something exactly: a snake_case or dotted name, a path, a flag. Lower-cased
first, so camelCase is told by its call (`autoPagingIter()`). Plain words in code (`nimbus deploy`) are
words, braces and globs are templates and data (`{"enabled": true}`, `*.log`): the terms check them."""
_VERSION = re.compile(r"v?[0-9][0-9.]*(?:/[0-9]{1,3})?")
"""A version, an address or a number in code: `_DOTTED` reads one of three or more groups ("10.0.0.0/8"),
the number reader the rest."""
_SNAKE = re.compile(r"(?<![\w./:{<-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w:}>])")
"""A snake_case or SCREAMING_CASE name outside code too ("set NIMBUS_TOKEN"): prose has none. Not an
emoji's short code (":white_check_mark:"), nor a template's placeholder ("{order_id}")."""
_DOTTED = re.compile(r"(?<![0-9.])[0-9]+(?:\.[0-9]+){2,}(?:/[0-9]{1,3})?(?![0-9]|\.[0-9])")
""""2.3.1", "10.0.0.0/8", "127.0.0.1": not "3.5" (a number), nor the date "2024-10-29"."""
_DAY_FIRST = re.compile(r"[0-9]{1,2}\.[0-9]{1,2}\.[12][0-9]{3}")
"""A `_DOTTED` that is a date day first, with periods, as German writes it ("15.03.2024"), which the number
reader reads as a date unless a version's word comes before it (`numbers.names_a_version`): taken for a
version, a claim's "am 15.03.2024" had to stand word for word in a page saying "2024-03-15"."""
_OPEN = "\x00"
"""Where a template's placeholder was in a literal: what stands there is not compared."""
_PLACEHOLDER = re.compile(
    r"\{[^{}/]*\}|(?<=/):[a-z_]+|(?<=/)[a-z_]*[0-9][a-z0-9_]{3,}(?=/|$)|(?<=/)[0-9]+(?=/|$)")
"""A path's open part: "{id}", ":id", an id ("ord_8fk2", "12345"); not "v1"."""
_NAME_CHARACTER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_DIGIT = frozenset("0123456789")
_NUMBER_CHARACTER = frozenset("0123456789.")


_DECIMAL_POINT = re.compile(r"\.[0-9]")
"""What every `_DOTTED` match holds (twice), searched for from its literal period: `_DOTTED` itself opens
with a look-behind, which has the engine try it at every character."""


def worth_asking(text: str, has_digits: bool) -> bool:
    """Whether `read` may find any literal in `text`: C-level tests that spare nearly every claim. A text
    with no backtick and no underscore has only `_DOTTED`'s, so a period before a digit: most answers of
    two sentences and a number have two periods and none (`read` had cost them 9.5 us for nothing)."""
    return "`" in text or "_" in text or (
        has_digits and text.count(".") >= 2 and _DECIMAL_POINT.search(text) is not None)


def _versions(low: str) -> set[str]:
    """The `_DOTTED` numbers of `low` but dates day first (`_DAY_FIRST`) after no version's word."""
    return {found.group() for found in _DOTTED.finditer(low)
            if _DAY_FIRST.fullmatch(found.group()) is None or names_a_version(low, found.start())}


def read(low: str) -> frozenset[str]:
    """The literals of a `prepare`d claim. Asked only of one with a backtick, an underscore, or digits and
    two dots (`worth_asking`), which most have not."""
    found = _versions(low) if low.count(".") >= 2 else set()
    if "_" in low:
        found.update(_SNAKE.findall(low.replace("\\_", "_")))
    if "`" in low:
        for code in _CODE.findall(low):
            for token in _CODE_TOKEN.findall(code.replace("\\_", "_")):
                name = _name(token)
                if name is not None:
                    found.add(name)
    return frozenset(found)


def _name(token: str) -> str | None:
    """The literal a token of code names, or None: a call's name without its arguments, a variable without
    its sigil, a path with its placeholders open."""
    call = token.find("(")
    if call > 0:
        token = token[:call]
        return token.strip(".") if len(token) > 2 and "*" not in token else None
    token = token.lstrip("$?&").strip(".()")
    if token.count("{") != token.count("}"):  # JSON's: `{"enabled": true}`
        token = token.strip("{}")
    if token.startswith("//"):  # "https://api.acme.com/v1" split at its colon
        token = token[2:]
    if len(token) < 3 or "*" in token or token[0] == "~" or not _CODE_SHAPE.search(token) \
            or _VERSION.fullmatch(token):
        return None
    if "/" in token:
        token = _PLACEHOLDER.sub(_OPEN, token.rstrip("/") or token)  # "/static/" is "/static"
        if not any(len(part.strip("/")) > 1 for part in token.split(_OPEN)):
            return None  # "/{id}": nothing fixed to look for
    return token


def holds(low: str, literal: str) -> bool:
    """Whether `low` (`prepare`d) holds `literal` whole: `max_retries` not in `max_retries_total`, "2.3.1"
    not in "12.3.1" or "2.3.10". A name may sit at the end of a longer dotted one (`orders.list` in
    `client.orders.list()`), a path anywhere in a longer one (`/v1/orders` in
    "https://api.acme.com/v1/orders/{id}"), an address before more of it ("10.0.0.0" in "10.0.0.0/8"), a
    version before its pre-release ("3.0.0" in "3.0.0rc1"). A template's fixed parts must each be there."""
    if literal[0].isdigit():
        return _found(low, literal, _NUMBER_CHARACTER, _DIGIT)
    text = _as_names(low)
    return all(_found(text, part, _NAME_CHARACTER, _NAME_CHARACTER)
               for part in literal.replace("-", "_").split(_OPEN) if part.strip("/"))


def shown(literal: str) -> str:
    """A literal as a report names it: its open parts as "{…}"."""
    return literal.replace(_OPEN, "{…}")


@functools.lru_cache(maxsize=8)
def _as_names(low: str) -> str:
    """A passage as names are compared: each claim of an answer asks the same few passages."""
    return low.replace("\u2014", "--").replace("\\_", "_").replace("-", "_")


def _found(text: str, part: str, inside: frozenset[str], goes_on: frozenset[str]) -> bool:
    """Whether `part` is in `text` at one of its first `places` with no character of `inside` before it
    and none of `goes_on` after it (a path's open end takes any)."""
    open_before, open_after = part[0] == "/", part[-1] == "/"
    for at in places(text, part):
        end = at + len(part)
        before = text[at - 1] if at and not open_before else " "
        after = text[end] if end < len(text) and not open_after else " "
        if (before not in inside and after not in goes_on
                and not (goes_on is _DIGIT and after == "." and text[end + 1:end + 2].isdigit())):
            return True
    return False
