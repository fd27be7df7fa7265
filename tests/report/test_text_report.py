"""Terminal summary: a row per metric, undefined shown as such, what regressed against a baseline, the
weakest examples' unsupported sentences with their reasons (bounded), and one verdict line naming
breaches."""

from __future__ import annotations

from dataclasses import replace

from report_cases import (
    EXAMPLE_WARNING,
    GIFT,
    GIFT_REASON,
    INVENTED,
    INVENTED_REASON,
    JOINED,
    RUN_WARNING,
    SPOOFED_SHOWN,
    invented_run,
    many_long_run,
    many_regressed_run,
    regressed_run,
    silent_run,
    unicode_run,
)

from ragmon.baseline import Baseline, BaselineExample, compare
from ragmon.gate import GateResult
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report.text import clip, render, show, verdict


def test_table_rows_and_fail_verdict(report: Report, gates: tuple[GateResult, ...]) -> None:
    out = render(report, gates)
    lines = out.splitlines()
    assert lines[0] == "ragmon replay: 4 examples, judge lexical, k=5, 1 skipped"
    rows = {line.split()[0]: line.split(maxsplit=1)[1] for line in lines[2:7]}
    assert rows["metric"].split()[0] == "value"
    # 0.58333 at three decimals; the interval is the stored (0.25, 1.0).
    assert rows["groundedness"].split() == ["0.583", "3", "[0.250,", "1.000]"]
    assert rows["citation_accuracy"].split() == ["undefined", "0"]  # the count once, in the n column
    assert rows["answer_relevance"].split() == ["undefined", "4"]  # NaN is never printed as a figure
    assert lines[-1] == "FAIL: groundedness 0.5833 < 0.85, citation_accuracy undefined: 0 observations"


def test_skipped_examples_are_named_with_their_reason(report: Report, gates: tuple[GateResult, ...]) -> None:
    # e5 was left out of every figure (its judge timed out): a passing gate must not hide that.
    lines = render(report, gates).splitlines()
    start = lines.index("skipped examples (1 of 1, left out of every figure):")
    assert lines[start + 1] == "  e5: judge timed out"
    many = replace(report, skipped=tuple((f"s{i}", "judge error") for i in range(10)))
    listed = [line for line in render(many, gates).splitlines() if line.startswith("  s")]
    assert listed == ["  s0: judge error", "  s1: judge error", "  s2: judge error"]  # the first 3 of 10


def test_a_warning_of_the_run_has_its_own_line_and_the_examples_keep_theirs() -> None:
    # Filed under its first example's id, a warning about the whole run read "e1: ..." in the examples'
    # list, as if e1 had a problem. Now a line of its own after the gates; e1's own warning stays listed.
    report, gates = invented_run()
    out = render(replace(report, warnings=(EXAMPLE_WARNING,)), gates, run_warnings=(RUN_WARNING,))
    assert ("gate groundedness >= 0.9: BREACHED (0.75 < 0.9)\ngate recall >= 0.5: ok (0.75 >= 0.5)\n"
            f"warning: {RUN_WARNING}\n\nwarnings (1 of 1, on examples scored):\n"
            "  e1: only the last of 2 answers is scored\n\n") in out


def test_pass_verdicts() -> None:
    held = GateResult("recall", ">=", 0.5, 0.6, True, "0.6 >= 0.5")
    assert verdict((held,)) == "PASS"
    assert verdict(()) == "PASS (no gates given)"


def test_an_incomplete_run_ends_with_why_not_with_pass(report: Report) -> None:
    # The gate held, but the run stopped after scoring (exit 2): the last line, the one CI logs grep, must
    # not read PASS, nor the gate's line `ok` above it. A control character in the reason (from a path or
    # a judge reply) is escaped. e5 is the 1 of the 5 examples the judge failed on.
    held = (GateResult("recall", ">=", 0.0, 0.0, True, "0 >= 0"),)
    lines = render(report, held, incomplete="the judge failed on all 4 examples\x1b[2J").splitlines()
    assert lines[-1] == "INCOMPLETE: the judge failed on all 4 examples\\x1b[2J"
    assert "gate recall >= 0: not decided (0 >= 0; 1 of 5 examples skipped: the judge failed on it)" in lines
    assert "  e5: judge timed out" in lines


def test_weakest_examples_quote_the_invented_sentence_and_its_reason() -> None:
    report, gates = invented_run()
    lines = render(report, gates).splitlines()
    start = lines.index("gate recall >= 0.5: ok (0.75 >= 0.5)") + 1
    # Only "bad" has an unsupported sentence; its groundedness is 1/2. The verdict stays the last line.
    assert lines[start:] == [
        "",
        "weakest examples (1 of 1 with unsupported sentences):",
        "  bad: groundedness 0.50",
        f'    "{INVENTED}"',
        f"      reason: {INVENTED_REASON}",
        "",
        "FAIL: groundedness 0.75 < 0.9",
    ]
    only_ok = replace(report, results=report.results[:1])  # "ok": its one sentence is supported
    assert "weakest" not in render(only_ok, gates)


def test_weakest_examples_are_bounded() -> None:
    report, gates = many_long_run()
    out = render(report, gates)
    lines = out.splitlines()
    assert "weakest examples (3 of 1000 with unsupported sentences):" in lines
    shown = [line for line in lines if line.startswith("  x")]
    assert shown == [f"  x{i:04}: groundedness 0.00" for i in range(3)]
    assert lines.count("    and 17 more unsupported sentences") == 3  # 3 of 20 quoted per example
    # The widest lines are a reason's: 6 spaces, "reason: " (8) or 8 more spaces, and 86 characters: 100.
    assert max(map(len, lines)) == 100
    # A 1,000-character reason takes 3 lines, the last cut with "…".
    assert sum(line.endswith("…") and line.startswith("              ") for line in lines) == 9
    # By hand: ~15 lines of header, table and gates, then 3 x (1 + 3 x (1 + 3) + 1) = 42 lines of at most 100.
    assert len(out) < 6_000


def reason_shown(reason: str, sentence: str = "Refunds take 3 days.", doc: str = "d") -> list[str]:
    """The terminal summary's lines after the one unsupported sentence of an example, its judge's `reason`
    first (the example's one context is `doc`)."""
    verdict_ = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), reason)
    example = Example("e1", "Q?", (Context(doc, "Other."),), sentence)
    out = render(Report({"name": "lexical"}, 5, (ExampleResult(example, "lexical", {"groundedness": 0.0},
                                                               (verdict_,)),), {}), ())
    lines = out.splitlines()
    return lines[lines.index(f'    "{sentence}"') + 1:]


def test_a_reason_is_shown_to_its_end_over_up_to_three_lines() -> None:
    # What the lexical judge's reason ends with is what tells the user why: the number the context lacks.
    reason = "no single context supports it; closest pol-refund-timing has 3/4 of its terms, lacks 24"
    # 88 characters: the first line takes the words up to 86, the last word goes to a second line.
    assert reason_shown(reason, "Most banks show the credit within 24 hours of that.")[:2] == [
        "      reason: no single context supports it; closest pol-refund-timing has 3/4 of its terms, lacks",
        "              24"]


def test_a_reason_wrapped_over_lines_keeps_each_escape_whole() -> None:
    # A context id of C1 controls in the lexical judge's reason: its 32 escapes make one 129-character
    # word, which had been cut at the line's width, ending the line with "\\x8b\\" and beginning the next
    # with "x8c": two characters that are not the id's. By hand: "no single context supports it; closest "
    # is 39 characters, so 47 are left on the line, room for "c" and 11 escapes (45); the 12th, "\\x8c",
    # begins the next line, where the other 20 (80 characters) and " has" fit in 86.
    doc = "c" + "".join(map(chr, range(0x80, 0x85))) + "".join(map(chr, range(0x86, 0xA0)))
    reason = f"no single context supports it; closest {doc} has 0/2 of its terms, lacks 7"
    assert reason_shown(reason, "The fee is 7 dollars.", doc)[:3] == [
        "      reason: no single context supports it; closest c\\x80\\x81\\x82\\x83\\x84\\x86\\x87"
        "\\x88\\x89\\x8a\\x8b",
        "              \\x8c\\x8d\\x8e\\x8f\\x90\\x91\\x92\\x93\\x94\\x95\\x96\\x97\\x98\\x99"
        "\\x9a\\x9b\\x9c\\x9d\\x9e\\x9f has",
        "              0/2 of its terms, lacks 7"]


def test_terminal_control_sequences_in_answers_are_shown_escaped() -> None:
    # An ANSI escape in an answer would recolour the terminal; a lone surrogate cannot be written to a
    # UTF-8 stdout at all. Expected: each as its Python escape, written out by hand.
    sentence = "Refunds \x1b[31mnow\ud800."
    verdict_ = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "closest\x07 d")
    example = Example("e1", "Q?", (Context("d", "Other."),), sentence)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict_,))
    out = render(Report({"name": "lexical"}, 5, (result,), {}), ())
    assert '    "Refunds \\x1b[31mnow\\ud800."' in out.splitlines()
    assert "      reason: closest\\x07 d" in out.splitlines()
    out.encode("utf-8")


def test_a_regression_against_the_baseline_is_named_with_its_newly_unsupported_sentence() -> None:
    report, gates, comparison = regressed_run()
    lines = render(report, gates, comparison=comparison).splitlines()
    # Worked out in regressed_run: groundedness 0.75 -> 0.5 on ok and bad, a drop of 0.25 > 0.1.
    assert "gate groundedness drop <= 0.1 vs baseline: BREACHED (dropped 0.25 > 0.1 against the baseline: " \
           "0.75 -> 0.5 on 2 examples measured in both runs)" in lines
    assert "gate recall drop <= 0 vs baseline: ok (unchanged against the baseline: 0.75 -> 0.75 on 2 " \
           "examples measured in both runs)" in lines
    start = lines.index("baseline main.json: 2 examples in both runs, 1 new, 1 gone (old)")
    # Only ok regressed, with GIFT; bad's INVENTED was unsupported in the baseline too, so it is not new.
    assert lines[start + 1:start + 6] == [
        "regressed examples (1 of 1 whose groundedness fell against the baseline):",
        "  ok: groundedness 1 -> 0.5",
        f'    "{GIFT}"',
        f"      reason: {GIFT_REASON}",
        "",
    ]
    assert lines[-1] == "FAIL: groundedness dropped 0.25 > 0.1 against the baseline: 0.75 -> 0.5 on 2 " \
                        "examples measured in both runs"
    assert not any(line.startswith("baseline ") for line in render(report, gates).splitlines())


def test_regressions_and_gone_examples_are_bounded() -> None:
    # 1,000 regressed examples of 20 newly unsupported sentences each: 3 examples, 3 sentences each.
    report, gates, comparison = many_regressed_run()
    lines = render(report, gates, comparison=comparison).splitlines()
    start = lines.index("regressed examples (3 of 1000 whose groundedness fell against the baseline):")
    assert [line for line in lines[start:] if line.startswith("  x")][:3] == [
        "  x0000: groundedness 1 -> 0", "  x0001: groundedness 1 -> 0", "  x0002: groundedness 1 -> 0"]
    assert lines.count("    and 17 more newly unsupported sentences") == 3
    # Ten examples the baseline had and this run does not: the first 3 named, the rest counted.
    gone = {f"g{i}": BaselineExample({}, frozenset()) for i in range(10)}
    baseline = Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, gone)
    out = render(report, gates, comparison=compare(baseline, report))
    assert "baseline main.json: 0 examples in both runs, 1000 new, 10 gone (g0, g1, g2 and 7 more)" in out


def test_a_regression_with_no_new_sentence_says_so() -> None:
    # The baseline's answer made 3 claims, B unsupported (2/3); this run drops the supported C (1/2):
    # groundedness fell, yet no sentence is newly unsupported.
    answer = "Returns take 30 days. B is made up. "
    verdicts = (ClaimVerdict(Claim("Returns take 30 days.", 0, 21), True, ("d1",)),
                ClaimVerdict(Claim("B is made up.", 22, 35), False, (), "no support"))
    result = ExampleResult(Example("e1", "Q?", (Context("d1", "Returns take 30 days."),), answer), "lexical",
                           {"groundedness": 0.5}, verdicts)
    report = Report({"name": "lexical"}, 5, (result,), {})
    before = BaselineExample({"groundedness": 2 / 3}, frozenset({"B is made up."}))
    comparison = compare(Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {"e1": before}), report)
    lines = render(report, (), comparison=comparison).splitlines()
    start = lines.index("  e1: groundedness 0.6667 -> 0.5")
    assert lines[start + 1] == "    no newly unsupported sentence"


# `clip`, which every report uses on text from the data: a character shown as its escape is shown whole
# or not at all, since a cut one ("\\x1" of "\\x1b") would name another character.
def test_an_escape_is_never_cut_in_two() -> None:
    # By hand, width 6: "id " (3) + "\x1b" (4) = 7 characters would not leave room for the "…", so the
    # escape goes whole; what is left, "id ", loses its trailing space: "id" + "…".
    assert clip("id \x1b[31m", 6) == "id…"
    # Width 9: "ab" (2) + "\u202e" (6) = 8, then "…": the escape is kept whole, the "c" after it is not.
    assert clip("ab\u202ecdef", 9) == "ab\\u202e…"


def test_text_without_escapes_is_cut_as_before() -> None:
    # 12 characters into 10: the first 9 and the ellipsis; 10 fit as they are.
    assert clip("abcdefghijkl", 10) == "abcdefghi…"
    assert clip("abcdefghij", 10) == "abcdefghij"


def test_a_gated_metric_some_examples_have_no_value_for_is_warned_of_with_why() -> None:
    # silent_run, worked out there: 10 of 30 examples have no groundedness, 8 saying nothing (s21-s28)
    # and 2 with no contexts (s29, s30); the first 5 ids of each reason are named. A warning after the
    # gates, not a breach: groundedness >= 0.85 still holds, and the verdict is the breached gate alone.
    lines = render(*silent_run()).splitlines()
    at = lines.index("gate hallucination_rate <= 0.01: BREACHED (0.025 > 0.01)")
    why = ("10 of 30 examples, left out of its figures (not counted as 0): 8 whose answer makes no claim "
           "(empty, declining or filler): s21, s22, s23, s24, s25 and 3 more; 2 with the contexts unknown: "
           "s29, s30")
    assert lines[at + 1:at + 3] == [f"warning: groundedness has no value for {why}",
                                    f"warning: hallucination_rate has no value for {why}"]
    assert "gate groundedness >= 0.85: ok (0.975 >= 0.85)" in lines
    assert lines[-1] == "FAIL: hallucination_rate 0.025 > 0.01"
    report, gates = invented_run()  # every gated metric measured on both examples: no warning
    assert "warning" not in render(report, gates)


def test_joiners_are_shown_as_written_and_bidi_controls_escaped() -> None:
    # The family emoji, a Hindi conjunct and a Persian word as they are written; a bidi override, a
    # joiner between ASCII digits and a zero-width space as escapes (SPOOFED_SHOWN, by hand).
    lines = render(*unicode_run()).splitlines()
    assert f'    "{JOINED}"' in lines
    assert f'    "{SPOOFED_SHOWN}"' in lines


def test_a_joiner_is_kept_only_between_two_visible_letters_or_emoji() -> None:
    # At either end, doubled, or beside an ASCII character it joins nothing a reader sees: escaped.
    assert show("\u200d👩 👨\u200d", 40) == "\\u200d👩 👨\\u200d"
    assert show("👨\u200d\u200d👩", 40) == "👨\\u200d\\u200d👩"
    assert show("sup\u200d-004", 40) == "sup\\u200d-004"
    # Cut: "👨\u200d👩\u200d👧" is 5 characters; at width 4 the joiner left last would join nothing, so it
    # is counted as its 6-character escape and goes: "👨" + ZWJ + "👩" and "…" fit 4.
    assert show("👨\u200d👩\u200d👧", 4) == "👨\u200d👩…"
    # A message for the terminal keeps every character printable, as its callers assert.
    assert clip("👨\u200d👩", 20) == "👨\\u200d👩"


def test_one_example_in_both_runs_is_counted_in_the_singular() -> None:
    example = Example("a", "Q?", (Context("d1", "Refunds take 30 days."),), "Refunds take 30 days.")
    result = ExampleResult(example, "lexical", {"groundedness": 1.0}, ())
    report = Report({"name": "lexical"}, 5, (result,), {})
    baseline = Baseline("main.json", "0.1", {}, 5, {"a": BaselineExample({"groundedness": 1.0}, frozenset())})
    lines = render(report, (), comparison=compare(baseline, report)).splitlines()
    assert "baseline main.json: 1 example in both runs, 0 new, 0 gone" in lines


def test_a_long_reason_is_cut_at_its_third_line_when_it_would_take_more() -> None:
    # A 1,000-character reason with no space: 3 lines of 86 at most, so 3 x 86 = 258 characters, the last
    # of them "…": 86, 86, then 85 and "…". A fourth line had let one example's reason fill the terminal.
    assert reason_shown("r" * 1_000) == [f"      reason: {'r' * 86}", f"              {'r' * 86}",
                                         f"              {'r' * 85}…", "", "PASS (no gates given)"]


def test_a_long_id_and_a_long_error_are_clipped_when_they_pass_their_widths() -> None:
    # Ids are clipped to 40 characters in the terminal, the error that stopped a run to 1,000: the first
    # 39 (or 999) characters and "…". A 60-character id and a 1,500-character error each lose the rest.
    sentence = "Refunds take 3 days."
    verdict_ = ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), "no support")
    example = Example("i" * 60, "Q?", (Context("d", "Other."),), sentence)
    result = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict_,))
    lines = render(Report({"name": "lexical"}, 5, (result,), {}), (), incomplete="x" * 1_500).splitlines()
    assert f"  {'i' * 39}…: groundedness 0.00" in lines
    assert lines[-1] == f"INCOMPLETE: {'x' * 999}…"


def test_sections_are_parted_by_one_blank_line_when_no_gate_line_comes_between(report: Report) -> None:
    # No gates: the skipped examples follow the table, then the weakest examples (e4 and e1, with
    # unsupported sentences), each after one blank line. Two blank lines had opened each section.
    out = render(report, ())
    assert "\n\n\n" not in out
    assert ("\n\nskipped examples (1 of 1, left out of every figure):\n  e5: judge timed out\n\n"
            "weakest examples (2 of 2 with unsupported sentences):\n") in out


def test_sentences_left_over_are_counted_only_when_there_are_some() -> None:
    # Three sentences are quoted per example: e3's 3 with no count after them, e4's first 3 and "and 1 more
    # unsupported sentence". The count had read "and 0 more" under e3, or been left out under e4.
    def result(example_id: str, count: int) -> ExampleResult:
        sentences = [f"Claim {i} is made up." for i in range(1, count + 1)]
        answer = " ".join(sentences)
        verdicts = tuple(ClaimVerdict(Claim(s, answer.index(s), answer.index(s) + len(s)), False)
                         for s in sentences)
        return ExampleResult(Example(example_id, "Q?", (Context("d", "Other."),), answer), "lexical",
                             {"groundedness": 0.0}, verdicts)
    lines = render(Report({"name": "lexical"}, 5, (result("e3", 3), result("e4", 4)), {}), ()).splitlines()
    at = lines.index("  e3: groundedness 0.00")
    assert lines[at:] == ["  e3: groundedness 0.00", '    "Claim 1 is made up."', '    "Claim 2 is made up."',
                          '    "Claim 3 is made up."', "  e4: groundedness 0.00", '    "Claim 1 is made up."',
                          '    "Claim 2 is made up."', '    "Claim 3 is made up."',
                          "    and 1 more unsupported sentence", "", "PASS (no gates given)"]


def test_a_word_of_escapes_starts_a_line_whole_when_the_line_before_has_room_for_part_of_one() -> None:
    # A reason of 83 (or 81) letters, a space, then a context id of 30 C1 controls: one 120-character word
    # of 4-character escapes. After "a" * 83 and the space, 2 columns are left, half an escape: the word
    # starts the next line, 21 escapes (84 of 86 columns) on it and 9 on the last. After "a" * 81 and the
    # space, 4 are left: one escape whole ends that line, then 21 and 8. The cut had split "\x8b" into
    # "\x" and "8b", or pushed an escape that fitted to the next line.
    escapes, shown = "\x8b" * 30, "\\x8b"
    for letters, first, rest in ((83, "a" * 83, [21, 9]), (81, "a" * 81 + " \\x8b", [21, 8])):
        assert reason_shown(f"{'a' * letters} {escapes}")[:3] == [f"      reason: {first}",
                                                                  *(f"{' ' * 14}{shown * n}" for n in rest)]


def test_three_gone_examples_are_all_named_with_no_count_when_none_is_left(report: Report) -> None:
    # Three is how many gone examples the summary names: g0, g1 and g2, and no "and 0 more" after them.
    gone = {f"g{i}": BaselineExample({}, frozenset()) for i in range(3)}
    out = render(report, (), comparison=compare(Baseline("main.json", "0.1.0", {}, 5, gone), report))
    assert "baseline main.json: 0 examples in both runs, 4 new, 3 gone (g0, g1, g2)" in out.splitlines()


def test_a_joiner_or_selector_first_in_the_text_is_escaped_when_the_text_ends_with_an_emoji() -> None:
    # A joiner or a variation selector that is the first character follows nothing, so joins or selects
    # nothing a reader sees: escaped, even where the text ends with an emoji (what the character before
    # the first would be, counted from the end): shown raw, it was invisible. A selector right after a
    # first character is that emoji's, shown as written.
    assert show("\u200d👩 👨", 40) == "\\u200d👩 👨"
    assert show("\ufe0f❤", 40) == "\\ufe0f❤"
    assert show("❤\ufe0f ok", 40) == "❤\ufe0f ok"


def test_a_joined_emoji_is_shown_whole_when_it_fills_the_width_exactly() -> None:
    # "👨\u200d👩" is 3 characters, each shown as itself (the joiner joins two emoji): at width 3 it fits,
    # where it had been cut to "👨…" as if one character too long.
    assert show("👨\u200d👩", 3) == "👨\u200d👩"
    assert show("👨\u200d👩", 2) == "👨…"


def test_a_breached_citation_gate_lists_no_examples_when_none_measured_it(
        report: Report, gates: tuple[GateResult, ...]) -> None:
    # The fixture's citation_accuracy >= 0.5 is breached as undefined: no example has a value, so none is
    # below it and no section names any. An empty "citation_accuracy below 0.5 (0 of 0 examples, worst
    # first):" had headed nothing.
    out = render(report, gates)
    assert "citation_accuracy below" not in out
    assert out.endswith("\n\nFAIL: groundedness 0.5833 < 0.85, citation_accuracy undefined: 0 observations\n")


def test_a_long_word_after_a_full_line_starts_the_next_one_when_the_line_has_no_room() -> None:
    # 85 letters and a space fill the reason's 86 columns; the 200-letter word after them, clipped with the
    # reason to 3 x 86 = 258 characters (171 letters and "…" left of it), starts the next line: 86, then 85
    # and "…". It had put its first letter on the full line: 87 columns, 101 with the indent, past the 100
    # the terminal summary keeps to.
    assert reason_shown(f"{'a' * 85} {'b' * 200}")[:3] == [f"      reason: {'a' * 85}",
                                                          f"{' ' * 14}{'b' * 86}", f"{' ' * 14}{'b' * 85}…"]
