"""Generation metrics of one example, from the judge's verdicts on its claims (DESIGN §3).

Each returns `None` when undefined (the inputs it needs are unknown, or there is nothing to measure);
`None` is left out of aggregates, never read as zero. Generation metrics see every context the
generator was given, not only the top k.
"""

from __future__ import annotations

import string
import unicodedata
from collections import Counter
from collections.abc import Sequence

from ragmon.model import ClaimVerdict, Example
from ragmon.text.cited_ids import declines
from ragmon.text.claims import answer_terms
from ragmon.text.terms import CJK_CHARACTER, profile

UNANSWERABLE_CATEGORIES = frozenset({"adversarial", "unanswerable"})
INSUFFICIENT_CONTEXT = "insufficient_context"
"""Ground truth marking a question the corpus cannot answer: a sentinel, not an answer text."""


def is_unanswerable(example: Example) -> bool:
    return (example.relevant_ids is not None and not example.relevant_ids) \
        or example.ground_truth == INSUFFICIENT_CONTEXT \
        or example.category in UNANSWERABLE_CATEGORIES


def used_ids(example: Example, verdicts: Sequence[ClaimVerdict]) -> frozenset[str]:
    """Contexts that support at least one claim. Only ids of the example's contexts count: an id a judge
    names that was never retrieved cannot have been used (and citing it is wrong), and without that cut a
    careless judge could push context utilisation past 1."""
    named = frozenset(doc for v in verdicts if v.supported for doc in v.supporting_ids)
    return named.intersection([c.id for c in example.contexts or ()]) if named else named


def use_unknown(verdicts: Sequence[ClaimVerdict]) -> bool:
    """Whether a supported claim names no context: a judge need not track ids (an NLI model over the joined
    contexts says yes or no), and then which contexts were used is unknown, not none. Every metric of use
    is undefined then: read as unused, the context the claim rests on gave utilisation and citation
    accuracy 0. The built-in judges name a context for every claim they call supported."""
    return any(v.supported and not v.supporting_ids for v in verdicts)


def use(example: Example, verdicts: Sequence[ClaimVerdict]) -> frozenset[str] | None:
    """`used_ids`, or None when which contexts were used is unknown (`use_unknown`): read once an example
    for the metrics of use and its unused contexts (`ragmon.evaluation`), where each read it again."""
    return None if use_unknown(verdicts) else used_ids(example, verdicts)


def generation_metrics(example: Example, verdicts: Sequence[ClaimVerdict],
                       used: frozenset[str] | None) -> dict[str, float | None]:
    """Every generation metric of one example, by name, `used` (`use`) and the claims supported counted
    once for all."""
    grounded, hallucinated = _shares(example, verdicts)
    return {"groundedness": grounded, "hallucination_rate": hallucinated,
            "citation_accuracy": _citation_accuracy(example, used if verdicts else None),
            "citation_coverage": _citation_coverage(example, used),
            "context_utilisation": _context_utilisation(example, verdicts, used),
            "answer_relevance": answer_relevance(example),
            "answer_correctness": answer_correctness(example),
            "abstention": abstention(example)}


def groundedness(example: Example, verdicts: Sequence[ClaimVerdict]) -> float | None:
    """Supported claims / claims. With no contexts at all nothing can support a claim, whatever a judge
    said: that is a real 0, not an unknown."""
    return _shares(example, verdicts)[0]


def hallucination_rate(example: Example, verdicts: Sequence[ClaimVerdict]) -> float | None:
    """1 - groundedness, computed as unsupported claims / claims: the same number, but 3 of 10 gives
    0.3 exactly where 1 - 0.7 gives 0.30000000000000004, which a gate at 0.3 would call a breach."""
    return _shares(example, verdicts)[1]


def _shares(example: Example, verdicts: Sequence[ClaimVerdict]) -> tuple[float | None, float | None]:
    """Shares of the claims supported and not (0 supported when nothing was retrieved)."""
    if example.answer is None or example.contexts is None or not verdicts:
        return None, None
    if not example.contexts:
        return 0.0, 1.0
    n_supported = sum(bool(v.supported) for v in verdicts)
    return n_supported / len(verdicts), (len(verdicts) - n_supported) / len(verdicts)


def citation_accuracy(example: Example, verdicts: Sequence[ClaimVerdict]) -> float | None:
    """Cited ids that support a claim / distinct cited ids; an id that was never retrieved cannot support
    anything, so it counts as wrong. Also undefined when the answer or the contexts are unknown: support
    cannot be known then, and 0 would be invented; likewise when a supported claim names no context, and
    when the answer makes no claim: a refusal naming where it looked ("HR-POL-007 doesn't mention foster
    care.", "I don't know. See KB-1234.") has no claim its citations could back, and scored 0 it failed a
    citation gate for declining."""
    return _citation_accuracy(example, use(example, verdicts) if verdicts else None)


def _citation_accuracy(example: Example, used: frozenset[str] | None) -> float | None:
    if not example.citations or example.answer is None or example.contexts is None or used is None:
        return None
    cited = set(example.citations)
    return len(cited & used) / len(cited)


def citation_coverage(example: Example, verdicts: Sequence[ClaimVerdict]) -> float | None:
    """Used contexts the answer cites / used contexts: did the answer credit what it relied on?"""
    return _citation_coverage(example, use(example, verdicts))


def _citation_coverage(example: Example, used: frozenset[str] | None) -> float | None:
    if example.citations is None or not used:
        return None
    return len(used.intersection(example.citations)) / len(used)


def context_utilisation(example: Example, verdicts: Sequence[ClaimVerdict]) -> float | None:
    """Contexts supporting a claim / contexts given to the generator, both counted by position: a context
    supports a claim when its id is among a supported verdict's supporting ids. A verdict names ids, so
    contexts sharing an id cannot be told apart: when the id supports a claim, each of them counts. (Used
    ids over distinct ids had made five chunks of faq.md under one id and a supporting policy.md 1/2,
    where 1 of the 6 contexts supported the claim.)"""
    return _context_utilisation(example, verdicts, use(example, verdicts))


def _context_utilisation(example: Example, verdicts: Sequence[ClaimVerdict],
                         used: frozenset[str] | None) -> float | None:
    contexts = example.contexts
    if not contexts or not verdicts or used is None:
        return None
    return len([c for c in contexts if c.id in used]) / len(contexts)


def answer_relevance(example: Example) -> float | None:
    """Share of the question's content terms and numbers that the answer contains (stemmed)."""
    if example.answer is None:
        return None
    question = profile(example.question)
    total = len(question.terms) + len(question.numbers)
    if not total:
        return None
    if not question.numbers:  # then the answer's numbers cannot count, and its terms alone come cheaper
        return len(question.terms & answer_terms(example.answer)) / total
    answer = profile(example.answer)
    return (len(question.terms & answer.terms) + len(question.numbers & answer.numbers)) / total


def answer_correctness(example: Example) -> float | None:
    """SQuAD token F1 of the answer against the ground truth. For the `insufficient_context` sentinel
    the correct answer is an abstention, so it scores 1 if the answer abstains and 0 otherwise, rather
    than comparing words with the sentinel. Undefined when either side is unknown."""
    if example.ground_truth is None or example.answer is None:
        return None
    if example.ground_truth == INSUFFICIENT_CONTEXT:
        return float(_declines(example.answer, example))
    return token_f1(example.answer, example.ground_truth)


def abstention(example: Example) -> float | None:
    """1 if the answer declines, for questions that cannot be answered; undefined for answerable ones
    (and when the answer is unknown)."""
    if example.answer is None or not is_unanswerable(example):
        return None
    return float(_declines(example.answer, example))


def _declines(answer: str, example: Example) -> bool:
    """Whether the example's answer declines, a refusal naming its retrieved ids too ("HR-POL-007 doesn't
    mention foster care.", `cited_ids.declines`)."""
    return declines(answer, (context.id for context in example.contexts or ()))


_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = ("a", "an", "the")
_DROPPED = frozenset(("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sc"))
"""Unicode's punctuation categories (P) and its currency signs (Sc)."""


def _without_punctuation(text: str) -> str:
    """SQuAD drops ASCII's punctuation, "$" among it; every other punctuation mark goes too (Unicode
    category P), or "« 30 jours »", "„30 Tage“" and "¡Cuesta 5 euros!" had scored 2/3, 1/2 and 2/3 against
    "30 jours", "30 Tage" and "Cuesta 5 euros"; and so does every other currency sign (category Sc), as
    "$" does: "5 €" and "€5" had scored 2/3 and 0 against "5", where "$5" scores 1."""
    text = text.translate(_ASCII_PUNCTUATION)
    if text.isascii():
        return text
    return "".join(char for char in text if unicodedata.category(char) not in _DROPPED)


def _bag(text: str) -> Counter[str]:
    """SQuAD's answer normalisation (lower case, no punctuation, no articles) as a bag of tokens."""
    words = _without_punctuation(text.lower())
    if not words.isascii():
        # Chinese and Japanese write no space between words: a character a token, as CMRC's and DRCD's
        # SQuAD-style F1 reads them. Read by spaces, an exact answer with a "。" after it scored 0, and so
        # did every answer other than the reference's very string.
        words = CJK_CHARACTER.sub(r" \g<0> ", words)
    bag = Counter(words.split())
    for article in _ARTICLES:
        bag.pop(article, None)
    return bag


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD token F1: harmonic mean of the shared-token share of each side (with multiplicity)."""
    pred, gold = _bag(prediction), _bag(truth)
    n_pred, n_gold = pred.total(), gold.total()
    if not n_pred or not n_gold:
        return float(n_pred == n_gold)
    same = sum(min(n, gold[tok]) for tok, n in pred.items() if tok in gold)
    if not same:
        return 0.0
    p, r = same / n_pred, same / n_gold
    return 2 * p * r / (p + r)
