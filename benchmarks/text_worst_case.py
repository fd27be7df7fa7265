"""Time of ragmon.text on adversarial inputs of 10 kB, 100 kB and 1 MB: linear or not.

The sidecar reads untrusted text (retrieved documents, model answers), so a regex that backtracks or a
loop that rereads the text is a denial of service. Each case below was quadratic (or crashed) once, but
those named "reference", the slowest linear cases found. A case stops growing once one
size takes over `--limit` seconds (a quadratic case would take minutes at the next). Caches are emptied
before every timing. Figures are wall-clock seconds and, after the first size, the growth from the size
before: about 10x per 10x is linear, about 100x quadratic.

Run: `.venv/bin/python benchmarks/text_worst_case.py [--limit SECONDS]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.text import abstention, claims, passages, terms

SIZES = (10_000, 100_000, 1_000_000)
JUDGE = LexicalJudge()


def judged(answer: str, context: str) -> None:
    evaluate_example(Example(id="e", question="what?", answer=answer, contexts=(Context("c", context),)),
                     JUDGE, 5)


def repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def many_numbers(size: int) -> None:
    """A claim of size/10 characters listing distinct numbers, against a passage that states them all
    after size padding: every number was looked for across the whole passage, twice."""
    listed = " ".join(f"{i / 100:.2f}" for i in range(1, size // 50 + 2))
    judged(f"Values {listed}", f"{'x ' * (size // 2)}Values {listed}")


def lookalikes(size: int) -> None:
    """A claim of 15 numbers, 1, 11, ..., 111111111111111, against a passage of size "1"s then the claim:
    each number was looked at in Python at every place of the run before its plain digits were found."""
    listed = " ".join("1" * n for n in range(1, 16))
    judged(f"Values {listed}", f"{'1' * size} Values {listed}")


def footnotes(size: int) -> None:
    """An answer citing [1] once, then a block of "[n] title" lines: each label was looked for with a
    regex compiled for it across the whole answer."""
    block = "\n".join(f"[{i}] title {i}" for i in range(size // 14))
    claims.split_claims(f"Refunds take 30 days [1].\n\n{block}")


def literal_claims(size: int) -> None:
    """Claims naming code against a context of size characters: the context was prepared again for
    each claim."""
    judged(repeat("Set `max_retries` to 3. ", size // 10), repeat("set max_retries to 3 ", size // 21))


def dated_claim(size: int) -> None:
    """A claim's date against a passage of size characters of distinct years and month days."""
    passage = " ".join(f"March {1 + i % 28} {1000 + i % 2000}" for i in range(size // 16))
    judged("The sale ended on March 15, 2024.", "The sale ended. " + passage)


def many_passages(size: int) -> None:
    """Claims with a unit against 50 passages of 150 sentences, each of which they pass on: with more
    passages than the sentence cache kept, each claim read every passage's sentences again."""
    contexts = tuple(Context(f"c{k}", repeat(f"The Alpha plan costs $5 a day. Beta costs ${k} a day. ", 6000))
                     for k in range(50))
    evaluate_example(Example(id="e", question="what?", answer=repeat("The Alpha plan costs $5 a day. ", size),
                             contexts=contexts), JUDGE, 5)


CASES: dict[str, Callable[[int], object]] = {
    "sentence marks not followed by a space (split_claims)":
        lambda n: claims.split_claims("It was" + "." * n + "x"),
    "a chain of abbreviations 'x. x. x.' (split_claims)": lambda n: claims.split_claims(repeat("x. ", n)),
    "a word of y's + 'ness' (profile)": lambda n: terms.profile("y" * n + "ness"),
    "a title over a line of spaces then 'x' (split_claims)":
        lambda n: claims.split_claims("Title\n" + " " * n + "x"),
    "a claim of many numbers, all stated (judge)": many_numbers,
    "numbers behind many lookalikes (judge)": lookalikes,
    "Chinese negations '我无法我无法' (split_claims)": lambda n: claims.split_claims(repeat("我无法", n)),
    "Chinese negations '不不不' (passage)": lambda n: passages.passage(repeat("不", n)),
    "reference, linear: 'US US US' (passage numbers)": lambda n: passages.passage(repeat("US ", n)).numbers,
    "reference, linear: '- x' list items, one claim each (judge)":
        lambda n: judged(repeat("- x\n", n), "x"),
    "reference, linear: '1,1,1' (profile)": lambda n: terms.profile(repeat("1,", n)),
    "reference, linear: 'Step 1. ' (split_claims)": lambda n: claims.split_claims(repeat("Step 1. ", n)),
    "reference, linear: '(1) x ' (profile)": lambda n: terms.profile(repeat("(1) x ", n)),
    "reference, linear: '(source 1, 1, ...' unclosed (profile)":
        lambda n: terms.profile("(source " + repeat("1, ", n)),
    "reference, linear: '**1. ' bold markers (split_claims)":
        lambda n: claims.split_claims(repeat("**1. ", n)),
    "reference, linear: 'the the ... does not mention' (split_claims)":
        lambda n: claims.split_claims(repeat("the ", n) + "does not mention"),
    "reference, linear: '$1m$1m' (profile)": lambda n: terms.profile(repeat("$1m", n)),
    "reference, linear: '。。。' then a word (split_claims)":
        lambda n: claims.split_claims("退款" + "。" * n + "受理"),
    "reference, linear: a Chinese run against itself (judge)": lambda n: judged(repeat("退款受理", n),
                                                                                repeat("退款受理", n)),
    "reference, linear: '（来源：' unclosed (profile)":
        lambda n: terms.profile("（来源：" + repeat("文档1，", n)),
    "reference, linear: '一二三' numerals, no counter (passage)":
        lambda n: passages.passage(repeat("一二三", n)),
    "reference, linear: '1,5 1,5' decimal commas (passage numbers)":
        lambda n: passages.passage(repeat("1,5 ", n)).numbers,
    "reference, linear: 'nicht nicht' negations (passage)": lambda n: passages.passage(repeat("nicht ", n)),
    "reference, linear: 'できません' repeated (passage)": lambda n: passages.passage(repeat("できません", n)),
    "reference, linear: '根据资料' repeated (split_claims)":
        lambda n: claims.split_claims(repeat("根据资料，", n) + "退款"),
    "a closing block of footnotes '[n] title' (split_claims)": footnotes,
    "claims with literals against a long context (judge)": literal_claims,
    "claims stating a number its long context writes (judge)":
        lambda n: judged(repeat("Set the limit to 3 now. ", n // 10), repeat("set the limit to 3 now ", n)),
    "reference, linear: a claim's date against many years (judge)": dated_claim,
    "units against 200 sentences giving other numbers (judge)": lambda n: judged(
        repeat("The fee is $5 a day. ", n), repeat("The fee is $5 a day. A fee is $6 a day. ", 4_000)),
    "units against 50 passages of 150 sentences (judge)": many_passages,
    "reference, linear: '5 mg 5 mcg' units (judge)": lambda n: judged("It holds 5 mcg.", repeat("5 mg ", n)),
    "days of months with no year 'on may 5 and june 1' (profile)":
        lambda n: terms.profile(repeat("on may 5 and june 1 ", n)),
    "reference, linear: 'two two' number words and a unit (judge)":
        lambda n: judged("It takes two days.", "It takes two days. " + repeat("two ", n)),
    "an emoji then variation selectors '📚\ufe0f\ufe0f' (is_abstention)":
        lambda n: abstention.is_abstention("📚" + "\ufe0f" * n),
}


def clear() -> None:
    terms.clear_cache()
    passages.clear_cache()
    claims.clear_cache()
    terms.TERMS.clear()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=2.0, help="stop a case after a size slower than this")
    args = parser.parse_args()
    print(f"{'case':62} " + " ".join(f"{size:>16,}" for size in SIZES))
    for name, case in CASES.items():
        cells: list[str] = []
        previous = None
        for size in SIZES:
            clear()
            start = time.perf_counter()
            try:
                case(size)
            except Exception as exc:  # a crash is a finding: print it instead of the time
                cells.append(f"{type(exc).__name__:>16}")
                break
            seconds = time.perf_counter() - start
            growth = f"x{seconds / previous:.0f}" if previous else ""
            cells.append(f"{seconds:>10.3f}s {growth:>5}")
            previous = seconds
            if seconds > args.limit:
                break
        print(f"{name:62} " + " ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
