"""Identifiers are shown as written in every report: an example's id, a document's, a skipped example's, a
gone one's, the baseline's path. Only their characters that are not printable or invisible are escaped,
white space too, so "a b" and "a\\u2028b" (a LINE SEPARATOR), "a\\nb", "a\\tb", "a\\xa0b" read differently
and the id shown is the one to grep for. Squeezing white space, as the reports do for answers, claims and
reasons, showed all of them as "a b". A sentence with a line break is still shown on one line, squeezed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ragmon import baseline as baselines
from ragmon.baseline import Comparison
from ragmon.gate import GateResult, decide_drops, parse_drops
from ragmon.model import Aggregate, Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report import json as json_report
from ragmon.report import junit, markdown, text
from ragmon.report.text import clip, show, show_id

# Each separator beside its escape, written by hand: `str.split` takes every one of them as white space.
SEPARATORS = [
    pytest.param("\u2028", "\\u2028", id="line-separator"),
    pytest.param("\u2029", "\\u2029", id="paragraph-separator"),
    pytest.param("\n", "\\n", id="newline"),
    pytest.param("\r", "\\r", id="carriage-return"),
    pytest.param("\t", "\\t", id="tab"),
    pytest.param("\xa0", "\\xa0", id="no-break-space"),
    pytest.param("\x85", "\\x85", id="next-line"),
    pytest.param("\u3000", "\\u3000", id="ideographic-space"),
]
CLAIM = "Zebras are\npurple."
"""An unsupported sentence with a line break: shown on one line, as "Zebras are purple."."""
REASON = "none\u2028of\tit"
"""The judge's reason, with a line separator and a tab: shown squeezed, as "none of it"."""


def _result(example_id: str, sep: str) -> ExampleResult:
    example = Example(example_id, "Q?", (Context(f"u{sep}v", "Cats sleep."),), CLAIM)
    verdict = ClaimVerdict(Claim(CLAIM, 0, len(CLAIM)), False, (), REASON)
    return ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict,), ("d x", f"d{sep}x"),
                         (f"u{sep}v",))


def spaced_run(sep: str) -> tuple[Report, tuple[GateResult, ...], Comparison]:
    """Two examples, "a b" and "a{sep}b", each with CLAIM unsupported (groundedness 0) and the relevant
    documents "d x" and "d{sep}x" not retrieved; a third, "s{sep}k", skipped with a reason that has a line
    break. Their baseline, at "base{sep}line.json", had both grounded (1 -> 0: both regressed) and a third,
    "g{sep}one", this run has not. Gated: groundedness >= 0.5 and a drop of 0.1 breached, recall >= 0.5
    has no value for any example (none has relevant ids), so the warning names them all."""
    results = (_result("a b", sep), _result(f"a{sep}b", sep))
    report = Report({"name": "lexical"}, 5, results,
                    {"groundedness": Aggregate(0.0, 2, (0.0, 0.0)), "recall": Aggregate(None, 0, None)},
                    skipped=((f"s{sep}k", "judge\ntimed out"),))
    grounded = baselines.BaselineExample({"groundedness": 1.0}, frozenset())
    baseline = baselines.Baseline(f"base{sep}line.json", "0.1.0", {"name": "lexical"}, 5,
                                  {"a b": grounded, f"a{sep}b": grounded, f"g{sep}one": grounded})
    comparison = baselines.compare(baseline, report)
    drops = decide_drops(comparison, parse_drops(["groundedness=0.1"]), None, report.config)
    gates = (GateResult("groundedness", ">=", 0.5, 0.0, False, "0 < 0.5"),
             GateResult("recall", ">=", 0.5, None, False, "undefined: 0 observations"), *drops)
    return report, gates, comparison


@pytest.mark.parametrize(("sep", "escaped"), SEPARATORS)
def test_show_id_escapes_white_space_that_show_squeezes(sep: str, escaped: str) -> None:
    assert show_id(f"a{sep}b", 40) == f"a{escaped}b"
    assert show_id("a b", 40) == "a b"
    assert show(f"a{sep}b", 40) == clip(f"a{sep}b", 40) == "a b"  # prose: one line, squeezed, as before


def test_show_id_keeps_every_space_and_cuts_as_show_does() -> None:
    assert show_id(" a  b ", 40) == " a  b "
    assert show_id("a\n\nb", 40) == "a\\n\\nb"
    assert show_id("a\u2028" * 10, 13) == "a\\u2028a…"  # an escape is kept whole or not at all
    assert show_id("abcdefghijkl", 10) == show("abcdefghijkl", 10) == "abcdefghi…"
    assert show_id("a\ufffeb", 40) == show("a\ufffeb", 40) == "a\\ufffeb"
    assert show_id("👨\u200d👩", 40) == "👨\u200d👩"  # a joiner between emoji, as `show` keeps it


@pytest.mark.parametrize(("sep", "escaped"), SEPARATORS)
def test_the_terminal_summary_tells_the_ids_apart(sep: str, escaped: str) -> None:
    report, gates, comparison = spaced_run(sep)
    lines = text.render(report, gates, comparison=comparison).splitlines()
    for shown in ("a b", f"a{escaped}b"):
        assert f"  {shown}: groundedness 0.00" in lines  # the weakest
        assert f"  {shown}: groundedness 1 -> 0" in lines  # the regressed
    assert f"  s{escaped}k: judge timed out" in lines
    assert (f"baseline base{escaped}line.json: 2 examples in both runs, 0 new, 1 gone (g{escaped}one)"
            in lines)
    (warned,) = [line for line in lines if line.startswith("warning: recall")]
    assert f": a b, a{escaped}b; " in warned and warned.endswith(f": s{escaped}k")
    # The sentence and the reason, on one line each, their white space squeezed.
    assert lines.count('    "Zebras are purple."') == 4 and lines.count("      reason: none of it") == 4


@pytest.mark.parametrize(("sep", "escaped"), SEPARATORS)
def test_the_markdown_report_tells_the_ids_apart(sep: str, escaped: str) -> None:
    report, gates, comparison = spaced_run(sep)
    lines = markdown.render(report, gates, comparison=comparison).splitlines()
    for shown in ("a b", f"a{escaped}b"):
        assert f"#### `{shown}`: groundedness 0.00" in lines
        assert f"#### `{shown}`: groundedness 1 -> 0" in lines
    assert lines.count(f"Relevant but not in the top 5 retrieved: `d x`, `d{escaped}x`") == 2
    assert lines.count(f"Retrieved but unused: `u{escaped}v`") == 2
    assert f"- `s{escaped}k`: judge timed out" in lines
    assert (f"Baseline `base{escaped}line.json` (ragmon 0.1.0): 2 examples in both runs, 0 new, 1 gone "
            f"(`g{escaped}one`). Figures are over the examples both runs measured." in lines)
    (warned,) = [line for line in lines if line.startswith("**Warning**: recall")]
    assert f": `a b`, `a{escaped}b`; " in warned and warned.endswith(f": `s{escaped}k`.")
    assert lines.count("> Zebras are purple.") == 4 and lines.count("Reason: none of it") == 4


@pytest.mark.parametrize(("sep", "escaped"), SEPARATORS)
def test_the_junit_report_tells_the_ids_apart(sep: str, escaped: str) -> None:
    report, gates, comparison = spaced_run(sep)
    written = junit.render(report, gates, comparison=comparison)
    suite = ET.fromstring(written.encode("utf-8"))
    failures = {case.get("name"): case.find("failure") for case in suite.iter("testcase")}
    assert list(failures) == ["groundedness >= 0.5", "recall >= 0.5", "groundedness drop <= 0.1 vs baseline"]
    worst = failures["groundedness >= 0.5"].text.splitlines()
    worse = failures["groundedness drop <= 0.1 vs baseline"].text.splitlines()
    for shown in ("a b", f"a{escaped}b"):
        assert f"{shown}: groundedness 0" in worst
        assert f"{shown}: groundedness 1 -> 0" in worse
    assert worst.count('  "Zebras are purple."') == 2 and worst.count("    reason: none of it") == 2
    warned = failures["recall >= 0.5"].text.splitlines()[1]
    assert f": a b, a{escaped}b; " in warned and warned.endswith(f": s{escaped}k")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["baseline"] == f"base{escaped}line.json"
    # The log the suite carries is the terminal summary, the ids told apart there too.
    log = suite.findtext("system-out", "").splitlines()
    assert f"  a{escaped}b: groundedness 0.00" in log and "  a b: groundedness 0.00" in log
    # No id's separator reaches the file raw, where an XML parser would read a newline in an attribute as a
    # space and a CI page would break the line.
    assert ("a\nb" if sep == "\n" else sep) not in written


@pytest.mark.parametrize(("sep", "escaped"), SEPARATORS)
def test_the_json_report_keeps_the_ids_as_they_are(sep: str, escaped: str) -> None:
    report, gates, comparison = spaced_run(sep)
    doc = json.loads(json_report.render(report, gates, comparison=comparison))
    assert [r["id"] for r in doc["results"]] == ["a b", f"a{sep}b"]
    assert [r["relevant_not_retrieved"] for r in doc["results"]] == [["d x", f"d{sep}x"]] * 2
    assert [r["id"] for r in doc["baseline"]["regressed"]] == ["a b", f"a{sep}b"]
    assert doc["baseline"]["gone_ids"] == [f"g{sep}one"] and doc["baseline"]["path"] == f"base{sep}line.json"
    assert doc["skipped"] == [{"id": f"s{sep}k", "reason": "judge\ntimed out"}]
    assert [v["text"] for v in doc["results"][0]["claims"]] == [CLAIM]


def test_an_id_starting_and_ending_with_a_space_keeps_them_in_its_markdown_code_span() -> None:
    """CommonMark strips one space from each end of a code span that has one at both: padded, as for a
    backtick, the id " a " renders as " a ", not as "a", another example's id."""
    report, gates, _ = spaced_run("\n")
    results = (_result(" a ", "\n"), _result("a", "\n"))
    lines = markdown.render(Report(report.judge, 5, results, report.aggregates), gates[:1]).splitlines()
    assert "#### `  a  `: groundedness 0.00" in lines and "#### `a`: groundedness 0.00" in lines


# Unicode's default-ignorable characters that `str.isprintable` passes, each beside its escape, written by
# hand: a renderer shows them as nothing.
INVISIBLES = [
    pytest.param("\u034f", "\\u034f", id="combining-grapheme-joiner"),
    pytest.param("\u115f", "\\u115f", id="hangul-choseong-filler"),
    pytest.param("\u1160", "\\u1160", id="hangul-jungseong-filler"),
    pytest.param("\u3164", "\\u3164", id="hangul-filler"),
    pytest.param("\uffa0", "\\uffa0", id="halfwidth-hangul-filler"),
    pytest.param("\u17b4", "\\u17b4", id="khmer-inherent-aq"),
    pytest.param("\u180b", "\\u180b", id="mongolian-variation-selector"),
    pytest.param("\u180f", "\\u180f", id="mongolian-variation-selector-4"),
    pytest.param("\ufe0f", "\\ufe0f", id="variation-selector-16"),
    pytest.param("\U000e0100", "\\U000e0100", id="variation-selector-17"),
]


@pytest.mark.parametrize(("invisible", "escaped"), INVISIBLES)
def test_every_report_tells_apart_ids_that_differ_by_an_invisible_character(invisible: str,
                                                                            escaped: str) -> None:
    # "sup-0\u034f04" and "x\u3164" were shown as "sup-004" and "x" in the terminal, the Markdown and the
    # JUnit report: two examples, each figure of which a reader took for the other's, with no warning.
    results = (_result("sup-004", " "), _result(f"sup-0{invisible}04", " "))
    report = Report({"name": "lexical"}, 5, results, {"groundedness": Aggregate(0.0, 2, (0.0, 0.0))})
    gates = (GateResult("groundedness", ">=", 0.5, 0.0, False, "0 < 0.5"),)
    summary = text.render(report, gates).splitlines()
    assert "  sup-004: groundedness 0.00" in summary and f"  sup-0{escaped}04: groundedness 0.00" in summary
    lines = markdown.render(report, gates).splitlines()
    assert "#### `sup-004`: groundedness 0.00" in lines
    assert f"#### `sup-0{escaped}04`: groundedness 0.00" in lines
    failure = ET.fromstring(junit.render(report, gates).encode("utf-8")).findtext("testcase/failure", "")
    assert "\nsup-004: groundedness 0\n" in failure and f"\nsup-0{escaped}04: groundedness 0\n" in failure
    assert clip(f"x{invisible}", 40) == f"x{escaped}"  # as warnings quote an id


def test_a_variation_selector_after_an_emoji_is_kept_in_prose_never_in_an_id() -> None:
    # Prose: the red heart (U+2764 U+FE0F) and the rainbow flag, whose joiner follows a selector, as written;
    # a selector after ASCII, or a second one after the first (a run of them carries invisible text),
    # escaped. An id: "🚀" and "🚀\ufe0f" are two, and read as two.
    assert show("I \u2764\ufe0f it, \U0001f3f3\ufe0f\u200d\U0001f308", 80) == (
        "I \u2764\ufe0f it, \U0001f3f3\ufe0f\u200d\U0001f308")
    assert show("sup-0\ufe0f04 \U0001f680\ufe0f\ufe0e", 80) == "sup-0\\ufe0f04 \U0001f680\ufe0f\\ufe0e"
    assert show_id("\U0001f680\ufe0f", 40) == "\U0001f680\\ufe0f"
    assert show_id("\U0001f3f3\ufe0f\u200d\U0001f308", 40) == "\U0001f3f3\\ufe0f\\u200d\U0001f308"
