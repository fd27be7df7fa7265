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
from ragmon.text.claims import split_claims

PAGE = "Returns are accepted within thirty days of delivery for a full refund."
SAID = "Returns are accepted within thirty days of delivery for a full refund"
MADE_UP = "Returns are accepted within ninety days of purchase for store credit only"
URL = "https://help.example.com/kb/1234"
IDS = ("KB-1234", "faq-12", "chunk-0042", "returns_policy.md", "doc-3", "policy.pdf", URL)

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
    "page after a comma": "{} (KB-1234, p. 3).",
    "page without a comma": "{} (KB-1234 p.3).",
    "section": "{} [doc-3, section 4.2].",
    "pages": "{} (policy.pdf, pp. 2-3).",
    "pages listed": "{} (KB-1234, pp. 2, 4).",
    "paragraph sign": "{} (KB-1234 \u00a7 2).",
    "two ids, each with its page": "{} (KB-1234, p. 3; faq-12, p. 1).",
    "see ... for details": "{} (see KB-1234 for details).",
    "as noted in": "{} (as noted in doc-3).",
    "according to, closing": "{}, according to KB-1234.",
    "as stated in, closing, bracketed": "{}, as stated in [doc-3].",
    "according to, opening": "According to KB-1234, {}.",
    "as per, opening, bracketed": "As per [faq-12], {}.",
    "as stated in, opening": "As stated in doc-3, {}.",
    "as ... notes": "As KB-1234 notes, {}.",
    "as two ids say": "As KB-1234 and faq-12 say, {}.",
    "as a link says": "As [KB-1234](" + URL + ") says, {}.",
    "pointer: see ... for details": "{}. See KB-1234 for details.",
    "pointer: for more information, see": "{}. For more information, see [doc-3].",
    "pointer: the full policy": "{}. Please refer to faq-12 for the full policy.",
    "pointer: read more in": "{}. You can read more in policy.pdf.",
    "pointer: more details in two": "{}. More details are available in KB-1234 and faq-12.",
    "pointer: step-by-step instructions at an address": "{}. For step-by-step instructions, see " + URL + ".",
    "as per, closing": "{}, as per KB-1234.",
    "paragraph": "{} (KB-1234, para. 4).",
    "section, British": "{} (KB-1234, s. 2.1).",
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
    # An answer of pointers alone says nothing the page states, and is judged so: beside a claim of its own,
    # "See KB-1234 for details." would be no claim.
    for answer in ("See KB-1234.", "See KB-1234 for details. For more information, see faq-12."):
        result = scored(answer)
        assert texts(result) == sentence_texts(answer)
        assert result.metrics["groundedness"] == 0.0


def sentence_texts(answer: str) -> list[str]:
    return [claim.text for claim in split_claims(answer)]


@pytest.mark.parametrize(("answer", "said"), [
    (f"However, according to KB-1234, {SAID.lower()}.", f"However, {SAID.lower()}."),
    (f"**How long:** According to KB-1234, {SAID.lower()}.", f"**How long:** {SAID.lower()}."),
])
def test_a_label_or_connective_before_an_attribution_stays(answer: str, said: str) -> None:
    result = scored(answer)
    assert texts(result) == [said]
    assert result.metrics["groundedness"] == 1.0


def test_a_pointer_to_a_page_never_retrieved_is_a_claim() -> None:
    # KB-9999 is no context of the example: sending the reader to it is a made-up source.
    result = scored(f"{SAID}. See KB-9999 for details.")
    assert texts(result) == [SAID + ".", "See KB-9999 for details."]
    assert result.metrics["groundedness"] == 0.5


def test_an_attribution_is_read_out_and_the_claim_keeps_what_is_left_of_its_sentence() -> None:
    # "According to KB-1234, " is 22 characters; the claim runs from there to the answer's end. ", according
    # to KB-1234" closes the second sentence, which starts at 0 and keeps its full stop.
    opening = f"According to KB-1234, {SAID.lower()}."
    claims = example_claims(Example("q1", "?", [Context(i, PAGE) for i in IDS], opening))
    assert [(c.text, c.start, c.end) for c in claims] == [(SAID.lower() + ".", 22, len(opening))]
    closing = f"{SAID}, according to KB-1234."
    claims = example_claims(Example("q1", "?", [Context(i, PAGE) for i in IDS], closing))
    assert [(c.text, c.start, c.end) for c in claims] == [(SAID + ".", 0, len(closing))]


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


@pytest.mark.parametrize("answer", ["If the disk is full, you see E-1001.",
                                    "If the disk is full, see E-1001.",
                                    "The disk is full when E-1001 says so."])
def test_an_instructions_object_is_not_read_out(answer: str) -> None:
    claims = example_claims(Example("q1", "?", [Context("E-1001", "Error E-1001 means the disk is full.")],
                                    answer))
    assert [c.text for c in claims] == [answer]


@pytest.mark.parametrize("cited", ["(KB-1234, 30 days)", "(KB-1234, section four)", "(p. 3)",
                                   "(KB-1234, p. 3, updated)"])
def test_a_bracket_with_more_than_ids_and_places_stays(cited: str) -> None:
    result = scored(f"{SAID} {cited}.")
    assert texts(result) == [f"{SAID} {cited}."]


PRICES = {"SKU-12": "Shipping costs $5 for SKU-12.", "SKU-99": "Shipping costs $25."}
FRAMED = {
    # A review's cases: each id is what the sentence says something of (its subject, what a price is per,
    # what to check). Read out, "the disk is full" or "shipping costs $25" was supported by another page.
    "an error code's meaning": ({"E-1001": "Error E-1001 means the network is down.",
                                 "E-2002": "Error E-2002 means the disk is full."},
                                "E-1001 indicates that the disk is full."),
    "a version's limit": ({"API-v2": "API v2 allows 50 requests per minute.",
                           "API-v3": "API v3 allows 100 requests per minute."},
                          "API-v2 specifies a rate limit of 100 requests per minute."),
    "a price per item, opening": (PRICES, "Per SKU-12, shipping costs $25."),
    "a price per item, closing": (PRICES, "Shipping costs $25, per SKU-12."),
    "an instruction to check a code": ({"ERR-42": "ERR-42 means the cable is loose."},
                                       "Check ERR-42."),
}


@pytest.mark.parametrize("cited", ["(Model-S P85)", "(SKU-12, item 4)", "(SKU-12, s 4)"])
def test_a_variant_after_a_products_id_is_no_locator(cited: str) -> None:
    # "P85" names a model, "item 4" a product's line: read out with the id, another variant's figure passed.
    pages = {"Model-S": "The Model-S P100 has a range of 500 km.", "SKU-12": "Shipping costs $25."}
    answer = f"The range is 500 km {cited}."
    example = Example("q1", "?", [Context(i, text) for i, text in pages.items()], answer)
    assert [c.text for c in example_claims(example)] == [answer]


@pytest.mark.parametrize("doc_id", ["KB-1234 ", " KB-1234", "KB-1234\n"])
def test_an_id_stored_with_spaces_around_it_is_cited_without_them(doc_id: str) -> None:
    result = scored(f"{SAID} (KB-1234).", ids=(doc_id,))
    assert texts(result) == [SAID + "."]
    assert result.metrics["groundedness"] == 1.0


FILES = {
    "a path's file": ("docs/returns_policy.md", "{} (returns_policy.md)."),
    "an absolute path's file": ("/app/data/returns_policy.md", "According to returns_policy.md, {}."),
    "a Windows path's file": ("C:\\data\\returns_policy.md", "{} [returns_policy.md]."),
    "an address's file": ("https://help.example.com/kb/returns_policy.pdf?dl=1#page=2",
                          "{} (returns_policy.pdf, p. 2)."),
    "the path itself": ("docs/returns_policy.md", "{} (docs/returns_policy.md)."),
}


@pytest.mark.parametrize(("doc_id", "form"), FILES.values(), ids=FILES.keys())
def test_a_document_stored_by_its_path_is_cited_by_its_files_name(doc_id: str, form: str) -> None:
    # LangChain's loaders name a document by its path, and a model shown it cites the file
    # ("returns_policy.md"): the citation stayed, "lacks returns_policy", and a sentence of the page scored 0.
    result = scored(form.format(SAID), ids=(doc_id,))
    assert texts(result) == [SAID + "."]
    assert result.metrics["groundedness"] == 1.0


def test_an_addresses_last_word_is_no_file_name() -> None:
    # "returns" and "360012345" are a word and a number, no name a sentence cites a document by.
    for doc_id, cited in (("https://help.example.com/articles/returns", "(returns)"),
                          ("https://help.example.com/articles/360012345", "(360012345)")):
        assert texts(scored(f"{SAID} {cited}.", ids=(doc_id,))) == [f"{SAID} {cited}."]


ADDRESSED = {
    # A review's cases: only a file's name (an extension of letters) names a page by its address's end.
    "a product": ({"https://shop.example.com/p/Pixel-8": "The battery lasts 24 hours on a full charge.",
                   "https://shop.example.com/p/Pixel-9": "The battery lasts 30 hours on a full charge."},
                  "The battery lasts 30 hours on a full charge (Pixel-8)."),
    "a version": ({"docs/releases/v2.1": "The memory leak was fixed.",
                   "docs/releases/v2.2": "Python 3.8 support was dropped."},
                  "Python 3.8 support was dropped (v2.1)."),
    "an error code": ({"https://docs.example.com/errors/E-1001": "The disk is full.",
                       "https://docs.example.com/errors/E-1002": "The network is down. Check the cable."},
                      "According to E-1001, the network is down."),
}


def test_a_pointer_beside_claims_read_out_to_nothing_is_still_judged() -> None:
    # "(KB-1234)" alone is no claim, so the pointer is the answer's only claim, and judged: the answer was
    # dropped from groundedness (None) when pointers were told before the bracket was read out.
    result = scored("See KB-1234 for details. (KB-1234)")
    assert texts(result) == ["See KB-1234 for details."]
    assert result.metrics["groundedness"] == 0.0


def test_an_attribution_before_a_space_and_its_full_stop_leaves_no_space() -> None:
    assert texts(scored(f"{SAID}, as noted in KB-1234 .")) == [SAID + "."]


@pytest.mark.parametrize("answer", ["According to KB-9999, returns are free.",
                                    "According to policy, returns are free.",
                                    "According to KB-1234 and our records, returns are free."])
def test_an_attribution_to_more_than_retrieved_ids_stays(answer: str) -> None:
    assert texts(scored(answer)) == [answer]


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


DE = "Rücksendungen werden innerhalb von 30 Tagen nach Zustellung angenommen."
FR = "Les retours sont acceptés dans un délai de 30 jours après la livraison."
ES = "Las devoluciones se aceptan en un plazo de 30 días desde la entrega."
IT = "I resi sono accettati entro 30 giorni dalla consegna."
PT = "As devoluções são aceites no prazo de 30 dias após a entrega."
EUROPEAN = {
    "German bracket with a page": (DE, f"{DE[:-1]} (siehe KB-1234, S. 2).", DE),
    "German source and paragraph": (DE, f"{DE[:-1]} (Quelle: KB-1234, § 3).", DE),
    "German attribution, verb next": (
        DE, "Laut KB-1234 werden Rücksendungen innerhalb von 30 Tagen nach Zustellung angenommen.",
        "werden Rücksendungen innerhalb von 30 Tagen nach Zustellung angenommen."),
    "German pointer": (DE, f"{DE} Weitere Informationen finden Sie in KB-1234.", DE),
    "French attribution with the document": (FR, f"Selon le document KB-1234, l{FR[1:]}", f"l{FR[1:]}"),
    "French closing attribution": (FR, f"{FR[:-1]}, d'après KB-1234.", FR),
    "French pointer": (FR, f"{FR} Pour plus de détails, consultez KB-1234.", FR),
    "Spanish bracket with a page": (ES, f"{ES[:-1]} (ver KB-1234, pág. 5).", ES),
    "Spanish closing attribution": (ES, f"{ES[:-1]}, según faq-12.", ES),
    "Italian bracket with an article": (IT, f"{IT[:-1]} (vedi KB-1234, art. 4).", IT),
    "Italian attribution": (IT, f"Secondo faq-12, i{IT[1:]}", f"i{IT[1:]}"),
    "Portuguese attribution": (PT, f"De acordo com KB-1234, a{PT[1:]}", f"a{PT[1:]}"),
    "Portuguese source": (PT, f"{PT[:-1]} (fonte: faq-12).", PT),
}


@pytest.mark.parametrize(("page", "answer", "said"), EUROPEAN.values(), ids=EUROPEAN.keys())
def test_a_citation_in_another_language_is_read_out(page: str, answer: str, said: str) -> None:
    # Each sentence is its page's; before rules 18 its citation stayed ("lacks 1234", "lacks 12") and it
    # scored 0, or the pointer was a claim of its own.
    example = Example("q1", "?", [Context(i, page) for i in IDS], answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]
    assert texts(result) == [said]
    assert result.metrics["groundedness"] == 1.0


@pytest.mark.parametrize("answer", [
    "Laut KB-1234 werden Rücksendungen innerhalb von 90 Tagen nach dem Kauf angenommen.",
    "Selon KB-1234, les retours sont acceptés dans un délai de 90 jours après l'achat.",
    "Las devoluciones se aceptan en un plazo de 90 días desde la compra (ver KB-1234, pág. 5).",
])
def test_a_made_up_sentence_citing_in_another_language_is_still_unsupported(answer: str) -> None:
    example = Example("q1", "?", [Context("KB-1234", page) for page in (DE, FR, ES)], answer)
    assert evaluate([example], LexicalJudge(), EvalConfig(k=3)).results[0].metrics["groundedness"] == 0.0


def test_a_run_of_locators_that_fails_is_read_in_linear_time() -> None:
    # "i" is a place two ways (a roman numeral, a letter): a run of locators that did not end the group had
    # doubled its time at each, 1.7 s at 20 and no end at 40. Run apart with a timeout, so a relapse fails.
    program = ("from ragmon import Context, Example\n"
               "from ragmon.evaluation import example_claims\n"
               "answer = 'Returns are free (KB-1234 ' + 'p. i ' * 40 + 'x).'\n"
               "(claim,) = example_claims(Example('q', '?', [Context('KB-1234', 'x')], answer))\n"
               "print(claim.text == answer)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=20,
                          check=True)
    assert done.stdout.split() == ["True"]


CODES = {"E-1001": "Error E-1001 means the network is unreachable.",
         "E-1002": "Error E-1002 means the disk is full."}
PER_WORDS = {
    # "in base a" (based on), a bare "conforme" (compliant with) and "gemäß" without a comma (per).
    "in base a": (CODES, "In base a E-1001, il disco è pieno."),
    "conforme": (CODES, "O disco está cheio, conforme E-1001."),
    "gemäß": (CODES, "Gemäß E-1001 ist die Festplatte voll."),
}


@pytest.mark.parametrize(("pages", "answer"), [*UNSUPPORTED.values(), *FRAMED.values(), *ADDRESSED.values(),
                                               *PER_WORDS.values()],
                         ids=[*UNSUPPORTED, *FRAMED, *ADDRESSED, *PER_WORDS])
def test_an_id_that_is_the_claims_content_stays_in_it(pages: dict[str, str], answer: str) -> None:
    # Each id is retrieved, and each sentence is made up by the very words that name it: read out, the rest
    # of the sentence was supported (1.0) by a page that says otherwise.
    example = Example("q1", "?", [Context(i, text) for i, text in pages.items()], answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=len(pages))).results[0]
    assert texts(result) == [answer]
    assert result.metrics["groundedness"] == 0.0


POLICY = {"HR-POL-007": "Parental leave. Birth parents, adoptive parents and parents through surrogacy get "
                        "26 weeks of leave on full pay.",
          "HR-BEN-2024": "Benefits. The Plus plan covers physiotherapy, up to 10 sessions a year."}
REFUSALS = {
    "the id as subject": "HR-POL-007 doesn't mention foster care.",
    "ids in brackets beside the source": "The documents provided (HR-POL-007, HR-BEN-2024) do not say "
                                         "anything about foster care.",
    "ids in brackets with a section's figure": "I wasn't able to find anything about foster care in the "
                                               "documents provided (HR-POL-007, HR-BEN-2024, p. 2.1).",
    "not mentioned in an id": "Foster care isn't mentioned in HR-POL-007.",
    "nothing found in two ids": "I couldn't find anything about foster care in HR-POL-007 or HR-BEN-2024.",
    "neither ... nor": "Neither HR-POL-007 nor HR-BEN-2024 mentions foster care.",
    "an id in a link": "[HR-POL-007](https://hr.example.com/HR-POL-007) doesn't mention foster care.",
    "an attribution": "According to HR-POL-007, there is no information about foster care.",
    "two ids as the subject": "HR-POL-007 and HR-BEN-2024 do not mention foster care.",
    "a refusal and a pointer": "HR-POL-007 doesn't mention foster care. Please refer to HR-BEN-2024 for the "
                               "full policy.",
    "a plain refusal and a pointer": "I don't know. See HR-POL-007 for details.",
    "French, ni ... ni": "Je suis désolée, mais ni HR-POL-007 ni HR-BEN-2024 ne mentionnent le placement "
                         "familial.",
    "Spanish": "HR-POL-007 no menciona el acogimiento familiar.",
    "Italian": "Mi dispiace, ma HR-POL-007 non menziona l'affido.",
    "Portuguese": "A HR-POL-007 não menciona o acolhimento familiar.",
    "German": "HR-POL-007 erwähnt Pflegekinder leider nicht.",
    "German, the verb first": "Leider erwähnen HR-POL-007 und HR-BEN-2024 keine Pflegekinder.",
    # An end-to-end check's (rules 22): nothing there, where the answerer looked, German's verb second.
    "nothing there": "There is nothing about foster care in HR-POL-007.",
    "checked, then a pronoun": "I checked HR-POL-007, but it doesn't mention foster care.",
    "German, after leider": "Leider erwähnt HR-POL-007 die Pflegekinder nicht.",
    "German, in ... nicht erwähnt": "In HR-POL-007 werden Pflegekinder nicht erwähnt.",
}


def declined(answer: str) -> ExampleResult:
    example = Example("q1", "Does parental leave cover foster carers?",
                      [Context(doc_id, text) for doc_id, text in POLICY.items()], answer,
                      ground_truth="insufficient_context")
    return evaluate([example], LexicalJudge(), EvalConfig(k=2)).results[0]


@pytest.mark.parametrize("answer", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refusal_naming_its_sources_abstains(answer: str) -> None:
    # Before, each was a claim none of the pages states (groundedness 0, hallucination_rate 1) and the
    # answer had not declined (abstention 0), where "The documents don't mention foster care." abstained.
    result = declined(answer)
    assert texts(result) == []
    assert result.metrics["groundedness"] is None
    assert result.metrics["abstention"] == 1.0
    assert result.metrics["answer_correctness"] == 1.0


def test_a_refusal_naming_its_source_beside_a_claim_is_no_claim() -> None:
    result = declined("Birth and adoptive parents get 26 weeks of leave (HR-POL-007). HR-POL-007 doesn't "
                      "mention foster care, though.")
    assert texts(result) == ["Birth and adoptive parents get 26 weeks of leave."]
    assert result.metrics["groundedness"] == 1.0
    assert result.metrics["abstention"] == 0.0


@pytest.mark.parametrize("answer", [
    "HR-POL-007 doesn't mention foster care, but foster carers get 10 weeks.",
    "HR-POL-007 doesn't mention foster care; foster carers get 10 weeks.",
    "I'm not sure, HR-POL-007 probably gives foster carers 10 weeks.",
    "HR-POL-007 erwähnt Pflegekinder nicht, aber Pflegeeltern erhalten 10 Wochen.",
    "Mi dispiace, ma HR-POL-007 non menziona l'affido, ma sono 10 settimane.",
    "I checked HR-POL-007, but foster carers get 10 weeks.",
    "Leider erwähnt HR-POL-007 Pflegekinder nicht, aber Pflegeeltern erhalten 10 Wochen.",
    # Rules 22's review: German with the figure before the refusal, or its reason after it.
    "Pflegeeltern erhalten 10 Wochen, in HR-POL-007 werden Pflegekinder nicht erwähnt.",
    "In HR-POL-007 erhalten Pflegeeltern 10 Wochen, Pflegekinder werden nicht erwähnt.",
    "Leider erwähnt HR-POL-007 Pflegekinder nicht, weil Pflegeeltern 10 Wochen erhalten.",
])
def test_a_refusal_naming_its_source_that_goes_on_to_answer_is_a_claim(answer: str) -> None:
    # The 10 weeks are made up: read as a refusal, the answer would have left every mean.
    result = declined(answer)
    assert texts(result) == [answer]
    assert result.metrics["groundedness"] == 0.0
    assert result.metrics["abstention"] == 0.0


PRODUCTS = {"SKU-4410": "The SKU-4410 kettle ships with a 1.5 m cable and a base. A charger is included.",
            "E-1001": "Error E-1001 means a hardware fault in the disk."}


@pytest.mark.parametrize("answer", ["SKU-4410 doesn't include a descaling kit.",
                                    "E-1001 does not indicate a network outage.",
                                    "Water damage isn't covered in SKU-4410.",
                                    "Neither SKU-4410 nor E-1001 covers water damage."])
def test_a_negative_claim_about_a_product_or_code_named_by_its_id_is_judged(answer: str) -> None:
    # Made up (the pages say nothing of it): the id is what the sentence is about, not where it looked, and
    # read as "the documents" each had been a refusal.
    example = Example("q1", "?", [Context(doc_id, text) for doc_id, text in PRODUCTS.items()], answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=2)).results[0]
    assert texts(result) == [answer]
    assert result.metrics["groundedness"] == 0.0


THINGS = {"SKU-4410": "The SKU-4410 kettle ships with a base. A charger is included.",
          "E-1001": "Error E-1001 means a hardware fault in the disk.",
          "Plan-B": "Plan-B covers dental care up to 500 EUR a year.",
          "v2.1": "Version 2.1 fixes the login bug.",
          "TCK-4412": "Ticket TCK-4412: the customer reported an outage on 3 May.",
          "KB-1234": "Returns are free within 30 days."}


@pytest.mark.parametrize("answer", [
    "Plan-B doesn't cover anything over 500 EUR.",
    "SKU-4410 contains nothing toxic and is BPA-free.",
    "E-1001 has nothing to do with overheating.",
    "E-1001 no indica un fallo de hardware.",
    "E-1001 non indica un guasto hardware.",
    "E-1001 não indica falha de hardware.",
    "SKU-4410 no habla español.",
    "Neither state charges sales tax on SKU-4410.",
    "I asked both technicians about SKU-4410 and neither mentions any damage.",
    "Anything bought abroad is not covered in Plan-B.",
    "The bug was not found in v2.1.",
    "A charger is not found in SKU-4410.",
    "Details of the fix are not included in v2.1.",
    "Information about the outage was not found in TCK-4412 because the customer never reported it.",
    "The fee is 15 EUR, which KB-1234 does not mention.",
    "KB-1234 nennt 30 Tage und nicht 60 Tage.",
    "\x01 does not mention water damage, which costs 200 EUR (KB-1234).",
    "Plan-B does not go into effect until 1 June 2026.",
    "v2.1 does not address the login bug.",
    "However, v2.1 does not address the login bug.",
    "But E-1001 doesn't explain the overheating.",
    "The login bug was not addressed in v2.1.",
    "Dental implants are not addressed in Plan-B.",
    "**Returns cost 15 EUR and take 90 days:** KB-1234 doesn't say more.",
    "I **returns cost 15 EUR** KB-1234 doesn't say more.",
    "I checked Plan-B, but it doesn't cover water damage.",  # rules 22's review: what a plan pays for
])
def test_a_sentence_about_what_an_id_names_is_no_refusal(answer: str) -> None:
    # Found by review, each read as a refusal by a first version of rules 19 and dropped from every mean:
    # verbs of what a product holds, a plan pays for or a code means, "neither" of people, "not found in"
    # a version, a refusal's words after a claim of its own, German's "nicht" inside a clause, an answer's
    # own control character read as an id; then (second review) what a release "addresses", a plan "goes
    # into", a code "explains", and a claim in a bold label.
    example = Example("q1", "?", [Context(doc_id, text) for doc_id, text in THINGS.items()], answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=2)).results[0]
    assert texts(result) == [answer.replace(" (KB-1234)", "").lstrip("\x01 ")]


def test_an_answer_that_declines_beside_a_citation_alone_abstains() -> None:
    # "(HR-POL-007)" alone is no claim and the answer makes none: it had abstained only with the bracket
    # before the full stop.
    for answer in ("I don't know. (HR-POL-007)", "I don't know (HR-POL-007)."):
        assert declined(answer).metrics["abstention"] == 1.0, answer
