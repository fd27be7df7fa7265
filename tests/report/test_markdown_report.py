"""Markdown report: tables, the regressions against a baseline, then the weakest examples with their
unsupported sentences quoted verbatim, each with the judge's reason."""

from __future__ import annotations

import json
from dataclasses import replace

from report_cases import (
    EXAMPLE_WARNING,
    GIFT,
    GIFT_REASON,
    INVENTED,
    INVENTED_REASON,
    RUN_WARNING,
    invented_run,
    many_long_run,
    many_regressed_run,
    regressed_run,
    silent_run,
)

import ragmon
from ragmon.baseline import Baseline, BaselineExample, compare, from_dict
from ragmon.evaluation import evaluate
from ragmon.gate import GateResult
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Aggregate, Claim, ClaimVerdict, Context, EvalConfig, Example, ExampleResult, Report
from ragmon.report import json as json_report
from ragmon.report import text
from ragmon.report.markdown import render, render_error
from ragmon.rules import SCORING_RULES


def test_weakest_examples_quote_unsupported_sentences(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates)
    assert out.startswith("## ragmon replay: FAIL: groundedness 0.5833 < 0.85")
    assert "| groundedness | 0.583 | 3 | [0.250, 1.000] |" in out
    assert "| citation_accuracy | undefined | 0 |  |" in out
    # e5, which the judge failed on, is the 1 of 5 examples every gate was decided without.
    skipped = "1 of 5 examples skipped: the judge failed on it"
    assert f"| groundedness >= 0.85 | 0.5833 | **FAIL** | 0.5833 < 0.85; {skipped} |" in out
    assert f"| citation_accuracy >= 0.5 | undefined | **FAIL** | undefined: 0 observations; {skipped} |" \
        in out
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
    assert "Relevant but not in the top 5 retrieved: `d9`" in e1 and "Retrieved but unused: `d2`" in e1


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
    assert "#### ``a`b\\n# c``: groundedness 0.00" in out  # the id's newline escaped, as written
    assert "Question: Is &lt;b>this&lt;/b> ok?" in out
    assert "> Refunds &lt;details> take 3 &amp;amp; days." in out
    assert "Reason: it cites &lt;details> &amp; more\n" in out  # and on one line
    assert "Relevant but not in the top 5 retrieved: ```x``y```" in out
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


def test_the_report_fits_a_github_comment_whatever_worst() -> None:
    # 1,000 examples of 20 unsupported 999-character sentences, each with a 1,000-character reason. By hand,
    # an example's section: its heading, question and "Unsupported:" lines (~60 characters), 5 x (1,003 +
    # 1,010) of quotes and reasons with their blank lines, the count of the other 15: 10,162 characters. Six
    # and the ~530 of tables make ~61,500; a seventh would pass 65,536, GitHub's limit for a comment. So six
    # are shown whole, at --worst 10 as at 100, and a last line counts the rest.
    report, gates = many_long_run()
    for worst, left in ((10, 4), (100, 94)):
        out = render(report, gates, worst=worst)
        assert len(out) <= 65_536
        assert out.startswith("## ragmon replay: FAIL: groundedness 0 < 0.99")
        assert "| recall >= 0.9 | 0 | **FAIL** | 0 < 0.9 |" in out  # the tables first, whole
        assert [line for line in out.splitlines() if line.startswith("#### ")] == [
            f"#### `x{i:04}`: recall 0.00, groundedness 0.00" for i in range(6)]  # the breached recall gate's
        assert out.count("And 15 more unsupported sentences.") == 6  # each shown to its end
        assert out.endswith(f"\n\nAnd 15 more unsupported sentences.\n\n*Cut at 65,536 characters, GitHub's "
                            f"limit for a comment: {left} weakest examples left out here. The JSON report "
                            "(`--json`) lists every example.*\n")


def test_the_report_fits_a_comment_counted_in_utf16_units_too() -> None:
    # Sentences of 999 emoji: 999 characters each, but 1,998 UTF-16 units, as JavaScript counts them (an
    # emoji outside the BMP is 2). Counted in characters the report held ~100,000 units: counted in units
    # it fits whichever way GitHub counts.
    emoji = "\U0001F389" * 999
    verdicts = tuple(ClaimVerdict(Claim(emoji, 0, 999), False, (), "not stated") for _ in range(5))
    results = tuple(ExampleResult(Example(f"e{i}", "Q?", (Context("d1", "Other."),), emoji), "lexical",
                                  {"groundedness": 0.0}, verdicts) for i in range(50))
    report = Report({"name": "lexical"}, 5, results, {"groundedness": Aggregate(0.0, 50, (0.0, 0.0))})
    gates = (GateResult("groundedness", ">=", 0.5, 0.0, False, "0 < 0.5"),)
    out = render(report, gates, worst=50)
    assert len(out.encode("utf-16-le")) // 2 <= 65_536
    assert out.endswith("weakest examples left out here. The JSON report (`--json`) lists every example.*\n")


def test_examples_with_long_text_and_many_ids_are_left_out_whole() -> None:
    # Each of 10 examples: a 1,000-character question, 5 unsupported 1,000-character sentences with
    # 1,000-character reasons, 30 relevant ids not retrieved and 30 retrieved unused, each of 200
    # characters (20 named per list). By hand, a section: 1,011 of question, 5 x 2,014 of quotes and
    # reasons, 2 x ~4,115 of ids: ~19,350 characters. Three fit beside the tables; the other 7 are counted.
    text = "word " * 199 + "last."  # 1,000 characters
    ids = tuple(f"{'d' * 195}{i:05}" for i in range(30))
    results = []
    for n in range(10):
        answer = " ".join([text] * 5)
        verdicts = tuple(ClaimVerdict(Claim(text, i * 1_001, i * 1_001 + 1_000), False, (), "r" * 1_000)
                         for i in range(5))
        example = Example(f"y{n}", text, (Context("d1", "Other."),), answer)
        results.append(ExampleResult(example, "lexical", {"groundedness": 0.0}, verdicts, ids, ids))
    out = render(Report({"name": "lexical"}, 5, tuple(results), {}), ())
    assert len(out) <= 65_536
    assert [line for line in out.splitlines() if line.startswith("#### ")] == [
        f"#### `y{n}`: groundedness 0.00" for n in range(3)]
    assert out.count("Retrieved but unused: ") == 3 and out.count(" and 10 more\n") == 6
    assert out.endswith("\n*Cut at 65,536 characters, GitHub's limit for a comment: 7 weakest examples left "
                        "out here. The JSON report (`--json`) lists every example.*\n")


def test_a_gated_metric_some_examples_have_no_value_for_is_warned_of_after_the_gates() -> None:
    # silent_run, worked out there: 10 of 30 examples have no groundedness, 8 saying nothing (s21-s28)
    # and 2 with no contexts (s29, s30); the first 5 ids of each reason named. The gate still holds.
    out = render(*silent_run())
    why = ("10 of 30 examples, left out of its figures (not counted as 0): 8 whose answer makes no claim "
           "(empty, declining or filler): `s21`, `s22`, `s23`, `s24`, `s25` and 3 more; 2 with the contexts "
           "unknown: `s29`, `s30`.")
    assert ("| hallucination_rate <= 0.01 | 0.025 | **FAIL** | 0.025 > 0.01 |\n\n"
            f"**Warning**: groundedness has no value for {why}\n\n"
            f"**Warning**: hallucination_rate has no value for {why}\n\n### Weakest examples") in out
    assert "| groundedness >= 0.85 | 0.975 | pass | 0.975 >= 0.85 |" in out
    report, gates = invented_run()  # every gated metric measured on both examples: no warning
    assert "Warning" not in render(report, gates)


def test_long_lists_of_ids_and_skipped_examples_are_capped() -> None:
    # 25 relevant documents missed (20 named, "and 5 more") and 60 skipped examples (50 listed).
    example = Example("e1", "Q?", (Context("d1", "Other."),), None)
    missed = tuple(f"doc-{i}" for i in range(25))
    result = ExampleResult(example, "lexical", {}, (), missed)
    skipped = tuple((f"s{i}", "judge error") for i in range(60))
    out = render(Report({"name": "lexical"}, 5, (result,), {}, skipped=skipped), ())
    named = ", ".join(f"`doc-{i}`" for i in range(20))
    assert f"Relevant but not in the top 5 retrieved: {named} and 5 more\n" in out
    assert "### Skipped (60)" in out and "- `s49`: judge error" in out and "`s50`" not in out
    assert "And 10 more skipped examples (the JSON report lists all)." in out


def test_a_cut_note_adds_up_with_the_heading_of_a_section_it_cut() -> None:
    # 60 warnings, each ~1,000 characters of (escaped) text: 50 would be listed and "And 10 more" counted,
    # 51,000 characters in all with the heading. Beside a skipped section of the same (60 entries, 50 x
    # ~1,010 characters), the report outgrows 65,536 and is cut inside the warnings. The note had counted
    # the warnings listed but cut (34 of 50 here), not the 10 the cut "And 10 more" line had counted too:
    # listed + left out must make the heading's 60.
    example = Example("e1", "Q?", (Context("d1", "Other."),), None)
    result = ExampleResult(example, "lexical", {}, ())
    why = "w" * 1_000
    entries = tuple((f"t{i:02}", why) for i in range(60))
    out = render(Report({"name": "lexical"}, 5, (result,), {}, skipped=entries, warnings=entries), ())
    assert len(out) <= 65_536 and "### Warnings (60)" in out and "And 10 more warnings" not in out
    listed = sum(line.startswith("- `t") for line in out.split("### Warnings (60)")[1].splitlines())
    assert 0 < listed < 50
    assert out.endswith(f"*Cut at 65,536 characters, GitHub's limit for a comment: {60 - listed} warnings "
                        "left out here. The JSON report (`--json`) lists every example.*\n")


def test_a_warning_of_the_run_is_said_after_the_tables_and_without_an_example_id(report: Report) -> None:
    # Filed under its first example's id, a warning about the whole run read "- `e1`: ..." as if e1 had a
    # problem; the examples' own section counts theirs alone.
    out = render(replace(report, warnings=(EXAMPLE_WARNING,)), (), run_warnings=(RUN_WARNING,))
    assert f"|\n\n**Warning**: {RUN_WARNING}.\n\n### Skipped (1)\n\n" in out
    assert "\n### Warnings (1)\n\n- `e1`: only the last of 2 answers is scored\n\n" in out
    assert "### Warnings" not in render(report, (), run_warnings=(RUN_WARNING,))


def test_the_run_warnings_are_never_cut_by_long_regressed_examples() -> None:
    # many_regressed_run's regressed examples fill the report (test_regressions_are_bounded_by_worst), and
    # the run's warnings, listed after them under "Warnings", were cut with them: the note counted "2
    # warnings" left out, and a reader of the PR comment never saw that two ids look alike. Each of them
    # holding 60 `$` (shown as 60 x 14 characters), they still come whole after the tables.
    report, gates, comparison = many_regressed_run()
    dollars = "$" * 60
    alike = f"example ids 'z01' and 'z01 ' differ only in white space around them ({dollars})"
    out = render(report, gates, comparison=comparison, run_warnings=(RUN_WARNING, alike))
    shown = "<span>$</span>" * 60
    assert (f"1 -> 0 on 1000 examples measured in both runs |\n\n**Warning**: {RUN_WARNING}.\n\n"
            f"**Warning**: example ids 'z01' and 'z01 ' differ only in white space around them ({shown}).\n\n"
            "### Regressions against the baseline") in out
    assert len(out) <= 65_536
    assert out.endswith("*Cut at 65,536 characters, GitHub's limit for a comment: 994 regressed examples, "
                        "1,000 recall regressions and 10 weakest examples left out here. The JSON report "
                        "(`--json`) lists every example.*\n")


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


def test_regressions_against_the_baseline_quote_the_newly_unsupported_sentences() -> None:
    report, gates, comparison = regressed_run()
    out = render(report, gates, comparison=comparison)
    # The figures worked out in regressed_run: groundedness 0.75 -> 0.5 (-0.25) and recall 0.75 on both
    # sides, over the 2 examples both runs measured.
    assert ("| groundedness drop <= 0.1 vs baseline | -0.25 | **FAIL** | dropped 0.25 > 0.1 against the "
            "baseline: 0.75 -> 0.5 on 2 examples measured in both runs |") in out
    assert "| recall drop <= 0 vs baseline | 0 | pass | unchanged against" in out
    section = out[out.index("### Regressions against the baseline"):out.index("### Weakest examples")]
    # The baseline recorded this build's scoring rules (`SCORING_RULES`), said beside its version.
    assert (f"Baseline `main.json` (ragmon {ragmon.__version__}, scoring rules {SCORING_RULES}): 2 examples "
            "in both runs, 1 new, 1 gone (`old`).") in section
    assert "| groundedness | 0.750 | 0.500 | -0.25 | 2 |" in section
    assert "| hallucination_rate | 0.250 | 0.500 | +0.25 | 2 |" in section
    assert "| recall | 0.750 | 0.750 | 0 | 2 |" in section
    assert "| citation_accuracy |" not in section  # no citations in either run: nothing to compare
    assert "1 of 1 examples whose groundedness fell, the biggest drop first:" in section
    assert (f"#### `ok`: groundedness 1 -> 0.5\n\nQuestion: How long do I have to return an item?\n\n"
            f"Newly unsupported:\n\n> {GIFT}\n\nReason: {GIFT_REASON}\n") in section
    assert INVENTED not in section and "#### `bad`" not in section  # unsupported in the baseline too
    assert "### Regressions" not in render(report, gates)


def test_a_metric_this_run_no_longer_measures_keeps_its_row_in_the_regressions_table() -> None:
    # invented_run's "ok" again, now answering "": no claim, so no groundedness or hallucination_rate,
    # where the baseline had 1 and 0; its retrieval is unchanged (doc-1 retrieved and relevant: recall 1).
    # Those two rows had gone from the table without a word. Nothing measured in both: no mean to compare,
    # and n says the baseline alone measured one. Citations were never given: no row.
    report, _ = invented_run()
    ok = report.results[0].example
    baseline = from_dict(json.loads(json_report.render(evaluate([ok], LexicalJudge(), EvalConfig(k=5)), ())),
                         "main.json")
    now = evaluate([replace(ok, answer="")], LexicalJudge(), EvalConfig(k=5))
    out = render(now, (), comparison=compare(baseline, now))
    section = out[out.index("### Regressions against the baseline"):]
    assert "| groundedness |  | undefined |  | 0 (+1 in the baseline only) |" in section
    assert "| hallucination_rate |  | undefined |  | 0 (+1 in the baseline only) |" in section
    assert "| recall | 1.000 | 1.000 | 0 | 1 |" in section
    assert "| citation_accuracy |" not in section


def test_an_example_whose_groundedness_is_nan_is_headed_undefined_as_in_the_terminal() -> None:
    # A hand-built result (a library user's) with NaN for groundedness: the JSON report writes null and
    # the terminal "undefined"; the Markdown had headed it "groundedness nan".
    sentence = "Refunds take 3 days."
    verdict = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "no support")
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "Other."),), sentence), "lexical",
                           {"groundedness": float("nan")}, (verdict,))
    report = Report({"name": "lexical"}, 5, (result,), {})
    assert "#### `e1`: groundedness undefined" in render(report, ()).splitlines()
    assert "  e1: groundedness undefined" in text.render(report, ()).splitlines()


def test_an_unchanged_run_says_nothing_regressed() -> None:
    # The run's own JSON report as its baseline: same examples, same sentences unsupported.
    report, _ = invented_run()
    baseline = from_dict(json.loads(json_report.render(report, ())), "main.json")
    out = render(report, (), comparison=compare(baseline, report))
    assert "\nNo shared example's groundedness fell.\n" in out


def test_regressions_are_escaped_like_the_other_sections() -> None:
    # The HTML of a sentence is shown, not rendered; a backtick in the path or id cannot end its code span.
    sentence = "Refunds <details> take 3 & days."
    verdict = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "cites <b>")
    example = Example("a`b", "Is <b>it</b> ok?", (Context("d1", "Other."),), sentence)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict,))
    report = Report({"name": "lexical"}, 5, (result,), {})
    before = {"a`b": BaselineExample({"groundedness": 1.0}, frozenset())}
    out = render(report, (), comparison=compare(Baseline("ci/`main`.json", "0.1<2", {}, 5, before), report))
    assert "Baseline ``ci/`main`.json`` (ragmon 0.1&lt;2): 1 example in both runs" in out
    assert "#### ``a`b``: groundedness 1 -> 0" in out
    assert "> Refunds &lt;details> take 3 &amp; days.\n\nReason: cites &lt;b>\n" in out
    assert "<details>" not in out and "<b>" not in out


def test_regressions_are_bounded_by_worst() -> None:
    # 1,000 regressed examples of 20 sentences of 999 characters: at most the default 10, 5 sentences each,
    # and within GitHub's 65,536 characters for a comment. By hand, as for the weakest examples: 10,176
    # characters a section, so 6 fit after the ~1,500 of tables; the other 994 regressed (the 4 listed
    # but cut, and the 990 the cut "And 990 more" line counted), the 1,000 worse on the breached recall
    # drop gate (10 listed and 990 counted, all after the cut) and all 10 weakest examples are counted in
    # the last line.
    report, gates, comparison = many_regressed_run()
    out = render(report, gates, comparison=comparison)
    section = out[out.index("### Regressions against the baseline"):]
    assert [line for line in section.splitlines() if line.startswith("#### ")] == [
        f"#### `x{i:04}`: groundedness 1 -> 0" for i in range(6)]
    assert section.count("And 15 more newly unsupported sentences.") == 6
    assert len(out) <= 65_536 and "### Weakest examples" not in out
    assert out.endswith("*Cut at 65,536 characters, GitHub's limit for a comment: 994 regressed examples, "
                        "1,000 recall regressions and 10 weakest examples left out here. The JSON report "
                        "(`--json`) lists every example.*\n")
    fewer = render(report, gates, comparison=comparison, worst=2)
    assert "And 998 more regressed examples (the JSON report lists all)." in fewer


def test_one_example_is_counted_in_the_singular() -> None:
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "A."),), "A."), "lexical", {}, ())
    lines = render(Report({"name": "lexical"}, 5, (result,), {}), ()).splitlines()
    assert "1 example, judge `lexical`, k=5." in lines


def test_a_relevant_id_retrieved_below_the_top_k_is_named_as_such() -> None:
    # Retrieved a, x, b, c; relevant a, b, c; k = 2: b and c count as not retrieved for recall@2, and the
    # answer, supported by a alone, used none of x, b, c. Both lists name b and c, and say why.
    texts = {"a": "The store opens at nine.", "x": "Parking is free.", "b": "Opening hours vary.",
             "c": "Hours are posted."}
    example = Example("r1", "When does the store open?", tuple(Context(i, t) for i, t in texts.items()),
                      "The store opens at nine.", relevant_ids=frozenset({"a", "b", "c"}))
    report = ragmon.evaluate([example], config=ragmon.EvalConfig(k=2))
    out = render(report, ())
    assert "Relevant but not in the top 2 retrieved: `b`, `c`" in out
    assert "Retrieved but unused: `x`, `b`, `c`" in out


def test_the_examples_behind_a_breached_gate_come_first() -> None:
    # `--k 1 --gate recall=0.9 --worst 2`: ranked by groundedness alone, r10 (grounded, its document
    # missed), the one example that breached the gate, came after two less grounded ones and was cut.
    def result(example_id: str, groundedness: float, recall: float,
               missed: tuple[str, ...] = ()) -> ExampleResult:
        claim = Claim("It opens at 9.", 0, 14)
        grounded = groundedness == 1.0
        example = Example(example_id, "q", (Context("d1", "It opens at 9."),), claim.text)
        return ExampleResult(example, "lexical", {"groundedness": groundedness, "recall": recall},
                             (ClaimVerdict(claim, grounded, ("d1",) if grounded else ()),), missed, ())
    results = (result("r07", 0.0, 1.0), result("r08", 0.0, 1.0), result("r10", 1.0, 0.0, ("d2",)),
               result("r11", 1.0, 1.0))
    gates = (GateResult("recall", ">=", 0.9, 0.75, False, "0.75 < 0.9"),)
    out = render(Report({"name": "lexical"}, 1, results, {}), gates, worst=2)
    assert "### Weakest examples (2 of 3 with problems)" in out
    assert out.index("#### `r10`") < out.index("#### `r07`") and "#### `r08`" not in out
    # Breached groundedness listed first, it still takes turns with recall: r07, then r10, in 2 places.
    grounded = GateResult("groundedness", ">=", 0.95, 0.5, False, "0.5 < 0.95")
    out = render(Report({"name": "lexical"}, 1, results, {}), (grounded, *gates), worst=2)
    assert out.index("#### `r07`") < out.index("#### `r10`") and "#### `r08`" not in out


def test_the_tables_have_their_header_rows_when_gates_are_given(report: Report,
                                                                gates: tuple[GateResult, ...]) -> None:
    # The fixture's run is at the default confidence, 0.95: its interval column is "95% interval". Without
    # the gate table's header rows its first gate's row had joined the metrics table as a row of it.
    out = render(report, gates)
    assert ("\n\n| metric | mean | n | 95% interval |\n|---|---:|---:|---|\n| recall | 0.000 | 4 | "
            "[0.000, 0.000] |\n") in out
    assert ("| answer_relevance | undefined | 4 |  |\n\n| gate | value | result | reason |\n"
            "|---|---:|---|---|\n| groundedness >= 0.85 | 0.5833 | **FAIL** |") in out


def test_an_incomplete_run_says_its_figures_decide_nothing_when_it_keeps_them(report: Report) -> None:
    # The error quoted, then a line saying the figures that follow decide nothing: without it, a reader of
    # a run stopped after scoring took the tables below for a finished run's.
    out = render(report, (), incomplete="judge quota exhausted")
    assert out.startswith("## ragmon replay: INCOMPLETE\n\nThe run could not complete (exit status 2), so no "
                          "gate was decided:\n\n> judge quota exhausted\n\nThe figures below are of what "
                          "could be scored; they decide nothing.\n\n4 examples, judge `lexical`, k=5, "
                          "1 skipped.\n")


def test_a_long_example_id_is_clipped_to_200_characters_when_it_heads_its_section() -> None:
    # A 300-character id: its first 199 characters and "…", 200 in all, in the heading's code span; a
    # wider clip would let each of a run's ids take more of the comment's 65,536 characters than said.
    sentence = "Refunds take 3 days."
    verdict = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "no support")
    result = ExampleResult(Example("i" * 300, "Q?", (Context("d1", "Other."),), sentence), "lexical",
                           {"groundedness": 0.0}, (verdict,))
    out = render(Report({"name": "lexical"}, 5, (result,), {}), ())
    assert f"#### `{'i' * 199}…`: groundedness 0.00" in out.splitlines()


def test_one_example_left_out_is_counted_in_the_singular_when_the_report_is_cut() -> None:
    # many_long_run at --worst 7: six examples fit (test_the_report_fits_a_github_comment_whatever_worst),
    # so one is left out: "1 weakest example", not "1 weakest examples".
    report, gates = many_long_run()
    out = render(report, gates, worst=7)
    assert out.endswith("*Cut at 65,536 characters, GitHub's limit for a comment: 1 weakest example left out "
                        "here. The JSON report (`--json`) lists every example.*\n")


def test_a_report_of_exactly_the_limit_is_whole_and_one_character_more_cuts_it_when_pieces_fill_it() -> None:
    # No example, 50 skipped and 16 warnings: the head, then a piece per heading and per entry. By hand the
    # entries are sized so the whole is exactly 65,536 characters: shown whole, with no note. One character
    # more and the pieces that fit beside the note are kept whole, to the last character of room: the
    # last warning, one character longer than the note, goes and "1 warning" is said left out. A cut a
    # piece early, or one that made room for less than the note, had cut a report that fit or overflowed.
    head = ("## ragmon replay: PASS (no gates given)\n\n0 examples, judge `lexical`, k=5, 50 skipped.\n\n"
            "| metric | mean | n | 95% interval |\n|---|---:|---:|---|\n")
    note = ("\n*Cut at 65,536 characters, GitHub's limit for a comment: 50 skipped examples and 16 warnings "
            "left out here. The JSON report (`--json`) lists every example.*\n")
    skipped = tuple((f"s{i:02}", "w" * 1_000) for i in range(50))  # each "- `s00`: www...\n": 1,010
    small = "x" * (len(note) + 1 - 10)  # "- `v15`: xxx\n", one character longer than the note
    headings = len("\n### Skipped (50)\n\n") + len("\n### Warnings (16)\n\n")
    big = 65_536 - len(head) - headings - 50 * 1_010 - 14 * 1_010 - (len(note) + 1) - 10
    for extra in (0, 1):
        warnings = (*((f"v{i:02}", "w" * 1_000) for i in range(14)), ("v14", "b" * (big + extra)),
                    ("v15", small))
        out = render(Report({"name": "lexical"}, 5, (), {}, skipped=skipped, warnings=warnings), ())
        if not extra:
            assert len(out) == 65_536 and "*Cut at" not in out and out.endswith(f"\n- `v15`: {small}\n")
        else:
            assert out.endswith(f"\n- `v14`: {'b' * (big + 1)}\n\n*Cut at 65,536 characters, GitHub's limit "
                                "for a comment: 1 warning left out here. The JSON report (`--json`) lists "
                                "every example.*\n")


def test_a_held_gate_does_not_put_its_lowest_examples_first_when_ranking_the_weakest() -> None:
    # `--gate recall=0.5` held on the mean of 0.5: "a" (groundedness 0.5, an invented sentence, recall 1)
    # is the weakest, before "b" (grounded, its relevant d2 missed, recall 0). Only a breached gate's
    # examples come first: a held one had put "b" first, and `--worst 1` had hidden the invented sentence.
    answer = "It opens at 9. It closes at 5."
    opens, closes = Claim("It opens at 9.", 0, 14), Claim("It closes at 5.", 15, 30)
    contexts = (Context("d1", "It opens at 9."),)
    a = ExampleResult(Example("a", "q", contexts, answer), "lexical", {"groundedness": 0.5, "recall": 1.0},
                      (ClaimVerdict(opens, True, ("d1",)), ClaimVerdict(closes, False)))
    b = ExampleResult(Example("b", "q", contexts, opens.text), "lexical",
                      {"groundedness": 1.0, "recall": 0.0}, (ClaimVerdict(opens, True, ("d1",)),), ("d2",))
    gates = (GateResult("recall", ">=", 0.5, 0.5, True, "0.5 >= 0.5"),)
    out = render(Report({"name": "lexical"}, 5, (b, a), {}), gates, worst=1)
    assert "### Weakest examples (1 of 2 with problems)" in out
    assert "#### `a`: groundedness 0.50" in out.splitlines() and "#### `b`" not in out


def test_a_rise_on_a_drop_gate_is_signed_when_its_value_is_below_one() -> None:
    # regressed_run with `--max-drop hallucination_rate=0.1` too: hallucination_rate 0.25 -> 0.5, a rise
    # of 0.25 beyond the 0.1 allowed. Shown as "0.25" beside "-0.25" for groundedness, the rise had read
    # like a level rather than a change.
    report, gates, comparison = regressed_run("groundedness=0.1", "hallucination_rate=0.1")
    out = render(report, gates, comparison=comparison)
    assert "| hallucination_rate rise <= 0.1 vs baseline | +0.25 | **FAIL** | " in out
    assert "| groundedness drop <= 0.1 vs baseline | -0.25 | **FAIL** | " in out


def test_a_baseline_abstention_is_said_compared_as_grounded_when_the_answer_makes_claims_now() -> None:
    # "x" answered "I don't know." in the baseline (no claim, so no groundedness) and now its context's
    # sentence and INVENTED: groundedness 1/2. Compared as groundedness 1 and hallucination_rate 0 then,
    # which the line above the table says, and its n cell counts: without it, a baseline figure of 1.000
    # for an answer that made no claim went unexplained.
    returns = "Returns are accepted within 30 days of purchase."
    example = Example("x", "How long do I have to return an item?", (Context("doc-1", returns),),
                      "I don't know.")
    before = evaluate([example], LexicalJudge(), EvalConfig(k=5))
    baseline = from_dict(json.loads(json_report.render(before, ())), "main.json")
    now = evaluate([replace(example, answer=f"{returns} {INVENTED}")], LexicalJudge(), EvalConfig(k=5))
    out = render(now, (), comparison=compare(baseline, now))
    assert (" An answer that abstained in the baseline and makes claims now is compared as groundedness 1 "
            "and hallucination_rate 0 there: it made no unsupported claim.\n") in out
    assert "| groundedness | 1.000 | 0.500 | -0.5 | 1 (1 abstained in the baseline) |" in out


def test_five_unsupported_sentences_are_quoted_with_no_count_when_none_is_left() -> None:
    # Five is the most quoted per example: all five, the report ending with the last one's reason, and no
    # "And 0 more unsupported sentence." (nor "And 0 more weakest example") after it.
    sentences = [f"Claim {i} is made up." for i in range(1, 6)]
    answer = " ".join(sentences)
    verdicts = tuple(ClaimVerdict(Claim(s, answer.index(s), answer.index(s) + len(s)), False, (), f"no {i}")
                     for i, s in enumerate(sentences, 1))
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "Other."),), answer), "lexical",
                           {"groundedness": 0.0}, verdicts)
    out = render(Report({"name": "lexical"}, 5, (result,), {}), ())
    assert [line for line in out.splitlines() if line.startswith("> ")] == [f"> {s}" for s in sentences]
    assert out.endswith("\n\n> Claim 5 is made up.\n\nReason: no 5\n")


def test_one_left_over_is_counted_in_the_singular_and_none_is_not_counted_when_lists_just_overflow() -> None:
    # 6 unsupported sentences (5 quoted), 21 relevant ids missed and 20 retrieved unused (20 named a list):
    # "And 1 more unsupported sentence." and "and 1 more" id; the 20 unused all named, with no "and 0 more".
    # The one sentence or id left over had gone uncounted, or "1 more unsupported sentences" been said.
    sentences = [f"Claim {i} is made up." for i in range(1, 7)]
    answer = " ".join(sentences)
    verdicts = tuple(ClaimVerdict(Claim(s, answer.index(s), answer.index(s) + len(s)), False)
                     for s in sentences)
    missed = tuple(f"m{i:02}" for i in range(21))
    unused = tuple(f"u{i:02}" for i in range(20))
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "Other."),), answer), "lexical",
                           {"groundedness": 0.0}, verdicts, missed, unused)
    lines = render(Report({"name": "lexical"}, 5, (result,), {}), ()).splitlines()
    assert "And 1 more unsupported sentence." in lines
    named = ", ".join(f"`m{i:02}`" for i in range(20))
    assert f"Relevant but not in the top 5 retrieved: {named} and 1 more" in lines
    assert lines[-1] == "Retrieved but unused: " + ", ".join(f"`u{i:02}`" for i in range(20))


def test_an_error_report_written_before_the_run_says_it_has_not_completed_when_no_status_is_given() -> None:
    # The report written before the run's work (status None), which its own replaces: the run has not
    # completed yet. It had said "could not complete (exit status None)", or failed to render at all.
    assert render_error("scoring 120 examples", status=None) == (
        "## ragmon replay: INCOMPLETE\n\nThe run has not completed, so no gate was decided:\n\n"
        "> scoring 120 examples\n")
