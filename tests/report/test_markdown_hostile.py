"""The Markdown report against hostile text. Answers, retrieved documents and dataset fields are written by
people other than the one reading the report (a PR comment, a CI step summary): what they hold is shown as
written when GitHub renders it, never acted on. Each expected line is derived by hand from the CommonMark
rules: a backslash before ASCII punctuation shows that character; a `&#8203;` (zero-width space) after `@`
or `#` leaves the text as it looks while GitHub's mention and issue-reference finder no longer matches."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from report_cases import JOINED, SPOOFED_SHOWN, unicode_run

from ragmon.model import Claim, ClaimVerdict, Context, Example, ExampleResult, Report
from ragmon.report.markdown import render, render_error


def _rendered(*sentences: str, question: str = "Q?", reason: str | None = None) -> list[str]:
    """The report's lines, of one example per sentence whose answer is that sentence, unsupported."""
    results = tuple(
        ExampleResult(Example(f"e{i}", question, (Context("d1", "Other."),), sentence), "lexical",
                      {"groundedness": 0.0},
                      (ClaimVerdict(Claim(sentence, 0, len(sentence)), False, (), reason),))
        for i, sentence in enumerate(sentences))
    return render(Report({"name": "lexical"}, 5, results, {}), (), worst=len(sentences)).splitlines()


def test_links_images_emphasis_and_code_in_a_sentence_are_shown_not_rendered() -> None:
    # An image would load (a tracking pixel; or a green "passed" badge of the attacker's), a link would
    # hide where it leads; emphasis, strikethrough and a code span would change the quote's look. `]` is
    # escaped, so no link or image text can close; a backslash that would escape the next character is
    # itself escaped ("a\*b": `\\` shows `\`, `\*` shows `*`). The URLs are bare ones then, made inert
    # as below.
    lines = _rendered("Look ![x](https://evil.example/t.png) here.",
                      "Click [here](https://evil.example/p) now.", "It is *not* ~~free~~ `x` __bold__.",
                      "Type a\\*b now.", reason="closest doc`1` has 0/4")
    assert "> Look ![x\\](https:&#8203;//evil.example/t.png) here." in lines
    assert "> Click [here\\](https:&#8203;//evil.example/p) now." in lines
    assert "> It is \\*not\\* \\~\\~free\\~\\~ \\`x\\` \\_\\_bold\\_\\_." in lines
    assert "> Type a\\\\\\*b now." in lines
    assert "Reason: closest doc\\`1\\` has 0/4" in lines


def test_a_sentence_cannot_start_a_block_inside_its_quote() -> None:
    # After "> " these would be a heading, a list item, a nested quote, an ordered list item from 2, a
    # code fence that swallows the sentence (its text read as the fence's language), and a link reference
    # definition that makes the sentence vanish and turns `[text][x]` anywhere in the report into a link.
    lines = _rendered("# Big heading.", "- a list item.", "> nested.", "2) numbered.",
                      "```python hidden text.", "[x]: https://evil.example/ref")
    assert "> \\# Big heading." in lines
    assert "> \\- a list item." in lines
    assert "> \\> nested." in lines
    assert "> 2\\) numbered." in lines
    assert "> \\`\\`\\`python hidden text." in lines
    assert "> [x\\]: https:&#8203;//evil.example/ref" in lines


def test_github_mentions_and_issue_references_are_inert() -> None:
    # Every CI run that posts the report would notify @octocat and the team, and link issues 123, 45 and
    # octo/repo's 7; in a question too.
    lines = _rendered("Ping @octocat and @github/security now.", "See #123, GH-45 and octo/repo#7.",
                      question="Ask @octocat about #9?")
    assert "> Ping @&#8203;octocat and @&#8203;github/security now." in lines
    assert "> See #&#8203;123, GH-&#8203;45 and octo/repo#&#8203;7." in lines
    assert "Question: Ask @&#8203;octocat about #&#8203;9?" in lines


def test_bare_urls_and_email_addresses_are_not_linked() -> None:
    # GitHub links these without any Markdown around them (GFM's autolink extension), so a hallucinated
    # address would be one click away in a CI summary. A zero-width space inside each trigger (`https:`
    # before `//`, `www` before `.`, `@` before the domain) breaks the link and renders invisibly: the
    # text reads as the answer did, and shows no backslash. A backslash or an entity (`\\@`, `&#64;`)
    # would not do for e-mail, which GitHub finds in the text once those are decoded.
    sentences = ("See https://evil.example/x now.", "Or http://evil.example.",
                 "Visit www.evil.example/help today.", "Mail refunds@evil.example or mailto:a@evil.example.",
                 "HTTPS://EVIL.EXAMPLE and ftp://evil.example/f too.")
    lines = _rendered(*sentences, question="Is www.evil.example safe?")
    assert "> See https:&#8203;//evil.example/x now." in lines
    assert "> Or http:&#8203;//evil.example." in lines
    assert "> Visit www&#8203;.evil.example/help today." in lines
    assert "> Mail refunds@&#8203;evil.example or mailto:a@&#8203;evil.example." in lines
    assert "> HTTPS:&#8203;//EVIL.EXAMPLE and ftp:&#8203;//evil.example/f too." in lines
    assert "Question: Is www&#8203;.evil.example safe?" in lines


def test_emoji_shortcodes_are_shown_as_written() -> None:
    # GitHub turns `:name:` into its emoji in a step summary or a comment, code aside: an answer's ":x:"
    # would show as a red cross and ":white_check_mark:" as a green tick beside the verdict. A zero-width
    # space after the opening colon leaves the text as it looks and names no emoji. A clock time is no
    # shortcode (no emoji is named by one or two digits): as written.
    lines = _rendered("Mark it :x: or :white_check_mark: now.", "Vote :+1: or :-1: today.",
                      "Doors open at 10:30:45 daily.", question="Is :shipit: fine?")
    assert "> Mark it :&#8203;x: or :&#8203;white_check_mark: now." in lines
    assert "> Vote :&#8203;+1: or :&#8203;-1: today." in lines
    assert "> Doors open at 10:30:45 daily." in lines
    assert "Question: Is :&#8203;shipit: fine?" in lines


def test_two_dollar_signs_cannot_set_a_price_range_as_math() -> None:
    # GitHub renders $5-$ as math ("5-" in TeX, dollars gone); each `$` in a span is a character, as
    # GitHub's documentation says. One `$` opens no math: left as written.
    lines = _rendered("Prices run from $5-$10.", "A flat $6.95 fee.")
    assert "> Prices run from <span>$</span>5-<span>$</span>10." in lines
    assert "> A flat $6.95 fee." in lines


def test_ordinary_sentences_are_quoted_unchanged() -> None:
    # None of these can start a block (no space after "1." or "-") or form emphasis (an underscore
    # inside a word is none), so nothing is escaped and the Markdown file reads as the answer did.
    sentences = ("Returns are accepted within 30 days of purchase.",
                 "1.5 kg is the limit for snake_case_items.",
                 "-5 degrees is too cold (see the FAQ).", "Call 555-0100, option 2: it's free!")
    lines = _rendered(*sentences)
    assert all(f"> {sentence}" in lines for sentence in sentences)


def test_the_error_that_stopped_a_run_is_quoted_like_a_sentence() -> None:
    # Error messages quote judge replies and input lines: the same rules, here a heading and a mention.
    lines = render_error("# 3 judge replies unreadable: ask @octocat").splitlines()
    assert "> \\# 3 judge replies unreadable: ask @&#8203;octocat" in lines


def test_the_cli_quotes_a_hostile_answer_as_written(tmp_path: Path, ragmon_cmd: list[str]) -> None:
    # The real CLI on a golden JSONL: the first sentence is its context's, supported; the second opens a
    # code fence (which would hide it), shows an image and pings a user, unsupported by the lexical judge.
    returns = "Returns are accepted within 30 days of purchase."
    hostile = "```js ![x](https://evil.example/t.png) ping @octocat."
    golden = tmp_path / "golden.jsonl"
    record = {"id": "e1", "question": "How long?", "contexts": [{"id": "d1", "text": returns}],
              "answer": f"{returns} {hostile}"}
    golden.write_text(json.dumps(record) + "\n", encoding="utf-8")
    report = tmp_path / "report.md"
    done = subprocess.run([*ragmon_cmd, "replay", str(golden), "--markdown", str(report), "--quiet"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # no gate given: the run passes
    lines = report.read_text(encoding="utf-8").splitlines()
    assert "> \\`\\`\\`js ![x\\](https:&#8203;//evil.example/t.png) ping @&#8203;octocat." in lines
    assert f"> {returns}" not in lines


def test_joiners_are_shown_as_written_and_bidi_controls_escaped() -> None:
    # A zero-width joiner or non-joiner between two letters or emoji is part of how they are written: the
    # family emoji, a Hindi conjunct, a Persian word. A bidi override would reorder the comment's text
    # (Trojan Source); a joiner between ASCII digits or a zero-width space would hide that two ids differ.
    lines = render(*unicode_run()).splitlines()
    assert f"> {JOINED}" in lines
    assert f"> {SPOOFED_SHOWN}" in lines
