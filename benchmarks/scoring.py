"""Lexical scoring throughput on one core: `evaluate_example` over generated, realistic RAG examples.

Target: at least 3,000 examples/s with every passage new (nothing cached flatters the judge). Each example
has 5 retrieved passages of ~200 words and a 4-sentence answer (3 sentences taken from the passages,
lightly reworded, and one made up). The text is pseudo-English: a 40,000-word vocabulary drawn with
Zipf frequencies, about half function words, capitalised names, numbers in digits and in words, and list
items, so the word and stem caches see a realistic long tail. Four workloads:

- all new: every passage is seen once (a sidecar scoring traces from a corpus larger than its cache);
- production mix: passages drawn from a 20,000-passage corpus by Zipf popularity, so the popular ones
  repeat as they do in a real retrieval system (and hit the passage cache);
- open vocabulary: every passage new, and words drawn from 200,000 (a corpus of names, codes and jargon),
  so about one content word in ten is one the stemming cache no longer holds: what a miss costs;
- English pages: the 466 answers of the English corpora in tests/judges/corpora (support pages, technical
  documentation, policies, pricing tables, doses, fees), real prose full of numbers with units, tables and
  wrappers, which the generated text has none of; every page read anew on each pass (`PASSES` per run);
- Chinese and Japanese pages: the 85 answers of tests/judges/corpora/chinese_japanese.jsonl, likewise;
- Chinese, open vocabulary: 5 new passages of 400 characters and an answer of two sentences of 60, drawn
  by Zipf frequency from 3,000 ideographs: nearly every pair of characters (what ragmon reads as a term)
  is new, as in a pipeline over a large Chinese corpus.

Under the all-new figure, its two ceilings on the machine at hand: its passages read as the judge reads them
(`Passage`, uncached) and nothing else, and their words alone (`words_alone`): the all-new rate can reach
neither, whatever the claims, verdicts and metrics cost.

Each workload first scores a warm-up set (steady state, as a long-lived process is), then times `--runs`
sets of new examples in CPU time and prints their median and range.

Then the memory the lexical judge's caches hold in one scoring process (the sidecar has one per worker)
once full, by passage length: the 4,096-passage cache with the texts it keeps alive, and the stemming cache
(traced by tracemalloc, the caches emptied first); and the same for passages of 400 Chinese characters.
Run: `.venv/bin/python benchmarks/scoring.py [--examples N] [--runs N]`.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import itertools
import json
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import ragmon.text.claims
import ragmon.text.passages
import ragmon.text.terms
from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example

TARGET = 3_000
CORPORA = Path(__file__).resolve().parent.parent / "tests" / "judges" / "corpora"
OPEN_VOCABULARY = 200_000
FUNCTION_WORDS = (
    "the of and to a in is that for it as was with be by on not he this are or his from at which but have an",
    "they you were her she there been one all we their has would when if so no will more can who its into",
    "than them only could may other these also then after should any most such between over about through",
    "before very while during because both where each",
)
FUNCTION = " ".join(FUNCTION_WORDS).split()
NUMBER_WORD_LIST = ("two three four five six ten twelve twenty thirty fifty hundred thousand million",)
NUMBER_WORDS = " ".join(NUMBER_WORD_LIST).split()
SYLLABLE_LIST = (
    "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge gi go ha he hi ho la le li lo lu",
    "ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve",
    "vi vo za ze zi zo ar er ir or ur an en in on un al el il ol st tr pr gr",
)
SYLLABLES = " ".join(SYLLABLE_LIST).split()
ENDINGS = ("", "", "", "s", "ed", "ing", "ion", "ment", "ly", "er", "ness", "ity", "al", "ous", "ive")


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < size:
        root = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 4))))
        words[root + rng.choice(ENDINGS)] = None
    return list(words)


class Writer:
    """Sentences from a Zipf-distributed vocabulary; cumulative weights make each draw a bisect."""

    def __init__(self, seed: int, size: int = 40_000) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng, size)
        self.cumulative = list(itertools.accumulate(1 / rank for rank in range(1, size + 1)))

    def word(self) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return rng.choice(FUNCTION)
        word = self.words[bisect.bisect(self.cumulative, rng.random() * self.cumulative[-1])]
        roll = rng.random()
        if roll < 0.04:
            return word.capitalize()
        if roll < 0.07:
            return str(rng.choice((rng.randint(1, 99), rng.randint(1900, 2030), rng.randint(100, 99_999))))
        if roll < 0.075:  # spelled-out numbers: ~0.25% of words, as in English prose
            return rng.choice(NUMBER_WORDS)
        return word

    def sentence(self, length: int) -> str:
        words = [self.word() for _ in range(length)]
        if self.rng.random() < 0.3:
            words[self.rng.randrange(1, length)] += ","
        return " ".join(words).capitalize() + "."

    def passage(self, words: int = 200) -> str:
        body: list[str] = []
        count = 0
        while count < words:
            length = self.rng.randint(12, 25)
            body.append(self.sentence(length))
            count += length
        if self.rng.random() < 0.2:  # some passages are lists
            return "\n".join(f"- {s}" for s in body)
        return " ".join(body)

    def answer(self, passages: list[str]) -> str:
        sentences = []
        for _ in range(3):
            parts = self.rng.choice(passages).replace("\n- ", " ").lstrip("- ").split(". ")
            words = self.rng.choice(parts).rstrip(".").split()
            for _ in range(self.rng.randint(0, 2)):  # light rewording
                words[self.rng.randrange(len(words))] = self.word()
            sentences.append(" ".join(words) + ".")
        sentences.append(self.sentence(self.rng.randint(10, 20)))
        return " ".join(sentences)


def examples(writer: Writer, count: int, passages: list[str] | None) -> list[Example]:
    """`passages=None`: every passage new; else drawn from that corpus by Zipf popularity."""
    rng = writer.rng
    ranks = range(1, len(passages) + 1) if passages else range(0)
    cumulative = list(itertools.accumulate(1 / rank for rank in ranks))
    out = []
    for index in range(count):
        if passages:
            texts = [passages[bisect.bisect(cumulative, rng.random() * cumulative[-1])] for _ in range(5)]
        else:
            texts = [writer.passage() for _ in range(5)]
        contexts = tuple(Context(f"doc-{index}-{rank}", text) for rank, text in enumerate(texts))
        out.append(Example(f"ex-{index}", writer.sentence(10).rstrip(".") + "?", contexts,
                           writer.answer(texts)))
    return out


def rate(items: list[Example], judge: LexicalJudge) -> float:
    started = time.process_time()
    for example in items:
        evaluate_example(example, judge, 5)
    return len(items) / (time.process_time() - started)


def reading_rate(items: list[Example], read: Callable[[str], object]) -> float:
    """Examples/s of `read` over each example's passages and nothing else."""
    texts = [context.text for example in items for context in example.contexts or ()]
    started = time.process_time()
    for text in texts:
        read(text)
    return len(items) / (time.process_time() - started)


def words_alone(text: str) -> object:
    """What any judge that stems every word of a passage in Python does at the least: lower-case and
    separate it, split it and look each word's stem up in a warm cache, its terms kept once each."""
    return dict.fromkeys(map(ragmon.text.terms.TERMS.__getitem__,
                             ragmon.text.terms.separated(ragmon.text.terms.prepare(text)).split()))


def reading_rates(writer: Writer, count: int, runs: int) -> tuple[list[float], list[float]]:
    """The all-new workload's ceilings: its passages read as the judge reads them (`Passage`, uncached),
    and their words alone (`words_alone`), on new examples each run, sorted."""
    whole, words = [], []
    for _ in range(runs):
        items = examples(writer, count, None)
        whole.append(reading_rate(items, ragmon.text.passages.Passage))
        words.append(reading_rate(items, words_alone))
    return sorted(whole), sorted(words)


def rates(writer: Writer, judge: LexicalJudge, count: int, runs: int,
          corpus: list[str] | None) -> list[float]:
    """A warm-up set, then `runs` rates, each over `count` examples never scored before, sorted."""
    rate(examples(writer, 2_000, corpus), judge)
    return sorted(rate(examples(writer, count, corpus), judge) for _ in range(runs))


ENGLISH_PAGES = ("english_fees", "english_policy", "english_support", "english_tables", "english_technical")
"""The English corpora of the workload (support, technical and policy pages, pricing tables, doses, fees:
real prose full of numbers with units, tables and wrappers, which the generated text has none of), named so
its figures compare from one session to the next (466 answers): corpora added later are not in it."""


def pages(corpora: tuple[str, ...]) -> list[Example]:
    """The answers of `corpora` (`tests/judges/corpora/`), with their pages."""
    found = []
    for name in corpora:
        for line in (CORPORA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            contexts = tuple(Context(c["id"], c["text"]) for c in case["contexts"])
            found.append(Example(case["id"], case["question"], contexts, case["answer"]))
    return found


IDEOGRAPHS = [chr(0x4E00 + n) for n in range(3_000)]
IDEOGRAPH_WEIGHTS = list(itertools.accumulate(1 / (rank + 1) for rank in range(3_000)))


def chinese_text(rng: random.Random, length: int) -> str:
    return "".join(rng.choices(IDEOGRAPHS, cum_weights=IDEOGRAPH_WEIGHTS, k=length)) + "\u3002"


def chinese_examples(rng: random.Random, count: int) -> list[Example]:
    """Every passage new; the answer's first sentence copied from one, the second made up."""
    out = []
    for n in range(count):
        contexts = tuple(Context(f"c{n}-{k}", chinese_text(rng, 400)) for k in range(5))
        answer = contexts[0].text[100:160] + "\u3002" + chinese_text(rng, 60)
        out.append(Example(f"zh{n}", chinese_text(rng, 15), contexts, answer))
    return out


def chinese_rates(judge: LexicalJudge, count: int, runs: int) -> list[float]:
    rng = random.Random(17)
    rate(chinese_examples(rng, count // 4), judge)
    return sorted(rate(chinese_examples(rng, count // 4), judge) for _ in range(runs))


def cold_rates(items: list[Example], judge: LexicalJudge, runs: int) -> list[float]:
    """`runs` rates, each over `PASSES` passes of the examples, every pass with the passage, profile and
    claim caches emptied first (every page read anew; stems stay cached, as in a long-lived process),
    sorted."""
    measured = []
    for _ in range(runs):
        spent = 0.0
        for _ in range(PASSES):
            ragmon.text.passages.clear_cache()
            ragmon.text.terms.clear_cache()
            ragmon.text.claims.clear_cache()
            spent += len(items) / rate(items, judge)
        measured.append(PASSES * len(items) / spent)
    return sorted(measured)


PASSES = 5


def figure(measured: list[float]) -> str:
    """Median and range: a single run on a shared machine moves by several per cent."""
    median = statistics.median(measured)
    return f"{median:8,.0f} examples/s  ({measured[0]:,.0f}-{measured[-1]:,.0f})"


def cache_memory(new_passage: Callable[[], str]) -> float:
    """MiB held by full passage and stemming caches after reading 4,096 new passages: what reading them
    allocates and keeps, the texts the passage cache keeps alive included (traced)."""
    ragmon.text.passages.clear_cache()
    ragmon.text.terms.TERMS.clear()
    tracemalloc.start()
    for _ in range(ragmon.text.passages.ENTRIES):
        ragmon.text.passages.passage(new_passage())
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return held / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5_000, help="examples per run (default 5,000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per workload (default 3)")
    args = parser.parse_args()
    count, runs = args.examples, args.runs
    writer = Writer(seed=11)
    judge = LexicalJudge()
    all_new = rates(writer, judge, count, runs, None)
    production = rates(writer, judge, count, runs, [writer.passage() for _ in range(20_000)])
    open_vocabulary = rates(Writer(seed=13, size=OPEN_VOCABULARY), judge, count, runs, None)
    print(f"lexical judge {dict(judge.settings())}, {runs} runs of {count:,} examples per workload, 4 claims "
          f"and 5 passages of ~200 words each, one core (CPU time), median (range):")
    print(f"  all new passages   {figure(all_new)}  target >= {TARGET:,}")
    passages_read, words_read = reading_rates(writer, count, runs)
    print(f"    its passages alone {figure(passages_read)}  the 5 passages read as the judge reads them, "
          "nothing else: its ceiling")
    print(f"    their words alone  {figure(words_read)}  each word split off and its stem looked up, "
          "nothing else: the ceiling of any judge stemming every word in Python, on this machine")
    print(f"  production mix     {figure(production)}  passages recur: 20,000-passage corpus")
    print(f"  open vocabulary    {figure(open_vocabulary)}  all new: {OPEN_VOCABULARY:,}-word vocabulary")
    for name, corpora, what in (("English pages", ENGLISH_PAGES, "English corpora"),
                                ("Chinese, Japanese", ("chinese_japanese",), "Chinese and Japanese corpus")):
        answers = pages(corpora)
        print(f"  {name:19s}{figure(cold_rates(answers, judge, runs))}  the {len(answers)} answers of the "
              f"{what}, every page read anew")
    print(f"  Chinese, open      {figure(chinese_rates(judge, count, runs))}  all new: passages of 400 "
          "characters from 3,000")
    held = {f"{words:,} words": cache_memory(functools.partial(writer.passage, words))
            for words in (200, 800, 2_000)}
    rng = random.Random(19)
    held["400 Chinese characters"] = cache_memory(functools.partial(chinese_text, rng, 400))
    print("caches held per scoring process, by passage length: "
          + ", ".join(f"{length} {mib:.0f} MiB" for length, mib in held.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
