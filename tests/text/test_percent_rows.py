"""A percentage worked out from a page that gives it to another row or tier than the user's is no support."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.percent_rows import rows
from ragmon.text.terms import read_terms
from ragmon.text.units import Operand

LOYALTY = ("Harwood Books loyalty: Gold members get 20% off full-price books; Silver members get 10%. "
           "Members must show their card in store.")
SILVER = "I'm a Silver member buying an £80 art book. How much off?"
MULTI = ("Standard customers who add car insurance get 7% off their home premium; Premier customers get 12% "
         "off. A standard excess of £250 applies to all claims.")
SAVINGS = ("Our Easy Saver account pays 2.1% AER and lets you withdraw at any time. The 1-Year Fixed Bond "
           "pays 4.3% AER, fixed for 12 months.")


def _supported(answer: str, page: str, question: str) -> bool:
    example = Example("q1", question, (Context("page", page),), answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]
    return all(verdict.supported for verdict in result.verdicts)


@pytest.mark.parametrize(("answer", "page", "question", "supported"), [
    # The user is Silver: 10/100 x 80 = 8 is theirs, 20/100 x 80 = 16 is Gold's (a blind review's shape).
    ("10% of £80 = **£8** off for you.", LOYALTY, SILVER, True),
    ("20% of £80 = **£16** off for you.", LOYALTY, SILVER, False),
    # 12/100 x 450 = 54: the first clause's "who add car insurance" is left to the second, whose 12% is
    # Premier's; its many words are no row's name.
    ("12% of £450 = £54 off the home premium.", MULTI,
     "I've got the Premier home policy and I'm adding car insurance. My home premium is £450: how much do "
     "I save?", True),
    # The question names no account: 2.1/100 x 10,000 = 210 is the Easy Saver's, as the answer says.
    ("In the Easy Saver: 2.1% × £10,000 = £210 a year.", SAVINGS, "How much would £10,000 earn in a year?",
     True),
])
def test_a_percentage_is_the_users_rows(answer: str, page: str, question: str, supported: bool) -> None:
    assert _supported(answer, page, question) is supported


def test_each_place_of_a_percentage_is_read_for_its_row() -> None:
    low = "gold members get 20% off; silver members get 10%."
    asked = read_terms(SILVER)[0]
    assert rows(low, {20.0: Operand("", asked), 10.0: Operand("", asked)}) == {
        (20.0, "r another"), (10.0, "r this")}
    assert rows(low, {20.0: Operand()}) == frozenset()  # no question: no row asked for
