"""The Markdown report: for a PR comment or a CI step summary, ending with the examples to look at first.

The weakest examples come first (lowest groundedness), then the others with a problem, each showing its
unsupported sentences verbatim with the judge's reason, the relevant documents retrieval missed, and the
retrieved ones never used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragmon.gate import GateResult
from ragmon.model import ExampleResult, Report
from ragmon.report.text import aggregate_cells, groundedness_key, verdict

DEFAULT_WORST = 10


def render(report: Report, gates: Sequence[GateResult], *, worst: int = DEFAULT_WORST) -> str:
    judge = report.judge.get("name", "?")
    lines = [
        f"## ragmon replay: {verdict(gates)}",
        "",
        f"{len(report.results)} examples, judge `{judge}`, k={report.k}.",
        "",
        f"| metric | mean | n | {report.config.confidence * 100:g}% interval |",
        "|---|---:|---:|---|",
    ]
    for name, aggregate in report.aggregates.items():
        value, n, interval = aggregate_cells(aggregate)
        lines.append(f"| {name} | {value} | {n} | {interval} |")
    if gates:
        lines += ["", "| gate | value | result | reason |", "|---|---:|---|---|"]
        for g in gates:
            value = "undefined" if g.value is None else f"{g.value:.4g}"
            held = "pass" if g.passed else "**FAIL**"
            lines.append(f"| {g.metric} {g.op} {g.threshold:g} | {value} | {held} | {_cell(g.reason)} |")
    if report.skipped:
        lines += ["", f"### Skipped ({len(report.skipped)})", ""]
        lines += [f"- {_code(example_id)}: {_text(reason)}" for example_id, reason in report.skipped]
    weak = weakest(report.results)
    if weak:
        shown = weak[:worst]
        lines += ["", f"### Weakest examples ({len(shown)} of {len(weak)} with problems)"]
        for result in shown:
            lines += ["", *_example_section(result)]
    return "\n".join(lines) + "\n"


def weakest(results: Sequence[ExampleResult]) -> list[ExampleResult]:
    """Examples with an unsupported claim or a missed relevant document, lowest groundedness first."""
    flagged = [r for r in results if r.relevant_not_retrieved or any(not v.supported for v in r.verdicts)]
    return sorted(flagged, key=groundedness_key)


def _example_section(result: ExampleResult) -> list[str]:
    groundedness = result.metrics.get("groundedness")
    score = "undefined" if groundedness is None else f"{groundedness:.2f}"
    lines = [f"#### {_code(result.example.id)}: groundedness {score}", "",
             f"Question: {_text(result.example.question)}"]
    unsupported = [v for v in result.verdicts if not v.supported]
    if unsupported:
        lines += ["", "Unsupported:"]
        for v in unsupported:
            lines += ["", *(f"> {_escaped(line)}" for line in v.claim.text.splitlines() or [""])]
            if v.reason:
                lines += ["", f"Reason: {_text(v.reason)}"]
    if result.relevant_not_retrieved:
        lines += ["", "Relevant but not retrieved: " + _ids(result.relevant_not_retrieved)]
    if result.retrieved_unused:
        lines += ["", "Retrieved but unused: " + _ids(result.retrieved_unused)]
    return lines


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(_code(doc_id) for doc_id in ids)


def _code(text: str) -> str:
    """A code span that holds any id: a backtick or a line break inside would end it, or the heading it is
    in. Fenced by one backtick more than the longest run inside, padded when the id starts or ends with
    one (CommonMark: the padding is stripped again)."""
    text = " ".join(text.splitlines())
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _text(text: str) -> str:
    """Data shown as prose, on one line."""
    return _escaped(_inline(text))


def _escaped(text: str) -> str:
    """Answers, questions and judge messages are data: HTML in them must be shown, not rendered (an
    unclosed `<details>` would fold away the rest of a CI step summary). Markdown keeps `&lt;` and
    `&amp;` as the characters they stand for."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def _inline(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")
