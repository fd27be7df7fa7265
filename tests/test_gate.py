"""Gate parsing and decisions on hand-built Reports: min vs max, undefined fails, interval bounds, repeats."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragmon.errors import InputError
from ragmon.gate import (
    EXIT_BREACHED,
    EXIT_ERROR,
    EXIT_OK,
    Gate,
    GateResult,
    combine,
    decide,
    exit_code,
    fmt_pair,
    parse_gate,
    parse_gates,
)
from ragmon.model import METRIC_NAMES, Aggregate, EvalConfig, Example, ExampleResult, Report
from ragmon.report import text


def report_with(aggregates: dict[str, Aggregate],
                values: dict[str, list[float | None]] | None = None) -> Report:
    columns = values or {}
    n = max((len(col) for col in columns.values()), default=0)
    results = tuple(
        ExampleResult(Example(f"e{i}", "q"), "lexical", {name: col[i] for name, col in columns.items()}, ())
        for i in range(n))
    return Report({"name": "lexical"}, 5, results, aggregates)


def test_exit_codes_are_the_documented_ones() -> None:
    assert (EXIT_OK, EXIT_BREACHED, EXIT_ERROR) == (0, 1, 2)


def test_parse_minimum_and_maximum() -> None:
    assert parse_gate("groundedness=0.85") == Gate("groundedness", 0.85)
    assert parse_gate("groundedness=0.85").op == ">="
    assert parse_gate(" hallucination_rate = 0.1 ").op == "<="


@pytest.mark.parametrize(("text", "words"), [
    ("groundedness", "expects NAME=VALUE"),
    ("=0.5", "expects NAME=VALUE"),
    ("groundedness=high", "is not a number"),
    ("groundedness=1.5", "between 0 and 1"),
    ("groundedness=-0.1", "between 0 and 1"),
])
def test_parse_rejects_bad_gates(text: str, words: str) -> None:
    with pytest.raises(InputError, match=words):
        parse_gate(text)


def test_unknown_metric_lists_every_valid_name() -> None:
    with pytest.raises(InputError) as info:
        parse_gate("faithfulness=0.9")
    message = str(info.value)
    assert "unknown metric 'faithfulness'" in message
    assert all(name in message for name in METRIC_NAMES)


def test_same_metric_twice_is_refused() -> None:
    with pytest.raises(InputError, match="given 2 times"):
        parse_gates(["groundedness=0.8", "groundedness=0.9"])


def test_minimum_and_maximum_decisions_on_the_mean() -> None:
    report = report_with({"groundedness": Aggregate(0.71, 20, (0.6, 0.8)),
                          "hallucination_rate": Aggregate(0.29, 20, (0.2, 0.4)),
                          "recall": Aggregate(0.85, 20, (0.8, 0.9))})
    gates = parse_gates(["groundedness=0.85", "hallucination_rate=0.30", "recall=0.85"])
    grounded, halluc, recall = decide(report, gates)
    assert grounded == GateResult("groundedness", ">=", 0.85, 0.71, False, "0.71 < 0.85")
    assert halluc == GateResult("hallucination_rate", "<=", 0.30, 0.29, True, "0.29 <= 0.3")
    assert recall.passed  # equal to a minimum holds
    assert exit_code((grounded, halluc, recall)) == EXIT_BREACHED
    assert exit_code((halluc, recall)) == EXIT_OK
    # A maximum above its threshold breaches.
    (breach,) = decide(report, parse_gates(["hallucination_rate=0.10"]))
    assert not breach.passed and breach.reason == "0.29 > 0.1"


def test_unobserved_gated_metric_fails() -> None:
    report = report_with({"citation_accuracy": Aggregate(None, 0, None)})
    results = decide(report, parse_gates(["citation_accuracy=0.0", "abstention=0.0"]))
    for result in results:  # abstention is not even in the aggregates: same outcome
        assert (result.passed, result.value, result.reason) == (False, None, "undefined: 0 observations")
    assert exit_code(results) == EXIT_BREACHED


def test_confidence_gates_on_the_pessimistic_bound() -> None:
    report = report_with({"groundedness": Aggregate(0.90, 50, (0.82, 0.95)),
                          "hallucination_rate": Aggregate(0.08, 50, (0.03, 0.12))})
    gates = parse_gates(["groundedness=0.85", "hallucination_rate=0.10"])
    assert all(r.passed for r in decide(report, gates))  # the means hold
    grounded, halluc = decide(report, gates, confidence=0.95)
    assert (grounded.value, grounded.passed) == (0.82, False)  # lower bound for a minimum
    assert grounded.reason == "lower 95% bound 0.82 < 0.85"
    assert (halluc.value, halluc.passed) == (0.12, False)  # upper bound for a maximum
    assert halluc.reason == "upper 95% bound 0.12 > 0.1"


def test_other_confidence_levels_are_recomputed_from_the_examples() -> None:
    # 100 examples, 90 scoring 1 and 10 scoring 0: mean 0.9, standard error sqrt(0.9*0.1/100) = 0.03.
    # By the normal approximation the 50% interval's lower end is 0.9 - 0.674*0.03 = 0.880 and the
    # 99% interval's is 0.9 - 2.576*0.03 = 0.823, on either side of 0.85 by about one standard error.
    values: list[float | None] = [1.0] * 90 + [0.0] * 10
    # The stored 95% interval is deliberately absurd: other levels must not read it.
    report = report_with({"groundedness": Aggregate(0.9, 100, (0.0, 1.0))}, {"groundedness": values})
    gates = parse_gates(["groundedness=0.85"])
    (at_50,) = decide(report, gates, confidence=0.50)
    (at_99,) = decide(report, gates, confidence=0.99)
    (at_95,) = decide(report, gates, confidence=0.95)
    assert at_50.passed and 0.85 < at_50.value < 0.9
    assert not at_99.passed and 0.78 < at_99.value < 0.85
    assert at_95.value == 0.0  # the Report's own 95% interval is used as it stands
    assert at_50.reason.startswith("lower 50% bound ")


def test_a_report_at_another_level_is_read_at_its_own_level() -> None:
    # A library user's EvalConfig(confidence=0.5): the stored interval is a 50% one (deliberately absurd
    # here, to show it is read as it stands), so a 50% gate reads it and a 95% gate recomputes; the
    # summary names its level. Same 90/10 examples as above: the 95% lower end is about
    # 0.9 - 1.96 * 0.03 = 0.841.
    values: list[float | None] = [1.0] * 90 + [0.0] * 10
    stored = report_with({"groundedness": Aggregate(0.9, 100, (0.0, 1.0))}, {"groundedness": values})
    report = replace(stored, config=EvalConfig(confidence=0.5))
    gates = parse_gates(["groundedness=0.85"])
    (at_50,) = decide(report, gates, confidence=0.5)
    (at_95,) = decide(report, gates, confidence=0.95)
    assert at_50.value == 0.0
    assert at_95.value is not None and 0.81 < at_95.value < 0.85
    assert text.render(report, ()).splitlines()[2].endswith(" 50% interval")


def test_repeated_runs_pass_on_the_required_share() -> None:
    def run(passed: bool, value: float) -> tuple[GateResult, ...]:
        return (GateResult("groundedness", ">=", 0.85, value, passed, "x"),)

    runs = [run(True, 0.9), run(False, 0.8), run(True, 0.88)]
    (held,) = combine(runs, min_pass_rate=0.6)  # needs ceil(0.6 * 3) = 2 of 3; 2 held
    assert held.passed and held.reason.startswith("held in 2 of 3 runs (needs 2)")
    assert held.value == pytest.approx((0.9 + 0.8 + 0.88) / 3)
    (strict,) = combine(runs, min_pass_rate=0.7)  # needs ceil(2.1) = 3 of 3
    assert not strict.passed
    assert combine(runs[:1], min_pass_rate=0.6) == runs[0]


def test_close_values_never_print_as_equal() -> None:
    assert fmt_pair(0.84999, 0.85) == ("0.84999", "0.85")
    assert fmt_pair(0.7142857, 0.85) == ("0.7143", "0.85")


def test_minus_zero_threshold_reads_as_zero() -> None:
    # float("-0") is -0.0, which every report would print as "-0" (a test named "recall >= -0").
    gate = parse_gate("recall=-0")
    assert str(gate.threshold) == "0.0"
    (result,) = decide(report_with({"recall": Aggregate(0.0, 1, (0.0, 0.0))}), [gate])
    assert result.passed and result.reason == "0 >= 0"
