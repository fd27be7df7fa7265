"""The terminal summary of a replay: a metrics table and one verdict line a CI log reader can grep."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragmon.gate import GateResult
from ragmon.model import Aggregate, Report


def render(report: Report, gates: Sequence[GateResult]) -> str:
    judge = report.judge.get("name", "?")
    header = f"ragmon replay: {len(report.results)} examples, judge {judge}, k={report.k}"
    if report.skipped:
        header += f", {len(report.skipped)} skipped"
    rows = [("metric", "value", "n", f"{report.config.confidence * 100:g}% interval")]
    rows += [(name, *aggregate_cells(aggregate)) for name, aggregate in report.aggregates.items()]
    lines = [header, "", *_table(rows), ""]
    lines += [f"gate {g.metric} {g.op} {g.threshold:g}: {'ok' if g.passed else 'BREACHED'} ({g.reason})"
              for g in gates]
    lines.append(verdict(gates))
    return "\n".join(lines) + "\n"


def aggregate_cells(aggregate: Aggregate) -> tuple[str, str, str]:
    """value, n and interval as text; shared with the Markdown report so both print a figure the same way."""
    if aggregate.mean is None or not math.isfinite(aggregate.mean):
        return f"undefined (n={aggregate.n})", str(aggregate.n), ""
    ci = aggregate.ci
    interval = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci and all(map(math.isfinite, ci)) else ""
    return f"{aggregate.mean:.3f}", str(aggregate.n), interval


def verdict(gates: Sequence[GateResult]) -> str:
    breached = [g for g in gates if not g.passed]
    if not breached:
        return "PASS" if gates else "PASS (no gates given)"
    return "FAIL: " + ", ".join(f"{g.metric} {g.reason}" for g in breached)


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows]
