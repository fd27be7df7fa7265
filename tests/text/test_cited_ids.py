"""Answers that cite their example's retrieved documents by id, in the forms pipelines write: the citation is
read out of the claim before any judge sees it, and made-up sentences and ids stay as they are."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.evaluation import example_claims
from ragmon.model import Claim, ClaimVerdict, ExampleResult

PAGE = "Returns are accepted within thirty days of delivery for a full refund."
SAID = "Returns are accepted within thirty days of delivery for a full refund"
MADE_UP = "Returns are accepted within ninety days of purchase for store credit only"
IDS = ("KB-1234", "faq-12", "chunk-0042", "returns_policy.md", "doc-3", "policy.pdf")
URL = "https://help.example.com/kb/1234"

CITED = {
    "parenthesised id": "{} (KB-1234).",
    "see": "{} (see faq-12).",
    "zero-padded chunk": "{} (chunk-0042).",
    "source: file name": "{} (Source: returns_policy.md).",
    "cf.": "{} (cf. KB-1234).",
    "ref": "{} (ref KB-1234).",
    "two ids": "{} (KB-1234; faq-12).",
    "two ids and and": "{} (Sources: KB-1234 and faq-12).",
    "full-width parentheses": "{}\uff08KB-1234\uff09.",
    "double brackets": "{} [[KB-1234]].",
    "link with an id": "{} [KB-1234](" + URL + ").",
    "link with a bracketed id": "{} [[KB-1234]](" + URL + ").",
    "note after the full stop": "{}. (doc-3)",
    "file after the full stop": "{}. (policy.pdf)",
    "sources after the full stop": "{}. (Sources: KB-1234, faq-12)",
    "other case, other dash": "{} (kb\u20111234).",
}


def scored(answer: str, ids: tuple[str, ...] = IDS) -> ExampleResult:
    example = Example("q1", "How long do I have to return an item?", [Context(i, PAGE) for i in ids], answer)
    return evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]


def texts(result: ExampleResult) -> list[str]:
    return [verdict.claim.text for verdict in result.verdicts]


@pytest.mark.parametrize("form", CITED.values(), ids=CITED.keys())
def test_a_sentence_of_the_page_citing_it_is_supported(form: str) -> None:
    # Before, the id's digits (1234, 12, 42, 3, 1) were numbers the page had to state, "returns_policy.md"
    # a literal it had to hold, and a note after the full stop a claim of its own: 0.0 or 0.5.
    result = scored(form.format(SAID))
    assert texts(result) == [SAID + "."]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize("form", CITED.values(), ids=CITED.keys())
def test_a_made_up_sentence_citing_the_page_is_still_unsupported(form: str) -> None:
    result = scored(form.format(MADE_UP))
    assert texts(result) == [MADE_UP + "."]
    assert result.metrics["groundedness"] == 0.0


def test_an_opening_citation_is_read_out_and_the_claim_starts_after_it() -> None:
    answer = "(KB-1234) Returns are accepted within thirty days of delivery for a full refund."
    result = scored(answer)
    # "(KB-1234) " is 1 + 7 + 1 + 1 = 10 characters.
    assert [(c.text, c.start, c.end) for c in (v.claim for v in result.verdicts)] == [
        (SAID + ".", 10, len(answer))]
    assert result.metrics["groundedness"] == 1.0


def test_each_claim_still_marks_its_own_sentence_of_the_answer() -> None:
    answer = f"{SAID} (KB-1234). Exchanges are free (faq-12)"
    claims = example_claims(Example("q1", "?", [Context(i, PAGE) for i in IDS], answer))
    assert [c.text for c in claims] == [SAID + ".", "Exchanges are free"]
    # The first sentence is the 69 characters of SAID, the 10 of " (KB-1234)" and its full stop: 0 to 80.
    # The second starts after its space, at 81, and its 18 characters end where its text does, at 99: the
    # citation closing it is left out.
    assert [(c.start, c.end) for c in claims] == [(0, 80), (81, 99)]
    assert answer[0:80] == SAID + " (KB-1234)."
    assert answer[81:99] == "Exchanges are free"


def test_an_id_no_context_has_stays_the_claims_content() -> None:
    # KB-9999 was never retrieved: a made-up reference, or one of the app's own numbers, is something the
    # sentence states. So is a retrieved id's longer sibling (KB-12345), matched as a whole token only.
    for cited in ("(KB-9999)", "(KB-12345)", "(KB-1234, KB-9999)"):
        result = scored(f"{SAID} {cited}.")
        assert texts(result) == [f"{SAID} {cited}."]
        assert result.metrics["groundedness"] == 0.0


def test_a_context_named_by_a_common_word_keeps_that_word_in_its_sentences() -> None:
    # An id of letters alone is a word wherever it is written, in brackets or a link's text too: "returns"
    # and "Returns Policy" stay, as their sentences state them.
    answer = f"{SAID} (returns). Money comes from returns. Read our [Returns Policy](https://x.example.com)."
    claims = example_claims(Example("q1", "?", [Context("returns", PAGE), Context("Returns Policy", PAGE)],
                                    answer))
    assert [c.text for c in claims] == [SAID + " (returns).", "Money comes from returns.",
                                        "Read our [Returns Policy](https://x.example.com)."]


def test_a_sentence_of_bracketed_citations_alone_is_no_claim() -> None:
    for note in ("(doc-3)", "(Sources: KB-1234, faq-12)", "[[KB-1234]]", "[KB-1234](" + URL + ")"):
        result = scored(f"{SAID}. {note}")
        assert texts(result) == [SAID + "."], note


def test_an_answer_that_only_points_to_a_page_still_claims_it() -> None:
    # "See KB-1234." is no bracketed citation: the answer says nothing the page states, and is judged so.
    result = scored("See KB-1234.")
    assert texts(result) == ["See KB-1234."]
    assert result.metrics["groundedness"] == 0.0


UNSUPPORTED = {
    "from a version": ({"v2": "Customers can migrate their data to the new storage from v1 only."},
                       "Customers can migrate their data to the new storage from v2."),
    "from a model": ({"iPhone-15": "Trade-in credit is $200 for upgrades from iPhone-13."},
                     "Trade-in credit is $200 for upgrades from iPhone-15."),
    "per a SKU": ({"SKU-12": "Shipping costs $5 per order."}, "Shipping costs $5 per SKU-12."),
    "a number linked": ({"KB-1": "Call 311 for non-emergency help."},
                        "Dial [911](tel:911) for non-emergency help."),
    "a number linked, an id": ({"90": PAGE},
                               "Returns are accepted within [90](https://x.example.com/a) days of delivery."),
    "a version in brackets": ({"v1": "The limit is 100 requests per minute.",
                               "v2": "The limit is 500 requests per minute."},
                              "In the current API the limit is 100 requests per minute (v2)."),
    "a year in brackets": ({"2024": "Prices rose 5% in 2023."}, "Prices rose 5% (2024)."),
    "a linked product the sentence is about": (
        {"iPhone-15": "The iPhone-15 has a 6.1-inch screen.", "Pixel-8": "Pixel 8 battery: 4,575 mAh."},
        "The [Pixel-8](https://x.example.com/p8) has a 6.1-inch screen."),
    "a year in brackets within the clause": ({"FY2023": "Revenue was $4 million in FY2022."},
                                             "Revenue (FY2023) was $4 million."),
}


@pytest.mark.parametrize(("pages", "answer"), UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_an_id_that_is_the_claims_content_stays_in_it(pages: dict[str, str], answer: str) -> None:
    # Each id is retrieved, and each sentence is made up by the very words that name it: read out, the rest
    # of the sentence was supported (1.0) by a page that says otherwise.
    example = Example("q1", "?", [Context(i, text) for i, text in pages.items()], answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=len(pages))).results[0]
    assert texts(result) == [answer]
    assert result.metrics["groundedness"] == 0.0


def test_an_instructions_object_is_not_read_out() -> None:
    answer = "If the disk is full, you see E-1001."
    claims = example_claims(Example("q1", "?", [Context("E-1001", "Error E-1001 means the disk is full.")],
                                    answer))
    assert [c.text for c in claims] == [answer]


class _Recording:
    """A judge of one's own, as a Claude judge is one: it sees the claims `evaluate` hands every judge."""

    name = "recording"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def settings(self) -> Mapping[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.seen += [claim.text for claim in claims]
        return tuple(ClaimVerdict(claim, True, ("KB-1234",)) for claim in claims)


def test_every_judge_is_handed_the_claims_without_their_citations() -> None:
    judge = _Recording()
    example = Example("q1", "?", [Context("KB-1234", PAGE)], f"{SAID} [[KB-1234]].")
    evaluate([example], judge, EvalConfig(k=1))
    # The bracket around the citation goes with it: not "...refund []."
    assert judge.seen == [SAID + "."]


def test_a_long_run_of_spaces_in_a_citing_claim_is_read_in_linear_time() -> None:
    # Each citation pattern had opened with the spaces before it, so a run of them was tried from each of its
    # spaces: 40,000 took 100 s. Run apart with a timeout, so that a relapse fails rather than hangs. The
    # answer is "x", 200,000 spaces and "y (KB-1).", 1 + 200,000 + 9 characters, all of them its claim's
    # sentence; its text, without " (KB-1)", is 1 + 200,000 + 2.
    program = ("from ragmon import Context, Example\n"
               "from ragmon.evaluation import example_claims\n"
               "answer = 'x' + ' ' * 200_000 + 'y (KB-1).'\n"
               "(claim,) = example_claims(Example('q', '?', [Context('KB-1', 'x')], answer))\n"
               "print(len(claim.text), claim.start, claim.end)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=20,
                          check=True)
    assert done.stdout.split() == ["200003", "0", "200010"]
