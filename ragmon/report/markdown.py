"""The Markdown report: for a PR comment or a CI step summary, ending with the examples to look at first.

With a baseline, the examples that regressed against it come first, each with its newly unsupported
sentences, then those worse on the metric of each breached drop gate the sentences do not decide
(answer_relevance, recall), each with its value then and now. Then the weakest examples (those behind a
breached gate, worst first; then the lowest groundedness), then the others with a problem, each showing
its unsupported sentences verbatim with the judge's reason, the cited documents that lowered its citation
metrics (ragmon.report.citations), the relevant documents retrieval missed, and the retrieved ones never
used.

Bounded twice. Each example: at most SENTENCES_SHOWN unsupported sentences and IDS_SHOWN ids per list,
each with a count of the rest, and every piece of text from the data on one line of at most WIDTH
characters (ID_WIDTH for an id), control characters escaped (text.show; in an id its white space too,
text.show_id): an example's section holds at most 200 + 1,000 + 5 x 2,000 + 6 x 20 x 200 = 35,200
characters of data (each of which `_escaped` may write as up to 14: a `$` in its span), the skipped
list 50 x 1,200. The whole: COMMENT_LIMIT characters, GitHub's limit for a PR comment, whatever
`--worst` asked for. The title, tables and warnings of the run come first and are never cut (replay's:
at most one of each kind, each a line of at most WIDTH characters quoting ids clipped to 60); the
examples' warnings and the examples follow, whole, while they fit, then a last line counts those left
out (`_within`). So the step summary, which gets the same file, stays far below GitHub's 1 MiB for one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragmon.baseline import ABSTAINED_AS, Change, Comparison, MetricChange
from ragmon.gate import GateResult, fmt_exact, fmt_pair
from ragmon.model import ClaimVerdict, ExampleResult, Report
from ragmon.report import citations, coverage
from ragmon.report.text import (
    ERROR_WIDTH,
    NEWLY,
    UNDECIDED,
    aggregate_cells,
    figure,
    gate_thresholds,
    groundedness,
    groundedness_key,
    inert,
    measured,
    moved,
    nearest,
    not_completed,
    show,
    show_id,
    verdict,
    worsened_by_gate,
    wrong_side,
)

DEFAULT_WORST = 10
SENTENCES_SHOWN = 5
"""Unsupported sentences quoted per example, as in a JUnit failure."""
WIDTH = 1_000
"""Characters of a sentence, a reason or a question: generous, since a browser wraps them."""
ID_WIDTH = 200
IDS_SHOWN = 20
"""Documents named per list (relevant but not retrieved, retrieved but unused) of one example."""
SKIPPED_SHOWN = 50
COMMENT_LIMIT = 65_536
"""Characters of the report at most, in UTF-16 units: GitHub refuses a PR or issue comment longer,
so a `gh pr comment --body-file` or a sticky-comment step would fail on it. The JSON report holds all."""


def render(report: Report, gates: Sequence[GateResult], *, worst: int = DEFAULT_WORST,
           incomplete: str | None = None, comparison: Comparison | None = None,
           run_warnings: Sequence[str] = ()) -> str:
    """`incomplete` is the error that stopped the run after scoring: said first, and the figures kept.
    `comparison` is against the `--baseline` run, when there is one. `run_warnings` are the run's, of no
    example: after the gates, without an id.

    At most COMMENT_LIMIT characters: the tables and the run's warnings first and whole, then the examples,
    whole, as many as fit (`_within`)."""
    judge = report.judge.get("name", "?")
    head = _incomplete_lines(incomplete, figures=True) if incomplete is not None else [
        f"## ragmon replay: {show(verdict(gates), WIDTH)}"]
    head += [
        "",
        f"{len(report.results)} example{'' if len(report.results) == 1 else 's'}, judge "
        f"{_code(show_id(str(judge), ID_WIDTH))}, k={report.k}{_skipped_count(report)}.",
        "",
        f"| metric | mean | n | {report.config.confidence * 100:g}% interval |",
        "|---|---:|---:|---|",
    ]
    thresholds = gate_thresholds(gates)
    for name, aggregate in report.aggregates.items():
        value, n, interval = aggregate_cells(aggregate, thresholds.get(name))
        head.append(f"| {name} | {value} | {n} | {interval} |")
    if gates:
        head += ["", "| gate | value | result | reason |", "|---|---:|---|---|"]
        skipped = coverage.skipped_note(report)
        for g in gates:
            held = UNDECIDED if incomplete is not None else "pass" if g.passed else "**FAIL**"
            reason = _cell(coverage.with_skipped(g.reason, skipped))
            head.append(f"| {g.label} | {_gate_value(g)} | {held} | {reason} |")
    for gap in coverage.gaps(report, gates):
        head += ["", f"**Warning**: {gap.describe(lambda ids: _ids(ids, coverage.IDS_NAMED))}."]
    head += [line for g in gates if not g.passed and g.max_drop is None for line in _nearest(report, g)]
    # Beside the gates, as the terminal summary has them: listed with the examples' warnings, after the
    # regressed examples, a hostile run's long answers had cut them out of the report (`_within`).
    head += [line for said in run_warnings for line in ("", f"**Warning**: {_text(said)}.")]
    blocks: list[_Block] = []
    if comparison is not None:
        intro, blocks = _regressions(comparison, gates, worst)
        head += intro
    blocks += _named(report.skipped, "Skipped", "skipped example")
    blocks += _named(report.warnings, "Warnings", "warning")
    weak = weakest(report.results, gates)
    shown = weak[:worst]
    breached = [g.metric for g in gates if not g.passed and g.max_drop is None and g.metric not in _SHOWN]
    blocks += _section(["", f"### Weakest examples ({len(shown)} of {len(weak)} with problems)"],
                       [["", *_example_section(result, report.k, breached)] for result in shown],
                       "weakest example")

    def note(kept: int) -> str:
        left: Counter[str] = Counter()
        for block in blocks[kept:]:
            if block.shows:
                left[block.shows] += block.count
        counts = [f"{count:,} {what}{'' if count == 1 else 's'}" for what, count in left.items()]
        listed = " and ".join([", ".join(counts[:-1]), *counts[-1:]] if len(counts) > 1 else counts)
        return (f"\n*Cut at {COMMENT_LIMIT:,} characters, GitHub's limit for a comment: {listed} left out "
                "here. The JSON report (`--json`) lists every example.*\n")

    return _within(_joined(head), [_joined(block.lines) for block in blocks], note)


def _named(entries: Sequence[tuple[str, str]], title: str, shows: str) -> list[_Block]:
    """A section of (example id, text) entries, such as skipped examples and why, the first SKIPPED_SHOWN
    of them. None when there are none."""
    if not entries:
        return []
    return _section(["", f"### {title} ({len(entries)})", ""],
                    [[f"- {_code(show_id(example_id, ID_WIDTH))}: {_text(said)}"]
                     for example_id, said in entries[:SKIPPED_SHOWN]],
                    shows, len(entries) - SKIPPED_SHOWN)


def _skipped_count(report: Report) -> str:
    """As the terminal summary's first line counts them: the section naming them may be cut for length."""
    return f", {len(report.skipped):,} skipped" if report.skipped else ""


def _utf16_units(text: str) -> int:
    """Length as JavaScript counts it, an emoji outside the BMP as 2: whether GitHub counts a comment's
    characters so is not documented, and counting the larger way keeps the report within it either way."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def render_error(message: str, *, status: int | None = 2) -> str:
    """A run that stopped before it had figures: the step summary and the file say so, and why. `status`
    is the exit status it stopped with: 2, or a signal's (130 for Ctrl-C); None for a run that has not
    ended (the report written before its work, which its own replaces)."""
    return _joined(_incomplete_lines(message, figures=False, status=status))


def weakest(results: Sequence[ExampleResult], gates: Sequence[GateResult] = ()) -> list[ExampleResult]:
    """First the examples behind the breached gates, taking each gate's worst in turn (`wrong_side`), so
    `--worst` shows every breach whatever the order of the gates; then the others with an
    unsupported claim or a missed relevant document, lowest groundedness first. Ranked by groundedness
    alone, the example that breached `recall=0.9` (fully grounded, its document missed) came after every
    less grounded one, and `--worst` cut it: only the JUnit report named it."""
    # A drop gate's examples are the regressions, listed above.
    behind = [[r for _, r in wrong_side(measured(results, gate.metric), gate)] for gate in gates
              if not gate.passed and gate.max_drop is None]
    first: dict[int, ExampleResult] = {}
    for rank in range(max(map(len, behind), default=0)):  # each gate's worst, then each one's second, ...
        first.update((id(ranked[rank]), ranked[rank]) for ranked in behind if rank < len(ranked))
    flagged = [r for r in results if id(r) not in first
               and (r.relevant_not_retrieved or any(not v.supported for v in r.verdicts))]
    return [*first.values(), *sorted(flagged, key=groundedness_key)]


@dataclass(frozen=True, slots=True)
class _Block:
    """Lines the report keeps or leaves out whole; `shows` names the example they show ("weakest
    example"), None for a heading, so the note can count what was left out."""

    lines: list[str]
    shows: str | None
    count: int = 1
    """Examples it accounts for: the last of a section also those its "And N more" line counts, so that a
    note after a cut adds up with the section's heading (50 warnings shown of 60, cut after 16: 44 left
    out, not 34)."""


def _section(heading: list[str], items: Sequence[list[str]], shows: str, more: int = 0,
             listed: str = " (the JSON report lists all)") -> list[_Block]:
    """A heading, then one block per example, the line counting the `more` not shown (and where they are
    `listed`) kept with the last one: a report is cut between examples, never inside one, where a sentence
    could lose its reason."""
    if not items:
        return []
    blocks = [_Block(heading, None), *(_Block(lines, shows) for lines in items)]
    tail = _more(more, shows, listed)
    return [*blocks[:-1], _Block(blocks[-1].lines + tail, shows, 1 + max(more, 0))]


def _within(head: str, pieces: Sequence[str], note: Callable[[int], str]) -> str:
    """`head` and every piece when they fit in COMMENT_LIMIT UTF-16 units; else `head`, the pieces that fit
    whole beside the note, and the note, told how many pieces were kept. The note for none kept is the
    longest (it counts the most left out), so room is made for that one."""
    if _utf16_units(head) + sum(map(_utf16_units, pieces)) <= COMMENT_LIMIT:
        return head + "".join(pieces)
    room = COMMENT_LIMIT - _utf16_units(head) - _utf16_units(note(0))
    kept = 0
    for piece in pieces:
        room -= _utf16_units(piece)
        if room < 0:
            break
        kept += 1
    return head + "".join(pieces[:kept]) + note(kept)


def _joined(lines: Sequence[str]) -> str:
    """Inert in a CI log too (`text.inert`): `--markdown /dev/stdout`, or a step that prints the file."""
    return inert("\n".join(lines) + "\n")


def _incomplete_lines(message: str, *, figures: bool, status: int | None = 2) -> list[str]:
    said = not_completed(status)
    lines = ["## ragmon replay: INCOMPLETE", "", f"{said[0].upper()}{said[1:]}, so no gate was decided:", "",
             _quote(_escaped(show(message, ERROR_WIDTH)))]
    return [*lines, "", "The figures below are of what could be scored; they decide nothing."] if figures \
        else lines


def _rules(comparison: Comparison) -> str:
    """The baseline's scoring rules beside its version, as it recorded them: the version stays 0.1.0 across
    builds whose rules score the same answers otherwise, which only a caveat had said."""
    return "" if comparison.scoring_rules is None else f", scoring rules {comparison.scoring_rules}"


def _regressions(comparison: Comparison, gates: Sequence[GateResult],
                 worst: int) -> tuple[list[str], list[_Block]]:
    """The baseline's examples against this run's and each metric's change, kept whole with the tables
    above; then the regressed examples with their newly unsupported sentences, `worst` of them. A metric
    either run measured has its row, `undefined` for the run that measured it on no example: one gone
    from this run (every answer now empty) had left the table without a word."""
    limits = {g.metric: g.threshold for g in gates if g.max_drop is not None}
    gone = f" ({_ids(comparison.gone)})" if comparison.gone else ""
    version = _escaped(show_id(comparison.ragmon_version, ID_WIDTH))
    shared = f"{comparison.shared:,} example{'' if comparison.shared == 1 else 's'}"
    intro = ["", "### Regressions against the baseline", "",
             f"Baseline {_code(show_id(comparison.path, WIDTH))} (ragmon {version}{_rules(comparison)}): "
             f"{shared} in both runs, {comparison.new:,} new, {len(comparison.gone):,} gone{gone}. "
             f"{_over(comparison)}", "",
             *(line for caveat in comparison.caveats for line in (f"**Warning**: {_text(caveat)}.", "")),
             "| metric | baseline | this run | change | n |", "|---|---:|---:|---:|---:|"]
    for name, metric in comparison.metrics.items():
        if metric.baseline_n or metric.candidate_n:
            delta = "" if metric.delta is None else _signed(metric.delta, limits.get(name))
            intro.append(f"| {name} | {_mean(metric.baseline, metric.baseline_n)} | "
                         f"{_mean(metric.candidate, metric.candidate_n)} | {delta} | {_measured(metric)} |")
    regressed = comparison.regressed
    blocks = [block for gate, worsened in worsened_by_gate(comparison, gates)
              for block in _worsened(gate, worsened, worst)]
    if not regressed:
        return [*intro, "", "No shared example's groundedness fell."], blocks
    shown = regressed[:worst]
    heading = f"{len(shown)} of {len(regressed)} examples whose groundedness fell, the biggest drop first:"
    items = []
    for change in shown:
        newly = _quoted(change.newly_unsupported, "Newly unsupported", NEWLY) or ["", f"No {NEWLY}."]
        items.append([*_changed(change, "groundedness"), *newly])
    return intro, [*_section(["", heading], items, "regressed example", len(regressed) - len(shown)), *blocks]


def _worsened(gate: GateResult, worsened: Sequence[Change], worst: int) -> list[_Block]:
    """The examples behind a breached drop gate on a metric the sentences do not decide, `worst` of them,
    each with its value then and now."""
    shown = worsened[:worst]
    heading = (f"{len(shown)} of {len(worsened)} examples whose {gate.metric} got worse, the biggest change "
               "first:")
    return _section(["", heading], [_changed(change, gate.metric) for change in shown],
                    f"{gate.metric} regression", len(worsened) - len(shown), "")


def _changed(change: Change, metric: str) -> list[str]:
    """A regressed example's heading, its metric then and now, and its question."""
    example = change.result.example
    return ["", f"#### {_code(show_id(example.id, ID_WIDTH))}: {moved(change, metric)}", "",
            f"Question: {_text(example.question)}"]


def _nearest(report: Report, gate: GateResult) -> list[str]:
    """For a gate breached with no example beyond its threshold, the few nearest it with their values, and
    why (`text.nearest`): the weakest examples, those beyond a breached gate, named none of them."""
    examples = measured(report.results, gate.metric)
    if not examples or wrong_side(examples, gate):
        return []
    near = nearest(report, gate, examples)
    named = ", ".join(f"{_code(show_id(r.example.id, ID_WIDTH))} ({fmt_pair(value, gate.threshold)[0]})"
                      for value, r in near.examples)
    side = "above" if gate.op == "<=" else "below"
    return ["", f"**Note**: no example has {gate.metric} {side} {fmt_exact(gate.threshold)}{near.said}: "
                f"{named}."]


_SHOWN = frozenset(("groundedness", "hallucination_rate"))
"""What every example's heading gives already: its groundedness, of which hallucination_rate is the rest."""


def _example_section(result: ExampleResult, k: int, gated: Sequence[str] = ()) -> list[str]:
    """`gated` are the metrics of breached gates: the heading gives the example's figure on each beside its
    groundedness, which alone had headed an answer listed for citing a document it never used
    (groundedness 1.00), or behind an mrr gate ("groundedness undefined", its mrr nowhere); the citations
    at fault follow its unsupported sentences."""
    figures = [f"{metric} {value:.2f}" for metric in gated
               if (value := result.metrics.get(metric)) is not None and math.isfinite(value)]
    lines = [f"#### {_code(show_id(result.example.id, ID_WIDTH))}: "
             f"{', '.join([*figures, f'groundedness {groundedness(result)}'])}", "",
             f"Question: {_text(result.example.question)}"]
    lines += _quoted([v for v in result.verdicts if not v.supported], "Unsupported", "unsupported sentence")
    for said in citations.of(result).lines(_ids):
        lines += ["", f"{said[0].upper()}{said[1:]}."]
    if result.relevant_not_retrieved:
        # In the top k, as the retrieval metrics count: one retrieved lower is "not retrieved" for them,
        # and is listed as retrieved but unused too when the answer did not use it.
        lines += ["", f"Relevant but not in the top {k} retrieved: " + _ids(result.relevant_not_retrieved)]
    if result.retrieved_unused:
        lines += ["", "Retrieved but unused: " + _ids(result.retrieved_unused)]
    return lines


def _gate_value(g: GateResult) -> str:
    """What the gate compared, with the digits `fmt_pair` gives it beside the threshold in the label: a
    value of 0.416667 shown as 0.4167 next to `>= 0.41667` and FAIL would read as a pass. A drop gate's
    value is a change, signed."""
    if g.value is None:
        return "undefined"
    shown = fmt_pair(g.value, g.threshold)[0]
    return shown if g.max_drop is None or g.value <= 0 else f"+{shown}"


def _over(comparison: Comparison) -> str:
    """What the figures are over: the shared examples both runs measured, those one run alone measured
    counted and not compared (ragmon.baseline), which the table says only where that happened; and an
    abstention of the baseline against claims now compared as making no unsupported claim, said only
    where that happened."""
    metrics = comparison.metrics.values()
    over = ("Figures are over the examples both runs measured; n counts those, then those one run alone "
            "measured, which are not compared." if any(metric.one_sided for metric in metrics)
            else "Figures are over the examples both runs measured.")
    if not any(metric.abstained for metric in metrics):
        return over
    return (f"{over} An answer that abstained in the baseline and makes claims now is compared as "
            f"groundedness {fmt_exact(ABSTAINED_AS['groundedness'])} and hallucination_rate "
            f"{fmt_exact(ABSTAINED_AS['hallucination_rate'])} there: it made no unsupported claim.")


def _measured(metric: MetricChange) -> str:
    """The n cell: the examples compared, of which those that abstained in the baseline, then those one
    alone measured (an answer now abstaining, or whose contexts were unknown), which are not compared."""
    said = [f"{metric.abstained} abstained in the baseline"] if metric.abstained else []
    said += [f"+{count} in {run} only" for count, run in metric.one_sided]
    return f"{metric.n} ({', '.join(said)})" if said else str(metric.n)


def _mean(value: float | None, observations: int) -> str:
    """A run's mean over the examples both runs measured; blank when it has values on other examples only,
    which compare with nothing."""
    if value is not None:
        return f"{value:.3f}"
    return "" if observations else "undefined"


def _signed(change: float, threshold: float | None) -> str:
    """Four significant digits, more for a drop-gated metric when four would put the change on or across
    the gate's bound (`figure`): -0.10001 shown as -0.1 beside a breached `drop <= 0.1` reads as a pass."""
    if not change:
        return "0"
    shown = figure(change, threshold, "+.4g")
    return shown if shown.startswith(("+", "-")) else f"+{shown}"


def _quoted(verdicts: Sequence[ClaimVerdict], title: str, what: str) -> list[str]:
    """Each sentence as a quote with the judge's reason, SENTENCES_SHOWN of them; nothing for none."""
    if not verdicts:
        return []
    lines = ["", f"{title}:"]
    for v in verdicts[:SENTENCES_SHOWN]:
        lines += ["", _quote(_text(v.claim.text))]
        if v.reason:
            lines += ["", f"Reason: {_text(v.reason)}"]
    return lines + _more(len(verdicts) - SENTENCES_SHOWN, what)


def _more(count: int, what: str, where: str = "") -> list[str]:
    return ["", f"And {count:,} more {what}{'s' if count > 1 else ''}{where}."] if count > 0 else []


def _ids(ids: Sequence[str], shown: int = IDS_SHOWN) -> str:
    named = ", ".join(_code(show_id(doc_id, ID_WIDTH)) for doc_id in ids[:shown])
    more = len(ids) - shown
    return named + (f" and {more:,} more" if more > 0 else "")


def _code(text: str) -> str:
    """A code span that holds any id: a backtick or a line break inside would end it, or the heading it is
    in. Fenced by one backtick more than the longest run inside, padded when the id starts or ends with
    one, or starts and ends with a space, which CommonMark would strip (it strips the padding instead).
    An id shown by `show_id` has no line break left: its spaces are the id's own."""
    text = " ".join(text.splitlines())
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    spaced = text.startswith(" ") and text.endswith(" ") and not text.isspace()
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _text(text: str) -> str:
    """Data shown as prose, on one clipped line."""
    return _escaped(show(text, WIDTH))


def _escaped(text: str) -> str:
    """Answers, questions, judge messages and baseline fields are data, shown as written, never acted on.
    HTML is shown, not rendered (an unclosed `<details>` would fold away the rest of a CI step summary).
    The Markdown that would change what a line says or does is escaped: an image (a tracking pixel, or a
    green badge of the attacker's), a link, emphasis and strikethrough (a quote is verbatim), a code span
    or fence (a fence opened at a line's start would hide the sentence). GitHub's references are made
    inert with a zero-width space, as Dependabot and Renovate do (a backslash does not stop them: GitHub
    finds them in the rendered text): a `@name` would notify that user, and a `#123` link issue 123, from
    every CI run that posts the report. So are the bare URLs (`https://`, `www.`) and e-mail addresses
    that GitHub's autolink extension links, which would make a hallucinated address clickable: it finds an
    e-mail address in the text once escapes and entities are decoded (`\\@` and `&#64;` are linked all the
    same), so only a change to the text itself stops all three. So are emoji shortcodes, which GitHub
    shows as emoji outside code: an answer's `:x:` would read as a red cross, `:white_check_mark:` as a
    green tick beside the verdict. Two `$` would set what lies between them as math, so each is wrapped
    in a span, as GitHub's documentation says. An ordinary sentence has none of these: as is."""
    math = text.count("$") > 1

    def escape(match: re.Match[str]) -> str:
        found = match.group()
        if match.lastgroup == "inert":
            return found + "&#8203;"
        if found in ("&", "<"):
            return "&amp;" if found == "&" else "&lt;"
        if found == "$":
            return "<span>$</span>" if math else "$"
        return "\\" + found

    return _INLINE.sub(escape, text)


def _quote(escaped: str) -> str:
    """A blockquote line of escaped data: what would start a block inside it is escaped too."""
    return "> " + _BLOCK_START.sub(lambda m: f"{m.group()[:-1]}\\{m.group()[-1]}", escaped, count=1)


_INLINE = re.compile(r"[&<`*~\]$]|\\(?=[!-/:-@\[-`{-~])|(?<![^\W_])_|_(?![^\W_])"
                     r"|(?P<inert>@(?=[\w.-])|#(?=\d)|(?i:\bgh-)(?=\d)|(?i:https?|ftp):(?=//)|(?i:www)(?=\.)"
                     r"|:(?!\d\d?:)(?=[\w+-]{1,64}:))")
"""What `_escaped` changes: `]` is enough to stop a link or an image (none can close), `_` only at a
word's edge (inside one it is no emphasis, as in snake_case), a backslash only where it would escape.
`inert` is what GitHub would link, followed by a zero-width space: an `@` before a name or an e-mail
address's domain, a `#` or `GH-` before an issue number, a URL's scheme before its `//` (GFM links
http, https and ftp), a `www` before its dot, and the opening `:` of what GitHub would show as an emoji
(`:x:`, `:+1:`), bounded as its names are; not one before one or two digits, which no emoji's name is,
so a clock time (10:30:45) stays as written."""
_BLOCK_START = re.compile(r"^(?:#+(?=\s|$)|>|-(?=[\s-]|$)|\+(?=\s|$)|\d{1,9}[.)](?=\s|$))")
"""A line that starts this way would be a heading, a quote, a list item or a thematic break (`*`, `_`,
`` ` `` and `~` are escaped everywhere): the backslash goes before its last character."""


def _cell(text: str) -> str:
    return show(text, WIDTH).replace("|", "\\|")
