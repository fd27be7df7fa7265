"""The policy verdicts a support page states or denies ("covered", "refundable", "free"): read for a
claim's stance against its page's sentences (`ragmon.text.passage_sentences`), and what a short exclamation
states of its subject ("Shipping is free!") that the wrapper model must not take for talk to the user
(`ragmon.text.wrapper_model`)."""

from __future__ import annotations

from ragmon.text.terms import wordset

VERDICTS = wordset("""
    available eligible refundable returnable transferable exchangeable reimbursable compatible waterproof
    valid free open covered covers included include includes accepted accept accepts allowed allow allows
    supported supports required require requires permitted guaranteed waived waive waives refunded returned
    exchanged reimbursed reimburse reimburses cancelled canceled insured
    """)
"""The verdicts, and the verbs' forms that state them too ("The warranty covers screens", "Commuter passes
include guest validations")."""
