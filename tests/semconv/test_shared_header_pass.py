"""Documents under one header that a template cuts short: which of them the model was given is told by
how far a prompt shows each past where it parts from the others, and finding that out reads each prompt
once for all of them, not once for each. Traces recorded by the real OpenTelemetry SDK with the
OpenInference attributes an instrumented app writes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from ragmon import Example, LexicalJudge
from ragmon.evaluation import evaluate_example
from ragmon.semconv import extract as extract_module
from ragmon.semconv.extract import extract
from ragmon.traces import Trace

if TYPE_CHECKING:
    from semconv.conftest import Recorder

HEADER = ("Acme Help Center > Orders and payments > Policies. This article is part of the Acme customer "
          "policy set; it applies to all orders placed on acme.example from 1 January 2026 and replaces "
          "earlier versions. Read it in full before you contact support about an order, and keep your "
          "order number at hand. ")
ARTICLES = {
    "kb-refunds": HEADER + "Refunds: ask for one within 30 days of delivery, by chat.",
    "kb-shipping": HEADER + "Shipping: standard shipping takes 5 business days.",
    "kb-warranty": HEADER + "Warranty: every appliance is covered for 2 years.",
}
"""Three articles parting right after a header of more than the 256 characters documents are grouped by."""
QUESTION = "How long does shipping take?"


def _trace(recorder: Recorder, articles: dict[str, str], prompt: str, answer: str) -> Trace:
    """A chain answering `answer`, a retriever of `articles` (id to text) in their order, and one model
    call given `prompt`."""
    documents: dict[str, str] = {}
    for n, (doc_id, text) in enumerate(articles.items()):
        documents |= {f"retrieval.documents.{n}.document.id": doc_id,
                      f"retrieval.documents.{n}.document.content": text}
    with recorder.tracer.start_as_current_span("rag", attributes={
            "openinference.span.kind": "CHAIN", "input.value": QUESTION, "output.value": answer}):
        with recorder.tracer.start_as_current_span("retrieve", attributes={
                "openinference.span.kind": "RETRIEVER", "input.value": QUESTION, **documents}):
            pass
        with recorder.tracer.start_as_current_span("llm", attributes={
                "openinference.span.kind": "LLM", "input.value": prompt,
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": prompt,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": answer}):
            pass
    return recorder.trace()


def _numbered(texts: list[str]) -> str:
    """A RAG template's prompt: the documents numbered, one a line, then the question."""
    listed = "\n".join(f"[{n}] {text}" for n, text in enumerate(texts, 1))
    return f"Answer from these documents only.\n{listed}\nQuestion: {QUESTION}"


def _extracted(recorder: Recorder, prompt: str, answer: str) -> Example:
    example = extract(_trace(recorder, ARTICLES, prompt, answer))
    assert example is not None and example.contexts is not None
    return example


def _support(example: Example) -> list[str]:
    assert example.contexts is not None
    return [context.id for context in example.contexts]


def _groundedness(example: Example) -> float | None:
    return evaluate_example(example, LexicalJudge(), 5).metrics["groundedness"]


@pytest.fixture(params=["searched", "one pass"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each document's start searched for in the prompts, as small prompts are (one place looked at for
    each 40,000 characters a search reads is none in a prompt of a few hundred), or the prompts read once
    for all, as large ones are: the same documents count either way. The pass is checked to have run."""
    if request.param == "searched":
        yield request.param
        return
    monkeypatch.setattr(extract_module, "_CHARS_PER_MARK", 1)
    finished: list[bool] = []
    marks = extract_module._marks
    monkeypatch.setattr(extract_module, "_marks",
                        lambda *given: (finished.append((found := marks(*given)) is not None), found)[1])
    yield request.param
    assert any(finished)


@pytest.mark.parametrize("refunds,shipping,support", [
    # 40 characters of each given article's own text ("Refunds: ask for one within 30 days of d"): both
    # tell themselves apart from the warranty article, which the prompt shows nothing of past the header.
    (40, 40, ["kb-refunds", "kb-shipping"]),
    # 10 of the shipping article's own ("Shipping: "), fewer than the 16 a document must show past where
    # it parts from another; the refunds article shows 40 and tells itself apart from both others.
    (40, 10, ["kb-refunds"]),
    # Both cut 30 characters inside the header: nothing tells any apart, and all three stay.
    (-30, -30, ["kb-refunds", "kb-shipping", "kb-warranty"]),
])
def test_articles_cut_short_under_one_header_count_by_how_far_past_it_each_is_shown(
        recorder: Recorder, path: str, refunds: int, shipping: int, support: list[str]) -> None:
    # The template shows the refunds and shipping articles that many characters past the header (inside
    # it when negative); the warranty article is never given.
    given = [ARTICLES["kb-refunds"][:len(HEADER) + refunds], ARTICLES["kb-shipping"][:len(HEADER) + shipping]]
    example = _extracted(recorder, _numbered(given), "Refunds within 30 days.")

    assert _support(example) == support


def test_an_answer_from_the_article_not_given_is_unsupported_when_the_given_ones_are_cut(
        recorder: Recorder, path: str) -> None:
    # Refunds and shipping given, each cut 40 characters past the header; the answer states what only the
    # warranty article says. Counted as support, the warranty article had made it 1.0; against the two
    # given, "appliance", "covered", "2" and "years" are stated in neither: 0.0.
    given = [ARTICLES[doc_id][:len(HEADER) + 40] for doc_id in ("kb-refunds", "kb-shipping")]
    example = _extracted(recorder, _numbered(given), "Every appliance is covered for 2 years.")

    assert _support(example) == ["kb-refunds", "kb-shipping"]
    assert _groundedness(example) == 0.0


@pytest.mark.parametrize("refunds,support", [
    (True, ["kb-refunds"]), (False, ["kb-refunds", "kb-shipping", "kb-warranty"])])
def test_the_header_quoted_short_of_its_end_before_an_articles_own_words_shows_no_article(
        recorder: Recorder, path: str, refunds: bool, support: list[str]) -> None:
    # The prompt opens with the header cut at 270 characters (past the 256 the articles are grouped by,
    # short of the 299 all three share) followed at once by the shipping article's own words. No place
    # shows the shipping article past the header. Given the refunds article whole too, it alone counts,
    # and an answer from the shipping words is unsupported ("standard", "shipping", "5" and "business" are
    # not in it); with only the quote, nothing tells any apart and all three stay.
    assert len(HEADER) == 299
    quoted = HEADER[:270] + "Shipping: standard shipping takes 5 business days."
    prompt = _numbered([quoted, ARTICLES["kb-refunds"]] if refunds else [quoted])
    example = _extracted(recorder, prompt, "Standard shipping takes 5 business days.")

    assert _support(example) == support
    if refunds:
        assert _groundedness(example) == 0.0


PARCELS = "Parcels leave our warehouse on the next working day. "
SHIPPING = {f"ship-{region}": f"{HEADER}Shipping: {PARCELS * 3}{region}: standard shipping takes {days} days."
            for region, days in (("EU", 5), ("UK", 3), ("US", 8))}
"""Three articles under the header that also share a shipping introduction of 169 characters."""


def test_articles_sharing_an_introduction_all_cut_inside_it_all_count(recorder: Recorder, path: str) -> None:
    # The template shows the refunds article 40 characters past the header, and each shipping article up
    # to the end of the introduction's second "day." (116 characters past the header, short of the 169
    # they share). Each shows 116 - 16 = 100 past where it parts from the refunds article, which shows
    # 24: all four were given and count, and an answer from the introduction is stated in three of them.
    # The prompt goes on after each cut with "[" or "Q", which sort after the "P" of the next "Parcels".
    assert SHIPPING["ship-EU"][:len(HEADER) + 117] == HEADER + "Shipping: " + PARCELS * 2 + "P"
    articles = {"kb-refunds": ARTICLES["kb-refunds"]} | SHIPPING
    cuts = {"kb-refunds": len(HEADER) + 40} | dict.fromkeys(SHIPPING, len(HEADER) + 116)
    given = [articles[doc_id][:cut] for doc_id, cut in cuts.items()]
    example = extract(_trace(recorder, articles, _numbered(given), PARCELS.strip()))

    assert example is not None
    assert _support(example) == list(articles)
    assert _groundedness(example) == 1.0


RULE = "=" * 300
"""A rule line of 300 characters opening every article, its text following on the same line."""


def test_articles_opening_with_a_rule_the_template_draws_longer_count_as_shown(recorder: Recorder,
                                                                             path: str) -> None:
    # The template draws its own rule of 10 "=" right before each document, so the prompt shows a rule of
    # 310 where each article has 300: the articles' start shows at each of the 11 places along it, and
    # only from the 11th does it go on into the article's own text. The refunds article given whole
    # counts; the shipping and warranty articles, whose own text the prompt never shows, do not.
    articles = {doc_id: RULE + text[len(HEADER):] for doc_id, text in ARTICLES.items()}
    prompt = f"Answer from this document only.\n{'=' * 10}{articles['kb-refunds']}\nQuestion: {QUESTION}"
    example = extract(_trace(recorder, articles, prompt, "Refunds within 30 days."))

    assert example is not None
    assert _support(example) == ["kb-refunds"]


LINE = HEADER.replace("Acme Help Center", "2026-01-05 12:00:00 WARN Acme Help Center")
"""A log line of 324 characters, longer than the 299 characters all the documents below share."""


def test_a_document_shown_whole_only_inside_a_run_of_the_prompt_counts_and_its_neighbours_do_not(
        recorder: Recorder, path: str) -> None:
    # Two versions of a refunds note, 350 "A" and their words (30 or 60 days), and a shipping note of 300
    # "A" and its own; the prompt shows a run of 400 "A" and the 30-day note's words. All three share the
    # 300 "A", which show at each of the run's first 101 places. The first shows 350 "A" of each note, and
    # then "A", not their words; the last, 300 "A" and "C"; only the place 50 in, where the 30-day note
    # ends as the run does, shows it whole. There the 60-day note is shown 368 characters ("...refunds
    # within "), all it shares with the 30-day one and none of its own; the shipping note 300 at most:
    # neither was given, and an answer from the 60-day note is unsupported (its "60" is not in the other).
    articles = {"refunds": "A" * 350 + "C: refunds within 30 days.",
                "refunds-old": "A" * 350 + "C: refunds within 60 days.",
                "shipping": "A" * 300 + "D: shipping takes 5 days."}
    prompt = f"Answer from this document only.\n{'A' * 50}{articles['refunds']}\nQuestion: {QUESTION}"
    example = extract(_trace(recorder, articles, prompt, "Refunds within 60 days."))

    assert example is not None
    assert _support(example) == ["refunds"]
    assert _groundedness(example) == 0.0


@pytest.fixture
def looked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The places of a prompt `_Marks` looks at, in order."""
    places: list[int] = []
    mark = extract_module._Marks._mark
    monkeypatch.setattr(extract_module._Marks, "_mark",
                        lambda marks, prompt, at: (places.append(at), mark(marks, prompt, at))[1])
    return places


@pytest.mark.parametrize("run", [
    # An attachment's base64 padding: the shared start (300 "A") shows at each of the million places
    # along the longer run; looking at each had held the loop for 112 s in a first version of this pass.
    "A" * 1_000_000,
    # A log of one line 12,000 times over (3.9 MB): the shared start shows at each line, and comparing
    # each place with the text to its end had taken 0.9 s for 2 MB, growing with the square.
    LINE * 12_000])
def test_a_document_repeating_the_shared_start_is_looked_at_in_a_few_places_along_the_run(
        recorder: Recorder, looked: list[int], run: str) -> None:
    # Three documents opening with the same run: one of it all, two of its first 299 characters and a
    # caption. The first two given whole count; the third, never given, does not. Along the run, only
    # where a document could be shown the furthest is looked at, not each of its places (the time is in
    # benchmarks/extract_worst_case.py).
    articles = {"blob": run + " end of attachment.", "caption": run[:299] + " a caption.",
                "other": run[:299] + " another caption."}
    trace = _trace(recorder, articles, _numbered([articles["blob"], articles["caption"]]), "A caption.")
    example = extract(trace)

    assert example is not None
    assert _support(example) == ["blob", "caption"]
    assert 0 < len(looked) <= 8


@pytest.fixture
def many_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans keep every document's attributes (the SDK keeps 128 by default): requested before the
    recorder, whose tracer provider reads the limit when it is made."""
    monkeypatch.setenv("OTEL_ATTRIBUTE_COUNT_LIMIT", "100000")


def _item(n: int) -> str:
    """An article of 400 characters under the header, its own text opening "Item n:"."""
    return (HEADER + f"Item {n}: " + f"item{n} ships in {n % 9 + 2} days. " * 20)[:400]


def test_a_long_document_retrieved_twice_leaves_what_is_compared_at_each_place_short(
        many_attributes: None, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # A manual of 200,000 characters retrieved twice (a duplicate), and 300 articles under the header,
    # each given cut to 360 characters (61 of its own). Where each place sorts among the documents had
    # been told from as many characters as the two copies share, 200,000 at each of the 300 places (a
    # 2 MB manual, 40,000 places: 7.5 s). All share the 299 of the header, and no document goes on as
    # the prompt does past an article's cut, so what is compared is twice that, 598. The articles
    # count; neither copy of the manual, of which the prompt shows nothing past the header, does.
    manual = HEADER + "Manual: " + "".join(f"section {k} says step {k} is fine. " for k in range(6_000))
    articles = {"manual": manual[:200_000], "manual-copy": manual[:200_000]} | {
        f"item-{n}": _item(n) for n in range(300)}
    prompt = _numbered([_item(n)[:360] for n in range(300)])
    trace = _trace(recorder, articles, prompt, "In 3 days.")
    compared: list[int] = []
    bisect_at = extract_module.bisect.bisect
    monkeypatch.setattr(extract_module.bisect, "bisect",
                        lambda ordered, key: (compared.append(len(key)), bisect_at(ordered, key))[1])
    example = extract(trace)

    assert example is not None
    assert _support(example) == [f"item-{n}" for n in range(300)]
    assert len(compared) >= 300
    assert max(compared) == 2 * len(HEADER)


def test_documents_ending_along_every_run_of_a_prompt_are_searched_for_instead(
        recorder: Recorder, looked: list[int]) -> None:
    # 12 documents, each a run of "A" (256 to 267 of them) and its own "#doc n"; the prompt shows 200
    # runs of 300 "A", each followed by "#doc 7.". Each document could end along each run, and each run
    # had been looked at in 13 places (its first, and where each document would end), 5,200 in all, the
    # call's input being read as its input value and its user message. Those places are held to what
    # searching for each document's start reads: 12 documents x 123,3xx characters / 40,000 = 37, which
    # the second run passes (13 places, 12 reads of the documents' repeats, 13 places); each document is
    # searched for then. Document 7 is shown whole; each other one 5 characters past its run ("#doc "),
    # 16 short of where it parts from document 7 in the 6 characters "#doc 7": only document 7 counts.
    articles = {f"doc-{n}": "A" * (256 + n) + f"#doc {n}" for n in range(12)}
    prompt = "Answer from these documents only.\n" + ("A" * 300 + "#doc 7.\n") * 200 + f"Question: {QUESTION}"
    trace = _trace(recorder, articles, prompt, "Doc 7.")
    example = extract(trace)

    assert example is not None
    assert _support(example) == ["doc-7"]
    assert 0 < len(looked) <= 2 * 13


def test_articles_shown_twice_in_a_row_are_not_each_read_for_the_others_repeats(
        many_attributes: None, recorder: Recorder, monkeypatch: pytest.MonkeyPatch,
        looked: list[int]) -> None:
    # 200 articles of distinct lengths (600 to 799 characters) under the header, each shown twice in a
    # row (a retriever's duplicates), the first cut to 500. An article, a blank line and the same article
    # repeat every (length + 2) characters: a run for each length. How far each document repeats a run's
    # first characters had been worked out for all 200 documents at each new length, 15,700 comparisons
    # of a document with itself; only those opening with them need it, and none opens with an article
    # and a blank line. All 200 count, each shown past the header.
    articles = {f"item-{n}": (HEADER + f"Item {n}: " + f"item{n} ships in {n % 9 + 2} days. " * 30)[:600 + n]
                for n in range(200)}
    shown = [text[:500] if n == 0 else text for n, text in enumerate(articles.values())]
    prompt = "Answer from these documents only.\n" + "\n\n".join(f"{text}\n\n{text}" for text in shown) + (
        f"\nQuestion: {QUESTION}")
    trace = _trace(recorder, articles, prompt, "In 3 days.")
    documents = set(articles.values())
    compared: list[str] = []
    common_start = extract_module._common_start

    def counted(one: str, other: str, *at: int) -> int:
        if one is other and one in documents:
            compared.append(one)
        return common_start(one, other, *at)

    monkeypatch.setattr(extract_module, "_common_start", counted)
    example = extract(trace)

    assert example is not None
    assert _support(example) == list(articles)
    assert looked
    assert compared == []


@pytest.mark.parametrize("history_first", [False, True], ids=["history-after", "history-before"])
def test_many_articles_found_whole_in_a_long_prompt_are_not_read_for_how_far_each_is_shown(
        many_attributes: None, recorder: Recorder, monkeypatch: pytest.MonkeyPatch,
        history_first: bool) -> None:
    # 200 articles given whole, before or after a chat history of 289,000 characters. Above 16 articles
    # the prompt had been spaced and read for how far each is shown (17 at the start of 15 MB: 0.22 s,
    # against 11 ms to find them); then, with the searches bounded by 64 prompts' length, 200 after the
    # history (each search reading it whole, 200 x 289,000 characters, over 64 x 2 x 373,000: the call's
    # input is read as its input value and its user message) gave up and read the prompts anyway. Each is
    # looked for first where the one before it ended: all 200 are found, and all count.
    articles = {f"item-{n}": _item(n) for n in range(200)}
    history = "\nHistory: " + "we spoke before. " * 17_000
    listed = _numbered(list(articles.values()))
    prompt = history + "\n" + listed if history_first else listed + history
    trace = _trace(recorder, articles, prompt, "In 3 days.")
    read: list[str] = []
    read_prompt = extract_module._Marks.read
    monkeypatch.setattr(extract_module._Marks, "read",
                        lambda marks, prompt: (read.append(prompt), read_prompt(marks, prompt))[1])
    example = extract(trace)

    assert example is not None
    assert _support(example) == list(articles)
    assert read == []


def test_documents_that_share_no_start_are_spaced_only_as_far_as_tells_them_apart(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    # Five articles of ~1,500 characters, each opening with words of its own, all given to the model. No
    # two can share the 256 spaced characters documents are grouped by, which the first 32 already show:
    # each article is spaced for 64 characters (twice what is kept, as runs of whitespace may shorten it),
    # not 512. All five count.
    topics = ("refunds", "shipping", "warranty", "returns", "payments")
    articles = {f"kb-{topic}": f"{topic.capitalize()} policy, section {n}. " + f"The {topic} rule. " * 70
                for n, topic in enumerate(topics)}
    prompt = _numbered(list(articles.values()))
    trace = _trace(recorder, articles, prompt, "Refunds are given within 30 days.")
    spaced: list[int] = []
    squeezed = extract_module._squeezed

    def counted(text: str) -> str:
        if any(article.startswith(text) for article in articles.values()):
            spaced.append(len(text))
        return squeezed(text)

    monkeypatch.setattr(extract_module, "_squeezed", counted)
    example = extract(trace)

    assert example is not None
    assert _support(example) == list(articles)
    assert spaced == [64] * 5
