"""How `wrapper_weights.json` is made: `python -m ragmon.text.wrapper_training tests/judges/corpora` trains
the wrapper model (`ragmon.text.wrapper_model`) on the labelled sentences of the corpora `TRAINING` names
and writes its weights. Plain Python and a fixed order, so the same corpora give the same weights on any
machine (a test retrains and compares).
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragmon.text.claims import sentence_spans
from ragmon.text.wrapper_model import SCALE, WEIGHTS, features

TRAINING = (
    "english_counts.jsonl", "english_fees.jsonl", "english_policy.jsonl", "english_quotas.jsonl",
    "english_support.jsonl", "english_tables.jsonl", "english_technical.jsonl", "european.jsonl",
    "european_2.jsonl", "european_3.jsonl", "european_4.jsonl", "wrapper_sentences.jsonl",
    "wrapper_sentences_en.jsonl", "wrapper_sentences_3.jsonl", "chatty_answers.jsonl",
    "explanatory_answers.jsonl", "wrapper_sentences_4.jsonl", "chatty_answers_2.jsonl",
    "wrapper_sentences_5.jsonl", "chatty_answers_3.jsonl",
)
"""The corpora with wrappers labelled: sentence sets (`label`) and answers (`not_claims`, every other
sentence of the answer a claim). Each version of the model was measured on sets written after it before
they joined these (README "The lexical judge"); the sets written after this one (`HELD_OUT`) measure it."""
HELD_OUT = ("wrapper_sentences_6.jsonl", "chatty_answers_4.jsonl", "chatty_answers_5.jsonl",
            "chatty_answers_6.jsonl", "chatty_answers_7.jsonl")

EPOCHS = 60
RATE = 0.5
DECAY = 0.1
"""The step shrinks as 1 / (1 + DECAY x epoch)."""
L2 = 1e-2
LEAST_SEEN = 2
"""A feature seen in one sentence only is that sentence's, not a wrapper's: left out."""


@dataclass(frozen=True)
class Labelled:
    sentence: str
    wrapper: bool
    corpus: str


def labelled(directory: Path, names: Sequence[str] = TRAINING) -> Iterator[Labelled]:
    """The labelled sentences of the corpora, in file and line order."""
    for name in names:
        for line in (directory / name).read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "sentence" in case:
                yield Labelled(case["sentence"], case["label"] == "wrapper", name)
                continue
            not_claims = set(case["not_claims"])
            answer = case["answer"]
            for start, end in sentence_spans(answer):
                sentence = answer[start:end].strip()
                if any(map(str.isalpha, sentence)):  # an emoji the splitter parts from its sentence is none
                    yield Labelled(sentence, sentence in not_claims or sentence.strip("*_ -") in not_claims,
                                   name)


def train(examples: Sequence[Labelled]) -> tuple[dict[str, int], int]:
    """Logistic regression by stochastic gradient descent, each class weighted by its rarity (wrappers are
    a quarter of the sentences), weights in `SCALE` units."""
    rows = [(sorted(features(example.sentence)), example.wrapper) for example in examples]
    seen = Counter(feature for found, _ in rows for feature in found)
    rows = [([feature for feature in found if seen[feature] >= LEAST_SEEN], wrapper)
            for found, wrapper in rows]
    wrappers = sum(wrapper for _, wrapper in rows)
    if not 0 < wrappers < len(rows):
        raise ValueError(f"training needs wrappers and claims: {wrappers} wrappers of {len(rows)} sentences")
    class_weight = {True: len(rows) / (2 * wrappers), False: len(rows) / (2 * (len(rows) - wrappers))}
    weights: dict[str, float] = dict.fromkeys(sorted(seen), 0.0)
    bias = 0.0
    for epoch in range(EPOCHS):
        step = RATE / (1 + epoch * DECAY)
        for found, wrapper in rows:
            score = min(max(bias + sum(weights[feature] for feature in found), -30.0), 30.0)
            gradient = (1.0 / (1.0 + math.exp(-score)) - wrapper) * class_weight[wrapper]
            bias -= step * gradient
            for feature in found:
                weights[feature] -= step * (gradient + L2 * weights[feature])
    scaled = {feature: round(weight * SCALE) for feature, weight in weights.items()}
    return {feature: weight for feature, weight in scaled.items() if weight}, round(bias * SCALE)


def main(argv: Sequence[str] = sys.argv[1:]) -> int:
    if len(argv) != 1:
        print("usage: python -m ragmon.text.wrapper_training CORPORA_DIRECTORY", file=sys.stderr)
        return 2
    weights, bias = train(list(labelled(Path(argv[0]))))
    WEIGHTS.write_text(json.dumps({"trained_on": list(TRAINING), "bias": bias, "weights": weights},
                                  ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n",
                       encoding="utf-8")
    print(f"{len(weights)} weights written to {WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
