"""The demo's builds scored as `ragmon demo --all` scores them, without a sidecar: the builds are
deterministic, and an online figure is the offline one for the same example
(tests/test_serve_replay_agreement.py), so the figures the docs quote of the tour's phases are worked out
here from the golden set each build writes."""

from __future__ import annotations

from pathlib import Path

from ragmon import Report, evaluate
from ragmon.datasets import load
from ragmon.demo.app import answered_offline, write_golden


def scored(phase: str, tmp_path: Path) -> Report:
    """The 32 built-in questions answered by `phase`'s build, read from its golden file as `--golden`
    writes it."""
    golden = tmp_path / f"{phase}.jsonl"
    write_golden(golden, answered_offline(phase))
    return evaluate(load([golden]))


def claims_supported(report: Report) -> float:
    """The share of all the answers' claims that are supported: the tour's "grounded" column, read from the
    claim counters, where each answer counts as many times as it has claims."""
    verdicts = [verdict.supported for result in report.results for verdict in result.verdicts]
    return sum(verdicts) / len(verdicts)
