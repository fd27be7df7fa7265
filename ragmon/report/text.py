"""The terminal summary of a replay: a metrics table, the gates, what regressed against a baseline (and
what got worse on each breached drop gate's metric), the examples behind a breached citation gate with the
citations at fault, the weakest examples' unsupported sentences, and one verdict line, always last, that a
CI log reader can grep.

Also the pieces every report that quotes answers shares: which examples are weakest, the warning for a
gated metric that some examples have no value for, and sentences cut to one bounded line of visible
characters, so a long or hostile answer cannot flood a terminal or a CI page, nor run a command in a CI
log (`inert`).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragmon.baseline import CLAIM_METRICS, Change, Comparison, rounded
from ragmon.errors import inert, printable
from ragmon.gate import GateResult, fmt_exact, fmt_pair
from ragmon.model import Aggregate, ClaimVerdict, ExampleResult, Report
from ragmon.report import citations, coverage
from ragmon.report.coverage import Gap

WORST_SHOWN = 3
"""Examples whose unsupported sentences the terminal summary quotes."""
SENTENCES_SHOWN = 3
"""Unsupported sentences quoted per example in the terminal summary."""
NEAREST_SHOWN = 3
"""Examples named for a gate breached with none on the wrong side of its threshold (`nearest`)."""
WIDTH = 86
"""Characters of a sentence or a reason: its line, indented and labelled, stays within 100 columns."""
REASON_LINES = 3
"""Lines of `WIDTH` a reason may take in the terminal: what makes it useful comes last ("..., lacks 24"),
which one line cut off."""
ID_WIDTH = 40
CITED_SHOWN = 5
"""Document ids named per list of an example's citations (cited for nothing, never retrieved, ...)."""
ERROR_WIDTH = 1_000
"""Characters of the error that stopped a run, in every report: they quote paths and judge replies."""
NEWLY = "newly unsupported sentence"
"""One the baseline supported, or did not make."""
UNDECIDED = "not decided"
"""A gate's state in a run that could not complete (exit 2): what was scored is shown, and it decides
nothing, so a gate held on it must not read `ok` above the INCOMPLETE line."""


def render(report: Report, gates: Sequence[GateResult], *, incomplete: str | None = None,
           comparison: Comparison | None = None, run_warnings: Sequence[str] = ()) -> str:
    """`incomplete` is the error that stopped the run after scoring: it replaces the verdict line.
    `comparison` is against the `--baseline` run, when there is one. `run_warnings` are the run's, of no
    example, as are the comparison's caveats: each a line of its own beside the gates, not under an
    example's id in the examples' list."""
    # A library user's judge names itself: a control character would restyle the terminal, and a lone
    # surrogate in the JUnit system-out, which carries this summary, made that file unwritable as UTF-8.
    judge = show_id(str(report.judge.get("name", "?")), ID_WIDTH)
    count = len(report.results)
    header = f"ragmon replay: {count} example{'' if count == 1 else 's'}, judge {judge}, k={report.k}"
    if report.skipped:
        header += f", {len(report.skipped)} skipped"
    rows = [("metric", "value", "n", f"{report.config.confidence * 100:g}% interval")]
    thresholds = gate_thresholds(gates)
    rows += [(name, *aggregate_cells(aggregate, thresholds.get(name)))
             for name, aggregate in report.aggregates.items()]
    lines = [header, "", *_table(rows), ""]
    skipped = coverage.skipped_note(report)
    lines += [f"gate {g.label}: {UNDECIDED if incomplete is not None else 'ok' if g.passed else 'BREACHED'} "
              f"({coverage.with_skipped(g.reason, skipped)})" for g in gates]
    lines += [warning(gap) for gap in coverage.gaps(report, gates)]
    # The baseline's caveats too: with --quiet, the terminal's warnings gone, the JUnit system-out (what a
    # CI's test tab shows) had said nothing of a comparison that may mislead.
    caveats = () if comparison is None else comparison.caveats
    lines += [f"warning: {printable(said)}" for said in (*run_warnings, *caveats)]
    for section in (_skipped_section(report.skipped), _warnings_section(report.warnings),
                    _baseline_section(comparison, gates),
                    *(_citation_section(report.results, g) for g in gates),
                    _worst_section(report.results)):
        if section:
            lines += ["", *section, ""] if lines[-1] else [*section, ""]
    lines.append(verdict(gates, incomplete))
    return inert("\n".join(lines) + "\n")


def gate_thresholds(gates: Sequence[GateResult]) -> dict[str, float]:
    """Each `--gate` metric's threshold, which its row of the metrics table must not seem to be on the wrong
    side of. A drop gate's threshold bounds a change, not the figures in that table."""
    return {g.metric: g.threshold for g in gates if g.max_drop is None}


def aggregate_cells(aggregate: Aggregate, threshold: float | None = None) -> tuple[str, str, str]:
    """value, n and interval as text; shared with the Markdown report so both print a figure the same way.
    `threshold` is the metric's `--gate`, if any (`figure`)."""
    if aggregate.mean is None or not math.isfinite(aggregate.mean):
        return "undefined", str(aggregate.n), ""  # the n column gives the count
    ci = aggregate.ci
    interval = (f"[{figure(ci[0], threshold)}, {figure(ci[1], threshold)}]"
                if ci and all(map(math.isfinite, ci)) else "")
    return figure(aggregate.mean, threshold), str(aggregate.n), interval


def figure(value: float, threshold: float | None, form: str = ".3f") -> str:
    """Three decimals (or `form`); for a gated metric, more when they would put the figure on or across its
    threshold (a mean of 0.849537 shown as 0.850 beside `BREACHED (0.8495 < 0.85)`): then as many as
    `fmt_pair` needs to keep it on the side the gate finds it on, comparing at 12 decimals (`rounded`). The
    interval's bounds too, since `--confidence` gates on one of them."""
    shown = f"{value:{form}}"
    if threshold is None:
        return shown
    compared = rounded(value)
    if _side(float(shown), threshold) == _side(compared, threshold):
        return shown
    return fmt_pair(compared, threshold)[0]


def _side(value: float, threshold: float) -> int:
    return (value > threshold) - (value < threshold)


def warning(gap: Gap) -> str:
    """A gated metric's examples without a value, on one line after the gates (and in a JUnit failure):
    a mean over fewer examples than were scored can pass a build that answered its hard questions with
    nothing. A warning, not a breach: the gate was decided on the mean, as documented."""
    return "warning: " + gap.describe(lambda ids: listed_ids(ids, coverage.IDS_NAMED, ID_WIDTH))


def verdict(gates: Sequence[GateResult], incomplete: str | None = None) -> str:
    """PASS or FAIL naming the breaches; INCOMPLETE and why for a run that could not complete (exit 2),
    whose gates were decided on figures that say nothing true, so no line may read PASS."""
    if incomplete is not None:
        return f"INCOMPLETE: {show(incomplete, ERROR_WIDTH)}"
    breached = [g for g in gates if not g.passed]
    if not breached:
        return "PASS" if gates else "PASS (no gates given)"
    return "FAIL: " + ", ".join(f"{g.metric} {g.reason}" for g in breached)


def measured(results: Sequence[ExampleResult], metric: str) -> list[tuple[float, ExampleResult]]:
    """The examples that measured `metric`, each with its value."""
    return [(value, r) for r in results
            if (value := r.metrics.get(metric)) is not None and math.isfinite(value)]


def wrong_side(measured: Sequence[tuple[float, ExampleResult]],
               gate: GateResult) -> list[tuple[float, ExampleResult]]:
    """The measured examples on the wrong side of the gate's threshold, worst first: those behind a breach."""
    return [(value, r) for value, r in _worst_first(measured, gate) if _beyond(value, gate)]


def _worst_first(measured: Sequence[tuple[float, ExampleResult]],
                 gate: GateResult) -> list[tuple[float, ExampleResult]]:
    return sorted(measured, key=lambda item: -item[0] if gate.op == "<=" else item[0])


def _beyond(value: float, gate: GateResult) -> bool:
    """Whether `value` is on the side of the gate's threshold that breaches it."""
    return value > gate.threshold if gate.op == "<=" else value < gate.threshold


@dataclass(frozen=True, slots=True)
class Nearest:
    """A breached gate's examples nearest its threshold, when none is beyond it, and why it was breached."""

    examples: list[tuple[float, ExampleResult]]
    """Worst first: the lowest for a minimum, the highest for a maximum."""
    extreme: str
    """"lowest" or "highest"."""
    why: str
    """Which bound of the interval the gate read, which no example need be beyond; "" when it read none."""

    @property
    def said(self) -> str:
        """Why, then what follows, as one sentence ends and the next begins: `...: the gate read ...
        confidence. The 3 lowest`."""
        count = f" {len(self.examples)}" if len(self.examples) > 1 else ""
        return f"{': ' + self.why if self.why else ''}. The{count} {self.extreme}"


def nearest(report: Report, gate: GateResult, measured: Sequence[tuple[float, ExampleResult]],
            shown: int = NEAREST_SHOWN) -> Nearest:
    """A gate held on its interval's bound (`--confidence`) breaches with no example beyond its threshold
    when the interval is wide, and a report listing the examples beyond it named none: so the `shown`
    nearest it, and why, when its mean is on the right side of the threshold and the bound it read is not."""
    aggregate = report.aggregates.get(gate.metric)
    mean = None if aggregate is None else aggregate.mean
    on_bound = (gate.value is not None and _beyond(gate.value, gate) and mean is not None
                and math.isfinite(mean) and not _beyond(rounded(mean), gate))
    side = "lower" if gate.op == ">=" else "upper"
    why = (f"the gate read the {side} bound of the mean's interval, which is wide with few examples or a "
           "high confidence") if on_bound else ""
    return Nearest(_worst_first(measured, gate)[:min(shown, NEAREST_SHOWN)],
                   "highest" if gate.op == "<=" else "lowest", why)


def groundedness(result: ExampleResult) -> str:
    """An example's groundedness as the reports that list examples head it: a NaN (a hand-built result's)
    is undefined, as None is, and as the JSON report's null says."""
    value = result.metrics.get("groundedness")
    return f"{value:.2f}" if value is not None and math.isfinite(value) else "undefined"


def groundedness_key(result: ExampleResult) -> float:
    """Sorts the least grounded first and examples without a groundedness figure last."""
    value = result.metrics.get("groundedness")
    return math.inf if value is None or math.isnan(value) else value


def unsupported_lines(result: ExampleResult, *, limit: int, width: int, indent: str,
                      reason_lines: int = 1) -> list[str]:
    return sentence_lines([v for v in result.verdicts if not v.supported], limit=limit, width=width,
                          indent=indent, reason_lines=reason_lines)


def sentence_lines(verdicts: Sequence[ClaimVerdict], *, limit: int, width: int, indent: str,
                   what: str = "unsupported sentence", reason_lines: int = 1) -> list[str]:
    """Each sentence quoted on a line, the judge's reason on the next `reason_lines`, at most `limit` of
    them and a count of the rest: a 10,000-example run must not print or store megabytes of answers."""
    lines = []
    for v in verdicts[:limit]:
        lines.append(f'{indent}"{show(v.claim.text, width)}"')
        if v.reason:
            first, *rest = _Wrapper(width).wrap(show(v.reason, reason_lines * width)) or [""]
            lines.append(f"{indent}  reason: {first}")
            lines += [f"{indent}          {line}" for line in rest]
    more = len(verdicts) - limit
    if more > 0:
        lines.append(f"{indent}and {more} more {what}{'s' if more > 1 else ''}")
    return lines


class _Wrapper(textwrap.TextWrapper):
    """`textwrap.wrap`, but a word too long for a line is cut between two escapes, never inside one: a
    reason naming a context id of C1 controls had ended a line with "\\x8b\\" and begun the next with
    "x8c", which name other characters (as `_cut` keeps an escape whole). A line already full takes none
    of the word (its first character had made the line one column too wide), and a line that takes none
    gets no empty piece, so that its trailing space is dropped as any line's is."""

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int,
                          width: int) -> None:
        chunk = reversed_chunks[-1]
        room = width - cur_len if cur_line else max(width, 1)
        inside = next((found for found in _ESCAPE.finditer(chunk, 0, room + _ESCAPE_LONGEST)
                       if found.start() < room < found.end()), None)
        end = room if inside is None else inside.start() or (0 if cur_line else inside.end())
        if end:
            cur_line.append(chunk[:end])
            reversed_chunks[-1] = chunk[end:]


_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")
"""An escape as `_printable` writes one."""
_ESCAPE_LONGEST = 10


def moved(change: Change, metric: str) -> str:
    """`metric before -> after`, shared by every report that lists what regressed: `abstained` where the
    baseline's answer did, compared as making no unsupported claim (the gate's reason says as what)."""
    before = ("abstained" if change.abstained else "undefined" if change.before is None
              else f"{change.before:.4g}")
    return f"{metric} {before} -> {change.after:.4g}"


def listed_ids(ids: Sequence[str], shown: int, width: int) -> str:
    more = f" and {len(ids) - shown:,} more" if len(ids) > shown else ""
    return ", ".join(show_id(example_id, width) for example_id in ids[:shown]) + more




def clip(text: str, width: int) -> str:
    """`text` on one line of at most `width` characters, cut with an ellipsis. A character that is not
    printable is shown as its Python escape: an ANSI escape must not restyle the terminal. For lines that
    must pass `str.isprintable` (ragmon.target's errors quoting the candidate's replies, calibrate's
    quoting a claim, replay's quoting a baseline's version); the reports show text from the data with
    `show`, and ids with `show_id`."""
    return _cut(_squeezed(text), width, _printable)


def not_completed(status: int | None) -> str:
    """How the Markdown and JUnit error reports say the run did not complete: with the exit status it
    stopped with, or, for the report written before the run's work (`status` None), that it has not yet."""
    if status is None:
        return "the run has not completed"
    return f"the run could not complete (exit status {status})"


def show(text: str, width: int) -> str:
    """Text from the data as every report shows it: `clip`, but with a joiner kept where it joins two
    letters or emoji (`readable`). XML 1.0 forbids most control characters and every lone surrogate
    (which UTF-8 cannot encode), and those stay escaped. Its white space is squeezed (`_squeezed`): a
    sentence with a line break reads on one line. Never for what names a thing: `show_id`."""
    return _cut(_squeezed(text), width, readable)


def show_id(text: str, width: int) -> str:
    """An identifier as every report shows it (an example's, a document's, a path, a version): `show`, but
    with its white space as written, every character but the plain space that is not printable escaped.
    Squeezed, "a b" and "a\\u2028b" (or "a\\nb", "a\\tb", "a\\xa0b") were shown alike, as "a b": two
    examples could not be told apart, nor the real id found with grep."""
    return _cut(text, width, lambda flat: readable(flat, selectors=False))


def _squeezed(text: str) -> str:
    """Each run of white space one space, none at either end: `str.split` takes line breaks, tabs, the
    line and paragraph separators, NEL, NBSP and every other Unicode space as white space."""
    return " ".join(text.split())


def _printable(text: str) -> list[str]:
    """Each character of `text` as shown: itself, or its Python escape when it is not printable or is
    invisible (`IGNORABLE`)."""
    return [_escaped(char) for char in text]


def _escaped(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii") if IGNORABLE.match(char) else printable(char)


def readable(text: str, *, selectors: bool = True) -> list[str]:
    """`_printable`, but a zero-width joiner (U+200D) or non-joiner (U+200C) between two visible characters
    that are not ASCII is itself: they spell emoji (the family 👨\u200d👩\u200d👧), Indic conjuncts and
    Persian words, which their escapes break. Elsewhere a joiner joins nothing a reader sees, and shown
    raw it would make two ids that differ by it look alike ("sup-004" and "sup-0\u200d04"), so it stays
    escaped. So does every other invisible character (`IGNORABLE`): the bidi controls (U+202A-U+202E,
    U+2066-U+2069, and the marks U+200E, U+200F, U+061C) would reorder what a PR comment shows (Trojan
    Source), a zero-width space (U+200B) is what the Markdown report inserts to make `@mentions` inert and
    would hide a difference, and the tag characters (U+E0000 block) can carry invisible text. With
    `selectors`, a variation selector right after a visible character that is not ASCII is itself too
    (`_SELECTOR`: ❤\ufe0f, the red heart emoji, and a joiner after one, as in 🏳\ufe0f\u200d🌈); never in
    an id (`show_id`), where "🚀" and "🚀\ufe0f" are two."""
    return [char if shown != char and _kept(text, index, selectors) else shown
            for index, (char, shown) in enumerate(zip(text, _printable(text), strict=True))]


def _kept(text: str, index: int, selectors: bool) -> bool:
    """Whether text[index], an invisible character, is shown as itself all the same (`readable`)."""
    if text[index] in _JOINERS:
        return 0 < index < len(text) - 1 and _visible_letter(text[index + 1]) and (
            _visible_letter(text[index - 1]) or (selectors and _selected(text, index - 1)))
    return selectors and _selected(text, index)


_JOINERS = "\u200c\u200d"

IGNORABLE = re.compile("[\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                        "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1), which a renderer
shows as nothing. `str.isprintable` passes those of categories Mn and Lo (the combining grapheme joiner
U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels U+17B4-U+17B5, the
variation selectors): shown raw, "sup-0\u034f04" and "x\u3164" had looked like "sup-004" and "x" in
every report, with no warning (ids differ only as a report showed them)."""
_SELECTOR = re.compile("[\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]")
"""The variation selectors: one after a letter or a symbol picks its glyph (an emoji's colour form, a
Mongolian or CJK variant)."""


def _selected(text: str, index: int) -> bool:
    """Whether text[index] is a variation selector a reader sees the effect of: one, right after a visible
    character that is not ASCII. A run of them after one emoji would carry invisible text."""
    return index > 0 and _SELECTOR.match(text[index]) is not None and _visible_letter(text[index - 1])


def _visible_letter(char: str) -> bool:
    return not char.isascii() and plain(char)


def plain(char: str) -> bool:
    """Whether every report shows `char` as itself wherever it is: printable, and not invisible."""
    return char.isprintable() and not IGNORABLE.match(char)


def _cut(flat: str, width: int, shown: Callable[[str], list[str]]) -> str:
    """`flat` on one line of at most `width` characters, each as `shown` writes it, cut with an ellipsis
    between two of them: an escape is kept whole or not at all, as a cut "\\x1" would name another byte.
    A joiner left last by the cut joins nothing, and goes. `shown` escapes every line break, so `flat` is
    on one line whether squeezed (`_squeezed`) or not."""
    head = flat[:width]
    if head.isprintable() and (head.isascii() or not IGNORABLE.search(head)):  # the common case, cheap
        return flat if len(flat) <= width else head[:width - 1].rstrip() + "…"
    pieces = shown(head)
    if len(flat) <= width and sum(map(len, pieces)) <= width:
        return "".join(pieces)
    kept = total = 0
    for piece in pieces:
        total += len(piece)
        if total > width - 1:
            break
        kept += 1
    return "".join(pieces[:kept]).rstrip(" " + _JOINERS) + "…"


def _skipped_section(skipped: Sequence[tuple[str, str]]) -> list[str]:
    """Examples left out of every figure (a judge error under `--judge-errors=skip`): a gate can pass
    without them, so the terminal names the first few and why, not only their count."""
    return _named_section(skipped, "skipped examples ({} of {}, left out of every figure):")


def _warnings_section(warnings: Sequence[tuple[str, str]]) -> list[str]:
    """Examples scored with a warning (`Report.warnings`): named, as skipped ones are."""
    return _named_section(warnings, "warnings ({} of {}, on examples scored):")


def _named_section(entries: Sequence[tuple[str, str]], heading: str) -> list[str]:
    """The first WORST_SHOWN (example id, text) entries under `heading`, which gets how many of how many."""
    if not entries:
        return []
    shown = entries[:WORST_SHOWN]
    return [heading.format(len(shown), len(entries)),
            *(f"  {show_id(example_id, ID_WIDTH)}: {show(said, WIDTH)}" for example_id, said in shown)]


def _baseline_section(comparison: Comparison | None, gates: Sequence[GateResult]) -> list[str]:
    """How the examples compare with the baseline's, then the regressed ones, their newly unsupported
    sentences quoted: what changed is what a reviewer of the change wants first. Then, for each breached
    drop gate on a metric the sentences do not decide, the examples worse on it (`worsened_by_gate`)."""
    if comparison is None:
        return []
    gone = f" ({listed_ids(comparison.gone, WORST_SHOWN, ID_WIDTH)})" if comparison.gone else ""
    shared = f"{comparison.shared} example{'' if comparison.shared == 1 else 's'}"
    lines = [f"baseline {show_id(comparison.path, WIDTH)}: {shared} in both runs, "
             f"{comparison.new} new, {len(comparison.gone)} gone{gone}"]
    if comparison.regressed:
        shown = comparison.regressed[:WORST_SHOWN]
        lines.append(f"regressed examples ({len(shown)} of {len(comparison.regressed)} whose groundedness "
                     f"fell against the baseline):")
        for change in shown:
            lines.append(f"  {show_id(change.result.example.id, ID_WIDTH)}: {moved(change, 'groundedness')}")
            newly = sentence_lines(change.newly_unsupported, limit=SENTENCES_SHOWN, width=WIDTH,
                                   indent="    ", what=NEWLY, reason_lines=REASON_LINES)
            lines += newly or [f"    no {NEWLY}"]
    for gate, worsened in worsened_by_gate(comparison, gates):
        shown = worsened[:WORST_SHOWN]
        lines.append(f"{gate.metric} regressions ({len(shown)} of {len(worsened)} examples worse on it than "
                     "in the baseline):")
        lines += [f"  {show_id(change.result.example.id, ID_WIDTH)}: {moved(change, gate.metric)}"
                  for change in shown]
    return lines


def worsened_by_gate(comparison: Comparison,
                     gates: Sequence[GateResult]) -> list[tuple[GateResult, tuple[Change, ...]]]:
    """Each breached drop gate on a metric the unsupported sentences do not decide (answer_relevance,
    recall), with the shared examples worse on it, the biggest change first: the list of regressions is
    of groundedness, and for such a gate had read "no shared example's groundedness fell" alone. None for
    a gate whose metric was undefined: its reason says which run lacked it. A breached one always has an
    example worse: the change is paired, over the examples both runs measured."""
    return [(g, comparison.worsened(g.metric)) for g in gates if not g.passed and g.max_drop is not None
            and g.value is not None and g.metric not in CLAIM_METRICS]


def _citation_section(results: Sequence[ExampleResult], gate: GateResult) -> list[str]:
    """For a breached gate on a citation metric, the first examples below it and the citations that put
    them there (`citation_lines`): the weakest examples are those with unsupported sentences, and an
    answer citing a document it never used has none, so the summary had named no example."""
    if gate.passed or gate.max_drop is not None or gate.metric not in citations.CITATION_METRICS:
        return []
    failing = wrong_side(measured(results, gate.metric), gate)
    if not failing:
        return []
    shown = failing[:WORST_SHOWN]
    lines = [f"{gate.metric} below {fmt_exact(gate.threshold)} ({len(shown)} of "
             f"{len(failing)} examples, worst first):"]
    for value, result in shown:
        lines.append(f"  {show_id(result.example.id, ID_WIDTH)}: {gate.metric} "
                     f"{fmt_pair(value, gate.threshold)[0]}")
        lines += citation_lines(result, width=ID_WIDTH, indent="    ", metrics=(gate.metric,))
    return lines


def citation_lines(result: ExampleResult, *, width: int, indent: str,
                   metrics: Sequence[str] = citations.CITATION_METRICS) -> list[str]:
    """The example's citations that lowered `metrics` (`citations.of`), a line each, at most
    CITED_SHOWN ids a list: for the terminal and a JUnit failure, both plain text."""
    return [f"{indent}{line}" for line in citations.of(result).lines(
        lambda ids: listed_ids(ids, CITED_SHOWN, width), metrics)]


def _worst_section(results: Sequence[ExampleResult]) -> list[str]:
    flagged = sorted((r for r in results if any(not v.supported for v in r.verdicts)), key=groundedness_key)
    if not flagged:
        return []
    shown = flagged[:WORST_SHOWN]
    lines = [f"weakest examples ({len(shown)} of {len(flagged)} with unsupported sentences):"]
    for result in shown:
        lines.append(f"  {show_id(result.example.id, ID_WIDTH)}: groundedness {groundedness(result)}")
        lines += unsupported_lines(result, limit=SENTENCES_SHOWN, width=WIDTH, indent="    ",
                                   reason_lines=REASON_LINES)
    return lines


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows]
