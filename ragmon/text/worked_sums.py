"""Sums an answer works out in the open ("€590 + €180 = €770", "$3.50 + $5.50 = $9.00", "840 € − 15% =
714 €"): a result that follows from the figures before it is checked through them, not looked for in a
page, which states the prices and the shares but never the total an answer computes for its reader."""

from __future__ import annotations

import re
from collections.abc import Callable

from ragmon.text.deferred import deferred
from ragmon.text.terms import profile

_FIGURE = r"[$€£¥]?[ \u00a0]?[0-9][0-9.,]*+(?:[ \u00a0]?(?:%|[$€£¥]|(?!(?:x|of)\b)[^\W\d_]{1,5}\b))?"
"""A figure with its currency or a short unit ("€590", "420 €", "200 kWh", "15%", "33,8 Ct")."""
_OPERATOR = r"[×x*+\-−–]|of"
"""No division: "€1,200 / 12 = €100 a month" divides by a count, which `worked_results` does not take."""
_GAP = r"[ \u00a0]{0,3}+"
_SUM = deferred(
    r"(?<![\w.,])(?:\(" + _GAP + ")?" + _FIGURE + r"(?:" + _GAP + r"(?:" + _OPERATOR + r")" + _GAP + r"\(?+"
    + _GAP + _FIGURE + _GAP + r"\)?+){1,8}" + _GAP + r"=" + _GAP + r"[*_]{0,2}+(?P<result>" + _FIGURE + ")")
"""Figures joined by up to eight operators, an equals sign, and the figure they come to (in bold or not).
Spaced as sums are written, a few spaces at most: runs of spaces or operators read every way had taken
seconds (tests/text/test_backtracking.py)."""
_TOKEN = deferred(_GAP + r"(?:(?P<figure>" + _FIGURE + r")|(?P<op>" + _OPERATOR + r")|(?P<paren>[()]))")
_OPERATIONS: dict[str, Callable[[float, float], float]] = {
    "×": lambda a, b: a * b, "x": lambda a, b: a * b, "*": lambda a, b: a * b, "of": lambda a, b: a * b,
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "−": lambda a, b: a - b, "–": lambda a, b: a - b,
}
_PRODUCTS = frozenset("×x*") | {"of"}


class _Unreadable(Exception):
    """An expression this reader does not take: nothing is derived from it."""


def worked_results(text: str) -> frozenset[float]:
    """The figures of `text` that follow from the sum before their equals sign, as the claim's numbers
    read them (`profile`). A sum that does not come to its result derives nothing: the result is then
    looked for in a page like any figure, and a wrong total stays unsupported. Nor does one that a made-up
    figure could pass through with true arithmetic (an adversarial review's): a count times a figure ("2 ×
    €49 = €98 per month" of a page's €49 for up to 2 users: the count is any page's small number), a
    division, a figure added to itself ("$5 + $5 = $10 per order"), or a result that is one of its figures
    ("1 × €250 = €250", of a page's €180). What is left: different figures added or taken away, and a share
    of a figure ("840 € − 15% = 714 €", "60% × $13.50 = $8.10")."""
    if "=" not in text:
        return frozenset()
    derived = set()
    for found in _SUM.finditer(text):
        result = _value(found["result"])
        try:
            worked, figures = _evaluate(text[found.start():found.start("result")].rstrip(" =*_"))
        except _Unreadable:
            continue
        if (result is not None and result not in figures and len(set(figures)) == len(figures)
                and abs(worked - result) <= _tolerance(found["result"])):
            derived.add(result)
    return frozenset(derived)


def _value(figure: str) -> float | None:
    """A figure's number as the claim reads it, or None where it reads none or several."""
    numbers = profile(figure).numbers
    return next(iter(numbers)) if len(numbers) == 1 else None


def _tolerance(figure: str) -> float:
    """Half the last written decimal place: "$8.10" stands for 8.095 to 8.105, "€4,029" for a whole euro
    either way of it, as a total is rounded to what it is written in."""
    digits = re.sub(r"[^0-9.,]", "", figure)
    decimals = re.search(r"[.,]([0-9]{1,2})$", digits)
    return 0.5 * 10 ** -(len(decimals.group(1)) if decimals else 0) + 1e-9


def _evaluate(expression: str) -> tuple[float, list[float]]:
    """The value of figures, operators and parentheses, products before sums, and the figures; a percentage
    added or taken off is a share of what it follows ("840 € − 15%" is 714 €), multiplied it is a fraction
    ("60% × $13.50"). A product of two figures neither of which is a percentage is not read
    (`worked_results`)."""
    tokens = []
    position = 0
    while position < len(expression):
        token = _TOKEN.match(expression, position)
        if token is None or token.end() == position:
            if expression[position:].strip():
                raise _Unreadable(expression)
            break
        position = token.end()
        tokens.append(token)
    value, rest = _sum_of(tokens)
    if rest:
        raise _Unreadable(expression)
    return value[0], [_value(token["figure"]) or 0.0 for token in tokens if token["figure"] is not None]


_Term = tuple[float, bool]
"""A value and whether it is a percentage."""


def _sum_of(tokens: list[re.Match[str]]) -> tuple[_Term, list[re.Match[str]]]:
    left, tokens = _product_of(tokens)
    while tokens and tokens[0]["op"] is not None and tokens[0]["op"] not in _PRODUCTS:
        operation = _OPERATIONS[tokens[0]["op"]]
        right, tokens = _product_of(tokens[1:])
        share = left[0] * right[0] / 100 if right[1] and not left[1] else right[0]
        left = (operation(left[0], share), left[1] and right[1])
    return left, tokens


def _product_of(tokens: list[re.Match[str]]) -> tuple[_Term, list[re.Match[str]]]:
    left, tokens = _figure_of(tokens)
    while tokens and tokens[0]["op"] in _PRODUCTS:
        operation = _OPERATIONS[tokens[0]["op"]]
        right, tokens = _figure_of(tokens[1:])
        if not (left[1] or right[1]):
            raise _Unreadable(tokens[0].string if tokens else "")
        left = (operation(_fraction(left), _fraction(right)), False)
    return left, tokens


def _fraction(term: _Term) -> float:
    return term[0] / 100 if term[1] else term[0]


def _figure_of(tokens: list[re.Match[str]]) -> tuple[_Term, list[re.Match[str]]]:
    if not tokens:
        raise _Unreadable("")
    first = tokens[0]
    if first["paren"] == "(":
        inner, rest = _sum_of(tokens[1:])
        if not rest or rest[0]["paren"] != ")":
            raise _Unreadable(first.string)
        return inner, rest[1:]
    if first["figure"] is None:
        raise _Unreadable(first.string)
    value = _value(first["figure"])
    if value is None:
        raise _Unreadable(first["figure"])
    return (value, first["figure"].rstrip().endswith("%")), tokens[1:]
