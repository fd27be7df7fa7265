"""The demo's RAG app without its tracing: a store-policy corpus, a BM25 retriever and a template "LLM".

Three builds of the same app show what ragmon sees in production:
- healthy: the right policy is retrieved and the answer quotes it;
- degraded: the index was rebuilt from a truncated export, so half the policies are missing; the
  generator, finding nothing that matches, falls back on what it "remembers" or declines;
- hallucinating: retrieval is fine, but a new prompt makes the generator embellish: numbers drift and
  an invented sentence is added.
The generator is deterministic, so a test can work out by hand what each build answers.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

PHASES = ("healthy", "degraded", "hallucinating")
TOP_K = 3
MIN_OVERLAP = 2
"""Question terms a sentence must share before the generator will quote it."""

ABSTAIN = "I could not find this in our store policies."
REMEMBERED = (
    "Most retailers allow 21 days for this, and a receipt is usually needed.",
    "In general this takes about 8 business days, and a fee of 9 dollars may apply.",
)
"""What the generator says from "memory" when retrieval gave it nothing usable: plausible, ungrounded."""

INVENTED = (
    "Members of our rewards club also get an extra 20 days on top of this.",
    "A 13 dollar handling fee is waived for orders placed through the mobile app.",
    "This policy was extended to 120 days for all customers last spring.",
    "Store managers can approve exceptions of up to 35 days at their discretion.",
)
"""Embellishments of the hallucinating build; each carries a number no policy contains."""

_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d+\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "from", "with",
    "about", "as", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done", "have",
    "has", "had", "i", "me", "my", "we", "our", "you", "your", "it", "its", "this", "that", "these",
    "those", "there", "what", "which", "who", "whom", "when", "where", "why", "how", "many", "much", "long",
    "can", "could", "should", "would", "will", "shall", "may", "might", "must", "not", "no", "than", "then",
    "so", "such", "into", "after", "before", "until", "up", "down", "out", "over", "under", "again", "more",
    "most", "other", "some", "any", "each", "all",
})


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    relevant_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Retrieved:
    document: Document
    score: float


@dataclass(frozen=True, slots=True)
class Answer:
    question: Question
    retrieved: tuple[Retrieved, ...]
    text: str


def load_corpus() -> tuple[tuple[Document, ...], tuple[Question, ...]]:
    data = json.loads(resources.files("ragmon.demo").joinpath("corpus.json").read_text(encoding="utf-8"))
    documents = tuple(Document(d["id"], d["title"], d["text"]) for d in data["documents"])
    questions = tuple(Question(q["id"], q["question"], tuple(q["relevant_ids"])) for q in data["questions"])
    return documents, questions


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
                word = word[:-1]
            break
    return word


def terms(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


class Retriever:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over whole documents: small, exact, no model."""

    def __init__(self, documents: Sequence[Document], k1: float = 1.2, b: float = 0.75) -> None:
        self._documents = tuple(documents)
        self._bags = [Counter(terms(d.text + " " + d.title)) for d in self._documents]
        lengths = [sum(bag.values()) for bag in self._bags]
        self._norms = [k1 * (1 - b + b * n / (sum(lengths) / len(lengths))) for n in lengths]
        df = Counter(t for bag in self._bags for t in bag)
        n = len(self._documents)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._k1 = k1

    def search(self, query: str, k: int = TOP_K) -> tuple[Retrieved, ...]:
        query_terms = set(terms(query))
        scored = []
        for doc, bag, norm in zip(self._documents, self._bags, self._norms, strict=True):
            score = sum(self._idf[t] * bag[t] * (self._k1 + 1) / (bag[t] + norm)
                        for t in query_terms if t in bag)
            scored.append(Retrieved(doc, round(score, 4)))
        scored.sort(key=lambda r: -r.score)
        return tuple(scored[:k])


class TemplateLLM:
    """Answers by quoting the two sentences of one retrieved policy that best match the question."""

    def __init__(self, *, embellish: bool, corpus: Sequence[Document]) -> None:
        self._embellish = embellish
        self._known_numbers = frozenset(int(n) for d in corpus for n in _NUMBER.findall(d.text))

    def answer(self, question: str, contexts: Sequence[Retrieved]) -> str:
        wanted = set(terms(question))
        best: tuple[int, list[tuple[int, int, str]]] = (0, [])
        for retrieved in contexts:
            sentences = split_sentences(retrieved.document.text)
            ranked = [(len(wanted & set(terms(s))), i, s) for i, s in enumerate(sentences)]
            top = sorted(ranked, key=lambda r: (-r[0], r[1]))[:2]
            if top and top[0][0] > best[0]:
                best = (top[0][0], top)
        choice = zlib.crc32(question.encode())
        if best[0] < MIN_OVERLAP:
            return ABSTAIN if choice % 2 == 0 else REMEMBERED[choice // 2 % len(REMEMBERED)]
        quoted = [s for _, _, s in sorted(best[1], key=lambda r: r[1])]
        if not self._embellish:
            return " ".join(quoted)
        used: set[int] = set()
        drifted = [_NUMBER.sub(lambda m: str(self._drift(int(m.group()), used)), s) for s in quoted]
        return " ".join([*drifted, INVENTED[choice % len(INVENTED)]])

    def _drift(self, number: int, used: set[int]) -> int:
        """A number near the true one that no policy states (so the change is never accidentally right)
        and that this answer has not used yet (so "3 to 5" does not become "8 to 8")."""
        drifted = number + max(1, number // 2)
        while drifted in self._known_numbers or drifted in used:
            drifted += 1
        used.add(drifted)
        return drifted


def build(phase: str) -> tuple[Retriever, TemplateLLM]:
    documents, _ = load_corpus()
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; choose from {', '.join(PHASES)}")
    indexed = documents[::2] if phase == "degraded" else documents
    return Retriever(indexed), TemplateLLM(embellish=phase == "hallucinating", corpus=documents)
