"""How far any judge built on lexical features can go on human sentence labels, leaving one question out.

Why this exists: the issue asks the judge for sentence-level F1 >= 0.75 at precision >= 0.70 (positive
class "unsupported"), and the README claims no lexical judge reaches that on these labels. A claim about
every lexical judge cannot be shown by trying rules one at a time, so this script gives lexical features
to learners that combine them as well as the data allows, and measures them honestly: every model, every
hyperparameter and every decision threshold is chosen on the training questions only. It prints the
current `LexicalJudge` and single-feature judges in the same table, and, labelled as an optimistic upper
bound, what each would reach with the threshold picked on its own held-out predictions.

Evaluation: 20 folds, one per question; all answers to the held-out question are in the test fold. Inside
each training fold, K inner folds over the training questions (question i of the sorted list in inner
fold i mod K; K = 5, `--inner-folds` to change it) give out-of-fold predictions, on which the
hyperparameter (lowest log-loss) and then two thresholds are chosen: best F1, and best F1 among
thresholds with precision >= 0.70 (the target's side condition; the most precise threshold when none
reaches it). The model is refitted on the whole training fold and applied to the held-out question with
those thresholds. Figures are pooled over the 20 held-out folds; the F1 interval resamples questions
(2,000 draws, fixed seed). Response level: an answer is hallucinated when any of its claims is predicted
unsupported. A last, looser bound fits the logistic regression (weakest penalty) on all claims and picks
its threshold on the same claims: if even that falls short, no linear combination of these features
reaches the target on this set. (No such line for the trees: at depth 2 and 300 rounds they memorise
the training claims.)

Learners (numpy only, deterministic):
- logistic regression: features standardised on the training data, L2 penalty (strength 0.1 to 1,000 on
  the summed log-loss; intercept free), fitted by Newton's method;
- gradient-boosted trees: logistic loss, depth 1 (stumps) or 2, learning rate 0.1, 20 to 300 rounds,
  splits on up to 32 quantile bins per feature (bins from the training data), leaf L2 1.0, at least a
  hessian of 2 per leaf;
- single features as judges: the lexical judge's threshold, or best-context coverage, chosen in-fold.

Features per claim (a claim is one answer sentence, split as scoring splits it). Terms and numbers are
ragmon.text's (`profile`, `passage`), so they match the judge's. "Best context" is the retrieved context
sharing most of the claim's terms (the first on ties); a coverage "share" is over the claim's terms and is
1.0 for a claim with none (only numbers), as nothing can be missing.
- coverage: `cov_best` share in the best context; `cov_second` in the second best; `cov_union` in all
  contexts together; `cov_win1`/`cov_win2`/`cov_win3` in the best window of 1/2/3 neighbouring sentences
  of one context (`sentence_spans`); `ctx_half` how many contexts hold half the terms; `idf_cov_best` share
  in the best context weighted by IDF over the sentences of the example's contexts (a term in none gets
  the highest weight); `bigram_best` best share of the claim's consecutive content-term pairs found
  consecutive in one context (1.0 with fewer than two terms); `char4_best` best share of the claim's
  character 4-grams (lower-case, non-alphanumerics as one space) found in one context.
- missing terms: `n_terms`, `n_words` (all words); `miss_best` terms not in the best context; `miss_all`
  in no context; `run_miss` longest run of consecutive claim terms not in the best context.
- numbers: `n_numbers`; `num_miss_best` not stated by the best context; `num_miss_all` by none.
- entities: `n_entities` capitalised words other than the first; `entity_miss` those whose term no context
  holds.
- question: `q_share` share of terms also in the question; `miss_in_q` terms missing from the best
  context but in the question; `novel` terms in no context and not in the question; `cov_best_q` share in
  the best context plus the question.
- position: `first`, `last`, `rel_pos` (0 first, 1 last), `n_claims` in the answer; `answer_cov` mean
  `cov_best` over the answer's claims.
- rarity: `rare_share` share of terms among the rarer half of the contexts' vocabulary (document
  frequency over context sentences at most the median).
- wording: `negation` ("not", "no", "never", "n't", ...) and `hedge` ("may", "might", "often", ...) words.
- judge: `lex_unsup` the current `LexicalJudge()` verdict; `lex_score` the highest threshold (0.01 steps)
  at which `LexicalJudge` still finds support, 0 when it finds none (numbers rule and vetoes included).

`--features` adds each feature's univariate AUC for "unsupported" (0.5 is no signal; below 0.5, higher
values mean supported), with descriptive weights of both learners fitted on all the data.

Run: `.venv/bin/python benchmarks/judge_ceiling.py ../shared/data/salad_dev.jsonl [--features]
[--inner-folds K]` (about 20 s on one core; 19 inner folds, leave one question out again, about a minute).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ragmon import LexicalJudge
from ragmon.calibrate import Confusion, Labelled, load_labelled
from ragmon.errors import InputError
from ragmon.evaluation import verdicts_without_judge
from ragmon.model import Claim, Example
from ragmon.text.claims import sentence_spans
from ragmon.text.passages import Passage, passage
from ragmon.text.terms import normalise, profile

TARGET_F1, TARGET_P = 0.75, 0.70
BOOTSTRAP = 2_000
LEXICAL_GRID = tuple(round(0.01 * i, 2) for i in range(1, 101))

_WORD = re.compile(r"(?:[Nn]on-)?[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
NEGATIONS = frozenset(("not", "no", "never", "none", "nor", "cannot", "nothing", "neither", "without"))
HEDGES = frozenset(("may", "might", "could", "can", "possibly", "perhaps", "likely", "probably", "generally",
                    "usually", "often", "typically", "sometimes", "some", "suggest", "suggests", "believed",
                    "considered", "thought", "seem", "seems", "appear", "appears"))

FEATURES = (
    "cov_best", "cov_second", "cov_union", "cov_win1", "cov_win2", "cov_win3", "ctx_half", "idf_cov_best",
    "bigram_best", "char4_best",
    "n_terms", "n_words", "miss_best", "miss_all", "run_miss",
    "n_numbers", "num_miss_best", "num_miss_all",
    "n_entities", "entity_miss",
    "q_share", "miss_in_q", "novel", "cov_best_q",
    "first", "last", "rel_pos", "n_claims", "answer_cov",
    "rare_share", "negation", "hedge", "lex_unsup", "lex_score",
)


# --- features ---------------------------------------------------------------------------------------

def ordered_terms(text: str) -> list[str]:
    """The text's content terms in order (the sets of ragmon.text have none), one word at a time."""
    return [term for word in _WORD.findall(text) for term in sorted(profile(word).terms)]


def char_grams(text: str, n: int = 4) -> frozenset[str]:
    flat = " " + _NOT_ALNUM.sub(" ", normalise(text)).strip() + " "
    return frozenset(flat[i:i + n] for i in range(len(flat) - n + 1))


@dataclass(frozen=True, slots=True)
class Read:
    """One retrieved context as the features see it."""

    passage: Passage
    sentences: tuple[frozenset[str], ...]
    windows: tuple[tuple[frozenset[str], ...], ...]
    """windows[w - 1]: the terms of every run of w neighbouring sentences"""
    bigrams: frozenset[tuple[str, str]]
    grams: frozenset[str]

    @property
    def terms(self) -> frozenset[str]:
        return self.passage.terms


def read(text: str) -> Read:
    sentences = tuple(profile(text[start:end]).terms for start, end in sentence_spans(text)) or (frozenset(),)
    windows = tuple(tuple(frozenset().union(*sentences[i:i + w])
                          for i in range(max(1, len(sentences) - w + 1))) for w in (1, 2, 3))
    ordered = ordered_terms(text)
    return Read(passage(text), sentences, windows, frozenset(itertools.pairwise(ordered)),
                char_grams(text))


def verdicts(judge: LexicalJudge, example: Example, claims: tuple[Claim, ...]) -> list[bool]:
    """Supported or not per claim, exactly as `ragmon calibrate` would judge it."""
    found = verdicts_without_judge(example, claims)
    if found is None:
        found = judge.judge(example, claims)
    return [v.supported for v in found]


def lexical_scores(items: Sequence[Labelled]) -> list[list[float]]:
    """Per claim, the highest threshold on the grid at which the judge supports it (support only grows as
    the threshold falls), 0.0 when it supports it at none."""
    scores = [[0.0] * len(item.claims) for item in items]
    for threshold in LEXICAL_GRID:
        judge = LexicalJudge(threshold)
        for item, row in zip(items, scores, strict=True):
            for i, supported in enumerate(verdicts(judge, item.example, item.claims)):
                if supported:
                    row[i] = threshold
    return scores


def item_features(item: Labelled, lex_score: Sequence[float]) -> list[list[float]]:
    """One row of FEATURES per claim of the item."""
    example = item.example
    reads = [read(ctx.text) for ctx in example.contexts or ()] or [read("")]
    union = frozenset().union(*(r.terms for r in reads))
    union_numbers = frozenset().union(*(r.passage.numbers for r in reads))
    question = profile(example.question).terms
    df = Counter(term for r in reads for sentence in r.sentences for term in sentence)
    docs = sum(len(r.sentences) for r in reads)
    median_df = sorted(df.values())[len(df) // 2] if df else 0
    rare = frozenset(term for term, count in df.items() if count <= median_df)
    lex_default = verdicts(LexicalJudge(), example, item.claims)

    def idf(term: str) -> float:
        return math.log((docs + 1) / (df.get(term, 0) + 1)) + 1.0

    rows: list[dict[str, float]] = []
    last = len(item.claims) - 1
    for index, claim in enumerate(item.claims):
        claim_profile = profile(claim.text)
        terms, numbers = claim_profile.terms, claim_profile.numbers
        n = len(terms)

        def share(found: frozenset[str], terms: frozenset[str] = terms, n: int = n) -> float:
            return len(terms & found) / n if n else 1.0

        ranked = sorted(reads, key=lambda r, terms=terms: -len(terms & r.terms))
        best = ranked[0]
        ordered = ordered_terms(claim.text)
        pairs = frozenset(itertools.pairwise(ordered))
        grams = char_grams(claim.text)
        run = longest = 0
        for term in ordered:
            run = run + 1 if term not in best.terms else 0
            longest = max(longest, run)
        words = _WORD.findall(claim.text)
        lower = [normalise(w) for w in words]
        entities = [terms_of for w in words[1:] if w[0].isupper() and (terms_of := profile(w).terms)]
        weight = math.fsum(idf(t) for t in terms)
        missing = terms - best.terms
        rows.append({
            "cov_best": share(best.terms),
            "cov_second": share(ranked[1].terms) if len(ranked) > 1 else 0.0,
            "cov_union": share(union),
            **{f"cov_win{w}": max(share(win) for r in reads for win in r.windows[w - 1]) for w in (1, 2, 3)},
            "ctx_half": sum(share(r.terms) >= 0.5 for r in reads),
            "idf_cov_best": math.fsum(idf(t) for t in terms & best.terms) / weight if n else 1.0,
            "bigram_best": max(len(pairs & r.bigrams) / len(pairs) for r in reads) if pairs else 1.0,
            "char4_best": max(len(grams & r.grams) / len(grams) for r in reads) if grams else 1.0,
            "n_terms": n,
            "n_words": len(words),
            "miss_best": len(missing),
            "miss_all": len(terms - union),
            "run_miss": longest,
            "n_numbers": len(numbers),
            "num_miss_best": len(numbers - best.passage.numbers),
            "num_miss_all": len(numbers - union_numbers),
            "n_entities": len(entities),
            "entity_miss": sum(not e <= union for e in entities),
            "q_share": len(terms & question) / n if n else 0.0,
            "miss_in_q": len(missing & question),
            "novel": len(terms - union - question),
            "cov_best_q": share(best.terms | question),
            "first": float(index == 0),
            "last": float(index == last),
            "rel_pos": index / last if last else 0.0,
            "n_claims": len(item.claims),
            "rare_share": len(terms & rare) / n if n else 0.0,
            "negation": sum(w in NEGATIONS or w.endswith("n't") for w in lower),
            "hedge": sum(w in HEDGES for w in lower),
            "lex_unsup": float(not lex_default[index]),
            "lex_score": lex_score[index],
        })
    answer_cov = sum(row["cov_best"] for row in rows) / len(rows) if rows else 0.0
    return [[answer_cov if name == "answer_cov" else row[name] for name in FEATURES] for row in rows]


@dataclass(frozen=True, slots=True)
class Data:
    """Every claim of the dataset as a feature row, with its labels and where it comes from."""

    x: np.ndarray
    unsupported: np.ndarray
    question: np.ndarray
    """index of the claim's question in sorted order: the outer folds"""
    answer: np.ndarray
    """index of the claim's item"""
    hallucinated: np.ndarray
    """per item"""


def build(items: Sequence[Labelled]) -> Data:
    questions = {q: i for i, q in enumerate(sorted({item.example.question for item in items}))}
    rows: list[list[float]] = []
    for item, scores in zip(items, lexical_scores(items), strict=True):
        rows.extend(item_features(item, scores))
    return Data(np.array(rows, dtype=float).reshape(len(rows), len(FEATURES)),
                np.array([u for item in items for u in item.unsupported], dtype=bool),
                np.array([questions[item.example.question] for item in items for _ in item.claims]),
                np.array([i for i, item in enumerate(items) for _ in item.claims]),
                np.array([item.hallucinated for item in items], dtype=bool))


# --- learners ---------------------------------------------------------------------------------------

def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


Learner = Callable[[np.ndarray, np.ndarray, np.ndarray], dict[Hashable, np.ndarray]]
"""(training rows, their labels, rows to score) -> a score per row to score for every hyperparameter
setting; higher means more likely unsupported."""


@dataclass(frozen=True, slots=True)
class Logistic:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    """intercept first, then one per standardised feature"""

    def predict(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(self.weights[0] + ((x - self.mean) / self.scale) @ self.weights[1:])


LOGISTIC_PENALTIES = (0.1, 1.0, 10.0, 100.0, 1000.0)


def fit_logistic(x: np.ndarray, y: np.ndarray, penalty: float) -> Logistic:
    """Minimise summed log-loss + penalty/2 * |w|^2 by Newton's method (strictly convex, so it converges)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    ridge = penalty * np.eye(design.shape[1])
    ridge[0, 0] = 0.0
    w = np.zeros(design.shape[1])
    for _ in range(100):
        p = sigmoid(design @ w)
        hessian = (design * (p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hessian, design.T @ (p - y) + ridge @ w)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return Logistic(mean, scale, w)


def logistic(x: np.ndarray, y: np.ndarray, test: np.ndarray) -> dict[Hashable, np.ndarray]:
    return {penalty: fit_logistic(x, y, penalty).predict(test) for penalty in LOGISTIC_PENALTIES}


BOOST_DEPTHS = (1, 2)
BOOST_ROUNDS = (20, 50, 100, 200, 300)
BOOST_RATE, LEAF_L2, MIN_HESSIAN, MAX_BINS = 0.1, 1.0, 2.0, 32


@dataclass(frozen=True, slots=True)
class Split:
    feature: int
    bin: int
    left: Split | float
    right: Split | float


class Binner:
    """Features as quantile-bin codes of the training data: a split "code <= b" is "value <= edge b"."""

    def __init__(self, x: np.ndarray) -> None:
        inner = np.linspace(0, 1, MAX_BINS + 1)[1:-1]
        self.edges = [np.unique(np.quantile(column, inner)) for column in x.T]
        self.bins = max(len(e) for e in self.edges) + 1

    def codes(self, x: np.ndarray) -> np.ndarray:
        return np.stack([np.searchsorted(e, column, side="left") for e, column in zip(self.edges, x.T,
                                                                                        strict=True)], axis=1)


def grow(codes: np.ndarray, bins: int, g: np.ndarray, h: np.ndarray, rows: np.ndarray, depth: int,
         gains: np.ndarray) -> Split | float:
    """A depth-limited regression tree on the gradients, leaves at the Newton step (XGBoost's gain)."""
    total_g, total_h = g[rows].sum(), h[rows].sum()
    if depth == 0 or len(rows) < 2:
        return -BOOST_RATE * total_g / (total_h + LEAF_L2)
    features = codes.shape[1]
    flat = (codes[rows] + np.arange(features) * bins).ravel()

    def left_sums(values: np.ndarray) -> np.ndarray:
        """Per feature and bin b: the sum over rows whose code is at most b (one bincount for all)."""
        totals = np.bincount(flat, np.repeat(values[rows], features), features * bins)
        return totals.reshape(features, bins).cumsum(axis=1)

    left_g, left_h = left_sums(g), left_sums(h)
    right_g, right_h = total_g - left_g, total_h - left_h
    gain = (left_g ** 2 / (left_h + LEAF_L2) + right_g ** 2 / (right_h + LEAF_L2)
            - total_g ** 2 / (total_h + LEAF_L2))
    gain[(left_h < MIN_HESSIAN) | (right_h < MIN_HESSIAN)] = -np.inf
    feature, cut = divmod(int(np.argmax(gain)), bins)
    if not gain[feature, cut] > 1e-12:
        return -BOOST_RATE * total_g / (total_h + LEAF_L2)
    gains[feature] += gain[feature, cut]
    goes_left = codes[rows, feature] <= cut
    return Split(feature, cut, grow(codes, bins, g, h, rows[goes_left], depth - 1, gains),
                 grow(codes, bins, g, h, rows[~goes_left], depth - 1, gains))


def add_tree(node: Split | float, codes: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    if isinstance(node, Split):
        goes_left = codes[rows, node.feature] <= node.bin
        add_tree(node.left, codes, rows[goes_left], out)
        add_tree(node.right, codes, rows[~goes_left], out)
    else:
        out[rows] += node


def boost(x: np.ndarray, y: np.ndarray, test: np.ndarray, depth: int, rounds: int = max(BOOST_ROUNDS),
          gains: np.ndarray | None = None) -> dict[int, np.ndarray]:
    """Probabilities on `test` after each of BOOST_ROUNDS rounds up to `rounds` (one fit gives them all);
    `gains` adds up each feature's split gain."""
    binner = Binner(x)
    codes, test_codes = binner.codes(x), binner.codes(test)
    rate = min(max(y.mean(), 1e-3), 1 - 1e-3)
    margin = np.full(len(x), math.log(rate / (1 - rate)))
    test_margin = np.full(len(test), margin[0])
    everything, test_rows = np.arange(len(x)), np.arange(len(test))
    gains = np.zeros(x.shape[1]) if gains is None else gains
    staged = {}
    for round_ in range(1, rounds + 1):
        p = sigmoid(margin)
        tree = grow(codes, binner.bins, p - y, p * (1 - p), everything, depth, gains)
        add_tree(tree, codes, everything, margin)
        add_tree(tree, test_codes, test_rows, test_margin)
        if round_ in BOOST_ROUNDS:
            staged[round_] = sigmoid(test_margin)
    return staged


def boosted(x: np.ndarray, y: np.ndarray, test: np.ndarray) -> dict[Hashable, np.ndarray]:
    return {(depth, rounds): p for depth in BOOST_DEPTHS for rounds, p in boost(x, y, test, depth).items()}


def supporting_feature(feature: str) -> Learner:
    """A single feature whose higher values mean support, negated as the score, nothing fitted: its threshold
    is then chosen on the whole training fold (the inner folds see the same values)."""
    at = FEATURES.index(feature)

    def score(x: np.ndarray, y: np.ndarray, test: np.ndarray) -> dict[Hashable, np.ndarray]:
        return {None: -test[:, at]}

    return score


# --- thresholds and folds ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Cuts:
    """Every distinct decision "unsupported when score >= cut", with its precision, recall and F1."""

    cut: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def cuts(scores: np.ndarray, y: np.ndarray) -> Cuts:
    order = np.argsort(-scores, kind="stable")
    ranked, labels = scores[order], y[order]
    tp, fp = np.cumsum(labels), np.cumsum(~labels)
    ends = np.r_[ranked[1:] != ranked[:-1], True]
    tp, fp, ranked = tp[ends], fp[ends], ranked[ends]
    below = np.r_[ranked[1:], -np.inf]
    positives = max(int(y.sum()), 1)
    return Cuts(np.where(np.isfinite(below), (ranked + below) / 2, -np.inf), tp / (tp + fp), tp / positives,
                2 * tp / (tp + fp + positives))


def best_f1(c: Cuts, min_precision: float = 0.0) -> int:
    """Index of the best F1 among cuts with at least this precision (the most precise cut if none has)."""
    allowed = c.precision >= min_precision
    if not allowed.any():
        return int(np.argmax(c.precision))
    return int(np.argmax(np.where(allowed, c.f1, -1.0)))


RULES = (("max F1", 0.0), (f"max F1 at P>={TARGET_P:.2f}", TARGET_P))
"""How a threshold is chosen: (label, minimum precision)."""


@dataclass(frozen=True, slots=True)
class HeldOut:
    """A learner's held-out scores over all folds, its in-fold decisions per rule, and what it chose."""

    scores: np.ndarray
    decisions: tuple[np.ndarray, ...]
    """per rule of RULES: unsupported or not, per claim"""
    chosen: tuple[Hashable, ...]
    cut_ranges: tuple[tuple[float, float], ...]


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(np.where(y, np.log(p), np.log(1 - p))))


def cross_validate(learner: Learner, data: Data, inner_folds: int) -> HeldOut:
    """Leave one question out; everything the held-out question sees was chosen on the others."""
    n = len(data.unsupported)
    scores = np.zeros(n)
    decisions = [np.zeros(n, dtype=bool) for _ in RULES]
    chosen: list[Hashable] = []
    cut_values: list[list[float]] = [[] for _ in RULES]
    for question in np.unique(data.question):
        test, train = data.question == question, data.question != question
        x, y, groups = data.x[train], data.unsupported[train], data.question[train]
        inner = np.searchsorted(np.unique(groups), groups) % inner_folds
        oof: dict[Hashable, np.ndarray] = {}
        for fold in range(inner_folds):
            held = inner == fold
            for setting, p in learner(x[~held], y[~held], x[held]).items():
                oof.setdefault(setting, np.zeros(len(y)))[held] = p
        setting = min(oof, key=lambda s: log_loss(oof[s], y))
        chosen.append(setting)
        inner_cuts = cuts(oof[setting], y)
        scores[test] = learner(x, y, data.x[test])[setting]
        for r, (_, min_precision) in enumerate(RULES):
            cut = float(inner_cuts.cut[best_f1(inner_cuts, min_precision)])
            decisions[r][test] = scores[test] >= cut
            cut_values[r].append(cut)
    return HeldOut(scores, tuple(decisions), tuple(chosen), tuple((min(v), max(v)) for v in cut_values))


# --- report -----------------------------------------------------------------------------------------

def f1_interval(predicted: np.ndarray, data: Data) -> tuple[float, float]:
    """95% percentile interval of sentence F1 when the questions are resampled with replacement."""
    y, questions = data.unsupported, np.unique(data.question)
    counts = np.array([[np.sum(p & t), np.sum(p & ~t), np.sum(~p & t)]
                       for p, t in ((predicted[m], y[m]) for m in (data.question == q for q in questions))])
    draws = np.random.default_rng(0).integers(0, len(questions), (BOOTSTRAP, len(questions)))
    tp, fp, fn = counts[draws].sum(axis=1).T
    f1 = 2 * tp / np.maximum(2 * tp + fp + fn, 1)
    low, high = np.percentile(f1, [2.5, 97.5])
    return float(low), float(high)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """Probability that an unsupported claim scores above a supported one (ties count half)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    positives, negatives = int(y.sum()), int((~y).sum())
    return float((ranks[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def _f(value: float | None) -> str:
    return "    -" if value is None else f"{value:.3f}"


def row(label: str, predicted: np.ndarray, data: Data, scores: np.ndarray | None = None) -> str:
    s = Confusion.of(predicted.tolist(), data.unsupported.tolist())
    per_answer = np.zeros(len(data.hallucinated), dtype=bool)
    np.logical_or.at(per_answer, data.answer, predicted)
    r = Confusion.of(per_answer.tolist(), data.hallucinated.tolist())
    low, high = f1_interval(predicted, data)
    area = "    -" if scores is None else f"{auc(scores, data.unsupported):.3f}"
    return (f"{label:<50} P {_f(s.precision)} R {_f(s.recall)} F1 {_f(s.f1)} [{low:.2f}-{high:.2f}] "
            f"[tp {s.tp:3} fp {s.fp:3} fn {s.fn:3} tn {s.tn:3}] AUC {area} | response P {_f(r.precision)} "
            f"R {_f(r.recall)} F1 {_f(r.f1)} [tp {r.tp:2} fp {r.fp:2} fn {r.fn:2} tn {r.tn:2}]")


def pooled_bound(label: str, scores: np.ndarray, y: np.ndarray) -> str:
    c = cuts(scores, y)
    best, precise = best_f1(c), best_f1(c, TARGET_P)
    if c.precision[precise] < TARGET_P:
        reached = f" (no threshold reaches P {TARGET_P:.2f})"
    else:
        reached = "  target reached" if c.f1[precise] >= TARGET_F1 else "  target not reached"
    return (f"{label:<50} best F1 {c.f1[best]:.3f} (P {c.precision[best]:.3f} R {c.recall[best]:.3f})   "
            f"best F1 at P>={TARGET_P:.2f}: {c.f1[precise]:.3f} (P {c.precision[precise]:.3f} "
            f"R {c.recall[precise]:.3f}){reached}")


def describe(result: HeldOut) -> str:
    """The settings the folds chose, and the range of their thresholds (for a single feature, on the
    feature: a claim is unsupported below it)."""
    if result.chosen[0] is None:
        spans = "; ".join(f"{label} {-high:.3f} to {-low:.3f}"
                          for (label, _), (low, high) in zip(RULES, result.cut_ranges, strict=True))
        return f"thresholds on the feature: {spans}"
    settings = ", ".join(f"{s} x{k}" for s, k in Counter(result.chosen).most_common())
    spans = "; ".join(f"{label} {low:.3f} to {high:.3f}"
                      for (label, _), (low, high) in zip(RULES, result.cut_ranges, strict=True))
    return f"settings chosen: {settings}; thresholds on the probability: {spans}"


def feature_table(data: Data, held: dict[str, HeldOut]) -> None:
    """Univariate AUCs, next to each learner's weights when fitted on all the data (descriptive only)."""
    y = data.unsupported
    penalty = cast(float, Counter(held["logistic regression"].chosen).most_common(1)[0][0])
    depth, rounds = cast(tuple[int, int], Counter(held["boosted trees"].chosen).most_common(1)[0][0])
    weights = fit_logistic(data.x, y, penalty).weights[1:]
    gains = np.zeros(len(FEATURES))
    boost(data.x, y, data.x[:1], depth, rounds, gains)
    share = gains / gains.sum()
    print(f"\nfeatures: univariate AUC for 'unsupported' (0.5 = no signal; < 0.5: higher means supported); "
          f"logistic weight (standardised, penalty {penalty}) and boosting gain share (depth {depth}, "
          f"{rounds} rounds), both fitted on all claims, descriptive only")
    for i, name in sorted(enumerate(FEATURES), key=lambda f: -abs(auc(data.x[:, f[0]], y) - 0.5)):
        area = auc(data.x[:, i], y)
        print(f"  {name:<14} AUC {area:.3f}  |AUC-0.5| {abs(area - 0.5):.3f}  weight {weights[i]:+.3f}  "
              f"gain share {share[i]:.3f}")


def reaches_target(c: Confusion) -> bool:
    return (c.f1 or 0.0) >= TARGET_F1 and (c.precision or 0.0) >= TARGET_P


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", help="labelled ragmon JSONL")
    parser.add_argument("--features", action="store_true", help="also print each feature's univariate AUC")
    parser.add_argument("--inner-folds", type=int, default=5, metavar="K",
                        help="inner folds over the training questions (default 5; 19 = leave one out again)")
    args = parser.parse_args()
    started = time.process_time()
    try:
        items = load_labelled([args.dataset])
    except InputError as exc:  # a file missing or malformed: the message says which and where
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = build(items)
    y, questions = data.unsupported, len(np.unique(data.question))
    if not 2 <= args.inner_folds <= questions - 1:
        parser.error(f"--inner-folds must be between 2 and {questions - 1} (the training questions)")
    print(f"{len(items)} answers to {questions} questions: {len(y)} claims, {int(y.sum())} labelled "
          f"unsupported; {int(data.hallucinated.sum())} answers labelled hallucinated; "
          f"{len(FEATURES)} features")
    print(f"leave one question out ({questions} folds); settings and thresholds chosen on {args.inner_folds} "
          f"inner folds of the training questions; F1 [95% interval, questions resampled]; AUC of the "
          f"held-out scores\n")
    lexical = data.x[:, FEATURES.index("lex_unsup")].astype(bool)
    print(row(f"lexical judge ({LexicalJudge().threshold}, tuned on all of it)", lexical, data))
    learners: dict[str, Learner] = {
        "lexical judge threshold": supporting_feature("lex_score"),
        "best-context coverage": supporting_feature("cov_best"),
        "logistic regression": logistic,
        "boosted trees": boosted,
    }
    held = {name: cross_validate(learner, data, args.inner_folds) for name, learner in learners.items()}
    met = []
    for name, result in held.items():
        for (rule, _), predicted in zip(RULES, result.decisions, strict=True):
            print(row(f"{name}, in-fold {rule}", predicted, data, result.scores))
            if reaches_target(Confusion.of(predicted.tolist(), y.tolist())):
                met.append(f"{name}, in-fold {rule}")
        print(f"  ({describe(result)})")
    print("\noptimistic upper bound: threshold chosen on the pooled held-out scores themselves")
    for name, result in held.items():
        print(pooled_bound(name, result.scores, y))
    weakest = min(LOGISTIC_PENALTIES)
    print(pooled_bound(f"logistic, in-sample (penalty {weakest})",
                       fit_logistic(data.x, y, weakest).predict(data.x), y))
    print(f"\ntarget F1 >= {TARGET_F1:.2f} at P >= {TARGET_P:.2f} with in-fold thresholds: "
          + (f"REACHED by {'; '.join(met)}: the belief that no lexical judge can is WRONG" if met
             else "not reached by any judge or learner above"))
    if args.features:
        feature_table(data, held)
    print(f"\n{time.process_time() - started:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
