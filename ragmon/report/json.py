"""The machine-readable report. Its schema is a contract (DESIGN §3): keep keys and types stable.

Undefined figures are `null`, never NaN: strict JSON parsers reject NaN and dashboards would read it as data.
A lone surrogate (input JSON's "\\ud83d" escape, half an emoji a JavaScript pipeline cut in two) is written
as U+FFFD, never as its escape: valid JSON syntax, but jq 1.6 and serde_json refuse the whole file for it.
`passed` is true only for a run that completed (exit 0): a run that could not complete (exit 2) says
`"complete": false` and the `error` that stopped it, so a CI step that reads the file after a failed run
never finds a pass, nor the previous run's report. `warnings` are each an example's; `run_warnings` the
run's, of no example (a capture recorded at another `--k`): filed under an example's id, one read as that
example's problem.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragmon import __version__
from ragmon.baseline import REPORT_FORMAT, Change, Comparison, abstained, rounded
from ragmon.errors import inert, json_escape
from ragmon.gate import GateResult
from ragmon.jsontext import replace_lone_surrogates
from ragmon.model import ClaimVerdict, ExampleResult, Report
from ragmon.report import citations
from ragmon.report.text import IGNORABLE
from ragmon.rules import SCORING_RULES


def to_dict(report: Report, gates: Sequence[GateResult], *, incomplete: str | None = None,
            comparison: Comparison | None = None, run_warnings: Sequence[str] = ()) -> dict[str, Any]:
    """`incomplete` is the error that stopped the run after scoring: the figures are kept, and said to be
    no verdict. `comparison` is against the `--baseline` run, when there is one (else `baseline` is null).
    `run_warnings` are the run's, of no example. The report is itself a baseline for a later run
    (ragmon.baseline reads it)."""
    return {
        "report_format": REPORT_FORMAT,
        "ragmon_version": __version__,
        "scoring_rules": SCORING_RULES,
        "judge": json_value(dict(report.judge)),
        "k": report.k,
        "confidence": report.config.confidence,
        "examples": len(report.results),
        # At the 12 decimals a gate compares at, as `gates[].value` is: a mean of 0.19999999999999998 (0, 0
        # and 0.6) beside a `groundedness >= 0.2` that passed would read as a contradiction, to a script too.
        "aggregates": {
            name: {"mean": _rounded(a.mean), "n": a.n, "ci": _interval(a.ci)}
            for name, a in report.aggregates.items()
        },
        "gates": [
            # Null in a run that did not complete, as the other reports read "not decided": `true` had told
            # a tool reading `gates[].passed` that an undecided gate held.
            {"metric": g.metric, "op": g.op, "threshold": g.threshold, "value": _number(g.value),
             "passed": g.passed if incomplete is None else None, "reason": g.reason, "max_drop": g.max_drop,
             "baseline": _number(g.baseline)}
            for g in gates
        ],
        "passed": incomplete is None and all(g.passed for g in gates),
        "complete": incomplete is None,
        "error": incomplete,
        "baseline": None if comparison is None else _baseline(comparison, gates),
        "results": [_result(r) for r in report.results],
        "skipped": [{"id": example_id, "reason": reason} for example_id, reason in report.skipped],
        "failed": [],
        "warnings": [{"id": example_id, "warning": warning} for example_id, warning in report.warnings],
        "run_warnings": list(run_warnings),
    }


def render(report: Report, gates: Sequence[GateResult], *, incomplete: str | None = None,
           comparison: Comparison | None = None, run_warnings: Sequence[str] = ()) -> str:
    return "".join(pieces(report, gates, incomplete=incomplete, comparison=comparison,
                          run_warnings=run_warnings))


def pieces(report: Report, gates: Sequence[GateResult], *, incomplete: str | None = None,
           comparison: Comparison | None = None, run_warnings: Sequence[str] = ()) -> Iterator[str]:
    """`render`'s text a piece at a time, to be written as it comes. Compact: the C encoder only runs
    without `indent`, and a 10,000-example report is for tools (`jq`)."""
    return _encoded(to_dict(report, gates, incomplete=incomplete, comparison=comparison,
                            run_warnings=run_warnings))


def render_error(message: str, failed: Sequence[tuple[str, str]] = ()) -> str:
    """A run that stopped before it had figures (bad input, an unreachable target, a judge error): every
    key of a full report, empty, so `jq '.results[]'` or `.gates | length` still work on it; `failed`, the
    (example id, reason) of every example that stopped it (`ExamplesFailed`), which `message` counts
    past the first few."""
    return "".join(_encoded({"report_format": REPORT_FORMAT, "ragmon_version": __version__,
                   "scoring_rules": SCORING_RULES, "judge": {}, "k": None,
                   "confidence": None, "examples": 0, "aggregates": {}, "gates": [], "passed": False,
                   "complete": False, "error": message, "baseline": None, "results": [], "skipped": [],
                   "failed": [{"id": example_id, "reason": reason} for example_id, reason in failed],
                   "warnings": [], "run_warnings": []}))


def _encoded(doc: dict[str, Any]) -> Iterator[str]:
    """`doc` as JSON, then a newline: each key with its value, and a list's items one by one (`results`),
    each a text of its own. As one text, with its copies, a report of 62 MB whose sentences each held an
    emoji (4 bytes a character in Python, for the whole text) had taken 560 MB more than the run without
    it. The same bytes as `_dumped(doc)`'s: JSON without `indent` holds no newline, so `inert`'s line
    start is a piece's start, never white space or `:` here, and a `##[` lies within one string."""
    for index, (key, value) in enumerate(doc.items()):
        yield ("{" if index == 0 else ", ") + _dumped(key) + ": "
        if isinstance(value, list) and value:
            yield "["
            for place, item in enumerate(value):
                yield (", " if place else "") + _dumped(item)
            yield "]"
        else:
            yield _dumped(value)
    yield "}\n"


def _dumped(value: Any) -> str:
    """ensure_ascii=False leaves each lone surrogate a character of the text, found in one regex pass over
    it (ids, claims, reasons, paths and errors alike); ensure_ascii=True would escape it instead."""
    dumped = replace_lone_surrogates(json.dumps(value, ensure_ascii=False, allow_nan=False))
    if not dumped.isascii() or "\x7f" in dumped:  # a flag's test first: most pieces are ASCII, bar DEL
        dumped = _UNSEEN.sub(lambda found: json.dumps(found.group())[1:-1], dumped)
    # The `[` of a `##[` is inside a string (`#` is nowhere else): `--json /dev/stdout` in a CI log runs no
    # command, and the report holds the text as written.
    return inert(dumped, json_escape)


_UNSEEN = re.compile(f"[\x7f-\x9f\u2028\u2029]|{IGNORABLE.pattern}")
"""What JSON may hold raw and a terminal would act on or hide, written as JSON's own escape (`\\u009b`),
which every reader decodes back: `cat report.json` in a CI log had sent a C1 CSI (U+009B) that restyles
the log, a bidi override that reorders its line (Trojan Source), and invisible characters. JSON's
encoder escapes the C0 controls itself."""


def _baseline(comparison: Comparison, gates: Sequence[GateResult]) -> dict[str, Any]:
    """Every regressed example, as `results` holds every example: the file is for tools, not for reading.
    `worsened` lists, for each drop-gated metric, every example worse on it, as the Markdown and JUnit
    reports name a breached gate's: `regressed` is of groundedness alone, and a script had no way to find
    the examples behind `--max-drop answer_correctness=...`."""
    return {
        "path": comparison.path,
        "ragmon_version": comparison.ragmon_version,
        "scoring_rules": comparison.scoring_rules,
        "shared": comparison.shared,
        "new": comparison.new,
        "gone": len(comparison.gone),
        "gone_ids": list(comparison.gone),
        "caveats": list(comparison.caveats),
        "metrics": {name: {"baseline": _number(change.baseline), "candidate": _number(change.candidate),
                           "delta": _number(change.delta), "n": change.n,
                           "n_baseline_only": change.baseline_only, "n_candidate_only": change.candidate_only,
                           "n_baseline_abstained": change.abstained}
                    for name, change in comparison.metrics.items()},
        "regressed": [_change(change) for change in comparison.regressed],
        "worsened": {g.metric: [_change(change) for change in comparison.worsened(g.metric)]
                     for g in gates if g.max_drop is not None},
    }


def _change(change: Change) -> dict[str, Any]:
    """`before` is the baseline's own figure, null where it had none: also where its answer abstained
    (`baseline_abstained`), which the comparison counted as making no unsupported claim."""
    return {"id": change.result.example.id, "before": _number(change.before), "after": _number(change.after),
            "baseline_abstained": change.abstained,
            "newly_unsupported": [_claim(v) for v in change.newly_unsupported]}


def _claim(v: ClaimVerdict) -> dict[str, Any]:
    return {"text": v.claim.text, "start": v.claim.start, "end": v.claim.end, "supported": v.supported,
            "supporting_ids": list(v.supporting_ids), "reason": v.reason}


def _result(result: ExampleResult) -> dict[str, Any]:
    """`citations` as the example gave them (null when unknown), then those that lowered its citation
    metrics (ragmon.report.citations), so a script can say which id broke a citation gate."""
    cited = result.example.citations
    faults = citations.of(result)
    return {
        "id": result.example.id,
        "question": result.example.question,
        "category": result.example.category,
        "metrics": {name: _number(value) for name, value in result.metrics.items()},
        "claims": [_claim(v) for v in result.verdicts],
        "relevant_not_retrieved": list(result.relevant_not_retrieved),
        "retrieved_unused": list(result.retrieved_unused),
        "abstained": abstained(result),
        "citations": None if cited is None else list(cited),
        "cited_unsupporting": list(faults.unsupporting),
        "cited_not_retrieved": list(faults.not_retrieved),
        "used_not_cited": list(faults.uncited),
    }


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _rounded(value: float | None) -> float | None:
    return None if (number := _number(value)) is None else rounded(number)


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    """Rounded as the means are: `--confidence` gates on a bound."""
    if ci is None or not all(math.isfinite(bound) for bound in ci):
        return None
    return [rounded(ci[0]), rounded(ci[1])]


def json_value(value: Any) -> Any:
    """Judge settings as JSON: non-finite floats become null, tuples lists, anything else its text. What
    the report records, so what a run's judge is compared with a baseline's as."""
    if isinstance(value, float):
        return _number(value)
    if value is None or isinstance(value, str | int | bool):
        return value
    if isinstance(value, Mapping):
        return {str(key): json_value(item) for key, item in value.items()}
    if isinstance(value, Sequence):
        return [json_value(item) for item in value]
    return str(value)
