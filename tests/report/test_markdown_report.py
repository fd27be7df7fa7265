"""Markdown report: tables, then the weakest examples with their unsupported sentences quoted verbatim, each
with the judge's reason."""

from __future__ import annotations

from pathlib import Path

from report_cases import INVENTED, INVENTED_REASON, invented_run, many_long_run

from ragmon.gate import GateResult
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report.markdown import render, render_error, step_summary


def test_weakest_examples_quote_unsupported_sentences(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates)
    assert out.startswith("## ragmon replay: FAIL: groundedness 0.5833 < 0.85")
    assert "| groundedness | 0.583 | 3 | [0.250, 1.000] |" in out
    assert "| citation_accuracy | undefined | 0 |  |" in out
    assert "| groundedness >= 0.85 | 0.5833 | **FAIL** | 0.5833 < 0.85 |" in out
    assert "| citation_accuracy >= 0.5 | undefined | **FAIL** | undefined: 0 observations |" in out
    assert "- `e5`: judge timed out" in out
    for result in report.results:
        for v in result.verdicts:
            quoted = f"> {v.claim.text}\n"
            assert (quoted in out) == (not v.supported)
    # e4 (0.25) before e1 (0.5), then e3 (no groundedness, but a missed relevant document); e2 has no problem.
    order = [out.index(f"#### `{example_id}`") for example_id in ("e4", "e1", "e3")]
    assert order == sorted(order)
    assert "#### `e2`" not in out
    assert "### Weakest examples (3 of 3 with problems)" in out
    e1 = out[out.index("#### `e1`"):out.index("#### `e3`")]
    assert "Relevant but not retrieved: `d9`" in e1 and "Retrieved but unused: `d2`" in e1


def test_weakest_examples_are_capped(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates, worst=1)
    assert "### Weakest examples (1 of 3 with problems)" in out
    assert "#### `e4`" in out and "#### `e1`" not in out


def test_text_from_the_data_is_shown_verbatim_not_interpreted() -> None:
    # An answer's HTML would be rendered (an unclosed <details> folds away the rest of a GitHub step
    # summary) and an id with a backtick or a newline would break out of its code span and heading.
    # Expected text by the CommonMark rules: "<" and "&" as entities; a code span fenced by one backtick
    # more than the longest run inside, padded with a space when the id starts or ends with a backtick.
    answer = "Refunds <details> take 3 &amp; days."
    claim = ClaimVerdict(Claim(answer, 0, len(answer)), False, (), "it cites <details>\n& more")
    example = Example("a`b\n# c", "Is <b>this</b> ok?", (Context("`d1", "Other."),), answer)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (claim,), ("x``y",), ("`d1",))
    out = render(Report({"name": "lexical"}, 5, (result,), {}, skipped=(("<s>", "reply <b>bad</b>"),)), ())
    assert "#### ``a`b # c``: groundedness 0.00" in out
    assert "Question: Is &lt;b>this&lt;/b> ok?" in out
    assert "> Refunds &lt;details> take 3 &amp;amp; days." in out
    assert "Reason: it cites &lt;details> &amp; more\n" in out  # and on one line
    assert "Relevant but not retrieved: ```x``y```" in out
    assert "Retrieved but unused: `` `d1 ``" in out
    assert "- `<s>`: reply &lt;b>bad&lt;/b>" in out
    assert "<details>" not in out


def test_each_unsupported_sentence_is_followed_by_its_reason() -> None:
    report, gates = invented_run()
    out = render(report, gates)
    section = out[out.index("#### `bad`"):]
    assert f"Unsupported:\n\n> {INVENTED}\n\nReason: {INVENTED_REASON}\n" in section
    assert "Reason:" not in out[:out.index("#### `bad`")]  # "ok" is fully supported: not listed


def test_an_unsupported_sentence_is_one_clipped_escaped_line() -> None:
    # One 1.4 MB sentence with an ESC byte in it: quoted on one line of 1,000 characters, "…" included,
    # the ESC shown as its escape "\x1b" (4 characters), never written raw.
    sentence = "Refunds \x1b[31m" + "arrive later and " * 87_500 + "end."
    verdict = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "closest\x07 d1 has " + "x" * 5_000)
    example = Example("e1", "Q?", (Context("d1", "Other."),), sentence)
    out = render(Report({"name": "lexical"}, 5, (ExampleResult(example, "lexical", {}, (verdict,)),), {}), ())
    quoted = [line for line in out.splitlines() if line.startswith("> ")]
    assert len(quoted) == 1 and quoted[0].startswith("> Refunds \\x1b[31marrive later")
    assert len(quoted[0]) == 2 + 1_000 and quoted[0].endswith("…")
    reason = next(line for line in out.splitlines() if line.startswith("Reason: "))
    assert reason.startswith("Reason: closest\\x07 d1 has xx") and len(reason) == 8 + 1_000
    assert "\x1b" not in out and "\x07" not in out
    assert len(out) < 3_000  # by hand: ~300 characters of headings and table around the 2 x 1,000


def test_sentences_quoted_per_example_are_capped_with_a_count() -> None:
    # 20,000 short unsupported sentences in one answer: 5 quoted, "And 19,995 more" for the rest.
    sentences = [f"Claim number {i} is made up." for i in range(20_000)]
    answer = " ".join(sentences)
    verdicts, start = [], 0
    for sentence in sentences:
        verdicts.append(ClaimVerdict(Claim(sentence, start, start + len(sentence)), False, (), "no support"))
        start += len(sentence) + 1
    example = Example("many", "Q?", (Context("d1", "Other."),), answer)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, tuple(verdicts))
    out = render(Report({"name": "lexical"}, 5, (result,), {}), ())
    assert [line for line in out.splitlines() if line.startswith("> ")] == [
        f"> Claim number {i} is made up." for i in range(5)]
    assert "And 19,995 more unsupported sentences." in out
    assert len(out) < 2_000


def test_the_report_grows_with_worst_not_with_the_answers() -> None:
    # 1,000 examples of 20 unsupported 999-character sentences, each with a 1,000-character reason: about
    # 40 MB if quoted whole. By hand, per example listed: 5 x (1,003 + 1,008) characters of quotes and
    # reasons plus ~100 of heading, question and count lines, ~10.2 KB; the default 10 of them ~102 KB.
    report, gates = many_long_run()
    out = render(report, gates)
    assert out.count("And 15 more unsupported sentences.") == 10
    assert len([line for line in out.splitlines() if line.startswith("> ")]) == 50
    assert 100_000 < len(out) < 110_000
    assert len(render(report, gates, worst=20)) > 200_000  # the one way to ask for more


def test_long_lists_of_ids_and_skipped_examples_are_capped() -> None:
    # 25 relevant documents missed (20 named, "and 5 more") and 60 skipped examples (50 listed).
    example = Example("e1", "Q?", (Context("d1", "Other."),), None)
    missed = tuple(f"doc-{i}" for i in range(25))
    result = ExampleResult(example, "lexical", {}, (), missed)
    skipped = tuple((f"s{i}", "judge error") for i in range(60))
    out = render(Report({"name": "lexical"}, 5, (result,), {}, skipped=skipped), ())
    named = ", ".join(f"`doc-{i}`" for i in range(20))
    assert f"Relevant but not retrieved: {named} and 5 more\n" in out
    assert "### Skipped (60)" in out and "- `s49`: judge error" in out and "`s50`" not in out
    assert "And 10 more skipped examples (the JSON report lists all)." in out


def test_an_incomplete_run_says_so_first_and_keeps_its_figures(report: Report) -> None:
    held = (GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),)
    out = render(report, held, incomplete="the judge failed on all 4 <examples>")
    assert out.startswith("## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no "
                          "gate was decided:\n\n> the judge failed on all 4 &lt;examples>\n")
    assert "PASS" not in out
    assert "- `e5`: judge timed out" in out and "| groundedness | 0.583 | 3 | [0.250, 1.000] |" in out


def test_an_error_report_says_why_the_run_could_not_complete() -> None:
    assert render_error("data.jsonl:3: invalid JSON") == (
        "## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no gate was "
        "decided:\n\n> data.jsonl:3: invalid JSON\n")


def test_the_step_summary_is_cut_below_githubs_limit_at_a_line() -> None:
    # 3,000 lines of 400 bytes each (199 "é" of 2 bytes in UTF-8, ".", "\n"), 201 characters: 1,200,000
    # bytes, over GitHub's 1 MiB. Cut to whole lines within 1,000,000 bytes, the note included.
    page = "".join(f"{'é' * 199}.\n" for _ in range(3_000))
    cut = step_summary(page, full_report=Path("out/report.md"))
    body, note = cut[:cut.rindex("\n\n") + 1], cut[cut.rindex("\n\n") + 1:]
    assert note == "\n*This summary was cut at 1,000,000 bytes: the whole report is in `out/report.md`.*\n"
    assert len(cut.encode("utf-8")) <= 1_000_000
    # Whole lines only, as many as fit beside the ~90-byte note: (1,000,000 - 90) // 400 = 2,499.
    assert body == page[:2_499 * 201]
    assert step_summary(page).endswith("bytes: `--markdown PATH` writes the whole report.*\n")
    assert step_summary(page[:1_000]) == page[:1_000]  # under the limit: as it is
