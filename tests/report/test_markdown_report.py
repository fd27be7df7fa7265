"""Markdown report: tables, then the weakest examples with their unsupported sentences quoted verbatim, each
with the judge's reason."""

from __future__ import annotations

from report_cases import INVENTED, INVENTED_REASON, invented_run

from ragmon.gate import GateResult
from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report.markdown import render


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
