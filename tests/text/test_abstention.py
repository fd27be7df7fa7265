"""Abstention cues: sentences that decline to answer, and statements that do not."""

from __future__ import annotations

import pytest

from ragmon.text.abstention import is_abstention
from ragmon.text.claims import split_claims


@pytest.mark.parametrize("sentence", [
    "I don't know.",
    "I do not know the answer.",
    "The context does not say when the store opens.",
    "The provided documents don't mention a warranty.",
    "The retrieved passages do not include the price.",
    "The fee is not mentioned in the provided documents.",
    "There is not enough information to answer.",
    "insufficient_context",
    "I cannot answer that from the sources.",
    "I'm unable to determine the price.",
    "I’m unable to tell from these sources.",
    "The price is not mentioned in the context.",
    "There is no information about refunds.",
    "Empty Response",  # LlamaIndex's answer when no node survives retrieval
])
def test_abstention_cues(sentence: str) -> None:
    assert is_abstention(sentence)
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "I know the store opens at 9.",
    "The context mentions a warranty.",
    "Returns are not accepted after 30 days.",
    "The response was empty.",
])
def test_statements_are_not_abstentions(sentence: str) -> None:
    assert not is_abstention(sentence)
