"""Corpora of examples that exercise the deterministic scoring path, and what a user sees of a result: the
lexical judge's history test scores `examples` every way a sidecar could, and tests/test_rules.py scores
`every_example` with this build and with the one that set its SCORING_RULES.

The judge's corpora (tests/judges/corpora: answers of many styles and languages against their pages), those
texts varied where the caches could confuse them, claims and passages made of numbers written every way the
judge reads them, the cases the scoring tests pin (`harvested`) and the examples the repo ships.

Run as a script, it scores the examples in the file it is given (`to_json`) with whatever ragmon is first on
the path and prints each one's `figures`: how tests/test_rules.py scores them with another build's code."""

from __future__ import annotations

import ast
import json
import random
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragmon import Context, EvalConfig, Example, LexicalJudge, datasets
from ragmon.evaluation import aggregate_results, evaluate_example
from ragmon.metrics.generation import INSUFFICIENT_CONTEXT
from ragmon.model import ExampleResult

TESTS = Path(__file__).parent
CORPORA = TESTS / "judges" / "corpora"
PINNED = sorted([*TESTS.glob("text/test_*.py"), *TESTS.glob("judges/test_lexical*.py"),
                 *TESTS.glob("metrics/test_*.py"), TESTS / "test_evaluation.py", TESTS / "test_scoring.py"])
"""The test files whose string literals are the cases of claims, verdicts and metrics they pin."""
SHIPPED = TESTS.parent / "examples"


def corpus_examples() -> list[Example]:
    """The corpora that are whole examples, as the judge's tests score them."""
    found = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "contexts" in case:
                contexts = tuple(Context(c["id"], c["text"]) for c in case["contexts"])
                found.append(Example(f"{path.stem}:{case['id']}", case["question"], contexts, case["answer"]))
    return found


def other_corpora() -> list[Example]:
    """The corpora of other shapes: a claim and its passage, an answer and its one page, an answer alone
    (its claims are what counts), a sentence alone (whether it is a claim at all)."""
    found = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "contexts" in case:
                continue
            page = case.get("passage", case.get("context"))
            contexts = () if page is None else (Context("page", page),)
            answer = case.get("answer", case.get("claim", case.get("sentence")))
            found.append(Example(f"{path.stem}:{case['id']}", case.get("question", "?"), contexts, answer))
    return found


def variants(examples: list[Example], rng: random.Random) -> list[Example]:
    """Texts the caches could confuse: equal but for case, Unicode form or whitespace, prefixes of each
    other, one text under two ids, the previous example's answer as a context, a claim against another
    example's contexts."""
    found = []
    for index, example in enumerate(rng.sample(examples, 40)):
        first, *rest = example.contexts or ()
        text, previous = first.text, examples[index - 1]
        for name, changed in (("upper", text.upper()), ("nfd", unicodedata.normalize("NFD", text)),
                              ("spaces", text.replace(" ", "  ")), ("prefix", text[:len(text) // 2])):
            contexts = (Context(first.id, changed), *rest)
            found.append(Example(f"{example.id}:{name}", example.question, contexts, example.answer))
        found.append(Example(f"{example.id}:ids", example.question, (first, Context("again", text), *rest),
                             example.answer))
        with_previous = (first, *rest, Context("previous", previous.answer or ""))
        found.append(Example(f"{example.id}:previous", example.question, with_previous, example.answer))
        found.append(Example(f"{example.id}:elsewhere", example.question, previous.contexts, example.answer))
    return found


_NUMBERS = ("30", "30.0", "030", "60_000", "1_000", "12_345", "$1M", "$2.5B", "9:00", "12:00 million", "−20",
            "-20", "30-day", "2024-03-15", "March 15, 2024", "$1.5 million", "1.000,50 €", "½", "10²", "２４",
            "0.25", ".25", "25%", "1,30", "30,000", "3:30", "1/2", "3-5", "A30", "30th", "minus 30", "twenty",
            "thirty-one", "30 million", "30k", "1.5", "v2.3.0", "5 mg/kg", "1 000", "3,5", "30 per cent",
            "2024年3月15日", "三十", "٣٠", "1st", "0", "1.", "(1)", "1e3", "10^9", "+30", "30—day", "no.30")
_WORDS = ("the", "plan", "costs", "days", "and", "is", "of", "for", "per", "month", "users", "up", "to", "at",
          "over", "under", "\n", ".", ",", "|", "-")


def numbers_examples(count: int, rng: random.Random) -> list[Example]:
    """Claims and passages made of numbers written every way the judge reads them, which passages read
    lazily and cache."""
    def text() -> str:
        words = rng.randint(1, 14)
        return " ".join(rng.choice(_NUMBERS if rng.random() < 0.45 else _WORDS) for _ in range(words))

    pool = [text() for _ in range(count // 2)]

    def example(index: int) -> Example:
        contexts = tuple(Context(f"n{at}", rng.choice(pool)) for at in range(rng.randint(1, 3)))
        claims = [rng.choice(pool) if rng.random() < 0.5 else text() for _ in range(rng.randint(1, 3))]
        return Example(f"numbers:{index}", "how much?", contexts, ". ".join(claims))

    return [example(index) for index in range(count)]


def examples() -> list[Example]:
    """The whole corpus, the same at every call: the generated parts come from a fixed seed."""
    rng = random.Random(38)
    corpora = corpus_examples()
    return corpora + variants(corpora, rng) + numbers_examples(1500, rng)


def outcome(result: ExampleResult) -> list[Any]:
    """What a user sees of a result, as JSON: the verdicts, reasons and metrics."""
    verdicts = [[v.claim.text, v.claim.start, v.supported, list(v.supporting_ids), v.reason]
                for v in result.verdicts]
    return [verdicts, [list(metric) for metric in sorted(result.metrics.items())],
            list(result.relevant_not_retrieved), list(result.retrieved_unused)]


def harvested(files: list[Path] = PINNED) -> list[Example]:
    """The cases the scoring tests pin, read from their source: every tuple, list or call of two or more
    strings is a page and the texts beside it, each scored against it both ways round (a test writes them
    in either order); a call of one string is paired so with each string its function names
    (`supported(page)` for an `answer = ...`); and every string of a dozen characters or more is an answer
    alone, which tests how it is cut into claims. A string is a literal, literals joined with `+`, or a name
    the module or the function assigns one to; an f-string is not read. A change that moves how ragmon
    scores them comes with such a test, which the build before it scores otherwise."""
    pairs: dict[tuple[str, str], None] = {}
    alone: dict[str, None] = {}
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _assigned(tree.body, {})
        functions = [node for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
        for scope in [tree, *functions]:
            local = _assigned(ast.walk(scope), module) if scope is not tree else {}
            named = {**module, **local}
            for node in ast.walk(scope):
                strings = [text for item in _items(node) if (text := _string(item, named)) is not None]
                for other in strings[1:]:
                    pairs.update({(strings[0], other): None, (other, strings[0]): None})
                for held in local.values() if len(strings) == 1 else ():  # `supported(page)` of `answer`
                    pairs.update({(strings[0], held): None, (held, strings[0]): None})
                text = _string(node, named) if not isinstance(node, ast.Name) else None
                if text is not None and len(text) >= 12:
                    alone[text] = None
    return [*(Example(f"pinned:{index}", "?", (Context("page", page),), answer)
              for index, (page, answer) in enumerate(pairs)),
            *(Example(f"alone:{index}", "?", (), answer) for index, answer in enumerate(alone))]


def _string(node: ast.AST, named: dict[str, str]) -> str | None:
    """The text `node` spells: a literal, literals joined with `+`, or a name assigned one."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return named.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left, named), _string(node.right, named)
        return None if left is None or right is None else left + right
    return None


def _assigned(nodes: Iterable[ast.AST], named: dict[str, str]) -> dict[str, str]:
    """The names these statements assign a string to, and the string."""
    return {target.id: text for node in nodes if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)
            if (text := _string(node.value, named)) is not None}


def _items(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Tuple | ast.List):
        return node.elts
    if isinstance(node, ast.Call):
        return [*node.args, *(keyword.value for keyword in node.keywords)]
    return []


def shipped() -> list[Example]:
    """The examples the repo ships that have answers: relevant ids, references and citations, so every
    metric is computed."""
    return [replace(example, id=f"shipped:{example.id}")
            for example in datasets.load(sorted(SHIPPED.glob("*.jsonl"))) if example.answer is not None]


def metric_cases() -> list[Example]:
    """The shipped examples bent where retrieval and citation figures have edges: an id retrieved twice,
    more relevant ids than any k, none, citations repeated or of no retrieved document, the ranks
    reversed, no contexts, an empty answer, a ground truth in guillemets and a Chinese full stop, one
    with a euro sign."""
    found = []
    for example in shipped():
        contexts, cited = example.contexts or (), example.citations or ()
        many = frozenset({c.id for c in contexts} | {f"x{n}" for n in range(12)})
        bent = {"twice": {"contexts": (*contexts[:1], *contexts)},
                "many_relevant": {"relevant_ids": many},
                "none_relevant": {"relevant_ids": frozenset()},
                "cited_twice": {"citations": (*cited, *cited, "not-retrieved")},
                "reversed": {"contexts": tuple(reversed(contexts))},
                "no_contexts": {"contexts": None},
                "empty_answer": {"answer": ""}}
        if example.ground_truth not in (None, INSUFFICIENT_CONTEXT):  # answer_correctness's punctuation
            bent["punctuated_truth"] = {"ground_truth": f"« {example.ground_truth} »。"}
            bent["priced_truth"] = {"ground_truth": f"{example.ground_truth} €"}
        found += [replace(example, id=f"metrics:{name}:{example.id}", **changes)
                  for name, changes in bent.items()]
    return found


def every_example() -> list[Example]:
    """All of the above: what tests/test_rules.py scores."""
    return [*examples(), *other_corpora(), *harvested(), *shipped(), *metric_cases()]


SETTINGS: tuple[tuple[int | None, float | None], ...] = ((None, None), (1, None), (3, 0.4), (10, 0.8))
"""(k, lexical threshold), None for the default (EvalConfig's k, LexicalJudge's threshold, which a change
moves every user's figures with): every example is scored at the first, the defaults; the shipped and
metric cases at each."""
VARIED = ("shipped:", "metrics:")


def figures(result: ExampleResult) -> list[Any]:
    """What a comparison of two runs reads of a result: the claims, each verdict and what supports it, every
    metric (to the 12 decimals a gate compares at). Not the reasons' wording, which moves no figure."""
    claims = [[v.claim.text, v.claim.start, v.supported, sorted(v.supporting_ids)] for v in result.verdicts]
    metrics = [[name, None if value is None else round(value, 12)]
               for name, value in sorted(result.metrics.items())]
    return [claims, metrics, list(result.relevant_not_retrieved), list(result.retrieved_unused)]


def scored(examples: list[Example]) -> dict[str, Any]:
    """Each example's `figures` at each of its SETTINGS, by id (with the setting past the defaults); the
    error's type where scoring it failed, which another build may not. Then the aggregates (means, counts,
    bootstrap intervals) of the shipped and metric cases and of the first 2,000 examples, at two
    confidences."""
    found: dict[str, Any] = {}
    results = []
    for k, threshold in SETTINGS:
        judge = LexicalJudge() if threshold is None else LexicalJudge(threshold)
        default = (k, threshold) == SETTINGS[0]
        for example in examples:
            if not default and not example.id.startswith(VARIED):
                continue
            key = example.id if default else f"{example.id}@k={k},threshold={threshold}"
            try:
                result = evaluate_example(example, judge, EvalConfig().k if k is None else k)
            except Exception as exc:  # an outcome to compare like any other
                found[key] = f"error: {type(exc).__name__}"
                continue
            found[key] = figures(result)
            if default:
                results.append(result)
    for name, subset in (("varied", [r for r in results if r.example.id.startswith(VARIED)]),
                         ("first", results[:2000])):
        for confidence in (0.95, 0.9):
            found[f"aggregates:{name}@{confidence}"] = {
                metric: [None if a.mean is None else round(a.mean, 12), a.n,
                         None if a.ci is None else [round(bound, 12) for bound in a.ci]]
                for metric, a in aggregate_results(subset, EvalConfig(confidence=confidence)).items()}
    return found


def to_json(examples: list[Example]) -> str:
    return json.dumps([[e.id, e.question,
                        None if e.contexts is None else [[c.id, c.text, c.score] for c in e.contexts],
                        e.answer,
                        None if e.relevant_ids is None else sorted(e.relevant_ids),
                        None if e.citations is None else list(e.citations), e.ground_truth, e.category]
                       for e in examples])


def from_json(text: str) -> list[Example]:
    return [Example(example_id, question,
                    None if contexts is None else tuple(Context(*context) for context in contexts), answer,
                    None if relevant is None else frozenset(relevant),
                    None if citations is None else tuple(citations), ground_truth, category)
            for example_id, question, contexts, answer, relevant, citations, ground_truth, category
            in json.loads(text)]


if __name__ == "__main__":
    print(json.dumps(scored(from_json(Path(sys.argv[1]).read_text(encoding="utf-8"))), ensure_ascii=False))
